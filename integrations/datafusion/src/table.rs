//! [`ParqTable`]: a listing table read by [`ParqFormat`], as a table provider of its own
//! type, and [`ParqTableFactory`], which makes `STORED AS PARQ` tables of it.
//!
//! Why a type of its own: a query plan that is shipped (to a Ballista scheduler) carries its
//! tables, and `datafusion-proto` serialises a plain `ListingTable` only for the built-in
//! formats. A `ParqTable` is serialised by the logical codec of
//! [`crate::ballista`] (feature `ballista`) instead. On one node it is the listing table:
//! every call is passed through.

use std::borrow::Cow;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::SchemaRef;
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::{plan_err, Constraints, Result, Statistics};
use datafusion::datasource::listing::ListingTable;
use datafusion::datasource::listing_table_factory::ListingTableFactory;
use datafusion::datasource::TableType;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::logical_expr::{
    CreateExternalTable, Expr, LogicalPlan, TableProviderFilterPushDown,
};
use datafusion::physical_plan::ExecutionPlan;

use crate::ParqFormat;

/// A [`ListingTable`] whose format is [`ParqFormat`]; see the [module docs](self).
#[derive(Debug)]
pub struct ParqTable {
    /// A `ListingTable` (checked when made).
    listing: Arc<dyn TableProvider>,
}

impl ParqTable {
    /// `listing` as a `ParqTable`; an error unless its format is [`ParqFormat`].
    pub fn try_new(listing: ListingTable) -> Result<Self> {
        Self::from_provider(Arc::new(listing))
    }

    /// `provider` as a `ParqTable`; an error unless it is a [`ListingTable`] read by
    /// [`ParqFormat`].
    pub fn from_provider(provider: Arc<dyn TableProvider>) -> Result<Self> {
        match provider.downcast_ref::<ListingTable>() {
            Some(t) if t.options().format.downcast_ref::<ParqFormat>().is_some() => {
                Ok(ParqTable { listing: provider })
            }
            Some(t) => plan_err!(
                "a ParqTable reads through ParqFormat, not {:?}",
                t.options().format
            ),
            None => plan_err!("a ParqTable wraps a ListingTable, not {provider:?}"),
        }
    }

    /// The listing table.
    pub fn listing(&self) -> &ListingTable {
        self.listing
            .downcast_ref::<ListingTable>()
            .expect("checked when made")
    }
}

#[async_trait]
impl TableProvider for ParqTable {
    fn schema(&self) -> SchemaRef {
        self.listing.schema()
    }

    fn constraints(&self) -> Option<&Constraints> {
        self.listing.constraints()
    }

    fn table_type(&self) -> TableType {
        self.listing.table_type()
    }

    fn get_table_definition(&self) -> Option<&str> {
        self.listing.get_table_definition()
    }

    fn get_logical_plan(&'_ self) -> Option<Cow<'_, LogicalPlan>> {
        self.listing.get_logical_plan()
    }

    fn get_column_default(&self, column: &str) -> Option<&Expr> {
        self.listing.get_column_default(column)
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.scan(state, projection, filters, limit).await
    }

    async fn scan_with_args<'a>(
        &self,
        state: &dyn Session,
        args: datafusion::catalog::ScanArgs<'a>,
    ) -> Result<datafusion::catalog::ScanResult> {
        self.listing.scan_with_args(state, args).await
    }

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        self.listing.supports_filters_pushdown(filters)
    }

    fn statistics(&self) -> Option<Statistics> {
        self.listing.statistics()
    }

    async fn insert_into(
        &self,
        state: &dyn Session,
        input: Arc<dyn ExecutionPlan>,
        insert_op: InsertOp,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        self.listing.insert_into(state, input, insert_op).await
    }
}

/// Makes `STORED AS PARQ` tables: DataFusion's listing-table factory, its table wrapped as a
/// [`ParqTable`] (see [`crate::register`]).
#[derive(Debug, Default)]
pub struct ParqTableFactory {
    listing: ListingTableFactory,
}

impl ParqTableFactory {
    /// The factory.
    pub fn new() -> Self {
        ParqTableFactory::default()
    }
}

#[async_trait]
impl TableProviderFactory for ParqTableFactory {
    async fn create(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<Arc<dyn TableProvider>> {
        let table = self.listing.create(state, cmd).await?;
        Ok(Arc::new(ParqTable::from_provider(table)?))
    }
}
