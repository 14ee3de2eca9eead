//! The dictionary page of a column chunk, decoded on its own (for pruning by dictionary).

use parq_codecs::compression::{CodecKind, Decompressor};

use super::decode::ChunkDecoder;
use super::page::{DataPage, Page, PageReader};
use super::{ByteArrayLayout, FileDecoder, Source};
use crate::column::Column;
use crate::error::Location;
use crate::{Error, Result};

impl<S: Source> FileDecoder<S> {
    /// The entries of the dictionary page of leaf `column` in `row_group`, as a column;
    /// `None` when the chunk does not start with a dictionary page. Only the bytes before
    /// the first data page are read when the metadata says where that is.
    pub(crate) fn read_dictionary_page(
        &self,
        row_group: usize,
        column: usize,
    ) -> Result<Option<Column>> {
        let loc = Location {
            column: self.schema.leaves.get(column).map(|d| d.path_string()),
            row_group: Some(row_group),
            ..Location::default()
        };
        let desc = self.schema.leaves.get(column).ok_or_else(|| {
            Error::InvalidArgument(format!("column {column} of {}", self.schema.leaves.len()))
        })?;
        let chunk = self
            .metadata
            .row_groups
            .get(row_group)
            .and_then(|rg| rg.columns.get(column))
            .ok_or_else(|| Error::InvalidArgument(format!("row group {row_group}")))?;
        let Some(meta) = chunk.meta_data.as_ref() else {
            return Ok(None);
        };
        if chunk.file_path.is_some() || meta.num_values == 0 {
            return Ok(None);
        }
        let codec = CodecKind::from_thrift(meta.codec.0)
            .ok_or_else(|| Error::Unsupported(format!("compression codec {:?}", meta.codec)))?;
        let (start, mut end) = self.chunk_range(chunk, &loc)?;
        if let Ok(data) = u64::try_from(meta.data_page_offset) {
            if data > start && data < end {
                end = data;
            }
        }
        let bytes = self.source.read(start..end)?;
        let mut pages = PageReader::new(
            bytes,
            start,
            codec,
            meta.num_values,
            (desc.max_rep_level, desc.max_def_level),
            self.options.verify_crc,
            loc,
        );
        let mut decompressor = Decompressor::new(self.options.limits());
        let Some(Page::Dictionary(page)) = pages.next_page(&mut decompressor)? else {
            return Ok(None);
        };
        let num_values = page.num_values;
        self.options
            .check_page_values("dictionary", num_values)
            .map_err(|e| e.at(&pages.last_location()))?;
        // The entries are PLAIN values: decode them as a required PLAIN page.
        let mut decoder = ChunkDecoder::new(
            desc.physical_type,
            desc.type_length,
            ByteArrayLayout::Offsets,
        )?;
        let values = page.values(&mut decompressor)?;
        let page = DataPage::dictionary_entries(values, num_values);
        decoder.decode_slots(page, None, num_values, pages.last_location())?;
        Ok(Some(decoder.finish()))
    }
}
