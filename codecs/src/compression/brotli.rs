//! BROTLI: one RFC 7932 brotli stream. <https://www.rfc-editor.org/rfc/rfc7932>
//!
//! Neither the brotli encoder nor the decoder state can be reset for a new stream, so each
//! page builds its state; the codec keeps the encoder parameters.

use brotli::enc::BrotliEncoderParams;
use brotli::{BrotliDecompressStream, BrotliResult, BrotliState, HeapAlloc};

use super::{lib_error, size_mismatch, Codec, CodecKind, Output};
use crate::{Error, Result};

/// The default brotli quality. The library's default, 11, is far too slow for a page writer;
/// 1 is also arrow-rs's default.
pub const DEFAULT_BROTLI_LEVEL: i32 = 1;

/// The default brotli window, `lgwin`: 22 (4 MiB), the library's and arrow-rs's default.
const BROTLI_LGWIN: i32 = 22;

/// Brotli at a fixed quality.
pub struct BrotliCodec {
    params: BrotliEncoderParams,
}

impl std::fmt::Debug for BrotliCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BrotliCodec")
            .field("quality", &self.params.quality)
            .finish_non_exhaustive()
    }
}

impl BrotliCodec {
    /// A brotli codec at `level` (quality `0..=11`, `None` = [`DEFAULT_BROTLI_LEVEL`]).
    pub fn new(level: Option<i32>) -> Result<Self> {
        let level = level.unwrap_or(DEFAULT_BROTLI_LEVEL);
        if !(0..=11).contains(&level) {
            return Err(lib_error(
                CodecKind::Brotli,
                format!("level {level} outside 0..=11"),
            ));
        }
        let params = BrotliEncoderParams {
            quality: level,
            lgwin: BROTLI_LGWIN,
            ..BrotliEncoderParams::default()
        };
        Ok(BrotliCodec { params })
    }
}

impl Codec for BrotliCodec {
    fn kind(&self) -> CodecKind {
        CodecKind::Brotli
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        let mut params = self.params.clone();
        params.size_hint = input.len();
        let mut reader = input;
        if let Err(e) = brotli::BrotliCompress(&mut reader, out, &params) {
            out.truncate(start);
            return Err(lib_error(CodecKind::Brotli, e));
        }
        Ok(())
    }

    fn decompress_to_slice(&mut self, input: &[u8], out: &mut [u8]) -> Result<()> {
        decompress_stream(input, &mut Output::Slice(out))
    }

    /// Grows `out` as the stream produces output: a header declaring more than the stream
    /// holds costs what it holds.
    fn append_checked(
        &mut self,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let mut out = Output::growing(out, uncompressed_size, input.len())?;
        let result = decompress_stream(input, &mut out);
        out.finish(result)
    }
}

/// Decompress one brotli stream into `out`, which must end up exactly full.
fn decompress_stream(input: &[u8], out: &mut Output<'_>) -> Result<()> {
    if input.is_empty() && out.declared() == 0 {
        return Ok(());
    }
    // `new_strict`: RFC 7932 windows only, no "large window" extension.
    let mut state = BrotliState::new_strict(
        HeapAlloc::<u8>::default(),
        HeapAlloc::<u32>::default(),
        HeapAlloc::<brotli::HuffmanCode>::default(),
    );
    let (mut available_in, mut input_offset) = (input.len(), 0);
    let mut output_offset = 0;
    let mut total_out = 0;
    loop {
        let buf = out.buf();
        let mut available_out = buf.len() - output_offset;
        let result = BrotliDecompressStream(
            &mut available_in,
            &mut input_offset,
            input,
            &mut available_out,
            &mut output_offset,
            buf,
            &mut total_out,
            &mut state,
        );
        return match result {
            BrotliResult::ResultSuccess => {
                if input_offset != input.len() {
                    return Err(Error::InvalidData {
                        offset: input_offset,
                        what: "bytes after the end of the brotli stream",
                    });
                }
                if output_offset != out.declared() {
                    return Err(size_mismatch(input_offset, output_offset, out.declared()));
                }
                Ok(())
            }
            BrotliResult::NeedsMoreOutput if out.grow()? => continue,
            BrotliResult::NeedsMoreOutput => Err(size_mismatch(
                input_offset,
                out.declared() + 1,
                out.declared(),
            )),
            BrotliResult::NeedsMoreInput => Err(Error::Truncated {
                offset: input.len(),
                needed: 1,
                available: 0,
            }),
            BrotliResult::ResultFailure => Err(lib_error(CodecKind::Brotli, "corrupt stream")),
        };
    }
}
