//! parq-datafusion's integration tests, in one test binary: each binary links all of
//! DataFusion (and Ballista), so one link instead of five keeps the build short.

mod common;

#[cfg(feature = "ballista")]
mod ballista;
mod parquet_testing;
mod scan;
mod schema_evolution;
mod tpch;
mod write;
