//! `ReadBuilder` over arbitrary bytes (the read_filtered seeds: 8 control bytes, then a
//! file): a projection, row groups, a selection, a pruning predicate or an exact filter, an
//! offset, a limit, a batch size and both virtual columns, drawn from the control bytes.
//! Errors are fine, but for `Error::Internal`; a panic, a batch over its size or past the
//! limit, arrays of the wrong length, or positions out of order are not. Where both reads
//! succeed, an offset and a limit cut the same rows out of the read without them, and the
//! same read as a push decoder (`build_decoder`) and as Arrow (`build_arrow`) returns the
//! same rows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::array::Value;
use parq::predicate::col;
use parq::read::{ParquetReader, ReadBuilder, ReadOptions, RowSelection, Select};

/// `r`'s value, `None` on an error; an error of parq's own bookkeeping is a bug whatever
/// the input.
fn ok<T>(r: parq::Result<T>) -> Option<T> {
    match r {
        Err(parq::Error::Internal(e)) => panic!("{e}"),
        r => r.ok(),
    }
}

/// Rows compared at most (`Array::value` builds a tree per row).
const MAX_ROWS: usize = 1 << 14;

fn options() -> ReadOptions {
    ReadOptions::default().with_max_memory(64 << 20)
}

/// The builder of the read set up from `c`, with its projection and batch size.
fn builder<'a>(
    reader: &'a ParquetReader<bytes::Bytes>,
    c: u64,
    (offset, limit): (u64, Option<u64>),
) -> Option<(ReadBuilder<'a, bytes::Bytes>, Vec<Select>, usize)> {
    let leaves = reader.schema().leaves.len();
    let fields = reader.fields().ok()?.len();
    let groups = reader.metadata().row_groups.len();
    let batch_size = [1, 3, 100, 8192][(c % 4) as usize];
    let projection: Vec<Select> = (0..fields)
        .filter(|f| (c >> (8 + f % 8)) & 1 == 1)
        .map(Select::Field)
        .collect();
    let mut b = reader
        .read_builder()
        .with_projection(projection.clone())
        .with_batch_size(batch_size)
        .with_offset(offset)
        .with_row_number_column("_pos")
        .with_row_group_column("_group");
    if let Some(l) = limit {
        b = b.with_limit(l);
    }
    if (c >> 16) & 1 == 1 && groups > 0 {
        // Every other row group, last first.
        b = b.with_row_groups((0..groups).rev().step_by(2));
    }
    if (c >> 17) & 1 == 1 {
        let start = (c >> 20) % 64;
        b = b.with_row_selection(RowSelection::from_ranges([start..start + (c >> 26) % 512]));
    }
    if leaves > 0 {
        let path = reader.schema().leaves[((c >> 35) % leaves as u64) as usize].path_string();
        let k = ((c >> 44) % 200) as i64 - 50;
        match (c >> 52) % 4 {
            0 => b = b.with_filter(col(path).lt(k)),
            1 => b = b.with_filter(col(path).is_not_null()),
            2 => b = b.with_pruning_predicate(col(path).ge(k)),
            _ => {}
        }
    }
    Some((b, projection, batch_size))
}

/// The positions (row numbers) of the read set up from `c` as a push decoder fed the whole
/// file (`build_decoder`), as Arrow record batches (`build_arrow`) and as one batch
/// (`read_all`): `None` where a read fails or passes [`MAX_ROWS`].
fn other_outputs(
    reader: &ParquetReader<bytes::Bytes>,
    file: &bytes::Bytes,
    c: u64,
) -> [Option<Vec<i64>>; 3] {
    use arrow_array::cast::AsArray;
    use arrow_array::types::Int64Type;
    use parq::read::push::DecodeResult;
    let pushed = (|| {
        let (b, projection, _) = builder(reader, c, (0, None))?;
        let mut d = ok(b.build_decoder())?;
        let mut out = Vec::new();
        loop {
            match ok(d.try_next())? {
                DecodeResult::NeedsData(ranges) => {
                    for r in ranges {
                        // A range past the end: the footer lies, and a driver would fail.
                        let (start, end) = (r.start as usize, r.end as usize);
                        if start > end || end > file.len() {
                            return None;
                        }
                        d.push(r.start, file.slice(start..end));
                    }
                }
                DecodeResult::Batch(batch) => {
                    let pos = &batch.arrays[projection.len()];
                    out.extend((0..batch.num_rows).map(|i| le_i64(&pos.value(i))));
                    if out.len() >= MAX_ROWS {
                        return None;
                    }
                }
                DecodeResult::Finished => return Some(out),
            }
        }
    })();
    let arrow = (|| {
        let (b, projection, _) = builder(reader, c, (0, None))?;
        let mut out = Vec::new();
        for batch in ok(b.build_arrow(None))? {
            let batch = batch.ok()?;
            let pos = batch.column(projection.len()).as_primitive::<Int64Type>();
            out.extend(pos.values().iter().copied());
            if out.len() >= MAX_ROWS {
                return None;
            }
        }
        Some(out)
    })();
    let whole = (|| {
        let (b, projection, _) = builder(reader, c, (0, None))?;
        let batch = ok(b.read_all())?;
        let pos = &batch.arrays[projection.len()];
        Some((0..batch.num_rows).map(|i| le_i64(&pos.value(i))).collect())
    })();
    [pushed, arrow, whole]
}

/// What a read set up from `c` returned: per row, its values, position and row group; `None`
/// on an error or past [`MAX_ROWS`].
fn read(
    reader: &ParquetReader<bytes::Bytes>,
    c: u64,
    cut: (u64, Option<u64>),
) -> Option<Vec<(Vec<Value>, Value, Value)>> {
    let (b, projection, batch_size) = builder(reader, c, cut)?;
    let limit = cut.1;
    let batches = ok(b.build())?;
    let width = batches.fields().len();
    assert_eq!(width, projection.len() + 2, "projected and virtual fields");
    let mut rows = Vec::new();
    let mut last: Option<(Value, Value)> = None;
    for batch in batches {
        let batch = ok(batch)?;
        assert!(
            batch.num_rows > 0 && batch.num_rows <= batch_size,
            "a batch of {} rows",
            batch.num_rows
        );
        assert_eq!(batch.arrays.len(), width, "arrays in a batch");
        for a in &batch.arrays {
            assert_eq!(a.len(), batch.num_rows, "batch array length");
        }
        for i in 0..batch.num_rows {
            let n = projection.len();
            let pos = batch.arrays[n].value(i);
            let group = batch.arrays[n + 1].value(i);
            // Within a row group, positions rise.
            if let Some((p, g)) = &last {
                if *g == group {
                    assert!(le_i64(p) < le_i64(&pos), "positions out of order");
                }
            }
            last = Some((pos.clone(), group.clone()));
            rows.push((
                batch.arrays[..n].iter().map(|a| a.value(i)).collect(),
                pos,
                group,
            ));
        }
        assert!(
            limit.is_none_or(|l| rows.len() as u64 <= l),
            "past the limit"
        );
        if rows.len() >= MAX_ROWS {
            return None;
        }
    }
    Some(rows)
}

fn le_i64(v: &Value) -> i64 {
    match v {
        Value::Leaf(b) if b.len() == 8 => i64::from_le_bytes(b[..].try_into().unwrap()),
        other => panic!("a position that is not an INT64: {other:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let c = u64::from_le_bytes(data[..8].try_into().unwrap());
    let Ok(reader) =
        ParquetReader::with_options(bytes::Bytes::copy_from_slice(&data[8..]), options())
    else {
        return;
    };
    let all = read(&reader, c, (0, None));
    // The same read through the push decoder, as Arrow and in one batch: the same rows,
    // where each succeeds (an Arrow type a column cannot take may fail the Arrow read alone).
    if let Some(all) = &all {
        let file = bytes::Bytes::copy_from_slice(&data[8..]);
        let positions: Vec<i64> = all.iter().map(|(_, p, _)| le_i64(p)).collect();
        let [pushed, arrow, whole] = other_outputs(&reader, &file, c);
        for (how, got) in [
            ("push decoder", pushed),
            ("Arrow", arrow),
            ("read_all", whole),
        ] {
            if let Some(got) = got {
                assert!(
                    got == positions,
                    "{how}: other rows than the builder's iterator"
                );
            }
        }
    }
    let (offset, limit) = ((c >> 56) % 8, (c >> 59) % 16);
    let cut = read(&reader, c, (offset, Some(limit)));
    if let (Some(all), Some(cut)) = (all, cut) {
        let from = (offset as usize).min(all.len());
        let to = (from + limit as usize).min(all.len());
        assert!(all[from..to] == cut[..], "offset {offset}, limit {limit}");
    }
});
