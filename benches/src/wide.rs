//! Wide files for the footer bench (`benches/footer.rs`) and `footer_once`: many optional
//! columns of few rows, so that the footer, not the data, is what they measure.

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use parq::column::{Column, Values};
use parq::write::{Field, ParquetWriter, WriterOptions};

use crate::Rng;

/// Rows per row group.
pub const ROWS: usize = 100;

/// The footer cases: name, columns, kinds cycled through (see [`kind`]), row groups.
pub const CASES: [(&str, usize, usize, usize); 2] = [("wide", 1000, 2, 10), ("wide5k", 5000, 3, 4)];

/// The physical kind of column `i` of a file whose columns cycle through `kinds` kinds:
/// 0 int64, 1 string, 2 double.
pub fn kind(i: usize, kinds: usize) -> usize {
    i % kinds
}

fn column(kind: usize, rng: &mut Rng) -> Column {
    let validity = Some(NullBuffer::from(crate::validity(rng, ROWS, 0.1)));
    let values = if kind == 0 {
        let v: Vec<i64> = (0..ROWS).map(|_| rng.next_u64() as i64).collect();
        Values::Int64(ScalarBuffer::from(v))
    } else if kind == 2 {
        let v: Vec<f64> = (0..ROWS).map(|_| rng.next_u64() as f64).collect();
        Values::Double(ScalarBuffer::from(v))
    } else {
        let mut data = Vec::new();
        let mut offsets = vec![0i64];
        for _ in 0..ROWS {
            let len = 4 + rng.below(12) as usize;
            data.extend((0..len).map(|_| b'a' + rng.below(26) as u8));
            offsets.push(data.len() as i64);
        }
        Values::Binary {
            offsets: OffsetBuffer::new(offsets.into()),
            data: Buffer::from(data),
        }
    };
    Column {
        len: ROWS,
        validity,
        values,
    }
}

/// The whole of a wide file written by parq: `columns` optional columns cycling through
/// `kinds` kinds (see [`kind`]), in `row_groups` row groups of [`ROWS`] rows.
pub fn wide_file(columns: usize, kinds: usize, row_groups: usize) -> Vec<u8> {
    let fields = (0..columns)
        .map(|i| {
            let name = format!("column_{i:04}");
            match kind(i, kinds) {
                0 => Field::int64(name).optional(),
                2 => Field::double(name).optional(),
                _ => Field::string(name).optional(),
            }
        })
        .collect();
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, WriterOptions::default()).expect("writer");
    let mut rng = Rng::new(20);
    for _ in 0..row_groups {
        let columns: Vec<Column> = (0..columns)
            .map(|i| column(kind(i, kinds), &mut rng))
            .collect();
        w.write_batch(&columns).expect("write");
        w.flush_row_group().expect("flush");
    }
    w.finish().expect("finish");
    out
}
