//! `RleDecoder`: an arbitrary sequence of `get_batch` (u8/u16/u32/u64), `skip` and `next_run`
//! over an arbitrary stream, each result checked against a naive reading of the whole stream
//! (`parq_fuzz::naive_rle`): same values, errors exactly where the stream is invalid, short
//! counts exactly at its end. Also `split_length_prefixed`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::bitpack::BitPackable;
use parq_codecs::encoding::rle::{self, RleDecoder, Run};
use parq_fuzz::{naive_rle, naive_unpack, Oracle, MAX_VALUES};

#[derive(Arbitrary, Debug)]
enum Op {
    Batch8(u16),
    Batch16(u16),
    Batch32(u16),
    Batch64(u16),
    Skip(u16),
    NextRun,
}

#[derive(Arbitrary, Debug)]
struct Input {
    width: u8,
    /// Parse a 4-byte length prefix first (v1 data page levels).
    prefixed: bool,
    ops: Vec<Op>,
    data: Vec<u8>,
}

/// What a request for `n` values at `pos` must give: `Some(k)` values, or `None` = error.
fn expect(o: &Oracle, pos: usize, n: usize) -> Option<usize> {
    let avail = o.values.len() - pos;
    if n <= avail {
        Some(n)
    } else if o.error {
        None
    } else {
        assert!(!o.capped, "harness read past the cap");
        Some(avail)
    }
}

/// Returns false when the decoder errored (its state is then unspecified: stop).
fn batch<T: BitPackable + std::fmt::Debug>(
    dec: &mut RleDecoder<'_>,
    o: &Oracle,
    pos: &mut usize,
    n: usize,
) -> bool {
    let mut out = vec![T::default(); n];
    let r = dec.get_batch(&mut out);
    if dec.bit_width() > T::BITS {
        assert!(
            r.is_err(),
            "width {} accepted into {} bits",
            dec.bit_width(),
            T::BITS
        );
        return true;
    }
    match (r, expect(o, *pos, n)) {
        (Ok(k), Some(e)) => {
            assert_eq!(k, e, "get_batch count at value {pos}");
            let got: Vec<u64> = out[..k].iter().map(|v| v.to_u64()).collect();
            assert_eq!(
                got,
                &o.values[*pos..*pos + k],
                "get_batch values at value {pos}"
            );
            *pos += k;
            true
        }
        (Err(_), None) => false,
        (r, e) => panic!("get_batch({n}) at value {pos}: got {r:?}, expected {e:?}"),
    }
}

fn check(data: &[u8], width: u32, ops: &[Op]) {
    let dec = RleDecoder::new(data, width);
    if width > rle::MAX_BIT_WIDTH {
        assert!(dec.is_err());
        return;
    }
    let mut dec = dec.unwrap();
    let o = naive_rle(data, width, MAX_VALUES);
    let mut pos = 0usize;
    let mut budget = MAX_VALUES;
    for op in ops {
        let ok = match *op {
            Op::Batch8(n) | Op::Batch16(n) | Op::Batch32(n) | Op::Batch64(n) => {
                let n = (n as usize).min(budget);
                budget -= n;
                match op {
                    Op::Batch8(_) => batch::<u8>(&mut dec, &o, &mut pos, n),
                    Op::Batch16(_) => batch::<u16>(&mut dec, &o, &mut pos, n),
                    Op::Batch32(_) => batch::<u32>(&mut dec, &o, &mut pos, n),
                    _ => batch::<u64>(&mut dec, &o, &mut pos, n),
                }
            }
            Op::Skip(n) => {
                let n = (n as usize).min(budget);
                budget -= n;
                match (dec.skip(n), expect(&o, pos, n)) {
                    (Ok(k), Some(e)) => {
                        assert_eq!(k, e, "skip count at value {pos}");
                        pos += k;
                        true
                    }
                    (Err(_), None) => false,
                    (r, e) => panic!("skip({n}) at value {pos}: got {r:?}, expected {e:?}"),
                }
            }
            Op::NextRun => {
                let run = o
                    .runs
                    .iter()
                    .find(|r| r.start <= pos && pos < r.start + r.len);
                let mid_group = run.is_some_and(|r| r.packed && (pos - r.start) % 8 != 0);
                if pos == o.values.len() && o.capped {
                    return;
                }
                match dec.next_run() {
                    Err(e) => {
                        assert!(
                            mid_group || (run.is_none() && o.error),
                            "next_run at value {pos}: unexpected {e:?}"
                        );
                        false
                    }
                    Ok(None) => {
                        assert!(
                            run.is_none() && !o.error,
                            "next_run at value {pos}: early None"
                        );
                        true
                    }
                    Ok(Some(got)) => {
                        assert!(!mid_group, "next_run inside a bit-packed group");
                        let run = run.expect("next_run past the end");
                        let rest = run.start + run.len - pos;
                        let len = match got {
                            Run::Repeated { value, len } => {
                                assert!(!run.packed, "repeated run where a packed one is");
                                assert_eq!(len, rest, "repeated run length");
                                assert_eq!(value, o.values[pos], "repeated value");
                                len
                            }
                            Run::Packed {
                                width: w,
                                bytes,
                                len,
                            } => {
                                assert!(run.packed, "packed run where a repeated one is");
                                assert_eq!(w, width);
                                assert_eq!(len, rest, "packed run length");
                                assert_eq!(len % 8, 0);
                                assert_eq!(bytes.len(), len / 8 * width as usize, "packed bytes");
                                let n = len.min(o.values.len() - pos);
                                assert_eq!(
                                    naive_unpack(bytes, width, n),
                                    &o.values[pos..pos + n],
                                    "packed run values"
                                );
                                len
                            }
                        };
                        if pos + len > o.values.len() {
                            // Past the oracle's cap.
                            return;
                        }
                        budget = budget.saturating_sub(len);
                        pos += len;
                        true
                    }
                }
            }
        };
        if !ok {
            return;
        }
    }
}

fuzz_target!(|input: Input| {
    let width = input.width as u32 % 66;
    let mut data = &input.data[..];
    if input.prefixed {
        let r = rle::split_length_prefixed(data);
        let ok_len = data
            .first_chunk::<4>()
            .map(|p| u32::from_le_bytes(*p) as usize)
            .filter(|&l| l <= data.len() - 4);
        match (r, ok_len) {
            (Ok((stream, used)), Some(l)) => {
                assert_eq!(used, 4 + l);
                assert_eq!(stream, &data[4..4 + l]);
                data = stream;
            }
            (Err(_), None) => return,
            (r, e) => panic!("split_length_prefixed: {r:?} vs expected {e:?}"),
        }
    }
    check(data, width, &input.ops);
});
