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
//! special case of this grammar. The writer cuts a page into outer blocks of at most
//! `HADOOP_MAX_BLOCK_INPUT` (261,100) bytes, one inner block each, so that Hadoop's 256 KiB
//! decompressor buffer (parquet-mr, Spark) holds every block. Older writers put other things under codec `LZ4`: old
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

/// The most page bytes the writer puts in one Hadoop block. Hadoop's `Lz4Decompressor` holds
/// `io.compression.codec.lz4.buffersize` (256 KiB by default) of input and of output, so
/// parquet-mr and Spark fail on a larger block; Hadoop's own `Lz4Codec` cuts its input at the
/// buffer size less LZ4's worst-case expansion (`bufferSize / 255 + 16`), which keeps the
/// compressed block within the buffer too. The writer cuts pages the same way, one outer block
/// per piece, which Arrow C++ and arrow-rs read as well (they read one inner block per outer).
pub(crate) const HADOOP_MAX_BLOCK_INPUT: usize = HADOOP_BUFFER - (HADOOP_BUFFER / 255 + 16);

/// Hadoop's default `io.compression.codec.lz4.buffersize`.
const HADOOP_BUFFER: usize = 256 * 1024;

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

/// The deprecated LZ4 codec: writes Hadoop-framed blocks of at most
/// 261,100 (`HADOOP_MAX_BLOCK_INPUT`) page bytes each, reads Hadoop framing with fallbacks (see the
/// module docs).
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

impl Lz4HadoopCodec {
    /// Append one outer block holding one inner block: `piece`'s length, then its LZ4 block's
    /// length and the block. `piece` is at most [`HADOOP_MAX_BLOCK_INPUT`] bytes.
    fn compress_outer_block(&mut self, piece: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        // Both lengths fit in a u32: the piece is at most HADOOP_MAX_BLOCK_INPUT bytes, and so
        // is its LZ4 block (the input less Hadoop's own allowance for LZ4's expansion).
        out.extend_from_slice(&(piece.len() as u32).to_be_bytes());
        out.extend_from_slice(&[0; HADOOP_LEN_BYTES]);
        let block_start = out.len();
        compress_block(&mut self.table, piece, out).inspect_err(|_| out.truncate(start))?;
        let clen = (out.len() - block_start) as u32;
        out[block_start - HADOOP_LEN_BYTES..block_start].copy_from_slice(&clen.to_be_bytes());
        Ok(())
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
        let start = out.len();
        // An empty page is one empty block, as Arrow writes it.
        let mut pieces = input.chunks(HADOOP_MAX_BLOCK_INPUT).peekable();
        if pieces.peek().is_none() {
            return self.compress_outer_block(&[], out);
        }
        for piece in pieces {
            self.compress_outer_block(piece, out)
                .inspect_err(|_| out.truncate(start))?;
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The outer blocks of Hadoop-framed `framed`: (uncompressed length, [inner compressed
    /// lengths]).
    fn outer_blocks(framed: &[u8]) -> Vec<(usize, Vec<usize>)> {
        let (mut blocks, mut ip) = (Vec::new(), 0);
        while ip < framed.len() {
            let ulen = read_be_u32(framed, ip).unwrap();
            ip += HADOOP_LEN_BYTES;
            let clen = read_be_u32(framed, ip).unwrap();
            ip += HADOOP_LEN_BYTES + clen;
            blocks.push((ulen, vec![clen]));
        }
        assert_eq!(ip, framed.len());
        blocks
    }

    /// A page over 256 KiB is cut into blocks that Hadoop's 256 KiB buffers hold, in and out,
    /// even when the data does not compress; it reads back through every reader's path.
    #[test]
    fn large_pages_are_cut_into_blocks_hadoop_can_hold() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let random: Vec<u8> = (0..700_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let text = b"a page of parquet values ".repeat(40_000);
        // Hadoop's limit, independent of the constant under test.
        const HADOOP_HOLDS: usize = 256 * 1024;
        for page in [
            &random[..],
            &text[..],
            &random[..261_100],
            &random[..261_101],
            &[],
        ] {
            let mut framed = Vec::new();
            Lz4HadoopCodec::new().compress(page, &mut framed).unwrap();
            let blocks = outer_blocks(&framed);
            assert_eq!(
                blocks.len(),
                page.len().div_ceil(HADOOP_MAX_BLOCK_INPUT).max(1)
            );
            for (ulen, inner) in &blocks {
                assert!(*ulen <= HADOOP_HOLDS, "{ulen}");
                assert!(inner.iter().all(|c| *c <= HADOOP_HOLDS), "{inner:?}");
            }
            assert_eq!(blocks.iter().map(|b| b.0).sum::<usize>(), page.len());
            let mut out = vec![0; page.len()];
            assert!(try_decompress_hadoop(&framed, &mut out).is_some());
            assert_eq!(out, page);
        }
    }
}
