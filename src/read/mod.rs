//! Reading Parquet files into Arrow-layout columns.
//!
//! ```no_run
//! use parq::predicate::col;
//! use parq::read::ParquetReader;
//! let bytes = bytes::Bytes::from(std::fs::read("data.parquet")?);
//! let reader = ParquetReader::new(bytes)?;
//! let rows = reader
//!     .read_builder() // every read: which columns and rows, and how
//!     .with_projection(["id", "name"])
//!     .with_filter(col("id").gt(10i64))
//!     .with_batch_size(8192)
//!     .build()?; // or `build_arrow` (feature `arrow`), `build_decoder`, `read_all`
//! for batch in rows {
//!     println!("{} rows", batch?.num_rows);
//! }
//! let ids = reader.read_column_by_path("id")?; // a whole column: the builder's `read_all`
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # One way in
//!
//! [`ParquetReader::read_builder`] sets up every read ([`ReadBuilder`]): a projection of
//! fields or leaves, row groups, a row selection, a pruning predicate (inexact: metadata)
//! and an exact filter, offset and limit counted over the rows that pass, row-number and
//! row-group columns, batch size, threads and a memory cap. It gives an iterator of parq
//! batches ([`ReadBuilder::build`]), Arrow record batches of a schema the caller may give
//! as the output hint (`ReadBuilder::build_arrow`, feature `arrow`), or a push decoder for
//! the caller's own I/O ([`ReadBuilder::build_decoder`]), or the whole read as one batch of
//! whole columns ([`ReadBuilder::read_all`]). The other read methods of [`ParquetReader`]
//! are one-call reads of common shapes: whole columns ([`ParquetReader::read_column`] and
//! its siblings, and [`ParquetReader::read_filtered`]: the builder's `read_all`), unfiltered
//! streams ([`ParquetReader::array_batches`], [`ParquetReader::batches`] for flat leaves)
//! and `record_batches` (the builder's Arrow read of a projection).
//!
//! # Sources
//!
//! [`ParquetReader::new`] takes bytes in memory (`bytes::Bytes`: zero-copy, decoded columns
//! may borrow from them), [`FileSource`] reads with positioned reads (the safe default) and
//! [`MmapSource`] maps the file. [`MmapSource::open`] is `unsafe`: a file truncated while it is
//! mapped kills the reader with SIGBUS instead of returning an error. Encrypted data is never
//! mapped.
//!
//! Every read is decoded by the sans-I/O [`push::PushDecoder`], which this reader feeds from
//! its source (zero-copy slices for bytes and maps, positioned reads for files): one control
//! loop for local files and object stores. Batches ([`ParquetReader::batches`],
//! [`ParquetReader::array_batches`]) therefore never span two row groups; whole-column reads
//! ([`ParquetReader::read_column`], [`ParquetReader::read_leaves`],
//! [`ParquetReader::read_field`]) are decoded row group by row group into one output.
//!
//! Byte arrays come as offsets plus one data buffer ([`ByteArrayLayout::Offsets`], the
//! default), or with [`ByteArrayLayout::Views`] as 16-byte views into the page and dictionary
//! buffers, so long values are never copied.
//!
//! # Nested columns
//!
//! Nested fields use the shared schema model ([`crate::field::Field`]) and
//! [`crate::array::Array`]: list offsets + validity + child, struct validity + children, a map
//! as a list of key/value entries.
//!
//! ```
//! use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
//! use parq::array::{Array, ListArray, ListOffsets, Value};
//! use parq::column::{Column, Values};
//! use parq::field::Field;
//! use parq::metadata::Type;
//! use parq::read::ParquetReader;
//! use parq::write::{ParquetWriter, WriterOptions};
//!
//! // [[1, 2], null, []] as list<int64>
//! let items = Column { len: 2, validity: None, values: Values::Int64(vec![1i64, 2].into()) };
//! let lists = Array::List(ListArray {
//!     validity: Some(NullBuffer::from(vec![true, false, true])),
//!     offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2, 2, 2]))),
//!     values: Box::new(Array::Primitive(items)),
//! });
//! let schema = vec![Field::list("ids", Field::primitive("element", Type::INT64))];
//! let mut file = Vec::new();
//! let mut writer = ParquetWriter::with_fields(&mut file, schema, WriterOptions::default())?;
//! writer.write_arrays(&[lists])?;
//! writer.finish()?;
//!
//! let reader = ParquetReader::new(bytes::Bytes::from(file))?;
//! let (_field, ids) = reader.read_field_by_path("ids")?;      // a top-level name or a leaf path
//! assert_eq!(ids.value(1), Value::Null);
//! assert_eq!(ids.value(2), Value::List(vec![]));
//! for batch in reader.array_batches(&["ids"], 8192)? {          // batches end on record boundaries
//!     assert_eq!(batch?.num_rows, 3);
//! }
//! # Ok::<(), parq::Error>(())
//! ```
//!
//! # Row selection
//!
//! [`ReadOptions::selection`] takes a [`RowSelection`]: sorted, disjoint ranges of file row
//! numbers (row group `k` starts at `row_group_first_rows()[k]`). Every read then returns
//! exactly the selected rows, in order. A row group without a selected row is never opened; a
//! page without one is skipped before it is decompressed, through the offset index when the
//! file has one (the page is not even read), otherwise by its header. Inside a page, PLAIN,
//! dictionary, BYTE_STREAM_SPLIT and DELTA_LENGTH_BYTE_ARRAY values are skipped without being
//! decoded; the stateful encodings (DELTA_BINARY_PACKED, DELTA_BYTE_ARRAY, RLE booleans) are
//! decoded and dropped. Probes `read.pages_decoded`, `read.pages_skipped` and
//! `read.pages_skipped_by_offset_index` count what happened.
//!
//! ```
//! use parq::column::{Column, Values};
//! use parq::read::{ParquetReader, ReadOptions, RowSelection};
//! use parq::write::{Field, ParquetWriter, WriterOptions};
//!
//! let ids = Column { len: 1000, validity: None, values: Values::Int64((0..1000i64).collect::<Vec<_>>().into()) };
//! let mut file = Vec::new();
//! let options = WriterOptions::default().with_data_page_row_limit(100);
//! let mut writer = ParquetWriter::new(&mut file, vec![Field::int64("id")], options)?;
//! writer.write_batch(&[ids])?;
//! writer.finish()?;
//!
//! // Rows 120..130 and 990..1000: two pages of ten are read, the other eight are skipped.
//! let selection = RowSelection::from_ranges([120..130, 990..1000]);
//! let options = ReadOptions::default().with_selection(Some(selection));
//! let reader = ParquetReader::with_options(bytes::Bytes::from(file), options)?;
//! let ids = reader.read_column(0)?;
//! let Values::Int64(v) = &ids.values else { unreachable!() };
//! assert_eq!(v.len(), 20);
//! assert_eq!((v[0], v[10]), (120, 990));
//! # Ok::<(), parq::Error>(())
//! ```
//!
//! # Threads
//!
//! [`ReadOptions::threads`] (default 1: nothing is spawned) decodes on several scoped threads.
//! Work is split across row groups, columns and, inside a column chunk larger than its share,
//! page ranges (see the `parallel` module), so one dominant column still keeps every thread
//! busy. Results equal one-thread reads value for value (`tests/it/parallel_read.rs`).
//!
//! ```
//! # use parq::column::{Column, Values};
//! # use parq::write::{Field, ParquetWriter, WriterOptions};
//! # let mut file = Vec::new();
//! # let mut w = ParquetWriter::new(&mut file, vec![Field::int64("id")], WriterOptions::default())?;
//! # w.write_batch(&[Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) }])?;
//! # w.finish()?;
//! use parq::read::{ParquetReader, ReadOptions};
//!
//! let options = ReadOptions::default().with_threads(2);
//! let reader = ParquetReader::with_options(bytes::Bytes::from(file), options)?;
//! let columns = reader.read_leaves(&[0])?; // every listed column, all threads sharing the work
//! assert_eq!(columns[0].len, 3);
//! # Ok::<(), parq::Error>(())
//! ```
//!
//! # Limits
//!
//! One memory budget, [`ReadOptions::max_memory`] (4 GiB by default), bounds a read: its
//! decoded output, and the sizes taken from headers, which are checked before anything is
//! allocated: a page's declared uncompressed size against [`ReadOptions::max_page_size`] (a
//! quarter of the budget), its value count against [`ReadOptions::max_page_values`] (a
//! 32nd). The bytes a push decoder plans ahead are a 32nd of it too; the footer's bytes are
//! checked against [`ReadOptions::max_footer_size`]. A legal file with a larger page
//! (parquet-testing's `large_string_map.brotli.parquet` holds a 1 GiB page) reads once the
//! budget is raised.

mod assemble;
mod batch;
mod bloom;
mod builder;
mod decode;
mod dictionary_page;
mod drive;
mod file;
mod levels;
mod nested;
mod page;
mod page_buffers;
mod page_index;
mod parallel;
pub(crate) mod positions;
pub mod push;
mod select;
mod selection;
mod source;

pub use batch::{Batch, BatchReader};
pub use builder::{ReadBuilder, RowBatches, DEFAULT_BATCH_SIZE};
pub use decode::{ByteArrayLayout, DEFAULT_MAX_MEMORY};
pub(crate) use file::FileDecoder;
pub use file::{ParquetReader, ReadOptions};
#[cfg(feature = "internals")]
pub use nested::testing;
#[cfg(feature = "arrow")]
pub(crate) use nested::FieldLeaves;
pub use nested::{ArrayBatch, ArrayBatchReader};
pub(crate) use select::selects;
pub use select::{Select, EVERY_FIELD};
pub use selection::RowSelection;
pub use source::{FileSource, MmapSource, Source};
