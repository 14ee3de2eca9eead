//! Pruning by the column index, page by page: the rows of the pages that may match, as a
//! `RowSelection` (page first rows come from the offset index).
//!
//! A page's bounds are trusted as statistics are (see [`super::stats`]), with two
//! differences: the column index has no exactness flags, so byte-array bounds (which writers
//! truncate) are bounds but never exact; and `null_pages` marks pages of nulls only. The
//! `boundary_order` is not relied on: every page is checked. An index whose lists disagree in
//! length with the offset index, or whose first rows are not increasing inside the row
//! group, prunes nothing.

use std::ops::Range;

use super::literal::Domain;
use super::stats::{bound, order_usable, prunes, Summary};
use super::Test;
use crate::metadata::{ColumnIndex, ColumnOrder, OffsetIndex};

/// The row ranges (relative to the row group) of the pages of `offsets`, for a row group of
/// `rows` rows; `None` when they do not tile `0..rows`.
pub(crate) fn page_rows(offsets: &OffsetIndex, rows: u64) -> Option<Vec<Range<u64>>> {
    let locs = &offsets.page_locations;
    if locs.first()?.first_row_index != 0 {
        return None;
    }
    let mut out = Vec::with_capacity(locs.len());
    for (k, loc) in locs.iter().enumerate() {
        let start = u64::try_from(loc.first_row_index).ok()?;
        let end = match locs.get(k + 1) {
            Some(next) => u64::try_from(next.first_row_index).ok()?,
            None => rows,
        };
        if start >= end || end > rows {
            return None;
        }
        out.push(start..end);
    }
    Some(out)
}

/// Whether a column index is believable for a non-repeated leaf whose pages hold `pages`
/// rows: its lists are as long as the offset index's, and every page it calls all-null is
/// confirmed by a null count equal to the page's rows (and the leaf is nullable at all).
/// Some writers (parquet-mr without statistics) store every page as a null page with null
/// counts of -1; such an index would prune every page.
pub(crate) fn plausible(index: &ColumnIndex, pages: &[Range<u64>], nullable: bool) -> bool {
    let n = pages.len();
    if index.null_pages.len() != n || index.min_values.len() != n || index.max_values.len() != n {
        return false;
    }
    if let Some(c) = &index.null_counts {
        if c.len() != n || c.iter().any(|x| *x < 0) {
            return false;
        }
    }
    index
        .null_pages
        .iter()
        .zip(pages)
        .enumerate()
        .all(|(k, (null, rows))| {
            !null
                || (nullable
                    && index
                        .null_counts
                        .as_ref()
                        .and_then(|c| c.get(k))
                        .is_some_and(|c| *c as u64 == rows.end - rows.start))
        })
}

/// The summary of page `k` of a column index.
fn page_summary(
    index: &ColumnIndex,
    k: usize,
    domain: Domain,
    order: Option<&ColumnOrder>,
) -> Summary {
    let all_null = index.null_pages[k];
    let null_count = index
        .null_counts
        .as_ref()
        .and_then(|c| c.get(k))
        .and_then(|n| u64::try_from(*n).ok());
    let nan_free = !domain.is_float()
        || index
            .nan_counts
            .as_ref()
            .and_then(|c| c.get(k))
            .is_some_and(|n| *n == 0);
    let mut s = Summary {
        null_count,
        all_null,
        nan_free,
        ..Summary::default()
    };
    if !all_null && order_usable(order, domain) {
        s.min = bound(domain, &index.min_values[k]);
        s.max = bound(domain, &index.max_values[k]);
        // Byte arrays may be truncated (still bounds), with nothing to say so.
        let exact = !matches!(domain, Domain::Bytes | Domain::Decimal);
        s.min_exact = exact;
        s.max_exact = exact;
    }
    s
}

/// The rows (relative to the row group) of the pages where `test` may hold; `None` when the
/// index cannot be used.
pub(crate) fn leaf_ranges(
    test: &Test,
    domain: Domain,
    order: Option<&ColumnOrder>,
    index: &ColumnIndex,
    pages: &[Range<u64>],
) -> Option<Vec<Range<u64>>> {
    let n = pages.len();
    if index.null_pages.len() != n || index.min_values.len() != n || index.max_values.len() != n {
        return None;
    }
    let mut out = Vec::new();
    for (k, rows) in pages.iter().enumerate() {
        if prunes(test, &page_summary(index, k, domain, order)) {
            parq_codecs::probe::hit("predicate.page_pruned_by_leaf");
        } else {
            out.push(rows.clone());
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{BoundaryOrder, PageLocation};
    use crate::predicate::literal::Scalar;
    use crate::predicate::CmpOp;

    fn offsets(first_rows: &[i64]) -> OffsetIndex {
        OffsetIndex {
            page_locations: first_rows
                .iter()
                .map(|&r| PageLocation {
                    offset: 0,
                    compressed_page_size: 1,
                    first_row_index: r,
                })
                .collect(),
            unencoded_byte_array_data_bytes: None,
        }
    }

    #[test]
    fn pages_tile_the_row_group() {
        assert_eq!(
            page_rows(&offsets(&[0, 10, 25]), 30),
            Some(vec![0..10, 10..25, 25..30])
        );
        assert_eq!(page_rows(&offsets(&[0, 10, 10]), 30), None);
        assert_eq!(page_rows(&offsets(&[1, 10]), 30), None);
        assert_eq!(page_rows(&offsets(&[0, 40]), 30), None);
        assert_eq!(page_rows(&offsets(&[]), 30), None);
    }

    #[test]
    fn pages_prune() {
        let index = ColumnIndex {
            null_pages: vec![false, true, false],
            min_values: vec![
                1i64.to_le_bytes().to_vec(),
                vec![],
                20i64.to_le_bytes().to_vec(),
            ],
            max_values: vec![
                9i64.to_le_bytes().to_vec(),
                vec![],
                29i64.to_le_bytes().to_vec(),
            ],
            boundary_order: BoundaryOrder::ASCENDING,
            null_counts: Some(vec![0, 10, 2]),
            repetition_level_histograms: None,
            definition_level_histograms: None,
            nan_counts: None,
        };
        let pages = page_rows(&offsets(&[0, 10, 20]), 30).unwrap();
        assert!(plausible(&index, &pages, true));
        assert!(!plausible(&index, &pages, false));
        // parquet-mr without statistics: every page "null", counts unknown.
        let bogus = ColumnIndex {
            null_pages: vec![true; 3],
            min_values: vec![vec![]; 3],
            max_values: vec![vec![]; 3],
            null_counts: Some(vec![-1; 3]),
            ..index.clone()
        };
        assert!(!plausible(&bogus, &pages, true));
        let unconfirmed = ColumnIndex {
            null_counts: None,
            ..index.clone()
        };
        assert!(!plausible(&unconfirmed, &pages, true));
        let eq = |v| Test::Cmp {
            op: CmpOp::Eq,
            value: Scalar::I64(v),
            or_nan: false,
        };
        let r = |t: &Test| leaf_ranges(t, Domain::I64, None, &index, &pages).unwrap();
        assert_eq!(r(&eq(25)), vec![20..30]);
        assert_eq!(r(&eq(15)), Vec::<Range<u64>>::new());
        assert_eq!(r(&Test::IsNull), vec![10..20, 20..30]);
        assert_eq!(r(&Test::IsNotNull), vec![0..10, 20..30]);
        let short = ColumnIndex {
            null_pages: vec![false],
            ..index.clone()
        };
        assert!(leaf_ranges(&eq(25), Domain::I64, None, &short, &pages).is_none());
    }
}
