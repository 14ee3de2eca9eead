//! Filtered reads of a whole file from arbitrary bytes (seeded with the read_file seeds,
//! behind 8 control bytes): a predicate on one of the file's leaves, then
//! the read builder's filtered stream with each way of reading the columns the predicate did not decode
//! (`Materialise::{Auto, Selected, Masked}`), a batch size, an offset and a limit, and
//! `read_filtered`. Errors are fine; a panic, a hang, a batch over its size or past the
//! limit is not, and where the reads succeed they agree row for row.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::array::{Array, Value};
use parq::predicate::{col, Expr, Materialise};
use parq::read::{ParquetReader, ReadOptions, Select};

/// Rows compared at most (`Array::value` builds a tree per row).
const MAX_ROWS: usize = 1 << 14;

fn options() -> ReadOptions {
    ReadOptions::default().with_max_memory(64 << 20)
}

/// A null test or an integer comparison on leaf `c` % the leaves (the latter an error on
/// columns that are not integers).
fn predicate(reader: &ParquetReader<bytes::Bytes>, c: u64) -> Option<Expr> {
    let leaves = &reader.schema().leaves;
    if leaves.is_empty() {
        return None;
    }
    let path = leaves[(c % leaves.len() as u64) as usize].path_string();
    let k = ((c >> 8) % 200) as i64 - 50;
    Some(match (c >> 16) % 5 {
        0 => col(path).is_null(),
        1 => col(path).is_not_null(),
        2 => col(path).eq(k),
        3 => col(path).lt(k),
        _ => col(path.clone()).ne(k).and(col(path).ge(-k)),
    })
}

/// The rows of a filtered stream, field by field, or `None` on an error.
fn streamed(
    reader: &ParquetReader<bytes::Bytes>,
    fields: &[Select],
    expr: &Expr,
    how: Materialise,
    (batch_size, offset, limit): (usize, u64, Option<u64>),
) -> Option<Vec<Vec<Value>>> {
    let mut read = reader
        .read_builder()
        .with_projection(fields.iter().cloned())
        .with_filter(expr.clone())
        .with_batch_size(batch_size)
        .with_materialise(how)
        .with_offset(offset);
    if let Some(l) = limit {
        read = read.with_limit(l);
    }
    let batches = read.build().ok()?;
    let mut rows: Vec<Vec<Value>> = vec![Vec::new(); fields.len()];
    let mut total = 0u64;
    for b in batches {
        let b = b.ok()?;
        assert!(
            b.num_rows > 0 && b.num_rows <= batch_size,
            "a batch of {} rows",
            b.num_rows
        );
        assert_eq!(b.arrays.len(), fields.len(), "arrays in a batch");
        total += b.num_rows as u64;
        assert!(limit.is_none_or(|l| total <= l), "past the limit");
        for (k, a) in b.arrays.iter().enumerate() {
            assert_eq!(a.len(), b.num_rows, "batch array length");
            if rows[k].len() < MAX_ROWS {
                rows[k].extend((0..a.len()).map(|i| a.value(i)));
            }
        }
        if total as usize >= MAX_ROWS {
            return None;
        }
    }
    Some(rows)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let c = u64::from_le_bytes(data[..8].try_into().unwrap());
    let Ok(reader) =
        ParquetReader::with_options(bytes::Bytes::copy_from_slice(&data[8..]), options())
    else {
        return;
    };
    let Some(expr) = predicate(&reader, c) else {
        return;
    };
    let Ok(n) = reader.fields().map(|f| f.len()) else {
        return;
    };
    // By index: a fuzzed schema may repeat names.
    let fields: Vec<Select> = (0..n).map(Select::Field).collect();
    let batch_size = [1, 3, 100, 8192][((c >> 24) % 4) as usize];
    let all = streamed(
        &reader,
        &fields,
        &expr,
        Materialise::Auto,
        (batch_size, 0, None),
    );
    for how in [Materialise::Selected, Materialise::Masked] {
        let got = streamed(&reader, &fields, &expr, how, (batch_size, 0, None));
        if let (Some(a), Some(g)) = (&all, &got) {
            assert!(a == g, "{how:?} and Auto disagree");
        }
    }
    // An offset and a limit cut the same rows out of the whole stream.
    let (offset, limit) = ((c >> 32) % 8, (c >> 40) % 16);
    let cut = streamed(
        &reader,
        &fields,
        &expr,
        Materialise::Masked,
        (batch_size, offset, Some(limit)),
    );
    if let (Some(a), Some(cut)) = (&all, &cut) {
        for (w, g) in a.iter().zip(cut) {
            let from = (offset as usize).min(w.len());
            let to = (from + limit as usize).min(w.len());
            assert!(w[from..to] == g[..], "offset {offset}, limit {limit}");
        }
    }
    if let (Some(a), Ok((whole, _))) = (&all, reader.read_filtered(&fields, &expr)) {
        for (w, (_, arr)) in a.iter().zip(&whole) {
            let arr: &Array = arr;
            assert_eq!(
                arr.len(),
                w.len(),
                "read_filtered and the filtered stream disagree on rows"
            );
            for (i, v) in w.iter().enumerate() {
                assert!(
                    &arr.value(i) == v,
                    "read_filtered and the filtered stream, row {i}"
                );
            }
        }
    }
});
