//! The Python oracles (pyarrow, DuckDB, pyspark, moto's S3 server): whether a test can run
//! them. The one place that decides what a missing oracle means, shared by the library's and
//! the CLI's tests (`cli/tests/it/main.rs` includes this file).
//!
//! Under plain `cargo test` a test whose oracle is missing is skipped, with a note on stderr
//! naming what to install, so that a checkout without Python still runs everything else. With
//! `PARQ_REQUIRE_ORACLES=1`, which `.ci/test` sets after installing the oracles, a missing one
//! fails the test instead: CI must never pass having compared nothing.

use std::collections::HashMap;
use std::io::Write as _;
use std::process::Command;
use std::sync::{LazyLock, Mutex};

/// The environment variable that turns a missing oracle into a test failure.
pub const REQUIRE: &str = "PARQ_REQUIRE_ORACLES";

/// Whether a missing oracle fails the test (`PARQ_REQUIRE_ORACLES` set to anything but empty
/// or `0`).
pub fn required() -> bool {
    std::env::var(REQUIRE).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Whether `python3` imports every module of `modules`. When it does not: a panic that says
/// what failed if [`required`], else `false` and a note on stderr that the calling test is
/// skipped. Each module is tried once per test binary.
pub fn have(modules: &[&str]) -> bool {
    static SEEN: LazyLock<Mutex<HashMap<String, Result<(), String>>>> =
        LazyLock::new(Mutex::default);
    let mut missing = Vec::new();
    {
        // A test that panicked elsewhere does not poison what was learnt here.
        let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
        for module in modules {
            let result = seen
                .entry(module.to_string())
                .or_insert_with(|| try_import(module));
            if let Err(why) = result {
                missing.push(format!("{module} ({why})"));
            }
        }
    }
    if missing.is_empty() {
        return true;
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("this test")
        .to_string();
    let what = missing.join(", ");
    if required() {
        panic!(
            "{test} needs python3 with {what}, and {REQUIRE} is set: install the oracles \
             (python3 -m pip install {}; .ci/test does)",
            pip_names(modules)
        );
    }
    // Straight to the process's stderr: the test harness captures `eprintln!` of a test that
    // passes, and a skip must be seen.
    let _ = writeln!(
        std::io::stderr(),
        "note: skipped {test}: python3 with {what} is missing (python3 -m pip install {}; \
         set {REQUIRE}=1 to make this a failure)",
        pip_names(modules)
    );
    false
}

/// `python3 -c 'import MODULE'`: `Err` says why it failed. pyspark needs Java as well.
fn try_import(module: &str) -> Result<(), String> {
    if module == "pyspark" {
        match Command::new("java").arg("-version").output() {
            Ok(out) if out.status.success() => {}
            _ => return Err("java -version failed: Spark needs a Java 17+ runtime".into()),
        }
    }
    match Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
    {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => Err(String::from_utf8_lossy(&out.stderr)
            .lines()
            .last()
            .unwrap_or("import failed")
            .to_string()),
        Err(e) => Err(format!("python3 could not be run: {e}")),
    }
}

/// What to `pip install` for `modules`.
fn pip_names(modules: &[&str]) -> String {
    modules
        .iter()
        .map(|m| match *m {
            "moto.server" => "'moto[server]'",
            m => m.split('.').next().unwrap_or(m),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Returns from the calling test (skipping it) when `python3` cannot import one of the
/// modules named, or fails it under `PARQ_REQUIRE_ORACLES=1`; see [`have`].
macro_rules! require_python {
    ($($module:literal),+ $(,)?) => {
        if !$crate::python::have(&[$($module),+]) {
            return;
        }
    };
}
pub(crate) use require_python;
