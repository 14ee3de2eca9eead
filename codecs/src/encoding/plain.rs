//! PLAIN encoding (`PLAIN = 0`), for all eight physical types.
//!
//! Spec: <https://github.com/apache/parquet-format/blob/master/Encodings.md#plain-plain--0>
//!
//! ```text
//! BOOLEAN               bit-packed, LSB first, 1 bit per value
//! INT32 / FLOAT         4 bytes little endian per value
//! INT64 / DOUBLE        8 bytes little endian per value
//! INT96                 12 bytes per value
//! FIXED_LEN_BYTE_ARRAY  `width` bytes per value, back to back
//! BYTE_ARRAY            4-byte little-endian length, then that many bytes, per value
//! ```
//!
//! Decoders borrow where the output layout allows it: fixed-width values are cast in place
//! when the input is aligned for the type, byte arrays are handed out as slices of the input
//! (or as Arrow binary views pointing into it). Where a copy is needed it is made once, into
//! the caller's final buffer.
//!
//! Fixed-width values are reinterpreted in the host's byte order, so these functions assume a
//! little-endian host (every platform Arrow supports in practice).
//!
//! Probes: `plain.borrowed` (aligned input cast in place) and `plain.copied` (unaligned input
//! copied once) in [`decode_fixed`]; `plain.view_inline` / `plain.view_ref` count the views
//! built by [`decode_byte_array_views`] (hit once per call with the number of values);
//! `plain.byte_array_block` counts the short values [`encode_byte_array_offsets`] copied as
//! one 16-byte block.
#![forbid(unsafe_code)]

use std::borrow::Cow;

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};
use bytemuck::Pod;

use crate::kernels::byte_arrays::Offset;
use crate::probe;
use crate::{Error, Result};

/// Longest value stored inline in an Arrow binary view (the rest of the 16 bytes).
const VIEW_INLINE_MAX: usize = 12;

/// The byte length of `n` values of `size` bytes each, or an error when it overflows.
fn byte_len(n: usize, size: usize, what: &'static str) -> Result<usize> {
    n.checked_mul(size).ok_or(Error::TooLarge {
        what,
        declared: n as u64,
        limit: (usize::MAX / size.max(1)) as u64,
    })
}

/// The first `len` bytes of `input`, or [`Error::Truncated`].
fn take(input: &[u8], offset: usize, len: usize) -> Result<&[u8]> {
    let rest = input.get(offset..).unwrap_or(&[]);
    rest.get(..len).ok_or(Error::Truncated {
        offset,
        needed: len,
        available: rest.len(),
    })
}

/// Borrow `n` fixed-width values from the start of `input` when it is aligned for `T`, else
/// copy them once into a new vector.
///
/// Page buffers are usually allocated with a generous alignment, so the borrow is the common
/// case; the copy keeps unaligned input (e.g. after an odd-sized level section) correct.
pub fn decode_fixed<T: Pod>(input: &[u8], n: usize) -> Result<Cow<'_, [T]>> {
    let len = byte_len(n, std::mem::size_of::<T>(), "plain value count")?;
    let bytes = take(input, 0, len)?;
    match bytemuck::try_cast_slice::<u8, T>(bytes) {
        Ok(values) => {
            probe::hit("plain.borrowed");
            Ok(Cow::Borrowed(values))
        }
        Err(_) => {
            probe::hit("plain.copied");
            Ok(Cow::Owned(bytemuck::pod_collect_to_vec(bytes)))
        }
    }
}

/// Append `n` fixed-width values from the start of `input` to `out`, copying once. Returns the
/// bytes consumed (`n * size_of::<T>()`).
///
/// For callers that gather several pages into one final buffer.
pub fn decode_fixed_into<T: Pod>(input: &[u8], n: usize, out: &mut Vec<T>) -> Result<usize> {
    let len = byte_len(n, std::mem::size_of::<T>(), "plain value count")?;
    let bytes = take(input, 0, len)?;
    match bytemuck::try_cast_slice::<u8, T>(bytes) {
        Ok(values) => out.extend_from_slice(values),
        Err(_) => crate::kernels::copy::extend_from_unaligned(out, bytes),
    }
    Ok(len)
}

/// Append `n` PLAIN booleans, starting `bit_offset` bits into `input`, to `out`.
///
/// Returns the bytes of `input` the values end in: `ceil((bit_offset + n) / 8)`, which is
/// `ceil(n / 8)` for a page decoded from its start. The bits are copied a word at a time.
pub fn decode_boolean(
    input: &[u8],
    bit_offset: usize,
    n: usize,
    out: &mut BooleanBufferBuilder,
) -> Result<usize> {
    let end_bit = bit_offset.checked_add(n).ok_or(Error::TooLarge {
        what: "plain boolean count",
        declared: n as u64,
        limit: (usize::MAX - bit_offset) as u64,
    })?;
    let len = end_bit.div_ceil(8);
    let bytes = take(input, 0, len)?;
    out.append_packed_range(bit_offset..end_bit, bytes);
    Ok(len)
}

/// Borrow `n` FIXED_LEN_BYTE_ARRAY (or INT96, `width` 12) values of `width` bytes each.
pub fn decode_fixed_bytes(input: &[u8], width: usize, n: usize) -> Result<&[u8]> {
    let len = byte_len(n, width, "plain value count")?;
    take(input, 0, len)
}

/// Iterator over PLAIN BYTE_ARRAY values as slices of the input; see [`byte_arrays`].
///
/// Yields at most `n` items; after the first error it yields nothing more.
#[derive(Debug, Clone)]
pub struct ByteArrayIter<'a> {
    input: &'a [u8],
    pos: usize,
    remaining: usize,
}

impl<'a> ByteArrayIter<'a> {
    /// Bytes of the input consumed so far (the start of the next value).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Read one length-prefixed value at the current position.
    fn read(&mut self) -> Result<&'a [u8]> {
        let len_bytes = take(self.input, self.pos, 4)?;
        let len = u32::from_le_bytes([len_bytes[0], len_bytes[1], len_bytes[2], len_bytes[3]]);
        let value = take(self.input, self.pos + 4, len as usize)?;
        self.pos += 4 + value.len();
        Ok(value)
    }
}

impl<'a> Iterator for ByteArrayIter<'a> {
    type Item = Result<&'a [u8]>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.remaining == 0 {
            return None;
        }
        let item = self.read();
        // Stop after an error: the position of the next value is unknown.
        self.remaining = if item.is_ok() { self.remaining - 1 } else { 0 };
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (0, Some(self.remaining))
    }
}

/// Iterate over `n` PLAIN BYTE_ARRAY values (4-byte little-endian length, then the bytes),
/// borrowing each from `input`.
pub fn byte_arrays(input: &[u8], n: usize) -> ByteArrayIter<'_> {
    ByteArrayIter {
        input,
        pos: 0,
        remaining: n,
    }
}

/// Skip `n` PLAIN BYTE_ARRAY values at the start of `input` without copying them: returns the
/// bytes they take (where the value after them starts).
pub fn skip_byte_arrays(input: &[u8], n: usize) -> Result<usize> {
    let mut values = byte_arrays(input, n);
    for v in values.by_ref() {
        v?;
    }
    Ok(values.position())
}

/// Append `n` PLAIN BYTE_ARRAY values in Arrow's offsets layout: the value bytes to `data`,
/// and one end offset per value to `offsets`. Returns the bytes of `input` consumed.
///
/// The last element of `offsets` is the running end the new offsets continue from; when
/// `offsets` is empty a leading `0` is pushed first. On error, `offsets` and `data` may hold
/// part of the values.
pub fn decode_byte_array_offsets<O: crate::kernels::byte_arrays::Offset>(
    input: &[u8],
    n: usize,
    offsets: &mut Vec<O>,
    data: &mut Vec<u8>,
) -> Result<usize> {
    crate::kernels::copy::plain_byte_arrays(input, n, offsets, data)
}

/// Append `n` PLAIN BYTE_ARRAY values as Arrow binary views (`u128`, Arrow's `ByteView`
/// layout) to `views`, copying no value bytes. Returns the bytes of `input` consumed.
///
/// Values of up to 12 bytes are inlined in the view (`len | data`, zero padded). Longer values
/// are `len | 4-byte prefix | buffer_index | offset`, where `offset` is relative to the start of
/// `input`, which the caller registers as data buffer number `buffer_index`.
///
/// Errors with [`Error::TooLarge`] when an offset or length does not fit in the view's `u32`.
pub fn decode_byte_array_views(
    input: &[u8],
    n: usize,
    buffer_index: u32,
    views: &mut Vec<u128>,
) -> Result<usize> {
    if input.len() > u32::MAX as usize {
        // Offsets must fit the view's u32; check the values one by one (slow path).
        return decode_byte_array_views_checked(input, n, buffer_index, views);
    }
    // Each value takes at least 4 input bytes, so at most `input.len() / 4` can be decoded;
    // views are written straight into that reserved capacity.
    let index = (buffer_index as u128) << 64;
    let mut pos = 0usize;
    let mut long = 0u64;
    let mut result = None;
    let k = crate::kernels::copy::extend_reserved(views, n.min(input.len() / 4), || {
        // A PLAIN value is `len: u32 LE` then its bytes, and a view starts with the same
        // `len: u32 LE`: an inline view is the first 4 + len bytes of the value, zero padded,
        // and a long view's low half is `len` and the 4-byte prefix, also the value's first 8
        // bytes. So one 16-byte load builds either, without a copy per value.
        let head = input.get(pos..pos + 16)?;
        // Each value's position comes from the previous length: start loading the lines
        // ahead (long values are lines apart, so the stream is sparse).
        crate::kernels::memory::prefetch(input, pos + PREFETCH_AHEAD);
        let raw = u128::from_le_bytes(head.try_into().unwrap_or([0; 16]));
        let len = raw as u32 as usize;
        if len > input.len() - pos - 4 {
            result = Some(Err(Error::Truncated {
                offset: pos + 4,
                needed: len,
                available: input.len() - pos - 4,
            }));
            return None;
        }
        // Both forms are computed and one selected without a branch: mixed short and long
        // values would mispredict it.
        let is_long = len > VIEW_INLINE_MAX;
        let inline = raw & (u128::MAX >> (96 - 8 * len.min(VIEW_INLINE_MAX)));
        let reference = (raw as u64 as u128) | index | (((pos + 4) as u128) << 96);
        long += is_long as u64;
        pos += 4 + len;
        Some(if is_long { reference } else { inline })
    });
    probe::hit_n("plain.view_ref", long);
    probe::hit_n("plain.view_inline", k as u64 - long);
    if let Some(err) = result {
        return err;
    }
    if k < n {
        // Fewer than 16 bytes left (or more values asked for than the input can hold).
        return decode_tail_views(input, pos, n - k, buffer_index, views);
    }
    Ok(pos)
}

/// How far ahead of the value being read [`decode_byte_array_views`] prefetches: several
/// long values, whose positions the hardware cannot guess before each length is read (the
/// offsets layout copies every byte, a stream the hardware prefetcher follows on its own).
const PREFETCH_AHEAD: usize = 1024;

/// The last values of a page, fewer than 16 bytes from its end: built one by one.
fn decode_tail_views(
    input: &[u8],
    pos: usize,
    n: usize,
    buffer_index: u32,
    views: &mut Vec<u128>,
) -> Result<usize> {
    let before = views.len();
    let consumed = decode_byte_array_views_checked(&input[pos..], n, buffer_index, views);
    // Offsets of the tail values are relative to `pos`: shift the long ones.
    for v in &mut views[before..] {
        if (*v as u32 as usize) > VIEW_INLINE_MAX {
            *v += (pos as u128) << 96;
        }
    }
    consumed.map(|c| pos + c)
}

/// The per-value form of [`decode_byte_array_views`], checking each offset against `u32`.
fn decode_byte_array_views_checked(
    input: &[u8],
    n: usize,
    buffer_index: u32,
    views: &mut Vec<u128>,
) -> Result<usize> {
    views.reserve(n.min(input.len() / 4));
    let mut values = byte_arrays(input, n);
    let mut long = 0u64;
    let mut count = 0u64;
    loop {
        let start = values.position() + 4;
        let Some(value) = values.next() else { break };
        let value = value?;
        count += 1;
        let len = value.len();
        let view = if len <= VIEW_INLINE_MAX {
            let mut bytes = [0u8; 16];
            bytes[..4].copy_from_slice(&(len as u32).to_le_bytes());
            bytes[4..4 + len].copy_from_slice(value);
            u128::from_le_bytes(bytes)
        } else {
            long += 1;
            let offset = u32::try_from(start).map_err(|_| Error::TooLarge {
                what: "binary view offset",
                declared: start as u64,
                limit: u32::MAX as u64,
            })?;
            let len32 = i32::try_from(len).map_err(|_| Error::TooLarge {
                what: "binary view length",
                declared: len as u64,
                limit: i32::MAX as u64,
            })? as u32;
            let prefix = u32::from_le_bytes([value[0], value[1], value[2], value[3]]);
            (len32 as u128)
                | ((prefix as u128) << 32)
                | ((buffer_index as u128) << 64)
                | ((offset as u128) << 96)
        };
        views.push(view);
    }
    probe::hit_n("plain.view_ref", long);
    probe::hit_n("plain.view_inline", count - long);
    Ok(values.position())
}

/// Append fixed-width values in PLAIN layout (one memcpy on a little-endian host).
pub fn encode_fixed<T: Pod>(values: &[T], out: &mut Vec<u8>) {
    out.extend_from_slice(bytemuck::cast_slice(values));
}

/// Append PLAIN booleans (bit-packed LSB first, `ceil(len / 8)` bytes, padding bits zero),
/// copying 64 bits at a time whatever the buffer's bit offset.
pub fn encode_boolean(bits: &BooleanBuffer, out: &mut Vec<u8>) {
    let len = out.len() + bits.len().div_ceil(8);
    out.reserve(bits.len().div_ceil(8));
    let chunks = bits.bit_chunks();
    for word in chunks.iter() {
        out.extend_from_slice(&word.to_le_bytes());
    }
    if chunks.remainder_len() > 0 {
        out.extend_from_slice(&chunks.remainder_bits().to_le_bytes());
    }
    out.truncate(len);
}

/// Append PLAIN booleans from an iterator (bit-packed LSB first, padding bits zero).
pub fn encode_bools(bits: impl IntoIterator<Item = bool>, out: &mut Vec<u8>) {
    let mut byte = 0u8;
    let mut used = 0u32;
    for bit in bits {
        byte |= (bit as u8) << used;
        used += 1;
        if used == 8 {
            out.push(byte);
            byte = 0;
            used = 0;
        }
    }
    if used > 0 {
        out.push(byte);
    }
}

/// Append PLAIN BYTE_ARRAY values: each a 4-byte little-endian length, then the bytes.
///
/// # Panics
///
/// If a value is longer than `u32::MAX` bytes, which Parquet cannot represent.
pub fn encode_byte_arrays<'a>(values: impl Iterator<Item = &'a [u8]>, out: &mut Vec<u8>) {
    for value in values {
        let len = u32::try_from(value.len()).expect("byte array longer than u32::MAX");
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(value);
    }
}

/// Bytes a short value is copied with, whatever its length.
const BLOCK: usize = 16;

/// Append PLAIN BYTE_ARRAY values straight from Arrow's layout: value `i` is
/// `data[offsets[i]..offsets[i + 1]]`. The bytes are those of [`encode_byte_arrays`] over the
/// same values.
///
/// A value of at most 16 bytes with 16 bytes of `data` from its start is copied as one
/// 16-byte block (probe `plain.byte_array_block`): a copy of constant size is one vector
/// load and store, where a copy of the value's own length (4 to 12 bytes, say) is a
/// `memcpy` call. The block's tail lands in room reserved past the value and is overwritten
/// by the next length, or cut off at the end.
///
/// # Panics
///
/// If `offsets` decrease or point past `data` (their holder checked them), or a value is
/// longer than `u32::MAX` bytes, which Parquet cannot represent.
pub fn encode_byte_array_offsets<O: Offset>(offsets: &[O], data: &[u8], out: &mut Vec<u8>) {
    let Some((first, rest)) = offsets.split_first() else {
        return;
    };
    // Offsets are non-negative (their holder checked them).
    let at = |o: &O| (*o).into() as usize;
    let bytes = rest.last().map_or(0, |l| at(l) - at(first));
    // Monotonic offsets (checked by their holder; a decrease panics at the slice below)
    // spanning at most `u32::MAX` bytes: no value is longer.
    assert!(
        u32::try_from(bytes).is_ok(),
        "byte arrays longer than u32::MAX"
    );
    let start = out.len();
    out.resize(start + 4 * rest.len() + bytes + BLOCK, 0);
    let dst = &mut out[start..];
    let mut pos = 0;
    let mut blocks = 0u64;
    let mut s = at(first);
    for o in rest {
        let e = at(o);
        let len = e.wrapping_sub(s);
        // The length and a block in one bounds check: the room reserved past the last
        // value covers the block of any value.
        let slot = &mut dst[pos..pos + 4 + BLOCK];
        slot[..4].copy_from_slice(&(len as u32).to_le_bytes());
        match data.get(s..s + BLOCK) {
            Some(block) if len <= BLOCK => {
                slot[4..].copy_from_slice(block);
                blocks += 1;
            }
            _ => dst[pos + 4..pos + 4 + len].copy_from_slice(&data[s..e]),
        }
        pos += 4 + len;
        s = e;
    }
    out.truncate(start + pos);
    crate::probe::hit_n("plain.byte_array_block", blocks);
}

#[cfg(test)]
mod tests {
    #[test]
    fn skip_byte_arrays_lands_on_the_next_value() {
        let mut enc = Vec::new();
        super::encode_byte_arrays([&b"ab"[..], b"", b"cde"].into_iter(), &mut enc);
        assert_eq!(super::skip_byte_arrays(&enc, 0).unwrap(), 0);
        assert_eq!(super::skip_byte_arrays(&enc, 2).unwrap(), 10);
        assert_eq!(super::skip_byte_arrays(&enc, 3).unwrap(), enc.len());
        assert!(super::skip_byte_arrays(&enc, 4).is_err());
        assert!(super::skip_byte_arrays(&enc[..8], 3).is_err());
    }

    use super::*;
    use proptest::prelude::*;

    /// From offsets, the bytes of the slice encoder: short values copied as blocks where
    /// the data has room past them, exactly at the end of the data, long values exactly.
    #[test]
    fn byte_array_offsets_encode_like_slices() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for n in [0usize, 1, 2, 7, 100, 1000] {
            let mut data = Vec::new();
            let mut offsets = vec![0i64];
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let len = match x % 4 {
                    0 => 0,
                    1 => (x >> 8) as usize % 17,
                    2 => 4 + (x >> 8) as usize % 9,
                    _ => (x >> 8) as usize % 60,
                };
                data.extend((0..len).map(|i| (x >> (i % 56)) as u8));
                offsets.push(data.len() as i64);
            }
            // Runs as pages take them (the whole, a tail, a head, none), with i64 and i32
            // offsets, appended after a byte already there.
            for (a, b) in [(0, n), (n / 3, n), (0, n / 2), (n / 4, n / 4)] {
                let run = &offsets[a..=b];
                let mut want = vec![7u8];
                encode_byte_arrays(
                    run.windows(2).map(|w| &data[w[0] as usize..w[1] as usize]),
                    &mut want,
                );
                let mut got = vec![7u8];
                encode_byte_array_offsets(run, &data, &mut got);
                assert_eq!(got, want, "n {n} run {a}..{b}");
                let narrow: Vec<i32> = run.iter().map(|&o| o as i32).collect();
                let mut got = vec![7u8];
                encode_byte_array_offsets(&narrow, &data, &mut got);
                assert_eq!(got, want, "n {n} run {a}..{b}, i32 offsets");
            }
        }
    }

    #[test]
    fn fixed_round_trip_and_truncation() {
        let values = [i64::MIN, -1, 0, 1, i64::MAX];
        let mut buf = Vec::new();
        encode_fixed(&values, &mut buf);
        assert_eq!(&*decode_fixed::<i64>(&buf, 5).unwrap(), &values);
        assert!(matches!(
            decode_fixed::<i64>(&buf, 6),
            Err(Error::Truncated {
                needed: 48,
                available: 40,
                ..
            })
        ));
        assert!(decode_fixed::<i64>(&buf, usize::MAX).is_err());
        assert!(decode_fixed::<i64>(&[], 0).unwrap().is_empty());
        let mut out = vec![7i64];
        assert_eq!(decode_fixed_into(&buf[..], 5, &mut out).unwrap(), 40);
        assert_eq!(&out[1..], &values);
    }

    #[test]
    fn floats_kept_bit_for_bit() {
        let values = [
            f64::from_bits(0x7ff8_0000_dead_beef),
            -0.0,
            0.0,
            f64::NEG_INFINITY,
            f64::from_bits(0xfff0_0000_0000_0001),
        ];
        let mut buf = Vec::new();
        encode_fixed(&values, &mut buf);
        let back = decode_fixed::<f64>(&buf, values.len()).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&back), bits(&values));
    }

    #[cfg(feature = "probes")]
    #[test]
    fn aligned_input_borrows_unaligned_copies() {
        let values: Vec<u64> = (0..16).collect();
        let mut padded = vec![0u8; 1];
        encode_fixed(&values, &mut padded);
        // A Vec<u64> is 8-aligned, so its bytes cast in place.
        let aligned: &[u8] = bytemuck::cast_slice(&values);
        probe::reset();
        let back = decode_fixed::<u64>(aligned, 16).unwrap();
        assert!(matches!(back, Cow::Borrowed(_)));
        assert_eq!(probe::get("plain.borrowed"), 1);
        assert_eq!(probe::get("plain.copied"), 0);
        // One byte in, the same values are misaligned for u64 and must be copied.
        probe::reset();
        let back = decode_fixed::<u64>(&padded[1..], 16).unwrap();
        assert!(matches!(back, Cow::Owned(_)));
        assert_eq!(&*back, &values[..]);
        assert_eq!(probe::get("plain.copied"), 1);
        assert_eq!(probe::get("plain.borrowed"), 0);
    }

    #[test]
    fn boolean_with_offset() {
        let bits: Vec<bool> = (0..29).map(|i| i % 3 == 0).collect();
        let mut buf = Vec::new();
        encode_bools(bits.iter().copied(), &mut buf);
        assert_eq!(buf.len(), 4);
        let mut b = BooleanBufferBuilder::new(0);
        assert_eq!(decode_boolean(&buf, 5, 20, &mut b).unwrap(), 4);
        let got: Vec<bool> = b.finish().iter().collect();
        assert_eq!(got, &bits[5..25]);
        let mut b = BooleanBufferBuilder::new(0);
        assert!(decode_boolean(&buf, 5, 28, &mut b).is_err());
        assert!(decode_boolean(&buf, usize::MAX, 2, &mut b).is_err());
    }

    #[test]
    fn byte_arrays_errors() {
        let mut buf = Vec::new();
        encode_byte_arrays([&b"ab"[..], b"", b"xyz"].into_iter(), &mut buf);
        let got: Vec<&[u8]> = byte_arrays(&buf, 3).map(|v| v.unwrap()).collect();
        assert_eq!(got, vec![&b"ab"[..], b"", b"xyz"]);
        // Asking for more values than present.
        let mut it = byte_arrays(&buf, 5);
        assert_eq!(it.by_ref().filter(|v| v.is_err()).count(), 1);
        assert!(it.next().is_none());
        // A huge declared length.
        let bad = [0xff, 0xff, 0xff, 0xff, 1, 2];
        let (mut o, mut d) = (Vec::<i64>::new(), Vec::new());
        assert!(matches!(
            decode_byte_array_offsets(&bad, 1, &mut o, &mut d),
            Err(Error::Truncated { offset: 4, .. })
        ));
        let mut views = Vec::new();
        assert!(decode_byte_array_views(&bad, 1, 0, &mut views).is_err());
        assert!(decode_fixed_bytes(&bad, 4, 2).is_err());
        assert_eq!(decode_fixed_bytes(&bad, 3, 2).unwrap(), &bad);
    }

    /// Read a view back the way Arrow does.
    fn view_value(view: u128, buffers: &[&[u8]]) -> Vec<u8> {
        let len = view as u32 as usize;
        if len <= VIEW_INLINE_MAX {
            view.to_le_bytes()[4..4 + len].to_vec()
        } else {
            let buf = (view >> 64) as u32 as usize;
            let off = (view >> 96) as u32 as usize;
            let prefix = ((view >> 32) as u32).to_le_bytes();
            let v = buffers[buf][off..off + len].to_vec();
            assert_eq!(&v[..4], &prefix);
            v
        }
    }

    fn byte_values() -> impl Strategy<Value = Vec<Vec<u8>>> {
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..40), 0..70)
    }

    proptest! {
        #[test]
        fn fixed_i32_round_trip(values in prop::collection::vec(any::<i32>(), 0..140), skew in 0usize..4) {
            let mut buf = vec![0u8; skew];
            encode_fixed(&values, &mut buf);
            let back = decode_fixed::<i32>(&buf[skew..], values.len()).unwrap();
            prop_assert_eq!(&*back, &values[..]);
            let mut out: Vec<i32> = Vec::new();
            prop_assert_eq!(decode_fixed_into(&buf[skew..], values.len(), &mut out).unwrap(), values.len() * 4);
            prop_assert_eq!(out, values);
        }

        #[test]
        fn boolean_round_trip(bits in prop::collection::vec(any::<bool>(), 0..300), offset in 0usize..70) {
            let offset = offset.min(bits.len());
            let buffer = BooleanBuffer::from(bits.clone()).slice(offset, bits.len() - offset);
            let mut buf = Vec::new();
            encode_boolean(&buffer, &mut buf);
            let mut buf2 = Vec::new();
            encode_bools(bits[offset..].iter().copied(), &mut buf2);
            prop_assert_eq!(&buf, &buf2);
            let mut b = BooleanBufferBuilder::new(0);
            let n = bits.len() - offset;
            prop_assert_eq!(decode_boolean(&buf, 0, n, &mut b).unwrap(), n.div_ceil(8));
            prop_assert_eq!(b.finish().iter().collect::<Vec<_>>(), bits[offset..].to_vec());
        }

        #[test]
        fn byte_array_round_trip(values in byte_values()) {
            let mut buf = Vec::new();
            encode_byte_arrays(values.iter().map(|v| &v[..]), &mut buf);
            let n = values.len();
            let (mut offsets, mut data) = (Vec::<i64>::new(), Vec::new());
            prop_assert_eq!(decode_byte_array_offsets(&buf, n, &mut offsets, &mut data).unwrap(), buf.len());
            prop_assert_eq!(offsets.len(), n + 1);
            for (i, v) in values.iter().enumerate() {
                prop_assert_eq!(&data[offsets[i] as usize..offsets[i + 1] as usize], &v[..]);
            }
            let mut views = vec![0u128];
            prop_assert_eq!(decode_byte_array_views(&buf, n, 3, &mut views).unwrap(), buf.len());
            let buffers = [&[][..], &[][..], &[][..], &buf[..]];
            for (view, v) in views[1..].iter().zip(&values) {
                prop_assert_eq!(&view_value(*view, &buffers), v);
            }
            // Every truncation is an error, never a panic. Under Miri (~1000x slower, and
            // each cut decodes up to the cut) the first and last 8 and every 31st.
            let len = buf.len();
            let sampled = |cut: usize| !cfg!(miri) || cut < 8 || cut + 8 >= len || cut % 31 == 0;
            for cut in (0..len).filter(|&c| sampled(c)) {
                let (mut o, mut d) = (Vec::<i64>::new(), Vec::new());
                prop_assert!(decode_byte_array_offsets(&buf[..cut], n, &mut o, &mut d).is_err());
            }
        }
    }
}

#[cfg(test)]
mod view_tests {
    use super::*;
    use proptest::prelude::*;

    fn view_bytes<'a>(v: u128, input: &'a [u8], inline: &'a [u8; 16]) -> &'a [u8] {
        let len = v as u32 as usize;
        if len <= VIEW_INLINE_MAX {
            &inline[4..4 + len]
        } else {
            let off = (v >> 96) as u32 as usize;
            &input[off..off + len]
        }
    }

    proptest! {
        #[test]
        fn views_match_values_everywhere_in_the_page(
            values in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..30), 0..40),
            cut in 0usize..2000,
        ) {
            let mut input = Vec::new();
            encode_byte_arrays(values.iter().map(|v| v.as_slice()), &mut input);
            let full = input.len();
            input.truncate(cut.min(full));
            let mut views = vec![7u128];
            let r = decode_byte_array_views(&input, values.len(), 3, &mut views);
            let fits = input.len() == full;
            prop_assert_eq!(r.is_ok(), fits);
            if fits {
                prop_assert_eq!(r.unwrap(), full);
                prop_assert_eq!(views.len(), values.len() + 1);
                for (v, want) in views[1..].iter().zip(&values) {
                    let inline = v.to_le_bytes();
                    prop_assert_eq!(view_bytes(*v, &input, &inline), want.as_slice());
                    if want.len() > VIEW_INLINE_MAX {
                        prop_assert_eq!((*v >> 64) as u32, 3);
                        prop_assert_eq!(((*v >> 32) as u32).to_le_bytes(), [want[0], want[1], want[2], want[3]]);
                    } else {
                        // Inline views are zero padded.
                        prop_assert!(inline[4 + want.len()..].iter().all(|b| *b == 0));
                    }
                }
            }
        }
    }
}
