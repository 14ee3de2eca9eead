//! Pruning from a footer alone: the row groups whose statistics may hold a match, before
//! any data (or page index, bloom filter, dictionary) is fetched. The multi-file scans
//! use it to skip whole files.

use super::stats;
use super::{Expr, Node};
use crate::metadata::FileMetaData;
use crate::schema::SchemaDescriptor;
use crate::Result;

impl Expr {
    /// The row groups of a file (its `metadata` and `schema`) that row-group statistics do
    /// not rule out for this predicate. Never drops a row group holding a match.
    pub fn row_groups_by_statistics(
        &self,
        metadata: &FileMetaData,
        schema: &SchemaDescriptor,
    ) -> Result<Vec<usize>> {
        let node = Node::bind(self, schema)?;
        let orders = metadata.column_orders.as_ref();
        let mut keep = Vec::new();
        for (i, group) in metadata.row_groups.iter().enumerate() {
            let pruned = node.prunes(&mut |leaf| {
                let Some(meta) = group
                    .columns
                    .get(leaf.column)
                    .and_then(|c| c.meta_data.as_ref())
                else {
                    return Ok(false);
                };
                let order = orders.and_then(|o| o.get(leaf.column));
                Ok(stats::chunk_prunes(leaf, meta, order, &group.columns))
            })?;
            if !pruned {
                keep.push(i);
            }
        }
        Ok(keep)
    }
}
