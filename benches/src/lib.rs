//! Shared helpers for parq's criterion benches: a deterministic PRNG, the row count, and where
//! results go. The benches themselves live in `benches/*.rs`; `src/bin/ratios.rs` turns
//! criterion's output into a table of parq-vs-peer ratios.

use std::path::PathBuf;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int32Array, Int64Array, ListArray, StringArray, StructArray};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields};

pub mod wide;
pub mod write_nested;

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

/// Whether `PARQ_BENCH_CPU_TIME` asks [`iter`] to time by this thread's CPU time.
pub fn cpu_time() -> bool {
    std::env::var_os("PARQ_BENCH_CPU_TIME").is_some_and(|v| v != "0")
}

/// Nanoseconds this thread has run on a CPU, where Linux says (`None` elsewhere).
fn thread_cpu_ns() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    stat.split_whitespace().next()?.parse().ok()
}

/// `b.iter(f)`, or with `PARQ_BENCH_CPU_TIME=1` timed by the CPU time of the bench thread
/// (`/proc/thread-self/schedstat`; wall time where it is missing): on a loaded machine the
/// time other processes hold the core then stays out of the figure. Page faults and cache
/// misses still count, so memory-bound cases keep their cost.
pub fn iter<O>(b: &mut criterion::Bencher, mut f: impl FnMut() -> O) {
    if !cpu_time() {
        b.iter(f);
        return;
    }
    b.iter_custom(|iters| {
        let (cpu, wall) = (thread_cpu_ns(), std::time::Instant::now());
        for _ in 0..iters {
            std::hint::black_box(f());
        }
        match (cpu, thread_cpu_ns()) {
            (Some(a), Some(b)) => std::time::Duration::from_nanos(b - a),
            _ => wall.elapsed(),
        }
    })
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

/// `list<int64>` of `rows` lists of 0–8 items (average 4); with `nulls`, 5 % null lists and
/// 5 % null items (the fields are nullable either way). The `read_nested` and `read_whole`
/// benches' list column.
pub fn list_i64(rows: usize, nulls: bool) -> ArrayRef {
    let mut rng = Rng::new(42);
    let mut offsets = vec![0i32];
    let mut list_valid = Vec::with_capacity(rows);
    let mut values = Vec::new();
    let mut item_valid = Vec::new();
    for _ in 0..rows {
        let null = nulls && rng.chance(0.05);
        list_valid.push(!null);
        if !null {
            for _ in 0..rng.below(9) {
                values.push(rng.next_u64() as i64 >> 8);
                item_valid.push(!(nulls && rng.chance(0.05)));
            }
        }
        offsets.push(values.len() as i32);
    }
    let items = Int64Array::new(values.into(), nulls.then(|| NullBuffer::from(item_valid)));
    let field = Arc::new(Field::new("item", DataType::Int64, true));
    Arc::new(ListArray::new(
        field,
        OffsetBuffer::new(offsets.into()),
        Arc::new(items),
        nulls.then(|| NullBuffer::from(list_valid)),
    ))
}

/// `struct{a: int32, b: utf8 of 8 bytes from 10,000 distinct}` of `rows` rows: 10 % null
/// structs, 5 % null children. The `read_nested` and `read_whole` benches' struct column.
pub fn struct_ab(rows: usize) -> ArrayRef {
    let mut rng = Rng::new(7);
    let pool: Vec<String> = (0..10_000).map(|i| format!("s{i:07}")).collect();
    let valid: Vec<bool> = (0..rows).map(|_| !rng.chance(0.10)).collect();
    let a: Vec<Option<i32>> = (0..rows)
        .map(|_| (!rng.chance(0.05)).then(|| rng.next_u32() as i32))
        .collect();
    let b: Vec<Option<&str>> = (0..rows)
        .map(|_| (!rng.chance(0.05)).then(|| pool[rng.below(10_000) as usize].as_str()))
        .collect();
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int32, true),
        Field::new("b", DataType::Utf8, true),
    ]);
    Arc::new(StructArray::new(
        fields,
        vec![
            Arc::new(Int32Array::from(a)),
            Arc::new(StringArray::from(b)),
        ],
        Some(NullBuffer::from(valid)),
    ))
}

/// The `row_filter` bench's two parq readers, shared with `filter_once`.
pub mod row_filter {
    use arrow_buffer::BooleanBuffer;
    use bytes::Bytes;
    use parq::array::Array;
    use parq::column::{Column, Values};
    use parq::predicate::col;
    use parq::predicate::eval::take_array;
    use parq::read::{ParquetReader, ReadOptions};

    /// Rows per batch.
    pub const BATCH: usize = 8192;
    /// Every column of the bench's files.
    pub const COLUMNS: [&str; 6] = ["k", "i", "d", "s1", "s2", "t"];

    /// The file read on one thread.
    pub fn reader(bytes: &Bytes) -> ParquetReader<Bytes> {
        let options = ReadOptions::default().with_threads(1);
        ParquetReader::with_options(bytes.clone(), options).unwrap()
    }

    /// parq's filtered read of `k < x`, in batches of [`BATCH`] rows.
    pub fn filter(bytes: &Bytes, x: i32, mut each: impl FnMut(usize, Vec<Array>)) {
        let reader = reader(bytes);
        let batches = reader
            .read_builder()
            .with_projection(COLUMNS)
            .with_filter(col("k").lt(x))
            .with_batch_size(BATCH)
            .build()
            .unwrap();
        for b in batches {
            let b = b.unwrap();
            each(b.num_rows, b.arrays);
        }
    }

    /// parq reading every row of every column, unfiltered: what a filter passing every row
    /// is measured against.
    pub fn scan(bytes: &Bytes, mut each: impl FnMut(usize, Vec<Array>)) {
        let reader = reader(bytes);
        for b in reader.array_batches(&COLUMNS, BATCH).unwrap() {
            let b = b.unwrap();
            each(b.num_rows, b.arrays);
        }
    }

    /// parq reading every row, then `k < x` on each batch's `k` and `take_array` of its rows
    /// on every array.
    pub fn scan_then_filter(bytes: &Bytes, x: i32, mut each: impl FnMut(usize, Vec<Array>)) {
        let reader = reader(bytes);
        for b in reader.array_batches(&COLUMNS, BATCH).unwrap() {
            let b = b.unwrap();
            let mask = match &b.arrays[0] {
                Array::Primitive(Column {
                    values: Values::Int32(k),
                    validity,
                    ..
                }) => {
                    let mask = BooleanBuffer::collect_bool(b.num_rows, |r| k[r] < x);
                    match validity {
                        Some(v) => &mask & v.inner(),
                        None => mask,
                    }
                }
                other => panic!("k read as {other:?}"),
            };
            // The indices once for the six arrays, as a careful caller would.
            let rows: Vec<usize> = mask.set_indices().collect();
            let kept: Vec<Array> = b.arrays.iter().map(|a| take_array(a, &rows)).collect();
            each(rows.len(), kept);
        }
    }
}
