//! RLE/bit-packed hybrid encoders (`rle::encode`, `RleEncoder::put` / `put_n`) then the
//! decoder: values come back (plus at most 7 zero padding values), the encoders agree byte
//! for byte, and the length stays within `max_encoded_len`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::rle::{self, RleDecoder, RleEncoder};
use parq_fuzz::{mask, naive_rle, MAX_VALUES};

#[derive(Arbitrary, Debug)]
struct Input {
    width: u8,
    /// (value, repeat count - 1): long runs come from the counts.
    runs: Vec<(u64, u8)>,
    /// Scale the repeat counts by 16 (crosses the 8-value repeated-run threshold and group
    /// boundaries in bulk).
    long: bool,
}

fuzz_target!(|input: Input| {
    let width = input.width as u32 % 65;
    let m = mask(width);
    let mut runs: Vec<(u64, usize)> = Vec::new();
    let mut total = 0;
    for &(v, r) in &input.runs {
        let n = (r as usize + 1) * if input.long { 16 } else { 1 };
        if total + n > MAX_VALUES {
            break;
        }
        total += n;
        runs.push((v & m, n));
    }
    let values: Vec<u64> = runs
        .iter()
        .flat_map(|&(v, n)| std::iter::repeat_n(v, n))
        .collect();

    let mut a = Vec::new();
    rle::encode(&values, width, &mut a);
    let mut e = RleEncoder::new(width);
    for &v in &values {
        e.put(v);
    }
    let b = e.finish();
    let mut e = RleEncoder::new(width);
    for &(v, n) in &runs {
        e.put_n(v, n);
    }
    let mut c = vec![0xaa];
    e.finish_into(&mut c);
    assert_eq!(a, b, "encode vs put");
    assert_eq!(&a[..], &c[1..], "encode vs put_n");
    assert!(
        a.len() <= rle::max_encoded_len(values.len(), width),
        "{} bytes over max_encoded_len {}",
        a.len(),
        rle::max_encoded_len(values.len(), width)
    );

    let mut dec = RleDecoder::new(&a, width).unwrap();
    let mut out = vec![0u64; values.len() + 8];
    let k = dec.get_batch(&mut out).unwrap();
    assert!(
        k >= values.len() && k < values.len() + 8,
        "decoded {k} of {}",
        values.len()
    );
    assert_eq!(&out[..values.len()], &values[..], "round trip");
    assert!(
        out[values.len()..k].iter().all(|&v| v == 0),
        "padding not zero"
    );
    assert_eq!(dec.position(), a.len());
    // The naive reader agrees (the stream is well formed).
    let o = naive_rle(&a, width, MAX_VALUES + 8);
    assert!(!o.error, "naive reader rejects the encoding");
    assert_eq!(&o.values[..values.len()], &values[..]);
});
