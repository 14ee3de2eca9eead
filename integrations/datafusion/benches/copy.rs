//! `COPY` of TPC-H `lineitem` to Parquet through parq's sink against DataFusion's own, in the
//! same run: one session per writer with `target_partitions = 2`, the table read by
//! DataFusion's own reader in both (so only the writer differs), DataFusion's default
//! options on both sides (zstd level 3, row groups of 1 Mi rows, statistics and page index).
//! For each writer: the median wall time of `RUNS` runs after one warm-up, with the spread
//! (min–max), the bytes written, and the ratio built-in / parq.
//!
//! `cargo bench --bench copy` (scale factor 1; `TPCH_SF`, `TPCH_RUNS` override). With
//! `COPY_OUT=<dir>`, parq's files are left there (for reading back with other readers:
//! `benches/copy_check.py`).

#[path = "../tests/it/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::{env, register, run, session, tpch, Reader};

fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            if p.is_dir() {
                dir_bytes(&p)
            } else {
                p.metadata().unwrap().len()
            }
        })
        .sum()
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let sf: f64 = env("TPCH_SF", 1.0);
    let runs: usize = env("TPCH_RUNS", 5);
    let data = tpch(sf, 1 << 20).await;
    let lineitem = data.join("lineitem.parquet");
    let kept = std::env::var_os("COPY_OUT").map(std::path::PathBuf::from);
    let out = kept.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("parq-copy-bench-{}", std::process::id()))
    });
    println!("COPY lineitem (SF {sf}) TO Parquet, target_partitions 2, {runs} runs");
    let mut medians = Vec::new();
    for (name, stored_as) in [("built-in", "PARQUET"), ("parq", "PARQ")] {
        let ctx = session(2);
        register(
            &ctx,
            "lineitem",
            lineitem.to_str().unwrap(),
            Reader::Builtin,
        )
        .await
        .unwrap();
        let mut times = Vec::new();
        let mut bytes = 0;
        for r in 0..=runs {
            let _ = std::fs::remove_dir_all(&out);
            std::fs::create_dir_all(&out).unwrap();
            let sql = format!(
                "COPY (SELECT * FROM lineitem) TO '{}/' STORED AS {stored_as}",
                out.display()
            );
            let t = Instant::now();
            run(&ctx, &sql).await.unwrap();
            if r > 0 {
                times.push(t.elapsed());
            }
            bytes = dir_bytes(&out);
        }
        times.sort();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let median = ms(times[times.len() / 2]);
        println!(
            "{name:>8}: {median:.0} ms [{:.0}, {:.0}], {bytes} bytes",
            ms(times[0]),
            ms(times[times.len() - 1])
        );
        medians.push(median);
    }
    if kept.is_none() {
        let _ = std::fs::remove_dir_all(&out);
    }
    println!("built-in / parq: {:.2}x", medians[0] / medians[1]);
}
