//! Reading Parquet files into Arrow-layout columns.
//!
//! ```no_run
//! use parq::read::{ParquetReader, ReadOptions};
//! let bytes = bytes::Bytes::from(std::fs::read("data.parquet")?);
//! let reader = ParquetReader::new(bytes)?;
//! let ids = reader.read_column_by_path("id")?;      // one call, whole column
//! for batch in reader.batches(&[0], 8192)? {        // or streaming, 8192 rows at a time
//!     let batch = batch?;
//!     println!("{} rows", batch.num_rows);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod assemble;
mod batch;
mod bloom;
mod decode;
mod dictionary_page;
mod file;
mod levels;
mod nested;
mod page;
mod page_index;
mod parallel;
pub(crate) mod plan;
pub mod push;
mod selection;
mod source;

pub use batch::{Batch, BatchReader};
pub use decode::ByteArrayLayout;
pub use file::{ParquetReader, ReadOptions};
pub use nested::{testing, ArrayBatch, ArrayBatchReader};
pub use selection::RowSelection;
pub use source::{FileSource, MmapSource, Source};
