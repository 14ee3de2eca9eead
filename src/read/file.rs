//! Opening a file: footer, schema, column chunks.

use std::sync::Arc;

use bytes::Bytes;
use parq_codecs::compression::{CodecKind, Decompressor, Limits};

use super::decode::{ByteArrayLayout, ChunkDecoder};
use super::page::{DataPage, Page, PageReader};
use super::source::Source;
use crate::column::Column;
use crate::error::Location;
use crate::metadata::{self, ColumnChunk, FileMetaData};
use crate::schema::{ColumnDescriptor, SchemaDescriptor};
use crate::{Error, Result};

/// Options for reading.
#[derive(Debug, Clone)]
pub struct ReadOptions {
    /// Row groups to read (`None` = all), in the order given.
    pub row_groups: Option<Vec<usize>>,
    /// Layout of BYTE_ARRAY columns.
    pub byte_array_layout: ByteArrayLayout,
    /// Check page CRCs where the writer stored them.
    pub verify_crc: bool,
    /// Caps on decompressed page sizes.
    pub limits: Limits,
    /// Largest number of slots accepted in one page (guards allocations sized by headers).
    pub max_page_values: usize,
    /// Largest footer accepted, in bytes.
    pub max_footer_size: usize,
    /// Keys and AAD prefix of an encrypted file (feature `encryption`).
    #[cfg(feature = "encryption")]
    pub decryption: Option<crate::encryption::FileDecryptionProperties>,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            row_groups: None,
            byte_array_layout: ByteArrayLayout::Offsets,
            verify_crc: false,
            limits: Limits::default(),
            max_page_values: 1 << 27,
            max_footer_size: 256 << 20,
            #[cfg(feature = "encryption")]
            decryption: None,
        }
    }
}

/// An open Parquet file: its metadata, schema and source.
pub struct ParquetReader<S: Source = Bytes> {
    pub(crate) source: Arc<S>,
    pub(crate) metadata: Arc<FileMetaData>,
    pub(crate) schema: Arc<SchemaDescriptor>,
    pub(crate) options: ReadOptions,
    /// Decrypts the modules of an encrypted file.
    #[cfg(feature = "encryption")]
    pub(crate) decryptor: Option<Arc<crate::encryption::read::FileDecryptor>>,
}

const MAGIC: &[u8; 4] = b"PAR1";

impl<S: Source> ParquetReader<S> {
    /// Open with default options.
    ///
    /// ```
    /// # use parq::column::{Column, Values};
    /// # use parq::write::{Field, ParquetWriter, WriterOptions};
    /// # let mut file = Vec::new();
    /// # let fields = vec![Field::int64("id"), Field::string("name").optional()];
    /// # let mut w = ParquetWriter::new(&mut file, fields, WriterOptions::default())?;
    /// # let ids = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
    /// # let names = Column {
    /// #     len: 3,
    /// #     validity: Some(vec![true, false, true].into()),
    /// #     values: Values::Binary {
    /// #         offsets: arrow_buffer::OffsetBuffer::new(vec![0i64, 1, 1, 3].into()),
    /// #         data: arrow_buffer::Buffer::from(&b"abc"[..]),
    /// #     },
    /// # };
    /// # w.write_batch(&[ids, names])?;
    /// # w.finish()?;
    /// use parq::read::ParquetReader;
    ///
    /// // `file` is a Parquet file in memory (a `Vec<u8>`); `Bytes` is read without copying.
    /// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
    /// assert_eq!(reader.num_rows(), 3);
    /// assert_eq!(reader.schema().leaves.len(), 2);
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn new(source: S) -> Result<Self> {
        Self::with_options(source, ReadOptions::default())
    }

    /// Open: read and check the footer and schema.
    ///
    /// ```
    /// # use parq::column::{Column, Values};
    /// # use parq::write::{Field, ParquetWriter, WriterOptions};
    /// # let mut file = Vec::new();
    /// # let fields = vec![Field::int64("id"), Field::string("name").optional()];
    /// # let mut w = ParquetWriter::new(&mut file, fields, WriterOptions::default())?;
    /// # let ids = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
    /// # let names = Column {
    /// #     len: 3,
    /// #     validity: Some(vec![true, false, true].into()),
    /// #     values: Values::Binary {
    /// #         offsets: arrow_buffer::OffsetBuffer::new(vec![0i64, 1, 1, 3].into()),
    /// #         data: arrow_buffer::Buffer::from(&b"abc"[..]),
    /// #     },
    /// # };
    /// # w.write_batch(&[ids, names])?;
    /// # w.finish()?;
    /// use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions};
    ///
    /// let options = ReadOptions {
    ///     row_groups: Some(vec![0]),                  // only these row groups
    ///     byte_array_layout: ByteArrayLayout::Views,  // strings as views into the pages
    ///     ..ReadOptions::default()
    /// };
    /// let reader = ParquetReader::with_options(bytes::Bytes::from(file), options)?;
    /// let names = reader.read_column(1)?;
    /// assert_eq!((names.len, names.null_count()), (3, 1));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn with_options(source: S, options: ReadOptions) -> Result<Self> {
        let len = source.len();
        if len < 12 {
            return Err(Error::format(format!(
                "file of {len} bytes is too small to be parquet"
            )));
        }
        let head = source.read(0..4)?;
        #[cfg(feature = "encryption")]
        let head_ok = &head[..] == MAGIC || &head[..] == metadata::MAGIC_ENCRYPTED;
        #[cfg(not(feature = "encryption"))]
        let head_ok = &head[..] == MAGIC;
        if !head_ok {
            return Err(Error::format("missing PAR1 magic at the start of the file"));
        }
        let tail = source.read(len - 8..len)?;
        let tail: [u8; 8] = tail[..]
            .try_into()
            .map_err(|_| Error::format("short footer read"))?;
        #[cfg(feature = "encryption")]
        let (footer_len, encrypted_footer) = crate::encryption::read::parse_tail(&tail)?;
        #[cfg(not(feature = "encryption"))]
        let footer_len = metadata::parse_footer_len(&tail)?;
        if footer_len as u64 > len - 12 || footer_len > options.max_footer_size {
            return Err(Error::format(format!(
                "footer length {footer_len} does not fit in a file of {len} bytes"
            )));
        }
        let start = len - 8 - footer_len as u64;
        let footer = source.read(start..len - 8)?;
        let at_footer = |e: Error| {
            e.at(&Location {
                offset: Some(start),
                ..Location::default()
            })
        };
        #[cfg(feature = "encryption")]
        let (metadata, decryptor) = crate::encryption::read::decode_footer(
            &footer,
            encrypted_footer,
            options.decryption.as_ref(),
        )
        .map_err(at_footer)?;
        #[cfg(not(feature = "encryption"))]
        let metadata = metadata::decode_file_metadata(&footer).map_err(at_footer)?;
        let schema = SchemaDescriptor::new(&metadata.schema)?;
        for (i, rg) in metadata.row_groups.iter().enumerate() {
            if rg.columns.len() != schema.leaves.len() {
                return Err(Error::format(format!(
                    "row group {i} has {} column chunks for {} leaf columns",
                    rg.columns.len(),
                    schema.leaves.len()
                )));
            }
        }
        if let Some(rgs) = &options.row_groups {
            if let Some(bad) = rgs.iter().find(|i| **i >= metadata.row_groups.len()) {
                return Err(Error::InvalidArgument(format!(
                    "row group {bad} of {}",
                    metadata.row_groups.len()
                )));
            }
        }
        Ok(ParquetReader {
            source: Arc::new(source),
            metadata: Arc::new(metadata),
            schema: Arc::new(schema),
            options,
            #[cfg(feature = "encryption")]
            decryptor,
        })
    }

    /// The decoded footer.
    pub fn metadata(&self) -> &FileMetaData {
        &self.metadata
    }

    /// The resolved schema.
    pub fn schema(&self) -> &SchemaDescriptor {
        &self.schema
    }

    /// The options this reader was opened with.
    pub fn options(&self) -> &ReadOptions {
        &self.options
    }

    /// The row groups selected by the options.
    pub fn selected_row_groups(&self) -> Vec<usize> {
        self.options
            .row_groups
            .clone()
            .unwrap_or_else(|| (0..self.metadata.row_groups.len()).collect())
    }

    /// Rows in the selected row groups.
    pub fn num_rows(&self) -> u64 {
        self.selected_row_groups()
            .iter()
            .map(|i| self.metadata.row_groups[*i].num_rows.max(0) as u64)
            .sum()
    }

    /// Index of the leaf column with dotted path `path`.
    pub fn column_index(&self, path: &str) -> Result<usize> {
        self.schema
            .find(path)
            .ok_or_else(|| Error::InvalidArgument(format!("no column {path:?}")))
    }

    /// Read one leaf column over the selected row groups, as one column.
    ///
    /// ```
    /// # use parq::column::{Column, Values};
    /// # use parq::write::{Field, ParquetWriter, WriterOptions};
    /// # let mut file = Vec::new();
    /// # let fields = vec![Field::int64("id"), Field::string("name").optional()];
    /// # let mut w = ParquetWriter::new(&mut file, fields, WriterOptions::default())?;
    /// # let ids = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
    /// # let names = Column {
    /// #     len: 3,
    /// #     validity: Some(vec![true, false, true].into()),
    /// #     values: Values::Binary {
    /// #         offsets: arrow_buffer::OffsetBuffer::new(vec![0i64, 1, 1, 3].into()),
    /// #         data: arrow_buffer::Buffer::from(&b"abc"[..]),
    /// #     },
    /// # };
    /// # w.write_batch(&[ids, names])?;
    /// # w.finish()?;
    /// use parq::read::ParquetReader;
    ///
    /// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
    /// let id = reader.column_index("id")?; // an index into `schema().leaves`
    /// let ids = reader.read_column(id)?;
    /// let Values::Int64(v) = &ids.values else { unreachable!() };
    /// assert_eq!(&v[..], &[1, 2, 3]);
    /// let names = reader.read_column(1)?;
    /// assert_eq!(names.bytes(0), Some(&b"a"[..]));
    /// assert!(!names.is_valid(1));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn read_column(&self, column: usize) -> Result<Column> {
        let mut reader = self.column_reader(column)?;
        let mut decoder = reader.new_decoder()?;
        // The slot count comes from the footer, so it is only a hint: cap what it may reserve
        // by the file itself (8 slots per byte is what bit-packed levels hold; denser
        // encodings just grow the buffer) and by a fixed ceiling.
        const MAX_RESERVE: u64 = 1 << 26;
        let by_file = self.source.len().saturating_mul(8);
        decoder.reserve(self.num_rows().min(by_file).min(MAX_RESERVE) as usize);
        while reader.next_page_into(&mut decoder, None)? {}
        Ok(decoder.finish())
    }

    /// Read one leaf column by dotted path.
    pub fn read_column_by_path(&self, path: &str) -> Result<Column> {
        self.read_column(self.column_index(path)?)
    }

    /// Read several leaf columns by dotted path, in the order given.
    pub fn read_columns(&self, paths: &[&str]) -> Result<Vec<Column>> {
        paths.iter().map(|p| self.read_column_by_path(p)).collect()
    }

    /// A reader of a flat leaf column (not repeated, at most one optional level): the levels
    /// of its pages are a validity bitmap. Nested leaves are read by [`Self::read_field`].
    pub(crate) fn column_reader(&self, column: usize) -> Result<ColumnReader<S>> {
        let reader = self.leaf_reader(column)?;
        let desc = &reader.desc;
        if desc.max_rep_level > 0 || desc.max_def_level > 1 {
            return Err(Error::InvalidArgument(format!(
                "column {} is nested (max repetition level {}, max definition level {}): \
                 read its field with read_field or array_batches",
                desc.path_string(),
                desc.max_rep_level,
                desc.max_def_level
            )));
        }
        Ok(reader)
    }

    /// A reader of the pages of any leaf column.
    pub(crate) fn leaf_reader(&self, column: usize) -> Result<ColumnReader<S>> {
        let desc = self.schema.leaves.get(column).ok_or_else(|| {
            Error::InvalidArgument(format!("column {column} of {}", self.schema.leaves.len()))
        })?;
        Ok(ColumnReader {
            file: self.clone_handle(),
            column,
            desc: desc.clone(),
            row_groups: self.selected_row_groups(),
            next_rg: 0,
            pages: None,
            decompressor: Decompressor::new(self.options.limits),
            chunk_started: false,
        })
    }

    fn clone_handle(&self) -> ParquetReader<S> {
        ParquetReader {
            source: Arc::clone(&self.source),
            metadata: Arc::clone(&self.metadata),
            schema: Arc::clone(&self.schema),
            options: self.options.clone(),
            #[cfg(feature = "encryption")]
            decryptor: self.decryptor.clone(),
        }
    }

    /// Byte range of a column chunk, checked against the file.
    fn chunk_range(&self, chunk: &ColumnChunk, loc: &Location) -> Result<(u64, u64)> {
        let meta = chunk
            .meta_data
            .as_ref()
            .ok_or_else(|| Error::format("column chunk without metadata").at(loc))?;
        let data = meta.data_page_offset;
        // Some writers store dictionary_page_offset = 0 for "none"; trust it only when it
        // points before the first data page.
        let start = match meta.dictionary_page_offset {
            Some(d) if d > 0 && d < data => d,
            _ => data,
        };
        let len = meta.total_compressed_size;
        let file_len = self.source.len();
        if start < 4 || len < 0 || (start as u64) >= file_len {
            return Err(Error::format(format!(
                "column chunk at {start} with {len} bytes is outside the file"
            ))
            .at(loc));
        }
        // Old parquet-mr (PARQUET-816) left the dictionary page header out of
        // total_compressed_size. Like parquet-cpp, allow up to 100 bytes past the declared end;
        // the page reader stops at the chunk's value count, so the slack is never decoded
        // unless the chunk needs it.
        const DICT_HEADER_SLACK: u64 = 100;
        let end = (start as u64)
            .saturating_add(len as u64)
            .saturating_add(DICT_HEADER_SLACK)
            .min(file_len - 8);
        Ok((start as u64, end))
    }
}

/// Reads the pages of one leaf column across the selected row groups.
pub(crate) struct ColumnReader<S: Source> {
    file: ParquetReader<S>,
    column: usize,
    pub(crate) desc: ColumnDescriptor,
    row_groups: Vec<usize>,
    next_rg: usize,
    pages: Option<PageReader>,
    decompressor: Decompressor,
    /// Set when a column chunk is opened: its first page must start a record.
    pub(crate) chunk_started: bool,
}

impl<S: Source> ColumnReader<S> {
    pub(crate) fn new_decoder(&self) -> Result<ChunkDecoder> {
        ChunkDecoder::new(
            self.desc.physical_type,
            self.desc.type_length,
            self.file.options.byte_array_layout,
        )
    }

    fn open_next_chunk(&mut self, decoder: &mut ChunkDecoder) -> Result<bool> {
        let Some(&rg) = self.row_groups.get(self.next_rg) else {
            return Ok(false);
        };
        self.next_rg += 1;
        let loc = Location {
            column: Some(self.desc.path_string()),
            row_group: Some(rg),
            ..Location::default()
        };
        let chunk = &self.file.metadata.row_groups[rg].columns[self.column];
        if chunk.file_path.is_some() {
            return Err(Error::Unsupported(
                "column chunk in an external file".into(),
            ));
        }
        #[cfg(feature = "encryption")]
        let crypt = match &self.file.decryptor {
            Some(d) => d.chunk(
                rg,
                self.column,
                &self.desc.path_string(),
                chunk.meta_data.as_ref(),
            )?,
            None => None,
        };
        let meta = chunk
            .meta_data
            .as_ref()
            .ok_or_else(|| Error::format("column chunk without metadata").at(&loc))?;
        let codec = CodecKind::from_thrift(meta.codec.0)
            .ok_or_else(|| Error::Unsupported(format!("compression codec {:?}", meta.codec)))?;
        if meta.num_values == 0 {
            // An empty chunk: nothing to read, whatever its offsets say.
            return Ok(true);
        }
        let (start, end) = self.file.chunk_range(chunk, &loc)?;
        let bytes = self.file.source.read(start..end)?;
        decoder.clear_dictionary();
        self.pages = Some(PageReader::new(
            bytes,
            start,
            codec,
            meta.num_values,
            (self.desc.max_rep_level, self.desc.max_def_level),
            self.file.options.verify_crc,
            loc,
        ));
        #[cfg(feature = "encryption")]
        if let Some(pages) = &mut self.pages {
            pages.decryptor = crypt;
        }
        self.chunk_started = true;
        Ok(true)
    }

    /// Decode the next data page into `decoder` (at most `limit` slots of it, when given and
    /// the page can be split). Returns false when the column is done.
    pub(crate) fn next_page_into(
        &mut self,
        decoder: &mut ChunkDecoder,
        limit: Option<usize>,
    ) -> Result<bool> {
        match self.next_data_page(decoder)? {
            Some((page, loc)) => {
                decoder.decode_page(page, loc, limit)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The next data page, with dictionary pages on the way handed to `decoder`; `None`
    /// when the column is done.
    pub(crate) fn next_data_page(
        &mut self,
        decoder: &mut ChunkDecoder,
    ) -> Result<Option<(DataPage, Location)>> {
        loop {
            if self.pages.is_none() && !self.open_next_chunk(decoder)? {
                return Ok(None);
            }
            let Some(pages) = self.pages.as_mut() else {
                continue;
            };
            match pages.next_page(&mut self.decompressor)? {
                None => self.pages = None,
                Some(Page::Dictionary { values, num_values }) => {
                    let loc = pages.last_location();
                    decoder
                        .set_dictionary(values, num_values)
                        .map_err(|e| e.at(&loc))?;
                }
                Some(Page::Data(page)) => {
                    let loc = pages.last_location();
                    if page.num_values > self.file.options.max_page_values {
                        return Err(Error::format(format!(
                            "page of {} values exceeds the limit of {}",
                            page.num_values, self.file.options.max_page_values
                        ))
                        .at(&loc));
                    }
                    return Ok(Some((page, loc)));
                }
            }
        }
    }
}
