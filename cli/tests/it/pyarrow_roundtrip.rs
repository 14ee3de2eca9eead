//! `parq cat` against pyarrow on files pyarrow writes.
//!
//! tests/it/support/gen_roundtrip.py writes ~90 files (every physical type, the
//! common logical types, nulls 0/1/50/100 %, dictionary on/off, data page v1/v2,
//! every codec, tiny pages, non-dictionary encodings, edge cases) into a scratch
//! directory; expected.py gives pyarrow's reading of each; parq must print the
//! same rows (see `support::compare_jsonl`).

use crate::python;
use crate::support;

use std::path::Path;
use std::process::{Command, Stdio};

use support::*;

/// Generated files on which parq is allowed to fail for now, with the reason.
/// A listed file that starts passing fails the test: remove it then.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

#[test]
fn pyarrow_written_files() {
    python::require_python!("pyarrow");
    let scratch = scratch_dir("pyarrow_roundtrip");
    let gen_dir = scratch.join("files");
    let out = Command::new("python3")
        .arg(support_dir().join("gen_roundtrip.py"))
        .arg(&gen_dir)
        .stdin(Stdio::null())
        .output()
        .expect("run python3 gen_roundtrip.py");
    assert!(
        out.status.success(),
        "gen_roundtrip.py failed ({}):\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let files = walk_files(&gen_dir, &|p: &Path| {
        p.extension().is_some_and(|e| e == "parquet")
    });
    assert!(
        files.len() >= 60,
        "gen_roundtrip.py wrote only {} files",
        files.len()
    );

    let expected = expected_batch(&files, &scratch, 2);

    let results = par_map(&expected, threads(), |e| {
        let name = rel(&e.file, &gen_dir);
        if e.status != "ok" {
            // Every generated file is flat and readable: anything else is a bug
            // in the generator or in expected.py.
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
        eprintln!("{name:52} {line}");
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
        "pyarrow_roundtrip: {} files matched / {} files written by pyarrow",
        passing.len(),
        results.len()
    );
    if errors.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        errors.is_empty(),
        "{} pyarrow round-trip failure(s) (files kept in {}):\n  {}",
        errors.len(),
        scratch.display(),
        errors.join("\n  ")
    );
}
