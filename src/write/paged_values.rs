//! The stored values of a shredded numeric (INT32, INT64, FLOAT, DOUBLE) or BYTE_ARRAY leaf
//! gathered one page at a time (numbers into one reused buffer, byte arrays as runs of their
//! offsets, or as one slice per value for views and encodings other than PLAIN), instead of
//! into a chunk-sized copy first: a chunk that gets no dictionary (the estimate says PLAIN,
//! or the policy names another encoding) never holds its values twice, and never touches a
//! chunk-sized allocation. The dictionary estimate samples the runs where they are.
//!
//! Probe: `write.paged_values` (a chunk whose values were gathered page by page).

use std::borrow::Cow;

use super::column::{byte_slices, Dense};
use super::nested_pages::ValueBits;
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

/// Whether `c` is a byte-array column.
fn is_bytes(c: &Column) -> bool {
    matches!(
        c.values,
        Values::Binary { .. } | Values::SmallBinary { .. } | Values::BinaryView { .. }
    )
}

/// A leaf's runs of stored values, walked forward one page at a time.
pub(crate) struct PagedValues<'a> {
    physical: Type,
    /// Bytes per value; 0 for byte arrays.
    width: usize,
    pieces: &'a [Piece],
    /// The next value.
    cursor: Cursor,
    /// The page being handed out (`u64` words, so that any of the types can borrow it).
    buf: Vec<u64>,
}

impl<'a> PagedValues<'a> {
    /// The paged values of `leaf`, a leaf of numeric or byte-array type `physical`: `None`
    /// for other types, for numbers that are one run (borrowed whole, never copied), and for
    /// columns of another layout (the dense path reports those).
    pub(crate) fn new(leaf: &'a LeafLevels, physical: Type) -> Option<Self> {
        let width = match physical {
            Type::INT32 | Type::FLOAT => 4,
            Type::INT64 | Type::DOUBLE => 8,
            Type::BYTE_ARRAY => 0,
            _ => return None,
        };
        let pieces = leaf.pieces.as_slice();
        let one_run = matches!(pieces, [p] if p.runs.len() == 1);
        let layout = |c: &Column| match width {
            0 => is_bytes(c),
            _ => bytes_of(physical, c).is_some(),
        };
        // One run of numbers is borrowed whole; byte arrays are slices either way.
        if (one_run && width > 0) || !pieces.iter().all(|p| layout(&p.column)) {
            return None;
        }
        Some(PagedValues {
            physical,
            width,
            pieces,
            cursor: Cursor::default(),
            buf: Vec::new(),
        })
    }

    /// Whether the values are byte arrays.
    pub(crate) fn byte_arrays(&self) -> bool {
        self.width == 0
    }

    fn runs(&self) -> impl Iterator<Item = (&'a Column, usize, usize)> + 'a {
        self.pieces
            .iter()
            .flat_map(|p| p.runs.iter().map(move |&(s, e)| (&p.column, s, e)))
    }

    /// Stored value `i` of `c`.
    fn value(&self, c: &'a Column, i: usize) -> &'a [u8] {
        match self.width {
            0 => c.bytes(i).unwrap_or(&[]),
            w => &bytes_of(self.physical, c).unwrap_or(&[])[i * w..(i + 1) * w],
        }
    }

    /// The PLAIN bits of the stored byte arrays, in order (they cut the pages).
    pub(crate) fn byte_bits(&self) -> ByteBits<'a> {
        ByteBits {
            pieces: self.pieces,
            cursor: Cursor::default(),
        }
    }

    /// The stored values at `positions` (increasing), for the dictionary estimate.
    pub(crate) fn sample(&self, positions: impl Iterator<Item = usize>) -> Vec<&'a [u8]> {
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
            let Some((c, s, _)) = run else { break };
            out.push(self.value(c, s + pos - base));
        }
        out
    }

    /// Whether every piece holds its byte arrays as offsets (i32 or i64) into one buffer, so
    /// that pages can be taken as runs ([`Self::next_runs`]).
    pub(crate) fn offset_runs(&self) -> bool {
        self.width == 0
            && self.pieces.iter().all(|p| {
                matches!(
                    p.column.values,
                    Values::Binary { .. } | Values::SmallBinary { .. }
                )
            })
    }

    /// The next `n` stored byte arrays as runs of offsets into their buffers, into `out`
    /// (cleared first): a page's values without a slice per value. Views (see
    /// [`Self::offset_runs`]) are skipped.
    pub(crate) fn next_runs(&mut self, n: usize, out: &mut Vec<ByteRun<'a>>) {
        out.clear();
        let mut taken = 0;
        while let Some((c, from, take)) = self.cursor.next_stretch(self.pieces, n - taken) {
            taken += take;
            match &c.values {
                Values::SmallBinary { offsets, data } => {
                    out.push(ByteRun::Small(&offsets[from..=from + take], data))
                }
                Values::Binary { offsets, data } => {
                    out.push(ByteRun::Large(&offsets[from..=from + take], data))
                }
                _ => {}
            }
        }
    }

    /// The next `n` stored byte arrays, as a page's values.
    fn next_bytes(&mut self, n: usize) -> Dense<'a> {
        let mut out = Vec::with_capacity(n);
        while let Some((c, from, take)) = self.cursor.next_stretch(self.pieces, n - out.len()) {
            match &c.values {
                Values::Binary { offsets, data } => {
                    out.extend(byte_slices(offsets, data, from, from + take))
                }
                Values::SmallBinary { offsets, data } => {
                    out.extend(byte_slices(offsets, data, from, from + take))
                }
                _ => out.extend((from..from + take).map(|i| c.bytes(i).unwrap_or(&[]))),
            }
        }
        Dense::Bytes(out)
    }

    /// The next `n` stored values, one copy per run, as a page's values.
    pub(crate) fn next_page(&mut self, n: usize) -> Dense<'_> {
        if self.width == 0 {
            return self.next_bytes(n);
        }
        let w = self.width;
        // Grown, never cleared: every byte handed out is written first.
        let words = (n * w).div_ceil(8);
        // Taken out while the cursor moves (it borrows `self`), and put back to lend from.
        let mut buf = std::mem::take(&mut self.buf);
        if buf.len() < words {
            buf.resize(words, 0);
        }
        let out: &mut [u8] = bytemuck::cast_slice_mut(&mut buf[..words]);
        let mut filled = 0;
        while let Some((c, from, take)) = self.cursor.next_stretch(self.pieces, n - filled) {
            let src = bytes_of(self.physical, c).unwrap_or(&[]);
            out[filled * w..(filled + take) * w].copy_from_slice(&src[from * w..(from + take) * w]);
            filled += take;
        }
        self.buf = buf;
        let words = &self.buf[..words];
        match self.physical {
            Type::INT32 => Dense::Int32(Cow::Borrowed(&bytemuck::cast_slice(words)[..filled])),
            Type::FLOAT => Dense::Float(Cow::Borrowed(&bytemuck::cast_slice(words)[..filled])),
            Type::INT64 => Dense::Int64(Cow::Borrowed(&bytemuck::cast_slice(words)[..filled])),
            _ => Dense::Double(Cow::Borrowed(&bytemuck::cast_slice(words)[..filled])),
        }
    }
}

/// A stretch of a page's byte arrays in one column: value `i` is
/// `data[offsets[i]..offsets[i + 1]]` (`offsets` has one more entry than values), `data`
/// being the column's whole buffer.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ByteRun<'a> {
    /// i32 offsets (Arrow `Utf8`, `Binary`).
    Small(&'a [i32], &'a [u8]),
    /// i64 offsets (Arrow `LargeUtf8`, `LargeBinary`).
    Large(&'a [i64], &'a [u8]),
}

impl ByteRun<'_> {
    /// The bytes of the run's values together (what a page's size statistics count).
    pub(crate) fn value_bytes(&self) -> usize {
        match *self {
            ByteRun::Small(o, _) => (o[o.len() - 1] - o[0]) as usize,
            ByteRun::Large(o, _) => (o[o.len() - 1] - o[0]) as usize,
        }
    }
}

/// Where the next stored value of a leaf is: its piece, its run in the piece, its slot in the
/// run.
#[derive(Debug, Clone, Copy, Default)]
struct Cursor {
    piece: usize,
    run: usize,
    at: usize,
}

impl Cursor {
    /// The next stretch of at most `want` stored values of `pieces` inside one run, as
    /// (column, first index, count), the cursor moved past it; `None` when `want` is 0 or the
    /// runs are done.
    fn next_stretch<'a>(
        &mut self,
        pieces: &'a [Piece],
        want: usize,
    ) -> Option<(&'a Column, usize, usize)> {
        if want == 0 {
            return None;
        }
        loop {
            let p = pieces.get(self.piece)?;
            let Some(&(s, e)) = p.runs.get(self.run) else {
                (self.piece, self.run, self.at) = (self.piece + 1, 0, 0);
                continue;
            };
            let from = s + self.at;
            let take = (e - from).min(want);
            self.at += take;
            if from + take == e {
                (self.run, self.at) = (self.run + 1, 0);
            }
            return Some((&p.column, from, take));
        }
    }
}

/// The PLAIN bits of a leaf's stored byte arrays (4 length bytes and the bytes of each),
/// from the offsets or views without touching the bytes: a stretch of values within a run
/// of offsets costs one subtraction, whatever its length.
#[derive(Debug, Clone)]
pub(crate) struct ByteBits<'a> {
    pieces: &'a [Piece],
    cursor: Cursor,
}

impl ValueBits for ByteBits<'_> {
    fn take(&mut self, n: usize) -> u64 {
        let (mut values, mut bytes) = (0usize, 0u64);
        while let Some((c, from, take)) = self.cursor.next_stretch(self.pieces, n - values) {
            values += take;
            bytes += match &c.values {
                Values::Binary { offsets, .. } => (offsets[from + take] - offsets[from]) as u64,
                Values::SmallBinary { offsets, .. } => {
                    (offsets[from + take] - offsets[from]) as u64
                }
                Values::BinaryView { views, .. } => views[from..from + take]
                    .iter()
                    .map(|&v| v as u32 as u64)
                    .sum(),
                _ => 0,
            };
        }
        (4 * values as u64 + bytes) * 8
    }
}
