//! Shared helpers for the integration tests that compare `parq cat` with pyarrow.
//!
//! The expected side is `tests/support/expected.py` (pyarrow); the actual side is
//! the `parq` binary. Both print JSON Lines; rows are compared parsed, key by key.
#![allow(dead_code)] // each test binary uses a different subset

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

/// Deadline for one `parq cat` run before it counts as a hang.
pub const CAT_TIMEOUT: Duration = Duration::from_secs(30);

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `../shared/parquet-testing` next to the work tree (CI lays it out the same way).
pub fn parquet_testing_dir() -> PathBuf {
    manifest_dir().join("../shared/parquet-testing")
}

pub fn support_dir() -> PathBuf {
    manifest_dir().join("tests/support")
}

/// The `parq` binary Cargo built for this test run.
pub fn parq_bin() -> PathBuf {
    let Some(path) = option_env!("CARGO_BIN_EXE_parq") else {
        panic!(
            "there is no `parq` binary target (Cargo.toml declares no [[bin]] parq), \
             so `parq cat` cannot be tested yet"
        );
    };
    let path = PathBuf::from(path);
    assert!(
        path.exists(),
        "parq binary {} was not built; run through `cargo test`",
        path.display()
    );
    path
}

/// Fails the test (never skips) when python3 or pyarrow is missing.
pub fn require_pyarrow() {
    let out = Command::new("python3")
        .args([
            "-c",
            "import pyarrow, pyarrow.parquet; print(pyarrow.__version__)",
        ])
        .output();
    match out {
        Ok(o) if o.status.success() => {}
        Ok(o) => panic!(
            "pyarrow is required by this test and `python3 -c 'import pyarrow'` failed \
             (install it: python3 -m pip install pyarrow):\n{}",
            String::from_utf8_lossy(&o.stderr)
        ),
        Err(e) => panic!("python3 is required by this test and could not be run: {e}"),
    }
}

/// A fresh scratch directory under Cargo's target tmp dir, unique to this process.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("create {}: {e}", dir.display()));
    dir
}

/// All regular files under `dir` (recursively) accepted by `keep`, sorted.
pub fn walk_files(dir: &Path, keep: &dyn Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = fs::read_dir(&d).unwrap_or_else(|e| panic!("read_dir {}: {e}", d.display()));
        for entry in entries {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                stack.push(path);
            } else if keep(&path) {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `path` relative to `base`, with `/` separators (for lists and messages).
pub fn rel(path: &Path, base: &Path) -> String {
    path.strip_prefix(base)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

// ------------------------------------------------------------------ expected (pyarrow)

/// One file's entry in expected.py's batch manifest.
#[derive(Debug, Clone)]
pub struct Expected {
    pub file: PathBuf,
    /// "ok", "nested", "unreadable" or "error" (a bug in expected.py).
    pub status: String,
    pub reason: String,
    /// The expected JSON Lines when status is "ok".
    pub out: PathBuf,
    pub rows: u64,
}

/// Runs expected.py over `files` in `jobs` python processes (one per chunk, not
/// one per file: importing pyarrow is the slow part). Results are in `files` order.
pub fn expected_batch(files: &[PathBuf], outdir: &Path, jobs: usize) -> Vec<Expected> {
    if files.is_empty() {
        return Vec::new();
    }
    let jobs = jobs.clamp(1, files.len());
    let chunk = files.len().div_ceil(jobs);
    let script = support_dir().join("expected.py");
    let chunks: Vec<(usize, &[PathBuf])> = files.chunks(chunk).enumerate().collect();
    let results = par_map(&chunks, jobs, |(n, part)| {
        let dir = outdir.join(format!("expected-{n}"));
        fs::create_dir_all(&dir).expect("create expected dir");
        let manifest = dir.join("manifest.json");
        let out = Command::new("python3")
            .arg(&script)
            .arg("--batch")
            .arg(&manifest)
            .arg(&dir)
            .args(part.iter())
            .stdin(Stdio::null())
            .output()
            .expect("run python3 expected.py");
        assert!(
            out.status.success(),
            "expected.py --batch failed ({}):\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let text = fs::read_to_string(&manifest).expect("read expected.py manifest");
        let v: Value = serde_json::from_str(&text).expect("parse expected.py manifest");
        v.as_array()
            .expect("manifest is a list")
            .iter()
            .map(|e| Expected {
                file: PathBuf::from(e["file"].as_str().unwrap_or_default()),
                status: e["status"].as_str().unwrap_or_default().to_string(),
                reason: e["reason"].as_str().unwrap_or_default().to_string(),
                out: PathBuf::from(e["out"].as_str().unwrap_or_default()),
                rows: e["rows"].as_u64().unwrap_or(0),
            })
            .collect::<Vec<_>>()
    });
    let all: Vec<Expected> = results.into_iter().flatten().collect();
    assert_eq!(all.len(), files.len(), "expected.py skipped files");
    all
}

/// Runs expected.py on one file with extra args (`--columns`, `--limit`).
/// Returns the expected JSON Lines, or Err(stderr) when it exits non-zero.
pub fn expected_single(file: &Path, extra: &[&str], out: &Path) -> Result<String, String> {
    let o = Command::new("python3")
        .arg(support_dir().join("expected.py"))
        .arg(file)
        .arg(out)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("run python3 expected.py");
    if o.status.success() {
        Ok(fs::read_to_string(out).expect("read expected output"))
    } else {
        Err(format!(
            "expected.py exit {}: {}",
            o.status,
            String::from_utf8_lossy(&o.stderr).trim()
        ))
    }
}

// ------------------------------------------------------------------ running parq

/// What one `parq` run did.
#[derive(Debug)]
pub struct Run {
    /// Exit code; None when killed by a signal or timed out.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: String,
    pub timed_out: bool,
    pub elapsed: Duration,
}

impl Run {
    pub fn success(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    /// Some(description) when the run panicked, crashed on a signal or hung.
    pub fn crash(&self) -> Option<String> {
        if self.timed_out {
            return Some(format!("hang: no exit within {:?}", CAT_TIMEOUT));
        }
        if self.code == Some(101) || self.stderr.contains("panicked") {
            return Some(format!(
                "panic (exit {:?}): {}",
                self.code,
                first_lines(&self.stderr, 3)
            ));
        }
        if self.code.is_none() {
            return Some(format!(
                "killed by a signal: {}",
                first_lines(&self.stderr, 3)
            ));
        }
        None
    }

    /// One line describing a failed run, for reports.
    pub fn describe_error(&self) -> String {
        if let Some(c) = self.crash() {
            return c;
        }
        format!("exit {:?}: {}", self.code, first_lines(&self.stderr, 3))
    }
}

pub fn first_lines(s: &str, n: usize) -> String {
    let s = s.trim();
    let mut out: Vec<&str> = s.lines().take(n).collect();
    if s.lines().count() > n {
        out.push("...");
    }
    clip(&out.join(" | "), 400)
}

pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...({} bytes)", &s[..end], s.len())
}

static RUN_SEQ: AtomicUsize = AtomicUsize::new(0);

/// Runs `parq ARGS` with stdout/stderr sent to files in `scratch` (so a big
/// output can never block the child), killing it after `timeout`.
pub fn run_parq(args: &[&std::ffi::OsStr], scratch: &Path, timeout: Duration) -> Run {
    let n = RUN_SEQ.fetch_add(1, Ordering::Relaxed);
    let out_path = scratch.join(format!("run-{n}.stdout"));
    let err_path = scratch.join(format!("run-{n}.stderr"));
    let out_f = fs::File::create(&out_path).expect("create stdout file");
    let err_f = fs::File::create(&err_path).expect("create stderr file");
    let start = Instant::now();
    let mut child = Command::new(parq_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(out_f)
        .stderr(err_f)
        .env("RUST_BACKTRACE", "0")
        .spawn()
        .expect("spawn parq");
    let mut timed_out = false;
    let mut sleep = Duration::from_millis(1);
    let status = loop {
        if let Some(st) = child.try_wait().expect("wait parq") {
            break Some(st);
        }
        if start.elapsed() > timeout {
            let _ = child.kill();
            let _ = child.wait();
            timed_out = true;
            break None;
        }
        std::thread::sleep(sleep);
        sleep = (sleep * 2).min(Duration::from_millis(20));
    };
    let elapsed = start.elapsed();
    let mut stdout = Vec::new();
    fs::File::open(&out_path)
        .and_then(|mut f| f.read_to_end(&mut stdout))
        .expect("read stdout file");
    let stderr = String::from_utf8_lossy(&fs::read(&err_path).unwrap_or_default()).into_owned();
    let _ = fs::remove_file(&out_path);
    let _ = fs::remove_file(&err_path);
    Run {
        code: status.and_then(|s| s.code()),
        stdout,
        stderr,
        timed_out,
        elapsed,
    }
}

/// `parq cat FILE EXTRA...`
pub fn parq_cat(file: &Path, extra: &[&str], scratch: &Path) -> Run {
    let mut args: Vec<&std::ffi::OsStr> = vec!["cat".as_ref(), file.as_os_str()];
    args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
    run_parq(&args, scratch, CAT_TIMEOUT)
}

// ------------------------------------------------------------------ comparing

/// How one file compared.
#[derive(Debug)]
pub enum Outcome {
    Matched {
        rows: usize,
    },
    Mismatch(String),
    /// parq failed (error exit, panic, signal or hang) on a file pyarrow reads.
    ParqFailed(String),
}

impl Outcome {
    pub fn is_match(&self) -> bool {
        matches!(self, Outcome::Matched { .. })
    }
}

impl std::fmt::Display for Outcome {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Outcome::Matched { rows } => write!(f, "matched ({rows} rows)"),
            Outcome::Mismatch(m) => write!(f, "MISMATCH {m}"),
            Outcome::ParqFailed(m) => write!(f, "PARQ FAILED {m}"),
        }
    }
}

/// Runs `parq cat` on `file` and compares with the expected JSON Lines.
pub fn cat_and_compare(file: &Path, extra: &[&str], expected: &str, scratch: &Path) -> Outcome {
    let run = parq_cat(file, extra, scratch);
    if !run.success() {
        return Outcome::ParqFailed(run.describe_error());
    }
    let actual = match std::str::from_utf8(&run.stdout) {
        Ok(s) => s,
        Err(e) => return Outcome::Mismatch(format!("stdout is not UTF-8: {e}")),
    };
    match compare_jsonl(expected, actual) {
        Ok(rows) => Outcome::Matched { rows },
        Err(m) => Outcome::Mismatch(m),
    }
}

/// Compares two JSON Lines texts row by row, key by key, parsed.
///
/// Integers must be equal exactly (an integer expected must be printed as an
/// integer). Where a float is expected, any JSON number is accepted whose f64
/// has the same bits (so `0.1` == `1e-1`, `1.0` == `1`, but `-0.0` != `0.0`).
/// Strings (including "NaN", "inf", "-inf") must be equal exactly. Key order is
/// not compared; a missing or extra key is a mismatch.
///
/// Known limit: serde_json (without arbitrary_precision) parses integers beyond
/// u64 (INT96 outside the i64 nanosecond range) as f64, so those compare
/// to ~16 significant digits only.
pub fn compare_jsonl(expected: &str, actual: &str) -> Result<usize, String> {
    let exp: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).collect();
    let act: Vec<&str> = actual.lines().filter(|l| !l.trim().is_empty()).collect();
    for (row, (e, a)) in exp.iter().zip(act.iter()).enumerate() {
        let ev: Value = serde_json::from_str(e).map_err(|err| {
            format!(
                "row {row}: expected line is not JSON ({err}): {}",
                clip(e, 200)
            )
        })?;
        let av: Value = serde_json::from_str(a)
            .map_err(|err| format!("row {row}: parq line is not JSON ({err}): {}", clip(a, 200)))?;
        let (Some(eo), Some(ao)) = (ev.as_object(), av.as_object()) else {
            return Err(format!(
                "row {row}: parq line is not a JSON object: {}",
                clip(a, 200)
            ));
        };
        compare_row(row, eo, ao)?;
    }
    if exp.len() != act.len() {
        return Err(format!(
            "row count: pyarrow {} rows, parq {} rows{}",
            exp.len(),
            act.len(),
            act.get(exp.len())
                .map(|l| format!(" (first extra parq row: {})", clip(l, 200)))
                .unwrap_or_default()
        ));
    }
    Ok(exp.len())
}

fn compare_row(row: usize, e: &Map<String, Value>, a: &Map<String, Value>) -> Result<(), String> {
    for (k, ev) in e {
        let Some(av) = a.get(k) else {
            return Err(format!(
                "row {row} key {k:?}: missing in parq output (pyarrow: {})",
                show(ev)
            ));
        };
        if !value_eq(ev, av) {
            return Err(format!(
                "row {row} key {k:?}: pyarrow {} != parq {}",
                show(ev),
                show(av)
            ));
        }
    }
    if let Some(k) = a.keys().find(|k| !e.contains_key(*k)) {
        return Err(format!(
            "row {row} key {k:?}: extra key in parq output ({})",
            show(&a[k])
        ));
    }
    Ok(())
}

fn show(v: &Value) -> String {
    clip(&v.to_string(), 200)
}

/// Equality of one expected value and one actual value (see `compare_jsonl`).
pub fn value_eq(e: &Value, a: &Value) -> bool {
    match (e, a) {
        (Value::Number(en), Value::Number(an)) => {
            if en.is_f64() {
                match (en.as_f64(), an.as_f64()) {
                    (Some(x), Some(y)) => x.to_bits() == y.to_bits(),
                    _ => false,
                }
            } else {
                match (as_i128(en), as_i128(an)) {
                    (Some(x), Some(y)) => x == y,
                    _ => false,
                }
            }
        }
        _ => e == a,
    }
}

fn as_i128(n: &serde_json::Number) -> Option<i128> {
    n.as_i64()
        .map(i128::from)
        .or_else(|| n.as_u64().map(i128::from))
}

// ------------------------------------------------------------------ threads

/// Maps `f` over `items` on `threads` threads; results in input order.
pub fn par_map<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let slots: Vec<Mutex<Option<R>>> = items.iter().map(|_| Mutex::new(None)).collect();
    std::thread::scope(|s| {
        for _ in 0..threads.clamp(1, items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= items.len() {
                    break;
                }
                let r = f(&items[i]);
                *slots[i].lock().unwrap() = Some(r);
            });
        }
    });
    slots
        .into_iter()
        .map(|m| m.into_inner().unwrap().expect("par_map worker died"))
        .collect()
}

/// Threads for running parq: the machine's cores, at most 4.
pub fn threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(4)
}

// ------------------------------------------------------------------ lists

/// Checks an allow-list both ways: a listed file must still fail (so the list
/// stays honest) and a failing file must be listed. Returns error lines.
pub fn check_known_failures(
    list: &[(&str, &str)],
    failing: &[String],
    passing: &[String],
    what: &str,
) -> Vec<String> {
    let mut errors = Vec::new();
    for (name, reason) in list {
        if passing.iter().any(|p| p == name) {
            errors.push(format!(
                "{name}: listed in {what} ({reason}) but now passes: remove it from the list"
            ));
        } else if !failing.iter().any(|p| p == name) {
            errors.push(format!(
                "{name}: listed in {what} but no such file was checked"
            ));
        }
    }
    errors
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_rules() {
        assert_eq!(compare_jsonl("{\"a\":0.1}\n", "{\"a\":1e-1}\n"), Ok(1));
        assert_eq!(compare_jsonl("{\"a\":1.0}\n", "{\"a\":1}\n"), Ok(1));
        assert!(compare_jsonl("{\"a\":-0.0}\n", "{\"a\":0.0}\n").is_err());
        assert_eq!(compare_jsonl("{\"a\":-0.0}\n", "{\"a\":-0}\n"), Ok(1));
        assert!(compare_jsonl("{\"a\":1}\n", "{\"a\":1.0}\n").is_err());
        assert_eq!(
            compare_jsonl(
                "{\"a\":18446744073709551615}\n",
                "{\"a\":18446744073709551615}\n"
            ),
            Ok(1)
        );
        assert_eq!(
            compare_jsonl("{\"a\":\"NaN\",\"b\":null}\n", "{\"b\":null,\"a\":\"NaN\"}"),
            Ok(1)
        );
        assert!(compare_jsonl("{\"a\":1}\n", "{\"a\":1,\"b\":2}\n").is_err());
        assert!(compare_jsonl("{\"a\":1}\n", "").is_err());
        assert!(compare_jsonl("{\"a\":\"x\"}\n", "{\"a\":\"X\"}\n").is_err());
    }
}
