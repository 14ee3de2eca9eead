//! Opening one file (or one row-group range of it) of a scan: footer, prune, decode.
//!
//! 1. The footer, through parq's [`ParqObjectReader`] and the format's [`FooterCache`] (one
//!    suffix GET, none when planning already read it).
//! 2. The row groups whose first column chunk starts in the file range DataFusion assigned
//!    to this partition (so the ranges of one file split its row groups between partitions).
//! 3. With a predicate: row-group statistics prune first (no I/O); the decoder prunes the
//!    row groups left by the predicate columns' page indexes, bloom filters and dictionary
//!    pages, which it fetches as it plans the data (one plan of the bytes, no blocking).
//! 4. parq's object reader streams the projected columns of the row groups left: a push
//!    decoder on the task that polls the scan, with the GETs of the next row groups in flight
//!    while one decodes, and of the pages pruning left only those it needs.
//! 5. The decoder filters exactly by the conjuncts of the predicate parq evaluates fast
//!    ([`fast_conjuncts`]) and, with `parq.row_predicates`, by the others over the file's own
//!    columns, evaluated by DataFusion as parq row predicates
//!    ([`crate::predicate::row_predicates`]), row group by row group: their columns first,
//!    then the other columns only for the rows that match (pages without one are not
//!    fetched). DataFusion's filter above (which still runs: filters are reported inexact)
//!    sees fewer rows.
//! 6. The batches are adapted to the table's types (missing columns as nulls, casts).
//!
//! Every GET goes through a [`CountingStore`], which feeds the `requests` and
//! `bytes_fetched` metrics.

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use datafusion::arrow::array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions};
use datafusion::arrow::compute::CastOptions;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema, SchemaRef};
use datafusion::common::nested_struct::cast_column;
use datafusion::common::{exec_datafusion_err, DataFusionError, Result};
use datafusion::datasource::listing::PartitionedFile;
use datafusion::datasource::physical_plan::{FileOpenFuture, FileOpener};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::{
    snapshot_generation, snapshot_physical_expr,
};
use datafusion::physical_plan::metrics::{Count, ExecutionPlanMetricsSet, MetricBuilder};
use futures::StreamExt;
use object_store::{ObjectMeta, ObjectStore};
use parq::arrow::RecordBatchConverter;
use parq::object_store::{FooterCache, ObjectReadOptions, ParqObjectReader, StreamStats};
use parq::predicate::{BoundPredicate, Expr};
use parq::read::push::{DynamicFilter, Footer, PushOptions};
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions};

use crate::counted_store::{CountingStore, FetchCounts};
use crate::store_source::StoreSource;

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
    /// Of those, rows the decoder's exact filter dropped (they did not match).
    pub rows_filtered: Count,
    /// GET requests.
    pub requests: Count,
    /// Bytes fetched.
    pub bytes_fetched: Count,
    /// Reads fetched on demand, outside the decoder's plan (see [`FetchCounts::on_demand`]).
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
            rows_filtered: c("rows_filtered"),
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
    /// The table's virtual columns (each row's position in its file), which the scan
    /// produces after the file's columns.
    pub virtual_columns: Fields,
    /// Indices into `file_schema` then `virtual_columns` to produce, in this order.
    pub projection: Vec<usize>,
    pub predicate: Option<Arc<dyn PhysicalExpr>>,
    pub batch_size: usize,
    pub limit: Option<usize>,
    /// Filter inside the decoder ([`crate::ParqConfig::row_filter`]).
    pub row_filter: bool,
    /// Filter by row predicates too ([`crate::ParqConfig::row_predicates`]).
    pub row_predicates: bool,
    /// Filter by hash joins' lookups too ([`crate::ParqSource::with_join_lookups`]).
    pub join_lookups: bool,
    pub metrics: ScanMetrics,
    pub footers: Arc<FooterCache>,
}

fn parq_err(e: parq::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// The footer of `meta`'s object: from `footers`, else fetched through `store` and kept.
pub(crate) async fn footer(
    store: Arc<dyn ObjectStore>,
    meta: &ObjectMeta,
    footers: &Arc<FooterCache>,
) -> Result<(ParqObjectReader, Footer)> {
    let mut reader = ParqObjectReader::new(store, meta.clone())
        .with_footer_cache(Arc::clone(footers))
        .with_options(
            ObjectReadOptions::default()
                // Decode on the task that polls the stream, as DataFusion's own reader does: on
                // the blocking pool each step was a thread round trip (see BENCHMARKS.md).
                .with_decode_on_blocking_pool(false),
        );
    let footer = reader.footer().await.map_err(parq_err)?;
    Ok((reader, footer))
}

/// A reader of `footer`'s file whose reads (none for schema and metadata) go to `source`.
pub(crate) fn metadata_reader(
    source: StoreSource,
    footer: &Footer,
    options: ReadOptions,
) -> Result<ParquetReader<StoreSource>> {
    ParquetReader::from_footer(source, footer.clone(), options).map_err(parq_err)
}

/// A virtual column: what a scan produces of each row that no file stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Virtual {
    /// Its position in the file (DataFusion's `file_row_index()`).
    RowNumber,
    /// The index of its row group.
    RowGroup,
}

impl Virtual {
    /// The virtual column `field` is, by its extension type (as DataFusion's Parquet source
    /// names them).
    fn of(field: &Field) -> Result<Self> {
        use arrow_schema::extension::ExtensionType;
        use datafusion::parquet::arrow::{RowGroupIndex, RowNumber};
        match field.extension_type_name() {
            Some(RowNumber::NAME) => Ok(Virtual::RowNumber),
            Some(RowGroupIndex::NAME) => Ok(Virtual::RowGroup),
            other => Err(DataFusionError::NotImplemented(format!(
                "parq does not produce the virtual column {} (extension type {other:?})",
                field.name()
            ))),
        }
    }
}

/// The names parq's decoder gives the virtual columns it appends.
const ROW_NUMBER: &str = "__parq_row_number";
const ROW_GROUP: &str = "__parq_row_group";

impl ParqOpener {
    /// The schema of the batches the scan produces (the projected file columns and virtual
    /// columns, in projection order), and where its virtual columns are.
    fn output(&self) -> Result<(SchemaRef, Vec<(usize, Virtual)>)> {
        let files = self.file_schema.fields().len();
        if self.projection.iter().all(|&i| i < files) {
            return Ok((
                Arc::new(self.file_schema.project(&self.projection)?),
                Vec::new(),
            ));
        }
        let mut fields = Vec::with_capacity(self.projection.len());
        let mut virtuals = Vec::new();
        for (at, &i) in self.projection.iter().enumerate() {
            if i < files {
                fields.push(self.file_schema.field(i).clone());
                continue;
            }
            let field = self.virtual_columns.get(i - files).ok_or_else(|| {
                exec_datafusion_err!("column {i} of a table with {files} file columns")
            })?;
            virtuals.push((at, Virtual::of(field)?));
            fields.push(field.as_ref().clone());
        }
        let schema = Schema::new_with_metadata(fields, self.file_schema.metadata().clone());
        Ok((Arc::new(schema), virtuals))
    }
}

impl FileOpener for ParqOpener {
    fn open(&self, file: PartitionedFile) -> Result<FileOpenFuture> {
        let counts = Arc::new(FetchCounts::default());
        let store: Arc<dyn ObjectStore> = Arc::new(CountingStore::new(
            Arc::clone(&self.store),
            Arc::clone(&counts),
        ));
        let (output, virtuals) = self.output()?;
        let predicate = self.predicate.clone();
        let file_schema = Arc::clone(&self.file_schema);
        let (batch_size, limit, metrics) = (self.batch_size, self.limit, self.metrics.clone());
        let (filters, predicates) = (self.row_filter, self.row_predicates);
        let join_lookups = self.join_lookups;
        let footers = Arc::clone(&self.footers);
        Ok(Box::pin(async move {
            let meta = &file.object_meta;
            let (reader, footer) = footer(Arc::clone(&store), meta, &footers).await?;
            let source = StoreSource::new(
                Arc::clone(&store),
                meta.location.clone(),
                meta.size,
                Arc::clone(&counts),
            );
            let plan = ScanPlan::new(
                &metadata_reader(source.clone(), &footer, ReadOptions::default())?,
                footer.clone(),
                &output,
                virtuals,
                file.range.as_ref().map(|r| r.start..r.end),
            )?;
            metrics.row_groups.add(plan.row_groups.len());
            // A predicate with dynamic filters (join keys, top-k bounds) is followed as they
            // tighten (see `decode`); pruning takes them as they are now.
            // Virtual columns need an exact filter, one that says which rows it kept: the
            // dynamic filters are then taken as they are now (DataFusion's filters above still
            // follow them).
            let dynamic = predicate
                .as_ref()
                .filter(|_| filters && plan.virtuals.is_empty())
                .map(|p| (Arc::clone(p), snapshot_generation(p)))
                .filter(|(_, generation)| *generation != 0);
            // The conjuncts parq cannot translate, fixed for the scan (dynamic ones stay out).
            let statics = match &predicate {
                Some(p) if filters && predicates => {
                    crate::predicate::row_predicates(p, &file_schema, plan.footer.schema())
                }
                _ => Vec::new(),
            };
            let lookups = match &dynamic {
                Some((p, _)) if join_lookups => {
                    crate::predicate::dynamic_row_predicates(p, &file_schema, plan.footer.schema())
                }
                _ => Vec::new(),
            };
            let predicate = predicate
                .and_then(|p| snapshot_physical_expr(p).ok())
                .and_then(|p| crate::predicate::to_parq(&p, &file_schema));
            let row_filter = filters
                .then(|| {
                    let rows = [&statics[..], &lookups[..]].concat();
                    row_filter(predicate.as_ref(), plan.footer.schema(), &rows)
                })
                .flatten();
            let dynamic = dynamic.map(|(expr, generation)| FollowedFilter {
                expr,
                generation,
                file_schema: Arc::clone(&file_schema),
                statics,
                join_lookups,
                filter: DynamicFilter::new(row_filter.clone()),
            });
            // Row-group statistics prune here, with no I/O; the decoder prunes the row groups
            // left by the predicate's page indexes, bloom filters and dictionary pages,
            // fetching them with the data.
            // A predicate parq cannot bind to this file (a column it lacks, a literal its
            // type cannot hold) prunes nothing.
            let (row_groups, pruning) =
                match predicate.and_then(|e| Some((by_statistics(&footer, &plan, &e)?, e))) {
                    Some((kept, expr)) => {
                        metrics
                            .row_groups_pruned
                            .add(plan.row_groups.len() - kept.len());
                        (kept, Some(expr))
                    }
                    None => (plan.row_groups.clone(), None),
                };
            let whole_rows: u64 = row_groups
                .iter()
                .map(|&rg| plan.footer.metadata().row_groups[rg].num_rows.max(0) as u64)
                .sum();
            let scan = Scan {
                row_groups,
                whole_rows,
                batch_size,
                limit,
                output,
                pruning,
                row_filter,
                dynamic,
            };
            let produced = Arc::new(std::sync::atomic::AtomicU64::new(0));
            let (stream, stats) = decode(reader, plan, scan, Arc::clone(&produced))?;
            // Counted when the stream is dropped, also before its end (a limit above).
            let done = Counted {
                metrics,
                counts,
                produced,
                stats,
                limited: limit.is_some(),
            };
            Ok(stream
                .map(move |batch| {
                    let _ = &done;
                    batch
                })
                .boxed())
        }))
    }
}

/// What one file's scan adds to the metrics when its stream is dropped.
struct Counted {
    metrics: ScanMetrics,
    counts: Arc<FetchCounts>,
    /// Rows the stream returned, of the selected ones.
    produced: Arc<std::sync::atomic::AtomicU64>,
    stats: ScanStats,
    /// A limit cut the rows: those not returned were not all filtered.
    limited: bool,
}

/// What a file's decoding pruned and kept.
enum ScanStats {
    /// Nothing pruned by the decoder: these rows are selected.
    Whole(u64),
    /// The decoder's counts, over row groups of these many rows: those it never pruned
    /// (planned before a dynamic filter had a version) are counted as selected.
    Decoder(StreamStats, u64),
}

impl Drop for Counted {
    fn drop(&mut self) {
        self.metrics.add_fetches(&self.counts);
        let selected = match &self.stats {
            ScanStats::Whole(rows) => *rows,
            ScanStats::Decoder(stats, rows) => {
                let stats = stats.get();
                self.metrics.row_groups_pruned.add(stats.row_groups_pruned);
                self.metrics.pages_pruned.add(stats.pages_pruned);
                let pruned = stats.rows.saturating_sub(stats.rows_selected);
                rows.saturating_sub(pruned)
            }
        };
        self.metrics.rows_selected.add(selected as usize);
        if !self.limited {
            let out = self.produced.load(Ordering::Relaxed);
            self.metrics
                .rows_filtered
                .add(selected.saturating_sub(out) as usize);
        }
    }
}

/// The row groups of `plan` that row-group statistics do not rule out for `expr`; `None`
/// when parq cannot bind `expr` to this file.
fn by_statistics(
    footer: &Footer,
    plan: &ScanPlan,
    expr: &parq::predicate::Expr,
) -> Option<Vec<usize>> {
    let mut keep = vec![false; footer.metadata().row_groups.len()];
    for rg in expr
        .row_groups_by_statistics(footer.metadata(), footer.schema())
        .ok()?
    {
        keep[rg] = true;
    }
    Some(
        plan.row_groups
            .iter()
            .copied()
            .filter(|&rg| keep[rg])
            .collect(),
    )
}

/// What one file's scan reads: its footer, the row groups of its range, and for each output
/// column the file's leaf columns and the type parq decodes it as.
struct ScanPlan {
    footer: Footer,
    row_groups: Vec<usize>,
    /// Per output column: its name in the file and the type parq decodes to, or `None` when
    /// the file lacks it (it reads as nulls) or it is virtual.
    columns: Vec<Option<(String, DataType)>>,
    /// The output columns that are virtual: their position, and which.
    virtuals: Vec<(usize, Virtual)>,
    layout: ByteArrayLayout,
}

impl ScanPlan {
    fn new(
        reader: &ParquetReader<StoreSource>,
        footer: Footer,
        output: &Schema,
        virtuals: Vec<(usize, Virtual)>,
        range: Option<Range<i64>>,
    ) -> Result<Self> {
        let file_schema = reader.arrow_schema().map_err(parq_err)?;
        let row_groups = footer
            .metadata()
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
            .enumerate()
            .map(|(at, f)| {
                if virtuals.iter().any(|&(v, _)| v == at) {
                    return None;
                }
                let found = file_schema.field_with_name(f.name()).ok()?;
                let dt = match (found.data_type(), f.data_type()) {
                    (DataType::Utf8 | DataType::LargeUtf8, DataType::Utf8View) => {
                        DataType::Utf8View
                    }
                    (DataType::Binary | DataType::LargeBinary, DataType::BinaryView) => {
                        DataType::BinaryView
                    }
                    // `binary_as_string`: decoded as the strings asked for (UTF-8 checked).
                    (
                        DataType::Binary | DataType::LargeBinary | DataType::BinaryView,
                        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View,
                    ) => f.data_type().clone(),
                    // `coerce_int96`: decoded straight into the unit asked for, so that dates
                    // past nanoseconds' range (2262) keep their value.
                    (DataType::Timestamp(..), DataType::Timestamp(..))
                        if crate::format::is_top_level_int96(reader.schema(), f.name()) =>
                    {
                        f.data_type().clone()
                    }
                    (dt, _) => dt.clone(),
                };
                views |= matches!(dt, DataType::Utf8View | DataType::BinaryView);
                Some((f.name().clone(), dt))
            })
            .collect();
        Ok(ScanPlan {
            footer,
            row_groups,
            columns,
            virtuals,
            layout: if views {
                ByteArrayLayout::Views
            } else {
                ByteArrayLayout::Offsets
            },
        })
    }

    /// The projected file columns' names, in output order.
    fn names(&self) -> Vec<String> {
        self.columns
            .iter()
            .flatten()
            .map(|(n, _)| n.clone())
            .collect()
    }
}

/// Where a column chunk's pages start: its dictionary page, else its first data page.
fn chunk_start(c: &parq::metadata::ColumnChunk) -> u64 {
    let Some(m) = &c.meta_data else { return 0 };
    match m.dictionary_page_offset {
        Some(d) if d > 0 && d < m.data_page_offset => d as u64,
        _ => m.data_page_offset.max(0) as u64,
    }
}

/// What [`decode`] reads of a file, beside its plan.
struct Scan {
    row_groups: Vec<usize>,
    /// The rows of `row_groups`.
    whole_rows: u64,
    batch_size: usize,
    limit: Option<usize>,
    output: SchemaRef,
    /// The predicate the decoder prunes by (page indexes, bloom filters, dictionaries).
    pruning: Option<Expr>,
    /// The decoder's exact filter.
    row_filter: Option<Expr>,
    /// The same, followed as DataFusion's dynamic filters tighten.
    dynamic: Option<FollowedFilter>,
}

/// The batches of the scan, up to `limit` rows: row counts only when no file column is
/// wanted, else parq's object reader stream (see the module doc) as batches of `output`,
/// filtered in the decoder when there is a row filter. Rows out are added to `produced`;
/// the stats say what the decoder pruned.
fn decode(
    reader: ParqObjectReader,
    plan: ScanPlan,
    scan: Scan,
    produced: Arc<std::sync::atomic::AtomicU64>,
) -> Result<(
    futures::stream::BoxStream<'static, Result<RecordBatch>>,
    ScanStats,
)> {
    let Scan {
        row_groups,
        whole_rows,
        batch_size,
        limit,
        output,
        pruning,
        row_filter,
        dynamic,
    } = scan;
    let limit = limit.unwrap_or(usize::MAX);
    if row_groups.is_empty() || limit == 0 {
        return Ok((futures::stream::empty().boxed(), ScanStats::Whole(0)));
    }
    let names = plan.names();
    let has = |kind| plan.virtuals.iter().any(|&(_, v)| v == kind);
    let (row_numbers, row_groups_column) = (has(Virtual::RowNumber), has(Virtual::RowGroup));
    let unfiltered = pruning.is_none() && row_filter.is_none() && dynamic.is_none();
    if names.is_empty() && unfiltered && plan.virtuals.is_empty() {
        // No file column is wanted (`COUNT(*)`, or only columns the file lacks): only row
        // counts, and no request.
        let rows = (whole_rows as usize).min(limit);
        let sizes =
            (0..rows.div_ceil(batch_size)).map(move |i| batch_size.min(rows - i * batch_size));
        let batches: Vec<Result<RecordBatch>> = sizes
            .map(|n| adapt(&output, &plan, Vec::new(), n))
            .collect();
        let counted = futures::stream::iter(batches).inspect(move |b| {
            if let Ok(b) = b {
                produced.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
            }
        });
        return Ok((counted.boxed(), ScanStats::Whole(whole_rows)));
    }
    let decoded = Arc::new(Schema::new(
        plan.columns
            .iter()
            .flatten()
            .map(|(n, dt)| Field::new(n, dt.clone(), true))
            .collect::<Vec<_>>(),
    ));
    let mut options = PushOptions::default()
        .with_read(
            ReadOptions::default()
                .with_row_groups(Some(row_groups))
                .with_byte_array_layout(plan.layout),
        )
        .with_projection(Some(names.into_iter().map(Into::into).collect()))
        .with_batch_size(batch_size)
        .with_predicate(pruning)
        // Without a filter the limit narrows what is fetched to the pages of its rows.
        .with_limit((limit != usize::MAX).then_some(limit as u64));
    options = match &dynamic {
        Some(d) => options.with_dynamic_filter(Some(d.filter.clone())),
        None => options.with_filter(row_filter),
    }
    // DataFusion filters again above the scan: where parq's filter keeps nearly every row,
    // it stops rather than copy them all; unless the batches must say which rows they are.
    .with_filter_exact(!plan.virtuals.is_empty());
    if row_numbers {
        options = options.with_row_number_column(ROW_NUMBER);
    }
    if row_groups_column {
        options = options.with_row_group_column(ROW_GROUP);
    }
    // Asks the decoders for the layouts the decoded types take as they are: Dictionary
    // columns as keys (not values hashed back into a dictionary every batch), Utf8 and
    // Binary with i32 offsets.
    let converter =
        RecordBatchConverter::for_push_as(&plan.footer, &mut options, decoded).map_err(parq_err)?;
    let decoder =
        parq::read::push::PushDecoder::try_new(plan.footer.clone(), options).map_err(parq_err)?;
    // The stream ends at the limit, before decoding more; dropping the object reader's
    // stream aborts the GETs still in flight.
    let plan = Arc::new(plan);
    let (batches, stats) = reader.stream_with_stats(decoder);
    let stats = if unfiltered {
        ScanStats::Whole(whole_rows)
    } else {
        ScanStats::Decoder(stats, whole_rows)
    };
    let state = (batches, limit, converter, dynamic);
    let limited = futures::stream::unfold(state, move |state| {
        let (mut batches, left, mut converter, mut dynamic) = state;
        let (plan, output) = (Arc::clone(&plan), Arc::clone(&output));
        let produced = Arc::clone(&produced);
        async move {
            if left == 0 {
                return None;
            }
            if let Some(d) = dynamic.as_mut() {
                d.follow(&plan);
            }
            let next = batches.next().await?.map_err(parq_err);
            let out = next.and_then(|batch| {
                let batch = converter.convert(&batch).map_err(parq_err)?;
                let rows = batch.num_rows().min(left);
                adapt(
                    &output,
                    &plan,
                    batch.slice(0, rows).columns().to_vec(),
                    rows,
                )
            });
            let left = match &out {
                Ok(b) => {
                    produced.fetch_add(b.num_rows() as u64, Ordering::Relaxed);
                    left - b.num_rows()
                }
                Err(_) => 0,
            };
            Some((out, (batches, left, converter, dynamic)))
        }
    });
    Ok((limited.boxed(), stats))
}

/// A scan predicate holding DataFusion dynamic filters, and the decoder's filter that
/// follows it.
struct FollowedFilter {
    expr: Arc<dyn PhysicalExpr>,
    /// `expr`'s generation the decoder's filter was made from.
    generation: u64,
    file_schema: SchemaRef,
    /// The row predicates of the predicate's fixed conjuncts (see [`row_filter`]).
    statics: Vec<Expr>,
    /// Filter by the dynamic filters' lookups too, as they are at each version
    /// ([`crate::predicate::dynamic_row_predicates`]).
    join_lookups: bool,
    filter: DynamicFilter,
}

impl FollowedFilter {
    /// Give the decoder the predicate as it is now, if it changed: the row groups it has not
    /// started are pruned and filtered by it.
    fn follow(&mut self, plan: &ScanPlan) {
        let generation = snapshot_generation(&self.expr);
        if generation == self.generation {
            return;
        }
        self.generation = generation;
        let translated = snapshot_physical_expr(Arc::clone(&self.expr))
            .ok()
            .and_then(|p| crate::predicate::to_parq(&p, &self.file_schema));
        let mut rows = self.statics.clone();
        if self.join_lookups {
            rows.extend(crate::predicate::dynamic_row_predicates(
                &self.expr,
                &self.file_schema,
                plan.footer.schema(),
            ));
        }
        let now = row_filter(translated.as_ref(), plan.footer.schema(), &rows);
        // A predicate that no longer translates filters nothing more: the last one stays,
        // as it still holds.
        if now.is_some() {
            self.filter.set(now);
        }
    }
}

/// The decoder's filter: of the scan's predicate as parq translated it now (its dynamic
/// filters' versions included), the conjuncts parq evaluates fast ([`fast_conjuncts`]);
/// and `statics`, the fixed conjuncts it cannot translate as row predicates DataFusion
/// evaluates ([`crate::predicate::row_predicates`]; dynamic ones only with
/// [`crate::ParqSource::with_join_lookups`]: a hash join's lookup costs the scan what it
/// costs the join, and pays only by the other columns' decoding it saves).
fn row_filter(
    translated: Option<&Expr>,
    schema: &parq::schema::SchemaDescriptor,
    statics: &[Expr],
) -> Option<Expr> {
    let fast = translated.and_then(|e| fast_conjuncts(e, schema));
    fast.into_iter()
        .chain(statics.iter().cloned())
        .reduce(Expr::and)
}

/// Of `expr`, the conjuncts parq evaluates fast (comparisons of numbers and strings, `IN`
/// lists of integers and strings, null tests: see [`BoundPredicate::vectorised`]), as one
/// expression; `None` when none is or `expr` does not bind to `schema`. What it keeps is
/// implied by `expr`, so DataFusion's filter above stays exact.
///
/// Conjuncts on strings are kept beside those on numbers: the decoder evaluates them in
/// stages ordered by what each costs and drops, a string column written with a dictionary
/// is tested once per dictionary value, and a later stage reads only the rows the earlier
/// ones kept (TPC-H Q19's `l_shipinstruct = 'DELIVER IN PERSON'` drops far more than its
/// ranges of `l_quantity`).
fn fast_conjuncts(expr: &Expr, schema: &parq::schema::SchemaDescriptor) -> Option<Expr> {
    fn conjuncts<'a>(e: &'a Expr, out: &mut Vec<&'a Expr>) {
        match e {
            Expr::And(a, b) => {
                conjuncts(a, out);
                conjuncts(b, out);
            }
            e => out.push(e),
        }
    }
    let mut all = Vec::new();
    conjuncts(expr, &mut all);
    all.into_iter()
        .filter(|c| {
            BoundPredicate::bind(c, schema)
                .ok()
                .and_then(|b| b.vectorised())
                .is_some_and(|v| !v.leaves().is_empty())
        })
        .cloned()
        .reduce(Expr::and)
}

/// The decoded columns (the file's, in output order) as a batch of the output schema: a
/// column the file lacks is nulls, a type that differs is cast (widened; a struct field the
/// file lacks is nulls, one the output lacks is dropped).
fn adapt(
    output: &SchemaRef,
    plan: &ScanPlan,
    decoded: Vec<ArrayRef>,
    rows: usize,
) -> Result<RecordBatch> {
    let files = plan.columns.iter().flatten().count();
    let (file_columns, virtual_columns) = decoded.split_at(files.min(decoded.len()));
    let mut decoded = file_columns.iter().cloned();
    let columns = output
        .fields()
        .iter()
        .zip(&plan.columns)
        .enumerate()
        .map(|(at, (f, c))| match c {
            None => match plan.virtuals.iter().find(|&&(v, _)| v == at) {
                // The decoder appends the row numbers, then the row groups.
                Some(&(_, kind)) => {
                    let i = usize::from(
                        kind == Virtual::RowGroup
                            && plan.virtuals.iter().any(|&(_, v)| v == Virtual::RowNumber),
                    );
                    let a = virtual_columns
                        .get(i)
                        .ok_or_else(|| exec_datafusion_err!("no {kind:?} column decoded"))?;
                    Ok(cast_column(a, f.data_type(), &CastOptions::default())?)
                }
                None => Ok(new_null_array(f.data_type(), rows)),
            },
            Some(_) => {
                let a = decoded.next().expect("one decoded column per file column");
                if a.data_type() == f.data_type() {
                    Ok(a)
                } else {
                    // DataFusion's cast, which matches struct fields by name (nulls for
                    // those the file lacks) at any depth, as schema evolution needs.
                    cast_column(&a, f.data_type(), &CastOptions::default()).map_err(|e| {
                        exec_datafusion_err!(
                            "Cannot cast column '{}' from {} to {}: {e}",
                            f.name(),
                            a.data_type(),
                            f.data_type()
                        )
                    })
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
