//! The reader's fast paths are taken where they must be, and only there.
//!
//! Files are written with parq's own writer (so page layout is known) and read in-process;
//! probe counters are thread-local, so each test sees only its own reads.

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq::array::Array;
use parq::codecs::compression::CodecKind;
use parq::codecs::probe;
use parq::column::{Column, Values};
use parq::metadata::{decode_page_header, PageType};
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions};
use parq::write::{EncodingPolicy, Field, PageVersion, ParquetWriter, WriterOptions};

const ROWS: usize = 200_000;

fn int64_column(nulls_every: Option<usize>) -> Column {
    let values: Vec<i64> = (0..ROWS as i64)
        .map(|i| i.wrapping_mul(0x1E37_79B9_7F4A_7C15))
        .collect();
    let validity = nulls_every.map(|k| NullBuffer::from_iter((0..ROWS).map(|i| i % k != 0)));
    Column {
        len: ROWS,
        validity,
        values: Values::Int64(ScalarBuffer::from(values)),
    }
}

fn write(fields: Vec<Field>, columns: &[Column], options: WriterOptions) -> Bytes {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, options).expect("writer");
    w.write_batch(columns).expect("write");
    w.finish().expect("finish");
    aligned(out)
}

/// The file copied into an 8-byte aligned buffer, so page alignment is file offset % 8.
fn aligned(file: Vec<u8>) -> Bytes {
    shifted(&file, 0)
}

/// The file copied to `shift` bytes past an 8-byte boundary.
fn shifted(file: &[u8], shift: usize) -> Bytes {
    struct Owner(Vec<u64>, usize, usize);
    impl AsRef<[u8]> for Owner {
        fn as_ref(&self) -> &[u8] {
            &bytemuck::cast_slice(&self.0)[self.1..self.1 + self.2]
        }
    }
    let mut words = vec![0u64; (shift + file.len()).div_ceil(8)];
    bytemuck::cast_slice_mut::<u64, u8>(&mut words)[shift..shift + file.len()]
        .copy_from_slice(file);
    Bytes::from_owner(Owner(words, shift, file.len()))
}

/// Data pages of the first column chunk: (values start offset in the file, v2?).
fn data_pages(file: &Bytes, reader: &ParquetReader) -> Vec<(usize, bool)> {
    let mut pages = Vec::new();
    for rg in &reader.metadata().row_groups {
        let meta = rg.columns[0].meta_data.as_ref().unwrap();
        let start = meta
            .dictionary_page_offset
            .filter(|d| *d > 0)
            .unwrap_or(meta.data_page_offset) as usize;
        let end = start + meta.total_compressed_size as usize;
        let mut pos = start;
        while pos < end {
            let (h, len) = decode_page_header(&file[pos..end]).unwrap();
            let body = pos + len;
            match h.type_ {
                PageType::DATA_PAGE => pages.push((body, false)),
                PageType::DATA_PAGE_V2 => {
                    let v2 = h.data_page_header_v2.as_ref().unwrap();
                    let levels = (v2.definition_levels_byte_length
                        + v2.repetition_levels_byte_length)
                        as usize;
                    pages.push((body + levels, true))
                }
                _ => {}
            }
            pos = body + h.compressed_page_size as usize;
        }
    }
    pages
}

fn read_all_batches(reader: &ParquetReader) -> Vec<Column> {
    read_batches(reader, 8192)
}

fn read_batches(reader: &ParquetReader, batch_size: usize) -> Vec<Column> {
    probe::reset();
    reader
        .batches(&[0], batch_size)
        .unwrap()
        .map(|b| b.unwrap().columns.remove(0))
        .collect()
}

fn options(version: PageVersion) -> WriterOptions {
    WriterOptions::default()
        .with_encoding(EncodingPolicy::Plain)
        .with_page_version(version)
}

/// Pages lent out and pages refused as unaligned when each page is decoded on its own, in
/// order: aligned pages are lent until three pages in a row had to be copied, after which
/// the reader stops trying (and decodes whole batch runs).
fn expected_borrows(aligned: impl IntoIterator<Item = bool>) -> (usize, usize) {
    let (mut borrowed, mut unaligned, mut streak) = (0, 0, 0);
    for a in aligned {
        if a {
            borrowed += 1;
            streak = 0;
        } else {
            unaligned += 1;
            streak += 1;
            if streak == 3 {
                break;
            }
        }
    }
    (borrowed, unaligned)
}

#[test]
fn plain_pages_are_borrowed_exactly_when_aligned() {
    let file = write(
        vec![Field::int64("v")],
        &[int64_column(None)],
        options(PageVersion::V2),
    );
    let reader = ParquetReader::new(file.clone()).unwrap();
    let pages = data_pages(&file, &reader);
    let (aligned, unaligned) = expected_borrows(pages.iter().map(|(off, _)| off % 8 == 0));
    let cols = read_all_batches(&reader);
    assert_eq!(
        probe::get("read.plain_borrowed") as usize,
        aligned,
        "{:?}",
        probe::snapshot()
    );
    assert_eq!(
        probe::get("read.plain_borrow_unaligned") as usize,
        unaligned
    );
    // A borrowed batch points into the file's own bytes: no copy at all.
    let range = file.as_ptr() as usize..file.as_ptr() as usize + file.len();
    let in_file = cols
        .iter()
        .filter(|c| match &c.values {
            Values::Int64(v) => range.contains(&(v.as_ptr() as usize)),
            _ => false,
        })
        .count();
    assert_eq!(
        aligned > 0,
        in_file > 0,
        "borrowed pages must surface as zero-copy batches"
    );
    let total: usize = cols.iter().map(|c| c.len).sum();
    assert_eq!(total, ROWS);
}

#[test]
fn aligned_file_takes_the_borrow_path() {
    // Enough pages that some start aligned whatever the header sizes are, and batches no
    // bigger than a page, so that every page is decoded on its own and can be lent out.
    let mut opts = options(PageVersion::V1);
    opts.data_page_row_limit = 2000;
    let file = write(vec![Field::int64("v")], &[int64_column(None)], opts);
    let pages = data_pages(&file, &ParquetReader::new(file.clone()).unwrap());
    // Place the file in memory so that the first page's values are 8-byte aligned.
    let file = shifted(&file, (8 - pages[0].0 % 8) % 8);
    let base = file.as_ptr() as usize;
    let reader = ParquetReader::new(file.clone()).unwrap();
    let (aligned, _) = expected_borrows(pages.iter().map(|(o, _)| (base + o) % 8 == 0));
    assert!(aligned > 0, "test file has no aligned page");
    read_batches(&reader, 1000);
    assert_eq!(probe::get("read.plain_borrowed") as usize, aligned);
    assert_eq!(probe::get("read.plain_borrow_materialized"), 0);
    // With batches spanning several pages, a borrowed first page would be copied after all:
    // the probe says so.
    read_batches(&reader, 8192);
    assert!(probe::get("read.plain_borrow_not_first") > 0);
}

#[test]
fn compressed_pages_borrow_their_decompression_buffer() {
    let file = write(
        vec![Field::int64("v")],
        &[int64_column(None)],
        options(PageVersion::V2).with_compression(CodecKind::Snappy),
    );
    let reader = ParquetReader::new(file.clone()).unwrap();
    let pages = data_pages(&file, &reader).len();
    read_all_batches(&reader);
    // v2 values decompress into their own (allocator-aligned) buffer: always borrowable.
    assert_eq!(probe::get("read.plain_borrowed") as usize, pages);
    assert_eq!(probe::get("read.plain_copied"), 0);
}

#[test]
fn whole_column_reads_do_not_borrow() {
    let file = write(
        vec![Field::int64("v")],
        &[int64_column(None)],
        options(PageVersion::V2),
    );
    let reader = ParquetReader::new(file).unwrap();
    probe::reset();
    let col = reader.read_column(0).unwrap();
    assert_eq!(col.len, ROWS);
    assert_eq!(probe::get("read.plain_borrowed"), 0);
    assert!(probe::get("read.plain_copied") > 0);
}

#[test]
fn pages_without_nulls_do_no_null_work() {
    for version in [PageVersion::V1, PageVersion::V2] {
        let file = write(
            vec![Field::int64("v").optional()],
            &[int64_column(None)],
            options(version),
        );
        let reader = ParquetReader::new(file.clone()).unwrap();
        let pages = data_pages(&file, &reader).len() as u64;
        read_all_batches(&reader);
        match version {
            // v2 headers count nulls: the levels are not even decoded.
            PageVersion::V2 => {
                assert_eq!(probe::get("read.levels_skipped_no_nulls"), pages);
                assert_eq!(probe::get("levels.single_run"), 0);
            }
            // v1 levels are one repeated run: one bulk check, no bitmap kept.
            PageVersion::V1 => {
                assert_eq!(probe::get("levels.single_run"), pages);
                assert_eq!(probe::get("read.page_without_nulls"), pages);
            }
        }
        assert_eq!(probe::get("read.scatter_fixed"), 0, "{version:?}");
        assert_eq!(probe::get("levels.scatter_run"), 0, "{version:?}");
    }
}

/// Calls the SIMD null scatter kernels took, whatever the level.
fn simd_scatters() -> u64 {
    ["avx512", "avx2", "neon"]
        .iter()
        .map(|l| probe::get(&format!("kernels.scatter.{l}")))
        .sum()
}

#[test]
fn nulls_are_scattered_by_runs() {
    let file = write(
        vec![Field::int64("v").optional()],
        &[int64_column(Some(100))],
        options(PageVersion::V1),
    );
    let reader = ParquetReader::new(file.clone()).unwrap();
    let pages = data_pages(&file, &reader).len() as u64;
    let cols = read_all_batches(&reader);
    // PLAIN pages with nulls are scattered straight from the page, without a dense copy
    // (once per part: pages are split at the ends of batch runs).
    let parts = pages + probe::get("read.page_split");
    assert_eq!(probe::get("read.plain_scatter_from_page"), parts);
    // Pages with nulls cannot be lent out: after three the reader decodes whole batch runs,
    // and only batches over the first page boundaries are copied together.
    assert_eq!(probe::get("read.borrow_given_up"), 1);
    assert!(probe::get("read.batch_copied_together") <= 3);
    assert_eq!(probe::get("read.plain_copied"), 0);
    assert_eq!(probe::get("read.page_without_nulls"), 0);
    assert!(
        probe::get("levels.packed_copy") > 0,
        "{:?}",
        probe::snapshot()
    );
    if simd_scatters() == 0 {
        // ~1 % nulls at the scalar level: one copy per run of valid values, about one run per
        // null.
        let runs = probe::get("levels.scatter_run");
        assert!(
            runs > 0 && runs <= (ROWS / 100 + pages as usize) as u64,
            "{runs} runs"
        );
    } else {
        // At a SIMD level every page part goes through its kernel instead.
        assert_eq!(simd_scatters(), parts);
        assert_eq!(probe::get("levels.scatter_run"), 0);
    }
    let nulls: usize = cols.iter().map(|c| c.null_count()).sum();
    assert_eq!(nulls, ROWS / 100);
}

#[test]
fn many_nulls_scatter_by_words() {
    use parq::codecs::simd::{self, Level};
    let file = write(
        vec![Field::int64("v").optional()],
        &[int64_column(Some(2))],
        options(PageVersion::V1),
    );
    let reader = ParquetReader::new(file.clone()).unwrap();
    let pages = data_pages(&file, &reader).len() as u64;
    // At every level this CPU has, the level's own kernel scatters every page part: 50 %
    // nulls are runs of one value, where a store per valid slot (scalar) or a vector step
    // per 8 slots beats a copy per run.
    for level in simd::available() {
        let cols = simd::with_level(level, || read_all_batches(&reader)).unwrap();
        let parts = pages + probe::get("read.page_split");
        let (taken, others): (Vec<&str>, Vec<&str>) = [
            "levels.scatter_words",
            "kernels.scatter.avx2",
            "kernels.scatter.avx512",
            "kernels.scatter.neon",
        ]
        .into_iter()
        .partition(|name| match level {
            Level::Scalar => *name == "levels.scatter_words",
            l => *name == format!("kernels.scatter.{l}"),
        });
        assert_eq!(probe::get(taken[0]), parts, "{level}");
        for name in others {
            assert_eq!(probe::get(name), 0, "{level} {name}");
        }
        assert_eq!(probe::get("levels.scatter_run"), 0);
        let nulls: usize = cols.iter().map(|c| c.null_count()).sum();
        assert_eq!(nulls, ROWS / 2);
    }
}

#[test]
fn dictionary_is_decoded_once_per_chunk_and_gathered() {
    let values: Vec<i64> = (0..ROWS as i64).map(|i| i % 100).collect();
    let col = Column {
        len: ROWS,
        validity: None,
        values: Values::Int64(ScalarBuffer::from(values)),
    };
    let file = write(
        vec![Field::int64("v")],
        &[col],
        WriterOptions::default()
            .with_encoding(EncodingPolicy::Dictionary)
            .with_row_group_rows(ROWS / 4)
            .with_data_page_size(4096),
    );
    let reader = ParquetReader::new(file.clone()).unwrap();
    assert_eq!(reader.metadata().row_groups.len(), 4);
    let pages = data_pages(&file, &reader).len() as u64;
    assert!(pages > 4, "want several data pages per chunk, got {pages}");
    read_all_batches(&reader);
    assert_eq!(probe::get("read.dictionary_page_decoded"), 4);
    assert_eq!(
        probe::get("read.dictionary_gather"),
        pages + probe::get("read.page_split")
    );
    assert_eq!(
        probe::get("read.plain_borrowed") + probe::get("read.plain_copied"),
        0
    );
}

#[test]
fn dictionary_gather_names_the_level() {
    use parq::codecs::simd;
    let values: Vec<i64> = (0..ROWS as i64).map(|i| (i * 7919) % 1000).collect();
    let col = Column {
        len: ROWS,
        validity: None,
        values: Values::Int64(ScalarBuffer::from(values)),
    };
    let file = write(
        vec![Field::int64("v")],
        std::slice::from_ref(&col),
        WriterOptions::default().with_encoding(EncodingPolicy::Dictionary),
    );
    let reader = ParquetReader::new(file).unwrap();
    // Bit-packed indices are gathered by the level's compiled form of the kernel: the
    // x86-64-v3 one at AVX2 and AVX-512, the portable one otherwise.
    for level in simd::available() {
        probe::reset();
        let cols = simd::with_level(level, || read_all_batches(&reader)).unwrap();
        let (v3, portable) = (
            probe::get("kernels.gather.avx2"),
            probe::get("kernels.gather.scalar"),
        );
        if level.has_avx2() {
            assert!(v3 > 0 && portable == 0, "{level}: {v3} / {portable}");
        } else {
            assert!(v3 == 0 && portable > 0, "{level}: {v3} / {portable}");
        }
        let got: Vec<i64> = cols
            .iter()
            .flat_map(|c| match &c.values {
                Values::Int64(v) => v.to_vec(),
                other => panic!("{other:?}"),
            })
            .collect();
        let Values::Int64(want) = &col.values else {
            unreachable!()
        };
        assert_eq!(got, want.to_vec(), "{level}");
    }
}

#[test]
fn views_point_into_page_buffers() {
    let n = 10_000usize;
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for i in 0..n {
        data.extend_from_slice(format!("a string long enough not to inline #{i}").as_bytes());
        offsets.push(data.len() as i64);
    }
    let col = Column {
        len: n,
        validity: None,
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from_vec(data),
        },
    };
    let file = write(vec![Field::string("s")], &[col], options(PageVersion::V1));
    let opts = ReadOptions::default().with_byte_array_layout(ByteArrayLayout::Views);
    let reader = ParquetReader::with_options(file.clone(), opts).unwrap();
    let pages = data_pages(&file, &reader).len() as u64;
    let cols = read_all_batches(&reader);
    assert_eq!(probe::get("read.views_borrow_page"), pages);
    assert_eq!(probe::get("plain.view_ref"), n as u64);
    let range = file.as_ptr() as usize..file.as_ptr() as usize + file.len();
    for c in &cols {
        let Values::BinaryView { buffers, .. } = &c.values else {
            panic!("views expected")
        };
        assert!(buffers
            .iter()
            .all(|b| range.contains(&(b.as_ptr() as usize))));
    }
    assert_eq!(
        cols[0].bytes(7).unwrap(),
        b"a string long enough not to inline #7"
    );
}

/// A string column of `n` values of 8..=40 bytes (1,000 distinct, so a dictionary holds),
/// every `nulls_every`-th slot null.
fn string_column(n: usize, nulls_every: Option<usize>) -> Column {
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for i in 0..n {
        if nulls_every.is_none_or(|k| i % k != 0) {
            let k = i * 7919 % 1000;
            let s = format!("value {k} {}", "x".repeat(k % 33));
            data.extend_from_slice(s.as_bytes());
        }
        offsets.push(data.len() as i64);
    }
    Column {
        len: n,
        validity: nulls_every.map(|k| NullBuffer::from_iter((0..n).map(|i| i % k != 0))),
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from_vec(data),
        },
    }
}

#[test]
fn batch_runs_reserve_their_bytes_once() {
    for (policy, nulls) in [
        (EncodingPolicy::Plain, None),
        (EncodingPolicy::Plain, Some(3)),
        (EncodingPolicy::Dictionary, None),
        (EncodingPolicy::Dictionary, Some(3)),
    ] {
        let col = string_column(ROWS, nulls);
        let opts = WriterOptions::default()
            .with_encoding(policy)
            .with_data_page_size(16 << 10);
        let file = write(
            vec![Field::string("s").optional()],
            std::slice::from_ref(&col),
            opts,
        );
        let reader = ParquetReader::new(file.clone()).unwrap();
        let pages = data_pages(&file, &reader).len();
        assert!(pages > 8, "{policy:?}: {pages} pages");
        let dictionary = reader.metadata().row_groups[0].columns[0]
            .meta_data
            .as_ref()
            .unwrap()
            .dictionary_page_offset
            .is_some();
        assert_eq!(dictionary, policy == EncodingPolicy::Dictionary);
        let cols = read_all_batches(&reader);
        // Every run of 8 batches reserved once at its first page, and no later page of the
        // run had to grow the bytes buffer (which would copy them again).
        let runs = ROWS.div_ceil(8 * 8192) as u64;
        assert!(
            probe::get("read.run_reserved") >= runs,
            "{policy:?} {nulls:?}: {} runs reserved",
            probe::get("read.run_reserved")
        );
        assert_eq!(
            probe::get("read.binary_data_regrown"),
            0,
            "{policy:?} {nulls:?}"
        );
        // Runs end inside pages, which are split there: no batch is copied together.
        assert!(probe::get("read.page_split") > 0, "{policy:?} {nulls:?}");
        assert_eq!(probe::get("read.batch_copied_together"), 0);
        assert!(Column::concat(&cols) == col, "{policy:?} {nulls:?}");
        // Views split pages the same way.
        let views = ReadOptions::default().with_byte_array_layout(ByteArrayLayout::Views);
        let view_reader = ParquetReader::with_options(file.clone(), views).unwrap();
        let cols = read_all_batches(&view_reader);
        assert!(
            probe::get("read.page_split") > 0,
            "views {policy:?} {nulls:?}"
        );
        assert_eq!(probe::get("read.batch_copied_together"), 0);
        assert!(Column::concat(&cols) == col, "views {policy:?} {nulls:?}");
        for batch in [3, 8191, ROWS + 1] {
            let cols = read_batches(&view_reader, batch);
            assert!(
                Column::concat(&cols) == col,
                "views {policy:?} {nulls:?} batch {batch}"
            );
        }
        // Any batch size gives the same column.
        for batch in [1, 3, 1000, 8191, 20_000, ROWS + 1] {
            let cols = read_batches(&reader, batch);
            assert!(cols[..cols.len() - 1].iter().all(|c| c.len == batch));
            assert!(
                Column::concat(&cols) == col,
                "{policy:?} {nulls:?} batch {batch}"
            );
        }
    }
}

/// A streamed read writes each run into the buffer of a run whose batches the consumer has
/// dropped (`memory.recycled`), not into fresh memory it would fault in again; batches that
/// are kept hold their buffers, so a collecting read recycles nothing. Values are equal
/// either way.
#[test]
fn streamed_runs_reuse_dropped_buffers() {
    let ints = int64_column(Some(3));
    let strings = string_column(ROWS, Some(5));
    let file = write(
        vec![Field::int64("i").optional(), Field::string("s").optional()],
        &[ints.clone(), strings.clone()],
        WriterOptions::default().with_encoding(EncodingPolicy::Plain),
    );
    let reader = ParquetReader::new(file).unwrap();
    let runs = ROWS.div_ceil(8 * 8192) as u64;

    probe::reset();
    let mut rows = 0;
    for b in reader.batches(&[0, 1], 8192).unwrap() {
        let b = b.unwrap();
        rows += b.num_rows;
    }
    assert_eq!(rows, ROWS);
    // Each column's runs after its first two (one being handed out, one being decoded) find
    // a dropped one: values, offsets and bytes buffers.
    let recycled = probe::get("memory.recycled");
    assert!(
        recycled >= 3 * (runs - 2),
        "{recycled} of {runs} runs recycled"
    );

    // On a thread of its own, whose shelves the read above left nothing on.
    let kept = std::thread::spawn(move || {
        probe::reset();
        let kept: Vec<_> = reader
            .batches(&[0, 1], 8192)
            .unwrap()
            .map(|b| b.unwrap())
            .collect();
        assert_eq!(
            probe::get("memory.recycled"),
            0,
            "kept batches hold their buffers"
        );
        kept
    })
    .join()
    .unwrap();
    for (i, want) in [ints, strings].iter().enumerate() {
        let pieces: Vec<Column> = kept.iter().map(|b| b.columns[i].clone()).collect();
        assert!(&Column::concat(&pieces) == want, "column {i}");
    }
}

/// A batch run reserves for the rows its chunks hold, not for the 8 batches it would decode
/// from a larger chunk: a one-row file of many string columns (dictionary and PLAIN pages)
/// reserves one slot and about one value's bytes per column.
#[test]
fn batch_runs_reserve_no_more_than_their_chunks_hold() {
    if !probe::ENABLED {
        return;
    }
    const COLUMNS: usize = 200;
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for i in 0..COLUMNS {
        fields.push(Field::string(format!("s{i}")));
        columns.push(string_column(1, None));
    }
    for policy in [EncodingPolicy::Dictionary, EncodingPolicy::Plain] {
        let file = write(
            fields.clone(),
            &columns,
            WriterOptions::default().with_encoding(policy),
        );
        let reader = ParquetReader::new(file).unwrap();
        let leaves: Vec<usize> = (0..COLUMNS).collect();
        probe::reset();
        let mut rows = 0;
        for b in reader.batches(&leaves, 8192).unwrap() {
            let b = b.unwrap();
            assert_eq!(b.columns.len(), COLUMNS);
            rows += b.num_rows;
        }
        assert_eq!(rows, 1);
        let slots = probe::get("read.run_reserved_slots");
        assert!(
            slots <= COLUMNS as u64,
            "{policy:?}: {slots} slots reserved"
        );
        // Each column's value is a few bytes; a dictionary page's estimate adds 64.
        let bytes = probe::get("read.run_reserved_value_bytes");
        assert!(
            bytes <= 128 * COLUMNS as u64,
            "{policy:?}: {bytes} value bytes reserved for {COLUMNS} one-row columns"
        );
    }
}

/// Under a filter, the columns after the filter's are read by decoders made for each row
/// group; each row group's decoders write their runs into the buffers the last one's
/// batches, dropped, gave back to the thread (`memory.recycled`), not into fresh memory.
#[test]
fn decoders_of_later_row_groups_reuse_the_buffers_of_earlier_ones() {
    let col = int64_column(None);
    let file = write(
        vec![Field::int64("k"), Field::int64("v")],
        &[col.clone(), col.clone()],
        WriterOptions::default()
            .with_encoding(EncodingPolicy::Plain)
            .with_row_group_rows(20_000),
    );
    let reader = ParquetReader::new(file).unwrap();
    assert_eq!(reader.metadata().row_groups.len(), ROWS / 20_000);
    // A thread of its own, so that no earlier read left buffers on its shelves.
    std::thread::spawn(move || {
        let Values::Int64(want) = &col.values else {
            unreachable!()
        };
        probe::reset();
        let mut at = 0;
        let rows = reader
            .read_builder()
            .with_projection(["v"])
            .with_filter(parq::predicate::col("k").is_not_null())
            .with_materialise(parq::predicate::Materialise::Masked)
            .build()
            .unwrap();
        for batch in rows {
            let batch = batch.unwrap();
            let Array::Primitive(Column {
                values: Values::Int64(got),
                ..
            }) = &batch.arrays[0]
            else {
                panic!("int64 column");
            };
            assert_eq!(&got[..], &want[at..at + got.len()]);
            at += got.len();
        }
        assert_eq!(at, ROWS);
        // One run per row group and column: only a later row group's decoder can take one.
        let recycled = probe::get("memory.recycled");
        assert!(recycled >= 5, "{recycled} runs recycled");
    })
    .join()
    .unwrap();
}

/// A streamed read whose batches are dropped as they go decompresses each page into the
/// buffer a page before it came back with: no fresh allocation to fault in per page.
#[test]
fn decompressed_pages_reuse_the_buffers_of_pages_already_read() {
    let col = int64_column(None);
    let file = write(
        vec![Field::int64("v")],
        std::slice::from_ref(&col),
        WriterOptions::default()
            .with_compression(CodecKind::Zstd)
            .with_encoding(EncodingPolicy::Plain)
            .with_data_page_size(128 << 10),
    );
    let reader = ParquetReader::new(file).unwrap();
    let Values::Int64(want) = &col.values else {
        unreachable!()
    };
    probe::reset();
    let mut at = 0;
    for batch in reader.batches(&[0], 8192).unwrap() {
        let batch = batch.unwrap();
        let Values::Int64(got) = &batch.columns[0].values else {
            panic!("int64 column");
        };
        assert_eq!(&got[..], &want[at..at + got.len()]);
        at += got.len();
    }
    assert_eq!(at, ROWS);
    assert!(probe::get("read.pages_decoded") > 5);
    assert!(probe::get("page.buffer_recycled") > 0);
}

/// A column's decoder goes on from one row group to the next, in both streamed reads: what
/// it learnt of the first pages (that pages with nulls cannot be lent out) is not learnt
/// again per row group.
#[test]
fn decoders_go_on_from_one_row_group_to_the_next() {
    let file = write(
        vec![Field::int64("v").optional()],
        &[int64_column(Some(100))],
        options(PageVersion::V1).with_row_group_rows(ROWS / 4),
    );
    let reader = ParquetReader::new(file).unwrap();
    assert_eq!(reader.metadata().row_groups.len(), 4);
    let cols = read_all_batches(&reader);
    assert_eq!(cols.iter().map(|c| c.len).sum::<usize>(), ROWS);
    assert_eq!(probe::get("read.borrow_given_up"), 1, "by batches");
    probe::reset();
    let rows: usize = reader
        .array_batches(&["v"], 8192)
        .unwrap()
        .map(|b| b.unwrap().num_rows)
        .sum();
    assert_eq!(rows, ROWS);
    assert_eq!(probe::get("read.borrow_given_up"), 1, "by array_batches");
    // The projection is planned for the first row group, not again for each.
    assert_eq!(probe::get("push.projection_planned"), 1);
}
