//! `--threads N`: scan reports the thread count, and cat prints the same rows on any count.

use crate::support;

use std::ffi::OsStr;

use support::*;

fn run(args: &[&OsStr], scratch: &std::path::Path) -> Run {
    let run = run_parq(args, scratch, CAT_TIMEOUT);
    assert!(run.success(), "{args:?}: {}", run.describe_error());
    run
}

#[test]
fn scan_reports_its_threads_and_cat_prints_the_same_rows() {
    let scratch = scratch_dir("threads");
    for name in [
        "alltypes_tiny_pages_plain.parquet",
        "nested_lists.snappy.parquet",
    ] {
        let file = parquet_test_data().join(name);
        let file = file.as_os_str();
        for whole in [false, true] {
            let mut args = vec![
                OsStr::new("scan"),
                file,
                OsStr::new("--json"),
                OsStr::new("--repeat"),
                OsStr::new("1"),
                OsStr::new("--threads"),
                OsStr::new("3"),
            ];
            if whole {
                args.push(OsStr::new("--whole"));
            }
            let out = String::from_utf8(run(&args, &scratch).stdout).unwrap();
            assert!(out.contains("\"threads\":3,"), "{out}");
        }
        let cat = |threads: &str| {
            run(
                &[
                    OsStr::new("cat"),
                    file,
                    OsStr::new("--threads"),
                    OsStr::new(threads),
                ],
                &scratch,
            )
            .stdout
        };
        let one = cat("1");
        assert!(!one.is_empty());
        assert_eq!(one, cat("2"), "{name}");
    }
    let zero = run_parq(
        &[
            OsStr::new("scan"),
            OsStr::new("x.parquet"),
            OsStr::new("--threads"),
            OsStr::new("0"),
        ],
        &scratch,
        CAT_TIMEOUT,
    );
    assert_eq!(
        zero.code,
        Some(2),
        "clap rejects 0 threads: {}",
        zero.stderr
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
