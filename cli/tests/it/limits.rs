//! `--max-page-size`, `--max-page-values`, `--max-memory`: a read over one of the reader's
//! limits is refused with an error and a hint that name the flag (not the library's
//! `ReadOptions` field, which a CLI user cannot set); with the flag raised it reads.

use crate::support;

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use parq::column::{Column, Values};
use parq::write::{Field, WriterOptions};
use support::*;

/// One snappy page of 1000 distinct 100-byte strings: 104 KB uncompressed (PLAIN, lengths
/// included).
fn write_big_page(path: &Path) {
    let mut data = Vec::new();
    let mut offsets = vec![0i64];
    for i in 0..1000 {
        data.extend(format!("{i:0100}").bytes());
        offsets.push(data.len() as i64);
    }
    let column = Column {
        len: 1000,
        validity: None,
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from(data),
        },
    };
    let options = WriterOptions::default()
        .with_encoding(parq::write::EncodingPolicy::Plain)
        // The limit guards decompression; an uncompressed page is borrowed, never allocated.
        .with_compression(parq::codecs::compression::CodecKind::Snappy);
    write_parquet(path, vec![Field::string("s")], &[column], options);
}

fn os(s: &str) -> &OsStr {
    OsStr::new(s)
}

#[test]
fn max_page_size_is_named_by_the_error_and_raises_the_limit() {
    let scratch = scratch_dir("limits");
    let file = scratch.join("big_page.parquet");
    write_big_page(&file);
    let timeout = Duration::from_secs(60);
    for command in ["cat", "scan"] {
        let refused = run_parq(
            &[
                os(command),
                file.as_os_str(),
                os("--max-page-size"),
                os("64K"),
            ],
            &scratch,
            timeout,
        );
        assert!(
            !refused.success(),
            "{command}: read a 104 KB page under a 64 KiB limit"
        );
        assert_names_the_flag(&refused, "--max-page-size", command);
        let read = run_parq(
            &[
                os(command),
                file.as_os_str(),
                os("--max-page-size"),
                os("128K"),
            ],
            &scratch,
            timeout,
        );
        assert!(read.success(), "{command}: {}", read.stderr);
    }
    let rewritten = scratch.join("rewritten.parquet");
    let args = [
        os("rewrite"),
        file.as_os_str(),
        rewritten.as_os_str(),
        os("--max-page-size"),
        os("64K"),
    ];
    assert!(!run_parq(&args, &scratch, timeout).success());
    let args = [
        os("rewrite"),
        file.as_os_str(),
        rewritten.as_os_str(),
        os("--max-page-size"),
        os("1M"),
    ];
    let run = run_parq(&args, &scratch, timeout);
    assert!(run.success(), "{}", run.stderr);
}

/// parquet-testing's `large_string_map.brotli.parquet` holds a page of 1 GiB + 4 bytes, just
/// over the default limit. Ignored by default: it needs ~4.2 GB of memory and ~25 s with a
/// release binary (`PARQ_BIN=$PWD/target/release/parq cargo test -p parq-format-cli --test it
/// -- --ignored limits::`).
#[test]
#[ignore]
fn large_string_map_reads_with_the_flag() {
    let scratch = scratch_dir("limits-large");
    let file = parquet_test_data().join("large_string_map.brotli.parquet");
    let timeout = Duration::from_secs(600);
    let refused = run_parq(
        &[os("scan"), file.as_os_str(), os("--repeat"), os("1")],
        &scratch,
        timeout,
    );
    assert!(
        refused.stderr.contains("--max-page-size"),
        "{}",
        refused.stderr
    );
    let args = [
        os("scan"),
        file.as_os_str(),
        os("--repeat"),
        os("1"),
        os("--json"),
        os("--max-page-size"),
        os("2G"),
    ];
    let run = run_parq(&args, &scratch, timeout);
    assert!(run.success(), "{}", run.stderr);
    let out: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(out["rows"], 2, "{out}");
}

/// The run failed cleanly, and its error line and hint both name `flag`, never `ReadOptions`.
fn assert_names_the_flag(run: &Run, flag: &str, what: &str) {
    assert!(!run.success(), "{what}: read past the limit");
    assert!(!run.stderr.contains("panicked"), "{what}: {}", run.stderr);
    let error = run
        .stderr
        .lines()
        .find(|l| l.starts_with("parq: error: "))
        .unwrap_or_else(|| panic!("{what}: no error line: {}", run.stderr));
    let hint = run
        .stderr
        .lines()
        .find(|l| l.starts_with("parq: hint: "))
        .unwrap_or_else(|| panic!("{what}: no hint: {}", run.stderr));
    assert!(error.contains(flag), "{what}: {error}");
    assert!(hint.contains(flag), "{what}: {hint}");
    assert!(
        !run.stderr.contains("ReadOptions"),
        "{what}: {}",
        run.stderr
    );
}

/// A page of 1000 values under `--max-page-values 100`, and 100 KB of decoded strings under
/// `--max-memory 16K`: each error names its flag; raised, the read succeeds.
#[test]
fn max_page_values_and_max_memory_are_named_by_the_error() {
    let scratch = scratch_dir("limits-values");
    let file = scratch.join("big_page.parquet");
    write_big_page(&file);
    let timeout = Duration::from_secs(60);
    for command in ["cat", "scan"] {
        for (flag, low, high) in [
            ("--max-page-values", "100", "1000"),
            ("--max-memory", "16K", "1M"),
        ] {
            let what = format!("{command} {flag} {low}");
            let refused = run_parq(
                &[os(command), file.as_os_str(), os(flag), os(low)],
                &scratch,
                timeout,
            );
            assert_names_the_flag(&refused, flag, &what);
            let read = run_parq(
                &[os(command), file.as_os_str(), os(flag), os(high)],
                &scratch,
                timeout,
            );
            assert!(read.success(), "{command} {flag} {high}: {}", read.stderr);
        }
    }
}
