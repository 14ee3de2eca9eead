//! Writers into an object store: parq's writers, their bytes moved into a multipart upload
//! as each row group closes.

use std::sync::Arc;

use ::object_store::path::Path;
use ::object_store::ObjectStore;

use super::upload::{ObjectWriteOptions, Spool, Upload, UploadedObject};
use crate::column::Column;
use crate::metadata::FileMetaData;
use crate::write::{ParquetWriter, WriterOptions};
use crate::Result;

/// The sync writer's sink: the bytes of the row groups closed since the last call.
/// Send the full parts `writer` has written so far.
async fn drain(writer: &mut ParquetWriter<Spool>, upload: &mut Upload) -> Result<()> {
    upload.drain(writer.sink_mut()).await
}

/// Write the footer, upload it and complete the upload; any failure aborts the upload.
async fn close(
    writer: ParquetWriter<Spool>,
    mut upload: Upload,
) -> Result<(FileMetaData, UploadedObject)> {
    match writer.close() {
        Ok((metadata, tail)) => {
            upload.push_spool(tail).await?;
            Ok((metadata, upload.complete().await?))
        }
        Err(e) => {
            let _ = upload.abort().await;
            Err(e)
        }
    }
}

/// A Parquet file written into an object store from parq's columns: the same
/// [`ParquetWriter`] (every [`WriterOptions`], encryption included), whose bytes leave as
/// parts of a multipart upload while the next row group is written.
///
/// Memory: the open row group, plus up to [`ObjectWriteOptions::max_parts_in_flight`] parts.
/// Requests run as tasks on the current tokio runtime.
///
/// [`finish`](Self::finish) completes the upload; until then no object exists. A failed
/// request aborts the upload and makes every later call fail; [`abort`](Self::abort) aborts
/// it on purpose; dropping the writer unfinished aborts it on a runtime task.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> parq::Result<()> {
/// use std::sync::Arc;
/// use parq::column::{Column, Values};
/// use parq::object_store::object_store::{memory::InMemory, path::Path, ObjectStore};
/// use parq::object_store::{ObjectWriteOptions, ObjectWriter};
/// use parq::write::{Field, WriterOptions};
///
/// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
/// let mut w = ObjectWriter::new(
///     Arc::clone(&store),
///     Path::from("t/part-0.parquet"),
///     vec![Field::int64("id")],
///     WriterOptions::default(),
///     ObjectWriteOptions::default(),
/// )?;
/// let ids = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
/// w.write_batch(&[ids]).await?;
/// let (metadata, object) = w.finish().await?;
/// assert_eq!((metadata.num_rows, object.parts), (3, 0)); // one PUT: it fits in a part
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct ObjectWriter {
    writer: ParquetWriter<Spool>,
    upload: Upload,
}

impl ObjectWriter {
    /// A writer of `fields` (flat, as [`ParquetWriter::new`] takes them) into `path`.
    pub fn new(
        store: Arc<dyn ObjectStore>,
        path: Path,
        fields: Vec<crate::write::Field>,
        options: WriterOptions,
        upload: ObjectWriteOptions,
    ) -> Result<Self> {
        let upload = Upload::new(store, path, upload)?;
        Ok(ObjectWriter {
            writer: ParquetWriter::new(upload.spool(), fields, options)?,
            upload,
        })
    }

    /// A writer of `fields` at any depth (as [`ParquetWriter::with_fields`] takes them).
    pub fn with_fields(
        store: Arc<dyn ObjectStore>,
        path: Path,
        fields: Vec<crate::field::Field>,
        options: WriterOptions,
        upload: ObjectWriteOptions,
    ) -> Result<Self> {
        let upload = Upload::new(store, path, upload)?;
        Ok(ObjectWriter {
            writer: ParquetWriter::with_fields(upload.spool(), fields, options)?,
            upload,
        })
    }

    /// A writer of the schema `elements` as a footer holds them (as
    /// [`ParquetWriter::from_schema_elements`] takes them): a rewrite keeps every element.
    pub fn from_schema_elements(
        store: Arc<dyn ObjectStore>,
        path: Path,
        elements: Vec<crate::metadata::SchemaElement>,
        options: WriterOptions,
        upload: ObjectWriteOptions,
    ) -> Result<Self> {
        let upload = Upload::new(store, path, upload)?;
        Ok(ObjectWriter {
            writer: ParquetWriter::from_schema_elements(upload.spool(), elements, options)?,
            upload,
        })
    }

    /// Where the object goes.
    pub fn path(&self) -> &Path {
        self.upload.path()
    }

    /// Rows written so far.
    pub fn num_rows(&self) -> u64 {
        self.writer.num_rows()
    }

    /// Write flat columns ([`ParquetWriter::write_batch`]); a row group that closes is
    /// uploaded.
    pub async fn write_batch(&mut self, columns: &[Column]) -> Result<()> {
        self.writer.write_batch(columns)?;
        drain(&mut self.writer, &mut self.upload).await
    }

    /// Write arrays of any depth ([`ParquetWriter::write_arrays`]).
    pub async fn write_arrays(&mut self, arrays: &[crate::array::Array]) -> Result<()> {
        self.writer.write_arrays(arrays)?;
        drain(&mut self.writer, &mut self.upload).await
    }

    /// Close the open row group now and upload it.
    pub async fn flush_row_group(&mut self) -> Result<()> {
        self.writer.flush_row_group()?;
        drain(&mut self.writer, &mut self.upload).await
    }

    /// Write the footer and complete the upload: the object exists from here on.
    pub async fn finish(self) -> Result<(FileMetaData, UploadedObject)> {
        close(self.writer, self.upload).await
    }

    /// Abort the upload: no object appears.
    pub async fn abort(self) -> Result<()> {
        self.upload.abort().await
    }
}

/// A Parquet file written into an object store from Arrow `RecordBatch`es (features `arrow`
/// and `object_store`): [`crate::arrow::ArrowWriter`] over an upload, as [`ObjectWriter`] is
/// for parq's columns (the same memory bound, errors and aborts).
#[cfg(feature = "arrow")]
pub struct AsyncArrowWriter {
    writer: crate::arrow::ArrowWriter<Spool>,
    upload: Upload,
}

#[cfg(feature = "arrow")]
impl std::fmt::Debug for AsyncArrowWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AsyncArrowWriter")
            .field("schema", self.writer.schema())
            .field("upload", &self.upload)
            .finish()
    }
}

#[cfg(feature = "arrow")]
impl AsyncArrowWriter {
    /// A writer of batches of `schema` into `path` (the Arrow schema is embedded as
    /// [`crate::arrow::ArrowWriter::try_new`] does).
    pub fn try_new(
        store: Arc<dyn ObjectStore>,
        path: Path,
        schema: arrow_schema::SchemaRef,
        options: WriterOptions,
        upload: ObjectWriteOptions,
    ) -> Result<Self> {
        let upload = Upload::new(store, path, upload)?;
        Ok(AsyncArrowWriter {
            writer: crate::arrow::ArrowWriter::try_new(upload.spool(), schema, options)?,
            upload,
        })
    }

    /// Where the object goes.
    pub fn path(&self) -> &Path {
        self.upload.path()
    }

    /// The Arrow schema batches must have.
    pub fn schema(&self) -> &arrow_schema::SchemaRef {
        self.writer.schema()
    }

    /// Rows written so far.
    pub fn num_rows(&self) -> u64 {
        self.writer.num_rows()
    }

    /// Bytes the open row group holds (what a caller's memory pool should reserve, with the
    /// parts in flight).
    pub fn buffered_bytes(&self) -> usize {
        self.writer.buffered_bytes()
    }

    /// Write one batch; a row group that closes is uploaded.
    pub async fn write(&mut self, batch: &arrow_array::RecordBatch) -> Result<()> {
        self.writer.write(batch)?;
        drain(self.writer.inner_mut(), &mut self.upload).await
    }

    /// Close the open row group now and upload it.
    pub async fn flush(&mut self) -> Result<()> {
        self.writer.flush()?;
        drain(self.writer.inner_mut(), &mut self.upload).await
    }

    /// Write the footer and complete the upload: the object exists from here on.
    pub async fn finish(self) -> Result<(FileMetaData, UploadedObject)> {
        close(self.writer.into_parquet_writer(), self.upload).await
    }

    /// Abort the upload: no object appears.
    pub async fn abort(self) -> Result<()> {
        self.upload.abort().await
    }
}
