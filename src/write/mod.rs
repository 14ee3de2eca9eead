//! Writing Parquet files from Arrow-layout [`Column`](crate::column::Column)s.
//!
//! [`ParquetWriter`] takes batches of columns of a flat schema ([`Field`]s, or a file's own
//! [`SchemaElement`](crate::metadata::SchemaElement)s), buffers them into row groups and
//! encodes each column chunk when its row group closes. Under [`EncodingPolicy::Auto`] it
//! decides PLAIN vs dictionary *before* building a dictionary (a sampled estimate), and a
//! dictionary it does build is abandoned as soon as it can no longer beat PLAIN.
//!
//! Every file carries what readers need to trust it: chunk and page statistics in each
//! type's defined order (`ColumnOrder` TYPE_ORDER), the page index,
//! size statistics, and a footer written exactly once, by [`ParquetWriter::finish`].
//!
//! ```
//! use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer, Buffer};
//! use parq::column::{Column, Values};
//! use parq::write::{Field, ParquetWriter, WriterOptions};
//!
//! let names = Column {
//!     len: 2,
//!     validity: Some(NullBuffer::from(vec![true, false])),
//!     values: Values::Binary {
//!         offsets: OffsetBuffer::new(ScalarBuffer::from(vec![0i64, 3, 3])),
//!         data: Buffer::from(b"abc".to_vec()),
//!     },
//! };
//! let mut file = Vec::new();
//! let mut w = ParquetWriter::new(&mut file, vec![Field::string("name").optional()], WriterOptions::default())?;
//! w.write_batch(&[names])?;
//! let meta = w.finish()?;
//! assert_eq!(meta.row_groups.len(), 1);
//! # Ok::<(), parq::Error>(())
//! ```

mod bloom;
mod cdc;
pub(crate) mod column;
pub mod dataset;
mod fields;
mod file;
mod levels;
mod nested_pages;
mod options;
mod page_index;
mod paged_values;
pub(crate) mod seal;
mod shred;
pub(crate) mod stats;

pub(crate) use fields::schema_elements;
pub use file::ParquetWriter;
pub use options::{
    BloomFilterOptions, CdcOptions, ColumnOptions, EncodingPolicy, Field, PageVersion,
    WriterOptions, DEFAULT_WRITE_ZSTD_LEVEL,
};
