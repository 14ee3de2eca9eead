//! INT96 and FIXED_LEN_BYTE_ARRAY: `width` bytes per value.

use std::collections::TryReserveError;

use arrow_buffer::{BooleanBuffer, Buffer};
use bytes::Bytes;
use parq_codecs::encoding::{byte_stream_split, delta, plain};
use parq_codecs::kernels::memory;
use parq_codecs::levels;

use super::values::{
    expect_count, is_dictionary, missing_dictionary, skippable_fixed, unsupported_encoding,
    with_index_chunks, IndexCursor, PartStart, ValuesDecoder,
};
use crate::column::Values;
use crate::metadata::Encoding;
use crate::read::page::DataPage;
use crate::{Error, Result};

pub(super) struct FixedBytesDecoder {
    width: usize,
    int96: bool,
    dict: Option<Vec<u8>>,
    out: Vec<u8>,
    scratch: Vec<u8>,
    indices: Vec<u32>,
    offsets: Vec<i64>,
}

impl FixedBytesDecoder {
    pub(super) fn new(width: usize, int96: bool) -> Self {
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
            let whole = &mut IndexCursor::default();
            with_index_chunks(input, first, n, (indices, whole), |chunk| {
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
        memory::reserve_huge_hint(&mut self.out, slots.saturating_mul(self.width));
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
