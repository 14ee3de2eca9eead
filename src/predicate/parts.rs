//! A column the filter decoded batch by batch, kept as those batches.
//!
//! The filter's stages decode a row group's predicate columns in batches of
//! [`EVAL_BATCH`](super::filter) rows. A projected one is kept for the output, so that it is
//! not decoded twice. Joining its batches into one column would copy the whole row group
//! into a fresh allocation (for a million-row row group, megabytes of new pages the kernel
//! must zero) only for the output to slice it into batches again; kept as parts, an output
//! batch is a slice of one part, and only one that straddles two parts is copied (probe
//! `predicate.kept_parts_joined`).

use arrow_buffer::BooleanBuffer;
use parq_codecs::probe;

use super::eval::filter_column;
use crate::column::Column;

/// A column as consecutive parts, read by slices.
#[derive(Debug, Clone)]
pub(crate) struct Parts {
    /// At least one; none empty unless it is the only one (it then gives the layout).
    parts: Vec<Column>,
    /// The first slot of each part.
    starts: Vec<usize>,
}

impl Parts {
    /// `parts` end to end; `None` when there is none.
    pub(crate) fn new(parts: Vec<Column>) -> Option<Parts> {
        let layout = parts.first()?.slice(0, 0);
        Some(Parts::with_layout(parts, layout))
    }

    /// `parts` end to end, the empty ones left out; `layout` (no slot) when all are.
    fn with_layout(parts: Vec<Column>, layout: Column) -> Parts {
        let mut parts: Vec<Column> = parts.into_iter().filter(|c| c.len > 0).collect();
        if parts.is_empty() {
            parts.push(layout);
        }
        let mut starts = Vec::with_capacity(parts.len());
        let mut len = 0;
        for p in &parts {
            starts.push(len);
            len += p.len;
        }
        Parts { parts, starts }
    }

    /// Slots in all.
    pub(crate) fn len(&self) -> usize {
        let last = self.parts.len() - 1;
        self.starts[last] + self.parts[last].len
    }

    /// Slots `from..from + n`: a view of one part where they fall in one, else a copy of
    /// the pieces joined.
    ///
    /// # Panics
    /// If the range is outside the column.
    pub(crate) fn slice(&self, from: usize, n: usize) -> Column {
        assert!(from + n <= self.len(), "slice out of bounds");
        // The part holding slot `from`: the last one starting at or before it.
        let first = self
            .starts
            .partition_point(|&s| s <= from)
            .saturating_sub(1);
        let part = &self.parts[first];
        let offset = from - self.starts[first];
        if offset + n <= part.len {
            return part.slice(offset, n);
        }
        probe::hit("predicate.kept_parts_joined");
        let mut pieces = Vec::new();
        let (mut at, mut left) = (from, n);
        for (p, &start) in self.parts[first..].iter().zip(&self.starts[first..]) {
            if left == 0 {
                break;
            }
            let offset = at - start;
            let take = (p.len - offset).min(left);
            pieces.push(p.slice(offset, take));
            at += take;
            left -= take;
        }
        Column::concat(&pieces)
    }

    /// The whole column, as one.
    pub(crate) fn whole(&self) -> Column {
        match self.parts.as_slice() {
            [one] => one.clone(),
            parts => Column::concat(parts),
        }
    }

    /// The slots `mask` (as long as the column) sets, part by part.
    pub(crate) fn filter(&self, mask: &BooleanBuffer) -> Parts {
        debug_assert_eq!(mask.len(), self.len());
        let parts = self
            .parts
            .iter()
            .zip(&self.starts)
            .map(|(p, &start)| filter_column(p, &mask.slice(start, p.len)))
            .collect();
        Parts::with_layout(parts, self.parts[0].slice(0, 0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::column::Values;

    fn ints(v: std::ops::Range<i64>) -> Column {
        let values: Vec<i64> = v.collect();
        Column {
            len: values.len(),
            validity: None,
            values: Values::Int64(values.into()),
        }
    }

    fn as_ints(c: &Column) -> Vec<i64> {
        match &c.values {
            Values::Int64(v) => v.to_vec(),
            v => panic!("not i64: {v:?}"),
        }
    }

    #[test]
    fn slices_within_and_across_parts_equal_the_joined_column() {
        let parts = Parts::new(vec![ints(0..5), ints(5..5), ints(5..12), ints(12..13)]).unwrap();
        assert_eq!(parts.len(), 13);
        for from in 0..=13 {
            for n in 0..=13 - from {
                let want: Vec<i64> = (from as i64..(from + n) as i64).collect();
                assert_eq!(as_ints(&parts.slice(from, n)), want, "{from}+{n}");
            }
        }
        assert_eq!(as_ints(&parts.whole()), (0..13).collect::<Vec<_>>());
    }

    #[test]
    fn a_slice_inside_one_part_is_not_copied_and_one_across_is() {
        if !probe::ENABLED {
            return;
        }
        let parts = Parts::new(vec![ints(0..8), ints(8..16)]).unwrap();
        probe::reset();
        parts.slice(0, 8);
        parts.slice(9, 7);
        assert_eq!(probe::get("predicate.kept_parts_joined"), 0);
        parts.slice(4, 8);
        assert_eq!(probe::get("predicate.kept_parts_joined"), 1);
    }

    #[test]
    fn filtering_keeps_the_set_slots_part_by_part() {
        let parts = Parts::new(vec![ints(0..4), ints(4..8), ints(8..10)]).unwrap();
        let mask = BooleanBuffer::from_iter((0..10).map(|i| i % 3 == 0 || (4..8).contains(&i)));
        let kept = parts.filter(&mask);
        assert_eq!(as_ints(&kept.whole()), vec![0, 3, 4, 5, 6, 7, 9]);
        let none = parts.filter(&BooleanBuffer::new_unset(10));
        assert_eq!(none.len(), 0);
        assert_eq!(none.slice(0, 0).len, 0);
        assert!(matches!(none.whole().values, Values::Int64(_)));
        assert!(Parts::new(Vec::new()).is_none());
    }
}
