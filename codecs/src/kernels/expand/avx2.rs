//! The AVX2 null scatter: a permute from a lookup table per 32 bytes of output.
//!
//! A value is `K` 32-bit words (`K` = 1, 2, 4 for 4-, 8-, 16-byte values), so one 256-bit
//! vector holds `S = 8 / K` slots. For the next `S` validity bits `m`, table entry `m` says
//! which dense word each output lane takes: slot `j` is the `popcount(m & (2^j - 1))`-th dense
//! value, or, for a null slot, `-1`. One step loads the next 32 dense bytes, permutes them
//! with `vpermd` by the entry (sign-extended from bytes), zeroes the lanes whose index is
//! negative (`vblendvps` on the sign bit), stores 32 bytes and advances the dense pointer by
//! `popcount(m)` values. No branch depends on the data; a word of 64 valid (or null) slots is
//! one copy (or fill). Slots whose 32-byte load would run past the dense values are done one
//! by one.

use std::arch::x86_64::*;

use arrow_buffer::bit_chunk_iterator::BitChunks;

/// The permute table for values of `K` words: `N = 2^(8 / K)` entries (see the module docs).
const fn table<const K: usize, const N: usize>() -> [[i8; 8]; N] {
    let slots = 8 / K;
    let mut t = [[-1i8; 8]; N];
    let mut m = 0;
    while m < N {
        let mut taken = 0;
        let mut j = 0;
        while j < slots {
            if (m >> j) & 1 == 1 {
                let mut w = 0;
                while w < K {
                    t[m][j * K + w] = (taken * K + w) as i8;
                    w += 1;
                }
                taken += 1;
            }
            j += 1;
        }
        m += 1;
    }
    t
}

static TABLE_4: [[i8; 8]; 256] = table::<1, 256>();
static TABLE_8: [[i8; 8]; 16] = table::<2, 16>();
static TABLE_16: [[i8; 8]; 4] = table::<4, 4>();

/// Expand dense values of `4 * K` bytes into the slots of `chunks`.
///
/// # Safety
///
/// The CPU must support AVX2 and POPCNT. `K` is 1, 2 or 4. `src` must be readable for
/// `src_len` bytes, which hold exactly as many values as `chunks` has set bits, and `dst`
/// writable for `chunks.len()` values.
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn expand<const K: usize>(
    src: *const u8,
    src_len: usize,
    chunks: &BitChunks<'_>,
    dst: *mut u8,
) {
    let mut s = Scatter::<K> {
        src,
        src_left: src_len,
        dst,
    };
    for word in chunks.iter() {
        // SAFETY: the contract above: each word covers 64 slots of `dst`, and its set bits
        // are values still in `src`.
        unsafe {
            match word {
                u64::MAX => s.copy(64),
                0 => s.fill(64),
                w => s.bits(w, 64),
            }
        }
    }
    // SAFETY: as above, for the last `remainder_len` slots.
    unsafe { s.bits(chunks.remainder_bits(), chunks.remainder_len()) };
}

/// The cursor of one scatter: dense values left and the next slot.
struct Scatter<const K: usize> {
    src: *const u8,
    /// Bytes readable from `src` (dense values not yet taken).
    src_left: usize,
    dst: *mut u8,
}

impl<const K: usize> Scatter<K> {
    const SIZE: usize = 4 * K;
    const SLOTS: usize = 8 / K;

    /// `n` valid slots: one copy.
    ///
    /// # Safety
    ///
    /// `n` values are left in `src` and `n` slots in `dst`.
    #[inline(always)]
    unsafe fn copy(&mut self, n: usize) {
        let bytes = n * Self::SIZE;
        // SAFETY: per the contract; source and destination are different allocations.
        unsafe {
            std::ptr::copy_nonoverlapping(self.src, self.dst, bytes);
            self.src = self.src.add(bytes);
            self.dst = self.dst.add(bytes);
        }
        self.src_left -= bytes;
    }

    /// `n` null slots: zeros.
    ///
    /// # Safety
    ///
    /// `n` slots are left in `dst`.
    #[inline(always)]
    unsafe fn fill(&mut self, n: usize) {
        // SAFETY: per the contract.
        unsafe {
            std::ptr::write_bytes(self.dst, 0, n * Self::SIZE);
            self.dst = self.dst.add(n * Self::SIZE);
        }
    }

    /// The `n <= 64` slots whose validity bits are the low `n` bits of `bits` (higher bits
    /// clear): permute steps while a 32-byte load stays inside `src`, then slot by slot.
    ///
    /// # Safety
    ///
    /// AVX2 and POPCNT; `popcount(bits)` values are left in `src` and `n` slots in `dst`.
    #[inline(always)]
    unsafe fn bits(&mut self, mut bits: u64, mut n: usize) {
        let table: &[[i8; 8]] = match K {
            1 => &TABLE_4,
            2 => &TABLE_8,
            _ => &TABLE_16,
        };
        let step_mask = (1u64 << Self::SLOTS) - 1;
        while n >= Self::SLOTS && self.src_left >= 32 {
            let m = (bits & step_mask) as usize;
            let taken = m.count_ones() as usize * Self::SIZE;
            // SAFETY: `m < 2^SLOTS = table.len()`. The load reads 32 bytes of `src`, which has
            // `src_left >= 32` readable; the store writes `SLOTS` slots (32 bytes), and
            // `n >= SLOTS` are left; `taken <= src_left` because the step's set bits are
            // values still in `src`. AVX2 is the contract; accesses are unaligned ones.
            unsafe {
                let idx = _mm256_cvtepi8_epi32(_mm_loadl_epi64(table.as_ptr().add(m).cast()));
                let v = _mm256_loadu_si256(self.src.cast());
                let p = _mm256_castsi256_ps(_mm256_permutevar8x32_epi32(v, idx));
                let r = _mm256_blendv_ps(p, _mm256_setzero_ps(), _mm256_castsi256_ps(idx));
                _mm256_storeu_ps(self.dst.cast(), r);
                self.src = self.src.add(taken);
                self.dst = self.dst.add(32);
            }
            self.src_left -= taken;
            bits >>= Self::SLOTS;
            n -= Self::SLOTS;
        }
        for _ in 0..n {
            // SAFETY: per the contract, one slot at a time: a set bit takes one value.
            unsafe {
                if bits & 1 == 1 {
                    self.copy(1);
                } else {
                    self.fill(1);
                }
            }
            bits >>= 1;
        }
    }
}
