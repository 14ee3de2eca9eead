//! Reading fields of any shape: each leaf's pages are decoded into its levels and its values
//! (in leaf-slot layout), then cut at record boundaries and assembled into an [`Array`].
//!
//! A record may cross a v1 page, so each leaf buffers its levels across pages and hands out
//! only whole records: a run of records ends just before a pair with repetition level 0.

use std::collections::{BTreeSet, VecDeque};
use std::ops::Range;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};
use parq_codecs::{nested_levels, probe};

#[cfg(feature = "internals")]
use super::assemble::assemble;
use super::assemble::{Assembly, LeafView};
use super::decode::{ChunkDecoder, Cuts};
use super::drive::PushDriver;
use super::file::{ColumnReader, FileDecoder, ParquetReader};
use super::levels::{check_nulls, levels_error};
use super::page::{level_bit_width, DataPage, Levels};
use super::push::whole::WholeItem;
use super::select::Select;
use super::selects;
use super::source::Source;
use crate::array::Array;
use crate::column::Column;
use crate::error::Location;
use crate::field::Field;
use crate::schema::plan::{plan_fields, FieldPlan, PlanKind};
use crate::{Error, Result};

/// One leaf of a nested field: its buffered levels and decoded slots.
pub(crate) struct LeafState<S: Source> {
    reader: ColumnReader<S>,
    decoder: ChunkDecoder,
    column: usize,
    max_rep: i16,
    max_def: i16,
    /// Pairs with `d >= def_slot` are slots of the leaf (its nearest list's element level).
    def_slot: i16,
    rep: Vec<i16>,
    def: Vec<i16>,
    /// Level pairs buffered (also when neither stream exists).
    entries: usize,
    /// Pairs before `pos` were handed out.
    pos: usize,
    /// Record starts (r == 0) at or after `pos`.
    starts: usize,
    /// Decoded slots not yet handed out.
    ready: VecDeque<Column>,
    front_offset: usize,
    done: bool,
    /// Under a selection: the row (in the row group) the next record start begins.
    next_record: u64,
    /// Records of the open column chunk up to the end of the last page (a repeated column):
    /// checked against its row group's rows.
    chunk_records: u64,
    /// The row (in the row group) of the first record that starts in the page being
    /// decoded, or of its first pair for a leaf that is not repeated: a string that fails
    /// the UTF-8 check is named by its row.
    page_first_record: u64,
    /// Records per batch of a batched read (0: a whole read): the leaf's values are cut into
    /// one column per batch as pages are decoded, see [`LeafState::batch_cuts`].
    batch: usize,
    /// Slots of the last column cut, the room reserved for the next.
    batch_slots: usize,
}

impl<S: Source> LeafState<S> {
    /// The leaf `column`'s state; `batched` for a batched read, whose byte arrays come with
    /// i32 offsets when [`ReadOptions::small_offsets`](super::ReadOptions::small_offsets)
    /// names the column.
    fn new(reader: ColumnReader<S>, column: usize, def_slot: i16, batched: bool) -> Result<Self> {
        let decoder = reader.new_decoder()?;
        let decoder = if batched {
            reader.with_small_offsets(decoder)
        } else {
            decoder
        };
        Ok(LeafState {
            max_rep: reader.desc.max_rep_level,
            max_def: reader.desc.max_def_level,
            reader,
            decoder,
            column,
            def_slot,
            rep: Vec::new(),
            def: Vec::new(),
            entries: 0,
            pos: 0,
            starts: 0,
            ready: VecDeque::new(),
            front_offset: 0,
            done: false,
            next_record: 0,
            chunk_records: 0,
            page_first_record: 0,
            batch: 0,
            batch_slots: 0,
        })
    }

    /// Whole records buffered: every record start but the last is complete, and the last
    /// too once the column is done.
    fn complete_records(&self) -> usize {
        if self.max_rep == 0 || self.done {
            self.starts
        } else {
            self.starts.saturating_sub(1)
        }
    }

    /// Decode pages until `want` whole records are buffered or the column ends.
    fn fill(&mut self, want: usize) -> Result<()> {
        while !self.done && self.complete_records() < want {
            match self.reader.next_data_page(&mut self.decoder)? {
                Some((page, loc)) => self.decode_page(page, &loc)?,
                None => self.done = true,
            }
        }
        Ok(())
    }

    fn decode_page(&mut self, page: DataPage, loc: &Location) -> Result<()> {
        let n = page.num_values;
        self.compact();
        let start = self.entries;
        self.reserve_levels(n).map_err(|e| e.at(loc))?;
        read_levels(&page.rep_levels, self.max_rep, n, &mut self.rep)
            .map_err(|e| levels_error("repetition", e).at(loc))?;
        read_levels(&page.def_levels, self.max_def, n, &mut self.def)
            .map_err(|e| levels_error("definition", e).at(loc))?;
        self.entries += n;
        let chunk_start = std::mem::take(&mut self.reader.chunk_started);
        let records = self
            .count_records(start, chunk_start)
            .map_err(|e| e.at(loc))?;
        if let Some(keep) = self.selected_entries(start, n, chunk_start) {
            return self.decode_selected(page, loc, start, &keep);
        }
        let def = &self.def[self.def.len().min(start)..];
        let starts_before = self.starts;
        if self.max_rep > 0 {
            self.starts += records;
        } else {
            self.starts += n;
        }
        let (slots, bits, valid) = if self.max_def == 0 {
            (n, None, n)
        } else {
            leaf_slots(def, self.def_slot, self.max_def)
        };
        check_nulls(page.num_nulls, n, valid).map_err(|e| e.at(loc))?;
        let page = DataPage {
            num_values: slots,
            num_nulls: None,
            encoding: page.encoding,
            rep_levels: Levels::None,
            def_levels: Levels::None,
            values: page.values,
        };
        if self.decoder.can_borrow() {
            // A fixed-width page that may be lent out: hand it on as its own buffer (zero-copy
            // when PLAIN, aligned and without nulls) rather than copying it into a growing one.
            if let Err(e) = self.decoder.decode_slots(page, bits, valid, loc.clone()) {
                return Err(self.name_invalid_row(e, start, n).at(loc));
            }
            let col = self.decoder.finish();
            self.ready.push_back(col);
            return Ok(());
        }
        let cuts = self.batch_cuts(starts_before, start, n);
        let hint = self.batch_slots;
        let (ready, batch_slots) = (&mut self.ready, &mut self.batch_slots);
        let mut cut = |col: Column| {
            *batch_slots = col.len;
            ready.push_back(col);
        };
        let decoded = self.decoder.decode_slots_cut(
            page,
            bits,
            valid,
            loc.clone(),
            Cuts {
                at: &cuts,
                reserve: hint,
            },
            &mut cut,
        );
        decoded.map_err(|e| self.name_invalid_row(e, start, n).at(loc))
    }

    /// The records that start in the page whose level pairs are buffered from `start`
    /// (its repetition levels' zeros; 0 for a column that is not repeated, whose rows the
    /// column reader checks), checked against the row group: a repeated column's records
    /// are what its levels say, whatever a page header claims, and they may not outnumber
    /// the rows its row group declares, so no page invents rows.
    fn count_records(&mut self, start: usize, chunk_start: bool) -> Result<usize> {
        if chunk_start {
            self.chunk_records = 0;
        }
        // Pages skipped through the offset index are counted by the row it gives.
        let first = self.reader.page_first_row().unwrap_or(self.chunk_records);
        self.page_first_record = first;
        if self.max_rep == 0 {
            // Each pair is a row (the column reader checks their count).
            let pairs = self.entries.saturating_sub(start) as u64;
            self.chunk_records = first.saturating_add(pairs);
            return Ok(0);
        }
        let rep = &self.rep[self.rep.len().min(start)..];
        if chunk_start && rep.first().is_some_and(|&r| r != 0) {
            return Err(Error::format(
                "a column chunk starts inside a record (repetition level above 0)",
            ));
        }
        let records = nested_levels::count_equal(rep, 0);
        let end = first.saturating_add(records as u64);
        if end > self.reader.chunk_rows() {
            return Err(Error::format(format!(
                "the repetition levels hold {end} records by the end of this page, more than \
                 the {} rows of its row group",
                self.reader.chunk_rows()
            )));
        }
        self.chunk_records = end;
        Ok(records)
    }

    /// `e`, from decoding the page whose `n` level pairs are buffered from `start`: when a
    /// string failed the UTF-8 check, an error naming its row in the row group, found from
    /// the levels (the decoder knows only the value's slot). Error path only.
    fn name_invalid_row(&mut self, e: Error, start: usize, n: usize) -> Error {
        let Some(slot) = self.decoder.take_invalid_slot() else {
            return e;
        };
        let pair = if self.max_def == 0 {
            Some(slot)
        } else {
            self.def
                .get(start..start + n)
                .and_then(|def| {
                    def.iter()
                        .enumerate()
                        .filter(|(_, &d)| d >= self.def_slot)
                        .nth(slot)
                })
                .map(|(i, _)| i)
        };
        let Some(pair) = pair else {
            return e;
        };
        let row = if self.max_rep == 0 {
            self.page_first_record.saturating_add(pair as u64)
        } else {
            // Pairs before the page's first record start continue the record before it.
            let starts = self
                .rep
                .get(start..=start + pair)
                .map_or(0, |rep| nested_levels::count_equal(rep, 0));
            (self.page_first_record + starts as u64).saturating_sub(1)
        };
        Error::invalid_utf8(Some(format!("at row {row} of the row group")))
    }

    /// The slots of the page of `n` pairs buffered from `start` at which a batch begins, for
    /// a batched read: batches take `batch` records from `pos` on, so a batch begins at each
    /// record whose ordinal from `pos` is a multiple of `batch`; the page's records have the
    /// ordinals `starts_before..`. Values cut there make every batch one column: none is
    /// copied together from pieces (a cut that misses, say at a shorter last batch, only
    /// costs that copy).
    fn batch_cuts(&self, starts_before: usize, start: usize, n: usize) -> Vec<usize> {
        let records = self.starts - starts_before;
        if self.batch == 0 || records == 0 {
            return Vec::new();
        }
        let rep = &self.rep[self.rep.len().min(start)..];
        let def = &self.def[self.def.len().min(start)..];
        let mut cuts = Vec::new();
        // Each cut is found from the one before (a record start), not from the page's start.
        let (mut last_pair, mut last_j, mut slots) = (0, 0, 0);
        let mut ordinal = starts_before.div_ceil(self.batch) * self.batch;
        while ordinal < starts_before + records {
            // The pair where that record starts, then the leaf's slots before it.
            let j = ordinal - starts_before;
            let pair = if self.max_rep > 0 {
                last_pair + nested_levels::records_end(&rep[last_pair..n], j - last_j)
            } else {
                j
            };
            slots += if self.def_slot == 0 || def.is_empty() {
                pair - last_pair
            } else {
                nested_levels::count_at_least(&def[last_pair..pair], self.def_slot)
            };
            cuts.push(slots);
            (last_pair, last_j) = (pair, j);
            ordinal += self.batch;
        }
        cuts
    }

    /// Before decoding a page of `n` level pairs: they fit in the read's budget and their
    /// room is reserved fallibly, since runs let a page of a few bytes declare 2^27 of them.
    fn reserve_levels(&mut self, n: usize) -> Result<()> {
        let streams = u64::from(self.max_rep > 0) + u64::from(self.max_def > 0);
        let bytes = (self.entries as u64 + n as u64).saturating_mul(2 * streams);
        let budget = self.reader.max_memory();
        if bytes > budget {
            return Err(Error::memory(
                "the repetition and definition levels of the pages read",
                bytes,
                Some(budget),
            ));
        }
        let refused = |_| Error::memory("the levels of a page", bytes, None);
        if self.max_rep > 0 {
            self.rep.try_reserve(n).map_err(refused)?;
        }
        if self.max_def > 0 {
            self.def.try_reserve(n).map_err(refused)?;
        }
        Ok(())
    }

    /// Under a selection that drops some of the page's records: the ranges of its `n` level
    /// pairs (buffered from `start`) that belong to selected records. `None` when every
    /// record of the page is selected.
    fn selected_entries(
        &mut self,
        start: usize,
        n: usize,
        chunk_start: bool,
    ) -> Option<Vec<Range<usize>>> {
        let sel = self.reader.chunk_selection()?;
        // Records are counted from the page's first row when the reader knows it (always
        // when pages may have been skipped), else on from the page before in the chunk.
        if let Some(first) = self.reader.page_first_row() {
            self.next_record = first;
        } else if chunk_start {
            self.next_record = 0;
        }
        let mut keep: Vec<Range<usize>> = Vec::new();
        // Pairs continuing a record begun on the page before belong to that record.
        let mut selected = self
            .next_record
            .checked_sub(1)
            .is_some_and(|r| sel.contains(r));
        for i in 0..n {
            if self.max_rep == 0 || self.rep[start + i] == 0 {
                selected = sel.contains(self.next_record);
                self.next_record += 1;
            }
            if selected {
                match keep.last_mut() {
                    Some(r) if r.end == i => r.end = i + 1,
                    _ => keep.push(i..i + 1),
                }
            }
        }
        if keep.len() == 1 && keep[0] == (0..n) {
            return None;
        }
        Some(keep)
    }

    /// Decode the pairs `keep` of a page whose `n` level pairs are buffered from `start`:
    /// the other pairs are dropped from the buffers and their slots skipped in the decoder.
    fn decode_selected(
        &mut self,
        page: DataPage,
        loc: &Location,
        start: usize,
        keep: &[Range<usize>],
    ) -> Result<()> {
        let n = page.num_values;
        probe::hit("nested.page_records_skipped");
        let (slots, bits, valid, slot_ranges) = if self.max_def == 0 {
            (n, None, n, keep.to_vec())
        } else {
            let def = &self.def[start..start + n];
            let (slots, bits, valid) = leaf_slots(def, self.def_slot, self.max_def);
            // Slot ranges of the kept pairs: pairs with d >= def_slot hold a slot.
            let mut ranges = Vec::with_capacity(keep.len());
            let (mut pair, mut slot) = (0, 0);
            let count =
                |a: usize, b: usize| def[a..b].iter().filter(|&&d| d >= self.def_slot).count();
            for r in keep {
                slot += count(pair, r.start);
                let len = count(r.start, r.end);
                if len > 0 {
                    ranges.push(slot..slot + len);
                }
                slot += len;
                pair = r.end;
            }
            (slots, bits, valid, ranges)
        };
        let page = DataPage {
            num_values: slots,
            num_nulls: None,
            encoding: page.encoding,
            rep_levels: Levels::None,
            def_levels: Levels::None,
            values: page.values,
        };
        if let Err(e) = self
            .decoder
            .decode_ranges(page, bits, valid, loc.clone(), &slot_ranges)
        {
            return Err(self.name_invalid_row(e, start, n).at(loc));
        }
        // Keep only the selected pairs' levels.
        let kept: usize = keep.iter().map(|r| r.end - r.start).sum();
        for levels in [&mut self.rep, &mut self.def] {
            if levels.is_empty() {
                continue;
            }
            let mut w = start;
            for r in keep {
                levels.copy_within(start + r.start..start + r.end, w);
                w += r.end - r.start;
            }
            levels.truncate(w);
        }
        self.entries = start + kept;
        self.starts += if self.max_rep > 0 {
            nested_levels::count_equal(&self.rep[start..], 0)
        } else {
            kept
        };
        if self.decoder.can_borrow() {
            let col = self.decoder.finish();
            self.ready.push_back(col);
        }
        Ok(())
    }

    /// The pair index just past the first `records` whole records from `pos`.
    fn cut(&self, records: usize) -> usize {
        if self.max_rep == 0 {
            return self.pos + records;
        }
        self.pos + nested_levels::records_end(&self.rep[self.pos..self.entries], records)
    }

    /// Take `slots` decoded slots.
    fn take_values(&mut self, slots: usize) -> Result<Column> {
        // Slots cut at batch boundaries are ready; those after the last cut belong to the
        // next batch unless these slots reach into them.
        let ready = self.ready.iter().map(|c| c.len).sum::<usize>() - self.front_offset;
        if (ready < slots || self.ready.is_empty()) && self.decoder.len() > 0 {
            let col = self.decoder.finish();
            self.ready.push_back(col);
        }
        let mut pieces = Vec::new();
        let mut left = slots;
        while left > 0 {
            let Some(front) = self.ready.front() else {
                return Err(Error::format(format!(
                    "column {}: {left} value slots missing",
                    self.reader.desc.path_string()
                )));
            };
            let avail = front.len - self.front_offset;
            let k = avail.min(left);
            pieces.push(front.slice(self.front_offset, k));
            left -= k;
            if k == avail {
                self.ready.pop_front();
                self.front_offset = 0;
            } else {
                self.front_offset += k;
            }
        }
        Ok(match pieces.len() {
            // No slots: an empty column of the leaf's layout.
            0 => match self.ready.front() {
                Some(front) => front.slice(self.front_offset, 0),
                None => self.decoder.finish(),
            },
            1 => pieces.pop().expect("one piece"),
            _ => {
                probe::hit("nested.values_copied_together");
                Column::concat(&pieces)
            }
        })
    }

    /// Drop the levels before `pos` once they are most of the buffer. Called before a page is
    /// appended, not after each batch: what moves is then the tail of the page before (less
    /// than a batch), where after each batch it was up to half a page each time.
    fn compact(&mut self) {
        if self.pos > 0 && self.pos * 2 >= self.entries {
            if !self.rep.is_empty() {
                self.rep.drain(..self.pos);
            }
            if !self.def.is_empty() {
                self.def.drain(..self.pos);
            }
            self.entries -= self.pos;
            self.pos = 0;
        }
    }
}

/// Append `n` levels of a page to `out` (nothing for a column without them), checking each is
/// at most `max`.
fn read_levels(levels: &Levels, max: i16, n: usize, out: &mut Vec<i16>) -> Result<()> {
    if max == 0 {
        return Ok(());
    }
    let start = out.len();
    match levels {
        Levels::None => {
            return Err(Error::format(
                "a page of a nested column without its levels",
            ));
        }
        Levels::Rle(data) => {
            // Checked against `max` run by run.
            return Ok(parq_codecs::levels::decode_levels_up_to(data, max, n, out)?);
        }
        Levels::BitPacked(data) => {
            // Deprecated BIT_PACKED: packed from the most significant bit.
            probe::hit("read.levels_bit_packed_legacy");
            let w = level_bit_width(max) as usize;
            if data.len() * 8 < n * w {
                return Err(Error::format("bit-packed levels truncated"));
            }
            out.reserve(n);
            for i in 0..n {
                let mut v = 0u16;
                for b in i * w..(i + 1) * w {
                    v = (v << 1) | ((data[b / 8] >> (7 - b % 8)) & 1) as u16;
                }
                out.push(v as i16);
            }
        }
    }
    // Without early exit, so the check vectorises.
    let bad = out[start..]
        .iter()
        .fold(false, |acc, &l| acc | (l > max) | (l < 0));
    if bad {
        return Err(Error::format(format!(
            "a level above the column's max {max}"
        )));
    }
    Ok(())
}

/// The leaf's slots among a page's pairs (`d >= def_slot`) and their validity (`d == max`).
fn leaf_slots(def: &[i16], def_slot: i16, max: i16) -> (usize, Option<BooleanBuffer>, usize) {
    if nested_levels::all_at_least(def, max) {
        probe::hit("nested.leaf_page_all_valid");
        return (def.len(), None, def.len());
    }
    if nested_levels::none_between(def, def_slot, max) {
        // Empty (or null) lists but no null value: every slot is valid.
        probe::hit("nested.leaf_page_slots_all_valid");
        let slots = nested_levels::count_at_least(def, def_slot);
        return (slots, None, slots);
    }
    let mut b = BooleanBufferBuilder::new(def.len());
    let (slots, valid) = nested_levels::slot_validity(def, None, def_slot, max, &mut b);
    let bits = (valid < slots).then(|| b.finish());
    (slots, bits, valid)
}

/// Reads one (projected) top-level field, whole records at a time.
pub(crate) struct FieldReader<S: Source> {
    plan: FieldPlan,
    leaves: Vec<LeafState<S>>,
    /// For a field without leaves ([`FieldPlan::is_leafless`]), which no page describes:
    /// the selected rows not yet handed out, from the footer.
    leafless_rows: u64,
}

/// Each leaf's `def_slot`: the element level of its nearest list (0 outside lists).
fn leaf_slot_levels(plan: &FieldPlan, out: &mut Vec<(usize, i16)>) {
    match &plan.kind {
        PlanKind::Leaf { column, .. } => out.push((*column, plan.def_slot)),
        PlanKind::Struct(children) => children.iter().for_each(|c| leaf_slot_levels(c, out)),
        PlanKind::List { child, .. } => leaf_slot_levels(child, out),
    }
}

impl<S: Source> FieldReader<S> {
    /// A reader of `plan`'s field; `batched` as for [`LeafState::new`].
    fn new(file: &FileDecoder<S>, plan: FieldPlan, batched: bool) -> Result<Self> {
        let mut leaves = Vec::new();
        leaf_slot_levels(&plan, &mut leaves);
        let leaves = leaves
            .into_iter()
            .map(|(c, ds)| LeafState::new(file.leaf_reader(c)?, c, ds, batched))
            .collect::<Result<Vec<_>>>()?;
        let leafless_rows = if leaves.is_empty() {
            file.selected_rows()
        } else {
            0
        };
        Ok(FieldReader {
            plan,
            leaves,
            leafless_rows,
        })
    }

    /// The next `records` records (fewer at the end; `None` when none is left).
    fn next(&mut self, records: usize) -> Result<Option<(Array, usize)>> {
        for l in &mut self.leaves {
            l.batch = records;
        }
        let mut asm = Assembly::new(&self.plan);
        let Some((rows, slots)) = self.step(records, &mut asm)? else {
            return Ok(None);
        };
        let mut values = Vec::with_capacity(self.leaves.len());
        for (l, n) in self.leaves.iter_mut().zip(slots) {
            values.push((l.column, Some(l.take_values(n)?)));
        }
        Ok(Some((asm.finish(&self.plan, &mut values)?, rows)))
    }

    /// Every record left, as one array: assembled a run of [`WHOLE_STEP`] records at a time
    /// into one output, so that only a page or so of levels is buffered (and in cache) at
    /// once, and each leaf's values decoded into one reserved buffer (`slot_hints`, per leaf,
    /// from the footer: `(slots, value bytes)`). `None` when no record is left.
    fn read_all(&mut self, hints: &[(usize, usize)]) -> Result<Option<Array>> {
        for (l, &(slots, bytes)) in self.leaves.iter_mut().zip(hints) {
            l.decoder.reserve(slots);
            l.decoder.reserve_bytes(bytes);
        }
        let mut asm = Assembly::new(&self.plan);
        let mut runs = 0;
        while self.step(WHOLE_STEP, &mut asm)?.is_some() {
            runs += 1;
        }
        if runs == 0 {
            return Ok(None);
        }
        probe::hit_n("nested.whole_runs", runs);
        let mut slots = Vec::with_capacity(self.leaves.len());
        asm.leaf_slots(&mut slots);
        let mut values = Vec::with_capacity(self.leaves.len());
        for (l, n) in self.leaves.iter_mut().zip(slots) {
            values.push((l.column, Some(l.take_values(n)?)));
        }
        asm.finish(&self.plan, &mut values).map(Some)
    }

    /// Append the next `records` records (fewer at the end) to `asm`; returns the records
    /// and each leaf's slots among them, `None` when no record is left.
    fn step(&mut self, records: usize, asm: &mut Assembly) -> Result<Option<(usize, Vec<usize>)>> {
        if self.leaves.is_empty() {
            let rows = (records as u64).min(self.leafless_rows) as usize;
            if rows == 0 {
                return Ok(None);
            }
            self.leafless_rows -= rows as u64;
            asm.append(&self.plan, &[], rows)?;
            return Ok(Some((rows, Vec::new())));
        }
        for l in &mut self.leaves {
            l.fill(records)?;
        }
        let rows = self.leaves[0].complete_records().min(records);
        for l in &self.leaves[1..] {
            if l.complete_records().min(records) != rows {
                return Err(Error::format(format!(
                    "columns {} and {} of field {:?} hold different numbers of records",
                    self.leaves[0].reader.desc.path_string(),
                    l.reader.desc.path_string(),
                    self.plan.name
                )));
            }
        }
        if rows == 0 {
            return Ok(None);
        }
        let cuts: Vec<usize> = self.leaves.iter().map(|l| l.cut(rows)).collect();
        let views: Vec<LeafView<'_>> = self
            .leaves
            .iter()
            .zip(&cuts)
            .map(|(l, &end)| {
                let def: &[i16] = if l.def.is_empty() {
                    &[]
                } else {
                    &l.def[l.pos..end]
                };
                LeafView {
                    column: l.column,
                    entries: end - l.pos,
                    max_rep: l.max_rep,
                    rep: if l.rep.is_empty() {
                        &[]
                    } else {
                        &l.rep[l.pos..end]
                    },
                    def,
                    slots: if l.def_slot == 0 || def.is_empty() {
                        end - l.pos
                    } else {
                        nested_levels::count_at_least(def, l.def_slot)
                    },
                }
            })
            .collect();
        asm.append(&self.plan, &views, rows)?;
        let slots = views.iter().map(|v| v.slots).collect();
        drop(views);
        for (l, end) in self.leaves.iter_mut().zip(cuts) {
            let records = if l.max_rep == 0 { end - l.pos } else { rows };
            l.starts -= records;
            l.pos = end;
        }
        Ok(Some((rows, slots)))
    }
}

/// A whole-field read fed one row group at a time: the push decoder's whole reads
/// ([`ParquetReader::read_field`]). The assembly and each leaf's decoder carry across row
/// groups, so the field is assembled straight into one output, as [`FieldReader::read_all`]
/// does over all row groups at once.
pub(crate) struct WholeField {
    plan: FieldPlan,
    asm: Assembly,
    /// Each leaf's decoder, between row groups (`None` before the first).
    decoders: Option<Vec<ChunkDecoder>>,
    /// What to reserve in the first row group's decoders, per leaf.
    hints: Vec<(usize, usize)>,
    runs: u64,
}

impl WholeField {
    /// A read of `plan`'s field of `file` (a reader of every row group the read selects,
    /// for the reservation hints; it reads nothing).
    pub(crate) fn new<S: Source>(file: &FileDecoder<S>, plan: FieldPlan) -> Self {
        let mut leaves = Vec::new();
        leaf_slot_levels(&plan, &mut leaves);
        let hints = leaves.iter().map(|&(c, _)| file.whole_hint(c)).collect();
        WholeField {
            asm: Assembly::new(&plan),
            plan,
            decoders: None,
            hints,
            runs: 0,
        }
    }

    /// Assemble the records of `rg_reader`'s row groups (one, in the push decoder).
    pub(crate) fn row_group<S: Source>(&mut self, rg_reader: &FileDecoder<S>) -> Result<()> {
        let mut r = FieldReader::new(rg_reader, self.plan.clone(), false)?;
        match self.decoders.take() {
            Some(decoders) => {
                for (l, d) in r.leaves.iter_mut().zip(decoders) {
                    l.decoder = d;
                }
            }
            None => {
                for (l, &(slots, bytes)) in r.leaves.iter_mut().zip(&self.hints) {
                    l.decoder.reserve(slots);
                    l.decoder.reserve_bytes(bytes);
                }
            }
        }
        while r.step(WHOLE_STEP, &mut self.asm)?.is_some() {
            self.runs += 1;
        }
        self.decoders = Some(r.leaves.into_iter().map(|l| l.decoder).collect());
        Ok(())
    }

    /// The whole field; `file` as for [`Self::new`] (for the empty array of a read that
    /// assembled no record).
    pub(crate) fn finish<S: Source>(mut self, file: &FileDecoder<S>) -> Result<Array> {
        let Some(mut decoders) = self.decoders.take().filter(|_| self.runs > 0) else {
            return empty_array(&self.plan, file);
        };
        probe::hit_n("nested.whole_runs", self.runs);
        let mut slots = Vec::with_capacity(decoders.len());
        self.asm.leaf_slots(&mut slots);
        let mut columns = Vec::new();
        leaf_slot_levels(&self.plan, &mut columns);
        let mut values = Vec::with_capacity(decoders.len());
        for ((d, n), (column, _)) in decoders.iter_mut().zip(slots).zip(columns) {
            let col = d.finish();
            if col.len < n {
                return Err(Error::format(format!(
                    "column {}: {} value slots missing",
                    file.schema.leaf(column).path_string(),
                    n - col.len
                )));
            }
            let col = if col.len > n { col.slice(0, n) } else { col };
            values.push((column, Some(col)));
        }
        self.asm.finish(&self.plan, &mut values)
    }
}

/// Records a whole-field read assembles at a time: the levels of about one batch, which
/// stay in cache while every node above the leaves is computed from them.
const WHOLE_STEP: usize = 8192;

/// How one field of an [`ArrayBatchReader`] is read.
enum FieldSource<S: Source> {
    /// A top-level flat column, through the flat reader's batches.
    Flat(super::batch::ColumnBatches<S>),
    Nested(FieldReader<S>),
}

/// Rows of several fields, all of the same length.
#[derive(Debug, Clone)]
pub struct ArrayBatch {
    /// Rows (records) in this batch.
    pub num_rows: usize,
    /// The (projected) fields, in the requested order.
    pub fields: Vec<Field>,
    /// One array per field.
    pub arrays: Vec<Array>,
}

/// An iterator of [`ArrayBatch`]es; see [`ParquetReader::array_batches`].
pub struct ArrayBatchReader<S: Source>(PushDriver<S>);

impl<S: Source> ArrayBatchReader<S> {
    /// The fields every batch holds.
    pub fn fields(&self) -> &[Field] {
        self.0.batch_fields()
    }
}

impl<S: Source> Iterator for ArrayBatchReader<S> {
    type Item = Result<ArrayBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next_batch().transpose()
    }
}

/// Batches of fields, decoded straight from the column readers.
pub(crate) struct FieldBatches<S: Source> {
    fields: Vec<Field>,
    readers: Vec<FieldSource<S>>,
    batch_size: usize,
    failed: bool,
}

impl<S: Source> FieldBatches<S> {
    /// The leaves' decoders, once the batches are done, handed to the next row group's
    /// [`FileDecoder::field_batches`].
    pub(crate) fn into_decoders(self) -> Vec<ChunkDecoder> {
        let mut out = Vec::new();
        for r in self.readers {
            match r {
                FieldSource::Flat(b) => out.extend(b.into_decoders()),
                FieldSource::Nested(f) => out.extend(f.leaves.into_iter().map(|l| l.decoder)),
            }
        }
        out
    }

    fn next_batch(&mut self) -> Result<Option<ArrayBatch>> {
        let mut arrays = Vec::with_capacity(self.readers.len());
        let mut rows = None;
        for (r, field) in self.readers.iter_mut().zip(&self.fields) {
            let got = match r {
                FieldSource::Flat(b) => b
                    .next()
                    .transpose()?
                    .map(|mut b| (Array::Primitive(b.columns.remove(0)), b.num_rows)),
                FieldSource::Nested(r) => r.next(self.batch_size)?,
            };
            let n = got.as_ref().map_or(0, |g| g.1);
            match rows {
                None => rows = Some(n),
                Some(m) if m != n => {
                    return Err(Error::format(format!(
                        "field {:?} has {n} rows where another has {m}",
                        field.name
                    )));
                }
                _ => {}
            }
            if let Some((a, _)) = got {
                arrays.push(a);
            }
        }
        match rows {
            Some(n) if n > 0 => Ok(Some(ArrayBatch {
                num_rows: n,
                fields: self.fields.clone(),
                arrays,
            })),
            _ => Ok(None),
        }
    }
}

impl<S: Source> Iterator for FieldBatches<S> {
    type Item = Result<ArrayBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_batch() {
            Ok(b) => b.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

impl<S: Source> FileDecoder<S> {
    /// The plans of `columns`: each a top-level field (the whole field) or a leaf (that leaf
    /// and its ancestors), by name or by index (see [`Select`]). Leaves under the same
    /// top-level field are merged into one projected field, placed where the first of them
    /// was asked for. A name that several fields or leaves carry is an error listing them.
    pub(crate) fn projection(&self, columns: &[Select]) -> Result<Vec<FieldPlan>> {
        let plans = plan_fields(&self.schema)?;
        let mut order: Vec<usize> = Vec::new();
        let mut keep: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); plans.len()];
        for c in columns {
            let whole = |i: usize, keep: &mut Vec<BTreeSet<usize>>| {
                let mut all = Vec::new();
                plans[i].leaves(&mut all);
                keep[i].extend(all);
                i
            };
            let leaf = |leaf: usize, keep: &mut Vec<BTreeSet<usize>>| {
                let top = self.schema.leaf(leaf).top_level_field;
                keep[top].insert(leaf);
                top
            };
            let top = match c {
                Select::Field(i) if *i < plans.len() => whole(*i, &mut keep),
                Select::Field(i) => {
                    return Err(Error::InvalidArgument(format!(
                        "no field {i}: the file has {} top-level fields",
                        plans.len()
                    )))
                }
                Select::Leaf(i) if *i < self.schema.num_columns() => leaf(*i, &mut keep),
                Select::Leaf(i) => {
                    return Err(Error::InvalidArgument(format!(
                        "no leaf column {i}: the file has {}",
                        self.schema.num_columns()
                    )))
                }
                Select::Path(name) => {
                    let tops: Vec<usize> = (0..plans.len())
                        .filter(|&i| plans[i].name == *name)
                        .collect();
                    match tops.as_slice() {
                        [i] => whole(*i, &mut keep),
                        [] => leaf(self.schema.lookup(name)?, &mut keep),
                        _ => {
                            return Err(Error::InvalidArgument(format!(
                                "{name:?} names {} top-level fields (fields {}): select one \
                                 by its index",
                                tops.len(),
                                crate::schema::list_indices(&tops)
                            )))
                        }
                    }
                }
            };
            if !order.contains(&top) {
                order.push(top);
            }
        }
        order
            .into_iter()
            .map(|i| {
                plans[i]
                    .project(&keep[i])
                    .ok_or_else(|| Error::InvalidArgument("empty projection".into()))
            })
            .collect()
    }

    /// The leaf `column` selects when that is a whole top-level column (a primitive field
    /// directly under the root), else `None`.
    pub(crate) fn top_level_leaf(&self, column: &Select) -> Option<usize> {
        let leaf = match column {
            Select::Path(path) => self.schema.find(path)?,
            Select::Leaf(i) => *i,
            // The field's own node, not a scan of the leaves: filters ask per column.
            Select::Field(i) => match self.schema.top_level_fields().get(*i)?.kind {
                crate::schema::SchemaNodeKind::Leaf(leaf) => leaf,
                crate::schema::SchemaNodeKind::Group(_) => return None,
            },
        };
        (leaf < self.schema.num_columns() && self.schema.leaf(leaf).path.len() == 1).then_some(leaf)
    }

    /// The field `plan` reads, whole, over the selected row groups.
    pub(crate) fn read_plan(&self, plan: FieldPlan) -> Result<(Field, Array)> {
        let field = plan.field();
        let array = PushDriver::whole(self, vec![self.whole_item(plan)])?
            .pop()
            .ok_or_else(|| Error::internal("a whole read without its array"))?;
        Ok((field, array))
    }

    /// How a whole read decodes the field `plan` reads.
    pub(crate) fn whole_item(&self, plan: FieldPlan) -> WholeItem {
        match plan.kind {
            // A flat column: its levels are a validity bitmap, read the fast way.
            PlanKind::Leaf { column, .. } if self.is_flat_leaf(column) => WholeItem::Leaf(column),
            _ => WholeItem::Field(plan),
        }
    }

    /// Every record of `plan`'s field in one go: the count comes from the pages, not from
    /// the footer's num_rows (some writers leave it 0), and nothing is sized by it.
    pub(crate) fn read_nested_whole(&self, plan: FieldPlan) -> Result<Array> {
        let mut r = FieldReader::new(self, plan, false)?;
        let hints: Vec<(usize, usize)> =
            r.leaves.iter().map(|l| self.whole_hint(l.column)).collect();
        match r.read_all(&hints)? {
            Some(a) => Ok(a),
            None => empty_array(&r.plan, self),
        }
    }

    /// What to reserve for a whole read of nested leaf `column`, `(slots, value bytes)`:
    /// its level pairs in the selected row groups (at least its slots) and their byte size,
    /// from the footer, so only hints: the pairs capped by the file (8 pairs per byte is
    /// what bit-packed levels hold) and a fixed ceiling, and nothing under a row selection,
    /// which reads fewer.
    pub(crate) fn whole_hint(&self, column: usize) -> (usize, usize) {
        const MAX_RESERVE: u64 = 1 << 26;
        if self.options.selection.is_some() {
            return (0, 0);
        }
        let row_groups = self.selected_row_groups();
        let pairs = row_groups
            .iter()
            .filter_map(|&rg| self.metadata.row_groups[rg].columns.get(column))
            .filter_map(|chunk| chunk.meta_data.as_ref())
            .map(|m| m.num_values.max(0) as u64)
            .fold(0u64, u64::saturating_add);
        let by_file = self.source.len().saturating_mul(8);
        (
            pairs.min(by_file).min(MAX_RESERVE) as usize,
            self.value_bytes_hint(column, &row_groups),
        )
    }

    /// Per field of the projection `columns` (as for [`Self::array_batches`]): the field,
    /// and its leaf column when the field is a flat column, read through the flat batches,
    /// else the leaf columns of the nested field in schema order (the order of the leaves of
    /// its Arrow type).
    #[cfg(feature = "arrow")]
    pub(crate) fn field_leaves(&self, columns: &[Select]) -> Result<Vec<(Field, FieldLeaves)>> {
        Ok(self
            .projection(columns)?
            .into_iter()
            .map(|p| {
                let leaves = match p.kind {
                    PlanKind::Leaf { column, .. } if self.reads_flat(&p) => {
                        FieldLeaves::Flat(column)
                    }
                    _ => {
                        let mut leaves = Vec::new();
                        leaf_slot_levels(&p, &mut leaves);
                        FieldLeaves::Nested(leaves.into_iter().map(|(c, _)| c).collect())
                    }
                };
                (p.field(), leaves)
            })
            .collect())
    }

    /// Whether the field `p` of a projection is a flat column, read through the flat
    /// batches (its levels are a validity bitmap), rather than assembled from levels.
    pub(crate) fn reads_flat(&self, p: &FieldPlan) -> bool {
        matches!(p.kind, PlanKind::Leaf { column, .. } if self.is_flat_leaf(column))
    }

    /// Batches decoded straight from the column readers of this reader's row groups (the
    /// push decoder's, for one row group).
    /// `handed`: the leaves' decoders from the row group before
    /// ([`FieldBatches::into_decoders`] of the same projection), used again as
    /// [`Self::column_batches`] uses its own.
    pub(crate) fn field_batches(
        &self,
        columns: &[Select],
        batch_size: usize,
        handed: Vec<ChunkDecoder>,
    ) -> Result<FieldBatches<S>> {
        self.planned_field_batches(&self.projection(columns)?, batch_size, handed)
    }

    /// [`Self::field_batches`] of a projection planned already ([`Self::projection`]), for
    /// a caller that reads the same projection row group after row group.
    pub(crate) fn planned_field_batches(
        &self,
        plans: &[FieldPlan],
        batch_size: usize,
        handed: Vec<ChunkDecoder>,
    ) -> Result<FieldBatches<S>> {
        if batch_size == 0 {
            return Err(Error::InvalidArgument("batch size 0".into()));
        }
        let fields = plans.iter().map(FieldPlan::field).collect();
        // Each field's leaves, in the order `into_decoders` gives their decoders.
        let counts: Vec<usize> = plans
            .iter()
            .map(|p| {
                let mut leaves = Vec::new();
                p.leaves(&mut leaves);
                leaves.len()
            })
            .collect();
        let fits = handed.len() == counts.iter().sum::<usize>();
        let mut handed = handed.into_iter();
        let readers = plans
            .iter()
            .zip(counts)
            .map(|(p, n)| {
                let mine: Vec<ChunkDecoder> = if fits {
                    handed.by_ref().take(n).collect()
                } else {
                    Vec::new()
                };
                Ok(match p.kind {
                    // A flat column: its levels are a validity bitmap, read the fast way.
                    PlanKind::Leaf { column, .. } if self.reads_flat(p) => {
                        FieldSource::Flat(self.column_batches(&[column], batch_size, mine)?)
                    }
                    _ => {
                        let mut f = FieldReader::new(self, p.clone(), true)?;
                        if mine.len() == f.leaves.len() {
                            for (l, d) in f.leaves.iter_mut().zip(mine) {
                                l.decoder = d;
                            }
                        }
                        FieldSource::Nested(f)
                    }
                })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(FieldBatches {
            fields,
            readers,
            batch_size,
            failed: false,
        })
    }

    pub(crate) fn array_batches<C>(
        &self,
        columns: &[C],
        batch_size: usize,
    ) -> Result<ArrayBatchReader<S>>
    where
        for<'c> &'c C: Into<Select>,
    {
        Ok(ArrayBatchReader(PushDriver::fields(
            self,
            &selects(columns),
            batch_size,
        )?))
    }

    pub(crate) fn fields(&self) -> Result<Vec<Field>> {
        Ok(plan_fields(&self.schema)?
            .iter()
            .map(FieldPlan::field)
            .collect())
    }
}

impl<S: Source> ParquetReader<S> {
    /// The top-level fields of the file's schema, with lists, structs and maps resolved
    /// (including the legacy spellings of `LogicalTypes.md`).
    ///
    /// ```
    /// # use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
    /// # use parq::array::{Array, ListArray, ListOffsets};
    /// # use parq::column::{Column, Values};
    /// # use parq::field::Field;
    /// # use parq::metadata::Type;
    /// # use parq::write::{ParquetWriter, WriterOptions};
    /// # let items = Column { len: 2, validity: None, values: Values::Int64(vec![1i64, 2].into()) };
    /// # let lists = Array::List(ListArray {
    /// #     validity: Some(NullBuffer::from(vec![true, false, true])),
    /// #     offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2, 2, 2]))),
    /// #     values: Box::new(Array::Primitive(items)),
    /// # });
    /// # let ids = Array::Primitive(Column { len: 3, validity: None, values: Values::Int32(vec![7, 8, 9].into()) });
    /// # let schema = vec![
    /// #     Field::primitive("id", Type::INT32).required(),
    /// #     Field::list("ids", Field::primitive("element", Type::INT64)),
    /// # ];
    /// # let mut file = Vec::new();
    /// # let mut w = ParquetWriter::with_fields(&mut file, schema, WriterOptions::default())?;
    /// # w.write_arrays(&[ids, lists])?;
    /// # w.finish()?;
    /// use parq::field::DataType;
    /// use parq::read::ParquetReader;
    ///
    /// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
    /// let fields = reader.fields()?;
    /// assert_eq!(fields[1].name, "ids");
    /// assert!(matches!(fields[1].data_type, DataType::List(_)));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn fields(&self) -> Result<Vec<Field>> {
        self.decoder.fields()
    }

    /// Read top-level field `i` (an index into [`Self::fields`]) over the selected row groups.
    ///
    /// ```
    /// # use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
    /// # use parq::array::{Array, ListArray, ListOffsets};
    /// # use parq::column::{Column, Values};
    /// # use parq::field::Field;
    /// # use parq::metadata::Type;
    /// # use parq::write::{ParquetWriter, WriterOptions};
    /// # let items = Column { len: 2, validity: None, values: Values::Int64(vec![1i64, 2].into()) };
    /// # let lists = Array::List(ListArray {
    /// #     validity: Some(NullBuffer::from(vec![true, false, true])),
    /// #     offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2, 2, 2]))),
    /// #     values: Box::new(Array::Primitive(items)),
    /// # });
    /// # let ids = Array::Primitive(Column { len: 3, validity: None, values: Values::Int32(vec![7, 8, 9].into()) });
    /// # let schema = vec![
    /// #     Field::primitive("id", Type::INT32).required(),
    /// #     Field::list("ids", Field::primitive("element", Type::INT64)),
    /// # ];
    /// # let mut file = Vec::new();
    /// # let mut w = ParquetWriter::with_fields(&mut file, schema, WriterOptions::default())?;
    /// # w.write_arrays(&[ids, lists])?;
    /// # w.finish()?;
    /// use parq::array::Value;
    /// use parq::read::ParquetReader;
    ///
    /// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
    /// let (field, ids) = reader.read_field(1)?;
    /// assert_eq!(field.name, "ids");
    /// assert_eq!(ids.len(), 3);
    /// assert_eq!(ids.value(1), Value::Null);
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn read_field(&self, i: usize) -> Result<(Field, Array)> {
        self.read_one(Select::Field(i))
    }

    /// Read one column by name: a top-level field, or a leaf's dotted path (that leaf with
    /// its ancestors, e.g. `"a.list.element.b"` gives `a` as a list of structs of `b`).
    ///
    /// ```
    /// # use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
    /// # use parq::array::{Array, ListArray, ListOffsets};
    /// # use parq::column::{Column, Values};
    /// # use parq::field::Field;
    /// # use parq::metadata::Type;
    /// # use parq::write::{ParquetWriter, WriterOptions};
    /// # let items = Column { len: 2, validity: None, values: Values::Int64(vec![1i64, 2].into()) };
    /// # let lists = Array::List(ListArray {
    /// #     validity: Some(NullBuffer::from(vec![true, false, true])),
    /// #     offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2, 2, 2]))),
    /// #     values: Box::new(Array::Primitive(items)),
    /// # });
    /// # let ids = Array::Primitive(Column { len: 3, validity: None, values: Values::Int32(vec![7, 8, 9].into()) });
    /// # let schema = vec![
    /// #     Field::primitive("id", Type::INT32).required(),
    /// #     Field::list("ids", Field::primitive("element", Type::INT64)),
    /// # ];
    /// # let mut file = Vec::new();
    /// # let mut w = ParquetWriter::with_fields(&mut file, schema, WriterOptions::default())?;
    /// # w.write_arrays(&[ids, lists])?;
    /// # w.finish()?;
    /// use parq::array::Value;
    /// use parq::read::ParquetReader;
    ///
    /// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
    /// let (_, by_name) = reader.read_field_by_path("ids")?;
    /// let (_, by_leaf) = reader.read_field_by_path("ids.list.element")?;
    /// assert_eq!(by_name.value(2), Value::List(vec![]));
    /// assert_eq!(by_leaf.value(0), by_name.value(0));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn read_field_by_path(&self, path: &str) -> Result<(Field, Array)> {
        self.read_one(path.into())
    }

    /// The builder's one-batch read of `column` alone.
    fn read_one(&self, column: Select) -> Result<(Field, Array)> {
        let batch = self.read_builder().with_projection([column]).read_all()?;
        batch
            .fields
            .into_iter()
            .zip(batch.arrays)
            .next()
            .ok_or_else(|| Error::internal("a read of one field without it"))
    }

    /// Stream batches of `batch_size` records of `columns` (top-level field names or leaf
    /// dotted paths, see [`Self::read_field_by_path`]). Batches end on record boundaries,
    /// and at the end of each row group: the push decoder decodes them (see
    /// [`push`](super::push)), fed from this reader's source.
    ///
    /// ```
    /// # use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
    /// # use parq::array::{Array, ListArray, ListOffsets};
    /// # use parq::column::{Column, Values};
    /// # use parq::field::Field;
    /// # use parq::metadata::Type;
    /// # use parq::write::{ParquetWriter, WriterOptions};
    /// # let items = Column { len: 2, validity: None, values: Values::Int64(vec![1i64, 2].into()) };
    /// # let lists = Array::List(ListArray {
    /// #     validity: Some(NullBuffer::from(vec![true, false, true])),
    /// #     offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2, 2, 2]))),
    /// #     values: Box::new(Array::Primitive(items)),
    /// # });
    /// # let ids = Array::Primitive(Column { len: 3, validity: None, values: Values::Int32(vec![7, 8, 9].into()) });
    /// # let schema = vec![
    /// #     Field::primitive("id", Type::INT32).required(),
    /// #     Field::list("ids", Field::primitive("element", Type::INT64)),
    /// # ];
    /// # let mut file = Vec::new();
    /// # let mut w = ParquetWriter::with_fields(&mut file, schema, WriterOptions::default())?;
    /// # w.write_arrays(&[ids, lists])?;
    /// # w.finish()?;
    /// use parq::read::ParquetReader;
    ///
    /// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
    /// let batches = reader.array_batches(&["ids", "id"], 2)?;
    /// assert_eq!(batches.fields()[0].name, "ids"); // in the order asked for
    /// let mut rows = 0;
    /// for batch in batches {
    ///     let batch = batch?;
    ///     assert_eq!(batch.arrays.len(), 2);
    ///     rows += batch.num_rows;
    /// }
    /// assert_eq!(rows, 3);
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn array_batches<C>(&self, columns: &[C], batch_size: usize) -> Result<ArrayBatchReader<S>>
    where
        for<'c> &'c C: Into<Select>,
    {
        self.decoder.array_batches(columns, batch_size)
    }
}

/// The leaf columns of a projected field ([`ParquetReader::field_leaves`]).
#[cfg(feature = "arrow")]
pub(crate) enum FieldLeaves {
    /// A flat column, read through the flat batches.
    Flat(usize),
    /// The leaves of a field assembled from levels, in schema order.
    Nested(Vec<usize>),
}

/// An array of no rows shaped like `plan`.
fn empty_array<S: Source>(plan: &FieldPlan, file: &FileDecoder<S>) -> Result<Array> {
    use crate::array::{ListArray, ListOffsets, StructArray};
    Ok(match &plan.kind {
        PlanKind::Leaf { column, .. } => {
            let mut d = file.leaf_reader(*column)?.new_decoder()?;
            Array::Primitive(d.finish())
        }
        PlanKind::Struct(children) => Array::Struct(StructArray {
            len: 0,
            validity: None,
            children: children
                .iter()
                .map(|c| empty_array(c, file))
                .collect::<Result<_>>()?,
        }),
        PlanKind::List { child, map, .. } => {
            let list = ListArray {
                validity: None,
                offsets: ListOffsets::Small(arrow_buffer::OffsetBuffer::new_empty()),
                values: Box::new(empty_array(child, file)?),
            };
            if *map {
                Array::Map(list)
            } else {
                Array::List(list)
            }
        }
    })
}

/// Record assembly without pages, for fuzzing and property tests against a naive oracle.
// For the tests and fuzz targets outside the crate only (feature `internals`).
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod testing {
    use super::*;
    use crate::column::Values;
    use crate::schema::SchemaDescriptor;

    /// The batches of `columns` of `reader` decoded straight from its column readers,
    /// without the push decoder that [`ParquetReader::array_batches`] runs through: the
    /// oracle the push decoder is tested against. Batches here span row groups.
    pub fn direct_array_batches<S: Source, C>(
        reader: &ParquetReader<S>,
        columns: &[C],
        batch_size: usize,
    ) -> Result<Vec<ArrayBatch>>
    where
        for<'c> &'c C: Into<Select>,
    {
        reader
            .decoder
            .field_batches(&selects(columns), batch_size, Vec::new())?
            .collect()
    }

    /// Assemble top-level field `field` of `schema` from each of its leaves' `(rep, def)`
    /// levels (empty where the leaf's max level is 0; `entries` pairs each), checked as pages
    /// are. Each leaf's values are `0, 1, 2, ...` as `Int64` in the order they would be
    /// stored, whatever the leaf's physical type.
    pub fn assemble_levels(
        schema: &SchemaDescriptor,
        field: usize,
        entries: usize,
        leaves: &[(Vec<i16>, Vec<i16>)],
    ) -> Result<Array> {
        let leaves: Vec<(usize, &[i16], &[i16])> = leaves
            .iter()
            .map(|(r, d)| (entries, r.as_slice(), d.as_slice()))
            .collect();
        assemble_leaf_levels(schema, field, &leaves)
    }

    /// [`assemble_levels`] with a pair count per leaf: `(entries, rep, def)` for each leaf of
    /// the field in schema order. Leaves under one field hold different numbers of pairs
    /// as soon as a list sits below a struct with another leaf (`struct{list<a>, b}`).
    pub fn assemble_leaf_levels(
        schema: &SchemaDescriptor,
        field: usize,
        leaves: &[(usize, &[i16], &[i16])],
    ) -> Result<Array> {
        let plan = plan_fields(schema)?
            .into_iter()
            .nth(field)
            .ok_or_else(|| Error::InvalidArgument(format!("no field {field}")))?;
        let mut slot_levels = Vec::new();
        leaf_slot_levels(&plan, &mut slot_levels);
        if slot_levels.len() != leaves.len() {
            return Err(Error::InvalidArgument(format!(
                "{} leaves given for {}",
                leaves.len(),
                slot_levels.len()
            )));
        }
        let mut checked = Vec::with_capacity(leaves.len());
        let mut rows = None;
        for (&(column, def_slot), &(entries, rep, def)) in slot_levels.iter().zip(leaves) {
            let desc = schema.leaf(column);
            let (max_rep, max_def) = (desc.max_rep_level, desc.max_def_level);
            let expect = |v: &[i16], max: i16| v.len() == if max > 0 { entries } else { 0 };
            if !expect(rep, max_rep) || !expect(def, max_def) {
                return Err(Error::InvalidArgument(
                    "level counts differ from entries".into(),
                ));
            }
            if rep.iter().any(|&r| r < 0 || r > max_rep)
                || def.iter().any(|&d| d < 0 || d > max_def)
            {
                return Err(Error::format("a level above the column's max"));
            }
            if rep.first().is_some_and(|&r| r != 0) {
                return Err(Error::format("the levels start inside a record"));
            }
            let records = if max_rep > 0 {
                rep.iter().filter(|&&r| r == 0).count()
            } else {
                entries
            };
            if rows.is_some_and(|n| n != records) {
                return Err(Error::format("leaves hold different numbers of records"));
            }
            rows = Some(records);
            let (slots, bits, valid) = if max_def == 0 {
                (entries, None, entries)
            } else {
                leaf_slots(def, def_slot, max_def)
            };
            let mut values = Vec::with_capacity(slots);
            let mut next = 0i64;
            for i in 0..slots {
                if bits.as_ref().is_none_or(|b| b.value(i)) {
                    values.push(next);
                    next += 1;
                } else {
                    values.push(0);
                }
            }
            debug_assert_eq!(next as usize, valid);
            let values = Column {
                len: slots,
                validity: bits.map(arrow_buffer::NullBuffer::new),
                values: Values::Int64(values.into()),
            };
            checked.push((column, max_rep, values));
        }
        let views: Vec<LeafView<'_>> = checked
            .iter()
            .zip(leaves)
            .map(
                |((column, max_rep, values), &(entries, rep, def))| LeafView {
                    column: *column,
                    entries,
                    max_rep: *max_rep,
                    rep,
                    def,
                    slots: values.len,
                },
            )
            .collect();
        let mut values: Vec<(usize, Option<Column>)> =
            checked.into_iter().map(|(c, _, v)| (c, Some(v))).collect();
        assemble(&plan, &views, rows.unwrap_or(0), &mut values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::Values;
    use crate::read::ParquetReader;
    use crate::write::{Field, ParquetWriter, WriterOptions};
    use bytes::Bytes;

    fn read_bit_packed(data: &[u8], max: i16, n: usize) -> Result<Vec<i16>> {
        let mut out = vec![7]; // appended after what is there
        read_levels(
            &Levels::BitPacked(Bytes::copy_from_slice(data)),
            max,
            n,
            &mut out,
        )?;
        assert_eq!(out[0], 7);
        Ok(out[1..].to_vec())
    }

    /// The deprecated BIT_PACKED levels: packed from the most significant bit, `n` exactly
    /// (a whole last byte is enough, one bit short is not), each at most `max`.
    #[test]
    fn bit_packed_levels_are_read_msb_first_and_checked() {
        assert_eq!(
            read_bit_packed(&[0b1011_0010], 1, 8).unwrap(),
            [1, 0, 1, 1, 0, 0, 1, 0]
        );
        // Two bits each: 10 01 00 11 | 01 ...
        assert_eq!(
            read_bit_packed(&[0b1001_0011, 0b0100_0000], 3, 5).unwrap(),
            [2, 1, 0, 3, 1]
        );
        // Levels below the max are fine; one above it is an error.
        assert_eq!(read_bit_packed(&[0b0101_0000], 2, 2).unwrap(), [1, 1]);
        assert!(read_bit_packed(&[0b1100_0000], 2, 1).is_err());
        // Truncated: 9 one-bit levels in one byte, 5 two-bit levels in one byte.
        assert!(read_bit_packed(&[0xff], 1, 9).is_err());
        assert!(read_bit_packed(&[0xff], 3, 5).is_err());
        assert_eq!(read_bit_packed(&[], 1, 0).unwrap(), Vec::<i16>::new());
    }

    /// A leaf over a tiny flat file, for the buffer arithmetic of [`LeafState::compact`].
    fn leaf_state() -> LeafState<Bytes> {
        let mut file = Vec::new();
        let mut w =
            ParquetWriter::new(&mut file, vec![Field::int64("v")], WriterOptions::default())
                .unwrap();
        w.write_batch(&[Column {
            len: 1,
            validity: None,
            values: Values::Int64(vec![1i64].into()),
        }])
        .unwrap();
        w.finish().unwrap();
        let reader = ParquetReader::new(Bytes::from(file)).unwrap();
        LeafState::new(reader.decoder.leaf_reader(0).unwrap(), 0, 0, true).unwrap()
    }

    fn compacted(pos: usize, entries: usize, with_rep: bool) -> (usize, usize, Vec<i16>, Vec<i16>) {
        let mut l = leaf_state();
        let levels: Vec<i16> = (0..entries as i16).collect();
        l.rep = if with_rep { levels.clone() } else { Vec::new() };
        l.def = levels;
        l.entries = entries;
        l.pos = pos;
        l.compact();
        (l.pos, l.entries, l.rep, l.def)
    }

    /// Levels handed out are dropped once they are at least half the buffer, not before.
    #[test]
    fn compact_drops_handed_out_levels_once_they_are_half_the_buffer() {
        let tail = |from: i16, to: i16| (from..to).collect::<Vec<i16>>();
        assert_eq!(compacted(5, 10, true), (0, 5, tail(5, 10), tail(5, 10)));
        assert_eq!(compacted(6, 10, false), (0, 4, vec![], tail(6, 10)));
        assert_eq!(compacted(10, 10, true), (0, 0, vec![], vec![]));
        // Under half: kept as they are.
        assert_eq!(compacted(4, 10, true), (4, 10, tail(0, 10), tail(0, 10)));
        assert_eq!(compacted(1, 3, true), (1, 3, tail(0, 3), tail(0, 3)));
        assert_eq!(compacted(0, 0, true), (0, 0, vec![], vec![]));
        assert_eq!(compacted(0, 4, true), (0, 4, tail(0, 4), tail(0, 4)));
    }
}
