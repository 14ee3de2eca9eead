//! `SELECT *` over every parquet-testing file that DataFusion's own Parquet reader reads gives
//! the same columns (types and values) through parq, except the known differences below.

use std::path::Path;

use crate::common::{register, session, Reader};
use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::compute::concat_batches;

/// Files whose answers differ, and why.
const KNOWN_DIFFERENCES: &[(&str, &str)] = &[(
    "repeated_no_annotation.parquet",
    "DataFusion's reader returns no rows; the file holds 6 records (a repeated group without \
     a LIST annotation), which parq reads",
)];

async fn select_all(file: &Path, reader: Reader) -> datafusion::common::Result<RecordBatch> {
    let ctx = session(1);
    register(&ctx, "t", file.to_str().unwrap(), reader).await?;
    let df = ctx.sql("SELECT * FROM t").await?;
    let schema = df.schema().inner().clone();
    let batches = df.collect().await?;
    Ok(concat_batches(&schema, &batches)?)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn select_star_equals_builtin_on_parquet_testing() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/parquet-testing/data");
    let mut files: Vec<_> = std::fs::read_dir(&data)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    let (mut compared, mut differ) = (0, Vec::new());
    for file in &files {
        let name = file.file_name().unwrap().to_str().unwrap();
        let Ok(want) = select_all(file, Reader::Builtin).await else {
            continue; // DataFusion's own reader cannot read it: nothing to compare with.
        };
        compared += 1;
        let verdict = match select_all(file, Reader::Parq).await {
            Err(e) => Some(format!("error: {e}")),
            Ok(got) => {
                let mut why = None;
                if got.num_rows() != want.num_rows() {
                    why = Some(format!("{} rows, want {}", got.num_rows(), want.num_rows()));
                }
                for (i, f) in want.schema().fields().iter().enumerate() {
                    if why.is_some() {
                        break;
                    }
                    let Some(g) = got.column_by_name(f.name()) else {
                        why = Some(format!("column {} missing", f.name()));
                        break;
                    };
                    let w = want.column(i);
                    if g.data_type() != w.data_type() {
                        why = Some(format!(
                            "{}: {} vs {}",
                            f.name(),
                            g.data_type(),
                            w.data_type()
                        ));
                    } else if g.to_data() != w.to_data() {
                        why = Some(format!("{}: values differ", f.name()));
                    }
                }
                why
            }
        };
        let known = KNOWN_DIFFERENCES.iter().any(|(k, _)| *k == name);
        match verdict {
            Some(why) if !known => differ.push(format!("{name}: {why}")),
            None if known => differ.push(format!("{name}: listed as different but equal")),
            _ => {}
        }
    }
    assert!(compared > 40, "only {compared} files compared");
    assert!(
        differ.is_empty(),
        "{} of {compared}:\n{}",
        differ.len(),
        differ.join("\n")
    );
}
