//! `parq cat` on data that does not mean what its annotation says (issue 36, "no silent
//! change"), on DuckDB's files (`testdata/duckdb/`, see its README): a STRING value that is
//! not UTF-8 fails naming its column, row group and row (or prints escaped with
//! `--invalid-utf8 escape`), never as U+FFFD; a column whose annotation does not fit its
//! physical type fails naming it, while `schema` and `meta` show the file. pyarrow and DuckDB
//! are asked what they do with each file, and parq must refuse what they refuse.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{self, parq_cat, run_parq, scratch_dir, Run, CAT_TIMEOUT};

fn duckdb_dir() -> PathBuf {
    support::workspace_dir().join("testdata/duckdb")
}

fn parq(args: &[&str], scratch: &Path) -> Run {
    let args: Vec<&OsStr> = args.iter().map(OsStr::new).collect();
    run_parq(&args, scratch, CAT_TIMEOUT)
}

/// What pyarrow and DuckDB do with `file`: each one's rows as Python reprs, or `ERROR ...`.
/// pyarrow's rows are converted to Python objects (where it decodes UTF-8).
fn others(file: &Path) -> (String, String) {
    others_where(file, "true")
}

/// [`others`], DuckDB's rows those where SQL `condition` holds.
fn others_where(file: &Path, condition: &str) -> (String, String) {
    let script = r#"
import sys
f = sys.argv[1]
try:
    import pyarrow.parquet as pq
    print("pyarrow", repr(pq.read_table(f).to_pylist()))
except Exception as e:
    print("pyarrow ERROR", type(e).__name__, e)
try:
    import duckdb
    print("duckdb", repr(duckdb.sql(f"select * from read_parquet('{f}') where {sys.argv[2]}").fetchall()))
except ImportError:
    print("duckdb MISSING")
except Exception as e:
    print("duckdb ERROR", type(e).__name__, str(e).splitlines()[0])
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(file)
        .arg(condition)
        .output()
        .expect("run python3");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let line = |who: &str| {
        text.lines()
            .find(|l| l.starts_with(who))
            .unwrap_or_else(|| {
                panic!(
                    "no {who} line: {text} {}",
                    String::from_utf8_lossy(&out.stderr)
                )
            })
            .to_string()
    };
    (line("pyarrow"), line("duckdb"))
}

/// The four files with a value cut inside a character, the row (in row group 0) it is in,
/// and how `--invalid-utf8 escape` prints it in JSON.
const INVALID: &[(&str, u64, &str)] = &[
    ("invalid.parquet", 0, r#""TREL\\xc3""#),
    ("invalid_utf8_dba.parquet", 0, r#""TREL\\xc3""#),
    ("invalid_utf8_dictionary.parquet", 0, r#""TREL\\xc3""#),
    ("invalid_utf8_dlba.parquet", 0, r#""TREL\\xc3""#),
];

#[test]
fn invalid_utf8_fails_at_its_row_as_in_duckdb() {
    crate::python::require_python!("pyarrow", "duckdb");
    let scratch = scratch_dir("invalid_utf8");
    for &(name, row, escaped) in INVALID {
        let file = duckdb_dir().join(name);
        let (pyarrow, duckdb) = others(&file);
        assert!(
            pyarrow.contains("ERROR UnicodeDecodeError"),
            "{name}: {pyarrow}"
        );
        assert!(
            duckdb.contains("ERROR") || duckdb.contains("MISSING"),
            "{name}: {duckdb}"
        );
        for extra in [&[][..], &["--format", "csv"], &["--threads", "2"]] {
            let run = parq_cat(&file, extra, &scratch);
            assert_eq!(
                run.code,
                Some(1),
                "{name} {extra:?}: {}",
                run.describe_error()
            );
            let want = format!("invalid UTF-8 in a string value at row {row} of the row group");
            assert!(
                run.stderr.contains(&want) && run.stderr.contains("(column X1, row group 0,"),
                "{name} {extra:?}: {}",
                run.stderr
            );
            assert!(
                run.stderr.contains("--invalid-utf8 escape"),
                "{}",
                run.stderr
            );
            let stdout = String::from_utf8(run.stdout.clone()).unwrap();
            assert!(!stdout.contains('\u{fffd}'), "{name}: {stdout}");
        }
        // Escaped: the bad bytes as \xHH (the backslash itself escaped in JSON), and a note.
        let run = parq_cat(&file, &["--invalid-utf8", "escape"], &scratch);
        assert!(run.success(), "{name}: {}", run.describe_error());
        let stdout = String::from_utf8(run.stdout.clone()).unwrap();
        let line = stdout.lines().nth(row as usize).unwrap_or_default();
        assert_eq!(line, format!("{{\"X1\":{escaped}}}"), "{name}: {stdout}");
        assert!(
            run.stderr
                .contains("warning: 1 value of string columns not UTF-8"),
            "{name}: {}",
            run.stderr
        );
        let run = parq_cat(
            &file,
            &["--invalid-utf8", "escape", "--format", "csv"],
            &scratch,
        );
        let stdout = String::from_utf8(run.stdout.clone()).unwrap();
        let cell = escaped.trim_matches('"').replace("\\\\", "\\");
        assert_eq!(
            stdout.lines().nth(row as usize + 1),
            Some(cell.as_str()),
            "{stdout}"
        );
    }
}

/// Rows a limit leaves out are neither decoded nor checked: the rows before a value that is
/// not UTF-8 print (a file parq's writer makes: 5000 strings, row 3000 bad).
#[test]
fn head_before_an_invalid_row_prints() {
    use parq::column::{Column, Values};
    use parq::write::{Field, ParquetWriter, WriterOptions};
    let scratch = scratch_dir("invalid_utf8_head");
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for i in 0..5000 {
        if i == 3000 {
            data.extend_from_slice(b"bad \xff");
        } else {
            data.extend_from_slice(format!("row {i}").as_bytes());
        }
        offsets.push(data.len() as i64);
    }
    let column = Column {
        len: 5000,
        validity: None,
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: arrow_buffer::Buffer::from_vec(data),
        },
    };
    let mut out = Vec::new();
    let options = WriterOptions::default()
        .with_row_group_rows(2000)
        .with_data_page_size(1024);
    let mut w = ParquetWriter::new(&mut out, vec![Field::string("s")], options).unwrap();
    w.write_batch(&[column]).unwrap();
    w.finish().unwrap();
    let file = scratch.join("late_bad.parquet");
    std::fs::write(&file, out).unwrap();
    let path = file.to_str().unwrap();
    let run = parq(&["head", path, "-n", "3000"], &scratch);
    assert!(run.success(), "{}", run.describe_error());
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 3000);
    assert_eq!(stdout.lines().last(), Some(r#"{"s":"row 2999"}"#));
    let run = parq(&["cat", path, "--limit", "3001"], &scratch);
    assert_eq!(run.code, Some(1), "{}", run.describe_error());
    // Row 3000 of the file is row 1000 of row group 1.
    assert!(
        run.stderr
            .contains("at row 1000 of the row group (column s, row group 1,"),
        "{}",
        run.stderr
    );
    // Escaped in a filtered read too.
    let run = parq(
        &[
            "cat",
            path,
            "--where",
            "s != 'x'",
            "--invalid-utf8",
            "escape",
        ],
        &scratch,
    );
    assert!(run.success(), "{}", run.describe_error());
    let stdout = String::from_utf8(run.stdout).unwrap();
    assert!(
        stdout.contains(r#"{"s":"bad \\xff"}"#),
        "escaped row missing"
    );
}

/// A filter on the string column reads its values to test them, and so checks them, as
/// DuckDB does: the row it would leave out still fails.
#[test]
fn a_filter_on_the_bad_column_checks_it_as_duckdb_does() {
    let scratch = scratch_dir("invalid_utf8_where");
    let file = duckdb_dir().join("invalid_utf8_dba.parquet");
    let (_, duckdb) = others_where(&file, "X1 = 'hello world'");
    assert!(
        duckdb.contains("ERROR") || duckdb.contains("MISSING"),
        "{duckdb}"
    );
    let run = parq_cat(&file, &["--where", "X1 = 'hello world'"], &scratch);
    assert_eq!(run.code, Some(1), "{}", run.describe_error());
    assert!(
        run.stderr.contains("at row 0 of the row group"),
        "{}",
        run.stderr
    );
    let run = parq_cat(
        &file,
        &["--where", "X1 = 'hello world'", "--invalid-utf8", "escape"],
        &scratch,
    );
    assert!(run.success(), "{}", run.describe_error());
    assert_eq!(
        String::from_utf8(run.stdout).unwrap(),
        "{\"X1\":\"hello world\"}\n"
    );
}

/// Statistics cut inside a character are not values: `cat` reads the file as pyarrow does,
/// and `meta` prints the statistics with the bad bytes escaped.
#[test]
fn cut_statistics_read_and_print_escaped() {
    crate::python::require_python!("pyarrow", "duckdb");
    let scratch = scratch_dir("invalid_utf8_stats");
    let file = duckdb_dir().join("invalid_utf8_stats.parquet");
    let expected = support::expected_single(&file, &[], &scratch.join("expected")).unwrap();
    match support::cat_and_compare(&file, &[], &expected, &scratch) {
        support::Outcome::Matched { rows } => assert_eq!(rows, 3),
        other => panic!("{other}"),
    }
    for args in [&["meta"][..], &["meta", "--json"], &["pages"], &["schema"]] {
        let mut args = args.to_vec();
        args.push(file.to_str().unwrap());
        let run = parq(&args, &scratch);
        assert!(run.success(), "{args:?}: {}", run.describe_error());
        let stdout = String::from_utf8(run.stdout).unwrap();
        assert!(!stdout.contains('\u{fffd}'), "{args:?}: {stdout}");
        if args == ["meta", file.to_str().unwrap()] {
            // `location`'s max, cut after two bytes of a three-byte character.
            assert!(
                stdout.contains(r"max=江苏省太仓市经济开发\xe5\x8d"),
                "{stdout}"
            );
        }
    }
}

#[test]
fn annotations_that_do_not_fit_fail_naming_the_column() {
    crate::python::require_python!("pyarrow", "duckdb");
    let scratch = scratch_dir("broken_annotations");
    let files = support::walk_files(&duckdb_dir().join("broken"), &|p| {
        p.extension().is_some_and(|e| e == "parquet")
            && p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("broken_"))
    });
    assert_eq!(files.len(), 11);
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        let (pyarrow, duckdb) = others(file);
        assert!(pyarrow.contains("ERROR"), "{name}: {pyarrow}");
        assert!(
            duckdb.contains("ERROR") || duckdb.contains("MISSING"),
            "{name}: {duckdb}"
        );
        let path = file.to_str().unwrap();
        let schema = parq(&["schema", path], &scratch);
        assert!(schema.success(), "{name}: {}", schema.describe_error());
        let tree = String::from_utf8(schema.stdout).unwrap();
        for args in [
            &["meta", path][..],
            &["meta", "--json", path],
            &["pages", path],
        ] {
            let run = parq(args, &scratch);
            assert!(run.success(), "{name} {args:?}: {}", run.describe_error());
        }
        // The one leaf, `optional int32 a (TIMESTAMP_MICROS);` say: its name and annotation.
        let leaf = tree
            .lines()
            .find(|l| l.contains('(') && l.trim_end().ends_with(';'))
            .unwrap_or_else(|| panic!("{name}: no annotated leaf in {tree}"));
        let words: Vec<&str> = leaf.split_whitespace().collect();
        let (physical, column) = (words[1].to_uppercase(), words[2]);
        let annotation = leaf[leaf.find('(').unwrap() + 1..leaf.rfind(')').unwrap()].to_string();
        for extra in [&[][..], &["--columns", column], &["--format", "csv"]] {
            let run = parq_cat(file, extra, &scratch);
            assert_eq!(run.code, Some(1), "{name}: {}", run.describe_error());
            let want = format!("annotation {annotation} does not fit physical type {physical}");
            assert!(
                run.stderr.contains(&want) && run.stderr.contains(&format!("column {column}")),
                "{name} {extra:?}: want {want:?}, got {}",
                run.stderr
            );
        }
    }
}
