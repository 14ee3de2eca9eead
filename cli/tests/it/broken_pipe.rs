//! `parq cat F | head` and `parq pages F | head`: when the reader of the output goes away,
//! parq stops quietly (exit 0, nothing on stderr) instead of reporting "Broken pipe".

use crate::support;

use std::io::{BufRead, BufReader};
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
    let options = WriterOptions {
        data_page_row_limit: 10,
        ..WriterOptions::default()
    };
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
