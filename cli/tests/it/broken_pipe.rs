//! `parq cat F | head` and `parq pages F | head`: when the reader of the output goes away,
//! parq stops quietly (exit 0, nothing on stderr) instead of reporting "Broken pipe" or
//! panicking (as `println!` does on a failed write), whichever subcommand it runs.

use crate::support;

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Command, Stdio};

use parq::column::{Column, Values};
use parq::write::{Field, WriterOptions};
use support::*;

/// 200,000 rows in pages of 10 rows: megabytes of `cat` and of `pages` output, far more than
/// a pipe buffers.
fn write_file(path: &Path) {
    let ids = Column {
        len: 200_000,
        validity: None,
        values: Values::Int64((0..200_000i64).collect::<Vec<_>>().into()),
    };
    let options = WriterOptions::default().with_data_page_row_limit(10);
    write_parquet(path, vec![Field::int64("id")], &[ids], options);
}

#[test]
fn a_closed_pipe_ends_output_quietly() {
    let scratch = scratch_dir("broken-pipe");
    let file = scratch.join("many_rows.parquet");
    write_file(&file);
    for command in ["cat", "pages"] {
        let mut child = Command::new(parq_bin())
            .arg(command)
            .arg(&file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // Read one line, as `head -1` does, then close the pipe.
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert!(!line.is_empty(), "{command}: no output");
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{command}: {:?}: {stderr}",
            out.status
        );
        assert!(stderr.is_empty(), "{command}: {stderr}");
    }
}

/// 2,500 columns with long names, 8 rows in pages of 4: `schema`, `meta`, `cat` (a line of
/// ~100 KB per row), `pages` and `rewrite` each print more than a pipe buffers (64 KiB), so a
/// reader that stops after one byte leaves parq writing into a closed pipe.
fn write_wide_file(path: &Path) {
    let width = 2_500;
    let fields = (0..width)
        .map(|i| Field::int64(format!("a_column_with_a_rather_long_name_{i:05}")))
        .collect();
    let columns: Vec<Column> = (0..width)
        .map(|i| Column {
            len: 8,
            validity: None,
            values: Values::Int64(
                (0..8)
                    .map(|r| i * 1_000_000_007 + r)
                    .collect::<Vec<_>>()
                    .into(),
            ),
        })
        .collect();
    let options = WriterOptions::default().with_data_page_row_limit(4);
    write_parquet(path, fields, &columns, options);
}

/// Every subcommand, on one file and on a directory of files (the multi-file paths of
/// `schema`, `meta`, `cat`, `head` and `scan`), with its standard output a pipe that is closed
/// before parq writes (the first write fails) or after one byte was read (a later write
/// fails): exit 0, nothing on stderr, and above all no panic.
#[test]
fn every_subcommand_stops_quietly_on_a_closed_pipe() {
    let scratch = scratch_dir("broken-pipe-every");
    let dir = scratch.join("files");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("wide.parquet");
    write_wide_file(&file);
    std::fs::copy(&file, dir.join("wide2.parquet")).unwrap();
    let rewritten = scratch.join("rewritten.parquet");
    let (f, d) = (file.to_str().unwrap(), dir.to_str().unwrap());
    let commands: &[&[&str]] = &[
        &["schema", f],
        &["schema", d],
        &["meta", f],
        &["meta", "--json", f],
        &["meta", d],
        &["meta", "--json", d],
        &["cat", f],
        &["cat", "--format", "csv", f],
        &["cat", d],
        &["head", f],
        &["head", "-n", "3", "--format", "csv", d],
        &["pages", f],
        &["pages", "--json", f],
        &["scan", "--repeat", "1", f],
        &["scan", "--repeat", "1", "--json", "--whole", f],
        &["scan", "--repeat", "1", d],
        &["rewrite", f, rewritten.to_str().unwrap()],
    ];
    for args in commands {
        for read_first in [false, true] {
            let what = format!(
                "parq {}, pipe closed after {} byte",
                args.join(" "),
                u8::from(read_first)
            );
            let mut child = Command::new(parq_bin())
                .args(*args)
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdout = child.stdout.take().unwrap();
            if read_first {
                let mut byte = [0u8; 1];
                stdout
                    .read_exact(&mut byte)
                    .unwrap_or_else(|e| panic!("{what}: no output: {e}"));
            }
            // The only read end: parq's next write fails with EPIPE.
            drop(stdout);
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(!stderr.contains("panicked"), "{what}: {stderr}");
            assert!(out.status.success(), "{what}: {:?}: {stderr}", out.status);
            assert!(stderr.is_empty(), "{what}: {stderr}");
        }
    }
}
