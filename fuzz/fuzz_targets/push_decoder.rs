//! The push decoder over a whole file from arbitrary bytes (seeded with the read_file seeds,
//! behind 8 control bytes): the control bytes choose the piece sizes, the push order and
//! extra pieces nobody asked for, and the request shape (coalescing gap, maximum request,
//! memory budget, threads, and sometimes a predicate to prune by, an exact filter, or a
//! dynamic filter set after the first batch). Errors are fine, but for `Error::Internal`; a
//! panic, a hang, or a read that disagrees with `ParquetReader` (one row group at a time, as
//! the push decoder's batches stop at row group ends; under a predicate, the rows
//! `ParquetReader::prune` keeps; under a filter, the rows of `ParquetReader::read_filtered`) is not.
#![no_main]

use std::ops::Range;

use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use parq::array::Array;
use parq::predicate::{col, Expr};
use parq::read::push::{
    DecodeResult, DynamicFilter, FooterDecoder, FooterOptions, FooterStep, IoOptions, PushDecoder,
    PushOptions,
};
use parq::read::{ArrayBatch, ParquetReader, ReadOptions};

/// A tiny generator over the control bytes.
struct Control(u64);

impl Control {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn pieces(file: &Bytes, ranges: &[Range<u64>], c: &mut Control) -> Vec<(u64, Bytes)> {
    let len = file.len() as u64;
    let mut out = Vec::new();
    for r in ranges {
        let (start, end) = (r.start.min(len), r.end.min(len));
        let mut at = start;
        while at < end {
            let n = 1 + c.next() % 4096;
            let e = (at + n).min(end);
            out.push((at, file.slice(at as usize..e as usize)));
            at = e;
        }
    }
    if c.next() % 4 == 0 && len > 0 {
        let a = c.next() % len;
        let b = (a + c.next() % 512).min(len);
        out.push((a, file.slice(a as usize..b as usize)));
    }
    for i in (1..out.len()).rev() {
        out.swap(i, (c.next() % (i as u64 + 1)) as usize);
    }
    out
}

fn options() -> ReadOptions {
    ReadOptions::default()
        .with_max_memory(64 << 20)
        .with_max_footer_size(1 << 20)
}

/// Sometimes a predicate on one of the file's leaves (a null test or an integer
/// comparison; the latter is an error for other columns).
fn predicate(footer: &parq::read::push::Footer, c: &mut Control) -> Option<Expr> {
    let leaves = &footer.schema().leaves;
    if leaves.is_empty() || c.next() % 3 != 0 {
        return None;
    }
    let path = leaves[(c.next() % leaves.len() as u64) as usize].path_string();
    let k = (c.next() % 1000) as i64 - 100;
    Some(match c.next() % 4 {
        0 => col(path).is_null(),
        1 => col(path).is_not_null(),
        2 => col(path).eq(k),
        _ => col(path).lt(k),
    })
}

/// How the read's rows are chosen.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    /// Pruned by the predicate, if there is one.
    Prune,
    /// Filtered exactly by it.
    Filter,
    /// Filtered by it from after the first batch on (a dynamic filter).
    Dynamic,
}

fn push_read(
    file: &Bytes,
    batch_size: usize,
    c: &mut Control,
    expr: &mut Option<Expr>,
    mode: Mode,
) -> parq::Result<Vec<ArrayBatch>> {
    let mut footer = FooterDecoder::new(
        file.len() as u64,
        FooterOptions::default()
            .with_suffix_len([64 << 10, 16, 1000][(c.next() % 3) as usize])
            .with_max_footer_size(1 << 20),
    );
    let footer = loop {
        match footer.try_next()? {
            FooterStep::NeedsData(ranges) => {
                for (at, b) in pieces(file, &ranges, c) {
                    footer.push(at, b);
                }
            }
            FooterStep::Done(f) => break f,
        }
    };
    // On 2 or 3 threads a projection with a nested field decodes row groups ahead (a
    // decoder its caller drives starts them once their bytes are pushed).
    let threads = 1 + (c.next() % 3) as usize;
    let push = PushOptions::default()
        .with_read(options().with_threads(threads))
        .with_batch_size(batch_size)
        .with_io(
            IoOptions::default()
                .with_coalesce_gap([0, 100, 1 << 20][(c.next() % 3) as usize])
                .with_max_request_size([0, 37, 4096][(c.next() % 3) as usize]),
        )
        .with_plan_ahead(c.next() % 2 == 0)
        .with_projection(None);
    *expr = predicate(&footer, c);
    let dynamic = DynamicFilter::new(None);
    let push = match mode {
        Mode::Prune => push.with_predicate(expr.clone()),
        Mode::Filter => push.with_filter(expr.clone()),
        Mode::Dynamic => push.with_dynamic_filter(Some(dynamic.clone())),
    };
    let mut d = PushDecoder::try_new(footer, push)?;
    let mut out = Vec::new();
    let mut rows = 0;
    // Each step makes progress (a batch, or bytes for a missing range), so this bounds
    // the loop without cutting a real read short.
    for _ in 0..1_000_000 {
        match d.try_next()? {
            DecodeResult::NeedsData(ranges) => {
                for (at, b) in pieces(file, &ranges, c) {
                    d.push(at, b);
                }
            }
            DecodeResult::Batch(b) => {
                assert!(b.num_rows <= batch_size, "a batch larger than asked");
                if out.is_empty() && mode == Mode::Dynamic {
                    dynamic.set(expr.clone());
                }
                rows += b.num_rows;
                // Kept, so that the caller sees the read was cut short (its rows pass the cap).
                out.push(b);
                if rows > 1 << 16 {
                    return Ok(out);
                }
            }
            DecodeResult::Finished => return Ok(out),
        }
    }
    panic!("the push decoder made no progress");
}

fn local_read(
    file: &Bytes,
    batch_size: usize,
    expr: Option<&Expr>,
) -> parq::Result<Vec<ArrayBatch>> {
    let mut read = options();
    if let Some(expr) = expr {
        let (kept, _) = ParquetReader::with_options(file.clone(), options())?.prune(expr)?;
        read.selection = Some(kept);
    }
    let whole = ParquetReader::with_options(file.clone(), read.clone())?;
    // By index: a fuzzed schema may repeat names.
    let names: Vec<parq::read::Select> = (0..whole.fields()?.len())
        .map(parq::read::Select::Field)
        .collect();
    let mut out = Vec::new();
    for rg in whole.selected_row_groups() {
        let r = ParquetReader::with_options(
            file.clone(),
            read.clone().with_row_groups(Some(vec![rg])),
        )?;
        for b in r.array_batches(&names, batch_size)? {
            out.push(b?);
        }
    }
    Ok(out)
}

/// The columns of the rows that satisfy `expr`, whole, as `ParquetReader::read_filtered`
/// gives them (by its own evaluation and materialisation).
fn filtered_read(file: &Bytes, expr: &Expr) -> parq::Result<Vec<Array>> {
    let reader = ParquetReader::with_options(file.clone(), options())?;
    let names: Vec<parq::read::Select> = (0..reader.fields()?.len())
        .map(parq::read::Select::Field)
        .collect();
    let (columns, _) = reader.read_filtered(&names, expr)?;
    Ok(columns.into_iter().map(|(_, a)| a).collect())
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let seed = u64::from_le_bytes(data[..8].try_into().unwrap()) | 1;
    let file = Bytes::copy_from_slice(&data[8..]);
    let mut c = Control(seed);
    let batch_size = 1 + (c.next() % 3000) as usize;
    let mut expr = None;
    let mode = [Mode::Prune, Mode::Prune, Mode::Filter, Mode::Dynamic][(c.next() % 4) as usize];
    let got = push_read(&file, batch_size, &mut c, &mut expr, mode);
    // An error of parq's own bookkeeping (bytes planned and bytes read disagreeing) is a
    // bug whatever the input.
    if let Err(parq::Error::Internal(e)) = &got {
        panic!("{e}");
    }
    let Ok(got) = got else {
        return;
    };
    let rows: usize = got.iter().map(|b| b.num_rows).sum();
    if rows >= 1 << 16 || got.is_empty() {
        return;
    }
    let want = match (mode, &expr) {
        // Which rows pass depends on when the filter arrived: finishing is the check.
        (Mode::Dynamic, _) => return,
        (Mode::Filter, Some(expr)) => {
            if let Ok(whole) = filtered_read(&file, expr) {
                let mut row = 0;
                for g in &got {
                    assert!(g.num_rows <= batch_size, "a batch over its size");
                    for (a, w) in g.arrays.iter().zip(&whole) {
                        for k in 0..g.num_rows {
                            assert!(
                                a.value(k) == w.value(row + k),
                                "a row differs from ParquetReader's"
                            );
                        }
                    }
                    row += g.num_rows;
                }
                if let Some(w) = whole.first() {
                    assert_eq!(row, w.len(), "rows");
                }
            }
            return;
        }
        (Mode::Filter, None) | (Mode::Prune, _) => local_read(&file, batch_size, expr.as_ref()),
    };
    if let Ok(want) = want {
        assert_eq!(got.len(), want.len(), "batch count");
        for (g, w) in got.iter().zip(&want) {
            assert_eq!(g.num_rows, w.num_rows);
            assert!(g.arrays == w.arrays, "a batch differs from ParquetReader's");
        }
    }
});
