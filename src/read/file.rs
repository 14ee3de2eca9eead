//! Opening a file: footer, schema, column chunks.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use parq_codecs::compression::{CodecKind, Decompressor, Limits};
use parq_codecs::probe;

use super::decode::{is_dictionary, ByteArrayLayout, ChunkDecoder};
use super::page::{DataPage, DictionaryPage, Page, PageReader};
use super::selection::RowSelection;
use super::source::Source;
use crate::column::Column;
use crate::error::Location;
use crate::metadata::{self, ColumnChunk, FileMetaData};
use crate::schema::{ColumnDescriptor, SchemaDescriptor};
use crate::{Error, Result};

/// The shares of [`ReadOptions::max_memory`] its bounds take, as divisors (the error
/// messages say them in words: [`crate::Limit::share`]).
const PAGE_SIZE_SHARE: u64 = 4;
const PAGE_VALUES_SHARE: u64 = 32;
const PLAN_AHEAD_SHARE: u64 = 32;

/// Options for reading.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Row groups to read (`None` = all), in the order given.
    pub row_groups: Option<Vec<usize>>,
    /// Layout of BYTE_ARRAY columns.
    pub byte_array_layout: ByteArrayLayout,
    /// Check page CRCs where the writer stored them.
    pub verify_crc: bool,
    /// Largest footer accepted, in bytes.
    pub max_footer_size: usize,
    /// The memory budget of a read, in bytes (default
    /// [`DEFAULT_MAX_MEMORY`](super::DEFAULT_MAX_MEMORY), 4 GiB), the one setting every
    /// bound on the read's memory derives from:
    ///
    /// - the decoded footer, and each column's decoded output between two hand-outs (a
    ///   whole-column read, one batch), at most the whole budget;
    /// - a page's declared uncompressed size, at most a quarter of it
    ///   ([`max_page_size`](Self::max_page_size), 1 GiB by default);
    /// - a page's or dictionary's declared values, at most a 32nd of it
    ///   ([`max_page_values`](Self::max_page_values), 2^27 by default);
    /// - the bytes a [`PushDecoder`](crate::read::push::PushDecoder) plans ahead of the row
    ///   group it decodes (and so an object-store reader's GETs in flight), at most a 32nd
    ///   of it ([`plan_ahead_bytes`](Self::plan_ahead_bytes), 128 MiB by default).
    ///
    /// A file's counts can ask for far more than its bytes hold (2^27 null slots in a
    /// 128-byte page); past the budget the read fails with [`Error::Memory`] (or
    /// [`Error::TooManyValues`], or a page-size error) instead, and so it does when the
    /// system refuses a large reservation. Raise it for files that really hold that much:
    /// parquet-testing's `large_string_map.brotli.parquet` holds a page of 1 GiB + 4 bytes,
    /// which reads with a budget of 8 GiB.
    pub max_memory: u64,
    /// Rows to read, as file row numbers (`None` = all rows). Every read honours it: the
    /// output holds exactly the selected rows of the selected row groups, in order. A row
    /// group without a selected row is not read at all; a page without one is not
    /// decompressed (nor read, when the offset index locates the pages).
    pub selection: Option<RowSelection>,
    /// Threads that decode (1, the default, decodes on the calling thread and spawns none).
    /// Work is split across row groups, columns and page ranges of large column chunks; see
    /// [`ParquetReader::read_leaves`]. A read of flat columns with a
    /// [`selection`](Self::selection) runs on the calling thread.
    ///
    /// Streamed batches with a nested field ([`ParquetReader::array_batches`], and
    /// `record_batches` with the `arrow` feature, locally or from an object store, and
    /// a [`PushDecoder`](crate::read::push::PushDecoder)'s) split by row group instead: the
    /// calling thread streams one row group while the next `threads - 1` decode on threads
    /// of their own, each whole, and wait their turn. The batches are the same, in the same
    /// order; the memory is up to `threads` row groups of decoded batches and their bytes.
    pub threads: usize,
    /// Leaf columns (indices into [`crate::schema::SchemaDescriptor::leaves`]) whose
    /// dictionary-encoded pages are read as they are stored: as
    /// [`Values::Dictionary`](crate::column::Values::Dictionary), keys into the column chunk's
    /// dictionary, which is decoded once and shared by every batch of the chunk. Pages that
    /// are not dictionary-encoded (a chunk without a dictionary page, or one whose writer
    /// fell back to PLAIN) read as values, and a batch that holds both reads as values.
    /// Honoured by streamed batches of flat columns ([`ParquetReader::batches`], the flat
    /// fields of [`ParquetReader::array_batches`]), on any number of threads; other reads
    /// give values.
    /// The Arrow reader sets it for columns whose Arrow type is a `Dictionary`.
    pub dictionary_keys: Vec<usize>,
    /// Leaf columns (indices into [`crate::schema::SchemaDescriptor::leaves`]) whose byte
    /// arrays must each be UTF-8: checked as pages are decoded, where their bytes are still
    /// in cache (once per dictionary page, once per decoded part of other pages), and a page
    /// holding a value that is not UTF-8 fails the read with [`Error::Format`]. Honoured with
    /// [`ByteArrayLayout::Offsets`] by streamed batches (on any number of threads) and by
    /// whole-column reads on one thread; other reads do not check. The Arrow reader sets it
    /// for `Utf8`, `LargeUtf8` and `Utf8View` columns, flat or nested, and then skips its own
    /// pass.
    pub utf8_columns: Vec<usize>,
    /// Check, as [`utf8_columns`](Self::utf8_columns) checks its columns, every leaf whose
    /// annotation makes its values text ([`ColumnDescriptor::is_string`]: STRING, ENUM and
    /// JSON, or the converted UTF8, ENUM and JSON): a value that is not UTF-8 fails the read
    /// with an error naming the column, the row group and, for flat columns, the row in the
    /// row group ([`Error::is_invalid_utf8`]). Off by default: a column comes out as the
    /// bytes stored, never changed, and is only text once the caller makes it so; the
    /// Arrow reader checks its string types whatever this says, and `parq cat` sets it.
    /// Binary columns (no such annotation) are never checked. Values a selection leaves
    /// out are not decoded, so not checked, nor are a filter's rejected rows in the
    /// columns it does not test; the columns it tests are decoded to test them, and
    /// checked (as DuckDB does).
    pub check_strings: bool,
    /// Leaf columns (indices into [`crate::schema::SchemaDescriptor::leaves`]) whose byte
    /// arrays come with i32 offsets, as
    /// [`Values::SmallBinary`](crate::column::Values::SmallBinary) (Arrow's `Utf8` and
    /// `Binary` layout), instead of [`Values::Binary`](crate::column::Values::Binary): the
    /// decoder writes i32 offsets as it decodes, and a run that grows past `i32::MAX` bytes
    /// turns to i64 ones (the part that passes is decoded again). Honoured by streamed
    /// batches with [`ByteArrayLayout::Offsets`]: of flat columns ([`ParquetReader::batches`],
    /// the flat fields of [`ParquetReader::array_batches`]) and of the leaves of nested fields
    /// (`array_batches`), on any number of threads; whole-column reads give
    /// `Values::Binary`. The Arrow reader sets it for `Utf8` and `Binary` columns, flat or
    /// inside lists, structs and maps, and wraps the offsets as they are.
    pub small_offsets: Vec<usize>,
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
            max_footer_size: 256 << 20,
            max_memory: super::DEFAULT_MAX_MEMORY,
            selection: None,
            threads: 1,
            dictionary_keys: Vec::new(),
            utf8_columns: Vec::new(),
            check_strings: false,
            small_offsets: Vec::new(),
            #[cfg(feature = "encryption")]
            decryption: None,
        }
    }
}

impl ReadOptions {
    /// These options with [`row_groups`](Self::row_groups) set to `v`.
    pub fn with_row_groups(mut self, v: Option<Vec<usize>>) -> Self {
        self.row_groups = v;
        self
    }

    /// These options with [`byte_array_layout`](Self::byte_array_layout) set to `v`.
    pub fn with_byte_array_layout(mut self, v: ByteArrayLayout) -> Self {
        self.byte_array_layout = v;
        self
    }

    /// These options with [`verify_crc`](Self::verify_crc) set to `v`.
    pub fn with_verify_crc(mut self, v: bool) -> Self {
        self.verify_crc = v;
        self
    }

    /// These options with [`max_footer_size`](Self::max_footer_size) set to `v`.
    pub fn with_max_footer_size(mut self, v: usize) -> Self {
        self.max_footer_size = v;
        self
    }

    /// These options with [`max_memory`](Self::max_memory) set to `v`.
    pub fn with_max_memory(mut self, v: u64) -> Self {
        self.max_memory = v;
        self
    }

    /// The largest declared uncompressed page accepted: a quarter of
    /// [`max_memory`](Self::max_memory), so that a page, its decoded values and the batch
    /// they go to fit the budget together.
    pub fn max_page_size(&self) -> usize {
        usize::try_from(self.max_memory / PAGE_SIZE_SHARE).unwrap_or(usize::MAX)
    }

    /// The most values (slots, nulls included) accepted in one page or dictionary: a 32nd
    /// of [`max_memory`](Self::max_memory). Checked against the header before anything is
    /// allocated for the page; a slot costs up to 16 bytes of output (a view) and its
    /// levels, so the cap keeps a forged count within the budget.
    pub fn max_page_values(&self) -> usize {
        usize::try_from(self.max_memory / PAGE_VALUES_SHARE).unwrap_or(usize::MAX)
    }

    /// [`Error::TooManyValues`] when a `what` (`"page"`, `"dictionary"`) declares more
    /// than [`max_page_values`](Self::max_page_values).
    pub(crate) fn check_page_values(&self, what: &'static str, values: usize) -> Result<()> {
        let limit = self.max_page_values();
        if values > limit {
            return Err(Error::too_many_values(what, values, limit));
        }
        Ok(())
    }

    /// The bytes a [`PushDecoder`](crate::read::push::PushDecoder) plans ahead of the row
    /// group it decodes, at most: a 32nd of [`max_memory`](Self::max_memory). The row group
    /// being decoded is always planned, whatever its size.
    pub fn plan_ahead_bytes(&self) -> u64 {
        self.max_memory / PLAN_AHEAD_SHARE
    }

    /// The decompression limits of this budget.
    pub(crate) fn limits(&self) -> Limits {
        Limits::default().with_max_uncompressed_size(self.max_page_size())
    }

    /// These options with [`selection`](Self::selection) set to `v`.
    pub fn with_selection(mut self, v: Option<RowSelection>) -> Self {
        self.selection = v;
        self
    }

    /// These options with [`threads`](Self::threads) set to `v`.
    pub fn with_threads(mut self, v: usize) -> Self {
        self.threads = v;
        self
    }

    /// These options with [`dictionary_keys`](Self::dictionary_keys) set to `v`.
    pub fn with_dictionary_keys(mut self, v: Vec<usize>) -> Self {
        self.dictionary_keys = v;
        self
    }

    /// These options with [`utf8_columns`](Self::utf8_columns) set to `v`.
    pub fn with_utf8_columns(mut self, v: Vec<usize>) -> Self {
        self.utf8_columns = v;
        self
    }

    /// These options with [`check_strings`](Self::check_strings) set to `v`.
    pub fn with_check_strings(mut self, v: bool) -> Self {
        self.check_strings = v;
        self
    }

    /// These options with [`small_offsets`](Self::small_offsets) set to `v`.
    pub fn with_small_offsets(mut self, v: Vec<usize>) -> Self {
        self.small_offsets = v;
        self
    }

    /// These options with [`decryption`](Self::decryption) set to `v`.
    #[cfg(feature = "encryption")]
    pub fn with_decryption(
        mut self,
        v: Option<crate::encryption::FileDecryptionProperties>,
    ) -> Self {
        self.decryption = v;
        self
    }
}

/// An open Parquet file: its metadata, schema and source.
///
/// A driver of the [push decoder](super::push::PushDecoder): every streamed and whole-column
/// read plans its bytes there, and this reader only feeds them from its source.
pub struct ParquetReader<S: Source = Bytes> {
    pub(crate) decoder: FileDecoder<S>,
}

/// A file's decoded footer, read options and bytes: the row-group decoding (column chunks,
/// pages, pruning by statistics and indexes) that the push decoder runs over the bytes pushed
/// to it, and that [`ParquetReader`] wraps for its own source.
pub(crate) struct FileDecoder<S: Source> {
    pub(crate) source: Arc<S>,
    pub(crate) metadata: Arc<FileMetaData>,
    /// See [`Footer::first_rows`](super::push::Footer).
    pub(crate) first_rows: Arc<[u64]>,
    pub(crate) schema: Arc<SchemaDescriptor>,
    pub(crate) options: ReadOptions,
    /// Decrypts the modules of an encrypted file.
    #[cfg(feature = "encryption")]
    pub(crate) decryptor: Option<Arc<crate::encryption::read::FileDecryptor>>,
}

impl<S: Source> FileDecoder<S> {
    /// The footer this reader reads by, for a push decoder of the same file.
    pub(crate) fn footer(&self) -> super::push::Footer {
        super::push::Footer {
            metadata: Arc::clone(&self.metadata),
            first_rows: Arc::clone(&self.first_rows),
            schema: Arc::clone(&self.schema),
            file_len: self.source.len(),
            #[cfg(feature = "encryption")]
            decryptor: self.decryptor.clone(),
        }
    }

    /// A reader of a flat leaf column (not repeated, at most one optional level): the levels
    /// of its pages are a validity bitmap. Nested leaves are read by [`ParquetReader::read_field`].
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

    /// Whether [`Self::column_reader`] reads `column` (a leaf, flat, of an annotation that
    /// fits its type), found without making the reader.
    pub(crate) fn is_flat_leaf(&self, column: usize) -> bool {
        self.schema.leaves.get(column).is_some_and(|d| {
            d.max_rep_level == 0 && d.max_def_level <= 1 && d.check_annotation().is_ok()
        })
    }

    /// A reader of the pages of any leaf column.
    pub(crate) fn leaf_reader(&self, column: usize) -> Result<ColumnReader<S>> {
        let desc = self.schema.leaves.get(column).ok_or_else(|| {
            Error::InvalidArgument(format!("column {column} of {}", self.schema.leaves.len()))
        })?;
        // Read only as what its annotation says it is (the footer and schema stay readable).
        desc.check_annotation()?;
        // Row groups without a selected row are never opened; the others keep their first
        // file row, to cut the selection to them.
        let first = self.row_group_first_rows();
        let row_groups = self
            .selected_row_groups()
            .into_iter()
            .map(|rg| {
                let n = self.metadata.row_groups[rg].num_rows.max(0) as u64;
                (rg, first[rg]..first[rg] + n)
            })
            .filter(|(_, rows)| {
                self.options
                    .selection
                    .as_ref()
                    .is_none_or(|s| s.intersects(rows.clone()))
            })
            .collect();
        Ok(ColumnReader {
            file: self.clone_handle(),
            column,
            desc: desc.clone(),
            row_groups,
            next_rg: 0,
            pages: None,
            segments: VecDeque::new(),
            decompressor: Decompressor::new(self.options.limits()),
            dictionary: None,
            chunk_started: false,
            chunk_selection: None,
            next_row: None,
            page_first_row: None,
            indexed_first_rows: None,
            chunk_rows: 0,
        })
    }

    pub(crate) fn clone_handle(&self) -> FileDecoder<S> {
        FileDecoder {
            source: Arc::clone(&self.source),
            metadata: Arc::clone(&self.metadata),
            first_rows: Arc::clone(&self.first_rows),
            schema: Arc::clone(&self.schema),
            options: self.options.clone(),
            #[cfg(feature = "encryption")]
            decryptor: self.decryptor.clone(),
        }
    }

    /// Byte range of a column chunk, checked against the file.
    pub(crate) fn chunk_range(&self, chunk: &ColumnChunk, loc: &Location) -> Result<(u64, u64)> {
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

    /// `decoder` of leaf `column` with this read's budget, and checking UTF-8 when
    /// [`ReadOptions::utf8_columns`] names the column.
    fn checked(&self, column: usize, decoder: ChunkDecoder) -> ChunkDecoder {
        let decoder = decoder.with_budget(self.options.max_memory);
        let string = || self.options.check_strings && self.schema.leaves[column].is_string();
        if self.options.utf8_columns.contains(&column) || string() {
            decoder.with_utf8_check()
        } else {
            decoder
        }
    }

    /// A decoder of streamed batches of flat leaf `column` (`desc`), on the calling thread
    /// or for a piece of the parallel feed: dictionary-encoded pages read as keys when
    /// [`ReadOptions::dictionary_keys`] names the column, UTF-8 checked when
    /// [`ReadOptions::utf8_columns`] does, and byte arrays with i32 offsets when
    /// [`ReadOptions::small_offsets`] does.
    pub(crate) fn batch_decoder(
        &self,
        column: usize,
        desc: &ColumnDescriptor,
    ) -> Result<ChunkDecoder> {
        let (physical, width, layout) = (
            desc.physical_type,
            desc.type_length,
            self.options.byte_array_layout,
        );
        let decoder = if self.options.dictionary_keys.contains(&column) {
            ChunkDecoder::dictionary_keys(physical, width, layout)?
        } else {
            ChunkDecoder::new(physical, width, layout)?
        };
        Ok(self.with_small_offsets(column, self.checked(column, decoder)))
    }

    /// `decoder` handing out i32 offsets when [`ReadOptions::small_offsets`] names leaf
    /// `column` (batched reads only: flat columns and the leaves of nested fields).
    fn with_small_offsets(&self, column: usize, decoder: ChunkDecoder) -> ChunkDecoder {
        if self.options.small_offsets.contains(&column) {
            decoder.with_small_offsets()
        } else {
            decoder
        }
    }

    pub(crate) fn selected_row_groups(&self) -> Vec<usize> {
        self.options
            .row_groups
            .clone()
            .unwrap_or_else(|| (0..self.metadata.row_groups.len()).collect())
    }

    pub(crate) fn num_rows(&self) -> u64 {
        self.selected_row_groups()
            .iter()
            .map(|i| self.metadata.row_groups[*i].num_rows.max(0) as u64)
            .sum()
    }

    pub(crate) fn row_group_first_rows(&self) -> &[u64] {
        &self.first_rows
    }

    pub(crate) fn selected_rows(&self) -> u64 {
        let Some(sel) = &self.options.selection else {
            return self.num_rows();
        };
        let first = self.row_group_first_rows();
        self.selected_row_groups()
            .iter()
            .map(|&i| {
                let n = self.metadata.row_groups[i].num_rows.max(0) as u64;
                sel.slice(first[i]..first[i] + n).row_count()
            })
            .sum()
    }
}

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
    /// let options = ReadOptions::default()
    ///     .with_row_groups(Some(vec![0])) // only these row groups
    ///     .with_byte_array_layout(ByteArrayLayout::Views); // strings as views into the pages
    /// let reader = ParquetReader::with_options(bytes::Bytes::from(file), options)?;
    /// let names = reader.read_column(1)?;
    /// assert_eq!((names.len, names.null_count()), (3, 1));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn with_options(source: S, options: ReadOptions) -> Result<Self> {
        // The footer decodes push-style, as for remote files: one suffix read (the whole
        // file when it is under 64 KiB), a second only for a larger footer.
        let footer = super::push::footer::read_footer(
            &source,
            super::push::FooterOptions {
                max_footer_size: options.max_footer_size,
                max_memory: options.max_memory,
                verify_head: true,
                #[cfg(feature = "encryption")]
                decryption: options.decryption.clone(),
                ..super::push::FooterOptions::default()
            },
        )?;
        Self::from_footer(source, footer, options)
    }

    /// Open over an already decoded footer (read once, shared by several readers).
    pub fn from_footer(
        source: S,
        footer: super::push::Footer,
        options: ReadOptions,
    ) -> Result<Self> {
        if footer.file_len != source.len() {
            return Err(Error::InvalidArgument(format!(
                "the footer is of a file of {} bytes, the source has {}",
                footer.file_len,
                source.len()
            )));
        }
        let metadata = footer.metadata;
        let first_rows = footer.first_rows;
        let schema = footer.schema;
        #[cfg(feature = "encryption")]
        let decryptor = footer.decryptor;
        if let Some(rgs) = &options.row_groups {
            if let Some(bad) = rgs.iter().find(|i| **i >= metadata.row_groups.len()) {
                return Err(Error::InvalidArgument(format!(
                    "row group {bad} of {}",
                    metadata.row_groups.len()
                )));
            }
        }
        Ok(ParquetReader {
            decoder: FileDecoder {
                source: Arc::new(source),
                metadata,
                first_rows,
                schema,
                options,
                #[cfg(feature = "encryption")]
                decryptor,
            },
        })
    }

    /// The decoded footer.
    pub fn metadata(&self) -> &FileMetaData {
        &self.decoder.metadata
    }

    /// The resolved schema.
    pub fn schema(&self) -> &SchemaDescriptor {
        &self.decoder.schema
    }

    /// The options this reader was opened with.
    pub fn options(&self) -> &ReadOptions {
        &self.decoder.options
    }

    /// The row groups selected by the options.
    pub fn selected_row_groups(&self) -> Vec<usize> {
        self.decoder.selected_row_groups()
    }

    /// Rows in the selected row groups.
    pub fn num_rows(&self) -> u64 {
        self.decoder.num_rows()
    }

    /// The first file row number of each row group (row group `k` starts at the sum of the
    /// `num_rows` of the row groups before it), for building a [`RowSelection`].
    pub fn row_group_first_rows(&self) -> Vec<u64> {
        self.decoder.row_group_first_rows().to_vec()
    }

    /// Rows the options select: those of the selected row groups, and of the selection when
    /// there is one.
    pub fn selected_rows(&self) -> u64 {
        self.decoder.selected_rows()
    }

    /// Index of the leaf column with dotted path `path`.
    pub fn column_index(&self, path: &str) -> Result<usize> {
        self.decoder.schema.lookup(path)
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
        self.read_leaves(&[column]).map(|mut c| c.remove(0))
    }

    /// Read one leaf column by dotted path.
    pub fn read_column_by_path(&self, path: &str) -> Result<Column> {
        self.read_column(self.column_index(path)?)
    }

    /// Read several leaf columns by dotted path, in the order given.
    pub fn read_columns(&self, paths: &[&str]) -> Result<Vec<Column>> {
        paths.iter().map(|p| self.read_column_by_path(p)).collect()
    }
}

/// Reads the pages of one leaf column across the selected row groups.
pub(crate) struct ColumnReader<S: Source> {
    file: FileDecoder<S>,
    pub(crate) column: usize,
    pub(crate) desc: ColumnDescriptor,
    /// Row groups to read, each with its file rows.
    row_groups: Vec<(usize, Range<u64>)>,
    next_rg: usize,
    pages: Option<PageReader>,
    /// Runs of pages of the open chunk still to read, found through its offset index.
    segments: VecDeque<Segment>,
    decompressor: Decompressor,
    /// The open chunk's dictionary page, until its first dictionary-encoded data page needs
    /// it (a chunk whose selected pages are all plain never decodes its dictionary).
    dictionary: Option<DictionaryPage>,
    /// Set when a column chunk is opened: its first page must start a record.
    pub(crate) chunk_started: bool,
    /// The selection inside the open chunk, in rows of its row group; `None` when every row
    /// of the chunk is selected.
    chunk_selection: Option<RowSelection>,
    /// Row (in the row group) of the next data page, while page headers tell it.
    next_row: Option<u64>,
    /// Row (in the row group) of the data page most recently returned, when known: always
    /// for flat columns, for v2 pages and through the offset index.
    page_first_row: Option<u64>,
    /// Through the offset index: the first rows of the data pages still to come.
    indexed_first_rows: Option<VecDeque<u64>>,
    /// Rows of the open chunk's row group, as the footer declares them.
    chunk_rows: u64,
}

/// A flat column's chunk holds one value (slot) per row: its `num_values` must be the row
/// group's `num_rows`, or pages would deliver rows the footer does not declare (or miss some).
pub(crate) fn check_chunk_values(
    desc: &ColumnDescriptor,
    num_values: i64,
    num_rows: u64,
    loc: &Location,
) -> Result<()> {
    if desc.max_rep_level == 0 && u64::try_from(num_values).ok() != Some(num_rows) {
        return Err(Error::format(format!(
            "column chunk holds {num_values} values for the {num_rows} rows of its row group"
        ))
        .at(loc));
    }
    Ok(())
}

/// Whole pages of a chunk, located by its offset index.
struct Segment {
    bytes: Range<u64>,
    /// Index of its first page in the chunk (for error locations and module ordinals).
    first_page: usize,
    codec: CodecKind,
    loc: Location,
    /// The chunk's decryptor, when it is encrypted.
    #[cfg(feature = "encryption")]
    decryptor: Option<crate::encryption::read::ChunkDecryptor>,
}

/// The pages of a chunk to read under a selection, found through its offset index.
pub(super) struct SegmentPlan {
    /// Runs of whole pages: their file bytes and the index in the chunk of the first.
    pub runs: Vec<(Range<u64>, usize)>,
    /// The first row (in the row group) of each data page read.
    pub first_rows: VecDeque<u64>,
    /// Data pages left out. The caller that reads counts them (probe
    /// `read.pages_skipped_by_offset_index`), not the planner: a push read plans each chunk
    /// once to fetch it and once more to read it.
    pub skipped: usize,
}

/// The runs of pages of a chunk (file bytes `chunk`, `num_rows` rows) to read for the rows
/// `sel` of its row group, from its offset index: the dictionary page (whatever precedes the
/// first data page) and the data pages with a selected row, adjacent ones read together.
/// `None` when every page has a selected row. The runs have no codec or location yet.
pub(super) fn plan_segments(
    index: &metadata::OffsetIndex,
    sel: &RowSelection,
    chunk: Range<u64>,
    num_rows: u64,
) -> Result<Option<SegmentPlan>> {
    let locs = &index.page_locations;
    let bad = |what: String| Error::format(format!("offset index: {what}"));
    if locs.is_empty() {
        return Err(bad("no pages".into()));
    }
    // Each page's bytes and rows, checked: inside the chunk, in order, rows from 0 up.
    let mut pages = Vec::with_capacity(locs.len());
    let mut prev_end = chunk.start;
    for (i, l) in locs.iter().enumerate() {
        let (Ok(offset), Ok(size)) = (
            u64::try_from(l.offset),
            u64::try_from(l.compressed_page_size),
        ) else {
            return Err(bad(format!(
                "page {i} at {} with {} bytes",
                l.offset, l.compressed_page_size
            )));
        };
        let end = offset.saturating_add(size);
        if offset < prev_end || end > chunk.end || size == 0 {
            return Err(bad(format!(
                "page {i} at {offset} with {size} bytes is outside its chunk or out of order"
            )));
        }
        prev_end = end;
        let first = u64::try_from(l.first_row_index).unwrap_or(u64::MAX);
        let last = match locs.get(i + 1) {
            Some(n) => u64::try_from(n.first_row_index).unwrap_or(u64::MAX),
            None => num_rows,
        };
        if (i == 0 && first != 0) || first > last || last > num_rows {
            return Err(bad(format!(
                "page {i} starts at row {first} (next at {last}) of {num_rows}"
            )));
        }
        pages.push((offset..end, first..last));
    }
    let keep: Vec<bool> = pages
        .iter()
        .map(|(_, rows)| sel.intersects(rows.clone()))
        .collect();
    let skipped = keep.iter().filter(|k| !**k).count();
    if skipped == 0 {
        return Ok(None);
    }
    let mut runs = Vec::new();
    let first_data = pages[0].0.start;
    let dictionary = chunk.start < first_data;
    if dictionary {
        runs.push((chunk.start..first_data, 0));
    }
    let mut first_rows = VecDeque::new();
    let mut last_kept: Option<usize> = None;
    for (i, ((bytes, rows), k)) in pages.iter().zip(&keep).enumerate() {
        if !*k {
            continue;
        }
        first_rows.push_back(rows.start);
        match runs.last_mut() {
            Some(run) if last_kept == Some(i.wrapping_sub(1)) => run.0.end = bytes.end,
            _ => runs.push((bytes.clone(), i + dictionary as usize)),
        }
        last_kept = Some(i);
    }
    Ok(Some(SegmentPlan {
        runs,
        first_rows,
        skipped,
    }))
}

impl<S: Source> ColumnReader<S> {
    /// Rows of the row groups this reader reads, as the footer declares them: the most slots
    /// a flat column can hand out, and so a cap on what its reservations plan for.
    pub(crate) fn rows(&self) -> u64 {
        self.row_groups
            .iter()
            .map(|(_, rows)| rows.end - rows.start)
            .fold(0, u64::saturating_add)
    }

    /// The read's memory budget ([`ReadOptions::max_memory`]).
    pub(crate) fn max_memory(&self) -> u64 {
        self.file.options.max_memory
    }

    pub(crate) fn new_decoder(&self) -> Result<ChunkDecoder> {
        let decoder = ChunkDecoder::new(
            self.desc.physical_type,
            self.desc.type_length,
            self.file.options.byte_array_layout,
        )?;
        Ok(self.file.checked(self.column, decoder))
    }

    /// [`ParquetReader::batch_decoder`] of this column.
    pub(crate) fn new_batch_decoder(&self) -> Result<ChunkDecoder> {
        self.file.batch_decoder(self.column, &self.desc)
    }

    /// [`ParquetReader::with_small_offsets`] for this column.
    pub(crate) fn with_small_offsets(&self, decoder: ChunkDecoder) -> ChunkDecoder {
        self.file.with_small_offsets(self.column, decoder)
    }

    fn open_next_chunk(&mut self, decoder: &mut ChunkDecoder) -> Result<bool> {
        let Some((rg, rows)) = self.row_groups.get(self.next_rg).cloned() else {
            return Ok(false);
        };
        self.next_rg += 1;
        self.chunk_selection = self
            .file
            .options
            .selection
            .as_ref()
            .map(|s| s.slice(rows.clone()))
            .filter(|s| s.row_count() < rows.end - rows.start);
        self.next_row = Some(0);
        self.page_first_row = None;
        self.indexed_first_rows = None;
        self.segments.clear();
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
            Some(d) => d.chunk(rg, self.column)?,
            None => None,
        };
        let meta = chunk
            .meta_data
            .as_ref()
            .ok_or_else(|| Error::format("column chunk without metadata").at(&loc))?;
        let codec = CodecKind::from_thrift(meta.codec.0)
            .ok_or_else(|| Error::Unsupported(format!("compression codec {:?}", meta.codec)))?;
        self.chunk_rows = rows.end - rows.start;
        check_chunk_values(&self.desc, meta.num_values, self.chunk_rows, &loc)?;
        if meta.num_values == 0 {
            // An empty chunk: nothing to read, whatever its offsets say.
            return Ok(true);
        }
        let (start, end) = self.file.chunk_range(chunk, &loc)?;
        decoder.clear_dictionary();
        self.dictionary = None;
        self.chunk_started = true;
        if let Some(sel) = &self.chunk_selection {
            // The offset index only saves work: one that cannot be read or does not fit the
            // chunk is ignored, and the pages are skipped by their headers instead.
            let num_rows = rows.end - rows.start;
            let plan = self
                .file
                .read_offset_index(rg, self.column)
                .and_then(|index| match index {
                    Some(index) => plan_segments(&index, sel, start..end, num_rows),
                    None => Ok(None),
                })
                .unwrap_or_else(|_| {
                    probe::hit("read.offset_index_unusable");
                    None
                });
            if let Some(plan) = plan {
                probe::hit_n("read.pages_skipped_by_offset_index", plan.skipped as u64);
                self.segments = plan
                    .runs
                    .into_iter()
                    .map(|(bytes, first_page)| Segment {
                        bytes,
                        first_page,
                        codec,
                        loc: loc.clone(),
                        #[cfg(feature = "encryption")]
                        decryptor: crypt.clone(),
                    })
                    .collect();
                self.indexed_first_rows = Some(plan.first_rows);
                return Ok(true);
            }
        }
        let bytes = self.file.source.read(start..end)?;
        self.pages = Some(PageReader::new(
            bytes,
            start,
            codec,
            meta.num_values,
            (self.desc.max_rep_level, self.desc.max_def_level),
            self.file.options.verify_crc,
            loc,
        ));
        if let Some(pages) = &mut self.pages {
            // Pages are skipped by their rows here; a repeated column's are counted from its
            // levels (those of v2 pages, which need no decompression).
            pages.count_records = self.chunk_selection.is_some() && self.desc.max_rep_level > 0;
            #[cfg(feature = "encryption")]
            {
                pages.decryptor = crypt;
            }
        }
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
                // A flat column's slots are its rows.
                decoder.set_page_row(self.page_first_row.filter(|_| self.desc.max_rep_level == 0));
                match self.page_selection(page.num_values, &loc)? {
                    None => decoder.decode_page(page, loc, limit)?,
                    Some(rows) => decoder.decode_selected(page, loc, &rows)?,
                }
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// The selection inside the open chunk, in rows of its row group (`None`: all rows).
    pub(crate) fn chunk_selection(&self) -> Option<&RowSelection> {
        self.chunk_selection.as_ref()
    }

    /// Rows of the open column chunk's row group, as its footer declares them.
    pub(crate) fn chunk_rows(&self) -> u64 {
        self.chunk_rows
    }

    /// Row (in its row group) of the data page most recently returned, when known.
    pub(crate) fn page_first_row(&self) -> Option<u64> {
        self.page_first_row
    }

    /// The selected rows of the flat page just returned, which has `rows` rows, as ranges
    /// local to the page; `None` when all of them are selected.
    fn page_selection(&self, rows: usize, loc: &Location) -> Result<Option<Vec<Range<usize>>>> {
        let Some(sel) = &self.chunk_selection else {
            return Ok(None);
        };
        let first = self.page_first_row.ok_or_else(|| {
            Error::format("a data page past the last page of the offset index").at(loc)
        })?;
        let local = sel.slice(first..first.saturating_add(rows as u64));
        if local.row_count() == rows as u64 {
            return Ok(None);
        }
        Ok(Some(
            local
                .ranges()
                .iter()
                .map(|r| r.start as usize..r.end as usize)
                .collect(),
        ))
    }

    /// The next data page, with dictionary pages on the way handed to `decoder`; `None`
    /// when the column is done.
    pub(crate) fn next_data_page(
        &mut self,
        decoder: &mut ChunkDecoder,
    ) -> Result<Option<(DataPage, Location)>> {
        loop {
            if self.pages.is_none() {
                if let Some(seg) = self.segments.pop_front() {
                    let bytes = self.file.source.read(seg.bytes.clone())?;
                    #[allow(unused_mut)]
                    let mut pages = PageReader::segment(
                        bytes,
                        seg.bytes.start,
                        seg.codec,
                        (self.desc.max_rep_level, self.desc.max_def_level),
                        self.file.options.verify_crc,
                        seg.loc,
                        seg.first_page,
                    );
                    #[cfg(feature = "encryption")]
                    {
                        pages.decryptor = seg.decryptor;
                    }
                    self.pages = Some(pages);
                } else if !self.open_next_chunk(decoder)? {
                    return Ok(None);
                }
            }
            let Some(pages) = self.pages.as_mut() else {
                continue;
            };
            // Pages read through the offset index all have a selected row; otherwise a data
            // page is skipped by its header when its rows are known and none is selected.
            let sel = self.chunk_selection.as_ref();
            let indexed = self.indexed_first_rows.is_some();
            let (next_row, page_first_row) = (&mut self.next_row, &mut self.page_first_row);
            let mut skip = |rows: Option<usize>| {
                if indexed {
                    return false;
                }
                let first = *next_row;
                *next_row = first.zip(rows).map(|(f, r)| f.saturating_add(r as u64));
                *page_first_row = first;
                match (sel, first, rows) {
                    (Some(sel), Some(f), Some(r)) => !sel.intersects(f..f.saturating_add(r as u64)),
                    _ => false,
                }
            };
            match pages.next_page_or_skip(&mut self.decompressor, &mut skip)? {
                None => self.pages = None,
                Some(Page::Dictionary(page)) => self.dictionary = Some(page),
                Some(Page::Data(page)) => {
                    let loc = pages.last_location();
                    probe::hit("read.pages_decoded");
                    if is_dictionary(page.encoding) {
                        if let Some(dictionary) = self.dictionary.take() {
                            let (n, at) = (dictionary.num_values, dictionary.location().clone());
                            let values = dictionary.values(&mut self.decompressor)?;
                            decoder.set_dictionary(values, n).map_err(|e| e.at(&at))?;
                        }
                    }
                    if let Some(first_rows) = &mut self.indexed_first_rows {
                        self.page_first_row = first_rows.pop_front();
                    }
                    self.file
                        .options
                        .check_page_values("page", page.num_values)
                        .map_err(|e| e.at(&loc))?;
                    // A flat column's slots are its rows: none past the row group's.
                    if self.desc.max_rep_level == 0 {
                        let first = self.page_first_row.unwrap_or(0);
                        if first.saturating_add(page.num_values as u64) > self.chunk_rows {
                            return Err(Error::format(format!(
                                "data page of {} values from row {first} overruns the {} rows \
                                 of its row group",
                                page.num_values, self.chunk_rows
                            ))
                            .at(&loc));
                        }
                    }
                    return Ok(Some((page, loc)));
                }
            }
        }
    }
}
