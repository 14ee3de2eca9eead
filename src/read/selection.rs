//! Which rows of a file to read: sorted, disjoint ranges of row numbers.
//!
//! Row numbers count across the whole file in row-group order (row group 1 starts at row
//! group 0's `num_rows`), whatever row groups a reader selects. Pruning (statistics, page
//! index, bloom filters) produces a selection; readers skip the pages and rows outside it.

use std::ops::Range;

/// Rows to read, as sorted, non-overlapping, non-adjacent, non-empty ranges of file row
/// numbers. Every constructor normalises, so two selections of the same rows are equal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RowSelection {
    ranges: Vec<Range<u64>>,
}

impl RowSelection {
    /// No rows.
    pub fn none() -> Self {
        RowSelection::default()
    }

    /// Every row of a file with `num_rows` rows.
    pub fn all(num_rows: u64) -> Self {
        Self::from_ranges(std::iter::once(0..num_rows))
    }

    /// The rows in `ranges`, in any order, overlapping or not; empty ranges are dropped.
    pub fn from_ranges(ranges: impl IntoIterator<Item = Range<u64>>) -> Self {
        let mut ranges: Vec<Range<u64>> = ranges.into_iter().filter(|r| r.start < r.end).collect();
        ranges.sort_unstable_by_key(|r| r.start);
        let mut merged: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
        for r in ranges {
            match merged.last_mut() {
                Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
                _ => merged.push(r),
            }
        }
        RowSelection { ranges: merged }
    }

    /// `ranges` as they are: already sorted, disjoint, non-adjacent and non-empty, as
    /// [`Self::ranges`] gives them (checked in debug builds). For long lists built in
    /// order, which [`Self::from_ranges`] would sort again.
    pub(crate) fn from_sorted_ranges(ranges: Vec<Range<u64>>) -> Self {
        debug_assert!(ranges.iter().all(|r| r.start < r.end));
        debug_assert!(ranges.windows(2).all(|w| w[0].end < w[1].start));
        RowSelection { ranges }
    }

    /// The rows `first_row + i` where `mask[i]` is true: exact evaluation's output.
    pub fn from_mask(first_row: u64, mask: impl IntoIterator<Item = bool>) -> Self {
        let mut ranges = Vec::new();
        let mut start: Option<u64> = None;
        let mut row = first_row;
        for keep in mask {
            match (keep, start) {
                (true, None) => start = Some(row),
                (false, Some(s)) => {
                    ranges.push(s..row);
                    start = None;
                }
                _ => {}
            }
            row += 1;
        }
        if let Some(s) = start {
            ranges.push(s..row);
        }
        RowSelection { ranges }
    }

    /// The rows `first_row + i` where bit `i` of `mask` is set; [`Self::from_mask`] for a
    /// bitmap, a word at a time.
    pub fn from_bits(first_row: u64, mask: &arrow_buffer::BooleanBuffer) -> Self {
        let ranges = mask
            .set_slices()
            .map(|(start, end)| first_row + start as u64..first_row + end as u64)
            .collect();
        RowSelection { ranges }
    }

    /// The ranges, sorted and disjoint.
    pub fn ranges(&self) -> &[Range<u64>] {
        &self.ranges
    }

    /// How many rows are selected.
    pub fn row_count(&self) -> u64 {
        self.ranges.iter().map(|r| r.end - r.start).sum()
    }

    /// True when no row is selected.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// Whether `row` is selected.
    pub fn contains(&self, row: u64) -> bool {
        let i = self.ranges.partition_point(|r| r.end <= row);
        self.ranges.get(i).is_some_and(|r| r.start <= row)
    }

    /// Whether any row of `rows` is selected.
    pub fn intersects(&self, rows: Range<u64>) -> bool {
        let i = self.ranges.partition_point(|r| r.end <= rows.start);
        self.ranges.get(i).is_some_and(|r| r.start < rows.end) && rows.start < rows.end
    }

    /// The rows selected in both.
    pub fn intersection(&self, other: &RowSelection) -> RowSelection {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while i < self.ranges.len() && j < other.ranges.len() {
            let (a, b) = (&self.ranges[i], &other.ranges[j]);
            let start = a.start.max(b.start);
            let end = a.end.min(b.end);
            if start < end {
                out.push(start..end);
            }
            if a.end <= b.end {
                i += 1;
            } else {
                j += 1;
            }
        }
        RowSelection { ranges: out }
    }

    /// The rows selected in either.
    pub fn union(&self, other: &RowSelection) -> RowSelection {
        Self::from_ranges(self.ranges.iter().chain(&other.ranges).cloned())
    }

    /// The rows of `0..num_rows` not selected.
    pub fn complement(&self, num_rows: u64) -> RowSelection {
        let mut out = Vec::new();
        let mut next = 0;
        for r in &self.ranges {
            if r.start >= num_rows {
                break;
            }
            if next < r.start {
                out.push(next..r.start);
            }
            next = r.end;
        }
        if next < num_rows {
            out.push(next..num_rows);
        }
        RowSelection { ranges: out }
    }

    /// The selected rows inside `rows`, shifted so that `rows.start` becomes 0: the selection
    /// local to one row group or page.
    pub fn slice(&self, rows: Range<u64>) -> RowSelection {
        let i = self.ranges.partition_point(|r| r.end <= rows.start);
        let ranges = self.ranges[i..]
            .iter()
            .take_while(|r| r.start < rows.end)
            .map(|r| r.start.max(rows.start) - rows.start..r.end.min(rows.end) - rows.start)
            .collect();
        RowSelection { ranges }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(sel: &RowSelection, n: u64) -> Vec<bool> {
        (0..n).map(|r| sel.contains(r)).collect()
    }

    fn ranges() -> impl Strategy<Value = Vec<Range<u64>>> {
        prop::collection::vec((0u64..200, 0u64..30).prop_map(|(s, l)| s..s + l), 0..12)
    }

    proptest! {
        #[test]
        fn normalised_and_set_ops_match_masks(a in ranges(), b in ranges()) {
            let n = 240;
            let (sa, sb) = (RowSelection::from_ranges(a.clone()), RowSelection::from_ranges(b));
            for w in sa.ranges().windows(2) {
                prop_assert!(w[0].end < w[1].start);
            }
            let in_a: Vec<bool> = (0..n).map(|r| a.iter().any(|x| x.contains(&r))).collect();
            prop_assert_eq!(naive(&sa, n), in_a.clone());
            prop_assert_eq!(RowSelection::from_mask(0, in_a.iter().copied()), sa.clone());
            // From a bitmap, at an offset that is not a word boundary too.
            let bits = arrow_buffer::BooleanBuffer::from(in_a.clone());
            prop_assert_eq!(RowSelection::from_bits(0, &bits), sa.clone());
            let mut shifted = vec![true; 3];
            shifted.extend(&in_a);
            let shifted = arrow_buffer::BooleanBuffer::from(shifted).slice(3, n as usize);
            prop_assert_eq!(RowSelection::from_bits(0, &shifted), sa.clone());
            let (ma, mb) = (naive(&sa, n), naive(&sb, n));
            let and: Vec<bool> = ma.iter().zip(&mb).map(|(x, y)| *x && *y).collect();
            let or: Vec<bool> = ma.iter().zip(&mb).map(|(x, y)| *x || *y).collect();
            let not: Vec<bool> = ma.iter().map(|x| !x).collect();
            prop_assert_eq!(naive(&sa.intersection(&sb), n), and);
            prop_assert_eq!(naive(&sa.union(&sb), n), or);
            prop_assert_eq!(naive(&sa.complement(n), n), not);
            prop_assert_eq!(sa.row_count(), ma.iter().filter(|x| **x).count() as u64);
            let local = sa.slice(50..120);
            prop_assert_eq!(naive(&local, 70), ma[50..120].to_vec());
            prop_assert_eq!(sa.intersects(50..120), ma[50..120].iter().any(|x| *x));
        }
    }
}
