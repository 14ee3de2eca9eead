//! The object as a synchronous parq [`Source`] for pruning: parq's pruning (page indexes,
//! bloom filters, dictionary pages) reads through a [`Source`], while the scan's data goes
//! through parq's async object reader.
//!
//! The opener prefetches what it knows pruning reads (the predicate columns' page indexes)
//! with one `get_ranges`; anything else pruning asks for (a bloom filter, a dictionary page)
//! is fetched on demand, blocking, and counted in [`FetchCounts::on_demand`]. Pruning runs
//! on a blocking thread, where blocking on the runtime is allowed.

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use parq::read::Source;

use crate::counted_store::FetchCounts;

/// Byte ranges of one object, fetched ahead or on demand.
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

    /// Fetch `ranges` (clamped to the object; empty ones skipped) with one `get_ranges`.
    pub async fn prefetch(&self, ranges: &[Range<u64>]) -> parq::Result<()> {
        let ranges: Vec<Range<u64>> = ranges
            .iter()
            .map(|r| r.start.min(self.len)..r.end.min(self.len))
            .filter(|r| r.start < r.end)
            .collect();
        if ranges.is_empty() {
            return Ok(());
        }
        let got = self
            .store
            .get_ranges(&self.path, &ranges)
            .await
            .map_err(store_err)?;
        let mut pieces = self.pieces.lock().expect("pieces lock");
        for (r, b) in ranges.iter().zip(got) {
            if b.len() as u64 != r.end - r.start {
                return Err(parq::Error::format(format!(
                    "GET of {}..{} of {} returned {} bytes",
                    r.start,
                    r.end,
                    self.path,
                    b.len()
                )));
            }
            pieces.push((r.start, b));
        }
        Ok(())
    }

    /// Every piece fetched so far, by start offset (shared, not copied).
    pub fn pieces(&self) -> Vec<(u64, Bytes)> {
        self.pieces.lock().expect("pieces lock").clone()
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
