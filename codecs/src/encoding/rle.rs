//! The RLE / bit-packing hybrid encoding, used for repetition and definition levels,
//! dictionary indices and booleans
//! (<https://github.com/apache/parquet-format/blob/master/Encodings.md#run-length-encoding--bit-packing-hybrid-rle--3>).
//!
//! ```text
//! rle-bit-packed-hybrid: <length> <encoded-data>
//! length := length of the <encoded-data> in bytes stored as 4 bytes little endian (unsigned int32)
//! encoded-data := <run>*
//! run := <bit-packed-run> | <rle-run>
//! bit-packed-run := <bit-packed-header> <bit-packed-values>
//! bit-packed-header := varint-encode(<bit-pack-scaled-run-len> << 1 | 1)
//! // we always bit-pack a multiple of 8 values at a time, so we only store the number of values / 8
//! bit-pack-scaled-run-len := (bit-packed-run-len) / 8
//! bit-packed-run-len := *see 3 below*
//! bit-packed-values := *see 1 below*
//! rle-run := <rle-header> <repeated-value>
//! rle-header := varint-encode( (rle-run-len) << 1)
//! rle-run-len := *see 3 below*
//! repeated-value := value that is repeated, using a fixed-width of round-up-to-next-byte(bit-width)
//! ```
//!
//! The `<length>` prefix is only present for v1 data-page levels ([`split_length_prefixed`]);
//! dictionary indices carry a one-byte bit width instead ([`dictionary_index_decoder`]).
//!
//! [`RleDecoder`] exposes the stream both as runs ([`RleDecoder::next_run`]), so callers can
//! work a run at a time (fill a repeated run, copy a bit-packed one), and as values
//! ([`RleDecoder::get_batch`]).
//!
//! Probes: `rle.repeated_run` / `rle.packed_run` (runs loaded), `rle.packed_unaligned` (a read
//! that starts inside a bit-packed group: the slow path of value-level reads),
//! `rle.gather_fill` (dictionary gather of a repeated run: one check + fill) and
//! `rle.gather_packed` (dictionary gather of bit-packed indices, a check per index).

#![forbid(unsafe_code)]

use crate::encoding::bitpack::{self, BitPackable};
use crate::kernels::bitpack::Unpacker;
use crate::{Error, Result};

/// Largest bit width the decoder accepts (values are read as `u64`).
pub const MAX_BIT_WIDTH: u32 = 64;

/// Largest bit width of dictionary indices: the spec stores them as 32-bit values.
pub const MAX_DICTIONARY_BIT_WIDTH: u32 = 32;

/// Longest repeated run the encoder writes, so that `len << 1` fits a signed 32-bit varint as
/// Java readers (parquet-mr) expect.
const MAX_ENCODED_RUN: usize = (i32::MAX as usize) >> 1;

/// Bit-packed groups per run the encoder writes, so that the header fits one reserved byte.
const MAX_GROUPS_PER_RUN: usize = 63;

/// Runs of up to this many values are decoded by [`RleDecoder::get_batch`] as exactly this many
/// (when `out` has room), the excess overwritten by the following runs.
const SHORT_RUN: usize = 64;

/// Indices unpacked per step by [`gather_dictionary`] (a stack buffer).
const GATHER_CHUNK: usize = 1024;

/// One run of the hybrid stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Run<'a> {
    /// `len` copies of `value`.
    Repeated {
        /// The repeated value (fits in the bit width).
        value: u64,
        /// Number of values in the run.
        len: usize,
    },
    /// `len` values bit-packed at `width` bits, LSB first (see [`bitpack::unpack`]).
    Packed {
        /// Bits per value.
        width: u32,
        /// Exactly the run's bytes: `len * width / 8`.
        bytes: &'a [u8],
        /// Number of values, a multiple of 8 (the last group may be padding past the end of
        /// the column's values).
        len: usize,
    },
}

/// A part of a run, as handed out internally: like [`Run`], but a bit-packed part may start
/// `skip` values into its first group of 8.
#[derive(Debug, Clone, Copy)]
enum Chunk<'a> {
    Repeated {
        value: u64,
        len: usize,
    },
    Packed {
        /// Bytes from the group holding the first value to the end of the data (past the run's
        /// end: the SIMD kernels may read ahead).
        bytes: &'a [u8],
        /// Values of the first group to skip (0..8).
        skip: usize,
        /// Values in this chunk.
        len: usize,
    },
}

/// Decoder of a hybrid stream without length prefix.
///
/// Reading is resumable at any value: [`get_batch`](Self::get_batch) and
/// [`skip`](Self::skip) may stop in the middle of a run, and the next call continues there.
#[derive(Debug, Clone)]
pub struct RleDecoder<'a> {
    data: &'a [u8],
    /// Offset of the next run header.
    pos: usize,
    bit_width: u32,
    /// Bytes of a repeated value: `ceil(bit_width / 8)`.
    value_bytes: usize,
    /// The low `8 * value_bytes` bits set: a repeated value read as 8 bytes, masked.
    value_bytes_mask: u64,
    /// The low `bit_width` bits set: a repeated value must fit.
    value_mask: u64,
    /// The partly consumed run.
    cur: Current<'a>,
}

#[derive(Debug, Clone, Copy)]
enum Current<'a> {
    Empty,
    Repeated {
        value: u64,
        left: usize,
    },
    Packed {
        /// From the group holding the next value to the end of the data (not of the run: the
        /// unpack kernels can load whole vectors near the run's end).
        bytes: &'a [u8],
        /// Values of the first group already consumed.
        skip: usize,
        left: usize,
    },
}

/// Read an unsigned LEB128 varint at `pos`; returns the value and its length in bytes.
fn read_uleb(data: &[u8], pos: usize) -> Result<(u64, usize)> {
    let mut v: u64 = 0;
    for i in 0..10 {
        let Some(&b) = data.get(pos + i) else {
            return Err(Error::Truncated {
                offset: pos,
                needed: i + 1,
                available: data.len().saturating_sub(pos),
            });
        };
        if i == 9 && b > 1 {
            break;
        }
        v |= ((b & 0x7f) as u64) << (7 * i);
        if b & 0x80 == 0 {
            return Ok((v, i + 1));
        }
    }
    Err(Error::InvalidData {
        offset: pos,
        what: "run header varint longer than 64 bits",
    })
}

/// The low `n` (`<= 64`) bits set.
fn low_bits(n: u32) -> u64 {
    if n >= 64 {
        u64::MAX
    } else {
        (1u64 << n) - 1
    }
}

fn write_uleb(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Where an [`RleDecoder`] stands in its data, to resume there later over the same data
/// ([`RleDecoder::checkpoint`], [`RleDecoder::resume`]): a reader that decodes a page in
/// parts continues from the end of the last part instead of skipping from the page start.
/// Made by [`RleDecoder::checkpoint`].
#[derive(Debug, Clone, Copy)]
pub struct RlePosition {
    pos: usize,
    cur: PositionAt,
}

#[derive(Debug, Clone, Copy)]
enum PositionAt {
    Empty,
    Repeated {
        value: u64,
        left: usize,
    },
    /// `from` is where the partly consumed run's next group starts in the data.
    Packed {
        from: usize,
        skip: usize,
        left: usize,
    },
}

impl<'a> RleDecoder<'a> {
    /// Where the decoder stands (see [`RlePosition`]).
    pub fn checkpoint(&self) -> RlePosition {
        let cur = match self.cur {
            Current::Empty => PositionAt::Empty,
            Current::Repeated { value, left } => PositionAt::Repeated { value, left },
            // `bytes` is always a suffix of the data.
            Current::Packed { bytes, skip, left } => PositionAt::Packed {
                from: self.data.len() - bytes.len(),
                skip,
                left,
            },
        };
        RlePosition { pos: self.pos, cur }
    }

    /// Continue from `at`, a [`Self::checkpoint`] of a decoder over the same data and bit
    /// width. A position past the data is an error, never a panic.
    pub fn resume(&mut self, at: RlePosition) -> Result<()> {
        let past = || Error::InvalidData {
            offset: at.pos,
            what: "resumed past the data",
        };
        if at.pos > self.data.len() {
            return Err(past());
        }
        self.pos = at.pos;
        self.cur = match at.cur {
            PositionAt::Empty => Current::Empty,
            PositionAt::Repeated { value, left } => Current::Repeated { value, left },
            PositionAt::Packed { from, skip, left } => Current::Packed {
                bytes: self.data.get(from..).ok_or_else(past)?,
                skip,
                left,
            },
        };
        Ok(())
    }

    /// A decoder over `data`, a hybrid stream without length prefix, of values `bit_width` bits
    /// wide (`<= 64`; Parquet uses `<= 32`).
    pub fn new(data: &'a [u8], bit_width: u32) -> Result<Self> {
        if bit_width > MAX_BIT_WIDTH {
            return Err(Error::InvalidBitWidth {
                width: bit_width,
                max: MAX_BIT_WIDTH,
            });
        }
        Ok(Self {
            data,
            pos: 0,
            bit_width,
            value_bytes: bit_width.div_ceil(8) as usize,
            value_bytes_mask: low_bits(bit_width.div_ceil(8) * 8),
            value_mask: low_bits(bit_width),
            cur: Current::Empty,
        })
    }

    /// The bit width of the values.
    pub fn bit_width(&self) -> u32 {
        self.bit_width
    }

    /// Bytes consumed: the offset just past the last run that was started (a run is consumed
    /// as a whole as soon as any value of it is read).
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Read the next non-empty run header into `self.cur`; false at the end of the data.
    /// `self.cur` is `Empty` on entry (and stays so on error).
    fn load(&mut self) -> Result<bool> {
        self.cur = self.read_run()?;
        Ok(!matches!(self.cur, Current::Empty))
    }

    /// Read the next non-empty run header; `Empty` at the end of the data.
    ///
    /// Inline fast path for the common case: a one- or two-byte header of a non-empty run, two
    /// bytes of data left at least, and at least 8 bytes after a repeated run's header, so
    /// the value is one unaligned load and a mask. Everything else (longer headers, empty
    /// runs, the last bytes of the data, errors) goes to [`read_run_slow`](Self::read_run_slow).
    #[inline(always)]
    fn read_run(&mut self) -> Result<Current<'a>> {
        let pos = self.pos;
        // A header of one or two bytes: runs of up to 8191 groups or repeats.
        let header = match self.data.get(pos..pos + 2) {
            Some(&[b0, _]) if b0 < 0x80 => Some((b0 as usize, pos + 1)),
            Some(&[b0, b1]) if b1 < 0x80 => {
                Some(((b0 & 0x7f) as usize | (b1 as usize) << 7, pos + 2))
            }
            _ => None,
        };
        if let Some((h, body)) = header {
            let count = h >> 1;
            if count > 0 {
                if h & 1 == 1 {
                    // At most 8191 groups of at most 64 bytes: no overflow.
                    let nbytes = count * self.bit_width as usize;
                    if let Some(bytes) = self.data.get(body..) {
                        if nbytes <= bytes.len() {
                            crate::probe::hit("rle.packed_run");
                            self.pos = body + nbytes;
                            return Ok(Current::Packed {
                                bytes,
                                skip: 0,
                                left: count * 8,
                            });
                        }
                    }
                } else if let Some(raw) = self.data.get(body..body + 8) {
                    let mut word = [0u8; 8];
                    word.copy_from_slice(raw);
                    let value = u64::from_le_bytes(word) & self.value_bytes_mask;
                    if value & !self.value_mask == 0 {
                        crate::probe::hit("rle.repeated_run");
                        self.pos = body + self.value_bytes;
                        return Ok(Current::Repeated { value, left: count });
                    }
                }
            }
        }
        self.read_run_slow()
    }

    /// [`read_run`](Self::read_run) for any header, and the errors.
    #[inline(never)]
    fn read_run_slow(&mut self) -> Result<Current<'a>> {
        while self.pos < self.data.len() {
            let start = self.pos;
            let (header, n) = read_uleb(self.data, start)?;
            let body = start + n;
            let count = usize::try_from(header >> 1).map_err(|_| Error::TooLarge {
                what: "run length",
                declared: header >> 1,
                limit: usize::MAX as u64,
            })?;
            if header & 1 == 1 {
                // Bit-packed: `count` groups of 8 values, `bit_width` bytes per group.
                let too_large = || Error::TooLarge {
                    what: "bit-packed run",
                    declared: header >> 1,
                    limit: (usize::MAX / 8) as u64,
                };
                let len = count.checked_mul(8).ok_or_else(too_large)?;
                let nbytes = count
                    .checked_mul(self.bit_width as usize)
                    .ok_or_else(too_large)?;
                let available = self.data.len() - body;
                if nbytes > available {
                    return Err(Error::Truncated {
                        offset: body,
                        needed: nbytes,
                        available,
                    });
                }
                self.pos = body + nbytes;
                if len == 0 {
                    continue;
                }
                crate::probe::hit("rle.packed_run");
                return Ok(Current::Packed {
                    // The bit width may be 0: then the run has no bytes, and every value is 0.
                    bytes: &self.data[body..],
                    skip: 0,
                    left: len,
                });
            }
            let vb = self.value_bytes;
            let Some(raw) = self.data.get(body..body + vb) else {
                if count == 0 {
                    // An empty repeated run without its value at the very end: some writers
                    // (fraugster/parquet-go, for pages without values) emit a lone 0x00. It
                    // holds no values, so it ends the stream rather than failing it.
                    self.pos = self.data.len();
                    return Ok(Current::Empty);
                }
                return Err(Error::Truncated {
                    offset: body,
                    needed: vb,
                    available: self.data.len() - body,
                });
            };
            let mut buf = [0u8; 8];
            buf[..vb].copy_from_slice(raw);
            let value = u64::from_le_bytes(buf);
            if value & !self.value_mask != 0 {
                return Err(Error::InvalidData {
                    offset: body,
                    what: "repeated value wider than the bit width",
                });
            }
            self.pos = body + vb;
            if count == 0 {
                continue;
            }
            crate::probe::hit("rle.repeated_run");
            return Ok(Current::Repeated { value, left: count });
        }
        Ok(Current::Empty)
    }

    /// Take up to `max` (> 0) values of the current run, loading the next run if needed.
    fn next_chunk(&mut self, max: usize) -> Result<Option<Chunk<'a>>> {
        self.next_chunk_capped(max, max)
    }

    /// Like [`next_chunk`](Self::next_chunk), but a bit-packed chunk holds at most
    /// `max_packed` (> 0) values.
    fn next_chunk_capped(&mut self, max: usize, max_packed: usize) -> Result<Option<Chunk<'a>>> {
        if matches!(self.cur, Current::Empty) && !self.load()? {
            return Ok(None);
        }
        Ok(Some(self.take(max, max_packed)))
    }

    /// Take up to `max` values (`max_packed` if bit-packed) of the (non-empty) current run.
    fn take(&mut self, max: usize, max_packed: usize) -> Chunk<'a> {
        match &mut self.cur {
            Current::Empty => Chunk::Repeated { value: 0, len: 0 },
            Current::Repeated { value, left } => {
                let len = max.min(*left);
                let value = *value;
                *left -= len;
                if *left == 0 {
                    self.cur = Current::Empty;
                }
                Chunk::Repeated { value, len }
            }
            Current::Packed { bytes, skip, left } => {
                let len = max.min(max_packed).min(*left);
                let chunk = Chunk::Packed {
                    bytes,
                    skip: *skip,
                    len,
                };
                let consumed = *skip + len;
                let advance = (consumed / 8) * self.bit_width as usize;
                *bytes = bytes.get(advance..).unwrap_or(&[]);
                *skip = consumed % 8;
                *left -= len;
                if *left == 0 {
                    self.cur = Current::Empty;
                }
                chunk
            }
        }
    }

    /// The next run, or `None` at the end of the data.
    ///
    /// If [`get_batch`](Self::get_batch) or [`skip`](Self::skip) stopped inside a run, this
    /// returns the rest of that run. That is not possible when they stopped inside a group of 8
    /// bit-packed values: then this returns [`Error::Unsupported`] (read up to the next multiple
    /// of 8 values first).
    pub fn next_run(&mut self) -> Result<Option<Run<'a>>> {
        if let Current::Packed { skip, .. } = self.cur {
            if skip != 0 {
                return Err(Error::Unsupported(
                    "next_run in the middle of a bit-packed group",
                ));
            }
        }
        if let Current::Empty = self.cur {
            // A whole new run: straight from the header (it is consumed at once).
            return Ok(match self.read_run()? {
                Current::Empty => None,
                Current::Repeated { value, left } => Some(Run::Repeated { value, len: left }),
                Current::Packed { bytes, left, .. } => {
                    let nbytes = left / 8 * self.bit_width as usize;
                    Some(Run::Packed {
                        width: self.bit_width,
                        bytes: bytes.get(..nbytes).unwrap_or(bytes),
                        len: left,
                    })
                }
            });
        }
        Ok(match self.next_chunk(usize::MAX)? {
            None => None,
            Some(Chunk::Repeated { value, len }) => Some(Run::Repeated { value, len }),
            Some(Chunk::Packed { bytes, len, .. }) => {
                let nbytes = len / 8 * self.bit_width as usize;
                Some(Run::Packed {
                    width: self.bit_width,
                    bytes: bytes.get(..nbytes).unwrap_or(bytes),
                    len,
                })
            }
        })
    }

    /// Decode up to `out.len()` values into `out`; returns how many were written, which is less
    /// than `out.len()` only at the end of the data. Elements of `out` past the returned count
    /// may have been overwritten.
    ///
    /// Errors with [`Error::InvalidBitWidth`] if the stream's bit width exceeds `T::BITS`.
    pub fn get_batch<T: BitPackable>(&mut self, out: &mut [T]) -> Result<usize> {
        if self.bit_width > T::BITS {
            return Err(Error::InvalidBitWidth {
                width: self.bit_width,
                max: T::BITS,
            });
        }
        // Width and CPU dispatch once per call, not per run.
        let unpacker = Unpacker::<T>::new(self.bit_width);
        let width = self.bit_width;
        // The run state lives in a local for the loop, written back at the end.
        let mut cur = self.cur;
        let mut n = 0;
        while n < out.len() {
            match cur {
                Current::Empty => {
                    let run = match self.read_run() {
                        Ok(Current::Empty) => break,
                        Ok(run) => run,
                        Err(e) => {
                            self.cur = Current::Empty;
                            return Err(e);
                        }
                    };
                    // Short runs with room to spare in `out`: a fixed-size fill or unpack of
                    // SHORT_RUN values, past the run's end (later runs overwrite the excess),
                    // so that the run's length costs no branch. Mixed streams are mostly such
                    // runs, and mispredicted loop exits were most of their cost.
                    if out.len() - n >= SHORT_RUN {
                        match run {
                            Current::Repeated { value, left } if left <= SHORT_RUN => {
                                out[n..n + SHORT_RUN].fill(T::from_u64(value));
                                n += left;
                                continue;
                            }
                            Current::Packed { bytes, left, .. } if left <= SHORT_RUN => {
                                if let Some(u) = &unpacker {
                                    if u.unpack(bytes, &mut out[n..n + SHORT_RUN]) >= left {
                                        crate::probe::hit_n("bitpack.unpack_kernel", left as u64);
                                        n += left;
                                        continue;
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    cur = run;
                }
                Current::Repeated { value, left } => {
                    let len = left.min(out.len() - n);
                    out[n..n + len].fill(T::from_u64(value));
                    n += len;
                    cur = if len == left {
                        Current::Empty
                    } else {
                        Current::Repeated {
                            value,
                            left: left - len,
                        }
                    };
                }
                Current::Packed { bytes, skip, left } => {
                    let len = left.min(out.len() - n);
                    unpack_chunk(unpacker.as_ref(), bytes, width, skip, &mut out[n..n + len]);
                    n += len;
                    cur = if len == left {
                        Current::Empty
                    } else {
                        let consumed = skip + len;
                        Current::Packed {
                            bytes: bytes.get(consumed / 8 * width as usize..).unwrap_or(&[]),
                            skip: consumed % 8,
                            left: left - len,
                        }
                    };
                }
            }
        }
        self.cur = cur;
        Ok(n)
    }

    /// Skip up to `n` values; returns how many were skipped (less than `n` only at the end of
    /// the data).
    pub fn skip(&mut self, n: usize) -> Result<usize> {
        let mut done = 0;
        while done < n {
            match self.next_chunk(n - done)? {
                None => break,
                Some(Chunk::Repeated { len, .. }) | Some(Chunk::Packed { len, .. }) => done += len,
            }
        }
        Ok(done)
    }
}

/// Unpack `out.len()` values that start `skip` (0..8) values into the group at `bytes` (which
/// holds them all: checked when the run was loaded), with `unpacker` (`None` for width 0).
#[inline]
fn unpack_chunk<T: BitPackable>(
    unpacker: Option<&Unpacker<T>>,
    bytes: &[u8],
    width: u32,
    skip: usize,
    out: &mut [T],
) {
    let Some(unpacker) = unpacker else {
        // Width 0: every value is 0.
        out.fill(T::default());
        return;
    };
    if skip == 0 {
        let done = unpacker.unpack(bytes, out);
        crate::probe::hit_n("bitpack.unpack_kernel", done as u64);
        if done < out.len() {
            crate::probe::hit_n("bitpack.unpack_scalar", (out.len() - done) as u64);
            // Fewer than 8 values left (the batch ends inside a group).
            let start = done / 8 * width as usize;
            bitpack::unpack_scalar(bytes.get(start..).unwrap_or(&[]), width, &mut out[done..]);
        }
        return;
    }
    crate::probe::hit("rle.packed_unaligned");
    let mut group = [T::default(); 8];
    bitpack::unpack_scalar(bytes, width, &mut group);
    let head = out.len().min(8 - skip);
    out[..head].copy_from_slice(&group[skip..skip + head]);
    if head < out.len() {
        let rest = bytes.get(width as usize..).unwrap_or(&[]);
        unpack_chunk(Some(unpacker), rest, width, 0, &mut out[head..]);
    }
}

/// Split a v1 data-page level stream: a 4-byte little-endian length, then that many bytes of
/// hybrid stream. Returns the stream and the total bytes consumed including the prefix.
pub fn split_length_prefixed(data: &[u8]) -> Result<(&[u8], usize)> {
    let Some(prefix) = data.first_chunk::<4>() else {
        return Err(Error::Truncated {
            offset: 0,
            needed: 4,
            available: data.len(),
        });
    };
    let len = u32::from_le_bytes(*prefix) as usize;
    let available = data.len() - 4;
    if len > available {
        return Err(Error::Truncated {
            offset: 4,
            needed: len,
            available,
        });
    }
    Ok((&data[4..4 + len], 4 + len))
}

/// A decoder of dictionary indices as a data page stores them: one byte of bit width
/// (`<= 32`), then the hybrid stream without length prefix.
pub fn dictionary_index_decoder(data: &[u8]) -> Result<RleDecoder<'_>> {
    let Some((&width, rest)) = data.split_first() else {
        return Err(Error::Truncated {
            offset: 0,
            needed: 1,
            available: 0,
        });
    };
    let width = width as u32;
    if width > MAX_DICTIONARY_BIT_WIDTH {
        return Err(Error::InvalidBitWidth {
            width,
            max: MAX_DICTIONARY_BIT_WIDTH,
        });
    }
    RleDecoder::new(rest, width)
}

fn out_of_indices(dec: &RleDecoder<'_>) -> Error {
    Error::Truncated {
        offset: dec.position(),
        needed: 1,
        available: 0,
    }
}

fn check_index_width(dec: &RleDecoder<'_>) -> Result<()> {
    if dec.bit_width > MAX_DICTIONARY_BIT_WIDTH {
        return Err(Error::InvalidBitWidth {
            width: dec.bit_width,
            max: MAX_DICTIONARY_BIT_WIDTH,
        });
    }
    Ok(())
}

/// Index counts up to which [`for_each_index_chunk`] unpacks into a small buffer.
const SHORT_GATHER: usize = 64;

/// Walk `n` dictionary indices a chunk at a time: `fill(index, len)` for a repeated run,
/// `packed(indices)` for up to [`GATHER_CHUNK`] unpacked indices. Errors if the stream holds
/// fewer than `n` indices.
fn for_each_index_chunk<C>(
    dec: &mut RleDecoder<'_>,
    n: usize,
    ctx: &mut C,
    fill: impl Fn(&mut C, u64, usize) -> Result<()>,
    packed: impl Fn(&mut C, &[u32]) -> Result<()>,
) -> Result<()> {
    check_index_width(dec)?;
    let unpacker = Unpacker::<u32>::new(dec.bit_width);
    // A few indices (a short run a row selection keeps) do not pay for zeroing a whole
    // chunk buffer on every call.
    let mut short = [0u32; SHORT_GATHER];
    let mut whole;
    let buf: &mut [u32] = if n <= SHORT_GATHER {
        &mut short
    } else {
        whole = [0u32; GATHER_CHUNK];
        &mut whole
    };
    let chunk = buf.len();
    let mut left = n;
    while left > 0 {
        match dec.next_chunk_capped(left, chunk)? {
            None => return Err(out_of_indices(dec)),
            Some(Chunk::Repeated { value, len }) => {
                fill(ctx, value, len)?;
                left -= len;
            }
            Some(Chunk::Packed { bytes, skip, len }) => {
                let idx = &mut buf[..len];
                unpack_chunk(unpacker.as_ref(), bytes, dec.bit_width, skip, idx);
                packed(ctx, idx)?;
                left -= len;
            }
        }
    }
    Ok(())
}

/// Decode `n` dictionary indices from `dec` and append `dict[index]` for each to `out`.
///
/// A repeated run costs one bounds check and a fill; bit-packed indices are unpacked in chunks
/// into a stack buffer and gathered. Errors with [`Error::IndexOutOfRange`] on an index past
/// the dictionary and [`Error::Truncated`] if the stream holds fewer than `n` indices; `out`
/// then holds the values gathered so far. `n` is trusted (it sizes nothing up front).
pub fn gather_dictionary<T: Copy>(
    dec: &mut RleDecoder<'_>,
    dict: &[T],
    n: usize,
    out: &mut Vec<T>,
) -> Result<()> {
    for_each_index_chunk(
        dec,
        n,
        out,
        |out, value, len| {
            crate::probe::hit("rle.gather_fill");
            let v = usize::try_from(value)
                .ok()
                .and_then(|i| dict.get(i))
                .ok_or(Error::IndexOutOfRange {
                    index: value,
                    len: dict.len(),
                })?;
            out.resize(out.len() + len, *v);
            Ok(())
        },
        |out, idx| {
            crate::probe::hit("rle.gather_packed");
            crate::kernels::gather::gather_fixed(dict, idx, out)
        },
    )
}

/// Decode `n` dictionary indices from `dec`, check each is `< dict_len`, and append them to
/// `out`: the form byte-array callers use to gather from their own dictionary layout.
///
/// Errors as [`gather_dictionary`] does.
pub fn dictionary_indices(
    dec: &mut RleDecoder<'_>,
    dict_len: usize,
    n: usize,
    out: &mut Vec<u32>,
) -> Result<()> {
    for_each_index_chunk(
        dec,
        n,
        out,
        |out, value, len| {
            crate::probe::hit("rle.gather_fill");
            if value >= dict_len as u64 {
                return Err(Error::IndexOutOfRange {
                    index: value,
                    len: dict_len,
                });
            }
            out.resize(out.len() + len, value as u32);
            Ok(())
        },
        |out, idx| {
            crate::probe::hit("rle.gather_packed");
            crate::kernels::gather::check_indices(idx, dict_len)?;
            out.extend_from_slice(idx);
            Ok(())
        },
    )
}

/// [`dictionary_indices`] as Arrow dictionary keys: each index checked `< dict_len` (at
/// most `i32::MAX + 1`, so every key is a non-negative `i32`) and appended to `out`.
///
/// Errors as [`gather_dictionary`] does, and with [`Error::IndexOutOfRange`] when `dict_len`
/// is past what an `i32` key reaches.
pub fn dictionary_keys(
    dec: &mut RleDecoder<'_>,
    dict_len: usize,
    n: usize,
    out: &mut Vec<i32>,
) -> Result<()> {
    let dict_len = dict_len.min(i32::MAX as usize + 1);
    for_each_index_chunk(
        dec,
        n,
        out,
        |out, value, len| {
            crate::probe::hit("rle.keys_fill");
            if value >= dict_len as u64 {
                return Err(Error::IndexOutOfRange {
                    index: value,
                    len: dict_len,
                });
            }
            out.resize(out.len() + len, value as i32);
            Ok(())
        },
        |out, idx| {
            crate::probe::hit("rle.keys_packed");
            crate::kernels::gather::check_indices(idx, dict_len)?;
            out.extend_from_slice(bytemuck::cast_slice::<u32, i32>(idx));
            Ok(())
        },
    )
}

/// Encoder of the hybrid stream (no length prefix), choosing runs like parquet-mr and arrow-rs:
/// 8 or more equal values become a repeated run, everything else is bit-packed in groups of 8,
/// up to 63 groups per bit-packed run. A last partial group is padded with zero values.
#[derive(Debug, Clone)]
pub struct RleEncoder {
    bit_width: u32,
    mask: u64,
    out: Vec<u8>,
    /// The group being collected.
    buf: [u64; 8],
    nbuf: usize,
    /// The last value and how often it repeated; `repeat >= 8` means a repeated run is open
    /// and `buf` holds its first 7 values.
    prev: u64,
    repeat: usize,
    /// Offset of the reserved header byte of the open bit-packed run.
    header_pos: Option<usize>,
    groups: usize,
}

impl RleEncoder {
    /// An encoder of `bit_width`-bit values.
    ///
    /// # Panics
    ///
    /// If `bit_width > 64` (a caller bug: no Parquet value is wider).
    pub fn new(bit_width: u32) -> Self {
        assert!(bit_width <= MAX_BIT_WIDTH, "bit width {bit_width} > 64");
        Self {
            bit_width,
            mask: if bit_width == 64 {
                u64::MAX
            } else {
                (1u64 << bit_width) - 1
            },
            out: Vec::new(),
            buf: [0; 8],
            nbuf: 0,
            prev: 0,
            repeat: 0,
            header_pos: None,
            groups: 0,
        }
    }

    /// Append one value. Only its low `bit_width` bits are written.
    #[inline]
    pub fn put(&mut self, v: u64) {
        debug_assert!(v & !self.mask == 0, "value {v} wider than the bit width");
        let v = v & self.mask;
        if self.repeat > 0 && v == self.prev {
            self.repeat += 1;
            if self.repeat >= 8 {
                if self.repeat == MAX_ENCODED_RUN {
                    self.write_repeated();
                }
                return;
            }
        } else {
            if self.repeat >= 8 {
                self.write_repeated();
            }
            self.repeat = 1;
            self.prev = v;
        }
        self.buf[self.nbuf] = v;
        self.nbuf += 1;
        if self.nbuf == 8 {
            self.write_group();
        }
    }

    /// Append `n` copies of `v`, in O(1) once a repeated run is open.
    pub fn put_n(&mut self, v: u64, mut n: usize) {
        let v = v & self.mask;
        while n > 0 {
            if self.repeat >= 8 && v == self.prev {
                let take = n.min(MAX_ENCODED_RUN - self.repeat);
                self.repeat += take;
                n -= take;
                if self.repeat == MAX_ENCODED_RUN {
                    self.write_repeated();
                }
            } else {
                self.put(v);
                n -= 1;
            }
        }
    }

    fn write_repeated(&mut self) {
        self.end_packed_run();
        write_uleb((self.repeat as u64) << 1, &mut self.out);
        let vb = self.bit_width.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.prev.to_le_bytes()[..vb]);
        self.repeat = 0;
        self.nbuf = 0;
    }

    fn write_group(&mut self) {
        if self.groups == MAX_GROUPS_PER_RUN {
            self.end_packed_run();
        }
        if self.header_pos.is_none() {
            self.header_pos = Some(self.out.len());
            self.out.push(0);
        }
        if self.bit_width > 0 {
            // One 8-value kernel call (W bytes); the scalar loop only if it declined.
            let done =
                crate::kernels::bitpack::pack_groups(&self.buf, self.bit_width, &mut self.out);
            if done == 0 {
                bitpack::pack_scalar(&self.buf, self.bit_width, &mut self.out);
            }
        }
        self.nbuf = 0;
        self.repeat = 0;
        self.groups += 1;
    }

    fn end_packed_run(&mut self) {
        if let Some(p) = self.header_pos.take() {
            // groups <= 63, so the header fits one varint byte.
            self.out[p] = ((self.groups << 1) | 1) as u8;
            self.groups = 0;
        }
    }

    /// Flush and return the encoded stream.
    pub fn finish(self) -> Vec<u8> {
        let mut out = Vec::new();
        self.finish_into(&mut out);
        out
    }

    /// Flush and append the encoded stream to `out`.
    pub fn finish_into(mut self, out: &mut Vec<u8>) {
        if self.repeat >= 8 {
            self.write_repeated();
        } else if self.nbuf > 0 {
            self.buf[self.nbuf..].fill(0);
            self.write_group();
        }
        self.end_packed_run();
        if out.is_empty() {
            *out = self.out;
        } else {
            out.extend_from_slice(&self.out);
        }
    }
}

/// Encode `values` (each fitting `bit_width` bits) as a hybrid stream without length prefix,
/// appended to `out`.
///
/// # Panics
///
/// If `bit_width > 64`.
pub fn encode<T: BitPackable>(values: &[T], bit_width: u32, out: &mut Vec<u8>) {
    let mut enc = RleEncoder::new(bit_width);
    let mut i = 0;
    while i < values.len() {
        let v = values[i].to_u64();
        let run = values[i..].iter().take_while(|x| x.to_u64() == v).count();
        enc.put_n(v, run);
        i += run;
    }
    enc.finish_into(out);
}

/// An upper bound of the bytes [`RleEncoder`] writes for `n` values of `bit_width` bits.
///
/// The encoder's runs each cover at least 8 values except a last padded group, and each costs
/// at most `1 + bit_width` bytes per 8 values (a one-group bit-packed run with its header, or a
/// repeated run with a short header; longer headers come with proportionally longer runs).
pub fn max_encoded_len(n: usize, bit_width: u32) -> usize {
    (n / 8 + 1).saturating_mul(1 + bit_width as usize)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Oracle decoder: a straightforward reading of the spec, value by value.
    fn naive_decode(data: &[u8], width: u32) -> Option<Vec<u64>> {
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < data.len() {
            let (h, n) = read_uleb(data, pos).ok()?;
            pos += n;
            if h & 1 == 1 {
                let len = (h >> 1) as usize * 8;
                for i in 0..len {
                    let mut v = 0u64;
                    for b in 0..width as usize {
                        let bit = i * width as usize + b;
                        if *data.get(pos + bit / 8)? >> (bit % 8) & 1 == 1 {
                            v |= 1 << b;
                        }
                    }
                    out.push(v);
                }
                pos += (h >> 1) as usize * width as usize;
            } else {
                let vb = width.div_ceil(8) as usize;
                let mut v = 0u64;
                for i in 0..vb {
                    v |= (*data.get(pos + i)? as u64) << (8 * i);
                }
                pos += vb;
                out.extend(std::iter::repeat_n(v, (h >> 1) as usize));
            }
        }
        Some(out)
    }

    fn mask(w: u32) -> u64 {
        if w == 64 {
            u64::MAX
        } else {
            (1 << w) - 1
        }
    }

    fn check_roundtrip(values: &[u64], w: u32) {
        let mut enc = Vec::new();
        encode(values, w, &mut enc);
        assert!(
            enc.len() <= max_encoded_len(values.len(), w),
            "max_encoded_len"
        );
        // Put-by-put must give the same bytes as run-wise encode.
        let mut e = RleEncoder::new(w);
        for &v in values {
            e.put(v);
        }
        assert_eq!(e.finish(), enc, "put vs encode");
        let naive = naive_decode(&enc, w).unwrap();
        assert!(naive.len() >= values.len() && naive.len() < values.len() + 8);
        assert_eq!(&naive[..values.len()], values);
        assert!(naive[values.len()..].iter().all(|&v| v == 0), "padding");
        // get_batch in odd-sized steps.
        for step in [1usize, 3, 7, 8, 9, 31, 33, 1000] {
            let mut dec = RleDecoder::new(&enc, w).unwrap();
            let mut got = Vec::new();
            let mut buf = vec![0u64; step];
            loop {
                let n = dec.get_batch(&mut buf).unwrap();
                got.extend_from_slice(&buf[..n]);
                if n < step {
                    break;
                }
            }
            assert_eq!(got, naive, "step {step}");
            assert_eq!(dec.position(), enc.len());
        }
        // Runs.
        let mut dec = RleDecoder::new(&enc, w).unwrap();
        let mut got = Vec::new();
        while let Some(run) = dec.next_run().unwrap() {
            match run {
                Run::Repeated { value, len } => got.extend(std::iter::repeat_n(value, len)),
                Run::Packed { width, bytes, len } => {
                    assert_eq!(bytes.len(), len / 8 * width as usize);
                    let mut v = vec![0u64; len];
                    bitpack::unpack(bytes, width, &mut v).unwrap();
                    got.extend(v);
                }
            }
        }
        assert_eq!(got, naive);
    }

    #[test]
    fn empty() {
        let mut out = Vec::new();
        encode::<u32>(&[], 5, &mut out);
        assert!(out.is_empty());
        let mut dec = RleDecoder::new(&[], 5).unwrap();
        assert_eq!(dec.next_run().unwrap(), None);
        assert_eq!(dec.get_batch(&mut [0u32; 4]).unwrap(), 0);
        assert_eq!(dec.skip(10).unwrap(), 0);
    }

    #[test]
    fn run_lengths_around_boundaries() {
        for w in [0u32, 1, 2, 3, 7, 8, 9, 16, 31, 32, 33, 63, 64] {
            for len in [
                1usize, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 504, 505, 1000,
            ] {
                // One run of a value, then a different value, then alternating.
                let a = 5 & mask(w);
                let b = 3 & mask(w);
                let mut v: Vec<u64> = std::iter::repeat_n(a, len).collect();
                v.push(b);
                v.extend((0..len as u64).map(|i| (i * 0x9E37_79B9) & mask(w)));
                v.extend(std::iter::repeat_n(b, len));
                check_roundtrip(&v, w);
                check_roundtrip(&v[..len], w);
            }
        }
    }

    #[test]
    fn spec_header_forms() {
        // 10 ones at width 1: repeated run header 10 << 1, value byte 1.
        let mut out = Vec::new();
        encode(&[1u8; 10], 1, &mut out);
        assert_eq!(out, [20, 1]);
        // 3 values at width 3: one bit-packed group, header 1 << 1 | 1, padded with zeros.
        let mut out = Vec::new();
        encode(&[1u8, 2, 3], 3, &mut out);
        assert_eq!(out, [3, 0b1101_0001, 0b0000_0000, 0]);
        // 100 groups: split into runs of at most 63 groups.
        let v: Vec<u32> = (0..800).map(|i| i % 7).collect();
        let mut out = Vec::new();
        encode(&v, 3, &mut out);
        assert_eq!(out[0], 63 << 1 | 1);
        assert_eq!(out[1 + 63 * 3], 37 << 1 | 1);
    }

    #[test]
    fn put_n_long_runs() {
        let mut e = RleEncoder::new(20);
        e.put(1);
        e.put_n(7, 1 << 20);
        e.put_n(8, 3);
        let enc = e.finish();
        let mut dec = RleDecoder::new(&enc, 20).unwrap();
        let mut runs = Vec::new();
        while let Some(r) = dec.next_run().unwrap() {
            runs.push(r);
        }
        assert!(runs
            .iter()
            .any(|r| matches!(r, Run::Repeated { value: 7, len } if *len > 1 << 19)));
        let naive = naive_decode(&enc, 20).unwrap();
        assert_eq!(naive[0], 1);
        assert_eq!(
            naive[1..=1 << 20].iter().filter(|&&x| x == 7).count(),
            1 << 20
        );
        assert_eq!(&naive[(1 << 20) + 1..(1 << 20) + 4], &[8, 8, 8]);
    }

    #[test]
    fn skip_then_read() {
        let v: Vec<u32> = (0..300).map(|i| if i < 100 { 4 } else { i % 13 }).collect();
        let mut enc = Vec::new();
        encode(&v, 4, &mut enc);
        let all = naive_decode(&enc, 4).unwrap();
        for s in [0usize, 1, 7, 8, 99, 100, 101, 107, 108, 299, 300, 400] {
            let mut dec = RleDecoder::new(&enc, 4).unwrap();
            let skipped = dec.skip(s).unwrap();
            assert_eq!(skipped, s.min(all.len()));
            let mut out = vec![0u64; 300];
            let n = dec.get_batch(&mut out).unwrap();
            let expect: Vec<u64> = all.iter().copied().skip(s).take(300).collect();
            assert_eq!(&out[..n], &expect[..]);
        }
    }

    #[test]
    fn next_run_mid_group_is_an_error() {
        let v: Vec<u8> = (0..16).map(|i| i % 3).collect();
        let mut enc = Vec::new();
        encode(&v, 2, &mut enc);
        let mut dec = RleDecoder::new(&enc, 2).unwrap();
        dec.skip(3).unwrap();
        assert!(matches!(dec.next_run(), Err(Error::Unsupported(_))));
        dec.skip(5).unwrap();
        assert_eq!(
            dec.next_run().unwrap(),
            Some(Run::Packed {
                width: 2,
                bytes: &enc[3..5],
                len: 8
            })
        );
    }

    #[test]
    fn bad_input() {
        // Truncated bit-packed run: 2 groups of width 3 need 6 bytes.
        let mut dec = RleDecoder::new(&[5, 1, 2, 3], 3).unwrap();
        assert!(matches!(
            dec.next_run(),
            Err(Error::Truncated {
                offset: 1,
                needed: 6,
                available: 3
            })
        ));
        // Truncated repeated value.
        let mut dec = RleDecoder::new(&[4, 1], 16).unwrap();
        assert!(matches!(
            dec.get_batch(&mut [0u16; 4]),
            Err(Error::Truncated { .. })
        ));
        // Truncated varint.
        let mut dec = RleDecoder::new(&[0x80], 1).unwrap();
        assert!(matches!(dec.skip(1), Err(Error::Truncated { .. })));
        // Over-long varint.
        let mut dec = RleDecoder::new(&[0xff; 12], 1).unwrap();
        assert!(matches!(dec.skip(1), Err(Error::InvalidData { .. })));
        // Repeated value wider than the width.
        let mut dec = RleDecoder::new(&[4, 2], 1).unwrap();
        assert!(matches!(dec.skip(1), Err(Error::InvalidData { .. })));
        // Width too large for the output type or at all.
        let mut dec = RleDecoder::new(&[4, 2], 9).unwrap();
        assert!(matches!(
            dec.get_batch(&mut [0u8; 1]),
            Err(Error::InvalidBitWidth { .. })
        ));
        assert!(RleDecoder::new(&[], 65).is_err());
        assert!(matches!(
            dictionary_index_decoder(&[33]),
            Err(Error::InvalidBitWidth { .. })
        ));
        assert!(matches!(
            dictionary_index_decoder(&[]),
            Err(Error::Truncated { .. })
        ));
        // Huge bit-packed run header.
        let mut huge = vec![0xff; 9];
        huge.push(0x01);
        let mut dec = RleDecoder::new(&huge, 8).unwrap();
        assert!(dec.skip(1).is_err());
    }

    #[test]
    fn zero_length_runs_are_skipped() {
        // Empty repeated run, empty bit-packed run, then 9 x 1.
        let mut dec = RleDecoder::new(&[0, 0, 1, 18, 1], 1).unwrap();
        assert_eq!(
            dec.next_run().unwrap(),
            Some(Run::Repeated { value: 1, len: 9 })
        );
        assert_eq!(dec.next_run().unwrap(), None);
    }

    #[test]
    fn trailing_empty_run_without_value() {
        // A lone 0x00 (fraugster/parquet-go, empty pages) and one after a real run.
        let mut dec = RleDecoder::new(&[0], 1).unwrap();
        assert_eq!(dec.next_run().unwrap(), None);
        assert_eq!(dec.position(), 1);
        let mut dec = RleDecoder::new(&[0x08, 0x01, 0x00], 1).unwrap();
        let mut out = [0u8; 8];
        assert_eq!(dec.get_batch(&mut out).unwrap(), 4);
        // A non-empty run without its value is still an error.
        let mut dec = RleDecoder::new(&[0x08], 1).unwrap();
        assert!(matches!(dec.skip(1), Err(Error::Truncated { .. })));
    }

    #[test]
    fn width_zero_streams() {
        // Repeated run of 1000 zeros with 0 value bytes; bit-packed run of 2 groups, no bytes.
        let mut dec = RleDecoder::new(&[0xd0, 0x0f, 5], 0).unwrap();
        let mut out = vec![9u8; 1100];
        assert_eq!(dec.get_batch(&mut out).unwrap(), 1016);
        assert!(out[..1016].iter().all(|&v| v == 0));
    }

    #[test]
    fn length_prefix() {
        assert_eq!(
            split_length_prefixed(&[2, 0, 0, 0, 9, 9, 9]).unwrap(),
            (&[9u8, 9][..], 6)
        );
        assert!(matches!(
            split_length_prefixed(&[2, 0, 0]),
            Err(Error::Truncated { .. })
        ));
        assert!(matches!(
            split_length_prefixed(&[5, 0, 0, 0, 1]),
            Err(Error::Truncated {
                offset: 4,
                needed: 5,
                available: 1
            })
        ));
    }

    #[test]
    fn gather() {
        let dict: Vec<i64> = (0..10).map(|i| i * 100).collect();
        let idx: Vec<u32> = (0..50).map(|i| if i < 20 { 3 } else { i % 10 }).collect();
        let mut data = vec![4u8];
        encode(&idx, 4, &mut data);
        for split in [0usize, 1, 13, 20, 21, 50] {
            let mut dec = dictionary_index_decoder(&data).unwrap();
            let mut out = vec![-1i64];
            gather_dictionary(&mut dec, &dict, split, &mut out).unwrap();
            gather_dictionary(&mut dec, &dict, 50 - split, &mut out).unwrap();
            let expect: Vec<i64> = [-1]
                .into_iter()
                .chain(idx.iter().map(|&i| dict[i as usize]))
                .collect();
            assert_eq!(out, expect);
            let mut dec = dictionary_index_decoder(&data).unwrap();
            let mut ids = Vec::new();
            dictionary_indices(&mut dec, 10, 50, &mut ids).unwrap();
            assert_eq!(ids, idx);
        }
        // Out of range: in a repeated run and in a packed run.
        let mut dec = dictionary_index_decoder(&data).unwrap();
        assert_eq!(
            gather_dictionary(&mut dec, &dict[..3], 50, &mut Vec::new()),
            Err(Error::IndexOutOfRange { index: 3, len: 3 })
        );
        let mut dec = dictionary_index_decoder(&data).unwrap();
        let r = gather_dictionary(&mut dec, &dict[..9], 50, &mut Vec::new());
        assert_eq!(r, Err(Error::IndexOutOfRange { index: 9, len: 9 }));
        let mut dec = dictionary_index_decoder(&data).unwrap();
        assert!(dictionary_indices(&mut dec, 9, 50, &mut Vec::new()).is_err());
        // Too few indices (50 + 2 padding are present).
        let mut dec = dictionary_index_decoder(&data).unwrap();
        assert!(matches!(
            gather_dictionary(&mut dec, &dict, 57, &mut Vec::new()),
            Err(Error::Truncated { .. })
        ));
        // Empty dictionary, zero values: fine.
        let mut dec = dictionary_index_decoder(&[0]).unwrap();
        gather_dictionary::<i64>(&mut dec, &[], 0, &mut Vec::new()).unwrap();
    }

    #[cfg(feature = "probes")]
    #[test]
    fn probes_gather_paths() {
        use crate::probe;
        let dict: Vec<u32> = (0..16).collect();
        // One long repeated run: only the fill path.
        let mut data = vec![4u8];
        encode(&[7u32; 5000], 4, &mut data);
        probe::reset();
        let mut dec = dictionary_index_decoder(&data).unwrap();
        gather_dictionary(&mut dec, &dict, 5000, &mut Vec::new()).unwrap();
        assert_eq!(probe::get("rle.gather_fill"), 1);
        assert_eq!(probe::get("rle.gather_packed"), 0);
        assert_eq!(probe::get("rle.repeated_run"), 1);
        // No runs of 8: only the packed path, unpacked by the kernel (whole groups of 32).
        let idx: Vec<u32> = (0..4096).map(|i| (i * 7 + i / 3) % 16).collect();
        let mut data = vec![4u8];
        encode(&idx, 4, &mut data);
        probe::reset();
        let mut dec = dictionary_index_decoder(&data).unwrap();
        gather_dictionary(&mut dec, &dict, 4096, &mut Vec::new()).unwrap();
        assert_eq!(probe::get("rle.gather_fill"), 0);
        assert!(probe::get("rle.gather_packed") > 0);
        assert_eq!(probe::get("rle.repeated_run"), 0);
        assert!(probe::get("bitpack.unpack_kernel") >= 4096 - 4096 / 504 * 24);
        assert_eq!(probe::get("rle.packed_unaligned"), 0);
        // Reading 3 at a time starts inside groups: the unaligned path runs.
        probe::reset();
        let mut dec = dictionary_index_decoder(&data).unwrap();
        let mut buf = [0u32; 3];
        while dec.get_batch(&mut buf).unwrap() == 3 {}
        assert!(probe::get("rle.packed_unaligned") > 0);
    }

    proptest! {
        #[test]
        fn prop_roundtrip(
            runs in proptest::collection::vec((any::<u64>(), 1usize..40), 0..40),
            w in 0u32..=64,
        ) {
            let values: Vec<u64> = runs
                .iter()
                .flat_map(|&(v, n)| std::iter::repeat_n(v & mask(w), n))
                .collect();
            check_roundtrip(&values, w);
        }

        #[test]
        fn prop_random_values(values in proptest::collection::vec(0u64..4, 0..600)) {
            check_roundtrip(&values, 2);
        }

        /// Decoding in parts, each from a fresh decoder resumed where the last one stood
        /// (after skips and reads of any length), gives the values of one decoder.
        #[test]
        fn prop_resume_where_the_last_part_stood(
            runs in proptest::collection::vec((0u64..16, 1usize..40, any::<bool>()), 0..30),
            steps in proptest::collection::vec((0usize..30, 0usize..30), 1..20),
        ) {
            let values: Vec<u64> = runs
                .iter()
                .flat_map(|&(v, n, mixed)| (0..n).map(move |i| if mixed { (v + i as u64) % 16 } else { v }))
                .collect();
            let mut data = Vec::new();
            encode(&values, 4, &mut data);
            let (mut at, mut position, mut got) = (0usize, None, Vec::new());
            for (skip, take) in steps {
                let mut dec = RleDecoder::new(&data, 4).unwrap();
                if let Some(p) = position {
                    dec.resume(p).unwrap();
                }
                let skipped = dec.skip(skip).unwrap();
                let mut buf = vec![0u64; take];
                let n = dec.get_batch(&mut buf).unwrap();
                // A bit-packed run ends in whole groups of 8: values past the real ones are
                // padding.
                let want_from = (at + skipped).min(values.len());
                let real = n.min(values.len() - want_from);
                got.extend_from_slice(&buf[..real]);
                prop_assert_eq!(&buf[..real], &values[want_from..want_from + real]);
                at = want_from + n;
                position = Some(dec.checkpoint());
            }
            prop_assert!(got.len() <= values.len());
        }

        #[test]
        fn prop_garbage_never_panics(data in proptest::collection::vec(any::<u8>(), 0..64), w in 0u32..=33, step in 1usize..50) {
            let mut dec = RleDecoder::new(&data, w).unwrap();
            let mut buf = vec![0u64; step];
            let mut total = 0;
            // Bounded: width-0 streams can hold billions of values.
            while total < 100_000 {
                match dec.get_batch(&mut buf) {
                    Ok(n) if n == step => total += n,
                    _ => break,
                }
            }
            let mut dec = RleDecoder::new(&data, w).unwrap();
            let _ = dec.next_run();
            let mut d = vec![w as u8];
            d.extend_from_slice(&data);
            if let Ok(mut dec) = dictionary_index_decoder(&d) {
                let _ = gather_dictionary(&mut dec, &[1u8, 2, 3], 1000, &mut Vec::new());
            }
        }
    }
}
