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
    WriterOptions {
        data_page_size: 64,
        row_group_rows: 7,
        ..WriterOptions::default()
    }
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
