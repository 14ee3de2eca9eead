//! Bit unpacking and packing kernels, one monomorphised function per (type, bit width).
//!
//! A *group* is `B` values of a `B`-bit type (`u8`: 8, `u16`: 16, `u32`: 32, `u64`: 64), which
//! packs into exactly `W` words of that type for bit width `W`. Unpacking a group:
//!
//! ```text
//! words[0..W] = the group's bytes read as little-endian B-bit words
//! for i in 0..B (fully unrolled, so bit, w and s are constants):
//!     bit = i * W; w = bit / B; s = bit % B
//!     v = words[w] >> s
//!     if s + W > B { v |= words[w + 1] << (B - s) }   // value straddles two words
//!     out[i] = v & mask(W)
//! ```
//!
//! Every index and shift is a compile-time constant once `W` is, so each kernel is straight-line
//! code with no branches and no bounds checks; the runtime width is turned into the const `W`
//! once per call by a jump table ([`unpack_groups`], [`pack_groups`]). Packing is the mirror
//! image. After the last whole group, remaining groups of 8 values (`W` bytes each) go through
//! an 8-value kernel of the same shape over a zero-padded `u64` window; fewer than 8 values
//! are left to the caller's scalar loop.
//!
//! The kernels are safe Rust: the compiler removes the bounds checks (all indices are constants
//! into fixed-size arrays; the O3 asm has no panic path left). On the x86-64 baseline (SSE2)
//! LLVM emits straight-line scalar shifts and masks; with AVX2 (per-lane variable shifts,
//! `vpsrlvd`) it vectorises them, 1.3–7x faster again for widths up to 12. So on x86-64 the same
//! kernels are compiled a second time inside `#[target_feature(enable = "avx2")]` functions and
//! chosen at run time; that call is the module's only `unsafe`.

use crate::encoding::bitpack::BitPackable;

/// Expand `$body` once per `$i` in `0..$n` with `$i` a `const usize`; `$n` is 8, 16, 32 or 64.
macro_rules! unroll {
    (8, $i:ident, $body:block) => {
        unroll!(@ $i, $body, 0 1 2 3 4 5 6 7)
    };
    (16, $i:ident, $body:block) => {
        unroll!(@ $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15)
    };
    (32, $i:ident, $body:block) => {
        unroll!(@ $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
            16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31)
    };
    (64, $i:ident, $body:block) => {
        unroll!(@ $i, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15
            16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47
            48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63)
    };
    (@ $i:ident, $body:block, $($n:literal)*) => {
        $({
            const $i: usize = $n;
            $body
        })*
    };
}

/// Turn the runtime `$width` into a const generic: `$f::<W>($args)` for `$width` in `1..=$max`.
macro_rules! dispatch {
    ($width:expr, $f:ident, $args:tt, $fallback:expr, [$($w:literal)*]) => {
        match $width {
            $($w => $f::<$w> $args,)*
            _ => $fallback,
        }
    };
}

macro_rules! kernels {
    ($t:ty, $bits:tt, $unpack_group:ident, $pack_group:ident, $unpack_all:ident, $pack_all:ident,
     $unpack_avx2:ident, $pack_avx2:ident, [$($w:literal)*]) => {
        /// Unpack one group of `$bits` values of width `W` from `W` little-endian words.
        #[inline(always)]
        fn $unpack_group<const W: usize>(input: &[u8], out: &mut [$t; $bits]) {
            const S: usize = std::mem::size_of::<$t>();
            const B: usize = $bits;
            let mut words = [0 as $t; B];
            for (w, c) in words[..W].iter_mut().zip(input.chunks_exact(S)) {
                *w = <$t>::from_le_bytes(c.try_into().unwrap_or_default());
            }
            let mask: $t = if W == B { !0 } else { ((1 as $t) << (W % B)).wrapping_sub(1) };
            unroll!($bits, I, {
                let bit = I * W;
                let w = bit / B;
                let s = bit % B;
                let mut v = words[w] >> s;
                if s + W > B {
                    v |= words[(w + 1) % B] << ((B - s) % B);
                }
                out[I] = v & mask;
            });
        }

        /// Pack one group of `$bits` values into `W` little-endian words appended to `out`.
        #[inline(always)]
        fn $pack_group<const W: usize>(values: &[$t; $bits], out: &mut Vec<u8>) {
            const B: usize = $bits;
            let mut words = [0 as $t; B];
            let mask: $t = if W == B { !0 } else { ((1 as $t) << (W % B)).wrapping_sub(1) };
            unroll!($bits, I, {
                let bit = I * W;
                let w = bit / B;
                let s = bit % B;
                let v = values[I] & mask;
                words[w] |= v << s;
                if s + W > B {
                    words[(w + 1) % B] |= v >> ((B - s) % B);
                }
            });
            for w in &words[..W] {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }

        /// All whole groups of `out` at const width `W` (groups of `$bits`, then of 8);
        /// returns values written. Inlined into its caller so that it is compiled for the
        /// caller's target features.
        #[inline(always)]
        fn $unpack_all<const W: usize>(input: &[u8], out: &mut [$t]) -> usize {
            let group_bytes = W * std::mem::size_of::<$t>();
            let mut done = 0;
            for (chunk, o) in input
                .chunks_exact(group_bytes)
                .zip(out.chunks_exact_mut($bits))
            {
                if let Ok(o) = <&mut [$t; $bits]>::try_from(o) {
                    $unpack_group::<W>(chunk, o);
                    done += $bits;
                }
            }
            // A group of 8 values is exactly W bytes.
            let rest = input.get(done / 8 * W..).unwrap_or(&[]);
            let tail = out.get_mut(done..).unwrap_or(&mut []);
            for (chunk, o) in rest.chunks_exact(W).zip(tail.chunks_exact_mut(8)) {
                if let Ok(o) = <&mut [$t; 8]>::try_from(o) {
                    let mut v = [0u64; 8];
                    unpack8::<W>(chunk, &mut v);
                    for (o, v) in o.iter_mut().zip(v) {
                        *o = v as $t;
                    }
                    done += 8;
                }
            }
            done
        }

        /// All whole groups of `values` at const width `W` (groups of `$bits`, then of 8);
        /// returns values consumed. Inlined like the unpack side.
        #[inline(always)]
        fn $pack_all<const W: usize>(values: &[$t], out: &mut Vec<u8>) -> usize {
            out.reserve((values.len() / 8) * W);
            let mut done = 0;
            for v in values.chunks_exact($bits) {
                if let Ok(v) = <&[$t; $bits]>::try_from(v) {
                    $pack_group::<W>(v, out);
                    done += $bits;
                }
            }
            for v in values.get(done..).unwrap_or(&[]).chunks_exact(8) {
                let mut w = [0u64; 8];
                for (w, v) in w.iter_mut().zip(v) {
                    *w = *v as u64;
                }
                pack8::<W>(&w, out);
                done += 8;
            }
            done
        }

        /// The same kernels compiled for AVX2 (variable per-lane shifts let LLVM vectorise them).
        ///
        /// # Safety
        ///
        /// The CPU must support AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $unpack_avx2(input: &[u8], width: u32, out: &mut [$t]) -> usize {
            dispatch!(width, $unpack_all, (input, out), 0, [$($w)*])
        }

        /// See the unpack twin.
        ///
        /// # Safety
        ///
        /// The CPU must support AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn $pack_avx2(values: &[$t], width: u32, out: &mut Vec<u8>) -> usize {
            dispatch!(width, $pack_all, (values, out), 0, [$($w)*])
        }

        impl Kernel for $t {
            #[cfg(test)]
            const GROUP: usize = $bits;
            fn unpack_all(input: &[u8], width: u32, out: &mut [Self]) -> usize {
                #[cfg(target_arch = "x86_64")]
                if has_avx2() {
                    // SAFETY: `has_avx2` confirmed at run time that the CPU supports AVX2, the
                    // only precondition; all slice accesses inside are bounds-checked safe code.
                    return unsafe { $unpack_avx2(input, width, out) };
                }
                Self::unpack_all_baseline(input, width, out)
            }
            fn unpack_all_baseline(input: &[u8], width: u32, out: &mut [Self]) -> usize {
                dispatch!(width, $unpack_all, (input, out), 0, [$($w)*])
            }
            fn pack_all(values: &[Self], width: u32, out: &mut Vec<u8>) -> usize {
                #[cfg(target_arch = "x86_64")]
                if has_avx2() {
                    // SAFETY: as in `unpack_all`: AVX2 support was confirmed just above.
                    return unsafe { $pack_avx2(values, width, out) };
                }
                Self::pack_all_baseline(values, width, out)
            }
            fn pack_all_baseline(values: &[Self], width: u32, out: &mut Vec<u8>) -> usize {
                dispatch!(width, $pack_all, (values, out), 0, [$($w)*])
            }
        }
    };
}

/// Unpack 8 values of width `W` (1..=64) from the `W` bytes of `input`, through a zero-padded
/// stack window read as unaligned little-endian `u64`s at constant offsets.
#[inline(always)]
fn unpack8<const W: usize>(input: &[u8], out: &mut [u64; 8]) {
    let mut buf = [0u8; 72];
    for (b, i) in buf[..W].iter_mut().zip(input) {
        *b = *i;
    }
    let mask: u64 = if W == 64 { !0 } else { (1u64 << (W % 64)) - 1 };
    unroll!(8, I, {
        let bit = I * W;
        let byte = bit / 8;
        let s = bit % 8;
        let mut word = [0u8; 8];
        word.copy_from_slice(&buf[byte..byte + 8]);
        let mut v = u64::from_le_bytes(word) >> s;
        if s + W > 64 {
            v |= (buf[byte + 8] as u64) << ((64 - s) % 64);
        }
        out[I] = v & mask;
    });
}

/// Pack 8 values of width `W` (1..=64) into `W` bytes appended to `out`.
#[inline(always)]
fn pack8<const W: usize>(values: &[u64; 8], out: &mut Vec<u8>) {
    let mut buf = [0u8; 72];
    let mask: u64 = if W == 64 { !0 } else { (1u64 << (W % 64)) - 1 };
    unroll!(8, I, {
        let bit = I * W;
        let byte = bit / 8;
        let s = bit % 8;
        let v = values[I] & mask;
        let mut word = [0u8; 8];
        word.copy_from_slice(&buf[byte..byte + 8]);
        let w = u64::from_le_bytes(word) | (v << s);
        buf[byte..byte + 8].copy_from_slice(&w.to_le_bytes());
        if s + W > 64 {
            buf[byte + 8] |= (v >> ((64 - s) % 64)) as u8;
        }
    });
    out.extend_from_slice(&buf[..W]);
}

/// Per-type entry points of the kernels (implemented for `u8`, `u16`, `u32`, `u64`).
trait Kernel: Sized {
    /// Values per group.
    #[cfg(test)]
    const GROUP: usize;
    /// Best kernels for this CPU.
    fn unpack_all(input: &[u8], width: u32, out: &mut [Self]) -> usize;
    /// Kernels for the compile-time target only.
    fn unpack_all_baseline(input: &[u8], width: u32, out: &mut [Self]) -> usize;
    fn pack_all(values: &[Self], width: u32, out: &mut Vec<u8>) -> usize;
    fn pack_all_baseline(values: &[Self], width: u32, out: &mut Vec<u8>) -> usize;
}

/// Whether the CPU supports AVX2 (std caches the detection; this is one atomic load).
/// Probe: `bitpack.avx2` counts calls that take the AVX2 kernels.
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx2() -> bool {
    let yes = std::is_x86_feature_detected!("avx2");
    if yes {
        crate::probe::hit("bitpack.avx2");
    }
    yes
}

kernels!(u8, 8, unpack_group_u8, pack_group_u8, unpack_all_u8, pack_all_u8,
    unpack_avx2_u8, pack_avx2_u8, [1 2 3 4 5 6 7 8]);
kernels!(u16, 16, unpack_group_u16, pack_group_u16, unpack_all_u16, pack_all_u16,
    unpack_avx2_u16, pack_avx2_u16,
    [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16]);
kernels!(u32, 32, unpack_group_u32, pack_group_u32, unpack_all_u32, pack_all_u32,
    unpack_avx2_u32, pack_avx2_u32,
    [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32]);
kernels!(u64, 64, unpack_group_u64, pack_group_u64, unpack_all_u64, pack_all_u64,
    unpack_avx2_u64, pack_avx2_u64,
    [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
     33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64]);

/// Run `f` on `out` viewed as its concrete type. `T` is sealed to `u8`..`u64`, so the cast by
/// `T::BITS` always succeeds; if it ever did not, nothing is done (the caller's scalar loop
/// handles everything).
macro_rules! with_concrete {
    ($T:ty, $slice:expr, $cast:ident, |$s:ident| $e:expr, $none:expr) => {
        match <$T>::BITS {
            8 => match bytemuck::$cast::<$T, u8>($slice) {
                Ok($s) => $e,
                Err(_) => $none,
            },
            16 => match bytemuck::$cast::<$T, u16>($slice) {
                Ok($s) => $e,
                Err(_) => $none,
            },
            32 => match bytemuck::$cast::<$T, u32>($slice) {
                Ok($s) => $e,
                Err(_) => $none,
            },
            64 => match bytemuck::$cast::<$T, u64>($slice) {
                Ok($s) => $e,
                Err(_) => $none,
            },
            _ => $none,
        }
    };
}

/// Unpack all whole groups of `out` at bit `width` (groups of `T::BITS` values, then groups of
/// 8); returns how many values were written (a multiple of 8). The caller decodes the rest.
///
/// `input` should hold `ceil(out.len() * width / 8)` bytes; groups it cannot cover are left
/// undone. `width` must be in `1..=T::BITS`, otherwise nothing is done.
pub fn unpack_groups<T: BitPackable>(input: &[u8], width: u32, out: &mut [T]) -> usize {
    with_concrete!(
        T,
        out,
        try_cast_slice_mut,
        |o| Kernel::unpack_all(input, width, o),
        0
    )
}

/// Pack all whole groups of `values` at bit `width` (groups of `T::BITS` values, then groups of
/// 8), appending `width` bytes per 8 values to `out`; returns how many values were consumed (a
/// multiple of 8). The caller packs the rest. `width` must be in `1..=T::BITS`.
pub fn pack_groups<T: BitPackable>(values: &[T], width: u32, out: &mut Vec<u8>) -> usize {
    with_concrete!(
        T,
        values,
        try_cast_slice,
        |v| Kernel::pack_all(v, width, out),
        0
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::bitpack::{pack_scalar, unpack_scalar};

    fn check<T: BitPackable + Kernel + std::fmt::Debug + PartialEq>() {
        let n = 3 * T::GROUP + 21;
        for w in 1..=T::BITS {
            let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
            let vals: Vec<T> = (0..n as u64)
                .map(|i| T::from_u64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(17) & mask))
                .collect();
            let mut scalar = Vec::new();
            pack_scalar(&vals, w, &mut scalar);
            let mut fast = Vec::new();
            let done = pack_groups(&vals, w, &mut fast);
            assert_eq!(done, 3 * T::GROUP + 16);
            assert_eq!(fast[..], scalar[..fast.len()], "pack {} w {w}", T::BITS);
            let mut out = vec![T::default(); n];
            let done = unpack_groups(&scalar, w, &mut out);
            assert_eq!(done, 3 * T::GROUP + 16);
            let mut expect = vec![T::default(); n];
            unpack_scalar(&scalar, w, &mut expect);
            assert_eq!(out[..done], expect[..done], "unpack {} w {w}", T::BITS);
            // The compile-time-target kernels too (the above may have run the AVX2 ones).
            let mut base = vec![T::default(); n];
            assert_eq!(T::unpack_all_baseline(&scalar, w, &mut base), done);
            assert_eq!(
                base[..done],
                expect[..done],
                "baseline unpack {} w {w}",
                T::BITS
            );
            let mut fast_base = Vec::new();
            assert_eq!(T::pack_all_baseline(&vals, w, &mut fast_base), done);
            assert_eq!(fast_base, fast, "baseline pack {} w {w}", T::BITS);
        }
    }

    #[test]
    fn kernels_match_scalar() {
        check::<u8>();
        check::<u16>();
        check::<u32>();
        check::<u64>();
    }

    #[test]
    fn short_input_is_left_undone() {
        let mut out = [0u32; 64];
        // Enough bytes for one group of 32 and one of 8 at width 5 only.
        assert_eq!(unpack_groups(&[0xff; 29], 5, &mut out), 40);
        assert_eq!(unpack_groups(&[0xff; 20], 0, &mut out), 0);
        assert_eq!(unpack_groups(&[0xff; 20], 33, &mut out), 0);
    }
}
