//! parquet-testing's `shredded_variant/` suite: all 138 cases of `cases.json`.
//!
//! A rebuilt variant is compared *logically* with its `.variant.bin`: both are decoded to
//! `parq::variant::Variant`, whose objects are maps by field name, so the order of the
//! metadata dictionary, the order values were written in and the offset widths may differ,
//! while every primitive must have the same Variant type and value.

use std::path::PathBuf;

use parq::read::ParquetReader;
use parq::variant::{Variant, VariantMetadata, VariantRef};
use serde_json::Value as Json;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/shredded_variant")
}

fn expected(file: &str) -> Variant {
    let bytes = std::fs::read(dir().join(file)).unwrap();
    let (m, value) = VariantMetadata::parse_prefix(&bytes).unwrap();
    VariantRef::new(m, value)
        .and_then(|v| v.to_owned_variant())
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn read(file: &str) -> parq::Result<Vec<Option<Variant>>> {
    let bytes = std::fs::read(dir().join(file)).unwrap();
    let reader = ParquetReader::new(bytes::Bytes::from(bytes))?;
    let array = reader.read_variant("var")?;
    (0..array.len())
        .map(|i| array.get(i).map(|v| v?.to_owned_variant()).transpose())
        .collect()
}

#[test]
fn all_cases_rebuild_their_variants_or_fail() {
    let cases: Vec<Json> =
        serde_json::from_slice(&std::fs::read(dir().join("cases.json")).unwrap()).unwrap();
    let (mut single, mut multi, mut errors) = (0, 0, 0);
    let mut failures = Vec::new();
    for case in &cases {
        let n = &case["case_number"];
        let Some(file) = case["parquet_file"].as_str() else {
            continue; // case 3 has no files upstream
        };
        let got = read(file);
        if let Some(msg) = case["error_message"].as_str() {
            errors += 1;
            if let Ok(v) = got {
                failures.push(format!("case {n} ({msg}): read {v:?}"));
            }
            continue;
        }
        let want: Vec<Option<Variant>> = if let Some(f) = case["variant_file"].as_str() {
            single += 1;
            vec![Some(expected(f))]
        } else {
            multi += 1;
            case["variant_files"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f.as_str().map(expected))
                .collect()
        };
        match got {
            Ok(got) if got == want => {}
            Ok(got) => failures.push(format!("case {n} {file}: got {got:?}, want {want:?}")),
            Err(e) => failures.push(format!("case {n} {file}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!((single, multi, errors), (128, 3, 6), "cases counted");
}

/// The errors say which row and which path, so that bad data can be found.
#[test]
fn conflict_errors_name_the_row_and_path() {
    for (file, path) in [
        ("case-040.parquet", "path var[0]:"),
        ("case-042.parquet", "path var:"),
        ("case-087.parquet", "path var:"),
        ("case-128.parquet", "path var:"),
    ] {
        let e = read(file).unwrap_err().to_string();
        assert!(e.contains("row 0") && e.contains(path), "{file}: {e}");
    }
    for file in ["case-127.parquet", "case-137.parquet"] {
        let e = read(file).unwrap_err().to_string();
        assert!(
            e.contains("unsupported: shredded value type"),
            "{file}: {e}"
        );
    }
}

/// Unshredded files take the borrowed path (no copy of any value), shredded ones rebuild.
#[test]
fn unshredded_columns_are_borrowed_not_rebuilt() {
    use parq::codecs::probe;
    if !probe::ENABLED {
        return;
    }
    let cases: Vec<Json> =
        serde_json::from_slice(&std::fs::read(dir().join("cases.json")).unwrap()).unwrap();
    let unshredded = cases
        .iter()
        .find(|c| c["test"] == "testUnshreddedVariants")
        .and_then(|c| c["parquet_file"].as_str())
        .unwrap();
    probe::reset();
    read(unshredded).unwrap();
    assert_eq!(probe::get("variant.read_unshredded_borrowed"), 1);
    assert_eq!(probe::get("variant.read_rebuilt"), 0);
    probe::reset();
    read("case-001.parquet").unwrap();
    assert_eq!(probe::get("variant.read_unshredded_borrowed"), 0);
    assert_eq!(probe::get("variant.read_rebuilt"), 1);
}

/// A shredded object is assembled by merging its shredded fields with the name-ordered fields
/// of its `value` in one walk; a `value` object whose fields are out of name order (which the
/// spec forbids, and which is read anyway) takes the sorting path, with the same answer.
#[test]
fn shredded_objects_merge_by_name_and_sort_only_out_of_order_values() {
    use parq::array::Array;
    use parq::codecs::probe;
    use parq::column::{Column, Values};
    use parq::variant::{shred, variant_field, write_primitive, ObjectWriter};
    use parq::variant::{ShreddedType, Shredding, VariantArray};
    let schema = Shredding::Object(vec![
        ("d".into(), Shredding::Primitive(ShreddedType::String)),
        ("b".into(), Shredding::Primitive(ShreddedType::Int8)),
    ]);
    let row = |k: i8| {
        Variant::Object(
            [
                ("a".to_string(), Variant::Int8(k)),
                ("b".to_string(), Variant::Int8(2)),
                ("c".to_string(), Variant::Int8(3)),
                ("d".to_string(), Variant::String("x".into())),
                ("e".to_string(), Variant::Int8(5)),
            ]
            .into(),
        )
    };
    let rows = vec![Some(row(1)), Some(row(1)), Some(row(7))];
    let Array::Struct(mut group) =
        shred(&VariantArray::from_variants(&rows).unwrap(), &schema).unwrap()
    else {
        panic!("a variant group is a struct")
    };
    // Row 0's `value` ({a, c, e}, ids 0, 2, 4 of the sorted dictionary a..e) with its fields
    // listed out of order: e, a, c.
    let bad = [0x02, 3, 4, 0, 2, 0, 2, 4, 6, 0x0C, 5, 0x0C, 1, 0x0C, 3];
    let Array::Primitive(value) = &group.children[1] else {
        panic!("value is a leaf")
    };
    let mut data = bad.to_vec();
    let mut offsets = vec![0i64, data.len() as i64];
    for i in 1..value.len {
        data.extend_from_slice(value.bytes(i).unwrap());
        offsets.push(data.len() as i64);
    }
    group.children[1] = Array::Primitive(Column {
        len: value.len,
        validity: None,
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: data.into(),
        },
    });
    probe::reset();
    let back =
        VariantArray::from_group(&variant_field("var", &schema), &Array::Struct(group)).unwrap();
    for (i, want) in rows.iter().enumerate() {
        let got = back.get(i).unwrap().unwrap();
        got.validate().unwrap();
        assert_eq!(Some(got.to_owned_variant().unwrap()), *want, "row {i}");
    }
    if probe::ENABLED {
        assert_eq!(probe::get("variant.object_sorted"), 1);
        assert_eq!(probe::get("variant.object_merged"), 2);
        // One dictionary for the three rows: decoded once.
        assert_eq!(probe::get("variant.metadata_decoded"), 1);
        assert_eq!(probe::get("variant.metadata_reused"), 2);
    }
    // A merged row is the bytes the sorting path (`ObjectWriter::finish_with_names`) writes:
    // shredded values first in schema order, then `value`'s, ids in name order.
    let (metadata, merged) = back.encoded(1).unwrap();
    let m = VariantMetadata::new(metadata).unwrap();
    let mut w = ObjectWriter::new();
    let int8 = |x: i8| move |b: &mut Vec<u8>| write_primitive(b, &VariantRef::Int8(x));
    w.field(3, |b| write_primitive(b, &VariantRef::String("x")))
        .unwrap();
    w.field(1, int8(2)).unwrap();
    w.field(0, int8(1)).unwrap();
    w.field(2, int8(3)).unwrap();
    w.field(4, int8(5)).unwrap();
    let mut want = Vec::new();
    w.finish_with_names(|id| m.get(id as usize).ok(), &mut want)
        .unwrap();
    assert_eq!(merged, &want[..]);
}
