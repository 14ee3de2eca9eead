//! Where the unit tests find apache/parquet-testing (see testdata/README.md).
//!
//! The files are vendored under `testdata/parquet-testing/`, so a clone needs nothing beside
//! it. `PARQUET_TEST_DATA` overrides the location as in arrow-rs: it names the `data/`
//! directory, and `bad_data/` is its sibling. A missing directory fails the test instead of
//! skipping it: a skipped conformance test reads as a passing one.

use std::path::PathBuf;

/// parquet-testing's `data/`: `$PARQUET_TEST_DATA`, else the vendored copy.
pub(crate) fn data_dir() -> PathBuf {
    let dir = match std::env::var_os("PARQUET_TEST_DATA").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data"),
    };
    assert!(
        dir.is_dir(),
        "parquet-testing data not found at {} (set PARQUET_TEST_DATA to its data/ directory)",
        dir.display()
    );
    dir
}

/// parquet-testing's `bad_data/`: the sibling of [`data_dir`].
pub(crate) fn bad_data_dir() -> PathBuf {
    let dir = data_dir().join("../bad_data");
    assert!(
        dir.is_dir(),
        "parquet-testing bad_data not found at {} (it must sit beside PARQUET_TEST_DATA)",
        dir.display()
    );
    dir
}

/// The bytes of `data/<name>`; panics naming the path when it cannot be read.
pub(crate) fn data_file(name: &str) -> Vec<u8> {
    let path = data_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
