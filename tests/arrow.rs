//! The `arrow` feature: parq's RecordBatches against the parquet crate's
//! `ParquetRecordBatchReader` on every parquet-testing file, and round trips through
//! `ArrowWriter` read back by the parquet crate and by pyarrow.
#![cfg(feature = "arrow")]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};


use arrow_array::{RecordBatch, RecordBatchReader};
use arrow_schema::SchemaRef;
use bytes::Bytes;
use parq::read::ParquetReader;

/// parquet-testing's `data/`: `$PARQUET_TEST_DATA` when set (as in arrow-rs), else the copy
/// vendored under `testdata/parquet-testing/`.
fn data_dir() -> PathBuf {
    std::env::var_os("PARQUET_TEST_DATA")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data")
        })
}

/// Files where parq's batches differ from the parquet crate's, with the reason. A file that
/// starts passing fails the test, so the list stays exact.
const KNOWN: &[(&str, &str)] = &[(
    "repeated_no_annotation.parquet",
    "the footer says num_rows 0 while its row group holds 6 rows: the parquet crate reads none, \
     parq (like pyarrow) reads the 6",
)];

fn files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in [data_dir(), data_dir().join("geospatial")] {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "parquet") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The parquet crate's file schema (with metadata) and batches, or `None` when it refuses
/// the file.
fn oracle(path: &Path, batch_size: usize) -> Option<(SchemaRef, Vec<RecordBatch>)> {
    let file = std::fs::File::open(path).unwrap();
    let builder =
        parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(file).ok()?;
    let schema = builder.schema().clone();
    let reader = builder.with_batch_size(batch_size).build().ok()?;
    Some((schema, reader.collect::<Result<Vec<_>, _>>().ok()?))
}

fn parq_batches(path: &Path, batch_size: usize) -> Result<(SchemaRef, Vec<RecordBatch>), String> {
    let bytes = Bytes::from(std::fs::read(path).unwrap());
    let reader = ParquetReader::new(bytes).map_err(|e| format!("open: {e}"))?;
    let batches = reader
        .record_batches(&[], batch_size)
        .map_err(|e| format!("record_batches: {e}"))?;
    let schema = batches.schema();
    let mut out: Vec<RecordBatch> = batches
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("read: {e}"))?;
    if out.is_empty() {
        out.push(RecordBatch::new_empty(schema.clone()));
    }
    Ok((schema, out))
}

fn concat(batches: &[RecordBatch]) -> RecordBatch {
    arrow_select::concat::concat_batches(&batches[0].schema(), batches).unwrap()
}

/// Why parq's batches of `path` differ from the parquet crate's (`None`: equal, or the
/// parquet crate refuses the file).
fn difference(path: &Path, batch_size: usize) -> Option<String> {
    let (expected_schema, expected) = oracle(path, batch_size)?;
    let (schema, got) = match parq_batches(path, batch_size) {
        Ok(b) => b,
        Err(e) => return Some(e),
    };
    if schema.metadata() != expected_schema.metadata() {
        return Some(format!(
            "schema metadata {:?} read as {:?}",
            expected_schema.metadata(),
            schema.metadata()
        ));
    }
    if expected.is_empty() {
        return (got.iter().map(|b| b.num_rows()).sum::<usize>() != 0)
            .then(|| "rows where the parquet crate reads none".into());
    }
    let (e, g) = (concat(&expected), concat(&got));
    if e.schema().fields() != g.schema().fields() {
        for (fe, fg) in e.schema().fields().iter().zip(g.schema().fields()) {
            if fe != fg {
                return Some(format!("field {fe:?} read as {fg:?}"));
            }
        }
        return Some(format!("schema {:?} read as {:?}", e.schema(), g.schema()));
    }
    if e.num_rows() != g.num_rows() {
        return Some(format!("{} rows read as {}", e.num_rows(), g.num_rows()));
    }
    for (i, f) in e.schema().fields().iter().enumerate() {
        if e.column(i).as_ref() != g.column(i).as_ref() {
            return Some(format!("values of {}", f.name()));
        }
    }
    None
}

#[test]
fn record_batches_equal_the_parquet_crate() {
    let known: BTreeMap<&str, &str> = KNOWN.iter().copied().collect();
    let mut failures = Vec::new();
    let mut compared = 0;
    for path in files() {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if name.ends_with(".encrypted") || oracle(&path, 1024).is_none() {
            continue;
        }
        compared += 1;
        // A small batch size too, so that batches end mid-page and mid-row-group.
        let diff = difference(&path, 8192).or_else(|| difference(&path, 7));
        match (diff, known.get(name.as_str())) {
            (None, None) | (Some(_), Some(_)) => {}
            (None, Some(_)) => failures.push(format!("{name}: passes now, drop it from KNOWN")),
            (Some(d), None) => failures.push(format!("{name}: {d}")),
        }
    }
    assert!(compared > 50, "only {compared} files compared");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

