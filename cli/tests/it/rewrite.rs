//! `parq rewrite` against pyarrow: what the CLI writes from a parquet-testing file reads back
//! in pyarrow as the original does (`tests/it/support_write/compare.py` of the library; without
//! pyarrow the test is skipped, or fails under `PARQ_REQUIRE_ORACLES=1` as in CI).

use crate::python;
use crate::support;

use std::path::PathBuf;

use bytes::Bytes;
use parq::read::ParquetReader;
use serde_json::{json, Value};
use support::*;

/// compare.py's JSON line per (original, rewritten) pair of `pairs`, flattened: how pyarrow
/// reads the two. It sits with the library's writer tests, whose dump.py it reuses.
fn compare_in_pyarrow(pairs: &[PathBuf]) -> String {
    let script = manifest_dir().join("../tests/it/support_write/compare.py");
    let out = std::process::Command::new("python3")
        .arg(&script)
        .args(pairs)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "compare.py: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// `parq rewrite` keeps every flat file of parquet-testing identical as pyarrow sees it
/// (values bit for bit, Parquet schema, Arrow schema, key-value metadata), with several
/// option sets, and keeps the schema elements exactly.
#[test]
fn rewrite_keeps_flat_parquet_testing_files_identical() {
    python::require_python!("pyarrow");
    let data = parquet_test_data();
    let bin = parq_bin();
    let dir = scratch_dir("rewrite");
    let option_sets: [&[&str]; 4] = [
        &[],
        &["--compression", "zstd", "--page-version", "2"],
        &["--encoding", "plain", "--row-group-rows", "3"],
        &["--encoding", "dictionary", "--compression", "snappy"],
    ];
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    inputs.sort();
    let mut pairs = Vec::new();
    let mut failures = Vec::new();
    for (i, input) in inputs.iter().enumerate() {
        let output = dir.join(input.file_name().unwrap());
        let out = std::process::Command::new(&bin)
            .arg("rewrite")
            .arg(input)
            .arg(&output)
            .args(option_sets[i % option_sets.len()])
            .output()
            .unwrap();
        let original = std::fs::read(input).unwrap();
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let readable = ParquetReader::new(Bytes::from(original)).is_ok();
            // A page past the reader's size limit (large_string_map.brotli holds a 1 GiB
            // page) is refused by design.
            if readable && !err.contains("unsupported") && !err.contains("exceeds the limit") {
                failures.push(format!("{}: {err}", input.display()));
            }
            assert!(
                !output.exists(),
                "{}: a failed rewrite leaves no file",
                input.display()
            );
            continue;
        }
        let before = parq::metadata::decode_footer(&original).unwrap();
        let after = parq::metadata::decode_footer(&std::fs::read(&output).unwrap()).unwrap();
        assert_eq!(
            before.schema,
            after.schema,
            "{}: schema elements",
            input.display()
        );
        assert_eq!(
            before.key_value_metadata,
            after.key_value_metadata,
            "{}: kv",
            input.display()
        );
        // The rows the row groups hold (repeated_no_annotation's footer says 0 for its 6).
        let rows: i64 = before.row_groups.iter().map(|g| g.num_rows).sum();
        assert_eq!(rows, after.num_rows, "{}: rows", input.display());
        pairs.push(input.clone());
        pairs.push(output);
    }
    assert!(
        pairs.len() / 2 >= 40,
        "only {} files rewritten",
        pairs.len() / 2
    );
    for line in compare_in_pyarrow(&pairs).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v.get("skip").is_some() {
            continue;
        }
        let ok = v.get("error").is_none()
            && v["schema_equal"] == json!(true)
            && v["kv_equal"] == json!(true)
            && v["arrow_schema_equal"] == json!(true)
            && v["num_rows_equal"] == json!(true)
            && v["columns_differ"] == json!([]);
        if !ok {
            failures.push(line.to_string());
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `parq rewrite` of DuckDB's real files (testdata/duckdb/): whatever `parq cat` reads,
/// `rewrite` writes (groups without fields aside, refused by name), and pyarrow reads the
/// rewrite as the original where it reads the original.
#[test]
fn rewrite_writes_every_duckdb_file_it_reads() {
    python::require_python!("pyarrow");
    let data = workspace_dir().join("testdata/duckdb");
    let bin = parq_bin();
    let dir = scratch_dir("rewrite-duckdb");
    let inputs = walk_files(&data, &|p| p.extension().is_some_and(|e| e == "parquet"));
    let (mut pairs, mut failures, mut refused) = (Vec::new(), Vec::new(), 0);
    for (i, input) in inputs.iter().enumerate() {
        let cat = parq_cat(input, &[], &dir);
        if !cat.success() {
            continue;
        }
        let output = dir.join(format!("{i}.parquet"));
        let out = std::process::Command::new(&bin)
            .arg("rewrite")
            .arg(input)
            .arg(&output)
            .output()
            .unwrap();
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            if err.contains("a struct without fields") {
                refused += 1;
            } else {
                failures.push(format!("{}: {err}", rel(input, &data)));
            }
            continue;
        }
        pairs.push(input.clone());
        pairs.push(output);
    }
    assert_eq!(refused, 1, "only empty_group_test.parquet is refused");
    assert!(
        pairs.len() / 2 > 250,
        "only {} files rewritten",
        pairs.len() / 2
    );
    let (mut compared, mut skipped) = (0, 0);
    for line in compare_in_pyarrow(&pairs).lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v.get("skip").is_some() {
            skipped += 1;
            continue;
        }
        compared += 1;
        let ok = v.get("error").is_none()
            && v["num_rows_equal"] == json!(true)
            && v["arrow_schema_equal"] == json!(true)
            && v["columns_differ"] == json!([]);
        if !ok {
            failures.push(line.to_string());
        }
    }
    eprintln!(
        "rewrite-duckdb: {} rewritten, {compared} compared in pyarrow, {skipped} pyarrow cannot read",
        pairs.len() / 2
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let _ = std::fs::remove_dir_all(&dir);
}
