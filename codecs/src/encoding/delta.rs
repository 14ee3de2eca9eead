//! The delta encodings: DELTA_BINARY_PACKED (5), DELTA_LENGTH_BYTE_ARRAY (6) and
//! DELTA_BYTE_ARRAY (7).
//!
//! Spec: <https://github.com/apache/parquet-format/blob/master/Encodings.md#delta-encoding-delta_binary_packed--5>
//!
//! ```text
//! DELTA_BINARY_PACKED     <header> <block>*
//!   header                <block size in values: ULEB128> <miniblocks per block: ULEB128>
//!                         <total value count: ULEB128> <first value: zigzag ULEB128>
//!   block                 <min delta: zigzag ULEB128> <bit width of each miniblock: 1 byte each>
//!                         <miniblock>*   (each `values per miniblock * width / 8` bytes, LSB first)
//! DELTA_LENGTH_BYTE_ARRAY <lengths: DELTA_BINARY_PACKED> <all value bytes, back to back>
//! DELTA_BYTE_ARRAY        <prefix lengths: DELTA_BINARY_PACKED> <suffixes: DELTA_LENGTH_BYTE_ARRAY>
//! ```
//!
//! The block size is a multiple of 128 and the miniblock size a multiple of 32; anything else
//! is rejected. All arithmetic wraps (two's complement), so deltas between `MIN` and `MAX`
//! round-trip. In the last block, miniblocks past the last value may carry arbitrary bit widths
//! and have no body; they are skipped. The last miniblock that holds values should be padded to
//! a full miniblock; when the input ends early but still holds every remaining value, it is
//! accepted (and everything up to the end of the input counts as consumed).
//!
//! Every decoder takes `max_values`, the most values the caller is prepared to receive (e.g.
//! the page's value count): a header declaring more is an [`Error::TooLarge`], so no
//! allocation is ever sized by an unchecked header field.
//!
//! Probes: `delta.miniblock_constant` (a miniblock of bit width 0: values produced by adding the
//! min delta, nothing unpacked) and `delta.miniblock_unpacked` (a miniblock bit-unpacked, then
//! prefix-summed), each counted once per miniblock.
#![forbid(unsafe_code)]

use crate::encoding::bitpack::{self, BitPackable};
use crate::kernels::byte_arrays::Offset;
use crate::probe;
use crate::{Error, Result};

/// The block size the encoders write, in values (spec: a multiple of 128).
pub const BLOCK_SIZE: usize = 128;
/// The miniblocks per block the encoders write (32 values each; spec: a multiple of 32).
pub const MINIBLOCKS_PER_BLOCK: usize = 4;
const MINIBLOCK_SIZE: usize = BLOCK_SIZE / MINIBLOCKS_PER_BLOCK;

/// An integer type DELTA_BINARY_PACKED applies to (INT32, INT64). Arithmetic wraps.
trait DeltaInt: Copy + Ord + Default {
    /// The unsigned type of the same width that miniblocks unpack into.
    type Unsigned: BitPackable;
    /// Truncating conversion from a decoded zigzag varint.
    fn from_i64(v: i64) -> Self;
    /// Sign-extending conversion, for zigzag encoding.
    fn to_i64(self) -> i64;
    /// `self - other`, wrapping.
    fn delta(self, other: Self) -> Self;
    /// `self + d`, wrapping.
    fn add(self, d: Self) -> Self;
    /// `self + u`, wrapping, `u` read as two's complement.
    fn add_unsigned(self, u: Self::Unsigned) -> Self;
    /// Reinterpret as unsigned.
    fn to_unsigned(self) -> Self::Unsigned;
}

macro_rules! delta_int {
    ($t:ty, $u:ty) => {
        impl DeltaInt for $t {
            type Unsigned = $u;
            #[inline(always)]
            fn from_i64(v: i64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_i64(self) -> i64 {
                self as i64
            }
            #[inline(always)]
            fn delta(self, other: Self) -> Self {
                self.wrapping_sub(other)
            }
            #[inline(always)]
            fn add(self, d: Self) -> Self {
                self.wrapping_add(d)
            }
            #[inline(always)]
            fn add_unsigned(self, u: $u) -> Self {
                self.wrapping_add(u as $t)
            }
            #[inline(always)]
            fn to_unsigned(self) -> $u {
                self as $u
            }
        }
    };
}
delta_int!(i32, u32);
delta_int!(i64, u64);

/// A cursor over the input that reports errors with their offset.
struct Reader<'a> {
    input: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn remaining(&self) -> usize {
        self.input.len() - self.pos
    }

    fn uleb(&mut self) -> Result<u64> {
        let start = self.pos;
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.input.get(self.pos) else {
                return Err(Error::Truncated {
                    offset: start,
                    needed: self.pos - start + 1,
                    available: self.input.len() - start,
                });
            };
            self.pos += 1;
            let bits = (byte & 0x7f) as u64;
            if shift == 63 && bits > 1 {
                break;
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(Error::InvalidData {
            offset: start,
            what: "varint longer than 64 bits",
        })
    }

    fn zigzag(&mut self) -> Result<i64> {
        let v = self.uleb()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    fn bytes(&mut self, len: usize) -> Result<&'a [u8]> {
        let rest = &self.input[self.pos..];
        let bytes = rest.get(..len).ok_or(Error::Truncated {
            offset: self.pos,
            needed: len,
            available: rest.len(),
        })?;
        self.pos += len;
        Ok(bytes)
    }
}

fn put_uleb(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_zigzag(v: i64, out: &mut Vec<u8>) {
    put_uleb(((v << 1) ^ (v >> 63)) as u64, out);
}

/// Validated DELTA_BINARY_PACKED header.
struct Header {
    miniblocks: usize,
    miniblock_size: usize,
    total: usize,
    first: i64,
}

fn read_header(r: &mut Reader<'_>, max_values: usize) -> Result<Header> {
    let start = r.pos;
    let block_size = r.uleb()?;
    let miniblocks = r.uleb()?;
    let total = r.uleb()?;
    let first = r.zigzag()?;
    if block_size == 0 || block_size % 128 != 0 {
        return Err(Error::InvalidData {
            offset: start,
            what: "delta block size is not a positive multiple of 128",
        });
    }
    if miniblocks == 0 || block_size % miniblocks != 0 || (block_size / miniblocks) % 32 != 0 {
        return Err(Error::InvalidData {
            offset: start,
            what: "delta miniblock size is not a multiple of 32",
        });
    }
    if total > max_values as u64 {
        return Err(Error::TooLarge {
            what: "delta value count",
            declared: total,
            limit: max_values as u64,
        });
    }
    let too_large = |declared| Error::TooLarge {
        what: "delta block size",
        declared,
        limit: usize::MAX as u64,
    };
    Ok(Header {
        miniblocks: usize::try_from(miniblocks).map_err(|_| too_large(miniblocks))?,
        miniblock_size: usize::try_from(block_size / miniblocks)
            .map_err(|_| too_large(block_size))?,
        total: total as usize,
        first,
    })
}

fn decode_binary_packed<T: DeltaInt>(
    input: &[u8],
    max_values: usize,
    out: &mut Vec<T>,
) -> Result<usize> {
    let mut r = Reader { input, pos: 0 };
    let header = read_header(&mut r, max_values)?;
    if header.total == 0 {
        return Ok(r.pos);
    }
    // `total <= max_values`: the caller's limit caps this allocation.
    out.reserve(header.total);
    let mut last = T::from_i64(header.first);
    out.push(last);
    let mut remaining = header.total - 1;
    let max_width = <T::Unsigned as BitPackable>::BITS;
    let mut scratch: Vec<T::Unsigned> = Vec::new();
    while remaining > 0 {
        let min_delta = T::from_i64(r.zigzag()?);
        let widths = r.bytes(header.miniblocks)?;
        for &width in widths {
            if remaining == 0 {
                // Padding miniblocks: any width, no body.
                break;
            }
            let width = width as u32;
            if width > max_width {
                return Err(Error::InvalidBitWidth {
                    width,
                    max: max_width,
                });
            }
            let n = remaining.min(header.miniblock_size);
            // The miniblock size is a multiple of 32, so a full body is a whole number of bytes.
            let full = (header.miniblock_size as u128 * width as u128 / 8) as u64;
            let body_at = r.pos;
            let body = if full <= r.remaining() as u64 {
                r.bytes(full as usize)?
            } else {
                // Tolerate an unpadded last miniblock holding every remaining value.
                let needed = (n as u128 * width as u128).div_ceil(8) as u64;
                if n == remaining && needed <= r.remaining() as u64 {
                    r.bytes(r.remaining())?
                } else {
                    return Err(Error::Truncated {
                        offset: body_at,
                        needed: usize::try_from(full).unwrap_or(usize::MAX),
                        available: r.remaining(),
                    });
                }
            };
            if width == 0 {
                probe::hit("delta.miniblock_constant");
                out.extend((0..n).map(|_| {
                    last = last.add(min_delta);
                    last
                }));
            } else {
                probe::hit("delta.miniblock_unpacked");
                // `n` values of `width >= 1` bits are present in `body`, so `body` bounds it.
                scratch.resize(n, Default::default());
                bitpack::unpack(body, width, &mut scratch)?;
                out.extend(scratch.iter().map(|&u| {
                    last = last.add(min_delta).add_unsigned(u);
                    last
                }));
            }
            remaining -= n;
        }
    }
    Ok(r.pos)
}

/// Decode DELTA_BINARY_PACKED INT32 values, appending them to `out`. Returns the bytes of
/// `input` consumed (the end of the last miniblock holding values).
///
/// Errors with [`Error::TooLarge`] if the header declares more than `max_values` values.
pub fn decode_binary_packed_i32(
    input: &[u8],
    max_values: usize,
    out: &mut Vec<i32>,
) -> Result<usize> {
    decode_binary_packed(input, max_values, out)
}

/// Decode DELTA_BINARY_PACKED INT64 values, appending them to `out`. Returns the bytes of
/// `input` consumed (the end of the last miniblock holding values).
///
/// Errors with [`Error::TooLarge`] if the header declares more than `max_values` values.
pub fn decode_binary_packed_i64(
    input: &[u8],
    max_values: usize,
    out: &mut Vec<i64>,
) -> Result<usize> {
    decode_binary_packed(input, max_values, out)
}

fn encode_binary_packed<T: DeltaInt>(values: &[T], out: &mut Vec<u8>) {
    put_uleb(BLOCK_SIZE as u64, out);
    put_uleb(MINIBLOCKS_PER_BLOCK as u64, out);
    put_uleb(values.len() as u64, out);
    let Some((&first, rest)) = values.split_first() else {
        put_zigzag(0, out);
        return;
    };
    put_zigzag(first.to_i64(), out);
    let mut prev = first;
    let mut deltas = [T::default(); BLOCK_SIZE];
    let mut relative = [<T::Unsigned>::default(); BLOCK_SIZE];
    for block in rest.chunks(BLOCK_SIZE) {
        for (d, &v) in deltas.iter_mut().zip(block) {
            *d = v.delta(prev);
            prev = v;
        }
        let deltas = &deltas[..block.len()];
        let min = deltas.iter().copied().min().unwrap_or_default();
        for (r, &d) in relative.iter_mut().zip(deltas) {
            *r = d.delta(min).to_unsigned();
        }
        // Padding values encode as 0 so they never widen a miniblock.
        relative[block.len()..].fill(Default::default());
        put_zigzag(min.to_i64(), out);
        let used = block.len().div_ceil(MINIBLOCK_SIZE);
        let mut widths = [0u32; MINIBLOCKS_PER_BLOCK];
        for (w, mb) in widths
            .iter_mut()
            .zip(relative.chunks(MINIBLOCK_SIZE))
            .take(used)
        {
            let max = mb.iter().map(|u| u.to_u64()).max().unwrap_or(0);
            *w = bitpack::bit_width(max);
        }
        out.extend(widths.iter().map(|&w| w as u8));
        for (&w, mb) in widths
            .iter()
            .zip(relative.chunks(MINIBLOCK_SIZE))
            .take(used)
        {
            // Width <= T::BITS by construction, so packing cannot fail.
            let packed = bitpack::pack(mb, w, out);
            debug_assert!(packed.is_ok());
        }
    }
}

/// Append `values` as DELTA_BINARY_PACKED INT32 (blocks of 128, 4 miniblocks of 32).
pub fn encode_binary_packed_i32(values: &[i32], out: &mut Vec<u8>) {
    encode_binary_packed(values, out);
}

/// Append `values` as DELTA_BINARY_PACKED INT64 (blocks of 128, 4 miniblocks of 32).
pub fn encode_binary_packed_i64(values: &[i64], out: &mut Vec<u8>) {
    encode_binary_packed(values, out);
}

/// The running end offset to continue from (pushing the leading `0` into an empty `offsets`).
fn offsets_base<O: Offset>(offsets: &mut Vec<O>) -> i64 {
    match offsets.last() {
        Some(&end) => end.into(),
        None => {
            offsets.push(O::default());
            0
        }
    }
}

/// Decoded lengths, validated non-negative, with their sum.
fn checked_lengths(lengths: &[i32], at: usize) -> Result<usize> {
    lengths.iter().try_fold(0usize, |sum, &len| {
        let len = usize::try_from(len).map_err(|_| Error::InvalidData {
            offset: at,
            what: "negative byte array length",
        })?;
        sum.checked_add(len).ok_or(Error::TooLarge {
            what: "byte array lengths",
            declared: u64::MAX,
            limit: usize::MAX as u64,
        })
    })
}

/// Decode DELTA_LENGTH_BYTE_ARRAY values in Arrow's offsets layout: the value bytes are
/// appended to `data` in one copy and one end offset per value to `offsets`. Returns the bytes
/// of `input` consumed.
///
/// As in [`crate::encoding::plain::decode_byte_array_offsets`], the last element of `offsets`
/// is the running end to continue from (a leading `0` is pushed into an empty `offsets`).
/// On error nothing is appended to `data`. Offsets are i64 or i32, each stored truncated
/// ([`Offset`]: with i32 the caller checks that the bytes stay within `i32::MAX`).
pub fn decode_length_byte_array<O: Offset>(
    input: &[u8],
    max_values: usize,
    offsets: &mut Vec<O>,
    data: &mut Vec<u8>,
) -> Result<usize> {
    let mut lengths = Vec::new();
    let pos = decode_binary_packed_i32(input, max_values, &mut lengths)?;
    let total = checked_lengths(&lengths, 0)?;
    let mut r = Reader { input, pos };
    let bytes = r.bytes(total)?;
    let mut end = offsets_base(offsets);
    offsets.extend(lengths.iter().map(|&len| {
        end += len as i64;
        O::truncate(end)
    }));
    data.extend_from_slice(bytes);
    Ok(r.pos)
}

/// Append values as DELTA_LENGTH_BYTE_ARRAY: their lengths (DELTA_BINARY_PACKED), then their
/// bytes. `values` is walked twice, hence `Clone`.
///
/// # Panics
///
/// If a value is longer than `i32::MAX` bytes, which Parquet cannot represent.
pub fn encode_length_byte_array<'a>(
    values: impl Iterator<Item = &'a [u8]> + Clone,
    out: &mut Vec<u8>,
) {
    let lengths: Vec<i32> = values.clone().map(|v| length_i32(v.len())).collect();
    encode_binary_packed_i32(&lengths, out);
    for v in values {
        out.extend_from_slice(v);
    }
}

fn length_i32(len: usize) -> i32 {
    i32::try_from(len).expect("byte array longer than i32::MAX")
}

/// Decode DELTA_BYTE_ARRAY values (each the first `prefix` bytes of the previous value followed
/// by its suffix) in Arrow's offsets layout, appending to `offsets` and `data` as
/// [`decode_length_byte_array`] does. Returns the bytes of `input` consumed.
///
/// The "previous value" starts empty at the start of `input` (of the page). A prefix longer than
/// the previous value, or prefix and suffix counts that differ, are [`Error::InvalidData`].
/// All lengths are validated before anything is appended.
///
/// Prefixes re-use earlier bytes, so the output can be far larger than `input`; it is limited
/// to [`DEFAULT_MAX_BYTE_ARRAY_OUTPUT`] ([`Error::TooLarge`] beyond). Use
/// [`decode_byte_array_with_limit`] to choose the limit.
pub fn decode_byte_array<O: Offset>(
    input: &[u8],
    max_values: usize,
    offsets: &mut Vec<O>,
    data: &mut Vec<u8>,
) -> Result<usize> {
    decode_byte_array_with_limit(
        input,
        max_values,
        DEFAULT_MAX_BYTE_ARRAY_OUTPUT,
        offsets,
        data,
    )
}

/// The most bytes [`decode_byte_array`] produces from one input: 2 GiB, the most an Arrow
/// array with `i32` offsets holds, and far beyond what any writer's page decodes to.
pub const DEFAULT_MAX_BYTE_ARRAY_OUTPUT: usize = i32::MAX as usize;

/// [`decode_byte_array`] producing at most `max_bytes` value bytes, else [`Error::TooLarge`]
/// (checked before anything is allocated or appended).
pub fn decode_byte_array_with_limit<O: Offset>(
    input: &[u8],
    max_values: usize,
    max_bytes: usize,
    offsets: &mut Vec<O>,
    data: &mut Vec<u8>,
) -> Result<usize> {
    let mut prefixes = Vec::new();
    let mut r = Reader { input, pos: 0 };
    r.pos = decode_binary_packed_i32(input, max_values, &mut prefixes)?;
    let suffix_at = r.pos;
    let mut suffixes = Vec::new();
    r.pos += decode_binary_packed_i32(&input[r.pos..], max_values, &mut suffixes)
        .map_err(|e| shift_error(e, suffix_at))?;
    if prefixes.len() != suffixes.len() {
        return Err(Error::InvalidData {
            offset: suffix_at,
            what: "delta byte array prefix and suffix counts differ",
        });
    }
    let suffix_total = checked_lengths(&suffixes, suffix_at)?;
    let suffix_bytes = r.bytes(suffix_total)?;
    // Validate prefixes and size the output before copying anything.
    let mut prev_len = 0usize;
    let mut out_total = 0usize;
    for (&p, &s) in prefixes.iter().zip(&suffixes) {
        let p = usize::try_from(p)
            .ok()
            .filter(|&p| p <= prev_len)
            .ok_or(Error::InvalidData {
                offset: 0,
                what: "delta byte array prefix longer than the previous value",
            })?;
        prev_len = p + s as usize;
        out_total = out_total.saturating_add(prev_len);
        if out_total > max_bytes {
            return Err(Error::TooLarge {
                what: "delta byte array output bytes",
                declared: out_total as u64,
                limit: max_bytes as u64,
            });
        }
    }
    data.reserve(out_total);
    let mut end = offsets_base(offsets);
    offsets.reserve(prefixes.len());
    let mut prev_start = data.len();
    let mut suffix_pos = 0;
    for (&p, &s) in prefixes.iter().zip(&suffixes) {
        let start = data.len();
        data.extend_from_within(prev_start..prev_start + p as usize);
        data.extend_from_slice(&suffix_bytes[suffix_pos..suffix_pos + s as usize]);
        suffix_pos += s as usize;
        prev_start = start;
        end += (p + s) as i64;
        offsets.push(O::truncate(end));
    }
    Ok(r.pos)
}

/// Re-base an error's offset when it came from decoding a sub-slice at `at`.
fn shift_error(e: Error, at: usize) -> Error {
    match e {
        Error::Truncated {
            offset,
            needed,
            available,
        } => Error::Truncated {
            offset: offset + at,
            needed,
            available,
        },
        Error::InvalidData { offset, what } => Error::InvalidData {
            offset: offset + at,
            what,
        },
        e => e,
    }
}

/// Append values as DELTA_BYTE_ARRAY: the length of the prefix each shares with the previous
/// value (DELTA_BINARY_PACKED), then the remaining suffixes as DELTA_LENGTH_BYTE_ARRAY.
///
/// # Panics
///
/// If a value is longer than `i32::MAX` bytes, which Parquet cannot represent.
pub fn encode_byte_array<'a>(values: impl Iterator<Item = &'a [u8]> + Clone, out: &mut Vec<u8>) {
    let mut prefixes = Vec::with_capacity(values.size_hint().0);
    let mut suffixes = Vec::with_capacity(values.size_hint().0);
    let mut prev: &[u8] = &[];
    for v in values {
        length_i32(v.len());
        let p = common_prefix(prev, v);
        prefixes.push(p as i32);
        suffixes.push(&v[p..]);
        prev = v;
    }
    encode_binary_packed_i32(&prefixes, out);
    encode_length_byte_array(suffixes.iter().copied(), out);
}

/// Length of the common prefix of `a` and `b`, compared 8 bytes at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let x = u64::from_le_bytes(bytemuck::pod_read_unaligned(x));
        let y = u64::from_le_bytes(bytemuck::pod_read_unaligned(y));
        if x != y {
            return i + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + a[i..]
        .iter()
        .zip(&b[i..])
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip_i64(values: &[i64]) -> Vec<u8> {
        let mut buf = Vec::new();
        encode_binary_packed_i64(values, &mut buf);
        let mut out = vec![];
        let used = decode_binary_packed_i64(&buf, values.len(), &mut out).unwrap();
        assert_eq!(used, buf.len());
        assert_eq!(out, values);
        buf
    }

    #[test]
    fn empty_and_single() {
        let buf = round_trip_i64(&[]);
        assert_eq!(buf, [0x80, 0x01, 0x04, 0x00, 0x00]);
        round_trip_i64(&[i64::MIN]);
        let mut buf = Vec::new();
        encode_binary_packed_i32(&[], &mut buf);
        let mut out = Vec::new();
        assert_eq!(
            decode_binary_packed_i32(&buf, 0, &mut out).unwrap(),
            buf.len()
        );
        assert!(out.is_empty());
    }

    #[test]
    fn extremes_wrap() {
        round_trip_i64(&[i64::MIN, i64::MAX, i64::MIN, 0, i64::MAX, -1, i64::MIN]);
        let values = [i32::MAX, i32::MIN, i32::MAX, 0, -1, i32::MIN];
        let mut buf = Vec::new();
        encode_binary_packed_i32(&values, &mut buf);
        let mut out = Vec::new();
        decode_binary_packed_i32(&buf, 6, &mut out).unwrap();
        assert_eq!(out, values);
    }

    /// Hand-built: block 128, 4 miniblocks, 5 values, first 1, min delta 1, widths all 0.
    #[test]
    fn hand_built_constant_block() {
        let buf = [0x80, 0x01, 0x04, 0x05, 0x02, 0x02, 0, 0, 0, 0];
        let mut out = Vec::new();
        assert_eq!(decode_binary_packed_i32(&buf, 5, &mut out).unwrap(), 10);
        assert_eq!(out, [1, 2, 3, 4, 5]);
    }

    /// A page written by parquet-mr 1.12.1 (parquet-testing
    /// `delta_encoding_required_column.parquet`, column `c_customer_sk`): 100 INT32 values,
    /// widths 0 and 1 with parquet-mr's non-zero padding widths.
    #[test]
    fn parquet_mr_page() {
        let page = [
            0x80, 0x01, 0x04, 0x64, 0xd2, 0x01, 0x03, 0x01, 0x01, 0x01, 0x01, 0xff, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff, 0x77, 0xef, 0xbf, 0xdf, 0xff, 0x07, 0x00, 0x00, 0x00,
        ];
        let skipped = [45, 40, 34, 23, 15];
        let expected: Vec<i32> = (1..=105).rev().filter(|v| !skipped.contains(v)).collect();
        let mut out = Vec::new();
        assert_eq!(decode_binary_packed_i32(&page, 100, &mut out).unwrap(), 27);
        assert_eq!(out, expected);
    }

    #[test]
    fn padding_miniblocks_take_any_width_and_no_body() {
        // 3 values: deltas 1, 2 -> min 1, relative 0, 1: width 1, one 4-byte body.
        let mut buf = vec![0x80, 0x01, 0x04, 0x03, 0x00, 0x02, 1, 0xff, 0x63, 0x07];
        buf.extend([0b10, 0, 0, 0]);
        buf.extend([0xaa, 0xbb]); // trailing bytes that belong to someone else
        let mut out = Vec::new();
        assert_eq!(decode_binary_packed_i64(&buf, 3, &mut out).unwrap(), 14);
        assert_eq!(out, [0, 1, 3]);
        // The last miniblock unpadded (1 body byte instead of 4) at the end of the input.
        let mut out = Vec::new();
        assert_eq!(
            decode_binary_packed_i64(&buf[..11], 3, &mut out).unwrap(),
            11
        );
        assert_eq!(out, [0, 1, 3]);
        // But its values must be there.
        assert!(decode_binary_packed_i64(&buf[..10], 3, &mut Vec::new()).is_err());
    }

    #[test]
    fn bad_headers() {
        let dec = |b: &[u8], max| decode_binary_packed_i32(b, max, &mut Vec::new());
        // Block size 8 (the spec's examples) is invalid.
        assert!(matches!(
            dec(&[8, 1, 5, 2, 2, 0], 5),
            Err(Error::InvalidData { .. })
        ));
        // Block 128 with 8 miniblocks = 16 values per miniblock.
        assert!(matches!(
            dec(&[0x80, 0x01, 8, 1, 0], 5),
            Err(Error::InvalidData { .. })
        ));
        assert!(matches!(
            dec(&[0x80, 0x01, 0, 1, 0], 5),
            Err(Error::InvalidData { .. })
        ));
        // Count above the caller's limit.
        assert!(matches!(
            dec(&[0x80, 0x01, 4, 0xff, 0xff, 0xff, 0xff, 0x0f, 0], 1000),
            Err(Error::TooLarge {
                declared: 0xffff_ffff,
                limit: 1000,
                ..
            })
        ));
        // Width 33 for INT32.
        assert!(matches!(
            dec(&[0x80, 0x01, 4, 2, 0, 0, 33, 0, 0, 0], 5),
            Err(Error::InvalidBitWidth { width: 33, max: 32 })
        ));
        // Overlong varint.
        assert!(dec(&[0xff; 12], 5).is_err());
        assert!(dec(&[], 5).is_err());
    }

    #[test]
    fn length_byte_array_spec_example() {
        let values: [&[u8]; 4] = [b"Hello", b"World", b"Foobar", b"ABCDEF"];
        let mut buf = Vec::new();
        encode_length_byte_array(values.iter().copied(), &mut buf);
        assert!(buf.ends_with(b"HelloWorldFoobarABCDEF"));
        let (mut offsets, mut data) = (Vec::<i64>::new(), vec![]);
        assert_eq!(
            decode_length_byte_array(&buf, 4, &mut offsets, &mut data).unwrap(),
            buf.len()
        );
        assert_eq!(offsets, [0, 5, 10, 16, 22]);
        assert_eq!(data, b"HelloWorldFoobarABCDEF");
    }

    #[test]
    fn byte_array_spec_example() {
        let values: [&[u8]; 4] = [b"axis", b"axle", b"babble", b"babyhood"];
        let mut buf = Vec::new();
        encode_byte_array(values.iter().copied(), &mut buf);
        assert!(buf.ends_with(b"axislebabbleyhood"));
        let (mut offsets, mut data) = (vec![0, 3], b"abc".to_vec());
        decode_byte_array(&buf, 4, &mut offsets, &mut data).unwrap();
        assert_eq!(offsets, [0, 3, 7, 11, 17, 25]);
        assert_eq!(data, b"abcaxisaxlebabblebabyhood");
    }

    #[test]
    fn byte_array_bad_prefix() {
        let mut buf = Vec::new();
        encode_binary_packed_i32(&[0, 3], &mut buf);
        encode_length_byte_array([&b"ab"[..], b"c"].into_iter(), &mut buf);
        let (mut o, mut d) = (Vec::<i64>::new(), vec![]);
        assert!(matches!(
            decode_byte_array(&buf, 2, &mut o, &mut d),
            Err(Error::InvalidData { .. })
        ));
        assert!(d.is_empty());
        // Mismatched counts.
        let mut buf = Vec::new();
        encode_binary_packed_i32(&[0], &mut buf);
        encode_length_byte_array([&b"ab"[..], b"c"].into_iter(), &mut buf);
        assert!(decode_byte_array(&buf, 2, &mut o, &mut d).is_err());
        // Negative length.
        let mut buf = Vec::new();
        encode_binary_packed_i32(&[-1], &mut buf);
        assert!(decode_length_byte_array(&buf, 2, &mut o, &mut d).is_err());
    }

    #[test]
    fn byte_array_output_is_limited() {
        // One 1000-byte value, then 999 values re-using it whole: 1 MB out of ~1 KB in.
        let mut prefixes = vec![0];
        prefixes.extend([1000; 999]);
        let mut buf = Vec::new();
        encode_binary_packed_i32(&prefixes, &mut buf);
        let suffixes = std::iter::once(&[7u8; 1000][..]).chain(std::iter::repeat_n(&[][..], 999));
        encode_length_byte_array(suffixes, &mut buf);
        assert!(buf.len() < 1300, "{}", buf.len());
        let (mut o, mut d) = (Vec::<i64>::new(), vec![]);
        assert!(matches!(
            decode_byte_array_with_limit(&buf, 1000, 999_999, &mut o, &mut d),
            Err(Error::TooLarge {
                declared: 1_000_000,
                limit: 999_999,
                ..
            })
        ));
        assert!(o.is_empty() && d.is_empty());
        decode_byte_array_with_limit(&buf, 1000, 1_000_000, &mut o, &mut d).unwrap();
        assert_eq!(d.len(), 1_000_000);
    }

    #[test]
    fn common_prefix_matches_naive() {
        let a = b"0123456789abcdefXYZ";
        for i in 0..a.len() {
            let mut b = a.to_vec();
            b[i] ^= 1;
            assert_eq!(common_prefix(a, &b), i);
            assert_eq!(common_prefix(&a[..i], a), i);
        }
    }

    #[cfg(feature = "probes")]
    #[test]
    fn constant_miniblocks_skip_unpacking() {
        let values: Vec<i64> = (0..1000).map(|i| 7 + 3 * i).collect();
        probe::reset();
        round_trip_i64(&values);
        // 999 deltas = 32 miniblocks, all of width 0.
        assert_eq!(probe::get("delta.miniblock_constant"), 32);
        assert_eq!(probe::get("delta.miniblock_unpacked"), 0);
        let values: Vec<i64> = (0..1000).map(|i| (i * i) % 1013).collect();
        probe::reset();
        round_trip_i64(&values);
        assert_eq!(probe::get("delta.miniblock_unpacked"), 32);
        assert_eq!(probe::get("delta.miniblock_constant"), 0);
    }

    fn lengths() -> impl Strategy<Value = usize> {
        prop_oneof![
            0usize..3,
            30usize..35,
            126usize..131,
            255usize..259,
            0usize..600
        ]
    }

    proptest! {
        #[test]
        fn i64_round_trip(
            n in lengths(),
            seed in prop::collection::vec(prop_oneof![any::<i64>(), Just(i64::MIN), Just(i64::MAX), -3i64..3], 1..8),
        ) {
            let values: Vec<i64> = (0..n).map(|i| seed[i % seed.len()].wrapping_mul(i as i64 / 3 + 1)).collect();
            let buf = round_trip_i64(&values);
            // Any truncation errors or (unpadded tail) still yields the same values; never panics.
            for cut in 0..buf.len() {
                let mut out = Vec::new();
                if decode_binary_packed_i64(&buf[..cut], n, &mut out).is_ok() {
                    prop_assert_eq!(&out, &values);
                }
            }
        }

        #[test]
        fn i32_round_trip(values in prop::collection::vec(prop_oneof![any::<i32>(), Just(i32::MIN), Just(i32::MAX), 0i32..100], 0..300)) {
            let mut buf = Vec::new();
            encode_binary_packed_i32(&values, &mut buf);
            let mut out = vec![42];
            prop_assert_eq!(decode_binary_packed_i32(&buf, values.len(), &mut out).unwrap(), buf.len());
            prop_assert_eq!(&out[1..], &values[..]);
            if !values.is_empty() {
                prop_assert!(decode_binary_packed_i32(&buf, values.len() - 1, &mut Vec::new()).is_err());
            }
        }

        #[test]
        fn garbage_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
            let _ = decode_binary_packed_i32(&bytes, 1000, &mut Vec::new());
            let _ = decode_binary_packed_i64(&bytes, 1000, &mut Vec::new());
            let _ = decode_length_byte_array(&bytes, 1000, &mut Vec::<i64>::new(), &mut Vec::new());
            let _ = decode_byte_array(&bytes, 1000, &mut Vec::<i64>::new(), &mut Vec::new());
        }

        #[test]
        fn byte_arrays_round_trip(
            values in prop::collection::vec(prop_oneof![
                prop::collection::vec(0u8..3, 0..12),
                prop::collection::vec(any::<u8>(), 0..40),
            ], 0..140)
        ) {
            let n = values.len();
            let it = values.iter().map(|v| &v[..]);
            let mut buf = Vec::new();
            encode_length_byte_array(it.clone(), &mut buf);
            let (mut offsets, mut data) = (Vec::<i64>::new(), Vec::new());
            prop_assert_eq!(decode_length_byte_array(&buf, n, &mut offsets, &mut data).unwrap(), buf.len());
            let got: Vec<&[u8]> = offsets.windows(2).map(|w| &data[w[0] as usize..w[1] as usize]).collect();
            prop_assert_eq!(&got, &values);

            let mut buf = Vec::new();
            encode_byte_array(it, &mut buf);
            let (mut offsets, mut data) = (Vec::<i64>::new(), Vec::new());
            prop_assert_eq!(decode_byte_array(&buf, n, &mut offsets, &mut data).unwrap(), buf.len());
            let got: Vec<&[u8]> = offsets.windows(2).map(|w| &data[w[0] as usize..w[1] as usize]).collect();
            prop_assert_eq!(&got, &values);
            // Both encodings into i32 offsets: the same ends.
            let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
            let (mut small, mut small_data) = (Vec::<i32>::new(), Vec::new());
            decode_byte_array(&buf, n, &mut small, &mut small_data).unwrap();
            prop_assert_eq!(&small, &narrow);
            prop_assert_eq!(&small_data, &data);
            let mut lengths = Vec::new();
            encode_length_byte_array(values.iter().map(|v| &v[..]), &mut lengths);
            let (mut small, mut small_data) = (Vec::<i32>::new(), Vec::new());
            decode_length_byte_array(&lengths, n, &mut small, &mut small_data).unwrap();
            prop_assert_eq!(&small, &narrow);
            prop_assert_eq!(&small_data, &data);
            for cut in 0..buf.len() {
                let (mut o, mut d) = (Vec::<i64>::new(), Vec::new());
                if decode_byte_array(&buf[..cut], n, &mut o, &mut d).is_ok() {
                    prop_assert_eq!(&d, &data);
                }
            }
        }
    }
}
