//! The NEON null scatter: a byte table lookup (`tbl`) per 16 bytes of output.
//!
//! The AVX2 kernel's shape on 128-bit vectors: a value is `K` 32-bit words (`K` = 1, 2 for
//! 4- and 8-byte values), one vector holds `S = 4 / K` slots. For the next `S` validity bits
//! `m`, table entry `m` holds, per output byte, the dense byte it takes, or `0xff` for a null
//! slot: `tbl` returns 0 for an index out of range, so the lookup places and zeroes in one
//! instruction. A word of 64 valid (or null) slots is one copy (or fill); slots whose 16-byte
//! load would run past the dense values are done one by one.

use std::arch::aarch64::*;

use arrow_buffer::bit_chunk_iterator::BitChunks;

/// The lookup table for values of `K` words: `N = 2^(4 / K)` entries.
const fn table<const K: usize, const N: usize>() -> [[u8; 16]; N] {
    let slots = 4 / K;
    let size = 4 * K;
    let mut t = [[0xffu8; 16]; N];
    let mut m = 0;
    while m < N {
        let mut taken = 0;
        let mut j = 0;
        while j < slots {
            if (m >> j) & 1 == 1 {
                let mut b = 0;
                while b < size {
                    t[m][j * size + b] = (taken * size + b) as u8;
                    b += 1;
                }
                taken += 1;
            }
            j += 1;
        }
        m += 1;
    }
    t
}

static TABLE_4: [[u8; 16]; 16] = table::<1, 16>();
static TABLE_8: [[u8; 16]; 4] = table::<2, 4>();

/// Expand dense values of `4 * K` bytes (`K` = 1 or 2) into the slots of `chunks`.
///
/// # Safety
///
/// `K` is 1 or 2. `src` must be readable for `src_len` bytes, which hold exactly as many
/// values as `chunks` has set bits, and `dst` writable for `chunks.len()` values.
#[target_feature(enable = "neon")]
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
    const SLOTS: usize = 4 / K;

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

    /// The `n <= 64` slots whose validity bits are the low `n` bits of `bits`: lookup steps
    /// while a 16-byte load stays inside `src`, then slot by slot.
    ///
    /// # Safety
    ///
    /// `popcount(bits & (2^n - 1))` values are left in `src` and `n` slots in `dst`.
    #[inline(always)]
    unsafe fn bits(&mut self, mut bits: u64, mut n: usize) {
        let table: &[[u8; 16]] = if K == 1 { &TABLE_4 } else { &TABLE_8 };
        let step_mask = (1u64 << Self::SLOTS) - 1;
        while n >= Self::SLOTS && self.src_left >= 16 {
            let m = (bits & step_mask) as usize;
            let taken = m.count_ones() as usize * Self::SIZE;
            // SAFETY: `m < 2^SLOTS = table.len()`. The load reads 16 bytes of `src`, which
            // has `src_left >= 16` readable; the store writes `SLOTS` slots (16 bytes), and
            // `n >= SLOTS` are left; `taken <= src_left` because the step's set bits are
            // values still in `src`.
            unsafe {
                let idx = vld1q_u8(table.as_ptr().add(m).cast());
                let v = vld1q_u8(self.src);
                vst1q_u8(self.dst, vqtbl1q_u8(v, idx));
                self.src = self.src.add(taken);
                self.dst = self.dst.add(16);
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
