//! Arrow [`RecordBatch`]es → Parquet: [`ArrowWriter`].

use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::{types, Array as ArrowArray, ArrayRef, RecordBatch};
use arrow_buffer::{i256, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{
    DataType as ArrowType, Field as ArrowField, IntervalUnit, Schema, SchemaRef, TimeUnit,
};

use crate::array::{Array, ListArray, ListOffsets, StructArray};
use crate::column::{Column, Values};
use crate::field::{DataType, Field, Primitive};
use crate::metadata::{ConvertedType, FileMetaData, KeyValue, LogicalType, Type};
use crate::write::{ParquetWriter, WriterOptions};
use crate::{Error, Result};

use super::schema::{encode_arrow_schema, ARROW_SCHEMA_META_KEY, PARQUET_FIELD_ID_META_KEY};

fn unsupported(dt: &ArrowType) -> Error {
    Error::Unsupported(format!("writing Arrow {dt} to Parquet"))
}

fn prim(physical_type: Type) -> Primitive {
    Primitive::new(physical_type)
}

fn with_logical(mut p: Primitive, l: LogicalType) -> Primitive {
    p.logical_type = Some(l);
    p
}

fn int(bit_width: i8, is_signed: bool) -> Primitive {
    with_logical(
        prim(Type::INT32),
        LogicalType::Integer {
            bit_width,
            is_signed,
        },
    )
}

/// The fewest bytes that hold any decimal of `precision` digits (arrow-rs's formula).
fn decimal_width(precision: u8) -> i32 {
    (((10.0_f64.powi(precision as i32) + 1.0).log2() + 1.0) / 8.0).ceil() as i32
}

/// A decimal as arrow-rs stores it: INT32 up to 9 digits, INT64 up to 18, else
/// FIXED_LEN_BYTE_ARRAY.
fn decimal(precision: u8, scale: i8) -> Primitive {
    let physical = if precision <= 9 {
        Type::INT32
    } else if precision <= 18 {
        Type::INT64
    } else {
        Type::FIXED_LEN_BYTE_ARRAY
    };
    let mut p = with_logical(
        prim(physical),
        LogicalType::Decimal {
            scale: scale as i32,
            precision: precision as i32,
        },
    );
    p.converted_type = Some(ConvertedType::DECIMAL);
    p.scale = Some(scale as i32);
    p.precision = Some(precision as i32);
    if physical == Type::FIXED_LEN_BYTE_ARRAY {
        p.type_length = Some(decimal_width(precision));
    }
    p
}

fn time_unit(u: &TimeUnit) -> crate::metadata::TimeUnit {
    match u {
        TimeUnit::Second | TimeUnit::Millisecond => crate::metadata::TimeUnit::Millis,
        TimeUnit::Microsecond => crate::metadata::TimeUnit::Micros,
        TimeUnit::Nanosecond => crate::metadata::TimeUnit::Nanos,
    }
}

/// The parq primitive that stores Arrow `dt` (as arrow-rs writes it).
fn primitive_of(dt: &ArrowType) -> Result<Primitive> {
    use ArrowType as T;
    Ok(match dt {
        T::Null => with_logical(prim(Type::INT32), LogicalType::Null),
        T::Boolean => prim(Type::BOOLEAN),
        T::Int8 => int(8, true),
        T::Int16 => int(16, true),
        T::Int32 => prim(Type::INT32),
        T::UInt8 => int(8, false),
        T::UInt16 => int(16, false),
        T::UInt32 => int(32, false),
        T::Int64 => prim(Type::INT64),
        T::UInt64 => with_logical(
            prim(Type::INT64),
            LogicalType::Integer {
                bit_width: 64,
                is_signed: false,
            },
        ),
        T::Float16 => {
            let mut p = with_logical(prim(Type::FIXED_LEN_BYTE_ARRAY), LogicalType::Float16);
            p.type_length = Some(2);
            p
        }
        T::Float32 => prim(Type::FLOAT),
        T::Float64 => prim(Type::DOUBLE),
        // Seconds have no Parquet unit: plain INT64 (the Arrow schema keeps the type).
        T::Timestamp(TimeUnit::Second, _) | T::Date64 | T::Duration(_) => prim(Type::INT64),
        T::Time32(TimeUnit::Second) => prim(Type::INT32),
        T::Timestamp(u, tz) => with_logical(
            prim(Type::INT64),
            LogicalType::Timestamp {
                is_adjusted_to_utc: tz.as_ref().is_some_and(|z| !z.is_empty()),
                unit: time_unit(u),
            },
        ),
        T::Date32 => with_logical(prim(Type::INT32), LogicalType::Date),
        T::Time32(_) => with_logical(
            prim(Type::INT32),
            LogicalType::Time {
                is_adjusted_to_utc: false,
                unit: crate::metadata::TimeUnit::Millis,
            },
        ),
        T::Time64(u) => with_logical(
            prim(Type::INT64),
            LogicalType::Time {
                is_adjusted_to_utc: false,
                unit: time_unit(u),
            },
        ),
        T::Interval(IntervalUnit::YearMonth | IntervalUnit::DayTime) => {
            let mut p = prim(Type::FIXED_LEN_BYTE_ARRAY);
            p.type_length = Some(12);
            p.converted_type = Some(ConvertedType::INTERVAL);
            p
        }
        T::Binary | T::LargeBinary | T::BinaryView => prim(Type::BYTE_ARRAY),
        T::Utf8 | T::LargeUtf8 | T::Utf8View => {
            with_logical(prim(Type::BYTE_ARRAY), LogicalType::String)
        }
        T::FixedSizeBinary(n) => {
            let mut p = prim(Type::FIXED_LEN_BYTE_ARRAY);
            p.type_length = Some(*n);
            p
        }
        T::Decimal32(p, s) | T::Decimal64(p, s) | T::Decimal128(p, s) | T::Decimal256(p, s) => {
            decimal(*p, *s)
        }
        T::Dictionary(_, value) => primitive_of(value)?,
        _ => return Err(unsupported(dt)),
    })
}

/// The parq field that stores Arrow field `f` (its `PARQUET:field_id` metadata, if any,
/// becomes the field id).
pub fn from_arrow_field(f: &ArrowField) -> Result<Field> {
    use ArrowType as T;
    let data_type = match f.data_type() {
        T::List(e) | T::LargeList(e) | T::FixedSizeList(e, _) => {
            DataType::List(Box::new(from_arrow_field(e)?))
        }
        T::Struct(children) => DataType::Struct(
            children
                .iter()
                .map(|c| from_arrow_field(c))
                .collect::<Result<_>>()?,
        ),
        T::Map(entries, _) => {
            let mut e = from_arrow_field(entries)?;
            e.nullable = false;
            if let DataType::Struct(kv) = &mut e.data_type {
                if let Some(k) = kv.first_mut() {
                    k.nullable = false;
                }
            }
            DataType::Map(Box::new(e))
        }
        T::Dictionary(_, v) if !v.is_primitive() && !is_byte_type(v) => {
            return Err(unsupported(f.data_type()))
        }
        dt => DataType::Primitive(primitive_of(dt)?),
    };
    Ok(Field {
        name: f.name().clone(),
        // A null column is all nulls: Parquet stores it OPTIONAL whatever the field says.
        nullable: f.is_nullable() || f.data_type() == &T::Null,
        field_id: f
            .metadata()
            .get(PARQUET_FIELD_ID_META_KEY)
            .and_then(|v| v.parse().ok()),
        data_type,
    })
}

fn is_byte_type(dt: &ArrowType) -> bool {
    use ArrowType as T;
    matches!(
        dt,
        T::Binary
            | T::LargeBinary
            | T::BinaryView
            | T::Utf8
            | T::LargeUtf8
            | T::Utf8View
            | T::FixedSizeBinary(_)
            | T::Decimal128(_, _)
            | T::Decimal256(_, _)
    )
}

/// The parq fields of an Arrow schema (as arrow-rs maps Arrow types to Parquet by default).
///
/// ```
/// use arrow_schema::{DataType, Field, Schema};
/// let schema = Schema::new(vec![Field::new("s", DataType::Utf8, false)]);
/// let fields = parq::arrow::from_arrow_schema(&schema).unwrap();
/// assert_eq!(fields[0].name, "s");
/// assert!(!fields[0].nullable);
/// ```
pub fn from_arrow_schema(schema: &Schema) -> Result<Vec<Field>> {
    schema
        .fields()
        .iter()
        .map(|f| from_arrow_field(f))
        .collect()
}

fn column(len: usize, validity: Option<NullBuffer>, values: Values) -> Array {
    Array::Primitive(Column {
        len,
        validity: validity.filter(|v| v.null_count() > 0),
        values,
    })
}

/// Reinterpret the values buffer of a fixed-width Arrow array (no copy).
fn scalars<T: arrow_buffer::ArrowNativeType>(a: &dyn ArrowArray) -> ScalarBuffer<T> {
    let data = a.to_data();
    ScalarBuffer::new(data.buffers()[0].clone(), data.offset(), data.len())
}

fn fixed_bytes(len: usize, nulls: Option<NullBuffer>, width: usize, bytes: Vec<u8>) -> Array {
    column(
        len,
        nulls,
        Values::FixedLenByteArray {
            width,
            data: Buffer::from_vec(bytes),
        },
    )
}

/// Big-endian two's complement in `width` bytes (the low bytes of a wider value).
fn be_bytes(le: &[u8], width: usize, out: &mut Vec<u8>) {
    out.extend(le[..width].iter().rev());
}

/// Convert an Arrow array to the parq [`Array`] of `field` (as [`from_arrow_field`] gives it).
///
/// Zero-copy: Boolean, Int32, UInt32, Int64, UInt64, Float32/64, Date32/64, Time32/64,
/// Timestamp, Duration, Binary/Utf8 (i32 offsets), LargeBinary/LargeUtf8 (i64 offsets),
/// BinaryView and Utf8View, FixedSizeBinary, Float16, Decimal32 and Decimal64 of more than 9
/// digits, validity, struct children and List/Map offsets. Copies: Int8/16 and UInt8/16
/// (widened to INT32), Decimal128/256 (to INT32/INT64 or big-endian FIXED_LEN_BYTE_ARRAY), Decimal64 of up to 9 digits, intervals, dictionaries
/// (materialized), LargeList offsets (narrowed to i32 when they fit), FixedSizeList (offsets
/// made up).
pub fn from_arrow_array(a: &dyn ArrowArray, field: &Field) -> Result<Array> {
    use ArrowType as T;
    let len = a.len();
    let nulls = a.logical_nulls();
    let dt = a.data_type();
    let physical = match &field.data_type {
        DataType::Primitive(p) => Some(p.physical_type),
        _ => None,
    };
    Ok(match dt {
        T::Null => column(len, nulls, Values::Int32(vec![0; len].into())),
        T::Boolean => column(len, nulls, Values::Boolean(a.as_boolean().values().clone())),
        T::Int8 => column(
            len,
            nulls,
            Values::Int32(
                a.as_primitive::<types::Int8Type>()
                    .values()
                    .iter()
                    .map(|&x| x as i32)
                    .collect(),
            ),
        ),
        T::Int16 => column(
            len,
            nulls,
            Values::Int32(
                a.as_primitive::<types::Int16Type>()
                    .values()
                    .iter()
                    .map(|&x| x as i32)
                    .collect(),
            ),
        ),
        T::UInt8 => column(
            len,
            nulls,
            Values::Int32(
                a.as_primitive::<types::UInt8Type>()
                    .values()
                    .iter()
                    .map(|&x| x as i32)
                    .collect(),
            ),
        ),
        T::UInt16 => column(
            len,
            nulls,
            Values::Int32(
                a.as_primitive::<types::UInt16Type>()
                    .values()
                    .iter()
                    .map(|&x| x as i32)
                    .collect(),
            ),
        ),
        T::Int32 | T::UInt32 | T::Date32 | T::Time32(_) => {
            column(len, nulls, Values::Int32(scalars::<i32>(a)))
        }
        T::Int64 | T::UInt64 | T::Date64 | T::Timestamp(_, _) | T::Time64(_) | T::Duration(_) => {
            column(len, nulls, Values::Int64(scalars::<i64>(a)))
        }
        T::Float16 => column(
            len,
            nulls,
            Values::FixedLenByteArray {
                width: 2,
                data: scalars::<u16>(a).into_inner(),
            },
        ),
        T::Float32 => column(len, nulls, Values::Float(scalars::<f32>(a))),
        T::Float64 => column(len, nulls, Values::Double(scalars::<f64>(a))),
        T::Interval(IntervalUnit::YearMonth) => {
            let mut out = Vec::with_capacity(len * 12);
            for &m in scalars::<i32>(a).iter() {
                out.extend_from_slice(&m.to_le_bytes());
                out.extend_from_slice(&[0; 8]);
            }
            fixed_bytes(len, nulls, 12, out)
        }
        T::Interval(IntervalUnit::DayTime) => {
            let mut out = Vec::with_capacity(len * 12);
            for v in a
                .as_primitive::<types::IntervalDayTimeType>()
                .values()
                .iter()
            {
                out.extend_from_slice(&[0; 4]);
                out.extend_from_slice(&v.days.to_le_bytes());
                out.extend_from_slice(&v.milliseconds.to_le_bytes());
            }
            fixed_bytes(len, nulls, 12, out)
        }
        T::Decimal32(_, _) | T::Decimal64(_, _) | T::Decimal128(_, _) | T::Decimal256(_, _) => {
            let wide: Vec<i256> = match dt {
                T::Decimal32(_, _) | T::Decimal64(_, _) => Vec::new(),
                T::Decimal128(_, _) => scalars::<i128>(a)
                    .iter()
                    .map(|&x| i256::from_i128(x))
                    .collect(),
                _ => scalars::<i256>(a).iter().copied().collect(),
            };
            match (dt, physical) {
                (T::Decimal64(_, _), Some(Type::INT32)) => column(
                    len,
                    nulls,
                    Values::Int32(scalars::<i64>(a).iter().map(|&x| x as i32).collect()),
                ),
                (T::Decimal32(_, _), Some(Type::INT32)) => {
                    column(len, nulls, Values::Int32(scalars::<i32>(a)))
                }
                (T::Decimal64(_, _), Some(Type::INT64)) => {
                    column(len, nulls, Values::Int64(scalars::<i64>(a)))
                }
                (_, Some(Type::INT32)) => column(
                    len,
                    nulls,
                    Values::Int32(wide.iter().map(|x| x.as_i128() as i32).collect()),
                ),
                (_, Some(Type::INT64)) => column(
                    len,
                    nulls,
                    Values::Int64(wide.iter().map(|x| x.as_i128() as i64).collect()),
                ),
                _ => {
                    let DataType::Primitive(p) = &field.data_type else {
                        return Err(unsupported(dt));
                    };
                    let width = p.type_length.unwrap_or(16) as usize;
                    let mut out = Vec::with_capacity(len * width);
                    for x in &wide {
                        be_bytes(&x.to_le_bytes(), width, &mut out);
                    }
                    fixed_bytes(len, nulls, width, out)
                }
            }
        }
        T::LargeBinary | T::LargeUtf8 => {
            let data = a.to_data();
            let offsets: ScalarBuffer<i64> =
                ScalarBuffer::new(data.buffers()[0].clone(), data.offset(), len + 1);
            column(
                len,
                nulls,
                Values::Binary {
                    // An Arrow array's offsets are monotonic and non-negative.
                    offsets: OffsetBuffer::new(offsets),
                    data: data.buffers()[1].clone(),
                },
            )
        }
        T::Binary | T::Utf8 => {
            let data = a.to_data();
            let offsets: ScalarBuffer<i32> =
                ScalarBuffer::new(data.buffers()[0].clone(), data.offset(), len + 1);
            // SAFETY: the offsets of an Arrow byte array are non-negative and monotonic (its
            // constructors check them): `OffsetBuffer::new` would only check them again, one
            // compare per value (the writer's `check_values` still checks them against the
            // data).
            let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
            // Borrowed as they are, i32 offsets and all: the writer takes them.
            column(
                len,
                nulls,
                Values::SmallBinary {
                    offsets,
                    data: data.buffers()[1].clone(),
                },
            )
        }
        T::BinaryView | T::Utf8View => {
            let data = a.to_data();
            let views: ScalarBuffer<u128> =
                ScalarBuffer::new(data.buffers()[0].clone(), data.offset(), len);
            column(
                len,
                nulls,
                Values::BinaryView {
                    views,
                    buffers: data.buffers()[1..].to_vec(),
                },
            )
        }
        T::FixedSizeBinary(w) => {
            let f = a.as_fixed_size_binary();
            let w = *w as usize;
            let data = f.to_data();
            column(
                len,
                nulls,
                Values::FixedLenByteArray {
                    width: w,
                    data: data.buffers()[0].slice_with_length(data.offset() * w, len * w),
                },
            )
        }
        T::Dictionary(_, _) => {
            let d = a.as_any_dictionary();
            let values = d.values();
            let keys = d.normalized_keys();
            let vd = values.to_data();
            let mut m = arrow_data::transform::MutableArrayData::new(vec![&vd], true, len);
            for (i, &k) in keys.iter().enumerate() {
                if a.is_valid(i) {
                    m.try_extend(0, k, k + 1)
                        .map_err(|e| Error::InvalidArgument(format!("arrow: {e}")))?;
                } else {
                    m.try_extend_nulls(1)
                        .map_err(|e| Error::InvalidArgument(format!("arrow: {e}")))?;
                }
            }
            let dense = arrow_array::make_array(m.freeze());
            return from_arrow_array(dense.as_ref(), field);
        }
        T::List(_) | T::LargeList(_) | T::FixedSizeList(_, _) | T::Map(_, _) => {
            let (offsets, values) = match dt {
                T::FixedSizeList(_, size) => {
                    // Offsets made up (a copy of offsets only): slot i spans
                    // `i * size..(i + 1) * size` of the child, null slots too.
                    let l = a.as_fixed_size_list();
                    let size = *size as usize;
                    let child_offset = l.offset() * size;
                    let offsets: Vec<i32> = (0..=len)
                        .map(|i| (child_offset + i * size) as i32)
                        .collect();
                    (
                        ListOffsets::Small(OffsetBuffer::new(offsets.into())),
                        l.values().clone(),
                    )
                }
                T::List(_) => {
                    let l = a.as_list::<i32>();
                    (ListOffsets::Small(l.offsets().clone()), l.values().clone())
                }
                T::LargeList(_) => {
                    let l = a.as_list::<i64>();
                    let o = l.offsets();
                    let offsets = if o[o.len() - 1] <= i32::MAX as i64 {
                        ListOffsets::Small(OffsetBuffer::new(o.iter().map(|&x| x as i32).collect()))
                    } else {
                        ListOffsets::Large(o.clone())
                    };
                    (offsets, l.values().clone())
                }
                _ => {
                    let m = a.as_map();
                    (
                        ListOffsets::Small(m.offsets().clone()),
                        std::sync::Arc::new(m.entries().clone()) as ArrayRef,
                    )
                }
            };
            let (DataType::List(child) | DataType::Map(child)) = &field.data_type else {
                return Err(unsupported(dt));
            };
            let list = ListArray {
                validity: nulls.filter(|v| v.null_count() > 0),
                offsets,
                values: Box::new(from_arrow_array(values.as_ref(), child)?),
            };
            if matches!(dt, T::Map(_, _)) {
                Array::Map(list)
            } else {
                Array::List(list)
            }
        }
        T::Struct(_) => {
            let s = a.as_struct();
            let DataType::Struct(children) = &field.data_type else {
                return Err(unsupported(dt));
            };
            Array::Struct(StructArray {
                len,
                validity: nulls.filter(|v| v.null_count() > 0),
                children: s
                    .columns()
                    .iter()
                    .zip(children)
                    .map(|(c, f)| from_arrow_array(c.as_ref(), f))
                    .collect::<Result<_>>()?,
            })
        }
        _ => return Err(unsupported(dt)),
    })
}

/// What a file of batches of `schema` is written with: the fields batches convert to, the
/// schema elements (variants annotated) and `options` with `ARROW:schema` and the schema's
/// own metadata among the key-value metadata. Shared by [`ArrowWriter`] and the dataset
/// writer, whose files hold a schema without the partition columns.
pub(crate) fn file_schema(
    schema: &Schema,
    mut options: WriterOptions,
) -> Result<(
    Vec<Field>,
    Vec<crate::metadata::SchemaElement>,
    WriterOptions,
)> {
    let fields = from_arrow_schema(schema)?;
    options
        .key_value_metadata
        .retain(|kv| kv.key != ARROW_SCHEMA_META_KEY);
    let mut extra: Vec<_> = schema.metadata().iter().collect();
    extra.sort();
    for (k, v) in extra {
        if !options.key_value_metadata.iter().any(|kv| &kv.key == k) {
            options.key_value_metadata.push(KeyValue {
                key: k.clone(),
                value: Some(v.clone()),
            });
        }
    }
    options.key_value_metadata.push(KeyValue {
        key: ARROW_SCHEMA_META_KEY.to_string(),
        value: Some(encode_arrow_schema(schema)),
    });
    let mut elements = crate::write::schema_elements(&fields)?;
    let variants: Vec<&str> = schema
        .fields()
        .iter()
        .filter(|f| super::variant::is_variant_field(f))
        .map(|f| f.name().as_str())
        .collect();
    crate::variant::annotate_variants(&mut elements, &variants)?;
    Ok((fields, elements, options))
}

/// Writes Arrow [`RecordBatch`]es to a Parquet file, storing the Arrow schema as
/// `ARROW:schema` so that pyarrow and arrow-rs read the exact types back.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// use arrow_array::RecordBatchReader;
/// use parq::arrow::ArrowWriter;
/// use parq::read::ParquetReader;
///
/// let batch = RecordBatch::try_from_iter([
///     ("id", Arc::new(Int64Array::from(vec![1, 2, 3])) as ArrayRef),
///     ("name", Arc::new(StringArray::from(vec![Some("a"), None, Some("c")])) as ArrayRef),
/// ])
/// .unwrap();
/// let mut w = ArrowWriter::try_new(Vec::new(), batch.schema(), Default::default()).unwrap();
/// w.write(&batch).unwrap();
/// let bytes = w.into_inner().unwrap();
///
/// let reader = ParquetReader::new(bytes::Bytes::from(bytes)).unwrap();
/// let mut batches = reader.record_batches(parq::read::EVERY_FIELD, 1024).unwrap();
/// assert_eq!(batches.schema(), batch.schema());
/// assert_eq!(batches.next().unwrap().unwrap(), batch);
/// ```
pub struct ArrowWriter<W: Write> {
    inner: ParquetWriter<W>,
    schema: SchemaRef,
    fields: Vec<Field>,
}

impl<W: Write> ArrowWriter<W> {
    /// A writer of batches of `schema` into `sink`; `options.key_value_metadata` gains
    /// `ARROW:schema` (replacing one already there) and the schema's own metadata.
    pub fn try_new(sink: W, schema: SchemaRef, options: WriterOptions) -> Result<Self> {
        let (fields, elements, options) = file_schema(&schema, options)?;
        let inner = ParquetWriter::from_schema_elements(sink, elements, options)?;
        Ok(ArrowWriter {
            inner,
            schema,
            fields,
        })
    }

    /// The Arrow schema batches must have.
    pub fn schema(&self) -> &SchemaRef {
        &self.schema
    }

    /// Buffer one batch (row groups close as [`WriterOptions`] say).
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        if batch.schema().fields() != self.schema.fields() {
            return Err(Error::InvalidArgument(format!(
                "a batch of schema {} for a writer of {}",
                batch.schema(),
                self.schema
            )));
        }
        let arrays = batch
            .columns()
            .iter()
            .zip(&self.fields)
            .map(|(c, f)| from_arrow_array(c.as_ref(), f))
            .collect::<Result<Vec<_>>>()?;
        self.inner.write_arrays(&arrays)
    }

    /// The writer of parq's arrays underneath.
    #[cfg(feature = "object_store")]
    pub(crate) fn inner_mut(&mut self) -> &mut ParquetWriter<W> {
        &mut self.inner
    }

    /// Rows written so far (flushed row groups plus buffered rows).
    pub fn num_rows(&self) -> u64 {
        self.inner.num_rows()
    }

    /// Bytes of the open row group buffered ([`ParquetWriter::buffered_bytes`]).
    pub fn buffered_bytes(&self) -> usize {
        self.inner.buffered_bytes()
    }

    /// The writer of parq's arrays underneath, to finish it.
    #[cfg(feature = "object_store")]
    pub(crate) fn into_parquet_writer(self) -> ParquetWriter<W> {
        self.inner
    }

    /// Close the current row group now.
    pub fn flush(&mut self) -> Result<()> {
        self.inner.flush_row_group()
    }

    /// Write the footer; returns the file's metadata.
    pub fn finish(self) -> Result<FileMetaData> {
        self.inner.finish()
    }

    /// Write the footer; returns the sink.
    pub fn into_inner(self) -> Result<W> {
        Ok(self.inner.close()?.1)
    }
}
