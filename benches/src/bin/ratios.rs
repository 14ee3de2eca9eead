//! Print criterion's latest results as markdown tables of parq-vs-peer throughput ratios.
//!
//! ```text
//! cargo run -p parq-benches --release --bin ratios [-- [SUBSTRING ...]] [--dir DIR]
//! ```
//!
//! Reads every `new/benchmark.json` + `new/estimates.json` under the criterion directory
//! (`CRITERION_HOME`, `$CARGO_TARGET_DIR/criterion` or the workspace's `target/criterion`).
//! Benchmark ids are `{group}/{impl}/{case}`; impls whose name starts with `parq` are ours,
//! every other impl (`parquet`, `memcpy`, `naive_*`) is a peer. For each group, case and
//! parq impl the table gives parq's median time and throughput and, per peer,
//! `peer median / parq median` (> 1 means parq is faster) with the spread taken from
//! criterion's 95 % confidence intervals of both medians: `[peer lo / parq hi, peer hi / parq lo]`.
//! Only groups whose name contains one of the SUBSTRINGs are shown (all if none is given).
//!
//! The write bench records output file sizes in `parq-write-sizes.jsonl` in the same
//! directory; they are printed as a second table.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

/// One benchmark's median and its confidence interval, in nanoseconds.
#[derive(Debug, Clone, Copy)]
struct Median {
    point: f64,
    lo: f64,
    hi: f64,
    /// Elements or bytes per iteration, if declared.
    throughput: Option<(f64, bool)>,
}

fn read_json(path: &Path) -> Option<Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

fn walk(dir: &Path, found: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            if p.file_name().is_some_and(|n| n == "new") {
                if p.join("estimates.json").is_file() && p.join("benchmark.json").is_file() {
                    found.push(p);
                }
            } else if p.file_name().is_none_or(|n| n != "report") {
                walk(&p, found);
            }
        }
    }
}

fn fmt_time(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.2} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.2} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.1} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

fn fmt_rate(per_iter: f64, bytes: bool, ns: f64) -> String {
    let per_s = per_iter / (ns / 1e9);
    if bytes {
        format!("{:.2} GB/s", per_s / 1e9)
    } else if per_s >= 1e9 {
        format!("{:.2} G/s", per_s / 1e9)
    } else {
        format!("{:.1} M/s", per_s / 1e6)
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mut dir = parq_benches::criterion_dir();
    let mut filters = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--dir" => dir = PathBuf::from(args.next().expect("--dir needs a path")),
            "--bench" => {}
            _ => filters.push(a),
        }
    }
    let wanted = |group: &str| filters.is_empty() || filters.iter().any(|f| group.contains(f));

    let mut found = Vec::new();
    walk(&dir, &mut found);
    // group -> case -> impl -> median
    let mut results: BTreeMap<String, BTreeMap<String, BTreeMap<String, Median>>> = BTreeMap::new();
    for new in found {
        let (Some(bench), Some(est)) = (
            read_json(&new.join("benchmark.json")),
            read_json(&new.join("estimates.json")),
        ) else {
            continue;
        };
        let group = bench["group_id"].as_str().unwrap_or("").to_string();
        if !wanted(&group) {
            continue;
        }
        let imp = bench["function_id"].as_str().unwrap_or("").to_string();
        let case = bench["value_str"].as_str().unwrap_or("").to_string();
        let m = &est["median"];
        let (Some(point), Some(lo), Some(hi)) = (
            m["point_estimate"].as_f64(),
            m["confidence_interval"]["lower_bound"].as_f64(),
            m["confidence_interval"]["upper_bound"].as_f64(),
        ) else {
            continue;
        };
        let t = &bench["throughput"];
        let throughput = t["Bytes"]
            .as_f64()
            .map(|b| (b, true))
            .or_else(|| t["BytesDecimal"].as_f64().map(|b| (b, true)))
            .or_else(|| t["Elements"].as_f64().map(|e| (e, false)));
        results
            .entry(group)
            .or_default()
            .entry(case)
            .or_default()
            .insert(
                imp,
                Median {
                    point,
                    lo,
                    hi,
                    throughput,
                },
            );
    }
    if results.is_empty() {
        eprintln!("no criterion results under {}", dir.display());
        std::process::exit(1);
    }

    for (group, cases) in &results {
        let impls: BTreeSet<&str> = cases
            .values()
            .flat_map(|m| m.keys().map(String::as_str))
            .collect();
        let ours: Vec<&str> = impls
            .iter()
            .copied()
            .filter(|i| i.starts_with("parq") && !i.starts_with("parquet"))
            .collect();
        let mut peers: Vec<&str> = impls
            .iter()
            .copied()
            .filter(|i| !ours.contains(i))
            .collect();
        // `parquet` first, then the ceilings / oracles.
        peers.sort_by_key(|p| (*p != "parquet", *p));
        println!("\n### {group}\n");
        let mut header = String::from("| case | impl | median | throughput |");
        let mut rule = String::from("|---|---|---:|---:|");
        for p in &peers {
            header.push_str(&format!(" {p} median | ×{p} [spread] |"));
            rule.push_str("---:|---:|");
        }
        println!("{header}\n{rule}");
        for (case, by_impl) in cases {
            // A case no parq impl ran (e.g. a ceiling on its own) still gets one row.
            let rows: Vec<&str> = if ours.iter().any(|o| by_impl.contains_key(*o)) {
                ours.clone()
            } else {
                vec![""]
            };
            for o in rows {
                let mine = by_impl.get(o);
                if mine.is_none() && !o.is_empty() {
                    continue;
                }
                let mut line = match mine {
                    Some(m) => format!(
                        "| {case} | {o} | {} | {} |",
                        fmt_time(m.point),
                        m.throughput
                            .map(|(n, b)| fmt_rate(n, b, m.point))
                            .unwrap_or_default()
                    ),
                    None => format!("| {case} | - | - | - |"),
                };
                for p in &peers {
                    match (mine, by_impl.get(*p)) {
                        (Some(m), Some(q)) => line.push_str(&format!(
                            " {} | {:.2} [{:.2}, {:.2}] |",
                            fmt_time(q.point),
                            q.point / m.point,
                            q.lo / m.hi,
                            q.hi / m.lo
                        )),
                        (None, Some(q)) => line.push_str(&format!(" {} | - |", fmt_time(q.point))),
                        _ => line.push_str(" - | - |"),
                    }
                }
                println!("{line}");
            }
        }
    }

    print_sizes(&parq_benches::sizes_file(), &wanted);
}

/// The write bench's output sizes: one table row per case, parq and parquet side by side.
fn print_sizes(path: &Path, wanted: &dyn Fn(&str) -> bool) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    // (group, case) -> impl -> bytes; later lines win.
    let mut sizes: BTreeMap<(String, String), BTreeMap<String, u64>> = BTreeMap::new();
    for line in text.lines() {
        let Ok(v) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        let (Some(g), Some(c), Some(i), Some(b)) = (
            v["group"].as_str(),
            v["case"].as_str(),
            v["impl"].as_str(),
            v["bytes"].as_u64(),
        ) else {
            continue;
        };
        if wanted(g) {
            sizes
                .entry((g.to_string(), c.to_string()))
                .or_default()
                .insert(i.to_string(), b);
        }
    }
    if sizes.is_empty() {
        return;
    }
    let impls: BTreeSet<String> = sizes.values().flat_map(|m| m.keys().cloned()).collect();
    let impls: Vec<String> = impls.into_iter().collect();
    println!("\n### output sizes (bytes)\n");
    let mut header = String::from("| group | case |");
    let mut rule = String::from("|---|---|");
    for i in &impls {
        header.push_str(&format!(" {i} |"));
        rule.push_str("---:|");
    }
    header.push_str(" parq / parquet |");
    rule.push_str("---:|");
    println!("{header}\n{rule}");
    for ((g, c), by_impl) in &sizes {
        let mut line = format!("| {g} | {c} |");
        for i in &impls {
            match by_impl.get(i) {
                Some(b) => line.push_str(&format!(" {b} |")),
                None => line.push_str(" - |"),
            }
        }
        let parq = by_impl
            .iter()
            .find(|(k, _)| k.starts_with("parq") && !k.starts_with("parquet"));
        let parquet = by_impl.get("parquet");
        match (parq, parquet) {
            (Some((_, a)), Some(b)) => line.push_str(&format!(" {:.3} |", *a as f64 / *b as f64)),
            _ => line.push_str(" - |"),
        }
        println!("{line}");
    }
}
