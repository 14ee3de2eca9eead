//! Pruning by dictionary pages: when every data page of a chunk is dictionary-encoded, every
//! non-null value of the chunk is a dictionary entry, so a value test that no entry passes
//! passes for no row.
//!
//! "Every data page" is known only from `ColumnMetaData.encoding_stats`; without them the
//! chunk is not pruned (a writer may fall back to PLAIN pages after the dictionary grew).

use super::eval::{value_at, value_matches};
use super::{Leaf, Test};
use crate::column::Column;
use crate::metadata::{ColumnMetaData, Encoding, PageType};

/// Whether every data page of the chunk is dictionary-encoded, as its encoding stats say.
pub(crate) fn fully_dictionary_encoded(meta: &ColumnMetaData) -> bool {
    let Some(stats) = &meta.encoding_stats else {
        return false;
    };
    meta.dictionary_page_offset.is_some()
        && stats
            .iter()
            .filter(|s| {
                matches!(s.page_type, PageType::DATA_PAGE | PageType::DATA_PAGE_V2) && s.count > 0
            })
            .all(|s| {
                matches!(
                    s.encoding,
                    Encoding::PLAIN_DICTIONARY | Encoding::RLE_DICTIONARY
                )
            })
}

/// Whether the leaf tests values (so that a dictionary can rule it out).
pub(crate) fn tests_values(leaf: &Leaf) -> bool {
    !matches!(leaf.test, Test::IsNull | Test::IsNotNull)
}

/// True when no entry of `dictionary` passes the leaf's value test.
pub(crate) fn prunes(leaf: &Leaf, dictionary: &Column) -> bool {
    tests_values(leaf)
        && (0..dictionary.len).all(|i| {
            value_at(dictionary, leaf.domain, i).is_none_or(|v| !value_matches(&leaf.test, v))
        })
}
