//! PLAIN decoders: `decode_fixed` / `decode_fixed_into` (i32, i64, f32, f64, borrowed and
//! copied paths via a misaligned start), `decode_boolean`, `decode_fixed_bytes`, and the three
//! BYTE_ARRAY forms (`byte_arrays`, `decode_byte_array_offsets`, `decode_byte_array_views`),
//! which must agree with each other and with the input bytes.
#![no_main]

use arbitrary::Arbitrary;
use arrow_buffer::BooleanBufferBuilder;
use bytemuck::Pod;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::plain;
use parq_fuzz::{bit, bits_of, MAX_VALUES};

#[derive(Arbitrary, Debug)]
struct Input {
    kind: u8,
    n: u16,
    /// Start inside `data` (0..8): exercises the borrowed (aligned) and copied paths.
    shift: u8,
    bit_offset: u8,
    width: u8,
    data: Vec<u8>,
}

fn fixed<T: Pod>(input: &[u8], n: usize) {
    let size = std::mem::size_of::<T>();
    let ok = n * size <= input.len();
    let r = plain::decode_fixed::<T>(input, n);
    assert_eq!(r.is_ok(), ok, "decode_fixed");
    let mut out: Vec<T> = vec![T::zeroed(); 2];
    let r2 = plain::decode_fixed_into::<T>(input, n, &mut out);
    assert_eq!(r2.is_ok(), ok, "decode_fixed_into");
    if ok {
        let v = r.unwrap();
        assert_eq!(v.len(), n);
        assert_eq!(bytemuck::cast_slice::<T, u8>(&v), &input[..n * size]);
        assert_eq!(r2.unwrap(), n * size);
        assert_eq!(out.len(), 2 + n);
        assert_eq!(bytemuck::cast_slice::<T, u8>(&out[2..]), &input[..n * size]);
    } else {
        assert_eq!(out.len(), 2, "decode_fixed_into appended on error");
    }
}

fuzz_target!(|input: Input| {
    let shift = (input.shift as usize % 8).min(input.data.len());
    let data = &input.data[shift..];
    let n = (input.n as usize).min(MAX_VALUES);
    match input.kind % 8 {
        0 => fixed::<i32>(data, n),
        1 => fixed::<i64>(data, n),
        2 => fixed::<f32>(data, n),
        3 => fixed::<f64>(data, n),
        4 => {
            let bo = input.bit_offset as usize;
            let mut b = BooleanBufferBuilder::new(0);
            b.append(true);
            let r = plain::decode_boolean(data, bo, n, &mut b);
            let need = (bo + n).div_ceil(8);
            assert_eq!(r.is_ok(), need <= data.len(), "decode_boolean {r:?}");
            if let Ok(used) = r {
                assert_eq!(used, need);
                let bits = bits_of(&mut b);
                assert_eq!(bits.len(), 1 + n);
                for i in 0..n {
                    assert_eq!(bits[1 + i], bit(data, bo + i), "bit {i}");
                }
            }
        }
        5 => {
            let width = input.width as usize;
            let r = plain::decode_fixed_bytes(data, width, n);
            let ok = n * width <= data.len();
            assert_eq!(r.is_ok(), ok);
            if let Ok(b) = r {
                assert_eq!(b, &data[..n * width]);
            }
        }
        _ => {
            // Reference: the iterator, checked by hand against the bytes.
            let mut values = Vec::new();
            let mut pos = 0;
            let mut failed = false;
            let mut it = plain::byte_arrays(data, n);
            for v in it.by_ref() {
                match v {
                    Ok(v) => {
                        let l = u32::from_le_bytes(data[pos..pos + 4].try_into().unwrap()) as usize;
                        assert_eq!(v, &data[pos + 4..pos + 4 + l]);
                        pos += 4 + l;
                        values.push(v);
                    }
                    Err(_) => {
                        let rest = &data[pos..];
                        let complete = rest.len() >= 4
                            && rest.len() - 4
                                >= u32::from_le_bytes(rest[..4].try_into().unwrap()) as usize;
                        assert!(!complete, "byte_arrays failed on a complete value at {pos}");
                        failed = true;
                    }
                }
            }
            assert_eq!(it.position(), pos);
            assert!(failed || values.len() == n, "iterator stopped early");
            if input.kind % 8 == 6 {
                let mut offsets = Vec::<i64>::new();
                let mut out = Vec::new();
                let r = plain::decode_byte_array_offsets(data, n, &mut offsets, &mut out);
                assert_eq!(r.is_ok(), !failed, "decode_byte_array_offsets {r:?}");
                if let Ok(used) = r {
                    assert_eq!(used, pos);
                    assert_eq!(offsets.len(), n + 1);
                    for (i, v) in values.iter().enumerate() {
                        assert_eq!(&out[offsets[i] as usize..offsets[i + 1] as usize], *v);
                    }
                    assert_eq!(*offsets.last().unwrap() as usize, out.len());
                }
            } else {
                let mut views = vec![0u128];
                let r = plain::decode_byte_array_views(data, n, 3, &mut views);
                assert_eq!(r.is_ok(), !failed, "decode_byte_array_views {r:?}");
                if let Ok(used) = r {
                    assert_eq!(used, pos);
                    assert_eq!(views.len(), n + 1);
                    for (i, v) in values.iter().enumerate() {
                        let view = views[i + 1];
                        let len = view as u32 as usize;
                        assert_eq!(len, v.len(), "view {i} length");
                        let b = view.to_le_bytes();
                        if len <= 12 {
                            assert_eq!(&b[4..4 + len], *v, "inline view {i}");
                            assert!(b[4 + len..].iter().all(|&x| x == 0), "inline padding");
                        } else {
                            assert_eq!(&b[4..8], &v[..4], "view {i} prefix");
                            assert_eq!(u32::from_le_bytes(b[8..12].try_into().unwrap()), 3);
                            let off = u32::from_le_bytes(b[12..16].try_into().unwrap()) as usize;
                            assert_eq!(&data[off..off + len], *v, "view {i} target");
                        }
                    }
                }
            }
        }
    }
});
