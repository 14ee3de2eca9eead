//! Writing one column of 1,000,000 rows (`PARQ_BENCH_ROWS`) from in-memory Arrow buffers to
//! a `Vec<u8>`, one thread: parq's `ParquetWriter` side by side with parquet's `ArrowWriter`.
//!
//! Data (the same buffers feed both writers; parq gets i64 offsets, arrow Utf8 i32 offsets):
//! `i32_lowcard` (100 distinct), `i64_unique` (random), `i64_sorted` (increasing, unique),
//! `f64_random`, `sstr_1000` (1,000 distinct strings of 8..=24 bytes), `lstr_unique` (unique
//! strings of 100..=200 bytes); each `req` (required) or `null10` (optional, 10 % nulls);
//! codec `none`, `snappy` or `zstd` (default levels).
//!
//! Groups:
//! * `write_default`: parq `WriterOptions::default()` (dictionary decided by estimate) against
//!   `ArrowWriter` at its defaults (dictionary on, falling back at 1 MiB). Note the default
//!   zstd levels differ: parq 3 (libzstd's default), parquet 1;
//! * `write_plain`: both forced to PLAIN (parq `EncodingPolicy::Plain`, parquet dictionary off);
//! * `write_dict`: both forced to try a dictionary (parq `EncodingPolicy::Dictionary`, parquet
//!   dictionary on), both with a 1 MiB dictionary limit; zstd at level 1 on both sides.
//!
//! Both sides write v1 pages of ~1 MiB, one row group, chunk and page statistics and the page
//! index. By default `write_plain` and `write_dict` run uncompressed only; `PARQ_BENCH_FULL=1`
//! adds every codec. Output sizes are printed once per case and appended to
//! `target/criterion/parq-write-sizes.jsonl`, which `ratios` prints.

use std::hint::black_box;
use std::io::Write as _;
use std::sync::Arc;

use arrow_array::{ArrayRef, Float64Array, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{Field as ArrowField, Schema};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use parq::column::{Column, Values};
use parq::write::{EncodingPolicy, Field, ParquetWriter, WriterOptions};
use parq_benches::Rng;
use parq_codecs::compression::CodecKind;
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, ZstdLevel};
use parquet::file::properties::WriterProperties;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Data {
    I32LowCard,
    I64Unique,
    I64Sorted,
    F64Random,
    ShortStr1000,
    LongStrUnique,
}

impl Data {
    const ALL: [Data; 6] = [
        Data::I32LowCard,
        Data::I64Unique,
        Data::I64Sorted,
        Data::F64Random,
        Data::ShortStr1000,
        Data::LongStrUnique,
    ];

    fn name(self) -> &'static str {
        match self {
            Data::I32LowCard => "i32_lowcard",
            Data::I64Unique => "i64_unique",
            Data::I64Sorted => "i64_sorted",
            Data::F64Random => "f64_random",
            Data::ShortStr1000 => "sstr_1000",
            Data::LongStrUnique => "lstr_unique",
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

    fn parq(self) -> CodecKind {
        match self {
            Codec::None => CodecKind::Uncompressed,
            Codec::Snappy => CodecKind::Snappy,
            Codec::Zstd => CodecKind::Zstd,
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

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Mode {
    Default,
    Plain,
    Dict,
}

impl Mode {
    fn group(self) -> &'static str {
        match self {
            Mode::Default => "write_default",
            Mode::Plain => "write_plain",
            Mode::Dict => "write_dict",
        }
    }
}

/// One column, as parq's `Column` and as an arrow array over the same buffers.
struct Input {
    field: Field,
    column: Column,
    batch: RecordBatch,
}

fn make_input(data: Data, nulls: bool, rows: usize) -> Input {
    let mut rng = Rng::new(4321 + data as u64);
    let validity = nulls.then(|| NullBuffer::from(parq_benches::validity(&mut rng, rows, 0.1)));
    let (field, values, array): (Field, Values, ArrayRef) = match data {
        Data::I32LowCard => {
            let pool: Vec<i32> = (0..100).map(|_| rng.next_u32() as i32).collect();
            let v: ScalarBuffer<i32> = (0..rows)
                .map(|_| pool[rng.below(100) as usize])
                .collect::<Vec<_>>()
                .into();
            let a = Int32Array::new(v.clone(), validity.clone());
            (Field::int32("c"), Values::Int32(v), Arc::new(a))
        }
        Data::I64Unique | Data::I64Sorted => {
            let mut x: i64 = 1_700_000_000_000;
            let v: ScalarBuffer<i64> = (0..rows)
                .map(|_| {
                    if data == Data::I64Unique {
                        rng.next_u64() as i64
                    } else {
                        x += 1 + rng.below(1000) as i64;
                        x
                    }
                })
                .collect::<Vec<_>>()
                .into();
            let a = Int64Array::new(v.clone(), validity.clone());
            (Field::int64("c"), Values::Int64(v), Arc::new(a))
        }
        Data::F64Random => {
            let v: ScalarBuffer<f64> = (0..rows)
                .map(|_| rng.unit() * 1e6)
                .collect::<Vec<_>>()
                .into();
            let a = Float64Array::new(v.clone(), validity.clone());
            (Field::double("c"), Values::Double(v), Arc::new(a))
        }
        Data::ShortStr1000 | Data::LongStrUnique => {
            let pool: Vec<String> = if data == Data::ShortStr1000 {
                (0..1000)
                    .map(|_| parq_benches::random_string(&mut rng, 8, 24))
                    .collect()
            } else {
                Vec::new()
            };
            let mut bytes = Vec::new();
            let mut offsets: Vec<i64> = vec![0];
            for i in 0..rows {
                let null = validity.as_ref().is_some_and(|n| n.is_null(i));
                if !null {
                    if data == Data::ShortStr1000 {
                        bytes.extend_from_slice(pool[rng.below(1000) as usize].as_bytes());
                    } else {
                        // Unique: a random body with the row number in front.
                        let s = parq_benches::random_string(&mut rng, 92, 192);
                        bytes.extend_from_slice(format!("{i:08}").as_bytes());
                        bytes.extend_from_slice(s.as_bytes());
                    }
                }
                offsets.push(bytes.len() as i64);
            }
            let data_buf = Buffer::from(bytes);
            let offsets32: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
            let a = StringArray::new(
                OffsetBuffer::new(offsets32.into()),
                data_buf.clone(),
                validity.clone(),
            );
            (
                Field::string("c"),
                Values::Binary {
                    offsets: OffsetBuffer::new(offsets.into()),
                    data: data_buf,
                },
                Arc::new(a),
            )
        }
    };
    let field = if nulls {
        field.optional()
    } else {
        field.required()
    };
    let schema = Arc::new(Schema::new(vec![ArrowField::new(
        "c",
        array.data_type().clone(),
        nulls,
    )]));
    Input {
        field,
        column: Column {
            len: rows,
            validity,
            values,
        },
        batch: RecordBatch::try_new(schema, vec![array]).expect("batch"),
    }
}

fn write_parq(input: &Input, options: &WriterOptions) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w =
        ParquetWriter::new(&mut out, vec![input.field.clone()], options.clone()).expect("writer");
    w.write_batch(std::slice::from_ref(&input.column))
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

/// 1 MiB, both writers' default dictionary and page size limit.
const MIB: usize = 1 << 20;

fn options(mode: Mode, codec: Codec) -> (WriterOptions, WriterProperties) {
    let mut parq = WriterOptions::default().with_compression(codec.parq());
    let mut parquet = WriterProperties::builder().set_compression(codec.parquet());
    if mode != Mode::Default && codec == Codec::Zstd {
        // Matching options: parquet's default zstd level (1) on both sides; at their defaults
        // parq uses libzstd's default (3).
        parq.compression_level = Some(1);
    }
    match mode {
        Mode::Default => {}
        Mode::Plain => {
            parq = parq.with_encoding(EncodingPolicy::Plain);
            parquet = parquet.set_dictionary_enabled(false);
        }
        Mode::Dict => {
            parq = parq.with_encoding(EncodingPolicy::Dictionary);
            parq.dictionary_size_limit = MIB;
            parquet = parquet
                .set_dictionary_enabled(true)
                .set_dictionary_page_size_limit(MIB);
        }
    }
    (parq, parquet.build())
}

fn record_size(group: &str, case: &str, imp: &str, bytes: usize) {
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
            r#"{{"group":"{group}","case":"{case}","impl":"{imp}","bytes":{bytes}}}"#
        );
    }
}

fn bench_write(c: &mut Criterion) {
    let rows = parq_benches::rows();
    let full = parq_benches::full();
    for mode in [Mode::Default, Mode::Plain, Mode::Dict] {
        let mut g = c.benchmark_group(mode.group());
        g.throughput(Throughput::Elements(rows as u64));
        for data in Data::ALL {
            for nulls in [false, true] {
                // Generated on first use, so a filtered-out case costs nothing.
                let mut input: Option<Arc<Input>> = None;
                for codec in Codec::ALL {
                    if mode != Mode::Default && codec != Codec::None && !full {
                        continue;
                    }
                    let case = format!(
                        "{}_{}_{}",
                        data.name(),
                        if nulls { "null10" } else { "req" },
                        codec.name()
                    );
                    let (parq_opts, parquet_props) = options(mode, codec);
                    let mut sized = false;
                    let get = |input: &mut Option<Arc<Input>>, sized: &mut bool| {
                        let i = input
                            .get_or_insert_with(|| Arc::new(make_input(data, nulls, rows)))
                            .clone();
                        if !*sized {
                            let a = write_parq(&i, &parq_opts).len();
                            let b = write_parquet(&i, &parquet_props).len();
                            eprintln!(
                                "{}/{case}: parq {a} bytes, parquet {b} bytes ({:.3})",
                                mode.group(),
                                a as f64 / b as f64
                            );
                            record_size(mode.group(), &case, "parq", a);
                            record_size(mode.group(), &case, "parquet", b);
                            *sized = true;
                        }
                        i
                    };
                    g.bench_function(BenchmarkId::new("parq", &case), |b| {
                        let i = get(&mut input, &mut sized);
                        b.iter(|| write_parq(black_box(&i), &parq_opts))
                    });
                    g.bench_function(BenchmarkId::new("parquet", &case), |b| {
                        let i = get(&mut input, &mut sized);
                        b.iter(|| write_parquet(black_box(&i), &parquet_props))
                    });
                }
            }
        }
        g.finish();
    }
}

criterion_group!(benches, bench_write);
criterion_main!(benches);
