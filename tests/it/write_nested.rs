//! Nested fields written by parq read back equal, with every page starting on a record.
//!
//! - Round trips of the shapes that trip writers (lists of structs of lists, maps of lists,
//!   structs of structs, lists of maps, three-deep lists), required and optional at every
//!   level, with empty lists, null lists and null elements, over v1/v2 pages, dictionary on
//!   and off, every codec, and pages so small that records would cross them.
//! - Arrays in every legal Arrow layout: offsets that do not start at 0 (slices), i64
//!   offsets, non-empty child ranges and arbitrary child slots under null parents.
//! - A proptest over random nested schemas (depth up to 4) and random data at 0 %, mixed and
//!   100 % nulls, also read back in batches of random sizes.
//! - Interop: pyarrow and DuckDB read parq's nested files equal to what parq wrote
//!   (`tests/it/support_nested/check.py`; skipped if either is missing, failed under
//!   `PARQ_REQUIRE_ORACLES=1` as in CI).
//!
//! Data is described as rows of [`Value`] trees and built into arrays by [`build`]; a read
//! is compared slot by slot with `Array::value`, so layout differences do not matter.

use crate::python;
use crate::support_nested;

use parq::codecs::compression::CodecKind;
use parq::field::Field;
use parq::metadata::Type;
use parq::testing::schema::all_required;
use parq::write::{EncodingPolicy, PageVersion, WriterOptions};
use proptest::prelude::*;
use support_nested::{Rng, *};

const CODECS: [CodecKind; 7] = [
    CodecKind::Uncompressed,
    CodecKind::Snappy,
    CodecKind::Gzip,
    CodecKind::Zstd,
    CodecKind::Lz4Raw,
    CodecKind::Brotli,
    CodecKind::Lz4,
];

fn int32(name: &str) -> Field {
    Field::primitive(name, Type::INT32)
}
fn int64(name: &str) -> Field {
    Field::primitive(name, Type::INT64)
}
fn string(name: &str) -> Field {
    parq::write::Field::string(name).optional().into()
}

/// The shapes of the issue, each with a variant required at every level.
fn shapes() -> Vec<(&'static str, Field)> {
    let list_int64 = Field::list("a", int64("element"));
    let list_struct = Field::list(
        "a",
        Field::structure(
            "element",
            vec![int32("a"), Field::list("b", string("element"))],
        ),
    );
    let map_list = Field::map("a", string("key"), Field::list("value", int32("element")));
    let struct_struct = Field::structure(
        "a",
        vec![
            Field::structure("s", vec![int32("x"), string("y")]),
            int64("z"),
        ],
    );
    let list_map = Field::list("a", Field::map("element", int32("key"), string("value")));
    let list3 = Field::list(
        "a",
        Field::list("element", Field::list("element", int32("element"))),
    );
    let mut out = Vec::new();
    for (name, f) in [
        ("list<int64>", list_int64),
        ("list<struct<a:int32,b:list<string>>>", list_struct),
        ("map<string,list<int32>>", map_list),
        ("struct<struct<x,y>,z>", struct_struct),
        ("list<map<int32,string>>", list_map),
        ("list<list<list<int32>>>", list3),
    ] {
        out.push((name, f.clone()));
        out.push((name, all_required(&f)));
    }
    out
}

/// Write `rows` of `field` with `options` in batches, read back, compare; check the pages.
fn round_trip(field: &Field, rows: &[parq::array::Value], options: WriterOptions, seed: u64) {
    let fields = vec![field.clone(), int64("id")];
    let ids: Vec<parq::array::Value> = (0..rows.len() as i64)
        .map(|i| parq::array::Value::Leaf(i.to_le_bytes().to_vec()))
        .collect();
    let columns = vec![rows.to_vec(), ids];
    let bytes = write_rows(&fields, &columns, options, seed);
    let what = format!("{} seed {seed}", field.name);
    check_read_back(&bytes, &fields, &columns, &what);
    check_pages(&bytes, &what);
}

#[test]
fn shapes_round_trip_over_pages_and_codecs() {
    let mut seed = 0;
    for (_, field) in shapes() {
        for (i, &codec) in CODECS.iter().enumerate() {
            for version in [PageVersion::V1, PageVersion::V2] {
                for dict in [false, true] {
                    seed += 1;
                    let mut rng = Rng::new(seed);
                    let null_rate = [0.0, 0.2, 0.5, 1.0][(seed % 4) as usize];
                    let n = [1usize, 7, 300, 1000][(i + dict as usize) % 4];
                    let rows: Vec<_> = (0..n)
                        .map(|_| random_value(&field, &mut rng, null_rate, 4))
                        .collect();
                    let options = WriterOptions::default()
                        .with_compression(codec)
                        .with_page_version(version)
                        .with_encoding(if dict {
                            EncodingPolicy::Dictionary
                        } else {
                            EncodingPolicy::Plain
                        })
                        // Tiny pages: records of several pairs would cross them.
                        .with_data_page_size([1, 64, 1 << 20][(seed % 3) as usize])
                        .with_data_page_row_limit([3, 20_000][(seed % 2) as usize])
                        .with_row_group_rows([100, 1 << 20][(seed / 2 % 2) as usize]);
                    round_trip(&field, &rows, options, seed);
                }
            }
        }
    }
}

#[test]
fn empty_null_lists_and_null_elements() {
    use parq::array::Value::{self, *};
    let leaf = |v: i64| Leaf(v.to_le_bytes().to_vec());
    let field = Field::list("a", int64("element"));
    let rows: Vec<Value> = vec![
        Null,
        List(vec![]),
        List(vec![Null]),
        List(vec![leaf(1), leaf(2)]),
        List(vec![leaf(1), Null, leaf(3)]),
        List(vec![]),
        Null,
    ];
    for version in [PageVersion::V1, PageVersion::V2] {
        round_trip(
            &field,
            &rows,
            WriterOptions::default()
                .with_page_version(version)
                .with_data_page_size(1),
            1,
        );
    }
    // The levels of the NESTED.md table, page by page (one record per page).
    let bytes = write_rows(
        std::slice::from_ref(&field),
        std::slice::from_ref(&rows),
        WriterOptions::default().with_data_page_row_limit(1),
        0,
    );
    let levels = chunk_levels(&bytes, 0);
    assert_eq!(
        levels,
        vec![
            (vec![0], vec![0]),
            (vec![0], vec![1]),
            (vec![0], vec![2]),
            (vec![0, 1], vec![3, 3]),
            (vec![0, 1, 1], vec![3, 2, 3]),
            (vec![0], vec![1]),
            (vec![0], vec![0]),
        ]
    );
}

#[test]
fn size_statistics_and_column_index_carry_level_histograms() {
    use parq::array::Value::*;
    let leaf = |v: i64| Leaf(v.to_le_bytes().to_vec());
    let field = Field::list("a", int64("element"));
    let rows = vec![
        Null,
        List(vec![]),
        List(vec![Null]),
        List(vec![leaf(1), leaf(2)]),
        List(vec![leaf(1), Null, leaf(3)]),
    ];
    let bytes = write_rows(
        std::slice::from_ref(&field),
        &[rows],
        WriterOptions::default(),
        0,
    );
    let meta = parq::metadata::decode_footer(&bytes).unwrap();
    let chunk = &meta.row_groups[0].columns[0];
    let md = chunk.meta_data.as_ref().unwrap();
    let ss = md.size_statistics.as_ref().unwrap();
    // (r, d): (0,0) (0,1) (0,2) (0,3) (1,3) (0,3) (1,2) (1,3)
    assert_eq!(ss.repetition_level_histogram, Some(vec![5, 3].into()));
    assert_eq!(ss.definition_level_histogram, Some(vec![1, 1, 2, 4].into()));
    assert_eq!(md.num_values, 8);
    let stats = md.statistics.as_ref().unwrap();
    assert_eq!(stats.null_count, Some(4));
    let ci_at = chunk.column_index_offset.unwrap() as usize;
    let ci = parq::metadata::decode_column_index(
        &bytes[ci_at..ci_at + chunk.column_index_length.unwrap() as usize],
    )
    .unwrap();
    assert_eq!(ci.repetition_level_histograms, Some(vec![5, 3]));
    assert_eq!(ci.definition_level_histograms, Some(vec![1, 1, 2, 4]));
    assert_eq!(ci.null_counts, Some(vec![4]));
}

#[test]
fn arrow_layout_quirks_write_the_same_file_contents() {
    // Sliced arrays (offsets not at 0, children longer than needed), i64 offsets, junk under
    // null slots: all must read back as the same values.
    for (k, (_, field)) in shapes().into_iter().enumerate() {
        for q in 0..4u64 {
            let mut rng = Rng::new(1000 + k as u64 * 10 + q);
            let rows: Vec<_> = (0..200)
                .map(|_| random_value(&field, &mut rng, 0.3, 4))
                .collect();
            let layout = Layout {
                large_offsets: q & 1 == 1,
                junk_under_nulls: q & 2 == 2,
                sliced: q != 0,
            };
            let array = build_with(&field, &rows, &layout, &mut rng);
            let bytes = write_arrays(
                std::slice::from_ref(&field),
                &[vec![array]],
                WriterOptions::default().with_data_page_size(128),
            );
            check_read_back(&bytes, std::slice::from_ref(&field), &[rows], &field.name);
            check_pages(&bytes, &field.name);
        }
    }
}

#[test]
fn mismatched_shapes_are_invalid_arguments() {
    use parq::array::Value::*;
    use parq::Error;
    let field = Field::list("a", int64("element").required());
    let mut w = parq::write::ParquetWriter::with_fields(
        Vec::new(),
        vec![field.clone()],
        WriterOptions::default(),
    )
    .unwrap();
    // A struct where a list belongs.
    let s = build(
        &Field::structure("a", vec![int64("x")]),
        &[Struct(vec![Null])],
    );
    assert!(matches!(
        w.write_arrays(&[s]),
        Err(Error::InvalidArgument(_))
    ));
    // A null element in a required element field.
    let bad = build(&Field::list("a", int64("element")), &[List(vec![Null])]);
    assert!(matches!(
        w.write_arrays(std::slice::from_ref(&bad)),
        Err(Error::InvalidArgument(_))
    ));
    // Wrong number of arrays, and columns for a nested schema.
    assert!(matches!(
        w.write_arrays(&[]),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(w.write_batch(&[]), Err(Error::InvalidArgument(_))));
    // Offsets past the child.
    if let parq::array::Array::List(mut l) = build(
        &Field::list("a", int64("element").required()),
        &[List(vec![Leaf(1i64.to_le_bytes().to_vec())])],
    ) {
        l.values = Box::new(l.values.slice(0, 0));
        assert!(matches!(
            w.write_arrays(&[parq::array::Array::List(l)]),
            Err(Error::InvalidArgument(_))
        ));
    }
    // The writer is still usable: nothing was buffered.
    let ok = build(&field, &[List(vec![]), Null]);
    w.write_arrays(&[ok]).unwrap();
    assert_eq!(w.finish().unwrap().num_rows, 2);
}

#[test]
fn a_batch_straddling_row_groups_is_cut_between_records() {
    let field = Field::list("a", Field::list("element", int32("element")));
    let mut rng = Rng::new(7);
    let rows: Vec<_> = (0..1000)
        .map(|_| random_value(&field, &mut rng, 0.1, 5))
        .collect();
    let bytes = write_rows(
        std::slice::from_ref(&field),
        std::slice::from_ref(&rows),
        WriterOptions::default()
            .with_row_group_rows(333)
            .with_data_page_size(100),
        3,
    );
    let meta = parq::metadata::decode_footer(&bytes).unwrap();
    let groups: Vec<i64> = meta.row_groups.iter().map(|g| g.num_rows).collect();
    assert_eq!(groups, vec![333, 333, 333, 1]);
    check_read_back(&bytes, std::slice::from_ref(&field), &[rows], "straddle");
    check_pages(&bytes, "straddle");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn random_trees_round_trip(
        seed in any::<u64>(),
        depth in 1usize..=4,
        nulls in 0usize..3,
        rows in 0usize..120,
        page in prop::sample::select(vec![1usize, 50, 1 << 20]),
        v2 in any::<bool>(),
        batch in 1usize..50,
    ) {
        let mut rng = Rng::new(seed);
        let fields: Vec<Field> = (0..1 + rng.below(3) as usize)
            .map(|i| random_field(&mut rng, depth, &format!("f{i}")))
            .collect();
        let null_rate = [0.0, 0.3, 1.0][nulls];
        let columns: Vec<Vec<_>> = fields
            .iter()
            .map(|f| (0..rows).map(|_| random_value(f, &mut rng, null_rate, 3)).collect())
            .collect();
        let options = WriterOptions::default()
            .with_data_page_size(page)
            .with_page_version(if v2 { PageVersion::V2 } else { PageVersion::V1 })
            .with_row_group_rows(1 + rng.below(200) as usize);
        let bytes = write_rows(&fields, &columns, options, seed);
        check_read_back(&bytes, &fields, &columns, &format!("seed {seed}"));
        check_pages(&bytes, &format!("seed {seed}"));
        check_batches(&bytes, &columns, batch);
    }
}

#[test]
fn pyarrow_and_duckdb_read_parq_nested_files() {
    python::require_python!("pyarrow", "duckdb");
    let dir = std::env::temp_dir().join(format!("parq-write-nested-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cases = Vec::new();
    let mut seed = 500;
    for (name, field) in shapes() {
        for (codec, version, dict) in [
            (CodecKind::Snappy, PageVersion::V1, true),
            (CodecKind::Zstd, PageVersion::V2, false),
            (CodecKind::Uncompressed, PageVersion::V2, true),
        ] {
            for null_rate in [0.0, 0.5, 1.0] {
                seed += 1;
                let mut rng = Rng::new(seed);
                let rows: Vec<_> = (0..150)
                    .map(|_| random_value(&field, &mut rng, null_rate, 4))
                    .collect();
                let fields = vec![field.clone()];
                let columns = vec![rows];
                let bytes = write_rows(
                    &fields,
                    &columns,
                    WriterOptions::default()
                        .with_compression(codec)
                        .with_page_version(version)
                        .with_encoding(if dict {
                            EncodingPolicy::Dictionary
                        } else {
                            EncodingPolicy::Plain
                        })
                        .with_data_page_size(64)
                        .with_row_group_rows(70),
                    seed,
                );
                let path = dir.join(format!("case{seed}.parquet"));
                std::fs::write(&path, &bytes).unwrap();
                cases.push(Case {
                    what: format!("{name} {codec:?} {version:?} dict {dict} nulls {null_rate}"),
                    path,
                    fields,
                    columns,
                });
            }
        }
    }
    check_with_python(&dir, &cases);
    let _ = std::fs::remove_dir_all(&dir);
}
