//! Arrow `Dictionary` columns read as keys into each column chunk's dictionary
//! (`ReadOptions::dictionary_keys`, set by `record_batches`): the same values as the parquet
//! crate's reader, for every key type, with nulls, several row groups, chunks that fall back
//! to PLAIN, chunks without a dictionary, and row selections; the keys path taken where it
//! must be and not where it must not.

use crate::python;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, DictionaryArray, RecordBatch, RecordBatchReader};
use arrow_schema::DataType;
use bytes::Bytes;
use parq::read::{ParquetReader, ReadOptions, RowSelection};
use parq::write::WriterOptions;

const ROWS: usize = 10_000;

/// Strings drawn from `distinct` values, every 7th null when `nulls`.
fn strings(distinct: usize, nulls: bool) -> Vec<Option<String>> {
    (0..ROWS)
        .map(|i| {
            let v = (i * 7919 + i / 3) % distinct;
            (!(nulls && i % 7 == 3)).then(|| format!("value {v} {}", "x".repeat(v % 17)))
        })
        .collect()
}

/// A `Dictionary(key, Utf8)` column of `strings`.
fn dictionary_column(key: &DataType, strings: &[Option<String>]) -> ArrayRef {
    let s: Vec<Option<&str>> = strings.iter().map(Option::as_deref).collect();
    match key {
        DataType::Int8 => Arc::new(s.into_iter().collect::<DictionaryArray<Int8Type>>()),
        DataType::Int16 => Arc::new(s.into_iter().collect::<DictionaryArray<Int16Type>>()),
        DataType::Int32 => Arc::new(s.into_iter().collect::<DictionaryArray<Int32Type>>()),
        DataType::Int64 => Arc::new(s.into_iter().collect::<DictionaryArray<Int64Type>>()),
        DataType::UInt8 => Arc::new(s.into_iter().collect::<DictionaryArray<UInt8Type>>()),
        DataType::UInt16 => Arc::new(s.into_iter().collect::<DictionaryArray<UInt16Type>>()),
        DataType::UInt32 => Arc::new(s.into_iter().collect::<DictionaryArray<UInt32Type>>()),
        DataType::UInt64 => Arc::new(s.into_iter().collect::<DictionaryArray<UInt64Type>>()),
        _ => unreachable!("a key type"),
    }
}

const KEYS: [DataType; 8] = [
    DataType::Int8,
    DataType::Int16,
    DataType::Int32,
    DataType::Int64,
    DataType::UInt8,
    DataType::UInt16,
    DataType::UInt32,
    DataType::UInt64,
];

/// One batch: a dictionary column per key type (100 distinct values, so that Int8 keys hold
/// them), without and with nulls, plus an Int64-valued dictionary column and an int column.
fn batch() -> RecordBatch {
    let mut cols: Vec<(String, ArrayRef)> = Vec::new();
    for key in &KEYS {
        for nulls in [false, true] {
            cols.push((
                format!("{key}_{}", if nulls { "nulls" } else { "req" }),
                dictionary_column(key, &strings(100, nulls)),
            ));
        }
    }
    let ints: DictionaryArray<Int32Type> = DictionaryArray::new(
        (0..ROWS as i32)
            .map(|i| (i % 11 != 0).then_some(i % 50))
            .collect(),
        Arc::new(arrow_array::Int64Array::from_iter_values(
            (0..50).map(|v| v * 1_000_003),
        )),
    );
    cols.push(("int_values".into(), Arc::new(ints)));
    cols.push((
        "plain".into(),
        Arc::new(arrow_array::Int64Array::from_iter_values(0..ROWS as i64)),
    ));
    // Few distinct values: dictionary-encoded in the file, Int64 in Arrow.
    cols.push((
        "few".into(),
        Arc::new(arrow_array::Int64Array::from_iter_values(
            (0..ROWS as i64).map(|i| i % 5 * 1_000_000_007),
        )),
    ));
    RecordBatch::try_from_iter(cols).unwrap()
}

fn write(batch: &RecordBatch, options: WriterOptions) -> Bytes {
    let mut w =
        parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options.clone()).unwrap();
    w.write(batch).unwrap();
    Bytes::from(w.into_inner().unwrap())
}

/// Several row groups, pages of at most 1000 rows.
fn options() -> WriterOptions {
    WriterOptions::default()
        .with_row_group_rows(3000)
        .with_data_page_row_limit(1000)
}

fn parquet_crate(file: &Bytes) -> Vec<RecordBatch> {
    let reader =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file.clone())
            .unwrap()
            .build()
            .unwrap();
    reader.collect::<Result<_, _>>().unwrap()
}

fn parq_batches(file: &Bytes, options: ReadOptions, batch_size: usize) -> Vec<RecordBatch> {
    let reader = ParquetReader::with_options(file.clone(), options).unwrap();
    let batches = reader
        .record_batches(parq::read::EVERY_FIELD, batch_size)
        .unwrap();
    let schema = batches.schema();
    let out: Vec<RecordBatch> = batches.collect::<Result<_, _>>().unwrap();
    for b in &out {
        assert_eq!(b.schema(), schema);
    }
    out
}

/// The batches with every dictionary column replaced by the values its keys select, as one
/// batch (dictionary batches themselves may not concatenate: Int8 keys overflow).
fn flat(batches: &[RecordBatch]) -> RecordBatch {
    let flat: Vec<RecordBatch> = batches
        .iter()
        .map(|b| {
            RecordBatch::try_from_iter(
                b.schema()
                    .fields()
                    .iter()
                    .zip(b.columns())
                    .map(|(f, c)| (f.name().clone(), values(c))),
            )
            .unwrap()
        })
        .collect();
    arrow_select::concat::concat_batches(&flat[0].schema(), &flat).unwrap()
}

/// `got` holds `expected`'s rows: every batch with `expected`'s column types, and the same
/// values in every row (dictionary columns compared by the values their keys select).
fn assert_same(expected: &[RecordBatch], got: &[RecordBatch], what: &str) {
    let fields = expected[0].schema().fields().clone();
    for b in got {
        assert_eq!(b.schema().fields(), &fields, "{what}: schema");
    }
    let (e, g) = (flat(expected), flat(got));
    assert_eq!(e.num_rows(), g.num_rows(), "{what}: rows");
    for (i, f) in fields.iter().enumerate() {
        assert_eq!(
            e.column(i).as_ref(),
            g.column(i).as_ref(),
            "{what}: values of {}",
            f.name()
        );
    }
}

/// The values a dictionary array's keys select (other arrays as they are).
fn values(a: &ArrayRef) -> ArrayRef {
    if !matches!(a.data_type(), DataType::Dictionary(_, _)) {
        return a.clone();
    }
    let d = a.as_any_dictionary();
    let keys: Vec<u64> = d.normalized_keys().into_iter().map(|k| k as u64).collect();
    let keys = arrow_array::UInt64Array::new(keys.into(), d.keys().nulls().cloned());
    arrow_select::take::take(d.values().as_ref(), &keys, None).unwrap()
}

#[test]
fn dictionary_columns_of_every_key_type_equal_the_parquet_crate() {
    let source = batch();
    let file = write(&source, options());
    let expected = parquet_crate(&file);
    assert_same(
        std::slice::from_ref(&source),
        &expected,
        "the parquet crate against the source",
    );
    for batch_size in [8192, 1000, 7] {
        let got = parq_batches(&file, ReadOptions::default(), batch_size);
        assert!(got.iter().all(|b| b.num_rows() <= batch_size));
        assert_same(&expected, &got, &format!("batches of {batch_size}"));
    }
    // Byte arrays as views read as Utf8 the same.
    let views = ReadOptions::default().with_byte_array_layout(parq::read::ByteArrayLayout::Views);
    assert_same(&expected, &parq_batches(&file, views, 1000), "views");
    // On two threads the same: the parallel feed's pieces read keys too, batches within a
    // page and across pages alike.
    for batch_size in [1000, 700] {
        let threads = ReadOptions::default().with_threads(2);
        parq::codecs::probe::reset();
        let got = parq_batches(&file, threads, batch_size);
        assert_same(
            &expected,
            &got,
            &format!("threads, batches of {batch_size}"),
        );
        if parq::codecs::probe::ENABLED {
            let pieces = parq::codecs::probe::get("parallel.chunk")
                + parq::codecs::probe::get("parallel.page_range");
            assert!(pieces > 0, "{batch_size}");
            assert!(parq::codecs::probe::get("read.dictionary_keys") > 0);
            assert!(parq::codecs::probe::get("arrow.dictionary_keys") > 0);
        }
    }
    // Keys asked for every leaf, Dictionary or not (`few` is dictionary-encoded, Int64 in
    // Arrow: its keys' values are looked up), the same.
    let reader = ParquetReader::new(file.clone()).unwrap();
    let leaves = reader.schema().leaves.len();
    let every_leaf = ReadOptions::default().with_dictionary_keys((0..leaves).collect());
    let few = ReadOptions::default().with_dictionary_keys(vec![leaves - 1]);
    let batches = ParquetReader::with_options(file.clone(), few)
        .unwrap()
        .array_batches(&["few"], 1000)
        .unwrap();
    for b in batches {
        assert!(matches!(
            b.unwrap().arrays[0].as_primitive().unwrap().values,
            parq::column::Values::Dictionary { .. }
        ));
    }
    assert_same(
        &expected,
        &parq_batches(&file, every_leaf, 1000),
        "every leaf",
    );
}

/// On two threads a large chunk is cut into page ranges, each of which decodes the chunk's
/// dictionary on its own thread: the ranges then share one (`parallel.dictionary_shared`),
/// so a batch across two ranges stays keys (none is rebuilt from values) and every batch
/// holds the same Arrow dictionary, converted once, as on one thread.
#[test]
fn page_ranges_of_a_chunk_share_its_dictionary_on_two_threads() {
    use parq::codecs::probe;
    let rows = 200_000;
    let strings: Vec<Option<String>> = (0..rows)
        .map(|i| {
            let v = (i * 7919 + i / 3) % 3000;
            (i % 11 != 5).then(|| format!("value {v} {}", "x".repeat(v % 17)))
        })
        .collect();
    let batch =
        RecordBatch::try_from_iter([("d", dictionary_column(&DataType::Int32, &strings))]).unwrap();
    let options = WriterOptions::default()
        .with_row_group_rows(rows)
        .with_data_page_row_limit(5000);
    let file = write(&batch, options);
    let one = parq_batches(&file, ReadOptions::default(), 8192);
    let threads = ReadOptions::default().with_threads(2);
    probe::reset();
    let two = parq_batches(&file, threads, 8192);
    assert_same(&one, &two, "two threads");
    if probe::ENABLED {
        assert!(probe::get("parallel.page_range") >= 2);
        assert!(probe::get("parallel.dictionary_shared") > 0);
        assert_eq!(probe::get("arrow.dictionary_rebuilt"), 0);
    }
    // The dictionary's value bytes: one buffer for every batch.
    let values = |b: &RecordBatch| {
        let d = b.column(0).as_any_dictionary().values().to_data();
        d.buffers()[1].as_ptr()
    };
    for b in &two {
        assert_eq!(
            values(b),
            values(&two[0]),
            "one Arrow dictionary for the chunk"
        );
    }
}

/// Every batch of one row group shares one dictionary (converted once); batches of another
/// row group have their own.
#[test]
fn batches_of_a_chunk_share_its_dictionary() {
    let file = write(&batch(), options());
    // Row groups of 3000 rows, batches of 1000: three per row group.
    let got = parq_batches(&file, ReadOptions::default(), 1000);
    assert_eq!(got.len(), 10);
    let values = |b: &RecordBatch| {
        let c = b.column_by_name("Int32_nulls").unwrap();
        let d = c
            .as_any()
            .downcast_ref::<DictionaryArray<Int32Type>>()
            .unwrap();
        d.values().to_data().buffers()[1].as_ptr()
    };
    assert_eq!(values(&got[0]), values(&got[1]));
    assert_eq!(values(&got[1]), values(&got[2]));
    assert_ne!(values(&got[2]), values(&got[3]));
    assert_eq!(values(&got[3]), values(&got[5]));
}

/// A dictionary size limit below the column's dictionary: parq's writer gives up the
/// dictionary and writes those chunks PLAIN (it decides per chunk, before the first page).
/// They read as values, hashed into a dictionary per batch, the same. (Chunks that switch to
/// PLAIN mid-chunk come from pyarrow: see `pyarrow_dictionary_columns_equal_the_parquet_crate`.)
#[test]
fn chunks_that_fall_back_to_plain_read_the_same() {
    let source = batch();
    let file = write(&source, options().with_dictionary_size_limit(600));
    let expected = parquet_crate(&file);
    assert_same(
        std::slice::from_ref(&source),
        &expected,
        "the parquet crate against the source",
    );
    parq::codecs::probe::reset();
    for batch_size in [8192, 1000, 7] {
        let got = parq_batches(&file, ReadOptions::default(), batch_size);
        assert_same(&expected, &got, &format!("batches of {batch_size}"));
    }
    if parq::codecs::probe::ENABLED {
        // Some chunks kept their dictionary (100 values), others did not.
        assert!(parq::codecs::probe::get("read.dictionary_keys") > 0);
        assert!(parq::codecs::probe::get("read.dictionary_keys_fallback") > 0);
        assert!(parq::codecs::probe::get("arrow.dictionary_rebuilt") > 0);
    }
}

/// A row selection: the selected rows only, keys skipped inside pages.
#[test]
fn selected_rows_read_the_same() {
    let file = write(&batch(), options());
    let all = flat(&parquet_crate(&file));
    let ranges = [5..17, 990..1013, 2999..3001, 4000..6500, 9990..10_000];
    let expected = arrow_select::concat::concat_batches(
        &all.schema(),
        &ranges
            .iter()
            .map(|r| all.slice(r.start, r.len()))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    for batch_size in [8192, 100] {
        let options = ReadOptions::default().with_selection(Some(RowSelection::from_ranges(
            ranges.iter().map(|r| r.start as u64..r.end as u64),
        )));
        let got = parq_batches(&file, options, batch_size);
        assert_eq!(flat(&got), expected, "batches of {batch_size}");
    }
}

/// A chunk's dictionary larger than the key type reaches (300 entries, Int8 keys): the
/// batch falls back to a dictionary of the values it uses (at most 50 in 50 rows).
#[test]
fn key_types_too_narrow_for_the_dictionary_fall_back() {
    use arrow_schema::{Field, Schema};
    let strings = strings(300, true);
    let source =
        RecordBatch::try_from_iter([("c", dictionary_column(&DataType::Int16, &strings))]).unwrap();
    let file = write(&source, options());
    let int8 = Arc::new(Schema::new(vec![Field::new(
        "c",
        DataType::Dictionary(Box::new(DataType::Int8), Box::new(DataType::Utf8)),
        true,
    )]));
    let options = ReadOptions::default().with_dictionary_keys(vec![0]);
    let reader = ParquetReader::with_options(file, options).unwrap();
    parq::codecs::probe::reset();
    let mut n = 0;
    for b in reader.array_batches(&["c"], 50).unwrap() {
        let b = b.unwrap();
        assert!(matches!(
            b.arrays[0].as_primitive().unwrap().values,
            parq::column::Values::Dictionary { .. }
        ));
        let got = parq::arrow::to_record_batch(&b, &int8).unwrap();
        assert_eq!(got.column(0).data_type(), int8.field(0).data_type());
        let expected = source.slice(n, b.num_rows);
        assert_eq!(
            values(expected.column(0)).as_ref(),
            values(got.column(0)).as_ref()
        );
        n += b.num_rows;
    }
    assert_eq!(n, ROWS);
    if parq::codecs::probe::ENABLED {
        assert_eq!(parq::codecs::probe::get("arrow.dictionary_keys"), 0);
        assert!(parq::codecs::probe::get("arrow.dictionary_rebuilt") > 0);
    }
}

/// pyarrow's dictionary columns (a pandas categorical, `pa.dictionary` of strings and of
/// ints, with nulls, several row groups, and one whose dictionary page limit makes it fall
/// back to PLAIN) read as the parquet crate reads them.
#[test]
fn pyarrow_dictionary_columns_equal_the_parquet_crate() {
    python::require_python!("pyarrow");
    let dir = std::env::temp_dir().join(format!("parq-arrow-dict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("dict.parquet");
    let script = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq
n = 20000
words = pa.array([None if i % 13 == 5 else f"w{(i * 7919) % 500}" for i in range(n)])
t = pa.table({
    "cat": pa.array([f"c{i % 7}" for i in range(n)]).dictionary_encode(),
    "words": words.dictionary_encode(),
    "ints": pa.array([None if i % 17 == 0 else (i * 31) % 97 for i in range(n)], pa.int64()).dictionary_encode(),
    "big": pa.array([f"{(i * 104729) % 15000:06d}-{'y' * (i % 40)}" for i in range(n)]).dictionary_encode(),
    "plain_big": pa.array([f"{i % 100 if i % 7000 < 3000 else i:06d}-{'y' * (i % 40)}" for i in range(n)]),
})
pq.write_table(t, sys.argv[1], row_group_size=7000, data_page_size=4096,
               dictionary_pagesize_limit=16384)
"#;
    let out = std::process::Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&path)
        .output()
        .expect("python3 with pyarrow (the oracle; .ci/test installs it)");
    assert!(
        out.status.success(),
        "pyarrow failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = Bytes::from(std::fs::read(&path).unwrap());
    std::fs::remove_dir_all(&dir).ok();
    let expected = parquet_crate(&file);
    assert!(matches!(
        expected[0].column(0).data_type(),
        DataType::Dictionary(_, _)
    ));
    for batch_size in [8192, 333] {
        let got = parq_batches(&file, ReadOptions::default(), batch_size);
        assert_same(&expected, &got, &format!("batches of {batch_size}"));
    }
    // `plain_big`, a string column whose dictionary outgrows the dictionary page limit after
    // 3000 rows of each row group (its chunks hold dictionary pages, then PLAIN ones), read
    // as keys into Dictionary(Int32, Utf8): runs of 8 batches of 100 rows are keys until the
    // run where the chunk falls back, whose keys are looked up, then values.
    let reader = ParquetReader::new(file.clone()).unwrap();
    let leaf = reader
        .schema()
        .leaves
        .iter()
        .position(|l| l.path_string() == "plain_big")
        .unwrap();
    let options = ReadOptions::default().with_dictionary_keys(vec![leaf]);
    let reader = ParquetReader::with_options(file.clone(), options).unwrap();
    let schema = Arc::new(arrow_schema::Schema::new(vec![arrow_schema::Field::new(
        "plain_big",
        DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8)),
        false,
    )]));
    parq::codecs::probe::reset();
    let got: Vec<RecordBatch> = reader
        .array_batches(&["plain_big"], 100)
        .unwrap()
        .map(|b| parq::arrow::to_record_batch(&b.unwrap(), &schema).unwrap())
        .collect();
    let expected = flat(&expected);
    assert_eq!(
        flat(&got).column(0).as_ref(),
        expected.column_by_name("plain_big").unwrap().as_ref()
    );
    if parq::codecs::probe::ENABLED {
        assert!(parq::codecs::probe::get("arrow.dictionary_keys") > 0);
        assert!(parq::codecs::probe::get("read.dictionary_keys_fallback") > 0);
        assert!(parq::codecs::probe::get("read.dictionary_keys_materialized") > 0);
        assert!(parq::codecs::probe::get("arrow.dictionary_rebuilt") > 0);
    }
}

/// The keys path is taken for dictionary-encoded chunks (no value decoded, no dictionary
/// hashed) and not for chunks written without a dictionary.
#[test]
#[cfg(feature = "probes")]
fn dictionary_chunks_take_the_keys_path_and_plain_chunks_do_not() {
    use parq::codecs::probe;
    use parq::write::{ColumnOptions, EncodingPolicy};
    let source = RecordBatch::try_from_iter([(
        "c",
        dictionary_column(&DataType::Int32, &strings(100, true)),
    )])
    .unwrap();
    let file = write(&source, options());
    probe::reset();
    let got = parq_batches(&file, ReadOptions::default(), 1000);
    assert_same(std::slice::from_ref(&source), &got, "dictionary chunks");
    assert!(probe::get("read.dictionary_keys") > 0);
    assert_eq!(probe::get("arrow.dictionary_keys"), got.len() as u64);
    assert_eq!(probe::get("arrow.dictionary_rebuilt"), 0);
    assert_eq!(probe::get("read.dictionary_gather_bytes"), 0);
    assert_eq!(probe::get("read.dictionary_keys_fallback"), 0);

    // The same column written PLAIN: values, hashed into a dictionary per batch.
    let mut plain = options();
    plain.columns.insert(
        "c".into(),
        ColumnOptions::default().with_encoding(Some(EncodingPolicy::Plain)),
    );
    let file = write(&source, plain);
    probe::reset();
    let got = parq_batches(&file, ReadOptions::default(), 1000);
    assert_same(std::slice::from_ref(&source), &got, "PLAIN chunks");
    assert_eq!(probe::get("read.dictionary_keys"), 0);
    assert_eq!(probe::get("arrow.dictionary_keys"), 0);
    assert_eq!(probe::get("arrow.dictionary_rebuilt"), got.len() as u64);
    assert!(probe::get("read.dictionary_keys_fallback") > 0);
}

/// Without the option, parq's own batches hold values, as before.
#[test]
fn array_batches_hold_values_unless_asked_for_keys() {
    let file = write(&batch(), options());
    let reader = ParquetReader::new(file.clone()).unwrap();
    for b in reader.array_batches(&["Int32_nulls"], 1000).unwrap() {
        let b = b.unwrap();
        assert!(matches!(
            b.arrays[0].as_primitive().unwrap().values,
            parq::column::Values::Binary { .. }
        ));
    }
    let options = ReadOptions::default().with_dictionary_keys(vec![reader
        .schema()
        .leaves
        .iter()
        .position(|l| l.path_string() == "Int32_nulls")
        .unwrap()]);
    let keyed = ParquetReader::with_options(file, options).unwrap();
    let values: Vec<_> = reader
        .array_batches(&["Int32_nulls"], 1000)
        .unwrap()
        .map(Result::unwrap)
        .collect();
    for (b, v) in keyed
        .array_batches(&["Int32_nulls"], 1000)
        .unwrap()
        .zip(&values)
    {
        let b = b.unwrap();
        let c = b.arrays[0].as_primitive().unwrap();
        assert!(matches!(c.values, parq::column::Values::Dictionary { .. }));
        // The keys select the same values.
        assert_eq!(c, v.arrays[0].as_primitive().unwrap());
        assert_eq!(&c.materialize(), v.arrays[0].as_primitive().unwrap());
    }
}
