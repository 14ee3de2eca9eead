//! Typed decoding of pages into Arrow-layout buffers.
//!
//! A [`ChunkDecoder`] is built once per column with its physical type resolved (the decode
//! plan): it owns one monomorphised [`ValuesDecoder`], so the per-page work has no type
//! dispatch. Levels are decoded once per page into a validity bitmap; values are decoded dense
//! (only the valid ones) and scattered into their slots one run at a time.

use std::collections::TryReserveError;
use std::mem::size_of;
use std::ops::Range;

use arrow_buffer::{
    BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer,
};
use bytes::Bytes;
use parq_codecs::encoding::{byte_stream_split, delta, plain, rle};
use parq_codecs::kernels::gather::ByteArrayDictionary;
use parq_codecs::kernels::memory;
use parq_codecs::{levels, probe};

use super::levels::page_validity;
use super::page::DataPage;
use crate::column::{Column, Values};
use crate::error::Location;
use crate::metadata::{Encoding, Type};
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
struct PendingPage {
    page: DataPage,
    /// Validity of the whole page (`None`: all valid).
    bits: Option<BooleanBuffer>,
    location: Location,
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
        let values: Box<dyn ValuesDecoder> = match physical {
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
        };
        Ok(ChunkDecoder {
            values,
            validity: None,
            len: 0,
            planned: 0,
            pending: None,
            budget: DEFAULT_MAX_MEMORY,
            charged: 0,
        })
    }

    /// Limit the output bytes pages may ask for between two [`ChunkDecoder::finish`]es.
    pub(crate) fn with_budget(mut self, bytes: u64) -> Self {
        self.budget = bytes;
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
        if self.charged > self.budget {
            return Err(Error::memory(
                "decoded values of the pages read",
                self.charged,
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
        self.values
            .decode(&page, bits.as_ref(), valid)
            .map_err(|e| e.at(&location))?;
        self.len += n;
        Ok(())
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
            let cursor = self
                .values
                .decode_part(page, part.as_ref(), slots, at, count)
                .map_err(|e| e.at(location))?;
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
        let cursor = self
            .values
            .decode_part(&p.page, bits.as_ref(), slots, p.at, count)
            .map_err(|e| e.at(&p.location))?;
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

/// The typed half of a [`ChunkDecoder`].
trait ValuesDecoder: Send {
    /// True when pages may be lent out whole (see [`FixedDecoder`]).
    fn can_borrow(&self) -> bool {
        false
    }
    /// Bytes of output `slots` slots (`valid` values) of `page` add, as the budget counts
    /// them: what the buffers of this layout grow by (byte array values by the page's bytes,
    /// an estimate for dictionary pages).
    fn output_bytes(&self, page: &DataPage, slots: usize, valid: usize) -> u64;
    /// Reserve, fallibly, the room `slots` slots (`valid` values) need.
    fn try_reserve(
        &mut self,
        slots: usize,
        valid: usize,
    ) -> std::result::Result<(), TryReserveError>;
    /// Prepare for about `slots` more slots collected into one buffer (whole-column reads).
    fn reserve(&mut self, slots: usize);
    /// Prepare for about `bytes` more value bytes (byte arrays copied out of their pages).
    fn reserve_bytes(&mut self, bytes: usize) {
        let _ = bytes;
    }
    /// Before the first page of a planned run: make room for `pages` pages like `page` (`n`
    /// slots, `valid` values), without changing how pages are decoded.
    fn reserve_run(&mut self, page: &DataPage, n: usize, valid: usize, pages: usize) {
        let _ = (page, valid);
        self.reserve(n.saturating_mul(pages));
    }
    fn set_dictionary(&mut self, values: Bytes, num_values: usize) -> Result<()>;
    fn clear_dictionary(&mut self);
    /// Append `page.num_values` slots; `validity` is `None` when all are valid.
    fn decode(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        valid: usize,
    ) -> Result<()> {
        self.decode_part(page, validity, page.num_values, PartStart::default(), valid)
            .map(|_| ())
    }
    /// True when `page` can be decoded in parts with [`ValuesDecoder::decode_part`].
    fn can_split(&self, page: &DataPage) -> bool {
        let _ = page;
        false
    }
    /// True when values of `page` can be skipped cheaply ([`ValuesDecoder::skip`]) and the
    /// rest decoded in parts: a page some of whose rows are selected.
    fn can_skip(&self, page: &DataPage) -> bool {
        self.can_split(page)
    }
    /// Before the parts of a page that [`ValuesDecoder::can_skip`]: load what skipping needs
    /// (the lengths of a DELTA_LENGTH_BYTE_ARRAY page), kept until
    /// [`ValuesDecoder::end_skipping`].
    fn start_skipping(&mut self, page: &DataPage) -> Result<()> {
        let _ = page;
        Ok(())
    }
    /// After the parts of a page: forget what [`ValuesDecoder::start_skipping`] loaded.
    fn end_skipping(&mut self) {}
    /// Past `n` more dense values of a page that [`ValuesDecoder::can_skip`], from `at`.
    fn skip(&self, page: &DataPage, at: PartStart, n: usize) -> Result<PartStart> {
        let _ = page;
        Ok(PartStart {
            first: at.first + n,
            cursor: at.cursor,
        })
    }
    /// The `valid` dense values of a page that cannot skip, decoded and encoded again as
    /// PLAIN, which can (decode-and-drop, for encodings whose values depend on the ones
    /// before them).
    fn plain_values(&mut self, page: &DataPage, valid: usize) -> Result<Bytes>;
    /// Append `slots` slots (`validity` covers exactly them) holding the page's dense values
    /// `at.first..at.first + count`; returns the cursor to pass with the next part.
    fn decode_part(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        let _ = (page, validity, slots, at, count);
        Err(Error::format(
            "this column's pages cannot be decoded in parts",
        ))
    }
    fn finish(&mut self) -> Values;
}

/// PLAIN pages and dictionary pages (once the dictionary is known) resume mid-page cheaply: a
/// byte cursor, or indices skipped.
fn splittable(page: &DataPage, has_dictionary: bool) -> bool {
    page.encoding == Encoding::PLAIN || (is_dictionary(page.encoding) && has_dictionary)
}

/// Fixed-width values also skip in BYTE_STREAM_SPLIT pages: value `i` is byte `i` of each
/// stream.
fn skippable_fixed(page: &DataPage, has_dictionary: bool) -> bool {
    splittable(page, has_dictionary) || page.encoding == Encoding::BYTE_STREAM_SPLIT
}

/// Byte arrays also skip in DELTA_LENGTH_BYTE_ARRAY pages, by their lengths.
fn skippable_bytes(page: &DataPage, has_dictionary: bool) -> bool {
    splittable(page, has_dictionary) || page.encoding == Encoding::DELTA_LENGTH_BYTE_ARRAY
}

/// PLAIN BYTE_ARRAY values `first..` start at byte `cursor`: skip `n` of them by their
/// length prefixes; dictionary pages skip indices (counted in `first`).
fn skip_byte_arrays(page: &DataPage, at: PartStart, n: usize) -> Result<PartStart> {
    let cursor = if page.encoding == Encoding::PLAIN {
        let rest = page.values.get(at.cursor..).unwrap_or_default();
        at.cursor + plain::skip_byte_arrays(rest, n)?
    } else {
        at.cursor
    };
    Ok(PartStart {
        first: at.first + n,
        cursor,
    })
}

/// The lengths of the DELTA_LENGTH_BYTE_ARRAY page being read in parts, decoded once, so
/// that values are skipped by their lengths (none of their bytes copied) and the rest read
/// from where the lengths put them. Loaded per page by `start_skipping`, dropped by
/// `end_skipping`.
#[derive(Default)]
struct PageLengths {
    loaded: bool,
    lengths: Vec<i32>,
    /// Where the value bytes start in the page.
    data_start: usize,
}

impl PageLengths {
    fn load(&mut self, page: &DataPage) -> Result<()> {
        self.loaded = false;
        self.lengths.clear();
        if page.encoding != Encoding::DELTA_LENGTH_BYTE_ARRAY {
            return Ok(());
        }
        let pos =
            delta::decode_binary_packed_i32(&page.values, page.num_values, &mut self.lengths)?;
        let mut total = 0usize;
        for &len in &self.lengths {
            let len = usize::try_from(len)
                .map_err(|_| Error::format("negative DELTA_LENGTH_BYTE_ARRAY length"))?;
            total = total.saturating_add(len);
        }
        if total > page.values.len().saturating_sub(pos) {
            return Err(Error::format(format!(
                "DELTA_LENGTH_BYTE_ARRAY lengths add up to {total} bytes, {} left in the page",
                page.values.len().saturating_sub(pos)
            )));
        }
        self.data_start = pos;
        self.loaded = true;
        Ok(())
    }

    /// The lengths of values `first..first + n`, when loaded for a DELTA_LENGTH_BYTE_ARRAY
    /// page.
    fn get(&self, page: &DataPage, first: usize, n: usize) -> Option<Result<&[i32]>> {
        if !self.loaded || page.encoding != Encoding::DELTA_LENGTH_BYTE_ARRAY {
            return None;
        }
        Some(
            first
                .checked_add(n)
                .and_then(|end| self.lengths.get(first..end))
                .ok_or_else(|| {
                    Error::format(format!(
                        "DELTA_LENGTH_BYTE_ARRAY page holds {} values, not {}",
                        self.lengths.len(),
                        first.saturating_add(n)
                    ))
                }),
        )
    }

    /// Past `n` values from `at` (`cursor`: bytes of values before `at.first`).
    fn skip(&self, page: &DataPage, at: PartStart, n: usize) -> Option<Result<PartStart>> {
        let lengths = match self.get(page, at.first, n)? {
            Ok(l) => l,
            Err(e) => return Some(Err(e)),
        };
        let bytes: usize = lengths.iter().map(|&l| l as usize).sum();
        Some(Ok(PartStart {
            first: at.first + n,
            cursor: at.cursor + bytes,
        }))
    }
}

/// Byte arrays in PLAIN: a page's values decoded to offsets and data, encoded again.
fn byte_arrays_as_plain(page: &DataPage, valid: usize) -> Result<Bytes> {
    let (mut offsets, mut data) = (vec![0i64], Vec::new());
    decode_binary_dense(
        page,
        PartStart::default(),
        valid,
        None,
        None,
        &mut Vec::new(),
        &mut offsets,
        &mut data,
    )?;
    let mut out = Vec::with_capacity(data.len() + 4 * valid);
    plain::encode_byte_arrays(
        offsets
            .windows(2)
            .map(|w| &data[w[0] as usize..w[1] as usize]),
        &mut out,
    );
    Ok(Bytes::from(out))
}

/// Where a part of a page starts: its first dense value and an encoding-specific cursor (the
/// byte offset of that value for PLAIN byte arrays; 0 at the page start).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PartStart {
    first: usize,
    cursor: usize,
}

fn is_dictionary(e: Encoding) -> bool {
    e == Encoding::PLAIN_DICTIONARY || e == Encoding::RLE_DICTIONARY
}

fn missing_dictionary() -> Error {
    Error::format("dictionary-encoded page without a dictionary page")
}

fn unsupported_encoding(e: Encoding, ty: &str) -> Error {
    Error::Unsupported(format!("encoding {e:?} for {ty} columns"))
}

/// Indices a dictionary page is decoded in at most, so that the index buffer is bounded by
/// this rather than by a count taken from the page header.
const INDEX_CHUNK: usize = 1 << 16;

/// Hand indices `first..first + n` of a dictionary-encoded page to `gather`, in chunks of at
/// most [`INDEX_CHUNK`] (decoded into `indices`).
fn with_index_chunks(
    input: &[u8],
    first: usize,
    n: usize,
    indices: &mut Vec<u32>,
    mut gather: impl FnMut(&[u32]) -> Result<()>,
) -> Result<()> {
    let mut dec = rle::dictionary_index_decoder(input)?;
    expect_count(dec.skip(first)?, first)?;
    let mut left = n;
    while left > 0 {
        let k = left.min(INDEX_CHUNK);
        indices.clear();
        indices.resize(k, 0);
        expect_count(dec.get_batch(&mut indices[..])?, k)?;
        gather(indices)?;
        left -= k;
    }
    Ok(())
}

/// A page of no slots, for [`ValuesDecoder::output_bytes`] of a reservation hint.
static EMPTY_PAGE: DataPage = DataPage {
    num_values: 0,
    num_nulls: None,
    num_rows: None,
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

/// Check that `n` items of at least `min_size` bytes fit in `bytes` before allocating for them.
fn check_count(n: usize, min_size: usize, bytes: usize, what: &str) -> Result<()> {
    if n.checked_mul(min_size).is_none_or(|need| need > bytes) {
        return Err(Error::format(format!(
            "{what} claims {n} values but holds only {bytes} bytes"
        )));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Fixed-width native values: INT32, INT64, FLOAT, DOUBLE.

/// A fixed-width native type decoded into a `ScalarBuffer`.
trait Native: bytemuck::Pod + Default + Send + Sync + arrow_buffer::ArrowNativeType {
    const NAME: &'static str;
    fn delta_decode(input: &[u8], n: usize, out: &mut Vec<Self>) -> Result<()>;
    fn wrap(values: ScalarBuffer<Self>) -> Values;
}

macro_rules! native {
    ($t:ty, $name:literal, $variant:ident, $delta:expr) => {
        impl Native for $t {
            const NAME: &'static str = $name;
            fn delta_decode(input: &[u8], n: usize, out: &mut Vec<Self>) -> Result<()> {
                #[allow(clippy::redundant_closure_call)]
                ($delta)(input, n, out)
            }
            fn wrap(values: ScalarBuffer<Self>) -> Values {
                Values::$variant(values)
            }
        }
    };
}

fn delta_i32(input: &[u8], n: usize, out: &mut Vec<i32>) -> Result<()> {
    let start = out.len();
    delta::decode_binary_packed_i32(input, n, out)?;
    expect_count(out.len() - start, n)
}

fn delta_i64(input: &[u8], n: usize, out: &mut Vec<i64>) -> Result<()> {
    let start = out.len();
    delta::decode_binary_packed_i64(input, n, out)?;
    expect_count(out.len() - start, n)
}

fn expect_count(got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(Error::format(format!(
            "page decoded {got} values where its levels need {want}"
        )));
    }
    Ok(())
}

native!(i32, "INT32", Int32, delta_i32);
native!(i64, "INT64", Int64, delta_i64);
native!(
    f32,
    "FLOAT",
    Float,
    |_: &[u8], _: usize, _: &mut Vec<f32>| Err(unsupported_encoding(
        Encoding::DELTA_BINARY_PACKED,
        "FLOAT"
    ))
);
native!(
    f64,
    "DOUBLE",
    Double,
    |_: &[u8], _: usize, _: &mut Vec<f64>| Err(unsupported_encoding(
        Encoding::DELTA_BINARY_PACKED,
        "DOUBLE"
    ))
);

/// Pages in a row that a [`FixedDecoder`] may copy (not lend out) before it stops trying to
/// lend pages and lets the batch reader decode whole runs: alignment may alternate from page
/// to page, but three copies in a row mean this column's pages are copied.
const COPIED_PAGES_BEFORE_RUNS: u8 = 3;

struct FixedDecoder<T: Native> {
    dict: Option<Vec<T>>,
    out: Vec<T>,
    /// A page's values borrowed without copy; only while it is the only page in `out`.
    borrowed: Option<ScalarBuffer<T>>,
    scratch: Vec<T>,
    bytes: Vec<u8>,
    /// False when the caller collects many pages into one buffer (whole-column reads), where
    /// borrowing the first page would only postpone its copy, or once pages keep being
    /// copied (see `copied_streak`).
    allow_borrow: bool,
    /// Pages in a row, each decoded on its own, that could not be lent out.
    copied_streak: u8,
}

impl<T: Native> Default for FixedDecoder<T> {
    fn default() -> Self {
        FixedDecoder {
            allow_borrow: true,
            copied_streak: 0,
            dict: None,
            out: Vec::new(),
            borrowed: None,
            scratch: Vec::new(),
            bytes: Vec::new(),
        }
    }
}

impl<T: Native> FixedDecoder<T> {
    /// The zero-copy path: an uncompressed PLAIN page without nulls, from a zero-copy source,
    /// aligned for `T`, becomes the output buffer itself.
    fn try_borrow(&mut self, page: &DataPage, n: usize) -> bool {
        if page.encoding != Encoding::PLAIN || !self.allow_borrow {
            return false;
        }
        if !self.out.is_empty() || self.borrowed.is_some() {
            probe::hit("read.plain_borrow_not_first");
            return false;
        }
        let Some(need) = n.checked_mul(size_of::<T>()) else {
            return false;
        };
        if need > page.values.len() {
            return false;
        }
        let buf = Buffer::from(page.values.slice(..need));
        if buf.as_ptr().align_offset(std::mem::align_of::<T>()) != 0 {
            probe::hit("read.plain_borrow_unaligned");
            return false;
        }
        self.borrowed = Some(ScalarBuffer::new(buf, 0, n));
        true
    }
}

/// Dense values `first..first + n` of a page (`first` > 0 only for PLAIN and dictionary).
fn decode_native_dense<T: Native>(
    page: &DataPage,
    first: usize,
    n: usize,
    dict: Option<&[T]>,
    bytes: &mut Vec<u8>,
    out: &mut Vec<T>,
) -> Result<()> {
    let input = &page.values[..];
    match page.encoding {
        Encoding::PLAIN => {
            probe::hit("read.plain_copied");
            let skip = first.saturating_mul(size_of::<T>()).min(input.len());
            plain::decode_fixed_into::<T>(&input[skip..], n, out)?;
        }
        e if is_dictionary(e) => {
            let dict = dict.ok_or_else(missing_dictionary)?;
            probe::hit("read.dictionary_gather");
            let mut dec = rle::dictionary_index_decoder(input)?;
            expect_count(dec.skip(first)?, first)?;
            rle::gather_dictionary(&mut dec, dict, n, out)?;
        }
        // A part of the page (not all its values from the first): the streams are as long
        // as the page has values.
        Encoding::BYTE_STREAM_SPLIT
            if first > 0 || n.checked_mul(size_of::<T>()) != Some(input.len()) =>
        {
            bytes.clear();
            byte_stream_split::decode_range(input, size_of::<T>(), first, n, bytes)?;
            parq_codecs::kernels::copy::extend_from_unaligned(out, bytes);
        }
        _ if first > 0 => return Err(Error::format("page split in an unsplittable encoding")),
        Encoding::DELTA_BINARY_PACKED => T::delta_decode(input, n, out)?,
        Encoding::BYTE_STREAM_SPLIT => {
            bytes.clear();
            byte_stream_split::decode(input, size_of::<T>(), n, bytes)?;
            // One copy into the output, without zero-filling it first.
            parq_codecs::kernels::copy::extend_from_unaligned(out, bytes);
        }
        e => return Err(unsupported_encoding(e, T::NAME)),
    }
    Ok(())
}

impl<T: Native> ValuesDecoder for FixedDecoder<T> {
    fn output_bytes(&self, _: &DataPage, slots: usize, _: usize) -> u64 {
        (slots as u64).saturating_mul(size_of::<T>() as u64)
    }

    fn try_reserve(
        &mut self,
        slots: usize,
        valid: usize,
    ) -> std::result::Result<(), TryReserveError> {
        self.out.try_reserve(slots)?;
        if valid < slots {
            // Values are decoded dense first, then scattered.
            self.scratch.try_reserve(valid)?;
        }
        Ok(())
    }

    fn can_borrow(&self) -> bool {
        self.allow_borrow
    }

    fn reserve(&mut self, slots: usize) {
        self.allow_borrow = false;
        memory::reserve_huge(&mut self.out, slots);
    }

    fn reserve_run(&mut self, _: &DataPage, n: usize, _: usize, pages: usize) {
        self.out.reserve(n.saturating_mul(pages));
    }

    fn set_dictionary(&mut self, values: Bytes, num_values: usize) -> Result<()> {
        check_count(num_values, size_of::<T>(), values.len(), "dictionary page")?;
        let mut dict = Vec::new();
        plain::decode_fixed_into::<T>(&values, num_values, &mut dict)?;
        self.dict = Some(dict);
        Ok(())
    }

    fn clear_dictionary(&mut self) {
        self.dict = None;
    }

    fn decode(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        valid: usize,
    ) -> Result<()> {
        let n = page.num_values;
        let first_of_run = self.out.is_empty() && self.borrowed.is_none();
        if validity.is_none() && self.try_borrow(page, n) {
            self.copied_streak = 0;
            return Ok(());
        }
        if first_of_run && self.allow_borrow {
            self.copied_streak += 1;
            if self.copied_streak >= COPIED_PAGES_BEFORE_RUNS {
                // Pages in a row copied, not lent out (encoding, nulls or alignment): from
                // now on the batch reader decodes runs of whole batches, split at their ends,
                // rather than page by page with a batch straddling every page boundary.
                probe::hit("read.borrow_given_up");
                self.allow_borrow = false;
            }
        }
        self.decode_part(page, validity, n, PartStart::default(), valid)
            .map(|_| ())
    }

    fn can_split(&self, page: &DataPage) -> bool {
        splittable(page, self.dict.is_some())
    }

    fn can_skip(&self, page: &DataPage) -> bool {
        skippable_fixed(page, self.dict.is_some())
    }

    fn plain_values(&mut self, page: &DataPage, valid: usize) -> Result<Bytes> {
        let mut values = Vec::new();
        let dict = self.dict.as_deref();
        decode_native_dense(page, 0, valid, dict, &mut self.bytes, &mut values)?;
        Ok(Bytes::copy_from_slice(bytemuck::cast_slice(&values)))
    }

    fn decode_part(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        if let Some(b) = self.borrowed.take() {
            // Another page joins the same output: the borrowed one is copied after all.
            probe::hit("read.plain_borrow_materialized");
            self.out.extend_from_slice(&b);
        }
        let dict = self.dict.as_deref();
        let first = at.first;
        match validity {
            None => decode_native_dense(page, first, slots, dict, &mut self.bytes, &mut self.out)?,
            Some(bits) if page.encoding == Encoding::PLAIN => {
                // Scattered straight from the page: no dense copy first.
                let size = size_of::<T>();
                let skip = first.saturating_mul(size).min(page.values.len());
                let rest = &page.values[skip..];
                check_count(count, size, rest.len(), "PLAIN page")?;
                probe::hit("read.plain_scatter_from_page");
                levels::scatter_fixed_from_bytes(
                    &rest[..count * size],
                    bits.values(),
                    bits.offset(),
                    slots,
                    &mut self.scratch,
                    &mut self.out,
                )?;
            }
            Some(bits) => {
                self.scratch.clear();
                decode_native_dense(page, first, count, dict, &mut self.bytes, &mut self.scratch)?;
                probe::hit("read.scatter_fixed");
                levels::scatter_fixed(
                    &self.scratch,
                    bits.values(),
                    bits.offset(),
                    slots,
                    &mut self.out,
                )?;
            }
        }
        Ok(0)
    }

    fn finish(&mut self) -> Values {
        if let Some(b) = self.borrowed.take() {
            // Counted here, where the page really is handed out without a copy.
            probe::hit("read.plain_borrowed");
            return T::wrap(b);
        }
        T::wrap(ScalarBuffer::from(std::mem::take(&mut self.out)))
    }
}

// ---------------------------------------------------------------------------------------
// BOOLEAN

#[derive(Default)]
struct BooleanDecoder {
    out: Option<BooleanBufferBuilder>,
    scratch: Option<BooleanBufferBuilder>,
}

fn decode_bool_dense(page: &DataPage, n: usize, out: &mut BooleanBufferBuilder) -> Result<()> {
    let input = &page.values[..];
    match page.encoding {
        Encoding::PLAIN => {
            plain::decode_boolean(input, 0, n, out)?;
        }
        Encoding::RLE => {
            let (body, _) = rle::split_length_prefixed(input)?;
            let mut dec = rle::RleDecoder::new(body, 1)?;
            let mut left = n;
            while left > 0 {
                match dec.next_run()? {
                    None => return Err(Error::format("boolean RLE data ended early")),
                    Some(rle::Run::Repeated { value, len }) => {
                        if value > 1 {
                            return Err(Error::format(format!("boolean RLE value {value}")));
                        }
                        let take = len.min(left);
                        out.append_n(take, value == 1);
                        left -= take;
                    }
                    Some(rle::Run::Packed { bytes, len, .. }) => {
                        let take = len.min(left);
                        check_count(take.div_ceil(8), 1, bytes.len(), "boolean bit-packed run")?;
                        out.append_packed_range(0..take, bytes);
                        left -= take;
                    }
                }
            }
        }
        e => return Err(unsupported_encoding(e, "BOOLEAN")),
    }
    Ok(())
}

impl ValuesDecoder for BooleanDecoder {
    fn output_bytes(&self, _: &DataPage, slots: usize, _: usize) -> u64 {
        slots as u64 / 8
    }

    fn try_reserve(&mut self, _: usize, _: usize) -> std::result::Result<(), TryReserveError> {
        // Bits: an eighth of the slots, as small as the validity bitmap.
        Ok(())
    }

    fn reserve(&mut self, slots: usize) {
        self.out
            .get_or_insert_with(|| BooleanBufferBuilder::new(0))
            .reserve(slots);
    }

    fn set_dictionary(&mut self, _: Bytes, _: usize) -> Result<()> {
        Err(Error::Unsupported("dictionary for a BOOLEAN column".into()))
    }

    fn clear_dictionary(&mut self) {}

    fn can_skip(&self, page: &DataPage) -> bool {
        page.encoding == Encoding::PLAIN
    }

    fn plain_values(&mut self, page: &DataPage, valid: usize) -> Result<Bytes> {
        let mut b = BooleanBufferBuilder::new(valid);
        decode_bool_dense(page, valid, &mut b)?;
        let mut out = Vec::new();
        plain::encode_boolean(&b.finish(), &mut out);
        Ok(Bytes::from(out))
    }

    fn decode_part(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        if page.encoding != Encoding::PLAIN {
            return Err(Error::format("boolean page part in a non-PLAIN encoding"));
        }
        let out = self
            .out
            .get_or_insert_with(|| BooleanBufferBuilder::new(slots));
        match validity {
            None => {
                plain::decode_boolean(&page.values, at.first, slots, out)?;
            }
            Some(bits) => {
                let scratch = self
                    .scratch
                    .get_or_insert_with(|| BooleanBufferBuilder::new(count));
                scratch.truncate(0);
                plain::decode_boolean(&page.values, at.first, count, scratch)?;
                levels::scatter_bits(
                    scratch.as_slice(),
                    count,
                    bits.values(),
                    bits.offset(),
                    slots,
                    out,
                )?;
            }
        }
        Ok(0)
    }

    fn decode(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        valid: usize,
    ) -> Result<()> {
        let n = page.num_values;
        let out = self.out.get_or_insert_with(|| BooleanBufferBuilder::new(n));
        match validity {
            None => decode_bool_dense(page, n, out),
            Some(bits) => {
                let scratch = self
                    .scratch
                    .get_or_insert_with(|| BooleanBufferBuilder::new(valid));
                scratch.truncate(0);
                decode_bool_dense(page, valid, scratch)?;
                levels::scatter_bits(
                    scratch.as_slice(),
                    valid,
                    bits.values(),
                    bits.offset(),
                    n,
                    out,
                )?;
                Ok(())
            }
        }
    }

    fn finish(&mut self) -> Values {
        Values::Boolean(
            self.out
                .take()
                .map_or_else(|| BooleanBuffer::new_unset(0), |mut b| b.finish()),
        )
    }
}

// ---------------------------------------------------------------------------------------
// INT96 and FIXED_LEN_BYTE_ARRAY: `width` bytes per value.

struct FixedBytesDecoder {
    width: usize,
    int96: bool,
    dict: Option<Vec<u8>>,
    out: Vec<u8>,
    scratch: Vec<u8>,
    indices: Vec<u32>,
    offsets: Vec<i64>,
}

impl FixedBytesDecoder {
    fn new(width: usize, int96: bool) -> Self {
        FixedBytesDecoder {
            width,
            int96,
            dict: None,
            out: Vec::new(),
            scratch: Vec::new(),
            indices: Vec::new(),
            offsets: Vec::new(),
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn decode_fixed_bytes_dense(
    page: &DataPage,
    first: usize,
    n: usize,
    width: usize,
    dict: Option<&[u8]>,
    indices: &mut Vec<u32>,
    offsets: &mut Vec<i64>,
    out: &mut Vec<u8>,
) -> Result<()> {
    let input = &page.values[..];
    match page.encoding {
        Encoding::PLAIN => {
            let skip = first.saturating_mul(width).min(input.len());
            out.extend_from_slice(plain::decode_fixed_bytes(&input[skip..], width, n)?)
        }
        e if is_dictionary(e) => {
            let dict = dict.ok_or_else(missing_dictionary)?;
            let entries = dict.len() / width;
            with_index_chunks(input, first, n, indices, |chunk| {
                out.reserve(chunk.len() * width);
                for &i in chunk {
                    let i = i as usize;
                    if i >= entries {
                        return Err(parq_codecs::Error::IndexOutOfRange {
                            index: i as u64,
                            len: entries,
                        }
                        .into());
                    }
                    out.extend_from_slice(&dict[i * width..(i + 1) * width]);
                }
                Ok(())
            })?;
        }
        Encoding::BYTE_STREAM_SPLIT if first > 0 || n.checked_mul(width) != Some(input.len()) => {
            byte_stream_split::decode_range(input, width, first, n, out)?
        }
        _ if first > 0 => return Err(Error::format("page split in an unsplittable encoding")),
        Encoding::BYTE_STREAM_SPLIT => byte_stream_split::decode(input, width, n, out)?,
        Encoding::DELTA_BYTE_ARRAY => {
            offsets.clear();
            offsets.push(0);
            let start = out.len();
            let mut data = std::mem::take(out);
            delta::decode_byte_array(input, n, offsets, &mut data)?;
            *out = data;
            expect_count(offsets.len() - 1, n)?;
            if out.len() - start != n * width
                || offsets.windows(2).any(|w| (w[1] - w[0]) as usize != width)
            {
                return Err(Error::format(format!(
                    "DELTA_BYTE_ARRAY value length differs from the fixed width {width}"
                )));
            }
        }
        e => return Err(unsupported_encoding(e, "FIXED_LEN_BYTE_ARRAY")),
    }
    Ok(())
}

impl ValuesDecoder for FixedBytesDecoder {
    fn output_bytes(&self, _: &DataPage, slots: usize, _: usize) -> u64 {
        (slots as u64).saturating_mul(self.width as u64)
    }

    fn try_reserve(
        &mut self,
        slots: usize,
        valid: usize,
    ) -> std::result::Result<(), TryReserveError> {
        self.out.try_reserve(slots.saturating_mul(self.width))?;
        if valid < slots {
            self.scratch.try_reserve(valid.saturating_mul(self.width))?;
        }
        Ok(())
    }

    fn reserve(&mut self, slots: usize) {
        memory::reserve_huge(&mut self.out, slots.saturating_mul(self.width));
    }

    fn set_dictionary(&mut self, values: Bytes, num_values: usize) -> Result<()> {
        let bytes = plain::decode_fixed_bytes(&values, self.width, num_values)?;
        self.dict = Some(bytes.to_vec());
        Ok(())
    }

    fn clear_dictionary(&mut self) {
        self.dict = None;
    }

    fn can_skip(&self, page: &DataPage) -> bool {
        skippable_fixed(page, self.dict.is_some())
    }

    fn plain_values(&mut self, page: &DataPage, valid: usize) -> Result<Bytes> {
        let mut out = Vec::new();
        decode_fixed_bytes_dense(
            page,
            0,
            valid,
            self.width,
            self.dict.as_deref(),
            &mut self.indices,
            &mut self.offsets,
            &mut out,
        )?;
        Ok(Bytes::from(out))
    }

    fn decode_part(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        let w = self.width;
        let dict = self.dict.as_deref();
        match validity {
            None => decode_fixed_bytes_dense(
                page,
                at.first,
                slots,
                w,
                dict,
                &mut self.indices,
                &mut self.offsets,
                &mut self.out,
            )?,
            Some(bits) => {
                self.scratch.clear();
                decode_fixed_bytes_dense(
                    page,
                    at.first,
                    count,
                    w,
                    dict,
                    &mut self.indices,
                    &mut self.offsets,
                    &mut self.scratch,
                )?;
                levels::scatter_bytes(
                    &self.scratch,
                    w,
                    bits.values(),
                    bits.offset(),
                    slots,
                    &mut self.out,
                )?;
            }
        }
        Ok(0)
    }

    fn finish(&mut self) -> Values {
        let data = Buffer::from_vec(std::mem::take(&mut self.out));
        if self.int96 {
            Values::Int96(data)
        } else {
            Values::FixedLenByteArray {
                width: self.width,
                data,
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// BYTE_ARRAY as offsets + data.

struct BinaryDecoder {
    dict: Option<ByteArrayDictionary>,
    offsets: Vec<i64>,
    data: Vec<u8>,
    dense_offsets: Vec<i64>,
    indices: Vec<u32>,
    lengths: PageLengths,
}

impl Default for BinaryDecoder {
    fn default() -> Self {
        BinaryDecoder {
            dict: None,
            offsets: vec![0],
            data: Vec::new(),
            dense_offsets: Vec::new(),
            indices: Vec::new(),
            lengths: PageLengths::default(),
        }
    }
}

/// The most bytes `BinaryDecoder` reserves on a projection (a hint from one page).
const MAX_DATA_RESERVE: usize = 1 << 26;

impl BinaryDecoder {
    /// The value bytes of `pages` pages like `page` (`valid` values each), estimated from
    /// this page; capped, since a page's own bytes are real but the count is projected.
    fn projected_bytes(&self, page: &DataPage, valid: usize, pages: usize) -> usize {
        let page_bytes = match page.encoding {
            // The whole page, length prefixes included: that is what the PLAIN decoder
            // reserves before each page, so the last page of the run fits too.
            Encoding::PLAIN => page.values.len(),
            // The mean entry times the values, plus an eighth for pages that pick longer
            // entries than the mean.
            e if is_dictionary(e) => match &self.dict {
                Some(d) if !d.is_empty() => {
                    let mean = (d.data_len() / d.len()).saturating_mul(valid);
                    mean.saturating_add(mean / 8 + 64)
                }
                _ => 0,
            },
            _ => page.values.len(),
        };
        // The page's own bytes are real; anything past them is a projection.
        page_bytes
            .saturating_mul(pages)
            .min(MAX_DATA_RESERVE.max(page.values.len()))
    }
}

/// True when `offsets` never decrease (no early exit, so it vectorises).
fn is_monotonic(offsets: &[i64]) -> bool {
    offsets
        .iter()
        .zip(offsets.iter().skip(1))
        .fold(true, |ok, (a, b)| ok & (a <= b))
}

/// Decode `n` byte arrays, appending ends to `offsets` (whose last element is the current
/// end of `data`) and bytes to `data`.
#[allow(clippy::too_many_arguments)]
fn decode_binary_dense(
    page: &DataPage,
    at: PartStart,
    n: usize,
    dict: Option<&ByteArrayDictionary>,
    lengths: Option<&PageLengths>,
    indices: &mut Vec<u32>,
    offsets: &mut Vec<i64>,
    data: &mut Vec<u8>,
) -> Result<usize> {
    if let Some(l) = lengths {
        if let Some(part) = l.get(page, at.first, n) {
            // A part of a DELTA_LENGTH_BYTE_ARRAY page: its bytes start `cursor` bytes into
            // the page's value bytes.
            let part = part?;
            let total: usize = part.iter().map(|&len| len as usize).sum();
            let start = l.data_start + at.cursor;
            let bytes = page
                .values
                .get(start..start + total)
                .ok_or_else(|| Error::format("DELTA_LENGTH_BYTE_ARRAY value past the page"))?;
            let mut end = match offsets.last() {
                Some(&end) => end,
                None => {
                    offsets.push(0);
                    0
                }
            };
            offsets.extend(part.iter().map(|&len| {
                end += len as i64;
                end
            }));
            data.extend_from_slice(bytes);
            return Ok(at.cursor + total);
        }
    }
    let input = page.values.get(at.cursor..).unwrap_or_default();
    let before = offsets.len();
    let mut cursor = at.cursor;
    match page.encoding {
        Encoding::PLAIN => {
            check_count(n, 4, input.len(), "BYTE_ARRAY page")?;
            cursor += plain::decode_byte_array_offsets(input, n, offsets, data)?;
        }
        e if is_dictionary(e) => {
            let dict = dict.ok_or_else(missing_dictionary)?;
            probe::hit("read.dictionary_gather_bytes");
            with_index_chunks(&page.values, at.first, n, indices, |chunk| {
                Ok(dict.gather(chunk, offsets, data)?)
            })?;
        }
        _ if at.first > 0 => return Err(Error::format("page split in an unsplittable encoding")),
        Encoding::DELTA_LENGTH_BYTE_ARRAY => {
            delta::decode_length_byte_array(input, n, offsets, data)?;
        }
        Encoding::DELTA_BYTE_ARRAY => {
            delta::decode_byte_array(input, n, offsets, data)?;
        }
        e => return Err(unsupported_encoding(e, "BYTE_ARRAY")),
    }
    expect_count(offsets.len() - before, n)?;
    Ok(cursor)
}

impl ValuesDecoder for BinaryDecoder {
    fn output_bytes(&self, page: &DataPage, slots: usize, valid: usize) -> u64 {
        (slots as u64)
            .saturating_mul(8)
            .saturating_add(self.projected_bytes(page, valid, 1) as u64)
    }

    fn try_reserve(&mut self, slots: usize, _: usize) -> std::result::Result<(), TryReserveError> {
        self.offsets.try_reserve(slots)
    }

    fn reserve(&mut self, slots: usize) {
        memory::reserve_huge(&mut self.offsets, slots);
    }

    fn reserve_bytes(&mut self, bytes: usize) {
        memory::reserve_huge(&mut self.data, bytes);
    }

    fn reserve_run(&mut self, page: &DataPage, n: usize, valid: usize, pages: usize) {
        self.offsets.reserve(n.saturating_mul(pages));
        let bytes = self.projected_bytes(page, valid, pages);
        self.data.reserve(bytes + 64);
    }

    fn set_dictionary(&mut self, values: Bytes, num_values: usize) -> Result<()> {
        check_count(num_values, 4, values.len(), "dictionary page")?;
        let mut offsets = vec![0];
        let mut data = Vec::new();
        plain::decode_byte_array_offsets(&values, num_values, &mut offsets, &mut data)?;
        self.dict = Some(ByteArrayDictionary::new(offsets, data)?);
        Ok(())
    }

    fn clear_dictionary(&mut self) {
        self.dict = None;
    }

    fn can_split(&self, page: &DataPage) -> bool {
        splittable(page, self.dict.is_some())
    }

    fn can_skip(&self, page: &DataPage) -> bool {
        skippable_bytes(page, self.dict.is_some())
    }

    fn start_skipping(&mut self, page: &DataPage) -> Result<()> {
        self.lengths.load(page)
    }

    fn end_skipping(&mut self) {
        self.lengths.loaded = false;
    }

    fn skip(&self, page: &DataPage, at: PartStart, n: usize) -> Result<PartStart> {
        self.lengths
            .skip(page, at, n)
            .unwrap_or_else(|| skip_byte_arrays(page, at, n))
    }

    fn plain_values(&mut self, page: &DataPage, valid: usize) -> Result<Bytes> {
        byte_arrays_as_plain(page, valid)
    }

    fn decode_part(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        let (had_bytes, capacity) = (!self.data.is_empty(), self.data.capacity());
        let cursor = self.decode_slots(page, validity, slots, at, count)?;
        if had_bytes && self.data.capacity() != capacity {
            // The run's reservation fell short and the bytes so far were copied again.
            probe::hit("read.binary_data_regrown");
        }
        Ok(cursor)
    }

    fn finish(&mut self) -> Values {
        let offsets = std::mem::replace(&mut self.offsets, vec![0]);
        let data = Buffer::from_vec(std::mem::take(&mut self.data));
        // Offsets are built monotonically from 0 by construction; checked once more here in a
        // pass that vectorises (arrow's own check in `OffsetBuffer::new` does not).
        assert!(
            offsets.first() == Some(&0) && is_monotonic(&offsets),
            "byte array offsets must start at 0 and never decrease"
        );
        // SAFETY: just checked: non-empty, starts at 0, monotonically increasing.
        let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
        Values::Binary { offsets, data }
    }
}

impl BinaryDecoder {
    /// Append `slots` slots holding dense values `at.first..at.first + count` of the page:
    /// values dense, then offsets scattered when there are nulls. Returns the cursor after.
    fn decode_slots(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        let dict = self.dict.as_ref();
        let lengths = Some(&self.lengths);
        match validity {
            None => decode_binary_dense(
                page,
                at,
                slots,
                dict,
                lengths,
                &mut self.indices,
                &mut self.offsets,
                &mut self.data,
            ),
            Some(bits) => {
                // Value bytes are dense either way; only the offsets need scattering.
                self.dense_offsets.clear();
                self.dense_offsets.push(self.data.len() as i64);
                let cursor = decode_binary_dense(
                    page,
                    at,
                    count,
                    dict,
                    lengths,
                    &mut self.indices,
                    &mut self.dense_offsets,
                    &mut self.data,
                )?;
                probe::hit("read.scatter_offsets");
                levels::scatter_offsets(
                    &self.dense_offsets,
                    bits.values(),
                    bits.offset(),
                    slots,
                    &mut self.offsets,
                )?;
                Ok(cursor)
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// BYTE_ARRAY as views.

#[derive(Default)]
struct ViewDecoder {
    /// Dictionary views, pointing at buffer `dict_index` when it is set.
    dict: Option<(Vec<u128>, Buffer)>,
    /// Index of the dictionary buffer in `buffers`, once pushed.
    dict_index: Option<u32>,
    views: Vec<u128>,
    buffers: Vec<Buffer>,
    scratch: Vec<u128>,
    offsets: Vec<i64>,
    data: Vec<u8>,
    lengths: PageLengths,
}

/// Point every long view of `views` at buffer `index`.
fn retarget_views(views: &mut [u128], index: u32) {
    for v in views {
        if (*v as u32) > 12 {
            let mask = !((u32::MAX as u128) << 64);
            *v = (*v & mask) | ((index as u128) << 64);
        }
    }
}

/// Build views for values given as offsets into `data`, which is buffer `index`.
fn views_from_offsets(offsets: &[i64], data: &[u8], index: u32, out: &mut Vec<u128>) {
    out.reserve(offsets.len().saturating_sub(1));
    for w in offsets.windows(2) {
        let (s, e) = (w[0] as usize, w[1] as usize);
        out.push(make_view(&data[s..e], index, s as u32));
    }
}

fn make_view(v: &[u8], index: u32, offset: u32) -> u128 {
    let len = v.len();
    let mut raw = [0u8; 16];
    raw[..4].copy_from_slice(&(len as u32).to_le_bytes());
    if len <= 12 {
        raw[4..4 + len].copy_from_slice(v);
    } else {
        raw[4..8].copy_from_slice(&v[..4]);
        raw[8..12].copy_from_slice(&index.to_le_bytes());
        raw[12..16].copy_from_slice(&offset.to_le_bytes());
    }
    u128::from_le_bytes(raw)
}

impl ViewDecoder {
    /// Append the views of dense values `at.first..at.first + n`; returns the cursor after.
    fn decode_dense(
        &mut self,
        page: &DataPage,
        at: PartStart,
        n: usize,
        into_scratch: bool,
    ) -> Result<usize> {
        let out = if into_scratch {
            &mut self.scratch
        } else {
            &mut self.views
        };
        let before = out.len();
        let input = &page.values;
        if let Some(part) = self.lengths.get(page, at.first, n) {
            // A part of a DELTA_LENGTH_BYTE_ARRAY page: views into its bytes, which start
            // `cursor` bytes into the page's value bytes, registered as their own buffer.
            let part = part?;
            let total: usize = part.iter().map(|&len| len as usize).sum();
            let start = self.lengths.data_start + at.cursor;
            if start + total > input.len() || u32::try_from(total).is_err() {
                return Err(Error::format("DELTA_LENGTH_BYTE_ARRAY value past the page"));
            }
            let bytes = input.slice(start..start + total);
            let index = self.buffers.len() as u32;
            out.reserve(n);
            let mut off = 0;
            for &len in part {
                let len = len as usize;
                out.push(make_view(&bytes[off..off + len], index, off as u32));
                off += len;
            }
            self.buffers.push(Buffer::from(bytes));
            return Ok(at.cursor + total);
        }
        let mut cursor = at.cursor;
        match page.encoding {
            Encoding::PLAIN => {
                // A later part of a split page registers the rest of the page as its own
                // buffer (a cheap view of the same bytes): view offsets are relative to it.
                let rest = input.slice(at.cursor.min(input.len())..);
                check_count(n, 4, rest.len(), "BYTE_ARRAY page")?;
                let index = self.buffers.len() as u32;
                probe::hit("read.views_borrow_page");
                cursor += plain::decode_byte_array_views(&rest, n, index, out)?;
                self.buffers.push(Buffer::from(rest));
            }
            e if is_dictionary(e) => {
                let (dviews, dbuf) = self.dict.as_mut().ok_or_else(missing_dictionary)?;
                if self.dict_index.is_none() {
                    // First use since the last finish: register the dictionary buffer once
                    // and point its views at it.
                    let i = self.buffers.len() as u32;
                    self.buffers.push(dbuf.clone());
                    retarget_views(dviews, i);
                    self.dict_index = Some(i);
                }
                probe::hit("read.views_dictionary_gather");
                let mut dec = rle::dictionary_index_decoder(input)?;
                expect_count(dec.skip(at.first)?, at.first)?;
                rle::gather_dictionary(&mut dec, dviews, n, out)?;
            }
            _ if at.first > 0 => {
                return Err(Error::format("page split in an unsplittable encoding"))
            }
            Encoding::DELTA_LENGTH_BYTE_ARRAY | Encoding::DELTA_BYTE_ARRAY => {
                self.offsets.clear();
                self.offsets.push(0);
                self.data.clear();
                if page.encoding == Encoding::DELTA_BYTE_ARRAY {
                    delta::decode_byte_array(input, n, &mut self.offsets, &mut self.data)?;
                } else {
                    delta::decode_length_byte_array(input, n, &mut self.offsets, &mut self.data)?;
                }
                let index = self.buffers.len() as u32;
                views_from_offsets(&self.offsets, &self.data, index, out);
                self.buffers
                    .push(Buffer::from_vec(std::mem::take(&mut self.data)));
            }
            e => return Err(unsupported_encoding(e, "BYTE_ARRAY")),
        }
        expect_count(out.len() - before, n)?;
        Ok(cursor)
    }
}

impl ValuesDecoder for ViewDecoder {
    fn output_bytes(&self, _: &DataPage, slots: usize, _: usize) -> u64 {
        (slots as u64).saturating_mul(16)
    }

    fn try_reserve(&mut self, slots: usize, _: usize) -> std::result::Result<(), TryReserveError> {
        self.views.try_reserve(slots)
    }

    fn reserve(&mut self, slots: usize) {
        memory::reserve_huge(&mut self.views, slots);
    }

    fn set_dictionary(&mut self, values: Bytes, num_values: usize) -> Result<()> {
        check_count(num_values, 4, values.len(), "dictionary page")?;
        let mut views = Vec::new();
        plain::decode_byte_array_views(&values, num_values, 0, &mut views)?;
        self.dict = Some((views, Buffer::from(values)));
        self.dict_index = None;
        Ok(())
    }

    fn clear_dictionary(&mut self) {
        self.dict = None;
        self.dict_index = None;
    }

    fn can_split(&self, page: &DataPage) -> bool {
        splittable(page, self.dict.is_some())
    }

    fn can_skip(&self, page: &DataPage) -> bool {
        skippable_bytes(page, self.dict.is_some())
    }

    fn start_skipping(&mut self, page: &DataPage) -> Result<()> {
        self.lengths.load(page)
    }

    fn end_skipping(&mut self) {
        self.lengths.loaded = false;
    }

    fn skip(&self, page: &DataPage, at: PartStart, n: usize) -> Result<PartStart> {
        self.lengths
            .skip(page, at, n)
            .unwrap_or_else(|| skip_byte_arrays(page, at, n))
    }

    fn plain_values(&mut self, page: &DataPage, valid: usize) -> Result<Bytes> {
        byte_arrays_as_plain(page, valid)
    }

    fn decode_part(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        match validity {
            None => self.decode_dense(page, at, slots, false),
            Some(bits) => {
                self.scratch.clear();
                let cursor = self.decode_dense(page, at, count, true)?;
                levels::scatter_fixed(
                    &self.scratch,
                    bits.values(),
                    bits.offset(),
                    slots,
                    &mut self.views,
                )?;
                Ok(cursor)
            }
        }
    }

    fn finish(&mut self) -> Values {
        self.dict_index = None;
        Values::BinaryView {
            views: ScalarBuffer::from(std::mem::take(&mut self.views)),
            buffers: std::mem::take(&mut self.buffers),
        }
    }
}
