//! The metadata half of a variant: the dictionary of field names that object field ids index.
//!
//! Layout (`VariantEncoding.md`, "Metadata encoding"): a header byte (version 1, a
//! `sorted_strings` bit, the offset width), the dictionary size and `size + 1` offsets, each
//! `offset_size` bytes little-endian, then the UTF-8 bytes of the strings back to back.

use std::collections::HashMap;

use super::{read_uint, uint_width, variant_error};
use crate::Result;

/// A decoded, checked metadata dictionary. It borrows the bytes it was given.
///
/// [`VariantMetadata::new`] checks everything once (header, every offset, UTF-8 of every
/// string, and that a dictionary flagged sorted is sorted and unique), so that lookups after
/// it cannot fail on bad bytes.
#[derive(Clone, Copy, Debug)]
pub struct VariantMetadata<'a> {
    bytes: &'a [u8],
    offset_size: usize,
    sorted: bool,
    len: usize,
    strings: &'a str,
}

impl<'a> VariantMetadata<'a> {
    /// Decode a metadata value that fills `bytes` exactly.
    pub fn new(bytes: &'a [u8]) -> Result<Self> {
        let (meta, rest) = Self::parse_prefix(bytes)?;
        if !rest.is_empty() {
            return Err(variant_error(format!(
                "metadata: {} bytes after the dictionary",
                rest.len()
            )));
        }
        Ok(meta)
    }

    /// Decode the metadata at the start of `bytes`; also returns the bytes after it (the
    /// `.variant.bin` files of parquet-testing are metadata and value back to back).
    pub fn parse_prefix(bytes: &'a [u8]) -> Result<(Self, &'a [u8])> {
        let &header = bytes
            .first()
            .ok_or_else(|| variant_error("metadata: empty"))?;
        if header & 0x0f != 1 {
            return Err(variant_error(format!(
                "metadata: version {} (only 1 is defined)",
                header & 0x0f
            )));
        }
        let sorted = header & 0x10 != 0;
        let offset_size = usize::from(header >> 6) + 1;
        let len = read_uint(bytes, 1, offset_size).ok_or_else(|| {
            variant_error("metadata: dictionary size past the end of the metadata")
        })?;
        // `len + 1` offsets must fit in the bytes present before anything is sized by `len`.
        let offsets_start = 1 + offset_size;
        let strings_start = len
            .checked_add(1)
            .and_then(|n| n.checked_mul(offset_size))
            .and_then(|n| n.checked_add(offsets_start))
            .filter(|&end| end <= bytes.len())
            .ok_or_else(|| {
                variant_error(format!(
                    "metadata: {len} dictionary offsets do not fit in {} bytes",
                    bytes.len()
                ))
            })?;
        let offset = |i: usize| read_uint(bytes, offsets_start + i * offset_size, offset_size);
        let total = offset(len).unwrap_or(usize::MAX);
        if offset(0) != Some(0) {
            return Err(variant_error("metadata: first dictionary offset is not 0"));
        }
        if total > bytes.len() - strings_start {
            return Err(variant_error(format!(
                "metadata: dictionary strings end at {total}, past the {} bytes present",
                bytes.len() - strings_start
            )));
        }
        let string_bytes = &bytes[strings_start..strings_start + total];
        let strings = std::str::from_utf8(string_bytes)
            .map_err(|e| variant_error(format!("metadata: dictionary is not UTF-8: {e}")))?;
        let meta = VariantMetadata {
            bytes: &bytes[..strings_start + total],
            offset_size,
            sorted,
            len,
            strings,
        };
        let mut previous: Option<&str> = None;
        let mut s = 0;
        for i in 0..len {
            let e = offset(i + 1).unwrap_or(0);
            let name = (s <= e)
                .then(|| strings.get(s..e))
                .flatten()
                .ok_or_else(|| {
                    variant_error(format!(
                        "metadata: dictionary string {i} spans {s}..{e}, not a string of the \
                         {total} bytes"
                    ))
                })?;
            if sorted && previous.is_some_and(|p| p >= name) {
                return Err(variant_error(format!(
                    "metadata: flagged sorted but string {i} {name:?} is not after {:?}",
                    previous.unwrap_or_default()
                )));
            }
            previous = Some(name);
            s = e;
        }
        Ok((meta, &bytes[strings_start + total..]))
    }

    /// Number of strings in the dictionary.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the dictionary is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the dictionary is flagged sorted and unique (checked on decode).
    pub fn is_sorted(&self) -> bool {
        self.sorted
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// String `id`, or an error when `id` is not in the dictionary.
    pub fn get(&self, id: usize) -> Result<&'a str> {
        if id >= self.len {
            return Err(variant_error(format!(
                "field id {id} is not in the metadata dictionary of {} strings",
                self.len
            )));
        }
        let at = 1 + self.offset_size * (id + 1);
        let s = read_uint(self.bytes, at, self.offset_size).unwrap_or(0);
        let e = read_uint(self.bytes, at + self.offset_size, self.offset_size).unwrap_or(0);
        // Checked on decode: every (s, e) is a valid string range.
        Ok(self.strings.get(s..e).unwrap_or_default())
    }

    /// The id of `name`: a binary search when the dictionary is sorted, else a scan (the
    /// first of duplicate names wins).
    pub fn find(&self, name: &str) -> Option<usize> {
        if self.sorted {
            let (mut lo, mut hi) = (0, self.len);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                match self.get(mid).ok()?.cmp(name) {
                    std::cmp::Ordering::Less => lo = mid + 1,
                    std::cmp::Ordering::Greater => hi = mid,
                    std::cmp::Ordering::Equal => return Some(mid),
                }
            }
            None
        } else {
            self.iter().position(|s| s == name)
        }
    }

    /// The strings in id order.
    pub fn iter(&self) -> impl Iterator<Item = &'a str> + '_ {
        (0..self.len).map(|i| self.get(i).unwrap_or_default())
    }
}

/// Dictionaries already decoded, found again by their bytes. The rows of a file mostly
/// repeat a few dictionaries; a hit costs a hash and a compare instead of a decode's checks
/// (every offset, UTF-8, order). A dictionary whose slot another took is decoded again.
pub(super) struct MetadataCache<'a> {
    /// Direct-mapped by a hash of the bytes.
    slots: Vec<Option<VariantMetadata<'a>>>,
}

impl<'a> MetadataCache<'a> {
    /// A power of two, well above the few dictionaries of a regular column, so that they
    /// seldom evict each other.
    const SLOTS: usize = 1024;

    pub(super) fn new() -> Self {
        MetadataCache {
            slots: vec![None; Self::SLOTS],
        }
    }

    /// The decoded dictionary of `bytes` (as [`VariantMetadata::new`]), the one decoded
    /// before from equal bytes where there is one.
    pub(super) fn decode(&mut self, bytes: &'a [u8]) -> Result<VariantMetadata<'a>> {
        let slot = &mut self.slots[hash(bytes) >> (usize::BITS - Self::SLOTS.trailing_zeros())];
        if let Some(m) = slot.filter(|m| m.bytes() == bytes) {
            parq_codecs::probe::hit("variant.metadata_reused");
            return Ok(m);
        }
        parq_codecs::probe::hit("variant.metadata_decoded");
        let m = VariantMetadata::new(bytes)?;
        *slot = Some(m);
        Ok(m)
    }
}

/// A multiplicative hash of `b`, eight bytes at a time; its high bits are the well-mixed ones.
fn hash(b: &[u8]) -> usize {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = b.len() as u64;
    let mut words = b.chunks_exact(8);
    for w in &mut words {
        let w: [u8; 8] = w.try_into().unwrap_or_default();
        h = (h ^ u64::from_le_bytes(w)).wrapping_mul(K).rotate_left(29);
    }
    for &x in words.remainder() {
        h = (h ^ u64::from(x)).wrapping_mul(K);
    }
    (h.wrapping_mul(K) >> (64 - usize::BITS)) as usize
}

/// Builds a metadata dictionary: hands out field ids for names and encodes the result.
#[derive(Clone, Debug, Default)]
pub struct MetadataBuilder {
    names: Vec<String>,
    ids: HashMap<String, u32>,
    /// The sorted flag of the dictionary this one extends, if it extends one.
    flagged_sorted: Option<bool>,
}

impl MetadataBuilder {
    /// An empty dictionary.
    pub fn new() -> Self {
        Self::default()
    }

    /// A dictionary with `names` in that order (duplicates after the first are dropped).
    pub fn with_names<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> Self {
        let mut b = Self::new();
        for n in names {
            b.id(n.as_ref());
        }
        b
    }

    /// Extends `metadata`: its strings keep their ids (so values encoded against it can be
    /// copied unchanged), and new names are appended.
    pub fn extend(metadata: &VariantMetadata<'_>) -> Self {
        let mut b = MetadataBuilder {
            names: Vec::with_capacity(metadata.len()),
            ids: HashMap::with_capacity(metadata.len()),
            flagged_sorted: Some(metadata.is_sorted()),
        };
        for (i, name) in metadata.iter().enumerate() {
            b.names.push(name.to_owned());
            b.ids.entry(name.to_owned()).or_insert(i as u32);
        }
        b
    }

    /// The id of `name`, adding it when new.
    pub fn id(&mut self, name: &str) -> u32 {
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.ids.insert(name.to_owned(), id);
        id
    }

    /// The name of `id`, if it has been handed out.
    pub fn name(&self, id: u32) -> Option<&str> {
        self.names.get(id as usize).map(String::as_str)
    }

    /// Number of names.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether there are no names.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// The encoded metadata: the narrowest offset width that fits, flagged sorted when the
    /// names are strictly increasing (and, for an extended dictionary, when it was flagged so).
    pub fn finish(&self) -> Vec<u8> {
        let increasing = self.names.windows(2).all(|w| w[0] < w[1]);
        let sorted = increasing && self.flagged_sorted.unwrap_or(true);
        let total: usize = self.names.iter().map(String::len).sum();
        let width = uint_width(total.max(self.names.len()));
        let mut out = Vec::with_capacity(1 + width * (self.names.len() + 2) + total);
        out.push(1 | (u8::from(sorted) << 4) | ((width as u8 - 1) << 6));
        push_uint(&mut out, self.names.len(), width);
        let mut at = 0;
        push_uint(&mut out, 0, width);
        for n in &self.names {
            at += n.len();
            push_uint(&mut out, at, width);
        }
        for n in &self.names {
            out.extend_from_slice(n.as_bytes());
        }
        out
    }
}

/// Append the low `width` bytes of `v`, little-endian.
pub(super) fn push_uint(out: &mut Vec<u8>, v: usize, width: usize) {
    out.extend_from_slice(&(v as u64).to_le_bytes()[..width]);
}
