//! Portable loops compiled a second time for the AVX2 level (x86-64-v3), chosen at run time.
//!
//! Some hot loops need no intrinsics, only the instructions the x86-64 baseline lacks: a
//! `count_ones` is one `popcnt` instead of a dozen SSE2 shifts and masks, `trailing_zeros` one
//! `tzcnt`, and 64 `i16` levels compare in four AVX2 registers instead of eight SSE2 ones. A loop
//! is a [`Body`] whose `call` is `#[inline(always)]`: [`run`] inlines it into a function
//! compiled with those features when the level has them. (A closure would not do: its body
//! is compiled once, outside, and only called.) On aarch64 the baseline already has `cnt` and
//! `rbit`/`clz`, so there the portable form is the NEON one.

/// A loop to compile at both levels: its arguments, and `call` marked `#[inline(always)]`.
pub trait Body {
    /// What the loop returns.
    type Output;
    /// Run the loop (must be `#[inline(always)]`, or it is not compiled for AVX2), building
    /// level masks with `masks`: [`Avx2`] inside the AVX2 form, [`Portable`] outside.
    fn call<M: LevelMasks>(self, masks: M) -> Self::Output;
}

/// 64 `i16` levels compared with a threshold into a mask (bit `i` for level `i`), in the form
/// the compiled level affords. Nested columns build several such masks per 64 level pairs
/// (`nested_levels`), so their cost is most of that loop's.
pub trait LevelMasks: Copy {
    /// Bit `i` set when `levels[i] >= t`.
    fn at_least(self, levels: &[i16; 64], t: i16) -> u64;
    /// Bit `i` set when `levels[i] <= t`.
    fn at_most(self, levels: &[i16; 64], t: i16) -> u64;
}

/// Masks from portable code: the comparisons into 64 bytes (a loop that vectorises), then 8
/// bytes of 0/1 packed into 8 bits with one multiply each. About 70 instructions a mask
/// compiled for x86-64-v3.
#[derive(Clone, Copy, Debug)]
pub struct Portable;

impl LevelMasks for Portable {
    #[inline(always)]
    fn at_least(self, levels: &[i16; 64], t: i16) -> u64 {
        mask64(|i| levels[i] >= t)
    }
    #[inline(always)]
    fn at_most(self, levels: &[i16; 64], t: i16) -> u64 {
        mask64(|i| levels[i] <= t)
    }
}

/// The 64-bit mask of `f(0..64)`.
#[inline(always)]
fn mask64(f: impl Fn(usize) -> bool) -> u64 {
    let mut bytes = [0u8; 64];
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = f(i) as u8;
    }
    let mut m = 0u64;
    for (k, w) in bytes.chunks_exact(8).enumerate() {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        m |= (w.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
    }
    m
}

/// Masks from AVX2 compares: four `vpcmpgtw`, two packs and two `vpmovmskb` a mask (about 16
/// instructions). A value of this type is the proof that the CPU has AVX2: only
/// [`run`] makes one, for the body it runs compiled for x86-64-v3.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[derive(Clone, Copy, Debug)]
pub struct Avx2(());

#[cfg(all(target_arch = "x86_64", not(miri)))]
impl LevelMasks for Avx2 {
    #[inline(always)]
    fn at_least(self, levels: &[i16; 64], t: i16) -> u64 {
        match t.checked_sub(1) {
            // SAFETY: an `Avx2` exists only where the CPU has AVX2 (see the type).
            Some(below) => unsafe { compare_avx2::<true>(levels, below) },
            None => u64::MAX,
        }
    }
    #[inline(always)]
    fn at_most(self, levels: &[i16; 64], t: i16) -> u64 {
        // `levels[i] <= t` as `t + 1 > levels[i]`, not as the complement of `levels[i] > t`:
        // LLVM rewrote `!movemask` into 64 single-bit extracts and inserts (about 300
        // instructions a mask, most of `list_offsets`).
        match t.checked_add(1) {
            // SAFETY: an `Avx2` exists only where the CPU has AVX2 (see the type).
            Some(above) => unsafe { compare_avx2::<false>(levels, above) },
            None => u64::MAX,
        }
    }
}

/// Bit `i` set when `levels[i] > t` (`ABOVE`) or when `t > levels[i]` (not `ABOVE`). Inlined
/// into the AVX2 form of a body (where the intrinsics inline too).
///
/// # Safety
///
/// The CPU must support AVX2.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
unsafe fn compare_avx2<const ABOVE: bool>(levels: &[i16; 64], t: i16) -> u64 {
    use std::arch::x86_64::*;
    let p = levels.as_ptr().cast::<__m256i>();
    // SAFETY: `levels` holds 64 `i16`s, four unaligned 32-byte loads; the CPU has AVX2 (the
    // caller's contract).
    unsafe {
        let t = _mm256_set1_epi16(t);
        let g = |k: usize| {
            let v = _mm256_loadu_si256(p.add(k));
            if ABOVE {
                _mm256_cmpgt_epi16(v, t)
            } else {
                _mm256_cmpgt_epi16(t, v)
            }
        };
        // Packing two compares (0 or -1 per lane) saturates them to bytes, 128-bit lane by
        // lane: [a0-7, b0-7 | a8-15, b8-15]; the permute restores the order a0-15, b0-15.
        let low = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(g(0), g(1)));
        let high = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packs_epi16(g(2), g(3)));
        (_mm256_movemask_epi8(low) as u32 as u64)
            | ((_mm256_movemask_epi8(high) as u32 as u64) << 32)
    }
}

/// Run `body` compiled for x86-64-v3 (AVX2, BMI1/2, LZCNT, POPCNT) when
/// [`super::simd::level`] has AVX2, else as it is; bumps probe `avx2` or `portable` (named
/// by the caller, e.g. `kernels.list_offsets.avx2` / `kernels.list_offsets.scalar`).
#[inline(always)]
pub fn run<B: Body>(avx2: &'static str, portable: &'static str, body: B) -> B::Output {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if super::simd::level().has_avx2() {
        crate::probe::hit(avx2);
        // SAFETY: the level is never above what the CPU has (`simd::level`), and every level
        // with AVX2 includes BMI1, BMI2, LZCNT and POPCNT (`Level::Avx2`), which `in_v3` needs.
        return unsafe { in_v3(body) };
    }
    let _ = avx2;
    crate::probe::hit(portable);
    body.call(Portable)
}

/// `body.call()` compiled with the x86-64-v3 features.
///
/// # Safety
///
/// The CPU must support AVX2, BMI1, BMI2, LZCNT and POPCNT.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn in_v3<B: Body>(body: B) -> B::Output {
    // This function's contract is that the CPU has AVX2: the proof `Avx2` stands for.
    body.call(Avx2(()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernels::simd::{available, with_level};

    /// Masks of `levels` against `t` through `run`, at the level in force.
    fn masks(levels: &[i16; 64], t: i16) -> (u64, u64) {
        struct Masks<'a>(&'a [i16; 64], i16);
        impl Body for Masks<'_> {
            type Output = (u64, u64);
            #[inline(always)]
            fn call<M: LevelMasks>(self, m: M) -> (u64, u64) {
                (m.at_least(self.0, self.1), m.at_most(self.0, self.1))
            }
        }
        run("test.masks.avx2", "test.masks.scalar", Masks(levels, t))
    }

    #[test]
    fn level_masks_agree_with_comparisons_at_every_level() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let rounds = if cfg!(miri) { 12 } else { 200 };
        for round in 0..rounds {
            let levels: [i16; 64] = std::array::from_fn(|_| match round % 3 {
                0 => (next() % 4) as i16,
                1 => next() as i16,
                _ => [i16::MIN, i16::MAX, -1, 0, 1][(next() % 5) as usize],
            });
            for t in [
                i16::MIN,
                i16::MIN + 1,
                -1,
                0,
                1,
                2,
                3,
                i16::MAX - 1,
                i16::MAX,
            ] {
                let want = (0..64).fold((0u64, 0u64), |(ge, le), i| {
                    (
                        ge | ((levels[i] >= t) as u64) << i,
                        le | ((levels[i] <= t) as u64) << i,
                    )
                });
                for level in available() {
                    let got = with_level(level, || masks(&levels, t)).unwrap();
                    assert_eq!(got, want, "{level} t {t} {levels:?}");
                }
            }
        }
    }

    #[test]
    fn the_avx2_form_runs_where_the_level_has_avx2() {
        if !crate::probe::ENABLED {
            return;
        }
        for level in available() {
            with_level(level, || {
                crate::probe::reset();
                masks(&[1; 64], 1);
                let avx2 = cfg!(all(target_arch = "x86_64", not(miri))) && level.has_avx2();
                assert_eq!(crate::probe::get("test.masks.avx2"), avx2 as u64, "{level}");
                assert_eq!(
                    crate::probe::get("test.masks.scalar"),
                    !avx2 as u64,
                    "{level}"
                );
            })
            .unwrap();
        }
    }
}
