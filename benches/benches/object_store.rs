//! Multi-file scans from a simulated remote store: object_store's `ThrottledStore`, 25 ms
//! per GET and 5 ns per byte (about 200 MB/s per request, like an S3 GET from a nearby
//! region), behind a wrapper that answers `get_ranges` as the HTTP stores do (coalesced,
//! up to 10 GETs at once), copies every body (as a network client fills fresh buffers) and
//! counts GETs and the most in flight at once.
//!
//! Data: `PARQ_STORE_FILES` files (default 64) of `PARQ_STORE_ROWS` rows (default 425,000:
//! about 16 MB each), written by pyarrow (`benches/gen_object_store_data.py`, run once
//! into `<target>/parq-bench-data/`; without python3 and pyarrow the bench says so and
//! stops): `id` int64, `ts` timestamp, `category` (64 strings), `name` (high-cardinality
//! strings), `value` double, `qty` int32; snappy, row groups of 131,072 rows. The scans
//! read `id`, `category`, `name` and `value` in batches of 8,192 rows, each dropped once
//! counted. One thread: a current-thread tokio runtime polls the GETs and decodes.
//!
//! * `scan/parq/in_flight`: `Scan`, 4 files in flight, a 16 MiB budget per file, up to 16
//!   GETs per file;
//! * `scan/parq/one_at_a_time`: the same scan with one file and one GET in flight;
//! * `scan/parq/decode_only`: the in-flight scan from the unthrottled store (the CPU bound);
//! * `scan/parquet/file_after_file`: the parquet crate's `ParquetRecordBatchStreamBuilder`
//!   over `ParquetObjectReader`, one file after the other (64 KiB footer hint);
//! * `scan/parquet/buffered_4`: the same, 4 files in flight: each file read to the end by a
//!   task of its own, in file order through `buffered` (the crate's own concurrency).
//! * `local/parq_object_store` and `local/parq_file_source`: one file of the dataset from
//!   the local disk, through `LocalFileSystem` and `Scan`, and through `ParquetReader` over
//!   a `FileSource` (what the object-store path costs on a local file).
//!
//! Before the timed runs the setup prints (stderr) the I/O bound of the in-flight scan
//! (bytes ÷ (200 MB/s × most GETs in flight) + one latency), the peak memory of the scans
//! (VmHWM over the resident set once the dataset is stored, so it is not counted) next to
//! their budgets and the largest decoded batch, and the GETs of a
//! needle query (one row of a 1M-row file with a page index) for parq and the parquet
//! crate.
//!
//! Run pinned: `taskset -c 1 cargo bench -p parq-benches --bench object_store`.

use std::fmt;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use object_store::local::LocalFileSystem;
use object_store::memory::InMemory;
use object_store::path::Path;
use object_store::throttle::{ThrottleConfig, ThrottledStore};
use object_store::{
    CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload, ObjectMeta,
    ObjectStore, ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};
use parq::column::{Column, Values};
use parq::object_store::{ObjectReadOptions, ParqObjectReader, Scan, ScanOptions};
use parq::read::push::PushOptions;
use parq::read::{FileSource, ParquetReader, ReadOptions, RowSelection};
use parq::write::{Field, ParquetWriter, WriterOptions};
use parquet::arrow::arrow_reader::{ArrowReaderOptions, RowSelection as PqSelection};
// The baseline; parquet 60 deprecates it in favour of hand-written `AsyncFileReader`s,
// and it is still what DataFusion-era code and the parquet docs use over object_store.
#[allow(deprecated)]
use parquet::arrow::async_reader::ParquetObjectReader;
use parquet::arrow::{ParquetRecordBatchStreamBuilder, ProjectionMask};
use parquet::file::metadata::PageIndexPolicy;

const BATCH: usize = 8192;
const PROJECTION: [&str; 4] = ["id", "category", "name", "value"];
const FILES_IN_FLIGHT: usize = 4;
const BUDGET_PER_FILE: u64 = 16 << 20;
const LATENCY: Duration = Duration::from_millis(25);
const PER_BYTE: Duration = Duration::from_nanos(5);

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(default)
}

/// The pyarrow-written dataset, generated on first use; `None` (with why, on stderr)
/// without python3 and pyarrow.
fn dataset(files: usize, rows: usize) -> Option<PathBuf> {
    // The bench runs as <target>/release/deps/object_store-HASH.
    let exe = std::env::current_exe().ok()?;
    let target = exe.ancestors().nth(3)?.to_path_buf();
    let dir = target.join(format!("parq-bench-data/object_store-{files}x{rows}"));
    if dir.join("DONE").exists() {
        return Some(dir);
    }
    let tmp = dir.with_extension(format!("tmp{}", std::process::id()));
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gen_object_store_data.py");
    eprintln!("object_store bench: writing {files} files with pyarrow into {dir:?} (once)");
    let status = std::process::Command::new("python3")
        .arg(&script)
        .arg(&tmp)
        .arg(files.to_string())
        .arg(rows.to_string())
        .status();
    if !matches!(status, Ok(s) if s.success()) {
        eprintln!(
            "object_store bench: SKIPPED: `python3 {}` failed ({status:?}); it needs python3 \
             with pyarrow (pip install pyarrow)",
            script.display()
        );
        let _ = std::fs::remove_dir_all(&tmp);
        return None;
    }
    std::fs::write(tmp.join("DONE"), b"").ok()?;
    if std::fs::rename(&tmp, &dir).is_err() {
        // Another run got there first.
        let _ = std::fs::remove_dir_all(&tmp);
    }
    Some(dir)
}

/// GETs counted, the most alive at once, and bytes answered.
#[derive(Debug, Default)]
struct Counts {
    gets: AtomicUsize,
    live: AtomicUsize,
    max_live: AtomicUsize,
    bytes: AtomicU64,
}

impl Counts {
    fn reset(&self) {
        self.gets.store(0, Ordering::SeqCst);
        self.max_live.store(0, Ordering::SeqCst);
        self.bytes.store(0, Ordering::SeqCst);
    }
}

/// A remote-like store over `inner`: `get_ranges` is the trait's default (coalesced GETs,
/// several at once, as the S3, GCS and Azure clients do; `ThrottledStore` and `InMemory`
/// would answer them as one call), bodies are copied when `copy` is set, GETs are counted.
#[derive(Debug)]
struct Remote {
    inner: Arc<dyn ObjectStore>,
    copy: bool,
    counts: Arc<Counts>,
}

impl fmt::Display for Remote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Remote({})", self.inner)
    }
}

struct Live<'a>(&'a Counts);
impl Drop for Live<'_> {
    fn drop(&mut self) {
        self.0.live.fetch_sub(1, Ordering::SeqCst);
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
        self.inner.put_opts(p, payload, o).await
    }
    async fn put_multipart_opts(
        &self,
        p: &Path,
        o: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(p, o).await
    }
    async fn get_opts(&self, p: &Path, o: GetOptions) -> object_store::Result<GetResult> {
        if o.head {
            return self.inner.get_opts(p, o).await;
        }
        let c = &self.counts;
        c.gets.fetch_add(1, Ordering::SeqCst);
        let live = c.live.fetch_add(1, Ordering::SeqCst) + 1;
        c.max_live.fetch_max(live, Ordering::SeqCst);
        let _live = Live(c);
        let r = self.inner.get_opts(p, o).await?;
        let (meta, range, attributes, extensions) = (
            r.meta.clone(),
            r.range.clone(),
            r.attributes.clone(),
            r.extensions.clone(),
        );
        // The whole body arrives (the per-byte wait included) before the GET answers.
        let body = r.bytes().await?;
        c.bytes.fetch_add(body.len() as u64, Ordering::SeqCst);
        let body = match self.copy {
            true => Bytes::copy_from_slice(&body),
            false => body,
        };
        Ok(GetResult {
            payload: GetResultPayload::Stream(futures::stream::once(async { Ok(body) }).boxed()),
            meta,
            range,
            attributes,
            extensions,
        })
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

fn throttled(inner: Arc<dyn ObjectStore>) -> Arc<dyn ObjectStore> {
    let config = ThrottleConfig {
        wait_get_per_call: LATENCY,
        wait_get_per_byte: PER_BYTE,
        ..ThrottleConfig::default()
    };
    Arc::new(ThrottledStore::new(inner, config))
}

fn remote(inner: Arc<dyn ObjectStore>, copy: bool) -> (Arc<dyn ObjectStore>, Arc<Counts>) {
    let counts = Arc::new(Counts::default());
    let store = Remote {
        inner,
        copy,
        counts: Arc::clone(&counts),
    };
    (Arc::new(store), counts)
}

async fn list(store: &Arc<dyn ObjectStore>, prefix: &str) -> Vec<ObjectMeta> {
    let mut o: Vec<ObjectMeta> = store
        .list(Some(&Path::from(prefix)))
        .try_collect()
        .await
        .unwrap();
    o.sort_by(|a, b| a.location.cmp(&b.location));
    o
}

/// What a scan saw: rows, and the largest decoded batch in bytes.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    rows: usize,
    max_batch_bytes: usize,
}

fn parq_options(files_in_flight: usize, requests: usize) -> ScanOptions {
    ScanOptions::default()
        .with_push(
            PushOptions::default()
                .with_batch_size(BATCH)
                .with_projection(Some(PROJECTION.iter().map(|s| (*s).into()).collect()))
                // The read's budget whose planned-ahead share is BUDGET_PER_FILE.
                .with_read(ReadOptions::default().with_max_memory(32 * BUDGET_PER_FILE)),
        )
        .with_read(ObjectReadOptions::default().with_max_requests_in_flight(requests))
        .with_files_in_flight(files_in_flight)
}

async fn parq_scan(store: &Arc<dyn ObjectStore>, objects: &[ObjectMeta], o: ScanOptions) -> Seen {
    let mut s = Scan::new(Arc::clone(store), objects.to_vec(), o).batches();
    let mut seen = Seen::default();
    while let Some(b) = s.next().await {
        let b = b.unwrap();
        seen.rows += b.num_rows;
        let bytes = b.arrays.iter().map(|a| a.decoded_bytes()).sum();
        seen.max_batch_bytes = seen.max_batch_bytes.max(bytes);
    }
    seen
}

/// One file through the parquet crate, tuned as its docs suggest (file size known, a
/// 64 KiB footer hint).
#[allow(deprecated)]
async fn parquet_file(
    store: Arc<dyn ObjectStore>,
    meta: ObjectMeta,
) -> Vec<arrow_array::RecordBatch> {
    let reader = ParquetObjectReader::new(store, meta.location)
        .with_file_size(meta.size)
        .with_footer_size_hint(64 << 10);
    let builder = ParquetRecordBatchStreamBuilder::new(reader).await.unwrap();
    let mask = ProjectionMask::columns(builder.parquet_schema(), PROJECTION);
    builder
        .with_projection(mask)
        .with_batch_size(BATCH)
        .build()
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

fn batch_bytes(b: &arrow_array::RecordBatch) -> usize {
    b.get_array_memory_size()
}

async fn parquet_scan(
    store: &Arc<dyn ObjectStore>,
    objects: &[ObjectMeta],
    files_in_flight: usize,
) -> Seen {
    let mut seen = Seen::default();
    let mut count = |batches: Vec<arrow_array::RecordBatch>| {
        for b in batches {
            seen.rows += b.num_rows();
            seen.max_batch_bytes = seen.max_batch_bytes.max(batch_bytes(&b));
        }
    };
    if files_in_flight <= 1 {
        for meta in objects {
            count(parquet_file(Arc::clone(store), meta.clone()).await);
        }
        return seen;
    }
    let files = futures::stream::iter(objects.to_vec()).map(|meta| {
        let task = tokio::spawn(parquet_file(Arc::clone(store), meta));
        async move { task.await.unwrap() }
    });
    let mut files = files.buffered(files_in_flight);
    while let Some(batches) = files.next().await {
        count(batches);
    }
    seen
}

/// This process's resident set and its peak since the last [`reset_peak`], in bytes.
fn rss() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb << 10)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// Reset the peak resident set (VmHWM) to the current one (Linux `clear_refs`).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

fn mib(b: u64) -> f64 {
    b as f64 / (1 << 20) as f64
}

/// The environment variable that makes the bench a child measuring one case's peak memory.
const MEMORY_CASE: &str = "PARQ_STORE_MEMORY_CASE";

/// The peak-memory cases, each with its budget as reported.
fn memory_cases() -> [(&'static str, String); 4] {
    let mib = BUDGET_PER_FILE >> 20;
    let total = FILES_IN_FLIGHT as u64 * mib;
    [
        (
            "parq_in_flight",
            format!("budget {FILES_IN_FLIGHT} files in flight x {mib} MiB = {total} MiB"),
        ),
        ("parq_one_at_a_time", format!("budget 1 file x {mib} MiB")),
        ("parquet_file_after_file", "no budget".into()),
        ("parquet_buffered_4", "no budget".into()),
    ]
}

/// Measure every case's peak memory, each in a child process of its own (a freed heap stays
/// resident, so a second scan in one process would read as free).
fn report_memory() {
    let Ok(exe) = std::env::current_exe() else {
        return;
    };
    for (case, _) in memory_cases() {
        match std::process::Command::new(&exe)
            .arg("--bench")
            .env(MEMORY_CASE, case)
            .output()
        {
            Ok(out) => eprint!("{}", String::from_utf8_lossy(&out.stderr)),
            Err(e) => eprintln!("object_store bench: peak memory {case} not measured: {e}"),
        }
    }
}

/// In a child: the peak resident set of one scan over `store` (whose bodies are fresh
/// copies) over the resident set once the dataset is stored.
fn measure_memory(
    case: &str,
    rt: &tokio::runtime::Runtime,
    store: &Arc<dyn ObjectStore>,
    objects: &[ObjectMeta],
) {
    let budget = memory_cases()
        .into_iter()
        .find(|(c, _)| *c == case)
        .map(|(_, b)| b)
        .unwrap_or_default();
    if !reset_peak() {
        eprintln!("object_store bench: peak memory not measured (no /proc/self/clear_refs)");
        return;
    }
    let (base, _) = rss();
    let seen = rt.block_on(async {
        match case {
            "parq_in_flight" => parq_scan(store, objects, parq_options(FILES_IN_FLIGHT, 16)).await,
            "parq_one_at_a_time" => parq_scan(store, objects, parq_options(1, 1)).await,
            "parquet_file_after_file" => parquet_scan(store, objects, 1).await,
            _ => parquet_scan(store, objects, FILES_IN_FLIGHT).await,
        }
    });
    let (_, peak) = rss();
    eprintln!(
        "object_store bench: peak memory {case}: {:.1} MiB over the baseline ({budget}; \
         largest decoded batch {:.2} MiB, one batch held at a time)",
        mib(peak.saturating_sub(base)),
        mib(seen.max_batch_bytes as u64)
    );
}

/// Two int64 columns of 1M rows in one row group, pages of 1000 rows, with a page index:
/// the file of tests/it/object_store.rs's needle query.
fn needle_file() -> Bytes {
    let rows = 1_000_000i64;
    let mut out = Vec::new();
    let options = WriterOptions::default()
        .with_data_page_row_limit(1000)
        .with_row_group_rows(1 << 20)
        .with_page_index(true);
    let mut w = ParquetWriter::new(
        &mut out,
        vec![Field::int64("a"), Field::int64("b")],
        options,
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

/// GETs (and bytes) of one row of the needle file, parq against the parquet crate.
fn report_needle(rt: &tokio::runtime::Runtime) {
    let file = needle_file();
    let memory: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let path = Path::from("needle.parquet");
    rt.block_on(memory.put(&path, file.clone().into())).unwrap();
    let (store, counts) = remote(memory, false);
    let row = 777_000;
    let rows = rt.block_on(async {
        let mut reader = ParqObjectReader::open(Arc::clone(&store), &path)
            .await
            .unwrap();
        let options = PushOptions::default().with_read(ReadOptions::default().with_selection(
            Some(RowSelection::from_ranges(std::iter::once(row..row + 1))),
        ));
        let batches: Vec<_> = reader
            .batches(options)
            .await
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        batches.iter().map(|b| b.num_rows).sum::<usize>()
    });
    assert_eq!(rows, 1);
    let parq = (
        counts.gets.load(Ordering::SeqCst),
        counts.bytes.load(Ordering::SeqCst),
    );
    counts.reset();
    let rows = rt.block_on(async {
        let meta = store.head(&path).await.unwrap();
        #[allow(deprecated)]
        let reader = ParquetObjectReader::new(Arc::clone(&store), meta.location)
            .with_file_size(meta.size)
            .with_footer_size_hint(64 << 10);
        let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
        let builder = ParquetRecordBatchStreamBuilder::new_with_options(reader, options)
            .await
            .unwrap();
        let selection = PqSelection::from_consecutive_ranges(
            std::iter::once(row as usize..row as usize + 1),
            1_000_000,
        );
        let batches: Vec<_> = builder
            .with_row_selection(selection)
            .build()
            .unwrap()
            .try_collect()
            .await
            .unwrap();
        batches.iter().map(|b| b.num_rows()).sum::<usize>()
    });
    assert_eq!(rows, 1);
    let parquet = (
        counts.gets.load(Ordering::SeqCst),
        counts.bytes.load(Ordering::SeqCst),
    );
    eprintln!(
        "object_store bench: needle query (row {row} of 1M, 2 int64 columns, page index, \
         {} bytes): parq {} GETs / {} bytes, parquet crate {} GETs / {} bytes",
        file.len(),
        parq.0,
        parq.1,
        parquet.0,
        parquet.1
    );
}

fn bench(c: &mut Criterion) {
    let files = env("PARQ_STORE_FILES", 64);
    let rows = env("PARQ_STORE_ROWS", 425_000);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let child = std::env::var(MEMORY_CASE).ok();
    if child.is_none() {
        report_needle(&rt);
    }
    let Some(dir) = dataset(files, rows) else {
        return;
    };
    if child.is_none() {
        report_memory();
    }

    let memory: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let mut bytes = 0;
    let mut names = Vec::new();
    rt.block_on(async {
        for f in 0..files {
            let name = format!("part-{f:03}.parquet");
            let data = std::fs::read(dir.join(&name)).unwrap();
            bytes += data.len();
            memory
                .put(&Path::from(format!("ds/{name}")), data.into())
                .await
                .unwrap();
            names.push(name);
        }
    });
    let objects = rt.block_on(list(&memory, "ds"));
    let (store, counts) = remote(throttled(Arc::clone(&memory)), true);
    let total_rows = files * rows;
    if let Some(case) = child {
        measure_memory(&case, &rt, &store, &objects);
        std::process::exit(0);
    }

    // The I/O bound of the in-flight scan, from what it fetched and how many GETs it had
    // in flight at once.
    counts.reset();
    let seen = rt.block_on(parq_scan(
        &store,
        &objects,
        parq_options(FILES_IN_FLIGHT, 16),
    ));
    assert_eq!(seen.rows, total_rows);
    let (got, gets, max_live) = (
        counts.bytes.load(Ordering::SeqCst),
        counts.gets.load(Ordering::SeqCst),
        counts.max_live.load(Ordering::SeqCst),
    );
    let bound = got as f64 * PER_BYTE.as_secs_f64() / max_live as f64 + LATENCY.as_secs_f64();
    eprintln!(
        "object_store bench: {files} files, {bytes} bytes, {total_rows} rows; the in-flight \
         scan fetched {got} bytes in {gets} GETs, at most {max_live} at once: I/O bound \
         {bound:.3} s"
    );
    counts.reset();
    let seen = rt.block_on(parquet_scan(&store, &objects, FILES_IN_FLIGHT));
    assert_eq!(seen.rows, total_rows);
    eprintln!(
        "object_store bench: the parquet crate (buffered_4) fetched {} bytes in {} GETs, at \
         most {} at once",
        counts.bytes.load(Ordering::SeqCst),
        counts.gets.load(Ordering::SeqCst),
        counts.max_live.load(Ordering::SeqCst)
    );

    let mut g = c.benchmark_group("object_store");
    g.sample_size(10);
    let run_parq = |store: &Arc<dyn ObjectStore>, o: ScanOptions| {
        let seen = rt.block_on(parq_scan(store, &objects, o));
        assert_eq!(seen.rows, total_rows);
    };
    g.bench_function("scan/parq/in_flight", |b| {
        b.iter(|| run_parq(&store, parq_options(FILES_IN_FLIGHT, 16)))
    });
    g.bench_function("scan/parq/decode_only", |b| {
        b.iter(|| run_parq(&memory, parq_options(FILES_IN_FLIGHT, 16)))
    });
    g.bench_function("scan/parq/one_at_a_time", |b| {
        b.iter(|| run_parq(&store, parq_options(1, 1)))
    });
    for (name, k) in [("file_after_file", 1), ("buffered_4", FILES_IN_FLIGHT)] {
        g.bench_function(format!("scan/parquet/{name}"), |b| {
            b.iter(|| {
                let seen = rt.block_on(parquet_scan(&store, &objects, k));
                assert_eq!(seen.rows, total_rows);
            })
        });
    }

    // One file from the local disk: the object-store path against a FileSource.
    let one = dir.join(&names[0]);
    let local: Arc<dyn ObjectStore> = Arc::new(LocalFileSystem::new_with_prefix(&dir).unwrap());
    let local_objects: Vec<ObjectMeta> = rt
        .block_on(list(&local, ""))
        .into_iter()
        .filter(|o| o.location.as_ref() == names[0])
        .collect();
    let want = ParquetReader::new(FileSource::open(&one).unwrap())
        .unwrap()
        .metadata()
        .num_rows as usize;
    g.bench_function("local/parq_object_store", |b| {
        b.iter(|| {
            let seen = rt.block_on(parq_scan(&local, &local_objects, parq_options(1, 16)));
            assert_eq!(seen.rows, want);
        })
    });
    g.bench_function("local/parq_file_source", |b| {
        b.iter(|| {
            let reader = ParquetReader::new(FileSource::open(&one).unwrap()).unwrap();
            let mut n = 0;
            for batch in reader.array_batches(&PROJECTION, BATCH).unwrap() {
                n += batch.unwrap().num_rows;
            }
            assert_eq!(n, want);
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
