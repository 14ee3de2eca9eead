//! Files parq writes open in pyarrow with every value intact and the metadata meant.
//!
//! A covering design over encoding policy x codec x page version (each pair appears), every
//! file holding every type (with its logical annotations) both required and optional, with
//! several null rates, several pages and row groups. Each file is read by pyarrow
//! (`tests/it/support_write/dump.py`; skipped without pyarrow, failed under PARQ_REQUIRE_ORACLES=1), values are compared
//! exactly (float bits, decimal unscaled integers, bytes), and so are the encodings,
//! compression and chunk statistics pyarrow reports. Each file is also read back with parq.

use crate::python;
use crate::support_write;

use std::path::PathBuf;

use bytes::Bytes;
use parq::codecs::compression::CodecKind;
use parq::column::Column;
use parq::metadata::{Encoding, FieldRepetitionType, KeyValue, Type};
use parq::read::ParquetReader;
use parq::write::{
    ColumnOptions, EncodingPolicy, Field, PageVersion, ParquetWriter, WriterOptions,
};
use serde_json::{json, Value};
use support_write::*;

#[derive(Debug, Clone, Copy, PartialEq)]
enum Policy {
    Auto,
    Dictionary,
    Plain,
    /// DELTA_BINARY_PACKED ints, BYTE_STREAM_SPLIT floats, DELTA_LENGTH_BYTE_ARRAY binaries,
    /// DELTA_BYTE_ARRAY FLBA, RLE booleans.
    Alt1,
    /// BYTE_STREAM_SPLIT ints/floats/FLBA, DELTA_BYTE_ARRAY binaries.
    Alt2,
}

const POLICIES: [Policy; 5] = [
    Policy::Auto,
    Policy::Dictionary,
    Policy::Plain,
    Policy::Alt1,
    Policy::Alt2,
];
const CODECS: [CodecKind; 7] = [
    CodecKind::Uncompressed,
    CodecKind::Snappy,
    CodecKind::Gzip,
    CodecKind::Zstd,
    CodecKind::Lz4Raw,
    CodecKind::Brotli,
    CodecKind::Lz4,
];

fn explicit(policy: Policy, t: Type) -> Option<Encoding> {
    Some(match (policy, t) {
        (Policy::Alt1, Type::BOOLEAN) => Encoding::RLE,
        (Policy::Alt1, Type::INT32 | Type::INT64) => Encoding::DELTA_BINARY_PACKED,
        (Policy::Alt1, Type::FLOAT | Type::DOUBLE) => Encoding::BYTE_STREAM_SPLIT,
        (Policy::Alt1, Type::BYTE_ARRAY) => Encoding::DELTA_LENGTH_BYTE_ARRAY,
        (Policy::Alt1, Type::FIXED_LEN_BYTE_ARRAY) => Encoding::DELTA_BYTE_ARRAY,
        (Policy::Alt2, Type::INT32 | Type::INT64 | Type::FLOAT | Type::DOUBLE) => {
            Encoding::BYTE_STREAM_SPLIT
        }
        (Policy::Alt2, Type::FIXED_LEN_BYTE_ARRAY) => Encoding::BYTE_STREAM_SPLIT,
        (Policy::Alt2, Type::BYTE_ARRAY) => Encoding::DELTA_BYTE_ARRAY,
        _ => return None,
    })
}

struct Case {
    name: String,
    policy: Policy,
    codec: CodecKind,
    version: PageVersion,
    fields: Vec<Field>,
    columns: Vec<Column>,
    path: PathBuf,
    bytes: Vec<u8>,
}

fn build_cases(dir: &std::path::Path) -> Vec<Case> {
    let kinds = kinds();
    let mut cases = Vec::new();
    for (pi, &policy) in POLICIES.iter().enumerate() {
        for (ci, &codec) in CODECS.iter().enumerate() {
            let version = if (pi + ci) % 2 == 0 {
                PageVersion::V1
            } else {
                PageVersion::V2
            };
            let null_rate = [0.3, 0.0, 1.0, 0.05][(pi + ci) % 4];
            let rows = 250;
            let mut r = Rng::new((pi * 100 + ci) as u64);
            let mut fields = Vec::new();
            let mut columns = Vec::new();
            let mut options = WriterOptions::default()
                .with_compression(codec)
                .with_page_version(version)
                .with_row_group_rows(if ci % 3 == 0 { 100 } else { 1000 })
                .with_data_page_row_limit(if pi % 2 == 0 { 37 } else { 20_000 })
                .with_key_value_metadata(vec![KeyValue {
                    key: "case".into(),
                    value: Some(format!("{policy:?}/{codec}/{version:?}")),
                }]);
            options.encoding = match policy {
                Policy::Auto => EncodingPolicy::Auto,
                Policy::Dictionary => EncodingPolicy::Dictionary,
                Policy::Plain => EncodingPolicy::Plain,
                _ => EncodingPolicy::Plain,
            };
            for kind in &kinds {
                for optional in [false, true] {
                    let mut field = kind.field.clone();
                    if optional {
                        field = field.optional();
                        field.name = format!("{}_opt", field.name);
                    }
                    field.field_id = Some(fields.len() as i32 + 1);
                    if let Some(e) = explicit(policy, field.physical_type) {
                        options.columns.insert(
                            field.name.clone(),
                            ColumnOptions::default()
                                .with_encoding(Some(EncodingPolicy::Explicit(e))),
                        );
                    }
                    columns.push(gen_column(
                        kind,
                        rows,
                        if optional { null_rate } else { 0.0 },
                        &mut r,
                    ));
                    fields.push(field);
                }
            }
            let name = format!("{pi}-{policy:?}-{codec}-{version:?}");
            let path = dir.join(format!("{name}.parquet"));
            let mut bytes = Vec::new();
            let mut w = ParquetWriter::new(&mut bytes, fields.clone(), options).unwrap();
            // Two batches, so that buffering across write_batch calls is exercised.
            let head: Vec<Column> = columns.iter().map(|c| c.slice(0, 90)).collect();
            let tail: Vec<Column> = columns.iter().map(|c| c.slice(90, rows - 90)).collect();
            w.write_batch(&head).unwrap();
            w.write_batch(&tail).unwrap();
            w.finish().unwrap();
            std::fs::write(&path, &bytes).unwrap();
            cases.push(Case {
                name,
                policy,
                codec,
                version,
                fields,
                columns,
                path,
                bytes,
            });
        }
    }
    cases
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

fn check_chunk(
    case: &Case,
    field: &Field,
    col: &Column,
    start: usize,
    end: usize,
    chunk: &Value,
) -> Result<(), String> {
    let ctx = format!("{} column {} rows {start}..{end}", case.name, field.name);
    let optional = field.repetition == FieldRepetitionType::OPTIONAL;
    let values = (start..end).filter(|&i| col.is_valid(i)).count();
    let has_dict = chunk["has_dictionary_page"].as_bool().unwrap();
    let bool_col = field.physical_type == Type::BOOLEAN;
    let bool_enc = if case.version == PageVersion::V2 {
        "RLE"
    } else {
        "PLAIN"
    };
    let mut expected: Vec<&str> = match case.policy {
        Policy::Plain => vec!["PLAIN"],
        Policy::Dictionary | Policy::Auto if bool_col => vec![bool_enc],
        Policy::Dictionary if values == 0 => vec!["PLAIN"],
        Policy::Dictionary => vec!["PLAIN", "RLE_DICTIONARY"],
        Policy::Auto if has_dict => vec!["PLAIN", "RLE_DICTIONARY"],
        Policy::Auto => vec!["PLAIN"],
        Policy::Alt1 | Policy::Alt2 => match explicit(case.policy, field.physical_type) {
            Some(e) => vec![e.name().unwrap()],
            None => vec!["PLAIN"],
        },
    };
    if optional {
        expected.push("RLE");
    }
    expected.sort();
    expected.dedup();
    let got = strs(&chunk["encodings"]);
    if got != expected {
        return Err(format!("{ctx}: encodings {got:?}, expected {expected:?}"));
    }
    if case.policy == Policy::Auto && values > 50 {
        let low = field.name.contains("_low") || field.name.starts_with("enum");
        if low && !has_dict {
            return Err(format!(
                "{ctx}: a low-cardinality column without dictionary"
            ));
        }
        if field.name.starts_with("i64") && !low && has_dict {
            return Err(format!("{ctx}: unique int64 got a dictionary"));
        }
    }
    let codec = chunk["compression"].as_str().unwrap().to_string();
    let want = case.codec.name().to_ascii_uppercase();
    let codec_ok = codec == want || (case.codec == CodecKind::Lz4Raw && codec == "LZ4");
    if !codec_ok
        && !(case.codec == CodecKind::Lz4 && (codec.starts_with("LZ4") || codec == "UNKNOWN"))
    {
        return Err(format!("{ctx}: compression {codec}, expected {want}"));
    }
    if !chunk["has_offset_index"].as_bool().unwrap() {
        return Err(format!("{ctx}: no offset index"));
    }
    let float =
        matches!(field.physical_type, Type::FLOAT | Type::DOUBLE) || field.name.starts_with("f16");
    if field.physical_type != Type::INT96 && !float && !chunk["has_column_index"].as_bool().unwrap()
    {
        return Err(format!("{ctx}: no column index"));
    }
    let stats = &chunk["statistics"];
    let (nulls, mm) = expected_stats(field, col, start, end);
    if stats["null_count"] != json!(nulls) {
        return Err(format!(
            "{ctx}: null_count {} expected {nulls}",
            stats["null_count"]
        ));
    }
    match mm {
        None => {
            if stats["has_min_max"] != json!(false) {
                return Err(format!(
                    "{ctx}: min/max {} {} where none expected",
                    stats["min"], stats["max"]
                ));
            }
        }
        Some((min, max)) => {
            if stats["has_min_max"] != json!(true) || stats["min"] != min || stats["max"] != max {
                return Err(format!(
                    "{ctx}: min/max {} {} (has {}), expected {min} {max}",
                    stats["min"], stats["max"], stats["has_min_max"]
                ));
            }
        }
    }
    Ok(())
}

#[test]
fn pyarrow_reads_every_type_policy_codec_and_page_version() {
    python::require_python!("pyarrow");
    let dir = scratch_dir("write_interop");
    let cases = build_cases(&dir);
    let paths: Vec<PathBuf> = cases.iter().map(|c| c.path.clone()).collect();
    let dumps = pyarrow_dump(&paths);
    let mut failures = Vec::new();
    for (case, dump) in cases.iter().zip(&dumps) {
        if let Some(e) = dump.get("error") {
            failures.push(format!("{}: pyarrow failed: {e}", case.name));
            continue;
        }
        assert_eq!(dump["num_rows"], json!(250), "{}", case.name);
        assert_eq!(
            dump["kv"]["case"],
            json!(format!(
                "{:?}/{}/{:?}",
                case.policy, case.codec, case.version
            ))
        );
        // Values.
        for (field, col) in case.fields.iter().zip(&case.columns) {
            let got = &dump["columns"][&field.name];
            let expected: Vec<Value> = (0..col.len)
                .map(|i| expected_value(field, col, i))
                .collect();
            if got != &json!(expected) {
                let arr = got.as_array().cloned().unwrap_or_default();
                let first = (0..col.len).find(|&i| arr.get(i) != Some(&expected[i]));
                failures.push(format!(
                    "{} column {}: values differ, first at {first:?}: pyarrow {:?} expected {:?}",
                    case.name,
                    field.name,
                    first.and_then(|i| arr.get(i).cloned()),
                    first.map(|i| expected[i].clone())
                ));
            }
        }
        // Metadata per row group.
        let mut start = 0;
        for rg in dump["row_groups"].as_array().unwrap() {
            let chunks = rg.as_array().unwrap();
            let rows = chunks[0]["num_values"].as_u64().unwrap() as usize;
            for ((field, col), chunk) in case.fields.iter().zip(&case.columns).zip(chunks) {
                if let Err(e) = check_chunk(case, field, col, start, start + rows, chunk) {
                    failures.push(e);
                }
            }
            start += rows;
        }
        assert_eq!(start, 250, "{}: row groups cover the rows", case.name);
        // parq reads it back exactly too.
        let reader = ParquetReader::new(Bytes::from(case.bytes.clone())).unwrap();
        assert_eq!(reader.metadata().schema[1..].len(), case.fields.len());
        for (i, (field, col)) in case.fields.iter().zip(&case.columns).enumerate() {
            let e = &reader.metadata().schema[i + 1];
            assert_eq!(
                e,
                &field.to_schema_element(),
                "{}: schema element kept",
                case.name
            );
            let back = reader.read_column(i).unwrap();
            assert_same(&format!("{} {}", case.name, field.name), col, &back);
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    if std::env::var_os("PARQ_KEEP").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Edge files: empty (no row group), one row per row group, long strings whose statistics are
/// truncated, all-NaN and all-null chunks.
#[test]
fn pyarrow_reads_edge_files() {
    python::require_python!("pyarrow");
    use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
    use parq::column::Values;

    let dir = scratch_dir("write_edge");
    let fields = vec![
        Field::string("s").optional(),
        Field::double("d"),
        Field::int32("n").optional(),
    ];
    let long: Vec<Vec<u8>> = (0..6u8)
        .map(|i| {
            let mut v = "é".repeat(50).into_bytes();
            v.push(b'a' + i);
            v
        })
        .collect();
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for v in &long {
        data.extend_from_slice(v);
        offsets.push(data.len() as i64);
    }
    let s = Column {
        len: 6,
        validity: Some(NullBuffer::from(vec![true, true, false, true, true, true])),
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from(data),
        },
    };
    let d = Column {
        len: 6,
        validity: None,
        values: Values::Double(ScalarBuffer::from(vec![f64::NAN; 6])),
    };
    let n = Column {
        len: 6,
        validity: Some(NullBuffer::new_null(6)),
        values: Values::Int32(ScalarBuffer::from(vec![0; 6])),
    };
    let cols = vec![s, d, n];
    let mut files = Vec::new();
    for (name, rows, rg_rows) in [
        ("empty", 0usize, 10usize),
        ("one_per_group", 6, 1),
        ("one_group", 6, 10),
    ] {
        let mut bytes = Vec::new();
        let mut w = ParquetWriter::new(
            &mut bytes,
            fields.clone(),
            WriterOptions::default().with_row_group_rows(rg_rows),
        )
        .unwrap();
        if rows > 0 {
            w.write_batch(&cols).unwrap();
        }
        w.finish().unwrap();
        let path = dir.join(format!("{name}.parquet"));
        std::fs::write(&path, bytes).unwrap();
        files.push((path, rows, rg_rows));
    }
    let paths: Vec<PathBuf> = files.iter().map(|f| f.0.clone()).collect();
    let dumps = pyarrow_dump(&paths);
    for ((path, rows, rg_rows), dump) in files.iter().zip(&dumps) {
        assert!(
            dump.get("error").is_none(),
            "{}: {}",
            path.display(),
            dump["error"]
        );
        assert_eq!(dump["num_rows"], json!(rows));
        let groups = dump["row_groups"].as_array().unwrap();
        assert_eq!(groups.len(), rows.div_ceil(*rg_rows));
        for (f, c) in fields.iter().zip(&cols) {
            let expected: Vec<Value> = (0..*rows).map(|i| expected_value(f, c, i)).collect();
            assert_eq!(
                dump["columns"][&f.name],
                json!(expected),
                "{} {}",
                path.display(),
                f.name
            );
        }
        let mut start = 0;
        for g in groups {
            let rows = g[0]["num_values"].as_u64().unwrap() as usize;
            let s = &g[0]["statistics"];
            let valid: Vec<&Vec<u8>> = (start..start + rows)
                .filter(|&i| cols[0].is_valid(i))
                .map(|i| &long[i])
                .collect();
            if let (Some(lo), Some(hi)) = (valid.iter().min(), valid.iter().max()) {
                // Truncated to 64 bytes on a char boundary; the max rounded up.
                let min = hex_of(&lo[..64]);
                let mut max = hi[..62].to_vec();
                max.extend_from_slice("ê".as_bytes());
                assert_eq!(s["min"], json!(min), "{}", path.display());
                assert_eq!(s["max"], json!(hex_of(&max)), "{}", path.display());
            } else {
                assert_eq!(s["has_min_max"], json!(false));
            }
            assert_eq!(g[1]["statistics"]["has_min_max"], json!(false), "all NaN");
            assert_eq!(g[2]["statistics"]["null_count"], json!(rows), "all null");
            assert_eq!(g[2]["statistics"]["has_min_max"], json!(false), "all null");
            start += rows;
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn hex_of(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
