//! Columns matching a schema: null rates, value distributions and edge values.
//!
//! Rows are drawn as [`Value`] trees ([`gen_rows`]), reshaped per leaf by a [`Distribution`],
//! then built into Arrow-layout [`Array`]s ([`build_array`]). Edge values come at
//! [`ColumnProfile::edge_percent`]: NaNs with payloads (quiet, signalling, negative), -0.0,
//! infinities, subnormals, `i32`/`i64` MIN and MAX, the widest decimal of a precision,
//! empty strings and long strings, all-zero and all-ones fixed bytes.

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use proptest::prelude::*;

use super::{Entropy, Rng};
use crate::array::{Array, ListArray, ListOffsets, StructArray, Value};
use crate::column::{Column, Values};
use crate::field::{DataType, Field, Primitive};
use crate::metadata::{ConvertedType, LogicalType, TimeUnit, Type};

/// How the values of each leaf are spread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// Independent draws: mostly distinct.
    Unique,
    /// At most this many distinct values per leaf (dictionary-friendly).
    LowCardinality(u8),
    /// Non-decreasing in the type's order (delta-friendly).
    Sorted,
    /// Runs of repeated values (RLE-friendly).
    Runs,
}

/// How one column's values are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnProfile {
    /// Percent of nullable slots (at every nullable level) that are null: 0, some, or 100.
    pub null_percent: u8,
    /// How leaf values are spread.
    pub distribution: Distribution,
    /// Percent of leaf values that are edge values.
    pub edge_percent: u8,
    /// Most elements of one list or entries of one map.
    pub max_list_len: u8,
    /// Length of a long string or binary value.
    pub long_len: u16,
    /// Byte arrays in Arrow's view layout (else offsets); lists with i64 offsets (else i32).
    pub views: bool,
}

impl Default for ColumnProfile {
    fn default() -> Self {
        ColumnProfile {
            null_percent: 10,
            distribution: Distribution::Unique,
            edge_percent: 10,
            max_list_len: 4,
            long_len: 300,
            views: false,
        }
    }
}

/// A random profile; `long_len` at most `max_long`.
pub fn gen_profile(e: &mut dyn Entropy, max_long: u16) -> ColumnProfile {
    let distribution = match e.below(4) {
        0 => Distribution::Unique,
        1 => Distribution::LowCardinality(1 + e.below(12) as u8),
        2 => Distribution::Sorted,
        _ => Distribution::Runs,
    };
    ColumnProfile {
        null_percent: *e.pick(&[0, 5, 30, 100]),
        distribution,
        edge_percent: *e.pick(&[10, 0, 50]),
        max_list_len: e.below(6) as u8,
        long_len: e.below(max_long as u64 + 1) as u16,
        views: e.below(2) == 1,
    }
}

/// A profile strategy (long values up to `max_long` bytes).
pub fn profile_strategy(max_long: u16) -> impl Strategy<Value = ColumnProfile> {
    any::<u64>().prop_map(move |seed| gen_profile(&mut Rng::new(seed), max_long))
}

/// A column of `rows` rows of `field` drawn from a seed and a profile (shrinks towards fewer
/// rows and the default profile's neighbours).
pub fn array_strategy(field: Field, rows: usize) -> impl Strategy<Value = Array> {
    (any::<u64>(), profile_strategy(300), 0..=rows).prop_map(move |(seed, profile, rows)| {
        let mut e = Rng::new(seed);
        let values = gen_rows(&mut e, &field, rows, &profile);
        build_array(&field, &values, &profile)
    })
}

/// `rows` rows of `field`, as value trees.
pub fn gen_rows(
    e: &mut dyn Entropy,
    field: &Field,
    rows: usize,
    profile: &ColumnProfile,
) -> Vec<Value> {
    let mut out: Vec<Value> = (0..rows).map(|_| gen_value(e, field, profile)).collect();
    let mut leaves = Vec::new();
    collect_leaves(field, out.iter_mut().collect(), 0, true, &mut leaves);
    for (prim, slots) in leaves {
        distribute(e, &prim, slots, profile.distribution);
    }
    out
}

/// One row of `field` (before any [`Distribution`] reshapes the leaves): null at
/// `p.null_percent` where nullable, lists and maps of up to `p.max_list_len` entries, map keys
/// distinct within a map.
pub fn gen_value(e: &mut dyn Entropy, field: &Field, p: &ColumnProfile) -> Value {
    if field.nullable && e.below(100) < p.null_percent as u64 {
        return Value::Null;
    }
    match &field.data_type {
        DataType::Primitive(prim) => Value::Leaf(leaf_value(e, prim, p)),
        DataType::List(el) => {
            let n = e.below(p.max_list_len as u64 + 1);
            Value::List((0..n).map(|_| gen_value(e, el, p)).collect())
        }
        DataType::Struct(c) => Value::Struct(c.iter().map(|c| gen_value(e, c, p)).collect()),
        DataType::Map(entries) => {
            let DataType::Struct(kv) = &entries.data_type else {
                return Value::Map(Vec::new());
            };
            let n = e.below(p.max_list_len as u64 + 1);
            let mut out: Vec<(Value, Value)> = Vec::new();
            for _ in 0..n {
                let key = gen_value(e, &kv[0], p);
                // Keys are unique within a map (the spec asks it).
                if out.iter().any(|(k, _)| *k == key) {
                    continue;
                }
                let value = kv.get(1).map_or(Value::Null, |v| gen_value(e, v, p));
                out.push((key, value));
            }
            Value::Map(out)
        }
    }
}

type LeafSlots<'a> = (Primitive, Vec<&'a mut Vec<u8>>);

/// The non-null leaf values of `rows` (values of `field`), grouped per leaf in schema order
/// (`first` is the index of `field`'s first leaf in `out`); map keys are left out (`reshape`
/// false) so that they stay unique.
fn collect_leaves<'a>(
    field: &Field,
    rows: Vec<&'a mut Value>,
    first: usize,
    reshape: bool,
    out: &mut Vec<LeafSlots<'a>>,
) {
    match &field.data_type {
        DataType::Primitive(p) => {
            if out.len() <= first {
                out.push((p.clone(), Vec::new()));
            }
            if !reshape {
                return;
            }
            for r in rows {
                if let Value::Leaf(b) = r {
                    out[first].1.push(b);
                }
            }
        }
        DataType::List(el) => {
            let items = rows
                .into_iter()
                .flat_map(|r| match r {
                    Value::List(items) => items.iter_mut().collect::<Vec<_>>(),
                    _ => Vec::new(),
                })
                .collect();
            collect_leaves(el, items, first, reshape, out);
        }
        DataType::Struct(children) => {
            let mut per_child: Vec<Vec<&'a mut Value>> =
                children.iter().map(|_| Vec::new()).collect();
            for r in rows {
                if let Value::Struct(vs) = r {
                    for (i, v) in vs.iter_mut().enumerate() {
                        if let Some(slot) = per_child.get_mut(i) {
                            slot.push(v);
                        }
                    }
                }
            }
            let mut at = first;
            for (c, vs) in children.iter().zip(per_child) {
                collect_leaves(c, vs, at, reshape, out);
                at += c.num_leaves();
            }
        }
        DataType::Map(entries) => {
            let DataType::Struct(kv) = &entries.data_type else {
                return;
            };
            let mut keys = Vec::new();
            let mut values = Vec::new();
            for r in rows {
                if let Value::Map(es) = r {
                    for (k, v) in es.iter_mut() {
                        keys.push(k);
                        values.push(v);
                    }
                }
            }
            collect_leaves(&kv[0], keys, first, false, out);
            if let Some(v) = kv.get(1) {
                collect_leaves(v, values, first + kv[0].num_leaves(), reshape, out);
            }
        }
    }
}

fn distribute(e: &mut dyn Entropy, p: &Primitive, mut slots: Vec<&mut Vec<u8>>, d: Distribution) {
    match d {
        Distribution::Unique => {}
        Distribution::LowCardinality(k) => {
            let pool: Vec<Vec<u8>> = slots
                .iter()
                .take(k.max(1) as usize)
                .map(|s| s.to_vec())
                .collect();
            for s in slots.iter_mut().skip(pool.len()) {
                **s = e.pick(&pool).clone();
            }
        }
        Distribution::Runs => {
            for i in 1..slots.len() {
                if e.below(5) != 0 {
                    let prev = slots[i - 1].clone();
                    *slots[i] = prev;
                }
            }
        }
        Distribution::Sorted => {
            let mut values: Vec<Vec<u8>> = slots.iter().map(|s| s.to_vec()).collect();
            values.sort_by(|a, b| order(p, a, b));
            for (s, v) in slots.into_iter().zip(values) {
                *s = v;
            }
        }
    }
}

/// The type's order on value bytes (as [`Column::value_bytes`] gives them).
fn order(p: &Primitive, a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    let arr = |x: &[u8]| -> [u8; 8] {
        let mut out = [0u8; 8];
        out[..x.len().min(8)].copy_from_slice(&x[..x.len().min(8)]);
        out
    };
    match p.physical_type {
        Type::INT32 => i32::from_le_bytes(arr(a)[..4].try_into().unwrap_or_default()).cmp(
            &i32::from_le_bytes(arr(b)[..4].try_into().unwrap_or_default()),
        ),
        Type::INT64 => i64::from_le_bytes(arr(a)).cmp(&i64::from_le_bytes(arr(b))),
        Type::FLOAT => f32::from_le_bytes(arr(a)[..4].try_into().unwrap_or_default()).total_cmp(
            &f32::from_le_bytes(arr(b)[..4].try_into().unwrap_or_default()),
        ),
        Type::DOUBLE => f64::from_le_bytes(arr(a)).total_cmp(&f64::from_le_bytes(arr(b))),
        _ => a.cmp(b),
    }
}

const WORDS: &[&str] = &[
    "",
    "a",
    "zz",
    "é",
    "日本語",
    "🦀",
    "key",
    "Parquet",
    "\0",
    "x y",
];

/// One value of `p` as the file stores it (little-endian numbers, raw bytes).
pub fn leaf_value(e: &mut dyn Entropy, p: &Primitive, profile: &ColumnProfile) -> Vec<u8> {
    let edge = e.below(100) < profile.edge_percent as u64;
    let lt = p.logical_type.as_ref();
    match p.physical_type {
        Type::BOOLEAN => vec![e.below(2) as u8],
        Type::INT32 => {
            let (lo, hi): (i64, i64) = match lt {
                Some(LogicalType::Integer {
                    bit_width: 8,
                    is_signed: true,
                }) => (-128, 127),
                Some(LogicalType::Integer {
                    bit_width: 16,
                    is_signed: true,
                }) => (-32768, 32767),
                Some(LogicalType::Integer {
                    bit_width: 8,
                    is_signed: false,
                }) => (0, 255),
                Some(LogicalType::Integer {
                    bit_width: 16,
                    is_signed: false,
                }) => (0, 65535),
                Some(LogicalType::Time { .. }) => (0, 86_399_999),
                Some(LogicalType::Decimal { precision, .. }) => {
                    let m = 10i64.pow((*precision).clamp(1, 9) as u32) - 1;
                    (-m, m)
                }
                _ => (i32::MIN as i64, i32::MAX as i64),
            };
            let v = int_in(e, lo, hi, edge, 1000) as i32;
            v.to_le_bytes().to_vec()
        }
        Type::INT64 => {
            let (lo, hi): (i64, i64) = match lt {
                Some(LogicalType::Time {
                    unit: TimeUnit::Micros,
                    ..
                }) => (0, 86_399_999_999),
                Some(LogicalType::Time { .. }) => (0, 86_399_999_999_999),
                Some(LogicalType::Decimal { precision, .. }) => {
                    let m = 10i64.pow((*precision).clamp(1, 18) as u32) - 1;
                    (-m, m)
                }
                _ => (i64::MIN, i64::MAX),
            };
            int_in(e, lo, hi, edge, 1_000_000).to_le_bytes().to_vec()
        }
        Type::INT96 => {
            let last = 86_399_999_999_999;
            let nanos = if edge {
                *e.pick(&[0, last])
            } else {
                e.range(0, last)
            } as u64;
            let day = e.range(2_440_588 - 100_000, 2_440_588 + 100_000) as u32;
            let mut b = nanos.to_le_bytes().to_vec();
            b.extend_from_slice(&day.to_le_bytes());
            b
        }
        Type::FLOAT => {
            let v = if edge {
                f32::from_bits(*e.pick(&[
                    0x7FC0_0000, // quiet NaN
                    0x7F80_0001, // signalling NaN, payload 1
                    0xFFC0_1234, // negative NaN with a payload
                    0x8000_0000, // -0.0
                    0x0000_0000,
                    0x7F80_0000, // inf
                    0xFF80_0000, // -inf
                    0x0000_0001, // smallest subnormal
                    0x7F7F_FFFF, // f32::MAX
                ]))
            } else {
                e.range(-1_000_000, 1_000_000) as f32 / 64.0
            };
            v.to_le_bytes().to_vec()
        }
        Type::DOUBLE => {
            let v = if edge {
                f64::from_bits(*e.pick(&[
                    0x7FF8_0000_0000_0000,
                    0x7FF0_0000_0000_0001,
                    0xFFF8_0000_0000_0ABC,
                    0x8000_0000_0000_0000,
                    0x0000_0000_0000_0000,
                    0x7FF0_0000_0000_0000,
                    0xFFF0_0000_0000_0000,
                    0x0000_0000_0000_0001,
                    0x7FEF_FFFF_FFFF_FFFF,
                ]))
            } else {
                e.range(-1 << 40, 1 << 40) as f64 / 1024.0
            };
            v.to_le_bytes().to_vec()
        }
        Type::BYTE_ARRAY => byte_array_value(e, lt, edge, profile.long_len as usize),
        _ => fixed_value(e, p, edge),
    }
}

/// A number in `lo..=hi`: an edge (the bounds, 0, -1 when in range) or, half the time, a
/// small number near 0 (clamped), else uniform.
fn int_in(e: &mut dyn Entropy, lo: i64, hi: i64, edge: bool, small: i64) -> i64 {
    if edge {
        let v = *e.pick(&[lo, hi, 0, -1, lo.saturating_add(1), hi.saturating_sub(1)]);
        return v.clamp(lo, hi);
    }
    if e.below(2) == 0 {
        e.range(-small, small).clamp(lo, hi)
    } else {
        e.range(lo, hi)
    }
}

fn byte_array_value(
    e: &mut dyn Entropy,
    lt: Option<&LogicalType>,
    edge: bool,
    long: usize,
) -> Vec<u8> {
    match lt {
        Some(LogicalType::Decimal { precision, .. }) => {
            let m = 10i128.pow((*precision).clamp(1, 38) as u32) - 1;
            let v = if edge {
                *e.pick(&[m, -m, 0, -1])
            } else {
                decimal_in(e, m)
            };
            be_bytes_min(v)
        }
        Some(LogicalType::String | LogicalType::Enum) => {
            if edge {
                return if e.below(2) == 0 {
                    Vec::new()
                } else {
                    long_text(e, long).into_bytes()
                };
            }
            let mut s = String::new();
            for _ in 0..e.below(4) {
                let w: &&str = e.pick(WORDS);
                s.push_str(w);
            }
            s.push_str(&e.below(1000).to_string());
            s.into_bytes()
        }
        Some(LogicalType::Json) => {
            if edge {
                return format!("{{\"s\":\"{}\"}}", long_text(e, long)).into_bytes();
            }
            let v = e.below(1000);
            (*e.pick(&[
                format!("{{\"k\":{v}}}"),
                format!("[{v},null,true]"),
                format!("\"s{v}\""),
                "{}".to_string(),
            ]))
            .clone()
            .into_bytes()
        }
        _ => {
            let len = if edge {
                *e.pick(&[0, long])
            } else {
                e.below(20) as usize
            };
            (0..len).map(|_| e.below(256) as u8).collect()
        }
    }
}

/// A number in `-m..=m` (`m` < 10^38).
fn decimal_in(e: &mut dyn Entropy, m: i128) -> i128 {
    let bits = (e.bits() as u128) << 64 | e.bits() as u128;
    let (m, span) = (m.unsigned_abs(), 2 * m.unsigned_abs() + 1);
    let r = bits % span;
    if r >= m {
        (r - m) as i128
    } else {
        -((m - r) as i128)
    }
}

/// ASCII and multi-byte text of about `len` bytes.
fn long_text(e: &mut dyn Entropy, len: usize) -> String {
    let mut s = String::new();
    while s.len() < len {
        let w: &&str = e.pick(&["abcdefgh", "é", "🦀", " ", "0123456789"]);
        s.push_str(w);
    }
    s
}

fn fixed_value(e: &mut dyn Entropy, p: &Primitive, edge: bool) -> Vec<u8> {
    let width = p.type_length.unwrap_or(1).max(0) as usize;
    match p.logical_type.as_ref() {
        Some(LogicalType::Decimal { precision, .. }) => {
            let m = 10i128.pow((*precision).clamp(1, 38) as u32) - 1;
            let v = if edge {
                *e.pick(&[m, -m, 0, -1])
            } else {
                decimal_in(e, m)
            };
            v.to_be_bytes()[16 - width.min(16)..].to_vec()
        }
        Some(LogicalType::Float16) => {
            let h: u16 = if edge {
                *e.pick(&[
                    0x7E00, 0x7C01, 0xFE01, 0x8000, 0x0000, 0x7C00, 0xFC00, 0x0001, 0x7BFF,
                ])
            } else {
                // A finite half: any sign and mantissa, exponent below all-ones.
                let h = e.bits() as u16;
                (h & 0x83FF) | ((e.below(31) as u16) << 10)
            };
            h.to_le_bytes().to_vec()
        }
        _ if p.converted_type == Some(ConvertedType::INTERVAL) => {
            // months, days, millis: three little-endian u32
            (0..3)
                .flat_map(|_| (e.below(1000) as u32).to_le_bytes())
                .collect()
        }
        _ if edge => vec![*e.pick(&[0x00, 0xFF]); width],
        _ => (0..width).map(|_| e.below(256) as u8).collect(),
    }
}

/// Minimal big-endian two's complement bytes of `v` (how decimals in BYTE_ARRAY are stored).
pub fn be_bytes_min(v: i128) -> Vec<u8> {
    let b = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (x, next) = (b[start], b[start + 1]);
        if (x == 0 && next & 0x80 == 0) || (x == 0xFF && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    b[start..].to_vec()
}

/// Legal Arrow layout choices that must not change what a writer writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Layout {
    /// i64 list offsets (Arrow `LargeList`) instead of i32.
    pub large_offsets: bool,
    /// Child slots under null list and struct slots hold values (null lists non-empty child
    /// ranges), as Arrow allows.
    pub junk_under_nulls: bool,
    /// Built with extra rows around and sliced, so offsets do not start at 0.
    pub sliced: bool,
}

/// The array of `rows` (value trees of `field`) in Arrow layout: byte arrays as views and list
/// offsets as i64 when `profile.views` says so.
pub fn build_array(field: &Field, rows: &[Value], profile: &ColumnProfile) -> Array {
    let layout = Layout {
        large_offsets: profile.views,
        ..Layout::default()
    };
    // Without junk or slicing, nothing is drawn.
    build_array_with(&mut Rng::new(0), field, rows, profile, &layout)
}

/// The array of `rows` of `field` in the layout `layout` asks for; junk and the rows sliced
/// off are drawn from `e` with `profile`.
pub fn build_array_with(
    e: &mut dyn Entropy,
    field: &Field,
    rows: &[Value],
    profile: &ColumnProfile,
    layout: &Layout,
) -> Array {
    if !layout.sliced {
        return build_inner(e, field, rows, profile, layout);
    }
    let any = field.clone().required();
    let mut padded = vec![gen_value(e, &any, profile), gen_value(e, &any, profile)];
    padded.extend_from_slice(rows);
    padded.push(gen_value(e, &any, profile));
    build_inner(e, field, &padded, profile, layout).slice(2, rows.len())
}

fn build_inner(
    e: &mut dyn Entropy,
    field: &Field,
    rows: &[Value],
    profile: &ColumnProfile,
    layout: &Layout,
) -> Array {
    let junk = layout.junk_under_nulls;
    match &field.data_type {
        DataType::Primitive(p) => Array::Primitive(leaf_column(p, rows, profile.views)),
        DataType::Struct(children) => {
            let arrays = children
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let col: Vec<Value> = rows
                        .iter()
                        .map(|r| match r {
                            Value::Struct(v) => v.get(i).cloned().unwrap_or(Value::Null),
                            _ if junk => gen_value(e, &c.clone().optional(), profile),
                            _ => Value::Null,
                        })
                        .collect();
                    build_inner(e, c, &col, profile, layout)
                })
                .collect();
            Array::Struct(StructArray {
                len: rows.len(),
                validity: validity(rows),
                children: arrays,
            })
        }
        DataType::List(el) | DataType::Map(el) => {
            let map = matches!(field.data_type, DataType::Map(_));
            let mut offsets = vec![0i64];
            let mut child = Vec::new();
            for r in rows {
                match r {
                    Value::List(items) => child.extend(items.iter().cloned()),
                    Value::Map(entries) => child.extend(
                        entries
                            .iter()
                            .map(|(k, v)| Value::Struct(vec![k.clone(), v.clone()])),
                    ),
                    _ if junk => {
                        for _ in 0..e.below(3) {
                            child.push(gen_value(e, el, profile));
                        }
                    }
                    _ => {}
                }
                offsets.push(child.len() as i64);
            }
            if let DataType::Struct(kv) = &el.data_type {
                // A key-only map: entries of one field.
                if map && kv.len() == 1 {
                    for c in &mut child {
                        if let Value::Struct(v) = c {
                            v.truncate(1);
                        }
                    }
                }
            }
            let offsets = if layout.large_offsets {
                ListOffsets::Large(OffsetBuffer::new(ScalarBuffer::from(offsets)))
            } else {
                ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(
                    offsets.iter().map(|&o| o as i32).collect::<Vec<_>>(),
                )))
            };
            let list = ListArray {
                validity: validity(rows),
                offsets,
                values: Box::new(build_inner(e, el, &child, profile, layout)),
            };
            if map {
                Array::Map(list)
            } else {
                Array::List(list)
            }
        }
    }
}

fn validity(rows: &[Value]) -> Option<NullBuffer> {
    let v: Vec<bool> = rows.iter().map(|r| *r != Value::Null).collect();
    v.iter().any(|b| !b).then(|| NullBuffer::from(v))
}

fn leaf_column(p: &Primitive, rows: &[Value], views: bool) -> Column {
    let bytes: Vec<Option<&[u8]>> = rows
        .iter()
        .map(|r| match r {
            Value::Leaf(b) => Some(b.as_slice()),
            _ => None,
        })
        .collect();
    let fixed = |w: usize| -> Vec<u8> {
        let mut out = Vec::with_capacity(bytes.len() * w);
        for b in &bytes {
            match b {
                Some(b) if b.len() == w => out.extend_from_slice(b),
                _ => out.extend(std::iter::repeat_n(0u8, w)),
            }
        }
        out
    };
    let values = match p.physical_type {
        Type::BOOLEAN => Values::Boolean(
            bytes
                .iter()
                .map(|b| b.is_some_and(|b| b.first() == Some(&1)))
                .collect(),
        ),
        Type::INT32 => Values::Int32(ScalarBuffer::from(bytemuck::pod_collect_to_vec::<u8, i32>(
            &fixed(4),
        ))),
        Type::INT64 => Values::Int64(ScalarBuffer::from(bytemuck::pod_collect_to_vec::<u8, i64>(
            &fixed(8),
        ))),
        Type::FLOAT => Values::Float(ScalarBuffer::from(bytemuck::pod_collect_to_vec::<u8, f32>(
            &fixed(4),
        ))),
        Type::DOUBLE => Values::Double(ScalarBuffer::from(
            bytemuck::pod_collect_to_vec::<u8, f64>(&fixed(8)),
        )),
        Type::INT96 => Values::Int96(Buffer::from_vec(fixed(12))),
        Type::FIXED_LEN_BYTE_ARRAY => {
            let w = p.type_length.unwrap_or(1).max(0) as usize;
            Values::FixedLenByteArray {
                width: w,
                data: Buffer::from_vec(fixed(w)),
            }
        }
        _ if views => Values::views_of(bytes.iter().map(|b| b.unwrap_or_default())),
        _ => {
            let mut offsets = vec![0i64];
            let mut data = Vec::new();
            for b in &bytes {
                data.extend_from_slice(b.unwrap_or_default());
                offsets.push(data.len() as i64);
            }
            Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                data: Buffer::from_vec(data),
            }
        }
    };
    Column {
        len: rows.len(),
        validity: validity(rows),
        values,
    }
}
