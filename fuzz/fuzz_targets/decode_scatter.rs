//! Null scatter (`scatter_fixed` from values or raw bytes, `scatter_offsets`, `scatter_bytes`,
//! `scatter_bits`) with arbitrary bitmaps, offsets and counts, against a slot-at-a-time
//! construction: Ok exactly when the bitmap covers the range and its set bits match the dense
//! count; on error nothing appended.
#![no_main]

use arbitrary::Arbitrary;
use arrow_buffer::BooleanBufferBuilder;
use libfuzzer_sys::fuzz_target;
use parq_codecs::levels;
use parq_fuzz::{bit, bits_of};

#[derive(Arbitrary, Debug)]
struct Input {
    kind: u8,
    bit_offset: u16,
    len: u16,
    width: u8,
    /// Make the dense count match the bitmap (else take it from `dense_count`).
    matching: bool,
    dense_count: u16,
    base: i64,
    validity: Vec<u8>,
    lengths: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let validity = &input.validity[..];
    let bit_offset = input.bit_offset as usize % (validity.len() * 8 + 17);
    let len = input.len as usize;
    // An empty range reads no bit, so any offset is fine (e13a7c8).
    let covered = len == 0 || (bit_offset + len).div_ceil(8) <= validity.len();
    let set: Vec<bool> = (bit_offset..bit_offset + len)
        .map(|i| bit(validity, i))
        .collect();
    let popcount = set.iter().filter(|&&b| b).count();
    let n_dense = if input.matching && covered {
        popcount
    } else {
        input.dense_count as usize
    };
    let ok = covered && n_dense == popcount;
    match input.kind % 5 {
        0 | 1 => {
            let dense: Vec<u32> = (0..n_dense as u32)
                .map(|i| i.wrapping_mul(2_654_435_761) | 1)
                .collect();
            let mut out = vec![9u32; 3];
            let r = if input.kind % 5 == 0 {
                levels::scatter_fixed(&dense, validity, bit_offset, len, &mut out)
            } else {
                // From raw bytes at an arbitrary alignment, as a PLAIN page lies in memory.
                let shift = input.width as usize % 4;
                let mut raw = vec![0u8; shift];
                raw.extend(dense.iter().flat_map(|v| v.to_le_bytes()));
                let mut scratch = Vec::new();
                levels::scatter_fixed_from_bytes(
                    &raw[shift..],
                    validity,
                    bit_offset,
                    len,
                    &mut scratch,
                    &mut out,
                )
            };
            assert_eq!(r.is_ok(), ok, "scatter_fixed {r:?}");
            if !ok {
                assert_eq!(out, [9, 9, 9], "appended on error");
                return;
            }
            let mut d = dense.iter();
            let expected: Vec<u32> = set
                .iter()
                .map(|&b| if b { *d.next().unwrap() } else { 0 })
                .collect();
            assert_eq!(&out[3..], &expected[..]);
        }
        2 => {
            // Monotonic dense offsets from arbitrary lengths.
            let start = input.base >> 2;
            let mut dense_offsets = vec![start];
            for i in 0..n_dense {
                let l = input.lengths.get(i).copied().unwrap_or(i as u8 % 5) as i64;
                dense_offsets.push(dense_offsets[i] + l);
            }
            let end0 = (input.base >> 3).wrapping_add(11);
            let mut out = vec![end0];
            let r = levels::scatter_offsets(&dense_offsets, validity, bit_offset, len, &mut out);
            assert_eq!(r.is_ok(), ok, "scatter_offsets {r:?}");
            if !ok {
                assert_eq!(out, [end0], "appended on error");
                return;
            }
            assert_eq!(out.len(), 1 + len);
            let mut d = 0;
            for (i, &b) in set.iter().enumerate() {
                let l = out[i + 1].wrapping_sub(out[i]);
                if b {
                    assert_eq!(
                        l,
                        dense_offsets[d + 1] - dense_offsets[d],
                        "slot {i} length"
                    );
                    d += 1;
                } else {
                    assert_eq!(l, 0, "null slot {i} not empty");
                }
            }
        }
        4 => {
            // BOOLEAN: the dense values are bits (taken from `lengths`).
            let dense = &input.lengths[..];
            let ok = ok && n_dense.div_ceil(8) <= dense.len();
            let mut out = BooleanBufferBuilder::new(0);
            out.append_n(5, true);
            let r = levels::scatter_bits(dense, n_dense, validity, bit_offset, len, &mut out);
            assert_eq!(r.is_ok(), ok, "scatter_bits {r:?}");
            let got = bits_of(&mut out);
            if !ok {
                assert_eq!(got.len(), 5, "appended on error");
                return;
            }
            let mut d = 0;
            let mut expected = vec![true; 5];
            for &b in &set {
                if b {
                    expected.push(bit(dense, d));
                    d += 1;
                } else {
                    expected.push(false);
                }
            }
            assert_eq!(got, expected, "scatter_bits");
        }
        _ => {
            let width = input.width as usize % 17;
            let dense: Vec<u8> = (0..n_dense * width).map(|i| (i % 251) as u8 + 1).collect();
            // Zero-width values: only the bitmap range can be checked.
            let ok = if width == 0 { covered } else { ok };
            let mut out = vec![9u8; 3];
            let r = levels::scatter_bytes(&dense, width, validity, bit_offset, len, &mut out);
            assert_eq!(r.is_ok(), ok, "scatter_bytes {r:?}");
            if !ok {
                assert_eq!(out, [9, 9, 9], "appended on error");
                return;
            }
            let mut expected = vec![9u8; 3];
            let mut d = 0;
            for &b in &set {
                if b {
                    expected.extend_from_slice(&dense[d * width..(d + 1) * width]);
                    d += 1;
                } else {
                    expected.resize(expected.len() + width, 0);
                }
            }
            assert_eq!(out, expected);
        }
    }
});
