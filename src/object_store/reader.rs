//! One Parquet object: its footer (cached) and async streams of its batches.

use std::collections::{BTreeMap, HashMap};
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use ::object_store::path::Path;
use ::object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use bytes::Bytes;
use futures::Stream;

use super::driver::{Driver, Object, ObjectReadOptions};
use crate::read::push::{
    Footer, FooterDecoder, FooterOptions, FooterStep, PushDecoder, PushOptions,
};
use crate::read::ArrayBatch;
use crate::{Error, Result};

/// A `Send + 'static` stream of parq batches.
pub type BatchStream = Pin<Box<dyn Stream<Item = Result<ArrayBatch>> + Send>>;

/// What the pruning and filter of a stream's decoder did so far
/// ([`ParqObjectReader::stream_with_stats`]); readable while the stream runs and after it
/// is dropped.
#[derive(Debug, Clone, Default)]
pub struct StreamStats(Arc<Mutex<crate::predicate::FilterStats>>);

impl StreamStats {
    /// The counts as of the stream's last step.
    pub fn get(&self) -> crate::predicate::FilterStats {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Decoded footers shared across readers and scans, keyed by object path, size and
/// version (ETag, else last-modified time), so a replaced object is never served an old
/// footer.
///
/// Bounded by entries and by bytes ([`Footer::approx_size`]): when an insert goes over
/// either bound, the least recently used footers are evicted (probe
/// `io.footer_cache_evicted`). A footer larger than the byte bound is not kept. Lookups
/// and inserts cost O(log n) under one lock.
#[derive(Debug)]
pub struct FooterCache {
    max_entries: usize,
    max_bytes: usize,
    lru: Mutex<Lru>,
}

type FooterKey = (String, u64, String);

/// The entries and their use order: `order` maps each entry's last use to its key.
#[derive(Debug, Default)]
struct Lru {
    entries: HashMap<FooterKey, (Footer, usize, u64)>,
    order: BTreeMap<u64, FooterKey>,
    bytes: usize,
    clock: u64,
}

impl Lru {
    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    fn remove(&mut self, key: &FooterKey) {
        if let Some((_, size, used)) = self.entries.remove(key) {
            self.order.remove(&used);
            self.bytes -= size;
        }
    }
}

impl FooterCache {
    /// A cache of at most `max_entries` footers, of any size.
    pub fn new(max_entries: usize) -> Self {
        Self::bounded(max_entries, usize::MAX)
    }

    /// A cache of at most `max_entries` footers taking at most `max_bytes` together.
    pub fn bounded(max_entries: usize, max_bytes: usize) -> Self {
        FooterCache {
            max_entries,
            max_bytes,
            lru: Mutex::new(Lru::default()),
        }
    }

    fn key(meta: &ObjectMeta) -> FooterKey {
        let version = meta
            .e_tag
            .clone()
            .or_else(|| meta.version.clone())
            .unwrap_or_else(|| meta.last_modified.to_rfc3339());
        (meta.location.to_string(), meta.size, version)
    }

    /// The footer of `meta`'s object, when cached (it becomes the most recently used).
    pub fn get(&self, meta: &ObjectMeta) -> Option<Footer> {
        let mut lru = self.lru.lock().ok()?;
        let key = Self::key(meta);
        let now = lru.tick();
        let (footer, used) = {
            let (footer, _, used) = lru.entries.get_mut(&key)?;
            (footer.clone(), std::mem::replace(used, now))
        };
        lru.order.remove(&used);
        lru.order.insert(now, key);
        parq_codecs::probe::hit("io.footer_cache_hit");
        Some(footer)
    }

    /// Remember `footer` as that of `meta`'s object, evicting the least recently used
    /// footers beyond the bounds.
    pub fn insert(&self, meta: &ObjectMeta, footer: Footer) {
        let Ok(mut lru) = self.lru.lock() else {
            return;
        };
        let key = Self::key(meta);
        lru.remove(&key);
        let size = footer.approx_size();
        if self.max_entries == 0 || size > self.max_bytes {
            return;
        }
        while lru.entries.len() >= self.max_entries || lru.bytes + size > self.max_bytes {
            let Some((_, oldest)) = lru.order.pop_first() else {
                break;
            };
            lru.remove(&oldest);
            parq_codecs::probe::hit("io.footer_cache_evicted");
        }
        let now = lru.tick();
        lru.order.insert(now, key.clone());
        lru.bytes += size;
        lru.entries.insert(key, (footer, size, now));
    }

    /// Footers held.
    pub fn len(&self) -> usize {
        self.lru.lock().map_or(0, |l| l.entries.len())
    }

    /// Bytes the footers held take ([`Footer::approx_size`] summed).
    pub fn bytes(&self) -> usize {
        self.lru.lock().map_or(0, |l| l.bytes)
    }

    /// True when no footer is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A Parquet object in an object store, read asynchronously.
///
/// Opens from `(Arc<dyn ObjectStore>, ObjectMeta)` (what a listing gives, so opening costs
/// no request), from a path (one HEAD), or from a URL. The footer costs one GET when it
/// is under the footer suffix (64 KiB), two otherwise, and is cached when the reader has a
/// [`FooterCache`]. Streams of batches drive a [`PushDecoder`]; see [`super`] for where
/// decoding runs.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use futures::TryStreamExt;
/// use object_store::{memory::InMemory, path::Path, ObjectStore, ObjectStoreExt};
/// use parq::object_store::ParqObjectReader;
/// use parq::read::push::PushOptions;
///
/// let file = std::fs::read("testdata/parquet-testing/data/alltypes_plain.parquet").unwrap();
/// let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
/// store.put(&Path::from("t/a.parquet"), file.into()).await.unwrap();
///
/// let mut reader = ParqObjectReader::open(store, &Path::from("t/a.parquet")).await?;
/// let options = PushOptions::default().with_projection(Some(vec!["id".into()]));
/// let batches: Vec<_> = reader.batches(options).await?.try_collect().await?;
/// assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 8);
/// # Ok::<(), parq::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct ParqObjectReader {
    object: Object,
    meta: ObjectMeta,
    options: ObjectReadOptions,
    footer: Option<Footer>,
    /// The footer request's bytes before the footer, for the decoders (not cached).
    prefetched: Vec<(u64, Bytes)>,
    cache: Option<Arc<FooterCache>>,
    #[cfg(feature = "encryption")]
    decryption: Option<crate::encryption::FileDecryptionProperties>,
}

impl std::fmt::Debug for ParqObjectReader {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParqObjectReader")
            .field("object", &self.object.name)
            .field("size", &self.meta.size)
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

impl ParqObjectReader {
    /// The object `meta` of `store` (no request yet).
    pub fn new(store: Arc<dyn ObjectStore>, meta: ObjectMeta) -> Self {
        let name: Arc<str> = Arc::from(format!("{store}/{}", meta.location));
        ParqObjectReader {
            object: Object {
                store,
                path: meta.location.clone(),
                name,
            },
            meta,
            options: ObjectReadOptions::default(),
            footer: None,
            prefetched: Vec::new(),
            cache: None,
            #[cfg(feature = "encryption")]
            decryption: None,
        }
    }

    /// The object at `path` of `store`: one HEAD request for its size and version.
    pub async fn open(store: Arc<dyn ObjectStore>, path: &Path) -> Result<Self> {
        let meta = store.head(path).await.map_err(|e| Error::Fetch {
            object: format!("{store}/{path}"),
            range: None,
            source: Box::new(e),
        })?;
        Ok(Self::new(store, meta))
    }

    /// The object a URL names (`s3://`, `gs://`, `az://`, `file://`, `memory://`, ...),
    /// through `object_store`'s own URL parsing, with credentials and settings from the
    /// environment (`AWS_*`, `GOOGLE_*`, `AZURE_*`). Cloud schemes need the `cloud`
    /// feature.
    pub async fn open_url(url: &str) -> Result<Self> {
        let (store, path) = super::store_for_url(url)?;
        Self::open(store, &path).await
    }

    /// Fetch and decode with `options`.
    pub fn with_options(mut self, options: ObjectReadOptions) -> Self {
        self.options = options;
        self
    }

    /// Share decoded footers through `cache`.
    pub fn with_footer_cache(mut self, cache: Arc<FooterCache>) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Open with this footer, already decoded (no footer request).
    pub fn with_footer(mut self, footer: Footer) -> Self {
        self.footer = Some(footer);
        self
    }

    /// Keys of an encrypted file (feature `encryption`).
    #[cfg(feature = "encryption")]
    pub fn with_decryption(mut self, props: crate::encryption::FileDecryptionProperties) -> Self {
        self.decryption = Some(props);
        self
    }

    /// The object's listing entry.
    pub fn object_meta(&self) -> &ObjectMeta {
        &self.meta
    }

    /// The decoded footer: from the reader, the cache, or the store (one GET under the
    /// footer suffix, two above it).
    pub async fn footer(&mut self) -> Result<Footer> {
        if let Some(f) = &self.footer {
            return Ok(f.clone());
        }
        if let Some(f) = self.cache.as_ref().and_then(|c| c.get(&self.meta)) {
            self.footer = Some(f.clone());
            return Ok(f);
        }
        let options = FooterOptions {
            suffix_len: self.options.footer_suffix,
            #[cfg(feature = "encryption")]
            decryption: self.decryption.clone(),
            ..FooterOptions::default()
        };
        let mut decoder = FooterDecoder::new(self.meta.size, options);
        let footer = loop {
            match decoder.try_next()? {
                FooterStep::NeedsData(ranges) => {
                    for r in ranges {
                        let bytes = self
                            .object
                            .get(r.clone(), self.options.request_timeout)
                            .await?;
                        decoder.push(r.start, bytes);
                    }
                }
                FooterStep::Done(f) => break f,
            }
        };
        self.prefetched = decoder.prefetched();
        if let Some(c) = &self.cache {
            c.insert(&self.meta, footer.clone());
        }
        self.footer = Some(footer.clone());
        Ok(footer)
    }

    /// A push decoder of this object, with its footer. When this reader fetched the footer
    /// itself, the decoder holds the rest of that request's bytes: offset indexes, bloom
    /// filters or pages there cost no second GET.
    pub async fn decoder(&mut self, options: PushOptions) -> Result<PushDecoder> {
        let footer = self.footer().await?;
        self.decoder_over(footer, options)
    }

    /// A push decoder over `footer` (this object's), holding what the footer request
    /// fetched besides the footer; see [`Self::decoder`].
    pub fn decoder_over(&self, footer: Footer, options: PushOptions) -> Result<PushDecoder> {
        let mut decoder = PushDecoder::try_new(footer, options)?;
        for (offset, bytes) in &self.prefetched {
            decoder.hold(*offset, bytes.clone());
        }
        Ok(decoder)
    }

    /// Stream the batches `options` select (row groups, projection, selection, batch size),
    /// with GETs in flight ahead of decoding. Dropping the stream cancels its GETs.
    pub async fn batches(&mut self, options: PushOptions) -> Result<BatchStream> {
        let decoder = self.decoder(options).await?;
        Ok(self.stream(decoder))
    }

    /// Stream the batches of `decoder` (built over this object's footer). Its GETs start
    /// when the stream is first polled.
    pub fn stream(&self, decoder: PushDecoder) -> BatchStream {
        let driver = Driver::new(self.object.clone(), decoder, self.options.clone());
        driver_stream(driver)
    }

    /// As [`Self::stream`], with what the decoder's pruning and filter did ([`StreamStats`],
    /// kept up to date as the stream runs), for an engine's scan metrics.
    pub fn stream_with_stats(&self, decoder: PushDecoder) -> (BatchStream, StreamStats) {
        let stats = StreamStats::default();
        let driver = Driver::new(self.object.clone(), decoder, self.options.clone());
        let shared = stats.clone();
        let stream = Box::pin(futures::stream::unfold(driver, move |mut d| {
            let shared = shared.clone();
            async move {
                let next = d.next().await;
                if let Some(now) = d.filter_stats() {
                    *shared.0.lock().unwrap_or_else(|e| e.into_inner()) = now;
                }
                next.map(|b| (b, d))
            }
        }));
        (stream, stats)
    }

    /// As [`Self::stream`], with the first GETs started now (within a tokio runtime).
    pub(crate) fn primed_stream(&self, decoder: PushDecoder) -> BatchStream {
        let mut driver = Driver::new(self.object.clone(), decoder, self.options.clone());
        driver.prime();
        driver_stream(driver)
    }

    /// Stream Arrow `RecordBatch`es of what `options` select (feature `arrow`), with the
    /// Arrow schema of [`crate::arrow::to_arrow_schema`] (whole VARIANT groups as the
    /// extension type), as [`ParquetReader::record_batches`] gives them, the decoders doing
    /// what they can for the Arrow types (UTF-8 checks, i32 offsets, dictionary keys).
    ///
    /// [`ParquetReader::record_batches`]: crate::read::ParquetReader::record_batches
    #[cfg(feature = "arrow")]
    pub async fn record_batches(
        &mut self,
        mut options: PushOptions,
    ) -> Result<(arrow_schema::SchemaRef, RecordBatchStream)> {
        let footer = self.footer().await?;
        let mut converter =
            crate::arrow::RecordBatchConverter::for_own_push(&footer, &mut options)?;
        let schema = converter.schema();
        let batches = self.stream(self.decoder_over(footer, options)?);
        let stream =
            futures::StreamExt::map(batches, move |b| b.and_then(|b| converter.convert(&b)));
        Ok((schema, Box::pin(stream)))
    }
}

/// A `Send + 'static` stream of Arrow record batches (feature `arrow`).
#[cfg(feature = "arrow")]
pub type RecordBatchStream = Pin<Box<dyn Stream<Item = Result<arrow_array::RecordBatch>> + Send>>;

fn driver_stream(driver: Driver) -> BatchStream {
    Box::pin(futures::stream::unfold(driver, |mut d| async move {
        d.next().await.map(|b| (b, d))
    }))
}
