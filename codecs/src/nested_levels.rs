//! Repetition and definition levels of nested columns to validity bitmaps and list offsets.
//!
//! A nested leaf's levels are decoded to `i16`s once (their values go up to the nesting
//! depth, so they are not bitmap bits as a flat column's are); every list and struct above the
//! leaf then derives its slots, validity and offsets from them with these loops. They work 64
//! levels at a time into a word and never branch per level on the data: a level that does not
//! start a slot still writes its (zero) bit, which the next slot's bit overwrites.

#![forbid(unsafe_code)]

use arrow_buffer::BooleanBufferBuilder;

/// Bits collected in a word and appended to a builder 64 at a time.
struct WordSink<'a> {
    out: &'a mut BooleanBufferBuilder,
    word: u64,
    bits: u32,
    set: usize,
}

impl WordSink<'_> {
    #[inline(always)]
    fn push_if(&mut self, slot: bool, valid: bool) {
        self.word |= (valid as u64) << self.bits;
        self.bits += slot as u32;
        if self.bits == 64 {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.bits > 0 {
            self.set += self.word.count_ones() as usize;
            self.out
                .append_packed_range(0..self.bits as usize, &self.word.to_le_bytes());
        }
        self.word = 0;
        self.bits = 0;
    }
}

/// For every level pair that starts a slot (`d >= slot_def` and, when `rep` is given,
/// `r <= slot_rep`), append one bit `d >= valid_def` to `out`. `valid_def >= slot_def`.
/// Returns `(slots, valid)`: bits appended and bits set.
///
/// # Panics
/// If `rep` is given and shorter than `def`.
pub fn slot_validity(
    def: &[i16],
    rep: Option<(&[i16], i16)>,
    slot_def: i16,
    valid_def: i16,
    out: &mut BooleanBufferBuilder,
) -> (usize, usize) {
    debug_assert!(valid_def >= slot_def);
    let start = out.len();
    let mut sink = WordSink {
        out,
        word: 0,
        bits: 0,
        set: 0,
    };
    match rep {
        None if slot_def <= 0 => {
            // Every pair is a slot: whole words of `d >= valid_def`.
            let mut chunks = def.chunks_exact(64);
            for chunk in &mut chunks {
                let mut w = 0u64;
                for (i, &d) in chunk.iter().enumerate() {
                    w |= ((d >= valid_def) as u64) << i;
                }
                sink.set += w.count_ones() as usize;
                sink.out.append_packed_range(0..64, &w.to_le_bytes());
            }
            for &d in chunks.remainder() {
                sink.push_if(true, d >= valid_def);
            }
        }
        None => {
            for &d in def {
                sink.push_if(d >= slot_def, d >= valid_def);
            }
        }
        Some((rep, slot_rep)) => {
            let rep = &rep[..def.len()];
            for (&d, &r) in def.iter().zip(rep) {
                let slot = d >= slot_def && r <= slot_rep;
                sink.push_if(slot, slot && d >= valid_def);
            }
        }
    }
    sink.flush();
    let set = sink.set;
    (sink.out.len() - start, set)
}

/// Whether every level is at least `min`.
pub fn all_at_least(levels: &[i16], min: i16) -> bool {
    // Fold without early exit, so the loop vectorises.
    levels
        .chunks(256)
        .all(|c| c.iter().fold(true, |acc, &d| acc & (d >= min)))
}

/// Number of levels equal to `value`.
pub fn count_equal(levels: &[i16], value: i16) -> usize {
    levels.iter().map(|&l| (l == value) as usize).sum()
}

/// Number of levels at least `min`.
pub fn count_at_least(levels: &[i16], min: i16) -> usize {
    levels.iter().map(|&l| (l >= min) as usize).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn naive(
        def: &[i16],
        rep: Option<(&[i16], i16)>,
        slot_def: i16,
        valid_def: i16,
    ) -> Vec<bool> {
        (0..def.len())
            .filter(|&i| def[i] >= slot_def && rep.is_none_or(|(r, sr)| r[i] <= sr))
            .map(|i| def[i] >= valid_def)
            .collect()
    }

    proptest! {
        #[test]
        fn slot_validity_matches_naive(
            levels in proptest::collection::vec((0i16..4, 0i16..3), 0..300),
            slot_def in 0i16..3,
            extra in 0i16..2,
            slot_rep in 0i16..3,
            with_rep: bool,
            prefix in 0usize..70,
        ) {
            let def: Vec<i16> = levels.iter().map(|l| l.0).collect();
            let rep: Vec<i16> = levels.iter().map(|l| l.1).collect();
            let valid_def = slot_def + extra;
            let rep = with_rep.then_some((rep.as_slice(), slot_rep));
            let mut b = BooleanBufferBuilder::new(0);
            b.append_n(prefix, true);
            let (slots, valid) = slot_validity(&def, rep, slot_def, valid_def, &mut b);
            let want = naive(&def, rep, slot_def, valid_def);
            prop_assert_eq!(slots, want.len());
            prop_assert_eq!(valid, want.iter().filter(|v| **v).count());
            let got = b.finish();
            prop_assert_eq!(got.len(), prefix + want.len());
            for (i, w) in want.iter().enumerate() {
                prop_assert_eq!(got.value(prefix + i), *w);
            }
        }

        #[test]
        fn counts_match_naive(levels in proptest::collection::vec(0i16..5, 0..600), x in 0i16..5) {
            prop_assert_eq!(all_at_least(&levels, x), levels.iter().all(|&l| l >= x));
            prop_assert_eq!(count_equal(&levels, x), levels.iter().filter(|&&l| l == x).count());
            prop_assert_eq!(count_at_least(&levels, x), levels.iter().filter(|&&l| l >= x).count());
        }
    }
}
