//! The async object-store reader and scans: every parquet-testing file read from
//! `InMemory` and `LocalFileSystem` (and, with `cloud`, from S3 served by moto on
//! loopback) equals the local read; request counts (one GET for a small footer, at most
//! four for a needle query with a page index, as a selection or as a predicate); failed, short and stalled GETs give clean
//! errors naming the range, nothing hangs, and dropping a stream cancels its GETs.

use std::fmt;
use std::ops::Range;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use parq::codecs::probe;
use parq::column::{Column, Values};
use parq::object_store::object_store::local::LocalFileSystem;
use parq::object_store::object_store::memory::InMemory;
use parq::object_store::object_store::path::Path;
use parq::object_store::object_store::{
    self as os, CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload,
    ObjectMeta, ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload,
    PutResult,
};
#[cfg(feature = "probes")]
use parq::object_store::FooterCache;
use parq::object_store::{ObjectReadOptions, ParqObjectReader, Scan, ScanOptions};
use parq::predicate::col;
use parq::read::push::{IoOptions, PushOptions};
use parq::read::{ArrayBatch, ParquetReader, ReadOptions, RowSelection};
use parq::write::{Field, ParquetWriter, WriterOptions};

use crate::parallel_read::{batch_rows, nested_file, streamed, summary, Streamed};
#[cfg(feature = "cloud")]
use crate::python;

fn data_dir() -> PathBuf {
    std::env::var_os("PARQUET_TEST_DATA")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data")
        })
}

fn testing_files() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(data_dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".parquet"))
        .collect();
    names.sort();
    assert!(names.len() > 50);
    names
}

/// Today's reader, one row group at a time (push batches stop at row-group ends), or its
/// error.
fn local_read(file: &Bytes, options: &PushOptions) -> parq::Result<Vec<ArrayBatch>> {
    let whole = ParquetReader::with_options(file.clone(), options.read.clone())?;
    let names: Vec<String> = whole.fields()?.into_iter().map(|f| f.name).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut out = Vec::new();
    for rg in whole.selected_row_groups() {
        let r = ParquetReader::with_options(
            file.clone(),
            options.read.clone().with_row_groups(Some(vec![rg])),
        )?;
        for b in r.array_batches(&names, options.batch_size)? {
            out.push(b?);
        }
    }
    Ok(out)
}

fn same(name: &str, got: &[ArrayBatch], want: &[ArrayBatch]) {
    assert_eq!(got.len(), want.len(), "{name}: batches");
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.num_rows, w.num_rows, "{name}");
        assert!(g.arrays == w.arrays, "{name}: a batch differs");
    }
}

async fn remote_read(
    store: Arc<dyn ObjectStore>,
    path: &Path,
    read: ObjectReadOptions,
    options: PushOptions,
) -> parq::Result<Vec<ArrayBatch>> {
    let mut reader = ParqObjectReader::open(store, path)
        .await?
        .with_options(read);
    reader.batches(options).await?.try_collect().await
}

/// Every testing file through `store` (holding them under `prefix`) equals the local read
/// on one thread.
async fn every_file_equals_local(
    store: Arc<dyn ObjectStore>,
    prefix: &str,
    read: ObjectReadOptions,
) {
    every_file_on_threads_equals_local(store, prefix, read, 1).await;
}

/// [`every_file_equals_local`], the store read on `threads`.
async fn every_file_on_threads_equals_local(
    store: Arc<dyn ObjectStore>,
    prefix: &str,
    read: ObjectReadOptions,
    threads: usize,
) {
    let mut ok = 0;
    for name in testing_files() {
        let file = Bytes::from(std::fs::read(data_dir().join(&name)).unwrap());
        let options = PushOptions::default().with_batch_size(777);
        let path = Path::from(format!("{prefix}{name}"));
        let mut remote = options.clone();
        remote.read.threads = threads;
        let got = remote_read(Arc::clone(&store), &path, read.clone(), remote).await;
        match (local_read(&file, &options), got) {
            (Ok(want), Ok(got)) => {
                same(&name, &got, &want);
                ok += 1;
            }
            (Err(_), Err(_)) => {}
            (Ok(_), Err(e)) => panic!("{name}: remote read failed: {e}"),
            (Err(e), Ok(_)) => panic!("{name}: remote read succeeded where the local failed: {e}"),
        }
    }
    assert!(ok > 50, "only {ok} files read");
}

async fn memory_store_with_testing_files() -> Arc<dyn ObjectStore> {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    for name in testing_files() {
        let bytes = std::fs::read(data_dir().join(&name)).unwrap();
        store
            .put(&Path::from(format!("data/{name}")), bytes.into())
            .await
            .unwrap();
    }
    store
}

#[tokio::test]
async fn every_testing_file_from_memory_equals_the_local_read() {
    let store = memory_store_with_testing_files().await;
    every_file_equals_local(store, "data/", ObjectReadOptions::default()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_testing_file_decoded_on_the_blocking_pool_equals_the_local_read() {
    let store = memory_store_with_testing_files().await;
    let read = ObjectReadOptions::default()
        .with_decode_on_blocking_pool(true)
        .with_max_requests_in_flight(2);
    every_file_equals_local(store, "data/", read).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_testing_file_on_two_threads_equals_the_local_read() {
    let store = memory_store_with_testing_files().await;
    every_file_on_threads_equals_local(store, "data/", ObjectReadOptions::default(), 2).await;
}

/// On the blocking pool a step decodes several batches while their bytes are there: a scan
/// costs a round trip through the pool per few batches, not per batch.
// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[tokio::test]
async fn blocking_pool_steps_decode_several_batches_each() {
    let file = int_file(100_000, 50_000);
    let store = store_with("f.parquet", &file).await;
    let read = ObjectReadOptions::default().with_decode_on_blocking_pool(true);
    let mut reader = ParqObjectReader::open(store, &Path::from("f.parquet"))
        .await
        .unwrap()
        .with_options(read);
    probe::reset();
    let options = PushOptions::default().with_batch_size(1000);
    let batches: Vec<ArrayBatch> = reader
        .batches(options)
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows).sum();
    assert_eq!((rows, batches.len()), (100_000, 100));
    let steps = probe::get("io.blocking_steps");
    // 100 batches of 2 row groups: 13 steps of up to 8 batches, plus those that wait for data.
    assert!((13..=20).contains(&steps), "{steps} blocking steps");
}

/// Streamed batches of `l` and `s` of `nested.parquet` in `store` on `threads` threads, as
/// [`crate::parallel_read::streamed`] gives them locally; with `stall_after`, only the
/// batches that come before the stream stops answering for that long.
async fn store_streamed(
    store: Arc<dyn ObjectStore>,
    threads: usize,
    read: ObjectReadOptions,
    stall_after: Option<Duration>,
) -> Streamed {
    let mut reader = ParqObjectReader::open(store, &Path::from("nested.parquet"))
        .await
        .unwrap()
        .with_options(read);
    let options = PushOptions::default()
        .with_read(ReadOptions::default().with_threads(threads))
        .with_projection(Some(vec!["l".into(), "s".into()]))
        .with_batch_size(1000);
    let mut stream = reader.batches(options).await.unwrap();
    let mut batches = Vec::new();
    loop {
        let next = match stall_after {
            Some(t) => match tokio::time::timeout(t, stream.next()).await {
                Ok(next) => next,
                Err(_) => return (batches, Some("stalled".into())),
            },
            None => stream.next().await,
        };
        match next {
            None => return (batches, None),
            Some(Ok(b)) => batches.push(batch_rows(&b)),
            Some(Err(e)) => return (batches, Some(e.to_string())),
        }
    }
}

/// Streamed nested fields from a store on several threads decode the row groups after the
/// stream's own ahead, each on a thread of its own once its bytes have landed, and give the
/// batches one thread gives locally, in the same order.
#[tokio::test]
async fn nested_fields_from_a_store_decode_row_groups_ahead_on_threads() {
    let file = nested_file(175_000, 25_000);
    let one = streamed(&file, 1, &["l", "s"]);
    assert_eq!(one.0.len(), 175);
    let store = store_with("nested.parquet", &file).await;
    probe::reset();
    let two = store_streamed(Arc::clone(&store), 2, ObjectReadOptions::default(), None).await;
    assert!(two == one, "{} against {}", summary(&two), summary(&one));
    // 7 row groups on 2 threads: the stream's thread takes 0, 2, 4, 6; 1, 3, 5 go ahead.
    #[cfg(feature = "probes")]
    assert_eq!(probe::get("push.row_group_ahead"), 3);
    let one_remote = store_streamed(store, 1, ObjectReadOptions::default(), None).await;
    assert!(one_remote == one, "{}", summary(&one_remote));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nested_fields_decoded_ahead_on_the_blocking_pool_read_the_same() {
    let file = nested_file(175_000, 25_000);
    let one = streamed(&file, 1, &["l", "s"]);
    let store = store_with("nested.parquet", &file).await;
    let read = ObjectReadOptions::default().with_decode_on_blocking_pool(true);
    for threads in [2, 3] {
        let got = store_streamed(Arc::clone(&store), threads, read.clone(), None).await;
        assert!(got == one, "{threads} threads: {}", summary(&got));
    }
}

/// A row group to decode ahead waits for its bytes, the stream does not: with every GET
/// after those of the first row group stalled, that row group's batches all come.
#[tokio::test]
async fn a_stalled_get_of_a_row_group_ahead_holds_up_no_batch_before_it() {
    let file = nested_file(175_000, 25_000);
    let one = streamed(&file, 1, &["l", "s"]);
    let store = store_with("nested.parquet", &file).await;
    // The GETs of a read of row group 0 alone: the footer's, then its data.
    let (counted, faults) = faulty(Arc::clone(&store), Faults::default());
    let mut reader = ParqObjectReader::open(counted, &Path::from("nested.parquet"))
        .await
        .unwrap();
    let options = PushOptions::default()
        .with_read(ReadOptions::default().with_row_groups(Some(vec![0])))
        .with_projection(Some(vec!["l".into(), "s".into()]));
    let rows: usize = reader
        .batches(options)
        .await
        .unwrap()
        .map(|b| b.unwrap().num_rows)
        .fold(0, |a, n| async move { a + n })
        .await;
    assert_eq!(rows, 25_000);
    let first_group_gets = faults.gets.load(Ordering::SeqCst);
    let faults = Faults {
        stall_at: Some(first_group_gets + 1),
        ..Faults::default()
    };
    let (stalling, _) = faulty(store, faults);
    let got = store_streamed(
        stalling,
        2,
        ObjectReadOptions::default(),
        Some(Duration::from_millis(500)),
    )
    .await;
    assert_eq!(got.1.as_deref(), Some("stalled"));
    assert!(got.0 == one.0[..25], "{}", summary(&got));
}

#[tokio::test]
async fn every_testing_file_from_the_local_file_system_equals_the_local_read() {
    let store: Arc<dyn ObjectStore> =
        Arc::new(LocalFileSystem::new_with_prefix(data_dir()).unwrap());
    every_file_equals_local(store, "", ObjectReadOptions::default()).await;
}

/// GETs polled by the stream instead of on tasks of their own (`fetch_on_tasks`, by default
/// for the stores whose requests progress unpolled): the same batches of every testing file,
/// from the local file system on a runtime of two workers and from memory, polled by default
/// (probe `io.gets_polled` counts them) and on tasks when asked; a store that wraps them
/// keeps the tasks.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gets_of_local_stores_are_polled_by_the_stream_and_read_the_same() {
    let local: Arc<dyn ObjectStore> =
        Arc::new(LocalFileSystem::new_with_prefix(data_dir()).unwrap());
    let memory = memory_store_with_testing_files().await;
    let wrapped: Arc<dyn ObjectStore> = Arc::new(object_store::prefix::PrefixStore::new(
        Arc::clone(&memory),
        "data",
    ));
    let cases = [
        (&local, "", None, true),
        (&local, "", Some(true), false),
        (&memory, "data/", None, true),
        (&wrapped, "", None, false),
        (&wrapped, "", Some(false), true),
    ];
    for (store, prefix, on_tasks, polled) in cases {
        #[cfg(feature = "probes")]
        probe::reset();
        let read = ObjectReadOptions::default().with_fetch_on_tasks(on_tasks);
        every_file_equals_local(Arc::clone(store), prefix, read).await;
        #[cfg(feature = "probes")]
        {
            let (gets_polled, started) =
                (probe::get("io.gets_polled"), probe::get("io.gets_started"));
            let want = if polled { started } else { 0 };
            assert!(
                started > 0 && gets_polled == want,
                "{store} {on_tasks:?}: {gets_polled} of {started} polled"
            );
        }
        #[cfg(not(feature = "probes"))]
        let _ = polled;
    }
}

#[tokio::test]
async fn a_url_opens_through_object_store_parsing() {
    let url = format!(
        "file://{}",
        data_dir()
            .join("alltypes_plain.parquet")
            .canonicalize()
            .unwrap()
            .display()
    );
    let mut reader = ParqObjectReader::open_url(&url).await.unwrap();
    let batches: Vec<ArrayBatch> = reader
        .batches(PushOptions::default())
        .await
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 8);
    assert!(ParqObjectReader::open_url("nope://x/y").await.is_err());
}

/// A store wrapper that counts GETs and can fail the k-th, shorten bodies, or stall.
#[derive(Debug, Default)]
struct Faults {
    gets: AtomicUsize,
    /// Fail the GET with this number (1-based).
    fail_at: Option<usize>,
    /// Answer the GET with this number with a body one byte short.
    short_at: Option<usize>,
    /// Never answer the GETs from this number on.
    stall_at: Option<usize>,
    /// GETs whose futures are alive now.
    live: Arc<AtomicUsize>,
}

#[derive(Debug)]
struct FaultyStore {
    inner: Arc<dyn ObjectStore>,
    faults: Arc<Faults>,
}

impl fmt::Display for FaultyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FaultyStore({})", self.inner)
    }
}

struct Live(Arc<AtomicUsize>);
impl Live {
    fn new(n: &Arc<AtomicUsize>) -> Self {
        n.fetch_add(1, Ordering::SeqCst);
        Live(Arc::clone(n))
    }
}
impl Drop for Live {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

#[async_trait]
impl ObjectStore for FaultyStore {
    async fn put_opts(
        &self,
        p: &Path,
        payload: PutPayload,
        o: PutOptions,
    ) -> os::Result<PutResult> {
        self.inner.put_opts(p, payload, o).await
    }
    async fn put_multipart_opts(
        &self,
        p: &Path,
        o: PutMultipartOptions,
    ) -> os::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(p, o).await
    }
    async fn get_opts(&self, p: &Path, o: GetOptions) -> os::Result<GetResult> {
        if o.head {
            return self.inner.get_opts(p, o).await;
        }
        let _live = Live::new(&self.faults.live);
        let n = self.faults.gets.fetch_add(1, Ordering::SeqCst) + 1;
        if self.faults.fail_at == Some(n) {
            return Err(os::Error::Generic {
                store: "faulty",
                source: "injected failure".into(),
            });
        }
        if self.faults.stall_at.is_some_and(|k| n >= k) {
            futures::future::pending::<()>().await;
        }
        if self.faults.short_at != Some(n) {
            return self.inner.get_opts(p, o).await;
        }
        let mut r = self.inner.get_opts(p, o.clone()).await?;
        let mut bytes = self.inner.get_opts(p, o).await?.bytes().await?;
        bytes.truncate(bytes.len().saturating_sub(1));
        r.payload =
            GetResultPayload::Stream(futures::stream::once(async move { Ok(bytes) }).boxed());
        Ok(r)
    }
    fn delete_stream(
        &self,
        l: BoxStream<'static, os::Result<Path>>,
    ) -> BoxStream<'static, os::Result<Path>> {
        self.inner.delete_stream(l)
    }
    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, os::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }
    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> os::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }
    async fn copy_opts(&self, from: &Path, to: &Path, o: CopyOptions) -> os::Result<()> {
        self.inner.copy_opts(from, to, o).await
    }
}

fn faulty(inner: Arc<dyn ObjectStore>, faults: Faults) -> (Arc<dyn ObjectStore>, Arc<Faults>) {
    let faults = Arc::new(faults);
    (
        Arc::new(FaultyStore {
            inner,
            faults: Arc::clone(&faults),
        }),
        faults,
    )
}

/// Two int64 columns, `rows` rows, pages of 1000 rows, with a page index.
fn int_file(rows: i64, row_group_rows: usize) -> Bytes {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(
        &mut out,
        vec![Field::int64("a"), Field::int64("b")],
        int_file_options(row_group_rows),
    )
    .unwrap();
    let col = |k: i64| Column {
        len: rows as usize,
        validity: None,
        values: Values::Int64((0..rows).map(|i| i * k).collect::<Vec<_>>().into()),
    };
    w.write_batch(&[col(1), col(3)]).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

/// How [`int_file`] writes.
fn int_file_options(row_group_rows: usize) -> WriterOptions {
    WriterOptions::default()
        .with_data_page_row_limit(1000)
        .with_row_group_rows(row_group_rows)
        .with_page_index(true)
}

async fn store_with(name: &str, file: &Bytes) -> Arc<dyn ObjectStore> {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    store
        .put(&Path::from(name), file.clone().into())
        .await
        .unwrap();
    store
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[tokio::test]
async fn a_small_footer_costs_one_get_and_is_cached() {
    let file = int_file(10_000, 1 << 20);
    let (store, faults) = faulty(store_with("f.parquet", &file).await, Faults::default());
    let cache = Arc::new(FooterCache::new(8));
    probe::reset();
    let mut reader = ParqObjectReader::open(Arc::clone(&store), &Path::from("f.parquet"))
        .await
        .unwrap()
        .with_footer_cache(Arc::clone(&cache));
    reader.footer().await.unwrap();
    assert_eq!(faults.gets.load(Ordering::SeqCst), 1);
    assert_eq!(probe::get("io.get_requests"), 1);
    // A second reader of the same object (same size and version) hits the cache.
    let mut again = ParqObjectReader::open(store, &Path::from("f.parquet"))
        .await
        .unwrap()
        .with_footer_cache(cache);
    again.footer().await.unwrap();
    assert_eq!(faults.gets.load(Ordering::SeqCst), 1);
    assert_eq!(probe::get("io.footer_cache_hit"), 1);
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[tokio::test]
async fn the_footer_cache_evicts_the_least_recently_used_by_entries_and_by_bytes() {
    let file = int_file(10_000, 1 << 20);
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let mut metas = Vec::new();
    let mut footers = Vec::new();
    for name in ["a", "b", "c"] {
        let path = Path::from(format!("{name}.parquet"));
        store.put(&path, file.clone().into()).await.unwrap();
        let mut reader = ParqObjectReader::open(Arc::clone(&store), &path)
            .await
            .unwrap();
        footers.push(reader.footer().await.unwrap());
        metas.push(reader.object_meta().clone());
    }
    let size = footers[0].approx_size();
    assert!(size > 0);
    let held = |cache: &FooterCache| -> Vec<bool> {
        metas.iter().map(|m| cache.get(m).is_some()).collect()
    };

    // By entries: a, b; a used again; c evicts b, the least recently used.
    probe::reset();
    let cache = FooterCache::new(2);
    cache.insert(&metas[0], footers[0].clone());
    cache.insert(&metas[1], footers[1].clone());
    assert!(cache.get(&metas[0]).is_some());
    cache.insert(&metas[2], footers[2].clone());
    assert_eq!(cache.len(), 2);
    assert_eq!(probe::get("io.footer_cache_evicted"), 1);
    assert_eq!(held(&cache), [true, false, true]);

    // By bytes: room for two footers; re-inserting one does not count it twice.
    let cache = FooterCache::bounded(100, 2 * size);
    cache.insert(&metas[0], footers[0].clone());
    cache.insert(&metas[0], footers[0].clone());
    cache.insert(&metas[1], footers[1].clone());
    assert_eq!(cache.bytes(), 2 * size);
    assert!(cache.get(&metas[0]).is_some());
    cache.insert(&metas[2], footers[2].clone());
    assert_eq!(cache.bytes(), 2 * size);
    assert_eq!(held(&cache), [true, false, true]);

    // A footer over the byte bound is not kept, and evicts nothing.
    let cache = FooterCache::bounded(100, size - 1);
    cache.insert(&metas[0], footers[0].clone());
    assert!(cache.is_empty());
    assert_eq!(cache.bytes(), 0);
}

/// The needle file (1M rows in one row group: 16 MB of data, 1000 pages per column) read
/// from a store that counts GETs: the batches, the GETs, and the file's size.
async fn read_needle_file(options: PushOptions) -> (Vec<ArrayBatch>, usize, usize) {
    let file = int_file(1_000_000, 1 << 20);
    let (store, faults) = faulty(store_with("big.parquet", &file).await, Faults::default());
    probe::reset();
    let path = Path::from("big.parquet");
    let batches = remote_read(store, &path, ObjectReadOptions::default(), options)
        .await
        .unwrap();
    (batches, faults.gets.load(Ordering::SeqCst), file.len())
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[tokio::test]
async fn a_needle_query_with_a_page_index_costs_three_gets() {
    let options = PushOptions::default().with_read(ReadOptions::default().with_selection(Some(
        RowSelection::from_ranges(std::iter::once(777_000..777_001)),
    )));
    let (batches, gets, file_len) = read_needle_file(options).await;
    assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 1);
    let Values::Int64(v) = &match &batches[0].arrays[1] {
        parq::array::Array::Primitive(c) => c.clone(),
        other => panic!("{other:?}"),
    }
    .values
    else {
        panic!()
    };
    assert_eq!(v[0], 777_000 * 3);
    // The footer's suffix request, which holds both offset indexes too (they sit just before
    // the footer), and one page per column (8 MB apart). The parquet crate needs a fourth.
    assert_eq!(gets, 3, "{gets} GETs");
    assert!(probe::get("push.held_bytes_used") > 0);
    assert_eq!(probe::get("io.get_requests") as usize, gets);
    let bytes = probe::get("io.get_bytes");
    assert!(bytes < 200_000, "{bytes} bytes of {file_len}");
}

/// The same needle as a predicate: the decoder asks for the column and offset indexes of
/// the predicate's column itself (here already in the footer's suffix request), prunes to
/// the page holding the needle, and fetches that page of each column.
#[tokio::test]
async fn a_needle_predicate_with_a_page_index_costs_at_most_four_gets() {
    let options = PushOptions::default().with_predicate(Some(col("b").eq(777_000i64 * 3)));
    let (batches, gets, file_len) = read_needle_file(options).await;
    // Pruning keeps the page of 1000 rows that may hold it.
    assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 1000);
    assert!(gets <= 4, "{gets} GETs");
    let bytes = probe::get("io.get_bytes");
    assert!(bytes < 300_000, "{bytes} bytes of {file_len}");
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[tokio::test]
async fn a_file_inside_the_footer_suffix_costs_one_get() {
    let file = int_file(2_000, 1 << 20);
    assert!(file.len() < 64 << 10, "{} bytes", file.len());
    let (store, faults) = faulty(store_with("small.parquet", &file).await, Faults::default());
    probe::reset();
    let batches = remote_read(
        store,
        &Path::from("small.parquet"),
        ObjectReadOptions::default(),
        PushOptions::default(),
    )
    .await
    .unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 2_000);
    assert_eq!(
        faults.gets.load(Ordering::SeqCst),
        1,
        "the footer's GET only"
    );
    // Every chunk came from the footer request's bytes.
    assert!(probe::get("push.held_bytes_used") > 0);
    assert_eq!(probe::get("io.get_requests"), 1);
}

#[tokio::test]
async fn row_groups_are_fetched_ahead_within_the_budgets() {
    let file = int_file(80_000, 10_000);
    let (store, faults) = faulty(store_with("f.parquet", &file).await, Faults::default());
    let mut reader = ParqObjectReader::open(store, &Path::from("f.parquet"))
        .await
        .unwrap();
    let mut batches = reader
        .batches(PushOptions::default().with_batch_size(10_000))
        .await
        .unwrap();
    // After the first batch, the following row groups are already asked for.
    batches.next().await.unwrap().unwrap();
    tokio::task::yield_now().await;
    assert!(
        faults.gets.load(Ordering::SeqCst) > 2,
        "{} GETs",
        faults.gets.load(Ordering::SeqCst)
    );
    let rest: Vec<_> = batches.try_collect().await.unwrap();
    assert_eq!(rest.len(), 7);
}

async fn fault_case(faults: Faults, timeout: Option<Duration>) -> (parq::Error, Arc<Faults>) {
    let file = int_file(40_000, 10_000);
    let (store, faults) = faulty(store_with("f.parquet", &file).await, faults);
    let read = ObjectReadOptions::default().with_request_timeout(timeout);
    let options = PushOptions::default().with_io(
        IoOptions::default()
            .with_coalesce_gap(0)
            .with_max_request_size(50_000),
    );
    let got = tokio::time::timeout(
        Duration::from_secs(20),
        remote_read(store, &Path::from("f.parquet"), read, options),
    )
    .await
    .expect("the read hung");
    match got {
        Ok(b) => panic!("the fault must fail the read ({} batches read)", b.len()),
        Err(e) => (e, faults),
    }
}

fn names_a_range(e: &parq::Error) -> Range<u64> {
    match e {
        parq::Error::Fetch {
            object,
            range: Some(r),
            ..
        } => {
            assert!(object.contains("f.parquet"), "{e}");
            assert!(
                e.to_string().contains(&format!("{}..{}", r.start, r.end)),
                "{e}"
            );
            r.clone()
        }
        other => panic!("not a fetch error naming a range: {other:?}"),
    }
}

#[tokio::test]
async fn a_failed_get_is_an_error_naming_the_object_and_range() {
    for k in [1, 2, 4] {
        let (e, _) = fault_case(
            Faults {
                fail_at: Some(k),
                ..Faults::default()
            },
            None,
        )
        .await;
        names_a_range(&e);
        assert!(e.to_string().contains("injected failure"), "{e}");
    }
}

/// A GET fetched ahead that fails comes as an error when the read needs its bytes: every
/// batch before that still comes, none is dropped for it.
#[tokio::test]
async fn a_failed_get_fetched_ahead_is_an_error_after_the_batches_before_it() {
    let file = int_file(100_000, 50_000);
    let store = store_with("f.parquet", &file).await;
    let options = |row_groups| {
        PushOptions::default()
            .with_read(ReadOptions::default().with_row_groups(row_groups))
            .with_batch_size(1000)
    };
    // The GETs of a read of row group 0 alone: the footer's, then its data.
    let (counted, faults) = faulty(Arc::clone(&store), Faults::default());
    let path = Path::from("f.parquet");
    let rg0 = remote_read(
        counted,
        &path,
        ObjectReadOptions::default(),
        options(Some(vec![0])),
    )
    .await
    .unwrap();
    assert_eq!(rg0.len(), 50);
    let first_group_gets = faults.gets.load(Ordering::SeqCst);
    // Fail the first GET of row group 1, fetched while row group 0 decodes.
    let (failing, faults) = faulty(
        store,
        Faults {
            fail_at: Some(first_group_gets + 1),
            ..Faults::default()
        },
    );
    let mut reader = ParqObjectReader::open(failing, &path).await.unwrap();
    let mut stream = reader.batches(options(None)).await.unwrap();
    let mut batches = 0;
    let e = loop {
        match stream.next().await {
            Some(Ok(_)) => batches += 1,
            Some(Err(e)) => break e,
            None => panic!("the failed GET must fail the read"),
        }
    };
    assert!(faults.gets.load(Ordering::SeqCst) > first_group_gets);
    assert!(e.to_string().contains("injected failure"), "{e}");
    assert_eq!(batches, 50, "the batches of row group 0 come first");
}

#[tokio::test]
async fn a_short_body_is_an_error() {
    for k in [1, 3] {
        let (e, _) = fault_case(
            Faults {
                short_at: Some(k),
                ..Faults::default()
            },
            None,
        )
        .await;
        let r = names_a_range(&e);
        assert!(
            e.to_string()
                .contains(&format!("bytes of {}", r.end - r.start)),
            "{e}"
        );
    }
}

#[tokio::test]
async fn a_stalled_get_times_out_and_cancels_the_rest() {
    let (e, faults) = fault_case(
        Faults {
            stall_at: Some(3),
            ..Faults::default()
        },
        Some(Duration::from_millis(300)),
    )
    .await;
    names_a_range(&e);
    assert!(e.to_string().contains("no answer within"), "{e}");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(faults.live.load(Ordering::SeqCst), 0, "GETs left running");
}

#[tokio::test]
async fn dropping_a_stream_cancels_its_gets() {
    let file = int_file(40_000, 10_000);
    let (store, faults) = faulty(
        store_with("f.parquet", &file).await,
        Faults {
            stall_at: Some(2),
            ..Faults::default()
        },
    );
    let mut reader = ParqObjectReader::open(store, &Path::from("f.parquet"))
        .await
        .unwrap();
    let mut batches = reader.batches(PushOptions::default()).await.unwrap();
    // Every data GET stalls; give up waiting and drop the stream.
    let waited = tokio::time::timeout(Duration::from_millis(200), batches.next()).await;
    assert!(waited.is_err(), "a stalled GET answered");
    assert!(faults.live.load(Ordering::SeqCst) >= 1);
    drop(batches);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(
        faults.live.load(Ordering::SeqCst),
        0,
        "the stalled GET outlived its stream"
    );
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[tokio::test]
async fn a_scan_reads_files_in_order_prunes_by_statistics_and_counts_progress() {
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let mut want_rows = Vec::new();
    for f in 0..6i64 {
        // File f holds a = f*1000 .. f*1000+999.
        let mut out = Vec::new();
        let mut w = ParquetWriter::new(&mut out, vec![Field::int64("a")], WriterOptions::default())
            .unwrap();
        let vals: Vec<i64> = (0..1000).map(|i| f * 1000 + i).collect();
        want_rows.push(vals.clone());
        w.write_batch(&[Column {
            len: 1000,
            validity: None,
            values: Values::Int64(vals.into()),
        }])
        .unwrap();
        w.finish().unwrap();
        store
            .put(&Path::from(format!("ds/part-{f}.parquet")), out.into())
            .await
            .unwrap();
    }
    store
        .put(&Path::from("ds/_SUCCESS"), Bytes::new().into())
        .await
        .unwrap();
    let cache = Arc::new(FooterCache::new(16));
    let options = ScanOptions::default()
        .with_predicate(Some(col("a").ge(2500).and(col("a").lt(4200))))
        .with_footer_cache(Some(Arc::clone(&cache)))
        .with_files_in_flight(3);
    let scan = Scan::prefix(Arc::clone(&store), &Path::from("ds"), options.clone())
        .await
        .unwrap();
    assert_eq!(scan.objects().len(), 6);
    let progress = scan.progress();
    let batches: Vec<ArrayBatch> = scan.batches().try_collect().await.unwrap();
    let got: Vec<i64> = batches
        .iter()
        .flat_map(|b| match &b.arrays[0] {
            parq::array::Array::Primitive(Column {
                values: Values::Int64(v),
                ..
            }) => v.to_vec(),
            other => panic!("{other:?}"),
        })
        .collect();
    // Files 2, 3 and 4 may match; the others are pruned whole; output in file order.
    let want: Vec<i64> = want_rows[2..5].concat();
    assert_eq!(got, want);
    let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    assert_eq!(load(&progress.files), 6);
    assert_eq!(load(&progress.files_opened), 6);
    assert_eq!(load(&progress.files_pruned), 3);
    assert_eq!(load(&progress.rows), 3000);
    assert_eq!(load(&progress.files_done), 6);
    assert_eq!(load(&progress.bytes_done), load(&progress.bytes));
    assert_eq!(cache.len(), 6);
    // A second scan reads every footer from the cache.
    probe::reset();
    let scan = Scan::prefix(store, &Path::from("ds"), options)
        .await
        .unwrap();
    let again: Vec<ArrayBatch> = scan.batches().try_collect().await.unwrap();
    assert_eq!(again.len(), batches.len());
    assert_eq!(probe::get("io.footer_cache_hit"), 6);
}

#[cfg(feature = "arrow")]
#[tokio::test]
async fn record_batches_stream_with_the_arrow_schema() {
    let store = store_with(
        "a.parquet",
        &Bytes::from(std::fs::read(data_dir().join("alltypes_plain.parquet")).unwrap()),
    )
    .await;
    let mut reader = ParqObjectReader::open(store, &Path::from("a.parquet"))
        .await
        .unwrap();
    let (schema, stream) = reader.record_batches(PushOptions::default()).await.unwrap();
    let batches: Vec<_> = stream.try_collect().await.unwrap();
    assert_eq!(schema.fields().len(), 11);
    assert_eq!(batches.iter().map(|b| b.num_rows()).sum::<usize>(), 8);
    fn send_static<T: Send + 'static>(_: &T) {}
    let (_, s) = reader.record_batches(PushOptions::default()).await.unwrap();
    send_static(&s);
}

/// The async `record_batches` asks the decoders for what the sync one asks
/// (`RecordBatchConverter`): the nested string leaves are checked for UTF-8 as their pages
/// are decoded and Utf8 leaves come with i32 offsets (probes), the batches equal the sync
/// reader's, and a value that is not UTF-8 is an error.
#[cfg(feature = "arrow")]
#[tokio::test]
async fn async_record_batches_ask_the_decoders_what_the_sync_ones_do() {
    use parq::write::EncodingPolicy;
    let read = |file: Bytes| async move {
        let store = store_with("n.parquet", &file).await;
        let mut reader = ParqObjectReader::open(store, &Path::from("n.parquet"))
            .await
            .unwrap();
        let options = PushOptions::default().with_batch_size(300);
        let (schema, stream) = reader.record_batches(options).await?;
        let batches: Vec<arrow_array::RecordBatch> = stream.try_collect().await?;
        Ok::<_, parq::Error>((schema, batches))
    };
    for encoding in [EncodingPolicy::Dictionary, EncodingPolicy::Plain] {
        let file = crate::arrow::nested_strings_file(encoding, None);
        let sync: Vec<arrow_array::RecordBatch> = ParquetReader::new(file.clone())
            .unwrap()
            .record_batches(parq::read::EVERY_FIELD, 300)
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        probe::reset();
        let (schema, batches) = read(file.clone()).await.expect("valid strings");
        assert_eq!(schema, sync[0].schema(), "{encoding:?}");
        assert_eq!(batches, sync, "{encoding:?}");
        if probe::ENABLED {
            assert_eq!(
                probe::get("arrow.utf8_checked_by_decoder"),
                3 * batches.len() as u64,
                "{encoding:?}"
            );
            assert!(probe::get("read.small_offsets") >= 30, "{encoding:?}");
        }
        let e = "é".as_bytes();
        for field in 0..3 {
            let bad = crate::arrow::nested_strings_file(encoding, Some((field, &e[..1])));
            let err = read(bad).await.expect_err("invalid UTF-8").to_string();
            assert!(err.contains("UTF-8"), "{encoding:?} field {field}: {err}");
        }
    }
}

/// S3 served by moto (`moto_server`, installed by `.ci/test`) on loopback.
#[cfg(feature = "cloud")]
mod s3 {
    use super::*;
    use parq::object_store::object_store::aws::AmazonS3Builder;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::process::{Child, Command, Stdio};

    struct Moto(Child);
    impl Drop for Moto {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// Start moto on a free loopback port and create `bucket`.
    fn moto(bucket: &str) -> (Moto, u16) {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server not found: pip install 'moto[server]'");
        let moto = Moto(child);
        for _ in 0..200 {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
                let req = format!("PUT /{bucket} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                s.write_all(req.as_bytes()).unwrap();
                let mut answer = String::new();
                let _ = s.read_to_string(&mut answer);
                assert!(
                    answer.starts_with("HTTP/1.1 200") || answer.starts_with("HTTP/1.0 200"),
                    "{answer}"
                );
                return (moto, port);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("moto_server did not start on port {port}");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn every_testing_file_from_s3_equals_the_local_read() {
        python::require_python!("moto.server");
        let (_moto, port) = moto("parq");
        let store: Arc<dyn ObjectStore> = Arc::new(
            AmazonS3Builder::new()
                .with_endpoint(format!("http://127.0.0.1:{port}"))
                .with_allow_http(true)
                .with_bucket_name("parq")
                .with_region("us-east-1")
                .with_access_key_id("test")
                .with_secret_access_key("test")
                .build()
                .unwrap(),
        );
        for name in testing_files() {
            let bytes = std::fs::read(data_dir().join(&name)).unwrap();
            store
                .put(&Path::from(format!("data/{name}")), bytes.into())
                .await
                .unwrap();
        }
        every_file_equals_local(Arc::clone(&store), "data/", ObjectReadOptions::default()).await;

        // The needle query against a real HTTP endpoint: at most four GETs.
        let file = int_file(1_000_000, 1 << 20);
        store
            .put(&Path::from("big.parquet"), file.clone().into())
            .await
            .unwrap();
        let (store, faults) = faulty(store, Faults::default());
        let options = PushOptions::default().with_read(ReadOptions::default().with_selection(
            Some(RowSelection::from_ranges(std::iter::once(123_456..123_457))),
        ));
        let got = remote_read(
            store,
            &Path::from("big.parquet"),
            ObjectReadOptions::default(),
            options,
        )
        .await
        .unwrap();
        assert_eq!(got.iter().map(|b| b.num_rows).sum::<usize>(), 1);
        assert!(faults.gets.load(Ordering::SeqCst) <= 4);
    }

    /// A file of several 5 MiB parts (S3's smallest) uploaded to moto by the object-store
    /// writer: the multipart upload completes, and the object equals the local file.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_multipart_upload_to_s3_equals_the_local_file() {
        python::require_python!("moto.server");
        let (_moto, port) = moto("parq-up");
        let store: Arc<dyn ObjectStore> = Arc::new(
            AmazonS3Builder::new()
                .with_endpoint(format!("http://127.0.0.1:{port}"))
                .with_allow_http(true)
                .with_bucket_name("parq-up")
                .with_region("us-east-1")
                .with_access_key_id("test")
                .with_secret_access_key("test")
                .build()
                .unwrap(),
        );
        let want = int_file(1_500_000, 250_000);
        let reader = ParquetReader::new(want.clone()).unwrap();
        let columns = [
            reader.read_column_by_path("a").unwrap(),
            reader.read_column_by_path("b").unwrap(),
        ];
        let fields = vec![Field::int64("a"), Field::int64("b")];
        let mut w = parq::object_store::ObjectWriter::new(
            Arc::clone(&store),
            Path::from("up/f.parquet"),
            fields.clone(),
            int_file_options(250_000),
            parq::object_store::ObjectWriteOptions::default().with_part_size(5 << 20),
        )
        .unwrap();
        w.write_batch(&columns).await.unwrap();
        let (_, object) = w.finish().await.unwrap();
        assert!(object.parts >= 2, "{} parts", object.parts);
        let got = store
            .get(&Path::from("up/f.parquet"))
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(got, want);
    }
}

#[tokio::test]
async fn a_scan_opens_files_ahead_while_earlier_ones_stream() {
    let memory: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let file = int_file(20_000, 10_000);
    for f in 0..6 {
        memory
            .put(&Path::from(format!("ds/{f}.parquet")), file.clone().into())
            .await
            .unwrap();
    }
    let (store, faults) = faulty(memory, Faults::default());
    let options = ScanOptions::default().with_files_in_flight(3);
    let scan = Scan::prefix(store, &Path::from("ds"), options)
        .await
        .unwrap();
    let mut batches = scan.batches();
    batches.next().await.unwrap().unwrap();
    for _ in 0..20 {
        tokio::task::yield_now().await;
    }
    // Three files opened (a footer GET each) and their row groups asked for, before the
    // first file is done.
    let gets = faults.gets.load(Ordering::SeqCst);
    assert!(gets >= 6, "{gets} GETs");
    let rest: Vec<ArrayBatch> = batches.try_collect().await.unwrap();
    assert_eq!(
        rest.iter().map(|b| b.num_rows).sum::<usize>() + 8192,
        6 * 20_000
    );
}

#[tokio::test]
async fn gets_asked_for_after_a_batch_start_before_the_next_batch() {
    // Eight row groups of 160 kB; the budget holds two, so each batch plans one more.
    let file = int_file(80_000, 10_000);
    let (store, faults) = faulty(store_with("f.parquet", &file).await, Faults::default());
    let mut reader = ParqObjectReader::open(store, &Path::from("f.parquet"))
        .await
        .unwrap();
    let options = PushOptions::default()
        .with_batch_size(10_000)
        .with_read(ReadOptions::default().with_max_memory(32 * 330_000));
    let mut batches = reader.batches(options).await.unwrap();
    // This (current-thread) test never waits itself: the GET of row group 2, asked for
    // after the second batch, runs only if the stream lets it.
    let mut seen = Vec::new();
    for _ in 0..3 {
        batches.next().await.unwrap().unwrap();
        seen.push(faults.gets.load(Ordering::SeqCst));
    }
    // Each batch's step planned another row group, whose GET has started by now.
    assert!(
        seen[0] < seen[1] && seen[1] < seen[2],
        "GETs started: {seen:?}"
    );
    let rest: Vec<_> = batches.try_collect().await.unwrap();
    assert_eq!(rest.len(), 5);
}

/// A stream's [`StreamStats`](parq::object_store::StreamStats) say what its decoder pruned,
/// as the stream runs and after it ends: by row-group statistics, then by the page index
/// (pages of 1000 rows), and the rows left.
#[tokio::test]
async fn a_stream_reports_what_its_decoder_pruned() {
    let file = int_file(40_000, 10_000);
    let store = store_with("ints.parquet", &file).await;
    let mut reader = ParqObjectReader::open(store, &Path::from("ints.parquet"))
        .await
        .unwrap();
    let footer = reader.footer().await.unwrap();
    let options = PushOptions::default()
        .with_projection(Some(vec!["b".into()]))
        .with_predicate(Some(col("a").ge(25_500i64)));
    let decoder = parq::read::push::PushDecoder::try_new(footer, options).unwrap();
    let (stream, stats) = reader.stream_with_stats(decoder);
    assert_eq!(stats.get(), parq::predicate::FilterStats::default());
    let batches: Vec<ArrayBatch> = stream.try_collect().await.unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows).sum();
    // The pages of 25,000..40,000: the predicate prunes, it does not filter.
    assert_eq!(rows, 15_000);
    let stats = stats.get();
    assert_eq!((stats.row_groups, stats.row_groups_pruned), (4, 2));
    assert_eq!(stats.pruned_by_statistics, 2);
    assert_eq!(stats.pages_pruned, 5);
    assert_eq!(stats.rows_selected, 15_000);
}
