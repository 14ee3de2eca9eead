//! BYTE_STREAM_SPLIT encoding (`BYTE_STREAM_SPLIT = 9`), for FLOAT, DOUBLE, INT32, INT64 and
//! FIXED_LEN_BYTE_ARRAY.
//!
//! Spec: <https://github.com/apache/parquet-format/blob/master/Encodings.md#byte-stream-split-byte_stream_split--9>
//!
//! ```text
//! K streams of N bytes, K = the value width in bytes, N = the number of values:
//! <byte 0 of every value> <byte 1 of every value> ... <byte K-1 of every value>
//! ```
//!
//! There is no header: the end of the streams is the end of the page, so the stream length
//! (the stride) is the value count `n` the caller passes.
//!
//! Widths 4 and 8 run the const-width kernels of [`crate::kernels::shuffle`], every other
//! width the generic one. Probes: `bss.width4`, `bss.width8`, `bss.generic` (one hit per call,
//! in both directions).
#![forbid(unsafe_code)]

use crate::kernels::shuffle;
use crate::probe;
use crate::{Error, Result};

fn check_width(width: usize) -> Result<()> {
    if width == 0 {
        return Err(Error::InvalidData {
            offset: 0,
            what: "byte stream split width is zero",
        });
    }
    Ok(())
}

/// Decode `n` values of `width` bytes from the `width` streams at the start of `input`,
/// appending their `n * width` bytes, in value order, to `out`.
///
/// Errors with [`Error::Truncated`] if `input` holds fewer than `n * width` bytes. Bytes past
/// `n * width` are not read.
pub fn decode(input: &[u8], width: usize, n: usize, out: &mut Vec<u8>) -> Result<()> {
    check_width(width)?;
    let len = n.checked_mul(width).ok_or(Error::TooLarge {
        what: "byte stream split value count",
        declared: n as u64,
        limit: (usize::MAX / width) as u64,
    })?;
    if input.len() < len {
        return Err(Error::Truncated {
            offset: 0,
            needed: len,
            available: input.len(),
        });
    }
    let start = out.len();
    out.resize(start + len, 0);
    let dst = &mut out[start..];
    match width {
        4 => {
            probe::hit("bss.width4");
            shuffle::join_const::<4>(input, n, dst);
        }
        8 => {
            probe::hit("bss.width8");
            shuffle::join_const::<8>(input, n, dst);
        }
        _ => {
            probe::hit("bss.generic");
            shuffle::join_generic(input, width, n, dst);
        }
    }
    Ok(())
}

/// Decode values `first..first + n` of the `input.len() / width` values whose `width` streams
/// make up `input` (a whole page's values), appending their `n * width` bytes to `out`: the
/// values before `first` are skipped, not decoded.
///
/// Errors with [`Error::InvalidData`] when `input` is not whole streams and
/// [`Error::Truncated`] when the range passes the last value.
pub fn decode_range(
    input: &[u8],
    width: usize,
    first: usize,
    n: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    check_width(width)?;
    if input.len() % width != 0 {
        return Err(Error::InvalidData {
            offset: 0,
            what: "byte stream split data is not a whole number of values",
        });
    }
    let total = input.len() / width;
    let end = first
        .checked_add(n)
        .filter(|e| *e <= total)
        .ok_or(Error::Truncated {
            offset: 0,
            needed: first.saturating_add(n).saturating_mul(width),
            available: input.len(),
        })?;
    probe::hit("bss.range");
    out.reserve(n * width);
    for i in first..end {
        out.extend((0..width).map(|b| input[b * total + i]));
    }
    Ok(())
}

/// Encode `values` (back-to-back values of `width` bytes) as `width` byte streams appended to
/// `out`.
///
/// Errors with [`Error::InvalidData`] when `width` is zero or `values.len()` is not a multiple
/// of `width`.
pub fn encode(values: &[u8], width: usize, out: &mut Vec<u8>) -> Result<()> {
    check_width(width)?;
    if values.len() % width != 0 {
        return Err(Error::InvalidData {
            offset: values.len(),
            what: "byte stream split input is not a whole number of values",
        });
    }
    let start = out.len();
    out.resize(start + values.len(), 0);
    let dst = &mut out[start..];
    match width {
        4 => {
            probe::hit("bss.width4");
            shuffle::split_const::<4>(values, dst);
        }
        8 => {
            probe::hit("bss.width8");
            shuffle::split_const::<8>(values, dst);
        }
        _ => {
            probe::hit("bss.generic");
            shuffle::split_generic(values, width, dst);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn decode_range_matches_a_slice_of_the_whole() {
        for width in [1usize, 2, 4, 8, 12] {
            let values: Vec<u8> = (0..width * 37).map(|i| (i * 7 % 251) as u8).collect();
            let mut enc = Vec::new();
            super::encode(&values, width, &mut enc).unwrap();
            for (first, n) in [(0, 37), (0, 0), (5, 10), (36, 1), (37, 0)] {
                let mut out = Vec::new();
                super::decode_range(&enc, width, first, n, &mut out).unwrap();
                assert_eq!(out, &values[first * width..(first + n) * width]);
            }
            assert!(super::decode_range(&enc, width, 30, 8, &mut Vec::new()).is_err());
        }
    }

    use super::*;
    use proptest::prelude::*;

    #[test]
    fn errors() {
        assert!(decode(&[1, 2, 3], 4, 1, &mut Vec::new()).is_err());
        assert!(decode(&[1, 2, 3], 0, 1, &mut Vec::new()).is_err());
        assert!(decode(&[], 8, usize::MAX, &mut Vec::new()).is_err());
        assert!(encode(&[1, 2, 3], 2, &mut Vec::new()).is_err());
        assert!(encode(&[1, 2, 3], 0, &mut Vec::new()).is_err());
        let mut out = vec![9];
        decode(&[], 4, 0, &mut out).unwrap();
        encode(&[], 4, &mut out).unwrap();
        assert_eq!(out, [9]);
    }

    #[test]
    fn floats_bit_for_bit() {
        let values = [f32::from_bits(0x7fc0_1234), -0.0, f32::MIN, f32::MAX];
        let bytes: &[u8] = bytemuck::cast_slice(&values);
        let mut enc = Vec::new();
        encode(bytes, 4, &mut enc).unwrap();
        let mut dec = Vec::new();
        decode(&enc, 4, 4, &mut dec).unwrap();
        assert_eq!(dec, bytes);
    }

    #[cfg(feature = "probes")]
    #[test]
    fn widths_4_and_8_take_the_fast_kernels() {
        for (width, fast) in [(4, "bss.width4"), (8, "bss.width8")] {
            let values: Vec<u8> = (0..width * 100).map(|i| i as u8).collect();
            probe::reset();
            let mut enc = Vec::new();
            encode(&values, width, &mut enc).unwrap();
            decode(&enc, width, 100, &mut Vec::new()).unwrap();
            assert_eq!(probe::get(fast), 2);
            assert_eq!(probe::get("bss.generic"), 0);
        }
        probe::reset();
        let mut enc = Vec::new();
        encode(&[0; 36], 12, &mut enc).unwrap();
        decode(&enc, 12, 3, &mut Vec::new()).unwrap();
        assert_eq!(probe::get("bss.generic"), 2);
        assert_eq!(probe::get("bss.width4") + probe::get("bss.width8"), 0);
    }

    proptest! {
        #[test]
        fn round_trip(width in prop_oneof![Just(4usize), Just(8), 1usize..17], n in prop_oneof![0usize..40, 120usize..140]) {
            let values: Vec<u8> = (0..n * width).map(|i| (i * 37 % 251) as u8).collect();
            let mut enc = vec![0xee];
            encode(&values, width, &mut enc).unwrap();
            let mut generic = vec![0; values.len()];
            shuffle::split_generic(&values, width, &mut generic);
            prop_assert_eq!(&enc[1..], &generic[..]);
            let mut dec = vec![0xdd];
            decode(&enc[1..], width, n, &mut dec).unwrap();
            prop_assert_eq!(&dec[1..], &values[..]);
        }
    }

    /// Found by the `decode_byte_stream_split` fuzz target: zero values of a generic width
    /// with input present panicked in the shuffle kernel.
    #[test]
    fn bug_fuzz_1_zero_values_generic_width() {
        let mut out = Vec::new();
        decode(&[1, 2, 3, 4, 5, 6, 7], 5, 0, &mut out).unwrap();
        assert!(out.is_empty());
        encode(&[], 5, &mut out).unwrap();
        assert!(out.is_empty());
    }
}
