//! The CLI's integration tests, one module per area, in one test binary (one link of the
//! dependencies instead of one per file). Each runs the `parq` binary Cargo built for it
//! (`CARGO_BIN_EXE_parq`, see `support::parq_bin`). Select an area with a filter:
//! `cargo test -p parq-format-cli --test it conformance::`.

mod bad_data;
mod bloom_meta;
mod broken_pipe;
mod cli_habits;
mod conformance;
mod conformance_corpora;
mod encryption;
mod filter_pyarrow;
mod geospatial;
mod hostile_files;
mod invalid_data;
mod io_errors;
mod limits;
mod memory;
mod nested_pyarrow;
mod object_store_urls;
mod prefixes;
mod pyarrow_roundtrip;
mod rewrite;
mod rewrite_dataset;
mod rewrite_options;
mod spark_interop;
mod threads;
mod variant;

mod support;
// Whether pyarrow, DuckDB, pyspark and moto can run: one rule for both crates' tests (skip
// with a note, or fail under PARQ_REQUIRE_ORACLES=1).
#[path = "../../../tests/it/python.rs"]
mod python;
