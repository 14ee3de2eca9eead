//! parq's own session settings, beside DataFusion's: `SET parq.<name> = <value>`.

use datafusion::common::config::ConfigExtension;
use datafusion::common::extensions_options;

extensions_options! {
    /// Settings of parq's scans (prefix `parq`), added to a session by
    /// [`crate::register`] and [`crate::register_as_parquet`].
    pub struct ParqConfig {
        /// Filter rows exactly inside parq's decoder by the part of a scan's predicate it
        /// evaluates fast (the filter's columns first, the others only for the rows that
        /// match), and follow dynamic filters as they tighten. DataFusion's own
        /// `datafusion.execution.parquet.pushdown_filters` does not turn it on or off: parq's
        /// filter measures where it pays (it reads the other columns by pages where the
        /// matches come in runs, else decodes and filters), so it is on by default. With
        /// `pushdown_filters`, a hash join's dynamic filter also filters by its lookup of the
        /// join's keys, as DataFusion's own reader then does (not a partitioned join's, which
        /// hashes every row to find its partition first).
        pub row_filter: bool, default = true
        /// With [`row_filter`](Self::row_filter), also filter inside the decoder by the
        /// conjuncts parq cannot translate (`LIKE`, functions, columns compared with each
        /// other), evaluated by DataFusion on the filter's columns alone. Off by default:
        /// DataFusion's filter above evaluates them again, so they pay only where they drop
        /// most rows (a selective `LIKE` on a wide table), and on TPC-H they lose (see
        /// BENCHMARKS.md).
        pub row_predicates: bool, default = false
    }
}

impl ConfigExtension for ParqConfig {
    const PREFIX: &'static str = "parq";
}

/// How a session's scans filter inside parq's decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FilterSettings {
    /// [`ParqConfig::row_filter`].
    pub row_filter: bool,
    /// [`ParqConfig::row_predicates`], under `row_filter`.
    pub row_predicates: bool,
    /// Under `row_filter`, with DataFusion's `datafusion.execution.parquet.pushdown_filters`:
    /// a hash join's dynamic filter also filters by its lookup of the join's keys, evaluated
    /// by DataFusion on the key columns, as DataFusion's own reader then does (without it,
    /// only the keys' bounds and short `IN` lists filter). Not a partitioned join's: see
    /// [`crate::predicate::dynamic_row_predicates`].
    pub join_lookups: bool,
}

/// The settings in force for a session: its own, else the defaults.
pub(crate) fn filter_settings(options: &datafusion::config::ConfigOptions) -> FilterSettings {
    let (row_filter, row_predicates) = match options.extensions.get::<ParqConfig>() {
        Some(c) => (c.row_filter, c.row_predicates),
        None => (true, false),
    };
    FilterSettings {
        row_filter,
        row_predicates: row_filter && row_predicates,
        join_lookups: row_filter && options.execution.parquet.pushdown_filters,
    }
}
