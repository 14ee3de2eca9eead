//! The `write_nested` bench's columns and its two writers, shared by the criterion bench and
//! `src/bin/write_nested_once.rs` (one case written a fixed number of times, for callgrind).

use std::sync::Arc;

use arrow_array::{
    ArrayRef, Int32Array, Int64Array, ListArray, RecordBatch, StringArray, StructArray,
};
use arrow_buffer::{NullBuffer, OffsetBuffer};
use arrow_schema::{DataType, Field, Fields, Schema};
use parq::write::WriterOptions;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

use crate::Rng;

/// Offsets of `rows` lists, each null with probability `p` (then empty) or of `0..=max`
/// items, and the list validity (`None` when `p == 0`).
fn list_shape(
    rng: &mut Rng,
    rows: usize,
    max: u64,
    p: f64,
) -> (OffsetBuffer<i32>, Option<NullBuffer>) {
    let valid: Vec<bool> = (0..rows).map(|_| !rng.chance(p)).collect();
    let mut offsets = Vec::with_capacity(rows + 1);
    offsets.push(0i32);
    for &v in &valid {
        let n = if v { rng.below(max + 1) as i32 } else { 0 };
        offsets.push(offsets.last().unwrap() + n);
    }
    let nulls = (p > 0.0).then(|| NullBuffer::from(valid));
    (OffsetBuffer::new(offsets.into()), nulls)
}

fn nulls(rng: &mut Rng, n: usize, p: f64) -> Option<NullBuffer> {
    (p > 0.0).then(|| NullBuffer::from(crate::validity(rng, n, p)))
}

fn list_of(
    item: DataType,
    offsets: OffsetBuffer<i32>,
    child: ArrayRef,
    valid: Option<NullBuffer>,
) -> ArrayRef {
    let field = Arc::new(Field::new("element", item, true));
    Arc::new(ListArray::new(field, offsets, child, valid))
}

pub fn list_i64(rows: usize, p: f64) -> ArrayRef {
    let mut rng = Rng::new(99);
    let (offsets, valid) = list_shape(&mut rng, rows, 8, p);
    let items = offsets[offsets.len() - 1] as usize;
    let values: Vec<i64> = (0..items).map(|_| rng.next_u64() as i64).collect();
    let child = Int64Array::new(values.into(), nulls(&mut rng, items, p));
    list_of(DataType::Int64, offsets, Arc::new(child), valid)
}

fn strings(rng: &mut Rng, n: usize, p: f64) -> StringArray {
    let valid = crate::validity(rng, n, p);
    valid
        .iter()
        .map(|&v| v.then(|| crate::random_string(rng, 4, 12)))
        .collect()
}

pub fn struct_i64_utf8(rows: usize) -> ArrayRef {
    let mut rng = Rng::new(7);
    let valid = nulls(&mut rng, rows, 0.10);
    let a: Vec<i64> = (0..rows).map(|_| rng.next_u64() as i64).collect();
    let a = Int64Array::new(a.into(), nulls(&mut rng, rows, 0.05));
    let b = strings(&mut rng, rows, 0.05);
    let fields = Fields::from(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8, true),
    ]);
    Arc::new(StructArray::new(
        fields,
        vec![Arc::new(a), Arc::new(b)],
        valid,
    ))
}

pub fn list_utf8(rows: usize) -> ArrayRef {
    let mut rng = Rng::new(11);
    let (offsets, valid) = list_shape(&mut rng, rows, 8, 0.05);
    let items = offsets[offsets.len() - 1] as usize;
    let child = strings(&mut rng, items, 0.05);
    list_of(DataType::Utf8, offsets, Arc::new(child), valid)
}

pub fn list_list_i32(rows: usize) -> ArrayRef {
    let mut rng = Rng::new(13);
    let (outer, outer_valid) = list_shape(&mut rng, rows, 4, 0.05);
    let lists = outer[outer.len() - 1] as usize;
    let (inner, inner_valid) = list_shape(&mut rng, lists, 4, 0.05);
    let items = inner[inner.len() - 1] as usize;
    let values: Vec<i32> = (0..items).map(|_| rng.next_u32() as i32).collect();
    let child = Int32Array::new(values.into(), nulls(&mut rng, items, 0.05));
    let inner = list_of(DataType::Int32, inner, Arc::new(child), inner_valid);
    list_of(inner.data_type().clone(), outer, inner, outer_valid)
}

/// A generator of one case's column of `rows` rows.
pub type MakeColumn = fn(usize) -> ArrayRef;

pub fn batch(column: ArrayRef) -> RecordBatch {
    let schema = Schema::new(vec![Field::new("a", column.data_type().clone(), true)]);
    RecordBatch::try_new(Arc::new(schema), vec![column]).expect("batch")
}

pub fn write_parq(batch: &RecordBatch, options: &WriterOptions) -> Vec<u8> {
    let mut w = parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options.clone())
        .expect("writer");
    w.write(batch).expect("write");
    w.into_inner().expect("finish")
}

pub fn write_parquet(batch: &RecordBatch, props: &WriterProperties) -> Vec<u8> {
    let mut out = Vec::new();
    let mut w =
        ArrowWriter::try_new(&mut out, batch.schema(), Some(props.clone())).expect("writer");
    w.write(batch).expect("write");
    w.close().expect("close");
    out
}

/// The bench's six cases by name, each with its column generator.
pub const CASES: [(&str, MakeColumn); 6] = [
    ("list_i64_null5", |r| list_i64(r, 0.05)),
    ("list_i64_null50", |r| list_i64(r, 0.50)),
    ("list_i64_nonull", |r| list_i64(r, 0.0)),
    ("struct_i64_utf8", struct_i64_utf8),
    ("list_utf8", list_utf8),
    ("list_list_i32", list_list_i32),
];
