//! `parq meta`: each column chunk's bloom filter (offset and length, or offset and an unknown
//! length for writers that did not record it: parquet-mr files of parquet-testing), and its
//! statistics printed typed, as `parq cat` prints the column's values (integers, booleans,
//! floats, strings, decimals with their scale), in text and in JSON, where the stored bytes
//! stay beside them as hex.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;

fn meta(name: &str, json: bool) -> String {
    let data = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/parquet-testing/data")
        .join(name);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_parq"));
    cmd.arg("meta");
    if json {
        cmd.arg("--json");
    }
    let out = cmd.arg(&data).output().expect("run parq");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}

#[test]
fn meta_shows_bloom_filters() {
    for (name, offset, length) in [
        (
            "data_index_bloom_encoding_with_length.parquet",
            253,
            Some(2064),
        ),
        ("data_index_bloom_encoding_stats.parquet", 192, None),
    ] {
        let text = meta(name, false);
        let shown = match length {
            Some(n) => format!("bloom_filter=(offset {offset}, {n} bytes)"),
            None => format!("bloom_filter=(offset {offset}, ? bytes)"),
        };
        assert!(text.contains(&shown), "{name}: {text}");
        let v: Value = serde_json::from_str(&meta(name, true)).expect("json");
        let b = &v["row_groups"][0]["columns"][0]["bloom_filter"];
        assert_eq!(b["offset"], offset, "{name}");
        assert_eq!(
            b["length"],
            length.map_or(Value::Null, Value::from),
            "{name}"
        );
    }
    // A file without filters shows none.
    assert!(!meta("alltypes_plain.parquet", false).contains("bloom_filter"));
    assert!(!meta("alltypes_plain.parquet", true).contains("bloom_filter"));
}

#[test]
fn statistics_print_typed() {
    let text = meta("alltypes_tiny_pages_plain.parquet", false);
    for (column, stats) in [
        ("id ", "min=0 max=7299 nulls=0"),
        ("bool_col ", "min=false max=true nulls=0"),
        ("bigint_col ", "min=0 max=90 nulls=0"),
        ("float_col ", "min=0.0 max=9.9 nulls=0"),
        ("date_string_col ", "min=01/01/09 max=12/31/10 nulls=0"),
    ] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(column))
            .unwrap_or_else(|| panic!("no line for {column}:\n{text}"));
        assert!(line.ends_with(stats), "{line}");
    }
    for (name, stats) in [
        ("int32_decimal.parquet", "min=1.00 max=24.00"),
        ("int64_decimal.parquet", "min=1.00 max=24.00"),
        ("fixed_length_decimal.parquet", "min=2.00 max=24.00"),
    ] {
        let text = meta(name, false);
        assert!(text.contains(stats), "{name}:\n{text}");
    }
}

#[test]
fn json_statistics_are_typed_with_their_bytes() {
    let out: Value =
        serde_json::from_str(&meta("alltypes_tiny_pages_plain.parquet", true)).unwrap();
    let columns = out["row_groups"][0]["columns"].as_array().unwrap();
    let stats = |path: &str| {
        columns
            .iter()
            .find(|c| c["path"] == path)
            .unwrap_or_else(|| panic!("no {path}"))["statistics"]
            .clone()
    };
    let id = stats("id");
    assert_eq!(
        (id["min"].clone(), id["max"].clone()),
        (Value::from(0), Value::from(7299))
    );
    assert_eq!(id["max_bytes"], "831c0000");
    assert_eq!(stats("bool_col")["max"], true);
    assert_eq!(stats("date_string_col")["min"], "01/01/09");
    let decimal: Value = serde_json::from_str(&meta("int32_decimal.parquet", true)).unwrap();
    assert_eq!(
        decimal["row_groups"][0]["columns"][0]["statistics"]["max"],
        "24.00"
    );
}
