//! parq [`Array`]s → Arrow [`ArrayRef`]s, and the [`RecordBatchReader`].

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{
    make_array, Array as _, ArrayRef, MapArray, RecordBatch, RecordBatchOptions, RecordBatchReader,
    StructArray,
};
use arrow_buffer::{i256, Buffer, MutableBuffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_data::{ArrayData, ArrayDataBuilder};
use arrow_schema::{ArrowError, DataType as ArrowType, Field as ArrowField, SchemaRef, TimeUnit};
use parq_codecs::probe;

use crate::array::{Array, ListArray, ListOffsets};
use crate::column::{Column, Values};
use crate::read::FieldLeaves;
use crate::read::{
    selects, ArrayBatch, ByteArrayLayout, FileDecoder, ParquetReader, ReadBuilder, RowBatches,
    Select, Source,
};
use crate::{Error, Result};

fn arrow_err(e: ArrowError) -> Error {
    Error::InvalidArgument(format!("arrow: {e}"))
}

fn unsupported(from: &str, to: &ArrowType) -> Error {
    Error::Unsupported(format!("reading {from} as Arrow {to}"))
}

/// Build `data`, checking its layout (O(1) per buffer for fixed-width layouts).
fn build(b: ArrayDataBuilder) -> Result<ArrayRef> {
    Ok(make_array(b.build().map_err(arrow_err)?))
}

fn fixed(
    dt: &ArrowType,
    len: usize,
    nulls: Option<NullBuffer>,
    values: Buffer,
) -> Result<ArrayRef> {
    use arrow_array::types::*;
    use arrow_array::{ArrowPrimitiveType, PrimitiveArray};
    /// The common types through their typed constructor (no `ArrayData` round trip).
    fn typed<T: ArrowPrimitiveType>(
        dt: &ArrowType,
        len: usize,
        nulls: Option<NullBuffer>,
        values: Buffer,
    ) -> Result<ArrayRef> {
        let values = ScalarBuffer::<T::Native>::new(values, 0, len);
        Ok(Arc::new(
            PrimitiveArray::<T>::try_new(values, nulls)
                .map_err(arrow_err)?
                .with_data_type(dt.clone()),
        ))
    }
    match dt {
        ArrowType::Int32 => return typed::<Int32Type>(dt, len, nulls, values),
        ArrowType::Int64 => return typed::<Int64Type>(dt, len, nulls, values),
        ArrowType::Float32 => return typed::<Float32Type>(dt, len, nulls, values),
        ArrowType::Float64 => return typed::<Float64Type>(dt, len, nulls, values),
        ArrowType::Date32 => return typed::<Date32Type>(dt, len, nulls, values),
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            return typed::<TimestampMillisecondType>(dt, len, nulls, values)
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            return typed::<TimestampMicrosecondType>(dt, len, nulls, values)
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            return typed::<TimestampNanosecondType>(dt, len, nulls, values)
        }
        _ => {}
    }
    build(
        ArrayDataBuilder::new(dt.clone())
            .len(len)
            .nulls(nulls)
            .add_buffer(values),
    )
}

/// Convert a parq [`Array`] to an Arrow array of `data_type` (a type
/// [`super::to_arrow_schema`] gives for the array's field).
///
/// Zero-copy (the Arrow array wraps parq's buffers) for:
/// - BOOLEAN, FLOAT, DOUBLE, INT32 as Int32/UInt32/Date32/Time32/Decimal32/Interval(YearMonth),
///   INT64 as Int64/UInt64/Time64/Timestamp/Duration/Date64/Decimal64;
/// - BYTE_ARRAY as LargeBinary/LargeUtf8 from i64 offsets ([`Values::Binary`]), as
///   Binary/Utf8 from i32 offsets ([`Values::SmallBinary`], what
///   [`ParquetReader::record_batches`] reads those types as), BinaryView/Utf8View from the
///   view layout, FIXED_LEN_BYTE_ARRAY as FixedSizeBinary and Float16;
/// - validity bitmaps, struct children and list/map offsets (i32 for List and Map).
///
/// Copies:
/// - BYTE_ARRAY as Binary/Utf8 from i64 offsets, or as the Large types from i32 ones: the
///   offsets are narrowed or widened (the values are not copied); as Utf8View/BinaryView
///   from offsets: views are built (values not copied);
/// - INT32 as Int8/Int16/UInt8/UInt16 (a cast), Decimal64/128/256 (sign extension), Date64;
///   INT64 as Decimal128/256; INT96 (converted to a timestamp); decimals stored as byte arrays;
///   Interval(DayTime) from FIXED_LEN_BYTE_ARRAY(12); LargeList offsets from i32;
/// - Dictionary types: from a [`Values::Dictionary`] column (what
///   [`ParquetReader::record_batches`] reads dictionary-encoded chunks of a Dictionary column
///   as), the keys are used as they are (Int32/UInt32, no copy; other key types converted)
///   and the dictionary is converted (once per column chunk in `record_batches`); from
///   values, or when the key type cannot index the whole dictionary, the keys and unique
///   values are built (a hash lookup per value).
///
/// UTF-8 is validated only for string types, once per value buffer (ASCII fast path); from
/// the view layout ([`crate::read::ByteArrayLayout::Views`]) as Utf8View, Arrow validates each
/// view. Views read as Binary/Utf8 or their Large kinds are gathered (a copy of the values):
/// read with the default offsets layout for those.
///
/// ```
/// use arrow_array::{Array, StringArray};
/// use arrow_schema::DataType;
/// use parq::read::ParquetReader;
///
/// let bytes = std::fs::read("testdata/parquet-testing/data/alltypes_plain.parquet").unwrap();
/// let reader = ParquetReader::new(bytes::Bytes::from(bytes)).unwrap();
/// let (_field, array) = reader.read_field_by_path("string_col").unwrap();
/// let arrow = parq::arrow::to_arrow_array(&array, &DataType::Utf8).unwrap();
/// let strings = arrow.as_any().downcast_ref::<StringArray>().unwrap();
/// assert_eq!(strings.value(1), "1");
/// ```
pub fn to_arrow_array(array: &Array, data_type: &ArrowType) -> Result<ArrayRef> {
    array_to_arrow(array, data_type, Utf8::Unchecked)
}

/// [`to_arrow_array`], where `utf8` says whether the decoder already checked every string
/// leaf of `array`.
fn array_to_arrow(array: &Array, data_type: &ArrowType, utf8: Utf8) -> Result<ArrayRef> {
    match (array, data_type) {
        // Only string leaves were checked (and only their check is skipped).
        (Array::Primitive(c), ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View)
            if utf8 == Utf8::Checked =>
        {
            match &c.values {
                Values::Binary { offsets, data } => {
                    binary_to_arrow(c, offsets, data, data_type, utf8)
                }
                Values::SmallBinary { offsets, data } => {
                    small_binary_to_arrow(c, offsets, data, data_type, utf8)
                }
                _ => column_to_arrow(c, data_type),
            }
        }
        (Array::Primitive(c), _) => column_to_arrow(c, data_type),
        (Array::List(l), ArrowType::List(f)) | (Array::Map(l), ArrowType::List(f)) => {
            let offsets = small_offsets(&l.offsets)?;
            let values = array_to_arrow(&l.values, f.data_type(), utf8)?;
            Ok(Arc::new(
                arrow_array::ListArray::try_new(f.clone(), offsets, values, l.validity.clone())
                    .map_err(arrow_err)?,
            ))
        }
        (Array::List(l), ArrowType::LargeList(f)) | (Array::Map(l), ArrowType::LargeList(f)) => {
            let offsets = match &l.offsets {
                ListOffsets::Large(o) => o.clone(),
                ListOffsets::Small(o) => {
                    OffsetBuffer::new(o.iter().map(|&x| x as i64).collect::<ScalarBuffer<i64>>())
                }
            };
            let values = array_to_arrow(&l.values, f.data_type(), utf8)?;
            Ok(Arc::new(
                arrow_array::LargeListArray::try_new(
                    f.clone(),
                    offsets,
                    values,
                    l.validity.clone(),
                )
                .map_err(arrow_err)?,
            ))
        }
        (Array::List(l), ArrowType::FixedSizeList(f, size))
        | (Array::Map(l), ArrowType::FixedSizeList(f, size)) => fixed_size_list(l, f, *size, utf8),
        (Array::Map(l), ArrowType::Map(f, sorted)) => map_to_arrow(l, f, *sorted, utf8),
        (Array::Struct(s), ArrowType::Struct(fields)) => {
            if s.children.len() != fields.len() {
                return Err(unsupported("a struct", data_type));
            }
            let children = s
                .children
                .iter()
                .zip(fields.iter())
                .map(|(c, f)| array_to_arrow(c, f.data_type(), utf8))
                .collect::<Result<Vec<_>>>()?;
            Ok(Arc::new(
                StructArray::try_new_with_length(
                    fields.clone(),
                    children,
                    s.validity.clone(),
                    s.len,
                )
                .map_err(arrow_err)?,
            ))
        }
        (_, ArrowType::Null) => Ok(Arc::new(arrow_array::NullArray::new(array.len()))),
        _ => Err(unsupported("a nested array", data_type)),
    }
}

fn small_offsets(o: &ListOffsets) -> Result<OffsetBuffer<i32>> {
    match o {
        ListOffsets::Small(o) => Ok(o.clone()),
        ListOffsets::Large(_) => Err(Error::Unsupported(
            "a list of more than 2^31 - 1 elements as Arrow List (use LargeList)".into(),
        )),
    }
}

/// A list as an Arrow FixedSizeList: the child as is when every slot spans `size` elements
/// back to back, else rebuilt (a copy) with `size` null elements under each null slot.
fn fixed_size_list(l: &ListArray, f: &Arc<ArrowField>, size: i32, utf8: Utf8) -> Result<ArrayRef> {
    let n = usize::try_from(size).map_err(|_| unsupported("a list", &ArrowType::Null))?;
    let values = array_to_arrow(&l.values, f.data_type(), utf8)?;
    let len = l.offsets.len();
    let start = if len == 0 {
        0
    } else {
        l.offsets.range(0).start
    };
    let contiguous = (0..len).all(|i| l.offsets.range(i) == (start + i * n..start + (i + 1) * n));
    let child = if contiguous {
        values.slice(start, len * n)
    } else {
        let data = values.to_data();
        let mut m = arrow_data::transform::MutableArrayData::new(vec![&data], true, len * n);
        for i in 0..len {
            let r = l.offsets.range(i);
            if l.validity.as_ref().is_none_or(|v| v.is_valid(i)) {
                if r.len() != n {
                    return Err(Error::format(format!(
                        "a list of {} elements in a FixedSizeList({size})",
                        r.len()
                    )));
                }
                m.try_extend(0, r.start, r.end).map_err(arrow_err)?;
            } else {
                m.try_extend_nulls(n).map_err(arrow_err)?;
            }
        }
        make_array(m.freeze())
    };
    Ok(Arc::new(
        arrow_array::FixedSizeListArray::try_new(f.clone(), size, child, l.validity.clone())
            .map_err(arrow_err)?,
    ))
}

fn map_to_arrow(l: &ListArray, f: &Arc<ArrowField>, sorted: bool, utf8: Utf8) -> Result<ArrayRef> {
    let offsets = small_offsets(&l.offsets)?;
    let entries = array_to_arrow(&l.values, f.data_type(), utf8)?;
    let entries = entries
        .as_any()
        .downcast_ref::<StructArray>()
        .ok_or_else(|| unsupported("map entries", f.data_type()))?
        .clone();
    Ok(Arc::new(
        MapArray::try_new(f.clone(), offsets, entries, l.validity.clone(), sorted)
            .map_err(arrow_err)?,
    ))
}

/// For an inline view of each length (0 to 12): the bits of its data in the low word's high
/// half (4 bytes) and in the high word (8 bytes).
const INLINE_KEEP: [(u64, u64); 13] = {
    let mut t = [(0u64, 0u64); 13];
    let mut len: usize = 0;
    while len <= 12 {
        let lo = if len >= 4 { 4 } else { len };
        let hi = len.saturating_sub(4);
        t[len] = (
            if lo == 0 {
                0
            } else {
                u64::MAX >> (64 - 8 * lo)
            },
            if hi == 0 {
                0
            } else {
                u64::MAX >> (64 - 8 * hi)
            },
        );
        len += 1;
    }
    t
};

/// Whether every view is a valid Arrow view into `buffers` (and, with `utf8`, UTF-8): the
/// checks `BinaryViewArray::try_new` and `to_string_view` make, in one pass and without a
/// UTF-8 call per string. The bytes of each buffer that long views reference (the span from
/// the lowest to the highest, which for a batch of a PLAIN page is its slice of the page and
/// for dictionary indices the dictionary) are checked once, and only when they are not plain
/// ASCII is each long view validated on its own; short views hold their bytes inline.
fn views_valid(views: &ScalarBuffer<u128>, buffers: &[Buffer], utf8: bool) -> bool {
    // Per buffer: the lowest start and highest end that long views reference.
    let mut spans: Vec<(usize, usize)> = vec![(usize::MAX, 0); buffers.len()];
    // Over the inline views: bits set where a byte after the data is not zero, and bit 7 of
    // every data byte (any set means non-ASCII, checked exactly below). Without a branch or
    // a 128-bit shift per view: the 12 data bytes are the high half of the low word and the
    // high word, masked by the length through a table.
    let (mut padding, mut high) = (0u64, 0u64);
    for &v in views.iter() {
        let len = v as u32 as usize;
        if len <= 12 {
            let (data_lo, data_hi) = ((v as u64) >> 32, (v >> 64) as u64);
            let (keep_lo, keep_hi) = INLINE_KEEP[len];
            padding |= (data_lo & !keep_lo) | (data_hi & !keep_hi);
            high |= data_lo | data_hi;
            continue;
        }
        let (index, offset) = ((v >> 64) as u32 as usize, (v >> 96) as u32 as usize);
        let Some(buffer) = buffers.get(index) else {
            return false;
        };
        let Some(bytes) = offset
            .checked_add(len)
            .and_then(|end| buffer.get(offset..end))
        else {
            return false;
        };
        if bytes[..4] != (v >> 32).to_le_bytes()[..4] {
            return false;
        }
        let span = &mut spans[index];
        span.0 = span.0.min(offset);
        span.1 = span.1.max(offset + len);
    }
    // The bytes after the data must be zero (Arrow's layout).
    if padding != 0 {
        return false;
    }
    if !utf8 {
        return true;
    }
    // Past the data every byte is zero, so bit 7 of any byte is a data byte's.
    let inline_ascii = high & 0x8080_8080_8080_8080 == 0;
    let inline_utf8 = || {
        views.iter().all(|&v| {
            let len = v as u32 as usize;
            len > 12 || simdutf8::basic::from_utf8(&v.to_le_bytes()[4..4 + len]).is_ok()
        })
    };
    (inline_ascii || inline_utf8()) && long_views_utf8(views, buffers, &spans)
}

/// Each long view whose buffer's referenced span is not plain ASCII, validated on its own.
fn long_views_utf8(
    views: &ScalarBuffer<u128>,
    buffers: &[Buffer],
    spans: &[(usize, usize)],
) -> bool {
    let ascii: Vec<bool> = spans
        .iter()
        .zip(buffers)
        .map(|(&(start, end), b)| start >= end || b[start..end].is_ascii())
        .collect();
    if ascii.iter().all(|&a| a) {
        return true;
    }
    views.iter().all(|&v| {
        let len = v as u32 as usize;
        if len <= 12 {
            return true;
        }
        let (index, offset) = ((v >> 64) as u32 as usize, (v >> 96) as u32 as usize);
        ascii[index] || simdutf8::basic::from_utf8(&buffers[index][offset..offset + len]).is_ok()
    })
}

/// Whether a string column's bytes still need their UTF-8 check.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Utf8 {
    /// Check them here.
    Unchecked,
    /// The decoder checked them ([`ReadOptions::utf8_columns`](crate::read::ReadOptions::utf8_columns)).
    Checked,
}

/// Whether `offsets` (an [`OffsetBuffer`]: non-empty, from 0 up, never decreasing) span
/// exactly `len` slots within `data`: what Arrow's byte array layout asks beyond that.
fn offsets_fit(offsets: &[impl Into<i64> + Copy], len: usize, data: &Buffer) -> Result<()> {
    let last: i64 = offsets[offsets.len() - 1].into();
    if offsets.len() != len + 1 || last as u64 > data.len() as u64 {
        return Err(Error::InvalidArgument(format!(
            "a byte array column of {len} slots with {} offsets up to {last} into {} bytes",
            offsets.len(),
            data.len()
        )));
    }
    Ok(())
}

fn binary_to_arrow(
    c: &Column,
    offsets: &OffsetBuffer<i64>,
    data: &Buffer,
    dt: &ArrowType,
    utf8: Utf8,
) -> Result<ArrayRef> {
    offsets_fit(offsets, c.len, data)?;
    let string = matches!(
        dt,
        ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View
    );
    if string
        && utf8 == Utf8::Unchecked
        && !parq_codecs::kernels::byte_arrays::is_utf8(data, offsets)
    {
        return Err(Error::invalid_utf8(None));
    }
    let nulls = c.validity.clone();
    match dt {
        ArrowType::LargeBinary | ArrowType::LargeUtf8 => {
            let b = ArrayDataBuilder::new(dt.clone())
                .len(c.len)
                .nulls(nulls)
                .add_buffer(offsets.inner().inner().clone())
                .add_buffer(data.clone());
            // SAFETY: offsets are monotonic (an OffsetBuffer), one per slot and one more, and
            // within `data` (`offsets_fit`), and string types were validated above, so the
            // layout is valid.
            Ok(make_array(unsafe { b.build_unchecked() }))
        }
        ArrowType::Binary | ArrowType::Utf8 => {
            let last = offsets[offsets.len() - 1];
            if last > i32::MAX as i64 {
                return Err(Error::Unsupported(format!(
                    "a byte array batch of {last} bytes as Arrow {dt} (use the Large type)"
                )));
            }
            let narrow = parq_codecs::kernels::byte_arrays::narrow_offsets(offsets);
            let b = ArrayDataBuilder::new(dt.clone())
                .len(c.len)
                .nulls(nulls)
                .add_buffer(Buffer::from_vec(narrow))
                .add_buffer(data.clone());
            // SAFETY: as above; the offsets fit in i32 (checked against the last one).
            Ok(make_array(unsafe { b.build_unchecked() }))
        }
        ArrowType::BinaryView | ArrowType::Utf8View => {
            let base = offsets[0] as usize;
            let last = offsets[offsets.len() - 1] as usize;
            let buffer = data.slice_with_length(base, last - base);
            if buffer.len() > u32::MAX as usize {
                return Err(Error::Unsupported("a view into more than 4 GiB".into()));
            }
            let views: ScalarBuffer<u128> = offsets
                .windows(2)
                .map(|w| {
                    let (s, e) = (w[0] as usize - base, w[1] as usize - base);
                    arrow_array::builder::make_view(&buffer[s..e], 0, s as u32)
                })
                .collect();
            let buffers = if !buffer.is_empty() {
                vec![buffer]
            } else {
                vec![]
            };
            let b = ArrayDataBuilder::new(dt.clone())
                .len(c.len)
                .nulls(nulls)
                .add_buffer(views.into_inner())
                .add_buffers(buffers);
            // SAFETY: every view points into `buffer` (index 0) within bounds, inline views
            // hold their bytes, and string types were validated above.
            Ok(make_array(unsafe { b.build_unchecked() }))
        }
        ArrowType::Decimal128(_, _)
        | ArrowType::Decimal256(_, _)
        | ArrowType::Decimal32(_, _)
        | ArrowType::Decimal64(_, _) => {
            let rows = (0..c.len).map(|i| &data[offsets[i] as usize..offsets[i + 1] as usize]);
            decimal_from_be(rows, c.len, nulls, dt)
        }
        _ => Err(unsupported("BYTE_ARRAY", dt)),
    }
}

/// Byte arrays with i32 offsets ([`Values::SmallBinary`]): as Arrow `Utf8` and `Binary`
/// the buffers are wrapped as they are (no copy); other types go through the i64 offsets.
fn small_binary_to_arrow(
    c: &Column,
    offsets: &OffsetBuffer<i32>,
    data: &Buffer,
    dt: &ArrowType,
    utf8: Utf8,
) -> Result<ArrayRef> {
    if !matches!(dt, ArrowType::Utf8 | ArrowType::Binary) {
        let Values::Binary { offsets, data } = c.to_offsets().values else {
            unreachable!("to_offsets widens SmallBinary to Binary")
        };
        return binary_to_arrow(c, &offsets, &data, dt, utf8);
    }
    offsets_fit(offsets, c.len, data)?;
    if *dt == ArrowType::Utf8
        && utf8 == Utf8::Unchecked
        && !parq_codecs::kernels::byte_arrays::is_utf8(data, &offsets[..])
    {
        return Err(Error::invalid_utf8(None));
    }
    probe::hit("arrow.i32_offsets_wrapped");
    let b = ArrayDataBuilder::new(dt.clone())
        .len(c.len)
        .nulls(c.validity.clone())
        .add_buffer(offsets.inner().inner().clone())
        .add_buffer(data.clone());
    // SAFETY: the offsets are monotonic (an OffsetBuffer), one per slot and one more, and
    // within `data` (`offsets_fit`), and for Utf8 every value is UTF-8 (checked above, or by
    // the decoder: `Utf8::Checked`), so the layout is valid.
    Ok(make_array(unsafe { b.build_unchecked() }))
}

/// Big-endian two's complement byte strings (decimals) as Arrow decimals (a copy).
fn decimal_from_be<'a>(
    rows: impl Iterator<Item = &'a [u8]>,
    len: usize,
    nulls: Option<NullBuffer>,
    dt: &ArrowType,
) -> Result<ArrayRef> {
    /// `b` sign-extended to `N` big-endian bytes (its low `N` bytes if longer).
    fn be<const N: usize>(b: &[u8]) -> [u8; N] {
        let fill = if b.first().is_some_and(|&x| x & 0x80 != 0) {
            0xff
        } else {
            0
        };
        let mut out = [fill; N];
        let n = b.len().min(N);
        out[N - n..].copy_from_slice(&b[b.len() - n..]);
        out
    }
    let mut buf = MutableBuffer::new(0);
    match dt {
        ArrowType::Decimal32(_, _) => {
            buf.reserve(len * 4);
            rows.for_each(|r| buf.push(i32::from_be_bytes(be(r))));
        }
        ArrowType::Decimal64(_, _) => {
            buf.reserve(len * 8);
            rows.for_each(|r| buf.push(i64::from_be_bytes(be(r))));
        }
        ArrowType::Decimal128(_, _) => {
            buf.reserve(len * 16);
            rows.for_each(|r| buf.push(i128::from_be_bytes(be(r))));
        }
        _ => {
            buf.reserve(len * 32);
            rows.for_each(|r| buf.push(i256::from_be_bytes(be(r))));
        }
    }
    fixed(dt, len, nulls, buf.into())
}

fn int96_to_arrow(c: &Column, data: &Buffer, dt: &ArrowType) -> Result<ArrayRef> {
    const JULIAN_DAY_OF_EPOCH: i64 = 2_440_588;
    let ArrowType::Timestamp(unit, _) = dt else {
        return Err(unsupported("INT96", dt));
    };
    let (per_day, div) = match unit {
        TimeUnit::Second => (86_400i64, 1_000_000_000i64),
        TimeUnit::Millisecond => (86_400_000, 1_000_000),
        TimeUnit::Microsecond => (86_400_000_000, 1_000),
        TimeUnit::Nanosecond => (86_400_000_000_000, 1),
    };
    let values: ScalarBuffer<i64> = data
        .chunks_exact(12)
        .map(|b| {
            let nanos = i64::from_le_bytes(b[0..8].try_into().expect("8"));
            let day = u32::from_le_bytes(b[8..12].try_into().expect("4")) as i32 as i64;
            (day - JULIAN_DAY_OF_EPOCH)
                .wrapping_mul(per_day)
                .wrapping_add(nanos / div)
        })
        .collect();
    fixed(dt, c.len, c.validity.clone(), values.into_inner())
}

/// Leaf columns of one batch as a record batch, each field named by the leaf's dotted path
/// and typed as [`primitive_type`](super::primitive_type) types it.
pub(crate) fn columns_to_record_batch(
    columns: &[Column],
    leaves: &[crate::schema::ColumnDescriptor],
) -> Result<RecordBatch> {
    let mut fields = Vec::with_capacity(leaves.len());
    let mut arrays = Vec::with_capacity(leaves.len());
    for (c, leaf) in columns.iter().zip(leaves) {
        let dt = super::primitive_type(&leaf.primitive());
        arrays.push(column_to_arrow(c, &dt)?);
        fields.push(ArrowField::new(
            leaf.path_string(),
            dt,
            leaf.max_def_level > 0,
        ));
    }
    let options =
        arrow_array::RecordBatchOptions::new().with_row_count(columns.first().map(|c| c.len));
    RecordBatch::try_new_with_options(
        Arc::new(arrow_schema::Schema::new(fields)),
        arrays,
        &options,
    )
    .map_err(arrow_err)
}

/// Convert one leaf column to Arrow `dt` (see [`to_arrow_array`] for what copies).
pub fn column_to_arrow(c: &Column, dt: &ArrowType) -> Result<ArrayRef> {
    let nulls = c.validity.clone();
    let len = c.len;
    if let ArrowType::Dictionary(key, value) = dt {
        if let Values::Dictionary { dictionary, .. } = &c.values {
            let values = column_to_arrow(dictionary, value)?;
            if let Some(a) = keys_to_arrow(c, &values, key, value)? {
                return Ok(a);
            }
        }
        return self::dictionary(c, key, value);
    }
    if matches!(dt, ArrowType::Null) {
        return Ok(Arc::new(arrow_array::NullArray::new(len)));
    }
    match &c.values {
        Values::Boolean(b) => match dt {
            ArrowType::Boolean => Ok(Arc::new(arrow_array::BooleanArray::new(b.clone(), nulls))),
            _ => Err(unsupported("BOOLEAN", dt)),
        },
        Values::Int32(v) => match dt {
            ArrowType::Int32
            | ArrowType::UInt32
            | ArrowType::Date32
            | ArrowType::Time32(_)
            | ArrowType::Decimal32(_, _)
            | ArrowType::Interval(arrow_schema::IntervalUnit::YearMonth) => {
                fixed(dt, len, nulls, v.inner().clone())
            }
            ArrowType::Int8 | ArrowType::UInt8 => {
                let b: ScalarBuffer<i8> = v.iter().map(|&x| x as i8).collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            ArrowType::Int16 | ArrowType::UInt16 => {
                let b: ScalarBuffer<i16> = v.iter().map(|&x| x as i16).collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            ArrowType::Int64
            | ArrowType::Decimal64(_, _)
            | ArrowType::Timestamp(_, _)
            | ArrowType::Time64(_)
            | ArrowType::Duration(_) => {
                let b: ScalarBuffer<i64> = v.iter().map(|&x| x as i64).collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            ArrowType::Date64 => {
                let b: ScalarBuffer<i64> = v
                    .iter()
                    .map(|&x| (x as i64).wrapping_mul(86_400_000))
                    .collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            ArrowType::Decimal128(_, _) => {
                let b: ScalarBuffer<i128> = v.iter().map(|&x| x as i128).collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            ArrowType::Decimal256(_, _) => {
                let b: ScalarBuffer<i256> = v.iter().map(|&x| i256::from_i128(x as i128)).collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            _ => Err(unsupported("INT32", dt)),
        },
        Values::Int64(v) => match dt {
            ArrowType::Int64
            | ArrowType::UInt64
            | ArrowType::Time64(_)
            | ArrowType::Timestamp(_, _)
            | ArrowType::Duration(_)
            | ArrowType::Date64
            | ArrowType::Decimal64(_, _) => fixed(dt, len, nulls, v.inner().clone()),
            ArrowType::Decimal32(_, _) | ArrowType::Int32 | ArrowType::Date32 => {
                let b: ScalarBuffer<i32> = v.iter().map(|&x| x as i32).collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            ArrowType::Decimal128(_, _) => {
                let b: ScalarBuffer<i128> = v.iter().map(|&x| x as i128).collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            ArrowType::Decimal256(_, _) => {
                let b: ScalarBuffer<i256> = v.iter().map(|&x| i256::from_i128(x as i128)).collect();
                fixed(dt, len, nulls, b.into_inner())
            }
            _ => Err(unsupported("INT64", dt)),
        },
        Values::Int96(d) => int96_to_arrow(c, d, dt),
        Values::Dictionary { .. } => column_to_arrow(&c.materialize(), dt),
        Values::Float(v) => match dt {
            ArrowType::Float32 => fixed(dt, len, nulls, v.inner().clone()),
            _ => Err(unsupported("FLOAT", dt)),
        },
        Values::Double(v) => match dt {
            ArrowType::Float64 => fixed(dt, len, nulls, v.inner().clone()),
            _ => Err(unsupported("DOUBLE", dt)),
        },
        Values::Binary { offsets, data } => binary_to_arrow(c, offsets, data, dt, Utf8::Unchecked),
        Values::SmallBinary { offsets, data } => {
            small_binary_to_arrow(c, offsets, data, dt, Utf8::Unchecked)
        }
        Values::BinaryView { views, buffers } => match dt {
            ArrowType::BinaryView | ArrowType::Utf8View => {
                let utf8 = matches!(dt, ArrowType::Utf8View);
                if !views_valid(views, buffers, utf8) {
                    return Err(if utf8 {
                        Error::invalid_utf8(None)
                    } else {
                        Error::internal("a decoded view points outside its buffers")
                    });
                }
                let b = ArrayDataBuilder::new(dt.clone())
                    .len(len)
                    .nulls(nulls)
                    .add_buffer(views.inner().clone())
                    .add_buffers(buffers.to_vec());
                // SAFETY: `views_valid` checked every view against Arrow's view layout (inline
                // views of at most 12 bytes; others with a 4-byte prefix equal to their data's
                // and the data within the buffer they name), and for Utf8View that the bytes
                // of every view are UTF-8.
                Ok(make_array(unsafe { b.build_unchecked() }))
            }
            _ => {
                // Gather into offsets (a copy of the values).
                let mut offsets = Vec::with_capacity(len + 1);
                let mut data = Vec::new();
                offsets.push(0i64);
                for i in 0..len {
                    data.extend_from_slice(c.bytes(i).unwrap_or_default());
                    offsets.push(data.len() as i64);
                }
                let flat = Column {
                    len,
                    validity: nulls,
                    values: Values::Binary {
                        offsets: OffsetBuffer::new(offsets.into()),
                        data: Buffer::from_vec(data),
                    },
                };
                column_to_arrow(&flat, dt)
            }
        },
        Values::FixedLenByteArray { width, data } => match dt {
            ArrowType::FixedSizeBinary(w) if *w as usize == *width => {
                fixed(dt, len, nulls, data.clone())
            }
            ArrowType::Float16 if *width == 2 => {
                if data.as_ptr().align_offset(2) == 0 {
                    fixed(dt, len, nulls, data.clone())
                } else {
                    fixed(dt, len, nulls, Buffer::from_slice_ref(data.as_slice()))
                }
            }
            ArrowType::Interval(arrow_schema::IntervalUnit::DayTime) if *width == 12 => {
                let mut buf = MutableBuffer::new(len * 8);
                for b in data.chunks_exact(12) {
                    buf.extend_from_slice(&b[4..12]);
                }
                fixed(dt, len, nulls, buf.into())
            }
            ArrowType::Interval(arrow_schema::IntervalUnit::YearMonth) if *width == 12 => {
                let mut buf = MutableBuffer::new(len * 4);
                for b in data.chunks_exact(12) {
                    buf.extend_from_slice(&b[0..4]);
                }
                fixed(dt, len, nulls, buf.into())
            }
            ArrowType::Decimal32(_, _)
            | ArrowType::Decimal64(_, _)
            | ArrowType::Decimal128(_, _)
            | ArrowType::Decimal256(_, _) => {
                decimal_from_be(data.chunks_exact((*width).max(1)), len, nulls, dt)
            }
            ArrowType::Binary
            | ArrowType::LargeBinary
            | ArrowType::Utf8
            | ArrowType::LargeUtf8
            | ArrowType::BinaryView
            | ArrowType::Utf8View => {
                let offsets: ScalarBuffer<i64> = (0..=len).map(|i| (i * width) as i64).collect();
                let flat = Column {
                    len,
                    validity: nulls,
                    values: Values::Binary {
                        offsets: OffsetBuffer::new(offsets),
                        data: data.clone(),
                    },
                };
                column_to_arrow(&flat, dt)
            }
            _ => Err(unsupported("FIXED_LEN_BYTE_ARRAY", dt)),
        },
    }
}

/// The keys of a [`Values::Dictionary`] column as a dictionary array over `values` (its
/// dictionary, converted to `value`): the keys as they are for Int32 and UInt32 (no copy),
/// narrowed or widened for other key types; `None` when `key` cannot index every entry of
/// the dictionary (the caller then builds one of the values used).
fn keys_to_arrow(
    c: &Column,
    values: &ArrayRef,
    key: &ArrowType,
    value: &ArrowType,
) -> Result<Option<ArrayRef>> {
    let Values::Dictionary { keys, .. } = &c.values else {
        return Ok(None);
    };
    let n = values.len();
    // Every key in bounds, null slots' too: one branch-free pass (negative keys count as
    // past the end), and Arrow need not check each valid key again.
    let in_bounds =
        (keys.iter().fold(0u32, |m, &k| m.max(k as u32)) as usize) < n || keys.is_empty();
    let keys_in: &ScalarBuffer<i32> = keys;
    let keys: Buffer = match key {
        ArrowType::Int32 | ArrowType::UInt32 => keys.inner().clone(),
        _ => match key_buffer(keys.iter().map(|&k| k as i64), key, n) {
            Some(b) => b,
            None => return Ok(None),
        },
    };
    parq_codecs::probe::hit("arrow.dictionary_keys");
    debug_assert_eq!(keys_in.len(), c.len);
    let b = ArrayData::builder(ArrowType::Dictionary(
        Box::new(key.clone()),
        Box::new(value.clone()),
    ))
    .len(c.len)
    .nulls(c.validity.clone())
    .add_buffer(keys)
    .add_child_data(values.to_data());
    if !in_bounds {
        // Arrow checks each valid key (null slots may hold any key).
        return Ok(Some(make_array(b.build().map_err(arrow_err)?)));
    }
    // SAFETY: the key buffer holds `c.len` keys of `key`'s width (the column's `c.len` keys,
    // as they are or converted one for one), the validity (when any) is the column's own of
    // `c.len` slots, the child is a valid Arrow array of `value` type (built by
    // `column_to_arrow`), and every key, in a valid slot or not, was just checked to be
    // below its length (`n` fits every key type it was converted to, as matched above).
    Ok(Some(make_array(unsafe { b.build_unchecked() })))
}

/// `keys` as a buffer of the Arrow key type `key`, each key cast to it; `None` when `key`
/// cannot index `n` dictionary entries (or is not an integer type).
fn key_buffer(keys: impl Iterator<Item = i64>, key: &ArrowType, n: usize) -> Option<Buffer> {
    Some(match key {
        ArrowType::Int8 if n <= i8::MAX as usize + 1 => Buffer::from_iter(keys.map(|k| k as i8)),
        ArrowType::UInt8 if n <= u8::MAX as usize + 1 => Buffer::from_iter(keys.map(|k| k as u8)),
        ArrowType::Int16 if n <= i16::MAX as usize + 1 => Buffer::from_iter(keys.map(|k| k as i16)),
        ArrowType::UInt16 if n <= u16::MAX as usize + 1 => {
            Buffer::from_iter(keys.map(|k| k as u16))
        }
        ArrowType::Int32 | ArrowType::UInt32 => Buffer::from_iter(keys.map(|k| k as i32)),
        ArrowType::Int64 | ArrowType::UInt64 => Buffer::from_iter(keys),
        _ => return None,
    })
}

/// A dictionary array of `value` type: unique values in first-seen order (a copy).
fn dictionary(c: &Column, key: &ArrowType, value: &ArrowType) -> Result<ArrayRef> {
    parq_codecs::probe::hit("arrow.dictionary_rebuilt");
    let dense = column_to_arrow(c, value)?;
    let mut seen: HashMap<std::borrow::Cow<'_, [u8]>, usize> = HashMap::new();
    let mut firsts = Vec::new();
    let mut keys = Vec::with_capacity(c.len);
    for i in 0..c.len {
        if !c.is_valid(i) {
            keys.push(0usize);
            continue;
        }
        let bytes = match c.bytes(i) {
            Some(b) => std::borrow::Cow::Borrowed(b),
            None => std::borrow::Cow::Owned(c.value_bytes(i).unwrap_or_default()),
        };
        let next = firsts.len();
        let k = *seen.entry(bytes).or_insert(next);
        if k == next {
            firsts.push(i);
        }
        keys.push(k);
    }
    let dense_data = dense.to_data();
    let mut m =
        arrow_data::transform::MutableArrayData::new(vec![&dense_data], false, firsts.len());
    for &i in &firsts {
        m.try_extend(0, i, i + 1).map_err(arrow_err)?;
    }
    let values = make_array(m.freeze());
    let n = firsts.len();
    let too_many = || Error::Unsupported(format!("{n} dictionary values for keys of {key}"));
    let key_buffer = key_buffer(keys.iter().map(|&k| k as i64), key, n).ok_or_else(too_many)?;
    let data = ArrayData::builder(ArrowType::Dictionary(
        Box::new(key.clone()),
        Box::new(value.clone()),
    ))
    .len(c.len)
    .nulls(c.validity.clone())
    .add_buffer(key_buffer)
    .add_child_data(values.to_data())
    .build()
    .map_err(arrow_err)?;
    Ok(make_array(data))
}

/// Convert an [`ArrayBatch`] to a [`RecordBatch`] of `schema`.
pub fn to_record_batch(batch: &ArrayBatch, schema: &SchemaRef) -> Result<RecordBatch> {
    let columns = batch
        .arrays
        .iter()
        .zip(schema.fields().iter())
        .map(|(a, f)| to_arrow_array(a, f.data_type()))
        .collect::<Result<Vec<_>>>()?;
    RecordBatch::try_new_with_options(
        schema.clone(),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows)),
    )
    .map_err(arrow_err)
}

/// Arrow [`RecordBatch`]es of a Parquet file: a [`ReadBuilder`]'s read
/// ([`ReadBuilder::build_arrow`]), or [`ParquetReader::record_batches`]'s.
pub struct ParquetRecordBatchReader<S: Source> {
    inner: RowBatches<S>,
    converter: RecordBatchConverter,
}

/// Turns parq's [`ArrayBatch`]es of a projection into Arrow [`RecordBatch`]es, having asked
/// the decoders, through the read's options, for what they do better than a pass over
/// every batch here:
/// - `Utf8` and `Binary` leaves (flat or inside lists, structs and maps) decoded with i32
///   offsets ([`ReadOptions::small_offsets`]), which are wrapped as they are rather than
///   narrowed;
/// - flat `Dictionary` columns read as keys ([`ReadOptions::dictionary_keys`]), their
///   dictionaries converted once per column chunk, rather than their values hashed back
///   into a dictionary batch by batch;
/// - whole VARIANT groups read as the `arrow.parquet.variant` extension type (with
///   [`Self::for_push`]).
///
/// [`ParquetReader::record_batches`] and the object-store reader's `record_batches` also
/// have the decoders check string leaves for UTF-8 as their pages are decoded
/// ([`ReadOptions::utf8_columns`]), where the bytes are still in cache, and skip the check
/// here; a converter built by a caller checks here, because it cannot know that the
/// batches it is given were decoded with its options (an unchecked string reaching Arrow
/// would be unsound). The other requests are only a faster layout: batches decoded without
/// them convert the same.
///
/// Build it before the [`PushDecoder`](crate::read::push::PushDecoder), from the same
/// options, then [`convert`](Self::convert) each batch (after filtering it, if you do):
///
/// ```
/// use parq::arrow::RecordBatchConverter;
/// use parq::read::push::{DecodeResult, FooterDecoder, FooterOptions, FooterStep};
/// use parq::read::push::{PushDecoder, PushOptions};
/// let bytes = bytes::Bytes::from(
///     std::fs::read("testdata/parquet-testing/data/alltypes_plain.parquet").unwrap(),
/// );
/// let slice = |r: std::ops::Range<u64>| bytes.slice(r.start as usize..r.end as usize);
/// let mut footer = FooterDecoder::new(bytes.len() as u64, FooterOptions::default());
/// let footer = loop {
///     match footer.try_next().unwrap() {
///         FooterStep::NeedsData(ranges) => ranges
///             .into_iter()
///             .for_each(|r| footer.push(r.start, slice(r))),
///         FooterStep::Done(f) => break f,
///     }
/// };
/// let mut options = PushOptions::default()
///     .with_projection(Some(vec!["id".into(), "string_col".into()]));
/// let mut converter = RecordBatchConverter::for_push(&footer, &mut options).unwrap();
/// let mut decoder = PushDecoder::try_new(footer, options).unwrap();
/// let mut rows = 0;
/// loop {
///     match decoder.try_next().unwrap() {
///         DecodeResult::NeedsData(ranges) => {
///             ranges.into_iter().for_each(|r| decoder.push(r.start, slice(r)))
///         }
///         DecodeResult::Batch(b) => rows += converter.convert(&b).unwrap().num_rows(),
///         DecodeResult::Finished => break,
///     }
/// }
/// assert_eq!(converter.schema().fields().len(), 2);
/// assert_eq!(rows, 8);
/// ```
///
/// [`ReadOptions::utf8_columns`]: crate::read::ReadOptions::utf8_columns
/// [`ReadOptions::small_offsets`]: crate::read::ReadOptions::small_offsets
/// [`ReadOptions::dictionary_keys`]: crate::read::ReadOptions::dictionary_keys
pub struct RecordBatchConverter {
    schema: SchemaRef,
    /// The parq fields of the batches, in the order of `schema`.
    fields: Vec<crate::field::Field>,
    /// Per column: whether it is a whole VARIANT group (read as `arrow.parquet.variant`).
    variants: Vec<bool>,
    /// Per column: the last dictionary read as keys, and its values as Arrow, converted once
    /// and shared by every batch of its column chunk.
    dictionaries: Vec<Option<(Arc<Column>, ArrayRef)>>,
    /// Per column: a string column, or a nested one with string leaves, whose decoders
    /// checked every string value is UTF-8
    /// ([`ReadOptions::utf8_columns`](crate::read::ReadOptions::utf8_columns)).
    utf8_checked: Vec<bool>,
}

/// Whether a [`RecordBatchConverter`] may leave the UTF-8 checks to the decoders: only when
/// it converts batches of a decoder its caller built with the options it set.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Decoders {
    /// This crate's readers, which decode with the converter's options.
    Trusted,
    /// A caller's, who may pass batches of any decoder.
    Untrusted,
}

impl RecordBatchConverter {
    /// A converter of `reader`'s fields `projection` (as for
    /// [`ParquetReader::array_batches`]; empty: every field), read as `schema` (one field
    /// per projected field; `None`: [`super::to_arrow_schema`]'s, whole VARIANT groups as the
    /// extension type), that asks `options` (the options the batches will be read with) for
    /// what the decoders can do for it.
    fn new<S: Source>(
        reader: &FileDecoder<S>,
        projection: &[Select],
        schema: Option<SchemaRef>,
        options: &mut crate::read::ReadOptions,
        decoders: Decoders,
    ) -> Result<Self> {
        let projection = if projection.is_empty() {
            all_fields(reader)?
        } else {
            projection.to_vec()
        };
        let (fields, leaves): (Vec<_>, Vec<_>) =
            reader.field_leaves(&projection)?.into_iter().unzip();
        // Whole VARIANT groups (not a projection of their leaves).
        let names = reader.variant_fields();
        let mut variants: Vec<bool> = fields
            .iter()
            .map(|f: &crate::field::Field| {
                names.contains(&f.name.as_str())
                    && f.children().iter().any(|c| c.name == "metadata")
            })
            .collect();
        let schema = match schema {
            Some(schema) => {
                if schema.fields().len() != fields.len() {
                    return Err(Error::InvalidArgument(format!(
                        "an Arrow schema of {} fields for a projection of {}",
                        schema.fields().len(),
                        fields.len()
                    )));
                }
                // A caller's schema reads them as the extension type where it says so.
                for (v, f) in variants.iter_mut().zip(schema.fields()) {
                    *v &= super::variant::is_variant_field(f);
                }
                schema
            }
            None => arrow_schema_of(reader, &fields, &variants)?,
        };
        // Flat columns of a Dictionary type read their dictionary pages as keys, string columns
        // are checked for UTF-8 by the decoder, where the bytes are hot (once per dictionary
        // page), instead of by a pass over every batch here, and Utf8 and Binary columns come
        // with i32 offsets from the decoder (decoded so), which are wrapped here as they
        // are. Nested fields get the same for their string leaves.
        let offsets_layout = options.byte_array_layout == ByteArrayLayout::Offsets;
        let utf8_checked = schema
            .fields()
            .iter()
            .zip(&leaves)
            .zip(&variants)
            .map(|((f, leaves), &variant)| match leaves {
                FieldLeaves::Flat(c) if matches!(f.data_type(), ArrowType::Dictionary(_, _)) => {
                    options.dictionary_keys.push(*c);
                    false
                }
                FieldLeaves::Flat(c) => {
                    offsets_layout && string_leaf(f.data_type(), *c, options, decoders)
                }
                FieldLeaves::Nested(columns) => {
                    offsets_layout
                        && !variant
                        && string_leaves(f.data_type(), columns, options, decoders)
                }
            })
            .collect();
        Ok(RecordBatchConverter {
            schema,
            dictionaries: vec![None; fields.len()],
            fields,
            variants,
            utf8_checked,
        })
    }

    /// A converter of the batches of a [`PushDecoder`](crate::read::push::PushDecoder) to be
    /// built over `footer` with `options` (after this call: it sets `options.read`'s
    /// decoder requests, see the type's docs), as Arrow record batches of
    /// [`super::to_arrow_schema`]'s schema (whole VARIANT groups as the extension type).
    pub fn for_push(
        footer: &crate::read::push::Footer,
        options: &mut crate::read::push::PushOptions,
    ) -> Result<Self> {
        Self::push(footer, options, None, Decoders::Untrusted)
    }

    /// [`Self::for_push`] as record batches of `schema`: one field per projected field, each
    /// of a type [`to_arrow_array`] converts the field to (`Utf8View` for a string, say).
    /// The decoders are asked for what those types need.
    pub fn for_push_as(
        footer: &crate::read::push::Footer,
        options: &mut crate::read::push::PushOptions,
        schema: SchemaRef,
    ) -> Result<Self> {
        Self::push(footer, options, Some(schema), Decoders::Untrusted)
    }

    /// [`Self::for_push`] for a stream of this crate's, whose decoder is built with the
    /// options set here: the decoders check UTF-8.
    #[cfg(feature = "object_store")]
    pub(crate) fn for_own_push(
        footer: &crate::read::push::Footer,
        options: &mut crate::read::push::PushOptions,
    ) -> Result<Self> {
        Self::push(footer, options, None, Decoders::Trusted)
    }

    fn push(
        footer: &crate::read::push::Footer,
        options: &mut crate::read::push::PushOptions,
        schema: Option<SchemaRef>,
        decoders: Decoders,
    ) -> Result<Self> {
        let reader = crate::read::push::empty_reader(footer, &options.read);
        let virtual_fields = options.virtual_columns().fields();
        let converter = match options.projection.clone() {
            // No column: row counts, or virtual columns alone.
            Some(projection) if projection.is_empty() => Self::empty(),
            projection => {
                let projection = projection.unwrap_or_default();
                Self::new(&reader, &projection, schema, &mut options.read, decoders)?
            }
        };
        converter.with_virtual_fields(&virtual_fields)
    }

    /// A converter of batches without a column (an empty projection: row counts only).
    fn empty() -> Self {
        RecordBatchConverter {
            schema: Arc::new(arrow_schema::Schema::empty()),
            fields: Vec::new(),
            variants: Vec::new(),
            dictionaries: Vec::new(),
            utf8_checked: Vec::new(),
        }
    }

    /// The schema of every batch [`Self::convert`] gives.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// This converter, for batches that end with the virtual columns `fields` (row numbers,
    /// row-group indices) after the projection's.
    fn with_virtual_fields(mut self, fields: &[crate::field::Field]) -> Result<Self> {
        if fields.is_empty() {
            return Ok(self);
        }
        let tail = super::to_arrow_schema(fields, None)?;
        let all: Vec<_> = self
            .schema
            .fields()
            .iter()
            .chain(tail.fields().iter())
            .cloned()
            .collect();
        self.schema = Arc::new(arrow_schema::Schema::new_with_metadata(
            all,
            self.schema.metadata().clone(),
        ));
        Ok(self)
    }

    /// `batch` (of the projection this converter was built for, read with the options it
    /// set, then its virtual columns) as an Arrow record batch of [`Self::schema`].
    pub fn convert(&mut self, batch: &ArrayBatch) -> Result<RecordBatch> {
        if batch.arrays.len() != self.schema.fields().len() {
            return Err(Error::InvalidArgument(format!(
                "a batch of {} columns for a converter of {}",
                batch.arrays.len(),
                self.schema.fields().len()
            )));
        }
        let projected = self.fields.len();
        let mut columns = Vec::with_capacity(batch.arrays.len());
        for (i, (a, f)) in batch.arrays[..projected]
            .iter()
            .zip(self.schema.fields().iter())
            .enumerate()
        {
            let column = match (a, f.data_type()) {
                (Array::Primitive(c), ArrowType::Dictionary(key, value)) => {
                    match keys_column(c, key, value, &mut self.dictionaries[i])? {
                        Some(a) => a,
                        None => to_arrow_array(a, f.data_type())?,
                    }
                }
                _ if self.variants[i] => {
                    let v = crate::variant::VariantArray::from_group(&self.fields[i], a)?;
                    super::variant::variant_to_arrow(&v)?
                }
                (_, dt) if self.utf8_checked[i] => {
                    probe::hit("arrow.utf8_checked_by_decoder");
                    array_to_arrow(a, dt, Utf8::Checked)?
                }
                _ => to_arrow_array(a, f.data_type())?,
            };
            columns.push(column);
        }
        for (a, f) in batch.arrays[projected..]
            .iter()
            .zip(&self.schema.fields()[projected..])
        {
            columns.push(to_arrow_array(a, f.data_type())?);
        }
        RecordBatch::try_new_with_options(
            self.schema.clone(),
            columns,
            &RecordBatchOptions::new().with_row_count(Some(batch.num_rows)),
        )
        .map_err(arrow_err)
    }
}

/// [`super::to_arrow_schema`] of `reader`'s `fields`, the whole VARIANT groups among them
/// (`variants`) as the extension type.
fn arrow_schema_of<S: Source>(
    reader: &FileDecoder<S>,
    fields: &[crate::field::Field],
    variants: &[bool],
) -> Result<SchemaRef> {
    let schema = super::to_arrow_schema(fields, reader.metadata.key_value_metadata.as_deref())?;
    if !variants.contains(&true) {
        return Ok(Arc::new(schema));
    }
    let arrow_fields: Vec<ArrowField> = schema
        .fields()
        .iter()
        .zip(variants)
        .map(|(f, &v)| {
            if v {
                super::variant::variant_arrow_field(f)
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    Ok(Arc::new(arrow_schema::Schema::new_with_metadata(
        arrow_fields,
        schema.metadata().clone(),
    )))
}

/// Ask the decoder of leaf column `c`, read as Arrow `dt`, for i32 offsets when it is `Utf8`
/// or `Binary`, and, when the `decoders` are trusted, to check UTF-8 when `dt` is a string
/// type (returns whether it asked).
fn string_leaf(
    dt: &ArrowType,
    c: usize,
    options: &mut crate::read::ReadOptions,
    decoders: Decoders,
) -> bool {
    if matches!(dt, ArrowType::Utf8 | ArrowType::Binary) {
        options.small_offsets.push(c);
    }
    let check = decoders == Decoders::Trusted
        && matches!(
            dt,
            ArrowType::Utf8 | ArrowType::LargeUtf8 | ArrowType::Utf8View
        );
    if check {
        options.utf8_columns.push(c);
    }
    check
}

/// [`string_leaf`] for each leaf of a nested field (`columns`, its leaf columns in order);
/// true when the field has a string leaf (all of them are then checked). Nothing is asked
/// when the leaves of `dt` do not pair one to one with `columns`.
fn string_leaves(
    dt: &ArrowType,
    columns: &[usize],
    options: &mut crate::read::ReadOptions,
    decoders: Decoders,
) -> bool {
    fn leaf_types<'a>(dt: &'a ArrowType, out: &mut Vec<&'a ArrowType>) {
        match dt {
            ArrowType::List(f)
            | ArrowType::LargeList(f)
            | ArrowType::FixedSizeList(f, _)
            | ArrowType::Map(f, _) => leaf_types(f.data_type(), out),
            ArrowType::Struct(fields) => fields.iter().for_each(|f| leaf_types(f.data_type(), out)),
            _ => out.push(dt),
        }
    }
    let mut types = Vec::with_capacity(columns.len());
    leaf_types(dt, &mut types);
    if types.len() != columns.len() {
        return false;
    }
    // Every leaf is asked for (no short circuit).
    columns.iter().zip(types).fold(false, |any, (&c, dt)| {
        string_leaf(dt, c, options, decoders) | any
    })
}

/// A column of keys ([`Values::Dictionary`]) as an Arrow dictionary array, its dictionary's
/// values converted once per dictionary (`cache`); `None` for other columns and for keys a
/// key type too narrow cannot hold.
fn keys_column(
    c: &Column,
    key: &ArrowType,
    value: &ArrowType,
    cache: &mut Option<(Arc<Column>, ArrayRef)>,
) -> Result<Option<ArrayRef>> {
    let Values::Dictionary { dictionary, .. } = &c.values else {
        return Ok(None);
    };
    let values = match cache {
        Some((d, values)) if Arc::ptr_eq(d, dictionary) => values.clone(),
        _ => {
            let values = column_to_arrow(dictionary, value)?;
            *cache = Some((Arc::clone(dictionary), values.clone()));
            values
        }
    };
    keys_to_arrow(c, &values, key, value)
}

impl<S: Source> ParquetRecordBatchReader<S> {
    /// The schema of every batch.
    pub fn arrow_schema(&self) -> SchemaRef {
        self.converter.schema()
    }

    /// What pruning and the filter did so far.
    pub fn stats(&self) -> crate::predicate::FilterStats {
        self.inner.stats()
    }
}

impl<S: Source> Iterator for ParquetRecordBatchReader<S> {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        let batch = self.inner.next()?;
        Some(
            batch
                .and_then(|b| self.converter.convert(&b))
                .map_err(|e| ArrowError::ExternalError(Box::new(e))),
        )
    }
}

impl<S: Source> RecordBatchReader for ParquetRecordBatchReader<S> {
    fn schema(&self) -> SchemaRef {
        self.converter.schema()
    }
}

impl<S: Source> ReadBuilder<'_, S> {
    /// Start the read, as [`Self::build`] does, with its rows as Arrow record batches: the
    /// projected fields as `schema` says (one field per projected field, each of a type
    /// [`to_arrow_array`] converts the field to, `Utf8View` for a string, say; `None`:
    /// [`super::to_arrow_schema`]'s, whole VARIANT groups as the `arrow.parquet.variant`
    /// extension type), then the virtual columns (`Int64` row numbers, `Int32` row groups,
    /// not null).
    ///
    /// The decoders do what they can for the Arrow types, where the bytes are still in
    /// cache: string leaves (flat or nested) are checked for UTF-8 as their pages are
    /// decoded rather than by a pass over every batch, `Utf8` and `Binary` leaves are
    /// decoded with i32 offsets, and flat `Dictionary` columns are read as keys, their
    /// dictionaries converted once per column chunk. A type a field cannot be read as is an
    /// error here or at the batch that meets it.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use arrow_array::{Array, RecordBatchReader};
    /// use arrow_schema::{DataType, Field, Schema};
    /// use parq::predicate::col;
    /// use parq::read::ParquetReader;
    /// let bytes = std::fs::read("testdata/parquet-testing/data/alltypes_plain.parquet").unwrap();
    /// let reader = ParquetReader::new(bytes::Bytes::from(bytes)).unwrap();
    /// let schema = Schema::new(vec![
    ///     Field::new("id", DataType::Int32, true),
    ///     Field::new("string_col", DataType::Utf8View, true),
    /// ]);
    /// let batches = reader
    ///     .read_builder()
    ///     .with_projection(["id", "string_col"])
    ///     .with_filter(col("id").ge(4i32))
    ///     .with_row_number_column("_pos")
    ///     .build_arrow(Some(Arc::new(schema)))
    ///     .unwrap();
    /// assert_eq!(batches.schema().field(1).data_type(), &DataType::Utf8View);
    /// assert_eq!(batches.schema().field(2).name(), "_pos");
    /// let rows: usize = batches.map(|b| b.unwrap().num_rows()).sum();
    /// assert_eq!(rows, 4);
    /// ```
    pub fn build_arrow(self, schema: Option<SchemaRef>) -> Result<ParquetRecordBatchReader<S>> {
        let file = self.file();
        let projection = match self.projection() {
            Some(p) => p.to_vec(),
            None => all_fields(file)?,
        };
        let mut options = file.options.clone();
        let converter = if projection.is_empty() {
            RecordBatchConverter::empty()
        } else {
            RecordBatchConverter::new(file, &projection, schema, &mut options, Decoders::Trusted)?
        };
        let inner = self.build_with(options)?;
        let projected = converter.fields.len();
        let converter = converter.with_virtual_fields(&inner.fields()[projected..])?;
        Ok(ParquetRecordBatchReader { inner, converter })
    }
}

impl<S: Source> ParquetReader<S> {
    /// The Arrow schema of the whole file (see [`super::to_arrow_schema`]).
    pub fn arrow_schema(&self) -> Result<arrow_schema::Schema> {
        super::to_arrow_schema(
            &self.fields()?,
            self.decoder.metadata.key_value_metadata.as_deref(),
        )
    }

    /// Stream Arrow [`RecordBatch`]es of `batch_size` rows of `projection` (top-level field
    /// names or leaf dotted paths, as in [`Self::array_batches`]; empty: every field), with
    /// the Arrow schema of [`super::to_arrow_schema`] (whole VARIANT groups as the
    /// `arrow.parquet.variant` extension type). A shorthand for
    /// `read_builder().with_projection(projection).with_batch_size(batch_size)
    /// .build_arrow(None)` ([`ReadBuilder::build_arrow`]), which also takes a schema, a
    /// filter, a limit and the rest.
    ///
    /// ```
    /// use arrow_array::RecordBatchReader;
    /// use parq::read::ParquetReader;
    /// let bytes = std::fs::read("testdata/parquet-testing/data/alltypes_plain.parquet").unwrap();
    /// let reader = ParquetReader::new(bytes::Bytes::from(bytes)).unwrap();
    /// let batches = reader.record_batches(&["id", "string_col"], 1024).unwrap();
    /// assert_eq!(batches.schema().fields().len(), 2);
    /// let rows: usize = batches.map(|b| b.unwrap().num_rows()).sum();
    /// assert_eq!(rows, 8);
    /// ```
    pub fn record_batches<C>(
        &self,
        projection: &[C],
        batch_size: usize,
    ) -> Result<ParquetRecordBatchReader<S>>
    where
        for<'c> &'c C: Into<Select>,
    {
        // Empty here means every field; the builder reads every field when none is set.
        let projection = selects(projection);
        let mut read = self.read_builder().with_batch_size(batch_size);
        if !projection.is_empty() {
            read = read.with_projection(projection);
        }
        read.build_arrow(None)
    }
}

/// Every top-level field of `reader`'s file, by index (names may repeat).
fn all_fields<S: Source>(reader: &FileDecoder<S>) -> Result<Vec<Select>> {
    Ok((0..reader.fields()?.len()).map(Select::Field).collect())
}

#[cfg(test)]
mod tests {
    use super::views_valid;

    /// Keys of a caller's column are checked: one past the dictionary in a null slot is
    /// allowed (Arrow ignores null slots' keys), in a valid slot it is an error.
    #[test]
    fn dictionary_keys_out_of_bounds_are_checked() {
        use crate::column::{Column, Values};
        use arrow_array::Array as _;
        use arrow_schema::DataType;
        use std::sync::Arc;
        let dictionary = Arc::new(Column {
            len: 2,
            validity: None,
            values: Values::Int64(vec![10i64, 20].into()),
        });
        let column = |keys: Vec<i32>, validity: Option<Vec<bool>>| Column {
            len: keys.len(),
            validity: validity.map(Into::into),
            values: Values::Dictionary {
                keys: keys.into(),
                dictionary: Arc::clone(&dictionary),
            },
        };
        let dt = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Int64));
        let ok = super::column_to_arrow(&column(vec![1, 0, 1], None), &dt).unwrap();
        assert_eq!(ok.len(), 3);
        let null_slot = column(vec![1, 7, -1], Some(vec![true, false, false]));
        let a = super::column_to_arrow(&null_slot, &dt).unwrap();
        assert_eq!(a.null_count(), 2);
        for bad in [vec![1, 2, 0], vec![0, -1, 0]] {
            assert!(super::column_to_arrow(&column(bad, None), &dt).is_err());
        }
    }
    /// Byte array columns a caller built are checked before Arrow wraps them: offsets past
    /// the values or of the wrong count are an error, and so is invalid UTF-8 in a string
    /// type, with i64 and with i32 offsets.
    #[test]
    fn byte_array_columns_are_checked_before_wrapping() {
        use crate::column::{Column, Values};
        use arrow_array::Array as _;
        use arrow_buffer::{Buffer, OffsetBuffer};
        use arrow_schema::DataType;
        let wide = |o: Vec<i64>, data: &[u8]| Column {
            len: o.len() - 1,
            validity: None,
            values: Values::Binary {
                offsets: OffsetBuffer::new(o.into()),
                data: Buffer::from(data.to_vec()),
            },
        };
        let small = |o: Vec<i32>, data: &[u8]| Column {
            len: o.len() - 1,
            validity: None,
            values: Values::SmallBinary {
                offsets: OffsetBuffer::new(o.into()),
                data: Buffer::from(data.to_vec()),
            },
        };
        let types = [DataType::Utf8, DataType::Binary, DataType::LargeUtf8];
        for dt in &types {
            for ok in [wide(vec![0, 1, 3], b"abc"), small(vec![0, 1, 3], b"abc")] {
                assert_eq!(super::column_to_arrow(&ok, dt).unwrap().len(), 2, "{dt}");
            }
            for past in [wide(vec![0, 1, 4], b"abc"), small(vec![0, 1, 4], b"abc")] {
                assert!(super::column_to_arrow(&past, dt).is_err(), "{dt}");
            }
            for mut short in [wide(vec![0, 1, 3], b"abc"), small(vec![0, 1, 3], b"abc")] {
                short.len = 3;
                assert!(super::column_to_arrow(&short, dt).is_err(), "{dt}");
            }
            for bad in [
                wide(vec![0, 1, 2], b"a\xff"),
                small(vec![0, 1, 2], b"a\xff"),
            ] {
                let r = super::column_to_arrow(&bad, dt);
                assert_eq!(r.is_ok(), *dt == DataType::Binary, "{dt}");
            }
        }
    }

    /// A batch of more than `i32::MAX` bytes does not fit Arrow's Binary and Utf8: an error
    /// that names the Large type, which takes it (the values are not touched: a zeroed
    /// allocation of 2 GiB that stays unmapped).
    #[test]
    fn batches_past_i32_need_the_large_types() {
        use crate::column::{Column, Values};
        use arrow_array::Array as _;
        use arrow_buffer::{Buffer, OffsetBuffer};
        use arrow_schema::DataType;
        let end = i32::MAX as i64 + 2;
        let c = Column {
            len: 2,
            validity: None,
            values: Values::Binary {
                offsets: OffsetBuffer::new(vec![0i64, 1, end].into()),
                data: Buffer::from_vec(vec![0u8; end as usize]),
            },
        };
        let err = super::column_to_arrow(&c, &DataType::Binary).unwrap_err();
        assert!(err.to_string().contains("use the Large type"), "{err}");
        assert_eq!(
            super::column_to_arrow(&c, &DataType::LargeBinary)
                .unwrap()
                .len(),
            2
        );
    }

    use arrow_array::builder::make_view;
    use arrow_buffer::{Buffer, ScalarBuffer};

    /// Views of `strings` over one buffer holding them back to back, as a PLAIN page would.
    fn views_of(strings: &[&[u8]]) -> (ScalarBuffer<u128>, Vec<Buffer>) {
        let data: Vec<u8> = strings.concat();
        let mut offset = 0u32;
        let views = strings
            .iter()
            .map(|s| {
                let v = make_view(s, 0, offset);
                offset += s.len() as u32;
                v
            })
            .collect();
        (views, vec![Buffer::from_vec(data)])
    }

    #[test]
    fn views_are_checked_like_arrow_does() {
        let ascii: &[&[u8]] = &[b"a", b"", b"a string longer than twelve", b"twelve bytes"];
        let (v, b) = views_of(ascii);
        assert!(views_valid(&v, &b, true));
        // Multi-byte UTF-8, short and long.
        let (v, b) = views_of(&["é".as_bytes(), "ünïcødé strings beyond 12".as_bytes()]);
        assert!(views_valid(&v, &b, true));
        // Invalid UTF-8: a binary column may hold it, a string column may not.
        for bad in [&b"\xff"[..], &b"long invalid \xc3\x28 utf-8 bytes"[..]] {
            let (v, b) = views_of(&[b"ok", bad]);
            assert!(views_valid(&v, &b, false));
            assert!(!views_valid(&v, &b, true), "{bad:?}");
        }
        // A long view past its buffer's end, into a buffer that does not exist, or whose
        // prefix is not its data's.
        let (v, b) = views_of(ascii);
        let long = v[2];
        let past = long + (1u128 << 96);
        let elsewhere = long + (1u128 << 64);
        let prefix = long ^ (1u128 << 32);
        for broken in [past, elsewhere, prefix] {
            let views: ScalarBuffer<u128> = vec![v[0], broken].into();
            assert!(!views_valid(&views, &b, false));
        }
        // An inline view with bytes after its data.
        let padded: ScalarBuffer<u128> = vec![v[0] | (1u128 << 120)].into();
        assert!(!views_valid(&padded, &b, false));
        // Every length, with every byte after its data set in turn; and with its last data
        // byte non-ASCII (a lone continuation byte: not UTF-8 either).
        for len in 0..=12u32 {
            let data = (1u128 << (8 * len)) - 1;
            let ascii = len as u128 | ((data & 0x4141_4141_4141_4141_4141_4141) << 32);
            let one: ScalarBuffer<u128> = vec![ascii].into();
            assert!(views_valid(&one, &[], true), "length {len}");
            for at in len..12 {
                let bad: ScalarBuffer<u128> = vec![ascii | (1u128 << (32 + 8 * at))].into();
                assert!(!views_valid(&bad, &[], false), "length {len}, byte {at}");
            }
            if len > 0 {
                let high = ascii | (0x80u128 << (32 + 8 * (len - 1)));
                let one: ScalarBuffer<u128> = vec![high].into();
                assert!(views_valid(&one, &[], false), "length {len}");
                assert!(!views_valid(&one, &[], true), "length {len}");
            }
        }
    }
}
