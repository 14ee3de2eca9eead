//! Memory that grows with the data, not with the column count: a file of 10,000 one-row
//! columns (strings and integers, zstd) is scanned, printed and rewritten under a 1 GiB cap on
//! the address space (`prlimit --as`), where fixed per-column reservations (room for 8 batches
//! of 8192 rows, a codec context each) once took several GiB and aborted; the scans' peak
//! resident memory stays under 256 MiB.

use std::process::Command;

use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use parq::codecs::compression::CodecKind;
use parq::column::{Column, Values};
use parq::write::{Field, WriterOptions};

use crate::support::*;

const COLUMNS: usize = 10_000;

/// The cap every command runs under.
const ADDRESS_SPACE: u64 = 1 << 30;

fn write_wide(path: &std::path::Path) {
    let mut fields = Vec::with_capacity(COLUMNS);
    let mut columns = Vec::with_capacity(COLUMNS);
    for i in 0..COLUMNS {
        if i % 2 == 0 {
            let value = format!("value {i}");
            fields.push(Field::string(format!("s{i}")));
            columns.push(Column {
                len: 1,
                validity: None,
                values: Values::Binary {
                    offsets: OffsetBuffer::new(ScalarBuffer::from(vec![0i64, value.len() as i64])),
                    data: Buffer::from(value.into_bytes()),
                },
            });
        } else {
            fields.push(Field::int64(format!("i{i}")));
            columns.push(Column {
                len: 1,
                validity: None,
                values: Values::Int64(ScalarBuffer::from(vec![i as i64])),
            });
        }
    }
    let options = WriterOptions::default().with_compression(CodecKind::Zstd);
    write_parquet(path, fields, &columns, options);
}

fn has_prlimit() -> bool {
    Command::new("prlimit")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn ten_thousand_one_row_columns_fit_in_a_1_gib_address_space() {
    if !has_prlimit() {
        eprintln!("skipped: prlimit (util-linux) is not installed");
        return;
    }
    let scratch = scratch_dir("memory");
    let file = scratch.join("wide.parquet");
    write_wide(&file);
    let out = scratch.join("rewritten.parquet");
    let (file, out) = (file.to_str().unwrap(), out.to_str().unwrap());
    for args in [
        vec!["scan", "--repeat", "1", file],
        vec!["scan", "--repeat", "1", "--whole", file],
        vec!["cat", file],
        vec!["rewrite", file, out],
    ] {
        let run = Command::new("prlimit")
            .arg(format!("--as={ADDRESS_SPACE}"))
            .arg(parq_bin())
            .args(&args)
            .env("RUST_BACKTRACE", "0")
            .output()
            .expect("run prlimit");
        let stdout = String::from_utf8_lossy(&run.stdout);
        assert!(
            run.status.success(),
            "parq {args:?} under prlimit --as={ADDRESS_SPACE}: {:?}\n{}",
            run.status,
            String::from_utf8_lossy(&run.stderr)
        );
        match args[0] {
            "scan" => {
                assert!(
                    stdout.contains(&format!("columns         {COLUMNS}")),
                    "{stdout}"
                );
                assert!(stdout.contains("rows            1\n"), "{stdout}");
                // Peak resident memory, as the scan reports it (Linux): under 256 MiB.
                let peak: f64 = stdout
                    .lines()
                    .find_map(|l| l.strip_prefix("peak memory"))
                    .and_then(|l| l.split_whitespace().next())
                    .and_then(|mib| mib.parse().ok())
                    .unwrap_or_else(|| panic!("no peak memory line: {stdout}"));
                assert!(peak < 256.0, "parq {args:?}: peak RSS {peak} MiB");
            }
            "cat" => assert!(
                stdout.contains("\"s9998\":\"value 9998\""),
                "{}",
                clip(&stdout, 300)
            ),
            _ => {}
        }
    }
    // The rewrite holds the same row.
    let run = Command::new(parq_bin())
        .args(["cat", out])
        .output()
        .unwrap();
    assert!(run.status.success());
    assert!(String::from_utf8_lossy(&run.stdout).contains("\"i9999\":9999"));
}

/// A file larger than the address space allows is refused with an error, not an abort: the
/// CLI holds a local file in memory, and reserves it fallibly. A sparse file of 2 GiB costs
/// no disk.
#[test]
fn a_file_larger_than_memory_allows_is_an_error() {
    if !has_prlimit() {
        eprintln!("skipped: prlimit (util-linux) is not installed");
        return;
    }
    let scratch = scratch_dir("memory-big-file");
    let file = scratch.join("sparse.parquet");
    std::fs::File::create(&file)
        .and_then(|f| f.set_len(2 << 30))
        .unwrap();
    for command in ["scan", "cat", "meta"] {
        let run = Command::new("prlimit")
            .arg(format!("--as={ADDRESS_SPACE}"))
            .arg(parq_bin())
            .args([command, file.to_str().unwrap()])
            .env("RUST_BACKTRACE", "0")
            .output()
            .expect("run prlimit");
        let stderr = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "parq {command}: {stderr}");
        assert!(
            stderr.contains("out of memory") && stderr.contains("2147483648 bytes"),
            "parq {command}: {stderr}"
        );
    }
}
