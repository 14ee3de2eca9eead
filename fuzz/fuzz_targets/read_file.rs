//! A whole Parquet file from arbitrary bytes (seeded with parquet-testing): open it, read every
//! leaf column with `read_column`, and iterate `batches` over all leaves. Errors are fine; a
//! panic, a hang or an allocation past the limits is not. Columns that decode must be
//! well formed (buffer lengths match `len`, every slot's bytes are reachable), and when both
//! reads succeed they agree value for value (batches split pages at their run ends).
//!
//! The byte-array layout (offsets or views) is chosen by the input's length parity, so both
//! layouts see every seed's mutations.
//!
//! Nested reading too: `fields()`, `read_field(i)` for every top-level field, and
//! `array_batches` over all of them with a batch size chosen by the input's length. Every
//! array must be well formed (offsets inside their child, children as long as their
//! struct, validity as long as its array), and when both reads succeed the batches' rows,
//! concatenated, equal the whole read slot for slot (`Array::value`).
//!
//! Variant columns too: `read_variant` for every VARIANT field rebuilds each row from its
//! shredding; every rebuilt row decodes (the rebuild checks what it copies) and prints as JSON.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::array::{Array, Value};
use parq::column::{Column, Values};
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions};

fn check_column(c: &Column) {
    if let Some(v) = &c.validity {
        assert_eq!(v.len(), c.len, "validity length");
    }
    match &c.values {
        Values::Boolean(b) => assert_eq!(b.len(), c.len),
        Values::Int32(v) => assert_eq!(v.len(), c.len),
        Values::Int64(v) => assert_eq!(v.len(), c.len),
        Values::Float(v) => assert_eq!(v.len(), c.len),
        Values::Double(v) => assert_eq!(v.len(), c.len),
        Values::Int96(b) => assert_eq!(b.len(), c.len * 12, "int96 bytes"),
        Values::Binary { offsets, data } => {
            assert_eq!(offsets.len(), c.len + 1, "offsets length");
            assert!(offsets.last() as usize <= data.len(), "offsets past data");
        }
        Values::SmallBinary { offsets, data } => {
            assert_eq!(offsets.len(), c.len + 1, "offsets length");
            assert!(offsets.last() as usize <= data.len(), "offsets past data");
        }
        Values::BinaryView { views, buffers } => {
            assert_eq!(views.len(), c.len, "views length");
            for &v in views.iter() {
                let len = v as u32 as usize;
                if len > 12 {
                    let buf = (v >> 64) as u32 as usize;
                    let off = (v >> 96) as u32 as usize;
                    assert!(buf < buffers.len(), "view buffer index");
                    assert!(off + len <= buffers[buf].len(), "view past its buffer");
                }
            }
        }
        Values::FixedLenByteArray { width, data } => assert_eq!(data.len(), c.len * width),
        Values::Dictionary { keys, dictionary } => {
            assert_eq!(keys.len(), c.len, "keys length");
            for (i, &k) in keys.iter().enumerate() {
                if c.is_valid(i) {
                    assert!(
                        (k as u32 as usize) < dictionary.len,
                        "key past the dictionary"
                    );
                }
            }
            check_column(dictionary);
        }
    }
    for i in 0..c.len {
        let _ = c.is_valid(i);
        let _ = c.bytes(i);
    }
}

fn check_array(a: &Array) {
    if let Some(v) = a.validity() {
        assert_eq!(v.len(), a.len(), "validity length");
    }
    match a {
        Array::Primitive(c) => check_column(c),
        Array::List(l) | Array::Map(l) => {
            let child = l.values.len();
            let mut prev = 0;
            for i in 0..l.offsets.len() {
                let r = l.offsets.range(i);
                assert!(r.start <= r.end && r.end <= child, "offsets past the child");
                assert!(r.start >= prev, "offsets not monotonic");
                prev = r.start;
            }
            check_array(&l.values);
        }
        Array::Struct(s) => {
            for c in &s.children {
                assert_eq!(c.len(), s.len, "struct child length");
                check_array(c);
            }
        }
    }
}

/// Rows compared per field at most (`Array::value` builds a tree per row).
const MAX_COMPARED_ROWS: usize = 1 << 14;

/// `fields()`, `read_field` for each, and `array_batches` over all of them.
fn nested(reader: &ParquetReader<bytes::Bytes>, batch_size: usize) {
    let Ok(fields) = reader.fields() else {
        return;
    };
    let whole: Vec<Option<Array>> = (0..fields.len())
        .map(|i| match reader.read_field(i) {
            Ok((f, a)) => {
                assert_eq!(f.name, fields[i].name, "read_field({i}) field");
                check_array(&a);
                Some(a)
            }
            Err(_) => None,
        })
        .collect();
    // Fields by index, which a schema that repeats names does not make ambiguous.
    let names: Vec<parq::read::Select> = (0..fields.len()).map(parq::read::Select::Field).collect();
    if names.is_empty() {
        return;
    }
    let Ok(batches) = reader.array_batches(&names, batch_size) else {
        return;
    };
    assert_eq!(batches.fields().len(), fields.len());
    let mut rows: Vec<Vec<Value>> = vec![Vec::new(); fields.len()];
    let mut total = 0usize;
    for b in batches {
        let Ok(b) = b else {
            return;
        };
        assert!(
            b.num_rows > 0 && b.num_rows <= batch_size,
            "batch of {} rows",
            b.num_rows
        );
        assert_eq!(b.arrays.len(), fields.len(), "arrays in a batch");
        for (k, a) in b.arrays.iter().enumerate() {
            assert_eq!(a.len(), b.num_rows, "batch array length");
            check_array(a);
            if total < MAX_COMPARED_ROWS {
                rows[k].extend((0..a.len()).map(|i| a.value(i)));
            }
        }
        total += b.num_rows;
    }
    for (k, w) in whole.iter().enumerate() {
        let Some(w) = w else { continue };
        assert_eq!(
            w.len(),
            total,
            "read_field({k}) and array_batches disagree on rows"
        );
        if total <= MAX_COMPARED_ROWS {
            for (i, r) in rows[k].iter().enumerate() {
                assert_eq!(&w.value(i), r, "read_field({k}) and array_batches, row {i}");
            }
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let opts = ReadOptions::default()
        // Well inside the smoke run's -malloc_limit_mb=256 (footers and outputs both).
        .with_max_memory(64 << 20)
        .with_byte_array_layout(if data.len() % 2 == 0 {
            ByteArrayLayout::Offsets
        } else {
            ByteArrayLayout::Views
        })
        .with_verify_crc(data.len() % 3 == 0);
    let Ok(reader) = ParquetReader::with_options(bytes::Bytes::copy_from_slice(data), opts) else {
        return;
    };
    // A batch size the fuzzer steers through the input's length (independent of the two
    // parities above).
    nested(&reader, [1, 2, 3, 7, 100, 4096][(data.len() / 6) % 6]);
    for name in reader.variant_fields() {
        if let Ok(v) = reader.read_variant(name) {
            for i in 0..v.len().min(MAX_COMPARED_ROWS) {
                // An unshredded row is the file's own `value` bytes, so a mutated file holds
                // rows that do not decode: an error, never a panic, is what is asked.
                if let Some(Ok(row)) = v.get(i) {
                    let _ = row.to_json();
                }
            }
        }
    }
    let n = reader.schema().leaves.len();
    let mut whole = Vec::with_capacity(n);
    for i in 0..n {
        match reader.read_column(i) {
            Ok(c) => {
                check_column(&c);
                whole.push(Some(c));
            }
            Err(_) => whole.push(None),
        }
    }
    let all: Vec<usize> = (0..n).collect();
    if let Ok(batches) = reader.batches(&all, 100) {
        let mut rows = 0;
        let mut ok = true;
        let mut pieces: Vec<Vec<Column>> = vec![Vec::new(); n];
        for b in batches {
            match b {
                Ok(b) => {
                    assert!(b.num_rows <= 100, "batch over its size");
                    assert_eq!(b.columns.len(), n);
                    for (i, c) in b.columns.into_iter().enumerate() {
                        assert_eq!(c.len, b.num_rows, "batch column length");
                        check_column(&c);
                        pieces[i].push(c);
                    }
                    rows += b.num_rows;
                }
                Err(_) => {
                    ok = false;
                    break;
                }
            }
        }
        if ok && n > 0 {
            for (i, w) in whole.iter().enumerate() {
                if let Some(w) = w {
                    assert_eq!(w.len, rows, "read_column({i}) and batches disagree on rows");
                    if rows > 0 {
                        let joined = Column::concat(&pieces[i]);
                        assert!(joined == *w, "read_column({i}) and batches disagree");
                    }
                }
            }
        }
    }
});
