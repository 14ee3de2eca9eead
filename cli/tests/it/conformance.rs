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
     1 GiB page under the default memory budget (a page may take a quarter of \
     ReadOptions::max_memory)",
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

/// A Parquet file by its name: `.parquet`, `.parquet.encrypted`, or Impala's `.parq`.
fn is_parquet(p: &Path) -> bool {
    let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
    name.ends_with(".parquet") || name.ends_with(".parquet.encrypted") || name.ends_with(".parq")
}

#[test]
fn conformance_parquet_testing() {
    run_corpus(
        &parquet_test_data(),
        "conformance",
        &Lists {
            known_failures: KNOWN_FAILURES,
            not_compared: NOT_COMPARED,
            pyarrow_unreadable: PYARROW_UNREADABLE,
            elsewhere: |_| false,
            min_files: 20,
        },
    );
}

/// What a corpus run allows, each file with its reason; every list stays exact (a listed file
/// that behaves otherwise fails the run).
pub struct Lists {
    /// Files pyarrow reads on which parq is allowed to differ for now.
    pub known_failures: &'static [(&'static str, &'static str)],
    /// Files not compared by value; parq must still fail cleanly or succeed.
    pub not_compared: &'static [(&'static str, &'static str)],
    /// Files pyarrow cannot read; parq must not crash on them.
    pub pyarrow_unreadable: &'static [(&'static str, &'static str)],
    /// Files another test compares, left out here.
    pub elsewhere: fn(&str) -> bool,
    /// Fewer files compared than this fails the run (a folder gone missing must not pass).
    pub min_files: usize,
}

/// `parq cat` against pyarrow on every Parquet file under `data`: equal row for row where
/// pyarrow reads the file, no crash where it does not.
pub fn run_corpus(data: &Path, name: &str, lists: &Lists) {
    python::require_python!("pyarrow");
    let (known_failures, not_compared, pyarrow_unreadable) = (
        lists.known_failures,
        lists.not_compared,
        lists.pyarrow_unreadable,
    );
    let all: Vec<PathBuf> = walk_files(data, &is_parquet)
        .into_iter()
        .filter(|f| !(lists.elsewhere)(&rel(f, data)))
        .collect();
    let scratch = scratch_dir(name);
    let (skipped, files): (Vec<PathBuf>, Vec<PathBuf>) = all
        .into_iter()
        .partition(|f| not_compared.iter().any(|(n, _)| rel(f, data) == *n));
    assert_eq!(
        skipped.len(),
        not_compared.len(),
        "a NOT_COMPARED file is missing"
    );
    for f in &skipped {
        let run = parq_cat(f, &[], &scratch);
        if let Some(c) = run.crash() {
            panic!("{}: parq {c}", f.display());
        }
        eprintln!(
            "{:60} not compared; parq: {}",
            rel(f, data),
            if run.success() {
                "exit 0".to_string()
            } else {
                run.describe_error()
            }
        );
    }
    assert!(
        files.len() >= lists.min_files,
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
        let name = rel(&e.file, data);
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
                if pyarrow_unreadable.iter().any(|(n, _)| *n == name) {
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
                if !pyarrow_unreadable.iter().any(|(n, _)| *n == name) {
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
            if !known_failures.iter().any(|(n, _)| *n == r.name) {
                errors.push(format!("{}: {}", r.name, r.line));
            }
        }
        if let Some(h) = &r.hard_error {
            errors.push(h.clone());
        }
    }
    errors.extend(check_known_failures(
        known_failures,
        &failing,
        &passing,
        "KNOWN_FAILURES",
    ));
    for (name, _) in pyarrow_unreadable {
        if !reports.iter().any(|r| r.name == *name) {
            errors.push(format!(
                "{name}: listed in PYARROW_UNREADABLE but not found"
            ));
        }
    }

    eprintln!(
        "{name}: {} files matched / {} files pyarrow reads ({} files in total)",
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

/// The corpus run over any folder, for surveying a corpus the project has not vendored:
/// `PARQ_CORPUS=/path/to/files cargo test -p parq-format-cli --test it -- --ignored
/// conformance_of_a_corpus_folder --nocapture` prints every file's outcome. With no list of
/// exceptions, every difference and every file pyarrow cannot read is reported as a failure.
#[test]
#[ignore = "needs PARQ_CORPUS, a folder of Parquet files"]
fn conformance_of_a_corpus_folder() {
    let dir = std::env::var_os("PARQ_CORPUS").expect("set PARQ_CORPUS to a folder of files");
    run_corpus(
        Path::new(&dir),
        "corpus",
        &Lists {
            known_failures: &[],
            not_compared: &[],
            pyarrow_unreadable: &[],
            elsewhere: |_| false,
            min_files: 1,
        },
    );
}

/// DuckDB's folder of real files (testdata/duckdb/, see its README): the VARIANT files are
/// compared against DuckDB ([`conformance_duckdb_variants`]), the others against pyarrow.
fn duckdb_data() -> PathBuf {
    workspace_dir().join("testdata/duckdb")
}

fn is_variant_file(name: &str) -> bool {
    name.contains("variant")
}

#[test]
fn conformance_duckdb() {
    run_corpus(
        &duckdb_data(),
        "conformance-duckdb",
        &Lists {
            known_failures: &[],
            not_compared: DUCKDB_NOT_COMPARED,
            pyarrow_unreadable: DUCKDB_PYARROW_UNREADABLE,
            elsewhere: is_variant_file,
            min_files: 20,
        },
    );
}

/// Every VARIANT file of the folder reads in parq as DuckDB reads it (pyarrow only shows
/// their raw groups).
#[test]
fn conformance_duckdb_variants() {
    python::require_python!("pyarrow", "duckdb");
    let data = duckdb_data();
    let files: Vec<PathBuf> = walk_files(&data, &is_parquet)
        .into_iter()
        .filter(|f| is_variant_file(&rel(f, &data)))
        .collect();
    assert!(files.len() > 100, "{} variant files", files.len());
    let out = std::process::Command::new("python3")
        .arg(support_dir().join("compare_variant_duckdb.py"))
        .arg(parq_bin())
        .args(&files)
        .output()
        .expect("python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "compare_variant_duckdb.py failed");
    let last = stdout.lines().last().unwrap_or_default();
    let want = format!(
        "variant vs duckdb: {} equal, 0 differ, 1 duckdb cannot read",
        files.len() - 1
    );
    assert_eq!(
        last, want,
        "the one file DuckDB refuses is variant_malicious.parquet"
    );
    assert!(stdout.contains("variant_malicious.parquet: duckdb error"));
}
/// DuckDB files pyarrow cannot read, with its reason (what parq does with each is printed
/// by the run and listed in the closing note of the stop that vendored them).
const DUCKDB_PYARROW_UNREADABLE: &[(&str, &str)] = &[
    ("afl/1.parquet", "pyarrow: OSError: Invalid page header (negative number of values)"),
    ("afl/2.parquet", "pyarrow: OSError: Invalid page header (negative number of values)"),
    ("afl/3.parquet", "pyarrow: OSError: Unexpected end of stream"),
    ("afl/4.parquet", "pyarrow: OSError: Unexpected end of stream"),
    ("afl/5.parquet", "pyarrow: OSError: Unexpected end of stream"),
    ("afl/6.parquet", "pyarrow: OSError: Invalid page header (negative number of values)"),
    ("afl/7.parquet", "pyarrow: OSError: Unexpected end of stream"),
    ("afl/8.parquet", "pyarrow: OSError: Unexpected end of stream"),
    ("bigdecimal.parquet", "pyarrow: ArrowInvalid: Decimal precision out of range [1, 76]: 77"),
    ("broken/broken_bigint.parquet", "pyarrow: OSError: INT_64 can only annotate INT64"),
    ("broken/broken_date.parquet", "pyarrow: OSError: DATE can only annotate INT32"),
    ("broken/broken_int.parquet", "pyarrow: OSError: INT_32 can only annotate INT32"),
    ("broken/broken_smallint.parquet", "pyarrow: OSError: INT_16 can only annotate INT32"),
    ("broken/broken_timestamp.parquet", "pyarrow: OSError: TIMESTAMP_MICROS can only annotate INT64"),
    ("broken/broken_timestamp_ms.parquet", "pyarrow: OSError: TIMESTAMP_MILLIS can only annotate INT64"),
    ("broken/broken_tinyint.parquet", "pyarrow: OSError: INT_8 can only annotate INT32"),
    ("broken/broken_ubigint.parquet", "pyarrow: OSError: UINT_64 can only annotate INT64"),
    ("broken/broken_uinteger.parquet", "pyarrow: OSError: UINT_32 can only annotate INT32"),
    ("broken/broken_usmallint.parquet", "pyarrow: OSError: UINT_16 can only annotate INT32"),
    ("broken/broken_utinyint.parquet", "pyarrow: OSError: UINT_8 can only annotate INT32"),
    ("broken/duckdb_fuzzer_4384.parquet", "pyarrow: OSError: Malformed Parquet schema: too many elements"),
    ("broken/fuzzer4360.parquet", "pyarrow: OSError: Malformed Parquet schema: negative number of children"),
    ("broken/fuzzer4362.parquet", "pyarrow: OSError: Couldn't deserialize thrift: TProtocolException: Invalid data"),
    ("broken/fuzzer4381.parquet", "pyarrow: OSError: Invalid column metadata (corrupt file?)"),
    ("broken/internal_6129.parquet", "pyarrow: OSError: the number of values in a block must be multiple of 128, but it's 1"),
    ("broken/internal_6165.parquet", "pyarrow: OSError: The file only has 0 columns, requested metadata for column: 0"),
    ("broken/issue22325_datapage_v2_neg_compressed_bytes.parquet", "pyarrow: OSError: Invalid page header"),
    ("broken/issue22325_datapage_v2_negative_def_levels.parquet", "pyarrow: OSError: Invalid page header (negative levels byte length)"),
    ("broken/issue22325_datapage_v2_zero_compressed_size.parquet", "pyarrow: OSError: Corrupt snappy compressed data."),
    ("decimal/byte_array_decimal_empty_value.parquet", "pyarrow: ArrowInvalid: Length of byte array passed to Decimal128::FromBigEndian was 0, but must be between 1 and 16"),
    ("encryption/arrow_uniform_encryption.parquet", "pyarrow: OSError: Could not read encrypted metadata, no decryption found in reader's properties"),
    ("encryption/arrow_uniform_encryption_gist.parquet", "pyarrow: OSError: Could not read encrypted metadata, no decryption found in reader's properties"),
    ("encryption/arrow_uniform_encryption_ten_row_groups.parquet", "pyarrow: OSError: Could not read encrypted metadata, no decryption found in reader's properties"),
    ("encryption/encrypted_column.parquet", "pyarrow: OSError: Cannot decrypt ColumnMetadata. FileDecryption is not setup correctly"),
    ("encryption/encrypted_footer.parquet", "pyarrow: OSError: Could not read encrypted metadata, no decryption found in reader's properties"),
    ("internal_6129.parquet", "pyarrow: OSError: the number of values in a block must be multiple of 128, but it's 1"),
    ("page_size_corruption.parquet", "pyarrow: OSError: Unexpected end of stream: Page was smaller (16) than expected (44)"),
    ("parquet_column_num_values_mismatch.parquet", "pyarrow: ArrowInvalid: Column 1 named n expected length 0 but got length 8"),
    ("plaintext_footer_crypto_metadata.parquet", "pyarrow: OSError: Column is noted as encrypted but no file decryptor"),
    ("rle_malicious_bitwidth.parquet", "pyarrow: OSError: Invalid or corrupted bit_width 63. Maximum allowed is 32."),
];

/// DuckDB files not compared by value here, with the reason.
const DUCKDB_NOT_COMPARED: &[(&str, &str)] = &[
    (
        "invalid.parquet",
        INVALID_UTF8,
    ),
    (
        "invalid_utf8_dba.parquet",
        INVALID_UTF8,
    ),
    (
        "invalid_utf8_dictionary.parquet",
        INVALID_UTF8,
    ),
    (
        "invalid_utf8_dlba.parquet",
        INVALID_UTF8,
    ),
    (
    "empty-group/empty_group_test.parquet",
    "expected.py's table reading drops the empty group; `empty_groups_read_as_structs_without_fields` \
     checks it against pyarrow's read_table",
    ),
];

/// Why the invalid-UTF-8 files are not compared with pyarrow here.
const INVALID_UTF8: &str = "a STRING value that is not UTF-8: parq refuses it naming its row, \
    as DuckDB and the parquet crate do, where pyarrow keeps the bytes (invalid_data.rs)";

/// A group without fields (segmentio/parquet-go writes them for empty Go structs) reads as
/// a struct without fields, null where it is optional, as pyarrow's `read_table` reads it;
/// `rewrite` refuses it by name, as pyarrow refuses to write one.
#[test]
fn empty_groups_read_as_structs_without_fields() {
    python::require_python!("pyarrow");
    let file = duckdb_data().join("empty-group/empty_group_test.parquet");
    let scratch = scratch_dir("empty-group");
    let run = parq_cat(&file, &[], &scratch);
    assert!(run.success(), "{}", run.describe_error());
    assert_eq!(
        String::from_utf8_lossy(&run.stdout),
        "{\"id\":1,\"nested\":null,\"optional_data\":100}\n"
    );
    // pyarrow: `nested` is a struct<inner: struct<>>, null in the one row.
    let py = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, pyarrow.parquet as pq; t = pq.read_table(sys.argv[1]); \
             print(t.schema.field('nested').type, t.to_pylist())",
        ])
        .arg(&file)
        .output()
        .expect("python3");
    assert_eq!(
        String::from_utf8_lossy(&py.stdout).trim(),
        "struct<inner: struct<>> [{'id': 1, 'nested': None, 'optional_data': 100}]"
    );
    let schema = run_parq(
        &["schema".as_ref(), file.as_os_str()],
        &scratch,
        std::time::Duration::from_secs(60),
    );
    assert!(schema.success(), "{}", schema.describe_error());
    let out = scratch.join("rewritten.parquet");
    let rewrite = run_parq(
        &["rewrite".as_ref(), file.as_os_str(), out.as_os_str()],
        &scratch,
        std::time::Duration::from_secs(60),
    );
    assert!(!rewrite.success() && rewrite.crash().is_none());
    assert!(
        rewrite
            .stderr
            .contains("field nested.inner is a struct without fields"),
        "{}",
        rewrite.stderr
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
