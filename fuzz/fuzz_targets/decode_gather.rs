//! `kernels::gather::ByteArrayDictionary` (unsafe 16-byte block copies): `new` accepts exactly
//! the valid offsets (first 0, monotonic, last = data length), and `gather` appends
//! `dict[i]` for each index, or errs appending nothing on an index out of range.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::kernels::gather::ByteArrayDictionary;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Build valid offsets from `lengths` (else use `raw_offsets` as they are).
    valid: bool,
    lengths: Vec<u8>,
    raw_offsets: Vec<i64>,
    data: Vec<u8>,
    indices: Vec<u16>,
    /// Output already holding some values (offsets continue from its end).
    prefix: Vec<u8>,
    start_empty: bool,
}

fuzz_target!(|input: Input| {
    let (offsets, data) = if input.valid {
        let mut offsets = vec![0i64];
        let mut data = Vec::new();
        for (k, &l) in input.lengths.iter().enumerate() {
            data.extend((0..l).map(|j| (k as u8).wrapping_mul(31).wrapping_add(j)));
            offsets.push(data.len() as i64);
        }
        (offsets, data)
    } else {
        (input.raw_offsets.clone(), input.data.clone())
    };
    let ok = offsets.first() == Some(&0)
        && offsets.last() == Some(&(data.len() as i64))
        && offsets.windows(2).all(|w| w[0] <= w[1]);
    let r = ByteArrayDictionary::new(offsets.clone(), data.clone());
    assert_eq!(r.is_ok(), ok, "ByteArrayDictionary::new");
    let Ok(dict) = r else { return };
    let n = offsets.len() - 1;
    assert_eq!(dict.len(), n);
    let entry = |i: usize| &data[offsets[i] as usize..offsets[i + 1] as usize];
    for i in 0..n {
        assert_eq!(dict.get(i), Some(entry(i)));
    }
    assert_eq!(dict.get(n), None);

    let indices: Vec<u32> = input.indices.iter().map(|&i| i as u32).collect();
    let mut out_offsets = if input.start_empty {
        Vec::new()
    } else {
        vec![input.prefix.len() as i64]
    };
    let mut out = input.prefix.clone();
    let r = dict.gather(&indices, &mut out_offsets, &mut out);
    let in_range = indices.iter().all(|&i| (i as usize) < n);
    assert_eq!(r.is_ok(), in_range, "gather {r:?}");
    if !in_range {
        assert_eq!(out, input.prefix, "data appended on error");
        return;
    }
    assert_eq!(out_offsets.len(), 1 + indices.len());
    assert_eq!(out_offsets[0], input.prefix.len() as i64);
    assert_eq!(&out[..input.prefix.len()], &input.prefix[..]);
    for (k, &i) in indices.iter().enumerate() {
        let (s, e) = (out_offsets[k] as usize, out_offsets[k + 1] as usize);
        assert_eq!(&out[s..e], entry(i as usize), "value {k}");
    }
    assert_eq!(*out_offsets.last().unwrap() as usize, out.len());
});
