//! Null scatter in SIMD: dense values expanded into the set slots of a validity mask, zeros
//! elsewhere, many slots per instruction and without a branch per slot or per run.
//!
//! This is exactly the scatter of [`crate::levels::scatter_fixed`], one kernel per level
//! ([`crate::kernels::simd`]): AVX-512 expand-loads (`avx512`), an AVX2 permute from a
//! lookup table (`avx2`), a NEON table lookup (`neon`). The portable scatter in
//! [`crate::levels`] stays the scalar level, the fallback for other widths and the test
//! oracle.
//!
//! Probes: `kernels.scatter.avx512`, `kernels.scatter.avx2`, `kernels.scatter.neon` (once per
//! call that a kernel took).

use super::simd::{self, Level};

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod avx2;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod avx512;
#[cfg(all(target_arch = "aarch64", not(miri)))]
mod neon;

/// Expand `dense` into the `len` slots of `validity` starting at `bit_offset` (LSB-first bits),
/// appending to `out`: 4-, 8- and 16-byte `T` (16 bytes: Arrow views; 4 and 8 only on NEON)
/// at a SIMD level. Returns false (and does nothing) when no kernel applies, so the caller
/// falls back to scalar code.
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

/// The kernel of the current level for values of `size` bytes, if there is one.
fn kernel_for(size: usize) -> Option<Level> {
    let level = simd::level();
    let fits = match level {
        Level::Scalar => false,
        Level::Avx2 | Level::Avx512 => matches!(size, 4 | 8 | 16),
        Level::Neon => matches!(size, 4 | 8),
    };
    fits.then_some(level)
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
    let size = std::mem::size_of::<T>();
    if size == 0 || dense.len() % size != 0 {
        return false;
    }
    let Some(level) = kernel_for(size) else {
        return false;
    };
    if bit_offset
        .checked_add(len)
        .is_none_or(|end| end.div_ceil(8) > validity.len())
    {
        return false;
    }
    let set = arrow_buffer::bit_chunk_iterator::UnalignedBitChunk::new(validity, bit_offset, len)
        .count_ones();
    if set != dense.len() / size {
        return false;
    }
    let chunks = arrow_buffer::bit_chunk_iterator::BitChunks::new(validity, bit_offset, len);
    out.reserve(len);
    let start = out.len();
    let dst = out.spare_capacity_mut().as_mut_ptr().cast::<u8>();
    let src = dense.as_ptr();
    // Every arm: `kernel_for` chose the level, and `simd::level()` is never above
    // what this CPU has, so the kernel's instructions are available; it took `size` among the
    // kernel's widths. `out` has capacity for `start + len` values and each kernel writes
    // exactly slots `start..start + len`; it reads at most the `dense.len()` bytes of `dense`,
    // which hold exactly the number of set bits in the range (counted above). Every written
    // slot is a full `T` of bytes from `dense` or zero, valid for `T: Pod`.
    let ran = match level {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        Level::Avx512 => {
            // SAFETY: see the comment above the `match`.
            unsafe {
                match size {
                    4 => avx512::expand32(src, &chunks, dst),
                    8 => avx512::expand64(src, &chunks, dst),
                    _ => avx512::expand128(src, &chunks, dst),
                }
            }
            true
        }
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        Level::Avx2 => {
            // SAFETY: see the comment above the `match`.
            unsafe {
                match size {
                    4 => avx2::expand::<1>(src, dense.len(), &chunks, dst),
                    8 => avx2::expand::<2>(src, dense.len(), &chunks, dst),
                    _ => avx2::expand::<4>(src, dense.len(), &chunks, dst),
                }
            }
            true
        }
        #[cfg(all(target_arch = "aarch64", not(miri)))]
        Level::Neon => {
            // SAFETY: see the comment above the `match`.
            unsafe {
                match size {
                    4 => neon::expand::<1>(src, dense.len(), &chunks, dst),
                    _ => neon::expand::<2>(src, dense.len(), &chunks, dst),
                }
            }
            true
        }
        _ => false,
    };
    if !ran {
        return false;
    }
    // SAFETY: the kernel initialised slots `start..start + len` (see above).
    unsafe { out.set_len(start + len) };
    crate::probe::hit(match level {
        Level::Avx512 => "kernels.scatter.avx512",
        Level::Avx2 => "kernels.scatter.avx2",
        Level::Neon => "kernels.scatter.neon",
        Level::Scalar => "kernels.scatter.scalar",
    });
    true
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

    /// Expand at every level this CPU has; where a kernel applies it must equal the naive
    /// scatter, and it must apply exactly where `kernel_for` says.
    fn check_levels<T: bytemuck::Pod + Default + PartialEq + std::fmt::Debug>(
        dense: &[T],
        valid: &[bool],
        off: usize,
    ) -> std::result::Result<(), TestCaseError> {
        let bits = bitmap(valid, off);
        let want = naive(dense, valid);
        let mut result = Ok(());
        simd::for_each_level(|level| {
            let mut out = vec![T::default(); 1];
            let took = expand(dense, &bits, off, valid.len(), &mut out);
            let r = (|| {
                prop_assert_eq!(
                    took,
                    kernel_for(std::mem::size_of::<T>()).is_some(),
                    "{}",
                    level
                );
                if took {
                    prop_assert_eq!(&out[1..], &want[..], "{}", level);
                } else {
                    prop_assert_eq!(out.len(), 1);
                }
                Ok(())
            })();
            if result.is_ok() {
                result = r;
            }
        });
        result
    }

    proptest! {
        #[test]
        fn expand_equals_naive(valid in proptest::collection::vec(any::<bool>(), 0..400), off in 0usize..9) {
            let n = valid.iter().filter(|b| **b).count();
            let d32: Vec<u32> = (0..n as u32).map(|i| i * 7 + 1).collect();
            check_levels(&d32, &valid, off)?;
            let d64: Vec<f64> = (0..n).map(|i| i as f64 + 0.5).collect();
            check_levels(&d64, &valid, off)?;
            let d128: Vec<u128> = (0..n as u128).map(|i| i << 64 | (i * 3 + 1)).collect();
            check_levels(&d128, &valid, off)?;
            // A wrong dense count is refused, not trusted.
            if n > 0 {
                let bits = bitmap(&valid, off);
                simd::for_each_level(|_| {
                    let mut o = Vec::new();
                    assert!(!expand(&d32[1..], &bits, off, valid.len(), &mut o));
                    assert!(o.is_empty());
                });
            }
        }

        /// Dense values read from unaligned bytes, and runs long enough for the word-wide
        /// copies and fills.
        #[test]
        fn expand_bytes_unaligned(seed in any::<u64>(), len in 0usize..700, pct in 0u64..=100, skew in 0usize..8) {
            let mut x = seed | 1;
            let valid: Vec<bool> = (0..len).map(|i| {
                x ^= x << 13; x ^= x >> 7; x ^= x << 17;
                // Long runs too: whole 64-slot words of one kind.
                if (i / 64) % 3 == 2 { (i / 192) % 2 == 0 } else { x % 100 >= pct }
            }).collect();
            let n = valid.iter().filter(|b| **b).count();
            let d64: Vec<u64> = (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
            let mut raw = vec![0u8; skew];
            raw.extend_from_slice(bytemuck::cast_slice(&d64));
            let bits = bitmap(&valid, 3);
            simd::for_each_level(|level| {
                let mut out: Vec<u64> = Vec::new();
                if expand_bytes(&raw[skew..], &bits, 3, len, &mut out) {
                    assert_eq!(out, naive(&d64, &valid), "{level}");
                }
            });
        }
    }

    #[cfg(feature = "probes")]
    #[test]
    fn probes_name_the_level() {
        use crate::probe;
        let valid: Vec<bool> = (0..300).map(|i| i % 3 != 0).collect();
        let bits = bitmap(&valid, 0);
        let dense: Vec<u64> = (0..200).collect();
        for level in simd::available() {
            probe::reset();
            let mut out = Vec::new();
            let took = simd::with_level(level, || expand(&dense, &bits, 0, 300, &mut out)).unwrap();
            let names = [
                "kernels.scatter.avx512",
                "kernels.scatter.avx2",
                "kernels.scatter.neon",
            ];
            let want = match level {
                Level::Scalar => None,
                l => Some(format!("kernels.scatter.{l}")),
            };
            assert_eq!(took, want.is_some(), "{level}");
            for name in names {
                let hits = probe::get(name);
                assert_eq!(
                    hits,
                    u64::from(want.as_deref() == Some(name)),
                    "{level} {name}"
                );
            }
        }
    }
}
