//! Filtered reads at six selectivities: parq's exact filter (the read builder's, inside the
//! push decoder) against parq reading every row and filtering after, and against the
//! `parquet` crate's `RowFilter`; plain scans of both as baselines.
//!
//! Data: `PARQ_ROW_FILTER_ROWS` rows (default 4,000,000) of six columns, written by the
//! `parquet` crate's `ArrowWriter` with zstd level 1, row groups of 1,048,576 rows, page-level
//! statistics (so the column and offset indexes are written) and the default page limits
//! (1 MiB, 20,000 rows; dictionaries on, falling back to plain where they grow past 1 MiB):
//!
//! * `k`: int32 of 1000 distinct values, `0..1000`, never null: the filtered column;
//! * `i`: int64, random; `d`: double, random in `[0, 1)`;
//! * `s1`, `s2`: utf8, 20–70 random lower-case letters;
//! * `t`: timestamp (microseconds, no time zone), increasing by 1 ms a row.
//!
//! Three files, each a `Bytes` in memory (no I/O), generated once per run:
//!
//! * `random`: each row's `k` uniform in `0..1000`; columns required (no definition levels);
//! * `clustered`: runs of 1000 rows sharing one `k`, each run's value uniform in `0..1000`,
//!   so the matches come in runs and whole pages match or miss;
//! * `random_nulls`: the `random` file's `k`, and every other column optional with 50 %
//!   nulls (`parq_benches::validity`).
//!
//! Filters `k < 1`, `k < 10`, `k < 100`, `k < 500`, `k < 900`, `k < 1000` pass 0.1 %, 1 %,
//! 10 %, 50 %, 90 % and 100 % of the rows (`clustered` only roughly: a 4M-row file has 4000
//! runs, so `k < 1` expects 4 of them; the run prints the counts).
//!
//! Readers, one thread, each streaming batches of all six columns, counting the rows and
//! dropping each batch (`black_box`):
//!
//! * `parq_filter`: `read_builder().with_projection([k, i, d, s1, s2, t])
//!   .with_filter(col("k").lt(x))` (`ReadOptions::threads` 1): the push decoder prunes with
//!   statistics and the column index, evaluates `k` row group by row group,
//!   then decodes the other columns in batches of 8192 matching rows, either for the
//!   matching rows only or, where matches are scattered, for every row then filtered
//!   (`Materialise::Auto`, chosen per row group);
//! * `parq_scan_then_filter`: `ParquetReader::array_batches` of the six columns in batches of
//!   8192 rows, then per batch a mask `k < x` built from the `k` values
//!   (`BooleanBuffer::collect_bool`), its set rows collected once, and parq's public
//!   `parq::predicate::eval::take_array` of them on each of the six arrays;
//! * `parquet_row_filter`: `ParquetRecordBatchReaderBuilder` with the page index required,
//!   batches of 8192, all columns projected, a `RowFilter` of one `ArrowPredicateFn` on leaf
//!   0 (`k`) computing `arrow_ord::cmp::lt(k, Int32Array::new_scalar(x))`. The predicate
//!   cache (`with_max_predicate_cache_size`) is left at its default; in 60.1 only the async
//!   reader uses it, so the sync reader measured here decodes `k` twice (once to evaluate
//!   the filter over the whole file in `build`, once as a projected column);
//! * `parq_scan` and `parquet_scan`: every row of the six columns in batches of 8192, no
//!   filter (the parquet crate with the page index required, as above): once per file, not
//!   per selectivity.
//!
//! Ids are `row_filter/{file}/{selectivity}/{reader}` and `row_filter/{file}/scan/{reader}`.
//! Before timing, for every file and filter, the three filtered readers must return the
//! number of rows the generated `k` says, and the same `i` column value for value (nulls
//! included); the run stops if they do not. After timing, the latest medians of every cell
//! are printed as a markdown table with the ratios parquet ÷ parq (above 1: parq faster).
//!
//! `PARQ_ROW_FILTER_DUMP=DIR` also writes the three files to `DIR/{file}.parquet`, to read
//! them with another tool or profile one read (`push_once`).
//!
//! Run pinned: `taskset -c 1 cargo bench -p parq-benches --bench row_filter` (about seven
//! minutes at 4M rows; `PARQ_ROW_FILTER_ROWS=1000000` for a quicker run). On a loaded
//! machine `PARQ_BENCH_CPU_TIME=1` times the bench thread's CPU time instead of wall time
//! (`parq_benches::iter`).

use std::collections::BTreeMap;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{
    ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray,
    TimestampMicrosecondArray,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use bytes::Bytes;
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, Criterion, SamplingMode, Throughput,
};
use parq::array::Array;
use parq::column::{Column, Values};
use parq_benches::row_filter::{self, BATCH, COLUMNS};
use parq_benches::{iter, random_string, validity, Rng};
use parquet::arrow::arrow_reader::{
    ArrowPredicateFn, ArrowReaderOptions, ParquetRecordBatchReader,
    ParquetRecordBatchReaderBuilder, RowFilter,
};
use parquet::arrow::{ArrowWriter, ProjectionMask};
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::metadata::PageIndexPolicy;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use serde_json::Value;

const RG_ROWS: usize = 1 << 20;
const RUN: usize = 1000;
const DISTINCT: u64 = 1000;
/// `(label, x)`: the filter `k < x` passes about `x / 1000` of the rows.
const FILTERS: [(&str, i32); 6] = [
    ("0.1%", 1),
    ("1%", 10),
    ("10%", 100),
    ("50%", 500),
    ("90%", 900),
    ("100%", 1000),
];
const FILES: [&str; 3] = ["random", "clustered", "random_nulls"];
const READERS: [&str; 3] = ["parq_filter", "parq_scan_then_filter", "parquet_row_filter"];

fn rows() -> usize {
    std::env::var("PARQ_ROW_FILTER_ROWS")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(4_000_000)
}

/// The `k` column of a file: uniform per row, or in runs of [`RUN`] rows.
fn keys(n: usize, clustered: bool) -> Vec<i32> {
    let mut rng = Rng::new(1);
    if !clustered {
        return (0..n).map(|_| rng.below(DISTINCT) as i32).collect();
    }
    let mut k = Vec::with_capacity(n);
    while k.len() < n {
        let v = rng.below(DISTINCT) as i32;
        k.extend(std::iter::repeat_n(v, RUN.min(n - k.len())));
    }
    k
}

/// The file of `keys`, its other columns random (with 50 % nulls if `nulls`).
fn file(keys: &[i32], nulls: bool) -> Bytes {
    let n = keys.len();
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int32, false),
        Field::new("i", DataType::Int64, nulls),
        Field::new("d", DataType::Float64, nulls),
        Field::new("s1", DataType::Utf8, nulls),
        Field::new("s2", DataType::Utf8, nulls),
        Field::new("t", DataType::Timestamp(TimeUnit::Microsecond, None), nulls),
    ]));
    let props = WriterProperties::builder()
        .set_compression(Compression::ZSTD(ZstdLevel::try_new(1).expect("level")))
        .set_max_row_group_row_count(Some(RG_ROWS))
        .set_statistics_enabled(EnabledStatistics::Page)
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema.clone(), Some(props)).expect("writer");
    let mut rng = Rng::new(2);
    let mut null_rng = Rng::new(3);
    for start in (0..n).step_by(RG_ROWS) {
        let len = RG_ROWS.min(n - start);
        let mut nb = || nulls.then(|| NullBuffer::from(validity(&mut null_rng, len, 0.5)));
        let (vi, vd, vs1, vs2, vt) = (nb(), nb(), nb(), nb(), nb());
        let i: Vec<i64> = (0..len).map(|_| rng.next_u64() as i64).collect();
        let d: Vec<f64> = (0..len).map(|_| rng.unit()).collect();
        let mut strings = |v: &Option<NullBuffer>| -> StringArray {
            (0..len)
                .map(|r| {
                    v.as_ref()
                        .is_none_or(|v| v.is_valid(r))
                        .then(|| random_string(&mut rng, 20, 70))
                })
                .collect()
        };
        let (s1, s2) = (strings(&vs1), strings(&vs2));
        let t: Vec<i64> = (start..start + len)
            .map(|r| 1_700_000_000_000_000 + r as i64 * 1000)
            .collect();
        let columns: Vec<ArrayRef> = vec![
            Arc::new(Int32Array::from(keys[start..start + len].to_vec())),
            Arc::new(Int64Array::new(i.into(), vi)),
            Arc::new(Float64Array::new(d.into(), vd)),
            Arc::new(s1),
            Arc::new(s2),
            Arc::new(TimestampMicrosecondArray::new(t.into(), vt)),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).expect("batch");
        w.write(&batch).expect("write");
    }
    w.close().expect("close");
    Bytes::from(out)
}

fn parq_scan(bytes: &Bytes) -> usize {
    let reader = row_filter::reader(bytes);
    reader
        .array_batches(&COLUMNS, BATCH)
        .unwrap()
        .map(|b| black_box(b.unwrap()).num_rows)
        .sum()
}

fn parquet_builder(bytes: &Bytes) -> ParquetRecordBatchReaderBuilder<Bytes> {
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    ParquetRecordBatchReaderBuilder::try_new_with_options(bytes.clone(), options)
        .unwrap()
        .with_batch_size(BATCH)
}

/// The parquet crate's read of `k < x` through a `RowFilter`.
fn parquet_row_filter(bytes: &Bytes, x: i32) -> ParquetRecordBatchReader {
    let builder = parquet_builder(bytes);
    let k = ProjectionMask::leaves(builder.parquet_schema(), [0]);
    let predicate = ArrowPredicateFn::new(k, move |b: RecordBatch| {
        arrow_ord::cmp::lt(b.column(0), &Int32Array::new_scalar(x))
    });
    builder
        .with_row_filter(RowFilter::new(vec![Box::new(predicate)]))
        .build()
        .unwrap()
}

fn parquet_scan(bytes: &Bytes) -> usize {
    parquet_builder(bytes)
        .build()
        .unwrap()
        .map(|b| black_box(b.unwrap()).num_rows())
        .sum()
}

/// Rows of reader `name` for `k < x`, every batch dropped once counted.
fn count(name: &str, bytes: &Bytes, x: i32) -> usize {
    let mut rows = 0;
    match name {
        "parq_filter" => row_filter::filter(bytes, x, |n, b| {
            rows += n;
            black_box(b);
        }),
        "parq_scan_then_filter" => row_filter::scan_then_filter(bytes, x, |n, b| {
            rows += n;
            black_box(b);
        }),
        "parquet_row_filter" => {
            for b in parquet_row_filter(bytes, x) {
                rows += black_box(b.unwrap()).num_rows();
            }
        }
        _ => unreachable!("reader {name}"),
    }
    rows
}

/// The `i` column (leaf 1) of reader `name` for `k < x`.
fn i_values(name: &str, bytes: &Bytes, x: i32) -> Vec<Option<i64>> {
    let mut out = Vec::new();
    let mut parq = |n: usize, arrays: Vec<Array>| match &arrays[1] {
        Array::Primitive(
            c @ Column {
                values: Values::Int64(v),
                ..
            },
        ) => {
            assert_eq!(c.len, n);
            out.extend((0..n).map(|r| c.is_valid(r).then(|| v[r])));
        }
        other => panic!("i read as {other:?}"),
    };
    match name {
        "parq_filter" => row_filter::filter(bytes, x, &mut parq),
        "parq_scan_then_filter" => row_filter::scan_then_filter(bytes, x, &mut parq),
        "parquet_row_filter" => {
            for b in parquet_row_filter(bytes, x) {
                out.extend(b.unwrap().column(1).as_primitive::<Int64Type>().iter());
            }
        }
        _ => unreachable!("reader {name}"),
    }
    out
}

/// Every filtered reader returns the rows `keys` says, and the same `i` values.
fn verify(name: &str, bytes: &Bytes, keys: &[i32]) {
    for (label, x) in FILTERS {
        let want = keys.iter().filter(|&&k| k < x).count();
        let first = i_values(READERS[0], bytes, x);
        assert_eq!(first.len(), want, "{name} {label}: {} rows", READERS[0]);
        for r in &READERS[1..] {
            let got = i_values(r, bytes, x);
            assert_eq!(got.len(), want, "{name} {label}: {r} rows");
            assert!(
                got == first,
                "{name} {label}: {r} differs from {} on i",
                READERS[0]
            );
        }
        eprintln!("{name} {label}: {want} rows match, all readers agree");
    }
    assert_eq!(parq_scan(bytes), keys.len(), "{name}: parq scan rows");
    assert_eq!(parquet_scan(bytes), keys.len(), "{name}: parquet scan rows");
}

/// A group of 10 one-read samples (flat sampling: a read takes up to a second).
fn group(c: &mut Criterion, id: String, rows: usize) -> BenchmarkGroup<'_, WallTime> {
    let mut g = c.benchmark_group(id);
    g.sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Elements(rows as u64));
    g
}

fn bench(c: &mut Criterion) {
    let n = rows();
    for name in FILES {
        let keys = keys(n, name == "clustered");
        let bytes = file(&keys, name == "random_nulls");
        eprintln!("{name}: {n} rows, file {} MiB", bytes.len() >> 20);
        if let Ok(dir) = std::env::var("PARQ_ROW_FILTER_DUMP") {
            let path = Path::new(&dir).join(format!("{name}.parquet"));
            std::fs::write(&path, &bytes).expect("write the file to PARQ_ROW_FILTER_DUMP");
        }
        verify(name, &bytes, &keys);

        let mut g = group(c, format!("row_filter/{name}/scan"), n);
        g.bench_function("parq_scan", |b| iter(b, || parq_scan(&bytes)));
        g.bench_function("parquet_scan", |b| iter(b, || parquet_scan(&bytes)));
        g.finish();
        for (label, x) in FILTERS {
            let want = keys.iter().filter(|&&k| k < x).count();
            let mut g = group(c, format!("row_filter/{name}/{label}"), n);
            for r in READERS {
                // Every timed read is checked too (one comparison).
                g.bench_function(r, |b| {
                    iter(b, || {
                        assert_eq!(count(r, &bytes, x), want, "{name} {label}: {r}")
                    })
                });
            }
            g.finish();
        }
    }
    summary();
}

/// `(group, function) -> (median, lower, upper)` in ns, from criterion's latest results.
type Medians = BTreeMap<(String, String), (f64, f64, f64)>;

fn collect(dir: &Path, found: &mut Medians) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for p in entries.flatten().map(|e| e.path()).filter(|p| p.is_dir()) {
        if !p.ends_with("new") {
            collect(&p, found);
            continue;
        }
        let json = |f: &str| -> Option<Value> {
            serde_json::from_str(&std::fs::read_to_string(p.join(f)).ok()?).ok()
        };
        let (Some(b), Some(e)) = (json("benchmark.json"), json("estimates.json")) else {
            continue;
        };
        let (Some(g), Some(f)) = (b["group_id"].as_str(), b["function_id"].as_str()) else {
            continue;
        };
        let m = &e["median"];
        let ci = &m["confidence_interval"];
        if let (Some(p), Some(lo), Some(hi)) = (
            m["point_estimate"].as_f64(),
            ci["lower_bound"].as_f64(),
            ci["upper_bound"].as_f64(),
        ) {
            if g.starts_with("row_filter/") {
                found.insert((g.to_string(), f.to_string()), (p, lo, hi));
            }
        }
    }
}

fn ms(ns: f64) -> String {
    let ms = ns / 1e6;
    if ms >= 100.0 {
        format!("{ms:.0}")
    } else if ms >= 10.0 {
        format!("{ms:.1}")
    } else {
        format!("{ms:.2}")
    }
}

/// The latest medians as a markdown table: ms [95 % interval], and parquet ÷ parq.
fn summary() {
    let mut m = Medians::new();
    collect(&parq_benches::criterion_dir(), &mut m);
    let get = |g: &str, f: &str| m.get(&(g.to_string(), f.to_string())).copied();
    let cell = |v: Option<(f64, f64, f64)>| {
        v.map_or("-".into(), |(p, lo, hi)| {
            format!("{} [{}, {}]", ms(p), ms(lo), ms(hi))
        })
    };
    let ratio = |peer: Option<(f64, f64, f64)>, ours: Option<(f64, f64, f64)>| match (peer, ours) {
        (Some((p, ..)), Some((o, ..))) => format!("{:.2}", p / o),
        _ => "-".into(),
    };
    println!(
        "\nrow_filter: medians in ms [95 % interval], ratios parquet ÷ parq; \
         the scan rows are parq_scan and parquet_scan\n"
    );
    println!(
        "| file | filter | parq filter | parq scan+filter | parquet row filter \
         | parquet ÷ parq filter | parquet ÷ parq scan+filter |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for name in FILES {
        let g = format!("row_filter/{name}/scan");
        let (ours, peer) = (get(&g, "parq_scan"), get(&g, "parquet_scan"));
        println!(
            "| {name} | none (scan) | {} | - | {} | {} | - |",
            cell(ours),
            cell(peer),
            ratio(peer, ours)
        );
        for (label, _) in FILTERS {
            let g = format!("row_filter/{name}/{label}");
            let [f, s, p] = READERS.map(|r| get(&g, r));
            println!(
                "| {name} | {label} | {} | {} | {} | {} | {} |",
                cell(f),
                cell(s),
                cell(p),
                ratio(p, f),
                ratio(p, s)
            );
        }
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
