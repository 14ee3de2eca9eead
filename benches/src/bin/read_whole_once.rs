//! The `read_whole` bench's `i64_plain_none` column read whole N times, for instruction
//! counts and page faults: `read_whole_once <parq|parquet> <reads>` with `PARQ_BENCH_ROWS`
//! rows (2,000,000 by default) of unique i64, required, PLAIN, uncompressed, one row group,
//! written by `ArrowWriter`. parq reads it with `read_column`; parquet collects batches of
//! 8192. Each read's output is dropped before the next, as in the bench.
//! Run it under `valgrind --tool=callgrind` (or `perf stat -e page-faults`) with 1 and with 2
//! reads; the difference is the cost of one read. `PARQ_BENCH_TIMES=1` prints each read's
//! wall time (the first read writes into fresh memory, the later ones may not).

use std::hint::black_box;
use std::sync::Arc;

use arrow_array::{Int64Array, RecordBatch};
use arrow_schema::{Field, Schema};
use bytes::Bytes;
use parq::read::{ParquetReader, ReadOptions};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, imp, reads] = &args[..] else {
        eprintln!("usage: read_whole_once <parq|parquet> <reads>");
        std::process::exit(2);
    };
    let reads: usize = reads.parse().expect("reads");
    let rows = std::env::var("PARQ_BENCH_ROWS")
        .ok()
        .and_then(|s| s.replace('_', "").parse().ok())
        .unwrap_or(2_000_000usize);
    let mut rng = parq_benches::Rng::new(11);
    let array = Arc::new(Int64Array::from_iter_values(
        (0..rows).map(|_| rng.next_u64() as i64),
    ));
    let schema = Arc::new(Schema::new(vec![Field::new(
        "c",
        arrow_schema::DataType::Int64,
        false,
    )]));
    let props = WriterProperties::builder()
        .set_dictionary_enabled(false)
        .set_max_row_group_row_count(Some(rows.max(1)))
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, schema.clone(), Some(props)).expect("writer");
    w.write(&RecordBatch::try_new(schema, vec![array]).expect("batch"))
        .expect("write");
    w.close().expect("close");
    let file = Bytes::from(out);
    let options = ReadOptions::default().with_threads(1);
    let reader = ParquetReader::with_options(file.clone(), options).expect("open");
    let mut times = Vec::new();
    for _ in 0..reads {
        let start = std::time::Instant::now();
        match imp.as_str() {
            "parq" => {
                black_box(reader.read_column(0).expect("read"));
            }
            "parquet" => {
                let batches = ParquetRecordBatchReaderBuilder::try_new(file.clone())
                    .expect("open")
                    .with_batch_size(8192)
                    .build()
                    .expect("build")
                    .collect::<Result<Vec<_>, _>>()
                    .expect("read");
                black_box(batches);
            }
            other => {
                eprintln!("unknown reader {other}");
                std::process::exit(2);
            }
        }
        times.push(start.elapsed().as_secs_f64() * 1e3);
    }
    if std::env::var_os("PARQ_BENCH_TIMES").is_some() {
        let times: Vec<String> = times.iter().map(|t| format!("{t:.3}")).collect();
        println!("{imp} read ms: {}", times.join(" "));
    }
}
