//! Split-block bloom filters (`BloomFilter.md` of parquet-format): build, check, serialize.
//!
//! A filter is `z` blocks of 256 bits, each block eight little-endian `u32` words. A value is
//! hashed with xxHash64 (seed 0) over its PLAIN bytes; the upper 32 bits of the hash pick the
//! block, the lower 32 bits set (or test) one bit in each of the block's eight words:
//!
//! ```text
//! block_index(h)  = ((h >> 32) * z) >> 32
//! mask(x: u32)[i] = 1 << ((x * SALT[i]) >> 27)          for i in 0..8 (wrapping multiply)
//! insert(h):  block[block_index(h)][i] |= mask(h as u32)[i]
//! check(h):   block[block_index(h)][i] &  mask(h as u32)[i] != 0   for every i
//! ```
//!
//! The bytes hashed are the value's PLAIN encoding without a length prefix: 4 little-endian
//! bytes for INT32 and FLOAT, 8 for INT64 and DOUBLE, the 12 bytes of an INT96, the bytes of
//! a FIXED_LEN_BYTE_ARRAY or BYTE_ARRAY. BOOLEAN columns have no bloom filter.
//!
//! ```
//! use parq::bloom::{hash_bytes, hash_i64, Sbbf};
//! let mut filter = Sbbf::with_ndv_fpp(1000, 0.01);
//! filter.insert_hash(hash_i64(42));
//! filter.insert_hash(hash_bytes(b"parquet"));
//! assert!(filter.check_hash(hash_i64(42)));
//! assert!(filter.check_hash(hash_bytes(b"parquet")));
//! assert!(!filter.check_hash(hash_i64(43))); // almost surely: the filter is nearly empty
//! ```
//!
//! On disk a filter is a [`BloomFilterHeader`] (thrift compact) followed by the bitset; the
//! column chunk's `bloom_filter_offset` points at the header and `bloom_filter_length` (when
//! present) counts header and bitset together.
//!
//! # Writing and reading filters
//!
//! Writing is opt-in per column ([`crate::write::WriterOptions::with_bloom_filter`]). A
//! dictionary-encoded chunk hashes only its distinct values; without `ndv` the filter is sized
//! from the chunk. Each row group's filters follow its data, so only one row group's filters are
//! held in memory. [`crate::read::ParquetReader::read_bloom_filter`] checks every range against
//! the file and the bitset size (a power of two from 32 B to 128 MiB) before allocating.
//!
//! ```
//! use parq::bloom::{hash_bytes, hash_i64};
//! use parq::column::{Column, Values};
//! use parq::read::ParquetReader;
//! use parq::write::{BloomFilterOptions, Field, ParquetWriter, WriterOptions};
//!
//! let options = WriterOptions::default()
//!     .with_bloom_filter("id", BloomFilterOptions::default().with_ndv(Some(1000)).with_fpp(0.01));
//! let mut file = Vec::new();
//! let mut writer = ParquetWriter::new(&mut file, vec![Field::int64("id")], options)?;
//! let ids = Column { len: 3, validity: None, values: Values::Int64(vec![7i64, 8, 9].into()) };
//! writer.write_batch(&[ids])?;
//! writer.finish()?;
//!
//! let reader = ParquetReader::new(bytes::Bytes::from(file))?;
//! let filter = reader.read_bloom_filter(0, 0)?.expect("written");   // row group 0, leaf 0
//! assert!(filter.check_hash(hash_i64(8)));           // written values are always found
//! assert!(!filter.check_hash(hash_i64(10)));         // false means certainly absent
//! assert!(!filter.check_hash(hash_bytes(b"7")));     // hash_bytes: strings, FLBA, INT96 bytes
//! # Ok::<(), parq::Error>(())
//! ```

use std::fmt;

use crate::metadata::{self, BloomFilterHeader, BloomFilterUnion};
use crate::{Error, Result};

/// The eight odd constants that spread a hash over a block's eight words (`BloomFilter.md`,
/// "Technical Approach").
pub const SALT: [u32; 8] = [
    0x47b6137b, 0x44974d91, 0x8824ad5b, 0xa2b7289d, 0x705495c7, 0x2df1424b, 0x9efc4947, 0x5c6bfb31,
];

/// Bytes in one block (eight `u32` words).
pub const BLOCK_BYTES: usize = 32;

/// Smallest bitset written: one block.
pub const MIN_BYTES: usize = BLOCK_BYTES;

/// Largest bitset written or read: 128 MiB (the cap parquet-mr, parquet-cpp and arrow-rs
/// all use).
pub const MAX_BYTES: usize = 128 << 20;

type Block = [u32; 8];

/// The bit each of a block's words gets for the 32-bit key `x`.
#[inline(always)]
fn mask(x: u32) -> Block {
    let mut m = [0u32; 8];
    for i in 0..8 {
        m[i] = 1u32 << (x.wrapping_mul(SALT[i]) >> 27);
    }
    m
}

/// A split-block bloom filter.
#[derive(Clone, PartialEq, Eq)]
pub struct Sbbf {
    blocks: Vec<Block>,
}

impl fmt::Debug for Sbbf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Sbbf")
            .field("num_bytes", &self.num_bytes())
            .finish()
    }
}

/// The bitset size, in bytes, of a filter for `ndv` distinct values at false-positive
/// probability `fpp`, per `BloomFilter.md`: `m = -8 * ndv / ln(1 - fpp^(1/8))` bits, then
/// clamped to [`MIN_BYTES`]..=[`MAX_BYTES`] and rounded up to a power of two.
///
/// # Panics
///
/// When `fpp` is not strictly between 0 and 1 (NaN included).
pub fn optimal_num_bytes(ndv: u64, fpp: f64) -> usize {
    assert!(
        fpp > 0.0 && fpp < 1.0,
        "bloom filter fpp must be in (0, 1), got {fpp}"
    );
    // ln(1 - x) as ln_1p(-x): exact for tiny x, where 1 - x would round to 1 and give 0.
    let bits = -8.0 * ndv as f64 / (-fpp.powf(1.0 / 8.0)).ln_1p();
    // `as` saturates: huge sizes become usize::MAX and are clamped below.
    let bytes = (bits / 8.0) as usize;
    bytes.clamp(MIN_BYTES, MAX_BYTES).next_power_of_two()
}

impl Sbbf {
    /// An empty filter of `num_bytes` bytes, clamped to [`MIN_BYTES`]..=[`MAX_BYTES`] and
    /// rounded up to a power of two.
    pub fn with_num_bytes(num_bytes: usize) -> Sbbf {
        let n = num_bytes.clamp(MIN_BYTES, MAX_BYTES).next_power_of_two();
        Sbbf {
            blocks: vec![[0; 8]; n / BLOCK_BYTES],
        }
    }

    /// An empty filter sized for `ndv` distinct values at false-positive probability `fpp`
    /// (see [`optimal_num_bytes`]).
    ///
    /// # Panics
    ///
    /// When `fpp` is not strictly between 0 and 1 (NaN included).
    pub fn with_ndv_fpp(ndv: u64, fpp: f64) -> Sbbf {
        Self::with_num_bytes(optimal_num_bytes(ndv, fpp))
    }

    /// A filter over a bitset read from a file (little-endian words). The length must be a
    /// power of two in [`MIN_BYTES`]..=[`MAX_BYTES`].
    pub fn from_bitset(bitset: &[u8]) -> Result<Sbbf> {
        check_num_bytes(bitset.len() as u64)?;
        let blocks = bitset
            .chunks_exact(BLOCK_BYTES)
            .map(|b| {
                let mut block = [0u32; 8];
                for (w, bytes) in block.iter_mut().zip(b.chunks_exact(4)) {
                    *w = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
                }
                block
            })
            .collect();
        Ok(Sbbf { blocks })
    }

    /// A filter from the bytes of a serialized one: a [`BloomFilterHeader`] followed by its
    /// bitset (bytes after the bitset are ignored). A header naming an algorithm, hash or
    /// compression other than split-block, xxHash64 and uncompressed is
    /// [`Error::Unsupported`].
    pub fn decode(bytes: &[u8]) -> Result<Sbbf> {
        let (header, header_len) = metadata::decode_bloom_filter_header(bytes)?;
        let num_bytes = check_header(&header)?;
        let bitset = bytes
            .get(header_len..)
            .and_then(|b| b.get(..num_bytes))
            .ok_or_else(|| {
                Error::format(format!(
                    "bloom filter bitset of {num_bytes} bytes, but {} bytes follow its header",
                    bytes.len() - header_len
                ))
            })?;
        Sbbf::from_bitset(bitset)
    }

    /// Bytes of the bitset.
    pub fn num_bytes(&self) -> usize {
        self.blocks.len() * BLOCK_BYTES
    }

    #[inline(always)]
    fn block_index(&self, hash: u64) -> usize {
        // (hash >> 32) < 2^32 and the block count <= 2^22: the product fits in 64 bits.
        (((hash >> 32) * self.blocks.len() as u64) >> 32) as usize
    }

    /// Add a value, given its hash (see [`hash_bytes`] and the typed `hash_*` functions).
    #[inline]
    pub fn insert_hash(&mut self, hash: u64) {
        let i = self.block_index(hash);
        let m = mask(hash as u32);
        let block = &mut self.blocks[i];
        for k in 0..8 {
            block[k] |= m[k];
        }
    }

    /// Whether a value with this hash may be in the set: `false` means it is certainly not.
    #[inline]
    pub fn check_hash(&self, hash: u64) -> bool {
        let block = &self.blocks[self.block_index(hash)];
        let m = mask(hash as u32);
        // Every word must have its bit: OR together the words that lack it, no early exit.
        let mut missing = 0u32;
        for k in 0..8 {
            missing |= !block[k] & m[k];
        }
        missing == 0
    }

    /// Add every hash of `hashes`.
    pub fn insert_hashes(&mut self, hashes: impl IntoIterator<Item = u64>) {
        for h in hashes {
            self.insert_hash(h);
        }
    }

    /// The header of this filter's serialized form.
    pub fn header(&self) -> BloomFilterHeader {
        // At most MAX_BYTES = 2^27: fits an i32.
        BloomFilterHeader::split_block(self.num_bytes() as i32)
    }

    /// Append the bitset, words little-endian.
    pub fn write_bitset(&self, out: &mut Vec<u8>) {
        out.reserve(self.num_bytes());
        for block in &self.blocks {
            for w in block {
                out.extend_from_slice(&w.to_le_bytes());
            }
        }
    }

    /// Append the serialized filter: header, then bitset.
    pub fn write(&self, out: &mut Vec<u8>) {
        metadata::encode_bloom_filter_header(&self.header(), out);
        self.write_bitset(out);
    }
}

/// Checks that a bitset length is a power of two in [`MIN_BYTES`]..=[`MAX_BYTES`].
fn check_num_bytes(n: u64) -> Result<usize> {
    if n < MIN_BYTES as u64 || n > MAX_BYTES as u64 || !n.is_power_of_two() {
        return Err(Error::format(format!(
            "bloom filter bitset of {n} bytes (must be a power of two from {MIN_BYTES} to \
             {MAX_BYTES})"
        )));
    }
    Ok(n as usize)
}

/// Checks that a header describes a filter this crate can use and returns its bitset length.
pub(crate) fn check_header(h: &BloomFilterHeader) -> Result<usize> {
    for (what, u) in [
        ("algorithm", h.algorithm),
        ("hash", h.hash),
        ("compression", h.compression),
    ] {
        if let BloomFilterUnion::Unknown { field_id } = u {
            return Err(Error::Unsupported(format!(
                "bloom filter {what} with union field id {field_id}"
            )));
        }
    }
    let n = u64::try_from(h.num_bytes).unwrap_or(0);
    check_num_bytes(n)
}

// xxHash64 with seed 0. The typed functions compute the short-input path of xxHash64 for
// exactly 4 or 8 bytes, which is what `twox_hash` does for those lengths after a few branches
// on the length; tests check them against it.
const P1: u64 = 0x9E37_79B1_85EB_CA87;
const P2: u64 = 0xC2B2_AE3D_27D4_EB4F;
const P3: u64 = 0x1656_67B1_9E37_79F9;
const P4: u64 = 0x85EB_CA77_C2B2_AE63;
const P5: u64 = 0x27D4_EB2F_1656_67C5;

#[inline(always)]
fn avalanche(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

/// xxHash64 (seed 0) of 8 bytes given as a little-endian `u64`.
#[inline(always)]
fn xxh64_8(lane: u64) -> u64 {
    let h = P5.wrapping_add(8);
    let k = lane.wrapping_mul(P2).rotate_left(31).wrapping_mul(P1);
    avalanche((h ^ k).rotate_left(27).wrapping_mul(P1).wrapping_add(P4))
}

/// xxHash64 (seed 0) of 4 bytes given as a little-endian `u32`.
#[inline(always)]
fn xxh64_4(lane: u32) -> u64 {
    let h = P5.wrapping_add(4);
    let h = h ^ u64::from(lane).wrapping_mul(P1);
    avalanche(h.rotate_left(23).wrapping_mul(P2).wrapping_add(P3))
}

/// xxHash64 with seed 0 of `bytes`: the bloom filter hash of a BYTE_ARRAY (its bytes, no
/// length prefix), FIXED_LEN_BYTE_ARRAY or INT96 (12 bytes) value.
#[inline]
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    twox_hash::XxHash64::oneshot(0, bytes)
}

/// The bloom filter hash of an INT32 value (its 4 little-endian bytes).
#[inline]
pub fn hash_i32(v: i32) -> u64 {
    xxh64_4(v as u32)
}

/// The bloom filter hash of an INT64 value (its 8 little-endian bytes).
#[inline]
pub fn hash_i64(v: i64) -> u64 {
    xxh64_8(v as u64)
}

/// The bloom filter hash of a FLOAT value (its 4 little-endian bytes: `0.0` and `-0.0`, and
/// NaNs with different payloads, hash differently).
#[inline]
pub fn hash_f32(v: f32) -> u64 {
    xxh64_4(v.to_bits())
}

/// The bloom filter hash of a DOUBLE value (its 8 little-endian bytes: `0.0` and `-0.0`, and
/// NaNs with different payloads, hash differently).
#[inline]
pub fn hash_f64(v: f64) -> u64 {
    xxh64_8(v.to_bits())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_hashes_equal_xxhash64_of_plain_bytes() {
        let mut x = 0x1234_5678_9abc_def0u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_eq!(hash_i64(x as i64), hash_bytes(&x.to_le_bytes()));
            assert_eq!(hash_i32(x as i32), hash_bytes(&(x as u32).to_le_bytes()));
            let (f, d) = (f32::from_bits(x as u32), f64::from_bits(x));
            assert_eq!(hash_f32(f), hash_bytes(&f.to_le_bytes()));
            assert_eq!(hash_f64(d), hash_bytes(&d.to_le_bytes()));
        }
        // Known value of xxHash64("") with seed 0.
        assert_eq!(hash_bytes(b""), 0xEF46_DB37_51D8_E999);
    }

    #[test]
    fn sizes_follow_the_spec() {
        assert_eq!(optimal_num_bytes(0, 0.5), MIN_BYTES);
        assert_eq!(optimal_num_bytes(u64::MAX, 0.01), MAX_BYTES);
        assert_eq!(optimal_num_bytes(u64::MAX, 1e-300), MAX_BYTES);
        // 1M values at 1 %: 9.59 bits/value -> 1.2 MB -> 2 MiB.
        assert_eq!(optimal_num_bytes(1_000_000, 0.01), 2 << 20);
        for n in [0, 1, 31, 32, 33, 1000, MAX_BYTES + 1] {
            let b = Sbbf::with_num_bytes(n).num_bytes();
            assert!(b.is_power_of_two() && (MIN_BYTES..=MAX_BYTES).contains(&b));
        }
    }

    #[test]
    #[should_panic(expected = "fpp")]
    fn fpp_out_of_range_panics() {
        Sbbf::with_ndv_fpp(10, 1.0);
    }

    #[test]
    fn serialized_filter_round_trips() {
        let mut f = Sbbf::with_num_bytes(1024);
        f.insert_hashes((0..100).map(hash_i64));
        let mut out = Vec::new();
        f.write(&mut out);
        let g = Sbbf::decode(&out).unwrap();
        assert_eq!(f, g);
        assert!((0..100).all(|i| g.check_hash(hash_i64(i))));
        // Truncated bitset, bad sizes, unknown hash.
        assert!(Sbbf::decode(&out[..out.len() - 1]).is_err());
        assert!(Sbbf::from_bitset(&[0; 48]).is_err());
        assert!(Sbbf::from_bitset(&[0; 16]).is_err());
        let mut h = f.header();
        h.hash = BloomFilterUnion::Unknown { field_id: 2 };
        let mut bad = Vec::new();
        metadata::encode_bloom_filter_header(&h, &mut bad);
        f.write_bitset(&mut bad);
        assert!(matches!(Sbbf::decode(&bad), Err(Error::Unsupported(_))));
    }
}
