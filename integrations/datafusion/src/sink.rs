//! [`ParqSink`]: `COPY … TO` and `INSERT INTO` written by parq's writer, into any object store
//! through parq's multipart upload ([`parq::object_store::AsyncArrowWriter`]).
//!
//! DataFusion's own demultiplexer decides the files: one per output partition, more past
//! `execution.soft_max_rows_per_file`, and hive `key=value/` folders for `PARTITIONED BY`.
//! Each file is written by a task of its own, so files encode in parallel; a file's row
//! groups leave as upload parts while the next one is encoded.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::common::config::TableParquetOptions;
use datafusion::common::runtime::{JoinSet, SpawnedTask};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::file_format::write::demux::DemuxedStreamReceiver;
use datafusion::datasource::file_format::write::get_writer_schema;
use datafusion::datasource::physical_plan::{FileSink, FileSinkConfig};
use datafusion::datasource::sink::DataSink;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::{DisplayAs, DisplayFormatType};
use object_store::ObjectStore;
use parq::object_store::{AsyncArrowWriter, ObjectWriteOptions};
use parq::write::WriterOptions;

/// Writes the files of a `COPY` or `INSERT` with parq (see the [module docs](self)).
#[derive(Debug)]
pub struct ParqSink {
    config: FileSinkConfig,
    /// DataFusion's options, as given (a plan sent to Ballista's executors carries them).
    table_options: TableParquetOptions,
    /// The same as parq's, for the files' schema.
    options: WriterOptions,
    upload: ObjectWriteOptions,
    metrics: ExecutionPlanMetricsSet,
}

impl ParqSink {
    /// A sink for `config`, writing as `options` say (checked now: an option parq cannot
    /// honour is refused by name before anything is written).
    pub fn try_new(config: FileSinkConfig, options: TableParquetOptions) -> Result<Self> {
        let writer = crate::options::writer_options(&options, &get_writer_schema(&config))?;
        Ok(ParqSink {
            config,
            table_options: options,
            options: writer,
            upload: ObjectWriteOptions::default(),
            metrics: ExecutionPlanMetricsSet::new(),
        })
    }

    /// The sink with `upload` for its uploads (part size, parts in flight, timeout).
    pub fn with_upload_options(mut self, upload: ObjectWriteOptions) -> Self {
        self.upload = upload;
        self
    }

    /// DataFusion's options the sink was made with.
    pub fn table_options(&self) -> &TableParquetOptions {
        &self.table_options
    }

    /// parq's options the files are written with.
    pub fn writer_options(&self) -> &WriterOptions {
        &self.options
    }
}

impl DisplayAs for ParqSink {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match t {
            DisplayFormatType::Default | DisplayFormatType::Verbose => {
                write!(f, "ParqSink(url={})", self.config.original_url)
            }
            DisplayFormatType::TreeRender => write!(f, "format: parq"),
        }
    }
}

fn external(e: parq::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

#[async_trait]
impl FileSink for ParqSink {
    fn config(&self) -> &FileSinkConfig {
        &self.config
    }

    async fn spawn_writer_tasks_and_join(
        &self,
        _context: &Arc<TaskContext>,
        demux_task: SpawnedTask<Result<()>>,
        mut file_stream_rx: DemuxedStreamReceiver,
        object_store: Arc<dyn ObjectStore>,
    ) -> Result<u64> {
        let rows_written = MetricBuilder::new(&self.metrics).global_counter("rows_written");
        let bytes_written = MetricBuilder::new(&self.metrics).global_counter("bytes_written");
        let files_written = MetricBuilder::new(&self.metrics).global_counter("files_written");
        let schema = get_writer_schema(&self.config);
        let mut writers: JoinSet<Result<(u64, u64)>> = JoinSet::new();
        while let Some((path, mut batches)) = file_stream_rx.recv().await {
            let mut writer = AsyncArrowWriter::try_new(
                Arc::clone(&object_store),
                path,
                Arc::clone(&schema),
                self.options.clone(),
                self.upload.clone(),
            )
            .map_err(external)?;
            writers.spawn(async move {
                while let Some(batch) = batches.recv().await {
                    // The demultiplexer's batches carry the table's field metadata and
                    // nullability; the file is written with the sink's schema.
                    let batch = batch.with_schema(Arc::clone(writer.schema()))?;
                    writer.write(&batch).await.map_err(external)?;
                }
                let (metadata, object) = writer.finish().await.map_err(external)?;
                Ok((metadata.num_rows as u64, object.size))
            });
        }
        let mut rows = 0;
        while let Some(done) = writers.join_next().await {
            let (r, bytes) = done.map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
            rows += r;
            rows_written.add(r as usize);
            bytes_written.add(bytes as usize);
            files_written.add(1);
        }
        demux_task
            .join_unwind()
            .await
            .map_err(|e| DataFusionError::ExecutionJoin(Box::new(e)))??;
        Ok(rows)
    }
}

#[async_trait]
impl DataSink for ParqSink {
    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn schema(&self) -> &SchemaRef {
        self.config.output_schema()
    }

    async fn write_all(
        &self,
        data: SendableRecordBatchStream,
        context: &Arc<TaskContext>,
    ) -> Result<u64> {
        FileSink::write_all(self, data, context).await
    }
}
