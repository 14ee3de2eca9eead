//! Shared code of the fuzz targets: caps, naive oracles (a branch per bit, no kernels) and the
//! compression harness used by every `decompress_<codec>` target.
//!
//! The oracles are deliberately simple so that a disagreement points at the fast code.

use arrow_buffer::BooleanBufferBuilder;
use parq_codecs::compression::{CodecKind, Decompressor, Limits};

/// Largest value count a harness asks a decoder for, so that a legitimate huge count (a
/// repeated run of 2^60 values is valid) does not OOM the fuzzer.
pub const MAX_VALUES: usize = 1 << 16;

/// Largest decompressed size the compression harness accepts.
pub const MAX_UNCOMPRESSED: usize = 1 << 20;

/// Bit `i` of an LSB-first bitmap (false past the end).
pub fn bit(bytes: &[u8], i: usize) -> bool {
    bytes.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 == 1)
}

/// Value `i` of a bit-packed buffer of `width`-bit values, one bit at a time.
pub fn naive_get(bytes: &[u8], width: u32, i: usize) -> u64 {
    let mut v = 0u64;
    for b in 0..width as usize {
        if bit(bytes, i * width as usize + b) {
            v |= 1 << b;
        }
    }
    v
}

/// `n` values of `width` bits, one bit at a time.
pub fn naive_unpack(bytes: &[u8], width: u32, n: usize) -> Vec<u64> {
    (0..n).map(|i| naive_get(bytes, width, i)).collect()
}

/// `width`-bit mask.
pub fn mask(width: u32) -> u64 {
    if width >= 64 {
        u64::MAX
    } else {
        (1u64 << width) - 1
    }
}

/// One run as the oracle saw it.
#[derive(Debug, Clone, Copy)]
pub struct OracleRun {
    /// Index of the run's first value.
    pub start: usize,
    /// Values in the run (not capped).
    pub len: usize,
    /// Bit-packed (else repeated).
    pub packed: bool,
}

/// What a naive reading of an RLE/bit-packed hybrid stream gives.
#[derive(Debug, Default)]
pub struct Oracle {
    /// The values, at most `cap`.
    pub values: Vec<u64>,
    /// The non-empty runs in order.
    pub runs: Vec<OracleRun>,
    /// The stream is invalid right after `values` (only meaningful when not `capped`).
    pub error: bool,
    /// Stopped at `cap` values.
    pub capped: bool,
}

fn naive_uleb(data: &[u8], pos: usize) -> Option<(u64, usize)> {
    let mut v = 0u64;
    for i in 0..10 {
        let b = *data.get(pos + i)?;
        if i == 9 && b > 1 {
            return None;
        }
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return Some((v, i + 1));
        }
    }
    None
}

/// Read a hybrid stream (no length prefix) of `width`-bit values naively, up to `cap` values.
/// Its rules are the spec's plus the decoder's documented strictness: a bit-packed run must be
/// complete, a repeated value must fit the width.
pub fn naive_rle(data: &[u8], width: u32, cap: usize) -> Oracle {
    let mut o = Oracle::default();
    let mut pos = 0;
    while pos < data.len() {
        let Some((header, n)) = naive_uleb(data, pos) else {
            o.error = true;
            return o;
        };
        let body = pos + n;
        let count = (header >> 1) as usize;
        if header & 1 == 1 {
            let (Some(len), Some(nbytes)) =
                (count.checked_mul(8), count.checked_mul(width as usize))
            else {
                o.error = true;
                return o;
            };
            if nbytes > data.len() - body {
                o.error = true;
                return o;
            }
            let bytes = &data[body..body + nbytes];
            pos = body + nbytes;
            if len == 0 {
                continue;
            }
            o.runs.push(OracleRun {
                start: o.values.len(),
                len,
                packed: true,
            });
            for i in 0..len {
                if o.values.len() == cap {
                    o.capped = true;
                    return o;
                }
                o.values.push(naive_get(bytes, width, i));
            }
        } else {
            let vb = width.div_ceil(8) as usize;
            let Some(raw) = data.get(body..body + vb) else {
                // An empty repeated run cut off before its value ends the stream (writers
                // emit a lone 0x00 for pages without values); any other cut-off run is bad.
                o.error = count != 0;
                return o;
            };
            let mut value = 0u64;
            for (i, &b) in raw.iter().enumerate() {
                value |= (b as u64) << (8 * i);
            }
            if value & !mask(width) != 0 {
                o.error = true;
                return o;
            }
            pos = body + vb;
            if count == 0 {
                continue;
            }
            o.runs.push(OracleRun {
                start: o.values.len(),
                len: count,
                packed: false,
            });
            let take = count.min(cap - o.values.len());
            o.values.resize(o.values.len() + take, value);
            if o.values.len() == cap {
                o.capped = true;
                return o;
            }
        }
    }
    o
}

/// The bits of a builder, as bools.
pub fn bits_of(b: &mut BooleanBufferBuilder) -> Vec<bool> {
    b.finish().iter().collect()
}

/// The kind with thrift number `v % 8`.
pub fn kind_of(v: u8) -> CodecKind {
    CodecKind::ALL[v as usize % CodecKind::ALL.len()]
}

/// Harness shared by the `decompress_<codec>` targets: the first 4 bytes are the declared
/// uncompressed size (little endian, reduced to `0..=MAX_UNCOMPRESSED + 1` so that the limit
/// itself is exercised), the rest is the compressed page.
///
/// Checks: no panic; `decompress` appends exactly the declared size or leaves `out` as it was;
/// `decompress_to_slice` agrees with it.
pub fn fuzz_decompress(kind: CodecKind, data: &[u8]) {
    let Some((head, input)) = data.split_first_chunk::<4>() else {
        return;
    };
    let declared = u32::from_le_bytes(*head) as usize % (MAX_UNCOMPRESSED + 2);
    let limits = Limits::default().with_max_uncompressed_size(MAX_UNCOMPRESSED);
    let mut d = Decompressor::new(limits);
    let prefix = [0xa5u8; 3];
    let mut out = prefix.to_vec();
    let r = d.decompress(kind, input, declared, &mut out);
    match &r {
        Ok(()) => {
            assert_eq!(
                out.len(),
                prefix.len() + declared,
                "{kind}: wrong output size"
            );
            assert_eq!(&out[..3], &prefix, "{kind}: prefix overwritten");
        }
        Err(_) => assert_eq!(out, prefix, "{kind}: out changed on error"),
    }
    if declared > MAX_UNCOMPRESSED {
        assert!(r.is_err(), "{kind}: limit not enforced");
        return;
    }
    // Same decompressor again (reused codec state), into a caller-sized slice.
    let mut slice = vec![0x5au8; declared];
    let r2 = d.decompress_to_slice(kind, input, &mut slice);
    assert_eq!(
        r.is_ok(),
        r2.is_ok(),
        "{kind}: decompress {r:?} vs decompress_to_slice {r2:?}"
    );
    if r2.is_ok() {
        assert_eq!(&out[3..], &slice[..], "{kind}: outputs differ");
    }
}

/// The naive record-assembly oracle and level generator (shared with tests/it/nested_assembly.rs).
#[path = "../../tests/it/support_nested/oracle.rs"]
pub mod nested_oracle;
