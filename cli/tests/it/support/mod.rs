//! Shared helpers for the integration tests that compare `parq cat` with pyarrow.
//!
//! The expected side is `cli/tests/it/support/expected.py` (pyarrow); the actual side is
//! the `parq` binary. Both print JSON Lines; rows are compared parsed, key by key.
#![allow(dead_code)] // each module uses a different subset

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

/// The CLI package, parq-format-cli (`cli/`).
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
    manifest_dir().join("tests/it/support")
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
    /// Where the FLOAT (f32) values are: compared as f32 (see `compare_jsonl`).
    pub f32_paths: Vec<F32Path>,
}

/// One step of a path into a row's JSON: an object key or an array index.
/// In an [`F32Path`], `Any` stands for every index of an array.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Key(String),
    Index(usize),
    Any,
}

/// Where a FLOAT leaf's values sit in a row: the top-level key, then steps
/// (struct field names, `Any` for list elements and map entries, `Index(0)` /
/// `Index(1)` for the key / value of a map's `[key, value]` pair).
pub type F32Path = Vec<Step>;

/// The paths of flat FLOAT columns `keys`.
pub fn f32_top_keys(keys: &[&str]) -> Vec<F32Path> {
    keys.iter()
        .map(|k| vec![Step::Key(k.to_string())])
        .collect()
}

/// Parses OUT.f32.json: a list whose items are a top-level key (a flat FLOAT
/// column) or a path `[key, step, ...]`, a step being a string (object key),
/// null (any array element) or an integer (that array index).
pub fn parse_f32_paths(text: &str) -> Result<Vec<F32Path>, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| e.to_string())?;
    let items = v.as_array().ok_or("not a list")?;
    items
        .iter()
        .map(|item| match item {
            Value::String(k) => Ok(vec![Step::Key(k.clone())]),
            Value::Array(steps) if matches!(steps.first(), Some(Value::String(_))) => steps
                .iter()
                .map(|s| match s {
                    Value::String(k) => Ok(Step::Key(k.clone())),
                    Value::Null => Ok(Step::Any),
                    Value::Number(n) => n
                        .as_u64()
                        .map(|i| Step::Index(i as usize))
                        .ok_or_else(|| format!("bad step {s}")),
                    _ => Err(format!("bad step {s}")),
                })
                .collect(),
            _ => Err(format!("bad item {item}")),
        })
        .collect()
}

/// Reads expected.py's OUT and its OUT.f32.json sidecar.
pub fn load_expected(out: &Path) -> ExpectedOutput {
    let text = fs::read_to_string(out)
        .unwrap_or_else(|e| panic!("read expected output {}: {e}", out.display()));
    let mut side = out.as_os_str().to_owned();
    side.push(".f32.json");
    let side = PathBuf::from(side);
    let f32_paths = fs::read_to_string(&side)
        .map_err(|e| e.to_string())
        .and_then(|t| parse_f32_paths(&t))
        .unwrap_or_else(|e| panic!("read {}: {e}", side.display()));
    ExpectedOutput { text, f32_paths }
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
    parq_cat_timeout(file, extra, scratch, CAT_TIMEOUT)
}

/// `parq cat FILE EXTRA...`, killed after `timeout`.
pub fn parq_cat_timeout(file: &Path, extra: &[&str], scratch: &Path, timeout: Duration) -> Run {
    let mut args: Vec<&std::ffi::OsStr> = vec!["cat".as_ref(), file.as_os_str()];
    args.extend(extra.iter().map(|s| std::ffi::OsStr::new(*s)));
    run_parq(&args, scratch, timeout)
}

/// Deadline for a `parq cat` that must print `bytes` of output: [`CAT_TIMEOUT`]
/// plus one second per 8 MiB (large_string_map.brotli prints 2 GiB, and the
/// tests run a debug build).
pub fn cat_timeout(bytes: usize) -> Duration {
    CAT_TIMEOUT + Duration::from_secs((bytes >> 23) as u64)
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
    let run = parq_cat_timeout(file, extra, scratch, cat_timeout(expected.text.len()));
    if !run.success() {
        return Outcome::ParqFailed(run.describe_error());
    }
    let actual = match std::str::from_utf8(&run.stdout) {
        Ok(s) => s,
        Err(e) => return Outcome::Mismatch(format!("stdout is not UTF-8: {e}")),
    };
    match compare_jsonl(&expected.text, actual, &expected.f32_paths) {
        Ok(rows) => Outcome::Matched { rows },
        Err(m) => Outcome::Mismatch(m),
    }
}

/// Compares two JSON Lines texts row by row, key by key, parsed.
///
/// Each line must be a JSON object. Integers must be equal exactly, at any size
/// (INT96 nanoseconds can exceed 64 bits), and an integer expected must be
/// printed as an integer. Where a float is expected, any JSON number is
/// accepted whose f64 (parsed with correct rounding by `str::parse::<f64>`) has
/// the same bits: `0.1` == `1e-1`, `1.0` == `1`, `-0.0` == `-0`, but
/// `-0.0` != `0.0`. At the paths in `f32_paths` (FLOAT leaves) both numbers
/// are parsed as f32 instead, and parq's may not have more significant digits
/// than pyarrow's (shortest form): a tie has two shortest forms, e.g. f32
/// 19781.0625 is "19781.062" (Python) or "19781.063" (Rust). Strings (including
/// "NaN", "inf", "-inf") must be equal exactly after unescaping. Top-level key
/// order is not compared; a missing or extra key is a mismatch.
///
/// Nested values (lists, structs, maps) are compared the same way, value by
/// value: arrays element by element (same length), objects key by key in order
/// (the contract prints struct fields in schema order).
///
/// Numbers are compared from their text, not from `serde_json::Value`:
/// serde_json without its `float_roundtrip` / `arbitrary_precision` features
/// rounds some decimals to the wrong f64 (e.g. a long integer rendering of an
/// f32 like `37167756000000000000000000000000000`) and turns integers beyond
/// u64 into f64.
pub fn compare_jsonl(expected: &str, actual: &str, f32_paths: &[F32Path]) -> Result<usize, String> {
    let exp: Vec<&str> = expected.lines().filter(|l| !l.trim().is_empty()).collect();
    let act: Vec<&str> = actual.lines().filter(|l| !l.trim().is_empty()).collect();
    for (row, (e, a)) in exp.iter().zip(act.iter()).enumerate() {
        if e == a {
            continue; // identical text: equal (parsing is the slow part in debug builds)
        }
        let eo = parse_object(e)
            .map_err(|err| format!("row {row}: expected line: {err}: {}", clip(e, 200)))?;
        let ao = parse_object(a)
            .map_err(|err| format!("row {row}: parq line: {err}: {}", clip(a, 200)))?;
        compare_row(row, &eo, &ao, f32_paths)?;
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

/// One JSON value of a JSON Lines row. Numbers keep their text.
#[derive(Debug, Clone, PartialEq)]
pub enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    /// Keys in the order of the text (duplicates kept).
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// Compact JSON text, cut after about `max` bytes.
    fn render(&self, out: &mut String, max: usize) {
        if out.len() > max {
            return;
        }
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) => out.push_str(n),
            Json::Str(s) => {
                let room = max.saturating_sub(out.len()) + 1;
                let mut end = s.len().min(room);
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                out.push_str(&Value::String(s[..end].to_string()).to_string());
            }
            Json::Arr(items) => {
                out.push('[');
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    v.render(out, max);
                }
                out.push(']');
            }
            Json::Obj(kv) => {
                out.push('{');
                for (i, (k, v)) in kv.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    v.render(out, max);
                }
                out.push('}');
            }
        }
    }
}

impl std::fmt::Display for Json {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        const MAX: usize = 200;
        let mut s = String::new();
        self.render(&mut s, MAX);
        if s.len() > MAX {
            let mut end = MAX;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            write!(f, "{}...", &s[..end])
        } else {
            write!(f, "{s}")
        }
    }
}

/// Deepest nesting accepted in a row (parq's output is at most a few levels deep).
const MAX_DEPTH: usize = 256;

/// Parses one JSON Lines row, `{"key": value, ...}`, keeping number texts.
/// Strings are unescaped by serde_json.
pub fn parse_object(line: &str) -> Result<Vec<(String, Json)>, String> {
    let mut p = JsonParser {
        text: line,
        b: line.as_bytes(),
        i: 0,
    };
    p.ws();
    if p.b.get(p.i) != Some(&b'{') {
        return Err("not a JSON object".into());
    }
    let v = p.value(0)?;
    p.ws();
    if p.i != p.b.len() {
        return Err(format!("trailing text at byte {}", p.i));
    }
    match v {
        Json::Obj(kv) => Ok(kv),
        _ => Err("not a JSON object".into()),
    }
}

struct JsonParser<'a> {
    text: &'a str,
    b: &'a [u8],
    i: usize,
}

impl JsonParser<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && matches!(self.b[self.i], b' ' | b'\t' | b'\r' | b'\n') {
            self.i += 1;
        }
    }

    /// A string starting at `self.i` (a '"'), unescaped.
    fn string(&mut self) -> Result<String, String> {
        let start = self.i;
        let mut j = start + 1;
        loop {
            match self.b.get(j) {
                Some(b'\\') => j += 2,
                Some(b'"') => break,
                Some(_) => j += 1,
                None => return Err(format!("unterminated string at byte {start}")),
            }
        }
        self.i = j + 1;
        serde_json::from_str(&self.text[start..self.i])
            .map_err(|e| format!("bad string at byte {start}: {e}"))
    }

    fn literal(&mut self, word: &str, v: Json) -> Result<Json, String> {
        if self.text[self.i..].starts_with(word) {
            self.i += word.len();
            Ok(v)
        } else {
            Err(format!("bad value at byte {}", self.i))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, String> {
        if depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
        }
        let start = self.i;
        match self.b.get(self.i) {
            Some(b'"') => Ok(Json::Str(self.string()?)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'-' | b'0'..=b'9') => {
                while self.i < self.b.len()
                    && matches!(
                        self.b[self.i],
                        b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
                    )
                {
                    self.i += 1;
                }
                let text = &self.text[start..self.i];
                // Validate the token with serde_json (grammar only).
                serde_json::from_str::<serde_json::Number>(text)
                    .map_err(|e| format!("bad number {text:?}: {e}"))?;
                Ok(Json::Num(text.to_string()))
            }
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b']') {
                    self.i += 1;
                    return Ok(Json::Arr(items));
                }
                loop {
                    self.ws();
                    items.push(self.value(depth + 1)?);
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b']') => {
                            self.i += 1;
                            return Ok(Json::Arr(items));
                        }
                        _ => return Err(format!("expected ',' or ']' at byte {}", self.i)),
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut kv = Vec::new();
                self.ws();
                if self.b.get(self.i) == Some(&b'}') {
                    self.i += 1;
                    return Ok(Json::Obj(kv));
                }
                loop {
                    self.ws();
                    if self.b.get(self.i) != Some(&b'"') {
                        return Err(format!("expected a key at byte {}", self.i));
                    }
                    let key = self.string()?;
                    self.ws();
                    if self.b.get(self.i) != Some(&b':') {
                        return Err(format!("expected ':' at byte {}", self.i));
                    }
                    self.i += 1;
                    self.ws();
                    kv.push((key, self.value(depth + 1)?));
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(Json::Obj(kv));
                        }
                        _ => return Err(format!("expected ',' or '}}' at byte {}", self.i)),
                    }
                }
            }
            _ => Err(format!("bad value at byte {start}")),
        }
    }
}

fn compare_row(
    row: usize,
    e: &[(String, Json)],
    a: &[(String, Json)],
    f32_paths: &[F32Path],
) -> Result<(), String> {
    for (k, ev) in e {
        let Some((_, av)) = a.iter().find(|(ak, _)| ak == k) else {
            return Err(format!(
                "row {row} key {k:?}: missing in parq output (pyarrow: {ev})"
            ));
        };
        let mut path = vec![Seg::Key(k)];
        if let Err((at, m)) = json_eq(ev, av, &mut path, f32_paths) {
            return Err(format!("row {row} key {k:?}{at}: {m}"));
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

/// A step of the path being compared.
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

/// ` at [3].name` for the path below the top-level key (empty at the top).
fn show_path(path: &[Seg]) -> String {
    if path.len() <= 1 {
        return String::new();
    }
    let mut s = String::from(" at ");
    for seg in &path[1..] {
        match seg {
            Seg::Key(k) => s.push_str(&format!(".{k}")),
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

fn is_f32_path(path: &[Seg], f32_paths: &[F32Path]) -> bool {
    f32_paths.iter().any(|p| {
        p.len() == path.len()
            && p.iter().zip(path).all(|(step, seg)| match (step, seg) {
                (Step::Key(k), Seg::Key(s)) => k == s,
                (Step::Index(i), Seg::Index(j)) => i == j,
                (Step::Any, Seg::Index(_)) => true,
                _ => false,
            })
    })
}

/// Compares `e` (pyarrow) and `a` (parq) at `path`; Err((where, what)).
fn json_eq<'a>(
    e: &'a Json,
    a: &'a Json,
    path: &mut Vec<Seg<'a>>,
    f32_paths: &[F32Path],
) -> Result<(), (String, String)> {
    match (e, a) {
        (Json::Arr(x), Json::Arr(y)) => {
            if x.len() != y.len() {
                return Err((
                    show_path(path),
                    format!(
                        "pyarrow has {} elements, parq {}: pyarrow {e} != parq {a}",
                        x.len(),
                        y.len()
                    ),
                ));
            }
            for (i, (xe, ya)) in x.iter().zip(y).enumerate() {
                path.push(Seg::Index(i));
                json_eq(xe, ya, path, f32_paths)?;
                path.pop();
            }
            Ok(())
        }
        (Json::Obj(x), Json::Obj(y)) => {
            if !x.iter().map(|(k, _)| k).eq(y.iter().map(|(k, _)| k)) {
                let keys = |kv: &[(String, Json)]| -> String {
                    format!("{:?}", kv.iter().map(|(k, _)| k).collect::<Vec<_>>())
                };
                return Err((
                    show_path(path),
                    format!(
                        "object keys (in schema order): pyarrow {} != parq {}",
                        keys(x),
                        keys(y)
                    ),
                ));
            }
            for ((k, xe), (_, ya)) in x.iter().zip(y) {
                path.push(Seg::Key(k));
                json_eq(xe, ya, path, f32_paths)?;
                path.pop();
            }
            Ok(())
        }
        _ => {
            if value_eq(e, a, is_f32_path(path, f32_paths)) {
                Ok(())
            } else {
                Err((show_path(path), format!("pyarrow {e} != parq {a}")))
            }
        }
    }
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

/// Equality of one expected scalar and one actual value (see `compare_jsonl`).
/// Arrays and objects are equal only when identical (`json_eq` walks them).
pub fn value_eq(e: &Json, a: &Json, f32: bool) -> bool {
    match (e, a) {
        (Json::Num(en), Json::Num(an)) => {
            if is_integer_token(en) {
                is_integer_token(an) && normalize_integer(en) == normalize_integer(an)
            } else if f32 {
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

/// Write a flat file with parq's writer to `path` (for tests that need a file of a given shape).
pub fn write_parquet(
    path: &Path,
    fields: Vec<parq::write::Field>,
    columns: &[parq::column::Column],
    options: parq::write::WriterOptions,
) {
    let mut file = Vec::new();
    let mut w = parq::write::ParquetWriter::new(&mut file, fields, options).unwrap();
    w.write_batch(columns).unwrap();
    w.finish().unwrap();
    fs::write(path, file).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compare_rules() {
        let ok = |e: &str, a: &str| compare_jsonl(e, a, &[]).is_ok();
        let ok32 = |e: &str, a: &str| compare_jsonl(e, a, &f32_top_keys(&["a"])).is_ok();
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

    #[test]
    fn compare_nested_rules() {
        let ok = |e: &str, a: &str| compare_jsonl(e, a, &[]).is_ok();
        assert!(ok(r#"{"a":[1,2],"b":null}"#, r#"{"b":null,"a":[ 1 , 2 ]}"#));
        assert!(!ok(r#"{"a":[1,2]}"#, r#"{"a":[1,2,3]}"#));
        assert!(!ok(r#"{"a":[1,2]}"#, r#"{"a":[2,1]}"#));
        assert!(!ok(r#"{"a":[]}"#, r#"{"a":null}"#));
        assert!(!ok(r#"{"a":[null]}"#, r#"{"a":[]}"#));
        assert!(ok(r#"{"a":[[1,null],[2,3]]}"#, r#"{"a":[[1,null],[2,3]]}"#));
        // Numbers inside nested values follow the scalar rules.
        assert!(ok(r#"{"a":{"x":[0.1,1.0]}}"#, r#"{"a":{"x":[1e-1,1]}}"#));
        assert!(!ok(r#"{"a":[1]}"#, r#"{"a":[1.0]}"#));
        assert!(!ok(r#"{"a":[-0.0]}"#, r#"{"a":[0.0]}"#));
        assert!(ok(
            r#"{"a":[361746257437964157935616]}"#,
            r#"{"a":[361746257437964157935616]}"#
        ));
        assert!(!ok(
            r#"{"a":[361746257437964157935616]}"#,
            r#"{"a":[361746257437964157935617]}"#
        ));
        assert!(ok(
            r#"{"a":[{"s":"\u00e9"}]}"#,
            "{\"a\":[{\"s\":\"\u{e9}\"}]}"
        ));
        // Struct fields: same keys, in schema order.
        assert!(ok(r#"{"a":{"x":1,"y":null}}"#, r#"{"a":{"x":1,"y":null}}"#));
        assert!(!ok(r#"{"a":{"x":1,"y":2}}"#, r#"{"a":{"y":2,"x":1}}"#));
        assert!(!ok(r#"{"a":{"x":1}}"#, r#"{"a":{"x":1,"y":2}}"#));
        assert!(!ok(r#"{"a":{"x":1}}"#, r#"{"a":{"x":1,"x":1}}"#));
        assert!(!ok(r#"{"a":{"x":1}}"#, r#"{"a":[["x",1]]}"#));
        // FLOAT leaves inside nested values, by path.
        let f32 = parse_f32_paths(r#"["f",["m",null,1],["s","l",null]]"#).unwrap();
        let ok32 = |e: &str, a: &str| compare_jsonl(e, a, &f32).is_ok();
        assert!(ok32(r#"{"f":19781.062}"#, r#"{"f":19781.063}"#));
        assert!(ok32(
            r#"{"m":[[1.5,19781.062],[2.5,0.1]]}"#,
            r#"{"m":[[1.5,19781.063],[2.5,0.1]]}"#
        ));
        assert!(!ok32(
            r#"{"m":[[19781.062,1.0]]}"#,
            r#"{"m":[[19781.063,1.0]]}"#
        ));
        assert!(ok32(
            r#"{"s":{"l":[19781.062]}}"#,
            r#"{"s":{"l":[19781.063]}}"#
        ));
        assert!(!ok32(
            r#"{"s":{"k":[19781.062]}}"#,
            r#"{"s":{"k":[19781.063]}}"#
        ));
        assert!(!ok32(
            r#"{"m":[[1.5,0.1]]}"#,
            r#"{"m":[[1.5,0.10000000149011612]]}"#
        ));
        // Mismatches say where.
        let err =
            compare_jsonl(r#"{"a":[{"x":[1,2]}]}"#, r#"{"a":[{"x":[1,3]}]}"#, &[]).unwrap_err();
        assert!(
            err.contains(r#"key "a" at [0].x[1]: pyarrow 2 != parq 3"#),
            "{err}"
        );
        assert!(parse_object(&format!(
            "{{\"a\":{}1{}}}",
            "[".repeat(300),
            "]".repeat(300)
        ))
        .is_err());
        assert!(parse_object(r#"{"a":[1,]}"#).is_err());
        assert!(parse_object(r#"{"a":[1}"#).is_err());
        assert!(parse_object(r#"[1]"#).is_err());
    }
}
