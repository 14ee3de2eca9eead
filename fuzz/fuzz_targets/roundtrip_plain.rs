//! PLAIN encoders then decoders: fixed width (i64/f64 bit patterns), booleans (`encode_bools`
//! and `encode_boolean` from a sliced `BooleanBuffer` must agree), and byte arrays through
//! both the offsets and the views decoders.
#![no_main]

use arbitrary::Arbitrary;
use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::plain;
use parq_fuzz::bits_of;

#[derive(Arbitrary, Debug)]
enum Input {
    I64(Vec<i64>),
    F64(Vec<u64>),
    /// Bits, and a slice offset into them (BooleanBuffer at a bit offset).
    Bool(Vec<bool>, u8),
    Bytes(Vec<Vec<u8>>),
}

fuzz_target!(|input: Input| match input {
    Input::I64(values) => {
        let mut buf = vec![0u8];
        plain::encode_fixed(&values, &mut buf);
        assert_eq!(
            &*plain::decode_fixed::<i64>(&buf[1..], values.len()).unwrap(),
            &values[..]
        );
    }
    Input::F64(bits) => {
        let values: Vec<f64> = bits.iter().map(|&b| f64::from_bits(b)).collect();
        let mut buf = Vec::new();
        plain::encode_fixed(&values, &mut buf);
        let got = plain::decode_fixed::<f64>(&buf, values.len()).unwrap();
        let got: Vec<u64> = got.iter().map(|v| v.to_bits()).collect();
        assert_eq!(got, bits);
    }
    Input::Bool(bools, off) => {
        let off = (off as usize).min(bools.len());
        let full = BooleanBuffer::from(bools.clone());
        let sliced = full.slice(off, bools.len() - off);
        let want = &bools[off..];
        let mut a = vec![3u8];
        plain::encode_boolean(&sliced, &mut a);
        let mut b = vec![3u8];
        plain::encode_bools(want.iter().copied(), &mut b);
        assert_eq!(a, b, "encode_boolean vs encode_bools");
        assert_eq!(a.len(), 1 + want.len().div_ceil(8));
        let mut out = BooleanBufferBuilder::new(0);
        let used = plain::decode_boolean(&a[1..], 0, want.len(), &mut out).unwrap();
        assert_eq!(used, want.len().div_ceil(8));
        assert_eq!(bits_of(&mut out), want);
    }
    Input::Bytes(values) => {
        let mut buf = Vec::new();
        plain::encode_byte_arrays(values.iter().map(|v| &v[..]), &mut buf);
        let mut offsets = Vec::<i64>::new();
        let mut data = Vec::new();
        let used =
            plain::decode_byte_array_offsets(&buf, values.len(), &mut offsets, &mut data).unwrap();
        assert_eq!(used, buf.len());
        let mut views = Vec::new();
        assert_eq!(
            plain::decode_byte_array_views(&buf, values.len(), 0, &mut views).unwrap(),
            buf.len()
        );
        assert_eq!(views.len(), values.len());
        for (i, v) in values.iter().enumerate() {
            assert_eq!(&data[offsets[i] as usize..offsets[i + 1] as usize], &v[..]);
            assert_eq!(views[i] as u32 as usize, v.len());
        }
    }
});
