//! Reader API: sources, projection, row-group choice, batching, CRC checks, error locations.

use std::path::PathBuf;

use bytes::Bytes;
use parq::column::{Column, Values};
use parq::read::{FileSource, MmapSource, ParquetReader, ReadOptions, Source};

/// `name` in parquet-testing's `data/`: under `$PARQUET_TEST_DATA` when set (as in arrow-rs),
/// else in the copy vendored under `testdata/parquet-testing/` (see testdata/README.md).
fn data(name: &str) -> PathBuf {
    std::env::var_os("PARQUET_TEST_DATA")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data")
        })
        .join(name)
}

fn bytes(name: &str) -> Bytes {
    Bytes::from(std::fs::read(data(name)).unwrap())
}

fn int32s(c: &Column) -> Vec<Option<i32>> {
    let Values::Int32(v) = &c.values else {
        panic!("int32 expected")
    };
    (0..c.len).map(|i| c.is_valid(i).then(|| v[i])).collect()
}

fn all_columns<S: Source>(r: &ParquetReader<S>) -> Vec<Column> {
    (0..r.schema().leaves.len())
        .map(|i| r.read_column(i).unwrap())
        .collect()
}

#[test]
fn every_source_reads_the_same_values() {
    let name = "alltypes_tiny_pages_plain.parquet";
    let mem = ParquetReader::new(bytes(name)).unwrap();
    let file = ParquetReader::new(FileSource::open(data(name)).unwrap()).unwrap();
    // SAFETY: the conformance files are not modified while the test runs.
    let map = ParquetReader::new(unsafe { MmapSource::open(data(name)) }.unwrap()).unwrap();
    let (a, b, c) = (all_columns(&mem), all_columns(&file), all_columns(&map));
    for ((x, y), z) in a.iter().zip(&b).zip(&c) {
        assert!(x == y && x == z);
    }
}

#[test]
fn batches_concatenate_to_the_whole_column() {
    let r = ParquetReader::new(bytes("alltypes_tiny_pages.parquet")).unwrap();
    let id = r.column_index("id").unwrap();
    let whole = int32s(&r.read_column(id).unwrap());
    for batch_size in [1, 7, 100, 4096, 1 << 20] {
        let mut got = Vec::new();
        for b in r.batches(&[id], batch_size).unwrap() {
            let b = b.unwrap();
            assert!(b.num_rows <= batch_size);
            got.extend(int32s(&b.columns[0]));
        }
        assert_eq!(got, whole, "batch size {batch_size}");
    }
}

#[test]
fn row_group_choice_and_projection() {
    let name = "alltypes_plain.parquet";
    let all = ParquetReader::new(bytes(name)).unwrap();
    let n = all.metadata().row_groups.len();
    let picked = ParquetReader::with_options(
        bytes(name),
        ReadOptions::default().with_row_groups(Some(vec![n - 1])),
    )
    .unwrap();
    assert_eq!(
        picked.num_rows(),
        all.metadata().row_groups[n - 1].num_rows as u64
    );
    let cols = all.read_columns(&["bool_col", "id"]).unwrap();
    assert_eq!(cols.len(), 2);
    assert!(matches!(cols[0].values, Values::Boolean(_)));
    assert!(matches!(cols[1].values, Values::Int32(_)));
    assert!(all.read_column_by_path("no_such_column").is_err());
    let bad = ParquetReader::with_options(
        bytes(name),
        ReadOptions::default().with_row_groups(Some(vec![n])),
    );
    assert!(bad.is_err());
}

#[test]
fn crc_is_checked_when_asked() {
    let crc = ReadOptions::default().with_verify_crc(true);
    for good in [
        "datapage_v1-uncompressed-checksum.parquet",
        "datapage_v1-snappy-compressed-checksum.parquet",
        "plain-dict-uncompressed-checksum.parquet",
        "rle-dict-snappy-checksum.parquet",
    ] {
        let r = ParquetReader::with_options(bytes(good), crc.clone()).unwrap();
        all_columns(&r);
    }
    for bad in [
        "datapage_v1-corrupt-checksum.parquet",
        "rle-dict-uncompressed-corrupt-checksum.parquet",
    ] {
        // Ignored by default, as pyarrow does ...
        all_columns(&ParquetReader::new(bytes(bad)).unwrap());
        // ... and an error naming column, page and offset when checked.
        let r = ParquetReader::with_options(bytes(bad), crc.clone()).unwrap();
        let err = (0..r.schema().leaves.len())
            .find_map(|i| r.read_column(i).err())
            .expect("a corrupt page");
        let msg = err.to_string();
        assert!(msg.contains("crc"), "{msg}");
        assert!(
            msg.contains("column") && msg.contains("page") && msg.contains("offset"),
            "{msg}"
        );
    }
}

#[test]
fn truncated_file_errors_name_the_place() {
    let file = std::fs::read(data("alltypes_plain.parquet")).unwrap();
    // Corrupt a data page header (but keep the footer): the error must say where.
    let r = ParquetReader::new(Bytes::from(file.clone())).unwrap();
    let meta = r.metadata().row_groups[0].columns[0]
        .meta_data
        .clone()
        .unwrap();
    let mut broken = file;
    let at = meta.data_page_offset as usize;
    broken[at..at + 8].fill(0xff);
    let r = ParquetReader::new(Bytes::from(broken)).unwrap();
    let msg = r.read_column(0).unwrap_err().to_string();
    assert!(msg.contains("column id"), "{msg}");
    assert!(msg.contains("offset"), "{msg}");
}

/// I/O errors name the file: "No such file or directory" alone does not say which one.
#[test]
fn io_errors_name_the_path() {
    let missing = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("no-such-dir/missing.parquet");
    let named = |e: parq::Error| {
        let text = e.to_string();
        assert!(
            text.starts_with(&format!("i/o error: {}: ", missing.display())),
            "{text}"
        );
        assert!(
            matches!(&e, parq::Error::File { path, source }
                if *path == missing && source.kind() == std::io::ErrorKind::NotFound),
            "{e:?}"
        );
    };
    named(FileSource::open(&missing).unwrap_err());
    // SAFETY: the file does not exist; nothing is mapped.
    named(unsafe { MmapSource::open(&missing) }.unwrap_err());

    // A read after the open names the path too: here the file shrank under the source.
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("shrinking-{}.parquet", std::process::id()));
    std::fs::write(&path, [0u8; 64]).unwrap();
    let source = FileSource::open(&path).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(0)
        .unwrap();
    let err = source.read(0..64).unwrap_err();
    let _ = std::fs::remove_file(&path);
    assert!(
        matches!(&err, parq::Error::File { path: p, .. } if *p == path),
        "{err:?}"
    );
    assert!(err.to_string().contains(&*path.to_string_lossy()), "{err}");

    // A source without a path (an open `File`) keeps the plain variant.
    let unnamed = parq::Error::from(std::io::Error::other("x"));
    assert_eq!(unnamed.to_string(), "i/o error: x");
    assert_eq!(unnamed.in_file("f").to_string(), "i/o error: f: x");
}

/// The page index is read on demand: pages of `alltypes_tiny_pages_plain` (written with a page
/// index by parquet-mr) have offset-index first rows that add up to the row group, and a column
/// index with one entry per page where it has one.
#[test]
fn page_index_reads_where_present() {
    let reader = ParquetReader::new(bytes("alltypes_tiny_pages_plain.parquet")).unwrap();
    let rows = reader.metadata().row_groups[0].num_rows;
    let mut indexed = 0;
    for col in 0..reader.schema().leaves.len() {
        let oi = reader
            .read_offset_index(0, col)
            .unwrap()
            .expect("offset index");
        // A writer may leave a column's index out (parquet-mr does for some columns).
        if let Some(ci) = reader.read_column_index(0, col).unwrap() {
            assert_eq!(ci.null_pages.len(), oi.page_locations.len());
            indexed += 1;
        }
        assert_eq!(oi.page_locations[0].first_row_index, 0);
        for w in oi.page_locations.windows(2) {
            assert!(w[0].first_row_index < w[1].first_row_index);
            assert!(w[1].first_row_index < rows);
        }
    }
    assert!(indexed > 0, "no column index read");
    let plain = ParquetReader::new(bytes("alltypes_plain.parquet")).unwrap();
    assert!(plain.read_offset_index(0, 0).unwrap().is_none());
    assert!(plain.read_column_index(0, 0).unwrap().is_none());
    assert!(plain.read_offset_index(1, 0).is_err(), "no row group 1");
}

/// One budget: every bound on a read's memory derives from `max_memory`, and its default
/// keeps the bounds parq has always had (1 GiB pages, 2^27 values, 128 MiB planned ahead).
#[test]
fn every_memory_bound_derives_from_the_one_budget() {
    let default = ReadOptions::default();
    assert_eq!(default.max_memory, 4 << 30);
    assert_eq!(default.max_page_size(), 1 << 30);
    assert_eq!(default.max_page_values(), 1 << 27);
    assert_eq!(default.plan_ahead_bytes(), 128 << 20);
    let small = ReadOptions::default().with_max_memory(64 << 20);
    assert_eq!(small.max_page_size(), 16 << 20);
    assert_eq!(small.max_page_values(), 2 << 20);
    assert_eq!(small.plan_ahead_bytes(), 2 << 20);
}

/// The memory budget: a read whose decoded output outgrows `ReadOptions::max_memory` fails
/// with `Error::Memory` naming the budget, whichever reader; the footer is charged too; the
/// same file reads under a budget that fits it.
#[test]
fn reads_stay_within_the_memory_budget() {
    use parq::write::{Field, ParquetWriter, WriterOptions};
    let n = 100_000usize;
    let mut file = Vec::new();
    let mut w =
        ParquetWriter::new(&mut file, vec![Field::int64("v")], WriterOptions::default()).unwrap();
    w.write_batch(&[Column {
        len: n,
        validity: None,
        values: Values::Int64((0..n as i64).collect::<Vec<_>>().into()),
    }])
    .unwrap();
    w.finish().unwrap();
    let file = Bytes::from(file);
    let with = |max_memory: u64, threads: usize| {
        ParquetReader::with_options(
            file.clone(),
            ReadOptions::default()
                .with_max_memory(max_memory)
                .with_threads(threads),
        )
    };
    // 800,000 bytes of values: over a budget of 700,000 (its pages of 20,000 values are
    // within a 32nd of it), on one thread and on two, whose page ranges are charged together.
    for threads in [1, 2] {
        let reader = with(700_000, threads).unwrap();
        match reader.read_column(0) {
            Err(e @ parq::Error::Memory { .. }) => {
                let parq::Error::Memory { limit, what, .. } = &e else {
                    unreachable!()
                };
                assert_eq!(*limit, Some(700_000));
                assert!(what.contains("decoded values"), "{what}");
                assert_eq!(e.limit(), Some(parq::Limit::Memory));
            }
            other => panic!("threads {threads}: {:?}", other.map(|c| c.len)),
        }
    }
    let batches: Result<Vec<_>, _> = with(700_000, 1)
        .unwrap()
        .batches(&[0], 100_000)
        .unwrap()
        .collect();
    // A batch of 100,000 values (800,000 bytes) is over 700,000.
    assert!(matches!(batches, Err(parq::Error::Memory { .. })));
    // Under a budget of 100,000 a page of 20,000 values is over a 32nd of it (3,125), refused
    // from its header, before anything is allocated for it.
    for threads in [1, 2] {
        match with(100_000, threads).unwrap().read_column(0) {
            Err(e @ parq::Error::TooManyValues { limit: 3125, .. }) => {
                assert_eq!(e.limit(), Some(parq::Limit::PageValues));
                assert!(
                    e.to_string().contains("a 32nd of ReadOptions::max_memory"),
                    "{e}"
                );
            }
            other => panic!("threads {threads}: {other:?}"),
        }
    }
    // The footer alone is over a budget of 16 bytes.
    match with(16, 1) {
        Err(e @ parq::Error::Memory { .. }) => assert!(e.to_string().contains("footer"), "{e}"),
        other => panic!("{:?}", other.err()),
    }
    // Within budget it reads; each run of batches the reader decodes at once is charged
    // afresh (a few batches, whole pages: 325,000 bytes here), so 640,000 (a 32nd of it
    // holds a page's 20,000 values) reads the 800,000 bytes in batches.
    assert_eq!(with(1 << 20, 1).unwrap().read_column(0).unwrap().len, n);
    let rows: usize = with(640_000, 1)
        .unwrap()
        .batches(&[0], 10_000)
        .unwrap()
        .map(|b| b.unwrap().num_rows)
        .sum();
    assert_eq!(rows, n);
}

/// DuckDB's `bug13053-2.parquet` names two of its three top-level columns `column`: every
/// read of all fields keeps the three, an ambiguous name is an error naming both fields,
/// and `Select::Field` picks either.
#[test]
fn repeated_top_level_names_lose_no_column() {
    use parq::array::Value;
    use parq::read::Select;
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/duckdb/bug13053-2.parquet"
    );
    let reader = ParquetReader::new(bytes::Bytes::from(std::fs::read(path).unwrap())).unwrap();
    let names: Vec<String> = reader
        .fields()
        .unwrap()
        .into_iter()
        .map(|f| f.name)
        .collect();
    assert_eq!(names, ["column", "column_1", "column"]);
    let mut rows = Vec::new();
    for b in reader
        .array_batches(&[Select::Field(0), Select::Field(1), Select::Field(2)], 2)
        .unwrap()
    {
        let b = b.unwrap();
        assert_eq!(b.arrays.len(), 3);
        for i in 0..b.num_rows {
            rows.push(b.arrays.iter().map(|a| a.value(i)).collect::<Vec<_>>());
        }
    }
    let int = |v: i64| Value::Leaf(v.to_le_bytes().to_vec());
    assert_eq!(
        rows,
        [
            [int(1), int(4), int(7)],
            [int(2), int(5), int(8)],
            [int(3), int(6), int(9)]
        ]
    );
    let err = reader
        .array_batches(&["column"], 2)
        .err()
        .expect("ambiguous")
        .to_string();
    assert!(
        err.contains("\"column\" names 2 top-level fields (fields 0, 2)"),
        "{err}"
    );
    let err = reader
        .read_column_by_path("column")
        .expect_err("ambiguous")
        .to_string();
    assert!(err.contains("columns 0, 2"), "{err}");
    assert_eq!(
        reader.read_field_by_path("column_1").unwrap().1.value(0),
        int(4)
    );
    #[cfg(feature = "arrow")]
    {
        let batches: Vec<_> = reader
            .record_batches(parq::read::EVERY_FIELD, 10)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(batches[0].num_columns(), 3);
        assert_eq!(batches[0].schema().field(2).name(), "column");
    }
}

/// segmentio/parquet-go's empty Go struct: `nested { inner { } }` has no leaf. It reads as a
/// struct without fields, null in every row (optional, as pyarrow reads it), in parq's
/// arrays and in Arrow.
#[test]
fn groups_without_fields_read_as_empty_structs() {
    use parq::array::{Array, Value};
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/duckdb/empty-group/empty_group_test.parquet"
    );
    let reader = ParquetReader::new(bytes::Bytes::from(std::fs::read(path).unwrap())).unwrap();
    let (field, nested) = reader.read_field_by_path("nested").unwrap();
    assert_eq!(field.children().len(), 1);
    assert_eq!(nested.len(), 1);
    assert_eq!(nested.value(0), Value::Null);
    let Array::Struct(s) = &nested else {
        panic!("{nested:?}")
    };
    assert!(matches!(&s.children[0], Array::Struct(inner) if inner.children.is_empty()));
    let batch = reader
        .array_batches(
            &(0..3).map(parq::read::Select::Field).collect::<Vec<_>>(),
            8,
        )
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(batch.num_rows, 1);
    assert_eq!(
        batch.arrays[2].value(0),
        Value::Leaf(100i32.to_le_bytes().to_vec())
    );
    #[cfg(feature = "arrow")]
    {
        use arrow_array::Array as _;
        let b = reader
            .record_batches(parq::read::EVERY_FIELD, 8)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(b.num_columns(), 3);
        // struct<inner: struct<>>, checked by shape (Arrow's Display differs by version).
        let arrow_schema::DataType::Struct(outer) = b.column(1).data_type() else {
            panic!("{:?}", b.column(1).data_type())
        };
        assert_eq!(outer.len(), 1);
        assert_eq!(outer[0].name(), "inner");
        assert!(matches!(outer[0].data_type(), arrow_schema::DataType::Struct(f) if f.is_empty()));
        assert!(b.column(1).is_null(0));
    }
}
