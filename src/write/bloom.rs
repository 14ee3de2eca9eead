//! Building a column chunk's bloom filter from the values the chunk writer already holds.
//!
//! A dictionary-encoded chunk hashes its distinct values, straight from the dictionary page
//! (probe `write.bloom_dictionary`); any other chunk hashes every non-null value (probe
//! `write.bloom_values`). Either way each value is hashed over its PLAIN bytes.

use parq_codecs::probe;

use super::column::Dense;
use super::options::BloomFilterOptions;
use crate::bloom::{hash_bytes, hash_f32, hash_f64, hash_i32, hash_i64, Sbbf};

/// The distinct values of a dictionary-encoded chunk.
pub(crate) enum Distinct<'a> {
    /// A PLAIN dictionary page of fixed-width values (INT32, INT64, FLOAT, DOUBLE: 4 or 8
    /// little-endian bytes; INT96 and FIXED_LEN_BYTE_ARRAY: `width` bytes).
    Fixed { page: &'a [u8], width: usize },
    /// The distinct byte arrays.
    Bytes(&'a [&'a [u8]]),
}

impl Distinct<'_> {
    fn len(&self) -> usize {
        match self {
            Distinct::Fixed { page, width } => page.len() / (*width).max(1),
            Distinct::Bytes(v) => v.len(),
        }
    }
}

/// The filter of one chunk: `dense` are its non-null values, `distinct` its dictionary when
/// it has one. `None` for BOOLEAN values (the spec gives them no filter).
pub(crate) fn build(
    options: &BloomFilterOptions,
    dense: &Dense<'_>,
    distinct: Option<Distinct<'_>>,
) -> Option<Sbbf> {
    if let Dense::Boolean(_) = dense {
        return None;
    }
    let count = distinct.as_ref().map_or(dense.len(), Distinct::len);
    let ndv = options.ndv.unwrap_or(count as u64);
    let mut filter = Sbbf::with_ndv_fpp(ndv, options.fpp);
    match distinct {
        Some(Distinct::Fixed { page, width }) => {
            probe::hit("write.bloom_dictionary");
            let values = page.chunks_exact(width);
            match width {
                4 => filter.insert_hashes(
                    values.map(|v| hash_i32(i32::from_le_bytes([v[0], v[1], v[2], v[3]]))),
                ),
                8 => filter.insert_hashes(values.map(|v| {
                    let mut b = [0u8; 8];
                    b.copy_from_slice(v);
                    hash_i64(i64::from_le_bytes(b))
                })),
                _ => filter.insert_hashes(values.map(hash_bytes)),
            }
        }
        Some(Distinct::Bytes(values)) => {
            probe::hit("write.bloom_dictionary");
            filter.insert_hashes(values.iter().map(|v| hash_bytes(v)));
        }
        None => {
            probe::hit("write.bloom_values");
            match dense {
                Dense::Boolean(_) => return None,
                Dense::Int32(v) => filter.insert_hashes(v.iter().map(|&x| hash_i32(x))),
                Dense::Int64(v) => filter.insert_hashes(v.iter().map(|&x| hash_i64(x))),
                Dense::Float(v) => filter.insert_hashes(v.iter().map(|&x| hash_f32(x))),
                Dense::Double(v) => filter.insert_hashes(v.iter().map(|&x| hash_f64(x))),
                Dense::Fixed { width, data } => {
                    filter.insert_hashes(data.chunks_exact((*width).max(1)).map(hash_bytes))
                }
                Dense::Bytes(v) => filter.insert_hashes(v.iter().map(|x| hash_bytes(x))),
            }
        }
    }
    Some(filter)
}
