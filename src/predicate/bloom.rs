//! Pruning by split-block bloom filters, for `=` and `IN`.
//!
//! Bloom filters are read by the `bloom` work on the reader; until it lands this step prunes
//! nothing, and [`leaf_prunes`] is its one entry point.

use super::Leaf;
use crate::read::{ParquetReader, Source};
use crate::Result;

/// True when the bloom filter of `leaf`'s column in `row_group` shows that no value of the
/// leaf's `=` / `IN` test is present. Always false for now (no filter reader yet).
pub(crate) fn leaf_prunes<S: Source>(
    reader: &ParquetReader<S>,
    row_group: usize,
    leaf: &Leaf,
) -> Result<bool> {
    let _ = (reader, row_group, leaf);
    Ok(false)
}
