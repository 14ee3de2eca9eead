//! Where the row groups' wanted spans lie in the file, so that a pushed piece is offered
//! to the row groups it reaches instead of to every row group planned.
//!
//! A decoder that plans ahead may hold thousands of row groups at once, each waiting for
//! its own bytes; the driver pushes one piece per request. Offering each piece to every
//! planned row group costs their number for every push, which is quadratic in a file of
//! many small row groups. Their hulls cannot be searched instead: a row group's pruning
//! reads (a column index and an offset index) lie far apart, among every other row
//! group's, so hulls overlap one another. The spans themselves barely do (a chunk's range
//! may reach a few bytes into the next), so they are what is indexed.

use std::collections::BTreeMap;
use std::ops::Range;

/// The spans of row groups, each group named by a key that stays its own while it lives.
#[derive(Debug, Default)]
pub(crate) struct SpanIndex {
    /// `(start, key)` to the span's end.
    spans: BTreeMap<(u64, u64), u64>,
    /// The longest span entered: a span that reaches an offset starts at most this far
    /// before it.
    longest: u64,
}

impl SpanIndex {
    /// Enter the spans `ranges` of the group `key`.
    pub(crate) fn insert(&mut self, key: u64, ranges: &[Range<u64>]) {
        for r in ranges.iter().filter(|r| r.start < r.end) {
            self.longest = self.longest.max(r.end - r.start);
            let end = self.spans.entry((r.start, key)).or_insert(r.end);
            *end = (*end).max(r.end);
        }
    }

    /// Let go of the spans `ranges` of the group `key` (its spans as entered).
    pub(crate) fn remove(&mut self, key: u64, ranges: &[Range<u64>]) {
        for r in ranges {
            self.spans.remove(&(r.start, key));
        }
    }

    /// The groups with a span that `piece` reaches, each once, by key.
    pub(crate) fn reached_by(&self, piece: Range<u64>) -> Vec<u64> {
        let from = piece.start.saturating_sub(self.longest);
        let mut keys: Vec<u64> = self
            .spans
            .range((from, 0)..(piece.end, 0))
            .filter(|(_, &end)| end > piece.start)
            .map(|(&(_, key), _)| key)
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    /// How many spans are entered.
    #[cfg(test)]
    fn len(&self) -> usize {
        self.spans.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_piece_reaches_the_spans_it_overlaps_and_no_other() {
        let mut index = SpanIndex::default();
        index.insert(1, &[0..100, 1_000..1_010]);
        index.insert(2, &[100..200, 1_010..1_020]);
        index.insert(3, std::slice::from_ref(&(195..300)));
        assert_eq!(index.reached_by(0..10), vec![1]);
        assert_eq!(index.reached_by(99..101), vec![1, 2]);
        assert_eq!(index.reached_by(196..197), vec![2, 3]);
        assert_eq!(index.reached_by(300..400), Vec::<u64>::new());
        assert_eq!(index.reached_by(1_005..1_015), vec![1, 2]);
        index.remove(1, &[0..100, 1_000..1_010]);
        assert_eq!(index.reached_by(0..1_020), vec![2, 3]);
        assert_eq!(index.len(), 3);
    }

    proptest! {
        /// Against a scan of every span: the same groups for any piece.
        #[test]
        fn reached_by_matches_a_scan(
            spans in prop::collection::vec((0u64..8, 0u64..2_000, 1u64..300), 0..40),
            piece in (0u64..2_400, 1u64..400),
        ) {
            let mut index = SpanIndex::default();
            for (key, start, len) in &spans {
                index.insert(*key, std::slice::from_ref(&(*start..start + len)));
            }
            let piece = piece.0..piece.0 + piece.1;
            let mut expected: Vec<u64> = spans
                .iter()
                .filter(|(_, s, l)| *s < piece.end && s + l > piece.start)
                .map(|(k, _, _)| *k)
                .collect();
            expected.sort_unstable();
            expected.dedup();
            prop_assert_eq!(index.reached_by(piece), expected);
        }
    }
}
