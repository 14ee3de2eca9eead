//! BYTE_STREAM_SPLIT `encode` then `decode` for widths 1..=16; widths 0 and 17 for errors.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::byte_stream_split;

#[derive(Arbitrary, Debug)]
struct Input {
    width: u8,
    /// Keep a ragged tail (must be refused).
    ragged: bool,
    values: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let width = input.width as usize % 18;
    let mut values = input.values;
    if width > 0 && !input.ragged {
        values.truncate(values.len() / width * width);
    }
    let mut buf = vec![1u8];
    let r = byte_stream_split::encode(&values, width, &mut buf);
    let ok = width > 0 && values.len() % width == 0;
    assert_eq!(r.is_ok(), ok, "encode {r:?}");
    if !ok {
        return;
    }
    assert_eq!(buf.len(), 1 + values.len());
    let n = values.len() / width;
    // Stream k holds byte k of every value.
    for i in 0..n {
        for k in 0..width {
            assert_eq!(buf[1 + k * n + i], values[i * width + k]);
        }
    }
    let mut out = vec![2u8];
    byte_stream_split::decode(&buf[1..], width, n, &mut out).unwrap();
    assert_eq!(&out[1..], &values[..]);
});
