//! `dictionary_index_decoder` + `gather_dictionary` / `dictionary_indices` against the naive
//! hybrid reader: Ok exactly when the first `n` indices exist and are in range, and then the
//! gathered values are `dict[index]`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::rle;
use parq_fuzz::{naive_rle, MAX_VALUES};

#[derive(Arbitrary, Debug)]
struct Input {
    dict_len: u16,
    n: u16,
    /// Gather u64 values (else u8 values, or indices only).
    mode: u8,
    /// Values already in the output (gather appends).
    prefix: u8,
    data: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let data = &input.data[..];
    let dec = rle::dictionary_index_decoder(data);
    let Some((&w, stream)) = data.split_first() else {
        assert!(dec.is_err());
        return;
    };
    if w as u32 > rle::MAX_DICTIONARY_BIT_WIDTH {
        assert!(dec.is_err(), "index width {w} accepted");
        return;
    }
    let mut dec = dec.unwrap();
    let n = (input.n as usize).min(MAX_VALUES);
    let dict_len = input.dict_len as usize;
    let o = naive_rle(stream, w as u32, MAX_VALUES);
    let ok = n <= o.values.len() && o.values[..n].iter().all(|&i| i < dict_len as u64);
    let prefix = input.prefix as usize % 4;
    match input.mode % 3 {
        0 => {
            let dict: Vec<u64> = (0..dict_len as u64)
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            let mut out = vec![7u64; prefix];
            let r = rle::gather_dictionary(&mut dec, &dict, n, &mut out);
            assert_eq!(
                r.is_ok(),
                ok,
                "gather_dictionary: {r:?}, n {n}, oracle {o:?}"
            );
            if ok {
                assert_eq!(out.len(), prefix + n);
                assert!(out[..prefix].iter().all(|&v| v == 7));
                for (i, &v) in out[prefix..].iter().enumerate() {
                    assert_eq!(v, dict[o.values[i] as usize], "value {i}");
                }
            }
        }
        1 => {
            let dict: Vec<u8> = (0..dict_len).map(|i| i as u8).collect();
            let mut out = vec![7u8; prefix];
            let r = rle::gather_dictionary(&mut dec, &dict, n, &mut out);
            assert_eq!(r.is_ok(), ok, "gather_dictionary u8: {r:?}");
            if ok {
                let expected: Vec<u8> = o.values[..n].iter().map(|&i| i as u8).collect();
                assert_eq!(&out[prefix..], &expected[..]);
            }
        }
        _ => {
            let mut out = vec![7u32; prefix];
            let r = rle::dictionary_indices(&mut dec, dict_len, n, &mut out);
            assert_eq!(r.is_ok(), ok, "dictionary_indices: {r:?}");
            if ok {
                let expected: Vec<u32> = o.values[..n].iter().map(|&i| i as u32).collect();
                assert_eq!(&out[prefix..], &expected[..]);
            }
        }
    }
});
