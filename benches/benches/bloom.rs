//! Split-block bloom filters: hash + insert and hash + check throughput, parq side by side
//! with the `parquet` crate's `Sbbf` on the same values and the same filter size.
//!
//! Ids are `{group}/{impl}/{case}`. Cases: `i64` (8-byte values) and `str24` (24-byte
//! strings), each into a filter in L1 (`l1`, 16 KiB) and one sized for 1 Mi values at 1 %
//! (`2mib`). Before timing, each case checks that both filters hold identical bits and that
//! both answer the same number of hits.
//!
//! ```text
//! taskset -c 1 cargo bench -p parq-benches --bench bloom -- --warm-up-time 1 --measurement-time 3
//! cargo run -p parq-benches --release --bin ratios -- bloom
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq::bloom::{hash_bytes, hash_i64, Sbbf};
use parq_benches::Rng;
use parquet::bloom_filter::Sbbf as PqSbbf;
use parquet::data_type::ByteArray;

/// Values per iteration (1 Mi).
const N: usize = 1 << 20;

fn sizes() -> [(&'static str, usize); 2] {
    [("l1", 16 << 10), ("2mib", 2 << 20)]
}

fn bits(f: &Sbbf) -> Vec<u8> {
    let mut v = Vec::new();
    f.write(&mut v);
    v
}

fn pq_bits(f: &PqSbbf) -> Vec<u8> {
    let mut v = Vec::new();
    f.write(&mut v).expect("write to a Vec");
    v
}

fn bench_i64(c: &mut Criterion) {
    let mut rng = Rng::new(7);
    let values: Vec<i64> = (0..N).map(|_| rng.next_u64() as i64).collect();
    // Half of the probes were inserted, half were not.
    let probes: Vec<i64> = (0..N)
        .map(|i| {
            if i % 2 == 0 {
                values[i]
            } else {
                rng.next_u64() as i64
            }
        })
        .collect();
    for (size, bytes) in sizes() {
        let case = format!("i64_{size}");
        let mut ours = Sbbf::with_num_bytes(bytes);
        let mut theirs = PqSbbf::new_with_num_of_bytes(bytes);
        values.iter().for_each(|&v| ours.insert_hash(hash_i64(v)));
        values.iter().for_each(|v| theirs.insert(v));
        assert_eq!(bits(&ours), pq_bits(&theirs), "{case}: filters differ");
        let hits = probes
            .iter()
            .filter(|&&v| ours.check_hash(hash_i64(v)))
            .count();
        assert_eq!(hits, probes.iter().filter(|v| theirs.check(*v)).count());

        let mut g = c.benchmark_group("bloom_insert");
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function(BenchmarkId::new("parq", &case), |b| {
            let mut f = Sbbf::with_num_bytes(bytes);
            b.iter(|| {
                for &v in black_box(&values) {
                    f.insert_hash(hash_i64(v));
                }
            })
        });
        g.bench_function(BenchmarkId::new("parquet", &case), |b| {
            let mut f = PqSbbf::new_with_num_of_bytes(bytes);
            b.iter(|| {
                for v in black_box(&values) {
                    f.insert(v);
                }
            })
        });
        g.finish();

        let mut g = c.benchmark_group("bloom_check");
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function(BenchmarkId::new("parq", &case), |b| {
            b.iter(|| {
                black_box(&probes)
                    .iter()
                    .filter(|&&v| ours.check_hash(hash_i64(v)))
                    .count()
            })
        });
        g.bench_function(BenchmarkId::new("parquet", &case), |b| {
            b.iter(|| {
                black_box(&probes)
                    .iter()
                    .filter(|v| theirs.check(*v))
                    .count()
            })
        });
        g.finish();
    }
}

fn bench_str(c: &mut Criterion) {
    let mut rng = Rng::new(11);
    let mut word = || format!("{:024x}", rng.next_u64() as u128 * 0x1_0000_0001);
    let values: Vec<String> = (0..N).map(|_| word()).collect();
    let probes: Vec<String> = (0..N)
        .map(|i| {
            if i % 2 == 0 {
                values[i].clone()
            } else {
                word()
            }
        })
        .collect();
    let pq_values: Vec<ByteArray> = values.iter().map(|s| ByteArray::from(s.as_str())).collect();
    let pq_probes: Vec<ByteArray> = probes.iter().map(|s| ByteArray::from(s.as_str())).collect();
    for (size, bytes) in sizes() {
        let case = format!("str24_{size}");
        let mut ours = Sbbf::with_num_bytes(bytes);
        let mut theirs = PqSbbf::new_with_num_of_bytes(bytes);
        values
            .iter()
            .for_each(|v| ours.insert_hash(hash_bytes(v.as_bytes())));
        pq_values.iter().for_each(|v| theirs.insert(v));
        assert_eq!(bits(&ours), pq_bits(&theirs), "{case}: filters differ");

        let mut g = c.benchmark_group("bloom_insert");
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function(BenchmarkId::new("parq", &case), |b| {
            let mut f = Sbbf::with_num_bytes(bytes);
            b.iter(|| {
                for v in black_box(&values) {
                    f.insert_hash(hash_bytes(v.as_bytes()));
                }
            })
        });
        g.bench_function(BenchmarkId::new("parquet", &case), |b| {
            let mut f = PqSbbf::new_with_num_of_bytes(bytes);
            b.iter(|| {
                for v in black_box(&pq_values) {
                    f.insert(v);
                }
            })
        });
        g.finish();

        let mut g = c.benchmark_group("bloom_check");
        g.throughput(Throughput::Elements(N as u64));
        g.bench_function(BenchmarkId::new("parq", &case), |b| {
            b.iter(|| {
                black_box(&probes)
                    .iter()
                    .filter(|v| ours.check_hash(hash_bytes(v.as_bytes())))
                    .count()
            })
        });
        g.bench_function(BenchmarkId::new("parquet", &case), |b| {
            b.iter(|| {
                black_box(&pq_probes)
                    .iter()
                    .filter(|v| theirs.check(*v))
                    .count()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench_i64, bench_str);
criterion_main!(benches);
