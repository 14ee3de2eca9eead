//! Min/max statistics in the order each column's type defines (`ColumnOrder.TYPE_ORDER` in
//! `parquet.thrift`), PLAIN-encoded without length prefix, for chunks, pages and the column
//! index.
//!
//! The rules readers rely on, from the `ColumnOrder` comment of `parquet.thrift`:
//! * integers compare signed, or unsigned when annotated `UINT_*` / `INTEGER(_, false)`;
//! * FLOAT, DOUBLE and FLOAT16 ignore NaN (all NaN: no min/max), a zero min is written `-0.0`
//!   and a zero max `+0.0`, and `nan_count` is always set;
//! * byte arrays and FIXED_LEN_BYTE_ARRAY compare as unsigned bytes, except decimals, which
//!   compare as signed big-endian integers;
//! * INT96, INTERVAL and the geospatial/variant types have no usable order here: no min/max.
//!
//! Long byte-array bounds are truncated: the min to a prefix, the max to a prefix whose last
//! byte (UTF-8 code point for strings) is incremented, and both are then marked inexact.

use std::cmp::Ordering;

use arrow_buffer::BooleanBuffer;
use parq_codecs::kernels::byte_arrays::Offset;

use super::paged_values::ByteRun;

use crate::metadata::{ConvertedType, InlineBytes, LogicalType, Statistics, Type};

/// How a column's values are ordered for min/max.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SortOrder {
    /// `false < true`.
    Boolean,
    /// Two's complement little-endian INT32/INT64.
    Signed,
    /// INT32/INT64 compared as unsigned.
    Unsigned,
    /// FLOAT/DOUBLE by value, NaN ignored.
    Float,
    /// FLOAT16 (2 little-endian bytes) by value, NaN ignored.
    Float16,
    /// Unsigned lexicographic bytes.
    Bytes,
    /// Big-endian two's complement of any length (decimal on byte arrays).
    SignedBytes,
    /// No defined order: no min/max.
    Undefined,
}

impl SortOrder {
    /// The order of a leaf with the given types.
    pub(crate) fn of(
        physical: Type,
        logical: Option<&LogicalType>,
        converted: Option<ConvertedType>,
    ) -> SortOrder {
        if let Some(lt) = logical {
            match lt {
                LogicalType::Integer {
                    is_signed: false, ..
                } => return SortOrder::Unsigned,
                LogicalType::Decimal { .. } => {
                    return match physical {
                        Type::INT32 | Type::INT64 => SortOrder::Signed,
                        _ => SortOrder::SignedBytes,
                    }
                }
                LogicalType::Float16 => return SortOrder::Float16,
                LogicalType::Map
                | LogicalType::List
                | LogicalType::Variant { .. }
                | LogicalType::Geometry { .. }
                | LogicalType::Geography { .. }
                | LogicalType::Vector
                | LogicalType::Unknown { .. } => return SortOrder::Undefined,
                _ => {}
            }
        } else if let Some(ct) = converted {
            match ct {
                ConvertedType::UINT_8
                | ConvertedType::UINT_16
                | ConvertedType::UINT_32
                | ConvertedType::UINT_64 => return SortOrder::Unsigned,
                ConvertedType::DECIMAL => {
                    return match physical {
                        Type::INT32 | Type::INT64 => SortOrder::Signed,
                        _ => SortOrder::SignedBytes,
                    }
                }
                ConvertedType::INTERVAL
                | ConvertedType::MAP
                | ConvertedType::MAP_KEY_VALUE
                | ConvertedType::LIST => return SortOrder::Undefined,
                _ => {}
            }
        }
        match physical {
            Type::BOOLEAN => SortOrder::Boolean,
            Type::INT32 | Type::INT64 => SortOrder::Signed,
            Type::FLOAT | Type::DOUBLE => SortOrder::Float,
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => SortOrder::Bytes,
            _ => SortOrder::Undefined,
        }
    }

    /// Compare two PLAIN-encoded bounds of this order.
    pub(crate) fn compare(self, a: &[u8], b: &[u8]) -> Ordering {
        fn arr<const N: usize>(v: &[u8]) -> [u8; N] {
            let mut out = [0u8; N];
            let n = v.len().min(N);
            out[..n].copy_from_slice(&v[..n]);
            out
        }
        match self {
            SortOrder::Boolean | SortOrder::Bytes | SortOrder::Undefined => a.cmp(b),
            SortOrder::Signed if a.len() == 4 => {
                i32::from_le_bytes(arr(a)).cmp(&i32::from_le_bytes(arr(b)))
            }
            SortOrder::Signed => i64::from_le_bytes(arr(a)).cmp(&i64::from_le_bytes(arr(b))),
            SortOrder::Unsigned if a.len() == 4 => {
                u32::from_le_bytes(arr(a)).cmp(&u32::from_le_bytes(arr(b)))
            }
            SortOrder::Unsigned => u64::from_le_bytes(arr(a)).cmp(&u64::from_le_bytes(arr(b))),
            SortOrder::Float if a.len() == 4 => f32::from_le_bytes(arr(a))
                .partial_cmp(&f32::from_le_bytes(arr(b)))
                .unwrap_or(Ordering::Equal),
            SortOrder::Float => f64::from_le_bytes(arr(a))
                .partial_cmp(&f64::from_le_bytes(arr(b)))
                .unwrap_or(Ordering::Equal),
            SortOrder::Float16 => f16_to_f32(u16::from_le_bytes(arr(a)))
                .partial_cmp(&f16_to_f32(u16::from_le_bytes(arr(b))))
                .unwrap_or(Ordering::Equal),
            SortOrder::SignedBytes => cmp_signed_be(a, b),
        }
    }
}

/// Compare big-endian two's complement integers of any lengths (the empty array is 0).
pub(crate) fn cmp_signed_be(a: &[u8], b: &[u8]) -> Ordering {
    let neg = |v: &[u8]| v.first().is_some_and(|x| x & 0x80 != 0);
    let (na, nb) = (neg(a), neg(b));
    if na != nb {
        return if na {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    let pad = if na { 0xFF } else { 0 };
    let n = a.len().max(b.len());
    let at = |v: &[u8], i: usize| {
        let lead = n - v.len();
        if i < lead {
            pad
        } else {
            v[i - lead]
        }
    };
    (0..n)
        .map(|i| at(a, i).cmp(&at(b, i)))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}

/// An IEEE 754 half (binary16) as `f32` (exact).
pub(crate) fn f16_to_f32(h: u16) -> f32 {
    let sign = ((h >> 15) as u32) << 31;
    let exp = ((h >> 10) & 0x1f) as u32;
    let mant = (h & 0x3ff) as u32;
    let bits = match (exp, mant) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: m * 2^-24.
            let v = m as f32 * f32::from_bits(0x3380_0000);
            return if sign != 0 { -v } else { v };
        }
        (0x1f, 0) => sign | 0x7f80_0000,
        (0x1f, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 127 - 15) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// PLAIN-encoded lower and upper bounds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MinMax {
    pub min: Vec<u8>,
    pub max: Vec<u8>,
    pub min_exact: bool,
    pub max_exact: bool,
}

/// Statistics of one page or chunk.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    pub null_count: u64,
    /// Set for floating point columns.
    pub nan_count: Option<u64>,
    pub min_max: Option<MinMax>,
}

impl Stats {
    /// Fold another page's statistics into a chunk's.
    pub(crate) fn merge(&mut self, other: &Stats, order: SortOrder) {
        self.null_count += other.null_count;
        if let Some(n) = other.nan_count {
            *self.nan_count.get_or_insert(0) += n;
        }
        let Some(o) = &other.min_max else { return };
        match &mut self.min_max {
            None => self.min_max = Some(o.clone()),
            Some(m) => {
                match order.compare(&o.min, &m.min) {
                    Ordering::Less => {
                        m.min.clone_from(&o.min);
                        m.min_exact = o.min_exact;
                    }
                    Ordering::Equal => m.min_exact |= o.min_exact,
                    Ordering::Greater => {}
                }
                match order.compare(&o.max, &m.max) {
                    Ordering::Greater => {
                        m.max.clone_from(&o.max);
                        m.max_exact = o.max_exact;
                    }
                    Ordering::Equal => m.max_exact |= o.max_exact,
                    Ordering::Less => {}
                }
            }
        }
    }

    /// The thrift `Statistics` (`min_value`/`max_value`, never the deprecated `min`/`max`).
    pub(crate) fn to_thrift(&self, with_min_max: bool) -> Statistics {
        let mm = self.min_max.as_ref().filter(|_| with_min_max);
        Statistics {
            null_count: Some(self.null_count as i64),
            nan_count: self.nan_count.map(|n| n as i64),
            min_value: mm.map(|m| InlineBytes::from(&m.min[..])),
            max_value: mm.map(|m| InlineBytes::from(&m.max[..])),
            is_min_value_exact: mm.map(|m| m.min_exact),
            is_max_value_exact: mm.map(|m| m.max_exact),
            ..Statistics::default()
        }
    }
}

fn exact(min: Vec<u8>, max: Vec<u8>) -> MinMax {
    MinMax {
        min,
        max,
        min_exact: true,
        max_exact: true,
    }
}

/// Min and max of a non-empty slice, 8 independent lanes at a time: no loop-carried branch,
/// so the compiler turns it into compare-and-select (vector code where the target has it).
#[inline]
fn min_max_lanes<T: Copy + PartialOrd>(values: &[T]) -> (T, T) {
    let mut mins = [values[0]; 8];
    let mut maxs = [values[0]; 8];
    let mut chunks = values.chunks_exact(8);
    for c in chunks.by_ref() {
        for l in 0..8 {
            mins[l] = if c[l] < mins[l] { c[l] } else { mins[l] };
            maxs[l] = if c[l] > maxs[l] { c[l] } else { maxs[l] };
        }
    }
    let (mut min, mut max) = (values[0], values[0]);
    for &v in mins.iter().chain(chunks.remainder()) {
        min = if v < min { v } else { min };
    }
    for &v in maxs.iter().chain(chunks.remainder()) {
        max = if v > max { v } else { max };
    }
    (min, max)
}

/// Min/max of INT32 values.
pub(crate) fn int32(values: &[i32], order: SortOrder) -> Option<MinMax> {
    if values.is_empty() {
        return None;
    }
    let (min, max) = if order == SortOrder::Unsigned {
        let (min, max) = min_max_lanes(bytemuck::cast_slice::<i32, u32>(values));
        (min as i32, max as i32)
    } else {
        min_max_lanes(values)
    };
    Some(exact(
        min.to_le_bytes().to_vec(),
        max.to_le_bytes().to_vec(),
    ))
}

/// Min/max of INT64 values.
pub(crate) fn int64(values: &[i64], order: SortOrder) -> Option<MinMax> {
    if values.is_empty() {
        return None;
    }
    let (min, max) = if order == SortOrder::Unsigned {
        let (min, max) = min_max_lanes(bytemuck::cast_slice::<i64, u64>(values));
        (min as i64, max as i64)
    } else {
        min_max_lanes(values)
    };
    Some(exact(
        min.to_le_bytes().to_vec(),
        max.to_le_bytes().to_vec(),
    ))
}

/// Min and max ignoring NaN (infinities when every value is NaN) and the NaN count, 8 lanes
/// at a time: a NaN compares false, so it never replaces a bound.
macro_rules! float_min_max {
    ($values:expr, $t:ty) => {{
        let values: &[$t] = $values;
        let mut mins = [<$t>::INFINITY; 8];
        let mut maxs = [<$t>::NEG_INFINITY; 8];
        let mut nans = [0u64; 8];
        let mut chunks = values.chunks_exact(8);
        for c in chunks.by_ref() {
            for l in 0..8 {
                let v = c[l];
                mins[l] = if v < mins[l] { v } else { mins[l] };
                maxs[l] = if v > maxs[l] { v } else { maxs[l] };
                nans[l] += v.is_nan() as u64;
            }
        }
        let (mut min, mut max) = (<$t>::INFINITY, <$t>::NEG_INFINITY);
        let mut nan = nans.iter().sum::<u64>();
        for &v in chunks.remainder() {
            nan += v.is_nan() as u64;
        }
        for &v in mins.iter().chain(chunks.remainder()) {
            min = if v < min { v } else { min };
        }
        for &v in maxs.iter().chain(chunks.remainder()) {
            max = if v > max { v } else { max };
        }
        (min, max, nan)
    }};
}

/// Min/max (NaN ignored, zero rules applied) and NaN count of FLOAT values.
pub(crate) fn float32(values: &[f32]) -> (Option<MinMax>, u64) {
    let (mut min, mut max, nans) = float_min_max!(values, f32);
    if nans as usize == values.len() {
        return (None, nans);
    }
    if min == 0.0 {
        min = -0.0;
    }
    if max == 0.0 {
        max = 0.0;
    }
    (
        Some(exact(
            min.to_le_bytes().to_vec(),
            max.to_le_bytes().to_vec(),
        )),
        nans,
    )
}

/// Min/max (NaN ignored, zero rules applied) and NaN count of DOUBLE values.
pub(crate) fn float64(values: &[f64]) -> (Option<MinMax>, u64) {
    let (mut min, mut max, nans) = float_min_max!(values, f64);
    if nans as usize == values.len() {
        return (None, nans);
    }
    if min == 0.0 {
        min = -0.0;
    }
    if max == 0.0 {
        max = 0.0;
    }
    (
        Some(exact(
            min.to_le_bytes().to_vec(),
            max.to_le_bytes().to_vec(),
        )),
        nans,
    )
}

/// Min/max and NaN count of FLOAT16 values (`data` holds 2 little-endian bytes per value).
pub(crate) fn float16(data: &[u8]) -> (Option<MinMax>, u64) {
    let mut best: Option<(f32, u16, f32, u16)> = None;
    let mut nans = 0u64;
    for c in data.chunks_exact(2) {
        let h = u16::from_le_bytes([c[0], c[1]]);
        let f = f16_to_f32(h);
        if f.is_nan() {
            nans += 1;
            continue;
        }
        match &mut best {
            None => best = Some((f, h, f, h)),
            Some((lo, lh, hi, hh)) => {
                if f < *lo {
                    (*lo, *lh) = (f, h);
                }
                if f > *hi {
                    (*hi, *hh) = (f, h);
                }
            }
        }
    }
    let Some((lo, mut lh, hi, mut hh)) = best else {
        return (None, nans);
    };
    if lo == 0.0 {
        lh = 0x8000;
    }
    if hi == 0.0 {
        hh = 0x0000;
    }
    (
        Some(exact(lh.to_le_bytes().to_vec(), hh.to_le_bytes().to_vec())),
        nans,
    )
}

/// Min/max of booleans (`false < true`).
pub(crate) fn boolean(bits: &BooleanBuffer) -> Option<MinMax> {
    if bits.is_empty() {
        return None;
    }
    let ones = bits.count_set_bits();
    let min = (ones == bits.len()) as u8;
    let max = (ones > 0) as u8;
    Some(exact(vec![min], vec![max]))
}

/// Min/max of byte strings in `order` ([`SortOrder::Bytes`] or [`SortOrder::SignedBytes`]),
/// truncated to `truncate` bytes when longer (UTF-8 aware when `utf8`).
pub(crate) fn byte_arrays<'a>(
    values: impl Iterator<Item = &'a [u8]>,
    order: SortOrder,
    truncate: Option<usize>,
    utf8: bool,
) -> Option<MinMax> {
    let mut it = values;
    let first = it.next()?;
    let (mut min, mut max) = (first, first);
    if order == SortOrder::SignedBytes {
        for v in it {
            if cmp_signed_be(v, min).is_lt() {
                min = v;
            }
            if cmp_signed_be(v, max).is_gt() {
                max = v;
            }
        }
    } else {
        // The first 8 bytes as a big-endian integer decide most comparisons without a
        // `memcmp` call: a strictly smaller prefix is a strictly smaller string.
        let (mut min_key, mut max_key) = (prefix_key(min), prefix_key(max));
        for v in it {
            let k = prefix_key(v);
            if k < min_key || (k == min_key && v < min) {
                (min, min_key) = (v, k);
            } else if k > max_key || (k == max_key && v > max) {
                (max, max_key) = (v, k);
            }
        }
    }
    Some(byte_bounds(min, max, order, truncate, utf8))
}

/// The min/max statistics of byte strings whose least and greatest are `min` and `max`:
/// truncated to `truncate` bytes when longer (UTF-8 aware when `utf8`) in unsigned order.
fn byte_bounds(
    min: &[u8],
    max: &[u8],
    order: SortOrder,
    truncate: Option<usize>,
    utf8: bool,
) -> MinMax {
    let limit = match truncate {
        Some(l) if order == SortOrder::Bytes => l,
        _ => return exact(min.to_vec(), max.to_vec()),
    };
    let (min, min_exact) = truncate_min(min, limit, utf8);
    let (max, max_exact) = truncate_max(max, limit, utf8);
    MinMax {
        min,
        max,
        min_exact,
        max_exact,
    }
}

/// [`byte_arrays`] in unsigned order ([`SortOrder::Bytes`]) of the values of `runs`, read
/// from their offsets: a value's 8-byte prefix key is one 8-byte load from the run's bytes,
/// masked to the value's length, wherever the bytes go on for 8 more from the value's start
/// (probe `write.stats_prefix_load`); a short value at the very end is copied out as
/// [`byte_arrays`] does. The result is [`byte_arrays`]'s over the same values.
pub(crate) fn byte_array_runs(
    runs: &[ByteRun<'_>],
    truncate: Option<usize>,
    utf8: bool,
) -> Option<MinMax> {
    let mut acc: Option<KeyedMinMax<'_>> = None;
    for run in runs {
        match *run {
            ByteRun::Small(offsets, data) => keyed_min_max(offsets, data, &mut acc),
            ByteRun::Large(offsets, data) => keyed_min_max(offsets, data, &mut acc),
        }
    }
    let acc = acc?;
    Some(byte_bounds(
        acc.min,
        acc.max,
        SortOrder::Bytes,
        truncate,
        utf8,
    ))
}

/// The least and greatest byte strings so far in unsigned order, with their prefix keys.
struct KeyedMinMax<'a> {
    min: &'a [u8],
    min_key: u64,
    max: &'a [u8],
    max_key: u64,
}

/// Fold the values `data[offsets[i]..offsets[i + 1]]` into `acc`.
///
/// Most values fall strictly between the keys of the least and greatest so far: two compares
/// of keys, no slice made. Only a key at or past either bound looks at the bytes.
fn keyed_min_max<'a, O: Offset>(offsets: &[O], data: &'a [u8], acc: &mut Option<KeyedMinMax<'a>>) {
    // Offsets are non-negative (the writer's `check_values` checked them).
    let mut values = offsets
        .windows(2)
        .map(|w| (w[0].into() as usize, w[1].into() as usize));
    let mut a = match acc.take() {
        Some(a) => a,
        None => {
            let Some((s, e)) = values.next() else {
                return;
            };
            let k = prefix_key(&data[s..e]);
            KeyedMinMax {
                min: &data[s..e],
                min_key: k,
                max: &data[s..e],
                max_key: k,
            }
        }
    };
    let mut loads = 0u64;
    for (s, e) in values {
        let k = match data.get(s..s + 8) {
            Some(word) => {
                loads += 1;
                let word = u64::from_be_bytes(word.try_into().unwrap_or_default());
                // The value's own bytes: the top `len` bytes of the big-endian word (none of
                // an empty value: a shift by 64 is no shift, hence the `checked_shl`).
                let keep = 8 * (e - s).min(8) as u32;
                word & u64::MAX.checked_shl(64 - keep).unwrap_or(0)
            }
            None => prefix_key(&data[s..e]),
        };
        if k > a.min_key && k < a.max_key {
            continue;
        }
        let v = &data[s..e];
        if k < a.min_key || (k == a.min_key && v < a.min) {
            (a.min, a.min_key) = (v, k);
        } else if k > a.max_key || (k == a.max_key && v > a.max) {
            (a.max, a.max_key) = (v, k);
        }
    }
    parq_codecs::probe::hit_n("write.stats_prefix_load", loads);
    *acc = Some(a);
}

/// The first 8 bytes of `v`, zero-padded, as a big-endian integer: `prefix_key(a) <
/// prefix_key(b)` implies `a < b` in unsigned lexicographic order (equal keys decide nothing).
#[inline(always)]
fn prefix_key(v: &[u8]) -> u64 {
    match v.get(..8) {
        Some(head) => u64::from_be_bytes(head.try_into().unwrap_or_default()),
        None => {
            let mut buf = [0u8; 8];
            buf[..v.len()].copy_from_slice(v);
            u64::from_be_bytes(buf)
        }
    }
}

/// Min/max of FIXED_LEN_BYTE_ARRAY values of `width` bytes (never truncated: a bound must
/// keep the type's width).
pub(crate) fn fixed(data: &[u8], width: usize, order: SortOrder) -> (Option<MinMax>, Option<u64>) {
    match order {
        SortOrder::Float16 if width == 2 => {
            let (mm, nans) = float16(data);
            (mm, Some(nans))
        }
        SortOrder::Bytes | SortOrder::SignedBytes if width > 0 => (
            byte_arrays(data.chunks_exact(width), order, None, false),
            None,
        ),
        _ => (None, None),
    }
}

/// A lower bound of at most `limit` bytes, and whether it is `v` itself.
pub(crate) fn truncate_min(v: &[u8], limit: usize, utf8: bool) -> (Vec<u8>, bool) {
    if v.len() <= limit {
        return (v.to_vec(), true);
    }
    let mut end = limit;
    if utf8 && std::str::from_utf8(v).is_ok() {
        // Back up to a char boundary so the bound stays valid UTF-8.
        while end > 0 && (v[end] & 0xC0) == 0x80 {
            end -= 1;
        }
    }
    (v[..end].to_vec(), false)
}

/// An upper bound of at most `limit` bytes (UTF-8 strings: about `limit`, on char
/// boundaries), and whether it is `v` itself. When no shorter bound exists (all `0xFF`, or
/// only `U+10FFFF`) `v` is kept whole.
pub(crate) fn truncate_max(v: &[u8], limit: usize, utf8: bool) -> (Vec<u8>, bool) {
    if v.len() <= limit {
        return (v.to_vec(), true);
    }
    if utf8 {
        if let Ok(s) = std::str::from_utf8(v) {
            let mut end = limit;
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            let prefix = &s[..end];
            for (i, c) in prefix.char_indices().rev() {
                let next = match c as u32 {
                    0xD7FF => Some('\u{E000}'),
                    n => char::from_u32(n + 1),
                };
                if let Some(n) = next {
                    let mut out = prefix.as_bytes()[..i].to_vec();
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(n.encode_utf8(&mut buf).as_bytes());
                    return (out, false);
                }
            }
            return (v.to_vec(), true);
        }
    }
    let mut out = v[..limit].to_vec();
    while let Some(last) = out.last_mut() {
        if *last < 0xFF {
            *last += 1;
            return (out, false);
        }
        out.pop();
    }
    (v.to_vec(), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Min/max from runs of offsets (prefix keys loaded whole, masked) are those of the
    /// slices: values with equal prefixes, empty values, values ending at the buffer's end,
    /// runs of i32 and i64 offsets, truncated or not.
    #[test]
    fn byte_array_runs_match_the_slices() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for n in [1usize, 2, 5, 40, 500] {
            let mut data = Vec::new();
            let mut ends = vec![0usize];
            for _ in 0..n {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                // Few distinct bytes, so that prefixes tie and short values prefix long ones.
                let len = (x % 14) as usize;
                data.extend((0..len).map(|i| b"ab\xff"[((x >> (2 * i)) % 3) as usize]));
                ends.push(data.len());
            }
            let i64s: Vec<i64> = ends.iter().map(|&e| e as i64).collect();
            let i32s: Vec<i32> = ends.iter().map(|&e| e as i32).collect();
            let cut = n / 3;
            let runs = [
                ByteRun::Small(&i32s[..=cut], &data),
                ByteRun::Large(&i64s[cut..], &data),
            ];
            let slices = ends.windows(2).map(|w| &data[w[0]..w[1]]);
            for truncate in [None, Some(3)] {
                assert_eq!(
                    byte_array_runs(&runs, truncate, false),
                    byte_arrays(slices.clone(), SortOrder::Bytes, truncate, false),
                    "n {n} truncate {truncate:?}"
                );
            }
        }
        assert_eq!(
            byte_array_runs(&[ByteRun::Small(&[0], &[])], None, false),
            None
        );
    }

    #[test]
    fn float_zero_and_nan_rules() {
        let (mm, nans) = float64(&[0.0, f64::NAN, 1.0]);
        let mm = mm.unwrap();
        assert_eq!(nans, 1);
        assert_eq!(
            f64::from_le_bytes(mm.min.try_into().unwrap()).to_bits(),
            (-0.0f64).to_bits()
        );
        let (mm, _) = float32(&[-0.0, -1.0]);
        let mm = mm.unwrap();
        assert_eq!(f32::from_le_bytes(mm.max.try_into().unwrap()).to_bits(), 0);
        assert_eq!(float32(&[f32::NAN, f32::NAN]), (None, 2));
        assert_eq!(float32(&[]), (None, 0));
        // FLOAT16: 1.0 = 0x3C00, -2.0 = 0xC000, NaN = 0x7E00, -0 = 0x8000.
        let (mm, nans) = float16(&[0x00, 0x3C, 0x00, 0x7E, 0x00, 0x80]);
        let mm = mm.unwrap();
        assert_eq!(
            (mm.min, mm.max, nans),
            (vec![0x00, 0x80], vec![0x00, 0x3C], 1)
        );
        let (mm, _) = float16(&[0x00, 0xC0, 0x00, 0x00]);
        assert_eq!(mm.unwrap().max, vec![0, 0]);
    }

    /// The lane-wise and prefix-keyed paths agree with plain iterator min/max.
    #[test]
    fn lanes_and_prefixes_match_naive() {
        let mut x = 0x853c_49e6_748f_ea9bu64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for n in [1usize, 7, 8, 9, 17, 100] {
            let v64: Vec<i64> = (0..n).map(|_| next() as i64 >> (next() % 60)).collect();
            let mm = int64(&v64, SortOrder::Signed).unwrap();
            assert_eq!(mm.min, v64.iter().min().unwrap().to_le_bytes());
            assert_eq!(mm.max, v64.iter().max().unwrap().to_le_bytes());
            let mm = int64(&v64, SortOrder::Unsigned).unwrap();
            assert_eq!(
                mm.min,
                v64.iter().map(|&v| v as u64).min().unwrap().to_le_bytes()
            );
            let v32: Vec<i32> = v64.iter().map(|&v| v as i32).collect();
            let mm = int32(&v32, SortOrder::Signed).unwrap();
            assert_eq!(mm.max, v32.iter().max().unwrap().to_le_bytes());
            let mm = int32(&v32, SortOrder::Unsigned).unwrap();
            assert_eq!(
                mm.max,
                v32.iter().map(|&v| v as u32).max().unwrap().to_le_bytes()
            );
            let mut f: Vec<f64> = v64.iter().map(|&v| v as f64 / 3.0).collect();
            f[n / 2] = f64::NAN;
            let (mm, nans) = float64(&f);
            let finite = f.iter().copied().filter(|v| !v.is_nan());
            let lo = finite.clone().fold(f64::INFINITY, f64::min);
            let hi = finite.fold(f64::NEG_INFINITY, f64::max);
            assert_eq!(nans, 1);
            if n > 1 {
                let mm = mm.unwrap();
                assert_eq!(mm.min, lo.to_le_bytes());
                assert_eq!(mm.max, hi.to_le_bytes());
            }
            // Strings sharing 8-byte prefixes, shorter than 8, and with zero bytes.
            let s: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let r = next();
                    let len = (r % 12) as usize;
                    let mut v = b"prefix00".to_vec();
                    v.truncate(len.min(8));
                    v.extend((0..len.saturating_sub(8)).map(|i| (r >> (8 * i)) as u8 % 3));
                    v
                })
                .collect();
            let mm = byte_arrays(s.iter().map(|v| &v[..]), SortOrder::Bytes, None, false).unwrap();
            assert_eq!(&mm.min, s.iter().min().unwrap());
            assert_eq!(&mm.max, s.iter().max().unwrap());
        }
    }

    #[test]
    fn f16_conversion() {
        assert_eq!(f16_to_f32(0x3C00), 1.0);
        assert_eq!(f16_to_f32(0xC000), -2.0);
        assert_eq!(f16_to_f32(0x7BFF), 65504.0);
        assert_eq!(f16_to_f32(0x0001), 2f32.powi(-24));
        assert!(f16_to_f32(0x7E00).is_nan());
        assert_eq!(f16_to_f32(0xFC00), f32::NEG_INFINITY);
    }

    #[test]
    fn unsigned_and_signed_ints() {
        let mm = int32(&[-1, 5], SortOrder::Unsigned).unwrap();
        assert_eq!(mm.min, 5i32.to_le_bytes());
        assert_eq!(mm.max, (-1i32).to_le_bytes());
        let mm = int64(&[-1, 5], SortOrder::Signed).unwrap();
        assert_eq!(mm.min, (-1i64).to_le_bytes());
        assert!(SortOrder::Unsigned
            .compare(&(-1i32).to_le_bytes(), &5i32.to_le_bytes())
            .is_gt());
    }

    #[test]
    fn signed_big_endian() {
        assert!(cmp_signed_be(&[0xFF], &[0x00]).is_lt());
        assert!(cmp_signed_be(&[0xFF, 0xFE], &[0xFF]).is_lt()); // -2 < -1
        assert!(cmp_signed_be(&[0x01, 0x00], &[0x7F]).is_gt()); // 256 > 127
        assert!(cmp_signed_be(&[], &[0x00, 0x00]).is_eq());
        let mm = byte_arrays(
            [&[0x01u8][..], &[0x80], &[0x00, 0x05]].into_iter(),
            SortOrder::SignedBytes,
            Some(1),
            false,
        )
        .unwrap();
        assert_eq!((mm.min, mm.max), (vec![0x80], vec![0x00, 0x05]));
    }

    #[test]
    fn truncation() {
        let long = vec![b'a'; 100];
        assert_eq!(truncate_min(&long, 64, false), (vec![b'a'; 64], false));
        let (max, exact) = truncate_max(&long, 64, false);
        assert!(!exact);
        assert_eq!(max.len(), 64);
        assert_eq!(max[63], b'b');
        let mut ff = vec![b'a'; 10];
        ff.extend([0xFF; 90]);
        let (max, _) = truncate_max(&ff, 64, false);
        assert_eq!(max, [&[b'a'; 9][..], b"b"].concat());
        assert_eq!(truncate_max(&[0xFF; 70], 64, false), (vec![0xFF; 70], true));
        // UTF-8: 'é' is 2 bytes; the bound stays on char boundaries and valid.
        let s = "é".repeat(40);
        let (min, _) = truncate_min(s.as_bytes(), 63, true);
        assert_eq!(min.len(), 62);
        let (max, exact) = truncate_max(s.as_bytes(), 63, true);
        assert!(!exact);
        let max = String::from_utf8(max).unwrap();
        assert_eq!(max, format!("{}ê", "é".repeat(30)));
        assert!(max.as_bytes() > s.as_bytes());
        let short = byte_arrays(
            [&b"b"[..], b"a", b"c"].into_iter(),
            SortOrder::Bytes,
            Some(64),
            true,
        )
        .unwrap();
        assert_eq!(
            (short.min, short.max, short.min_exact),
            (b"a".to_vec(), b"c".to_vec(), true)
        );
    }

    #[test]
    fn merge_keeps_bounds() {
        let order = SortOrder::Signed;
        let mut a = Stats {
            null_count: 1,
            nan_count: None,
            min_max: int32(&[3, 9], order),
        };
        a.merge(
            &Stats {
                null_count: 2,
                nan_count: None,
                min_max: int32(&[-4, 5], order),
            },
            order,
        );
        a.merge(
            &Stats {
                null_count: 3,
                ..Stats::default()
            },
            order,
        );
        let mm = a.min_max.unwrap();
        assert_eq!(a.null_count, 6);
        assert_eq!(
            (mm.min, mm.max),
            ((-4i32).to_le_bytes().to_vec(), 9i32.to_le_bytes().to_vec())
        );
    }
}
