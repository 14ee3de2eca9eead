//! Arrow record batches of a whole Parquet file from arbitrary bytes (seeded with
//! parquet-testing): `record_batches` over every field on one thread and on two (the
//! parallel feed), where the decoders check the strings' UTF-8 and the conversion trusts
//! them, and `Dictionary` columns are read as keys. Errors are fine; a panic, or a batch that
//! Arrow's full validation refuses (invalid UTF-8 in a `StringArray`, an offset past its
//! values, a key past its dictionary), is not. When the one-thread and two-thread reads both
//! succeed they agree batch for batch.
#![no_main]

use arrow_array::RecordBatch;
use libfuzzer_sys::fuzz_target;
use parq::read::{ParquetReader, ReadOptions};

/// Every batch of `record_batches` on `threads` threads, each fully validated; `None` at
/// the first error.
fn read(data: &bytes::Bytes, threads: usize, batch_size: usize) -> Option<Vec<RecordBatch>> {
    let options = ReadOptions::default()
        .with_threads(threads)
        .with_max_memory(256 << 20);
    let reader = ParquetReader::with_options(data.clone(), options).ok()?;
    let batches = reader
        .record_batches(parq::read::EVERY_FIELD, batch_size)
        .ok()?;
    let mut out = Vec::new();
    for b in batches {
        let b = b.ok()?;
        for c in b.columns() {
            c.to_data()
                .validate_full()
                .expect("record_batches gave an invalid Arrow array");
        }
        out.push(b);
    }
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    let data = bytes::Bytes::copy_from_slice(data);
    let batch_size = 1 + data.len() % 700;
    let one = read(&data, 1, batch_size);
    let two = read(&data, 2, batch_size);
    if let (Some(one), Some(two)) = (one, two) {
        // parq's batches end at row groups on any thread count: the same cuts.
        assert_eq!(one.len(), two.len(), "batch count on one and two threads");
        for (a, b) in one.iter().zip(&two) {
            assert_eq!(a, b, "one and two threads disagree");
        }
    }
});
