//! BYTE_ARRAY as Arrow (large) binary: i64 offsets plus one values buffer.

use std::collections::TryReserveError;
use std::panic::RefUnwindSafe;

use arrow_buffer::{ArrowNativeType, BooleanBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq_codecs::encoding::plain;
use parq_codecs::kernels::byte_arrays::{self, Offset};
use parq_codecs::kernels::gather::ByteArrayDictionary;
use parq_codecs::kernels::memory::{self, Recycler};
use parq_codecs::{levels, probe};

use super::byte_arrays::{
    byte_arrays_as_plain, decode_binary_dense, first_invalid_utf8, skip_byte_arrays,
    skippable_bytes, PageLengths,
};
use super::values::{
    check_count, is_dictionary, splittable, IndexCursor, PartStart, ValuesDecoder,
};
use crate::column::Values;
use crate::metadata::Encoding;
use crate::read::page::DataPage;
use crate::{Error, Result};

pub(super) struct BinaryDecoder {
    dict: Option<ByteArrayDictionary>,
    /// The run's offsets, unless it is decoded with i32 ones (`run_small`: then in `small`).
    offsets: Vec<i64>,
    /// The run's offsets when it is decoded with i32 ones.
    small: Vec<i32>,
    data: Vec<u8>,
    dense_offsets: Vec<i64>,
    indices: Vec<u32>,
    /// Where the last part of a dictionary-encoded page ended in its indices.
    cursor: IndexCursor,
    lengths: PageLengths,
    /// Where the handed-out runs' buffers come back to (see [`Recycler`]).
    recycled_offsets: Recycler<i64>,
    recycled_data: Recycler<u8>,
    recycled_small: Recycler<i32>,
    /// Fail values that are not UTF-8 ([`ValuesDecoder::check_utf8`]).
    check_utf8: bool,
    /// Hand out i32 offsets where a run's bytes fit ([`ValuesDecoder::small_offsets`]).
    small_offsets: bool,
    /// The current run is decoded with i32 offsets, into `small`: each run starts so when
    /// `small_offsets` is set, and turns to i64 ones when its bytes pass `small_limit`.
    run_small: bool,
    /// The most value bytes a run with i32 offsets holds: `i32::MAX` (lower in tests).
    small_limit: usize,
    /// Every entry of the current dictionary is UTF-8, so gathers from it need no check.
    dictionary_utf8: bool,
    /// The page's dense index of the value that failed the UTF-8 check, until taken.
    invalid_utf8: Option<usize>,
}

impl Default for BinaryDecoder {
    fn default() -> Self {
        BinaryDecoder {
            dict: None,
            offsets: vec![0],
            small: Vec::new(),
            data: Vec::new(),
            dense_offsets: Vec::new(),
            indices: Vec::new(),
            cursor: IndexCursor::default(),
            lengths: PageLengths::default(),
            recycled_offsets: Recycler::default(),
            recycled_data: Recycler::default(),
            recycled_small: Recycler::default(),
            check_utf8: false,
            small_offsets: false,
            run_small: false,
            small_limit: i32::MAX as usize,
            dictionary_utf8: false,
            invalid_utf8: None,
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

impl ValuesDecoder for BinaryDecoder {
    fn output_bytes(&self, page: &DataPage, slots: usize, valid: usize) -> u64 {
        (slots as u64)
            .saturating_mul(8)
            .saturating_add(self.projected_bytes(page, valid, 1) as u64)
    }

    fn try_reserve(&mut self, slots: usize, _: usize) -> std::result::Result<(), TryReserveError> {
        if self.run_small {
            return self.small.try_reserve(slots);
        }
        self.offsets.try_reserve(slots)
    }

    fn reserve(&mut self, slots: usize) {
        if self.run_small {
            memory::reserve_huge_hint(&mut self.small, slots);
            return;
        }
        if self.offsets.len() == 1 && self.offsets.capacity() == 1 {
            // A buffer handed out before and dropped since (a piece of a parallel read,
            // copied into the joined output): its pages are already faulted in.
            let mut back = self.recycled_offsets.take();
            if back.capacity() > 1 {
                back.push(0);
                self.offsets = back;
            }
        }
        memory::reserve_huge_hint(&mut self.offsets, slots);
    }

    fn reserve_bytes(&mut self, bytes: usize) {
        if self.data.capacity() == 0 {
            self.data = self.recycled_data.take();
        }
        memory::reserve_huge_hint(&mut self.data, bytes);
    }

    fn reserve_run(&mut self, page: &DataPage, n: usize, valid: usize, pages: usize) {
        if self.run_small {
            memory::reserve_hint(&mut self.small, n.saturating_mul(pages));
        } else {
            memory::reserve_hint(&mut self.offsets, n.saturating_mul(pages));
        }
        let mut bytes = self.projected_bytes(page, valid, pages);
        if page.encoding == Encoding::PLAIN && n < page.num_values {
            // Room for part of a page each (a nested batch): its share of the page's bytes,
            // not all of them.
            let share = bytes as u128 * n as u128 / page.num_values as u128;
            bytes = share as usize;
        }
        // A run of long values is several MiB of fresh memory: with huge pages it is
        // faulted in 2 MiB at a time, not 4 KiB (half the time of a dictionary gather of
        // 150-byte values went to page faults).
        probe::hit_n("read.run_reserved_value_bytes", bytes as u64);
        memory::reserve_huge_hint(&mut self.data, bytes + 64);
    }

    fn set_dictionary(&mut self, values: Bytes, num_values: usize) -> Result<()> {
        check_count(num_values, 4, values.len(), "dictionary page")?;
        let mut offsets = vec![0];
        let mut data = Vec::new();
        plain::decode_byte_array_offsets(&values, num_values, &mut offsets, &mut data)?;
        // Checked once here; an invalid entry is only an error if a page picks it, so such a
        // dictionary leaves the check to each gather.
        if self.check_utf8 {
            probe::hit("read.utf8_checked_dictionary");
            self.dictionary_utf8 = byte_arrays::is_utf8(&data, &offsets);
        }
        self.dict = Some(ByteArrayDictionary::new(offsets, data)?);
        Ok(())
    }

    fn check_utf8(&mut self) {
        self.check_utf8 = true;
    }

    fn take_invalid_utf8(&mut self) -> Option<usize> {
        self.invalid_utf8.take()
    }

    fn small_offsets(&mut self) {
        self.small_offsets = true;
        if self.offsets.len() == 1 && !self.run_small {
            // Nothing decoded yet: this run already.
            self.run_small = true;
            self.small = vec![0];
        }
    }

    fn clear_dictionary(&mut self) {
        self.dict = None;
        self.dictionary_utf8 = false;
    }

    fn can_split(&self, page: &DataPage) -> bool {
        splittable(page, self.dict.is_some())
    }

    fn can_skip(&self, page: &DataPage) -> bool {
        skippable_bytes(page, self.dict.is_some())
    }

    fn start_skipping(&mut self, page: &DataPage) -> Result<()> {
        self.cursor.start();
        self.lengths.load(page)
    }

    fn end_skipping(&mut self) {
        self.cursor.end();
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
        let next_data = self.recycled_data.take();
        let data = self
            .recycled_data
            .buffer(std::mem::replace(&mut self.data, next_data));
        if self.run_small {
            probe::hit("read.small_offsets");
            // Within `small_limit` bytes too (checked after each part).
            let offsets = hand_out(&mut self.small, &self.recycled_small);
            return Values::SmallBinary { offsets, data };
        }
        // A run that passed i32 (or one without `small_offsets`); the next starts small again.
        self.run_small = self.small_offsets;
        let offsets = hand_out(&mut self.offsets, &self.recycled_offsets);
        Values::Binary { offsets, data }
    }
}

/// A run's offsets handed out, `[0]` from `recycled` left in their place. They are built
/// monotonically from 0 by construction; checked once more here in a pass that vectorises
/// (arrow's own check in `OffsetBuffer::new` does not).
fn hand_out<O: Offset + ArrowNativeType + RefUnwindSafe>(
    offsets: &mut Vec<O>,
    recycled: &Recycler<O>,
) -> OffsetBuffer<O> {
    let mut next = recycled.take();
    next.push(O::default());
    let offsets = std::mem::replace(offsets, next);
    assert!(
        offsets.first() == Some(&O::default()) && byte_arrays::offsets_monotonic(&offsets),
        "byte array offsets must start at 0 and never decrease"
    );
    let len = offsets.len();
    let offsets = ScalarBuffer::new(recycled.buffer(offsets), 0, len);
    // SAFETY: just checked: non-empty, starts at 0, monotonically increasing.
    unsafe { OffsetBuffer::new_unchecked(offsets) }
}

impl BinaryDecoder {
    /// Append `slots` slots holding dense values `at.first..at.first + count` of the page:
    /// values dense, then offsets scattered when there are nulls. Returns the cursor after.
    ///
    /// A run with i32 offsets whose bytes this part takes past `small_limit` turns to i64
    /// offsets: the part is dropped, the offsets so far widened, and the part decoded again.
    fn decode_slots(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        let mut part = Part {
            dict: self.dict.as_ref(),
            lengths: &self.lengths,
            indices: &mut self.indices,
            cursor: &mut self.cursor,
            dense_offsets: &mut self.dense_offsets,
            data: &mut self.data,
            page,
            validity,
            slots,
            at,
            count,
            check_utf8: self.check_utf8 && !(self.dictionary_utf8 && is_dictionary(page.encoding)),
            invalid_utf8: &mut self.invalid_utf8,
        };
        if self.run_small {
            let (offsets, bytes) = (self.small.len(), part.data.len());
            if let Some(cursor) = part.decode(&mut self.small, self.small_limit)? {
                return Ok(cursor);
            }
            probe::hit("read.small_offsets_widened");
            self.small.truncate(offsets);
            part.data.truncate(bytes);
            self.offsets.clear();
            self.offsets.extend(self.small.iter().map(|&o| o as i64));
            // Ready for the next run, which starts with i32 offsets again.
            self.small.clear();
            self.small.push(0);
            self.run_small = false;
        }
        Ok(part
            .decode(&mut self.offsets, usize::MAX)?
            .expect("no limit on i64 offsets"))
    }
}

/// One part of a page to decode, and the decoder's buffers it decodes with (all but the
/// offsets, which are i64 or i32).
struct Part<'a> {
    dict: Option<&'a ByteArrayDictionary>,
    lengths: &'a PageLengths,
    indices: &'a mut Vec<u32>,
    /// Where the last part of a dictionary-encoded page ended.
    cursor: &'a mut IndexCursor,
    dense_offsets: &'a mut Vec<i64>,
    data: &'a mut Vec<u8>,
    page: &'a DataPage,
    validity: Option<&'a BooleanBuffer>,
    slots: usize,
    at: PartStart,
    count: usize,
    /// Check that the new values are UTF-8.
    check_utf8: bool,
    /// Where a failed check puts the page's dense index of the first invalid value.
    invalid_utf8: &'a mut Option<usize>,
}

impl Part<'_> {
    /// Append the part's slots to `offsets` and its bytes to `data`; returns the cursor
    /// after, or `None`, before any UTF-8 check, when `data` ends past `limit` bytes (the
    /// offsets may then have been truncated: the caller drops the part).
    fn decode<O: Offset>(&mut self, offsets: &mut Vec<O>, limit: usize) -> Result<Option<usize>> {
        let lengths = Some(self.lengths);
        // The dense offsets of this part's values start here (for a part with nulls, in
        // `dense_offsets` below), so that the UTF-8 check sees exactly the new values.
        let first_offset = offsets.len().saturating_sub(1);
        let cursor = match self.validity {
            None => decode_binary_dense(
                self.page,
                self.at,
                self.slots,
                self.dict,
                lengths,
                (self.indices, self.cursor),
                offsets,
                self.data,
            )?,
            Some(bits) => {
                // Value bytes are dense either way; only the offsets need scattering.
                self.dense_offsets.clear();
                self.dense_offsets.push(self.data.len() as i64);
                let cursor = decode_binary_dense(
                    self.page,
                    self.at,
                    self.count,
                    self.dict,
                    lengths,
                    (self.indices, self.cursor),
                    self.dense_offsets,
                    self.data,
                )?;
                if self.data.len() > limit {
                    return Ok(None);
                }
                probe::hit("read.scatter_offsets");
                levels::scatter_offsets(
                    self.dense_offsets,
                    bits.values(),
                    bits.offset(),
                    self.slots,
                    offsets,
                )?;
                cursor
            }
        };
        if self.data.len() > limit {
            return Ok(None);
        }
        if self.check_utf8 {
            probe::hit("read.utf8_checked_page");
            // One pass over the part's bytes; which value failed is looked for only then.
            let utf8 = match self.validity {
                None => byte_arrays::is_utf8(self.data, &offsets[first_offset..]),
                Some(_) => byte_arrays::is_utf8(self.data, self.dense_offsets),
            };
            if !utf8 {
                let k = match self.validity {
                    None => first_invalid_utf8(self.data, &offsets[first_offset..]),
                    Some(_) => first_invalid_utf8(self.data, self.dense_offsets),
                };
                *self.invalid_utf8 = Some(self.at.first + k);
                return Err(Error::invalid_utf8(None));
            }
        }
        Ok(Some(cursor))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::Column;
    use crate::read::page::Levels;
    use parq_codecs::encoding::rle;

    fn page(encoding: Encoding, num_values: usize, values: Vec<u8>) -> DataPage {
        DataPage {
            num_values,
            num_nulls: None,
            encoding,
            rep_levels: Levels::None,
            def_levels: Levels::None,
            values: Bytes::from(values),
        }
    }

    /// Decoders asked for i32 offsets hand them out for runs within their limit; a part that
    /// takes a run past it is decoded again with i64 offsets (the values the same), and the
    /// next run starts with i32 ones again. PLAIN and dictionary pages, with and without
    /// nulls, in whole pages and in parts.
    #[test]
    fn runs_past_the_limit_turn_to_i64_offsets() {
        let words: Vec<Vec<u8>> = (0..90)
            .map(|i| format!("w{i}{}", "é".repeat(i % 7)).into_bytes())
            .collect();
        let mut plain = Vec::new();
        plain::encode_byte_arrays(words.iter().map(Vec::as_slice), &mut plain);
        let indices: Vec<u32> = (0..90u32).map(|i| (i * 7) % 90).collect();
        let mut keyed = vec![7u8];
        rle::encode(&indices, 7, &mut keyed);
        // 90 values in 100 slots: every tenth slot null.
        let bits = BooleanBuffer::collect_bool(100, |i| i % 10 != 3);
        for dictionary in [false, true] {
            for nulls in [false, true] {
                let case = format!("dictionary {dictionary} nulls {nulls}");
                let (encoding, values) = if dictionary {
                    (Encoding::RLE_DICTIONARY, keyed.clone())
                } else {
                    (Encoding::PLAIN, plain.clone())
                };
                let (slots, validity) = if nulls {
                    (100, Some(&bits))
                } else {
                    (90, None)
                };
                let p = page(encoding, slots, values);
                let decoders = || {
                    let mut d = BinaryDecoder::default();
                    if dictionary {
                        d.set_dictionary(Bytes::from(plain.clone()), 90).unwrap();
                    }
                    d.check_utf8();
                    d
                };
                let (mut small, mut wide) = (decoders(), decoders());
                small.small_offsets();
                // One page of values fits, the second page of a run passes the limit.
                let page_bytes: usize = if dictionary {
                    indices.iter().map(|&i| words[i as usize].len()).sum()
                } else {
                    words.iter().map(Vec::len).sum()
                };
                small.small_limit = page_bytes * 3 / 2;
                let one_run = |d: &mut BinaryDecoder, pages: usize| {
                    for _ in 0..pages {
                        // In two parts, so that the part past the limit is not the first.
                        let first = PartStart::default();
                        let part = |v: Option<&BooleanBuffer>, at: usize, n: usize| {
                            v.map(|b| b.slice(at, n))
                        };
                        let head = part(validity, 0, 40);
                        let valid = head.as_ref().map_or(40, |b| b.count_set_bits());
                        let cursor = d.decode_part(&p, head.as_ref(), 40, first, valid).unwrap();
                        let tail = part(validity, 40, slots - 40);
                        let rest = tail.as_ref().map_or(slots - 40, |b| b.count_set_bits());
                        let at = PartStart {
                            first: valid,
                            cursor,
                        };
                        d.decode_part(&p, tail.as_ref(), slots - 40, at, rest)
                            .unwrap();
                    }
                    Column {
                        len: slots * pages,
                        validity: None,
                        values: d.finish(),
                    }
                };
                probe::reset();
                for (pages, small_layout) in [(1, true), (3, false), (1, true), (2, false)] {
                    let (s, w) = (one_run(&mut small, pages), one_run(&mut wide, pages));
                    assert!(matches!(w.values, Values::Binary { .. }), "{case}");
                    let is_small = matches!(s.values, Values::SmallBinary { .. });
                    assert_eq!(is_small, small_layout, "{case}: a run of {pages} pages");
                    assert!(s == w, "{case}: a run of {pages} pages");
                    if let Values::Binary { offsets, .. } = &s.values {
                        assert_eq!(offsets.len(), slots * pages + 1, "{case}");
                    }
                }
                if probe::ENABLED {
                    assert_eq!(probe::get("read.small_offsets_widened"), 2, "{case}");
                    assert_eq!(probe::get("read.small_offsets"), 2, "{case}");
                }
            }
        }
    }
}
