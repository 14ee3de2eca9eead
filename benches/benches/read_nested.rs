//! Decoding nested columns from a file in memory, one thread, parq side by side with the
//! `parquet` crate (arrow-rs) on identical bytes written by parquet's `ArrowWriter` (defaults:
//! v1 pages, dictionary on, one row group).
//!
//! Cases (`PARQ_BENCH_ROWS` rows, default 1,000,000):
//! * `list_i64`: `list<int64>`, 0–8 items (average 4), 5 % null lists, 5 % null items;
//! * `list_i64_nonull`: the same lengths, no null list or item (nullable fields);
//! * `struct`: `struct{a: int32, b: utf8 of 8 bytes from 10,000 distinct}`, 10 % null
//!   structs, 5 % null children;
//! * `list_utf8`: `list<utf8>` of 0–8 items of 4–12 random bytes, 5 % null lists and items
//!   (too many distinct values for a dictionary: PLAIN pages);
//!
//! each uncompressed, snappy and zstd. Both sides decode batches of 8192 rows and keep them
//! all (the whole column is collected); strings are read as offsets (parq `Offsets`, parquet
//! `LargeUtf8`-free `Utf8`, which is what the file's schema says). Three readers: parq's own
//! batches (`parq`, `array_batches`), parq's Arrow batches (`parq_arrow`, `record_batches`:
//! the same `RecordBatch`es as the parquet crate's, checked equal) and the parquet crate's.
//!
//! `read_nested_threads` writes the same shapes in 8 row groups and reads parq's Arrow
//! batches on one thread and on two (the row groups after the calling thread's decode ahead
//! on their own threads), locally (`parq_arrow_*`) and through the object-store reader from
//! an in-memory store on a current-thread runtime (`parq_store_*`), beside the parquet
//! crate's (one thread); it is timed by the wall clock.
//!
//! `cargo bench -p parq-benches --bench read_nested -- --warm-up-time 1 --measurement-time 3`
//!
//! `PARQ_NESTED_ONCE=CASE[,CASE…]` (e.g. `list_i64_nonull_none`) instead reads each named case
//! once with each reader and exits: run it under `valgrind --tool=callgrind` and compare the
//! inclusive costs of `read_parq` and `read_parquet`. `PARQ_NESTED_PLAIN=1` writes the files
//! without dictionary encoding.

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{Array, ArrayRef, Int64Array, ListArray, RecordBatch};
use arrow_schema::{Field, Schema};
use bytes::Bytes;
use criterion::{criterion_group, BenchmarkId, Criterion, Throughput};
use futures::TryStreamExt;
use object_store::memory::InMemory;
use object_store::{ObjectStore, ObjectStoreExt};
use parq::object_store::ParqObjectReader;
use parq::read::push::PushOptions;
use parq::read::ParquetReader;
use parq_benches::write_nested::list_utf8;
use parq_benches::{list_i64, struct_ab};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

const BATCH: usize = 8192;

fn write(array: ArrayRef, codec: Compression) -> Bytes {
    let rows = array.len().max(1);
    write_groups(array, codec, rows)
}

/// [`write`] in row groups of `group_rows`.
fn write_groups(array: ArrayRef, codec: Compression, group_rows: usize) -> Bytes {
    let schema = Arc::new(Schema::new(vec![Field::new(
        "c",
        array.data_type().clone(),
        true,
    )]));
    let props = WriterProperties::builder()
        .set_dictionary_enabled(std::env::var_os("PARQ_NESTED_PLAIN").is_none())
        .set_compression(codec)
        .set_max_row_group_row_count(Some(group_rows))
        .build();
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).expect("batch");
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema, Some(props)).expect("writer");
    w.write(&batch).expect("write");
    w.close().expect("close");
    Bytes::from(out)
}

#[inline(never)]
fn read_parq(file: &Bytes) -> Vec<parq::read::ArrayBatch> {
    let reader = ParquetReader::new(file.clone()).expect("open");
    reader
        .array_batches(&["c"], BATCH)
        .expect("batches")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

#[inline(never)]
fn read_parq_arrow(file: &Bytes) -> Vec<RecordBatch> {
    let reader = ParquetReader::new(file.clone()).expect("open");
    reader
        .record_batches(&["c"], BATCH)
        .expect("batches")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

/// [`read_parq_arrow`] on `threads` threads.
#[inline(never)]
fn read_parq_arrow_threads(file: &Bytes, threads: usize) -> Vec<RecordBatch> {
    let options = parq::read::ReadOptions::default().with_threads(threads);
    let reader = ParquetReader::with_options(file.clone(), options).expect("open");
    reader
        .record_batches(&["c"], BATCH)
        .expect("batches")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

/// The object-store reader's Arrow batches of `c` from `store` (an in-memory store, so the
/// time is decoding), on `threads`.
fn read_parq_store(
    rt: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    threads: usize,
) -> Vec<RecordBatch> {
    rt.block_on(async {
        let path = object_store::path::Path::from("c.parquet");
        let mut reader = ParqObjectReader::open(Arc::clone(store), &path)
            .await
            .expect("open");
        let options = PushOptions::default()
            .with_read(parq::read::ReadOptions::default().with_threads(threads))
            .with_projection(Some(vec!["c".into()]))
            .with_batch_size(BATCH);
        let (_, batches) = reader.record_batches(options).await.expect("batches");
        batches.try_collect().await.expect("read")
    })
}

#[inline(never)]
fn read_parquet(file: &Bytes) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new(file.clone())
        .expect("open")
        .with_batch_size(BATCH)
        .build()
        .expect("build")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

/// Both readers must agree on rows, nulls at the top and the leaf values before timing.
fn check_same(name: &str, ours: &[parq::read::ArrayBatch], theirs: &[RecordBatch]) {
    let rows: usize = ours.iter().map(|b| b.num_rows).sum();
    let their_rows: usize = theirs.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, their_rows, "{name}: rows");
    let nulls: usize = ours.iter().map(|b| b.arrays[0].null_count()).sum();
    let their_nulls: usize = theirs.iter().map(|b| b.column(0).null_count()).sum();
    assert_eq!(nulls, their_nulls, "{name}: top-level nulls");
    for (b, t) in ours.iter().zip(theirs) {
        let col = t.column(0);
        for i in (0..b.num_rows).step_by(97) {
            let ours = b.arrays[0].value(i);
            let valid = col.is_valid(i);
            assert_eq!(ours != parq::array::Value::Null, valid, "{name}: row {i}");
            if let (parq::array::Value::List(items), Some(l)) =
                (&ours, col.as_any().downcast_ref::<ListArray>())
            {
                let v = l.value(i);
                // Items of other types are compared through the Arrow batches.
                let Some(v) = v.as_any().downcast_ref::<Int64Array>() else {
                    continue;
                };
                assert_eq!(items.len(), v.len(), "{name}: list length at {i}");
                for (k, item) in items.iter().enumerate() {
                    let want = v
                        .is_valid(k)
                        .then(|| parq::array::Value::Leaf(v.value(k).to_le_bytes().to_vec()));
                    assert_eq!(
                        Some(item.clone()).filter(|x| *x != parq::array::Value::Null),
                        want
                    );
                }
            }
        }
    }
}

type Make = fn(usize) -> ArrayRef;

const SHAPES: [(&str, Make); 4] = [
    ("list_i64", |r| list_i64(r, true)),
    ("list_i64_nonull", |r| list_i64(r, false)),
    ("struct", struct_ab),
    ("list_utf8", list_utf8),
];

/// parq's Arrow batches must equal the parquet crate's, batch for batch.
fn check_arrow(name: &str, ours: &[RecordBatch], theirs: &[RecordBatch]) {
    assert_eq!(ours.len(), theirs.len(), "{name}: batches");
    for (k, (o, t)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(
            o.column(0).as_ref(),
            t.column(0).as_ref(),
            "{name}: batch {k}"
        );
    }
}

fn codecs() -> [(&'static str, Compression); 3] {
    [
        ("none", Compression::UNCOMPRESSED),
        ("snappy", Compression::SNAPPY),
        ("zstd", Compression::ZSTD(ZstdLevel::default())),
    ]
}

/// `PARQ_NESTED_ONCE`: each named case read once by each reader, for instruction counts.
fn once(names: &str) {
    let rows = parq_benches::rows();
    for (shape, make) in SHAPES {
        for (codec_name, codec) in codecs() {
            let name = format!("{shape}_{codec_name}");
            if names.split(',').any(|n| n == name) {
                let file = write(make(rows), codec);
                black_box(read_parq(&file));
                black_box(read_parq_arrow(&file));
                black_box(read_parquet(&file));
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut group = c.benchmark_group("read_nested");
    for (shape, make) in SHAPES {
        let array = make(rows);
        for (codec_name, codec) in codecs() {
            let name = format!("{shape}_{codec_name}");
            let file = write(array.clone(), codec);
            check_same(&name, &read_parq(&file), &read_parquet(&file));
            check_arrow(&name, &read_parq_arrow(&file), &read_parquet(&file));
            group.throughput(Throughput::Elements(rows as u64));
            group.bench_with_input(BenchmarkId::new("parq", &name), &file, |b, f| {
                b.iter(|| black_box(read_parq(f)))
            });
            group.bench_with_input(BenchmarkId::new("parq_arrow", &name), &file, |b, f| {
                b.iter(|| black_box(read_parq_arrow(f)))
            });
            group.bench_with_input(BenchmarkId::new("parquet", &name), &file, |b, f| {
                b.iter(|| black_box(read_parquet(f)))
            });
        }
    }
    group.finish();
}

/// The same rows in both, whatever their batches (the parquet crate's cross row groups).
fn check_rows(name: &str, ours: &[RecordBatch], theirs: &[RecordBatch]) {
    let rows = |b: &[RecordBatch]| b.iter().map(RecordBatch::num_rows).sum::<usize>();
    assert_eq!(rows(ours), rows(theirs), "{name}: rows");
    let (mut i, mut j, mut at_i, mut at_j) = (0, 0, 0, 0);
    while i < ours.len() && j < theirs.len() {
        let n = (ours[i].num_rows() - at_i).min(theirs[j].num_rows() - at_j);
        assert!(
            ours[i].slice(at_i, n) == theirs[j].slice(at_j, n),
            "{name}: batch {i} row {at_i} differs"
        );
        (at_i, at_j) = (at_i + n, at_j + n);
        if at_i == ours[i].num_rows() {
            (i, at_i) = (i + 1, 0);
        }
        if at_j == theirs[j].num_rows() {
            (j, at_j) = (j + 1, 0);
        }
    }
}

/// `read_nested_threads`: the same shapes in 8 row groups, parq's Arrow batches on one
/// thread and on two (row groups decoded ahead), and the parquet crate's; wall time.
fn bench_threads(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut group = c.benchmark_group("read_nested_threads");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    for (shape, make) in SHAPES {
        let array = make(rows);
        for (codec_name, codec) in codecs() {
            let name = format!("{shape}_{codec_name}");
            let file = write_groups(array.clone(), codec, rows.div_ceil(8).max(1));
            let one = read_parq_arrow_threads(&file, 1);
            check_arrow(&name, &read_parq_arrow_threads(&file, 2), &one);
            check_rows(&name, &one, &read_parquet(&file));
            group.throughput(Throughput::Elements(rows as u64));
            for threads in [1, 2] {
                let id = BenchmarkId::new(format!("parq_arrow_{threads}t"), &name);
                group.bench_with_input(id, &file, |b, f| {
                    b.iter(|| black_box(read_parq_arrow_threads(f, threads)))
                });
            }
            let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
            let path = object_store::path::Path::from("c.parquet");
            rt.block_on(store.put(&path, file.clone().into()))
                .expect("put");
            check_arrow(&name, &read_parq_store(&rt, &store, 2), &one);
            for threads in [1, 2] {
                let id = BenchmarkId::new(format!("parq_store_{threads}t"), &name);
                group.bench_with_input(id, &store, |b, s| {
                    b.iter(|| black_box(read_parq_store(&rt, s, threads)))
                });
            }
            group.bench_with_input(BenchmarkId::new("parquet", &name), &file, |b, f| {
                b.iter(|| black_box(read_parquet(f)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, bench, bench_threads);

fn main() {
    if let Ok(names) = std::env::var("PARQ_NESTED_ONCE") {
        once(&names);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
