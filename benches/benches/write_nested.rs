//! Writing one nested column of 1,000,000 rows (`PARQ_BENCH_ROWS`) from in-memory Arrow
//! buffers to a `Vec<u8>`, one thread: parq's `ParquetWriter::write_arrays` side by side with
//! parquet's `ArrowWriter`, on the same buffers.
//!
//! Data: `list<int64>` with 0..=8 items per list (average 4), random int64 items, either
//! `null5` (5 % null lists, 5 % null items) or `nonull` (nullable fields, no nulls); codec
//! `none`, `snappy` or `zstd` (level 1 on both sides). Both writers at their defaults
//! otherwise: v1 pages of ~1 MiB, dictionary decided per chunk, statistics, page index, one
//! row group. Output sizes are printed once per case and appended to
//! `target/criterion/parq-write-sizes.jsonl`.
//!
//! Run: `taskset -c 1 cargo bench -p parq-benches --bench write_nested`.

use std::hint::black_box;
use std::io::Write as _;
use std::sync::Arc;

use arrow_array::{ArrayRef, Int64Array, ListArray as ArrowList, RecordBatch};
use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType as ArrowType, Field as ArrowField, Schema};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq::array::{Array, ListArray, ListOffsets};
use parq::column::{Column, Values};
use parq::field::Field;
use parq::metadata::Type;
use parq::write::{ParquetWriter, WriterOptions};
use parq_benches::Rng;
use parq_codecs::compression::CodecKind;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

struct Input {
    field: Field,
    array: Array,
    batch: RecordBatch,
}

fn make_input(rows: usize, nulls: bool) -> Input {
    let mut rng = Rng::new(99);
    let p = if nulls { 0.05 } else { 0.0 };
    let list_valid: Vec<bool> = (0..rows).map(|_| !rng.chance(p)).collect();
    let mut offsets = vec![0i32];
    for &v in &list_valid {
        let n = if v { rng.below(9) as i32 } else { 0 };
        offsets.push(offsets.last().unwrap() + n);
    }
    let items = *offsets.last().unwrap() as usize;
    let values: ScalarBuffer<i64> = (0..items)
        .map(|_| rng.next_u64() as i64)
        .collect::<Vec<_>>()
        .into();
    let item_valid: Vec<bool> = (0..items).map(|_| !rng.chance(p)).collect();
    let item_nulls = nulls.then(|| NullBuffer::from(item_valid));
    let list_nulls = nulls.then(|| NullBuffer::from(list_valid));
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));

    let element = ArrowField::new("element", ArrowType::Int64, true);
    let arrow = ArrowList::new(
        Arc::new(element.clone()),
        offsets.clone(),
        Arc::new(Int64Array::new(values.clone(), item_nulls.clone())),
        list_nulls.clone(),
    );
    let schema = Arc::new(Schema::new(vec![ArrowField::new(
        "a",
        ArrowType::List(Arc::new(element)),
        true,
    )]));
    let batch = RecordBatch::try_new(schema, vec![Arc::new(arrow) as ArrayRef]).expect("batch");
    let array = Array::List(ListArray {
        validity: list_nulls,
        offsets: ListOffsets::Small(offsets),
        values: Box::new(Array::Primitive(Column {
            len: items,
            validity: item_nulls,
            values: Values::Int64(values),
        })),
    });
    Input {
        field: Field::list("a", Field::primitive("element", Type::INT64)),
        array,
        batch,
    }
}

fn write_parq(input: &Input, options: &WriterOptions) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w = ParquetWriter::with_fields(&mut out, vec![input.field.clone()], options.clone())
        .expect("writer");
    w.write_arrays(std::slice::from_ref(&input.array))
        .expect("write");
    w.finish().expect("finish");
    out
}

fn write_parquet(input: &Input, props: &WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w =
        ArrowWriter::try_new(&mut out, input.batch.schema(), Some(props.clone())).expect("writer");
    w.write(&input.batch).expect("write");
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
    for nulls in [true, false] {
        let input = make_input(rows, nulls);
        for (codec, parq_codec, parquet_codec) in [
            ("none", CodecKind::Uncompressed, Compression::UNCOMPRESSED),
            ("snappy", CodecKind::Snappy, Compression::SNAPPY),
            (
                "zstd",
                CodecKind::Zstd,
                Compression::ZSTD(ZstdLevel::try_new(1).expect("level")),
            ),
        ] {
            let case = format!(
                "list_i64_{}_{codec}",
                if nulls { "null5" } else { "nonull" }
            );
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
