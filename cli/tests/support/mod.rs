//! Shared helpers for the integration tests that compare `parq cat` with pyarrow.
//!
//! The expected side is `cli/tests/support/expected.py` (pyarrow); the actual side is
//! the `parq` binary. Both print JSON Lines; rows are compared parsed, key by key.
#![allow(dead_code)] // each test binary uses a different subset

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::Value;

/// Deadline for one `parq cat` run before it counts as a hang.
pub const CAT_TIMEOUT: Duration = Duration::from_secs(30);

/// The parq-cli crate (`cli/`).
pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The workspace root, where `testdata/` is.
pub fn workspace_dir() -> PathBuf {
    manifest_dir().join("..")
}

/// apache/parquet-testing's `data/`: `$PARQUET_TEST_DATA` when set (as in arrow-rs), else the
/// copy vendored under `testdata/parquet-testing/` (see testdata/README.md). Fails (never
/// skips) when the directory is missing: a skipped conformance run would read as a pass.
pub fn parquet_test_data() -> PathBuf {
    let dir = match std::env::var_os("PARQUET_TEST_DATA").filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => workspace_dir().join("testdata/parquet-testing/data"),
    };
    assert!(
        dir.is_dir(),
        "parquet-testing data not found at {} (set PARQUET_TEST_DATA to its data/ directory)",
        dir.display()
    );
    dir
}

/// parquet-testing's `bad_data/`: always the sibling of [`parquet_test_data`], so one variable
/// moves both.
pub fn parquet_bad_data() -> PathBuf {
    let dir = parquet_test_data().join("../bad_data");
    assert!(
        dir.is_dir(),
        "parquet-testing bad_data not found at {} (it must sit beside PARQUET_TEST_DATA)",
        dir.display()
    );
    dir
}

pub fn support_dir() -> PathBuf {
    manifest_dir().join("tests/support")
}

/// The `parq` binary Cargo built for this test run, or `$PARQ_BIN` when set
/// (to test another build, e.g. a release binary, with the same harness).
///
/// These tests live in the parq-cli package because Cargo builds a package's binaries before
/// its integration tests and names them in `CARGO_BIN_EXE_<name>` for that package only.
pub fn parq_bin() -> PathBuf {
    if let Some(p) = std::env::var_os("PARQ_BIN").filter(|p| !p.is_empty()) {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_BIN_EXE_parq"))
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

/// What `parq cat` must print, as expected.py wrote it.
#[derive(Debug, Clone)]
pub struct ExpectedOutput {
    pub text: String,
    /// Keys of FLOAT (f32) columns: compared as f32 (see `compare_jsonl`).
    pub f32_keys: Vec<String>,
}

/// Reads expected.py's OUT and its OUT.f32.json sidecar.
pub fn load_expected(out: &Path) -> ExpectedOutput {
    let text = fs::read_to_string(out)
        .unwrap_or_else(|e| panic!("read expected output {}: {e}", out.display()));
    let mut side = out.as_os_str().to_owned();
    side.push(".f32.json");
    let f32_keys = fs::read_to_string(&side)
        .ok()
        .and_then(|t| serde_json::from_str::<Vec<String>>(&t).ok())
        .unwrap_or_else(|| panic!("read {}", Path::new(&side).display()));
    ExpectedOutput { text, f32_keys }
}

/// Runs expected.py on one file with extra args (`--columns`, `--limit`).
/// Returns the expected output, or Err(stderr) when it exits non-zero.
pub fn expected_single(file: &Path, extra: &[&str], out: &Path) -> Result<ExpectedOutput, String> {
    let o = Command::new("python3")
        .arg(support_dir().join("expected.py"))
        .arg(file)
        .arg(out)
        .args(extra)
        .stdin(Stdio::null())
        .output()
        .expect("run python3 expected.py");
    if o.status.success() {
        Ok(load_expected(out))
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
pub fn cat_and_compare(
    file: &Path,
    extra: &[&str],
    expected: &ExpectedOutput,
    scratch: &Path,
) -> Outcome {
    let run = parq_cat(file, extra, scratch);
    if !run.success() {
        return Outcome::ParqFailed(run.describe_error());
    }
    let actual = match std::str::from_utf8(&run.stdout) {
        Ok(s) => s,
        Err(e) => return Outcome::Mismatch(format!("stdout is not UTF-8: {e}")),
    };
    match compare_jsonl(&expected.text, actual, &expected.f32_keys) {
        Ok(rows) => Outcome::Matched { rows },
        Err(m) => Outcome::Mismatch(m),
    }
}

/// Compares two JSON Lines texts row by row, key by key, parsed.
///
/// Each line must be a JSON object of scalars. Integers must be equal exactly,
/// at any size (INT96 nanoseconds can exceed 64 bits), and an integer expected
/// must be printed as an integer. Where a float is expected, any JSON number is
/// accepted whose f64 (parsed with correct rounding by `str::parse::<f64>`) has
/// the same bits: `0.1` == `1e-1`, `1.0` == `1`, `-0.0` == `-0`, but
/// `-0.0` != `0.0`. For the keys in `f32_keys` (FLOAT columns) both numbers
/// are parsed as f32 instead, and parq's may not have more significant digits
/// than pyarrow's (shortest form): a tie has two shortest forms, e.g. f32
/// 19781.0625 is "19781.062" (Python) or "19781.063" (Rust). Strings (including "NaN", "inf", "-inf") must be equal
/// exactly after unescaping. Key order is not compared; a missing or extra key
/// is a mismatch.
///
/// Numbers are compared from their text, not from `serde_json::Value`:
/// serde_json without its `float_roundtrip` / `arbitrary_precision` features
/// rounds some decimals to the wrong f64 (e.g. a long integer rendering of an
/// f32 like `37167756000000000000000000000000000`) and turns integers beyond
/// u64 into f64.
pub fn compare_jsonl(expected: &str, actual: &str, f32_keys: &[String]) -> Result<usize, String> {
    let exp: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).collect();
    let act: Vec<&str> = actual.lines().filter(|l| !l.trim().is_empty()).collect();
    for (row, (e, a)) in exp.iter().zip(act.iter()).enumerate() {
        if e == a {
            continue; // identical text: equal (parsing is the slow part in debug builds)
        }
        let eo = parse_flat_object(e)
            .map_err(|err| format!("row {row}: expected line: {err}: {}", clip(e, 200)))?;
        let ao = parse_flat_object(a)
            .map_err(|err| format!("row {row}: parq line: {err}: {}", clip(a, 200)))?;
        compare_row(row, &eo, &ao, f32_keys)?;
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

/// One scalar of a JSON Lines row. Numbers keep their text.
#[derive(Debug, Clone, PartialEq)]
pub enum Scalar {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    /// An array or object value (not part of the contract): its raw text.
    Raw(String),
}

impl std::fmt::Display for Scalar {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Scalar::Null => write!(f, "null"),
            Scalar::Bool(b) => write!(f, "{b}"),
            Scalar::Num(n) => write!(f, "{n}"),
            Scalar::Str(s) => write!(f, "{}", clip(&Value::String(s.clone()).to_string(), 200)),
            Scalar::Raw(r) => write!(f, "{}", clip(r, 200)),
        }
    }
}

/// Parses `{"key": scalar, ...}` keeping number texts. Strings are unescaped
/// by serde_json; nested values are kept raw (after checking they are JSON).
pub fn parse_flat_object(line: &str) -> Result<Vec<(String, Scalar)>, String> {
    let b = line.as_bytes();
    let mut i = 0;
    let ws = |i: &mut usize| {
        while *i < b.len() && matches!(b[*i], b' ' | b'\t' | b'\r' | b'\n') {
            *i += 1;
        }
    };
    let string_end = |start: usize| -> Result<usize, String> {
        // b[start] == '"'; returns the index after the closing quote.
        let mut j = start + 1;
        while j < b.len() {
            match b[j] {
                b'\\' => j += 2,
                b'"' => return Ok(j + 1),
                _ => j += 1,
            }
        }
        Err(format!("unterminated string at byte {start}"))
    };
    let mut out = Vec::new();
    ws(&mut i);
    if b.get(i) != Some(&b'{') {
        return Err("not a JSON object".into());
    }
    i += 1;
    ws(&mut i);
    if b.get(i) == Some(&b'}') {
        i += 1;
    } else {
        loop {
            ws(&mut i);
            if b.get(i) != Some(&b'"') {
                return Err(format!("expected a key at byte {i}"));
            }
            let end = string_end(i)?;
            let key: String = serde_json::from_str(&line[i..end])
                .map_err(|e| format!("bad key at byte {i}: {e}"))?;
            i = end;
            ws(&mut i);
            if b.get(i) != Some(&b':') {
                return Err(format!("expected ':' at byte {i}"));
            }
            i += 1;
            ws(&mut i);
            let start = i;
            let value = match b.get(i) {
                Some(b'"') => {
                    let end = string_end(i)?;
                    i = end;
                    Scalar::Str(
                        serde_json::from_str(&line[start..end])
                            .map_err(|e| format!("bad string at byte {start}: {e}"))?,
                    )
                }
                Some(b'n') if line[i..].starts_with("null") => {
                    i += 4;
                    Scalar::Null
                }
                Some(b't') if line[i..].starts_with("true") => {
                    i += 4;
                    Scalar::Bool(true)
                }
                Some(b'f') if line[i..].starts_with("false") => {
                    i += 5;
                    Scalar::Bool(false)
                }
                Some(b'-' | b'0'..=b'9') => {
                    while i < b.len()
                        && matches!(b[i], b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9')
                    {
                        i += 1;
                    }
                    let text = &line[start..i];
                    // Validate the token with serde_json (grammar only).
                    serde_json::from_str::<serde_json::Number>(text)
                        .map_err(|e| format!("bad number {text:?}: {e}"))?;
                    Scalar::Num(text.to_string())
                }
                Some(b'[' | b'{') => {
                    let mut de =
                        serde_json::Deserializer::from_str(&line[start..]).into_iter::<Value>();
                    match de.next() {
                        Some(Ok(_)) => {
                            i = start + de.byte_offset();
                            Scalar::Raw(line[start..i].to_string())
                        }
                        _ => return Err(format!("bad value at byte {start}")),
                    }
                }
                _ => return Err(format!("bad value at byte {start}")),
            };
            out.push((key, value));
            ws(&mut i);
            match b.get(i) {
                Some(b',') => i += 1,
                Some(b'}') => {
                    i += 1;
                    break;
                }
                _ => return Err(format!("expected ',' or '}}' at byte {i}")),
            }
        }
    }
    ws(&mut i);
    if i != b.len() {
        return Err(format!("trailing text at byte {i}"));
    }
    Ok(out)
}

fn compare_row(
    row: usize,
    e: &[(String, Scalar)],
    a: &[(String, Scalar)],
    f32_keys: &[String],
) -> Result<(), String> {
    for (k, ev) in e {
        let Some((_, av)) = a.iter().find(|(ak, _)| ak == k) else {
            return Err(format!(
                "row {row} key {k:?}: missing in parq output (pyarrow: {ev})"
            ));
        };
        if !value_eq(ev, av, f32_keys.contains(k)) {
            return Err(format!("row {row} key {k:?}: pyarrow {ev} != parq {av}"));
        }
    }
    if let Some((k, v)) = a.iter().find(|(k, _)| !e.iter().any(|(ek, _)| ek == k)) {
        return Err(format!(
            "row {row} key {k:?}: extra key in parq output ({v})"
        ));
    }
    if a.len() != e.len() {
        return Err(format!(
            "row {row}: a key appears more than once in parq output"
        ));
    }
    Ok(())
}

fn is_integer_token(t: &str) -> bool {
    !t.contains(['.', 'e', 'E'])
}

/// `-0012` -> `-12`, `-0` -> `0`.
fn normalize_integer(t: &str) -> String {
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t),
    };
    let digits = digits.trim_start_matches('0');
    if digits.is_empty() {
        "0".to_string()
    } else if neg {
        format!("-{digits}")
    } else {
        digits.to_string()
    }
}

/// Significant digits of a number token: `-0.001250e3` -> 3.
fn significant_digits(t: &str) -> usize {
    let mantissa = t.split(['e', 'E']).next().unwrap_or(t);
    let digits: String = mantissa.chars().filter(|c| c.is_ascii_digit()).collect();
    digits
        .trim_start_matches('0')
        .trim_end_matches('0')
        .len()
        .max(1)
}

/// Equality of one expected value and one actual value (see `compare_jsonl`).
pub fn value_eq(e: &Scalar, a: &Scalar, f32_key: bool) -> bool {
    match (e, a) {
        (Scalar::Num(en), Scalar::Num(an)) => {
            if is_integer_token(en) {
                is_integer_token(an) && normalize_integer(en) == normalize_integer(an)
            } else if f32_key {
                match (en.parse::<f32>(), an.parse::<f32>()) {
                    (Ok(x), Ok(y)) => {
                        x.to_bits() == y.to_bits()
                            && significant_digits(an) <= significant_digits(en)
                    }
                    _ => false,
                }
            } else {
                match (en.parse::<f64>(), an.parse::<f64>()) {
                    (Ok(x), Ok(y)) => x.to_bits() == y.to_bits(),
                    _ => false,
                }
            }
        }
        (Scalar::Raw(er), Scalar::Raw(ar)) => {
            serde_json::from_str::<Value>(er).ok() == serde_json::from_str::<Value>(ar).ok()
        }
        _ => e == a,
    }
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
        let ok = |e: &str, a: &str| compare_jsonl(e, a, &[]).is_ok();
        let ok32 = |e: &str, a: &str| compare_jsonl(e, a, &["a".to_string()]).is_ok();
        assert!(ok32(r#"{"a":19781.062}"#, r#"{"a":19781.063}"#));
        assert!(!ok(r#"{"a":19781.062}"#, r#"{"a":19781.063}"#));
        assert!(ok32(r#"{"a":1e+16}"#, r#"{"a":10000000000000000}"#));
        assert!(ok32(r#"{"a":0.1}"#, r#"{"a":0.1}"#));
        assert!(!ok32(r#"{"a":0.1}"#, r#"{"a":0.10000000149011612}"#));
        assert!(!ok32(r#"{"a":0.1}"#, r#"{"a":0.2}"#));
        assert!(!ok32(r#"{"a":-0.0}"#, r#"{"a":0}"#));
        assert!(ok(r#"{"a":0.1}"#, r#"{"a":1e-1}"#));
        assert!(ok(r#"{"a":1.0}"#, r#"{"a":1}"#));
        assert!(!ok(r#"{"a":-0.0}"#, r#"{"a":0.0}"#));
        assert!(ok(r#"{"a":-0.0}"#, r#"{"a":-0}"#));
        assert!(!ok(r#"{"a":1}"#, r#"{"a":1.0}"#));
        assert!(ok(
            r#"{"a":3.7167756e+34}"#,
            r#"{"a":37167756000000000000000000000000000}"#
        ));
        assert!(ok(
            r#"{"a":361746257437964157935616}"#,
            r#"{"a": 361746257437964157935616}"#
        ));
        assert!(!ok(
            r#"{"a":361746257437964157935616}"#,
            r#"{"a":361746257437964157935617}"#
        ));
        assert!(ok(
            r#"{"a":18446744073709551615}"#,
            r#"{"a":18446744073709551615}"#
        ));
        assert!(ok(r#"{"a":"NaN","b":null}"#, r#"{"b":null,"a":"NaN"}"#));
        assert!(ok(r#"{"a":"\u00e9\n"}"#, "{\"a\":\"\u{e9}\\n\"}"));
        assert!(!ok(r#"{"a":"\u00e9"}"#, r#"{"a":"\u00c3\u00a9"}"#));
        assert!(ok(
            r#"{"a b":true,"":false}"#,
            r#"{ "" : false , "a b" : true }"#
        ));
        assert!(!ok(r#"{"a":1}"#, r#"{"a":1,"b":2}"#));
        assert!(!ok(r#"{"a":1}"#, r#"{"a":1,"a":1}"#));
        assert!(!ok(r#"{"a":1}"#, ""));
        assert!(!ok(r#"{"a":"x"}"#, r#"{"a":"X"}"#));
        assert!(!ok(r#"{"a":1}"#, r#"{"a":01x}"#));
        assert!(!ok(r#"{"a":1}"#, "[1]"));
        assert!(ok("{}", "{}"));
    }
}
