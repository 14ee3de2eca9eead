//! The round-trip checker: write a [`FileSpec`], read it back, report the first difference.
//!
//! Values are compared bit for bit (NaN payloads and -0.0 count) through
//! [`Array::value`], so layouts do not matter: offsets or views, i32 or i64 list offsets,
//! whatever sits under a null slot. A difference is reported by leaf path (`f0[3].c1[0]`:
//! row 3 of field `f0`, child `c1`, element 0), row and both values, typed.
//!
//! parq's reader is the default ([`ParqReader`]). Another reader plugs in through
//! [`ParquetReadUnderTest`] ([`check_roundtrip_with`]); with the `arrow` feature,
//! [`check_roundtrip`] also reads the file as Arrow `RecordBatch`es and compares those.

use std::fmt;

use bytes::Bytes;

use super::schema::primitive;
use super::spec::FileSpec;
use crate::array::{Array, Value};
use crate::field::{DataType, Field, Primitive};
use crate::metadata::{LogicalType, Type};
use crate::read::ParquetReader;

/// A reader under test: the top-level fields of a Parquet file, by name, as parq arrays.
pub trait ParquetReadUnderTest {
    /// A name for reports.
    fn name(&self) -> String;
    /// Every top-level field of the file in `bytes`, in schema order.
    fn read(&self, bytes: &[u8]) -> Result<Vec<(String, Array)>, String>;
}

/// parq's own reader: each top-level field in one call (`ParquetReader::read_field`).
#[derive(Debug, Clone, Copy, Default)]
pub struct ParqReader;

impl ParquetReadUnderTest for ParqReader {
    fn name(&self) -> String {
        "parq".into()
    }

    fn read(&self, bytes: &[u8]) -> Result<Vec<(String, Array)>, String> {
        let reader =
            ParquetReader::new(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string())?;
        let n = reader.fields().map_err(|e| e.to_string())?.len();
        (0..n)
            .map(|i| {
                reader
                    .read_field(i)
                    .map(|(f, a)| (f.name, a))
                    .map_err(|e| e.to_string())
            })
            .collect()
    }
}

/// The first difference between what a spec holds and what a reader returned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch {
    /// The reader that disagreed (`parq`, `parq record_batches`, or yours).
    pub reader: String,
    /// Path of the difference: `f0[3].c1` (field, row, child / element / key / value), or a
    /// field name, or empty for the file as a whole.
    pub column: String,
    /// The row (of the top-level field), when the difference is in a value.
    pub row: Option<usize>,
    /// What the spec holds there.
    pub expected: String,
    /// What the reader returned.
    pub actual: String,
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.reader)?;
        if !self.column.is_empty() {
            write!(f, "column {}", self.column)?;
            if let Some(r) = self.row {
                write!(f, " row {r}")?;
            }
            write!(f, ": ")?;
        }
        write!(f, "expected {}, got {}", self.expected, self.actual)
    }
}

impl std::error::Error for Mismatch {}

/// Write `spec`, read it back with parq (and, with the `arrow` feature, as `RecordBatch`es)
/// and compare.
pub fn check_roundtrip(spec: &FileSpec) -> Result<(), Mismatch> {
    let (bytes, expected) = write(spec)?;
    compare(&ParqReader, spec, &bytes, &expected)?;
    #[cfg(feature = "arrow")]
    arrow_check::record_batches(spec, &bytes, &expected)?;
    Ok(())
}

/// Write `spec` and read it back with `reader`.
pub fn check_roundtrip_with(
    reader: &dyn ParquetReadUnderTest,
    spec: &FileSpec,
) -> Result<(), Mismatch> {
    let (bytes, expected) = write(spec)?;
    compare(reader, spec, &bytes, &expected)
}

/// [`check_roundtrip`], panicking with the mismatch and the spec.
///
/// # Panics
/// On the first difference.
pub fn assert_roundtrip(spec: &FileSpec) {
    if let Err(m) = check_roundtrip(spec) {
        panic!("round trip failed: {m}\nspec: {spec:#?}");
    }
}

/// [`check_roundtrip_with`], panicking with the mismatch and the spec.
///
/// # Panics
/// On the first difference.
pub fn assert_roundtrip_with(reader: &dyn ParquetReadUnderTest, spec: &FileSpec) {
    if let Err(m) = check_roundtrip_with(reader, spec) {
        panic!("round trip failed: {m}\nspec: {spec:#?}");
    }
}

fn write(spec: &FileSpec) -> Result<(Vec<u8>, Vec<Array>), Mismatch> {
    spec.write().map_err(|e| Mismatch {
        reader: "parq writer".into(),
        column: String::new(),
        row: None,
        expected: "a written file".into(),
        actual: format!("error: {e}"),
    })
}

/// Compare what `reader` reads from `bytes` with `expected` (the arrays of `spec.fields`).
pub fn compare(
    reader: &dyn ParquetReadUnderTest,
    spec: &FileSpec,
    bytes: &[u8],
    expected: &[Array],
) -> Result<(), Mismatch> {
    let name = reader.name();
    let mismatch = |column: String, row, expected: String, actual: String| Mismatch {
        reader: name.clone(),
        column,
        row,
        expected,
        actual,
    };
    let got = reader.read(bytes).map_err(|e| {
        mismatch(
            String::new(),
            None,
            "a readable file".into(),
            format!("error: {e}"),
        )
    })?;
    if got.len() != expected.len() {
        return Err(mismatch(
            String::new(),
            None,
            format!("{} fields", expected.len()),
            format!("{} fields", got.len()),
        ));
    }
    for ((field, want), (got_name, got)) in spec.fields.iter().zip(expected).zip(&got) {
        if *got_name != field.name {
            return Err(mismatch(
                field.name.clone(),
                None,
                format!("field {}", field.name),
                format!("field {got_name}"),
            ));
        }
        compare_array(field, want, got)
            .map_err(|(column, row, e, a)| mismatch(column, row, e, a))?;
    }
    Ok(())
}

/// A difference: path, row, expected value, actual value.
pub type Diff = (String, Option<usize>, String, String);

/// The first difference between two arrays of `field` (path as in [`Mismatch::column`]).
pub fn compare_array(field: &Field, expected: &Array, actual: &Array) -> Result<(), Diff> {
    compare_rows(field, expected, actual, 0)
}

/// [`compare_array`] of arrays that start at row `first_row` of the field (for reports).
pub(crate) fn compare_rows(
    field: &Field,
    expected: &Array,
    actual: &Array,
    first_row: usize,
) -> Result<(), Diff> {
    if expected.len() != actual.len() {
        return Err((
            field.name.clone(),
            None,
            format!("{} rows", expected.len()),
            format!("{} rows", actual.len()),
        ));
    }
    for i in 0..expected.len() {
        let (e, a) = (expected.value(i), actual.value(i));
        if e != a {
            let row = first_row + i;
            let (path, ev, av) = diff(field, format!("{}[{row}]", field.name), &e, &a)
                .unwrap_or_else(|| (field.name.clone(), show(field, &e), show(field, &a)));
            return Err((path, Some(row), ev, av));
        }
    }
    Ok(())
}

/// The deepest path where `e` and `a` (values of `field`) differ, with both values there.
fn diff(field: &Field, path: String, e: &Value, a: &Value) -> Option<(String, String, String)> {
    if e == a {
        return None;
    }
    let here = || Some((path.clone(), show(field, e), show(field, a)));
    match (&field.data_type, e, a) {
        (DataType::List(el), Value::List(x), Value::List(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (x, y))| diff(el, format!("{path}[{i}]"), x, y)),
        (DataType::Struct(c), Value::Struct(x), Value::Struct(y)) if x.len() == y.len() => c
            .iter()
            .zip(x.iter().zip(y))
            .find_map(|(c, (x, y))| diff(c, format!("{path}.{}", c.name), x, y)),
        (DataType::Map(entries), Value::Map(x), Value::Map(y)) if x.len() == y.len() => {
            let kv = entries.children();
            let (k, v) = (kv.first().copied()?, kv.get(1).copied());
            x.iter()
                .zip(y)
                .enumerate()
                .find_map(|(i, ((xk, xv), (yk, yv)))| {
                    diff(k, format!("{path}[{i}].key"), xk, yk)
                        .or_else(|| v.and_then(|v| diff(v, format!("{path}[{i}].value"), xv, yv)))
                })
        }
        _ => here(),
    }
}

/// A value of `field`, typed where it is a leaf.
fn show(field: &Field, v: &Value) -> String {
    match (v, primitive(field)) {
        (Value::Leaf(b), Some(p)) => show_leaf(p, b),
        (Value::Null, _) => "null".into(),
        (Value::List(x), _) => format!("a list of {}", x.len()),
        (Value::Map(x), _) => format!("a map of {}", x.len()),
        (Value::Struct(_), _) => "a struct".into(),
        (Value::Leaf(b), None) => format!("0x{}", hex(b)),
    }
}

fn hex(b: &[u8]) -> String {
    let mut s: String = b.iter().take(32).map(|x| format!("{x:02x}")).collect();
    if b.len() > 32 {
        s.push_str(&format!("… ({} bytes)", b.len()));
    }
    s
}

/// A leaf value of `p` from its bytes (as [`crate::column::Column::value_bytes`] gives them).
pub fn show_leaf(p: &Primitive, b: &[u8]) -> String {
    let n = |len: usize| -> Option<[u8; 8]> {
        (b.len() == len).then(|| {
            let mut out = [0u8; 8];
            out[..len].copy_from_slice(b);
            out
        })
    };
    match p.physical_type {
        Type::BOOLEAN => format!("{}", b.first() == Some(&1)),
        Type::INT32 => n(4).map_or_else(
            || hex(b),
            |x| format!("{}", i32::from_le_bytes([x[0], x[1], x[2], x[3]])),
        ),
        Type::INT64 => n(8).map_or_else(|| hex(b), |x| format!("{}", i64::from_le_bytes(x))),
        Type::FLOAT => n(4).map_or_else(
            || hex(b),
            |x| {
                let v = f32::from_le_bytes([x[0], x[1], x[2], x[3]]);
                format!("{v:?} (bits 0x{:08x})", v.to_bits())
            },
        ),
        Type::DOUBLE => n(8).map_or_else(
            || hex(b),
            |x| {
                let v = f64::from_le_bytes(x);
                format!("{v:?} (bits 0x{:016x})", v.to_bits())
            },
        ),
        Type::BYTE_ARRAY
            if matches!(
                p.logical_type,
                Some(LogicalType::String | LogicalType::Enum | LogicalType::Json)
            ) =>
        {
            match std::str::from_utf8(b) {
                Ok(s) if s.len() <= 64 => format!("{s:?}"),
                Ok(s) => format!(
                    "{:?}… ({} bytes)",
                    s.chars().take(32).collect::<String>(),
                    s.len()
                ),
                Err(_) => format!("0x{}", hex(b)),
            }
        }
        _ => format!("0x{}", hex(b)),
    }
}

#[cfg(feature = "arrow")]
mod arrow_check {
    use arrow_array::Array as _;
    use bytes::Bytes;

    use super::{FileSpec, Mismatch};
    use crate::array::Array;
    use crate::arrow::to_arrow_array;
    use crate::read::ParquetReader;
    use crate::testing::arrow::small_offsets;

    /// Read `bytes` as RecordBatches (batches of about a third of the rows, so that batch
    /// boundaries fall inside the file) and compare each column with `expected` in Arrow form.
    pub(super) fn record_batches(
        spec: &FileSpec,
        bytes: &[u8],
        expected: &[Array],
    ) -> Result<(), Mismatch> {
        let reader_name = "parq record_batches".to_string();
        let fail = |column: String, row, e: String, a: String| Mismatch {
            reader: reader_name.clone(),
            column,
            row,
            expected: e,
            actual: a,
        };
        let err = |e: String| {
            fail(
                String::new(),
                None,
                "RecordBatches".into(),
                format!("error: {e}"),
            )
        };
        let reader =
            ParquetReader::new(Bytes::copy_from_slice(bytes)).map_err(|e| err(e.to_string()))?;
        let rows = spec.num_rows();
        let batch_size = (rows / 3).max(1);
        let batches = reader
            .record_batches(crate::read::EVERY_FIELD, batch_size)
            .map_err(|e| err(e.to_string()))?;
        let mut at = 0;
        for batch in batches {
            let batch = batch.map_err(|e| err(e.to_string()))?;
            let n = batch.num_rows();
            if at + n > rows {
                return Err(fail(
                    String::new(),
                    None,
                    format!("{rows} rows"),
                    format!("at least {}", at + n),
                ));
            }
            for ((field, want), got) in spec.fields.iter().zip(expected).zip(batch.columns()) {
                let want = to_arrow_array(&small_offsets(&want.slice(at, n)), got.data_type())
                    .map_err(|e| err(format!("{}: {e}", field.name)))?;
                if want.to_data() == got.to_data() {
                    continue;
                }
                let row = (0..n)
                    .find(|&i| want.slice(i, 1).to_data() != got.slice(i, 1).to_data())
                    .unwrap_or(0);
                return Err(fail(
                    field.name.clone(),
                    Some(at + row),
                    format!("{:?}", want.slice(row, 1)),
                    format!("{:?}", got.slice(row, 1)),
                ));
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
}
