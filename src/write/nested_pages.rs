//! The chunk-level pieces of writing a shredded leaf ([`LeafLevels`]): its stored values
//! gathered into one dense run, pages cut on record boundaries, and the level streams and
//! level histograms of each page.
//!
//! Pages always start at a record (repetition level 0): v2 pages must, and so must every page
//! of a chunk with an offset index (`PageIndex.md`: `first_row_index` locates records), which
//! parq writes by default. A page therefore holds whole records even when one record's levels
//! exceed the target page size.

use std::borrow::Cow;

use arrow_buffer::BooleanBufferBuilder;
use parq_codecs::encoding::{bitpack, rle};

use super::column::{Dense, PageRange};
use super::shred::{LeafLevels, Piece};
use crate::column::{Column, Values};
use crate::metadata::Type;
use crate::{Error, Result};

/// The stored values of `leaf`, in order: borrowed when they are one run of one column,
/// otherwise gathered with one copy per run.
pub(crate) fn dense_values(leaf: &LeafLevels, physical: Type) -> Result<Dense<'_>> {
    let n = leaf.values;
    let single = match leaf.pieces.as_slice() {
        [Piece { column, runs }] if runs.len() == 1 => Some((column, runs[0])),
        _ => None,
    };
    let mismatch = || {
        Error::InvalidArgument(format!(
            "leaf columns of different layouts for physical type {physical}"
        ))
    };
    macro_rules! scalars {
        ($variant:ident, $dense:ident) => {{
            if let Some((c, (s, e))) = single {
                let Values::$variant(v) = &c.values else {
                    return Err(mismatch());
                };
                return Ok(Dense::$dense(Cow::Borrowed(&v[s..e])));
            }
            let mut out = Vec::with_capacity(n);
            for p in &leaf.pieces {
                let Values::$variant(v) = &p.column.values else {
                    return Err(mismatch());
                };
                for &(s, e) in &p.runs {
                    out.extend_from_slice(&v[s..e]);
                }
            }
            Dense::$dense(Cow::Owned(out))
        }};
    }
    Ok(match physical {
        Type::INT32 => scalars!(Int32, Int32),
        Type::INT64 => scalars!(Int64, Int64),
        Type::FLOAT => scalars!(Float, Float),
        Type::DOUBLE => scalars!(Double, Double),
        Type::BOOLEAN => {
            let mut out = BooleanBufferBuilder::new(n);
            for p in &leaf.pieces {
                let Values::Boolean(b) = &p.column.values else {
                    return Err(mismatch());
                };
                for &(s, e) in &p.runs {
                    out.append_buffer(&b.slice(s, e - s));
                }
            }
            Dense::Boolean(out.finish())
        }
        Type::INT96 | Type::FIXED_LEN_BYTE_ARRAY => {
            let width = |c: &Column| match &c.values {
                Values::Int96(_) => Some(12),
                Values::FixedLenByteArray { width, .. } => Some(*width),
                _ => None,
            };
            let data = |c: &'_ Column| match &c.values {
                Values::Int96(d) | Values::FixedLenByteArray { data: d, .. } => d.clone(),
                _ => unreachable!("checked by width"),
            };
            let w = match leaf.pieces.first() {
                Some(p) => width(&p.column).ok_or_else(mismatch)?,
                None => 1,
            };
            if let Some((c, (s, e))) = single {
                if let Values::Int96(d) | Values::FixedLenByteArray { data: d, .. } = &c.values {
                    return Ok(Dense::Fixed {
                        width: w,
                        data: Cow::Borrowed(&d[s * w..e * w]),
                    });
                }
            }
            let mut out = Vec::with_capacity(n * w);
            for p in &leaf.pieces {
                if width(&p.column) != Some(w) {
                    return Err(mismatch());
                }
                let d = data(&p.column);
                for &(s, e) in &p.runs {
                    out.extend_from_slice(&d[s * w..e * w]);
                }
            }
            Dense::Fixed {
                width: w,
                data: Cow::Owned(out),
            }
        }
        Type::BYTE_ARRAY => {
            let mut out = Vec::with_capacity(n);
            for p in &leaf.pieces {
                let c = &p.column;
                match &c.values {
                    Values::Binary { offsets, data } => {
                        for &(s, e) in &p.runs {
                            out.extend(
                                (s..e).map(|i| &data[offsets[i] as usize..offsets[i + 1] as usize]),
                            );
                        }
                    }
                    Values::BinaryView { .. } => {
                        for &(s, e) in &p.runs {
                            out.extend((s..e).map(|i| c.bytes(i).unwrap_or(&[])));
                        }
                    }
                    _ => return Err(mismatch()),
                }
            }
            Dense::Bytes(out)
        }
        t => return Err(Error::InvalidArgument(format!("unknown physical type {t}"))),
    })
}

/// A page of a shredded leaf: its level pairs and values, and its records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LeveledPage {
    /// Level pairs (as `slot_*`) and stored values.
    pub range: PageRange,
    /// Index of the page's first record within the chunk.
    pub first_row: usize,
    /// Records in the page.
    pub rows: usize,
}

/// Cut the pairs of `leaf` into pages of about `target_bits` bits of levels and values and
/// at most `row_limit` records, each starting at a record. `cost(i)` is the size in bits of
/// stored value `i`.
pub(crate) fn page_ranges(
    leaf: &LeafLevels,
    cost: impl Fn(usize) -> u64,
    target_bits: u64,
    row_limit: usize,
) -> Vec<LeveledPage> {
    let row_limit = row_limit.max(1);
    let target_bits = target_bits.max(1);
    let (rep, def, max_def) = (&leaf.rep, &leaf.def, leaf.max_def);
    let mut pages = Vec::new();
    let mut page = LeveledPage {
        range: PageRange {
            slot_start: 0,
            slot_end: 0,
            value_start: 0,
            value_end: 0,
        },
        first_row: 0,
        rows: 0,
    };
    // The levels cost about their bit widths per pair (less when they run), so that pages
    // of nulls or empty lists are cut too.
    let level_bits =
        (bitpack::bit_width(leaf.max_rep as u64) + bitpack::bit_width(leaf.max_def as u64)) as u64;
    let (mut v, mut bits) = (0usize, 0u64);
    for i in 0..leaf.pairs {
        let starts_record = leaf.max_rep == 0 || rep[i] == 0;
        if starts_record {
            if i > page.range.slot_start && (bits >= target_bits || page.rows >= row_limit) {
                page.range.slot_end = i;
                page.range.value_end = v;
                pages.push(page);
                page = LeveledPage {
                    range: PageRange {
                        slot_start: i,
                        slot_end: i,
                        value_start: v,
                        value_end: v,
                    },
                    first_row: page.first_row + page.rows,
                    rows: 0,
                };
                bits = 0;
            }
            page.rows += 1;
        }
        bits += level_bits;
        if max_def == 0 || def[i] == max_def {
            bits += cost(v);
            v += 1;
        }
    }
    if leaf.pairs > page.range.slot_start {
        page.range.slot_end = leaf.pairs;
        page.range.value_end = v;
        pages.push(page);
    }
    pages
}

/// Append `levels` (each at most `max`) as an RLE/bit-packed hybrid stream of the bit width
/// of `max`, without length prefix.
pub(crate) fn encode_levels(levels: &[u16], max: u16, out: &mut Vec<u8>) {
    rle::encode(levels, bitpack::bit_width(max as u64), out);
}

/// Add the histogram of `levels` (each at most `max`) to `hist` (`max + 1` counters).
pub(crate) fn histogram(levels: &[u16], max: u16, hist: &mut [i64]) {
    debug_assert_eq!(hist.len(), max as usize + 1);
    if max == 1 {
        let ones = levels.iter().map(|&l| l as i64).sum::<i64>();
        hist[0] += levels.len() as i64 - ones;
        hist[1] += ones;
        return;
    }
    for &l in levels {
        hist[(l as usize).min(max as usize)] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leaf(rep: &[u16], def: &[u16], max_rep: u16, max_def: u16) -> LeafLevels {
        let mut l = LeafLevels::new(max_def, max_rep);
        l.rep = rep.to_vec();
        l.def = def.to_vec();
        l.pairs = rep.len().max(def.len());
        l
    }

    #[test]
    fn pages_start_on_records() {
        // Records of 3, 1, 2 pairs; every pair a value; pages of one value's bits.
        let l = leaf(&[0, 1, 1, 0, 0, 1], &[2; 6], 1, 2);
        let pages = page_ranges(&l, |_| 8, 1, 100);
        let starts: Vec<usize> = pages.iter().map(|p| p.range.slot_start).collect();
        assert_eq!(starts, vec![0, 3, 4]);
        let rows: Vec<(usize, usize)> = pages.iter().map(|p| (p.first_row, p.rows)).collect();
        assert_eq!(rows, vec![(0, 1), (1, 1), (2, 1)]);
        // Nulls store no value.
        let l = leaf(&[0, 1, 0, 0], &[2, 1, 0, 2], 1, 2);
        let pages = page_ranges(&l, |_| 8, 1 << 20, 2);
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].range.value_end, 1);
        assert_eq!(pages[1].range.value_start, 1);
        assert_eq!(pages[1].range.value_end, 2);
        assert_eq!((pages[1].first_row, pages[1].rows), (2, 1));
    }

    #[test]
    fn histograms() {
        let mut h = [0i64; 4];
        histogram(&[0, 3, 3, 1, 2], 3, &mut h);
        assert_eq!(h, [1, 1, 1, 2]);
        let mut h = [0i64; 2];
        histogram(&[0, 1, 1], 1, &mut h);
        assert_eq!(h, [1, 2]);
    }
}
