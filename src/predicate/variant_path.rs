//! Predicates on shredded variant paths: `var.a.b > 5`, where `var` is a top-level VARIANT
//! column and `a.b` a path of object fields inside it.
//!
//! **Where the path must be shredded.** The path has to end in a primitive `typed_value`
//! leaf (`var.typed_value.a.typed_value.b.typed_value`): its type gives the comparison's
//! type, and its statistics prune. A path that is not shredded that far is an error.
//!
//! **What a row holds there.** The variant value at the path, rebuilt from `value` and
//! `typed_value` at every level; a row without it (a missing field, a non-object on the way, a
//! null variant) is null there. The value compares when it has the kind of the typed leaf:
//! any integer width with an integer literal, FLOAT or DOUBLE with a number, a string with a
//! string, a boolean with a boolean. A value of another kind is unknown (null).
//!
//! **`IS NULL`.** `var.a.b IS NULL` holds where the row has no value at the path, as above;
//! a variant null there (JSON `null`) is a value, so `IS NOT NULL` holds for it (Spark's
//! `IS NULL` on a variant path behaves the same; its `is_variant_null` is the other test).
//!
//! **Pruning, never wrong.** A row's value at the path may sit in a `value` (binary) column
//! instead of `typed_value`: at the top (`var.value`, for a row that is not a shredded
//! object), at each level on the way (`var.typed_value.a.value`), or at the end
//! (`….b.value`, a value of another type than the leaf's). Statistics of the typed leaf say
//! nothing about those rows, so a row group is pruned by the typed leaf's statistics only
//! when every one of those `value` columns is null in every row of the group (their chunk
//! null count equals their value count). Then a row has a value at the path exactly where
//! the typed leaf is not null, so `IS NULL` prunes a group whose typed leaf has no nulls
//! and `IS NOT NULL` one whose typed leaf is all nulls. Page indexes, bloom filters and dictionaries of the
//! typed leaf are not used for the same reason. A partially shredded object on the way
//! (`a` with fields outside the shredding schema, kept in `a.value`) therefore blocks
//! pruning too: from statistics alone, such a `value` cannot be told from a whole object
//! stored there.

use std::cmp::Ordering;

use arrow_buffer::BooleanBuffer;

use super::literal::Scalar;
use super::{CmpOp, Test};
use crate::metadata::{ColumnChunk, LogicalType};
use crate::schema::SchemaDescriptor;
use crate::variant::{VariantArray, VariantRef};
use crate::{Error, Result};

/// A predicate leaf read through a variant path.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VariantPath {
    /// The top-level VARIANT column.
    pub group: String,
    /// The object path inside it (`a.b`).
    pub path: String,
    /// Leaf indexes of the `value` columns where a row's value at the path may sit.
    pub value_columns: Vec<usize>,
}

impl VariantPath {
    /// `var.a.b`.
    pub(crate) fn dotted(&self) -> String {
        format!("{}.{}", self.group, self.path)
    }
}

/// Resolve `dotted` (`var.a.b`) to its typed leaf when it names a path inside a top-level
/// VARIANT column; `None` when it does not start with one.
pub(crate) fn resolve(
    schema: &SchemaDescriptor,
    dotted: &str,
) -> Result<Option<(usize, VariantPath)>> {
    let Some((group, path)) = dotted.split_once('.') else {
        return Ok(None);
    };
    let is_variant = schema.top_level_fields().iter().any(|n| {
        n.name == group
            && matches!(
                schema.elements()[n.schema_index].logical_type,
                Some(LogicalType::Variant { .. })
            )
    });
    if !is_variant {
        return Ok(None);
    }
    let mut at = group.to_string();
    let mut value_columns = Vec::new();
    for segment in path.split('.') {
        value_columns.extend(schema.find(&format!("{at}.value")));
        at = format!("{at}.typed_value.{segment}");
    }
    value_columns.extend(schema.find(&format!("{at}.value")));
    let typed = format!("{at}.typed_value");
    let leaf = schema.find(&typed).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "column {dotted}: the variant path is not shredded to a primitive ({typed} is not a \
             leaf); predicates on variant paths need a typed_value leaf"
        ))
    })?;
    Ok(Some((
        leaf,
        VariantPath {
            group: group.to_string(),
            path: path.to_string(),
            value_columns,
        },
    )))
}

/// Whether the chunk's `value` columns on the path are null in every row (so that the typed
/// leaf's statistics cover every value at the path).
pub(crate) fn only_typed(v: &VariantPath, columns: &[ColumnChunk]) -> bool {
    v.value_columns.iter().all(|&c| {
        columns
            .get(c)
            .and_then(|c| c.meta_data.as_ref())
            .is_some_and(|m| {
                m.statistics
                    .as_ref()
                    .and_then(|s| s.null_count)
                    .is_some_and(|n| n == m.num_values)
            })
    })
}

/// The rows of `values` (the variants at the path) that satisfy `test`.
pub(crate) fn eval(test: &Test, values: &VariantArray) -> Result<BooleanBuffer> {
    let mut out = Vec::with_capacity(values.len());
    for i in 0..values.len() {
        out.push(match values.get(i) {
            None => *test == Test::IsNull,
            Some(v) => matches(test, &v?),
        });
    }
    Ok(BooleanBuffer::from(out))
}

/// The value as an integer, when it is one of any width.
fn as_int(v: &VariantRef<'_>) -> Option<i64> {
    match v {
        VariantRef::Int8(x) => Some(*x as i64),
        VariantRef::Int16(x) => Some(*x as i64),
        VariantRef::Int32(x) => Some(*x as i64),
        VariantRef::Int64(x) => Some(*x),
        _ => None,
    }
}

/// The value as a number, when it is a FLOAT or DOUBLE.
fn as_f64(v: &VariantRef<'_>) -> Option<f64> {
    match v {
        VariantRef::Float(x) => Some(*x as f64),
        VariantRef::Double(x) => Some(*x),
        _ => None,
    }
}

/// Whether the value is of the literal's kind: integers of any width for an integer literal,
/// FLOAT or DOUBLE for a number, a string, a boolean.
fn same_kind(v: &VariantRef<'_>, lit: &Scalar) -> bool {
    match lit {
        Scalar::I32(_) | Scalar::I64(_) => as_int(v).is_some(),
        Scalar::F64(_) => as_f64(v).is_some(),
        Scalar::Bytes(_) => matches!(v, VariantRef::String(_)),
        Scalar::Bool(_) => matches!(v, VariantRef::Boolean(_)),
        _ => false,
    }
}

/// How the value compares with the literal when it is of the literal's kind (and not NaN).
/// Borrows both: no copy of a string per row.
fn compare(v: &VariantRef<'_>, lit: &Scalar) -> Option<Ordering> {
    match lit {
        Scalar::I32(b) => Some(as_int(v)?.cmp(&(*b as i64))),
        Scalar::I64(b) => Some(as_int(v)?.cmp(b)),
        Scalar::F64(b) => as_f64(v)?.partial_cmp(b),
        Scalar::Bytes(b) => match v {
            VariantRef::String(s) => Some(s.as_bytes().cmp(b.as_slice())),
            _ => None,
        },
        Scalar::Bool(b) => match v {
            VariantRef::Boolean(a) => Some(a.cmp(b)),
            _ => None,
        },
        _ => None,
    }
}

fn matches(test: &Test, v: &VariantRef<'_>) -> bool {
    let holds = |op: CmpOp, lit: &Scalar| compare(v, lit).is_some_and(|o| op.holds(o));
    match test {
        Test::Cmp { op, value, or_nan } => {
            let nan = matches!(value, Scalar::F64(_)) && as_f64(v).is_some_and(f64::is_nan);
            if nan {
                *op == CmpOp::Ne || *or_nan
            } else {
                holds(*op, value)
            }
        }
        Test::In(values) => values.iter().any(|l| holds(CmpOp::Eq, l)),
        Test::NotIn(values) => {
            values.first().is_some_and(|l| same_kind(v, l))
                && values.iter().all(|l| !holds(CmpOp::Eq, l))
        }
        Test::IsNotNull => true,
        Test::IsNull | Test::Geo(_) => false,
    }
}

/// The tests a variant path supports: `IS [NOT] NULL`, and comparisons and `in` with the
/// literals [`compare`] can compare.
pub(crate) fn supported(test: &Test) -> bool {
    let ok = |s: &Scalar| {
        matches!(
            s,
            Scalar::I32(_) | Scalar::I64(_) | Scalar::F64(_) | Scalar::Bytes(_) | Scalar::Bool(_)
        )
    };
    match test {
        Test::Cmp { value, .. } => ok(value),
        Test::In(v) | Test::NotIn(v) => v.iter().all(ok),
        Test::IsNull | Test::IsNotNull => true,
        Test::Geo(_) => false,
    }
}
