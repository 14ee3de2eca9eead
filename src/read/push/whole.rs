//! Whole-column reads through the push decoder: [`ParquetReader::read_column`],
//! [`read_leaves`](ParquetReader::read_leaves) and
//! [`read_field`](ParquetReader::read_field) are decoded row group by row group from pushed
//! bytes, like batches, but each column is decoded into one output that carries across row
//! groups (one reserved buffer, one assembly), and handed out once, at the end.
//!
//! With several threads (and no row selection, predicate or encryption) the decoder plans
//! every row group first, then hands all their bytes to the parallel reader, which splits
//! the work across row groups, columns and page ranges.

use crate::array::Array;
use crate::read::decode::ChunkDecoder;
use crate::read::nested::WholeField;
use crate::read::{FileDecoder, Source};
use crate::schema::plan::FieldPlan;
use crate::Result;

/// What a whole read returns, one array each, in order.
#[derive(Debug, Clone)]
pub(crate) enum WholeItem {
    /// A flat leaf column (by leaf index), as an [`Array::Primitive`].
    Leaf(usize),
    /// A field of any shape (a top-level field, or leaves under one).
    Field(FieldPlan),
}

/// One item's output so far.
enum Part {
    Leaf {
        column: usize,
        /// `None` before the first row group.
        decoder: Option<Box<ChunkDecoder>>,
        /// Slots and value bytes to reserve, from the footer.
        hint: (usize, usize),
    },
    Field(Box<WholeField>),
}

/// The outputs of a whole read, fed one row group at a time.
pub(crate) struct WholeRead {
    items: Vec<WholeItem>,
    parts: Vec<Part>,
}

impl std::fmt::Debug for WholeRead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WholeRead")
            .field("items", &self.items)
            .finish_non_exhaustive()
    }
}

impl WholeRead {
    /// A whole read of `items` of `file` (a reader of every row group the read selects, for
    /// checks and reservation hints; it reads nothing). A leaf the flat readers refuse is
    /// refused here, before any byte is asked for.
    pub(crate) fn new<S: Source>(file: &FileDecoder<S>, items: Vec<WholeItem>) -> Result<Self> {
        const MAX_RESERVE: u64 = 1 << 26;
        let parts = items
            .iter()
            .map(|item| {
                Ok(match item {
                    WholeItem::Leaf(column) => {
                        file.column_reader(*column)?;
                        // The slot count comes from the footer, so it is only a hint: capped
                        // by the file itself (8 slots per byte is what bit-packed levels
                        // hold; denser encodings just grow the buffer) and a fixed ceiling.
                        let by_file = file.source.len().saturating_mul(8);
                        let slots = file.selected_rows().min(by_file).min(MAX_RESERVE) as usize;
                        // The footer's byte sizes are for whole chunks: a selection reads
                        // fewer.
                        let bytes = match file.options.selection {
                            None => file.value_bytes_hint(*column, &file.selected_row_groups()),
                            Some(_) => 0,
                        };
                        Part::Leaf {
                            column: *column,
                            decoder: None,
                            hint: (slots, bytes),
                        }
                    }
                    WholeItem::Field(plan) => {
                        Part::Field(Box::new(WholeField::new(file, plan.clone())))
                    }
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(WholeRead { items, parts })
    }

    /// The leaf columns the read decodes.
    pub(crate) fn leaves(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for item in &self.items {
            match item {
                WholeItem::Leaf(c) => out.push(*c),
                WholeItem::Field(plan) => plan.leaves(&mut out),
            }
        }
        out
    }

    /// Decode every item of `rg_reader`'s row groups (one, in the push decoder).
    pub(crate) fn row_group<S: Source>(&mut self, rg_reader: &FileDecoder<S>) -> Result<()> {
        for part in &mut self.parts {
            match part {
                Part::Leaf {
                    column,
                    decoder,
                    hint,
                } => {
                    let mut reader = rg_reader.column_reader(*column)?;
                    let decoder = match decoder {
                        Some(d) => d,
                        None => {
                            let mut d = reader.new_decoder()?;
                            d.reserve(hint.0);
                            d.reserve_bytes(hint.1);
                            decoder.insert(Box::new(d))
                        }
                    };
                    while reader.next_page_into(decoder, None)? {}
                }
                Part::Field(f) => f.row_group(rg_reader)?,
            }
        }
        Ok(())
    }

    /// Every item's array; `file` as for [`Self::new`].
    pub(crate) fn finish<S: Source>(self, file: &FileDecoder<S>) -> Result<Vec<Array>> {
        self.parts
            .into_iter()
            .map(|part| {
                Ok(match part {
                    Part::Leaf {
                        decoder: Some(mut d),
                        ..
                    } => Array::Primitive(d.finish()),
                    // No row group: an empty column of the leaf's layout.
                    Part::Leaf {
                        column,
                        decoder: None,
                        ..
                    } => Array::Primitive(file.column_reader(column)?.new_decoder()?.finish()),
                    Part::Field(f) => f.finish(file)?,
                })
            })
            .collect()
    }

    /// Every item at once over `file`, a reader of all the row groups' bytes, on its
    /// threads (see the module docs).
    pub(crate) fn parallel<S: Source>(self, file: &FileDecoder<S>) -> Result<Vec<Array>> {
        let leaves: Vec<usize> = self
            .items
            .iter()
            .filter_map(|i| match i {
                WholeItem::Leaf(c) => Some(*c),
                WholeItem::Field(_) => None,
            })
            .collect();
        let mut columns = file.read_leaves_parallel(&leaves)?.into_iter();
        self.items
            .iter()
            .map(|item| match item {
                WholeItem::Leaf(_) => Ok(Array::Primitive(
                    columns.next().expect("one column per leaf item"),
                )),
                WholeItem::Field(plan) => file.read_nested_parallel(plan),
            })
            .collect()
    }
}
