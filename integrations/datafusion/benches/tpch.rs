//! TPC-H through DataFusion, parq's format against DataFusion's own Parquet, one session per
//! format and place with `target_partitions = 2`: the files on local disk (generated once
//! under the target directory) and the same files in an in-memory object store. For each
//! query, format and place: the median wall time of `RUNS` runs after one warm-up, with the
//! spread (min–max), and the ratio built-in / parq; then the geomean of the ratios.
//!
//! The scan time is where the time goes: DataFusion's file-stream metrics
//! `time_elapsed_opening` + `time_elapsed_processing`, summed over the scans' partitions, median
//! over the runs, on local disk (parq decodes on the scan's own task, so its decoding is in
//! them), with the ratio built-in / parq and its geomean. The scan share is that time over
//! the wall time of both partitions (2 × wall): what the file format can move; the rest is the
//! plan's joins and aggregates.
//!
//! `cargo bench --bench tpch` (scale factor 1; `TPCH_SF`, `TPCH_RUNS`, `TPCH_QUERIES=1,6`
//! override; `TPCH_PUSHDOWN=1` sets `datafusion.execution.parquet.pushdown_filters` in
//! every session; `TPCH_PARQ_SET="parq.row_filter = false"` runs `SET` statements, `;` apart,
//! in parq's sessions; with `TPCH_ONLY`, `TPCH_EXPLAIN=1` prints each plan with its metrics).

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::SessionContext;
use object_store::memory::InMemory;
use object_store::path::Path as StorePath;
use object_store::{ObjectStoreExt, PutPayload};

use common::{env, query, register, session, tpch, Reader, TABLES};

/// Median, min and max, in milliseconds.
fn median_spread(mut times: Vec<Duration>) -> (f64, f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
    )
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

/// The scans' time in an executed plan (see the module doc).
fn scan_time(plan: &Arc<dyn ExecutionPlan>) -> Duration {
    let own = if plan.name() == "DataSourceExec" {
        let m = plan.metrics();
        ["time_elapsed_opening", "time_elapsed_processing"]
            .iter()
            .filter_map(|n| m.as_ref()?.sum_by_name(n))
            .map(|v| Duration::from_nanos(v.as_usize() as u64))
            .sum()
    } else {
        Duration::ZERO
    };
    own + plan.children().into_iter().map(scan_time).sum::<Duration>()
}

/// Run every statement of `sql` (TPC-H 15 creates and drops a view around its query):
/// the wall time and the scans' time.
async fn run_measured(ctx: &SessionContext, sql: &str) -> (Duration, Duration) {
    let text: String = sql
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .map(|l| format!("{l}\n"))
        .collect();
    let start = Instant::now();
    let mut scans = Duration::ZERO;
    for statement in text.split(';').filter(|s| !s.trim().is_empty()) {
        let plan = ctx
            .sql(statement)
            .await
            .unwrap()
            .create_physical_plan()
            .await
            .unwrap();
        collect(Arc::clone(&plan), ctx.task_ctx()).await.unwrap();
        scans += scan_time(&plan);
    }
    (start.elapsed(), scans)
}

/// The TPC-H tables of `dir` in an in-memory store, as `memory:///tpch/<table>.parquet`.
async fn in_memory(dir: &std::path::Path) -> Arc<InMemory> {
    let store = Arc::new(InMemory::new());
    for (table, _) in TABLES {
        let bytes = std::fs::read(dir.join(format!("{table}.parquet"))).unwrap();
        let path = StorePath::from(format!("tpch/{table}.parquet"));
        store.put(&path, PutPayload::from(bytes)).await.unwrap();
    }
    store
}

async fn sessions(dir: &std::path::Path, store: &Arc<InMemory>) -> Vec<SessionContext> {
    let mut out = Vec::new();
    for memory in [false, true] {
        for reader in [Reader::Parq, Reader::Builtin] {
            let ctx = session(2);
            if std::env::var("TPCH_PUSHDOWN").is_ok_and(|v| v == "1") {
                // DataFusion's own row filter (parq filters in its decoder either way).
                ctx.sql("SET datafusion.execution.parquet.pushdown_filters = true")
                    .await
                    .unwrap();
            }
            if reader == Reader::Parq {
                for set in std::env::var("TPCH_PARQ_SET")
                    .unwrap_or_default()
                    .split(';')
                {
                    if !set.trim().is_empty() {
                        ctx.sql(&format!("SET {set}")).await.unwrap();
                    }
                }
            }
            ctx.register_object_store(&url::Url::parse("memory://").unwrap(), store.clone());
            for (table, _) in TABLES {
                let url = if memory {
                    format!("memory:///tpch/{table}.parquet")
                } else {
                    dir.join(format!("{table}.parquet"))
                        .to_str()
                        .unwrap()
                        .to_string()
                };
                register(&ctx, table, &url, reader).await.unwrap();
            }
            out.push(ctx);
        }
    }
    out
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let sf: f64 = env("TPCH_SF", 1.0);
    let runs: usize = env("TPCH_RUNS", 5);
    let queries: Vec<usize> = std::env::var("TPCH_QUERIES")
        .map(|v| v.split(',').filter_map(|q| q.trim().parse().ok()).collect())
        .unwrap_or_else(|_| (1..=22).collect());
    // DataFusion's default row group size (1M rows), as a user's files would have.
    let dir = tpch(sf, 1024 * 1024).await;
    let store = in_memory(&dir).await;
    // parq on disk, built-in on disk, parq in memory, built-in in memory.
    let ctxs = sessions(&dir, &store).await;
    // `TPCH_ONLY=parq-disk|builtin-disk|parq-memory|builtin-memory`: time one session only
    // (for a profiler), one line per query.
    if let Ok(only) = std::env::var("TPCH_ONLY") {
        let names = ["parq-disk", "builtin-disk", "parq-memory", "builtin-memory"];
        let k = names
            .iter()
            .position(|n| *n == only)
            .unwrap_or_else(|| panic!("TPCH_ONLY is one of {names:?}"));
        for &n in &queries {
            let sql = query(n);
            // `TPCH_EXPLAIN=1`: the plan with its metrics, after the timed runs.
            let explain = std::env::var("TPCH_EXPLAIN").is_ok_and(|v| v == "1");
            let mut times = Vec::new();
            for i in 0..=runs {
                let (wall, _) = run_measured(&ctxs[k], &sql).await;
                if i > 0 {
                    times.push(wall);
                }
            }
            let (m, lo, hi) = median_spread(times);
            println!("q{n} {only}: {m:.1} ms [{lo:.1}–{hi:.1}]");
            if explain {
                let last = sql
                    .trim()
                    .trim_end_matches(';')
                    .rsplit(';')
                    .next()
                    .unwrap_or("");
                let plan = ctxs[k]
                    .sql(&format!("EXPLAIN ANALYZE {last}"))
                    .await
                    .unwrap();
                datafusion::arrow::util::pretty::print_batches(&plan.collect().await.unwrap())
                    .unwrap();
            }
        }
        return;
    }
    println!(
        "TPC-H SF {sf}, target_partitions 2, {runs} runs after a warm-up; ms median [min-max]; \
         scan share on disk"
    );
    println!(
        "| query | parq, disk | built-in, disk | × | parq, memory | built-in, memory | × | \
         scan share parq | scan share built-in | scan ms parq | scan ms built-in | scan × |"
    );
    println!("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |");
    let (mut log_disk, mut log_memory, mut log_scan) = (0.0, 0.0, 0.0);
    for &n in &queries {
        let sql = query(n);
        let mut times = vec![Vec::new(); 4];
        let mut shares = vec![Vec::new(); 2];
        let mut scan_ms = vec![Vec::new(); 2];
        for i in 0..=runs {
            // Alternate the formats, so that drift in the machine's load hits both.
            for (k, ctx) in ctxs.iter().enumerate() {
                let (wall, scans) = run_measured(ctx, &sql).await;
                if i > 0 {
                    times[k].push(wall);
                    if k < 2 {
                        shares[k].push(scans.as_secs_f64() / (2.0 * wall.as_secs_f64()));
                        scan_ms[k].push(scans.as_secs_f64() * 1e3);
                    }
                }
            }
        }
        let t: Vec<(f64, f64, f64)> = times.into_iter().map(median_spread).collect();
        let (disk, memory) = (t[1].0 / t[0].0, t[3].0 / t[2].0);
        log_disk += disk.ln();
        log_memory += memory.ln();
        let [sp, sb] = [median(shares[0].clone()), median(shares[1].clone())];
        let [mp, mb] = [median(scan_ms[0].clone()), median(scan_ms[1].clone())];
        log_scan += (mb / mp).ln();
        let cell = |m: (f64, f64, f64)| format!("{:.1} [{:.1}–{:.1}]", m.0, m.1, m.2);
        println!(
            "| q{n} | {} | {} | {disk:.2} | {} | {} | {memory:.2} | {:.0} % | {:.0} % | {mp:.0} \
             | {mb:.0} | {:.2} |",
            cell(t[0]),
            cell(t[1]),
            cell(t[2]),
            cell(t[3]),
            sp * 100.0,
            sb * 100.0,
            mb / mp
        );
    }
    let k = queries.len() as f64;
    println!(
        "geomean built-in / parq: disk {:.3}, memory {:.3}, scan time on disk {:.3}",
        (log_disk / k).exp(),
        (log_memory / k).exp(),
        (log_scan / k).exp()
    );
}
