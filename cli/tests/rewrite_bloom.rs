//! `parq rewrite` keeps bloom filters, as it keeps the page index: a column with a filter in
//! the input has one in the output, and every value of the column is found in it.

mod support;

use std::ffi::OsStr;
use std::time::Duration;

use bytes::Bytes;
use parq::bloom::hash_bytes;
use parq::column::Values;
use parq::read::ParquetReader;
use support::*;

fn open(path: &std::path::Path) -> ParquetReader {
    ParquetReader::new(Bytes::from(std::fs::read(path).unwrap())).unwrap()
}

#[test]
fn rewrite_keeps_bloom_filters() {
    let scratch = scratch_dir("rewrite-bloom");
    // parquet-mr's file (a string column with a filter; no recorded filter length) and one
    // that records it.
    for name in [
        "data_index_bloom_encoding_stats.parquet",
        "data_index_bloom_encoding_with_length.parquet",
    ] {
        let input = parquet_test_data().join(name);
        let output = scratch.join(name);
        let args = [OsStr::new("rewrite"), input.as_os_str(), output.as_os_str()];
        let run = run_parq(&args, &scratch, Duration::from_secs(60));
        assert!(run.success(), "{name}: {}", run.stderr);
        assert!(open(&input).read_bloom_filter(0, 0).unwrap().is_some());

        let reader = open(&output);
        let filter = reader
            .read_bloom_filter(0, 0)
            .unwrap()
            .unwrap_or_else(|| panic!("{name}: the rewrite dropped the bloom filter"));
        let column = reader.read_column(0).unwrap();
        let Values::Binary { offsets, data } = &column.values else {
            panic!("{name}: not a byte array column")
        };
        let mut checked = 0;
        for (i, w) in offsets.windows(2).enumerate() {
            if column.validity.as_ref().is_none_or(|v| v.is_valid(i)) {
                let value = &data[w[0] as usize..w[1] as usize];
                assert!(
                    filter.check_hash(hash_bytes(value)),
                    "{name}: {value:?} missing"
                );
                checked += 1;
            }
        }
        assert!(checked > 0, "{name}: no values checked");
    }
}
