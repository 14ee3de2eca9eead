//! `parq cat --where` against pyarrow's `pq.read_table(..., filters=...)`.
//!
//! tests/it/support/gen_filtered.py writes files with pyarrow (several row groups, small pages,
//! page index and bloom filters on and off, sorted and shuffled rows, nulls, NaN, -0.0,
//! unsigned and decimal columns) and, for each of ~80 predicates, the row ids pyarrow keeps
//! (checked there against a plain Python evaluation). parq must keep the same rows, in the
//! same order. The same kinds of predicates run over parquet-testing's files, compared by
//! row count.

use crate::python;
use crate::support;

use std::process::{Command, Stdio};

use serde_json::Value;
use support::*;

#[test]
fn filtered_rows_equal_pyarrow() {
    python::require_python!("pyarrow");
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
    python::require_python!("pyarrow");
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
    python::require_python!("pyarrow");
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

/// Timestamp, date and decimal literals in their text forms, and `IS [NOT] NULL` on a
/// struct, on a file pyarrow writes; the rows each predicate keeps are computed in Python
/// from the values written (not from a reader).
#[test]
fn text_literals_and_struct_nulls_equal_python() {
    python::require_python!("pyarrow");
    let scratch = scratch_dir("filter_pyarrow_text_literals");
    let file = scratch.join("typed.parquet");
    let script = r#"
import sys, json, datetime as dt, decimal as dec
import pyarrow as pa, pyarrow.parquet as pq
utc = dt.timezone.utc
noon = dt.datetime(2026, 11, 30, 12, 0, 0, tzinfo=utc)
n = 40
ts = [noon + dt.timedelta(microseconds=(i - 20) * 450_000_000 + (i % 3) - 1) for i in range(n)]
ts[7] = None
d = [dt.date(2026, 11, 20) + dt.timedelta(days=i // 2) for i in range(n)]
d[9] = None
price = [dec.Decimal(1200 + 3 * i - 50) / 100 for i in range(n)]
s = [None if i % 5 == 0 else {"a": None if i % 3 == 0 else i} for i in range(n)]
t = pa.table({
    "rid": pa.array(range(n), pa.int64()),
    "ts": pa.array(ts, pa.timestamp("us", tz="UTC")),
    "d": pa.array(d, pa.date32()),
    "price": pa.array(price, pa.decimal128(9, 2)),
    "s": pa.array(s, pa.struct([("a", pa.int64())])),
})
pq.write_table(t, sys.argv[1], row_group_size=10, data_page_size=64)
at = lambda text: dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
cases = {
    "ts > '2026-11-30T12:00:00Z'": lambda i: ts[i] is not None and ts[i] > noon,
    "ts <= '2026-11-30 13:30:00+01:30'": lambda i: ts[i] is not None and ts[i] <= noon,
    "ts = '" + ts[3].isoformat() + "'": lambda i: ts[i] == ts[3],
    "ts < '2026-11-30T11:00:00.000001Z'": lambda i: ts[i] is not None and ts[i] < at("2026-11-30T11:00:00.000001Z"),
    "d = '2026-11-30'": lambda i: d[i] == dt.date(2026, 11, 30),
    "d >= '2026-12-01' or d is null": lambda i: d[i] is None or d[i] >= dt.date(2026, 12, 1),
    "not d < '2026-11-25'": lambda i: d[i] is not None and d[i] >= dt.date(2026, 11, 25),
    "price < 12.50": lambda i: price[i] < dec.Decimal("12.50"),
    "price = 12.01": lambda i: price[i] == dec.Decimal("12.01"),
    "price >= 12 and price <= 12.3": lambda i: dec.Decimal(12) <= price[i] <= dec.Decimal("12.3"),
    "s is null": lambda i: s[i] is None,
    "s is not null": lambda i: s[i] is not None,
    "s.a is null": lambda i: s[i] is None or s[i]["a"] is None,
    "s is not null and s.a is null": lambda i: s[i] is not None and s[i]["a"] is None,
}
json.dump([{"where": w, "rids": [i for i in range(n) if f(i)]} for w, f in cases.items()], sys.stdout)
"#;
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(&file)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cases: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(cases.len(), 14);
    let mut failures = Vec::new();
    for case in &cases {
        let filter = case["where"].as_str().unwrap();
        let want: Vec<u64> = case["rids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert!(
            !want.is_empty() && want.len() < 40,
            "{filter}: a case must keep some rows, not all"
        );
        let run = parq_cat(&file, &["--columns", "rid", "--where", filter], &scratch);
        if run.code != Some(0) {
            failures.push(format!("{filter}: parq failed: {}", run.stderr));
            continue;
        }
        let got: Vec<u64> = String::from_utf8_lossy(&run.stdout)
            .lines()
            .map(|l| {
                serde_json::from_str::<Value>(l).unwrap()["rid"]
                    .as_u64()
                    .unwrap()
            })
            .collect();
        if got != want {
            failures.push(format!("{filter}: parq {got:?}, python {want:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // A literal the column cannot hold exactly is an error naming the column.
    let run = parq_cat(&file, &["--where", "price < 12.505"], &scratch);
    assert_ne!(run.code, Some(0));
    assert!(
        run.stderr.contains("price") && run.stderr.contains("digits after the point"),
        "{}",
        run.stderr
    );
}
