//! The scan itself: an in-memory object store reads as local files do, a selective date
//! filter prunes row groups (shown in the scan's metrics), and prefetching covers the reads.

use std::sync::Arc;

use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::SessionContext;
use object_store::memory::InMemory;
use object_store::path::Path as StorePath;
use object_store::{ObjectStoreExt, PutPayload};

use crate::common::{
    physical_plan, plan_text, query, register, register_tpch, rows, run, session, tpch, Reader,
};

/// Sum of the scans' metric `name` in an executed plan.
fn scan_metric(plan: &Arc<dyn ExecutionPlan>, name: &str) -> usize {
    let own = if plan.name() == "DataSourceExec" {
        plan.metrics()
            .and_then(|m| m.sum_by_name(name))
            .map_or(0, |v| v.as_usize())
    } else {
        0
    };
    own + plan
        .children()
        .into_iter()
        .map(|c| scan_metric(c, name))
        .sum::<usize>()
}

async fn execute(ctx: &SessionContext, sql: &str) -> (Vec<String>, Arc<dyn ExecutionPlan>) {
    let plan = physical_plan(ctx, sql).await;
    let batches = collect(Arc::clone(&plan), ctx.task_ctx()).await.unwrap();
    (rows(&batches, false), plan)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn in_memory_store_equals_local_files() {
    let dir = tpch(0.01, 4096).await;
    let store = Arc::new(InMemory::new());
    for table in ["lineitem", "orders", "customer", "nation"] {
        let bytes = std::fs::read(dir.join(format!("{table}.parquet"))).unwrap();
        store
            .put(
                &StorePath::from(format!("tpch/{table}.parquet")),
                PutPayload::from(bytes),
            )
            .await
            .unwrap();
    }
    let memory = session(2);
    memory.register_object_store(&url::Url::parse("memory://").unwrap(), store);
    let local = session(2);
    for table in ["lineitem", "orders", "customer", "nation"] {
        let url = format!("memory:///tpch/{table}.parquet");
        register(&memory, table, &url, Reader::Parq).await.unwrap();
        let path = dir.join(format!("{table}.parquet"));
        register(&local, table, path.to_str().unwrap(), Reader::Parq)
            .await
            .unwrap();
    }
    for n in [1, 3, 6, 10] {
        let sql = query(n);
        let want = rows(&run(&local, &sql).await.unwrap(), true);
        assert_eq!(rows(&run(&memory, &sql).await.unwrap(), true), want, "q{n}");
    }
    // Footer, leading magic and column chunks are prefetched: nothing is fetched on demand.
    let (_, plan) = execute(
        &memory,
        "SELECT sum(l_quantity), max(l_comment) FROM lineitem",
    )
    .await;
    assert_eq!(scan_metric(&plan, "on_demand_fetches"), 0);
    assert!(scan_metric(&plan, "requests") > 0);
    // The footers fetched to plan are reused by the scans: a scan that needs no column
    // chunk makes no request at all.
    let (counted, plan) =
        execute(&memory, "SELECT count(*) FROM lineitem WHERE random() < 2").await;
    assert_eq!(counted.len(), 1);
    assert!(counted[0].contains(" 60175 "), "{counted:?}");
    assert_eq!(scan_metric(&plan, "requests"), 0);
}

/// lineitem sorted by ship date, in row groups of 2048 rows.
async fn lineitem_by_shipdate() -> std::path::PathBuf {
    let dir = tpch(0.01, 4096).await;
    let path = dir.join("lineitem_by_shipdate.parquet");
    if !path.exists() {
        let ctx = session(1);
        let src = dir.join("lineitem.parquet");
        register(&ctx, "lineitem", src.to_str().unwrap(), Reader::Builtin)
            .await
            .unwrap();
        let tmp = dir.join("lineitem_by_shipdate.tmp.parquet");
        let sql = format!(
            "COPY (SELECT * FROM lineitem ORDER BY l_shipdate, l_orderkey, l_linenumber) TO '{}' \
             STORED AS PARQUET OPTIONS ('format.max_row_group_size' '2048')",
            tmp.display()
        );
        ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        std::fs::rename(&tmp, &path).unwrap();
    }
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selective_date_filter_prunes_row_groups() {
    let path = lineitem_by_shipdate().await;
    let sql = "SELECT count(*), sum(l_extendedprice * (1 - l_discount)) FROM lineitem \
               WHERE l_shipdate >= date '1995-09-01' AND l_shipdate < date '1995-09-01' + interval '1' month";
    let parq = session(2);
    register(&parq, "lineitem", path.to_str().unwrap(), Reader::Parq)
        .await
        .unwrap();
    let builtin = session(2);
    register(
        &builtin,
        "lineitem",
        path.to_str().unwrap(),
        Reader::Builtin,
    )
    .await
    .unwrap();
    let (got, plan) = execute(&parq, sql).await;
    let (want, _) = execute(&builtin, sql).await;
    assert_eq!(got, want);
    let row_groups = scan_metric(&plan, "row_groups");
    let pruned = scan_metric(&plan, "row_groups_pruned");
    // The two partitions split the file's row groups: each is counted once.
    let bytes = bytes::Bytes::from(std::fs::read(&path).unwrap());
    let in_file = parq::read::ParquetReader::new(bytes)
        .unwrap()
        .metadata()
        .row_groups
        .len();
    assert_eq!(row_groups, in_file);
    assert!(
        plan_text(&plan).contains("2 groups"),
        "{}",
        plan_text(&plan)
    );
    // One month of about 80: all but the one or two row groups that hold it are pruned.
    assert!(row_groups > 20, "{row_groups} row groups");
    assert!(pruned + 3 >= row_groups, "{pruned} of {row_groups} pruned");
    let size = std::fs::metadata(&path).unwrap().len() as usize;
    let fetched = scan_metric(&plan, "bytes_fetched");
    assert!(fetched * 10 < size, "fetched {fetched} of {size} bytes");
    // The same query without a filter the scan can use prunes nothing.
    let (_, plan) = execute(
        &parq,
        "SELECT count(*) FROM lineitem WHERE l_comment LIKE '%x%'",
    )
    .await;
    assert_eq!(scan_metric(&plan, "row_groups_pruned"), 0);
}

/// Where statistics cannot prune (ship dates are spread over every row group), the scan
/// filters the decoded rows with parq's evaluation of the vectorised part of the predicate
/// (`rows_filtered`), and the results equal DataFusion's own reader's. A filter most rows
/// pass is left to DataFusion, as is one with no vectorised test (an `IN` list of strings).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn selective_filters_drop_rows_in_the_scan() {
    let dir = tpch(0.01, 4096).await;
    let path = dir.join("lineitem.parquet");
    let parq = session(2);
    register(&parq, "lineitem", path.to_str().unwrap(), Reader::Parq)
        .await
        .unwrap();
    let builtin = session(2);
    register(
        &builtin,
        "lineitem",
        path.to_str().unwrap(),
        Reader::Builtin,
    )
    .await
    .unwrap();
    let rows_in_file: usize = 60175;
    let cases = [
        // Q6's filter: about 2 % of the rows match.
        (
            "SELECT count(*), sum(l_extendedprice * l_discount) FROM lineitem \
             WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01' \
             AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24",
            true,
        ),
        // An `IN` list of strings beside a conjunct on numbers...
        (
            "SELECT count(*) FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP') \
             AND l_receiptdate >= date '1994-01-01' AND l_receiptdate < date '1995-01-01'",
            true,
        ),
        // ...and alone (2 of 7 modes pass).
        (
            "SELECT count(*) FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP')",
            true,
        ),
        // Most rows pass: the scan leaves the filtering to DataFusion.
        (
            "SELECT count(*) FROM lineitem WHERE l_shipdate <= date '1998-09-02'",
            false,
        ),
    ];
    for (sql, filters) in cases {
        let (got, plan) = execute(&parq, sql).await;
        let (want, _) = execute(&builtin, sql).await;
        assert_eq!(got, want, "{sql}");
        let dropped = scan_metric(&plan, "rows_filtered");
        assert_eq!(scan_metric(&plan, "row_groups_pruned"), 0, "{sql}");
        if filters {
            assert!(
                dropped * 10 > rows_in_file * 7,
                "{dropped} rows dropped: {sql}"
            );
        } else {
            assert!(dropped * 10 < rows_in_file, "{dropped} rows dropped: {sql}");
        }
    }

    // The scan drops exactly the rows outside both the dates and the `IN` list of strings.
    let sql = "SELECT count(*) FROM lineitem WHERE l_shipmode IN ('MAIL', 'SHIP') \
               AND l_receiptdate >= date '1994-01-01' AND l_receiptdate < date '1995-01-01'";
    let (matching, _) = execute(&builtin, sql).await;
    let matching: usize = matching[0]
        .trim_matches(|c| c == '|' || c == ' ')
        .parse()
        .unwrap();
    let (_, plan) = execute(&parq, sql).await;
    assert_eq!(scan_metric(&plan, "rows_filtered"), rows_in_file - matching);
}

/// With `parq.row_predicates`, conjuncts parq's expressions cannot say (`LIKE`, a function
/// of a column, a comparison of two columns) filter in the scan as DataFusion evaluates them,
/// row predicates beside parq's own tests: the scan drops exactly the rows outside all of
/// them, and a failing or volatile conjunct is left to the filter above. Without it (the
/// default) they are left to the filter above too.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conjuncts_parq_cannot_say_filter_in_the_scan() {
    let dir = tpch(0.01, 4096).await;
    let path = dir.join("lineitem.parquet");
    let (parq, builtin) = (session(2), session(2));
    for (s, reader) in [(&parq, Reader::Parq), (&builtin, Reader::Builtin)] {
        register(s, "lineitem", path.to_str().unwrap(), reader)
            .await
            .unwrap();
    }
    let rows_in_file: usize = 60175;
    let sql = "SELECT count(*) FROM lineitem WHERE upper(l_comment) LIKE '%FURIOUS%'";
    let (_, plan) = execute(&parq, sql).await;
    assert_eq!(scan_metric(&plan, "rows_filtered"), 0);
    execute(&parq, "SET parq.row_predicates = true").await;
    let cases = [
        "SELECT count(*), sum(l_quantity) FROM lineitem WHERE l_shipinstruct LIKE '%PERSON' \
         AND l_shipdate >= date '1995-01-01'",
        "SELECT count(*) FROM lineitem WHERE upper(l_comment) LIKE '%FURIOUS%'",
        "SELECT count(*) FROM lineitem WHERE l_commitdate < l_receiptdate AND l_shipmode = 'MAIL'",
        // No row fails at the scan: the conjunct on it is evaluated in another order.
        "SELECT count(*) FROM lineitem WHERE l_quantity > 0 AND 100 / l_quantity > 10",
    ];
    for sql in cases {
        let (got, plan) = execute(&parq, sql).await;
        let (want, _) = execute(&builtin, sql).await;
        assert_eq!(got, want, "{sql}");
        let count = format!(
            "SELECT count(*) FROM lineitem WHERE {}",
            sql.split_once("WHERE ").unwrap().1
        );
        let (matching, _) = execute(&builtin, &count).await;
        let matching: usize = matching[0]
            .trim_matches(|c| c == '|' || c == ' ')
            .parse()
            .unwrap();
        assert!(matching * 2 < rows_in_file, "{sql}: {matching} rows match");
        assert_eq!(
            scan_metric(&plan, "rows_filtered"),
            rows_in_file - matching,
            "{sql}"
        );
    }
    // `random()` is not pushed: the scan drops nothing by it.
    let (_, plan) = execute(&parq, "SELECT count(*) FROM lineitem WHERE random() < 0.5").await;
    assert_eq!(scan_metric(&plan, "rows_filtered"), 0);
    let (_, plan) = execute(
        &parq,
        "SELECT count(*) FROM lineitem WHERE random() < l_tax",
    )
    .await;
    assert_eq!(scan_metric(&plan, "rows_filtered"), 0);
}

/// `rows_filtered` of the scans of `file` only.
fn scan_metric_of(plan: &Arc<dyn ExecutionPlan>, file: &str, name: &str) -> usize {
    let shown = datafusion::physical_plan::displayable(plan.as_ref())
        .one_line()
        .to_string();
    let own = if plan.name() == "DataSourceExec" && shown.contains(file) {
        scan_metric(plan, name)
    } else {
        0
    };
    own + plan
        .children()
        .into_iter()
        .map(|c| scan_metric_of(c, file, name))
        .sum::<usize>()
}

/// A join's dynamic filter on the probe side's key (its bounds, numbers) joins the fixed
/// conjuncts in the scan's filter, and displaces none on strings: the lineitem scan of TPC-H
/// Q10's shape drops at least every row whose `l_returnflag` is not `R`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_filter_keeps_the_fixed_conjuncts_of_the_scan() {
    let dir = tpch(0.01, 4096).await;
    let (parq, builtin) = (session(2), session(2));
    for table in ["lineitem", "orders"] {
        let path = dir.join(format!("{table}.parquet"));
        let path = path.to_str().unwrap();
        register(&parq, table, path, Reader::Parq).await.unwrap();
        register(&builtin, table, path, Reader::Builtin)
            .await
            .unwrap();
    }
    let sql = "SELECT count(*), sum(l_extendedprice) FROM orders JOIN lineitem \
               ON l_orderkey = o_orderkey WHERE l_returnflag = 'R' \
               AND o_orderdate >= date '1993-10-01' AND o_orderdate < date '1994-01-01'";
    let (got, plan) = execute(&parq, sql).await;
    let (want, _) = execute(&builtin, sql).await;
    assert_eq!(got, want);
    let (not_r, _) = execute(
        &builtin,
        "SELECT count(*) FROM lineitem WHERE l_returnflag <> 'R'",
    )
    .await;
    let not_r: usize = not_r[0]
        .trim_matches(|c| c == '|' || c == ' ')
        .parse()
        .unwrap();
    let dropped = scan_metric_of(&plan, "lineitem", "rows_filtered");
    assert!(
        dropped >= not_r,
        "{dropped} rows dropped, {not_r} not R:\n{}",
        plan_text(&plan)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_as_parq_in_sql() {
    let dir = tpch(0.01, 4096).await;
    let mut answers = Vec::new();
    for stored_as in ["PARQ", "PARQUET"] {
        let ctx = session(2);
        let sql = format!(
            "CREATE EXTERNAL TABLE nation STORED AS {stored_as} LOCATION '{}'",
            dir.join("nation.parquet").display()
        );
        ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let q = "SELECT n_regionkey, count(*), min(n_name) FROM nation \
                 WHERE n_nationkey > 3 AND n_regionkey IN (1, 3) GROUP BY n_regionkey";
        let (got, plan) = execute(&ctx, q).await;
        let shown = datafusion::physical_plan::displayable(plan.as_ref())
            .indent(true)
            .to_string();
        let builtin = shown.contains("file_type=parquet");
        assert_eq!(
            !builtin && shown.contains("file_type=parq"),
            stored_as == "PARQ",
            "{shown}"
        );
        answers.push(got);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0].len(), 2);
}

/// A file with an Arrow `Dictionary` column (written with its Arrow schema, as pyarrow and
/// parq write categoricals): parq's scan reads it as keys into each chunk's dictionary (the
/// probes: no batch's values hashed back into a dictionary) and gives the same rows, of the
/// same type, as DataFusion's own reader, for a whole scan, a filter on the dictionary column
/// and an aggregate over it, on one partition and on two. (One runtime thread, so that the
/// scans' probes count on it.)
#[tokio::test]
async fn dictionary_columns_read_as_keys_equal_the_builtin_reader() {
    use datafusion::arrow::array::{
        ArrayRef, DictionaryArray, Int64Array, RecordBatch, StringArray,
    };
    use datafusion::arrow::datatypes::Int32Type;
    use parq::codecs::probe;
    let n = 50_000;
    let names: DictionaryArray<Int32Type> = (0..n)
        .map(|i| (i % 13 != 4).then(|| format!("name {}", (i * 7919) % 300)))
        .collect::<Vec<_>>()
        .iter()
        .map(Option::as_deref)
        .collect();
    let x = Int64Array::from_iter_values((0..n).map(|i| i as i64 * 3 % 1000));
    let s = StringArray::from_iter((0..n).map(|i| (i % 5 != 0).then(|| format!("s{i}"))));
    let batch = RecordBatch::try_from_iter([
        ("d", Arc::new(names) as ArrayRef),
        ("x", Arc::new(x) as ArrayRef),
        ("s", Arc::new(s) as ArrayRef),
    ])
    .unwrap();
    let options = parq::write::WriterOptions::default()
        .with_row_group_rows(20_000)
        .with_data_page_row_limit(4000);
    let mut w = parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options).unwrap();
    w.write(&batch).unwrap();
    let bytes = w.into_inner().unwrap();
    let dir = std::env::temp_dir().join(format!("parq-df-dict-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("d.parquet");
    std::fs::write(&path, bytes).unwrap();
    let queries = [
        "SELECT d, x, s FROM t",
        "SELECT d, s FROM t WHERE d = 'name 17' OR d IS NULL",
        "SELECT d, count(*), sum(x) FROM t GROUP BY d",
        "SELECT arrow_typeof(d) FROM t LIMIT 1",
    ];
    for partitions in [1, 2] {
        let (parq, builtin) = (session(partitions), session(partitions));
        let url = path.to_str().unwrap();
        register(&parq, "t", url, Reader::Parq).await.unwrap();
        register(&builtin, "t", url, Reader::Builtin).await.unwrap();
        for sql in queries {
            let want = rows(&run(&builtin, sql).await.unwrap(), false);
            probe::reset();
            let got = rows(&run(&parq, sql).await.unwrap(), false);
            assert!(!want.is_empty(), "{sql}");
            assert_eq!(got, want, "{sql} on {partitions} partitions");
            if probe::ENABLED && sql.contains(" d") {
                assert!(probe::get("arrow.dictionary_keys") > 0, "{sql}");
                assert_eq!(probe::get("arrow.dictionary_rebuilt"), 0, "{sql}");
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `STORED AS PARQ` on a folder reads its `.parquet` files, as `STORED AS PARQUET` does (the
/// README's own example).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_as_parq_reads_a_folder_of_parquet_files() {
    let data = tpch(0.01, 4096).await;
    let dir = std::env::temp_dir().join(format!("parq-df-folder-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["a.parquet", "b.parquet"] {
        std::fs::copy(data.join("nation.parquet"), dir.join(name)).unwrap();
    }
    let mut answers = Vec::new();
    for stored_as in ["PARQ", "PARQUET"] {
        let ctx = session(2);
        let sql = format!(
            "CREATE EXTERNAL TABLE nation STORED AS {stored_as} LOCATION '{}/'",
            dir.display()
        );
        ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let (got, _) = execute(&ctx, "SELECT count(*), min(n_name) FROM nation").await;
        answers.push(got);
    }
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(answers[0], answers[1]);
    assert!(
        answers[0].iter().any(|l| l.contains("| 50 ")),
        "{:?}",
        answers[0]
    );
}

/// A top-k's dynamic filter reaches parq's decoder as it tightens: lineitem is in
/// `l_orderkey` order, so once the first row group has filled the top 5, every later row
/// group is pruned by its statistics, also one the decoder had evaluated ahead with the
/// filter's first version (`row_groups_pruned`). Without dynamic filters nothing is pruned;
/// the answers are the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn topk_dynamic_filters_prune_row_groups_as_they_tighten() {
    let dir = tpch(0.01, 4096).await;
    let path = dir.join("lineitem.parquet");
    let rows_in_file: usize = 60175;
    let sql = "SELECT l_orderkey, l_partkey, l_comment FROM lineitem \
               ORDER BY l_orderkey, l_partkey LIMIT 5";
    let mut answers = Vec::new();
    for dynamic in [true, false] {
        // One partition: the file's row groups in order.
        let ctx = session(1);
        let set = format!("SET datafusion.optimizer.enable_dynamic_filter_pushdown = {dynamic}");
        ctx.sql(&set).await.unwrap().collect().await.unwrap();
        register(&ctx, "lineitem", path.to_str().unwrap(), Reader::Parq)
            .await
            .unwrap();
        let (got, plan) = execute(&ctx, sql).await;
        let pruned = scan_metric(&plan, "row_groups_pruned");
        // The rows of the row groups left: with the filter, only the first (decoded before
        // the filter had a version).
        let selected = scan_metric(&plan, "rows_selected");
        let left = if dynamic { 4096 } else { rows_in_file };
        assert_eq!(selected, left, "dynamic {dynamic}");
        if dynamic {
            // Every row group but the first: those evaluated ahead of the filter's new
            // version too.
            assert!(
                pruned >= rows_in_file.div_ceil(4096) - 1,
                "{pruned} row groups pruned:\n{}",
                plan_text(&plan)
            );
        } else {
            assert_eq!(pruned, 0);
        }
        answers.push(got);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0].len(), 5);
}

/// A limit reaches parq's decoder: without a filter it narrows the rows read before
/// anything is fetched, so `LIMIT 7` fetches the first pages (of 20,000 rows) of the one row
/// group, not the whole column chunks (on this small file, less than it could: ranges less
/// than 1 MiB apart are fetched as one). The bytes are counted though the stream is dropped
/// before its end.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_limit_fetches_only_the_pages_of_its_rows() {
    let dir = tpch(0.01, 1 << 20).await;
    let path = dir.join("lineitem.parquet");
    let mut fetched = Vec::new();
    for sql in [
        "SELECT l_orderkey, l_comment FROM lineitem LIMIT 7",
        "SELECT l_orderkey, l_comment FROM lineitem",
    ] {
        let ctx = session(1);
        register(&ctx, "lineitem", path.to_str().unwrap(), Reader::Parq)
            .await
            .unwrap();
        let (got, plan) = execute(&ctx, sql).await;
        assert!(got.len() == 7 || got.len() == 60175, "{} rows", got.len());
        fetched.push(scan_metric(&plan, "bytes_fetched"));
    }
    assert!(
        0 < fetched[0] && fetched[0] < fetched[1],
        "{} bytes fetched for LIMIT 7, {} for every row",
        fetched[0],
        fetched[1]
    );
}

/// `SET parq.row_filter = false` turns parq's filter in the decoder off (nothing dropped in
/// the scan, the same answer); DataFusion's `pushdown_filters` leaves it on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_row_filter_is_parqs_own_setting() {
    let dir = tpch(0.01, 4096).await;
    let path = dir.join("lineitem.parquet");
    let sql = "SELECT count(*), sum(l_extendedprice * l_discount) FROM lineitem \
               WHERE l_shipdate >= date '1994-01-01' AND l_shipdate < date '1995-01-01' \
               AND l_discount BETWEEN 0.05 AND 0.07 AND l_quantity < 24";
    let mut answers = Vec::new();
    for (set, drops) in [
        (None, true),
        (
            Some("datafusion.execution.parquet.pushdown_filters = false"),
            true,
        ),
        (
            Some("datafusion.execution.parquet.pushdown_filters = true"),
            true,
        ),
        (Some("parq.row_filter = false"), false),
    ] {
        let ctx = session(2);
        parq_datafusion::register(&ctx).unwrap();
        if let Some(set) = set {
            ctx.sql(&format!("SET {set}"))
                .await
                .unwrap()
                .collect()
                .await
                .unwrap();
        }
        register(&ctx, "lineitem", path.to_str().unwrap(), Reader::Parq)
            .await
            .unwrap();
        let (got, plan) = execute(&ctx, sql).await;
        let dropped = scan_metric(&plan, "rows_filtered");
        assert_eq!(dropped > 0, drops, "{set:?}: {dropped} rows dropped");
        answers.push(got);
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
}

/// `file_row_index()` reads the row-number virtual column parq's scan produces: each row's
/// position in its file, counting every row group whatever pruning, the row filter, byte
/// ranges of other partitions and the partition columns do. Equal to DataFusion's own
/// reader on a hive-partitioned folder of files of several row groups, on one partition and
/// on two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn file_row_index_equals_the_builtin_reader() {
    use datafusion::arrow::array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    let dir = std::env::temp_dir().join(format!("parq-df-row-index-{}", std::process::id()));
    for (part, n) in [("a", 30_000i64), ("b", 12_345)] {
        let x = Int64Array::from_iter_values((0..n).map(|i| i * 7 % 1000));
        let s = StringArray::from_iter((0..n).map(|i| (i % 9 != 0).then(|| format!("s{i}"))));
        let batch = RecordBatch::try_from_iter([
            ("x", Arc::new(x) as ArrayRef),
            ("s", Arc::new(s) as ArrayRef),
        ])
        .unwrap();
        let options = parq::write::WriterOptions::default()
            .with_row_group_rows(5000)
            .with_data_page_row_limit(1000);
        let mut w = parq::arrow::ArrowWriter::try_new(Vec::new(), batch.schema(), options).unwrap();
        w.write(&batch).unwrap();
        let folder = dir.join(format!("part={part}"));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(folder.join("f.parquet"), w.into_inner().unwrap()).unwrap();
    }
    let queries = [
        "SELECT part, file_row_index(), x, s FROM t",
        "SELECT file_row_index() FROM t",
        "SELECT file_row_index(), s FROM t WHERE x > 900",
        "SELECT x, file_row_index() + 1 FROM t WHERE x = 14 AND part = 'b'",
        "SELECT x, part FROM t WHERE file_row_index() BETWEEN 4990 AND 10010",
        "SELECT file_row_index(), x FROM t ORDER BY x DESC, part, file_row_index() LIMIT 7",
    ];
    let location = dir.to_str().unwrap();
    for partitions in [1, 2] {
        let (parq, builtin) = (session(partitions), session(partitions));
        for (ctx, format) in [(&parq, "PARQ"), (&builtin, "PARQUET")] {
            let sql = format!(
                "CREATE EXTERNAL TABLE t STORED AS {format} PARTITIONED BY (part) \
                 LOCATION '{location}/'"
            );
            ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        }
        for sql in queries {
            let want = rows(&run(&builtin, sql).await.unwrap(), false);
            let got = rows(&run(&parq, sql).await.unwrap(), false);
            assert!(!want.is_empty(), "{sql}");
            assert_eq!(got, want, "{sql} on {partitions} partitions");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With DataFusion's `pushdown_filters`, a hash join's dynamic filter filters the probe
/// side's scan by its lookup of the join's keys, as DataFusion's own reader then does: the
/// orders of one customer in five keep about one lineitem row in five, spread over every row
/// group, which the keys' bounds cannot drop. Without it only the bounds filter. The answers
/// are the built-in reader's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_join_lookup_filters_the_probe_scan_under_pushdown_filters() {
    let dir = tpch(0.01, 4096).await;
    let rows_in_file: usize = 60175;
    let sql = "SELECT count(*), sum(l_quantity) FROM lineitem JOIN orders \
               ON l_orderkey = o_orderkey WHERE o_custkey % 5 = 0";
    let builtin = session(2);
    register_tpch(&builtin, &dir, Reader::Builtin).await;
    let (want, _) = execute(&builtin, sql).await;
    for pushdown in [false, true] {
        let ctx = session(2);
        let set = format!("SET datafusion.execution.parquet.pushdown_filters = {pushdown}");
        ctx.sql(&set).await.unwrap().collect().await.unwrap();
        register_tpch(&ctx, &dir, Reader::Parq).await;
        let (got, plan) = execute(&ctx, sql).await;
        assert_eq!(got, want, "pushdown {pushdown}");
        let dropped = scan_metric(&plan, "rows_filtered");
        if pushdown {
            assert!(
                dropped * 10 > rows_in_file * 7,
                "{dropped} rows dropped:\n{}",
                plan_text(&plan)
            );
        } else {
            assert!(dropped * 10 < rows_in_file, "{dropped} rows dropped");
        }
    }
}
