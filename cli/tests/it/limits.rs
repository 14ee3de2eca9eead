//! `--max-memory`: a read over one of the limits drawn from the reader's memory budget (a
//! page's size, its values) is refused with an error and a hint that name the flag (not the
//! library's `ReadOptions` field, which a CLI user cannot set); with the flag raised it
//! reads.

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

/// Under `--max-memory 256K` the 104 KB page is over a quarter of the budget; under `16K` its
/// 1000 values are also over a 32nd of it. Each refusal names the flag and says which share
/// of it the page went over; under `1M` every command reads.
#[test]
fn max_memory_is_named_by_the_error_and_raises_the_limits() {
    let scratch = scratch_dir("limits");
    let file = scratch.join("big_page.parquet");
    write_big_page(&file);
    let timeout = Duration::from_secs(60);
    for command in ["cat", "scan"] {
        for (low, share) in [("256K", "a quarter of"), ("16K", "of --max-memory")] {
            let what = format!("{command} --max-memory {low}");
            let refused = run_parq(
                &[os(command), file.as_os_str(), os("--max-memory"), os(low)],
                &scratch,
                timeout,
            );
            assert_names_the_flag(&refused, "--max-memory", &what);
            assert!(refused.stderr.contains(share), "{what}: {}", refused.stderr);
        }
        let read = run_parq(
            &[os(command), file.as_os_str(), os("--max-memory"), os("1M")],
            &scratch,
            timeout,
        );
        assert!(read.success(), "{command}: {}", read.stderr);
    }
    let rewritten = scratch.join("rewritten.parquet");
    let rewrite = |budget: &str| {
        let args = [
            os("rewrite"),
            file.as_os_str(),
            rewritten.as_os_str(),
            os("--max-memory"),
            os(budget),
        ];
        run_parq(&args, &scratch, timeout)
    };
    assert_names_the_flag(&rewrite("256K"), "--max-memory", "rewrite 256K");
    let run = rewrite("1M");
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
        refused.stderr.contains("--max-memory"),
        "{}",
        refused.stderr
    );
    let args = [
        os("scan"),
        file.as_os_str(),
        os("--repeat"),
        os("1"),
        os("--json"),
        os("--max-memory"),
        os("8G"),
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
