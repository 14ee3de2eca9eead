//! The page index (`PageIndex.md`): per column chunk, a `ColumnIndex` (min/max, null pages,
//! null counts per data page) and an `OffsetIndex` (where each data page is and its first
//! row). Both are written after the last row group, before the footer.

use std::cmp::Ordering;

use super::stats::{SortOrder, Stats};
use crate::metadata::{BoundaryOrder, ColumnIndex};

/// Collects the column index of one chunk, page by page.
#[derive(Debug)]
pub(crate) struct ColumnIndexBuilder {
    order: SortOrder,
    null_pages: Vec<bool>,
    min_values: Vec<Vec<u8>>,
    max_values: Vec<Vec<u8>>,
    null_counts: Vec<i64>,
    nan_counts: Option<Vec<i64>>,
    def_histograms: Option<Vec<i64>>,
    rep_histograms: Option<Vec<i64>>,
    /// False once a page had values but no bounds (all NaN, or no order): the spec then
    /// forbids the column index for the chunk.
    valid: bool,
}

impl ColumnIndexBuilder {
    /// A builder for a column of `order`; `def_histograms` when the column has definition
    /// levels (2 entries per page for a flat optional column).
    pub(crate) fn new(order: SortOrder, float: bool, def_histograms: bool) -> Self {
        ColumnIndexBuilder {
            order,
            null_pages: Vec::new(),
            min_values: Vec::new(),
            max_values: Vec::new(),
            null_counts: Vec::new(),
            nan_counts: float.then(Vec::new),
            def_histograms: def_histograms.then(Vec::new),
            rep_histograms: None,
            valid: order != SortOrder::Undefined,
        }
    }

    /// Level histograms per page for a leaf of levels `(max_rep, max_def)` (given to
    /// [`Self::push_leveled`]): each written when its max level is above 0.
    pub(crate) fn with_level_histograms(mut self, max: Option<(u16, u16)>) -> Self {
        if let Some((max_rep, max_def)) = max {
            self.rep_histograms = (max_rep > 0).then(Vec::new);
            self.def_histograms = (max_def > 0).then(Vec::new);
        }
        self
    }

    /// Add the next data page of a flat column: its statistics and its number of slots.
    pub(crate) fn push(&mut self, stats: &Stats, slots: usize) {
        let nulls = stats.null_count as usize;
        if let Some(h) = &mut self.def_histograms {
            h.push(nulls as i64);
            h.push((slots - nulls) as i64);
        }
        self.push_stats(stats, slots);
    }

    /// Add the next data page of a shredded leaf: its statistics, level pairs and level
    /// histograms.
    pub(crate) fn push_leveled(&mut self, stats: &Stats, pairs: usize, rep: &[i64], def: &[i64]) {
        if let Some(h) = &mut self.rep_histograms {
            h.extend_from_slice(rep);
        }
        if let Some(h) = &mut self.def_histograms {
            h.extend_from_slice(def);
        }
        self.push_stats(stats, pairs);
    }

    fn push_stats(&mut self, stats: &Stats, slots: usize) {
        let nulls = stats.null_count as usize;
        let all_null = nulls == slots;
        self.null_pages.push(all_null);
        self.null_counts.push(stats.null_count as i64);
        if let Some(n) = &mut self.nan_counts {
            n.push(stats.nan_count.unwrap_or(0) as i64);
        }
        match (&stats.min_max, all_null) {
            (Some(mm), false) => {
                self.min_values.push(mm.min.clone());
                self.max_values.push(mm.max.clone());
            }
            (_, true) => {
                self.min_values.push(Vec::new());
                self.max_values.push(Vec::new());
            }
            (None, false) => {
                self.valid = false;
                self.min_values.push(Vec::new());
                self.max_values.push(Vec::new());
            }
        }
    }

    /// The column index, or `None` when the spec forbids one for this chunk.
    pub(crate) fn finish(self) -> Option<ColumnIndex> {
        if !self.valid || self.null_pages.is_empty() {
            return None;
        }
        let boundary_order = self.boundary_order();
        Some(ColumnIndex {
            null_pages: self.null_pages,
            min_values: self.min_values,
            max_values: self.max_values,
            boundary_order,
            null_counts: Some(self.null_counts),
            repetition_level_histograms: self.rep_histograms,
            definition_level_histograms: self.def_histograms,
            nan_counts: self.nan_counts,
        })
    }

    /// `ASCENDING` / `DESCENDING` when both the mins and the maxes of the non-null pages are
    /// (ASCENDING when there are fewer than two such pages or all are equal).
    fn boundary_order(&self) -> BoundaryOrder {
        let pages: Vec<usize> = (0..self.null_pages.len())
            .filter(|&i| !self.null_pages[i])
            .collect();
        let (mut asc, mut desc) = (true, true);
        for w in pages.windows(2) {
            let (a, b) = (w[0], w[1]);
            let min = self.order.compare(&self.min_values[a], &self.min_values[b]);
            let max = self.order.compare(&self.max_values[a], &self.max_values[b]);
            if min == Ordering::Greater || max == Ordering::Greater {
                asc = false;
            }
            if min == Ordering::Less || max == Ordering::Less {
                desc = false;
            }
        }
        if asc {
            BoundaryOrder::ASCENDING
        } else if desc {
            BoundaryOrder::DESCENDING
        } else {
            BoundaryOrder::UNORDERED
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::stats::int32;

    fn page(v: &[i32], nulls: u64) -> Stats {
        Stats {
            null_count: nulls,
            nan_count: None,
            min_max: int32(v, SortOrder::Signed),
        }
    }

    #[test]
    fn boundary_orders_and_null_pages() {
        let mut b = ColumnIndexBuilder::new(SortOrder::Signed, false, true);
        b.push(&page(&[1, 2], 0), 2);
        b.push(&page(&[], 3), 3);
        b.push(&page(&[2, 5], 1), 3);
        let ci = b.finish().unwrap();
        assert_eq!(ci.boundary_order, BoundaryOrder::ASCENDING);
        assert_eq!(ci.null_pages, vec![false, true, false]);
        assert_eq!(ci.min_values[1], Vec::<u8>::new());
        assert_eq!(ci.null_counts, Some(vec![0, 3, 1]));
        assert_eq!(ci.definition_level_histograms, Some(vec![0, 2, 3, 0, 1, 2]));

        let mut b = ColumnIndexBuilder::new(SortOrder::Signed, false, false);
        b.push(&page(&[5, 9], 0), 2);
        b.push(&page(&[1, 2], 0), 2);
        assert_eq!(
            b.finish().unwrap().boundary_order,
            BoundaryOrder::DESCENDING
        );

        let mut b = ColumnIndexBuilder::new(SortOrder::Signed, false, false);
        b.push(&page(&[5, 9], 0), 2);
        b.push(&page(&[1, 20], 0), 2);
        assert_eq!(b.finish().unwrap().boundary_order, BoundaryOrder::UNORDERED);
    }

    #[test]
    fn page_without_bounds_forbids_the_index() {
        let mut b = ColumnIndexBuilder::new(SortOrder::Float, true, false);
        b.push(
            &Stats {
                null_count: 0,
                nan_count: Some(2),
                min_max: None,
            },
            2,
        );
        assert!(b.finish().is_none());
        assert!(ColumnIndexBuilder::new(SortOrder::Undefined, false, false)
            .finish()
            .is_none());
    }
}
