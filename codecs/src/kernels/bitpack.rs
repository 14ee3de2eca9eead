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
//! chosen at run time.
//!
//! Unpacking into `u32` goes further with explicit AVX2 (`simd_u32`): a byte shuffle, a
//! per-lane shift and a mask per 8 values, whatever the width. LLVM does not find that shape
//! for widths whose values straddle words (it emits scalar-like code for 10, 11, 13, 19, 21-23),
//! and the explicit kernel runs every width at about the memory bandwidth of the output
//! (measured 3.4-6x the `parquet` crate at widths 1-31 where the auto-vectorised kernels gave
//! 1.0-5x). The explicit kernels are the module's only `unsafe` besides the calls into the
//! `target_feature` functions; they are tested against the scalar ones. Under Miri the CPU
//! reports no AVX2, so Miri runs the scalar-shaped kernels.

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for u16 {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// An unsigned integer type that bit-packed values can be unpacked into or packed from.
///
/// Sealed: implemented for `u8`, `u16`, `u32` and `u64`, so kernels can rely on the widths.
pub trait BitPackable:
    Copy + Default + bytemuck::Pod + Send + Sync + 'static + sealed::Sealed
{
    /// Width of the type in bits: the largest bit width it can hold.
    const BITS: u32;
    /// Truncating conversion from `u64` (callers pass values that fit).
    fn from_u64(v: u64) -> Self;
    /// Widening conversion to `u64`.
    fn to_u64(self) -> u64;
}

macro_rules! impl_bitpackable {
    ($($t:ty),*) => {$(
        impl BitPackable for $t {
            const BITS: u32 = <$t>::BITS;
            #[inline(always)]
            fn from_u64(v: u64) -> Self {
                v as $t
            }
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
        }
    )*};
}
impl_bitpackable!(u8, u16, u32, u64);

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
     $unpack_avx2:ident, $unpack_avx2_w:ident, $pack_avx2:ident, $fast:ident, $neon:ident,
     $variant:ident, [$($w:literal)*]) => {
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
        #[cfg(test)]
        unsafe fn $unpack_avx2(input: &[u8], width: u32, out: &mut [$t]) -> usize {
            // SAFETY: AVX2 is this function's contract, passed on unchanged.
            unsafe { dispatch!(width, $unpack_avx2_w, (input, out), 0, [$($w)*]) }
        }

        /// [`$unpack_all`] at width `W` compiled for AVX2.
        ///
        /// # Safety
        ///
        /// The CPU must support AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        #[cfg_attr(not(test), allow(dead_code))] // u32 takes `simd_u32` outside tests
        unsafe fn $unpack_avx2_w<const W: usize>(input: &[u8], out: &mut [$t]) -> usize {
            $unpack_all::<W>(input, out)
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
            fn unpack_fn(width: u32) -> Option<GroupFn<Self>> {
                #[cfg(target_arch = "x86_64")]
                if has_avx2() {
                    return match width {
                        $($w => Some($fast::<$w> as GroupFn<Self>),)*
                        _ => None,
                    };
                }
                #[cfg(all(target_arch = "aarch64", not(miri)))]
                if has_neon() {
                    return match width {
                        $($w => Some($neon::<$w> as GroupFn<Self>),)*
                        _ => None,
                    };
                }
                match width {
                    $($w => Some($unpack_all::<$w> as GroupFn<Self>),)*
                    _ => None,
                }
            }
            fn wrap(f: GroupFn<Self>) -> AnyGroupFn {
                AnyGroupFn::$variant(f)
            }
            #[cfg(test)]
            fn unpack_all_autovec(input: &[u8], width: u32, out: &mut [Self]) -> usize {
                #[cfg(target_arch = "x86_64")]
                if has_avx2() {
                    // SAFETY: as in `unpack_all`.
                    return unsafe { $unpack_avx2(input, width, out) };
                }
                Self::unpack_all_baseline(input, width, out)
            }
            #[cfg(test)]
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
    /// The best whole-group unpack kernel of `width` for this CPU, `None` if `width` is not in
    /// `1..=BITS`. May only be called if the CPU supports the features it was compiled for:
    /// it is, on the CPU that chose it.
    fn unpack_fn(width: u32) -> Option<GroupFn<Self>>;
    /// `f` as the variant of [`AnyGroupFn`] for this type.
    fn wrap(f: GroupFn<Self>) -> AnyGroupFn;
    /// Best kernels for this CPU.
    fn unpack_all(input: &[u8], width: u32, out: &mut [Self]) -> usize {
        match Self::unpack_fn(width) {
            // SAFETY: `unpack_fn` chose `f` for this CPU; its only other requirements are the
            // slice arguments, which it bounds-checks itself.
            Some(f) => unsafe { f(input, out) },
            None => 0,
        }
    }
    /// The same-shape kernels compiled for AVX2 (when the CPU has it), not the explicit SIMD.
    #[cfg(test)]
    fn unpack_all_autovec(input: &[u8], width: u32, out: &mut [Self]) -> usize;
    /// Kernels for the compile-time target only.
    #[cfg(test)]
    fn unpack_all_baseline(input: &[u8], width: u32, out: &mut [Self]) -> usize;
    fn pack_all(values: &[Self], width: u32, out: &mut Vec<u8>) -> usize;
    fn pack_all_baseline(values: &[Self], width: u32, out: &mut Vec<u8>) -> usize;
}

/// Whether the kernels run at a level with AVX2 ([`crate::kernels::simd::level`], never above
/// what the CPU has; always false under Miri, which cannot run the intrinsics).
/// Probes: `kernels.bitpack.avx2` / `kernels.bitpack.scalar` count the calls that chose
/// AVX2 kernels and portable ones.
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx2() -> bool {
    let yes = crate::kernels::simd::level().has_avx2();
    crate::probe::hit(if yes {
        "kernels.bitpack.avx2"
    } else {
        "kernels.bitpack.scalar"
    });
    yes
}

#[cfg(target_arch = "x86_64")]
use simd_u32::all as simd_all_u32;

#[cfg(all(target_arch = "aarch64", not(miri)))]
use neon_u32::all as neon_all_u32;

/// Whether the kernels run at the NEON level. Probe: `kernels.bitpack.neon`. Only `u32` has
/// explicit NEON kernels; the other types run the portable kernels, which LLVM vectorises
/// with NEON (part of the aarch64 baseline) at either level.
#[cfg(all(target_arch = "aarch64", not(miri)))]
#[inline]
fn has_neon() -> bool {
    let yes = crate::kernels::simd::level().has_neon();
    crate::probe::hit(if yes {
        "kernels.bitpack.neon"
    } else {
        "kernels.bitpack.scalar"
    });
    yes
}

kernels!(u8, 8, unpack_group_u8, pack_group_u8, unpack_all_u8, pack_all_u8,
    unpack_avx2_u8, unpack_avx2_w_u8, pack_avx2_u8, unpack_avx2_w_u8, unpack_all_u8, U8, [1 2 3 4 5 6 7 8]);
kernels!(u16, 16, unpack_group_u16, pack_group_u16, unpack_all_u16, pack_all_u16,
    unpack_avx2_u16, unpack_avx2_w_u16, pack_avx2_u16, unpack_avx2_w_u16, unpack_all_u16, U16,
    [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16]);
kernels!(u32, 32, unpack_group_u32, pack_group_u32, unpack_all_u32, pack_all_u32,
    unpack_avx2_u32, unpack_avx2_w_u32, pack_avx2_u32, simd_all_u32, neon_all_u32, U32,
    [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32]);
kernels!(u64, 64, unpack_group_u64, pack_group_u64, unpack_all_u64, pack_all_u64,
    unpack_avx2_u64, unpack_avx2_w_u64, pack_avx2_u64, unpack_avx2_w_u64, unpack_all_u64, U64,
    [1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32
     33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63 64]);

/// The byte-shuffle and shift tables of the explicit SIMD unpackers into `u32` (AVX2 and
/// NEON): see [`simd_u32`] for the shape. Index bytes of `0x80` select zero on both (`vpshufb`
/// by the high bit, `tbl` for any index past 15).
#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod window_tables {
    /// Shuffle and shift tables of one width.
    pub(super) struct Tables {
        /// Per 128-bit lane: bytes `b_j - base .. + 4` into 32-bit lane `j` (0x80: zero).
        pub(super) shuf: [u8; 32],
        /// `s_j`.
        pub(super) shift: [u32; 8],
        /// Byte `b_j - base + 4` into the low byte of lane `j` where `s_j + W > 32`.
        pub(super) shuf5: [u8; 32],
        /// `32 - s_j` where the fifth byte is needed (else any: its shuffle gives 0).
        pub(super) shift5: [u32; 8],
        /// Whether any lane needs a fifth byte.
        pub(super) wide: bool,
        /// `W` low bits set.
        pub(super) mask: u32,
    }

    pub(super) const fn tables(w: usize) -> Tables {
        let mut t = Tables {
            shuf: [0x80; 32],
            shift: [0; 8],
            shuf5: [0x80; 32],
            shift5: [0; 8],
            wide: false,
            mask: if w >= 32 { u32::MAX } else { (1u32 << w) - 1 },
        };
        let half = (4 * w) / 8;
        let mut j = 0;
        while j < 8 {
            let bit = j * w;
            let base = if j < 4 { 0 } else { half };
            let b = bit / 8 - base;
            let s = bit % 8;
            let lane = (j % 4) * 4 + (j / 4) * 16;
            let mut k = 0;
            while k < 4 {
                if b + k < 16 {
                    t.shuf[lane + k] = (b + k) as u8;
                }
                k += 1;
            }
            t.shift[j] = s as u32;
            if s + w > 32 {
                // The value's last bit is at most bit 127 of the window (see above).
                t.shuf5[lane] = (b + 4) as u8;
                t.shift5[j] = (32 - s) as u32;
                t.wide = true;
            }
            j += 1;
        }
        t
    }
}

/// Explicit AVX2 unpacking into `u32`, 8 values per 256-bit vector.
///
/// A group of 8 values of width `W` is `W` bytes; value `j` starts at bit `j * W`, i.e. byte
/// `b_j = j * W / 8`, bit `s_j = j * W % 8`. Values 0..4 lie in the 16 bytes from the group
/// start, values 4..8 in the 16 bytes from byte `b_4 = W / 2` (4 values span at most
/// `4 + 4 * 31 = 128` bits, or exactly 128 at `W = 32`). One load puts the two 16-byte windows
/// in the two 128-bit lanes; a byte shuffle (`vpshufb`) moves bytes `b_j..b_j + 4` of each
/// window into 32-bit lane `j`, a per-lane shift (`vpsrlvd`) by `s_j` and a mask finish the
/// value. When `s_j + W > 32` (only for `W >= 26`) the value has a fifth byte: a second shuffle
/// puts byte `b_j + 4` at the bottom of the lane and a left shift by `32 - s_j` brings it in.
/// Widths 8, 16 and 32 are plain widenings / copies. The tables are constants per `W`.
///
/// Loads read up to 16 bytes from `b_4` of a group, so they may run past the group's own `W`
/// bytes: only groups whose loads stay inside `input` are done here; the rest go to the
/// scalar-shaped kernels.
#[cfg(target_arch = "x86_64")]
mod simd_u32 {
    use std::arch::x86_64::*;

    use super::window_tables::tables;

    /// Unpack the whole groups of 8 whose 16-byte window loads stay inside `input`, at most
    /// `out.len() / 8` of them; returns values written.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2. `W` is in `1..=32`.
    #[target_feature(enable = "avx2")]
    unsafe fn groups<const W: usize>(input: &[u8], out: &mut [u32]) -> usize {
        let t = const { tables(W) };
        let half = (4 * W) / 8;
        // Group `g` loads bytes `[g * W, g * W + 16)` and `[g * W + half, g * W + half + 16)`;
        // `half <= 16`, so the second ends last. `g < fit` keeps it within `input`.
        let fit = match input.len().checked_sub(half + 16) {
            Some(room) => room / W + 1,
            None => 0,
        };
        let n = fit.min(out.len() / 8);
        let src = input.as_ptr();
        let dst = out.as_mut_ptr();
        // SAFETY: the table reads are 32-byte unaligned loads of 32-byte arrays.
        let (shuf, shift, shuf5, shift5) = unsafe {
            (
                _mm256_loadu_si256(t.shuf.as_ptr().cast()),
                _mm256_loadu_si256(t.shift.as_ptr().cast()),
                _mm256_loadu_si256(t.shuf5.as_ptr().cast()),
                _mm256_loadu_si256(t.shift5.as_ptr().cast()),
            )
        };
        let mask = _mm256_set1_epi32(t.mask as i32);
        for g in 0..n {
            // SAFETY: `g < fit`, so `g * W + half + 16 <= input.len()`: both 16-byte loads are
            // inside `input` (the first ends at `g * W + 16 <= g * W + half + 16`). `g <
            // out.len() / 8`, so the 32-byte store to `out[8 * g..8 * g + 8]` is inside `out`.
            // Unaligned loads/stores have no alignment requirement; AVX2 is the caller's
            // contract.
            unsafe {
                let p = src.add(g * W);
                let v = _mm256_loadu2_m128i(p.add(half).cast(), p.cast());
                let mut x = _mm256_srlv_epi32(_mm256_shuffle_epi8(v, shuf), shift);
                if t.wide {
                    let hi = _mm256_sllv_epi32(_mm256_shuffle_epi8(v, shuf5), shift5);
                    x = _mm256_or_si256(x, hi);
                }
                if W < 32 {
                    x = _mm256_and_si256(x, mask);
                }
                _mm256_storeu_si256(dst.add(8 * g).cast(), x);
            }
        }
        8 * n
    }

    /// Widen bytes (`W = 8`) or 16-bit words (`W = 16`) to `u32`, 8 at a time; returns values
    /// written (whole groups of 8 that `input` covers).
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2. `W` is 8 or 16.
    #[target_feature(enable = "avx2")]
    unsafe fn widen<const W: usize>(input: &[u8], out: &mut [u32]) -> usize {
        let n = (input.len() / W).min(out.len() / 8);
        let src = input.as_ptr();
        let dst = out.as_mut_ptr();
        for g in 0..n {
            // SAFETY: `g < input.len() / W`: the `W`-byte load at `g * W` is inside `input`;
            // `g < out.len() / 8`: the 32-byte store at `out[8 * g]` is inside `out`. AVX2 is
            // the caller's contract; unaligned accesses need no alignment.
            unsafe {
                let p = src.add(g * W);
                let x = if W == 8 {
                    _mm256_cvtepu8_epi32(_mm_loadl_epi64(p.cast()))
                } else {
                    _mm256_cvtepu16_epi32(_mm_loadu_si128(p.cast()))
                };
                _mm256_storeu_si256(dst.add(8 * g).cast(), x);
            }
        }
        8 * n
    }

    /// All whole groups at const width `W`: explicit SIMD first, then the scalar-shaped kernels
    /// (compiled here with AVX2) for groups too close to the end of `input` for the 16-byte
    /// loads.
    ///
    /// # Safety
    ///
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn all<const W: usize>(input: &[u8], out: &mut [u32]) -> usize {
        let done = if W == 32 {
            let n = (input.len() / 4).min(out.len()) / 8 * 8;
            for (o, c) in out[..n].iter_mut().zip(input.chunks_exact(4)) {
                *o = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
            }
            n
        } else if W == 8 || W == 16 {
            // SAFETY: AVX2 is this function's contract; W is 8 or 16.
            unsafe { widen::<W>(input, out) }
        } else {
            // SAFETY: AVX2 is this function's contract; W is in 1..=31.
            unsafe { groups::<W>(input, out) }
        };
        if out.len() - done < 8 {
            // No whole group left (the usual case).
            return done;
        }
        let rest_in = input.get(done / 8 * W..).unwrap_or(&[]);
        let rest_out = out.get_mut(done..).unwrap_or(&mut []);
        done + super::unpack_all_u32::<W>(rest_in, rest_out)
    }
}

/// Explicit NEON unpacking into `u32`: the AVX2 kernel's shape on two 128-bit vectors per
/// group of 8 (see [`simd_u32`]): the two 16-byte windows are loaded separately, `tbl` moves
/// the bytes of each value into its 32-bit lane, `ushl` by a negative count shifts each lane
/// right by its own `s_j`, and a mask finishes it (a second lookup and left shift bring in a
/// fifth byte for `W >= 26`). Widths 8, 16 and 32, which LLVM widens well on its own, take the
/// portable kernels.
#[cfg(all(target_arch = "aarch64", not(miri)))]
mod neon_u32 {
    use std::arch::aarch64::*;

    use super::window_tables::tables;

    /// Unpack the whole groups of 8 whose 16-byte window loads stay inside `input`, at most
    /// `out.len() / 8` of them; returns values written.
    ///
    /// # Safety
    ///
    /// `W` is in `1..=31`.
    #[target_feature(enable = "neon")]
    unsafe fn groups<const W: usize>(input: &[u8], out: &mut [u32]) -> usize {
        let t = const { tables(W) };
        let half = (4 * W) / 8;
        // As in the AVX2 kernel: group `g` reads `[g * W, g * W + 16)` and
        // `[g * W + half, g * W + half + 16)`, and `g < fit` keeps both inside `input`.
        let fit = match input.len().checked_sub(half + 16) {
            Some(room) => room / W + 1,
            None => 0,
        };
        let n = fit.min(out.len() / 8);
        let src = input.as_ptr();
        let dst = out.as_mut_ptr();
        // SAFETY: the table loads read 16 bytes inside 32-byte (or 8 x u32) arrays.
        let (shuf, shift, shuf5, shift5) = unsafe {
            (
                [vld1q_u8(t.shuf.as_ptr()), vld1q_u8(t.shuf.as_ptr().add(16))],
                [
                    vnegq_s32(vreinterpretq_s32_u32(vld1q_u32(t.shift.as_ptr()))),
                    vnegq_s32(vreinterpretq_s32_u32(vld1q_u32(t.shift.as_ptr().add(4)))),
                ],
                [
                    vld1q_u8(t.shuf5.as_ptr()),
                    vld1q_u8(t.shuf5.as_ptr().add(16)),
                ],
                [
                    vreinterpretq_s32_u32(vld1q_u32(t.shift5.as_ptr())),
                    vreinterpretq_s32_u32(vld1q_u32(t.shift5.as_ptr().add(4))),
                ],
            )
        };
        let mask = vdupq_n_u32(t.mask);
        for g in 0..n {
            for h in 0..2 {
                // SAFETY: `g < fit`, so both 16-byte loads (at `g * W` and `g * W + half`) are
                // inside `input`; `g < out.len() / 8`, so the 16-byte store to
                // `out[8 * g + 4 * h..][..4]` is inside `out`.
                unsafe {
                    let v = vld1q_u8(src.add(g * W + h * half));
                    let x = vreinterpretq_u32_u8(vqtbl1q_u8(v, shuf[h]));
                    let mut x = vshlq_u32(x, shift[h]);
                    if t.wide {
                        let y = vreinterpretq_u32_u8(vqtbl1q_u8(v, shuf5[h]));
                        x = vorrq_u32(x, vshlq_u32(y, shift5[h]));
                    }
                    vst1q_u32(dst.add(8 * g + 4 * h), vandq_u32(x, mask));
                }
            }
        }
        8 * n
    }

    /// All whole groups at const width `W`: explicit NEON first, then the portable kernels
    /// for widths 8, 16, 32 and for groups too close to the end of `input`.
    ///
    /// # Safety
    ///
    /// None beyond the slices (NEON is part of every aarch64 CPU); `unsafe` to match the
    /// other group kernels.
    #[target_feature(enable = "neon")]
    pub(super) unsafe fn all<const W: usize>(input: &[u8], out: &mut [u32]) -> usize {
        let done = if matches!(W, 8 | 16 | 32) {
            0
        } else {
            // SAFETY: W is in 1..=31.
            unsafe { groups::<W>(input, out) }
        };
        if out.len() - done < 8 {
            return done;
        }
        let rest_in = input.get(done / 8 * W..).unwrap_or(&[]);
        let rest_out = out.get_mut(done..).unwrap_or(&mut []);
        done + super::unpack_all_u32::<W>(rest_in, rest_out)
    }
}

/// A whole-group unpack kernel: unpacks the whole groups of `out` that `input` covers and
/// returns how many values it wrote (see [`unpack_groups`]).
///
/// `unsafe` because the function may be compiled for CPU features beyond the target's (AVX2):
/// it may only be called on a CPU that has them.
type GroupFn<T> = unsafe fn(&[u8], &mut [T]) -> usize;

/// A [`GroupFn`] of one of the four types.
#[derive(Clone, Copy)]
enum AnyGroupFn {
    U8(GroupFn<u8>),
    U16(GroupFn<u16>),
    U32(GroupFn<u32>),
    U64(GroupFn<u64>),
}

/// The unpack kernel of one type and bit width, chosen once for this CPU: for callers that
/// unpack many short stretches at the same width (the bit-packed runs of a hybrid stream), so
/// that width and CPU dispatch are paid once rather than per stretch.
#[derive(Clone, Copy)]
pub struct Unpacker<T> {
    /// Invariant: chosen by `Kernel::unpack_fn` on this CPU, so this CPU has the features it
    /// was compiled for.
    f: AnyGroupFn,
    width: u32,
    _t: std::marker::PhantomData<fn(&mut [T])>,
}

impl<T: BitPackable> std::fmt::Debug for Unpacker<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Unpacker")
            .field("bits", &T::BITS)
            .field("width", &self.width)
            .finish()
    }
}

impl<T: BitPackable> Unpacker<T> {
    /// The kernel for `width`, `None` unless `1 <= width <= T::BITS`.
    pub fn new(width: u32) -> Option<Self> {
        fn pick<K: Kernel>(width: u32) -> Option<AnyGroupFn> {
            K::unpack_fn(width).map(K::wrap)
        }
        let f = match T::BITS {
            8 => pick::<u8>(width),
            16 => pick::<u16>(width),
            32 => pick::<u32>(width),
            64 => pick::<u64>(width),
            _ => None,
        }?;
        Some(Self {
            f,
            width,
            _t: std::marker::PhantomData,
        })
    }

    /// The bit width.
    pub fn width(&self) -> u32 {
        self.width
    }

    /// Unpack the whole groups of 8 (or of `T::BITS`) values of `out` that `input` covers;
    /// returns how many values were written (a multiple of 8). `input` starts at the first
    /// value; bytes past the values' `ceil(out.len() * width / 8)` are never decoded, but the
    /// SIMD kernels read up to 16 bytes ahead when `input` has them, so passing a longer `input`
    /// (the rest of the stream) lets them do more groups.
    #[inline]
    pub fn unpack(&self, input: &[u8], out: &mut [T]) -> usize {
        macro_rules! call {
            ($f:expr, $u:ty) => {
                match bytemuck::try_cast_slice_mut::<T, $u>(out) {
                    // SAFETY: by the invariant of `f`, this CPU has the features `f` was
                    // compiled for; the slices are checked by `f` itself.
                    Ok(o) => unsafe { $f(input, o) },
                    Err(_) => 0,
                }
            };
        }
        match self.f {
            AnyGroupFn::U8(f) => call!(f, u8),
            AnyGroupFn::U16(f) => call!(f, u16),
            AnyGroupFn::U32(f) => call!(f, u32),
            AnyGroupFn::U64(f) => call!(f, u64),
        }
    }
}

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
        crate::kernels::simd::for_each_level(|_| {
            check::<u8>();
            check::<u16>();
            check::<u32>();
            check::<u64>();
        });
    }

    /// Every unpack build (explicit SIMD, AVX2-compiled, baseline) against the scalar oracle,
    /// for lengths and input sizes around the edges where the 16-byte SIMD loads stop fitting.
    fn check_unpack_builds<T: BitPackable + Kernel + std::fmt::Debug + PartialEq>() {
        // Miri is ~1000x slower: there, the narrow widths, those around the half and the
        // widest, and fewer lengths.
        let half = T::BITS / 2;
        let tried = |w: u32| !cfg!(miri) || w <= 8 || w.abs_diff(half) <= 1 || w + 1 >= T::BITS;
        for w in (1..=T::BITS).filter(|&w| tried(w)) {
            let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
            let lens: &[usize] = if cfg!(miri) {
                &[8, 72]
            } else {
                &[8, 16, 24, 32, 40, 64, 96, 200, 257]
            };
            for &n in lens {
                let vals: Vec<T> = (0..n as u64)
                    .map(|i| {
                        T::from_u64(i.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29) & mask)
                    })
                    .collect();
                let mut packed = Vec::new();
                pack_scalar(&vals, w, &mut packed);
                let exact = packed.len();
                packed.extend_from_slice(&[0xa5; 40]);
                let extras: &[usize] = if cfg!(miri) {
                    &[0, 17]
                } else {
                    &[0, 1, 7, 15, 16, 17, 40]
                };
                for &extra in extras {
                    let input = &packed[..exact + extra];
                    let mut fast = vec![T::default(); n];
                    let done = T::unpack_all(input, w, &mut fast);
                    assert_eq!(done, n / 8 * 8, "{} w {w} n {n} extra {extra}", T::BITS);
                    assert_eq!(
                        fast[..done],
                        vals[..done],
                        "{} w {w} n {n} extra {extra}",
                        T::BITS
                    );
                    let mut auto = vec![T::default(); n];
                    assert_eq!(T::unpack_all_autovec(input, w, &mut auto), done);
                    assert_eq!(
                        auto[..done],
                        vals[..done],
                        "autovec {} w {w} n {n}",
                        T::BITS
                    );
                    let mut base = vec![T::default(); n];
                    assert_eq!(T::unpack_all_baseline(input, w, &mut base), done);
                    assert_eq!(
                        base[..done],
                        vals[..done],
                        "baseline {} w {w} n {n}",
                        T::BITS
                    );
                }
                // Input short of the last groups: only the covered whole groups are done.
                for cut in 1..=exact.min(if cfg!(miri) { 3 } else { 20 }) {
                    let input = &packed[..exact - cut];
                    let covered = (input.len() / w as usize * 8).min(n / 8 * 8);
                    let mut fast = vec![T::default(); n];
                    let done = T::unpack_all(input, w, &mut fast);
                    assert_eq!(done, covered, "short {} w {w} n {n} cut {cut}", T::BITS);
                    assert_eq!(fast[..done], vals[..done], "short {} w {w} n {n}", T::BITS);
                }
            }
        }
    }

    fn check_unpacker<T: BitPackable + std::fmt::Debug + PartialEq>() {
        assert!(Unpacker::<T>::new(0).is_none());
        assert!(Unpacker::<T>::new(T::BITS + 1).is_none());
        for w in 1..=T::BITS {
            let mask = if w == 64 { u64::MAX } else { (1 << w) - 1 };
            let vals: Vec<T> = (0..100u64)
                .map(|i| T::from_u64(i.wrapping_mul(0x2545_F491_4F6C_DD1D) & mask))
                .collect();
            let mut packed = Vec::new();
            pack_scalar(&vals, w, &mut packed);
            let u = Unpacker::<T>::new(w).expect("width in range");
            assert_eq!(u.width(), w);
            // Exact input, and input running on past the values (as a hybrid stream's).
            for extra in [0usize, 33] {
                packed.resize(packed.len() + extra, 0xff);
                for n in [8usize, 16, 96] {
                    let mut out = vec![T::default(); n + 3];
                    let done = u.unpack(&packed, &mut out);
                    assert_eq!(done, (n + 3) / 8 * 8);
                    assert_eq!(out[..done], vals[..done], "{} w {w} n {n}", T::BITS);
                }
            }
        }
    }

    #[test]
    fn unpacker_matches_scalar() {
        crate::kernels::simd::for_each_level(|_| {
            check_unpacker::<u8>();
            check_unpacker::<u16>();
            check_unpacker::<u32>();
            check_unpacker::<u64>();
        });
    }

    #[test]
    fn unpack_builds_match_scalar() {
        crate::kernels::simd::for_each_level(|_| {
            check_unpack_builds::<u8>();
            check_unpack_builds::<u16>();
            check_unpack_builds::<u32>();
            check_unpack_builds::<u64>();
        });
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
