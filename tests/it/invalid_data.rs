//! Data that does not mean what its annotation says (issue 36, "no silent change"): strings
//! that are not UTF-8, and annotations that do not fit their physical type. DuckDB's files
//! (`testdata/duckdb/`, see its README) and files parq's writer makes with a bad value placed
//! at random.
//!
//! What the library does: a raw read gives the bytes as stored (nothing is text yet, and
//! nothing is changed); with `ReadOptions::check_strings` (what `parq cat` sets) or as Arrow
//! strings, a value of a STRING column that is not UTF-8 is an error naming the column, the
//! row group and the row in the row group. Binary columns are never checked. A leaf whose
//! annotation does not fit its type fails when it is read, naming it; the footer, the schema
//! and the other columns stay readable.

use std::path::PathBuf;

use bytes::Bytes;
use parq::column::{Column, Values};
use parq::metadata::Encoding;
use parq::predicate::{Expr, Materialise};
use parq::read::{ParquetReader, ReadOptions, RowSelection};
use parq::write::{ColumnOptions, EncodingPolicy, Field, ParquetWriter, WriterOptions};
use parq::Error;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

fn duckdb(name: &str) -> Bytes {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/duckdb")
        .join(name);
    Bytes::from(std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
}

fn checked() -> ReadOptions {
    ReadOptions::default().with_check_strings(true)
}

/// Where an invalid-UTF-8 error (which `e` must be) is: column, row group, row.
struct At {
    column: Option<String>,
    row_group: Option<usize>,
    row: Option<u64>,
}

fn utf8_location(e: &Error) -> At {
    assert!(e.is_invalid_utf8(), "not an invalid-UTF-8 error: {e}");
    match e {
        Error::Format { at, what } => At {
            column: at.column.clone(),
            row_group: at.row_group,
            row: what
                .split_once(" at row ")
                .and_then(|(_, r)| r.strip_suffix(" of the row group"))
                .map(|r| r.parse().unwrap()),
        },
        _ => unreachable!("is_invalid_utf8 is a format error"),
    }
}

/// Every value of leaf 0 through streamed batches of `size` rows.
fn read_batches(file: &Bytes, options: ReadOptions, size: usize) -> parq::Result<Vec<Column>> {
    let reader = ParquetReader::with_options(file.clone(), options)?;
    reader
        .batches(&[0], size)?
        .map(|b| Ok(b?.columns.remove(0)))
        .collect()
}

/// DuckDB's files with a value cut inside a character, in four encodings: the bad value and
/// its row (as pyarrow reads the bytes).
const INVALID: &[(&str, u64, &[u8])] = &[
    ("invalid.parquet", 0, b"TREL\xc3"),
    ("invalid_utf8_dba.parquet", 0, b"TREL\xc3"),
    ("invalid_utf8_dictionary.parquet", 0, b"TREL\xc3"),
    ("invalid_utf8_dlba.parquet", 0, b"TREL\xc3"),
];

#[test]
fn duckdb_invalid_utf8_is_an_error_at_its_row() {
    for &(name, row, bytes) in INVALID {
        let file = duckdb(name);
        // As stored, unchecked: the bytes, unchanged.
        let raw = ParquetReader::new(file.clone())
            .unwrap()
            .read_column(0)
            .unwrap();
        assert_eq!(raw.bytes(row as usize), Some(bytes), "{name}");
        for size in [1, 1024] {
            let e = read_batches(&file, checked(), size).expect_err(name);
            let at = utf8_location(&e);
            assert_eq!(at.column.as_deref(), Some("X1"), "{name}: {e}");
            assert_eq!(at.row_group, Some(0), "{name}: {e}");
            assert_eq!(at.row, Some(row), "{name}: {e}");
            let text = e.to_string();
            assert!(
                text.contains("column X1, row group 0")
                    && text.contains(&format!("at row {row} of the row group")),
                "{name}: {text}"
            );
        }
        // Parq's own arrays (what `parq cat` reads) and a whole-column read.
        let reader = ParquetReader::with_options(file.clone(), checked()).unwrap();
        let e = reader
            .array_batches(&["X1"], 100)
            .unwrap()
            .find_map(|b| b.err())
            .expect(name);
        assert_eq!(utf8_location(&e).row, Some(row), "{name}: {e}");
        let e = reader.read_column(0).expect_err(name);
        assert_eq!(utf8_location(&e).column.as_deref(), Some("X1"), "{name}");
        // A selection without the bad row reads it without complaint.
        let others = RowSelection::from_ranges([(row + 1)..2, 0..row]);
        let options = checked().with_selection(Some(others));
        let kept = read_batches(&file, options, 1024).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(
            kept.iter().map(|c| c.len).sum::<usize>() as u64,
            raw.len as u64 - 1
        );
    }
}

#[cfg(feature = "arrow")]
#[test]
fn duckdb_invalid_utf8_fails_as_arrow_strings() {
    for &(name, row, _) in INVALID {
        let reader = ParquetReader::new(duckdb(name)).unwrap();
        let e = reader
            .record_batches(&["X1"], 1024)
            .unwrap()
            .find_map(|b| b.err())
            .expect(name);
        let arrow_schema::ArrowError::ExternalError(e) = e else {
            panic!("{name}: {e}");
        };
        let e = e.downcast_ref::<Error>().expect("a parq error");
        let at = utf8_location(e);
        assert_eq!(
            (at.column.as_deref(), at.row_group, at.row),
            (Some("X1"), Some(0), Some(row)),
            "{name}: {e}"
        );
    }
}

/// Statistics cut inside a character are not values: the file reads, checked, as pyarrow and
/// DuckDB read it.
#[test]
fn duckdb_strings_with_cut_statistics_read() {
    let file = duckdb("invalid_utf8_stats.parquet");
    let reader = ParquetReader::with_options(file, checked()).unwrap();
    let columns = reader.read_leaves(&[0, 1, 2]).unwrap();
    assert_eq!(columns[1].bytes(1), Some("Chicago, Illinois".as_bytes()));
    assert_eq!(columns[0].bytes(0), Some("😀 😁 😂 🤣 😍 😢".as_bytes()));
}

/// DuckDB's `broken_*` files: one column `a`... whose converted type does not fit its physical
/// type. Reading it is an error naming it and both types; the footer and schema are fine.
#[test]
fn duckdb_annotations_that_do_not_fit_fail_when_read() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/duckdb/broken");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.starts_with("broken_"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 11, "{names:?}");
    for name in names {
        let file = duckdb(&format!("broken/{name}"));
        let reader = ParquetReader::new(file).unwrap();
        let leaf = reader.schema().leaf(0).clone();
        let fields = reader.fields().unwrap();
        assert_eq!(fields.len(), reader.schema().top_level_fields().len());
        assert!(
            reader.schema().display_tree().contains(leaf.name()),
            "{name}"
        );
        let e = reader.read_column(0).expect_err(&name).to_string();
        let ct = format!("{:?}", leaf.converted_type.unwrap());
        assert!(
            e.contains(&format!("column {}", leaf.path_string()))
                && e.contains(&ct)
                && e.contains(&leaf.physical_type.to_string()),
            "{name}: {e}"
        );
        let e = reader
            .array_batches(&[leaf.name()], 10)
            .and_then(|mut b| b.next().transpose())
            .expect_err(&name)
            .to_string();
        assert!(
            e.contains(&format!("column {}", leaf.path_string())),
            "{name}: {e}"
        );
    }
}

/// One optional STRING column and one INT64 column (the row number), written by parq.
fn string_file(values: &[Option<Vec<u8>>], encoding: EncodingPolicy, rg_rows: usize) -> Bytes {
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for v in values {
        data.extend_from_slice(v.as_deref().unwrap_or_default());
        offsets.push(data.len() as i64);
    }
    let strings = Column {
        len: values.len(),
        validity: values.iter().any(Option::is_none).then(|| {
            let valid: Vec<bool> = values.iter().map(Option::is_some).collect();
            valid.into()
        }),
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: arrow_buffer::Buffer::from_vec(data),
        },
    };
    let ids = Column {
        len: values.len(),
        validity: None,
        values: Values::Int64((0..values.len() as i64).collect::<Vec<_>>().into()),
    };
    let options = WriterOptions::default()
        .with_column("s", ColumnOptions::default().with_encoding(Some(encoding)))
        .with_data_page_size(512)
        .with_row_group_rows(rg_rows);
    let fields = vec![Field::string("s").optional(), Field::int64("id")];
    let mut file = Vec::new();
    let mut w = ParquetWriter::new(&mut file, fields, options).unwrap();
    w.write_batch(&[strings, ids]).unwrap();
    w.finish().unwrap();
    Bytes::from(file)
}

fn encodings() -> impl Strategy<Value = EncodingPolicy> {
    prop_oneof![
        Just(EncodingPolicy::Plain),
        Just(EncodingPolicy::Dictionary),
        Just(EncodingPolicy::Explicit(Encoding::DELTA_LENGTH_BYTE_ARRAY)),
        Just(EncodingPolicy::Explicit(Encoding::DELTA_BYTE_ARRAY)),
    ]
}

/// Bytes that are not UTF-8 on their own: a lone continuation byte, a lead byte without its
/// continuation, an overlong form, a surrogate, a byte never in UTF-8.
fn invalid_piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        Just(vec![0x80]),
        Just(vec![0xc3]),
        Just(vec![0xe2, 0x82]),
        Just(vec![0xc0, 0xaf]),
        Just(vec![0xed, 0xa0, 0x80]),
        Just(vec![0xff]),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: Some(Box::new(FileFailurePersistence::Off)),
        ..ProptestConfig::default()
    })]

    /// Random strings (with a few repeated, so that dictionaries are used), one of them
    /// made invalid at a random place: the checked read fails at exactly that row, whatever
    /// the encoding and batch size; a filter or selection that leaves the row out reads;
    /// without the bad value nothing fails, and a raw read gives every byte back.
    #[test]
    fn a_bad_string_is_caught_at_its_row(
        words in proptest::collection::vec(proptest::option::weighted(0.9, "[a-zé😀]{0,12}"), 1..1500),
        bad in proptest::option::of((any::<prop::sample::Index>(), 0usize..4, invalid_piece())),
        encoding in encodings(),
        rg_rows in prop_oneof![Just(100usize), Just(1000), Just(100_000)],
        batch in prop_oneof![Just(7usize), Just(1024)],
    ) {
        let mut values: Vec<Option<Vec<u8>>> = words
            .iter()
            .enumerate()
            .map(|(i, w)| w.as_ref().map(|w| if i % 3 == 0 { b"same".to_vec() } else { w.clone().into_bytes() }))
            .collect();
        let mut bad_row = None;
        if let Some((index, at, piece)) = &bad {
            let row = index.index(values.len());
            let mut v = values[row].clone().unwrap_or_default();
            // Inside the value or at its end, never splitting a character of the rest.
            let mut cut = (*at).min(v.len());
            while std::str::from_utf8(&v[..cut]).is_err() {
                cut -= 1;
            }
            v.splice(cut..cut, piece.iter().copied());
            values[row] = Some(v);
            bad_row = Some(row);
        }
        let file = string_file(&values, encoding, rg_rows);
        let raw = read_batches(&file, ReadOptions::default(), batch).unwrap();
        let raw = Column::concat(&raw);
        for (i, v) in values.iter().enumerate() {
            prop_assert_eq!(raw.bytes(i).filter(|_| raw.is_valid(i)), v.as_deref());
        }
        let got = read_batches(&file, checked(), batch);
        match bad_row {
            None => prop_assert!(got.is_ok(), "{:?}", got.err()),
            Some(row) => {
                let e = got.expect_err("a bad value");
                let at = utf8_location(&e);
                prop_assert_eq!(at.column.as_deref(), Some("s"));
                prop_assert_eq!(at.row_group, Some(row / rg_rows), "{}", e);
                prop_assert_eq!(at.row, Some((row % rg_rows) as u64), "{}", e);
                // Left out by a selection, or by a filter on another column: not checked.
                let others = RowSelection::from_ranges([0..row as u64, row as u64 + 1..values.len() as u64]);
                let options = checked().with_selection(Some(others));
                prop_assert!(read_batches(&file, options, batch).is_ok());
                let reader = ParquetReader::with_options(file.clone(), checked()).unwrap();
                let expr = Expr::parse(&format!("id != {row}")).unwrap();
                // Whichever way the rows are read: decoding every row and dropping the bad
                // one must not check it either.
                for how in [Materialise::Auto, Materialise::Selected, Materialise::Masked] {
                    let rows: parq::Result<usize> = reader
                        .read_builder()
                        .with_projection(["s"])
                        .with_filter(expr.clone())
                        .with_materialise(how)
                        .build()
                        .unwrap()
                        .map(|b| b.map(|b| b.num_rows))
                        .sum();
                    prop_assert_eq!(rows.unwrap(), values.len() - 1, "{:?}", how);
                }
                let (whole, _) = reader.read_filtered(&["s"], &expr).unwrap();
                prop_assert_eq!(whole[0].1.len(), values.len() - 1);
                let expr = Expr::parse(&format!("id = {row}")).unwrap();
                let e = reader
                    .read_builder()
                    .with_projection(["s"])
                    .with_filter(expr.clone())
                    .build()
                    .unwrap()
                    .find_map(|b| b.err())
                    .expect("the bad row");
                prop_assert!(e.is_invalid_utf8(), "{}", e);
            }
        }
    }
}

/// Columns without a STRING annotation are bytes: never checked.
#[test]
fn binary_columns_are_never_checked() {
    let values = [Some(&b"\xff\xfe"[..]), None, Some(b"ok")];
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for v in values {
        data.extend_from_slice(v.unwrap_or_default());
        offsets.push(data.len() as i64);
    }
    let column = Column {
        len: 3,
        validity: Some(vec![true, false, true].into()),
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: arrow_buffer::Buffer::from_vec(data),
        },
    };
    let mut file = Vec::new();
    let fields = vec![Field::byte_array("b").optional()];
    let mut w = ParquetWriter::new(&mut file, fields, WriterOptions::default()).unwrap();
    w.write_batch(&[column]).unwrap();
    w.finish().unwrap();
    let got = read_batches(&Bytes::from(file), checked(), 1024).unwrap();
    assert_eq!(got[0].bytes(0), Some(&b"\xff\xfe"[..]));
}

/// Annotations that do not fit their physical type, beside a column that is fine, written
/// by parq's writer (which writes what it is given): each fails when read, naming itself,
/// while the good column reads in the same file; annotations that fit read.
#[test]
fn annotations_that_do_not_fit_fail_and_the_other_columns_read() {
    use parq::metadata::{ConvertedType, LogicalType, TimeUnit, Type};
    let ts = LogicalType::Timestamp {
        is_adjusted_to_utc: true,
        unit: TimeUnit::Micros,
    };
    let mut uint64 = Field::int32("bad");
    uint64.converted_type = Some(ConvertedType::UINT_64);
    let mut interval = Field::fixed_len_byte_array("bad", 8);
    interval.converted_type = Some(ConvertedType::INTERVAL);
    let bad = [
        (
            Field::int32("bad").with_logical_type(ts.clone()),
            "does not fit physical type INT32",
        ),
        (
            uint64,
            "annotation UINT_64 does not fit physical type INT32",
        ),
        (
            Field::int64("bad").with_logical_type(LogicalType::Date),
            "annotation DATE does not fit physical type INT64",
        ),
        (
            Field::int32("bad").with_logical_type(LogicalType::String),
            "annotation STRING does not fit physical type INT32",
        ),
        (
            Field::decimal("bad", Type::INT32, 10, 2),
            "INT32 holds a precision of 1 to 9, not 10",
        ),
        (
            Field::decimal("bad", Type::INT64, 19, 0),
            "INT64 holds a precision of 1 to 18",
        ),
        (
            Field::decimal_fixed("bad", 2, 5, 0),
            "FIXED_LEN_BYTE_ARRAY holds a precision of 1 to 4",
        ),
        (
            Field::decimal("bad", Type::INT64, 4, 5),
            "the scale must be 0 to the precision 4",
        ),
        (
            Field::fixed_len_byte_array("bad", 8).with_logical_type(LogicalType::Uuid),
            "FIXED_LEN_BYTE_ARRAY(16) only",
        ),
        (interval, "FIXED_LEN_BYTE_ARRAY(12) only"),
    ];
    let good = [
        Field::int64("fine").with_logical_type(ts),
        Field::decimal("fine", Type::INT32, 9, 9),
        Field::decimal("fine", Type::INT64, 18, 2),
        Field::decimal_fixed("fine", 2, 4, 0),
        Field::decimal_fixed("fine", 16, 38, 10),
        Field::decimal("fine", Type::BYTE_ARRAY, 60, 3),
        Field::int32("fine").with_logical_type(LogicalType::Date),
    ];
    let column = |f: &Field| {
        let values = match f.physical_type {
            Type::INT32 => Values::Int32(vec![1, 2].into()),
            Type::INT64 => Values::Int64(vec![1, 2].into()),
            Type::FIXED_LEN_BYTE_ARRAY => {
                let w = f.type_length.unwrap() as usize;
                Values::FixedLenByteArray {
                    width: w,
                    data: arrow_buffer::Buffer::from_vec(vec![0u8; 2 * w]),
                }
            }
            _ => Values::Binary {
                offsets: arrow_buffer::OffsetBuffer::new(vec![0i64, 1, 2].into()),
                data: arrow_buffer::Buffer::from_vec(vec![0u8, 1]),
            },
        };
        Column {
            len: 2,
            validity: None,
            values,
        }
    };
    let file = |f: &Field| {
        let ids = Field::int64("id");
        let mut out = Vec::new();
        let mut w = ParquetWriter::new(
            &mut out,
            vec![ids.clone(), f.clone()],
            WriterOptions::default(),
        )
        .unwrap();
        w.write_batch(&[column(&ids), column(f)]).unwrap();
        w.finish().unwrap();
        ParquetReader::new(Bytes::from(out)).unwrap()
    };
    for (f, want) in &bad {
        let reader = file(f);
        assert!(reader.schema().display_tree().contains("bad"));
        assert_eq!(reader.fields().unwrap().len(), 2);
        assert_eq!(reader.read_column(0).unwrap().len, 2, "{want}");
        let e = reader.read_column(1).expect_err(want).to_string();
        assert!(
            e.contains(want) && e.contains("column bad"),
            "want {want:?}: {e}"
        );
        let e = reader
            .array_batches(&["id", "bad"], 10)
            .and_then(|mut b| b.next().transpose());
        assert!(e.is_err(), "{want}");
        assert_eq!(reader.array_batches(&["id"], 10).unwrap().count(), 1);
    }
    for f in &good {
        assert_eq!(file(f).read_column(1).map(|c| c.len).ok(), Some(2), "{f:?}");
    }
}

/// Strings inside lists and structs: the checked read names the row (record) of the bad
/// value in its row group, found from the levels, whether the page is read whole, cut into
/// batches or under a selection, over v1 and v2 pages and across page and row-group ends.
#[cfg(feature = "testing")]
#[test]
fn a_bad_string_in_a_nested_field_is_caught_at_its_row() {
    use crate::support_nested::{build, write_arrays};
    use parq::array::Value;
    use parq::write::PageVersion;

    let element = parq::write::Field::string("element").optional().into();
    let fields = [
        parq::field::Field::list("l", element),
        parq::field::Field::structure(
            "s",
            vec![
                parq::write::Field::int32("i").into(),
                parq::write::Field::string("x").optional().into(),
            ],
        ),
    ];
    let rows = 2500usize;
    let word = |i: usize| Value::Leaf(format!("w{}é", i % 37).into_bytes());
    let lists: Vec<Value> = (0..rows)
        .map(|i| match i % 7 {
            0 => Value::Null,
            1 => Value::List(vec![]),
            k => Value::List(
                (0..k)
                    .map(|j| if j == 1 { Value::Null } else { word(i + j) })
                    .collect(),
            ),
        })
        .collect();
    let structs: Vec<Value> = (0..rows)
        .map(|i| match i % 5 {
            0 => Value::Null,
            1 => Value::Struct(vec![
                Value::Leaf((i as i32).to_le_bytes().to_vec()),
                Value::Null,
            ]),
            _ => Value::Struct(vec![
                Value::Leaf((i as i32).to_le_bytes().to_vec()),
                word(i),
            ]),
        })
        .collect();
    let bad = b"bad\xc3".to_vec();
    for (bad_row, version, rg_rows) in [
        (3usize, PageVersion::V1, 1000usize),
        (1234, PageVersion::V1, 1000),
        (2498, PageVersion::V2, 1000),
        (1006, PageVersion::V2, 100_000),
    ] {
        // The list's first element and the struct's string, at `bad_row` only.
        let (mut l, mut s) = (lists.clone(), structs.clone());
        l[bad_row] = Value::List(vec![word(1), Value::Null, Value::Leaf(bad.clone())]);
        s[bad_row] = Value::Struct(vec![
            Value::Leaf(7i32.to_le_bytes().to_vec()),
            Value::Leaf(bad.clone()),
        ]);
        let options = WriterOptions::default()
            .with_page_version(version)
            .with_encoding(EncodingPolicy::Plain)
            .with_data_page_size(300)
            .with_row_group_rows(rg_rows);
        let arrays = vec![build(&fields[0], &l), build(&fields[1], &s)];
        let file = Bytes::from(write_arrays(&fields, &[arrays], options));
        let want_group = bad_row / rg_rows;
        let want_row = (bad_row % rg_rows) as u64;
        for (field, leaf) in [("l", "l.list.element"), ("s", "s.x")] {
            for batch in [1usize, 10, 4096] {
                let reader = ParquetReader::with_options(file.clone(), checked()).unwrap();
                let e = reader
                    .array_batches(&[field], batch)
                    .unwrap()
                    .find_map(|b| b.err())
                    .unwrap_or_else(|| panic!("{field} row {bad_row}: no error"));
                let at = utf8_location(&e);
                assert_eq!(at.column.as_deref(), Some(leaf), "{e}");
                assert_eq!(at.row_group, Some(want_group), "{e}");
                assert_eq!(
                    at.row,
                    Some(want_row),
                    "{field} row {bad_row} batch {batch}: {e}"
                );
            }
            // Under a selection that keeps the bad row among others, and one that leaves it out.
            let around = (bad_row as u64).saturating_sub(20)..(bad_row as u64 + 3).min(rows as u64);
            let options = checked().with_selection(Some(RowSelection::from_ranges([around])));
            let reader = ParquetReader::with_options(file.clone(), options).unwrap();
            let e = reader
                .array_batches(&[field], 7)
                .unwrap()
                .find_map(|b| b.err())
                .expect("the selected bad row");
            assert_eq!(
                utf8_location(&e).row,
                Some(want_row),
                "{field} selected: {e}"
            );
            let others =
                RowSelection::from_ranges([0..bad_row as u64, bad_row as u64 + 1..rows as u64]);
            let options = checked().with_selection(Some(others));
            let reader = ParquetReader::with_options(file.clone(), options).unwrap();
            let read: parq::Result<usize> = reader
                .array_batches(&[field], 64)
                .unwrap()
                .map(|b| b.map(|b| b.num_rows))
                .sum();
            assert_eq!(read.unwrap(), rows - 1, "{field}");
        }
    }
}
