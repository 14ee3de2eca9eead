//! Content-defined chunking (CDC): data pages cut where the values say, not at sizes, so
//! that a file rewritten after a small edit shares almost all of its pages with the old one
//! and a content-addressed store keeps only the difference.
//!
//! The cuts are the ones Arrow C++ (pyarrow's `use_content_defined_chunking`) makes, so that
//! the same table written by parq and by pyarrow gets the same pages:
//!
//! - A gear hash rolls over every (definition level, repetition level, value) of a leaf, in
//!   the bytes Arrow would see: levels as 2 little-endian bytes each (the definition level
//!   only when the leaf has one, the repetition level only when it repeats), a value only
//!   when it is defined at the leaf's maximum level, as the little-endian bytes of the Arrow
//!   type the column reads as (`int8` is one byte, a decimal is 16 or 32, a byte array its
//!   bytes without a length, a boolean one byte of 0 or 1). Nulls roll no value.
//! - The first `min_chunk_size` bytes of a chunk are counted, not hashed. After that a chunk
//!   ends when the hash has matched the mask once with each of the 8 gear tables in turn, or
//!   at `max_chunk_size` bytes; the hash itself is never reset. Chunks end only where a
//!   record starts (repetition level 0), and the triplet that completed the match starts
//!   the next chunk.
//! - The mask has the top `floor(log2((avg - min) / 8)) - norm_level` bits set, with `avg`
//!   the mean of the minimum and maximum sizes.
//! - Inside a chunk the page limits still cut, the way Arrow's writer checks them: values
//!   go in batches of [`WRITE_BATCH`] levels (whole records for repeated leaves), and after
//!   each batch the page closes if its values reach the page size or its rows the row limit.
//!   The end of every chunk closes the page.
//!
//! Pages are what differ between two files, so a chunk's bytes stay the same when the rows
//! around it change; what parq cannot make identical is a dictionary (it depends on every
//! value of the chunk), hence CDC is meant with PLAIN (or another non-dictionary) encoding.
//!
//! Probe: `write.cdc_page_cut` (a page closed at a content-defined boundary).

use std::sync::OnceLock;

use arrow_buffer::BooleanBuffer;
use parq_codecs::probe;

use super::column::{Dense, PageRange};
use super::nested_pages::LeveledPage;
use crate::metadata::{LogicalType, SchemaElement, Type};
use crate::{Error, Result};

/// How many gear tables a boundary has to match in a row (Arrow's `kNumGearhashTables`).
const TABLES: usize = 8;

/// Levels per batch between two checks of the page limits (Arrow's default
/// `write_batch_size`): a page cut by size or rows falls where Arrow's does.
const WRITE_BATCH: usize = 1024;

/// How content-defined chunking cuts: [`WriterOptions::with_content_defined_chunking`]
/// turns it on. The defaults are Arrow C++'s (and so pyarrow's and arrow-rs's).
///
/// [`WriterOptions::with_content_defined_chunking`]: super::WriterOptions::with_content_defined_chunking
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct CdcOptions {
    /// Bytes (of levels and values, as hashed) before a chunk may end: 256 KiB.
    pub min_chunk_size: usize,
    /// Bytes at which a chunk ends whatever the hash says: 1 MiB.
    pub max_chunk_size: usize,
    /// Bits taken off the mask: higher levels end chunks more often, nearer the average
    /// size (more, smaller pages, better deduplication). 0.
    pub norm_level: i32,
}

impl Default for CdcOptions {
    fn default() -> Self {
        CdcOptions {
            min_chunk_size: 256 * 1024,
            max_chunk_size: 1024 * 1024,
            norm_level: 0,
        }
    }
}

impl CdcOptions {
    /// Set the minimum chunk size in bytes.
    pub fn with_min_chunk_size(mut self, bytes: usize) -> Self {
        self.min_chunk_size = bytes;
        self
    }
    /// Set the maximum chunk size in bytes.
    pub fn with_max_chunk_size(mut self, bytes: usize) -> Self {
        self.max_chunk_size = bytes;
        self
    }
    /// Set the normalisation level.
    pub fn with_norm_level(mut self, level: i32) -> Self {
        self.norm_level = level;
        self
    }

    /// The mask a hash must have all zeros under to match; an error for sizes that leave it
    /// fewer than 1 or more than 63 bits (Arrow refuses the same).
    pub(crate) fn mask(&self) -> Result<u64> {
        let bad = |what: String| Err(Error::InvalidArgument(format!("CDC options: {what}")));
        if self.max_chunk_size <= self.min_chunk_size {
            return bad(format!(
                "max_chunk_size {} must be greater than min_chunk_size {}",
                self.max_chunk_size, self.min_chunk_size
            ));
        }
        let avg = (self.min_chunk_size as u64 + self.max_chunk_size as u64) / 2;
        // The first `min` bytes are skipped, and a cut needs a match in each of the tables:
        // each match is aimed at an eighth of what is left of the average.
        let target = (avg - self.min_chunk_size as u64) / TABLES as u64;
        let mask_bits = if target == 0 {
            0
        } else {
            63 - target.leading_zeros() as i64
        };
        let bits = mask_bits - self.norm_level as i64;
        if !(1..=63).contains(&bits) {
            return bad(format!(
                "the mask must have between 1 and 63 bits, these sizes and norm_level {} give {bits}",
                self.norm_level
            ));
        }
        Ok(u64::MAX << (64 - bits))
    }
}

/// The gear tables: entry `n` of table `t` is the first 8 bytes (read big-endian, as the
/// 16 hex digits Arrow's generator prints) of the MD5 of 64 bytes `t` then 64 bytes `n`.
/// Computed here from that rule rather than carried as a table of constants; a test checks
/// some entries against the ones Arrow publishes.
pub(crate) fn gear_tables() -> &'static [[u64; 256]; TABLES] {
    static TABLES_: OnceLock<[[u64; 256]; TABLES]> = OnceLock::new();
    TABLES_.get_or_init(|| {
        let mut t = [[0u64; 256]; TABLES];
        for (seed, table) in t.iter_mut().enumerate() {
            for (n, entry) in table.iter_mut().enumerate() {
                let mut input = [seed as u8; 128];
                input[64..].fill(n as u8);
                let d = md5(&input);
                *entry = u64::from_be_bytes(d[..8].try_into().expect("8 bytes"));
            }
        }
        t
    })
}

/// MD5 (RFC 1321), only to derive the gear tables: no cryptographic use.
fn md5(input: &[u8]) -> [u8; 16] {
    // Per-round left rotations and the sine-derived constants of the RFC.
    const S: [u32; 16] = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];
    let k: [u32; 64] =
        std::array::from_fn(|i| ((i as f64 + 1.0).sin().abs() * 4294967296.0) as u32);
    let mut state: [u32; 4] = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476];
    let mut msg = input.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((input.len() as u64) * 8).to_le_bytes());
    for block in msg.chunks_exact(64) {
        let m: [u32; 16] = std::array::from_fn(|i| {
            u32::from_le_bytes(block[4 * i..4 * i + 4].try_into().expect("4 bytes"))
        });
        let [mut a, mut b, mut c, mut d] = state;
        for i in 0..64 {
            let (f, g) = match i / 16 {
                0 => ((b & c) | (!b & d), i),
                1 => ((d & b) | (!d & c), (5 * i + 1) % 16),
                2 => (b ^ c ^ d, (3 * i + 5) % 16),
                _ => (c ^ (b | !d), (7 * i) % 16),
            };
            let rotated = a
                .wrapping_add(f)
                .wrapping_add(k[i])
                .wrapping_add(m[g])
                .rotate_left(S[(i / 16) * 4 + i % 4]);
            (a, d, c) = (d, c, b);
            b = b.wrapping_add(rotated);
        }
        for (s, v) in state.iter_mut().zip([a, b, c, d]) {
            *s = s.wrapping_add(v);
        }
    }
    let mut out = [0u8; 16];
    for (i, s) in state.iter().enumerate() {
        out[4 * i..4 * i + 4].copy_from_slice(&s.to_le_bytes());
    }
    out
}

/// The rolling state of one column chunk's chunker.
pub(crate) struct Chunker {
    tables: &'static [[u64; 256]; TABLES],
    mask: u64,
    min: u64,
    max: u64,
    /// Bytes rolled since the last boundary.
    size: u64,
    hash: u64,
    /// Which table the next match must come from.
    run: usize,
    /// Whether the hash matched since the last look.
    matched: bool,
}

impl Chunker {
    pub(crate) fn new(options: &CdcOptions) -> Result<Self> {
        Ok(Chunker {
            tables: gear_tables(),
            mask: options.mask()?,
            min: options.min_chunk_size as u64,
            max: options.max_chunk_size as u64,
            size: 0,
            hash: 0,
            run: 0,
            matched: false,
        })
    }

    /// Roll `bytes` into the hash (only counted while the chunk is under the minimum).
    #[inline]
    pub(crate) fn roll(&mut self, bytes: &[u8]) {
        self.size += bytes.len() as u64;
        if self.size < self.min {
            return;
        }
        let table = &self.tables[self.run];
        let mut matched = false;
        for &b in bytes {
            self.hash = (self.hash << 1).wrapping_add(table[b as usize]);
            matched |= self.hash & self.mask == 0;
        }
        self.matched |= matched;
    }

    /// Whether a chunk ends here: a match with the last of the tables in turn, or the
    /// maximum size reached.
    #[inline]
    pub(crate) fn boundary(&mut self) -> bool {
        if self.matched {
            self.matched = false;
            self.run += 1;
            if self.run >= TABLES {
                self.run = 0;
                self.size = 0;
                return true;
            }
        }
        if self.size >= self.max {
            self.size = 0;
            return true;
        }
        false
    }
}

/// The bytes Arrow rolls for a value of a column: the Arrow type the Parquet type reads as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ValueForm {
    /// The PLAIN bytes (little-endian numbers, byte arrays without length, FLBA as is).
    #[default]
    Plain,
    /// The low `n` bytes of an INT32: `INTEGER(8|16)` read as `int8`, `uint16`, ....
    Narrow(usize),
    /// A decimal as Arrow's `decimal128` (16) or `decimal256` (32): little-endian two's
    /// complement, from an INT32, INT64 or big-endian byte array.
    Decimal(usize),
    /// INT96 as Arrow's `timestamp[ns]`: nanoseconds since the epoch.
    Int96Nanos,
}

impl ValueForm {
    /// The form of the leaf `e` (of physical type `physical`).
    pub(crate) fn of(e: &SchemaElement, physical: Type) -> Self {
        match (physical, e.logical_type.as_ref()) {
            (Type::INT96, _) => ValueForm::Int96Nanos,
            (Type::INT32, Some(LogicalType::Integer { bit_width, .. })) if *bit_width < 32 => {
                ValueForm::Narrow((*bit_width as usize / 8).max(1))
            }
            (
                Type::INT32 | Type::INT64 | Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY,
                Some(LogicalType::Decimal { precision, .. }),
            ) => ValueForm::Decimal(if *precision > 38 { 32 } else { 16 }),
            _ => ValueForm::Plain,
        }
    }
}

/// Roll stored value `i` of `dense` into `ch`.
type RollValue<'a> = Box<dyn Fn(&mut Chunker, usize) + 'a>;

/// Sign-extend a big-endian two's complement integer to `width` little-endian bytes.
fn decimal_le(be: &[u8], width: usize, out: &mut [u8; 32]) {
    let negative = be.first().is_some_and(|b| b & 0x80 != 0);
    out[..width].fill(if negative { 0xff } else { 0 });
    for (i, &b) in be.iter().rev().take(width).enumerate() {
        out[i] = b;
    }
}

/// How to roll the stored values of `dense`, each in the form Arrow would roll it.
fn roller<'a>(dense: &'a Dense<'a>, form: ValueForm) -> RollValue<'a> {
    fn wide(v: i64, width: usize, ch: &mut Chunker) {
        let mut b = [if v < 0 { 0xff } else { 0 }; 32];
        b[..8].copy_from_slice(&v.to_le_bytes());
        ch.roll(&b[..width]);
    }
    match (dense, form) {
        (Dense::Boolean(b), _) => {
            let b: &'a BooleanBuffer = b;
            Box::new(move |ch, i| ch.roll(&[b.value(i) as u8]))
        }
        (Dense::Int32(v), ValueForm::Narrow(n)) => {
            Box::new(move |ch, i| ch.roll(&v[i].to_le_bytes()[..n]))
        }
        (Dense::Int32(v), ValueForm::Decimal(w)) => Box::new(move |ch, i| wide(v[i] as i64, w, ch)),
        (Dense::Int32(v), _) => Box::new(move |ch, i| ch.roll(&v[i].to_le_bytes())),
        (Dense::Int64(v), ValueForm::Decimal(w)) => Box::new(move |ch, i| wide(v[i], w, ch)),
        (Dense::Int64(v), _) => Box::new(move |ch, i| ch.roll(&v[i].to_le_bytes())),
        (Dense::Float(v), _) => Box::new(move |ch, i| ch.roll(&v[i].to_le_bytes())),
        (Dense::Double(v), _) => Box::new(move |ch, i| ch.roll(&v[i].to_le_bytes())),
        (Dense::Fixed { width, data }, ValueForm::Int96Nanos) => {
            let width = *width;
            Box::new(move |ch, i| {
                let v = &data[i * width..(i + 1) * width];
                let nanos = i64::from_le_bytes(v[..8].try_into().expect("8 bytes"));
                let day = i32::from_le_bytes(v[8..12].try_into().expect("4 bytes")) as i64;
                // Julian day 2440588 is 1970-01-01.
                let t = (day - 2_440_588)
                    .wrapping_mul(86_400_000_000_000)
                    .wrapping_add(nanos);
                ch.roll(&t.to_le_bytes())
            })
        }
        (Dense::Fixed { width, data }, ValueForm::Decimal(w)) => {
            let width = *width;
            Box::new(move |ch, i| {
                let mut out = [0u8; 32];
                decimal_le(&data[i * width..(i + 1) * width], w, &mut out);
                ch.roll(&out[..w])
            })
        }
        (Dense::Fixed { width, data }, _) => {
            let width = *width;
            Box::new(move |ch, i| ch.roll(&data[i * width..(i + 1) * width]))
        }
        (Dense::Bytes(v), ValueForm::Decimal(w)) => Box::new(move |ch, i| {
            let mut out = [0u8; 32];
            decimal_le(v[i], w, &mut out);
            ch.roll(&out[..w])
        }),
        (Dense::Bytes(v), _) => Box::new(move |ch, i| ch.roll(v[i])),
    }
}

/// The levels of a column chunk: `def` empty when `max_def == 0`, `rep` empty when
/// `max_rep == 0`.
pub(crate) struct Levels<'a> {
    pub max_def: u16,
    pub max_rep: u16,
    pub def: &'a [u16],
    pub rep: &'a [u16],
    pub pairs: usize,
}

impl Levels<'_> {
    #[inline]
    fn stored(&self, i: usize) -> bool {
        self.max_def == 0 || self.def[i] == self.max_def
    }
    #[inline]
    fn record_start(&self, i: usize) -> bool {
        self.max_rep == 0 || self.rep[i] == 0
    }
}

/// The level pairs at which content-defined chunks start (never 0), rolling the levels and
/// the stored values of `dense` as Arrow does.
pub(crate) fn boundaries(
    options: &CdcOptions,
    levels: &Levels<'_>,
    dense: &Dense<'_>,
    form: ValueForm,
) -> Result<Vec<usize>> {
    let mut ch = Chunker::new(options)?;
    let roll = roller(dense, form);
    let mut v = 0;
    let mut out = Vec::new();
    for i in 0..levels.pairs {
        if levels.max_def > 0 {
            ch.roll(&(levels.def[i] as i16).to_le_bytes());
        }
        if levels.max_rep > 0 {
            ch.roll(&(levels.rep[i] as i16).to_le_bytes());
        }
        if levels.stored(i) {
            roll(&mut ch, v);
            v += 1;
        }
        // The chunker is asked only at record starts; a chunk that would be empty (at the
        // first pair) is none.
        if levels.record_start(i) && ch.boundary() && i > 0 {
            out.push(i);
        }
    }
    Ok(out)
}

/// The pages of a chunk of `levels` cut at `bounds` (from [`boundaries`]) and, inside each
/// content-defined chunk, where Arrow's writer checks its page limits: after each batch of
/// [`WRITE_BATCH`] levels (of whole records when the leaf repeats), when the page's values
/// reach `target_bits` (`cost(i)` bits for stored value `i`) or its records `row_limit`.
pub(crate) fn pages(
    levels: &Levels<'_>,
    bounds: &[usize],
    cost: impl Fn(usize) -> u64,
    target_bits: u64,
    row_limit: usize,
) -> Vec<LeveledPage> {
    let row_limit = row_limit.max(1);
    let mut cut = Cutter {
        levels,
        cost,
        pages: Vec::new(),
        page: LeveledPage::default(),
        bits: 0,
    };
    let ends = bounds.iter().copied().chain([levels.pairs]);
    let mut start = 0;
    for end in ends {
        let mut at = start;
        if levels.max_rep == 0 {
            while at < end {
                let n = WRITE_BATCH
                    .min(end - at)
                    .min(row_limit - cut.page.rows.min(row_limit - 1));
                at += n;
                cut.take(at);
                cut.check(target_bits, row_limit);
            }
        } else {
            while at < end {
                // Whole records of at least a batch of levels, or up to the row limit, or
                // the rest of the chunk (then its last record separately).
                let max_batch = WRITE_BATCH.min(end - at);
                let (mut stop, mut last_start) = (end, None);
                let mut rows = cut.page.rows;
                for i in at..end {
                    if levels.rep[i] == 0 {
                        last_start = Some(i);
                        if i - at >= max_batch || rows >= row_limit {
                            stop = i;
                            break;
                        }
                        rows += 1;
                    }
                }
                if let Some(s) = last_start {
                    cut.take(s);
                    cut.check(target_bits, row_limit);
                    at = s;
                }
                if stop > at {
                    cut.take(stop);
                    cut.check(target_bits, row_limit);
                }
                at = stop;
            }
        }
        if end < levels.pairs && cut.close() {
            probe::hit("write.cdc_page_cut");
        }
        start = end;
    }
    cut.close();
    cut.pages
}

/// The open page of [`pages`] and the pages closed so far.
struct Cutter<'a, 'b, C> {
    levels: &'a Levels<'b>,
    cost: C,
    pages: Vec<LeveledPage>,
    page: LeveledPage,
    /// Bits of the open page's values.
    bits: u64,
}

impl<C: Fn(usize) -> u64> Cutter<'_, '_, C> {
    /// Add the pairs up to `to` to the open page.
    fn take(&mut self, to: usize) {
        let r = &mut self.page.range;
        for i in r.slot_end..to {
            if self.levels.record_start(i) {
                self.page.rows += 1;
            }
            if self.levels.stored(i) {
                self.bits += (self.cost)(r.value_end);
                r.value_end += 1;
            }
        }
        r.slot_end = r.slot_end.max(to);
    }

    /// Close the page if it reached a limit.
    fn check(&mut self, target_bits: u64, row_limit: usize) {
        if self.bits >= target_bits || self.page.rows >= row_limit {
            self.close();
        }
    }

    /// Close the open page unless it is empty; whether it was not.
    fn close(&mut self) -> bool {
        let r = self.page.range;
        if r.slot_end == r.slot_start {
            return false;
        }
        self.pages.push(self.page);
        self.page = LeveledPage {
            range: PageRange {
                slot_start: r.slot_end,
                slot_end: r.slot_end,
                value_start: r.value_end,
                value_end: r.value_end,
            },
            first_row: self.page.first_row + self.page.rows,
            rows: 0,
        };
        self.bits = 0;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn md5_of_the_rfc_examples() {
        let hex = |d: [u8; 16]| d.iter().map(|b| format!("{b:02x}")).collect::<String>();
        assert_eq!(hex(md5(b"")), "d41d8cd98f00b204e9800998ecf8427e");
        assert_eq!(hex(md5(b"abc")), "900150983cd24fb0d6963f7d28e17f72");
        assert_eq!(
            hex(md5(
                b"12345678901234567890123456789012345678901234567890123456789012345678901234567890"
            )),
            "57edf4a22be3c955ac49da2e2107b67a"
        );
    }

    /// Entries of Arrow's `chunker_internal_generated.h`, which the rule reproduces.
    #[test]
    fn gear_tables_match_arrows_published_values() {
        let t = gear_tables();
        assert_eq!(t[0][0], 0xf09f35a563783945);
        assert_eq!(t[0][1], 0x0dcc5b3bc5ae410a);
        assert_eq!(t[0][2], 0x63f1ea8d22554270);
        assert_eq!(t[0][3], 0xfbe5ee7bd05a7b61);
        assert_eq!(t[3][0], 0x39209fb3eb541043);
        assert_eq!(t[3][7], 0xc6389e426f4c2fc0);
        assert_eq!(t[7][0], 0xc0272d42c19ff3ae);
        assert_eq!(t[7][255], 0x8df9314914f0857e);
    }

    #[test]
    fn default_mask_has_15_bits() {
        let m = CdcOptions::default().mask().unwrap();
        assert_eq!(m.count_ones(), 15);
        assert_eq!(m.leading_ones(), 15);
        let m = CdcOptions::default().with_norm_level(2).mask().unwrap();
        assert_eq!(m.count_ones(), 13);
        assert!(CdcOptions::default()
            .with_max_chunk_size(256 * 1024)
            .mask()
            .is_err());
        assert!(CdcOptions::default().with_norm_level(15).mask().is_err());
    }

    #[test]
    fn decimals_sign_extend() {
        let mut out = [0u8; 32];
        decimal_le(&[0xff, 0x01], 16, &mut out);
        assert_eq!(out[0], 0x01);
        assert_eq!(out[1], 0xff);
        assert!(out[2..16].iter().all(|&b| b == 0xff));
    }

    /// Flat non-null values: batches of 1024 and the row limit cut inside chunks, the
    /// boundaries between them.
    #[test]
    fn pages_cut_at_bounds_and_limits() {
        let levels = Levels {
            max_def: 0,
            max_rep: 0,
            def: &[],
            rep: &[],
            pairs: 10_000,
        };
        let p = pages(&levels, &[3000, 3500], |_| 64, u64::MAX, 2000);
        let starts: Vec<usize> = p.iter().map(|p| p.range.slot_start).collect();
        assert_eq!(starts, [0, 2000, 3000, 3500, 5500, 7500, 9500]);
        // Size: 1024-level batches of 64 bits against 100 000 bits.
        let p = pages(&levels, &[], |_| 64, 100_000, 20_000);
        assert_eq!(p[0].range.slot_end, 2048);
        assert_eq!(p[1].range.slot_end, 4096);
    }

    /// Repeated: batches of whole records of at least 1024 levels.
    #[test]
    fn repeated_pages_hold_whole_records() {
        // Records of 3 levels each.
        let rep: Vec<u16> = (0..3000).map(|i| (i % 3 != 0) as u16).collect();
        let def = vec![1u16; 3000];
        let levels = Levels {
            max_def: 1,
            max_rep: 1,
            def: &def,
            rep: &rep,
            pairs: 3000,
        };
        let p = pages(&levels, &[], |_| 64, 64 * 1000, 20_000);
        // The first check is after the records that start before level 1026 (1024 rounded
        // up to a record start): 1026 values are past 1000.
        assert_eq!(p[0].range.slot_end, 1026);
        assert!(p.iter().all(|p| rep[p.range.slot_start] == 0));
        assert_eq!(p.iter().map(|p| p.rows).sum::<usize>(), 1000);
    }
}
