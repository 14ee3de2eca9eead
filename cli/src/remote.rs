//! Objects named by URL (`s3://bucket/key`, `gs://`, `az://`, `file:///`, `memory:///`):
//! a synchronous [`Source`] over an object store, so every command reads them as files.
//!
//! The footer is read push-style (one GET when it is under 64 KiB); each later read is one
//! ranged GET. Credentials and endpoints come from the environment, as `object_store`
//! reads them (`AWS_ACCESS_KEY_ID`, `AWS_ENDPOINT`, `AWS_ALLOW_HTTP`, ...).

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use parq::object_store::object_store::path::Path;
use parq::object_store::object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};
use parq::read::{ParquetReader, ReadOptions, Source};

/// True when `arg` names an object by URL rather than a local path.
pub fn is_url(arg: &std::path::Path) -> bool {
    arg.to_str().is_some_and(|s| s.contains("://"))
}

/// An object read with ranged GETs, blocking on a runtime of its own.
pub struct ObjectSource {
    runtime: Arc<tokio::runtime::Runtime>,
    store: Arc<dyn ObjectStore>,
    path: Path,
    url: String,
    len: u64,
}

/// The runtime object reads block on: one worker thread, which also runs the GETs of a
/// multi-file scan.
pub fn runtime() -> parq::Result<tokio::runtime::Runtime> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()?)
}

impl ObjectSource {
    /// The object `meta` lists in `store`, named `name` in errors (no request).
    pub fn new(
        runtime: Arc<tokio::runtime::Runtime>,
        store: Arc<dyn ObjectStore>,
        meta: &ObjectMeta,
        name: String,
    ) -> Self {
        ObjectSource {
            runtime,
            store,
            path: meta.location.clone(),
            url: name,
            len: meta.size,
        }
    }

    /// The object `url` names (one HEAD request for its size).
    pub fn open(url: &str) -> parq::Result<Self> {
        let runtime = runtime()?;
        let (store, path) = parq::object_store::store_for_url(url)?;
        let meta = runtime
            .block_on(store.head(&path))
            .map_err(|e| parq::Error::Fetch {
                object: url.to_string(),
                range: None,
                source: Box::new(e),
            })?;
        Ok(ObjectSource {
            runtime: Arc::new(runtime),
            store,
            path,
            url: url.to_string(),
            len: meta.size,
        })
    }
}

impl Source for ObjectSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read(&self, range: Range<u64>) -> parq::Result<Bytes> {
        let fail = |e: Box<dyn std::error::Error + Send + Sync>| parq::Error::Fetch {
            object: self.url.clone(),
            range: Some(range.clone()),
            source: e,
        };
        if range.start > range.end || range.end > self.len {
            return Err(fail("outside the object".into()));
        }
        let bytes = self
            .runtime
            .block_on(self.store.get_range(&self.path, range.clone()))
            .map_err(|e| fail(Box::new(e)))?;
        if bytes.len() as u64 != range.end - range.start {
            return Err(fail(
                format!("the store answered {} bytes", bytes.len()).into(),
            ));
        }
        Ok(bytes)
    }
}

/// Open the object `url` names.
pub fn open(url: &str, options: ReadOptions) -> parq::Result<ParquetReader<ObjectSource>> {
    ParquetReader::with_options(ObjectSource::open(url)?, options)
}
