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

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use arrow_buffer::{BooleanBufferBuilder, NullBuffer, OffsetBuffer};
use bytes::Bytes;
use parq_codecs::compression::{CodecKind, Decompressor};
use parq_codecs::probe;

use super::decode::ChunkDecoder;
use super::drive::PushDriver;
use super::file::ParquetReader;
use super::page::{Page, PageReader};
use super::push::whole::WholeItem;
use super::source::Source;
use crate::array::{Array, ListArray, ListOffsets, StructArray};
use crate::column::Column;
use crate::error::Location;
use crate::metadata::{self, PageType};
use crate::schema::ColumnDescriptor;
use crate::{Error, Result};

/// Pieces each thread should get in a read, so that the last ones to finish are small.
const PIECES_PER_THREAD: u64 = 4;
/// Smallest page range worth a piece of its own (decompressed bytes).
const MIN_PIECE: u64 = 64 << 10;
/// Largest page range a piece aims at (decompressed bytes): bounds what streaming reads
/// decode ahead.
const MAX_PIECE: u64 = 8 << 20;
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
    /// Decompressed bytes of the pages, as their headers (or the footer) declare.
    weight: u64,
    /// The chunk's decompressed dictionary page, for a page range after it.
    dictionary: Option<(Bytes, usize, Location)>,
    codec: CodecKind,
    /// True for a page range, false for a whole chunk.
    range: bool,
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
    /// let options = ReadOptions { threads: 2, ..ReadOptions::default() };
    /// let reader = ParquetReader::with_options(bytes::Bytes::from(file), options)?;
    /// let columns = reader.read_leaves(&[0, 1])?;
    /// assert_eq!(columns[1].bytes(2), Some(&b"bc"[..]));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn read_leaves(&self, columns: &[usize]) -> Result<Vec<Column>> {
        let items = columns.iter().map(|&c| WholeItem::Leaf(c)).collect();
        PushDriver::whole(self, items)?
            .into_iter()
            .map(|a| match a {
                Array::Primitive(c) => Ok(c),
                _ => Err(Error::format("internal: a leaf read to a nested array")),
            })
            .collect()
    }

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
        let target = self.piece_target(columns, &row_groups);
        let mut pieces = Vec::new();
        let mut dec = Decompressor::new(self.options.limits);
        for &rg in &row_groups {
            for (slot, (&c, desc)) in columns.iter().zip(&descs).enumerate() {
                self.plan_chunk(slot, c, desc, rg, target, &mut dec, &mut pieces)?;
            }
        }
        let mut parts: Vec<Vec<Column>> = vec![Vec::new(); columns.len()];
        for (piece, col) in pieces.iter().zip(self.decode_pieces(&pieces, &descs)?) {
            parts[piece.slot].push(col);
        }
        parts
            .into_iter()
            .zip(&descs)
            .map(|(mut p, desc)| {
                Ok(match p.len() {
                    0 => self.decoder_for(desc)?.finish(),
                    1 => p.pop().expect("one piece"),
                    _ => Column::concat(&p),
                })
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
        let total = row_groups
            .iter()
            .filter_map(|&rg| self.metadata.row_groups[rg].columns.get(column))
            .filter_map(|chunk| chunk.meta_data.as_ref())
            .map(|m| m.total_uncompressed_size.max(0) as u64)
            .fold(0u64, u64::saturating_add);
        let cap = self.source.len().saturating_mul(MAX_EXPANSION);
        total.min(cap).min(MAX_RESERVE_BYTES) as usize
    }

    /// Decompressed bytes a page range should hold: the read's share per piece, from the
    /// footer's sizes (only a target: nothing is allocated by it).
    pub(crate) fn piece_target(&self, columns: &[usize], row_groups: &[usize]) -> u64 {
        let total: u64 = row_groups
            .iter()
            .flat_map(|&rg| {
                let chunks = &self.metadata.row_groups[rg].columns;
                columns.iter().filter_map(move |&c| chunks.get(c))
            })
            .filter_map(|chunk| chunk.meta_data.as_ref())
            .map(|m| m.total_uncompressed_size.max(0) as u64)
            .fold(0u64, u64::saturating_add);
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
        let whole = |bytes: Bytes, offset: u64, num_values: i64| Piece {
            slot,
            bytes,
            offset,
            first_page: 0,
            num_values,
            weight: meta.total_uncompressed_size.max(0) as u64,
            dictionary: None,
            codec,
            range: false,
            loc: loc.clone(),
        };
        let rows = self.metadata.row_groups[rg].num_rows.max(0) as u64;
        super::file::check_chunk_values(desc, meta.num_values, rows, &loc)?;
        if meta.num_values == 0 {
            out.push(whole(Bytes::new(), 0, 0));
            return Ok(());
        }
        let (start, end) = self.chunk_range(chunk, &loc)?;
        let bytes = self.source.read(start..end)?;
        let spans = match walk_pages(&bytes, meta.num_values) {
            Some(s) if s.iter().filter(|p| p.data).count() > 1 => s,
            _ => {
                out.push(whole(bytes, start, meta.num_values));
                return Ok(());
            }
        };
        let total: u64 = spans.iter().map(|p| p.weight).sum();
        if total <= target + target / 2 {
            out.push(whole(bytes, start, meta.num_values));
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
                Ok(Some(Page::Dictionary { values, num_values })) => {
                    dictionary = Some((values, num_values, pages.last_location()));
                }
                // Let the one-piece decode report it, as a one-thread read does.
                _ => {
                    out.push(whole(bytes, start, meta.num_values));
                    return Ok(());
                }
            }
            first = 1;
        }
        let mut range_start = if first == 1 { spans[0].end } else { 0 };
        let mut range_first = first;
        let (mut weight, mut values) = (0u64, 0i64);
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
                    weight,
                    dictionary: dictionary.clone(),
                    codec,
                    range: true,
                    loc: loc.clone(),
                });
                range_start = span.end;
                range_first = i + 1;
                (weight, values) = (0, 0);
            }
        }
        Ok(())
    }

    /// Decode `pieces` on the reader's threads; the columns come back in the pieces' order
    /// (the first error in that order wins).
    pub(crate) fn decode_pieces(
        &self,
        pieces: &[Piece],
        descs: &[ColumnDescriptor],
    ) -> Result<Vec<Column>> {
        for p in pieces {
            probe::hit(if p.range {
                "parallel.page_range"
            } else {
                "parallel.chunk"
            });
        }
        let results = run(
            self.options.threads,
            self.options.limits,
            pieces,
            |p, dec| self.decode_piece(p, &descs[p.slot], dec),
        );
        results.into_iter().collect()
    }

    fn decode_piece(
        &self,
        piece: &Piece,
        desc: &ColumnDescriptor,
        dec: &mut Decompressor,
    ) -> Result<Column> {
        let mut decoder = self.decoder_for(desc)?;
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
        let mut pages = PageReader::new(
            piece.bytes.clone(),
            piece.offset,
            piece.codec,
            piece.num_values,
            (desc.max_rep_level, desc.max_def_level),
            self.options.verify_crc,
            piece.loc.clone(),
        )
        .first_page(piece.first_page);
        while let Some(page) = pages.next_page(dec)? {
            let loc = pages.last_location();
            match page {
                Page::Dictionary { values, num_values } => decoder
                    .set_dictionary(values, num_values)
                    .map_err(|e| e.at(&loc))?,
                Page::Data(page) => {
                    if page.num_values > self.options.max_page_values {
                        return Err(Error::format(format!(
                            "page of {} values exceeds the limit of {} (ReadOptions::max_page_values)",
                            page.num_values, self.options.max_page_values
                        ))
                        .at(&loc));
                    }
                    decoder.decode_page(page, loc, None)?;
                }
            }
        }
        Ok(decoder.finish())
    }
}

/// The pages of a chunk up to its `num_values` slots, found from their headers alone; `None`
/// when a header does not decode, a page overruns the chunk, a dictionary page is not first,
/// or the pages hold too few values (the one-piece decode then reports the problem).
///
/// A dictionary page is marked by `num_values == -1`; index pages by 0 values, not data.
fn walk_pages(bytes: &[u8], num_values: i64) -> Option<Vec<PageSpan>> {
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
        let (n, data) = match h.type_ {
            PageType::DICTIONARY_PAGE if spans.is_empty() => (-1, false),
            PageType::DICTIONARY_PAGE => return None,
            PageType::DATA_PAGE => (i64::from(h.data_page_header.as_ref()?.num_values), true),
            PageType::DATA_PAGE_V2 => (i64::from(h.data_page_header_v2.as_ref()?.num_values), true),
            _ => (0, false),
        };
        if data && n < 0 {
            return None;
        }
        values += n.max(0);
        spans.push(PageSpan {
            end,
            num_values: n,
            weight,
            data,
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
    let workers = threads.min(items.len()).max(1);
    if workers == 1 {
        let mut dec = Decompressor::new(limits);
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
        let mut dec = Decompressor::new(limits);
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
    file: ParquetReader<S>,
    columns: Vec<usize>,
    descs: Vec<ColumnDescriptor>,
    row_groups: VecDeque<usize>,
    queues: Vec<VecDeque<Piece>>,
    dec: Decompressor,
}

impl<S: Source> ParallelFeed<S> {
    pub(crate) fn new(file: &ParquetReader<S>, columns: &[usize]) -> Result<Self> {
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
            dec: Decompressor::new(file.options.limits),
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
        for (p, col) in take.iter().zip(file.decode_pieces(&take, &self.descs)?) {
            out[p.slot].push(col);
        }
        Ok(out)
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

impl<S: Source> ParquetReader<S> {
    /// A nested field over the selected row groups, one row group per piece on the reader's
    /// threads, joined in file order (`parallel.row_group` counts the pieces). Records never
    /// cross a column chunk, so row groups assemble on their own; the leaves of one field
    /// are cut at the same records, which page boundaries do not give without an offset
    /// index, so a row group is not split further.
    pub(crate) fn read_nested_parallel(
        &self,
        plan: &crate::schema::plan::FieldPlan,
    ) -> Result<Array> {
        let parts: Vec<ParquetReader<S>> = self
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
            self.options.limits,
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
