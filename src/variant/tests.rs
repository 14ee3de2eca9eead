//! The encoding against parquet-testing's `variant/` files, and bad bytes.

use super::*;
use crate::testdata::data_dir;

fn cases() -> Vec<(String, Vec<u8>, Vec<u8>)> {
    let dir = data_dir().join("../variant");
    let mut out = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap() {
        let path = e.unwrap().path();
        if path.extension().is_some_and(|x| x == "value") {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let value = std::fs::read(&path).unwrap();
            let metadata = std::fs::read(path.with_extension("metadata")).unwrap();
            out.push((name, metadata, value));
        }
    }
    out.sort();
    assert!(
        out.len() >= 29,
        "variant/ cases missing in {}",
        dir.display()
    );
    out
}

#[test]
fn every_file_decodes_and_reencodes_to_its_bytes() {
    for (name, metadata, value) in cases() {
        let m = VariantMetadata::new(&metadata).unwrap_or_else(|e| panic!("{name}: {e}"));
        let v = VariantRef::new(m, &value).unwrap_or_else(|e| panic!("{name}: {e}"));
        v.validate().unwrap_or_else(|e| panic!("{name}: {e}"));
        let mut dict = MetadataBuilder::extend(&m);
        let mut out = Vec::new();
        write_variant_ref(&v, &mut dict, &mut out).unwrap();
        assert_eq!(out, value, "{name}: value re-encoded");
        assert_eq!(dict.finish(), metadata, "{name}: metadata re-encoded");
        // The owned tree encodes with a fresh dictionary and decodes back to itself.
        let owned = v.to_owned_variant().unwrap();
        let enc = owned.encode().unwrap();
        assert_eq!(enc.decode().unwrap(), owned, "{name}: owned round trip");
    }
}

#[test]
fn primitives_decode_to_their_values() {
    let get = |name: &str| {
        let c = cases().into_iter().find(|c| c.0 == name).unwrap();
        Variant::decode(&c.1, &c.2).unwrap()
    };
    assert_eq!(get("primitive_int8"), Variant::Int8(42));
    assert_eq!(get("primitive_int16"), Variant::Int16(1234));
    assert_eq!(get("primitive_int32"), Variant::Int32(123456));
    assert_eq!(get("primitive_null"), Variant::Null);
    assert_eq!(get("primitive_boolean_true"), Variant::Boolean(true));
    assert_eq!(get("primitive_boolean_false"), Variant::Boolean(false));
    assert_eq!(
        get("primitive_decimal4"),
        Variant::Decimal4 {
            unscaled: 1234,
            scale: 2
        }
    );
    assert_eq!(get("primitive_date"), Variant::Date(20194));
    assert_eq!(
        get("primitive_binary"),
        Variant::Binary(vec![0x03, 0x13, 0x37, 0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe])
    );
    let Variant::Object(o) = get("object_primitive") else {
        panic!("object_primitive is an object")
    };
    assert_eq!(o["int_field"], Variant::Int8(1));
    assert_eq!(o["boolean_true_field"], Variant::Boolean(true));
    let Variant::Array(a) = get("array_primitive") else {
        panic!("array_primitive is an array")
    };
    assert_eq!(a, [2, 1, 5, 9].map(Variant::Int8));
}

/// Every truncation and every single-byte corruption of every case is an `Ok` or an `Err`,
/// never a panic, and a truncated value is always an `Err`.
#[test]
fn truncated_and_corrupted_bytes_are_errors_not_panics() {
    for (name, metadata, value) in cases() {
        let m = VariantMetadata::new(&metadata).unwrap();
        for n in 0..value.len() {
            let r = VariantRef::new(m, &value[..n]).and_then(|v| v.to_owned_variant());
            assert!(r.is_err(), "{name}: value truncated to {n} bytes decoded");
        }
        for n in 0..metadata.len() {
            assert!(
                VariantMetadata::new(&metadata[..n]).is_err(),
                "{name}: metadata truncated to {n}"
            );
        }
        for i in 0..value.len() {
            for flip in [0x01u8, 0x04, 0x10, 0x40, 0x80, 0xff] {
                let mut bad = value.clone();
                bad[i] ^= flip;
                let _ = VariantRef::new(m, &bad).and_then(|v| v.to_owned_variant());
            }
        }
        for i in 0..metadata.len() {
            for flip in [0x01u8, 0x10, 0x40, 0x80, 0xff] {
                let mut bad = metadata.clone();
                bad[i] ^= flip;
                if let Ok(m) = VariantMetadata::new(&bad) {
                    let _ = VariantRef::new(m, &value).and_then(|v| v.to_owned_variant());
                }
            }
        }
    }
}

#[test]
fn headers_that_claim_more_than_is_present_are_errors() {
    // A metadata dictionary of 2^32 - 1 strings in 5 bytes.
    assert!(VariantMetadata::new(&[0xc1, 0xff, 0xff, 0xff, 0xff]).is_err());
    // Version 2.
    assert!(VariantMetadata::new(&[0x02, 0x00, 0x00]).is_err());
    // Flagged sorted but not sorted.
    let unsorted = [0x11, 2, 0, 1, 2, b'b', b'a'];
    assert!(VariantMetadata::new(&unsorted).is_err());
    let m = VariantMetadata::new(&[0x01, 0x00, 0x00]).unwrap();
    // A large array of 2^32 - 1 elements in 6 bytes.
    assert!(VariantRef::new(m, &[0x03 | (0x07 << 2), 0xff, 0xff, 0xff, 0xff, 0]).is_err());
    // A long string whose length runs past the end.
    assert!(VariantRef::new(m, &[16 << 2, 10, 0, 0, 0, b'a']).is_err());
    // An object naming field id 0 of an empty dictionary.
    let obj = VariantRef::new(m, &[0x02, 1, 0, 0, 1, 0x00]).unwrap();
    assert!(obj.validate().is_err());
    // An unknown primitive type.
    assert!(VariantRef::new(m, &[21 << 2]).is_err());
    // Decimal scale above 38.
    assert!(VariantRef::new(m, &[8 << 2, 39, 0, 0, 0, 0]).is_err());
}

#[test]
fn builder_sorts_field_ids_by_name_and_keeps_value_order() {
    let mut dict = MetadataBuilder::with_names(["zeta", "alpha"]);
    let mut w = ObjectWriter::new();
    w.field(dict.id("zeta"), |b| {
        write_primitive(b, &VariantRef::Int8(1))
    })
    .unwrap();
    w.field(dict.id("alpha"), |b| {
        write_primitive(b, &VariantRef::Int8(2))
    })
    .unwrap();
    let mut value = Vec::new();
    w.finish(&dict, &mut value).unwrap();
    // ids [1 (alpha), 0 (zeta)], offsets [2, 0, 4]: values in the order written.
    assert_eq!(value, [0x02, 2, 1, 0, 2, 0, 4, 0x0c, 1, 0x0c, 2]);
    let metadata = dict.finish();
    assert_eq!(metadata[0] & 0x10, 0, "zeta, alpha is not sorted");
    let v = Variant::decode(&metadata, &value).unwrap();
    let Variant::Object(o) = v else { panic!() };
    assert_eq!(o["alpha"], Variant::Int8(2));
    assert_eq!(o["zeta"], Variant::Int8(1));
    // A repeated name is an error.
    let mut w = ObjectWriter::new();
    w.field_raw(0, &[0]);
    w.field_raw(0, &[0]);
    assert!(w.finish(&dict, &mut Vec::new()).is_err());
}

#[test]
fn wide_offsets_and_large_counts() {
    // 300 fields with long names: 2-byte ids, is_large, 2-byte offsets.
    let fields: std::collections::BTreeMap<String, Variant> = (0..300)
        .map(|i| (format!("field_{i:04}"), Variant::String("x".repeat(i % 70))))
        .collect();
    let v = Variant::Object(fields);
    let enc = v.encode().unwrap();
    assert_eq!(enc.value[0] >> 2 & 0x10, 0x10, "is_large");
    assert_eq!(enc.decode().unwrap(), v);
    // A 70 000-byte string in an array: 3-byte offsets.
    let v = Variant::Array(vec![Variant::String("y".repeat(70_000)), Variant::Null]);
    let enc = v.encode().unwrap();
    assert_eq!(enc.value[0] >> 2 & 3, 2, "3-byte offsets");
    assert_eq!(enc.decode().unwrap(), v);
}

/// Our JSON of each case parses to the value of upstream's `data_dictionary.json`, except
/// where JSON has no type and the two print differently (time and timestamp formats), and
/// numbers compare to the precision the value has (Spark prints a float through a double).
#[test]
fn json_matches_data_dictionary() {
    use serde_json::Value as Json;
    let text = std::fs::read_to_string(data_dir().join("../variant/data_dictionary.json")).unwrap();
    // Upstream's file has a trailing comma.
    let text = text
        .trim_end()
        .trim_end_matches('}')
        .trim_end()
        .trim_end_matches(',');
    let want: serde_json::Map<String, Json> = serde_json::from_str(&format!("{text}}}")).unwrap();
    fn same(a: &Json, b: &Json) -> bool {
        match (a, b) {
            (Json::Number(x), Json::Number(y)) => {
                let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
                (x - y).abs() <= 1e-7 * x.abs().max(1.0)
            }
            (Json::Array(x), Json::Array(y)) => {
                x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
            }
            (Json::Object(x), Json::Object(y)) => {
                x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
            }
            _ => a == b,
        }
    }
    let mut compared = 0;
    for (name, metadata, value) in cases() {
        let Some(want) = want.get(&name).filter(|_| !name.contains("time")) else {
            continue;
        };
        let m = VariantMetadata::new(&metadata).unwrap();
        let got = VariantRef::new(m, &value).unwrap().to_json().unwrap();
        let got: Json = serde_json::from_str(&got).unwrap_or_else(|e| panic!("{name}: {got}: {e}"));
        assert!(same(&got, want), "{name}: {got} != {want}");
        compared += 1;
    }
    assert!(compared >= 23, "{compared} compared");
}
