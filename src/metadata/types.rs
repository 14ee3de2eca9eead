//! Enums and unions of `parquet.thrift`: physical types, encodings, codecs, logical types.
//!
//! Thrift enums are `i32` newtypes with associated constants, so a value this crate does not
//! know (written by a newer writer) parses fine and prints as `Type(42)`. The unions are
//! read and written by hand (see `thrift_struct` for why).

use std::fmt;

use super::thrift::{ty, CompactReader, CompactWriter};
use super::thrift_struct::Value;
use crate::Result;

macro_rules! thrift_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $($variant:ident = $val:expr),* $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub i32);

        impl $name {
            $(
                #[doc = concat!("`", stringify!($variant), "` (", stringify!($val), ")")]
                pub const $variant: $name = $name($val);
            )*

            /// The spec's name of this value, or `None` if this crate does not know it.
            pub fn name(self) -> Option<&'static str> {
                match self.0 {
                    $($val => Some(stringify!($variant)),)*
                    _ => None,
                }
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.name() {
                    Some(n) => f.write_str(n),
                    None => write!(f, "{}({})", stringify!($name), self.0),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(self, f)
            }
        }

        /// An `i32` on the wire.
        impl Value for $name {
            const TYPE: u8 = ty::I32;

            #[inline]
            fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
                Ok($name(r.i32(t)?))
            }

            #[inline]
            fn write_value(&self, w: &mut CompactWriter<'_>) {
                w.write_i32(self.0);
            }
        }
    };
}

thrift_enum! {
    /// Physical type of a column.
    Type {
        BOOLEAN = 0,
        INT32 = 1,
        INT64 = 2,
        INT96 = 3,
        FLOAT = 4,
        DOUBLE = 5,
        BYTE_ARRAY = 6,
        FIXED_LEN_BYTE_ARRAY = 7,
    }
}

thrift_enum! {
    /// Deprecated logical annotation, superseded by [`LogicalType`] but still written.
    ConvertedType {
        UTF8 = 0,
        MAP = 1,
        MAP_KEY_VALUE = 2,
        LIST = 3,
        ENUM = 4,
        DECIMAL = 5,
        DATE = 6,
        TIME_MILLIS = 7,
        TIME_MICROS = 8,
        TIMESTAMP_MILLIS = 9,
        TIMESTAMP_MICROS = 10,
        UINT_8 = 11,
        UINT_16 = 12,
        UINT_32 = 13,
        UINT_64 = 14,
        INT_8 = 15,
        INT_16 = 16,
        INT_32 = 17,
        INT_64 = 18,
        JSON = 19,
        BSON = 20,
        INTERVAL = 21,
    }
}

thrift_enum! {
    /// Repetition of a schema field.
    FieldRepetitionType {
        REQUIRED = 0,
        OPTIONAL = 1,
        REPEATED = 2,
        VECTOR = 3,
    }
}

thrift_enum! {
    /// Encoding of values or levels in a page.
    Encoding {
        PLAIN = 0,
        PLAIN_DICTIONARY = 2,
        RLE = 3,
        BIT_PACKED = 4,
        DELTA_BINARY_PACKED = 5,
        DELTA_LENGTH_BYTE_ARRAY = 6,
        DELTA_BYTE_ARRAY = 7,
        RLE_DICTIONARY = 8,
        BYTE_STREAM_SPLIT = 9,
    }
}

thrift_enum! {
    /// Compression codec of a column chunk.
    CompressionCodec {
        UNCOMPRESSED = 0,
        SNAPPY = 1,
        GZIP = 2,
        LZO = 3,
        BROTLI = 4,
        LZ4 = 5,
        ZSTD = 6,
        LZ4_RAW = 7,
    }
}

thrift_enum! {
    /// Kind of page.
    PageType {
        DATA_PAGE = 0,
        INDEX_PAGE = 1,
        DICTIONARY_PAGE = 2,
        DATA_PAGE_V2 = 3,
    }
}

thrift_enum! {
    /// Ordering of the min/max lists of a [`ColumnIndex`](super::ColumnIndex).
    BoundaryOrder {
        UNORDERED = 0,
        ASCENDING = 1,
        DESCENDING = 2,
    }
}

thrift_enum! {
    /// Edge interpolation of the Geography logical type.
    EdgeInterpolationAlgorithm {
        SPHERICAL = 0,
        VINCENTY = 1,
        THOMAS = 2,
        ANDOYER = 3,
        KARNEY = 4,
    }
}

/// Unit of the Time and Timestamp logical types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    /// Milliseconds.
    Millis,
    /// Microseconds.
    Micros,
    /// Nanoseconds.
    Nanos,
}

impl TimeUnit {
    /// Reads the `TimeUnit` union; `None` for a unit this crate does not know.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Option<Self>> {
        let mut unit = None;
        let mut seen = false;
        r.read_struct("TimeUnit", |r, id, t| {
            if !seen {
                seen = true;
                unit = match id {
                    1 => Some(TimeUnit::Millis),
                    2 => Some(TimeUnit::Micros),
                    3 => Some(TimeUnit::Nanos),
                    _ => None,
                };
            }
            r.skip(t)
        })?;
        Ok(unit)
    }

    /// Writes the `TimeUnit` union.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.empty_struct_field(match self {
            TimeUnit::Millis => 1,
            TimeUnit::Micros => 2,
            TimeUnit::Nanos => 3,
        });
        w.struct_end();
    }
}

/// The `LogicalType` union: the annotation that gives a physical type its meaning.
///
/// A variant this crate does not know, or a known one whose content it cannot interpret
/// (say a time unit from a newer spec), reads as [`LogicalType::Unknown`], never an error.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum LogicalType {
    /// UTF-8 string (field 1).
    String,
    /// Map (field 2).
    Map,
    /// List (field 3).
    List,
    /// Enum stored as UTF-8 (field 4).
    Enum,
    /// Decimal (field 5).
    Decimal {
        /// Digits after the decimal point.
        scale: i32,
        /// Total digits.
        precision: i32,
    },
    /// Days since the Unix epoch (field 6).
    Date,
    /// Time of day (field 7).
    Time {
        /// Whether the time is adjusted to UTC.
        is_adjusted_to_utc: bool,
        /// The unit.
        unit: TimeUnit,
    },
    /// Instant or local date-time (field 8).
    Timestamp {
        /// Whether the timestamp is adjusted to UTC (an instant) or local.
        is_adjusted_to_utc: bool,
        /// The unit.
        unit: TimeUnit,
    },
    /// Integer of a given width and signedness (field 10).
    Integer {
        /// 8, 16, 32 or 64.
        bit_width: i8,
        /// Signed or unsigned.
        is_signed: bool,
    },
    /// Always null (field 11, `NullType`, which the spec calls `UNKNOWN`).
    Null,
    /// JSON document (field 12).
    Json,
    /// BSON document (field 13).
    Bson,
    /// UUID in 16 bytes (field 14).
    Uuid,
    /// IEEE half float in 2 bytes (field 15).
    Float16,
    /// Variant (field 16).
    Variant {
        /// Version of the variant specification.
        specification_version: Option<i8>,
    },
    /// Geometry in WKB (field 17).
    Geometry {
        /// Coordinate reference system; `OGC:CRS84` if unset.
        crs: Option<String>,
    },
    /// Geography in WKB (field 18).
    Geography {
        /// Coordinate reference system; `OGC:CRS84` if unset.
        crs: Option<String>,
        /// Edge interpolation; spherical if unset.
        algorithm: Option<EdgeInterpolationAlgorithm>,
    },
    /// Fixed-size vector group (field 19).
    Vector,
    /// A variant this crate does not understand; `field_id` is its union field id
    /// (0 for an empty union). Written back as an empty struct with that id.
    Unknown {
        /// The union field id.
        field_id: i16,
    },
}

thrift_struct! {
    /// The content of `LogicalType::Decimal`.
    struct DecimalType {
        1: required scale: i32,
        2: required precision: i32,
    }
}

thrift_struct! {
    /// The content of `LogicalType::Integer`.
    struct IntType {
        1: required bit_width as "bitWidth": i8,
        2: required is_signed as "isSigned": bool,
    }
}

thrift_struct! {
    /// The content of `LogicalType::Variant`.
    struct VariantType {
        1: optional specification_version: i8,
    }
}

thrift_struct! {
    /// The content of `LogicalType::Geometry`.
    struct GeometryType {
        1: optional crs: String,
    }
}

thrift_struct! {
    /// The content of `LogicalType::Geography`.
    struct GeographyType {
        1: optional crs: String,
        2: optional algorithm: EdgeInterpolationAlgorithm,
    }
}

fn read_time_like(
    r: &mut CompactReader<'_>,
    name: &'static str,
) -> Result<Option<(bool, TimeUnit)>> {
    let mut utc = None;
    let mut unit = None;
    let mut unknown_unit = false;
    r.read_struct(name, |r, id, t| {
        match id {
            1 => utc = Some(r.bool(t)?),
            2 => match r.struct_value(t, TimeUnit::read)? {
                Some(u) => unit = Some(u),
                None => unknown_unit = true,
            },
            _ => r.skip(t)?,
        }
        Ok(())
    })?;
    if unknown_unit {
        return Ok(None);
    }
    let utc = r.required(utc, &format!("{name}.isAdjustedToUTC"))?;
    let unit = r.required(unit, &format!("{name}.unit"))?;
    Ok(Some((utc, unit)))
}

impl LogicalType {
    /// Reads the `LogicalType` union. Only the first field of the union is used.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut out: Option<LogicalType> = None;
        r.read_struct("LogicalType", |r, id, t| {
            if out.is_some() || t != ty::STRUCT {
                return r.skip(t);
            }
            let lt = match id {
                1 => Some(LogicalType::String),
                2 => Some(LogicalType::Map),
                3 => Some(LogicalType::List),
                4 => Some(LogicalType::Enum),
                6 => Some(LogicalType::Date),
                11 => Some(LogicalType::Null),
                12 => Some(LogicalType::Json),
                13 => Some(LogicalType::Bson),
                14 => Some(LogicalType::Uuid),
                15 => Some(LogicalType::Float16),
                19 => Some(LogicalType::Vector),
                _ => None,
            };
            if let Some(lt) = lt {
                r.skip(t)?;
                out = Some(lt);
                return Ok(());
            }
            out = Some(match id {
                5 => {
                    let d = DecimalType::read(r)?;
                    LogicalType::Decimal {
                        scale: d.scale,
                        precision: d.precision,
                    }
                }
                7 => match read_time_like(r, "TimeType")? {
                    Some((is_adjusted_to_utc, unit)) => LogicalType::Time {
                        is_adjusted_to_utc,
                        unit,
                    },
                    None => LogicalType::Unknown { field_id: id },
                },
                8 => match read_time_like(r, "TimestampType")? {
                    Some((is_adjusted_to_utc, unit)) => LogicalType::Timestamp {
                        is_adjusted_to_utc,
                        unit,
                    },
                    None => LogicalType::Unknown { field_id: id },
                },
                10 => {
                    let i = IntType::read(r)?;
                    LogicalType::Integer {
                        bit_width: i.bit_width,
                        is_signed: i.is_signed,
                    }
                }
                16 => LogicalType::Variant {
                    specification_version: VariantType::read(r)?.specification_version,
                },
                17 => LogicalType::Geometry {
                    crs: GeometryType::read(r)?.crs,
                },
                18 => {
                    let g = GeographyType::read(r)?;
                    LogicalType::Geography {
                        crs: g.crs,
                        algorithm: g.algorithm,
                    }
                }
                _ => {
                    r.skip(t)?;
                    LogicalType::Unknown { field_id: id }
                }
            });
            Ok(())
        })?;
        Ok(out.unwrap_or(LogicalType::Unknown { field_id: 0 }))
    }

    /// Writes the `LogicalType` union.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        match self {
            LogicalType::String => w.empty_struct_field(1),
            LogicalType::Map => w.empty_struct_field(2),
            LogicalType::List => w.empty_struct_field(3),
            LogicalType::Enum => w.empty_struct_field(4),
            &LogicalType::Decimal { scale, precision } => {
                DecimalType { scale, precision }.write_field(w, 5)
            }
            LogicalType::Date => w.empty_struct_field(6),
            LogicalType::Time {
                is_adjusted_to_utc,
                unit,
            }
            | LogicalType::Timestamp {
                is_adjusted_to_utc,
                unit,
            } => {
                let id = if matches!(self, LogicalType::Time { .. }) {
                    7
                } else {
                    8
                };
                w.field_header(ty::STRUCT, id);
                w.struct_begin();
                w.bool_field(1, *is_adjusted_to_utc);
                w.field_header(ty::STRUCT, 2);
                unit.write(w);
                w.struct_end();
            }
            &LogicalType::Integer {
                bit_width,
                is_signed,
            } => IntType {
                bit_width,
                is_signed,
            }
            .write_field(w, 10),
            LogicalType::Null => w.empty_struct_field(11),
            LogicalType::Json => w.empty_struct_field(12),
            LogicalType::Bson => w.empty_struct_field(13),
            LogicalType::Uuid => w.empty_struct_field(14),
            LogicalType::Float16 => w.empty_struct_field(15),
            &LogicalType::Variant {
                specification_version,
            } => VariantType {
                specification_version,
            }
            .write_field(w, 16),
            LogicalType::Geometry { crs } => GeometryType { crs: crs.clone() }.write_field(w, 17),
            LogicalType::Geography { crs, algorithm } => GeographyType {
                crs: crs.clone(),
                algorithm: *algorithm,
            }
            .write_field(w, 18),
            LogicalType::Vector => w.empty_struct_field(19),
            LogicalType::Unknown { field_id } => {
                if *field_id > 0 {
                    w.empty_struct_field(*field_id);
                }
            }
        }
        w.struct_end();
    }
}

struct_value!(LogicalType, ColumnOrder);

/// The `ColumnOrder` union: the order min/max statistics of a column follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ColumnOrder {
    /// Order defined by the logical or physical type (field 1).
    TypeDefinedOrder,
    /// IEEE 754 total order for floating point (field 2).
    Ieee754TotalOrder,
    /// Chronological order of INT96 timestamps (field 3).
    Int96TimestampOrder,
    /// An order this crate does not know: min/max statistics must be ignored.
    Unknown {
        /// The union field id (0 for an empty union).
        field_id: i16,
    },
}

impl ColumnOrder {
    /// Reads the `ColumnOrder` union.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut out = None;
        r.read_struct("ColumnOrder", |r, id, t| {
            if out.is_none() {
                out = Some(match id {
                    1 => ColumnOrder::TypeDefinedOrder,
                    2 => ColumnOrder::Ieee754TotalOrder,
                    3 => ColumnOrder::Int96TimestampOrder,
                    _ => ColumnOrder::Unknown { field_id: id },
                });
            }
            r.skip(t)
        })?;
        Ok(out.unwrap_or(ColumnOrder::Unknown { field_id: 0 }))
    }

    /// Writes the `ColumnOrder` union.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        match *self {
            ColumnOrder::TypeDefinedOrder => w.empty_struct_field(1),
            ColumnOrder::Ieee754TotalOrder => w.empty_struct_field(2),
            ColumnOrder::Int96TimestampOrder => w.empty_struct_field(3),
            ColumnOrder::Unknown { field_id } => {
                if field_id > 0 {
                    w.empty_struct_field(field_id);
                }
            }
        }
        w.struct_end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt_logical(lt: LogicalType) {
        let mut out = Vec::new();
        lt.write(&mut CompactWriter::new(&mut out));
        let mut r = CompactReader::new(&out);
        assert_eq!(LogicalType::read(&mut r).unwrap(), lt);
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn enum_debug_names() {
        assert_eq!(format!("{:?}", Type::INT32), "INT32");
        assert_eq!(format!("{:?}", Type(42)), "Type(42)");
        assert_eq!(format!("{}", Encoding::RLE_DICTIONARY), "RLE_DICTIONARY");
        assert_eq!(CompressionCodec::ZSTD.name(), Some("ZSTD"));
        assert_eq!(PageType::DATA_PAGE_V2, PageType(3));
        assert_eq!(ConvertedType::INTERVAL.0, 21);
        assert_eq!(format!("{:?}", BoundaryOrder::DESCENDING), "DESCENDING");
        assert_eq!(format!("{:?}", FieldRepetitionType::VECTOR), "VECTOR");
    }

    #[test]
    fn logical_types_round_trip() {
        use LogicalType::*;
        for unit in [TimeUnit::Millis, TimeUnit::Micros, TimeUnit::Nanos] {
            for utc in [false, true] {
                rt_logical(Time {
                    is_adjusted_to_utc: utc,
                    unit,
                });
                rt_logical(Timestamp {
                    is_adjusted_to_utc: utc,
                    unit,
                });
            }
        }
        for lt in [
            String,
            Map,
            List,
            Enum,
            Decimal {
                scale: 2,
                precision: 38,
            },
            Date,
            Integer {
                bit_width: 8,
                is_signed: false,
            },
            Integer {
                bit_width: 64,
                is_signed: true,
            },
            Null,
            Json,
            Bson,
            Uuid,
            Float16,
            Variant {
                specification_version: None,
            },
            Variant {
                specification_version: Some(1),
            },
            Geometry { crs: None },
            Geometry {
                crs: Some("EPSG:4326".into()),
            },
            Geography {
                crs: None,
                algorithm: None,
            },
            Geography {
                crs: Some("OGC:CRS84".into()),
                algorithm: Some(EdgeInterpolationAlgorithm::KARNEY),
            },
            Vector,
            Unknown { field_id: 0 },
            Unknown { field_id: 9 },
            Unknown { field_id: 99 },
        ] {
            rt_logical(lt);
        }
    }

    #[test]
    fn unknown_logical_type_content_is_skipped() {
        // Field 42 holding a struct with a string and a list.
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.field_header(ty::STRUCT, 42);
        w.struct_begin();
        w.binary_field(1, b"abc");
        w.list_field(2, ty::I32, 2);
        w.write_i32(1);
        w.write_i32(2);
        w.struct_end();
        w.struct_end();
        let mut r = CompactReader::new(&out);
        assert_eq!(
            LogicalType::read(&mut r).unwrap(),
            LogicalType::Unknown { field_id: 42 }
        );
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn unknown_time_unit_is_unknown_logical_type() {
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.field_header(ty::STRUCT, 8);
        w.struct_begin();
        w.bool_field(1, true);
        w.field_header(ty::STRUCT, 2);
        w.struct_begin();
        w.empty_struct_field(4);
        w.struct_end();
        w.struct_end();
        w.struct_end();
        let mut r = CompactReader::new(&out);
        assert_eq!(
            LogicalType::read(&mut r).unwrap(),
            LogicalType::Unknown { field_id: 8 }
        );
    }

    #[test]
    fn decimal_missing_precision_is_an_error() {
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.field_header(ty::STRUCT, 5);
        w.struct_begin();
        w.i32_field(1, 2);
        w.struct_end();
        w.struct_end();
        let err = LogicalType::read(&mut CompactReader::new(&out)).unwrap_err();
        assert!(err.to_string().contains("DecimalType.precision"), "{err}");
    }

    #[test]
    fn column_order_round_trip() {
        for co in [
            ColumnOrder::TypeDefinedOrder,
            ColumnOrder::Ieee754TotalOrder,
            ColumnOrder::Int96TimestampOrder,
            ColumnOrder::Unknown { field_id: 0 },
            ColumnOrder::Unknown { field_id: 7 },
        ] {
            let mut out = Vec::new();
            co.write(&mut CompactWriter::new(&mut out));
            assert_eq!(
                ColumnOrder::read(&mut CompactReader::new(&out)).unwrap(),
                co
            );
        }
    }
}
