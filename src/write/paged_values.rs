//! The stored values of a shredded numeric leaf (INT32, INT64, FLOAT, DOUBLE) gathered one
//! page at a time into one reused buffer, instead of into a chunk-sized copy first: a chunk
//! that gets no dictionary (the estimate says PLAIN, or the policy names another encoding)
//! never holds its values twice, and never touches a chunk-sized allocation. The dictionary
//! estimate samples the runs where they are.
//!
//! Probe: `write.paged_values` (a chunk whose values were gathered page by page).

use std::borrow::Cow;

use super::column::Dense;
use super::shred::{LeafLevels, Piece};
use crate::column::{Column, Values};
use crate::metadata::Type;

/// The PLAIN (little-endian) bytes of `c`'s values when they have the layout of `physical`.
fn bytes_of(physical: Type, c: &Column) -> Option<&[u8]> {
    match (physical, &c.values) {
        (Type::INT32, Values::Int32(v)) => Some(bytemuck::cast_slice(v)),
        (Type::INT64, Values::Int64(v)) => Some(bytemuck::cast_slice(v)),
        (Type::FLOAT, Values::Float(v)) => Some(bytemuck::cast_slice(v)),
        (Type::DOUBLE, Values::Double(v)) => Some(bytemuck::cast_slice(v)),
        _ => None,
    }
}

/// A numeric leaf's runs of stored values, walked forward one page at a time.
pub(crate) struct PagedValues<'a> {
    physical: Type,
    width: usize,
    pieces: &'a [Piece],
    /// The next value: its piece, its run in the piece, its slot in the run.
    piece: usize,
    run: usize,
    at: usize,
    /// The page being handed out (`u64` words, so that any of the types can borrow it).
    buf: Vec<u64>,
}

impl<'a> PagedValues<'a> {
    /// The paged values of `leaf`, a leaf of numeric type `physical`: `None` for other types,
    /// for values that are one run (borrowed whole, never copied), and for columns of
    /// another layout (the dense path reports those).
    pub(crate) fn new(leaf: &'a LeafLevels, physical: Type) -> Option<Self> {
        let width = match physical {
            Type::INT32 | Type::FLOAT => 4,
            Type::INT64 | Type::DOUBLE => 8,
            _ => return None,
        };
        let pieces = leaf.pieces.as_slice();
        let one_run = matches!(pieces, [p] if p.runs.len() == 1);
        if one_run
            || pieces
                .iter()
                .any(|p| bytes_of(physical, &p.column).is_none())
        {
            return None;
        }
        Some(PagedValues {
            physical,
            width,
            pieces,
            piece: 0,
            run: 0,
            at: 0,
            buf: Vec::new(),
        })
    }

    fn runs(&self) -> impl Iterator<Item = (&'a [u8], usize, usize)> + 'a {
        let physical = self.physical;
        self.pieces.iter().flat_map(move |p| {
            let bytes = bytes_of(physical, &p.column).unwrap_or(&[]);
            p.runs.iter().map(move |&(s, e)| (bytes, s, e))
        })
    }

    /// The bytes of the stored values at `positions` (increasing), for the dictionary
    /// estimate.
    pub(crate) fn sample(&self, positions: impl Iterator<Item = usize>) -> Vec<&'a [u8]> {
        let w = self.width;
        let mut runs = self.runs();
        let (mut run, mut base) = (runs.next(), 0usize);
        let mut out = Vec::new();
        for pos in positions {
            while let Some((_, s, e)) = run {
                if pos < base + (e - s) {
                    break;
                }
                base += e - s;
                run = runs.next();
            }
            let Some((bytes, s, _)) = run else { break };
            let i = s + pos - base;
            out.push(&bytes[i * w..(i + 1) * w]);
        }
        out
    }

    /// The next `n` stored values, one copy per run, as a page's values.
    pub(crate) fn next_page(&mut self, n: usize) -> Dense<'_> {
        let w = self.width;
        // Grown, never cleared: every byte handed out is written first.
        let words = (n * w).div_ceil(8);
        if self.buf.len() < words {
            self.buf.resize(words, 0);
        }
        let out: &mut [u8] = bytemuck::cast_slice_mut(&mut self.buf[..words]);
        let mut filled = 0;
        while filled < n {
            let Some(p) = self.pieces.get(self.piece) else {
                break;
            };
            let Some(&(s, e)) = p.runs.get(self.run) else {
                (self.piece, self.run, self.at) = (self.piece + 1, 0, 0);
                continue;
            };
            let from = s + self.at;
            let take = (e - from).min(n - filled);
            let src = bytes_of(self.physical, &p.column).unwrap_or(&[]);
            out[filled * w..(filled + take) * w].copy_from_slice(&src[from * w..(from + take) * w]);
            filled += take;
            self.at += take;
            if from + take == e {
                (self.run, self.at) = (self.run + 1, 0);
            }
        }
        let words = &self.buf[..words];
        match self.physical {
            Type::INT32 => Dense::Int32(Cow::Borrowed(&bytemuck::cast_slice(words)[..filled])),
            Type::FLOAT => Dense::Float(Cow::Borrowed(&bytemuck::cast_slice(words)[..filled])),
            Type::INT64 => Dense::Int64(Cow::Borrowed(&bytemuck::cast_slice(words)[..filled])),
            _ => Dense::Double(Cow::Borrowed(&bytemuck::cast_slice(words)[..filled])),
        }
    }
}
