//! Pages of one column chunk: header parsing, CRC check, decompression, level splitting.

use bytes::Bytes;
use parq_codecs::compression::{CodecKind, Decompressor};
use parq_codecs::probe;

use super::page_buffers;
use crate::error::Location;
use crate::metadata::{self, Encoding, PageHeader, PageType};
use crate::{Error, Result};

/// A page, ready for decoding.
#[derive(Debug)]
pub(crate) enum Page {
    /// A dictionary page, not yet decompressed.
    Dictionary(DictionaryPage),
    /// A data page (v1 or v2), with its levels split from its values.
    Data(DataPage),
}

/// A dictionary page whose header is checked and whose body is left compressed until a data
/// page needs its entries ([`DictionaryPage::values`]): a read that skips to the plain pages
/// a writer fell back to (large dictionaries stop at about 1 MiB) never decompresses it.
#[derive(Debug)]
pub(crate) struct DictionaryPage {
    /// Number of dictionary entries.
    pub num_values: usize,
    /// The body as stored (decrypted, CRC checked).
    body: Bytes,
    codec: CodecKind,
    uncompressed: usize,
    location: Location,
}

impl DictionaryPage {
    /// The `num_values` PLAIN entries, decompressed.
    pub(crate) fn values(self, dec: &mut Decompressor) -> Result<Bytes> {
        decompress(self.codec, dec, self.body, self.uncompressed).map_err(|e| e.at(&self.location))
    }

    /// Where the page is, for errors in its entries.
    pub(crate) fn location(&self) -> &Location {
        &self.location
    }
}

/// A data page with levels separated from values.
#[derive(Debug)]
pub(crate) struct DataPage {
    /// Slots in the page (levels, including nulls).
    pub num_values: usize,
    /// Nulls in the page if the header says (v2 only).
    pub num_nulls: Option<usize>,
    /// Encoding of the values.
    pub encoding: Encoding,
    /// Repetition levels, as the definition levels; `None` when the column is not repeated.
    pub rep_levels: Levels,
    /// Definition levels as a hybrid stream without length prefix (`Rle`) or the deprecated
    /// MSB-first `BitPacked` form; empty when the column is required.
    pub def_levels: Levels,
    /// The value bytes: a view of the source (uncompressed page from memory or a map) or of
    /// the page's own decompression buffer. Either way decoders may keep it as output.
    pub values: Bytes,
}

impl DataPage {
    /// A dictionary page's `num_values` entries as a required PLAIN data page: how every
    /// reader of dictionary pages decodes them.
    pub(crate) fn dictionary_entries(values: Bytes, num_values: usize) -> Self {
        DataPage {
            num_values,
            num_nulls: Some(0),
            encoding: Encoding::PLAIN,
            rep_levels: Levels::None,
            def_levels: Levels::None,
            values,
        }
    }
}

/// Encoded definition levels of a page.
#[derive(Debug)]
pub(crate) enum Levels {
    /// The column is required: no levels.
    None,
    /// RLE/bit-packed hybrid, no length prefix.
    Rle(Bytes),
    /// Deprecated BIT_PACKED encoding (MSB first).
    BitPacked(Bytes),
}

/// Iterates the pages of one column chunk held in memory.
pub(crate) struct PageReader {
    chunk: Bytes,
    chunk_offset: u64,
    pos: usize,
    codec: CodecKind,
    values_left: i64,
    max_rep: i16,
    max_def: i16,
    verify_crc: bool,
    page_index: usize,
    /// A run of whole pages cut out of a chunk (through the offset index): it ends where its
    /// bytes end, whatever the chunk's value count.
    segment: bool,
    /// Count the records of v2 pages of a repeated column before deciding to skip them (a
    /// selection is applied without an offset index): see [`PageReader::v2_records`].
    pub(crate) count_records: bool,
    loc: Location,
    /// File offset and index in the chunk of the page most recently started: its
    /// [`Location`] is built when an error or a dictionary page asks for it, not per page.
    last: (u64, usize),
    /// Decrypts the headers and pages of an encrypted chunk.
    #[cfg(feature = "encryption")]
    pub(crate) decryptor: Option<crate::encryption::read::ChunkDecryptor>,
}

impl PageReader {
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn new(
        chunk: Bytes,
        chunk_offset: u64,
        codec: CodecKind,
        num_values: i64,
        (max_rep, max_def): (i16, i16),
        verify_crc: bool,
        loc: Location,
    ) -> Self {
        PageReader {
            chunk,
            chunk_offset,
            pos: 0,
            codec,
            values_left: num_values,
            max_rep,
            max_def,
            verify_crc,
            page_index: 0,
            segment: false,
            count_records: false,
            last: (chunk_offset, 0),
            loc,
            #[cfg(feature = "encryption")]
            decryptor: None,
        }
    }

    /// A reader of the whole pages in `bytes` (a run of a chunk found through the offset
    /// index, starting at file offset `offset`), ending where the bytes end; `first_page` is
    /// the index in the chunk of its first page, for error locations.
    pub(crate) fn segment(
        bytes: Bytes,
        offset: u64,
        codec: CodecKind,
        levels: (i16, i16),
        verify_crc: bool,
        loc: Location,
        first_page: usize,
    ) -> Self {
        let mut r = Self::new(bytes, offset, codec, i64::MAX, levels, verify_crc, loc);
        r.segment = true;
        r.page_index = first_page;
        r
    }

    /// Number the pages from `index` (for a reader over a page range that does not start the
    /// chunk), so that errors name the page as a reader of the whole chunk would.
    pub(crate) fn first_page(mut self, index: usize) -> Self {
        self.page_index = index;
        self
    }

    /// Location of the page about to be (or just) read.
    pub(crate) fn location(&self) -> Location {
        Location {
            offset: Some(self.chunk_offset + self.pos as u64),
            page: Some(self.page_index),
            ..self.loc.clone()
        }
    }

    /// Location of the page most recently returned.
    pub(crate) fn last_location(&self) -> Location {
        Location {
            offset: Some(self.last.0),
            page: Some(self.last.1),
            ..self.loc.clone()
        }
    }

    /// `e` located at the page most recently started.
    fn at_last(&self, e: Error) -> Error {
        e.at(&self.last_location())
    }

    /// The next dictionary or data page, skipping index pages and unknown page types.
    pub(crate) fn next_page(&mut self, dec: &mut Decompressor) -> Result<Option<Page>> {
        self.next_page_or_skip(dec, &mut |_| false)
    }

    /// The next dictionary or data page, skipping index pages, unknown page types and the
    /// data pages for which `skip` returns true. `skip` sees every data page's row count as
    /// its header gives it (`None` for a v1 page of a repeated column, whose rows only its
    /// repetition levels tell) before the page is decompressed; a skipped page never is.
    pub(crate) fn next_page_or_skip(
        &mut self,
        dec: &mut Decompressor,
        skip: &mut dyn FnMut(Option<usize>) -> bool,
    ) -> Result<Option<Page>> {
        loop {
            if (!self.segment && self.values_left <= 0) || self.pos >= self.chunk.len() {
                if self.values_left > 0 && !self.segment {
                    return Err(Error::format(format!(
                        "column chunk ended with {} values missing",
                        self.values_left
                    ))
                    .at(&self.location()));
                }
                return Ok(None);
            }
            self.last = (self.chunk_offset + self.pos as u64, self.page_index);
            #[cfg(feature = "encryption")]
            let (header, header_len) = self.decrypt_header().map_err(|e| self.at_last(e))?;
            #[cfg(not(feature = "encryption"))]
            let (header, header_len) = metadata::decode_page_header(&self.chunk[self.pos..])
                .map_err(|e| self.at_last(e))?;
            let body_start = self.pos + header_len;
            let compressed = usize::try_from(header.compressed_page_size)
                .ok()
                .filter(|n| {
                    body_start
                        .checked_add(*n)
                        .is_some_and(|e| e <= self.chunk.len())
                })
                .ok_or_else(|| {
                    Error::format(format!(
                        "page claims {} compressed bytes, {} left in the chunk",
                        header.compressed_page_size,
                        self.chunk.len().saturating_sub(body_start)
                    ))
                    .at(&self.last_location())
                })?;
            let uncompressed = usize::try_from(header.uncompressed_page_size).map_err(|_| {
                Error::format(format!(
                    "negative uncompressed page size {}",
                    header.uncompressed_page_size
                ))
                .at(&self.last_location())
            })?;
            let body = self.chunk.slice(body_start..body_start + compressed);
            self.pos = body_start + compressed;
            if let Some((rows, values)) =
                header_rows(&header, self.max_rep).map_err(|e| self.at_last(e))?
            {
                self.check_counts(values).map_err(|e| self.at_last(e))?;
                let rows = match rows {
                    None if self.count_records => self.v2_records(&header, &body, values),
                    rows => rows,
                };
                if skip(rows) {
                    probe::hit("read.pages_skipped");
                    self.page_index += 1;
                    self.values_left -= values as i64;
                    continue;
                }
            }
            // A skipped page is not decrypted either.
            #[cfg(feature = "encryption")]
            let body = self
                .decrypt_body(&header, body)
                .map_err(|e| self.at_last(e))?;
            let page = self
                .decode_body(&header, body, uncompressed, dec)
                .map_err(|e| self.at_last(e));
            self.page_index += 1;
            if let Some(page) = page? {
                if let Page::Data(d) = &page {
                    self.values_left -= d.num_values as i64;
                }
                return Ok(Some(page));
            }
        }
    }

    /// A data page's values against the chunk's, before anything is sized by them: they fit
    /// in what the chunk's `num_values` has left, so no page delivers values, or a flat
    /// column rows, the footer does not declare.
    fn check_counts(&self, values: usize) -> Result<()> {
        if !self.segment && values as u64 > self.values_left.max(0) as u64 {
            return Err(Error::format(format!(
                "data page holds {values} values but its column chunk has {} left",
                self.values_left.max(0)
            )));
        }
        Ok(())
    }

    /// The records of a v2 page of a repeated column, from its repetition levels: a v2
    /// page stores its levels uncompressed before the values, so they are counted without
    /// decompressing (or decrypting) anything, and a page the selection misses is still
    /// skipped unread, on the levels' word rather than the header's. `None` (the page is
    /// decoded, and its levels checked there) for other pages, encrypted ones, and levels
    /// that do not decode.
    fn v2_records(&self, header: &PageHeader, body: &Bytes, values: usize) -> Option<usize> {
        #[cfg(feature = "encryption")]
        if self.decryptor.is_some() {
            return None;
        }
        let h = header.data_page_header_v2.as_ref()?;
        if self.max_rep == 0 {
            return None;
        }
        let len = usize::try_from(h.repetition_levels_byte_length).ok()?;
        let rep = body.get(..len)?;
        let mut levels =
            parq_codecs::encoding::rle::RleDecoder::new(rep, level_bit_width(self.max_rep)).ok()?;
        // A fixed buffer: the header's value count sizes nothing.
        let mut buf = [0u16; 1024];
        let (mut left, mut records) = (values, 0);
        while left > 0 {
            let n = levels.get_batch(&mut buf[..left.min(1024)]).ok()?;
            if n == 0 {
                return None;
            }
            records += buf[..n].iter().filter(|&&r| r == 0).count();
            left -= n;
        }
        Some(records)
    }

    /// The page header at `pos`, decrypted when the chunk is encrypted, and the bytes it took.
    #[cfg(feature = "encryption")]
    fn decrypt_header(&self) -> Result<(PageHeader, usize)> {
        match &self.decryptor {
            Some(d) => d.page_header(self.page_index, &self.chunk[self.pos..]),
            None => metadata::decode_page_header(&self.chunk[self.pos..]),
        }
    }

    /// The plaintext of a page body of an encrypted chunk (`body` itself otherwise).
    #[cfg(feature = "encryption")]
    fn decrypt_body(&self, header: &PageHeader, body: Bytes) -> Result<Bytes> {
        match &self.decryptor {
            Some(d) => d.page_body(self.page_index, header, &body),
            None => Ok(body),
        }
    }

    fn decode_body(
        &self,
        header: &PageHeader,
        body: Bytes,
        uncompressed: usize,
        dec: &mut Decompressor,
    ) -> Result<Option<Page>> {
        if self.verify_crc {
            if let Some(crc) = header.crc {
                let actual = crc32fast::hash(&body);
                if actual != crc as u32 {
                    return Err(Error::format(format!(
                        "page crc mismatch: header says {:#010x}, data hashes to {actual:#010x}",
                        crc as u32
                    )));
                }
            }
        }
        match header.type_ {
            PageType::DICTIONARY_PAGE => {
                let h = header.dictionary_page_header.as_ref().ok_or_else(|| {
                    Error::format("dictionary page without dictionary_page_header")
                })?;
                if h.encoding != Encoding::PLAIN && h.encoding != Encoding::PLAIN_DICTIONARY {
                    return Err(Error::Unsupported(format!(
                        "dictionary page encoding {:?}",
                        h.encoding
                    )));
                }
                let num_values = non_negative(h.num_values, "dictionary num_values")?;
                Ok(Some(Page::Dictionary(DictionaryPage {
                    num_values,
                    body,
                    codec: self.codec,
                    uncompressed,
                    location: self.last_location(),
                })))
            }
            PageType::DATA_PAGE => {
                let h = header
                    .data_page_header
                    .as_ref()
                    .ok_or_else(|| Error::format("data page without data_page_header"))?;
                let num_values = non_negative(h.num_values, "data page num_values")?;
                if num_values == 0 && uncompressed == 0 {
                    // An empty page, declaring no bytes (not even the levels' length prefix);
                    // its body may still be a compressed empty stream (20 bytes of gzip, 1 of
                    // snappy). It carries nothing: skip it without decompressing.
                    probe::hit("read.v1_empty_page");
                    return Ok(None);
                }
                let data = decompress(self.codec, dec, body, uncompressed)?;
                let (rep_levels, data) = split_v1_levels(
                    data,
                    h.repetition_level_encoding,
                    num_values,
                    self.max_rep,
                    "repetition",
                )?;
                let (def_levels, values) = split_v1_levels(
                    data,
                    h.definition_level_encoding,
                    num_values,
                    self.max_def,
                    "definition",
                )?;
                Ok(Some(Page::Data(DataPage {
                    num_values,
                    num_nulls: None,
                    encoding: h.encoding,
                    rep_levels,
                    def_levels,
                    values,
                })))
            }
            PageType::DATA_PAGE_V2 => {
                let h = header
                    .data_page_header_v2
                    .as_ref()
                    .ok_or_else(|| Error::format("data page v2 without data_page_header_v2"))?;
                let num_values = non_negative(h.num_values, "data page num_values")?;
                let num_nulls = non_negative(h.num_nulls, "data page num_nulls")?;
                if num_nulls > num_values {
                    return Err(Error::format(format!(
                        "data page v2 has {num_nulls} nulls in {num_values} values"
                    )));
                }
                let rep_len = non_negative(h.repetition_levels_byte_length, "rep levels length")?;
                let def_len = non_negative(h.definition_levels_byte_length, "def levels length")?;
                let levels_len = rep_len
                    .checked_add(def_len)
                    .filter(|n| *n <= body.len() && *n <= uncompressed)
                    .ok_or_else(|| {
                        Error::format(format!(
                            "data page v2 levels ({rep_len} + {def_len} bytes) exceed the page of {} bytes",
                            body.len()
                        ))
                    })?;
                let rep = body.slice(..rep_len);
                let def = body.slice(rep_len..levels_len);
                let value_bytes = body.slice(levels_len..);
                let values_uncompressed = uncompressed - levels_len;
                let compressed =
                    h.is_compressed.unwrap_or(true) && self.codec != CodecKind::Uncompressed;
                let values = if compressed && values_uncompressed > 0 {
                    decompress(self.codec, dec, value_bytes, values_uncompressed)?
                } else if compressed && !value_bytes.is_empty() {
                    // No values (an all-null page), but the writer still ran the codec over
                    // the empty section: 1 byte of snappy or brotli, 20 of gzip (hyparquet
                    // does this). Nothing to decompress, as pyarrow and the parquet crate see it.
                    probe::hit("read.v2_empty_values_compressed");
                    Bytes::new()
                } else {
                    if value_bytes.len() != values_uncompressed {
                        return Err(Error::format(format!(
                            "uncompressed v2 values hold {} bytes but declare {}",
                            value_bytes.len(),
                            values_uncompressed
                        )));
                    }
                    value_bytes
                };
                let levels = |max: i16, data: Bytes| {
                    if max > 0 {
                        Levels::Rle(data)
                    } else {
                        Levels::None
                    }
                };
                Ok(Some(Page::Data(DataPage {
                    num_values,
                    num_nulls: Some(num_nulls),
                    encoding: h.encoding,
                    rep_levels: levels(self.max_rep, rep),
                    def_levels: levels(self.max_def, def),
                    values,
                })))
            }
            // Index pages and page types from the future carry nothing we decode.
            _ => Ok(None),
        }
    }
}

/// For a data page, its rows as far as the header can tell them (see `next_page_or_skip`)
/// and its values; `None` for other pages.
///
/// Only a flat column's rows are known before its levels are decoded: they are its values.
/// A v2 header's `num_rows` is never taken for a repeated column's rows, because real
/// writers get it wrong (parquet-cpp up to 8 and parquetjs 1.8 count values there), and the
/// repetition levels, which are the data, decide; so such a page is never skipped on its
/// header's word either.
fn header_rows(header: &PageHeader, max_rep: i16) -> Result<Option<(Option<usize>, usize)>> {
    let values = match header.type_ {
        PageType::DATA_PAGE => {
            header
                .data_page_header
                .as_ref()
                .ok_or_else(|| Error::format("data page without data_page_header"))?
                .num_values
        }
        PageType::DATA_PAGE_V2 => {
            let h = header
                .data_page_header_v2
                .as_ref()
                .ok_or_else(|| Error::format("data page v2 without data_page_header_v2"))?;
            non_negative(h.num_rows, "data page num_rows")?;
            h.num_values
        }
        _ => return Ok(None),
    };
    let values = non_negative(values, "data page num_values")?;
    Ok(Some(((max_rep == 0).then_some(values), values)))
}

fn non_negative(v: i32, what: &str) -> Result<usize> {
    usize::try_from(v).map_err(|_| Error::format(format!("negative {what}: {v}")))
}

/// Bits per level of a column whose max level is `max` (0 for none).
pub(crate) fn level_bit_width(max: i16) -> u32 {
    16 - (max.max(0) as u16).leading_zeros()
}

/// Split one level stream (repetition or definition, whichever comes first) off the front of
/// a v1 page; with `max == 0` the column has none and the page is returned whole.
fn split_v1_levels(
    data: Bytes,
    encoding: Encoding,
    num_values: usize,
    max: i16,
    which: &str,
) -> Result<(Levels, Bytes)> {
    if max == 0 {
        return Ok((Levels::None, data));
    }
    match encoding {
        Encoding::RLE => {
            let (body, consumed) = parq_codecs::encoding::rle::split_length_prefixed(&data)
                .map_err(|e| super::levels::levels_error(which, e.into()))?;
            let start = consumed - body.len();
            Ok((
                Levels::Rle(data.slice(start..consumed)),
                data.slice(consumed..),
            ))
        }
        Encoding::BIT_PACKED => {
            let bits = num_values
                .checked_mul(level_bit_width(max) as usize)
                .ok_or_else(|| Error::format("bit-packed levels overflow"))?;
            let len = bits.div_ceil(8);
            if len > data.len() {
                return Err(Error::format("bit-packed levels truncated"));
            }
            Ok((Levels::BitPacked(data.slice(..len)), data.slice(len..)))
        }
        other => Err(Error::Unsupported(format!("level encoding {other:?}"))),
    }
}

/// A page body as its codec stored it, decompressed to exactly `uncompressed` bytes (into a
/// recycled buffer, see [`page_buffers`]); an uncompressed body is returned as it is.
fn decompress(
    codec: CodecKind,
    dec: &mut Decompressor,
    input: Bytes,
    uncompressed: usize,
) -> Result<Bytes> {
    if codec == CodecKind::Uncompressed {
        if input.len() != uncompressed {
            return Err(Error::format(format!(
                "uncompressed page holds {} bytes but declares {}",
                input.len(),
                uncompressed
            )));
        }
        return Ok(input);
    }
    let mut out = page_buffers::take(uncompressed);
    dec.decompress(codec, &input, uncompressed, &mut out)?;
    Ok(page_buffers::into_bytes(out))
}
