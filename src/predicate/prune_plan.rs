//! Which bytes pruning a row group reads beyond the footer, so that a sans-I/O decoder can
//! ask for them all in one round before it prunes (see
//! [`PushOptions::predicate`](crate::read::push::PushOptions::predicate)).

use std::ops::Range;

use super::{bloom, Expr, Node};
use crate::metadata::FileMetaData;
use crate::schema::SchemaDescriptor;
use crate::Result;

/// A predicate bound to a file, for the push decoder's pruning.
#[derive(Debug, Clone)]
pub(crate) struct PrunePlan {
    node: Node,
}

impl PrunePlan {
    /// `expr` bound to `schema`: an error when a column is missing or a literal does not
    /// fit its column, as for every read with a predicate.
    pub(crate) fn bind(expr: &Expr, schema: &SchemaDescriptor) -> Result<Self> {
        Ok(PrunePlan {
            node: Node::bind(expr, schema)?,
        })
    }

    /// The byte ranges pruning row group `rg` reads that the footer locates: the column
    /// and offset indexes of the predicate's columns, and the bloom filters of those
    /// tested for equality (when the writer recorded their length; otherwise the filter is
    /// asked for once its header is read). Dictionary pages are read only when the
    /// statistics, the page index and the bloom filters left the row group, so they are
    /// not listed. Ranges outside the file are left out: reading them is an error the
    /// pruning itself reports.
    pub(crate) fn ranges(
        &self,
        meta: &FileMetaData,
        schema: &SchemaDescriptor,
        file_len: u64,
        rg: usize,
    ) -> Vec<Range<u64>> {
        let Some(group) = meta.row_groups.get(rg) else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut add = |offset: Option<i64>, len: Option<i32>| {
            let (Some(offset), Some(len)) = (offset, len) else {
                return;
            };
            let (Ok(start), Ok(len)) = (u64::try_from(offset), u64::try_from(len)) else {
                return;
            };
            if let Some(end) = start.checked_add(len).filter(|&e| e <= file_len && len > 0) {
                out.push(start..end);
            }
        };
        self.node.visit(&mut |leaf| {
            let Some(chunk) = group.columns.get(leaf.column) else {
                return;
            };
            if leaf.variant.is_some() {
                return; // pruned by statistics only
            }
            add(chunk.column_index_offset, chunk.column_index_length);
            add(chunk.offset_index_offset, chunk.offset_index_length);
            let type_length = schema.leaves.get(leaf.column).and_then(|d| d.type_length);
            if bloom::leaf_hashes(leaf, type_length).is_some() && chunk.crypto_metadata.is_none() {
                if let Some(m) = &chunk.meta_data {
                    add(m.bloom_filter_offset, m.bloom_filter_length);
                }
            }
        });
        out
    }
}
