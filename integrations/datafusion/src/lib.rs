//! parq as a DataFusion file format: SQL over Parquet files read by parq.
//!
//! One line of setup makes `STORED AS PARQ` available:
//!
//! ```no_run
//! # async fn demo() -> datafusion::common::Result<()> {
//! let ctx = datafusion::prelude::SessionContext::new();
//! parq_datafusion::register(&ctx)?;
//! ctx.sql("CREATE EXTERNAL TABLE t STORED AS PARQ LOCATION 'data/'").await?;
//! ctx.sql("SELECT count(*) FROM t WHERE x > 5").await?.show().await?;
//! # Ok(())
//! # }
//! ```
//!
//! or, for a table built in code, `ListingOptions::new(Arc::new(ParqFormat::new()))`.
//!
//! What the scan does (see [`ParqSource`]): it reads through parq's own async object reader
//! (`parq::object_store::ParqObjectReader`) with the object store DataFusion hands over:
//! each file's footer by one suffix GET (cached, so planning and the scans fetch it once),
//! then the projected columns of the row groups left after pruning, with the next row
//! groups' GETs in flight while one decodes. It translates DataFusion's filters into parq
//! predicates that prune row groups and pages ([`predicate`]), and filters rows exactly
//! inside parq's decoder by the part it evaluates fast (comparisons of numbers, null tests):
//! those columns first, the others only for the rows that match. Dynamic filters (a hash
//! join's keys, a top-k bound) are followed as they tighten: the row groups not yet decoded
//! are pruned and filtered by the newest. DataFusion's own filter still runs above the scan.
//! It splits files by row groups across `target_partitions`, and reports row-group
//! statistics to the planner ([`statistics`]). parq decodes on the runtime thread that
//! polls the scan, as DataFusion's own Parquet reader does (the GETs run as their own tasks).
//!
//! Scan metrics (in `EXPLAIN ANALYZE`): `row_groups`, `row_groups_pruned`, `pages_pruned`,
//! `rows_selected`, `rows_filtered` (of those, rows parq's filter dropped, dynamic filters
//! included), `requests`, `bytes_fetched`, `on_demand_fetches`.
//!
//! Distributed: with the feature `ballista`, the module `ballista` has the codecs that let a plan
//! reading through parq (and its `STORED AS PARQ` tables, [`ParqTable`]) run on a Ballista
//! cluster.
//!
//! **Writes.** `COPY … STORED AS PARQ` and `INSERT INTO` a `STORED AS PARQ` table write with
//! [`ParqSink`]: parq's writer, each file uploaded in parts to the table's object store
//! (`parq::object_store::AsyncArrowWriter`), `PARTITIONED BY` into hive `key=value/` folders
//! by DataFusion's own demultiplexer. DataFusion's Parquet options are honoured or refused by
//! name ([`options`]).
//!
//! **parq as the session's Parquet.** [`register_as_parquet`] (or
//! [`with_parquet_through_parq`] on a `SessionStateBuilder`) makes every Parquet read and
//! write of the session go through parq: `STORED AS PARQUET`, `read_parquet`,
//! `register_parquet`, `ListingTable`s built with DataFusion's `ParquetFormat`, `COPY TO`,
//! `INSERT INTO` and `DataFrame::write_parquet` ([`ParquetThroughParq`]).
//!
//! ```no_run
//! # async fn demo() -> datafusion::common::Result<()> {
//! use datafusion::prelude::{ParquetReadOptions, SessionContext};
//! let ctx = SessionContext::new();
//! parq_datafusion::register_as_parquet(&ctx)?;
//! ctx.register_parquet("t", "data/", ParquetReadOptions::default()).await?; // read by parq
//! ctx.sql("COPY (SELECT * FROM t WHERE x > 5) TO 'out/' STORED AS PARQUET")
//!     .await?
//!     .collect()
//!     .await?; // written by parq
//! # Ok(())
//! # }
//! ```
//!
//! Limits, for now: filters are pruned with but reported as not pushed down (DataFusion
//! filters the rows); overwriting inserts are refused; encrypted files are not read or
//! written through DataFusion; files with differing types need a declared table schema (the
//! inferred schemas merge only when equal), and then missing columns read as nulls and
//! narrower types are cast.
#![deny(missing_docs)]

#[cfg(feature = "ballista")]
pub mod ballista;
mod config;
mod counted_store;
mod drop_in;
mod format;
mod opener;
pub mod options;
pub mod predicate;
mod sink;
mod source;
pub mod statistics;
mod store_source;
mod table;

use std::sync::Arc;

pub use config::ParqConfig;
pub use drop_in::{register_as_parquet, with_parquet_through_parq, ParquetThroughParq};
pub use format::{ParqFormat, ParqFormatFactory};
pub use sink::ParqSink;
pub use source::ParqSource;
pub use table::{ParqTable, ParqTableFactory};

/// Register [`ParqFormatFactory`] with `ctx`, so that SQL can say `STORED AS PARQ` (such
/// tables are [`ParqTable`]s).
pub fn register(ctx: &datafusion::prelude::SessionContext) -> datafusion::common::Result<()> {
    let state = ctx.state_ref();
    let mut state = state.write();
    let options = state.config_mut().options_mut();
    if options.extensions.get::<ParqConfig>().is_none() {
        options.extensions.insert(ParqConfig::default());
    }
    state
        .table_factories_mut()
        .insert("PARQ".into(), Arc::new(ParqTableFactory::new()));
    state.register_file_format(Arc::new(ParqFormatFactory::new()), true)
}
