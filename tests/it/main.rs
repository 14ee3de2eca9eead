//! The library's integration tests, one module per area, in one test binary: each binary
//! compiles parq's generics and links every dependency again, so one binary instead of ~30
//! builds much faster. Select an area with a filter: `cargo test --test it arrow::`.
//!
//! `tests/codec_features.rs` stays a binary of its own: CI also runs it with
//! `--no-default-features --features snappy`, where these modules do not build.
//!
//! A module that needs an optional feature of the library (`parq::testing`'s generators,
//! `parq::arrow`, `parq::encryption`, `parq::object_store`, the probes' counters) is behind a
//! `#[cfg(feature = ...)]`, so that plain `cargo test` builds and runs the rest; CI turns the
//! features on (`.ci/test`). The other way, the package dev-depending on itself with those
//! features, would turn them on in every test build, including the ones that check the library
//! without them (`--no-default-features`, one codec alone): `testing` brings every codec.

#[cfg(feature = "arrow")]
mod arrow;
#[cfg(feature = "arrow")]
mod arrow_dictionary;
mod bloom;
mod cdc;
#[cfg(feature = "arrow")]
mod dataset;
#[cfg(all(feature = "encryption", feature = "arrow"))]
mod encryption;
mod geospatial;
mod invalid_data;
mod nested_assembly;
mod nested_read;
#[cfg(feature = "testing")]
mod nested_whole;
#[cfg(feature = "object_store")]
mod object_store;
#[cfg(feature = "object_store")]
mod object_store_write;
mod parallel_read;
mod predicates;
mod push_decoder;
mod read_api;
mod read_builder;
#[cfg(feature = "probes")]
mod read_probes;
mod real_writers;
mod selection;
#[cfg(feature = "testing")]
mod selection_nested;
#[cfg(feature = "testing")]
mod testing_kit;
#[cfg(feature = "arrow")]
mod variant_arrow;
#[cfg(feature = "testing")]
mod variant_json;
mod variant_predicate;
#[cfg(feature = "testing")]
mod variant_roundtrip;
mod variant_shredded;
#[cfg(feature = "testing")]
mod variant_spark;
mod write_interop;
#[cfg(feature = "testing")]
mod write_nested;
#[cfg(feature = "testing")]
mod write_nested_bytes;
#[cfg(all(feature = "probes", feature = "testing"))]
mod write_nested_probes;
mod write_roundtrip;

// Shared helpers. The oracle is a file of its own because the fuzz crate includes it too;
// `python` (whether the Python oracles can run) because the CLI's tests include it too.
#[path = "support_nested/oracle.rs"]
mod oracle;
mod python;
#[cfg(feature = "testing")]
mod support_nested;
mod support_write;
