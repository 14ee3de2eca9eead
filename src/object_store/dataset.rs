//! A dataset written into an object store: the partitioning, rolling and listing of
//! [`DatasetWriter`](crate::write::dataset::DatasetWriter), each file a multipart upload as
//! [`ObjectWriter`](super::ObjectWriter) makes them.

use std::sync::Arc;

use ::object_store::path::Path;
use ::object_store::ObjectStore;

use super::upload::{ObjectWriteOptions, Spool, Upload};
use crate::array::Array;
use crate::column::Column;
use crate::metadata::SchemaElement;
use crate::write::dataset::engine::{close_writer, Core, Layout, OpenFile, Part};
use crate::write::dataset::{columns_to_arrays, DatasetOptions, WrittenFile};
use crate::{Error, Result};

/// What a file's writer writes into: the bytes since they were last moved into its upload.
/// Writes a partitioned dataset of Parquet files under a prefix of an object store, the
/// async twin of [`DatasetWriter`](crate::write::dataset::DatasetWriter) (the same options,
/// folders, names and listing; paths in the listing are relative to the prefix).
///
/// Memory: per open file, its open row group and up to
/// [`ObjectWriteOptions::max_parts_in_flight`] parts. No object of a file exists until it is
/// finished; a failed upload is aborted, and dropping the writer aborts the uploads of the
/// files still open.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> parq::Result<()> {
/// use std::sync::Arc;
/// use parq::column::{Column, Values};
/// use parq::object_store::object_store::{memory::InMemory, path::Path, ObjectStore};
/// use parq::object_store::{ObjectDatasetWriter, ObjectWriteOptions};
/// use parq::write::dataset::DatasetOptions;
/// use parq::write::Field;
///
/// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
/// let mut w = ObjectDatasetWriter::new(
///     Arc::clone(&store),
///     Path::from("tables/t"),
///     [Field::int32("year"), Field::int64("n")],
///     DatasetOptions::default().with_partition_by(["year"]),
///     ObjectWriteOptions::default(),
/// )?;
/// let years = Column { len: 3, validity: None, values: Values::Int32(vec![2024, 2025, 2024].into()) };
/// let n = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
/// w.write_batch(&[years, n]).await?;
/// let mut files = w.finish().await?;
/// files.sort_by(|a, b| a.path.cmp(&b.path));
/// assert!(files[0].path.starts_with("year=2024/part-"));
/// assert_eq!((files[0].num_rows, files[1].num_rows), (2, 1));
/// # Ok(())
/// # }
/// ```
pub struct ObjectDatasetWriter {
    store: Arc<dyn ObjectStore>,
    prefix: Path,
    upload: ObjectWriteOptions,
    core: Core<Spool, Upload>,
    #[cfg(feature = "arrow")]
    arrow: Option<crate::write::dataset::ArrowInput>,
}

impl std::fmt::Debug for ObjectDatasetWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ObjectDatasetWriter")
            .field("prefix", &self.prefix)
            .field("core", &self.core)
            .finish()
    }
}

impl ObjectDatasetWriter {
    /// A writer of batches of `fields` (top-level fields of any depth; partition columns
    /// among them) under `prefix` of `store`.
    pub fn new<I, T>(
        store: Arc<dyn ObjectStore>,
        prefix: Path,
        fields: I,
        options: DatasetOptions,
        upload: ObjectWriteOptions,
    ) -> Result<Self>
    where
        I: IntoIterator<Item = T>,
        T: Into<crate::field::Field>,
    {
        let fields: Vec<crate::field::Field> = fields.into_iter().map(Into::into).collect();
        let elements = crate::write::schema_elements(&fields)?;
        Self::from_schema_elements(store, prefix, &elements, options, upload)
    }

    /// A writer of batches of the schema `elements` (root first, as a footer has them).
    pub fn from_schema_elements(
        store: Arc<dyn ObjectStore>,
        prefix: Path,
        elements: &[SchemaElement],
        options: DatasetOptions,
        upload: ObjectWriteOptions,
    ) -> Result<Self> {
        let layout = Layout::new(elements, None, &options)?;
        Self::with_layout(store, prefix, layout, options, upload)
    }

    fn with_layout(
        store: Arc<dyn ObjectStore>,
        prefix: Path,
        layout: Layout,
        options: DatasetOptions,
        upload: ObjectWriteOptions,
    ) -> Result<Self> {
        // Checked now rather than at the first file.
        Upload::new(Arc::clone(&store), prefix.clone(), upload.clone())?;
        Ok(ObjectDatasetWriter {
            store,
            prefix,
            upload,
            core: Core::new(layout, options)?,
            #[cfg(feature = "arrow")]
            arrow: None,
        })
    }

    /// A writer of Arrow batches of `schema` (feature `arrow`); each file embeds its schema
    /// without the partition columns.
    #[cfg(feature = "arrow")]
    pub fn try_new_arrow(
        store: Arc<dyn ObjectStore>,
        prefix: Path,
        schema: arrow_schema::SchemaRef,
        options: DatasetOptions,
        upload: ObjectWriteOptions,
    ) -> Result<Self> {
        let (input, layout) = crate::write::dataset::ArrowInput::layout(schema, &options)?;
        let mut w = Self::with_layout(store, prefix, layout, options, upload)?;
        w.arrow = Some(input);
        Ok(w)
    }

    /// Write one Arrow batch (a writer made by [`Self::try_new_arrow`]).
    #[cfg(feature = "arrow")]
    pub async fn write_record_batch(&mut self, batch: &arrow_array::RecordBatch) -> Result<()> {
        let arrays = crate::write::dataset::ArrowInput::arrays_of(self.arrow.as_ref(), batch)?;
        self.write_arrays(&arrays).await
    }

    /// Write one batch of flat columns, one per top-level field.
    pub async fn write_batch(&mut self, columns: &[Column]) -> Result<()> {
        self.write_arrays(&columns_to_arrays(columns)).await
    }

    /// Write one batch of arrays, one per top-level field, all of one length.
    pub async fn write_arrays(&mut self, arrays: &[Array]) -> Result<()> {
        for part in self.core.layout.split(arrays)? {
            self.write_part(&part).await?;
        }
        Ok(())
    }

    async fn write_part(&mut self, part: &Part) -> Result<()> {
        let len = part.arrays.first().map_or(0, Array::len);
        let mut offset = 0;
        while offset < len {
            if !self.core.is_open(&part.dir) {
                for file in self.core.evict() {
                    self.close(file).await?;
                }
                let path = self.core.next_path(&part.dir);
                let upload = Upload::new(
                    Arc::clone(&self.store),
                    self.object_path(&path)?,
                    self.upload.clone(),
                )?;
                self.core.open(part, path, upload.spool(), upload)?;
            }
            let (rows, full) = self.core.write(part, offset)?;
            offset += rows;
            match full {
                Some(file) => self.close(file).await?,
                None => {
                    if let Some(file) = self.core.open_file_mut(&part.dir) {
                        drain(file).await?;
                    }
                }
            }
        }
        Ok(())
    }

    /// The object of a path relative to the prefix.
    fn object_path(&self, relative: &str) -> Result<Path> {
        let full = if self.prefix.as_ref().is_empty() {
            relative.to_string()
        } else {
            format!("{}/{relative}", self.prefix)
        };
        Path::parse(&full).map_err(|e| Error::InvalidArgument(format!("object path {full:?}: {e}")))
    }

    async fn close(&mut self, file: OpenFile<Spool, Upload>) -> Result<()> {
        let closed = close_writer(file);
        let mut upload = closed.extra;
        match closed.result {
            Ok((meta, tail, _)) => {
                upload.push_spool(tail).await?;
                let object = upload.complete().await?;
                self.core
                    .record(closed.path, closed.values, &meta, object.size);
                Ok(())
            }
            Err(e) => {
                let _ = upload.abort().await;
                Err(e)
            }
        }
    }

    /// The files finished so far (rolled, or closed to open another).
    pub fn written(&self) -> &[WrittenFile] {
        self.core.written()
    }

    /// Finish every open file; returns every file written, in the order they were finished.
    pub async fn finish(mut self) -> Result<Vec<WrittenFile>> {
        for file in self.core.take_open() {
            self.close(file).await?;
        }
        Ok(self.core.into_written())
    }

    /// Abort the uploads of the files still open; the files already finished stay.
    pub async fn abort(mut self) -> Result<Vec<WrittenFile>> {
        for file in self.core.take_open() {
            file.extra.abort().await?;
        }
        Ok(self.core.into_written())
    }
}

/// Send the full parts `file`'s writer has written so far.
async fn drain(file: &mut OpenFile<Spool, Upload>) -> Result<()> {
    file.extra.drain(&mut file.writer.sink_mut().inner).await
}
