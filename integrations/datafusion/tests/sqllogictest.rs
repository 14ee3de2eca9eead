//! DataFusion's own sqllogictest files, run with parq as the session's Parquet.
//!
//! Every `.slt` file of `datafusion-sqllogictest` (the crate, at the DataFusion version this
//! crate builds on) that names Parquet runs through that crate's engine, in a session that
//! [`parq_datafusion::register_as_parquet`] sends every Parquet read and write through parq.
//! Results must be DataFusion's; `EXPLAIN` text may differ (the plans name parq's source) and
//! is counted apart.
//!
//! A record that fails must be listed in `tests/sqllogictest/differences.txt` with its cause:
//! a failure not listed fails the test, and so does a listed record that now passes, so the
//! list stays true. The list has two kinds of entry:
//! - `env`: fails with DataFusion's own reader too, here (data this repository does not hold);
//! - `parq`: a difference of parq's.
//!
//! Environment:
//! - `PARQ_SLT_READER=datafusion` runs the same files with DataFusion's own Parquet, which
//!   must fail only the `env` entries;
//! - `PARQ_SLT_FILES=parquet,copy` runs only the files whose names contain one of the words;
//! - `PARQ_SLT_VERBOSE=1` prints every failure's message.
//!
//! The files read their data by paths relative to `datafusion/sqllogictest` in DataFusion's
//! repository (`../../parquet-testing/...`, `../core/tests/data/...`); the test builds that
//! layout under cargo's temporary directory from this repository's copies.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use datafusion_sqllogictest::{
    df_value_validator, setup_scratch_dir, value_normalizer, DFColumnType, DFOutput,
    DFSqlLogicTestError, DataFusion, TestContext,
};
use futures::StreamExt;
use indicatif::ProgressBar;
use sqllogictest::{parse_file, strict_column_validator, AsyncDB, DBOutput, Record};

const DIFFERENCES: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/sqllogictest/differences.txt"
);

/// Which Parquet the sessions use.
#[derive(Clone, Copy, PartialEq)]
enum Reader {
    Parq,
    DataFusion,
}

/// A listed failure: its kind (`env` or `parq`) and cause.
struct Listed {
    kind: String,
    cause: String,
}

impl Listed {
    /// Whether the failure is expected with `reader`: a difference of parq's only with parq.
    fn expected_with(&self, reader: Reader) -> bool {
        reader == Reader::Parq || self.kind == "env"
    }
}

/// One file's tally.
#[derive(Default)]
struct Tally {
    queries: usize,
    passed: usize,
    explain_failed: usize,
}

fn main() -> ExitCode {
    let reader = match std::env::var("PARQ_SLT_READER").as_deref() {
        Ok("datafusion") => Reader::DataFusion,
        _ => Reader::Parq,
    };
    let only: Vec<String> = std::env::var("PARQ_SLT_FILES")
        .map(|v| v.split(',').map(str::to_owned).collect())
        .unwrap_or_default();
    let verbose = std::env::var_os("PARQ_SLT_VERBOSE").is_some();

    let slt_crate = crate_dir("datafusion-sqllogictest");
    let work = build_layout(&slt_crate);
    std::env::set_current_dir(&work).expect("enter the sqllogictest layout");

    let listed = read_differences();
    let files = parquet_files(&slt_crate.join("test_files"));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");

    let selected: Vec<_> = files
        .iter()
        .filter(|(relative, _)| {
            let name = relative.to_string_lossy();
            only.is_empty() || only.iter().any(|w| name.contains(w.as_str()))
        })
        .collect();
    // Files are independent (a session and a scratch directory each): run as many at once
    // as there are cores.
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let root = work.parent().unwrap().parent().unwrap().to_path_buf();
    let results: Vec<_> = runtime.block_on(
        futures::stream::iter(selected)
            .map(|(relative, path)| {
                let (relative, path, root) = (relative.clone(), path.clone(), root.clone());
                runtime.spawn(async move {
                    let run = run_file(&relative, &path, reader, &root).await;
                    (relative.to_string_lossy().into_owned(), run)
                })
            })
            .buffer_unordered(cores)
            .map(|joined| joined.expect("a file's run panicked"))
            .collect(),
    );

    let mut tallies = BTreeMap::new();
    let mut unlisted = Vec::new();
    let mut seen = Vec::new();
    for (name, run) in results {
        let Some((tally, failures)) = run else {
            println!("{name}: skipped (the engine has no context for it)");
            continue;
        };
        for failure in failures {
            let key = format!("{name}:{}", failure.line);
            if failure.explain {
                continue;
            }
            if let Some(l) = listed.get(&key).filter(|l| l.expected_with(reader)) {
                println!("listed {key} ({}): {}", l.kind, l.cause);
                seen.push(key.clone());
            } else {
                unlisted.push((key.clone(), failure.sql.clone(), failure.message.clone()));
            }
            if verbose {
                println!("--- {key}\n{}\n{}", failure.sql, failure.message);
            }
        }
        tallies.insert(name, tally);
    }
    unlisted.sort();

    print_tallies(&tallies);
    let stale: Vec<&String> = listed
        .iter()
        .filter(|(_, l)| l.expected_with(reader))
        .map(|(key, _)| key)
        .filter(|key| ran(&tallies, key) && !seen.contains(key))
        .collect();
    for (key, sql, message) in &unlisted {
        println!(
            "NOT LISTED {key}\n  {}\n  {message}",
            sql.replace('\n', "\n  ")
        );
    }
    for key in &stale {
        println!("LISTED BUT PASSES {key}: take it out of {DIFFERENCES}");
    }
    if unlisted.is_empty() && stale.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// A record that failed.
struct Failure {
    line: u32,
    sql: String,
    message: String,
    explain: bool,
}

/// Runs one file's records in one session, as DataFusion's own runner does. `None` where the
/// engine has no context for the file.
async fn run_file(
    relative: &Path,
    path: &Path,
    reader: Reader,
    root: &Path,
) -> Option<(Tally, Vec<Failure>)> {
    let test_ctx = TestContext::try_new_for_test_file(relative).await?;
    let ctx = test_ctx.session_ctx().clone();
    if reader == Reader::Parq {
        parq_datafusion::register_as_parquet(&ctx).expect("parq registers as the Parquet format");
    }
    setup_scratch_dir(relative).expect("a scratch directory");
    let records = parse_file(path).expect("DataFusion's .slt files parse");

    let relative = relative.to_path_buf();
    // As an object-store path: no leading `/`.
    let root = root.to_string_lossy().trim_start_matches('/').to_owned();
    let mut runner = sqllogictest::Runner::new(|| {
        let engine = DataFusion::new(ctx.clone(), relative.clone(), ProgressBar::hidden());
        let root = root.clone();
        async move { Ok(Rooted { engine, root }) }
    });
    runner.add_label("Datafusion");
    runner.with_column_validator(strict_column_validator);
    runner.with_normalizer(value_normalizer);
    runner.with_validator(df_value_validator);

    let mut tally = Tally::default();
    let mut failures = Vec::new();
    for record in records {
        let (line, sql) = match &record {
            Record::Halt { .. } => break,
            Record::Statement { loc, sql, .. } | Record::Query { loc, sql, .. } => {
                (loc.line(), sql.clone())
            }
            _ => {
                // Settings and controls: they must apply, but are not counted.
                let _ = runner.run_async(record).await;
                continue;
            }
        };
        tally.queries += 1;
        match runner.run_async(record).await {
            Ok(_) => tally.passed += 1,
            Err(e) => {
                let explain = sql.trim_start().to_ascii_lowercase().starts_with("explain");
                tally.explain_failed += usize::from(explain);
                failures.push(Failure {
                    line,
                    sql,
                    message: e.to_string(),
                    explain,
                });
            }
        }
    }
    runner.shutdown_async().await;
    Some((tally, failures))
}

/// DataFusion's engine, with this layout's root written `WORKSPACE_ROOT` in results as the
/// engine writes the root of DataFusion's checkout (which it takes from where its crate was
/// built, here cargo's registry).
struct Rooted {
    engine: DataFusion,
    root: String,
}

#[async_trait::async_trait]
impl AsyncDB for Rooted {
    type Error = DFSqlLogicTestError;
    type ColumnType = DFColumnType;

    async fn run(&mut self, sql: &str) -> Result<DFOutput, DFSqlLogicTestError> {
        let mut output = self.engine.run(sql).await?;
        if let DBOutput::Rows { rows, .. } = &mut output {
            for cell in rows.iter_mut().flatten() {
                if cell.contains(&self.root) {
                    *cell = cell.replace(&self.root, "WORKSPACE_ROOT");
                }
            }
        }
        Ok(output)
    }

    async fn shutdown(&mut self) {
        self.engine.shutdown().await
    }

    fn engine_name(&self) -> &str {
        self.engine.engine_name()
    }
}

fn print_tallies(tallies: &BTreeMap<String, Tally>) {
    println!(
        "{:<44} {:>8} {:>8} {:>8}",
        "file", "records", "passed", "explain"
    );
    let mut total = Tally::default();
    for (name, t) in tallies {
        println!(
            "{name:<44} {:>8} {:>8} {:>8}",
            t.queries, t.passed, t.explain_failed
        );
        total.queries += t.queries;
        total.passed += t.passed;
        total.explain_failed += t.explain_failed;
    }
    println!(
        "{:<44} {:>8} {:>8} {:>8}",
        "total", total.queries, total.passed, total.explain_failed
    );
    println!("(explain: EXPLAIN records that differ, not counted as failures)");
}

/// Whether the file of `key` (`file:line`) ran.
fn ran(tallies: &BTreeMap<String, Tally>, key: &str) -> bool {
    key.rsplit_once(':')
        .is_some_and(|(file, _)| tallies.contains_key(file))
}

/// `differences.txt`: `file:line kind cause`, `#` comments.
fn read_differences() -> BTreeMap<String, Listed> {
    let text = fs::read_to_string(DIFFERENCES).expect("tests/sqllogictest/differences.txt");
    let mut listed = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let mut parts = line.splitn(3, char::is_whitespace);
        let (Some(key), Some(kind)) = (parts.next(), parts.next()) else {
            panic!("differences.txt: `{line}` is not `file:line kind cause`");
        };
        assert!(
            kind == "env" || kind == "parq",
            "differences.txt: kind `{kind}` is neither env nor parq"
        );
        let cause = parts.next().unwrap_or("").trim().to_owned();
        listed.insert(
            key.to_owned(),
            Listed {
                kind: kind.to_owned(),
                cause,
            },
        );
    }
    listed
}

/// The `.slt` files under `test_files` that name Parquet, by their path relative to it.
fn parquet_files(test_files: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut files = Vec::new();
    let mut dirs = vec![test_files.to_path_buf()];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).expect("test_files") {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "slt") {
                let text = fs::read_to_string(&path).expect("an .slt file");
                if text.to_ascii_lowercase().contains("parquet") {
                    let relative = path.strip_prefix(test_files).unwrap().to_path_buf();
                    files.push((relative, path));
                }
            }
        }
    }
    files.sort();
    files
}

/// The source directory of a package in this crate's dependency graph.
fn crate_dir(package: &str) -> PathBuf {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--manifest-path"])
        .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
        .output()
        .expect("cargo metadata");
    assert!(out.status.success(), "cargo metadata failed");
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).expect("metadata JSON");
    let manifest = meta["packages"]
        .as_array()
        .expect("packages")
        .iter()
        .find(|p| p["name"] == package)
        .and_then(|p| p["manifest_path"].as_str())
        .unwrap_or_else(|| panic!("{package} is not in the dependency graph"));
    Path::new(manifest).parent().unwrap().to_path_buf()
}

/// DataFusion's repository layout, as far as the files read it, with the working directory
/// `datafusion/sqllogictest` (whose `test_files/scratch` the files write into).
fn build_layout(slt_crate: &Path) -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let data = manifest.join("tests/sqllogictest/data");
    let root = Path::new(env!("CARGO_TARGET_TMPDIR")).join("sqllogictest");
    if root.exists() {
        fs::remove_dir_all(&root).expect("clear the previous layout");
    }
    let work = root.join("datafusion/sqllogictest");
    fs::create_dir_all(work.join("test_files")).expect("the working directory");
    let links = [
        (slt_crate.join("data"), work.join("data")),
        (data.join("core"), root.join("datafusion/core")),
        (
            crate_dir("datafusion-datasource-arrow"),
            root.join("datafusion/datasource-arrow"),
        ),
        (data.join("testing"), root.join("testing")),
        (
            manifest.join("../../testdata/parquet-testing"),
            root.join("parquet-testing"),
        ),
    ];
    for (target, link) in links {
        std::os::unix::fs::symlink(&target, &link)
            .unwrap_or_else(|e| panic!("link {} -> {}: {e}", link.display(), target.display()));
    }
    work
}
