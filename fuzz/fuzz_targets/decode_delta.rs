//! The delta family: DELTA_BINARY_PACKED (i32 and i64, which must agree modulo 2^32),
//! DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (with a byte limit), checking counts against
//! `max_values`, consumed lengths against the input and the offsets layout of the output.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::delta;
use parq_fuzz::MAX_VALUES;

#[derive(Arbitrary, Debug)]
struct Input {
    kind: u8,
    max_values: u16,
    max_bytes: u32,
    /// Offsets already in the output (the decoders continue from the last one).
    base: Option<u16>,
    data: Vec<u8>,
}

fn check_offsets(offsets: &[i64], data: &[u8], base: Option<u16>, max_values: usize) {
    let b = base.map_or(0, |b| b as i64);
    assert_eq!(offsets[0], b);
    assert!(
        offsets.len() - 1 <= max_values,
        "more values than max_values"
    );
    assert!(
        offsets.windows(2).all(|w| w[0] <= w[1]),
        "offsets not monotonic"
    );
    assert_eq!(
        (*offsets.last().unwrap() - b) as usize,
        data.len(),
        "last offset"
    );
}

fuzz_target!(|input: Input| {
    let data = &input.data[..];
    let max_values = (input.max_values as usize).min(MAX_VALUES);
    match input.kind % 3 {
        0 => {
            let mut v32 = vec![5i32];
            let r32 = delta::decode_binary_packed_i32(data, max_values, &mut v32);
            let mut v64 = vec![5i64];
            let r64 = delta::decode_binary_packed_i64(data, max_values, &mut v64);
            if let Ok(used) = r32 {
                assert!(used <= data.len());
                assert!(v32.len() - 1 <= max_values, "more values than max_values");
                // Every width <= 32 is also valid for i64, and wrapping arithmetic commutes
                // with truncation.
                let used64 = *r64.as_ref().expect("i32 decoded but i64 failed");
                assert_eq!(used, used64, "consumed bytes differ");
                let t: Vec<i32> = v64.iter().map(|&v| v as i32).collect();
                assert_eq!(v32, t, "i32 and i64 values differ");
            }
            if let Ok(used) = r64 {
                assert!(used <= data.len());
                assert!(v64.len() - 1 <= max_values, "more values than max_values");
            }
        }
        1 => {
            let mut offsets = input.base.map(|b| vec![b as i64]).unwrap_or_default();
            let mut out = Vec::new();
            if let Ok(used) =
                delta::decode_length_byte_array(data, max_values, &mut offsets, &mut out)
            {
                assert!(used <= data.len());
                check_offsets(&offsets, &out, input.base, max_values);
            }
        }
        _ => {
            let max_bytes = input.max_bytes as usize % (4 << 20);
            let mut offsets = input.base.map(|b| vec![b as i64]).unwrap_or_default();
            let mut out = Vec::new();
            if let Ok(used) = delta::decode_byte_array_with_limit(
                data,
                max_values,
                max_bytes,
                &mut offsets,
                &mut out,
            ) {
                assert!(used <= data.len());
                assert!(out.len() <= max_bytes, "output over max_bytes");
                check_offsets(&offsets, &out, input.base, max_values);
            }
        }
    }
});
