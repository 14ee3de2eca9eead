//! SNAPPY: one raw snappy block (`snap::raw`), not the framed format.
//! <https://github.com/google/snappy/blob/main/format_description.txt>
//!
//! ```text
//! block := varint(uncompressed length) element*
//! ```

use super::{lib_error, size_mismatch, Codec, CodecKind};
use crate::{Error, Result};

/// Raw snappy, keeping the encoder's hash table between pages. The table (2 KiB and up) is
/// made on the first compression: a reader builds a codec per column chunk and only
/// decompresses, with a decoder that has no state.
pub struct SnappyCodec {
    encoder: Option<Box<snap::raw::Encoder>>,
    decoder: snap::raw::Decoder,
}

impl std::fmt::Debug for SnappyCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SnappyCodec").finish_non_exhaustive()
    }
}

impl Default for SnappyCodec {
    fn default() -> Self {
        Self::new()
    }
}

impl SnappyCodec {
    /// A snappy codec.
    pub fn new() -> Self {
        SnappyCodec {
            encoder: None,
            decoder: snap::raw::Decoder::new(),
        }
    }

    fn encoder(&mut self) -> &mut snap::raw::Encoder {
        self.encoder
            .get_or_insert_with(|| Box::new(snap::raw::Encoder::new()))
    }
}

/// The most a block of `input` compresses to; `Err` for an input past snappy's 32-bit
/// length.
fn max_len(input: &[u8]) -> Result<usize> {
    let max = snap::raw::max_compress_len(input.len());
    if max == 0 && !input.is_empty() {
        return Err(Error::TooLarge {
            what: "snappy input",
            declared: input.len() as u64,
            limit: u64::from(u32::MAX),
        });
    }
    Ok(max)
}

/// The block's own length header must equal the declared size.
pub(super) fn check_header(input: &[u8], uncompressed_size: usize) -> Result<()> {
    if input.is_empty() && uncompressed_size == 0 {
        return Ok(());
    }
    let len = snap::raw::decompress_len(input).map_err(|e| lib_error(CodecKind::Snappy, e))?;
    if len != uncompressed_size {
        return Err(Error::InvalidData {
            offset: 0,
            what: "snappy length header differs from the declared uncompressed size",
        });
    }
    Ok(())
}

impl Codec for SnappyCodec {
    fn kind(&self) -> CodecKind {
        CodecKind::Snappy
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let max = max_len(input)?;
        let start = out.len();
        out.resize(start + max, 0);
        match self.encoder().compress(input, &mut out[start..]) {
            Ok(n) => {
                out.truncate(start + n);
                Ok(())
            }
            Err(e) => {
                out.truncate(start);
                Err(lib_error(CodecKind::Snappy, e))
            }
        }
    }

    /// Only the part of `buf` past its length is zeroed (probe `compress.snappy_reused`:
    /// `buf` was long enough already, nothing zeroed).
    fn compress_reusing(&mut self, input: &[u8], buf: &mut Vec<u8>) -> Result<usize> {
        let max = max_len(input)?;
        if buf.len() < max {
            buf.resize(max, 0);
        } else {
            crate::probe::hit("compress.snappy_reused");
        }
        self.encoder()
            .compress(input, &mut buf[..max])
            .map_err(|e| lib_error(CodecKind::Snappy, e))
    }

    fn decompress_to_slice(&mut self, input: &[u8], out: &mut [u8]) -> Result<()> {
        if input.is_empty() && out.is_empty() {
            return Ok(());
        }
        check_header(input, out.len())?;
        let n = self
            .decoder
            .decompress(input, out)
            .map_err(|e| lib_error(CodecKind::Snappy, e))?;
        if n != out.len() {
            return Err(size_mismatch(input.len(), n, out.len()));
        }
        Ok(())
    }
}
