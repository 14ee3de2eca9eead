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
    }
}

impl ConfigExtension for ParqConfig {
    const PREFIX: &'static str = "parq";
}

/// The setting in force for a session: its own, else the default.
pub(crate) fn row_filter(options: &datafusion::config::ConfigOptions) -> bool {
    options
        .extensions
        .get::<ParqConfig>()
        .is_none_or(|c| c.row_filter)
}
