//! The fetch layer: byte ranges of one file from the object store DataFusion hands over, as a
//! [`parq::read::Source`] that parq decodes from.
//!
//! The opener asks for what it knows it needs in few requests (the footer by one suffix GET,
//! with the 4-byte leading magic beside it, then the column chunks of a scan by one `get_ranges`, which the store coalesces). parq then
//! reads from those bytes without copying. A read outside them (a bloom filter, a dictionary
//! page the predicate wants before the chunks are fetched, a writer's odd chunk offsets) is
//! fetched on demand, blocking, and counted: such reads run on a blocking thread, never on the
//! async runtime. This module is the one place that talks to the store, so a push decoder can
//! replace it without touching the rest.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use std::collections::HashMap;

use bytes::Bytes;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectMeta, ObjectStore, ObjectStoreExt};

/// The footer is fetched with one suffix GET of this many bytes; a larger footer costs one
/// more GET for the rest.
pub const FOOTER_PREFETCH: u64 = 64 * 1024;

/// Requests and bytes a file's reads cost, for metrics and tests.
#[derive(Debug, Default)]
pub struct FetchCounts {
    /// GET requests issued (a `get_ranges` call counts once per range).
    pub requests: AtomicU64,
    /// Bytes fetched.
    pub bytes: AtomicU64,
    /// Reads that were not prefetched and were fetched on demand.
    pub on_demand: AtomicU64,
}

impl FetchCounts {
    fn add(&self, requests: u64, bytes: u64) {
        self.requests.fetch_add(requests, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// The fetched footers (tail bytes and leading magic) of files, by path, size and version, so
/// that planning and every scan of a file fetch its footer once. Holds up to
/// [`FooterCache::CAPACITY`] files and starts over when full.
#[derive(Debug, Default)]
pub struct FooterCache {
    entries: Mutex<HashMap<FooterKey, Vec<(u64, Bytes)>>>,
}

/// A file's identity: a file rewritten in place has another size, time or tag.
type FooterKey = (Path, u64, i64, Option<String>);

impl FooterCache {
    /// Files held before the cache starts over.
    pub const CAPACITY: usize = 4096;

    fn key(meta: &ObjectMeta) -> FooterKey {
        (
            meta.location.clone(),
            meta.size,
            meta.last_modified.timestamp_nanos_opt().unwrap_or(0),
            meta.e_tag.clone(),
        )
    }

    fn get(&self, meta: &ObjectMeta) -> Option<Vec<(u64, Bytes)>> {
        let entries = self.entries.lock().expect("footer cache lock");
        entries.get(&Self::key(meta)).cloned()
    }

    fn put(&self, meta: &ObjectMeta, pieces: Vec<(u64, Bytes)>) {
        let mut entries = self.entries.lock().expect("footer cache lock");
        if entries.len() >= Self::CAPACITY {
            entries.clear();
        }
        entries.insert(Self::key(meta), pieces);
    }
}

/// Fetched ranges of one object, readable as a parq [`Source`](parq::read::Source).
#[derive(Clone)]
pub struct FetchedFile {
    store: Arc<dyn ObjectStore>,
    path: Path,
    len: u64,
    /// Fetched pieces, sorted by start, not overlapping.
    pieces: Arc<Mutex<Vec<(u64, Bytes)>>>,
    counts: Arc<FetchCounts>,
    runtime: tokio::runtime::Handle,
}

impl std::fmt::Debug for FetchedFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FetchedFile")
            .field("path", &self.path)
            .field("len", &self.len)
            .finish()
    }
}

fn store_err(e: object_store::Error) -> parq::Error {
    parq::Error::Io(std::io::Error::other(e))
}

impl FetchedFile {
    /// Open the object `meta`: its footer from `footers`, or else fetch its tail with one
    /// suffix GET (the rest of the footer with a second GET if it is longer than the
    /// prefetch) and keep it there.
    pub async fn open(
        store: Arc<dyn ObjectStore>,
        meta: &ObjectMeta,
        counts: Arc<FetchCounts>,
        footers: &FooterCache,
    ) -> parq::Result<Self> {
        let file = FetchedFile {
            store,
            path: meta.location.clone(),
            len: meta.size,
            pieces: Arc::default(),
            counts,
            runtime: tokio::runtime::Handle::current(),
        };
        if let Some(pieces) = footers.get(meta) {
            *file.pieces.lock().expect("fetch lock") = pieces;
            return Ok(file);
        }
        file.fetch_footer().await?;
        footers.put(meta, file.pieces.lock().expect("fetch lock").clone());
        Ok(file)
    }

    async fn fetch_footer(&self) -> parq::Result<()> {
        let (file, len) = (self, self.len);
        if len < 12 {
            return Err(parq::Error::format(format!(
                "file of {len} bytes is too small to be parquet"
            )));
        }
        let suffix = FOOTER_PREFETCH.min(len);
        let options = GetOptions {
            range: Some(GetRange::Suffix(suffix)),
            ..GetOptions::default()
        };
        // parq checks the leading magic too: when the suffix does not reach it, its 4 bytes
        // are fetched by a second request in flight at the same time.
        let tail = async {
            let got = file.store.get_opts(&file.path, options).await?;
            got.bytes().await
        };
        let head = async {
            if suffix < len {
                file.store.get_range(&file.path, 0..4).await.map(Some)
            } else {
                Ok(None)
            }
        };
        let (tail, head) = futures::try_join!(tail, head).map_err(store_err)?;
        if let Some(head) = head {
            file.counts.add(1, head.len() as u64);
            file.insert(0, head);
        }
        if tail.len() as u64 != suffix {
            return Err(parq::Error::format(format!(
                "suffix GET of {suffix} bytes returned {}",
                tail.len()
            )));
        }
        file.counts.add(1, suffix);
        let tail8: [u8; 8] = tail[tail.len() - 8..].try_into().expect("8 bytes");
        let footer_len = footer_len(&tail8)? as u64;
        let needed = footer_len.saturating_add(8);
        if needed > len {
            return Err(parq::Error::format(format!(
                "footer length {footer_len} does not fit in a file of {len} bytes"
            )));
        }
        file.insert(len - suffix, tail);
        if needed > suffix {
            let rest = len - needed..len - suffix;
            file.fetch(std::slice::from_ref(&rest)).await?;
        }
        Ok(())
    }

    /// Fetch `ranges` (clamped to the file, merged where they overlap or touch, skipping what
    /// is already here) with one `get_ranges` call, which the store may coalesce further.
    pub async fn fetch(&self, ranges: &[Range<u64>]) -> parq::Result<()> {
        let mut wanted: Vec<Range<u64>> = ranges
            .iter()
            .map(|r| r.start.min(self.len)..r.end.min(self.len))
            .filter(|r| r.start < r.end && !self.holds(r))
            .collect();
        wanted.sort_by_key(|r| r.start);
        let mut missing: Vec<Range<u64>> = Vec::with_capacity(wanted.len());
        for r in wanted {
            match missing.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => missing.push(r),
            }
        }
        if missing.is_empty() {
            return Ok(());
        }
        let got = self
            .store
            .get_ranges(&self.path, &missing)
            .await
            .map_err(store_err)?;
        let bytes: u64 = missing.iter().map(|r| r.end - r.start).sum();
        self.counts.add(missing.len() as u64, bytes);
        for (r, b) in missing.iter().zip(got) {
            if b.len() as u64 != r.end - r.start {
                return Err(parq::Error::format(format!(
                    "GET of {}..{} returned {} bytes",
                    r.start,
                    r.end,
                    b.len()
                )));
            }
            self.insert(r.start, b);
        }
        Ok(())
    }

    /// The fetch counters of this file's scan.
    pub fn counts(&self) -> &FetchCounts {
        &self.counts
    }

    fn holds(&self, r: &Range<u64>) -> bool {
        self.lookup(r).is_some()
    }

    fn lookup(&self, r: &Range<u64>) -> Option<Bytes> {
        let pieces = self.pieces.lock().expect("fetch lock");
        let i = pieces.partition_point(|(start, _)| *start <= r.start);
        let (start, bytes) = pieces.get(i.checked_sub(1)?)?;
        let end = start + bytes.len() as u64;
        (r.end <= end).then(|| bytes.slice((r.start - start) as usize..(r.end - start) as usize))
    }

    /// Keep `bytes` fetched at `start`. A piece that overlaps others replaces the ones it
    /// covers and is otherwise kept beside them (lookups search the piece starting last at or
    /// before a range, so pieces are kept disjoint by trimming the new one's overlap).
    fn insert(&self, start: u64, bytes: Bytes) {
        let mut pieces = self.pieces.lock().expect("fetch lock");
        let end = start + bytes.len() as u64;
        pieces.retain(|(s, b)| !(*s >= start && *s + b.len() as u64 <= end));
        let i = pieces.partition_point(|(s, _)| *s < start);
        pieces.insert(i, (start, bytes));
    }
}

/// The footer length from the last 8 bytes (length, then `PAR1`).
fn footer_len(tail8: &[u8; 8]) -> parq::Result<usize> {
    parq::metadata::parse_footer_len(tail8)
}

impl parq::read::Source for FetchedFile {
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
        // Not prefetched: fetch it now. Reads run on a blocking thread (see the module doc),
        // where blocking on the runtime is allowed.
        self.counts.on_demand.fetch_add(1, Ordering::Relaxed);
        let this = self.clone();
        let r = range.clone();
        self.runtime
            .block_on(async move { this.fetch(&[r]).await })?;
        self.lookup(&range)
            .ok_or_else(|| parq::Error::format("fetched range missing"))
    }
}
