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
    /// Run the loop (must be `#[inline(always)]`, or it is not compiled for AVX2).
    fn call(self) -> Self::Output;
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
    body.call()
}

/// `body.call()` compiled with the x86-64-v3 features.
///
/// # Safety
///
/// The CPU must support AVX2, BMI1, BMI2, LZCNT and POPCNT.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
unsafe fn in_v3<B: Body>(body: B) -> B::Output {
    body.call()
}
