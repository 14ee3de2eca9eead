//! CPU dispatch levels: which instruction set the kernels use, detected once and forceable.
//!
//! Every kernel with a vector form asks [`level`] which one to run, so one machine can run,
//! test and bench every level it has: [`Level::Scalar`] (portable code only, what any CPU
//! runs), [`Level::Avx2`] (x86-64-v3: AVX2, BMI1/2, FMA, LZCNT, POPCNT), [`Level::Avx512`]
//! (x86-64-v4: AVX-512 F/BW/VL/DQ on top of AVX2) and [`Level::Neon`] (aarch64).
//!
//! The level is, first found first:
//! 1. the level of the current thread set by [`with_level`] (tests, benches);
//! 2. the process-wide level set by [`force`];
//! 3. the environment variable `PARQ_SIMD=scalar|avx2|avx512|neon`, read once. A level the
//!    CPU lacks *clamps* to the best one below it that it has (`avx512` on an AVX2 machine
//!    runs AVX2; `neon` on x86 and `avx2` on aarch64 run scalar), so the same CI command works
//!    on any machine; an unknown name is ignored;
//! 4. the best level the CPU has ([`detected`]).
//!
//! [`force`] and [`with_level`] never go above the CPU: they return [`Unsupported`] instead.
//! Under Miri the CPU has only [`Level::Scalar`].
//!
//! Whatever the level, results are bit-identical: the levels differ only in speed. Kernels
//! name the level they ran in their probes (`kernels.scatter.avx2`, `kernels.unpack.scalar`).

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction-set level the kernels can run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    /// Portable code only (compiled for the target's baseline, e.g. SSE2 on x86-64).
    Scalar,
    /// x86-64-v3: AVX2 with BMI1, BMI2, FMA, LZCNT and POPCNT.
    Avx2,
    /// x86-64-v4: AVX-512 F, BW, VL and DQ, on top of everything in [`Level::Avx2`].
    Avx512,
    /// aarch64 Advanced SIMD (NEON, part of every aarch64 CPU).
    Neon,
}

impl Level {
    /// Every level, lowest first per architecture.
    pub const ALL: [Level; 4] = [Level::Scalar, Level::Avx2, Level::Avx512, Level::Neon];

    /// The name `PARQ_SIMD` accepts and probes use: `scalar`, `avx2`, `avx512`, `neon`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Scalar => "scalar",
            Level::Avx2 => "avx2",
            Level::Avx512 => "avx512",
            Level::Neon => "neon",
        }
    }

    /// The level called `name` (ASCII case ignored), `None` for an unknown name.
    pub fn from_name(name: &str) -> Option<Level> {
        Level::ALL
            .into_iter()
            .find(|l| l.name().eq_ignore_ascii_case(name.trim()))
    }

    /// True when this level includes AVX2 and BMI2 (the AVX2 and AVX-512 levels).
    #[inline]
    pub fn has_avx2(self) -> bool {
        matches!(self, Level::Avx2 | Level::Avx512)
    }

    /// True for the AVX-512 level.
    #[inline]
    pub fn has_avx512(self) -> bool {
        self == Level::Avx512
    }

    /// True for the NEON level.
    #[inline]
    pub fn has_neon(self) -> bool {
        self == Level::Neon
    }

    /// Whether this CPU can run the level.
    pub fn is_supported(self) -> bool {
        match self {
            Level::Scalar => true,
            Level::Avx2 => cpu_has_avx2(),
            Level::Avx512 => cpu_has_avx2() && cpu_has_avx512(),
            Level::Neon => cpu_has_neon(),
        }
    }

    /// The best level this CPU has that is no higher than `self` (see the module docs).
    pub fn clamp_to_cpu(self) -> Level {
        match self {
            Level::Avx512 if Level::Avx512.is_supported() => Level::Avx512,
            Level::Avx512 | Level::Avx2 if Level::Avx2.is_supported() => Level::Avx2,
            Level::Neon if Level::Neon.is_supported() => Level::Neon,
            _ => Level::Scalar,
        }
    }

    fn code(self) -> u8 {
        match self {
            Level::Scalar => 1,
            Level::Avx2 => 2,
            Level::Avx512 => 3,
            Level::Neon => 4,
        }
    }

    fn from_code(code: u8) -> Option<Level> {
        Level::ALL.into_iter().find(|l| l.code() == code)
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A level was asked for that this CPU cannot run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsupported(pub Level);

impl fmt::Display for Unsupported {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "this CPU cannot run the {} level", self.0)
    }
}

impl std::error::Error for Unsupported {}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn cpu_has_avx2() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx2") && has!("bmi1") && has!("bmi2") && has!("fma") && has!("lzcnt") && has!("popcnt")
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
fn cpu_has_avx512() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx512f") && has!("avx512bw") && has!("avx512vl") && has!("avx512dq")
}

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
fn cpu_has_avx2() -> bool {
    false
}

#[cfg(not(all(target_arch = "x86_64", not(miri))))]
fn cpu_has_avx512() -> bool {
    false
}

fn cpu_has_neon() -> bool {
    cfg!(all(
        target_arch = "aarch64",
        target_feature = "neon",
        not(miri)
    ))
}

/// Every level this CPU can run, lowest first: `[Scalar]`, `[Scalar, Avx2]`,
/// `[Scalar, Avx2, Avx512]` or `[Scalar, Neon]`. Tests loop over it.
pub fn available() -> Vec<Level> {
    Level::ALL
        .into_iter()
        .filter(|l| l.is_supported())
        .collect()
}

/// The best level this CPU has.
pub fn detected() -> Level {
    [Level::Avx512, Level::Avx2, Level::Neon]
        .into_iter()
        .find(|l| l.is_supported())
        .unwrap_or(Level::Scalar)
}

/// The process-wide level (a [`Level::code`]), 0 until first asked for.
static GLOBAL: AtomicU8 = AtomicU8::new(0);

thread_local! {
    /// This thread's level set by [`with_level`] (a code), 0 for none.
    static THREAD: Cell<u8> = const { Cell::new(0) };
}

/// The level from `PARQ_SIMD`, clamped to the CPU, or the detected one.
fn from_env() -> Level {
    std::env::var("PARQ_SIMD")
        .ok()
        .and_then(|v| Level::from_name(&v))
        .map_or_else(detected, Level::clamp_to_cpu)
}

fn global() -> Level {
    if let Some(l) = Level::from_code(GLOBAL.load(Ordering::Relaxed)) {
        return l;
    }
    let l = from_env();
    // A racing `force` wins: only replace "not yet set".
    let _ = GLOBAL.compare_exchange(0, l.code(), Ordering::Relaxed, Ordering::Relaxed);
    Level::from_code(GLOBAL.load(Ordering::Relaxed)).unwrap_or(l)
}

/// The level kernels run at on this thread now (see the module docs for the order).
#[inline]
pub fn level() -> Level {
    match Level::from_code(THREAD.with(Cell::get)) {
        Some(l) => l,
        None => global(),
    }
}

/// Set the process-wide level (overrides `PARQ_SIMD`). Errors, changing nothing, if this CPU
/// cannot run `level`.
pub fn force(level: Level) -> Result<(), Unsupported> {
    if !level.is_supported() {
        return Err(Unsupported(level));
    }
    GLOBAL.store(level.code(), Ordering::Relaxed);
    Ok(())
}

/// Run `f` with this thread's kernels at `level` (other threads are not affected; the
/// previous level is restored afterwards, also if `f` panics). Errors, without running `f`,
/// if this CPU cannot run `level`.
pub fn with_level<R>(level: Level, f: impl FnOnce() -> R) -> Result<R, Unsupported> {
    if !level.is_supported() {
        return Err(Unsupported(level));
    }
    struct Restore(u8);
    impl Drop for Restore {
        fn drop(&mut self) {
            THREAD.with(|t| t.set(self.0));
        }
    }
    let _restore = Restore(THREAD.with(|t| t.replace(level.code())));
    Ok(f())
}

/// Run `f` once at every level this CPU has (see [`available`]), passing the level: the
/// loop every kernel test uses to compare the levels with the scalar reference.
pub fn for_each_level(mut f: impl FnMut(Level)) {
    for l in available() {
        // `available` lists only supported levels, so this cannot fail.
        let _ = with_level(l, || f(l));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for l in Level::ALL {
            assert_eq!(Level::from_name(l.name()), Some(l));
            assert_eq!(l.to_string(), l.name());
        }
        assert_eq!(Level::from_name(" AVX2 "), Some(Level::Avx2));
        assert_eq!(Level::from_name("sse9"), None);
    }

    #[test]
    fn never_above_the_cpu() {
        let have = available();
        assert_eq!(have[0], Level::Scalar);
        assert!(have.contains(&detected()));
        for l in Level::ALL {
            assert!(have.contains(&l.clamp_to_cpu()), "{l}");
            assert_eq!(l.is_supported(), have.contains(&l));
            if !l.is_supported() {
                assert_eq!(with_level(l, || ()), Err(Unsupported(l)));
                assert_eq!(force(l), Err(Unsupported(l)));
            }
        }
        assert_eq!(Level::Scalar.clamp_to_cpu(), Level::Scalar);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(Level::Neon.clamp_to_cpu(), Level::Scalar);
    }

    #[test]
    fn thread_level_is_scoped() {
        let outer = level();
        let mut seen = Vec::new();
        for_each_level(|l| {
            assert_eq!(level(), l);
            seen.push(l);
        });
        assert_eq!(seen, available());
        assert_eq!(level(), outer);
        let r = std::panic::catch_unwind(|| {
            with_level(Level::Scalar, || panic!("inside")).ok();
        });
        assert!(r.is_err());
        assert_eq!(level(), outer, "restored after a panic");
        // Another thread keeps the process-wide level.
        with_level(Level::Scalar, || {
            let other = std::thread::spawn(level).join().unwrap();
            assert_eq!(other, global());
        })
        .unwrap();
    }
}
