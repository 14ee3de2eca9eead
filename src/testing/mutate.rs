//! Near-valid corruptions of a valid file, each named, for robustness tests.
//!
//! Byte-level mutation mostly dies at the first length check. These corrupt one structure on
//! purpose and leave the rest of the file valid, so a reader must get past the footer and the
//! page headers to find what is wrong. Each [`Mutated`] says which [`Mutation`] it is, where
//! (column path, row group, file offset) and what changed; [`Mutation::keywords`] lists
//! words one of which a reader's error should contain, so a test can assert that the error
//! names what was broken.
//!
//! ```
//! use parq::testing::{mutate, Mutation};
//! use parq::write::{Field, ParquetWriter, WriterOptions};
//! use parq::column::{Column, Values};
//! let mut file = Vec::new();
//! let mut w = ParquetWriter::new(&mut file, vec![Field::int64("id")], WriterOptions::default())?;
//! w.write_batch(&[Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) }])?;
//! w.finish()?;
//! let broken = mutate(&file, Mutation::PageCompressedSize).expect("the file has a data page");
//! let err = parq::read::ParquetReader::new(bytes::Bytes::from(broken.bytes))?
//!     .read_column(0)
//!     .unwrap_err();
//! assert!(Mutation::PageCompressedSize.named_by(&err.to_string()), "{err}");
//! # Ok::<(), parq::Error>(())
//! ```

use std::fmt;

use crate::codecs::compression::CodecKind;
use crate::metadata::{
    decode_footer, decode_page_header, encode_file_metadata, encode_page_header, Encoding,
    FileMetaData, PageHeader, PageType,
};
use crate::schema::SchemaDescriptor;

/// What a mutation breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mutation {
    /// The first data page header's `compressed_page_size` points past the column chunk.
    PageCompressedSize,
    /// The first data page header of an uncompressed chunk declares one byte more
    /// (`uncompressed_page_size`) than the page holds. (In a compressed chunk the codec
    /// would be the one to notice, each in its own words.)
    PageUncompressedSize,
    /// A dictionary-encoded page (uncompressed chunk) refers to an index past the dictionary.
    DictionaryIndexPastEnd,
    /// A data page's definition or repetition level stream (uncompressed chunk) is declared
    /// empty, so it ends before the page's values.
    LevelsEndEarly,
    /// The footer puts the first column chunk past the end of the file.
    ChunkOffsetPastEnd,
    /// The footer length (the 4 bytes before the final magic) is larger than the file.
    FooterLengthPastEnd,
    /// The final `PAR1` magic is wrong.
    BadMagic,
}

impl Mutation {
    /// Every kind.
    pub const ALL: [Mutation; 7] = [
        Mutation::PageCompressedSize,
        Mutation::PageUncompressedSize,
        Mutation::DictionaryIndexPastEnd,
        Mutation::LevelsEndEarly,
        Mutation::ChunkOffsetPastEnd,
        Mutation::FooterLengthPastEnd,
        Mutation::BadMagic,
    ];

    /// Words (lower case) one of which a reader's error should contain.
    pub fn keywords(self) -> &'static [&'static str] {
        match self {
            Mutation::PageCompressedSize => &["compressed"],
            Mutation::PageUncompressedSize => &["uncompressed"],
            Mutation::DictionaryIndexPastEnd => &["dictionary"],
            Mutation::LevelsEndEarly => &["level"],
            Mutation::ChunkOffsetPastEnd => &["outside the file", "past the end"],
            Mutation::FooterLengthPastEnd => &["footer"],
            Mutation::BadMagic => &["magic"],
        }
    }

    /// Whether the error message `message` names what this mutation broke.
    pub fn named_by(self, message: &str) -> bool {
        let m = message.to_lowercase();
        self.keywords().iter().any(|k| m.contains(k))
    }
}

impl fmt::Display for Mutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Mutation::PageCompressedSize => "page compressed size past the chunk",
            Mutation::PageUncompressedSize => "page uncompressed size off by one",
            Mutation::DictionaryIndexPastEnd => "dictionary index past the dictionary",
            Mutation::LevelsEndEarly => "level stream ending early",
            Mutation::ChunkOffsetPastEnd => "column chunk offset past the end of the file",
            Mutation::FooterLengthPastEnd => "footer length past the start of the file",
            Mutation::BadMagic => "bad final magic",
        };
        f.write_str(s)
    }
}

/// A corrupted file.
#[derive(Debug, Clone)]
pub struct Mutated {
    /// What was broken.
    pub kind: Mutation,
    /// Where and how: column path, row group, file offset, old and new value.
    pub description: String,
    /// The corrupted file.
    pub bytes: Vec<u8>,
}

/// Every mutation that applies to `file` (a valid Parquet file).
pub fn mutations(file: &[u8]) -> Vec<Mutated> {
    Mutation::ALL
        .iter()
        .filter_map(|&m| mutate(file, m))
        .collect()
}

/// `file` (a valid Parquet file) with `kind` applied; `None` when the file has nothing it
/// applies to (no dictionary page in an uncompressed chunk, no levels, ...) or is not valid.
pub fn mutate(file: &[u8], kind: Mutation) -> Option<Mutated> {
    let meta = decode_footer(file).ok()?;
    let done = |description: String, bytes: Vec<u8>| {
        Some(Mutated {
            kind,
            description,
            bytes,
        })
    };
    match kind {
        Mutation::FooterLengthPastEnd => {
            let mut out = file.to_vec();
            let n = out.len();
            let len = u32::try_from(n).ok()?;
            out[n - 8..n - 4].copy_from_slice(&len.to_le_bytes());
            done(format!("footer length set to {len}, the whole file"), out)
        }
        Mutation::BadMagic => {
            let mut out = file.to_vec();
            let n = out.len();
            out[n - 1] = b'X';
            done("final magic PAR1 -> PARX".into(), out)
        }
        Mutation::ChunkOffsetPastEnd => {
            let mut m = meta;
            let (path, c) = first_chunk_meta(&mut m)?;
            let past = file.len() as i64 + 1024;
            let old = c.data_page_offset;
            c.data_page_offset = past;
            c.dictionary_page_offset = None;
            let d = format!("column {path}, row group 0: data_page_offset {old} -> {past}");
            done(d, with_footer(file, &m)?)
        }
        Mutation::PageCompressedSize => {
            let page = pages(file, &meta).into_iter().find(|p| p.is_data())?;
            let mut h = page.header.clone();
            let old = h.compressed_page_size;
            h.compressed_page_size = i32::MAX / 2;
            let d = format!(
                "{}: compressed_page_size {old} -> {}",
                page.at(),
                h.compressed_page_size
            );
            done(d, with_header(file, &page, &h))
        }
        Mutation::PageUncompressedSize => {
            let page = pages(file, &meta)
                .into_iter()
                .find(|p| p.is_data() && p.codec == Some(CodecKind::Uncompressed))?;
            let mut h = page.header.clone();
            let old = h.uncompressed_page_size;
            h.uncompressed_page_size = old.checked_add(1)?;
            let d = format!("{}: uncompressed_page_size {old} -> {}", page.at(), old + 1);
            done(d, with_header(file, &page, &h))
        }
        Mutation::DictionaryIndexPastEnd => dictionary_index(file, &meta).map(|(d, b)| Mutated {
            kind,
            description: d,
            bytes: b,
        }),
        Mutation::LevelsEndEarly => levels_end_early(file, &meta).map(|(d, b)| Mutated {
            kind,
            description: d,
            bytes: b,
        }),
    }
}

/// The metadata of the first column chunk of the first row group, with its path.
fn first_chunk_meta(
    m: &mut FileMetaData,
) -> Option<(String, &mut crate::metadata::ColumnMetaData)> {
    let c = m
        .row_groups
        .first_mut()?
        .columns
        .first_mut()?
        .meta_data
        .as_mut()?;
    Some((c.path_in_schema.join("."), c))
}

/// `file` with its footer replaced by `m`.
fn with_footer(file: &[u8], m: &FileMetaData) -> Option<Vec<u8>> {
    let old_len = u32::from_le_bytes(file.get(file.len() - 8..file.len() - 4)?.try_into().ok()?);
    let start = file.len().checked_sub(8 + old_len as usize)?;
    let mut out = file[..start].to_vec();
    let mut footer = Vec::new();
    encode_file_metadata(m, &mut footer);
    out.extend_from_slice(&footer);
    out.extend_from_slice(&u32::try_from(footer.len()).ok()?.to_le_bytes());
    out.extend_from_slice(b"PAR1");
    Some(out)
}

/// One page of a column chunk.
struct PageAt {
    header: PageHeader,
    /// File offset of the header.
    offset: usize,
    header_len: usize,
    path: String,
    row_group: usize,
    codec: Option<CodecKind>,
    max_def: i16,
    max_rep: i16,
}

impl PageAt {
    fn is_data(&self) -> bool {
        matches!(
            self.header.type_,
            PageType::DATA_PAGE | PageType::DATA_PAGE_V2
        )
    }
    fn at(&self) -> String {
        format!(
            "column {}, row group {}, page header at file offset {}",
            self.path, self.row_group, self.offset
        )
    }
    fn body(&self) -> std::ops::Range<usize> {
        let start = self.offset + self.header_len;
        start..start + self.header.compressed_page_size.max(0) as usize
    }
}

/// Every page of every column chunk, in file order of chunks.
fn pages(file: &[u8], meta: &FileMetaData) -> Vec<PageAt> {
    let Ok(schema) = SchemaDescriptor::new(&meta.schema) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (rg, group) in meta.row_groups.iter().enumerate() {
        for (i, chunk) in group.columns.iter().enumerate() {
            let (Some(c), Some(leaf)) = (&chunk.meta_data, schema.leaves.get(i)) else {
                continue;
            };
            let start = match c.dictionary_page_offset {
                Some(d) if d > 0 && d < c.data_page_offset => d,
                _ => c.data_page_offset,
            };
            let (Ok(mut pos), Ok(len)) = (
                usize::try_from(start),
                usize::try_from(c.total_compressed_size),
            ) else {
                continue;
            };
            let end = pos.saturating_add(len).min(file.len());
            while pos < end {
                let Ok((header, header_len)) = decode_page_header(&file[pos..end]) else {
                    break;
                };
                let next = pos + header_len + header.compressed_page_size.max(0) as usize;
                out.push(PageAt {
                    header,
                    offset: pos,
                    header_len,
                    path: leaf.path_string(),
                    row_group: rg,
                    codec: CodecKind::from_thrift(c.codec.0),
                    max_def: leaf.max_def_level,
                    max_rep: leaf.max_rep_level,
                });
                pos = next;
            }
        }
    }
    out
}

/// `file` with `page`'s header replaced by `h` (the rest of the file shifts if the new
/// header's length differs: the page itself is then the first thing a reader trips on).
fn with_header(file: &[u8], page: &PageAt, h: &PageHeader) -> Vec<u8> {
    let mut header = Vec::new();
    encode_page_header(h, &mut header);
    let mut out = file[..page.offset].to_vec();
    out.extend_from_slice(&header);
    out.extend_from_slice(&file[page.offset + page.header_len..]);
    out
}

/// The bytes of `w`-bit value `v` as the RLE hybrid stores a run's value.
fn run_value(v: u64, w: u8) -> Vec<u8> {
    v.to_le_bytes()[..(w as usize).div_ceil(8)].to_vec()
}

fn uleb128(mut v: u64, out: &mut Vec<u8>) {
    loop {
        let b = (v & 0x7F) as u8;
        v >>= 7;
        if v == 0 {
            out.push(b);
            return;
        }
        out.push(b | 0x80);
    }
}

/// The value bytes of a data page in an uncompressed chunk: after the v1 level streams, or
/// after the v2 level bytes.
fn values_range(file: &[u8], page: &PageAt) -> Option<std::ops::Range<usize>> {
    let body = page.body();
    if body.end > file.len() {
        return None;
    }
    match page.header.type_ {
        PageType::DATA_PAGE => {
            let mut pos = body.start;
            for max in [page.max_rep, page.max_def] {
                if max > 0 {
                    let len = u32::from_le_bytes(file.get(pos..pos + 4)?.try_into().ok()?);
                    pos = pos.checked_add(4 + len as usize)?;
                }
            }
            (pos <= body.end).then_some(pos..body.end)
        }
        PageType::DATA_PAGE_V2 => {
            let h = page.header.data_page_header_v2.as_ref()?;
            let levels = h.repetition_levels_byte_length.max(0) as usize
                + h.definition_levels_byte_length.max(0) as usize;
            let start = body.start.checked_add(levels)?;
            (start <= body.end).then_some(start..body.end)
        }
        _ => None,
    }
}

fn dictionary_index(file: &[u8], meta: &FileMetaData) -> Option<(String, Vec<u8>)> {
    let all = pages(file, meta);
    let mut dict_len: Option<i32> = None;
    for page in &all {
        if page.codec != Some(CodecKind::Uncompressed) {
            continue;
        }
        if let Some(d) = &page.header.dictionary_page_header {
            dict_len = Some(d.num_values);
            continue;
        }
        let (encoding, num_values) = match (
            &page.header.data_page_header,
            &page.header.data_page_header_v2,
        ) {
            (Some(h), _) => (h.encoding, h.num_values),
            (_, Some(h)) => (h.encoding, h.num_values - h.num_nulls),
            _ => continue,
        };
        if !matches!(
            encoding,
            Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY
        ) {
            continue;
        }
        let (Some(n), Some(values)) = (dict_len, values_range(file, page)) else {
            continue;
        };
        let old_width = *file.get(values.start)?;
        let past = n.max(0) as u64;
        let width = old_width.max((64 - past.leading_zeros()) as u8);
        if width > 32 || num_values <= 0 {
            continue;
        }
        // One RLE run of `num_values` copies of index `past`, padded with zeros.
        let mut run = vec![width];
        uleb128((num_values as u64) << 1, &mut run);
        run.extend(run_value(past, width));
        if run.len() > values.len() {
            continue;
        }
        let mut out = file.to_vec();
        out[values.start..values.end].fill(0);
        out[values.start..values.start + run.len()].copy_from_slice(&run);
        let d = format!(
            "{}: every index set to {past}, a dictionary of {n} values",
            page.at()
        );
        return Some((d, out));
    }
    None
}

fn levels_end_early(file: &[u8], meta: &FileMetaData) -> Option<(String, Vec<u8>)> {
    for page in pages(file, meta) {
        if page.codec != Some(CodecKind::Uncompressed) || page.max_def + page.max_rep == 0 {
            continue;
        }
        match page.header.type_ {
            PageType::DATA_PAGE => {
                // The first level stream's 4-byte length becomes 0.
                let at = page.body().start;
                let old = u32::from_le_bytes(file.get(at..at + 4)?.try_into().ok()?);
                if old == 0 {
                    continue;
                }
                let mut out = file.to_vec();
                out[at..at + 4].copy_from_slice(&0u32.to_le_bytes());
                let which = if page.max_rep > 0 {
                    "repetition"
                } else {
                    "definition"
                };
                let d = format!("{}: {which} level stream length {old} -> 0", page.at());
                return Some((d, out));
            }
            PageType::DATA_PAGE_V2 => {
                let mut h = page.header.clone();
                let v2 = h.data_page_header_v2.as_mut()?;
                if page.max_rep == 0 && v2.num_nulls == 0 {
                    // A reader may skip the levels of a page without nulls.
                    continue;
                }
                let (which, field) = if page.max_rep > 0 {
                    ("repetition", &mut v2.repetition_levels_byte_length)
                } else {
                    ("definition", &mut v2.definition_levels_byte_length)
                };
                let old = *field;
                if old <= 0 {
                    continue;
                }
                *field = 0;
                // The freed level bytes move to the values: keep the sizes consistent so
                // that the levels are what is wrong.
                let d = format!("{}: {which} levels byte length {old} -> 0", page.at());
                return Some((d, with_header(file, &page, &h)));
            }
            _ => {}
        }
    }
    None
}
