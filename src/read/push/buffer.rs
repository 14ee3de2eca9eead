//! Pushed bytes, kept only where a decoder asked for them.
//!
//! A [`Spans`] is a set of disjoint byte ranges (*spans*) that a decoder wants. Pushed
//! pieces may have any size, order and overlap: each is cut to the spans it meets, and
//! what it brings that has not arrived yet is kept as zero-copy slices of it. A span that
//! several pieces cover stays in those pieces; a read across two of them copies only its
//! own bytes ([`Snapshot::read`]). Bytes outside every span are not referred to: what a
//! set holds is the sum of its spans, plus whatever else shares a buffer with them, which
//! a caller that pushes one large buffer keeps alive until the views of it are let go.

use std::collections::BTreeMap;
use std::ops::Range;

use bytes::Bytes;
use parq_codecs::probe;

/// One wanted range and what has arrived of it.
#[derive(Debug)]
enum Fill {
    Empty,
    /// Some bytes arrived: disjoint views of pushed pieces, keyed by their start relative
    /// to the span, `covered` bytes in all.
    Partial {
        pieces: BTreeMap<u64, Bytes>,
        covered: u64,
    },
    /// Every byte arrived: pieces end to end, in order (one where one push covered it all).
    Full(Vec<Bytes>),
}

/// Pieces a span keeps as views, at most: past this, touching pieces are joined by copying
/// them (probe `push.pieces_joined`), so that a caller pushing many small pieces costs a
/// copy, not a view and a lookup per piece.
const MAX_PIECES: usize = 16;

/// `pieces` with every run of touching pieces joined into one (a copy of each run).
fn join_touching(pieces: &mut BTreeMap<u64, Bytes>) {
    probe::hit("push.pieces_joined");
    // Each run: where it starts, where it ends, its pieces.
    let mut runs: Vec<(u64, u64, Vec<Bytes>)> = Vec::new();
    for (at, b) in std::mem::take(pieces) {
        let end = at + b.len() as u64;
        match runs.last_mut() {
            Some((_, run_end, run)) if *run_end == at => {
                run.push(b);
                *run_end = end;
            }
            _ => runs.push((at, end, vec![b])),
        }
    }
    for (start, _, mut run) in runs {
        let joined = match run.len() {
            1 => run.swap_remove(0),
            _ => Bytes::from(run.concat()),
        };
        pieces.insert(start, joined);
    }
}

/// The parts of `r` (relative to a span) that none of `pieces` covers, in order.
fn gaps(pieces: &BTreeMap<u64, Bytes>, r: Range<u64>) -> Vec<Range<u64>> {
    let mut out = Vec::new();
    let mut at = r.start;
    // A piece starting before `r` may reach into it.
    if let Some((&s, b)) = pieces.range(..r.start).next_back() {
        at = at.max(s + b.len() as u64);
    }
    for (&s, b) in pieces.range(r.start..r.end) {
        if s > at {
            out.push(at..s);
        }
        at = at.max(s + b.len() as u64);
    }
    if at < r.end {
        out.push(at..r.end);
    }
    out
}

/// The parts of `span` that its `fill` lacks, added to `out`.
fn missing_of(span: Range<u64>, fill: &Fill, out: &mut Vec<Range<u64>>) {
    match fill {
        Fill::Full(_) => {}
        Fill::Empty => out.push(span),
        Fill::Partial { pieces, .. } => out.extend(
            gaps(pieces, 0..span.end - span.start)
                .into_iter()
                .map(|g| span.start + g.start..span.start + g.end),
        ),
    }
}

/// A set of disjoint wanted spans, keyed by start.
#[derive(Debug, Default)]
pub(crate) struct Spans {
    spans: BTreeMap<u64, (u64, Fill)>,
    /// Bytes of all the spans.
    wanted: u64,
    /// Spans not [`Fill::Full`] yet.
    unfilled: usize,
    /// Where the spans start and end, at the widest: a piece outside is passed over without
    /// a lookup (a decoder offers held bytes to every row group it plans). Kept here, not
    /// read off the map's ends, as it is checked once per row group for every piece.
    hull: Range<u64>,
}

/// Sorted, disjoint `ranges` with neighbours closer than `gap` merged.
pub(crate) fn coalesce(mut ranges: Vec<Range<u64>>, gap: u64) -> Vec<Range<u64>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    let mut merged = 0u64;
    for r in ranges {
        match out.last_mut() {
            // Overlapping, touching, or less than `gap` apart.
            Some(last) if r.start <= last.end || r.start - last.end < gap => {
                if r.start > last.end {
                    merged += 1;
                }
                last.end = last.end.max(r.end);
            }
            _ => out.push(r),
        }
    }
    probe::hit_n("io.coalesced", merged);
    out
}

/// `range` cut into pieces of at most `max` bytes (`max` 0: not cut).
pub(crate) fn split(range: Range<u64>, max: u64, out: &mut Vec<Range<u64>>) {
    if max == 0 || range.end - range.start <= max {
        out.push(range);
        return;
    }
    let mut start = range.start;
    while start < range.end {
        let end = start.saturating_add(max).min(range.end);
        probe::hit("io.split");
        out.push(start..end);
        start = end;
    }
}

impl Spans {
    /// Want `ranges` too; the parts already wanted are left as they are, so the set stays
    /// disjoint. Returns the spans newly wanted.
    pub fn want(&mut self, ranges: &[Range<u64>]) -> Vec<Range<u64>> {
        let mut new = Vec::new();
        for r in ranges {
            for piece in self.uncovered(r.clone()) {
                self.wanted += piece.end - piece.start;
                new.push(piece.clone());
                self.unfilled += 1;
                self.hull = if self.spans.is_empty() {
                    piece.clone()
                } else {
                    self.hull.start.min(piece.start)..self.hull.end.max(piece.end)
                };
                self.spans.insert(piece.start, (piece.end, Fill::Empty));
            }
        }
        new
    }

    /// The parts of `r` that no span covers.
    fn uncovered(&self, r: Range<u64>) -> Vec<Range<u64>> {
        let mut out = Vec::new();
        let mut at = r.start;
        // A span starting before `r` may reach into it.
        let before = self.spans.range(..r.start).next_back();
        if let Some((_, (end, _))) = before {
            at = at.max(*end);
        }
        for (&s, (e, _)) in self.spans.range(r.start..r.end) {
            if s > at {
                out.push(at..s);
            }
            at = at.max(*e);
        }
        if at < r.end {
            out.push(at..r.end);
        }
        out
    }

    /// Take the parts of the piece at `offset` that fall in spans. Returns the bytes kept.
    pub fn push(&mut self, offset: u64, data: &Bytes) -> u64 {
        let end = offset.saturating_add(data.len() as u64);
        if self.unfilled == 0 || end <= self.hull.start || offset >= self.hull.end {
            probe::hit("push.piece_outside_spans");
            return 0;
        }
        let mut kept = 0;
        let first = match self.spans.range(..=offset).next_back() {
            Some((&s, (e, _))) if *e > offset => s,
            _ => offset,
        };
        for (&s, (e, fill)) in self.spans.range_mut(first..end) {
            let (s, e) = (s, *e);
            let lo = s.max(offset);
            let hi = e.min(end);
            if lo >= hi || matches!(fill, Fill::Full(_)) {
                continue;
            }
            let view = |r: Range<u64>| {
                data.slice((s + r.start - offset) as usize..(s + r.end - offset) as usize)
            };
            if lo == s && hi == e {
                // One piece covers the span: keep a view of it, no copy.
                probe::hit("push.zero_copy_span");
                kept += hi - lo;
                *fill = Fill::Full(vec![view(0..e - s)]);
                self.unfilled -= 1;
                continue;
            }
            if matches!(fill, Fill::Empty) {
                *fill = Fill::Partial {
                    pieces: BTreeMap::new(),
                    covered: 0,
                };
            }
            let Fill::Partial { pieces, covered } = fill else {
                unreachable!("set just above")
            };
            for g in gaps(pieces, lo - s..hi - s) {
                kept += g.end - g.start;
                *covered += g.end - g.start;
                pieces.insert(g.start, view(g.clone()));
            }
            if pieces.len() > MAX_PIECES {
                join_touching(pieces);
            }
            if *covered == e - s {
                probe::hit("push.span_in_pieces");
                *fill = Fill::Full(std::mem::take(pieces).into_values().collect());
                self.unfilled -= 1;
            }
        }
        kept
    }

    /// The wanted bytes that have not arrived, in file order.
    pub fn missing(&self) -> Vec<Range<u64>> {
        let mut out = Vec::new();
        for (&s, (e, fill)) in &self.spans {
            missing_of(s..*e, fill, &mut out);
        }
        out
    }

    /// The bytes of the span that starts at `start` (one [`Self::want`] returned) that
    /// have not arrived.
    pub fn missing_of_span(&self, start: u64) -> Vec<Range<u64>> {
        let mut out = Vec::new();
        if let Some((e, fill)) = self.spans.get(&start) {
            missing_of(start..*e, fill, &mut out);
        }
        out
    }

    /// True when every span has arrived.
    pub fn complete(&self) -> bool {
        self.unfilled == 0
    }

    /// Bytes wanted (held or still to come).
    pub fn wanted_bytes(&self) -> u64 {
        self.wanted
    }

    /// The spans, in file order.
    pub fn ranges(&self) -> Vec<Range<u64>> {
        self.spans.iter().map(|(&s, (e, _))| s..*e).collect()
    }

    /// The arrived bytes, by where each piece starts. `None` while some span is missing.
    pub fn snapshot(&self) -> Option<Snapshot> {
        let mut spans = BTreeMap::new();
        for (&s, (_, fill)) in &self.spans {
            let Fill::Full(pieces) = fill else {
                return None;
            };
            let mut at = s;
            for b in pieces {
                spans.insert(at, b.clone());
                at += b.len() as u64;
            }
        }
        Some(Snapshot { spans })
    }
}

/// Arrived bytes that a read can be served from without I/O.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    spans: BTreeMap<u64, Bytes>,
}

impl Snapshot {
    /// Where its pieces lie in the file.
    pub fn pieces(&self) -> Vec<Range<u64>> {
        let piece = |(&s, b): (&u64, &Bytes)| s..s + b.len() as u64;
        self.spans.iter().map(piece).collect()
    }

    /// The bytes of `range`, when the spans hold all of them: a view of one span, or a copy
    /// of the pieces of adjacent spans a read crosses (probe `push.read_across_spans`). Spans
    /// are not joined ahead of reads: most reads (a page) fall inside one, and joining would
    /// copy every span that touches another each time a snapshot is taken.
    pub fn read(&self, range: Range<u64>) -> Option<Bytes> {
        if range.start > range.end {
            return None;
        }
        let (&s, b) = self.spans.range(..=range.start).next_back()?;
        let end = s + b.len() as u64;
        if range.end <= end {
            return Some(b.slice((range.start - s) as usize..(range.end - s) as usize));
        }
        if range.start >= end {
            return None;
        }
        // Across spans: each must start where the one before ends. Checked before anything
        // is allocated, as `range` may come from a length the file declares.
        let mut pieces = vec![&b[(range.start - s) as usize..]];
        let mut at = end;
        for (&s, b) in self.spans.range(at..) {
            if s != at || at >= range.end {
                break;
            }
            let take = (range.end - s).min(b.len() as u64) as usize;
            pieces.push(&b[..take]);
            at = s + take as u64;
        }
        if at < range.end {
            return None;
        }
        let out = pieces.concat();
        probe::hit("push.read_across_spans");
        Some(Bytes::from(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn coalesce_merges_within_the_gap_only() {
        assert_eq!(
            coalesce(vec![10..20, 0..5, 24..30, 100..110], 5),
            vec![0..5, 10..30, 100..110]
        );
        assert_eq!(coalesce(vec![0..5, 3..8], 0), vec![0..8]);
    }

    #[test]
    fn split_cuts_at_the_maximum() {
        let mut out = Vec::new();
        split(0..10, 4, &mut out);
        assert_eq!(out, vec![0..4, 4..8, 8..10]);
        out.clear();
        split(0..10, 0, &mut out);
        assert_eq!(out, vec![0..10]);
    }

    #[test]
    fn one_piece_over_a_span_is_not_copied() {
        let mut s = Spans::default();
        let span = 10..20;
        s.want(&[span]);
        let data = Bytes::from((0u8..50).collect::<Vec<_>>());
        assert_eq!(s.push(0, &data), 10);
        let snap = s.snapshot().unwrap();
        let got = snap.read(12..15).unwrap();
        assert_eq!(&got[..], &[12, 13, 14]);
        // A view of the pushed buffer, not a copy.
        assert_eq!(got.as_ptr(), data[12..].as_ptr());
    }

    #[test]
    fn a_read_across_adjacent_spans_copies_only_its_bytes() {
        let mut s = Spans::default();
        s.want(&[0..10, 10..20, 25..30]);
        let data = Bytes::from((0u8..50).collect::<Vec<_>>());
        s.push(0, &data.slice(0..10));
        s.push(10, &data.slice(10..20));
        s.push(25, &data.slice(25..30));
        let snap = s.snapshot().unwrap();
        // Inside one span: a view.
        assert_eq!(snap.read(12..15).unwrap().as_ptr(), data[12..].as_ptr());
        assert_eq!(&snap.read(5..15).unwrap()[..], &data[5..15]);
        assert_eq!(&snap.read(0..20).unwrap()[..], &data[0..20]);
        // A gap between spans, or past the last one: not held.
        assert_eq!(snap.read(15..26), None);
        assert_eq!(snap.read(28..31), None);
        assert_eq!(snap.read(31..32), None);
        // A length no span holds (a page header's, say) is refused, not allocated.
        assert_eq!(snap.read(5..u64::MAX / 2), None);
        assert_eq!(snap.read(20..20).map(|b| b.len()), Some(0));
    }

    #[test]
    fn many_small_pieces_are_joined_by_copying() {
        let data = Bytes::from((0..1000u32).map(|i| i as u8).collect::<Vec<_>>());
        // In order: touching pieces are joined as they come. Every other byte first: the
        // pieces stay apart until the rest arrive. Either way the span reads back whole.
        let in_order: Vec<u64> = (0..1000).collect();
        let alternating: Vec<u64> = (0..1000).step_by(2).chain((1..1000).step_by(2)).collect();
        for (order, bounded) in [(in_order, true), (alternating, false)] {
            let mut s = Spans::default();
            let span = 0..1000;
            s.want(&[span]);
            probe::reset();
            for at in order {
                s.push(at, &data.slice(at as usize..at as usize + 1));
                if let Some((_, (_, Fill::Partial { pieces, .. }))) = s.spans.iter().next() {
                    assert!(!bounded || pieces.len() <= MAX_PIECES, "{}", pieces.len());
                }
            }
            assert!(s.complete());
            if probe::ENABLED {
                assert!(probe::get("push.pieces_joined") > 0);
            }
            let snap = s.snapshot().unwrap();
            assert_eq!(&snap.read(0..1000).unwrap()[..], &data[..]);
        }
    }

    #[test]
    fn a_span_two_pieces_fill_is_kept_in_them_without_a_copy() {
        let mut s = Spans::default();
        let span = 0..20;
        s.want(&[span]);
        let data = Bytes::from((0u8..50).collect::<Vec<_>>());
        // Overlapping pieces: the second keeps only what the first did not bring.
        assert_eq!(s.push(0, &data.slice(0..12)), 12);
        assert_eq!(s.missing(), vec![12..20]);
        assert_eq!(s.push(8, &data.slice(8..30)), 8);
        assert!(s.complete());
        let snap = s.snapshot().unwrap();
        assert_eq!(snap.read(2..6).unwrap().as_ptr(), data[2..].as_ptr());
        assert_eq!(snap.read(14..18).unwrap().as_ptr(), data[14..].as_ptr());
        assert_eq!(&snap.read(0..20).unwrap()[..], &data[0..20]);
    }

    proptest! {
        /// Whatever pieces arrive, in whatever order, the spans end up holding the file's
        /// bytes, and `missing` says exactly what is still absent.
        #[test]
        fn pieces_in_any_order_fill_the_spans(
            wants in proptest::collection::vec((0u64..400, 1u64..60), 1..6),
            cuts in proptest::collection::vec((0u64..500, 1u64..80), 0..40),
        ) {
            let file: Vec<u8> = (0..500u32).map(|i| (i * 7 % 251) as u8).collect();
            let file = Bytes::from(file);
            let mut s = Spans::default();
            let ranges: Vec<_> = wants.iter().map(|&(a, l)| a..(a + l).min(500)).collect();
            s.want(&ranges);
            for (a, l) in cuts {
                let e = (a + l).min(500);
                s.push(a, &file.slice(a as usize..e as usize));
            }
            for m in s.missing() {
                s.push(m.start, &file.slice(m.start as usize..m.end as usize));
            }
            prop_assert!(s.complete());
            prop_assert!(s.missing().is_empty());
            let snap = s.snapshot().unwrap();
            for r in ranges {
                let got = snap.read(r.clone()).unwrap();
                prop_assert_eq!(&got[..], &file[r.start as usize..r.end as usize]);
            }
        }
    }
}
