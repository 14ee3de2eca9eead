//! BYTE_STREAM_SPLIT `decode` with widths 0..=17 (4 and 8 take the const kernels) against a
//! byte-at-a-time oracle.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::byte_stream_split;
use parq_fuzz::MAX_VALUES;

#[derive(Arbitrary, Debug)]
struct Input {
    width: u8,
    n: u16,
    prefix: u8,
    data: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let width = input.width as usize % 18;
    let n = (input.n as usize).min(MAX_VALUES);
    let data = &input.data[..];
    let prefix = input.prefix as usize % 5;
    let mut out = vec![0xcdu8; prefix];
    let r = byte_stream_split::decode(data, width, n, &mut out);
    let ok = width > 0 && n * width <= data.len();
    assert_eq!(r.is_ok(), ok, "decode {r:?}");
    if !ok {
        assert_eq!(out.len(), prefix, "appended on error");
        return;
    }
    assert_eq!(out.len(), prefix + n * width);
    for i in 0..n {
        for k in 0..width {
            assert_eq!(
                out[prefix + i * width + k],
                data[k * n + i],
                "value {i} byte {k}"
            );
        }
    }
});
