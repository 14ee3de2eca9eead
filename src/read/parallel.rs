//! Parallel decode: work split across row groups, columns and page ranges.
//!
//! A read with [`ReadOptions::threads`](super::ReadOptions::threads) above 1 is planned first,
//! on the calling thread: each column chunk's bytes are read, its page headers walked (no
//! page is decompressed) and its dictionary page decompressed. A chunk much larger than its
//! share of the read is cut at page boundaries into page ranges, so that one big column does
//! not run alone while the other threads idle (splitting by column chunk alone once capped a
//! read at 1.39× on two cores). Every piece (a whole chunk or a page range) is then decoded
//! on its own, with its chunk's dictionary, into its own column; the pieces of a column are
//! joined in file order.
//!
//! A whole read (`read_leaves_parallel`) joins as it decodes: each column's output is
//! reserved once (slots from the page headers, value bytes from the pages' decompressed
//! sizes, capped; huge pages advised), and the thread that decodes a piece copies it into
//! its part of that output as soon as the pieces before it in its column are decoded (their
//! sizes place it), then drops it. Each thread keeps one decoder per column, whose buffers
//! come back to it once their piece is copied ([`Recycler`]), and pieces aim at 1 MiB: so
//! the threads decode into a few small buffers already faulted in, write the output's pages
//! in parallel, and nothing is joined on one thread afterwards. Before this, pieces decoded
//! into buffers of their own of up to 8 MiB (fresh every read, which glibc trimmed and
//! faulted in again) and were then copied by one thread (see BENCHMARKS.md).
//! Byte arrays that decode to more than their pages (dictionary pages) fill the reservation
//! and the pieces past it are joined after, as before; booleans and views are always joined
//! after ([`Column::concat`]; views copy no values).
//!
//! Byte arrays of a required column in PLAIN pages (unique strings, the usual dominant
//! column) skip the piece buffer and the copy: a PLAIN value is its bytes after a 4-byte
//! length, so the page headers say exactly how many slots and value bytes each piece holds,
//! every piece's part of the output is placed before any is decoded, and each thread decodes
//! its pieces straight into their parts, in any order, with no waiting ([`Direct`]; probes
//! `parallel.direct` per piece, `parallel.join_direct` per column). A page that does not
//! hold what its header says (a valid file never does this) sends its column back to the
//! usual decode, with the same values or error as one thread (`parallel.direct_fallback`).
//! On the `scan_threads` file this took the 2-thread read from 691M to 641M instructions,
//! against 635M on one thread (see BENCHMARKS.md).
//!
//! [`Recycler`]: parq_codecs::kernels::memory::Recycler
//!
//! Threads are `std::thread::scope` workers taking pieces from one atomic counter, in file
//! order. Scoped threads borrow the plan without `Arc`s or `'static` bounds, add no
//! dependency (rayon would bring a global pool the embedding engine may not want), and a read
//! with one thread, the library default, spawns none. The calling thread is one of the
//! workers. Probes hit on worker threads are added to the caller's counters when they end,
//! so `probes` counts do not depend on the thread count (apart from the dictionary decoded
//! once per piece).
//!
//! Probe names (one hit per piece decoded):
//! - `parallel.chunk`: a whole column chunk;
//! - `parallel.page_range`: a page range of a chunk cut at page boundaries;
//! - `parallel.row_group`: a nested field's row group (see `read_nested_parallel`).
//!
//! And once per column of a whole read: `parallel.join` (its pieces were copied into one
//! reserved output as they were decoded), `parallel.join_overflow` (some did not fit the
//! reservation and were joined after), `parallel.join_direct` (decoded in place; one
//! `parallel.direct` per piece), `parallel.direct_fallback` (decoded again, see above).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use arrow_buffer::{BooleanBufferBuilder, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq_codecs::compression::{CodecKind, Decompressor};
use parq_codecs::kernels::copy::plain_byte_arrays_into;
use parq_codecs::kernels::memory;
use parq_codecs::probe;

use super::decode::{ByteArrayLayout, ChunkDecoder, MAX_TYPE_LENGTH};
use super::file::{FileDecoder, ParquetReader};
use super::page::{Levels, Page, PageReader};
use super::source::Source;
use crate::array::{Array, ListArray, ListOffsets, StructArray};
use crate::column::{Column, Values};
use crate::error::Location;
use crate::metadata::{self, Encoding, PageType, Type};
use crate::schema::ColumnDescriptor;
use crate::{Error, Result};

/// Pieces each thread should get in a read, so that the last ones to finish are small.
const PIECES_PER_THREAD: u64 = 4;
/// Smallest page range worth a piece of its own (decompressed bytes).
const MIN_PIECE: u64 = 64 << 10;
/// Largest page range a piece aims at (decompressed bytes): bounds what streaming reads
/// decode ahead.
const MAX_PIECE: u64 = 8 << 20;
/// Largest page range a piece of a whole read aims at (decompressed bytes): pieces are
/// copied into the joined output once decoded, and their buffers reused for the next ones.
const JOINED_PIECE: u64 = 1 << 20;
/// The most slots a piece reserves up front (a hint: buffers still grow past it).
const MAX_RESERVE: u64 = 1 << 26;
/// The most value bytes reserved up front from a size in the file (a hint: buffers still
/// grow past it).
const MAX_RESERVE_BYTES: u64 = 1 << 32;
/// How many times its stored size a column may be assumed to decompress to when reserving.
const MAX_EXPANSION: u64 = 32;

/// One unit of work: pages of one column chunk, decoded into one column.
pub(crate) struct Piece {
    /// Which requested column this piece belongs to.
    slot: usize,
    /// The pages (with their headers), or the whole chunk.
    bytes: Bytes,
    /// File offset of `bytes`.
    offset: u64,
    /// Index of the first page of `bytes` within its chunk.
    first_page: usize,
    /// Slots (level pairs) in the pages of `bytes`; 0 for an empty chunk.
    num_values: i64,
    /// Slots of the chunk's pages before these: of a flat column, the row (in the row group)
    /// the piece starts at, for errors that name a row.
    first_value: u64,
    /// Decompressed bytes of the pages, as their headers (or the footer) declare.
    weight: u64,
    /// The chunk's decompressed dictionary page, for a page range after it.
    dictionary: Option<(Bytes, usize, Location)>,
    codec: CodecKind,
    /// True for a page range, false for a whole chunk.
    range: bool,
    /// The value bytes of its byte arrays, from the page headers, when every page is a
    /// PLAIN data page of a required column (no dictionary): each value is its bytes after a
    /// 4-byte length, so the headers' sizes say exactly where the piece's bytes end in the
    /// joined output, before any piece is decoded (see [`Direct`]).
    plain_bytes: Option<u64>,
    loc: Location,
}

impl Piece {
    /// Rows (slots of a flat column) this piece decodes to.
    pub(crate) fn rows(&self) -> usize {
        self.num_values.max(0) as usize
    }
}

/// A page of a chunk found by walking its headers.
struct PageSpan {
    end: usize,
    num_values: i64,
    /// Decompressed size: the work it stands for.
    weight: u64,
    data: bool,
    /// Value bytes of a PLAIN data page of a required byte array column (the page's
    /// values section less a 4-byte length per value); 0 for an index page; `None` otherwise.
    plain: Option<u64>,
}

/// The value bytes `spans` hold as PLAIN byte arrays of a required column, when they all do.
fn plain_bytes(spans: &[PageSpan]) -> Option<u64> {
    spans
        .iter()
        .try_fold(0u64, |sum, p| sum.checked_add(p.plain?))
}

impl<S: Source> FileDecoder<S> {
    /// Whether reads go through the parallel path: more than one thread, no row selection
    /// (a selected read skips pages and rows on the calling thread) and no encryption (the
    /// planner walks page headers, which an encrypted chunk only shows to its decryptor).
    pub(crate) fn runs_parallel(&self) -> bool {
        #[cfg(feature = "encryption")]
        let encrypted = self.decryptor.is_some();
        #[cfg(not(feature = "encryption"))]
        let encrypted = false;
        self.options.threads > 1 && self.options.selection.is_none() && !encrypted
    }

    /// [`Self::read_leaves`] on several threads.
    pub(crate) fn read_leaves_parallel(&self, columns: &[usize]) -> Result<Vec<Column>> {
        let descs = columns
            .iter()
            .map(|&c| Ok(self.column_reader(c)?.desc))
            .collect::<Result<Vec<_>>>()?;
        let row_groups = self.selected_row_groups();
        // Pieces are copied into the joined output as they are decoded: small ones keep
        // their buffers few, warm and out of the huge-page range.
        let target = self.piece_target(columns, &row_groups).min(JOINED_PIECE);
        let mut pieces = Vec::new();
        let mut dec = Decompressor::new(self.options.limits());
        for &rg in &row_groups {
            for (slot, (&c, desc)) in columns.iter().zip(&descs).enumerate() {
                self.plan_chunk(slot, c, desc, rg, target, &mut dec, &mut pieces)?;
            }
        }
        self.decode_joined(&pieces, &descs)?
            .into_iter()
            .zip(&descs)
            .map(|(col, desc)| match col {
                Some(c) => Ok(c),
                None => Ok(self.decoder_for(desc)?.finish()),
            })
            .collect()
    }

    fn decoder_for(&self, desc: &ColumnDescriptor) -> Result<ChunkDecoder> {
        Ok(ChunkDecoder::new(
            desc.physical_type,
            desc.type_length,
            self.options.byte_array_layout,
        )?
        .with_budget(self.options.max_memory))
    }

    /// Value bytes the chunks of `column` in `row_groups` decompress to, from the footer:
    /// room for byte arrays reserved once rather than grown. Only a hint, so it is capped by
    /// the file's length times [`MAX_EXPANSION`] and by a fixed ceiling.
    pub(crate) fn value_bytes_hint(&self, column: usize, row_groups: &[usize]) -> usize {
        let total = uncompressed_bytes(&self.metadata, &[column], row_groups);
        let cap = self.source.len().saturating_mul(MAX_EXPANSION);
        total.min(cap).min(MAX_RESERVE_BYTES) as usize
    }

    /// Decompressed bytes a page range should hold: the read's share per piece, from the
    /// footer's sizes (only a target: nothing is allocated by it).
    pub(crate) fn piece_target(&self, columns: &[usize], row_groups: &[usize]) -> u64 {
        let total = uncompressed_bytes(&self.metadata, columns, row_groups);
        let share = total / (self.options.threads.max(1) as u64 * PIECES_PER_THREAD);
        share.clamp(MIN_PIECE, MAX_PIECE)
    }

    /// Plan the pieces of chunk `column` of row group `rg`: the whole chunk, or page ranges of
    /// about `target` decompressed bytes when it is larger. A chunk whose headers do not walk
    /// cleanly is one piece, decoded as a one-thread read would (and failing as it would).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn plan_chunk(
        &self,
        slot: usize,
        column: usize,
        desc: &ColumnDescriptor,
        rg: usize,
        target: u64,
        dec: &mut Decompressor,
        out: &mut Vec<Piece>,
    ) -> Result<()> {
        let loc = Location {
            column: Some(desc.path_string()),
            row_group: Some(rg),
            ..Location::default()
        };
        let chunk = &self.metadata.row_groups[rg].columns[column];
        if chunk.file_path.is_some() {
            return Err(Error::Unsupported(
                "column chunk in an external file".into(),
            ));
        }
        let meta = chunk
            .meta_data
            .as_ref()
            .ok_or_else(|| Error::format("column chunk without metadata").at(&loc))?;
        let codec = CodecKind::from_thrift(meta.codec.0)
            .ok_or_else(|| Error::Unsupported(format!("compression codec {:?}", meta.codec)))?;
        let whole = |bytes: Bytes, offset: u64, num_values: i64, plain_bytes| Piece {
            slot,
            bytes,
            offset,
            first_page: 0,
            num_values,
            first_value: 0,
            weight: meta.total_uncompressed_size.max(0) as u64,
            dictionary: None,
            codec,
            range: false,
            plain_bytes,
            loc: loc.clone(),
        };
        let rows = self.metadata.row_groups[rg].num_rows.max(0) as u64;
        super::file::check_chunk_values(desc, meta.num_values, rows, &loc)?;
        if meta.num_values == 0 {
            out.push(whole(Bytes::new(), 0, 0, Some(0)));
            return Ok(());
        }
        let (start, end) = self.chunk_range(chunk, &loc)?;
        let bytes = self.source.read(start..end)?;
        let required = desc.max_def_level == 0 && desc.max_rep_level == 0;
        let spans = match walk_pages(&bytes, meta.num_values, required) {
            Some(s) if s.iter().filter(|p| p.data).count() > 1 => s,
            s => {
                let plain = s.as_deref().and_then(plain_bytes);
                out.push(whole(bytes, start, meta.num_values, plain));
                return Ok(());
            }
        };
        let total: u64 = spans.iter().map(|p| p.weight).sum();
        if total <= target + target / 2 {
            out.push(whole(bytes, start, meta.num_values, plain_bytes(&spans)));
            return Ok(());
        }
        // A dictionary page comes first (walk_pages checks): decompress it once for all the
        // ranges after it.
        let mut first = 0;
        let mut dictionary = None;
        if !spans[0].data && spans[0].num_values < 0 {
            let mut pages = PageReader::new(
                bytes.slice(..spans[0].end),
                start,
                codec,
                meta.num_values,
                (desc.max_rep_level, desc.max_def_level),
                self.options.verify_crc,
                loc.clone(),
            );
            match pages.next_page(dec) {
                Ok(Some(Page::Dictionary(page))) => {
                    let (n, loc) = (page.num_values, page.location().clone());
                    match page.values(dec) {
                        Ok(values) => dictionary = Some((values, n, loc)),
                        // Let the one-piece decode report it, as a one-thread read does.
                        Err(_) => {
                            out.push(whole(bytes, start, meta.num_values, None));
                            return Ok(());
                        }
                    }
                }
                // Let the one-piece decode report it, as a one-thread read does.
                _ => {
                    out.push(whole(bytes, start, meta.num_values, None));
                    return Ok(());
                }
            }
            first = 1;
        }
        let mut range_start = if first == 1 { spans[0].end } else { 0 };
        let mut range_first = first;
        // A dictionary is decoded with every range after it (and may fail there, as in a
        // one-thread read): those ranges are never placed before they are decoded.
        let placeable = dictionary.is_none();
        let (mut weight, mut values) = (0u64, 0i64);
        let mut before = 0u64;
        for (i, span) in spans.iter().enumerate().skip(first) {
            weight += span.weight;
            values += span.num_values.max(0);
            if weight >= target || i + 1 == spans.len() {
                out.push(Piece {
                    slot,
                    bytes: bytes.slice(range_start..span.end),
                    offset: start + range_start as u64,
                    first_page: range_first,
                    num_values: values,
                    first_value: before,
                    weight,
                    dictionary: dictionary.clone(),
                    codec,
                    range: true,
                    plain_bytes: plain_bytes(&spans[range_first..=i]).filter(|_| placeable),
                    loc: loc.clone(),
                });
                range_start = span.end;
                range_first = i + 1;
                before += values as u64;
                (weight, values) = (0, 0);
            }
        }
        Ok(())
    }

    /// Decode the pieces of a streamed read (`columns[p.slot]` is piece `p`'s leaf column)
    /// on the reader's threads, each into a column of its own; the columns come back in the
    /// pieces' order (the first error in that order wins).
    pub(crate) fn decode_pieces(
        &self,
        pieces: &[Piece],
        columns: &[usize],
        descs: &[ColumnDescriptor],
    ) -> Result<Vec<Column>> {
        for p in pieces {
            probe::hit(if p.range {
                "parallel.page_range"
            } else {
                "parallel.chunk"
            });
        }
        // Pieces too small to pay for a thread's start (a batch of tiny row groups) decode
        // on the calling thread.
        let weight: u64 = pieces.iter().map(|p| p.weight).sum();
        let threads = if weight < MIN_PIECE {
            probe::hit("parallel.too_little_for_threads");
            1
        } else {
            if pieces.len() > 1 && self.options.threads > 1 {
                probe::hit("parallel.pieces_on_threads");
            }
            self.options.threads
        };
        let results = run(threads, self.options.limits(), pieces, |p, dec| {
            let desc = &descs[p.slot];
            // The decoder one thread's batches use: pieces are streamed batches too.
            let mut decoder = self.batch_decoder(columns[p.slot], desc)?;
            self.decode_piece_with(p, desc, &mut decoder, dec)
        });
        results.into_iter().collect()
    }

    /// Decode `piece` with a decoder of the piece's column that may have decoded
    /// other pieces before (its buffers come back to it once their columns are dropped).
    fn decode_piece_with(
        &self,
        piece: &Piece,
        desc: &ColumnDescriptor,
        decoder: &mut ChunkDecoder,
        dec: &mut Decompressor,
    ) -> Result<Column> {
        // A dictionary of an earlier piece is not this one's: it brings its own, or none.
        decoder.clear_dictionary();
        if piece.num_values == 0 {
            return Ok(decoder.finish());
        }
        if let Some((values, n, loc)) = &piece.dictionary {
            decoder
                .set_dictionary(values.clone(), *n)
                .map_err(|e| e.at(loc))?;
        }
        let stored = piece.bytes.len() as u64;
        decoder.reserve((piece.num_values as u64).min(stored * 8).min(MAX_RESERVE) as usize);
        let bytes = piece.weight.min(stored.saturating_mul(MAX_EXPANSION));
        decoder.reserve_bytes(bytes.min(MAX_RESERVE_BYTES) as usize);
        let mut pages = self.piece_pages(piece, desc);
        // A flat column's slots are its rows: the row of each page, for errors that name one.
        let mut row = (desc.max_rep_level == 0).then_some(piece.first_value);
        while let Some(page) = pages.next_page(dec)? {
            let loc = pages.last_location();
            match page {
                Page::Dictionary(page) => {
                    let n = page.num_values;
                    decoder
                        .set_dictionary(page.values(dec)?, n)
                        .map_err(|e| e.at(&loc))?
                }
                Page::Data(page) => {
                    self.options
                        .check_page_values("page", page.num_values)
                        .map_err(|e| e.at(&loc))?;
                    let n = page.num_values as u64;
                    decoder.set_page_row(row);
                    decoder.decode_page(page, loc, None)?;
                    row = row.map(|r| r + n);
                }
            }
        }
        Ok(decoder.finish())
    }

    /// The pages of a piece.
    fn piece_pages(&self, piece: &Piece, desc: &ColumnDescriptor) -> PageReader {
        PageReader::new(
            piece.bytes.clone(),
            piece.offset,
            piece.codec,
            piece.num_values,
            (desc.max_rep_level, desc.max_def_level),
            self.options.verify_crc,
            piece.loc.clone(),
        )
        .first_page(piece.first_page)
    }

    /// Decode a piece of PLAIN byte arrays of a required column straight into the room
    /// placed for it in its column's output: its offsets (plus `base`, where its bytes start)
    /// into `offsets`, its value bytes into `data`. True when it filled exactly that room, as
    /// its page headers promised; false on anything else (an error, a page not PLAIN, sizes
    /// that do not match), and the piece is then decoded as any other ([`Direct`]).
    fn decode_direct(
        &self,
        piece: &Piece,
        desc: &ColumnDescriptor,
        dec: &mut Decompressor,
        base: i64,
        offsets: &mut [std::mem::MaybeUninit<i64>],
        data: &mut [std::mem::MaybeUninit<u8>],
    ) -> bool {
        let (mut slots, mut bytes) = (0usize, 0usize);
        if piece.num_values > 0 {
            let mut pages = self.piece_pages(piece, desc);
            loop {
                let page = match pages.next_page(dec) {
                    Ok(Some(Page::Data(page))) => page,
                    Ok(None) => break,
                    Ok(Some(Page::Dictionary { .. })) | Err(_) => return false,
                };
                let n = page.num_values;
                if page.encoding != Encoding::PLAIN
                    || n > self.options.max_page_values()
                    || page.num_nulls.is_some_and(|k| k > 0)
                    || !matches!(page.def_levels, Levels::None)
                    || !matches!(page.rep_levels, Levels::None)
                    || n > offsets.len() - slots
                {
                    return false;
                }
                let at = base + bytes as i64;
                let Ok(w) = plain_byte_arrays_into(
                    &page.values,
                    n,
                    at,
                    &mut offsets[slots..],
                    &mut data[bytes..],
                ) else {
                    return false;
                };
                slots += n;
                bytes += w;
            }
        }
        slots == offsets.len() && bytes == data.len()
    }
}

impl<S: Source> ParquetReader<S> {
    /// Read several flat leaf columns (indices into `schema().leaves`) over the selected row
    /// groups, one column each in the order given, with [`ReadOptions::threads`] threads.
    ///
    /// With more than one thread the work is split across row groups, columns and page
    /// ranges of large column chunks (so that a file with one dominant column still uses
    /// every thread); the result equals a one-thread read value for value.
    ///
    /// [`ReadOptions::threads`]: super::ReadOptions::threads
    ///
    /// ```
    /// # use parq::column::{Column, Values};
    /// # use parq::write::{Field, ParquetWriter, WriterOptions};
    /// # let mut file = Vec::new();
    /// # let fields = vec![Field::int64("id"), Field::string("name").optional()];
    /// # let mut w = ParquetWriter::new(&mut file, fields, WriterOptions::default())?;
    /// # let ids = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
    /// # let names = Column {
    /// #     len: 3,
    /// #     validity: Some(vec![true, false, true].into()),
    /// #     values: Values::Binary {
    /// #         offsets: arrow_buffer::OffsetBuffer::new(vec![0i64, 1, 1, 3].into()),
    /// #         data: arrow_buffer::Buffer::from(&b"abc"[..]),
    /// #     },
    /// # };
    /// # w.write_batch(&[ids, names])?;
    /// # w.finish()?;
    /// use parq::read::{ParquetReader, ReadOptions};
    ///
    /// let options = ReadOptions::default().with_threads(2);
    /// let reader = ParquetReader::with_options(bytes::Bytes::from(file), options)?;
    /// let columns = reader.read_leaves(&[0, 1])?;
    /// assert_eq!(columns[1].bytes(2), Some(&b"bc"[..]));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn read_leaves(&self, columns: &[usize]) -> Result<Vec<Column>> {
        self.read_builder().read_flat_leaves(columns)
    }
}

/// The pages of a chunk up to its `num_values` slots, found from their headers alone; `None`
/// when a header does not decode, a page overruns the chunk, a dictionary page is not first,
/// or the pages hold too few values (the one-piece decode then reports the problem).
///
/// A dictionary page is marked by `num_values == -1`; index pages by 0 values, not data.
/// `required`: the column has no levels (flat and required), so the values section of a
/// PLAIN page is all of it but a v2 page's (empty) level bytes, and `plain` can be known.
fn walk_pages(bytes: &[u8], num_values: i64, required: bool) -> Option<Vec<PageSpan>> {
    let mut spans: Vec<PageSpan> = Vec::new();
    let (mut pos, mut values) = (0usize, 0i64);
    while values < num_values && pos < bytes.len() {
        let (h, header_len) = metadata::decode_page_header(&bytes[pos..]).ok()?;
        let compressed = usize::try_from(h.compressed_page_size).ok()?;
        let end = pos
            .checked_add(header_len)?
            .checked_add(compressed)
            .filter(|e| *e <= bytes.len())?;
        let weight = u64::try_from(h.uncompressed_page_size).ok()?;
        // The values section's bytes, when the page is PLAIN and all of them are values.
        let mut plain_section = None;
        let (n, data) = match h.type_ {
            PageType::DICTIONARY_PAGE if spans.is_empty() => (-1, false),
            PageType::DICTIONARY_PAGE => return None,
            PageType::DATA_PAGE => {
                let d = h.data_page_header.as_ref()?;
                if d.encoding == Encoding::PLAIN {
                    plain_section = Some(weight);
                }
                (i64::from(d.num_values), true)
            }
            PageType::DATA_PAGE_V2 => {
                let d = h.data_page_header_v2.as_ref()?;
                if d.encoding == Encoding::PLAIN && d.num_nulls == 0 {
                    let levels = i64::from(d.definition_levels_byte_length)
                        + i64::from(d.repetition_levels_byte_length);
                    plain_section = u64::try_from(levels)
                        .ok()
                        .and_then(|l| weight.checked_sub(l));
                }
                (i64::from(d.num_values), true)
            }
            _ => (0, false),
        };
        if data && n < 0 {
            return None;
        }
        let plain = match (data, n) {
            (false, 0) => Some(0),
            (true, n) if required => plain_section.and_then(|b| b.checked_sub(4 * n as u64)),
            _ => None,
        };
        values += n.max(0);
        spans.push(PageSpan {
            end,
            num_values: n,
            weight,
            data,
            plain,
        });
        pos = end;
    }
    // Exactly: a page past the chunk's values is the one-piece reader's error to report.
    (values == num_values).then_some(spans)
}

/// Run `work` over `items` on up to `threads` threads (the caller's among them), each with
/// its own decompressor; results in the items' order. With one thread or one item nothing
/// is spawned. After an error no further item is started, so the results end early, but
/// every item before the first failing one has its result.
fn run<T: Sync, R: Send>(
    threads: usize,
    limits: parq_codecs::compression::Limits,
    items: &[T],
    work: impl Fn(&T, &mut Decompressor) -> Result<R> + Sync,
) -> Vec<Result<R>> {
    run_with(threads, items, || Decompressor::new(limits), work)
}

/// [`run`] with each thread's own state made by `init` (instead of a decompressor).
fn run_with<T: Sync, W, R: Send>(
    threads: usize,
    items: &[T],
    init: impl Fn() -> W + Sync,
    work: impl Fn(&T, &mut W) -> Result<R> + Sync,
) -> Vec<Result<R>> {
    let workers = threads.min(items.len()).max(1);
    if workers == 1 {
        let mut dec = init();
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let r = work(item, &mut dec);
            let failed = r.is_err();
            out.push(r);
            if failed {
                break;
            }
        }
        return out;
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let worker = || {
        let mut dec = init();
        let mut done = Vec::new();
        while !failed.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            let r = work(item, &mut dec);
            if r.is_err() {
                failed.store(true, Ordering::Relaxed);
            }
            done.push((i, r));
        }
        done
    };
    let mut slots: Vec<Option<Result<R>>> = (0..items.len()).map(|_| None).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = (1..workers)
            .map(|_| {
                s.spawn(|| {
                    let done = worker();
                    (done, probe::snapshot())
                })
            })
            .collect();
        for (i, r) in worker() {
            slots[i] = Some(r);
        }
        for h in handles {
            match h.join() {
                Ok((done, probes)) => {
                    for (i, r) in done {
                        slots[i] = Some(r);
                    }
                    for (name, n) in probes {
                        probe::hit_n(name, n);
                    }
                }
                // A decoder panicked (a bug): carry the panic to the caller.
                Err(e) => std::panic::resume_unwind(e),
            }
        }
    });
    slots.into_iter().map_while(|r| r).collect()
}

/// Streaming reads on several threads: each refill decodes, for every column short of
/// rows, its next pieces that cover the batch (and at least one per thread), all in one
/// pool. Pieces are planned one row group at a time, so at most a row group's pieces wait
/// planned (their bytes, not decoded) and at most a batch plus one piece per thread per
/// column (a piece is at most a few MiB decompressed, or one page) is decoded ahead.
pub(crate) struct ParallelFeed<S: Source> {
    file: FileDecoder<S>,
    columns: Vec<usize>,
    descs: Vec<ColumnDescriptor>,
    row_groups: VecDeque<usize>,
    queues: Vec<VecDeque<Piece>>,
    dec: Decompressor,
    /// Per column read as keys: the dictionary page of its last page range and the decoded
    /// dictionary its keys point into, which the later ranges of the chunk share.
    dictionaries: Vec<Option<(Bytes, std::sync::Arc<Column>)>>,
}

impl<S: Source> ParallelFeed<S> {
    pub(crate) fn new(file: &FileDecoder<S>, columns: &[usize]) -> Result<Self> {
        let descs = columns
            .iter()
            .map(|&c| Ok(file.column_reader(c)?.desc))
            .collect::<Result<Vec<_>>>()?;
        Ok(ParallelFeed {
            file: file.clone_handle(),
            columns: columns.to_vec(),
            descs,
            row_groups: file.selected_row_groups().into(),
            queues: columns.iter().map(|_| VecDeque::new()).collect(),
            dec: Decompressor::new(file.options.limits()),
            dictionaries: vec![None; columns.len()],
        })
    }

    /// Decode pieces until every column has `want` rows ready (`ready[i]` now) or is done;
    /// returns the decoded columns per requested column, in file order.
    pub(crate) fn fill(&mut self, ready: &[usize], want: usize) -> Result<Vec<Vec<Column>>> {
        let mut out: Vec<Vec<Column>> = vec![Vec::new(); self.columns.len()];
        let threads = self.file.options.threads.max(1);
        let mut take = Vec::new();
        for (i, &ready) in ready.iter().enumerate() {
            let (mut rows, mut taken) = (ready, 0);
            // Enough pieces to cover the batch and to keep every thread busy.
            while rows < want || (taken > 0 && taken < threads) {
                if self.queues[i].is_empty() && !self.plan_next_row_group()? {
                    break;
                }
                let Some(p) = self.queues[i].pop_front() else {
                    break;
                };
                rows += p.rows();
                taken += 1;
                take.push(p);
            }
        }
        let file = &self.file;
        for (p, mut col) in
            take.iter()
                .zip(file.decode_pieces(&take, &self.columns, &self.descs)?)
        {
            self.share_dictionary(p, &mut col);
            out[p.slot].push(col);
        }
        Ok(out)
    }

    /// Point the keys of `col` (piece `p`, decoded) at the dictionary the earlier ranges of
    /// its chunk decoded from the same page (the same bytes, so the same entries): keys
    /// into one dictionary stay keys when a batch spans two pieces ([`Column::concat`]),
    /// and the Arrow reader converts the dictionary once per chunk. Each piece decoded its
    /// own copy, on its own thread.
    fn share_dictionary(&mut self, p: &Piece, col: &mut Column) {
        let (Some((page, ..)), Values::Dictionary { dictionary, .. }) =
            (&p.dictionary, &mut col.values)
        else {
            return;
        };
        match &self.dictionaries[p.slot] {
            Some((seen, shared)) if seen.as_ptr() == page.as_ptr() && seen.len() == page.len() => {
                probe::hit("parallel.dictionary_shared");
                *dictionary = std::sync::Arc::clone(shared);
            }
            _ => {
                self.dictionaries[p.slot] = Some((page.clone(), std::sync::Arc::clone(dictionary)))
            }
        }
    }

    /// Plan the pieces of every column in the next row group; false when none is left.
    fn plan_next_row_group(&mut self) -> Result<bool> {
        let Some(rg) = self.row_groups.pop_front() else {
            return Ok(false);
        };
        let target = self.file.piece_target(&self.columns, &[rg]);
        let mut pieces = Vec::new();
        for (slot, (&c, desc)) in self.columns.iter().zip(&self.descs).enumerate() {
            self.file
                .plan_chunk(slot, c, desc, rg, target, &mut self.dec, &mut pieces)?;
        }
        for p in pieces {
            self.queues[p.slot].push_back(p);
        }
        Ok(true)
    }
}

impl<S: Source> FileDecoder<S> {
    /// A nested field over the selected row groups, one row group per piece on the reader's
    /// threads, joined in file order (`parallel.row_group` counts the pieces). Records never
    /// cross a column chunk, so row groups assemble on their own; the leaves of one field
    /// are cut at the same records, which page boundaries do not give without an offset
    /// index, so a row group is not split further.
    pub(crate) fn read_nested_parallel(
        &self,
        plan: &crate::schema::plan::FieldPlan,
    ) -> Result<Array> {
        let parts: Vec<FileDecoder<S>> = self
            .selected_row_groups()
            .into_iter()
            .map(|rg| {
                let mut part = self.clone_handle();
                part.options.row_groups = Some(vec![rg]);
                part.options.threads = 1;
                part
            })
            .collect();
        probe::hit_n("parallel.row_group", parts.len() as u64);
        let arrays = run(
            self.options.threads,
            self.options.limits(),
            &parts,
            |part, _| part.read_nested_whole(plan.clone()),
        )
        .into_iter()
        .collect::<Result<Vec<_>>>()?;
        match arrays.len() {
            0 => self.read_nested_whole(plan.clone()),
            1 => Ok(arrays.into_iter().next().expect("one part")),
            _ => concat_arrays(&arrays),
        }
    }
}

/// Bytes the chunks of `columns` in `row_groups` decompress to, as the footer says (a
/// measure of the work, never of an allocation).
pub(crate) fn uncompressed_bytes(
    meta: &metadata::FileMetaData,
    columns: &[usize],
    row_groups: &[usize],
) -> u64 {
    row_groups
        .iter()
        .filter_map(|&rg| meta.row_groups.get(rg))
        .flat_map(|g| columns.iter().filter_map(|&c| g.columns.get(c)))
        .filter_map(|chunk| chunk.meta_data.as_ref())
        .map(|m| m.total_uncompressed_size.max(0) as u64)
        .fold(0u64, u64::saturating_add)
}

/// Join arrays of one shape end to end (list offsets are rebased; i32 offsets become i64
/// when the children no longer fit).
fn concat_arrays(parts: &[Array]) -> Result<Array> {
    let mismatch = || Error::format("row groups assemble to different shapes");
    let validity = |parts: &[Array]| -> Option<NullBuffer> {
        if parts.iter().all(|a| a.validity().is_none()) {
            return None;
        }
        let len = parts.iter().map(Array::len).sum();
        let mut b = BooleanBufferBuilder::new(len);
        for a in parts {
            match a.validity() {
                Some(v) => b.append_buffer(v.inner()),
                None => b.append_n(a.len(), true),
            }
        }
        Some(NullBuffer::new(b.finish())).filter(|n| n.null_count() > 0)
    };
    Ok(match &parts[0] {
        Array::Primitive(_) => {
            let cols = parts
                .iter()
                .map(|a| a.as_primitive().cloned().ok_or_else(mismatch))
                .collect::<Result<Vec<_>>>()?;
            Array::Primitive(Column::concat(&cols))
        }
        Array::Struct(first) => {
            let structs = parts
                .iter()
                .map(|a| match a {
                    Array::Struct(s) if s.children.len() == first.children.len() => Ok(s),
                    _ => Err(mismatch()),
                })
                .collect::<Result<Vec<_>>>()?;
            let children = (0..first.children.len())
                .map(|k| {
                    let c: Vec<Array> = structs.iter().map(|s| s.children[k].clone()).collect();
                    concat_arrays(&c)
                })
                .collect::<Result<Vec<_>>>()?;
            Array::Struct(StructArray {
                len: structs.iter().map(|s| s.len).sum(),
                validity: validity(parts),
                children,
            })
        }
        Array::List(_) | Array::Map(_) => {
            let is_map = matches!(parts[0], Array::Map(_));
            let lists = parts
                .iter()
                .map(|a| match a {
                    Array::List(l) if !is_map => Ok(l),
                    Array::Map(l) if is_map => Ok(l),
                    _ => Err(mismatch()),
                })
                .collect::<Result<Vec<_>>>()?;
            // Each part's offsets rebased past the children before it; the children are
            // sliced to the range their offsets use.
            let mut offsets = vec![0i64];
            let mut children = Vec::with_capacity(lists.len());
            for l in &lists {
                let n = l.offsets.len();
                let (first, last) = if n == 0 {
                    (0, 0)
                } else {
                    (l.offsets.range(0).start, l.offsets.range(n - 1).end)
                };
                let base = *offsets.last().expect("non-empty") - first as i64;
                offsets.extend((0..n).map(|i| l.offsets.range(i).end as i64 + base));
                children.push(l.values.slice(first, last - first));
            }
            let all_small = lists
                .iter()
                .all(|l| matches!(l.offsets, ListOffsets::Small(_)));
            let small = offsets
                .iter()
                .map(|&o| i32::try_from(o).ok())
                .collect::<Option<Vec<i32>>>()
                .filter(|_| all_small);
            let offsets = match small {
                Some(small) => ListOffsets::Small(OffsetBuffer::new(small.into())),
                None => ListOffsets::Large(OffsetBuffer::new(offsets.into())),
            };
            let list = ListArray {
                validity: validity(parts),
                offsets,
                values: Box::new(concat_arrays(&children)?),
            };
            if is_map {
                Array::Map(list)
            } else {
                Array::List(list)
            }
        }
    })
}

/// A place in a joined column's reserved buffers that threads write to.
#[derive(Clone, Copy)]
struct Dst(*mut u8);

// SAFETY: a `Dst` is only an address: the buffer it points into outlives every thread of the
// read (it belongs to the caller's stack frame, reserved before the threads start and never
// reallocated while they run), and each thread writes only the disjoint range that it
// claimed under the join's lock (`Sink::place`).
unsafe impl Send for Dst {}
// SAFETY: as for `Send`: threads sharing a `Dst` each write only the disjoint range placed for
// their piece (`Sink::place`, or `places` of a `Direct` column), and none reads through it.
unsafe impl Sync for Dst {}

/// The buffers of a column joined while its pieces are decoded, reserved once.
enum Joined {
    /// Fixed-width values (`Int32`, `Int64`, `Float`, `Double`, `Int96` or
    /// `FixedLenByteArray`) as a vector of their own alignment, `width` bytes a slot.
    Fixed(FixedBuf, usize),
    /// Offsets (the leading 0 pushed) and value bytes.
    Binary(Vec<i64>, Vec<u8>),
}

/// A fixed-width output vector, by alignment.
enum FixedBuf {
    I32(Vec<i32>),
    I64(Vec<i64>),
    F32(Vec<f32>),
    F64(Vec<f64>),
    /// INT96 (`None`) or FIXED_LEN_BYTE_ARRAY of a width.
    Bytes(Vec<u8>, Option<usize>),
}

/// The bytes of a fixed-width column's values, with the layout's width and a tag that
/// must match the joined buffer's.
fn fixed_bytes(values: &Values) -> Option<(&[u8], usize, u8)> {
    Some(match values {
        Values::Int32(s) => (bytemuck::cast_slice(&s[..]), 4, 0),
        Values::Int64(s) => (bytemuck::cast_slice(&s[..]), 8, 1),
        Values::Float(s) => (bytemuck::cast_slice(&s[..]), 4, 2),
        Values::Double(s) => (bytemuck::cast_slice(&s[..]), 8, 3),
        Values::Int96(d) => (&d[..], 12, 4),
        Values::FixedLenByteArray { width, data } => (&data[..], *width, 5),
        _ => return None,
    })
}

impl FixedBuf {
    fn tag(&self) -> u8 {
        match self {
            FixedBuf::I32(_) => 0,
            FixedBuf::I64(_) => 1,
            FixedBuf::F32(_) => 2,
            FixedBuf::F64(_) => 3,
            FixedBuf::Bytes(_, None) => 4,
            FixedBuf::Bytes(_, Some(_)) => 5,
        }
    }

    fn start(&mut self) -> Dst {
        Dst(match self {
            FixedBuf::I32(v) => v.as_mut_ptr().cast(),
            FixedBuf::I64(v) => v.as_mut_ptr().cast(),
            FixedBuf::F32(v) => v.as_mut_ptr().cast(),
            FixedBuf::F64(v) => v.as_mut_ptr().cast(),
            FixedBuf::Bytes(v, _) => v.as_mut_ptr(),
        })
    }
}

/// One column of a joined read: its reserved buffers and which of its pieces are placed.
struct Sink {
    /// `None`: the column's pieces are kept and joined at the end ([`Column::concat`]).
    out: Option<Joined>,
    /// Where slots go: fixed-width values, or the offsets after the leading 0.
    slots_at: Dst,
    /// Where value bytes go (byte arrays).
    bytes_at: Dst,
    /// Slots and value bytes reserved.
    slot_cap: usize,
    byte_cap: usize,
    /// Slots and value bytes placed so far.
    slots: usize,
    bytes: usize,
    /// The column's pieces not yet placed (indices into the read's pieces), in file order.
    waiting: VecDeque<usize>,
    /// Each placed piece's slots and validity.
    validity: Vec<(usize, Option<NullBuffer>)>,
    /// Pieces that are not placed (a layout joined serially, or from a piece that did not
    /// fit the reservation on), in file order.
    kept: Vec<Column>,
}

/// A piece placed in its column's buffers, to be copied there by the thread that placed it.
struct Placed {
    column: Column,
    slots_at: Dst,
    bytes_at: Dst,
    /// Added to the piece's offsets (byte arrays).
    rebase: i64,
}

/// The most slots a joined column reserves (a hint from the page headers).
const MAX_JOIN_SLOTS: u64 = 1 << 28;

impl Sink {
    /// A sink for a column of `pieces` (indices into `all`) of type `desc`; `max_bytes` caps
    /// what the file's sizes may reserve (as [`ParquetReader::value_bytes_hint`] does).
    fn new(
        pieces: Vec<usize>,
        all: &[Piece],
        desc: &ColumnDescriptor,
        layout: ByteArrayLayout,
        max_bytes: u64,
    ) -> Sink {
        let mut sink = Sink {
            out: None,
            slots_at: Dst(std::ptr::null_mut()),
            bytes_at: Dst(std::ptr::null_mut()),
            slot_cap: 0,
            byte_cap: 0,
            slots: 0,
            bytes: 0,
            waiting: pieces.iter().copied().collect(),
            validity: Vec::new(),
            kept: Vec::new(),
        };
        if pieces.len() < 2 {
            return sink;
        }
        // Counts from the page headers: a hint only, capped (a piece past them is kept).
        let slots = pieces
            .iter()
            .map(|&i| all[i].num_values.max(0) as u64)
            .fold(0u64, u64::saturating_add)
            .min(MAX_JOIN_SLOTS) as usize;
        let width = desc
            .type_length
            .and_then(|w| usize::try_from(w).ok())
            .filter(|w| (1..=MAX_TYPE_LENGTH).contains(w));
        let mut buf = match (desc.physical_type, layout) {
            (Type::BYTE_ARRAY, ByteArrayLayout::Offsets) => {
                // Byte arrays of PLAIN pages take fewer bytes than their pages; others may
                // take more, and what does not fit is joined serially.
                let bytes = pieces
                    .iter()
                    .map(|&i| all[i].weight)
                    .fold(0u64, u64::saturating_add)
                    .min(max_bytes) as usize;
                let (mut offsets, mut data) = (vec![0i64], Vec::new());
                memory::reserve_huge(&mut offsets, slots);
                memory::reserve_huge(&mut data, bytes);
                sink.slot_cap = slots;
                sink.byte_cap = bytes;
                // SAFETY: `offsets` holds the leading 0, so one past its start is inside (or
                // one past the end of) its allocation.
                sink.slots_at = Dst(unsafe { offsets.as_mut_ptr().add(1) }.cast());
                sink.bytes_at = Dst(data.as_mut_ptr());
                sink.out = Some(Joined::Binary(offsets, data));
                return sink;
            }
            (Type::INT32, _) => FixedBuf::I32(Vec::new()),
            (Type::INT64, _) => FixedBuf::I64(Vec::new()),
            (Type::FLOAT, _) => FixedBuf::F32(Vec::new()),
            (Type::DOUBLE, _) => FixedBuf::F64(Vec::new()),
            (Type::INT96, _) => FixedBuf::Bytes(Vec::new(), None),
            (Type::FIXED_LEN_BYTE_ARRAY, _) if width.is_some() => {
                FixedBuf::Bytes(Vec::new(), width)
            }
            _ => return sink,
        };
        let width = match &buf {
            FixedBuf::I32(_) | FixedBuf::F32(_) => 4,
            FixedBuf::I64(_) | FixedBuf::F64(_) => 8,
            FixedBuf::Bytes(_, w) => w.unwrap_or(12),
        };
        let slots = slots.min((max_bytes / width as u64) as usize);
        match &mut buf {
            FixedBuf::I32(v) => memory::reserve_huge(v, slots),
            FixedBuf::I64(v) => memory::reserve_huge(v, slots),
            FixedBuf::F32(v) => memory::reserve_huge(v, slots),
            FixedBuf::F64(v) => memory::reserve_huge(v, slots),
            FixedBuf::Bytes(v, _) => memory::reserve_huge(v, slots * width),
        }
        sink.slot_cap = slots;
        sink.slots_at = buf.start();
        sink.out = Some(Joined::Fixed(buf, width));
        sink
    }
    /// Place `column`, the next piece in file order: claim room for it past the pieces
    /// before it, or keep it (with every later piece) when it does not fit.
    fn place(&mut self, column: Column) -> Option<Placed> {
        let fits = self.kept.is_empty()
            && self
                .slots
                .checked_add(column.len)
                .is_some_and(|s| s <= self.slot_cap);
        let (bytes, rebase) = match (&self.out, &column.values) {
            (Some(Joined::Binary(..)), Values::Binary { offsets, .. }) => {
                let first = offsets[0];
                let n = (offsets[offsets.len() - 1] - first) as usize;
                (n, self.bytes as i64 - first)
            }
            (Some(Joined::Fixed(buf, width)), v)
                if fixed_bytes(v).is_some_and(|(_, w, t)| w == *width && t == buf.tag()) =>
            {
                (0, 0)
            }
            _ => {
                self.kept.push(column);
                return None;
            }
        };
        if !fits
            || self
                .bytes
                .checked_add(bytes)
                .is_none_or(|b| b > self.byte_cap)
                && bytes > 0
        {
            self.kept.push(column);
            return None;
        }
        let width = match &self.out {
            Some(Joined::Fixed(_, w)) => *w,
            _ => 8,
        };
        // SAFETY: both stay inside the reserved buffers (`slots + len <= slot_cap`, `bytes +
        // n <= byte_cap`, just checked), whose capacity is `slot_cap` slots of `width` bytes
        // and `byte_cap` bytes past their starts.
        let (slots_at, bytes_at) = unsafe {
            (
                Dst(self.slots_at.0.add(self.slots * width)),
                Dst(self.bytes_at.0.wrapping_add(self.bytes)),
            )
        };
        self.slots += column.len;
        self.bytes += bytes;
        self.validity.push((column.len, column.validity.clone()));
        Some(Placed {
            column,
            slots_at,
            bytes_at,
            rebase,
        })
    }

    /// The joined column, once every thread is done; `None` for a column with no piece.
    ///
    /// # Safety
    /// Every [`Placed`] that [`Sink::place`] returned has been copied ([`Placed::copy`]).
    unsafe fn finish(self) -> Option<Column> {
        let Some(out) = self.out else {
            return match self.kept.len() {
                0 => None,
                1 => self.kept.into_iter().next(),
                _ => Some(Column::concat(&self.kept)),
            };
        };
        probe::hit("parallel.join");
        let (slots, bytes) = (self.slots, self.bytes);
        /// # Safety: the first `n` elements of `v`'s spare capacity are initialised.
        unsafe fn filled<T>(mut v: Vec<T>, n: usize) -> Vec<T> {
            // SAFETY: the caller's contract.
            unsafe { v.set_len(v.len() + n) };
            v
        }
        // SAFETY: (each `filled`) the placed pieces cover `slots` slots (`slots * width`
        // bytes, or `slots` offsets after the leading 0) and `bytes` value bytes from the
        // buffers' starts, back to back, and this function's contract says each was copied.
        let values = unsafe {
            match out {
                Joined::Fixed(FixedBuf::I32(v), _) => Values::Int32(filled(v, slots).into()),
                Joined::Fixed(FixedBuf::I64(v), _) => Values::Int64(filled(v, slots).into()),
                Joined::Fixed(FixedBuf::F32(v), _) => Values::Float(filled(v, slots).into()),
                Joined::Fixed(FixedBuf::F64(v), _) => Values::Double(filled(v, slots).into()),
                Joined::Fixed(FixedBuf::Bytes(v, None), _) => {
                    Values::Int96(Buffer::from_vec(filled(v, slots * 12)))
                }
                Joined::Fixed(FixedBuf::Bytes(v, Some(width)), _) => Values::FixedLenByteArray {
                    width,
                    data: Buffer::from_vec(filled(v, slots * width)),
                },
                Joined::Binary(offsets, data) => {
                    let offsets = ScalarBuffer::from(filled(offsets, slots));
                    // SAFETY: each piece's offsets (an `OffsetBuffer`: from 0 or more, never
                    // decreasing) were rebased to start where the piece before ended, the
                    // first at the leading 0: the whole never decreases either.
                    let offsets = OffsetBuffer::new_unchecked(offsets);
                    Values::Binary {
                        offsets,
                        data: Buffer::from_vec(filled(data, bytes)),
                    }
                }
            }
        };
        let validity = if self.validity.iter().any(|(_, v)| v.is_some()) {
            let mut b = BooleanBufferBuilder::new(slots);
            for (len, v) in &self.validity {
                match v {
                    Some(v) => b.append_buffer(v.inner()),
                    None => b.append_n(*len, true),
                }
            }
            Some(NullBuffer::new(b.finish()))
        } else {
            None
        };
        let joined = Column {
            len: slots,
            validity,
            values,
        };
        if self.kept.is_empty() {
            return Some(joined);
        }
        probe::hit("parallel.join_overflow");
        let mut parts = vec![joined];
        parts.extend(self.kept);
        Some(Column::concat(&parts))
    }
}

impl Placed {
    /// Copy the piece into the room placed for it, then drop it (its buffers go back to the
    /// decoder that made them).
    fn copy(self) {
        match &self.column.values {
            Values::Binary { offsets, data } => {
                let o = &offsets[..];
                let (first, last) = (o[0] as usize, o[o.len() - 1] as usize);
                let src = &data[first..last];
                // SAFETY: `Sink::place` claimed `o.len() - 1` offsets at `slots_at` (aligned
                // for i64: the offsets vector's start plus whole slots) and `src.len()`
                // bytes at `bytes_at` for this piece alone, inside reserved capacity that no
                // one reads until every thread is done; `src` is another allocation.
                unsafe {
                    let dst = std::slice::from_raw_parts_mut(
                        self.slots_at.0.cast::<std::mem::MaybeUninit<i64>>(),
                        o.len() - 1,
                    );
                    for (d, s) in dst.iter_mut().zip(&o[1..]) {
                        d.write(s + self.rebase);
                    }
                    std::ptr::copy_nonoverlapping(src.as_ptr(), self.bytes_at.0, src.len());
                }
            }
            v => {
                if let Some((src, _, _)) = fixed_bytes(v) {
                    // SAFETY: `Sink::place` claimed `len * width` bytes (the length of
                    // `src`) at `slots_at` for this piece alone, inside reserved capacity
                    // that no one reads until every thread is done; `src` is another
                    // allocation.
                    unsafe {
                        std::ptr::copy_nonoverlapping(src.as_ptr(), self.slots_at.0, src.len())
                    }
                }
            }
        }
    }
}

/// A column of byte arrays decoded in place: every piece is PLAIN pages of a required column
/// ([`Piece::plain_bytes`]), so its slots and value bytes are known from its headers and each
/// piece's part of one output is placed before any is decoded. The threads then decode
/// straight into it, in any order: no piece buffer, no copy, no waiting for the pieces
/// before. A piece whose pages do not match their headers is decoded again the usual way,
/// with its whole column (`parallel.direct_fallback`).
struct Direct {
    /// The leading 0, then room for `slots` offsets.
    offsets: Vec<i64>,
    /// Room for `bytes` value bytes.
    data: Vec<u8>,
    slots: usize,
    bytes: usize,
}

/// Where the threads write a [`Direct`] column, and whether a piece fell back.
struct DirectAt {
    /// The first offset after the leading 0.
    offsets: Dst,
    data: Dst,
    fell_back: AtomicBool,
}

impl Direct {
    /// A column of `pieces` (indices into `all`) decoded in place, when they are all placed
    /// from their headers (at least two of them: one piece is not joined at all) and the
    /// output fits `max_bytes` (as [`Sink::new`]'s; also the read's memory budget).
    fn new(
        pieces: &[usize],
        all: &[Piece],
        desc: &ColumnDescriptor,
        layout: ByteArrayLayout,
        max_bytes: u64,
    ) -> Option<Direct> {
        if pieces.len() < 2
            || desc.physical_type != Type::BYTE_ARRAY
            || layout != ByteArrayLayout::Offsets
            || desc.max_def_level != 0
            || desc.max_rep_level != 0
        {
            return None;
        }
        let (mut slots, mut bytes, mut stored) = (0u64, 0u64, 0u64);
        for &i in pieces {
            slots = slots.checked_add(all[i].num_values.max(0) as u64)?;
            bytes = bytes.checked_add(all[i].plain_bytes?)?;
            stored = stored.saturating_add(all[i].bytes.len() as u64);
        }
        // The sizes come from page headers: reserve up front only what the stored pages can
        // plausibly decompress to (as `value_bytes_hint` caps), else decode the usual way.
        if bytes > stored.saturating_mul(MAX_EXPANSION) {
            return None;
        }
        // What a one-thread read charges to its budget: offsets, the pages' values (bytes and
        // length prefixes), validity bits; past it, the usual decode reports the error.
        let output = slots
            .checked_mul(12)?
            .checked_add(slots / 8)?
            .checked_add(bytes)?;
        if slots > MAX_JOIN_SLOTS || output > max_bytes {
            return None;
        }
        let (slots, bytes) = (slots as usize, bytes as usize);
        let (mut offsets, mut data) = (vec![0i64], Vec::new());
        memory::reserve_huge(&mut offsets, slots);
        memory::reserve_huge(&mut data, bytes);
        Some(Direct {
            offsets,
            data,
            slots,
            bytes,
        })
    }

    fn at(&mut self) -> DirectAt {
        DirectAt {
            // SAFETY: `offsets` holds the leading 0, so one past its start is inside (or one
            // past the end of) its allocation.
            offsets: Dst(unsafe { self.offsets.as_mut_ptr().add(1) }.cast()),
            data: Dst(self.data.as_mut_ptr()),
            fell_back: AtomicBool::new(false),
        }
    }

    /// The decoded column.
    ///
    /// # Safety
    /// Every piece of the column filled exactly its room ([`ParquetReader::decode_direct`]
    /// returned true for each), writing `slots` offsets and `bytes` value bytes in all.
    unsafe fn finish(mut self) -> Column {
        probe::hit("parallel.join_direct");
        // SAFETY: the caller's contract: the rooms of the pieces tile the first `slots`
        // offsets after the leading 0 and the first `bytes` value bytes, each written.
        unsafe {
            self.offsets.set_len(1 + self.slots);
            self.data.set_len(self.bytes);
        }
        let offsets = ScalarBuffer::from(self.offsets);
        // SAFETY: the first piece's offsets start from the leading 0 and each piece's from
        // where its bytes start, which is where the piece before ended (its room was exactly
        // filled); within a piece each offset adds a value's length: never decreasing.
        let offsets = unsafe { OffsetBuffer::new_unchecked(offsets) };
        Column {
            len: self.slots,
            validity: None,
            values: Values::Binary {
                offsets,
                data: Buffer::from_vec(self.data),
            },
        }
    }
}

/// Pieces decoded, with the pieces placed and not yet placed.
struct JoinState {
    /// Decoded pieces waiting for the pieces before them in their column.
    done: Vec<Option<Column>>,
    sinks: Vec<Sink>,
}

impl<S: Source> FileDecoder<S> {
    /// Decode `pieces` on the reader's threads and join each column's pieces as they come
    /// (one column per descriptor, `None` for a column with no piece).
    ///
    /// Each column's output is reserved once (slots from the page headers, value bytes of
    /// byte arrays from the pages' decompressed sizes; huge pages advised), and a decoded
    /// piece is copied straight into its part of it by the thread that decoded it, once the
    /// pieces before it in its column are decoded (their sizes place it); it is then
    /// dropped, and its buffers go back to its decoder, which each thread keeps per column
    /// for its next piece. So the threads write the output in parallel, and decode into a
    /// few buffers already faulted in rather than into fresh ones for every piece.
    fn decode_joined(
        &self,
        pieces: &[Piece],
        descs: &[ColumnDescriptor],
    ) -> Result<Vec<Option<Column>>> {
        for p in pieces {
            probe::hit(if p.range {
                "parallel.page_range"
            } else {
                "parallel.chunk"
            });
        }
        let mut order: Vec<Vec<usize>> = vec![Vec::new(); descs.len()];
        for (i, p) in pieces.iter().enumerate() {
            order[p.slot].push(i);
        }
        let max_bytes = self
            .source
            .len()
            .saturating_mul(MAX_EXPANSION)
            .min(MAX_RESERVE_BYTES)
            .min(self.options.max_memory);
        // Columns whose pieces are all placed from their headers decode in place; the others
        // join as they are decoded.
        let layout = self.options.byte_array_layout;
        let mut direct: Vec<Option<Direct>> = order
            .iter()
            .zip(descs)
            .map(|(o, desc)| Direct::new(o, pieces, desc, layout, max_bytes))
            .collect();
        let mut places = vec![(0usize, 0usize); pieces.len()];
        let mut direct_at = Vec::with_capacity(direct.len());
        for (o, d) in order.iter_mut().zip(&mut direct) {
            direct_at.push(d.as_mut().map(|d| {
                let (mut slots, mut bytes) = (0, 0);
                for &i in o.iter() {
                    places[i] = (slots, bytes);
                    slots += pieces[i].rows();
                    bytes += pieces[i].plain_bytes.unwrap_or(0) as usize;
                }
                o.clear();
                d.at()
            }));
        }
        let sinks = order
            .into_iter()
            .zip(descs)
            .map(|(o, desc)| Sink::new(o, pieces, desc, layout, max_bytes))
            .collect();
        let state = Mutex::new(JoinState {
            done: (0..pieces.len()).map(|_| None).collect(),
            sinks,
        });
        let indices: Vec<usize> = (0..pieces.len()).collect();
        let limits = self.options.limits();
        // Each column's parts are charged together: the budget bounds the column.
        let charges: Vec<Arc<AtomicU64>> = descs.iter().map(|_| Arc::default()).collect();
        let decoder = |slot: usize| -> Result<ChunkDecoder> {
            Ok(self
                .decoder_for(&descs[slot])?
                .with_shared_charge(Arc::clone(&charges[slot])))
        };
        let results = run_with(
            self.options.threads,
            &indices,
            || {
                let decoders: Vec<Option<ChunkDecoder>> = descs.iter().map(|_| None).collect();
                (Decompressor::new(limits), decoders)
            },
            |&i, (dec, decoders)| {
                let piece = &pieces[i];
                let desc = &descs[piece.slot];
                if let Some(at) = &direct_at[piece.slot] {
                    let (slot, byte) = places[i];
                    let bytes = piece.plain_bytes.unwrap_or(0) as usize;
                    // SAFETY: `places` tiles each direct column's slots and value bytes, piece
                    // after piece, inside the room `Direct::new` reserved for them all (their
                    // sums): this piece's `rows()` offsets from `slot` and `bytes` bytes from
                    // `byte` are inside that capacity, and no other piece (on any thread)
                    // writes them; nothing reads them until every thread is done. Both are
                    // spare capacity seen as `MaybeUninit`, and the buffers are not touched
                    // through their vectors while the threads run.
                    let (offsets, data) = unsafe {
                        (
                            std::slice::from_raw_parts_mut(
                                at.offsets.0.cast::<std::mem::MaybeUninit<i64>>().add(slot),
                                piece.rows(),
                            ),
                            std::slice::from_raw_parts_mut(
                                at.data.0.cast::<std::mem::MaybeUninit<u8>>().add(byte),
                                bytes,
                            ),
                        )
                    };
                    if self.decode_direct(piece, desc, dec, byte as i64, offsets, data) {
                        probe::hit("parallel.direct");
                        return Ok(());
                    }
                    // Decoded as any other piece, for the error a one-thread read would
                    // report; the column is decoded again after the threads when there is
                    // none (sizes that the headers did not say).
                    let decoder = match &mut decoders[piece.slot] {
                        Some(d) => d,
                        slot => slot.insert(decoder(piece.slot)?),
                    };
                    self.decode_piece_with(piece, desc, decoder, dec)?;
                    at.fell_back.store(true, Ordering::Relaxed);
                    return Ok(());
                }
                let decoder = match &mut decoders[piece.slot] {
                    Some(d) => d,
                    slot => slot.insert(decoder(piece.slot)?),
                };
                let column = self.decode_piece_with(piece, desc, decoder, dec)?;
                let placed = {
                    let mut st = state.lock().map_err(|_| poisoned())?;
                    let st = &mut *st;
                    st.done[i] = Some(column);
                    let sink = &mut st.sinks[piece.slot];
                    let mut placed = Vec::new();
                    while let Some(&j) = sink.waiting.front() {
                        let Some(c) = st.done[j].take() else { break };
                        sink.waiting.pop_front();
                        placed.extend(sink.place(c));
                    }
                    placed
                };
                for p in placed {
                    p.copy();
                }
                Ok(())
            },
        );
        let done = results.len();
        results.into_iter().collect::<Result<Vec<()>>>()?;
        if done != pieces.len() {
            return Err(Error::internal("a piece was not decoded"));
        }
        let state = state.into_inner().map_err(|_| poisoned())?;
        if state.done.iter().any(Option::is_some) {
            return Err(Error::internal("a decoded piece was not joined"));
        }
        let mut out = Vec::with_capacity(descs.len());
        for (slot, (sink, d)) in state.sinks.into_iter().zip(direct).enumerate() {
            let fell_back = direct_at[slot]
                .as_ref()
                .is_some_and(|at| at.fell_back.load(Ordering::Relaxed));
            out.push(match d {
                Some(_) if fell_back => Some(self.decode_column_again(slot, pieces, descs)?),
                // SAFETY: every thread is done and no piece of the column fell back: each
                // filled exactly its room ([`Self::decode_direct`]), and the rooms tile the
                // column's slots and bytes.
                Some(d) => Some(unsafe { d.finish() }),
                // SAFETY: every thread is done, and each copied what it placed before taking
                // its next piece (a thread that panicked carried the panic out of `run_with`).
                None => unsafe { sink.finish() },
            });
        }
        Ok(out)
    }
}

impl<S: Source> FileDecoder<S> {
    /// The pieces of column `slot` decoded one by one and joined: a column decoded in place
    /// some piece of which did not fill the room its headers placed.
    fn decode_column_again(
        &self,
        slot: usize,
        pieces: &[Piece],
        descs: &[ColumnDescriptor],
    ) -> Result<Column> {
        probe::hit("parallel.direct_fallback");
        let desc = &descs[slot];
        let charge = Arc::new(AtomicU64::new(0));
        let parts = run(
            self.options.threads,
            self.options.limits(),
            &pieces.iter().filter(|p| p.slot == slot).collect::<Vec<_>>(),
            |p, dec| {
                let mut decoder = self
                    .decoder_for(desc)?
                    .with_shared_charge(Arc::clone(&charge));
                self.decode_piece_with(p, desc, &mut decoder, dec)
            },
        )
        .into_iter()
        .collect::<Result<Vec<_>>>()?;
        Ok(Column::concat(&parts))
    }
}

fn poisoned() -> Error {
    Error::internal("a thread of the read panicked")
}
