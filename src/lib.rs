//! parq: an Apache Parquet reader and writer.
//!
//! Files are read into Arrow-layout buffers ([`column::Column`]) and written from them. The
//! encodings and codecs live in the `parq_codecs` crate; this crate knows the file format:
//! the Thrift footer ([`metadata`]), the schema tree ([`schema`]), reading ([`read`]) and
//! writing ([`mod@write`]).
//!
//! [`variant`] reads and writes VARIANT columns: the binary encoding (borrowed views, an
//! owned tree, writers), rebuilding shredded variants on read (`ParquetReader::read_variant`,
//! one path alone with `read_variant_path`), shredding on write, and JSON text.
//!
//! Every read is set up by one builder, [`read::ParquetReader::read_builder`]: see
//! [`read::ReadBuilder`].
//!
//! The `arrow` feature adds `parq::arrow`: Arrow schemas of Parquet files (honouring the
//! embedded `ARROW:schema`), `ReadBuilder::build_arrow` (an `arrow_array::RecordBatchReader`
//! over parq's buffers, without copying values, of the caller's schema or the file's) and
//! `ArrowWriter` (`RecordBatch`es in).
//!
//! The `testing` feature adds `parq::testing`: proptest strategies and an
//! `arbitrary::Arbitrary` spec of valid random files, a round-trip checker and named
//! near-valid corruptions, for other crates' test suites and fuzz targets.
//!
//! The `encryption` feature adds `parq::encryption`: Parquet modular encryption (AES-GCM and
//! AES-GCM-CTR), read through `ReadOptions::decryption` and written through
//! `WriterOptions::encryption`.
#![deny(missing_docs)]

pub mod array;
#[cfg(feature = "arrow")]
pub mod arrow;
pub mod bloom;
pub mod column;
#[cfg(feature = "encryption")]
pub mod encryption;
mod error;
pub mod field;
pub mod geospatial;
pub mod metadata;
#[cfg(feature = "object_store")]
pub mod object_store;
pub mod predicate;
pub mod read;
pub mod schema;
#[cfg(test)]
mod testdata;
#[cfg(feature = "testing")]
pub mod testing;
pub mod variant;
pub mod write;

pub use error::{Error, Limit, Result};
pub use parq_codecs as codecs;

/// The README's example, compiled and run as a doctest so that it stays true.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
