//! One `write_nested` case written N times by one writer, for instruction counts:
//! `write_nested_once <case> <parq|parquet> <writes>` with `PARQ_BENCH_ROWS` rows, no codec
//! unless `PARQ_BENCH_CODEC` names one (`snappy`, or `zstd` at level 1 on both sides, as the
//! bench sets them). `PARQ_BENCH_OUT=path` writes the last file there.
//! Run it under `valgrind --tool=callgrind` with 1 and with 2 writes; the difference is the
//! cost of one write (the column's generation and the process set-up cancel out).

use std::hint::black_box;

use parq::write::WriterOptions;
use parq_benches::write_nested::{batch, write_parq, write_parquet, CASES};
use parq_codecs::compression::CodecKind;
use parquet::basic::{Compression, ZstdLevel};
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
    let codec = std::env::var("PARQ_BENCH_CODEC").unwrap_or_default();
    let (parq_codec, parquet_codec) = match codec.as_str() {
        "" | "none" => (CodecKind::Uncompressed, Compression::UNCOMPRESSED),
        "snappy" => (CodecKind::Snappy, Compression::SNAPPY),
        "zstd" => (
            CodecKind::Zstd,
            Compression::ZSTD(ZstdLevel::try_new(1).expect("level")),
        ),
        _ => {
            eprintln!("unknown codec {codec}");
            std::process::exit(2);
        }
    };
    let mut opts = WriterOptions::default().with_compression(parq_codec);
    opts.compression_level = (parq_codec == CodecKind::Zstd).then_some(1);
    let props = WriterProperties::builder()
        .set_compression(parquet_codec)
        .set_max_row_group_row_count(Some(rows.max(1)))
        .build();
    let mut file = Vec::new();
    for _ in 0..writes {
        file = match imp.as_str() {
            "parq" => black_box(write_parq(&input, &opts)),
            "parquet" => black_box(write_parquet(&input, &props)),
            _ => {
                eprintln!("unknown writer {imp}");
                std::process::exit(2);
            }
        };
    }
    eprintln!("{case} {imp}: {} bytes", file.len());
    // `PARQ_BENCH_OUT=path` keeps the last file, to compare the writers' pages.
    if let Some(path) = std::env::var_os("PARQ_BENCH_OUT") {
        std::fs::write(path, &file).expect("write PARQ_BENCH_OUT");
    }
}
