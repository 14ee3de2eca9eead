//! Repetition and definition levels of nested columns to validity bitmaps and list offsets.
//!
//! A nested leaf's levels are decoded to `i16`s once (their values go up to the nesting
//! depth, so they are not bitmap bits as a flat column's are); every list and struct above the
//! leaf then derives its slots, validity and offsets from them with these loops. They work 64
//! levels at a time: masks built without a branch per level, then compacted (`pext`) or
//! walked one set bit at a time.

#![forbid(unsafe_code)]

use arrow_buffer::BooleanBufferBuilder;

use crate::kernels::pext::pext_fn;
use crate::kernels::v3::{self, LevelMasks};
use crate::levels::BitSink;

/// For every level pair that starts a slot (`d >= slot_def` and, when `rep` is given,
/// `r <= slot_rep`), append one bit `d >= valid_def` to `out`. `valid_def >= slot_def`.
/// Returns `(slots, valid)`: bits appended and bits set.
///
/// 64 pairs at a time: a mask of slots and a mask of valid pairs, built without branches,
/// then the valid bits of the slots compacted with one `pext`.
///
/// # Panics
/// If `rep` is given and shorter than `def`.
///
/// Compiled for AVX2 (popcnt) at that level: probes `kernels.slot_validity.avx2` /
/// `kernels.slot_validity.scalar`.
pub fn slot_validity(
    def: &[i16],
    rep: Option<(&[i16], i16)>,
    slot_def: i16,
    valid_def: i16,
    out: &mut BooleanBufferBuilder,
) -> (usize, usize) {
    struct Loop<'a> {
        def: &'a [i16],
        rep: Option<(&'a [i16], i16)>,
        slot_def: i16,
        valid_def: i16,
        out: &'a mut BooleanBufferBuilder,
    }
    impl v3::Body for Loop<'_> {
        type Output = (usize, usize);
        #[inline(always)]
        fn call<M: LevelMasks>(self, masks: M) -> (usize, usize) {
            slot_validity_inline(
                masks,
                self.def,
                self.rep,
                self.slot_def,
                self.valid_def,
                self.out,
            )
        }
    }
    let body = Loop {
        def,
        rep,
        slot_def,
        valid_def,
        out,
    };
    v3::run(
        "kernels.slot_validity.avx2",
        "kernels.slot_validity.scalar",
        body,
    )
}

/// [`slot_validity`]'s loop, inlined into each compiled form.
#[inline(always)]
fn slot_validity_inline<M: LevelMasks>(
    masks: M,
    def: &[i16],
    rep: Option<(&[i16], i16)>,
    slot_def: i16,
    valid_def: i16,
    out: &mut BooleanBufferBuilder,
) -> (usize, usize) {
    debug_assert!(valid_def >= slot_def);
    let pext = pext_fn();
    let mut sink = BitSink::new(out);
    let (mut slots, mut valid) = (0usize, 0usize);
    let mut emit = |s: u64, v: u64, full: u64| {
        let bits = if s == full { v } else { pext(v, s) };
        let n = s.count_ones();
        slots += n as usize;
        valid += bits.count_ones() as usize;
        sink.push(bits, n);
    };
    match rep {
        None => {
            let mut chunks = def.chunks_exact(64);
            for c in &mut chunks {
                let c: &[i16; 64] = c.try_into().expect("64 levels");
                let s = if slot_def > 0 {
                    masks.at_least(c, slot_def)
                } else {
                    u64::MAX
                };
                let v = masks.at_least(c, valid_def);
                emit(s, v, u64::MAX);
            }
            let c = chunks.remainder();
            let (mut s, mut v) = (0u64, 0u64);
            for (i, &d) in c.iter().enumerate() {
                s |= ((d >= slot_def) as u64) << i;
                v |= ((d >= valid_def) as u64) << i;
            }
            emit(s, v, low_bits(c.len()));
        }
        Some((rep, slot_rep)) => {
            let rep = &rep[..def.len()];
            let mut dchunks = def.chunks_exact(64);
            let mut rchunks = rep.chunks_exact(64);
            for (dc, rc) in (&mut dchunks).zip(&mut rchunks) {
                let dc: &[i16; 64] = dc.try_into().expect("64 levels");
                let rc: &[i16; 64] = rc.try_into().expect("64 levels");
                let s = masks.at_least(dc, slot_def) & masks.at_most(rc, slot_rep);
                let v = masks.at_least(dc, valid_def);
                emit(s, v & s, u64::MAX);
            }
            let (dc, rc) = (dchunks.remainder(), rchunks.remainder());
            let (mut s, mut v) = (0u64, 0u64);
            for (i, (&d, &r)) in dc.iter().zip(rc).enumerate() {
                s |= ((d >= slot_def && r <= slot_rep) as u64) << i;
                v |= ((d >= valid_def) as u64) << i;
            }
            emit(s, v & s, low_bits(dc.len()));
        }
    }
    sink.finish();
    (slots, valid)
}

/// A mask of the low `n` bits (`n <= 64`).
#[inline(always)]
fn low_bits(n: usize) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

/// List offsets from level pairs: for each pair that starts a slot (`d >= slot_def && r <=
/// slot_rep`) push `base` plus the number of elements before it, where a pair is an element
/// when `d >= elem_def && r <= elem_rep`. Returns the number of elements.
///
/// 64 pairs at a time: masks of slots and of elements, then one popcount per slot.
///
/// # Panics
/// If `rep` is shorter than `def`.
///
/// Compiled for AVX2 (popcnt, tzcnt) at that level: probes `kernels.list_offsets.avx2` /
/// `kernels.list_offsets.scalar`.
pub fn list_offsets(
    def: &[i16],
    rep: &[i16],
    slot: (i16, i16),
    elem: (i16, i16),
    max_rep: i16,
    base: i32,
    out: &mut Vec<i32>,
) -> i32 {
    struct Loop<'a> {
        def: &'a [i16],
        rep: &'a [i16],
        slot: (i16, i16),
        elem: (i16, i16),
        max_rep: i16,
        base: i32,
        out: &'a mut Vec<i32>,
    }
    impl v3::Body for Loop<'_> {
        type Output = i32;
        #[inline(always)]
        fn call<M: LevelMasks>(self, masks: M) -> i32 {
            let Loop {
                def,
                rep,
                slot,
                elem,
                max_rep,
                base,
                out,
            } = self;
            list_offsets_inline(masks, def, rep, slot, elem, max_rep, base, out)
        }
    }
    let body = Loop {
        def,
        rep,
        slot,
        elem,
        max_rep,
        base,
        out,
    };
    v3::run(
        "kernels.list_offsets.avx2",
        "kernels.list_offsets.scalar",
        body,
    )
}

/// [`list_offsets`]'s loop, inlined into each compiled form.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn list_offsets_inline<M: LevelMasks>(
    masks: M,
    def: &[i16],
    rep: &[i16],
    (slot_def, slot_rep): (i16, i16),
    (elem_def, elem_rep): (i16, i16),
    max_rep: i16,
    base: i32,
    out: &mut Vec<i32>,
) -> i32 {
    let rep = &rep[..def.len()];
    let mut count = base;
    let mut walk = |s: u64, e: u64| {
        // At most 64 offsets a block: gathered on the stack and appended at once, which
        // costs less than a capacity check per offset.
        let mut block = [0i32; 64];
        let mut n = 0;
        let mut s = s;
        while s != 0 {
            let p = s.trailing_zeros();
            block[n & 63] = count + (e & low_bits(p as usize)).count_ones() as i32;
            n += 1;
            s &= s - 1;
        }
        out.extend_from_slice(&block[..n]);
        count += e.count_ones() as i32;
    };
    let mut dchunks = def.chunks_exact(64);
    let mut rchunks = rep.chunks_exact(64);
    for (dc, rc) in (&mut dchunks).zip(&mut rchunks) {
        let dc: &[i16; 64] = dc.try_into().expect("64 levels");
        let rc: &[i16; 64] = rc.try_into().expect("64 levels");
        // Thresholds every level meets need no mask (loop-invariant branches).
        let mut s = masks.at_most(rc, slot_rep);
        if slot_def > 0 {
            s &= masks.at_least(dc, slot_def);
        }
        let mut e = masks.at_least(dc, elem_def);
        if elem_rep < max_rep {
            e &= masks.at_most(rc, elem_rep);
        }
        walk(s, e);
    }
    let (dc, rc) = (dchunks.remainder(), rchunks.remainder());
    let (mut s, mut e) = (0u64, 0u64);
    for (i, (&d, &r)) in dc.iter().zip(rc).enumerate() {
        s |= ((d >= slot_def && r <= slot_rep) as u64) << i;
        e |= ((d >= elem_def && r <= elem_rep) as u64) << i;
    }
    walk(s, e);
    count
}

/// Index just past the first `records` records of `rep` (a record starts at each 0), or
/// `rep.len()` when there are not more than `records` starts.
pub fn records_end(rep: &[i16], records: usize) -> usize {
    scan(rep, Scan::RecordsEnd(records))
}

/// Whether every level is at least `min`.
pub fn all_at_least(levels: &[i16], min: i16) -> bool {
    scan(levels, Scan::NoneBelow(min)) == 1
}

/// Whether no level lies in `lo..hi`.
pub fn none_between(levels: &[i16], lo: i16, hi: i16) -> bool {
    hi <= lo || scan(levels, Scan::NoneBetween(lo, hi.wrapping_sub(lo) as u16)) == 1
}

/// Number of levels equal to `value`.
pub fn count_equal(levels: &[i16], value: i16) -> usize {
    scan(levels, Scan::Equal(value))
}

/// Number of levels at least `min`.
pub fn count_at_least(levels: &[i16], min: i16) -> usize {
    levels.len() - scan(levels, Scan::Below(min))
}

/// The whole-slice level scans. A page's levels are scanned several times (records, slots,
/// validity, batch cuts), so each scan runs compiled for AVX2 at that level, 16 levels a
/// compare instead of SSE2's 8: probes `kernels.level_scan.avx2` / `kernels.level_scan.scalar`.
#[derive(Clone, Copy)]
enum Scan {
    /// Count of levels equal to the value.
    Equal(i16),
    /// Count of levels below the value (one compare a level, no complement).
    Below(i16),
    /// 1 when no level is below the value, else 0.
    NoneBelow(i16),
    /// 1 when no level `d` has `d - lo` (wrapping, unsigned) below the width, else 0.
    NoneBetween(i16, u16),
    /// The index just past the first `n` records (see [`records_end`]).
    RecordsEnd(usize),
}

fn scan(levels: &[i16], what: Scan) -> usize {
    struct Loop<'a>(&'a [i16], Scan);
    impl v3::Body for Loop<'_> {
        type Output = usize;
        #[inline(always)]
        fn call<M: LevelMasks>(self, _: M) -> usize {
            scan_inline(self.0, self.1)
        }
    }
    v3::run(
        "kernels.level_scan.avx2",
        "kernels.level_scan.scalar",
        Loop(levels, what),
    )
}

/// [`scan`]'s loops, inlined into each compiled form.
#[inline(always)]
fn scan_inline(levels: &[i16], what: Scan) -> usize {
    // Folds without early exit inside a block of 256, so the loops vectorise.
    match what {
        Scan::Equal(v) => count_where(levels, |l| l == v),
        Scan::Below(t) => count_where(levels, |l| l < t),
        Scan::NoneBelow(t) => levels
            .chunks(256)
            .all(|c| c.iter().fold(true, |acc, &d| acc & (d >= t)))
            as usize,
        // One unsigned compare a level: `d - lo` wraps below `lo` to a large value.
        Scan::NoneBetween(lo, width) => levels.chunks(256).all(|c| {
            c.iter()
                .fold(true, |acc, &d| acc & (d.wrapping_sub(lo) as u16 >= width))
        }) as usize,
        Scan::RecordsEnd(records) => {
            let mut seen = 0usize;
            let mut base = 0;
            for c in levels.chunks_exact(64) {
                let zeros = count_where(c, |r| r == 0);
                if seen + zeros > records {
                    break;
                }
                seen += zeros;
                base += 64;
            }
            for (i, &r) in levels[base..].iter().enumerate() {
                if r == 0 {
                    if seen == records {
                        return base + i;
                    }
                    seen += 1;
                }
            }
            levels.len()
        }
    }
}

/// Number of levels `f` holds for, counted in 16-bit lanes (as wide as the levels, so the
/// loop vectorises 16 or 32 levels a step) over blocks short enough not to overflow them.
#[inline(always)]
fn count_where(levels: &[i16], f: impl Fn(i16) -> bool) -> usize {
    levels
        .chunks(u16::MAX as usize)
        .map(|c| c.iter().fold(0u16, |n, &l| n + f(l) as u16) as usize)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(def: &[i16], rep: Option<(&[i16], i16)>, slot_def: i16, valid_def: i16) -> Vec<bool> {
        (0..def.len())
            .filter(|&i| def[i] >= slot_def && rep.is_none_or(|(r, sr)| r[i] <= sr))
            .map(|i| def[i] >= valid_def)
            .collect()
    }

    proptest! {
        #[test]
        fn level_scans_match_naive(
            // Past the 256-level blocks, with the levels spread or bunched.
            levels in proptest::collection::vec(-1i16..5, 0..1200),
            lo in -1i16..5,
            width in 0i16..4,
        ) {
            let hi = lo + width;
            let naive_none = levels.iter().all(|&d| d < lo || d >= hi);
            prop_assert_eq!(none_between(&levels, lo, hi), naive_none);
            prop_assert_eq!(all_at_least(&levels, lo), levels.iter().all(|&d| d >= lo));
            prop_assert_eq!(count_at_least(&levels, lo), levels.iter().filter(|&&d| d >= lo).count());
        }

        #[test]
        fn slot_validity_matches_naive(
            // Up to 6,000 pairs: past the sink's words handed over at once (2,048 bits).
            levels in proptest::collection::vec((0i16..4, 0i16..3), 0..6000),
            slot_def in 0i16..3,
            extra in 0i16..2,
            slot_rep in 0i16..3,
            with_rep: bool,
            prefix in 0usize..70,
        ) {
            let def: Vec<i16> = levels.iter().map(|l| l.0).collect();
            let rep: Vec<i16> = levels.iter().map(|l| l.1).collect();
            let valid_def = slot_def + extra;
            let rep = with_rep.then_some((rep.as_slice(), slot_rep));
            let want = naive(&def, rep, slot_def, valid_def);
            for level in crate::simd::available() {
                let mut b = BooleanBufferBuilder::new(0);
                b.append_n(prefix, true);
                let (slots, valid) = crate::simd::with_level(level, || {
                    slot_validity(&def, rep, slot_def, valid_def, &mut b)
                })
                .unwrap();
                prop_assert_eq!(slots, want.len(), "{}", level);
                prop_assert_eq!(valid, want.iter().filter(|v| **v).count(), "{}", level);
                let got = b.finish();
                prop_assert_eq!(got.len(), prefix + want.len());
                for (i, w) in want.iter().enumerate() {
                    prop_assert_eq!(got.value(prefix + i), *w, "{} at {}", level, i);
                }
            }
        }

        #[test]
        fn list_offsets_match_naive(
            levels in proptest::collection::vec((0i16..4, 0i16..3), 0..300),
            slot in (0i16..3, 0i16..2),
            elem_extra in (1i16..2, 1i16..2),
            base in 0i32..5,
        ) {
            let def: Vec<i16> = levels.iter().map(|l| l.0).collect();
            let rep: Vec<i16> = levels.iter().map(|l| l.1).collect();
            let elem = (slot.0 + elem_extra.0, slot.1 + elem_extra.1);
            let mut want = Vec::new();
            let mut count = base;
            for i in 0..def.len() {
                if def[i] >= slot.0 && rep[i] <= slot.1 {
                    want.push(count);
                }
                count += (def[i] >= elem.0 && rep[i] <= elem.1) as i32;
            }
            for level in crate::simd::available() {
                let mut got = Vec::new();
                let n = crate::simd::with_level(level, || {
                    list_offsets(&def, &rep, slot, elem, 2, base, &mut got)
                })
                .unwrap();
                prop_assert_eq!(&got, &want, "{}", level);
                prop_assert_eq!(n, count, "{}", level);
            }
        }

        #[test]
        fn records_end_matches_naive(rep in proptest::collection::vec(0i16..3, 0..400), records in 0usize..200) {
            let starts: Vec<usize> = (0..rep.len()).filter(|&i| rep[i] == 0).collect();
            let want = starts.get(records).copied().unwrap_or(rep.len());
            prop_assert_eq!(records_end(&rep, records), want);
        }

        #[test]
        fn counts_match_naive(levels in proptest::collection::vec(0i16..5, 0..600), x in 0i16..5, y in 0i16..6) {
            prop_assert_eq!(all_at_least(&levels, x), levels.iter().all(|&l| l >= x));
            prop_assert_eq!(none_between(&levels, x, y), !levels.iter().any(|&l| x <= l && l < y));
            prop_assert_eq!(count_equal(&levels, x), levels.iter().filter(|&&l| l == x).count());
            prop_assert_eq!(count_at_least(&levels, x), levels.iter().filter(|&&l| l >= x).count());
        }
    }

    /// Each level takes its own compiled form of the loops, and says so in its probes.
    #[cfg(feature = "probes")]
    #[test]
    fn probes_name_the_level() {
        use crate::probe;
        let def: Vec<i16> = (0..200).map(|i| (i % 3) as i16).collect();
        let rep: Vec<i16> = (0..200).map(|i| (i % 2) as i16).collect();
        for level in crate::simd::available() {
            probe::reset();
            crate::simd::with_level(level, || {
                list_offsets(&def, &rep, (1, 0), (2, 1), 1, 0, &mut Vec::new());
                slot_validity(&def, None, 1, 2, &mut BooleanBufferBuilder::new(0));
                count_at_least(&def, 1);
            })
            .unwrap();
            let v3 = level.has_avx2();
            for kernel in ["list_offsets", "slot_validity", "level_scan"] {
                let (avx2, scalar) = (
                    probe::get(&format!("kernels.{kernel}.avx2")),
                    probe::get(&format!("kernels.{kernel}.scalar")),
                );
                assert_eq!(
                    (avx2, scalar),
                    (v3 as u64, !v3 as u64),
                    "{kernel} at {level}"
                );
            }
        }
    }

    /// The 16-bit counts of a block never overflow, and blocks add up.
    #[test]
    fn counts_span_blocks() {
        let levels = vec![1i16; 3 * u16::MAX as usize + 5];
        assert_eq!(count_equal(&levels, 1), levels.len());
        assert_eq!(count_at_least(&levels, 0), levels.len());
        assert_eq!(count_equal(&levels, 0), 0);
    }
}
