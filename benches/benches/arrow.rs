//! The `arrow` feature's cost over parq's own API, one thread, files in memory.
//!
//! * `arrow_read/{parq,arrow}/CASE`: `ParquetReader::array_batches` against
//!   `ParquetReader::record_batches` (batches of 8192, every batch kept) on one column of
//!   `PARQ_BENCH_ROWS` rows (default 1,000,000) written by parq's `ArrowWriter`, so the file
//!   holds `ARROW:schema`. String columns are `LargeUtf8` (zero-copy; UTF-8 validated) or
//!   `Utf8` (i32 offsets: a copy of the offsets).
//! * `arrow_write/{parq,arrow}/CASE`: `ParquetWriter::write_batch` of parq `Column`s against
//!   `ArrowWriter::write` of the same data as a `RecordBatch`.
//!
//! `cargo bench -p parq-benches --bench arrow`.

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, Float64Array, Int64Array, LargeStringArray, RecordBatch, StringArray,
};
use arrow_buffer::NullBuffer;
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq::arrow::{from_arrow_array, from_arrow_schema, ArrowWriter};
use parq::read::ParquetReader;
use parq::write::{ParquetWriter, WriterOptions};
use parq_benches::Rng;

const BATCH: usize = 8192;

fn column(name: &str, rows: usize) -> ArrayRef {
    let mut rng = Rng::new(99);
    let validity = NullBuffer::from(parq_benches::validity(&mut rng, rows, 0.01));
    let pool: Vec<String> = (0..4096)
        .map(|_| parq_benches::random_string(&mut rng, 8, 24))
        .collect();
    let strings = |rng: &mut Rng| -> Vec<Option<String>> {
        (0..rows)
            .map(|i| {
                validity
                    .is_valid(i)
                    .then(|| pool[rng.below(4096) as usize].clone())
            })
            .collect()
    };
    match name {
        "i64_opt1" => {
            let v: Vec<i64> = (0..rows).map(|_| rng.next_u64() as i64).collect();
            Arc::new(Int64Array::new(v.into(), Some(validity.clone())))
        }
        "f64_req" => {
            let v: Vec<f64> = (0..rows).map(|_| rng.unit()).collect();
            Arc::new(Float64Array::new(v.into(), None))
        }
        "large_utf8_opt1" => Arc::new(LargeStringArray::from(strings(&mut rng))),
        _ => Arc::new(StringArray::from(strings(&mut rng))),
    }
}

fn batch(name: &str, rows: usize) -> RecordBatch {
    RecordBatch::try_from_iter([("c", column(name, rows))]).expect("batch")
}

fn write_arrow(batch: &RecordBatch) -> Vec<u8> {
    let mut w =
        ArrowWriter::try_new(Vec::new(), batch.schema(), WriterOptions::default()).expect("writer");
    w.write(batch).expect("write");
    w.into_inner().expect("finish")
}

const CASES: [&str; 4] = ["i64_opt1", "f64_req", "large_utf8_opt1", "utf8_opt1"];

fn bench_read(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut g = c.benchmark_group("arrow_read");
    g.throughput(Throughput::Elements(rows as u64));
    for name in CASES {
        let file = Bytes::from(write_arrow(&batch(name, rows)));
        g.bench_function(BenchmarkId::new("parq", name), |b| {
            b.iter(|| {
                let r = ParquetReader::new(file.clone()).expect("open");
                let all: Vec<_> = r
                    .array_batches(&["c"], BATCH)
                    .expect("batches")
                    .collect::<Result<_, _>>()
                    .expect("read");
                black_box(all)
            })
        });
        g.bench_function(BenchmarkId::new("arrow", name), |b| {
            b.iter(|| {
                let r = ParquetReader::new(file.clone()).expect("open");
                let all: Vec<_> = r
                    .record_batches(&["c"], BATCH)
                    .expect("batches")
                    .collect::<Result<_, _>>()
                    .expect("read");
                black_box(all)
            })
        });
    }
    g.finish();
}

fn bench_write(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut g = c.benchmark_group("arrow_write");
    g.throughput(Throughput::Elements(rows as u64));
    g.sample_size(20);
    for name in CASES {
        let batch = batch(name, rows);
        let fields = from_arrow_schema(&batch.schema()).expect("fields");
        let arrays: Vec<_> = batch
            .columns()
            .iter()
            .zip(&fields)
            .map(|(a, f)| from_arrow_array(a.as_ref(), f).expect("convert"))
            .collect();
        g.bench_function(BenchmarkId::new("parq", name), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(rows * 16);
                let mut w =
                    ParquetWriter::with_fields(&mut out, fields.clone(), Default::default())
                        .expect("writer");
                w.write_arrays(&arrays).expect("write");
                w.finish().expect("finish");
                black_box(out.len())
            })
        });
        g.bench_function(BenchmarkId::new("arrow", name), |b| {
            b.iter(|| {
                let mut out = Vec::with_capacity(rows * 16);
                let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Default::default())
                    .expect("writer");
                w.write(&batch).expect("write");
                w.finish().expect("finish");
                black_box(out.len())
            })
        });
        black_box(batch.column(0).len());
    }
    g.finish();
}

criterion_group!(benches, bench_read, bench_write);
criterion_main!(benches);
