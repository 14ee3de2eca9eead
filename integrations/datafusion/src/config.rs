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
        /// `datafusion.execution.parquet.pushdown_filters` does not change it: parq's filter
        /// measures where it pays (it reads the other columns by pages where the matches come
        /// in runs, else decodes and filters), so it is on by default.
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

/// The settings in force for a session: its own, else the defaults. `(row_filter,
/// row_predicates)`.
pub(crate) fn filter_settings(options: &datafusion::config::ConfigOptions) -> (bool, bool) {
    match options.extensions.get::<ParqConfig>() {
        Some(c) => (c.row_filter, c.row_filter && c.row_predicates),
        None => (true, false),
    }
}
