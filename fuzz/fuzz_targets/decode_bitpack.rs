//! `bitpack::unpack` for u8/u16/u32/u64 against a bit-at-a-time oracle.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::bitpack::{self, BitPackable};
use parq_fuzz::{naive_unpack, MAX_VALUES};

#[derive(Arbitrary, Debug)]
struct Input {
    /// Element type: u8, u16, u32, u64.
    ty: u8,
    /// Bit width; values above the type's width must be refused.
    width: u8,
    count: u16,
    /// Start of the packed bytes inside `data` (misaligns the input).
    skip: u8,
    data: Vec<u8>,
}

fn check<T: BitPackable + std::fmt::Debug>(input: &[u8], width: u32, n: usize) {
    let mut out = vec![T::default(); n];
    let r = bitpack::unpack(input, width, &mut out);
    if width > T::BITS {
        assert!(r.is_err(), "width {width} accepted for {} bits", T::BITS);
        return;
    }
    let needed = (n * width as usize).div_ceil(8);
    if input.len() < needed {
        assert!(r.is_err(), "truncated input accepted");
        return;
    }
    r.unwrap();
    let expected = naive_unpack(input, width, n);
    let got: Vec<u64> = out.iter().map(|v| v.to_u64()).collect();
    assert_eq!(got, expected, "width {width}, n {n}, T {} bits", T::BITS);
}

fuzz_target!(|input: Input| {
    let width = input.width as u32 % 66;
    let n = input.count as usize % (MAX_VALUES + 1);
    let skip = (input.skip as usize % 8).min(input.data.len());
    let data = &input.data[skip..];
    match input.ty % 4 {
        0 => check::<u8>(data, width, n),
        1 => check::<u16>(data, width, n),
        2 => check::<u32>(data, width, n),
        _ => check::<u64>(data, width, n),
    }
});
