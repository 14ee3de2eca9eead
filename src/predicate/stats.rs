//! Pruning by min/max/null statistics: of a row group (`ColumnMetaData.statistics`) here,
//! of a page in [`super::page_index`].
//!
//! Which bounds are trusted:
//! - `min_value`/`max_value` follow the column's `ColumnOrder`. An order this crate does not
//!   know (or IEEE 754 total order on a non-float column) means no bounds.
//! - The deprecated `min`/`max` were computed with signed comparison, so they are used only
//!   when `min_value`/`max_value` are absent and the column's order is signed: booleans,
//!   signed INT32/INT64 (decimals included) and FLOAT/DOUBLE. Never for byte arrays,
//!   unsigned integers, FLOAT16 or decimals stored as bytes.
//! - A `NaN` bound is no bound. `-0.0` and `+0.0` compare equal, so either may bound a zero.
//! - `is_min_value_exact = false` (a truncated min) is still a lower bound. A max that is not
//!   exact is not used at all: the true max may be larger.
//! - No statistics, no pruning; `null_count` is used only when present.

use std::cmp::Ordering;

use super::literal::{Domain, Scalar};
use super::{CmpOp, Leaf, Test};
use crate::metadata::{ColumnChunk, ColumnMetaData, ColumnOrder, Statistics};

/// What statistics say about the values of a row group or page.
#[derive(Debug, Clone, Default)]
pub(crate) struct Summary {
    /// A lower bound of the non-null, non-NaN values.
    pub min: Option<Scalar>,
    /// An upper bound of the non-null, non-NaN values.
    pub max: Option<Scalar>,
    /// `min` is the smallest value.
    pub min_exact: bool,
    /// `max` is the largest value.
    pub max_exact: bool,
    /// Nulls, when known.
    pub null_count: Option<u64>,
    /// Every value is null.
    pub all_null: bool,
    /// Known to hold no `NaN` (never true for floats without a `nan_count` of 0).
    pub nan_free: bool,
}

impl Summary {
    /// The summary of a row group's column chunk with `num_values` values.
    pub(crate) fn of_chunk(
        stats: Option<&Statistics>,
        domain: Domain,
        order: Option<&ColumnOrder>,
        num_values: i64,
    ) -> Summary {
        let Some(s) = stats else {
            return Summary::default();
        };
        let null_count = s.null_count.and_then(|n| u64::try_from(n).ok());
        let mut out = Summary {
            null_count,
            all_null: null_count.is_some_and(|n| num_values >= 0 && n == num_values as u64),
            nan_free: !domain.is_float() || s.nan_count == Some(0),
            ..Summary::default()
        };
        if !order_usable(order, domain) {
            return out;
        }
        if s.min_value.is_some() || s.max_value.is_some() {
            out.min = s.min_value.as_deref().and_then(|b| bound(domain, b));
            out.max = s.max_value.as_deref().and_then(|b| bound(domain, b));
            out.min_exact = s.is_min_value_exact.unwrap_or(true);
            out.max_exact = s.is_max_value_exact.unwrap_or(true);
            if !out.max_exact {
                out.max = None;
            }
        } else if legacy_trusted(domain) {
            out.min = s.min.as_deref().and_then(|b| bound(domain, b));
            out.max = s.max.as_deref().and_then(|b| bound(domain, b));
            out.min_exact = true;
            out.max_exact = true;
        }
        out
    }
}

/// True when the statistics of a column chunk show that no value satisfies `leaf`'s test:
/// min/max/null counts, and the geospatial statistics for `intersects`.
/// `columns` are the row group's chunks (a variant path checks its `value` columns there).
pub(crate) fn chunk_prunes(
    leaf: &Leaf,
    meta: &ColumnMetaData,
    order: Option<&ColumnOrder>,
    columns: &[ColumnChunk],
) -> bool {
    if let Some(v) = &leaf.variant {
        if !super::variant_path::only_typed(v, columns) {
            return false;
        }
    }
    let s = Summary::of_chunk(
        meta.statistics.as_ref(),
        leaf.domain,
        order,
        meta.num_values,
    );
    if let Test::Geo(g) = &leaf.test {
        if g.prunes(meta.geospatial_statistics.as_ref()) {
            return true;
        }
    }
    prunes(&leaf.test, &s)
}

/// Whether min/max written under `order` can be compared in `domain`.
pub(crate) fn order_usable(order: Option<&ColumnOrder>, domain: Domain) -> bool {
    match order {
        None | Some(ColumnOrder::TypeDefinedOrder) => true,
        Some(ColumnOrder::Ieee754TotalOrder) => domain.is_float(),
        Some(ColumnOrder::Int96TimestampOrder | ColumnOrder::Unknown { .. }) => false,
    }
}

/// The deprecated `min`/`max` are signed: right only where the column's order is signed.
fn legacy_trusted(domain: Domain) -> bool {
    matches!(
        domain,
        Domain::Bool | Domain::I32 | Domain::I64 | Domain::F32 | Domain::F64
    )
}

/// A bound from its PLAIN bytes; a `NaN` is no bound.
pub(crate) fn bound(domain: Domain, bytes: &[u8]) -> Option<Scalar> {
    domain.decode(bytes).filter(|s| !s.is_nan())
}

/// True when no value summarised by `s` can satisfy `test` (nulls never satisfy a value
/// test; `NaN`s satisfy only `!=`, `NOT IN` and the `or_nan` orderings).
pub(crate) fn prunes(test: &Test, s: &Summary) -> bool {
    match test {
        Test::IsNull => s.null_count == Some(0),
        Test::IsNotNull => s.all_null,
        _ if s.all_null => true,
        Test::Cmp { op, value, or_nan } => {
            if *or_nan && !s.nan_free {
                return false;
            }
            match op {
                CmpOp::Ne => {
                    only_value(s).is_some_and(|v| v.compare(value) == Some(Ordering::Equal))
                }
                _ => range_excludes(*op, value, s),
            }
        }
        Test::In(values) => values.iter().all(|v| range_excludes(CmpOp::Eq, v, s)),
        // Decided by geospatial statistics ([`chunk_prunes`]), not by min/max.
        Test::Geo(_) => false,
        Test::NotIn(values) => only_value(s).is_some_and(|only| {
            values
                .iter()
                .any(|v| only.compare(v) == Some(Ordering::Equal))
        }),
    }
}

/// The share of the `values` values (nulls included) summarised by `s` that satisfy
/// `test`, estimated as if the non-null values spread evenly over `[min, max]`: for null
/// tests and orderings of numbers; `None` where the statistics cannot say (no null count,
/// no bounds, byte arrays, a test of values inside the bounds).
pub(crate) fn pass_estimate(test: &Test, s: &Summary, values: u64) -> Option<f64> {
    let nulls = s.null_count?.min(values);
    if values == 0 {
        return None;
    }
    let non_null = 1.0 - nulls as f64 / values as f64;
    match test {
        Test::IsNull => return Some(1.0 - non_null),
        Test::IsNotNull => return Some(non_null),
        _ if prunes(test, s) => return Some(0.0),
        _ => {}
    }
    let Test::Cmp {
        op,
        value,
        or_nan: false,
    } = test
    else {
        return None;
    };
    let (min, max, v) = (
        number(s.min.as_ref()?)?,
        number(s.max.as_ref()?)?,
        number(value)?,
    );
    let width = max - min;
    if width <= 0.0 || !width.is_finite() {
        return None;
    }
    let share = match op {
        CmpOp::Lt | CmpOp::Le => (v - min) / width,
        CmpOp::Gt | CmpOp::Ge => (max - v) / width,
        CmpOp::Eq | CmpOp::Ne => return None,
    };
    Some(share.clamp(0.0, 1.0) * non_null)
}

/// A numeric bound as a float (finite), for estimates.
fn number(s: &Scalar) -> Option<f64> {
    let x = match s {
        Scalar::I32(v) => *v as f64,
        Scalar::U32(v) => *v as f64,
        Scalar::I64(v) => *v as f64,
        Scalar::U64(v) => *v as f64,
        Scalar::F64(v) => *v,
        Scalar::Dec(v) => *v as f64,
        Scalar::Bool(_) | Scalar::Bytes(_) => return None,
    };
    x.is_finite().then_some(x)
}

/// The one value every non-null row holds, when the bounds are exact and equal and no `NaN`
/// hides outside them.
fn only_value(s: &Summary) -> Option<&Scalar> {
    let (min, max) = (s.min.as_ref()?, s.max.as_ref()?);
    (s.min_exact && s.max_exact && s.nan_free && min.compare(max) == Some(Ordering::Equal))
        .then_some(min)
}

/// True when no value in `[min, max]` satisfies `x op value` (for the orderings and `=`).
fn range_excludes(op: CmpOp, value: &Scalar, s: &Summary) -> bool {
    let below_min = |strict: bool| {
        s.min
            .as_ref()
            .and_then(|m| value.compare(m))
            .is_some_and(|o| o == Ordering::Less || (strict && o == Ordering::Equal))
    };
    let above_max = |strict: bool| {
        s.max
            .as_ref()
            .and_then(|m| value.compare(m))
            .is_some_and(|o| o == Ordering::Greater || (strict && o == Ordering::Equal))
    };
    match op {
        CmpOp::Eq => below_min(false) || above_max(false),
        // x < v: none when v <= min.
        CmpOp::Lt => below_min(true),
        CmpOp::Le => below_min(false),
        // x > v: none when v >= max.
        CmpOp::Gt => above_max(true),
        CmpOp::Ge => above_max(false),
        CmpOp::Ne => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(min: &[u8], max: &[u8]) -> Statistics {
        Statistics {
            min_value: Some(min.to_vec().into()),
            max_value: Some(max.to_vec().into()),
            null_count: Some(0),
            ..Default::default()
        }
    }

    fn cmp(op: CmpOp, value: Scalar) -> Test {
        Test::Cmp {
            op,
            value,
            or_nan: false,
        }
    }

    #[test]
    fn ranges_prune() {
        let s = Summary::of_chunk(
            Some(&stats(&10i32.to_le_bytes(), &20i32.to_le_bytes())),
            Domain::I32,
            None,
            5,
        );
        let p = |op, v| prunes(&cmp(op, Scalar::I32(v)), &s);
        assert!(p(CmpOp::Eq, 9) && !p(CmpOp::Eq, 10) && !p(CmpOp::Eq, 20) && p(CmpOp::Eq, 21));
        assert!(p(CmpOp::Lt, 10) && !p(CmpOp::Lt, 11));
        assert!(p(CmpOp::Le, 9) && !p(CmpOp::Le, 10));
        assert!(p(CmpOp::Gt, 20) && !p(CmpOp::Gt, 19));
        assert!(p(CmpOp::Ge, 21) && !p(CmpOp::Ge, 20));
        assert!(!p(CmpOp::Ne, 10));
        assert!(prunes(&Test::IsNull, &s) && !prunes(&Test::IsNotNull, &s));
        assert!(prunes(&Test::In(vec![Scalar::I32(1), Scalar::I32(30)]), &s));
        assert!(!prunes(
            &Test::In(vec![Scalar::I32(1), Scalar::I32(15)]),
            &s
        ));
    }

    #[test]
    fn shares_are_estimated_over_the_bounds() {
        // Values 0..=100 in 200 slots, 100 of them null.
        let mut st = stats(&0i64.to_le_bytes(), &100i64.to_le_bytes());
        st.null_count = Some(100);
        let s = Summary::of_chunk(Some(&st), Domain::I64, None, 200);
        let share = |t: Test| pass_estimate(&t, &s, 200);
        let near = |got: Option<f64>, want: f64| got.is_some_and(|g| (g - want).abs() < 1e-9);
        assert!(near(share(cmp(CmpOp::Lt, Scalar::I64(25))), 0.125));
        assert!(near(share(cmp(CmpOp::Ge, Scalar::I64(25))), 0.375));
        assert!(near(share(cmp(CmpOp::Gt, Scalar::I64(500))), 0.0));
        assert!(near(share(cmp(CmpOp::Le, Scalar::I64(500))), 0.5));
        assert!(near(share(Test::IsNull), 0.5));
        assert!(near(share(Test::IsNotNull), 0.5));
        // Values inside the bounds: no estimate.
        assert_eq!(share(cmp(CmpOp::Eq, Scalar::I64(7))), None);
        assert!(near(share(cmp(CmpOp::Eq, Scalar::I64(700))), 0.0));
        // Without a null count or bounds, none.
        st.null_count = None;
        let s = Summary::of_chunk(Some(&st), Domain::I64, None, 200);
        assert_eq!(pass_estimate(&Test::IsNull, &s, 200), None);
        let s = Summary::of_chunk(Some(&stats(b"a", b"z")), Domain::Bytes, None, 5);
        assert_eq!(
            pass_estimate(&cmp(CmpOp::Lt, Scalar::Bytes(b"m".to_vec())), &s, 5),
            None
        );
    }

    #[test]
    fn unsigned_legacy_and_orders() {
        // -1 as u32 is the largest value: signed legacy min/max are not trusted for it.
        let legacy = Statistics {
            min: Some((-1i32).to_le_bytes().to_vec().into()),
            max: Some(5i32.to_le_bytes().to_vec().into()),
            ..Default::default()
        };
        let s = Summary::of_chunk(Some(&legacy), Domain::U32, None, 3);
        assert!(s.min.is_none() && s.max.is_none());
        let s = Summary::of_chunk(Some(&legacy), Domain::I32, None, 3);
        assert_eq!(s.min, Some(Scalar::I32(-1)));
        let s = Summary::of_chunk(
            Some(&stats(b"a", b"b")),
            Domain::Bytes,
            Some(&ColumnOrder::Unknown { field_id: 9 }),
            3,
        );
        assert!(s.min.is_none() && s.max.is_none());
    }

    #[test]
    fn floats_nan_and_zero() {
        let f = |x: f64| x.to_le_bytes();
        let s = Summary::of_chunk(Some(&stats(&f(-0.0), &f(0.0))), Domain::F64, None, 2);
        assert!(!prunes(&cmp(CmpOp::Eq, Scalar::F64(0.0)), &s));
        assert!(!prunes(&cmp(CmpOp::Eq, Scalar::F64(-0.0)), &s));
        // Lenient about a writer that stored +0.0 as the min.
        let s = Summary::of_chunk(Some(&stats(&f(0.0), &f(1.0))), Domain::F64, None, 2);
        assert!(!prunes(&cmp(CmpOp::Eq, Scalar::F64(-0.0)), &s));
        // A NaN bound is no bound.
        let s = Summary::of_chunk(Some(&stats(&f(f64::NAN), &f(1.0))), Domain::F64, None, 2);
        assert!(s.min.is_none() && !prunes(&cmp(CmpOp::Lt, Scalar::F64(-5.0)), &s));
        // `NOT (x < 5)` holds for NaN rows, which min/max do not cover.
        let s = Summary::of_chunk(Some(&stats(&f(1.0), &f(2.0))), Domain::F64, None, 2);
        let negated = Test::Cmp {
            op: CmpOp::Ge,
            value: Scalar::F64(5.0),
            or_nan: true,
        };
        assert!(!prunes(&negated, &s));
        assert!(prunes(&cmp(CmpOp::Ge, Scalar::F64(5.0)), &s));
        let nan_free = Statistics {
            nan_count: Some(0),
            ..stats(&f(1.0), &f(2.0))
        };
        let s = Summary::of_chunk(Some(&nan_free), Domain::F64, None, 2);
        assert!(prunes(&negated, &s));
    }

    #[test]
    fn truncated_bounds() {
        let t = Statistics {
            is_max_value_exact: Some(false),
            is_min_value_exact: Some(false),
            ..stats(b"abc", b"abd")
        };
        let s = Summary::of_chunk(Some(&t), Domain::Bytes, None, 2);
        let p = |op, v: &[u8]| prunes(&cmp(op, Scalar::Bytes(v.to_vec())), &s);
        assert!(p(CmpOp::Lt, b"abc") && p(CmpOp::Eq, b"ab"));
        // The max is not trusted: nothing above it is ruled out.
        assert!(!p(CmpOp::Eq, b"zzz") && !p(CmpOp::Gt, b"abd"));
        // Equal inexact bounds do not make a single value.
        assert!(!prunes(
            &Test::NotIn(vec![Scalar::Bytes(b"abc".to_vec())]),
            &s
        ));
    }

    #[test]
    fn nulls() {
        let all_null = Statistics {
            null_count: Some(4),
            ..Default::default()
        };
        let s = Summary::of_chunk(Some(&all_null), Domain::I64, None, 4);
        assert!(prunes(&cmp(CmpOp::Ne, Scalar::I64(1)), &s));
        assert!(prunes(&Test::IsNotNull, &s) && !prunes(&Test::IsNull, &s));
        let s = Summary::of_chunk(None, Domain::I64, None, 4);
        assert!(!prunes(&Test::IsNull, &s) && !prunes(&Test::IsNotNull, &s));
    }
}
