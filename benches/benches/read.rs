//! Decoding whole columns from a file in memory into Arrow buffers, one thread, parq side by
//! side with the `parquet` crate (arrow-rs) on identical bytes.
//!
//! Each case is one column of `PARQ_BENCH_ROWS` rows (default 1,000,000) in one row group,
//! written in-process by parquet's `ArrowWriter` at its page defaults (v1 data pages of at most
//! 1 MiB and 20,000 rows):
//!
//! * type: `i32`, `i64`, `f64` (values from a pool of 4096 random values, so a dictionary
//!   holds), `sstr` (8..=24 bytes) and `lstr` (100..=200 bytes) byte arrays (4096 distinct
//!   each), `bool` (random);
//! * nulls: `req` (required), `opt0` / `opt1` / `opt50` (optional with 0 / 1 / 50 % nulls);
//! * encoding: `plain` or `dict` (`bool` is PLAIN only);
//! * codec: `none`, `snappy`, `zstd`.
//!
//! Both sides parse the footer, then decode every batch of 8192 rows and keep them all (the
//! whole column is collected). Byte arrays are compared in the same layout: parq
//! `ByteArrayLayout::Offsets` (i64 offsets) against parquet reading `LargeBinary`, parq `Views`
//! (case suffix `_views`) against parquet reading `BinaryView`. Strings are written as Arrow
//! `Binary`, so neither side validates UTF-8. I/O is not included: the file is a `Bytes`.
//!
//! The default set is every type x nulls x encoding uncompressed, plus `i64` and `sstr` at 1 %
//! nulls compressed; `PARQ_BENCH_FULL=1` runs the full cross product (about three times longer).
//! Criterion's name filter selects cases, and a file is generated only if one of its benches
//! runs: `cargo bench -p parq-benches --bench read -- 'read/.*/i64_'`.
//!
//! `PARQ_BENCH_CPU_TIME=1` times the `read` group by the bench thread's CPU time instead of
//! wall time (for a loaded machine; see `parq_benches::iter`).
//!
//! `read_zero_copy` reads an uncompressed PLAIN required INT64 column with batches (parq's
//! borrowed path) against a memcpy of the same 8 bytes per row (the ceiling for any copying
//! reader) and parquet.

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{
    Array, ArrayRef, BinaryArray, BinaryViewArray, BooleanArray, Float64Array, Int32Array,
    Int64Array, LargeBinaryArray, RecordBatch,
};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq::column::Values;
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions};
use parq_benches::Rng;
use parquet::arrow::arrow_reader::{ArrowReaderOptions, ParquetRecordBatchReaderBuilder};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterPropertiesBuilder};

const BATCH: usize = 8192;
const POOL: usize = 4096;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Ty {
    I32,
    I64,
    F64,
    ShortStr,
    LongStr,
    Bool,
}

impl Ty {
    const ALL: [Ty; 6] = [
        Ty::I32,
        Ty::I64,
        Ty::F64,
        Ty::ShortStr,
        Ty::LongStr,
        Ty::Bool,
    ];

    fn name(self) -> &'static str {
        match self {
            Ty::I32 => "i32",
            Ty::I64 => "i64",
            Ty::F64 => "f64",
            Ty::ShortStr => "sstr",
            Ty::LongStr => "lstr",
            Ty::Bool => "bool",
        }
    }

    fn is_bytes(self) -> bool {
        matches!(self, Ty::ShortStr | Ty::LongStr)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Nulls {
    Required,
    Opt(u32),
}

impl Nulls {
    const ALL: [Nulls; 4] = [
        Nulls::Required,
        Nulls::Opt(0),
        Nulls::Opt(1),
        Nulls::Opt(50),
    ];

    fn name(self) -> String {
        match self {
            Nulls::Required => "req".into(),
            Nulls::Opt(p) => format!("opt{p}"),
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Codec {
    None,
    Snappy,
    Zstd,
}

impl Codec {
    const ALL: [Codec; 3] = [Codec::None, Codec::Snappy, Codec::Zstd];

    fn name(self) -> &'static str {
        match self {
            Codec::None => "none",
            Codec::Snappy => "snappy",
            Codec::Zstd => "zstd",
        }
    }

    fn parquet(self) -> Compression {
        match self {
            Codec::None => Compression::UNCOMPRESSED,
            Codec::Snappy => Compression::SNAPPY,
            Codec::Zstd => Compression::ZSTD(ZstdLevel::default()),
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct Case {
    ty: Ty,
    nulls: Nulls,
    dict: bool,
    codec: Codec,
}

impl Case {
    fn name(&self, layout: ByteArrayLayout) -> String {
        let views = if layout == ByteArrayLayout::Views {
            "_views"
        } else {
            ""
        };
        format!(
            "{}{views}_{}_{}_{}",
            self.ty.name(),
            self.nulls.name(),
            if self.dict { "dict" } else { "plain" },
            self.codec.name()
        )
    }
}

fn cases() -> Vec<Case> {
    let full = parq_benches::full();
    let mut out = Vec::new();
    for codec in Codec::ALL {
        for ty in Ty::ALL {
            for nulls in Nulls::ALL {
                for dict in [false, true] {
                    if ty == Ty::Bool && dict {
                        continue;
                    }
                    let default_set = codec == Codec::None
                        || (nulls == Nulls::Opt(1) && matches!(ty, Ty::I64 | Ty::ShortStr));
                    if full || default_set {
                        out.push(Case {
                            ty,
                            nulls,
                            dict,
                            codec,
                        });
                    }
                }
            }
        }
    }
    out
}

/// The column's values (`rows` of them, nulls drawn per slot).
fn make_array(ty: Ty, nulls: Nulls, rows: usize) -> ArrayRef {
    let mut rng = Rng::new(1234 + ty as u64);
    let validity = match nulls {
        Nulls::Required | Nulls::Opt(0) => None,
        Nulls::Opt(p) => Some(NullBuffer::from(parq_benches::validity(
            &mut rng,
            rows,
            p as f64 / 100.0,
        ))),
    };
    let pick = |rng: &mut Rng| rng.below(POOL as u64) as usize;
    match ty {
        Ty::I32 => {
            let pool: Vec<i32> = (0..POOL).map(|_| rng.next_u32() as i32).collect();
            let v: Vec<i32> = (0..rows).map(|_| pool[pick(&mut rng)]).collect();
            Arc::new(Int32Array::new(v.into(), validity))
        }
        Ty::I64 => {
            let pool: Vec<i64> = (0..POOL).map(|_| rng.next_u64() as i64).collect();
            let v: Vec<i64> = (0..rows).map(|_| pool[pick(&mut rng)]).collect();
            Arc::new(Int64Array::new(v.into(), validity))
        }
        Ty::F64 => {
            let pool: Vec<f64> = (0..POOL).map(|_| rng.unit() * 1e6).collect();
            let v: Vec<f64> = (0..rows).map(|_| pool[pick(&mut rng)]).collect();
            Arc::new(Float64Array::new(v.into(), validity))
        }
        Ty::ShortStr | Ty::LongStr => {
            let (lo, hi) = if ty == Ty::ShortStr {
                (8, 24)
            } else {
                (100, 200)
            };
            let pool: Vec<String> = (0..POOL)
                .map(|_| parq_benches::random_string(&mut rng, lo, hi))
                .collect();
            let v = (0..rows).map(|i| {
                let s = pool[pick(&mut rng)].as_bytes();
                match &validity {
                    Some(n) if n.is_null(i) => None,
                    _ => Some(s),
                }
            });
            Arc::new(BinaryArray::from_iter(v))
        }
        Ty::Bool => {
            let v: Vec<bool> = (0..rows).map(|_| rng.chance(0.5)).collect();
            Arc::new(BooleanArray::new(v.into(), validity))
        }
    }
}

/// Write one column to an in-memory file with parquet's ArrowWriter.
fn write_file(case: &Case, rows: usize) -> Bytes {
    write_file_with(case, rows, |p| p)
}

/// [`write_file`] with extra writer settings.
fn write_file_with(
    case: &Case,
    rows: usize,
    tweak: impl FnOnce(WriterPropertiesBuilder) -> WriterPropertiesBuilder,
) -> Bytes {
    let array = make_array(case.ty, case.nulls, rows);
    let nullable = case.nulls != Nulls::Required;
    let schema = Arc::new(Schema::new(vec![Field::new(
        "c",
        array.data_type().clone(),
        nullable,
    )]));
    let props = WriterProperties::builder()
        .set_compression(case.codec.parquet())
        .set_dictionary_enabled(case.dict)
        // Keep the dictionary for the long strings' 4096 values (~600 KB).
        .set_dictionary_page_size_limit(8 << 20)
        .set_max_row_group_row_count(Some(rows.max(1)));
    let props = tweak(props).build();
    let batch = RecordBatch::try_new(schema.clone(), vec![array]).expect("batch");
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema, Some(props)).expect("writer");
    w.write(&batch).expect("write");
    w.close().expect("close");
    Bytes::from(out)
}

fn read_parq(file: &Bytes, layout: ByteArrayLayout) -> Vec<parq::read::Batch> {
    let options = ReadOptions::default().with_byte_array_layout(layout);
    let reader = ParquetReader::with_options(file.clone(), options).expect("open");
    reader
        .batches(&[0], BATCH)
        .expect("batches")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

fn parquet_options(ty: Ty, nullable: bool, layout: ByteArrayLayout) -> ArrowReaderOptions {
    let options = ArrowReaderOptions::new();
    if !ty.is_bytes() {
        return options;
    }
    let dt = match layout {
        ByteArrayLayout::Offsets => DataType::LargeBinary,
        ByteArrayLayout::Views => DataType::BinaryView,
    };
    options.with_schema(Arc::new(Schema::new(vec![Field::new("c", dt, nullable)])))
}

fn read_parquet(file: &Bytes, options: &ArrowReaderOptions) -> Vec<RecordBatch> {
    ParquetRecordBatchReaderBuilder::try_new_with_options(file.clone(), options.clone())
        .expect("open")
        .with_batch_size(BATCH)
        .build()
        .expect("build")
        .collect::<Result<Vec<_>, _>>()
        .expect("read")
}

/// Check once, before timing, that both readers return the same column (batch by batch:
/// both cut batches of `BATCH` rows).
fn check_same(ty: Ty, ours: &[parq::read::Batch], theirs: &[RecordBatch]) {
    assert_eq!(ours.len(), theirs.len(), "{ty:?}: batch count");
    for (k, (b, t)) in ours.iter().zip(theirs).enumerate() {
        assert_eq!(b.num_rows, t.num_rows(), "{ty:?}: rows of batch {k}");
        let col = &b.columns[0];
        let theirs = t.column(0);
        assert_eq!(
            col.null_count(),
            theirs.null_count(),
            "{ty:?}: nulls of batch {k}"
        );
        for i in 0..b.num_rows {
            let valid = col.is_valid(i);
            assert_eq!(valid, theirs.is_valid(i), "{ty:?}: validity of {k}/{i}");
            if !valid {
                continue;
            }
            let same = match (&col.values, ty) {
                (Values::Int32(v), Ty::I32) => v[i] == downcast::<Int32Array>(theirs).value(i),
                (Values::Int64(v), Ty::I64) => v[i] == downcast::<Int64Array>(theirs).value(i),
                (Values::Double(v), Ty::F64) => {
                    v[i].to_bits() == downcast::<Float64Array>(theirs).value(i).to_bits()
                }
                (Values::Boolean(v), Ty::Bool) => {
                    v.value(i) == downcast::<BooleanArray>(theirs).value(i)
                }
                (_, Ty::ShortStr | Ty::LongStr) => {
                    let mine = col.bytes(i).expect("bytes");
                    match theirs.as_any().downcast_ref::<LargeBinaryArray>() {
                        Some(a) => mine == a.value(i),
                        None => mine == downcast::<BinaryViewArray>(theirs).value(i),
                    }
                }
                (v, _) => panic!("{ty:?}: parq returned {v:?}"),
            };
            assert!(same, "{ty:?}: value of {k}/{i}");
        }
    }
}

fn downcast<T: 'static>(a: &ArrayRef) -> &T {
    a.as_any().downcast_ref::<T>().expect("array type")
}

fn bench_read(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut g = c.benchmark_group("read");
    g.throughput(Throughput::Elements(rows as u64));
    for case in cases() {
        let layouts: &[ByteArrayLayout] = if case.ty.is_bytes() {
            &[ByteArrayLayout::Offsets, ByteArrayLayout::Views]
        } else {
            &[ByteArrayLayout::Offsets]
        };
        // Generated on first use, so a filtered-out case costs nothing.
        let mut file: Option<Bytes> = None;
        for &layout in layouts {
            let name = case.name(layout);
            let nullable = case.nulls != Nulls::Required;
            let options = parquet_options(case.ty, nullable, layout);
            let mut checked = false;
            let get = |file: &mut Option<Bytes>, checked: &mut bool| -> Bytes {
                let f = file
                    .get_or_insert_with(|| {
                        let f = write_file(&case, rows);
                        eprintln!(
                            "read/{}: file {} bytes",
                            case.name(ByteArrayLayout::Offsets),
                            f.len()
                        );
                        f
                    })
                    .clone();
                if !*checked {
                    check_same(case.ty, &read_parq(&f, layout), &read_parquet(&f, &options));
                    *checked = true;
                }
                f
            };
            g.bench_function(BenchmarkId::new("parq", &name), |b| {
                let f = get(&mut file, &mut checked);
                parq_benches::iter(b, || read_parq(black_box(&f), layout))
            });
            g.bench_function(BenchmarkId::new("parquet", &name), |b| {
                let f = get(&mut file, &mut checked);
                parq_benches::iter(b, || read_parquet(black_box(&f), &options))
            });
        }
    }
    g.finish();
}

/// Uncompressed PLAIN required INT64 read with batches: parq's borrowed (zero-copy) path
/// against a memcpy of the output bytes and parquet.
fn bench_zero_copy(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let mut g = c.benchmark_group("read_zero_copy");
    g.throughput(Throughput::Bytes((rows * 8) as u64));
    let case = Case {
        ty: Ty::I64,
        nulls: Nulls::Required,
        dict: false,
        codec: Codec::None,
    };
    let name = "i64_req_plain_none";
    let mut file: Option<(Bytes, Vec<u8>)> = None;
    let get = |file: &mut Option<(Bytes, Vec<u8>)>| {
        file.get_or_insert_with(|| {
            // Pages of 1 MiB (not 20,000 rows) and no page statistics: every page header has
            // the same length, so every page's values share one alignment, and most batches
            // lie inside one page.
            let written = write_file_with(&case, rows, |p| {
                p.set_data_page_row_count_limit(usize::MAX)
                    .set_statistics_enabled(EnabledStatistics::None)
            });
            // Pick the start (mod 8) of the file in memory at which the most batches are
            // borrowed: the reader borrows only values aligned for i64.
            let mut best = (0, 0, 0, written.clone());
            for shift in 0..8 {
                let mut v = vec![0u8; written.len() + shift];
                v[shift..].copy_from_slice(&written);
                let f = Bytes::from(v).slice(shift..);
                let (borrowed, total) = borrowed_batches(&f);
                if borrowed > best.1 {
                    best = (shift, borrowed, total, f);
                }
            }
            let (shift, borrowed, total, f) = best;
            eprintln!(
                "read_zero_copy/{name}: {borrowed} of {total} batches borrowed from the file \
                 (file placed at offset {shift} mod 8)"
            );
            let values = plain_values(&f);
            (f, values)
        })
        .clone()
    };
    g.bench_function(BenchmarkId::new("parq", name), |b| {
        let (f, _) = get(&mut file);
        b.iter(|| read_parq(black_box(&f), ByteArrayLayout::Offsets))
    });
    g.bench_function(BenchmarkId::new("memcpy", name), |b| {
        let (_, values) = get(&mut file);
        let mut out = vec![0u8; values.len()];
        b.iter(|| out.copy_from_slice(black_box(&values)))
    });
    g.bench_function(BenchmarkId::new("parquet", name), |b| {
        let (f, _) = get(&mut file);
        let options = ArrowReaderOptions::new();
        b.iter(|| read_parquet(black_box(&f), &options))
    });
    g.finish();
}

/// How many batches of the INT64 column point into `file` rather than into a copy.
fn borrowed_batches(file: &Bytes) -> (usize, usize) {
    let range = file.as_ptr() as usize..file.as_ptr() as usize + file.len();
    let batches = read_parq(file, ByteArrayLayout::Offsets);
    let borrowed = batches
        .iter()
        .filter(|b| match &b.columns[0].values {
            Values::Int64(v) => range.contains(&(v.as_ptr() as usize)),
            _ => false,
        })
        .count();
    (borrowed, batches.len())
}

/// The column's values as bytes (what a copying reader must write).
fn plain_values(file: &Bytes) -> Vec<u8> {
    let mut out = Vec::new();
    for b in read_parq(file, ByteArrayLayout::Offsets) {
        if let Values::Int64(v) = &b.columns[0].values {
            for x in v.iter() {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
    }
    out
}

criterion_group!(benches, bench_zero_copy, bench_read);
criterion_main!(benches);
