//! Typed literals, and their coercion to a column's physical and logical type.

use std::cmp::Ordering;
use std::fmt;

use super::temporal::Temporal;
use crate::metadata::{ConvertedType, LogicalType, Type};
use crate::schema::{effective_logical_type, ColumnDescriptor};
use crate::{Error, Result};

/// A literal as written in an expression, before it meets a column.
#[derive(Debug, Clone, PartialEq)]
pub enum Literal {
    /// `true` / `false`.
    Bool(bool),
    /// An integer (wide enough for every `i64` and `u64`).
    Int(i128),
    /// A binary floating-point number.
    Float(f64),
    /// An exact decimal number `unscaled * 10^-scale`, as the parser reads `1.25`.
    Decimal {
        /// The digits as an integer.
        unscaled: i128,
        /// Digits after the point.
        scale: u32,
    },
    /// A string (compared as its UTF-8 bytes).
    String(String),
    /// Raw bytes.
    Bytes(Vec<u8>),
}

macro_rules! int_literal {
    ($($t:ty),*) => {$(
        impl From<$t> for Literal {
            fn from(v: $t) -> Self {
                Literal::Int(v as i128)
            }
        }
    )*};
}
int_literal!(i8, i16, i32, i64, u8, u16, u32, u64);

impl From<bool> for Literal {
    fn from(v: bool) -> Self {
        Literal::Bool(v)
    }
}

impl From<f32> for Literal {
    fn from(v: f32) -> Self {
        Literal::Float(v as f64)
    }
}

impl From<f64> for Literal {
    fn from(v: f64) -> Self {
        Literal::Float(v)
    }
}

impl From<&str> for Literal {
    fn from(v: &str) -> Self {
        Literal::String(v.to_string())
    }
}

impl From<String> for Literal {
    fn from(v: String) -> Self {
        Literal::String(v)
    }
}

impl From<&[u8]> for Literal {
    fn from(v: &[u8]) -> Self {
        Literal::Bytes(v.to_vec())
    }
}

impl From<Vec<u8>> for Literal {
    fn from(v: Vec<u8>) -> Self {
        Literal::Bytes(v)
    }
}

/// The literal in the expression grammar (bytes as a quoted string when they are UTF-8).
impl fmt::Display for Literal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Literal::Bool(b) => write!(f, "{b}"),
            Literal::Int(i) => write!(f, "{i}"),
            Literal::Float(x) => write!(f, "{x:?}"),
            Literal::Decimal { unscaled, scale } => f.write_str(&decimal_text(*unscaled, *scale)),
            Literal::String(s) => write!(f, "'{}'", s.replace('\'', "''")),
            Literal::Bytes(b) => match std::str::from_utf8(b) {
                Ok(s) => write!(f, "'{}'", s.replace('\'', "''")),
                Err(_) => write!(f, "{b:?}"),
            },
        }
    }
}

/// `unscaled * 10^-scale` as decimal text.
fn decimal_text(unscaled: i128, scale: u32) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let scale = scale as usize;
    let digits = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
    } else {
        digits
    };
    let (int, frac) = digits.split_at(digits.len() - scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    if scale == 0 {
        format!("{sign}{int}")
    } else {
        format!("{sign}{int}.{frac}")
    }
}

/// How values of a column compare: what literals are coerced into and statistics decoded as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Domain {
    /// BOOLEAN: false < true.
    Bool,
    /// INT32, signed (plain, signed integer, date, time, decimal).
    I32,
    /// INT32 annotated unsigned.
    U32,
    /// INT64, signed.
    I64,
    /// INT64 annotated unsigned.
    U64,
    /// FLOAT, compared as `f64`.
    F32,
    /// DOUBLE.
    F64,
    /// FIXED_LEN_BYTE_ARRAY(2) annotated FLOAT16, compared as `f64`.
    F16,
    /// BYTE_ARRAY / FIXED_LEN_BYTE_ARRAY: unsigned lexicographic.
    Bytes,
    /// A decimal stored as big-endian two's complement bytes (BYTE_ARRAY or FLBA), compared
    /// as a signed integer.
    Decimal,
}

/// What a column's stored numbers mean, for reading literals into them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Units {
    /// A decimal's scale: numbers are scaled by it, exactly.
    pub scale: Option<i32>,
    /// A DATE or TIMESTAMP: strings are read in their text forms.
    pub temporal: Option<Temporal>,
}

impl Units {
    /// The units of a decimal of scale `scale`.
    #[cfg(test)]
    pub(crate) fn scale(scale: i32) -> Units {
        Units {
            scale: Some(scale),
            temporal: None,
        }
    }
}

impl Domain {
    /// The domain of a leaf column, with the units its literals are read in.
    pub(crate) fn of(desc: &ColumnDescriptor) -> Result<(Domain, Units)> {
        let logical = effective_logical_type(desc);
        let scale = match logical {
            Some(LogicalType::Decimal { scale, .. }) => Some(scale),
            _ => None,
        };
        let temporal = match (&logical, desc.physical_type) {
            (Some(LogicalType::Date), Type::INT32) => Some(Temporal::Date),
            (
                Some(LogicalType::Timestamp {
                    is_adjusted_to_utc,
                    unit,
                }),
                Type::INT64,
            ) => Some(Temporal::Timestamp {
                unit: *unit,
                utc: *is_adjusted_to_utc,
            }),
            _ => None,
        };
        let unsigned = matches!(
            logical,
            Some(LogicalType::Integer {
                is_signed: false,
                ..
            })
        );
        let unsupported = |what: &str| {
            Err(Error::InvalidArgument(format!(
                "column {}: predicates on {what} columns are not supported",
                desc.path_string()
            )))
        };
        if desc.max_rep_level > 0 {
            return unsupported("repeated");
        }
        let domain = match desc.physical_type {
            Type::BOOLEAN => Domain::Bool,
            Type::INT32 if unsigned => Domain::U32,
            Type::INT32 => Domain::I32,
            Type::INT64 if unsigned => Domain::U64,
            Type::INT64 => Domain::I64,
            Type::FLOAT => Domain::F32,
            Type::DOUBLE => Domain::F64,
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY if scale.is_some() => {
                if desc.type_length.is_some_and(|w| w > 16) {
                    return unsupported("decimal wider than 16 bytes");
                }
                Domain::Decimal
            }
            Type::FIXED_LEN_BYTE_ARRAY if matches!(logical, Some(LogicalType::Float16)) => {
                if desc.type_length != Some(2) {
                    return unsupported("FLOAT16 not 2 bytes wide");
                }
                Domain::F16
            }
            _ if desc.converted_type == Some(ConvertedType::INTERVAL) => {
                return unsupported("INTERVAL")
            }
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => Domain::Bytes,
            Type::INT96 => return unsupported("INT96"),
            t => return unsupported(&format!("{t:?}")),
        };
        Ok((domain, Units { scale, temporal }))
    }

    /// Floats, where `NaN` exists.
    pub(crate) fn is_float(self) -> bool {
        matches!(self, Domain::F32 | Domain::F64 | Domain::F16)
    }

    /// A statistics bound (PLAIN bytes without length prefix) as a scalar; `None` when the
    /// bytes do not fit the type (garbage statistics decide nothing).
    pub(crate) fn decode(self, b: &[u8]) -> Option<Scalar> {
        Some(match self {
            Domain::Bool => match b {
                [x] => Scalar::Bool(*x != 0),
                _ => return None,
            },
            Domain::I32 => Scalar::I32(i32::from_le_bytes(b.try_into().ok()?)),
            Domain::U32 => Scalar::U32(u32::from_le_bytes(b.try_into().ok()?)),
            Domain::I64 => Scalar::I64(i64::from_le_bytes(b.try_into().ok()?)),
            Domain::U64 => Scalar::U64(u64::from_le_bytes(b.try_into().ok()?)),
            Domain::F32 => Scalar::F64(f32::from_le_bytes(b.try_into().ok()?) as f64),
            Domain::F64 => Scalar::F64(f64::from_le_bytes(b.try_into().ok()?)),
            Domain::F16 => Scalar::F64(f16_to_f64(u16::from_le_bytes(b.try_into().ok()?))),
            Domain::Bytes => Scalar::Bytes(b.to_vec()),
            Domain::Decimal => Scalar::Dec(be_to_i128(b)?),
        })
    }
}

/// A big-endian two's complement integer of 1..=16 bytes.
pub(crate) fn be_to_i128(b: &[u8]) -> Option<i128> {
    if b.is_empty() || b.len() > 16 {
        return None;
    }
    let fill = if b[0] & 0x80 != 0 { 0xff } else { 0 };
    let mut buf = [fill; 16];
    buf[16 - b.len()..].copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

/// An IEEE 754 half as `f64` (exact).
pub(crate) fn f16_to_f64(h: u16) -> f64 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let frac = (h & 0x3ff) as f64;
    sign * match exp {
        0 => frac * 2f64.powi(-24),
        31 if frac == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + frac / 1024.0) * 2f64.powi(e - 15),
    }
}

/// A literal coerced to a column's domain: what statistics and values are compared with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Scalar {
    Bool(bool),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    /// FLOAT, DOUBLE and FLOAT16 values, all exact as `f64`.
    F64(f64),
    Bytes(Vec<u8>),
    /// The unscaled value of a decimal stored as bytes.
    Dec(i128),
}

impl Scalar {
    /// The order of two scalars of the same domain; `None` when either is `NaN` (or the
    /// domains differ, which binding rules out).
    pub(crate) fn compare(&self, other: &Scalar) -> Option<Ordering> {
        match (self, other) {
            (Scalar::Bool(a), Scalar::Bool(b)) => Some(a.cmp(b)),
            (Scalar::I32(a), Scalar::I32(b)) => Some(a.cmp(b)),
            (Scalar::U32(a), Scalar::U32(b)) => Some(a.cmp(b)),
            (Scalar::I64(a), Scalar::I64(b)) => Some(a.cmp(b)),
            (Scalar::U64(a), Scalar::U64(b)) => Some(a.cmp(b)),
            (Scalar::F64(a), Scalar::F64(b)) => a.partial_cmp(b),
            (Scalar::Bytes(a), Scalar::Bytes(b)) => Some(a.cmp(b)),
            (Scalar::Dec(a), Scalar::Dec(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }

    pub(crate) fn is_nan(&self) -> bool {
        matches!(self, Scalar::F64(x) if x.is_nan())
    }
}

fn pow10(n: u32) -> Option<i128> {
    10i128.checked_pow(n)
}

/// A literal as an exact decimal `(unscaled, scale)`, if it is a number.
fn as_decimal(lit: &Literal) -> Option<(i128, u32)> {
    match lit {
        Literal::Int(i) => Some((*i, 0)),
        Literal::Decimal { unscaled, scale } => Some((*unscaled, *scale)),
        Literal::Float(x) if x.is_finite() => {
            // The shortest text that reads back as `x`, e.g. 0.1 -> "0.1".
            let text = format!("{x:?}");
            super::parse::parse_number(&text).and_then(|l| match l {
                Literal::Int(i) => Some((i, 0)),
                Literal::Decimal { unscaled, scale } => Some((unscaled, scale)),
                _ => None,
            })
        }
        _ => None,
    }
}

/// A literal as `f64`, if it is a number.
fn as_f64(lit: &Literal) -> Option<f64> {
    match lit {
        Literal::Int(i) => Some(*i as f64),
        Literal::Float(x) => Some(*x),
        Literal::Decimal { unscaled, scale } => format!("{unscaled}e-{scale}").parse().ok(),
        _ => None,
    }
}

/// Coerce `lit` to the domain of the column `column` (for error messages), scaling numbers
/// by a decimal scale and reading strings as dates or timestamps where `units` says so.
pub(crate) fn coerce(lit: &Literal, domain: Domain, units: Units, column: &str) -> Result<Scalar> {
    let scale = units.scale;
    let fail = |why: &str| {
        Error::InvalidArgument(format!(
            "column {column}: literal {lit} cannot be compared with a {} column{why}",
            match units.temporal {
                Some(t) => temporal_name(t),
                None => domain_name(domain, scale),
            }
        ))
    };
    if let (Some(t), Literal::String(text)) = (units.temporal, lit) {
        let v = t.parse(text).map_err(|why| fail(&format!(" ({why})")))?;
        let range = || fail(" (out of range)");
        return Ok(match domain {
            Domain::I32 => Scalar::I32(v.try_into().map_err(|_| range())?),
            _ => Scalar::I64(v.try_into().map_err(|_| range())?),
        });
    }
    // A number as an integer of the column's unit: scaled for decimals, exact.
    let integer = || -> Result<i128> {
        let (unscaled, lit_scale) = as_decimal(lit).ok_or_else(|| fail(""))?;
        let target = scale.unwrap_or(0).max(0) as u32;
        if lit_scale <= target {
            pow10(target - lit_scale)
                .and_then(|p| unscaled.checked_mul(p))
                .ok_or_else(|| fail(" (out of range)"))
        } else {
            let p = pow10(lit_scale - target).ok_or_else(|| fail(" (out of range)"))?;
            if unscaled % p != 0 {
                return Err(fail(&match scale {
                    Some(_) => format!(" (more than {target} digits after the point)"),
                    None => " (not an integer)".to_string(),
                }));
            }
            Ok(unscaled / p)
        }
    };
    let range = || fail(" (out of range)");
    Ok(match domain {
        Domain::Bool => match lit {
            Literal::Bool(b) => Scalar::Bool(*b),
            _ => return Err(fail("")),
        },
        Domain::I32 => Scalar::I32(integer()?.try_into().map_err(|_| range())?),
        Domain::U32 => Scalar::U32(integer()?.try_into().map_err(|_| range())?),
        Domain::I64 => Scalar::I64(integer()?.try_into().map_err(|_| range())?),
        Domain::U64 => Scalar::U64(integer()?.try_into().map_err(|_| range())?),
        Domain::Decimal => Scalar::Dec(integer()?),
        Domain::F32 | Domain::F64 | Domain::F16 => {
            Scalar::F64(as_f64(lit).ok_or_else(|| fail(""))?)
        }
        Domain::Bytes => match lit {
            Literal::String(s) => Scalar::Bytes(s.as_bytes().to_vec()),
            Literal::Bytes(b) => Scalar::Bytes(b.clone()),
            _ => return Err(fail("")),
        },
    })
}

fn temporal_name(t: Temporal) -> String {
    match t {
        Temporal::Date => "DATE".into(),
        Temporal::Timestamp { unit, utc } => {
            format!("TIMESTAMP({unit:?}, {})", if utc { "UTC" } else { "local" })
        }
    }
}

fn domain_name(domain: Domain, scale: Option<i32>) -> String {
    match (domain, scale) {
        (_, Some(s)) => format!("decimal (scale {s})"),
        (Domain::Bool, _) => "boolean".into(),
        (Domain::I32, _) => "32-bit integer".into(),
        (Domain::U32, _) => "unsigned 32-bit integer".into(),
        (Domain::I64, _) => "64-bit integer".into(),
        (Domain::U64, _) => "unsigned 64-bit integer".into(),
        (Domain::F32 | Domain::F64 | Domain::F16, _) => "floating-point".into(),
        (Domain::Bytes | Domain::Decimal, _) => "string/binary".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_scale_exactly() {
        let c = |l: Literal| coerce(&l, Domain::I64, Units::scale(2), "p");
        assert_eq!(c(Literal::Int(3)).unwrap(), Scalar::I64(300));
        assert_eq!(
            c(Literal::Decimal {
                unscaled: 125,
                scale: 2
            })
            .unwrap(),
            Scalar::I64(125)
        );
        assert_eq!(c(Literal::Float(0.1)).unwrap(), Scalar::I64(10));
        let e = c(Literal::Decimal {
            unscaled: 1255,
            scale: 3,
        })
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("column p") && e.contains("digits after the point"),
            "{e}"
        );
        assert!(c(Literal::String("x".into())).is_err());
    }

    #[test]
    fn integers_check_range() {
        assert!(coerce(&Literal::Int(-1), Domain::U32, Units::default(), "u").is_err());
        assert_eq!(
            coerce(
                &Literal::Int(u32::MAX as i128),
                Domain::U32,
                Units::default(),
                "u"
            )
            .unwrap(),
            Scalar::U32(u32::MAX)
        );
        assert!(coerce(&Literal::Float(2.5), Domain::I32, Units::default(), "i").is_err());
        assert_eq!(
            coerce(&Literal::Float(2.0), Domain::I32, Units::default(), "i").unwrap(),
            Scalar::I32(2)
        );
    }

    #[test]
    fn halves_and_big_endian() {
        assert_eq!(f16_to_f64(0x3c00), 1.0);
        assert_eq!(f16_to_f64(0xc000), -2.0);
        assert!(f16_to_f64(0x7e00).is_nan());
        assert_eq!(f16_to_f64(0x0001), 2f64.powi(-24));
        assert_eq!(be_to_i128(&[0xff, 0xfe]), Some(-2));
        assert_eq!(be_to_i128(&[0x01, 0x00]), Some(256));
        assert_eq!(be_to_i128(&[]), None);
    }

    #[test]
    fn decimal_text_round_trips() {
        assert_eq!(decimal_text(-5, 2), "-0.05");
        assert_eq!(decimal_text(12345, 2), "123.45");
        assert_eq!(decimal_text(7, 0), "7");
    }
}
