//! Opening one file (or one row-group range of it) of a scan: fetch, prune, decode.
//!
//! 1. The footer, by one suffix GET ([`crate::fetch`]).
//! 2. The row groups whose first column chunk starts in the file range DataFusion assigned
//!    to this partition (so the ranges of one file split its row groups between partitions).
//! 3. With a predicate: its page indexes are fetched and parq prunes row groups (statistics,
//!    page index, bloom filters, dictionaries) and pages, giving a row selection.
//! 4. The projected column chunks of the row groups left, by one `get_ranges`.
//! 5. parq decodes those bytes on a blocking thread into batches of the table's types.

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::cast;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::snapshot_physical_expr;
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder};
use futures::StreamExt;
use object_store::ObjectStore;
use parq::metadata::FileMetaData;
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions, RowSelection};

use crate::fetch::{FetchCounts, FetchedFile, FooterCache};

/// Per-partition counters of the scan, shown by `EXPLAIN ANALYZE`.
#[derive(Clone)]
pub(crate) struct ScanMetrics {
    /// Row groups in the partition's ranges of its files.
    pub row_groups: Count,
    /// Of those, row groups the predicate pruned (not fetched, not decoded).
    pub row_groups_pruned: Count,
    /// Pages of the predicate's columns with no selected row.
    pub pages_pruned: Count,
    /// Rows the predicate left to decode.
    pub rows_selected: Count,
    /// GET requests.
    pub requests: Count,
    /// Bytes fetched.
    pub bytes_fetched: Count,
    /// Reads that were not prefetched (fetched on demand).
    pub on_demand_fetches: Count,
}

impl ScanMetrics {
    pub(crate) fn new(metrics: &ExecutionPlanMetricsSet, partition: usize) -> Self {
        let c = |name: &'static str| MetricBuilder::new(metrics).counter(name, partition);
        ScanMetrics {
            row_groups: c("row_groups"),
            row_groups_pruned: c("row_groups_pruned"),
            pages_pruned: c("pages_pruned"),
            rows_selected: c("rows_selected"),
            requests: c("requests"),
            bytes_fetched: c("bytes_fetched"),
            on_demand_fetches: c("on_demand_fetches"),
        }
    }

    fn add_fetches(&self, counts: &FetchCounts) {
        self.requests
            .add(counts.requests.load(Ordering::Relaxed) as usize);
        self.bytes_fetched
            .add(counts.bytes.load(Ordering::Relaxed) as usize);
        self.on_demand_fetches
            .add(counts.on_demand.load(Ordering::Relaxed) as usize);
    }
}

/// Opens the files of one partition.
pub(crate) struct ParqOpener {
    pub store: Arc<dyn ObjectStore>,
    /// The table's file columns (without partition columns).
    pub file_schema: SchemaRef,
    /// Indices into `file_schema` to produce, in this order.
    pub projection: Vec<usize>,
    pub predicate: Option<Arc<dyn PhysicalExpr>>,
    pub batch_size: usize,
    pub limit: Option<usize>,
    pub metrics: ScanMetrics,
    pub footers: Arc<FooterCache>,
}

fn parq_err(e: parq::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

impl FileOpener for ParqOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let store = Arc::clone(&self.store);
        let output = Arc::new(self.file_schema.project(&self.projection)?);
        let predicate = self.predicate.clone();
        let file_schema = Arc::clone(&self.file_schema);
        let (batch_size, limit, metrics) = (self.batch_size, self.limit, self.metrics.clone());
        let footers = Arc::clone(&self.footers);
        Ok(Box::pin(async move {
            let counts = Arc::new(FetchCounts::default());
            let source = FetchedFile::open(store, &file.object_meta, Arc::clone(&counts), &footers)
                .await
                .map_err(parq_err)?;
            let plan = ScanPlan::new(
                &source,
                &output,
                file.range.as_ref().map(|r| r.start..r.end),
            )?;
            metrics.row_groups.add(plan.row_groups.len());
            // The predicate, with dynamic filters (join keys, top-k bounds) as they are now.
            let predicate = predicate
                .and_then(|p| snapshot_physical_expr(p).ok())
                .and_then(|p| crate::predicate::to_parq(&p, &file_schema));
            let (row_groups, selection) = match predicate {
                Some(expr) if !plan.row_groups.is_empty() => {
                    source
                        .fetch(&plan.page_index_ranges(&expr))
                        .await
                        .map_err(parq_err)?;
                    let (rgs, src) = (plan.row_groups.clone(), source.clone());
                    let pruned = tokio::task::spawn_blocking(move || {
                        let reader = open(src, Some(rgs), None, ByteArrayLayout::Offsets)?;
                        reader
                            .prune(&expr)
                            .map(|(sel, stats)| (sel, stats, reader.row_group_first_rows()))
                    })
                    .await
                    .map_err(|e| DataFusionError::External(Box::new(e)))?;
                    match pruned {
                        Ok((selection, stats, first_rows)) => {
                            metrics.row_groups_pruned.add(stats.row_groups_pruned);
                            metrics.pages_pruned.add(stats.pages_pruned);
                            let kept: Vec<usize> = plan
                                .row_groups
                                .iter()
                                .copied()
                                .filter(|&rg| {
                                    let first = first_rows[rg];
                                    let rows = plan.metadata.row_groups[rg].num_rows.max(0) as u64;
                                    selection.intersects(first..first + rows)
                                })
                                .collect();
                            (kept, Some(selection))
                        }
                        // A predicate parq cannot bind to this file (a column it lacks, a
                        // literal its type cannot hold): read without pruning.
                        Err(_) => (plan.row_groups.clone(), None),
                    }
                }
                _ => (plan.row_groups.clone(), None),
            };
            metrics.rows_selected.add(match &selection {
                Some(s) => s.row_count() as usize,
                None => row_groups
                    .iter()
                    .map(|&rg| plan.metadata.row_groups[rg].num_rows.max(0) as usize)
                    .sum(),
            });
            source
                .fetch(&plan.chunk_ranges(&row_groups))
                .await
                .map_err(parq_err)?;
            let stream = decode(
                source, plan, row_groups, selection, batch_size, limit, output,
            );
            let counted = stream.chain(futures::stream::once(async move {
                metrics.add_fetches(&counts);
                None
            }));
            Ok(counted.filter_map(futures::future::ready).boxed())
        }))
    }
}

/// Open parq over the fetched bytes.
fn open(
    source: FetchedFile,
    row_groups: Option<Vec<usize>>,
    selection: Option<RowSelection>,
    layout: ByteArrayLayout,
) -> parq::Result<ParquetReader<FetchedFile>> {
    ParquetReader::with_options(
        source,
        ReadOptions {
            row_groups,
            selection,
            byte_array_layout: layout,
            ..ReadOptions::default()
        },
    )
}

/// What one file's scan reads: its footer, the row groups of its range, and for each output
/// column the file's leaf columns and the type parq decodes it as.
struct ScanPlan {
    metadata: Arc<FileMetaData>,
    row_groups: Vec<usize>,
    /// Per output column: its name in the file and the type parq decodes to, or `None` when
    /// the file lacks it (it reads as nulls).
    columns: Vec<Option<(String, DataType)>>,
    /// Leaf column indices of the output columns.
    leaves: Vec<usize>,
    /// Leaf paths (dotted), to find the predicate's leaves.
    leaf_paths: Vec<String>,
    layout: ByteArrayLayout,
    file_len: u64,
}

impl ScanPlan {
    fn new(source: &FetchedFile, output: &Schema, range: Option<Range<i64>>) -> Result<Self> {
        let reader = ParquetReader::new(source.clone()).map_err(parq_err)?;
        let file_schema = reader.arrow_schema().map_err(parq_err)?;
        let metadata = Arc::new(reader.metadata().clone());
        let row_groups = metadata
            .row_groups
            .iter()
            .enumerate()
            .filter(|(_, rg)| match &range {
                None => true,
                Some(r) => {
                    let start = rg.columns.first().map_or(0, chunk_start) as i64;
                    r.start <= start && start < r.end
                }
            })
            .map(|(i, _)| i)
            .collect();
        let mut views = false;
        let columns: Vec<Option<(String, DataType)>> = output
            .fields()
            .iter()
            .map(|f| {
                let found = file_schema.field_with_name(f.name()).ok()?;
                let dt = match (found.data_type(), f.data_type()) {
                    (DataType::Utf8 | DataType::LargeUtf8, DataType::Utf8View) => {
                        DataType::Utf8View
                    }
                    (DataType::Binary | DataType::LargeBinary, DataType::BinaryView) => {
                        DataType::BinaryView
                    }
                    (dt, _) => dt.clone(),
                };
                views |= matches!(dt, DataType::Utf8View | DataType::BinaryView);
                Some((f.name().clone(), dt))
            })
            .collect();
        let leaf_paths: Vec<String> = reader
            .schema()
            .leaves
            .iter()
            .map(|l| l.path_string())
            .collect();
        let leaves = reader
            .schema()
            .leaves
            .iter()
            .enumerate()
            .filter(|(_, l)| {
                columns
                    .iter()
                    .flatten()
                    .any(|(name, _)| l.path.first() == Some(name))
            })
            .map(|(i, _)| i)
            .collect();
        Ok(ScanPlan {
            metadata,
            row_groups,
            columns,
            leaves,
            leaf_paths,
            file_len: parq::read::Source::len(source),
            layout: if views {
                ByteArrayLayout::Views
            } else {
                ByteArrayLayout::Offsets
            },
        })
    }

    /// Column and offset indexes of the predicate's leaf columns in the plan's row groups.
    fn page_index_ranges(&self, expr: &parq::predicate::Expr) -> Vec<Range<u64>> {
        let wanted: Vec<usize> = expr
            .columns()
            .iter()
            .filter_map(|c| self.leaf_paths.iter().position(|p| p == c))
            .collect();
        let mut out = Vec::new();
        for &rg in &self.row_groups {
            for &leaf in &wanted {
                let Some(c) = self.metadata.row_groups[rg].columns.get(leaf) else {
                    continue;
                };
                for (off, len) in [
                    (c.column_index_offset, c.column_index_length),
                    (c.offset_index_offset, c.offset_index_length),
                ] {
                    if let (Some(off), Some(len)) = (off, len) {
                        if off >= 0 && len > 0 {
                            out.push(off as u64..off as u64 + len as u64);
                        }
                    }
                }
            }
        }
        out
    }

    /// The output columns' chunks in `row_groups`, as parq reads them: with up to
    /// [`CHUNK_SLACK`] bytes past the declared end.
    fn chunk_ranges(&self, row_groups: &[usize]) -> Vec<Range<u64>> {
        let data_end = self.file_len.saturating_sub(8);
        let mut out = Vec::new();
        for &rg in row_groups {
            for &leaf in &self.leaves {
                if let Some(c) = self.metadata.row_groups[rg].columns.get(leaf) {
                    let start = chunk_start(c);
                    let len = c
                        .meta_data
                        .as_ref()
                        .map_or(0, |m| m.total_compressed_size.max(0) as u64);
                    out.push(start..start.saturating_add(len + CHUNK_SLACK).min(data_end));
                }
            }
        }
        out
    }
}

/// parq reads a column chunk with 100 bytes past its declared size, for old writers that left
/// the dictionary page header out of `total_compressed_size` (PARQUET-816).
const CHUNK_SLACK: u64 = 100;

/// Where a column chunk's pages start: its dictionary page, else its first data page.
fn chunk_start(c: &parq::metadata::ColumnChunk) -> u64 {
    let Some(m) = &c.meta_data else { return 0 };
    match m.dictionary_page_offset {
        Some(d) if d > 0 && d < m.data_page_offset => d as u64,
        _ => m.data_page_offset.max(0) as u64,
    }
}

/// Decode on a blocking thread; batches come back through a small channel, so decoding runs
/// at most two batches ahead of the consumer.
fn decode(
    source: FetchedFile,
    plan: ScanPlan,
    row_groups: Vec<usize>,
    selection: Option<RowSelection>,
    batch_size: usize,
    limit: Option<usize>,
    output: SchemaRef,
) -> futures::stream::BoxStream<'static, Option<Result<RecordBatch>>> {
    let (tx, rx) = tokio::sync::mpsc::channel::<Result<RecordBatch>>(2);
    tokio::task::spawn_blocking(move || {
        let result = (|| -> Result<()> {
            if row_groups.is_empty() {
                return Ok(());
            }
            let reader =
                open(source, Some(row_groups), selection, plan.layout).map_err(parq_err)?;
            let mut left = limit.unwrap_or(usize::MAX);
            let names: Vec<&str> = plan
                .columns
                .iter()
                .flatten()
                .map(|(n, _)| n.as_str())
                .collect();
            if names.is_empty() {
                // No file column is wanted (`COUNT(*)`, or only columns the file lacks):
                // only row counts.
                let mut rows = (reader.selected_rows() as usize).min(left);
                while rows > 0 {
                    let n = rows.min(batch_size);
                    rows -= n;
                    let batch = adapt(&output, &plan, Vec::new(), n)?;
                    if tx.blocking_send(Ok(batch)).is_err() {
                        break;
                    }
                }
                return Ok(());
            }
            let decoded = Arc::new(Schema::new(
                plan.columns
                    .iter()
                    .flatten()
                    .map(|(n, dt)| Field::new(n, dt.clone(), true))
                    .collect::<Vec<_>>(),
            ));
            for batch in reader.array_batches(&names, batch_size).map_err(parq_err)? {
                if left == 0 {
                    break;
                }
                let batch = batch.map_err(parq_err)?;
                let batch = parq::arrow::to_record_batch(&batch, &decoded).map_err(parq_err)?;
                let batch = if batch.num_rows() > left {
                    batch.slice(0, left)
                } else {
                    batch
                };
                left -= batch.num_rows();
                let rows = batch.num_rows();
                let out = adapt(&output, &plan, batch.columns().to_vec(), rows)?;
                if tx.blocking_send(Ok(out)).is_err() {
                    break;
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            let _ = tx.blocking_send(Err(e));
        }
    });
    futures::stream::unfold(rx, |mut rx| async move {
        let next = rx.recv().await?;
        Some((Some(next), rx))
    })
    .boxed()
}

/// The decoded columns (the file's, in output order) as a batch of the output schema: a
/// column the file lacks is nulls, a type that differs is cast (widened).
fn adapt(
    output: &SchemaRef,
    plan: &ScanPlan,
    decoded: Vec<ArrayRef>,
    rows: usize,
) -> Result<RecordBatch> {
    let mut decoded = decoded.into_iter();
    let columns = output
        .fields()
        .iter()
        .zip(&plan.columns)
        .map(|(f, c)| match c {
            None => Ok(new_null_array(f.data_type(), rows)),
            Some(_) => {
                let a = decoded.next().expect("one decoded column per file column");
                if a.data_type() == f.data_type() {
                    Ok(a)
                } else {
                    Ok(cast(&a, f.data_type())?)
                }
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(RecordBatch::try_new_with_options(
        Arc::clone(output),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(rows)),
    )?)
}
