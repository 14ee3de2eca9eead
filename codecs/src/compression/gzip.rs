//! GZIP: RFC 1952 members around raw deflate (RFC 1951), not zlib.
//! <https://www.rfc-editor.org/rfc/rfc1952#section-2.3>
//!
//! ```text
//! page   := member+
//! member := 1f 8b CM=08 FLG MTIME(4) XFL OS
//!           [XLEN(2, LE) extra(XLEN)]   if FLG.FEXTRA
//!           [name 00]                   if FLG.FNAME
//!           [comment 00]                if FLG.FCOMMENT
//!           [CRC16(2)]                  if FLG.FHCRC
//!           deflate-stream CRC32(4, LE) ISIZE(4, LE)
//! ```
//!
//! Parquet readers must accept pages of several members (parquet-testing's
//! `concatenated_gzip_members.parquet`); writers should write one. The header is parsed here
//! so one raw-deflate state serves every member of every page (flate2's gzip readers build a
//! new inflate state per member). Bytes after the last member that do not start another
//! member are an error.

use flate2::{Compress, Compression, Crc, Decompress, FlushCompress, FlushDecompress, Status};

use super::{lib_error, size_mismatch, Codec, CodecKind, Output};
use crate::{Error, Result};

/// The default gzip level: zlib's `Z_DEFAULT_COMPRESSION`.
pub const DEFAULT_GZIP_LEVEL: i32 = 6;

const GZIP_MAGIC: [u8; 2] = [0x1f, 0x8b];
const CM_DEFLATE: u8 = 8;
const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const FRESERVED: u8 = 0xe0;
/// OS = unknown.
const OS_UNKNOWN: u8 = 255;
const HEADER_LEN: usize = 10;
const TRAILER_LEN: usize = 8;

/// Gzip, keeping one deflate and one inflate state between pages, each built on first use
/// (a writer's codec never inflates, a reader's never deflates, and a deflate state is
/// hundreds of KiB).
pub struct GzipCodec {
    level: u32,
    compress: Option<Compress>,
    decompress: Option<Decompress>,
}

impl std::fmt::Debug for GzipCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GzipCodec").finish_non_exhaustive()
    }
}

impl GzipCodec {
    /// A gzip codec at `level` (`0..=9`, `None` = [`DEFAULT_GZIP_LEVEL`]).
    pub fn new(level: Option<i32>) -> Result<Self> {
        let level = level.unwrap_or(DEFAULT_GZIP_LEVEL);
        let level = u32::try_from(level)
            .ok()
            .filter(|l| *l <= 9)
            .ok_or_else(|| lib_error(CodecKind::Gzip, format!("level {level} outside 0..=9")))?;
        Ok(GzipCodec {
            level,
            compress: None,
            decompress: None,
        })
    }
}

fn truncated(offset: usize, needed: usize, input: &[u8]) -> Error {
    Error::Truncated {
        offset,
        needed,
        available: input.len().saturating_sub(offset),
    }
}

/// Parse a member header at `at`; returns where the deflate stream starts.
fn parse_header(input: &[u8], at: usize) -> Result<usize> {
    let header = input
        .get(at..at + HEADER_LEN)
        .ok_or_else(|| truncated(at, HEADER_LEN, input))?;
    if header[..2] != GZIP_MAGIC {
        return Err(Error::InvalidData {
            offset: at,
            what: "not a gzip member (bad magic)",
        });
    }
    if header[2] != CM_DEFLATE {
        return Err(Error::InvalidData {
            offset: at + 2,
            what: "gzip compression method is not deflate",
        });
    }
    let flags = header[3];
    if flags & FRESERVED != 0 {
        return Err(Error::InvalidData {
            offset: at + 3,
            what: "gzip reserved flag bits set",
        });
    }
    let mut p = at + HEADER_LEN;
    if flags & FEXTRA != 0 {
        let xlen = input.get(p..p + 2).ok_or_else(|| truncated(p, 2, input))?;
        let xlen = usize::from(u16::from_le_bytes([xlen[0], xlen[1]]));
        p += 2;
        if input.len() - p < xlen {
            return Err(truncated(p, xlen, input));
        }
        p += xlen;
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let rest = input.get(p..).unwrap_or(&[]);
            let nul = rest
                .iter()
                .position(|&b| b == 0)
                .ok_or(Error::InvalidData {
                    offset: p,
                    what: "gzip header string not terminated",
                })?;
            p += nul + 1;
        }
    }
    if flags & FHCRC != 0 {
        let stored = input.get(p..p + 2).ok_or_else(|| truncated(p, 2, input))?;
        let mut crc = Crc::new();
        crc.update(&input[at..p]);
        if u16::from_le_bytes([stored[0], stored[1]]) != (crc.sum() & 0xffff) as u16 {
            return Err(Error::InvalidData {
                offset: p,
                what: "gzip header crc mismatch",
            });
        }
        p += 2;
    }
    Ok(p)
}

impl GzipCodec {
    /// Inflate one deflate stream from `input[ip..]` into `out` from `op`, growing a growing
    /// `out` when it fills; returns the new `(ip, op)`.
    fn inflate(
        &mut self,
        input: &[u8],
        ip: usize,
        out: &mut Output<'_>,
        op: usize,
    ) -> Result<(usize, usize)> {
        let decompress = self
            .decompress
            .get_or_insert_with(|| Decompress::new(false));
        decompress.reset(false);
        let (mut ip, mut op) = (ip, op);
        loop {
            let (in_before, out_before) = (decompress.total_in(), decompress.total_out());
            // `Finish` lets inflate write straight into a window that holds the whole page;
            // a window that will grow must be filled as a stream.
            let flush = if out.buf().len() == out.declared() {
                FlushDecompress::Finish
            } else {
                FlushDecompress::None
            };
            let status = decompress
                .decompress(&input[ip..], &mut out.buf()[op..], flush)
                .map_err(|e| lib_error(CodecKind::Gzip, e))?;
            ip += (decompress.total_in() - in_before) as usize;
            op += (decompress.total_out() - out_before) as usize;
            match status {
                Status::StreamEnd => return Ok((ip, op)),
                _ if decompress.total_in() == in_before && decompress.total_out() == out_before => {
                    // No progress: the output is full or the input ended mid-stream.
                    if op == out.buf().len() {
                        if out.grow()? {
                            continue;
                        }
                        return Err(size_mismatch(ip, op + 1, out.declared()));
                    }
                    return Err(truncated(ip, 1, input));
                }
                _ => {}
            }
        }
    }

    /// Inflate every member of `input` into `out`, which must end up exactly full.
    fn inflate_members(&mut self, input: &[u8], out: &mut Output<'_>) -> Result<()> {
        if input.is_empty() && out.declared() == 0 {
            return Ok(());
        }
        let (mut ip, mut op) = (0, 0);
        loop {
            let member_start = op;
            ip = parse_header(input, ip)?;
            (ip, op) = self.inflate(input, ip, out, op)?;
            let trailer = input
                .get(ip..ip + TRAILER_LEN)
                .ok_or_else(|| truncated(ip, TRAILER_LEN, input))?;
            let mut crc = Crc::new();
            crc.update(&out.buf()[member_start..op]);
            let stored_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
            let stored_size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
            if stored_crc != crc.sum() {
                return Err(Error::InvalidData {
                    offset: ip,
                    what: "gzip crc32 mismatch",
                });
            }
            if stored_size != (op - member_start) as u32 {
                return Err(Error::InvalidData {
                    offset: ip + 4,
                    what: "gzip isize mismatch",
                });
            }
            ip += TRAILER_LEN;
            if ip == input.len() {
                break;
            }
        }
        if op != out.declared() {
            return Err(size_mismatch(ip, op, out.declared()));
        }
        Ok(())
    }
}

impl Codec for GzipCodec {
    fn kind(&self) -> CodecKind {
        CodecKind::Gzip
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        out.extend_from_slice(&[
            GZIP_MAGIC[0],
            GZIP_MAGIC[1],
            CM_DEFLATE,
            0, // FLG
            0,
            0,
            0,
            0, // MTIME: none
            0, // XFL
            OS_UNKNOWN,
        ]);
        let level = Compression::new(self.level);
        let compress = self
            .compress
            .get_or_insert_with(|| Compress::new(level, false));
        compress.reset();
        // Deflate's worst case: stored blocks, 5 bytes per 65535 input bytes, plus the end.
        out.reserve(input.len() + 5 * (input.len() / 65535 + 1) + 64);
        loop {
            let consumed = compress.total_in() as usize;
            if out.capacity() == out.len() {
                out.reserve(64 + (input.len() - consumed) / 2);
            }
            let status = compress
                .compress_vec(&input[consumed..], out, FlushCompress::Finish)
                .map_err(|e| lib_error(CodecKind::Gzip, e));
            match status {
                Ok(Status::StreamEnd) => break,
                Ok(_) => {}
                Err(e) => {
                    out.truncate(start);
                    return Err(e);
                }
            }
        }
        let mut crc = Crc::new();
        crc.update(input);
        out.extend_from_slice(&crc.sum().to_le_bytes());
        out.extend_from_slice(&(input.len() as u32).to_le_bytes());
        Ok(())
    }

    fn decompress_to_slice(&mut self, input: &[u8], out: &mut [u8]) -> Result<()> {
        self.inflate_members(input, &mut Output::Slice(out))
    }

    /// Grows `out` as members inflate: a header declaring more than the
    /// members hold costs what they hold.
    fn append_checked(
        &mut self,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mut out = Output::growing(out, uncompressed_size, input.len())?;
        let result = self.inflate_members(input, &mut out);
        out.finish(result)
    }
}
