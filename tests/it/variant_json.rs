//! Variant JSON text against a straightforward reference rendering, byte for byte: numbers
//! through `Display`, strings escaped character by character, UUIDs through `{:02x}`, objects
//! and arrays walked from the owned tree. The types whose rendering has fixed expectations in
//! the unit tests of `variant::json` (dates, times, timestamps, binary, floats) are taken from
//! there.

use std::fmt::Write as _;

use parq::testing::variant::variant_rows;
use parq::variant::{json_string, Variant, VariantArray, VariantRef};
use proptest::prelude::*;

fn reference_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32).unwrap(),
            c => out.push(c),
        }
    }
    out.push('"');
}

fn reference_decimal(unscaled: i128, scale: u8, out: &mut String) {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = usize::from(scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale == 0 {
        write!(out, "{sign}{digits}").unwrap();
    } else if digits.len() > scale {
        let (int, frac) = digits.split_at(digits.len() - scale);
        write!(out, "{sign}{int}.{frac}").unwrap();
    } else {
        write!(out, "{sign}0.{}{digits}", "0".repeat(scale - digits.len())).unwrap();
    }
}

fn reference(v: &Variant, out: &mut String) {
    match v {
        Variant::Int8(x) => write!(out, "{x}").unwrap(),
        Variant::Int16(x) => write!(out, "{x}").unwrap(),
        Variant::Int32(x) => write!(out, "{x}").unwrap(),
        Variant::Int64(x) => write!(out, "{x}").unwrap(),
        Variant::Decimal4 { unscaled, scale } => reference_decimal((*unscaled).into(), *scale, out),
        Variant::Decimal8 { unscaled, scale } => reference_decimal((*unscaled).into(), *scale, out),
        Variant::Decimal16 { unscaled, scale } => reference_decimal(*unscaled, *scale, out),
        Variant::String(s) => reference_string(s, out),
        Variant::Uuid(u) => {
            out.push('"');
            for (i, b) in u.iter().enumerate() {
                if matches!(i, 4 | 6 | 8 | 10) {
                    out.push('-');
                }
                write!(out, "{b:02x}").unwrap();
            }
            out.push('"');
        }
        // A BTreeMap: name order, the order of an encoded object's fields.
        Variant::Object(fields) => {
            out.push('{');
            for (i, (name, value)) in fields.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                reference_string(name, out);
                out.push(':');
                reference(value, out);
            }
            out.push('}');
        }
        Variant::Array(elements) => {
            out.push('[');
            for (i, e) in elements.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                reference(e, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_json().unwrap()),
    }
}

fn expected(v: &Variant) -> String {
    let mut out = String::new();
    reference(v, &mut out);
    out
}

proptest! {
    #[test]
    fn random_variants_render_as_the_reference(rows in variant_rows(30)) {
        for v in rows.iter().flatten() {
            prop_assert_eq!(v.to_json().unwrap(), expected(v));
        }
    }

    #[test]
    fn a_column_renders_row_by_row_as_the_reference(rows in variant_rows(30)) {
        let (mut text, mut offsets) = (String::new(), vec![0]);
        VariantArray::from_variants(&rows).unwrap().write_json(&mut text, &mut offsets).unwrap();
        prop_assert_eq!(offsets.len(), rows.len() + 1);
        for (i, v) in rows.iter().enumerate() {
            let want = v.as_ref().map_or(String::new(), expected);
            prop_assert_eq!(&text[offsets[i]..offsets[i + 1]], want.as_str());
        }
    }

    #[test]
    fn any_string_escapes_as_the_reference(s in any::<String>(), controls in "[\\x00-\\x20\"\\\\a-z\\x7f\u{e9}\u{20ac}]{0,40}") {
        for s in [s.as_str(), controls.as_str()] {
            prop_assert_eq!(VariantRef::String(s).to_json().unwrap(), expected(&Variant::String(s.into())));
            let mut out = String::new();
            json_string(&mut out, s);
            prop_assert_eq!(out, expected(&Variant::String(s.into())));
        }
    }

    #[test]
    fn any_integer_and_decimal_renders_as_the_reference(x in any::<i64>(), d in any::<i128>(), scale in 0u8..=38) {
        for v in [Variant::Int64(x), Variant::Int32(x as i32), Variant::Int16(x as i16), Variant::Int8(x as i8)] {
            prop_assert_eq!(v.to_json().unwrap(), expected(&v));
        }
        // Within decimal16's 38 digits.
        let d = d % 10i128.pow(38);
        for v in [
            Variant::Decimal16 { unscaled: d, scale },
            Variant::Decimal8 { unscaled: (d % 10i128.pow(18)) as i64, scale: scale.min(18) },
            Variant::Decimal4 { unscaled: (d % 10i128.pow(9)) as i32, scale: scale.min(9) },
        ] {
            prop_assert_eq!(v.to_json().unwrap(), expected(&v));
        }
    }
}

#[test]
fn integer_edges_render_as_the_reference() {
    for x in [
        i64::MIN,
        i64::MAX,
        0,
        -1,
        9,
        10,
        99,
        100,
        -100,
        1_000_000_007,
    ] {
        let v = Variant::Int64(x);
        assert_eq!(v.to_json().unwrap(), x.to_string());
    }
    let max = 10i128.pow(38) - 1;
    for d in [max, -max, 0, 5, -5] {
        let v = Variant::Decimal16 {
            unscaled: d,
            scale: 38,
        };
        assert_eq!(v.to_json().unwrap(), expected(&v));
    }
}
