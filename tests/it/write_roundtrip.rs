//! The writer never loses or invents data: random flat schemas and data written with random
//! options read back identically with parq (float bits, nulls, empty strings), plus the edge
//! cases (empty files, dropped writers, I/O errors, invalid input), the statistics and page
//! index it writes, the plain-vs-dictionary decision (probes), the file sizes that decision
//! gives, and a read of a parq file by the `parquet` crate (arrow-rs).

use crate::support_write;

use std::io::{self, Write};

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq::codecs::compression::CodecKind;
use parq::column::{Column, Values};
use parq::metadata::{
    decode_column_index, decode_footer, decode_offset_index, BoundaryOrder, ColumnOrder, Encoding,
    FileMetaData,
};
use parq::read::ParquetReader;
use parq::write::{
    ColumnOptions, EncodingPolicy, Field, PageVersion, ParquetWriter, WriterOptions,
};
#[cfg(feature = "testing")]
use proptest::{prelude::*, test_runner::FileFailurePersistence};
use support_write::Rng;
use support_write::*;

fn write(
    fields: Vec<Field>,
    options: WriterOptions,
    batches: &[Vec<Column>],
) -> (Vec<u8>, FileMetaData) {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    for b in batches {
        w.write_batch(b).unwrap();
    }
    let meta = w.finish().unwrap();
    (out, meta)
}

fn read_all(bytes: &[u8]) -> (ParquetReader, Vec<Column>) {
    let r = ParquetReader::new(Bytes::from(bytes.to_vec())).unwrap();
    let n = r.metadata().schema.len() - 1;
    let cols = (0..n).map(|i| r.read_column(i).unwrap()).collect();
    (r, cols)
}

fn i64_col(v: Vec<i64>) -> Column {
    Column {
        len: v.len(),
        validity: None,
        values: Values::Int64(ScalarBuffer::from(v)),
    }
}

fn binary_col<S: AsRef<[u8]>>(v: &[S], validity: Option<Vec<bool>>) -> Column {
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for s in v {
        data.extend_from_slice(s.as_ref());
        offsets.push(data.len() as i64);
    }
    Column {
        len: v.len(),
        validity: validity.map(NullBuffer::from),
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from(data),
        },
    }
}

// ---------------------------------------------------------------------------------------
// Random schemas, data and options: `parq::testing`'s flat specs (every leaf type parq
// writes, null rates from none to all, unique / low-cardinality / sorted / run values with
// edge values, offsets and view layouts, random batch splits; every codec, v1 and v2 pages,
// auto / dictionary / every valid explicit encoding per column, page and row-group limits
// down to one row). Needs `--features testing` (CI has it).

#[cfg(feature = "testing")]
proptest! {
    #![proptest_config(ProptestConfig {
        cases: 96,
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]
    #[test]
    fn random_schemas_round_trip(
        spec in parq::testing::spec::file_spec(parq::testing::SpecConfig::flat()
            .with_max_fields(5)
            .with_max_rows(700))
    ) {
        let (bytes, meta) = spec.write_with_metadata().unwrap();
        let rows = spec.num_rows();
        prop_assert_eq!(meta.num_rows as usize, rows);
        prop_assert_eq!(meta.row_groups.len(), rows.div_ceil(spec.options.row_group_rows));
        prop_assert_eq!(decode_footer(&bytes).unwrap(), meta, "the footer is the metadata returned");
        let (_, back) = read_all(&bytes);
        for ((f, c), b) in spec.fields.iter().zip(&spec.columns).zip(&back) {
            assert_same(&f.name, c.as_primitive().unwrap(), b);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Edge cases.

/// Byte arrays with i32 offsets (`Values::SmallBinary`, as read with
/// `ReadOptions::small_offsets`) write the same file as with i64 ones, sliced or not, and a
/// read with i32 offsets gives them back.
#[test]
fn small_offsets_write_like_offsets() {
    let words: Vec<String> = (0..500).map(|i| format!("w{}", i % 37)).collect();
    let valid: Vec<bool> = (0..500).map(|i| i % 9 != 4).collect();
    let wide = binary_col(&words, Some(valid));
    let Values::Binary { offsets, data } = &wide.values else {
        unreachable!()
    };
    let narrow: Vec<i32> = offsets.iter().map(|&o| o as i32).collect();
    let small = Column {
        values: Values::SmallBinary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(narrow)),
            data: data.clone(),
        },
        ..wide.clone()
    };
    let fields = || vec![Field::string("s").optional()];
    let batches = |c: &Column| vec![vec![c.slice(0, 123)], vec![c.slice(123, 377)]];
    let (want, _) = write(fields(), WriterOptions::default(), &batches(&wide));
    let (got, _) = write(fields(), WriterOptions::default(), &batches(&small));
    assert_eq!(got, want);
    // Row groups cut by bytes: i32 offsets count as the i64 ones, the cuts do not move.
    let by_bytes = || WriterOptions::default().with_row_group_bytes(1500);
    let (want_cut, meta) = write(fields(), by_bytes(), &batches(&wide));
    assert!(meta.row_groups.len() > 2);
    let (got_cut, _) = write(fields(), by_bytes(), &batches(&small));
    assert_eq!(got_cut, want_cut);
    // The same as a list's elements, written as they are (no widening), with row groups
    // cut by rows and by bytes.
    let list = |values: &Column| {
        let offsets: Vec<i32> = (0..=100).map(|i| i * 5).collect();
        parq::array::Array::List(parq::array::ListArray {
            validity: None,
            offsets: parq::array::ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(
                offsets,
            ))),
            values: Box::new(parq::array::Array::Primitive(values.clone())),
        })
    };
    let list_field = || {
        vec![parq::field::Field::list(
            "l",
            Field::string("element").optional().into(),
        )]
    };
    for options in [WriterOptions::default().with_row_group_rows(30), by_bytes()] {
        let write_list = |values: &Column| {
            let mut out = Vec::new();
            let mut w =
                ParquetWriter::with_fields(&mut out, list_field(), options.clone()).unwrap();
            w.write_arrays(&[list(values)]).unwrap();
            w.finish().unwrap();
            out
        };
        assert_eq!(write_list(&small), write_list(&wide));
    }
    let options = parq::read::ReadOptions::default().with_small_offsets(vec![0]);
    let r = ParquetReader::with_options(Bytes::from(got), options).unwrap();
    let mut back = Vec::new();
    for b in r.array_batches(&["s"], 100).unwrap() {
        let b = b.unwrap();
        let c = b.arrays[0].as_primitive().unwrap().clone();
        assert!(matches!(c.values, Values::SmallBinary { .. }));
        back.push(c);
    }
    assert!(Column::concat(&back) == wide);
}

#[test]
fn empty_file_is_valid_with_no_row_groups() {
    let (bytes, meta) = write(
        vec![Field::int64("a"), Field::string("s").optional()],
        WriterOptions::default(),
        &[],
    );
    assert_eq!(meta.num_rows, 0);
    assert!(meta.row_groups.is_empty());
    let (r, cols) = read_all(&bytes);
    assert_eq!(r.metadata().num_rows, 0);
    assert!(cols.iter().all(|c| c.len == 0));
    // An empty batch changes nothing either.
    let (bytes2, _) = write(
        vec![Field::int64("a")],
        WriterOptions::default(),
        &[vec![i64_col(vec![])]],
    );
    assert_eq!(
        ParquetReader::new(Bytes::from(bytes2))
            .unwrap()
            .metadata()
            .row_groups
            .len(),
        0
    );
}

#[test]
fn dropped_writer_leaves_no_valid_file() {
    let mut out = Vec::new();
    {
        let mut w = ParquetWriter::new(
            &mut out,
            vec![Field::int64("a")],
            WriterOptions::default().with_row_group_rows(2),
        )
        .unwrap();
        w.write_batch(&[i64_col(vec![1, 2, 3, 4, 5])]).unwrap();
        // Row groups were flushed, but no footer: dropped here.
    }
    assert!(out.starts_with(b"PAR1"));
    assert!(ParquetReader::new(Bytes::from(out.clone())).is_err());
    assert!(decode_footer(&out).is_err());
    // Nothing written at all before finish: not even a valid empty file.
    let mut out = Vec::new();
    drop(ParquetWriter::new(&mut out, vec![Field::int64("a")], WriterOptions::default()).unwrap());
    assert!(ParquetReader::new(Bytes::from(out)).is_err());
}

/// A sink that fails once `limit` bytes have been written.
struct FailingSink {
    written: usize,
    limit: usize,
}

impl Write for FailingSink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.written + buf.len() > self.limit {
            return Err(io::Error::other("disk full"));
        }
        self.written += buf.len();
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn io_errors_surface_and_poison_the_writer() {
    for limit in [0, 3, 10, 100, 2000] {
        let sink = FailingSink { written: 0, limit };
        let mut w = ParquetWriter::new(
            sink,
            vec![Field::int64("a")],
            WriterOptions::default().with_row_group_rows(50),
        )
        .unwrap();
        let r1 = w.write_batch(&[i64_col((0..100).collect())]);
        let r2 = w.write_batch(&[i64_col((0..100).collect())]);
        let r3 = w.finish();
        let errs = [r1.is_err(), r2.is_err(), r3.is_err()];
        assert!(
            errs.iter().any(|&e| e),
            "limit {limit}: an error must surface"
        );
        assert!(
            r3.is_err(),
            "limit {limit}: finish must fail after a failed write"
        );
        let first = errs.iter().position(|&e| e).unwrap();
        assert!(
            errs[first..].iter().all(|&e| e),
            "limit {limit}: every call after the first error fails"
        );
    }
    // A sink that takes everything: finish succeeds.
    let sink = FailingSink {
        written: 0,
        limit: usize::MAX,
    };
    let mut w =
        ParquetWriter::new(sink, vec![Field::int64("a")], WriterOptions::default()).unwrap();
    w.write_batch(&[i64_col((0..100).collect())]).unwrap();
    let (_, sink) = w.close().unwrap();
    assert!(sink.written > 100 * 8);
}

#[test]
fn invalid_input_is_rejected() {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(
        &mut out,
        vec![Field::int64("a"), Field::int32("b")],
        WriterOptions::default(),
    )
    .unwrap();
    let b = Column {
        len: 2,
        validity: None,
        values: Values::Int32(ScalarBuffer::from(vec![1, 2])),
    };
    assert!(
        w.write_batch(&[i64_col(vec![1, 2])]).is_err(),
        "column count"
    );
    assert!(
        w.write_batch(&[i64_col(vec![1, 2, 3]), b.clone()]).is_err(),
        "lengths"
    );
    assert!(w.write_batch(&[b.clone(), b.clone()]).is_err(), "layout");
    let with_null = Column {
        validity: Some(NullBuffer::from(vec![true, false])),
        ..i64_col(vec![1, 2])
    };
    assert!(
        w.write_batch(&[with_null, b.clone()]).is_err(),
        "null in a required column"
    );
    let bad_offsets = Column {
        len: 1,
        validity: None,
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(vec![0i64, 10])),
            data: Buffer::from(vec![1u8, 2]),
        },
    };
    let mut out2 = Vec::new();
    let mut w2 = ParquetWriter::new(
        &mut out2,
        vec![Field::byte_array("x")],
        WriterOptions::default(),
    )
    .unwrap();
    assert!(
        w2.write_batch(&[bad_offsets]).is_err(),
        "offsets beyond the data"
    );
    // The writer still works after rejected batches.
    w.write_batch(&[i64_col(vec![1, 2]), b]).unwrap();
    assert_eq!(w.finish().unwrap().num_rows, 2);

    // Encodings a type cannot take, and options for unknown columns.
    for (field, e) in [
        (Field::float("f"), Encoding::DELTA_BINARY_PACKED),
        (Field::int32("i"), Encoding::DELTA_LENGTH_BYTE_ARRAY),
        (Field::byte_array("b"), Encoding::BYTE_STREAM_SPLIT),
        (Field::boolean("x"), Encoding::DELTA_BINARY_PACKED),
        (Field::int64("i"), Encoding::RLE),
        (Field::int96("t"), Encoding::BYTE_STREAM_SPLIT),
    ] {
        let o = WriterOptions::default().with_encoding(EncodingPolicy::Explicit(e));
        assert!(
            ParquetWriter::new(Vec::new(), vec![field], o).is_err(),
            "{e}"
        );
    }
    let o = WriterOptions::default().with_column("nope", ColumnOptions::default());
    assert!(ParquetWriter::new(Vec::new(), vec![Field::int64("a")], o).is_err());
}

#[test]
fn special_values_round_trip_exactly() {
    let doubles = vec![
        f64::NAN,
        f64::from_bits(0x7FF0_0000_0000_0001), // signalling NaN payload
        f64::from_bits(0xFFF8_0000_DEAD_BEEF),
        -0.0,
        0.0,
        f64::MIN_POSITIVE / 2.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
    ];
    let floats: Vec<f32> = vec![
        f32::from_bits(0x7F80_0001),
        -0.0,
        0.0,
        f32::from_bits(0xFFC0_0042),
    ];
    let strings: Vec<&[u8]> = vec![b"", b"", b"\0", &[0xFF, 0xFE], b"x"];
    for policy in [
        EncodingPolicy::Auto,
        EncodingPolicy::Dictionary,
        EncodingPolicy::Plain,
    ] {
        for version in [PageVersion::V1, PageVersion::V2] {
            let d = Column {
                len: doubles.len(),
                validity: None,
                values: Values::Double(ScalarBuffer::from(doubles.clone())),
            };
            let f = Column {
                len: 4,
                validity: Some(NullBuffer::from(vec![true, true, false, true])),
                values: Values::Float(ScalarBuffer::from(floats.clone())),
            };
            let s = binary_col(&strings, Some(vec![true, true, true, true, false]));
            let fields = vec![
                Field::double("d"),
                Field::float("f").optional(),
                Field::byte_array("s").optional(),
            ];
            let opts = WriterOptions::default()
                .with_encoding(policy)
                .with_page_version(version);
            let (bytes, _) = write(
                fields,
                opts,
                &[
                    vec![d.slice(0, 4), f, s.slice(0, 4)],
                    vec![d.slice(4, 4), f_slice(&floats), s.slice(0, 4)],
                ],
            );
            let (_, back) = read_all(&bytes);
            let d_all = Column::concat(&[d.slice(0, 4), d.slice(4, 4)]);
            assert_same("d", &d_all, &back[0]);
            assert_eq!(back[1].null_count(), 1);
            assert_same(
                "s",
                &Column::concat(&[s.slice(0, 4), s.slice(0, 4)]),
                &back[2],
            );
        }
    }
}

fn f_slice(floats: &[f32]) -> Column {
    Column {
        len: floats.len(),
        validity: None,
        values: Values::Float(ScalarBuffer::from(floats.to_vec())),
    }
}

// ---------------------------------------------------------------------------------------
// Statistics and page index.

fn chunk_stats(meta: &FileMetaData, rg: usize, col: usize) -> parq::metadata::Statistics {
    meta.row_groups[rg].columns[col]
        .meta_data
        .as_ref()
        .unwrap()
        .statistics
        .clone()
        .unwrap()
}

#[test]
fn statistics_follow_the_type_orders() {
    let u32s = Column {
        len: 3,
        validity: None,
        values: Values::Int32(ScalarBuffer::from(vec![-1i32, 7, 0])),
    };
    let doubles = Column {
        len: 4,
        validity: Some(NullBuffer::from(vec![true, true, true, false])),
        values: Values::Double(ScalarBuffer::from(vec![0.0, f64::NAN, 3.5, -100.0])),
    };
    let nans = Column {
        len: 3,
        validity: None,
        values: Values::Float(ScalarBuffer::from(vec![f32::NAN, f32::NAN, f32::NAN])),
    };
    let long_a = [b'a'; 100];
    let mut long_z = vec![b'z'; 70];
    long_z.push(b'!');
    let strs = binary_col(&[&long_a[..], &long_z[..], b"m"], None);
    let dec = Column {
        len: 3,
        validity: None,
        values: Values::FixedLenByteArray {
            width: 2,
            data: Buffer::from(vec![0xFFu8, 0x00, 0x00, 0x05, 0x80, 0x00]), // -256, 5, -32768
        },
    };
    let t96 = Column {
        len: 1,
        validity: None,
        values: Values::Int96(Buffer::from(vec![0u8; 12])),
    };
    let fields = [
        Field::integer("u32", 32, false),
        Field::double("d").optional(),
        Field::float("nan"),
        Field::string("s"),
        Field::decimal_fixed("dec", 2, 4, 0),
        Field::int96("t96"),
    ];
    let cols = [u32s, doubles, nans, strs, dec, t96];
    let stats: Vec<_> = fields
        .iter()
        .zip(&cols)
        .map(|(f, c)| {
            let (_, meta) = write(
                vec![f.clone()],
                WriterOptions::default(),
                &[vec![c.clone()]],
            );
            assert_eq!(
                meta.column_orders,
                Some(vec![ColumnOrder::TypeDefinedOrder])
            );
            chunk_stats(&meta, 0, 0)
        })
        .collect();
    let s = stats[0].clone();
    assert_eq!(
        s.min_value.map(Vec::from),
        Some(0i32.to_le_bytes().to_vec())
    );
    assert_eq!(
        s.max_value.map(Vec::from),
        Some((-1i32).to_le_bytes().to_vec()),
        "unsigned max is 0xFFFFFFFF"
    );
    assert!(
        s.min.is_none() && s.max.is_none(),
        "deprecated min/max are not written"
    );
    let s = stats[1].clone();
    assert_eq!(
        s.min_value.map(Vec::from),
        Some((-0.0f64).to_le_bytes().to_vec())
    );
    assert_eq!(
        s.max_value.map(Vec::from),
        Some(3.5f64.to_le_bytes().to_vec())
    );
    assert_eq!((s.null_count, s.nan_count), (Some(1), Some(1)));
    let s = stats[2].clone();
    assert_eq!(
        (s.min_value, s.max_value, s.nan_count),
        (None, None, Some(3)),
        "all NaN: no min/max"
    );
    let s = stats[3].clone();
    assert_eq!(s.min_value.map(Vec::from), Some(vec![b'a'; 64]));
    assert_eq!(s.is_min_value_exact, Some(false));
    let mut want_max = vec![b'z'; 63];
    want_max.push(b'z' + 1);
    assert_eq!(s.max_value.map(Vec::from), Some(want_max));
    assert_eq!(s.is_max_value_exact, Some(false));
    let s = stats[4].clone();
    assert_eq!(
        (s.min_value, s.max_value),
        (Some([0x80, 0x00].into()), Some([0x00, 0x05].into())),
        "decimal FLBA is signed"
    );
    let s = stats[5].clone();
    assert_eq!(
        (s.min_value, s.max_value, s.null_count),
        (None, None, Some(0)),
        "INT96: no min/max"
    );
    // Zero rules: a min of +0.0 is written -0.0, a max of -0.0 is written +0.0.
    let z = Column {
        len: 2,
        validity: None,
        values: Values::Double(ScalarBuffer::from(vec![0.0, -0.0])),
    };
    let (_, meta) = write(
        vec![Field::double("z")],
        WriterOptions::default(),
        &[vec![z]],
    );
    let s = chunk_stats(&meta, 0, 0);
    assert_eq!(
        s.min_value.map(Vec::from),
        Some((-0.0f64).to_le_bytes().to_vec())
    );
    assert_eq!(
        s.max_value.map(Vec::from),
        Some(0.0f64.to_le_bytes().to_vec())
    );
}

#[test]
fn page_index_describes_the_pages() {
    // 1000 sorted int64 with a run of nulls, 100 rows per page.
    let n = 1000;
    let validity: Vec<bool> = (0..n).map(|i| !(200..300).contains(&i)).collect();
    let col = Column {
        len: n,
        validity: Some(NullBuffer::from(validity)),
        values: Values::Int64(ScalarBuffer::from((0..n as i64).collect::<Vec<_>>())),
    };
    let strs: Vec<String> = (0..n).map(|i| format!("s{i:05}")).collect();
    let opts = WriterOptions::default().with_data_page_row_limit(100);
    let (bytes, meta) = write(
        vec![Field::int64("a").optional(), Field::string("s")],
        opts,
        &[vec![col, binary_col(&strs, None)]],
    );
    let chunk = &meta.row_groups[0].columns[0];
    let ci_at = chunk.column_index_offset.unwrap() as usize;
    let ci =
        decode_column_index(&bytes[ci_at..ci_at + chunk.column_index_length.unwrap() as usize])
            .unwrap();
    let oi_at = chunk.offset_index_offset.unwrap() as usize;
    let oi =
        decode_offset_index(&bytes[oi_at..oi_at + chunk.offset_index_length.unwrap() as usize])
            .unwrap();
    assert_eq!(ci.null_pages.len(), 10);
    assert!(ci.null_pages[2]);
    assert_eq!(ci.min_values[2], Vec::<u8>::new());
    assert_eq!(ci.null_counts.as_ref().unwrap()[2], 100);
    assert_eq!(ci.min_values[3], 300i64.to_le_bytes().to_vec());
    assert_eq!(ci.max_values[9], 999i64.to_le_bytes().to_vec());
    assert_eq!(ci.boundary_order, BoundaryOrder::ASCENDING);
    assert_eq!(
        ci.definition_level_histograms.as_ref().unwrap()[4..6],
        [100, 0]
    );
    let firsts: Vec<i64> = oi
        .page_locations
        .iter()
        .map(|l| l.first_row_index)
        .collect();
    assert_eq!(firsts, (0..10).map(|i| i * 100).collect::<Vec<_>>());
    let md = chunk.meta_data.as_ref().unwrap();
    assert_eq!(oi.page_locations[0].offset, md.data_page_offset);
    // Pages are contiguous and end where the chunk ends.
    for w in oi.page_locations.windows(2) {
        assert_eq!(w[0].offset + w[0].compressed_page_size as i64, w[1].offset);
    }
    let last = oi.page_locations.last().unwrap();
    let start = md.dictionary_page_offset.unwrap_or(md.data_page_offset);
    assert_eq!(
        last.offset + last.compressed_page_size as i64,
        start + md.total_compressed_size
    );
    // Byte arrays: size statistics and unencoded bytes per page.
    let s = &meta.row_groups[0].columns[1];
    let ss = s
        .meta_data
        .as_ref()
        .unwrap()
        .size_statistics
        .as_ref()
        .unwrap();
    assert_eq!(ss.unencoded_byte_array_data_bytes, Some(6 * n as i64));
    let oi_at = s.offset_index_offset.unwrap() as usize;
    let oi = decode_offset_index(&bytes[oi_at..oi_at + s.offset_index_length.unwrap() as usize])
        .unwrap();
    assert_eq!(
        oi.unencoded_byte_array_data_bytes
            .unwrap()
            .iter()
            .sum::<i64>(),
        6 * n as i64
    );
}

#[test]
fn row_groups_close_by_rows_and_by_bytes() {
    let (_, meta) = write(
        vec![Field::int64("a")],
        WriterOptions::default().with_row_group_rows(300),
        &[
            vec![i64_col((0..500).collect())],
            vec![i64_col((0..500).collect())],
        ],
    );
    let rows: Vec<i64> = meta.row_groups.iter().map(|g| g.num_rows).collect();
    assert_eq!(rows, vec![300, 300, 300, 100]);
    let opts = WriterOptions::default().with_row_group_bytes(8 * 250);
    let (bytes, meta) = write(
        vec![Field::int64("a")],
        opts,
        &[vec![i64_col((0..1000).collect())]],
    );
    assert_eq!(meta.row_groups.len(), 4);
    let (_, back) = read_all(&bytes);
    assert_same("a", &i64_col((0..1000).collect()), &back[0]);
}

// ---------------------------------------------------------------------------------------
// The plain-vs-dictionary decision.

fn chosen_encodings(meta: &FileMetaData) -> Vec<bool> {
    meta.row_groups[0]
        .columns
        .iter()
        .map(|c| {
            c.meta_data
                .as_ref()
                .unwrap()
                .dictionary_page_offset
                .is_some()
        })
        .collect()
}

/// `n` strings, each of the `distinct` values appearing `n / distinct` times, shuffled.
fn strings(n: usize, distinct: usize, len: usize, seed: u64) -> Vec<String> {
    let mut r = Rng::new(seed);
    (0..n)
        .map(|_| {
            let k = r.below(distinct as u64);
            format!("{k:0len$}")
        })
        .collect()
}

/// Data made to hit each branch: (unique int64, 100 distinct strings, a column that turns
/// unique halfway, strings each appearing twice with a dictionary over the size limit).
fn decision_data() -> (Vec<Field>, Vec<Column>) {
    let n = 100_000;
    let unique = i64_col(
        (0..n as i64)
            .map(|i| i.wrapping_mul(0x1E37_79B9_7F4A_7C15))
            .collect(),
    );
    let hundred = binary_col(&strings(n, 100, 12, 1), None);
    let mut halfway: Vec<String> = strings(n / 2, 10, 16, 2);
    // The unique half alone (50k x 44 bytes) outgrows the default 1 MiB dictionary limit.
    halfway.extend((0..n / 2).map(|i| format!("{i:040}")));
    let halfway = binary_col(&halfway, None);
    let mut twice: Vec<String> = (0..n / 2)
        .flat_map(|i| [format!("{i:020}"), format!("{i:020}")])
        .collect();
    let mut r = Rng::new(3);
    for i in (1..twice.len()).rev() {
        twice.swap(i, r.below(i as u64 + 1) as usize);
    }
    let twice = binary_col(&twice, None);
    let fields = vec![
        Field::int64("unique"),
        Field::string("hundred"),
        Field::string("halfway"),
        Field::string("twice"),
    ];
    (fields, vec![unique, hundred, halfway, twice])
}

#[test]
fn auto_decides_plain_or_dictionary_per_column() {
    let (fields, cols) = decision_data();
    let (bytes, meta) = write(
        fields.clone(),
        WriterOptions::default(),
        std::slice::from_ref(&cols),
    );
    // unique: PLAIN; hundred: dictionary; halfway: PLAIN; twice: PLAIN (dictionary > 1 MiB).
    assert_eq!(chosen_encodings(&meta), vec![false, true, false, false]);
    let (_, back) = read_all(&bytes);
    for ((f, c), b) in fields.iter().zip(&cols).zip(&back) {
        assert_same(&f.name, c, b);
    }
}

#[cfg(feature = "probes")]
#[test]
fn dictionary_probes_count_each_path() {
    use arrow_buffer::BooleanBuffer;
    use parq::codecs::probe;
    let (fields, cols) = decision_data();
    let run = |i: usize| {
        probe::reset();
        write(
            vec![fields[i].clone()],
            WriterOptions::default(),
            &[vec![cols[i].clone()]],
        );
        (
            probe::get("write.dictionary_skipped"),
            probe::get("write.dictionary_aborted"),
            probe::get("write.dictionary_kept"),
            probe::get("dictionary.kept") + probe::get("dictionary.aborted"),
        )
    };
    // Unique int64: the estimate says PLAIN, no dictionary builder runs at all.
    assert_eq!(run(0), (1, 0, 0, 0));
    // 100 distinct strings: built and kept.
    assert_eq!(run(1), (0, 0, 1, 1));
    // Turns unique halfway: the sample's repeats promise a dictionary, so it is built, and
    // abandoned once the unique half pushes it past the limit: the chunk is PLAIN.
    assert_eq!(run(2), (0, 1, 0, 1));
    // Every value twice: the sample promises a dictionary that wins, but it outgrows the
    // 1 MiB limit while building: aborted, the chunk is PLAIN.
    assert_eq!(run(3), (0, 1, 0, 1));
    // The same data with the halfway column's dictionary limited: a forced dictionary that
    // outgrows the limit also falls back (aborted).
    probe::reset();
    let o = WriterOptions::default()
        .with_encoding(EncodingPolicy::Dictionary)
        .with_dictionary_size_limit(4096);
    let (_, meta) = write(vec![fields[2].clone()], o, &[vec![cols[2].clone()]]);
    assert_eq!(probe::get("write.dictionary_aborted"), 1);
    assert_eq!(chosen_encodings(&meta), vec![false]);
    // Booleans never consult the estimate.
    probe::reset();
    let b = Column {
        len: 3,
        validity: None,
        values: Values::Boolean(BooleanBuffer::from(vec![true, false, true])),
    };
    write(
        vec![Field::boolean("b")],
        WriterOptions::default(),
        &[vec![b]],
    );
    assert_eq!(
        probe::get("write.dictionary_skipped") + probe::get("write.dictionary_kept"),
        0
    );
}

fn chunk_size(field: Field, col: &Column, policy: EncodingPolicy, limit: usize) -> i64 {
    let o = WriterOptions::default()
        .with_encoding(policy)
        .with_dictionary_size_limit(limit)
        .with_statistics(false)
        .with_page_index(false);
    let (_, meta) = write(vec![field], o, &[vec![col.clone()]]);
    meta.row_groups[0].columns[0]
        .meta_data
        .as_ref()
        .unwrap()
        .total_compressed_size
}

/// The decision before building loses (almost) nothing against building the whole dictionary
/// and then keeping the smaller of dictionary and PLAIN.
#[test]
fn deciding_first_costs_at_most_one_percent_of_size() {
    let n = 200_000;
    let mut r = Rng::new(9);
    let long: Vec<String> = (0..n / 4)
        .map(|i| format!("{i:08}-{}", "x".repeat(60 + r.below(40) as usize)))
        .collect();
    let cases: Vec<(&str, Field, Column)> = vec![
        (
            "unique int64",
            Field::int64("a"),
            i64_col(
                (0..n as i64)
                    .map(|i| i.wrapping_mul(0x1E37_79B9_7F4A_7C15))
                    .collect(),
            ),
        ),
        (
            "low-card int32",
            Field::int32("a"),
            Column {
                len: n,
                validity: None,
                values: Values::Int32(ScalarBuffer::from(
                    (0..n).map(|_| r.below(16) as i32).collect::<Vec<_>>(),
                )),
            },
        ),
        (
            "1000 distinct short strings",
            Field::string("a"),
            binary_col(&strings(n, 1000, 8, 5), None),
        ),
        (
            "long unique strings",
            Field::string("a"),
            binary_col(&long, None),
        ),
    ];
    for (name, field, col) in cases {
        let chosen = chunk_size(field.clone(), &col, EncodingPolicy::Auto, 1 << 20);
        let plain = chunk_size(field.clone(), &col, EncodingPolicy::Plain, 1 << 20);
        let dict = chunk_size(field.clone(), &col, EncodingPolicy::Dictionary, usize::MAX);
        let best = plain.min(dict);
        eprintln!(
            "{name}: chosen {chosen} B, plain {plain} B, full dictionary {dict} B, best {best} B"
        );
        assert!(
            chosen as f64 <= best as f64 * 1.01,
            "{name}: chosen {chosen} > 1.01 x {best}"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Another reader: the `parquet` crate (arrow-rs).

#[test]
fn arrow_rs_reads_a_parq_file() {
    use arrow_array::{Array, BinaryArray, Float64Array, Int64Array, StringArray};
    use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;

    let n = 5000;
    let ids = i64_col((0..n as i64).collect());
    let names = binary_col(
        &strings(n, 50, 6, 7),
        Some((0..n).map(|i| i % 7 != 0).collect()),
    );
    let xs = Column {
        len: n,
        validity: None,
        values: Values::Double(ScalarBuffer::from(
            (0..n).map(|i| i as f64 * 0.25 - 3.0).collect::<Vec<_>>(),
        )),
    };
    let raw = binary_col(
        &(0..n).map(|i| vec![i as u8; i % 5]).collect::<Vec<_>>(),
        None,
    );
    for (codec, version) in [
        (CodecKind::Snappy, PageVersion::V1),
        (CodecKind::Zstd, PageVersion::V2),
    ] {
        let opts = WriterOptions::default()
            .with_compression(codec)
            .with_page_version(version)
            .with_data_page_row_limit(700)
            .with_row_group_rows(2000);
        let (bytes, _) = write(
            vec![
                Field::int64("id"),
                Field::string("name").optional(),
                Field::double("x"),
                Field::byte_array("raw"),
            ],
            opts,
            &[vec![ids.clone(), names.clone(), xs.clone(), raw.clone()]],
        );
        let reader = ParquetRecordBatchReaderBuilder::try_new(Bytes::from(bytes))
            .unwrap()
            .with_batch_size(n)
            .build()
            .unwrap();
        let mut row = 0;
        for batch in reader {
            let batch = batch.unwrap();
            let id = batch
                .column(0)
                .as_any()
                .downcast_ref::<Int64Array>()
                .unwrap();
            let name = batch
                .column(1)
                .as_any()
                .downcast_ref::<StringArray>()
                .unwrap();
            let x = batch
                .column(2)
                .as_any()
                .downcast_ref::<Float64Array>()
                .unwrap();
            let r = batch
                .column(3)
                .as_any()
                .downcast_ref::<BinaryArray>()
                .unwrap();
            for i in 0..batch.num_rows() {
                let k = row + i;
                assert_eq!(id.value(i), k as i64);
                assert_eq!(name.is_valid(i), names.is_valid(k));
                if names.is_valid(k) {
                    assert_eq!(name.value(i).as_bytes(), names.bytes(k).unwrap());
                }
                assert_eq!(x.value(i), k as f64 * 0.25 - 3.0);
                assert_eq!(r.value(i), raw.bytes(k).unwrap());
            }
            row += batch.num_rows();
        }
        assert_eq!(row, n);
    }
}
