//! Writes through parq, and parq as the session's Parquet:
//! - `COPY … STORED AS PARQ` and `INSERT INTO` a `STORED AS PARQ` table write with
//!   [`ParqSink`], into files that DataFusion's own reader reads back equal;
//! - `PARTITIONED BY` writes hive `key=value/` folders that read back through
//!   `ListingTable`'s partition parsing;
//! - DataFusion's Parquet options are honoured (compression, row-group size) or refused by
//!   name;
//! - after `register_as_parquet`, `STORED AS PARQUET`, `read_parquet`, `register_parquet`, a
//!   `ListingTable` built with `ParquetFormat`, `COPY TO`, `INSERT INTO` and
//!   `DataFrame::write_parquet` all reach parq (the plans say so, and the files' `created_by`
//!   names parq).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::dataframe::DataFrameWriteOptions;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::execution::options::ParquetReadOptions;
use datafusion::prelude::SessionContext;

use crate::common::{physical_plan, plan_text, register, rows, run, session, tpch, Reader};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parq-df-write-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn physical(ctx: &SessionContext, sql: &str) -> String {
    plan_text(&physical_plan(ctx, sql).await)
}

/// Every `.parquet` file under `dir`, sorted.
fn parquet_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(parquet_files(&path));
        } else if path.extension().is_some_and(|e| e == "parquet") {
            out.push(path);
        }
    }
    out.sort();
    out
}

/// The footer's `created_by` of every file under `dir`.
fn writers(dir: &Path) -> Vec<String> {
    parquet_files(dir)
        .iter()
        .map(|f| {
            let bytes = bytes::Bytes::from(std::fs::read(f).unwrap());
            let reader = parq::read::ParquetReader::new(bytes).unwrap();
            reader.metadata().created_by.clone().unwrap_or_default()
        })
        .collect()
}

const LINEITEM_SUMMARY: &str = "SELECT l_returnflag, l_linestatus, count(*), sum(l_quantity), \
     min(l_shipdate), max(l_comment) FROM t GROUP BY l_returnflag, l_linestatus";

/// The summary of `lineitem` read by DataFusion's own reader from `url`.
async fn builtin_summary(url: &str) -> Vec<String> {
    let ctx = session(2);
    register(&ctx, "t", url, Reader::Builtin).await.unwrap();
    rows(&run(&ctx, LINEITEM_SUMMARY).await.unwrap(), false)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn copy_and_insert_stored_as_parq_write_files_the_builtin_reader_reads_back() {
    let data = tpch(0.01, 4096).await;
    let lineitem = data.join("lineitem.parquet");
    let want = builtin_summary(lineitem.to_str().unwrap()).await;

    let out = scratch("copy");
    let ctx = session(2);
    register(&ctx, "lineitem", lineitem.to_str().unwrap(), Reader::Parq)
        .await
        .unwrap();
    let copy = format!(
        "COPY (SELECT * FROM lineitem) TO '{}/' STORED AS PARQ",
        out.display()
    );
    assert!(physical(&ctx, &copy).await.contains("ParqSink"));
    let written = run(&ctx, &copy).await.unwrap();
    assert_eq!(
        rows(&written, false),
        rows(
            &run(&ctx, "SELECT count(*) AS count FROM lineitem")
                .await
                .unwrap(),
            false
        )
    );
    assert!(!parquet_files(&out).is_empty());
    assert!(
        writers(&out).iter().all(|w| w.starts_with("parq")),
        "{:?}",
        writers(&out)
    );
    assert_eq!(builtin_summary(&format!("{}/", out.display())).await, want);

    // INSERT INTO a STORED AS PARQ table appends files that read back with the rest.
    let table = scratch("insert");
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE appended STORED AS PARQ LOCATION '{}/'",
        table.display()
    ))
    .await
    .unwrap_err(); // an empty folder has no schema to infer
    let create = format!(
        "CREATE EXTERNAL TABLE appended ({}) STORED AS PARQ LOCATION '{}/'",
        crate::common::TABLES
            .iter()
            .find(|(t, _)| *t == "lineitem")
            .unwrap()
            .1,
        table.display()
    );
    run(&ctx, &create).await.unwrap();
    for half in ["l_orderkey % 2 = 0", "l_orderkey % 2 = 1"] {
        let insert = format!("INSERT INTO appended SELECT * FROM lineitem WHERE {half}");
        assert!(physical(&ctx, &insert).await.contains("ParqSink"));
        run(&ctx, &insert).await.unwrap();
    }
    assert!(parquet_files(&table).len() >= 2);
    assert_eq!(
        builtin_summary(&format!("{}/", table.display())).await,
        want
    );
    std::fs::remove_dir_all(&out).unwrap();
    std::fs::remove_dir_all(&table).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partitioned_by_writes_hive_folders_that_read_back_by_their_partition_columns() {
    let data = tpch(0.01, 4096).await;
    let lineitem = data.join("lineitem.parquet");
    let ctx = session(2);
    register(&ctx, "lineitem", lineitem.to_str().unwrap(), Reader::Parq)
        .await
        .unwrap();
    let out = scratch("partitioned");
    run(
        &ctx,
        &format!(
            "COPY (SELECT * FROM lineitem) TO '{}/' STORED AS PARQ PARTITIONED BY (l_returnflag)",
            out.display()
        ),
    )
    .await
    .unwrap();
    let mut folders: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    assert_eq!(
        folders,
        ["l_returnflag=A", "l_returnflag=N", "l_returnflag=R"]
    );

    let read = session(2);
    run(
        &read,
        &format!(
            "CREATE EXTERNAL TABLE p STORED AS PARQ LOCATION '{}/' PARTITIONED BY (l_returnflag)",
            out.display()
        ),
    )
    .await
    .unwrap();
    let q =
        "SELECT l_returnflag, count(*) AS n, sum(l_quantity) AS q FROM {} GROUP BY l_returnflag";
    let got = rows(&run(&read, &q.replace("{}", "p")).await.unwrap(), false);
    let want = rows(
        &run(&ctx, &q.replace("{}", "lineitem")).await.unwrap(),
        false,
    );
    assert_eq!(got, want);
    std::fs::remove_dir_all(&out).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn parquet_options_are_honoured_or_refused_by_name() {
    let data = tpch(0.01, 4096).await;
    let ctx = session(1);
    register(
        &ctx,
        "orders",
        data.join("orders.parquet").to_str().unwrap(),
        Reader::Parq,
    )
    .await
    .unwrap();
    let out = scratch("options");
    let file = out.join("o.parquet");
    run(
        &ctx,
        &format!(
            "COPY (SELECT * FROM orders) TO '{}' STORED AS PARQ \
             OPTIONS ('format.compression' 'snappy', 'format.max_row_group_size' '4000')",
            file.display()
        ),
    )
    .await
    .unwrap();
    let reader =
        parq::read::ParquetReader::new(bytes::Bytes::from(std::fs::read(&file).unwrap())).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.num_rows, 15_000);
    assert_eq!(meta.row_groups.len(), 4, "row groups of 4000 rows");
    for chunk in &meta.row_groups[0].columns {
        let codec = chunk.meta_data.as_ref().unwrap().codec;
        assert_eq!(codec, parq::metadata::CompressionCodec::SNAPPY);
    }
    for (option, value) in [
        ("skip_arrow_metadata", "true"),
        ("column_index_truncate_length", "8"),
    ] {
        let sql = format!(
            "COPY (SELECT * FROM orders) TO '{}' STORED AS PARQ OPTIONS ('format.{option}' '{value}')",
            out.join("refused.parquet").display()
        );
        let err = run(&ctx, &sql).await.unwrap_err().to_string();
        assert!(err.contains(option), "{option}: {err}");
    }
    assert!(!out.join("refused.parquet").exists());
    std::fs::remove_dir_all(&out).unwrap();
}

/// A session where parq is DataFusion's Parquet.
fn drop_in_session() -> SessionContext {
    let ctx = session(2);
    parq_datafusion::register_as_parquet(&ctx).unwrap();
    ctx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_parquet_read_and_write_of_a_drop_in_session_goes_through_parq() {
    let data = tpch(0.01, 4096).await;
    let lineitem = data.join("lineitem.parquet");
    let path = lineitem.to_str().unwrap();
    let want = builtin_summary(path).await;
    let reads_parq =
        |shown: &str| shown.contains("file_type=parq") && !shown.contains("file_type=parquet");
    let summary = LINEITEM_SUMMARY.replace("FROM t", "FROM {}");

    // 1. STORED AS PARQUET.
    let ctx = drop_in_session();
    run(
        &ctx,
        &format!("CREATE EXTERNAL TABLE a STORED AS PARQUET LOCATION '{path}'"),
    )
    .await
    .unwrap();
    let q = summary.replace("{}", "a");
    assert!(
        reads_parq(&physical(&ctx, &q).await),
        "{}",
        physical(&ctx, &q).await
    );
    assert_eq!(rows(&run(&ctx, &q).await.unwrap(), false), want);

    // 2. register_parquet.
    ctx.register_parquet("b", path, ParquetReadOptions::default())
        .await
        .unwrap();
    let q = summary.replace("{}", "b");
    assert!(
        reads_parq(&physical(&ctx, &q).await),
        "{}",
        physical(&ctx, &q).await
    );
    assert_eq!(rows(&run(&ctx, &q).await.unwrap(), false), want);

    // 3. read_parquet.
    let df = ctx
        .read_parquet(path, ParquetReadOptions::default())
        .await
        .unwrap();
    ctx.register_table("c", df.into_view()).unwrap();
    let q = summary.replace("{}", "c");
    assert!(
        reads_parq(&physical(&ctx, &q).await),
        "{}",
        physical(&ctx, &q).await
    );
    assert_eq!(rows(&run(&ctx, &q).await.unwrap(), false), want);

    // 4. A ListingTable built in code with DataFusion's ParquetFormat.
    let url = ListingTableUrl::parse(path).unwrap();
    let config = ListingTableConfig::new(url)
        .with_listing_options(ListingOptions::new(Arc::new(ParquetFormat::default())))
        .infer_schema(&ctx.state())
        .await
        .unwrap();
    ctx.register_table("d", Arc::new(ListingTable::try_new(config).unwrap()))
        .unwrap();
    let q = summary.replace("{}", "d");
    assert!(
        reads_parq(&physical(&ctx, &q).await),
        "{}",
        physical(&ctx, &q).await
    );
    assert_eq!(rows(&run(&ctx, &q).await.unwrap(), false), want);

    // 5. COPY TO ... STORED AS PARQUET.
    let out = scratch("drop-in-copy");
    let copy = format!(
        "COPY (SELECT * FROM d) TO '{}/' STORED AS PARQUET",
        out.display()
    );
    assert!(physical(&ctx, &copy).await.contains("ParqSink"));
    run(&ctx, &copy).await.unwrap();
    assert!(
        writers(&out).iter().all(|w| w.starts_with("parq")),
        "{:?}",
        writers(&out)
    );
    assert_eq!(builtin_summary(&format!("{}/", out.display())).await, want);

    // 6. INSERT INTO a table registered with register_parquet.
    let table = scratch("drop-in-insert");
    std::fs::copy(&lineitem, table.join("first.parquet")).unwrap();
    ctx.register_parquet(
        "e",
        &format!("{}/", table.display()),
        ParquetReadOptions::default(),
    )
    .await
    .unwrap();
    let insert = "INSERT INTO e SELECT * FROM a WHERE l_orderkey < 100";
    assert!(physical(&ctx, insert).await.contains("ParqSink"));
    run(&ctx, insert).await.unwrap();
    // The file that was there (written by DataFusion's writer), and parq's.
    let written = writers(&table);
    assert_eq!(
        written.iter().filter(|w| !w.starts_with("parq")).count(),
        1,
        "{written:?}"
    );
    assert!(written.iter().any(|w| w.starts_with("parq")), "{written:?}");
    let count = |t: &str| format!("SELECT count(*) AS n FROM {t}");
    let before = run(&ctx, &count("d")).await.unwrap();
    let inserted = run(&ctx, &count("a WHERE l_orderkey < 100")).await.unwrap();
    let after = run(&ctx, &count("e")).await.unwrap();
    let n = |b: &[datafusion::arrow::array::RecordBatch]| {
        b[0].column(0)
            .as_any()
            .downcast_ref::<datafusion::arrow::array::Int64Array>()
            .unwrap()
            .value(0)
    };
    assert_eq!(n(&after), n(&before) + n(&inserted));

    // 7. DataFrame::write_parquet.
    let out2 = scratch("drop-in-df");
    ctx.table("a")
        .await
        .unwrap()
        .write_parquet(
            &format!("{}/", out2.display()),
            DataFrameWriteOptions::new(),
            None,
        )
        .await
        .unwrap();
    assert!(!parquet_files(&out2).is_empty());
    assert!(
        writers(&out2).iter().all(|w| w.starts_with("parq")),
        "{:?}",
        writers(&out2)
    );
    assert_eq!(builtin_summary(&format!("{}/", out2.display())).await, want);

    for dir in [out, table, out2] {
        std::fs::remove_dir_all(dir).unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_built_with_parquet_through_parq_reads_and_writes_through_parq() {
    use datafusion::execution::session_state::SessionStateBuilder;
    let data = tpch(0.01, 4096).await;
    let path = data.join("nation.parquet");
    let builder = SessionStateBuilder::new().with_default_features();
    let state = parq_datafusion::with_parquet_through_parq(builder).build();
    let ctx = SessionContext::new_with_state(state);
    ctx.register_parquet("n", path.to_str().unwrap(), ParquetReadOptions::default())
        .await
        .unwrap();
    let q = "SELECT min(n_name) FROM n WHERE n_nationkey > 3";
    let shown = physical(&ctx, q).await;
    assert!(
        shown.contains("file_type=parq") && !shown.contains("file_type=parquet"),
        "{shown}"
    );
    run(
        &ctx,
        &format!(
            "CREATE EXTERNAL TABLE m STORED AS PARQUET LOCATION '{}'",
            path.display()
        ),
    )
    .await
    .unwrap();
    let out = scratch("builder");
    let copy = format!(
        "COPY (SELECT * FROM m) TO '{}/x.parquet' STORED AS PARQUET",
        out.display()
    );
    assert!(physical(&ctx, &copy).await.contains("ParqSink"));
    // The other formats stay.
    let csv = format!(
        "COPY (SELECT * FROM m) TO '{}/x.csv' STORED AS CSV",
        out.display()
    );
    run(&ctx, &csv).await.unwrap();
    std::fs::remove_dir_all(&out).unwrap();
}
