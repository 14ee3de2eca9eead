//! `parq cat` against pyarrow on every file of apache/parquet-testing's data/.
//!
//! For each `*.parquet` / `*.parquet.encrypted` file, tests/it/support/expected.py
//! computes the JSON Lines that `parq cat` must print. Every file that pyarrow
//! reads, flat or nested (lists, structs, maps, legacy layouts), must match row
//! by row (see `support::compare_jsonl`); files pyarrow cannot read are
//! skipped, but parq must still not panic or hang on them.

use crate::python;
use crate::support;

use std::path::{Path, PathBuf};

use support::*;

/// Files pyarrow reads on which parq is allowed to fail for now, with the
/// reason. A listed file that starts passing fails the test: remove it then.
const KNOWN_FAILURES: &[(&str, &str)] = &[];

/// Files not compared by value, with the reason; parq must still fail cleanly or succeed.
const NOT_COMPARED: &[(&str, &str)] = &[(
    "large_string_map.brotli.parquet",
    "two 1 GiB map keys: 2 GiB of JSON and ~7 GB for pyarrow to print it; parq refuses its \
     1 GiB page under the default ReadOptions::limits (raise max_uncompressed_size to read it)",
)];

/// Files pyarrow cannot read, with the reason. Any other unreadable file fails.
const PYARROW_UNREADABLE: &[(&str, &str)] = &[
    (
        "aes256/encrypt_columns_and_footer.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "aes256/encrypt_columns_and_footer_ctr.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "aes256/encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "aes256/encrypt_columns_plaintext_footer.parquet.encrypted",
        "plaintext footer, encrypted columns, no keys given",
    ),
    (
        "aes256/uniform_encryption.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "encrypt_columns_and_footer.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "encrypt_columns_and_footer_aad.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "encrypt_columns_and_footer_bloom_filter.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "encrypt_columns_and_footer_ctr.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "encrypt_columns_and_footer_disable_aad_storage.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "encrypt_columns_plaintext_footer.parquet.encrypted",
        "plaintext footer, encrypted columns, no keys given",
    ),
    (
        "external_key_material_java.parquet.encrypted",
        "encrypted footer, keys in an external file",
    ),
    (
        "uniform_encryption.parquet.encrypted",
        "encrypted footer, no keys given",
    ),
    (
        "incorrect_map_schema.parquet",
        "pyarrow refuses the schema: map keys must be annotated as required",
    ),
];

fn is_parquet(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".parquet") || name.ends_with(".parquet.encrypted")
}

#[test]
fn conformance_parquet_testing() {
    python::require_python!("pyarrow");
    let data = parquet_test_data();
    let all = walk_files(&data, &is_parquet);
    let scratch = scratch_dir("conformance");
    let (skipped, files): (Vec<PathBuf>, Vec<PathBuf>) = all
        .into_iter()
        .partition(|f| NOT_COMPARED.iter().any(|(n, _)| rel(f, &data) == *n));
    assert_eq!(
        skipped.len(),
        NOT_COMPARED.len(),
        "a NOT_COMPARED file is missing"
    );
    for f in &skipped {
        let run = parq_cat(f, &[], &scratch);
        if let Some(c) = run.crash() {
            panic!("{}: parq {c}", f.display());
        }
        eprintln!(
            "{:60} not compared; parq: {}",
            rel(f, &data),
            if run.success() {
                "exit 0".to_string()
            } else {
                run.describe_error()
            }
        );
    }
    assert!(
        files.len() > 50,
        "only {} parquet files under {}",
        files.len(),
        data.display()
    );

    let expected = expected_batch(&files, &scratch, 2);
    let parq = parq_bin();
    eprintln!("conformance: parq = {}", parq.display());

    struct Report {
        name: String,
        line: String,
        failed: bool,
        passed: bool,
        hard_error: Option<String>,
    }

    let reports = par_map(&expected, threads(), |e| {
        let name = rel(&e.file, &data);
        let mut r = Report {
            name: name.clone(),
            line: String::new(),
            failed: false,
            passed: false,
            hard_error: None,
        };
        match e.status.as_str() {
            "ok" => {
                let want = load_expected(&e.out);
                let outcome = cat_and_compare(&e.file, &[], &want, &scratch);
                r.line = outcome.to_string();
                if outcome.is_match() {
                    r.passed = true;
                } else {
                    r.failed = true;
                }
                if PYARROW_UNREADABLE.iter().any(|(n, _)| *n == name) {
                    // pyarrow reads it now: keep the list honest.
                    r.hard_error = Some(format!(
                        "{name}: listed in PYARROW_UNREADABLE but pyarrow reads it"
                    ));
                }
            }
            "unreadable" => {
                // Not compared, but parq must fail gracefully (or succeed).
                let run = parq_cat(&e.file, &[], &scratch);
                r.line = format!(
                    "skipped ({}: {}); parq: {}",
                    e.status,
                    clip(&e.reason, 120),
                    if run.success() {
                        "exit 0".to_string()
                    } else {
                        run.describe_error()
                    }
                );
                if let Some(c) = run.crash() {
                    r.hard_error = Some(format!("{name}: parq {c}"));
                }
                if !PYARROW_UNREADABLE.iter().any(|(n, _)| *n == name) {
                    r.hard_error = Some(format!(
                        "{name}: pyarrow cannot read it ({}) and it is not in PYARROW_UNREADABLE",
                        e.reason
                    ));
                }
            }
            _ => {
                r.line = format!("expected.py error: {}", e.reason);
                r.hard_error = Some(format!(
                    "{name}: expected.py could not format it: {}",
                    e.reason
                ));
            }
        }
        r
    });

    let mut errors = Vec::new();
    let mut failing = Vec::new();
    let mut passing = Vec::new();
    let mut readable = 0;
    for r in &reports {
        eprintln!("{:60} {}", r.name, r.line);
        if r.failed || r.passed {
            readable += 1;
        }
        if r.passed {
            passing.push(r.name.clone());
        }
        if r.failed {
            failing.push(r.name.clone());
            if !KNOWN_FAILURES.iter().any(|(n, _)| *n == r.name) {
                errors.push(format!("{}: {}", r.name, r.line));
            }
        }
        if let Some(h) = &r.hard_error {
            errors.push(h.clone());
        }
    }
    errors.extend(check_known_failures(
        KNOWN_FAILURES,
        &failing,
        &passing,
        "KNOWN_FAILURES",
    ));
    for (name, _) in PYARROW_UNREADABLE {
        if !reports.iter().any(|r| r.name == *name) {
            errors.push(format!(
                "{name}: listed in PYARROW_UNREADABLE but not found"
            ));
        }
    }

    eprintln!(
        "conformance: {} files matched / {} files pyarrow reads ({} files in total)",
        passing.len(),
        readable,
        reports.len()
    );
    if errors.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        errors.is_empty(),
        "{} conformance failure(s):\n  {}",
        errors.len(),
        errors.join("\n  ")
    );
}

/// `--columns` and `--limit` select columns and rows like pyarrow does.
#[test]
fn cat_columns_and_limit() {
    python::require_python!("pyarrow");
    let scratch = scratch_dir("conformance-options");
    let file = parquet_test_data().join("alltypes_plain.parquet");
    let cases: &[&[&str]] = &[
        &["--columns", "id,string_col"],
        &["--columns", "timestamp_col,bool_col,float_col"],
        &["--limit", "3"],
        &["--limit", "0"],
        &["--limit", "100"],
        &["--columns", "double_col", "--limit", "5"],
    ];
    let mut errors = Vec::new();
    for (n, args) in cases.iter().enumerate() {
        let want = expected_single(&file, args, &scratch.join(format!("case-{n}.jsonl")))
            .unwrap_or_else(|e| panic!("{args:?}: {e}"));
        let outcome = cat_and_compare(&file, args, &want, &scratch);
        eprintln!(
            "parq cat alltypes_plain.parquet {}: {outcome}",
            args.join(" ")
        );
        if !outcome.is_match() {
            errors.push(format!("{}: {outcome}", args.join(" ")));
        }
    }
    // An unknown column is an error, not a panic.
    let run = parq_cat(&file, &["--columns", "no_such_column"], &scratch);
    if run.success() || run.crash().is_some() || run.stderr.trim().is_empty() {
        errors.push(format!(
            "--columns no_such_column: want an error exit with a message, got {}",
            if run.success() {
                "exit 0".to_string()
            } else {
                run.describe_error()
            }
        ));
    }
    // A missing file is an error, not a panic.
    let run = parq_cat(&scratch.join("does-not-exist.parquet"), &[], &scratch);
    if run.success() || run.crash().is_some() || run.stderr.trim().is_empty() {
        errors.push(format!(
            "missing file: want an error exit with a message, got {}",
            if run.success() {
                "exit 0".to_string()
            } else {
                run.describe_error()
            }
        ));
    }
    if errors.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        errors.is_empty(),
        "parq cat options:\n  {}",
        errors.join("\n  ")
    );
}
