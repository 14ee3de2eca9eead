//! Row selection over a whole Parquet file from arbitrary bytes: open it with a selection
//! drawn from the input's last bytes, then read every leaf column, batches over all leaves,
//! and every field. Errors are fine; a panic, a hang or an allocation past the limits is not.
//!
//! Oracle: where the footer's row counts hold (a full read of the column has as many rows as
//! the footer says) and no chunk has an offset index (whose page rows a mutated file may
//! misstate), a selected read that succeeds equals the full read filtered by the selection.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::column::Column;
use parq::read::{ParquetReader, ReadOptions, RowSelection};

fn options(selection: Option<RowSelection>) -> ReadOptions {
    ReadOptions::default()
        .with_max_memory(64 << 20)
        .with_selection(selection)
}

/// Up to 4 ranges from the 16 bytes before the footer's length: (start, length) pairs of
/// u16, so they land inside small files.
fn selection(data: &[u8]) -> RowSelection {
    let tail = &data[data.len().saturating_sub(24)..data.len().saturating_sub(8)];
    RowSelection::from_ranges(tail.chunks_exact(4).map(|c| {
        let start = u16::from_le_bytes([c[0], c[1]]) as u64 % 4096;
        let len = u16::from_le_bytes([c[2], c[3]]) as u64 % 512;
        start..start + len
    }))
}

fn filter(col: &Column, sel: &RowSelection) -> Column {
    let parts: Vec<Column> = sel
        .ranges()
        .iter()
        .filter(|r| r.start < col.len as u64)
        .map(|r| {
            let end = r.end.min(col.len as u64);
            col.slice(r.start as usize, (end - r.start) as usize)
        })
        .collect();
    if parts.is_empty() {
        col.slice(0, 0)
    } else {
        Column::concat(&parts)
    }
}

/// Whether every row group's pages of column `i` hold as many rows as the footer says.
fn rows_hold(bytes: &bytes::Bytes, row_groups: usize, i: usize) -> bool {
    (0..row_groups).all(|k| {
        let mut o = options(None);
        o.row_groups = Some(vec![k]);
        let Ok(one) = ParquetReader::with_options(bytes.clone(), o) else {
            return false;
        };
        one.read_column(i)
            .is_ok_and(|c| c.len as u64 == one.num_rows())
    })
}

fuzz_target!(|data: &[u8]| {
    let bytes = bytes::Bytes::copy_from_slice(data);
    let sel = selection(data);
    let Ok(full) = ParquetReader::with_options(bytes.clone(), options(None)) else {
        return;
    };
    let Ok(selected) = ParquetReader::with_options(bytes.clone(), options(Some(sel.clone())))
    else {
        return;
    };
    let indexed = full
        .metadata()
        .row_groups
        .iter()
        .flat_map(|rg| &rg.columns)
        .any(|c| c.offset_index_offset.is_some());
    let n = full.schema().leaves.len();
    for i in 0..n {
        let Ok(got) = selected.read_column(i) else {
            continue;
        };
        if indexed {
            continue;
        }
        if let Ok(all) = full.read_column(i) {
            if rows_hold(&bytes, full.metadata().row_groups.len(), i) {
                assert!(
                    got == filter(&all, &sel),
                    "column {i}: selected != filtered"
                );
            }
        }
    }
    let leaves: Vec<usize> = (0..n).collect();
    if let Ok(batches) = selected.batches(&leaves, 7) {
        for b in batches {
            if b.is_err() {
                break;
            }
        }
    }
    if let Ok(fields) = selected.fields() {
        for i in 0..fields.len() {
            let _ = selected.read_field(i);
        }
    }
});
