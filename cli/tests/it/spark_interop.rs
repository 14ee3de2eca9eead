//! Spark reads what `parq rewrite` writes: every parquet-testing file, rewritten with the
//! default options and with `--compression lz4` (Hadoop-framed LZ4, which parq splits into
//! blocks that Hadoop's 256 KiB decompressor accepts), plus a file whose pages are over
//! 256 KiB, read by Spark's vectorised reader and by parquet-mr's, equal to pyarrow's reading
//! of the original (`support/spark_read.py`, one Spark session for every file).
//!
//! Without pyspark the test is skipped, or fails under `PARQ_REQUIRE_ORACLES=1` (CI). A difference that Spark also shows
//! on the original (a type Spark maps its own way) is Spark's, not parq's, and is only
//! counted.

use crate::python;
use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use bytes::Bytes;
use parq::metadata::{decode_footer, decode_page_header};
use serde_json::{json, Value};
use support::*;

/// Bytes that Hadoop's LZ4 decompressor buffers: a block larger than this fails in Spark.
const HADOOP_LZ4_BUFFER: i32 = 256 * 1024;

/// The largest uncompressed data page of a file, by its page headers.
fn largest_page(path: &Path) -> i32 {
    let bytes = Bytes::from(std::fs::read(path).unwrap());
    let meta = decode_footer(&bytes).unwrap();
    let mut largest = 0;
    for rg in &meta.row_groups {
        for c in &rg.columns {
            let m = c.meta_data.as_ref().unwrap();
            let mut at = m.dictionary_page_offset.unwrap_or(m.data_page_offset) as usize;
            let end = at + m.total_compressed_size as usize;
            while at < end {
                let (h, len) = decode_page_header(&bytes[at..]).unwrap();
                largest = largest.max(h.uncompressed_page_size);
                at += len + h.compressed_page_size as usize;
            }
        }
    }
    largest
}

#[test]
fn spark_reads_parq_rewrites_as_pyarrow_reads_the_originals() {
    python::require_python!("pyarrow", "pyspark");
    let dir = scratch_dir("spark_interop");
    // Pages over Hadoop's LZ4 buffer: 80k distinct int64 and 24-byte strings in one row group
    // (20k rows a page: 480 KiB string pages).
    let big = dir.join("big_pages.parquet");
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, pyarrow as pa, pyarrow.parquet as pq; n = 80000; \
             pq.write_table(pa.table({'id': pa.array([i * 7919 % 1000003 for i in range(n)], pa.int64()), \
             's': pa.array(['v%023d' % (i * 31 % n) for i in range(n)])}), sys.argv[1], \
             data_page_size=1 << 22, use_dictionary=False)",
        ])
        .arg(&big)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(parquet_test_data())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    inputs.sort();
    inputs.push(big.clone());
    let modes: [(&str, &[&str]); 2] = [("default", &[]), ("lz4", &["--compression", "lz4"])];
    let jobs: Vec<(PathBuf, &str, &[&str])> = inputs
        .iter()
        .flat_map(|i| modes.iter().map(move |(m, args)| (i.clone(), *m, *args)))
        .collect();
    let rewritten: Vec<Option<Value>> = par_map(&jobs, threads(), |(input, mode, args)| {
        let name = input.file_stem().unwrap().to_string_lossy();
        let output = dir.join(format!("{name}.{mode}.parquet"));
        let out = Command::new(parq_bin())
            .arg("rewrite")
            .arg(input)
            .arg(&output)
            .args(*args)
            .output()
            .unwrap();
        // Files parq refuses to rewrite (encrypted, over the page limit) are the rewrite
        // tests' business, not this one's.
        out.status.success().then(
            || json!({ "what": format!("{name} ({mode})"), "original": input, "rewrite": output }),
        )
    });
    let manifest: Vec<Value> = rewritten.into_iter().flatten().collect();
    assert!(manifest.len() >= 100, "only {} rewrites", manifest.len());
    let big_lz4 = dir.join("big_pages.lz4.parquet");
    assert!(
        largest_page(&big_lz4) > HADOOP_LZ4_BUFFER,
        "the big-page rewrite must hold a page over 256 KiB"
    );
    let manifest_path = dir.join("manifest.json");
    let results_path = dir.join("results.json");
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let out = Command::new("python3")
        .arg(support_dir().join("spark_read.py"))
        .arg(&manifest_path)
        .arg(&results_path)
        .output()
        .expect("run spark_read.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains(&format!("checked {} files", manifest.len())),
        "spark_read.py failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let results: Vec<Value> =
        serde_json::from_slice(&std::fs::read(&results_path).unwrap()).unwrap();
    let status = |r: &Value| r["status"].as_str().unwrap().to_string();
    let mut counts = std::collections::BTreeMap::new();
    for r in &results {
        *counts.entry(status(r)).or_insert(0) += 1;
    }
    eprintln!("Spark against pyarrow, per rewrite and reader: {counts:?}");
    for r in results.iter().filter(|r| status(r) != "equal") {
        eprintln!(
            "  {} [{}] {}: {}",
            r["what"],
            r["reader"],
            status(r),
            r["why"]
        );
    }
    let differs: Vec<String> = results
        .iter()
        .filter(|r| status(r) == "differs")
        .map(|r| format!("{} [{}]: {}", r["what"], r["reader"], r["why"]))
        .collect();
    assert!(
        differs.is_empty(),
        "Spark reads {} parq rewrites differently from pyarrow's reading of the original \
         (and from its own reading of it):\n{}",
        differs.len(),
        differs.join("\n")
    );
    for reader in ["vectorized", "parquet-mr"] {
        let big = results
            .iter()
            .find(|r| r["what"] == "big_pages (lz4)" && r["reader"] == reader);
        assert_eq!(
            big.map(status).as_deref(),
            Some("equal"),
            "Spark's {reader} reader and LZ4 pages over 256 KiB: {big:?}"
        );
    }
    // Today 222 of 256 are equal. The others fail on the originals too: Spark cannot read
    // FLOAT16, a key-only map, an unknown logical type, (vectorised) a BYTE_ARRAY decimal, or
    // hand PySpark INT96 values past year 9999; pyarrow cannot read 2 originals into Python
    // values (a map with optional keys, dates past year 9999).
    assert!(
        counts.get("equal").copied().unwrap_or(0) >= 200,
        "too few equal: {counts:?}"
    );
}
