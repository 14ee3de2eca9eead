//! The `arrow` feature's cost over parq's own API, one thread, files in memory.
//!
//! * `arrow_read/{parq,arrow}/CASE`: `ParquetReader::array_batches` against
//!   `ParquetReader::record_batches` (batches of 8192, every batch kept) on one column of
//!   `PARQ_BENCH_ROWS` rows (default 1,000,000) written by parq's `ArrowWriter`, so the file
//!   holds `ARROW:schema`. String columns are `LargeUtf8` (zero-copy; UTF-8 validated),
//!   `Utf8` and `Binary` (i32 offsets: a copy of the offsets) or `Dictionary(Int32, Utf8)`.
//!   Cases are named in [`column`]; `PARQ_ARROW_CASES=utf8_req,dict_req` runs a few.
//!   `PARQ_ARROW_THREADS=N` reads on N threads (`ReadOptions::threads`; default 1).
//! * `arrow_write/{parq,arrow}/CASE`: `ParquetWriter::write_batch` of parq `Column`s against
//!   `ArrowWriter::write` of the same data as a `RecordBatch`.
//!
//! `cargo bench -p parq-benches --bench arrow`.

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::types::Int32Type;
use arrow_array::{
    Array, ArrayRef, BinaryArray, DictionaryArray, Float64Array, Int64Array, LargeStringArray,
    RecordBatch, StringArray,
};
use arrow_buffer::NullBuffer;
use bytes::Bytes;
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use parq::arrow::{from_arrow_array, from_arrow_schema, ArrowWriter};
use parq::read::{ParquetReader, ReadOptions};
use parq::write::{ParquetWriter, WriterOptions};
use parq_benches::Rng;

const BATCH: usize = 8192;

/// The column of case `name`: `<type>_<nulls>`, where `opt1` has 1 % nulls, `opt10` 10 %,
/// `req` none. Strings are 8–24 ASCII letters: `utf8`/`large_utf8`/`binary`/`dict` draw from
/// 4096 distinct values (the file holds them dictionary-encoded; `dict` reads as
/// `Dictionary(Int32, Utf8)`), `utf8_unique` are all distinct (PLAIN in the file).
fn column(name: &str, rows: usize) -> ArrayRef {
    let mut rng = Rng::new(99);
    let (kind, nulls) = name.rsplit_once('_').expect("case");
    let fraction = match nulls {
        "req" => 0.0,
        "opt1" => 0.01,
        _ => 0.10,
    };
    let validity = (fraction > 0.0)
        .then(|| NullBuffer::from(parq_benches::validity(&mut rng, rows, fraction)));
    let valid = |i: usize| validity.as_ref().is_none_or(|v| v.is_valid(i));
    let pool: Vec<String> = (0..4096)
        .map(|_| parq_benches::random_string(&mut rng, 8, 24))
        .collect();
    let strings: Vec<Option<String>> = (0..rows)
        .map(|i| {
            let s = if kind == "utf8_unique" {
                format!("{i:08}{}", pool[rng.below(4096) as usize])
            } else {
                pool[rng.below(4096) as usize].clone()
            };
            valid(i).then_some(s)
        })
        .collect();
    match kind {
        "i64" => {
            let v: Vec<i64> = (0..rows).map(|_| rng.next_u64() as i64).collect();
            Arc::new(Int64Array::new(v.into(), validity.clone()))
        }
        "f64" => {
            let v: Vec<f64> = (0..rows).map(|_| rng.unit()).collect();
            Arc::new(Float64Array::new(v.into(), validity.clone()))
        }
        "large_utf8" => Arc::new(LargeStringArray::from(strings)),
        "binary" => Arc::new(BinaryArray::from_iter(
            strings.iter().map(|s| s.as_deref().map(str::as_bytes)),
        )),
        "dict" => Arc::new(
            strings
                .iter()
                .map(Option::as_deref)
                .collect::<DictionaryArray<Int32Type>>(),
        ),
        _ => Arc::new(StringArray::from(strings)),
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

const CASES: [&str; 12] = [
    "i64_req",
    "i64_opt10",
    "f64_req",
    "f64_opt10",
    "utf8_req",
    "utf8_opt1",
    "utf8_opt10",
    "utf8_unique_opt1",
    "large_utf8_opt1",
    "binary_opt1",
    "dict_req",
    "dict_opt1",
];

/// The cases to run: `PARQ_ARROW_CASES` (comma-separated, any name [`column`] knows, such
/// as `utf8_unique_req` or `large_utf8_req`) or all of [`CASES`].
fn cases() -> Vec<String> {
    let only = std::env::var("PARQ_ARROW_CASES").unwrap_or_default();
    if only.is_empty() {
        return CASES.into_iter().map(String::from).collect();
    }
    only.split(',').map(String::from).collect()
}

/// `PARQ_ARROW_THREADS`, or 1.
fn threads() -> usize {
    std::env::var("PARQ_ARROW_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(1)
}

/// A reader of `file` on [`threads`] threads.
fn reader(file: &Bytes) -> ParquetReader<Bytes> {
    let options = ReadOptions::default().with_threads(threads());
    ParquetReader::with_options(file.clone(), options).expect("open")
}

/// Every batch of column `c` as parq arrays.
#[inline(never)]
fn read_parq(file: &Bytes) -> Vec<parq::read::ArrayBatch> {
    let r = reader(file);
    r.array_batches(&["c"], BATCH)
        .expect("batches")
        .collect::<Result<_, _>>()
        .expect("read")
}

/// Every batch of column `c` as Arrow record batches.
#[inline(never)]
fn read_arrow(file: &Bytes) -> Vec<RecordBatch> {
    let r = reader(file);
    r.record_batches(&["c"], BATCH)
        .expect("batches")
        .collect::<Result<_, _>>()
        .expect("read")
}

fn bench_read(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut g = c.benchmark_group("arrow_read");
    g.throughput(Throughput::Elements(rows as u64));
    for name in &cases() {
        let file = Bytes::from(write_arrow(&batch(name, rows)));
        g.bench_function(BenchmarkId::new("parq", name), |b| {
            b.iter(|| black_box(read_parq(&file)))
        });
        g.bench_function(BenchmarkId::new("arrow", name), |b| {
            b.iter(|| black_box(read_arrow(&file)))
        });
    }
    g.finish();
}

/// `PARQ_ARROW_ONCE=1`: each case read once by each side, for instruction counts
/// (`valgrind --tool=callgrind`, then the inclusive cost of `read_parq` and `read_arrow`).
fn read_once() {
    for name in &cases() {
        let file = Bytes::from(write_arrow(&batch(name, parq_benches::rows())));
        black_box(read_parq(&file));
        black_box(read_arrow(&file));
    }
}

fn bench_write(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut g = c.benchmark_group("arrow_write");
    g.throughput(Throughput::Elements(rows as u64));
    g.sample_size(20);
    for name in &cases() {
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

/// Nanoseconds of CPU time this thread has used (`CLOCK_THREAD_CPUTIME_ID`, ns resolution).
fn cpu_ns() -> Option<u64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the valid pointer it is given.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then(|| t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64)
}

/// The CPU time of `f` (wall time where that is unknown, or when the read runs on several
/// threads), in nanoseconds.
fn cpu_timed<O>(f: impl FnOnce() -> O) -> f64 {
    let (cpu, wall) = (cpu_ns(), std::time::Instant::now());
    black_box(f());
    match (cpu, cpu_ns()) {
        (Some(a), Some(b)) if threads() == 1 => (b - a) as f64,
        _ => wall.elapsed().as_nanos() as f64,
    }
}

/// `PARQ_ARROW_AB=ROUNDS`: per case, ROUNDS rounds that each read once with parq and once
/// with Arrow, timed by the thread's CPU time. Printed: the median of parq's times and the
/// median, first and third quartile of each round's Arrow/parq ratio. Side by side in the same
/// rounds, so that load that comes and goes on a shared machine hits both sides alike.
fn read_ab(rounds: usize) {
    for name in &cases() {
        let file = Bytes::from(write_arrow(&batch(name, parq_benches::rows())));
        black_box(read_arrow(&file));
        let mut parq = Vec::with_capacity(rounds);
        let mut ratio = Vec::with_capacity(rounds);
        for round in 0..rounds {
            // Each side goes first in every other round: neither always finds the other's
            // freed memory.
            let (p, a) = if round % 2 == 0 {
                let p = cpu_timed(|| read_parq(&file));
                (p, cpu_timed(|| read_arrow(&file)))
            } else {
                let a = cpu_timed(|| read_arrow(&file));
                (cpu_timed(|| read_parq(&file)), a)
            };
            parq.push(p);
            ratio.push(a / p);
        }
        parq.sort_by(f64::total_cmp);
        ratio.sort_by(f64::total_cmp);
        let q = |v: &[f64], f: f64| v[((v.len() - 1) as f64 * f).round() as usize];
        println!(
            "{name:>18}: parq {:8.3} ms, arrow/parq {:.3} [{:.3}, {:.3}]",
            q(&parq, 0.5) / 1e6,
            q(&ratio, 0.5),
            q(&ratio, 0.25),
            q(&ratio, 0.75)
        );
    }
}

criterion_group!(benches, bench_read, bench_write);

fn main() {
    if std::env::var_os("PARQ_ARROW_ONCE").is_some() {
        read_once();
        return;
    }
    if let Some(rounds) = std::env::var("PARQ_ARROW_AB")
        .ok()
        .and_then(|r| r.parse().ok())
    {
        read_ab(rounds);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
