//! Appending plain-old-data values from unaligned bytes without zero-filling first.
//!
//! `Vec::resize` followed by `copy_from_slice` writes the destination twice (a memset, then
//! the copy) and, for fresh memory, takes the page faults inside the memset. Copying straight
//! into the vector's spare capacity writes it once.

use crate::probe;
use bytemuck::Pod;

/// Append `bytes.len() / size_of::<T>()` values read from `bytes` (any alignment) to `out`.
///
/// # Panics
/// If `bytes.len()` is not a multiple of `size_of::<T>()` (a caller bug, not an input error).
pub fn extend_from_unaligned<T: Pod>(out: &mut Vec<T>, bytes: &[u8]) {
    let size = std::mem::size_of::<T>();
    assert!(
        size > 0 && bytes.len() % size == 0,
        "byte length must be a multiple of the value size"
    );
    let n = bytes.len() / size;
    out.reserve(n);
    let start = out.len();
    // SAFETY: `reserve(n)` guarantees capacity for `start + n` values, so the destination
    // range `start..start + n` (n * size bytes) lies inside the allocation and does not
    // overlap `bytes` (a shared borrow cannot alias the vector's unique buffer). Copying as
    // bytes has no alignment requirement. Every byte of the new values is written before
    // `set_len`, and `T: Pod` makes any bit pattern a valid `T`.
    unsafe {
        let dst = out.as_mut_ptr().add(start).cast::<u8>();
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        out.set_len(start + n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_unaligned_values() {
        let raw: Vec<u8> = (0u8..=40).collect();
        for skew in 0..8 {
            let bytes = &raw[skew..skew + 32];
            let mut out = vec![7u64];
            extend_from_unaligned(&mut out, bytes);
            let want: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(out[0], 7);
            assert_eq!(&out[1..], &want[..]);
        }
        let mut empty: Vec<u32> = Vec::new();
        extend_from_unaligned(&mut empty, &[]);
        assert!(empty.is_empty());
    }
}

/// Append up to `max` values made by `next` to `out`, stopping at the first `None`; returns
/// how many were appended. Capacity for `max` is reserved once and each value is written
/// straight into it, without the per-push capacity check of `Vec::push`.
#[inline]
pub fn extend_reserved<T>(
    out: &mut Vec<T>,
    max: usize,
    mut next: impl FnMut() -> Option<T>,
) -> usize {
    out.reserve(max);
    let base = out.len();
    let spare = &mut out.spare_capacity_mut()[..max];
    let mut k = 0;
    while k < spare.len() {
        let Some(v) = next() else { break };
        spare[k].write(v);
        k += 1;
    }
    // SAFETY: the loop initialised `spare[..k]`, the `k` slots right after the old length,
    // and `k <= max <= capacity - base`.
    unsafe { out.set_len(base + k) };
    k
}

/// Bytes a short value copy moves at once (see [`plain_byte_arrays`]). 32 rather than 16: with
/// 16, strings of 8..=24 bytes would take the block copy or the `memcpy` call at random, and
/// the mispredicted branch cost more than the wider copy.
pub(crate) const BLOCK: usize = 32;

/// Decode `n` PLAIN BYTE_ARRAY values (4-byte little-endian length, then the bytes) from
/// `input` into Arrow offsets + data: appends one end offset per value to `offsets` (whose
/// last element is the running end) and the bytes to `data`. Returns the bytes consumed.
///
/// One pass, no per-value `memcpy` call for short values: offsets are written into reserved
/// capacity, and a value of up to `BLOCK` bytes is copied as one fixed-size block when the
/// input has that many readable bytes there (the next value overwrites the excess).
///
/// On error (a length running past the input) the values before it are kept.
///
/// Offsets are i64 or i32 ([`Offset`](super::byte_arrays::Offset)): the running end is kept in
/// i64 and each offset stored truncated, so with i32 the caller checks that the bytes stay
/// within `i32::MAX`.
// Not inlined: one loop per offset type, compiled alone (inlined into the i32 decoder it
// measured 15 % more instructions per value).
#[inline(never)]
pub fn plain_byte_arrays<O: super::byte_arrays::Offset>(
    input: &[u8],
    n: usize,
    offsets: &mut Vec<O>,
    data: &mut Vec<u8>,
) -> crate::Result<usize> {
    if offsets.is_empty() {
        offsets.push(O::default());
    }
    let mut end: i64 = (*offsets.last().unwrap_or(&O::default())).into();
    // Each value takes at least 4 input bytes, and all values together at most the input.
    let max_values = n.min(input.len() / 4);
    offsets.reserve(max_values);
    // Value bytes go into the room the caller reserved (a nested batch reserves its share of
    // a page, not the rest of it); only without room is the rest of the input reserved.
    if data.capacity() - data.len() < BLOCK {
        data.reserve(input.len() + BLOCK);
    }
    let (off_base, data_base) = (offsets.len(), data.len());
    let off_ptr = offsets.as_mut_ptr();
    let mut data_ptr = data.as_mut_ptr();
    // Values are copied while they end by `limit` in the input. Invariant (I):
    // `capacity - (data_base + written) >= (limit - pos) + BLOCK`: each value moves `written`
    // by `len` and `pos` by `len + 4`, so it holds from value to value, and the room left
    // covers every value ending by `limit` plus a block copy's excess. The check against
    // `limit` is the one against the input's end, so the loop pays nothing for it.
    let mut limit = input.len().min(data.capacity() - data_base - BLOCK);
    let mut pos = 0usize;
    let mut written = 0usize;
    let mut k = 0usize;
    let mut result = Ok(());
    while k < n {
        let Some(len_bytes) = input.get(pos..pos + 4) else {
            result = Err(crate::Error::Truncated {
                offset: pos,
                needed: 4,
                available: input.len().saturating_sub(pos),
            });
            break;
        };
        let len =
            u32::from_le_bytes([len_bytes[0], len_bytes[1], len_bytes[2], len_bytes[3]]) as usize;
        let start = pos + 4;
        if start + len > limit {
            if len > input.len() - start {
                result = Err(crate::Error::Truncated {
                    offset: start,
                    needed: len,
                    available: input.len() - start,
                });
                break;
            }
            // Out of room: the rest of the input holds at most `input.len() - pos` value
            // bytes, so room for that (and a block's excess) restores (I) with `limit` at
            // the input's end.
            probe::hit("kernels.plain_byte_arrays_grown");
            // SAFETY: the bytes `data_base..data_base + written` were written (below, in
            // earlier iterations), within capacity.
            unsafe { data.set_len(data_base + written) };
            data.reserve(input.len() - pos + BLOCK);
            data_ptr = data.as_mut_ptr();
            limit = input.len();
            continue;
        }
        // SAFETY: `start + len <= limit <= input.len()` was checked just above, and the block
        // copy is taken only when `start + BLOCK <= input.len()`: the source ranges are in
        // bounds. Destination: by (I), the capacity past `data_base + written` is at least
        // `limit - pos + BLOCK >= len + 4 + BLOCK`, so a copy of `max(len, BLOCK)` bytes at
        // `data_base + written` fits. `k < max_values` holds here because each
        // value read so far consumed at least 4 input bytes, so the offset slot
        // `off_base + k` is within the reserved capacity. Input and outputs are distinct
        // allocations (shared vs unique borrows).
        unsafe {
            let src = input.as_ptr().add(start);
            let dst = data_ptr.add(data_base + written);
            if len <= BLOCK && start + BLOCK <= input.len() {
                // One 32-byte load and store, not a `memcpy` of BLOCK bytes: as two
                // `copy_nonoverlapping` calls the branches could be merged into one `memcpy`
                // call of a selected length (so the i64 instance was compiled, a call per value).
                dst.cast::<[u8; BLOCK]>()
                    .write_unaligned(src.cast::<[u8; BLOCK]>().read_unaligned());
            } else {
                std::ptr::copy_nonoverlapping(src, dst, len);
            }
            end += len as i64;
            off_ptr.add(off_base + k).write(O::truncate(end));
        }
        written += len;
        pos = start + len;
        k += 1;
    }
    // SAFETY: offset slots `off_base..off_base + k` and data bytes
    // `data_base..data_base + written` were all written above, within capacity.
    unsafe {
        offsets.set_len(off_base + k);
        data.set_len(data_base + written);
    }
    result.map(|()| pos)
}

/// Decode `n` PLAIN BYTE_ARRAY values from `input` into room the caller placed: the end
/// offset of each value plus `base` into `offsets[..n]`, the value bytes into `data` from its
/// start. Returns the value bytes written.
///
/// For a read that decodes pieces of one column on several threads straight into disjoint
/// parts of one output: unlike [`plain_byte_arrays`], nothing is written past `offsets[..n]`
/// or past `data` (the block copy of a short value is taken only where `data` has the room),
/// since the memory after them is another piece's, written by another thread.
///
/// Errors when `input` ends early, when `offsets` holds fewer than `n` slots or when the
/// bytes do not fit in `data`; what was written before is then unspecified.
pub fn plain_byte_arrays_into(
    input: &[u8],
    n: usize,
    base: i64,
    offsets: &mut [std::mem::MaybeUninit<i64>],
    data: &mut [std::mem::MaybeUninit<u8>],
) -> crate::Result<usize> {
    let Some(offsets) = offsets.get_mut(..n) else {
        return Err(crate::Error::InvalidData {
            offset: 0,
            what: "more values than the room placed for them",
        });
    };
    let mut pos = 0usize;
    let mut written = 0usize;
    for slot in offsets.iter_mut() {
        let Some(len_bytes) = input.get(pos..pos + 4) else {
            return Err(crate::Error::Truncated {
                offset: pos,
                needed: 4,
                available: input.len().saturating_sub(pos),
            });
        };
        let len =
            u32::from_le_bytes([len_bytes[0], len_bytes[1], len_bytes[2], len_bytes[3]]) as usize;
        let start = pos + 4;
        if len > input.len() - start {
            return Err(crate::Error::Truncated {
                offset: start,
                needed: len,
                available: input.len() - start,
            });
        }
        if len > data.len() - written {
            return Err(crate::Error::InvalidData {
                offset: start,
                what: "value bytes past the room placed for them",
            });
        }
        // SAFETY: `start + len <= input.len()` and `written + len <= data.len()` were checked
        // just above; the block copy is taken only when `start + BLOCK <= input.len()` and
        // `written + BLOCK <= data.len()`: source and destination ranges are in bounds.
        // `input` is a shared borrow and `data` a unique one: they do not overlap.
        unsafe {
            let src = input.as_ptr().add(start);
            let dst = data.as_mut_ptr().add(written).cast::<u8>();
            if len <= BLOCK && start + BLOCK <= input.len() && written + BLOCK <= data.len() {
                std::ptr::copy_nonoverlapping(src, dst, BLOCK);
            } else {
                std::ptr::copy_nonoverlapping(src, dst, len);
            }
        }
        written += len;
        slot.write(base + written as i64);
        pos = start + len;
    }
    Ok(written)
}

#[cfg(test)]
mod plain_tests {
    use super::*;
    use proptest::prelude::*;

    fn encode(values: &[Vec<u8>]) -> Vec<u8> {
        let mut out = Vec::new();
        for v in values {
            out.extend_from_slice(&(v.len() as u32).to_le_bytes());
            out.extend_from_slice(v);
        }
        out
    }

    proptest! {
        #[test]
        fn equals_naive(
            values in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..50),
            cut in 0usize..2000,
            room in 0usize..300,
        ) {
            let mut input = encode(&values);
            let full = input.len();
            input.truncate(cut.min(full));
            // `room` spare bytes to start with: the values that do not fit grow `data`.
            let mut data = Vec::with_capacity(3 + room);
            data.extend_from_slice(&[1u8, 2, 3]);
            let mut offsets = vec![3i64];
            let r = plain_byte_arrays(&input, values.len(), &mut offsets, &mut data);
            // Naive: the longest prefix of whole values that fits.
            let (mut want_off, mut want_data, mut pos) = (vec![3i64], vec![1u8, 2, 3], 0);
            let mut complete = true;
            for v in &values {
                if pos + 4 + v.len() > input.len() { complete = false; break; }
                want_data.extend_from_slice(v);
                want_off.push(want_data.len() as i64);
                pos += 4 + v.len();
            }
            prop_assert_eq!(r.is_ok(), complete);
            if let Ok(consumed) = r { prop_assert_eq!(consumed, pos); }
            prop_assert_eq!(&offsets, &want_off);
            prop_assert_eq!(&data, &want_data);
            // With i32 offsets: the same ends, the same bytes.
            let (mut small, mut small_data) = (vec![3i32], vec![1u8, 2, 3]);
            let r = plain_byte_arrays(&input, values.len(), &mut small, &mut small_data);
            prop_assert_eq!(r.is_ok(), complete);
            prop_assert_eq!(small, want_off.iter().map(|&o| o as i32).collect::<Vec<i32>>());
            prop_assert_eq!(small_data, want_data);
        }
    }

    /// A value of the test's buffers, all made with `MaybeUninit::new`.
    fn init<T: Copy>(m: &std::mem::MaybeUninit<T>) -> T {
        // SAFETY: every element of the test's buffers was initialised when they were made,
        // and the kernel writes only initialised values.
        unsafe { m.assume_init() }
    }

    proptest! {
        /// Into exact room (with guard bytes after it that must stay untouched), as the
        /// appending kernel; short room or input is an error.
        #[test]
        fn into_placed_room_equals_appending(
            values in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..50),
            cut in 0usize..2000,
            short in 0usize..3,
        ) {
            let mut input = encode(&values);
            input.truncate(cut.min(input.len()));
            let (mut want_off, mut want_data) = (vec![0i64], Vec::new());
            let appended = plain_byte_arrays(&input, values.len(), &mut want_off, &mut want_data);
            let total: usize = values.iter().map(Vec::len).sum();
            let room = total.saturating_sub(short);
            let guard = 64;
            let mut offsets = vec![std::mem::MaybeUninit::new(-1i64); values.len() + 1];
            let mut data = vec![std::mem::MaybeUninit::new(0xAAu8); room + guard];
            let r = plain_byte_arrays_into(
                &input, values.len(), 5, &mut offsets[..values.len()], &mut data[..room],
            );
            prop_assert!(data[room..].iter().all(|b| init(b) == 0xAA));
            prop_assert_eq!(init(&offsets[values.len()]), -1);
            prop_assert_eq!(r.is_ok(), appended.is_ok() && room >= total);
            if let Ok(written) = r {
                prop_assert_eq!(written, total);
                let got: Vec<i64> = offsets[..values.len()].iter().map(|o| init(o) - 5).collect();
                prop_assert_eq!(&got[..], &want_off[1..]);
                let bytes: Vec<u8> = data[..written].iter().map(init).collect();
                prop_assert_eq!(bytes, want_data);
            }
        }
    }

    /// A caller's room is used as it is, and grown only when a value does not fit (probe
    /// `kernels.plain_byte_arrays_grown`).
    #[test]
    fn room_is_used_then_grown() {
        let values: Vec<Vec<u8>> = (0..100u8).map(|i| vec![i; 50]).collect();
        let input = encode(&values);
        let mut data = Vec::with_capacity(1000);
        let mut offsets = vec![0i64];
        probe::reset();
        plain_byte_arrays(&input, 10, &mut offsets, &mut data).unwrap();
        assert_eq!(data.capacity(), 1000, "ten values fit the room");
        assert_eq!(probe::get("kernels.plain_byte_arrays_grown"), 0);
        plain_byte_arrays(&input[540..], 90, &mut offsets, &mut data).unwrap();
        assert_eq!(data, values.concat());
        assert_eq!(offsets.last(), Some(&5000));
        if probe::ENABLED {
            assert_eq!(probe::get("kernels.plain_byte_arrays_grown"), 1);
        }
    }

    #[test]
    fn huge_count_is_bounded_by_input() {
        let (mut o, mut d) = (Vec::<i64>::new(), Vec::new());
        assert!(plain_byte_arrays(&[0, 0, 0, 0], usize::MAX, &mut o, &mut d).is_err());
        assert_eq!(o, vec![0, 0]);
        assert!(o.capacity() < 1 << 20);
    }
}
