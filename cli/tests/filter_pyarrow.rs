//! `parq cat --where` against pyarrow's `pq.read_table(..., filters=...)`.
//!
//! tests/support/gen_filtered.py writes files with pyarrow (several row groups, small pages,
//! page index and bloom filters on and off, sorted and shuffled rows, nulls, NaN, -0.0,
//! unsigned and decimal columns) and, for each of ~80 predicates, the row ids pyarrow keeps
//! (checked there against a plain Python evaluation). parq must keep the same rows, in the
//! same order. The same kinds of predicates run over parquet-testing's files, compared by
//! row count.

mod support;

use std::process::{Command, Stdio};

use serde_json::Value;
use support::*;

#[test]
fn filtered_rows_equal_pyarrow() {
    require_pyarrow();
    let scratch = scratch_dir("filter_pyarrow");
    let dir = scratch.join("files");
    let out = Command::new("python3")
        .arg(support_dir().join("gen_filtered.py"))
        .arg(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("run python3 gen_filtered.py");
    assert!(
        out.status.success(),
        "gen_filtered.py failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let cases: Vec<Value> =
        serde_json::from_slice(&std::fs::read(dir.join("cases.json")).unwrap()).unwrap();
    assert!(cases.len() >= 300, "only {} cases", cases.len());
    let failures: Vec<String> = par_map(&cases, threads(), |case| {
        let file = case["file"].as_str().unwrap();
        let filter = case["where"].as_str().unwrap();
        let want: Vec<u64> = case["rids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let run = parq_cat(
            file.as_ref(),
            &["--columns", "rid", "--where", filter],
            &scratch,
        );
        if run.code != Some(0) {
            return Some(format!("{file}: {filter}: parq failed: {}", run.stderr));
        }
        let got: Vec<u64> = String::from_utf8_lossy(&run.stdout)
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["rid"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        (got != want).then(|| {
            format!(
                "{file}: {filter}: {} rows, pyarrow {} (first difference at {:?})",
                got.len(),
                want.len(),
                got.iter().zip(&want).position(|(a, b)| a != b)
            )
        })
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn scan_reports_pruning() {
    require_pyarrow();
    let scratch = scratch_dir("filter_pyarrow_scan");
    let file = scratch.join("sorted.parquet");
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, pyarrow as pa, pyarrow.parquet as pq; \
             pq.write_table(pa.table({'id': pa.array(range(10000), pa.int64())}), sys.argv[1], \
             row_group_size=1000, write_page_index=True, max_rows_per_page=100)",
        ])
        .arg(&file)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let run = run_parq(
        &[
            "scan".as_ref(),
            file.as_os_str(),
            "--where".as_ref(),
            "id = 4321".as_ref(),
            "--json".as_ref(),
            "--repeat".as_ref(),
            "1".as_ref(),
        ],
        &scratch,
        CAT_TIMEOUT,
    );
    assert_eq!(run.code, Some(0), "{}", run.stderr);
    let v: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(v["row_groups_pruned"], 9, "{v}");
    assert_eq!(v["pages_pruned"], 9, "{v}");
    assert_eq!(v["rows_selected"], 100, "{v}");
    assert_eq!(v["rows_matched"], 1, "{v}");
    assert_eq!(v["rows"], 1, "{v}");

    // pyarrow's bloom filters: shuffled even values, no dictionary, so that neither the
    // statistics nor a dictionary can rule out an odd value; the filters (FPP 1e-4) rule out
    // all 10.
    let bloom = scratch.join("bloom.parquet");
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, random, pyarrow as pa, pyarrow.parquet as pq; \
             v = list(range(0, 20000, 2)); random.Random(7).shuffle(v); \
             pq.write_table(pa.table({'v': pa.array(v, pa.int64())}), sys.argv[1], \
             row_group_size=1000, use_dictionary=False, \
             bloom_filter_options={'v': {'ndv': 1000, 'fpp': 0.0001}})",
        ])
        .arg(&bloom)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for (filter, pruned, matched) in [("v = 4321", 10, 0), ("v in (4321, 4322)", 9, 1)] {
        let run = run_parq(
            &[
                "scan".as_ref(),
                bloom.as_os_str(),
                "--where".as_ref(),
                filter.as_ref(),
                "--json".as_ref(),
                "--repeat".as_ref(),
                "1".as_ref(),
            ],
            &scratch,
            CAT_TIMEOUT,
        );
        assert_eq!(run.code, Some(0), "{}", run.stderr);
        let v: Value = serde_json::from_slice(&run.stdout).unwrap();
        assert_eq!(v["row_groups_pruned"], pruned, "{filter}: {v}");
        assert_eq!(v["rows_matched"], matched, "{filter}: {v}");
    }

    // A malformed expression: an error that points at the spot.
    let run = parq_cat(&file, &["--where", "id = = 3"], &scratch);
    assert_eq!(run.code, Some(1));
    assert!(
        run.stderr.contains("at byte 5") && run.stderr.contains("       ^"),
        "{}",
        run.stderr
    );
}

#[test]
fn parquet_testing_counts_equal_pyarrow() {
    require_pyarrow();
    let scratch = scratch_dir("filter_pyarrow_testing");
    let cases_file = scratch.join("cases.json");
    let out = Command::new("python3")
        .arg(support_dir().join("gen_filtered.py"))
        .arg("--parquet-testing")
        .arg(parquet_test_data())
        .arg(&cases_file)
        .stdin(Stdio::null())
        .output()
        .expect("run python3 gen_filtered.py --parquet-testing");
    assert!(
        out.status.success(),
        "gen_filtered.py failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let cases: Vec<Value> = serde_json::from_slice(&std::fs::read(&cases_file).unwrap()).unwrap();
    assert!(cases.len() >= 200, "only {} cases", cases.len());
    let failures: Vec<String> = par_map(&cases, threads(), |case| {
        let file = case["file"].as_str().unwrap();
        let filter = case["where"].as_str().unwrap();
        let column = case["column"].as_str().unwrap();
        let want = case["count"].as_u64().unwrap() as usize;
        let run = parq_cat(
            file.as_ref(),
            &["--columns", column, "--where", filter],
            &scratch,
        );
        if run.code != Some(0) {
            return Some(format!("{file}: {filter}: parq failed: {}", run.stderr));
        }
        let got = String::from_utf8_lossy(&run.stdout).lines().count();
        (got != want).then(|| format!("{file}: {filter}: {got} rows, pyarrow {want}"))
    })
    .into_iter()
    .flatten()
    .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
