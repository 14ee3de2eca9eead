//! Row-group statistics of a footer as DataFusion [`Statistics`].
//!
//! What DataFusion's own Parquet source reports, so that a query plans the same (join sides,
//! broadcast or partitioned joins) whichever reads the files:
//! - row counts, exact; no total byte size (DataFusion derives it from the projected
//!   columns' types, or falls back to the row count);
//! - per column, its in-memory size: exact for fixed-width types (width × rows), else the
//!   uncompressed size of its column chunks, inexact;
//! - for top-level fields stored as one flat leaf: the null count (exact when every row
//!   group has one), min / max (exact only where every row group's statistics say their
//!   bound is exact, `is_min_value_exact` / `is_max_value_exact`: writers truncate long
//!   strings; for floats, also that there is no NaN, which bounds leave out) and the
//!   distinct count where the writer gave one.
//!
//! Nested fields and types whose stored unit may differ from the table's (timestamps) have
//! no bounds.

use datafusion::arrow::datatypes::{DataType, Schema};
use datafusion::common::stats::Precision;
use datafusion::common::{ColumnStatistics, ScalarValue, Statistics};
use parq::metadata::{FileMetaData, InlineBytes, Type};
use parq::schema::SchemaDescriptor;

/// Statistics of a file with footer `metadata` and schema `schema`, for the columns of
/// `table_schema` (matched by name; a column the file lacks is unknown).
pub fn file_statistics(
    metadata: &FileMetaData,
    schema: &SchemaDescriptor,
    table_schema: &Schema,
) -> Statistics {
    let rows: i64 = metadata
        .row_groups
        .iter()
        .map(|rg| rg.num_rows.max(0))
        .sum();
    let column_statistics = table_schema
        .fields()
        .iter()
        .map(|f| {
            let leaves: Vec<usize> = schema
                .leaves
                .iter()
                .enumerate()
                .filter(|(_, l)| l.path.first() == Some(f.name()))
                .map(|(i, _)| i)
                .collect();
            let byte_size = match f.data_type().primitive_width() {
                Some(width) => Precision::Exact(width * rows as usize),
                None if leaves.is_empty() => Precision::Absent,
                None => Precision::Inexact(uncompressed_size(metadata, &leaves)),
            };
            let statistics = match leaves[..] {
                [leaf] if schema.leaves[leaf].path.len() == 1 => {
                    leaf_statistics(metadata, schema, leaf, f.data_type())
                }
                _ => ColumnStatistics::new_unknown(),
            };
            statistics.with_byte_size(byte_size)
        })
        .collect();
    Statistics {
        num_rows: Precision::Exact(rows as usize),
        total_byte_size: Precision::Absent,
        column_statistics,
    }
}

/// The uncompressed bytes of the column chunks of `leaves` over every row group.
fn uncompressed_size(metadata: &FileMetaData, leaves: &[usize]) -> usize {
    metadata
        .row_groups
        .iter()
        .flat_map(|rg| leaves.iter().filter_map(|&l| rg.columns.get(l)))
        .filter_map(|c| c.meta_data.as_ref())
        .map(|m| m.total_uncompressed_size.max(0) as usize)
        .fold(0usize, usize::saturating_add)
}

fn leaf_statistics(
    metadata: &FileMetaData,
    schema: &SchemaDescriptor,
    leaf: usize,
    dt: &DataType,
) -> ColumnStatistics {
    let physical = schema.leaves[leaf].physical_type;
    let mut nulls = Some(0usize);
    let mut min: Option<ScalarValue> = None;
    let mut max: Option<ScalarValue> = None;
    let mut bounds_known = true;
    // Whether every row group's bound is exact, as its statistics say.
    let (mut min_exact, mut max_exact) = (true, true);
    // The largest distinct count, while every row group has one.
    let mut distinct: Option<usize> = Some(0);
    for rg in &metadata.row_groups {
        let stats = rg
            .columns
            .get(leaf)
            .and_then(|c| c.meta_data.as_ref())
            .and_then(|m| m.statistics.as_ref());
        nulls = match (nulls, stats.and_then(|s| s.null_count)) {
            (Some(n), Some(k)) if k >= 0 => Some(n + k as usize),
            _ => None,
        };
        distinct = match (distinct, stats.and_then(|s| s.distinct_count)) {
            (Some(n), Some(k)) if k >= 0 => Some(n.max(k as usize)),
            _ => None,
        };
        if rg.num_rows == 0 {
            continue;
        }
        let bound = |new: &Option<InlineBytes>, old: &Option<InlineBytes>| {
            let bytes = match new {
                Some(b) => b,
                None if signed_legacy(dt) => old.as_ref()?,
                None => return None,
            };
            decode(physical, dt, bytes)
        };
        let (lo, hi) = match stats {
            Some(s) => {
                // Writers leave NaNs out of float bounds; DataFusion orders NaN last.
                let nan_free = !dt.is_floating() || s.nan_count == Some(0);
                min_exact &=
                    nan_free && s.min_value.is_some() && s.is_min_value_exact == Some(true);
                max_exact &=
                    nan_free && s.max_value.is_some() && s.is_max_value_exact == Some(true);
                (bound(&s.min_value, &s.min), bound(&s.max_value, &s.max))
            }
            None => (None, None),
        };
        match (lo, hi) {
            (Some(lo), Some(hi)) if bounds_known => {
                min = Some(match min {
                    Some(m) if m.partial_cmp(&lo) != Some(std::cmp::Ordering::Greater) => m,
                    _ => lo,
                });
                max = Some(match max {
                    Some(m) if m.partial_cmp(&hi) != Some(std::cmp::Ordering::Less) => m,
                    _ => hi,
                });
            }
            _ => bounds_known = false,
        }
    }
    let bound = |v: Option<ScalarValue>, exact: bool| match v {
        Some(v) if bounds_known && exact => Precision::Exact(v),
        Some(v) if bounds_known => Precision::Inexact(v),
        _ => Precision::Absent,
    };
    let distinct_count = match distinct {
        Some(n) if metadata.row_groups.len() == 1 => Precision::Exact(n),
        Some(n) if !metadata.row_groups.is_empty() => Precision::Inexact(n),
        _ => Precision::Absent,
    };
    ColumnStatistics {
        null_count: nulls.map_or(Precision::Absent, Precision::Exact),
        min_value: bound(min, min_exact),
        max_value: bound(max, max_exact),
        distinct_count,
        ..ColumnStatistics::new_unknown()
    }
}

/// Whether the deprecated `min`/`max` fields (signed comparison) order values of `dt` as
/// `min_value`/`max_value` do.
fn signed_legacy(dt: &DataType) -> bool {
    matches!(
        dt,
        DataType::Int8
            | DataType::Int16
            | DataType::Int32
            | DataType::Int64
            | DataType::Date32
            | DataType::Float32
            | DataType::Float64
    )
}

/// A plain-encoded statistics value of `physical` type as a scalar of `dt`.
fn decode(physical: Type, dt: &DataType, b: &[u8]) -> Option<ScalarValue> {
    let i32v = || Some(i32::from_le_bytes(b.try_into().ok()?));
    let i64v = || Some(i64::from_le_bytes(b.try_into().ok()?));
    let value = match (physical, dt) {
        (Type::INT32, DataType::Int8 | DataType::Int16 | DataType::Int32) => {
            ScalarValue::Int32(Some(i32v()?))
        }
        (Type::INT32, DataType::UInt8 | DataType::UInt16 | DataType::UInt32) => {
            ScalarValue::UInt32(Some(i32v()? as u32))
        }
        (Type::INT32, DataType::Date32) => ScalarValue::Date32(Some(i32v()?)),
        (Type::INT32, DataType::Decimal128(p, s)) => {
            ScalarValue::Decimal128(Some(i32v()? as i128), *p, *s)
        }
        (Type::INT64, DataType::Int64) => ScalarValue::Int64(Some(i64v()?)),
        (Type::INT64, DataType::UInt64) => ScalarValue::UInt64(Some(i64v()? as u64)),
        (Type::INT64, DataType::Decimal128(p, s)) => {
            ScalarValue::Decimal128(Some(i64v()? as i128), *p, *s)
        }
        (Type::FLOAT, DataType::Float32) => {
            let v = f32::from_le_bytes(b.try_into().ok()?);
            (!v.is_nan()).then_some(ScalarValue::Float32(Some(v)))?
        }
        (Type::DOUBLE, DataType::Float64) => {
            let v = f64::from_le_bytes(b.try_into().ok()?);
            (!v.is_nan()).then_some(ScalarValue::Float64(Some(v)))?
        }
        (Type::BYTE_ARRAY, DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View) => {
            ScalarValue::Utf8(Some(String::from_utf8(b.to_vec()).ok()?))
        }
        _ => return None,
    };
    value.cast_to(dt).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;

    /// A file written by parq (its statistics say their bounds are exact) with an int64, a
    /// string and a double column holding a NaN, in two row groups.
    fn statistics_of_written_file() -> Statistics {
        let batch = RecordBatch::try_from_iter([
            (
                "i",
                Arc::new(Int64Array::from_iter_values(0..100)) as ArrayRef,
            ),
            (
                "s",
                Arc::new(StringArray::from_iter_values(
                    (0..100).map(|i| format!("s{i:03}")),
                )) as ArrayRef,
            ),
            (
                "f",
                Arc::new(Float64Array::from_iter_values((0..100).map(|i| {
                    if i == 70 {
                        f64::NAN
                    } else {
                        i as f64
                    }
                }))) as ArrayRef,
            ),
        ])
        .unwrap();
        let options = parq::write::WriterOptions::default().with_row_group_rows(50);
        let mut w = parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options).unwrap();
        w.write(&batch).unwrap();
        let bytes = bytes::Bytes::from(w.into_inner().unwrap());
        let reader = parq::read::ParquetReader::new(bytes).unwrap();
        file_statistics(reader.metadata(), reader.schema(), &batch.schema())
    }

    /// As DataFusion's own Parquet source: exact rows, no total size, per-column sizes
    /// (exact for fixed widths), bounds exact where the file says so, but not for a float
    /// column whose bounds leave out a NaN.
    #[test]
    fn statistics_are_datafusions_own() {
        let stats = statistics_of_written_file();
        assert_eq!(stats.num_rows, Precision::Exact(100));
        assert_eq!(stats.total_byte_size, Precision::Absent);
        let [i, s, f] = &stats.column_statistics[..] else {
            panic!("three columns")
        };
        assert_eq!(i.byte_size, Precision::Exact(800));
        assert!(matches!(s.byte_size, Precision::Inexact(n) if n > 0));
        assert_eq!(f.byte_size, Precision::Exact(800));
        assert_eq!(i.min_value, Precision::Exact(ScalarValue::Int64(Some(0))));
        assert_eq!(i.max_value, Precision::Exact(ScalarValue::Int64(Some(99))));
        assert_eq!(i.null_count, Precision::Exact(0));
        assert_eq!(
            s.max_value,
            Precision::Exact(ScalarValue::Utf8(Some("s099".into())))
        );
        assert_eq!(
            f.max_value,
            Precision::Inexact(ScalarValue::Float64(Some(99.0)))
        );
    }
}
