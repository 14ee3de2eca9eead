//! VARIANT columns as the Arrow extension type `arrow.parquet.variant`: read (unshredded and
//! rebuilt from shredding), written by `ArrowWriter`, and the shredded leaves still readable.

use crate::python;
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::{Array as _, ArrayRef, Int32Array, RecordBatch, RecordBatchReader};
use bytes::Bytes;
use parq::arrow::{is_variant_field, variant_to_arrow, ArrowWriter};
use parq::read::ParquetReader;
use parq::variant::{Variant, VariantArray};

fn case(name: &str) -> Bytes {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("testdata/parquet-testing/shredded_variant");
    Bytes::from(std::fs::read(dir.join(name)).unwrap())
}

/// The rows of an `arrow.parquet.variant` column, decoded.
fn rows(a: &ArrayRef) -> Vec<Option<Variant>> {
    let s = a.as_struct();
    let (m, v) = (
        s.column(0).as_binary::<i64>(),
        s.column(1).as_binary::<i64>(),
    );
    (0..s.len())
        .map(|i| (!s.is_null(i)).then(|| Variant::decode(m.value(i), v.value(i)).unwrap()))
        .collect()
}

#[test]
fn shredded_variants_read_as_the_extension_type() {
    let reader = ParquetReader::new(case("case-083.parquet")).unwrap();
    let mut batches = reader
        .record_batches(parq::read::EVERY_FIELD, 1024)
        .unwrap();
    let field = batches.schema().field(1).clone();
    assert!(is_variant_field(&field), "{field:?}");
    let batch = batches.next().unwrap().unwrap();
    let got = rows(batch.column(1));
    let want = reader.read_variant("var").unwrap();
    assert_eq!(got.len(), 4);
    assert_eq!(got[0], None);
    for (i, g) in got.iter().enumerate() {
        let w = want.get(i).map(|v| v.unwrap().to_owned_variant().unwrap());
        assert_eq!(g, &w, "row {i}");
    }
    // A projected shredded leaf is the plain struct tree, not a variant.
    let mut leaf = reader
        .record_batches(&["var.typed_value.d.typed_value"], 1024)
        .unwrap();
    assert!(!is_variant_field(leaf.schema().field(0)));
    let b = leaf.next().unwrap().unwrap();
    assert_eq!(b.num_rows(), 4);
}

#[test]
fn arrow_writer_writes_the_extension_type_as_variant() {
    let variants = VariantArray::from_variants(&[
        Some(Variant::Object(
            [("a".to_string(), Variant::Int32(1))].into(),
        )),
        None,
        Some(Variant::String("x".into())),
    ])
    .unwrap();
    let storage = variant_to_arrow(&variants).unwrap();
    let schema = Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("id", arrow_schema::DataType::Int32, false),
        parq::arrow::variant_arrow_field(&arrow_schema::Field::new(
            "var",
            storage.data_type().clone(),
            true,
        )),
    ]));
    let batch = RecordBatch::try_new(
        schema.clone(),
        vec![Arc::new(Int32Array::from(vec![1, 2, 3])), storage],
    )
    .unwrap();
    let mut w = ArrowWriter::try_new(Vec::new(), schema, Default::default()).unwrap();
    w.write(&batch).unwrap();
    let file = Bytes::from(w.into_inner().unwrap());
    let reader = ParquetReader::new(file.clone()).unwrap();
    assert_eq!(reader.variant_fields(), ["var"], "annotated VARIANT");
    let back = reader
        .record_batches(parq::read::EVERY_FIELD, 1024)
        .unwrap()
        .next()
        .unwrap()
        .unwrap();
    assert_eq!(back.schema(), batch.schema());
    assert_eq!(rows(back.column(1)), rows(batch.column(1)));
    python::require_python!("pyarrow");
    // pyarrow sees the VARIANT annotation too (it reads the storage struct).
    let dir = std::env::temp_dir().join(format!("parq-variant-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("v.parquet");
    std::fs::write(&path, &file).unwrap();
    let out = std::process::Command::new("python3")
        .args([
            "-c",
            "import sys, pyarrow.parquet as pq; f = pq.ParquetFile(sys.argv[1]); \
             print(f.schema, f.read().num_rows)",
        ])
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("var (Variant(1))"), "{text}");
    assert!(text.trim_end().ends_with(" 3"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
