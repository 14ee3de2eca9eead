//! Bit packing in Parquet's order: values of `width` bits each, packed back to back, least
//! significant bit first (the bit-packed half of the RLE/bit-packed hybrid,
//! <https://github.com/apache/parquet-format/blob/master/Encodings.md#run-length-encoding--bit-packing-hybrid-rle--3>).
//!
//! Value `i` occupies bits `[i * width, (i + 1) * width)` of the byte string, where bit `b` is
//! bit `b % 8` (LSB = 0) of byte `b / 8`.
//!
//! [`unpack`] decodes whole groups (32 values for `u32`, then groups of 8) with the per-width
//! kernels in [`crate::kernels::bitpack`] and the last `< 8` values with a scalar loop.
//!
//! Probes: `bitpack.unpack_kernel` (values decoded by a per-width kernel),
//! `bitpack.unpack_scalar` (values decoded by the scalar tail / fallback),
//! `bitpack.pack_kernel`, `bitpack.pack_scalar` likewise for packing.

#![forbid(unsafe_code)]

use crate::{Error, Result};

// The trait lives with the kernels that are written for its four widths; re-exported here,
// where callers meet it.
pub use crate::kernels::bitpack::BitPackable;

/// Bits needed to represent `max` (0 for 0): the bit width Parquet uses for levels and
/// dictionary indices whose largest value is `max`.
#[inline]
pub fn bit_width(max: u64) -> u32 {
    64 - max.leading_zeros()
}

/// Bytes needed to hold `n` values of `width` bits, or `None` on overflow.
#[inline]
pub(crate) fn packed_len(n: usize, width: u32) -> Option<usize> {
    let bits = (n as u128) * (width as u128);
    usize::try_from(bits.div_ceil(8)).ok()
}

#[inline]
fn check_width<T: BitPackable>(width: u32) -> Result<()> {
    if width > T::BITS {
        return Err(Error::InvalidBitWidth {
            width,
            max: T::BITS,
        });
    }
    Ok(())
}

/// Unpack `out.len()` values of `width` bits each, in Parquet's little-endian bit order (LSB
/// first), from the start of `input`.
///
/// Errors with [`Error::InvalidBitWidth`] if `width > T::BITS` and with [`Error::Truncated`] if
/// `input` is shorter than `ceil(out.len() * width / 8)` bytes. Extra input bytes are ignored.
pub fn unpack<T: BitPackable>(input: &[u8], width: u32, out: &mut [T]) -> Result<()> {
    check_width::<T>(width)?;
    let needed = packed_len(out.len(), width).ok_or(Error::TooLarge {
        what: "bit-packed length",
        declared: out.len() as u64,
        limit: usize::MAX as u64,
    })?;
    if input.len() < needed {
        return Err(Error::Truncated {
            offset: 0,
            needed,
            available: input.len(),
        });
    }
    // `input` is not cut to `needed`: the kernels decode only `out.len()` values, and the
    // SIMD ones can use bytes past them for whole-vector loads.
    if width == 0 {
        out.fill(T::default());
        return Ok(());
    }
    let done = crate::kernels::bitpack::unpack_groups(input, width, out);
    if done > 0 {
        crate::probe::hit_n("bitpack.unpack_kernel", done as u64);
    }
    if done < out.len() {
        crate::probe::hit_n("bitpack.unpack_scalar", (out.len() - done) as u64);
        // `done` is a multiple of 8, so the tail starts on a byte boundary.
        let start = done / 8 * width as usize;
        unpack_scalar(&input[start..], width, &mut out[done..]);
    }
    Ok(())
}

/// Scalar unpack of `out.len()` values; `input` holds at least `packed_len(out.len(), width)`
/// bytes and `1 <= width <= T::BITS`. Never panics: reads past the end are treated as zeros.
pub(crate) fn unpack_scalar<T: BitPackable>(input: &[u8], width: u32, out: &mut [T]) {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    let w = width as usize;
    for (i, o) in out.iter_mut().enumerate() {
        let bit = i * w;
        let byte = bit / 8;
        let shift = (bit % 8) as u32;
        let lo = read_u64_le(input, byte);
        let mut v = lo >> shift;
        if shift + width > 64 {
            let hi = input.get(byte + 8).copied().unwrap_or(0) as u64;
            v |= hi << (64 - shift);
        }
        *o = T::from_u64(v & mask);
    }
}

/// Read 8 bytes little endian at `pos`, zero-filling past the end of `input`.
#[inline(always)]
fn read_u64_le(input: &[u8], pos: usize) -> u64 {
    match input.get(pos..pos + 8) {
        Some(b) => u64::from_le_bytes(b.try_into().unwrap_or([0; 8])),
        None => {
            let mut buf = [0u8; 8];
            if pos < input.len() {
                let rest = &input[pos..];
                buf[..rest.len()].copy_from_slice(rest);
            }
            u64::from_le_bytes(buf)
        }
    }
}

/// Append `ceil(values.len() * width / 8)` bytes to `out`: the low `width` bits of each value,
/// in Parquet's LSB-first order, the last byte padded with zero bits.
///
/// Errors with [`Error::InvalidBitWidth`] if `width > T::BITS`. Higher bits of a value than
/// `width` are ignored.
pub fn pack<T: BitPackable>(values: &[T], width: u32, out: &mut Vec<u8>) -> Result<()> {
    check_width::<T>(width)?;
    let needed = packed_len(values.len(), width).ok_or(Error::TooLarge {
        what: "bit-packed length",
        declared: values.len() as u64,
        limit: usize::MAX as u64,
    })?;
    if width == 0 || values.is_empty() {
        return Ok(());
    }
    let start = out.len();
    out.reserve(needed);
    let done = crate::kernels::bitpack::pack_groups(values, width, out);
    if done > 0 {
        crate::probe::hit_n("bitpack.pack_kernel", done as u64);
    }
    if done < values.len() {
        crate::probe::hit_n("bitpack.pack_scalar", (values.len() - done) as u64);
        pack_scalar(&values[done..], width, out);
    }
    debug_assert_eq!(out.len() - start, needed);
    Ok(())
}

/// Scalar pack: append the low `width` bits (1..=64) of each value.
pub(crate) fn pack_scalar<T: BitPackable>(values: &[T], width: u32, out: &mut Vec<u8>) {
    let mask = if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    // Bits pending in `acc`, always < 64 between values.
    let mut acc: u64 = 0;
    let mut nbits: u32 = 0;
    for v in values {
        let v = v.to_u64() & mask;
        acc |= v << nbits;
        let total = nbits + width;
        if total >= 64 {
            out.extend_from_slice(&acc.to_le_bytes());
            // Bits of `v` that did not fit into `acc`.
            acc = if nbits == 0 { 0 } else { v >> (64 - nbits) };
            nbits = total - 64;
        } else {
            nbits = total;
        }
    }
    let tail = nbits.div_ceil(8) as usize;
    out.extend_from_slice(&acc.to_le_bytes()[..tail]);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Bit-at-a-time oracle.
    fn naive_unpack(input: &[u8], width: u32, n: usize) -> Vec<u64> {
        (0..n)
            .map(|i| {
                let mut v = 0u64;
                for b in 0..width as usize {
                    let bit = i * width as usize + b;
                    if input[bit / 8] >> (bit % 8) & 1 == 1 {
                        v |= 1 << b;
                    }
                }
                v
            })
            .collect()
    }

    fn naive_pack(values: &[u64], width: u32) -> Vec<u8> {
        let mut out = vec![0u8; (values.len() * width as usize).div_ceil(8)];
        for (i, v) in values.iter().enumerate() {
            for b in 0..width as usize {
                if v >> b & 1 == 1 {
                    let bit = i * width as usize + b;
                    out[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        out
    }

    fn mask(width: u32) -> u64 {
        if width == 64 {
            u64::MAX
        } else {
            (1 << width) - 1
        }
    }

    /// [`roundtrip_once`] at every SIMD level this CPU has.
    fn roundtrip<T: BitPackable + std::fmt::Debug + PartialEq>(raw: &[u64], width: u32) {
        crate::simd::for_each_level(|_| roundtrip_once::<T>(raw, width));
    }

    fn roundtrip_once<T: BitPackable + std::fmt::Debug + PartialEq>(raw: &[u64], width: u32) {
        let values: Vec<T> = raw.iter().map(|v| T::from_u64(v & mask(width))).collect();
        let as64: Vec<u64> = values.iter().map(|v| v.to_u64()).collect();
        let mut packed = Vec::new();
        pack(&values, width, &mut packed).unwrap();
        assert_eq!(packed, naive_pack(&as64, width), "pack width {width}");
        let mut out = vec![T::default(); values.len()];
        unpack(&packed, width, &mut out).unwrap();
        assert_eq!(out, values, "unpack width {width} n {}", values.len());
        assert_eq!(
            naive_unpack(&packed, width, values.len()),
            as64,
            "oracle width {width}"
        );
        // One byte short must be an error.
        if !packed.is_empty() {
            let r = unpack(&packed[..packed.len() - 1], width, &mut out);
            assert!(matches!(r, Err(Error::Truncated { .. })));
        }
    }

    fn seq(n: usize) -> Vec<u64> {
        (0..n as u64)
            .map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (i << 3))
            .collect()
    }

    #[test]
    fn every_width_every_length() {
        for n in [
            0usize, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257,
        ] {
            let raw = seq(n);
            for w in 0..=8 {
                roundtrip::<u8>(&raw, w);
            }
            for w in 0..=16 {
                roundtrip::<u16>(&raw, w);
            }
            for w in 0..=32 {
                roundtrip::<u32>(&raw, w);
            }
            for w in 0..=64 {
                roundtrip::<u64>(&raw, w);
            }
        }
    }

    #[test]
    fn bad_width() {
        let mut out = [0u8; 4];
        assert_eq!(
            unpack(&[0; 8], 9, &mut out),
            Err(Error::InvalidBitWidth { width: 9, max: 8 })
        );
        let mut v = Vec::new();
        assert!(pack(&[0u32; 3], 33, &mut v).is_err());
        assert!(unpack::<u64>(&[0; 100], 65, &mut [0; 3]).is_err());
    }

    #[test]
    fn width_zero_reads_nothing() {
        let mut out = [7u32; 10];
        unpack(&[], 0, &mut out).unwrap();
        assert_eq!(out, [0; 10]);
        let mut v = Vec::new();
        pack(&[1u32, 2, 3], 0, &mut v).unwrap();
        assert!(v.is_empty());
    }

    #[test]
    fn bit_widths() {
        assert_eq!(bit_width(0), 0);
        assert_eq!(bit_width(1), 1);
        assert_eq!(bit_width(2), 2);
        assert_eq!(bit_width(255), 8);
        assert_eq!(bit_width(256), 9);
        assert_eq!(bit_width(u64::MAX), 64);
    }

    #[test]
    fn spec_example() {
        // Encodings.md: 0..=7 with bit width 3.
        let mut v = Vec::new();
        pack(&[0u8, 1, 2, 3, 4, 5, 6, 7], 3, &mut v).unwrap();
        assert_eq!(v, [0b1000_1000, 0b1100_0110, 0b1111_1010]);
    }

    #[cfg(feature = "probes")]
    #[test]
    fn probes_kernel_and_tail() {
        crate::simd::for_each_level(|_| {
            use crate::probe;
            let bytes = [0xa5u8; 1024];
            // 100 u32 at width 5: three whole groups of 32 by the kernel, 4 by the scalar tail.
            probe::reset();
            unpack(&bytes, 5, &mut [0u32; 100]).unwrap();
            assert_eq!(probe::get("bitpack.unpack_kernel"), 96);
            assert_eq!(probe::get("bitpack.unpack_scalar"), 4);
            // 31 values: three groups of 8 by the 8-value kernel, 7 by the scalar tail.
            probe::reset();
            unpack(&bytes, 5, &mut [0u32; 31]).unwrap();
            assert_eq!(probe::get("bitpack.unpack_kernel"), 24);
            assert_eq!(probe::get("bitpack.unpack_scalar"), 7);
            // Fewer than 8 values: scalar only.
            probe::reset();
            unpack(&bytes, 5, &mut [0u32; 7]).unwrap();
            assert_eq!(probe::get("bitpack.unpack_kernel"), 0);
            assert_eq!(probe::get("bitpack.unpack_scalar"), 7);
            // u8 groups are 8 values; u64 groups 64.
            probe::reset();
            unpack(&bytes, 3, &mut [0u8; 16]).unwrap();
            unpack(&bytes, 33, &mut [0u64; 64]).unwrap();
            assert_eq!(probe::get("bitpack.unpack_kernel"), 80);
            assert_eq!(probe::get("bitpack.unpack_scalar"), 0);
            // At a level with AVX2 the kernels run in their AVX2 build, otherwise never.
            #[cfg(target_arch = "x86_64")]
            assert_eq!(
                probe::get("kernels.bitpack.avx2") > 0,
                crate::simd::level().has_avx2()
            );
            #[cfg(target_arch = "x86_64")]
            assert_eq!(
                probe::get("kernels.bitpack.scalar") > 0,
                !crate::simd::level().has_avx2()
            );
            #[cfg(target_arch = "aarch64")]
            assert_eq!(
                probe::get("kernels.bitpack.neon") > 0,
                crate::simd::level().has_neon()
            );
            // Packing mirrors it.
            probe::reset();
            pack(&[3u16; 43], 2, &mut Vec::new()).unwrap();
            assert_eq!(probe::get("bitpack.pack_kernel"), 40);
            assert_eq!(probe::get("bitpack.pack_scalar"), 3);
        });
    }

    proptest! {
        #[test]
        fn prop_roundtrip_u32(raw in proptest::collection::vec(any::<u64>(), 0..300), w in 0u32..=32) {
            roundtrip::<u32>(&raw, w);
        }
        #[test]
        fn prop_roundtrip_u64(raw in proptest::collection::vec(any::<u64>(), 0..300), w in 0u32..=64) {
            roundtrip::<u64>(&raw, w);
        }
        #[test]
        fn prop_roundtrip_small(raw in proptest::collection::vec(any::<u64>(), 0..300), w in 0u32..=8) {
            roundtrip::<u8>(&raw, w);
            roundtrip::<u16>(&raw, w);
        }
        #[test]
        fn prop_unpack_garbage(bytes in proptest::collection::vec(any::<u8>(), 0..200), w in 0u32..=64, n in 0usize..300) {
            let mut out = vec![0u64; n];
            match unpack(&bytes, w, &mut out) {
                Ok(()) => prop_assert_eq!(out, naive_unpack(&bytes, w, n)),
                Err(Error::Truncated { .. }) => prop_assert!(bytes.len() < (n * w as usize).div_ceil(8)),
                Err(e) => prop_assert!(false, "unexpected {e:?}"),
            }
        }
    }
}
