//! Filtered reads: prune, evaluate exactly on the predicate's columns, then materialise the
//! projected columns for the matching rows only.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::ops::Range;
use std::sync::OnceLock;
use std::time::Instant;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer};
use parq_codecs::probe;

use super::eval::{count_runs, eval, filter_column, Kept, VariantValues};
use super::parts::Parts;
use super::stages::Stages;
use super::{bloom, dictionary, page_index, stats, Expr, Input, Node};
use crate::array::Array;
use crate::bloom::Sbbf;
use crate::column::Column;
use crate::field::Field;
use crate::metadata::{ColumnIndex, FileMetaData, Type};
use crate::read::positions::{Positions, VirtualColumns};
use crate::read::{
    selects, ArrayBatchReader, BatchReader, FileDecoder, ParquetReader, RowSelection, Select,
    Source,
};
use crate::schema::plan::{FieldPlan, PlanKind};
use crate::variant::VariantArray;
use crate::{Error, Result};

/// What pruning and filtering did, over the row groups the reader selects.
///
/// Probes (feature `probes`) count the same events: `predicate.row_group_pruned_by_statistics`,
/// `..._by_page_index`, `..._by_bloom_filter`, `..._by_dictionary`, and
/// `predicate.page_pruned` (pages of the predicate's columns holding no selected row),
/// `predicate.predicate_column_reused` (a projected column the predicate had decoded), and
/// `predicate.row_group_without_match` (a row group left by pruning where no row matched:
/// the other projected columns are not decoded there).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FilterStats {
    /// Row groups considered.
    pub row_groups: usize,
    /// Row groups skipped without decoding a page, by any of the steps below.
    pub row_groups_pruned: usize,
    /// ... by row-group statistics.
    pub pruned_by_statistics: usize,
    /// ... by the column index (no page of the row group may match).
    pub pruned_by_page_index: usize,
    /// ... by bloom filters.
    pub pruned_by_bloom_filter: usize,
    /// ... by dictionary pages.
    pub pruned_by_dictionary: usize,
    /// Pages of the predicate's columns in the row groups left, where an offset index says
    /// where pages are.
    pub pages: usize,
    /// Of those, pages that hold no selected row.
    pub pages_pruned: usize,
    /// Rows considered.
    pub rows: u64,
    /// Rows left after pruning (what exact evaluation looks at).
    pub rows_selected: u64,
    /// Rows that satisfy the predicate.
    pub rows_matched: u64,
}

impl FilterStats {
    /// Count `other`'s row groups, pages and rows too.
    pub(crate) fn add(&mut self, other: &FilterStats) {
        self.row_groups += other.row_groups;
        self.row_groups_pruned += other.row_groups_pruned;
        self.pruned_by_statistics += other.pruned_by_statistics;
        self.pruned_by_page_index += other.pruned_by_page_index;
        self.pruned_by_bloom_filter += other.pruned_by_bloom_filter;
        self.pruned_by_dictionary += other.pruned_by_dictionary;
        self.pages += other.pages;
        self.pages_pruned += other.pages_pruned;
        self.rows += other.rows;
        self.rows_selected += other.rows_selected;
        self.rows_matched += other.rows_matched;
    }
}

/// A column index with the row ranges of its pages (relative to the row group).
type PageIndex = (ColumnIndex, Vec<Range<u64>>);

/// Page indexes of one row group by leaf column, read on first use (`None`: not usable).
type PageIndexes = HashMap<usize, Option<PageIndex>>;

/// Where a projected column of a filtered batch comes from.
enum Slot {
    /// The predicate decoded it: `kept[i]`, already filtered; looked up in its dictionary
    /// as it is returned where the flag says (see `Evaluated::kept_column`).
    Kept(usize, bool),
    /// The next of the arrays read after the filter (they come in projection order).
    Rest,
}

/// The columns the predicate did not decode, for the matching rows of one row group.
enum Rest<S: Source> {
    /// Every projected column was decoded by the predicate.
    Nothing,
    /// Read through the selection of the matching rows.
    Selected(ArrayBatchReader<S>),
    /// Every pruned row read, filtered by `mask` (bit `at` is the next row's); filtered rows
    /// not yet returned wait in `pending` (arrays, first row not returned).
    Masked {
        batches: ArrayBatchReader<S>,
        mask: BooleanBuffer,
        at: usize,
        pending: Option<(Vec<Array>, usize)>,
    },
}

/// The filtered batches of one row group.
pub(crate) struct GroupBatches<S: Source> {
    slots: Vec<Slot>,
    kept: Vec<Parts>,
    rest: Rest<S>,
    matched: usize,
    returned: usize,
    /// The file rows that matched, for the virtual columns (none by default).
    positions: Positions,
    virtual_columns: VirtualColumns,
}

impl<S: Source> GroupBatches<S> {
    /// The batches of `e`'s matches: `columns` the predicate decoded are sliced from what it
    /// kept, the rest read from `file` through the matches' selection (`by_selection`, see
    /// [`Evaluated::by_selection`]) or for every pruned row and filtered.
    pub(crate) fn new(
        file: &FileDecoder<S>,
        e: Evaluated<S>,
        columns: &[Select],
        batch_size: usize,
        by_selection: bool,
    ) -> Result<Self> {
        let matched = e.matched_rows as usize;
        let mut slots = Vec::with_capacity(columns.len());
        let mut kept = Vec::new();
        let mut rest = Vec::new();
        for c in columns {
            match e.kept_column(file, c) {
                Some((_, col, lookup)) => {
                    slots.push(Slot::Kept(kept.len(), lookup));
                    kept.push(col.clone());
                }
                None => {
                    slots.push(Slot::Rest);
                    rest.push(c.clone());
                }
            }
        }
        let rest = if rest.is_empty() {
            Rest::Nothing
        } else if by_selection {
            Rest::Selected(e.matched_reader().array_batches(&rest, batch_size)?)
        } else {
            // Rows in, so that a batch of matches comes out fuller, but at most two batches'
            // worth, so that the decoded strings stay in cache (`row_filter` in
            // BENCHMARKS.md).
            let (batch, pruned) = (batch_size as u64, e.mask.len() as u64);
            let rows_in = (batch.saturating_mul(pruned) / matched.max(1) as u64)
                .clamp(batch, batch.saturating_mul(2))
                .try_into()
                .unwrap_or(batch_size);
            Rest::Masked {
                batches: e.pruned_reader.array_batches(&rest, rows_in)?,
                mask: e.mask,
                at: 0,
                pending: None,
            }
        };
        Ok(GroupBatches {
            slots,
            kept,
            rest,
            matched,
            returned: 0,
            positions: Positions::default(),
            virtual_columns: VirtualColumns::default(),
        })
    }

    /// Append `columns` to every batch: the positions of the matches of `row_group`
    /// (`matched`, file row numbers).
    pub(crate) fn with_virtual_columns(
        mut self,
        columns: VirtualColumns,
        matched: &RowSelection,
        row_group: usize,
    ) -> Self {
        if !columns.is_empty() {
            let runs = matched.ranges().iter().map(|r| (r.clone(), row_group));
            self.positions = Positions::new(runs.collect());
            self.virtual_columns = columns;
        }
        self
    }

    /// The next batch of at most `batch_size` matching rows: its rows and arrays, in the
    /// projection's order.
    pub(crate) fn next(&mut self, batch_size: usize) -> Result<Option<(usize, Vec<Array>)>> {
        let left = self.matched - self.returned;
        if left == 0 {
            return Ok(None);
        }
        let ended = || Error::format("a projected column ends before the filter's matches");
        let (n, rest) = match &mut self.rest {
            Rest::Nothing => (left.min(batch_size), Vec::new()),
            Rest::Selected(batches) => {
                let b = batches.next().transpose()?.ok_or_else(ended)?;
                (b.num_rows, b.arrays)
            }
            Rest::Masked {
                batches,
                mask,
                at,
                pending,
            } => loop {
                if let Some((arrays, from)) = pending {
                    let len = arrays.first().map_or(0, Array::len);
                    let n = (len - *from).min(batch_size);
                    let out = arrays.iter().map(|a| a.slice(*from, n)).collect();
                    *from += n;
                    if *from == len {
                        *pending = None;
                    }
                    break (n, out);
                }
                let b = batches.next().transpose()?.ok_or_else(ended)?;
                if *at + b.num_rows > mask.len() {
                    return Err(rows_differ(
                        "projected",
                        (*at + b.num_rows) as u64,
                        mask.len() as u64,
                    ));
                }
                let keep = Keep::of(&mask.slice(*at, b.num_rows));
                *at += b.num_rows;
                if !keep.is_none() {
                    *pending = Some((keep.apply_all(b.arrays), 0));
                }
            },
        };
        if n > left {
            return Err(rows_differ("projected", n as u64, left as u64));
        }
        let mut rest = rest.into_iter();
        let mut arrays = Vec::with_capacity(self.slots.len());
        for s in &self.slots {
            arrays.push(match s {
                Slot::Kept(i, false) => Array::Primitive(self.kept[*i].slice(self.returned, n)),
                Slot::Kept(i, true) => {
                    Array::Primitive(self.kept[*i].slice(self.returned, n).materialize())
                }
                Slot::Rest => rest.next().ok_or_else(ended)?,
            });
        }
        self.virtual_columns
            .append(&mut self.positions, n, &mut arrays)?;
        self.returned += n;
        Ok(Some((n, arrays)))
    }
}

/// The rows of arrays decoded for every row that a mask keeps: all, or these.
enum Keep {
    All,
    Some(Kept),
}

impl Keep {
    /// Counted first, so that a mask keeping every row builds no index per row.
    fn of(mask: &BooleanBuffer) -> Keep {
        let kept = mask.count_set_bits();
        if kept == mask.len() {
            probe::hit("predicate.mask_keeps_every_row");
            Keep::All
        } else {
            Keep::Some(Kept::of_counted(mask, kept))
        }
    }

    fn is_none(&self) -> bool {
        matches!(self, Keep::Some(k) if k.is_empty())
    }

    /// The kept rows of `array` (as long as the mask).
    fn apply(&self, array: Array) -> Array {
        match self {
            Keep::All => array,
            Keep::Some(k) => k.apply(&array),
        }
    }

    /// [`Self::apply`] to each array.
    fn apply_all(&self, arrays: Vec<Array>) -> Vec<Array> {
        arrays.into_iter().map(|a| self.apply(a)).collect()
    }
}

/// Rows decoded per batch while evaluating and materialising: big enough that per-batch
/// work is negligible, small enough that buffers stay in cache and are reused.
const EVAL_BATCH: usize = 1 << 16;

/// Row groups after exact evaluation.
///
/// The matches are kept as a mask over the rows pruning left; their selection (file row
/// numbers) and its reader are built from it when first asked for, since decode-then-filter
/// needs neither, and scattered matches make a selection of many ranges.
pub(crate) struct Evaluated<S: Source> {
    /// The rows pruning left (file row numbers), in the mask's order.
    pruned: RowSelection,
    /// A reader of the rows pruning left (all the predicate looked at), and which of them
    /// matched, bit by bit in their order: decode-then-filter reads through these.
    pruned_reader: FileDecoder<S>,
    mask: BooleanBuffer,
    /// How many rows match, and in how many ranges of file rows.
    matched_rows: u64,
    matched_runs: u64,
    /// The row groups pruning left, and their rows; those with a match, and theirs.
    pruned_groups: (Vec<usize>, u64),
    matched_groups: (Vec<usize>, u64),
    /// The rows (file row numbers) that satisfy the predicate.
    matched: OnceLock<RowSelection>,
    /// A reader of the row groups with a matching row, selecting exactly the matching rows:
    /// the other projected columns skip every page and row that does not match.
    matched_reader: OnceLock<FileDecoder<S>>,
    /// Projected flat columns the predicate decoded, already filtered, by leaf index.
    kept: HashMap<usize, Parts>,
    /// The same before filtering, where they were decoded for every row pruning left and
    /// the evaluation was asked to hold them (see [`Self::pass_all`]).
    whole: HashMap<usize, Parts>,
}

/// How a filtered read decodes the projected columns the predicate did not decode already.
///
/// Skipping the rows that fail costs per run of rows, decoding them costs per row: where
/// matches are scattered (a run every few rows) decoding everything and keeping the matches
/// is cheaper than skipping between them. [`Materialise::Auto`] decides per row group from
/// the runs the filter found; the other two force one way (for tests and measurements).
///
/// Probes: `predicate.materialised_by_selection` and `predicate.materialised_by_mask`, once
/// per row group (once per read for [`ParquetReader::read_filtered`]);
/// `predicate.mask_keeps_every_row` per batch (or read) a mask keeps whole, and
/// `predicate.whole_row_groups_unselected` where the rows pruning left, or the matches, are
/// whole row groups and are read without a selection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Materialise {
    /// Per row group: [`Self::Selected`] where the rows between the matches come in runs of
    /// [`MIN_SKIPPED_RUN`] rows or more on average, else [`Self::Masked`].
    #[default]
    Auto,
    /// Decode only the matching rows: pages without one are skipped by the offset index,
    /// runs inside a page without decoding them.
    Selected,
    /// Decode every row pruning left, then keep the matching ones (but by selection where
    /// strings are checked for UTF-8: a value the filter rejects is never checked).
    Masked,
}

/// The average run of rows between matches below which [`Materialise::Auto`] decodes and
/// filters rather than skips.
pub const MIN_SKIPPED_RUN: u64 = 32;

impl Materialise {
    /// Whether the matches (how many, in how many ranges; of `pruned` rows looked at) are
    /// read by selection. Always where the
    /// reader checks strings for UTF-8 (`checks`): a rejected row's value, decoded only to be
    /// dropped, must not fail the read.
    fn by_selection(self, (matched, runs): (u64, u64), pruned: u64, checks: bool) -> bool {
        match self {
            _ if checks => true,
            Materialise::Selected => true,
            Materialise::Masked => false,
            // Skipping pays per range, decoding per row: the rows skipped must average a run
            // of `MIN_SKIPPED_RUN` per range. (Where most rows match, ranges are many and
            // the rows between them few: the matches are copied run by run instead.)
            Materialise::Auto => {
                let skipped = pruned.saturating_sub(matched);
                skipped >= MIN_SKIPPED_RUN * runs
            }
        }
    }
}

impl<S: Source> Evaluated<S> {
    /// `column`'s leaf and matching rows if the predicate decoded it already: a flat
    /// top-level column among its inputs.
    ///
    /// The flag says whether it is to be looked up in its dictionary before it is returned:
    /// the predicate reads byte arrays as dictionary keys where `file`'s reader would not.
    fn kept_column(&self, file: &FileDecoder<S>, column: &Select) -> Option<(usize, &Parts, bool)> {
        let leaf = file.top_level_leaf(column)?;
        let col = self.kept.get(&leaf)?;
        probe::hit("predicate.predicate_column_reused");
        let lookup = !file.options.dictionary_keys.contains(&leaf);
        Some((leaf, col, lookup))
    }

    /// The rows (file row numbers) that satisfy the predicate.
    pub(crate) fn matched(&self) -> &RowSelection {
        self.matched.get_or_init(|| {
            let m = rows_of(&self.pruned, &self.mask);
            debug_assert_eq!(m.ranges().len() as u64, self.matched_runs);
            m
        })
    }

    /// How many rows satisfy the predicate.
    pub(crate) fn matched_rows(&self) -> u64 {
        self.matched_rows
    }

    /// A reader of the matching rows.
    fn matched_reader(&self) -> &FileDecoder<S> {
        self.matched_reader.get_or_init(|| {
            let (groups, rows) = &self.matched_groups;
            self.pruned_reader
                .with_selected_rows(groups.clone(), self.matched(), *rows)
        })
    }

    /// Of `columns`, those the predicate did not decode (they are read after it).
    pub(crate) fn rest(&self, file: &FileDecoder<S>, columns: &[Select]) -> Vec<Select> {
        columns
            .iter()
            .filter(|c| {
                file.top_level_leaf(c)
                    .is_none_or(|leaf| !self.kept.contains_key(&leaf))
            })
            .cloned()
            .collect()
    }

    /// The same evaluation, read on through `file`: the same file over other bytes (those of
    /// the columns still to read).
    pub(crate) fn rebase<T: Source>(self, file: &FileDecoder<T>) -> Evaluated<T> {
        let over = |r: &FileDecoder<S>| {
            let groups = r.options.row_groups.clone().unwrap_or_default();
            file.with_rows(groups, r.options.selection.clone())
        };
        let matched_reader = OnceLock::new();
        if let Some(r) = self.matched_reader.get() {
            let _ = matched_reader.set(over(r));
        }
        Evaluated {
            pruned_reader: over(&self.pruned_reader),
            matched_reader,
            pruned: self.pruned,
            mask: self.mask,
            matched_rows: self.matched_rows,
            matched_runs: self.matched_runs,
            pruned_groups: self.pruned_groups,
            matched_groups: self.matched_groups,
            matched: self.matched,
            kept: self.kept,
            whole: self.whole,
        }
    }

    /// The same row groups with every row pruning left passing, for a caller whose own
    /// filter follows: where nearly every row matches, compacting each projected column to
    /// drop the few that do not costs more than the caller's filter. The predicate's columns
    /// it holds whole are used as they are; the others are read again with the rest.
    pub(crate) fn pass_all(self) -> Evaluated<S> {
        let rows = self.mask.len();
        if self.matched_rows == rows as u64 {
            // Every row matched: the predicate's columns are whole already.
            return self;
        }
        Evaluated {
            mask: BooleanBuffer::new_set(rows),
            matched_rows: rows as u64,
            matched_runs: self.pruned.ranges().len() as u64,
            matched_groups: self.pruned_groups.clone(),
            matched: OnceLock::new(),
            matched_reader: OnceLock::new(),
            kept: self.whole,
            whole: HashMap::new(),
            ..self
        }
    }

    /// Whether the columns the predicate did not decode are read through the matches'
    /// selection (else every pruned row, then the mask), as `how` and the matches say.
    pub(crate) fn by_selection(&self, how: Materialise, checks_strings: bool) -> bool {
        let yes = how.by_selection(
            (self.matched_rows, self.matched_runs),
            self.mask.len() as u64,
            checks_strings,
        );
        probe::hit(if yes {
            "predicate.materialised_by_selection"
        } else {
            "predicate.materialised_by_mask"
        });
        yes
    }

    /// The matching rows of the field `plan` reads. A flat top-level column the predicate
    /// already decoded is not decoded again; the others are read through the row selection
    /// of the matching rows (late materialisation), or (`keep` is `Some`) for every pruned
    /// row, then kept as the mask says.
    fn materialise(&self, plan: FieldPlan, keep: Option<&Keep>) -> Result<(Field, Array)> {
        let reader = &self.pruned_reader;
        let want = self.matched_rows;
        let field = plan.field();
        let kept = match &plan.kind {
            PlanKind::Leaf { column, .. } => self.kept_column(reader, &Select::Leaf(*column)),
            _ => None,
        };
        if let Some((_, col, lookup)) = kept {
            let col = if lookup {
                col.whole().materialize()
            } else {
                col.whole()
            };
            return Ok((field, Array::Primitive(col)));
        }
        let array = match keep {
            None => self.matched_reader().read_plan(plan)?.1,
            Some(keep) => {
                let (_, all) = self.pruned_reader.read_plan(plan)?;
                if all.len() != self.mask.len() {
                    return Err(rows_differ(
                        &field.name,
                        all.len() as u64,
                        self.mask.len() as u64,
                    ));
                }
                keep.apply(all)
            }
        };
        if array.len() as u64 != want {
            return Err(rows_differ(&field.name, array.len() as u64, want));
        }
        Ok((field, array))
    }
}

/// The rows (file row numbers) of `rows` where `mask` (one bit per row of `rows`, in
/// order) is set.
fn rows_of(rows: &RowSelection, mask: &BooleanBuffer) -> RowSelection {
    let mut ranges = Vec::new();
    let mut at = 0usize;
    for r in rows.ranges() {
        let len = (r.end - r.start) as usize;
        let runs = mask.slice(at, len);
        ranges.extend(
            runs.set_slices()
                .map(|(s, e)| r.start + s as u64..r.start + e as u64),
        );
        at += len;
    }
    // In order, and apart: the ranges of `rows` are.
    RowSelection::from_sorted_ranges(ranges)
}

/// How many ranges of file rows the set bits of `mask` (one bit per row of `rows`, in
/// order) make: its runs of set bits, plus one where a run goes on across the gap between
/// two ranges of `rows`.
fn runs_of(rows: &RowSelection, mask: &BooleanBuffer) -> u64 {
    let mut runs = count_runs(mask) as u64;
    let mut at = 0usize;
    for r in rows
        .ranges()
        .iter()
        .take(rows.ranges().len().saturating_sub(1))
    {
        at += (r.end - r.start) as usize;
        if at < mask.len() && mask.value(at - 1) && mask.value(at) {
            runs += 1;
        }
    }
    runs
}

/// `before` (a mask over some rows) with its set bits narrowed by `within`, which holds
/// one bit per set bit of `before`, in order.
fn narrow_within(before: &BooleanBuffer, within: &BooleanBuffer) -> BooleanBuffer {
    let mut out = BooleanBufferBuilder::new(before.len());
    out.append_n(before.len(), false);
    for (i, row) in before.set_indices().enumerate() {
        if within.value(i) {
            out.set_bit(row, true);
        }
    }
    out.finish()
}

fn rows_differ(path: &str, got: u64, want: u64) -> Error {
    Error::format(format!(
        "column {path} has {got} rows where the row groups hold {want}"
    ))
}

/// A stream of one or more predicate inputs, batch by batch.
enum LeafStream<S: Source> {
    /// Flat leaves, read together.
    Flat(Vec<usize>, BatchReader<S>),
    /// A leaf under structs (input, dotted path), with the structs' nulls folded in: all of
    /// them, or those of the struct the input tests.
    Nested(Input, String, ArrayBatchReader<S>),
    /// The values of a variant path (`var.a.b`, and `["a", "b"]`), rebuilt from the leaves
    /// on the way.
    Variant(String, Vec<String>, ArrayBatchReader<S>),
}

impl<S: Source> LeafStream<S> {
    /// The next batch: rows and each input's column.
    fn next(
        &mut self,
        out: &mut HashMap<Input, Column>,
        variants: &mut VariantValues,
    ) -> Result<Option<usize>> {
        match self {
            LeafStream::Flat(leaves, r) => match r.next().transpose()? {
                None => Ok(None),
                Some(b) => {
                    out.extend(leaves.iter().map(|&c| (c, None)).zip(b.columns));
                    Ok(Some(b.num_rows))
                }
            },
            LeafStream::Nested(input, path, r) => match r.next().transpose()? {
                None => Ok(None),
                Some(mut b) => {
                    let array = b.arrays.pop().ok_or_else(|| Error::format("empty batch"))?;
                    out.insert(*input, flatten_leaf(array, path, input.1)?);
                    Ok(Some(b.num_rows))
                }
            },
            LeafStream::Variant(dotted, segments, r) => match r.next().transpose()? {
                None => Ok(None),
                Some(b) => {
                    let (field, array) = b
                        .fields
                        .first()
                        .zip(b.arrays.first())
                        .ok_or_else(|| Error::format("empty batch"))?;
                    let segments: Vec<&str> = segments.iter().map(String::as_str).collect();
                    let values = VariantArray::from_group_at(field, array, &segments)?;
                    variants.insert(dotted.clone(), values);
                    Ok(Some(b.num_rows))
                }
            },
        }
    }
}

/// An exact filter bound to one file and evaluated a row group at a time, as the push
/// decoder runs it: the predicate's columns are fetched and evaluated first, then the other
/// columns are planned for the matches alone.
#[derive(Debug)]
pub(crate) struct RowGroupFilter {
    /// The predicate bound, for estimates from statistics.
    node: Node,
    stages: Stages,
    /// Every leaf column evaluation decodes, in schema order.
    leaves: Vec<usize>,
}

impl RowGroupFilter {
    /// `expr` bound to `file`'s schema.
    pub(crate) fn bind<S: Source>(expr: &Expr, file: &FileDecoder<S>) -> Result<Self> {
        let node = Node::bind(expr, &file.schema)?;
        let mut leaves: Vec<usize> = node.inputs().iter().map(|&(c, _)| c).collect();
        for v in node.variant_paths() {
            for path in file.variant_path_leaves(&v.group, &v.path)? {
                let leaf = file
                    .schema
                    .leaves
                    .iter()
                    .position(|l| l.path_string() == path);
                leaves.extend(leaf);
            }
        }
        leaves.sort_unstable();
        leaves.dedup();
        let stages = Stages::of(&node, &file.schema);
        Ok(RowGroupFilter {
            node,
            stages,
            leaves,
        })
    }

    /// The share of row group `rg`'s rows this filter is estimated to keep from the row
    /// group's statistics alone (min / max spread evenly, null counts); `None` where they
    /// cannot say.
    pub(crate) fn estimated_share(&self, metadata: &FileMetaData, rg: usize) -> Option<f64> {
        let group = metadata.row_groups.get(rg)?;
        let orders = metadata.column_orders.as_ref();
        self.node.estimated_share(&mut |leaf| {
            let meta = group.columns.get(leaf.column)?.meta_data.as_ref()?;
            let order = orders.and_then(|o| o.get(leaf.column));
            let summary = stats::Summary::of_chunk(
                meta.statistics.as_ref(),
                leaf.domain,
                order,
                meta.num_values,
            );
            stats::pass_estimate(&leaf.test, &summary, u64::try_from(meta.num_values).ok()?)
        })
    }

    /// The leaf columns evaluation reads.
    pub(crate) fn leaves(&self) -> &[usize] {
        &self.leaves
    }

    /// Evaluate row group `rg` of `file` (`rows` rows) over the rows `selection` (file row
    /// numbers, within the group) leaves, keeping the flat columns of `projection` it
    /// decodes. `file` need hold only the bytes of [`Self::leaves`]. `may_pass_all`: the
    /// caller may [`Evaluated::pass_all`], so the columns are also held unfiltered.
    pub(crate) fn evaluate<S: Source>(
        &self,
        file: &FileDecoder<S>,
        (rg, rows): (usize, u64),
        selection: RowSelection,
        projection: &[Select],
        may_pass_all: bool,
    ) -> Result<Evaluated<S>> {
        let group = Group {
            row_group: rg,
            rows,
            selection,
        };
        let groups = std::slice::from_ref(&group);
        file.evaluate_groups(&self.stages, groups, projection, may_pass_all)
    }
}

/// A row group that pruning kept, with the rows of it that may match.
struct Group {
    row_group: usize,
    rows: u64,
    /// File row numbers that may match (within the row group's).
    selection: RowSelection,
}

/// The outcome of pruning.
struct Pruned {
    stages: Stages,
    groups: Vec<Group>,
    stats: FilterStats,
}

impl<S: Source> FileDecoder<S> {
    /// Whether reads check strings for UTF-8 (some or all of them).
    pub(crate) fn checks_strings(&self) -> bool {
        self.options.check_strings || !self.options.utf8_columns.is_empty()
    }

    /// This file with other row groups selected.
    fn with_row_groups(&self, row_groups: Vec<usize>) -> FileDecoder<S> {
        self.with_rows(row_groups, self.options.selection.clone())
    }

    /// This file with other row groups and rows selected.
    fn with_rows(&self, row_groups: Vec<usize>, selection: Option<RowSelection>) -> FileDecoder<S> {
        let mut reader = self.clone_handle();
        reader.options.row_groups = Some(row_groups);
        reader.options.selection = selection;
        reader
    }

    /// This file's `row_groups` (`rows` rows in all) through `selection`, or through none
    /// where it keeps every row of them: reads without a selection take the plain paths.
    fn with_selected_rows(
        &self,
        row_groups: Vec<usize>,
        selection: &RowSelection,
        rows: u64,
    ) -> FileDecoder<S> {
        let whole = selection.row_count() == rows;
        if whole {
            probe::hit("predicate.whole_row_groups_unselected");
        }
        self.with_rows(row_groups, (!whole).then(|| selection.clone()))
    }

    /// Prune, then evaluate exactly over the row groups left (`None` when there are none),
    /// keeping the flat columns of `projection` that the predicate decodes. The row groups
    /// are evaluated, and read after, in file order, whatever the order of
    /// [`ReadOptions::row_groups`](crate::read::ReadOptions::row_groups).
    fn evaluate(
        &self,
        expr: &Expr,
        projection: &[Select],
    ) -> Result<(Pruned, Option<Evaluated<S>>)> {
        let mut p = self.prune_groups(expr)?;
        if p.groups.is_empty() {
            return Ok((p, None));
        }
        // In file order, as the rows of the pruned selection are: the mask follows the
        // groups, and each of its bits must fall on its own row.
        p.groups.sort_unstable_by_key(|g| g.row_group);
        let e = self.evaluate_groups(&p.stages, &p.groups, projection, false)?;
        p.stats.rows_matched = e.matched_rows;
        Ok((p, Some(e)))
    }

    /// Step (e) over `groups`: evaluate the predicate stage by stage (see [`Stages`]) and
    /// keep (filtered) the flat top-level columns of `projection` among its inputs.
    ///
    /// The first stage decodes its columns for every row pruning left. Each later one
    /// decodes its columns through the selection of the rows still in, where those come in
    /// runs long enough to skip between ([`Materialise::Auto`]); else for every row again,
    /// its mask ANDed with theirs.
    ///
    /// With `hold_whole` (the caller may pass the row groups whole), the projected predicate
    /// columns decoded for every pruned row are also held unfiltered, for
    /// [`Evaluated::pass_all`].
    fn evaluate_groups(
        &self,
        stages: &Stages,
        groups: &[Group],
        projection: &[Select],
        hold_whole: bool,
    ) -> Result<Evaluated<S>> {
        // Only the rows pruning left are decoded: pages without one are skipped.
        let pruned = RowSelection::from_ranges(
            groups
                .iter()
                .flat_map(|g| g.selection.ranges().iter().cloned()),
        );
        let group_ids: Vec<usize> = groups.iter().map(|g| g.row_group).collect();
        let group_rows: u64 = groups.iter().map(|g| g.rows).sum();
        let reader = self.with_selected_rows(group_ids.clone(), &pruned, group_rows);
        let total = pruned.row_count();
        let total = usize::try_from(total)
            .map_err(|_| Error::format(format!("{total} rows do not fit in memory")))?;
        let projected: Vec<usize> = projection
            .iter()
            .filter_map(|p| self.top_level_leaf(p))
            .collect();

        let order = stages.order();
        // Which rows pruning left are still in (`None`: all of them).
        let mut passing: Option<BooleanBuffer> = None;
        let mut rows_left = total;
        // Unfiltered columns of the stages before the last, with the rows they hold (`None`:
        // every pruned row; else the rows in as the stage began).
        let mut held: Vec<(usize, Parts, Option<BooleanBuffer>)> = Vec::new();
        let mut kept: HashMap<usize, Parts> = HashMap::new();
        for (n, &k) in order.iter().enumerate() {
            // The last stage's columns are filtered batch by batch, unless held whole.
            let last = n + 1 == order.len() && !hold_whole;
            let rows_in = rows_left;
            if rows_in == 0 {
                probe::hit("predicate.stage_without_rows");
                break;
            }
            let keep: Vec<usize> = projected
                .iter()
                .copied()
                .filter(|c| !kept.contains_key(c) && held.iter().all(|h| h.0 != *c))
                .collect();
            let started = Instant::now();
            let narrowed = passing
                .as_ref()
                .filter(|p| {
                    let runs = runs_of(&pruned, p);
                    Materialise::Auto.by_selection((rows_in as u64, runs), total as u64, false)
                })
                .map(|p| rows_of(&pruned, p));
            let before = passing.take();
            let (stage, rows_decoded, held_rows) = match (before, narrowed) {
                (Some(before), Some(rows)) => {
                    probe::hit("predicate.stage_by_selection");
                    let r = self.with_selected_rows(group_ids.clone(), &rows, group_rows);
                    let (m, cols) =
                        self.evaluate_stage(&r, stages.node(k), rows_in, None, &keep, last)?;
                    passing = Some(narrow_within(&before, &m));
                    (cols, rows_in, Some(before))
                }
                (before, _) => {
                    let (m, cols) = self.evaluate_stage(
                        &reader,
                        stages.node(k),
                        total,
                        before.as_ref(),
                        &keep,
                        last,
                    )?;
                    passing = Some(m);
                    (cols, total, None)
                }
            };
            let rows_out = passing.as_ref().map_or(0, BooleanBuffer::count_set_bits);
            rows_left = rows_out;
            stages.record(
                k,
                (rows_in as u64, rows_out as u64, rows_decoded as u64),
                started.elapsed(),
            );
            for (c, parts) in stage {
                let Some(parts) = Parts::new(parts) else {
                    continue;
                };
                if last {
                    kept.insert(c, parts);
                } else {
                    held.push((c, parts, held_rows.clone()));
                }
            }
        }
        let mask = passing.unwrap_or_else(|| BooleanBuffer::new_unset(total));
        let mut whole = HashMap::new();
        for (c, col, rows) in held {
            let m = match rows {
                None => mask.clone(),
                Some(before) => before.set_indices().map(|i| mask.value(i)).collect(),
            };
            if m.len() != col.len() {
                return Err(rows_differ(
                    "of the predicate",
                    col.len() as u64,
                    m.len() as u64,
                ));
            }
            kept.insert(c, col.filter(&m));
            if hold_whole && m.len() == total {
                whole.insert(c, col);
            }
        }
        // The mask is over the pruned rows, group after group.
        let mut matched_groups = (Vec::new(), 0);
        let mut at = 0usize;
        for g in groups {
            let len = g.selection.row_count() as usize;
            if mask.slice(at, len).count_set_bits() > 0 {
                matched_groups.0.push(g.row_group);
                matched_groups.1 += g.rows;
            } else {
                probe::hit("predicate.row_group_without_match");
            }
            at += len;
        }
        Ok(Evaluated {
            pruned_groups: (group_ids, group_rows),
            matched_rows: mask.count_set_bits() as u64,
            matched_runs: runs_of(&pruned, &mask),
            matched_groups,
            matched: OnceLock::new(),
            matched_reader: OnceLock::new(),
            pruned,
            pruned_reader: reader,
            mask,
            kept,
            whole,
        })
    }

    /// One stage: stream `node`'s columns through `reader` (`total` rows) batch by batch,
    /// evaluate each batch, AND it with `before` (over the same rows) if given, and return
    /// the mask with the columns of `keep` among its flat inputs, filtered by the mask where
    /// `filter` (the stage is the last one), else whole.
    fn evaluate_stage(
        &self,
        reader: &FileDecoder<S>,
        node: &Node,
        total: usize,
        before: Option<&BooleanBuffer>,
        keep: &[usize],
        filter: bool,
    ) -> Result<(BooleanBuffer, HashMap<usize, Vec<Column>>)> {
        let schema = &self.schema;
        let inputs = node.inputs();
        let is_flat =
            |(c, of_struct): Input| of_struct.is_none() && reader.column_reader(c).is_ok();
        let flat: Vec<usize> = inputs
            .iter()
            .filter(|&&i| is_flat(i))
            .map(|&(c, _)| c)
            .collect();
        // Byte arrays are read as keys where their pages are dictionary-encoded: a test runs
        // once per dictionary value, then a lookup per key (probe
        // `predicate.eval_dictionary_once`). Kept so, they are looked up only for the rows
        // returned (`Evaluated::kept_column`).
        let keyed: Vec<usize> = flat
            .iter()
            .copied()
            .filter(|&c| {
                matches!(
                    schema.leaf(c).physical_type,
                    Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY
                ) && !reader.options.dictionary_keys.contains(&c)
            })
            .collect();
        let mut streams = Vec::new();
        if !flat.is_empty() {
            let batches = if keyed.is_empty() {
                reader.batches(&flat, EVAL_BATCH)?
            } else {
                let mut by_keys = reader.clone_handle();
                by_keys.options.dictionary_keys.extend(&keyed);
                by_keys.batches(&flat, EVAL_BATCH)?
            };
            streams.push(LeafStream::Flat(flat.clone(), batches));
        }
        for &input in inputs.iter().filter(|&&i| !is_flat(i)) {
            let path = schema.leaf(input.0).path_string();
            let batches = reader.array_batches(&[Select::Leaf(input.0)], EVAL_BATCH)?;
            streams.push(LeafStream::Nested(input, path, batches));
        }
        for v in node.variant_paths() {
            let leaves = self.variant_path_leaves(&v.group, &v.path)?;
            let leaves: Vec<&str> = leaves.iter().map(String::as_str).collect();
            let batches = reader.array_batches(&leaves, EVAL_BATCH)?;
            let segments = v.path.split('.').map(str::to_string).collect();
            streams.push(LeafStream::Variant(v.dotted(), segments, batches));
        }
        let keep: Vec<usize> = keep.iter().copied().filter(|c| flat.contains(c)).collect();
        let mut kept: HashMap<usize, Vec<Column>> = HashMap::new();
        // `total` comes from the footer's row counts: the mask grows as batches decode.
        let mut mask = BooleanBufferBuilder::new(total.min(EVAL_BATCH));
        let mut at = 0usize;
        let mut columns = HashMap::new();
        let mut variants = VariantValues::new();
        loop {
            columns.clear();
            variants.clear();
            let mut rows: Option<usize> = None;
            let mut ended = 0;
            for s in &mut streams {
                match s.next(&mut columns, &mut variants)? {
                    Some(n) if rows.is_none_or(|r| r == n) => rows = Some(n),
                    Some(n) => {
                        return Err(Error::format(format!(
                            "predicate columns disagree on a batch: {n} and {rows:?} rows"
                        )))
                    }
                    None => ended += 1,
                }
            }
            let n = match (rows, ended) {
                (None, _) if streams.is_empty() && at < total => (total - at).min(EVAL_BATCH),
                (None, _) => break,
                (Some(n), 0) => n,
                (Some(_), _) => {
                    return Err(Error::format("predicate columns end at different rows"))
                }
            };
            if at + n > total {
                return Err(rows_differ(
                    "of the predicate",
                    (at + n) as u64,
                    total as u64,
                ));
            }
            let mut m = eval(node, &columns, &variants, n)?;
            if let Some(b) = before {
                m = &m & &b.slice(at, n);
            }
            for c in &keep {
                if let Some(col) = columns.get(&(*c, None)) {
                    let part = if filter {
                        filter_column(col, &m)
                    } else {
                        col.clone()
                    };
                    kept.entry(*c).or_default().push(part);
                }
            }
            mask.append_buffer(&m);
            at += n;
        }
        if at != total {
            return Err(rows_differ("of the predicate", at as u64, total as u64));
        }
        Ok((mask.finish(), kept))
    }

    /// Steps (a)–(d): statistics, column index, bloom filters, dictionaries.
    fn prune_groups(&self, expr: &Expr) -> Result<Pruned> {
        let node = Node::bind(expr, &self.schema)?;
        let columns = node.tested_columns();
        let orders = self.metadata.column_orders.as_ref();
        let starts = self.row_group_first_rows();
        let mut stats = FilterStats::default();
        let mut groups = Vec::new();
        for rg in self.selected_row_groups() {
            let group = &self.metadata.row_groups[rg];
            let (first_row, rows) = (starts[rg], group.num_rows.max(0) as u64);
            stats.row_groups += 1;
            stats.rows += rows;
            let pruned = |stats: &mut FilterStats, probe_name: &'static str| {
                probe::hit(probe_name);
                stats.row_groups_pruned += 1;
            };

            // (a) Row-group statistics.
            let by_stats = node.prunes(&mut |leaf| {
                let Some(meta) = group.columns[leaf.column].meta_data.as_ref() else {
                    return Ok(false);
                };
                let order = orders.and_then(|o| o.get(leaf.column));
                Ok(stats::chunk_prunes(leaf, meta, order, &group.columns))
            })?;
            if by_stats {
                stats.pruned_by_statistics += 1;
                pruned(&mut stats, "predicate.row_group_pruned_by_statistics");
                continue;
            }

            // (b) The column index, page by page.
            let mut indexes = PageIndexes::new();
            let mut all = RowSelection::from_ranges(std::iter::once(first_row..first_row + rows));
            if let Some(user) = &self.options.selection {
                all = all.intersection(user);
            }
            let selection = node.select(&all, &mut |leaf| {
                if leaf.variant.is_some() {
                    return Ok(None); // `value` columns may hold what the typed leaf misses
                }
                let Some((index, pages)) = self.page_index(rg, leaf.column, rows, &mut indexes)?
                else {
                    return Ok(None);
                };
                let order = orders.and_then(|o| o.get(leaf.column));
                Ok(
                    page_index::leaf_ranges(&leaf.test, leaf.domain, order, index, pages).map(
                        |r| {
                            RowSelection::from_ranges(
                                r.into_iter()
                                    .map(|r| first_row + r.start..first_row + r.end),
                            )
                        },
                    ),
                )
            })?;
            if selection.is_empty() {
                stats.pruned_by_page_index += 1;
                pruned(&mut stats, "predicate.row_group_pruned_by_page_index");
                continue;
            }

            // (c) Bloom filters.
            let mut filters: HashMap<usize, Option<Sbbf>> = HashMap::new();
            let by_bloom = node.prunes(&mut |leaf| {
                if leaf.variant.is_some() {
                    return Ok(false);
                }
                let type_length = self.schema.leaf(leaf.column).type_length;
                let Some(hashes) = bloom::leaf_hashes(leaf, type_length) else {
                    return Ok(false);
                };
                let filter = match filters.entry(leaf.column) {
                    Entry::Occupied(e) => e.into_mut(),
                    // A filter parq cannot read (unknown algorithm, encrypted) prunes nothing.
                    Entry::Vacant(e) => e.insert(match self.read_bloom_filter(rg, leaf.column) {
                        Err(Error::Unsupported(_)) => None,
                        other => other?,
                    }),
                };
                Ok(filter.as_ref().is_some_and(|f| bloom::excludes(f, &hashes)))
            })?;
            if by_bloom {
                stats.pruned_by_bloom_filter += 1;
                pruned(&mut stats, "predicate.row_group_pruned_by_bloom_filter");
                continue;
            }

            // (d) Dictionary pages.
            let mut dictionaries: HashMap<usize, Option<Column>> = HashMap::new();
            let by_dictionary = node.prunes(&mut |leaf| {
                if !dictionary::tests_values(leaf) || leaf.variant.is_some() {
                    return Ok(false);
                }
                let dict = match dictionaries.get(&leaf.column) {
                    Some(d) => d,
                    None => {
                        let fully = group.columns[leaf.column]
                            .meta_data
                            .as_ref()
                            .is_some_and(dictionary::fully_dictionary_encoded);
                        let d = if fully {
                            self.read_dictionary_page(rg, leaf.column)?
                        } else {
                            None
                        };
                        dictionaries.entry(leaf.column).or_insert(d)
                    }
                };
                Ok(dict.as_ref().is_some_and(|d| dictionary::prunes(leaf, d)))
            })?;
            if by_dictionary {
                stats.pruned_by_dictionary += 1;
                pruned(&mut stats, "predicate.row_group_pruned_by_dictionary");
                continue;
            }

            // Pages of the predicate's columns that hold no selected row.
            for &c in &columns {
                if let Some((_, pages)) = self.page_index(rg, c, rows, &mut indexes)? {
                    stats.pages += pages.len();
                    let skipped = pages
                        .iter()
                        .filter(|r| !selection.intersects(first_row + r.start..first_row + r.end))
                        .count();
                    probe::hit_n("predicate.page_pruned", skipped as u64);
                    stats.pages_pruned += skipped;
                }
            }
            stats.rows_selected += selection.row_count();
            groups.push(Group {
                row_group: rg,
                rows,
                selection,
            });
        }
        Ok(Pruned {
            stages: Stages::of(&node, &self.schema),
            groups,
            stats,
        })
    }

    /// The column index of `column` in `rg` with its pages' row ranges, read once per row
    /// group; `None` when either index is missing or they do not fit together.
    fn page_index<'a>(
        &self,
        rg: usize,
        column: usize,
        rows: u64,
        cache: &'a mut PageIndexes,
    ) -> Result<Option<&'a PageIndex>> {
        if let Entry::Vacant(slot) = cache.entry(column) {
            let loaded = match (
                self.read_column_index(rg, column)?,
                self.read_offset_index(rg, column)?,
            ) {
                (Some(ci), Some(oi)) => {
                    let nullable = self.schema.leaf(column).max_def_level > 0;
                    page_index::page_rows(&oi, rows)
                        .filter(|pages| page_index::plausible(&ci, pages, nullable))
                        .map(|pages| (ci, pages))
                }
                _ => None,
            };
            slot.insert(loaded);
        }
        Ok(cache.get(&column).and_then(Option::as_ref))
    }

    pub(crate) fn prune(&self, expr: &Expr) -> Result<(RowSelection, FilterStats)> {
        let p = self.prune_groups(expr)?;
        let ranges = p
            .groups
            .iter()
            .flat_map(|g| g.selection.ranges().iter().cloned());
        Ok((RowSelection::from_ranges(ranges), p.stats))
    }
}

impl<S: Source> ParquetReader<S> {
    /// The rows (file row numbers) that may satisfy `expr`, found from metadata alone:
    /// row-group statistics, the column index, bloom filters and dictionary pages. Every
    /// matching row is in the selection; rows that do not match may be too.
    pub fn prune(&self, expr: &Expr) -> Result<(RowSelection, FilterStats)> {
        self.decoder.prune(expr)
    }

    /// The rows (file row numbers) that satisfy `expr`, exactly.
    pub fn filter_rows(&self, expr: &Expr) -> Result<(RowSelection, FilterStats)> {
        self.decoder.filter_rows(expr)
    }

    /// Read `columns` (top-level field names or leaf dotted paths, as
    /// [`Self::read_field_by_path`] takes them) for the rows that satisfy `expr`: the
    /// builder's one-batch read ([`ReadBuilder::read_all`](crate::read::ReadBuilder::read_all))
    /// with `expr` as its filter. Columns under one top-level field come back as that field,
    /// once, as the builder's projection gives them.
    ///
    /// Row groups and pages are pruned first (see [`Self::prune`]); the predicate's columns
    /// are decoded for the row groups left and evaluated exactly; the projected columns are
    /// then decoded for those row groups and only the matching rows kept.
    pub fn read_filtered<C>(
        &self,
        columns: &[C],
        expr: &Expr,
    ) -> Result<(Vec<(Field, Array)>, FilterStats)>
    where
        for<'c> &'c C: Into<Select>,
    {
        let (batch, stats) = self
            .read_builder()
            .with_projection(selects(columns))
            .with_filter(expr.clone())
            .read_all_with_stats()?;
        Ok((batch.fields.into_iter().zip(batch.arrays).collect(), stats))
    }
}

impl<S: Source> FileDecoder<S> {
    /// The rows (file row numbers) that satisfy `expr`, exactly.
    pub(crate) fn filter_rows(&self, expr: &Expr) -> Result<(RowSelection, FilterStats)> {
        let (p, evaluated) = self.evaluate(expr, &[])?;
        let Some(e) = evaluated else {
            return Ok((RowSelection::none(), p.stats));
        };
        let matched = e.matched().clone();
        Ok((matched, p.stats))
    }

    /// The fields `plans` for the rows that satisfy `expr`, each read whole: the filter's
    /// columns decoded once, the others by the matches' selection or for every pruned row
    /// and kept by the mask, as `how` says.
    pub(crate) fn read_filtered(
        &self,
        plans: Vec<FieldPlan>,
        expr: &Expr,
        how: Materialise,
    ) -> Result<(Vec<(Field, Array)>, FilterStats)> {
        // The flat top-level columns, which the evaluation keeps as it decodes them.
        let flat: Vec<Select> = plans
            .iter()
            .filter_map(|p| match p.kind {
                PlanKind::Leaf { column, .. } => Some(Select::Leaf(column)),
                _ => None,
            })
            .collect();
        let (p, evaluated) = self.evaluate(expr, &flat)?;
        let Some(e) = evaluated else {
            // Nothing survived pruning: empty arrays of the right shapes.
            let none = self.with_row_groups(Vec::new());
            let out = plans
                .into_iter()
                .map(|plan| none.read_plan(plan))
                .collect::<Result<_>>()?;
            return Ok((out, p.stats));
        };
        // The mask's indices once for every column read whole.
        let keep = (!e.by_selection(how, self.checks_strings())).then(|| Keep::of(&e.mask));
        let out = plans
            .into_iter()
            .map(|plan| e.materialise(plan, keep.as_ref()))
            .collect::<Result<_>>()?;
        Ok((out, p.stats))
    }
}

/// The leaf of a projected field of non-repeated structs, one slot per row, with the
/// structs' nulls folded into its validity: all of them and its own, or (`of_struct` is
/// `Some(k)`) those of the first `k` structs only, the nulls of the struct they make.
fn flatten_leaf(mut array: Array, path: &str, of_struct: Option<usize>) -> Result<Column> {
    let mut validity: Option<NullBuffer> = None;
    let mut depth = 0;
    loop {
        match array {
            Array::Primitive(mut c) => {
                let own = if of_struct.is_some() {
                    None
                } else {
                    c.validity.as_ref()
                };
                c.validity =
                    NullBuffer::union(validity.as_ref(), own).filter(|v| v.null_count() > 0);
                return Ok(c);
            }
            Array::Struct(s) if s.children.len() == 1 => {
                if of_struct.is_none_or(|k| depth < k) {
                    validity = NullBuffer::union(validity.as_ref(), s.validity.as_ref());
                }
                depth += 1;
                array = s.children.into_iter().next().ok_or_else(|| {
                    Error::InvalidArgument(format!("column {path}: empty struct"))
                })?;
            }
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "column {path}: predicates apply to leaves that are not repeated"
                )))
            }
        }
    }
}
