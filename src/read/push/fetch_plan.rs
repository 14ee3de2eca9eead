//! Which bytes a row group's read needs: I/O planning, before any data is fetched.
//!
//! For a row group and the projected leaf columns, the plan is the column chunks' byte
//! ranges, or, when a [`RowSelection`](crate::read::RowSelection) leaves rows of the row
//! group out and the offset index locates the pages, only the pages with a selected row
//! (and the dictionary page). The plan mirrors what the column readers then read, through
//! the same functions (`chunk_range`, `plan_segments`), so a planned read never misses.
//!
//! The ranges are then shaped into requests: neighbours closer than
//! [`IoOptions::coalesce_gap`] become one range (probe `io.coalesced`), and ranges longer
//! than [`IoOptions::max_request_size`] are asked for in pieces that can be fetched in
//! parallel (probe `io.split`). Pages planned through the offset index count in
//! `io.page_ranges`.

use std::ops::Range;

use parq_codecs::compression::CodecKind;
use parq_codecs::probe;

use crate::error::Location;
use crate::metadata::FileMetaData;
use crate::read::{FileDecoder, RowSelection, Source};

/// How a decoder shapes its requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct IoOptions {
    /// Ranges less than this many bytes apart are fetched as one (the bytes between are
    /// fetched and dropped). Default 1 MiB, as object stores charge per request and a
    /// request's latency buys about that many bytes.
    pub coalesce_gap: u64,
    /// Ranges longer than this are asked for in pieces of at most this size, so that they
    /// are fetched in parallel (0: never split). Default 8 MiB.
    pub max_request_size: u64,
}

impl Default for IoOptions {
    fn default() -> Self {
        IoOptions {
            coalesce_gap: 1 << 20,
            max_request_size: 8 << 20,
        }
    }
}

impl IoOptions {
    /// These options with [`coalesce_gap`](Self::coalesce_gap) set to `v`.
    pub fn with_coalesce_gap(mut self, v: u64) -> Self {
        self.coalesce_gap = v;
        self
    }

    /// These options with [`max_request_size`](Self::max_request_size) set to `v`.
    pub fn with_max_request_size(mut self, v: u64) -> Self {
        self.max_request_size = v;
        self
    }
}

/// The rows of row group `rg` that `selection` keeps, as rows of the row group, when it
/// leaves some out (`rows` are the row group's file rows).
pub(crate) fn partial_selection(
    selection: Option<&RowSelection>,
    rows: Range<u64>,
) -> Option<RowSelection> {
    let n = rows.end - rows.start;
    selection
        .map(|s| s.slice(rows))
        .filter(|s| s.row_count() < n)
}

/// The offset indexes a selected read of row group `rg` consults: those of the projected
/// `leaves` that have one inside the file. Empty when no page can be skipped by them.
pub(crate) fn index_ranges(
    meta: &FileMetaData,
    file_len: u64,
    rg: usize,
    leaves: &[usize],
) -> Vec<Range<u64>> {
    let Some(group) = meta.row_groups.get(rg) else {
        return Vec::new();
    };
    leaves
        .iter()
        .filter_map(|&c| {
            let chunk = group.columns.get(c)?;
            let start = u64::try_from(chunk.offset_index_offset?).ok()?;
            let len = u64::try_from(chunk.offset_index_length?).ok()?;
            let end = start.checked_add(len)?;
            (end <= file_len && len > 0).then_some(start..end)
        })
        .collect()
}

/// The bytes the column readers of `reader` read for row group `rg` and `leaves`, with
/// the rows `partial` of the row group (`None`: all). Any offset index the plan consults
/// must be readable from `reader` (an index that is not is planned around, as the readers
/// do: the whole chunk).
pub(crate) fn data_ranges<S: Source>(
    reader: &FileDecoder<S>,
    rg: usize,
    leaves: &[usize],
    partial: Option<&RowSelection>,
) -> Vec<Range<u64>> {
    let meta = &reader.metadata;
    let Some(group) = meta.row_groups.get(rg) else {
        return Vec::new();
    };
    let num_rows = group.num_rows.max(0) as u64;
    let mut out = Vec::new();
    for &c in leaves {
        let Some(chunk) = group.columns.get(c) else {
            continue;
        };
        // Chunks the readers refuse before reading need no bytes.
        let Some(cm) = chunk.meta_data.as_ref() else {
            continue;
        };
        if chunk.file_path.is_some() || cm.num_values == 0 {
            continue;
        }
        if CodecKind::from_thrift(cm.codec.0).is_none() {
            continue;
        }
        let loc = Location {
            row_group: Some(rg),
            ..Location::default()
        };
        let Ok((start, end)) = reader.chunk_range(chunk, &loc) else {
            continue;
        };
        let pages = partial.and_then(|sel| {
            reader
                .read_offset_index(rg, c)
                .and_then(|index| match index {
                    Some(index) => {
                        crate::read::file::plan_segments(&index, sel, start..end, num_rows)
                    }
                    None => Ok(None),
                })
                .ok()
                .flatten()
        });
        match pages {
            Some(plan) => {
                probe::hit_n("io.page_ranges", plan.runs.len() as u64);
                out.extend(plan.runs.into_iter().map(|(r, _)| r));
            }
            None => out.push(start..end),
        }
    }
    out
}
