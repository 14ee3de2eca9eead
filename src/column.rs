//! Decoded columns in Arrow layout: what the reader produces and the writer consumes.
//!
//! A [`Column`] holds `len` slots. Null slots exist in the value buffers (Arrow layout) and
//! their contents are unspecified (the reader writes zeros / empty ranges). `validity` is
//! `None` when the column has no nulls.

use std::sync::Arc;

use arrow_buffer::{
    BooleanBuffer, BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer,
};
use parq_codecs::kernels::memory::reserve_huge;

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
    /// BYTE_ARRAY as Arrow's small binary layout (`Utf8`, `Binary`): i32 offsets,
    /// `offsets.len() == len + 1`. Only produced when
    /// [`ReadOptions::small_offsets`](crate::read::ReadOptions::small_offsets) asks for it, for
    /// runs whose bytes fit; [`Column::to_offsets`] widens it to [`Values::Binary`], and the
    /// writer takes it (widened).
    SmallBinary {
        /// Offsets into `data`.
        offsets: OffsetBuffer<i32>,
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
    /// Dictionary-encoded pages as they are stored: one key per slot into the column
    /// chunk's dictionary, shared (not copied) by every column cut from that chunk. Only
    /// produced when [`ReadOptions::dictionary_keys`](crate::read::ReadOptions::dictionary_keys)
    /// asks for it; [`Column::materialize`] turns it into the dictionary's own layout.
    Dictionary {
        /// One key per slot, each below `dictionary.len` in valid slots (0 in null slots).
        keys: ScalarBuffer<i32>,
        /// The dictionary page's values (no nulls), in any other layout.
        dictionary: Arc<Column>,
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

impl Values {
    /// `values` in Arrow's view layout: up to 12 bytes inline, longer ones in one buffer.
    #[cfg(any(test, feature = "testing"))]
    pub(crate) fn views_of<'a>(values: impl IntoIterator<Item = &'a [u8]>) -> Values {
        let mut data = Vec::new();
        let views: Vec<u128> = values
            .into_iter()
            .map(|v| {
                let mut view = [0u8; 16];
                view[..4].copy_from_slice(&(v.len() as u32).to_le_bytes());
                if v.len() <= 12 {
                    view[4..4 + v.len()].copy_from_slice(v);
                } else {
                    view[4..8].copy_from_slice(&v[..4]);
                    view[12..].copy_from_slice(&(data.len() as u32).to_le_bytes());
                    data.extend_from_slice(v);
                }
                u128::from_le_bytes(view)
            })
            .collect();
        Values::BinaryView {
            views: views.into(),
            buffers: vec![Buffer::from_vec(data)],
        }
    }
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

    /// The bytes of slot `i` of a byte-array column (`Binary`, `SmallBinary`, `BinaryView`
    /// or `FixedLenByteArray`); `None` for other layouts.
    pub fn bytes(&self, i: usize) -> Option<&[u8]> {
        match &self.values {
            Values::Binary { offsets, data } => {
                let (s, e) = (offsets[i] as usize, offsets[i + 1] as usize);
                Some(&data[s..e])
            }
            Values::SmallBinary { offsets, data } => {
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
            Values::Dictionary { keys, dictionary } => {
                let k = keys[i] as usize;
                if k < dictionary.len {
                    dictionary.bytes(k)
                } else {
                    // A null slot of a column whose dictionary is empty.
                    dictionary.bytes(0).map(|_| &[][..])
                }
            }
            _ => None,
        }
    }
}

impl Column {
    /// Slots `offset..offset + len`, without copying.
    ///
    /// # Panics
    /// If the range is outside the column.
    pub fn slice(&self, offset: usize, len: usize) -> Column {
        assert!(offset + len <= self.len, "slice out of bounds");
        let validity = self
            .validity
            .as_ref()
            .map(|v| v.slice(offset, len))
            .filter(|v| v.null_count() > 0);
        let values = match &self.values {
            Values::Boolean(b) => Values::Boolean(b.slice(offset, len)),
            Values::Int32(v) => Values::Int32(v.slice(offset, len)),
            Values::Int64(v) => Values::Int64(v.slice(offset, len)),
            Values::Float(v) => Values::Float(v.slice(offset, len)),
            Values::Double(v) => Values::Double(v.slice(offset, len)),
            Values::Int96(d) => Values::Int96(d.slice_with_length(offset * 12, len * 12)),
            Values::FixedLenByteArray { width, data } => Values::FixedLenByteArray {
                width: *width,
                data: data.slice_with_length(offset * width, len * width),
            },
            Values::Binary { offsets, data } => Values::Binary {
                offsets: offsets.slice(offset, len),
                data: data.clone(),
            },
            Values::SmallBinary { offsets, data } => Values::SmallBinary {
                offsets: offsets.slice(offset, len),
                data: data.clone(),
            },
            Values::BinaryView { views, buffers } => Values::BinaryView {
                views: views.slice(offset, len),
                buffers: buffers.clone(),
            },
            Values::Dictionary { keys, dictionary } => Values::Dictionary {
                keys: keys.slice(offset, len),
                dictionary: Arc::clone(dictionary),
            },
        };
        Column {
            len,
            validity,
            values,
        }
    }

    /// The validity of `parts` joined end to end (`None` when none of them has one).
    pub(crate) fn concat_validity(parts: &[Column]) -> Option<NullBuffer> {
        if !parts.iter().any(|c| c.validity.is_some()) {
            return None;
        }
        let len = parts.iter().map(|c| c.len).sum();
        let mut b = BooleanBufferBuilder::new(len);
        for c in parts {
            match &c.validity {
                Some(v) => b.append_buffer(v.inner()),
                None => b.append_n(c.len, true),
            }
        }
        Some(NullBuffer::new(b.finish()))
    }

    /// Concatenate columns of the same layout into one (one copy of every value).
    ///
    /// Byte arrays as offsets and as views may mix: the result then holds offsets.
    ///
    /// # Panics
    /// If the columns do not share a physical type, or `parts` is empty.
    pub fn concat(parts: &[Column]) -> Column {
        assert!(!parts.is_empty(), "concat of no columns");
        if let Some(dictionary) = shared_dictionary(parts) {
            // Keys into one dictionary stay keys.
            let keys = parts
                .iter()
                .map(|c| Column {
                    len: c.len,
                    validity: c.validity.clone(),
                    values: match &c.values {
                        Values::Dictionary { keys, .. } => Values::Int32(keys.clone()),
                        _ => unreachable!("checked by shared_dictionary"),
                    },
                })
                .collect::<Vec<_>>();
            let c = Column::concat(&keys);
            let Values::Int32(keys) = c.values else {
                unreachable!("keys concatenate to keys")
            };
            return Column {
                len: c.len,
                validity: c.validity,
                values: Values::Dictionary { keys, dictionary },
            };
        }
        if parts
            .iter()
            .any(|c| matches!(c.values, Values::Dictionary { .. }))
        {
            // Keys into different dictionaries, or keys and values: values for all.
            let parts: Vec<Column> = parts.iter().map(Column::materialize).collect();
            return Column::concat(&parts);
        }
        let small = parts
            .iter()
            .filter(|c| matches!(c.values, Values::SmallBinary { .. }))
            .count();
        if small > 0 {
            if small == parts.len() {
                if let Some(c) = concat_small(parts) {
                    return c;
                }
            }
            // Byte arrays past i32 in all, or mixed with other layouts: i64 offsets for all.
            let parts: Vec<Column> = parts.iter().map(Column::to_offsets).collect();
            return Column::concat(&parts);
        }
        let views = parts
            .iter()
            .filter(|c| matches!(c.values, Values::BinaryView { .. }))
            .count();
        if views > 0 && views < parts.len() {
            // Byte arrays in both layouts (a caller's batches may mix them): offsets for all.
            let parts: Vec<Column> = parts.iter().map(Column::to_offsets).collect();
            return Column::concat(&parts);
        }
        let len: usize = parts.iter().map(|c| c.len).sum();
        let validity = Column::concat_validity(parts);
        fn scalars<T: arrow_buffer::ArrowNativeType>(
            parts: &[Column],
            get: impl Fn(&Values) -> &ScalarBuffer<T>,
        ) -> ScalarBuffer<T> {
            let mut v = Vec::new();
            reserve_huge(&mut v, parts.iter().map(|c| c.len).sum());
            for c in parts {
                v.extend_from_slice(get(&c.values));
            }
            ScalarBuffer::from(v)
        }
        fn fixed(parts: &[Column], width: usize) -> Buffer {
            let mut v = Vec::new();
            reserve_huge(&mut v, parts.iter().map(|c| c.len * width).sum());
            for c in parts {
                match &c.values {
                    Values::Int96(d) | Values::FixedLenByteArray { data: d, .. } => {
                        v.extend_from_slice(d)
                    }
                    _ => panic!("concat of mixed layouts"),
                }
            }
            Buffer::from_vec(v)
        }
        let mixed = || -> ! { panic!("concat of mixed layouts") };
        let values = match &parts[0].values {
            Values::Boolean(_) => {
                let mut b = BooleanBufferBuilder::new(len);
                for c in parts {
                    match &c.values {
                        Values::Boolean(v) => b.append_buffer(v),
                        _ => mixed(),
                    }
                }
                Values::Boolean(b.finish())
            }
            Values::Int32(_) => Values::Int32(scalars(parts, |v| match v {
                Values::Int32(s) => s,
                _ => mixed(),
            })),
            Values::Int64(_) => Values::Int64(scalars(parts, |v| match v {
                Values::Int64(s) => s,
                _ => mixed(),
            })),
            Values::Float(_) => Values::Float(scalars(parts, |v| match v {
                Values::Float(s) => s,
                _ => mixed(),
            })),
            Values::Double(_) => Values::Double(scalars(parts, |v| match v {
                Values::Double(s) => s,
                _ => mixed(),
            })),
            Values::Int96(_) => Values::Int96(fixed(parts, 12)),
            Values::FixedLenByteArray { width, .. } => Values::FixedLenByteArray {
                width: *width,
                data: fixed(parts, *width),
            },
            Values::Binary { .. } => {
                let mut offsets = Vec::new();
                reserve_huge(&mut offsets, len + 1);
                offsets.push(0i64);
                let mut data = Vec::new();
                let bytes = parts.iter().map(|c| match &c.values {
                    Values::Binary { offsets: o, .. } => (o[o.len() - 1] - o[0]) as usize,
                    _ => 0,
                });
                reserve_huge(&mut data, bytes.sum());
                for c in parts {
                    let Values::Binary {
                        offsets: o,
                        data: d,
                    } = &c.values
                    else {
                        mixed()
                    };
                    let (first, last) = (o[0] as usize, o[o.len() - 1] as usize);
                    let base = data.len() as i64 - first as i64;
                    data.extend_from_slice(&d[first..last]);
                    offsets.extend(o[1..].iter().map(|x| x + base));
                }
                Values::Binary {
                    offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    data: Buffer::from_vec(data),
                }
            }
            Values::BinaryView { .. } => {
                let mut views = Vec::new();
                reserve_huge(&mut views, len);
                let mut buffers = Vec::new();
                for c in parts {
                    let Values::BinaryView {
                        views: v,
                        buffers: b,
                    } = &c.values
                    else {
                        mixed()
                    };
                    let shift = buffers.len() as u128;
                    views.extend(v.iter().map(|&view| {
                        if (view as u32) > 12 {
                            view + (shift << 64)
                        } else {
                            view
                        }
                    }));
                    buffers.extend(b.iter().cloned());
                }
                Values::BinaryView {
                    views: ScalarBuffer::from(views),
                    buffers,
                }
            }
            Values::Dictionary { .. } => unreachable!("materialized above"),
            Values::SmallBinary { .. } => unreachable!("concatenated above"),
        };
        Column {
            len,
            validity,
            values,
        }
    }

    /// This column in its values' own layout: keys of [`Values::Dictionary`] are looked up
    /// in their dictionary (a copy; views share the dictionary's buffers, and i32 offsets
    /// stay i32 while the bytes fit); other layouts are returned as they are.
    pub fn materialize(&self) -> Column {
        let Values::Dictionary { keys, dictionary } = &self.values else {
            return self.clone();
        };
        let n = dictionary.len;
        // Null slots (and only they) may hold a key past an empty dictionary.
        let at = |i: usize| (keys[i] as usize).min(n.saturating_sub(1));
        let values = match &dictionary.values {
            Values::Boolean(b) => Values::Boolean(if n == 0 {
                BooleanBuffer::new_unset(self.len)
            } else {
                BooleanBuffer::collect_bool(self.len, |i| b.value(at(i)))
            }),
            Values::Int32(v) => Values::Int32(gather(v, self.len, at)),
            Values::Int64(v) => Values::Int64(gather(v, self.len, at)),
            Values::Float(v) => Values::Float(gather(v, self.len, at)),
            Values::Double(v) => Values::Double(gather(v, self.len, at)),
            Values::Int96(d) => Values::Int96(gather_fixed(d, 12, n, self.len, at)),
            Values::FixedLenByteArray { width, data } => Values::FixedLenByteArray {
                width: *width,
                data: gather_fixed(data, *width, n, self.len, at),
            },
            // Views are looked up as they are, pointing into the dictionary's buffers (the
            // views of an empty dictionary's null slots are empty strings).
            Values::BinaryView { views, buffers } => Values::BinaryView {
                views: gather(views, self.len, at),
                buffers: buffers.clone(),
            },
            Values::Binary { .. } | Values::SmallBinary { .. } if n == 0 => Values::Binary {
                offsets: OffsetBuffer::new_zeroed(self.len),
                data: Buffer::from_vec(Vec::<u8>::new()),
            },
            Values::Binary { offsets, data } => {
                let (offsets, data) =
                    gather_bytes(offsets, data, &keys[..self.len], self.validity.as_ref());
                Values::Binary {
                    offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                    data: Buffer::from_vec(data),
                }
            }
            Values::SmallBinary { offsets, data } => {
                let (offsets, data) =
                    gather_bytes(offsets, data, &keys[..self.len], self.validity.as_ref());
                // i32 offsets while the bytes fit, as the dictionary's.
                match i32::try_from(data.len()) {
                    Ok(_) => Values::SmallBinary {
                        offsets: OffsetBuffer::new(
                            offsets.iter().map(|&o| o as i32).collect::<Vec<_>>().into(),
                        ),
                        data: Buffer::from_vec(data),
                    },
                    Err(_) => Values::Binary {
                        offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                        data: Buffer::from_vec(data),
                    },
                }
            }
            Values::Dictionary { .. } => return dictionary.materialize().with_keys(self),
        };
        Column {
            len: self.len,
            validity: self.validity.clone(),
            values,
        }
    }

    /// `keys`' slots looked up in this (materialized) column.
    fn with_keys(self, keys: &Column) -> Column {
        Column {
            values: Values::Dictionary {
                keys: match &keys.values {
                    Values::Dictionary { keys, .. } => keys.clone(),
                    _ => unreachable!("only called for dictionary keys"),
                },
                dictionary: Arc::new(self),
            },
            ..keys.clone()
        }
        .materialize()
    }
}

/// The dictionary every part holds keys into, when they all hold keys into the same one.
fn shared_dictionary(parts: &[Column]) -> Option<Arc<Column>> {
    let mut shared: Option<&Arc<Column>> = None;
    for c in parts {
        let Values::Dictionary { dictionary, .. } = &c.values else {
            return None;
        };
        match shared {
            Some(d) if !Arc::ptr_eq(d, dictionary) => return None,
            _ => shared = Some(dictionary),
        }
    }
    shared.cloned()
}

/// Columns of [`Values::SmallBinary`] joined end to end, still with i32 offsets; `None`
/// when their bytes together do not fit in i32 (or a part is not `SmallBinary`).
fn concat_small(parts: &[Column]) -> Option<Column> {
    let mut bytes = 0usize;
    for c in parts {
        let Values::SmallBinary { offsets: o, .. } = &c.values else {
            return None;
        };
        bytes += (o[o.len() - 1] - o[0]) as usize;
    }
    if bytes > i32::MAX as usize {
        return None;
    }
    let len: usize = parts.iter().map(|c| c.len).sum();
    let mut offsets = Vec::new();
    reserve_huge(&mut offsets, len + 1);
    offsets.push(0i32);
    let mut data = Vec::new();
    reserve_huge(&mut data, bytes);
    for c in parts {
        let Values::SmallBinary {
            offsets: o,
            data: d,
        } = &c.values
        else {
            return None;
        };
        let (first, last) = (o[0] as usize, o[o.len() - 1] as usize);
        // At most `bytes`, which fits in i32: no offset below overflows.
        let base = data.len() as i32 - first as i32;
        data.extend_from_slice(&d[first..last]);
        offsets.extend(o[1..].iter().map(|x| x + base));
    }
    Some(Column {
        len,
        validity: Column::concat_validity(parts),
        values: Values::SmallBinary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from_vec(data),
        },
    })
}

/// The bytes of dictionary entry `keys[i]` (`offsets` into `data`, `n` entries, `n > 0`)
/// for each slot, nothing for a null slot: i64 offsets (from 0) and the bytes, sized in a
/// first pass so that the second only copies. Keys past the dictionary are clamped into it
/// (only null slots hold them).
fn gather_bytes<O: arrow_buffer::ArrowNativeType>(
    offsets: &[O],
    data: &[u8],
    keys: &[i32],
    validity: Option<&NullBuffer>,
) -> (Vec<i64>, Vec<u8>) {
    let last = offsets.len().saturating_sub(2);
    let span = |k: i32| {
        let k = (k as usize).min(last);
        offsets[k].as_usize()..offsets[k + 1].as_usize()
    };
    let valid = |i: usize| validity.is_none_or(|v| v.is_valid(i));
    let mut out_offsets = Vec::with_capacity(keys.len() + 1);
    out_offsets.push(0i64);
    let mut end = 0usize;
    for (i, &k) in keys.iter().enumerate() {
        if valid(i) {
            end += span(k).len();
        }
        out_offsets.push(end as i64);
    }
    let mut bytes = Vec::with_capacity(end);
    for (i, &k) in keys.iter().enumerate() {
        if valid(i) {
            bytes.extend_from_slice(&data[span(k)]);
        }
    }
    (out_offsets, bytes)
}

fn gather<T: arrow_buffer::ArrowNativeType>(
    values: &ScalarBuffer<T>,
    len: usize,
    at: impl Fn(usize) -> usize,
) -> ScalarBuffer<T> {
    if values.is_empty() {
        return ScalarBuffer::from(vec![T::default(); len]);
    }
    (0..len).map(|i| values[at(i)]).collect()
}

fn gather_fixed(
    data: &Buffer,
    width: usize,
    n: usize,
    len: usize,
    at: impl Fn(usize) -> usize,
) -> Buffer {
    if n == 0 {
        return Buffer::from_vec(vec![0u8; len * width]);
    }
    let mut out = Vec::with_capacity(len * width);
    for i in 0..len {
        let k = at(i);
        out.extend_from_slice(&data[k * width..(k + 1) * width]);
    }
    Buffer::from_vec(out)
}

impl Column {
    /// This column with byte arrays as offsets (`Values::Binary`): views are copied out,
    /// i32 offsets ([`Values::SmallBinary`]) widened (the values not copied), other layouts
    /// are returned as they are.
    pub fn to_offsets(&self) -> Column {
        if matches!(self.values, Values::Dictionary { .. }) {
            return self.materialize().to_offsets();
        }
        if let Values::SmallBinary { offsets, data } = &self.values {
            let wide: ScalarBuffer<i64> = offsets.iter().map(|&o| o as i64).collect();
            return Column {
                len: self.len,
                validity: self.validity.clone(),
                values: Values::Binary {
                    offsets: OffsetBuffer::new(wide),
                    data: data.clone(),
                },
            };
        }
        if !matches!(self.values, Values::BinaryView { .. }) {
            return self.clone();
        }
        let mut offsets = Vec::with_capacity(self.len + 1);
        let mut data = Vec::new();
        offsets.push(0i64);
        for i in 0..self.len {
            if self.is_valid(i) {
                data.extend_from_slice(self.bytes(i).unwrap_or_default());
            }
            offsets.push(data.len() as i64);
        }
        Column {
            len: self.len,
            validity: self.validity.clone(),
            values: Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                data: Buffer::from_vec(data),
            },
        }
    }

    /// Bytes of Arrow buffers this column spans: values, offsets or views, and validity.
    /// (Shared buffers such as a dictionary referenced by views count once per column.)
    pub fn decoded_bytes(&self) -> usize {
        let validity = self
            .validity
            .as_ref()
            .map_or(0, |v| self.len.div_ceil(8).min(v.buffer().len()));
        let values = match &self.values {
            Values::Boolean(b) => b.len().div_ceil(8),
            Values::Int32(v) => v.len() * 4,
            Values::Int64(v) => v.len() * 8,
            Values::Float(v) => v.len() * 4,
            Values::Double(v) => v.len() * 8,
            Values::Int96(d) => d.len(),
            Values::FixedLenByteArray { data, .. } => data.len(),
            Values::Binary { offsets, .. } => {
                let first = offsets[0] as usize;
                let last = offsets[offsets.len() - 1] as usize;
                offsets.len() * 8 + (last - first)
            }
            Values::SmallBinary { offsets, .. } => {
                let first = offsets[0] as usize;
                let last = offsets[offsets.len() - 1] as usize;
                offsets.len() * 4 + (last - first)
            }
            Values::BinaryView { views, buffers } => {
                views.len() * 16 + buffers.iter().map(|b| b.len()).sum::<usize>()
            }
            Values::Dictionary { keys, dictionary } => keys.len() * 4 + dictionary.decoded_bytes(),
        };
        validity + values
    }
}

impl Column {
    /// The bytes of the value in slot `i` as the file stores it (little-endian for numbers,
    /// one byte 0/1 for booleans); `None` for a null slot.
    ///
    /// A layout-independent view for comparisons and tests, not a fast path.
    pub fn value_bytes(&self, i: usize) -> Option<Vec<u8>> {
        if !self.is_valid(i) {
            return None;
        }
        Some(match &self.values {
            Values::Boolean(b) => vec![b.value(i) as u8],
            Values::Int32(v) => v[i].to_le_bytes().to_vec(),
            Values::Int64(v) => v[i].to_le_bytes().to_vec(),
            Values::Float(v) => v[i].to_le_bytes().to_vec(),
            Values::Double(v) => v[i].to_le_bytes().to_vec(),
            Values::Int96(d) => d[i * 12..i * 12 + 12].to_vec(),
            Values::Dictionary { keys, dictionary } => {
                return dictionary.value_bytes(keys[i] as usize)
            }
            _ => self.bytes(i).unwrap_or_default().to_vec(),
        })
    }
}

/// Logical equality: same length, same nulls, and bit-identical values in every valid slot
/// (so NaN payloads and -0.0 count, and `Binary` equals `BinaryView` holding the same bytes).
impl PartialEq for Column {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && (0..self.len).all(|i| self.value_bytes(i) == other.value_bytes(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Keys into one dictionary concatenate to keys; keys into two, or keys and values, to
    /// values; materialized keys are the dictionary's values, nulls kept.
    #[test]
    fn dictionary_keys_concat_and_materialize() {
        let dictionary = |words: &[&str]| {
            let mut offsets = vec![0i64];
            for w in words {
                offsets.push(offsets.last().unwrap() + w.len() as i64);
            }
            Arc::new(Column {
                len: words.len(),
                validity: None,
                values: Values::Binary {
                    offsets: OffsetBuffer::new(offsets.into()),
                    data: Buffer::from_vec(words.concat().into_bytes()),
                },
            })
        };
        let (a, b) = (dictionary(&["x", "yy"]), dictionary(&["zzz"]));
        let keys = |d: &Arc<Column>, k: Vec<i32>, valid: Option<Vec<bool>>| Column {
            len: k.len(),
            validity: valid.map(Into::into),
            values: Values::Dictionary {
                keys: k.into(),
                dictionary: Arc::clone(d),
            },
        };
        let p = keys(&a, vec![1, 0, 0], Some(vec![true, true, false]));
        let q = keys(&a, vec![0, 1], None);
        let same = Column::concat(&[p.clone(), q.clone()]);
        assert!(matches!(same.values, Values::Dictionary { .. }));
        assert_eq!(same.null_count(), 1);
        let text =
            |c: &Column| -> Vec<Option<Vec<u8>>> { (0..c.len).map(|i| c.value_bytes(i)).collect() };
        let want = |w: &[Option<&str>]| -> Vec<Option<Vec<u8>>> {
            w.iter().map(|s| s.map(|s| s.as_bytes().to_vec())).collect()
        };
        assert_eq!(
            text(&same),
            want(&[Some("yy"), Some("x"), None, Some("x"), Some("yy")])
        );
        let r = keys(&b, vec![0], None);
        let mixed = Column::concat(&[q.clone(), r.clone(), q.materialize()]);
        assert!(matches!(mixed.values, Values::Binary { .. }));
        assert_eq!(
            text(&mixed),
            want(&[Some("x"), Some("yy"), Some("zzz"), Some("x"), Some("yy")])
        );
        assert_eq!(p.materialize(), p);
        assert_eq!(p.slice(1, 2).materialize(), p.materialize().slice(1, 2));
        // An empty dictionary under null slots only.
        let empty = keys(&dictionary(&[]), vec![0, 0], Some(vec![false, false]));
        assert_eq!(empty.materialize().null_count(), 2);
    }

    /// i32 offsets (`SmallBinary`) slice, concatenate (to i32 offsets when all parts have
    /// them, else to i64 ones), widen, look up as a dictionary's values, take and are written
    /// like i64 ones: the same bytes and nulls throughout.
    #[test]
    fn small_offsets_behave_like_offsets() {
        let small = |words: &[&str], valid: Option<Vec<bool>>| {
            let mut offsets = vec![0i32];
            for w in words {
                offsets.push(offsets.last().unwrap() + w.len() as i32);
            }
            Column {
                len: words.len(),
                validity: valid.map(Into::into),
                values: Values::SmallBinary {
                    offsets: OffsetBuffer::new(offsets.into()),
                    data: Buffer::from_vec(words.concat().into_bytes()),
                },
            }
        };
        let text =
            |c: &Column| -> Vec<Option<Vec<u8>>> { (0..c.len).map(|i| c.value_bytes(i)).collect() };
        let a = small(&["ab", "", "cde", "f"], Some(vec![true, false, true, true]));
        let b = small(&["gh", "ijk"], None);
        let wide = a.to_offsets();
        assert!(matches!(wide.values, Values::Binary { .. }));
        assert_eq!(text(&wide), text(&a));
        assert!(wide == a && a.decoded_bytes() + 4 * 5 == wide.decoded_bytes());
        assert_eq!(a.bytes(2), Some(&b"cde"[..]));
        let sliced = a.slice(1, 3);
        assert!(matches!(sliced.values, Values::SmallBinary { .. }));
        assert_eq!(text(&sliced), text(&wide.slice(1, 3)));
        // All i32: stays i32, bases moved; with i64 or views: i64 for all.
        let joined = Column::concat(&[sliced.clone(), b.clone(), a.slice(0, 1)]);
        assert!(matches!(joined.values, Values::SmallBinary { .. }));
        let want = [text(&sliced), text(&b), text(&a.slice(0, 1))].concat();
        assert_eq!(text(&joined), want);
        assert_eq!(joined.null_count(), 1);
        let mixed = Column::concat(&[sliced.clone(), b.to_offsets(), a.slice(0, 1)]);
        assert!(matches!(mixed.values, Values::Binary { .. }));
        assert_eq!(text(&mixed), want);
        // As a dictionary's values.
        let keys = Column {
            len: 3,
            validity: Some(vec![true, false, true].into()),
            values: Values::Dictionary {
                keys: vec![1, 0, 0].into(),
                dictionary: Arc::new(b.clone()),
            },
        };
        let values = keys.materialize();
        assert_eq!(
            text(&values),
            vec![Some(b"ijk".to_vec()), None, Some(b"gh".to_vec())]
        );
        // Taken: i64 offsets out (repeated slots may pass i32).
        let taken = crate::predicate::eval::take_column(&a, &[3, 0, 3, 1]);
        let want: Vec<Option<Vec<u8>>> = [3, 0, 3, 1].iter().map(|&i| a.value_bytes(i)).collect();
        assert_eq!(text(&taken), want);
    }

    #[test]
    fn concat_mixes_offsets_and_views() {
        let offsets = Column {
            len: 2,
            validity: None,
            values: Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(vec![0i64, 1, 3])),
                data: Buffer::from(b"abc".to_vec()),
            },
        };
        let long = b"a value longer than twelve bytes";
        let views = Column {
            len: 2,
            validity: Some(NullBuffer::from(vec![true, false])),
            values: Values::BinaryView {
                views: ScalarBuffer::from(vec![
                    (long.len() as u128) | (u128::from(u32::from_le_bytes(*b"a va")) << 32),
                    0,
                ]),
                buffers: vec![Buffer::from(long.to_vec())],
            },
        };
        let both = Column::concat(&[offsets, views]);
        assert!(matches!(both.values, Values::Binary { .. }));
        assert_eq!(both.bytes(0), Some(&b"a"[..]));
        assert_eq!(both.bytes(1), Some(&b"bc"[..]));
        assert_eq!(both.bytes(2), Some(&long[..]));
        assert!(!both.is_valid(3));
    }
}
