//! Writing a dataset: many Parquet files under one folder, rolled at a target size and
//! partitioned Hive-style (`key=value/` folders), with the listing a table format needs.
//!
//! [`DatasetWriter`] takes batches (parq's arrays or columns, or Arrow `RecordBatch`es with
//! the `arrow` feature) and writes them through a [`FileSink`] ([`LocalDirectory`] for a
//! folder on disk). Its async twin over an object store is
//! `parq::object_store::ObjectDatasetWriter` (feature `object_store`); both share the partitioning, rolling and bookkeeping, and only differ in
//! where a file's bytes go.
//!
//! * **Partitions.** The rows of each batch are split by the values of
//!   [`DatasetOptions::partition_by`]'s columns; each partition's rows go to a file under
//!   `col=value/` folders, escaped as Hive and Spark escape them ([`escape_path_name`]), a
//!   null (or empty string) as [`HIVE_DEFAULT_PARTITION`]. As Hive, Spark and DataFusion
//!   do, the partition columns are not in the files: their values are the folders'.
//! * **Sizes.** A file is closed, and the partition's next rows start a new one, once the
//!   bytes it has written plus the row group it buffers reach
//!   [`DatasetOptions::target_file_bytes`]; a batch is cut where its rows' decoded size says
//!   the target is met. The buffered row group counts decoded bytes, so a file whose last
//!   row group compresses well ends under the target. Row groups close at
//!   [`WriterOptions::row_group_rows`] or [`WriterOptions::row_group_bytes`].
//! * **Memory.** Each open file buffers a row group; at most
//!   [`DatasetOptions::max_open_files`] are open, the least recently written is finished
//!   when one more is needed.
//! * **Names.** `{prefix}{unique id}-{n:05}.parquet`, `n` counting this writer's files,
//!   the unique id drawn from the clock and the process once per writer (or
//!   [`DatasetOptions::unique_id`], e.g. a job id), so that writers into one folder do not
//!   overwrite each other's files.
//! * **Listing.** [`DatasetWriter::finish`] returns every file written: its path relative
//!   to the root, partition values, rows, size as stored, and per column the statistics of
//!   its footer merged over row groups (min and max PLAIN-encoded, as Parquet stores them,
//!   null counts), what a table format (Delta, Iceberg) turns into its own entries.
//!
//! ```
//! use parq::column::{Column, Values};
//! use parq::write::dataset::{DatasetOptions, DatasetWriter, LocalDirectory};
//! use parq::write::Field;
//!
//! let root = std::env::temp_dir().join(format!("parq-dataset-doc-{}", std::process::id()));
//! let fields = [Field::int64("id"), Field::string("city").optional()];
//! let options = DatasetOptions::default().with_partition_by(["city"]);
//! let mut w = DatasetWriter::new(LocalDirectory::new(&root), fields, options)?;
//! let ids = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
//! let cities = Column {
//!     len: 3,
//!     validity: Some(vec![true, true, false].into()),
//!     values: Values::Binary {
//!         offsets: arrow_buffer::OffsetBuffer::new(vec![0i64, 4, 8, 8].into()),
//!         data: b"OsloRoma".to_vec().into(),
//!     },
//! };
//! w.write_batch(&[ids, cities])?;
//! let mut files = w.finish()?;
//! files.sort_by(|a, b| a.path.cmp(&b.path));
//! assert_eq!(files.len(), 3);
//! assert!(files[0].path.starts_with("city=Oslo/part-"));
//! assert!(files[2].path.starts_with("city=__HIVE_DEFAULT_PARTITION__/"));
//! assert_eq!(files[0].partition_values, vec![("city".to_string(), Some("Oslo".to_string()))]);
//! assert_eq!(files[0].num_rows, 1);
//! assert_eq!(files[0].size_bytes, std::fs::metadata(root.join(&files[0].path))?.len());
//! # std::fs::remove_dir_all(&root)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub(crate) mod engine;
mod hive;

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::array::Array;
use crate::column::Column;
use crate::metadata::{SchemaElement, Type};
use crate::write::WriterOptions;
use crate::{Error, Result};

pub use hive::{
    escape_path_name, parse_partition_path, unescape_path_name, HIVE_DEFAULT_PARTITION,
};

use self::engine::{close_writer, Core, Layout, OpenFile, Part};

/// How a dataset is written: the writer options of every file, the target file size,
/// the partition columns, the file names and how many files may be open at once.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DatasetOptions {
    /// Options of every file (codec, encodings, row group sizes, ...).
    pub writer: WriterOptions,
    /// A file is closed once its written and buffered bytes reach this (see the module
    /// docs). 512 MiB by default; `u64::MAX` never rolls.
    pub target_file_bytes: u64,
    /// Top-level primitive columns (booleans, integers, dates, decimals on integers,
    /// strings) whose values name the folders, outermost first. None by default.
    pub partition_by: Vec<String>,
    /// The start of every file name. `part-` by default.
    pub file_prefix: String,
    /// The id in file names after the prefix; by default one drawn per writer.
    pub unique_id: Option<String>,
    /// Files open at once, at most (at least 1); 64 by default.
    pub max_open_files: usize,
}

impl Default for DatasetOptions {
    fn default() -> Self {
        DatasetOptions {
            writer: WriterOptions::default(),
            target_file_bytes: 512 << 20,
            partition_by: Vec::new(),
            file_prefix: "part-".into(),
            unique_id: None,
            max_open_files: 64,
        }
    }
}

impl DatasetOptions {
    /// These options with `writer` for every file.
    pub fn with_writer_options(mut self, writer: WriterOptions) -> Self {
        self.writer = writer;
        self
    }

    /// These options with files closed at `bytes`.
    pub fn with_target_file_bytes(mut self, bytes: u64) -> Self {
        self.target_file_bytes = bytes;
        self
    }

    /// These options with row groups of at most `rows` rows.
    pub fn with_row_group_rows(mut self, rows: usize) -> Self {
        self.writer.row_group_rows = rows;
        self
    }

    /// These options with row groups closed at `bytes` buffered.
    pub fn with_row_group_bytes(mut self, bytes: usize) -> Self {
        self.writer.row_group_bytes = bytes;
        self
    }

    /// These options partitioned by `columns`, outermost folder first.
    pub fn with_partition_by<I, S>(mut self, columns: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.partition_by = columns.into_iter().map(Into::into).collect();
        self
    }

    /// These options with file names starting with `prefix`.
    pub fn with_file_prefix(mut self, prefix: impl Into<String>) -> Self {
        self.file_prefix = prefix.into();
        self
    }

    /// These options with `id` in every file name instead of a drawn one (a job's id; the
    /// caller then keeps names unique).
    pub fn with_unique_id(mut self, id: impl Into<String>) -> Self {
        self.unique_id = Some(id.into());
        self
    }

    /// These options with at most `files` open at once.
    pub fn with_max_open_files(mut self, files: usize) -> Self {
        self.max_open_files = files;
        self
    }
}

/// One file a dataset writer wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct WrittenFile {
    /// Relative to the dataset's root, `/`-separated: `k=v/part-….parquet`.
    pub path: String,
    /// The partition columns and the values of this file's rows, in
    /// [`DatasetOptions::partition_by`] order (`None` for null, and for an empty string,
    /// which is written as null).
    pub partition_values: Vec<(String, Option<String>)>,
    /// Rows, as the footer says.
    pub num_rows: u64,
    /// Bytes as stored.
    pub size_bytes: u64,
    /// Row groups.
    pub row_groups: usize,
    /// One per leaf column of the file, in schema order.
    pub columns: Vec<ColumnStatistics>,
}

/// One column's statistics over a whole file, merged from its row groups' chunk statistics.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ColumnStatistics {
    /// The leaf's path in the file's schema.
    pub path: Vec<String>,
    /// Its physical type, which says how `min` and `max` are encoded.
    pub physical_type: Type,
    /// The least value, PLAIN-encoded as Parquet stores it (no length prefix for byte
    /// arrays); `None` when some row group with values has no bound, or for a type without
    /// an order. A column of nulls only has none either.
    pub min: Option<Vec<u8>>,
    /// The greatest value, encoded as `min`.
    pub max: Option<Vec<u8>>,
    /// Whether `min` is a value of the column (a truncated byte array's is not).
    pub min_exact: bool,
    /// Whether `max` is a value of the column (a truncated byte array's is not).
    pub max_exact: bool,
    /// Nulls, when every row group counts them.
    pub null_count: Option<u64>,
    /// NaNs of a floating point column, when every row group counts them.
    pub nan_count: Option<u64>,
    /// Values, nulls included (more than the rows for a repeated column).
    pub num_values: u64,
    /// Bytes of the column's chunks as stored (compressed, page headers included).
    pub compressed_bytes: u64,
}

/// Where a [`DatasetWriter`] puts its files.
pub trait FileSink {
    /// One file being written.
    type File: Write;

    /// Create the file at `path` (relative to the dataset's root, `/`-separated, its
    /// folders not yet made). Names are unique within a writer.
    fn create(&mut self, path: &str) -> Result<Self::File>;

    /// The file at `path` is complete (footer written and flushed): make it durable or
    /// visible as the sink does. By default, drop it.
    fn finish(&mut self, path: &str, file: Self::File) -> Result<()> {
        let _ = (path, file);
        Ok(())
    }
}

/// A dataset in a folder on the local file system.
#[derive(Debug, Clone)]
pub struct LocalDirectory {
    root: PathBuf,
}

impl LocalDirectory {
    /// Files under `root` (made when the first file is).
    pub fn new(root: impl Into<PathBuf>) -> Self {
        LocalDirectory { root: root.into() }
    }

    /// The folder.
    pub fn root(&self) -> &Path {
        &self.root
    }
}

impl FileSink for LocalDirectory {
    type File = BufWriter<std::fs::File>;

    fn create(&mut self, path: &str) -> Result<Self::File> {
        let full = self.root.join(path);
        if let Some(dir) = full.parent() {
            std::fs::create_dir_all(dir).map_err(|e| Error::from(e).in_file(dir))?;
        }
        // `create_new`: a name taken already (another writer given the same unique id) is an
        // error, never an overwrite.
        let file = std::fs::File::options()
            .write(true)
            .create_new(true)
            .open(&full)
            .map_err(|e| Error::from(e).in_file(&full))?;
        Ok(BufWriter::new(file))
    }

    fn finish(&mut self, path: &str, file: Self::File) -> Result<()> {
        file.into_inner()
            .map_err(|e| Error::from(e.into_error()).in_file(self.root.join(path)))?;
        Ok(())
    }
}

/// Writes a partitioned dataset of Parquet files through a [`FileSink`] (see the module
/// docs).
pub struct DatasetWriter<F: FileSink> {
    sink: F,
    core: Core<F::File, ()>,
    #[cfg(feature = "arrow")]
    arrow: Option<ArrowInput>,
}

/// How Arrow batches become parq's arrays.
#[cfg(feature = "arrow")]
#[derive(Debug, Clone)]
pub(crate) struct ArrowInput {
    pub(crate) schema: arrow_schema::SchemaRef,
    /// The input's fields (partition columns too), as `from_arrow_array` takes them.
    pub(crate) fields: Vec<crate::field::Field>,
}

#[cfg(feature = "arrow")]
impl ArrowInput {
    /// The layout of a dataset of batches of `schema`: the files get the Arrow writer's
    /// schema (with `ARROW:schema`) of `schema` without the partition columns.
    pub(crate) fn layout(
        schema: arrow_schema::SchemaRef,
        options: &DatasetOptions,
    ) -> Result<(ArrowInput, Layout)> {
        let fields = crate::arrow::from_arrow_schema(&schema)?;
        let elements = crate::write::schema_elements(&fields)?;
        let kept: Vec<arrow_schema::FieldRef> = schema
            .fields()
            .iter()
            .filter(|f| !options.partition_by.iter().any(|p| p == f.name()))
            .cloned()
            .collect();
        let file = arrow_schema::Schema::new_with_metadata(kept, schema.metadata().clone());
        let (_, file_elements, writer) = crate::arrow::file_schema(&file, options.writer.clone())?;
        let options = DatasetOptions {
            writer,
            ..options.clone()
        };
        let layout = Layout::new(&elements, Some(file_elements), &options)?;
        Ok((ArrowInput { schema, fields }, layout))
    }

    /// `batch` as one array per field.
    /// The arrays of `batch` for the writer whose Arrow input is `input` (`None`: a writer
    /// made for parq's arrays, which refuses batches).
    pub(crate) fn arrays_of(
        input: Option<&ArrowInput>,
        batch: &arrow_array::RecordBatch,
    ) -> Result<Vec<Array>> {
        input
            .ok_or_else(|| {
                Error::InvalidArgument("a RecordBatch for a writer of parq's arrays".into())
            })?
            .arrays(batch)
    }

    pub(crate) fn arrays(&self, batch: &arrow_array::RecordBatch) -> Result<Vec<Array>> {
        if batch.schema().fields() != self.schema.fields() {
            return Err(Error::InvalidArgument(format!(
                "a batch of schema {} for a dataset of {}",
                batch.schema(),
                self.schema
            )));
        }
        batch
            .columns()
            .iter()
            .zip(&self.fields)
            .map(|(c, f)| crate::arrow::from_arrow_array(c.as_ref(), f))
            .collect()
    }
}

impl<F: FileSink> std::fmt::Debug for DatasetWriter<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetWriter")
            .field("core", &self.core)
            .finish()
    }
}

/// Turn flat columns into the arrays the writer takes.
pub(crate) fn columns_to_arrays(columns: &[Column]) -> Vec<Array> {
    columns.iter().cloned().map(Array::Primitive).collect()
}

impl<F: FileSink> DatasetWriter<F> {
    /// A writer of batches of `fields` (top-level fields of any depth; partition columns
    /// among them) into `sink`.
    pub fn new<I, T>(sink: F, fields: I, options: DatasetOptions) -> Result<Self>
    where
        I: IntoIterator<Item = T>,
        T: Into<crate::field::Field>,
    {
        let fields: Vec<crate::field::Field> = fields.into_iter().map(Into::into).collect();
        let elements = crate::write::schema_elements(&fields)?;
        Self::from_schema_elements(sink, &elements, options)
    }

    /// A writer of batches of the schema `elements` (root first, as a footer has them):
    /// the files keep every element but the partition columns' as it is.
    pub fn from_schema_elements(
        sink: F,
        elements: &[SchemaElement],
        options: DatasetOptions,
    ) -> Result<Self> {
        let layout = Layout::new(elements, None, &options)?;
        Ok(DatasetWriter {
            sink,
            core: Core::new(layout, options)?,
            #[cfg(feature = "arrow")]
            arrow: None,
        })
    }

    /// A writer of Arrow batches of `schema` (feature `arrow`); each file embeds its schema
    /// without the partition columns, as [`crate::arrow::ArrowWriter`] does.
    #[cfg(feature = "arrow")]
    pub fn try_new_arrow(
        sink: F,
        schema: arrow_schema::SchemaRef,
        options: DatasetOptions,
    ) -> Result<Self> {
        let (input, layout) = ArrowInput::layout(schema, &options)?;
        Ok(DatasetWriter {
            sink,
            core: Core::new(layout, options)?,
            arrow: Some(input),
        })
    }

    /// Write one Arrow batch (a writer made by [`Self::try_new_arrow`]).
    #[cfg(feature = "arrow")]
    pub fn write_record_batch(&mut self, batch: &arrow_array::RecordBatch) -> Result<()> {
        let arrays = ArrowInput::arrays_of(self.arrow.as_ref(), batch)?;
        self.write_arrays(&arrays)
    }

    /// Write one batch of flat columns, one per top-level field.
    pub fn write_batch(&mut self, columns: &[Column]) -> Result<()> {
        self.write_arrays(&columns_to_arrays(columns))
    }

    /// Write one batch of arrays, one per top-level field, all of one length.
    pub fn write_arrays(&mut self, arrays: &[Array]) -> Result<()> {
        for part in self.core.layout.split(arrays)? {
            self.write_part(&part)?;
        }
        Ok(())
    }

    fn write_part(&mut self, part: &Part) -> Result<()> {
        let len = part.arrays.first().map_or(0, Array::len);
        let mut offset = 0;
        while offset < len {
            if !self.core.is_open(&part.dir) {
                for file in self.core.evict() {
                    self.close(file)?;
                }
                let path = self.core.next_path(&part.dir);
                let file = self.sink.create(&path)?;
                self.core.open(part, path, file, ())?;
            }
            let (rows, full) = self.core.write(part, offset)?;
            offset += rows;
            if let Some(file) = full {
                self.close(file)?;
            }
        }
        Ok(())
    }

    fn close(&mut self, file: OpenFile<F::File, ()>) -> Result<()> {
        let closed = close_writer(file);
        let (meta, mut out, size) = closed.result?;
        out.flush()?;
        self.sink.finish(&closed.path, out)?;
        self.core.record(closed.path, closed.values, &meta, size);
        Ok(())
    }

    /// The files finished so far (rolled, or closed to open another).
    pub fn written(&self) -> &[WrittenFile] {
        self.core.written()
    }

    /// Finish every open file; returns every file written, in the order they were finished.
    pub fn finish(mut self) -> Result<Vec<WrittenFile>> {
        for file in self.core.take_open() {
            self.close(file)?;
        }
        Ok(self.core.into_written())
    }
}
