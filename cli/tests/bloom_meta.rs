//! `parq meta` shows each column chunk's bloom filter: offset and length, or offset and an
//! unknown length for writers that did not record it (parquet-mr files of parquet-testing).

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
