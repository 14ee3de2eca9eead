//! Delta encoders then decoders: DELTA_BINARY_PACKED i32/i64 (extremes and wrapping deltas),
//! DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY; the values come back and the whole encoding
//! is consumed.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::delta;

#[derive(Arbitrary, Debug)]
enum Input {
    I32(Vec<i32>),
    I64(Vec<i64>),
    LengthByteArray(Vec<Vec<u8>>),
    ByteArray(Vec<Vec<u8>>),
    /// Byte arrays sharing prefixes: (prefix length of the previous value, suffix).
    SharedPrefixes(Vec<(u8, Vec<u8>)>),
}

fn byte_arrays(values: &[Vec<u8>], front: bool) {
    let mut buf = Vec::new();
    let it = values.iter().map(|v| &v[..]);
    if front {
        delta::encode_byte_array(it, &mut buf);
    } else {
        delta::encode_length_byte_array(it, &mut buf);
    }
    let mut offsets = Vec::<i64>::new();
    let mut data = Vec::new();
    let used = if front {
        delta::decode_byte_array(&buf, values.len(), &mut offsets, &mut data)
    } else {
        delta::decode_length_byte_array(&buf, values.len(), &mut offsets, &mut data)
    }
    .unwrap();
    assert_eq!(used, buf.len(), "consumed");
    assert_eq!(offsets.len(), values.len() + 1);
    for (i, v) in values.iter().enumerate() {
        assert_eq!(
            &data[offsets[i] as usize..offsets[i + 1] as usize],
            &v[..],
            "value {i}"
        );
    }
}

fuzz_target!(|input: Input| match input {
    Input::I32(values) => {
        let mut buf = Vec::new();
        delta::encode_binary_packed_i32(&values, &mut buf);
        let mut out = Vec::new();
        let used = delta::decode_binary_packed_i32(&buf, values.len(), &mut out).unwrap();
        assert_eq!(used, buf.len());
        assert_eq!(out, values);
    }
    Input::I64(values) => {
        let mut buf = Vec::new();
        delta::encode_binary_packed_i64(&values, &mut buf);
        let mut out = Vec::new();
        let used = delta::decode_binary_packed_i64(&buf, values.len(), &mut out).unwrap();
        assert_eq!(used, buf.len());
        assert_eq!(out, values);
    }
    Input::LengthByteArray(values) => byte_arrays(&values, false),
    Input::ByteArray(values) => byte_arrays(&values, true),
    Input::SharedPrefixes(parts) => {
        let mut values: Vec<Vec<u8>> = Vec::new();
        for (p, s) in parts {
            let prev = values.last().map(|v| &v[..]).unwrap_or(&[]);
            let mut v = prev[..(p as usize).min(prev.len())].to_vec();
            v.extend_from_slice(&s);
            values.push(v);
        }
        byte_arrays(&values, true);
    }
});
