//! Plans that read through parq on a Ballista cluster: the codecs round-trip a parq scan,
//! and TPC-H at scale factor 0.01 on an in-process cluster (a scheduler and two executors on
//! loopback) gives the answers of single-node DataFusion reading with its own Parquet.

use std::sync::Arc;

use ballista::extension::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::physical_plan::AsExecutionPlan;
use datafusion_proto::protobuf::PhysicalPlanNode;
use parq_datafusion::ballista::{ParqLogicalCodec, ParqPhysicalCodec};

use crate::common::{
    plan_text, query, register, register_tpch, rows, run, session, tpch, Reader, TABLES,
};

/// The scan of `sql`'s plan (over `ctx`'s tables), encoded and decoded with `codec`.
async fn round_trip(ctx: &SessionContext, sql: &str) -> (String, String) {
    let plan = crate::common::physical_plan(ctx, sql).await;
    let codec = ParqPhysicalCodec::default();
    let proto = PhysicalPlanNode::try_from_physical_plan(Arc::clone(&plan), &codec).unwrap();
    let decoded = proto
        .try_into_physical_plan(&ctx.task_ctx(), &codec)
        .unwrap();
    (plan_text(&plan), plan_text(&decoded))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn physical_codec_round_trips_a_parq_scan() {
    let dir = tpch(0.01, 4096).await;
    let ctx = session(2);
    let path = dir.join("lineitem.parquet");
    register(&ctx, "lineitem", path.to_str().unwrap(), Reader::Parq)
        .await
        .unwrap();
    // File groups with row-group ranges, projection, and a pruning predicate or a limit.
    let filtered = "SELECT l_orderkey, l_quantity FROM lineitem \
                    WHERE l_shipdate >= date '1995-09-01' AND l_quantity < 10";
    let limited = "SELECT l_orderkey, l_comment FROM lineitem LIMIT 7";
    for (sql, shown) in [(filtered, "pruning_predicate="), (limited, "limit=7")] {
        let (before, after) = round_trip(&ctx, sql).await;
        assert!(before.contains("file_type=parq"), "{before}");
        assert!(before.contains("2 groups"), "{before}");
        assert!(before.contains(shown), "{before}");
        assert_eq!(before, after);
    }
    let sql = filtered;
    // Without the codec, the scan cannot be sent.
    let plan = ctx
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let ballista_only = ballista_core::serde::BallistaPhysicalExtensionCodec::default();
    assert!(PhysicalPlanNode::try_from_physical_plan(plan, &ballista_only).is_err());
}

/// A scheduler and two executors in this process, and a client session of theirs.
async fn cluster() -> SessionContext {
    let config = SessionConfig::new_with_ballista()
        .with_target_partitions(2)
        .with_ballista_logical_extension_codec(Arc::new(ParqLogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(ParqPhysicalCodec::default()));
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    let addr = ballista_scheduler::standalone::new_standalone_scheduler_from_state(&state)
        .await
        .unwrap();
    let url = format!("http://localhost:{}", addr.port());
    let scheduler = loop {
        match SchedulerGrpcClient::connect(url.clone()).await {
            Ok(s) => break s,
            Err(_) => tokio::time::sleep(std::time::Duration::from_millis(50)).await,
        }
    };
    for _ in 0..2 {
        ballista_executor::new_standalone_executor_from_state(scheduler.clone(), 1, &state)
            .await
            .unwrap();
    }
    let ctx = SessionContext::remote_with_state(&url, state)
        .await
        .unwrap();
    parq_datafusion::register(&ctx).unwrap();
    ctx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn tpch_on_a_ballista_cluster_equals_single_node() {
    let dir = tpch(0.01, 4096).await;
    let cluster = cluster().await;
    // The tables as SQL users make them: `STORED AS PARQ`.
    for (table, _) in TABLES {
        let sql = format!(
            "CREATE EXTERNAL TABLE {table} STORED AS PARQ LOCATION '{}'",
            dir.join(format!("{table}.parquet")).display()
        );
        cluster.sql(&sql).await.unwrap().collect().await.unwrap();
    }
    let single = session(2);
    register_tpch(&single, &dir, Reader::Builtin).await;
    let queries: Vec<usize> = std::env::var("TPCH_QUERIES")
        .map(|v| v.split(',').filter_map(|q| q.trim().parse().ok()).collect())
        .unwrap_or_else(|_| (1..=22).collect());
    let mut failed = Vec::new();
    for n in queries {
        let sql = query(n);
        let ordered = sql.to_lowercase().contains("order by");
        let want = rows(&run(&single, &sql).await.unwrap(), ordered);
        match run(&cluster, &sql).await {
            Ok(b) => {
                let got = rows(&b, ordered);
                if got != want {
                    failed.push(format!("q{n}: ballista {got:?}\nsingle node {want:?}"));
                }
            }
            Err(e) => failed.push(format!("q{n}: {e}")),
        }
    }
    assert!(failed.is_empty(), "{}", failed.join("\n"));
}

/// `COPY … STORED AS PARQ` on the cluster: the executors write with parq (the plan's sink
/// and the format travel through the codecs), and the files read back by DataFusion's own
/// Parquet reader equal the query's rows.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn copy_on_a_ballista_cluster_writes_through_parq() {
    let dir = tpch(0.01, 4096).await;
    let cluster = cluster().await;
    let sql = format!(
        "CREATE EXTERNAL TABLE orders STORED AS PARQ LOCATION '{}'",
        dir.join("orders.parquet").display()
    );
    cluster.sql(&sql).await.unwrap().collect().await.unwrap();
    let out = std::env::temp_dir().join(format!("parq-df-ballista-copy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).unwrap();
    let select = "SELECT o_orderkey, o_custkey, o_totalprice, o_orderdate FROM orders \
                  WHERE o_orderkey < 20000";
    let copy = format!("COPY ({select}) TO '{}/' STORED AS PARQ", out.display());
    cluster.sql(&copy).await.unwrap().collect().await.unwrap();

    let single = session(2);
    register(
        &single,
        "orders",
        dir.join("orders.parquet").to_str().unwrap(),
        Reader::Builtin,
    )
    .await
    .unwrap();
    let want = rows(
        &run(&single, &format!("{select} ORDER BY o_orderkey"))
            .await
            .unwrap(),
        true,
    );
    let back = session(2);
    let written = out.to_str().unwrap().to_string() + "/";
    register(&back, "copied", &written, Reader::Builtin)
        .await
        .unwrap();
    let got = rows(
        &run(&back, "SELECT * FROM copied ORDER BY o_orderkey")
            .await
            .unwrap(),
        true,
    );
    assert_eq!(got.len(), want.len());
    assert_eq!(got, want);
    // Written by parq.
    let file = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "parquet" || e == "parq"))
        .expect("a file written");
    let bytes = bytes::Bytes::from(std::fs::read(&file).unwrap());
    let footer = parq::read::ParquetReader::new(bytes).unwrap();
    let created_by = footer.metadata().created_by.clone().unwrap_or_default();
    assert!(created_by.contains("parq"), "{created_by}");
    std::fs::remove_dir_all(&out).unwrap();
}
