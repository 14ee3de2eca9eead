//! The bloom filter header of `parquet.thrift` (`BloomFilterHeader` and its three unions).
//!
//! ```text
//! struct BloomFilterHeader {
//!   1: required i32 numBytes;                        // bytes of the bitset that follows
//!   2: required BloomFilterAlgorithm algorithm;      // union { 1: SplitBlockAlgorithm BLOCK }
//!   3: required BloomFilterHash hash;                // union { 1: XxHash XXHASH }
//!   4: required BloomFilterCompression compression;  // union { 1: Uncompressed UNCOMPRESSED }
//! }
//! ```
//!
//! Each union has one known variant, an empty struct; a variant this crate does not know is
//! kept as its field id so that the header re-encodes as it was read. The header is a
//! [`thrift_struct!`]; the union is written by hand.

use super::thrift::{ty, CompactReader, CompactWriter};
use crate::Result;

/// One of the header's unions of empty structs: the known variant (field 1) or another one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BloomFilterUnion {
    /// Field 1: `BLOCK` (split-block algorithm), `XXHASH` (xxHash64, seed 0) or
    /// `UNCOMPRESSED`, depending on the union.
    Known,
    /// A variant this crate does not know.
    Unknown {
        /// The union field id (0 for an empty union or a field id below 1).
        field_id: i16,
    },
}

impl BloomFilterUnion {
    /// Reads one of the unions (errors name it `BloomFilterUnion`: the three are alike).
    fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let name = "BloomFilterUnion";
        let mut out = None;
        r.read_struct(name, |r, id, t| {
            if id == 1 && t != ty::STRUCT {
                return Err(r.error(format!("{name} field 1 has wire type {t}, not a struct")));
            }
            if out.is_none() {
                out = Some(match id {
                    1 => BloomFilterUnion::Known,
                    // An id that cannot be written back reads as the empty union.
                    id if id <= 0 => BloomFilterUnion::Unknown { field_id: 0 },
                    id => BloomFilterUnion::Unknown { field_id: id },
                });
            }
            r.skip(t)
        })?;
        Ok(out.unwrap_or(BloomFilterUnion::Unknown { field_id: 0 }))
    }

    fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        match *self {
            BloomFilterUnion::Known => w.empty_struct_field(1),
            BloomFilterUnion::Unknown { field_id } => {
                if field_id > 0 {
                    w.empty_struct_field(field_id);
                }
            }
        }
        w.struct_end();
    }
}

thrift_struct! {
    /// The header in front of a bloom filter's bitset.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    pub struct BloomFilterHeader {
        /// Bytes of the bitset that follows the header.
        1: required num_bytes as "numBytes": i32,
        /// `BloomFilterAlgorithm`: [`Known`](BloomFilterUnion::Known) is the split-block
        /// algorithm.
        2: required algorithm: BloomFilterUnion,
        /// `BloomFilterHash`: [`Known`](BloomFilterUnion::Known) is xxHash64 with seed 0.
        3: required hash: BloomFilterUnion,
        /// `BloomFilterCompression`: [`Known`](BloomFilterUnion::Known) is uncompressed.
        4: required compression: BloomFilterUnion,
    }
}

impl BloomFilterHeader {
    /// The header of a split-block, xxHash64, uncompressed bitset of `num_bytes` bytes (the
    /// only kind the spec defines).
    pub fn split_block(num_bytes: i32) -> Self {
        BloomFilterHeader {
            num_bytes,
            algorithm: BloomFilterUnion::Known,
            hash: BloomFilterUnion::Known,
            compression: BloomFilterUnion::Known,
        }
    }
}

struct_value!(BloomFilterUnion);

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(h: BloomFilterHeader) {
        let mut out = Vec::new();
        h.write(&mut CompactWriter::new(&mut out));
        let mut r = CompactReader::new(&out);
        assert_eq!(BloomFilterHeader::read(&mut r).unwrap(), h);
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn headers_round_trip_known_and_unknown_variants() {
        round_trip(BloomFilterHeader::split_block(1024));
        round_trip(BloomFilterHeader {
            num_bytes: -1,
            algorithm: BloomFilterUnion::Unknown { field_id: 3 },
            hash: BloomFilterUnion::Known,
            compression: BloomFilterUnion::Unknown { field_id: 7 },
        });
    }

    #[test]
    fn unions_that_cannot_be_written_back_are_normalised_or_refused() {
        use crate::metadata::thrift::{CompactReader, CompactWriter};
        // A union holding field -5 (an empty struct): read as the empty union.
        let mut buf = Vec::new();
        let mut w = CompactWriter::new(&mut buf);
        w.struct_begin();
        w.empty_struct_field(-5);
        w.struct_end();
        let mut r = CompactReader::new(&buf);
        assert_eq!(
            BloomFilterUnion::read(&mut r).unwrap(),
            BloomFilterUnion::Unknown { field_id: 0 }
        );
        // Field 1 with a non-struct wire type: an error, not Unknown { field_id: 1 } (which
        // would be written back as the known variant).
        let mut buf = Vec::new();
        let mut w = CompactWriter::new(&mut buf);
        w.struct_begin();
        w.binary_field(1, b"x");
        w.struct_end();
        let mut r = CompactReader::new(&buf);
        assert!(BloomFilterUnion::read(&mut r).is_err());
    }

    #[test]
    fn parquet_mr_header_decodes() {
        // The 16-byte header of parquet-testing's bloom_filter.xxhash.bin.
        let bytes = [
            0x15, 0x80, 0x10, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00,
            0x00, 0x00,
        ];
        let mut r = CompactReader::new(&bytes);
        let h = BloomFilterHeader::read(&mut r).unwrap();
        assert_eq!(h, BloomFilterHeader::split_block(1024));
        assert_eq!(r.position(), 16);
    }

    #[test]
    fn missing_fields_and_wrong_types_are_errors() {
        // Only numBytes.
        assert!(
            BloomFilterHeader::read(&mut CompactReader::new(&[0x15, 0x80, 0x10, 0x00])).is_err()
        );
        // algorithm given as an i32: skipped, then missing.
        let bytes = [
            0x15, 0x80, 0x10, 0x15, 0x02, 0x1c, 0x1c, 0x00, 0x00, 0x1c, 0x1c, 0x00, 0x00, 0x00,
        ];
        assert!(BloomFilterHeader::read(&mut CompactReader::new(&bytes)).is_err());
        // Truncated.
        assert!(BloomFilterHeader::read(&mut CompactReader::new(&[0x15, 0x80])).is_err());
    }
}
