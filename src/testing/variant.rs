//! Random variants and shredding schemas: every primitive type (edge values included), objects
//! over a small set of field names (so that random shredding schemas hit them) and arrays,
//! nested a few levels; and shredding schemas over the same names and every shredded type.
//!
//! Values are valid Variant data: decimals within their precision, no NaN (so that values
//! compare equal to themselves).
//!
//! ```
//! use parq::testing::variant::{shredding, variant_rows};
//! use proptest::prelude::*;
//! use proptest::strategy::ValueTree;
//! use proptest::test_runner::TestRunner;
//! let mut runner = TestRunner::default();
//! let rows = variant_rows(10).new_tree(&mut runner).unwrap().current();
//! assert!(rows.len() <= 10);
//! let _schema = shredding().new_tree(&mut runner).unwrap().current();
//! ```

use std::collections::BTreeMap;

use proptest::prelude::*;

use super::{Entropy, Rng};
use crate::variant::{ShreddedType, Shredding, Variant};

/// Field names objects draw from (a few, so that schemas and values overlap).
pub const NAMES: [&str; 6] = ["a", "b", "c", "id", "tags", "nested"];

/// A random variant, nested at most `depth` levels.
pub fn random_variant(e: &mut dyn Entropy, depth: usize) -> Variant {
    let kinds = if depth == 0 { 20 } else { 24 };
    match e.below(kinds) {
        20 | 21 => {
            let n = e.below(5);
            let mut fields = BTreeMap::new();
            for _ in 0..n {
                let name = if e.chance(0.1) {
                    format!("k{}", e.below(100))
                } else {
                    (*e.pick(&NAMES)).to_string()
                };
                fields.insert(name, random_variant(e, depth - 1));
            }
            Variant::Object(fields)
        }
        22 | 23 => Variant::Array(
            (0..e.below(5))
                .map(|_| random_variant(e, depth - 1))
                .collect(),
        ),
        k => random_primitive(e, k),
    }
}

fn random_primitive(e: &mut dyn Entropy, kind: u64) -> Variant {
    let edge = e.chance(0.2);
    let int = |e: &mut dyn Entropy, lo: i64, hi: i64| {
        if edge {
            (*e.pick(&[lo, hi, 0, -1, 1])).clamp(lo, hi)
        } else {
            e.range(lo, hi)
        }
    };
    let scale = |e: &mut dyn Entropy, max: u64| e.below(max + 1) as u8;
    match kind {
        0 => Variant::Null,
        1 => Variant::Boolean(e.chance(0.5)),
        2 => Variant::Int8(int(e, i8::MIN.into(), i8::MAX.into()) as i8),
        3 => Variant::Int16(int(e, i16::MIN.into(), i16::MAX.into()) as i16),
        4 => Variant::Int32(int(e, i32::MIN.into(), i32::MAX.into()) as i32),
        5 => Variant::Int64(int(e, i64::MIN, i64::MAX)),
        6 => Variant::Float(if edge {
            *e.pick(&[0.0, -0.0, f32::INFINITY, f32::MIN_POSITIVE])
        } else {
            e.range(-1_000_000, 1_000_000) as f32 / 64.0
        }),
        7 => Variant::Double(if edge {
            *e.pick(&[0.0, -0.0, f64::NEG_INFINITY, f64::MAX])
        } else {
            f64::from_bits(e.bits() & !(0x7ff << 52)) // finite
        }),
        8 => Variant::Decimal4 {
            unscaled: int(e, -999_999_999, 999_999_999) as i32,
            scale: scale(e, 9),
        },
        9 => Variant::Decimal8 {
            unscaled: int(e, -999_999_999_999_999_999, 999_999_999_999_999_999),
            scale: scale(e, 18),
        },
        10 => Variant::Decimal16 {
            unscaled: i128::from(int(e, i64::MIN, i64::MAX)) * i128::from(e.range(1, 1 << 40)),
            scale: scale(e, 38),
        },
        11 => Variant::Date(int(e, -1_000_000, 1_000_000) as i32),
        12 => Variant::TimestampMicros(int(e, i64::MIN, i64::MAX)),
        13 => Variant::TimestampNtzMicros(int(e, i64::MIN, i64::MAX)),
        14 => Variant::TimeMicros(int(e, 0, 86_399_999_999)),
        15 => Variant::TimestampNanos(int(e, i64::MIN, i64::MAX)),
        16 => Variant::TimestampNtzNanos(int(e, i64::MIN, i64::MAX)),
        17 => Variant::Binary((0..e.below(20)).map(|_| e.bits() as u8).collect()),
        18 => {
            let long = e.chance(0.2);
            let n = if long { 64 + e.below(40) } else { e.below(12) };
            Variant::String(
                (0..n)
                    .map(|_| *e.pick(&['a', 'z', 'é', '€', '🦀', '"', '\n']))
                    .collect(),
            )
        }
        _ => {
            let mut u = [0u8; 16];
            u.iter_mut().for_each(|b| *b = e.bits() as u8);
            Variant::Uuid(u)
        }
    }
}

/// Every shredded type (decimals at a few scales).
pub fn shredded_types() -> Vec<ShreddedType> {
    use ShreddedType as S;
    let mut out = vec![
        S::Boolean,
        S::Int8,
        S::Int16,
        S::Int32,
        S::Int64,
        S::Float,
        S::Double,
        S::Date,
        S::Time,
        S::Binary,
        S::String,
        S::Uuid,
    ];
    for (utc, nanos) in [(true, false), (false, false), (true, true), (false, true)] {
        out.push(S::Timestamp { utc, nanos });
    }
    for s in [0, 2] {
        out.extend([S::Decimal4(s), S::Decimal8(s), S::Decimal16(s)]);
    }
    out
}

/// A random shredding schema over [`NAMES`], nested at most `depth` levels.
pub fn random_shredding(e: &mut dyn Entropy, depth: usize) -> Shredding {
    let kinds = if depth == 0 { 2 } else { 4 };
    match e.below(kinds) {
        0 => Shredding::Unshredded,
        1 => Shredding::Primitive(*e.pick(&shredded_types())),
        2 => {
            let mut names: Vec<&str> = NAMES.to_vec();
            let n = 1 + e.below(3) as usize;
            let mut fields = Vec::new();
            for _ in 0..n {
                let i = e.below(names.len() as u64) as usize;
                let name = names.swap_remove(i);
                fields.push((name.to_string(), random_shredding(e, depth - 1)));
            }
            Shredding::Object(fields)
        }
        _ => Shredding::Array(Box::new(random_shredding(e, depth - 1))),
    }
}

/// A random variant that mostly fits `shredding` (so that its typed columns fill): of the
/// shredded type nine times in ten, objects with most shredded fields and a few others.
pub fn variant_like(e: &mut dyn Entropy, shredding: &Shredding) -> Variant {
    use ShreddedType as S;
    if e.chance(0.1) {
        return random_variant(e, 2);
    }
    match shredding {
        Shredding::Unshredded => random_variant(e, 2),
        Shredding::Primitive(t) => {
            let kind = match t {
                S::Boolean => 1,
                S::Int8 => 2,
                S::Int16 => 3,
                S::Int32 => 4,
                S::Int64 => 5,
                S::Float => 6,
                S::Double => 7,
                S::Decimal4(_) => 8,
                S::Decimal8(_) => 9,
                S::Decimal16(_) => 10,
                S::Date => 11,
                S::Timestamp {
                    utc: true,
                    nanos: false,
                } => 12,
                S::Timestamp {
                    utc: false,
                    nanos: false,
                } => 13,
                S::Time => 14,
                S::Timestamp {
                    utc: true,
                    nanos: true,
                } => 15,
                S::Timestamp {
                    utc: false,
                    nanos: true,
                } => 16,
                S::Binary => 17,
                S::String => 18,
                S::Uuid => 19,
            };
            match (random_primitive(e, kind), t) {
                (Variant::Decimal4 { unscaled, .. }, S::Decimal4(scale)) => Variant::Decimal4 {
                    unscaled,
                    scale: *scale,
                },
                (Variant::Decimal8 { unscaled, .. }, S::Decimal8(scale)) => Variant::Decimal8 {
                    unscaled,
                    scale: *scale,
                },
                (Variant::Decimal16 { unscaled, .. }, S::Decimal16(scale)) => Variant::Decimal16 {
                    unscaled,
                    scale: *scale,
                },
                (v, _) => v,
            }
        }
        Shredding::Object(fields) => {
            let mut out = BTreeMap::new();
            for (name, s) in fields {
                if e.chance(0.8) {
                    out.insert(name.clone(), variant_like(e, s));
                }
            }
            for _ in 0..e.below(3) {
                out.insert(format!("extra{}", e.below(4)), random_variant(e, 1));
            }
            Variant::Object(out)
        }
        Shredding::Array(element) => {
            Variant::Array((0..e.below(5)).map(|_| variant_like(e, element)).collect())
        }
    }
}

/// A random shredding schema and up to `max_rows` rows that mostly fit it (about one in
/// eight null).
pub fn shredded_rows(max_rows: usize) -> impl Strategy<Value = (Shredding, Vec<Option<Variant>>)> {
    (any::<u64>(), 0..=max_rows).prop_map(|(seed, n)| {
        let mut rng = Rng::new(seed);
        let schema = random_shredding(&mut rng, 3);
        let rows = (0..n)
            .map(|_| (!rng.chance(0.125)).then(|| variant_like(&mut rng, &schema)))
            .collect();
        (schema, rows)
    })
}

/// Up to `max_rows` rows of random variants (about one in eight null), 3 levels deep.
pub fn variant_rows(max_rows: usize) -> impl Strategy<Value = Vec<Option<Variant>>> {
    (any::<u64>(), 0..=max_rows).prop_map(|(seed, n)| {
        let mut rng = Rng::new(seed);
        (0..n)
            .map(|_| (!rng.chance(0.125)).then(|| random_variant(&mut rng, 3)))
            .collect()
    })
}

/// A random shredding schema, 3 levels deep.
pub fn shredding() -> impl Strategy<Value = Shredding> {
    any::<u64>().prop_map(|seed| random_shredding(&mut Rng::new(seed), 3))
}
