//! Definition levels of a flat optional column (max level 1), written straight from the Arrow
//! validity bitmap.
//!
//! A bit-packed run of 1-bit levels *is* the bitmap's bits (both LSB first, `rle-bitpacked.md`),
//! so the hybrid stream is built 64 slots at a time: a word of all-valid or all-null slots
//! joins a repeated run, any other word is copied as 8 bytes of a bit-packed run. No per-slot
//! branch, and the levels cost about one bit per slot whatever the null pattern.

use arrow_buffer::BooleanBuffer;

fn write_uleb(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Builds the hybrid stream: pending literal bytes (whole groups of 8 levels) or a pending
/// repeated run, never both.
struct Levels<'a> {
    out: &'a mut Vec<u8>,
    literal: Vec<u8>,
    run_value: bool,
    run_len: u64,
}

impl Levels<'_> {
    fn flush_literal(&mut self) {
        if !self.literal.is_empty() {
            write_uleb(((self.literal.len() as u64) << 1) | 1, self.out);
            self.out.extend_from_slice(&self.literal);
            self.literal.clear();
        }
    }

    fn flush_run(&mut self) {
        if self.run_len > 0 {
            write_uleb(self.run_len << 1, self.out);
            self.out.push(self.run_value as u8);
            self.run_len = 0;
        }
    }

    /// `n` (a multiple of 8, or the last levels of the stream) copies of `value`.
    fn run(&mut self, value: bool, n: u64) {
        if self.run_len > 0 && self.run_value != value {
            self.flush_run();
        }
        self.flush_literal();
        self.run_value = value;
        self.run_len += n;
    }

    /// `bytes` of bit-packed levels (whole groups, except at the end of the stream).
    fn literal(&mut self, bytes: &[u8]) {
        self.flush_run();
        self.literal.extend_from_slice(bytes);
    }
}

/// Append the definition levels (1 = valid) of `bits` as an RLE/bit-packed hybrid stream of
/// bit width 1, without length prefix.
pub(crate) fn encode_validity(bits: &BooleanBuffer, out: &mut Vec<u8>) {
    let n = bits.len();
    if n == 0 {
        return;
    }
    let mut enc = Levels {
        out,
        literal: Vec::with_capacity(n.div_ceil(8)),
        run_value: false,
        run_len: 0,
    };
    let chunks = bits.bit_chunks();
    for word in chunks.iter() {
        match word {
            0 => enc.run(false, 64),
            u64::MAX => enc.run(true, 64),
            w => enc.literal(&w.to_le_bytes()),
        }
    }
    let r = chunks.remainder_len();
    if r > 0 {
        let w = chunks.remainder_bits();
        let mask = (1u64 << r) - 1;
        if w == 0 || w == mask {
            enc.run(w != 0, r as u64);
        } else {
            // The last group, zero-padded: readers stop at the page's value count.
            enc.literal(&w.to_le_bytes()[..r.div_ceil(8)]);
        }
    }
    enc.flush_run();
    enc.flush_literal();
}

#[cfg(test)]
mod tests {
    use super::*;
    use parq_codecs::encoding::rle::RleDecoder;

    fn decode(data: &[u8], n: usize) -> Vec<bool> {
        let mut dec = RleDecoder::new(data, 1).unwrap();
        let mut out = vec![0u8; n];
        assert_eq!(dec.get_batch(&mut out).unwrap(), n);
        out.into_iter().map(|v| v == 1).collect()
    }

    #[test]
    fn round_trips_any_pattern_and_offset() {
        let mut x = 0x1234_5678_9abc_def1u64;
        for n in [1usize, 7, 8, 63, 64, 65, 200, 1000] {
            for density in [0u64, 1, 8, 15, 16] {
                let bits: Vec<bool> = (0..n + 13)
                    .map(|i| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        // Long uniform stretches, then noise.
                        if (i / 150) % 2 == 0 {
                            i % 300 < 150
                        } else {
                            x % 16 < density
                        }
                    })
                    .collect();
                let buf = BooleanBuffer::from(bits.clone());
                for off in [0usize, 3, 13] {
                    let len = n.min(bits.len() - off);
                    let mut out = Vec::new();
                    encode_validity(&buf.slice(off, len), &mut out);
                    assert_eq!(decode(&out, len), bits[off..off + len], "n {n} off {off}");
                }
            }
        }
    }

    #[test]
    fn uniform_is_one_run() {
        let mut out = Vec::new();
        encode_validity(&BooleanBuffer::new_set(1000), &mut out);
        assert_eq!(out, [0xD0, 0x0F, 1]);
        out.clear();
        encode_validity(&BooleanBuffer::new_unset(5), &mut out);
        assert_eq!(out, [10, 0]);
    }
}
