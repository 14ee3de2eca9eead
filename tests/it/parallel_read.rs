//! Reads with several threads equal one-thread reads, value for value: whole columns,
//! several columns at once, batches and nested fields, on parquet-testing files and on
//! generated files with many pages, dictionary pages with a plain fallback, nulls and
//! strings. With `probes`, the work split is checked too.

use std::path::PathBuf;

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq::codecs::compression::CodecKind;
use parq::column::{Column, Values};
use parq::read::{ArrayBatch, ByteArrayLayout, ParquetReader, ReadOptions, RowSelection};
use parq::write::{EncodingPolicy, Field, PageVersion, ParquetWriter, WriterOptions};

const THREADS: [usize; 3] = [2, 3, 8];

fn data_dir() -> PathBuf {
    std::env::var_os("PARQUET_TEST_DATA")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data")
        })
}

fn open(bytes: &Bytes, threads: usize, layout: ByteArrayLayout) -> Option<ParquetReader> {
    let options = ReadOptions::default()
        .with_threads(threads)
        .with_byte_array_layout(layout);
    ParquetReader::with_options(bytes.clone(), options).ok()
}

/// Batches as (rows, columns), or the error.
type Batches = Result<Vec<(usize, Vec<Column>)>, String>;

/// Every read the API offers, as comparable values (errors as their messages).
#[derive(Debug, PartialEq)]
struct Reads {
    columns: Vec<Result<Column, String>>,
    leaves: Result<Vec<Column>, String>,
    batches: Vec<Batches>,
    fields: Result<Vec<Vec<parq::array::Value>>, String>,
    whole_fields: Vec<Result<Vec<parq::array::Value>, String>>,
}

fn reads(bytes: &Bytes, threads: usize, layout: ByteArrayLayout) -> Option<Reads> {
    let r = open(bytes, threads, layout)?;
    let flat: Vec<usize> = (0..r.schema().leaves.len())
        .filter(|&i| {
            let l = r.schema().leaf(i);
            l.max_rep_level == 0 && l.max_def_level <= 1
        })
        .collect();
    let columns = flat
        .iter()
        .map(|&c| r.read_column(c).map_err(|e| e.to_string()))
        .collect();
    let leaves = r.read_leaves(&flat).map_err(|e| e.to_string());
    let batches = [1000, 1 << 20]
        .iter()
        .map(|&size| {
            r.batches(&flat, size)
                .and_then(|b| {
                    b.map(|b| b.map(|b| (b.num_rows, b.columns)))
                        .collect::<parq::Result<Vec<_>>>()
                })
                .map_err(|e| e.to_string())
        })
        .collect();
    let fields = r
        .fields()
        .map(|f| f.into_iter().map(|f| f.name).collect::<Vec<_>>())
        .and_then(|names| {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            let mut rows = Vec::new();
            for batch in r.array_batches(&names, 777)? {
                let batch = batch?;
                for i in 0..batch.num_rows {
                    rows.push(batch.arrays.iter().map(|a| a.value(i)).collect());
                }
            }
            Ok(rows)
        })
        .map_err(|e| e.to_string());
    let whole_fields = (0..r.fields().map_or(0, |f| f.len()))
        .map(|i| {
            r.read_field(i)
                .map(|(_, a)| (0..a.len()).map(|k| a.value(k)).collect())
                .map_err(|e| e.to_string())
        })
        .collect();
    Some(Reads {
        columns,
        leaves,
        batches,
        fields,
        whole_fields,
    })
}

fn assert_parallel_equal(name: &str, bytes: &Bytes, layouts: &[ByteArrayLayout]) {
    for &layout in layouts {
        let one = reads(bytes, 1, layout);
        for threads in THREADS {
            let many = reads(bytes, threads, layout);
            if one == many {
                continue;
            }
            let (a, b) = (one.as_ref().unwrap(), many.as_ref().unwrap());
            let what = if a.columns != b.columns {
                let i = (0..a.columns.len()).find(|&i| a.columns[i] != b.columns[i]);
                let i = i.unwrap_or(0);
                match (&a.columns[i], &b.columns[i]) {
                    (Err(x), Err(y)) => format!("column {i}: errors {x:?} / {y:?}"),
                    (Err(x), Ok(_)) | (Ok(_), Err(x)) => format!("column {i}: only one fails: {x}"),
                    (Ok(x), Ok(y)) => format!(
                        "column {i}: lens {} / {}, first differing slot {:?}",
                        x.len,
                        y.len,
                        (0..x.len.min(y.len)).find(|&k| x.value_bytes(k) != y.value_bytes(k))
                    ),
                }
            } else if a.leaves != b.leaves {
                "read_leaves".to_string()
            } else if a.batches != b.batches {
                let i = (0..2).find(|&i| a.batches[i] != b.batches[i]).unwrap();
                match (&a.batches[i], &b.batches[i]) {
                    (Ok(x), Ok(y)) => format!(
                        "batches {i}: sizes {:?} / {:?}",
                        x.iter().map(|b| b.0).collect::<Vec<_>>(),
                        y.iter().map(|b| b.0).collect::<Vec<_>>()
                    ),
                    (x, y) => format!(
                        "batches {i}: {:?} / {:?}",
                        x.as_ref().err(),
                        y.as_ref().err()
                    ),
                }
            } else if a.fields != b.fields {
                "fields".to_string()
            } else {
                let i = (0..a.whole_fields.len()).find(|&i| a.whole_fields[i] != b.whole_fields[i]);
                format!("read_field {i:?}")
            };
            panic!("{name}: {threads} threads ({layout:?}) differ from one: {what}");
        }
    }
}

#[test]
#[cfg_attr(miri, ignore)]
fn parquet_testing_files_read_the_same_on_any_thread_count() {
    let mut files: Vec<_> = std::fs::read_dir(data_dir())
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    assert!(files.len() > 50, "parquet-testing data not found");
    for path in files {
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        assert_parallel_equal(
            &path.display().to_string(),
            &bytes,
            &[ByteArrayLayout::Offsets],
        );
    }
}

const ROWS: usize = 40_000;

fn int64s(nulls_every: Option<usize>) -> Column {
    let values: Vec<i64> = (0..ROWS as i64)
        .map(|i| i.wrapping_mul(0x1E37_79B9_7F4A_7C15))
        .collect();
    Column {
        len: ROWS,
        validity: nulls_every.map(|k| NullBuffer::from_iter((0..ROWS).map(|i| i % k != 0))),
        values: Values::Int64(ScalarBuffer::from(values)),
    }
}

/// Strings `prefix + i % modulo`, a null every `nulls_every` rows.
fn strings(modulo: usize, nulls_every: Option<usize>) -> Column {
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for i in 0..ROWS {
        data.extend_from_slice(format!("value number {:08}", i % modulo).as_bytes());
        offsets.push(data.len() as i64);
    }
    Column {
        len: ROWS,
        validity: nulls_every.map(|k| NullBuffer::from_iter((0..ROWS).map(|i| i % k != 3))),
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from_vec(data),
        },
    }
}

/// Required strings of 0 to 39 bytes (`i % 40` of them, from `i`). For the tests of
/// `probes` only, as is `plain_strings_file`.
#[cfg(feature = "probes")]
fn varied_strings() -> Column {
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for i in 0..ROWS {
        let s = format!("{i:040}");
        data.extend_from_slice(&s.as_bytes()[..i % 40]);
        offsets.push(data.len() as i64);
    }
    Column {
        len: ROWS,
        validity: None,
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from_vec(data),
        },
    }
}

/// Two required string columns in PLAIN pages (decoded in place on several threads), with
/// optional strings and int64s (joined as they are decoded).
#[cfg(feature = "probes")]
fn plain_strings_file(
    codec: CodecKind,
    version: PageVersion,
    row_group_rows: usize,
    page: usize,
) -> Bytes {
    let options = WriterOptions::default()
        .with_compression(codec)
        .with_page_version(version)
        .with_encoding(EncodingPolicy::Plain)
        .with_data_page_size(page)
        .with_row_group_rows(row_group_rows);
    write(
        vec![
            Field::string("unique"),
            Field::string("varied"),
            Field::string("maybe").optional(),
            Field::int64("id"),
        ],
        &[
            strings(usize::MAX, None),
            varied_strings(),
            strings(usize::MAX, Some(9)),
            int64s(None),
        ],
        options,
    )
}

fn write(fields: Vec<Field>, columns: &[Column], options: WriterOptions) -> Bytes {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    w.write_batch(columns).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

fn mixed_file(
    codec: CodecKind,
    version: PageVersion,
    encoding: EncodingPolicy,
    row_group_rows: usize,
) -> Bytes {
    let fields = vec![
        Field::int64("id"),
        Field::int64("maybe").optional(),
        Field::string("unique").optional(),
        Field::string("repeated"),
        Field::string("fallback").optional(),
    ];
    let columns = [
        int64s(None),
        int64s(Some(7)),
        strings(usize::MAX, Some(5)),
        strings(100, None),
        // Too many distinct values for the small dictionary: plain pages follow.
        strings(15_000, Some(11)),
    ];
    let options = WriterOptions::default()
        .with_compression(codec)
        .with_page_version(version)
        .with_encoding(encoding)
        .with_data_page_size(4 << 10)
        .with_row_group_rows(row_group_rows)
        .with_dictionary_size_limit(32 << 10);
    write(fields, &columns, options)
}

#[test]
#[cfg_attr(miri, ignore)]
fn generated_files_with_many_pages_read_the_same_on_any_thread_count() {
    for (codec, version, encoding, rows) in [
        (
            CodecKind::Uncompressed,
            PageVersion::V1,
            EncodingPolicy::Auto,
            ROWS,
        ),
        (
            CodecKind::Zstd,
            PageVersion::V2,
            EncodingPolicy::Dictionary,
            50_000,
        ),
        (
            CodecKind::Snappy,
            PageVersion::V1,
            EncodingPolicy::Plain,
            30_000,
        ),
    ] {
        let file = mixed_file(codec, version, encoding, rows);
        assert_parallel_equal(
            &format!("{codec:?} {version:?} {encoding:?}"),
            &file,
            &[ByteArrayLayout::Offsets, ByteArrayLayout::Views],
        );
    }
}

#[test]
fn the_default_is_one_thread() {
    assert_eq!(ReadOptions::default().threads, 1);
}

#[cfg(feature = "probes")]
mod probes {
    use super::*;
    use parq::codecs::probe;

    fn one_big_column() -> Bytes {
        let options = WriterOptions::default()
            .with_compression(CodecKind::Zstd)
            .with_data_page_size(8 << 10);
        write(
            vec![Field::string("s").optional()],
            &[strings(usize::MAX, Some(9))],
            options,
        )
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn one_column_of_one_row_group_is_split_into_page_ranges() {
        let file = one_big_column();
        let one = open(&file, 1, ByteArrayLayout::Offsets).unwrap();
        assert_eq!(one.metadata().row_groups.len(), 1);
        probe::reset();
        let expected = one.read_column(0).unwrap();
        assert_eq!(probe::get("parallel.page_range"), 0);
        assert_eq!(probe::get("parallel.chunk"), 0);

        let two = open(&file, 2, ByteArrayLayout::Offsets).unwrap();
        probe::reset();
        assert_eq!(two.read_column(0).unwrap(), expected);
        assert!(
            probe::get("parallel.page_range") >= 8,
            "{:?}",
            probe::snapshot()
        );
        assert_eq!(probe::get("parallel.chunk"), 0);

        // Streaming splits the same way.
        probe::reset();
        let rows: usize = two
            .batches(&[0], 4096)
            .unwrap()
            .map(|b| b.unwrap().num_rows)
            .sum();
        assert_eq!(rows, ROWS);
        assert!(probe::get("parallel.page_range") >= 8);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn whole_reads_join_pieces_straight_into_one_output() {
        // Strings with nulls (and int64 with nulls) in two row groups, pages of 8 KiB: the
        // chunks are cut into page ranges, and every column's pieces are copied into one
        // reserved output as they are decoded.
        let options = WriterOptions::default()
            .with_compression(CodecKind::Zstd)
            .with_data_page_size(8 << 10)
            .with_row_group_rows(ROWS / 2)
            .with_encoding(EncodingPolicy::Plain);
        let file = write(
            vec![Field::string("s").optional(), Field::int64("i").optional()],
            &[strings(usize::MAX, Some(9)), int64s(Some(7))],
            options,
        );
        let one = open(&file, 1, ByteArrayLayout::Offsets).unwrap();
        assert_eq!(one.metadata().row_groups.len(), 2);
        let all = [0, 1];
        let expected = one.read_leaves(&all).unwrap();
        for threads in THREADS {
            let many = open(&file, threads, ByteArrayLayout::Offsets).unwrap();
            probe::reset();
            let got = many.read_leaves(&all).unwrap();
            assert_eq!(probe::get("parallel.join"), 2, "{:?}", probe::snapshot());
            assert_eq!(probe::get("parallel.join_overflow"), 0);
            assert!(
                probe::get("parallel.page_range") >= 8,
                "{:?}",
                probe::snapshot()
            );
            assert_eq!(got, expected, "{threads} threads");
            for (g, e) in got.iter().zip(&expected) {
                assert_eq!(g.null_count(), e.null_count());
                assert!(g.null_count() > 0);
            }
        }
        // Views are joined as before (no copy of their values).
        let views = open(&file, 2, ByteArrayLayout::Views).unwrap();
        probe::reset();
        let got = views.read_leaves(&all).unwrap();
        assert_eq!(probe::get("parallel.join"), 1, "only the int64 column");
        assert_eq!(got, expected);
    }

    /// Required strings in PLAIN pages: each piece's place in the output is known from its
    /// page headers, so the pieces decode straight into it (v1 and v2 pages; page ranges of
    /// one row group, two row groups (split or not, by the thread count), or many row groups
    /// of one piece each; values of 0 to 39 bytes, so some cross the kernel's block copy and
    /// pieces end on empty values).
    #[test]
    #[cfg_attr(miri, ignore)]
    fn required_plain_strings_decode_in_place() {
        for (version, row_group_rows, ranges) in [
            (PageVersion::V1, ROWS, Some(true)),
            (PageVersion::V2, ROWS, Some(true)),
            (PageVersion::V2, ROWS / 2, None),
            (PageVersion::V1, 2_000, Some(false)),
        ] {
            let file = plain_strings_file(CodecKind::Zstd, version, row_group_rows, 8 << 10);
            let all = [0, 1, 2, 3];
            let expected = open(&file, 1, ByteArrayLayout::Offsets)
                .unwrap()
                .read_leaves(&all)
                .unwrap();
            for threads in THREADS {
                let many = open(&file, threads, ByteArrayLayout::Offsets).unwrap();
                probe::reset();
                let got = many.read_leaves(&all).unwrap();
                let what = format!("{version:?} {row_group_rows} rows: {:?}", probe::snapshot());
                assert_eq!(probe::get("parallel.join_direct"), 2, "{what}");
                assert_eq!(probe::get("parallel.direct_fallback"), 0, "{what}");
                let pieces = probe::get("parallel.page_range") + probe::get("parallel.chunk");
                assert!(probe::get("parallel.direct") * 2 >= pieces, "{what}");
                if let Some(ranges) = ranges {
                    assert_eq!(probe::get("parallel.page_range") > 0, ranges, "{what}");
                }
                assert_eq!(got, expected, "{threads} threads, {what}");
            }
            assert_parallel_equal(
                &format!("plain strings {version:?} {row_group_rows}"),
                &file,
                &[ByteArrayLayout::Offsets, ByteArrayLayout::Views],
            );
        }
    }

    /// The last value of a page is cut one byte short (its length prefix says one less): a
    /// one-thread read takes it and leaves the page's last byte unread, but the page then
    /// holds a byte less of values than its header says, so the in-place pieces after it
    /// would not meet: the column is decoded again the usual way, with the same values. A
    /// length past the page fails the same way on any thread count.
    #[test]
    #[cfg_attr(miri, ignore)]
    fn a_page_shorter_than_its_header_says_falls_back() {
        let file = plain_strings_file(CodecKind::Uncompressed, PageVersion::V1, ROWS, 4 << 10);
        let r = open(&file, 1, ByteArrayLayout::Offsets).unwrap();
        let meta = r.metadata().row_groups[0].columns[0]
            .meta_data
            .clone()
            .unwrap();
        // The second data page of the first column, and where its last value starts.
        let mut pos = meta.data_page_offset as usize;
        let (h, header) = parq::metadata::decode_page_header(&file[pos..]).unwrap();
        pos += header + h.compressed_page_size as usize;
        let (h, header) = parq::metadata::decode_page_header(&file[pos..]).unwrap();
        let end = pos + header + h.compressed_page_size as usize;
        let (mut at, mut last) = (pos + header, 0);
        while at < end {
            last = at;
            at += 4 + u32::from_le_bytes(file[at..at + 4].try_into().unwrap()) as usize;
        }
        assert_eq!(at, end);
        let len = u32::from_le_bytes(file[last..last + 4].try_into().unwrap());
        assert!(len > 0);

        let mut short = file.to_vec();
        short[last..last + 4].copy_from_slice(&(len - 1).to_le_bytes());
        let short = Bytes::from(short);
        let expected = open(&short, 1, ByteArrayLayout::Offsets)
            .unwrap()
            .read_leaves(&[0, 1])
            .unwrap();
        assert_ne!(
            expected,
            r.read_leaves(&[0, 1]).unwrap(),
            "the cut value reads shorter"
        );
        for threads in THREADS {
            let many = open(&short, threads, ByteArrayLayout::Offsets).unwrap();
            probe::reset();
            assert_eq!(many.read_leaves(&[0, 1]).unwrap(), expected);
            assert_eq!(probe::get("parallel.direct_fallback"), 1, "{threads}");
            assert_eq!(probe::get("parallel.join_direct"), 1, "{threads}");
        }
        assert_parallel_equal("a short page", &short, &[ByteArrayLayout::Offsets]);

        let mut long = file.to_vec();
        long[last..last + 4].copy_from_slice(&(len + 100).to_le_bytes());
        let long = Bytes::from(long);
        let one = open(&long, 1, ByteArrayLayout::Offsets).unwrap();
        let err = one.read_leaves(&[0, 1]).unwrap_err().to_string();
        for threads in THREADS {
            let many = open(&long, threads, ByteArrayLayout::Offsets).unwrap();
            assert_eq!(many.read_leaves(&[0, 1]).unwrap_err().to_string(), err);
        }
        assert_parallel_equal("a value past its page", &long, &[ByteArrayLayout::Offsets]);
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn dictionary_strings_past_the_page_sizes_are_joined_after() {
        // Dictionary-encoded strings decode to more bytes than their pages hold: the pieces
        // that do not fit the reservation are joined serially, with the same values.
        let file = mixed_file(
            CodecKind::Snappy,
            PageVersion::V1,
            EncodingPolicy::Dictionary,
            20_000,
        );
        let all = [0, 1, 2, 3, 4];
        let expected = open(&file, 1, ByteArrayLayout::Offsets)
            .unwrap()
            .read_leaves(&all)
            .unwrap();
        let two = open(&file, 2, ByteArrayLayout::Offsets).unwrap();
        probe::reset();
        assert_eq!(two.read_leaves(&all).unwrap(), expected);
        assert!(
            probe::get("parallel.join_overflow") >= 1,
            "{:?}",
            probe::snapshot()
        );
    }

    #[test]
    #[cfg_attr(miri, ignore)]
    fn small_chunks_are_whole_pieces() {
        // Many row groups of small chunks: each chunk is one piece.
        let file = mixed_file(
            CodecKind::Snappy,
            PageVersion::V1,
            EncodingPolicy::Auto,
            2_000,
        );
        let r = open(&file, 2, ByteArrayLayout::Offsets).unwrap();
        let groups = r.metadata().row_groups.len() as u64;
        assert_eq!(groups, (ROWS / 2_000) as u64);
        probe::reset();
        r.read_leaves(&[0, 1, 2, 3, 4]).unwrap();
        assert_eq!(probe::get("parallel.chunk"), 5 * groups);
        assert_eq!(probe::get("parallel.page_range"), 0);
    }
}

/// `l: list<int64>` and `s: struct{x: int32}` with nulls at both levels, `rows` rows in row
/// groups of `group_rows` and pages of 2 KiB.
pub(crate) fn nested_file(rows: usize, group_rows: usize) -> Bytes {
    use parq::array::{Array, ListArray, ListOffsets, StructArray};
    use parq::field::Field as F;
    use parq::metadata::Type;
    // list<int64>: list i has i % 4 items, every 9th list null.
    let mut offsets = vec![0i32];
    for i in 0..rows {
        let k = if i % 9 == 0 { 0 } else { i % 4 };
        offsets.push(offsets[i] + k as i32);
    }
    let items = *offsets.last().unwrap() as usize;
    let list = Array::List(ListArray {
        validity: Some(NullBuffer::from_iter((0..rows).map(|i| i % 9 != 0))),
        offsets: ListOffsets::Small(OffsetBuffer::new(offsets.into())),
        values: Box::new(Array::Primitive(Column {
            len: items,
            validity: None,
            values: Values::Int64((0..items as i64).collect::<Vec<_>>().into()),
        })),
    });
    let st = Array::Struct(StructArray {
        len: rows,
        validity: Some(NullBuffer::from_iter((0..rows).map(|i| i % 5 != 1))),
        children: vec![Array::Primitive(Column {
            len: rows,
            validity: Some(NullBuffer::from_iter((0..rows).map(|i| i % 3 != 0))),
            values: Values::Int32((0..rows as i32).collect::<Vec<_>>().into()),
        })],
    });
    let schema = vec![
        F::list("l", F::primitive("element", Type::INT64)),
        F::structure("s", vec![F::primitive("x", Type::INT32)]),
    ];
    let mut out = Vec::new();
    let options = WriterOptions::default()
        .with_row_group_rows(group_rows)
        .with_data_page_size(2 << 10);
    let mut w = ParquetWriter::with_fields(&mut out, schema, options).unwrap();
    w.write_arrays(&[list, st]).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

#[test]
#[cfg_attr(miri, ignore)]
fn nested_fields_over_many_row_groups_read_the_same_on_any_thread_count() {
    let file = nested_file(20_000, 3_000);
    assert!(
        ParquetReader::new(file.clone())
            .unwrap()
            .metadata()
            .row_groups
            .len()
            > 5
    );
    assert_parallel_equal("nested", &file, &[ByteArrayLayout::Offsets]);
    #[cfg(feature = "probes")]
    {
        let r = open(&file, 2, ByteArrayLayout::Offsets).unwrap();
        parq::codecs::probe::reset();
        r.read_field(0).unwrap();
        let groups = r.metadata().row_groups.len() as u64;
        assert_eq!(parq::codecs::probe::get("parallel.row_group"), groups);
    }
}

/// Each batch's rows (every field's value of a row, row by row), then the error if any.
pub(crate) type Streamed = (Vec<Vec<parq::array::Value>>, Option<String>);

/// A batch's values, row by row: what [`Streamed`] keeps of it.
pub(crate) fn batch_rows(b: &ArrayBatch) -> Vec<parq::array::Value> {
    (0..b.num_rows)
        .flat_map(|i| b.arrays.iter().map(move |a| a.value(i)))
        .collect()
}

/// What [`streamed`] gave, short enough for a failure message.
pub(crate) fn summary(read: &Streamed) -> String {
    format!("{} batches, error {:?}", read.0.len(), read.1)
}

/// Streamed batches as one thread gives them: each batch's rows, then the error if any.
pub(crate) fn streamed(file: &Bytes, threads: usize, columns: &[&str]) -> Streamed {
    streamed_rows(file, threads, columns, None)
}

/// [`streamed`] of the rows `selection` only.
fn streamed_rows(
    file: &Bytes,
    threads: usize,
    columns: &[&str],
    selection: Option<RowSelection>,
) -> Streamed {
    let options = ReadOptions::default()
        .with_threads(threads)
        .with_selection(selection);
    let r = ParquetReader::with_options(file.clone(), options).unwrap();
    let mut batches = Vec::new();
    for batch in r.array_batches(columns, 1000).unwrap() {
        match batch {
            Ok(b) => batches.push(batch_rows(&b)),
            Err(e) => return (batches, Some(e.to_string())),
        }
    }
    (batches, None)
}

/// Streamed nested fields on several threads decode the row groups after the calling
/// thread's ahead, each on a thread of its own, and give the same batches in the same order;
/// an error in a row group decoded ahead comes after the same batches as on one thread.
#[test]
#[cfg_attr(miri, ignore)]
fn streamed_nested_fields_decode_row_groups_ahead_on_threads() {
    let file = nested_file(175_000, 25_000);
    let groups = ParquetReader::new(file.clone())
        .unwrap()
        .metadata()
        .row_groups
        .len();
    assert_eq!(groups, 7);
    let one = streamed(&file, 1, &["l", "s"]);
    assert_eq!(one.0.len(), 175, "25 batches of 1000 rows per row group");
    assert!(one.1.is_none());
    for threads in [2, 3, 8] {
        #[cfg(feature = "probes")]
        parq::codecs::probe::reset();
        let many = streamed(&file, threads, &["l", "s"]);
        let (a, b) = (summary(&many), summary(&one));
        assert!(many == one, "{threads} threads: {a} / {b}");
        // The calling thread streams one row group in `threads`; the others go ahead.
        #[cfg(feature = "probes")]
        assert_eq!(
            parq::codecs::probe::get("push.row_group_ahead"),
            (groups - groups.div_ceil(threads)) as u64,
            "{threads} threads"
        );
    }
    // Arrow batches come from the same decoder.
    #[cfg(feature = "arrow")]
    {
        let arrow = |threads| {
            open(&file, threads, ByteArrayLayout::Offsets)
                .unwrap()
                .record_batches(&["l", "s"], 1000)
                .unwrap()
                .collect::<Result<Vec<_>, _>>()
                .unwrap()
        };
        #[cfg(feature = "probes")]
        parq::codecs::probe::reset();
        assert!(arrow(2) == arrow(1));
        #[cfg(feature = "probes")]
        assert_eq!(parq::codecs::probe::get("push.row_group_ahead"), 3);
    }
    // A selection is applied to each row group, wherever it decodes.
    let rows = || Some(RowSelection::from_ranges([2_500..9_000, 12_000..12_010]));
    let one = streamed_rows(&file, 1, &["l", "s"], rows());
    let many = streamed_rows(&file, 2, &["l", "s"], rows());
    let (a, b) = (summary(&many), summary(&one));
    assert!(many == one, "selected rows: {a} / {b}");
    assert_eq!(one.0.iter().map(Vec::len).sum::<usize>(), 2 * 6_510);
    #[cfg(feature = "probes")]
    {
        // Flat columns split their page ranges across the threads instead.
        let flat = mixed_file(
            CodecKind::Snappy,
            PageVersion::V1,
            EncodingPolicy::Auto,
            2_000,
        );
        let names = open(&flat, 1, ByteArrayLayout::Offsets)
            .unwrap()
            .fields()
            .unwrap();
        let names: Vec<&str> = names.iter().map(|f| f.name.as_str()).collect();
        parq::codecs::probe::reset();
        assert!(streamed(&flat, 2, &names) == streamed(&flat, 1, &names));
        assert_eq!(parq::codecs::probe::get("push.row_group_ahead"), 0);
        parq::codecs::probe::reset();
        streamed(&file, 1, &["l", "s"]);
        assert_eq!(parq::codecs::probe::get("push.row_group_ahead"), 0);
        // Row groups too small to pay for a thread stream on the calling thread.
        let small = nested_file(20_000, 3_000);
        parq::codecs::probe::reset();
        assert!(streamed(&small, 2, &["l", "s"]) == streamed(&small, 1, &["l", "s"]));
        assert_eq!(parq::codecs::probe::get("push.row_group_ahead"), 0);
    }

    // Break the first page header of `l` in row groups 3 and 4 (one decoded ahead on two
    // threads, one on the calling thread).
    for rg in [3, 4] {
        let r = ParquetReader::new(file.clone()).unwrap();
        let meta = r.metadata().row_groups[rg].columns[0]
            .meta_data
            .clone()
            .unwrap();
        let at = meta.dictionary_page_offset.unwrap_or(meta.data_page_offset) as usize;
        let mut broken = file.to_vec();
        broken[at..at + 8].fill(0xff);
        let broken = Bytes::from(broken);
        let one = streamed(&broken, 1, &["l", "s"]);
        assert_eq!(one.0.len(), 25 * rg, "the batches before row group {rg}");
        assert!(one.1.is_some());
        for threads in [2, 3] {
            let many = streamed(&broken, threads, &["l", "s"]);
            let (a, b) = (summary(&many), summary(&one));
            assert!(many == one, "row group {rg}, {threads} threads: {a} / {b}");
        }
    }
}

/// A whole-column read of a big column reserves its output once, advised onto huge pages.
#[cfg(all(feature = "probes", target_os = "linux"))]
#[test]
#[cfg_attr(miri, ignore)]
fn big_whole_column_outputs_are_advised_onto_huge_pages() {
    use parq::codecs::probe;
    let file = mixed_file(
        CodecKind::Uncompressed,
        PageVersion::V1,
        EncodingPolicy::Plain,
        ROWS,
    );
    let r = open(&file, 1, ByteArrayLayout::Offsets).unwrap();
    probe::reset();
    r.read_column(0).unwrap(); // 40,000 int64: 320 KB, too small to advise
    assert_eq!(probe::get("memory.huge_pages_advised"), 0);
    let big = write(
        vec![Field::int64("id")],
        &[Column::concat(&vec![int64s(None); 8])],
        WriterOptions::default(),
    );
    let r = open(&big, 1, ByteArrayLayout::Offsets).unwrap();
    probe::reset();
    r.read_column(0).unwrap(); // 320,000 int64: 2.5 MB
    assert_eq!(probe::get("memory.huge_pages_advised"), 1);
}

/// A selected read with several threads returns the same rows as with one (selected reads run
/// on the calling thread; the thread count must not make them ignore the selection).
#[test]
#[cfg_attr(miri, ignore)]
fn selected_reads_ignore_no_rows_with_threads() {
    let file = mixed_file(
        CodecKind::Snappy,
        PageVersion::V1,
        EncodingPolicy::Auto,
        30_000,
    );
    let selection = RowSelection::from_ranges([5..17, 20_000..20_100, 39_990..40_000]);
    let read = |threads: usize| {
        let options = ReadOptions::default()
            .with_threads(threads)
            .with_selection(Some(selection.clone()));
        let reader = ParquetReader::with_options(file.clone(), options).unwrap();
        let whole = reader.read_leaves(&[0, 2, 4]).unwrap();
        let batched: Vec<usize> = reader
            .batches(&[0, 2], 64)
            .unwrap()
            .map(|b| b.unwrap().num_rows)
            .collect();
        (whole, batched)
    };
    let (one, one_batches) = read(1);
    assert_eq!(one[0].len, 122);
    for threads in [2, 3] {
        let (many, many_batches) = read(threads);
        assert_eq!(many, one, "{threads} threads");
        assert_eq!(many_batches, one_batches, "{threads} threads");
    }
}
