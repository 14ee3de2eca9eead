//! Whole-column reads and parallel scans, parq side by side with the `parquet` crate.
//!
//! `read_whole`: one column of `PARQ_BENCH_ROWS` rows (default here 2,000,000) in one row
//! group, written by parquet's `ArrowWriter` with its page defaults and no dictionary (PLAIN),
//! required. parq reads it with `read_column` (one call, one buffer); parquet decodes batches
//! of 8192 rows and keeps them all (its "collected batches"). Strings are unique, of exactly 8
//! (`str8`) or 24 (`str24`) bytes, compared as i64 offsets (parq `Offsets`, parquet
//! `LargeBinary`). Codecs: none, snappy, zstd. One thread each; the file is a `Bytes` in memory
//! (no I/O).
//!
//! `read_whole_nested`: one nested column of `PARQ_BENCH_ROWS` rows in one row group, written
//! by `ArrowWriter` without dictionary: `list_i64` (0–8 items, average 4, 5 % null lists and
//! items), `list_i64_nonull` (no null list or item) and `struct` (`struct{a: int32, b: utf8}`,
//! 10 % null structs, 5 % null children), uncompressed and zstd. `parq` reads it whole with
//! `read_field` (one call, one array), `parq_batches` streams `array_batches` of 8192 rows
//! and keeps them all, `parquet` collects its batches of 8192.
//!
//! `scan_threads`: a file with one dominant column (unique 24-byte strings, zstd) and three
//! small ones (int32 from a pool of 16, dictionary), 2M rows in 2 row groups. `parq_2t` reads
//! every column with `read_leaves` on 2 threads; the peers are parq on one thread
//! (`parq1t`'s ratio is the speed-up of 2 threads) and parquet collecting batches.
//!
//! `cargo bench -p parq-benches --bench read_whole`, then
//! `cargo run --release -p parq-benches --bin ratios -- read_whole scan_threads`.
//! The nested group alone: `cargo bench -p parq-benches --bench read_whole -- read_whole_nested`.

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, BooleanArray, Float64Array, Int32Array, Int64Array, LargeBinaryArray, RecordBatch,
};
use arrow_schema::{Field, Schema};
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq::read::{ParquetReader, ReadOptions};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

const BATCH: usize = 8192;

fn rows() -> usize {
    std::env::var("PARQ_BENCH_ROWS")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(2_000_000)
}

/// Unique strings of exactly `width` bytes (8 or 24): a bijective scramble of the row number
/// in hex, after random hex filler.
fn unique_strings(rows: usize, width: usize) -> ArrayRef {
    let mut rng = parq_benches::Rng::new(7);
    let mut data = Vec::with_capacity(rows * width);
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0i64);
    for i in 0..rows as u32 {
        for _ in 0..width - 8 {
            data.push(b"0123456789abcdef"[(rng.next_u64() & 15) as usize]);
        }
        data.extend_from_slice(format!("{:08x}", i.wrapping_mul(0x9E37_79B1)).as_bytes());
        offsets.push(data.len() as i64);
    }
    Arc::new(LargeBinaryArray::new(
        arrow_buffer::OffsetBuffer::new(offsets.into()),
        data.into(),
        None,
    ))
}

fn array(kind: &str, rows: usize) -> ArrayRef {
    let mut rng = parq_benches::Rng::new(11);
    match kind {
        "str8" => unique_strings(rows, 8),
        "str24" => unique_strings(rows, 24),
        "i32" => Arc::new(Int32Array::from_iter_values(
            (0..rows).map(|_| rng.next_u64() as i32),
        )),
        "i64" => Arc::new(Int64Array::from_iter_values(
            (0..rows).map(|_| rng.next_u64() as i64),
        )),
        "f64" => Arc::new(Float64Array::from_iter_values(
            (0..rows).map(|_| rng.next_u64() as f64),
        )),
        "bool" => Arc::new(BooleanArray::from_iter(
            (0..rows).map(|_| Some(rng.next_u64() & 1 == 1)),
        )),
        other => panic!("kind {other}"),
    }
}

fn codec(name: &str) -> Compression {
    match name {
        "none" => Compression::UNCOMPRESSED,
        "snappy" => Compression::SNAPPY,
        "zstd" => Compression::ZSTD(ZstdLevel::try_new(1).expect("level")),
        other => panic!("codec {other}"),
    }
}

fn write(columns: Vec<(&str, ArrayRef, bool)>, codec: Compression, group_rows: usize) -> Bytes {
    let schema = Arc::new(Schema::new(
        columns
            .iter()
            .map(|(n, a, _)| Field::new(*n, a.data_type().clone(), false))
            .collect::<Vec<_>>(),
    ));
    let mut props = WriterProperties::builder()
        .set_compression(codec)
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(Some(group_rows.max(1)));
    for (n, _, dict) in &columns {
        props = props.set_column_dictionary_enabled((*n).into(), *dict);
    }
    let batch = RecordBatch::try_new(
        schema.clone(),
        columns.into_iter().map(|(_, a, _)| a).collect(),
    )
    .expect("batch");
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema, Some(props.build())).expect("writer");
    w.write(&batch).expect("write");
    w.close().expect("close");
    Bytes::from(out)
}

fn read_parquet(file: &Bytes) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), ArrowReaderOptions::new())
        .expect("open")
        .with_batch_size(BATCH)
        .build()
        .expect("build")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

fn reader(file: &Bytes, threads: usize) -> ParquetReader {
    let options = ReadOptions::default().with_threads(threads);
    ParquetReader::with_options(file.clone(), options).expect("open")
}

/// Both readers agree on every value before anything is timed.
fn check_same(file: &Bytes, columns: &[usize]) {
    let ours = reader(file, 1).read_leaves(columns).expect("read");
    let theirs = read_parquet(file);
    for (k, &c) in columns.iter().enumerate() {
        let mut row = 0;
        for b in &theirs {
            let a = b.column(c);
            let data = a.to_data();
            let col = parq::arrow::column_to_arrow(&ours[k].slice(row, a.len()), a.data_type())
                .expect("convert");
            assert_eq!(col.to_data(), data, "column {c} differs at rows {row}..");
            row += a.len();
        }
        assert_eq!(row, ours[k].len);
    }
}

fn bench_whole(c: &mut Criterion) {
    let rows = rows();
    let mut g = c.benchmark_group("read_whole");
    g.sample_size(10);
    g.throughput(Throughput::Elements(rows as u64));
    let mut cases = Vec::new();
    for kind in ["str8", "str24"] {
        for codec in ["none", "snappy", "zstd"] {
            cases.push((kind, codec));
        }
    }
    for kind in ["i32", "i64", "f64", "bool"] {
        cases.push((kind, "none"));
    }
    cases.push(("i64", "zstd"));
    for (kind, codec_name) in cases {
        let name = format!("{kind}_plain_{codec_name}");
        let file = write(
            vec![("c", array(kind, rows), false)],
            codec(codec_name),
            rows,
        );
        check_same(&file, &[0]);
        let r = reader(&file, 1);
        g.bench_function(BenchmarkId::new("parq", &name), |b| {
            b.iter(|| black_box(r.read_column(0).expect("read")))
        });
        g.bench_function(BenchmarkId::new("parquet", &name), |b| {
            b.iter(|| black_box(read_parquet(&file)))
        });
    }
    g.finish();
}

/// A nullable nested column `c` in one row group, PLAIN (no dictionary), v1 pages.
fn write_nested(array: ArrayRef, codec: Compression) -> Bytes {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "c",
        array.data_type().clone(),
        true,
    )]));
    let props = WriterProperties::builder()
        .set_compression(codec)
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(Some(array.len().max(1)))
        .build();
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).expect("batch");
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema, Some(props)).expect("writer");
    w.write(&batch).expect("write");
    w.close().expect("close");
    Bytes::from(out)
}

fn bench_whole_nested(c: &mut Criterion) {
    let rows = rows();
    let mut g = c.benchmark_group("read_whole_nested");
    g.sample_size(10);
    g.throughput(Throughput::Elements(rows as u64));
    type Make = fn(usize) -> ArrayRef;
    let shapes: [(&str, Make); 3] = [
        ("list_i64", |r| parq_benches::list_i64(r, true)),
        ("list_i64_nonull", |r| parq_benches::list_i64(r, false)),
        ("struct", parq_benches::struct_ab),
    ];
    for (shape, make) in shapes {
        let array = make(rows);
        for codec_name in ["none", "zstd"] {
            let name = format!("{shape}_plain_{codec_name}");
            let file = write_nested(array.clone(), codec(codec_name));
            let r = reader(&file, 1);
            let (_, whole) = r.read_field(0).expect("read");
            // The same values as the parquet crate reads, and as parq's batches.
            let theirs = read_parquet(&file);
            let mut row = 0;
            for b in &theirs {
                let part = parq::arrow::from_arrow_array(
                    b.column(0).as_ref(),
                    &r.fields().expect("fields")[0],
                )
                .expect("convert");
                assert!(
                    (0..part.len()).all(|i| part.value(i) == whole.value(row + i)),
                    "{name}: rows {row}.. differ from the parquet crate's"
                );
                row += part.len();
            }
            assert_eq!(row, whole.len());
            let batches = |r: &ParquetReader| -> Vec<parq::read::ArrayBatch> {
                r.array_batches(&["c"], BATCH)
                    .expect("batches")
                    .collect::<Result<Vec<_>, _>>()
                    .expect("read")
            };
            assert_eq!(
                batches(&r).iter().map(|b| b.num_rows).sum::<usize>(),
                whole.len()
            );
            g.bench_function(BenchmarkId::new("parq", &name), |b| {
                b.iter(|| black_box(r.read_field(0).expect("read")))
            });
            g.bench_function(BenchmarkId::new("parq_batches", &name), |b| {
                b.iter(|| black_box(batches(&r)))
            });
            g.bench_function(BenchmarkId::new("parquet", &name), |b| {
                b.iter(|| black_box(read_parquet(&file)))
            });
        }
    }
    g.finish();
}

fn bench_threads(c: &mut Criterion) {
    let rows = rows();
    let name = "str24_zstd_dominant";
    let mut g = c.benchmark_group("scan_threads");
    g.sample_size(10);
    g.throughput(Throughput::Elements(rows as u64));
    let small = |seed: u64| -> ArrayRef {
        let mut rng = parq_benches::Rng::new(seed);
        Arc::new(Int32Array::from_iter_values(
            (0..rows).map(|_| (rng.next_u64() % 16) as i32),
        ))
    };
    let file = write(
        vec![
            ("s", unique_strings(rows, 24), false),
            ("a", small(1), true),
            ("b", small(2), true),
            ("c", small(3), true),
        ],
        codec("zstd"),
        rows.div_ceil(2),
    );
    let all = [0, 1, 2, 3];
    check_same(&file, &all);
    let (one, two) = (reader(&file, 1), reader(&file, 2));
    assert!(one.read_leaves(&all).expect("read") == two.read_leaves(&all).expect("read"));
    g.bench_function(BenchmarkId::new("parq_2t", name), |b| {
        b.iter(|| black_box(two.read_leaves(&all).expect("read")))
    });
    g.bench_function(BenchmarkId::new("parq1t", name), |b| {
        b.iter(|| black_box(one.read_leaves(&all).expect("read")))
    });
    g.bench_function(BenchmarkId::new("parquet", name), |b| {
        b.iter(|| black_box(read_parquet(&file)))
    });
    std::fs::write(
        std::env::temp_dir().join("parq-scan-threads.parquet"),
        &file[..],
    )
    .expect("write the file for pyarrow");
    g.finish();
}

criterion_group!(benches, bench_whole, bench_whole_nested, bench_threads);
criterion_main!(benches);
