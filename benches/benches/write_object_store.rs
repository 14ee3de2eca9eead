//! Writing a Parquet file into a simulated remote store: every PUT and every part of a
//! multipart upload waits 25 ms plus 5 ns per byte (about 200 MB/s per request, the read
//! bench's model of an S3 request from a nearby region). The store counts the bytes and
//! drops them, as a remote store's memory is not the writer's: an in-memory store would
//! hold every part and copy them all into one object on `complete`, a cost (and a peak of
//! twice the object) that no writer pays against S3.
//!
//! Data: `PARQ_WRITE_STORE_MB` MB (default 256; the figure is 1024) of Arrow batches
//! of 65,536 rows, as their Arrow buffers count: `id` int64 (ascending), `ts` timestamp (µs),
//! `category` utf8 (64 values), `name` utf8 (20–70 random bytes), `value` float64, `qty`
//! int32. Snappy, row groups of 1 Mi rows (both writers' default), parts of 10 MiB.
//!
//! * `parq/in_flight`: `parq::object_store::AsyncArrowWriter`, up to 8 parts in flight
//!   (its default);
//! * `parq/one_at_a_time`: the same with one part in flight;
//! * `parquet/buf_writer`: the parquet crate's `AsyncArrowWriter` over object_store's
//!   `BufWriter` (10 MiB parts, up to 8 in flight: its defaults), what parquet 60 documents
//!   in place of `ParquetObjectWriter`.
//!
//! Before the timed runs the setup writes once with each and prints (stderr) the parts, the
//! most in flight at once, the object's size, and the peak heap the write allocated beyond
//! the input batches (a counting allocator) next to the bound parq documents: the open row
//! group (`buffered_bytes` at its largest) plus the parts in flight.
//!
//! A multi-thread runtime of 2 workers runs the uploads, as an engine's would: on a
//! current-thread runtime an upload task would not start its wait until the encoder yields.
//!
//! Run pinned to both cores of a 2-core machine: `cargo bench -p parq-benches --bench
//! write_object_store`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use arrow_array::{
    ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use async_trait::async_trait;
use criterion::{criterion_group, criterion_main, Criterion};
use futures::stream::BoxStream;
use object_store::buffered::BufWriter;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, UploadPart,
};
use parq::codecs::compression::CodecKind;
use parq::object_store::{AsyncArrowWriter, ObjectWriteOptions};
use parq::write::WriterOptions;
use parq_benches::{random_string, Rng};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

const BATCH_ROWS: usize = 65_536;
const PART: usize = 10 << 20;
const LATENCY: Duration = Duration::from_millis(25);
const PER_BYTE_NS: u64 = 5;

/// Live and peak heap bytes of the whole process.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is forwarded to the system allocator unchanged; the counters only add.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout is passed on as it came.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let live = LIVE.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(live, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `alloc` above with this layout.
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller's pointer, layout and size are passed on as they came.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            if new_size >= layout.size() {
                let grew = new_size - layout.size();
                let live = LIVE.fetch_add(grew, Ordering::Relaxed) + grew;
                PEAK.fetch_max(live, Ordering::Relaxed);
            } else {
                LIVE.fetch_sub(layout.size() - new_size, Ordering::Relaxed);
            }
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Parts, requests alive at once and their peak, and the bytes stored.
#[derive(Debug, Default)]
struct Counts {
    parts: AtomicUsize,
    bytes: AtomicUsize,
    live: AtomicUsize,
    max_live: AtomicUsize,
}

impl Counts {
    fn start(&self) -> Live<'_> {
        self.parts.fetch_add(1, Ordering::SeqCst);
        let live = self.live.fetch_add(1, Ordering::SeqCst) + 1;
        self.max_live.fetch_max(live, Ordering::SeqCst);
        Live(self)
    }
    fn reset(&self) {
        self.parts.store(0, Ordering::SeqCst);
        self.bytes.store(0, Ordering::SeqCst);
        self.max_live.store(0, Ordering::SeqCst);
    }
}

struct Live<'a>(&'a Counts);
impl Drop for Live<'_> {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
    }
}

/// The wait of a request carrying `bytes`.
fn wait(bytes: usize) -> Duration {
    LATENCY + Duration::from_nanos(PER_BYTE_NS * bytes as u64)
}

/// A remote-like store for writes: each PUT and each part waits [`wait`], is counted, and is
/// dropped (`inner` keeps empty objects, so that `complete` and `head` work).
#[derive(Debug)]
struct Remote {
    inner: Arc<dyn ObjectStore>,
    counts: Arc<Counts>,
}

impl fmt::Display for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Remote({})", self.inner)
    }
}

#[derive(Debug)]
struct SlowUpload {
    inner: Box<dyn MultipartUpload>,
    counts: Arc<Counts>,
}

#[async_trait]
impl MultipartUpload for SlowUpload {
    fn put_part(&mut self, data: PutPayload) -> UploadPart {
        let counts = Arc::clone(&self.counts);
        let delay = wait(data.content_length());
        counts
            .bytes
            .fetch_add(data.content_length(), Ordering::SeqCst);
        drop(data);
        Box::pin(async move {
            let _live = counts.start();
            tokio::time::sleep(delay).await;
            Ok(())
        })
    }
    async fn complete(&mut self) -> object_store::Result<PutResult> {
        tokio::time::sleep(LATENCY).await;
        self.inner.complete().await
    }
    async fn abort(&mut self) -> object_store::Result<()> {
        self.inner.abort().await
    }
}

#[async_trait]
impl ObjectStore for Remote {
    async fn put_opts(
        &self,
        p: &Path,
        payload: PutPayload,
        o: PutOptions,
    ) -> object_store::Result<PutResult> {
        let _live = self.counts.start();
        let n = payload.content_length();
        self.counts.bytes.fetch_add(n, Ordering::SeqCst);
        drop(payload);
        tokio::time::sleep(wait(n)).await;
        self.inner.put_opts(p, PutPayload::new(), o).await
    }
    async fn put_multipart_opts(
        &self,
        p: &Path,
        o: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        tokio::time::sleep(LATENCY).await;
        let inner = self.inner.put_multipart_opts(p, o).await?;
        Ok(Box::new(SlowUpload {
            inner,
            counts: Arc::clone(&self.counts),
        }))
    }
    async fn get_opts(&self, p: &Path, o: GetOptions) -> object_store::Result<GetResult> {
        self.inner.get_opts(p, o).await
    }
    fn delete_stream(
        &self,
        l: BoxStream<'static, object_store::Result<Path>>,
    ) -> BoxStream<'static, object_store::Result<Path>> {
        self.inner.delete_stream(l)
    }
    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        self.inner.list(prefix)
    }
    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> object_store::Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }
    async fn copy_opts(&self, from: &Path, to: &Path, o: CopyOptions) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, o).await
    }
}

fn schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("id", DataType::Int64, false),
        Field::new(
            "ts",
            DataType::Timestamp(TimeUnit::Microsecond, None),
            false,
        ),
        Field::new("category", DataType::Utf8, false),
        Field::new("name", DataType::Utf8, true),
        Field::new("value", DataType::Float64, true),
        Field::new("qty", DataType::Int32, false),
    ]))
}

/// Batches of about `mb` MB of Arrow buffers.
fn batches(mb: usize) -> Vec<RecordBatch> {
    let mut rng = Rng::new(42);
    let categories: Vec<String> = (0..64).map(|i| format!("category-{i:02}")).collect();
    let mut out = Vec::new();
    let (mut bytes, mut first) = (0usize, 0i64);
    while bytes < mb * 1_000_000 {
        let n = BATCH_ROWS;
        let id: ArrayRef = Arc::new(Int64Array::from_iter_values(first..first + n as i64));
        let ts: ArrayRef = Arc::new(TimestampMicrosecondArray::from_iter_values(
            (0..n as i64).map(|i| 1_700_000_000_000_000 + (first + i) * 1_000),
        ));
        let category: ArrayRef = Arc::new(StringArray::from_iter_values(
            (0..n).map(|_| categories[rng.below(64) as usize].as_str()),
        ));
        let name: ArrayRef =
            Arc::new(StringArray::from_iter((0..n).map(|_| {
                (!rng.chance(0.05)).then(|| random_string(&mut rng, 20, 70))
            })));
        let value: ArrayRef = Arc::new(Float64Array::from_iter(
            (0..n).map(|_| (!rng.chance(0.05)).then(|| rng.unit() * 1e6)),
        ));
        let qty: ArrayRef = Arc::new(Int32Array::from_iter_values(
            (0..n).map(|_| rng.below(1000) as i32),
        ));
        let batch =
            RecordBatch::try_new(schema(), vec![id, ts, category, name, value, qty]).unwrap();
        bytes += batch.get_array_memory_size();
        first += n as i64;
        out.push(batch);
    }
    out
}

fn parq_options() -> WriterOptions {
    WriterOptions::default().with_compression(CodecKind::Snappy)
}

/// What one write saw: the object's size as the writer reports it (0: ask the store), and
/// the open row group at its largest.
struct Wrote {
    size: u64,
    max_buffered: usize,
}

async fn write_parq(
    store: Arc<dyn ObjectStore>,
    batches: &[RecordBatch],
    in_flight: usize,
) -> Wrote {
    let upload = ObjectWriteOptions::default()
        .with_part_size(PART)
        .with_max_parts_in_flight(in_flight);
    let path = Path::from("out/parq.parquet");
    let mut w = AsyncArrowWriter::try_new(store, path, schema(), parq_options(), upload).unwrap();
    let mut max_buffered = 0;
    for b in batches {
        w.write(b).await.unwrap();
        max_buffered = max_buffered.max(w.buffered_bytes());
    }
    let (_, object) = w.finish().await.unwrap();
    Wrote {
        size: object.size,
        max_buffered,
    }
}

async fn write_parquet(store: Arc<dyn ObjectStore>, batches: &[RecordBatch]) -> Wrote {
    let path = Path::from("out/parquet.parquet");
    let sink = BufWriter::with_capacity(Arc::clone(&store), path.clone(), PART);
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut w = parquet::arrow::AsyncArrowWriter::try_new(sink, schema(), Some(props)).unwrap();
    let mut max_buffered = 0;
    for b in batches {
        w.write(b).await.unwrap();
        max_buffered = max_buffered.max(w.in_progress_size());
    }
    w.close().await.unwrap();
    // The store only counted the bytes: the caller reads the size there.
    Wrote {
        size: 0,
        max_buffered,
    }
}

/// `batches` written by parq's sync `ArrowWriter` into memory; the file's size.
fn encode_parq(batches: &[RecordBatch]) -> usize {
    let mut out = Vec::new();
    let mut w = parq::arrow::ArrowWriter::try_new(&mut out, schema(), parq_options()).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.finish().unwrap();
    out.len()
}

/// `batches` written by the parquet crate's sync `ArrowWriter` into memory; the file's size.
fn encode_parquet(batches: &[RecordBatch]) -> usize {
    let mut out = Vec::new();
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut out, schema(), Some(props)).unwrap();
    for b in batches {
        w.write(b).unwrap();
    }
    w.close().unwrap();
    out.len()
}

fn bench(c: &mut Criterion) {
    let mb = std::env::var("PARQ_WRITE_STORE_MB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(256usize);
    let batches = batches(mb);
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    let counts = Arc::new(Counts::default());
    let store = |counts: &Arc<Counts>| -> Arc<dyn ObjectStore> {
        Arc::new(Remote {
            inner: Arc::new(InMemory::new()),
            counts: Arc::clone(counts),
        })
    };
    eprintln!(
        "write_object_store: {rows} rows, {mb} MB of Arrow buffers, parts of {} MiB",
        PART >> 20
    );
    type Writer<'a> = (&'a str, usize);
    let writers: [Writer; 3] = [
        (
            "parq/in_flight",
            ObjectWriteOptions::default().max_parts_in_flight,
        ),
        ("parq/one_at_a_time", 1),
        ("parquet/buf_writer", 8),
    ];
    for (name, in_flight) in writers {
        counts.reset();
        let s = store(&counts);
        let base = LIVE.load(Ordering::SeqCst);
        PEAK.store(base, Ordering::SeqCst);
        let t = std::time::Instant::now();
        let wrote = rt.block_on(async {
            match name {
                "parquet/buf_writer" => write_parquet(s, &batches).await,
                _ => write_parq(s, &batches, in_flight).await,
            }
        });
        let secs = t.elapsed().as_secs_f64();
        let peak = PEAK.load(Ordering::SeqCst).saturating_sub(base);
        let stored = counts.bytes.load(Ordering::SeqCst) as u64;
        assert!(
            wrote.size == 0 || wrote.size == stored,
            "{name}: the writer says {} bytes, the store took {stored}",
            wrote.size
        );
        eprintln!(
            "write_object_store: {name}: {:.2} s, {} bytes, {} requests ({} at most at once), \
             peak heap beyond the input {:.1} MiB; open row group at most \
             {:.1} MiB, + {in_flight} parts in flight = {:.1} MiB",
            secs,
            stored,
            counts.parts.load(Ordering::SeqCst),
            counts.max_live.load(Ordering::SeqCst),
            peak as f64 / (1 << 20) as f64,
            wrote.max_buffered as f64 / (1 << 20) as f64,
            (wrote.max_buffered + in_flight * PART) as f64 / (1 << 20) as f64,
        );
    }
    // Encoding alone, into memory, on the calling thread: what neither store nor upload
    // costs, three runs each, the fastest printed.
    for name in ["parq/encode_only", "parquet/encode_only"] {
        let best = (0..3)
            .map(|_| {
                let t = std::time::Instant::now();
                let n = match name {
                    "parq/encode_only" => encode_parq(&batches),
                    _ => encode_parquet(&batches),
                };
                std::hint::black_box(n);
                t.elapsed().as_secs_f64()
            })
            .fold(f64::MAX, f64::min);
        eprintln!("write_object_store: {name}: {best:.2} s (best of 3)");
    }
    let mut g = c.benchmark_group("write_object_store");
    g.sample_size(10);
    g.measurement_time(Duration::from_secs(20));
    g.warm_up_time(Duration::from_secs(1));
    for (name, in_flight) in writers {
        g.bench_function(name, |b| {
            b.iter(|| {
                let s = store(&counts);
                rt.block_on(async {
                    match name {
                        "parquet/buf_writer" => write_parquet(s, &batches).await.size,
                        _ => write_parq(s, &batches, in_flight).await.size,
                    }
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
