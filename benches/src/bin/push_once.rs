//! One streamed read of a file through the push decoder, for instruction counts and quick
//! timings of the filter as an engine uses it:
//! `push_once FILE COLUMNS <none|exact|inexact> FILTER RUNS`.
//! `COLUMNS` is comma-separated; `FILTER` is parq's expression syntax (as `parq scan
//! --where`), applied exactly (`exact`), as an engine's pushed-down filter that need not be
//! exact (`inexact`: the caller filters after), or not at all (`none`); `parquet` reads the
//! same columns unfiltered with the parquet crate's synchronous reader (batches of 8192),
//! for a reference; `PARQ_PUSH_ONCE_STORE=1` reads through parq's object-store reader over
//! an in-memory store instead of pushing the bytes by hand. Each run prints its rows and
//! wall time. Run it under `valgrind --tool=callgrind` with one run to compare
//! modes instruction for instruction.

use std::time::Instant;

use bytes::Bytes;
use parq::predicate::Expr;
use parq::read::push::{DecodeResult, FooterDecoder, FooterStep, PushDecoder, PushOptions};
use parq::read::Select;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, path, columns, mode, filter, runs] = &args[..] else {
        eprintln!("usage: push_once FILE COLUMNS <none|exact|inexact> FILTER RUNS");
        std::process::exit(2);
    };
    if !["none", "exact", "inexact", "parquet"].contains(&mode.as_str()) {
        eprintln!("unknown mode {mode}");
        std::process::exit(2);
    }
    let file = Bytes::from(std::fs::read(path).expect("read the file"));
    let names: Vec<&str> = columns.split(',').collect();
    let columns: Vec<Select> = names.iter().map(|&n| Select::from(n)).collect();
    let filter = Expr::parse(filter).expect("a filter");
    let runs: usize = runs.parse().expect("runs");
    for _ in 0..runs {
        let start = Instant::now();
        if mode == "parquet" {
            let rows = parquet_rows(&file, &names);
            let ms = start.elapsed().as_secs_f64() * 1e3;
            println!("{mode}: {rows} rows, {ms:.1} ms");
            continue;
        }
        let mut footer = FooterDecoder::new(file.len() as u64, Default::default());
        let footer = loop {
            match footer.try_next().expect("footer") {
                FooterStep::NeedsData(ranges) => {
                    for r in ranges {
                        footer.push(r.start, file.slice(r.start as usize..r.end as usize));
                    }
                }
                FooterStep::Done(f) => break f,
            }
        };
        let mut options = PushOptions::default().with_projection(Some(columns.clone()));
        if mode != "none" {
            options = options
                .with_filter(Some(filter.clone()))
                .with_filter_exact(mode == "exact");
        }
        if std::env::var_os("PARQ_PUSH_ONCE_STORE").is_some() {
            let rows = store_rows(&file, options);
            let ms = start.elapsed().as_secs_f64() * 1e3;
            println!("{mode} (object store): {rows} rows, {ms:.1} ms");
            continue;
        }
        let mut decoder = PushDecoder::try_new(footer, options).expect("decoder");
        let mut rows = 0;
        loop {
            match decoder.try_next().expect("decode") {
                DecodeResult::NeedsData(ranges) => {
                    for r in ranges {
                        decoder.push(r.start, file.slice(r.start as usize..r.end as usize));
                    }
                }
                DecodeResult::Batch(b) => rows += b.num_rows,
                DecodeResult::Finished => break,
            }
        }
        let ms = start.elapsed().as_secs_f64() * 1e3;
        println!("{mode}: {rows} rows, {ms:.1} ms");
    }
}

/// The rows of the root fields `columns` of `file`, read in batches of 8192 by the parquet
/// crate.
fn parquet_rows(file: &Bytes, names: &[&str]) -> usize {
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    use parquet::arrow::ProjectionMask;
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).expect("footer");
    let roots: Vec<usize> = builder
        .schema()
        .fields()
        .iter()
        .enumerate()
        .filter(|(_, f)| names.contains(&f.name().as_str()))
        .map(|(i, _)| i)
        .collect();
    let mask = ProjectionMask::roots(builder.parquet_schema(), roots);
    let reader = builder
        .with_projection(mask)
        .with_batch_size(8192)
        .build()
        .expect("reader");
    reader.map(|b| b.expect("batch").num_rows()).sum()
}

/// The rows `options` read of `file` through parq's object-store reader over an in-memory
/// store, on a current-thread runtime.
fn store_rows(file: &Bytes, options: PushOptions) -> usize {
    use futures::StreamExt;
    use object_store::memory::InMemory;
    use object_store::path::Path;
    use object_store::{ObjectStore, ObjectStoreExt, PutPayload};
    use std::sync::Arc;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let store = Arc::new(InMemory::new());
        let path = Path::from("f.parquet");
        store
            .put(&path, PutPayload::from(file.clone()))
            .await
            .expect("put");
        let store: Arc<dyn ObjectStore> = store;
        let mut reader = parq::object_store::ParqObjectReader::open(store, &path)
            .await
            .expect("open");
        let mut stream = reader.batches(options).await.expect("stream");
        let mut rows = 0;
        while let Some(b) = stream.next().await {
            rows += b.expect("batch").num_rows;
        }
        rows
    })
}
