//! Parquet fields ↔ Arrow schemas, with the embedded `ARROW:schema` as pyarrow and arrow-rs
//! write and read it.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{
    DataType as ArrowType, Field as ArrowField, Fields, IntervalUnit, Schema, TimeUnit as ArrowUnit,
};
use base64::prelude::{Engine, BASE64_STANDARD};

use crate::field::{DataType, Field, Primitive};
use crate::metadata::{ConvertedType, KeyValue, LogicalType, TimeUnit, Type};
use crate::{Error, Result};

/// The key-value metadata key of the base64 IPC-encoded Arrow schema.
pub const ARROW_SCHEMA_META_KEY: &str = "ARROW:schema";

/// The Arrow field metadata key holding a Parquet field id (as arrow-rs spells it).
pub const PARQUET_FIELD_ID_META_KEY: &str = "PARQUET:field_id";

/// Decode an `ARROW:schema` value: base64 of an Arrow IPC `Schema` message, with or without
/// the legacy `0xFFFFFFFF` + length prefix.
///
/// ```
/// use arrow_schema::{DataType, Field, Schema};
/// use parq::arrow::{decode_arrow_schema, encode_arrow_schema};
/// let schema = Schema::new(vec![Field::new("s", DataType::LargeUtf8, true)]);
/// assert_eq!(decode_arrow_schema(&encode_arrow_schema(&schema)).unwrap(), schema);
/// ```
pub fn decode_arrow_schema(encoded: &str) -> Result<Schema> {
    let bytes = BASE64_STANDARD
        .decode(encoded)
        .map_err(|e| Error::format(format!("{ARROW_SCHEMA_META_KEY} is not base64: {e}")))?;
    let slice = if bytes.len() > 8 && bytes[0..4] == [255u8; 4] {
        &bytes[8..]
    } else {
        bytes.as_slice()
    };
    let message = arrow_ipc::root_as_message(slice)
        .map_err(|e| Error::format(format!("{ARROW_SCHEMA_META_KEY}: {e}")))?;
    let schema = message
        .header_as_schema()
        .ok_or_else(|| Error::format(format!("{ARROW_SCHEMA_META_KEY} is not a Schema")))?;
    // `try_fb_to_schema` exists only from arrow 60 on; the check makes the shared
    // `fb_to_schema` safe on untrusted input.
    super::ipc_check::check_schema(&schema)?;
    #[allow(deprecated)] // deprecated in 60 for `try_fb_to_schema`, which 59 lacks
    Ok(arrow_ipc::convert::fb_to_schema(schema))
}

/// Encode `schema` as an `ARROW:schema` value (what arrow-rs and pyarrow write).
pub fn encode_arrow_schema(schema: &Schema) -> String {
    let options = arrow_ipc::writer::IpcWriteOptions::default();
    let mut tracker = arrow_ipc::writer::DictionaryTracker::new(true);
    let generator = arrow_ipc::writer::IpcDataGenerator::default();
    let encoded = generator.schema_to_bytes_with_dictionary_tracker(schema, &mut tracker, &options);
    let message = encoded.ipc_message;
    let mut out = Vec::with_capacity(message.len() + 8);
    out.extend_from_slice(&[255u8; 4]);
    out.extend_from_slice(&(message.len() as u32).to_le_bytes());
    out.extend_from_slice(&message);
    BASE64_STANDARD.encode(out)
}

/// The Arrow schema of `fields` (as [`crate::read::ParquetReader::fields`] or an
/// [`crate::read::ArrayBatch`] gives them), honouring the `ARROW:schema` in
/// `key_value_metadata` when there is one. The schema's metadata is the file's key-value
/// metadata without `ARROW:schema`, plus the embedded schema's metadata (as arrow-rs does).
///
/// ```
/// use arrow_schema::{DataType, TimeUnit};
/// use parq::field::{DataType as Shape, Field, Primitive};
/// use parq::metadata::{LogicalType, TimeUnit as Unit, Type};
///
/// let mut ts = Primitive::new(Type::INT64);
/// ts.logical_type = Some(LogicalType::Timestamp { is_adjusted_to_utc: true, unit: Unit::Micros });
/// let fields = vec![
///     Field::new("at", Shape::Primitive(ts)),
///     Field::list("ids", Field::primitive("element", Type::INT32)),
/// ];
/// let schema = parq::arrow::to_arrow_schema(&fields, None).unwrap();
/// assert_eq!(
///     schema.field(0).data_type(),
///     &DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into()))
/// );
/// assert!(matches!(schema.field(1).data_type(), DataType::List(_)));
/// ```
pub fn to_arrow_schema(
    fields: &[Field],
    key_value_metadata: Option<&[KeyValue]>,
) -> Result<Schema> {
    let mut metadata = HashMap::new();
    let mut embedded = None;
    for kv in key_value_metadata.unwrap_or_default() {
        if let Some(v) = &kv.value {
            if kv.key == ARROW_SCHEMA_META_KEY {
                embedded = Some(decode_arrow_schema(v)?);
            } else {
                metadata.insert(kv.key.clone(), v.clone());
            }
        }
    }
    if let Some(e) = &embedded {
        for (k, v) in e.metadata() {
            metadata.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    let arrow_fields = fields
        .iter()
        .map(|f| {
            let hint = embedded
                .as_ref()
                .and_then(|e| e.fields().iter().find(|h| h.name() == &f.name));
            to_arrow_field(f, hint.map(|h| h.as_ref()))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Schema::new_with_metadata(arrow_fields, metadata))
}

/// The Arrow field of `field`; `hint` is the embedded Arrow schema's field of the same name.
pub fn to_arrow_field(field: &Field, hint: Option<&ArrowField>) -> Result<ArrowField> {
    let data_type = to_arrow_type(field, hint.map(|h| h.data_type()))?;
    let out = ArrowField::new(&field.name, data_type, field.nullable);
    Ok(match hint {
        Some(h) => out.with_metadata(h.metadata().clone()),
        None => match field.field_id {
            Some(id) => out.with_metadata(HashMap::from([(
                PARQUET_FIELD_ID_META_KEY.to_string(),
                id.to_string(),
            )])),
            None => out,
        },
    })
}

fn child_hint<'a>(hint: Option<&'a ArrowType>, name: &str) -> Option<&'a ArrowField> {
    match hint {
        Some(ArrowType::Struct(fields)) => fields.iter().find(|f| f.name() == name).map(|f| &**f),
        _ => None,
    }
}

fn to_arrow_type(field: &Field, hint: Option<&ArrowType>) -> Result<ArrowType> {
    Ok(match &field.data_type {
        DataType::Primitive(p) => {
            let base = primitive_type(p);
            match hint {
                Some(h) => apply_hint(base, h),
                None => base,
            }
        }
        DataType::List(element) => list_type(element, hint)?,
        DataType::Struct(children) => {
            let hint = match hint {
                Some(h @ ArrowType::Struct(_)) => Some(h),
                _ => None,
            };
            ArrowType::Struct(
                children
                    .iter()
                    .map(|c| to_arrow_field(c, child_hint(hint, &c.name)))
                    .collect::<Result<Fields>>()?,
            )
        }
        DataType::Map(entries) => match &entries.data_type {
            DataType::Struct(kv) if kv.len() == 2 => {
                let (entries_hint, sorted) = match hint {
                    Some(ArrowType::Map(f, sorted)) => (Some(f.as_ref()), *sorted),
                    _ => (None, false),
                };
                let kv_hints: Vec<Option<&ArrowField>> = match entries_hint.map(|f| f.data_type()) {
                    Some(ArrowType::Struct(fs)) if fs.len() == 2 => {
                        vec![Some(&*fs[0]), Some(&*fs[1])]
                    }
                    _ => vec![None, None],
                };
                let key = to_arrow_field(&kv[0], kv_hints[0])?.with_nullable(false);
                let value = to_arrow_field(&kv[1], kv_hints[1])?;
                let entries_field = ArrowField::new_struct(&entries.name, vec![key, value], false)
                    .with_metadata(
                        entries_hint
                            .map(|h| h.metadata().clone())
                            .unwrap_or_default(),
                    );
                ArrowType::Map(Arc::new(entries_field), sorted)
            }
            // A legacy map of keys only reads as a list of keys.
            _ => list_type(entries, hint)?,
        },
    })
}

fn list_type(element: &Field, hint: Option<&ArrowType>) -> Result<ArrowType> {
    let element_hint = match hint {
        Some(ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::FixedSizeList(f, _)) => {
            Some(f.as_ref())
        }
        _ => None,
    };
    let item = Arc::new(to_arrow_field(element, element_hint)?);
    Ok(match hint {
        Some(ArrowType::LargeList(_)) => ArrowType::LargeList(item),
        Some(ArrowType::FixedSizeList(_, n)) => ArrowType::FixedSizeList(item, *n),
        _ => ArrowType::List(item),
    })
}

/// The annotation that decides the Arrow type: the logical type, else the one the converted
/// type stands for (the same rule as [`crate::schema::effective_logical_type`]).
fn effective(p: &Primitive) -> Option<LogicalType> {
    match &p.logical_type {
        Some(LogicalType::Unknown { .. }) | None => {
            crate::schema::logical_from_converted(p.converted_type?, p.scale, p.precision)
        }
        Some(l) => Some(l.clone()),
    }
}

fn unit(u: TimeUnit) -> ArrowUnit {
    match u {
        TimeUnit::Millis => ArrowUnit::Millisecond,
        TimeUnit::Micros => ArrowUnit::Microsecond,
        _ => ArrowUnit::Nanosecond,
    }
}

fn decimal(precision: i32, scale: i32, wide: bool) -> Option<ArrowType> {
    let p = u8::try_from(precision).ok()?;
    let s = i8::try_from(scale).ok()?;
    Some(if wide || p > 38 {
        ArrowType::Decimal256(p, s)
    } else {
        ArrowType::Decimal128(p, s)
    })
}

/// The Arrow type of a primitive without an embedded schema, as arrow-rs maps it.
pub fn primitive_type(p: &Primitive) -> ArrowType {
    let logical = effective(p);
    if matches!(logical, Some(LogicalType::Null)) {
        return ArrowType::Null;
    }
    let fallback = match p.physical_type {
        Type::BOOLEAN => ArrowType::Boolean,
        Type::INT32 => ArrowType::Int32,
        Type::INT64 => ArrowType::Int64,
        Type::INT96 => ArrowType::Timestamp(ArrowUnit::Nanosecond, None),
        Type::FLOAT => ArrowType::Float32,
        Type::DOUBLE => ArrowType::Float64,
        Type::BYTE_ARRAY => ArrowType::Binary,
        _ => ArrowType::FixedSizeBinary(p.type_length.unwrap_or(0)),
    };
    let mapped = match (p.physical_type, &logical) {
        (
            Type::INT32,
            Some(LogicalType::Integer {
                bit_width,
                is_signed,
            }),
        ) => match (bit_width, is_signed) {
            (8, true) => Some(ArrowType::Int8),
            (16, true) => Some(ArrowType::Int16),
            (32, true) => Some(ArrowType::Int32),
            (8, false) => Some(ArrowType::UInt8),
            (16, false) => Some(ArrowType::UInt16),
            (32, false) => Some(ArrowType::UInt32),
            _ => None,
        },
        (
            Type::INT64,
            Some(LogicalType::Integer {
                bit_width: 64,
                is_signed,
            }),
        ) => Some(if *is_signed {
            ArrowType::Int64
        } else {
            ArrowType::UInt64
        }),
        (Type::INT32 | Type::INT64, Some(LogicalType::Decimal { scale, precision })) => {
            decimal(*precision, *scale, false)
        }
        (Type::INT32, Some(LogicalType::Date)) => Some(ArrowType::Date32),
        (
            Type::INT32,
            Some(LogicalType::Time {
                unit: TimeUnit::Millis,
                ..
            }),
        ) => Some(ArrowType::Time32(ArrowUnit::Millisecond)),
        (Type::INT64, Some(LogicalType::Time { unit: u, .. })) if *u != TimeUnit::Millis => {
            Some(ArrowType::Time64(unit(*u)))
        }
        (
            Type::INT64,
            Some(LogicalType::Timestamp {
                is_adjusted_to_utc,
                unit: u,
            }),
        ) => Some(ArrowType::Timestamp(
            unit(*u),
            is_adjusted_to_utc.then(|| "UTC".into()),
        )),
        (Type::BYTE_ARRAY, Some(LogicalType::String | LogicalType::Json)) => Some(ArrowType::Utf8),
        (Type::BYTE_ARRAY, Some(LogicalType::Decimal { scale, precision })) => {
            decimal(*precision, *scale, false)
        }
        (Type::FIXED_LEN_BYTE_ARRAY, Some(LogicalType::Decimal { scale, precision })) => {
            decimal(*precision, *scale, p.type_length.unwrap_or(0) > 16)
        }
        (Type::FIXED_LEN_BYTE_ARRAY, Some(LogicalType::Float16)) if p.type_length == Some(2) => {
            Some(ArrowType::Float16)
        }
        (Type::FIXED_LEN_BYTE_ARRAY, None)
            if p.converted_type == Some(ConvertedType::INTERVAL) && p.type_length == Some(12) =>
        {
            Some(ArrowType::Interval(IntervalUnit::DayTime))
        }
        _ => None,
    };
    mapped.unwrap_or(fallback)
}

/// The embedded type where the stored one can be read as it (arrow-rs's rules).
fn apply_hint(parquet: ArrowType, hint: &ArrowType) -> ArrowType {
    use ArrowType as T;
    let take = match (&parquet, hint) {
        (T::Int32 | T::Int64, T::Timestamp(_, _)) => true,
        (T::Int32, T::Time32(_)) => true,
        (T::Int64, T::Time64(_) | T::Duration(_) | T::Date64) => true,
        (T::Date32, T::Date64) => true,
        (T::Timestamp(p, _), T::Timestamp(h, Some(_))) if p == h => true,
        (T::Timestamp(ArrowUnit::Nanosecond, None), T::Timestamp(_, _)) => true,
        (T::Utf8, T::LargeUtf8 | T::Utf8View) => true,
        (T::Binary, T::LargeBinary | T::Utf8 | T::LargeUtf8 | T::Utf8View | T::BinaryView) => true,
        (T::Interval(_), T::Interval(_)) => true,
        (T::Decimal128(_, _), T::Decimal32(_, _) | T::Decimal64(_, _) | T::Decimal256(_, _)) => {
            true
        }
        (_, T::Dictionary(_, value)) => {
            let hinted = apply_hint(parquet.clone(), value);
            return if &hinted == value.as_ref() {
                hint.clone()
            } else {
                hinted
            };
        }
        _ => false,
    };
    if take {
        hint.clone()
    } else {
        parquet
    }
}
