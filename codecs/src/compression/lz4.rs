//! LZ4_RAW (one raw LZ4 block) and the deprecated LZ4 (Hadoop-framed LZ4 blocks).
//!
//! LZ4 block format: <https://github.com/lz4/lz4/blob/dev/doc/lz4_Block_format.md>.
//!
//! Hadoop framing, as Hadoop's `BlockCompressorStream` writes it and parquet-mr copied it
//! (integers big-endian):
//!
//! ```text
//! stream      := outer_block*
//! outer_block := u32 uncompressed_len  inner_block+     (inner outputs sum to uncompressed_len)
//! inner_block := u32 compressed_len    lz4_block(compressed_len bytes)
//! ```
//!
//! Arrow C++ and arrow-rs write (and read) only one inner block per outer block, which is the
//! special case of this grammar. Older writers put other things under codec `LZ4`: old
//! parquet-cpp a bare LZ4 block, old arrow-rs an LZ4 frame. Like pyarrow and arrow-rs, the
//! reader tries Hadoop framing first; if it does not parse exactly (every length in bounds,
//! every block decompressing to its stated length, the input and the page both consumed), it
//! falls back to the LZ4 frame format (when the input starts with the frame magic) and then
//! to a bare LZ4 block.
//!
//! Probes: `compression.lz4_hadoop` (Hadoop framing parsed), `compression.lz4_frame_fallback`,
//! `compression.lz4_block_fallback` (counted when the bare-block attempt starts, even if it
//! then fails).

use std::io::Read;

use super::{lib_error, size_mismatch, Codec, CodecKind};
use crate::{probe, Error, Result};

use lz4_flex::block::{compress_into_with_table, get_maximum_output_size, CompressTable};

/// The magic number opening an LZ4 frame, little-endian.
/// <https://github.com/lz4/lz4/blob/dev/doc/lz4_Frame_format.md>
const LZ4_FRAME_MAGIC: [u8; 4] = [0x04, 0x22, 0x4d, 0x18];

/// Bytes of one Hadoop length prefix.
const HADOOP_LEN_BYTES: usize = 4;

/// Raw LZ4 block compression into `out`, reusing `table`.
fn compress_block(table: &mut CompressTable, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    out.resize(start + get_maximum_output_size(input.len()), 0);
    match compress_into_with_table(input, &mut out[start..], table) {
        Ok(n) => {
            out.truncate(start + n);
            Ok(())
        }
        Err(e) => {
            out.truncate(start);
            Err(lib_error(CodecKind::Lz4Raw, e))
        }
    }
}

/// Decompress one raw LZ4 block into exactly `out`.
fn decompress_block(kind: CodecKind, input: &[u8], out: &mut [u8]) -> Result<()> {
    let n = lz4_flex::block::decompress_into(input, out).map_err(|e| lib_error(kind, e))?;
    if n != out.len() {
        return Err(size_mismatch(input.len(), n, out.len()));
    }
    Ok(())
}

/// LZ4_RAW: one raw LZ4 block, keeping the compression hash table between pages.
pub struct Lz4RawCodec {
    table: CompressTable,
}

impl std::fmt::Debug for Lz4RawCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lz4RawCodec").finish_non_exhaustive()
    }
}

impl Default for Lz4RawCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl Lz4RawCodec {
    /// An LZ4_RAW codec.
    pub fn new() -> Self {
        Lz4RawCodec {
            table: CompressTable::large(),
        }
    }
}

impl Codec for Lz4RawCodec {
    fn kind(&self) -> CodecKind {
        CodecKind::Lz4Raw
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        compress_block(&mut self.table, input, out)
    }

    fn decompress_to_slice(&mut self, input: &[u8], out: &mut [u8]) -> Result<()> {
        if input.is_empty() && out.is_empty() {
            return Ok(());
        }
        decompress_block(CodecKind::Lz4Raw, input, out)
    }
}

/// The deprecated LZ4 codec: writes one Hadoop-framed block, reads Hadoop framing with
/// fallbacks (see the module docs).
pub struct Lz4HadoopCodec {
    table: CompressTable,
}

impl std::fmt::Debug for Lz4HadoopCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lz4HadoopCodec").finish_non_exhaustive()
    }
}

impl Default for Lz4HadoopCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl Lz4HadoopCodec {
    /// An LZ4 (Hadoop) codec.
    pub fn new() -> Self {
        Lz4HadoopCodec {
            table: CompressTable::large(),
        }
    }
}

fn read_be_u32(input: &[u8], at: usize) -> Option<usize> {
    let bytes: [u8; 4] = input.get(at..at + HADOOP_LEN_BYTES)?.try_into().ok()?;
    usize::try_from(u32::from_be_bytes(bytes)).ok()
}

/// Decompress Hadoop-framed input into exactly `out`; `None` if the input is not exactly
/// that (then `out` holds garbage).
fn try_decompress_hadoop(input: &[u8], out: &mut [u8]) -> Option<()> {
    let mut ip = 0usize;
    let mut op = 0usize;
    while ip < input.len() {
        let ulen = read_be_u32(input, ip)?;
        ip += HADOOP_LEN_BYTES;
        let end = op.checked_add(ulen).filter(|&end| end <= out.len())?;
        // At least one inner block, even for an empty outer block (as Arrow writes it).
        loop {
            let clen = read_be_u32(input, ip)?;
            ip += HADOOP_LEN_BYTES;
            let block_end = ip.checked_add(clen).filter(|&e| e <= input.len())?;
            let n =
                lz4_flex::block::decompress_into(&input[ip..block_end], &mut out[op..end]).ok()?;
            ip = block_end;
            op += n;
            if op == end {
                break;
            }
        }
    }
    (op == out.len()).then_some(())
}

/// Decompress LZ4 frames into exactly `out`.
fn decompress_frame(input: &[u8], out: &mut [u8]) -> Result<()> {
    let mut decoder = lz4_flex::frame::FrameDecoder::new(input);
    decoder
        .read_exact(out)
        .map_err(|e| lib_error(CodecKind::Lz4, e))?;
    let mut extra = [0u8; 1];
    match decoder.read(&mut extra) {
        Ok(0) => Ok(()),
        Ok(_) => Err(size_mismatch(input.len(), out.len() + 1, out.len())),
        Err(e) => Err(lib_error(CodecKind::Lz4, e)),
    }
}

impl Codec for Lz4HadoopCodec {
    fn kind(&self) -> CodecKind {
        CodecKind::Lz4
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let ulen = u32::try_from(input.len()).map_err(|_| Error::TooLarge {
            what: "lz4 (hadoop) page",
            declared: input.len() as u64,
            limit: u64::from(u32::MAX),
        })?;
        let start = out.len();
        out.extend_from_slice(&ulen.to_be_bytes());
        out.extend_from_slice(&[0; HADOOP_LEN_BYTES]);
        let block_start = out.len();
        compress_block(&mut self.table, input, out).inspect_err(|_| out.truncate(start))?;
        let block_len = out.len() - block_start;
        let Ok(clen) = u32::try_from(block_len) else {
            out.truncate(start);
            return Err(Error::TooLarge {
                what: "lz4 (hadoop) compressed block",
                declared: block_len as u64,
                limit: u64::from(u32::MAX),
            });
        };
        out[block_start - HADOOP_LEN_BYTES..block_start].copy_from_slice(&clen.to_be_bytes());
        Ok(())
    }

    fn decompress_to_slice(&mut self, input: &[u8], out: &mut [u8]) -> Result<()> {
        if input.is_empty() && out.is_empty() {
            return Ok(());
        }
        if try_decompress_hadoop(input, out).is_some() {
            probe::hit("compression.lz4_hadoop");
            return Ok(());
        }
        if input.starts_with(&LZ4_FRAME_MAGIC) {
            if let Ok(()) = decompress_frame(input, out) {
                probe::hit("compression.lz4_frame_fallback");
                return Ok(());
            }
        }
        probe::hit("compression.lz4_block_fallback");
        decompress_block(CodecKind::Lz4, input, out).map_err(|e| match e {
            Error::Compression { message, .. } => lib_error(
                CodecKind::Lz4,
                format!("neither hadoop-framed lz4, an lz4 frame nor an lz4 block: {message}"),
            ),
            other => other,
        })
    }
}
