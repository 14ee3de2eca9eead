//! The file footer and page headers: the `parquet.thrift` structs and a hand-written Thrift
//! compact protocol.
//!
//! A Parquet file ends with
//!
//! ```text
//! <FileMetaData, thrift compact> <u32 little-endian length of it> "PAR1"
//! ```
//!
//! (`"PARE"` instead of `"PAR1"` means the footer is encrypted: see `parq::encryption`,
//! feature `encryption`).
//! Every struct decodes straight from bytes into the owned Rust structs of this module with
//! `T::read(&mut CompactReader)` and encodes with `T::write(&mut CompactWriter)`, both made
//! from one declaration of the struct (`thrift_struct!`, in `thrift_struct.rs`); the
//! functions below do that for the top-level structs. Decoding never panics on bad input;
//! errors are [`Error::Format`] whose `offset` is the byte offset inside the buffer that was
//! passed in (use [`rebase_error`] to turn it into a file offset).

pub use bloom::{BloomFilterHeader, BloomFilterUnion};
pub use file::{
    AesGcmParams, BoundingBox, ColumnChunk, ColumnCryptoMetaData, ColumnMetaData,
    EncodingStatsList, Encodings, EncryptionAlgorithm, FileMetaData, GeospatialStatistics,
    KeyValue, LevelHistogram, PageEncodingStats, RowGroup, SchemaElement, SizeStatistics,
    SortingColumn, Statistics,
};
pub use inline::{InlineBytes, InlineVec};
pub use page::{
    ColumnIndex, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, IndexPageHeader,
    OffsetIndex, PageHeader, PageLocation,
};
pub use path::ColumnPath;
// Public whatever the features: every metadata struct reads and writes through them.
pub use thrift::{CompactReader, CompactWriter};
pub use types::{
    BoundaryOrder, ColumnOrder, CompressionCodec, ConvertedType, EdgeInterpolationAlgorithm,
    Encoding, FieldRepetitionType, LogicalType, PageType, TimeUnit, Type,
};

#[macro_use]
mod thrift_struct;
mod bloom;
mod file;
mod inline;
mod page;
mod path;
// Unstable internals for parq's own fuzz targets, benches and integrations (feature
// `internals`); crate-private otherwise, so they carry no semver promise.
#[cfg(feature = "internals")]
pub mod thrift;
#[cfg(not(feature = "internals"))]
pub(crate) mod thrift;
mod types;

#[cfg(test)]
mod tests;

use crate::error::Error;
use crate::Result;

/// The magic bytes at the start and end of a Parquet file.
pub const MAGIC: &[u8; 4] = b"PAR1";
/// The magic bytes at the end of a file whose footer is encrypted.
pub const MAGIC_ENCRYPTED: &[u8; 4] = b"PARE";
/// Bytes after the metadata: the 4-byte length and the magic.
pub const FOOTER_TAIL_LEN: usize = 8;

/// Parses the last 8 bytes of a file (metadata length, then `"PAR1"`) and returns the
/// metadata length. The caller checks that the length fits the file
/// (`len + 8 <= file_size`, `len + 12` with the leading magic).
///
/// `"PARE"` (encrypted footer) gives [`Error::Unsupported`].
pub fn parse_footer_len(tail8: &[u8; 8]) -> Result<usize> {
    let magic = &tail8[4..];
    if magic == MAGIC_ENCRYPTED {
        return Err(Error::Unsupported("encrypted footer".into()));
    }
    if magic != MAGIC {
        return Err(Error::format(format!(
            "file does not end with PAR1 magic (found {magic:02x?})"
        )));
    }
    let len = u32::from_le_bytes([tail8[0], tail8[1], tail8[2], tail8[3]]);
    Ok(len as usize)
}

/// The metadata bytes of a whole file held in memory: checks `"PAR1"` at both ends and that
/// the footer length fits between them.
pub fn footer_metadata(file: &[u8]) -> Result<&[u8]> {
    let n = file.len();
    if n < 12 {
        return Err(Error::format(format!(
            "file of {n} bytes is too small to be parquet (at least 12)"
        )));
    }
    let mut tail = [0u8; 8];
    tail.copy_from_slice(&file[n - 8..]);
    let len = parse_footer_len(&tail)?;
    if &file[..4] != MAGIC {
        return Err(Error::format("file does not start with PAR1 magic").at(
            &crate::error::Location {
                offset: Some(0),
                ..Default::default()
            },
        ));
    }
    if len > n - 12 {
        return Err(Error::format(format!(
            "footer length {len} exceeds the {} bytes between the magics",
            n - 12
        ))
        .at(&crate::error::Location {
            offset: Some((n - 8) as u64),
            ..Default::default()
        }));
    }
    Ok(&file[n - 8 - len..n - 8])
}

/// Decodes the footer of a whole file held in memory.
pub fn decode_footer(file: &[u8]) -> Result<FileMetaData> {
    let meta = footer_metadata(file)?;
    let base = (file.len() - 8 - meta.len()) as u64;
    decode_file_metadata(meta).map_err(|e| rebase_error(e, base))
}

/// Adds `base` to the byte offset of a [`Error::Format`] or [`Error::Codec`] error, turning
/// an offset inside a buffer into a file offset.
pub fn rebase_error(mut e: Error, base: u64) -> Error {
    if let Error::Format { at, .. } | Error::Codec { at, .. } = &mut e {
        if let Some(o) = &mut at.offset {
            *o = o.saturating_add(base);
        }
    }
    e
}

/// Decodes the whole of `buf` as a `FileMetaData` (trailing bytes are ignored).
pub fn decode_file_metadata(buf: &[u8]) -> Result<FileMetaData> {
    decode_file_metadata_within(buf, u64::MAX)
}

/// Decodes a `FileMetaData` whose decoded lists may take at most `memory` bytes (see
/// [`CompactReader::with_memory_budget`]); [`Error::Memory`] past it.
pub fn decode_file_metadata_within(buf: &[u8], memory: u64) -> Result<FileMetaData> {
    FileMetaData::read(&mut CompactReader::new(buf).with_memory_budget(memory))
}

/// The memory a footer of `len` bytes may decode to, within a read's budget of `max_memory`:
/// [`FOOTER_EXPANSION`] times its bytes, and at least 64 MiB.
pub fn footer_memory_budget(len: usize, max_memory: u64) -> u64 {
    (len as u64)
        .saturating_mul(FOOTER_EXPANSION)
        .max(64 << 20)
        .min(max_memory)
}

/// How many times its wire size a footer may take once decoded. Honest footers take about
/// 4 to 10 (a column chunk of ~60 bytes on the wire is ~600 in memory, its strings
/// included); footers of bare, near-empty structs reach 200 and more.
pub const FOOTER_EXPANSION: u64 = 64;

/// Appends the compact encoding of `m` to `out`.
pub fn encode_file_metadata(m: &FileMetaData, out: &mut Vec<u8>) {
    m.write(&mut CompactWriter::new(out));
}

/// Decodes one page header from the start of `buf`, returning it and its encoded length
/// (the page data starts that many bytes into `buf`).
pub fn decode_page_header(buf: &[u8]) -> Result<(PageHeader, usize)> {
    let mut r = CompactReader::new(buf);
    let h = PageHeader::read(&mut r)?;
    Ok((h, r.position()))
}

/// Appends the compact encoding of `h` to `out`.
pub fn encode_page_header(h: &PageHeader, out: &mut Vec<u8>) {
    h.write(&mut CompactWriter::new(out));
}

/// Decodes a `ColumnIndex` from the start of `buf`.
pub fn decode_column_index(buf: &[u8]) -> Result<ColumnIndex> {
    ColumnIndex::read(&mut CompactReader::new(buf))
}

/// Appends the compact encoding of `c` to `out`.
pub fn encode_column_index(c: &ColumnIndex, out: &mut Vec<u8>) {
    c.write(&mut CompactWriter::new(out));
}

/// Decodes an `OffsetIndex` from the start of `buf`.
pub fn decode_offset_index(buf: &[u8]) -> Result<OffsetIndex> {
    OffsetIndex::read(&mut CompactReader::new(buf))
}

/// Appends the compact encoding of `o` to `out`.
pub fn encode_offset_index(o: &OffsetIndex, out: &mut Vec<u8>) {
    o.write(&mut CompactWriter::new(out));
}

/// Decodes a `BloomFilterHeader` from the start of `buf`, returning it and its encoded length
/// (the bitset starts that many bytes into `buf`).
pub fn decode_bloom_filter_header(buf: &[u8]) -> Result<(BloomFilterHeader, usize)> {
    let mut r = CompactReader::new(buf);
    let h = BloomFilterHeader::read(&mut r)?;
    Ok((h, r.position()))
}

/// Appends the compact encoding of `h` to `out`.
pub fn encode_bloom_filter_header(h: &BloomFilterHeader, out: &mut Vec<u8>) {
    h.write(&mut CompactWriter::new(out));
}
