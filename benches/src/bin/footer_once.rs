//! One footer of the `footer` bench decoded N times, for instruction counts:
//! `footer_once <wide|wide5k> <parq|parquet> <decodes>`.
//! Run it under `valgrind --tool=callgrind` with 1 and with 2 decodes; the difference is the
//! cost of one decode (writing the file and the process set-up cancel out).

use std::hint::black_box;

use parq::metadata;
use parq_benches::wide::{wide_file, CASES};
use parquet::file::metadata::ParquetMetaDataReader;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, case, imp, decodes] = &args[..] else {
        eprintln!("usage: footer_once <wide|wide5k> <parq|parquet> <decodes>");
        std::process::exit(2);
    };
    let Some(&(_, columns, kinds, row_groups)) = CASES.iter().find(|c| c.0 == case) else {
        eprintln!("unknown case {case}");
        std::process::exit(2);
    };
    let decodes: usize = decodes.parse().expect("decodes");
    let file = wide_file(columns, kinds, row_groups);
    let meta = metadata::footer_metadata(&file).expect("footer").to_vec();
    for _ in 0..decodes {
        match imp.as_str() {
            "parq" => {
                black_box(metadata::decode_file_metadata(black_box(&meta)).expect("decode"));
            }
            "parquet" => {
                black_box(
                    ParquetMetaDataReader::decode_metadata(black_box(&meta)).expect("decode"),
                );
            }
            other => {
                eprintln!("unknown reader {other}");
                std::process::exit(2);
            }
        }
    }
    eprintln!(
        "{case}: {} bytes of footer, {decodes} decodes by {imp}",
        meta.len()
    );
}
