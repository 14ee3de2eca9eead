//! The page index of a column chunk: its column index (per-page statistics) and offset index
//! (per-page locations and first rows). Both are optional and read on demand.

use crate::error::Location;
use crate::metadata::{self, ColumnIndex, OffsetIndex};
use crate::read::{FileDecoder, ParquetReader, Source};
use crate::{Error, Result};

impl<S: Source> FileDecoder<S> {
    /// The plaintext of a column or offset index (`module`): decrypted when its column is
    /// encrypted.
    #[cfg(feature = "encryption")]
    fn decrypt_index(
        &self,
        bytes: bytes::Bytes,
        module: crate::encryption::ModuleType,
        row_group: usize,
        column: usize,
    ) -> Result<bytes::Bytes> {
        match &self.decryptor {
            Some(d) => d.index(bytes, module, row_group, column),
            None => Ok(bytes),
        }
    }

    pub(super) fn chunk(&self, row_group: usize, column: usize) -> Result<&metadata::ColumnChunk> {
        self.metadata
            .row_groups
            .get(row_group)
            .and_then(|rg| rg.columns.get(column))
            .ok_or_else(|| {
                Error::InvalidArgument(format!("column {column} of row group {row_group}"))
            })
    }

    pub(super) fn index_location(&self, row_group: usize, column: usize, offset: i64) -> Location {
        Location {
            column: self.schema.leaves.get(column).map(|d| d.path_string()),
            row_group: Some(row_group),
            offset: Some(offset.max(0) as u64),
            ..Location::default()
        }
    }

    pub(super) fn index_bytes(
        &self,
        offset: i64,
        len: i32,
        what: &str,
        row_group: usize,
        column: usize,
    ) -> Result<bytes::Bytes> {
        let file_len = self.source.len();
        let (Ok(start), Ok(len)) = (u64::try_from(offset), u64::try_from(len)) else {
            return Err(
                Error::format(format!("{what} at {offset} with {len} bytes"))
                    .at(&self.index_location(row_group, column, offset)),
            );
        };
        match start.checked_add(len) {
            Some(end) if end <= file_len => self.source.read(start..end),
            _ => Err(Error::format(format!(
                "{what} at {start} with {len} bytes is outside the file of {file_len} bytes"
            ))
            .at(&self.index_location(row_group, column, offset))),
        }
    }

    pub(crate) fn read_column_index(
        &self,
        row_group: usize,
        column: usize,
    ) -> Result<Option<ColumnIndex>> {
        let chunk = self.chunk(row_group, column)?;
        let (Some(offset), Some(len)) = (chunk.column_index_offset, chunk.column_index_length)
        else {
            return Ok(None);
        };
        let bytes = self.index_bytes(offset, len, "column index", row_group, column)?;
        #[cfg(feature = "encryption")]
        let bytes = self.decrypt_index(
            bytes,
            crate::encryption::ModuleType::ColumnIndex,
            row_group,
            column,
        )?;
        metadata::decode_column_index(&bytes)
            .map(Some)
            .map_err(|e| e.at(&self.index_location(row_group, column, offset)))
    }

    pub(crate) fn read_offset_index(
        &self,
        row_group: usize,
        column: usize,
    ) -> Result<Option<OffsetIndex>> {
        let chunk = self.chunk(row_group, column)?;
        let (Some(offset), Some(len)) = (chunk.offset_index_offset, chunk.offset_index_length)
        else {
            return Ok(None);
        };
        let bytes = self.index_bytes(offset, len, "offset index", row_group, column)?;
        #[cfg(feature = "encryption")]
        let bytes = self.decrypt_index(
            bytes,
            crate::encryption::ModuleType::OffsetIndex,
            row_group,
            column,
        )?;
        metadata::decode_offset_index(&bytes)
            .map(Some)
            .map_err(|e| e.at(&self.index_location(row_group, column, offset)))
    }
}

impl<S: Source> ParquetReader<S> {
    /// The column index of leaf `column` in row group `row_group`, when the file has one.
    pub fn read_column_index(
        &self,
        row_group: usize,
        column: usize,
    ) -> Result<Option<ColumnIndex>> {
        self.decoder.read_column_index(row_group, column)
    }

    /// The offset index of leaf `column` in row group `row_group`, when the file has one.
    pub fn read_offset_index(
        &self,
        row_group: usize,
        column: usize,
    ) -> Result<Option<OffsetIndex>> {
        self.decoder.read_offset_index(row_group, column)
    }
}
