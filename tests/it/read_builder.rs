//! `ReadBuilder` against the parquet crate as oracle: files the parquet crate writes (small
//! row groups and pages, page index on), read by the builder with a random projection, row
//! groups in a random order, a row selection, a pruning predicate, an exact filter, an
//! offset, a limit and a batch size, with both virtual columns. The oracle is the parquet
//! crate's reading of the whole file, cut by the same rules in plain Rust.

use std::sync::Arc;

use arrow_array::{Array as _, Int32Array, Int64Array, RecordBatch, StringArray};
use arrow_buffer::BooleanBuffer;
use arrow_schema::{DataType, Field, Schema};
use bytes::Bytes;
use parq::array::{Array, Value};
use parq::column::Values;
use parq::predicate::{col, RowPredicate};
use parq::read::{ParquetReader, ReadBuilder, RowSelection, Select};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::file::properties::WriterProperties;
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// One row as the oracle holds it.
#[derive(Debug, Clone, PartialEq)]
struct Row {
    k: Option<i32>,
    v: i64,
    s: Option<String>,
}

/// `rows` written by the parquet crate in row groups of `group_rows` rows and pages of at
/// most `page_rows` rows.
fn write(rows: &[Row], group_rows: usize, page_rows: usize) -> Bytes {
    let schema = Arc::new(Schema::new(vec![
        Field::new("k", DataType::Int32, true),
        Field::new("v", DataType::Int64, false),
        Field::new("s", DataType::Utf8, true),
    ]));
    let props = WriterProperties::builder()
        .set_max_row_group_row_count(Some(group_rows))
        .set_data_page_row_count_limit(page_rows)
        .set_write_batch_size(page_rows)
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, Arc::clone(&schema), Some(props)).unwrap();
    let batch = RecordBatch::try_new(
        schema,
        vec![
            Arc::new(Int32Array::from_iter(rows.iter().map(|r| r.k))),
            Arc::new(Int64Array::from_iter_values(rows.iter().map(|r| r.v))),
            Arc::new(StringArray::from_iter(rows.iter().map(|r| r.s.as_deref()))),
        ],
    )
    .unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    Bytes::from(out)
}

/// The file's rows as the parquet crate reads them, with their row group.
fn oracle(file: &Bytes) -> Vec<(Row, usize)> {
    let builder = ParquetRecordBatchReaderBuilder::try_new(file.clone()).unwrap();
    let groups: Vec<usize> = builder
        .metadata()
        .row_groups()
        .iter()
        .enumerate()
        .flat_map(|(g, rg)| std::iter::repeat_n(g, rg.num_rows() as usize))
        .collect();
    let mut rows = Vec::new();
    for b in builder.build().unwrap() {
        let b = b.unwrap();
        let k = b.column(0).as_any().downcast_ref::<Int32Array>().unwrap();
        let v = b.column(1).as_any().downcast_ref::<Int64Array>().unwrap();
        let s = b.column(2).as_any().downcast_ref::<StringArray>().unwrap();
        for i in 0..b.num_rows() {
            rows.push(Row {
                k: k.is_valid(i).then(|| k.value(i)),
                v: v.value(i),
                s: s.is_valid(i).then(|| s.value(i).to_string()),
            });
        }
    }
    assert_eq!(rows.len(), groups.len());
    rows.into_iter().zip(groups).collect()
}

/// What a read returned: per row, the projected values, the row number and the row group.
type Got = Vec<(Vec<Value>, i64, i32)>;

fn leaf_i64(v: &Value) -> i64 {
    match v {
        Value::Leaf(b) if b.len() == 8 => i64::from_le_bytes(b[..].try_into().unwrap()),
        Value::Leaf(b) if b.len() == 4 => i32::from_le_bytes(b[..].try_into().unwrap()).into(),
        other => panic!("not an integer: {other:?}"),
    }
}

fn value_of(row: &Row, field: usize) -> Value {
    match field {
        0 => row
            .k
            .map_or(Value::Null, |k| Value::Leaf(k.to_le_bytes().to_vec())),
        1 => Value::Leaf(row.v.to_le_bytes().to_vec()),
        _ => row
            .s
            .as_ref()
            .map_or(Value::Null, |s| Value::Leaf(s.as_bytes().to_vec())),
    }
}

#[derive(Debug, Clone)]
struct Case {
    rows: Vec<Row>,
    group_rows: usize,
    page_rows: usize,
    projection: Vec<usize>,
    /// A permutation prefix of the row groups (`None`: all, in order).
    row_groups: Option<Vec<usize>>,
    selection: Option<Vec<(u64, u64)>>,
    prune_below: Option<i32>,
    filter_below: Option<i32>,
    /// The filter as a caller's [`RowPredicate`] over `k` instead of parq's `k < x`.
    custom: bool,
    offset: u64,
    limit: Option<u64>,
    batch_size: usize,
}

fn case() -> impl Strategy<Value = Case> {
    let row = (
        prop::option::weighted(0.85, 0i32..100),
        any::<i64>(),
        prop::option::weighted(0.8, "[a-z]{0,12}"),
    )
        .prop_map(|(k, v, s)| Row { k, v, s });
    (
        prop::collection::vec(row, 0..400),
        1usize..150,
        1usize..40,
        prop::sample::subsequence(vec![0usize, 1, 2], 0..=3).prop_shuffle(),
        prop::option::of(prop::collection::vec(0usize..1000, 0..6)),
        prop::option::of(prop::collection::vec((0u64..450, 0u64..60), 0..6)),
        prop::option::weighted(0.3, 0i32..110),
        prop::option::weighted(0.5, 0i32..110),
        prop_oneof![Just(0u64), 0u64..300],
        prop::option::of(0u64..300),
        prop_oneof![Just(1usize), 1usize..50, Just(8192)],
        any::<bool>(),
    )
        .prop_map(
            |(
                rows,
                group_rows,
                page_rows,
                projection,
                groups,
                selection,
                prune,
                filter,
                offset,
                limit,
                batch_size,
                custom,
            )| {
                Case {
                    rows,
                    group_rows,
                    page_rows,
                    projection,
                    row_groups: groups,
                    selection,
                    prune_below: prune,
                    filter_below: filter,
                    custom,
                    offset,
                    limit,
                    batch_size,
                }
            },
        )
}

/// The builder of case `c` over `reader`, with the virtual columns or not.
fn builder<'a>(
    c: &Case,
    reader: &'a ParquetReader<Bytes>,
    groups: usize,
    virtual_columns: bool,
) -> (ReadBuilder<'a, Bytes>, Option<Vec<usize>>) {
    let mut b = reader
        .read_builder()
        .with_projection(c.projection.iter().map(|&f| Select::Field(f)))
        .with_offset(c.offset)
        .with_batch_size(c.batch_size);
    if virtual_columns {
        b = b
            .with_row_number_column("_pos")
            .with_row_group_column("_group");
    }
    // Row groups: distinct, in the order drawn.
    let row_groups = c.row_groups.as_ref().map(|g| {
        let mut out: Vec<usize> = Vec::new();
        for &i in g {
            if groups > 0 && !out.contains(&(i % groups)) {
                out.push(i % groups);
            }
        }
        out
    });
    if let Some(g) = &row_groups {
        b = b.with_row_groups(g.iter().copied());
    }
    if let Some(s) = &c.selection {
        b = b.with_row_selection(RowSelection::from_ranges(
            s.iter().map(|&(start, len)| start..start + len),
        ));
    }
    if let Some(x) = c.prune_below {
        // Under a filter, a pruning predicate no stricter than it: pruning is inexact, so
        // only then is the result exact.
        let x = x.max(c.filter_below.unwrap_or(x));
        b = b.with_pruning_predicate(col("k").lt(x as i64));
    }
    if let Some(x) = c.filter_below {
        b = b.with_filter(if c.custom {
            k_below(x).into_expr()
        } else {
            col("k").lt(x as i64)
        });
    }
    if let Some(l) = c.limit {
        b = b.with_limit(l);
    }
    (b, row_groups)
}

/// `k < x` as a caller's predicate over the decoded `k` (a null `k` fails it).
fn k_below(x: i32) -> RowPredicate {
    RowPredicate::new("k_below", ["k"], move |columns, _| {
        let k = &columns[0];
        let Values::Int32(v) = &k.values else {
            return Err(parq::Error::Unsupported(format!("k as {:?}", k.values)));
        };
        Ok(BooleanBuffer::collect_bool(k.len, |i| {
            k.is_valid(i) && v[i] < x
        }))
    })
}

/// Every batch of `b` as a push decoder fed from `file`.
fn through_decoder(b: ReadBuilder<'_, Bytes>, file: &Bytes) -> Vec<parq::read::ArrayBatch> {
    use parq::read::push::DecodeResult;
    let mut d = b.build_decoder().unwrap();
    let mut out = Vec::new();
    loop {
        match d.try_next().unwrap() {
            DecodeResult::NeedsData(ranges) => {
                for r in ranges {
                    d.push(r.start, file.slice(r.start as usize..r.end as usize));
                }
            }
            DecodeResult::Batch(batch) => out.push(batch),
            DecodeResult::Finished => return out,
        }
    }
}

fn read(c: &Case, file: &Bytes, groups: usize) -> (Got, Option<Vec<usize>>, usize) {
    let reader = ParquetReader::new(file.clone()).unwrap();
    // The same read as a push decoder: the same batches, virtual columns included.
    let (b, _) = builder(c, &reader, groups, true);
    let pushed = through_decoder(b, file);
    let (b, _) = builder(c, &reader, groups, true);
    let built: Vec<_> = b.build().unwrap().map(|b| b.unwrap()).collect();
    // Rows, not batches: without a projection the builder's batches span row groups.
    let rows = |batches: &[parq::read::ArrayBatch]| -> Vec<Vec<Value>> {
        batches
            .iter()
            .flat_map(|b| {
                (0..b.num_rows).map(move |i| b.arrays.iter().map(|a| a.value(i)).collect())
            })
            .collect()
    };
    let count =
        |batches: &[parq::read::ArrayBatch]| batches.iter().map(|b| b.num_rows).sum::<usize>();
    assert_eq!(
        count(&pushed),
        count(&built),
        "rows through the push decoder"
    );
    assert_eq!(rows(&pushed), rows(&built), "through the push decoder");
    // The same read in one batch: the same rows, whole columns.
    let (b, _) = builder(c, &reader, groups, true);
    let whole = b.read_all().unwrap();
    assert_eq!(whole.arrays.len(), c.projection.len() + 2);
    for a in &whole.arrays {
        assert_eq!(a.len(), whole.num_rows);
    }
    assert_eq!(
        rows(std::slice::from_ref(&whole)),
        rows(&built),
        "in one batch"
    );

    let (b, row_groups) = builder(c, &reader, groups, true);
    let batches = b.build().unwrap();
    let fields = batches.fields().len();
    assert_eq!(
        fields,
        c.projection.len() + 2,
        "projected and virtual fields"
    );
    let mut got = Vec::new();
    for batch in batches {
        let batch = batch.unwrap();
        assert!(batch.num_rows >= 1 && batch.num_rows <= c.batch_size);
        assert_eq!(batch.arrays.len(), fields);
        for a in &batch.arrays {
            assert_eq!(a.len(), batch.num_rows);
        }
        let n = c.projection.len();
        for i in 0..batch.num_rows {
            let values = batch.arrays[..n]
                .iter()
                .map(|a: &Array| a.value(i))
                .collect();
            let pos = leaf_i64(&batch.arrays[n].value(i));
            let group = leaf_i64(&batch.arrays[n + 1].value(i)) as i32;
            got.push((values, pos, group));
        }
    }
    // The same read as Arrow record batches: the same rows and values.
    #[cfg(feature = "arrow")]
    {
        let (b, _) = builder(c, &reader, groups, true);
        assert_eq!(arrow_rows(b, &c.projection), got, "as Arrow record batches");
    }
    (got, row_groups, groups)
}

#[cfg(feature = "arrow")]
/// `b`'s read as Arrow record batches (`build_arrow`), as [`Got`]: the projection
/// (`fields` of `k`, `v`, `s`), then the row-number and row-group columns.
fn arrow_rows(b: ReadBuilder<'_, Bytes>, fields: &[usize]) -> Got {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Int32Type, Int64Type};
    let batches = b.build_arrow(None).unwrap();
    let n = fields.len();
    let schema = arrow_array::RecordBatchReader::schema(&batches);
    assert_eq!(schema.fields().len(), n + 2);
    assert_eq!(schema.field(n).data_type(), &DataType::Int64);
    assert_eq!(schema.field(n + 1).data_type(), &DataType::Int32);
    let mut got = Vec::new();
    for batch in batches {
        let batch = batch.unwrap();
        for i in 0..batch.num_rows() {
            let values = fields
                .iter()
                .enumerate()
                .map(|(at, &f)| {
                    let a = batch.column(at);
                    if a.is_null(i) {
                        return Value::Null;
                    }
                    Value::Leaf(match f {
                        0 => a
                            .as_primitive::<Int32Type>()
                            .value(i)
                            .to_le_bytes()
                            .to_vec(),
                        1 => a
                            .as_primitive::<Int64Type>()
                            .value(i)
                            .to_le_bytes()
                            .to_vec(),
                        _ => a.as_string::<i32>().value(i).as_bytes().to_vec(),
                    })
                })
                .collect();
            let pos = batch.column(n).as_primitive::<Int64Type>().value(i);
            let group = batch.column(n + 1).as_primitive::<Int32Type>().value(i);
            got.push((values, pos, group));
        }
    }
    got
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]

    #[test]
    fn read_builder_matches_the_parquet_crate(c in case()) {
        let file = write(&c.rows, c.group_rows, c.page_rows);
        let all = oracle(&file);
        let groups = all.last().map_or(0, |(_, g)| g + 1);
        let (got, row_groups, _) = read(&c, &file, groups);

        // The rows the builder must return, in order, before pruning.
        let order: Vec<usize> = row_groups.unwrap_or_else(|| (0..groups).collect());
        let selected = |pos: u64| match &c.selection {
            None => true,
            Some(s) => s.iter().any(|&(start, len)| (start..start + len).contains(&pos)),
        };
        let passes = |r: &Row| c.filter_below.is_none_or(|x| r.k.is_some_and(|k| k < x));
        let candidates: Vec<(usize, &Row, usize)> = order
            .iter()
            .flat_map(|&g| all.iter().enumerate().filter(move |(_, (_, rg))| *rg == g))
            .filter(|(pos, _)| selected(*pos as u64))
            .map(|(pos, (row, g))| (pos, row, *g))
            .collect();

        if c.prune_below.is_some() && c.filter_below.is_none() {
            // Pruning is inexact: every row that may match is there, in order, and only
            // selected rows; which others stay is the metadata's call.
            if c.offset == 0 && c.limit.is_none() {
                let prune = c.prune_below.unwrap();
                let got_pos: Vec<i64> = got.iter().map(|g| g.1).collect();
                let must: Vec<i64> = candidates
                    .iter()
                    .filter(|(_, r, _)| r.k.is_some_and(|k| k < prune))
                    .map(|(p, _, _)| *p as i64)
                    .collect();
                let cand: Vec<i64> = candidates.iter().map(|(p, _, _)| *p as i64).collect();
                let mut at = 0;
                for p in &got_pos {
                    at += cand[at..].iter().position(|q| q == p).expect("a row out of order or unselected") + 1;
                }
                for p in must {
                    prop_assert!(got_pos.contains(&p), "row {} may match but was pruned", p);
                }
            }
            return Ok(());
        }
        let expected: Got = candidates
            .iter()
            .filter(|(_, r, _)| passes(r))
            .skip(c.offset as usize)
            .take(c.limit.map_or(usize::MAX, |l| l as usize))
            .map(|(pos, r, g)| {
                let values = c.projection.iter().map(|&f| value_of(r, f)).collect();
                (values, *pos as i64, *g as i32)
            })
            .collect();
        prop_assert_eq!(got, expected);
    }
}

/// An offset and a limit without a filter become a narrower selection before anything is
/// read: the row groups wholly before the offset or after the limit are never decoded.
#[test]
fn offset_and_limit_skip_whole_row_groups() {
    let rows: Vec<Row> = (0..1000)
        .map(|i| Row {
            k: Some(i % 100),
            v: i64::from(i),
            s: None,
        })
        .collect();
    let file = write(&rows, 100, 10);
    let reader = ParquetReader::new(file).unwrap();
    let batches = reader
        .read_builder()
        .with_projection(["v"])
        .with_offset(250)
        .with_limit(120)
        .with_row_group_column("g")
        .build()
        .unwrap();
    let mut vs = Vec::new();
    let mut groups = Vec::new();
    for b in batches {
        let b = b.unwrap();
        for i in 0..b.num_rows {
            vs.push(leaf_i64(&b.arrays[0].value(i)));
            groups.push(leaf_i64(&b.arrays[1].value(i)));
        }
    }
    assert_eq!(vs, (250..370).collect::<Vec<i64>>());
    groups.dedup();
    assert_eq!(groups, vec![2, 3]);
}

/// An empty projection reads no column: the batches carry the count and the virtual columns.
#[test]
fn empty_projection_counts_rows() {
    let rows: Vec<Row> = (0..300)
        .map(|i| Row {
            k: Some(i),
            v: 0,
            s: None,
        })
        .collect();
    let file = write(&rows, 128, 16);
    let reader = ParquetReader::new(file).unwrap();
    let plain: usize = reader
        .read_builder()
        .with_projection(Vec::<Select>::new())
        .with_batch_size(50)
        .build()
        .unwrap()
        .map(|b| b.unwrap().num_rows)
        .sum();
    assert_eq!(plain, 300);
    let filtered: Vec<i64> = reader
        .read_builder()
        .with_projection(Vec::<Select>::new())
        .with_filter(col("k").lt(7i64))
        .with_row_number_column("pos")
        .build()
        .unwrap()
        .flat_map(|b| {
            let b = b.unwrap();
            (0..b.num_rows)
                .map(|i| leaf_i64(&b.arrays[0].value(i)))
                .collect::<Vec<_>>()
        })
        .collect();
    assert_eq!(filtered, (0..7).collect::<Vec<i64>>());
}

#[test]
fn builder_refuses_bad_arguments() {
    let file = write(
        &[Row {
            k: None,
            v: 1,
            s: None,
        }],
        10,
        10,
    );
    let reader = ParquetReader::new(file).unwrap();
    for b in [
        reader.read_builder().with_row_groups([1]),
        reader.read_builder().with_row_groups([0, 0]),
        reader
            .read_builder()
            .with_row_number_column("x")
            .with_row_group_column("x"),
    ] {
        let e = b.build().err().expect("an error");
        assert!(e.to_string().contains("invalid argument"), "{e}");
    }
}

/// Row groups read out of file order: the exact filter's rows are the rows that pass, and a
/// whole filtered read returns them in the row groups' order (the evaluation's mask once
/// followed the order given while the rows it stood for were in file order).
#[test]
fn exact_filters_over_row_groups_out_of_order() {
    let rows: Vec<Row> = (0..300)
        .map(|i| Row {
            // Unlike from one row group to the next.
            k: Some(((i as u64).wrapping_mul(2_654_435_761) >> 7) as i32 % 100),
            v: i,
            s: None,
        })
        .collect();
    let file = write(&rows, 100, 10);
    let order = [2usize, 0, 1];
    let options = parq::read::ReadOptions::default().with_row_groups(Some(order.to_vec()));
    let reader = ParquetReader::with_options(file, options).unwrap();
    let passes = |r: &Row| r.k.is_some_and(|k| k < 30);
    let filter = || col("k").lt(30i64);

    let (matched, _) = reader.filter_rows(&filter()).unwrap();
    let got: Vec<u64> = matched.ranges().iter().flat_map(|r| r.clone()).collect();
    let want: Vec<u64> = (0..rows.len() as u64)
        .filter(|&i| passes(&rows[i as usize]))
        .collect();
    assert_eq!(got, want, "filter_rows");

    let want_v: Vec<i64> = order
        .iter()
        .flat_map(|&g| rows[g * 100..(g + 1) * 100].iter())
        .filter(|r| passes(r))
        .map(|r| r.v)
        .collect();
    let values = |a: &Array| {
        (0..a.len())
            .map(|i| leaf_i64(&a.value(i)))
            .collect::<Vec<_>>()
    };
    let (columns, _) = reader.read_filtered(&["v"], &filter()).unwrap();
    assert_eq!(values(&columns[0].1), want_v, "read_filtered");
    let batch = reader
        .read_builder()
        .with_projection(["v"])
        .with_filter(filter())
        .read_all()
        .unwrap();
    assert_eq!(values(&batch.arrays[0]), want_v, "read_all");
}
