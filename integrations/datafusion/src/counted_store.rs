//! An object store that counts the GETs of one file's scan, for the scan metrics
//! (`requests`, `bytes_fetched` in `EXPLAIN ANALYZE`).
//!
//! parq's own request counters are probes (thread-local, compiled in only with the `probes`
//! feature), which a query's metrics cannot use: the scan wraps the store DataFusion hands
//! the opener in a [`CountingStore`] instead, so every GET that parq's object reader and the
//! pruning step issue is counted where it happens.

use std::fmt;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;
use futures::stream::BoxStream;
use object_store::path::Path;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    PutMultipartOptions, PutOptions, PutPayload, PutResult, RenameOptions, Result,
};

/// Requests and bytes a file's reads cost.
#[derive(Debug, Default)]
pub struct FetchCounts {
    /// GET requests issued (a `get_ranges` call counts once per range).
    pub requests: AtomicU64,
    /// Bytes fetched.
    pub bytes: AtomicU64,
    /// Reads through the synchronous source of a file's metadata, fetched on demand (none
    /// when the footer holds what they read).
    pub on_demand: AtomicU64,
}

impl FetchCounts {
    fn add(&self, requests: u64, bytes: u64) {
        self.requests.fetch_add(requests, Ordering::Relaxed);
        self.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
}

/// `inner`, with its GETs counted in `counts`; every other call is passed through.
#[derive(Debug)]
pub struct CountingStore {
    inner: Arc<dyn ObjectStore>,
    counts: Arc<FetchCounts>,
}

impl CountingStore {
    /// Count the GETs made through `inner` in `counts`.
    pub fn new(inner: Arc<dyn ObjectStore>, counts: Arc<FetchCounts>) -> Self {
        CountingStore { inner, counts }
    }
}

impl fmt::Display for CountingStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.inner, f)
    }
}

#[async_trait]
impl ObjectStore for CountingStore {
    async fn put_opts(
        &self,
        location: &Path,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        self.inner.put_opts(location, payload, opts).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Path,
        opts: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(&self, location: &Path, options: GetOptions) -> Result<GetResult> {
        let head = options.head;
        let got = self.inner.get_opts(location, options).await?;
        let bytes = if head {
            0
        } else {
            got.range.end - got.range.start
        };
        self.counts.add(1, bytes);
        Ok(got)
    }

    async fn get_ranges(&self, location: &Path, ranges: &[Range<u64>]) -> Result<Vec<Bytes>> {
        let got = self.inner.get_ranges(location, ranges).await?;
        let bytes = got.iter().map(|b| b.len() as u64).sum();
        self.counts.add(ranges.len() as u64, bytes);
        Ok(got)
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Path>>,
    ) -> BoxStream<'static, Result<Path>> {
        self.inner.delete_stream(locations)
    }

    fn list(&self, prefix: Option<&Path>) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list(prefix)
    }

    fn list_with_offset(
        &self,
        prefix: Option<&Path>,
        offset: &Path,
    ) -> BoxStream<'static, Result<ObjectMeta>> {
        self.inner.list_with_offset(prefix, offset)
    }

    async fn list_with_delimiter(&self, prefix: Option<&Path>) -> Result<ListResult> {
        self.inner.list_with_delimiter(prefix).await
    }

    async fn copy_opts(&self, from: &Path, to: &Path, options: CopyOptions) -> Result<()> {
        self.inner.copy_opts(from, to, options).await
    }

    async fn rename_opts(&self, from: &Path, to: &Path, options: RenameOptions) -> Result<()> {
        self.inner.rename_opts(from, to, options).await
    }
}
