//! A whole Parquet file from arbitrary bytes (seeded with parquet-testing): open it, read every
//! leaf column with `read_column`, and iterate `batches` over all leaves. Errors are fine; a
//! panic, a hang or an allocation past the limits is not. Columns that decode must be
//! well formed (buffer lengths match `len`, every slot's bytes are reachable), and when both
//! reads succeed they agree value for value (batches split pages at their run ends).
//!
//! The byte-array layout (offsets or views) is chosen by the input's length parity, so both
//! layouts see every seed's mutations.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::column::{Column, Values};
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions};
use parq_codecs::compression::Limits;

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
    }
    for i in 0..c.len {
        let _ = c.is_valid(i);
        let _ = c.bytes(i);
    }
}

fuzz_target!(|data: &[u8]| {
    let opts = ReadOptions {
        max_page_values: 1 << 16,
        limits: Limits {
            max_uncompressed_size: 16 << 20,
        },
        byte_array_layout: if data.len() % 2 == 0 {
            ByteArrayLayout::Offsets
        } else {
            ByteArrayLayout::Views
        },
        verify_crc: data.len() % 3 == 0,
        ..Default::default()
    };
    let Ok(reader) = ParquetReader::with_options(bytes::Bytes::copy_from_slice(data), opts) else {
        return;
    };
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
