//! Arrow interop (the `arrow` feature): Arrow schemas of Parquet files, Arrow
//! [`RecordBatch`](arrow_array::RecordBatch)es read from parq's buffers without copying values,
//! and a writer of `RecordBatch`es.
//!
//! - [`to_arrow_schema`] maps parq [`Field`](crate::field::Field)s to an Arrow schema, honouring
//!   the embedded `ARROW:schema` (as pyarrow and arrow-rs write it) and otherwise mapping logical
//!   types as arrow-rs does.
//! - [`ParquetReader::record_batches`](crate::read::ParquetReader::record_batches) streams
//!   batches as an [`arrow_array::RecordBatchReader`]; [`to_arrow_array`] lists which
//!   conversions copy.
//! - [`ArrowWriter`] writes `RecordBatch`es and stores `ARROW:schema`.
//! - VARIANT columns are the canonical extension type `arrow.parquet.variant` both ways
//!   ([`variant_arrow_field`]).
//!
//! Reading wraps parq's buffers without copying values; [`to_arrow_array`] documents the few
//! conversions that copy (i32 offsets for `Utf8`/`Binary`, Int8/16 casts, INT96, decimals stored
//! as bytes, dictionaries). UTF-8 is validated once per buffer, for string columns only.
//!
//! ```
//! use std::sync::Arc;
//! use arrow_array::{ArrayRef, Int64Array, RecordBatch, RecordBatchReader, StringArray};
//! use parq::arrow::ArrowWriter;
//! use parq::read::ParquetReader;
//!
//! let batch = RecordBatch::try_from_iter([
//!     ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
//!     ("name", Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])) as ArrayRef),
//! ])?;
//! // Write: RecordBatches in, `ARROW:schema` stored so pyarrow and arrow-rs get the types back.
//! let mut writer = ArrowWriter::try_new(Vec::new(), batch.schema(), Default::default())?;
//! writer.write(&batch)?;
//! let file = writer.into_inner()?;
//!
//! // Read: an `arrow_array::RecordBatchReader` over a projection.
//! let reader = ParquetReader::new(bytes::Bytes::from(file))?;
//! let batches = reader.record_batches(&["id", "name"], 8192)?;
//! assert_eq!(batches.schema(), batch.schema());
//! for b in batches {
//!     assert_eq!(b?, batch);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod ipc_check;
mod read;
mod schema;
mod variant;
mod write;

pub(crate) use read::columns_to_record_batch;
pub use read::{
    column_to_arrow, to_arrow_array, to_record_batch, ParquetRecordBatchReader,
    RecordBatchConverter,
};
pub use schema::{
    decode_arrow_schema, encode_arrow_schema, primitive_type, to_arrow_field, to_arrow_schema,
    ARROW_SCHEMA_META_KEY, PARQUET_FIELD_ID_META_KEY,
};
pub use variant::{
    is_variant_field, variant_arrow_field, variant_to_arrow, EXTENSION_NAME_KEY,
    VARIANT_EXTENSION_NAME,
};
pub(crate) use write::file_schema;
pub use write::{from_arrow_array, from_arrow_field, from_arrow_schema, ArrowWriter};
