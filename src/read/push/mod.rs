//! Sans-I/O reading: decoders that say which bytes they need and take them when pushed.
//!
//! Nothing here does I/O. A [`FooterDecoder`] turns a file length into a [`Footer`]; a
//! [`PushDecoder`] turns a footer and a projection into batches. Each answers with the
//! byte ranges it needs next; the caller fetches them however it likes (a local file, an
//! object store, its own cache) and pushes the bytes, in any pieces and any order. The
//! decoder keeps only the pushed bytes it asked for, says which ranges it has let go, and
//! stays within a memory budget. The synchronous readers open their footers through the
//! same [`FooterDecoder`], and their batches
//! ([`ParquetReader::batches`](crate::read::ParquetReader::batches),
//! [`array_batches`](crate::read::ParquetReader::array_batches)) come from a
//! [`PushDecoder`] fed from the local source, as the async object-store reader's do, and so
//! do the whole-column reads (`read_column`, `read_field`, `read_leaves`), decoded row group
//! by row group into one output per column.

mod ahead;
mod buffer;
mod decoder;
mod dynamic;
mod fetch_plan;
pub(crate) mod footer;
mod span_index;
pub(crate) mod whole;

#[cfg(feature = "arrow")]
pub(crate) use decoder::empty_reader;
pub use decoder::{DecodeResult, PushDecoder, PushOptions, FILTER_DROP_RATIO};
pub use dynamic::DynamicFilter;
pub use fetch_plan::IoOptions;
pub use footer::{Footer, FooterDecoder, FooterOptions, FooterStep, DEFAULT_FOOTER_SUFFIX};
