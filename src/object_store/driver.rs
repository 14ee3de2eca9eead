//! The async driver of a [`PushDecoder`] over an object store: several GETs in flight.
//!
//! The driver asks the decoder what it wants, starts GETs for it (up to
//! [`ObjectReadOptions::max_requests_in_flight`] requests; the bytes are those the decoder
//! planned, bounded by the read's memory budget), and pushes each answer as it lands.
//! After every batch it asks again, so the next row groups (as many as the decoder's memory
//! budget plans) are fetched while the current one decodes. Each GET runs as its own tokio
//! task, so it makes progress while the stream's consumer is busy; the tasks live in a
//! `JoinSet`, so dropping the stream aborts them. A store whose requests progress without
//! being polled (a local file system reads on tokio's blocking pool) can have its GETs
//! polled by the stream itself instead ([`ObjectReadOptions::fetch_on_tasks`]), which saves
//! a task and its wake-ups per GET.

use std::collections::HashSet;
use std::future::Future;
use std::ops::Range;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use ::object_store::path::Path;
use ::object_store::{ObjectStore, ObjectStoreExt};
use bytes::Bytes;
use futures::future::BoxFuture;
use futures::stream::{FuturesUnordered, StreamExt};
use parq_codecs::probe;
use tokio::task::JoinSet;

use crate::read::push::{DecodeResult, PushDecoder};
use crate::read::ArrayBatch;
use crate::{Error, Result};

/// How the async readers fetch and decode.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ObjectReadOptions {
    /// GETs in flight at once, at most (at least 1).
    pub max_requests_in_flight: usize,
    /// Give up on a GET after this long, with an error naming the object and range. `None`
    /// (the default) leaves timeouts to the store (an HTTP store's `ClientOptions`); a
    /// timed-out GET is not retried here, retries are the store's.
    pub request_timeout: Option<Duration>,
    /// Where decoding runs: `false` (the default) on the task that polls the stream, so a
    /// batch's decoding occupies that runtime thread; `true` on tokio's blocking pool
    /// (`spawn_blocking`), which keeps the runtime's threads free for I/O. On the pool, one
    /// step decodes up to [`BATCHES_PER_BLOCKING_STEP`] batches while their bytes are there,
    /// so a scan costs a round trip per few batches, not per batch.
    pub decode_on_blocking_pool: bool,
    /// The first (suffix) request of a footer.
    pub footer_suffix: u64,
    /// Whether each GET runs as a tokio task of its own, so that it makes progress while
    /// the stream's consumer is busy. `false` polls the GETs on the task that polls the
    /// stream: right for a store whose requests progress without being polled once
    /// started, as `object_store`'s `LocalFileSystem` (its reads run on tokio's blocking
    /// pool) and `InMemory` do, and it saves a task and its wake-ups per GET. An HTTP
    /// store's response is read only while its GET is polled: there it must be `true`.
    /// `None` (the default): `false` for `LocalFileSystem` and `InMemory`, known by their
    /// names (a wrapper hides them, and keeps the tasks), `true` for every other store.
    pub fetch_on_tasks: Option<bool>,
}

impl Default for ObjectReadOptions {
    fn default() -> Self {
        ObjectReadOptions {
            max_requests_in_flight: 16,
            request_timeout: None,
            decode_on_blocking_pool: false,
            footer_suffix: crate::read::push::DEFAULT_FOOTER_SUFFIX,
            fetch_on_tasks: None,
        }
    }
}

impl ObjectReadOptions {
    /// These options with [`max_requests_in_flight`](Self::max_requests_in_flight) set to `v`.
    pub fn with_max_requests_in_flight(mut self, v: usize) -> Self {
        self.max_requests_in_flight = v;
        self
    }

    /// These options with [`request_timeout`](Self::request_timeout) set to `v`.
    pub fn with_request_timeout(mut self, v: Option<Duration>) -> Self {
        self.request_timeout = v;
        self
    }

    /// These options with [`decode_on_blocking_pool`](Self::decode_on_blocking_pool) set to `v`.
    pub fn with_decode_on_blocking_pool(mut self, v: bool) -> Self {
        self.decode_on_blocking_pool = v;
        self
    }

    /// These options with [`fetch_on_tasks`](Self::fetch_on_tasks) set to `v`.
    pub fn with_fetch_on_tasks(mut self, v: Option<bool>) -> Self {
        self.fetch_on_tasks = v;
        self
    }

    /// These options with [`footer_suffix`](Self::footer_suffix) set to `v`.
    pub fn with_footer_suffix(mut self, v: u64) -> Self {
        self.footer_suffix = v;
        self
    }
}

/// Batches one blocking-pool step decodes at most (when their bytes are there): each step is
/// a round trip through tokio's blocking pool (two thread wake-ups), which per batch of 8192
/// rows cost DataFusion's TPC-H Q6 about 2,000 context switches and ~60 ms of system time.
pub const BATCHES_PER_BLOCKING_STEP: usize = 8;

/// One object to GET from.
#[derive(Clone)]
pub(crate) struct Object {
    pub store: Arc<dyn ObjectStore>,
    pub path: Path,
    /// Named by errors.
    pub name: Arc<str>,
}

impl Object {
    /// The error of a GET of `range` that failed with `e`.
    pub fn fetch_error(
        &self,
        range: Range<u64>,
        e: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Error {
        Error::Fetch {
            object: self.name.to_string(),
            range: Some(range),
            source: e.into(),
        }
    }

    /// GET `range`, checked: a short or long body is an error naming the range.
    pub async fn get(&self, range: Range<u64>, timeout: Option<Duration>) -> Result<Bytes> {
        probe::hit("io.get_requests");
        probe::hit_n("io.get_bytes", range.end - range.start);
        let get = self.store.get_range(&self.path, range.clone());
        let got = match timeout {
            Some(t) => match tokio::time::timeout(t, get).await {
                Ok(r) => r,
                Err(_) => {
                    return Err(self.fetch_error(range, format!("no answer within {t:?}")));
                }
            },
            None => get.await,
        };
        let bytes = got.map_err(|e| self.fetch_error(range.clone(), e))?;
        let want = range.end - range.start;
        if bytes.len() as u64 != want {
            return Err(self.fetch_error(
                range,
                format!("the store answered {} bytes of {want}", bytes.len()),
            ));
        }
        Ok(bytes)
    }
}

/// Whether `store` is one of `object_store`'s stores whose GETs progress without being
/// polled: local files (read on tokio's blocking pool) and memory (answered at once). Known
/// by the store's name.
fn answers_unpolled(store: &dyn ObjectStore) -> bool {
    let name = store.to_string();
    name.starts_with("LocalFileSystem(") || name == "InMemory"
}

/// What a GET task gives back: its range and its bytes or error.
type Answer = (Range<u64>, Result<Bytes>);

/// The GETs in flight: tokio tasks of their own, or futures the stream polls
/// ([`ObjectReadOptions::fetch_on_tasks`]).
enum Gets {
    Tasks(JoinSet<Answer>),
    Polled(FuturesUnordered<BoxFuture<'static, Answer>>),
}

impl Gets {
    fn new(on_tasks: bool) -> Self {
        if on_tasks {
            Gets::Tasks(JoinSet::new())
        } else {
            Gets::Polled(FuturesUnordered::new())
        }
    }

    fn len(&self) -> usize {
        match self {
            Gets::Tasks(t) => t.len(),
            Gets::Polled(f) => f.len(),
        }
    }

    fn start(&mut self, get: impl Future<Output = Answer> + Send + 'static) {
        match self {
            Gets::Tasks(t) => {
                t.spawn(get);
            }
            Gets::Polled(f) => {
                probe::hit("io.gets_polled");
                f.push(Box::pin(get))
            }
        }
    }

    /// The next GET to answer, `None` when none is in flight.
    async fn next(&mut self) -> Option<std::result::Result<Answer, tokio::task::JoinError>> {
        match self {
            Gets::Tasks(t) => t.join_next().await,
            Gets::Polled(f) => f.next().await.map(Ok),
        }
    }

    /// A GET that has answered, without waiting. Polled GETs are polled here (with the
    /// stream's waker), which also starts those pushed since the last poll.
    fn answered(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Option<std::result::Result<Answer, tokio::task::JoinError>> {
        match self {
            Gets::Tasks(t) => t.try_join_next(),
            Gets::Polled(f) => match f.poll_next_unpin(cx) {
                Poll::Ready(Some(a)) => Some(Ok(a)),
                Poll::Ready(None) | Poll::Pending => None,
            },
        }
    }

    fn abort_all(&mut self) {
        match self {
            Gets::Tasks(t) => t.abort_all(),
            Gets::Polled(f) => f.clear(),
        }
    }
}

/// Drives one decoder; see the [module docs](self).
pub(crate) struct Driver {
    object: Object,
    options: ObjectReadOptions,
    /// `None` only while a step runs on the blocking pool.
    decoder: Option<PushDecoder>,
    /// Results of the last blocking-pool step not yet handed out: batches, then at most one
    /// other result (`NeedsData`, `Finished` or an error), in the decoder's order.
    decoded: std::collections::VecDeque<Result<DecodeResult>>,
    tasks: Gets,
    /// A GET that answered ahead of need with an error: returned when the decoder next
    /// waits for bytes, so the batches it decodes before that still come.
    failed_ahead: Option<Error>,
    /// Ranges asked of the store and not yet pushed (in flight or queued).
    requested: HashSet<Range<u64>>,
    queued: std::collections::VecDeque<Range<u64>>,
    done: bool,
}

impl Driver {
    /// What the decoder's pruning and filter did so far; `None` while a step runs on the
    /// blocking pool.
    pub fn filter_stats(&self) -> Option<crate::predicate::FilterStats> {
        self.decoder.as_ref().map(|d| d.filter_stats().clone())
    }

    pub fn new(object: Object, decoder: PushDecoder, options: ObjectReadOptions) -> Self {
        let on_tasks = options
            .fetch_on_tasks
            .unwrap_or_else(|| !answers_unpolled(object.store.as_ref()));
        Driver {
            object,
            options,
            decoder: Some(decoder),
            decoded: Default::default(),
            tasks: Gets::new(on_tasks),
            failed_ahead: None,
            requested: HashSet::new(),
            queued: Default::default(),
            done: false,
        }
    }

    /// Start GETs for what the decoder wants and nobody has asked for, within the limits.
    fn schedule(&mut self, wanted: Vec<Range<u64>>) {
        for r in wanted {
            if self.requested.insert(r.clone()) {
                self.queued.push_back(r);
            }
        }
        while !self.queued.is_empty()
            && self.tasks.len() < self.options.max_requests_in_flight.max(1)
        {
            let r = self.queued.pop_front().expect("not empty");
            let object = self.object.clone();
            let timeout = self.options.request_timeout;
            probe::hit("io.gets_started");
            self.tasks.start(async move {
                let got = object.get(r.clone(), timeout).await;
                (r, got)
            });
        }
    }

    /// Start the first GETs now, before the stream is polled.
    pub fn prime(&mut self) {
        if let Some(d) = self.decoder.as_mut() {
            let wanted = d.wanted();
            self.schedule(wanted);
        }
    }

    /// Wait for one GET and push its bytes.
    async fn land_one(&mut self) -> Result<()> {
        let Some(joined) = self.tasks.next().await else {
            return Err(Error::internal("the object reader waits for no request"));
        };
        self.land(joined)
    }

    /// Push the bytes of every GET that has already answered, waiting for none: bytes the
    /// decoder can use before it asks for them (a row group it decodes ahead on a thread of
    /// its own), and room in the limits for the next GETs. A failure is kept for when the
    /// decoder waits for bytes (`failed_ahead`).
    async fn land_answered(&mut self) {
        std::future::poll_fn(|cx| {
            while self.failed_ahead.is_none() {
                let Some(joined) = self.tasks.answered(cx) else {
                    break;
                };
                self.failed_ahead = self.land(joined).err();
            }
            Poll::Ready(())
        })
        .await
    }

    /// Push the bytes of a GET that answered.
    fn land(&mut self, joined: std::result::Result<Answer, tokio::task::JoinError>) -> Result<()> {
        let (range, got) = joined.map_err(|e| Error::Fetch {
            object: self.object.name.to_string(),
            range: None,
            source: Box::new(e),
        })?;
        let bytes = got?;
        self.requested.remove(&range);
        self.decoder
            .as_mut()
            .expect("decoder present between steps")
            .push(range.start, bytes);
        Ok(())
    }

    /// One decoder step, on this task or on the blocking pool (there, up to
    /// [`BATCHES_PER_BLOCKING_STEP`] batches in one go, the rest kept for the next steps).
    async fn step(&mut self) -> Result<DecodeResult> {
        if let Some(r) = self.decoded.pop_front() {
            return r;
        }
        let mut decoder = self.decoder.take().expect("decoder present between steps");
        if !self.options.decode_on_blocking_pool {
            let r = decoder.try_next();
            self.decoder = Some(decoder);
            return r;
        }
        probe::hit("io.blocking_steps");
        let (decoder, mut results) = tokio::task::spawn_blocking(move || {
            let mut results = std::collections::VecDeque::new();
            loop {
                let r = decoder.try_next();
                let batch = matches!(r, Ok(DecodeResult::Batch(_)));
                results.push_back(r);
                if !batch || results.len() == BATCHES_PER_BLOCKING_STEP {
                    break;
                }
            }
            (decoder, results)
        })
        .await
        .map_err(|e| Error::Fetch {
            object: self.object.name.to_string(),
            range: None,
            source: Box::new(e),
        })?;
        self.decoder = Some(decoder);
        let first = results.pop_front().expect("a step yields a result");
        self.decoded = results;
        first
    }

    /// The next batch, `None` at the end. After an error, `None`.
    pub async fn next(&mut self) -> Option<Result<ArrayBatch>> {
        if self.done {
            return None;
        }
        let r = self.next_inner().await;
        if !matches!(r, Some(Ok(_))) {
            self.done = true;
            // Whatever is still in flight is not needed any more.
            self.tasks.abort_all();
        }
        r
    }

    async fn next_inner(&mut self) -> Option<Result<ArrayBatch>> {
        loop {
            match self.step().await {
                Err(e) => return Some(Err(e)),
                Ok(DecodeResult::Finished) => return None,
                Ok(DecodeResult::Batch(b)) => {
                    self.land_answered().await;
                    // Fetch ahead while the caller works on this batch.
                    let decoder = self.decoder.as_mut().expect("decoder present");
                    decoder.take_released();
                    let wanted = decoder.wanted();
                    self.schedule(wanted);
                    match self.tasks {
                        // Let the GET tasks run (start, land) before the next batch: a
                        // consumer whose batches are always ready never waits, and on a
                        // current-thread runtime nothing else runs until it does.
                        Gets::Tasks(_) => tokio::task::yield_now().await,
                        // Poll the GETs just started, which starts their reads.
                        Gets::Polled(_) => self.land_answered().await,
                    }
                    return Some(Ok(b));
                }
                Ok(DecodeResult::NeedsData(ranges)) => {
                    if let Some(e) = self.failed_ahead.take() {
                        return Some(Err(e));
                    }
                    self.schedule(ranges);
                    if let Err(e) = self.land_one().await {
                        return Some(Err(e));
                    }
                }
            }
        }
    }
}
