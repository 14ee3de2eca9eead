//! [`ParqSource`]: the [`FileSource`] of a scan read by parq.

use std::fmt;
use std::sync::Arc;

use crate::opener::{ParqOpener, ScanMetrics};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::Result;
use datafusion::datasource::physical_plan::{FileOpener, FileScanConfig, FileSource};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::physical_expr::{conjunction, PhysicalExpr};
use datafusion::physical_plan::filter_pushdown::{FilterPushdownPropagation, PushedDown};
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion::physical_plan::projection::ProjectionExprs;
use datafusion::physical_plan::DisplayFormatType;
use object_store::ObjectStore;
use parq::object_store::FooterCache;

/// Reads Parquet files with parq: projection, a pruning predicate, limit, and row-group
/// ranges of files for parallel partitions (DataFusion's byte ranges, each row group going to
/// the range its first column chunk starts in).
///
/// Filters are kept as a pruning predicate (see [`crate::predicate`]) and reported as not
/// pushed down, so DataFusion still filters the rows the scan returns.
#[derive(Clone)]
pub struct ParqSource {
    table_schema: TableSchema,
    projection: SplitProjection,
    predicate: Option<Arc<dyn PhysicalExpr>>,
    batch_size: Option<usize>,
    /// Filter inside parq's decoder (see [`crate::ParqConfig::row_filter`]).
    row_filter: bool,
    /// Filter by row predicates too (see [`crate::ParqConfig::row_predicates`]).
    row_predicates: bool,
    metrics: ExecutionPlanMetricsSet,
    footers: Arc<FooterCache>,
}

impl ParqSource {
    /// A source over `table_schema` with every column projected and no predicate.
    pub fn new(table_schema: impl Into<TableSchema>) -> Self {
        let table_schema = table_schema.into();
        ParqSource {
            projection: SplitProjection::unprojected(&table_schema),
            table_schema,
            predicate: None,
            batch_size: None,
            row_filter: true,
            row_predicates: false,
            metrics: ExecutionPlanMetricsSet::new(),
            footers: Arc::new(FooterCache::new(crate::ParqFormat::FOOTER_CACHE_CAPACITY)),
        }
    }

    /// Share `footers` (the format's, which planning filled) instead of an empty cache.
    pub fn with_footer_cache(self, footers: Arc<FooterCache>) -> Self {
        ParqSource { footers, ..self }
    }

    /// Prune with `predicate` (over the table schema), as a filter pushed down would.
    pub fn with_predicate(self, predicate: Arc<dyn PhysicalExpr>) -> Self {
        ParqSource {
            predicate: Some(predicate),
            ..self
        }
    }

    /// Whether the scan filters rows inside parq's decoder (default: yes); see
    /// [`crate::ParqConfig::row_filter`].
    pub fn with_row_filter(self, row_filter: bool) -> Self {
        ParqSource { row_filter, ..self }
    }

    /// Whether the scan filters rows inside parq's decoder.
    pub fn row_filter(&self) -> bool {
        self.row_filter
    }

    /// Whether the scan's filter also runs the conjuncts parq cannot translate, as
    /// DataFusion evaluates them (default: no); see [`crate::ParqConfig::row_predicates`].
    pub fn with_row_predicates(self, row_predicates: bool) -> Self {
        ParqSource {
            row_predicates,
            ..self
        }
    }

    /// Whether the scan's filter also runs the conjuncts parq cannot translate.
    pub fn row_predicates(&self) -> bool {
        self.row_predicates
    }

    /// The pruning predicate pushed into the scan (over the table schema).
    pub fn predicate(&self) -> Option<&Arc<dyn PhysicalExpr>> {
        self.predicate.as_ref()
    }
}

impl fmt::Debug for ParqSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ParqSource")
            .field("predicate", &self.predicate)
            .finish()
    }
}

impl FileSource for ParqSource {
    fn create_file_opener(
        &self,
        object_store: Arc<dyn ObjectStore>,
        base_config: &FileScanConfig,
        partition: usize,
    ) -> Result<Arc<dyn FileOpener>> {
        let opener = Arc::new(ParqOpener {
            store: object_store,
            file_schema: Arc::clone(self.table_schema.file_schema()),
            projection: self.projection.file_indices.clone(),
            predicate: self.predicate.clone(),
            batch_size: self.batch_size.or(base_config.batch_size).unwrap_or(8192),
            limit: base_config.limit,
            row_filter: self.row_filter,
            row_predicates: self.row_predicates,
            metrics: ScanMetrics::new(&self.metrics, partition),
            footers: Arc::clone(&self.footers),
        });
        ProjectionOpener::try_new(
            self.projection.clone(),
            opener,
            self.table_schema.file_schema(),
        )
    }

    fn table_schema(&self) -> &TableSchema {
        &self.table_schema
    }

    fn with_batch_size(&self, batch_size: usize) -> Arc<dyn FileSource> {
        Arc::new(ParqSource {
            batch_size: Some(batch_size),
            ..self.clone()
        })
    }

    fn filter(&self) -> Option<Arc<dyn PhysicalExpr>> {
        self.predicate.clone()
    }

    fn projection(&self) -> Option<&ProjectionExprs> {
        Some(&self.projection.source)
    }

    fn metrics(&self) -> &ExecutionPlanMetricsSet {
        &self.metrics
    }

    fn file_type(&self) -> &str {
        "parq"
    }

    fn fmt_extra(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        match (t, &self.predicate) {
            (DisplayFormatType::Default | DisplayFormatType::Verbose, Some(p)) => {
                write!(f, ", pruning_predicate={p}")
            }
            _ => Ok(()),
        }
    }

    fn try_pushdown_filters(
        &self,
        filters: Vec<Arc<dyn PhysicalExpr>>,
        _config: &ConfigOptions,
    ) -> Result<FilterPushdownPropagation<Arc<dyn FileSource>>> {
        let not_pushed = vec![PushedDown::No; filters.len()];
        if filters.is_empty() {
            return Ok(FilterPushdownPropagation::with_parent_pushdown_result(
                not_pushed,
            ));
        }
        let mut source = self.clone();
        source.predicate = Some(conjunction(
            self.predicate.clone().into_iter().chain(filters),
        ));
        Ok(
            FilterPushdownPropagation::with_parent_pushdown_result(not_pushed)
                .with_updated_node(Arc::new(source) as _),
        )
    }

    fn try_pushdown_projection(
        &self,
        projection: &ProjectionExprs,
    ) -> Result<Option<Arc<dyn FileSource>>> {
        let mut source = self.clone();
        source.projection = SplitProjection::new(
            self.table_schema.file_schema(),
            &source.projection.source.try_merge(projection)?,
        );
        Ok(Some(Arc::new(source)))
    }

    fn apply_expressions(
        &self,
        f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        datafusion::physical_plan::apply_expression_roots(
            self.predicate
                .iter()
                .chain(self.projection.source.iter().map(|p| &p.expr)),
            f,
        )
    }
}
