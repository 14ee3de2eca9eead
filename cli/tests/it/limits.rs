//! `--max-page-size`: a page over the reader's size limit is refused with an error that names
//! the library option and a hint that names the flag; with the flag raised it reads.

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
    let options = WriterOptions {
        encoding: parq::write::EncodingPolicy::Plain,
        // The limit guards decompression; an uncompressed page is borrowed, never allocated.
        compression: parq::codecs::compression::CodecKind::Snappy,
        ..WriterOptions::default()
    };
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
        assert!(
            refused
                .stderr
                .contains("ReadOptions::limits.max_uncompressed_size")
                && refused.stderr.contains("--max-page-size"),
            "{command}: {}",
            refused.stderr
        );
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
