//! One filtered read of a `row_filter` file (`PARQ_ROW_FILTER_DUMP`), as that bench's
//! `parq_filter` or `parq_scan_then_filter` does it, for profiles and quick timings:
//! `filter_once FILE X <filter|scan_then_filter> RUNS` reads `k < X`, prints each run's
//! rows and wall time.

use std::time::Instant;

use arrow_buffer::BooleanBuffer;
use bytes::Bytes;
use parq::array::Array;
use parq::column::{Column, Values};
use parq::predicate::col;
use parq::predicate::eval::take_array;
use parq::read::{ParquetReader, ReadOptions};

const COLUMNS: [&str; 6] = ["k", "i", "d", "s1", "s2", "t"];
const BATCH: usize = 8192;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, x, mode, runs] = &args[..] else {
        eprintln!("usage: filter_once FILE X <filter|scan_then_filter> RUNS");
        std::process::exit(2);
    };
    let bytes = Bytes::from(std::fs::read(path).expect("read the file"));
    let x: i32 = x.parse().expect("X");
    let runs: usize = runs.parse().expect("RUNS");
    for _ in 0..runs {
        let start = Instant::now();
        let reader =
            ParquetReader::with_options(bytes.clone(), ReadOptions::default().with_threads(1))
                .expect("open");
        let mut rows = 0;
        match mode.as_str() {
            "filter" => {
                let batches = reader
                    .read_builder()
                    .with_projection(COLUMNS)
                    .with_filter(col("k").lt(x))
                    .with_batch_size(BATCH)
                    .build()
                    .expect("build");
                for b in batches {
                    rows += b.expect("batch").num_rows;
                }
            }
            "scan_then_filter" => {
                for b in reader.array_batches(&COLUMNS, BATCH).expect("read") {
                    let b = b.expect("batch");
                    let Array::Primitive(Column {
                        values: Values::Int32(k),
                        validity,
                        ..
                    }) = &b.arrays[0]
                    else {
                        panic!("k is not int32");
                    };
                    let mask = BooleanBuffer::collect_bool(b.num_rows, |r| k[r] < x);
                    let mask = match validity {
                        Some(v) => &mask & v.inner(),
                        None => mask,
                    };
                    let kept: Vec<usize> = mask.set_indices().collect();
                    let arrays: Vec<Array> =
                        b.arrays.iter().map(|a| take_array(a, &kept)).collect();
                    std::hint::black_box(arrays);
                    rows += kept.len();
                }
            }
            other => panic!("unknown mode {other}"),
        }
        println!("{rows} rows {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    }
}
