//! One filtered read of a `row_filter` file (`PARQ_ROW_FILTER_DUMP`), as that bench's
//! `parq_filter` or `parq_scan_then_filter` does it, for profiles and quick timings:
//! `filter_once FILE X <filter|scan_then_filter|scan> RUNS` reads `k < X` (`scan`: every
//! row, unfiltered), prints each run's rows and wall time.

use std::time::Instant;

use bytes::Bytes;
use parq_benches::row_filter;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, x, mode, runs] = &args[..] else {
        eprintln!("usage: filter_once FILE X <filter|scan_then_filter|scan> RUNS");
        std::process::exit(2);
    };
    let bytes = Bytes::from(std::fs::read(path).expect("read the file"));
    let x: i32 = x.parse().expect("X");
    let runs: usize = runs.parse().expect("RUNS");
    for _ in 0..runs {
        let start = Instant::now();
        let mut rows = 0;
        let each = |n: usize, arrays| {
            rows += n;
            std::hint::black_box(arrays);
        };
        match mode.as_str() {
            "filter" => row_filter::filter(&bytes, x, each),
            "scan_then_filter" => row_filter::scan_then_filter(&bytes, x, each),
            "scan" => row_filter::scan(&bytes, each),
            other => panic!("unknown mode {other}"),
        }
        println!("{rows} rows {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    }
}
