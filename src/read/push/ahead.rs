//! Row groups decoded ahead on threads of their own, for streamed reads of nested fields.
//!
//! A nested field is assembled from the levels of whole records, and its leaves are cut at
//! the same records, which page boundaries do not give; so its batches cannot be split into
//! page ranges as a flat column's are ([`ParallelFeed`](crate::read::parallel)). Row groups
//! can be split: batches never span two, and each assembles on its own. With `threads > 1`
//! the push decoder streams one row group on the calling thread and meanwhile decodes the
//! next `threads - 1` on threads of their own, each into its list of batches;
//! those are then handed out in file order, and the calling thread streams the row group
//! after them. The batches are the same ones, in the same order, as on one thread (an error
//! comes after the batches before it, and ends the read as it would there).
//!
//! A row group starts ahead once its bytes are pushed. The local driver reads whatever it
//! is asked for at once, so its decoder asks for those bytes before the next batch; a
//! decoder its caller drives (the object-store reader) lists them with what it wants
//! ahead, and the front row group streams meanwhile, so a slow GET holds up nothing (a row
//! group whose bytes come too late is streamed on the calling thread in its turn).
//!
//! The price is memory: a row group decoded ahead waits whole, batches and bytes, until its
//! turn.

use std::thread::JoinHandle;

use parq_codecs::probe;

use crate::read::decode::ChunkDecoder;
use crate::read::{ArrayBatch, FileDecoder, Select, Source};
use crate::{Error, Result};

/// A row group being decoded on a thread of its own.
pub(super) struct Ahead {
    /// The row group's index in the file.
    pub(super) rg: usize,
    handle: JoinHandle<Decoded>,
}

/// A row group's batches, up to and with the first error, and the column decoders that made
/// them (for the next row group decoded ahead: their buffers are reused, as the calling
/// thread's are from one row group to the next).
type Decoded = (Vec<Result<ArrayBatch>>, Vec<ChunkDecoder>);

impl Ahead {
    /// Decode the batches of `projection` of `reader` (one row group, one thread) on a new
    /// thread, with `decoders` from an earlier row group of the same projection; `None` when
    /// the thread cannot be started (the caller streams it instead).
    pub(super) fn spawn<S: Source + 'static>(
        rg: usize,
        reader: FileDecoder<S>,
        projection: Vec<Select>,
        batch_size: usize,
        decoders: Vec<ChunkDecoder>,
    ) -> Option<Self> {
        let handle = std::thread::Builder::new()
            .name("parq-row-group".into())
            .spawn(move || {
                match reader.field_batches(&projection, batch_size, decoders) {
                    Err(e) => (vec![Err(e)], Vec::new()),
                    Ok(mut batches) => {
                        // The batches up to and with the first error, as one thread gives them.
                        let out = batches.by_ref().collect();
                        (out, batches.into_decoders())
                    }
                }
            })
            .ok()?;
        probe::hit("push.row_group_ahead");
        Some(Ahead { rg, handle })
    }

    /// The row group's batches and decoders, once its thread is done.
    pub(super) fn join(self) -> Decoded {
        let rg = self.rg;
        self.handle.join().unwrap_or_else(|_| {
            let e = format!("the thread decoding row group {rg} panicked");
            (vec![Err(Error::internal(e))], Vec::new())
        })
    }
}
