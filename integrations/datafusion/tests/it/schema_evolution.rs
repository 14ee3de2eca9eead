//! Files of one table with different schemas: a column missing from one file reads as
//! nulls, a narrower integer is widened to the table's type, as DataFusion's own Parquet does.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};

use crate::common::{cache_dir, rows, session, Reader};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn missing_and_widened_columns() {
    let dir = cache_dir().join("schema-evolution");
    if !dir.join("done").exists() {
        std::fs::create_dir_all(&dir).unwrap();
        let ctx = session(1);
        for (file, select) in [
            ("1.parquet", "SELECT arrow_cast(column1, 'Int32') AS a FROM (VALUES (1), (2), (NULL))"),
            ("2.parquet", "SELECT column1 AS a, column2 AS b FROM (VALUES (3, 'x'), (4, NULL), (5000000000, 'z'))"),
        ] {
            let sql = format!("COPY ({select}) TO '{}' STORED AS PARQUET", dir.join(file).display());
            ctx.sql(&sql).await.unwrap().collect().await.unwrap();
        }
        std::fs::write(dir.join("done"), b"").unwrap();
    }
    let schema = Arc::new(Schema::new(vec![
        Field::new("a", DataType::Int64, true),
        Field::new("b", DataType::Utf8View, true),
    ]));
    let mut answers = Vec::new();
    for reader in [Reader::Parq, Reader::Builtin] {
        let ctx = session(2);
        let url = ListingTableUrl::parse(format!("{}/", dir.display())).unwrap();
        let config = ListingTableConfig::new(url)
            .with_listing_options(
                ListingOptions::new(reader.format()).with_file_extension(".parquet"),
            )
            .with_schema(Arc::clone(&schema));
        ctx.register_table("t", Arc::new(ListingTable::try_new(config).unwrap()))
            .unwrap();
        let mut got = Vec::new();
        for q in [
            "SELECT a, b FROM t ORDER BY a NULLS FIRST",
            "SELECT a, b FROM t WHERE a >= 2 ORDER BY a",
            "SELECT a FROM t WHERE b IS NULL ORDER BY a NULLS FIRST",
        ] {
            got.push(rows(
                &ctx.sql(q).await.unwrap().collect().await.unwrap(),
                true,
            ));
        }
        answers.push(got);
    }
    assert_eq!(answers[0], answers[1]);
    assert_eq!(answers[0][0].len(), 6);
    assert_eq!(answers[0][2].len(), 4);
}
