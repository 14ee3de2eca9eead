//! Round trips through a reader that returns Arrow `RecordBatch`es (feature `arrow`).
//!
//! A reader that returns Arrow arrays maps Parquet types the usual Arrow ways: INT96 as
//! `Timestamp(ns)`, a decimal on BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY as `Decimal128/256`,
//! INTERVAL as `FixedSizeBinary(12)` or `Interval(MonthDayNano)`. [`from_arrow`] inverts
//! those mappings, guided by the Parquet field, into the parq [`Array`] the file holds (12
//! INT96 bytes, minimal big-endian decimal bytes, months/days/millis), so that a comparison
//! with the spec reports real differences only. Where a mapping drops information (INTERVAL
//! as `Interval(DayTime)`, which arrow-rs and parq read, has no months), the expected values
//! drop it too before they are compared. [`check_roundtrip_arrow`] writes a spec, reads
//! it with your [`ArrowReadUnderTest`] and compares batch by batch.
//!
//! The module's documented use is finding bugs in another reader: `examples/find_reader_bugs.rs`
//! plugs in the parquet crate and runs it over generated files (with a [`LeafFilter`]
//! for what it does not support) and over named corruptions.
//!
//! ```
//! use arrow_array::RecordBatch;
//! use parq::testing::arrow::{check_roundtrip_arrow, ArrowReadUnderTest};
//! use parq::testing::{spec::gen_spec, Rng, SpecConfig};
//!
//! /// parq's own Arrow reader, plugged in as the reader under test.
//! struct ParqArrow;
//! impl ArrowReadUnderTest for ParqArrow {
//!     fn name(&self) -> String {
//!         "parq record_batches".into()
//!     }
//!     fn read_batches(&self, bytes: &[u8]) -> Result<Vec<RecordBatch>, String> {
//!         let reader = parq::read::ParquetReader::new(bytes::Bytes::copy_from_slice(bytes))
//!             .map_err(|e| e.to_string())?;
//!         let batches = reader.record_batches(parq::read::EVERY_FIELD, 100).map_err(|e| e.to_string())?;
//!         batches.map(|b| b.map_err(|e| e.to_string())).collect()
//!     }
//! }
//!
//! for seed in 0..8 {
//!     let spec = gen_spec(&mut Rng::new(seed), &SpecConfig::default());
//!     check_roundtrip_arrow(&ParqArrow, &spec).unwrap();
//! }
//! ```
//!
//! [`LeafFilter`]: super::LeafFilter

use arrow_array::cast::AsArray;
use arrow_array::{types, Array as ArrowArray, ArrowPrimitiveType, RecordBatch};
use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType as ArrowType, IntervalUnit, TimeUnit};

use super::columns::be_bytes_min;
use super::roundtrip::{compare_rows, Mismatch};
use super::spec::FileSpec;
use crate::array::{Array, ListArray, ListOffsets, StructArray};
use crate::column::{Column, Values};
use crate::field::{DataType, Field, Primitive};
use crate::metadata::{ConvertedType, LogicalType, Type};

/// A reader under test that returns `RecordBatch`es, one column per top-level field.
pub trait ArrowReadUnderTest {
    /// A name for reports.
    fn name(&self) -> String;
    /// Every row of the file in `bytes`, in batches of any size.
    fn read_batches(&self, bytes: &[u8]) -> Result<Vec<RecordBatch>, String>;
}

/// Julian day of 1970-01-01.
const JULIAN_EPOCH: i64 = 2_440_588;
const NANOS_PER_DAY: i64 = 86_400_000_000_000;

/// The parq array of `field` that an Arrow array read from a Parquet file stands for: the
/// usual Arrow mappings inverted where the field says the file holds something else
/// (INT96, byte-array decimals, intervals), [`crate::arrow::from_arrow_array`] otherwise.
pub fn from_arrow(a: &dyn ArrowArray, field: &Field) -> Result<Array, String> {
    let nulls = a.logical_nulls();
    match &field.data_type {
        DataType::Primitive(p) => leaf(a, p, field),
        DataType::Struct(children) => {
            let s = a
                .as_struct_opt()
                .ok_or_else(|| mismatch_type(field, a.data_type()))?;
            if s.num_columns() != children.len() {
                return Err(format!(
                    "{}: {} children where the file has {}",
                    field.name,
                    s.num_columns(),
                    children.len()
                ));
            }
            let children = s
                .columns()
                .iter()
                .zip(children)
                .map(|(c, f)| from_arrow(c.as_ref(), f))
                .collect::<Result<_, _>>()?;
            Ok(Array::Struct(StructArray {
                len: a.len(),
                validity: nulls,
                children,
            }))
        }
        DataType::List(element) => {
            let (offsets, values) = match a.data_type() {
                ArrowType::List(_) => {
                    let l = a.as_list::<i32>();
                    (
                        ListOffsets::Small(l.offsets().clone()),
                        from_arrow(l.values().as_ref(), element)?,
                    )
                }
                ArrowType::LargeList(_) => {
                    let l = a.as_list::<i64>();
                    (
                        ListOffsets::Large(l.offsets().clone()),
                        from_arrow(l.values().as_ref(), element)?,
                    )
                }
                t => return Err(mismatch_type(field, t)),
            };
            Ok(Array::List(ListArray {
                validity: nulls,
                offsets,
                values: Box::new(values),
            }))
        }
        DataType::Map(entries) => {
            let m = a
                .as_map_opt()
                .ok_or_else(|| mismatch_type(field, a.data_type()))?;
            Ok(Array::Map(ListArray {
                validity: nulls,
                offsets: ListOffsets::Small(m.offsets().clone()),
                values: Box::new(from_arrow(m.entries(), entries)?),
            }))
        }
    }
}

fn mismatch_type(field: &Field, t: &ArrowType) -> String {
    format!(
        "{}: Arrow type {t} does not fit the file's field",
        field.name
    )
}

fn leaf(a: &dyn ArrowArray, p: &Primitive, field: &Field) -> Result<Array, String> {
    let nulls = a.logical_nulls();
    let column = |values| {
        Ok(Array::Primitive(Column {
            len: a.len(),
            validity: nulls.clone(),
            values,
        }))
    };
    let decimal = matches!(p.logical_type, Some(LogicalType::Decimal { .. }));
    let interval = p.converted_type == Some(ConvertedType::INTERVAL);
    match (p.physical_type, a.data_type()) {
        (Type::INT96, ArrowType::Timestamp(unit, _)) => {
            let per = match unit {
                TimeUnit::Second => 1_000_000_000,
                TimeUnit::Millisecond => 1_000_000,
                TimeUnit::Microsecond => 1_000,
                TimeUnit::Nanosecond => 1,
            };
            let mut out = Vec::with_capacity(a.len() * 12);
            for &v in int64_values(a)? {
                let nanos = v.saturating_mul(per);
                let day = nanos.div_euclid(NANOS_PER_DAY) + JULIAN_EPOCH;
                let of_day = nanos.rem_euclid(NANOS_PER_DAY);
                out.extend_from_slice(&(of_day as u64).to_le_bytes());
                out.extend_from_slice(&(day as u32).to_le_bytes());
            }
            column(Values::Int96(Buffer::from_vec(out)))
        }
        (Type::BYTE_ARRAY, ArrowType::Decimal128(..) | ArrowType::Decimal256(..)) if decimal => {
            let mut offsets = vec![0i64];
            let mut data = Vec::new();
            for i in 0..a.len() {
                if a.is_valid(i) {
                    data.extend(be_bytes_min(decimal_at(a, i)?));
                }
                offsets.push(data.len() as i64);
            }
            column(Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                data: Buffer::from_vec(data),
            })
        }
        (Type::FIXED_LEN_BYTE_ARRAY, ArrowType::Interval(IntervalUnit::MonthDayNano))
            if interval =>
        {
            let mut out = Vec::with_capacity(a.len() * 12);
            for v in a
                .as_primitive::<types::IntervalMonthDayNanoType>()
                .values()
                .iter()
            {
                out.extend_from_slice(&(v.months as u32).to_le_bytes());
                out.extend_from_slice(&(v.days as u32).to_le_bytes());
                out.extend_from_slice(&((v.nanoseconds / 1_000_000) as u32).to_le_bytes());
            }
            column(Values::FixedLenByteArray {
                width: 12,
                data: Buffer::from_vec(out),
            })
        }
        _ => crate::arrow::from_arrow_array(a, field).map_err(|e| format!("{}: {e}", field.name)),
    }
}

fn int64_values(a: &dyn ArrowArray) -> Result<&[i64], String> {
    fn values<T: ArrowPrimitiveType<Native = i64>>(a: &dyn ArrowArray) -> Option<&[i64]> {
        a.as_primitive_opt::<T>().map(|p| p.values().as_ref())
    }
    values::<types::TimestampNanosecondType>(a)
        .or_else(|| values::<types::TimestampMicrosecondType>(a))
        .or_else(|| values::<types::TimestampMillisecondType>(a))
        .or_else(|| values::<types::TimestampSecondType>(a))
        .ok_or_else(|| format!("Arrow type {} is not a timestamp", a.data_type()))
}

/// Slot `i` of a Decimal128 or Decimal256 array, when it fits an `i128`.
fn decimal_at(a: &dyn ArrowArray, i: usize) -> Result<i128, String> {
    if let Some(d) = a.as_primitive_opt::<types::Decimal128Type>() {
        return Ok(d.value(i));
    }
    a.as_primitive_opt::<types::Decimal256Type>()
        .and_then(|d| d.value(i).to_i128())
        .ok_or_else(|| format!("decimal slot {i} does not fit 128 bits"))
}

/// Write `spec`, read it with `reader` and compare every batch with what the spec holds, after
/// [`from_arrow`]. Reports the first difference as [`super::check_roundtrip`] does.
pub fn check_roundtrip_arrow(
    reader: &dyn ArrowReadUnderTest,
    spec: &FileSpec,
) -> Result<(), Mismatch> {
    let name = reader.name();
    let fail = |column: String, row, expected: String, actual: String| Mismatch {
        reader: name.clone(),
        column,
        row,
        expected,
        actual,
    };
    let (bytes, expected) = spec.write().map_err(|e| Mismatch {
        reader: "parq writer".into(),
        column: String::new(),
        row: None,
        expected: "a written file".into(),
        actual: format!("error: {e}"),
    })?;
    let batches = reader.read_batches(&bytes).map_err(|e| {
        fail(
            String::new(),
            None,
            "a readable file".into(),
            format!("error: {e}"),
        )
    })?;
    let rows = spec.num_rows();
    let mut at = 0;
    for batch in &batches {
        let n = batch.num_rows();
        if batch.num_columns() != spec.fields.len() || at + n > rows {
            return Err(fail(
                String::new(),
                None,
                format!("{} fields of {rows} rows", spec.fields.len()),
                format!(
                    "a batch of {} columns ending at row {}",
                    batch.num_columns(),
                    at + n
                ),
            ));
        }
        for ((field, want), got) in spec.fields.iter().zip(&expected).zip(batch.columns()) {
            let got_type = got.data_type();
            let got = from_arrow(got.as_ref(), field).map_err(|e| {
                fail(
                    field.name.clone(),
                    None,
                    "a column of the field's type".into(),
                    e,
                )
            })?;
            let want = lossy_view(&want.slice(at, n), field, got_type);
            compare_rows(field, &want, &got, at)
                .map_err(|(column, row, e, a)| fail(column, row, e, a))?;
        }
        at += n;
    }
    if at != rows {
        return Err(fail(
            String::new(),
            None,
            format!("{rows} rows"),
            format!("{at} rows"),
        ));
    }
    Ok(())
}

/// `expected` as a reader that maps `field` to `arrow` can return it: where the mapping
/// drops information (INTERVAL as `Interval(DayTime)` loses the months, as
/// `Interval(YearMonth)` the days and milliseconds), the expected values lose it too, through
/// parq's own mapping and back; otherwise `expected` itself.
fn lossy_view(expected: &Array, field: &Field, arrow: &ArrowType) -> Array {
    if !drops_interval_parts(arrow) {
        return expected.clone();
    }
    crate::arrow::to_arrow_array(&small_offsets(expected), arrow)
        .ok()
        .and_then(|a| from_arrow(a.as_ref(), field).ok())
        .unwrap_or_else(|| expected.clone())
}

fn drops_interval_parts(t: &ArrowType) -> bool {
    match t {
        ArrowType::Interval(IntervalUnit::DayTime | IntervalUnit::YearMonth) => true,
        ArrowType::List(f) | ArrowType::LargeList(f) | ArrowType::Map(f, _) => {
            drops_interval_parts(f.data_type())
        }
        ArrowType::Struct(fields) => fields.iter().any(|f| drops_interval_parts(f.data_type())),
        _ => false,
    }
}

/// `a` with i32 list offsets where the spec used i64 ones (a layout choice of the writer's
/// input that Arrow's `List` type, which parq reads, cannot hold).
pub(crate) fn small_offsets(a: &Array) -> Array {
    let list = |l: &ListArray| {
        let offsets = match &l.offsets {
            ListOffsets::Large(o) => ListOffsets::Small(OffsetBuffer::new(
                o.iter().map(|&x| x as i32).collect::<Vec<i32>>().into(),
            )),
            small => small.clone(),
        };
        ListArray {
            validity: l.validity.clone(),
            offsets,
            values: Box::new(small_offsets(&l.values)),
        }
    };
    match a {
        Array::Primitive(_) => a.clone(),
        Array::List(l) => Array::List(list(l)),
        Array::Map(l) => Array::Map(list(l)),
        Array::Struct(s) => Array::Struct(StructArray {
            len: s.len,
            validity: s.validity.clone(),
            children: s.children.iter().map(small_offsets).collect(),
        }),
    }
}
