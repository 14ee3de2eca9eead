//! The chunk-level pieces of writing a shredded leaf ([`LeafLevels`]): its stored values
//! gathered into one dense run, pages cut on record boundaries, and the level streams and
//! level histograms of each page.
//!
//! Probes: `write.levels_run_group` (8 equal levels joined a repeated run),
//! `write.levels_packed_group` (8 levels bit-packed).
//!
//! Pages always start at a record (repetition level 0): v2 pages must, and so must every page
//! of a chunk with an offset index (`PageIndex.md`: `first_row_index` locates records), which
//! parq writes by default. A page therefore holds whole records even when one record's levels
//! exceed the target page size.

use std::borrow::Cow;

use arrow_buffer::BooleanBufferBuilder;
use parq_codecs::encoding::bitpack;
use parq_codecs::probe;

use super::column::{byte_slices, Dense, PageRange};
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
                            out.extend(byte_slices(offsets, data, s, e));
                        }
                    }
                    Values::SmallBinary { offsets, data } => {
                        for &(s, e) in &p.runs {
                            out.extend(byte_slices(offsets, data, s, e));
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
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct LeveledPage {
    /// Level pairs (as `slot_*`) and stored values.
    pub range: PageRange,
    /// Index of the page's first record within the chunk.
    pub first_row: usize,
    /// Records in the page.
    pub rows: usize,
}

/// The bits of a leaf's stored values, taken in order: what the values add to a page.
/// `Clone` so that a cutter can look ahead at a stretch and come back.
pub(crate) trait ValueBits: Clone {
    /// The bits of the next `n` stored values (0 for any past the last), the cursor moved
    /// past them.
    fn take(&mut self, n: usize) -> u64;
}

/// PLAIN byte arrays held as slices: 4 length bytes and the bytes of each.
#[derive(Debug, Clone)]
pub(crate) struct SliceBits<'a>(pub &'a [&'a [u8]]);

impl ValueBits for SliceBits<'_> {
    fn take(&mut self, n: usize) -> u64 {
        let (now, rest) = self.0.split_at(n.min(self.0.len()));
        self.0 = rest;
        now.iter().map(|v| (4 + v.len() as u64) * 8).sum()
    }
}

/// Pairs a cutter of values of varying size looks at as one stretch: when the whole stretch
/// cannot complete the open page, it is counted in one go (vectorised level counts, value
/// sizes by runs) instead of pair by pair.
const CUT_STRETCH: usize = 256;

/// Cut the pairs of `leaf` into pages of about `target_bits` bits of levels and values and
/// at most `row_limit` records, each starting at a record. Stored values cost `fixed_cost`
/// bits each, or what `cost` says without one.
///
/// Without a fixed cost, pairs go by stretches of [`CUT_STRETCH`]: a stretch whose levels
/// and values, added to the open page's, stay under the target and whose records stay under
/// the limit holds no cut (every check inside it sees less), so it is taken whole. The
/// first stretch that could hold one is walked pair by pair. The cuts are the pair walk's
/// (probe `write.page_cut_stretch`: a stretch taken whole).
pub(crate) fn page_ranges(
    leaf: &LeafLevels,
    fixed_cost: Option<u64>,
    mut cost: impl ValueBits,
    target_bits: u64,
    row_limit: usize,
) -> Vec<LeveledPage> {
    let row_limit = row_limit.max(1);
    let target_bits = target_bits.max(1);
    let (rep, def, max_def) = (&leaf.rep, &leaf.def, leaf.max_def);
    // The levels cost about their bit widths per pair (less when they run), so that pages
    // of nulls or empty lists are cut too.
    let level_bits =
        (bitpack::bit_width(leaf.max_rep as u64) + bitpack::bit_width(leaf.max_def as u64)) as u64;
    if let Some(c) = fixed_cost {
        return fixed_page_ranges(leaf, level_bits + c, c, target_bits, row_limit);
    }
    let mut pages = Vec::new();
    let mut page = LeveledPage::default();
    // Values so far, and the bits of the open page's values.
    let (mut v, mut value_bits) = (0usize, 0u64);
    let mut at = 0;
    while at < leaf.pairs {
        let end = (at + CUT_STRETCH).min(leaf.pairs);
        let values = if max_def == 0 {
            end - at
        } else {
            count_eq(&def[at..end], max_def)
        };
        let records = if leaf.max_rep == 0 {
            end - at
        } else {
            count_eq(&rep[at..end], 0)
        };
        let mut ahead = cost.clone();
        let stretch_bits = ahead.take(values);
        let bits = (end - page.range.slot_start) as u64 * level_bits + value_bits + stretch_bits;
        if bits < target_bits && page.rows + records < row_limit {
            probe::hit("write.page_cut_stretch");
            cost = ahead;
            value_bits += stretch_bits;
            v += values;
            page.rows += records;
            at = end;
            continue;
        }
        for i in at..end {
            if leaf.max_rep == 0 || rep[i] == 0 {
                let start = page.range.slot_start;
                let bits = (i - start) as u64 * level_bits + value_bits;
                if i > start && (bits >= target_bits || page.rows >= row_limit) {
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
                    value_bits = 0;
                }
                page.rows += 1;
            }
            if max_def == 0 || def[i] == max_def {
                value_bits += cost.take(1);
                v += 1;
            }
        }
        at = end;
    }
    if leaf.pairs > page.range.slot_start {
        page.range.slot_end = leaf.pairs;
        page.range.value_end = v;
        pages.push(page);
    }
    pages
}

/// How many of `levels` equal `v`: a 16-bit sum of compares per block of at most
/// `u16::MAX` levels (the form that vectorises to a compare and a subtract per vector).
fn count_eq(levels: &[u16], v: u16) -> usize {
    levels
        .chunks(u16::MAX as usize)
        .map(|b| b.iter().fold(0u16, |n, &x| n + (x == v) as u16) as usize)
        .sum()
}

/// [`page_ranges`] for values of `cost` bits each (a pair costs at most `pair_bits`): the
/// pairs are counted in jumps instead of walked one by one. A jump never passes the first
/// pair at which the page could be full (it is at most the bits still missing over the
/// most a pair can cost) nor more records than the row limit leaves, so the cuts are the
/// ones the pair-by-pair walk finds.
fn fixed_page_ranges(
    leaf: &LeafLevels,
    pair_bits: u64,
    cost: u64,
    target_bits: u64,
    row_limit: usize,
) -> Vec<LeveledPage> {
    let level_bits = pair_bits - cost;
    let n = leaf.pairs;
    let values = |a: usize, b: usize| {
        if leaf.max_def == 0 {
            b - a
        } else {
            count_eq(&leaf.def[a..b], leaf.max_def)
        }
    };
    let records = |a: usize, b: usize| {
        if leaf.max_rep == 0 {
            b - a
        } else {
            count_eq(&leaf.rep[a..b], 0)
        }
    };
    let mut pages = Vec::new();
    let (mut start, mut value_start, mut first_row) = (0usize, 0usize, 0usize);
    while start < n {
        let (mut i, mut v, mut rows, mut bits) = (start, value_start, 0usize, 0u64);
        while i < n && bits < target_bits && rows < row_limit {
            let k = ((target_bits - bits).div_ceil(pair_bits.max(1)) as usize)
                .min(row_limit - rows)
                .min(n - i)
                .max(1);
            let vals = values(i, i + k);
            bits += k as u64 * level_bits + vals as u64 * cost;
            v += vals;
            rows += records(i, i + k);
            i += k;
        }
        // The page ends where the next record starts.
        let end = if leaf.max_rep == 0 {
            i
        } else {
            leaf.rep[i..]
                .iter()
                .position(|&r| r == 0)
                .map_or(n, |p| i + p)
        };
        v += values(i, end);
        pages.push(LeveledPage {
            range: PageRange {
                slot_start: start,
                slot_end: end,
                value_start,
                value_end: v,
            },
            first_row,
            rows,
        });
        (start, value_start, first_row) = (end, v, first_row + rows);
    }
    pages
}

/// Builds a hybrid stream 8 levels at a time: a group of 8 equal levels joins (or starts) a
/// repeated run, any other group is bit-packed into the open bit-packed run. Runs are thus
/// found at group granularity (a run not aligned to 8 levels costs a group of bit-packing at
/// each end), which keeps the loop free of per-level branches.
struct LevelEncoder<'a> {
    out: &'a mut Vec<u8>,
    width: usize,
    run_value: u16,
    run_len: usize,
    /// Position of the header byte of the open bit-packed run, and its groups so far.
    literal: Option<usize>,
    groups: usize,
}

/// Groups per bit-packed run: its header then fits one byte.
const MAX_GROUPS: usize = 63;

impl LevelEncoder<'_> {
    fn flush_run(&mut self) {
        if self.run_len > 0 {
            let mut v = (self.run_len as u64) << 1;
            while v >= 0x80 {
                self.out.push(v as u8 | 0x80);
                v >>= 7;
            }
            self.out.push(v as u8);
            let bytes = self.width.div_ceil(8);
            self.out
                .extend_from_slice(&self.run_value.to_le_bytes()[..bytes]);
            self.run_len = 0;
        }
    }

    fn close_literal(&mut self) {
        if let Some(at) = self.literal.take() {
            self.out[at] = ((self.groups << 1) | 1) as u8;
            self.groups = 0;
        }
    }

    /// `n` copies of `v`.
    fn run(&mut self, v: u16, n: usize) {
        if self.run_len > 0 && self.run_value != v {
            self.flush_run();
        }
        self.close_literal();
        self.run_value = v;
        self.run_len += n;
    }

    /// Groups of 8 levels, bit-packed into the open bit-packed run (a new one when there
    /// is none or it is full). A short last group is zero-padded first.
    fn packed(&mut self, groups: &[[u16; 8]]) {
        if self.run_len > 0 {
            self.flush_run();
        }
        let mut rest = groups;
        while !rest.is_empty() {
            if self.literal.is_none() || self.groups == MAX_GROUPS {
                self.close_literal();
                self.literal = Some(self.out.len());
                self.out.push(0);
            }
            let (now, later) = rest.split_at(rest.len().min(MAX_GROUPS - self.groups));
            match self.width {
                1 => pack_groups::<1>(now, self.out),
                2 => pack_groups::<2>(now, self.out),
                3 => pack_groups::<3>(now, self.out),
                4 => pack_groups::<4>(now, self.out),
                w => {
                    for g in now {
                        let acc = (0..8).fold(0u128, |acc, j| acc | (g[j] as u128) << (j * w));
                        self.out.extend_from_slice(&acc.to_le_bytes()[..w]);
                    }
                }
            }
            self.groups += now.len();
            rest = later;
        }
    }
}

/// Append `groups` of 8 levels of `W` bits each (`W` at most 4), packed LSB first (`W`
/// bytes per group), with one word store per group.
///
/// Four levels of a group are one little-endian `u64` of 16-bit lanes, level `j` at bit
/// `16 j`. Multiplying by `sum_k 2^((16 - W) k)` (k < 4) puts a copy of level `j` at bit
/// `16 j + (16 - W) k`; the copies with `j + k = 3` land side by side at
/// `3 (16 - W) + W j`, and no other copy overlaps them (the nearest end at `3 (16 - W)` and
/// start at `3 (16 - W) + 4 W`), so no carry reaches them either: one multiply, one shift
/// and one mask pack four levels.
fn pack_groups<const W: usize>(groups: &[[u16; 8]], out: &mut Vec<u8>) {
    const { assert!(W >= 1 && W <= 4) };
    let spread: u64 = (0..4).fold(0, |m, k| m | 1 << ((16 - W) * k));
    let shift = 3 * (16 - W);
    let mask = (1u64 << (4 * W)) - 1;
    let four = |x: u64| (x.wrapping_mul(spread) >> shift) & mask;
    let mut at = out.len();
    // Each group stores a whole word and keeps `W` bytes of it: room for the last word.
    out.resize(at + groups.len() * W + 8, 0);
    for g in groups {
        let [lo, hi]: [u64; 2] = bytemuck::cast(*g);
        let acc = four(lo) | four(hi) << (4 * W);
        out[at..at + 8].copy_from_slice(&acc.to_le_bytes());
        at += W;
    }
    out.truncate(at);
}

/// Append `levels` (each at most `max`, which is at least 1) as an RLE/bit-packed hybrid
/// stream of the bit width of `max`, without length prefix, and add their histogram to
/// `hist` (`max + 1` counters) in the same pass.
pub(crate) fn encode_levels(levels: &[u16], max: u16, out: &mut Vec<u8>, hist: &mut [i64]) {
    debug_assert!(max > 0 && hist.len() == max as usize + 1);
    let mut enc = LevelEncoder {
        out,
        width: bitpack::bit_width(max as u64) as usize,
        run_value: 0,
        run_len: 0,
        literal: None,
        groups: 0,
    };
    // The histogram: one vectorised count per level when there are few levels (the last
    // level is what the others leave).
    if max < 16 {
        let mut counted = 0;
        for (l, h) in hist[..max as usize].iter_mut().enumerate() {
            let c = count_eq(levels, l as u16);
            *h += c as i64;
            counted += c;
        }
        hist[max as usize] += (levels.len() - counted) as i64;
    } else {
        for &x in levels {
            hist[x as usize] += 1;
        }
    }
    let (groups, rest) = levels.as_chunks::<8>();
    let (mut runs, mut packed) = (0u64, 0u64);
    let mut i = 0;
    while i < groups.len() {
        // Eight equal levels (two 64-bit compares) join a repeated run; a stretch of other
        // groups is bit-packed in one go.
        let uniform = |g: &[u16; 8]| {
            let [lo, hi]: [u64; 2] = bytemuck::cast(*g);
            lo == hi && lo == g[0] as u64 * 0x0001_0001_0001_0001
        };
        if uniform(&groups[i]) {
            enc.run(groups[i][0], 8);
            runs += 1;
            i += 1;
            continue;
        }
        let end = groups[i + 1..]
            .iter()
            .position(uniform)
            .map_or(groups.len(), |p| i + 1 + p);
        enc.packed(&groups[i..end]);
        packed += (end - i) as u64;
        i = end;
    }
    if let Some(&v) = rest.first() {
        if rest.iter().all(|&x| x == v) {
            enc.run(v, rest.len());
        } else {
            let mut group = [0u16; 8];
            group[..rest.len()].copy_from_slice(rest);
            enc.packed(&[group]);
        }
    }
    enc.flush_run();
    enc.close_literal();
    probe::hit_n("write.levels_run_group", runs);
    probe::hit_n("write.levels_packed_group", packed);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values of the same size in bits.
    #[derive(Debug, Clone, Copy)]
    pub(crate) struct EachBits(pub u64);

    impl ValueBits for EachBits {
        fn take(&mut self, n: usize) -> u64 {
            n as u64 * self.0
        }
    }

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
        let pages = page_ranges(&l, Some(8), EachBits(8), 1, 100);
        let starts: Vec<usize> = pages.iter().map(|p| p.range.slot_start).collect();
        assert_eq!(starts, vec![0, 3, 4]);
        let rows: Vec<(usize, usize)> = pages.iter().map(|p| (p.first_row, p.rows)).collect();
        assert_eq!(rows, vec![(0, 1), (1, 1), (2, 1)]);
        // Nulls store no value.
        let l = leaf(&[0, 1, 0, 0], &[2, 1, 0, 2], 1, 2);
        let pages = page_ranges(&l, None, EachBits(8), 1 << 20, 2);
        assert_eq!(pages.len(), 2);
        assert_eq!(pages[0].range.value_end, 1);
        assert_eq!(pages[1].range.value_start, 1);
        assert_eq!(pages[1].range.value_end, 2);
        assert_eq!((pages[1].first_row, pages[1].rows), (2, 1));
    }

    /// Byte arrays of 0..50 bytes, from a seed.
    fn random_lens(n: usize, mut x: u64) -> Vec<Vec<u8>> {
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                vec![0u8; (x % 50) as usize]
            })
            .collect()
    }

    /// The cutter of values of varying size, pair by pair: what taking stretches whole must
    /// not change.
    fn pair_walk(l: &LeafLevels, bits: &[u64], target: u64, row_limit: usize) -> Vec<LeveledPage> {
        let level_bits =
            (bitpack::bit_width(l.max_rep as u64) + bitpack::bit_width(l.max_def as u64)) as u64;
        let mut pages = Vec::new();
        let (mut start, mut value_start, mut first_row, mut rows) = (0, 0, 0, 0);
        let (mut v, mut value_bits) = (0usize, 0u64);
        for i in 0..l.pairs {
            if l.max_rep == 0 || l.rep[i] == 0 {
                let b = (i - start) as u64 * level_bits + value_bits;
                if i > start && (b >= target || rows >= row_limit) {
                    pages.push(LeveledPage {
                        range: PageRange {
                            slot_start: start,
                            slot_end: i,
                            value_start,
                            value_end: v,
                        },
                        first_row,
                        rows,
                    });
                    (start, value_start, first_row, rows, value_bits) =
                        (i, v, first_row + rows, 0, 0);
                }
                rows += 1;
            }
            if l.max_def == 0 || l.def[i] == l.max_def {
                value_bits += bits[v];
                v += 1;
            }
        }
        if l.pairs > start {
            pages.push(LeveledPage {
                range: PageRange {
                    slot_start: start,
                    slot_end: l.pairs,
                    value_start,
                    value_end: v,
                },
                first_row,
                rows,
            });
        }
        pages
    }

    /// `n` random level pairs up to `max_rep` / `max_def` (the first repetition level 0),
    /// drawn from the xorshift state `x`.
    fn random_levels(x: &mut u64, max_rep: u16, max_def: u16, n: usize) -> LeafLevels {
        let mut next = |m: u16| {
            *x ^= *x << 13;
            *x ^= *x >> 7;
            *x ^= *x << 17;
            (*x % (m as u64 + 2)).min(m as u64) as u16
        };
        let mut l = LeafLevels::new(max_def, max_rep);
        for i in 0..n {
            if max_rep > 0 {
                let r = next(max_rep);
                l.rep.push(if i == 0 { 0 } else { r });
            }
            if max_def > 0 {
                l.def.push(next(max_def));
            }
        }
        l.pairs = n;
        l
    }

    /// Values of varying size: stretches taken whole give the pair walk's cuts.
    #[test]
    fn varying_cost_cuts_match_the_pair_walk() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for (max_rep, max_def) in [(1u16, 3u16), (2, 5), (0, 1), (1, 1), (0, 0), (1, 0)] {
            for n in [0usize, 1, 9, 255, 256, 257, 3000, 20_000] {
                let l = random_levels(&mut x, max_rep, max_def, n);
                let values = random_lens(n, n as u64 + 1);
                let slices: Vec<&[u8]> = values.iter().map(|v| v.as_slice()).collect();
                let bits: Vec<u64> = slices.iter().map(|v| (4 + v.len() as u64) * 8).collect();
                for (target, rows) in [
                    (1, 1000),
                    (300, 7),
                    (5000, 3),
                    (40_000, 20_000),
                    (1 << 20, 100),
                ] {
                    let got = page_ranges(&l, None, SliceBits(&slices), target, rows);
                    let want = pair_walk(&l, &bits, target, rows);
                    assert_eq!(
                        got, want,
                        "levels ({max_rep}, {max_def}) n {n} target {target}"
                    );
                }
            }
        }
    }

    /// The jumping cutter finds the cuts of the pair-by-pair walk.
    #[test]
    fn fixed_cost_cuts_match_the_pair_walk() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for (max_rep, max_def) in [(1u16, 3u16), (2, 5), (0, 1), (1, 1), (0, 0), (1, 0)] {
            for n in [0usize, 1, 9, 200, 3000] {
                let l = random_levels(&mut x, max_rep, max_def, n);
                for (cost, target, rows) in [
                    (64, 64, 1000),
                    (8, 1000, 7),
                    (1, 1, 3),
                    (32, 1 << 20, 20_000),
                ] {
                    let got = page_ranges(&l, Some(cost), EachBits(cost), target, rows);
                    let want = page_ranges(&l, None, EachBits(cost), target, rows);
                    assert_eq!(got, want, "levels ({max_rep}, {max_def}) n {n} cost {cost}");
                }
            }
        }
    }

    #[test]
    fn levels_round_trip_with_their_histogram() {
        use parq_codecs::encoding::rle::RleDecoder;
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for max in [1u16, 2, 3, 7, 8, 255, 256, 1000, u16::MAX] {
            for n in [1usize, 7, 8, 9, 64, 500, 5000] {
                for runs in [false, true] {
                    let levels: Vec<u16> = (0..n)
                        .map(|i| {
                            x ^= x << 13;
                            x ^= x >> 7;
                            x ^= x << 17;
                            if runs && (i / 37) % 2 == 0 {
                                max
                            } else {
                                (x % (max as u64 + 1)) as u16
                            }
                        })
                        .collect();
                    let mut out = Vec::new();
                    let mut hist = vec![0i64; max as usize + 1];
                    encode_levels(&levels, max, &mut out, &mut hist);
                    let mut back = vec![0u16; n];
                    let width = bitpack::bit_width(max as u64);
                    let mut d = RleDecoder::new(&out, width).unwrap();
                    assert_eq!(d.get_batch(&mut back).unwrap(), n);
                    assert_eq!(back, levels, "max {max} n {n}");
                    let mut want = vec![0i64; max as usize + 1];
                    for &l in &levels {
                        want[l as usize] += 1;
                    }
                    assert_eq!(hist, want);
                }
            }
        }
        // Uniform levels are one repeated run.
        let mut out = Vec::new();
        encode_levels(&[3; 1000], 3, &mut out, &mut [0; 4]);
        assert_eq!(out, [0xD0, 0x0F, 3]);
    }
}
