//! The needle query: the rows of one `id` value out of a file sorted by `id`, found through
//! the page index and read with a row selection, against reading every row; parq side by
//! side with the `parquet` crate given the same row selection by hand.
//!
//! Data: `PARQ_NEEDLE_ROWS` rows (default 10,000,000) of `id` (int64, sorted, 0..rows),
//! `name` (a string of 10..=18 bytes) and `score` (a double), written by parq with snappy,
//! pages of 8,192 rows, row groups of 1,048,576 rows, statistics and the page index on. The
//! file is a `Bytes` in memory (no I/O). One thread.
//!
//! The selection is computed by hand from the `id` column index: in the row group whose
//! statistics hold the needle, the page whose min/max hold it; its first row comes from the
//! offset index. Both sides read the three columns:
//!
//! * `needle/parq/selected`: `ReadOptions::selection`, then `batches` of 8,192 rows of the
//!   three columns;
//! * `needle/parq/full`: the same without a selection;
//! * `needle/parquet/selected`: `ParquetRecordBatchReaderBuilder` with the page index on and
//!   `with_row_selection` (skip, select, skip), batches of 8,192;
//! * `needle/parquet/full`: the same without a selection.
//!
//! Each batch is dropped once counted, on both sides. Every iteration opens the file (parses
//! the footer; the parquet crate also reads the page index of every chunk, parq reads the
//! offset index of the chunks it opens).
//!
//! Run pinned: `taskset -c 1 cargo bench -p parq-benches --bench needle`.

use std::hint::black_box;
use std::ops::Range;

use bytes::Bytes;
use criterion::{criterion_group, criterion_main, Criterion};
use parq::codecs::compression::CodecKind;
use parq::column::{Column, Values};
use parq::read::{ParquetReader, ReadOptions, RowSelection};
use parq::write::{Field, ParquetWriter, WriterOptions};
use parq_benches::Rng;
use parquet::arrow::arrow_reader::{
    ArrowReaderOptions, ParquetRecordBatchReaderBuilder, RowSelection as PqSelection, RowSelector,
};
use parquet::file::metadata::PageIndexPolicy;

const PAGE_ROWS: usize = 8192;
const RG_ROWS: usize = 1 << 20;

fn rows() -> usize {
    std::env::var("PARQ_NEEDLE_ROWS")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(10_000_000)
}

fn file(n: usize) -> Bytes {
    let mut rng = Rng::new(42);
    let ids = Column {
        len: n,
        validity: None,
        values: Values::Int64((0..n as i64).collect::<Vec<_>>().into()),
    };
    let mut offsets = Vec::with_capacity(n + 1);
    let mut data = Vec::with_capacity(n * 14);
    offsets.push(0i64);
    for i in 0..n {
        let len = 10 + (rng.below(9)) as usize;
        let s = format!("name-{i:0>13}");
        data.extend_from_slice(&s.as_bytes()[..len]);
        offsets.push(data.len() as i64);
    }
    let names = Column {
        len: n,
        validity: None,
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: data.into(),
        },
    };
    let scores = Column {
        len: n,
        validity: None,
        values: Values::Double(
            (0..n)
                .map(|_| rng.below(1_000_000) as f64 / 7.0)
                .collect::<Vec<_>>()
                .into(),
        ),
    };
    let options = WriterOptions::default()
        .with_data_page_row_limit(PAGE_ROWS)
        .with_row_group_rows(RG_ROWS)
        .with_compression(CodecKind::Snappy);
    let fields = vec![
        Field::int64("id"),
        Field::string("name"),
        Field::double("score"),
    ];
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, options).expect("writer");
    for start in (0..n).step_by(RG_ROWS) {
        let len = RG_ROWS.min(n - start);
        let batch: Vec<Column> = [&ids, &names, &scores]
            .iter()
            .map(|c| c.slice(start, len))
            .collect();
        w.write_batch(&batch).expect("write");
    }
    w.finish().expect("finish");
    Bytes::from(out)
}

/// The file rows of the page of `id` (column 0) that may hold `needle`, from the column and
/// offset indexes.
fn needle_rows(reader: &ParquetReader, needle: i64) -> Range<u64> {
    let first_rows = reader.row_group_first_rows();
    for (rg, meta) in reader.metadata().row_groups.iter().enumerate() {
        let index = reader
            .read_column_index(rg, 0)
            .unwrap()
            .expect("column index");
        let offsets = reader
            .read_offset_index(rg, 0)
            .unwrap()
            .expect("offset index");
        let int = |b: &[u8]| i64::from_le_bytes(b.try_into().expect("8 bytes"));
        for (p, (min, max)) in index.min_values.iter().zip(&index.max_values).enumerate() {
            if int(min) <= needle && needle <= int(max) {
                let locs = &offsets.page_locations;
                let start = locs[p].first_row_index as u64;
                let end = locs
                    .get(p + 1)
                    .map_or(meta.num_rows as u64, |l| l.first_row_index as u64);
                return first_rows[rg] + start..first_rows[rg] + end;
            }
        }
    }
    panic!("needle {needle} not in the file");
}

fn parq_read(bytes: &Bytes, selection: Option<RowSelection>) -> usize {
    let options = ReadOptions::default().with_selection(selection);
    let reader = ParquetReader::with_options(bytes.clone(), options).unwrap();
    reader
        .batches(&[0, 1, 2], 8192)
        .unwrap()
        .map(|b| b.unwrap().num_rows * 3)
        .sum()
}

fn parquet_read(bytes: &Bytes, selection: Option<&(Range<u64>, u64)>) -> usize {
    let options = ArrowReaderOptions::new().with_page_index_policy(PageIndexPolicy::Required);
    let mut builder = ParquetRecordBatchReaderBuilder::try_new_with_options(bytes.clone(), options)
        .unwrap()
        .with_batch_size(8192);
    if let Some((rows, total)) = selection {
        builder = builder.with_row_selection(PqSelection::from(vec![
            RowSelector::skip(rows.start as usize),
            RowSelector::select((rows.end - rows.start) as usize),
            RowSelector::skip((total - rows.end) as usize),
        ]));
    }
    builder
        .build()
        .unwrap()
        .map(|b| b.unwrap().num_rows() * 3)
        .sum()
}

fn bench(c: &mut Criterion) {
    let n = rows();
    let bytes = file(n);
    let reader = ParquetReader::new(bytes.clone()).unwrap();
    let needle = (n as i64 / 2) + 12_345;
    let rows = needle_rows(&reader, needle);
    let sel = RowSelection::from_ranges(std::iter::once(rows.clone()));
    // Both sides read the same rows.
    let want = 3 * (rows.end - rows.start) as usize;
    assert_eq!(parq_read(&bytes, Some(sel.clone())), want);
    assert_eq!(parquet_read(&bytes, Some(&(rows.clone(), n as u64))), want);
    eprintln!(
        "needle {needle}: rows {rows:?} of {n}, file {} MiB",
        bytes.len() >> 20
    );

    let mut g = c.benchmark_group("needle");
    g.sample_size(20);
    g.bench_function("parq/selected", |b| {
        b.iter(|| black_box(parq_read(&bytes, Some(sel.clone()))))
    });
    g.bench_function("parquet/selected", |b| {
        b.iter(|| black_box(parquet_read(&bytes, Some(&(rows.clone(), n as u64)))))
    });
    g.sample_size(10);
    g.bench_function("parq/full", |b| {
        b.iter(|| black_box(parq_read(&bytes, None)))
    });
    g.bench_function("parquet/full", |b| {
        b.iter(|| black_box(parquet_read(&bytes, None)))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
