//! Compression codecs: <https://github.com/apache/parquet-format/blob/master/Compression.md>.
//!
//! Parquet compresses each page (data or dictionary) as one unit. For every codec but the
//! deprecated `LZ4`, the page bytes are fed as-is to the codec's library, without extra
//! framing; the sizes before and after compression are in the `PageHeader`.
//!
//! | codec          | thrift | format read                         | format written        |
//! |----------------|--------|-------------------------------------|-----------------------|
//! | `UNCOMPRESSED` | 0      | bytes as they are                   | same                  |
//! | `SNAPPY`       | 1      | raw snappy block (not framed)       | same                  |
//! | `GZIP`         | 2      | one or more RFC 1952 gzip members   | one gzip member       |
//! | `LZO`          | 3      | unsupported                         | unsupported           |
//! | `BROTLI`       | 4      | one RFC 7932 brotli stream          | same                  |
//! | `LZ4`          | 5      | Hadoop-framed LZ4, else LZ4 frame, else raw LZ4 block | Hadoop-framed, one block |
//! | `ZSTD`         | 6      | one or more RFC 8878 zstd frames    | one zstd frame        |
//! | `LZ4_RAW`      | 7      | one raw LZ4 block                   | same                  |
//!
//! Each codec library is behind a cargo feature of the same name (`snappy`, `zstd`, `gzip`,
//! `lz4` for LZ4 and LZ4_RAW, `brotli`), all on by default; [`is_available`] tells which are
//! compiled in, and a compiled-out codec is an [`Error::Unsupported`] that names its feature.
//!
//! Every [`Codec`] keeps its library state (hash tables, zstd contexts, deflate state)
//! between calls, so a column writer or reader builds it once and reuses it for every page.
//!
//! Sizes read from a page header are untrusted. [`Decompressor`] refuses, before allocating
//! anything, a declared size over [`Limits::max_uncompressed_size`] or over what the codec
//! can produce from the compressed bytes (see [`max_decompressed_len`]). Below those caps a
//! declared size is still only a claim: snappy and LZ4 reserve it (their bytes bound it, by
//! snappy's length header and LZ4's 255:1 ratio), zstd reserves it when every frame states
//! the same content size, and otherwise gzip, brotli and zstd grow the output from
//! [`FIRST_GROWTH`] (or [`FIRST_GROWTH_PER_BYTE`] times the compressed bytes) as data
//! arrives, so a page that declares 1 GiB and inflates to 8 KiB costs 1 MiB, not 1 GiB. Inflating to fewer or more bytes than declared is an error.
//!
//! ```
//! # #[cfg(feature = "zstd")]
//! # fn main() -> Result<(), parq_codecs::Error> {
//! use parq_codecs::compression::{new_codec, CodecKind, Decompressor, Limits};
//!
//! let page = b"abcabcabcabcabcabcabcabc".repeat(100);
//! let mut codec = new_codec(CodecKind::Zstd, None)?;
//! let mut compressed = Vec::new();
//! codec.compress(&page, &mut compressed)?;
//!
//! let mut decompressor = Decompressor::new(Limits::default());
//! let mut out = Vec::new();
//! decompressor.decompress(CodecKind::Zstd, &compressed, page.len(), &mut out)?;
//! assert_eq!(out, page);
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "zstd"))]
//! # fn main() {}
//! ```
#![forbid(unsafe_code)]

// One cargo feature per codec library (all on by default), so an embedder can leave out the
// builds it does not ship (zstd is C). A codec compiled out is `Error::Unsupported` naming the
// feature to turn on (`disabled`).
#[cfg(feature = "brotli")]
mod brotli;
#[cfg(feature = "gzip")]
mod gzip;
#[cfg(feature = "lz4")]
mod lz4;
#[cfg(feature = "snappy")]
mod snappy;
#[cfg(feature = "zstd")]
mod zstd;

use crate::{Error, Result};

#[cfg(feature = "brotli")]
pub use self::brotli::{BrotliCodec, DEFAULT_BROTLI_LEVEL};
#[cfg(feature = "gzip")]
pub use self::gzip::{GzipCodec, DEFAULT_GZIP_LEVEL};
#[cfg(feature = "lz4")]
pub use self::lz4::{Lz4HadoopCodec, Lz4RawCodec};
#[cfg(feature = "snappy")]
pub use self::snappy::SnappyCodec;
#[cfg(feature = "zstd")]
pub use self::zstd::{ZstdCodec, DEFAULT_ZSTD_LEVEL};

/// Parquet's `CompressionCodec`, numbered as in `parquet.thrift`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodecKind {
    /// `UNCOMPRESSED = 0`: the page bytes as they are.
    Uncompressed,
    /// `SNAPPY = 1`: a raw snappy block.
    Snappy,
    /// `GZIP = 2`: RFC 1952 gzip (not zlib, not raw deflate).
    Gzip,
    /// `LZO = 3`: not supported.
    Lzo,
    /// `BROTLI = 4`: an RFC 7932 brotli stream.
    Brotli,
    /// `LZ4 = 5`: deprecated, LZ4 blocks in Hadoop's undocumented framing.
    Lz4,
    /// `ZSTD = 6`: RFC 8878 zstd frames.
    Zstd,
    /// `LZ4_RAW = 7`: one raw LZ4 block.
    Lz4Raw,
}

impl CodecKind {
    /// Every kind, in thrift order.
    pub const ALL: [CodecKind; 8] = [
        CodecKind::Uncompressed,
        CodecKind::Snappy,
        CodecKind::Gzip,
        CodecKind::Lzo,
        CodecKind::Brotli,
        CodecKind::Lz4,
        CodecKind::Zstd,
        CodecKind::Lz4Raw,
    ];

    /// The kind with thrift number `v`, or `None` for a number `parquet.thrift` doesn't define.
    pub fn from_thrift(v: i32) -> Option<Self> {
        usize::try_from(v)
            .ok()
            .and_then(|i| Self::ALL.get(i))
            .copied()
    }

    /// The thrift number of this kind.
    pub fn to_thrift(self) -> i32 {
        match self {
            CodecKind::Uncompressed => 0,
            CodecKind::Snappy => 1,
            CodecKind::Gzip => 2,
            CodecKind::Lzo => 3,
            CodecKind::Brotli => 4,
            CodecKind::Lz4 => 5,
            CodecKind::Zstd => 6,
            CodecKind::Lz4Raw => 7,
        }
    }

    /// The lower-case name, as [`CodecKind::parse`] accepts it and errors report it.
    pub fn name(self) -> &'static str {
        match self {
            CodecKind::Uncompressed => "uncompressed",
            CodecKind::Snappy => "snappy",
            CodecKind::Gzip => "gzip",
            CodecKind::Lzo => "lzo",
            CodecKind::Brotli => "brotli",
            CodecKind::Lz4 => "lz4",
            CodecKind::Zstd => "zstd",
            CodecKind::Lz4Raw => "lz4_raw",
        }
    }

    /// Parse a codec name, ignoring ASCII case: the names of [`CodecKind::name`], plus
    /// `"none"` for uncompressed and `"lz4raw"`/`"lz4-raw"` for `LZ4_RAW`.
    pub fn parse(s: &str) -> Option<Self> {
        let s = s.trim();
        let kind = match s.to_ascii_lowercase().as_str() {
            "none" | "uncompressed" => CodecKind::Uncompressed,
            "snappy" => CodecKind::Snappy,
            "gzip" => CodecKind::Gzip,
            "lzo" => CodecKind::Lzo,
            "brotli" => CodecKind::Brotli,
            "lz4" => CodecKind::Lz4,
            "zstd" => CodecKind::Zstd,
            "lz4_raw" | "lz4raw" | "lz4-raw" => CodecKind::Lz4Raw,
            _ => return None,
        };
        Some(kind)
    }
}

impl std::fmt::Display for CodecKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One page compressor/decompressor. Implementations keep their library state between calls.
pub trait Codec: Send {
    /// Which codec this is.
    fn kind(&self) -> CodecKind;

    /// Append the compressed form of `input` to `out`.
    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()>;

    /// Compress `input` into the start of `buf` and return the compressed length; what
    /// `buf` holds past it is unspecified. For a buffer reused from page to page: a codec
    /// that writes into an initialized slice (snappy) grows `buf` only when it is too short,
    /// where [`Codec::compress`] into a cleared `Vec` zeroes the bound of every page first.
    fn compress_reusing(&mut self, input: &[u8], buf: &mut Vec<u8>) -> Result<usize> {
        buf.clear();
        self.compress(input, buf)?;
        Ok(buf.len())
    }

    /// Decompress `input` into exactly `out`: `Err` if the data is corrupt or decompresses to
    /// any other length than `out.len()`. On `Err` the contents of `out` are unspecified.
    fn decompress_to_slice(&mut self, input: &[u8], out: &mut [u8]) -> Result<()>;

    /// Append exactly `uncompressed_size` bytes decompressed from `input` to `out`; `Err` if
    /// the data is corrupt or decompresses to any other size.
    ///
    /// A declared size the input cannot produce (see [`max_decompressed_len`], and the
    /// snappy, zstd and Hadoop LZ4 headers) is refused before `out` grows. No configured limit
    /// applies here: use [`Decompressor`] for untrusted sizes. On `Err`, `out` is left as it
    /// was.
    fn decompress(
        &mut self,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let kind = self.kind();
        check_ratio(kind, input.len(), uncompressed_size)?;
        check_header(kind, input, uncompressed_size)?;
        self.append_checked(input, uncompressed_size, out)
    }

    /// [`Codec::decompress`] after its size checks have passed. The default reserves
    /// `uncompressed_size` at once, which suits codecs whose bytes bound it (snappy's length
    /// header, LZ4's 255:1 ratio); the streaming codecs (gzip, brotli, zstd frames without a
    /// content size) override it to grow `out` as output arrives, never past
    /// `uncompressed_size`, so that a header declaring more than the data holds costs no
    /// more memory than the data. On `Err`, `out` is left as it was.
    fn append_checked(
        &mut self,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        decompress_append(self, input, uncompressed_size, out)
    }
}

/// Declared sizes up to this many bytes are reserved at once by the streaming codecs (every
/// page a mainstream writer produces); above it `out` starts at this size, or at
/// [`FIRST_GROWTH_PER_BYTE`] times the compressed bytes when that is more, and doubles as
/// output arrives.
pub const FIRST_GROWTH: usize = 1 << 20;

/// Output reserved at first per compressed byte (above [`FIRST_GROWTH`]): more than honest
/// pages inflate by (2 to 10 times), so that they take one reservation, and what a lying
/// header costs stays a small multiple of the bytes it came with.
pub const FIRST_GROWTH_PER_BYTE: usize = 8;

/// The first room of a streaming decompression of `input_len` bytes declaring `declared`.
#[cfg(any(feature = "zstd", feature = "gzip", feature = "brotli"))]
pub(super) fn first_room(declared: usize, input_len: usize) -> usize {
    declared.min(FIRST_GROWTH.max(input_len.saturating_mul(FIRST_GROWTH_PER_BYTE)))
}

/// Where a streaming decompression writes: a caller's slice of exactly the declared size,
/// or a `Vec` grown as output arrives, never past the declared size.
#[cfg(any(feature = "gzip", feature = "brotli"))]
pub(super) enum Output<'a> {
    /// Exactly the declared size.
    Slice(&'a mut [u8]),
    /// `out[start..]` is the room so far, at most `declared` bytes.
    Growing {
        out: &'a mut Vec<u8>,
        start: usize,
        declared: usize,
    },
}

#[cfg(any(feature = "gzip", feature = "brotli"))]
impl<'a> Output<'a> {
    /// A growing output appending to `out`, with its first room (see [`first_room`])
    /// reserved for `input_len` compressed bytes.
    pub(super) fn growing(out: &'a mut Vec<u8>, declared: usize, input_len: usize) -> Result<Self> {
        let start = out.len();
        let room = first_room(declared, input_len);
        Error::try_reserve_exact(out, room, DECOMPRESSED_PAGE)?;
        out.resize(start + room, 0);
        Ok(Output::Growing {
            out,
            start,
            declared,
        })
    }

    /// The room so far, written or not.
    pub(super) fn buf(&mut self) -> &mut [u8] {
        match self {
            Output::Slice(s) => s,
            Output::Growing { out, start, .. } => &mut out[*start..],
        }
    }

    /// The size the page declares.
    pub(super) fn declared(&self) -> usize {
        match self {
            Output::Slice(s) => s.len(),
            Output::Growing { declared, .. } => *declared,
        }
    }

    /// Double the room, up to the declared size; false when it is there already.
    pub(super) fn grow(&mut self) -> Result<bool> {
        match self {
            Output::Slice(_) => Ok(false),
            Output::Growing {
                out,
                start,
                declared,
            } => {
                let have = out.len() - *start;
                if have >= *declared {
                    return Ok(false);
                }
                let want = have.saturating_mul(2).clamp(1, *declared);
                Error::try_reserve_exact(out, want - have, DECOMPRESSED_PAGE)?;
                out.resize(*start + want, 0);
                Ok(true)
            }
        }
    }

    /// After `result`: on `Err`, a growing output is shrunk back to where it started.
    pub(super) fn finish(self, result: Result<()>) -> Result<()> {
        if let (Output::Growing { out, start, .. }, Err(_)) = (self, &result) {
            out.truncate(start);
        }
        result
    }
}

/// Grow `out` by `uncompressed_size` zeroed bytes and decompress into them; on `Err`, shrink
/// `out` back.
fn decompress_append<C: Codec + ?Sized>(
    codec: &mut C,
    input: &[u8],
    uncompressed_size: usize,
    out: &mut Vec<u8>,
) -> Result<()> {
    let start = out.len();
    Error::try_reserve_exact(out, uncompressed_size, DECOMPRESSED_PAGE)?;
    out.resize(start + uncompressed_size, 0);
    let result = codec.decompress_to_slice(input, &mut out[start..]);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Build a codec. `level` `None` takes the codec's default; codecs without levels (snappy,
/// LZ4, uncompressed) refuse `Some`. `Err(Unsupported)` for LZO.
///
/// Levels: gzip `0..=9` (default [`DEFAULT_GZIP_LEVEL`]), brotli `0..=11` (default
/// [`DEFAULT_BROTLI_LEVEL`]), zstd the range the linked libzstd accepts, typically
/// `-131072..=22` (default [`DEFAULT_ZSTD_LEVEL`]; 0 means libzstd's default).
pub fn new_codec(kind: CodecKind, level: Option<i32>) -> Result<Box<dyn Codec>> {
    let no_level = |codec: Box<dyn Codec>| match level {
        None => Ok(codec),
        Some(_) => Err(Error::Unsupported(
            "a compression level for a codec without levels",
        )),
    };
    match kind {
        CodecKind::Uncompressed => no_level(Box::new(Uncompressed)),
        #[cfg(feature = "snappy")]
        CodecKind::Snappy => no_level(Box::<SnappyCodec>::default()),
        #[cfg(feature = "lz4")]
        CodecKind::Lz4 => no_level(Box::<Lz4HadoopCodec>::default()),
        #[cfg(feature = "lz4")]
        CodecKind::Lz4Raw => no_level(Box::<Lz4RawCodec>::default()),
        #[cfg(feature = "gzip")]
        CodecKind::Gzip => Ok(Box::new(GzipCodec::new(level)?)),
        #[cfg(feature = "brotli")]
        CodecKind::Brotli => Ok(Box::new(BrotliCodec::new(level)?)),
        #[cfg(feature = "zstd")]
        CodecKind::Zstd => Ok(Box::new(ZstdCodec::new(level)?)),
        CodecKind::Lzo => Err(Error::Unsupported("the lzo compression codec")),
        #[allow(unreachable_patterns)] // every codec compiled in
        _ => Err(disabled(kind)),
    }
}

/// Whether `kind` can be compressed and decompressed by this build: `false` for LZO and for a
/// codec whose cargo feature is off.
pub fn is_available(kind: CodecKind) -> bool {
    match kind {
        CodecKind::Uncompressed => true,
        CodecKind::Snappy => cfg!(feature = "snappy"),
        CodecKind::Gzip => cfg!(feature = "gzip"),
        CodecKind::Lzo => false,
        CodecKind::Brotli => cfg!(feature = "brotli"),
        CodecKind::Lz4 | CodecKind::Lz4Raw => cfg!(feature = "lz4"),
        CodecKind::Zstd => cfg!(feature = "zstd"),
    }
}

/// The error for a codec whose cargo feature is off: it names the feature to turn on.
fn disabled(kind: CodecKind) -> Error {
    Error::Unsupported(match kind {
        CodecKind::Snappy => "the snappy codec: this build left it out (cargo feature `snappy`)",
        CodecKind::Gzip => "the gzip codec: this build left it out (cargo feature `gzip`)",
        CodecKind::Brotli => "the brotli codec: this build left it out (cargo feature `brotli`)",
        CodecKind::Lz4 => "the lz4 codec: this build left it out (cargo feature `lz4`)",
        CodecKind::Lz4Raw => "the lz4_raw codec: this build left it out (cargo feature `lz4`)",
        CodecKind::Zstd => "the zstd codec: this build left it out (cargo feature `zstd`)",
        CodecKind::Uncompressed | CodecKind::Lzo => "the lzo compression codec",
    })
}

/// The no-op codec: copies bytes through, checking the size.
#[derive(Debug, Default, Clone, Copy)]
pub struct Uncompressed;

impl Codec for Uncompressed {
    fn kind(&self) -> CodecKind {
        CodecKind::Uncompressed
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        out.extend_from_slice(input);
        Ok(())
    }

    fn decompress_to_slice(&mut self, input: &[u8], out: &mut [u8]) -> Result<()> {
        check_exact_len(input.len(), out.len())?;
        out.copy_from_slice(input);
        Ok(())
    }

    fn decompress(
        &mut self,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        check_exact_len(input.len(), uncompressed_size)?;
        out.extend_from_slice(input);
        Ok(())
    }
}

fn check_exact_len(input_len: usize, uncompressed_size: usize) -> Result<()> {
    if input_len == uncompressed_size {
        Ok(())
    } else {
        Err(Error::InvalidData {
            offset: 0,
            what: "uncompressed page size differs from its compressed size",
        })
    }
}

/// Caps on what a decompression may allocate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// The largest decompressed page accepted, in bytes. Default [`Limits::DEFAULT_MAX_UNCOMPRESSED_SIZE`].
    pub max_uncompressed_size: usize,
}

impl Limits {
    /// 1 GiB: above any page a mainstream writer produces (they aim at 1 MiB), below what
    /// would exhaust a typical machine's memory from one forged header.
    pub const DEFAULT_MAX_UNCOMPRESSED_SIZE: usize = 1 << 30;

    /// These options with [`max_uncompressed_size`](Self::max_uncompressed_size) set to `v`.
    pub fn with_max_uncompressed_size(mut self, v: usize) -> Self {
        self.max_uncompressed_size = v;
        self
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_uncompressed_size: Self::DEFAULT_MAX_UNCOMPRESSED_SIZE,
        }
    }
}

/// The most bytes an LZ4 block (and so LZ4_RAW, Hadoop LZ4 and the LZ4 frame) can produce per
/// input byte. A match length of `n` costs `n / 255` extension bytes; every other byte of a
/// sequence yields less than 255 bytes of output.
/// <https://github.com/lz4/lz4/blob/dev/doc/lz4_Block_format.md>
pub const LZ4_MAX_RATIO: usize = 255;

/// The most bytes deflate (gzip) can produce per input byte: a length-258 match coded in
/// 2 bits (1-bit length code, 1-bit distance code) is 1032 bytes per input byte.
/// <https://zlib.net/zlib_tech.html>
pub const DEFLATE_MAX_RATIO: usize = 1032;

/// The most bytes zstd can produce per input byte: an RLE block is a 3-byte block header and
/// one byte, and yields at most 128 KiB (the maximum block size); frame headers only add
/// input. <https://www.rfc-editor.org/rfc/rfc8878#name-blocks>
pub const ZSTD_MAX_RATIO: usize = (128 * 1024) / 4;

/// The most bytes brotli can produce per input byte: a meta-block yields at most 16 MiB
/// (`MLEN` has at most 6 nibbles) and a compressed meta-block that produces anything takes
/// more than 4 bytes of header and prefix codes. So in practice only the configured limit
/// bounds brotli, for inputs over 256 bytes. <https://www.rfc-editor.org/rfc/rfc7932#section-9.2>
pub const BROTLI_MAX_RATIO: usize = (16 << 20) / 4;

/// The largest size `compressed_len` bytes of codec `kind` can decompress to, from the
/// format alone. `None` for LZO (unsupported, so unbounded).
pub fn max_decompressed_len(kind: CodecKind, compressed_len: usize) -> Option<usize> {
    let ratio = match kind {
        CodecKind::Uncompressed => 1,
        // A snappy block holds its exact length in its header; as a bound, a 64 KiB copy
        // costs 3 bytes (tag + 2-byte offset) and yields 64 bytes: ratio < 32. Use the header.
        CodecKind::Snappy => 32,
        CodecKind::Gzip => DEFLATE_MAX_RATIO,
        CodecKind::Lzo => return None,
        CodecKind::Brotli => BROTLI_MAX_RATIO,
        CodecKind::Lz4 | CodecKind::Lz4Raw => LZ4_MAX_RATIO,
        CodecKind::Zstd => ZSTD_MAX_RATIO,
    };
    Some(compressed_len.saturating_mul(ratio))
}

/// The size checks [`Decompressor`] runs before it allocates, for callers that decompress
/// into their own buffers: `uncompressed_size` must not exceed
/// `limits.max_uncompressed_size`, nor what `compressed_len` bytes of `kind` can produce
/// ([`max_decompressed_len`]).
///
/// Checks that need the bytes themselves (the snappy length header, the zstd frame content
/// size, Hadoop LZ4 block headers) run inside [`Codec::decompress`] and
/// [`Decompressor::decompress`].
pub fn check_declared_size(
    kind: CodecKind,
    compressed_len: usize,
    uncompressed_size: usize,
    limits: &Limits,
) -> Result<()> {
    if uncompressed_size > limits.max_uncompressed_size {
        return Err(Error::TooLarge {
            what: DECLARED_PAGE_SIZE,
            declared: uncompressed_size as u64,
            limit: limits.max_uncompressed_size as u64,
        });
    }
    check_ratio(kind, compressed_len, uncompressed_size)
}

/// The `what` of the [`Error::TooLarge`] for a page over [`Limits::max_uncompressed_size`],
/// so that callers can tell it from corrupt sizes and name the limit to raise.
pub const DECLARED_PAGE_SIZE: &str = "declared uncompressed page size";

/// What [`Error::OutOfMemory`] names when the room for a decompressed page was refused.
pub const DECOMPRESSED_PAGE: &str = "a decompressed page";

/// `uncompressed_size` must be producible from `compressed_len` bytes of `kind`.
fn check_ratio(kind: CodecKind, compressed_len: usize, uncompressed_size: usize) -> Result<()> {
    if kind == CodecKind::Uncompressed {
        return check_exact_len(compressed_len, uncompressed_size);
    }
    match max_decompressed_len(kind, compressed_len) {
        None => Err(Error::Unsupported("the lzo compression codec")),
        Some(max) if uncompressed_size > max => Err(Error::TooLarge {
            what: "declared uncompressed page size (bounded by its compressed size times the codec's largest ratio)",
            declared: uncompressed_size as u64,
            limit: max as u64,
        }),
        Some(_) => Ok(()),
    }
}

/// Checks of the declared size against headers inside the compressed bytes, cheap enough to
/// run before allocating.
fn check_header(kind: CodecKind, input: &[u8], uncompressed_size: usize) -> Result<()> {
    match kind {
        #[cfg(feature = "snappy")]
        CodecKind::Snappy => snappy::check_header(input, uncompressed_size),
        #[cfg(feature = "zstd")]
        CodecKind::Zstd => zstd::check_header(input, uncompressed_size),
        _ => {
            let _ = (input, uncompressed_size); // used only by the codecs compiled in
            Ok(())
        }
    }
}

/// Decompresses pages with size checks, with codecs built lazily once per thread and kind.
///
/// Before allocating, [`Decompressor::decompress`] refuses a declared size over
/// [`Limits::max_uncompressed_size`] ([`Error::TooLarge`]), over what the input can produce
/// for its codec ([`max_decompressed_len`], [`Error::TooLarge`]), or contradicted by a header
/// in the input (snappy's length, zstd's frame content size: [`Error::InvalidData`]).
///
/// A reader keeps one decompressor per column, and some codecs' state is not small (a zstd
/// context is about 100 KiB, a gzip one more, LZ4's compression table 64 KiB): those live in
/// a thread-local cache that every decompressor of the thread shares, so a file of 10,000
/// columns costs one context per thread, not one per column. Each call resets what it uses,
/// so sharing changes no output. Snappy's codec (a few KiB) and the uncompressed one stay
/// the decompressor's own: they need no cache, and moving them changed where glibc could
/// trim the heap, adding page faults to repeated whole-column reads of snappy files.
pub struct Decompressor {
    limits: Limits,
    /// This decompressor's own codecs (the small ones, see [`Decompressor::shared`]).
    own: [Option<Box<dyn Codec>>; 8],
}

impl std::fmt::Debug for Decompressor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Decompressor")
            .field("limits", &self.limits)
            .finish_non_exhaustive()
    }
}

thread_local! {
    /// The codecs [`Decompressor`]s of this thread decompress with, by thrift id.
    static CODECS: std::cell::RefCell<[Option<Box<dyn Codec>>; 8]> =
        std::cell::RefCell::new(Default::default());
}

impl Default for Decompressor {
    fn default() -> Self {
        Self::new(Limits::default())
    }
}

impl Decompressor {
    /// A decompressor enforcing `limits` (cheap: it builds no codec).
    pub fn new(limits: Limits) -> Self {
        Decompressor {
            limits,
            own: Default::default(),
        }
    }

    /// Whether the codec of `kind` comes from the thread's cache (its state is large).
    fn shared(kind: CodecKind) -> bool {
        !matches!(kind, CodecKind::Snappy | CodecKind::Uncompressed)
    }

    /// Run `f` with the codec of `kind`: this decompressor's own or the thread's.
    fn with<T>(
        &mut self,
        kind: CodecKind,
        f: impl FnOnce(&mut dyn Codec) -> Result<T>,
    ) -> Result<T> {
        if Self::shared(kind) {
            return Self::with_codec(kind, f);
        }
        let slot = &mut self.own[kind.to_thrift() as usize];
        if slot.is_none() {
            *slot = Some(new_codec(kind, None)?);
        }
        match slot {
            Some(codec) => f(codec.as_mut()),
            None => Err(Error::Unsupported("codec construction failed")),
        }
    }

    /// The limits this decompressor enforces.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    /// Run `f` with this thread's codec of `kind`, built on first use.
    fn with_codec<T>(kind: CodecKind, f: impl FnOnce(&mut dyn Codec) -> Result<T>) -> Result<T> {
        let mut f = Some(f);
        let shared = CODECS.try_with(|codecs| {
            // A codec never decompresses through a `Decompressor` itself, so the cache is
            // not borrowed twice; if it were (or once the thread's cache is gone, while the
            // thread exits), the call builds a codec of its own below.
            let mut codecs = codecs.try_borrow_mut().ok()?;
            let slot = &mut codecs[kind.to_thrift() as usize];
            if slot.is_none() {
                *slot = match new_codec(kind, None) {
                    Ok(codec) => Some(codec),
                    Err(e) => return Some(Err(e)),
                };
            }
            let f = f.take()?;
            slot.as_mut().map(|codec| f(codec.as_mut()))
        });
        match (shared, f.take()) {
            (Ok(Some(result)), _) => result,
            (_, Some(f)) => f(new_codec(kind, None)?.as_mut()),
            (_, None) => Err(Error::Unsupported("codec construction failed")),
        }
    }

    /// The kinds whose codec this thread has built.
    #[cfg(test)]
    pub(crate) fn cached_kinds() -> Vec<CodecKind> {
        CODECS.with_borrow(|codecs| codecs.iter().flatten().map(|c| c.kind()).collect())
    }

    /// Append exactly `uncompressed_size` bytes decompressed from `input` to `out`, after the
    /// size checks. On `Err`, `out` is left as it was.
    pub fn decompress(
        &mut self,
        kind: CodecKind,
        input: &[u8],
        uncompressed_size: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        check_declared_size(kind, input.len(), uncompressed_size, &self.limits)?;
        check_header(kind, input, uncompressed_size)?;
        if uncompressed_size == 0 && input.is_empty() {
            // An empty page: some writers skip the codec for it (data page v2 with no values).
            return Ok(());
        }
        self.with(kind, |c| c.append_checked(input, uncompressed_size, out))
    }

    /// Decompress `input` into exactly `out` (its length is the declared size), after the
    /// size checks.
    pub fn decompress_to_slice(
        &mut self,
        kind: CodecKind,
        input: &[u8],
        out: &mut [u8],
    ) -> Result<()> {
        check_declared_size(kind, input.len(), out.len(), &self.limits)?;
        check_header(kind, input, out.len())?;
        if out.is_empty() && input.is_empty() {
            return Ok(());
        }
        self.with(kind, |c| c.decompress_to_slice(input, out))
    }
}

/// Error for a decompression that produced `produced` bytes where `expected` were declared.
#[cfg_attr(
    not(any(
        feature = "snappy",
        feature = "zstd",
        feature = "gzip",
        feature = "lz4",
        feature = "brotli"
    )),
    allow(dead_code)
)]
fn size_mismatch(offset: usize, produced: usize, expected: usize) -> Error {
    Error::InvalidData {
        offset,
        what: if produced < expected {
            "page decompressed to fewer bytes than its declared size"
        } else {
            "page decompressed to more bytes than its declared size"
        },
    }
}

/// Error from a compression library.
#[cfg_attr(
    not(any(
        feature = "snappy",
        feature = "zstd",
        feature = "gzip",
        feature = "lz4",
        feature = "brotli"
    )),
    allow(dead_code)
)]
fn lib_error(kind: CodecKind, message: impl std::fmt::Display) -> Error {
    Error::Compression {
        codec: kind.name(),
        message: message.to_string(),
    }
}

// The codec tests use every library (and some as oracles); `disabled_tests` covers the
// builds with codecs left out.
#[cfg(test)]
mod disabled_tests;
#[cfg(all(
    test,
    feature = "snappy",
    feature = "zstd",
    feature = "gzip",
    feature = "lz4",
    feature = "brotli"
))]
mod tests;
