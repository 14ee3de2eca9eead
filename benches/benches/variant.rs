//! Reading VARIANT columns from a file in memory, one thread: parq side by side with the
//! `parquet` crate's variant support (`parquet-variant-compute`) on the same bytes.
//!
//! Data (`PARQ_BENCH_ROWS` rows, default 1,000,000): JSON-like objects of 5–10 fields —
//! `f0` int64, `f1` an 8-byte string of 10,000 distinct, `f2` double, `f3` bool, `f4` a small
//! object `{x: int8, y: string}`, and `f5`–`f9` (each present half the time) ints and
//! strings; 2 % null rows. Written by parq, shredded on `f0`, `f1`, `f2` (the rest in
//! `value`), uncompressed, one row group.
//!
//! Cases:
//! * `json`: every row as JSON text, in batches of 8192 rows (parq: `variant_batches` +
//!   `VariantArray::write_json` into one reused buffer; parquet: `ParquetRecordBatchReader` +
//!   `unshred_variant` + `variant_to_json`); `json_column`: parq's whole column at once
//!   (`read_variant`, then `write_json` of every row into one buffer);
//! * `arrow`: every row as `arrow.parquet.variant` storage, rebuilt from shredding (parq:
//!   `record_batches`; parquet: `ParquetRecordBatchReader` + `unshred_variant`);
//! * `path_f0` vs `rebuild`: parq's `read_variant_path("var", "f0")` (its leaves only) against
//!   rebuilding whole variants (`read_variant`).
//!
//! `cargo bench -p parq-benches --bench variant -- --warm-up-time 1 --measurement-time 5`

use std::collections::BTreeMap;
use std::hint::black_box;

use arrow_array::{Array, ArrayRef, RecordBatchReader};
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parq::read::ParquetReader;
use parq::variant::{shred, variant_field, variant_writer, ShreddedType, Shredding};
use parq::variant::{Variant, VariantArray};
use parq::write::WriterOptions;
use parq_benches::Rng;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

const BATCH: usize = 8192;

fn row(rng: &mut Rng) -> Option<Variant> {
    if rng.below(50) == 0 {
        return None;
    }
    let s = |rng: &mut Rng| format!("s{:07}", rng.below(10_000));
    let mut f = BTreeMap::new();
    f.insert("f0".into(), Variant::Int64(rng.next_u64() as i64 >> 20));
    f.insert("f1".into(), Variant::String(s(rng)));
    f.insert(
        "f2".into(),
        Variant::Double(rng.below(1 << 30) as f64 / 1024.0),
    );
    f.insert("f3".into(), Variant::Boolean(rng.below(2) == 0));
    f.insert(
        "f4".into(),
        Variant::Object(
            [
                ("x".to_string(), Variant::Int8(rng.below(100) as i8)),
                ("y".to_string(), Variant::String(s(rng))),
            ]
            .into(),
        ),
    );
    for k in 5..10 {
        if rng.below(2) == 0 {
            let v = if k % 2 == 0 {
                Variant::Int32(rng.next_u32() as i32)
            } else {
                Variant::String(s(rng))
            };
            f.insert(format!("f{k}"), v);
        }
    }
    Some(Variant::Object(f))
}

fn schema() -> Shredding {
    Shredding::Object(vec![
        ("f0".into(), Shredding::Primitive(ShreddedType::Int64)),
        ("f1".into(), Shredding::Primitive(ShreddedType::String)),
        ("f2".into(), Shredding::Primitive(ShreddedType::Double)),
    ])
}

fn file(rows: usize) -> Bytes {
    let schema = schema();
    let mut rng = Rng::new(42);
    let mut out = Vec::new();
    let options = WriterOptions::default().with_row_group_rows(rows.max(1));
    let mut w = variant_writer(
        &mut out,
        vec![variant_field("var", &schema)],
        &["var"],
        options,
    )
    .unwrap();
    let mut left = rows;
    while left > 0 {
        let n = left.min(65_536);
        let chunk: Vec<Option<Variant>> = (0..n).map(|_| row(&mut rng)).collect();
        let array = shred(&VariantArray::from_variants(&chunk).unwrap(), &schema).unwrap();
        w.write_arrays(&[array]).unwrap();
        left -= n;
    }
    w.finish().unwrap();
    Bytes::from(out)
}

/// Batches of `BATCH` rows, like the parquet crate's reader: each batch's JSON into one
/// buffer (reused) with offsets.
fn parq_json(file: &Bytes) -> usize {
    let reader = ParquetReader::new(file.clone()).unwrap();
    let (mut text, mut offsets) = (String::new(), Vec::with_capacity(BATCH + 1));
    let mut bytes = 0;
    for batch in reader.variant_batches("var", BATCH).unwrap() {
        text.clear();
        offsets.clear();
        offsets.push(0);
        batch.unwrap().write_json(&mut text, &mut offsets).unwrap();
        bytes += text.len();
    }
    bytes
}

/// The whole column at once: `read_variant`, then every row's JSON into one buffer.
fn parq_json_column(file: &Bytes) -> (usize, usize) {
    let reader = ParquetReader::new(file.clone()).unwrap();
    let v = reader.read_variant("var").unwrap();
    let mut text = String::with_capacity(v.len() * 160);
    let mut offsets = Vec::with_capacity(v.len() + 1);
    offsets.push(0);
    v.write_json(&mut text, &mut offsets).unwrap();
    (text.len(), offsets.len())
}

fn arrow_rs_batches(file: &Bytes) -> parquet::arrow::arrow_reader::ParquetRecordBatchReader {
    ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .unwrap()
        .with_batch_size(BATCH)
        .build()
        .unwrap()
}

/// arrow-rs's JSON of a (shredded) variant column: `variant_to_json` takes unshredded
/// variants, so rebuild first.
fn arrow_rs_json_of(col: &ArrayRef) -> arrow_array::StringArray {
    let v = parquet_variant_compute::VariantArray::try_new(col.as_ref()).unwrap();
    let flat = parquet_variant_compute::unshred_variant(&v).unwrap();
    let flat: ArrayRef = std::sync::Arc::new(flat.into_inner());
    parquet_variant_compute::variant_to_json(&flat).unwrap()
}

fn arrow_rs_json(file: &Bytes) -> usize {
    let mut bytes = 0;
    for b in arrow_rs_batches(file) {
        let b = b.unwrap();
        bytes += arrow_rs_json_of(b.column(0)).values().len();
    }
    bytes
}

fn parq_arrow(file: &Bytes) -> usize {
    let reader = ParquetReader::new(file.clone()).unwrap();
    let batches = reader.record_batches(&["var"], BATCH).unwrap();
    assert!(parq::arrow::is_variant_field(batches.schema().field(0)));
    batches.map(|b| b.unwrap().column(0).len()).sum()
}

fn arrow_rs_arrow(file: &Bytes) -> usize {
    let mut rows = 0;
    for b in arrow_rs_batches(file) {
        let b = b.unwrap();
        let v = parquet_variant_compute::VariantArray::try_new(b.column(0).as_ref()).unwrap();
        rows += parquet_variant_compute::unshred_variant(&v).unwrap().len();
    }
    rows
}

fn bench(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let file = file(rows);
    // Same answers before timing: every row's JSON parses to the same value on both sides.
    {
        let reader = ParquetReader::new(file.clone()).unwrap();
        let v = reader.read_variant("var").unwrap();
        let b = arrow_rs_batches(&file).next().unwrap().unwrap();
        let theirs = arrow_rs_json_of(b.column(0));
        for i in 0..theirs.len().min(1000) {
            let ours = v.get(i).map(|r| r.unwrap().to_json().unwrap());
            if let Some(ours) = ours {
                let a: serde_json::Value = serde_json::from_str(&ours).unwrap();
                let b: serde_json::Value = serde_json::from_str(theirs.value(i)).unwrap();
                assert_eq!(a, b, "row {i}");
            }
        }
        assert_eq!(parq_json(&file), parq_json_column(&file).0);
        let f0 = reader.read_variant_path("var", "f0").unwrap();
        assert_eq!(f0.len(), rows);
    }
    let mut g = c.benchmark_group("variant");
    g.sample_size(10);
    g.throughput(Throughput::Elements(rows as u64));
    g.bench_function("json/parq", |b| b.iter(|| black_box(parq_json(&file))));
    g.bench_function("json_column/parq", |b| {
        b.iter(|| black_box(parq_json_column(&file)))
    });
    g.bench_function("json/parquet", |b| {
        b.iter(|| black_box(arrow_rs_json(&file)))
    });
    g.bench_function("arrow/parq", |b| b.iter(|| black_box(parq_arrow(&file))));
    g.bench_function("arrow/parquet", |b| {
        b.iter(|| black_box(arrow_rs_arrow(&file)))
    });
    g.bench_function("rebuild/parq", |b| {
        b.iter(|| {
            let reader = ParquetReader::new(file.clone()).unwrap();
            black_box(reader.read_variant("var").unwrap().len())
        })
    });
    g.bench_function("path_f0/parq", |b| {
        b.iter(|| {
            let reader = ParquetReader::new(file.clone()).unwrap();
            black_box(reader.read_variant_path("var", "f0").unwrap().len())
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
