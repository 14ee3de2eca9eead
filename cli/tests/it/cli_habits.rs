//! The CLI habits of parquet-cli, pqrs and duckdb: `parq cat --format csv`, `parq head`,
//! `parq pages`, and `parq rewrite`'s progress bar (stderr only when it is a terminal).
//! The CSV test writes its input with pyarrow and reads the output back with Python's `csv`
//! module (skipped without pyarrow, failed under `PARQ_REQUIRE_ORACLES=1` as in CI).

use crate::python;
use crate::support;

use std::collections::BTreeMap;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::*;

const TIMEOUT: Duration = Duration::from_secs(60);

fn parq(args: &[&OsStr], scratch: &Path) -> Run {
    run_parq(args, scratch, TIMEOUT)
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

fn stdout(run: &Run) -> String {
    String::from_utf8(run.stdout.clone()).expect("utf-8 output")
}

/// A run that failed must have failed cleanly: exit code 1 and a `parq: error:` message,
/// never a panic, a signal or a hang.
fn assert_clean(run: &Run, what: &str) {
    assert!(!run.timed_out, "{what}: timed out");
    assert!(
        !run.stderr.contains("panicked"),
        "{what}: panicked: {}",
        run.stderr
    );
    match run.code {
        Some(0) => {}
        Some(1) => assert!(
            run.stderr.starts_with("parq: error: "),
            "{what}: exit 1 without an error message: {}",
            run.stderr
        ),
        other => panic!("{what}: exit {other:?}: {}", run.stderr),
    }
}

/// Writes `path` with pyarrow from `script` (which gets `path` as `sys.argv[1]`).
fn pyarrow_write(script: &str, path: &Path) {
    let out = Command::new("python3")
        .args(["-c", script])
        .arg(path)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "pyarrow script failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const CSV_INPUT: &str = r#"
import sys, pyarrow as pa, pyarrow.parquet as pq
t = pa.table({
    "id": pa.array([1, 2, 3, 4, 5, 6], pa.int64()),
    "name": pa.array(["plain", "with,comma", 'with "quotes"', "two\nlines", "", None]),
    "score": pa.array([1.5, None, float("nan"), -0.25, float("inf"), 2.0]),
    "tags": pa.array([["a", "b"], [], None, ["x,y"], [None], ['q"']], pa.list_(pa.string())),
    "point": pa.array([{"x": 1, "y": "p"}, None, {"x": None, "y": None}, {"x": 4, "y": "s"},
                       {"x": 5, "y": "t"}, {"x": 6, "y": "u"}],
                      pa.struct([("x", pa.int32()), ("y", pa.string())])),
    "blob": pa.array([b"\x00\xff", None, b"", b"a", b"b", b"c"], pa.binary()),
})
pq.write_table(t, sys.argv[1])
"#;

/// `parq cat --format csv`: a header of top-level names, RFC 4180 quoting, nested values as
/// their JSON text in a quoted cell, null as an empty cell (an empty string as `""`).
#[test]
fn cat_csv_quotes_cells_and_prints_nested_values_as_json() {
    python::require_python!("pyarrow");
    let dir = scratch_dir("cli-habits-csv");
    let file = dir.join("csv.parquet");
    pyarrow_write(CSV_INPUT, &file);
    let run = parq(
        &[os("cat"), file.as_os_str(), os("--format"), os("csv")],
        &dir,
    );
    assert!(run.success(), "{}", run.stderr);
    let expected = "\
id,name,score,tags,point,blob
1,plain,1.5,\"[\"\"a\"\",\"\"b\"\"]\",\"{\"\"x\"\":1,\"\"y\"\":\"\"p\"\"}\",00ff
2,\"with,comma\",,\"[]\",,
3,\"with \"\"quotes\"\"\",NaN,,\"{\"\"x\"\":null,\"\"y\"\":null}\",\"\"
4,\"two\nlines\",-0.25,\"[\"\"x,y\"\"]\",\"{\"\"x\"\":4,\"\"y\"\":\"\"s\"\"}\",61
5,\"\",inf,\"[null]\",\"{\"\"x\"\":5,\"\"y\"\":\"\"t\"\"}\",62
6,,2.0,\"[\"\"q\\\"\"\"\"]\",\"{\"\"x\"\":6,\"\"y\"\":\"\"u\"\"}\",63
";
    assert_eq!(stdout(&run), expected);

    // Python's csv module reads back the cells: strings as they are, nested values as JSON.
    let check = r#"
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["id", "name", "score", "tags", "point", "blob"], rows[0]
assert [r[1] for r in rows[1:]] == ["plain", "with,comma", 'with "quotes"', "two\nlines", "", ""], rows
assert json.loads(rows[1][3]) == ["a", "b"] and json.loads(rows[4][3]) == ["x,y"]
assert json.loads(rows[6][3]) == ['q"'] and rows[3][3] == ""
assert json.loads(rows[3][4]) == {"x": None, "y": None}
assert all(len(r) == 6 for r in rows), rows
"#;
    let csv_path = dir.join("out.csv");
    std::fs::write(&csv_path, &run.stdout).unwrap();
    let out = Command::new("python3")
        .args(["-c", check])
        .arg(&csv_path)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "python csv check: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    // jsonl stays the default; --columns and --limit apply to CSV as well.
    let jsonl = parq(&[os("cat"), file.as_os_str()], &dir);
    let explicit = parq(
        &[os("cat"), file.as_os_str(), os("--format"), os("jsonl")],
        &dir,
    );
    assert!(jsonl.success() && explicit.success());
    assert_eq!(jsonl.stdout, explicit.stdout);
    assert!(stdout(&jsonl).starts_with("{\"id\":1,\"name\":\"plain\""));
    let some = parq(
        &[
            os("cat"),
            file.as_os_str(),
            os("--format"),
            os("csv"),
            os("--columns"),
            os("point.y,id"),
            os("--limit"),
            os("2"),
        ],
        &dir,
    );
    assert!(some.success(), "{}", some.stderr);
    let text = stdout(&some);
    let header = text.lines().next().unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(header == "point,id" || header == "id,point", "{header}");
    // No rows: the header alone.
    let none = parq(
        &[
            os("cat"),
            file.as_os_str(),
            os("--format"),
            os("csv"),
            os("--limit"),
            os("0"),
        ],
        &dir,
    );
    assert_eq!(stdout(&none), "id,name,score,tags,point,blob\n");
}

/// `parq head FILE [-n N]` prints what `parq cat --limit N` prints (10 rows by default).
#[test]
fn head_prints_the_first_rows_as_cat_limit_does() {
    let dir = scratch_dir("cli-habits-head");
    let data = parquet_test_data();
    for name in [
        "alltypes_tiny_pages_plain.parquet",
        "nested_lists.snappy.parquet",
        "alltypes_plain.parquet",
    ] {
        let file = data.join(name);
        let f = file.as_os_str();
        let cat10 = parq(&[os("cat"), f, os("--limit"), os("10")], &dir);
        let head = parq(&[os("head"), f], &dir);
        assert!(head.success(), "{name}: {}", head.stderr);
        assert_eq!(head.stdout, cat10.stdout, "{name}: head = cat --limit 10");
        for n in ["0", "1", "3", "100000"] {
            let cat = parq(&[os("cat"), f, os("--limit"), os(n)], &dir);
            let head = parq(&[os("head"), f, os("-n"), os(n)], &dir);
            assert!(head.success(), "{name} -n {n}: {}", head.stderr);
            assert_eq!(head.stdout, cat.stdout, "{name}: head -n {n}");
            let lines = stdout(&head).lines().count();
            let all = stdout(&parq(&[os("cat"), f], &dir)).lines().count();
            assert_eq!(lines, all.min(n.parse().unwrap()), "{name}: head -n {n}");
        }
        let cat = parq(
            &[
                os("cat"),
                f,
                os("--limit"),
                os("2"),
                os("--format"),
                os("csv"),
            ],
            &dir,
        );
        let head = parq(
            &[os("head"), f, os("-n"), os("2"), os("--format"), os("csv")],
            &dir,
        );
        assert_eq!(head.stdout, cat.stdout, "{name}: head --format csv");
    }
}

/// The start of a chunk as the reader finds it (a dictionary page offset of 0, or one past
/// the data pages, means none).
fn chunk_start(chunk: &Value) -> i64 {
    let data = chunk["data_page_offset"].as_i64().unwrap();
    match chunk["dictionary_page_offset"].as_i64() {
        Some(d) if d >= 4 && (d < data || data < 4) => d,
        _ => data,
    }
}

/// Checks `parq pages --json` against `parq meta --json`: every chunk walked, pages numbered
/// from 0 and contiguous from the chunk's start, the data pages' values adding up to the
/// chunk's, a dictionary page only first. Returns the number of pages.
fn check_pages(name: &str, meta: &Value, pages: &Value) -> usize {
    let pages = pages["pages"].as_array().expect("pages array");
    let mut by_chunk: BTreeMap<(u64, String), Vec<&Value>> = BTreeMap::new();
    for p in pages {
        let key = (
            p["row_group"].as_u64().unwrap(),
            p["column"].as_str().unwrap().to_string(),
        );
        by_chunk.entry(key).or_default().push(p);
    }
    let mut chunks = 0;
    for (rg, group) in meta["row_groups"].as_array().unwrap().iter().enumerate() {
        for chunk in group["columns"].as_array().unwrap() {
            chunks += 1;
            let path = chunk["path"].as_str().unwrap().to_string();
            let what = format!("{name}: row group {rg}, column {path}");
            let list = by_chunk
                .get(&(rg as u64, path.clone()))
                .unwrap_or_else(|| panic!("{what}: no pages listed"));
            let mut offset = chunk_start(chunk);
            let mut values = 0;
            for (i, p) in list.iter().enumerate() {
                assert_eq!(p["page"].as_u64(), Some(i as u64), "{what}: page index");
                assert_eq!(
                    p["offset"].as_i64(),
                    Some(offset),
                    "{what}: page {i} offset"
                );
                let ty = p["type"].as_str().unwrap();
                match ty {
                    "DATA_PAGE" | "DATA_PAGE_V2" => {
                        values += p["num_values"].as_i64().unwrap();
                        let v = p["version"].as_i64().unwrap();
                        assert_eq!(v, if ty == "DATA_PAGE" { 1 } else { 2 }, "{what}");
                        assert!(p["encoding"].is_string(), "{what}: page {i} encoding");
                    }
                    "DICTIONARY_PAGE" => assert_eq!(i, 0, "{what}: dictionary page not first"),
                    _ => {}
                }
                if ty == "DATA_PAGE_V2" {
                    assert!(p["num_nulls"].is_i64() && p["num_rows"].is_i64(), "{what}");
                }
                if i == 0 && chunk_start(chunk) != chunk["data_page_offset"].as_i64().unwrap() {
                    assert_eq!(
                        ty, "DICTIONARY_PAGE",
                        "{what}: page at the dictionary offset"
                    );
                }
                offset +=
                    p["header_size"].as_i64().unwrap() + p["compressed_size"].as_i64().unwrap();
            }
            // data_page_offset is the first data page, or (some writers, e.g. the one of
            // alltypes_tiny_pages.parquet) the dictionary page when dictionary_page_offset is
            // not set.
            let data_page_offset = chunk["data_page_offset"].as_i64().unwrap();
            let first_data = list.iter().position(|p| p["type"] != "DICTIONARY_PAGE");
            if let Some(first) = first_data {
                let at = list
                    .iter()
                    .position(|p| p["offset"].as_i64() == Some(data_page_offset));
                assert!(
                    at == Some(first) || (at == Some(0) && list[0]["type"] == "DICTIONARY_PAGE"),
                    "{what}: data_page_offset {data_page_offset} is page {at:?}, the first data page is {first}"
                );
            }
            assert_eq!(
                values,
                chunk["num_values"].as_i64().unwrap(),
                "{what}: values of the data pages"
            );
        }
    }
    assert_eq!(by_chunk.len(), chunks, "{name}: chunks listed");
    pages.len()
}

/// `parq pages` on every parquet-testing file: agrees with `parq meta` wherever it succeeds,
/// succeeds on every file whose pages are not encrypted, and never panics.
#[test]
fn pages_agree_with_meta_on_every_parquet_testing_file() {
    let dir = scratch_dir("cli-habits-pages");
    let data = parquet_test_data();
    let files = walk_files(&data, &|p| {
        p.file_name()
            .is_some_and(|n| n.to_string_lossy().contains(".parquet"))
    });
    assert!(files.len() > 50, "{} files", files.len());
    let mut walked = 0;
    let mut pages = 0;
    for file in &files {
        let name = rel(file, &data);
        let meta = parq(&[os("meta"), os("--json"), file.as_os_str()], &dir);
        let run = parq(&[os("pages"), os("--json"), file.as_os_str()], &dir);
        assert_clean(&run, &name);
        let text = parq(&[os("pages"), file.as_os_str()], &dir);
        assert_clean(&text, &name);
        if !meta.success() {
            assert!(!run.success(), "{name}: pages reads what meta cannot");
            continue;
        }
        if !run.success() {
            // Only files whose pages are encrypted (the footer in plain text) fail.
            assert!(
                name.contains("encrypt"),
                "{name}: parq pages failed: {}",
                run.stderr
            );
            continue;
        }
        let meta: Value = serde_json::from_slice(&meta.stdout).unwrap();
        let list: Value = serde_json::from_slice(&run.stdout)
            .unwrap_or_else(|e| panic!("{name}: pages --json is not JSON: {e}"));
        pages += check_pages(&name, &meta, &list);
        walked += 1;
        // Text output: a header line and one line per page.
        assert_eq!(
            stdout(&text).lines().count(),
            1 + list["pages"].as_array().unwrap().len()
        );
    }
    assert!(walked > 40, "only {walked} files walked");
    eprintln!("{walked} files, {pages} pages");
}

/// `parq pages` on bad_data and on damaged copies of good files: an error naming what is
/// wrong, or a listing; never a panic or a hang.
#[test]
fn pages_never_panics_on_bad_or_damaged_files() {
    let dir = scratch_dir("cli-habits-pages-bad");
    let bad = parquet_bad_data();
    for file in walk_files(&bad, &|_| true) {
        let name = rel(&file, &bad);
        for json in [false, true] {
            let mut args = vec![os("pages"), file.as_os_str()];
            if json {
                args.push(os("--json"));
            }
            assert_clean(&parq(&args, &dir), &name);
        }
    }
    // Byte flips across the page area of small files with dictionary, v1 and v2 pages.
    let data = parquet_test_data();
    for name in [
        "alltypes_dictionary.parquet",
        "datapage_v2.snappy.parquet",
        "nested_maps.snappy.parquet",
    ] {
        let original = std::fs::read(data.join(name)).unwrap();
        let reader = parq::read::ParquetReader::new(bytes::Bytes::from(original.clone())).unwrap();
        let body = reader
            .metadata()
            .row_groups
            .iter()
            .flat_map(|g| &g.columns)
            .filter_map(|c| c.meta_data.as_ref())
            .map(|m| (m.data_page_offset + m.total_compressed_size) as usize)
            .max()
            .unwrap()
            .min(original.len());
        let mut errors = 0;
        let step = (body / 60).max(1);
        for (k, at) in (4..body).step_by(step).enumerate() {
            let mut damaged = original.clone();
            damaged[at] ^= [0xff, 0x80, 0x01, 0x7f][k % 4];
            let path = dir.join(format!("{name}.{at}"));
            std::fs::write(&path, &damaged).unwrap();
            let run = parq(&[os("pages"), path.as_os_str()], &dir);
            assert_clean(&run, &format!("{name} flipped at {at}"));
            errors += usize::from(!run.success());
            let _ = std::fs::remove_file(&path);
        }
        assert!(errors > 0, "{name}: no flip was noticed");
    }
}

/// `--columns` takes leaf paths or their prefixes (a top-level name); an unknown name is an
/// error that names it.
#[test]
fn pages_columns_select_chunks() {
    let dir = scratch_dir("cli-habits-pages-columns");
    let data = parquet_test_data();
    let file = data.join("alltypes_dictionary.parquet");
    let run = parq(
        &[
            os("pages"),
            file.as_os_str(),
            os("--json"),
            os("--columns"),
            os("id, string_col"),
        ],
        &dir,
    );
    assert!(run.success(), "{}", run.stderr);
    let v: Value = serde_json::from_slice(&run.stdout).unwrap();
    let mut cols: Vec<&str> = v["pages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["column"].as_str().unwrap())
        .collect();
    cols.dedup();
    assert_eq!(cols, ["id", "string_col"]);

    let nested = data.join("nested_maps.snappy.parquet");
    let run = parq(
        &[
            os("pages"),
            nested.as_os_str(),
            os("--json"),
            os("--columns"),
            os("a"),
        ],
        &dir,
    );
    assert!(run.success(), "{}", run.stderr);
    let v: Value = serde_json::from_slice(&run.stdout).unwrap();
    let pages = v["pages"].as_array().unwrap();
    assert!(!pages.is_empty());
    assert!(pages
        .iter()
        .all(|p| p["column"].as_str().unwrap().starts_with("a.")));

    let run = parq(
        &[os("pages"), file.as_os_str(), os("--columns"), os("nope")],
        &dir,
    );
    assert_eq!(run.code, Some(1));
    assert!(run.stderr.contains("\"nope\""), "{}", run.stderr);
}

/// `parq rewrite` draws its progress bar only on a terminal: with stderr a pipe it writes
/// nothing there.
#[test]
fn rewrite_is_quiet_when_stderr_is_not_a_terminal() {
    let dir = scratch_dir("cli-habits-rewrite");
    let input = parquet_test_data().join("alltypes_tiny_pages.parquet");
    let output = dir.join("out.parquet");
    let out = Command::new(parq_bin())
        .arg("rewrite")
        .arg(&input)
        .arg(&output)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.stderr.is_empty(),
        "stderr: {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("7300 rows"));
}

/// On a terminal (a pseudo-terminal made by util-linux `script`), the bar is drawn on stderr.
/// Skipped, with a note, where `script` is missing.
#[test]
fn rewrite_shows_progress_on_a_terminal() {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    let Some(script) = script else {
        eprintln!("note: util-linux `script` not found; the terminal case is not exercised");
        return;
    };
    let dir = scratch_dir("cli-habits-rewrite-tty");
    let input = parquet_test_data().join("alltypes_tiny_pages.parquet");
    let output = dir.join("out.parquet");
    let typescript = dir.join("typescript");
    // stdout to /dev/null: only stderr reaches the terminal.
    let command = format!(
        "'{}' rewrite '{}' '{}' >/dev/null",
        parq_bin().display(),
        input.display(),
        output.display()
    );
    let out = Command::new(script)
        .args(["-q", "-e", "-c", &command])
        .arg(&typescript)
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drawn = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    assert!(drawn.contains("7,300 rows"), "{drawn}");
    assert!(output.exists());
}
