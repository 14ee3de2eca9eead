//! Typed decoding of pages into Arrow-layout buffers.
//!
//! A [`ChunkDecoder`] is built once per column with its physical type resolved (the decode
//! plan): it owns one monomorphised [`ValuesDecoder`], so the per-page work has no type
//! dispatch. Levels are decoded once per page into a validity bitmap; values are decoded dense
//! (only the valid ones) and scattered into their slots one run at a time.

mod boolean;
mod byte_array_offsets;
mod byte_array_views;
mod byte_arrays;
mod dictionary_keys;
mod fixed;
mod fixed_bytes;
mod values;

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer};
use bytes::Bytes;
use parq_codecs::probe;

use self::boolean::BooleanDecoder;
use self::byte_array_offsets::BinaryDecoder;
use self::byte_array_views::ViewDecoder;
use self::dictionary_keys::KeysDecoder;
use self::fixed::FixedDecoder;
use self::fixed_bytes::FixedBytesDecoder;
pub(crate) use self::values::is_dictionary;
use self::values::{PartStart, ValuesDecoder};
use crate::column::Column;
use crate::error::Location;
use crate::metadata::{Encoding, Type};
use crate::read::levels::page_validity;
use crate::read::page::DataPage;
use crate::{Error, Result};

/// How BYTE_ARRAY columns are laid out in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ByteArrayLayout {
    /// Arrow (large) binary: i64 offsets plus one values buffer. Values are copied once.
    #[default]
    Offsets,
    /// Arrow binary view: 16-byte views into the page (or dictionary) buffers, no copy of
    /// values longer than 12 bytes.
    Views,
}

/// Decodes the data pages of one column (across chunks) into one growing column.
pub(crate) struct ChunkDecoder {
    values: Box<dyn ValuesDecoder>,
    validity: Option<BooleanBufferBuilder>,
    len: usize,
    /// Slots the current run should reach (see `plan_run`); 0 once reserved.
    planned: usize,
    /// A page decoded only up to the end of a run; the next run starts with its rest.
    pending: Option<PendingPage>,
    /// Output bytes the pages may ask for until the next [`ChunkDecoder::finish`].
    budget: u64,
    /// Output bytes the pages asked for since the last [`ChunkDecoder::finish`].
    charged: u64,
    /// Output bytes the pages of every decoder of one hand-out asked for, where several
    /// decode its parts (page ranges on threads of their own): the budget bounds their sum.
    shared_charge: Option<Arc<AtomicU64>>,
    /// The row (in its row group) of the next page's first slot, when its slots are rows
    /// (a flat column) and the caller knows it: a value that fails a check names its row.
    page_row: Option<u64>,
    /// After a string failed the UTF-8 check in a page whose rows are not known here (a
    /// nested leaf's): its slot in the page, for the caller that knows the levels to name
    /// its row ([`ChunkDecoder::take_invalid_slot`]).
    invalid_slot: Option<usize>,
}

/// The widest FIXED_LEN_BYTE_ARRAY read, in bytes: far above what types use (16 for UUID,
/// 32 for the widest decimal, a few KiB for vectors), and a cap on what one slot of a null
/// costs, since a null slot takes its full width in the output.
pub const MAX_TYPE_LENGTH: usize = 1 << 20;

/// The default of [`ReadOptions::max_memory`](super::ReadOptions::max_memory): 4 GiB.
pub const DEFAULT_MAX_MEMORY: u64 = 4 << 30;

/// Pages whose output is at most this many bytes, or not much more than their own bytes, are
/// decoded without a fallible reservation first: their allocations are bounded by data that
/// is really there. Larger ones (nulls or dictionary runs that inflate) reserve with
/// `try_reserve`, so that memory the system cannot give is an error, not an abort.
const RESERVE_FALLIBLY_FROM: u64 = 1 << 20;

/// The undecoded rest of a split page.
/// Where [`ChunkDecoder::decode_slots_cut`] finishes columns in a page.
pub(crate) struct Cuts<'a> {
    /// Slot indices in the page, ascending.
    pub at: &'a [usize],
    /// Slots to reserve before each new column (the last batch's, a hint capped like
    /// [`ChunkDecoder::reserve`]'s; 0: none), so that it does not grow by doubling.
    pub reserve: usize,
}

struct PendingPage {
    page: DataPage,
    /// Validity of the whole page (`None`: all valid).
    bits: Option<BooleanBuffer>,
    location: Location,
    /// Row (in its row group) of the page's first slot (see `ChunkDecoder::page_row`).
    row: Option<u64>,
    slots_done: usize,
    at: PartStart,
}

impl ChunkDecoder {
    /// The decode plan: pick the typed decoder for a physical type once.
    pub(crate) fn new(
        physical: Type,
        type_length: Option<i32>,
        layout: ByteArrayLayout,
    ) -> Result<Self> {
        Ok(Self::over(Self::values_decoder(
            physical,
            type_length,
            layout,
        )?))
    }

    /// A decoder whose dictionary-encoded pages come out as keys into their chunk's
    /// dictionary ([`Values::Dictionary`](crate::column::Values::Dictionary)); other pages,
    /// and the rest of a chunk after one, as [`ChunkDecoder::new`]'s would.
    pub(crate) fn dictionary_keys(
        physical: Type,
        type_length: Option<i32>,
        layout: ByteArrayLayout,
    ) -> Result<Self> {
        if physical == Type::BOOLEAN {
            // Booleans have no dictionary pages.
            return Self::new(physical, type_length, layout);
        }
        Ok(Self::over(Box::new(KeysDecoder::new(
            Self::values_decoder(physical, type_length, layout)?,
            Self::values_decoder(physical, type_length, layout)?,
        ))))
    }

    fn over(values: Box<dyn ValuesDecoder>) -> Self {
        ChunkDecoder {
            values,
            validity: None,
            len: 0,
            planned: 0,
            pending: None,
            budget: DEFAULT_MAX_MEMORY,
            charged: 0,
            shared_charge: None,
            page_row: None,
            invalid_slot: None,
        }
    }

    /// The typed values decoder of a physical type (the decode plan).
    fn values_decoder(
        physical: Type,
        type_length: Option<i32>,
        layout: ByteArrayLayout,
    ) -> Result<Box<dyn ValuesDecoder>> {
        Ok(match physical {
            Type::BOOLEAN => Box::new(BooleanDecoder::default()),
            Type::INT32 => Box::new(FixedDecoder::<i32>::default()),
            Type::INT64 => Box::new(FixedDecoder::<i64>::default()),
            Type::FLOAT => Box::new(FixedDecoder::<f32>::default()),
            Type::DOUBLE => Box::new(FixedDecoder::<f64>::default()),
            Type::INT96 => Box::new(FixedBytesDecoder::new(12, true)),
            Type::FIXED_LEN_BYTE_ARRAY => {
                let w = type_length
                    .and_then(|w| usize::try_from(w).ok())
                    .filter(|w| (1..=MAX_TYPE_LENGTH).contains(w))
                    .ok_or_else(|| {
                        Error::format(format!(
                            "FIXED_LEN_BYTE_ARRAY with type_length {type_length:?} (1 to \
                             {MAX_TYPE_LENGTH} accepted)"
                        ))
                    })?;
                Box::new(FixedBytesDecoder::new(w, false))
            }
            Type::BYTE_ARRAY => match layout {
                ByteArrayLayout::Offsets => Box::new(BinaryDecoder::default()),
                ByteArrayLayout::Views => Box::new(ViewDecoder::default()),
            },
            other => return Err(Error::Unsupported(format!("physical type {other:?}"))),
        })
    }

    /// Fail any page whose byte arrays are not each UTF-8 (a format error), checked where
    /// the bytes are hot: once per dictionary page (a gather from a valid dictionary needs no
    /// other check) and once per decoded part of other pages. Implemented for the offsets
    /// layout ([`ByteArrayLayout::Offsets`]) only: other layouts leave the check to their
    /// caller.
    pub(crate) fn with_utf8_check(mut self) -> Self {
        self.values.check_utf8();
        self
    }

    /// Hand out byte arrays with i32 offsets
    /// ([`Values::SmallBinary`](crate::column::Values::SmallBinary), Arrow's `Utf8` and
    /// `Binary` layout) for every run whose bytes fit in i32: pages are decoded straight
    /// into i32 offsets, and the part of a page that takes a run past `i32::MAX` bytes is
    /// decoded again, the run's offsets widened to i64. Implemented for the offsets layout
    /// ([`ByteArrayLayout::Offsets`]) only.
    pub(crate) fn with_small_offsets(mut self) -> Self {
        self.values.small_offsets();
        self
    }

    /// The next page's first slot is row `row` of its row group (`None`: not known, or the
    /// slots are not rows): set before each page by readers of flat columns, so that a
    /// string that is not UTF-8 is reported at its row.
    pub(crate) fn set_page_row(&mut self, row: Option<u64>) {
        self.page_row = row;
    }

    /// After an error: the slot (in the page's slots) of the string that failed the UTF-8
    /// check, when the page's rows were not known (see [`ChunkDecoder::set_page_row`]);
    /// taken, so the next call gives `None`.
    pub(crate) fn take_invalid_slot(&mut self) -> Option<usize> {
        self.invalid_slot.take()
    }

    /// Limit the output bytes pages may ask for between two [`ChunkDecoder::finish`]es.
    pub(crate) fn with_budget(mut self, bytes: u64) -> Self {
        self.budget = bytes;
        self
    }

    /// Charge the output to `total` too, which the decoders of the other parts of the same
    /// hand-out share: the budget bounds the sum, which [`Self::finish`] does not reset.
    pub(crate) fn with_shared_charge(mut self, total: Arc<AtomicU64>) -> Self {
        self.shared_charge = Some(total);
        self
    }

    /// Before decoding `slots` slots (`valid` values) of `page`: charge their output to the
    /// budget and, for a page that inflates, reserve it with `try_reserve`. Either failing is
    /// an [`Error::Memory`]; nothing is sized by the page's counts before this passes.
    fn admit(&mut self, page: &DataPage, slots: usize, valid: usize) -> Result<()> {
        let bytes = self
            .values
            .output_bytes(page, slots, valid)
            .saturating_add(slots as u64 / 8);
        self.charged = self.charged.saturating_add(bytes);
        let charged = match &self.shared_charge {
            Some(total) => total
                .fetch_add(bytes, Ordering::Relaxed)
                .saturating_add(bytes),
            None => self.charged,
        };
        if charged > self.budget {
            return Err(Error::memory(
                "decoded values of the pages read",
                charged,
                Some(self.budget),
            ));
        }
        if bytes > RESERVE_FALLIBLY_FROM.max(2 * page.values.len() as u64) {
            probe::hit("read.page_reserved_fallibly");
            self.values
                .try_reserve(slots, valid)
                .map_err(|_| Error::memory("decoded values of a page", bytes, None))?;
        }
        Ok(())
    }

    /// True when this column's pages may be lent out without a copy (fixed-width PLAIN).
    pub(crate) fn can_borrow(&self) -> bool {
        self.values.can_borrow()
    }

    /// Slots decoded and not yet taken.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Collect about `slots` slots into one buffer: reserve once instead of growing, and skip
    /// borrowing pages (their values would be copied into the big buffer anyway).
    /// The slot count is a hint from the footer: a hint over the budget, or that the system
    /// cannot give, is dropped, and the buffer grows with the pages instead.
    pub(crate) fn reserve(&mut self, slots: usize) {
        let bytes = self.values.output_bytes(&EMPTY_PAGE, slots, slots);
        if hint_fits(bytes, self.budget) {
            self.values.reserve(slots);
        }
    }

    /// Collect about `bytes` value bytes into one buffer (byte arrays as offsets; a hint,
    /// dropped like [`ChunkDecoder::reserve`]'s).
    pub(crate) fn reserve_bytes(&mut self, bytes: usize) {
        if hint_fits(bytes as u64, self.budget) {
            self.values.reserve_bytes(bytes);
        }
    }

    /// The next run collects about `slots` more slots into one buffer: at its first page,
    /// room is reserved for whole pages like it up to the plan (a page that cannot be split
    /// ends the run past it), so the buffers do not grow (and copy) mid-run.
    pub(crate) fn plan_run(&mut self, slots: usize) {
        self.planned = self.len + slots;
    }

    /// Replace the dictionary (a new column chunk's dictionary page).
    pub(crate) fn set_dictionary(&mut self, values: Bytes, num_values: usize) -> Result<()> {
        probe::hit("read.dictionary_page_decoded");
        self.values.set_dictionary(values, num_values)
    }

    /// Forget the dictionary (at the start of a new column chunk).
    pub(crate) fn clear_dictionary(&mut self) {
        self.values.clear_dictionary();
    }

    /// Decode one data page, appending its slots: all of them, or with `limit` at most that
    /// many when the page can be split, the rest waiting in [`ChunkDecoder::resume`].
    pub(crate) fn decode_page(
        &mut self,
        page: DataPage,
        location: Location,
        limit: Option<usize>,
    ) -> Result<()> {
        let v = page_validity(&page).map_err(|e| e.at(&location))?;
        let n = page.num_values;
        if limit.is_some_and(|l| l < n) && self.values.can_split(&page) {
            // The run ends inside this page: decode up to its end, keep the rest for the
            // next run, so that no batch straddles two runs (which would copy it).
            probe::hit("read.page_split");
            self.pending = Some(PendingPage {
                page,
                bits: v.bits,
                location,
                row: self.page_row,
                slots_done: 0,
                at: PartStart::default(),
            });
            return self.resume(limit.unwrap_or(n));
        }
        self.decode_slots(page, v.bits, v.valid, location)
    }

    /// Append all `page.num_values` slots of a page whose validity is already known (`bits`,
    /// `None` when all `valid == num_values` slots hold a value): the levels of a nested
    /// leaf are decoded by the caller, which passes a page of the leaf's slots only.
    pub(crate) fn decode_slots(
        &mut self,
        page: DataPage,
        bits: Option<BooleanBuffer>,
        valid: usize,
        location: Location,
    ) -> Result<()> {
        let n = page.num_values;
        self.admit(&page, n, valid).map_err(|e| e.at(&location))?;
        self.append_validity(bits.as_ref(), n);
        self.reserve_planned(&page, valid);
        if let Err(e) = self.values.decode(&page, bits.as_ref(), valid) {
            let e = located(
                self.values.as_mut(),
                &mut self.invalid_slot,
                e,
                bits.as_ref(),
                self.page_row,
            );
            return Err(e.at(&location));
        }
        self.len += n;
        Ok(())
    }

    /// [`ChunkDecoder::decode_slots`], but a column is finished and handed to `out` at each
    /// of `cuts.at` (ascending slot indices in `0..=page.num_values`), so that a nested leaf's
    /// batches are each one buffer: the slots after the last cut stay here, and the next
    /// pages append to them. A page that cannot be split is decoded whole, without cuts.
    pub(crate) fn decode_slots_cut(
        &mut self,
        page: DataPage,
        bits: Option<BooleanBuffer>,
        valid: usize,
        location: Location,
        cuts: Cuts<'_>,
        out: &mut impl FnMut(Column),
    ) -> Result<()> {
        let (hint, cuts) = (cuts.reserve, cuts.at);
        let n = page.num_values;
        if !self.values.can_split(&page) || self.pending.is_some() {
            return self.decode_slots(page, bits, valid, location);
        }
        if cuts.is_empty() {
            self.reserve_batch(&page, hint);
            return self.decode_slots(page, bits, valid, location);
        }
        probe::hit("read.page_cut_at_batches");
        let mut pending = Some(PendingPage {
            page,
            bits,
            location,
            row: self.page_row,
            slots_done: 0,
            at: PartStart::default(),
        });
        let mut done = 0;
        // Each cut, then the page's end (where the column goes on with the next page).
        for (k, &cut) in cuts.iter().chain([&n]).enumerate() {
            let cut = cut.min(n);
            if let Some(p) = pending.take_if(|_| cut > done) {
                self.reserve_batch(&p.page, hint);
                self.pending = Some(p);
                self.resume(cut - done)?;
                done = cut;
                pending = self.pending.take();
            }
            if k < cuts.len() && self.len > 0 {
                out(self.finish());
            }
        }
        Ok(())
    }

    /// Before the first slots of a new column: room for about `slots` slots like `page`'s, a
    /// hint dropped like [`ChunkDecoder::reserve`]'s (0: none). A sixteenth more, since the
    /// next batch's slots vary around the last's and a buffer that overflows by one slot
    /// doubles (and copies itself).
    fn reserve_batch(&mut self, page: &DataPage, slots: usize) {
        if self.len == 0 && slots > 0 {
            let slots = slots.saturating_add(slots / 16);
            let bytes = self.values.output_bytes(page, slots, slots);
            if hint_fits(bytes, self.budget) {
                self.values.reserve_run(page, slots, slots, 1);
            }
        }
    }

    /// Decode only the slots `ranges` (sorted, disjoint, inside the page) of a flat page:
    /// the rows a selection keeps of it.
    pub(crate) fn decode_selected(
        &mut self,
        page: DataPage,
        location: Location,
        ranges: &[Range<usize>],
    ) -> Result<()> {
        let v = page_validity(&page).map_err(|e| e.at(&location))?;
        self.decode_ranges(page, v.bits, v.valid, location, ranges)
    }

    /// Append the slots `ranges` (sorted, disjoint, inside the page) of a page of
    /// `page.num_values` slots whose validity is `bits` (`valid` values; `None`: all valid).
    ///
    /// The slots between ranges are skipped in the values decoder without being
    /// materialised: a byte offset for PLAIN, skipped indices for dictionary pages, a stream
    /// offset for BYTE_STREAM_SPLIT, the byte lengths of DELTA_LENGTH_BYTE_ARRAY values
    /// (decoded once per page). DELTA_BINARY_PACKED, DELTA_BYTE_ARRAY (and RLE booleans)
    /// carry state from value to value, so their pages are decoded whole, once, and the
    /// selected values taken from that (decode-and-drop).
    pub(crate) fn decode_ranges(
        &mut self,
        mut page: DataPage,
        bits: Option<BooleanBuffer>,
        valid: usize,
        location: Location,
        ranges: &[Range<usize>],
    ) -> Result<()> {
        let n = page.num_values;
        if ranges.first().is_some_and(|r| r.start == 0 && r.end == n) {
            return self.decode_slots(page, bits, valid, location);
        }
        if ranges.is_empty() {
            return Ok(());
        }
        let slots: usize = ranges.iter().map(|r| r.len()).sum();
        self.admit(&page, slots.min(n), valid.min(slots))
            .map_err(|e| e.at(&location))?;
        if self.values.can_skip(&page) {
            probe::hit("read.page_skip_in_decoder");
            self.values
                .start_skipping(&page)
                .map_err(|e| e.at(&location))?;
            let decoded = self.decode_parts(&page, bits.as_ref(), &location, ranges);
            self.values.end_skipping();
            return decoded;
        } else {
            probe::hit("read.page_decode_and_drop");
            let values = self
                .values
                .plain_values(&page, valid)
                .map_err(|e| e.at(&location))?;
            page = DataPage {
                encoding: Encoding::PLAIN,
                values,
                ..page
            };
        }
        self.decode_parts(&page, bits.as_ref(), &location, ranges)
    }

    /// The loop of [`ChunkDecoder::decode_ranges`] over a page that can skip.
    fn decode_parts(
        &mut self,
        page: &DataPage,
        bits: Option<&BooleanBuffer>,
        location: &Location,
        ranges: &[Range<usize>],
    ) -> Result<()> {
        let n = page.num_values;
        let mut at = PartStart::default();
        let mut pos = 0;
        for r in ranges {
            if r.start < pos || r.start >= r.end || r.end > n {
                return Err(Error::format(format!(
                    "selected slots {r:?} are not inside the page of {n} slots after {pos}"
                ))
                .at(location));
            }
            let gap = r.start - pos;
            let gap_valid = bits.map_or(gap, |b| b.slice(pos, gap).count_set_bits());
            if gap_valid > 0 {
                at = self
                    .values
                    .skip(page, at, gap_valid)
                    .map_err(|e| e.at(location))?;
            }
            let slots = r.end - r.start;
            let part = bits.map(|b| b.slice(r.start, slots));
            let count = part.as_ref().map_or(slots, |b| b.count_set_bits());
            let part = part.filter(|_| count < slots);
            self.append_validity(part.as_ref(), slots);
            let cursor = match self
                .values
                .decode_part(page, part.as_ref(), slots, at, count)
            {
                Ok(cursor) => cursor,
                Err(e) => {
                    let e = located(
                        self.values.as_mut(),
                        &mut self.invalid_slot,
                        e,
                        bits,
                        self.page_row,
                    );
                    return Err(e.at(location));
                }
            };
            self.len += slots;
            at = PartStart {
                first: at.first + count,
                cursor,
            };
            pos = r.end;
        }
        Ok(())
    }

    /// True while a split page has slots left.
    pub(crate) fn has_pending(&self) -> bool {
        self.pending.is_some()
    }

    /// Decode up to `limit` more slots of the split page.
    pub(crate) fn resume(&mut self, limit: usize) -> Result<()> {
        let Some(mut p) = self.pending.take() else {
            return Ok(());
        };
        let n = p.page.num_values;
        let slots = (n - p.slots_done).min(limit);
        let part = p.bits.as_ref().map(|b| b.slice(p.slots_done, slots));
        let count = part.as_ref().map_or(slots, |b| b.count_set_bits());
        // Each part is charged and reserved as it is decoded: a page split across batches
        // never holds room for more than the batch.
        if let Err(e) = self.admit(&p.page, slots, count) {
            return Err(e.at(&p.location));
        }
        let bits = part.filter(|_| count < slots);
        self.append_validity(bits.as_ref(), slots);
        if self.planned > self.len {
            let page_valid = p.bits.as_ref().map_or(n, |b| b.count_set_bits());
            self.reserve_planned(&p.page, page_valid);
        }
        let cursor = match self
            .values
            .decode_part(&p.page, bits.as_ref(), slots, p.at, count)
        {
            Ok(cursor) => cursor,
            Err(e) => {
                let e = located(
                    self.values.as_mut(),
                    &mut self.invalid_slot,
                    e,
                    p.bits.as_ref(),
                    p.row,
                );
                return Err(e.at(&p.location));
            }
        };
        self.len += slots;
        p.slots_done += slots;
        p.at = PartStart {
            first: p.at.first + count,
            cursor,
        };
        if p.slots_done < n {
            self.pending = Some(p);
        }
        Ok(())
    }

    /// Append the validity of `n` slots (`None`: all valid).
    fn append_validity(&mut self, bits: Option<&BooleanBuffer>, n: usize) {
        match (bits, &mut self.validity) {
            (None, None) => {}
            (None, Some(b)) => b.append_n(n, true),
            (Some(bits), b) => {
                let len = self.len;
                let b = b.get_or_insert_with(|| {
                    let mut b = BooleanBufferBuilder::new(len + n);
                    b.append_n(len, true);
                    b
                });
                b.append_buffer(bits);
            }
        }
    }

    /// At the first page of a planned run, reserve for the whole pages like `page` (`valid`
    /// values) that reach the plan.
    fn reserve_planned(&mut self, page: &DataPage, valid: usize) {
        if self.planned <= self.len {
            return;
        }
        let n = page.num_values;
        // Whole pages like this one, but `n` comes from the page header: never more than
        // twice the slots planned (themselves capped by the caller).
        let left = self.planned - self.len;
        let slots = n
            .max(1)
            .saturating_mul(left.div_ceil(n.max(1)))
            .min(2 * left);
        let per_page = n.clamp(1, slots);
        probe::hit("read.run_reserved");
        probe::hit_n("read.run_reserved_slots", slots as u64);
        self.values.reserve_run(
            page,
            per_page,
            valid.min(per_page),
            slots.div_ceil(per_page),
        );
        self.planned = 0;
    }

    /// Take everything decoded so far as one column; the dictionary is kept.
    pub(crate) fn finish(&mut self) -> Column {
        self.charged = 0;
        let len = std::mem::take(&mut self.len);
        let validity = self
            .validity
            .take()
            .map(|mut b| NullBuffer::new(b.finish()))
            .filter(|n| n.null_count() > 0);
        Column {
            len,
            validity,
            values: self.values.finish(),
        }
    }
}

/// `e`, from decoding a page whose validity is `bits` (`None`: all valid) and whose first
/// slot is row `first_row` of its row group: when a string failed the UTF-8 check, an error
/// naming its row (the decoder's dense index, through `bits`, is a slot of the page), or,
/// where the slots are not rows or their rows are not known, its place in the page, with
/// the slot kept in `invalid_slot` for a caller that can name the row. Work done on the
/// error path only.
fn located(
    values: &mut dyn ValuesDecoder,
    invalid_slot: &mut Option<usize>,
    e: Error,
    bits: Option<&BooleanBuffer>,
    first_row: Option<u64>,
) -> Error {
    let Some(k) = values.take_invalid_utf8() else {
        return e;
    };
    let slot = bits.map_or(Some(k), |b| b.set_indices().nth(k));
    if first_row.is_none() {
        *invalid_slot = slot;
    }
    Error::invalid_utf8(Some(match (first_row, slot) {
        (Some(first), Some(slot)) => {
            format!(
                "at row {} of the row group",
                first.saturating_add(slot as u64)
            )
        }
        _ => format!("at value {k} of the page (its non-null values counted from 0)"),
    }))
}

/// A page of no slots, for [`ValuesDecoder::output_bytes`] of a reservation hint.
static EMPTY_PAGE: DataPage = DataPage {
    num_values: 0,
    num_nulls: None,
    encoding: Encoding::PLAIN,
    rep_levels: super::page::Levels::None,
    def_levels: super::page::Levels::None,
    values: Bytes::new(),
};

/// A reservation hint of `bytes` is taken when it fits in the budget and the system could
/// give it: tried with `try_reserve` first, so that a hint the footer inflated shrinks to
/// growing buffers rather than aborting.
fn hint_fits(bytes: u64, budget: u64) -> bool {
    if bytes > budget {
        probe::hit("read.reserve_hint_dropped");
        return false;
    }
    if bytes < RESERVE_FALLIBLY_FROM {
        return true;
    }
    let fits = usize::try_from(bytes)
        .ok()
        .is_some_and(|b| Vec::<u8>::new().try_reserve_exact(b).is_ok());
    if !fits {
        probe::hit("read.reserve_hint_dropped");
    }
    fits
}
