//! The object as a synchronous parq [`Source`], for the readers of a file's schema and
//! metadata (from its footer, which reads nothing). The scan's data, and the page indexes,
//! bloom filters and dictionary pages it prunes by, go through parq's async object reader.
//! A read this source is asked for is fetched on demand, blocking, and counted in
//! [`FetchCounts::on_demand`].

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use parq::read::Source;

use crate::counted_store::FetchCounts;

/// Byte ranges of one object, fetched on demand and kept.
#[derive(Clone)]
pub(crate) struct StoreSource {
    store: Arc<dyn ObjectStore>,
    path: Path,
    len: u64,
    /// Fetched pieces by start offset.
    pieces: Arc<Mutex<Vec<(u64, Bytes)>>>,
    counts: Arc<FetchCounts>,
    runtime: tokio::runtime::Handle,
}

fn store_err(e: object_store::Error) -> parq::Error {
    parq::Error::Io(std::io::Error::other(e))
}

impl StoreSource {
    /// The object at `path` of `len` bytes; nothing is fetched yet. Call within a tokio
    /// runtime (on-demand reads block on it).
    pub fn new(
        store: Arc<dyn ObjectStore>,
        path: Path,
        len: u64,
        counts: Arc<FetchCounts>,
    ) -> Self {
        StoreSource {
            store,
            path,
            len,
            pieces: Arc::default(),
            counts,
            runtime: tokio::runtime::Handle::current(),
        }
    }

    fn lookup(&self, r: &Range<u64>) -> Option<Bytes> {
        let pieces = self.pieces.lock().expect("pieces lock");
        pieces.iter().find_map(|(start, b)| {
            let end = start + b.len() as u64;
            (*start <= r.start && r.end <= end)
                .then(|| b.slice((r.start - start) as usize..(r.end - start) as usize))
        })
    }
}

impl Source for StoreSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read(&self, range: Range<u64>) -> parq::Result<Bytes> {
        if range.start > range.end || range.end > self.len {
            return Err(parq::Error::format(format!(
                "byte range {}..{} outside the file of {} bytes",
                range.start, range.end, self.len
            )));
        }
        if let Some(b) = self.lookup(&range) {
            return Ok(b);
        }
        self.counts.on_demand.fetch_add(1, Ordering::Relaxed);
        let (store, path) = (Arc::clone(&self.store), self.path.clone());
        let r = range.clone();
        let bytes = self
            .runtime
            .block_on(async move { store.get_range(&path, r).await })
            .map_err(store_err)?;
        if bytes.len() as u64 != range.end - range.start {
            return Err(parq::Error::format(format!(
                "GET of {}..{} of {} returned {} bytes",
                range.start,
                range.end,
                self.path,
                bytes.len()
            )));
        }
        self.pieces
            .lock()
            .expect("pieces lock")
            .push((range.start, bytes.clone()));
        Ok(bytes)
    }
}
