//! Content-defined chunking: parq's pages fall where pyarrow's do, stay byte-identical away
//! from an edit, and read back equal.
//!
//! - The same table (`support_cdc/gen.py`: required and optional int64, int32, int16,
//!   double, boolean, short and long strings, decimal(12, 2), and with `nested` a
//!   list<int64> and a list<string> with null lists and null elements) written by pyarrow
//!   with `use_content_defined_chunking=True, use_dictionary=False`, v1 pages, no
//!   compression, and by parq rewriting pyarrow's plain copy with CDC and PLAIN: every
//!   column has the same pages (values per page, from the page headers). Flat tables go
//!   through parq's flat writer, nested ones through the shredding writer.
//! - 1 % new rows inserted in the middle: the share of the edited file's pages that are
//!   byte for byte in the original, parq against pyarrow; parq's differing pages are one
//!   run per column, at the edit.
//! - A proptest: CDC-written files (small chunk sizes, so that there are many) read back
//!   equal to the input.
//!
//! The pyarrow tests are skipped without pyarrow (failed under `PARQ_REQUIRE_ORACLES=1`).

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use bytes::Bytes;
use parq::codecs::compression::CodecKind;
use parq::metadata::{decode_offset_index, decode_page_header, FileMetaData};
use parq::read::ParquetReader;
use parq::write::{CdcOptions, EncodingPolicy, PageVersion, ParquetWriter, WriterOptions};
use proptest::prelude::*;

use crate::python::require_python;

/// One page: values in it (levels, for v1 data pages) and a hash of its header and bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Page {
    values: i32,
    hash: u64,
}

/// Every data page of every column of a one-row-group file, by column path, walked from
/// the page headers.
fn pages(file: &[u8]) -> Vec<(String, Vec<Page>)> {
    let reader = ParquetReader::new(Bytes::copy_from_slice(file)).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.row_groups.len(), 1, "one row group");
    let mut out = Vec::new();
    for (leaf, chunk) in reader
        .schema()
        .leaves
        .iter()
        .zip(&meta.row_groups[0].columns)
    {
        let m = chunk.meta_data.as_ref().unwrap();
        let start = m.dictionary_page_offset.unwrap_or(m.data_page_offset) as usize;
        let end = start + m.total_compressed_size as usize;
        let (mut at, mut list) = (start, Vec::new());
        while at < end {
            let (h, len) = decode_page_header(&file[at..]).unwrap();
            let next = at + len + h.compressed_page_size as usize;
            let mut hasher = DefaultHasher::new();
            file[at..next].hash(&mut hasher);
            let values = h
                .data_page_header
                .as_ref()
                .map(|d| d.num_values)
                .expect("v1 data pages only");
            list.push(Page {
                values,
                hash: hasher.finish(),
            });
            at = next;
        }
        out.push((leaf.path_string(), list));
    }
    out
}

/// The first row of each page of each column of a parq file (from its offset index).
fn first_rows(file: &[u8]) -> Vec<Vec<i64>> {
    let reader = ParquetReader::new(Bytes::copy_from_slice(file)).unwrap();
    reader.metadata().row_groups[0]
        .columns
        .iter()
        .map(|c| {
            let at = c.offset_index_offset.unwrap() as usize;
            let len = c.offset_index_length.unwrap() as usize;
            decode_offset_index(&file[at..at + len])
                .unwrap()
                .page_locations
                .iter()
                .map(|p| p.first_row_index)
                .collect()
        })
        .collect()
}

/// parq's CDC options for the comparison: PLAIN, v1 pages, no compression, one row group.
fn options(cdc: CdcOptions) -> WriterOptions {
    WriterOptions::default()
        .with_encoding(EncodingPolicy::Plain)
        .with_page_version(PageVersion::V1)
        .with_compression(CodecKind::Uncompressed)
        .with_content_defined_chunking(cdc)
}

/// `src` read by parq and written again with `options`, as `parq rewrite` does: flat
/// schemas column by column through the flat writer, nested ones field by field through
/// the shredding writer.
fn rewrite(src: &[u8], options: WriterOptions) -> Vec<u8> {
    let reader = ParquetReader::new(Bytes::copy_from_slice(src)).unwrap();
    let meta: &FileMetaData = reader.metadata();
    let mut out = Vec::new();
    let mut w =
        ParquetWriter::from_schema_elements(&mut out, meta.schema.clone(), options).unwrap();
    if reader.schema().is_flat() {
        let columns: Vec<_> = (0..reader.schema().leaves.len())
            .map(|i| reader.read_column(i).unwrap())
            .collect();
        w.write_batch(&columns).unwrap();
    } else {
        let arrays: Vec<_> = (0..w.fields().len())
            .map(|i| reader.read_field(i).unwrap().1)
            .collect();
        w.write_arrays(&arrays).unwrap();
    }
    w.finish().unwrap();
    out
}

/// What `gen.py` reports.
struct Generated {
    dir: PathBuf,
    pyarrow: String,
    edit_at: i64,
    inserted: i64,
}

fn generate(name: &str, rows: usize, nested: bool, cdc: Option<CdcOptions>) -> Generated {
    let dir = std::env::temp_dir().join(format!("parq-cdc-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support_cdc/gen.py");
    let mut cmd = Command::new("python3");
    cmd.arg(&script)
        .arg(&dir)
        .arg(rows.to_string())
        .arg(if nested { "1" } else { "0" });
    if let Some(c) = cdc {
        cmd.arg(c.min_chunk_size.to_string())
            .arg(c.max_chunk_size.to_string())
            .arg(c.norm_level.to_string());
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "gen.py failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    Generated {
        dir,
        pyarrow: v["pyarrow"].as_str().unwrap().to_string(),
        edit_at: v["edit_at"].as_i64().unwrap(),
        inserted: v["inserted"].as_i64().unwrap(),
    }
}

/// Of `edited`'s pages, how many are byte for byte somewhere in the same column of `old`.
fn identical(old: &[Page], edited: &[Page]) -> usize {
    let seen: HashSet<u64> = old.iter().map(|p| p.hash).collect();
    edited.iter().filter(|p| seen.contains(&p.hash)).count()
}

/// Compare parq with pyarrow on one generated table: the same pages in every column, then
/// the identical-page shares after the edit. Returns (parq identical, pyarrow identical,
/// parq pages, pyarrow pages) over the edited files.
fn compare(name: &str, rows: usize, nested: bool, cdc: CdcOptions) -> (usize, usize, usize, usize) {
    let custom = (cdc != CdcOptions::default()).then_some(cdc);
    let g = generate(name, rows, nested, custom);
    let read = |f: &str| std::fs::read(g.dir.join(f)).unwrap();
    let parq = rewrite(&read("src.parquet"), options(cdc));
    let parq_edit = rewrite(&read("src_edit.parquet"), options(cdc));
    let (py, py_edit) = (pages(&read("py.parquet")), pages(&read("py_edit.parquet")));
    let (pq, pq_edit) = (pages(&parq), pages(&parq_edit));
    let _ = std::fs::remove_dir_all(&g.dir);

    // The same pages in every column, before and after the edit.
    let mut report = String::new();
    let mut differ = Vec::new();
    for ((ours, theirs), what) in [(&pq, &py), (&pq_edit, &py_edit)]
        .into_iter()
        .zip(["table", "edited table"])
    {
        for ((path, a), (p2, b)) in ours.iter().zip(theirs.iter()) {
            assert_eq!(path, p2);
            let (va, vb): (Vec<i32>, Vec<i32>) = (
                a.iter().map(|p| p.values).collect(),
                b.iter().map(|p| p.values).collect(),
            );
            report += &format!(
                "{what} {path}: {} pages by parq, {} by pyarrow {}{}\n",
                va.len(),
                vb.len(),
                g.pyarrow,
                if va == vb { "" } else { " DIFFER" }
            );
            if va != vb {
                differ.push(format!(
                    "{what} {path}:\n  parq    {va:?}\n  pyarrow {vb:?}"
                ));
            }
        }
    }
    eprintln!("{report}");
    assert!(differ.is_empty(), "pages differ:\n{}", differ.join("\n"));

    // Identical pages after the edit; parq's others are one run per column, at the edit.
    let starts = first_rows(&parq_edit);
    let (mut same_pq, mut same_py, mut all_pq, mut all_py) = (0, 0, 0, 0);
    let by_path: HashMap<&String, &Vec<Page>> = py.iter().map(|(p, l)| (p, l)).collect();
    for (((path, old), (_, new)), starts) in pq.iter().zip(&pq_edit).zip(&starts) {
        let (py_old, py_new) = (
            by_path[path],
            &py_edit.iter().find(|c| &c.0 == path).unwrap().1,
        );
        same_pq += identical(old, new);
        same_py += identical(py_old, py_new);
        all_pq += new.len();
        all_py += py_new.len();
        let seen: HashSet<u64> = old.iter().map(|p| p.hash).collect();
        let changed: Vec<usize> = (0..new.len())
            .filter(|&i| !seen.contains(&new[i].hash))
            .collect();
        if let (Some(&first), Some(&last)) = (changed.first(), changed.last()) {
            assert_eq!(
                changed.len(),
                last - first + 1,
                "{path}: the changed pages {changed:?} are not one run"
            );
            let end = |i: usize| starts.get(i + 1).copied().unwrap_or(i64::MAX);
            assert!(
                starts[first] <= g.edit_at && end(last) >= g.edit_at + g.inserted,
                "{path}: the changed pages (rows {}..{}) are not where the edit is",
                starts[first],
                end(last)
            );
        }
    }
    eprintln!(
        "{name}: identical pages after inserting {} rows at row {} of {rows}: parq {same_pq}/{all_pq} \
         ({:.1} %), pyarrow {} {same_py}/{all_py} ({:.1} %)",
        g.inserted,
        g.edit_at,
        same_pq as f64 * 100.0 / all_pq as f64,
        g.pyarrow,
        same_py as f64 * 100.0 / all_py as f64,
    );
    (same_pq, same_py, all_pq, all_py)
}

/// Flat columns (parq's flat writer), pyarrow's default chunk sizes.
#[test]
fn flat_pages_match_pyarrow() {
    require_python!("pyarrow");
    let (same_pq, same_py, all_pq, all_py) = compare("flat", 200_000, false, CdcOptions::default());
    assert_eq!((same_pq, all_pq), (same_py, all_py));
}

/// With list<int64> and list<string> columns (every column through the shredding writer).
#[test]
fn nested_pages_match_pyarrow() {
    require_python!("pyarrow");
    let (same_pq, same_py, all_pq, all_py) =
        compare("nested", 200_000, true, CdcOptions::default());
    assert_eq!((same_pq, all_pq), (same_py, all_py));
}

/// Small chunks (16-64 KiB, normalisation level 1): many boundaries per column.
#[test]
fn small_chunks_match_pyarrow() {
    require_python!("pyarrow");
    let cdc = CdcOptions::default()
        .with_min_chunk_size(16 * 1024)
        .with_max_chunk_size(64 * 1024)
        .with_norm_level(1);
    let (same_pq, same_py, all_pq, all_py) = compare("small", 50_000, true, cdc);
    assert_eq!((same_pq, all_pq), (same_py, all_py));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// CDC-written flat files read back equal to the input.
    #[test]
    fn cdc_files_read_back_equal(
        ints in proptest::collection::vec(proptest::option::of(any::<i64>()), 0..3000),
        strs in proptest::collection::vec(proptest::option::of("[a-z]{0,40}"), 0..3000),
        min in 64usize..4096,
        norm in 0i32..2,
    ) {
        use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
        use parq::column::{Column, Values};
        use parq::write::Field;
        let n = ints.len().min(strs.len());
        let (ints, strs) = (&ints[..n], &strs[..n]);
        let a = Column {
            len: n,
            validity: Some(NullBuffer::from(ints.iter().map(Option::is_some).collect::<Vec<_>>())),
            values: Values::Int64(ScalarBuffer::from(
                ints.iter().map(|v| v.unwrap_or(0)).collect::<Vec<_>>(),
            )),
        };
        let mut offsets = vec![0i64];
        let mut data = Vec::new();
        for s in strs {
            data.extend_from_slice(s.as_deref().unwrap_or("").as_bytes());
            offsets.push(data.len() as i64);
        }
        let b = Column {
            len: n,
            validity: Some(NullBuffer::from(strs.iter().map(Option::is_some).collect::<Vec<_>>())),
            values: Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                data: Buffer::from(data),
            },
        };
        let cdc = CdcOptions::default()
            .with_min_chunk_size(min)
            .with_max_chunk_size(min * 4)
            .with_norm_level(norm);
        let mut file = Vec::new();
        let mut w = ParquetWriter::new(
            &mut file,
            vec![Field::int64("a").optional(), Field::string("b").optional()],
            options(cdc).with_data_page_size(2048),
        )
        .unwrap();
        w.write_batch(&[a.clone(), b.clone()]).unwrap();
        w.finish().unwrap();
        let reader = ParquetReader::new(Bytes::from(file)).unwrap();
        let (ra, rb) = (reader.read_column(0).unwrap(), reader.read_column(1).unwrap());
        prop_assert_eq!(ra.len, n);
        prop_assert_eq!(rb.len, n);
        for i in 0..n {
            let valid = |c: &Column| c.validity.as_ref().is_none_or(|v| v.is_valid(i));
            prop_assert_eq!(valid(&ra), ints[i].is_some());
            prop_assert_eq!(valid(&rb), strs[i].is_some());
            if let (Some(v), Values::Int64(vals)) = (ints[i], &ra.values) {
                prop_assert_eq!(vals[i], v);
            }
            if let Some(s) = &strs[i] {
                let got = match &rb.values {
                    Values::Binary { offsets, data } => {
                        data[offsets[i] as usize..offsets[i + 1] as usize].to_vec()
                    }
                    Values::SmallBinary { offsets, data } => {
                        data[offsets[i] as usize..offsets[i + 1] as usize].to_vec()
                    }
                    other => panic!("unexpected layout {other:?}"),
                };
                prop_assert_eq!(got, s.as_bytes().to_vec());
            }
        }
    }
}

/// Pages closed at content-defined boundaries are counted (probe `write.cdc_page_cut`):
/// with page limits out of the way every page but the last ends at one, and without CDC
/// none does.
#[cfg(feature = "probes")]
#[test]
fn pages_cut_by_cdc_are_counted() {
    use arrow_buffer::ScalarBuffer;
    use parq::codecs::probe;
    use parq::column::{Column, Values};
    use parq::write::Field;
    let values: Vec<i64> = (0..200_000i64)
        .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15u64 as i64))
        .collect();
    let col = Column {
        len: values.len(),
        validity: None,
        values: Values::Int64(ScalarBuffer::from(values)),
    };
    let cdc = CdcOptions::default()
        .with_min_chunk_size(16 * 1024)
        .with_max_chunk_size(64 * 1024);
    let write = |options: WriterOptions| {
        let mut file = Vec::new();
        let mut w = ParquetWriter::new(&mut file, vec![Field::int64("a")], options).unwrap();
        w.write_batch(std::slice::from_ref(&col)).unwrap();
        w.finish().unwrap();
        file
    };
    let mut unlimited = options(cdc).with_data_page_size(usize::MAX / 16);
    unlimited.data_page_row_limit = usize::MAX;
    probe::reset();
    let file = write(unlimited);
    let cuts = probe::get("write.cdc_page_cut");
    // 1.6 MB of values in chunks of 16-64 KiB.
    assert!(cuts >= 1_600_000 / 65_536, "{cuts} cuts");
    assert_eq!(pages(&file)[0].1.len() as u64, cuts + 1);
    probe::reset();
    write(WriterOptions::default().with_encoding(EncodingPolicy::Plain));
    assert_eq!(probe::get("write.cdc_page_cut"), 0);
}

/// The figure of BENCHMARKS.md: the nested table at 1 M rows, pyarrow's default chunk
/// sizes (about 10 chunks per column). Slow (a minute); run with `--ignored`.
#[test]
#[ignore]
fn identical_page_share_at_one_million_rows() {
    require_python!("pyarrow");
    let (same_pq, same_py, all_pq, all_py) =
        compare("million", 1_000_000, true, CdcOptions::default());
    assert_eq!((same_pq, all_pq), (same_py, all_py));
}
