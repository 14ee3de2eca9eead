//! The `arrow` feature: parq's RecordBatches against the parquet crate's
//! `ParquetRecordBatchReader` on every parquet-testing file, and round trips through
//! `ArrowWriter` read back by the parquet crate and by pyarrow.

use crate::python;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::SchemaRef;
use bytes::Bytes;
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions};

/// parquet-testing's `data/`: `$PARQUET_TEST_DATA` when set (as in arrow-rs), else the copy
/// vendored under `testdata/parquet-testing/`.
fn data_dir() -> PathBuf {
    std::env::var_os("PARQUET_TEST_DATA")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data")
        })
}

/// Files where parq's batches differ from the parquet crate's, with the reason. A file that
/// starts passing fails the test, so the list stays exact.
const KNOWN: &[(&str, &str)] = &[(
    "repeated_no_annotation.parquet",
    "the footer says num_rows 0 while its row group holds 6 rows: the parquet crate reads none, \
     parq (like pyarrow) reads the 6",
)];

fn files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [data_dir(), data_dir().join("geospatial")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The parquet crate's file schema (with metadata) and batches, or `None` when it refuses
/// the file.
fn oracle(path: &Path, batch_size: usize) -> Option<(SchemaRef, Vec<RecordBatch>)> {
    let file = std::fs::File::open(path).unwrap();
    let builder =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).ok()?;
    let schema = builder.schema().clone();
    let reader = builder.with_batch_size(batch_size).build().ok()?;
    Some((schema, reader.collect::<Result<Vec<_>, _>>().ok()?))
}

fn parq_batches(
    path: &Path,
    batch_size: usize,
    layout: ByteArrayLayout,
) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
    let bytes = Bytes::from(std::fs::read(path).unwrap());
    let options = ReadOptions::default().with_byte_array_layout(layout);
    let reader = ParquetReader::with_options(bytes, options).map_err(|e| format!("open: {e}"))?;
    let batches = reader
        .record_batches(parq::read::EVERY_FIELD, batch_size)
        .map_err(|e| format!("record_batches: {e}"))?;
    let schema = batches.schema();
    let mut out: Vec<RecordBatch> = batches
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("read: {e}"))?;
    if out.is_empty() {
        out.push(RecordBatch::new_empty(schema.clone()));
    }
    Ok((schema, out))
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
}

/// Why parq's batches of `path` differ from the parquet crate's (`None`: equal, or the
/// parquet crate refuses the file).
fn difference(path: &Path, batch_size: usize) -> Option<String> {
    difference_with(path, batch_size, ByteArrayLayout::Offsets)
}

fn difference_with(path: &Path, batch_size: usize, layout: ByteArrayLayout) -> Option<String> {
    let (expected_schema, expected) = oracle(path, batch_size)?;
    let (schema, got) = match parq_batches(path, batch_size, layout) {
        Ok(b) => b,
        Err(e) => return Some(e),
    };
    if schema.metadata() != expected_schema.metadata() {
        return Some(format!(
            "schema metadata {:?} read as {:?}",
            expected_schema.metadata(),
            schema.metadata()
        ));
    }
    if expected.is_empty() {
        return (got.iter().map(|b| b.num_rows()).sum::<usize>() != 0)
            .then(|| "rows where the parquet crate reads none".into());
    }
    let (e, g) = (concat(&expected), concat(&got));
    if e.schema().fields() != g.schema().fields() {
        for (fe, fg) in e.schema().fields().iter().zip(g.schema().fields()) {
            if fe != fg {
                return Some(format!("field {fe:?} read as {fg:?}"));
            }
        }
        return Some(format!("schema {:?} read as {:?}", e.schema(), g.schema()));
    }
    if e.num_rows() != g.num_rows() {
        return Some(format!("{} rows read as {}", e.num_rows(), g.num_rows()));
    }
    for (i, f) in e.schema().fields().iter().enumerate() {
        if e.column(i).as_ref() != g.column(i).as_ref() {
            return Some(format!("values of {}", f.name()));
        }
    }
    None
}

#[test]
fn record_batches_equal_the_parquet_crate() {
    let known: BTreeMap<&str, &str> = KNOWN.iter().copied().collect();
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in files() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.ends_with(".encrypted") || oracle(&path, 1024).is_none() {
            continue;
        }
        compared += 1;
        // A small batch size too, so that batches end mid-page and mid-row-group.
        let diff = difference(&path, 8192)
            .or_else(|| difference(&path, 7))
            .or_else(|| {
                difference_with(&path, 8192, ByteArrayLayout::Views).map(|d| format!("views: {d}"))
            });
        match (diff, known.get(name.as_str())) {
            (None, None) | (Some(_), Some(_)) => {}
            (None, Some(_)) => failures.push(format!("{name}: passes now, drop it from KNOWN")),
            (Some(d), None) => failures.push(format!("{name}: {d}")),
        }
    }
    assert!(compared > 50, "only {compared} files compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A batch of (almost) every Arrow type the writer takes, with nulls.
fn every_type() -> RecordBatch {
    use arrow_array::builder::{Int32Builder, MapBuilder, StringBuilder};
    use arrow_array::types::*;
    use arrow_array::*;
    use arrow_buffer::{i256, IntervalDayTime, OffsetBuffer};
    use arrow_schema::{DataType, Field};

    let n = 5;
    let valid = |i: usize| i % 3 != 1;
    let ints = || (0..n as i64).map(|i| valid(i as usize).then_some(i * 7 - 9));
    let strs: Vec<Option<String>> = (0..n)
        .map(|i| valid(i).then(|| format!("v{i}é{}", "x".repeat(i * 5))))
        .collect();
    let bins: Vec<Option<&[u8]>> = strs
        .iter()
        .map(|s| s.as_deref().map(str::as_bytes))
        .collect();
    let tz: Option<Arc<str>> = Some("+01:00".into());
    let mut cols: Vec<(&str, ArrayRef)> = vec![
        ("null", Arc::new(NullArray::new(n))),
        (
            "bool",
            Arc::new(BooleanArray::from_iter(
                ints().map(|v| v.map(|v| v % 2 == 0)),
            )),
        ),
        (
            "i8",
            Arc::new(Int8Array::from_iter(ints().map(|v| v.map(|v| v as i8)))),
        ),
        (
            "i16",
            Arc::new(Int16Array::from_iter(ints().map(|v| v.map(|v| v as i16)))),
        ),
        (
            "i32",
            Arc::new(Int32Array::from_iter(ints().map(|v| v.map(|v| v as i32)))),
        ),
        ("i64", Arc::new(Int64Array::from_iter(ints()))),
        (
            "u8",
            Arc::new(UInt8Array::from_iter(ints().map(|v| v.map(|v| v as u8)))),
        ),
        (
            "u16",
            Arc::new(UInt16Array::from_iter(ints().map(|v| v.map(|v| v as u16)))),
        ),
        (
            "u32",
            Arc::new(UInt32Array::from_iter(ints().map(|v| v.map(|v| v as u32)))),
        ),
        (
            "u64",
            Arc::new(UInt64Array::from_iter(ints().map(|v| v.map(|v| v as u64)))),
        ),
        (
            "f16",
            Arc::new(Float16Array::from_iter(ints().map(|v| {
                v.map(|v| <Float16Type as ArrowPrimitiveType>::Native::from_f32(v as f32 / 4.0))
            }))),
        ),
        (
            "f32",
            Arc::new(Float32Array::from_iter(
                ints().map(|v| v.map(|v| v as f32 / 3.0)),
            )),
        ),
        (
            "f64",
            Arc::new(Float64Array::from_iter(
                ints().map(|v| v.map(|v| v as f64 / 3.0)),
            )),
        ),
        ("utf8", Arc::new(StringArray::from(strs.clone()))),
        ("large_utf8", Arc::new(LargeStringArray::from(strs.clone()))),
        ("utf8_view", Arc::new(StringViewArray::from(strs.clone()))),
        ("binary", Arc::new(BinaryArray::from(bins.clone()))),
        (
            "large_binary",
            Arc::new(LargeBinaryArray::from(bins.clone())),
        ),
        ("binary_view", Arc::new(BinaryViewArray::from(bins.clone()))),
        (
            "fixed",
            Arc::new(
                FixedSizeBinaryArray::try_from_sparse_iter_with_size(
                    ints().map(|v| v.map(|v| (v as i32).to_le_bytes())),
                    4,
                )
                .unwrap(),
            ),
        ),
        (
            "date32",
            Arc::new(Date32Array::from_iter(
                ints().map(|v| v.map(|v| v as i32 * 1000)),
            )),
        ),
        (
            "date64",
            Arc::new(Date64Array::from_iter(
                ints().map(|v| v.map(|v| v * 86_400_000)),
            )),
        ),
        (
            "time32s",
            Arc::new(Time32SecondArray::from_iter(
                ints().map(|v| v.map(|v| v.abs() as i32)),
            )),
        ),
        (
            "time32ms",
            Arc::new(Time32MillisecondArray::from_iter(
                ints().map(|v| v.map(|v| v.abs() as i32)),
            )),
        ),
        (
            "time64us",
            Arc::new(Time64MicrosecondArray::from_iter(
                ints().map(|v| v.map(i64::abs)),
            )),
        ),
        (
            "time64ns",
            Arc::new(Time64NanosecondArray::from_iter(
                ints().map(|v| v.map(i64::abs)),
            )),
        ),
        ("ts_s", Arc::new(TimestampSecondArray::from_iter(ints()))),
        (
            "ts_ms_tz",
            Arc::new(TimestampMillisecondArray::from_iter(ints()).with_timezone_opt(tz.clone())),
        ),
        (
            "ts_us_utc",
            Arc::new(TimestampMicrosecondArray::from_iter(ints()).with_timezone("UTC")),
        ),
        (
            "ts_ns",
            Arc::new(TimestampNanosecondArray::from_iter(ints())),
        ),
        ("dur_s", Arc::new(DurationSecondArray::from_iter(ints()))),
        (
            "dur_ns",
            Arc::new(DurationNanosecondArray::from_iter(ints())),
        ),
        (
            "dec32",
            Arc::new(
                Decimal32Array::from_iter(ints().map(|v| v.map(|v| v as i32)))
                    .with_precision_and_scale(7, 2)
                    .unwrap(),
            ),
        ),
        (
            "dec64",
            Arc::new(
                Decimal64Array::from_iter(ints())
                    .with_precision_and_scale(15, 3)
                    .unwrap(),
            ),
        ),
        (
            "dec128_small",
            Arc::new(
                Decimal128Array::from_iter(ints().map(|v| v.map(i128::from)))
                    .with_precision_and_scale(5, 1)
                    .unwrap(),
            ),
        ),
        (
            "dec128",
            Arc::new(
                Decimal128Array::from_iter(ints().map(|v| v.map(|v| v as i128 * 10i128.pow(25))))
                    .with_precision_and_scale(30, 4)
                    .unwrap(),
            ),
        ),
        (
            "dec256",
            Arc::new(
                Decimal256Array::from_iter(
                    ints().map(|v| v.map(|v| i256::from_i128(v as i128 * 10i128.pow(30)))),
                )
                .with_precision_and_scale(50, 5)
                .unwrap(),
            ),
        ),
        (
            "interval_ym",
            Arc::new(IntervalYearMonthArray::from_iter(
                ints().map(|v| v.map(|v| v as i32)),
            )),
        ),
        (
            "interval_dt",
            Arc::new(IntervalDayTimeArray::from_iter(ints().map(|v| {
                v.map(|v| IntervalDayTime::new(v as i32, v as i32 * 1000))
            }))),
        ),
        (
            "dict",
            Arc::new(
                strs.iter()
                    .map(|s| s.as_deref().map(|s| &s[..2]))
                    .collect::<DictionaryArray<Int32Type>>(),
            ),
        ),
        (
            "dict8",
            Arc::new(
                strs.iter()
                    .map(|s| s.as_deref().map(|s| &s[..1]))
                    .collect::<DictionaryArray<Int8Type>>(),
            ),
        ),
        (
            "list",
            Arc::new(ListArray::from_iter_primitive::<Int32Type, _, _>(
                (0..n).map(|i| valid(i).then(|| (0..i as i32).map(|x| (x != 2).then_some(x)))),
            )),
        ),
    ];
    let large = LargeListArray::new(
        Arc::new(Field::new("item", DataType::Utf8, true)),
        OffsetBuffer::from_lengths([1, 0, 2, 1, 1]),
        Arc::new(StringArray::from(strs.clone())),
        Some(vec![true, false, true, true, true].into()),
    );
    cols.push(("large_list", Arc::new(large)));
    let fixed_list = FixedSizeListArray::new(
        Arc::new(Field::new("item", DataType::Int64, true)),
        2,
        Arc::new(Int64Array::from_iter(
            (0..2 * n as i64).map(|i| (i != 3).then_some(i)),
        )),
        Some(vec![true, false, true, true, true].into()),
    );
    cols.push(("fixed_list", Arc::new(fixed_list)));
    let st = StructArray::new(
        vec![
            Field::new("a", DataType::Int64, true),
            Field::new("b", DataType::Utf8, false),
        ]
        .into(),
        vec![
            Arc::new(Int64Array::from_iter(ints())) as ArrayRef,
            Arc::new(StringArray::from_iter_values(
                (0..n).map(|i| format!("s{i}")),
            )),
        ],
        Some(vec![true, true, false, true, true].into()),
    );
    cols.push(("struct", Arc::new(st)));
    let mut mb = MapBuilder::new(None, StringBuilder::new(), Int32Builder::new());
    for i in 0..n {
        for j in 0..i {
            mb.keys().append_value(format!("k{j}"));
            mb.values().append_option((j != 1).then_some(j as i32));
        }
        mb.append(valid(i)).unwrap();
    }
    cols.push(("map", Arc::new(mb.finish())));
    // Fields are nullable where the column holds nulls (a NullArray always does).
    RecordBatch::try_from_iter_with_nullable(cols.into_iter().map(|(name, a)| {
        let nullable = a.logical_null_count() > 0;
        (name, a, nullable)
    }))
    .unwrap()
}

fn write_parq(batches: &[RecordBatch], options: parq::write::WriterOptions) -> Vec<u8> {
    let mut w =
        parq::arrow::ArrowWriter::try_new(Vec::new(), batches[0].schema(), options).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.into_inner().unwrap()
}

fn read_with_parquet_crate(bytes: Vec<u8>) -> RecordBatch {
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))
            .unwrap()
            .build()
            .unwrap();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    concat(&batches)
}

fn read_with_parq(bytes: Vec<u8>, batch_size: usize) -> RecordBatch {
    let reader = ParquetReader::new(Bytes::from(bytes)).unwrap();
    let batches = reader
        .record_batches(parq::read::EVERY_FIELD, batch_size)
        .unwrap();
    let schema = batches.schema();
    let batches: Vec<RecordBatch> = batches.collect::<Result<_, _>>().unwrap();
    arrow_select::concat::concat_batches(&schema, &batches).unwrap()
}

fn assert_batches_eq(expected: &RecordBatch, got: &RecordBatch, who: &str) {
    assert_eq!(
        expected.schema().fields(),
        got.schema().fields(),
        "{who}: schema"
    );
    assert_eq!(expected.num_rows(), got.num_rows(), "{who}: rows");
    for (i, f) in expected.schema().fields().iter().enumerate() {
        assert_eq!(
            expected.column(i).as_ref(),
            got.column(i).as_ref(),
            "{who}: column {}",
            f.name()
        );
    }
}

#[test]
fn arrow_writer_round_trips_through_the_parquet_crate_and_parq() {
    let batch = every_type();
    let parts = [batch.slice(0, 2), batch.slice(2, 3)];
    let options = parq::write::WriterOptions::default().with_row_group_rows(3);
    let bytes = write_parq(&parts, options);
    let whole = concat(&parts);
    assert_batches_eq(
        &whole,
        &read_with_parquet_crate(bytes.clone()),
        "parquet crate",
    );
    assert_batches_eq(&whole, &read_with_parq(bytes.clone(), 1024), "parq");
    assert_batches_eq(&whole, &read_with_parq(bytes, 2), "parq, batches of 2");
}

/// Columns pyarrow reads back differently from what was written, with the reason. The
/// writer stores types as arrow-rs does by default (the parquet crate reads all of them back
/// exactly, see the round trip above); pyarrow restores fewer of them from `ARROW:schema`.
const PYARROW_KNOWN: &[(&str, &str)] = &[
    (
        "date64",
        "stored as plain INT64 (lossless, as arrow-rs does); pyarrow restores Date64 only from \
         INT32 DATE",
    ),
    (
        "time32s",
        "stored as plain INT32 (as arrow-rs does: Parquet has no seconds unit); pyarrow reads \
         Int32",
    ),
    (
        "ts_s",
        "stored as plain INT64 (as arrow-rs does: Parquet has no seconds unit); pyarrow reads \
         Int64",
    ),
    (
        "interval_ym",
        "pyarrow does not read the INTERVAL type: FixedSizeBinary(12)",
    ),
    (
        "interval_dt",
        "pyarrow does not read the INTERVAL type: FixedSizeBinary(12)",
    ),
    (
        "map",
        "pyarrow names a map's entries field after the map (\"map\", not \"entries\"), for \
         its own files too",
    ),
];

#[test]
fn pyarrow_reads_arrow_writer_output_with_the_same_schema_and_values() {
    python::require_python!("pyarrow");
    let batch = every_type();
    let dir = std::env::temp_dir().join(format!("parq-arrow-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let parquet_path = dir.join("every_type.parquet");
    let ipc_path = dir.join("every_type.arrow");
    std::fs::write(
        &parquet_path,
        write_parq(std::slice::from_ref(&batch), Default::default()),
    )
    .unwrap();
    let script = "import sys, pyarrow as pa, pyarrow.parquet as pq\n\
                  t = pq.read_table(sys.argv[1])\n\
                  with pa.ipc.new_file(sys.argv[2], t.schema) as w:\n    w.write_table(t)\n";
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&parquet_path)
        .arg(&ipc_path)
        .output()
        .expect("python3 with pyarrow (the oracle; .ci/test installs it)");
    assert!(
        out.status.success(),
        "pyarrow failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reader =
        arrow_ipc::reader::FileReader::try_new(std::fs::File::open(&ipc_path).unwrap(), None)
            .unwrap();
    let schema = reader.schema();
    let batches: Vec<RecordBatch> = reader.collect::<Result<_, _>>().unwrap();
    let got = arrow_select::concat::concat_batches(&schema, &batches).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let known: BTreeMap<&str, &str> = PYARROW_KNOWN.iter().copied().collect();
    let mut failures = Vec::new();
    for (i, f) in batch.schema().fields().iter().enumerate() {
        let name = f.name().as_str();
        let g = got.schema().field_with_name(name).ok().cloned();
        let same = g.as_ref().is_some_and(|g| {
            g.data_type() == f.data_type()
                && g.is_nullable() == f.is_nullable()
                && got.column_by_name(name).unwrap().as_ref() == batch.column(i).as_ref()
        });
        match (same, known.contains_key(name)) {
            (true, false) | (false, true) => {}
            (true, true) => {
                failures.push(format!("{name}: passes now, drop it from PYARROW_KNOWN"))
            }
            (false, false) => failures.push(format!("{name}: {f:?} read as {g:?}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Files of the CLI's pyarrow round-trip generators (`cli/tests/it/support/gen_*.py`) where parq
/// differs from the parquet crate, with the reason.
const GENERATED_KNOWN: &[(&str, &str)] = &[];

/// Run `cli/tests/it/support/<script> OUTDIR` (pyarrow writes the files) and compare parq's
/// batches with the parquet crate's on each.
fn compare_generated(script: &str) {
    let dir = std::env::temp_dir().join(format!(
        "parq-arrow-{}-{}",
        script.trim_end_matches(".py"),
        std::process::id()
    ));
    let gen = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("cli/tests/it/support")
        .join(script);
    let out = std::process::Command::new("python3")
        .arg(&gen)
        .arg(&dir)
        .output()
        .expect("python3 with pyarrow (the oracle; .ci/test installs it)");
    assert!(
        out.status.success(),
        "{script} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "parquet"))
        .collect();
    files.sort();
    let known: BTreeMap<&str, &str> = GENERATED_KNOWN.iter().copied().collect();
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if oracle(path, 1024).is_none() {
            continue;
        }
        compared += 1;
        let diff = difference(path, 8192).or_else(|| difference(path, 1000));
        match (diff, known.get(name.as_str())) {
            (None, None) | (Some(_), Some(_)) => {}
            (None, Some(_)) => failures.push(format!("{name}: passes now, drop it from the list")),
            (Some(d), None) => failures.push(format!("{name}: {d}")),
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(compared >= 60, "only {compared} generated files compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn record_batches_equal_the_parquet_crate_on_pyarrow_written_flat_files() {
    python::require_python!("pyarrow");
    compare_generated("gen_roundtrip.py");
}

#[test]
fn record_batches_equal_the_parquet_crate_on_pyarrow_written_nested_files() {
    python::require_python!("pyarrow");
    compare_generated("gen_nested.py");
}

/// The Arrow arrays wrap parq's buffers: same addresses, no value copied.
#[test]
fn conversions_that_should_not_copy_do_not() {
    use arrow_array::Array as _;
    use arrow_schema::DataType;
    use parq::column::Values;
    let path = data_dir().join("alltypes_plain.parquet");
    let reader = ParquetReader::new(Bytes::from(std::fs::read(path).unwrap())).unwrap();

    let ids = reader.read_column_by_path("bigint_col").unwrap();
    let Values::Int64(v) = &ids.values else {
        panic!("int64")
    };
    let a = parq::arrow::column_to_arrow(&ids, &DataType::Int64).unwrap();
    assert_eq!(a.to_data().buffers()[0].as_ptr(), v.inner().as_ptr());
    let t = parq::arrow::column_to_arrow(
        &ids,
        &DataType::Timestamp(arrow_schema::TimeUnit::Microsecond, None),
    )
    .unwrap();
    assert_eq!(t.to_data().buffers()[0].as_ptr(), v.inner().as_ptr());

    let s = reader.read_column_by_path("string_col").unwrap();
    let Values::Binary { offsets, data } = &s.values else {
        panic!("binary")
    };
    for dt in [DataType::LargeUtf8, DataType::LargeBinary] {
        let a = parq::arrow::column_to_arrow(&s, &dt).unwrap();
        let d = a.to_data();
        assert_eq!(
            d.buffers()[0].as_ptr(),
            offsets.inner().inner().as_ptr(),
            "{dt} offsets"
        );
        assert_eq!(d.buffers()[1].as_ptr(), data.as_ptr(), "{dt} values");
    }
    // i32 offsets are a copy of the offsets only; views point into the same values.
    let a = parq::arrow::column_to_arrow(&s, &DataType::Utf8).unwrap();
    assert_eq!(a.to_data().buffers()[1].as_ptr(), data.as_ptr());
    let a = parq::arrow::column_to_arrow(&s, &DataType::Utf8View).unwrap();
    let d = a.to_data();
    assert!(d.buffers()[1].as_ptr() >= data.as_ptr() && a.len() == s.len);

    // Writing: an Arrow array's buffers become the parq column's.
    let arrow_ids = arrow_array::Int64Array::from(vec![Some(1), None, Some(3)]);
    let field =
        parq::arrow::from_arrow_field(&arrow_schema::Field::new("x", DataType::Int64, true))
            .unwrap();
    let parq::array::Array::Primitive(c) =
        parq::arrow::from_arrow_array(&arrow_ids, &field).unwrap()
    else {
        panic!("primitive")
    };
    let Values::Int64(v) = &c.values else {
        panic!("int64")
    };
    assert_eq!(v.inner().as_ptr(), arrow_ids.values().inner().as_ptr());
    // Utf8: its i32 offsets and its bytes, neither copied nor widened.
    let words = arrow_array::StringArray::from(vec![Some("ab"), None, Some("cde")]);
    let field = parq::arrow::from_arrow_field(&arrow_schema::Field::new("s", DataType::Utf8, true))
        .unwrap();
    let parq::array::Array::Primitive(c) = parq::arrow::from_arrow_array(&words, &field).unwrap()
    else {
        panic!("primitive")
    };
    let Values::SmallBinary { offsets, data } = &c.values else {
        panic!("i32 offsets")
    };
    assert_eq!(
        offsets.inner().inner().as_ptr(),
        words.offsets().inner().inner().as_ptr()
    );
    assert_eq!(data.as_ptr(), words.values().as_ptr());
}

/// Strings are validated: invalid UTF-8 in a string column is an error, not a bad array.
#[test]
fn invalid_utf8_in_a_string_column_is_an_error() {
    use arrow_schema::DataType;
    use parq::column::{Column, Values};
    let col = |bytes: &[u8], offsets: Vec<i64>| Column {
        len: offsets.len() - 1,
        validity: None,
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: arrow_buffer::Buffer::from_vec(bytes.to_vec()),
        },
    };
    for dt in [DataType::Utf8, DataType::LargeUtf8, DataType::Utf8View] {
        assert!(parq::arrow::column_to_arrow(&col(b"ab\xff", vec![0, 2, 3]), &dt).is_err());
        // valid UTF-8 as a whole, but an offset splits "é"
        assert!(parq::arrow::column_to_arrow(&col("é".as_bytes(), vec![0, 1, 2]), &dt).is_err());
        let ok = parq::arrow::column_to_arrow(&col("aé".as_bytes(), vec![0, 1, 3]), &dt).unwrap();
        assert_eq!(ok.len(), 2);
    }
    // Binary is not validated.
    assert!(
        parq::arrow::column_to_arrow(&col(b"ab\xff", vec![0, 2, 3]), &DataType::Binary).is_ok()
    );
}

/// A Utf8 batch is checked by the vectorised ASCII kernel and its offsets narrowed by the
/// narrowing kernel, at the level the kernels run at; LargeUtf8 is checked, not narrowed;
/// Binary narrowed, not checked.
#[test]
fn utf8_batches_take_the_ascii_and_narrowing_kernels() {
    use arrow_array::{Array, StringArray};
    use arrow_schema::DataType;
    use parq::codecs::probe;
    use parq::column::{Column, Values};
    if !probe::ENABLED {
        return;
    }
    let strings: Vec<String> = (0..1000).map(|i| format!("value {i}")).collect();
    let mut offsets = vec![0i64];
    for s in &strings {
        offsets.push(offsets.last().unwrap() + s.len() as i64);
    }
    let col = Column {
        len: strings.len(),
        validity: None,
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: arrow_buffer::Buffer::from_vec(strings.concat().into_bytes()),
        },
    };
    let level = parq::codecs::kernels::simd::level();
    let name = if level.has_avx2() {
        level.name()
    } else {
        "scalar"
    };
    let ascii_name = if level.has_avx2() { "avx2" } else { "scalar" };
    let (ascii, narrow) = (
        format!("kernels.ascii.{ascii_name}"),
        format!("kernels.narrow_offsets.{name}"),
    );
    for (dt, hits) in [
        (DataType::Utf8, (1, 1)),
        (DataType::LargeUtf8, (1, 0)),
        (DataType::Binary, (0, 1)),
    ] {
        probe::reset();
        let a = parq::arrow::column_to_arrow(&col, &dt).unwrap();
        assert_eq!((probe::get(&ascii), probe::get(&narrow)), hits, "{dt}");
        if dt == DataType::Utf8 {
            let a = a.as_any().downcast_ref::<StringArray>().unwrap();
            assert!(a
                .iter()
                .map(Option::unwrap)
                .eq(strings.iter().map(String::as_str)));
        }
    }
}

/// Projections: each top-level field alone, and each leaf alone (by its dotted path), equal
/// the parquet crate's `ProjectionMask::roots` / `ProjectionMask::leaves` reading.
#[test]
fn projected_record_batches_equal_the_parquet_crate() {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ProjectionMask;
    let mut failures = Vec::new();
    for path in files() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.ends_with(".encrypted")
            || oracle(&path, 1024).is_none()
            || KNOWN.iter().any(|k| k.0 == name)
        {
            continue;
        }
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        let reader = ParquetReader::new(bytes.clone()).unwrap();
        let builder = ParquetRecordBatchReaderBuilder::try_new(bytes.clone()).unwrap();
        let descr = builder.parquet_schema().clone();
        let mut masks: Vec<(String, ProjectionMask)> = Vec::new();
        for (i, f) in reader.fields().unwrap().iter().enumerate() {
            masks.push((f.name.clone(), ProjectionMask::roots(&descr, [i])));
        }
        if descr.num_columns() > 1 && masks.len() != descr.num_columns() {
            for i in 0..descr.num_columns() {
                let leaf = descr.column(i).path().string();
                masks.push((leaf, ProjectionMask::leaves(&descr, [i])));
            }
        }
        for (column, mask) in masks {
            // Skip what the parquet crate refuses (e.g. a map's key without its value).
            let Ok(expected) = ParquetRecordBatchReaderBuilder::try_new(bytes.clone())
                .unwrap()
                .with_projection(mask)
                .build()
            else {
                continue;
            };
            let expected: Vec<RecordBatch> = expected.collect::<Result<_, _>>().unwrap();
            let got = reader.record_batches(&[column.as_str()], 1024).map(|r| {
                let schema = r.schema();
                (schema, r.collect::<Result<Vec<_>, _>>())
            });
            let (schema, got) = match got {
                Ok((s, Ok(b))) => (s, b),
                Ok((_, Err(e))) => {
                    failures.push(format!("{name} [{column}]: {e}"));
                    continue;
                }
                Err(e) => {
                    failures.push(format!("{name} [{column}]: {e}"));
                    continue;
                }
            };
            let got = arrow_select::concat::concat_batches(&schema, &got).unwrap();
            let Some(first) = expected.first() else {
                continue;
            };
            let want = arrow_select::concat::concat_batches(&first.schema(), &expected).unwrap();
            if want.schema().fields() != got.schema().fields() {
                failures.push(format!(
                    "{name} [{column}]: {:?} read as {:?}",
                    want.schema().fields(),
                    got.schema().fields()
                ));
            } else if want.columns() != got.columns() {
                failures.push(format!("{name} [{column}]: values"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Files pyarrow writes with many Arrow types (views, large kinds, dictionaries, time zones,
/// Date64, Time32(s), durations, decimals, Float16, fixed-size lists, maps, structs, nulls),
/// with and without `ARROW:schema`: parq reads them as the parquet crate does.
#[test]
fn record_batches_equal_the_parquet_crate_on_pyarrow_types() {
    python::require_python!("pyarrow");
    let dir = std::env::temp_dir().join(format!("parq-arrow-types-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (with, without) = (
        dir.join("types.parquet"),
        dir.join("types_noschema.parquet"),
    );
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/support_arrow/pyarrow_types.py");
    let out = std::process::Command::new("python3")
        .arg(script)
        .arg(&with)
        .arg(&without)
        .output()
        .expect("python3 with pyarrow (the oracle; .ci/test installs it)");
    assert!(
        out.status.success(),
        "pyarrow_types.py failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut failures = Vec::new();
    for path in [&with, &without] {
        assert!(
            oracle(path, 1024).is_some(),
            "the parquet crate reads {path:?}"
        );
        for batch_size in [1024, 3] {
            if let Some(d) = difference(path, batch_size) {
                failures.push(format!("{path:?} (batches of {batch_size}): {d}"));
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Offsets narrowed by the conversion's kernel (at any level) since the probes were reset.
fn narrowed() -> u64 {
    ["scalar", "avx2", "avx512"]
        .iter()
        .map(|l| parq::codecs::probe::get(&format!("kernels.narrow_offsets.{l}")))
        .sum()
}

/// A string file of `values` (None: null) written by parq with `encoding`, in pages of about
/// 1 KiB and row groups of 1000 rows.
fn string_file(values: &[Option<&[u8]>], encoding: parq::write::EncodingPolicy) -> bytes::Bytes {
    byte_array_file(values, encoding, parq::write::Field::string("s"))
}

/// [`string_file`] with column `field` (optional), a string or binary one.
fn byte_array_file(
    values: &[Option<&[u8]>],
    encoding: parq::write::EncodingPolicy,
    field: parq::write::Field,
) -> bytes::Bytes {
    use parq::column::{Column, Values};
    use parq::write::{ParquetWriter, WriterOptions};
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for v in values {
        data.extend_from_slice(v.unwrap_or_default());
        offsets.push(data.len() as i64);
    }
    let column = Column {
        len: values.len(),
        validity: values.iter().any(Option::is_none).then(|| {
            values
                .iter()
                .map(Option::is_some)
                .collect::<Vec<_>>()
                .into()
        }),
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: arrow_buffer::Buffer::from_vec(data),
        },
    };
    let options = WriterOptions::default()
        .with_encoding(encoding)
        .with_data_page_size(1024)
        .with_row_group_rows(1000);
    let mut file = Vec::new();
    let mut w = ParquetWriter::new(&mut file, vec![field.optional()], options).expect("writer");
    w.write_batch(&[column]).expect("write");
    w.finish().expect("finish");
    bytes::Bytes::from(file)
}

/// `record_batches` of a string file on `threads` threads as strings, one `Vec` per batch,
/// or the first error's text.
fn string_batches(file: &bytes::Bytes, threads: usize) -> Result<Vec<Vec<Option<String>>>, String> {
    use arrow_array::{Array, LargeStringArray, StringArray};
    use parq::read::ParquetReader;
    let options = ReadOptions::default().with_threads(threads);
    let reader = ParquetReader::with_options(file.clone(), options).map_err(|e| e.to_string())?;
    let batches = reader
        .record_batches(&["s"], 300)
        .map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for b in batches {
        let b = b.map_err(|e| e.to_string())?;
        let a = b.column(0);
        let strings: Vec<Option<String>> = if let Some(a) = a.as_any().downcast_ref::<StringArray>()
        {
            a.iter().map(|v| v.map(str::to_string)).collect()
        } else {
            let a = a
                .as_any()
                .downcast_ref::<LargeStringArray>()
                .expect("a string array");
            a.iter().map(|v| v.map(str::to_string)).collect()
        };
        out.push(strings);
    }
    Ok(out)
}

/// Flat string columns are checked for UTF-8 by the decoder (once per dictionary page, once
/// per decoded part of other pages) and not again by the Arrow conversion; the values are
/// the same as written, and a value that is not UTF-8 anywhere in the file is an error, with
/// or without nulls, from a dictionary or PLAIN pages, on one thread and on two (where the
/// parallel feed's decoders check).
#[test]
fn the_decoder_checks_utf8_for_record_batches() {
    use parq::codecs::probe;
    use parq::write::EncodingPolicy;
    let strings: Vec<String> = (0..3000)
        .map(|i| match i % 7 {
            0 => format!("ünïcødé {}", i % 50),
            _ => format!("v{}", i % 50),
        })
        .collect();
    for encoding in [EncodingPolicy::Dictionary, EncodingPolicy::Plain] {
        for nulls in [false, true] {
            let values: Vec<Option<&[u8]>> = strings
                .iter()
                .enumerate()
                .map(|(i, s)| (!(nulls && i % 5 == 0)).then_some(s.as_bytes()))
                .collect();
            let file = string_file(&values, encoding);
            let want: Vec<Option<String>> = values
                .iter()
                .map(|v| v.map(|b| String::from_utf8(b.to_vec()).unwrap()))
                .collect();
            probe::reset();
            let batches = string_batches(&file, 2).expect("valid strings read on two threads");
            let got: Vec<Option<String>> = batches.iter().flatten().cloned().collect();
            assert_eq!(got, want, "{encoding:?} nulls {nulls} on two threads");
            if probe::ENABLED {
                let pieces = probe::get("parallel.chunk") + probe::get("parallel.page_range");
                assert!(pieces >= 3, "{encoding:?} {nulls}: {pieces} pieces");
                let checked = probe::get("read.utf8_checked_dictionary")
                    + probe::get("read.utf8_checked_page");
                assert!(
                    checked >= 3,
                    "{encoding:?} {nulls}: {checked} checks on two threads"
                );
                assert_eq!(
                    probe::get("arrow.utf8_checked_by_decoder"),
                    batches.len() as u64
                );
            }
            probe::reset();
            let batches = string_batches(&file, 1).expect("valid strings read");
            let got: Vec<Option<String>> = batches.iter().flatten().cloned().collect();
            assert_eq!(got, want, "{encoding:?} nulls {nulls}");
            if probe::ENABLED {
                let (dictionaries, pages) = (
                    probe::get("read.utf8_checked_dictionary"),
                    probe::get("read.utf8_checked_page"),
                );
                let converted = probe::get("arrow.utf8_checked_by_decoder");
                assert_eq!(converted, batches.len() as u64);
                if encoding == EncodingPolicy::Dictionary {
                    // One dictionary per row group, and no data page checked again.
                    assert_eq!((dictionaries, pages), (3, 0), "{encoding:?} {nulls}");
                } else {
                    assert_eq!(dictionaries, 0);
                    assert!(pages >= 10, "{pages}");
                }
            }
            // One bad value, in the middle of the last row group.
            let mut bad = values.clone();
            bad[2500] = Some(b"bad \xff byte");
            let file = string_file(&bad, encoding);
            for threads in [1, 2] {
                let err = string_batches(&file, threads).expect_err("invalid UTF-8");
                assert!(err.contains("UTF-8"), "{threads} threads: {err}");
            }
            // A value cut inside a character: each half is not UTF-8 on its own.
            let e = "é".as_bytes();
            let mut cut = values.clone();
            cut[1500] = Some(&e[..1]);
            cut[1501] = Some(&e[1..]);
            let file = string_file(&cut, encoding);
            for threads in [1, 2] {
                assert!(
                    string_batches(&file, threads).is_err(),
                    "{encoding:?} {threads}"
                );
            }
        }
    }
}

/// `record_batches` reads flat Utf8 and Binary columns with i32 offsets from the decoder
/// (`ReadOptions::small_offsets`) and wraps them as they are: every batch takes that path
/// (probes `read.small_offsets`, `arrow.i32_offsets_wrapped`; the narrowing kernel never
/// runs) and holds the values written, with and without nulls, from dictionary and PLAIN
/// pages, in batches that end mid-page and mid-row-group, with a row selection too, and on
/// two threads (where the parallel feed's decoders write them).
#[test]
fn utf8_and_binary_batches_wrap_the_decoders_i32_offsets() {
    use arrow_array::{Array, BinaryArray, StringArray};
    use parq::codecs::probe;
    use parq::read::RowSelection;
    use parq::write::{EncodingPolicy, Field};
    let strings: Vec<String> = (0..3000)
        .map(|i| match i % 7 {
            0 => format!("ünïcødé {}", i % 50),
            _ => format!("v{}{}", i % 50, "-".repeat(i % 23)),
        })
        .collect();
    let selection = [5..17u64, 290..310, 999..1001, 1500..2700, 2990..3000];
    for binary in [false, true] {
        for encoding in [EncodingPolicy::Dictionary, EncodingPolicy::Plain] {
            for nulls in [false, true] {
                let values: Vec<Option<&[u8]>> = strings
                    .iter()
                    .enumerate()
                    .map(|(i, s)| (!(nulls && i % 5 == 0)).then_some(s.as_bytes()))
                    .collect();
                let field = if binary {
                    Field::byte_array("s")
                } else {
                    Field::string("s")
                };
                let file = byte_array_file(&values, encoding, field);
                let case = format!("binary {binary} {encoding:?} nulls {nulls}");
                let read = |options: ReadOptions| -> Vec<Option<Vec<u8>>> {
                    let reader = ParquetReader::with_options(file.clone(), options).unwrap();
                    let mut out = Vec::new();
                    for b in reader.record_batches(&["s"], 300).unwrap() {
                        let a = b.unwrap().column(0).clone();
                        if binary {
                            let a = a.as_any().downcast_ref::<BinaryArray>().expect(&case);
                            out.extend(a.iter().map(|v| v.map(<[u8]>::to_vec)));
                        } else {
                            let a = a.as_any().downcast_ref::<StringArray>().expect(&case);
                            out.extend(a.iter().map(|v| v.map(|s| s.as_bytes().to_vec())));
                        }
                    }
                    out
                };
                let want: Vec<Option<Vec<u8>>> =
                    values.iter().map(|v| v.map(<[u8]>::to_vec)).collect();
                probe::reset();
                assert_eq!(read(ReadOptions::default()), want, "{case}");
                if probe::ENABLED {
                    // 3 row groups of 1000 rows, decoded in runs of one or more batches:
                    // batches of 300, 300, 300 and 100 each.
                    assert!(probe::get("read.small_offsets") >= 3, "{case}");
                    assert_eq!(probe::get("arrow.i32_offsets_wrapped"), 12, "{case}");
                    assert_eq!(probe::get("read.small_offsets_widened"), 0, "{case}");
                    assert_eq!(narrowed(), 0, "{case}");
                }
                let selected = ReadOptions::default()
                    .with_selection(Some(RowSelection::from_ranges(selection.clone())));
                let want_selected: Vec<Option<Vec<u8>>> = selection
                    .iter()
                    .flat_map(|r| want[r.start as usize..r.end as usize].iter().cloned())
                    .collect();
                probe::reset();
                assert_eq!(read(selected), want_selected, "{case} selected");
                if probe::ENABLED {
                    assert!(probe::get("arrow.i32_offsets_wrapped") > 0, "{case}");
                    assert_eq!(narrowed(), 0, "{case} selected");
                }
                probe::reset();
                let threads = ReadOptions::default().with_threads(2);
                assert_eq!(read(threads), want, "{case} on two threads");
                if probe::ENABLED {
                    let pieces = probe::get("parallel.chunk") + probe::get("parallel.page_range");
                    assert!(pieces >= 3, "{case} on two threads: {pieces} pieces");
                    assert!(
                        probe::get("read.small_offsets") >= 3,
                        "{case} on two threads"
                    );
                    assert_eq!(
                        probe::get("arrow.i32_offsets_wrapped"),
                        12,
                        "{case} two threads"
                    );
                    assert_eq!(narrowed(), 0, "{case} on two threads");
                }
            }
        }
    }
}

/// A file of three nested fields with string leaves, `rows` rows: `list<string>`,
/// `struct{a: int32, s: string, b: binary}` and `map<string, list<int32>>`, nulls at every
/// level and multi-byte characters; `bad` replaces one string leaf value of row 1500 in field
/// `bad.0` with `bad.1`.
pub(crate) fn nested_strings_file(
    encoding: parq::write::EncodingPolicy,
    bad: Option<(usize, &[u8])>,
) -> bytes::Bytes {
    use parq::array::Value::{self, Leaf, List, Map, Null, Struct};
    use parq::field::Field;
    use parq::metadata::Type;
    let string = |name: &str| -> Field { parq::write::Field::string(name).optional().into() };
    let fields = vec![
        Field::list("l", string("element")),
        Field::structure(
            "s",
            vec![
                Field::primitive("a", Type::INT32),
                string("s"),
                Field::primitive("b", Type::BYTE_ARRAY),
            ],
        ),
        Field::map(
            "m",
            string("key").required(),
            Field::list("value", Field::primitive("element", Type::INT32)),
        ),
    ];
    let text =
        |i: usize, k: usize| Leaf(format!("ü{}-{k}{}", i % 40, "x".repeat(k * 3)).into_bytes());
    let mut columns: Vec<Vec<Value>> = vec![Vec::new(), Vec::new(), Vec::new()];
    for i in 0..3000usize {
        let bad_here = |field: usize| bad.filter(|&(f, _)| f == field && i == 1500);
        columns[0].push(if i % 11 == 0 {
            Null
        } else {
            List(
                (0..i % 5 + usize::from(bad_here(0).is_some()))
                    .map(|k| match bad_here(0) {
                        Some((_, b)) if k == 0 => Leaf(b.to_vec()),
                        _ if (i + k) % 7 == 0 => Null,
                        _ => text(i, k),
                    })
                    .collect(),
            )
        });
        columns[1].push(if i % 13 == 0 {
            Null
        } else {
            Struct(vec![
                Leaf((i as i32).to_le_bytes().to_vec()),
                match bad_here(1) {
                    Some((_, b)) => Leaf(b.to_vec()),
                    None if i % 6 == 0 => Null,
                    None => text(i, i % 3),
                },
                Leaf(vec![0xff, i as u8]),
            ])
        });
        columns[2].push(if i % 9 == 0 {
            Null
        } else {
            Map((0..i % 3 + usize::from(bad_here(2).is_some()))
                .map(|k| {
                    let key = match bad_here(2) {
                        Some((_, b)) if k == 0 => Leaf(b.to_vec()),
                        _ => text(k, i % 4),
                    };
                    let value = if (i + k) % 4 == 0 {
                        Null
                    } else {
                        List(vec![Leaf((k as i32).to_le_bytes().to_vec())])
                    };
                    (key, value)
                })
                .collect())
        });
    }
    let arrays = fields
        .iter()
        .zip(&columns)
        .map(|(f, rows)| crate::support_nested::build(f, rows))
        .collect();
    let options = parq::write::WriterOptions::default()
        .with_encoding(encoding)
        .with_data_page_size(512)
        .with_row_group_rows(1000);
    bytes::Bytes::from(crate::support_nested::write_arrays(
        &fields,
        &[arrays],
        options,
    ))
}

/// The string leaves of nested fields (in lists, structs and maps) take the flat columns'
/// path in `record_batches`: their decoders check UTF-8 where the bytes are hot and hand
/// out i32 offsets for `Utf8` (probes `read.small_offsets`, `arrow.utf8_checked_by_decoder`
/// once per field and batch; the narrowing kernel never runs), and the batches equal the
/// parquet crate's, from dictionary and PLAIN pages, on one thread and on two (nested
/// fields stream on the calling thread, asked the same). A value that is not UTF-8, or a
/// character cut in two, in any nested string leaf is an error on either.
#[test]
fn nested_string_leaves_are_checked_by_their_decoders() {
    use parq::codecs::probe;
    use parq::write::EncodingPolicy;
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    let read = |file: &bytes::Bytes, options: ReadOptions| -> Result<Vec<RecordBatch>, String> {
        let reader = ParquetReader::with_options(file.clone(), options).unwrap();
        reader
            .record_batches(parq::read::EVERY_FIELD, 300)
            .map_err(|e| e.to_string())?
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())
    };
    for encoding in [EncodingPolicy::Dictionary, EncodingPolicy::Plain] {
        let file = nested_strings_file(encoding, None);
        let theirs: Vec<RecordBatch> = ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .with_batch_size(300)
            .build()
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        // parq's batches end at row group ends, the parquet crate's do not: compare whole
        // columns.
        let column = |batches: &[RecordBatch], c: usize| {
            let parts: Vec<&dyn arrow_array::Array> =
                batches.iter().map(|b| b.column(c).as_ref()).collect();
            arrow_select::concat::concat(&parts).unwrap()
        };
        let same = |ours: &[RecordBatch], what: &str| {
            assert_eq!(
                ours.len(),
                12,
                "{encoding:?} {what}: 300, 300, 300, 100 a row group"
            );
            for c in 0..3 {
                let (o, t) = (column(ours, c), column(&theirs, c));
                assert_eq!(o.len(), 3000, "{encoding:?} {what}");
                assert_eq!(o.as_ref(), t.as_ref(), "{encoding:?} {what}: field {c}");
            }
        };
        probe::reset();
        let ours = read(&file, ReadOptions::default()).expect("valid strings read");
        same(&ours, "one thread");
        if probe::ENABLED {
            assert!(probe::get("read.small_offsets") >= 30, "{encoding:?}");
            assert_eq!(
                probe::get("arrow.utf8_checked_by_decoder"),
                3 * ours.len() as u64,
                "{encoding:?}"
            );
            let checked =
                probe::get("read.utf8_checked_dictionary") + probe::get("read.utf8_checked_page");
            assert!(checked > 0, "{encoding:?}");
            assert_eq!(narrowed(), 0, "{encoding:?}");
        }
        probe::reset();
        let threads = ReadOptions::default().with_threads(2);
        same(&read(&file, threads).expect("two threads"), "two threads");
        if probe::ENABLED {
            // Nested fields stream on the calling thread, asked the same as on one.
            assert!(
                probe::get("read.small_offsets") >= 30,
                "{encoding:?} two threads"
            );
            assert_eq!(narrowed(), 0, "{encoding:?} two threads");
        }
        let e = "é".as_bytes();
        for field in 0..3 {
            for bad in [&b"bad \xff byte"[..], &e[..1]] {
                let file = nested_strings_file(encoding, Some((field, bad)));
                for threads in [1, 2] {
                    let options = ReadOptions::default().with_threads(threads);
                    let err = read(&file, options).expect_err("invalid UTF-8");
                    assert!(err.contains("UTF-8"), "{encoding:?} field {field}: {err}");
                }
            }
        }
    }
}

/// A Utf8 batch's Arrow buffers are the decoder's: the i32 offsets and the values of the
/// parq column `array_batches` gives with `ReadOptions::small_offsets`.
#[test]
fn small_offsets_are_wrapped_without_a_copy() {
    use arrow_array::Array as _;
    use arrow_schema::DataType;
    use parq::column::Values;
    let values: Vec<Option<&[u8]>> = (0..500)
        .map(|i| (i % 3 != 0).then_some(&b"some bytes"[..(i % 10)]))
        .collect();
    let file = string_file(&values, parq::write::EncodingPolicy::Plain);
    let options = ReadOptions::default().with_small_offsets(vec![0]);
    let reader = ParquetReader::with_options(file, options).unwrap();
    for batch in reader.array_batches(&["s"], 128).unwrap() {
        let batch = batch.unwrap();
        let c = batch.arrays[0].as_primitive().unwrap();
        let Values::SmallBinary { offsets, data } = &c.values else {
            panic!("i32 offsets asked for: {:?}", c.values)
        };
        for dt in [DataType::Utf8, DataType::Binary] {
            let a = parq::arrow::column_to_arrow(c, &dt).unwrap();
            let d = a.to_data();
            let wrapped = offsets.inner().inner().as_ptr();
            assert_eq!(d.buffers()[0].as_ptr(), wrapped, "{dt} offsets");
            assert_eq!(d.buffers()[1].as_ptr(), data.as_ptr(), "{dt} values");
            assert_eq!(a.len(), c.len);
        }
        // Other types from i32 offsets: the values as they are.
        for dt in [
            DataType::LargeUtf8,
            DataType::LargeBinary,
            DataType::Utf8View,
        ] {
            let a = parq::arrow::column_to_arrow(c, &dt).unwrap();
            let wide = parq::arrow::column_to_arrow(&c.to_offsets(), &dt).unwrap();
            assert_eq!(a.as_ref(), wide.as_ref(), "{dt}");
        }
    }
}

/// Every batch of a push decoder over `file`, built with `options`, through `converter`; or
/// the first error's text.
fn push_batches(
    file: &Bytes,
    options: parq::read::push::PushOptions,
    converter: &mut parq::arrow::RecordBatchConverter,
) -> Result<Vec<RecordBatch>, String> {
    let whole = crate::push_decoder::Pushing::WHOLE;
    let (batches, _) =
        crate::push_decoder::push_read(file, options, whole).map_err(|e| e.to_string())?;
    batches
        .iter()
        .map(|b| converter.convert(b).map_err(|e| e.to_string()))
        .collect()
}

/// The footer of `file`.
fn footer_of(file: &Bytes) -> parq::read::push::Footer {
    let whole = crate::push_decoder::Pushing::WHOLE;
    let options = parq::read::push::FooterOptions::default();
    crate::push_decoder::footer(file, options, whole, &mut 0).unwrap()
}

/// A caller's `RecordBatchConverter` over a push decoder it drives: the batches equal
/// `record_batches`'; Utf8 columns come with the decoder's i32 offsets (no narrowing); UTF-8
/// is checked by the conversion (a caller may pass batches of any decoder), so a value that
/// is not UTF-8 is an error; and with a schema of the caller's (strings as views) the values
/// are the same.
#[test]
fn a_callers_converter_asks_the_decoders_for_layouts_and_checks_utf8_itself() {
    use arrow_array::{Array, StringArray, StringViewArray};
    use parq::arrow::RecordBatchConverter;
    use parq::codecs::probe;
    use parq::read::push::PushOptions;
    use parq::write::EncodingPolicy;
    let strings: Vec<String> = (0..3000).map(|i| format!("ü{}", i % 70)).collect();
    let values: Vec<Option<&[u8]>> = strings
        .iter()
        .enumerate()
        .map(|(i, s)| (i % 6 != 0).then_some(s.as_bytes()))
        .collect();
    for encoding in [EncodingPolicy::Dictionary, EncodingPolicy::Plain] {
        let file = string_file(&values, encoding);
        let want: Vec<RecordBatch> = ParquetReader::new(file.clone())
            .unwrap()
            .record_batches(&["s"], 300)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        let push_options = || {
            PushOptions::default()
                .with_projection(Some(vec!["s".into()]))
                .with_batch_size(300)
        };
        let mut options = push_options();
        let mut converter =
            RecordBatchConverter::for_push(&footer_of(&file), &mut options).unwrap();
        assert_eq!(options.read.small_offsets.len(), 1, "{encoding:?}");
        assert!(options.read.utf8_columns.is_empty(), "{encoding:?}");
        probe::reset();
        let got = push_batches(&file, options, &mut converter).expect("valid strings");
        assert_eq!(got, want, "{encoding:?}");
        if probe::ENABLED {
            assert!(probe::get("read.small_offsets") > 0, "{encoding:?}");
            assert_eq!(probe::get("arrow.i32_offsets_wrapped"), got.len() as u64);
            assert_eq!(probe::get("arrow.utf8_checked_by_decoder"), 0);
            assert_eq!(narrowed(), 0, "{encoding:?}");
        }

        // Not UTF-8: an error, though the decoder was not asked to check.
        let mut bad = values.clone();
        bad[2500] = Some(b"bad \xff byte");
        let bad = string_file(&bad, encoding);
        let mut options = push_options();
        let mut converter = RecordBatchConverter::for_push(&footer_of(&bad), &mut options).unwrap();
        let err = push_batches(&bad, options, &mut converter).expect_err("invalid UTF-8");
        assert!(err.contains("UTF-8"), "{encoding:?}: {err}");

        // As Utf8View: the same strings.
        let mut options = push_options();
        let view = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
            "s",
            arrow_schema::DataType::Utf8View,
            true,
        )]));
        let mut converter =
            RecordBatchConverter::for_push_as(&footer_of(&file), &mut options, view.clone())
                .unwrap();
        let got = push_batches(&file, options, &mut converter).unwrap();
        let strings = |batches: &[RecordBatch]| -> Vec<Option<String>> {
            let mut out = Vec::new();
            for b in batches {
                let a = b.column(0).as_any();
                if let Some(a) = a.downcast_ref::<StringViewArray>() {
                    out.extend(a.iter().map(|v| v.map(str::to_string)));
                } else {
                    let a = a.downcast_ref::<StringArray>().unwrap();
                    out.extend(a.iter().map(|v| v.map(str::to_string)));
                }
            }
            out
        };
        assert!(got.iter().all(|b| b.schema() == view), "{encoding:?}");
        assert_eq!(strings(&got), strings(&want), "{encoding:?}");
    }
}

/// A caller's Arrow predicate (a `LIKE '%b%'` parq's expressions cannot say) gets the
/// columns as typed Arrow arrays named by their paths, and a null flag drops the row.
#[test]
fn an_arrow_row_predicate_filters_on_typed_arrays() {
    use arrow_array::{Array, BooleanArray, Int64Array, StringArray};
    use parq::column::{Column, Values};
    use parq::predicate::{col, RowPredicate};
    use parq::write::{Field, ParquetWriter, WriterOptions};

    let names: Vec<Option<&str>> = (0..300)
        .map(|k| match k % 3 {
            0 => None,
            1 => Some("abc"),
            _ => Some("xyz"),
        })
        .collect();
    let mut file = Vec::new();
    let mut w = ParquetWriter::new(
        &mut file,
        vec![Field::int64("id"), Field::string("name").optional()],
        WriterOptions::default().with_row_group_rows(100),
    )
    .unwrap();
    let ids = Column {
        len: 300,
        validity: None,
        values: Values::Int64((0..300i64).collect::<Vec<_>>().into()),
    };
    let mut data = Vec::new();
    let mut offsets = vec![0i64];
    for n in &names {
        data.extend_from_slice(n.unwrap_or("").as_bytes());
        offsets.push(data.len() as i64);
    }
    let names_column = Column {
        len: 300,
        validity: Some(names.iter().map(Option::is_some).collect::<Vec<_>>().into()),
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: arrow_buffer::Buffer::from_vec(data),
        },
    };
    w.write_batch(&[ids, names_column]).unwrap();
    w.finish().unwrap();
    let reader = ParquetReader::new(Bytes::from(file)).unwrap();

    let has_b = RowPredicate::arrow("has_b", ["name"], |batch| {
        assert_eq!(batch.schema().field(0).name(), "name");
        let names = batch
            .column(0)
            .as_any()
            .downcast_ref::<StringArray>()
            .expect("a string column as Utf8");
        // Null for a null name: dropped, as by SQL's WHERE.
        Ok(names
            .iter()
            .map(|n| n.map(|n| n.contains('b')))
            .collect::<BooleanArray>())
    });
    let batches = reader
        .read_builder()
        .with_projection(["id"])
        .with_filter(has_b.into_expr().and(col("id").lt(200)))
        .build()
        .unwrap();
    let mut ids = Vec::new();
    for b in batches {
        let b = b.unwrap();
        let batch = parq::arrow::to_record_batch(
            &b,
            &Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
                "id",
                arrow_schema::DataType::Int64,
                false,
            )])),
        )
        .unwrap();
        let v = batch
            .column(0)
            .as_any()
            .downcast_ref::<Int64Array>()
            .unwrap();
        assert_eq!(v.null_count(), 0);
        ids.extend(v.values().iter().copied());
    }
    let want: Vec<i64> = (0..200).filter(|k| k % 3 == 1).collect();
    assert_eq!(ids, want);
}

/// The builder's Arrow read takes the caller's schema as the output hint (a dictionary
/// column as keys, a string as views) under a filter, a limit and a row-number column, and
/// refuses a schema whose fields do not match the projection.
#[test]
fn build_arrow_reads_as_the_schema_asks_under_a_filter() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use arrow_array::{ArrayRef, Int64Array, StringArray};
    use arrow_schema::{DataType, Field, Schema};
    use parq::predicate::col;
    let n = 20_000i64;
    let names: Vec<String> = (0..n).map(|i| format!("name-{}", i % 7)).collect();
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..n)) as ArrayRef,
        ),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
    ])
    .unwrap();
    let file = Bytes::from(write_parq(
        &[batch],
        parq::write::WriterOptions::default().with_row_group_rows(6000),
    ));
    let reader = ParquetReader::new(file).unwrap();
    let dictionary = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    for name_type in [dictionary, DataType::Utf8View, DataType::LargeUtf8] {
        let schema = Arc::new(Schema::new(vec![
            Field::new("id", DataType::Int64, true),
            Field::new("name", name_type.clone(), true),
        ]));
        let batches = reader
            .read_builder()
            .with_projection(["id", "name"])
            .with_filter(col("id").ge(5000i64).and(col("id").lt(15000i64)))
            .with_offset(10)
            .with_limit(7000)
            .with_row_number_column("_pos")
            .with_batch_size(1000)
            .build_arrow(Some(schema))
            .unwrap();
        assert_eq!(batches.schema().field(1).data_type(), &name_type);
        let mut next = 5010i64;
        for b in batches {
            let b = b.unwrap();
            assert!(b.num_rows() <= 1000);
            let ids = b.column(0).as_primitive::<Int64Type>();
            let pos = b.column(2).as_primitive::<Int64Type>();
            let name = |i: usize| -> String {
                let a = b.column(1);
                match a.data_type() {
                    DataType::Utf8View => a.as_string_view().value(i).to_string(),
                    DataType::LargeUtf8 => a.as_string::<i64>().value(i).to_string(),
                    _ => {
                        let d = a.as_dictionary::<Int32Type>();
                        let key = d.keys().value(i) as usize;
                        d.values().as_string::<i32>().value(key).to_string()
                    }
                }
            };
            for i in 0..b.num_rows() {
                assert_eq!((ids.value(i), pos.value(i)), (next, next), "{name_type}");
                assert_eq!(name(i), format!("name-{}", next % 7), "{name_type}");
                next += 1;
            }
            if let DataType::Dictionary(..) = name_type {
                let keys = b.column(1).as_dictionary::<Int32Type>();
                assert!(keys.values().len() <= 7, "keys over the chunk's dictionary");
            }
        }
        assert_eq!(next, 12_010, "{name_type}");
    }
    let one_field = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
    let refused = reader
        .read_builder()
        .with_projection(["id", "name"])
        .build_arrow(Some(one_field));
    assert!(matches!(refused, Err(parq::Error::InvalidArgument(_))));
}

/// A push decoder whose options ask for virtual columns gives them after the projection,
/// and a caller's converter built from those options converts them: each row's position in
/// the file and its row group, under a selection and an exact filter. An inexact filter
/// cannot say which rows it kept, so it is refused with them.
#[test]
fn push_options_give_virtual_columns_that_the_converter_converts() {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    use arrow_array::{ArrayRef, Int64Array};
    use arrow_schema::{DataType, Field, Schema};
    use parq::arrow::RecordBatchConverter;
    use parq::predicate::col;
    use parq::read::push::{PushDecoder, PushOptions};
    use parq::read::{ReadOptions, RowSelection};
    let n = 10_000i64;
    let batch = RecordBatch::try_from_iter([(
        "id",
        Arc::new(Int64Array::from_iter_values(0..n)) as ArrayRef,
    )])
    .unwrap();
    let file = Bytes::from(write_parq(
        &[batch],
        parq::write::WriterOptions::default().with_row_group_rows(3000),
    ));
    let options = || {
        PushOptions::default()
            .with_read(
                ReadOptions::default()
                    .with_row_groups(Some(vec![1, 3]))
                    .with_selection(Some(RowSelection::from_ranges(std::iter::once(2000..9500)))),
            )
            .with_projection(Some(vec!["id".into()]))
            .with_filter(Some(col("id").ge(3100i64)))
            .with_batch_size(700)
            .with_row_number_column("_pos")
            .with_row_group_column("_rg")
    };
    let mut opts = options();
    let schema = Arc::new(Schema::new(vec![Field::new("id", DataType::Int64, true)]));
    let mut converter =
        RecordBatchConverter::for_push_as(&footer_of(&file), &mut opts, schema).unwrap();
    let names: Vec<_> = converter
        .schema()
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    assert_eq!(
        names,
        [
            ("id".to_string(), DataType::Int64),
            ("_pos".to_string(), DataType::Int64),
            ("_rg".to_string(), DataType::Int32)
        ]
    );
    let got = push_batches(&file, opts, &mut converter).unwrap();
    let mut rows = Vec::new();
    for b in &got {
        let (id, pos, rg) = (
            b.column(0).as_primitive::<Int64Type>(),
            b.column(1).as_primitive::<Int64Type>(),
            b.column(2).as_primitive::<Int32Type>(),
        );
        for i in 0..b.num_rows() {
            rows.push((id.value(i), pos.value(i), rg.value(i)));
        }
    }
    let want: Vec<(i64, i64, i32)> = (3100..6000)
        .chain(9000..9500)
        .map(|i| (i, i, (i / 3000) as i32))
        .collect();
    assert_eq!(rows, want);

    // No projected column: the virtual columns alone.
    let mut opts = options().with_projection(Some(Vec::new()));
    let mut converter = RecordBatchConverter::for_push(&footer_of(&file), &mut opts).unwrap();
    assert_eq!(converter.schema().fields().len(), 2);
    let got = push_batches(&file, opts, &mut converter).unwrap();
    let positions: Vec<i64> = got
        .iter()
        .flat_map(|b| b.column(0).as_primitive::<Int64Type>().values().to_vec())
        .collect();
    let want: Vec<i64> = want.iter().map(|&(_, pos, _)| pos).collect();
    assert_eq!(positions, want);

    let footer = footer_of(&file);
    let inexact = options().with_filter_exact(false);
    assert!(matches!(
        PushDecoder::try_new(footer, inexact),
        Err(parq::Error::InvalidArgument(_))
    ));
}
