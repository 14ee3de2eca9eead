//! The push decoder: batches from pushed bytes, one row group at a time.

use std::collections::{BTreeSet, VecDeque};
use std::ops::Range;
use std::sync::{Arc, Mutex};

use bytes::Bytes;
use parq_codecs::probe;

use super::ahead::Ahead;
use super::buffer::{coalesce, split, Snapshot, Spans};
use super::dynamic::DynamicFilter;
use super::fetch_plan::{data_ranges, index_ranges, partial_selection, IoOptions};
use super::footer::Footer;
use super::span_index::SpanIndex;
use super::whole::{WholeItem, WholeRead};
use crate::array::Array;
use crate::field::Field;
use crate::predicate::filter::{Evaluated, GroupBatches, RowGroupFilter};
use crate::predicate::prune_plan::PrunePlan;
use crate::predicate::{Expr, FilterStats, Materialise};
use crate::read::batch::ColumnBatches;
use crate::read::builder::cut_runs;
use crate::read::nested::FieldBatches;
use crate::read::parallel::uncompressed_bytes;
use crate::read::positions::{Positions, VirtualColumns};
#[cfg(doc)]
use crate::read::ParquetReader;
use crate::read::{ArrayBatch, FileDecoder, ReadOptions, RowSelection, Select, Source};
use crate::schema::plan::FieldPlan;
use crate::{Error, Result};

/// Options of a [`PushDecoder`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct PushOptions {
    /// Row groups, selection, byte-array layout, checks and threads, as for
    /// [`ParquetReader`].
    pub read: ReadOptions,
    /// Top-level fields or leaves, by name or index ([`Select`]), as for
    /// [`ParquetReader::array_batches`]; `None`: every field.
    pub projection: Option<Vec<Select>>,
    /// Rows per batch (the last of each row group may be shorter).
    pub batch_size: usize,
    /// Request shaping.
    pub io: IoOptions,
    /// Skip the rows that cannot satisfy this predicate, found from metadata: row groups
    /// by their statistics (before any byte is asked for), then, for each row group left,
    /// by the column index, bloom filters and dictionary pages, and pages by the column
    /// index, as [`ParquetReader::prune`] does. The column and offset indexes and bloom
    /// filters of the predicate's columns are asked for (in one round) only when a row
    /// group is left after its statistics; a dictionary page only when the others leave
    /// it. The batches then hold every row that may match, and some that do not: filter
    /// them exactly with [`BoundPredicate`](crate::predicate::BoundPredicate), or read
    /// with [`filter`](Self::filter). [`PushDecoder::filter_stats`] says what was pruned.
    pub predicate: Option<Expr>,
    /// Return only the rows that satisfy this predicate (exact, unlike
    /// [`predicate`](Self::predicate)). It prunes as the predicate does; then, row group by
    /// row group, the bytes of the columns it reads are asked for and it is evaluated; the
    /// other projected columns are asked for and decoded only for the rows that match
    /// (pages without a match are never fetched), or for every row pruning left and then
    /// filtered, as [`materialise`](Self::materialise) decides. A projected column the
    /// filter reads is decoded once. A row group without a match asks for nothing more.
    pub filter: Option<Expr>,
    /// How [`filter`](Self::filter) reads the columns it did not decode.
    pub materialise: Materialise,
    /// Whether every batch holds only rows that satisfy [`filter`](Self::filter) (default).
    /// `false`, for a caller that filters again itself (an engine whose filter runs above
    /// the scan): the filter stops where it pays too little, once a row group's matches are
    /// [`FILTER_DROP_RATIO`] of its rows or more: that row group passes whole (probe
    /// `push.filter_passes_all`) and the row groups not yet evaluated are read unfiltered
    /// (probe `push.filter_dropped`).
    pub filter_exact: bool,
    /// A [`filter`](Self::filter) its owner may change during the read (see
    /// [`DynamicFilter`]); with it, `filter` must be `None`.
    pub dynamic_filter: Option<DynamicFilter>,
    /// Rows to pass over, counted over the rows the decoder returns (after the selection,
    /// the predicate and the filter), in file order.
    pub offset: u64,
    /// At most this many rows in all, after the offset; nothing is asked for once they are
    /// returned. Without a predicate or a filter, the offset and the limit narrow the
    /// selection before anything is planned, so the row groups and pages outside are never
    /// fetched.
    pub limit: Option<u64>,
    /// Append a column of this name (INT64, required) holding each row's position in the
    /// file: its row number counting every row of every row group from 0, whatever the
    /// decoder pruned, skipped or filtered out. Not with an inexact or dynamic
    /// [`filter`](Self::filter), whose batches would not say which rows they kept.
    pub row_number_column: Option<String>,
    /// Append a column of this name (INT32, required) holding the index of each row's row
    /// group (after the row-number column when both are asked for); as
    /// [`row_number_column`](Self::row_number_column), not under an inexact filter.
    pub row_group_column: Option<String>,
    /// Whether row groups after the one being decoded are planned (and listed by
    /// [`PushDecoder::wanted`]) while their bytes fit
    /// [`ReadOptions::plan_ahead_bytes`] (default `true`): a driver whose source answers at
    /// once (a local file) gains nothing from fetching ahead, and holds less without it.
    pub plan_ahead: bool,
}

impl Default for PushOptions {
    fn default() -> Self {
        PushOptions {
            read: ReadOptions::default(),
            projection: None,
            batch_size: 8192,
            io: IoOptions::default(),
            plan_ahead: true,
            predicate: None,
            filter: None,
            materialise: Materialise::Auto,
            filter_exact: true,
            dynamic_filter: None,
            offset: 0,
            limit: None,
            row_number_column: None,
            row_group_column: None,
        }
    }
}

impl PushOptions {
    /// These options with [`read`](Self::read) set to `v`.
    pub fn with_read(mut self, v: ReadOptions) -> Self {
        self.read = v;
        self
    }

    /// These options with [`projection`](Self::projection) set to `v`.
    pub fn with_projection(mut self, v: Option<Vec<Select>>) -> Self {
        self.projection = v;
        self
    }

    /// These options with [`batch_size`](Self::batch_size) set to `v`.
    pub fn with_batch_size(mut self, v: usize) -> Self {
        self.batch_size = v;
        self
    }

    /// These options with [`io`](Self::io) set to `v`.
    pub fn with_io(mut self, v: IoOptions) -> Self {
        self.io = v;
        self
    }

    /// These options with [`plan_ahead`](Self::plan_ahead) set to `v`.
    pub fn with_plan_ahead(mut self, v: bool) -> Self {
        self.plan_ahead = v;
        self
    }

    /// These options with [`predicate`](Self::predicate) set to `v`.
    pub fn with_predicate(mut self, v: Option<Expr>) -> Self {
        self.predicate = v;
        self
    }

    /// These options with [`filter`](Self::filter) set to `v`.
    pub fn with_filter(mut self, v: Option<Expr>) -> Self {
        self.filter = v;
        self
    }

    /// These options with [`dynamic_filter`](Self::dynamic_filter) set to `v`.
    pub fn with_dynamic_filter(mut self, v: Option<DynamicFilter>) -> Self {
        self.dynamic_filter = v;
        self
    }

    /// These options with [`offset`](Self::offset) set to `v`.
    pub fn with_offset(mut self, v: u64) -> Self {
        self.offset = v;
        self
    }

    /// These options with [`limit`](Self::limit) set to `v`.
    pub fn with_limit(mut self, v: Option<u64>) -> Self {
        self.limit = v;
        self
    }

    /// These options with [`row_number_column`](Self::row_number_column) set to `name`.
    pub fn with_row_number_column(mut self, name: impl Into<String>) -> Self {
        self.row_number_column = Some(name.into());
        self
    }

    /// These options with [`row_group_column`](Self::row_group_column) set to `name`.
    pub fn with_row_group_column(mut self, name: impl Into<String>) -> Self {
        self.row_group_column = Some(name.into());
        self
    }

    /// The virtual columns these options ask for.
    pub(crate) fn virtual_columns(&self) -> VirtualColumns {
        VirtualColumns {
            row_number: self.row_number_column.clone(),
            row_group: self.row_group_column.clone(),
        }
    }

    /// These options with [`filter_exact`](Self::filter_exact) set to `v`.
    pub fn with_filter_exact(mut self, v: bool) -> Self {
        self.filter_exact = v;
        self
    }

    /// These options with [`materialise`](Self::materialise) set to `v`.
    pub fn with_materialise(mut self, v: Materialise) -> Self {
        self.materialise = v;
        self
    }
}

/// Of the rows a row group's filter evaluated, the share of matches from which a filter that
/// need not be exact ([`PushOptions::filter_exact`]) stops: filtering then copies nearly every
/// row to drop a few, which the caller's own filter does anyway.
pub const FILTER_DROP_RATIO: f64 = 0.875;

/// What a [`PushDecoder`] answers.
#[derive(Debug)]
pub enum DecodeResult {
    /// Push these byte ranges (in file order, the row group to decode next first).
    NeedsData(Vec<Range<u64>>),
    /// The next batch.
    Batch(ArrayBatch),
    /// Every selected row has been returned.
    Finished,
}

/// Where a row group's planning stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Under a predicate: waiting for what pruning reads (indexes, bloom filters,
    /// dictionary pages); nothing asked for yet when its spans are empty.
    Prune,
    /// Nothing asked for yet.
    Unplanned,
    /// Waiting for offset indexes, to plan the pages of a selection.
    Index,
    /// Waiting for (or holding) the data.
    Data,
}

/// What each row group is decoded into.
#[derive(Debug)]
enum Output {
    /// Fields: top-level names or leaf paths ([`PushOptions::projection`]).
    Fields(Vec<Select>),
    /// Flat leaf columns by index, for [`ParquetReader::batches`]: each batch holds one
    /// [`Array::Primitive`] per leaf, in the order given, and no fields.
    Leaves(Vec<usize>),
    /// Whole columns, for [`ParquetReader::read_column`] and its siblings: one batch at the
    /// end, one array per item and no fields (see [`super::whole`]). `None` once handed out.
    Whole(Option<WholeRead>),
}

/// The batches of the row group being decoded.
enum RowGroupBatches {
    Fields(FieldBatches<PushedBytes>),
    Leaves(ColumnBatches<PushedBytes>),
    /// A row group decoded ahead on a thread of its own ([`Ahead`]).
    Decoded(std::vec::IntoIter<Result<ArrayBatch>>),
    /// The matches of an exact filter ([`PushOptions::filter`]): fields, rows per batch.
    Filtered(Box<GroupBatches<PushedBytes>>, Vec<Field>, usize),
    /// An empty projection: batches of rows without arrays (rows left, rows per batch).
    Rows(u64, usize),
}

impl RowGroupBatches {
    /// See [`ColumnBatches::into_decoders`].
    /// `None` for a row group decoded ahead (its decoders stayed on its thread).
    fn into_decoders(self) -> Option<Vec<crate::read::decode::ChunkDecoder>> {
        match self {
            RowGroupBatches::Fields(b) => Some(b.into_decoders()),
            RowGroupBatches::Leaves(b) => Some(b.into_decoders()),
            RowGroupBatches::Decoded(_)
            | RowGroupBatches::Filtered(..)
            | RowGroupBatches::Rows(..) => None,
        }
    }

    fn next(&mut self) -> Option<Result<ArrayBatch>> {
        match self {
            RowGroupBatches::Fields(b) => b.next(),
            RowGroupBatches::Leaves(b) => Some(b.next()?.map(|b| ArrayBatch {
                num_rows: b.num_rows,
                fields: Vec::new(),
                arrays: b.columns.into_iter().map(Array::Primitive).collect(),
            })),
            RowGroupBatches::Decoded(b) => b.next(),
            RowGroupBatches::Rows(left, batch_size) => {
                let n = (*left).min(*batch_size as u64) as usize;
                *left -= n as u64;
                (n > 0).then(|| {
                    Ok(ArrayBatch {
                        num_rows: n,
                        fields: Vec::new(),
                        arrays: Vec::new(),
                    })
                })
            }
            RowGroupBatches::Filtered(b, fields, batch_size) => {
                let next = b.next(*batch_size).transpose()?;
                Some(next.map(|(num_rows, arrays)| ArrayBatch {
                    num_rows,
                    fields: fields.clone(),
                    arrays,
                }))
            }
        }
    }
}

/// Decompressed bytes (of the projected leaves, from the footer) a row group must hold to be
/// decoded ahead on a thread of its own: starting a thread costs tens of microseconds, and a
/// row group this size takes a fraction of a millisecond or more to decode. Fuzzing's small
/// inputs reach the pipeline too.
const AHEAD_MIN_BYTES: u64 = if cfg!(fuzzing) { 0 } else { 256 << 10 };

/// How streamed batches of nested fields use the reader's threads (see [`super::ahead`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Pipeline {
    /// One row group at a time, on the calling thread: one thread, flat columns only, or
    /// another output.
    Off,
    /// A row group to decode ahead starts once its bytes are pushed; until then the front
    /// row group streams without waiting for them. For a decoder its caller drives: the
    /// bytes are listed by [`PushDecoder::wanted`], which a driver fetching ahead asks
    /// after every batch.
    WhenPushed,
    /// Their bytes are asked for ([`DecodeResult::NeedsData`]) before the front row group's
    /// next batch, for a driver that reads what it is asked for at once.
    AskFirst,
}

/// One row group still to decode.
#[derive(Debug)]
struct Group {
    rg: usize,
    /// Its name in the span index: its place among the row groups read, which stays its
    /// own as groups before it go.
    key: u64,
    /// File row number of its first row.
    first_row: u64,
    /// Its rows (of the row group) under the selection and pruning, when they leave some
    /// out.
    partial: Option<RowSelection>,
    phase: Phase,
    spans: Spans,
    /// Spans it wants that no request listed yet (by their starts).
    unlisted: Vec<u64>,
    /// Pruning has asked for its bytes.
    prune_asked: bool,
    /// Pruning (or the exact filter) ruled out every row.
    pruned: bool,
    /// The leaf columns its next ranges are planned for (`None`: the projected ones).
    leaves: Option<Vec<usize>>,
    filter: FilterStage,
    /// The exact filter it is evaluated with (see [`FilterStage::Predicate`]).
    row_filter: Option<Arc<RowGroupFilter>>,
}

impl Group {
    /// Planning has nothing left to do for it: all its data is here and no filter waits to
    /// be evaluated over it. Only the dynamic filter's next version changes that
    /// ([`PushDecoder::refresh_filter`]).
    fn settled(&self) -> bool {
        self.phase == Phase::Data
            && !self.pruned
            && !matches!(self.filter, FilterStage::Predicate)
            && self.spans.complete()
    }
}

/// Where a row group stands under an exact filter ([`PushOptions::filter`]).
enum FilterStage {
    /// No filter.
    Off,
    /// Its bytes planned are those of its filter's columns ([`Group::row_filter`]), for
    /// the rows pruning left.
    Predicate,
    /// Evaluated; the other columns are planned for its matches, read by selection or not.
    Evaluated(Box<Evaluated<PushedBytes>>, bool),
    /// Its matches are being decoded.
    Decoding,
}

impl std::fmt::Debug for FilterStage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            FilterStage::Off => "Off",
            FilterStage::Predicate => "Predicate",
            FilterStage::Evaluated(..) => "Evaluated",
            FilterStage::Decoding => "Decoding",
        })
    }
}

/// The push decoder: batches from pushed bytes, one row group at a time.
///
/// A [`PushDecoder`] is built from a [`Footer`] and [`PushOptions`] and does no I/O. Each
/// [`try_next`](PushDecoder::try_next) answers one of
/// - [`DecodeResult::NeedsData`]: byte ranges to push: those planned since the last
///   listing, and every range the row group it decodes next still lacks (listed again until
///   they arrive, so a driver that keeps requests in flight skips those it has already asked
///   for);
/// - [`DecodeResult::Batch`]: the next batch;
/// - [`DecodeResult::Finished`].
///
/// [`push`](PushDecoder::push) takes bytes at any offset, in any pieces and any order;
/// whatever falls outside the ranges asked for is dropped at once. When a row group is
/// decoded its ranges are let go and listed by [`take_released`](PushDecoder::take_released).
///
/// **Memory.** The decoder plans row groups ahead while the bytes they want fit in
/// [`ReadOptions::plan_ahead_bytes`] (a 32nd of the read's
/// [`max_memory`](ReadOptions::max_memory)) together with those already planned, so a
/// driver can fetch the next row groups while the current one decodes. The row group being
/// decoded is always planned, so one row group's projected bytes larger than the budget are
/// the floor.
/// Pushed bytes are held only inside planned ranges, so the decoder holds at most
/// `max(budget, the current row group's bytes)`, plus the decoded batches the caller keeps.
/// It holds them as views of the pushed buffers, without a copy: a buffer pushed with more
/// than the planned ranges stays allocated while a view of it is held, so push what
/// [`wanted`](PushDecoder::wanted) and `NeedsData` ask for, not whole files.
///
/// **Decoding** runs inside `try_next`, on the caller's thread: the column decoders read
/// each row group from the bytes pushed for it, and never from anywhere else. A
/// batch never spans two row groups. With [`ReadOptions::threads`] above 1, flat columns
/// split into page ranges decoded on that many threads; a projection with a nested field
/// splits by row group instead: while the caller's thread streams one row group, the next
/// `threads - 1` (their bytes planned whatever the budget, and listed by
/// [`wanted`](PushDecoder::wanted)) are decoded whole on threads of their own as soon as
/// their bytes are pushed. The batches are the same either way, in the same order; a step
/// that reaches a row group still decoding waits for its thread.
///
/// ```
/// # let file = std::fs::read("testdata/parquet-testing/data/alltypes_plain.parquet").unwrap();
/// use parq::read::push::{DecodeResult, FooterDecoder, FooterOptions, FooterStep};
/// use parq::read::push::{PushDecoder, PushOptions};
///
/// let file = bytes::Bytes::from(file);
/// let fetch = |r: std::ops::Range<u64>| file.slice(r.start as usize..r.end as usize);
/// let mut footer = FooterDecoder::new(file.len() as u64, FooterOptions::default());
/// let footer = loop {
///     match footer.try_next()? {
///         FooterStep::NeedsData(ranges) => ranges.into_iter().for_each(|r| footer.push(r.start, fetch(r))),
///         FooterStep::Done(f) => break f,
///     }
/// };
/// let options = PushOptions::default().with_projection(Some(vec!["id".into()]));
/// let mut decoder = PushDecoder::try_new(footer, options)?;
/// let mut rows = 0;
/// loop {
///     match decoder.try_next()? {
///         DecodeResult::NeedsData(ranges) => {
///             for r in ranges {
///                 decoder.push(r.start, fetch(r));
///             }
///         }
///         DecodeResult::Batch(batch) => rows += batch.num_rows,
///         DecodeResult::Finished => break,
///     }
/// }
/// assert_eq!(rows, 8);
/// # Ok::<(), parq::Error>(())
/// ```
pub struct PushDecoder {
    footer: Footer,
    options: PushOptions,
    output: Output,
    fields: Vec<Field>,
    /// The projection of [`Output::Fields`] as planned for the first row group decoded, for
    /// the others.
    field_plans: Option<Vec<FieldPlan>>,
    /// Projected leaf columns, in schema order.
    leaves: Vec<usize>,
    /// Row groups not yet done; the front one is decoded next.
    groups: VecDeque<Group>,
    current: Option<RowGroupBatches>,
    /// The column decoders of the row group decoded last, handed on to the next.
    decoders: Vec<crate::read::decode::ChunkDecoder>,
    released: Vec<Range<u64>>,
    /// A whole read on several threads: every row group is planned, then decoded at once.
    whole_parallel: bool,
    /// Streamed nested fields on several threads: the row groups after one the calling
    /// thread streams are decoded ahead on threads of their own (see [`super::ahead`]).
    pipeline: Pipeline,
    /// The row groups being decoded ahead, in file order.
    ahead: VecDeque<Ahead>,
    /// The column decoders of the row group decoded ahead last, for the next one.
    ahead_decoders: Vec<crate::read::decode::ChunkDecoder>,
    /// Bytes of a row group to decode ahead were missing when the calling thread's row
    /// group started: try again at the next step, while that one streams.
    ahead_waiting: bool,
    /// [`PushOptions::predicate`] and [`PushOptions::filter`], bound for pruning.
    prune: Option<(PrunePlan, Expr)>,
    /// [`PushOptions::filter`] (or the dynamic filter's version now), bound.
    filter: Option<Arc<RowGroupFilter>>,
    /// The dynamic filter's version `filter` holds.
    filter_version: u64,
    /// The filter stopped because a row group's evaluation paid too little: later versions
    /// of a dynamic filter prune by statistics but evaluate no rows.
    filter_paid_too_little: bool,
    stats: FilterStats,
    /// An error found while planning ahead, returned by the next step.
    planning_error: Option<Error>,
    /// Appended to each batch (see [`Self::with_virtual_columns`]).
    virtual_columns: VirtualColumns,
    /// The file rows of the current row group's batches when it is not filtered (a
    /// filtered group's batches carry their matches' own).
    positions: Positions,
    /// Rows still to pass over, and to return ([`PushOptions::offset`], `limit`).
    offset_left: u64,
    limit_left: Option<u64>,
    /// Bytes the driver already held ([`Self::hold`]), offered to every range planned.
    held: Vec<(u64, Bytes)>,
    /// The leading groups planning has nothing left to do for ([`Group::settled`]): after a
    /// change in bulk, [`Self::plan_ahead`] visits the groups after them.
    settled: usize,
    /// Bytes of the ranges the groups want now (pushed or still to come): the budget's
    /// measure.
    planned: u64,
    /// The groups from here on have asked for no bytes: requests and held bytes pass them
    /// by, so a file of many row groups costs what is planned, not every row group.
    planned_end: usize,
    /// Where the groups' spans lie: a pushed piece goes to the groups it reaches.
    span_index: SpanIndex,
    /// The groups with spans no request listed yet, by key: [`Self::wanted`] lists each
    /// planned range once, so a driver asking after every batch pays for what is new.
    unlisted: BTreeSet<u64>,
    /// The groups planning visits next, by key: those whose bytes completed, and one that
    /// waits for room in the budget.
    touched: BTreeSet<u64>,
    /// Groups changed in bulk (a new dynamic filter, held bytes): planning visits every
    /// planned group next.
    replan: bool,
    /// The groups whose filter is still to be evaluated, by key: under a filter that need
    /// not be exact they are evaluated in file order.
    pending: BTreeSet<u64>,
    failed: bool,
}

impl std::fmt::Debug for PushDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PushDecoder")
            .field("footer", &self.footer)
            .field("output", &self.output)
            .field("groups", &self.groups)
            .finish_non_exhaustive()
    }
}

/// Row groups' pushed bytes, as the [`Source`] their column readers read.
pub(crate) struct PushedBytes {
    /// One per row group (the spans of two may overlap: a chunk's range reaches a little
    /// past its declared end).
    snapshots: Vec<Snapshot>,
    /// Where the snapshots' pieces lie, keyed by snapshot, when there are many: a read
    /// then tries the snapshots that hold its first byte, not every row group's.
    index: Option<SpanIndex>,
    file_len: u64,
}

/// Snapshots past which a read looks its bytes up in an index instead of trying each.
const SNAPSHOTS_SEARCHED_IN_TURN: usize = 8;

impl PushedBytes {
    fn one(snapshot: Snapshot, file_len: u64) -> Self {
        Self::many(vec![snapshot], file_len)
    }

    fn many(snapshots: Vec<Snapshot>, file_len: u64) -> Self {
        let index = (snapshots.len() > SNAPSHOTS_SEARCHED_IN_TURN).then(|| {
            let mut index = SpanIndex::default();
            for (key, s) in snapshots.iter().enumerate() {
                index.insert(key as u64, &s.pieces());
            }
            index
        });
        PushedBytes {
            snapshots,
            index,
            file_len,
        }
    }
}

impl Source for PushedBytes {
    fn len(&self) -> u64 {
        self.file_len
    }
    fn read(&self, range: Range<u64>) -> Result<Bytes> {
        let indexed = self.index.as_ref().and_then(|index| {
            let first = range.start..range.start.saturating_add(1);
            let holding = index.reached_by(first);
            probe::hit("push.read_by_index");
            holding
                .into_iter()
                .find_map(|k| self.snapshots.get(k as usize)?.read(range.clone()))
        });
        // An empty read at a span's end is found by trying each.
        let found = indexed.or_else(|| self.snapshots.iter().find_map(|s| s.read(range.clone())));
        found.ok_or_else(|| {
            Error::internal(format!(
                "the push decoder did not plan bytes {}..{}",
                range.start, range.end
            ))
        })
    }
}

impl PushDecoder {
    /// A decoder of `footer`'s file.
    pub fn try_new(footer: Footer, options: PushOptions) -> Result<Self> {
        let probe_reader = empty_reader(&footer, &options.read);
        let projection = match &options.projection {
            Some(p) => p.clone(),
            // By index: names may repeat.
            None => (0..probe_reader.fields()?.len())
                .map(Select::Field)
                .collect(),
        };
        let plans = probe_reader.projection(&projection)?;
        let fields = plans.iter().map(|p| p.field()).collect();
        let mut leaves = Vec::new();
        for p in &plans {
            p.leaves(&mut leaves);
        }
        // Only fields assembled from levels split by row group; flat columns split into
        // page ranges inside each row group instead.
        let nested = plans.iter().any(|p| !probe_reader.reads_flat(p));
        let mut decoder = Self::build(footer, options, Output::Fields(projection), fields, leaves)?;
        // Filtered row groups stream on the calling thread.
        let filtered = decoder.filter.is_some() || decoder.options.dynamic_filter.is_some();
        if nested && decoder.options.read.threads > 1 && !filtered {
            decoder.pipeline = Pipeline::WhenPushed;
        }
        Ok(decoder)
    }

    /// A decoder of the flat leaf columns `columns` (indices into the schema's leaves, in
    /// the order the batches hold them); see [`Output::Leaves`].
    pub(crate) fn for_leaves(
        footer: Footer,
        options: PushOptions,
        columns: Vec<usize>,
    ) -> Result<Self> {
        let probe_reader = empty_reader(&footer, &options.read);
        for &c in &columns {
            // Refused up front, as the column readers refuse them.
            probe_reader.column_reader(c)?;
        }
        let leaves = columns.clone();
        Self::build(footer, options, Output::Leaves(columns), Vec::new(), leaves)
    }

    /// A decoder of whole columns (see [`Output::Whole`]); `batch_size` is not used.
    pub(crate) fn for_whole(
        footer: Footer,
        mut options: PushOptions,
        items: Vec<WholeItem>,
    ) -> Result<Self> {
        let probe_reader = empty_reader(&footer, &options.read);
        let whole = WholeRead::new(&probe_reader, items)?;
        let leaves = whole.leaves();
        let parallel = probe_reader.runs_parallel() && options.predicate.is_none();
        options.batch_size = options.batch_size.max(1);
        let mut decoder = Self::build(
            footer,
            options,
            Output::Whole(Some(whole)),
            Vec::new(),
            leaves,
        )?;
        decoder.whole_parallel = parallel;
        Ok(decoder)
    }

    fn build(
        footer: Footer,
        options: PushOptions,
        output: Output,
        fields: Vec<Field>,
        mut leaves: Vec<usize>,
    ) -> Result<Self> {
        if options.batch_size == 0 {
            return Err(Error::InvalidArgument("batch size 0".into()));
        }
        if (options.filter.is_some() || options.dynamic_filter.is_some())
            && !matches!(output, Output::Fields(_))
        {
            return Err(Error::InvalidArgument(
                "an exact filter reads fields, not leaves or whole columns".into(),
            ));
        }
        let mut options = options;
        if (options.offset > 0 || options.limit.is_some()) && !matches!(output, Output::Fields(_)) {
            return Err(Error::InvalidArgument(
                "an offset or a limit reads fields, not leaves or whole columns".into(),
            ));
        }
        let exact = options.predicate.is_none()
            && options.filter.is_none()
            && options.dynamic_filter.is_none();
        if exact && (options.offset > 0 || options.limit.is_some()) {
            // The rows out are the selected rows in order: the offset and the limit become a
            // narrower selection, and row groups left without a row are not read.
            let reader = empty_reader(&footer, &options.read);
            let runs = cut_runs(
                &reader,
                options.read.selection.as_ref(),
                options.offset,
                options.limit,
            );
            let mut kept: Vec<usize> = Vec::new();
            for (_, g) in &runs {
                if kept.last() != Some(g) {
                    kept.push(*g);
                }
            }
            options.read.selection = Some(RowSelection::from_ranges(
                runs.iter().map(|(r, _)| r.clone()),
            ));
            options.read.row_groups = Some(kept);
            options.offset = 0;
        }
        let mut filter_version = 0;
        if let Some(d) = &options.dynamic_filter {
            if options.filter.is_some() {
                return Err(Error::InvalidArgument(
                    "both a filter and a dynamic filter".into(),
                ));
            }
            let (version, expr) = d.latest();
            filter_version = version;
            options.filter = expr;
        }
        leaves.sort_unstable();
        leaves.dedup();
        let meta = &footer.metadata;
        let row_groups = match &options.read.row_groups {
            Some(rgs) => {
                if let Some(bad) = rgs.iter().find(|i| **i >= meta.row_groups.len()) {
                    return Err(Error::InvalidArgument(format!(
                        "row group {bad} of {}",
                        meta.row_groups.len()
                    )));
                }
                rgs.clone()
            }
            None => (0..meta.row_groups.len()).collect(),
        };
        let first = Arc::clone(&footer.first_rows);
        let selection = options.read.selection.as_ref();
        let mut stats = FilterStats::default();
        // The exact filter prunes too.
        let (prune, by_statistics) =
            bind_pruning(&footer, options.predicate.as_ref(), options.filter.as_ref())?;
        let filter = bind_filter(&footer, &options.read, options.filter.as_ref())?;
        let groups = row_groups
            .into_iter()
            .enumerate()
            .filter_map(|(key, rg)| {
                let n = meta.row_groups[rg].num_rows.max(0) as u64;
                let rows = first[rg]..first[rg] + n;
                // Row groups without a selected row are never read, as in ParquetReader.
                if selection.is_some_and(|s| !s.intersects(rows.clone())) {
                    return None;
                }
                if let Some(keep) = &by_statistics {
                    // Row groups left are counted when they are pruned further.
                    if !keep[rg] {
                        stats.row_groups += 1;
                        stats.rows += n;
                        stats.row_groups_pruned += 1;
                        stats.pruned_by_statistics += 1;
                        probe::hit("predicate.row_group_pruned_by_statistics");
                        return None;
                    }
                }
                let filter = group_filter(filter.as_ref(), meta, rg, options.filter_exact);
                Some(Group {
                    rg,
                    key: key as u64,
                    first_row: rows.start,
                    partial: partial_selection(selection, rows),
                    phase: if by_statistics.is_some() {
                        Phase::Prune
                    } else {
                        Phase::Unplanned
                    },
                    spans: Spans::default(),
                    unlisted: Vec::new(),
                    prune_asked: false,
                    pruned: false,
                    leaves: filter.as_ref().map(|f| f.leaves().to_vec()),
                    filter: if filter.is_some() {
                        FilterStage::Predicate
                    } else {
                        FilterStage::Off
                    },
                    row_filter: filter,
                })
            })
            .collect::<VecDeque<Group>>();
        let pending = groups
            .iter()
            .filter(|g| matches!(g.filter, FilterStage::Predicate))
            .map(|g| g.key)
            .collect();
        let (offset_left, limit_left) = (options.offset, options.limit);
        let virtual_columns = options.virtual_columns();
        PushDecoder {
            footer,
            options,
            output,
            fields,
            field_plans: None,
            leaves,
            groups,
            current: None,
            decoders: Vec::new(),
            released: Vec::new(),
            whole_parallel: false,
            pipeline: Pipeline::Off,
            ahead: VecDeque::new(),
            ahead_decoders: Vec::new(),
            ahead_waiting: false,
            prune,
            filter,
            filter_version,
            filter_paid_too_little: false,
            virtual_columns: VirtualColumns::default(),
            positions: Positions::default(),
            offset_left,
            limit_left,
            stats,
            planning_error: None,
            held: Vec::new(),
            settled: 0,
            planned: 0,
            planned_end: 0,
            span_index: SpanIndex::default(),
            unlisted: BTreeSet::new(),
            touched: BTreeSet::new(),
            replan: false,
            pending,
            failed: false,
        }
        .with_virtual_columns(virtual_columns)
    }

    /// Append `columns` (each row's position in the file) to every batch. Not under a
    /// filter that may stop filtering (inexact, or dynamic), whose batches would not say
    /// which rows they kept.
    fn with_virtual_columns(mut self, columns: VirtualColumns) -> Result<Self> {
        let inexact = self.options.dynamic_filter.is_some()
            || (self.filter.is_some() && !self.options.filter_exact);
        if inexact && !columns.is_empty() {
            return Err(Error::InvalidArgument(
                "a push decoder gives virtual columns only without a filter or under an exact \
                 one"
                .into(),
            ));
        }
        self.fields.extend(columns.fields());
        self.virtual_columns = columns;
        Ok(self)
    }

    /// The fields of every batch, in projection order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The footer this decoder reads by.
    pub fn footer(&self) -> &Footer {
        &self.footer
    }

    /// What [`PushOptions::predicate`] and [`PushOptions::filter`] pruned so far: every row
    /// group's statistics are counted from the start, the rest as row groups are pruned
    /// (before they are decoded). `rows_matched` counts the rows the filter matched in the
    /// row groups evaluated so far (0 without a filter).
    pub fn filter_stats(&self) -> &FilterStats {
        &self.stats
    }

    /// Push the bytes at file offset `offset`: any piece, in any order, overlapping or
    /// not. Bytes outside the ranges asked for are dropped.
    pub fn push(&mut self, offset: u64, data: Bytes) {
        let mut kept = 0;
        let end = offset.saturating_add(data.len() as u64);
        let reached = self.span_index.reached_by(offset..end);
        probe::hit_n("push.groups_reached", reached.len() as u64);
        for key in reached {
            let Ok(i) = self.groups.binary_search_by_key(&key, |g| g.key) else {
                continue;
            };
            let g = &mut self.groups[i];
            // Also a group planned again (a dynamic filter's new version) takes the bytes
            // of the spans it kept: they are not asked for twice.
            if !g.spans.complete() {
                kept += g.spans.push(offset, &data);
                // A row group whose data is all here settles without a walk; any other
                // moves on (pruning, the filter, its next ranges) in one.
                if g.spans.complete() && !g.settled() {
                    self.touched.insert(key);
                }
            }
        }
        probe::hit_n("push.bytes_pushed", data.len() as u64);
        probe::hit_n("push.bytes_kept", kept);
    }

    /// Bytes at file offset `offset` that the driver already has, such as the part of the
    /// footer's suffix request before the footer
    /// ([`FooterDecoder::prefetched`](super::FooterDecoder::prefetched)): the
    /// decoder takes from them whatever it plans later and never asks for those bytes.
    /// Unlike [`Self::push`], which keeps only what is planned now, these are kept (shared,
    /// not copied) as long as the decoder lives.
    pub fn hold(&mut self, offset: u64, data: Bytes) {
        // As in `push`: also a group planned again takes them for the spans it kept.
        for g in self.groups.range_mut(..self.planned_end) {
            g.spans.push(offset, &data);
        }
        self.held.push((offset, data));
        self.replan = true;
    }

    /// Ranges let go since the last call: a row group's bytes once it is decoded. A driver
    /// with its own cache may drop them.
    pub fn take_released(&mut self) -> Vec<Range<u64>> {
        std::mem::take(&mut self.released)
    }

    /// The ranges planned since the last listing that have not arrived, cut into requests
    /// (planning ahead first, within the budget): each planned range is listed once, here
    /// or by [`NeedsData`](DecodeResult::NeedsData). A driver that fetches ahead calls it
    /// after each batch, to fetch the next row groups while this one decodes, or before the
    /// first step, to start early.
    pub fn wanted(&mut self) -> Vec<Range<u64>> {
        if self.limit_left == Some(0) {
            return Vec::new();
        }
        self.plan_ahead();
        self.requests(false)
    }

    /// Requests for the ranges planned and not listed yet, and with `front`, for every
    /// range the front row group still lacks, listed or not.
    fn requests(&mut self, front: bool) -> Vec<Range<u64>> {
        // Each row group's data is a request of its own, so that the front one decodes
        // while the next ones arrive. Their index and pruning reads sit side by side (every
        // row group's column indexes, then every offset index): those are asked for
        // together, coalesced, where the first of them would be.
        let max = self.options.io.max_request_size;
        let mut ranges = Vec::new();
        let mut indexes: Option<(usize, Vec<Range<u64>>)> = None;
        let mut add =
            |phase: Phase, missing: Vec<Range<u64>>, ranges: &mut Vec<Range<u64>>| match phase {
                Phase::Unplanned => {}
                Phase::Prune | Phase::Index => indexes
                    .get_or_insert_with(|| (ranges.len(), Vec::new()))
                    .1
                    .extend(missing),
                Phase::Data => {
                    for r in missing {
                        split(r, max, ranges);
                    }
                }
            };
        let front_key = match self.groups.front_mut() {
            Some(g) if front && g.phase != Phase::Unplanned => {
                add(g.phase, g.spans.missing(), &mut ranges);
                g.unlisted.clear();
                self.unlisted.remove(&g.key);
                Some(g.key)
            }
            _ => None,
        };
        for key in std::mem::take(&mut self.unlisted) {
            if Some(key) == front_key {
                continue;
            }
            let Ok(i) = self.groups.binary_search_by_key(&key, |g| g.key) else {
                continue;
            };
            let g = &mut self.groups[i];
            if g.phase == Phase::Unplanned {
                // Listed once it is planned.
                self.unlisted.insert(key);
                continue;
            }
            let missing = std::mem::take(&mut g.unlisted)
                .into_iter()
                .flat_map(|start| g.spans.missing_of_span(start))
                .collect();
            add(g.phase, missing, &mut ranges);
        }
        if let Some((at, indexes)) = indexes {
            let mut cut = Vec::new();
            for r in coalesce(indexes, self.options.io.coalesce_gap) {
                split(r, max, &mut cut);
            }
            ranges.splice(at..at, cut);
        }
        ranges
    }

    /// Bytes of the ranges planned now (pushed or still to come).
    pub fn planned_bytes(&self) -> u64 {
        self.planned
    }

    /// The next step; see the [`PushDecoder`] docs. After an error the decoder is
    /// [`Finished`](DecodeResult::Finished).
    pub fn try_next(&mut self) -> Result<DecodeResult> {
        if self.failed {
            return Ok(DecodeResult::Finished);
        }
        let r = self.step();
        if r.is_err() {
            self.failed = true;
            self.current = None;
            // Threads still decoding ahead finish on their own; their batches are dropped.
            self.ahead.clear();
        }
        r
    }

    fn step(&mut self) -> Result<DecodeResult> {
        loop {
            if self.limit_left == Some(0) {
                self.current = None;
                self.release_all();
                return Ok(DecodeResult::Finished);
            }
            if self.ahead_waiting && self.current.is_some() {
                let missing = self.start_ahead();
                if !missing.is_empty() && self.pipeline == Pipeline::AskFirst {
                    return Ok(DecodeResult::NeedsData(missing));
                }
            }
            if let Some(reader) = &mut self.current {
                let filtered = matches!(reader, RowGroupBatches::Filtered(..));
                match reader.next() {
                    Some(batch) => {
                        let batch = self.with_positions(batch?, filtered)?;
                        match self.cut(batch) {
                            Some(batch) => return Ok(DecodeResult::Batch(batch)),
                            // Passed over (the offset), or the limit was reached.
                            None => continue,
                        }
                    }
                    None => {
                        self.ahead_waiting = false;
                        if let Some(decoders) = self.current.take().and_then(|d| d.into_decoders())
                        {
                            self.decoders = decoders;
                        }
                        self.pop_front();
                        continue;
                    }
                }
            }
            self.plan_ahead();
            if let Some(e) = self.planning_error.take() {
                return Err(e);
            }
            let Some(front) = self.groups.front() else {
                return self.finish_whole();
            };
            if self.whole_parallel {
                if let Some(batch) = self.whole_parallel_batch()? {
                    return Ok(DecodeResult::Batch(batch));
                }
            } else if front.phase == Phase::Data
                // Never before its filter: planning evaluates it first.
                && !matches!(front.filter, FilterStage::Predicate)
            {
                if self.ahead.front().is_some_and(|a| a.rg == front.rg) {
                    let (batches, decoders) =
                        self.ahead.pop_front().map(Ahead::join).unwrap_or_default();
                    if !decoders.is_empty() {
                        self.ahead_decoders = decoders;
                    }
                    self.positions = self.group_positions(front);
                    self.current = Some(RowGroupBatches::Decoded(batches.into_iter()));
                    continue;
                }
                if let Some(snapshot) = front.spans.snapshot() {
                    let source = PushedBytes::one(snapshot, self.footer.file_len);
                    let reader = reader_over(&self.footer, &self.group_options(front), source);
                    let batch_size = self.options.batch_size;
                    let n = self.footer.metadata.row_groups[front.rg].num_rows.max(0) as u64;
                    let selected_rows = front.partial.as_ref().map_or(n, |p| p.row_count());
                    if let Some(g) = self.groups.front_mut() {
                        if let FilterStage::Evaluated(..) = g.filter {
                            let FilterStage::Evaluated(e, by_selection) =
                                std::mem::replace(&mut g.filter, FilterStage::Decoding)
                            else {
                                unreachable!("matched just above")
                            };
                            let Output::Fields(projection) = &self.output else {
                                return Err(Error::internal("a filter without fields"));
                            };
                            let e = (*e).rebase(&reader);
                            // The matches' positions, for virtual columns only.
                            let matched = if self.virtual_columns.is_empty() {
                                RowSelection::none()
                            } else {
                                e.matched().clone()
                            };
                            let batches = GroupBatches::new(
                                &reader,
                                e,
                                projection,
                                batch_size,
                                by_selection,
                            )?
                            .with_virtual_columns(
                                self.virtual_columns.clone(),
                                &matched,
                                g.rg,
                            );
                            self.current = Some(RowGroupBatches::Filtered(
                                Box::new(batches),
                                self.fields.clone(),
                                batch_size,
                            ));
                            continue;
                        }
                    }
                    let batches = match &mut self.output {
                        Output::Fields(projection) if projection.is_empty() => {
                            // No column to read: the row count is the selection's.
                            RowGroupBatches::Rows(selected_rows, batch_size)
                        }
                        Output::Fields(projection) => {
                            let handed = std::mem::take(&mut self.decoders);
                            // Planned once: every row group reads the same projection.
                            if self.field_plans.is_none() {
                                probe::hit("push.projection_planned");
                                self.field_plans = Some(reader.projection(projection)?);
                            }
                            let plans = self.field_plans.as_deref().unwrap_or_default();
                            RowGroupBatches::Fields(
                                reader.planned_field_batches(plans, batch_size, handed)?,
                            )
                        }
                        Output::Leaves(columns) => {
                            let handed = std::mem::take(&mut self.decoders);
                            RowGroupBatches::Leaves(
                                reader.column_batches(columns, batch_size, handed)?,
                            )
                        }
                        Output::Whole(whole) => {
                            let whole = whole.as_mut().ok_or_else(|| {
                                Error::internal("a whole read decodes after its end")
                            })?;
                            whole.row_group(&reader)?;
                            probe::hit("push.whole_row_group");
                            self.pop_front();
                            continue;
                        }
                    };
                    if let Some(g) = self.groups.front() {
                        self.positions = self.group_positions(g);
                    }
                    self.current = Some(batches);
                    // The next row groups decode on their own threads while this one
                    // streams (their bytes asked for first, when the driver wants that).
                    let missing = self.start_ahead();
                    if !missing.is_empty() && self.pipeline == Pipeline::AskFirst {
                        return Ok(DecodeResult::NeedsData(missing));
                    }
                    continue;
                }
            }
            let ranges = self.requests(true);
            if ranges.is_empty() {
                return Err(Error::internal("the push decoder waits for nothing"));
            }
            return Ok(DecodeResult::NeedsData(ranges));
        }
    }

    /// The file rows group `g` returns unfiltered, for the virtual columns (none without).
    fn group_positions(&self, g: &Group) -> Positions {
        if self.virtual_columns.is_empty() {
            return Positions::default();
        }
        let n = self.footer.metadata.row_groups[g.rg].num_rows.max(0) as u64;
        let first = g.first_row;
        let runs = match &g.partial {
            // `partial` counts from the group's first row.
            Some(p) => p
                .ranges()
                .iter()
                .map(|r| (first + r.start..first + r.end, g.rg))
                .collect(),
            None => vec![(first..first + n, g.rg)],
        };
        Positions::new(runs)
    }

    /// `batch` with the virtual columns appended, unless it is `filtered` (its group's
    /// batches carry them).
    fn with_positions(&mut self, mut batch: ArrayBatch, filtered: bool) -> Result<ArrayBatch> {
        if filtered || self.virtual_columns.is_empty() {
            return Ok(batch);
        }
        self.virtual_columns
            .append(&mut self.positions, batch.num_rows, &mut batch.arrays)?;
        batch.fields.extend(self.virtual_columns.fields());
        Ok(batch)
    }

    /// `batch` past the offset and within the limit ([`PushOptions::offset`], `limit`), by
    /// slices; `None` when nothing of it is left.
    fn cut(&mut self, mut batch: ArrayBatch) -> Option<ArrayBatch> {
        let skip = batch
            .num_rows
            .min(usize::try_from(self.offset_left).unwrap_or(usize::MAX));
        self.offset_left -= skip as u64;
        let mut n = batch.num_rows - skip;
        if let Some(left) = &mut self.limit_left {
            n = n.min(usize::try_from(*left).unwrap_or(usize::MAX));
            *left -= n as u64;
        }
        if n == 0 {
            return None;
        }
        if n < batch.num_rows {
            batch.arrays = batch.arrays.iter().map(|a| a.slice(skip, n)).collect();
            batch.num_rows = n;
        }
        Some(batch)
    }

    /// [`DecodeResult::Finished`], or first a whole read's batch (of no row group when
    /// none is selected).
    fn finish_whole(&mut self) -> Result<DecodeResult> {
        let Output::Whole(whole) = &mut self.output else {
            return Ok(DecodeResult::Finished);
        };
        let Some(whole) = whole.take() else {
            return Ok(DecodeResult::Finished);
        };
        let arrays = whole.finish(&empty_reader(&self.footer, &self.options.read))?;
        Ok(DecodeResult::Batch(whole_batch(arrays)))
    }

    /// A whole read on several threads, once every row group's bytes are here.
    fn whole_parallel_batch(&mut self) -> Result<Option<ArrayBatch>> {
        let mut snapshots = Vec::with_capacity(self.groups.len());
        for g in &self.groups {
            match (g.phase == Phase::Data)
                .then(|| g.spans.snapshot())
                .flatten()
            {
                Some(s) => snapshots.push(s),
                None => return Ok(None),
            }
        }
        let Output::Whole(whole) = &mut self.output else {
            return Ok(None);
        };
        let Some(whole) = whole.take() else {
            return Ok(None);
        };
        let mut read = self.options.read.clone();
        read.row_groups = Some(self.groups.iter().map(|g| g.rg).collect());
        let source = PushedBytes::many(snapshots, self.footer.file_len);
        let reader = reader_over(&self.footer, &read, source);
        let arrays = whole.parallel(&reader)?;
        probe::hit("push.whole_parallel");
        self.release_all();
        Ok(Some(whole_batch(arrays)))
    }

    /// Ask for the bytes of the row groups to decode ahead (see [`Pipeline::AskFirst`]):
    /// for the local driver, which reads what it is asked for at once.
    pub(crate) fn ask_for_ahead_bytes_first(&mut self) {
        if self.pipeline == Pipeline::WhenPushed {
            self.pipeline = Pipeline::AskFirst;
        }
    }

    /// Whether row groups are decoded ahead (see [`Pipeline`]).
    fn pipelined(&self) -> bool {
        self.pipeline != Pipeline::Off
    }

    /// The projection a pipelined read decodes ahead; `None` when it decodes nothing ahead.
    fn pipelined_projection(&self) -> Option<&[Select]> {
        match &self.output {
            Output::Fields(projection) if self.pipelined() => Some(projection),
            _ => None,
        }
    }

    /// Row groups planned whatever the budget: the front one, and with a pipelined read
    /// those decoded beside it.
    fn pipeline_depth(&self) -> usize {
        if self.pipelined() {
            self.options.read.threads.max(1)
        } else {
            1
        }
    }

    /// Start decoding ahead the row groups after the front one (which the calling thread
    /// streams) that have no thread yet, up to the reader's threads; returns the ranges
    /// still missing for those whose bytes are not all here.
    fn start_ahead(&mut self) -> Vec<Range<u64>> {
        self.ahead_waiting = false;
        if self.pipelined_projection().is_none() {
            return Vec::new();
        }
        self.plan_ahead();
        let mut missing = Vec::new();
        for i in 1..self.pipeline_depth().min(self.groups.len()) {
            let g = &self.groups[i];
            if self.ahead.iter().any(|a| a.rg == g.rg) {
                continue;
            }
            let work = uncompressed_bytes(&self.footer.metadata, &self.leaves, &[g.rg]);
            if work < AHEAD_MIN_BYTES {
                // Too little work to pay for a thread: the calling thread streams it.
                continue;
            }
            let snapshot = (g.phase == Phase::Data)
                .then(|| g.spans.snapshot())
                .flatten();
            let Some(snapshot) = snapshot else {
                for r in g.spans.missing() {
                    split(r, self.options.io.max_request_size, &mut missing);
                }
                continue;
            };
            let source = PushedBytes::one(snapshot, self.footer.file_len);
            let reader = reader_over(&self.footer, &self.group_options(g), source);
            // Cloned only for a row group that starts: a decoder its caller drives comes
            // here after every batch while bytes are missing.
            let projection = self.pipelined_projection().unwrap_or_default().to_vec();
            let decoders = std::mem::take(&mut self.ahead_decoders);
            let batch_size = self.options.batch_size;
            match Ahead::spawn(g.rg, reader, projection, batch_size, decoders) {
                Some(a) => self.ahead.push_back(a),
                // No thread: this row group and the ones after it stream in turn.
                None => break,
            }
        }
        self.ahead_waiting = !missing.is_empty();
        missing
    }

    /// Plan row groups, the front one always and the next ones while their bytes fit in
    /// the budget (all of them for a whole read on several threads); move on those whose
    /// bytes arrived (pruning, the filter, the pages of their offset indexes).
    ///
    /// Only the row groups something happened to are visited: those whose bytes completed
    /// since the last call, those that waited for the budget or for the filter to reach
    /// them, every planned one after a change in bulk, and then those not planned yet. A
    /// file of many row groups is not walked again for every batch.
    fn plan_ahead(&mut self) {
        if let Err(e) = self.refresh_filter() {
            self.planning_error = Some(e);
            return;
        }
        self.advance_settled();
        let budget = if self.whole_parallel {
            u64::MAX
        } else if self.options.plan_ahead {
            self.options.read.plan_ahead_bytes()
        } else {
            0
        };
        let mut queue = BTreeSet::new();
        loop {
            // Groups changed in bulk, also by the visits below (a filter dropped), are each
            // visited again; groups let go may have touched others (the next to evaluate
            // in order).
            if std::mem::take(&mut self.replan) {
                let planned = self.groups.range(self.settled..self.planned_end);
                queue.extend(planned.map(|g| g.key));
            }
            queue.append(&mut self.touched);
            let (i, fresh) = match queue.pop_first() {
                // Only the groups planning reached: one past them (the next to evaluate in
                // order, one that waited for the budget) is reached in file order below, so
                // that no group is passed by unvisited.
                Some(key) => match self.groups.binary_search_by_key(&key, |g| g.key) {
                    Ok(i) if i < self.planned_end => (i, false),
                    _ => continue,
                },
                // The next row group not planned yet, while the budget has room.
                None => {
                    let i = self.planned_end;
                    if i >= self.groups.len()
                        || (i >= self.pipeline_depth() && self.planned >= budget)
                    {
                        break;
                    }
                    (i, true)
                }
            };
            let before = self.groups.len();
            if !self.visit(i, budget, &mut queue) {
                self.touched.append(&mut queue);
                return;
            }
            if fresh && self.groups.len() == before {
                self.planned_end = self.planned_end.max(i + 1);
            }
        }
        self.advance_settled();
    }

    /// Move group `i` on while what it waits for is here; a group pruned is let go.
    /// `false` when planning stops here: at an error (kept for the next step), or at the
    /// budget (the group waits in [`Self::touched`]). A group a filter evaluated in file
    /// order lets the next one in, through `queue`.
    fn visit(&mut self, i: usize, budget: u64, queue: &mut BTreeSet<u64>) -> bool {
        probe::hit("push.plan_visit");
        // The front row group, and those a pipelined read decodes beside it, are planned
        // whatever the budget.
        let front = i < self.pipeline_depth();
        // A filter that need not be exact evaluates row groups in file order: the first one
        // may find that it pays too little and switch itself off for the rest
        // (`drop_filter`), which a row group evaluated ahead of it would have paid for.
        let in_order = !self.options.filter_exact;
        loop {
            let g = &self.groups[i];
            let key = g.key;
            match g.phase {
                Phase::Data
                    if matches!(g.filter, FilterStage::Predicate)
                        && g.spans.complete()
                        && in_order
                        && self.pending.first().is_some_and(|&first| first < key) =>
                {
                    probe::hit("push.filter_waits_in_order");
                    break;
                }
                Phase::Data if matches!(g.filter, FilterStage::Predicate) && g.spans.complete() => {
                    if let Err(e) = self.filter_step(i) {
                        self.planning_error = Some(e);
                        return false;
                    }
                    if in_order {
                        queue.extend(self.pending.first());
                    }
                    if self.groups[i].pruned {
                        break;
                    }
                }
                Phase::Data => break,
                Phase::Index | Phase::Prune if !g.spans.complete() => break,
                Phase::Prune => match self.prune_step(i) {
                    Err(e) => {
                        self.planning_error = Some(e);
                        return false;
                    }
                    Ok(PruneStep::Waiting | PruneStep::Pruned) => break,
                    Ok(PruneStep::Kept | PruneStep::Again) => {}
                },
                Phase::Unplanned | Phase::Index => {
                    let (ranges, phase) = self.plan(i);
                    let add: u64 = ranges.iter().map(|r| r.end - r.start).sum();
                    if !front && self.planned + add > budget {
                        self.touched.insert(key);
                        return false;
                    }
                    self.want(i, &ranges);
                    self.groups[i].phase = phase;
                }
            }
        }
        if self.groups[i].pruned {
            self.remove_group(i);
        }
        true
    }

    /// Move the settled groups at the front of those planning walks past.
    fn advance_settled(&mut self) {
        while let Some(g) = self.groups.get(self.settled) {
            if !g.settled() {
                break;
            }
            probe::hit("push.group_settled");
            self.settled += 1;
        }
    }

    /// Let the front group go, its bytes released.
    fn pop_front(&mut self) {
        if let Some(done) = self.groups.pop_front() {
            self.settled = self.settled.saturating_sub(1);
            self.planned_end = self.planned_end.saturating_sub(1);
            self.let_go(done);
        }
    }

    /// Let group `i` go (pruned), its bytes released; not a settled one.
    fn remove_group(&mut self, i: usize) {
        if let Some(done) = self.groups.remove(i) {
            if i < self.planned_end {
                self.planned_end -= 1;
            }
            self.let_go(done);
        }
    }

    /// Let every group go, their bytes released.
    fn release_all(&mut self) {
        self.unsettle();
        self.planned_end = 0;
        self.span_index = SpanIndex::default();
        self.unlisted.clear();
        self.touched.clear();
        self.pending.clear();
        self.planned = 0;
        for done in std::mem::take(&mut self.groups) {
            self.released.extend(done.spans.ranges());
        }
    }

    /// Release the spans of a group let go: its bytes, and its place in the span index.
    fn let_go(&mut self, done: Group) {
        let ranges = done.spans.ranges();
        self.span_index.remove(done.key, &ranges);
        self.unlisted.remove(&done.key);
        self.touched.remove(&done.key);
        let was_first = self.pending.first() == Some(&done.key);
        self.pending.remove(&done.key);
        if was_first {
            // The next one's turn, under a filter that evaluates in file order.
            self.touched.extend(self.pending.first());
        }
        self.planned = self.planned.saturating_sub(done.spans.wanted_bytes());
        self.released.extend(ranges);
    }

    /// Group `i` wants `ranges` too, from pushes and from what the driver holds; returns
    /// the bytes newly wanted.
    fn want(&mut self, i: usize, ranges: &[Range<u64>]) -> u64 {
        // Planning reaches the groups in file order: none is passed by.
        debug_assert!(
            i <= self.planned_end,
            "group {i} planned past {}",
            self.planned_end
        );
        self.planned_end = self.planned_end.max(i + 1);
        let g = &mut self.groups[i];
        let new = g.spans.want(ranges);
        offer_held(&self.held, &mut g.spans);
        self.span_index.insert(g.key, &new);
        let added: u64 = new.iter().map(|r| r.end - r.start).sum();
        self.planned += added;
        if !new.is_empty() {
            g.unlisted.extend(new.iter().map(|r| r.start));
            self.unlisted.insert(g.key);
        }
        added
    }

    /// Walk every group again at the next planning: groups were changed or let go in bulk.
    fn unsettle(&mut self) {
        self.settled = 0;
        self.replan = true;
    }

    /// Prune group `i` (see [`PushOptions::predicate`]): ask for what pruning reads, then
    /// prune from the pushed bytes, asking for whatever else it turns out to read (a
    /// dictionary page, a bloom filter of unrecorded length).
    ///
    /// A row group's pruning reads join only where they touch: the gap between its column
    /// indexes and its offset indexes holds the other row groups' indexes, which its spans
    /// must not take ([`Self::wanted`] coalesces the requests).
    fn prune_step(&mut self, i: usize) -> Result<PruneStep> {
        let Some((plan, _)) = &self.prune else {
            return Err(Error::internal("pruning without a predicate"));
        };
        if !self.groups[i].prune_asked {
            let meta = &self.footer.metadata;
            let rg = self.groups[i].rg;
            let ranges = plan.ranges(meta, &self.footer.schema, self.footer.file_len, rg);
            self.groups[i].prune_asked = true;
            self.want(i, &coalesce(ranges, 0));
            if !self.groups[i].spans.complete() {
                return Ok(PruneStep::Waiting);
            }
        }
        let Some((_, expr)) = &self.prune else {
            return Err(Error::internal("pruning without a predicate"));
        };
        let g = &self.groups[i];
        let source = Probing {
            bytes: PushedBytes::one(g.spans.snapshot().unwrap_or_default(), self.footer.file_len),
            misses: Mutex::new(Vec::new()),
        };
        let reader = reader_over(&self.footer, &self.group_options(g), source);
        let pruned = reader.prune(expr);
        let misses = std::mem::take(
            &mut *reader
                .source
                .misses
                .lock()
                .map_err(|_| Error::internal("a pruning read panicked"))?,
        );
        if !misses.is_empty() {
            let added = self.want(i, &coalesce(misses, 0));
            let g = &self.groups[i];
            if added == 0 {
                return Err(Error::internal("pruning reads bytes it was given"));
            }
            probe::hit("push.prune_round");
            // The bytes the driver holds may be all it lacked.
            if g.spans.complete() {
                return Ok(PruneStep::Again);
            }
            return Ok(PruneStep::Waiting);
        }
        let (selection, stats) = pruned?;
        self.stats.add(&stats);
        let g = &mut self.groups[i];
        let n = self.footer.metadata.row_groups[g.rg].num_rows.max(0) as u64;
        if selection.is_empty() {
            g.pruned = true;
            return Ok(PruneStep::Pruned);
        }
        g.partial = partial_selection(Some(&selection), g.first_row..g.first_row + n);
        g.phase = Phase::Unplanned;
        Ok(PruneStep::Kept)
    }

    /// Take a new version of the dynamic filter, if there is one: every row group not yet
    /// decoding is pruned by its statistics now (its bytes let go), and those left that are
    /// not evaluated yet are planned again, pruned and evaluated with it.
    fn refresh_filter(&mut self) -> Result<()> {
        let Some(dynamic) = &self.options.dynamic_filter else {
            return Ok(());
        };
        if dynamic.version() == self.filter_version {
            return Ok(());
        }
        let (version, expr) = dynamic.latest();
        self.filter_version = version;
        probe::hit("push.dynamic_filter_taken");
        self.unsettle();
        self.filter = if self.filter_paid_too_little {
            probe::hit("push.dynamic_filter_prunes_only");
            None
        } else {
            bind_filter(&self.footer, &self.options.read, expr.as_ref())?
        };
        let (prune, keep) =
            bind_pruning(&self.footer, self.options.predicate.as_ref(), expr.as_ref())?;
        self.prune = prune;
        // The row group being decoded keeps its filter. One evaluated ahead keeps its
        // matches unless the new version's statistics prune it: a dynamic filter only
        // tightens, so its rows are not wanted any more.
        let mut i = usize::from(self.current.is_some());
        while i < self.groups.len() {
            let g = &mut self.groups[i];
            if matches!(g.filter, FilterStage::Decoding) {
                i += 1;
                continue;
            }
            if keep.as_ref().is_some_and(|k| !k[g.rg]) {
                if matches!(g.filter, FilterStage::Evaluated(..)) {
                    probe::hit("push.evaluated_group_pruned");
                }
                let n = self.footer.metadata.row_groups[g.rg].num_rows.max(0) as u64;
                self.stats.row_groups += 1;
                self.stats.rows += n;
                self.stats.row_groups_pruned += 1;
                self.stats.pruned_by_statistics += 1;
                probe::hit("predicate.row_group_pruned_by_statistics");
                self.remove_group(i);
                continue;
            }
            if matches!(g.filter, FilterStage::Evaluated(..)) {
                i += 1;
                continue;
            }
            let meta = &self.footer.metadata;
            g.row_filter =
                group_filter(self.filter.as_ref(), meta, g.rg, self.options.filter_exact);
            g.leaves = g.row_filter.as_ref().map(|f| f.leaves().to_vec());
            g.filter = if g.row_filter.is_some() {
                self.pending.insert(g.key);
                FilterStage::Predicate
            } else {
                self.pending.remove(&g.key);
                FilterStage::Off
            };
            // Planned again: what it holds already is not asked for twice.
            g.phase = if self.prune.is_some() {
                Phase::Prune
            } else {
                Phase::Unplanned
            };
            g.prune_asked = false;
            i += 1;
        }
        Ok(())
    }

    /// Evaluate the exact filter over group `i`, whose filter columns' bytes are here; then
    /// plan the other projected columns for its matches, or mark it pruned when none match.
    fn filter_step(&mut self, i: usize) -> Result<()> {
        let g = &self.groups[i];
        let (Some(filter), Output::Fields(projection)) = (&g.row_filter, &self.output) else {
            return Err(Error::internal("a filter step without a filter"));
        };
        let source = PushedBytes::one(g.spans.snapshot().unwrap_or_default(), self.footer.file_len);
        let reader = reader_over(&self.footer, &self.group_options(g), source);
        let n = self.footer.metadata.row_groups[g.rg].num_rows.max(0) as u64;
        let rows = g.first_row..g.first_row + n;
        let pruned = match reader.options.selection.clone() {
            Some(s) => s,
            None => RowSelection::from_ranges(std::iter::once(rows.clone())),
        };
        let evaluated = pruned.row_count();
        let may_pass_all = !self.options.filter_exact;
        let e = filter.evaluate(&reader, (g.rg, n), pruned, projection, may_pass_all)?;
        let matched = e.matched_rows();
        self.stats.rows_matched += matched;
        let pays_too_little =
            !self.options.filter_exact && matched as f64 >= FILTER_DROP_RATIO * evaluated as f64;
        let g = &mut self.groups[i];
        if matched == 0 {
            probe::hit("push.filter_without_match");
            g.pruned = true;
            return Ok(());
        }
        // The caller filters after: every row passes rather than nearly every one.
        let e = if pays_too_little {
            probe::hit("push.filter_passes_all");
            e.pass_all()
        } else {
            e
        };
        let by_selection = e.by_selection(self.options.materialise, reader.checks_strings());
        let rest = e.rest(&reader, projection);
        let mut leaves = Vec::new();
        for p in reader.projection(&rest)? {
            p.leaves(&mut leaves);
        }
        leaves.sort_unstable();
        leaves.dedup();
        if by_selection {
            g.partial = partial_selection(Some(e.matched()), rows);
        }
        // The filter's columns are decoded (those projected are kept in `e`): their bytes
        // go, and the other columns' are planned afresh, as ranges of their own. Planned
        // beside the filter's, a chunk's first bytes would sit in the span of the chunk
        // before it (whose range reaches past its end), and a read of the chunk would copy.
        let taken = std::mem::take(&mut g.spans);
        let ranges = taken.ranges();
        self.span_index.remove(g.key, &ranges);
        self.planned = self.planned.saturating_sub(taken.wanted_bytes());
        self.pending.remove(&g.key);
        g.unlisted.clear();
        self.released.extend(ranges);
        g.leaves = Some(leaves);
        g.filter = FilterStage::Evaluated(Box::new(e), by_selection);
        g.phase = Phase::Unplanned;
        if pays_too_little {
            self.drop_filter(i);
        }
        Ok(())
    }

    /// Stop filtering the row groups after group `i` that are not evaluated yet (see
    /// [`PushOptions::filter_exact`]): they are planned again for every projected column. A
    /// dynamic filter's later versions prune by statistics only.
    fn drop_filter(&mut self, i: usize) {
        probe::hit("push.filter_dropped");
        self.filter = None;
        self.filter_paid_too_little = true;
        for g in self.groups.iter_mut().skip(i + 1) {
            if !matches!(g.filter, FilterStage::Predicate) {
                continue;
            }
            g.filter = FilterStage::Off;
            g.row_filter = None;
            g.leaves = None;
            if g.phase != Phase::Prune {
                g.phase = Phase::Unplanned;
            }
        }
        self.pending.clear();
        // Planned again, for every projected column.
        self.replan = true;
    }

    /// How group `g` is read: its row group, and its rows as file row numbers.
    fn group_options(&self, g: &Group) -> ReadOptions {
        let mut read = self.options.read.clone();
        read.row_groups = Some(vec![g.rg]);
        if self.pipelined() {
            // The threads go to row groups, one each.
            read.threads = 1;
        }
        read.selection = g.partial.as_ref().map(|p| {
            let first = g.first_row;
            RowSelection::from_ranges(p.ranges().iter().map(|r| first + r.start..first + r.end))
        });
        read
    }

    /// The next ranges of group `i` and the phase they start: its offset indexes when its
    /// selection leaves rows out (pages may then be skipped) and they are not there yet,
    /// otherwise its data. Offset indexes join only where they touch, as in
    /// [`Self::prune_step`].
    fn plan(&self, i: usize) -> (Vec<Range<u64>>, Phase) {
        let g = &self.groups[i];
        let gap = self.options.io.coalesce_gap;
        let leaves = g.leaves.as_deref().unwrap_or(&self.leaves);
        if g.phase == Phase::Unplanned && g.partial.is_some() {
            let index = index_ranges(&self.footer.metadata, self.footer.file_len, g.rg, leaves);
            if !index.is_empty() {
                return (coalesce(index, 0), Phase::Index);
            }
        }
        let snapshot = if g.phase == Phase::Index {
            g.spans.snapshot().unwrap_or_default()
        } else {
            Snapshot::default()
        };
        let source = PushedBytes::one(snapshot, self.footer.file_len);
        let reader = reader_over(&self.footer, &self.group_options(g), source);
        let data = data_ranges(&reader, g.rg, leaves, g.partial.as_ref());
        let mut ranges = coalesce(data, gap);
        if matches!(g.filter, FilterStage::Predicate) {
            // The filter reads each stage's columns for the rows the stages before kept,
            // by pages through their offset indexes.
            let index = index_ranges(&self.footer.metadata, self.footer.file_len, g.rg, leaves);
            ranges.extend(coalesce(index, 0));
        }
        (ranges, Phase::Data)
    }
}

/// The predicate and the exact filter (which prunes too) as one pruning plan, and the row
/// groups their statistics keep (by row group index); `None`s when there are neither.
#[allow(clippy::type_complexity)]
fn bind_pruning(
    footer: &Footer,
    predicate: Option<&Expr>,
    filter: Option<&Expr>,
) -> Result<(Option<(PrunePlan, Expr)>, Option<Vec<bool>>)> {
    let expr = match (predicate, filter) {
        (Some(p), Some(f)) => p.clone().and(f.clone()),
        (Some(e), None) | (None, Some(e)) => e.clone(),
        (None, None) => return Ok((None, None)),
    };
    let mut keep = vec![false; footer.metadata.row_groups.len()];
    for rg in expr.row_groups_by_statistics(&footer.metadata, &footer.schema)? {
        keep[rg] = true;
    }
    let plan = PrunePlan::bind(&expr, &footer.schema)?;
    Ok((Some((plan, expr)), Some(keep)))
}

/// The filter of row group `rg`: `filter`, unless it need not be exact and the row group's
/// statistics say it would keep [`FILTER_DROP_RATIO`] of the rows or more (probe
/// `push.filter_skipped_by_statistics`): the caller filters after, and evaluating it would
/// cost more than it saves, as [`PushDecoder::filter_step`] finds only once it has paid.
fn group_filter(
    filter: Option<&Arc<RowGroupFilter>>,
    meta: &crate::metadata::FileMetaData,
    rg: usize,
    exact: bool,
) -> Option<Arc<RowGroupFilter>> {
    let filter = filter?;
    if !exact
        && filter
            .estimated_share(meta, rg)
            .is_some_and(|share| share >= FILTER_DROP_RATIO)
    {
        probe::hit("push.filter_skipped_by_statistics");
        return None;
    }
    Some(Arc::clone(filter))
}

/// The exact filter `expr`, bound to `footer`'s file.
fn bind_filter(
    footer: &Footer,
    read: &ReadOptions,
    expr: Option<&Expr>,
) -> Result<Option<Arc<RowGroupFilter>>> {
    expr.map(|e| RowGroupFilter::bind(e, &empty_reader(footer, read)).map(Arc::new))
        .transpose()
}

/// What a step of pruning a row group came to.
enum PruneStep {
    /// It waits for bytes.
    Waiting,
    /// It read further than it had, and has those bytes now: prune again.
    Again,
    /// It holds no row that may match.
    Pruned,
    /// Some rows are left ([`Group::partial`]); its data can be planned.
    Kept,
}

/// Offer the bytes the driver already holds to newly wanted spans.
fn offer_held(held: &[(u64, Bytes)], spans: &mut Spans) {
    for (offset, data) in held {
        let used = spans.push(*offset, data);
        probe::hit_n("push.held_bytes_used", used);
    }
}

/// Pushed bytes that note every read they cannot serve: pruning reads through it, and
/// what it missed is asked for before pruning runs again.
struct Probing {
    bytes: PushedBytes,
    misses: Mutex<Vec<Range<u64>>>,
}

impl Source for Probing {
    fn len(&self) -> u64 {
        self.bytes.len()
    }
    fn read(&self, range: Range<u64>) -> Result<Bytes> {
        self.bytes.read(range.clone()).inspect_err(|_| {
            if let Ok(mut m) = self.misses.lock() {
                m.push(range);
            }
        })
    }
}

/// The one batch of a whole read.
fn whole_batch(arrays: Vec<Array>) -> ArrayBatch {
    ArrayBatch {
        num_rows: arrays.first().map_or(0, Array::len),
        fields: Vec::new(),
        arrays,
    }
}

/// A reader of `footer`'s file over no bytes: for what the footer alone answers.
pub(crate) fn empty_reader(footer: &Footer, options: &ReadOptions) -> FileDecoder<PushedBytes> {
    let empty = PushedBytes::one(Snapshot::default(), footer.file_len);
    reader_over(footer, options, empty)
}

/// A reader of `footer`'s file over `source`.
fn reader_over<S: Source>(footer: &Footer, options: &ReadOptions, source: S) -> FileDecoder<S> {
    FileDecoder {
        source: Arc::new(source),
        metadata: Arc::clone(&footer.metadata),
        first_rows: Arc::clone(&footer.first_rows),
        schema: Arc::clone(&footer.schema),
        options: options.clone(),
        #[cfg(feature = "encryption")]
        decryptor: footer.decryptor.clone(),
    }
}
