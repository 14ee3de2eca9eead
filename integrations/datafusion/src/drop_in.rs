//! parq as the session's Parquet: [`register_as_parquet`] (or [`with_parquet_through_parq`]
//! on a `SessionStateBuilder`) makes every Parquet read and write of a session go through
//! parq.
//!
//! Two mechanisms, because DataFusion has two kinds of entry:
//! - **By name.** `STORED AS PARQUET` (tables and `COPY`) finds its format by the name
//!   `parquet`; parq's factory is registered under it ([`ParqFormatFactory::for_parquet`]),
//!   and its table factory makes [`ParqTable`]s.
//! - **Built in code.** `read_parquet`, `register_parquet`, `DataFrame::write_parquet` and a
//!   `ListingTable` a program builds with `ParquetFormat` name DataFusion's format directly.
//!   The analyzer rule [`ParquetThroughParq`] rewrites them in every plan before it is
//!   optimised: a `ListingTable` read by `ParquetFormat` becomes the same table read by
//!   [`ParqFormat`] (its paths, partition columns, sort order, schema, constraints and
//!   Parquet options kept), in scans and as the target of `INSERT INTO`; a `COPY` to Parquet
//!   is written by parq with the options it was given.
//!
//! DataFusion's Parquet options are honoured or refused by name ([`crate::options`]).

use std::sync::Arc;

use datafusion::catalog::TableProvider;
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult};
use datafusion::common::Result;
use datafusion::datasource::file_format::format_as_file_type;
use datafusion::datasource::file_format::parquet::{ParquetFormat, ParquetFormatFactory};
use datafusion::datasource::listing::{ListingTable, ListingTableConfig};
use datafusion::datasource::{provider_as_source, source_as_provider};
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::logical_expr::{DmlStatement, LogicalPlan, TableSource};
use datafusion::optimizer::AnalyzerRule;
use datafusion::prelude::SessionContext;
use parq::object_store::FooterCache;

use crate::{ParqFormat, ParqFormatFactory, ParqTable, ParqTableFactory};

/// The analyzer rule of the [module docs](self): DataFusion's Parquet, in a plan, replaced by
/// parq.
#[derive(Debug)]
pub struct ParquetThroughParq {
    footers: Arc<FooterCache>,
}

impl Default for ParquetThroughParq {
    fn default() -> Self {
        ParquetThroughParq {
            footers: Arc::new(FooterCache::new(ParqFormat::FOOTER_CACHE_CAPACITY)),
        }
    }
}

impl ParquetThroughParq {
    /// The rule, with a footer cache of its own for the tables it rewrites.
    pub fn new() -> Self {
        ParquetThroughParq::default()
    }

    /// `table` read by parq, if it is a `ListingTable` read by DataFusion's `ParquetFormat`.
    fn through_parq(&self, table: &dyn TableProvider) -> Result<Option<ParqTable>> {
        let Some(listing) = table.downcast_ref::<ListingTable>() else {
            return Ok(None);
        };
        let Some(parquet) = listing.options().format.downcast_ref::<ParquetFormat>() else {
            return Ok(None);
        };
        let format = ParqFormat::with_footer_cache(Arc::clone(&self.footers))
            .with_options(parquet.options().clone());
        let mut options = listing.options().clone();
        options.format = Arc::new(format);
        // The table's schema is the files' columns, then the partition columns.
        let schema = listing.schema();
        let file_columns = schema.fields().len() - options.table_partition_cols.len();
        let file_schema = Arc::new(schema.project(&(0..file_columns).collect::<Vec<_>>())?);
        let defaults: Vec<_> = schema
            .fields()
            .iter()
            .filter_map(|f| {
                listing
                    .get_column_default(f.name())
                    .map(|e| (f.name().clone(), e.clone()))
            })
            .collect();
        let config = ListingTableConfig::new_with_multi_paths(listing.table_paths().clone())
            .with_listing_options(options)
            .with_schema(file_schema);
        let table = ListingTable::try_new(config)?
            .with_constraints(listing.constraints().cloned().unwrap_or_default())
            .with_column_defaults(defaults.into_iter().collect())
            .with_definition(listing.get_table_definition().map(str::to_string));
        Ok(Some(ParqTable::try_new(table)?))
    }

    fn rewrite_source(
        &self,
        source: &Arc<dyn TableSource>,
    ) -> Result<Option<Arc<dyn TableSource>>> {
        let Ok(provider) = source_as_provider(source) else {
            return Ok(None);
        };
        Ok(self
            .through_parq(provider.as_ref())?
            .map(|t| provider_as_source(Arc::new(t))))
    }
}

impl AnalyzerRule for ParquetThroughParq {
    fn analyze(&self, plan: LogicalPlan, _config: &ConfigOptions) -> Result<LogicalPlan> {
        plan.transform_up_with_subqueries(|node| match node {
            LogicalPlan::TableScan(mut scan) => match self.rewrite_source(&scan.source)? {
                Some(source) => {
                    scan.source = source;
                    Ok(Transformed::yes(LogicalPlan::TableScan(scan)))
                }
                None => Ok(Transformed::no(LogicalPlan::TableScan(scan))),
            },
            LogicalPlan::Dml(dml) => match self.rewrite_source(&dml.target)? {
                Some(target) => Ok(Transformed::yes(LogicalPlan::Dml(DmlStatement {
                    target,
                    ..dml
                }))),
                None => Ok(Transformed::no(LogicalPlan::Dml(dml))),
            },
            LogicalPlan::Copy(mut copy) => {
                let factory =
                    datafusion::datasource::file_format::file_type_to_format(&copy.file_type).ok();
                let builtin = factory
                    .as_ref()
                    .and_then(|f| f.downcast_ref::<ParquetFormatFactory>());
                match builtin {
                    Some(builtin) => {
                        let mut ours = ParqFormatFactory::for_parquet();
                        if let Some(options) = &builtin.options {
                            ours = ours.with_options(options.clone());
                        }
                        copy.file_type = format_as_file_type(Arc::new(ours));
                        Ok(Transformed::yes(LogicalPlan::Copy(copy)))
                    }
                    None => Ok(Transformed::no(LogicalPlan::Copy(copy))),
                }
            }
            other => Ok(Transformed::no(other)),
        })
        .data()
    }

    fn name(&self) -> &str {
        "parquet_through_parq"
    }
}

/// Make every Parquet read and write of `ctx` go through parq (see the [module docs](self)),
/// and `STORED AS PARQ` work as [`crate::register`] makes it.
pub fn register_as_parquet(ctx: &SessionContext) -> Result<()> {
    crate::register(ctx)?;
    ctx.add_analyzer_rule(Arc::new(ParquetThroughParq::new()));
    let state = ctx.state_ref();
    let mut state = state.write();
    state
        .table_factories_mut()
        .insert("PARQUET".into(), Arc::new(ParqTableFactory::new()));
    state.register_file_format(Arc::new(ParqFormatFactory::for_parquet()), true)
}

/// [`register_as_parquet`] for a session being built. Call it after
/// `with_default_features()`, which would put DataFusion's own Parquet format back.
pub fn with_parquet_through_parq(builder: SessionStateBuilder) -> SessionStateBuilder {
    let mut builder = builder.with_analyzer_rule(Arc::new(ParquetThroughParq::new()));
    let formats = builder.file_formats().get_or_insert_with(Vec::new);
    formats.retain(|f| {
        !matches!(
            f.get_ext().to_ascii_lowercase().as_str(),
            "parquet" | "parq"
        )
    });
    formats.push(Arc::new(ParqFormatFactory::for_parquet()));
    formats.push(Arc::new(ParqFormatFactory::new()));
    let factories = builder
        .table_factories()
        .get_or_insert_with(Default::default);
    factories.insert("PARQUET".into(), Arc::new(ParqTableFactory::new()));
    factories.insert("PARQ".into(), Arc::new(ParqTableFactory::new()));
    builder
}
