//! Shared helpers for parq's criterion benches: a deterministic PRNG, the row count, and where
//! results go. The benches themselves live in `benches/*.rs`; `src/bin/ratios.rs` turns
//! criterion's output into a table of parq-vs-peer ratios.

use std::path::PathBuf;

/// Rows per generated column unless `PARQ_BENCH_ROWS` says otherwise.
pub const DEFAULT_ROWS: usize = 1_000_000;

/// The row count for generated data: `PARQ_BENCH_ROWS` or [`DEFAULT_ROWS`].
pub fn rows() -> usize {
    std::env::var("PARQ_BENCH_ROWS")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(DEFAULT_ROWS)
}

/// Whether `PARQ_BENCH_FULL` asks for the full cross product of cases rather than the default
/// subset.
pub fn full() -> bool {
    std::env::var_os("PARQ_BENCH_FULL").is_some_and(|v| v != "0")
}

/// The directory criterion writes to, found the way criterion finds it: `CRITERION_HOME`,
/// else `$CARGO_TARGET_DIR/criterion`, else the workspace's `target/criterion`.
pub fn criterion_dir() -> PathBuf {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return PathBuf::from(home);
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return PathBuf::from(target).join("criterion");
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("target")
        .join("criterion")
}

/// File (JSON lines) where the write bench records output sizes, read by `ratios`.
pub fn sizes_file() -> PathBuf {
    criterion_dir().join("parq-write-sizes.jsonl")
}

/// A small deterministic PRNG (xorshift64*), so the benches need no `rand` and every run sees
/// the same data.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator seeded with `seed` (any value, 0 included).
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// The next 32 random bits.
    #[inline]
    pub fn next_u32(&mut self) -> u32 {
        (self.next_u64() >> 32) as u32
    }

    /// Uniform in `0..n` (`n > 0`; the slight modulo bias does not matter here).
    #[inline]
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// Uniform in `lo..=hi`.
    #[inline]
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below((hi - lo + 1) as u64) as usize
    }

    /// True with probability `p`.
    #[inline]
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < p
    }

    /// A uniform double in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

/// A random lower-case ASCII string of length `lo..=hi`.
pub fn random_string(rng: &mut Rng, lo: usize, hi: usize) -> String {
    let len = rng.range(lo, hi);
    (0..len)
        .map(|_| (b'a' + rng.below(26) as u8) as char)
        .collect()
}

/// A validity mask of `n` slots with about `null_fraction` nulls, drawn independently per slot
/// (so nulls come in the short runs real data tends to have at low rates).
pub fn validity(rng: &mut Rng, n: usize, null_fraction: f64) -> Vec<bool> {
    (0..n).map(|_| !rng.chance(null_fraction)).collect()
}
