//! `parq scan`: decode selected columns N times and report the timing.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::sync::atomic::Ordering;
use std::time::Instant;

use futures::StreamExt as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use parq::object_store::{ScanOptions, ScanProgress};
use parq::predicate::{Expr, FilterStats, Materialise};
use parq::read::push::PushOptions;
use parq::read::{ArrayBatch, ParquetReader, ReadOptions, Select, Source};

use crate::json;
use crate::prefix::Listing;

/// Options of one scan.
pub struct ScanArgs<'a> {
    pub columns: Option<&'a str>,
    pub repeat: usize,
    pub json: bool,
    pub batch_size: Option<usize>,
    pub filter: Option<&'a Expr>,
    /// How a filtered streamed scan reads the columns its filter did not decode.
    pub materialise: Materialise,
    /// Decoding threads (reported).
    pub threads: usize,
}

pub fn run<S: Source>(reader: &ParquetReader<S>, args: &ScanArgs) -> parq::Result<()> {
    let schema = reader.schema();
    if let Some(expr) = args.filter {
        return run_filtered(reader, args, expr);
    }
    if !schema.is_flat() {
        return run_fields(reader, args);
    }
    let leaves: Vec<usize> = match args.columns {
        Some(list) => list
            .split(',')
            .map(|p| reader.column_index(p.trim()))
            .collect::<parq::Result<_>>()?,
        None => (0..schema.leaves.len()).collect(),
    };
    let (samples, decoded_bytes, rows) = time_runs(args, |bytes, n| {
        match args.batch_size {
            None => {
                // All columns in one call, so that threads share the work of all of them.
                for col in reader.read_leaves(&leaves)? {
                    *bytes += col.decoded_bytes();
                    *n = col.len as u64;
                    drop(std::hint::black_box(col));
                }
            }
            Some(bs) => {
                for batch in reader.batches(&leaves, bs)? {
                    let batch = batch?;
                    *n += batch.num_rows as u64;
                    *bytes += batch
                        .columns
                        .iter()
                        .map(|c| c.decoded_bytes())
                        .sum::<usize>();
                    drop(std::hint::black_box(batch));
                }
            }
        }
        Ok(())
    })?;
    report(
        &samples,
        decoded_bytes,
        rows,
        leaves.len(),
        args,
        None,
        None,
    )
}

/// What a multi-file scan went through.
struct Files {
    files: u64,
    pruned: u64,
    bytes: u64,
}

/// `parq scan PREFIX`: one multi-file [`Scan`](parq::object_store::Scan) of the listed
/// files, in file order, 4 files in flight, `--where` pruning whole files and row groups
/// by their footer statistics (the rows of the row groups left are all read). A bar shows
/// files, bytes and rows while it runs, on stderr when that is a terminal.
pub fn run_many(listing: &Listing, args: &ScanArgs, read: ReadOptions) -> parq::Result<()> {
    let projection = args
        .columns
        .map(|list| list.split(',').map(|p| Select::from(p.trim())).collect());
    let mut files = Files {
        files: 0,
        pruned: 0,
        bytes: 0,
    };
    let mut columns = 0;
    let (samples, decoded_bytes, rows) = time_runs(args, |bytes, n| {
        let options = ScanOptions::default()
            .with_push(
                PushOptions::default()
                    .with_read(read.clone())
                    .with_projection(projection.clone())
                    .with_batch_size(args.batch_size.unwrap_or(8192)),
            )
            .with_predicate(args.filter.cloned());
        let (scan, runtime) = listing.scan(options);
        let progress = scan.progress();
        let bar = progress_bar(&progress);
        runtime.block_on(async {
            let mut batches = scan.batches();
            while let Some(batch) = batches.next().await {
                let batch = batch?;
                *n += batch.num_rows as u64;
                columns = batch.arrays.len();
                *bytes += batch
                    .arrays
                    .iter()
                    .map(|a| a.decoded_bytes())
                    .sum::<usize>();
                show(&bar, &progress);
            }
            Ok::<_, parq::Error>(())
        })?;
        bar.finish_and_clear();
        let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
        files = Files {
            files: load(&progress.files),
            pruned: load(&progress.files_pruned),
            bytes: load(&progress.bytes),
        };
        Ok(())
    })?;
    report(
        &samples,
        decoded_bytes,
        rows,
        columns,
        args,
        None,
        Some(&files),
    )
}

/// A bar over a scan's bytes (files finished), drawn on stderr only when stderr is a
/// terminal (a pipe or a file gets nothing).
fn progress_bar(progress: &ScanProgress) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let total = progress.bytes.load(Ordering::Relaxed);
    let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} {binary_bytes}/{binary_total_bytes} {msg}",
    ) {
        bar.set_style(style);
    }
    bar
}

fn show(bar: &ProgressBar, p: &ScanProgress) {
    if bar.is_hidden() {
        return;
    }
    let load = |c: &std::sync::atomic::AtomicU64| c.load(Ordering::Relaxed);
    bar.set_position(load(&p.bytes_done));
    bar.set_message(format!(
        "files {}/{} ({} pruned), {} rows",
        load(&p.files_done),
        load(&p.files),
        load(&p.files_pruned),
        load(&p.rows)
    ));
}

/// Scan a schema with nested fields: `--columns` takes top-level names or leaf dotted paths.
fn run_fields<S: Source>(reader: &ParquetReader<S>, args: &ScanArgs) -> parq::Result<()> {
    let names: Vec<String> = match args.columns {
        Some(list) => list.split(',').map(|p| p.trim().to_string()).collect(),
        None => reader.fields()?.into_iter().map(|f| f.name).collect(),
    };
    let columns: Vec<&str> = names.iter().map(String::as_str).collect();
    let (samples, decoded_bytes, rows) = time_runs(args, |bytes, n| {
        match args.batch_size {
            None => {
                for c in &columns {
                    let (_, array) = reader.read_field_by_path(c)?;
                    *bytes += array.decoded_bytes();
                    *n = array.len() as u64;
                    drop(std::hint::black_box(array));
                }
            }
            Some(bs) => {
                for batch in reader.array_batches(&columns, bs)? {
                    count_batch(batch?, n, bytes);
                }
            }
        }
        Ok(())
    })?;
    report(
        &samples,
        decoded_bytes,
        rows,
        columns.len(),
        args,
        None,
        None,
    )
}

/// Scan with `--where`: prune, filter exactly, materialise the matching rows of the chosen
/// columns (top-level names or leaf paths; default every top-level field), whole or (with
/// `--batch-size`) streamed.
fn run_filtered<S: Source>(
    reader: &ParquetReader<S>,
    args: &ScanArgs,
    expr: &Expr,
) -> parq::Result<()> {
    let names: Vec<String> = match args.columns {
        Some(list) => list.split(',').map(|p| p.trim().to_string()).collect(),
        None => reader.fields()?.into_iter().map(|f| f.name).collect(),
    };
    let columns: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut stats = FilterStats::default();
    let (samples, decoded_bytes, rows) = time_runs(args, |bytes, n| {
        match args.batch_size {
            None => {
                let (read, s) = reader.read_filtered(&columns, expr)?;
                for (_, array) in &read {
                    *bytes += array.decoded_bytes();
                    *n = array.len() as u64;
                }
                drop(std::hint::black_box(read));
                stats = s;
            }
            Some(bs) => {
                let mut batches = reader
                    .read_builder()
                    .with_projection(columns.iter().copied())
                    .with_filter(expr.clone())
                    .with_batch_size(bs)
                    .with_materialise(args.materialise)
                    .build()?;
                for batch in &mut batches {
                    count_batch(batch?, n, bytes);
                }
                stats = batches.stats();
            }
        }
        Ok(())
    })?;
    report(
        &samples,
        decoded_bytes,
        rows,
        columns.len(),
        args,
        Some(&stats),
        None,
    )
}

/// Count a streamed batch's rows and decoded bytes, then drop it.
fn count_batch(batch: ArrayBatch, rows: &mut u64, bytes: &mut usize) {
    *rows += batch.num_rows as u64;
    *bytes += batch
        .arrays
        .iter()
        .map(|a| a.decoded_bytes())
        .sum::<usize>();
    drop(std::hint::black_box(batch));
}

/// Run `scan` (which adds decoded bytes and rows) `--repeat` times, resetting the probes
/// before the last run; returns the seconds of each run and the last run's bytes and rows.
fn time_runs(
    args: &ScanArgs,
    mut scan: impl FnMut(&mut usize, &mut u64) -> parq::Result<()>,
) -> parq::Result<(Vec<f64>, usize, u64)> {
    let runs = args.repeat.max(1);
    let mut samples = Vec::with_capacity(runs);
    let (mut bytes, mut rows) = (0usize, 0u64);
    for i in 0..runs {
        if i + 1 == runs {
            parq::codecs::probe::reset();
        }
        let start = Instant::now();
        (bytes, rows) = (0, 0);
        scan(&mut bytes, &mut rows)?;
        samples.push(start.elapsed().as_secs_f64());
    }
    Ok((samples, bytes, rows))
}

fn report(
    samples: &[f64],
    decoded_bytes: usize,
    rows: u64,
    columns: usize,
    args: &ScanArgs,
    filter: Option<&FilterStats>,
    many: Option<&Files>,
) -> parq::Result<()> {
    let mut text = String::new();
    let mut sorted = samples.to_vec();
    sorted.sort_by(f64::total_cmp);
    let median = sorted[sorted.len() / 2];
    let (min, max) = (sorted[0], sorted[sorted.len() - 1]);
    let throughput = decoded_bytes as f64 / median / 1e9;
    let probes = parq::codecs::probe::snapshot();
    if args.json {
        let mut s = String::from("{");
        let _ = write!(
            s,
            "\"rows\":{rows},\"columns\":{},\"threads\":{},\"decoded_bytes\":{decoded_bytes},\"median_s\":{median:?},\"min_s\":{min:?},\"max_s\":{max:?},\"gb_per_s\":{throughput:?},\"samples_s\":[",
            columns,
            args.threads
        );
        for (i, t) in samples.iter().enumerate() {
            if i > 0 {
                s.push(',');
            }
            let _ = write!(s, "{t:?}");
        }
        s.push(']');
        if let Some(f) = filter {
            let _ = write!(
                s,
                ",\"row_groups\":{},\"row_groups_pruned\":{},\"pages\":{},\"pages_pruned\":{},\"rows_selected\":{},\"rows_matched\":{}",
                f.row_groups, f.row_groups_pruned, f.pages, f.pages_pruned, f.rows_selected, f.rows_matched
            );
        }
        if let Some(f) = many {
            let _ = write!(
                s,
                ",\"files\":{},\"files_pruned\":{},\"file_bytes\":{}",
                f.files, f.pruned, f.bytes
            );
        }
        if parq::codecs::probe::ENABLED {
            s.push_str(",\"probes\":{");
            for (i, (k, v)) in probes.iter().enumerate() {
                if i > 0 {
                    s.push(',');
                }
                json::string(&mut s, k);
                let _ = write!(s, ":{v}");
            }
            s.push('}');
        }
        s.push('}');
        text.push_str(&s);
        text.push('\n');
    } else {
        let _ = writeln!(text, "rows            {rows}");
        let _ = writeln!(text, "columns         {}", columns);
        let _ = writeln!(text, "decoded bytes   {decoded_bytes}");
        let _ = writeln!(
            text,
            "decode time     median {:.3} ms (min {:.3}, max {:.3}, {} runs, {} thread{})",
            median * 1e3,
            min * 1e3,
            max * 1e3,
            samples.len(),
            args.threads,
            if args.threads == 1 { "" } else { "s" }
        );
        let _ = writeln!(
            text,
            "throughput      {throughput:.3} GB/s of decoded Arrow buffers"
        );
        if let Some(f) = filter {
            let _ = writeln!(
                text,
                "row groups      {} of {} pruned",
                f.row_groups_pruned, f.row_groups
            );
            let _ = writeln!(
                text,
                "pages           {} of {} pruned",
                f.pages_pruned, f.pages
            );
            let _ = writeln!(
                text,
                "rows            {} selected by pruning, {} matched",
                f.rows_selected, f.rows_matched
            );
        }
        if let Some(f) = many {
            let _ = writeln!(
                text,
                "files           {} ({} pruned by statistics), {} bytes",
                f.files, f.pruned, f.bytes
            );
        }
        if let Some(kib) = peak_rss_kib() {
            let _ = writeln!(
                text,
                "peak memory     {:.1} MiB resident",
                kib as f64 / 1024.0
            );
        }
        if parq::codecs::probe::ENABLED {
            let _ = writeln!(text, "probes (last run):");
            for (k, v) in probes {
                let _ = writeln!(text, "  {k:<40} {v}");
            }
        }
    }
    // Written at once, and a closed pipe (`parq scan ... | head`) is an error, not a panic.
    crate::say(&text)
}

/// The process's peak resident memory in KiB (`VmHWM` of `/proc/self/status`), where the
/// system tells it (Linux): what a scan cost in memory, beside what it cost in time.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
