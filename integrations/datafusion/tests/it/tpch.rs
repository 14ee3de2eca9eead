//! TPC-H at scale factor 0.01: the 22 queries give the same answers read by parq and by
//! DataFusion's own Parquet reader (row order compared where the query orders).

use crate::common::{query, register_tpch, rows, run, session, tpch, Reader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tpch_queries_equal_in_both_formats() {
    // Row groups of 4096 rows, so that the two partitions split files by row groups.
    let dir = tpch(0.01, 4096).await;
    let parq = session(2);
    register_tpch(&parq, &dir, Reader::Parq).await;
    let builtin = session(2);
    register_tpch(&builtin, &dir, Reader::Builtin).await;
    let mut failed = Vec::new();
    for n in 1..=22 {
        let sql = query(n);
        let ordered = sql.to_lowercase().contains("order by");
        let want = rows(&run(&builtin, &sql).await.unwrap(), ordered);
        let got = match run(&parq, &sql).await {
            Ok(b) => rows(&b, ordered),
            Err(e) => {
                failed.push(format!("q{n}: {e}"));
                continue;
            }
        };
        // At this scale no order has more than 313 items: q18 is rightly empty.
        assert!(!want.is_empty() || n == 18, "q{n} returned no rows");
        if got != want {
            failed.push(format!("q{n}: parq {got:?}\nbuilt-in {want:?}"));
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}
