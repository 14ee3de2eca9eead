//! The Variant binary encoding from arbitrary bytes: the first two bytes (little-endian) are
//! the metadata's length, the metadata follows, the rest is the value (seeded with
//! parquet-testing's `variant/` and `shredded_variant/` values).
//!
//! Decoding may fail; it must not panic, hang or allocate by an unchecked header. A value that
//! decodes must print as JSON, and re-encode (against its own dictionary, and with a fresh
//! one) to bytes that decode to the same value.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::variant::{write_variant_ref, MetadataBuilder, Variant, VariantMetadata, VariantRef};

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let n = usize::from(u16::from_le_bytes([data[0], data[1]])).min(data.len() - 2);
    let (metadata, value) = data[2..].split_at(n);
    let Ok(m) = VariantMetadata::new(metadata) else {
        return;
    };
    for (i, s) in m.iter().enumerate() {
        assert_eq!(m.get(i).unwrap(), s);
    }
    let Ok(v) = VariantRef::new(m, value) else {
        return;
    };
    let owned = v.to_owned_variant();
    assert_eq!(
        owned.is_ok(),
        v.validate().is_ok(),
        "validate and to_owned_variant agree"
    );
    let Ok(owned) = owned else {
        let _ = v.to_json();
        return;
    };
    v.to_json().expect("a valid value prints as JSON");
    // Against its own dictionary: the same value back.
    let mut dict = MetadataBuilder::extend(&m);
    let mut out = Vec::new();
    write_variant_ref(&v, &mut dict, &mut out).expect("a valid value re-encodes");
    let metadata2 = dict.finish();
    let again = Variant::decode(&metadata2, &out).expect("re-encoded bytes decode");
    assert!(same(&again, &owned), "re-encoded value differs");
    // With a fresh dictionary.
    let fresh = owned.encode().expect("encodes");
    assert!(
        same(&fresh.decode().expect("decodes"), &owned),
        "fresh encoding differs"
    );
});

/// Equality with NaN equal to itself (bit patterns of floats compared).
fn same(a: &Variant, b: &Variant) -> bool {
    match (a, b) {
        (Variant::Float(x), Variant::Float(y)) => x.to_bits() == y.to_bits(),
        (Variant::Double(x), Variant::Double(y)) => x.to_bits() == y.to_bits(),
        (Variant::Object(x), Variant::Object(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|((k, v), (l, w))| k == l && same(v, w))
        }
        (Variant::Array(x), Variant::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w))
        }
        _ => a == b,
    }
}
