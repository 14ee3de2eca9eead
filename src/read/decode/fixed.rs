//! Fixed-width native values (INT32, INT64, FLOAT, DOUBLE) into a `ScalarBuffer`, lent
//! out without a copy where PLAIN pages allow.

use std::collections::TryReserveError;
use std::mem::size_of;

use arrow_buffer::{BooleanBuffer, Buffer, ScalarBuffer};
use bytes::Bytes;
use parq_codecs::encoding::{byte_stream_split, delta, plain, rle};
use parq_codecs::kernels::memory::{self, Recycler};
use parq_codecs::{levels, probe};

use super::values::{
    check_count, expect_count, is_dictionary, missing_dictionary, skippable_fixed, splittable,
    unsupported_encoding, IndexCursor, PartStart, ValuesDecoder,
};
use crate::column::Values;
use crate::metadata::Encoding;
use crate::read::page::DataPage;
use crate::{Error, Result};

/// A fixed-width native type decoded into a `ScalarBuffer`.
pub(super) trait Native:
    bytemuck::Pod + Default + Send + Sync + arrow_buffer::ArrowNativeType + std::panic::RefUnwindSafe
{
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

pub(super) struct FixedDecoder<T: Native> {
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
    /// Where the handed-out runs' buffers come back to (see [`Recycler`]).
    recycled: Recycler<T>,
    /// Where the last part of a dictionary-encoded page ended.
    indices: IndexCursor,
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
            recycled: Recycler::default(),
            indices: IndexCursor::default(),
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
    (bytes, indices): (&mut Vec<u8>, &mut IndexCursor),
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
            let mut dec = indices.decoder(input, first)?;
            rle::gather_dictionary(&mut dec, dict, n, out)?;
            indices.keep(first + n, &dec);
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

    fn start_skipping(&mut self, _: &DataPage) -> Result<()> {
        self.indices.start();
        Ok(())
    }

    fn end_skipping(&mut self) {
        self.indices.end();
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
        if self.out.capacity() == 0 {
            // A buffer handed out before and dropped since (a piece of a parallel read,
            // copied into the joined output): its pages are already faulted in.
            self.out = self.recycled.take();
        }
        memory::reserve_huge_hint(&mut self.out, slots);
    }

    fn reserve_run(&mut self, _: &DataPage, n: usize, _: usize, pages: usize) {
        memory::reserve_hint(&mut self.out, n.saturating_mul(pages));
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
        let whole = &mut IndexCursor::default();
        decode_native_dense(page, 0, valid, dict, (&mut self.bytes, whole), &mut values)?;
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
            None => decode_native_dense(
                page,
                first,
                slots,
                dict,
                (&mut self.bytes, &mut self.indices),
                &mut self.out,
            )?,
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
                decode_native_dense(
                    page,
                    first,
                    count,
                    dict,
                    (&mut self.bytes, &mut self.indices),
                    &mut self.scratch,
                )?;
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
        let next = self.recycled.take();
        let out = std::mem::replace(&mut self.out, next);
        let len = out.len();
        T::wrap(ScalarBuffer::new(self.recycled.buffer(out), 0, len))
    }
}
