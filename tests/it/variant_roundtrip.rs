//! Variants written by parq (unshredded, under random shredding schemas and under schemas
//! inferred from the rows) read back equal, row by row, compared as `Variant` values.

use bytes::Bytes;
use parq::read::ParquetReader;
use parq::testing::variant::{shredded_rows, shredding, variant_rows};
use parq::variant::{
    infer_shredding, shred, variant_field, variant_writer, Shredding, Variant, VariantArray,
};
use parq::write::WriterOptions;
use proptest::prelude::*;

fn write(rows: &[Option<Variant>], schema: &Shredding, options: WriterOptions) -> Bytes {
    let variants = VariantArray::from_variants(rows).unwrap();
    let array = shred(&variants, schema).unwrap();
    let mut file = Vec::new();
    let mut w = variant_writer(
        &mut file,
        vec![variant_field("var", schema)],
        &["var"],
        options,
    )
    .unwrap();
    w.write_arrays(&[array]).unwrap();
    w.finish().unwrap();
    Bytes::from(file)
}

fn read(file: Bytes) -> Vec<Option<Variant>> {
    let reader = ParquetReader::new(file).unwrap();
    assert_eq!(reader.variant_fields(), ["var"]);
    let back = reader.read_variant("var").unwrap();
    (0..back.len())
        .map(|i| back.get(i).map(|v| v.unwrap().to_owned_variant().unwrap()))
        .collect()
}

fn small_pages() -> WriterOptions {
    WriterOptions::default()
        .with_data_page_size(64)
        .with_row_group_rows(7)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn unshredded_and_random_schemas_round_trip(rows in variant_rows(40), schema in shredding()) {
        for s in [Shredding::Unshredded, schema] {
            prop_assert_eq!(read(write(&rows, &s, WriterOptions::default())), rows.clone());
        }
    }

    #[test]
    fn batches_read_the_rows_of_the_whole_column((schema, rows) in shredded_rows(40), batch in 1..9usize) {
        let file = write(&rows, &schema, small_pages());
        let reader = ParquetReader::new(file.clone()).unwrap();
        let mut back = Vec::new();
        for b in reader.variant_batches("var", batch).unwrap() {
            let b = b.unwrap();
            prop_assert!(b.len() <= batch);
            back.extend((0..b.len()).map(|i| b.get(i).map(|v| v.unwrap().to_owned_variant().unwrap())));
        }
        prop_assert_eq!(back, read(file));
    }

    #[test]
    fn rows_that_fit_their_schema_round_trip((schema, rows) in shredded_rows(40)) {
        prop_assert_eq!(read(write(&rows, &schema, small_pages())), rows.clone());
        let inferred = infer_shredding(&VariantArray::from_variants(&rows).unwrap()).unwrap();
        prop_assert_eq!(read(write(&rows, &inferred, WriterOptions::default())), rows);
    }
}

/// The shredded columns really hold the values: a typed leaf of the schema has values, and
/// the `value` column of a fully fitting row is null.
#[test]
fn fitting_values_land_in_typed_columns() {
    use parq::variant::ShreddedType;
    let rows: Vec<Option<Variant>> = (0..10)
        .map(|i| {
            Some(Variant::Object(
                [
                    ("a".to_string(), Variant::Int64(i)),
                    ("b".to_string(), Variant::String(format!("s{i}"))),
                ]
                .into(),
            ))
        })
        .collect();
    let schema = infer_shredding(&VariantArray::from_variants(&rows).unwrap()).unwrap();
    assert_eq!(
        schema,
        Shredding::Object(vec![
            ("a".into(), Shredding::Primitive(ShreddedType::Int64)),
            ("b".into(), Shredding::Primitive(ShreddedType::String)),
        ])
    );
    let file = write(&rows, &schema, WriterOptions::default());
    let reader = ParquetReader::new(file.clone()).unwrap();
    // A projected leaf comes back under its ancestors, each a struct of one child.
    let leaf = |path: &str| {
        let (_, mut a) = reader.read_field_by_path(path).unwrap();
        while let parq::array::Array::Struct(s) = a {
            a = s.children.into_iter().next().unwrap();
        }
        a
    };
    assert_eq!(leaf("var.typed_value.a.typed_value").null_count(), 0);
    assert_eq!(leaf("var.typed_value.b.typed_value").null_count(), 0);
    assert_eq!(
        leaf("var.value").null_count(),
        10,
        "fully shredded objects leave value null"
    );
    assert_eq!(leaf("var.typed_value.a.value").null_count(), 10);
    assert_eq!(read(file), rows);
}

/// `v` with nanosecond timestamps that are whole microseconds as microsecond timestamps (the
/// same Variant equivalence class): arrow-rs rebuilds a shredded nanosecond timestamp so.
fn micros_where_exact(v: &Variant) -> Variant {
    match v {
        Variant::TimestampNanos(n) if n % 1000 == 0 => Variant::TimestampMicros(n / 1000),
        Variant::TimestampNtzNanos(n) if n % 1000 == 0 => Variant::TimestampNtzMicros(n / 1000),
        Variant::Object(f) => Variant::Object(
            f.iter()
                .map(|(k, v)| (k.clone(), micros_where_exact(v)))
                .collect(),
        ),
        Variant::Array(e) => Variant::Array(e.iter().map(micros_where_exact).collect()),
        v => v.clone(),
    }
}

/// The parquet crate (arrow-rs, `variant_experimental`) reads parq's shredded files: it
/// rebuilds each row from the typed columns parq wrote, and parq decodes its bytes back to
/// the rows written (up to [`micros_where_exact`] where the schema shreds timestamps).
#[test]
fn the_parquet_crate_reads_parqs_shredded_variants() {
    use arrow_array::cast::AsArray;
    use arrow_array::Array as _;
    use parq::testing::variant::variant_like;
    use parq::testing::{Entropy, Rng};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
    fn bytes_at(a: &dyn arrow_array::Array, i: usize) -> &[u8] {
        match a.data_type() {
            arrow_schema::DataType::Binary => a.as_binary::<i32>().value(i),
            arrow_schema::DataType::LargeBinary => a.as_binary::<i64>().value(i),
            _ => a.as_binary_view().value(i),
        }
    }
    let mut rng = Rng::new(7);
    let mut checked = 0;
    for round in 0..40 {
        let schema = parq::testing::variant::random_shredding(&mut rng, 3);
        let rows: Vec<Option<Variant>> = (0..30)
            .map(|_| (!rng.chance(0.1)).then(|| variant_like(&mut rng, &schema)))
            .collect();
        let file = write(&rows, &schema, WriterOptions::default());
        let mut reader = ParquetRecordBatchReaderBuilder::try_new(file)
            .unwrap()
            .build()
            .unwrap();
        let batch = reader.next().unwrap().unwrap();
        let theirs = parquet_variant_compute::VariantArray::try_new(batch.column(0).as_ref())
            .unwrap_or_else(|e| panic!("round {round} {schema:?}: {e}"));
        let flat = match parquet_variant_compute::unshred_variant(&theirs) {
            Ok(flat) => flat,
            // arrow-rs goes through chrono, whose dates end near year 262 000: timestamps
            // out there are valid Variant values it cannot rebuild.
            Err(e) if e.to_string().contains("microsecond") => continue,
            Err(e) => panic!("round {round} {schema:?}: {e}"),
        };
        let inner = flat.inner();
        let (m, v) = (
            inner.column_by_name("metadata").unwrap(),
            inner.column_by_name("value").unwrap(),
        );
        for (i, want) in rows.iter().enumerate() {
            let got = (!inner.is_null(i)).then(|| {
                Variant::decode(bytes_at(m.as_ref(), i), bytes_at(v.as_ref(), i)).unwrap()
            });
            let got = got.as_ref().map(micros_where_exact);
            let want = want.as_ref().map(micros_where_exact);
            assert_eq!(got, want, "round {round}, row {i}, schema {schema:?}");
        }
        checked += 1;
    }
    assert!(checked >= 25, "arrow-rs rebuilt only {checked} of 40 files");
}

/// The value of `row` at `path`, walking objects (the oracle of `read_variant_path`).
fn at_path(row: &Option<Variant>, path: &[&str]) -> Option<Variant> {
    let mut v = row.as_ref()?;
    for name in path {
        match v {
            Variant::Object(fields) => v = fields.get(*name)?,
            _ => return None,
        }
    }
    Some(v.clone())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A path read through its leaves alone gives what walking the whole rows gives.
    #[test]
    fn shredded_paths_read_alone((schema, rows) in shredded_rows(40), first in 0..6usize, second in 0..7usize) {
        let file = write(&rows, &schema, small_pages());
        let reader = ParquetReader::new(file).unwrap();
        let names = parq::testing::variant::NAMES;
        let mut path = vec![names[first]];
        if second < names.len() {
            path.push(names[second]);
        }
        let got = reader.read_variant_path("var", &path.join(".")).unwrap();
        prop_assert_eq!(got.len(), rows.len());
        for (i, row) in rows.iter().enumerate() {
            let g = got.get(i).map(|v| v.unwrap().to_owned_variant().unwrap());
            prop_assert_eq!(g, at_path(row, &path), "row {} path {:?}", i, path);
        }
    }
}

/// Only the path's leaves are read: the other shredded fields' columns are not.
#[test]
fn a_path_reads_only_its_leaves() {
    use parq::variant::ShreddedType;
    let schema = Shredding::Object(vec![
        ("a".into(), Shredding::Primitive(ShreddedType::Int64)),
        (
            "b".into(),
            Shredding::Object(vec![(
                "c".into(),
                Shredding::Primitive(ShreddedType::String),
            )]),
        ),
    ]);
    let rows = vec![Some(Variant::Object(
        [
            ("a".to_string(), Variant::Int64(1)),
            (
                "b".to_string(),
                Variant::Object([("c".to_string(), Variant::String("x".into()))].into()),
            ),
        ]
        .into(),
    ))];
    let reader = ParquetReader::new(write(&rows, &schema, WriterOptions::default())).unwrap();
    assert_eq!(
        reader.variant_path_leaves("var", "b.c").unwrap(),
        [
            "var.metadata",
            "var.value",
            "var.typed_value.b.value",
            "var.typed_value.b.typed_value.c.value",
            "var.typed_value.b.typed_value.c.typed_value",
        ]
    );
    assert_eq!(
        reader.variant_path_leaves("var", "a").unwrap(),
        [
            "var.metadata",
            "var.value",
            "var.typed_value.a.value",
            "var.typed_value.a.typed_value"
        ]
    );
    // Not shredded: only the value columns on the way.
    assert_eq!(
        reader.variant_path_leaves("var", "z.y").unwrap(),
        ["var.metadata", "var.value"]
    );
    let c = reader.read_variant_path("var", "b.c").unwrap();
    assert_eq!(
        c.get(0).unwrap().unwrap().to_owned_variant().unwrap(),
        Variant::String("x".into())
    );
}
