//! [`ParqSource`]: the [`FileSource`] of a scan read by parq.

use std::fmt;
use std::sync::Arc;

use crate::opener::{ParqOpener, ScanMetrics};
use arrow_schema::extension::ExtensionType;
use datafusion::arrow::datatypes::{DataType, Field, Fields, Schema};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode};
use datafusion::common::Result;
use datafusion::datasource::physical_plan::{FileOpener, FileScanConfig, FileSource};
use datafusion::datasource::projection::{ProjectionOpener, SplitProjection};
use datafusion::datasource::table_schema::TableSchema;
use datafusion::functions::core::file_row_index::FileRowIndexFunc;
use datafusion::parquet::arrow::RowNumber;
use datafusion::physical_expr::expressions::Column;
use datafusion::physical_expr::{conjunction, PhysicalExpr};
use datafusion::physical_expr_adapter::rewrite::{
    expr_references_scalar_udf, rewrite_file_row_index_projection,
};
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
    /// Filter by hash joins' lookups too (DataFusion's `pushdown_filters`).
    join_lookups: bool,
    metrics: ExecutionPlanMetricsSet,
    footers: Arc<FooterCache>,
}

impl ParqSource {
    /// A source over `table_schema` with every column projected and no predicate.
    pub fn new(table_schema: impl Into<TableSchema>) -> Self {
        let table_schema = table_schema.into();
        ParqSource {
            projection: split(
                &table_schema,
                &ProjectionExprs::from_indices(
                    &(0..table_schema.table_schema().fields().len()).collect::<Vec<_>>(),
                    table_schema.table_schema(),
                ),
            )
            .expect("a projection of every column splits"),
            table_schema,
            predicate: None,
            batch_size: None,
            row_filter: true,
            row_predicates: false,
            join_lookups: false,
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

    /// Whether the scan's filter also runs a hash join's dynamic filter's lookup of the
    /// join's keys, as DataFusion evaluates it (default: no; a session with DataFusion's
    /// `datafusion.execution.parquet.pushdown_filters` sets it, as DataFusion's own reader
    /// then does the same). Only under [`Self::with_row_filter`].
    pub fn with_join_lookups(self, join_lookups: bool) -> Self {
        ParqSource {
            join_lookups,
            ..self
        }
    }

    /// Whether the scan's filter also runs hash joins' lookups.
    pub fn join_lookups(&self) -> bool {
        self.join_lookups
    }

    /// The filter settings this source was made with.
    pub(crate) fn filter_settings(&self) -> crate::config::FilterSettings {
        crate::config::FilterSettings {
            row_filter: self.row_filter,
            row_predicates: self.row_predicates,
            join_lookups: self.join_lookups,
        }
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
            virtual_columns: self.table_schema.virtual_columns().clone(),
            projection: self.projection.file_indices.clone(),
            predicate: self.predicate.clone(),
            batch_size: self.batch_size.or(base_config.batch_size).unwrap_or(8192),
            limit: base_config.limit,
            row_filter: self.row_filter,
            row_predicates: self.row_predicates,
            join_lookups: self.row_filter && self.join_lookups,
            metrics: ScanMetrics::new(&self.metrics, partition),
            footers: Arc::clone(&self.footers),
        });
        ProjectionOpener::try_new(
            self.projection.clone(),
            opener,
            &produced_schema(&self.table_schema),
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
        let merged = if projection
            .iter()
            .any(|p| expr_references_scalar_udf::<FileRowIndexFunc>(&p.expr))
        {
            // `file_row_index()` reads the row-number virtual column the scan produces.
            let (table_schema, row_index) = with_row_index_column(&self.table_schema);
            source.table_schema = table_schema;
            rewrite_file_row_index_projection(&self.projection.source, projection, &row_index)?
        } else {
            self.projection.source.try_merge(projection)?
        };
        source.projection = split(&source.table_schema, &merged)?;
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

/// The columns a [`ParqOpener`] produces: the file's, then the virtual ones.
fn produced_schema(table_schema: &TableSchema) -> Schema {
    let file = table_schema.file_schema();
    let fields: Vec<_> = file
        .fields()
        .iter()
        .chain(table_schema.virtual_columns().iter())
        .cloned()
        .collect();
    Schema::new_with_metadata(fields, file.metadata().clone())
}

/// `projection` (over the table: file columns, partition columns, then virtual columns)
/// split into the columns the opener produces and what DataFusion computes after. The opener
/// produces the virtual columns after the file's ([`produced_schema`]), so they are split
/// as file columns placed before the partition columns.
fn split(table_schema: &TableSchema, projection: &ProjectionExprs) -> Result<SplitProjection> {
    let virtuals = table_schema.virtual_columns().len();
    if virtuals == 0 {
        return Ok(SplitProjection::new(table_schema.file_schema(), projection));
    }
    let files = table_schema.file_schema().fields().len();
    let partitions = table_schema.table_partition_cols().len();
    let reordered = projection.clone().try_map_exprs(|e| {
        e.transform(|e| {
            let Some(c) = e.downcast_ref::<Column>() else {
                return Ok(Transformed::no(e));
            };
            let i = c.index();
            let j = match i {
                i if i >= files + partitions => i - partitions,
                i if i >= files => i + virtuals,
                i => i,
            };
            Ok(if i == j {
                Transformed::no(e)
            } else {
                Transformed::yes(Arc::new(Column::new(c.name(), j)) as Arc<dyn PhysicalExpr>)
            })
        })
        .data()
    })?;
    let mut split = SplitProjection::new(&produced_schema(table_schema), &reordered);
    split.source = projection.clone();
    Ok(split)
}

/// `table_schema` with a row-number virtual column, and that column: the one it has, else
/// one appended under a name no column takes (as DataFusion's Parquet source does).
fn with_row_index_column(table_schema: &TableSchema) -> (TableSchema, Column) {
    let offset =
        table_schema.file_schema().fields().len() + table_schema.table_partition_cols().len();
    let existing = table_schema
        .virtual_columns()
        .iter()
        .position(|f| f.extension_type_name() == Some(RowNumber::NAME));
    if let Some(i) = existing {
        let name = table_schema.virtual_columns()[i].name();
        return (table_schema.clone(), Column::new(name, offset + i));
    }
    let base = "__datafusion_file_row_index";
    let mut name = base.to_string();
    let mut suffix = 0;
    while table_schema.table_schema().field_with_name(&name).is_ok() {
        suffix += 1;
        name = format!("{base}_{suffix}");
    }
    let field = Arc::new(Field::new(&name, DataType::Int64, true).with_extension_type(RowNumber));
    let virtuals: Fields = table_schema
        .virtual_columns()
        .iter()
        .cloned()
        .chain([field])
        .collect();
    let index = table_schema.table_schema().fields().len();
    let schema = TableSchema::builder(Arc::clone(table_schema.file_schema()))
        .with_table_partition_cols(table_schema.table_partition_cols().clone())
        .with_virtual_columns(virtuals)
        .build();
    (schema, Column::new(&name, index))
}
