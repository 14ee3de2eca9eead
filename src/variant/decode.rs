//! The value half of a variant, decoded to a borrowed view ([`VariantRef`]).
//!
//! Strings and binaries are slices of the value bytes; objects and arrays are views that
//! decode their children on access. Every length and offset is checked against the bytes
//! present, and each view is bounded to the bytes of its own value, so a bad child cannot
//! read into a sibling's.

use super::metadata::VariantMetadata;
use super::{read_uint, variant_error, MAX_DEPTH};
use crate::Result;

/// Basic type ids (the low two bits of a value's first byte; 3 is an array).
const PRIMITIVE: u8 = 0;
const SHORT_STRING: u8 = 1;
const OBJECT: u8 = 2;

/// One decoded variant value, borrowing its bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum VariantRef<'a> {
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
    /// decimal4: `unscaled * 10^-scale`.
    Decimal4 {
        /// The unscaled value.
        unscaled: i32,
        /// Digits after the point, 0..=38.
        scale: u8,
    },
    /// decimal8.
    Decimal8 {
        /// The unscaled value.
        unscaled: i64,
        /// Digits after the point, 0..=38.
        scale: u8,
    },
    /// decimal16.
    Decimal16 {
        /// The unscaled value.
        unscaled: i128,
        /// Digits after the point, 0..=38.
        scale: u8,
    },
    /// Days since 1970-01-01.
    Date(i32),
    /// Microseconds since the epoch, UTC.
    TimestampMicros(i64),
    /// Microseconds since the epoch, local time (no time zone).
    TimestampNtzMicros(i64),
    /// Microseconds since midnight, no time zone.
    TimeMicros(i64),
    /// Nanoseconds since the epoch, UTC.
    TimestampNanos(i64),
    /// Nanoseconds since the epoch, local time (no time zone).
    TimestampNtzNanos(i64),
    /// Binary.
    Binary(&'a [u8]),
    /// A string (short or long form: they are the same value).
    String(&'a str),
    /// A UUID, its 16 bytes in big-endian (RFC 4122) order.
    Uuid([u8; 16]),
    /// An object.
    Object(VariantObject<'a>),
    /// An array.
    Array(VariantList<'a>),
}

impl<'a> VariantRef<'a> {
    /// Decode the value that fills `value` exactly, with its field names in `metadata`.
    /// Objects and arrays are checked as far as their headers; [`VariantRef::validate`]
    /// checks the whole tree.
    pub fn new(metadata: VariantMetadata<'a>, value: &'a [u8]) -> Result<Self> {
        let (v, len) = decode_prefix(metadata, value)?;
        if len != value.len() {
            return Err(variant_error(format!(
                "value: {} bytes after a value of {len}",
                value.len() - len
            )));
        }
        Ok(v)
    }

    /// Check the whole tree: every nested value decodes, object field ids are in the
    /// dictionary, unique and in name order, and nesting is at most [`MAX_DEPTH`] deep.
    pub fn validate(&self) -> Result<()> {
        self.validate_at(0)
    }

    fn validate_at(&self, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(variant_error(format!(
                "value nested deeper than {MAX_DEPTH} levels"
            )));
        }
        match self {
            VariantRef::Object(o) => {
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
                    v.validate_at(depth + 1)?;
                }
                Ok(())
            }
            VariantRef::Array(a) => {
                for i in 0..a.len() {
                    a.get(i)?.validate_at(depth + 1)?;
                }
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// The object, if this is one.
    pub fn as_object(&self) -> Option<&VariantObject<'a>> {
        match self {
            VariantRef::Object(o) => Some(o),
            _ => None,
        }
    }

    /// The array, if this is one.
    pub fn as_array(&self) -> Option<&VariantList<'a>> {
        match self {
            VariantRef::Array(a) => Some(a),
            _ => None,
        }
    }
}

/// The size in bytes of the value at the start of `bytes`, from its header alone.
pub(super) fn value_size(bytes: &[u8]) -> Result<usize> {
    let &first = bytes.first().ok_or_else(|| variant_error("value: empty"))?;
    let header = usize::from(first >> 2);
    let size = match first & 3 {
        PRIMITIVE => match header {
            0..=2 => Some(1),
            3 => Some(2),
            4 => Some(3),
            5 | 11 | 14 => Some(5),
            6 | 7 | 12 | 13 | 17..=19 => Some(9),
            8 => Some(6),
            9 => Some(10),
            10 => Some(18),
            20 => Some(17),
            15 | 16 => read_uint(bytes, 1, 4).and_then(|n| n.checked_add(5)),
            t => return Err(variant_error(format!("value: unknown primitive type {t}"))),
        },
        SHORT_STRING => Some(1 + header),
        kind => {
            let large = if kind == OBJECT {
                header & 0x10 != 0
            } else {
                header & 0x04 != 0
            };
            let n_size = if large { 4 } else { 1 };
            let offset_size = (header & 3) + 1;
            let id_size = if kind == OBJECT {
                ((header >> 2) & 3) + 1
            } else {
                0
            };
            read_uint(bytes, 1, n_size).and_then(|n| {
                let values_start = n
                    .checked_mul(id_size)?
                    .checked_add(n.checked_add(1)?.checked_mul(offset_size)?)?
                    .checked_add(1 + n_size)?;
                let last = read_uint(bytes, values_start.checked_sub(offset_size)?, offset_size)?;
                values_start.checked_add(last)
            })
        }
    };
    size.filter(|&s| s <= bytes.len()).ok_or_else(|| {
        variant_error(format!(
            "value of type byte {first:#04x} runs past the {} bytes present",
            bytes.len()
        ))
    })
}

/// Decode the value at the start of `bytes`; also returns its size.
pub(super) fn decode_prefix<'a>(
    metadata: VariantMetadata<'a>,
    bytes: &'a [u8],
) -> Result<(VariantRef<'a>, usize)> {
    let size = value_size(bytes)?;
    let b = &bytes[..size];
    let first = b[0];
    let header = first >> 2;
    let le = |n: usize| -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..n].copy_from_slice(&b[1..1 + n]);
        out
    };
    let i64_at = || i64::from_le_bytes(le(8)[..8].try_into().unwrap_or_default());
    let decimal_scale = || -> Result<u8> {
        let s = b[1];
        if s > 38 {
            return Err(variant_error(format!("decimal scale {s} is above 38")));
        }
        Ok(s)
    };
    let tail = |n: usize| -> [u8; 16] {
        let mut out = [0u8; 16];
        out[..n].copy_from_slice(&b[2..2 + n]);
        out
    };
    let v = match first & 3 {
        PRIMITIVE => match header {
            0 => VariantRef::Null,
            1 => VariantRef::Boolean(true),
            2 => VariantRef::Boolean(false),
            3 => VariantRef::Int8(b[1] as i8),
            4 => VariantRef::Int16(i16::from_le_bytes([b[1], b[2]])),
            5 => VariantRef::Int32(i32::from_le_bytes([b[1], b[2], b[3], b[4]])),
            6 => VariantRef::Int64(i64_at()),
            7 => VariantRef::Double(f64::from_bits(i64_at() as u64)),
            8 => VariantRef::Decimal4 {
                scale: decimal_scale()?,
                unscaled: i32::from_le_bytes([b[2], b[3], b[4], b[5]]),
            },
            9 => VariantRef::Decimal8 {
                scale: decimal_scale()?,
                unscaled: i64::from_le_bytes(tail(8)[..8].try_into().unwrap_or_default()),
            },
            10 => VariantRef::Decimal16 {
                scale: decimal_scale()?,
                unscaled: i128::from_le_bytes(tail(16)),
            },
            11 => VariantRef::Date(i32::from_le_bytes([b[1], b[2], b[3], b[4]])),
            12 => VariantRef::TimestampMicros(i64_at()),
            13 => VariantRef::TimestampNtzMicros(i64_at()),
            14 => VariantRef::Float(f32::from_le_bytes([b[1], b[2], b[3], b[4]])),
            15 => VariantRef::Binary(&b[5..]),
            16 => VariantRef::String(utf8(&b[5..])?),
            17 => VariantRef::TimeMicros(i64_at()),
            18 => VariantRef::TimestampNanos(i64_at()),
            19 => VariantRef::TimestampNtzNanos(i64_at()),
            _ => VariantRef::Uuid(le(16)),
        },
        SHORT_STRING => VariantRef::String(utf8(&b[1..])?),
        OBJECT => VariantRef::Object(VariantObject::new(metadata, b)?),
        _ => VariantRef::Array(VariantList::new(metadata, b)?),
    };
    Ok((v, size))
}

fn utf8(b: &[u8]) -> Result<&str> {
    std::str::from_utf8(b).map_err(|e| variant_error(format!("string is not UTF-8: {e}")))
}

/// The header fields shared by objects and arrays, checked against the bytes of the value.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Container<'a> {
    bytes: &'a [u8],
    len: usize,
    id_size: usize,
    offset_size: usize,
    ids_start: usize,
    offsets_start: usize,
    values_start: usize,
}

impl<'a> Container<'a> {
    /// `bytes` is exactly the container's value (sized by [`value_size`]).
    fn new(bytes: &'a [u8], object: bool) -> Self {
        let header = usize::from(bytes[0] >> 2);
        let large = if object {
            header & 0x10 != 0
        } else {
            header & 0x04 != 0
        };
        let n_size = if large { 4 } else { 1 };
        let offset_size = (header & 3) + 1;
        let id_size = if object { ((header >> 2) & 3) + 1 } else { 0 };
        // value_size checked that the header, ids and offsets fit.
        let len = read_uint(bytes, 1, n_size).unwrap_or(0);
        let ids_start = 1 + n_size;
        let offsets_start = ids_start + len * id_size;
        let values_start = offsets_start + (len + 1) * offset_size;
        Container {
            bytes,
            len,
            id_size,
            offset_size,
            ids_start,
            offsets_start,
            values_start,
        }
    }

    fn offset(&self, i: usize) -> usize {
        read_uint(
            self.bytes,
            self.offsets_start + i * self.offset_size,
            self.offset_size,
        )
        .unwrap_or(0)
    }

    /// Child `i` with its offset into the values.
    fn child(&self, metadata: VariantMetadata<'a>, i: usize) -> Result<(VariantRef<'a>, usize)> {
        let values = &self.bytes[self.values_start..];
        let start = self.offset(i);
        if start >= values.len() {
            return Err(variant_error(format!(
                "child {i} starts at {start}, past the {} value bytes",
                values.len()
            )));
        }
        let (v, _) = decode_prefix(metadata, &values[start..])?;
        Ok((v, start))
    }
}

/// A variant object: fields in name order, each decoded on access.
#[derive(Clone, Copy, Debug)]
pub struct VariantObject<'a> {
    metadata: VariantMetadata<'a>,
    c: Container<'a>,
}

impl PartialEq for VariantObject<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.c == other.c && self.metadata.bytes() == other.metadata.bytes()
    }
}

impl<'a> VariantObject<'a> {
    fn new(metadata: VariantMetadata<'a>, bytes: &'a [u8]) -> Result<Self> {
        Ok(VariantObject {
            metadata,
            c: Container::new(bytes, true),
        })
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.c.len
    }

    /// Whether there are no fields.
    pub fn is_empty(&self) -> bool {
        self.c.len == 0
    }

    /// The metadata the field names come from.
    pub fn metadata(&self) -> VariantMetadata<'a> {
        self.metadata
    }

    /// The encoded bytes of this object.
    pub fn bytes(&self) -> &'a [u8] {
        self.c.bytes
    }

    /// The field id of field `i` (an index into the metadata dictionary).
    pub fn field_id(&self, i: usize) -> usize {
        read_uint(
            self.c.bytes,
            self.c.ids_start + i * self.c.id_size,
            self.c.id_size,
        )
        .unwrap_or(0)
    }

    /// Field `i` (`i < len`): its name and value.
    pub fn field(&self, i: usize) -> Result<(&'a str, VariantRef<'a>)> {
        let name = self.metadata.get(self.field_id(i))?;
        Ok((name, self.c.child(self.metadata, i)?.0))
    }

    /// Field `i` with the byte range of its encoded value within [`Self::bytes`], so that
    /// a writer can copy the value without re-encoding it.
    pub fn field_raw(&self, i: usize) -> Result<(usize, &'a str, &'a [u8])> {
        let id = self.field_id(i);
        let name = self.metadata.get(id)?;
        let (_, start) = self.c.child(self.metadata, i)?;
        let values = &self.c.bytes[self.c.values_start..];
        let size = value_size(&values[start..])?;
        Ok((id, name, &values[start..start + size]))
    }

    /// [`Self::field_raw`] without decoding the value (only its size is read): for a caller
    /// that checks the bytes itself.
    pub(super) fn field_bytes(&self, i: usize) -> Result<(usize, &'a str, &'a [u8])> {
        let id = self.field_id(i);
        let name = self.metadata.get(id)?;
        let values = &self.c.bytes[self.c.values_start..];
        let start = self.c.offset(i);
        let rest = values
            .get(start..)
            .filter(|r| !r.is_empty())
            .ok_or_else(|| {
                variant_error(format!(
                    "child {i} starts at {start}, past the {} value bytes",
                    values.len()
                ))
            })?;
        Ok((id, name, &rest[..value_size(rest)?]))
    }

    /// Where field `i`'s value starts among the values (values need not be in field order).
    pub fn value_offset(&self, i: usize) -> usize {
        self.c.offset(i)
    }

    /// The value of field `name`, by binary search over the name-ordered fields.
    pub fn get(&self, name: &str) -> Result<Option<VariantRef<'a>>> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (n, v) = self.field(mid)?;
            match n.cmp(name) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Ok(Some(v)),
            }
        }
        Ok(None)
    }

    /// The fields in order.
    pub fn iter(&self) -> impl Iterator<Item = Result<(&'a str, VariantRef<'a>)>> + '_ {
        (0..self.len()).map(|i| self.field(i))
    }
}

/// A variant array: elements decoded on access.
#[derive(Clone, Copy, Debug)]
pub struct VariantList<'a> {
    metadata: VariantMetadata<'a>,
    c: Container<'a>,
}

impl PartialEq for VariantList<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.c == other.c && self.metadata.bytes() == other.metadata.bytes()
    }
}

impl<'a> VariantList<'a> {
    fn new(metadata: VariantMetadata<'a>, bytes: &'a [u8]) -> Result<Self> {
        Ok(VariantList {
            metadata,
            c: Container::new(bytes, false),
        })
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.c.len
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.c.len == 0
    }

    /// The encoded bytes of this array.
    pub fn bytes(&self) -> &'a [u8] {
        self.c.bytes
    }

    /// Element `i` (`i < len`).
    pub fn get(&self, i: usize) -> Result<VariantRef<'a>> {
        Ok(self.c.child(self.metadata, i)?.0)
    }

    /// The encoded bytes of element `i`, for copying without re-encoding.
    pub fn get_raw(&self, i: usize) -> Result<&'a [u8]> {
        let (_, start) = self.c.child(self.metadata, i)?;
        let values = &self.c.bytes[self.c.values_start..];
        let size = value_size(&values[start..])?;
        Ok(&values[start..start + size])
    }

    /// The elements in order.
    pub fn iter(&self) -> impl Iterator<Item = Result<VariantRef<'a>>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }
}
