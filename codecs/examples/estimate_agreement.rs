//! How often does the plain-vs-dictionary estimate agree with the real outcome?
//!
//! For a set of column shapes (the write benchmarks' data and cardinality sweeps around the
//! break-even point) this prints the estimate's decision next to the exact answer: the
//! dictionary wins when its PLAIN page plus bit-packed indices is smaller than PLAIN.
//!
//! `cargo run --release -p parq-format-codecs --example estimate_agreement`

use std::collections::HashSet;

use parq_codecs::encoding::bitpack::bit_width;
use parq_codecs::encoding::dictionary::{estimate_byte_arrays_with, estimate_fixed};

const N: usize = 1_000_000;

/// A small deterministic generator (xorshift*), so runs are comparable.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn exact_fixed<T: bytemuck::Pod>(values: &[T]) -> bool {
    let distinct: HashSet<&[u8]> = values.iter().map(bytemuck::bytes_of).collect();
    let w = std::mem::size_of::<T>();
    let dict = distinct.len() * w;
    let indices = values.len() * bit_width(distinct.len().saturating_sub(1) as u64) as usize / 8;
    dict + indices < std::mem::size_of_val(values)
}

fn exact_bytes(values: &[Vec<u8>]) -> bool {
    let distinct: HashSet<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
    let dict: usize = distinct.iter().map(|v| v.len() + 4).sum();
    let plain: usize = values.iter().map(|v| v.len() + 4).sum();
    let indices = values.len() * bit_width(distinct.len().saturating_sub(1) as u64) as usize / 8;
    dict + indices < plain
}

fn main() {
    let mut rng = Rng(0x1234_5678);
    let mut rows: Vec<(String, bool, bool)> = Vec::new();
    let mut fixed = |name: String, v: Vec<i64>| {
        let e = estimate_fixed(&v, v.len());
        rows.push((name, e.use_dictionary, exact_fixed(&v)));
    };
    for d in [
        10u64, 100, 1_000, 10_000, 100_000, 300_000, 500_000, 700_000, 1_000_000,
    ] {
        fixed(
            format!("int64 uniform, {d} distinct"),
            (0..N).map(|_| (rng.next() % d) as i64).collect(),
        );
    }
    fixed(
        "int64 unique".into(),
        (0..N).map(|_| rng.next() as i64).collect(),
    );
    fixed("int64 sorted".into(), (0..N as i64).collect());
    fixed(
        "int64 skewed (zipf-like)".into(),
        (0..N)
            .map(|_| {
                let r = rng.next() % 1_000_000 + 1;
                (1_000_000 / r) as i64
            })
            .collect(),
    );
    fixed(
        "int64 unique after half".into(),
        (0..N)
            .map(|i| {
                if i < N / 2 {
                    (i % 100) as i64
                } else {
                    rng.next() as i64
                }
            })
            .collect(),
    );
    let int32: Vec<i32> = (0..N).map(|_| (rng.next() % 100) as i32).collect();
    let e = estimate_fixed(&int32, N);
    rows.push((
        "int32 low-cardinality (100)".into(),
        e.use_dictionary,
        exact_fixed(&int32),
    ));
    let doubles: Vec<f64> = (0..N).map(|_| rng.next() as f64 / 3.0).collect();
    let e = estimate_fixed(&doubles, N);
    rows.push((
        "double random".into(),
        e.use_dictionary,
        exact_fixed(&doubles),
    ));
    let mut strings = |name: String, v: Vec<Vec<u8>>| {
        let e = estimate_byte_arrays_with(v.len(), |i| &v[i], v.len());
        rows.push((name, e.use_dictionary, exact_bytes(&v)));
    };
    for d in [100u64, 1_000, 100_000, 1_000_000] {
        strings(
            format!("short strings, {d} distinct"),
            (0..N)
                .map(|_| format!("s{:012}", rng.next() % d).into_bytes())
                .collect(),
        );
    }
    strings(
        "long unique strings".into(),
        (0..N)
            .map(|i| format!("{i:08}-{}", "x".repeat(100 + (i % 50))).into_bytes())
            .collect(),
    );
    let agree = rows.iter().filter(|(_, e, x)| e == x).count();
    println!("{:<34} {:>10} {:>10}", "column", "estimate", "exact");
    for (name, e, x) in &rows {
        let say = |b: &bool| if *b { "dict" } else { "plain" };
        println!(
            "{name:<34} {:>10} {:>10}{}",
            say(e),
            say(x),
            if e == x { "" } else { "   <- disagree" }
        );
    }
    println!("agreement: {agree}/{} columns", rows.len());
}
