//! Spark 4 reads parq's variant files: unshredded, under an inferred shredding schema, under
//! random schemas (rows that do not fit go to `value`), and rows that fit their schema
//! exactly. Spark's `to_json` of every row must equal parq's JSON of the value written
//! (compared as parsed JSON values). Needs `pyspark` (4.x) and Java 17;
//! skipped without pyspark, except under `PARQ_REQUIRE_ORACLES=1` (CI), where that fails.
//!
//! Spark's JVM takes 20–40 s to start, so every file goes through one Spark session.

use crate::python;
use std::path::PathBuf;
use std::process::Command;

use parq::array::Array;
use parq::column::{Column, Values};
use parq::field::Field;
use parq::metadata::Type;
use parq::testing::variant::{random_shredding, random_variant, variant_like};
use parq::testing::Rng;
use parq::variant::{
    infer_shredding, shred, variant_field, variant_writer, ShreddedType, Shredding, Variant,
    VariantArray,
};
use parq::write::WriterOptions;

fn write(path: &PathBuf, rows: &[Option<Variant>], schema: &Shredding) {
    let variants = VariantArray::from_variants(rows).unwrap();
    let ids = Column {
        len: rows.len(),
        validity: None,
        values: Values::Int64((0..rows.len() as i64).collect::<Vec<_>>().into()),
    };
    let mut file = Vec::new();
    let options = WriterOptions::default().with_row_group_rows(37);
    let fields = vec![
        Field::primitive("id", Type::INT64).required(),
        variant_field("var", schema),
    ];
    let mut w = variant_writer(&mut file, fields, &["var"], options).unwrap();
    w.write_arrays(&[Array::Primitive(ids), shred(&variants, schema).unwrap()])
        .unwrap();
    w.finish().unwrap();
    std::fs::write(path, file).unwrap();
}

/// `v` with the primitive types Spark 4 does not know (TIME, the nanosecond timestamps and
/// UUID, ids 17–20 of `VariantEncoding.md`: Spark fails with
/// `UNKNOWN_PRIMITIVE_TYPE_IN_VARIANT`) replaced by strings.
fn spark_known(v: Variant) -> Variant {
    match v {
        Variant::TimeMicros(x) => Variant::String(format!("time {x}")),
        Variant::TimestampNanos(x) | Variant::TimestampNtzNanos(x) => {
            Variant::String(format!("nanos {x}"))
        }
        Variant::Uuid(u) => Variant::String(format!("uuid {u:?}")),
        Variant::Object(fields) => Variant::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k, spark_known(v)))
                .collect(),
        ),
        Variant::Array(items) => Variant::Array(items.into_iter().map(spark_known).collect()),
        v => v,
    }
}

/// `s` with the shredded types of those primitives shredded as strings instead.
fn spark_known_schema(s: Shredding) -> Shredding {
    match s {
        Shredding::Primitive(
            ShreddedType::Time | ShreddedType::Uuid | ShreddedType::Timestamp { nanos: true, .. },
        ) => Shredding::Primitive(ShreddedType::String),
        Shredding::Object(fields) => Shredding::Object(
            fields
                .into_iter()
                .map(|(k, v)| (k, spark_known_schema(v)))
                .collect(),
        ),
        Shredding::Array(e) => Shredding::Array(Box::new(spark_known_schema(*e))),
        s => s,
    }
}

fn json_string(s: &str) -> String {
    let mut out = String::new();
    parq::variant::json_string(&mut out, s);
    out
}

#[test]
fn spark_reads_parq_variants() {
    python::require_python!("pyspark");
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("variant_spark_{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::new(18);
    let random_rows = |rng: &mut Rng, n: usize| -> Vec<Option<Variant>> {
        (0..n)
            .map(|i| (i % 11 != 5).then(|| spark_known(random_variant(rng, 3))))
            .collect()
    };
    let mut cases: Vec<(String, Vec<Option<Variant>>, Shredding)> = Vec::new();
    let rows = random_rows(&mut rng, 200);
    cases.push(("unshredded".into(), rows.clone(), Shredding::Unshredded));
    let inferred = infer_shredding(&VariantArray::from_variants(&rows).unwrap()).unwrap();
    cases.push(("inferred".into(), rows.clone(), inferred));
    for k in 0..4 {
        let schema = spark_known_schema(random_shredding(&mut rng, 3));
        cases.push((format!("random_{k}"), rows.clone(), schema.clone()));
        // Rows shaped like the schema: most of each value lands in typed columns.
        let fitting: Vec<Option<Variant>> = (0..120)
            .map(|i| (i % 13 != 7).then(|| spark_known(variant_like(&mut rng, &schema))))
            .collect();
        cases.push((format!("fitting_{k}"), fitting, schema));
    }
    let mut spec = String::from("[");
    for (i, (name, rows, schema)) in cases.iter().enumerate() {
        let path = dir.join(format!("{name}.parquet"));
        write(&path, rows, schema);
        if i > 0 {
            spec.push(',');
        }
        spec.push_str(&format!(
            "{{\"file\":{},\"expected\":[",
            json_string(path.to_str().unwrap())
        ));
        for (j, r) in rows.iter().enumerate() {
            if j > 0 {
                spec.push(',');
            }
            match r {
                Some(v) => spec.push_str(&json_string(&v.to_json().unwrap())),
                None => spec.push_str("null"),
            }
        }
        spec.push_str("]}");
    }
    spec.push(']');
    let spec_path = dir.join("cases.json");
    std::fs::write(&spec_path, spec).unwrap();
    let script =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/it/support_spark/read_variants.py");
    let out = Command::new("python3")
        .arg(&script)
        .arg(&spec_path)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "Spark disagrees with parq (pyspark 4 and Java 17 are required: \
         python3 -m pip install pyspark):\n{stdout}\n{}",
        stderr.lines().rev().take(30).collect::<Vec<_>>().join("\n")
    );
    assert_eq!(
        stdout.lines().filter(|l| l.starts_with("ok ")).count(),
        cases.len(),
        "{stdout}"
    );
}
