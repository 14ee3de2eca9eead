//! Encoding one column chunk: choose the values encoding (plain vs dictionary decided before
//! the dictionary is built), cut pages, write levels and values, compress, and collect the
//! statistics, size statistics and page index of the chunk.
//!
//! A chunk is encoded when its row group closes, so every value is at hand: the dictionary
//! decision knows `total_values`, and a dictionary that aborts leaves nothing to undo (no
//! page was written yet, so there are never mixed dictionary/plain pages).
//!
//! Probes: `write.dictionary_skipped` (the estimate said PLAIN, no dictionary was built),
//! `write.dictionary_aborted` (the builder gave up; the chunk is PLAIN),
//! `write.dictionary_kept` (dictionary page + `RLE_DICTIONARY` data pages).
//!
//! A shredded numeric or byte-array leaf whose chunk gets no dictionary has its values
//! gathered one page at a time ([`super::paged_values`]); every other chunk gathers its values once, whole.

use std::borrow::Cow;
use std::sync::{Arc, Mutex};

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder, NullBuffer};
use parq_codecs::compression::{Codec, CodecKind};
use parq_codecs::encoding::dictionary::{
    self, estimate_byte_arrays_with, estimate_fixed, ByteArrayDictionaryBuilder, DictionaryBuilder,
};
use parq_codecs::encoding::{bitpack, byte_stream_split, delta, plain, rle};
use parq_codecs::kernels::byte_arrays::Offset;
use parq_codecs::probe;

use super::bloom::Distinct;
use super::cdc::{self, CdcOptions};
use super::nested_pages::{self, LeveledPage};
use super::options::{BloomFilterOptions, EncodingPolicy, PageVersion};
use super::page_index::ColumnIndexBuilder;
use super::paged_values::{ByteRun, PagedValues};
use super::seal::{i32_varint_len, PagePart, PageSealer};
use super::shred::LeafLevels;
use super::stats::{self, SortOrder, Stats};
use crate::bloom::Sbbf;
use crate::column::{Column, Values};
use crate::geospatial::GeoStatsBuilder;
use crate::metadata::{
    self, ColumnIndex, ColumnMetaData, ColumnPath, CompressionCodec, DataPageHeader,
    DataPageHeaderV2, DictionaryPageHeader, EdgeInterpolationAlgorithm, Encoding,
    GeospatialStatistics, OffsetIndex, PageEncodingStats, PageHeader, PageLocation, PageType,
    SizeStatistics, Type,
};
use crate::{Error, Result};

/// What the writer knows about one leaf column.
#[derive(Debug, Clone)]
pub(crate) struct Leaf {
    /// Path from the root (the name, for a flat schema).
    pub path: Vec<String>,
    pub physical: Type,
    /// Bytes per value of FIXED_LEN_BYTE_ARRAY (12 for INT96).
    pub width: usize,
    pub max_def: i16,
    pub max_rep: i16,
    pub order: SortOrder,
    /// Byte-array bounds are truncated on UTF-8 char boundaries.
    pub utf8: bool,
    /// FLOAT, DOUBLE or FLOAT16: `nan_count` is written.
    pub float: bool,
    /// GEOMETRY or GEOGRAPHY: geospatial statistics are written.
    pub geo: Option<GeoKind>,
    /// The bytes content-defined chunking rolls for a value.
    pub cdc_form: cdc::ValueForm,
}

/// The geospatial logical types, whose chunks get `GeospatialStatistics`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GeoKind {
    Geometry,
    /// With its edge interpolation (`None`: spherical).
    Geography(Option<EdgeInterpolationAlgorithm>),
}

impl Leaf {
    pub(crate) fn dotted(&self) -> String {
        self.path.join(".")
    }
}

/// Resolved settings of one column.
#[derive(Debug, Clone)]
pub(crate) struct Settings {
    pub codec: CodecKind,
    pub encoding: EncodingPolicy,
    pub page_version: PageVersion,
    pub data_page_size: usize,
    pub data_page_row_limit: usize,
    pub dictionary_size_limit: usize,
    pub statistics: bool,
    pub page_header_statistics: bool,
    pub truncate: Option<usize>,
    pub page_index: bool,
    pub bloom_filter: Option<BloomFilterOptions>,
    /// Content-defined chunking: pages cut by [`cdc`] instead of by size alone.
    pub cdc: Option<CdcOptions>,
}

/// Check that `policy` can encode `physical`; `Explicit` dictionary encodings become
/// [`EncodingPolicy::Dictionary`].
pub(crate) fn resolve_policy(policy: EncodingPolicy, leaf: &Leaf) -> Result<EncodingPolicy> {
    let EncodingPolicy::Explicit(e) = policy else {
        return Ok(policy);
    };
    let t = leaf.physical;
    let ok = match e {
        Encoding::PLAIN => return Ok(EncodingPolicy::Plain),
        Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY => {
            return Ok(EncodingPolicy::Dictionary)
        }
        Encoding::RLE => t == Type::BOOLEAN,
        Encoding::DELTA_BINARY_PACKED => t == Type::INT32 || t == Type::INT64,
        Encoding::DELTA_LENGTH_BYTE_ARRAY => t == Type::BYTE_ARRAY,
        Encoding::DELTA_BYTE_ARRAY => t == Type::BYTE_ARRAY || t == Type::FIXED_LEN_BYTE_ARRAY,
        Encoding::BYTE_STREAM_SPLIT => matches!(
            t,
            Type::FLOAT | Type::DOUBLE | Type::INT32 | Type::INT64 | Type::FIXED_LEN_BYTE_ARRAY
        ),
        _ => false,
    };
    if ok {
        Ok(policy)
    } else {
        Err(Error::InvalidArgument(format!(
            "encoding {e} cannot encode column {} of type {t}",
            leaf.dotted()
        )))
    }
}

/// The non-null values of a chunk, in order.
pub(crate) enum Dense<'a> {
    Boolean(BooleanBuffer),
    Int32(Cow<'a, [i32]>),
    Int64(Cow<'a, [i64]>),
    Float(Cow<'a, [f32]>),
    Double(Cow<'a, [f64]>),
    /// INT96 and FIXED_LEN_BYTE_ARRAY.
    Fixed {
        width: usize,
        data: Cow<'a, [u8]>,
    },
    Bytes(Vec<&'a [u8]>),
}

impl Dense<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Dense::Boolean(b) => b.len(),
            Dense::Int32(v) => v.len(),
            Dense::Int64(v) => v.len(),
            Dense::Float(v) => v.len(),
            Dense::Double(v) => v.len(),
            Dense::Fixed { width, data } => data.len() / width.max(&1),
            Dense::Bytes(v) => v.len(),
        }
    }
}

/// The valid slots of `values`, run by run (one copy per run of valid slots).
fn gather<'a, T: Copy>(values: &'a [T], validity: Option<&NullBuffer>) -> Cow<'a, [T]> {
    match validity {
        None => Cow::Borrowed(values),
        Some(v) => {
            let mut out = Vec::with_capacity(values.len() - v.null_count());
            for (s, e) in v.inner().set_slices() {
                out.extend_from_slice(&values[s..e]);
            }
            Cow::Owned(out)
        }
    }
}

fn gather_fixed<'a>(data: &'a [u8], width: usize, validity: Option<&NullBuffer>) -> Cow<'a, [u8]> {
    match validity {
        None => Cow::Borrowed(data),
        Some(v) => {
            let mut out = Vec::with_capacity((v.len() - v.null_count()) * width);
            for (s, e) in v.inner().set_slices() {
                out.extend_from_slice(&data[s * width..e * width]);
            }
            Cow::Owned(out)
        }
    }
}

/// The byte arrays `[s, e)` delimited by `offsets` (i32 or i64, checked by the writer's
/// `check_values`) in `data`.
pub(crate) fn byte_slices<'a, O: Offset>(
    offsets: &'a [O],
    data: &'a [u8],
    s: usize,
    e: usize,
) -> impl Iterator<Item = &'a [u8]> + 'a {
    offsets[s..=e]
        .windows(2)
        .map(move |w| &data[w[0].into() as usize..w[1].into() as usize])
}

/// The valid byte arrays of a column of `offsets.len() - 1` slots, in order.
fn gather_bytes<'a, O: Offset>(
    offsets: &'a [O],
    data: &'a [u8],
    validity: Option<&NullBuffer>,
) -> Vec<&'a [u8]> {
    let len = offsets.len().saturating_sub(1);
    let mut out = Vec::with_capacity(len);
    match validity {
        None => out.extend(byte_slices(offsets, data, 0, len)),
        Some(v) => {
            for (s, e) in v.inner().set_slices() {
                out.extend(byte_slices(offsets, data, s, e));
            }
        }
    }
    out
}

fn dense(col: &Column) -> Dense<'_> {
    let validity = col.validity.as_ref().filter(|v| v.null_count() > 0);
    match &col.values {
        Values::Boolean(b) => Dense::Boolean(match validity {
            None => b.clone(),
            Some(v) => {
                let mut out = BooleanBufferBuilder::new(col.len - v.null_count());
                for (s, e) in v.inner().set_slices() {
                    out.append_buffer(&b.slice(s, e - s));
                }
                out.finish()
            }
        }),
        Values::Dictionary { .. } => {
            unreachable!("keys are looked up by ParquetWriter::write_arrays")
        }
        Values::Int32(v) => Dense::Int32(gather(v, validity)),
        Values::Int64(v) => Dense::Int64(gather(v, validity)),
        Values::Float(v) => Dense::Float(gather(v, validity)),
        Values::Double(v) => Dense::Double(gather(v, validity)),
        Values::Int96(d) => Dense::Fixed {
            width: 12,
            data: gather_fixed(d, 12, validity),
        },
        Values::FixedLenByteArray { width, data } => Dense::Fixed {
            width: *width,
            data: gather_fixed(data, *width, validity),
        },
        Values::Binary { offsets, data } => Dense::Bytes(gather_bytes(offsets, data, validity)),
        Values::SmallBinary { offsets, data } => {
            Dense::Bytes(gather_bytes(offsets, data, validity))
        }
        Values::BinaryView { .. } => {
            let mut out = Vec::with_capacity(col.len);
            let get = |i: usize| col.bytes(i).unwrap_or(&[]);
            match validity {
                None => out.extend((0..col.len).map(get)),
                Some(v) => {
                    for (s, e) in v.inner().set_slices() {
                        out.extend((s..e).map(get));
                    }
                }
            }
            Dense::Bytes(out)
        }
    }
}

/// A finished dictionary: its PLAIN page body, size, and one index per non-null value.
struct Dict<'a> {
    page: Vec<u8>,
    num_values: usize,
    indices: Vec<u32>,
    bit_width: u32,
    /// The distinct byte arrays (BYTE_ARRAY chunks), for page statistics over the
    /// dictionary entries a page uses instead of over every value.
    entries: Option<Vec<&'a [u8]>>,
}

/// The encoding chosen for the data pages of a chunk.
enum Chosen<'a> {
    Plain,
    /// Booleans, RLE hybrid with a 4-byte length.
    Rle,
    Dictionary(Dict<'a>),
    DeltaBinaryPacked,
    DeltaLengthByteArray,
    DeltaByteArray,
    ByteStreamSplit,
}

impl Chosen<'_> {
    fn encoding(&self) -> Encoding {
        match self {
            Chosen::Plain => Encoding::PLAIN,
            Chosen::Rle => Encoding::RLE,
            Chosen::Dictionary(_) => Encoding::RLE_DICTIONARY,
            Chosen::DeltaBinaryPacked => Encoding::DELTA_BINARY_PACKED,
            Chosen::DeltaLengthByteArray => Encoding::DELTA_LENGTH_BYTE_ARRAY,
            Chosen::DeltaByteArray => Encoding::DELTA_BYTE_ARRAY,
            Chosen::ByteStreamSplit => Encoding::BYTE_STREAM_SPLIT,
        }
    }
}

/// One column chunk, written; offsets are relative to its start.
pub(crate) struct EncodedChunk {
    /// Bytes written.
    pub len: usize,
    pub meta: ColumnMetaData,
    pub column_index: Option<ColumnIndex>,
    pub offset_index: Option<OffsetIndex>,
    pub bloom_filter: Option<Sbbf>,
}

/// Slots `[slot_start, slot_end)` and their non-null values `[value_start, value_end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PageRange {
    pub slot_start: usize,
    pub slot_end: usize,
    pub value_start: usize,
    pub value_end: usize,
}

/// Cut `len` slots into pages of about `target_bits` bits of values and at most `row_limit`
/// slots. `cost(i)` is the size in bits of non-null value `i`; `fixed_cost` is that size
/// when every value has it.
fn page_ranges(
    len: usize,
    validity: Option<&NullBuffer>,
    fixed_cost: Option<u64>,
    cost: impl Fn(usize) -> u64,
    target_bits: u64,
    row_limit: usize,
) -> Vec<PageRange> {
    let row_limit = row_limit.max(1);
    let target_bits = target_bits.max(1);
    let mut pages = Vec::new();
    if let (None, Some(c)) = (validity, fixed_cost) {
        let step = ((target_bits / c.max(1)).max(1) as usize).min(row_limit);
        let mut s = 0;
        while s < len {
            let e = (s + step).min(len);
            pages.push(PageRange {
                slot_start: s,
                slot_end: e,
                value_start: s,
                value_end: e,
            });
            s = e;
        }
        return pages;
    }
    if let (Some(validity), Some(c)) = (validity, fixed_cost) {
        // Every page ends at its `per_page`-th value (or at the row limit): found by counting
        // the validity bitmap's bits a word at a time.
        let per_page = target_bits.div_ceil(c.max(1)).max(1) as usize;
        let (mut slot_start, mut value_start) = (0, 0);
        while slot_start < len {
            let limit = len.min(slot_start.saturating_add(row_limit));
            let bits = validity.inner().slice(slot_start, limit - slot_start);
            let (slot_end, count) = match nth_set_bit(&bits, per_page) {
                Some(i) => (slot_start + i + 1, per_page),
                None => (limit, bits.count_set_bits()),
            };
            pages.push(PageRange {
                slot_start,
                slot_end,
                value_start,
                value_end: value_start + count,
            });
            (slot_start, value_start) = (slot_end, value_start + count);
        }
        return pages;
    }
    let (mut slot_start, mut value_start, mut v, mut bits) = (0, 0, 0, 0u64);
    for i in 0..len {
        if validity.is_none_or(|n| n.is_valid(i)) {
            bits += cost(v);
            v += 1;
        }
        if bits >= target_bits || i + 1 - slot_start >= row_limit {
            pages.push(PageRange {
                slot_start,
                slot_end: i + 1,
                value_start,
                value_end: v,
            });
            (slot_start, value_start, bits) = (i + 1, v, 0);
        }
    }
    if slot_start < len {
        pages.push(PageRange {
            slot_start,
            slot_end: len,
            value_start,
            value_end: v,
        });
    }
    pages
}

/// The positions of the set bits of a word, lowest first.
struct BitIter(u64);

impl Iterator for BitIter {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let b = self.0.trailing_zeros() as usize;
        self.0 &= self.0 - 1;
        Some(b)
    }
}

/// The position of the `n`-th (from 1) set bit of `bits`, if it has that many.
fn nth_set_bit(bits: &BooleanBuffer, n: usize) -> Option<usize> {
    let mut seen = 0;
    let chunks = bits.bit_chunks();
    let words = chunks
        .iter()
        .chain((chunks.remainder_len() > 0).then(|| chunks.remainder_bits()));
    for (k, mut w) in words.enumerate() {
        let ones = w.count_ones() as usize;
        if seen + ones >= n {
            for _ in 0..n - seen - 1 {
                w &= w - 1;
            }
            return Some(k * 64 + w.trailing_zeros() as usize);
        }
        seen += ones;
    }
    None
}

/// Put `bits` into `enc` as 0/1 values, one `put_n` per run.
fn put_bits(enc: &mut rle::RleEncoder, bits: &BooleanBuffer) {
    let mut at = 0;
    for (s, e) in bits.set_slices() {
        if s > at {
            enc.put_n(0, s - at);
        }
        enc.put_n(1, e - s);
        at = e;
    }
    if at < bits.len() {
        enc.put_n(0, bits.len() - at);
    }
}

/// Append the definition levels of slots `[start, start + n)` (max level 1) as an RLE hybrid
/// stream without length prefix, straight from the validity bitmap.
fn def_levels(validity: Option<&NullBuffer>, start: usize, n: usize, out: &mut Vec<u8>) {
    match validity {
        None => {
            let mut enc = rle::RleEncoder::new(1);
            enc.put_n(1, n);
            enc.finish_into(out);
        }
        Some(v) => super::levels::encode_validity(&v.inner().slice(start, n), out),
    }
}

/// Where a chunk's pages go: small pieces (headers, levels) are gathered and written together,
/// large ones (value bodies, often borrowed straight from the caller's buffers) go to the sink
/// as they are, so no chunk-sized copy is ever made. An encrypted chunk's pages are gathered
/// whole, one at a time, and sealed into their modules in the buffer.
struct ChunkOut<'a, 's> {
    sink: &'a mut dyn std::io::Write,
    buf: Vec<u8>,
    flushed: usize,
    seal: Option<&'s mut dyn PageSealer>,
    /// Where the open page's body module starts in `buf`, and whether it is the dictionary's.
    open_body: Option<(usize, bool)>,
}

/// Pieces at least this large bypass `ChunkOut::buf`.
const DIRECT_WRITE: usize = 32 << 10;

impl ChunkOut<'_, '_> {
    fn pos(&self) -> usize {
        self.flushed + self.buf.len()
    }

    fn flush(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.sink.write_all(&self.buf)?;
            self.flushed += self.buf.len();
            self.buf.clear();
        }
        Ok(())
    }

    fn put(&mut self, data: &[u8]) -> Result<()> {
        if self.seal.is_some() {
            self.buf.extend_from_slice(data);
        } else if data.len() >= DIRECT_WRITE {
            self.flush()?;
            self.sink.write_all(data)?;
            self.flushed += data.len();
        } else {
            self.buf.extend_from_slice(data);
            if self.buf.len() >= DIRECT_WRITE {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Encode `header` (of a page whose body the next `put`s give) and return its length as
    /// a plaintext file has it. Encrypted, the header is sealed into its module, counting the
    /// body module's overhead in `compressed_page_size`, and the body module is opened.
    fn header(&mut self, mut header: PageHeader) -> Result<usize> {
        let Some(seal) = self.seal.as_deref_mut() else {
            let at = self.buf.len();
            metadata::encode_page_header(&header, &mut self.buf);
            return Ok(self.buf.len() - at);
        };
        let dictionary = header.type_ == PageType::DICTIONARY_PAGE;
        let plain_size = header.compressed_page_size;
        header.compressed_page_size =
            page_size(plain_size as usize + seal.body_overhead(), "encrypted page")?;
        let start = self.buf.len();
        self.buf.resize(start + seal.prefix_len(), 0);
        metadata::encode_page_header(&header, &mut self.buf);
        let encoded = self.buf.len() - start - seal.prefix_len();
        let part = if dictionary {
            PagePart::DictionaryHeader
        } else {
            PagePart::DataHeader
        };
        seal.seal(part, &mut self.buf, start)?;
        let body = self.buf.len();
        self.buf.resize(body + seal.prefix_len(), 0);
        self.open_body = Some((body, dictionary));
        Ok(encoded + i32_varint_len(plain_size) - i32_varint_len(header.compressed_page_size))
    }

    /// Ends the page whose header was the last `header`: seals its body module.
    fn end_page(&mut self) -> Result<()> {
        let (Some(seal), Some((start, dictionary))) =
            (self.seal.as_deref_mut(), self.open_body.take())
        else {
            return Ok(());
        };
        let part = if dictionary {
            PagePart::Dictionary
        } else {
            PagePart::Data
        };
        seal.seal(part, &mut self.buf, start)?;
        if self.buf.len() >= DIRECT_WRITE {
            self.flush()?;
        }
        Ok(())
    }
}

fn page_size(len: usize, what: &str) -> Result<i32> {
    i32::try_from(len).map_err(|_| {
        Error::InvalidArgument(format!("{what} of {len} bytes exceeds a page's i32 size"))
    })
}

/// Encodes the chunks of one column, row group after row group, reusing its codec and its
/// page buffers.
pub(crate) struct ColumnWriter {
    pub leaf: Leaf,
    pub settings: Settings,
    codec: Option<SharedCodec>,
    /// Reused across pages and chunks: compressed output, encoded values, levels, the v1
    /// levels-and-values input of the compressor, and `ChunkOut`'s small-piece buffer.
    scratch: Vec<u8>,
    values: Vec<u8>,
    levels: Vec<u8>,
    rep_levels: Vec<u8>,
    raw: Vec<u8>,
    out_buf: Vec<u8>,
}

/// A page compressor shared by the columns of one writer that use the same codec and level:
/// pages are compressed one at a time, and a codec's context (zstd's is tens of KiB, more at
/// high levels) would otherwise be built and kept once per column, a cost that grows with
/// the column count rather than with the data.
pub(crate) type SharedCodec = Arc<Mutex<Box<dyn Codec>>>;

/// The writer's codecs, one per codec kind and level, built on first use.
#[derive(Default)]
pub(crate) struct Codecs(Vec<((CodecKind, Option<i32>), SharedCodec)>);

impl Codecs {
    /// The codec of `kind` at `level` (`None` for uncompressed), shared with every column
    /// that asked for the same before.
    pub(crate) fn get(
        &mut self,
        kind: CodecKind,
        level: Option<i32>,
    ) -> Result<Option<SharedCodec>> {
        if kind == CodecKind::Uncompressed {
            return Ok(None);
        }
        if let Some((_, c)) = self.0.iter().find(|(k, _)| *k == (kind, level)) {
            probe::hit("write.codec_shared");
            return Ok(Some(Arc::clone(c)));
        }
        let c: SharedCodec = Arc::new(Mutex::new(parq_codecs::compression::new_codec(
            kind, level,
        )?));
        self.0.push(((kind, level), Arc::clone(&c)));
        Ok(Some(c))
    }
}

/// Compress `input` into `scratch` with the shared codec `c`, giving the compressed length.
/// A codec whose lock was poisoned (a panic inside it on another column) is used as it is:
/// the codecs keep no state between pages that a half-done call could leave wrong.
fn compress_shared(c: &SharedCodec, input: &[u8], scratch: &mut Vec<u8>) -> Result<usize> {
    let mut codec = c.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    Ok(codec.compress_reusing(input, scratch)?)
}

impl ColumnWriter {
    pub(crate) fn new(leaf: Leaf, settings: Settings, codec: Option<SharedCodec>) -> Result<Self> {
        Ok(ColumnWriter {
            leaf,
            settings,
            codec,
            scratch: Vec::new(),
            values: Vec::new(),
            levels: Vec::new(),
            rep_levels: Vec::new(),
            raw: Vec::new(),
            out_buf: Vec::new(),
        })
    }

    fn choose<'a>(&self, dense: &Dense<'a>) -> Result<Chosen<'a>> {
        let boolean = matches!(dense, Dense::Boolean(_));
        Ok(
            match self.choose_without_dictionary(dense.len(), boolean, || self.estimate(dense)) {
                Some(chosen) => chosen,
                None => self.dictionary_or_plain(dense),
            },
        )
    }

    /// The encoding of `n` values when it needs no dictionary built; `None` when one is to be
    /// built (forced, or the estimate says it pays). `estimate` (true: build a dictionary) is
    /// called only under [`EncodingPolicy::Auto`].
    fn choose_without_dictionary(
        &self,
        n: usize,
        boolean: bool,
        estimate: impl FnOnce() -> bool,
    ) -> Option<Chosen<'static>> {
        let policy = self.settings.encoding;
        if boolean {
            return Some(match (policy, self.settings.page_version) {
                (EncodingPolicy::Plain | EncodingPolicy::Explicit(Encoding::PLAIN), _) => {
                    Chosen::Plain
                }
                (EncodingPolicy::Explicit(Encoding::RLE), _) | (_, PageVersion::V2) => Chosen::Rle,
                _ => Chosen::Plain,
            });
        }
        match policy {
            EncodingPolicy::Plain => Some(Chosen::Plain),
            EncodingPolicy::Explicit(e) => Some(match e {
                Encoding::DELTA_BINARY_PACKED => Chosen::DeltaBinaryPacked,
                Encoding::DELTA_LENGTH_BYTE_ARRAY => Chosen::DeltaLengthByteArray,
                Encoding::DELTA_BYTE_ARRAY => Chosen::DeltaByteArray,
                Encoding::BYTE_STREAM_SPLIT => Chosen::ByteStreamSplit,
                _ => Chosen::Plain,
            }),
            EncodingPolicy::Auto | EncodingPolicy::Dictionary => {
                if n == 0 {
                    return Some(Chosen::Plain);
                }
                if policy == EncodingPolicy::Auto && !estimate() {
                    probe::hit("write.dictionary_skipped");
                    return Some(Chosen::Plain);
                }
                None
            }
        }
    }

    /// Build the chunk's dictionary; PLAIN when the builder aborts.
    fn dictionary_or_plain<'a>(&self, dense: &Dense<'a>) -> Chosen<'a> {
        let auto = self.settings.encoding == EncodingPolicy::Auto;
        match self.build_dictionary(dense, auto) {
            Some(d) => {
                probe::hit("write.dictionary_kept");
                Chosen::Dictionary(d)
            }
            None => {
                probe::hit("write.dictionary_aborted");
                Chosen::Plain
            }
        }
    }

    /// The cheap plain-vs-dictionary estimate: true to build a dictionary.
    fn estimate(&self, dense: &Dense<'_>) -> bool {
        let n = dense.len();
        let est = match dense {
            Dense::Boolean(_) => return false,
            Dense::Int32(v) => estimate_fixed(v, n),
            Dense::Int64(v) => estimate_fixed(v, n),
            Dense::Float(v) => estimate_fixed(v, n),
            Dense::Double(v) => estimate_fixed(v, n),
            Dense::Fixed { width: 12, data } => {
                estimate_fixed::<[u8; 12]>(bytemuck::cast_slice(data), n)
            }
            Dense::Fixed { width, data } => {
                let w = *width;
                estimate_byte_arrays_with(n, |i| &data[i * w..(i + 1) * w], n)
            }
            Dense::Bytes(v) => estimate_byte_arrays_with(n, |i| v[i], n),
        };
        est.use_dictionary
    }

    /// Build the dictionary of the whole chunk; `None` when the builder aborts. With
    /// `can_lose == false` (forced dictionary) only the size limit aborts.
    fn build_dictionary<'a>(&self, dense: &Dense<'a>, can_lose: bool) -> Option<Dict<'a>> {
        let n = dense.len();
        let limit = self.settings.dictionary_size_limit;
        // A forced dictionary: make PLAIN look so large that only the size limit can stop it.
        let total = if can_lose { n } else { usize::MAX >> 8 };
        fn fixed<T: bytemuck::Pod>(
            v: &[T],
            total: usize,
            limit: usize,
        ) -> Option<(Vec<u8>, usize, Vec<u32>)> {
            let mut b = DictionaryBuilder::<T>::new(total, limit);
            b.extend(v).ok()?;
            let (values, indices) = b.finish().ok()?;
            let mut page = Vec::new();
            plain::encode_fixed(&values, &mut page);
            Some((page, values.len(), indices))
        }
        let mut entries = None;
        let (page, num_values, indices) = match dense {
            Dense::Boolean(_) => return None,
            Dense::Int32(v) => fixed(v, total, limit)?,
            Dense::Int64(v) => fixed(v, total, limit)?,
            Dense::Float(v) => fixed(v, total, limit)?,
            Dense::Double(v) => fixed(v, total, limit)?,
            Dense::Fixed { width: 12, data } => {
                fixed::<[u8; 12]>(bytemuck::cast_slice(data), total, limit)?
            }
            Dense::Fixed { width, data } => {
                let plain_bytes = if can_lose { data.len() } else { usize::MAX };
                let mut b = ByteArrayDictionaryBuilder::new(n, limit).with_plain_bytes(plain_bytes);
                b.extend(data.chunks_exact(*width)).ok()?;
                let (values, indices) = b.finish_borrowed().ok()?;
                let page = values.concat();
                (page, values.len(), indices)
            }
            Dense::Bytes(v) => {
                let plain_bytes = if can_lose {
                    v.iter().map(|x| 4 + x.len()).sum()
                } else {
                    usize::MAX
                };
                let mut b = ByteArrayDictionaryBuilder::new(n, limit).with_plain_bytes(plain_bytes);
                b.extend(v.iter().copied()).ok()?;
                let (values, indices) = b.finish_borrowed().ok()?;
                let mut page = Vec::new();
                plain::encode_byte_arrays(values.iter().copied(), &mut page);
                let num_values = values.len();
                entries = Some(values);
                (page, num_values, indices)
            }
        };
        let bit_width = bitpack::bit_width(num_values.saturating_sub(1) as u64).max(1);
        Some(Dict {
            page,
            num_values,
            indices,
            bit_width,
            entries,
        })
    }

    /// The values `[s, e)` of `dense` in the chosen encoding: PLAIN fixed-width values are
    /// borrowed as they are (their layout is PLAIN on a little-endian host), everything else is
    /// encoded into `out`.
    fn encoded_values<'b>(
        &self,
        chosen: &Chosen,
        dense: &'b Dense<'_>,
        s: usize,
        e: usize,
        out: &'b mut Vec<u8>,
    ) -> Result<&'b [u8]> {
        if let Chosen::Plain = chosen {
            match dense {
                Dense::Int32(v) => return Ok(bytemuck::cast_slice(&v[s..e])),
                Dense::Int64(v) => return Ok(bytemuck::cast_slice(&v[s..e])),
                Dense::Float(v) => return Ok(bytemuck::cast_slice(&v[s..e])),
                Dense::Double(v) => return Ok(bytemuck::cast_slice(&v[s..e])),
                Dense::Fixed { width, data } => return Ok(&data[s * width..e * width]),
                _ => {}
            }
        }
        out.clear();
        match (chosen, dense) {
            (Chosen::Dictionary(d), _) => {
                out.push(d.bit_width as u8);
                dictionary::encode_indices(&d.indices[s..e], d.bit_width, out);
            }
            (Chosen::Rle, Dense::Boolean(b)) => {
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                let mut enc = rle::RleEncoder::new(1);
                put_bits(&mut enc, &b.slice(s, e - s));
                enc.finish_into(out);
                let len = (out.len() - at - 4) as u32;
                out[at..at + 4].copy_from_slice(&len.to_le_bytes());
            }
            (Chosen::Plain, Dense::Boolean(b)) => plain::encode_boolean(&b.slice(s, e - s), out),
            (Chosen::Plain, Dense::Bytes(v)) => {
                plain::encode_byte_arrays(v[s..e].iter().copied(), out)
            }
            (Chosen::DeltaBinaryPacked, Dense::Int32(v)) => {
                delta::encode_binary_packed_i32(&v[s..e], out)
            }
            (Chosen::DeltaBinaryPacked, Dense::Int64(v)) => {
                delta::encode_binary_packed_i64(&v[s..e], out)
            }
            (Chosen::DeltaLengthByteArray, Dense::Bytes(v)) => {
                delta::encode_length_byte_array(v[s..e].iter().copied(), out)
            }
            (Chosen::DeltaByteArray, Dense::Bytes(v)) => {
                delta::encode_byte_array(v[s..e].iter().copied(), out)
            }
            (Chosen::DeltaByteArray, Dense::Fixed { width, data }) => {
                delta::encode_byte_array(data[s * width..e * width].chunks_exact(*width), out)
            }
            (Chosen::ByteStreamSplit, Dense::Int32(v)) => {
                byte_stream_split::encode(bytemuck::cast_slice(&v[s..e]), 4, out)?
            }
            (Chosen::ByteStreamSplit, Dense::Float(v)) => {
                byte_stream_split::encode(bytemuck::cast_slice(&v[s..e]), 4, out)?
            }
            (Chosen::ByteStreamSplit, Dense::Int64(v)) => {
                byte_stream_split::encode(bytemuck::cast_slice(&v[s..e]), 8, out)?
            }
            (Chosen::ByteStreamSplit, Dense::Double(v)) => {
                byte_stream_split::encode(bytemuck::cast_slice(&v[s..e]), 8, out)?
            }
            (Chosen::ByteStreamSplit, Dense::Fixed { width, data }) => {
                byte_stream_split::encode(&data[s * width..e * width], *width, out)?
            }
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "encoding {} cannot encode column {}",
                    chosen.encoding(),
                    self.leaf.dotted()
                )))
            }
        }
        Ok(out)
    }

    /// Statistics of the non-null values `[s, e)` of a page (null count filled by the caller).
    fn stats(&self, dense: &Dense<'_>, chosen: &Chosen<'_>, s: usize, e: usize) -> Stats {
        let order = self.leaf.order;
        let mut nan_count = None;
        let min_max = if order == SortOrder::Undefined {
            None
        } else {
            match dense {
                Dense::Boolean(b) => stats::boolean(&b.slice(s, e - s)),
                Dense::Int32(v) => stats::int32(&v[s..e], order),
                Dense::Int64(v) => stats::int64(&v[s..e], order),
                Dense::Float(v) => {
                    let (mm, nans) = stats::float32(&v[s..e]);
                    nan_count = Some(nans);
                    mm
                }
                Dense::Double(v) => {
                    let (mm, nans) = stats::float64(&v[s..e]);
                    nan_count = Some(nans);
                    mm
                }
                Dense::Fixed { width, data } => {
                    let (mm, nans) = stats::fixed(&data[s * width..e * width], *width, order);
                    nan_count = nans;
                    mm
                }
                Dense::Bytes(_)
                    if matches!(
                        chosen,
                        Chosen::Dictionary(Dict {
                            entries: Some(_),
                            ..
                        })
                    ) =>
                {
                    let Chosen::Dictionary(Dict {
                        entries: Some(entries),
                        indices,
                        ..
                    }) = chosen
                    else {
                        unreachable!()
                    };
                    // Min/max of a page = min/max of the distinct entries it uses.
                    let mut used = vec![0u64; entries.len().div_ceil(64)];
                    for &i in &indices[s..e] {
                        used[i as usize / 64] |= 1 << (i % 64);
                    }
                    let used = used
                        .iter()
                        .enumerate()
                        .flat_map(|(k, &w)| BitIter(w).map(move |b| entries[k * 64 + b]));
                    stats::byte_arrays(used, order, self.settings.truncate, self.leaf.utf8)
                }
                Dense::Bytes(v) => stats::byte_arrays(
                    v[s..e].iter().copied(),
                    order,
                    self.settings.truncate,
                    self.leaf.utf8,
                ),
            }
        };
        if self.leaf.float {
            nan_count.get_or_insert(0);
        }
        Stats {
            null_count: 0,
            nan_count,
            min_max,
        }
    }

    /// Encode `col` (all rows of this column in the row group) as one column chunk, written to
    /// `sink` page by page.
    pub(crate) fn write_chunk(
        &mut self,
        col: &Column,
        sink: &mut dyn std::io::Write,
        seal: Option<&mut dyn PageSealer>,
    ) -> Result<EncodedChunk> {
        if self.leaf.max_rep > 0 || self.leaf.max_def > 1 {
            return Err(Error::InvalidArgument(format!(
                "column {} has levels a flat column cannot give",
                self.leaf.dotted()
            )));
        }
        let dense = dense(col);
        let chosen = self.choose(&dense)?;
        let validity = col.validity.as_ref().filter(|v| v.null_count() > 0);
        let pages = if let Some(options) = &self.settings.cdc {
            // Flat: a definition level per slot when the column is optional.
            let def: Vec<u16> = if self.leaf.max_def > 0 {
                match &col.validity {
                    Some(v) => v.iter().map(u16::from).collect(),
                    None => vec![1; col.len],
                }
            } else {
                Vec::new()
            };
            let levels = cdc::Levels {
                max_def: self.leaf.max_def as u16,
                max_rep: 0,
                def: &def,
                rep: &[],
                pairs: col.len,
            };
            self.cdc_pages(options, &levels, &dense, &chosen)?
        } else {
            let (fixed_cost, bytes_cost) = costs(&chosen, &dense);
            page_ranges(
                col.len,
                validity,
                fixed_cost,
                |i| match bytes_cost {
                    Some(v) => (4 + v[i].len() as u64) * 8,
                    None => fixed_cost.unwrap_or(8),
                },
                self.target_bits(),
                self.settings.data_page_row_limit,
            )
            .into_iter()
            .map(|range| LeveledPage {
                range,
                first_row: range.slot_start,
                rows: range.slot_end - range.slot_start,
            })
            .collect()
        };
        let mut chunk = self.write_pages(
            LevelSource::Flat(validity),
            ChunkValues::Whole(&dense),
            &chosen,
            &pages,
            sink,
            seal,
        )?;
        chunk.bloom_filter = self.bloom_filter(&dense, &chosen);
        Ok(chunk)
    }

    /// Encode a shredded leaf (all its levels and values in the row group) as one column
    /// chunk: the same encoding decision, statistics and page index as a flat column, with
    /// repetition and definition levels of any depth and pages cut on record boundaries.
    pub(crate) fn write_leveled_chunk(
        &mut self,
        leaf: &LeafLevels,
        sink: &mut dyn std::io::Write,
        seal: Option<&mut dyn PageSealer>,
    ) -> Result<EncodedChunk> {
        if leaf.max_def != self.leaf.max_def as u16 || leaf.max_rep != self.leaf.max_rep as u16 {
            return Err(Error::InvalidArgument(format!(
                "column {}: levels of the wrong depth",
                self.leaf.dotted()
            )));
        }
        // Numeric values that get no dictionary are gathered page by page.
        // (Content-defined chunking rolls every value before the pages are cut: it takes the
        // dense values.)
        let paged = (self.settings.bloom_filter.is_none()
            && self.leaf.geo.is_none()
            && self.settings.cdc.is_none())
        .then(|| PagedValues::new(leaf, self.leaf.physical))
        .flatten();
        if let Some(mut paged) = paged {
            let n = leaf.values;
            let bytes = paged.byte_arrays();
            let chosen = self.choose_without_dictionary(n, false, || {
                let sample = paged.sample(dictionary::sample_positions(n));
                if bytes {
                    dictionary::estimate_byte_arrays_sample(sample, n, n).use_dictionary
                } else {
                    dictionary::estimate_fixed_sample(sample, n, n).use_dictionary
                }
            });
            if let Some(chosen) = chosen {
                probe::hit("write.paged_values");
                let fixed = match self.leaf.physical {
                    Type::INT32 | Type::FLOAT => Some(32),
                    Type::INT64 | Type::DOUBLE => Some(64),
                    _ => None,
                };
                let pages = nested_pages::page_ranges(
                    leaf,
                    fixed,
                    paged.byte_bits(),
                    self.target_bits(),
                    self.settings.data_page_row_limit,
                );
                return self.write_pages(
                    LevelSource::Nested(leaf),
                    ChunkValues::Paged(&mut paged),
                    &chosen,
                    &pages,
                    sink,
                    seal,
                );
            }
            // A dictionary is to be built, over all the values at once.
            let dense = nested_pages::dense_values(leaf, self.leaf.physical)?;
            let chosen = self.dictionary_or_plain(&dense);
            return self.write_leveled_dense(leaf, &dense, chosen, sink, seal);
        }
        let dense = nested_pages::dense_values(leaf, self.leaf.physical)?;
        let chosen = self.choose(&dense)?;
        self.write_leveled_dense(leaf, &dense, chosen, sink, seal)
    }

    /// [`Self::write_leveled_chunk`] with the stored values in one `dense` run.
    fn write_leveled_dense(
        &mut self,
        leaf: &LeafLevels,
        dense: &Dense<'_>,
        chosen: Chosen<'_>,
        sink: &mut dyn std::io::Write,
        seal: Option<&mut dyn PageSealer>,
    ) -> Result<EncodedChunk> {
        let pages = if let Some(options) = &self.settings.cdc {
            let levels = cdc::Levels {
                max_def: leaf.max_def,
                max_rep: leaf.max_rep,
                def: &leaf.def,
                rep: &leaf.rep,
                pairs: leaf.pairs,
            };
            self.cdc_pages(options, &levels, dense, &chosen)?
        } else {
            let (fixed_cost, bytes_cost) = costs(&chosen, dense);
            // Without a fixed cost the values are byte arrays.
            nested_pages::page_ranges(
                leaf,
                fixed_cost,
                nested_pages::SliceBits(bytes_cost.map_or(&[], |v| v.as_slice())),
                self.target_bits(),
                self.settings.data_page_row_limit,
            )
        };
        let mut chunk = self.write_pages(
            LevelSource::Nested(leaf),
            ChunkValues::Whole(dense),
            &chosen,
            &pages,
            sink,
            seal,
        )?;
        chunk.bloom_filter = self.bloom_filter(dense, &chosen);
        Ok(chunk)
    }

    /// The pages of a chunk under content-defined chunking: cut at the chunker's boundaries
    /// and at the page limits inside them, where Arrow's writer cuts ([`cdc::pages`]).
    fn cdc_pages(
        &self,
        options: &CdcOptions,
        levels: &cdc::Levels<'_>,
        dense: &Dense<'_>,
        chosen: &Chosen<'_>,
    ) -> Result<Vec<LeveledPage>> {
        let bounds = cdc::boundaries(options, levels, dense, self.leaf.cdc_form)?;
        let (fixed_cost, bytes_cost) = costs(chosen, dense);
        Ok(cdc::pages(
            levels,
            &bounds,
            |i| match bytes_cost {
                Some(v) => (4 + v[i].len() as u64) * 8,
                None => fixed_cost.unwrap_or(8),
            },
            self.target_bits(),
            self.settings.data_page_row_limit,
        ))
    }

    /// The chunk's bloom filter, when the column has one: from the dictionary's distinct
    /// values when the chunk has a dictionary, else from every value.
    fn bloom_filter(&self, dense: &Dense<'_>, chosen: &Chosen<'_>) -> Option<Sbbf> {
        let options = self.settings.bloom_filter.as_ref()?;
        let width = match dense {
            Dense::Int32(_) | Dense::Float(_) => 4,
            Dense::Int64(_) | Dense::Double(_) => 8,
            Dense::Fixed { width, .. } => *width,
            Dense::Boolean(_) | Dense::Bytes(_) => 0,
        };
        let distinct = match chosen {
            Chosen::Dictionary(Dict {
                entries: Some(e), ..
            }) => Some(Distinct::Bytes(e)),
            Chosen::Dictionary(d) if width > 0 => Some(Distinct::Fixed {
                page: &d.page,
                width,
            }),
            _ => None,
        };
        super::bloom::build(options, dense, distinct)
    }

    /// The chunk's geospatial statistics, for a GEOMETRY or GEOGRAPHY leaf (see
    /// [`crate::geospatial`]): `None` when a value is not valid WKB.
    fn geo_stats(&self, dense: &Dense<'_>) -> Option<GeospatialStatistics> {
        let mut builder = match self.leaf.geo? {
            GeoKind::Geometry => GeoStatsBuilder::geometry(),
            GeoKind::Geography(algorithm) => GeoStatsBuilder::geography(algorithm),
        };
        let Dense::Bytes(values) = dense else {
            return None;
        };
        for v in values {
            builder.update(v);
        }
        builder.finish()
    }

    fn target_bits(&self) -> u64 {
        (self.settings.data_page_size as u64).saturating_mul(8)
    }

    /// Write the dictionary page (if any) and `pages`, and describe the chunk.
    fn write_pages(
        &mut self,
        source: LevelSource<'_>,
        mut chunk_values: ChunkValues<'_, '_>,
        chosen: &Chosen<'_>,
        pages: &[LeveledPage],
        sink: &mut dyn std::io::Write,
        seal: Option<&mut dyn PageSealer>,
    ) -> Result<EncodedChunk> {
        let nullable = self.leaf.max_def > 0;
        let repeated = self.leaf.max_rep > 0;
        let (max_def, max_rep) = (self.leaf.max_def as u16, self.leaf.max_rep as u16);
        let v2 = self.settings.page_version == PageVersion::V2;
        let stats_on = self.settings.statistics;

        let mut out = ChunkOut {
            sink,
            buf: std::mem::take(&mut self.out_buf),
            flushed: 0,
            seal,
            open_body: None,
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        let mut values = std::mem::take(&mut self.values);
        let mut levels = std::mem::take(&mut self.levels);
        let mut rep_levels = std::mem::take(&mut self.rep_levels);
        let mut raw = std::mem::take(&mut self.raw);
        out.buf.clear();
        let mut uncompressed_total = 0usize;
        let mut encoding_stats = Vec::new();
        let mut dictionary_page_offset = None;
        let value_encoding = chosen.encoding();

        // Dictionary page.
        if let Chosen::Dictionary(d) = chosen {
            let body: &[u8] = match &self.codec {
                None => &d.page,
                Some(c) => {
                    let n = compress_shared(c, &d.page, &mut scratch)?;
                    &scratch[..n]
                }
            };
            let header = PageHeader {
                type_: PageType::DICTIONARY_PAGE,
                uncompressed_page_size: page_size(d.page.len(), "dictionary page")?,
                compressed_page_size: page_size(body.len(), "dictionary page")?,
                crc: None,
                dictionary_page_header: Some(DictionaryPageHeader {
                    num_values: page_size(d.num_values, "dictionary")?,
                    encoding: Encoding::PLAIN,
                    is_sorted: Some(false),
                }),
                ..PageHeader::default()
            };
            dictionary_page_offset = Some(0);
            uncompressed_total += out.header(header)? + d.page.len();
            out.put(body)?;
            out.end_page()?;
            encoding_stats.push(PageEncodingStats {
                page_type: PageType::DICTIONARY_PAGE,
                encoding: Encoding::PLAIN,
                count: 1,
            });
        }

        let data_page_offset = out.pos() as i64;
        let mut chunk_stats = Stats {
            nan_count: self.leaf.float.then_some(0),
            ..Stats::default()
        };
        let leveled = matches!(source, LevelSource::Nested(_));
        let mut column_index = (stats_on && self.settings.page_index).then(|| {
            ColumnIndexBuilder::new(self.leaf.order, self.leaf.float, nullable && !leveled)
                .with_level_histograms(leveled.then_some((max_rep, max_def)))
        });
        // Level histograms of the chunk and of the page being written.
        let mut def_hist = vec![0i64; max_def as usize + 1];
        let mut rep_hist = vec![0i64; max_rep as usize + 1];
        let mut page_def_hist = def_hist.clone();
        let mut page_rep_hist = rep_hist.clone();
        let (mut total_pairs, mut stored_values) = (0usize, 0usize);
        let mut locations = Vec::with_capacity(pages.len());
        let byte_arrays = self.leaf.physical == Type::BYTE_ARRAY;
        let mut unencoded_per_page = Vec::new();
        // PLAIN byte arrays gathered page by page go straight from their offsets: encoded
        // and their statistics taken without a slice per value (probe
        // `write.byte_offset_runs`). Signed order (decimals) takes the general path.
        let offset_runs = matches!(chosen, Chosen::Plain)
            && self.leaf.order != SortOrder::SignedBytes
            && matches!(&chunk_values, ChunkValues::Paged(v) if v.offset_runs());
        let mut runs = Vec::new();
        for page in pages {
            let mut p = page.range;
            let slots = p.slot_end - p.slot_start;
            let page_values;
            // `None`: the page's values are `runs`.
            let dense = match &mut chunk_values {
                ChunkValues::Whole(d) => Some(*d),
                ChunkValues::Paged(v) if offset_runs => {
                    probe::hit("write.byte_offset_runs");
                    v.next_runs(p.value_end - p.value_start, &mut runs);
                    (p.value_start, p.value_end) = (0, p.value_end - p.value_start);
                    None
                }
                ChunkValues::Paged(v) => {
                    page_values = v.next_page(p.value_end - p.value_start);
                    (p.value_start, p.value_end) = (0, p.value_end - p.value_start);
                    Some(&page_values)
                }
            };
            stored_values += p.value_end - p.value_start;
            total_pairs += slots;
            let nulls = slots - (p.value_end - p.value_start);
            let mut page_stats = match dense {
                _ if !stats_on => Stats::default(),
                Some(dense) => self.stats(dense, chosen, p.value_start, p.value_end),
                None => Stats {
                    min_max: (self.leaf.order != SortOrder::Undefined)
                        .then(|| {
                            stats::byte_array_runs(&runs, self.settings.truncate, self.leaf.utf8)
                        })
                        .flatten(),
                    ..Stats::default()
                },
            };
            page_stats.null_count = nulls as u64;
            if stats_on {
                chunk_stats.merge(&page_stats, self.leaf.order);
            }
            match dense {
                Some(Dense::Bytes(v)) => unencoded_per_page.push(
                    v[p.value_start..p.value_end]
                        .iter()
                        .map(|x| x.len() as i64)
                        .sum::<i64>(),
                ),
                None => unencoded_per_page
                    .push(runs.iter().map(|r| r.value_bytes() as i64).sum::<i64>()),
                Some(_) => {}
            }
            let header_stats = (stats_on && self.settings.page_header_statistics)
                .then(|| page_stats.to_thrift(true));

            levels.clear();
            rep_levels.clear();
            match source {
                LevelSource::Flat(validity) => {
                    if nullable {
                        def_levels(validity, p.slot_start, slots, &mut levels);
                    }
                    if let Some(ci) = &mut column_index {
                        ci.push(&page_stats, slots);
                    }
                }
                LevelSource::Nested(leaf) => {
                    let range = p.slot_start..p.slot_end;
                    page_rep_hist.fill(0);
                    page_def_hist.fill(0);
                    if repeated {
                        let r = &leaf.rep[range.clone()];
                        nested_pages::encode_levels(
                            r,
                            max_rep,
                            &mut rep_levels,
                            &mut page_rep_hist,
                        );
                    }
                    if nullable {
                        let d = &leaf.def[range];
                        nested_pages::encode_levels(d, max_def, &mut levels, &mut page_def_hist);
                    } else {
                        page_def_hist[0] = slots as i64;
                    }
                    for (t, h) in rep_hist.iter_mut().zip(&page_rep_hist) {
                        *t += h;
                    }
                    for (t, h) in def_hist.iter_mut().zip(&page_def_hist) {
                        *t += h;
                    }
                    if let Some(ci) = &mut column_index {
                        ci.push_leveled(&page_stats, slots, &page_rep_hist, &page_def_hist);
                    }
                }
            }
            let body = match dense {
                Some(dense) => {
                    self.encoded_values(chosen, dense, p.value_start, p.value_end, &mut values)?
                }
                None => {
                    values.clear();
                    for run in &runs {
                        match *run {
                            ByteRun::Small(o, d) => {
                                plain::encode_byte_array_offsets(o, d, &mut values)
                            }
                            ByteRun::Large(o, d) => {
                                plain::encode_byte_array_offsets(o, d, &mut values)
                            }
                        }
                    }
                    &values[..]
                }
            };

            let start = out.pos();
            if v2 {
                let compressed: Option<&[u8]> = match &self.codec {
                    Some(c) if !body.is_empty() => {
                        let n = compress_shared(c, body, &mut scratch)?;
                        Some(&scratch[..n])
                    }
                    _ => None,
                };
                let stored = compressed.unwrap_or(body);
                let level_bytes = rep_levels.len() + levels.len();
                let header = PageHeader {
                    type_: PageType::DATA_PAGE_V2,
                    uncompressed_page_size: page_size(level_bytes + body.len(), "data page")?,
                    compressed_page_size: page_size(level_bytes + stored.len(), "data page")?,
                    crc: None,
                    data_page_header_v2: Some(DataPageHeaderV2 {
                        num_values: page_size(slots, "page values")?,
                        num_nulls: nulls as i32,
                        num_rows: page_size(page.rows, "page rows")?,
                        encoding: value_encoding,
                        definition_levels_byte_length: page_size(levels.len(), "levels")?,
                        repetition_levels_byte_length: page_size(rep_levels.len(), "levels")?,
                        is_compressed: Some(compressed.is_some()),
                        statistics: header_stats,
                    }),
                    ..PageHeader::default()
                };
                uncompressed_total += out.header(header)? + level_bytes + body.len();
                out.put(&rep_levels)?;
                out.put(&levels)?;
                out.put(stored)?;
                out.end_page()?;
            } else {
                // Each level stream with its 4-byte length, repetition first.
                let rep_len = page_size(rep_levels.len(), "levels")? as u32;
                let def_len = page_size(levels.len(), "levels")? as u32;
                let prefix = if repeated { 4 + rep_levels.len() } else { 0 }
                    + if nullable { 4 + levels.len() } else { 0 };
                let uncompressed = prefix + body.len();
                let compressed: Option<&[u8]> = match &self.codec {
                    None => None,
                    Some(c) => {
                        // Levels and values are compressed together: one contiguous input.
                        let input: &[u8] = if prefix > 0 {
                            raw.clear();
                            raw.reserve(uncompressed);
                            if repeated {
                                raw.extend_from_slice(&rep_len.to_le_bytes());
                                raw.extend_from_slice(&rep_levels);
                            }
                            if nullable {
                                raw.extend_from_slice(&def_len.to_le_bytes());
                                raw.extend_from_slice(&levels);
                            }
                            raw.extend_from_slice(body);
                            &raw
                        } else {
                            body
                        };
                        let n = compress_shared(c, input, &mut scratch)?;
                        Some(&scratch[..n])
                    }
                };
                let header = PageHeader {
                    type_: PageType::DATA_PAGE,
                    uncompressed_page_size: page_size(uncompressed, "data page")?,
                    compressed_page_size: page_size(
                        compressed.map_or(uncompressed, |c| c.len()),
                        "data page",
                    )?,
                    crc: None,
                    data_page_header: Some(DataPageHeader {
                        num_values: page_size(slots, "page values")?,
                        encoding: value_encoding,
                        definition_level_encoding: Encoding::RLE,
                        repetition_level_encoding: Encoding::RLE,
                        statistics: header_stats,
                    }),
                    ..PageHeader::default()
                };
                uncompressed_total += out.header(header)? + uncompressed;
                match compressed {
                    Some(c) => out.put(c)?,
                    None => {
                        if repeated {
                            out.put(&rep_len.to_le_bytes())?;
                            out.put(&rep_levels)?;
                        }
                        if nullable {
                            out.put(&def_len.to_le_bytes())?;
                            out.put(&levels)?;
                        }
                        out.put(body)?;
                    }
                }
                out.end_page()?;
            }
            locations.push(PageLocation {
                offset: start as i64,
                compressed_page_size: page_size(out.pos() - start, "data page")?,
                first_row_index: page.first_row as i64,
            });
        }
        out.flush()?;
        let chunk_len = out.pos();
        self.out_buf = std::mem::take(&mut out.buf);
        self.scratch = scratch;
        self.values = values;
        self.levels = levels;
        self.rep_levels = rep_levels;
        self.raw = raw;
        encoding_stats.push(PageEncodingStats {
            page_type: if v2 {
                PageType::DATA_PAGE_V2
            } else {
                PageType::DATA_PAGE
            },
            encoding: value_encoding,
            count: pages.len() as i32,
        });

        let mut encodings = vec![value_encoding];
        if matches!(chosen, Chosen::Dictionary(_)) {
            encodings.push(Encoding::PLAIN);
        }
        if nullable || repeated {
            encodings.push(Encoding::RLE);
        }
        encodings.sort();
        encodings.dedup();

        let null_count = (total_pairs - stored_values) as i64;
        let (rep_histogram, def_histogram) = if leveled {
            (
                repeated.then(|| rep_hist.into()),
                nullable.then(|| def_hist.into()),
            )
        } else {
            (
                None,
                nullable.then(|| [null_count, total_pairs as i64 - null_count].into()),
            )
        };
        let size_statistics = (byte_arrays || nullable || repeated).then(|| SizeStatistics {
            unencoded_byte_array_data_bytes: byte_arrays.then(|| unencoded_per_page.iter().sum()),
            repetition_level_histogram: rep_histogram,
            definition_level_histogram: def_histogram,
        });
        let meta = ColumnMetaData {
            type_: self.leaf.physical,
            encodings: encodings.into(),
            path_in_schema: ColumnPath::from(&self.leaf.path[..]),
            codec: CompressionCodec(self.settings.codec.to_thrift()),
            num_values: total_pairs as i64,
            total_uncompressed_size: uncompressed_total as i64,
            total_compressed_size: chunk_len as i64,
            key_value_metadata: None,
            data_page_offset,
            index_page_offset: None,
            dictionary_page_offset,
            statistics: stats_on.then(|| chunk_stats.to_thrift(true)),
            encoding_stats: Some(encoding_stats.into()),
            bloom_filter_offset: None,
            bloom_filter_length: None,
            size_statistics,
            geospatial_statistics: match chunk_values {
                ChunkValues::Whole(dense) if stats_on => self.geo_stats(dense),
                _ => None,
            },
        };
        let offset_index = self.settings.page_index.then(|| OffsetIndex {
            page_locations: locations,
            unencoded_byte_array_data_bytes: byte_arrays.then_some(unencoded_per_page),
        });
        Ok(EncodedChunk {
            len: chunk_len,
            meta,
            column_index: column_index.and_then(|c| c.finish()),
            offset_index,
            bloom_filter: None,
        })
    }
}

/// Where a chunk's stored values come from.
enum ChunkValues<'d, 'a> {
    /// All of them, in one run.
    Whole(&'d Dense<'a>),
    /// Gathered page by page (numeric leaves without a dictionary).
    Paged(&'d mut PagedValues<'a>),
}

/// Where a chunk's levels come from.
#[derive(Clone, Copy)]
enum LevelSource<'a> {
    /// A flat column: definition levels (max 1) straight from its validity bitmap.
    Flat(Option<&'a NullBuffer>),
    /// A shredded leaf: its level streams.
    Nested(&'a LeafLevels),
}

/// The page-cutting cost of the chosen encoding: a fixed size in bits per value, or the
/// byte arrays whose lengths give it.
fn costs<'a, 'b>(
    chosen: &Chosen<'_>,
    dense: &'a Dense<'b>,
) -> (Option<u64>, Option<&'a Vec<&'b [u8]>>) {
    match (chosen, dense) {
        (Chosen::Dictionary(d), _) => (Some(d.bit_width as u64), None),
        (_, Dense::Boolean(_)) => (Some(1), None),
        (_, Dense::Int32(_) | Dense::Float(_)) => (Some(32), None),
        (_, Dense::Int64(_) | Dense::Double(_)) => (Some(64), None),
        (_, Dense::Fixed { width, .. }) => (Some(*width as u64 * 8), None),
        (_, Dense::Bytes(v)) => (None, Some(v)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cut_by_bits_and_rows() {
        let p = page_ranges(10, None, Some(64), |_| 64, 64 * 4, 100);
        assert_eq!(p.len(), 3);
        assert_eq!((p[2].slot_start, p[2].slot_end), (8, 10));
        let p = page_ranges(10, None, Some(1), |_| 1, 1 << 20, 3);
        assert_eq!(p.len(), 4);
        let validity = NullBuffer::from(vec![true, false, false, true, true, false]);
        let p = page_ranges(6, Some(&validity), Some(8), |_| 8, 16, 100);
        assert_eq!(
            p,
            vec![
                PageRange {
                    slot_start: 0,
                    slot_end: 4,
                    value_start: 0,
                    value_end: 2
                },
                PageRange {
                    slot_start: 4,
                    slot_end: 6,
                    value_start: 2,
                    value_end: 3
                },
            ]
        );
        assert!(page_ranges(0, None, Some(8), |_| 8, 16, 100).is_empty());
    }

    /// The bitmap path cuts the same pages as a slot-by-slot walk.
    #[test]
    fn pages_by_bitmap_match_slot_walk() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for len in [0usize, 1, 63, 64, 65, 500, 3000] {
            for null_pct in [0u64, 10, 50, 100] {
                let valid: Vec<bool> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        x % 100 >= null_pct
                    })
                    .collect();
                let validity = NullBuffer::from(valid.clone());
                for (cost, target, rows) in
                    [(8, 64, 1000), (64, 640, 37), (3, 1, 5), (64, 1 << 20, 70)]
                {
                    let got = page_ranges(len, Some(&validity), Some(cost), |_| cost, target, rows);
                    // The reference: the general slot walk (no fixed cost).
                    let want = page_ranges(len, Some(&validity), None, |_| cost, target, rows);
                    assert_eq!(got, want, "len {len} nulls {null_pct}% cost {cost}");
                }
            }
        }
    }
}
