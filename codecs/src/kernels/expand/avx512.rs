//! The AVX-512 null scatter: `vpexpandd` / `vpexpandq` expand-loads read `popcount(mask)`
//! consecutive dense values and place them at the mask's set lanes, 16 (or 8, or 4) slots per
//! instruction, zeros elsewhere; a masked store writes the slots.

use arrow_buffer::bit_chunk_iterator::BitChunks;

/// # Safety
/// AVX-512F must be available; `src` must hold as many 4-byte values as `chunks` has set bits
/// and `dst` room for `chunks.len()` 4-byte values.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn expand32(mut src: *const u8, chunks: &BitChunks<'_>, mut dst: *mut u8) {
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
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn expand64(mut src: *const u8, chunks: &BitChunks<'_>, mut dst: *mut u8) {
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
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn expand128(mut src: *const u8, chunks: &BitChunks<'_>, mut dst: *mut u8) {
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
