//! A multi-file scan from a simulated remote store: object_store's `ThrottledStore` over
//! `InMemory`, 25 ms per GET and 5 ns per byte (about 200 MB/s per request), like an S3
//! GET from a nearby region.
//!
//! Data: `PARQ_STORE_FILES` files (default 16), each `PARQ_STORE_ROWS` rows (default
//! 250,000: about 4 MB) of `id` (int64), `name` (a string of 10..=18 bytes) and `score`
//! (a double), written by parq with snappy, row groups of 65,536 rows. All three columns
//! are read, in batches of 8,192 rows; each batch is dropped once counted. One thread: a
//! current-thread tokio runtime polls the GETs and decodes.
//!
//! * `object_store/parq/in_flight`: `Scan` with 4 files in flight and up to 16 GETs in
//!   flight per file;
//! * `object_store/parq/one_at_a_time`: the same scan with one file and one GET in flight;
//! * `object_store/parquet/stream_builder`: the parquet crate's
//!   `ParquetRecordBatchStreamBuilder` over `ParquetObjectReader`, file after file.
//!
//! The I/O bound of a case is its bytes ÷ (200 MB/s × requests in flight) plus one latency
//! per round of requests; the report compares against it.
//!
//! Run pinned: `taskset -c 1 cargo bench -p parq-benches --bench object_store`.

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use futures::{StreamExt, TryStreamExt};
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::throttle::{ThrottleConfig, ThrottledStore};
use object_store::{ObjectStore, ObjectStoreExt};
use parq::codecs::compression::CodecKind;
use parq::column::{Column, Values};
use parq::object_store::{ObjectReadOptions, Scan, ScanOptions};
use parq::read::push::PushOptions;
use parq::write::{Field, ParquetWriter, WriterOptions};
use parq_benches::Rng;
// The baseline; parquet 60 deprecates it in favour of hand-written `AsyncFileReader`s,
// and it is still what DataFusion-era code and the parquet docs use over object_store.
#[allow(deprecated)]
use parquet::arrow::async_reader::ParquetObjectReader;
use parquet::arrow::ParquetRecordBatchStreamBuilder;

const BATCH: usize = 8192;

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(default)
}

fn file(n: usize, seed: u64) -> Bytes {
    let mut rng = Rng::new(seed);
    let ids = Column {
        len: n,
        validity: None,
        values: Values::Int64(
            (0..n as i64)
                .map(|i| i * 7 + seed as i64)
                .collect::<Vec<_>>()
                .into(),
        ),
    };
    let mut offsets = Vec::with_capacity(n + 1);
    let mut data = Vec::with_capacity(n * 14);
    offsets.push(0i64);
    for _ in 0..n {
        let len = 10 + rng.below(9) as usize;
        let s = format!("name-{:0>13}", rng.below(1 << 40));
        data.extend_from_slice(&s.as_bytes()[..len]);
        offsets.push(data.len() as i64);
    }
    let names = Column {
        len: n,
        validity: None,
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: data.into(),
        },
    };
    let scores = Column {
        len: n,
        validity: None,
        values: Values::Double(
            (0..n)
                .map(|_| rng.below(1_000_000) as f64 / 7.0)
                .collect::<Vec<_>>()
                .into(),
        ),
    };
    let options = WriterOptions {
        row_group_rows: 65_536,
        ..WriterOptions::default()
    }
    .with_compression(CodecKind::Snappy);
    let fields = vec![
        Field::int64("id"),
        Field::string("name"),
        Field::double("score"),
    ];
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, options).expect("writer");
    w.write_batch(&[ids, names, scores]).expect("write");
    w.finish().expect("finish");
    Bytes::from(out)
}

fn bench(c: &mut Criterion) {
    let files = env("PARQ_STORE_FILES", 16);
    let rows = env("PARQ_STORE_ROWS", 250_000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let memory = Arc::new(InMemory::new());
    let mut bytes = 0;
    rt.block_on(async {
        for f in 0..files {
            let data = file(rows, f as u64);
            bytes += data.len();
            memory
                .put(&Path::from(format!("ds/part-{f:03}.parquet")), data.into())
                .await
                .unwrap();
        }
    });
    eprintln!(
        "object_store bench: {files} files, {bytes} bytes, {} rows",
        files * rows
    );
    let config = ThrottleConfig {
        wait_get_per_call: Duration::from_millis(25),
        wait_get_per_byte: Duration::from_nanos(5),
        wait_list_per_call: Duration::from_millis(25),
        ..ThrottleConfig::default()
    };
    let store: Arc<dyn ObjectStore> = Arc::new(ThrottledStore::new(Arc::clone(&memory), config));
    let objects = rt.block_on(async {
        let mut o: Vec<_> = store
            .list(Some(&Path::from("ds")))
            .try_collect()
            .await
            .unwrap();
        o.sort_by(|a: &object_store::ObjectMeta, b| a.location.cmp(&b.location));
        o
    });
    let scan = |files_in_flight: usize, requests: usize| {
        let options = ScanOptions {
            push: PushOptions {
                batch_size: BATCH,
                ..PushOptions::default()
            },
            read: ObjectReadOptions {
                max_requests_in_flight: requests,
                ..ObjectReadOptions::default()
            },
            files_in_flight,
            ..ScanOptions::default()
        };
        let scan = Scan::new(Arc::clone(&store), objects.clone(), options);
        rt.block_on(async {
            let mut n = 0;
            let mut s = scan.batches();
            while let Some(b) = s.next().await {
                n += b.unwrap().num_rows;
            }
            assert_eq!(n, files * rows);
        })
    };
    let mut g = c.benchmark_group("object_store");
    g.sample_size(10);
    g.bench_function("parq/in_flight", |b| b.iter(|| scan(4, 16)));
    g.bench_function("parq/one_at_a_time", |b| b.iter(|| scan(1, 1)));
    g.bench_function("parquet/stream_builder", |b| {
        b.iter(|| {
            rt.block_on(async {
                let mut n = 0;
                for meta in &objects {
                    #[allow(deprecated)]
                    let reader =
                        ParquetObjectReader::new(Arc::clone(&store), meta.location.clone())
                            .with_file_size(meta.size);
                    let mut s = ParquetRecordBatchStreamBuilder::new(reader)
                        .await
                        .unwrap()
                        .with_batch_size(BATCH)
                        .build()
                        .unwrap();
                    while let Some(b) = s.next().await {
                        n += b.unwrap().num_rows();
                    }
                }
                assert_eq!(n, files * rows);
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
