//! The Parquet types a shredded primitive `typed_value` may have, and how a value of one
//! becomes a Variant value when a row is rebuilt.

use super::decode::VariantRef;
use super::encode::write_primitive;
use super::variant_error;
use crate::column::{Column, Values};
use crate::field::Primitive;
use crate::metadata::{LogicalType, TimeUnit, Type};
use crate::{Error, Result};

/// The Variant type of a shredded primitive `typed_value` column, and the Parquet type that
/// stores it (`VariantShredding.md`, "Shredded Value Types").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ShreddedType {
    /// BOOLEAN.
    Boolean,
    /// INT32 annotated INT(8, signed).
    Int8,
    /// INT32 annotated INT(16, signed).
    Int16,
    /// INT32.
    Int32,
    /// INT64.
    Int64,
    /// FLOAT.
    Float,
    /// DOUBLE.
    Double,
    /// INT32 DECIMAL(9, scale).
    Decimal4(u8),
    /// INT64 DECIMAL(18, scale).
    Decimal8(u8),
    /// FIXED_LEN_BYTE_ARRAY(16) DECIMAL(38, scale) (BYTE_ARRAY accepted on read).
    Decimal16(u8),
    /// INT32 DATE.
    Date,
    /// INT64 TIME(false, MICROS).
    Time,
    /// INT64 TIMESTAMP(utc, MICROS or NANOS).
    Timestamp {
        /// Adjusted to UTC (a time zone) or not.
        utc: bool,
        /// Nanoseconds rather than microseconds.
        nanos: bool,
    },
    /// BYTE_ARRAY.
    Binary,
    /// BYTE_ARRAY STRING.
    String,
    /// FIXED_LEN_BYTE_ARRAY(16) UUID.
    Uuid,
}

impl ShreddedType {
    /// The name `describe_shredding` shows.
    pub fn name(self) -> String {
        match self {
            ShreddedType::Decimal4(s) => format!("decimal4(scale {s})"),
            ShreddedType::Decimal8(s) => format!("decimal8(scale {s})"),
            ShreddedType::Decimal16(s) => format!("decimal16(scale {s})"),
            ShreddedType::Timestamp { utc, nanos } => format!(
                "timestamp{}({})",
                if utc { "" } else { "_ntz" },
                if nanos { "nanos" } else { "micros" }
            ),
            other => format!("{other:?}").to_lowercase(),
        }
    }

    pub(super) fn of_column(p: &Primitive, parent: &str) -> Result<ShreddedType> {
        let unsupported = || {
            Error::Unsupported(format!(
                "shredded value type {:?}{} at {parent}.typed_value",
                p.physical_type,
                p.logical_type
                    .as_ref()
                    .map_or(String::new(), |l| format!(" ({l:?})"))
            ))
        };
        let scale = |s: i32| u8::try_from(s).ok().filter(|&s| s <= 38);
        use LogicalType as L;
        Ok(match (p.physical_type, &p.logical_type) {
            (Type::BOOLEAN, None) => ShreddedType::Boolean,
            (Type::INT32, None) => ShreddedType::Int32,
            (
                Type::INT32,
                Some(L::Integer {
                    bit_width,
                    is_signed: true,
                }),
            ) => match bit_width {
                8 => ShreddedType::Int8,
                16 => ShreddedType::Int16,
                32 => ShreddedType::Int32,
                _ => return Err(unsupported()),
            },
            (Type::INT32, Some(L::Date)) => ShreddedType::Date,
            (Type::INT32, Some(L::Decimal { scale: s, .. })) => {
                ShreddedType::Decimal4(scale(*s).ok_or_else(unsupported)?)
            }
            (Type::INT64, None) => ShreddedType::Int64,
            (
                Type::INT64,
                Some(L::Integer {
                    bit_width: 64,
                    is_signed: true,
                }),
            ) => ShreddedType::Int64,
            (Type::INT64, Some(L::Decimal { scale: s, .. })) => {
                ShreddedType::Decimal8(scale(*s).ok_or_else(unsupported)?)
            }
            (
                Type::INT64,
                Some(L::Time {
                    is_adjusted_to_utc: false,
                    unit: TimeUnit::Micros,
                }),
            ) => ShreddedType::Time,
            (
                Type::INT64,
                Some(L::Timestamp {
                    is_adjusted_to_utc,
                    unit,
                }),
            ) => match unit {
                TimeUnit::Micros => ShreddedType::Timestamp {
                    utc: *is_adjusted_to_utc,
                    nanos: false,
                },
                TimeUnit::Nanos => ShreddedType::Timestamp {
                    utc: *is_adjusted_to_utc,
                    nanos: true,
                },
                _ => return Err(unsupported()),
            },
            (Type::FLOAT, None) => ShreddedType::Float,
            (Type::DOUBLE, None) => ShreddedType::Double,
            (Type::BYTE_ARRAY, None) => ShreddedType::Binary,
            (Type::BYTE_ARRAY, Some(L::String)) => ShreddedType::String,
            (Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY, Some(L::Decimal { scale: s, .. })) => {
                ShreddedType::Decimal16(scale(*s).ok_or_else(unsupported)?)
            }
            (Type::FIXED_LEN_BYTE_ARRAY, Some(L::Uuid)) if p.type_length == Some(16) => {
                ShreddedType::Uuid
            }
            _ => return Err(unsupported()),
        })
    }

    /// Append slot `i` of `c` (valid) as a Variant value.
    pub(super) fn write(self, c: &Column, i: usize, out: &mut Vec<u8>) -> Result<()> {
        let bad = || variant_error(format!("typed_value column layout {:?}", self));
        let int = |i: usize| -> Result<i64> {
            match &c.values {
                Values::Int32(v) => Ok(i64::from(v[i])),
                Values::Int64(v) => Ok(v[i]),
                _ => Err(bad()),
            }
        };
        let narrow = |v: i64, what: &str| variant_error(format!("{v} does not fit in {what}"));
        let v = match self {
            ShreddedType::Boolean => match &c.values {
                Values::Boolean(b) => VariantRef::Boolean(b.value(i)),
                _ => return Err(bad()),
            },
            ShreddedType::Int8 => {
                let v = int(i)?;
                VariantRef::Int8(i8::try_from(v).map_err(|_| narrow(v, "int8"))?)
            }
            ShreddedType::Int16 => {
                let v = int(i)?;
                VariantRef::Int16(i16::try_from(v).map_err(|_| narrow(v, "int16"))?)
            }
            ShreddedType::Int32 => VariantRef::Int32(int(i)? as i32),
            ShreddedType::Int64 => VariantRef::Int64(int(i)?),
            ShreddedType::Date => VariantRef::Date(int(i)? as i32),
            ShreddedType::Time => VariantRef::TimeMicros(int(i)?),
            ShreddedType::Timestamp { utc, nanos } => match (utc, nanos) {
                (true, false) => VariantRef::TimestampMicros(int(i)?),
                (false, false) => VariantRef::TimestampNtzMicros(int(i)?),
                (true, true) => VariantRef::TimestampNanos(int(i)?),
                (false, true) => VariantRef::TimestampNtzNanos(int(i)?),
            },
            ShreddedType::Decimal4(scale) => VariantRef::Decimal4 {
                unscaled: int(i)? as i32,
                scale,
            },
            ShreddedType::Decimal8(scale) => VariantRef::Decimal8 {
                unscaled: int(i)?,
                scale,
            },
            ShreddedType::Float => match &c.values {
                Values::Float(v) => VariantRef::Float(v[i]),
                _ => return Err(bad()),
            },
            ShreddedType::Double => match &c.values {
                Values::Double(v) => VariantRef::Double(v[i]),
                _ => return Err(bad()),
            },
            ShreddedType::Decimal16(scale) => {
                let b = c.bytes(i).ok_or_else(bad)?;
                if b.len() > 16 {
                    return Err(variant_error(format!(
                        "a decimal of {} bytes does not fit in decimal16",
                        b.len()
                    )));
                }
                // Big-endian two's complement, sign-extended to 16 bytes.
                let fill = if b.first().is_some_and(|&x| x & 0x80 != 0) {
                    0xff
                } else {
                    0
                };
                let mut be = [fill; 16];
                be[16 - b.len()..].copy_from_slice(b);
                VariantRef::Decimal16 {
                    unscaled: i128::from_be_bytes(be),
                    scale,
                }
            }
            ShreddedType::Binary => VariantRef::Binary(c.bytes(i).ok_or_else(bad)?),
            ShreddedType::String => VariantRef::String(
                std::str::from_utf8(c.bytes(i).ok_or_else(bad)?)
                    .map_err(|e| variant_error(format!("typed string is not UTF-8: {e}")))?,
            ),
            ShreddedType::Uuid => {
                let b = c.bytes(i).ok_or_else(bad)?;
                VariantRef::Uuid(b.try_into().map_err(|_| bad())?)
            }
        };
        write_primitive(out, &v)
    }
}
