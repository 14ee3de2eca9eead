//! Row groups decoded ahead on threads of their own, for streamed reads of nested fields.
//!
//! A nested field is assembled from the levels of whole records, and its leaves are cut at
//! the same records, which page boundaries do not give; so its batches cannot be split into
//! page ranges as a flat column's are ([`ParallelFeed`](crate::read::parallel)). Row groups
//! can be split: batches never span two, and each assembles on its own. With `threads > 1`
//! the local driver's decoder streams one row group on the calling thread and meanwhile
//! decodes the next `threads - 1` on threads of their own, each into its list of batches;
//! those are then handed out in file order, and the calling thread streams the row group
//! after them. The batches are the same ones, in the same order, as on one thread (an error
//! comes after the batches before it, and ends the read as it would there).
//!
//! The price is memory: a row group decoded ahead waits whole, batches and bytes, until its
//! turn.

use std::thread::JoinHandle;

use parq_codecs::probe;

use crate::read::{ArrayBatch, ParquetReader, Source};
use crate::{Error, Result};

/// A row group being decoded on a thread of its own.
pub(super) struct Ahead {
    /// The row group's index in the file.
    pub(super) rg: usize,
    handle: JoinHandle<Vec<Result<ArrayBatch>>>,
}

impl Ahead {
    /// Decode the batches of `projection` of `reader` (one row group, one thread) on a new
    /// thread; `None` when the thread cannot be started (the caller streams it instead).
    pub(super) fn spawn<S: Source + 'static>(
        rg: usize,
        reader: ParquetReader<S>,
        projection: Vec<String>,
        batch_size: usize,
    ) -> Option<Self> {
        let handle = std::thread::Builder::new()
            .name("parq-row-group".into())
            .spawn(move || {
                let names: Vec<&str> = projection.iter().map(String::as_str).collect();
                match reader.field_batches(&names, batch_size) {
                    Err(e) => vec![Err(e)],
                    // The batches up to and with the first error, as one thread gives them.
                    Ok(batches) => batches.collect(),
                }
            })
            .ok()?;
        probe::hit("push.row_group_ahead");
        Some(Ahead { rg, handle })
    }

    /// The row group's batches, once its thread is done.
    pub(super) fn join(self) -> Vec<Result<ArrayBatch>> {
        self.handle.join().unwrap_or_else(|_| {
            vec![Err(Error::format(format!(
                "internal: the thread decoding row group {} panicked",
                self.rg
            )))]
        })
    }
}
