//! BOOLEAN values into a bitmap.

use std::collections::TryReserveError;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};
use bytes::Bytes;
use parq_codecs::encoding::{plain, rle};
use parq_codecs::levels;

use super::values::{check_count, unsupported_encoding, PartStart, ValuesDecoder};
use crate::column::Values;
use crate::metadata::Encoding;
use crate::read::page::DataPage;
use crate::{Error, Result};

#[derive(Default)]
pub(super) struct BooleanDecoder {
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
