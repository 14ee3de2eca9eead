//! Dictionary building for the writer: decide plain vs dictionary cheaply, and when building,
//! stop as soon as the dictionary can no longer win.
//!
//! Spec: <https://github.com/apache/parquet-format/blob/master/Encodings.md#dictionary-encoding-plain_dictionary--2-and-rle_dictionary--8>
//! (a dictionary page of PLAIN values, data pages of RLE/bit-packed indices).
//!
//! * [`estimate_fixed`] / [`estimate_byte_arrays`] look at a sample and say whether a
//!   dictionary is worth building at all (see [`Estimate`] for the heuristic).
//! * [`DictionaryBuilder`] (fixed-width types) and [`ByteArrayDictionaryBuilder`] assign indices
//!   in first-seen order and abort with [`Aborted`] as soon as
//!   `dictionary bytes + total_values * bit_width(distinct - 1) / 8 >= plain bytes`
//!   (the dictionary only grows, so from then on it cannot be smaller than PLAIN), or the
//!   dictionary exceeds `max_dict_bytes`. The caller RLE-encodes the indices.
//!
//! Keys are compared and hashed as bytes, so NaNs with different payloads, and `0.0` / `-0.0`,
//! are distinct entries and round-trip bit for bit. The hash table is a small open-addressing
//! table of `u32` indices into the dictionary values (no per-value allocation, byte arrays are
//! borrowed from the caller); the hash is a multiply-rotate hash (FxHash style), which is fast
//! but not DoS-resistant: the writer hashes its own caller's data, not untrusted input.
//!
//! Probes: `dictionary.aborted` / `dictionary.kept` (a builder aborted / finished), and
//! `dictionary.estimate_skip` / `dictionary.estimate_build` (the estimate's verdict).
#![forbid(unsafe_code)]

use bytemuck::Pod;

use crate::encoding::bitpack::bit_width;
use crate::probe;

/// Why a dictionary builder stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AbortReason {
    /// Dictionary plus indices can no longer be smaller than PLAIN.
    NotSmaller,
    /// The dictionary exceeds `max_dict_bytes` (or `u32::MAX` entries).
    TooLarge,
}

/// A builder gave up: write the column chunk PLAIN (or another non-dictionary encoding).
///
/// Every later `push` / `extend` / `finish` on the same builder returns the same value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Aborted {
    /// Why the builder stopped.
    pub reason: AbortReason,
    /// How many values had been pushed (including the one that triggered the abort).
    pub at_value: usize,
}

const HASH_K: u64 = 0x9e37_79b9_7f4a_7c15;

/// Multiply-rotate hash of a byte string, read 8 bytes at a time. Its high 32 bits are used.
#[inline]
fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut h = (bytes.len() as u64).wrapping_mul(HASH_K);
    let mut chunks = bytes.chunks_exact(8);
    for chunk in chunks.by_ref() {
        let w = u64::from_le_bytes(bytemuck::pod_read_unaligned(chunk));
        h = (h.rotate_left(5) ^ w).wrapping_mul(HASH_K);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h = (h.rotate_left(5) ^ u64::from_le_bytes(buf)).wrapping_mul(HASH_K);
    }
    h
}

/// Hash of a fixed-width key: one multiply for 4- and 8-byte keys (INT32, INT64, FLOAT,
/// DOUBLE), [`hash_bytes`] otherwise. The `match` is on a constant, so each builder gets one arm.
#[inline(always)]
fn hash_key<T: Pod>(value: &T) -> u64 {
    let key = bytemuck::bytes_of(value);
    match std::mem::size_of::<T>() {
        4 => {
            let w = u32::from_le_bytes(key.try_into().unwrap_or_default()) as u64;
            (w ^ 0x5851_f42d_4c95_7f2d).wrapping_mul(HASH_K)
        }
        8 => {
            let w = u64::from_le_bytes(key.try_into().unwrap_or_default());
            (w ^ 0x5851_f42d_4c95_7f2d)
                .wrapping_mul(HASH_K)
                .rotate_left(23)
                .wrapping_mul(HASH_K)
        }
        _ => hash_bytes(key),
    }
}

/// Bitwise equality of two fixed-width keys, as one integer compare for 4- and 8-byte keys.
#[inline(always)]
fn key_eq<T: Pod>(a: &T, b: &T) -> bool {
    let (a, b) = (bytemuck::bytes_of(a), bytemuck::bytes_of(b));
    match std::mem::size_of::<T>() {
        4 => {
            u32::from_ne_bytes(a.try_into().unwrap_or_default())
                == u32::from_ne_bytes(b.try_into().unwrap_or_default())
        }
        8 => {
            u64::from_ne_bytes(a.try_into().unwrap_or_default())
                == u64::from_ne_bytes(b.try_into().unwrap_or_default())
        }
        _ => a == b,
    }
}

/// `u64` of the first and last 8 bytes of `v` (`8 <= v.len()`), overlapping when shorter than 16.
#[inline(always)]
fn head_tail(v: &[u8]) -> (u64, u64) {
    let n = v.len();
    let head = u64::from_le_bytes(v[..8].try_into().unwrap_or_default());
    let tail = u64::from_le_bytes(v[n - 8..].try_into().unwrap_or_default());
    (head, tail)
}

/// `u128` of the first and last 16 bytes of `v` (`16 <= v.len()`), overlapping when shorter
/// than 32.
#[inline(always)]
fn head_tail_16(v: &[u8]) -> (u128, u128) {
    let n = v.len();
    let head = u128::from_le_bytes(v[..16].try_into().unwrap_or_default());
    let tail = u128::from_le_bytes(v[n - 16..].try_into().unwrap_or_default());
    (head, tail)
}

/// Hash of a byte array for the builder's table: strings of 8 to 32 bytes (the common short
/// string) from two overlapping loads each end, without a loop; others by [`hash_bytes`].
#[inline(always)]
fn hash_value(v: &[u8]) -> u64 {
    let n = v.len();
    let mix = |h: u64, w: u64| (h.rotate_left(29) ^ w).wrapping_mul(HASH_K);
    let seed = (n as u64).wrapping_mul(HASH_K);
    if (8..=16).contains(&n) {
        let (head, tail) = head_tail(v);
        mix(mix(seed, head), tail)
    } else if (17..=32).contains(&n) {
        let (head, tail) = head_tail_16(v);
        let h = mix(mix(seed, head as u64), (head >> 64) as u64);
        mix(mix(h, tail as u64), (tail >> 64) as u64)
    } else {
        hash_bytes(v)
    }
}

/// Byte-array equality without a `memcmp` call for values of 8 to 32 bytes.
#[inline(always)]
fn value_eq(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if (8..=16).contains(&n) {
        return head_tail(a) == head_tail(b);
    }
    if (17..=32).contains(&n) {
        return head_tail_16(a) == head_tail_16(b);
    }
    a == b
}

/// Open-addressing hash table (linear probing, load <= 1/2) of dictionary indices.
///
/// A slot is `hash_hi << 32 | (index + 1)`; 0 is empty. Keeping the hash bits lets a probe
/// skip most non-matching entries without touching the values, and lets `grow` rehash without
/// the values.
struct Table {
    slots: Vec<u64>,
    len: usize,
}

impl Table {
    fn new() -> Self {
        Table {
            slots: vec![0; 256],
            len: 0,
        }
    }

    /// The index of the entry with hash `hash` for which `eq` holds, or `Err(slot)` to insert at.
    #[inline]
    fn find(&self, hash: u64, eq: impl Fn(usize) -> bool) -> Result<u32, usize> {
        let mask = self.slots.len() - 1;
        let h32 = hash >> 32;
        let mut pos = h32 as usize & mask;
        loop {
            let slot = self.slots[pos];
            if slot == 0 {
                return Err(pos);
            }
            if slot >> 32 == h32 && eq((slot as u32 - 1) as usize) {
                return Ok(slot as u32 - 1);
            }
            pos = (pos + 1) & mask;
        }
    }

    /// Insert `index` (< `u32::MAX`) at `pos`, as returned by `find`.
    #[inline]
    fn insert(&mut self, pos: usize, hash: u64, index: u32) {
        self.slots[pos] = (hash >> 32) << 32 | (index as u64 + 1);
        self.len += 1;
        // Load <= 1/8 while the table is small (up to 32 KiB), <= 1/4 up to 512 KiB, then
        // <= 1/2: short, predictable probes for the low-cardinality columns a dictionary is
        // built for (1/2 -> 1/4 -> 1/8 measured 7.5 -> 5.2 -> 4.9 ms CPU for 1M INT32 of 100
        // distinct: the probe loop's exit branch stops mispredicting).
        let shift = if self.slots.len() < (1 << 12) {
            3
        } else if self.slots.len() < (1 << 16) {
            2
        } else {
            1
        };
        if self.len << shift > self.slots.len() {
            self.grow();
        }
    }

    fn grow(&mut self) {
        let new_len = self.slots.len() * 2;
        let old = std::mem::replace(&mut self.slots, vec![0; new_len]);
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|&s| s != 0) {
            let mut pos = (slot >> 32) as usize & mask;
            while self.slots[pos] != 0 {
                pos = (pos + 1) & mask;
            }
            self.slots[pos] = slot;
        }
    }
}

/// The abort rule shared by both builders. All sizes in bytes; `u128` so nothing overflows.
fn abort_reason(
    dict_bytes: usize,
    distinct: usize,
    total_values: usize,
    plain_bytes: u128,
    max_dict_bytes: usize,
) -> Option<AbortReason> {
    if dict_bytes > max_dict_bytes || distinct >= u32::MAX as usize {
        return Some(AbortReason::TooLarge);
    }
    let width = bit_width(distinct.saturating_sub(1) as u64) as u128;
    let index_bytes = (total_values as u128 * width).div_ceil(8);
    (dict_bytes as u128 + index_bytes >= plain_bytes).then_some(AbortReason::NotSmaller)
}

/// Builds a dictionary of fixed-width values (INT32, INT64, INT96, FLOAT, DOUBLE, or any `Pod`
/// such as `[u8; N]` for FIXED_LEN_BYTE_ARRAY), aborting as soon as it cannot beat PLAIN.
pub struct DictionaryBuilder<T: Pod> {
    table: Table,
    values: Vec<T>,
    indices: Vec<u32>,
    total_values: usize,
    max_dict_bytes: usize,
    aborted: Option<Aborted>,
}

impl<T: Pod> DictionaryBuilder<T> {
    /// A builder for a chunk of `total_values` values whose dictionary page may hold at most
    /// `max_dict_bytes` bytes.
    pub fn new(total_values: usize, max_dict_bytes: usize) -> Self {
        DictionaryBuilder {
            table: Table::new(),
            values: Vec::new(),
            indices: Vec::new(),
            total_values,
            max_dict_bytes,
            aborted: None,
        }
    }

    /// Distinct values so far.
    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    /// Add one value. Errors once the dictionary can no longer win (and from then on).
    #[inline]
    pub fn push(&mut self, value: T) -> Result<(), Aborted> {
        if let Some(a) = self.aborted {
            return Err(a);
        }
        self.push_live(value)
    }

    /// [`push`](Self::push) on a builder that has not aborted.
    #[inline(always)]
    fn push_live(&mut self, value: T) -> Result<(), Aborted> {
        let hash = hash_key(&value);
        let values = &self.values;
        match self.table.find(hash, |i| key_eq(&values[i], &value)) {
            Ok(index) => self.indices.push(index),
            Err(pos) => {
                let index = self.values.len() as u32;
                self.table.insert(pos, hash, index);
                self.values.push(value);
                self.indices.push(index);
                self.check()?;
            }
        }
        Ok(())
    }

    /// Add values in order. Errors once the dictionary can no longer win (and from then on).
    pub fn extend(&mut self, values: &[T]) -> Result<(), Aborted> {
        if let Some(a) = self.aborted {
            return Err(a);
        }
        self.indices.reserve(values.len());
        values.iter().try_for_each(|&v| self.push_live(v))
    }

    fn check(&mut self) -> Result<(), Aborted> {
        let size = std::mem::size_of::<T>();
        let total = self.total_values.max(self.indices.len());
        let reason = abort_reason(
            self.values.len() * size,
            self.values.len(),
            total,
            total as u128 * size as u128,
            self.max_dict_bytes,
        );
        match reason {
            None => Ok(()),
            Some(reason) => Err(self.abort(reason)),
        }
    }

    fn abort(&mut self, reason: AbortReason) -> Aborted {
        probe::hit("dictionary.aborted");
        let a = Aborted {
            reason,
            at_value: self.indices.len(),
        };
        self.aborted = Some(a);
        // Give the memory back now: the caller falls back to PLAIN.
        self.table = Table {
            slots: Vec::new(),
            len: 0,
        };
        self.values = Vec::new();
        self.indices = Vec::new();
        a
    }

    /// The dictionary values in first-seen order and one index per pushed value.
    pub fn finish(self) -> Result<(Vec<T>, Vec<u32>), Aborted> {
        if let Some(a) = self.aborted {
            return Err(a);
        }
        probe::hit("dictionary.kept");
        Ok((self.values, self.indices))
    }
}

/// A finished byte-array dictionary in Arrow's offsets layout, ready to be PLAIN-encoded as the
/// dictionary page, with the indices for the data pages.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ByteArrayDictionary {
    /// `distinct + 1` offsets into `data`, starting at 0.
    pub offsets: Vec<i64>,
    /// The distinct values, back to back, in first-seen order.
    pub data: Vec<u8>,
    /// One dictionary index per pushed value.
    pub indices: Vec<u32>,
}

/// Builds a dictionary of BYTE_ARRAY (or FIXED_LEN_BYTE_ARRAY) values borrowed from the caller:
/// nothing is copied until [`finish`](Self::finish), and then only the distinct values, once.
///
/// PLAIN size of the whole chunk: exact when given with [`with_plain_bytes`](Self::with_plain_bytes),
/// otherwise extrapolated from the values seen so far (`seen plain bytes * total / seen`), in
/// which case an abort is a (good) prediction rather than a certainty.
pub struct ByteArrayDictionaryBuilder<'a> {
    table: Table,
    values: Vec<&'a [u8]>,
    indices: Vec<u32>,
    total_values: usize,
    max_dict_bytes: usize,
    plain_total: Option<usize>,
    plain_seen: usize,
    dict_bytes: usize,
    aborted: Option<Aborted>,
}

impl<'a> ByteArrayDictionaryBuilder<'a> {
    /// A builder for a chunk of `total_values` values whose dictionary page (PLAIN: 4-byte
    /// length plus bytes per entry) may hold at most `max_dict_bytes` bytes.
    pub fn new(total_values: usize, max_dict_bytes: usize) -> Self {
        ByteArrayDictionaryBuilder {
            table: Table::new(),
            values: Vec::new(),
            indices: Vec::new(),
            total_values,
            max_dict_bytes,
            plain_total: None,
            plain_seen: 0,
            dict_bytes: 0,
            aborted: None,
        }
    }

    /// Give the exact PLAIN size of the whole chunk (`4 * total_values + value bytes`), making
    /// the abort rule exact instead of extrapolated.
    pub fn with_plain_bytes(mut self, plain_bytes: usize) -> Self {
        self.plain_total = Some(plain_bytes);
        self
    }

    /// Distinct values so far.
    pub fn distinct(&self) -> usize {
        self.values.len()
    }

    /// Add one value. Errors once the dictionary can no longer win (and from then on).
    #[inline]
    pub fn push(&mut self, value: &'a [u8]) -> Result<(), Aborted> {
        if let Some(a) = self.aborted {
            return Err(a);
        }
        self.plain_seen += 4 + value.len();
        let hash = hash_value(value);
        let values = &self.values;
        match self.table.find(hash, |i| value_eq(values[i], value)) {
            Ok(index) => self.indices.push(index),
            Err(pos) => {
                let index = self.values.len() as u32;
                self.table.insert(pos, hash, index);
                self.values.push(value);
                self.indices.push(index);
                self.dict_bytes += 4 + value.len();
                self.check()?;
            }
        }
        Ok(())
    }

    /// Add values in order. Errors once the dictionary can no longer win (and from then on).
    pub fn extend(&mut self, values: impl IntoIterator<Item = &'a [u8]>) -> Result<(), Aborted> {
        let values = values.into_iter();
        self.indices.reserve(values.size_hint().0);
        values.into_iter().try_for_each(|v| self.push(v))
    }

    fn check(&mut self) -> Result<(), Aborted> {
        let seen = self.indices.len();
        let total = self.total_values.max(seen);
        let plain = match self.plain_total {
            Some(p) => p.max(self.plain_seen) as u128,
            None => self.plain_seen as u128 * total as u128 / seen.max(1) as u128,
        };
        let reason = abort_reason(
            self.dict_bytes,
            self.values.len(),
            total,
            plain,
            self.max_dict_bytes,
        );
        match reason {
            None => Ok(()),
            Some(reason) => {
                probe::hit("dictionary.aborted");
                let a = Aborted {
                    reason,
                    at_value: seen,
                };
                self.aborted = Some(a);
                self.table = Table {
                    slots: Vec::new(),
                    len: 0,
                };
                self.values = Vec::new();
                self.indices = Vec::new();
                Err(a)
            }
        }
    }

    /// The distinct values (borrowed, first-seen order) and one index per pushed value, for
    /// callers that PLAIN-encode the dictionary page straight from the slices.
    pub fn finish_borrowed(self) -> Result<(Vec<&'a [u8]>, Vec<u32>), Aborted> {
        if let Some(a) = self.aborted {
            return Err(a);
        }
        probe::hit("dictionary.kept");
        Ok((self.values, self.indices))
    }

    /// The distinct values copied once into offsets + data, and one index per pushed value.
    pub fn finish(self) -> Result<ByteArrayDictionary, Aborted> {
        let (values, indices) = self.finish_borrowed()?;
        let mut offsets = Vec::with_capacity(values.len() + 1);
        let mut data = Vec::with_capacity(values.iter().map(|v| v.len()).sum());
        offsets.push(0);
        for v in values {
            data.extend_from_slice(v);
            offsets.push(data.len() as i64);
        }
        Ok(ByteArrayDictionary {
            offsets,
            data,
            indices,
        })
    }
}

fn write_uleb(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Append `values` as one bit-packed run (groups of 8, the last zero-padded), through the
/// bit-packing kernels.
fn packed_run(values: &[u32], bit_width: u32, out: &mut Vec<u8>) {
    if values.is_empty() {
        return;
    }
    let groups = values.len().div_ceil(8);
    write_uleb(((groups as u64) << 1) | 1, out);
    if bit_width == 0 {
        return;
    }
    out.reserve(groups * bit_width as usize);
    let whole = values.len() / 8 * 8;
    let mut done = crate::kernels::bitpack::pack_groups(&values[..whole], bit_width, out);
    while done < values.len() {
        let n = (values.len() - done).min(8);
        let mut group = [0u32; 8];
        group[..n].copy_from_slice(&values[done..done + n]);
        if crate::kernels::bitpack::pack_groups(&group, bit_width, out) == 0 {
            crate::encoding::bitpack::pack_scalar(&group, bit_width, out);
        }
        done += n;
    }
}

/// Longest repeated run [`encode_indices`] writes (a run header stays within 32 bits).
const MAX_RUN: usize = 1 << 30;

/// Append dictionary indices (each `< 2^bit_width`, `bit_width <= 32`) as an RLE/bit-packed
/// hybrid stream without length prefix or bit-width byte.
///
/// The indices are scanned 8 at a time: a block of 8 equal values starts a repeated run, which
/// is then extended value by value; everything between repeated runs is bit-packed in one run
/// by the bit-packing kernels (not value by value). A repeated run that does not start on a
/// block boundary loses at most its first 7 values to the bit-packed run before it.
pub fn encode_indices(indices: &[u32], bit_width: u32, out: &mut Vec<u8>) {
    assert!(bit_width <= 32, "bit width {bit_width} > 32");
    let n = indices.len();
    let value_bytes = bit_width.div_ceil(8) as usize;
    let (mut literal_start, mut i) = (0, 0);
    while i + 8 <= n {
        let block = &indices[i..i + 8];
        let v = block[0];
        if block.iter().all(|&x| x == v) {
            let mut j = i + 8;
            while j < n && j - i < MAX_RUN && indices[j] == v {
                j += 1;
            }
            packed_run(&indices[literal_start..i], bit_width, out);
            write_uleb(((j - i) as u64) << 1, out);
            out.extend_from_slice(&v.to_le_bytes()[..value_bytes]);
            literal_start = j;
            i = j;
        } else {
            i += 8;
        }
    }
    packed_run(&indices[literal_start..], bit_width, out);
}

/// The verdict of [`estimate_fixed`] / [`estimate_byte_arrays`], with the numbers behind it.
///
/// Heuristic:
/// 1. Sample `s = clamp(4 * sqrt(n), 1024, 16384)` values (all of them when `n <= s`), one at a
///    pseudo-random position in each of `s` equal strata of the `n` values given. A sample of
///    `s` values can only tell cardinalities apart up to about `s^2 / 2` (the birthday bound),
///    hence growing with `sqrt(n)`.
/// 2. Count the sample's distinct values `d`, and `f1` / `f2`, those seen exactly once / twice.
/// 3. Extrapolate with the bias-corrected Chao1 estimator, `D = d + f1 (f1 - 1) / (2 (f2 + 1))`,
///    capped at `total_values`; exactly `d` when the sample is the whole chunk, and
///    `total_values` when the sample has no repeat at all (Chao1 cannot exceed `s^2 / 2`, which
///    says little about a larger chunk; treating it as unique is the conservative side).
/// 4. Dictionary size = `D` entries of the sample's mean distinct-value PLAIN size, plus
///    `total_values * bit_width(D - 1) / 8` bytes of indices; PLAIN size = `total_values` times
///    the sample's mean PLAIN size.
/// 5. Build only if the dictionary is estimated at under 90 % of PLAIN: near the break-even
///    point the builder would likely abort after paying for most of its hash table.
///
/// The estimate can be fooled by data whose unsampled part differs (e.g. a column that turns
/// unique after the values given); the builder's abort rule is the safety net.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Estimate {
    /// Build a dictionary for this chunk.
    pub use_dictionary: bool,
    /// Values sampled.
    pub sample_size: usize,
    /// Distinct values in the sample.
    pub sample_distinct: usize,
    /// Extrapolated distinct values in the chunk.
    pub estimated_distinct: usize,
    /// Estimated dictionary page plus index bytes.
    pub estimated_dict_bytes: u64,
    /// Estimated PLAIN bytes of the chunk.
    pub estimated_plain_bytes: u64,
}

const MIN_SAMPLE: usize = 1024;
const MAX_SAMPLE: usize = 16384;

fn sample_size(n: usize) -> usize {
    let root = (n as f64).sqrt().ceil() as usize;
    (4 * root).clamp(MIN_SAMPLE, MAX_SAMPLE).min(n)
}

/// The `i`-th of `s` sample positions in `0..n`: one pseudo-random position in each of `s`
/// equal strata, so periodic data (e.g. `i % 100`) cannot alias with a fixed stride.
fn strided(i: usize, s: usize, n: usize) -> usize {
    let start = (i as u128 * n as u128 / s as u128) as usize;
    let end = ((i as u128 + 1) * n as u128 / s as u128) as usize;
    let jitter = hash_bytes(&(i as u64).to_le_bytes()) >> 32;
    start + (jitter as usize) % (end - start).max(1)
}

/// Distinct values `D` of a chunk of `total` values, each repeated `total / D` times, for
/// which a uniform sample of `s` values is expected to show `d` distinct:
/// `d = D * (1 - (1 - s/total)^(total/D))`, solved by bisection (the right side grows with D).
fn even_spread_distinct(d: usize, s: usize, total: usize) -> f64 {
    let (d, s, n) = (d as f64, s as f64, total as f64);
    let seen = |big_d: f64| big_d * (1.0 - (1.0 - s / n).powf(n / big_d));
    let (mut lo, mut hi) = (d, n);
    if seen(hi) <= d {
        return hi;
    }
    for _ in 0..64 {
        let mid = 0.5 * (lo + hi);
        if seen(mid) < d {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// `plain_overhead` is the per-value bytes PLAIN adds to the sampled bytes (4 for a length).
fn estimate(
    mut sample: Vec<&[u8]>,
    n: usize,
    total_values: usize,
    plain_overhead: u64,
) -> Estimate {
    let total = total_values.max(n);
    let s = sample.len();
    let sample_bytes: u64 = sample.iter().map(|v| v.len() as u64 + plain_overhead).sum();
    sample.sort_unstable();
    let (mut d, mut f1, mut f2, mut distinct_bytes) = (0usize, 0usize, 0usize, 0u64);
    for run in sample.chunk_by(|a, b| a == b) {
        d += 1;
        distinct_bytes += run[0].len() as u64 + plain_overhead;
        match run.len() {
            1 => f1 += 1,
            2 => f2 += 1,
            _ => {}
        }
    }
    let estimated_distinct = if s == total {
        d
    } else if f1 == s {
        // Not one repeat: no evidence the chunk is anything but unique.
        total
    } else {
        let chao1 = d as f64 + (f1 as f64 * (f1 as f64 - 1.0).max(0.0)) / (2.0 * (f2 as f64 + 1.0));
        // Chao1 overshoots on evenly spread values (it assumes a long tail of rare ones),
        // which sits right at the break-even point of uniform high-cardinality columns; the
        // even-spread model is the other bound. Take the smaller and let the builder's
        // early abort catch an underestimate.
        let even = even_spread_distinct(d, s, total);
        (chao1.min(even).ceil() as usize).clamp(d, total)
    };
    let (plain, dict) = if s == 0 {
        (0, 0)
    } else {
        let entry = distinct_bytes as f64 / d as f64;
        let width = bit_width(estimated_distinct.saturating_sub(1) as u64) as u64;
        let plain = (sample_bytes as f64 / s as f64 * total as f64) as u64;
        let dict = (entry * estimated_distinct as f64) as u64 + (total as u64 * width).div_ceil(8);
        (plain, dict)
    };
    let use_dictionary = s > 0 && (dict as u128) * 10 < (plain as u128) * 9;
    probe::hit(if use_dictionary {
        "dictionary.estimate_build"
    } else {
        "dictionary.estimate_skip"
    });
    Estimate {
        use_dictionary,
        sample_size: s,
        sample_distinct: d,
        estimated_distinct,
        estimated_dict_bytes: dict,
        estimated_plain_bytes: plain,
    }
}

/// Estimate whether a dictionary pays for a chunk of `total_values` fixed-width values, from a
/// sample of `values` (the chunk, or its first part). See [`Estimate`] for the heuristic.
pub fn estimate_fixed<T: Pod>(values: &[T], total_values: usize) -> Estimate {
    let n = values.len();
    let sample = sample_positions(n)
        .map(|i| bytemuck::bytes_of(&values[i]))
        .collect();
    estimate_fixed_sample(sample, n, total_values)
}

/// The positions in `0..n` that [`estimate_fixed`] and [`estimate_byte_arrays_with`]
/// sample, in increasing order: for values
/// that are not one slice (runs of several buffers), gathered by a caller that walks them
/// once.
pub fn sample_positions(n: usize) -> impl Iterator<Item = usize> {
    let s = sample_size(n);
    (0..s).map(move |i| strided(i, s, n))
}

/// [`estimate_fixed`] of `n` values from the bytes of the values at [`sample_positions`]`(n)`:
/// the same estimate, without the values in one slice.
pub fn estimate_fixed_sample(sample: Vec<&[u8]>, n: usize, total_values: usize) -> Estimate {
    estimate(sample, n, total_values, 0)
}

/// Estimate whether a dictionary pays for a chunk of `total_values` byte arrays, from a sample
/// of the `len` values `value(i)` (the chunk, or its first part). See [`Estimate`].
pub fn estimate_byte_arrays_with<'a>(
    len: usize,
    value: impl Fn(usize) -> &'a [u8],
    total_values: usize,
) -> Estimate {
    let s = sample_size(len);
    let sample = (0..s).map(|i| value(strided(i, s, len))).collect();
    estimate(sample, len, total_values, 4)
}

/// [`estimate_byte_arrays_with`] of `len` values from the values at
/// [`sample_positions`]`(len)`: the same estimate, without random access to the values.
pub fn estimate_byte_arrays_sample(
    sample: Vec<&[u8]>,
    len: usize,
    total_values: usize,
) -> Estimate {
    estimate(sample, len, total_values, 4)
}

/// [`estimate_byte_arrays_with`] over Arrow offsets (`i32` or `i64`) and value bytes: value
/// `i` is `data[offsets[i]..offsets[i + 1]]` (out-of-range offsets read as empty).
pub fn estimate_byte_arrays<O: Copy + Into<i64>>(
    offsets: &[O],
    data: &[u8],
    total_values: usize,
) -> Estimate {
    let len = offsets.len().saturating_sub(1);
    estimate_byte_arrays_with(
        len,
        |i| {
            let start = usize::try_from(offsets[i].into()).unwrap_or(0);
            let end = usize::try_from(offsets[i + 1].into()).unwrap_or(0);
            data.get(start..end).unwrap_or(&[])
        },
        total_values,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn decode_indices(data: &[u8], width: u32, n: usize) -> Vec<u32> {
        let mut dec = crate::encoding::rle::RleDecoder::new(data, width).unwrap();
        let mut out = vec![0u32; n];
        assert_eq!(dec.get_batch(&mut out).unwrap(), n);
        out
    }

    #[test]
    fn indices_round_trip_every_width() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for width in 0..=32u32 {
            let mask = if width == 32 {
                u32::MAX
            } else {
                (1u32 << width) - 1
            };
            for n in [0usize, 1, 7, 8, 9, 16, 31, 100, 1000] {
                // Random stretches, runs of 1..40 equal values and all-equal tails.
                let mut v = Vec::with_capacity(n);
                while v.len() < n {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let run = if x % 3 == 0 {
                        1 + (x >> 40) as usize % 40
                    } else {
                        1
                    };
                    let val = (x >> 8) as u32 & mask;
                    v.extend(std::iter::repeat_n(val, run.min(n - v.len())));
                }
                let mut out = vec![0xAA];
                encode_indices(&v, width, &mut out);
                assert_eq!(out[0], 0xAA);
                assert_eq!(
                    decode_indices(&out[1..], width, n),
                    v,
                    "width {width} n {n}"
                );
            }
        }
    }

    #[test]
    fn indices_runs_and_packing() {
        // 20 equal values then 5 others: a run of 20 (width 3: 1 value byte), then one group.
        let mut v = vec![5u32; 20];
        v.extend([1, 2, 3, 4, 5]);
        let mut out = Vec::new();
        encode_indices(&v, 3, &mut out);
        assert_eq!(out[..2], [40, 5]);
        assert_eq!(out[2], 3); // one bit-packed group
        assert_eq!(out.len(), 2 + 1 + 3);
        // Random values: one bit-packed run, width bytes per 8 values plus the header.
        let v: Vec<u32> = (0..1000u32)
            .map(|i| i.wrapping_mul(2654435761) >> 22)
            .collect();
        out.clear();
        encode_indices(&v, 10, &mut out);
        assert_eq!(out.len(), 2 + 125 * 10);
    }

    #[test]
    fn nan_payloads_and_signed_zeros_are_distinct() {
        let nan_a = f64::from_bits(0x7ff8_0000_0000_0001);
        let nan_b = f64::from_bits(0x7ff8_0000_0000_0002);
        let values = [nan_a, nan_b, -0.0, 0.0, nan_a, -0.0];
        let mut b = DictionaryBuilder::new(1000, usize::MAX);
        b.extend(&values).unwrap();
        let (dict, indices) = b.finish().unwrap();
        assert_eq!(dict.len(), 4);
        assert_eq!(indices, [0, 1, 2, 3, 0, 2]);
        for (v, &i) in values.iter().zip(&indices) {
            assert_eq!(v.to_bits(), dict[i as usize].to_bits());
        }
    }

    #[test]
    fn table_grows_and_finds() {
        let values: Vec<u64> = (0..5000).map(|i| (i % 1700) * 0x1_0000_0001).collect();
        let mut b = DictionaryBuilder::new(1 << 30, usize::MAX);
        b.extend(&values).unwrap();
        let (dict, indices) = b.finish().unwrap();
        assert_eq!(dict.len(), 1700);
        assert!(values
            .iter()
            .zip(&indices)
            .all(|(v, &i)| dict[i as usize] == *v));
    }

    #[test]
    fn byte_arrays_first_seen_order_and_empty() {
        let values: [&[u8]; 6] = [b"b", b"", b"a", b"b", b"", b"longer than eight"];
        let mut b = ByteArrayDictionaryBuilder::new(1000, usize::MAX);
        b.extend(values).unwrap();
        let d = b.finish().unwrap();
        assert_eq!(d.offsets, [0, 1, 1, 2, 19]);
        assert_eq!(
            d.data,
            b"ba"
                .iter()
                .chain(b"longer than eight")
                .copied()
                .collect::<Vec<_>>()
        );
        assert_eq!(d.indices, [0, 1, 2, 0, 1, 3]);
    }

    #[test]
    fn unique_i64_estimate_skips() {
        let values: Vec<i64> = (0..1_000_000)
            .map(|i: i64| i.wrapping_mul(0x9e37_79b9))
            .collect();
        let e = estimate_fixed(&values, values.len());
        assert!(!e.use_dictionary, "{e:?}");
        assert_eq!(e.sample_size, 4000);
        // Unique even when the values given are only the start of the chunk.
        let e = estimate_fixed(&values[..5000], 1_000_000);
        assert!(!e.use_dictionary, "{e:?}");
    }

    #[test]
    fn small_cardinalities_estimate_builds() {
        // 5000 distinct i64 spread uniformly: Chao1 recovers the cardinality.
        let values: Vec<i64> = (0..1_000_000u64)
            .map(|i| (i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) as i64 % 5000)
            .collect();
        let e = estimate_fixed(&values, values.len());
        assert!(e.use_dictionary, "{e:?}");
        assert!((4000..7000).contains(&e.estimated_distinct), "{e:?}");
        // The whole input sampled: exact.
        let e = estimate_fixed(&[1i32, 2, 1, 1], 4);
        assert_eq!(e.estimated_distinct, 2);
        assert!(!estimate_fixed::<i32>(&[], 0).use_dictionary);
    }

    #[test]
    fn hundred_strings_over_a_million_build() {
        let strings: Vec<String> = (0..100).map(|i| format!("category-{i:03}")).collect();
        let mut offsets = vec![0i64];
        let mut data = Vec::new();
        for i in 0..1_000_000usize {
            data.extend_from_slice(strings[(i * 7919) % 100].as_bytes());
            offsets.push(data.len() as i64);
        }
        let e = estimate_byte_arrays(&offsets, &data, 1_000_000);
        assert!(e.use_dictionary, "{e:?}");
        assert_eq!(e.estimated_distinct, 100);
        let mut b = ByteArrayDictionaryBuilder::new(1_000_000, 1 << 20);
        b.extend(
            offsets
                .windows(2)
                .map(|w| &data[w[0] as usize..w[1] as usize]),
        )
        .unwrap();
        let d = b.finish().unwrap();
        assert_eq!(d.offsets.len(), 101);
        assert_eq!(d.indices.len(), 1_000_000);
    }

    #[test]
    fn turns_unique_halfway_estimate_builds_builder_aborts() {
        let n = 1_000_000;
        let values: Vec<i32> = (0..n as i32)
            .map(|i| if i < n as i32 / 2 { i % 100 } else { i })
            .collect();
        // Only the first half is known when deciding.
        let e = estimate_fixed(&values[..n / 2], n);
        assert!(e.use_dictionary, "{e:?}");
        let mut b = DictionaryBuilder::new(n, usize::MAX);
        let err = b.extend(&values).unwrap_err();
        assert_eq!(err.reason, AbortReason::NotSmaller);
        assert!(err.at_value < n && err.at_value > n / 2, "{err:?}");
        assert_eq!(b.push(1), Err(err));
        assert_eq!(b.finish(), Err(err));
        // INT64 half unique still wins by size, but not within a 1 MiB dictionary page.
        let values: Vec<i64> = values.iter().map(|&v| v as i64).collect();
        let mut b = DictionaryBuilder::new(n, 1 << 20);
        let err = b.extend(&values).unwrap_err();
        assert_eq!(err.reason, AbortReason::TooLarge);
        assert_eq!(err.at_value, n / 2 + (1 << 17) - 100 + 1);
        // Byte arrays turning unique after 20 %, with the PLAIN size given and extrapolated.
        let strings: Vec<String> = (0..n)
            .map(|i| if i < n / 5 { i % 100 } else { i }.to_string())
            .collect();
        let plain: usize = strings.iter().map(|s| 4 + s.len()).sum();
        for exact in [true, false] {
            let mut b = ByteArrayDictionaryBuilder::new(n, usize::MAX);
            if exact {
                b = b.with_plain_bytes(plain);
            }
            let err = b.extend(strings.iter().map(|s| s.as_bytes())).unwrap_err();
            assert_eq!(err.reason, AbortReason::NotSmaller);
        }
    }

    #[test]
    fn single_value_chunk_never_wins() {
        let mut b = DictionaryBuilder::new(1, usize::MAX);
        assert!(b.push(7u32).is_err());
    }

    #[cfg(feature = "probes")]
    #[test]
    fn probes() {
        probe::reset();
        let unique: Vec<i64> = (0..100_000).collect();
        assert!(!estimate_fixed(&unique, unique.len()).use_dictionary);
        assert_eq!(probe::get("dictionary.estimate_skip"), 1);
        assert_eq!(probe::get("dictionary.estimate_build"), 0);
        let mut b = DictionaryBuilder::new(unique.len(), usize::MAX);
        assert!(b.extend(&unique).is_err());
        assert_eq!(probe::get("dictionary.aborted"), 1);
        assert_eq!(probe::get("dictionary.kept"), 0);

        probe::reset();
        let few: Vec<i64> = (0..100_000).map(|i| i % 10).collect();
        assert!(estimate_fixed(&few, few.len()).use_dictionary);
        assert_eq!(probe::get("dictionary.estimate_build"), 1);
        assert_eq!(probe::get("dictionary.estimate_skip"), 0);
        let mut b = DictionaryBuilder::new(few.len(), usize::MAX);
        b.extend(&few).unwrap();
        b.finish().unwrap();
        assert_eq!(probe::get("dictionary.kept"), 1);
        assert_eq!(probe::get("dictionary.aborted"), 0);
    }

    proptest! {
        #[test]
        fn fixed_round_trip(values in prop::collection::vec(prop_oneof![
            any::<f32>(), Just(f32::NAN), Just(-0.0f32), Just(0.0f32),
            Just(f32::from_bits(0x7fc0_0001)), (0u8..4).prop_map(f32::from)
        ], 0..300)) {
            let mut b = DictionaryBuilder::new(1 << 40, usize::MAX);
            b.extend(&values).unwrap();
            let (dict, indices) = b.finish().unwrap();
            prop_assert_eq!(indices.len(), values.len());
            for (v, &i) in values.iter().zip(&indices) {
                prop_assert_eq!(v.to_bits(), dict[i as usize].to_bits());
            }
            // First-seen order: each new index is the next one.
            let mut next = 0;
            for &i in &indices {
                prop_assert!(i <= next);
                if i == next { next += 1; }
            }
            prop_assert_eq!(next as usize, dict.len());
        }

        #[test]
        fn byte_array_round_trip(values in prop::collection::vec(prop_oneof![
            prop::collection::vec(0u8..2, 0..3),
            prop::collection::vec(any::<u8>(), 0..30),
        ], 0..200)) {
            let mut b = ByteArrayDictionaryBuilder::new(1 << 40, usize::MAX);
            b.extend(values.iter().map(|v| &v[..])).unwrap();
            let d = b.finish().unwrap();
            for (v, &i) in values.iter().zip(&d.indices) {
                let i = i as usize;
                prop_assert_eq!(&d.data[d.offsets[i] as usize..d.offsets[i + 1] as usize], &v[..]);
            }
        }
    }
}
