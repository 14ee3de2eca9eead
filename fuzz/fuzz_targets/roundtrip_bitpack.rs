//! `bitpack::pack` then `unpack`: values masked to the width come back, the packed length is
//! `ceil(n * width / 8)`, and the bytes hold the values in Parquet's bit order (oracle).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::bitpack::{self, BitPackable};
use parq_fuzz::{mask, naive_unpack};

#[derive(Arbitrary, Debug)]
struct Input {
    ty: u8,
    width: u8,
    /// Bytes already in the output buffer (pack appends).
    prefix: u8,
    values: Vec<u64>,
}

fn check<T: BitPackable + std::fmt::Debug>(raw: &[u64], width: u32, prefix: usize) {
    let values: Vec<T> = raw.iter().map(|&v| T::from_u64(v)).collect();
    let mut buf = vec![0xeeu8; prefix];
    let r = bitpack::pack(&values, width, &mut buf);
    if width > T::BITS {
        assert!(r.is_err());
        return;
    }
    r.unwrap();
    assert!(
        buf[..prefix].iter().all(|&b| b == 0xee),
        "prefix overwritten"
    );
    let packed = &buf[prefix..];
    let n = values.len();
    if width == 0 {
        assert!(packed.is_empty());
    } else {
        assert_eq!(
            packed.len(),
            (n * width as usize).div_ceil(8),
            "packed length"
        );
    }
    let expected: Vec<u64> = values.iter().map(|v| v.to_u64() & mask(width)).collect();
    assert_eq!(naive_unpack(packed, width, n), expected, "bit layout");
    // Padding bits of the last byte are zero.
    let used = n * width as usize;
    for b in used..packed.len() * 8 {
        assert!(!parq_fuzz::bit(packed, b), "padding bit {b} set");
    }
    let mut out = vec![T::default(); n];
    bitpack::unpack(packed, width, &mut out).unwrap();
    let got: Vec<u64> = out.iter().map(|v| v.to_u64()).collect();
    assert_eq!(got, expected, "round trip");
}

fuzz_target!(|input: Input| {
    let width = input.width as u32 % 66;
    let prefix = input.prefix as usize % 9;
    match input.ty % 4 {
        0 => check::<u8>(&input.values, width, prefix),
        1 => check::<u16>(&input.values, width, prefix),
        2 => check::<u32>(&input.values, width, prefix),
        _ => check::<u64>(&input.values, width, prefix),
    }
});
