//! Row selection on nested fields: a selected read equals the full read filtered by the
//! selection, record for record, for random trees of lists, structs and maps, v1 and v2
//! pages, with and without the page index (repeated v1 pages without it cannot be skipped by
//! header: their records are dropped by repetition level instead).

use crate::support_nested;

use bytes::Bytes;
use parq::array::Value;
use parq::field::Field;
use parq::read::{ParquetReader, ReadOptions, RowSelection};
use parq::write::{PageVersion, WriterOptions};
use proptest::prelude::*;
use support_nested::{Rng, *};

fn open(bytes: &[u8], selection: Option<RowSelection>) -> ParquetReader {
    let options = ReadOptions::default().with_selection(selection);
    ParquetReader::with_options(Bytes::from(bytes.to_vec()), options).unwrap()
}

/// Every field's rows, through `read_field`.
fn read_fields(reader: &ParquetReader) -> Vec<Vec<Value>> {
    (0..reader.fields().unwrap().len())
        .map(|i| {
            let (_, a) = reader.read_field(i).unwrap();
            (0..a.len()).map(|j| a.value(j)).collect()
        })
        .collect()
}

/// Every field's rows, through `read_field` and through `array_batches` of `batch` records.
fn read_rows(reader: &ParquetReader, batch: usize) -> (Vec<Vec<Value>>, Vec<Vec<Value>>) {
    let fields = reader.fields().unwrap();
    let whole = read_fields(reader);
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    let mut batched: Vec<Vec<Value>> = vec![Vec::new(); fields.len()];
    for b in reader.array_batches(&names, batch).unwrap() {
        let b = b.unwrap();
        for (g, a) in batched.iter_mut().zip(&b.arrays) {
            assert_eq!(a.len(), b.num_rows);
            g.extend((0..a.len()).map(|i| a.value(i)));
        }
    }
    (whole, batched)
}

fn check(bytes: &[u8], sel: &RowSelection, batch: usize) {
    let full = read_fields(&open(bytes, None));
    let want: Vec<Vec<Value>> = full
        .iter()
        .map(|rows| {
            rows.iter()
                .enumerate()
                .filter(|(i, _)| sel.contains(*i as u64))
                .map(|(_, v)| v.clone())
                .collect()
        })
        .collect();
    let (whole, batched) = read_rows(&open(bytes, Some(sel.clone())), batch);
    assert_eq!(whole, want, "read_field");
    assert_eq!(batched, want, "array_batches of {batch}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn selected_nested_read_is_the_full_read_filtered(
        seed in any::<u64>(),
        depth in 1usize..=3,
        nulls in 0usize..3,
        rows in 1usize..300,
        page_rows in 1usize..30,
        v2 in any::<bool>(),
        page_index in any::<bool>(),
        batch in 1usize..50,
        ranges in prop::collection::vec((0u64..320, 0u64..40), 0..8),
    ) {
        let mut rng = Rng::new(seed);
        let fields: Vec<Field> = (0..1 + rng.below(3) as usize)
            .map(|i| random_field(&mut rng, depth, &format!("f{i}")))
            .collect();
        let null_rate = [0.0, 0.3, 0.9][nulls];
        let columns: Vec<Vec<_>> = fields
            .iter()
            .map(|f| (0..rows).map(|_| random_value(f, &mut rng, null_rate, 3)).collect())
            .collect();
        let options = WriterOptions::default()
            .with_data_page_row_limit(page_rows)
            .with_page_version(if v2 { PageVersion::V2 } else { PageVersion::V1 })
            .with_row_group_rows(1 + rng.below(200) as usize)
            .with_page_index(page_index);
        let bytes = write_rows(&fields, &columns, options, seed);
        let sel = RowSelection::from_ranges(ranges.iter().map(|&(a, l)| a..a + l));
        check(&bytes, &sel, batch);
    }
}

#[cfg(feature = "probes")]
#[test]
fn nested_pages_outside_the_selection_are_skipped() {
    use parq::codecs::probe;
    // One list<int64> field, 1000 records of 0..3 elements in one row group, 100 records a
    // page: the selection touches pages 3 and 8 only.
    let field = Field::list(
        "l",
        Field::primitive("element", parq::metadata::Type::INT64),
    )
    .optional();
    let mut rng = Rng::new(11);
    let rows: Vec<Value> = (0..1000)
        .map(|_| random_value(&field, &mut rng, 0.2, 3))
        .collect();
    let sel = RowSelection::from_ranges([305..310, 399..400, 850..851]);
    for (v2, page_index, decoded, by_header, by_index) in [
        (false, true, 2, 0, 8),
        (true, true, 2, 0, 8),
        (true, false, 2, 8, 0),
        // v1 pages of a repeated column without an offset index: rows unknown before the
        // levels are decoded, so every page is read and unselected records dropped.
        (false, false, 10, 0, 0),
    ] {
        let options = WriterOptions::default()
            .with_data_page_row_limit(100)
            .with_page_version(if v2 { PageVersion::V2 } else { PageVersion::V1 })
            .with_page_index(page_index);
        let bytes = write_rows(
            std::slice::from_ref(&field),
            std::slice::from_ref(&rows),
            options,
            5,
        );
        probe::reset();
        let (_, a) = open(&bytes, Some(sel.clone())).read_field(0).unwrap();
        let got: Vec<Value> = (0..a.len()).map(|i| a.value(i)).collect();
        let want: Vec<Value> = rows
            .iter()
            .enumerate()
            .filter(|(i, _)| sel.contains(*i as u64))
            .map(|(_, v)| v.clone())
            .collect();
        assert_eq!(got, want, "v2 {v2}, page index {page_index}");
        let counts = (
            probe::get("read.pages_decoded"),
            probe::get("read.pages_skipped"),
            probe::get("read.pages_skipped_by_offset_index"),
        );
        assert_eq!(
            counts,
            (decoded, by_header, by_index),
            "v2 {v2}, page index {page_index}"
        );
    }
}
