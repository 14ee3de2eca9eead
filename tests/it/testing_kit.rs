//! `parq::testing` on parq itself: generated specs round-trip (through `read_field` and, with
//! `arrow`, RecordBatches), arbitrary bytes always give a valid spec, every named mutation
//! gives an error (never a panic) that names what it broke, and the generators reach every
//! physical type, logical type, encoding, codec and page version they claim.

use std::collections::BTreeSet;

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use parq::array::Array;
use parq::codecs::compression::CodecKind;
use parq::metadata::decode_footer;
use parq::read::ParquetReader;
use parq::testing::spec::{file_spec, gen_spec};
use parq::testing::{
    check_roundtrip, check_roundtrip_with, mutate, FileSpec, Mutation, ParquetReadUnderTest, Rng,
    SpecConfig,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 128,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn generated_specs_round_trip(spec in file_spec(SpecConfig::default())) {
        if let Err(m) = check_roundtrip(&spec) {
            return Err(TestCaseError::fail(format!("{m}\n{spec:#?}")));
        }
    }

    #[test]
    fn flat_specs_round_trip(spec in file_spec(SpecConfig::flat().with_max_rows(2000))) {
        if let Err(m) = check_roundtrip(&spec) {
            return Err(TestCaseError::fail(format!("{m}\n{spec:#?}")));
        }
    }

    #[test]
    fn arbitrary_bytes_give_valid_specs(bytes in prop::collection::vec(any::<u8>(), 0..2048)) {
        let spec = FileSpec::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
        let again = FileSpec::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
        prop_assert_eq!(&spec.fields, &again.fields, "deterministic");
        prop_assert_eq!(&spec.columns, &again.columns, "deterministic");
        prop_assert_eq!(&spec.options, &again.options, "deterministic");
        prop_assert!(spec.num_rows() <= SpecConfig::default().max_rows);
        if let Err(m) = check_roundtrip(&spec) {
            return Err(TestCaseError::fail(format!("{m}\n{spec:#?}")));
        }
    }
}

#[test]
fn exhausted_input_gives_a_valid_spec() {
    let spec = FileSpec::arbitrary(&mut Unstructured::new(&[])).unwrap();
    assert_eq!(spec.fields.len(), 1);
    check_roundtrip(&spec).unwrap();
}

/// A reader that drops the last row of every field: the checker must catch it and say where.
struct LossyReader;

impl ParquetReadUnderTest for LossyReader {
    fn name(&self) -> String {
        "lossy".into()
    }
    fn read(&self, bytes: &[u8]) -> Result<Vec<(String, Array)>, String> {
        let r = ParquetReader::new(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string())?;
        let n = r.fields().map_err(|e| e.to_string())?.len();
        (0..n)
            .map(|i| {
                let (f, a) = r.read_field(i).map_err(|e| e.to_string())?;
                let len = a.len().saturating_sub(1);
                Ok((f.name, a.slice(0, len)))
            })
            .collect()
    }
}

#[test]
fn the_checker_reports_the_first_difference() {
    let mut rng = Rng::new(7);
    let spec = loop {
        let s = gen_spec(&mut rng, &SpecConfig::flat());
        if s.num_rows() > 0 {
            break s;
        }
    };
    let m = check_roundtrip_with(&LossyReader, &spec).unwrap_err();
    assert_eq!(m.reader, "lossy");
    assert_eq!(m.column, "f0");
    assert!(m.to_string().contains("rows"), "{m}");
}

/// Floats are compared bit for bit: -0.0 is not 0.0, and NaN payloads count.
#[test]
fn floats_compare_bitwise() {
    use parq::column::{Column, Values};
    use parq::testing::roundtrip::compare_array;
    let field = parq::write::Field::double("d").into_field();
    let col = |v: Vec<f64>| {
        Array::Primitive(Column {
            len: v.len(),
            validity: None,
            values: Values::Double(v.into()),
        })
    };
    let nan = f64::from_bits(0x7FF8_0000_0000_0001);
    assert!(compare_array(&field, &col(vec![1.0, nan]), &col(vec![1.0, nan])).is_ok());
    let (path, row, e, a) =
        compare_array(&field, &col(vec![1.0, -0.0]), &col(vec![1.0, 0.0])).unwrap_err();
    assert_eq!((path.as_str(), row), ("d[1]", Some(1)));
    assert!(
        e.contains("0x8000000000000000") && a.contains("0x0000000000000000"),
        "{e} vs {a}"
    );
    assert!(compare_array(&field, &col(vec![nan]), &col(vec![f64::NAN])).is_err());
}

fn read_everything(bytes: &[u8]) -> Result<(), String> {
    let r = ParquetReader::new(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string())?;
    let n = r.fields().map_err(|e| e.to_string())?.len();
    for i in 0..n {
        r.read_field(i).map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// A file every mutation applies to: v1 and v2 pages, uncompressed, a dictionary-encoded
/// string column first, and nullable and nested columns (levels).
fn mutation_targets() -> Vec<(String, Vec<u8>)> {
    use parq::field::Field;
    use parq::testing::columns::{build_array, gen_rows, ColumnProfile, Distribution};
    use parq::write::{EncodingPolicy, PageVersion, WriterOptions};
    let mut out = Vec::new();
    for v2 in [false, true] {
        for nested in [false, true] {
            let mut s = parq::write::Field::string("s").into_field();
            s.nullable = true;
            let field = if nested {
                Field::list("l", s).optional()
            } else {
                s
            };
            let profile = ColumnProfile {
                null_percent: 20,
                distribution: Distribution::LowCardinality(4),
                ..ColumnProfile::default()
            };
            let rows = gen_rows(&mut Rng::new(3), &field, 200, &profile);
            let spec = FileSpec {
                fields: vec![field.clone()],
                columns: vec![build_array(&field, &rows, &profile)],
                batches: vec![],
                options: WriterOptions::default()
                    .with_encoding(EncodingPolicy::Dictionary)
                    .with_page_version(if v2 { PageVersion::V2 } else { PageVersion::V1 }),
                profiles: vec![profile],
            };
            let (bytes, _) = spec.write().unwrap();
            out.push((format!("v2={v2} nested={nested}"), bytes));
        }
    }
    out
}

#[test]
fn every_mutation_is_an_error_that_names_it() {
    for (what, file) in mutation_targets() {
        read_everything(&file).unwrap();
        for kind in Mutation::ALL {
            let m = mutate(&file, kind).unwrap_or_else(|| panic!("{what}: {kind} does not apply"));
            assert_eq!(m.kind, kind);
            let err = std::panic::catch_unwind(|| read_everything(&m.bytes))
                .unwrap_or_else(|_| panic!("{what}: {kind} ({}) panicked", m.description))
                .expect_err(&format!("{what}: {kind} ({}) read fine", m.description));
            assert!(
                kind.named_by(&err),
                "{what}: {kind} ({}): the error does not name it: {err}",
                m.description
            );
        }
    }
}

#[test]
fn mutations_of_generated_files_never_panic() {
    let mut rng = Rng::new(11);
    let mut errors = 0;
    for _ in 0..60 {
        let spec = gen_spec(&mut rng, &SpecConfig::default());
        let Ok((file, _)) = spec.write() else {
            continue;
        };
        for m in parq::testing::mutations(&file) {
            let r = std::panic::catch_unwind(|| read_everything(&m.bytes))
                .unwrap_or_else(|_| panic!("{} ({}) panicked", m.kind, m.description));
            if let Err(e) = r {
                errors += 1;
                assert!(m.kind.named_by(&e), "{} ({}): {e}", m.kind, m.description);
            }
        }
    }
    assert!(errors > 100, "{errors}");
}

/// What the generators reach, counted from the written files' metadata.
#[test]
fn generators_reach_every_type_encoding_codec_and_page_version() {
    let mut physical = BTreeSet::new();
    let mut logical = BTreeSet::new();
    let mut encodings = BTreeSet::new();
    let mut codecs = BTreeSet::new();
    let mut pages = BTreeSet::new();
    let mut nested = BTreeSet::new();
    let mut rng = Rng::new(2024);
    for _ in 0..400 {
        let spec = gen_spec(&mut rng, &SpecConfig::default());
        let (file, _) = spec.write().unwrap();
        let meta = decode_footer(&file).unwrap();
        for e in &meta.schema {
            if let Some(t) = e.type_ {
                physical.insert(format!("{t:?}"));
            }
            if let Some(lt) = &e.logical_type {
                logical.insert(logical_name(lt));
            }
            if let Some(c) = e.converted_type {
                nested.insert(format!("{c:?}"));
            }
        }
        for rg in &meta.row_groups {
            for c in &rg.columns {
                let m = c.meta_data.as_ref().unwrap();
                if m.num_values == 0 {
                    continue;
                }
                codecs.insert(format!("{:?}", CodecKind::from_thrift(m.codec.0).unwrap()));
                for s in m.encoding_stats.iter().flatten() {
                    if s.count > 0 {
                        encodings.insert(format!("{:?}", s.encoding));
                        pages.insert(format!("{:?}", s.page_type));
                    }
                }
            }
        }
    }
    let want = |set: &BTreeSet<String>, names: &[&str], what: &str| {
        for n in names {
            assert!(set.contains(*n), "{what} {n} never hit: {set:?}");
        }
    };
    want(
        &physical,
        &[
            "BOOLEAN",
            "INT32",
            "INT64",
            "INT96",
            "FLOAT",
            "DOUBLE",
            "BYTE_ARRAY",
            "FIXED_LEN_BYTE_ARRAY",
        ],
        "physical type",
    );
    want(
        &logical,
        &[
            "String",
            "Enum",
            "Json",
            "Bson",
            "Uuid",
            "Float16",
            "Date",
            "Decimal",
            "Time(Millis)",
            "Time(Micros)",
            "Time(Nanos)",
            "Timestamp(Millis)",
            "Timestamp(Micros)",
            "Timestamp(Nanos)",
            "Int8",
            "Int16",
            "Int32",
            "Int64",
            "UInt8",
            "UInt16",
            "UInt32",
            "UInt64",
            "List",
            "Map",
        ],
        "logical type",
    );
    want(&nested, &["INTERVAL", "LIST", "MAP"], "converted type");
    want(
        &encodings,
        &[
            "PLAIN",
            "RLE",
            "RLE_DICTIONARY",
            "DELTA_BINARY_PACKED",
            "DELTA_LENGTH_BYTE_ARRAY",
            "DELTA_BYTE_ARRAY",
            "BYTE_STREAM_SPLIT",
        ],
        "encoding",
    );
    want(
        &codecs,
        &[
            "Uncompressed",
            "Snappy",
            "Gzip",
            "Brotli",
            "Lz4",
            "Zstd",
            "Lz4Raw",
        ],
        "codec",
    );
    want(
        &pages,
        &["DATA_PAGE", "DATA_PAGE_V2", "DICTIONARY_PAGE"],
        "page type",
    );
    eprintln!("physical {physical:?}\nlogical {logical:?}\nencodings {encodings:?}\ncodecs {codecs:?}\npages {pages:?}");
}

fn logical_name(lt: &parq::metadata::LogicalType) -> String {
    use parq::metadata::LogicalType as L;
    match lt {
        L::Integer {
            bit_width,
            is_signed,
        } => {
            format!("{}Int{bit_width}", if *is_signed { "" } else { "U" })
        }
        L::Time { unit, .. } => format!("Time({unit:?})"),
        L::Timestamp { unit, .. } => format!("Timestamp({unit:?})"),
        L::Decimal { .. } => "Decimal".into(),
        other => format!("{other:?}"),
    }
}

/// parq's own RecordBatches through the Arrow-level check: `from_arrow` inverts every mapping
/// parq's Arrow reader makes, for every leaf type, so generated specs round-trip.
#[cfg(feature = "arrow")]
#[test]
fn arrow_readers_plug_in_and_mappings_invert() {
    use parq::testing::arrow::{check_roundtrip_arrow, ArrowReadUnderTest};

    struct ParqArrow;
    impl ArrowReadUnderTest for ParqArrow {
        fn name(&self) -> String {
            "parq record_batches".into()
        }
        fn read_batches(&self, bytes: &[u8]) -> Result<Vec<arrow_array::RecordBatch>, String> {
            let reader =
                ParquetReader::new(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string())?;
            let batches = reader
                .record_batches(parq::read::EVERY_FIELD, 37)
                .map_err(|e| e.to_string())?;
            batches.map(|b| b.map_err(|e| e.to_string())).collect()
        }
    }
    for seed in 0..64 {
        let spec = gen_spec(&mut Rng::new(seed), &SpecConfig::default());
        if let Err(m) = check_roundtrip_arrow(&ParqArrow, &spec) {
            panic!("seed {seed}: {m}\n{:#?}", spec.fields);
        }
    }
    // INT96, a BYTE_ARRAY decimal and an INTERVAL column, required and one row each, read
    // by the parquet crate (which maps them to Timestamp(ns), Decimal128 and an interval or
    // fixed-size binary): equal after the inversion.
    struct ParquetCrate;
    impl ArrowReadUnderTest for ParquetCrate {
        fn name(&self) -> String {
            "parquet crate".into()
        }
        fn read_batches(&self, bytes: &[u8]) -> Result<Vec<arrow_array::RecordBatch>, String> {
            parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
                Bytes::copy_from_slice(bytes),
            )
            .and_then(|b| b.build())
            .map_err(|e| e.to_string())?
            .map(|b| b.map_err(|e| e.to_string()))
            .collect()
        }
    }
    let mut interval = parq::write::Field::fixed_len_byte_array("i", 12);
    interval.converted_type = Some(parq::metadata::ConvertedType::INTERVAL);
    let fields: Vec<parq::field::Field> = vec![
        parq::write::Field::int96("t").into(),
        parq::write::Field::decimal("d", parq::metadata::Type::BYTE_ARRAY, 20, 4).into(),
        interval.into(),
    ];
    let config = SpecConfig::default();
    for seed in 0..16 {
        let spec =
            parq::testing::spec::gen_spec_for(&mut Rng::new(seed), fields.clone(), 50, &config);
        check_roundtrip_arrow(&ParquetCrate, &spec).unwrap_or_else(|m| panic!("seed {seed}: {m}"));
    }
}

/// `SpecConfig::leaves` keeps the types it leaves out out of every generated schema, through
/// proptest and through `Arbitrary`.
#[test]
fn leaf_filters_hold() {
    use parq::testing::arbitrary::{ConfigSource, Configured};
    use parq::testing::schema::leaf_paths;
    use parq::testing::{LeafFilter, LogicalKind};

    let filter = LeafFilter::all()
        .without_physical(parq::metadata::Type::INT96)
        .without_logical(LogicalKind::Decimal);
    let admitted = |spec: &FileSpec| {
        spec.fields.iter().flat_map(leaf_paths).all(|(_, p)| {
            p.physical_type != parq::metadata::Type::INT96
                && LogicalKind::of(&p) != LogicalKind::Decimal
        })
    };
    let config = SpecConfig::default().with_leaves(filter);
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&file_spec(config), |spec| {
            prop_assert!(admitted(&spec), "{:#?}", spec.fields);
            Ok(())
        })
        .unwrap();
    struct Filtered;
    impl ConfigSource for Filtered {
        fn config() -> SpecConfig {
            SpecConfig::default().with_leaves(
                LeafFilter::all()
                    .without_physical(parq::metadata::Type::INT96)
                    .without_logical(LogicalKind::Decimal),
            )
        }
    }
    let mut seen_decimal = false;
    for seed in 0..200u64 {
        let bytes: Vec<u8> = (0..512u64)
            .map(|i| (seed.wrapping_mul(31).wrapping_add(i * 7919) % 251) as u8)
            .collect();
        let c = Configured::<Filtered>::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
        assert!(admitted(&c.spec), "{:#?}", c.spec.fields);
        let plain = FileSpec::arbitrary(&mut Unstructured::new(&bytes)).unwrap();
        seen_decimal |= !admitted(&plain);
    }
    // The same bytes without the filter do draw what it leaves out.
    assert!(seen_decimal);
}
