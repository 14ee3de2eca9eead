//! The object-store writers: files written in parts read back equal to the same file written
//! locally; the parts in flight stay within their budget; a file that fits in one part is one
//! PUT; a failed part, a failed `complete` and a stalled part give an error, abort the upload
//! and leave no object; dropping a writer unfinished aborts it and never completes it.

use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use parq::column::{Column, Values};
use parq::object_store::object_store::memory::InMemory;
use parq::object_store::object_store::path::Path;
use parq::object_store::object_store::{
    self as os, CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult,
    UploadPart,
};
use parq::object_store::{ObjectWriteOptions, ObjectWriter};
use parq::write::{Field, ParquetWriter, WriterOptions};

/// What the store does to uploads, and what it saw.
#[derive(Debug, Default)]
struct Faults {
    /// Fail the part with this number (1-based).
    fail_part: Option<usize>,
    /// Never answer the part with this number.
    stall_part: Option<usize>,
    /// Fail `complete`.
    fail_complete: bool,
    parts: AtomicUsize,
    puts: AtomicUsize,
    completes: AtomicUsize,
    aborts: AtomicUsize,
    /// Parts whose futures are alive now, and the most at once.
    live: AtomicUsize,
    most_live: AtomicUsize,
    /// Whether any part was sent after `complete` or `abort`.
    late_part: AtomicBool,
}

#[derive(Debug)]
struct FaultyStore {
    inner: Arc<dyn ObjectStore>,
    faults: Arc<Faults>,
}

impl fmt::Display for FaultyStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FaultyUploads({})", self.inner)
    }
}

#[derive(Debug)]
struct FaultyUpload {
    inner: Box<dyn MultipartUpload>,
    faults: Arc<Faults>,
    ended: bool,
}

struct Live(Arc<Faults>);
impl Live {
    fn new(f: &Arc<Faults>) -> Self {
        let now = f.live.fetch_add(1, Ordering::SeqCst) + 1;
        f.most_live.fetch_max(now, Ordering::SeqCst);
        Live(Arc::clone(f))
    }
}
impl Drop for Live {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
    }
}

fn injected() -> os::Error {
    os::Error::Generic {
        store: "faulty",
        source: "injected failure".into(),
    }
}

#[async_trait]
impl MultipartUpload for FaultyUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        if self.ended {
            self.faults.late_part.store(true, Ordering::SeqCst);
        }
        let n = self.faults.parts.fetch_add(1, Ordering::SeqCst) + 1;
        let faults = Arc::clone(&self.faults);
        let part = self.inner.put_part(data);
        Box::pin(async move {
            let _live = Live::new(&faults);
            // Parts take a while, so that several are in flight at once.
            tokio::time::sleep(Duration::from_millis(5)).await;
            if faults.stall_part == Some(n) {
                futures::future::pending::<()>().await;
            }
            if faults.fail_part == Some(n) {
                return Err(injected());
            }
            part.await
        })
    }

    async fn complete(&mut self) -> os::Result<PutResult> {
        self.ended = true;
        self.faults.completes.fetch_add(1, Ordering::SeqCst);
        if self.faults.fail_complete {
            return Err(injected());
        }
        self.inner.complete().await
    }

    async fn abort(&mut self) -> os::Result<()> {
        self.ended = true;
        self.faults.aborts.fetch_add(1, Ordering::SeqCst);
        self.inner.abort().await
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
        self.faults.puts.fetch_add(1, Ordering::SeqCst);
        self.inner.put_opts(p, payload, o).await
    }
    async fn put_multipart_opts(
        &self,
        p: &Path,
        o: PutMultipartOptions,
    ) -> os::Result<Box<dyn MultipartUpload>> {
        let inner = self.inner.put_multipart_opts(p, o).await?;
        Ok(Box::new(FaultyUpload {
            inner,
            faults: Arc::clone(&self.faults),
            ended: false,
        }))
    }
    async fn get_opts(&self, p: &Path, o: GetOptions) -> os::Result<GetResult> {
        self.inner.get_opts(p, o).await
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

fn faulty(faults: Faults) -> (Arc<dyn ObjectStore>, Arc<InMemory>, Arc<Faults>) {
    let memory = Arc::new(InMemory::new());
    let faults = Arc::new(faults);
    let store = Arc::new(FaultyStore {
        inner: Arc::clone(&memory) as Arc<dyn ObjectStore>,
        faults: Arc::clone(&faults),
    });
    (store, memory, faults)
}

const ROWS: i64 = 200_000;

fn fields() -> Vec<Field> {
    vec![Field::int64("id"), Field::double("x").optional()]
}

/// Row groups of 20,000 rows: ten of about 160 KB each, uncompressed.
fn options() -> WriterOptions {
    WriterOptions::default().with_row_group_rows(20_000)
}

fn batch(from: i64, rows: i64) -> Vec<Column> {
    let ids: Vec<i64> = (from..from + rows).collect();
    let xs: Vec<f64> = ids.iter().map(|&i| i as f64 * 0.5).collect();
    vec![
        Column {
            len: rows as usize,
            validity: None,
            values: Values::Int64(ids.into()),
        },
        Column {
            len: rows as usize,
            validity: None,
            values: Values::Double(xs.into()),
        },
    ]
}

/// The same rows written by the local writer.
fn local_file() -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields(), options()).unwrap();
    for from in (0..ROWS).step_by(10_000) {
        w.write_batch(&batch(from, 10_000)).unwrap();
    }
    w.finish().unwrap();
    out
}

/// Parts of 64 KiB, so that the file takes dozens.
fn small_parts() -> ObjectWriteOptions {
    ObjectWriteOptions::default()
        .with_part_size(64 << 10)
        .with_max_parts_in_flight(3)
}

/// A writer of [`fields`] into `out/f.parquet`.
fn writer(store: &Arc<dyn ObjectStore>, upload: ObjectWriteOptions) -> parq::Result<ObjectWriter> {
    ObjectWriter::new(
        Arc::clone(store),
        Path::from("out/f.parquet"),
        fields(),
        options(),
        upload,
    )
}

async fn write_all(store: &Arc<dyn ObjectStore>, upload: ObjectWriteOptions) -> parq::Result<()> {
    let mut w = writer(store, upload)?;
    for from in (0..ROWS).step_by(10_000) {
        w.write_batch(&batch(from, 10_000)).await?;
    }
    w.finish().await.map(|_| ())
}

async fn exists(memory: &InMemory) -> bool {
    memory.head(&Path::from("out/f.parquet")).await.is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_in_parts_equals_the_local_file_and_keeps_its_parts_in_flight_within_budget() {
    let (store, memory, faults) = faulty(Faults::default());
    let mut w = writer(&store, small_parts()).unwrap();
    for from in (0..ROWS).step_by(10_000) {
        w.write_batch(&batch(from, 10_000)).await.unwrap();
        assert!(!exists(&memory).await, "no object before finish");
    }
    let (metadata, object) = w.finish().await.unwrap();
    let want = local_file();
    let got = memory
        .get(&Path::from("out/f.parquet"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(
        got,
        Bytes::from(want.clone()),
        "the same bytes as the local writer"
    );
    assert_eq!(metadata.num_rows, ROWS);
    assert_eq!(object.size, want.len() as u64);
    assert_eq!(object.parts, want.len().div_ceil(64 << 10));
    assert_eq!(faults.parts.load(Ordering::SeqCst), object.parts);
    assert_eq!(faults.completes.load(Ordering::SeqCst), 1);
    assert_eq!(faults.aborts.load(Ordering::SeqCst), 0);
    assert_eq!(faults.puts.load(Ordering::SeqCst), 0);
    let most = faults.most_live.load(Ordering::SeqCst);
    assert!((2..=3).contains(&most), "{most} parts in flight at once");
    assert!(!faults.late_part.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_that_fits_in_one_part_is_one_put() {
    let (store, memory, faults) = faulty(Faults::default());
    write_all(&store, ObjectWriteOptions::default())
        .await
        .unwrap();
    assert!(exists(&memory).await);
    assert_eq!(faults.puts.load(Ordering::SeqCst), 1);
    assert_eq!(faults.parts.load(Ordering::SeqCst), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_part_aborts_the_upload_and_leaves_no_object() {
    let (store, memory, faults) = faulty(Faults {
        fail_part: Some(4),
        ..Faults::default()
    });
    let err = write_all(&store, small_parts()).await.unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("part 4") && text.contains("injected"),
        "{text}"
    );
    assert!(matches!(err, parq::Error::Upload { .. }), "{err:?}");
    assert_eq!(faults.completes.load(Ordering::SeqCst), 0);
    assert_eq!(faults.aborts.load(Ordering::SeqCst), 1);
    assert!(!exists(&memory).await);
    assert!(!faults.late_part.load(Ordering::SeqCst));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_complete_aborts_the_upload_and_leaves_no_object() {
    let (store, memory, faults) = faulty(Faults {
        fail_complete: true,
        ..Faults::default()
    });
    let err = write_all(&store, small_parts()).await.unwrap_err();
    assert!(err.to_string().contains("completing"), "{err}");
    assert_eq!(faults.completes.load(Ordering::SeqCst), 1);
    assert_eq!(faults.aborts.load(Ordering::SeqCst), 1);
    assert!(!exists(&memory).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_part_times_out_and_aborts() {
    let (store, memory, faults) = faulty(Faults {
        stall_part: Some(2),
        ..Faults::default()
    });
    let upload = small_parts().with_request_timeout(Duration::from_millis(300));
    let started = std::time::Instant::now();
    let err = write_all(&store, upload).await.unwrap_err();
    assert!(started.elapsed() < Duration::from_secs(20));
    assert!(
        err.to_string().contains("part 2") && err.to_string().contains("no answer"),
        "{err}"
    );
    assert_eq!(faults.completes.load(Ordering::SeqCst), 0);
    assert_eq!(faults.aborts.load(Ordering::SeqCst), 1);
    assert!(!exists(&memory).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_dropped_unfinished_aborts_and_never_completes() {
    let (store, memory, faults) = faulty(Faults::default());
    let mut w = writer(&store, small_parts()).unwrap();
    for from in (0..ROWS / 2).step_by(10_000) {
        w.write_batch(&batch(from, 10_000)).await.unwrap();
    }
    assert!(faults.parts.load(Ordering::SeqCst) > 0);
    drop(w);
    for _ in 0..200 {
        if faults.aborts.load(Ordering::SeqCst) == 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(faults.aborts.load(Ordering::SeqCst), 1);
    assert_eq!(faults.completes.load(Ordering::SeqCst), 0);
    assert!(!exists(&memory).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_explicit_abort_leaves_no_object_and_later_writes_after_a_failure_fail() {
    let (store, memory, faults) = faulty(Faults {
        fail_part: Some(1),
        ..Faults::default()
    });
    let mut w = writer(&store, small_parts()).unwrap();
    let mut failed = None;
    for from in (0..ROWS).step_by(10_000) {
        if let Err(e) = w.write_batch(&batch(from, 10_000)).await {
            failed = Some(e);
            break;
        }
    }
    assert!(failed.is_some(), "part 1 fails");
    let again = w.write_batch(&batch(0, 10)).await;
    let again = match again {
        Err(e) => e,
        Ok(()) => w.flush_row_group().await.unwrap_err(),
    };
    assert!(again.to_string().contains("failed"), "{again}");
    w.abort().await.unwrap();
    assert!(!exists(&memory).await);
    assert_eq!(faults.completes.load(Ordering::SeqCst), 0);

    // Abort on purpose, before anything failed.
    let (store, memory, faults) = faulty(Faults::default());
    let mut w = writer(&store, small_parts()).unwrap();
    w.write_batch(&batch(0, 50_000)).await.unwrap();
    w.abort().await.unwrap();
    assert_eq!(faults.aborts.load(Ordering::SeqCst), 1);
    assert!(!exists(&memory).await);
}

#[cfg(feature = "arrow")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn record_batches_written_to_a_store_equal_the_local_arrow_writer() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    let ids: Vec<i64> = (0..100_000).collect();
    let names: Vec<Option<String>> = ids
        .iter()
        .map(|i| (i % 7 != 0).then(|| format!("name-{i}")))
        .collect();
    let batch = RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
    ])
    .unwrap();
    let mut local =
        parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options()).unwrap();
    local.write(&batch).unwrap();
    let want = local.into_inner().unwrap();

    let (store, memory, faults) = faulty(Faults::default());
    let mut w = parq::object_store::AsyncArrowWriter::try_new(
        store,
        Path::from("out/f.parquet"),
        batch.schema(),
        options(),
        small_parts(),
    )
    .unwrap();
    w.write(&batch).await.unwrap();
    let (_, object) = w.finish().await.unwrap();
    assert!(object.parts > 1);
    assert_eq!(faults.completes.load(Ordering::SeqCst), 1);
    let got = memory
        .get(&Path::from("out/f.parquet"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    assert_eq!(got, Bytes::from(want));
}
