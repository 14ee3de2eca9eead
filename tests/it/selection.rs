//! Row selection on flat columns: a selected read equals the full read filtered by the
//! selection, value for value, for every type, encoding, page version, nullability, codec and
//! byte-array layout, with and without the page index; and pages outside the selection are
//! skipped (asserted with probes, on files built so that exactly k pages survive).

use crate::support_write;

use bytes::Bytes;
use parq::codecs::compression::CodecKind;
use parq::column::{Column, Values};
use parq::metadata::{Encoding, Type};
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions, RowSelection};
use parq::write::{
    ColumnOptions, EncodingPolicy, Field, PageVersion, ParquetWriter, WriterOptions,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;
use support_write::Rng;
use support_write::*;

fn write(fields: Vec<Field>, options: WriterOptions, columns: &[Column]) -> Bytes {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    w.write_batch(columns).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

fn open(bytes: &Bytes, selection: Option<RowSelection>, views: bool) -> ParquetReader {
    let options = ReadOptions::default()
        .with_selection(selection)
        .with_byte_array_layout(if views {
            ByteArrayLayout::Views
        } else {
            ByteArrayLayout::Offsets
        });
    ParquetReader::with_options(bytes.clone(), options).unwrap()
}

/// The rows of `col` (all rows of a file) that `sel` selects, in order.
fn filter(col: &Column, sel: &RowSelection) -> Column {
    let parts: Vec<Column> = sel
        .ranges()
        .iter()
        .filter(|r| r.start < col.len as u64)
        .map(|r| {
            let end = r.end.min(col.len as u64);
            col.slice(r.start as usize, (end - r.start) as usize)
        })
        .collect();
    if parts.is_empty() {
        col.slice(0, 0)
    } else {
        Column::concat(&parts)
    }
}

fn alt_encoding(t: Type, pick: u64) -> EncodingPolicy {
    let options: &[Encoding] = match t {
        Type::BOOLEAN => &[Encoding::RLE, Encoding::PLAIN],
        Type::INT32 | Type::INT64 => &[Encoding::DELTA_BINARY_PACKED, Encoding::BYTE_STREAM_SPLIT],
        Type::FLOAT | Type::DOUBLE => &[Encoding::BYTE_STREAM_SPLIT],
        Type::BYTE_ARRAY => &[
            Encoding::DELTA_LENGTH_BYTE_ARRAY,
            Encoding::DELTA_BYTE_ARRAY,
        ],
        Type::FIXED_LEN_BYTE_ARRAY => &[Encoding::DELTA_BYTE_ARRAY, Encoding::BYTE_STREAM_SPLIT],
        _ => &[Encoding::PLAIN],
    };
    EncodingPolicy::Explicit(options[pick as usize % options.len()])
}

#[derive(Debug, Clone)]
struct Spec {
    seed: u64,
    columns: Vec<(usize, bool, u8, u8)>, // kind, optional, null rate, encoding policy
    rows: usize,
    codec: bool,
    v2: bool,
    page_rows: usize,
    rg_rows: usize,
    page_index: bool,
    views: bool,
    ranges: Vec<(u64, u64)>,
    batch: usize,
}

fn spec() -> impl Strategy<Value = Spec> {
    let n_kinds = kinds().len();
    (
        (
            any::<u64>(),
            prop::collection::vec((0..n_kinds, any::<bool>(), 0u8..4, 0u8..4), 1..5),
            1usize..500,
            any::<bool>(),
            any::<bool>(),
        ),
        (
            1usize..40,
            prop_oneof![1usize..300, Just(1 << 20)],
            any::<bool>(),
            any::<bool>(),
            prop::collection::vec((0u64..520, 0u64..60), 0..8),
            1usize..200,
        ),
    )
        .prop_map(
            |(
                (seed, columns, rows, codec, v2),
                (page_rows, rg_rows, page_index, views, ranges, batch),
            )| Spec {
                seed,
                columns,
                rows,
                codec,
                v2,
                page_rows,
                rg_rows,
                page_index,
                views,
                ranges,
                batch,
            },
        )
}

fn run_spec(s: &Spec) {
    let all = kinds();
    let mut r = Rng::new(s.seed);
    let mut options = WriterOptions::default()
        .with_compression(if s.codec {
            CodecKind::Snappy
        } else {
            CodecKind::Uncompressed
        })
        .with_page_version(if s.v2 {
            PageVersion::V2
        } else {
            PageVersion::V1
        })
        .with_data_page_row_limit(s.page_rows)
        .with_row_group_rows(s.rg_rows)
        .with_page_index(s.page_index);
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (i, &(k, optional, nulls, policy)) in s.columns.iter().enumerate() {
        let kind = &all[k];
        let mut field = kind.field.clone();
        field.name = format!("c{i}_{}", field.name);
        if optional {
            field = field.optional();
        }
        let null_rate = if optional {
            [0.0, 0.1, 0.5, 0.95][nulls as usize]
        } else {
            0.0
        };
        columns.push(gen_column(kind, s.rows, null_rate, &mut r));
        let policy = match policy {
            0 => EncodingPolicy::Dictionary,
            1 => EncodingPolicy::Plain,
            _ => alt_encoding(field.physical_type, r.next()),
        };
        options.columns.insert(
            field.name.clone(),
            ColumnOptions::default().with_encoding(Some(policy)),
        );
        fields.push(field);
    }
    let bytes = write(fields.clone(), options, &columns);
    let sel = RowSelection::from_ranges(s.ranges.iter().map(|&(a, l)| a..a + l));
    let reader = open(&bytes, Some(sel.clone()), s.views);
    // The full read, filtered: what the selected read must give.
    let full = open(&bytes, None, s.views);
    let want: Vec<Column> = (0..fields.len())
        .map(|i| filter(&full.read_column(i).unwrap(), &sel))
        .collect();
    assert_eq!(reader.selected_rows(), want[0].len as u64);

    // Whole columns.
    for (i, w) in want.iter().enumerate() {
        let got = reader.read_column(i).unwrap();
        assert_same(&fields[i].name, w, &got);
    }
    // Batches of all columns.
    let leaves: Vec<usize> = (0..fields.len()).collect();
    let mut parts: Vec<Vec<Column>> = vec![Vec::new(); fields.len()];
    for b in reader.batches(&leaves, s.batch).unwrap() {
        let b = b.unwrap();
        assert!(b.num_rows <= s.batch);
        for (p, c) in parts.iter_mut().zip(b.columns) {
            p.push(c);
        }
    }
    for ((p, w), f) in parts.iter().zip(&want).zip(&fields) {
        let got = if p.is_empty() {
            w.slice(0, 0)
        } else {
            Column::concat(p)
        };
        assert_same(&format!("{} in batches", f.name), w, &got);
    }
    // Array batches, and read_field.
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    let mut rows = vec![Vec::new(); fields.len()];
    for b in reader.array_batches(&names, s.batch).unwrap() {
        let b = b.unwrap();
        for (r, a) in rows.iter_mut().zip(&b.arrays) {
            r.extend((0..a.len()).map(|i| a.value(i)));
        }
    }
    for (i, w) in want.iter().enumerate() {
        let (_, a) = reader.read_field(i).unwrap();
        let w = parq::array::Array::Primitive(w.clone());
        assert_eq!(a, w, "read_field {}", fields[i].name);
        let expect: Vec<_> = (0..w.len()).map(|j| w.value(j)).collect();
        assert_eq!(rows[i], expect, "array_batches {}", fields[i].name);
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]
    #[test]
    fn selected_read_is_the_full_read_filtered(s in spec()) {
        run_spec(&s);
    }
}

#[test]
fn every_encoding_skips_inside_pages() {
    // One deterministic pass over every kind and encoding, with a selection that cuts every
    // page (pages of 40 rows, ranges of 7 every 13 rows).
    let sel = RowSelection::from_ranges((0..80u64).map(|i| i * 13..i * 13 + 7));
    for k in 0..kinds().len() {
        for policy in 0..4u8 {
            for v2 in [false, true] {
                let s = Spec {
                    seed: k as u64 * 31 + policy as u64,
                    columns: vec![(k, true, 1, policy), (k, false, 0, policy)],
                    rows: 1000,
                    codec: false,
                    v2,
                    page_rows: 40,
                    rg_rows: 300,
                    page_index: policy % 2 == 0,
                    views: policy == 3,
                    ranges: sel
                        .ranges()
                        .iter()
                        .map(|r| (r.start, r.end - r.start))
                        .collect(),
                    batch: 64,
                };
                run_spec(&s);
            }
        }
    }
}

#[test]
fn an_empty_selection_reads_no_rows_and_a_full_one_all() {
    let col = Column {
        len: 100,
        validity: None,
        values: Values::Int64((0..100i64).collect::<Vec<_>>().into()),
    };
    let bytes = write(
        vec![Field::int64("a")],
        WriterOptions::default().with_row_group_rows(30),
        std::slice::from_ref(&col),
    );
    let none = open(&bytes, Some(RowSelection::none()), false);
    assert_eq!(none.read_column(0).unwrap().len, 0);
    assert_eq!(none.batches(&[0], 10).unwrap().count(), 0);
    let all = open(&bytes, Some(RowSelection::all(100)), false);
    assert_eq!(all.read_column(0).unwrap(), col);
    // Rows past the end of the file select nothing more.
    let past = open(
        &bytes,
        Some(RowSelection::from_ranges(std::iter::once(95..1000))),
        false,
    );
    assert_eq!(past.read_column(0).unwrap(), col.slice(95, 5));
    // With chosen row groups: the selected rows of those row groups, in their order.
    let options = ReadOptions::default()
        .with_row_groups(Some(vec![2, 0]))
        .with_selection(Some(RowSelection::from_ranges([10..20, 25..70])));
    let r = ParquetReader::with_options(bytes.clone(), options).unwrap();
    let got = r.read_column(0).unwrap();
    let want = Column::concat(&[col.slice(60, 10), col.slice(10, 10), col.slice(25, 5)]);
    assert_eq!(got, want);
}

#[cfg(feature = "arrow")]
#[test]
fn record_batches_honour_the_selection() {
    use arrow_array::Array as _;
    let n = 500;
    let ids = Column {
        len: n,
        validity: None,
        values: Values::Int64((0..n as i64).collect::<Vec<_>>().into()),
    };
    let mut r = Rng::new(7);
    let names = gen_column(&kinds()[10], n, 0.2, &mut r);
    let bytes = write(
        vec![Field::int64("id"), Field::string("s").optional()],
        WriterOptions::default()
            .with_data_page_row_limit(32)
            .with_row_group_rows(200),
        &[ids, names],
    );
    let sel = RowSelection::from_ranges([3..9, 150..260, 499..500]);
    let full: Vec<_> = open(&bytes, None, false)
        .record_batches(parq::read::EVERY_FIELD, 1000)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    let got: Vec<_> = open(&bytes, Some(sel.clone()), false)
        .record_batches(parq::read::EVERY_FIELD, 50)
        .unwrap()
        .map(|b| b.unwrap())
        .collect();
    // Row i of the whole file, one row of each column.
    let row = |batches: &[arrow_array::RecordBatch], mut i: usize| {
        for b in batches {
            if i < b.num_rows() {
                return b.slice(i, 1);
            }
            i -= b.num_rows();
        }
        panic!("row out of range");
    };
    let total: usize = got.iter().map(|b| b.num_rows()).sum();
    assert_eq!(total as u64, sel.row_count());
    let mut j = 0;
    for r in sel.ranges() {
        for i in r.clone() {
            let (a, b) = (row(&full, i as usize), row(&got, j));
            for c in 0..2 {
                assert_eq!(
                    a.column(c).to_data(),
                    b.column(c).to_data(),
                    "row {i} col {c}"
                );
            }
            j += 1;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Pages skipped, counted with probes.

#[cfg(feature = "probes")]
mod probes {
    use super::*;
    use parq::codecs::probe;

    /// 2 row groups of 1000 rows, pages of 100 rows: an int64 and an optional string column.
    fn file(page_index: bool, v2: bool, policy: EncodingPolicy) -> (Bytes, Vec<Column>) {
        let n = 2000;
        let ids = Column {
            len: n,
            validity: None,
            values: Values::Int64((0..n as i64).collect::<Vec<_>>().into()),
        };
        let mut r = Rng::new(3);
        let strs = gen_column(&kinds()[11], n, 0.3, &mut r);
        let strings = match policy {
            EncodingPolicy::Explicit(_) => EncodingPolicy::Plain,
            p => p,
        };
        let options = WriterOptions::default()
            .with_data_page_row_limit(100)
            .with_row_group_rows(1000)
            .with_page_index(page_index)
            .with_page_version(if v2 { PageVersion::V2 } else { PageVersion::V1 })
            .with_column("id", ColumnOptions::default().with_encoding(Some(policy)))
            .with_column("s", ColumnOptions::default().with_encoding(Some(strings)));
        let cols = vec![ids, strs];
        let bytes = write(
            vec![Field::int64("id"), Field::string("s").optional()],
            options,
            &cols,
        );
        (bytes, cols)
    }

    fn counts() -> (u64, u64, u64) {
        (
            probe::get("read.pages_decoded"),
            probe::get("read.pages_skipped"),
            probe::get("read.pages_skipped_by_offset_index"),
        )
    }

    /// Rows in pages 2 and 7 of row group 1 (file rows 1200..1300 and 1700..1800), cutting
    /// both pages: exactly 2 pages of each column survive, the other 8 of row group 1 are
    /// skipped, and row group 0 is never opened.
    fn selection() -> RowSelection {
        RowSelection::from_ranges([1210..1220, 1250..1251, 1799..1800])
    }

    #[test]
    fn pages_outside_the_selection_are_skipped_through_the_offset_index() {
        for policy in [EncodingPolicy::Plain, EncodingPolicy::Dictionary] {
            for v2 in [false, true] {
                let (bytes, cols) = file(true, v2, policy);
                let reader = open(&bytes, Some(selection()), false);
                for (c, col) in cols.iter().enumerate() {
                    probe::reset();
                    let got = reader.read_column(c).unwrap();
                    assert_eq!(got, filter(col, &selection()));
                    assert_eq!(counts(), (2, 0, 8), "column {c}, v2 {v2}, {policy:?}");
                    // The dictionary page is still read, once, for the one chunk read.
                    let dict = probe::get("read.dictionary_page_decoded");
                    let want = u64::from(policy == EncodingPolicy::Dictionary);
                    assert_eq!(dict, want, "column {c}: dictionary pages");
                    assert_eq!(probe::get("read.page_skip_in_decoder"), 2);
                }
            }
        }
    }

    /// `ids` written by the parquet crate with a 4000-byte dictionary limit checked every
    /// 100 rows: the dictionary fills up in the chunk's first pages of 100 rows and the
    /// rest are plain, as writers fall back.
    fn fallen_back(ids: &[i64], page_index: bool, v2: bool) -> Bytes {
        use arrow_array::{ArrayRef, Int64Array, RecordBatch};
        use parquet::arrow::ArrowWriter;
        use parquet::file::properties::{EnabledStatistics, WriterProperties, WriterVersion};
        let column: ArrayRef = std::sync::Arc::new(Int64Array::from(ids.to_vec()));
        let batch = RecordBatch::try_from_iter([("id", column)]).unwrap();
        let props = WriterProperties::builder()
            .set_data_page_row_count_limit(100)
            .set_write_batch_size(100)
            .set_dictionary_page_size_limit(4000)
            .set_compression(parquet::basic::Compression::ZSTD(Default::default()))
            .set_writer_version(if v2 {
                WriterVersion::PARQUET_2_0
            } else {
                WriterVersion::PARQUET_1_0
            })
            .set_statistics_enabled(if page_index {
                EnabledStatistics::Page
            } else {
                EnabledStatistics::Chunk
            })
            .build();
        let mut out = Vec::new();
        let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
        w.write(&batch).unwrap();
        w.close().unwrap();
        Bytes::from(out)
    }

    /// A read of plain pages only never decompresses or decodes the chunk's dictionary
    /// page; one that reads a dictionary-encoded page decodes it once.
    #[test]
    fn a_dictionary_only_plain_pages_are_read_from_is_never_decoded() {
        let ids: Vec<i64> = (0..2000).map(|i| i * 7).collect();
        let col = Column {
            len: ids.len(),
            validity: None,
            values: Values::Int64(ids.clone().into()),
        };
        for page_index in [false, true] {
            for v2 in [false, true] {
                let bytes = fallen_back(&ids, page_index, v2);
                let what = format!("page index {page_index}, v2 {v2}");
                for (rows, decoded) in [(1900..1910, 0), (1210..1220, 0), (10..20, 1)] {
                    let sel = RowSelection::from_ranges([rows.clone()]);
                    let reader = open(&bytes, Some(sel.clone()), false);
                    probe::reset();
                    let got = reader.read_column(0).unwrap();
                    assert_eq!(got, filter(&col, &sel), "{what}, rows {rows:?}");
                    let dict = probe::get("read.dictionary_page_decoded");
                    assert_eq!(dict, decoded, "{what}, rows {rows:?}: dictionaries decoded");
                }
            }
        }
    }

    #[test]
    fn pages_outside_the_selection_are_skipped_by_their_headers() {
        for policy in [EncodingPolicy::Plain, EncodingPolicy::Dictionary] {
            for v2 in [false, true] {
                let (bytes, cols) = file(false, v2, policy);
                let reader = open(&bytes, Some(selection()), false);
                for (c, col) in cols.iter().enumerate() {
                    probe::reset();
                    let got = reader.read_column(c).unwrap();
                    assert_eq!(got, filter(col, &selection()));
                    assert_eq!(counts(), (2, 8, 0), "column {c}, v2 {v2}, {policy:?}");
                }
                // Batches skip the same pages.
                probe::reset();
                let rows: usize = reader
                    .batches(&[0, 1], 7)
                    .unwrap()
                    .map(|b| b.unwrap().num_rows)
                    .sum();
                assert_eq!(rows as u64, selection().row_count());
                assert_eq!(counts(), (4, 16, 0));
            }
        }
    }

    #[test]
    fn whole_pages_selected_are_decoded_as_without_a_selection() {
        let (bytes, cols) = file(true, false, EncodingPolicy::Plain);
        let sel = RowSelection::from_ranges(std::iter::once(300..500));
        let reader = open(&bytes, Some(sel.clone()), false);
        probe::reset();
        assert_eq!(reader.read_column(0).unwrap(), filter(&cols[0], &sel));
        assert_eq!(counts(), (2, 0, 8));
        assert_eq!(probe::get("read.page_skip_in_decoder"), 0);
        assert_eq!(probe::get("read.page_decode_and_drop"), 0);
    }

    #[test]
    fn delta_pages_are_decoded_and_dropped_plain_pages_skipped() {
        let (bytes, cols) = file(
            true,
            false,
            EncodingPolicy::Explicit(Encoding::DELTA_BINARY_PACKED),
        );
        let reader = open(&bytes, Some(selection()), false);
        probe::reset();
        assert_eq!(
            reader.read_column(0).unwrap(),
            filter(&cols[0], &selection())
        );
        assert_eq!(probe::get("read.page_decode_and_drop"), 2);
        assert_eq!(probe::get("read.page_skip_in_decoder"), 0);
    }

    /// The needle query of the bench, scaled down: `id` sorted, pages of 8192 rows, the page
    /// index on; the rows of the one page whose min/max hold the needle, found by hand from
    /// the column and offset indexes. Exactly one page per projected column is decoded, in
    /// the one row group that holds it; every other page of that row group is skipped
    /// through the offset index and the other row groups are not opened.
    #[test]
    fn needle_query_decodes_one_page_per_column() {
        let n = 100_000;
        let mut r = Rng::new(9);
        let ids = Column {
            len: n,
            validity: None,
            values: Values::Int64((0..n as i64).collect::<Vec<_>>().into()),
        };
        let names = gen_column(&kinds()[10], n, 0.0, &mut r);
        let scores = gen_column(&kinds()[7], n, 0.0, &mut r);
        let options = WriterOptions::default()
            .with_data_page_row_limit(8192)
            .with_row_group_rows(32768)
            .with_compression(CodecKind::Snappy);
        let bytes = write(
            vec![
                Field::int64("id"),
                Field::string("name"),
                Field::double("score"),
            ],
            options,
            &[ids, names, scores],
        );
        let reader = open(&bytes, None, false);
        let needle = 70_000i64;
        let first_rows = reader.row_group_first_rows();
        let mut found = None;
        for (rg, &first) in first_rows.iter().enumerate() {
            let index = reader.read_column_index(rg, 0).unwrap().unwrap();
            let offsets = reader.read_offset_index(rg, 0).unwrap().unwrap();
            let int = |b: &[u8]| i64::from_le_bytes(b.try_into().unwrap());
            for (p, (lo, hi)) in index.min_values.iter().zip(&index.max_values).enumerate() {
                if int(lo) <= needle && needle <= int(hi) {
                    let locs = &offsets.page_locations;
                    let start = first + locs[p].first_row_index as u64;
                    let end = locs.get(p + 1).map_or(
                        first + reader.metadata().row_groups[rg].num_rows as u64,
                        |l| first + l.first_row_index as u64,
                    );
                    found = Some((rg, start..end, locs.len()));
                }
            }
        }
        let (rg, rows, pages) = found.unwrap();
        assert_eq!((rg, rows.clone()), (2, 65536..73728));
        let sel = RowSelection::from_ranges(std::iter::once(rows.clone()));
        let selected = open(&bytes, Some(sel.clone()), false);
        let full = open(&bytes, None, false);
        probe::reset();
        for c in 0..3 {
            let got = selected.read_column(c).unwrap();
            assert_eq!(got, filter(&full.read_column(c).unwrap(), &sel));
        }
        // One page decoded per column: the full reads above are not counted apart, so count
        // the selected read alone.
        probe::reset();
        for c in 0..3 {
            selected.read_column(c).unwrap();
        }
        assert_eq!(counts(), (3, 0, 3 * (pages as u64 - 1)));
    }

    /// DELTA_LENGTH_BYTE_ARRAY pages skip by their lengths, in both byte-array layouts.
    #[test]
    fn delta_length_byte_array_pages_skip_by_length() {
        let n = 2000;
        let mut r = Rng::new(5);
        let col = gen_column(&kinds()[10], n, 0.3, &mut r);
        let options = WriterOptions::default()
            .with_data_page_row_limit(100)
            .with_row_group_rows(1000)
            .with_column(
                "s",
                ColumnOptions::default().with_encoding(Some(EncodingPolicy::Explicit(
                    Encoding::DELTA_LENGTH_BYTE_ARRAY,
                ))),
            );
        let bytes = write(vec![Field::string("s").optional()], options, &[col]);
        for views in [false, true] {
            let want = filter(
                &open(&bytes, None, views).read_column(0).unwrap(),
                &selection(),
            );
            probe::reset();
            let got = open(&bytes, Some(selection()), views)
                .read_column(0)
                .unwrap();
            assert_eq!(got, want, "views {views}");
            assert_eq!(probe::get("read.page_skip_in_decoder"), 2);
            assert_eq!(probe::get("read.page_decode_and_drop"), 0);
        }
    }

    /// An offset index that cannot be read is ignored: the pages are skipped by their
    /// headers instead, and the rows are the same.
    #[test]
    fn an_unusable_offset_index_falls_back_to_page_headers() {
        let (bytes, cols) = file(true, false, EncodingPolicy::Plain);
        let mut meta = parq::metadata::decode_footer(&bytes).unwrap();
        let footer_len =
            u32::from_le_bytes(bytes[bytes.len() - 8..bytes.len() - 4].try_into().unwrap());
        let footer_start = bytes.len() - 8 - footer_len as usize;
        for c in &mut meta.row_groups[1].columns {
            c.offset_index_length = Some(1);
        }
        let mut out = bytes[..footer_start].to_vec();
        let mut footer = Vec::new();
        parq::metadata::encode_file_metadata(&meta, &mut footer);
        out.extend_from_slice(&footer);
        out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
        out.extend_from_slice(b"PAR1");
        let bytes = Bytes::from(out);
        let reader = open(&bytes, Some(selection()), false);
        for (c, col) in cols.iter().enumerate() {
            probe::reset();
            assert_eq!(reader.read_column(c).unwrap(), filter(col, &selection()));
            assert_eq!(counts(), (2, 8, 0));
            assert_eq!(probe::get("read.offset_index_unusable"), 1);
        }
    }
}

/// Files from other writers (parquet-testing: parquet-mr, parquet-cpp, arrow-rs, Impala,
/// ...; some with a page index, v2 pages, every encoding): every field that reads whole
/// reads the selected rows the same.
#[test]
fn parquet_testing_files_read_selected_rows() {
    let dir = std::env::var_os("PARQUET_TEST_DATA")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("testdata/parquet-testing/data")
        });
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    paths.sort();
    let mut checked = 0;
    for path in paths {
        let bytes = Bytes::from(std::fs::read(&path).unwrap());
        let Ok(full) = ParquetReader::new(bytes.clone()) else {
            continue;
        };
        let n = full
            .metadata()
            .row_groups
            .iter()
            .map(|rg| rg.num_rows as u64)
            .sum::<u64>();
        let Ok(fields) = full.fields() else { continue };
        let selections = [
            RowSelection::from_ranges((0..n).step_by(3).map(|r| r..r + 2)),
            RowSelection::from_ranges(std::iter::once(n / 3..n / 3 + n / 4 + 1)),
            RowSelection::from_ranges([0..1, n.saturating_sub(1)..n]),
        ];
        for i in 0..fields.len() {
            let Ok((_, whole)) = full.read_field(i) else {
                continue;
            };
            if whole.len() as u64 != n {
                continue;
            }
            for sel in &selections {
                let r = open(&bytes, Some(sel.clone()), false);
                let (_, got) = r
                    .read_field(i)
                    .unwrap_or_else(|e| panic!("{}: field {i}: {e}", path.display()));
                let want: Vec<_> = (0..whole.len())
                    .filter(|&j| sel.contains(j as u64))
                    .map(|j| whole.value(j))
                    .collect();
                let got: Vec<_> = (0..got.len()).map(|j| got.value(j)).collect();
                assert_eq!(got, want, "{}: field {i}, {sel:?}", path.display());
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} fields checked");
}

/// A dictionary-encoded page read by a selection of many runs resumes its indices where the
/// last run ended (probe `read.dictionary_indices_resumed`) instead of skipping from the
/// page start for every run, for fixed-width values, strings as offsets and as views, and
/// nulls; the rows are the selected ones.
#[cfg(feature = "probes")]
#[test]
fn dictionary_pages_resume_their_indices_run_after_run() {
    let rows = 20_000usize;
    let ints = Column {
        len: rows,
        validity: None,
        values: Values::Int64((0..rows as i64).map(|i| i % 7).collect::<Vec<_>>().into()),
    };
    // Strings with a null every fifth row.
    let (mut offsets, mut data) = (vec![0i64], Vec::new());
    for i in 0..rows {
        if i % 5 != 0 {
            data.extend_from_slice(format!("word-{}", i % 11).as_bytes());
        }
        offsets.push(data.len() as i64);
    }
    let strings = Column {
        len: rows,
        validity: Some(arrow_buffer::NullBuffer::from(
            (0..rows).map(|i| i % 5 != 0).collect::<Vec<_>>(),
        )),
        values: Values::Binary {
            offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
            data: data.into(),
        },
    };
    let bytes = write(
        vec![Field::int64("i"), Field::string("s").optional()],
        WriterOptions::default()
            .with_encoding(EncodingPolicy::Dictionary)
            .with_data_page_row_limit(rows),
        &[ints.clone(), strings.clone()],
    );
    // 500 runs of 10 rows, one every 40.
    let sel = RowSelection::from_ranges((0..500u64).map(|i| i * 40..i * 40 + 10));
    for views in [false, true] {
        parq::codecs::probe::reset();
        let r = open(&bytes, Some(sel.clone()), views);
        assert_eq!(r.read_column(0).unwrap(), filter(&ints, &sel));
        let got = parq::array::Array::Primitive(r.read_column(1).unwrap());
        let want = parq::array::Array::Primitive(filter(&strings, &sel));
        assert_eq!(got.len(), want.len());
        for i in 0..got.len() {
            assert_eq!(got.value(i), want.value(i), "row {i}");
        }
        let resumed = parq::codecs::probe::get("read.dictionary_indices_resumed");
        assert!(resumed >= 2 * 499, "{resumed} parts resumed");
    }
}
