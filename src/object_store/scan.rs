//! Multi-file scans: many objects, several in flight, batches in file order.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use ::object_store::path::Path;
use ::object_store::{ObjectMeta, ObjectStore};
use futures::{StreamExt, TryStreamExt};

use super::driver::ObjectReadOptions;
use super::reader::{BatchStream, FooterCache, ParqObjectReader};
use crate::predicate::Expr;
use crate::read::push::PushOptions;
use crate::{Error, Result};

/// Options of a [`Scan`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ScanOptions {
    /// What each file's decoder reads: projection, batch size, budgets. Its
    /// `read.row_groups` is replaced by the row groups the predicate leaves.
    pub push: PushOptions,
    /// How each file is fetched and decoded.
    pub read: ObjectReadOptions,
    /// Files opened ahead at once: their footers fetched, and their first row groups
    /// requested, while earlier files are read (at least 1).
    pub files_in_flight: usize,
    /// Row groups (and whole files) that their footer statistics rule out are not read;
    /// in the row groups left, page indexes, bloom filters and dictionary pages prune
    /// further ([`PushOptions::predicate`]). Pruning only: the batches hold every row that
    /// may match.
    pub predicate: Option<Expr>,
    /// Decoded footers shared with other scans and readers.
    pub footer_cache: Option<Arc<FooterCache>>,
}

impl Default for ScanOptions {
    fn default() -> Self {
        ScanOptions {
            push: PushOptions::default(),
            read: ObjectReadOptions::default(),
            files_in_flight: 4,
            predicate: None,
            footer_cache: None,
        }
    }
}

impl ScanOptions {
    /// These options with [`push`](Self::push) set to `v`.
    pub fn with_push(mut self, v: PushOptions) -> Self {
        self.push = v;
        self
    }

    /// These options with [`read`](Self::read) set to `v`.
    pub fn with_read(mut self, v: ObjectReadOptions) -> Self {
        self.read = v;
        self
    }

    /// These options with [`files_in_flight`](Self::files_in_flight) set to `v`.
    pub fn with_files_in_flight(mut self, v: usize) -> Self {
        self.files_in_flight = v;
        self
    }

    /// These options with [`predicate`](Self::predicate) set to `v`.
    pub fn with_predicate(mut self, v: Option<Expr>) -> Self {
        self.predicate = v;
        self
    }

    /// These options with [`footer_cache`](Self::footer_cache) set to `v`.
    pub fn with_footer_cache(mut self, v: Option<Arc<FooterCache>>) -> Self {
        self.footer_cache = v;
        self
    }
}

/// Counters of a running [`Scan`], updated as it goes (read them from any thread).
#[derive(Debug, Default)]
pub struct ScanProgress {
    /// Files in the scan.
    pub files: AtomicU64,
    /// Files whose footers were read.
    pub files_opened: AtomicU64,
    /// Files skipped whole: the predicate's statistics ruled out every row group.
    pub files_pruned: AtomicU64,
    /// Bytes in the scan's files.
    pub bytes: AtomicU64,
    /// Files finished: read to the end, or pruned whole.
    pub files_done: AtomicU64,
    /// Bytes of the files finished (their whole sizes).
    pub bytes_done: AtomicU64,
    /// Rows returned so far.
    pub rows: AtomicU64,
    /// Batches returned so far.
    pub batches: AtomicU64,
}

impl ScanProgress {
    fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Ordering::Relaxed);
    }
}

/// A scan over many Parquet objects of one store.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use futures::TryStreamExt;
/// use object_store::{memory::InMemory, path::Path, ObjectStore, ObjectStoreExt};
/// use parq::object_store::{Scan, ScanOptions};
///
/// let file = std::fs::read("testdata/parquet-testing/data/alltypes_plain.parquet").unwrap();
/// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
/// for name in ["t/1.parquet", "t/2.parquet"] {
///     store.put(&Path::from(name), file.clone().into()).await.unwrap();
/// }
/// let scan = Scan::prefix(store, &Path::from("t"), ScanOptions::default()).await?;
/// let progress = scan.progress();
/// let batches: Vec<_> = scan.batches().try_collect().await?;
/// assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 16);
/// assert_eq!(progress.rows.load(std::sync::atomic::Ordering::Relaxed), 16);
/// # Ok::<(), parq::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct Scan {
    store: Arc<dyn ObjectStore>,
    objects: Vec<ObjectMeta>,
    options: ScanOptions,
    progress: Arc<ScanProgress>,
}

impl Scan {
    /// A scan of `objects`, in the order given.
    pub fn new(
        store: Arc<dyn ObjectStore>,
        objects: Vec<ObjectMeta>,
        options: ScanOptions,
    ) -> Self {
        let progress = ScanProgress::default();
        ScanProgress::add(&progress.files, objects.len() as u64);
        ScanProgress::add(&progress.bytes, objects.iter().map(|o| o.size).sum());
        Scan {
            store,
            objects,
            options,
            progress: Arc::new(progress),
        }
    }

    /// A scan of the objects under `prefix` whose names end in `.parquet`, in path order
    /// (one listing).
    pub async fn prefix(
        store: Arc<dyn ObjectStore>,
        prefix: &Path,
        options: ScanOptions,
    ) -> Result<Self> {
        let mut objects: Vec<ObjectMeta> = store
            .list(Some(prefix))
            .try_filter(|o| futures::future::ready(o.location.as_ref().ends_with(".parquet")))
            .try_collect()
            .await
            .map_err(|e| Error::Fetch {
                object: format!("{store}/{prefix}"),
                range: None,
                source: Box::new(e),
            })?;
        objects.sort_by(|a, b| a.location.cmp(&b.location));
        Ok(Self::new(store, objects, options))
    }

    /// The scan's counters, shared: they keep counting while the stream runs.
    pub fn progress(&self) -> Arc<ScanProgress> {
        Arc::clone(&self.progress)
    }

    /// The objects scanned.
    pub fn objects(&self) -> &[ObjectMeta] {
        &self.objects
    }

    /// Every batch of every file, in file order. Up to
    /// [`ScanOptions::files_in_flight`] files are opened ahead; dropping the stream
    /// cancels all of their requests.
    pub fn batches(self) -> BatchStream {
        let Scan {
            store,
            objects,
            options,
            progress,
        } = self;
        let ahead = options.files_in_flight.max(1);
        let options = Arc::new(options);
        let p = Arc::clone(&progress);
        // Each file opens in a task of its own, so that its footer and first GETs make
        // progress while earlier files stream; dropping the scan aborts the tasks.
        let files = futures::stream::iter(objects).map(move |meta| {
            let (store, options, progress) =
                (Arc::clone(&store), Arc::clone(&options), Arc::clone(&p));
            AbortOnDrop(tokio::spawn(async move {
                open_file(store, meta, &options, progress).await
            }))
        });
        let batches = files
            .buffered(ahead)
            .try_filter_map(|s| futures::future::ready(Ok(s)))
            .try_flatten()
            .inspect_ok(move |b| {
                ScanProgress::add(&progress.rows, b.num_rows as u64);
                ScanProgress::add(&progress.batches, 1);
            });
        Box::pin(batches)
    }
}

/// Open one file: its footer, pruning, and a primed stream (`None` when pruned whole).
async fn open_file(
    store: Arc<dyn ObjectStore>,
    meta: ObjectMeta,
    options: &ScanOptions,
    progress: Arc<ScanProgress>,
) -> Result<Option<BatchStream>> {
    let size = meta.size;
    let mut reader = ParqObjectReader::new(store, meta).with_options(options.read.clone());
    if let Some(cache) = &options.footer_cache {
        reader = reader.with_footer_cache(Arc::clone(cache));
    }
    let footer = reader.footer().await?;
    ScanProgress::add(&progress.files_opened, 1);
    let mut push = options.push.clone();
    if let Some(expr) = &options.predicate {
        let mut keep = expr.row_groups_by_statistics(footer.metadata(), footer.schema())?;
        if let Some(asked) = &push.read.row_groups {
            keep.retain(|rg| asked.contains(rg));
        }
        if keep.is_empty() {
            ScanProgress::add(&progress.files_pruned, 1);
            ScanProgress::add(&progress.files_done, 1);
            ScanProgress::add(&progress.bytes_done, size);
            parq_codecs::probe::hit("io.files_pruned");
            return Ok(None);
        }
        push.read.row_groups = Some(keep);
        // The row groups left are pruned further by their page indexes, bloom filters and
        // dictionaries, fetched only for them.
        push.predicate = Some(expr.clone());
    }
    let decoder = reader.decoder_over(footer, push)?;
    // Counted done once its last batch has been taken.
    let done = futures::stream::once(async move {
        ScanProgress::add(&progress.files_done, 1);
        ScanProgress::add(&progress.bytes_done, size);
        None::<Result<crate::read::ArrayBatch>>
    })
    .filter_map(futures::future::ready);
    Ok(Some(Box::pin(reader.primed_stream(decoder).chain(done))))
}

/// A spawned task that is aborted when dropped, and whose panic or cancellation is an error.
struct AbortOnDrop(tokio::task::JoinHandle<Result<Option<BatchStream>>>);

impl std::future::Future for AbortOnDrop {
    type Output = Result<Option<BatchStream>>;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        std::pin::Pin::new(&mut self.0).poll(cx).map(|joined| {
            joined.unwrap_or_else(|e| {
                Err(Error::Fetch {
                    object: "a scanned file".into(),
                    range: None,
                    source: Box::new(e),
                })
            })
        })
    }
}

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
