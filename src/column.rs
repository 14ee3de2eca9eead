//! Decoded columns in Arrow layout: what the reader produces and the writer consumes.
//!
//! A [`Column`] holds `len` slots. Null slots exist in the value buffers (Arrow layout) and
//! their contents are unspecified (the reader writes zeros / empty ranges). `validity` is
//! `None` when the column has no nulls.

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

/// The values of a column, one variant per Parquet physical type (plus a view layout for
/// byte arrays).
#[derive(Debug, Clone)]
pub enum Values {
    /// BOOLEAN, bit-packed.
    Boolean(BooleanBuffer),
    /// INT32 (and its logical annotations).
    Int32(ScalarBuffer<i32>),
    /// INT64 (and its logical annotations).
    Int64(ScalarBuffer<i64>),
    /// INT96 as its 12 raw bytes per value: nanoseconds-of-day (u64 LE) then Julian day (u32 LE).
    Int96(Buffer),
    /// FLOAT.
    Float(ScalarBuffer<f32>),
    /// DOUBLE.
    Double(ScalarBuffer<f64>),
    /// BYTE_ARRAY as Arrow's (large) binary layout: `offsets.len() == len + 1`.
    Binary {
        /// Offsets into `data`.
        offsets: OffsetBuffer<i64>,
        /// All values back to back.
        data: Buffer,
    },
    /// BYTE_ARRAY as Arrow's binary-view layout: 16-byte views, short values inline, long
    /// values pointing into `buffers`.
    BinaryView {
        /// One view per slot (Arrow `u128` view layout).
        views: ScalarBuffer<u128>,
        /// The buffers long views point into.
        buffers: Vec<Buffer>,
    },
    /// FIXED_LEN_BYTE_ARRAY: `width` bytes per slot.
    FixedLenByteArray {
        /// Bytes per value.
        width: usize,
        /// `len * width` bytes.
        data: Buffer,
    },
}

/// One decoded flat column (or a slice of one).
#[derive(Debug, Clone)]
pub struct Column {
    /// Number of slots (rows for a flat column).
    pub len: usize,
    /// Validity bitmap; `None` means no nulls.
    pub validity: Option<NullBuffer>,
    /// The values, one slot per row.
    pub values: Values,
}

impl Column {
    /// Number of null slots.
    pub fn null_count(&self) -> usize {
        self.validity.as_ref().map_or(0, |v| v.null_count())
    }

    /// True when slot `i` holds a value.
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity.as_ref().is_none_or(|v| v.is_valid(i))
    }

    /// The bytes of slot `i` of a byte-array column (`Binary`, `BinaryView` or
    /// `FixedLenByteArray`); `None` for other layouts.
    pub fn bytes(&self, i: usize) -> Option<&[u8]> {
        match &self.values {
            Values::Binary { offsets, data } => {
                let (s, e) = (offsets[i] as usize, offsets[i + 1] as usize);
                Some(&data[s..e])
            }
            Values::BinaryView { views, buffers } => {
                let v = views[i];
                let len = (v as u32) as usize;
                if len <= 12 {
                    // Inline data lives in bytes 4..4+len of the view, which we
                    // read through the ScalarBuffer's byte representation.
                    let bytes: &[u8] = bytemuck::cast_slice(&views[i..i + 1]);
                    Some(&bytes[4..4 + len])
                } else {
                    let buf = (v >> 64) as u32 as usize;
                    let off = (v >> 96) as u32 as usize;
                    Some(&buffers[buf][off..off + len])
                }
            }
            Values::FixedLenByteArray { width, data } => Some(&data[i * width..(i + 1) * width]),
            _ => None,
        }
    }
}
