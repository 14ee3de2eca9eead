//! TPC-H through DataFusion, parq's format against DataFusion's own Parquet, one session per
//! format with `target_partitions = 2`, files on local disk (generated once under the target
//! directory). For each query: the median wall time of `RUNS` runs after one warm-up, with
//! the spread (min–max), and the ratio; then the geomean of the ratios.
//!
//! `cargo bench --bench tpch` (scale factor 1; `TPCH_SF`, `TPCH_RUNS`, `TPCH_QUERIES=1,6`
//! override).

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::{query, register_tpch, run, session, tpch, Reader};

fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn median_spread(mut times: Vec<Duration>) -> (f64, f64, f64) {
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    (
        ms(times[times.len() / 2]),
        ms(times[0]),
        ms(times[times.len() - 1]),
    )
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
    let parq = session(2);
    register_tpch(&parq, &dir, Reader::Parq).await;
    let builtin = session(2);
    register_tpch(&builtin, &dir, Reader::Builtin).await;
    println!(
        "TPC-H SF {sf}, target_partitions 2, {runs} runs after a warm-up; ms median [min-max]"
    );
    println!("| query | parq | built-in | built-in / parq |");
    println!("| --- | --- | --- | --- |");
    let mut log_sum = 0.0;
    for &n in &queries {
        let sql = query(n);
        let mut times = [Vec::new(), Vec::new()];
        for i in 0..=runs {
            // Alternate the formats, so that drift in the machine's load hits both.
            for (k, ctx) in [&parq, &builtin].into_iter().enumerate() {
                let start = Instant::now();
                run(ctx, &sql).await.unwrap();
                if i > 0 {
                    times[k].push(start.elapsed());
                }
            }
        }
        let [p, b] = times.map(median_spread);
        let ratio = b.0 / p.0;
        log_sum += ratio.ln();
        println!(
            "| q{n} | {:.1} [{:.1}-{:.1}] | {:.1} [{:.1}-{:.1}] | {ratio:.2} |",
            p.0, p.1, p.2, b.0, b.1, b.2
        );
    }
    println!(
        "geomean built-in / parq: {:.3}",
        (log_sum / queries.len() as f64).exp()
    );
}
