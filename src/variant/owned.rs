//! [`Variant`]: an owned variant value tree, for building values and comparing them.

use std::collections::BTreeMap;

use super::decode::VariantRef;
use super::{variant_error, MAX_DEPTH};
use crate::Result;

/// An owned variant value.
///
/// Objects are a `BTreeMap`, so two values are equal when they are equal *logically*: the
/// order fields were written in, the order of the metadata dictionary and the widths chosen
/// for offsets and ids do not matter, and short and long strings are the same string. The
/// physical type of a primitive does matter (an int8 `1` is not an int32 `1`), as it does in
/// the encoding. Floats compare as floats (`NaN != NaN`).
#[derive(Clone, Debug, PartialEq)]
pub enum Variant {
    /// Variant null.
    Null,
    /// A boolean.
    Boolean(bool),
    /// int8.
    Int8(i8),
    /// int16.
    Int16(i16),
    /// int32.
    Int32(i32),
    /// int64.
    Int64(i64),
    /// float.
    Float(f32),
    /// double.
    Double(f64),
    /// decimal4: `unscaled * 10^-scale`, scale 0..=38.
    Decimal4 {
        /// The unscaled value.
        unscaled: i32,
        /// Digits after the point.
        scale: u8,
    },
    /// decimal8.
    Decimal8 {
        /// The unscaled value.
        unscaled: i64,
        /// Digits after the point.
        scale: u8,
    },
    /// decimal16.
    Decimal16 {
        /// The unscaled value.
        unscaled: i128,
        /// Digits after the point.
        scale: u8,
    },
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since the epoch, UTC.
    TimestampMicros(i64),
    /// Microseconds since the epoch, no time zone.
    TimestampNtzMicros(i64),
    /// Microseconds since midnight, no time zone.
    TimeMicros(i64),
    /// Nanoseconds since the epoch, UTC.
    TimestampNanos(i64),
    /// Nanoseconds since the epoch, no time zone.
    TimestampNtzNanos(i64),
    /// Binary.
    Binary(Vec<u8>),
    /// A string.
    String(String),
    /// A UUID (big-endian bytes).
    Uuid([u8; 16]),
    /// An object, by field name.
    Object(BTreeMap<String, Variant>),
    /// An array.
    Array(Vec<Variant>),
}

impl Variant {
    /// Decode `metadata` and `value` into an owned tree, checking all of it.
    pub fn decode(metadata: &[u8], value: &[u8]) -> Result<Variant> {
        let m = super::VariantMetadata::new(metadata)?;
        VariantRef::new(m, value)?.to_owned_variant()
    }

    /// The borrowed view of a primitive (`None` for objects and arrays).
    pub fn as_primitive_ref(&self) -> Option<VariantRef<'_>> {
        Some(match self {
            Variant::Null => VariantRef::Null,
            Variant::Boolean(b) => VariantRef::Boolean(*b),
            Variant::Int8(v) => VariantRef::Int8(*v),
            Variant::Int16(v) => VariantRef::Int16(*v),
            Variant::Int32(v) => VariantRef::Int32(*v),
            Variant::Int64(v) => VariantRef::Int64(*v),
            Variant::Float(v) => VariantRef::Float(*v),
            Variant::Double(v) => VariantRef::Double(*v),
            Variant::Decimal4 { unscaled, scale } => VariantRef::Decimal4 {
                unscaled: *unscaled,
                scale: *scale,
            },
            Variant::Decimal8 { unscaled, scale } => VariantRef::Decimal8 {
                unscaled: *unscaled,
                scale: *scale,
            },
            Variant::Decimal16 { unscaled, scale } => VariantRef::Decimal16 {
                unscaled: *unscaled,
                scale: *scale,
            },
            Variant::Date(v) => VariantRef::Date(*v),
            Variant::TimestampMicros(v) => VariantRef::TimestampMicros(*v),
            Variant::TimestampNtzMicros(v) => VariantRef::TimestampNtzMicros(*v),
            Variant::TimeMicros(v) => VariantRef::TimeMicros(*v),
            Variant::TimestampNanos(v) => VariantRef::TimestampNanos(*v),
            Variant::TimestampNtzNanos(v) => VariantRef::TimestampNtzNanos(*v),
            Variant::Binary(v) => VariantRef::Binary(v),
            Variant::String(v) => VariantRef::String(v),
            Variant::Uuid(v) => VariantRef::Uuid(*v),
            Variant::Object(_) | Variant::Array(_) => return None,
        })
    }
}

impl VariantRef<'_> {
    /// An owned copy of the whole tree, checking every nested value on the way (the same
    /// checks as [`VariantRef::validate`]).
    pub fn to_owned_variant(&self) -> Result<Variant> {
        self.owned_at(0)
    }

    fn owned_at(&self, depth: usize) -> Result<Variant> {
        if depth > MAX_DEPTH {
            return Err(variant_error(format!(
                "value nested deeper than {MAX_DEPTH} levels"
            )));
        }
        Ok(match self {
            VariantRef::Null => Variant::Null,
            VariantRef::Boolean(b) => Variant::Boolean(*b),
            VariantRef::Int8(v) => Variant::Int8(*v),
            VariantRef::Int16(v) => Variant::Int16(*v),
            VariantRef::Int32(v) => Variant::Int32(*v),
            VariantRef::Int64(v) => Variant::Int64(*v),
            VariantRef::Float(v) => Variant::Float(*v),
            VariantRef::Double(v) => Variant::Double(*v),
            VariantRef::Decimal4 { unscaled, scale } => Variant::Decimal4 {
                unscaled: *unscaled,
                scale: *scale,
            },
            VariantRef::Decimal8 { unscaled, scale } => Variant::Decimal8 {
                unscaled: *unscaled,
                scale: *scale,
            },
            VariantRef::Decimal16 { unscaled, scale } => Variant::Decimal16 {
                unscaled: *unscaled,
                scale: *scale,
            },
            VariantRef::Date(v) => Variant::Date(*v),
            VariantRef::TimestampMicros(v) => Variant::TimestampMicros(*v),
            VariantRef::TimestampNtzMicros(v) => Variant::TimestampNtzMicros(*v),
            VariantRef::TimeMicros(v) => Variant::TimeMicros(*v),
            VariantRef::TimestampNanos(v) => Variant::TimestampNanos(*v),
            VariantRef::TimestampNtzNanos(v) => Variant::TimestampNtzNanos(*v),
            VariantRef::Binary(v) => Variant::Binary(v.to_vec()),
            VariantRef::String(v) => Variant::String((*v).to_owned()),
            VariantRef::Uuid(v) => Variant::Uuid(*v),
            VariantRef::Object(o) => {
                let mut fields = BTreeMap::new();
                let mut previous: Option<&str> = None;
                for i in 0..o.len() {
                    let (name, v) = o.field(i)?;
                    if previous.is_some_and(|p| p >= name) {
                        return Err(variant_error(format!(
                            "object field {name:?} is out of order or repeated after {:?}",
                            previous.unwrap_or_default()
                        )));
                    }
                    previous = Some(name);
                    fields.insert(name.to_owned(), v.owned_at(depth + 1)?);
                }
                Variant::Object(fields)
            }
            VariantRef::Array(a) => Variant::Array(
                (0..a.len())
                    .map(|i| a.get(i)?.owned_at(depth + 1))
                    .collect::<Result<_>>()?,
            ),
        })
    }
}
