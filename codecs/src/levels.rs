//! Definition levels to validity bitmaps, and run-based null scatter.
//!
//! A flat nullable column has max definition level 1, so its levels are 1-bit values in the
//! RLE/bit-packed hybrid ([`crate::encoding::rle`]). Those levels *are* the validity bitmap:
//! a repeated run of `n` ones is `n` set bits, and a bit-packed group of 1-bit levels is 8
//! bitmap bits in the same LSB-first order. [`def_levels_to_bitmap`] therefore appends runs and
//! copies bit ranges straight into an Arrow [`BooleanBufferBuilder`], never through a
//! `Vec<i16>`.
//!
//! The page's values are stored densely (nulls take no space). The `scatter_*` functions spread
//! them into their slots a run at a time: one copy per run of valid slots, one fill per run of
//! nulls.
//!
//! Probes: `levels.single_run` (one run covers the whole batch), `levels.repeated_run`,
//! `levels.packed_copy` (bit-packed levels copied as bits); `levels.scatter_all_valid` (no
//! nulls: one copy), `levels.scatter_all_null` (no values: one fill), `levels.scatter_run`
//! (the general path: one step per run of valid slots).

#![forbid(unsafe_code)]

use arrow_buffer::bit_chunk_iterator::{BitChunks, UnalignedBitChunk};
use arrow_buffer::bit_iterator::BitSliceIterator;
use arrow_buffer::BooleanBufferBuilder;

use crate::encoding::rle::{RleDecoder, Run};
use crate::kernels::byte_arrays::Offset;
use crate::{Error, Result};

/// Largest bit width of levels: levels are `i16`.
pub const MAX_LEVEL_BIT_WIDTH: u32 = 16;

fn levels_missing(dec: &RleDecoder<'_>, missing: usize) -> Error {
    Error::Truncated {
        offset: dec.position(),
        needed: missing.div_ceil(8).max(1),
        available: 0,
    }
}

/// Decode `num_levels` definition levels of a flat nullable column (max definition level 1, bit
/// width 1) from a hybrid stream without length prefix, and append them to `validity` as bits
/// (set = value present). Returns the number of set bits appended (valid slots).
///
/// Errors on a level above 1 or a stream with fewer than `num_levels` levels; `validity` then
/// holds the bits appended so far.
pub fn def_levels_to_bitmap(
    data: &[u8],
    num_levels: usize,
    validity: &mut BooleanBufferBuilder,
) -> Result<usize> {
    let mut sink = BitSink::new(validity);
    let r = levels_to_sink(data, num_levels, &mut sink);
    // Also on error: the bits decoded so far are appended.
    sink.finish();
    r
}

fn levels_to_sink(data: &[u8], num_levels: usize, sink: &mut BitSink<'_>) -> Result<usize> {
    // Width 1: the decoder rejects a repeated value above 1, and bit-packed values cannot be.
    let mut dec = RleDecoder::new(data, 1)?;
    let mut left = num_levels;
    let mut valid = 0;
    let mut first = true;
    while left > 0 {
        let Some(run) = dec.next_run()? else {
            return Err(levels_missing(&dec, left));
        };
        if first && run_len(&run) >= num_levels {
            crate::probe::hit("levels.single_run");
        }
        first = false;
        match run {
            Run::Repeated { value, len } => {
                crate::probe::hit("levels.repeated_run");
                let n = len.min(left);
                sink.push_run(value == 1, n);
                if value == 1 {
                    valid += n;
                }
                left -= n;
            }
            Run::Packed { bytes, len, .. } => {
                crate::probe::hit("levels.packed_copy");
                // Width 1: value i is bit i of `bytes`, exactly a bitmap.
                let n = len.min(left);
                valid += sink.push_packed(bytes, n);
                left -= n;
            }
        }
    }
    Ok(valid)
}

/// Words collected by [`BitSink`] before they are appended to the builder.
const SINK_WORDS: usize = 64;

/// Runs of at least this many bits go to the builder directly (`append_n`,
/// `append_packed_range`) rather than through [`BitSink`]'s words.
const SINK_LONG_RUN: usize = 1024;

/// Appends bits to a [`BooleanBufferBuilder`] through a 64-bit accumulator and a stack buffer
/// of words, flushed with one `append_packed_range` per `64 * SINK_WORDS` bits.
///
/// Where nulls are rare, level runs are short (a repeated run of ones, then a group or two
/// around each null): appending each to the builder costs a `resize`/`memset` plus byte
/// read-modify-writes of the bytes just written (store-forwarding stalls), several times the
/// work of shifting the run into a register.
pub(crate) struct BitSink<'b> {
    out: &'b mut BooleanBufferBuilder,
    /// Whole words (little endian) not yet appended.
    words: [u64; SINK_WORDS],
    full: usize,
    /// The partial word: its low `nacc` (< 64) bits.
    acc: u64,
    nacc: u32,
}

impl<'b> BitSink<'b> {
    pub(crate) fn new(out: &'b mut BooleanBufferBuilder) -> Self {
        Self {
            out,
            words: [0; SINK_WORDS],
            full: 0,
            acc: 0,
            nacc: 0,
        }
    }

    /// Append the low `n` (0..=64) bits of `bits`; the bits above `n` are zero.
    #[inline]
    pub(crate) fn push(&mut self, bits: u64, n: u32) {
        self.acc |= bits << self.nacc;
        let total = self.nacc + n;
        if total >= 64 {
            self.words[self.full] = self.acc.to_le();
            self.full += 1;
            // The bits of `bits` that did not fit.
            self.acc = if self.nacc == 0 {
                0
            } else {
                bits >> (64 - self.nacc)
            };
            self.nacc = total - 64;
            if self.full == SINK_WORDS {
                self.flush_words();
            }
        } else {
            self.nacc = total;
        }
    }

    fn flush_words(&mut self) {
        let bytes: &[u8] = bytemuck::cast_slice(&self.words[..self.full]);
        self.out.append_packed_range(0..self.full * 64, bytes);
        self.full = 0;
    }

    /// Append everything collected to the builder.
    pub(crate) fn finish(&mut self) {
        self.flush_words();
        if self.nacc > 0 {
            self.out.append_word(self.acc, self.nacc as usize);
            self.acc = 0;
            self.nacc = 0;
        }
    }

    /// Append `n` copies of `value`.
    #[inline]
    fn push_run(&mut self, value: bool, n: usize) {
        if n >= SINK_LONG_RUN {
            self.finish();
            self.out.append_n(n, value);
            return;
        }
        let word = if value { u64::MAX } else { 0 };
        let mut left = n;
        while left >= 64 {
            self.push(word, 64);
            left -= 64;
        }
        if left > 0 {
            self.push(word >> (64 - left), left as u32);
        }
    }

    /// Append the first `n` bits of `bits` (LSB first; `bits` holds at least `ceil(n / 8)`
    /// bytes); returns how many of them are set.
    #[inline]
    fn push_packed(&mut self, bits: &[u8], n: usize) -> usize {
        if n >= SINK_LONG_RUN {
            self.finish();
            self.out.append_packed_range(0..n, bits);
            return UnalignedBitChunk::new(bits, 0, n).count_ones();
        }
        let mut ones = 0;
        let mut done = 0;
        for chunk in bits.chunks(8) {
            if done >= n {
                break;
            }
            let w = match <[u8; 8]>::try_from(chunk) {
                Ok(b) => u64::from_le_bytes(b),
                // The run's last bytes: a byte loop, not a variable-length copy.
                Err(_) => chunk.iter().rev().fold(0u64, |w, &b| (w << 8) | b as u64),
            };
            let take = (n - done).min(64);
            let w = w & (u64::MAX >> (64 - take));
            ones += w.count_ones() as usize;
            self.push(w, take as u32);
            done += take;
        }
        ones
    }
}

fn run_len(run: &Run<'_>) -> usize {
    match *run {
        Run::Repeated { len, .. } | Run::Packed { len, .. } => len,
    }
}

/// Decode `num_levels` levels of `bit_width` bits (`<= 16`; any max level, for nested data)
/// from a hybrid stream without length prefix, appending them to `out`.
///
/// Errors on a stream with fewer than `num_levels` levels or a level above `i16::MAX`. Memory
/// grows with the runs actually decoded, not with `num_levels` up front.
pub fn decode_levels(
    data: &[u8],
    bit_width: u32,
    num_levels: usize,
    out: &mut Vec<i16>,
) -> Result<()> {
    if bit_width > MAX_LEVEL_BIT_WIDTH {
        return Err(Error::InvalidBitWidth {
            width: bit_width,
            max: MAX_LEVEL_BIT_WIDTH,
        });
    }
    decode_checked(
        data,
        bit_width,
        i16::MAX,
        "level above i16::MAX",
        num_levels,
        out,
    )
}

/// [`decode_levels`] for a column whose levels go up to `max` (bit width that of `max`): a
/// level above `max` is an error.
pub fn decode_levels_up_to(
    data: &[u8],
    max: i16,
    num_levels: usize,
    out: &mut Vec<i16>,
) -> Result<()> {
    let width = 16 - (max.max(0) as u16).leading_zeros();
    decode_checked(
        data,
        width,
        max,
        "level above the column's max level",
        num_levels,
        out,
    )
}

/// The one level decoder: levels above `max` are an error (`what`), checked with one
/// vectorised pass over each decoded stretch when the stream's width can hold values above
/// `max` (a repeated run's value is below `1 << width` too).
///
/// Decoding goes through [`RleDecoder::get_batch`]: the unpacker is chosen once per stretch and
/// short runs cost no branch on their length (the per-run `next_run` loop this replaced spent
/// about 5 instructions a level on 4-item lists). `out` grows by stretches of at most the
/// levels decoded so far (at least [`FIRST_STRETCH`]), so `num_levels` from a page header sizes
/// nothing up front.
fn decode_checked(
    data: &[u8],
    width: u32,
    max: i16,
    what: &'static str,
    num_levels: usize,
    out: &mut Vec<i16>,
) -> Result<()> {
    let max = max.max(0) as u16;
    let check = (1u32 << width) - 1 > max as u32;
    let mut dec = RleDecoder::new(data, width)?;
    let mut done = 0;
    while done < num_levels {
        let n = (num_levels - done).min(done.max(FIRST_STRETCH));
        let start = out.len();
        out.resize(start + n, 0);
        let dst: &mut [u16] = bytemuck::cast_slice_mut(&mut out[start..]);
        let got = dec.get_batch(dst)?;
        // Unsigned, so values past i16::MAX count as above too. No early exit: it vectorises.
        if check && dst[..got].iter().fold(false, |acc, &l| acc | (l > max)) {
            out.truncate(start);
            return Err(Error::InvalidData {
                offset: dec.position(),
                what,
            });
        }
        if got < n {
            out.truncate(start + got);
            return Err(levels_missing(&dec, num_levels - done - got));
        }
        done += n;
    }
    Ok(())
}

/// The first stretch [`decode_checked`] decodes: a page's levels usually fit.
const FIRST_STRETCH: usize = 8192;

/// Check that `validity` holds bits `[bit_offset, bit_offset + len)`.
fn check_bitmap(validity: &[u8], bit_offset: usize, len: usize) -> Result<()> {
    if len == 0 {
        // No bit is read, whatever the offset (an empty slice of a buffer may be empty).
        return Ok(());
    }
    let end = bit_offset.checked_add(len).ok_or(Error::TooLarge {
        what: "bitmap range",
        declared: u64::MAX,
        limit: usize::MAX as u64,
    })?;
    let needed = end.div_ceil(8);
    if needed > validity.len() {
        return Err(Error::Truncated {
            offset: 0,
            needed,
            available: validity.len(),
        });
    }
    Ok(())
}

fn count_mismatch() -> Error {
    Error::InvalidData {
        offset: 0,
        what: "dense value count differs from the set bits of the validity bitmap",
    }
}

/// Walk the slots `[bit_offset, bit_offset + len)` of `validity` by runs: `valid(d, k)` for `k`
/// valid slots taking dense values `d..d + k`, `null(d, k)` for `k` null slots (`d` = dense
/// values taken so far). Checks the bitmap range and that `n_dense` values are taken in all.
fn for_each_run<C>(
    ctx: &mut C,
    n_dense: usize,
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    valid: impl Fn(&mut C, usize, usize),
    null: impl Fn(&mut C, usize, usize),
) -> Result<()> {
    check_bitmap(validity, bit_offset, len)?;
    if n_dense == len {
        // Every slot must be valid; one count confirms it and one copy does the work.
        if UnalignedBitChunk::new(validity, bit_offset, len).count_ones() != len {
            return Err(count_mismatch());
        }
        crate::probe::hit("levels.scatter_all_valid");
        valid(ctx, 0, len);
        return Ok(());
    }
    if n_dense == 0 {
        if UnalignedBitChunk::new(validity, bit_offset, len).count_ones() != 0 {
            return Err(count_mismatch());
        }
        crate::probe::hit("levels.scatter_all_null");
        null(ctx, 0, len);
        return Ok(());
    }
    // Count first so that a mismatch errs before anything is written.
    if UnalignedBitChunk::new(validity, bit_offset, len).count_ones() != n_dense {
        return Err(count_mismatch());
    }
    let mut slot = 0;
    let mut d = 0;
    for (start, end) in BitSliceIterator::new(validity, bit_offset, len) {
        crate::probe::hit("levels.scatter_run");
        if start > slot {
            null(ctx, d, start - slot);
        }
        valid(ctx, d, end - start);
        d += end - start;
        slot = end;
    }
    if slot < len {
        null(ctx, d, len - slot);
    }
    Ok(())
}

/// Scatter `dense` (the valid values, in order) into slots: for each slot in
/// `[bit_offset, bit_offset + len)` of the LSB-first bitmap `validity`, append to `out` the next
/// dense value if the bit is set, `T::default()` if clear.
///
/// One `extend_from_slice` per run of set bits, one `resize` per run of clear bits. Errors (and
/// appends nothing) if `dense.len()` differs from the number of set bits or the bitmap is too
/// short.
pub fn scatter_fixed<T: bytemuck::Pod + Default>(
    dense: &[T],
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<T>,
) -> Result<()> {
    check_bitmap(validity, bit_offset, len)?;
    if try_expand(
        bytemuck::cast_slice(dense),
        dense.len(),
        validity,
        bit_offset,
        len,
        out,
    ) {
        return Ok(());
    }
    scatter_fixed_portable(dense, validity, bit_offset, len, out)
}

/// AVX-512's expand-load scatters in hardware, 16 slots per instruction, whatever the run
/// lengths (measured faster than copies per run at 1 % nulls too): taken when some but not
/// all of the `len` slots hold one of the `n` dense values (given as raw bytes). False when
/// the kernel does not apply; nothing is appended then.
fn try_expand<T: bytemuck::Pod + Default>(
    dense: &[u8],
    n: usize,
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<T>,
) -> bool {
    n > 0 && n < len && crate::kernels::expand::expand_bytes(dense, validity, bit_offset, len, out)
}

/// [`scatter_fixed`] from dense values given as raw little-endian bytes (a PLAIN page as it
/// lies in memory), so that they are not first copied into an aligned buffer: AVX-512 expands
/// straight from the bytes, aligned bytes are scattered as they are, and only unaligned ones
/// without AVX-512 are copied into `scratch` first.
///
/// Errors (and appends nothing) as [`scatter_fixed`], or if `dense` is not a whole number of
/// values.
pub fn scatter_fixed_from_bytes<T: bytemuck::Pod + Default>(
    dense: &[u8],
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    scratch: &mut Vec<T>,
    out: &mut Vec<T>,
) -> Result<()> {
    let size = std::mem::size_of::<T>();
    if size == 0 || dense.len() % size != 0 {
        return Err(count_mismatch());
    }
    check_bitmap(validity, bit_offset, len)?;
    if try_expand(dense, dense.len() / size, validity, bit_offset, len, out) {
        return Ok(());
    }
    match bytemuck::try_cast_slice::<u8, T>(dense) {
        Ok(values) => scatter_fixed_portable(values, validity, bit_offset, len, out),
        Err(_) => {
            scratch.clear();
            crate::kernels::copy::extend_from_unaligned(scratch, dense);
            scatter_fixed_portable(scratch, validity, bit_offset, len, out)
        }
    }
}

/// [`scatter_fixed`] without the AVX-512 kernel: by runs when nulls are rare, by 64-slot
/// words when they are common. What runs on other CPUs; public so that tests and benches can
/// check and time it on any machine.
pub fn scatter_fixed_portable<T: Copy + Default>(
    dense: &[T],
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<T>,
) -> Result<()> {
    check_bitmap(validity, bit_offset, len)?;
    out.reserve(len);
    if !dense.is_empty() && dense.len() < len {
        crate::probe::hit("kernels.scatter.scalar");
    }
    let nulls = len.saturating_sub(dense.len());
    if nulls > len / SHORT_RUNS_NULL_SHARE && !dense.is_empty() && dense.len() < len {
        // Many nulls means short runs, where a copy per run costs more than a select per
        // slot: go 64 slots at a time instead.
        if UnalignedBitChunk::new(validity, bit_offset, len).count_ones() != dense.len() {
            return Err(count_mismatch());
        }
        crate::probe::hit("levels.scatter_words");
        scatter_fixed_words(dense, validity, bit_offset, len, out);
        return Ok(());
    }
    for_each_run(
        out,
        dense.len(),
        validity,
        bit_offset,
        len,
        |out, d, k| out.extend_from_slice(&dense[d..d + k]),
        |out, _, k| out.resize(out.len() + k, T::default()),
    )
}

/// Above one null in this many slots, [`scatter_fixed`] scatters by 64-slot words rather than
/// by runs (measured: at 1 % nulls runs win, at 50 % words win by about 2x).
const SHORT_RUNS_NULL_SHARE: usize = 10;

/// Word-at-a-time scatter: a full word is one copy, an empty word one fill, a mixed word a
/// fill and then one store per valid slot, at the positions of its set bits in turn. The
/// caller has checked that `dense` holds exactly the set bits.
///
/// The store loop runs `popcount(word)` times over a slice of exactly that many dense values,
/// with no branch on the data (the arrow-rs reader's shape: a move per valid value). A step per
/// slot with a clean-up of the null slots measured 2x (`i32`) and 3x (`i64`) slower at 50 %
/// nulls; at 10 % nulls this loop is no faster than copies per run, hence the threshold.
fn scatter_fixed_words<T: Copy + Default>(
    dense: &[T],
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<T>,
) {
    let chunks = BitChunks::new(validity, bit_offset, len);
    let mut d = 0;
    let mixed = |out: &mut Vec<T>, word: u64, n: usize, d: &mut usize| {
        let base = out.len();
        out.resize(base + n, T::default());
        let slots = &mut out[base..];
        let mut bits = if n == 64 {
            word
        } else {
            word & ((1u64 << n) - 1)
        };
        let take = bits.count_ones() as usize;
        for &v in &dense[*d..*d + take] {
            slots[bits.trailing_zeros() as usize] = v;
            bits &= bits - 1;
        }
        *d += take;
    };
    for word in chunks.iter() {
        match word {
            u64::MAX => {
                out.extend_from_slice(&dense[d..d + 64]);
                d += 64;
            }
            0 => out.resize(out.len() + 64, T::default()),
            w => mixed(out, w, 64, &mut d),
        }
    }
    let rem = chunks.remainder_len();
    if rem > 0 {
        mixed(out, chunks.remainder_bits(), rem, &mut d);
    }
}

/// Bit form of [`scatter_fixed`] for BOOLEAN columns: `dense` holds `dense_len` value bits
/// (LSB first, from bit 0); for each slot of `validity` append the next value bit to `out`
/// when the slot is valid and a clear bit when it is null.
///
/// Works 64 slots at a time: a full word is one 64-bit copy, an empty word one zero word, a
/// mixed word deposits the next value bits at its set positions (one step per valid slot, no
/// branch per slot). Errors (appending nothing) if `dense_len` differs from the number of set
/// bits or a bitmap is too short.
pub fn scatter_bits(
    dense: &[u8],
    dense_len: usize,
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut BooleanBufferBuilder,
) -> Result<()> {
    check_bitmap(validity, bit_offset, len)?;
    check_bitmap(dense, 0, dense_len)?;
    if UnalignedBitChunk::new(validity, bit_offset, len).count_ones() != dense_len {
        return Err(count_mismatch());
    }
    if len == 0 {
        // An empty range may start past the bitmap, which BitChunks would refuse.
        return Ok(());
    }
    crate::probe::hit("levels.scatter_bits");
    let chunks = BitChunks::new(validity, bit_offset, len);
    let mut d = 0usize;
    let deposit = |word: u64, d: &mut usize| -> u64 {
        if word == u64::MAX {
            let bits = bits_at(dense, *d, 64);
            *d += 64;
            return bits;
        }
        let mut out_word = 0u64;
        let mut w = word;
        while w != 0 {
            let bit = ((dense[*d >> 3] >> (*d & 7)) & 1) as u64;
            out_word |= bit << w.trailing_zeros();
            *d += 1;
            w &= w - 1;
        }
        out_word
    };
    out.reserve(len);
    for word in chunks.iter() {
        let bits = deposit(word, &mut d);
        out.append_packed_range(0..64, &bits.to_le_bytes());
    }
    let rem = chunks.remainder_len();
    if rem > 0 {
        let bits = deposit(chunks.remainder_bits(), &mut d);
        out.append_packed_range(0..rem, &bits.to_le_bytes());
    }
    Ok(())
}

/// `n <= 64` bits of `buf` starting at bit `pos`, LSB first; bits past the end read as 0.
fn bits_at(buf: &[u8], pos: usize, n: usize) -> u64 {
    let byte = pos >> 3;
    let shift = pos & 7;
    let mut raw = [0u8; 16];
    let avail = buf.len().saturating_sub(byte).min(9);
    raw[..avail].copy_from_slice(&buf[byte..byte + avail]);
    let wide = u128::from_le_bytes(raw) >> shift;
    let mask = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    (wide as u64) & mask
}

/// Byte-array form of [`scatter_fixed`]: `dense_offsets` are the `n_valid + 1` offsets of the
/// valid values (starting at any value). Appends `len` slot end offsets to `out`, whose last
/// element is the current end offset, so that null slots are empty and valid slots keep their
/// lengths.
///
/// Errors (and appends nothing) if `out` is empty, `dense_offsets` is empty, or
/// `dense_offsets.len() - 1` differs from the number of set bits. Offsets are added with
/// wrapping arithmetic; the caller's offsets are assumed monotonic.
///
/// `out` holds i64 or i32 offsets ([`Offset`]): each is computed in i64 and stored
/// truncated, so with i32 the caller checks that the ends stay within `i32::MAX`.
pub fn scatter_offsets<O: Offset>(
    dense_offsets: &[i64],
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<O>,
) -> Result<()> {
    O::scatter_offsets(dense_offsets, validity, bit_offset, len, out)
}

/// [`scatter_offsets`], instantiated (by [`Offset::scatter_offsets`]) in this crate: compiled
/// in the callers' crate instead, the i64 loop measured 12 % more instructions (its `extend`
/// was no longer inlined).
pub(crate) fn scatter_offsets_as<O: Offset>(
    dense_offsets: &[i64],
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<O>,
) -> Result<()> {
    let (Some(&first), Some(&end)) = (dense_offsets.first(), out.last()) else {
        return Err(Error::InvalidData {
            offset: 0,
            what: "offsets must hold at least one element",
        });
    };
    check_bitmap(validity, bit_offset, len)?;
    let delta = end.into().wrapping_sub(first);
    out.reserve(len);
    let valid = dense_offsets.len() - 1;
    let nulls = len.saturating_sub(valid);
    if nulls > len / SHORT_RUNS_NULL_SHARE && valid > 0 && valid < len {
        // Short runs: a step per slot beats a copy per run (as in `scatter_fixed_portable`).
        if UnalignedBitChunk::new(validity, bit_offset, len).count_ones() != valid {
            return Err(count_mismatch());
        }
        crate::probe::hit("levels.scatter_offsets_words");
        scatter_offsets_words(dense_offsets, delta, validity, bit_offset, len, out);
        return Ok(());
    }
    for_each_run(
        out,
        dense_offsets.len() - 1,
        validity,
        bit_offset,
        len,
        |out, d, k| {
            out.extend(
                dense_offsets[d + 1..=d + k]
                    .iter()
                    .map(|o| O::truncate(o.wrapping_add(delta))),
            )
        },
        |out, d, k| {
            out.resize(
                out.len() + k,
                O::truncate(dense_offsets[d].wrapping_add(delta)),
            )
        },
    )
}

/// Word-at-a-time [`scatter_offsets`]: slot `i` ends where the dense value holding the last
/// valid slot up to `i` ends, so each slot is one step `d += bit; push(dense[d])`, without a
/// branch or a clean-up of null slots. The caller has checked that `dense_offsets` holds one
/// more offset than there are set bits.
fn scatter_offsets_words<O: Offset>(
    dense_offsets: &[i64],
    delta: i64,
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<O>,
) {
    let chunks = BitChunks::new(validity, bit_offset, len);
    let last = dense_offsets.len() - 1;
    let mut d = 0usize;
    let mixed = |out: &mut Vec<O>, word: u64, n: usize, d: &mut usize| {
        out.extend((0..n).map(|b| {
            *d += ((word >> b) & 1) as usize;
            O::truncate(dense_offsets[(*d).min(last)].wrapping_add(delta))
        }));
    };
    for word in chunks.iter() {
        match word {
            u64::MAX => {
                out.extend(
                    dense_offsets[d + 1..=d + 64]
                        .iter()
                        .map(|o| O::truncate(o.wrapping_add(delta))),
                );
                d += 64;
            }
            0 => out.resize(
                out.len() + 64,
                O::truncate(dense_offsets[d].wrapping_add(delta)),
            ),
            w => mixed(out, w, 64, &mut d),
        }
    }
    let rem = chunks.remainder_len();
    if rem > 0 {
        mixed(out, chunks.remainder_bits(), rem, &mut d);
    }
}

/// Fixed-width byte form of [`scatter_fixed`] (FIXED_LEN_BYTE_ARRAY, INT96): `dense` holds
/// `width` bytes per valid value; null slots become `width` zero bytes.
///
/// Errors (and appends nothing) if `dense.len()` is not `width` times the number of set bits.
pub fn scatter_bytes(
    dense: &[u8],
    width: usize,
    validity: &[u8],
    bit_offset: usize,
    len: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    check_bitmap(validity, bit_offset, len)?;
    let n_dense = if width == 0 {
        // Zero-width values: only the set-bit count can be checked.
        if !dense.is_empty() {
            return Err(count_mismatch());
        }
        UnalignedBitChunk::new(validity, bit_offset, len).count_ones()
    } else {
        if dense.len() % width != 0 {
            return Err(count_mismatch());
        }
        dense.len() / width
    };
    let total = len.checked_mul(width).ok_or(Error::TooLarge {
        what: "scattered bytes",
        declared: len as u64,
        limit: (usize::MAX / width.max(1)) as u64,
    })?;
    out.reserve(total);
    for_each_run(
        out,
        n_dense,
        validity,
        bit_offset,
        len,
        |out, d, k| out.extend_from_slice(&dense[d * width..(d + k) * width]),
        |out, _, k| out.resize(out.len() + k * width, 0),
    )
}

/// Reference implementations with a branch per slot: test oracles and bench baselines for the
/// run-based functions above.
pub mod naive {
    use super::*;

    fn bit(validity: &[u8], i: usize) -> bool {
        validity[i / 8] >> (i % 8) & 1 == 1
    }

    /// [`scatter_fixed`], one slot at a time.
    pub fn scatter_fixed_per_slot<T: Copy + Default>(
        dense: &[T],
        validity: &[u8],
        bit_offset: usize,
        len: usize,
        out: &mut Vec<T>,
    ) -> Result<()> {
        check_bitmap(validity, bit_offset, len)?;
        let set = (bit_offset..bit_offset + len)
            .filter(|&i| bit(validity, i))
            .count();
        if set != dense.len() {
            return Err(count_mismatch());
        }
        let mut next = dense.iter();
        for i in bit_offset..bit_offset + len {
            if bit(validity, i) {
                out.push(next.next().copied().unwrap_or_default());
            } else {
                out.push(T::default());
            }
        }
        Ok(())
    }

    /// [`def_levels_to_bitmap`] by way of a `Vec<i16>` of levels
    /// and a bit append per slot.
    pub fn def_levels_to_bitmap_via_i16(
        data: &[u8],
        num_levels: usize,
        validity: &mut BooleanBufferBuilder,
    ) -> Result<usize> {
        let mut levels = Vec::new();
        decode_levels(data, 1, num_levels, &mut levels)?;
        let mut valid = 0;
        for (i, &l) in levels.iter().enumerate() {
            match l {
                0 => validity.append(false),
                1 => {
                    validity.append(true);
                    valid += 1;
                }
                _ => {
                    return Err(Error::InvalidData {
                        offset: i,
                        what: "definition level above 1",
                    })
                }
            }
        }
        Ok(valid)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::rle::encode;
    use proptest::prelude::*;

    fn pack_bits(bits: &[bool]) -> Vec<u8> {
        let mut v = vec![0u8; bits.len().div_ceil(8)];
        for (i, &b) in bits.iter().enumerate() {
            if b {
                v[i / 8] |= 1 << (i % 8);
            }
        }
        v
    }

    fn bitmap_of(b: &mut BooleanBufferBuilder) -> Vec<bool> {
        let buf = b.finish();
        buf.iter().collect()
    }

    /// Random null pattern: runs of random lengths, nulls with probability `p_null` per run.
    fn pattern(seed: u64, n: usize, p_null_pct: u64) -> Vec<bool> {
        let mut s = seed | 1;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let run = 1 + (rnd() % 40) as usize;
            let null = rnd() % 100 < p_null_pct;
            for _ in 0..run.min(n - out.len()) {
                out.push(!null);
            }
        }
        out
    }

    fn check_levels(bits: &[bool], prefix: usize) {
        let levels: Vec<u8> = bits.iter().map(|&b| b as u8).collect();
        let mut data = Vec::new();
        encode(&levels, 1, &mut data);
        let mut fast = BooleanBufferBuilder::new(0);
        fast.append_n(prefix, true);
        let mut slow = BooleanBufferBuilder::new(0);
        slow.append_n(prefix, true);
        let a = def_levels_to_bitmap(&data, bits.len(), &mut fast).unwrap();
        let b = naive::def_levels_to_bitmap_via_i16(&data, bits.len(), &mut slow).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, bits.iter().filter(|&&b| b).count());
        let fast = bitmap_of(&mut fast);
        assert_eq!(fast, bitmap_of(&mut slow));
        assert_eq!(&fast[prefix..], bits);
        // Fewer levels than encoded is fine; more is an error.
        let mut v = BooleanBufferBuilder::new(0);
        if !bits.is_empty() {
            def_levels_to_bitmap(&data, bits.len() - 1, &mut v).unwrap();
        }
        let padded = bits.len().div_ceil(8) * 8;
        let mut v = BooleanBufferBuilder::new(0);
        let r = def_levels_to_bitmap(&data, padded + 8, &mut v);
        // A trailing repeated run has no padding and ends at the last level.
        assert!(matches!(r, Err(Error::Truncated { .. })));
    }

    #[test]
    fn levels_longer_than_the_sink_buffer() {
        // Past 64 * SINK_WORDS bits the sink flushes mid-stream; long runs bypass it.
        for pct in [0u64, 1, 10, 50, 100] {
            for prefix in [0usize, 3] {
                check_levels(&pattern(pct + 7, 20_000, pct), prefix);
            }
        }
        let mut bits = vec![true; 5000];
        bits.extend((0..3000).map(|i| i % 3 == 0));
        bits.extend(std::iter::repeat_n(false, 2000));
        bits.extend((0..9000).map(|i| i % 97 != 0));
        check_levels(&bits, 5);
    }

    /// [`check_scatter_once`] at every SIMD level this CPU has.
    fn check_scatter(bits: &[bool], bit_offset: usize) {
        crate::simd::for_each_level(|_| check_scatter_once(bits, bit_offset));
    }

    fn check_scatter_once(bits: &[bool], bit_offset: usize) {
        let mut padded = vec![false; bit_offset];
        padded.extend_from_slice(bits);
        let validity = pack_bits(&padded);
        let n_valid = bits.iter().filter(|&&b| b).count();
        let dense: Vec<u32> = (1..=n_valid as u32).collect();
        let mut fast = vec![99u32];
        scatter_fixed(&dense, &validity, bit_offset, bits.len(), &mut fast).unwrap();
        let mut slow = vec![99u32];
        naive::scatter_fixed_per_slot(&dense, &validity, bit_offset, bits.len(), &mut slow)
            .unwrap();
        assert_eq!(fast, slow);
        let mut portable = vec![99u32];
        scatter_fixed_portable(&dense, &validity, bit_offset, bits.len(), &mut portable).unwrap();
        assert_eq!(portable, slow);
        // 8- and 16-byte values (doubles, Arrow views).
        let dense64: Vec<f64> = dense.iter().map(|&v| v as f64 + 0.25).collect();
        let mut fast64 = vec![-1.0f64];
        scatter_fixed(&dense64, &validity, bit_offset, bits.len(), &mut fast64).unwrap();
        let mut slow64 = vec![-1.0f64];
        naive::scatter_fixed_per_slot(&dense64, &validity, bit_offset, bits.len(), &mut slow64)
            .unwrap();
        assert_eq!(fast64, slow64);
        let dense128: Vec<u128> = dense.iter().map(|&v| (v as u128) << 70 | 3).collect();
        let mut fast128 = vec![];
        scatter_fixed(&dense128, &validity, bit_offset, bits.len(), &mut fast128).unwrap();
        let mut slow128 = vec![];
        naive::scatter_fixed_per_slot(&dense128, &validity, bit_offset, bits.len(), &mut slow128)
            .unwrap();
        assert_eq!(fast128, slow128);
        // From raw bytes at every alignment (aligned, AVX-512 from bytes, or copied first).
        let raw: Vec<u8> = dense.iter().flat_map(|v| v.to_le_bytes()).collect();
        for shift in 0..4 {
            let mut buf = vec![0u8; shift];
            buf.extend_from_slice(&raw);
            let mut from_bytes = vec![99u32];
            let mut scratch = Vec::new();
            scatter_fixed_from_bytes(
                &buf[shift..],
                &validity,
                bit_offset,
                bits.len(),
                &mut scratch,
                &mut from_bytes,
            )
            .unwrap();
            assert_eq!(from_bytes, slow);
            if !raw.is_empty() {
                let mut out = vec![];
                let short = &buf[shift..buf.len() - 4];
                let r = scatter_fixed_from_bytes::<u32>(
                    short,
                    &validity,
                    bit_offset,
                    bits.len(),
                    &mut scratch,
                    &mut out,
                );
                assert!(r.is_err() && out.is_empty());
            }
        }
        // Wrong counts err and append nothing.
        let mut out = vec![];
        if n_valid > 0 {
            let fewer = &dense[..n_valid - 1];
            assert!(scatter_fixed(fewer, &validity, bit_offset, bits.len(), &mut out).is_err());
        }
        let more: Vec<u32> = (0..=n_valid as u32).collect();
        assert!(scatter_fixed(&more, &validity, bit_offset, bits.len(), &mut out).is_err());
        assert!(out.is_empty());

        // Offsets: value j has length j % 3, starting at 1000.
        let mut dense_off = vec![1000i64];
        for j in 0..n_valid as i64 {
            dense_off.push(dense_off.last().copied().unwrap_or(0) + j % 3);
        }
        let mut out = vec![0i64, 5];
        scatter_offsets(&dense_off, &validity, bit_offset, bits.len(), &mut out).unwrap();
        let mut expect = vec![0i64, 5];
        let mut j = 0;
        for &b in bits {
            let last = *expect.last().unwrap();
            if b {
                expect.push(last + dense_off[j + 1] - dense_off[j]);
                j += 1;
            } else {
                expect.push(last);
            }
        }
        assert_eq!(out, expect);
        // Into i32 offsets: the same ends.
        let mut small = vec![0i32, 5];
        scatter_offsets(&dense_off, &validity, bit_offset, bits.len(), &mut small).unwrap();
        assert_eq!(
            small,
            expect.iter().map(|&o| o as i32).collect::<Vec<i32>>()
        );
        if n_valid > 0 {
            let mut out = vec![0i64];
            let fewer = &dense_off[..n_valid];
            assert!(scatter_offsets(fewer, &validity, bit_offset, bits.len(), &mut out).is_err());
            assert_eq!(out, vec![0i64]);
        }

        // Fixed-width bytes, width 3.
        let dense_b: Vec<u8> = (0..n_valid * 3).map(|i| i as u8 | 1).collect();
        let mut out = vec![7u8];
        scatter_bytes(&dense_b, 3, &validity, bit_offset, bits.len(), &mut out).unwrap();
        let mut expect = vec![7u8];
        let mut j = 0;
        for &b in bits {
            if b {
                expect.extend_from_slice(&dense_b[j * 3..j * 3 + 3]);
                j += 1;
            } else {
                expect.extend_from_slice(&[0, 0, 0]);
            }
        }
        assert_eq!(out, expect);
    }

    #[test]
    fn levels_edge_cases() {
        for n in [0usize, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1000] {
            check_levels(&vec![true; n], 0);
            check_levels(&vec![false; n], 3);
            let alt: Vec<bool> = (0..n).map(|i| i % 3 != 0).collect();
            check_levels(&alt, 5);
            for pct in [0, 1, 50, 100] {
                check_levels(&pattern(n as u64 + pct, n, pct), 1);
            }
        }
    }

    #[test]
    fn scatter_edge_cases() {
        for n in [0usize, 1, 7, 8, 9, 31, 32, 33, 63, 64, 65, 1000] {
            for off in [0usize, 1, 7, 8, 13] {
                check_scatter(&vec![true; n], off);
                check_scatter(&vec![false; n], off);
                for pct in [1, 50] {
                    check_scatter(&pattern(n as u64 * 7 + pct, n, pct), off);
                }
            }
        }
    }

    #[test]
    fn bad_levels() {
        // A repeated level 2 in a width-1 stream.
        let mut v = BooleanBufferBuilder::new(0);
        assert!(def_levels_to_bitmap(&[8, 2], 4, &mut v).is_err());
        // Truncated bit-packed run.
        assert!(matches!(
            def_levels_to_bitmap(&[5, 0xff], 16, &mut v),
            Err(Error::Truncated { .. })
        ));
        // Empty data, levels wanted.
        assert!(def_levels_to_bitmap(&[], 1, &mut v).is_err());
        assert_eq!(def_levels_to_bitmap(&[], 0, &mut v), Ok(0));
        // decode_levels: widths and values.
        let mut out = Vec::new();
        assert!(decode_levels(&[], 17, 0, &mut out).is_err());
        assert!(decode_levels(&[4, 0xff, 0xff], 16, 2, &mut out).is_err());
        let mut data = Vec::new();
        encode(&[0u16, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2], 2, &mut data);
        decode_levels(&data, 2, 13, &mut out).unwrap();
        assert_eq!(out, [0, 1, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2]);
        // Nothing to scatter: fine even with an empty bitmap at an offset.
        scatter_fixed::<u8>(&[], &[], 13, 0, &mut Vec::new()).unwrap();
        scatter_offsets(&[4], &[], 13, 0, &mut vec![0]).unwrap();
        // Bitmaps too short, offsets missing.
        assert!(scatter_fixed(&[1u8], &[1], 4, 5, &mut Vec::new()).is_err());
        assert!(scatter_offsets(&[0, 1], &[1], 0, 1, &mut Vec::<i64>::new()).is_err());
        assert!(scatter_offsets(&[], &[1], 0, 1, &mut vec![0]).is_err());
        assert!(scatter_bytes(&[1, 2], 3, &[1], 0, 1, &mut Vec::new()).is_err());
    }

    #[test]
    fn unaligned_packed_levels() {
        // A repeated run of 13 then bit-packed groups: the copied bits land mid-byte.
        let mut bits = vec![true; 13];
        bits.extend((0..40).map(|i| i % 2 == 1));
        bits.extend(vec![false; 9]);
        check_levels(&bits, 3);
    }

    #[cfg(feature = "probes")]
    #[test]
    fn probes_levels_paths() {
        use crate::probe;
        // All valid: one repeated run covering the batch.
        let mut data = Vec::new();
        encode(&[1u8; 1000], 1, &mut data);
        probe::reset();
        let mut v = BooleanBufferBuilder::new(0);
        def_levels_to_bitmap(&data, 1000, &mut v).unwrap();
        assert_eq!(probe::get("levels.single_run"), 1);
        assert_eq!(probe::get("levels.repeated_run"), 1);
        assert_eq!(probe::get("levels.packed_copy"), 0);
        // Alternating: bit-packed groups copied as bits, never the repeated path.
        let alt: Vec<u8> = (0..1000).map(|i| (i % 2) as u8).collect();
        let mut data = Vec::new();
        encode(&alt, 1, &mut data);
        probe::reset();
        def_levels_to_bitmap(&data, 1000, &mut v).unwrap();
        assert_eq!(probe::get("levels.single_run"), 0);
        assert_eq!(probe::get("levels.repeated_run"), 0);
        assert!(probe::get("levels.packed_copy") > 0);
        assert_eq!(probe::get("rle.packed_unaligned"), 0);

        // Scatter: no nulls is one copy, not a walk over runs.
        let all = vec![0xffu8; 128];
        let dense = vec![5u64; 1000];
        probe::reset();
        scatter_fixed_portable(&dense, &all, 3, 1000, &mut Vec::new()).unwrap();
        assert_eq!(probe::get("levels.scatter_all_valid"), 1);
        assert_eq!(probe::get("levels.scatter_run"), 0);
        // 1 % nulls in runs: one step per run of valid slots, far fewer than slots.
        let bits = pattern(42, 25_000, 1);
        let valid = bits.iter().filter(|&&b| b).count();
        let runs = 1 + bits.windows(2).filter(|w| !w[0] && w[1]).count();
        let validity = pack_bits(&bits);
        probe::reset();
        scatter_fixed_portable(&vec![1u32; valid], &validity, 0, 25_000, &mut Vec::new()).unwrap();
        assert_eq!(probe::get("levels.scatter_all_valid"), 0);
        assert!(probe::get("levels.scatter_run") as usize <= runs);
        assert!(probe::get("levels.scatter_run") < 2_000);
    }

    proptest! {
        #[test]
        fn prop_levels(seed in any::<u64>(), n in 0usize..3000, pct in prop_oneof![Just(0u64), Just(1), Just(50), Just(100), 0u64..=100], prefix in 0usize..20) {
            check_levels(&pattern(seed, n, pct), prefix);
        }

        #[test]
        fn prop_levels_random_bits(bits in proptest::collection::vec(any::<bool>(), 0..500)) {
            check_levels(&bits, 0);
        }

        #[test]
        fn prop_scatter(seed in any::<u64>(), n in 0usize..2000, pct in prop_oneof![Just(0u64), Just(1), Just(50), Just(100), 0u64..=100], off in 0usize..20) {
            check_scatter(&pattern(seed, n, pct), off);
        }

        #[test]
        fn prop_levels_garbage(data in proptest::collection::vec(any::<u8>(), 0..64), n in 0usize..600) {
            let mut a = BooleanBufferBuilder::new(0);
            let mut b = BooleanBufferBuilder::new(0);
            let ra = def_levels_to_bitmap(&data, n, &mut a);
            let rb = naive::def_levels_to_bitmap_via_i16(&data, n, &mut b);
            prop_assert_eq!(ra.is_ok(), rb.is_ok());
            if ra.is_ok() {
                prop_assert_eq!(ra, rb);
                prop_assert_eq!(bitmap_of(&mut a), bitmap_of(&mut b));
            }
        }
    }
}

#[cfg(test)]
mod scatter_bits_tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn scatter_bits_equals_per_slot(
            valid in proptest::collection::vec(any::<bool>(), 0..300),
            values in proptest::collection::vec(any::<bool>(), 300),
            off in 0usize..9,
            prefix in 0usize..70,
        ) {
            let mut v = BooleanBufferBuilder::new(0);
            v.append_n(off, false);
            for &b in &valid { v.append(b); }
            let v = v.finish();
            let n_valid = valid.iter().filter(|b| **b).count();
            let mut dense = BooleanBufferBuilder::new(0);
            for &b in &values[..n_valid] { dense.append(b); }
            let dense = dense.finish();
            let mut out = BooleanBufferBuilder::new(0);
            out.append_n(prefix, true);
            scatter_bits(dense.values(), n_valid, v.values(), off, valid.len(), &mut out).unwrap();
            let out = out.finish();
            let mut d = 0;
            for (i, &b) in valid.iter().enumerate() {
                let want = if b { d += 1; values[d - 1] } else { false };
                prop_assert_eq!(out.value(prefix + i), want);
            }
            prop_assert_eq!(out.len(), prefix + valid.len());
        }
    }

    /// Found by the `decode_scatter` fuzz target: an empty range starting past the bitmap
    /// panicked in BitChunks.
    #[test]
    fn bug_fuzz_2_empty_range_past_bitmap() {
        let mut out = BooleanBufferBuilder::new(0);
        scatter_bits(&[], 0, &[], 1, 0, &mut out).unwrap();
        assert_eq!(out.len(), 0);
    }

    #[test]
    fn scatter_bits_rejects_count_mismatch() {
        let mut out = BooleanBufferBuilder::new(0);
        assert!(scatter_bits(&[0xff], 3, &[0b101], 0, 3, &mut out).is_err());
        assert_eq!(out.len(), 0);
    }
}
