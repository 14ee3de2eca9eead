//! `parq rewrite` options: bloom filters are kept, as the page index is (a column with a filter
//! in the input has one in the output, and every value of the column is found in it), and
//! `--compression` takes a level (`zstd:9`).

use crate::support;

use std::ffi::OsStr;
use std::path::Path;
use std::time::Duration;

use bytes::Bytes;
use parq::bloom::hash_bytes;
use parq::column::Values;
use parq::read::ParquetReader;
use support::*;

/// `parq rewrite INPUT OUTPUT FLAGS...` in `scratch`.
fn rewrite(scratch: &Path, input: &Path, output: &Path, flags: &[&str]) -> Run {
    let mut args = vec![OsStr::new("rewrite"), input.as_os_str(), output.as_os_str()];
    args.extend(flags.iter().map(OsStr::new));
    run_parq(&args, scratch, Duration::from_secs(60))
}

fn open(path: &Path) -> ParquetReader {
    ParquetReader::new(Bytes::from(std::fs::read(path).unwrap())).unwrap()
}

#[test]
fn rewrite_keeps_bloom_filters() {
    let scratch = scratch_dir("rewrite-bloom");
    // parquet-mr's file (a string column with a filter; no recorded filter length) and one
    // that records it.
    for name in [
        "data_index_bloom_encoding_stats.parquet",
        "data_index_bloom_encoding_with_length.parquet",
    ] {
        let input = parquet_test_data().join(name);
        let output = scratch.join(name);
        let run = rewrite(&scratch, &input, &output, &[]);
        assert!(run.success(), "{name}: {}", run.stderr);
        assert!(open(&input).read_bloom_filter(0, 0).unwrap().is_some());

        let reader = open(&output);
        let filter = reader
            .read_bloom_filter(0, 0)
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: the rewrite dropped the bloom filter"));
        let column = reader.read_column(0).unwrap();
        let Values::Binary { offsets, data } = &column.values else {
            panic!("{name}: not a byte array column")
        };
        let mut checked = 0;
        for (i, w) in offsets.windows(2).enumerate() {
            if column.validity.as_ref().is_none_or(|v| v.is_valid(i)) {
                let value = &data[w[0] as usize..w[1] as usize];
                assert!(
                    filter.check_hash(hash_bytes(value)),
                    "{name}: {value:?} missing"
                );
                checked += 1;
            }
        }
        assert!(checked > 0, "{name}: no values checked");
    }
}

/// `--compression gzip:0` stores, `gzip:9` compresses: the level reaches the writer. A level
/// that is not a number, or one for a codec without levels, is an error and leaves no file.
#[test]
fn rewrite_takes_a_compression_level() {
    let scratch = scratch_dir("rewrite-level");
    let input = parquet_test_data().join("alltypes_tiny_pages_plain.parquet");
    let mut sizes = Vec::new();
    for compression in ["gzip:0", "gzip:9", "zstd:19", "zstd"] {
        let output = scratch.join(format!("{}.parquet", compression.replace(':', "_")));
        let run = rewrite(&scratch, &input, &output, &["--compression", compression]);
        assert!(run.success(), "{compression}: {}", run.stderr);
        assert_eq!(open(&output).read_column(0).unwrap().len, 7300);
        sizes.push(std::fs::metadata(&output).unwrap().len());
    }
    assert!(
        sizes[0] > sizes[1] * 2,
        "gzip:0 {} vs gzip:9 {}",
        sizes[0],
        sizes[1]
    );
    assert!(
        sizes[2] < sizes[3],
        "zstd:19 {} vs zstd {}",
        sizes[2],
        sizes[3]
    );
    for (bad, says) in [("zstd:x", "not an integer"), ("snappy:3", "level")] {
        let output = scratch.join("bad.parquet");
        let run = rewrite(&scratch, &input, &output, &["--compression", bad]);
        assert!(
            !run.success() && run.stderr.contains(says),
            "{bad}: {}",
            run.stderr
        );
        assert!(!output.exists(), "{bad}: a refused rewrite leaves no file");
    }
}

/// The table `rewrite` prints stays aligned when dotted paths are longer than any field name.
#[test]
fn rewrite_table_aligns_long_paths() {
    let scratch = scratch_dir("rewrite-table");
    let input = parquet_test_data().join("nested_lists.snappy.parquet");
    let output = scratch.join("out.parquet");
    let run = rewrite(&scratch, &input, &output, &[]);
    assert!(run.success(), "{}", run.stderr);
    let stdout = String::from_utf8(run.stdout.clone()).unwrap();
    let table: Vec<&str> = stdout
        .lines()
        .skip_while(|l| !l.starts_with("column"))
        .collect();
    assert!(table.len() >= 3, "{stdout}");
    let bytes_end = table[0].find("bytes").unwrap() + "bytes".len();
    assert!(
        table[1].starts_with("a.list.element.list.element.list.element "),
        "{stdout}"
    );
    for row in &table[1..] {
        let (left, right) = row.split_at(bytes_end);
        assert!(
            left.ends_with(|c: char| c.is_ascii_digit()) && right.starts_with("  "),
            "misaligned:\n{stdout}"
        );
    }
}

/// `--encoding dictionary` says which columns it could not dictionary-encode, and only those.
#[test]
fn rewrite_says_where_dictionary_encoding_is_not_honoured() {
    let scratch = scratch_dir("rewrite-dictionary");
    let input = parquet_test_data().join("alltypes_plain.parquet");
    let output = scratch.join("out.parquet");
    let run = rewrite(&scratch, &input, &output, &["--encoding", "dictionary"]);
    assert!(run.success(), "{}", run.stderr);
    let notes: Vec<&str> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("note:"))
        .collect();
    let reader = open(&output);
    for (i, leaf) in reader.schema().leaves.iter().enumerate() {
        let m = reader.metadata().row_groups[0].columns[i]
            .meta_data
            .as_ref()
            .unwrap();
        let dictionary = m
            .encoding_stats
            .iter()
            .flatten()
            .filter(|s| s.page_type != parq::metadata::PageType::DICTIONARY_PAGE)
            .all(|s| s.encoding == parq::metadata::Encoding::RLE_DICTIONARY);
        let said = notes
            .iter()
            .any(|n| n.contains(&format!("column {}:", leaf.path_string())));
        assert_eq!(said, !dictionary, "{}: {}", leaf.path_string(), run.stderr);
    }
    assert!(
        notes.iter().any(|n| n.contains("column bool_col:")),
        "BOOLEAN is never dictionary-encoded: {}",
        run.stderr
    );
}

/// The data pages of each column of a one-row-group file: values per page and the page's
/// bytes (header included).
fn data_pages(path: &Path) -> Vec<Vec<(i32, Vec<u8>)>> {
    let file = std::fs::read(path).unwrap();
    let reader = open(path);
    reader.metadata().row_groups[0]
        .columns
        .iter()
        .map(|c| {
            let m = c.meta_data.as_ref().unwrap();
            let mut at = m.dictionary_page_offset.unwrap_or(m.data_page_offset) as usize;
            let end = at + m.total_compressed_size as usize;
            let mut pages = Vec::new();
            while at < end {
                let (h, len) = parq::metadata::decode_page_header(&file[at..]).unwrap();
                let next = at + len + h.compressed_page_size as usize;
                let values = h.data_page_header.map_or(0, |d| d.num_values);
                pages.push((values, file[at..next].to_vec()));
                at = next;
            }
            pages
        })
        .collect()
}

/// `--cdc --encoding plain` cuts the pages pyarrow 26 cuts with
/// `use_content_defined_chunking=True, use_dictionary=False` (v1 pages), in every column of
/// a table with lists, and keeps most pages byte for byte after rows are inserted.
#[test]
fn rewrite_cdc_cuts_pyarrows_pages() {
    crate::python::require_python!("pyarrow");
    let scratch = scratch_dir("rewrite-cdc");
    let gen = workspace_dir().join("tests/it/support_cdc/gen.py");
    let out = std::process::Command::new("python3")
        .arg(&gen)
        .arg(&scratch)
        .args(["60000", "1"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for name in ["", "_edit"] {
        let input = scratch.join(format!("src{name}.parquet"));
        let output = scratch.join(format!("parq{name}.parquet"));
        let run = rewrite(
            &scratch,
            &input,
            &output,
            &[
                "--cdc",
                "--encoding",
                "plain",
                "--compression",
                "uncompressed",
            ],
        );
        assert!(run.success(), "{}", run.stderr);
        let ours = data_pages(&output);
        let theirs = data_pages(&scratch.join(format!("py{name}.parquet")));
        let counts = |c: &Vec<(i32, Vec<u8>)>| c.iter().map(|p| p.0).collect::<Vec<_>>();
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert_eq!(counts(a), counts(b), "column {i} of parq{name}.parquet");
        }
    }
    // After the insert, as many of parq's pages are the same as of pyarrow's.
    let same = |writer: &str| {
        let (old, new) = (
            data_pages(&scratch.join(format!("{writer}.parquet"))),
            data_pages(&scratch.join(format!("{writer}_edit.parquet"))),
        );
        let mut same = 0;
        for (o, n) in old.iter().zip(&new) {
            same += n.iter().filter(|p| o.iter().any(|q| q.1 == p.1)).count();
        }
        same
    };
    let (ours, theirs) = (same("parq"), same("py"));
    assert!(ours > 0);
    assert_eq!(
        ours, theirs,
        "identical pages after the insert, parq against pyarrow"
    );
    let _ = std::fs::remove_dir_all(&scratch);
}
