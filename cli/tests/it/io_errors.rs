//! Every I/O error the CLI reports names the file it failed on.

use crate::support;

use std::ffi::OsStr;

use support::*;

#[test]
fn a_missing_input_is_named() {
    let scratch = scratch_dir("io_errors-input");
    let missing = "missing.parquet";
    for args in [
        &["scan", missing][..],
        &["scan", "--mmap", missing],
        &["cat", missing],
        &["schema", missing],
        &["meta", missing],
        &["rewrite", missing, "out.parquet"],
    ] {
        let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
        let run = run_parq(&args, &scratch, CAT_TIMEOUT);
        assert_eq!(run.code, Some(1), "{args:?}: {}", run.stderr);
        assert!(
            run.stderr
                .starts_with("parq: error: i/o error: missing.parquet: No such file"),
            "{args:?}: {}",
            run.stderr
        );
    }
    let _ = std::fs::remove_dir_all(&scratch);
}

#[test]
fn an_unwritable_output_is_named() {
    let scratch = scratch_dir("io_errors-output");
    let input = parquet_test_data().join("alltypes_plain.parquet");
    let output = scratch.join("no-such-dir/out.parquet");
    let run = run_parq(
        &[OsStr::new("rewrite"), input.as_os_str(), output.as_os_str()],
        &scratch,
        CAT_TIMEOUT,
    );
    assert_eq!(run.code, Some(1), "{}", run.stderr);
    let want = format!("parq: error: i/o error: {}: ", output.display());
    assert!(run.stderr.starts_with(&want), "{}", run.stderr);
    let _ = std::fs::remove_dir_all(&scratch);
}
