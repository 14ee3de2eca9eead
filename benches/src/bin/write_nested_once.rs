//! One `write_nested` case written N times by one writer, for instruction counts:
//! `write_nested_once <case> <parq|parquet> <writes>` with `PARQ_BENCH_ROWS` rows, no codec.
//! Run it under `valgrind --tool=callgrind` with 1 and with 2 writes; the difference is the
//! cost of one write (the column's generation and the process set-up cancel out).

use std::hint::black_box;

use parq::write::WriterOptions;
use parq_benches::write_nested::{batch, write_parq, write_parquet, CASES};
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, case, imp, writes] = &args[..] else {
        eprintln!("usage: write_nested_once <case> <parq|parquet> <writes>");
        std::process::exit(2);
    };
    let Some((_, make)) = CASES.iter().find(|(name, _)| name == case) else {
        eprintln!("unknown case {case}");
        std::process::exit(2);
    };
    let writes: usize = writes.parse().expect("writes");
    let rows = parq_benches::rows();
    let input = batch(make(rows));
    let opts = WriterOptions::default();
    let props = WriterProperties::builder()
        .set_compression(Compression::UNCOMPRESSED)
        .set_max_row_group_row_count(Some(rows.max(1)))
        .build();
    let mut bytes = 0;
    for _ in 0..writes {
        bytes = match imp.as_str() {
            "parq" => black_box(write_parq(&input, &opts)).len(),
            "parquet" => black_box(write_parquet(&input, &props)).len(),
            _ => {
                eprintln!("unknown writer {imp}");
                std::process::exit(2);
            }
        };
    }
    eprintln!("{case} {imp}: {bytes} bytes");
}
