//! Soundness checks of pruning on arbitrary input, for the `predicate_prune` fuzz target.
//!
//! Not a stable API.

use std::cmp::Ordering;

use super::eval::{value_matches, Val};
use super::literal::{Domain, Scalar};
use super::{page_index, stats, Expr, Leaf, Node, Test};
use crate::metadata::{
    BoundaryOrder, ColumnIndex, ColumnOrder, ConvertedType, FieldRepetitionType, InlineBytes,
    LogicalType, OffsetIndex, PageLocation, SchemaElement, Statistics, Type,
};
use crate::schema::SchemaDescriptor;

/// The column types the harness builds (a single optional column `x`).
const KINDS: usize = 10;

fn schema(kind: u8) -> SchemaDescriptor {
    let (t, logical, converted, scale, precision, len) = match kind as usize % KINDS {
        0 => (Type::INT32, None, None, None, None, None),
        1 => (
            Type::INT32,
            Some(LogicalType::Integer {
                bit_width: 32,
                is_signed: false,
            }),
            Some(ConvertedType::UINT_32),
            None,
            None,
            None,
        ),
        2 => (Type::INT64, None, None, None, None, None),
        3 => (
            Type::INT64,
            Some(LogicalType::Integer {
                bit_width: 64,
                is_signed: false,
            }),
            Some(ConvertedType::UINT_64),
            None,
            None,
            None,
        ),
        4 => (Type::FLOAT, None, None, None, None, None),
        5 => (Type::DOUBLE, None, None, None, None, None),
        6 => (
            Type::BYTE_ARRAY,
            Some(LogicalType::String),
            Some(ConvertedType::UTF8),
            None,
            None,
            None,
        ),
        7 => (
            Type::BYTE_ARRAY,
            Some(LogicalType::Decimal {
                scale: 2,
                precision: 30,
            }),
            Some(ConvertedType::DECIMAL),
            Some(2),
            Some(30),
            None,
        ),
        8 => (Type::BOOLEAN, None, None, None, None, None),
        _ => (
            Type::FIXED_LEN_BYTE_ARRAY,
            Some(LogicalType::Float16),
            None,
            None,
            None,
            Some(2),
        ),
    };
    let elements = [
        SchemaElement {
            name: "schema".into(),
            num_children: Some(1),
            ..Default::default()
        },
        SchemaElement {
            name: "x".into(),
            type_: Some(t),
            repetition_type: Some(FieldRepetitionType::OPTIONAL),
            logical_type: logical,
            converted_type: converted,
            scale,
            precision,
            type_length: len,
            ..Default::default()
        },
    ];
    SchemaDescriptor::new(&elements).expect("a valid one-column schema")
}

fn leaves(node: &Node, out: &mut Vec<Leaf>) {
    match node {
        Node::And(c) | Node::Or(c) => c.iter().for_each(|n| leaves(n, out)),
        Node::Leaf(l) => out.push(l.clone()),
        Node::Const(_) | Node::Custom(_) => {}
    }
}

fn val(s: &Scalar) -> Val<'_> {
    match s {
        Scalar::Bool(b) => Val::Bool(*b),
        Scalar::I32(v) => Val::I32(*v),
        Scalar::U32(v) => Val::U32(*v),
        Scalar::I64(v) => Val::I64(*v),
        Scalar::U64(v) => Val::U64(*v),
        Scalar::F64(v) => Val::F64(*v),
        Scalar::Bytes(b) => Val::Bytes(b),
        Scalar::Dec(v) => Val::Dec(*v),
    }
}

/// Whether row `v` (`None` = null) satisfies the leaf.
fn satisfies(test: &Test, v: Option<&Scalar>) -> bool {
    match (test, v) {
        (Test::IsNull, v) => v.is_none(),
        (Test::IsNotNull, v) => v.is_some(),
        (_, None) => false,
        (t, Some(s)) => value_matches(t, val(s)),
    }
}

/// Statistics that tell the truth about `rows` (as PLAIN bytes), in the spec's fields or
/// the legacy ones, with byte arrays optionally truncated.
fn truthful(
    domain: Domain,
    rows: &[Option<(Vec<u8>, Scalar)>],
    legacy: bool,
    truncate: Option<usize>,
    nan_count: bool,
) -> Statistics {
    let mut min: Option<&(Vec<u8>, Scalar)> = None;
    let mut max: Option<&(Vec<u8>, Scalar)> = None;
    for r in rows.iter().flatten().filter(|r| !r.1.is_nan()) {
        if min.is_none_or(|m| r.1.compare(&m.1) == Some(Ordering::Less)) {
            min = Some(r);
        }
        if max.is_none_or(|m| r.1.compare(&m.1) == Some(Ordering::Greater)) {
            max = Some(r);
        }
    }
    let (mut min, mut max) = (min.map(|m| m.0.clone()), max.map(|m| m.0.clone()));
    let (mut min_exact, mut max_exact) = (true, true);
    if let (Some(t), Domain::Bytes) = (truncate, domain) {
        if let Some(m) = min.as_mut().filter(|m| m.len() > t) {
            m.truncate(t);
            min_exact = false;
        }
        if let Some(m) = max.as_mut().filter(|m| m.len() > t) {
            // A truncated max that is not an upper bound, flagged inexact: must be ignored.
            m.truncate(t);
            max_exact = false;
        }
    }
    let nulls = rows.iter().filter(|r| r.is_none()).count() as i64;
    let nans = rows.iter().flatten().filter(|r| r.1.is_nan()).count() as i64;
    let mut s = Statistics {
        null_count: Some(nulls),
        nan_count: (nan_count && domain.is_float()).then_some(nans),
        ..Default::default()
    };
    if legacy {
        (s.min, s.max) = (min.map(Into::into), max.map(Into::into));
    } else {
        (s.min_value, s.max_value) = (min.map(Into::into), max.map(Into::into));
        s.is_min_value_exact = Some(min_exact);
        s.is_max_value_exact = Some(max_exact);
    }
    s
}

/// The PLAIN bytes of a value of `domain` made from `v`: mostly small values near the
/// literals the token grammar writes, sometimes raw bits (NaN, -0.0 and extremes included).
fn plain(domain: Domain, v: u64) -> Vec<u8> {
    let raw = v & 0x100 != 0;
    let small = (v % 16) as i64 - 8;
    match domain {
        Domain::Bool => vec![(v & 1) as u8],
        Domain::I32 | Domain::U32 if raw => ((v >> 16) as u32).to_le_bytes().to_vec(),
        Domain::I32 | Domain::U32 => (small as i32).to_le_bytes().to_vec(),
        Domain::I64 | Domain::U64 if raw => (v >> 9)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .to_le_bytes()
            .to_vec(),
        Domain::I64 | Domain::U64 => small.to_le_bytes().to_vec(),
        Domain::F32 => match v % 8 {
            0 => f32::NAN.to_le_bytes().to_vec(),
            1 => (-0.0f32).to_le_bytes().to_vec(),
            _ if raw => ((v >> 16) as u32).to_le_bytes().to_vec(),
            _ => (small as f32 / 2.0).to_le_bytes().to_vec(),
        },
        Domain::F64 => match v % 8 {
            0 => f64::NAN.to_le_bytes().to_vec(),
            1 => (-0.0f64).to_le_bytes().to_vec(),
            _ if raw => (v >> 9).to_le_bytes().to_vec(),
            _ => (small as f64 / 2.0).to_le_bytes().to_vec(),
        },
        Domain::F16 => match v % 8 {
            0 => vec![0x00, 0x7e],
            1 => vec![0x00, 0x80],
            _ => ((v >> 16) as u16).to_le_bytes().to_vec(),
        },
        Domain::Bytes => (0..v % 5)
            .map(|i| b'a' + ((v >> (8 + 2 * i)) & 3) as u8)
            .collect(),
        Domain::Decimal => {
            let n = (small as i128) * 50;
            let len = 1 + (v >> 12) as usize % 16;
            n.to_be_bytes()[16 - len..].to_vec()
        }
    }
}

/// Parse `text` (never panics), bind it to a one-column file of type `kind`, and check that
/// statistics and a column index built truthfully from `rows` (values made by `plain`,
/// `None` = null) never prune a satisfying row; then prune with `garbage` statistics and
/// index, which must not panic.
///
/// # Panics
/// When pruning is unsound: that is the bug the fuzzer looks for.
pub fn check(text: &str, kind: u8, rows: &[Option<u64>], flags: u8, garbage: &[Vec<u8>]) {
    let Ok(expr) = Expr::parse(text) else {
        return;
    };
    // Every column name means `x`: the parsed tree is what is being checked.
    let expr = rename(expr);
    let schema = schema(kind);
    let Ok(node) = Node::bind(&expr, &schema) else {
        return;
    };
    let Ok((domain, _)) = Domain::of(schema.leaf(0)) else {
        return;
    };
    let decoded: Vec<Option<(Vec<u8>, Scalar)>> = rows
        .iter()
        .filter_map(|r| match r {
            None => Some(None),
            Some(v) => {
                let b = plain(domain, *v);
                domain.decode(&b).map(|s| Some((b, s)))
            }
        })
        .collect();
    let mut all = Vec::new();
    leaves(&node, &mut all);
    let order = [
        None,
        Some(ColumnOrder::TypeDefinedOrder),
        Some(ColumnOrder::Ieee754TotalOrder),
    ][(flags >> 4) as usize % 3];
    let stats = truthful(
        domain,
        &decoded,
        flags & 1 != 0,
        (flags & 2 != 0).then_some((flags >> 5) as usize),
        flags & 4 != 0,
    );
    let summary =
        stats::Summary::of_chunk(Some(&stats), domain, order.as_ref(), decoded.len() as i64);
    for leaf in &all {
        if stats::prunes(&leaf.test, &summary) {
            let bad = decoded
                .iter()
                .find(|r| satisfies(&leaf.test, r.as_ref().map(|r| &r.1)));
            assert!(
                bad.is_none(),
                "statistics {stats:?} pruned {:?}, which {bad:?} satisfies",
                leaf.test
            );
        }
    }

    // A column index of two pages, each with truthful bounds.
    let split = decoded.len() / 2;
    let pages = [&decoded[..split], &decoded[split..]];
    if pages.iter().all(|p| !p.is_empty()) {
        let mut index = ColumnIndex {
            null_pages: vec![],
            min_values: vec![],
            max_values: vec![],
            boundary_order: BoundaryOrder::UNORDERED,
            null_counts: Some(vec![]),
            repetition_level_histograms: None,
            definition_level_histograms: None,
            nan_counts: domain.is_float().then(Vec::new),
        };
        for p in pages {
            let s = truthful(domain, p, false, None, true);
            let all_null = p.iter().all(Option::is_none);
            index.null_pages.push(all_null);
            index
                .min_values
                .push(s.min_value.map(Vec::from).unwrap_or_default());
            index
                .max_values
                .push(s.max_value.map(Vec::from).unwrap_or_default());
            if let Some(c) = index.null_counts.as_mut() {
                c.push(s.null_count.unwrap_or(0));
            }
            if let Some(c) = index.nan_counts.as_mut() {
                c.push(s.nan_count.unwrap_or(0));
            }
        }
        let offsets = OffsetIndex {
            page_locations: [0, split]
                .iter()
                .map(|&r| PageLocation {
                    offset: 0,
                    compressed_page_size: 0,
                    first_row_index: r as i64,
                })
                .collect(),
            unencoded_byte_array_data_bytes: None,
        };
        let ranges = page_index::page_rows(&offsets, decoded.len() as u64)
            .expect("two non-empty pages tile the rows");
        for leaf in &all {
            let kept = page_index::leaf_ranges(&leaf.test, domain, order.as_ref(), &index, &ranges)
                .expect("a consistent index");
            for (k, r) in decoded.iter().enumerate() {
                if satisfies(&leaf.test, r.as_ref().map(|r| &r.1)) {
                    assert!(
                        kept.iter().any(|p| p.contains(&(k as u64))),
                        "page index {index:?} dropped row {k} ({r:?}) of {:?}",
                        leaf.test
                    );
                }
            }
        }
    }

    // Garbage: anything may be pruned, nothing may panic.
    let g = |i: usize| garbage.get(i).map(|b| InlineBytes::from(&b[..]));
    let junk = Statistics {
        min_value: g(0),
        max_value: g(1),
        min: g(2),
        max: g(3),
        null_count: g(4).map(|b| b.len() as i64 - 3),
        is_min_value_exact: Some(flags & 8 != 0),
        is_max_value_exact: Some(flags & 64 != 0),
        nan_count: g(5).map(|b| b.len() as i64 - 1),
        distinct_count: None,
    };
    let summary =
        stats::Summary::of_chunk(Some(&junk), domain, order.as_ref(), rows.len() as i64 - 2);
    let index = ColumnIndex {
        null_pages: garbage.iter().map(|b| b.len() % 2 == 0).collect(),
        min_values: garbage.to_vec(),
        max_values: garbage.iter().rev().cloned().collect(),
        boundary_order: BoundaryOrder(flags as i32 % 4),
        null_counts: Some(garbage.iter().map(|b| b.len() as i64 - 1).collect()),
        repetition_level_histograms: None,
        definition_level_histograms: None,
        nan_counts: None,
    };
    let offsets = OffsetIndex {
        page_locations: garbage
            .iter()
            .map(|b| PageLocation {
                offset: 0,
                compressed_page_size: 0,
                first_row_index: b.first().map_or(-1, |&x| x as i64),
            })
            .collect(),
        unencoded_byte_array_data_bytes: None,
    };
    for leaf in &all {
        let _ = stats::prunes(&leaf.test, &summary);
        if let Some(ranges) = page_index::page_rows(&offsets, rows.len() as u64) {
            let _ = page_index::leaf_ranges(&leaf.test, domain, order.as_ref(), &index, &ranges);
        }
    }
}

/// The expression with every column renamed `x`.
fn rename(e: Expr) -> Expr {
    match e {
        Expr::Cmp { op, value, .. } => Expr::Cmp {
            column: "x".into(),
            op,
            value,
        },
        Expr::In {
            values, negated, ..
        } => Expr::In {
            column: "x".into(),
            values,
            negated,
        },
        Expr::IsNull { negated, .. } => Expr::IsNull {
            column: "x".into(),
            negated,
        },
        Expr::Intersects { bbox, .. } => Expr::Intersects {
            column: "x".into(),
            bbox,
        },
        Expr::And(a, b) => Expr::And(Box::new(rename(*a)), Box::new(rename(*b))),
        Expr::Or(a, b) => Expr::Or(Box::new(rename(*a)), Box::new(rename(*b))),
        Expr::Not(a) => Expr::Not(Box::new(rename(*a))),
        Expr::Custom(p) => Expr::Custom(p),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn harness_runs_on_every_kind() {
        let rows: Vec<Option<u64>> = (0..40u64)
            .map(|i| (i % 7 != 3).then_some(i.wrapping_mul(0x2545_F491_4F6C_DD1D)))
            .collect();
        for kind in 0..KINDS as u8 {
            for flags in [0u8, 1, 2, 7, 0x26, 0x4a, 0xff] {
                check(
                    "x >= 1 and not x in (2, 3) or x is null",
                    kind,
                    &rows,
                    flags,
                    &[vec![1, 2]],
                );
                check("not (x < 0.5)", kind, &rows, flags, &[]);
                check(
                    "x = 'ab' or x != 'a' or x > 'b'",
                    kind,
                    &rows,
                    flags,
                    &[vec![0], vec![]],
                );
                check("not x = true and x <= -2", kind, &rows, flags, &[]);
            }
        }
    }
}
