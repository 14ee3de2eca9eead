//! Footer and page index Thrift decoding (and footer encoding), parq side by side with the
//! `parquet` crate, one thread, bytes already in memory (no I/O).
//!
//! Cases:
//! * `wide`: the footer of a file written by parq with 1,000 columns (half optional int64,
//!   half optional strings) in 10 row groups of 100 rows, chunk statistics, size statistics,
//!   encoding stats and page index offsets on (~1 MiB of Thrift);
//! * `wide5k`: the shape of a wide table, 5,000 optional columns (int64, double and strings
//!   in turn) in 4 row groups of 100 rows, with the same statistics and page index offsets
//!   (~2 MiB of Thrift);
//! * `tiny_pages`, `index_bloom`: the footers of parquet-testing's
//!   `alltypes_tiny_pages.parquet` and `data_index_bloom_encoding_stats.parquet`;
//! * `page_index/tiny_pages`: every ColumnIndex and OffsetIndex of `alltypes_tiny_pages`
//!   (parq only: the `parquet` crate decodes them through its reader, not from bytes).
//!
//! ```text
//! taskset -c 1 cargo bench -p parq-benches --bench footer -- --warm-up-time 1 --measurement-time 3
//! ```

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parq::metadata::{self, FileMetaData};
use parq_benches::wide::wide_file;
use parquet::file::metadata::ParquetMetaDataReader;

fn testing_file(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/parquet-testing/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn bench_footers(c: &mut Criterion) {
    let mut g = c.benchmark_group("footer_decode");
    for (case, file) in [
        ("wide", wide_file(1000, 2, 10)),
        ("wide5k", wide_file(5000, 3, 4)),
        ("tiny_pages", testing_file("alltypes_tiny_pages.parquet")),
        (
            "index_bloom",
            testing_file("data_index_bloom_encoding_stats.parquet"),
        ),
    ] {
        let meta = metadata::footer_metadata(&file).expect("footer").to_vec();
        let ours = metadata::decode_file_metadata(&meta).expect("parq decodes");
        let theirs = ParquetMetaDataReader::decode_metadata(&meta).expect("parquet decodes");
        assert_eq!(ours.row_groups.len(), theirs.num_row_groups(), "{case}");
        g.throughput(Throughput::Bytes(meta.len() as u64));
        g.bench_function(format!("parq/{case}"), |b| {
            b.iter(|| metadata::decode_file_metadata(black_box(&meta)).expect("decode"))
        });
        g.bench_function(format!("parquet/{case}"), |b| {
            b.iter(|| ParquetMetaDataReader::decode_metadata(black_box(&meta)).expect("decode"))
        });
    }
    g.finish();

    let file = wide_file(1000, 2, 10);
    let meta = metadata::decode_footer(&file).expect("footer");
    let mut g = c.benchmark_group("footer_encode");
    let mut out = Vec::new();
    metadata::encode_file_metadata(&meta, &mut out);
    g.throughput(Throughput::Bytes(out.len() as u64));
    g.bench_function("parq/wide", |b| {
        b.iter(|| {
            out.clear();
            metadata::encode_file_metadata(black_box(&meta), &mut out);
            out.len()
        })
    });
    g.finish();
}

/// The column index and offset index bytes of the column chunks of `meta` that have them.
fn page_indexes(file: &[u8], meta: &FileMetaData) -> (Vec<Vec<u8>>, Vec<Vec<u8>>) {
    let slice = |offset: Option<i64>, len: Option<i32>| {
        let (o, n) = (offset? as usize, len? as usize);
        Some(file[o..o + n].to_vec())
    };
    let chunks = meta.row_groups.iter().flat_map(|g| &g.columns);
    let column = chunks
        .clone()
        .filter_map(|c| slice(c.column_index_offset, c.column_index_length))
        .collect();
    let offset = chunks
        .filter_map(|c| slice(c.offset_index_offset, c.offset_index_length))
        .collect();
    (column, offset)
}

fn bench_page_index(c: &mut Criterion) {
    let file = testing_file("alltypes_tiny_pages.parquet");
    let meta = metadata::decode_footer(&file).expect("footer");
    let (column, offset) = page_indexes(&file, &meta);
    assert!(!column.is_empty() && !offset.is_empty());
    let mut g = c.benchmark_group("page_index_decode");
    g.throughput(Throughput::Bytes(
        column.iter().map(Vec::len).sum::<usize>() as u64,
    ));
    g.bench_function("parq/column_index/tiny_pages", |b| {
        b.iter(|| {
            for buf in &column {
                black_box(metadata::decode_column_index(black_box(buf)).expect("decode"));
            }
        })
    });
    g.throughput(Throughput::Bytes(
        offset.iter().map(Vec::len).sum::<usize>() as u64,
    ));
    g.bench_function("parq/offset_index/tiny_pages", |b| {
        b.iter(|| {
            for buf in &offset {
                black_box(metadata::decode_offset_index(black_box(buf)).expect("decode"));
            }
        })
    });
    g.finish();
}

criterion_group!(benches, bench_footers, bench_page_index);
criterion_main!(benches);
