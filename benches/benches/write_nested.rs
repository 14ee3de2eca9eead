//! Writing one nested column of 1,000,000 rows (`PARQ_BENCH_ROWS`) from an in-memory Arrow
//! `RecordBatch` to a `Vec<u8>`, one thread: parq's `parq::arrow::ArrowWriter` side by side
//! with the parquet crate's `ArrowWriter`, on the same batch.
//!
//! Cases (every field nullable):
//! - `list_i64_null5`, `list_i64_null50`, `list_i64_nonull`: `list<int64>` of 0..=8 items
//!   (average 4), random int64 items, 5 % / 50 % / no null lists and as many null items;
//! - `struct_i64_utf8`: `struct{a: int64, b: utf8}`, 10 % null structs, 5 % null children,
//!   `b` 4..=12 random lower-case bytes;
//! - `list_utf8`: `list<utf8>` of 0..=8 items of 4..=12 random bytes, 5 % null lists and items;
//! - `list_list_i32`: `list<list<int32>>` of 0..=4 lists of 0..=4 items, 5 % nulls at each of
//!   the three levels.
//!
//! Each case runs with codec `none`, `snappy` and `zstd` (level 1 on both sides). Both writers
//! are at their defaults otherwise: v1 pages of ~1 MiB, dictionary decided per chunk,
//! statistics, page index, one row group. Output sizes are printed once per case and appended
//! to `target/criterion/parq-write-sizes.jsonl`.
//!
//! Run: `taskset -c 1 cargo bench -p parq-benches --bench write_nested`; with
//! `PARQ_BENCH_CPU_TIME=1` each write is timed by the bench thread's CPU time (page faults
//! included), so that the time other jobs hold a shared core stays out.

use std::io::Write as _;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq::write::WriterOptions;
use parq_benches::write_nested::{batch, write_parq, write_parquet, CASES};
use parq_codecs::compression::CodecKind;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

fn record_size(case: &str, imp: &str, bytes: usize) {
    let path = parq_benches::sizes_file();
    if let Some(dir) = path.parent() {
        let _ = std::fs::create_dir_all(dir);
    }
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
    {
        let _ = writeln!(
            f,
            r#"{{"group":"write_nested","case":"{case}","impl":"{imp}","bytes":{bytes}}}"#
        );
    }
}

fn bench(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut g = c.benchmark_group("write_nested");
    g.throughput(Throughput::Elements(rows as u64));
    g.sample_size(20);
    for (name, make) in CASES {
        let input = batch(make(rows));
        for (codec, parq_codec, parquet_codec) in [
            ("none", CodecKind::Uncompressed, Compression::UNCOMPRESSED),
            ("snappy", CodecKind::Snappy, Compression::SNAPPY),
            (
                "zstd",
                CodecKind::Zstd,
                Compression::ZSTD(ZstdLevel::try_new(1).expect("level")),
            ),
        ] {
            let case = format!("{name}_{codec}");
            let mut opts = WriterOptions::default().with_compression(parq_codec);
            opts.compression_level = (parq_codec == CodecKind::Zstd).then_some(1);
            let props = WriterProperties::builder()
                .set_compression(parquet_codec)
                .set_max_row_group_row_count(Some(rows.max(1)))
                .build();
            let a = write_parq(&input, &opts).len();
            let b = write_parquet(&input, &props).len();
            eprintln!(
                "write_nested/{case}: parq {a} bytes, parquet {b} bytes ({:.3})",
                a as f64 / b as f64
            );
            record_size(&case, "parq", a);
            record_size(&case, "parquet", b);
            g.bench_with_input(BenchmarkId::new("parq", &case), &input, |bch, i| {
                parq_benches::iter(bch, || write_parq(i, &opts))
            });
            g.bench_with_input(BenchmarkId::new("parquet", &case), &input, |bch, i| {
                parq_benches::iter(bch, || write_parquet(i, &props))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
