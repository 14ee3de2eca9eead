//! Predicates: pruning counts on files built so that exactly k row groups or pages survive
//! (asserted with probes and `FilterStats`), and a proptest of pruned + exact filtering
//! against a naive evaluation over every row.

use crate::python;
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq::codecs::probe;
use parq::column::{Column, Values};
use parq::predicate::{col, CmpOp, Expr, Literal, Materialise, RowPredicate};
use parq::read::{ParquetReader, ReadOptions, RowSelection};
use parq::write::{BloomFilterOptions, EncodingPolicy, Field, ParquetWriter, WriterOptions};
use proptest::prelude::*;

fn write(fields: Vec<Field>, columns: &[Column], options: WriterOptions) -> Bytes {
    let mut file = Vec::new();
    let mut w = ParquetWriter::new(&mut file, fields, options).unwrap();
    w.write_batch(columns).unwrap();
    w.finish().unwrap();
    Bytes::from(file)
}

fn int64(values: impl IntoIterator<Item = i64>) -> Column {
    let v: Vec<i64> = values.into_iter().collect();
    Column {
        len: v.len(),
        validity: None,
        values: Values::Int64(ScalarBuffer::from(v)),
    }
}

fn strings(values: &[Option<&str>]) -> Column {
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for v in values {
        data.extend_from_slice(v.unwrap_or("").as_bytes());
        offsets.push(data.len() as i64);
    }
    let validity = values
        .iter()
        .any(Option::is_none)
        .then(|| NullBuffer::from_iter(values.iter().map(Option::is_some)));
    Column {
        len: values.len(),
        validity,
        values: Values::Binary {
            offsets: OffsetBuffer::new(offsets.into()),
            data: Buffer::from_vec(data),
        },
    }
}

/// 1000 sorted ids in 10 row groups of 100 rows, pages of 10 rows, with a page index.
fn sorted_ids(page_index: bool) -> Bytes {
    let options = WriterOptions::default()
        .with_row_group_rows(100)
        .with_data_page_row_limit(10)
        .with_page_index(page_index);
    let ids = int64(0..1000);
    let other = int64((0..1000).map(|i| i * 7 % 13));
    write(
        vec![Field::int64("id"), Field::int64("other")],
        &[ids, other],
        options,
    )
}

/// The selection of one range of rows.
fn range_of(r: std::ops::Range<u64>) -> RowSelection {
    RowSelection::from_ranges(std::iter::once(r))
}

fn ids_of(reader: &ParquetReader, expr: &Expr) -> Vec<i64> {
    let (cols, _) = reader.read_filtered(&["id"], expr).unwrap();
    let Some(Values::Int64(v)) = cols[0].1.as_primitive().map(|c| &c.values) else {
        panic!("int64 column expected");
    };
    v.to_vec()
}

#[test]
fn statistics_and_page_index_leave_exactly_k() {
    let reader = ParquetReader::new(sorted_ids(true)).unwrap();
    // One row group of ten survives the statistics, one page of ten the column index.
    probe::reset();
    let expr = col("id").ge(253).and(col("id").le(257));
    let (sel, stats) = reader.prune(&expr).unwrap();
    assert_eq!(sel, range_of(250..260));
    assert_eq!((stats.row_groups, stats.row_groups_pruned), (10, 9));
    assert_eq!(stats.pruned_by_statistics, 9);
    assert_eq!((stats.pages, stats.pages_pruned), (10, 9));
    assert_eq!(stats.rows_selected, 10);
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.row_group_pruned_by_statistics"), 9);
        assert_eq!(probe::get("predicate.page_pruned"), 9);
    }
    probe::reset();
    assert_eq!(ids_of(&reader, &expr), vec![253, 254, 255, 256, 257]);
    if probe::ENABLED {
        // `id` is both the predicate and the projection: decoded once.
        assert_eq!(probe::get("predicate.predicate_column_reused"), 1);
    }

    // Pages in two row groups: 195..=204 spans the end of group 1 and the start of group 2.
    let expr = col("id").is_in([195, 204]).or(col("id").eq(999));
    let (sel, stats) = reader.prune(&expr).unwrap();
    assert_eq!(
        sel,
        RowSelection::from_ranges([190..200, 200..210, 990..1000])
    );
    assert_eq!((stats.row_groups_pruned, stats.pages_pruned), (7, 27));
    assert_eq!(ids_of(&reader, &expr), vec![195, 204, 999]);

    // A NOT over a range: everything but one page.
    let expr = Expr::parse("not (id >= 10 and id < 995)").unwrap();
    let (_, stats) = reader.prune(&expr).unwrap();
    assert_eq!(stats.row_groups_pruned, 8);
    let (rows, stats) = reader.filter_rows(&expr).unwrap();
    assert_eq!(rows, RowSelection::from_ranges([0..10, 995..1000]));
    assert_eq!(stats.rows_matched, 15);
}

#[test]
fn row_groups_without_a_match_are_not_materialised() {
    let reader = ParquetReader::new(sorted_ids(true)).unwrap();
    // Metadata cannot rule out row group 1 (nor page 150..160), exact evaluation can.
    let expr = col("id").eq(150).and(col("id").eq(151));
    probe::reset();
    let (cols, stats) = reader.read_filtered(&["other"], &expr).unwrap();
    assert_eq!((stats.row_groups_pruned, stats.rows_selected), (9, 10));
    assert_eq!((stats.rows_matched, cols[0].1.len()), (0, 0));
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.row_group_without_match"), 1);
        assert_eq!(probe::get("predicate.predicate_column_reused"), 0);
    }
}

#[test]
fn a_filter_every_row_passes_reads_as_a_plain_scan() {
    let reader = id_and_other();
    let all = col("id").ge(0);
    let want: Vec<i64> = (0..1000).map(|i: i64| -i).collect();
    for how in [Materialise::Selected, Materialise::Masked] {
        probe::reset();
        assert_eq!(filtered_others(&reader, &all, how), want, "{how:?}");
        if probe::ENABLED {
            // Pruning left the whole group and every row matched: no selection either time
            // (decoded whole, the matches' reader is never built).
            let readers = if how == Materialise::Masked { 1 } else { 2 };
            assert_eq!(
                probe::get("predicate.whole_row_groups_unselected"),
                readers,
                "{how:?}"
            );
            // Decoded whole, the batches are kept as they are (16 batches of 64 rows).
            let whole = if how == Materialise::Masked { 16 } else { 0 };
            assert_eq!(
                probe::get("predicate.mask_keeps_every_row"),
                whole,
                "{how:?}"
            );
        }
    }
}

/// 1000 rows in one row group, pages of 100: `id` 0..1000 and `other` = -id.
fn id_and_other() -> ParquetReader {
    let options = WriterOptions::default()
        .with_row_group_rows(1000)
        .with_data_page_row_limit(100);
    let file = write(
        vec![Field::int64("id"), Field::int64("other")],
        &[int64(0..1000), int64((0..1000).map(|i| -i))],
        options,
    );
    ParquetReader::new(file).unwrap()
}

/// Rows of `other` in the filtered batches of `reader` under `expr`, read `how`.
fn filtered_others(reader: &ParquetReader, expr: &Expr, how: Materialise) -> Vec<i64> {
    let mut out = Vec::new();
    for b in reader
        .read_builder()
        .with_projection(["other"])
        .with_filter(expr.clone())
        .with_batch_size(64)
        .with_materialise(how)
        .build()
        .unwrap()
    {
        let b = b.unwrap();
        assert!(b.num_rows <= 64);
        let Some(Values::Int64(v)) = b.arrays[0].as_primitive().map(|c| &c.values) else {
            panic!("int64 column expected");
        };
        out.extend_from_slice(v);
    }
    out
}

#[test]
fn scattered_matches_are_decoded_then_filtered_and_runs_are_skipped() {
    // 1000 rows in one row group: `id % 2 = 0` matches every other row (runs of one row),
    // `250 <= id < 300` one run, half of the page the column index leaves.
    let reader = id_and_other();
    let even = col("id").is_in((0..1000).step_by(2));
    let half = col("id").ge(250).and(col("id").lt(300));
    let want_even: Vec<i64> = (0..1000).step_by(2).map(|i: i64| -i).collect();
    let want_half: Vec<i64> = (250..300).map(|i: i64| -i).collect();
    for (expr, want, by_mask) in [(&even, &want_even, true), (&half, &want_half, false)] {
        probe::reset();
        assert_eq!(&filtered_others(&reader, expr, Materialise::Auto), want);
        if probe::ENABLED {
            let (mask, selection) = (
                probe::get("predicate.materialised_by_mask"),
                probe::get("predicate.materialised_by_selection"),
            );
            assert_eq!(
                (mask, selection),
                (by_mask as u64, !by_mask as u64),
                "{expr}"
            );
            // The column index prunes `250 <= id < 300` to its page; the even ids leave the
            // whole row group, read without a selection.
            let whole = u64::from(by_mask);
            let unselected = probe::get("predicate.whole_row_groups_unselected");
            assert_eq!(unselected, whole, "{expr}");
        }
        // Forced either way, the rows are the same.
        for how in [Materialise::Selected, Materialise::Masked] {
            assert_eq!(&filtered_others(&reader, expr, how), want, "{expr} {how:?}");
        }
        // The whole read decides the same way.
        probe::reset();
        let (cols, _) = reader.read_filtered(&["other"], expr).unwrap();
        assert_eq!(cols[0].1.len(), want.len());
        if probe::ENABLED {
            assert_eq!(
                probe::get("predicate.materialised_by_mask"),
                by_mask as u64,
                "{expr}"
            );
        }
    }
}

#[test]
fn matches_in_long_runs_are_copied_run_by_run_and_scattered_ones_gathered() {
    // Every id but the multiples of 100 (runs of 99 rows, scattered skips: decoded then
    // filtered), and every other id (runs of one row).
    let reader = id_and_other();
    let most = col("id").is_in((0..1000).step_by(100)).not();
    let even = col("id").is_in((0..1000).step_by(2));
    for (expr, by_runs) in [(&most, true), (&even, false)] {
        probe::reset();
        let want: Vec<i64> = (0..1000i64)
            .filter(|i| if by_runs { i % 100 != 0 } else { i % 2 == 0 })
            .map(|i| -i)
            .collect();
        assert_eq!(
            filtered_others(&reader, expr, Materialise::Auto),
            want,
            "{expr}"
        );
        if probe::ENABLED {
            assert_eq!(probe::get("predicate.materialised_by_mask"), 1, "{expr}");
            assert_eq!(probe::get("predicate.kept_by_runs") > 0, by_runs, "{expr}");
        }
    }
}

#[test]
fn without_a_page_index_only_row_groups_are_pruned() {
    let reader = ParquetReader::new(sorted_ids(false)).unwrap();
    let expr = col("id").ge(253).and(col("id").le(257));
    let (sel, stats) = reader.prune(&expr).unwrap();
    assert_eq!(sel, range_of(200..300));
    assert_eq!(
        (stats.row_groups_pruned, stats.pages, stats.pages_pruned),
        (9, 0, 0)
    );
    assert_eq!(ids_of(&reader, &expr), vec![253, 254, 255, 256, 257]);
}

#[test]
fn page_index_prunes_a_whole_row_group() {
    // Row group 0 holds 0..50 and 100..150: its statistics say 0..=149, its pages say no 75.
    let ids = int64((0..50).chain(100..150).chain(50..100).chain(150..200));
    let options = WriterOptions::default()
        .with_row_group_rows(100)
        .with_data_page_row_limit(50);
    let reader = ParquetReader::new(write(vec![Field::int64("id")], &[ids], options)).unwrap();
    probe::reset();
    let (sel, stats) = reader.prune(&col("id").eq(75)).unwrap();
    assert_eq!(sel, range_of(100..150));
    assert_eq!(
        (stats.pruned_by_statistics, stats.pruned_by_page_index),
        (0, 1)
    );
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.row_group_pruned_by_page_index"), 1);
    }
}

#[test]
fn dictionaries_prune_what_statistics_cannot() {
    // Each row group holds "a" and "z" (so every middle value is inside its bounds) and one
    // more value of its own; only the dictionary knows which.
    let mut values = Vec::new();
    for g in 0..4 {
        let own = ["d", "h", "m", "q"][g];
        for i in 0..100 {
            values.push(Some(match i % 3 {
                0 => "a",
                1 => "z",
                _ => own,
            }));
        }
    }
    let options = WriterOptions::default()
        .with_row_group_rows(100)
        .with_encoding(EncodingPolicy::Dictionary);
    let file = write(vec![Field::string("s")], &[strings(&values)], options);
    let reader = ParquetReader::new(file).unwrap();
    probe::reset();
    let (_, stats) = reader.prune(&col("s").eq("m")).unwrap();
    assert_eq!(stats.pruned_by_statistics, 0);
    assert_eq!(stats.pruned_by_dictionary, 3);
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.row_group_pruned_by_dictionary"), 3);
    }
    let (rows, stats) = reader.filter_rows(&col("s").is_in(["m", "h"])).unwrap();
    assert_eq!(stats.pruned_by_dictionary, 2);
    assert_eq!(rows.row_count(), 66);
    // `!=` passes for the other entries: nothing to prune.
    let (_, stats) = reader.prune(&col("s").ne("m")).unwrap();
    assert_eq!(stats.row_groups_pruned, 0);
    // PLAIN pages: no dictionary to look at.
    let plain = WriterOptions::default()
        .with_row_group_rows(100)
        .with_encoding(EncodingPolicy::Plain);
    let file = write(vec![Field::string("s")], &[strings(&values)], plain);
    let (_, stats) = ParquetReader::new(file)
        .unwrap()
        .prune(&col("s").eq("m"))
        .unwrap();
    assert_eq!(stats.row_groups_pruned, 0);
}

#[test]
fn truncated_string_statistics_keep_every_match() {
    // Long strings with a shared prefix: bounds are truncated to 4 bytes.
    let values: Vec<String> = (0..300).map(|i| format!("prefix-{:05}", i)).collect();
    let refs: Vec<Option<&str>> = values.iter().map(|s| Some(s.as_str())).collect();
    let options = WriterOptions::default()
        .with_row_group_rows(100)
        .with_statistics_truncate_length(Some(4))
        .with_data_page_row_limit(20);
    let file = write(vec![Field::string("s")], &[strings(&refs)], options);
    let reader = ParquetReader::new(file).unwrap();
    let (rows, _) = reader.filter_rows(&col("s").eq("prefix-00150")).unwrap();
    assert_eq!(rows, range_of(150..151));
    let (rows, _) = reader.filter_rows(&col("s").gt("prefix-00298")).unwrap();
    assert_eq!(rows, range_of(299..300));
    // Below every (truncated) min: pruned by statistics.
    let (_, stats) = reader.prune(&col("s").lt("pre")).unwrap();
    assert_eq!(stats.row_groups_pruned, 3);
}

#[test]
fn errors_name_the_column_and_position() {
    let reader = ParquetReader::new(sorted_ids(true)).unwrap();
    let e = reader.prune(&col("id").eq("x")).unwrap_err().to_string();
    assert!(e.contains("column id"), "{e}");
    let e = reader.prune(&col("nope").eq(1)).unwrap_err().to_string();
    assert!(e.contains("nope"), "{e}");
    let e = Expr::parse("id = 1 and and").unwrap_err();
    assert_eq!(e.offset, 11);
    assert!(e.to_string().contains("column name"), "{e}");
}

// ---- proptest: pruned + exact == naive ----

/// One row of the random file.
#[derive(Debug, Clone)]
struct Row {
    i: Option<i32>,
    u: u32,
    f: Option<f64>,
    s: Option<String>,
}

fn row() -> impl Strategy<Value = Row> {
    let f = prop_oneof![
        3 => (-4i32..4).prop_map(|x| Some(x as f64 / 2.0)),
        1 => Just(Some(f64::NAN)),
        1 => Just(Some(-0.0)),
        1 => Just(None),
    ];
    let s = prop_oneof![
        4 => "[a-d]{0,3}".prop_map(Some),
        1 => Just(None),
    ];
    (
        prop::option::weighted(0.8, -5i32..5),
        prop_oneof![0u32..4, Just(u32::MAX - 1), Just(1u32 << 31)],
        f,
        s,
    )
        .prop_map(|(i, u, f, s)| Row { i, u, f, s })
}

fn literal_for(column: &str) -> BoxedStrategy<Literal> {
    match column {
        "i" => (-6i128..6).prop_map(Literal::Int).boxed(),
        "u" => prop_oneof![
            (0i128..5).prop_map(Literal::Int),
            Just(Literal::Int(1 << 31))
        ]
        .boxed(),
        "f" => prop_oneof![
            (-5i32..5).prop_map(|x| Literal::Float(x as f64 / 2.0)),
            Just(Literal::Float(-0.0)),
            Just(Literal::Float(f64::NAN)),
        ]
        .boxed(),
        _ => "[a-e]{0,2}".prop_map(Literal::String).boxed(),
    }
}

fn leaf() -> impl Strategy<Value = Expr> {
    let column = prop::sample::select(vec!["i", "u", "f", "s"]);
    let op = prop::sample::select(vec![
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ]);
    column.prop_flat_map(move |c| {
        prop_oneof![
            3 => (op.clone(), literal_for(c)).prop_map(move |(op, value)| Expr::Cmp {
                column: c.into(),
                op,
                value,
            }),
            1 => (prop::collection::vec(literal_for(c), 0..3), any::<bool>()).prop_map(
                move |(values, negated)| Expr::In {
                    column: c.into(),
                    values,
                    negated,
                }
            ),
            1 => any::<bool>().prop_map(move |negated| Expr::IsNull {
                column: c.into(),
                negated,
            }),
        ]
    })
}

fn expr() -> impl Strategy<Value = Expr> {
    leaf().prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.and(b)),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| a.or(b)),
            inner.prop_map(Expr::not),
        ]
    })
}

/// SQL three-valued evaluation of `e` on one row, straight from the definition.
fn naive(e: &Expr, r: &Row) -> Option<bool> {
    use std::cmp::Ordering;
    let cmp = |column: &str, lit: &Literal| -> Option<Option<Ordering>> {
        // Outer None: null value; inner None: unordered (NaN).
        Some(match (column, lit) {
            ("i", Literal::Int(v)) => Some((r.i? as i128).cmp(v)),
            ("u", Literal::Int(v)) => Some((r.u as i128).cmp(v)),
            ("f", Literal::Float(v)) => r.f?.partial_cmp(v),
            ("f", Literal::Int(v)) => r.f?.partial_cmp(&(*v as f64)),
            ("f", Literal::Decimal { unscaled, scale }) => {
                r.f?.partial_cmp(&(*unscaled as f64 / 10f64.powi(*scale as i32)))
            }
            ("s", Literal::String(v)) => Some(r.s.as_deref()?.as_bytes().cmp(v.as_bytes())),
            _ => unreachable!("{column} {lit:?}"),
        })
    };
    let holds = |op: CmpOp, o: Option<Ordering>| match o {
        None => op == CmpOp::Ne,
        Some(o) => match op {
            CmpOp::Eq => o.is_eq(),
            CmpOp::Ne => o.is_ne(),
            CmpOp::Lt => o.is_lt(),
            CmpOp::Le => o.is_le(),
            CmpOp::Gt => o.is_gt(),
            CmpOp::Ge => o.is_ge(),
        },
    };
    match e {
        Expr::Intersects { .. } => unreachable!("the generated expressions have no boxes"),
        Expr::Cmp { column, op, value } => cmp(column, value).map(|o| holds(*op, o)),
        Expr::In {
            column,
            values,
            negated,
        } => {
            let mut any = false;
            for v in values {
                any |= holds(CmpOp::Eq, cmp(column, v)?);
            }
            // A null value: unknown, unless the list is empty (then false for IN).
            if values.is_empty() {
                let is_null = match column.as_str() {
                    "i" => r.i.is_none(),
                    "f" => r.f.is_none(),
                    "s" => r.s.is_none(),
                    _ => false,
                };
                if is_null {
                    return None;
                }
            }
            Some(any != *negated)
        }
        Expr::IsNull { column, negated } => {
            let is_null = match column.as_str() {
                "i" => r.i.is_none(),
                "f" => r.f.is_none(),
                "s" => r.s.is_none(),
                _ => false,
            };
            Some(is_null != *negated)
        }
        Expr::And(a, b) => match (naive(a, r), naive(b, r)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Expr::Or(a, b) => match (naive(a, r), naive(b, r)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Expr::Not(a) => naive(a, r).map(|b| !b),
        Expr::Custom(p) => {
            assert_eq!(p.name(), "longer_than_i");
            Some(longer_than_i(r.s.as_deref(), r.i))
        }
    }
}

/// The caller's predicate of the property test: `s` is longer than `i` (false where either
/// is null), naively.
fn longer_than_i(s: Option<&str>, i: Option<i32>) -> bool {
    matches!((s, i), (Some(s), Some(i)) if s.len() as i64 > i64::from(i))
}

/// [`longer_than_i`] as a [`RowPredicate`] over the decoded columns.
fn longer_than_i_predicate() -> RowPredicate {
    RowPredicate::new("longer_than_i", ["s", "i"], |columns, leaves| {
        assert_eq!(leaves[0].path_string(), "s");
        let (s, i) = (&columns[0], &columns[1]);
        let Values::Int32(iv) = &i.values else {
            return Err(parq::Error::Unsupported(format!("i as {:?}", i.values)));
        };
        Ok(BooleanBuffer::collect_bool(s.len, |k| {
            let s = s
                .bytes(k)
                .filter(|_| s.is_valid(k))
                .map(|b| std::str::from_utf8(b).unwrap());
            longer_than_i(s, Some(iv[k]).filter(|_| i.is_valid(k)))
        }))
    })
}

fn file_of(
    rows: &[Row],
    rg_rows: usize,
    page_rows: usize,
    page_index: bool,
    dict: bool,
    bloom: bool,
) -> Bytes {
    let n = rows.len();
    let i = Column {
        len: n,
        validity: Some(NullBuffer::from_iter(rows.iter().map(|r| r.i.is_some()))),
        values: Values::Int32(
            rows.iter()
                .map(|r| r.i.unwrap_or(0))
                .collect::<Vec<_>>()
                .into(),
        ),
    };
    let u = Column {
        len: n,
        validity: None,
        values: Values::Int32(rows.iter().map(|r| r.u as i32).collect::<Vec<_>>().into()),
    };
    let f = Column {
        len: n,
        validity: Some(NullBuffer::from_iter(rows.iter().map(|r| r.f.is_some()))),
        values: Values::Double(
            rows.iter()
                .map(|r| r.f.unwrap_or(0.0))
                .collect::<Vec<_>>()
                .into(),
        ),
    };
    let s: Vec<Option<&str>> = rows.iter().map(|r| r.s.as_deref()).collect();
    let options = (WriterOptions::default()
        .with_row_group_rows(rg_rows)
        .with_encoding(if dict {
            EncodingPolicy::Dictionary
        } else {
            EncodingPolicy::Plain
        }))
    .with_data_page_row_limit(page_rows)
    .with_page_index(page_index);
    let options = if bloom {
        ["i", "u", "f", "s"].iter().fold(options, |o, c| {
            o.with_bloom_filter(*c, BloomFilterOptions::default())
        })
    } else {
        options
    };
    write(
        vec![
            Field::int32("i").optional(),
            Field::integer("u", 32, false).required(),
            Field::double("f").optional(),
            Field::string("s").optional(),
        ],
        &[i, u, f, strings(&s)],
        options,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn pruned_and_exact_equals_naive(
        rows in prop::collection::vec(row(), 1..120),
        rg_rows in 1usize..40,
        page_rows in 1usize..10,
        page_index: bool,
        dict: bool,
        bloom: bool,
        e in expr(),
        custom in 0u8..3,
    ) {
        // A caller's predicate beside parq's tests: ANDed (1) or ORed (2).
        let e = match custom {
            1 => e.and(longer_than_i_predicate().into_expr()),
            2 => e.or(longer_than_i_predicate().into_expr()),
            _ => e,
        };
        let file = file_of(&rows, rg_rows, page_rows, page_index, dict, bloom);
        let reader = ParquetReader::new(file).unwrap();
        let want: Vec<u64> = rows
            .iter()
            .enumerate()
            .filter(|(_, r)| naive(&e, r) == Some(true))
            .map(|(k, _)| k as u64)
            .collect();
        let want = RowSelection::from_ranges(want.iter().map(|&k| k..k + 1));
        let (pruned, _) = reader.prune(&e).unwrap();
        prop_assert_eq!(pruned.intersection(&want), want.clone(), "pruning dropped a match of {}", e);
        let (got, stats) = reader.filter_rows(&e).unwrap();
        prop_assert_eq!(&got, &want, "{}", e);
        prop_assert_eq!(stats.rows_matched, want.row_count());
        // The materialised rows are the matching ones.
        let (cols, _) = reader.read_filtered(&["u"], &e).unwrap();
        let Values::Int32(u) = &cols[0].1.as_primitive().unwrap().values else { unreachable!() };
        let want_u: Vec<i32> = want.ranges().iter().flat_map(|r| r.clone()).map(|k| rows[k as usize].u as i32).collect();
        prop_assert_eq!(&u.to_vec(), &want_u);
        // The stream gives the same rows, in batches of at most the size asked, whichever
        // way the columns the predicate did not decode are read (`s` is among them unless
        // the predicate tests it).
        for how in [Materialise::Auto, Materialise::Selected, Materialise::Masked] {
            for batch_size in [1, 7, 8192] {
                let mut batches = reader
                    .read_builder()
                    .with_projection(["u", "s"])
                    .with_filter(e.clone())
                    .with_batch_size(batch_size)
                    .with_materialise(how)
                    .build()
                    .unwrap();
                let (mut streamed, mut streamed_s) = (Vec::new(), Vec::new());
                for b in &mut batches {
                    let b = b.unwrap();
                    prop_assert!(b.num_rows > 0 && b.num_rows <= batch_size);
                    let Values::Int32(u) = &b.arrays[0].as_primitive().unwrap().values else { unreachable!() };
                    streamed.extend_from_slice(u);
                    let s = b.arrays[1].as_primitive().unwrap();
                    prop_assert_eq!(s.len, b.num_rows);
                    streamed_s.extend((0..s.len).map(|i| s.bytes(i).filter(|_| s.is_valid(i)).map(<[u8]>::to_vec)));
                }
                prop_assert_eq!(&streamed, &want_u, "{:?}, batches of {}", how, batch_size);
                let want_s: Vec<Option<Vec<u8>>> = want.ranges().iter().flat_map(|r| r.clone())
                    .map(|k| rows[k as usize].s.as_ref().map(|s| s.as_bytes().to_vec()))
                    .collect();
                prop_assert_eq!(streamed_s, want_s, "{:?}, batches of {}", how, batch_size);
                prop_assert_eq!(batches.stats(), stats.clone());
            }
            // An offset and a limit count matching rows, in file order, across row groups.
            for (offset, limit) in [(0, 0), (1, 3), (5, 1000), (rows.len() as u64, 1)] {
                let batches = reader
                    .read_builder()
                    .with_projection(["u"])
                    .with_filter(e.clone())
                    .with_batch_size(4)
                    .with_materialise(how)
                    .with_offset(offset)
                    .with_limit(limit)
                    .build()
                    .unwrap();
                let mut got = Vec::new();
                for b in batches {
                    let b = b.unwrap();
                    prop_assert!(b.num_rows > 0 && b.num_rows <= 4);
                    let Values::Int32(u) = &b.arrays[0].as_primitive().unwrap().values else { unreachable!() };
                    got.extend_from_slice(u);
                }
                let from = (offset as usize).min(want_u.len());
                let to = (from + limit as usize).min(want_u.len());
                prop_assert_eq!(&got[..], &want_u[from..to], "offset {}, limit {}", offset, limit);
            }
        }
        // The grammar reads back what Display writes (NaN literals aside).
        if !e.to_string().contains("NaN") && custom == 0 {
            let reparsed = Expr::parse(&e.to_string()).unwrap();
            let (again, _) = reader.filter_rows(&reparsed).unwrap();
            prop_assert_eq!(again, got);
        }
    }
}

#[test]
fn struct_leaves_and_nested_projections() {
    use parq::array::{Array, ListArray, ListOffsets, StructArray, Value};
    use parq::field::Field as SchemaField;
    use parq::metadata::Type;
    // s: optional struct { b: optional int64 }, l: list<int64>; 6 rows, 3 per row group.
    let b = Column {
        len: 6,
        validity: Some(NullBuffer::from(vec![true, true, false, true, true, true])),
        values: Values::Int64(vec![1i64, 2, 0, 4, 0, 6].into()),
    };
    let s = Array::Struct(StructArray {
        len: 6,
        validity: Some(NullBuffer::from(vec![true, true, true, true, false, true])),
        children: vec![Array::Primitive(b)],
    });
    let items = Column {
        len: 6,
        validity: None,
        values: Values::Int64(vec![10i64, 11, 20, 40, 41, 60].into()),
    };
    let l = Array::List(ListArray {
        validity: None,
        offsets: ListOffsets::Small(OffsetBuffer::new(vec![0i32, 2, 3, 3, 5, 5, 6].into())),
        values: Box::new(Array::Primitive(items)),
    });
    let fields = vec![
        SchemaField::structure("s", vec![SchemaField::primitive("b", Type::INT64)]),
        SchemaField::list("l", SchemaField::primitive("element", Type::INT64)),
    ];
    let mut file = Vec::new();
    let options = WriterOptions::default().with_row_group_rows(3);
    let mut w = ParquetWriter::with_fields(&mut file, fields, options).unwrap();
    w.write_arrays(&[s, l]).unwrap();
    w.finish().unwrap();
    let reader = ParquetReader::new(Bytes::from(file)).unwrap();

    // Row 4's struct is null, so s.b is null there too.
    let (rows, _) = reader
        .filter_rows(&Expr::parse("s.b is null").unwrap())
        .unwrap();
    assert_eq!(rows, RowSelection::from_ranges([2..3, 4..5]));
    let (rows, stats) = reader
        .filter_rows(&Expr::parse("s.b >= 4").unwrap())
        .unwrap();
    assert_eq!(rows, RowSelection::from_ranges([3..4, 5..6]));
    assert_eq!(stats.row_groups_pruned, 1);
    let (cols, _) = reader
        .read_filtered(&["l", "s"], &Expr::parse("not s.b < 2").unwrap())
        .unwrap();
    let leaf = |x: i64| Value::Leaf(x.to_le_bytes().to_vec());
    let l = &cols[0].1;
    assert_eq!(l.len(), 3);
    assert_eq!(l.value(0), Value::List(vec![leaf(20)]));
    assert_eq!(l.value(1), Value::List(vec![leaf(40), leaf(41)]));
    assert_eq!(l.value(2), Value::List(vec![leaf(60)]));
    assert_eq!(cols[1].1.value(2), Value::Struct(vec![leaf(6)]));
    // Repeated leaves are refused, with the column named.
    let e = reader
        .filter_rows(&col("l.list.element").eq(1))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("l.list.element") && e.contains("repeated"),
        "{e}"
    );
}

#[test]
fn implausible_column_index_prunes_nothing() {
    // parquet-mr wrote this file without statistics, and a column index calling every page
    // a null page with null counts of -1: believed, it would drop every row.
    let dir = std::env::var_os("PARQUET_TEST_DATA")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data")
        });
    let file = std::fs::read(dir.join("datapage_v1-uncompressed-checksum.parquet")).unwrap();
    let reader = ParquetReader::new(Bytes::from(file)).unwrap();
    let index = reader.read_column_index(0, 0).unwrap().unwrap();
    assert_eq!(index.null_pages, vec![true, true]);
    let (_, stats) = reader.filter_rows(&col("a").eq(-33620224)).unwrap();
    assert_eq!((stats.row_groups_pruned, stats.rows_matched), (0, 40));
    let (_, stats) = reader.filter_rows(&col("a").is_null()).unwrap();
    assert_eq!(stats.rows_matched, 0);
}

#[test]
fn many_batches_of_flat_and_struct_leaves() {
    use parq::array::{Array, StructArray};
    use parq::field::Field as SchemaField;
    use parq::metadata::Type;
    // More rows than one evaluation batch, row groups not aligned to batches.
    const N: usize = 150_000;
    let id = Column {
        len: N,
        validity: None,
        values: Values::Int64((0..N as i64).collect::<Vec<_>>().into()),
    };
    let b = Column {
        len: N,
        validity: Some(NullBuffer::from_iter((0..N).map(|i| i % 5 != 0))),
        values: Values::Int64((0..N as i64).map(|i| i % 1000).collect::<Vec<_>>().into()),
    };
    let s = Array::Struct(StructArray {
        len: N,
        validity: Some(NullBuffer::from_iter((0..N).map(|i| i % 7 != 0))),
        children: vec![Array::Primitive(b)],
    });
    let v = Column {
        len: N,
        validity: None,
        values: Values::Int32((0..N as i32).map(|i| i * 3).collect::<Vec<_>>().into()),
    };
    let fields = vec![
        SchemaField::primitive("id", Type::INT64).required(),
        SchemaField::structure("s", vec![SchemaField::primitive("b", Type::INT64)]),
        SchemaField::primitive("v", Type::INT32).required(),
    ];
    let mut file = Vec::new();
    let options = WriterOptions::default().with_row_group_rows(70_001);
    let mut w = ParquetWriter::with_fields(&mut file, fields, options).unwrap();
    w.write_arrays(&[Array::Primitive(id), s, Array::Primitive(v)])
        .unwrap();
    w.finish().unwrap();
    let reader = ParquetReader::new(Bytes::from(file)).unwrap();
    let expr = Expr::parse("s.b < 10 and id >= 1000 and id != 140000").unwrap();
    let want: Vec<i64> = (0..N as i64)
        .filter(|&i| i % 5 != 0 && i % 7 != 0 && i % 1000 < 10 && i >= 1000 && i != 140_000)
        .collect();
    let (cols, stats) = reader.read_filtered(&["v", "id"], &expr).unwrap();
    assert_eq!(stats.rows_matched, want.len() as u64);
    let Values::Int32(v) = &cols[0].1.as_primitive().unwrap().values else {
        unreachable!()
    };
    let Values::Int64(ids) = &cols[1].1.as_primitive().unwrap().values else {
        unreachable!()
    };
    assert_eq!(ids.to_vec(), want);
    assert_eq!(
        v.to_vec(),
        want.iter().map(|&i| i as i32 * 3).collect::<Vec<_>>()
    );
}

#[test]
fn comparisons_take_the_fast_path_where_they_can() {
    let rows: Vec<Row> = (0..50)
        .map(|k| Row {
            i: Some(k % 7),
            u: k as u32,
            f: Some(k as f64 / 4.0),
            s: Some(format!("v{k}")),
        })
        .collect();
    // `text`'s matches counted by `reader` (probes reset first), checked against the naive
    // evaluation.
    let filter = |reader: &ParquetReader<Bytes>, text: &str| {
        probe::reset();
        let expr = Expr::parse(text).unwrap();
        let (_, stats) = reader.filter_rows(&expr).unwrap();
        let want = rows
            .iter()
            .filter(|r| naive(&expr, r) == Some(true))
            .count();
        assert_eq!(stats.rows_matched, want as u64, "{text}");
    };
    let reader = ParquetReader::new(file_of(&rows, 50, 50, false, false, false)).unwrap();
    for (text, fast) in [
        ("i < 3", true),
        ("f >= 2.5", true),
        ("not f < 2.5", true),
        ("s = 'v7'", true),
        ("s in ('v7', 'v8')", true),
        ("i in (1, 2)", true),
        ("u > 3", false),
        ("f in (0.5, 1)", false),
    ] {
        filter(&reader, text);
        if probe::ENABLED {
            assert_eq!(probe::get("predicate.eval_fast_path") == 1, fast, "{text}");
            assert_eq!(probe::get("predicate.eval_per_value") == 1, !fast, "{text}");
        }
    }

    // Keys into the dictionary: the test runs on the dictionary, once a batch.
    let leaf = reader.column_index("s").unwrap();
    let keyed = ParquetReader::with_options(
        file_of(&rows, 50, 50, false, true, false),
        ReadOptions::default().with_dictionary_keys(vec![leaf]),
    )
    .unwrap();
    for text in ["s = 'v7'", "s in ('v7', 'v9')", "s >= 'v4'"] {
        filter(&keyed, text);
        if probe::ENABLED {
            assert_eq!(probe::get("predicate.eval_dictionary_once"), 1, "{text}");
        }
    }
}

/// A string column written with a dictionary is filtered on its keys (the test runs once
/// per dictionary value) where the reader did not ask for keys, and comes out in the
/// reader's own layout (offsets or views), holding what the naive evaluation keeps, whether
/// the other columns are read by selection or decoded whole then filtered.
#[test]
fn strings_in_dictionaries_filter_on_keys_and_return_values() {
    use parq::array::Array;
    use parq::read::ByteArrayLayout;
    let rows: Vec<Row> = (0..3000u32)
        .map(|k| Row {
            i: Some((k % 7) as i32),
            u: k,
            f: None,
            s: (k % 11 != 0).then(|| format!("value-{}", k % 13)),
        })
        .collect();
    let file = file_of(&rows, 1000, 100, true, true, false);
    for layout in [ByteArrayLayout::Offsets, ByteArrayLayout::Views] {
        let reader = ParquetReader::with_options(
            file.clone(),
            ReadOptions::default().with_byte_array_layout(layout),
        )
        .unwrap();
        for text in [
            "s = 'value-3'",
            "s in ('value-1', 'value-12')",
            "s >= 'value-5' and i < 4",
        ] {
            let expr = Expr::parse(text).unwrap();
            let want: Vec<(Option<Vec<u8>>, i32)> = rows
                .iter()
                .filter(|r| naive(&expr, r) == Some(true))
                .map(|r| (r.s.clone().map(String::into_bytes), r.u as i32))
                .collect();
            for how in [Materialise::Selected, Materialise::Masked] {
                probe::reset();
                let mut got = Vec::new();
                let batches = reader
                    .read_builder()
                    .with_projection(["s", "u"])
                    .with_filter(expr.clone())
                    .with_materialise(how)
                    .with_batch_size(256)
                    .build()
                    .unwrap();
                for b in batches {
                    let b = b.unwrap();
                    let (Array::Primitive(s), Array::Primitive(u)) = (&b.arrays[0], &b.arrays[1])
                    else {
                        panic!("flat columns")
                    };
                    let Values::Int32(u) = &u.values else {
                        panic!("{:?}", u.values)
                    };
                    match (layout, &s.values) {
                        (ByteArrayLayout::Offsets, Values::Binary { .. })
                        | (ByteArrayLayout::Views, Values::BinaryView { .. }) => {}
                        (_, other) => panic!("{layout:?}: {other:?}"),
                    }
                    got.extend((0..b.num_rows).map(|i| (s.value_bytes(i), u[i])));
                }
                assert_eq!(got.len(), want.len(), "{text} {how:?} {layout:?}");
                assert!(got == want, "{text} {how:?} {layout:?}");
                if probe::ENABLED {
                    assert!(
                        probe::get("predicate.eval_dictionary_once") > 0,
                        "{text} {how:?} {layout:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn bloom_filters_prune_equality_misses() {
    // Unsorted, high-cardinality values: every row group's bounds cover almost everything.
    let values: Vec<i64> = (0..5000i64).map(|i| (i * 7919) % 5000 * 2).collect();
    let zeros: Vec<f64> = (0..5000)
        .map(|i| {
            if i == 2500 {
                -0.0
            } else {
                (i % 1000) as f64 - 499.5
            }
        })
        .collect();
    let options = WriterOptions::default()
        .with_row_group_rows(1000)
        .with_encoding(EncodingPolicy::Plain)
        .with_bloom_filter(
            "v",
            BloomFilterOptions::default().with_ndv(None).with_fpp(0.001),
        )
        .with_bloom_filter(
            "z",
            BloomFilterOptions::default().with_ndv(None).with_fpp(0.001),
        );
    let z = Column {
        len: zeros.len(),
        validity: None,
        values: Values::Double(zeros.into()),
    };
    let file = write(
        vec![Field::int64("v"), Field::double("z")],
        &[int64(values.clone()), z],
        options,
    );
    let reader = ParquetReader::new(file).unwrap();
    probe::reset();
    // Odd values are never written.
    let (_, stats) = reader.prune(&col("v").eq(4321)).unwrap();
    assert_eq!(
        (stats.pruned_by_statistics, stats.pruned_by_bloom_filter),
        (0, 5)
    );
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.row_group_pruned_by_bloom_filter"), 5);
    }
    // A present value keeps its row group, and only it.
    let present = values[3456];
    let (rows, stats) = reader
        .filter_rows(&col("v").is_in([4321, present]))
        .unwrap();
    assert_eq!(stats.pruned_by_bloom_filter, 4);
    assert_eq!(rows, range_of(3456..3457));
    // `!=` and ranges are not the filters' business.
    let (_, stats) = reader.prune(&col("v").ne(4321)).unwrap();
    assert_eq!(stats.row_groups_pruned, 0);
    // 0.0 = -0.0, though they hash apart: the row group holding -0.0 is kept.
    let (rows, stats) = reader.filter_rows(&col("z").eq(0.0)).unwrap();
    assert_eq!(rows, range_of(2500..2501));
    assert_eq!(
        (stats.pruned_by_statistics, stats.pruned_by_bloom_filter),
        (0, 4)
    );
}

/// Late materialisation through the row selection: a needle query decodes one page of the
/// predicate column, and one page of each other projected column, out of 100 each.
#[test]
fn a_needle_decodes_one_page_per_column() {
    let reader = ParquetReader::new(sorted_ids(true)).unwrap();
    probe::reset();
    let (cols, stats) = reader
        .read_filtered(&["id", "other"], &col("id").eq(537))
        .unwrap();
    assert_eq!(stats.rows_matched, 1);
    assert_eq!(cols[1].1.len(), 1);
    let Some(Values::Int64(v)) = cols[1].1.as_primitive().map(|c| &c.values) else {
        panic!("int64 column expected");
    };
    assert_eq!(v[0], 537 * 7 % 13);
    if probe::ENABLED {
        // `id`: one page while evaluating (reused for the projection); `other`: one page.
        assert_eq!(probe::get("read.pages_decoded"), 2);
        assert_eq!(probe::get("predicate.predicate_column_reused"), 1);
    }
}

/// A page of nulls in a nullable column's index (null_pages true, null_count its rows) is
/// plausible, so the index prunes by page: `v = 5` keeps one page of five.
#[test]
fn a_null_page_in_the_column_index_still_prunes_pages() {
    let values: Vec<Option<i64>> = (0..50)
        .map(|i| (!(10..20).contains(&i)).then_some(i))
        .collect();
    let column = Column {
        len: values.len(),
        validity: Some(NullBuffer::from_iter(values.iter().map(Option::is_some))),
        values: Values::Int64(values.iter().map(|v| v.unwrap_or(0)).collect()),
    };
    let options = WriterOptions::default()
        .with_data_page_row_limit(10)
        .with_page_index(true);
    let file = write(vec![Field::int64("v").optional()], &[column], options);
    let reader = ParquetReader::new(file).unwrap();
    let index = reader
        .read_column_index(0, 0)
        .unwrap()
        .expect("a column index");
    assert_eq!(index.null_pages, [false, true, false, false, false]);
    let (sel, stats) = reader.prune(&col("v").eq(5)).unwrap();
    assert_eq!((stats.pages, stats.pages_pruned), (5, 4));
    assert_eq!(sel, range_of(0..10));
    let (rows, _) = reader.filter_rows(&col("v").eq(5)).unwrap();
    assert_eq!(rows, range_of(5..6));
}

/// UINT_32 columns are pruned by their bloom filters too, values above i32::MAX included
/// (hashed as the 4 bytes of their INT32 storage).
#[test]
fn bloom_filters_prune_uint32() {
    use parq::metadata::LogicalType;
    let values: Vec<u32> = (0..4000u32).map(|i| i * 2 + 3_000_000_000).collect();
    let column = Column {
        len: values.len(),
        validity: None,
        values: Values::Int32(values.iter().map(|&v| v as i32).collect()),
    };
    let options = WriterOptions::default()
        .with_row_group_rows(1000)
        .with_encoding(EncodingPolicy::Plain)
        .with_bloom_filter(
            "u",
            BloomFilterOptions::default().with_ndv(None).with_fpp(0.001),
        );
    let field = Field::int32("u").with_logical_type(LogicalType::Integer {
        bit_width: 32,
        is_signed: false,
    });
    let file = write(vec![field], &[column], options);
    let reader = ParquetReader::new(file).unwrap();
    // Sorted even values: an odd one inside group 2's bounds is what only its filter rules
    // out (the statistics prune the other three).
    let (_, stats) = reader.prune(&col("u").eq(3_000_004_001u32)).unwrap();
    assert_eq!(
        (stats.pruned_by_statistics, stats.pruned_by_bloom_filter),
        (3, 1)
    );
    let present = values[2345];
    let (rows, stats) = reader.filter_rows(&col("u").eq(present)).unwrap();
    assert_eq!(rows, range_of(2345..2346));
    assert_eq!(stats.pruned_by_bloom_filter, 0);
}

/// A pyarrow file whose dictionary outgrows its limit mid-chunk falls back to PLAIN pages:
/// its encoding stats say so, and a value only on a PLAIN page must not be pruned by the
/// dictionary (which does not hold it).
#[test]
fn a_dictionary_that_falls_back_to_plain_does_not_prune() {
    python::require_python!("pyarrow");
    let dir = std::env::temp_dir().join(format!("parq-fallback-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fallback.parquet");
    let script = r#"
import sys
import pyarrow as pa, pyarrow.parquet as pq
t = pa.table({"s": pa.array(["value-%05d" % i for i in range(5000)])})
pq.write_table(t, sys.argv[1], use_dictionary=True, dictionary_pagesize_limit=1024,
               data_page_size=1024, row_group_size=5000)
"#;
    let out = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&path)
        .output()
        .expect("run python3");
    assert!(
        out.status.success(),
        "this test needs python3 with pyarrow (pip install pyarrow): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let reader = ParquetReader::new(Bytes::from(std::fs::read(&path).unwrap())).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    let meta = reader.metadata().row_groups[0].columns[0]
        .meta_data
        .clone()
        .unwrap();
    let stats = meta.encoding_stats.expect("pyarrow writes encoding stats");
    assert!(
        stats
            .iter()
            .any(|s| s.encoding == parq::metadata::Encoding::PLAIN
                && s.page_type == parq::metadata::PageType::DATA_PAGE),
        "the dictionary fell back to PLAIN: {stats:?}"
    );
    let (rows, stats) = reader.filter_rows(&col("s").eq("value-04999")).unwrap();
    assert_eq!(stats.pruned_by_dictionary, 0);
    assert_eq!(rows, range_of(4999..5000));
}

/// Dates, timestamps and decimals take literals in their text forms, exactly: a timestamp
/// one microsecond past the literal matches `>`, the literal itself does not; a decimal
/// literal with more digits than the scale is refused rather than rounded.
#[test]
fn date_timestamp_and_decimal_literals() {
    use parq::metadata::{TimeUnit, Type};
    // 2026-11-30T12:00:00Z in microseconds, and 2026-11-30 in days.
    let noon: i64 = (20_787 * 86_400 + 12 * 3_600) * 1_000_000;
    let ts = int64([noon - 1, noon, noon + 1, noon + 3_600_000_000]);
    let local = int64([noon - 1, noon, noon + 1, noon + 3_600_000_000]);
    let days = Column {
        len: 4,
        validity: None,
        values: Values::Int32(vec![20_786i32, 20_787, 20_787, 20_788].into()),
    };
    // price: DECIMAL(9, 2) on INT64, 12.49 12.50 12.51 100.00.
    let price = int64([1249, 1250, 1251, 10_000]);
    // big: DECIMAL(20, 3) on FIXED_LEN_BYTE_ARRAY(9): -0.001, 0, 12.500, 10^16.
    let be = |v: i128| v.to_be_bytes()[7..].to_vec();
    let big = Column {
        len: 4,
        validity: None,
        values: Values::FixedLenByteArray {
            width: 9,
            data: Buffer::from_vec([be(-1), be(0), be(12_500), be(10i128.pow(19))].concat()),
        },
    };
    let file = write(
        vec![
            Field::timestamp("ts", TimeUnit::Micros, true),
            Field::timestamp("local", TimeUnit::Micros, false),
            Field::date("d"),
            Field::decimal("price", Type::INT64, 9, 2),
            Field::decimal_fixed("big", 9, 20, 3),
        ],
        &[ts, local, days, price, big],
        WriterOptions::default(),
    );
    let reader = ParquetReader::new(file).unwrap();
    let rows = |text: &str| -> Vec<u64> {
        let (sel, _) = reader.filter_rows(&Expr::parse(text).unwrap()).unwrap();
        sel.ranges().iter().flat_map(|r| r.clone()).collect()
    };
    assert_eq!(rows("ts > '2026-11-30T12:00:00Z'"), [2, 3]);
    assert_eq!(rows("ts >= '2026-11-30T12:00:00Z'"), [1, 2, 3]);
    assert_eq!(rows("ts = '2026-11-30T12:00:00.000001Z'"), [2]);
    assert_eq!(rows("ts = '2026-11-30 13:00:00+01:00'"), [1]);
    assert_eq!(rows("ts < '2026-11-30T12:00:00Z'"), [0]);
    assert_eq!(rows("local = '2026-11-30T13:00:00'"), [3]);
    assert_eq!(rows("d = '2026-11-30'"), [1, 2]);
    assert_eq!(rows("d in ('2026-11-29', '2026-12-01')"), [0, 3]);
    assert_eq!(rows("not d >= '2026-11-30'"), [0]);
    assert_eq!(rows("price < 12.50"), [0]);
    assert_eq!(rows("price <= 12.5"), [0, 1]);
    assert_eq!(rows("price = 100"), [3]);
    assert_eq!(rows("big = 12.5"), [2]);
    assert_eq!(rows("big < 0"), [0]);
    assert_eq!(rows("big > 9999999999999999.999"), [3]);
    // Statistics prune by the same values.
    let (_, stats) = reader
        .filter_rows(&Expr::parse("ts > '2027-01-01T00:00:00Z'").unwrap())
        .unwrap();
    assert_eq!(stats.row_groups_pruned, 1);
    for (text, names) in [
        ("price < 12.505", ["price", "digits after the point"]),
        ("ts > '2026-11-30T12:00:00.0000001Z'", ["ts", "unit"]),
        ("local > '2026-11-30T12:00:00Z'", ["local", "offset"]),
        ("d = '2026-02-30'", ["column d", "day 30"]),
        ("d = '2026-11-30T00:00'", ["column d", "YYYY-MM-DD"]),
    ] {
        let e = reader
            .filter_rows(&Expr::parse(text).unwrap())
            .unwrap_err()
            .to_string();
        assert!(names.iter().all(|n| e.contains(n)), "{text}: {e}");
    }
}

/// `IS [NOT] NULL` on a struct tests the struct's own nulls, at every depth: a null child in
/// a valid struct does not make the struct null.
#[test]
fn struct_nulls() {
    use parq::array::{Array, StructArray};
    use parq::field::Field as SchemaField;
    use parq::metadata::Type;
    // a: optional struct { b: optional struct { c: optional int64 } }, id: int64
    // row 0: a null; 1: b null; 2: c null; 3: c = 3; 4: c = 4; 5: b null.
    let c = Column {
        len: 6,
        validity: Some(NullBuffer::from(vec![
            false, false, false, true, true, false,
        ])),
        values: Values::Int64(vec![0i64, 0, 0, 3, 4, 0].into()),
    };
    let b = Array::Struct(StructArray {
        len: 6,
        validity: Some(NullBuffer::from(vec![
            false, false, true, true, true, false,
        ])),
        children: vec![Array::Primitive(c)],
    });
    let a = Array::Struct(StructArray {
        len: 6,
        validity: Some(NullBuffer::from(vec![false, true, true, true, true, true])),
        children: vec![b],
    });
    let fields = vec![
        SchemaField::structure(
            "a",
            vec![SchemaField::structure(
                "b",
                vec![SchemaField::primitive("c", Type::INT64)],
            )],
        ),
        SchemaField::primitive("id", Type::INT64).required(),
    ];
    let mut file = Vec::new();
    let options = WriterOptions::default().with_row_group_rows(3);
    let mut w = ParquetWriter::with_fields(&mut file, fields, options).unwrap();
    w.write_arrays(&[a, Array::Primitive(int64(0..6))]).unwrap();
    w.finish().unwrap();
    let reader = ParquetReader::new(Bytes::from(file)).unwrap();
    let rows = |text: &str| -> Vec<u64> {
        let (sel, _) = reader.filter_rows(&Expr::parse(text).unwrap()).unwrap();
        sel.ranges().iter().flat_map(|r| r.clone()).collect()
    };
    assert_eq!(rows("a is null"), [0]);
    assert_eq!(rows("a is not null"), [1, 2, 3, 4, 5]);
    assert_eq!(rows("a.b is null"), [0, 1, 5]);
    assert_eq!(rows("a.b is not null"), [2, 3, 4]);
    assert_eq!(rows("not a.b is null"), [2, 3, 4]);
    assert_eq!(rows("a.b.c is null"), [0, 1, 2, 5]);
    assert_eq!(rows("a.b is not null and a.b.c is null"), [2]);
    assert_eq!(rows("a is not null or id = 0"), [0, 1, 2, 3, 4, 5]);
    // Read through the filter: the struct comes back for the rows kept.
    let (cols, _) = reader
        .read_filtered(&["id"], &Expr::parse("a.b is not null").unwrap())
        .unwrap();
    assert_eq!(cols[0].1.len(), 3);
    // A name that is neither a leaf nor a struct is refused, named.
    let e = reader
        .filter_rows(&Expr::parse("a.nope is null").unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.contains("a.nope"), "{e}");
}

/// 20,000 rows in row groups of 5,000: `a` cycles through 0..100 (with 50 left out), `b`
/// through 0..7, `s` is `s{i % 13}`; plain pages, so no dictionary prunes.
fn three_columns() -> (ParquetReader, Vec<(i64, i64, String)>) {
    let rows: Vec<(i64, i64, String)> = (0..20_000i64)
        .map(|i| {
            let a = (i * 37) % 100;
            (if a == 50 { 51 } else { a }, i % 7, format!("s{}", i % 13))
        })
        .collect();
    let s: Vec<Option<&str>> = rows.iter().map(|r| Some(r.2.as_str())).collect();
    let file = write(
        vec![Field::int64("a"), Field::int64("b"), Field::string("s")],
        &[
            int64(rows.iter().map(|r| r.0)),
            int64(rows.iter().map(|r| r.1)),
            strings(&s),
        ],
        WriterOptions::default()
            .with_row_group_rows(5_000)
            .with_encoding(EncodingPolicy::Plain),
    );
    (ParquetReader::new(file).unwrap(), rows)
}

/// `a` of the rows of `reader` that `expr` keeps, streamed.
fn filtered_a(reader: &ParquetReader, expr: &Expr) -> Vec<i64> {
    let mut out = Vec::new();
    let batches = reader
        .read_builder()
        .with_projection(["a"])
        .with_filter(expr.clone())
        .build()
        .unwrap();
    for b in batches {
        let b = b.unwrap();
        let Some(Values::Int64(v)) = b.arrays[0].as_primitive().map(|c| &c.values) else {
            panic!("int64 column expected");
        };
        out.extend_from_slice(v);
    }
    out
}

#[test]
fn conjuncts_run_in_stages_cheapest_first_and_later_ones_decode_only_the_rows_left() {
    let (reader, rows) = three_columns();
    // The string conjunct is written first; the integer one (1 % of rows) runs first, and
    // the strings are decoded for its matches only.
    let expr = col("s").eq("s3").and(col("a").eq(7));
    probe::reset();
    let got = filtered_a(&reader, &expr);
    let want: Vec<i64> = rows
        .iter()
        .filter(|r| r.2 == "s3" && r.0 == 7)
        .map(|r| r.0)
        .collect();
    assert!(!want.is_empty());
    assert_eq!(got, want);
    if probe::ENABLED {
        assert_eq!(
            probe::get("predicate.conjunct_stages"),
            4,
            "one per row group"
        );
        assert_eq!(probe::get("predicate.stage_by_selection"), 4);
    }
    // Where the first stage keeps nothing, the others do not run; where it keeps many rows
    // scattered, the next decodes all of them again (and is not by selection).
    let none = col("s").eq("s3").and(col("a").eq(50));
    probe::reset();
    assert_eq!(filtered_a(&reader, &none), Vec::<i64>::new());
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.stage_without_rows"), 4);
        assert_eq!(probe::get("predicate.stage_by_selection"), 0);
    }
    let most = col("s").eq("s3").and(col("b").lt(6));
    probe::reset();
    let want: Vec<i64> = rows
        .iter()
        .filter(|r| r.2 == "s3" && r.1 < 6)
        .map(|r| r.0)
        .collect();
    assert_eq!(filtered_a(&reader, &most), want);
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.stage_without_rows"), 0);
        assert_eq!(probe::get("predicate.stage_by_selection"), 0);
    }
}

#[test]
fn stages_are_reordered_by_what_they_measured() {
    let (reader, rows) = three_columns();
    // Both conjuncts read one integer column: the first as written drops nothing, so once
    // the first row group measured them the second runs first.
    let expr = col("b").ge(0).and(col("a").eq(7));
    probe::reset();
    let got = filtered_a(&reader, &expr);
    let want: Vec<i64> = rows.iter().filter(|r| r.0 == 7).map(|r| r.0).collect();
    assert_eq!(got, want);
    if probe::ENABLED {
        assert_eq!(
            probe::get("predicate.stages_reordered"),
            3,
            "row groups 2 to 4"
        );
    }
    // Conjuncts on one column are one stage.
    probe::reset();
    let expr = col("a").ge(3).and(col("a").lt(9));
    let got = filtered_a(&reader, &expr);
    assert_eq!(
        got.len(),
        rows.iter().filter(|r| (3..9).contains(&r.0)).count()
    );
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.conjunct_stages"), 0);
    }
}

/// `a` = 0..1000 and `b` = 1000 - a, in row groups of 100 rows.
fn a_and_b() -> ParquetReader {
    let file = write(
        vec![Field::int64("a"), Field::int64("b")],
        &[int64(0..1000), int64((0..1000).map(|a| 1000 - a))],
        WriterOptions::default().with_row_group_rows(100),
    );
    ParquetReader::new(file).unwrap()
}

/// `a < b` over the decoded columns.
fn a_below_b() -> RowPredicate {
    RowPredicate::new("a_below_b", ["a", "b"], |columns, _| {
        let (Values::Int64(a), Values::Int64(b)) = (&columns[0].values, &columns[1].values) else {
            return Err(parq::Error::Unsupported("a and b as int64".into()));
        };
        Ok(BooleanBuffer::collect_bool(a.len(), |k| a[k] < b[k]))
    })
}

/// The values of the first column of every batch of `builder`'s read.
fn first_column(batches: impl Iterator<Item = parq::Result<parq::read::ArrayBatch>>) -> Vec<i64> {
    let mut out = Vec::new();
    for b in batches {
        let b = b.unwrap();
        let Values::Int64(v) = &b.arrays[0].as_primitive().unwrap().values else {
            unreachable!("int64")
        };
        out.extend_from_slice(v);
    }
    out
}

#[test]
fn a_row_predicate_filters_beside_parq_tests() {
    let reader = a_and_b();
    let filter = a_below_b().into_expr().and(col("a").ge(100));
    for threads in [1, 2] {
        for projection in [vec!["b"], vec!["a", "b"]] {
            let batches = reader
                .read_builder()
                .with_projection(projection.clone())
                .with_filter(filter.clone())
                .with_batch_size(64)
                .with_threads(threads)
                .build()
                .unwrap();
            let want: Vec<i64> = if projection[0] == "a" {
                (100..500).collect()
            } else {
                (100..500).map(|a| 1000 - a).collect()
            };
            assert_eq!(
                first_column(batches),
                want,
                "{projection:?}, {threads} threads"
            );
        }
    }
    // Statistics prune for parq's test, never for the caller's.
    let (_, stats) = reader.filter_rows(&filter).unwrap();
    assert_eq!((stats.row_groups_pruned, stats.rows_matched), (1, 400));
    let (_, stats) = reader.filter_rows(&a_below_b().into_expr()).unwrap();
    assert_eq!((stats.row_groups_pruned, stats.rows_matched), (0, 500));
    // Under OR, what either keeps.
    let either = a_below_b().into_expr().or(col("a").ge(900));
    let (rows, _) = reader.filter_rows(&either).unwrap();
    assert_eq!(rows.row_count(), 600);
}

#[test]
fn a_row_predicate_is_checked() {
    let reader = a_and_b();
    let build = |e: Expr| {
        reader
            .read_builder()
            .with_filter(e)
            .build()
            .map(first_column)
    };
    // NOT would keep what the function leaves unknown: refused by name.
    let err = build(a_below_b().into_expr().not())
        .unwrap_err()
        .to_string();
    assert!(err.contains("a_below_b") && err.contains("NOT"), "{err}");
    let missing = RowPredicate::new("ghost", ["nope"], |c, _| {
        Ok(BooleanBuffer::new_set(c[0].len))
    });
    let err = build(missing.into_expr()).unwrap_err().to_string();
    assert!(err.contains("nope"), "{err}");
    // A function that returns the wrong number of flags is an error, not a panic.
    let short = RowPredicate::new("short", ["a"], |c, _| {
        Ok(BooleanBuffer::new_set(c[0].len / 2))
    });
    let err = reader
        .read_builder()
        .with_filter(short.into_expr())
        .build()
        .and_then(|b| b.collect::<parq::Result<Vec<_>>>())
        .unwrap_err()
        .to_string();
    assert!(err.contains("short") && err.contains("flags"), "{err}");
}

/// A predicate that tightens during the read (a join's bound, a top-k threshold) filters
/// the row groups evaluated after it tightened by its new bound.
#[test]
fn a_row_predicate_may_tighten_during_the_read() {
    use std::sync::atomic::{AtomicI64, Ordering};
    use std::sync::Arc;
    let reader = a_and_b();
    let bound = Arc::new(AtomicI64::new(i64::MAX));
    let below = {
        let bound = Arc::clone(&bound);
        RowPredicate::new("a_below_bound", ["a"], move |c, _| {
            let Values::Int64(a) = &c[0].values else {
                unreachable!("int64")
            };
            let max = bound.load(Ordering::Relaxed);
            Ok(BooleanBuffer::collect_bool(a.len(), |k| a[k] < max))
        })
    };
    let mut batches = reader
        .read_builder()
        .with_projection(["a"])
        .with_filter(below.into_expr())
        .with_batch_size(50)
        .build()
        .unwrap();
    let first = batches.next().unwrap().unwrap();
    assert_eq!(first.num_rows, 50);
    bound.store(250, Ordering::Relaxed);
    let rest = first_column(batches);
    // The row groups evaluated before the bound moved pass whole, the ones after it only
    // below it: whole ones first, then cut ones.
    assert!(rest.windows(2).all(|w| w[0] < w[1]));
    let mut cut = false;
    for g in 1..10i64 {
        let kept = rest.iter().filter(|&&a| a / 100 == g).count() as i64;
        let below = (100 * g..100 * g + 100).filter(|&a| a < 250).count() as i64;
        if kept != 100 {
            cut = true;
        }
        assert_eq!(kept, if cut { below } else { 100 }, "row group {g}");
    }
    assert!(cut, "no row group was evaluated after the bound moved");
}
