//! The typed half of a column decoder (one implementation per physical type and layout),
//! and what the implementations share: which pages split or skip, dictionary indices in
//! bounded chunks, count checks.

use std::collections::TryReserveError;

use arrow_buffer::BooleanBuffer;
use bytes::Bytes;
use parq_codecs::encoding::rle;
use parq_codecs::probe;

use crate::column::Values;
use crate::metadata::Encoding;
use crate::read::page::DataPage;
use crate::{Error, Result};

/// The typed half of a [`ChunkDecoder`](super::ChunkDecoder).
pub(super) trait ValuesDecoder: Send {
    /// True when pages may be lent out whole (see [`FixedDecoder`](super::fixed::FixedDecoder)).
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
    /// From now on, fail pages whose byte arrays are not each UTF-8 (see
    /// [`ChunkDecoder::with_utf8_check`](super::ChunkDecoder::with_utf8_check)); layouts
    /// that do not implement the check leave it to the caller.
    fn check_utf8(&mut self) {}
    /// After a decode that failed the UTF-8 check: the index among the page's dense values
    /// (its non-null ones, from 0) of the first value that is not UTF-8, taken (the next
    /// call gives `None`). Found on the error path only, for the error to name the row.
    fn take_invalid_utf8(&mut self) -> Option<usize> {
        None
    }
    /// From now on, hand out byte arrays with i32 offsets
    /// ([`Values::SmallBinary`](crate::column::Values::SmallBinary)) when a run's bytes fit
    /// (see [`ChunkDecoder::with_small_offsets`](super::ChunkDecoder::with_small_offsets));
    /// other layouts ignore it.
    fn small_offsets(&mut self) {}
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

/// Where the last part of a dictionary-encoded page ended in its indices, while the page is
/// decoded in parts (from [`ValuesDecoder::start_skipping`] to `end_skipping`): the next
/// part resumes there, because skipping from the page start for every part would make a
/// page read in many parts quadratic in its runs. Probe `read.dictionary_indices_resumed`.
#[derive(Debug, Default)]
pub(super) struct IndexCursor {
    active: bool,
    /// The index the decoder stood at, and where.
    at: Option<(usize, rle::RlePosition)>,
}

impl IndexCursor {
    /// A page's parts begin.
    pub(super) fn start(&mut self) {
        self.active = true;
        self.at = None;
    }

    /// They end.
    pub(super) fn end(&mut self) {
        self.active = false;
        self.at = None;
    }

    /// A decoder of the indices of `input` (a dictionary-encoded page's values) standing at
    /// index `first`.
    pub(super) fn decoder<'p>(&self, input: &'p [u8], first: usize) -> Result<rle::RleDecoder<'p>> {
        let mut dec = rle::dictionary_index_decoder(input)?;
        match self.at.filter(|(at, _)| self.active && *at <= first) {
            Some((at, position)) => {
                probe::hit("read.dictionary_indices_resumed");
                dec.resume(position)?;
                expect_count(dec.skip(first - at)?, first - at)?;
            }
            None => expect_count(dec.skip(first)?, first)?,
        }
        Ok(dec)
    }

    /// `dec` now stands at index `at`.
    pub(super) fn keep(&mut self, at: usize, dec: &rle::RleDecoder<'_>) {
        if self.active {
            self.at = Some((at, dec.checkpoint()));
        }
    }
}

/// PLAIN pages and dictionary pages (once the dictionary is known) resume mid-page cheaply: a
/// byte cursor, or indices skipped.
pub(super) fn splittable(page: &DataPage, has_dictionary: bool) -> bool {
    page.encoding == Encoding::PLAIN || (is_dictionary(page.encoding) && has_dictionary)
}

/// Fixed-width values also skip in BYTE_STREAM_SPLIT pages: value `i` is byte `i` of each
/// stream.
pub(super) fn skippable_fixed(page: &DataPage, has_dictionary: bool) -> bool {
    splittable(page, has_dictionary) || page.encoding == Encoding::BYTE_STREAM_SPLIT
}

/// Where a part of a page starts: its first dense value and an encoding-specific cursor (the
/// byte offset of that value for PLAIN byte arrays; 0 at the page start).
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PartStart {
    pub(super) first: usize,
    pub(super) cursor: usize,
}

/// True for the encodings whose values are keys into the chunk's dictionary.
pub(crate) fn is_dictionary(e: Encoding) -> bool {
    e == Encoding::PLAIN_DICTIONARY || e == Encoding::RLE_DICTIONARY
}

pub(super) fn missing_dictionary() -> Error {
    Error::format("dictionary-encoded page without a dictionary page")
}

pub(super) fn unsupported_encoding(e: Encoding, ty: &str) -> Error {
    Error::Unsupported(format!("encoding {e:?} for {ty} columns"))
}

/// Indices a dictionary page is decoded in at most, so that the index buffer is bounded by
/// this rather than by a count taken from the page header.
const INDEX_CHUNK: usize = 1 << 16;

/// Hand indices `first..first + n` of a dictionary-encoded page to `gather`, in chunks of at
/// most [`INDEX_CHUNK`] (decoded into `indices`).
pub(super) fn with_index_chunks(
    input: &[u8],
    first: usize,
    n: usize,
    (indices, cursor): (&mut Vec<u32>, &mut IndexCursor),
    mut gather: impl FnMut(&[u32]) -> Result<()>,
) -> Result<()> {
    let mut dec = cursor.decoder(input, first)?;
    let mut left = n;
    while left > 0 {
        let k = left.min(INDEX_CHUNK);
        indices.clear();
        indices.resize(k, 0);
        expect_count(dec.get_batch(&mut indices[..])?, k)?;
        gather(indices)?;
        left -= k;
    }
    cursor.keep(first + n, &dec);
    Ok(())
}

/// Check that `n` items of at least `min_size` bytes fit in `bytes` before allocating for them.
pub(super) fn check_count(n: usize, min_size: usize, bytes: usize, what: &str) -> Result<()> {
    if n.checked_mul(min_size).is_none_or(|need| need > bytes) {
        return Err(Error::format(format!(
            "{what} claims {n} values but holds only {bytes} bytes"
        )));
    }
    Ok(())
}

pub(super) fn expect_count(got: usize, want: usize) -> Result<()> {
    if got != want {
        return Err(Error::format(format!(
            "page decoded {got} values where its levels need {want}"
        )));
    }
    Ok(())
}
