//! ZSTD: RFC 8878 frames. <https://www.rfc-editor.org/rfc/rfc8878>
//!
//! Writes one frame (with its content size); reads one or more concatenated frames, skipping
//! skippable frames, as libzstd's `ZSTD_decompressDCtx` does.

use zstd::bulk::{Compressor, Decompressor};
use zstd::zstd_safe;

use super::{first_room, lib_error, size_mismatch, Codec, CodecKind};
use crate::{Error, Result};

/// The default zstd level: libzstd's `ZSTD_CLEVEL_DEFAULT`.
pub const DEFAULT_ZSTD_LEVEL: i32 = zstd::DEFAULT_COMPRESSION_LEVEL;

/// Zstd, keeping one compression and one decompression context between pages, each built
/// on first use: a writer's codec never decompresses and a reader's never compresses, and a
/// context is about 100 KiB (a writer of 10,000 columns keeps a codec for each).
pub struct ZstdCodec {
    level: i32,
    compressor: Option<Compressor<'static>>,
    decompressor: Option<Decompressor<'static>>,
    /// A streaming context, built for the first page whose frames do not state their size.
    stream: Option<zstd_safe::DCtx<'static>>,
}

impl std::fmt::Debug for ZstdCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZstdCodec").finish_non_exhaustive()
    }
}

impl ZstdCodec {
    /// A zstd codec at `level` (`None` = [`DEFAULT_ZSTD_LEVEL`]; the accepted range is
    /// [`zstd::compression_level_range`]).
    pub fn new(level: Option<i32>) -> Result<Self> {
        let level = level.unwrap_or(DEFAULT_ZSTD_LEVEL);
        let range = zstd::compression_level_range();
        if !range.contains(&level) {
            return Err(lib_error(
                CodecKind::Zstd,
                format!("level {level} outside {}..={}", range.start(), range.end()),
            ));
        }
        Ok(ZstdCodec {
            level,
            compressor: None,
            decompressor: None,
            stream: None,
        })
    }

    fn compressor(&mut self) -> Result<&mut Compressor<'static>> {
        if self.compressor.is_none() {
            let c = Compressor::new(self.level).map_err(|e| lib_error(CodecKind::Zstd, e))?;
            self.compressor = Some(c);
        }
        Ok(self.compressor.as_mut().expect("built just above"))
    }

    fn decompressor(&mut self) -> Result<&mut Decompressor<'static>> {
        if self.decompressor.is_none() {
            let d = Decompressor::new().map_err(|e| lib_error(CodecKind::Zstd, e))?;
            self.decompressor = Some(d);
        }
        Ok(self.decompressor.as_mut().expect("built just above"))
    }
}

/// The sum of the content sizes of the frames in `input` (skippable frames count 0), `None`
/// if a frame does not state its size; `Err` if the frames are malformed or truncated.
fn frames_content_size(input: &[u8]) -> Result<Option<u64>> {
    let malformed = |offset| Error::InvalidData {
        offset,
        what: "malformed zstd frame",
    };
    let mut total: u64 = 0;
    let mut at = 0;
    while at < input.len() {
        let frame = &input[at..];
        let size = zstd_safe::get_frame_content_size(frame).map_err(|_| malformed(at))?;
        let Some(size) = size else {
            return Ok(None);
        };
        total = total.checked_add(size).ok_or_else(|| malformed(at))?;
        let len = zstd_safe::find_frame_compressed_size(frame).map_err(|_| malformed(at))?;
        if len == 0 {
            return Err(malformed(at));
        }
        at += len;
    }
    Ok(Some(total))
}

/// When every frame states its content size, their sum must equal the declared size.
pub(super) fn check_header(input: &[u8], uncompressed_size: usize) -> Result<()> {
    if input.is_empty() && uncompressed_size == 0 {
        return Ok(());
    }
    match frames_content_size(input)? {
        Some(size) if size != uncompressed_size as u64 => Err(Error::InvalidData {
            offset: 0,
            what: "zstd frame content size differs from the declared uncompressed size",
        }),
        _ => Ok(()),
    }
}

impl Codec for ZstdCodec {
    fn kind(&self) -> CodecKind {
        CodecKind::Zstd
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        out.reserve(zstd_safe::compress_bound(input.len()));
        let mut cursor = std::io::Cursor::new(&mut *out);
        cursor.set_position(start as u64);
        self.compressor()?
            .compress_to_buffer(input, &mut cursor)
            .map_err(|e| lib_error(CodecKind::Zstd, e))?;
        Ok(())
    }

    /// Decompresses straight into `out`'s spare capacity: no zero-filling first. When every
    /// frame states its content size (checked against the declared size before this runs)
    /// that much is reserved at once; otherwise `out` grows as the frames produce output.
    fn append_checked(
        &mut self,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        if input.is_empty() && uncompressed_size == 0 {
            return Ok(());
        }
        if first_room(uncompressed_size, input.len()) < uncompressed_size
            && frames_content_size(input)?.is_none()
        {
            return self.stream_into(input, uncompressed_size, out);
        }
        let start = out.len();
        Error::try_reserve_exact(out, uncompressed_size, super::DECOMPRESSED_PAGE)?;
        let mut cursor = std::io::Cursor::new(&mut *out);
        cursor.set_position(start as u64);
        // The spare capacity may exceed `uncompressed_size`: a frame without a content size
        // that overshoots is caught by the length check below.
        let result = self
            .decompressor()?
            .decompress_to_buffer(input, &mut cursor);
        match result {
            Ok(n) if n == uncompressed_size => Ok(()),
            Ok(n) => {
                out.truncate(start);
                Err(size_mismatch(input.len(), n, uncompressed_size))
            }
            Err(e) => {
                out.truncate(start);
                Err(lib_error(CodecKind::Zstd, e))
            }
        }
    }

    fn decompress_to_slice(&mut self, input: &[u8], out: &mut [u8]) -> Result<()> {
        if input.is_empty() && out.is_empty() {
            return Ok(());
        }
        let len = out.len();
        let n = self
            .decompressor()?
            .decompress_to_buffer(input, out)
            .map_err(|e| lib_error(CodecKind::Zstd, e))?;
        if n != len {
            return Err(size_mismatch(input.len(), n, len));
        }
        Ok(())
    }
}

impl ZstdCodec {
    /// Stream frames without a content size into `out`, doubling its room from its first
    /// (see [`FIRST_GROWTH`](super::FIRST_GROWTH)) as they produce output, up to `declared` bytes (and one more, to see
    /// an overshoot). On `Err`, `out` is left as it was.
    fn stream_into(&mut self, input: &[u8], declared: usize, out: &mut Vec<u8>) -> Result<()> {
        let start = out.len();
        let result = self.stream_frames(input, declared, start, out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    fn stream_frames(
        &mut self,
        input: &[u8],
        declared: usize,
        start: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let dctx = self.stream.get_or_insert_with(zstd_safe::DCtx::create);
        dctx.reset(zstd_safe::ResetDirective::SessionOnly)
            .map_err(|e| lib_error(CodecKind::Zstd, zstd_safe::get_error_name(e)))?;
        let mut src = zstd_safe::InBuffer::around(input);
        loop {
            let produced = out.len() - start;
            if produced > declared {
                return Err(size_mismatch(src.pos(), produced, declared));
            }
            if out.len() == out.capacity() {
                // Room up to the declared size, doubling; then one byte past it.
                let first = first_room(declared, input.len());
                let room = produced.saturating_mul(2).clamp(first, declared);
                let more = room.saturating_sub(produced).max(1);
                Error::try_reserve_exact(out, more, super::DECOMPRESSED_PAGE)?;
            }
            let (in_before, out_before) = (src.pos(), out.len());
            let hint = {
                let pos = out.len();
                let mut dst = zstd_safe::OutBuffer::around_pos(&mut *out, pos);
                dctx.decompress_stream(&mut dst, &mut src)
                    .map_err(|e| lib_error(CodecKind::Zstd, zstd_safe::get_error_name(e)))?
            };
            if hint == 0 && src.pos() == input.len() {
                let produced = out.len() - start;
                if produced != declared {
                    return Err(size_mismatch(src.pos(), produced, declared));
                }
                return Ok(());
            }
            if src.pos() == in_before && out.len() == out_before && out.len() < out.capacity() {
                // No progress with room to spare: the input ended inside a frame.
                return Err(Error::Truncated {
                    offset: input.len(),
                    needed: 1,
                    available: 0,
                });
            }
        }
    }
}
