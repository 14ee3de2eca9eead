//! Async reads from and writes to object stores (feature `object_store`): S3, GCS, Azure (feature
//! `cloud`), local files and memory, through the `object_store` crate.
//!
//! [`ParqObjectReader`] reads one object: it drives a
//! [`PushDecoder`](crate::read::push::PushDecoder) and keeps several GETs in flight, so the
//! next row groups download while the current one decodes (within
//! [`ObjectReadOptions::max_requests_in_flight`] and the bytes the read's memory budget lets
//! the decoder plan ahead,
//! [`ReadOptions::plan_ahead_bytes`](crate::read::ReadOptions::plan_ahead_bytes)). Its
//! streams are `Send + 'static` `futures::Stream`s of
//! [`ArrayBatch`](crate::read::ArrayBatch)es and, with the `arrow` feature, of
//! `RecordBatch`es. [`Scan`] reads many objects (a list
//! or a prefix), pruning whole files by their footer statistics.
//!
//! **Where work runs.** GETs are tokio tasks on the current runtime (a tokio runtime is
//! required), or, for stores whose requests progress unpolled (local files, memory), futures
//! the stream polls ([`ObjectReadOptions::fetch_on_tasks`]). Decoding runs on the task that
//! polls the stream, unless [`ObjectReadOptions::decode_on_blocking_pool`] is set: then
//! each decoding step runs under `spawn_blocking`, off the runtime's worker threads. With
//! [`ReadOptions::threads`](crate::read::ReadOptions::threads) above 1, decoding also uses
//! threads of its own, as local reads do: page ranges of flat columns, and for a projection
//! with a nested field, the next row groups, each decoded whole once its bytes have landed
//! (a step that reaches one still decoding waits for its thread).
//!
//! **Errors and cancellation.** A failed, short or timed-out GET is an
//! [`Error::Fetch`] naming the object and the byte range. Retries and
//! timeouts are the store's (an HTTP store's `ClientOptions` and `RetryConfig`); the
//! optional [`ObjectReadOptions::request_timeout`] only gives up, it never retries.
//! Dropping a stream aborts its GETs.
//!
//! **Writes.** [`ObjectWriter`] (parq's columns) and [`AsyncArrowWriter`] (Arrow batches,
//! feature `arrow`) write a file into a store as a multipart upload: each closed row group's
//! bytes leave as parts of [`ObjectWriteOptions::part_size`] while the next one is written,
//! at most [`ObjectWriteOptions::max_parts_in_flight`] at once; a file that fits in one part
//! is a single PUT. No object exists until `finish` completes the upload; a failed request
//! ([`Error::Upload`]) aborts it. [`ObjectDatasetWriter`] writes a partitioned dataset of
//! such files under a prefix (see [`crate::write::dataset`]).
//!
//! Request counts are probes (feature `probes`): `io.get_requests` and `io.get_bytes`, on
//! the thread that polls the stream's GETs.

mod dataset;
mod driver;
mod reader;
mod scan;
mod upload;
mod writer;

use std::sync::Arc;

use ::object_store::path::Path;
use ::object_store::ObjectStore;

/// The `object_store` crate this module is built on, for naming its types in the same
/// version (`parq::object_store::object_store::memory::InMemory`).
pub use ::object_store;
pub use dataset::ObjectDatasetWriter;
pub use driver::{ObjectReadOptions, BATCHES_PER_BLOCKING_STEP};
#[cfg(feature = "arrow")]
pub use reader::RecordBatchStream;
pub use reader::{BatchStream, FooterCache, ParqObjectReader, StreamStats};
pub use scan::{Scan, ScanOptions, ScanProgress};
pub use upload::{ObjectWriteOptions, UploadedObject};
#[cfg(feature = "arrow")]
pub use writer::AsyncArrowWriter;
pub use writer::ObjectWriter;

use crate::{Error, Result};

/// The store and path a URL names (`s3://bucket/key`, `gs://`, `az://`, `file:///abs/path`,
/// `memory:///key`, ...), through `object_store::parse_url_opts`, configured from the
/// environment (`AWS_ACCESS_KEY_ID`, `AWS_ENDPOINT`, `GOOGLE_SERVICE_ACCOUNT`, ...: any
/// variable whose lower-cased name is a builder key).
pub fn store_for_url(url: &str) -> Result<(Arc<dyn ObjectStore>, Path)> {
    let parsed = url::Url::parse(url)
        .map_err(|e| Error::InvalidArgument(format!("object store URL {url:?}: {e}")))?;
    let (store, path) =
        ::object_store::parse_url_opts(&parsed, std::env::vars()).map_err(|e| Error::Fetch {
            object: url.to_string(),
            range: None,
            source: Box::new(e),
        })?;
    Ok((Arc::from(store), path))
}
