//! Predicates on shredded variant paths (`var.a.b > 1000`): row groups are pruned by the
//! statistics of the `typed_value` leaf only when no row's value at the path sits in a
//! `value` column, and rows are filtered exactly on the rebuilt values.

use bytes::Bytes;
use parq::array::Array;
use parq::codecs::probe;
use parq::column::{Column, Values};
use parq::field::Field;
use parq::metadata::Type;
use parq::predicate::{col, Expr};
use parq::read::ParquetReader;
use parq::variant::{
    shred, variant_field, variant_writer, ShreddedType, Shredding, Variant, VariantArray,
};
use parq::write::WriterOptions;

fn obj(fields: Vec<(&str, Variant)>) -> Variant {
    Variant::Object(
        fields
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

fn ab(b: Variant) -> Variant {
    obj(vec![("a", obj(vec![("b", b)]))])
}

/// `rows` (and an `id` column 0, 1, ...) in row groups of `row_group_rows`, `var` shredded as
/// `{a: {b: int32}}`.
fn ab_file(rows: &[Option<Variant>], row_group_rows: usize) -> Bytes {
    let schema = Shredding::Object(vec![(
        "a".into(),
        Shredding::Object(vec![(
            "b".into(),
            Shredding::Primitive(ShreddedType::Int32),
        )]),
    )]);
    let variants = VariantArray::from_variants(rows).unwrap();
    let ids = Column {
        len: rows.len(),
        validity: None,
        values: Values::Int64((0..rows.len() as i64).collect::<Vec<_>>().into()),
    };
    let mut out = Vec::new();
    let fields = vec![
        Field::primitive("id", Type::INT64).required(),
        variant_field("var", &schema),
    ];
    let options = WriterOptions::default().with_row_group_rows(row_group_rows);
    let mut w = variant_writer(&mut out, fields, &["var"], options).unwrap();
    w.write_arrays(&[Array::Primitive(ids), shred(&variants, &schema).unwrap()])
        .unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

/// 4 row groups of 10 rows, `var` shredded as `{a: {b: int32}}`:
/// 0. b = 0..9, all typed;
/// 1. b = 0..8 typed, row 19 b = 10^12 (an INT64 that does not fit: in `b.value`);
/// 2. b = 2000..2009, all typed;
/// 3. rows 30..34 typed 0..4, row 35 a non-object variant (in `var.value`), row 36 `a` a
///    string (in `a.value`), rows 37..39 null.
fn file() -> Bytes {
    let mut rows: Vec<Option<Variant>> = Vec::new();
    rows.extend((0..10).map(|i| Some(ab(Variant::Int32(i)))));
    rows.extend((0..9).map(|i| Some(ab(Variant::Int32(i)))));
    rows.push(Some(ab(Variant::Int64(1_000_000_000_000))));
    rows.extend((2000..2010).map(|i| Some(ab(Variant::Int32(i)))));
    rows.extend((0..5).map(|i| Some(ab(Variant::Int32(i)))));
    rows.push(Some(Variant::String("not an object".into())));
    rows.push(Some(obj(vec![("a", Variant::String("x".into()))])));
    rows.extend([None, None, None]);
    ab_file(&rows, 10)
}

fn matching(reader: &ParquetReader<Bytes>, expr: &Expr) -> (Vec<u64>, usize) {
    probe::reset();
    let (rows, stats) = reader.filter_rows(expr).unwrap();
    if probe::ENABLED {
        assert_eq!(
            probe::get("predicate.row_group_pruned_by_statistics") as usize,
            stats.pruned_by_statistics
        );
    }
    let rows = rows.ranges().iter().flat_map(|r| r.clone()).collect();
    (rows, stats.pruned_by_statistics)
}

#[test]
fn groups_with_unshredded_values_at_the_path_are_kept() {
    let reader = ParquetReader::new(file()).unwrap();
    // The file is shaped as the test says: the big INT64 and the odd rows are in `value`.
    let nulls = |rg: usize, path: &str| {
        let c = reader.schema().find(path).unwrap();
        let m = reader.metadata().row_groups[rg].columns[c]
            .meta_data
            .clone()
            .unwrap();
        (m.statistics.unwrap().null_count.unwrap(), m.num_values)
    };
    assert_eq!(nulls(1, "var.typed_value.a.typed_value.b.value"), (9, 10));
    assert_eq!(nulls(3, "var.value").0, 9);
    assert_eq!(nulls(3, "var.typed_value.a.value").0, 9);
    assert_eq!(nulls(2, "var.typed_value.a.typed_value.b.value"), (10, 10));

    // Typed statistics alone would prune groups 0, 1 and 3; only 0 may go.
    let (rows, pruned) = matching(&reader, &Expr::parse("var.a.b > 1000").unwrap());
    assert_eq!(pruned, 1);
    assert_eq!(rows, [19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29]);
    // Group 2 (2000..2009, all typed) is pruned; group 3 holds matches in typed rows.
    let (rows, pruned) = matching(&reader, &col("var.a.b").lt(3));
    assert_eq!(pruned, 1);
    assert_eq!(rows, [0, 1, 2, 10, 11, 12, 30, 31, 32]);
    let (rows, _) = matching(&reader, &Expr::parse("var.a.b in (7, 2005)").unwrap());
    assert_eq!(rows, [7, 17, 25]);
    // NOT: the missing and non-integer rows are unknown, not matches.
    let (rows, _) = matching(&reader, &Expr::parse("not var.a.b >= 3").unwrap());
    assert_eq!(rows, [0, 1, 2, 10, 11, 12, 30, 31, 32]);
    // The footer alone prunes the same way.
    let kept = Expr::parse("var.a.b > 1000")
        .unwrap()
        .row_groups_by_statistics(reader.metadata(), reader.schema())
        .unwrap();
    assert_eq!(kept, [1, 2, 3]);
    // Combined with a plain column.
    let (rows, _) = matching(&reader, &Expr::parse("var.a.b > 1000 and id < 21").unwrap());
    assert_eq!(rows, [19, 20]);
}

#[test]
fn unsupported_variant_predicates_are_errors() {
    let reader = ParquetReader::new(file()).unwrap();
    for (expr, what) in [
        ("var.a.c > 1", "not shredded"),
        ("var.a > 1", "not shredded"),
        (
            "var.a.b intersects box(0, 0, 1, 1)",
            "GEOMETRY or GEOGRAPHY",
        ),
        ("var.a.b = 'x'", "column var.a.b"),
    ] {
        let e = reader
            .filter_rows(&Expr::parse(expr).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains(what), "{expr}: {e}");
    }
}

/// `a` partially shredded (a field outside the schema stays in `a.value`): statistics cannot
/// tell that `b` is not in there, so nothing is pruned, and the rows are still exact.
#[test]
fn partially_shredded_objects_on_the_path_block_pruning() {
    let rows: Vec<Option<Variant>> = (0..20)
        .map(|i| {
            Some(obj(vec![(
                "a",
                obj(vec![("b", Variant::Int32(i)), ("z", Variant::Null)]),
            )]))
        })
        .collect();
    let schema = Shredding::Object(vec![(
        "a".into(),
        Shredding::Object(vec![(
            "b".into(),
            Shredding::Primitive(ShreddedType::Int32),
        )]),
    )]);
    let variants = VariantArray::from_variants(&rows).unwrap();
    let mut out = Vec::new();
    let options = WriterOptions::default().with_row_group_rows(10);
    let mut w = variant_writer(
        &mut out,
        vec![variant_field("var", &schema)],
        &["var"],
        options,
    )
    .unwrap();
    w.write_arrays(&[shred(&variants, &schema).unwrap()])
        .unwrap();
    w.finish().unwrap();
    let reader = ParquetReader::new(Bytes::from(out)).unwrap();
    let (rows, pruned) = matching(&reader, &col("var.a.b").ge(15));
    assert_eq!(pruned, 0);
    assert_eq!(rows, [15, 16, 17, 18, 19]);
}

/// `IS [NOT] NULL` on a path: null where a row has no value there (a variant null is a
/// value). 4 row groups of 5 rows, `var` shredded as `{a: {b: int32}}`:
/// 0. b = 0..4, all typed: `IS NULL` prunes it;
/// 1. two null variants, three `{a: {}}`: no value anywhere, `IS NOT NULL` prunes it;
/// 2. b strings, in `b.value`: the typed leaf is all null, yet every row has a value;
/// 3. b a variant null, a string variant (in `var.value`), `a` a string (in `a.value`),
///    b = 7, a null variant.
#[test]
fn is_null_on_a_path_prunes_only_where_the_typed_leaf_decides() {
    let mut rows: Vec<Option<Variant>> = (0..5).map(|i| Some(ab(Variant::Int32(i)))).collect();
    rows.extend([None, None]);
    rows.extend((0..3).map(|_| Some(obj(vec![("a", obj(vec![]))]))));
    rows.extend((0..5).map(|i| Some(ab(Variant::String(format!("s{i}"))))));
    rows.extend([
        Some(ab(Variant::Null)),
        Some(Variant::String("not an object".into())),
        Some(obj(vec![("a", Variant::String("x".into()))])),
        Some(ab(Variant::Int32(7))),
        None,
    ]);
    let reader = ParquetReader::new(ab_file(&rows, 5)).unwrap();
    // The file is shaped as the test says.
    let nulls = |rg: usize, path: &str| {
        let c = reader.schema().find(path).unwrap();
        let m = reader.metadata().row_groups[rg].columns[c]
            .meta_data
            .clone()
            .unwrap();
        m.statistics.unwrap().null_count.unwrap()
    };
    let typed = "var.typed_value.a.typed_value.b.typed_value";
    let values = [
        "var.value",
        "var.typed_value.a.value",
        "var.typed_value.a.typed_value.b.value",
    ];
    assert_eq!(nulls(0, typed), 0);
    for rg in [0, 1] {
        assert!(values.iter().all(|v| nulls(rg, v) == 5), "group {rg}");
    }
    assert_eq!(
        (nulls(1, typed), nulls(2, typed), nulls(2, values[2])),
        (5, 5, 0)
    );

    let (rows, pruned) = matching(&reader, &Expr::parse("var.a.b is null").unwrap());
    assert_eq!(rows, [5, 6, 7, 8, 9, 16, 17, 19]);
    assert_eq!(pruned, 1, "group 0");
    let (rows, pruned) = matching(&reader, &Expr::parse("var.a.b is not null").unwrap());
    assert_eq!(rows, [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 18]);
    assert_eq!(pruned, 1, "group 1 only: group 2's values are in b.value");
    let (rows, _) = matching(&reader, &Expr::parse("not var.a.b is null").unwrap());
    assert_eq!(rows, [0, 1, 2, 3, 4, 10, 11, 12, 13, 14, 15, 18]);
    // Combined with a comparison on the same path: a variant null is not a number.
    let (rows, _) = matching(
        &reader,
        &Expr::parse("var.a.b is not null and not var.a.b > 3").unwrap(),
    );
    assert_eq!(rows, [0, 1, 2, 3]);
    let kept = Expr::parse("var.a.b is not null")
        .unwrap()
        .row_groups_by_statistics(reader.metadata(), reader.schema())
        .unwrap();
    assert_eq!(kept, [0, 2, 3]);
}
