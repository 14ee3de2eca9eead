//! Levels: `def_levels_to_bitmap` against `levels::naive::def_levels_to_bitmap_via_i16` and
//! the naive hybrid reader, and `decode_levels` (widths 0..=17) against the naive reader.
#![no_main]

use arbitrary::Arbitrary;
use arrow_buffer::BooleanBufferBuilder;
use libfuzzer_sys::fuzz_target;
use parq_codecs::levels;
use parq_fuzz::{bits_of, naive_rle, MAX_VALUES};

#[derive(Arbitrary, Debug)]
struct Input {
    bitmap: bool,
    width: u8,
    num_levels: u16,
    /// Bits already in the bitmap / levels already in the output.
    prefix: u8,
    data: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let data = &input.data[..];
    let n = (input.num_levels as usize).min(MAX_VALUES);
    let prefix = input.prefix as usize % 11;
    if input.bitmap {
        let o = naive_rle(data, 1, MAX_VALUES);
        let ok = n <= o.values.len();
        let mut b1 = BooleanBufferBuilder::new(0);
        b1.append_n(prefix, true);
        let mut b2 = BooleanBufferBuilder::new(0);
        b2.append_n(prefix, true);
        let r1 = levels::def_levels_to_bitmap(data, n, &mut b1);
        let r2 = levels::naive::def_levels_to_bitmap_via_i16(data, n, &mut b2);
        assert_eq!(
            r1.is_ok(),
            ok,
            "def_levels_to_bitmap {r1:?}, n {n}, oracle {o:?}"
        );
        assert_eq!(r2.is_ok(), ok, "naive {r2:?}");
        if ok {
            let valid = o.values[..n].iter().filter(|&&v| v == 1).count();
            assert_eq!(r1.unwrap(), valid, "valid count");
            assert_eq!(r2.unwrap(), valid, "naive valid count");
            let bits = bits_of(&mut b1);
            assert_eq!(bits.len(), prefix + n);
            assert!(bits[..prefix].iter().all(|&b| b));
            let expected: Vec<bool> = o.values[..n].iter().map(|&v| v == 1).collect();
            assert_eq!(&bits[prefix..], &expected[..], "bitmap");
            assert_eq!(bits, bits_of(&mut b2), "naive bitmap");
        }
    } else {
        let width = input.width as u32 % 18;
        let mut out = vec![-3i16; prefix];
        let r = levels::decode_levels(data, width, n, &mut out);
        if width > levels::MAX_LEVEL_BIT_WIDTH {
            assert!(r.is_err());
            return;
        }
        let o = naive_rle(data, width, MAX_VALUES);
        let ok = n <= o.values.len() && o.values[..n].iter().all(|&v| v <= i16::MAX as u64);
        assert_eq!(
            r.is_ok(),
            ok,
            "decode_levels {r:?}, width {width}, n {n}, oracle {o:?}"
        );
        if ok {
            assert_eq!(out.len(), prefix + n);
            assert!(out[..prefix].iter().all(|&v| v == -3));
            let got: Vec<u64> = out[prefix..].iter().map(|&v| v as u64).collect();
            assert_eq!(got, &o.values[..n], "levels");
        }
    }
});
