//! A downstream round-trip suite on `parq::testing` (feature `testing`).
//!
//! A crate that has its own Parquet reader (a query engine, another library) checks it against
//! parq's generated files: it implements [`ParquetReadUnderTest`] for its reader and runs
//! proptest over [`file_spec`]. A failure names the column path, the row and both values, and
//! proptest shrinks the spec (fewer, flatter fields, fewer rows) first.
//!
//! Here "their reader" is parq's streaming reader (`array_batches`, batches of 7 records,
//! concatenated), checked against the specs' values; as a test it would be a `#[test]` over
//! `proptest!`. Run: `cargo run --features testing --example roundtrip_suite -- [cases]`.

use arrow_buffer::{OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq::array::{Array, ListArray, ListOffsets, StructArray};
use parq::column::Column;
use parq::read::ParquetReader;
use parq::testing::spec::file_spec;
use parq::testing::{check_roundtrip_with, ParquetReadUnderTest, SpecConfig};
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// The reader under test: every field through `array_batches` in batches of 7 records.
struct BatchedReader;

impl ParquetReadUnderTest for BatchedReader {
    fn name(&self) -> String {
        "array_batches(7)".into()
    }

    fn read(&self, bytes: &[u8]) -> Result<Vec<(String, Array)>, String> {
        let reader =
            ParquetReader::new(Bytes::copy_from_slice(bytes)).map_err(|e| e.to_string())?;
        let fields = reader.fields().map_err(|e| e.to_string())?;
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        let mut parts: Vec<Vec<Array>> = vec![Vec::new(); fields.len()];
        for batch in reader.array_batches(&names, 7).map_err(|e| e.to_string())? {
            let batch = batch.map_err(|e| e.to_string())?;
            for (p, a) in parts.iter_mut().zip(batch.arrays) {
                p.push(a);
            }
        }
        Ok(fields
            .into_iter()
            .zip(parts)
            .map(|(f, p)| (f.name, concat(&p)))
            .collect())
    }
}

/// Concatenate arrays of one field (a downstream reader would have its own).
fn concat(parts: &[Array]) -> Array {
    let Some(first) = parts.first() else {
        return Array::Struct(StructArray {
            len: 0,
            validity: None,
            children: Vec::new(),
        });
    };
    match first {
        Array::Primitive(_) => {
            let cols: Vec<Column> = parts
                .iter()
                .filter_map(|a| a.as_primitive().cloned())
                .collect();
            Array::Primitive(Column::concat(&cols))
        }
        Array::Struct(s) => {
            let len = parts.iter().map(Array::len).sum();
            let validity = validity(parts);
            let children = (0..s.children.len())
                .map(|i| {
                    concat(
                        &parts
                            .iter()
                            .filter_map(|p| match p {
                                Array::Struct(s) => s.children.get(i).cloned(),
                                _ => None,
                            })
                            .collect::<Vec<_>>(),
                    )
                })
                .collect();
            Array::Struct(StructArray {
                len,
                validity,
                children,
            })
        }
        Array::List(_) | Array::Map(_) => {
            let mut offsets = vec![0i64];
            let mut children = Vec::new();
            for p in parts {
                let (Array::List(l) | Array::Map(l)) = p else {
                    continue;
                };
                let n = l.offsets.len();
                if n == 0 {
                    continue;
                }
                let (start, end) = (l.offsets.range(0).start, l.offsets.range(n - 1).end);
                let base = *offsets.last().unwrap_or(&0);
                for i in 0..n {
                    offsets.push(base + (l.offsets.range(i).end - start) as i64);
                }
                children.push(l.values.slice(start, end - start));
            }
            let list = ListArray {
                validity: validity(parts),
                offsets: ListOffsets::Large(OffsetBuffer::new(ScalarBuffer::from(offsets))),
                values: Box::new(concat(&children)),
            };
            if matches!(first, Array::Map(_)) {
                Array::Map(list)
            } else {
                Array::List(list)
            }
        }
    }
}

fn validity(parts: &[Array]) -> Option<arrow_buffer::NullBuffer> {
    let bits: Vec<bool> = parts
        .iter()
        .flat_map(|p| (0..p.len()).map(move |i| p.is_valid(i)))
        .collect();
    bits.iter().any(|b| !b).then(|| bits.into())
}

fn main() {
    let cases = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(256);
    let mut runner = TestRunner::new(Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    });
    let result = runner.run(&file_spec(SpecConfig::default()), |spec| {
        check_roundtrip_with(&BatchedReader, &spec).map_err(|m| TestCaseError::fail(m.to_string()))
    });
    match result {
        Ok(()) => println!("roundtrip_suite: {cases} specs round-trip through array_batches(7)"),
        Err(e) => {
            eprintln!("roundtrip_suite: {e}");
            std::process::exit(1);
        }
    }
}
