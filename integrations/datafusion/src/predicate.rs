//! DataFusion physical expressions as parq predicates, for pruning and row filtering.
//!
//! What maps: comparisons of a file column with a literal of the column's own type (either
//! side), `IN` lists of such literals, `IS [NOT] NULL`, and `AND` / `OR` / `NOT` of those.
//! Literal types: booleans, integers, floats, strings, binary, `Decimal128` and `Date32`.
//! Floats map only where Arrow's total order and parq's IEEE comparison agree (see
//! `comparison`): `=`, `!=`, `<`, `<=` and `IN` with finite non-zero literals.
//! Anything else (casts, functions, partition columns, timestamps whose stored unit may differ
//! from the table's) does not map. Under `AND` at the top, a conjunct that does not map is
//! dropped, which only weakens the predicate: pruning with it still never drops a matching
//! row. Under `OR` or `NOT` nothing may be dropped, so the whole subtree does not map.
//!
//! The scan reports every filter as not pushed down (DataFusion's `Inexact`): parq prunes row
//! groups and pages with the predicate, filters decoded batches with its vectorised part
//! (the opener's `RowFilter`), and DataFusion still filters the rows it returns. The
//! translation only has to keep every row the original keeps.

use std::sync::Arc;

use datafusion::arrow::array::{Array, BooleanArray, RecordBatch, RecordBatchOptions};
use datafusion::arrow::buffer::BooleanBuffer;
use datafusion::arrow::compute::CastOptions;
use datafusion::arrow::datatypes::{DataType, Schema, SchemaRef};
use datafusion::common::exec_datafusion_err;
use datafusion::common::nested_struct::cast_column;
use datafusion::common::ScalarValue;
use datafusion::logical_expr::Operator;
use datafusion::physical_expr::expressions::{
    BinaryExpr, CaseExpr, Column, InListExpr, IsNotNullExpr, IsNullExpr, Literal, NotExpr,
};
use datafusion::physical_expr::utils::{collect_columns, reassign_expr_columns, split_conjunction};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_expr_common::physical_expr::{
    is_volatile, snapshot_generation, snapshot_physical_expr,
};
use parq::predicate::{CmpOp, Expr, Literal as ParqLiteral, RowPredicate};
use parq::schema::SchemaDescriptor;

/// Translate `expr` (over `file_schema`'s columns, by index; columns past it are partition
/// columns) into a parq predicate that every row satisfying `expr` satisfies, if any part of
/// it maps.
pub fn to_parq(expr: &Arc<dyn PhysicalExpr>, file_schema: &Schema) -> Option<Expr> {
    translate(expr, file_schema, false)
}

/// Of `expr`'s top-level conjuncts, those [`to_parq`] cannot say exactly (`LIKE`, casts,
/// functions, two columns compared) over the file's own flat columns, dynamic filters
/// aside, each as a parq [`RowPredicate`] that evaluates the conjunct itself on the decoded
/// columns, so that the decoder reads the other columns only for the rows it keeps.
///
/// A volatile conjunct (`random()`) is left out: the filter above would see other values. A
/// conjunct that fails on a batch keeps every row of it rather than fail the scan: the
/// conjuncts may run in another order than DataFusion's (a guard such as `b != 0 AND a / b >
/// 1` first), and DataFusion's filter above runs it again, and reports a real error itself.
pub fn row_predicates(
    expr: &Arc<dyn PhysicalExpr>,
    file_schema: &Schema,
    parq_schema: &SchemaDescriptor,
) -> Vec<Expr> {
    let fixed = split_conjunction(expr)
        .into_iter()
        .filter(|c| snapshot_generation(c) == 0);
    untranslated(fixed, file_schema, parq_schema)
}

/// Of `expr`'s dynamic filters as they are now, the conjuncts [`to_parq`] cannot say (a
/// hash join's lookup of its keys), each as a [`RowPredicate`] over the file's flat columns:
/// what DataFusion's own reader filters by under `pushdown_filters`, but for a partitioned
/// join's (see below). Unlike [`row_predicates`], these are taken again as the filters
/// tighten.
pub fn dynamic_row_predicates(
    expr: &Arc<dyn PhysicalExpr>,
    file_schema: &Schema,
    parq_schema: &SchemaDescriptor,
) -> Vec<Expr> {
    split_conjunction(expr)
        .into_iter()
        .filter(|c| snapshot_generation(c) != 0)
        .filter_map(|c| snapshot_physical_expr(Arc::clone(c)).ok())
        .flat_map(|now| {
            // A partitioned join's filter is a `CASE` over the partitions' lookups: every
            // row is hashed to find its partition first, which costs the scan more than the
            // rows it drops save.
            let lookups = split_conjunction(&now)
                .into_iter()
                .filter(|c| c.downcast_ref::<CaseExpr>().is_none());
            untranslated(lookups, file_schema, parq_schema)
        })
        .collect()
}

/// Of `conjuncts`, those [`to_parq`] cannot say and that are not volatile, as row
/// predicates where [`row_predicate`] can make one.
fn untranslated<'a>(
    conjuncts: impl Iterator<Item = &'a Arc<dyn PhysicalExpr>>,
    file_schema: &Schema,
    parq_schema: &SchemaDescriptor,
) -> Vec<Expr> {
    conjuncts
        .filter(|c| translate(c, file_schema, true).is_none() && !is_volatile(c))
        .filter_map(|c| row_predicate(c, file_schema, parq_schema))
        .collect()
}

/// `conjunct` as a [`RowPredicate`], when it reads only top-level primitive columns of the
/// file.
fn row_predicate(
    conjunct: &Arc<dyn PhysicalExpr>,
    file_schema: &Schema,
    parq_schema: &SchemaDescriptor,
) -> Option<Expr> {
    let mut columns: Vec<_> = collect_columns(conjunct).into_iter().collect();
    if columns.is_empty() {
        return None;
    }
    columns.sort_by_key(|c| c.index());
    let mut fields = Vec::with_capacity(columns.len());
    for c in &columns {
        // Partition columns come after the file's.
        let field = file_schema.fields().get(c.index())?;
        let leaf = parq_schema.find(field.name())?;
        let leaf = parq_schema.leaf(leaf);
        if leaf.path.len() != 1 || leaf.max_rep_level > 0 {
            return None;
        }
        fields.push(Arc::clone(field));
    }
    let schema = Arc::new(Schema::new(fields));
    let conjunct = reassign_expr_columns(Arc::clone(conjunct), &schema).ok()?;
    let names: Vec<String> = schema.fields().iter().map(|f| f.name().clone()).collect();
    let predicate = RowPredicate::arrow(conjunct.to_string(), names, move |batch| {
        let rows = batch.num_rows();
        let flags = evaluate(&conjunct, &schema, batch)
            .unwrap_or_else(|_| BooleanArray::from(BooleanBuffer::new_set(rows)));
        Ok(flags)
    });
    Some(predicate.into_expr())
}

/// `conjunct` on `batch`, its columns cast to the types of `schema` (the table's) first.
fn evaluate(
    conjunct: &Arc<dyn PhysicalExpr>,
    schema: &SchemaRef,
    batch: &RecordBatch,
) -> datafusion::common::Result<BooleanArray> {
    let columns = batch
        .columns()
        .iter()
        .zip(schema.fields())
        .map(|(a, f)| {
            if a.data_type() == f.data_type() {
                Ok(Arc::clone(a))
            } else {
                cast_column(a, f.data_type(), &CastOptions::default())
            }
        })
        .collect::<datafusion::common::Result<Vec<_>>>()?;
    let batch = RecordBatch::try_new_with_options(
        Arc::clone(schema),
        columns,
        &RecordBatchOptions::new().with_row_count(Some(batch.num_rows())),
    )?;
    let flags = conjunct.evaluate(&batch)?.into_array(batch.num_rows())?;
    flags
        .as_any()
        .downcast_ref::<BooleanArray>()
        .cloned()
        .ok_or_else(|| exec_datafusion_err!("a filter of type {}", flags.data_type()))
}

/// `exact`: the result must be equivalent to `expr` (under `OR` and `NOT`), not only implied
/// by it.
fn translate(expr: &Arc<dyn PhysicalExpr>, schema: &Schema, exact: bool) -> Option<Expr> {
    if let Some(b) = expr.downcast_ref::<BinaryExpr>() {
        return match b.op() {
            Operator::And => {
                let l = translate(b.left(), schema, exact);
                let r = translate(b.right(), schema, exact);
                match (l, r) {
                    (Some(l), Some(r)) => Some(l.and(r)),
                    (l, r) if !exact => l.or(r),
                    _ => None,
                }
            }
            Operator::Or => {
                let l = translate(b.left(), schema, true)?;
                let r = translate(b.right(), schema, true)?;
                Some(l.or(r))
            }
            op => comparison(*op, b.left(), b.right(), schema),
        };
    }
    if let Some(n) = expr.downcast_ref::<NotExpr>() {
        return Some(translate(n.arg(), schema, true)?.not());
    }
    if let Some(n) = expr.downcast_ref::<IsNullExpr>() {
        return Some(Expr::IsNull {
            column: column(n.arg(), schema)?.0,
            negated: false,
        });
    }
    if let Some(n) = expr.downcast_ref::<IsNotNullExpr>() {
        return Some(Expr::IsNull {
            column: column(n.arg(), schema)?.0,
            negated: true,
        });
    }
    if let Some(i) = expr.downcast_ref::<InListExpr>() {
        let (name, dt) = column(i.expr(), schema)?;
        let values = i
            .list()
            .iter()
            .map(|v| literal(v, &dt))
            .collect::<Option<Vec<_>>>()?;
        return Some(Expr::In {
            column: name,
            values,
            negated: i.negated(),
        });
    }
    None
}

/// `left op right` where one side is a file column and the other a literal of its type.
fn comparison(
    op: Operator,
    left: &Arc<dyn PhysicalExpr>,
    right: &Arc<dyn PhysicalExpr>,
    schema: &Schema,
) -> Option<Expr> {
    let op = cmp_op(op)?;
    let (name, value, op) = match column(left, schema) {
        Some((name, dt)) => (name, literal(right, &dt)?, op),
        None => {
            let (name, dt) = column(right, schema)?;
            (name, literal(left, &dt)?, flip(op))
        }
    };
    // Arrow compares floats by IEEE total order (NaN above everything, -0.0 below 0.0), parq
    // as IEEE comparison does: they agree on `=`, `!=`, `<`, `<=` with a finite non-zero
    // literal, which is what maps.
    if matches!(value, ParqLiteral::Float(_)) && matches!(op, CmpOp::Gt | CmpOp::Ge) {
        return None;
    }
    Some(Expr::Cmp {
        column: name,
        op,
        value,
    })
}

fn cmp_op(op: Operator) -> Option<CmpOp> {
    Some(match op {
        Operator::Eq => CmpOp::Eq,
        Operator::NotEq => CmpOp::Ne,
        Operator::Lt => CmpOp::Lt,
        Operator::LtEq => CmpOp::Le,
        Operator::Gt => CmpOp::Gt,
        Operator::GtEq => CmpOp::Ge,
        _ => return None,
    })
}

/// `a op b` as `b flip(op) a`.
fn flip(op: CmpOp) -> CmpOp {
    match op {
        CmpOp::Lt => CmpOp::Gt,
        CmpOp::Le => CmpOp::Ge,
        CmpOp::Gt => CmpOp::Lt,
        CmpOp::Ge => CmpOp::Le,
        same => same,
    }
}

/// A file column: its name (a parq path: names with a dot would read as nested paths, so
/// they do not map) and its table type.
fn column(expr: &Arc<dyn PhysicalExpr>, schema: &Schema) -> Option<(String, DataType)> {
    let c = expr.downcast_ref::<Column>()?;
    let field = schema.fields().get(c.index())?;
    if field.name() != c.name() || c.name().contains('.') {
        return None;
    }
    Some((c.name().to_string(), field.data_type().clone()))
}

/// A non-null literal of exactly the column's type `dt`.
fn literal(expr: &Arc<dyn PhysicalExpr>, dt: &DataType) -> Option<ParqLiteral> {
    let value = expr.downcast_ref::<Literal>()?.value();
    if &value.data_type() != dt {
        return None;
    }
    Some(match value {
        ScalarValue::Boolean(Some(v)) => ParqLiteral::Bool(*v),
        ScalarValue::Int8(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::Int16(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::Int32(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::Int64(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::UInt8(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::UInt16(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::UInt32(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::UInt64(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::Float32(Some(v)) if v.is_finite() && *v != 0.0 => {
            ParqLiteral::Float(*v as f64)
        }
        ScalarValue::Float64(Some(v)) if v.is_finite() && *v != 0.0 => ParqLiteral::Float(*v),
        ScalarValue::Date32(Some(v)) => ParqLiteral::Int(*v as i128),
        ScalarValue::Decimal128(Some(v), _, scale) if *scale >= 0 => ParqLiteral::Decimal {
            unscaled: *v,
            scale: *scale as u32,
        },
        ScalarValue::Utf8(Some(s))
        | ScalarValue::LargeUtf8(Some(s))
        | ScalarValue::Utf8View(Some(s)) => ParqLiteral::String(s.clone()),
        ScalarValue::Binary(Some(b))
        | ScalarValue::LargeBinary(Some(b))
        | ScalarValue::BinaryView(Some(b))
        | ScalarValue::FixedSizeBinary(_, Some(b)) => ParqLiteral::Bytes(b.clone()),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use datafusion::arrow::datatypes::Field;
    use datafusion::physical_expr::expressions::{binary, col, in_list, lit, not};

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new("a", DataType::Int64, true),
            Field::new("s", DataType::Utf8, true),
            Field::new("d", DataType::Date32, true),
        ])
    }

    fn bin(
        l: Arc<dyn PhysicalExpr>,
        op: Operator,
        r: Arc<dyn PhysicalExpr>,
    ) -> Arc<dyn PhysicalExpr> {
        binary(l, op, r, &schema()).unwrap()
    }

    #[test]
    fn comparisons_both_sides_and_in() {
        let s = schema();
        let a = col("a", &s).unwrap();
        let e = bin(lit(5i64), Operator::Lt, Arc::clone(&a));
        assert_eq!(to_parq(&e, &s), Some(parq::predicate::col("a").gt(5)));
        let e = in_list(Arc::clone(&a), vec![lit(1i64), lit(2i64)], &false, &s).unwrap();
        assert_eq!(
            to_parq(&e, &s),
            Some(parq::predicate::col("a").is_in([1, 2]))
        );
        let e = bin(
            col("d", &s).unwrap(),
            Operator::GtEq,
            lit(ScalarValue::Date32(Some(9000))),
        );
        assert_eq!(to_parq(&e, &s), Some(parq::predicate::col("d").ge(9000)));
    }

    #[test]
    fn floats_map_only_where_total_order_and_ieee_agree() {
        let s = Schema::new(vec![Field::new("x", DataType::Float64, true)]);
        let x = col("x", &s).unwrap();
        let cmp = |op, v: f64| to_parq(&binary(Arc::clone(&x), op, lit(v), &s).unwrap(), &s);
        assert_eq!(
            cmp(Operator::Lt, 1.5),
            Some(parq::predicate::col("x").lt(1.5))
        );
        // NaN is above 1.5 in Arrow's order and not in IEEE's; -0.0 is below 0.0 in Arrow's.
        assert_eq!(cmp(Operator::Gt, 1.5), None);
        assert_eq!(cmp(Operator::Lt, 0.0), None);
        assert_eq!(cmp(Operator::Eq, f64::NAN), None);
    }

    #[test]
    fn unmapped_conjuncts_drop_only_outside_or_and_not() {
        let s = schema();
        let a = col("a", &s).unwrap();
        // `a = 1` with a literal of another type does not map.
        let odd = bin(Arc::clone(&a), Operator::Eq, lit(1i32));
        let good = bin(col("s", &s).unwrap(), Operator::Eq, lit("x"));
        let and = bin(Arc::clone(&odd), Operator::And, Arc::clone(&good));
        assert_eq!(to_parq(&and, &s), Some(parq::predicate::col("s").eq("x")));
        let or = bin(Arc::clone(&odd), Operator::Or, Arc::clone(&good));
        assert_eq!(to_parq(&or, &s), None);
        let negated = not(Arc::clone(&and)).unwrap();
        assert_eq!(to_parq(&negated, &s), None);
    }
}
