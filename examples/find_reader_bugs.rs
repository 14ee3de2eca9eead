//! Find bugs in another Parquet reader with `parq::testing` (features `testing` and `arrow`).
//!
//! The reader under test here is the parquet crate (arrow-rs), plugged in through
//! [`ArrowReadUnderTest`]: it returns `RecordBatch`es, and `parq::testing::arrow` inverts the
//! usual Arrow mappings (INT96 as `Timestamp(ns)`, byte-array decimals as `Decimal128`,
//! INTERVAL as `Interval(MonthDayNano)`) so that only real differences are reported. Three
//! hunts, each printing what it finds:
//!
//! 1. random files (`gen_spec`, every leaf type, nesting up to depth 3) through the round
//!    trip, mismatches grouped by the shape of the column they are in;
//! 2. one shape, `list<struct<required struct<required int32>>>`, where the parquet crate 60.1
//!    builds invalid nested arrays (a required child holds nulls its required parent struct
//!    does not have, where the optional struct above is null);
//! 3. named corruptions (`parq::testing::mutate`) of files with a FIXED_LEN_BYTE_ARRAY
//!    dictionary: parq's reader returns an error, the parquet crate 60.1 panics on an index
//!    past the end of the dictionary.
//!
//! A panic of the reader under test is caught and reported as a finding. Run:
//! `cargo run --features testing,arrow --example find_reader_bugs -- [specs]`.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use arrow_array::RecordBatch;
use bytes::Bytes;
use parq::field::Field;
use parq::metadata::Type;
use parq::testing::arrow::{check_roundtrip_arrow, ArrowReadUnderTest};
use parq::testing::spec::{gen_spec, gen_spec_for};
use parq::testing::{mutate, Mutation, Rng, SpecConfig};
use parq::write::{EncodingPolicy, Field as Leaf};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

/// The parquet crate's Arrow reader, with its panics turned into errors.
struct ParquetCrate;

impl ArrowReadUnderTest for ParquetCrate {
    fn name(&self) -> String {
        "parquet crate".into()
    }

    fn read_batches(&self, bytes: &[u8]) -> Result<Vec<RecordBatch>, String> {
        let bytes = Bytes::copy_from_slice(bytes);
        let read = || -> Result<Vec<RecordBatch>, String> {
            let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
                .and_then(|b| b.with_batch_size(97).build())
                .map_err(|e| e.to_string())?;
            reader
                .map(|b| b.map_err(|e| e.to_string()))
                .collect::<Result<Vec<_>, _>>()
                .and_then(|batches| {
                    // Invalid arrays are a finding too: arrow-rs builds some unchecked.
                    for b in &batches {
                        for c in b.columns() {
                            c.to_data()
                                .validate_full()
                                .map_err(|e| format!("an invalid array: {e}"))?;
                        }
                    }
                    Ok(batches)
                })
        };
        catch_unwind(AssertUnwindSafe(read)).unwrap_or_else(|p| {
            let what = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            Err(format!("panicked: {what}"))
        })
    }
}

/// The shape of a field, leaves named by physical type: `list<struct<INT32>>`.
fn shape(f: &Field) -> String {
    use parq::field::DataType::*;
    let opt = if f.nullable { "" } else { "required " };
    match &f.data_type {
        Primitive(p) => format!("{opt}{:?}", p.physical_type),
        List(e) => format!("{opt}list<{}>", shape(e)),
        Map(e) => format!("{opt}map<{}>", shape(e)),
        Struct(c) => format!(
            "{opt}struct<{}>",
            c.iter().map(shape).collect::<Vec<_>>().join(", ")
        ),
    }
}

fn main() {
    std::panic::set_hook(Box::new(|_| {})); // the reader's panics are reported, not printed
    let specs: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(300);

    // 1. Random files: mismatches grouped by the field they are in.
    let mut found: BTreeMap<String, (usize, String)> = BTreeMap::new();
    for seed in 0..specs {
        let spec = gen_spec(&mut Rng::new(seed), &SpecConfig::default());
        if let Err(m) = check_roundtrip_arrow(&ParquetCrate, &spec) {
            // By the shape of the field that differs, or by the error for the whole file.
            let field = m.column.split(['[', '.']).next().unwrap_or_default();
            let key = match spec.fields.iter().find(|f| f.name == field) {
                Some(f) => shape(f),
                None => m.actual.chars().take(48).collect(),
            };
            let e = found.entry(key).or_insert((0, format!("seed {seed}: {m}")));
            e.0 += 1;
        }
    }
    println!("1. {specs} random files: {} mismatch classes", found.len());
    for (shape, (n, first)) in &found {
        println!("   {shape}: {n} files, e.g. {first}");
    }

    // 2. list<struct<required struct<required int32>>>: invalid nested arrays (a null list
    // element's required struct gets nulls in its required child that it does not have).
    let inner =
        Field::structure("c0", vec![Field::primitive("c0", Type::INT32).required()]).required();
    let field = Field::list("f0", Field::structure("element", vec![inner]));
    let config = SpecConfig::default();
    let bad = (0..50u64)
        .filter_map(|seed| {
            let spec = gen_spec_for(&mut Rng::new(seed), vec![field.clone()], 40, &config);
            check_roundtrip_arrow(&ParquetCrate, &spec).err()
        })
        .collect::<Vec<_>>();
    println!("2. {}: {} of 50 files differ", shape(&field), bad.len());
    if let Some(m) = bad.first() {
        println!("   e.g. {m}");
    }

    // 3. A FIXED_LEN_BYTE_ARRAY dictionary index past the end.
    let mut panics = 0;
    let mut tried = 0;
    for seed in 0..20u64 {
        let leaf: Field = Leaf::fixed_len_byte_array("f0", 4).into();
        let mut spec = gen_spec_for(&mut Rng::new(seed), vec![leaf], 200, &config);
        spec.options = parq::write::WriterOptions::default()
            .with_compression(parq::codecs::compression::CodecKind::Uncompressed)
            .with_encoding(EncodingPolicy::Dictionary);
        let Ok((bytes, _)) = spec.write() else {
            continue;
        };
        let Some(bad) = mutate(&bytes, Mutation::DictionaryIndexPastEnd) else {
            continue;
        };
        tried += 1;
        let parq = parq::read::ParquetReader::new(Bytes::from(bad.bytes.clone()))
            .and_then(|r| r.read_field(0));
        let theirs = ParquetCrate.read_batches(&bad.bytes);
        if let Err(e) = &theirs {
            if e.starts_with("panicked") {
                panics += 1;
                if panics == 1 {
                    println!(
                        "3. {}: the parquet crate {e}; parq: {}",
                        bad.description,
                        parq.err().map_or("read it".into(), |e| e.to_string())
                    );
                }
            }
        }
    }
    println!("   {panics} of {tried} corrupted FLBA dictionary files panic the parquet crate");
}
