//! Shared by the tests and the bench: TPC-H data as Parquet, sessions reading it through parq
//! or DataFusion's own Parquet, and result comparison.

#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::Result;
use datafusion::datasource::file_format::parquet::ParquetFormat;
use datafusion::datasource::file_format::FileFormat;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::prelude::{SessionConfig, SessionContext};
use parq_datafusion::{ParqFormat, ParqTable};

/// The eight TPC-H tables with their columns as SQL types.
pub const TABLES: &[(&str, &str)] = &[
    ("nation", "n_nationkey BIGINT, n_name VARCHAR, n_regionkey BIGINT, n_comment VARCHAR"),
    ("region", "r_regionkey BIGINT, r_name VARCHAR, r_comment VARCHAR"),
    ("part", "p_partkey BIGINT, p_name VARCHAR, p_mfgr VARCHAR, p_brand VARCHAR, p_type VARCHAR, p_size INT, p_container VARCHAR, p_retailprice DECIMAL(15,2), p_comment VARCHAR"),
    ("supplier", "s_suppkey BIGINT, s_name VARCHAR, s_address VARCHAR, s_nationkey BIGINT, s_phone VARCHAR, s_acctbal DECIMAL(15,2), s_comment VARCHAR"),
    ("partsupp", "ps_partkey BIGINT, ps_suppkey BIGINT, ps_availqty INT, ps_supplycost DECIMAL(15,2), ps_comment VARCHAR"),
    ("customer", "c_custkey BIGINT, c_name VARCHAR, c_address VARCHAR, c_nationkey BIGINT, c_phone VARCHAR, c_acctbal DECIMAL(15,2), c_mktsegment VARCHAR, c_comment VARCHAR"),
    ("orders", "o_orderkey BIGINT, o_custkey BIGINT, o_orderstatus VARCHAR, o_totalprice DECIMAL(15,2), o_orderdate DATE, o_orderpriority VARCHAR, o_clerk VARCHAR, o_shippriority INT, o_comment VARCHAR"),
    ("lineitem", "l_orderkey BIGINT, l_partkey BIGINT, l_suppkey BIGINT, l_linenumber INT, l_quantity DECIMAL(15,2), l_extendedprice DECIMAL(15,2), l_discount DECIMAL(15,2), l_tax DECIMAL(15,2), l_returnflag VARCHAR, l_linestatus VARCHAR, l_shipdate DATE, l_commitdate DATE, l_receiptdate DATE, l_shipinstruct VARCHAR, l_shipmode VARCHAR, l_comment VARCHAR"),
];

/// Where generated data is cached: under the target directory.
pub fn cache_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("parq-datafusion-data")
}

fn write_tbl<T: std::fmt::Display>(path: &Path, rows: impl IntoIterator<Item = T>) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for row in rows {
        let line = row.to_string();
        // tpchgen ends each line with the delimiter; the CSV reader would see one more field.
        writeln!(out, "{}", line.strip_suffix('|').unwrap_or(&line)).unwrap();
    }
    out.flush().unwrap();
}

/// TPC-H at scale factor `sf` as one Parquet file per table (written by DataFusion, row
/// groups of `row_group_rows`), generated once: `<cache>/tpch-sf<sf>-rg<rows>/<table>.parquet`.
///
/// Tests of one binary run on several threads and test binaries may run in parallel
/// processes (nextest): the data is generated under a lock into a directory of this process's
/// own and renamed into place, so no caller sees a half-written directory.
pub async fn tpch(sf: f64, row_group_rows: usize) -> PathBuf {
    static GENERATING: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());
    let dir = cache_dir().join(format!("tpch-sf{sf}-rg{row_group_rows}"));
    let _guard = GENERATING.lock().await;
    if dir.join("done").exists() {
        return dir;
    }
    let staging = cache_dir().join(format!(
        "tpch-sf{sf}-rg{row_group_rows}.{}.tmp",
        std::process::id()
    ));
    if staging.exists() {
        std::fs::remove_dir_all(&staging).unwrap();
    }
    generate_tpch(&staging, sf, row_group_rows).await;
    std::fs::write(staging.join("done"), b"").unwrap();
    if std::fs::rename(&staging, &dir).is_err() {
        // Another process finished first (or left a partial directory behind).
        if dir.join("done").exists() {
            std::fs::remove_dir_all(&staging).unwrap();
        } else {
            if dir.exists() {
                std::fs::remove_dir_all(&dir).unwrap();
            }
            std::fs::rename(&staging, &dir).unwrap();
        }
    }
    dir
}

async fn generate_tpch(dir: &Path, sf: f64, row_group_rows: usize) {
    use tpchgen::generators::*;
    let tbl = dir.join("tbl");
    std::fs::create_dir_all(&tbl).unwrap();
    let p = |t: &str| tbl.join(format!("{t}.tbl"));
    write_tbl(&p("nation"), NationGenerator::new(sf, 1, 1).iter());
    write_tbl(&p("region"), RegionGenerator::new(sf, 1, 1).iter());
    write_tbl(&p("part"), PartGenerator::new(sf, 1, 1).iter());
    write_tbl(&p("supplier"), SupplierGenerator::new(sf, 1, 1).iter());
    write_tbl(&p("partsupp"), PartSuppGenerator::new(sf, 1, 1).iter());
    write_tbl(&p("customer"), CustomerGenerator::new(sf, 1, 1).iter());
    write_tbl(&p("orders"), OrderGenerator::new(sf, 1, 1).iter());
    write_tbl(&p("lineitem"), LineItemGenerator::new(sf, 1, 1).iter());
    // One partition: the rows keep the generator's order (two would interleave their batches
    // by timing), so every run writes the same files.
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(1));
    for (table, columns) in TABLES {
        let sql = format!(
            "CREATE EXTERNAL TABLE {table}_tbl ({columns}) STORED AS CSV LOCATION '{}' \
             OPTIONS ('format.delimiter' '|', 'format.has_header' 'false')",
            p(table).display()
        );
        ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        let sql = format!(
            "COPY (SELECT * FROM {table}_tbl) TO '{}' STORED AS PARQUET \
             OPTIONS ('format.max_row_group_size' '{row_group_rows}')",
            dir.join(format!("{table}.parquet")).display()
        );
        ctx.sql(&sql).await.unwrap().collect().await.unwrap();
    }
    std::fs::remove_dir_all(&tbl).unwrap();
}

/// Which reader a session's tables use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// parq, through `ParqFormat`.
    Parq,
    /// DataFusion's own `ParquetFormat`.
    Builtin,
}

impl Reader {
    pub fn format(self) -> Arc<dyn FileFormat> {
        match self {
            Reader::Parq => Arc::new(ParqFormat::new()),
            Reader::Builtin => Arc::new(ParquetFormat::default()),
        }
    }
}

/// A session with `target_partitions` partitions that splits even small files into ranges.
pub fn session(target_partitions: usize) -> SessionContext {
    let config = SessionConfig::new()
        .with_target_partitions(target_partitions)
        .set_usize("datafusion.optimizer.repartition_file_min_size", 0);
    let ctx = SessionContext::new_with_config(config);
    parq_datafusion::register(&ctx).unwrap();
    ctx
}

/// Register `url` (a file or directory, as a URL or local path) as `name`, read by `reader`.
pub async fn register(ctx: &SessionContext, name: &str, url: &str, reader: Reader) -> Result<()> {
    let url = ListingTableUrl::parse(url)?;
    let options = ListingOptions::new(reader.format()).with_file_extension(".parquet");
    let config = ListingTableConfig::new(url)
        .with_listing_options(options)
        .infer_schema(&ctx.state())
        .await?;
    let table = ListingTable::try_new(config)?;
    match reader {
        // As `STORED AS PARQ` makes them: a table a Ballista plan can carry.
        Reader::Parq => ctx.register_table(name, Arc::new(ParqTable::try_new(table)?))?,
        Reader::Builtin => ctx.register_table(name, Arc::new(table))?,
    };
    Ok(())
}

/// Register the TPC-H tables in `dir`.
pub async fn register_tpch(ctx: &SessionContext, dir: &Path, reader: Reader) {
    for (table, _) in TABLES {
        let path = dir.join(format!("{table}.parquet"));
        register(ctx, table, path.to_str().unwrap(), reader)
            .await
            .unwrap();
    }
}

/// The text of TPC-H query `n`.
pub fn query(n: usize) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tpch/q{n}.sql"));
    std::fs::read_to_string(path).unwrap()
}

/// Run every statement of `sql`, returning the batches of the one that returns rows (TPC-H
/// 15 creates and drops a view around its query).
pub async fn run(ctx: &SessionContext, sql: &str) -> Result<Vec<RecordBatch>> {
    let mut out = Vec::new();
    let text: String = sql
        .lines()
        .filter(|l| !l.trim_start().starts_with("--"))
        .map(|l| format!("{l}\n"))
        .collect();
    for statement in text.split(';').filter(|s| !s.trim().is_empty()) {
        let batches = ctx.sql(statement).await?.collect().await?;
        if batches.iter().any(|b| b.num_columns() > 0) {
            out = batches;
        }
    }
    Ok(out)
}

/// Result rows as text lines (types print exactly: decimals as decimals), sorted unless
/// `ordered`.
pub fn rows(batches: &[RecordBatch], ordered: bool) -> Vec<String> {
    let text = pretty_format_batches(batches).unwrap().to_string();
    let mut lines: Vec<String> = text
        .lines()
        .skip(3)
        .filter(|l| !l.starts_with('+'))
        .map(str::to_string)
        .collect();
    if !ordered {
        lines.sort();
    }
    lines
}

/// An executed or planned physical plan as indented text.
/// The physical plan of `sql` in `ctx`.
pub async fn physical_plan(
    ctx: &SessionContext,
    sql: &str,
) -> Arc<dyn datafusion::physical_plan::ExecutionPlan> {
    ctx.sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap()
}

pub fn plan_text(plan: &Arc<dyn datafusion::physical_plan::ExecutionPlan>) -> String {
    datafusion::physical_plan::displayable(plan.as_ref())
        .indent(true)
        .to_string()
}

/// The environment variable `name` parsed, else `default` (the benches' knobs).
pub fn env<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}
