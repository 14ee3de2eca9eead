//! What both BYTE_ARRAY layouts share: skipping values, the lengths of
//! DELTA_LENGTH_BYTE_ARRAY pages, dense decoding into offsets and data.

use bytes::Bytes;
use parq_codecs::encoding::{delta, plain};
use parq_codecs::kernels::byte_arrays::Offset;
use parq_codecs::kernels::gather::ByteArrayDictionary;
use parq_codecs::probe;

use super::values::{
    check_count, expect_count, is_dictionary, missing_dictionary, splittable, unsupported_encoding,
    with_index_chunks, IndexCursor, PartStart,
};
use crate::metadata::Encoding;
use crate::read::page::DataPage;
use crate::{Error, Result};

/// Byte arrays also skip in DELTA_LENGTH_BYTE_ARRAY pages, by their lengths.
pub(super) fn skippable_bytes(page: &DataPage, has_dictionary: bool) -> bool {
    splittable(page, has_dictionary) || page.encoding == Encoding::DELTA_LENGTH_BYTE_ARRAY
}

/// PLAIN BYTE_ARRAY values `first..` start at byte `cursor`: skip `n` of them by their
/// length prefixes; dictionary pages skip indices (counted in `first`).
pub(super) fn skip_byte_arrays(page: &DataPage, at: PartStart, n: usize) -> Result<PartStart> {
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
pub(super) struct PageLengths {
    pub(super) loaded: bool,
    pub(super) lengths: Vec<i32>,
    /// Where the value bytes start in the page.
    pub(super) data_start: usize,
}

impl PageLengths {
    pub(super) fn load(&mut self, page: &DataPage) -> Result<()> {
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
    pub(super) fn get(&self, page: &DataPage, first: usize, n: usize) -> Option<Result<&[i32]>> {
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
    pub(super) fn skip(
        &self,
        page: &DataPage,
        at: PartStart,
        n: usize,
    ) -> Option<Result<PartStart>> {
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

/// The index of the first of the values `data[offsets[i]..offsets[i + 1]]` that is not
/// UTF-8 on its own (the number of values when all are): the error path of a failed
/// [`is_utf8`](parq_codecs::kernels::byte_arrays::is_utf8), one value at a time.
pub(super) fn first_invalid_utf8<O: Offset>(data: &[u8], offsets: &[O]) -> usize {
    offsets
        .windows(2)
        .position(|w| {
            let (s, e): (i64, i64) = (w[0].into(), w[1].into());
            data.get(s as usize..e as usize)
                .is_none_or(|v| std::str::from_utf8(v).is_err())
        })
        .unwrap_or(offsets.len().saturating_sub(1))
}

/// Byte arrays in PLAIN: a page's values decoded to offsets and data, encoded again.
pub(super) fn byte_arrays_as_plain(page: &DataPage, valid: usize) -> Result<Bytes> {
    let (mut offsets, mut data) = (vec![0i64], Vec::new());
    decode_binary_dense::<i64>(
        page,
        PartStart::default(),
        valid,
        None,
        None,
        (&mut Vec::new(), &mut IndexCursor::default()),
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

/// Decode `n` byte arrays, appending ends to `offsets` (whose last element is the current
/// end of `data`) and bytes to `data`. With i32 offsets each end is stored truncated: that
/// `data` stays within `i32::MAX` bytes is the caller's to check (see [`Offset`]).
#[allow(clippy::too_many_arguments)]
pub(super) fn decode_binary_dense<O: Offset>(
    page: &DataPage,
    at: PartStart,
    n: usize,
    dict: Option<&ByteArrayDictionary>,
    lengths: Option<&PageLengths>,
    indices: (&mut Vec<u32>, &mut IndexCursor),
    offsets: &mut Vec<O>,
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
            let mut end: i64 = match offsets.last() {
                Some(&end) => end.into(),
                None => {
                    offsets.push(O::default());
                    0
                }
            };
            offsets.extend(part.iter().map(|&len| {
                end += len as i64;
                O::truncate(end)
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
