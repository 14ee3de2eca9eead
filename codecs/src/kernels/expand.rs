//! Null scatter with AVX-512 `vpexpandd` / `vpexpandq`: dense values expanded into the set
//! slots of a validity mask, zeros elsewhere, 16 (or 8, or 4) slots per instruction.
//!
//! This is exactly the scatter of [`crate::levels::scatter_fixed`], done in hardware: one masked
//! expand-load reads `popcount(mask)` consecutive dense values and places them at the mask's set
//! lanes. The scalar word scatter (a gather step per slot plus a clear per null) stays the
//! fallback and the test oracle; CPU support is checked once (std caches the detection).

/// Expand `dense` into the `len` slots of `validity` starting at `bit_offset` (LSB-first bits),
/// appending to `out`: 4-, 8- and 16-byte `T` only (16 bytes: Arrow views), on CPUs with
/// AVX-512F. Returns false (and does
/// nothing) when the kernel does not apply, so the caller falls back to scalar code.
///
/// The caller must have checked that `dense.len()` equals the number of set bits in the range
/// and that the bitmap covers it; this function re-checks both cheaply and returns false
/// rather than trust them.
pub fn expand<T: bytemuck::Pod + Default>(
    dense: &[T],
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<T>,
) -> bool {
    expand_bytes(bytemuck::cast_slice(dense), validity, bit_offset, len, out)
}

/// [`expand`] reading the dense values as raw little-endian bytes at any alignment (a PLAIN
/// page as it lies in the file): `dense.len()` must be a whole number of values.
pub fn expand_bytes<T: bytemuck::Pod + Default>(
    dense: &[u8],
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<T>,
) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let size = std::mem::size_of::<T>();
        if size == 0 || dense.len() % size != 0 {
            return false;
        }
        if !matches!(size, 4 | 8 | 16) || !std::arch::is_x86_feature_detected!("avx512f") {
            return false;
        }
        if bit_offset
            .checked_add(len)
            .is_none_or(|end| end.div_ceil(8) > validity.len())
        {
            return false;
        }
        let set =
            arrow_buffer::bit_chunk_iterator::UnalignedBitChunk::new(validity, bit_offset, len)
                .count_ones();
        if set != dense.len() / size {
            return false;
        }
        let chunks = arrow_buffer::bit_chunk_iterator::BitChunks::new(validity, bit_offset, len);
        out.reserve(len);
        let start = out.len();
        let dense_bytes = dense;
        // SAFETY: AVX-512F was detected above. `out` has capacity for `start + len` values and
        // the kernel writes exactly slots `start..start + len` (masked stores for the tail);
        // it reads exactly `dense.len()` values because the set bits in the range were
        // counted above and each expand-load reads popcount(mask) values. Every written slot
        // is a full `T` of bits from `dense` or zero, valid for `T: Pod`.
        unsafe {
            let dst = out.as_mut_ptr().add(start).cast::<u8>();
            match size {
                4 => expand32(dense_bytes.as_ptr(), &chunks, dst),
                8 => expand64(dense_bytes.as_ptr(), &chunks, dst),
                _ => expand128(dense_bytes.as_ptr(), &chunks, dst),
            }
            out.set_len(start + len);
        }
        crate::probe::hit("levels.scatter_expand");
        true
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        let _ = (dense, validity, bit_offset, len, out);
        false
    }
}

/// # Safety
/// AVX-512F must be available; `src` must hold as many 4-byte values as `chunks` has set bits
/// and `dst` room for `chunks.len()` 4-byte values.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx512f")]
unsafe fn expand32(
    mut src: *const u8,
    chunks: &arrow_buffer::bit_chunk_iterator::BitChunks<'_>,
    mut dst: *mut u8,
) {
    use std::arch::x86_64::*;
    let mut step = |mask: u16, lanes: u16| {
        // SAFETY: per the function contract; `mask` has only set lanes below `lanes`, the
        // masked store writes `lanes` slots, the expand-load reads popcount(mask) values.
        unsafe {
            let v = _mm512_maskz_expandloadu_epi32(mask, src.cast());
            _mm512_mask_storeu_epi32(dst.cast(), lanes, v);
            src = src.add(4 * mask.count_ones() as usize);
            dst = dst.add(4 * lanes.count_ones() as usize);
        }
    };
    for word in chunks.iter() {
        for q in 0..4 {
            step((word >> (16 * q)) as u16, u16::MAX);
        }
    }
    let rem = chunks.remainder_len();
    let bits = chunks.remainder_bits();
    let mut done = 0;
    while done < rem {
        let n = (rem - done).min(16);
        let lanes = if n == 16 { u16::MAX } else { (1u16 << n) - 1 };
        step((bits >> done) as u16 & lanes, lanes);
        done += n;
    }
}

/// # Safety
/// As [`expand32`], for 8-byte values.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx512f")]
unsafe fn expand64(
    mut src: *const u8,
    chunks: &arrow_buffer::bit_chunk_iterator::BitChunks<'_>,
    mut dst: *mut u8,
) {
    use std::arch::x86_64::*;
    let mut step = |mask: u8, lanes: u8| {
        // SAFETY: as in `expand32`, with 8 lanes of 8 bytes.
        unsafe {
            let v = _mm512_maskz_expandloadu_epi64(mask, src.cast());
            _mm512_mask_storeu_epi64(dst.cast(), lanes, v);
            src = src.add(8 * mask.count_ones() as usize);
            dst = dst.add(8 * lanes.count_ones() as usize);
        }
    };
    for word in chunks.iter() {
        for q in 0..8 {
            step((word >> (8 * q)) as u8, u8::MAX);
        }
    }
    let rem = chunks.remainder_len();
    let bits = chunks.remainder_bits();
    let mut done = 0;
    while done < rem {
        let n = (rem - done).min(8);
        let lanes = if n == 8 { u8::MAX } else { (1u8 << n) - 1 };
        step((bits >> done) as u8 & lanes, lanes);
        done += n;
    }
}

/// Each of 4 bits doubled (`b0 b0 b1 b1 ..`): a 16-byte slot is two 8-byte lanes.
#[cfg(all(target_arch = "x86_64", not(miri)))]
const DOUBLED: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut i = 0;
    while i < 16 {
        let mut b = 0;
        while b < 4 {
            if (i >> b) & 1 == 1 {
                t[i] |= 3 << (2 * b);
            }
            b += 1;
        }
        i += 1;
    }
    t
};

/// # Safety
/// As [`expand32`], for 16-byte values (4 per instruction, as pairs of 8-byte lanes).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx512f")]
unsafe fn expand128(
    mut src: *const u8,
    chunks: &arrow_buffer::bit_chunk_iterator::BitChunks<'_>,
    mut dst: *mut u8,
) {
    use std::arch::x86_64::*;
    // `nibble`: the validity bits of the next `n <= 4` slots (bits at and above `n` clear).
    let mut step = |nibble: u8, n: usize| {
        let mask = DOUBLED[nibble as usize];
        let lanes = DOUBLED[(1usize << n) - 1];
        // SAFETY: as in `expand32`: the expand-load reads popcount(nibble) 16-byte values, the
        // masked store writes `n` 16-byte slots.
        unsafe {
            let v = _mm512_maskz_expandloadu_epi64(mask, src.cast());
            _mm512_mask_storeu_epi64(dst.cast(), lanes, v);
            src = src.add(16 * nibble.count_ones() as usize);
            dst = dst.add(16 * n);
        }
    };
    for word in chunks.iter() {
        for q in 0..16 {
            step((word >> (4 * q)) as u8 & 15, 4);
        }
    }
    let rem = chunks.remainder_len();
    let bits = chunks.remainder_bits();
    let mut done = 0;
    while done < rem {
        let n = (rem - done).min(4);
        step((bits >> done) as u8 & ((1u8 << n) - 1), n);
        done += n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive<T: Copy + Default>(dense: &[T], valid: &[bool]) -> Vec<T> {
        let mut d = 0;
        valid
            .iter()
            .map(|&b| {
                if b {
                    d += 1;
                    dense[d - 1]
                } else {
                    T::default()
                }
            })
            .collect()
    }

    fn bitmap(valid: &[bool], off: usize) -> Vec<u8> {
        let mut bytes = vec![0u8; (off + valid.len()).div_ceil(8) + 1];
        for (i, &b) in valid.iter().enumerate() {
            if b {
                bytes[(off + i) / 8] |= 1 << ((off + i) % 8);
            }
        }
        bytes
    }

    proptest! {
        #[test]
        fn expand_equals_naive(valid in proptest::collection::vec(any::<bool>(), 0..400), off in 0usize..9) {
            let bits = bitmap(&valid, off);
            let n = valid.iter().filter(|b| **b).count();
            let d32: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
            let d64: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
            let mut o32 = vec![9u32];
            if expand(&d32, &bits, off, valid.len(), &mut o32) {
                prop_assert_eq!(&o32[1..], &naive(&d32, &valid)[..]);
            }
            let mut o64 = vec![9.0f64];
            if expand(&d64, &bits, off, valid.len(), &mut o64) {
                prop_assert_eq!(&o64[1..], &naive(&d64, &valid)[..]);
            }
            let d128: Vec<u128> = (0..n as u128).map(|i| i << 64 | (i * 3 + 1)).collect();
            let mut o128 = vec![9u128];
            if expand(&d128, &bits, off, valid.len(), &mut o128) {
                prop_assert_eq!(&o128[1..], &naive(&d128, &valid)[..]);
            }
            // A wrong dense count is refused, not trusted.
            if n > 0 {
                let mut o = Vec::new();
                prop_assert!(!expand(&d32[1..], &bits, off, valid.len(), &mut o));
                prop_assert!(o.is_empty());
            }
        }
    }
}
