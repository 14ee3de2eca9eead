//! Parallel bit extract (`pext`): gather the bits of a word selected by a mask into its low
//! bits. Nested levels use it to compact a 64-level word of validity bits down to the levels
//! that are slots. BMI2 has it as one instruction (fast on Intel since Haswell and AMD since
//! Zen 3); elsewhere a loop over the mask's set bits does the same.

/// A `pext` implementation: `(value, mask) -> bits of value under mask, packed low`.
pub type PextFn = fn(u64, u64) -> u64;

/// The fastest `pext` this CPU runs. Detect once per slice, not per word.
///
/// BMI2 is part of the AVX2 level ([`crate::kernels::simd`]): at the scalar level (or on
/// other CPUs) the portable loop runs.
///
/// Probes: `kernels.pext.avx2` (BMI2) / `kernels.pext.scalar`, once per call.
pub fn pext_fn() -> PextFn {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if super::simd::level().has_avx2() {
        crate::probe::hit("kernels.pext.avx2");
        return pext_bmi2_checked;
    }
    crate::probe::hit("kernels.pext.scalar");
    pext_portable
}

/// `pext` one set bit at a time.
pub fn pext_portable(value: u64, mut mask: u64) -> u64 {
    let mut out = 0u64;
    let mut k = 0;
    while mask != 0 {
        let low = mask & mask.wrapping_neg();
        out |= ((value & low != 0) as u64) << k;
        k += 1;
        mask ^= low;
    }
    out
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn pext_bmi2_checked(value: u64, mask: u64) -> u64 {
    // SAFETY: `pext_fn` hands this function out only at a level with BMI2, which is never
    // above what the CPU has.
    unsafe { pext_bmi2(value, mask) }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "bmi2")]
unsafe fn pext_bmi2(value: u64, mask: u64) -> u64 {
    core::arch::x86_64::_pext_u64(value, mask)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn every_level_matches_portable(v: u64, m: u64) {
            crate::kernels::simd::for_each_level(|_| assert_eq!(pext_fn()(v, m), pext_portable(v, m)));
        }
    }

    #[test]
    fn edges() {
        assert_eq!(pext_portable(u64::MAX, 0), 0);
        assert_eq!(pext_portable(0b1010, 0b1110), 0b101);
        assert_eq!(pext_fn()(u64::MAX, u64::MAX), u64::MAX);
    }
}
