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
//! Run: `taskset -c 1 cargo bench -p parq-benches --bench write_nested`.

use std::hint::black_box;
use std::io::Write as _;
use std::sync::Arc;

use arrow_array::{
    ArrayRef, Int32Array, Int64Array, ListArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq::write::WriterOptions;
use parq_benches::Rng;
use parq_codecs::compression::CodecKind;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

/// Offsets of `rows` lists, each null with probability `p` (then empty) or of `0..=max`
/// items, and the list validity (`None` when `p == 0`).
fn list_shape(
    rng: &mut Rng,
    rows: usize,
    max: u64,
    p: f64,
) -> (OffsetBuffer<i32>, Option<NullBuffer>) {
    let valid: Vec<bool> = (0..rows).map(|_| !rng.chance(p)).collect();
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0i32);
    for &v in &valid {
        let n = if v { rng.below(max + 1) as i32 } else { 0 };
        offsets.push(offsets.last().unwrap() + n);
    }
    let nulls = (p > 0.0).then(|| NullBuffer::from(valid));
    (OffsetBuffer::new(offsets.into()), nulls)
}

fn nulls(rng: &mut Rng, n: usize, p: f64) -> Option<NullBuffer> {
    (p > 0.0).then(|| NullBuffer::from(parq_benches::validity(rng, n, p)))
}

fn list_of(
    item: DataType,
    offsets: OffsetBuffer<i32>,
    child: ArrayRef,
    valid: Option<NullBuffer>,
) -> ArrayRef {
    let field = Arc::new(Field::new("element", item, true));
    Arc::new(ListArray::new(field, offsets, child, valid))
}

fn list_i64(rows: usize, p: f64) -> ArrayRef {
    let mut rng = Rng::new(99);
    let (offsets, valid) = list_shape(&mut rng, rows, 8, p);
    let items = offsets[offsets.len() - 1] as usize;
    let values: Vec<i64> = (0..items).map(|_| rng.next_u64() as i64).collect();
    let child = Int64Array::new(values.into(), nulls(&mut rng, items, p));
    list_of(DataType::Int64, offsets, Arc::new(child), valid)
}

fn strings(rng: &mut Rng, n: usize, p: f64) -> StringArray {
    let valid = parq_benches::validity(rng, n, p);
    valid
        .iter()
        .map(|&v| v.then(|| parq_benches::random_string(rng, 4, 12)))
        .collect()
}

fn struct_i64_utf8(rows: usize) -> ArrayRef {
    let mut rng = Rng::new(7);
    let valid = nulls(&mut rng, rows, 0.10);
    let a: Vec<i64> = (0..rows).map(|_| rng.next_u64() as i64).collect();
    let a = Int64Array::new(a.into(), nulls(&mut rng, rows, 0.05));
    let b = strings(&mut rng, rows, 0.05);
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ]);
    Arc::new(StructArray::new(
        fields,
        vec![Arc::new(a), Arc::new(b)],
        valid,
    ))
}

fn list_utf8(rows: usize) -> ArrayRef {
    let mut rng = Rng::new(11);
    let (offsets, valid) = list_shape(&mut rng, rows, 8, 0.05);
    let items = offsets[offsets.len() - 1] as usize;
    let child = strings(&mut rng, items, 0.05);
    list_of(DataType::Utf8, offsets, Arc::new(child), valid)
}

fn list_list_i32(rows: usize) -> ArrayRef {
    let mut rng = Rng::new(13);
    let (outer, outer_valid) = list_shape(&mut rng, rows, 4, 0.05);
    let lists = outer[outer.len() - 1] as usize;
    let (inner, inner_valid) = list_shape(&mut rng, lists, 4, 0.05);
    let items = inner[inner.len() - 1] as usize;
    let values: Vec<i32> = (0..items).map(|_| rng.next_u32() as i32).collect();
    let child = Int32Array::new(values.into(), nulls(&mut rng, items, 0.05));
    let inner = list_of(DataType::Int32, inner, Arc::new(child), inner_valid);
    list_of(inner.data_type().clone(), outer, inner, outer_valid)
}

/// A generator of one case's column of `rows` rows.
type MakeColumn = fn(usize) -> ArrayRef;

fn batch(column: ArrayRef) -> RecordBatch {
    let schema = Schema::new(vec![Field::new("a", column.data_type().clone(), true)]);
    RecordBatch::try_new(Arc::new(schema), vec![column]).expect("batch")
}

fn write_parq(batch: &RecordBatch, options: &WriterOptions) -> Vec<u8> {
    let mut w = parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options.clone())
        .expect("writer");
    w.write(batch).expect("write");
    w.into_inner().expect("finish")
}

fn write_parquet(batch: &RecordBatch, props: &WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w =
        ArrowWriter::try_new(&mut out, batch.schema(), Some(props.clone())).expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    out
}

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
    let inputs: [(&str, MakeColumn); 6] = [
        ("list_i64_null5", |r| list_i64(r, 0.05)),
        ("list_i64_null50", |r| list_i64(r, 0.50)),
        ("list_i64_nonull", |r| list_i64(r, 0.0)),
        ("struct_i64_utf8", struct_i64_utf8),
        ("list_utf8", list_utf8),
        ("list_list_i32", list_list_i32),
    ];
    for (name, make) in inputs {
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
                bch.iter(|| black_box(write_parq(i, &opts)))
            });
            g.bench_with_input(BenchmarkId::new("parquet", &case), &input, |bch, i| {
                bch.iter(|| black_box(write_parquet(i, &props)))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
