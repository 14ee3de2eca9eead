//! Nested columns round-tripped with pyarrow, both ways.
//!
//! tests/it/support/gen_nested.py writes ~90 files with lists, structs and maps
//! (list<struct<list>>, map<string, list>, structs of structs, lists of maps,
//! lists 3 and 4 deep, leaf types inside structs; required and optional at every
//! level; 0/1/50/100 % nulls per level and empty lists; v1 and v2 pages,
//! dictionary on and off, every codec, tiny pages, several row groups; pages
//! that start inside a record; maps with repeated keys). Its `--check` first
//! proves that tests/it/support/expected.py (the oracle) prints the generator's own
//! data.
//!
//! - `parq_reads_nested_pyarrow_files`: `parq cat` prints what pyarrow reads.
//! - `parq_writes_nested_pyarrow_reads`: `parq rewrite` keeps the data, as pyarrow and
//!   DuckDB read it.

use crate::python;
use crate::support;

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;
use support::*;

/// Generated files on which `parq cat` is allowed to fail for now, with the
/// reason. A listed file that starts passing fails the test: remove it then.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

/// Writes the nested files into `dir` (checking expected.py against the
/// generator's data) and returns them, sorted.
fn generate(dir: &Path) -> Vec<PathBuf> {
    let out = Command::new("python3")
        .arg(support_dir().join("gen_nested.py"))
        .arg(dir)
        .arg("--check")
        .stdin(Stdio::null())
        .output()
        .expect("run python3 gen_nested.py");
    assert!(
        out.status.success(),
        "gen_nested.py failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let files = walk_files(dir, &|p: &Path| {
        p.extension().is_some_and(|e| e == "parquet")
    });
    assert!(
        files.len() >= 80,
        "gen_nested.py wrote only {} files",
        files.len()
    );
    files
}

#[test]
fn parq_reads_nested_pyarrow_files() {
    python::require_python!("pyarrow");
    let scratch = scratch_dir("nested_pyarrow");
    let gen_dir = scratch.join("files");
    let files = generate(&gen_dir);

    let expected = expected_batch(&files, &scratch, 2);
    parq_bin();

    let results = par_map(&expected, threads(), |e| {
        let name = rel(&e.file, &gen_dir);
        if e.status != "ok" {
            // pyarrow wrote every file and reads it: anything else is a bug in
            // the generator or in expected.py.
            return (
                name,
                None,
                format!("expected.py: {} ({})", e.status, e.reason),
            );
        }
        let want = load_expected(&e.out);
        let outcome = cat_and_compare(&e.file, &[], &want, &scratch);
        let line = outcome.to_string();
        (name, Some(outcome.is_match()), line)
    });

    let mut errors = Vec::new();
    let mut failing = Vec::new();
    let mut passing = Vec::new();
    for (name, matched, line) in &results {
        eprintln!("{name:56} {line}");
        match matched {
            Some(true) => passing.push(name.clone()),
            Some(false) => {
                failing.push(name.clone());
                if !KNOWN_FAILURES.iter().any(|(n, _)| n == name) {
                    errors.push(format!("{name}: {line}"));
                }
            }
            None => errors.push(format!("{name}: {line}")),
        }
    }
    errors.extend(check_known_failures(
        KNOWN_FAILURES,
        &failing,
        &passing,
        "KNOWN_FAILURES",
    ));
    eprintln!(
        "nested_pyarrow: {} files matched / {} nested files written by pyarrow",
        passing.len(),
        results.len()
    );
    if errors.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        errors.is_empty(),
        "{} nested pyarrow failure(s) (files kept in {}):\n  {}",
        errors.len(),
        scratch.display(),
        errors.join("\n  ")
    );
}

/// `parq rewrite` options for the i-th file: page versions, encodings and
/// codecs vary across files.
fn rewrite_options(i: usize) -> Vec<&'static str> {
    let mut args = vec!["--page-version", if i % 2 == 0 { "1" } else { "2" }];
    args.extend(["--encoding", ["auto", "dictionary", "plain"][i / 2 % 3]]);
    if i % 5 == 4 {
        args.extend(["--compression", "zstd"]);
    }
    args
}

// ---------------------------------------------------------------- writing
//
// For every file gen_nested.py writes:
//   1. `parq rewrite FILE OUT` (page version, encoding and codec varied across files by
//      `rewrite_options`);
//   2. tests/it/support/compare_nested.py FILE OUT: pyarrow reads OUT equal to FILE (same Arrow
//      schema up to list-element names, every value and every null at every level, float
//      bits, map entries in order with repeated keys), and DuckDB's
//      `SELECT * FROM read_parquet(OUT)` equals its reading of FILE (DuckDB refuses maps with
//      repeated keys and MAP_KEY_VALUE groups without a value: those originals are "skip",
//      never "error");
//   3. `parq cat OUT` prints pyarrow's reading of FILE (parq reads its own nested output).
#[test]
fn parq_writes_nested_pyarrow_reads() {
    python::require_python!("pyarrow", "duckdb");
    let scratch = scratch_dir("nested_pyarrow_write");
    let gen_dir = scratch.join("files");
    let out_dir = scratch.join("rewritten");
    std::fs::create_dir_all(&out_dir).expect("create rewritten dir");
    let files = generate(&gen_dir);
    parq_bin();

    // 1. parq rewrite FILE OUT
    let indexed: Vec<(usize, &PathBuf)> = files.iter().enumerate().collect();
    let rewrites = par_map(&indexed, threads(), |(i, file)| {
        let name = rel(file, &gen_dir);
        let out = out_dir.join(&name);
        let opts = rewrite_options(*i);
        let mut args: Vec<&OsStr> = vec![OsStr::new("rewrite"), file.as_os_str(), out.as_os_str()];
        args.extend(opts.iter().map(OsStr::new));
        let run = run_parq(&args, &scratch, Duration::from_secs(60));
        let result = if run.success() {
            Ok(out)
        } else {
            Err(format!(
                "parq rewrite {}: {}",
                opts.join(" "),
                run.describe_error()
            ))
        };
        (name, (*file).clone(), result)
    });
    let mut errors: Vec<String> = rewrites
        .iter()
        .filter_map(|(name, _, r)| r.as_ref().err().map(|e| format!("{name}: {e}")))
        .collect();
    let pairs: Vec<(&String, &PathBuf, &PathBuf)> = rewrites
        .iter()
        .filter_map(|(name, file, r)| r.as_ref().ok().map(|out| (name, file, out)))
        .collect();

    // 2. pyarrow and DuckDB read OUT equal to FILE.
    if !pairs.is_empty() {
        let out = Command::new("python3")
            .arg(support_dir().join("compare_nested.py"))
            .args(
                pairs
                    .iter()
                    .flat_map(|(_, f, o)| [f.as_os_str(), o.as_os_str()]),
            )
            .stdin(Stdio::null())
            .output()
            .expect("run python3 compare_nested.py");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let verdicts: Vec<Value> = stdout
            .lines()
            .map(|l| serde_json::from_str(l).expect("compare_nested.py prints JSON lines"))
            .collect();
        assert_eq!(
            verdicts.len(),
            pairs.len(),
            "compare_nested.py ({}) answered {} of {} pairs:\n{}",
            out.status,
            verdicts.len(),
            pairs.len(),
            String::from_utf8_lossy(&out.stderr)
        );
        for ((name, _, _), v) in pairs.iter().zip(&verdicts) {
            for reader in ["pyarrow", "duckdb"] {
                let verdict = v[reader].as_str().unwrap_or("no verdict");
                let ok = verdict == "equal" || (reader == "duckdb" && verdict.starts_with("skip"));
                eprintln!("{name:56} {reader}: {}", clip(verdict, 160));
                if !ok {
                    errors.push(format!("{name}: {reader}: {}", clip(verdict, 300)));
                }
            }
        }
    }

    // 3. parq cat OUT prints pyarrow's reading of FILE.
    let originals: Vec<PathBuf> = pairs.iter().map(|(_, f, _)| (*f).clone()).collect();
    let expected = expected_batch(&originals, &scratch, 2);
    let jobs: Vec<_> = pairs.iter().zip(&expected).collect();
    let cats = par_map(&jobs, threads(), |((name, _, out), e)| {
        if e.status != "ok" {
            return Some(format!("{name}: expected.py: {} ({})", e.status, e.reason));
        }
        let outcome = cat_and_compare(out, &[], &load_expected(&e.out), &scratch);
        (!outcome.is_match()).then(|| format!("{name}: parq cat of the rewrite: {outcome}"))
    });
    errors.extend(cats.into_iter().flatten());

    eprintln!(
        "nested_pyarrow_write: {} files rewritten, {} error(s)",
        pairs.len(),
        errors.len()
    );
    if errors.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        errors.is_empty(),
        "{} nested write failure(s) (files kept in {}):\n  {}",
        errors.len(),
        scratch.display(),
        errors.join("\n  ")
    );
}
