//! The push decoder reads every parquet-testing file as `ParquetReader` does, whatever
//! pieces the bytes arrive in (random sizes, random order, extra ranges nobody asked for,
//! pieces straddling several ranges), under random selections and projections; and its
//! I/O plan is what it says: one footer request under 64 KiB, coalesced and split ranges,
//! and, under a selection with an offset index, no byte of an unselected page.

use crate::support_write;

use std::ops::Range;
use std::path::PathBuf;

use bytes::Bytes;
#[cfg(feature = "probes")]
use parq::codecs::probe;
use parq::column::{Column, Values};
use parq::predicate::{col, Expr, Materialise};
use parq::read::push::{
    DecodeResult, Footer, FooterDecoder, FooterOptions, FooterStep, IoOptions, PushDecoder,
    PushOptions,
};
use parq::read::{testing, ArrayBatch, ParquetReader, ReadOptions, RowSelection, Select, Source};
// For the tests of the probes only.
#[cfg(feature = "probes")]
use parq::read::{FileSource, MmapSource};
use parq::write::{Field, ParquetWriter, WriterOptions};
use proptest::prelude::*;
use support_write::Rng;

fn data_dir() -> PathBuf {
    std::env::var_os("PARQUET_TEST_DATA")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data")
        })
}

fn testing_files() -> Vec<PathBuf> {
    let mut paths: Vec<_> = std::fs::read_dir(data_dir())
        .unwrap()
        .chain(std::fs::read_dir(data_dir().join("../bad_data")).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    paths.sort();
    assert!(
        paths.len() > 50,
        "parquet-testing not found at {}",
        data_dir().display()
    );
    paths
}

/// How a test driver hands bytes over.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Pushing {
    seed: u64,
    /// Cut each range into random pieces (else one piece each).
    pieces: bool,
    /// Push random ranges nobody asked for too.
    extras: bool,
    /// Sometimes push a piece that starts before and ends after the range asked for.
    straddle: bool,
}

impl Pushing {
    pub(crate) const WHOLE: Pushing = Pushing {
        seed: 1,
        pieces: false,
        extras: false,
        straddle: false,
    };
}

/// The pieces to push for `ranges` of `file`, in a random order.
fn pieces(file: &Bytes, ranges: &[Range<u64>], how: Pushing, rng: &mut Rng) -> Vec<(u64, Bytes)> {
    let len = file.len() as u64;
    let cut = |r: Range<u64>| file.slice(r.start as usize..r.end as usize);
    let mut out = Vec::new();
    for r in ranges {
        let mut r = r.clone();
        if how.straddle && rng.chance(0.3) {
            r.start = r.start.saturating_sub(rng.below(100));
            r.end = (r.end + rng.below(100)).min(len);
        }
        if !how.pieces {
            out.push((r.start, cut(r)));
            continue;
        }
        let mut at = r.start;
        while at < r.end {
            let most = if rng.chance(0.5) { 64 } else { 4096 };
            let n = 1 + rng.below(most);
            let end = (at + n).min(r.end);
            out.push((at, cut(at..end)));
            at = end;
        }
    }
    if how.extras {
        for _ in 0..rng.below(4) {
            let a = rng.below(len);
            let b = (a + rng.below(1000)).min(len);
            out.push((a, cut(a..b)));
        }
    }
    if how.pieces || how.extras {
        for i in (1..out.len()).rev() {
            out.swap(i, rng.below(i as u64 + 1) as usize);
        }
    }
    out
}

/// The footer of `file`, every range it asks for pushed at once.
fn whole_footer(file: &Bytes) -> Footer {
    let mut requests = 0;
    footer(
        file,
        FooterOptions::default(),
        Pushing::WHOLE,
        &mut requests,
    )
    .unwrap()
}

/// The footer, through the footer decoder.
pub(crate) fn footer(
    file: &Bytes,
    options: FooterOptions,
    how: Pushing,
    requests: &mut usize,
) -> parq::Result<Footer> {
    let mut rng = Rng::new(how.seed);
    let mut d = FooterDecoder::new(file.len() as u64, options);
    loop {
        match d.try_next()? {
            FooterStep::NeedsData(ranges) => {
                *requests += 1;
                for (at, b) in pieces(file, &ranges, how, &mut rng) {
                    d.push(at, b);
                }
            }
            FooterStep::Done(f) => return Ok(f),
        }
    }
}

/// Every batch of a push decoder over `file`, and every range it asked for.
pub(crate) fn push_read(
    file: &Bytes,
    options: PushOptions,
    how: Pushing,
) -> parq::Result<(Vec<ArrayBatch>, Vec<Range<u64>>)> {
    let mut requests = 0;
    let f = footer(file, FooterOptions::default(), how, &mut requests)?;
    // Every match is returned (and counted once) unless an offset or a limit cuts them or the
    // filter may stop.
    let filtered = options.filter.is_some()
        && options.filter_exact
        && options.offset == 0
        && options.limit.is_none();
    let mut d = PushDecoder::try_new(f, options)?;
    let mut rng = Rng::new(how.seed ^ 0x55);
    let mut out = Vec::new();
    let mut asked = Vec::new();
    for _ in 0..1_000_000 {
        match d.try_next()? {
            DecodeResult::NeedsData(ranges) => {
                // Push only some of what is asked each time, to exercise partial progress.
                let take = if how.pieces {
                    1 + rng.below(ranges.len() as u64) as usize
                } else {
                    ranges.len()
                };
                asked.extend(ranges[..take].iter().cloned());
                for (at, b) in pieces(file, &ranges[..take], how, &mut rng) {
                    d.push(at, b);
                }
            }
            DecodeResult::Batch(b) => {
                out.push(b);
                if how.extras {
                    // As a driver fetching ahead does.
                    d.wanted();
                }
            }
            DecodeResult::Finished => {
                if filtered {
                    let rows: usize = out.iter().map(|b| b.num_rows).sum();
                    assert_eq!(d.filter_stats().rows_matched, rows as u64, "rows matched");
                }
                return Ok((out, asked));
            }
        }
    }
    panic!("the push decoder did not finish");
}

/// The column readers without the push decoder, one row group at a time (the push
/// decoder's batches stop at row group ends). Under a predicate, the rows
/// [`ParquetReader::prune`] keeps.
fn oracle(file: &Bytes, options: &PushOptions) -> parq::Result<Vec<ArrayBatch>> {
    let mut read = options.read.clone();
    if let Some(expr) = &options.predicate {
        let (kept, _) = ParquetReader::with_options(file.clone(), read.clone())?.prune(expr)?;
        read.selection = Some(kept);
    }
    let options = &options.clone().with_read(read);
    let whole = ParquetReader::with_options(file.clone(), options.read.clone())?;
    let rgs = whole.selected_row_groups();
    let names: Vec<Select> = match &options.projection {
        Some(p) => p.clone(),
        None => (0..whole.fields()?.len()).map(Select::Field).collect(),
    };
    let mut out = Vec::new();
    for rg in rgs {
        let r = ParquetReader::with_options(
            file.clone(),
            options.read.clone().with_row_groups(Some(vec![rg])),
        )?;
        out.extend(testing::direct_array_batches(
            &r,
            &names,
            options.batch_size,
        )?);
    }
    Ok(out)
}

/// The push decoder and the oracle agree: the same batches, or both an error.
fn agree(path: &str, file: &Bytes, options: PushOptions, how: Pushing) -> bool {
    same_batches(path, oracle(file, &options), file, options, how)
}

/// The push decoder's batches under `options` are `want`'s, or both are an error.
fn same_batches(
    path: &str,
    want: parq::Result<Vec<ArrayBatch>>,
    file: &Bytes,
    options: PushOptions,
    how: Pushing,
) -> bool {
    let got = push_read(file, options.clone(), how);
    match (want, got) {
        (Ok(want), Ok((got, _))) => {
            assert_eq!(
                got.len(),
                want.len(),
                "{path}: batch count, {options:?} {how:?}"
            );
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert_eq!(g.num_rows, w.num_rows, "{path}: batch {i} rows");
                assert_eq!(g.fields, w.fields, "{path}: batch {i} fields");
                assert!(
                    g.arrays == w.arrays,
                    "{path}: batch {i} differs, {options:?} {how:?}"
                );
            }
            true
        }
        (Err(_), Err(_)) => false,
        (Ok(_), Err(e)) => panic!(
            "{path}: the push decoder failed where the reader did not: {e} ({options:?} {how:?})"
        ),
        (Err(e), Ok(_)) => panic!("{path}: the push decoder read what the reader refused ({e})"),
    }
}

#[test]
fn every_testing_file_reads_as_the_reader_does() {
    let mut read = 0;
    for (i, path) in testing_files().iter().enumerate() {
        let file = Bytes::from(std::fs::read(path).unwrap());
        let name = path.display().to_string();
        for how in [
            Pushing::WHOLE,
            Pushing {
                seed: i as u64 + 7,
                pieces: true,
                extras: true,
                straddle: true,
            },
        ] {
            let options = PushOptions::default().with_batch_size(1000);
            read += agree(&name, &file, options, how) as usize;
        }
    }
    assert!(read > 100, "only {read} reads succeeded");
}

/// A random selection of `n` rows: a few ranges.
fn selection(n: u64, rng: &mut Rng) -> RowSelection {
    let k = rng.below(5);
    RowSelection::from_ranges((0..k).map(|_| {
        let a = rng.below(n.max(1));
        a..(a + 1 + rng.below(n / 4 + 2)).min(n.max(1))
    }))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random file, projection, selection, batch size, request shape and pushing.
    #[test]
    fn random_reads_agree(
        pick in any::<u64>(),
        seed in any::<u64>(),
        batch in 1usize..3000,
        gap in prop_oneof![Just(0u64), Just(100), Just(1 << 20)],
        max_request in prop_oneof![Just(0u64), Just(37), Just(4096)],
        ahead in prop_oneof![Just(None), Just(Some(32u64 << 20)), Just(Some(4 << 30))],
        pieces in any::<bool>(),
        extras in any::<bool>(),
        straddle in any::<bool>(),
        predicate in any::<u64>(),
    ) {
        let files = testing_files();
        let path = &files[(pick % files.len() as u64) as usize];
        let file = Bytes::from(std::fs::read(path).unwrap());
        let mut rng = Rng::new(seed);
        let Ok(reader) = ParquetReader::new(file.clone()) else { return Ok(()) };
        let Ok(fields) = reader.fields() else { return Ok(()) };
        let n = reader.num_rows();
        let mut projection: Vec<String> = fields.iter().filter(|_| rng.chance(0.6)).map(|f| f.name.clone()).collect();
        if rng.chance(0.3) {
            // A leaf path, which keeps its ancestors.
            let leaves = &reader.schema().leaves;
            let leaf = &leaves[rng.below(leaves.len() as u64) as usize];
            projection.push(leaf.path_string());
        }
        projection.dedup();
        let options = PushOptions::default()
            .with_read(
                ReadOptions::default()
                    .with_selection(rng.chance(0.6).then(|| selection(n, &mut rng)))
                    .with_max_memory(ahead.unwrap_or(4 << 30)),
            )
            .with_projection((!projection.is_empty())
                .then(|| projection.into_iter().map(Select::from).collect()))
            .with_batch_size(batch)
            .with_io(IoOptions::default()
                .with_coalesce_gap(gap)
                .with_max_request_size(max_request))
            .with_plan_ahead(ahead.is_some())
            .with_predicate(random_predicate(&reader, predicate));
        agree(&path.display().to_string(), &file, options, Pushing { seed, pieces, extras, straddle });
    }
}

/// Sometimes a predicate on a random leaf: a null test, or a comparison or `IN` list with
/// integers (an error for other columns, which the oracle and the decoder must agree on).
fn random_predicate<S: Source>(reader: &ParquetReader<S>, seed: u64) -> Option<Expr> {
    let mut rng = Rng::new(seed);
    if rng.chance(0.5) {
        return None;
    }
    let leaves = &reader.schema().leaves;
    let path = leaves[rng.below(leaves.len() as u64) as usize].path_string();
    let k = rng.below(200) as i64 - 20;
    Some(match rng.below(6) {
        0 => col(path).is_null(),
        1 => col(path).is_not_null(),
        2 => col(path).gt(k),
        3 => col(path).eq(k),
        4 => col(path).is_in([k, k + 1, 2 * k]),
        _ => col(path.clone()).lt(k).or(col(path).is_null()),
    })
}

/// A file of one required int64 column `a`, row `i` holding `value(i)`.
/// The values of a batch's first column, an int64 one.
fn first_int64s(batch: &ArrayBatch) -> &[i64] {
    match &batch.arrays[0] {
        parq::array::Array::Primitive(Column {
            values: Values::Int64(v),
            ..
        }) => v,
        other => panic!("{other:?}"),
    }
}

fn one_int64_file(rows: i64, options: WriterOptions, value: impl Fn(i64) -> i64) -> Bytes {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, vec![Field::int64("a")], options).unwrap();
    let a = Column {
        len: rows as usize,
        validity: None,
        values: Values::Int64((0..rows).map(value).collect::<Vec<_>>().into()),
    };
    w.write_batch(&[a]).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

fn int_file(rows: i64, page_index: bool, row_group_rows: usize) -> Bytes {
    let mut out = Vec::new();
    let options = WriterOptions::default()
        .with_data_page_row_limit(1000)
        .with_row_group_rows(row_group_rows)
        .with_page_index(page_index);
    let fields = vec![Field::int64("a"), Field::int64("b")];
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    let col = |k: i64| Column {
        len: rows as usize,
        validity: None,
        values: Values::Int64((0..rows).map(|i| i * k).collect::<Vec<_>>().into()),
    };
    w.write_batch(&[col(1), col(3)]).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[test]
fn a_footer_under_64_kib_costs_one_request_and_a_larger_one_two() {
    let small = int_file(10_000, false, 1 << 20);
    let mut requests = 0;
    probe::reset();
    footer(
        &small,
        FooterOptions::default(),
        Pushing::WHOLE,
        &mut requests,
    )
    .unwrap();
    assert_eq!(requests, 1);
    assert_eq!(probe::get("io.footer_second_request"), 0);
    // A suffix shorter than the footer: one more request, for the rest of it.
    let mut requests = 0;
    let options = FooterOptions::default().with_suffix_len(16);
    footer(&small, options, Pushing::WHOLE, &mut requests).unwrap();
    assert_eq!(requests, 2);
    assert_eq!(probe::get("io.footer_second_request"), 1);
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[test]
fn ranges_are_coalesced_within_the_gap_and_split_past_the_maximum() {
    let file = int_file(20_000, false, 5_000);
    let read = |io: IoOptions| {
        probe::reset();
        let options = PushOptions::default().with_io(io).with_plan_ahead(false);
        let (_, asked) = push_read(&file, options, Pushing::WHOLE).unwrap();
        (asked, probe::get("io.coalesced"), probe::get("io.split"))
    };
    // Four row groups of two chunks side by side: one range per row group, whatever the
    // gap (touching ranges are one range, not a coalescing).
    let (asked, coalesced, split) = read(
        IoOptions::default()
            .with_coalesce_gap(1 << 20)
            .with_max_request_size(0),
    );
    assert_eq!(asked.len(), 4, "{asked:?}");
    assert_eq!((coalesced, split), (0, 0));
    let (asked, _, _) = read(
        IoOptions::default()
            .with_coalesce_gap(0)
            .with_max_request_size(0),
    );
    assert_eq!(asked.len(), 4, "{asked:?}");
    // Split: each request at most 1000 bytes.
    let (asked, _, split) = read(
        IoOptions::default()
            .with_coalesce_gap(1 << 20)
            .with_max_request_size(1000),
    );
    assert!(
        split > 4 && asked.iter().all(|r| r.end - r.start <= 1000),
        "{asked:?}"
    );
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[test]
fn distant_chunks_are_coalesced_when_the_gap_allows() {
    // Projecting "a" and a later column of the same row group leaves the bytes of "b"
    // between them: a gap larger than that joins them, a gap of 0 does not.
    let mut out = Vec::new();
    let fields = vec![Field::int64("a"), Field::int64("b"), Field::int64("c")];
    let mut w = ParquetWriter::new(&mut out, fields, WriterOptions::default()).unwrap();
    let col = || Column {
        len: 1000,
        validity: None,
        values: Values::Int64((0..1000).collect::<Vec<_>>().into()),
    };
    w.write_batch(&[col(), col(), col()]).unwrap();
    w.finish().unwrap();
    let file = Bytes::from(out);
    let read = |gap: u64| {
        probe::reset();
        let options = PushOptions::default()
            .with_projection(Some(vec!["a".into(), "c".into()]))
            .with_io(
                IoOptions::default()
                    .with_coalesce_gap(gap)
                    .with_max_request_size(0),
            );
        let (_, asked) = push_read(&file, options, Pushing::WHOLE).unwrap();
        (asked.len(), probe::get("io.coalesced"))
    };
    assert_eq!(read(0), (2, 0));
    assert_eq!(read(1 << 20), (1, 1));
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[test]
fn under_a_selection_unselected_pages_are_never_asked_for() {
    let file = int_file(100_000, true, 1 << 20);
    let reader = ParquetReader::new(file.clone()).unwrap();
    let sel = RowSelection::from_ranges(std::iter::once(50_500..50_510));
    probe::reset();
    let options = PushOptions::default()
        .with_read(ReadOptions::default().with_selection(Some(sel.clone())))
        .with_io(
            IoOptions::default()
                .with_coalesce_gap(0)
                .with_max_request_size(0),
        );
    let (batches, asked) = push_read(&file, options, Pushing::WHOLE).unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 10);
    assert!(probe::get("io.page_ranges") >= 2, "{:?}", probe::snapshot());
    let skipped_by_index = probe::get("read.pages_skipped_by_offset_index");
    let mut unselected = 0;
    // Every data page of both columns lies outside what was asked, but the one holding the
    // selected rows.
    for c in 0..2 {
        let index = reader.read_offset_index(0, c).unwrap().unwrap();
        let pages = &index.page_locations;
        assert!(pages.len() >= 100);
        for (i, p) in pages.iter().enumerate() {
            let bytes = p.offset as u64..(p.offset + p.compressed_page_size as i64) as u64;
            let first = p.first_row_index as u64;
            let last = pages
                .get(i + 1)
                .map_or(100_000, |n| n.first_row_index as u64);
            let wanted = sel.intersects(first..last);
            let fetched = asked
                .iter()
                .any(|r| r.start < bytes.end && bytes.start < r.end);
            assert_eq!(fetched, wanted, "column {c} page {i}: {asked:?}");
            unselected += usize::from(!wanted) as u64;
        }
    }
    // Each unselected page counts once, although planning and reading both consult the
    // offset index.
    assert_eq!(skipped_by_index, unselected);
}

#[test]
fn released_ranges_and_the_budget_bound_what_is_held() {
    let file = int_file(40_000, false, 5_000);
    let f = whole_footer(&file);
    let rg_bytes: u64 = f.metadata().row_groups[0]
        .columns
        .iter()
        .map(|c| c.meta_data.as_ref().unwrap().total_compressed_size as u64)
        .sum();
    let options = PushOptions::default()
        .with_read(ReadOptions::default().with_max_memory(32 * (2 * rg_bytes + 200)));
    let mut d = PushDecoder::try_new(f, options).unwrap();
    let mut released = 0;
    let mut max_planned = 0;
    loop {
        max_planned = max_planned.max(d.planned_bytes());
        match d.try_next().unwrap() {
            DecodeResult::NeedsData(ranges) => {
                for r in ranges {
                    d.push(r.start, file.slice(r.start as usize..r.end as usize));
                }
            }
            DecodeResult::Batch(_) => released += d.take_released().len(),
            DecodeResult::Finished => break,
        }
    }
    released += d.take_released().len();
    assert_eq!(released, 8, "one range per row group let go");
    // Two row groups planned at a time (the one decoding and the next), never all eight.
    assert!(
        max_planned <= 2 * rg_bytes + 400,
        "{max_planned} > 2 x {rg_bytes}"
    );
    assert!(
        max_planned > rg_bytes + 100,
        "it planned ahead: {max_planned}"
    );
}

/// A file of three int64 columns of `rows` rows each, in one row group.
#[cfg(feature = "probes")]
fn three_column_file(rows: i64) -> Bytes {
    let mut out = Vec::new();
    let fields = vec![Field::int64("a"), Field::int64("b"), Field::int64("c")];
    let mut w = ParquetWriter::new(&mut out, fields, WriterOptions::default()).unwrap();
    let col = |k: i64| Column {
        len: rows as usize,
        validity: None,
        values: Values::Int64((0..rows).map(|i| i * k).collect::<Vec<_>>().into()),
    };
    w.write_batch(&[col(1), col(3), col(7)]).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

/// The synchronous readers' batches run through the push decoder (its probes count the
/// pushed bytes), from bytes in memory and memory maps without a copy (each span is kept as
/// a view of what was pushed), and every local read fetches only the projected chunks: no
/// range is coalesced over the column left out.
// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[test]
fn local_batches_are_driven_through_the_push_decoder_without_copies() {
    let file = three_column_file(50_000);
    let path = std::env::temp_dir().join(format!("parq-push-drive-{}.parquet", std::process::id()));
    std::fs::write(&path, &file).unwrap();
    let reader = ParquetReader::new(file.clone()).unwrap();
    let expect = reader.read_column(2).unwrap();
    let chunk = |c: usize| {
        let meta = reader.metadata().row_groups[0].columns[c]
            .meta_data
            .as_ref();
        meta.unwrap().total_compressed_size as u64
    };
    // Columns 0 and 2, each with at most the 100 bytes of slack a chunk read may take.
    let projected = chunk(0) + chunk(2);
    assert!(chunk(1) > 1000);
    fn read<S: Source>(name: &str, r: &ParquetReader<S>, expect: &Column, projected: u64) {
        let batches = r.batches(&[0, 2], 4096).unwrap();
        let cols: Vec<Column> = batches.map(|b| b.unwrap().columns.remove(1)).collect();
        assert!(Column::concat(&cols) == *expect, "{name}");
        let (pushed, kept) = (
            probe::get("push.bytes_pushed"),
            probe::get("push.bytes_kept"),
        );
        assert!(
            (projected..=projected + 200).contains(&pushed),
            "{name}: pushed {pushed} bytes for chunks of {projected}: {:?}",
            probe::snapshot()
        );
        assert_eq!(pushed, kept, "{name}: pushed bytes the decoder dropped");
    }
    probe::reset();
    read(
        "bytes",
        &ParquetReader::new(file.clone()).unwrap(),
        &expect,
        projected,
    );
    assert!(probe::get("push.zero_copy_span") > 0);
    assert_eq!(probe::get("push.span_in_pieces"), 0);
    assert_eq!(probe::get("push.read_across_spans"), 0);

    probe::reset();
    // SAFETY: the file is this test's own and nothing writes it while it is mapped.
    #[allow(unsafe_code)]
    let mapped = unsafe { MmapSource::open(&path) }.unwrap();
    read(
        "mmap",
        &ParquetReader::new(mapped).unwrap(),
        &expect,
        projected,
    );
    assert!(probe::get("push.zero_copy_span") > 0);
    assert_eq!(probe::get("push.span_in_pieces"), 0);

    probe::reset();
    let r = ParquetReader::new(FileSource::open(&path).unwrap()).unwrap();
    read("file", &r, &expect, projected);
    std::fs::remove_file(&path).ok();
}

/// Whole-column reads (`read_column`, `read_leaves`, `read_field`) run through the push
/// decoder too (probe `push.whole_row_group` per row group, `push.whole_parallel` once on
/// several threads), fetch only the projected chunks, and equal the column readers' own
/// batches concatenated.
// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[test]
fn local_whole_reads_are_driven_through_the_push_decoder() {
    let mut file = Vec::new();
    let options = WriterOptions::default().with_row_group_rows(20_000);
    let fields = vec![Field::int64("a"), Field::int64("b"), Field::int64("c")];
    let mut w = ParquetWriter::new(&mut file, fields, options).unwrap();
    let col = |k: i64| Column {
        len: 50_000,
        validity: None,
        values: Values::Int64((0..50_000).map(|i| i * k).collect::<Vec<i64>>().into()),
    };
    w.write_batch(&[col(1), col(3), col(7)]).unwrap();
    w.finish().unwrap();
    let file = Bytes::from(file);
    let direct = ParquetReader::new(file.clone()).unwrap();
    assert_eq!(direct.metadata().row_groups.len(), 3);
    let want = |c: &str| {
        let batches = testing::direct_array_batches(&direct, &[c], 7_000).unwrap();
        let cols: Vec<Column> = batches
            .into_iter()
            .map(|mut b| match b.arrays.remove(0) {
                parq::array::Array::Primitive(c) => c,
                _ => unreachable!("flat"),
            })
            .collect();
        Column::concat(&cols)
    };
    let path = std::env::temp_dir().join(format!("parq-push-whole-{}.parquet", std::process::id()));
    std::fs::write(&path, &file).unwrap();
    let chunks = |cols: &[usize]| -> u64 {
        let meta = direct.metadata();
        meta.row_groups
            .iter()
            .flat_map(|rg| cols.iter().map(move |&c| &rg.columns[c]))
            .map(|c| c.meta_data.as_ref().unwrap().total_compressed_size as u64)
            .sum()
    };
    fn check<S: Source>(name: &str, r: &ParquetReader<S>, want: &[Column], projected: u64) {
        probe::reset();
        let got = r.read_leaves(&[0, 2]).unwrap();
        assert!(got[0] == want[0] && got[1] == want[1], "{name}");
        let pushed = probe::get("push.bytes_pushed");
        // Each chunk read may take up to 100 bytes of slack past its declared end.
        assert!(
            (projected..=projected + 600).contains(&pushed),
            "{name}: pushed {pushed} bytes for chunks of {projected}"
        );
        let parallel = r.options().threads > 1;
        let per_row_group = if parallel { 0 } else { 3 };
        assert_eq!(probe::get("push.whole_row_group"), per_row_group, "{name}");
        assert_eq!(probe::get("push.whole_parallel"), parallel as u64, "{name}");
        probe::reset();
        assert!(r.read_column(2).unwrap() == want[1], "{name}");
        let (_, a) = r.read_field_by_path("a").unwrap();
        assert!(
            a == parq::array::Array::Primitive(want[0].clone()),
            "{name}"
        );
        assert!(probe::get("push.bytes_pushed") > 0, "{name}");
    }
    let want = [want("a"), want("c")];
    let projected = chunks(&[0, 2]);
    for threads in [1, 2] {
        let options = ReadOptions::default().with_threads(threads);
        let r = ParquetReader::with_options(file.clone(), options.clone()).unwrap();
        check("bytes", &r, &want, projected);
        // SAFETY: the file is this test's own and nothing writes it while it is mapped.
        #[allow(unsafe_code)]
        let mapped = unsafe { MmapSource::open(&path) }.unwrap();
        check(
            "mmap",
            &ParquetReader::with_options(mapped, options.clone()).unwrap(),
            &want,
            projected,
        );
        let source = FileSource::open(&path).unwrap();
        check(
            "file",
            &ParquetReader::with_options(source, options).unwrap(),
            &want,
            projected,
        );
    }
    std::fs::remove_file(&path).ok();
}

/// A needle query through the push decoder: statistics rule out every row group but one
/// before a byte is asked for; that one's column index, offset index and bloom filter are
/// asked for in one round, and only the page holding the needle is fetched. A value the
/// bloom filter rules out fetches no data at all. Without a predicate, no index or filter
/// is asked for.
// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[test]
fn a_predicate_prunes_through_decoder_requests() {
    use parq::write::BloomFilterOptions;
    let rows = 100_000i64;
    let options = WriterOptions::default()
        .with_data_page_row_limit(1000)
        .with_row_group_rows(25_000)
        .with_page_index(true)
        .with_bloom_filter(
            "b",
            BloomFilterOptions::default().with_ndv(None).with_fpp(0.01),
        );
    let mut out = Vec::new();
    let fields = vec![Field::int64("a"), Field::int64("b")];
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    let column = |k: i64| Column {
        len: rows as usize,
        validity: None,
        values: Values::Int64((0..rows).map(|i| i * k).collect::<Vec<_>>().into()),
    };
    w.write_batch(&[column(1), column(3)]).unwrap();
    w.finish().unwrap();
    let file = Bytes::from(out);
    let reader = ParquetReader::new(file.clone()).unwrap();
    let meta = reader.metadata();
    assert_eq!(meta.row_groups.len(), 4);
    let span = |offset: Option<i64>, len: Option<i32>| {
        let (o, l) = (offset.unwrap() as u64, len.unwrap() as u64);
        o..o + l
    };
    let touches = |asked: &[Range<u64>], r: &Range<u64>| {
        asked.iter().any(|a| a.start < r.end && r.start < a.end)
    };
    let run = |predicate: Option<Expr>| {
        let options = PushOptions::default()
            .with_io(
                IoOptions::default()
                    .with_coalesce_gap(0)
                    .with_max_request_size(0),
            )
            .with_predicate(predicate);
        probe::reset();
        let (batches, asked) = push_read(&file, options, Pushing::WHOLE).unwrap();
        (batches, asked)
    };

    // The needle, in row group 2.
    let needle = 3 * 60_001;
    let (batches, asked) = run(Some(col("b").eq(needle)));
    let got: usize = batches.iter().map(|b| b.num_rows).sum();
    assert_eq!(got, 1000, "the page holding the needle");
    let Some(parq::array::Array::Primitive(b)) = batches.first().map(|b| &b.arrays[1]) else {
        panic!("flat")
    };
    let Values::Int64(v) = &b.values else {
        panic!("int64")
    };
    assert!(v.contains(&needle));
    assert_eq!(probe::get("predicate.row_group_pruned_by_statistics"), 3);
    for (rg, group) in meta.row_groups.iter().enumerate() {
        let b = &group.columns[1];
        let bloom = b.meta_data.as_ref().unwrap();
        let bloom = span(bloom.bloom_filter_offset, bloom.bloom_filter_length);
        let column_index = span(b.column_index_offset, b.column_index_length);
        assert_eq!(
            touches(&asked, &bloom),
            rg == 2,
            "bloom filter of row group {rg}"
        );
        assert_eq!(
            touches(&asked, &column_index),
            rg == 2,
            "column index of {rg}"
        );
        for c in 0..group.columns.len() {
            let index = reader.read_offset_index(rg, c).unwrap().unwrap();
            for (i, p) in index.page_locations.iter().enumerate() {
                let bytes = p.offset as u64..(p.offset + p.compressed_page_size as i64) as u64;
                let first = 25_000 * rg as i64 + p.first_row_index;
                let holds = (first..first + 1000).contains(&60_001);
                assert_eq!(
                    touches(&asked, &bytes),
                    holds,
                    "row group {rg} column {c} page {i}"
                );
            }
        }
    }

    // A value between the stored ones: the bloom filter rules it out, no data is fetched.
    let (batches, asked) = run(Some(col("b").eq(needle + 1)));
    assert!(batches.is_empty());
    assert_eq!(probe::get("predicate.row_group_pruned_by_bloom_filter"), 1);
    let group = &meta.row_groups[2];
    for chunk in &group.columns {
        let m = chunk.meta_data.as_ref().unwrap();
        let data = m.data_page_offset as u64..(m.data_page_offset + m.total_compressed_size) as u64;
        assert!(!touches(&asked, &data), "no data of a pruned row group");
    }

    // No predicate: every chunk, no index and no filter.
    let (batches, asked) = run(None);
    assert_eq!(
        batches.iter().map(|b| b.num_rows).sum::<usize>(),
        rows as usize
    );
    for group in &meta.row_groups {
        for chunk in &group.columns {
            let index = span(chunk.column_index_offset, chunk.column_index_length);
            assert!(
                !touches(&asked, &index),
                "a column index without a predicate"
            );
        }
        let m = group.columns[1].meta_data.as_ref().unwrap();
        let bloom = span(m.bloom_filter_offset, m.bloom_filter_length);
        // A chunk's read may run 100 bytes past its declared end (old writers' dictionary
        // headers), into a filter written right after it; the rest is never asked for.
        let past_slack = bloom.start + 100..bloom.end;
        assert!(
            !touches(&asked, &past_slack),
            "a bloom filter without a predicate"
        );
    }
}

/// The exact filter's batches, rows in order, against [`ParquetReader::read_filtered`]
/// (whole columns, by its own evaluation and materialisation): batches of at most the batch
/// size, the same fields and values, or both an error.
fn filtered_agree(path: &str, file: &Bytes, options: PushOptions, how: Pushing) -> bool {
    let filter = options.filter.clone().expect("a filter");
    let want = ParquetReader::with_options(file.clone(), options.read.clone()).and_then(|r| {
        let names: Vec<Select> = match &options.projection {
            Some(p) => p.clone(),
            None => (0..r.fields()?.len()).map(Select::Field).collect(),
        };
        r.read_filtered(&names, &filter)
    });
    let got = push_read(file, options.clone(), how);
    match (want, got) {
        (Ok((whole, _)), Ok((got, _))) => {
            let mut row = 0;
            for (i, b) in got.iter().enumerate() {
                assert!(b.num_rows <= options.batch_size, "{path}: batch {i} rows");
                let fields: Vec<_> = whole.iter().map(|(f, _)| f.clone()).collect();
                assert_eq!(b.fields, fields, "{path}: batch {i} fields");
                for (a, (_, w)) in b.arrays.iter().zip(&whole) {
                    assert_eq!(a.len(), b.num_rows, "{path}: batch {i} rows");
                    for k in 0..b.num_rows {
                        assert!(
                            a.value(k) == w.value(row + k),
                            "{path}: batch {i} row {k} differs, {options:?} {how:?}"
                        );
                    }
                }
                row += b.num_rows;
            }
            if let Some((_, w)) = whole.first() {
                assert_eq!(row, w.len(), "{path}: rows, {options:?} {how:?}");
            }
            true
        }
        (Err(_), Err(_)) => false,
        (Ok(_), Err(e)) => panic!(
            "{path}: the push decoder failed where the reader did not: {e} ({options:?} {how:?})"
        ),
        (Err(e), Ok(_)) => panic!("{path}: the push decoder read what the reader refused ({e})"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Random file, projection, selection, exact filter, materialisation, request shape and
    /// pushing.
    #[test]
    fn random_filtered_reads_agree(
        pick in any::<u64>(),
        seed in any::<u64>(),
        batch in 1usize..3000,
        gap in prop_oneof![Just(0u64), Just(1 << 20)],
        ahead in any::<bool>(),
        pieces in any::<bool>(),
        predicate in any::<u64>(),
        how in prop_oneof![Just(Materialise::Auto), Just(Materialise::Selected), Just(Materialise::Masked)],
    ) {
        let files = testing_files();
        let path = &files[(pick % files.len() as u64) as usize];
        let file = Bytes::from(std::fs::read(path).unwrap());
        let mut rng = Rng::new(seed);
        let Ok(reader) = ParquetReader::new(file.clone()) else { return Ok(()) };
        let Ok(fields) = reader.fields() else { return Ok(()) };
        let Some(filter) = random_predicate(&reader, predicate | 1) else { return Ok(()) };
        let n = reader.num_rows();
        let projection: Vec<Select> =
            (0..fields.len()).filter(|_| rng.chance(0.6)).map(Select::Field).collect();
        let options = PushOptions::default()
            .with_read(
                ReadOptions::default()
                    .with_selection(rng.chance(0.4).then(|| selection(n, &mut rng))),
            )
            .with_projection(Some(projection))
            .with_batch_size(batch)
            .with_io(IoOptions::default().with_coalesce_gap(gap))
            .with_plan_ahead(ahead)
            .with_filter(Some(filter))
            .with_materialise(how);
        let how = Pushing { seed, pieces, extras: pieces, straddle: pieces };
        filtered_agree(&path.display().to_string(), &file, options, how);
    }
}

/// `a` is 1 only at rows 50,500..50,510 and 0 or 2 elsewhere, so every page's statistics
/// hold 1 and, PLAIN (no dictionary to prune by), nothing prunes; `b` is 3 × the row. Row
/// groups of `group_rows`.
#[cfg(feature = "probes")]
fn sparse_match_file(group_rows: usize) -> Bytes {
    let rows = 100_000i64;
    let mut out = Vec::new();
    let options = WriterOptions::default()
        .with_data_page_row_limit(1000)
        .with_row_group_rows(group_rows)
        .with_encoding(parq::write::EncodingPolicy::Plain)
        .with_page_index(true);
    let fields = vec![Field::int64("a"), Field::int64("b")];
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    let a = (0..rows).map(|i| {
        if (50_500..50_510).contains(&i) {
            1
        } else {
            (i % 2) * 2
        }
    });
    let col = |values: Vec<i64>| Column {
        len: rows as usize,
        validity: None,
        values: Values::Int64(values.into()),
    };
    w.write_batch(&[col(a.collect()), col((0..rows).map(|i| 3 * i).collect())])
        .unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

/// Whether `asked` covers more of `bytes` than the 100 bytes a chunk's range reaches past
/// its declared end (PARQUET-816), which fall on the next chunk's first page.
#[cfg(feature = "probes")]
fn fetched_past_slack(asked: &[Range<u64>], bytes: Range<u64>) -> bool {
    let covered: u64 = asked
        .iter()
        .map(|r| {
            r.end
                .min(bytes.end)
                .saturating_sub(r.start.max(bytes.start))
        })
        .sum();
    covered > 100
}

/// Under an exact filter, the filter's column is fetched for every row pruning left, and
/// the other projected columns only for the pages holding a match: their other pages are
/// never asked for. The filter's column is decoded once though projected.
#[cfg(feature = "probes")]
#[test]
fn under_a_filter_pages_without_a_match_are_never_asked_for() {
    let file = sparse_match_file(1 << 20);
    let reader = ParquetReader::new(file.clone()).unwrap();
    probe::reset();
    let options = PushOptions::default()
        .with_projection(Some(vec!["b".into(), "a".into()]))
        .with_filter(Some(col("a").eq(1i64)))
        .with_io(
            IoOptions::default()
                .with_coalesce_gap(0)
                .with_max_request_size(0),
        );
    let (batches, asked) = push_read(&file, options, Pushing::WHOLE).unwrap();
    let b: Vec<i64> = batches
        .iter()
        .flat_map(|batch| first_int64s(batch).to_vec())
        .collect();
    assert_eq!(b, (50_500..50_510).map(|i| 3 * i).collect::<Vec<i64>>());
    assert_eq!(probe::get("predicate.predicate_column_reused"), 1);
    for c in 0..2 {
        let index = reader.read_offset_index(0, c).unwrap().unwrap();
        let pages = &index.page_locations;
        assert_eq!(pages.len(), 100);
        for (i, p) in pages.iter().enumerate() {
            let bytes = p.offset as u64..(p.offset + p.compressed_page_size as i64) as u64;
            let fetched = fetched_past_slack(&asked, bytes);
            // Column `a` (0) entirely; column `b` (1) only its page 50.
            assert_eq!(fetched, c == 0 || i == 50, "column {c} page {i}: {asked:?}");
        }
    }
}

/// A row group where no row matches asks for none of the other columns' bytes.
#[cfg(feature = "probes")]
#[test]
fn under_a_filter_row_groups_without_a_match_fetch_only_the_filter_column() {
    let file = sparse_match_file(25_000);
    let reader = ParquetReader::new(file.clone()).unwrap();
    probe::reset();
    let options = PushOptions::default()
        .with_projection(Some(vec!["b".into()]))
        .with_filter(Some(col("a").eq(1i64)))
        .with_io(IoOptions::default().with_coalesce_gap(0));
    let (batches, asked) = push_read(&file, options, Pushing::WHOLE).unwrap();
    assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 10);
    assert_eq!(probe::get("push.filter_without_match"), 3);
    for rg in 0..4 {
        let chunk = |c: usize| {
            let m = reader.metadata().row_groups[rg].columns[c]
                .meta_data
                .clone()
                .unwrap();
            m.data_page_offset as u64..(m.data_page_offset + m.total_compressed_size) as u64
        };
        assert!(
            fetched_past_slack(&asked, chunk(0)),
            "row group {rg}: the filter's column"
        );
        let fetched = fetched_past_slack(&asked, chunk(1));
        assert_eq!(fetched, rg == 2, "row group {rg}: {asked:?}");
    }
}

/// A dynamic filter set during the read: the row groups not yet decoding are pruned by its
/// statistics at once (with nothing planned ahead, their bytes are never asked for), the
/// one decoding keeps the version it started with, and one left is evaluated with it. The
/// same rows come whether the others were planned ahead (and fetched) or not.
#[cfg(feature = "probes")]
#[test]
fn a_dynamic_filter_prunes_the_row_groups_not_started() {
    let file = sparse_match_file(25_000);
    for ahead in [false, true] {
        let f = whole_footer(&file);
        let chunk = |rg: usize, c: usize| {
            let m = f.metadata().row_groups[rg].columns[c]
                .meta_data
                .clone()
                .unwrap();
            m.data_page_offset as u64..(m.data_page_offset + m.total_compressed_size) as u64
        };
        let chunks: Vec<[Range<u64>; 2]> = (0..4).map(|rg| [chunk(rg, 0), chunk(rg, 1)]).collect();
        probe::reset();
        let dynamic = parq::read::push::DynamicFilter::new(None);
        let options = PushOptions::default()
            .with_projection(Some(vec!["b".into()]))
            .with_batch_size(1000)
            .with_plan_ahead(ahead)
            .with_dynamic_filter(Some(dynamic.clone()));
        let mut d = PushDecoder::try_new(f, options).unwrap();
        let (mut b, mut asked) = (Vec::new(), Vec::new());
        loop {
            match d.try_next().unwrap() {
                DecodeResult::NeedsData(ranges) => {
                    for r in ranges {
                        d.push(r.start, file.slice(r.start as usize..r.end as usize));
                        asked.push(r);
                    }
                }
                DecodeResult::Batch(batch) => {
                    if b.is_empty() {
                        // Rows 0..100 and 60,000..60,001 (row groups 0 and 2) pass now.
                        let now = col("b")
                            .lt(300i64)
                            .or(col("b").is_in([180_000i64, 180_003]));
                        dynamic.set(Some(now));
                    }
                    b.extend_from_slice(first_int64s(&batch));
                }
                DecodeResult::Finished => break,
            }
        }
        // Row group 0 was decoding unfiltered and reads whole; 1 and 3 are pruned by
        // statistics; 2 is evaluated with the new filter.
        let mut want: Vec<i64> = (0..25_000).map(|i| 3 * i).collect();
        want.extend([180_000, 180_003]);
        assert_eq!(b, want, "planned ahead: {ahead}");
        assert_eq!(probe::get("push.dynamic_filter_taken"), 1);
        assert_eq!(probe::get("predicate.row_group_pruned_by_statistics"), 2);
        if !ahead {
            // Column `a` is neither projected nor filtered on.
            for (rg, [a, b]) in chunks.iter().enumerate() {
                assert!(!fetched_past_slack(&asked, a.clone()), "row group {rg} a");
                let fetched = fetched_past_slack(&asked, b.clone());
                assert_eq!(fetched, rg == 0 || rg == 2, "row group {rg} b");
            }
        }
    }
}

/// A dynamic filter's new version prunes by statistics the row groups evaluated ahead
/// with the version before (their bytes all pushed at once), not only those not started:
/// the rows they matched are not wanted any more.
#[cfg(feature = "probes")]
#[test]
fn a_dynamic_filter_prunes_row_groups_evaluated_ahead() {
    let file = sparse_match_file(25_000);
    let f = whole_footer(&file);
    probe::reset();
    // Every row passes the first version.
    let dynamic = parq::read::push::DynamicFilter::new(Some(col("b").ge(0i64)));
    let options = PushOptions::default()
        .with_projection(Some(vec!["b".into()]))
        .with_batch_size(1000)
        .with_filter_exact(true)
        .with_dynamic_filter(Some(dynamic.clone()));
    let mut d = PushDecoder::try_new(f, options).unwrap();
    let mut b = Vec::new();
    loop {
        match d.try_next().unwrap() {
            DecodeResult::NeedsData(ranges) => {
                for r in ranges {
                    d.push(r.start, file.slice(r.start as usize..r.end as usize));
                }
            }
            DecodeResult::Batch(batch) => {
                if b.is_empty() {
                    dynamic.set(Some(col("b").lt(300i64)));
                }
                b.extend_from_slice(first_int64s(&batch));
            }
            DecodeResult::Finished => break,
        }
    }
    // Row group 0 was decoding with the first version and reads whole; 1 to 3 had been
    // evaluated ahead, and are pruned.
    assert_eq!(b.len(), 25_000);
    assert!(b.iter().copied().eq((0..25_000).map(|i| 3 * i)));
    assert_eq!(probe::get("push.dynamic_filter_taken"), 1);
    assert_eq!(probe::get("push.evaluated_group_pruned"), 3);
    assert_eq!(probe::get("predicate.row_group_pruned_by_statistics"), 3);
}

/// Bytes the driver holds serve what pruning finds it lacks (a dictionary page, read only
/// when statistics and the page index leave the row group): with the whole file held, a
/// read pruned by a dictionary asks for nothing.
#[test]
fn held_bytes_serve_what_pruning_finds_it_lacks() {
    let options = WriterOptions::default()
        .with_data_page_row_limit(1000)
        .with_encoding(parq::write::EncodingPolicy::Dictionary)
        .with_page_index(true);
    // 0 and 2 in turn: every statistic holds 1, the dictionary does not.
    let file = one_int64_file(10_000, options, |i| (i % 2) * 2);
    for options in [
        PushOptions::default().with_predicate(Some(col("a").eq(1i64))),
        PushOptions::default().with_filter(Some(col("a").eq(1i64))),
    ] {
        let f = whole_footer(&file);
        let mut d = PushDecoder::try_new(f, options).unwrap();
        d.hold(0, file.clone());
        match d.try_next().unwrap() {
            DecodeResult::Finished => {}
            other => panic!("{other:?}"),
        }
        assert_eq!(d.filter_stats().pruned_by_dictionary, 1);
    }
}

/// Each row of `batches`, its values in order.
fn rows_of(batches: &[ArrayBatch]) -> Vec<Vec<parq::array::Value>> {
    batches
        .iter()
        .flat_map(|b| (0..b.num_rows).map(move |i| b.arrays.iter().map(|a| a.value(i)).collect()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// An offset and a limit give the rows of the same read without them, past the offset
    /// and at most the limit, with or without a selection, a predicate and a filter.
    #[test]
    fn offset_and_limit_cut_the_rows_of_the_read(
        pick in any::<u64>(),
        seed in any::<u64>(),
        batch in 1usize..3000,
        offset in prop_oneof![Just(0u64), 0u64..500, 0u64..5000],
        limit in prop::option::of(prop_oneof![Just(0u64), 0u64..50, 0u64..5000]),
        predicate in any::<u64>(),
        filter in any::<u64>(),
    ) {
        let files = testing_files();
        let path = &files[(pick % files.len() as u64) as usize];
        let file = Bytes::from(std::fs::read(path).unwrap());
        let mut rng = Rng::new(seed);
        let Ok(reader) = ParquetReader::new(file.clone()) else { return Ok(()) };
        let Ok(fields) = reader.fields() else { return Ok(()) };
        let n = reader.num_rows();
        let projection: Vec<Select> =
            (0..fields.len()).filter(|_| rng.chance(0.6)).map(Select::Field).collect();
        let options = PushOptions::default()
            .with_read(
                ReadOptions::default()
                    .with_selection(rng.chance(0.4).then(|| selection(n, &mut rng))),
            )
            .with_projection(Some(projection))
            .with_batch_size(batch)
            .with_predicate(random_predicate(&reader, predicate))
            .with_filter(random_predicate(&reader, filter));
        let Ok((all, _)) = push_read(&file, options.clone(), Pushing::WHOLE) else { return Ok(()) };
        let cut = options.with_offset(offset).with_limit(limit);
        let (got, _) = push_read(&file, cut, Pushing::WHOLE).unwrap();
        for b in &got {
            prop_assert!(b.num_rows >= 1 && b.num_rows <= batch);
        }
        let want: Vec<_> = rows_of(&all)
            .into_iter()
            .skip(offset as usize)
            .take(limit.map_or(usize::MAX, |l| l as usize))
            .collect();
        prop_assert_eq!(rows_of(&got), want, "{}", path.display());
    }
}

/// Without a predicate or a filter, a limit narrows the selection before anything is
/// planned: only the pages holding the rows returned are fetched.
#[test]
fn a_limit_fetches_only_the_pages_of_its_rows() {
    let file = int_file(40_000, true, 10_000);
    let options = PushOptions::default()
        .with_offset(10_500)
        .with_limit(Some(20))
        .with_io(IoOptions::default().with_coalesce_gap(0));
    let (batches, asked) = push_read(&file, options, Pushing::WHOLE).unwrap();
    let rows = rows_of(&batches);
    assert_eq!(rows.len(), 20);
    assert_eq!(
        rows[0][0],
        parq::array::Value::Leaf(10_500i64.to_le_bytes().to_vec())
    );
    let data: u64 = asked.iter().map(|r| r.end - r.start).sum();
    // Two pages of 1,000 int64 (8 KB each) and their indexes, not 40,000 rows' 640 KB.
    assert!(data < 40_000, "{data} bytes asked: {asked:?}");
}

/// The other columns' bytes are planned apart from the filter's, so no read of them spans
/// two pieces and none is copied across them (probe `push.read_across_spans`), whether they are
/// read whole (then filtered) or by pages.
#[cfg(feature = "probes")]
#[test]
fn under_a_filter_no_bytes_are_joined_by_copying() {
    let file = sparse_match_file(1 << 20);
    for how in [Materialise::Masked, Materialise::Selected] {
        probe::reset();
        let options = PushOptions::default()
            .with_projection(Some(vec!["a".into(), "b".into()]))
            .with_filter(Some(col("a").eq(1i64)))
            .with_materialise(how)
            .with_io(
                IoOptions::default()
                    .with_coalesce_gap(0)
                    .with_max_request_size(0),
            );
        let (batches, _) = push_read(&file, options, Pushing::WHOLE).unwrap();
        assert_eq!(batches.iter().map(|b| b.num_rows).sum::<usize>(), 10);
        assert_eq!(probe::get("push.read_across_spans"), 0, "{how:?}");
    }
}

/// A filter that need not be exact stops once a row group's matches are most of its rows:
/// that row group and those after it come unfiltered (the caller filters again). An exact
/// one never stops.
#[cfg(feature = "probes")]
#[test]
fn a_filter_that_need_not_be_exact_stops_where_it_pays_too_little() {
    let options = WriterOptions::default()
        .with_row_group_rows(10_000)
        .with_page_index(true);
    // 1 in 99 rows of 100.
    let file = one_int64_file(40_000, options, |i| i64::from(i % 100 != 0));
    for exact in [true, false] {
        probe::reset();
        let options = PushOptions::default()
            .with_filter(Some(col("a").eq(1i64)))
            .with_filter_exact(exact);
        let (batches, _) = push_read(&file, options, Pushing::WHOLE).unwrap();
        let n: usize = batches.iter().map(|b| b.num_rows).sum();
        if exact {
            assert_eq!(n, 39_600);
            assert_eq!(probe::get("push.filter_dropped"), 0);
            assert_eq!(probe::get("push.filter_passes_all"), 0);
        } else {
            // The first row group evaluated, then passed whole, and the three after it
            // not evaluated.
            assert_eq!(n, 40_000);
            assert_eq!(probe::get("push.filter_dropped"), 1);
            assert_eq!(probe::get("push.filter_passes_all"), 1);
            // The filter's column, decoded for every row, is not decoded again.
            assert_eq!(probe::get("predicate.predicate_column_reused"), 1);
        }
    }
}

/// A filter that need not be exact evaluates row groups in file order: bytes of later row
/// groups that arrive first wait until the first is evaluated, which finds that the filter
/// pays too little and switches it off, so that no later row group is evaluated at all.
/// (`a != -1` keeps every row, which statistics cannot tell.)
#[cfg(feature = "probes")]
#[test]
fn an_inexact_filter_evaluates_row_groups_in_order() {
    let options = WriterOptions::default().with_row_group_rows(10_000);
    let file = one_int64_file(40_000, options, |i| i);
    for exact in [false, true] {
        let f = whole_footer(&file);
        probe::reset();
        let options = PushOptions::default()
            .with_filter(Some(col("a").ne(-1i64)))
            .with_filter_exact(exact);
        let mut d = PushDecoder::try_new(f, options).unwrap();
        let (mut rows, mut held_back) = (0, None);
        loop {
            match d.try_next().unwrap() {
                DecodeResult::NeedsData(mut ranges) => {
                    // The first row group's bytes come last.
                    ranges.sort_by_key(|r| r.start);
                    if held_back.is_none() && ranges.len() > 1 {
                        held_back = Some(ranges.remove(0));
                    } else if let Some(r) = held_back.take() {
                        ranges.push(r);
                    }
                    for r in ranges {
                        d.push(r.start, file.slice(r.start as usize..r.end as usize));
                    }
                }
                DecodeResult::Batch(batch) => rows += batch.num_rows,
                DecodeResult::Finished => break,
            }
        }
        assert_eq!(rows, 40_000, "exact {exact}");
        if exact {
            assert_eq!(probe::get("push.filter_waits_in_order"), 0);
        } else {
            // Only the first row group was evaluated.
            assert_eq!(probe::get("push.filter_passes_all"), 1);
            assert_eq!(probe::get("push.filter_dropped"), 1);
            assert!(probe::get("push.filter_waits_in_order") > 0);
        }
        assert_eq!(probe::get("push.filter_skipped_by_statistics"), 0);
    }
}

/// A filter that need not be exact is not evaluated over a row group whose statistics say
/// it keeps nearly every row (`a >= 5000` keeps half of the first row group of `0..40000`
/// and all of the three others): those row groups stream unfiltered, the first is
/// filtered. An exact filter evaluates every row group.
#[cfg(feature = "probes")]
#[test]
fn an_inexact_filter_skips_row_groups_whose_statistics_say_it_keeps_nearly_all() {
    let options = WriterOptions::default().with_row_group_rows(10_000);
    let file = one_int64_file(40_000, options, |i| i);
    for exact in [false, true] {
        probe::reset();
        let options = PushOptions::default()
            .with_filter(Some(col("a").ge(5_000i64)))
            .with_filter_exact(exact);
        let (batches, _) = push_read(&file, options, Pushing::WHOLE).unwrap();
        let rows: usize = batches.iter().map(|b| b.num_rows).sum();
        assert_eq!(rows, 35_000, "exact {exact}");
        let skipped = probe::get("push.filter_skipped_by_statistics");
        assert_eq!(skipped, if exact { 0 } else { 3 }, "exact {exact}");
        assert_eq!(probe::get("push.filter_passes_all"), 0, "exact {exact}");
    }
}

/// Once a filter that need not be exact paid too little, a dynamic filter's later version
/// prunes by statistics but evaluates no rows; an exact one evaluates it.
#[cfg(feature = "probes")]
#[test]
fn a_dynamic_filter_that_paid_too_little_then_prunes_only() {
    let options = WriterOptions::default()
        .with_row_group_rows(10_000)
        .with_page_index(true);
    // 1 in 99 rows of 100.
    let file = one_int64_file(40_000, options, |i| i64::from(i % 100 != 0));
    for exact in [false, true] {
        let f = whole_footer(&file);
        probe::reset();
        let dynamic = parq::read::push::DynamicFilter::new(Some(col("a").eq(1i64)));
        let options = PushOptions::default()
            .with_dynamic_filter(Some(dynamic.clone()))
            .with_filter_exact(exact);
        let mut d = PushDecoder::try_new(f, options).unwrap();
        let mut rows = 0;
        loop {
            match d.try_next().unwrap() {
                DecodeResult::NeedsData(ranges) => {
                    for r in ranges {
                        d.push(r.start, file.slice(r.start as usize..r.end as usize));
                    }
                }
                DecodeResult::Batch(batch) => {
                    if rows == 0 {
                        dynamic.set(Some(col("a").ge(1i64)));
                    }
                    rows += batch.num_rows;
                }
                DecodeResult::Finished => break,
            }
        }
        assert_eq!(probe::get("push.dynamic_filter_taken"), 1, "exact {exact}");
        let prunes_only = probe::get("push.dynamic_filter_prunes_only");
        if exact {
            assert_eq!(prunes_only, 0);
            assert_eq!(rows, 39_600);
        } else {
            assert_eq!(prunes_only, 1);
            assert_eq!(rows, 40_000);
        }
    }
}

/// `rows` row groups of one row each, `a` = the row number, with a page index.
#[cfg(feature = "probes")]
fn one_row_groups(rows: i64) -> Bytes {
    let options = WriterOptions::default()
        .with_row_group_rows(1)
        .with_page_index(true);
    one_int64_file(rows, options, |i| i)
}

/// Many small row groups cost in proportion to their number: each row group's pruning
/// reads (its column and offset indexes, which lie among every other row group's) are its
/// own, so no byte is asked for or kept twice; they are asked for together, in a few
/// requests (the data in one per row group); planning walks each row group a bounded
/// number of times (probe `push.plan_visit`), not once for every batch; and each pushed
/// piece goes to the row groups whose spans it reaches (probe `push.groups_reached`), not
/// to every row group planned ahead.
#[cfg(feature = "probes")]
#[test]
fn many_row_groups_are_pruned_and_planned_in_linear_work() {
    let groups = 1_000;
    let file = one_row_groups(groups);
    for filter in [false, true] {
        let expr = Some(col("a").ge(0i64));
        let options = if filter {
            PushOptions::default().with_filter(expr)
        } else {
            PushOptions::default().with_predicate(expr)
        };
        probe::reset();
        let (batches, asked) = push_read(&file, options, Pushing::WHOLE).unwrap();
        assert_eq!(batches.len(), groups as usize, "filter {filter}");
        // Each row group's data is a request of its own, which may take up to 100 bytes of
        // the next (a dictionary page header's slack); their pruning reads are a few.
        let slack = 100 * groups as u64;
        let asked_bytes: u64 = asked.iter().map(|r| r.end - r.start).sum();
        assert!(
            asked_bytes <= file.len() as u64 + slack,
            "filter {filter}: {asked_bytes} bytes asked of a {}-byte file",
            file.len()
        );
        assert!(
            asked.len() <= groups as usize + 4,
            "filter {filter}: {} requests",
            asked.len()
        );
        let (pushed, kept) = (
            probe::get("push.bytes_pushed"),
            probe::get("push.bytes_kept"),
        );
        assert!(
            kept <= pushed + slack,
            "filter {filter}: {kept} bytes kept of {pushed} pushed"
        );
        // A filter evaluates each row group through a decoder of its own, which counts too.
        let settled = probe::get("push.group_settled");
        assert!(
            settled >= groups as u64,
            "filter {filter}: {settled} settled"
        );
        let visits = probe::get("push.plan_visit");
        assert!(
            visits <= 8 * settled,
            "filter {filter}: {visits} visits of {settled} row groups"
        );
        // Each piece goes to the row groups it reaches, found by the span index: the
        // coalesced index reads reach every row group once, each data piece its own and
        // the few next ones its slack reaches into (these row groups are ~60 bytes). Were
        // pieces offered to every row group planned, that would be ~groups² / 2.
        let reached = probe::get("push.groups_reached");
        assert!(
            reached <= 16 * groups as u64,
            "filter {filter}: pieces reached {reached} row groups"
        );
    }
}

/// A local read, which plans no row group ahead, offers each piece it pushes only to the
/// row groups it reaches (probe `push.groups_reached`), not to every row group of the
/// file, and visits each row group a bounded number of times to plan it (probe
/// `push.plan_visit`): with a filter (every row group waiting to be pruned) and without,
/// reads of many row groups cost in proportion to them.
#[cfg(feature = "probes")]
#[test]
fn a_local_read_offers_each_piece_to_the_planned_row_groups_only() {
    let groups = 1_000;
    let file = one_row_groups(groups);
    let reader = ParquetReader::new(file).unwrap();
    for filter in [None, Some(col("a").ge(500i64))] {
        probe::reset();
        let mut read = reader.read_builder().with_projection(["a"]);
        if let Some(f) = &filter {
            read = read.with_filter(f.clone());
        }
        let mut rows = 0;
        for batch in read.build().unwrap() {
            rows += batch.unwrap().num_rows;
        }
        assert_eq!(rows, if filter.is_some() { 500 } else { 1_000 });
        let reached = probe::get("push.groups_reached");
        let visits = probe::get("push.plan_visit");
        assert!(
            reached <= 4 * groups as u64 && visits <= 8 * groups as u64,
            "filter {filter:?}: pieces reached {reached} row groups, {visits} plan visits"
        );
    }
}

/// A driver that fetches ahead as the object-store reader does: after every batch it asks
/// [`PushDecoder::wanted`] and queues what is listed, and it lands a few requests a step,
/// so most row groups planned ahead wait for bytes at any time. Each planned range is
/// listed once (`NeedsData` lists the front row group's again), and planning walks the row
/// groups a bounded number of times: a file of many row groups costs no batch every row
/// group planned ahead.
#[cfg(feature = "probes")]
#[test]
fn a_driver_fetching_ahead_is_told_each_range_once() {
    let groups = 1_000u64;
    let file = one_row_groups(groups as i64);
    for filter in [None, Some(col("a").ge(500i64))] {
        probe::reset();
        let options = PushOptions::default().with_filter(filter.clone());
        let mut d = PushDecoder::try_new(whole_footer(&file), options).unwrap();
        let mut queued = std::collections::VecDeque::new();
        let mut asked = std::collections::HashSet::new();
        let mut listed = 0;
        let mut queue = |ranges: Vec<Range<u64>>, queued: &mut std::collections::VecDeque<_>| {
            listed += ranges.len();
            for r in ranges {
                if asked.insert(r.clone()) {
                    queued.push_back(r);
                }
            }
        };
        queue(d.wanted(), &mut queued);
        let mut rows = 0;
        loop {
            for _ in 0..4 {
                let Some(r) = queued.pop_front() else { break };
                d.push(r.start, file.slice(r.start as usize..r.end as usize));
            }
            match d.try_next().unwrap() {
                DecodeResult::NeedsData(ranges) => queue(ranges, &mut queued),
                DecodeResult::Batch(b) => {
                    rows += b.num_rows;
                    queue(d.wanted(), &mut queued);
                }
                DecodeResult::Finished => break,
            }
        }
        let expected = if filter.is_some() { 500 } else { 1_000 };
        assert_eq!(rows, expected, "filter {filter:?}");
        assert!(
            listed as u64 <= 4 * groups,
            "filter {filter:?}: {listed} ranges listed for {groups} row groups"
        );
        let visits = probe::get("push.plan_visit");
        assert!(
            visits <= 8 * groups,
            "filter {filter:?}: {visits} visits of {groups} row groups"
        );
    }
}

/// A whole read of many row groups on several threads finds each read's bytes through an
/// index of the row groups' pieces (probe `push.read_by_index`) rather than by trying every
/// row group's, and reads what one thread reads.
#[cfg(feature = "probes")]
#[test]
fn a_whole_read_of_many_row_groups_on_threads_looks_its_bytes_up() {
    let options = WriterOptions::default().with_row_group_rows(1);
    let file = one_int64_file(200, options, |i| i * 3);
    let one = ParquetReader::new(file.clone())
        .unwrap()
        .read_column(0)
        .unwrap();
    probe::reset();
    let threads = ReadOptions::default().with_threads(2);
    let two = ParquetReader::with_options(file, threads)
        .unwrap()
        .read_column(0)
        .unwrap();
    assert_eq!(one, two);
    assert_eq!(probe::get("push.whole_parallel"), 1);
    assert!(probe::get("push.read_by_index") >= 200);
}

/// A streamed read on several threads decodes a batch's pieces on the calling thread when
/// together they are too small to pay for starting threads (probe
/// `parallel.too_little_for_threads`: a file of tiny row groups), on the threads
/// otherwise; either way it reads what one thread reads.
#[cfg(feature = "probes")]
#[test]
fn pieces_too_small_for_threads_decode_on_the_calling_thread() {
    for (rows, group_rows, small) in [(500, 1, true), (300_000, 300_000, false)] {
        let options = WriterOptions::default().with_row_group_rows(group_rows);
        let file = one_int64_file(rows, options, |i| i * 7);
        let read = |threads: usize| -> Vec<i64> {
            let options = ReadOptions::default().with_threads(threads);
            let reader = ParquetReader::with_options(file.clone(), options).unwrap();
            let batches = reader
                .read_builder()
                .with_projection(["a"])
                .build()
                .unwrap();
            batches
                .flat_map(|batch| first_int64s(&batch.unwrap()).to_vec())
                .collect()
        };
        let one = read(1);
        assert_eq!(one, (0..rows).map(|i| i * 7).collect::<Vec<i64>>());
        probe::reset();
        assert_eq!(read(2), one, "{rows} rows");
        let on_caller = probe::get("parallel.too_little_for_threads");
        let on_threads = probe::get("parallel.pieces_on_threads");
        if small {
            assert!(
                on_caller > 0 && on_threads == 0,
                "{on_caller}, {on_threads}"
            );
        } else {
            assert!(on_threads > 0, "{on_caller}, {on_threads}");
        }
    }
}

/// A filter of several stages reads a later stage's column for the rows the earlier ones
/// kept, by pages through its offset index (probe `predicate.stage_by_selection`): the
/// decoder plans the offset indexes of the filter's columns with their data, also where
/// pruning asked for none (row predicates, which no index prunes by). Every range asked is
/// pushed exactly, so nothing else is there to read.
#[cfg(feature = "probes")]
#[test]
fn a_filter_in_stages_plans_the_offset_indexes_it_reads_by() {
    use parq::predicate::RowPredicate;
    let file = int_file(100_000, true, 50_000);
    let below = |name: &'static str, bound: i64| {
        RowPredicate::new(name, [name], move |columns, _| {
            let Values::Int64(v) = &columns[0].values else {
                return Err(parq::Error::Unsupported("int64".into()));
            };
            Ok(arrow_buffer::BooleanBuffer::collect_bool(v.len(), |k| {
                v[k] < bound
            }))
        })
        .into_expr()
    };
    // `b` is `3 * a`: 800 rows, the second stage read for the first's run of 1,000.
    let filter = below("a", 1_000).and(below("b", 2_400));
    probe::reset();
    let options = PushOptions::default().with_filter(Some(filter));
    let (batches, _) = push_read(&file, options, Pushing::WHOLE).unwrap();
    let rows: usize = batches.iter().map(|b| b.num_rows).sum();
    assert_eq!(rows, 800);
    assert_eq!(probe::get("predicate.stage_by_selection"), 1);
}

/// Column `b` of [`dynamic_filter_file`] at row `i`: scattered below 1,000.
fn dynamic_b(i: i64) -> i64 {
    (i * 7919 + i / 400 * 131) % 1000
}

/// A file of `groups` row groups of 400 rows: `a` the row's number, `b` [`dynamic_b`], `s`
/// a string of it; pages of 50 rows, page index.
fn dynamic_filter_file(groups: usize) -> Bytes {
    let rows = 400 * groups as i64;
    let mut out = Vec::new();
    let options = WriterOptions::default()
        .with_data_page_row_limit(50)
        .with_row_group_rows(400)
        .with_page_index(true);
    let fields = vec![Field::int64("a"), Field::int64("b"), Field::string("s")];
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    let ints = |f: &dyn Fn(i64) -> i64| Column {
        len: rows as usize,
        validity: None,
        values: Values::Int64((0..rows).map(f).collect::<Vec<_>>().into()),
    };
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for i in 0..rows {
        data.extend_from_slice(format!("s{}", dynamic_b(i)).as_bytes());
        offsets.push(data.len() as i64);
    }
    let s = Column {
        len: rows as usize,
        validity: None,
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: arrow_buffer::Buffer::from_vec(data),
        },
    };
    w.write_batch(&[ints(&|i| i), ints(&dynamic_b), s]).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

/// A row condition of a dynamic filter's version, and the rows it keeps.
#[derive(Debug, Clone)]
enum Condition {
    BBelow(i64),
    AFrom(i64),
    BIn(Vec<i64>),
}

impl Condition {
    fn random(rng: &mut Rng) -> Condition {
        match rng.below(3) {
            0 => Condition::BBelow(rng.range(100, 1000)),
            1 => Condition::AFrom(rng.range(0, 2000)),
            // A few values: many row groups have none of them, and are evaluated to nothing.
            _ => Condition::BIn((0..1 + rng.below(3)).map(|_| rng.range(0, 999)).collect()),
        }
    }

    fn expr(&self) -> Expr {
        match self {
            Condition::BBelow(v) => col("b").lt(*v),
            Condition::AFrom(v) => col("a").ge(*v),
            Condition::BIn(v) => col("b").is_in(v.iter().copied()),
        }
    }

    fn keeps(&self, a: i64, b: i64) -> bool {
        match self {
            Condition::BBelow(v) => b < *v,
            Condition::AFrom(v) => a >= *v,
            Condition::BIn(v) => v.contains(&b),
        }
    }
}

/// A dynamic filter tightened at random moments (or set once, from the start) of a read
/// whose driver fetches ahead and lands its requests in a random order, as the object-store
/// reader does: every row the last version keeps comes, once and in order, whatever version
/// each row group took.
#[test]
fn a_dynamic_filter_tightened_at_any_moment_keeps_every_row_it_still_wants() {
    let groups = 8;
    let file = dynamic_filter_file(groups);
    // More with PARQ_DYNAMIC_SEEDS: the orders that break planning are rare.
    let seeds = std::env::var("PARQ_DYNAMIC_SEEDS").map_or(500, |s| s.parse().unwrap());
    for seed in 0..seeds {
        let mut rng = Rng::new(seed + 1);
        // Each version adds a condition to those before: it only narrows.
        let mut conditions = Vec::new();
        let versions: Vec<Expr> = (0..1 + rng.below(3))
            .map(|_| {
                conditions.push(Condition::random(&mut rng));
                let mut all = conditions.iter().map(Condition::expr);
                let first = all.next().expect("one condition");
                all.fold(first, Expr::and)
            })
            .collect();
        let projection: Vec<Select> = match rng.below(3) {
            0 => vec!["a".into()],
            1 => vec!["a".into(), "s".into()],
            _ => vec!["a".into(), "b".into()],
        };
        // The first version may be the filter from the start, and the pruning predicate.
        let from_first = rng.chance(0.4);
        let start = match rng.below(2) {
            _ if from_first => Some(versions[0].clone()),
            0 => None,
            _ => Some(col("b").ge(0i64)),
        };
        let predicate = start.clone().filter(|_| rng.chance(0.5));
        let dynamic = parq::read::push::DynamicFilter::new(start);
        let mut options = PushOptions::default()
            .with_projection(Some(projection))
            .with_batch_size(1 + rng.below(300) as usize)
            .with_plan_ahead(rng.chance(0.8))
            .with_filter_exact(rng.chance(0.3))
            .with_predicate(predicate)
            .with_dynamic_filter(Some(dynamic.clone()));
        let mut read = ReadOptions::default();
        if rng.chance(0.3) {
            read = read.with_max_memory(20_000);
        }
        let skipped = rng.chance(0.3);
        if skipped {
            read = read.with_row_groups(Some((0..groups).filter(|&g| g != 2).collect()));
        }
        options = options.with_read(read);
        let context = format!("seed {seed}: {versions:?}, {options:?}");
        let mut d = PushDecoder::try_new(whole_footer(&file), options).unwrap();
        // Requests in flight; one already in flight is not asked for again.
        let mut in_flight = Vec::<Range<u64>>::new();
        let schedule = |ranges: Vec<Range<u64>>, in_flight: &mut Vec<Range<u64>>| {
            for r in ranges {
                if !in_flight.contains(&r) {
                    in_flight.push(r);
                }
            }
        };
        let land = |d: &mut PushDecoder, in_flight: &mut Vec<Range<u64>>, rng: &mut Rng| {
            if in_flight.is_empty() {
                return false;
            }
            let r = in_flight.swap_remove(rng.below(in_flight.len() as u64) as usize);
            d.push(r.start, file.slice(r.start as usize..r.end as usize));
            true
        };
        let (mut taken, mut a) = (usize::from(from_first), Vec::new());
        for step in 0.. {
            assert!(step < 100_000, "{context}: no end");
            if taken < versions.len() && rng.chance(0.15) {
                dynamic.set(Some(versions[taken].clone()));
                taken += 1;
            }
            let step = d.try_next();
            match step.unwrap_or_else(|e| panic!("{context}: {e}")) {
                DecodeResult::NeedsData(ranges) => {
                    schedule(ranges, &mut in_flight);
                    assert!(land(&mut d, &mut in_flight, &mut rng), "{context}: waits");
                }
                DecodeResult::Batch(batch) => {
                    a.extend_from_slice(first_int64s(&batch));
                    d.take_released();
                    let wanted = d.wanted();
                    schedule(wanted, &mut in_flight);
                    for _ in 0..rng.below(3) {
                        land(&mut d, &mut in_flight, &mut rng);
                    }
                }
                DecodeResult::Finished => break,
            }
        }
        // Every row the last version taken keeps (every row if none was), once and in order.
        assert!(a.windows(2).all(|w| w[0] < w[1]), "{context}: order");
        let have: std::collections::HashSet<i64> = a.iter().copied().collect();
        let lost: Vec<i64> = (0..400 * groups as i64)
            .filter(|&i| !skipped || i / 400 != 2)
            .filter(|&i| conditions[..taken].iter().all(|c| c.keeps(i, dynamic_b(i))))
            .filter(|i| !have.contains(i))
            .collect();
        assert!(
            lost.is_empty(),
            "{context}: lost {} rows, {lost:?}",
            lost.len()
        );
    }
}
