//! BYTE_ARRAY as Arrow binary views into the page and dictionary buffers.

use std::collections::TryReserveError;

use arrow_buffer::{BooleanBuffer, Buffer, ScalarBuffer};
use bytes::Bytes;
use parq_codecs::encoding::{delta, plain, rle};
use parq_codecs::kernels::memory;
use parq_codecs::{levels, probe};

use super::byte_arrays::{byte_arrays_as_plain, skip_byte_arrays, skippable_bytes, PageLengths};
use super::values::{
    check_count, expect_count, is_dictionary, missing_dictionary, splittable, unsupported_encoding,
    IndexCursor, PartStart, ValuesDecoder,
};
use crate::column::Values;
use crate::metadata::Encoding;
use crate::read::page::DataPage;
use crate::{Error, Result};

#[derive(Default)]
pub(super) struct ViewDecoder {
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
    indices: IndexCursor,
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
                let mut dec = self.indices.decoder(input, at.first)?;
                rle::gather_dictionary(&mut dec, dviews, n, out)?;
                self.indices.keep(at.first + n, &dec);
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
        memory::reserve_huge_hint(&mut self.views, slots);
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
        self.indices.start();
        self.lengths.load(page)
    }

    fn end_skipping(&mut self) {
        self.indices.end();
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
