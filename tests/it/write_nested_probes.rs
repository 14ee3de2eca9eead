//! The nested writer's fast paths are taken for the inputs that must take them (and the
//! general paths for the others), and its columns share their compressors. Run with
//! `--features probes`.

use crate::support_nested;

use parq::codecs::probe;
use parq::field::Field;
use parq::metadata::Type;
use parq::write::{EncodingPolicy, WriterOptions};
use support_nested::{build, random_value, write_arrays, Rng};

fn write(field: &Field, null_rate: f64) {
    write_with(field, null_rate, WriterOptions::default());
}

fn write_with(field: &Field, null_rate: f64, options: WriterOptions) {
    let mut rng = Rng::new(11);
    let rows: Vec<_> = (0..2000)
        .map(|_| random_value(field, &mut rng, null_rate, 6))
        .collect();
    let array = build(field, &rows);
    probe::reset();
    write_arrays(std::slice::from_ref(field), &[vec![array]], options);
}

#[test]
fn numeric_leaves_without_a_dictionary_are_gathered_page_by_page() {
    let plain = || WriterOptions::default().with_encoding(EncodingPolicy::Plain);
    let f = Field::list("a", Field::primitive("element", Type::INT64));
    write_with(&f, 0.05, plain());
    assert_eq!(probe::get("write.paged_values"), 1);
    // The leaf's definition levels came from its validity bitmap.
    assert!(probe::get("write.shred_leaf_bits") > 0);
    // A dictionary is built over all the values at once.
    write_with(
        &f,
        0.05,
        WriterOptions::default().with_encoding(EncodingPolicy::Dictionary),
    );
    assert_eq!(probe::get("write.paged_values"), 0);
    assert_eq!(probe::get("write.dictionary_kept"), 1);
    // Byte arrays too, as slices; booleans are gathered whole.
    let s = Field::list("a", Field::primitive("element", Type::BYTE_ARRAY));
    write_with(&s, 0.05, plain());
    assert_eq!(probe::get("write.paged_values"), 1);
    // Their pages are cut by stretches of pairs, not pair by pair.
    assert!(probe::get("write.page_cut_stretch") > 0);
    let b = Field::list("a", Field::primitive("element", Type::BOOLEAN));
    write_with(&b, 0.05, plain());
    assert_eq!(probe::get("write.paged_values"), 0);
    // A leaf without a validity bitmap has no bitmap to read levels from.
    let r = Field::list("a", Field::primitive("element", Type::INT64).required());
    write_with(&r, 0.05, plain());
    assert_eq!(probe::get("write.shred_leaf_bits"), 0);
}

#[test]
fn lists_of_leaves_are_shredded_by_spans() {
    // list<int64> with nulls at both levels: spans of lists, never one walk per list.
    write(
        &Field::list("a", Field::primitive("element", Type::INT64)),
        0.05,
    );
    assert!(probe::get("write.shred_list_span") > 0);
    assert_eq!(probe::get("write.shred_list_span_nested"), 0);
    // Null and empty lists do not break a span: their pairs are inserted after the walk.
    assert!(probe::get("write.shred_list_spread") > 0);
    // A list of structs of leaves is flat below the list too.
    let s = Field::structure(
        "element",
        vec![
            Field::primitive("x", Type::INT32),
            Field::primitive("y", Type::DOUBLE),
        ],
    );
    write(&Field::list("a", s), 0.1);
    assert!(probe::get("write.shred_list_span") > 0);
    assert_eq!(probe::get("write.shred_list_span_nested"), 0);
}

#[test]
fn lists_of_lists_walk_the_outer_list_by_spans() {
    let inner = Field::list("element", Field::primitive("element", Type::INT32));
    let outer = Field::list("a", inner);
    write(&outer, 0.0);
    // The outer lists go by spans too, their starts found among the inner lists' pairs.
    assert!(probe::get("write.shred_list_span_nested") > 0);
    assert!(probe::get("write.shred_list_span") > 0);
    write(&outer, 0.2);
    assert!(probe::get("write.shred_list_span_nested") > 0);
    assert!(probe::get("write.shred_list_spread") > 0);
}

#[test]
fn uniform_levels_become_runs() {
    // Required lists of required values: every definition level is the max, so each group
    // of 8 joins a run; the repetition levels vary and are bit-packed.
    let f = Field::list("a", Field::primitive("element", Type::INT64).required()).required();
    write(&f, 0.0);
    assert!(probe::get("write.levels_run_group") > 0);
    assert!(probe::get("write.levels_packed_group") > 0);
}

#[test]
fn large_level_buffers_are_advised_huge_pages() {
    use arrow_buffer::{OffsetBuffer, ScalarBuffer};
    use parq::array::{Array, ListArray, ListOffsets};
    use parq::column::{Column, Values};
    // 500,000 lists of 3 items: 1.5M level pairs, 3 MB of definition levels (and as many
    // repetition levels), past the 2 MiB from which a reservation is advised.
    let lists = 500_000;
    let items = 3 * lists;
    let offsets: Vec<i32> = (0..=lists as i32).map(|i| 3 * i).collect();
    let array = Array::List(ListArray {
        validity: None,
        offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(offsets))),
        values: Box::new(Array::Primitive(Column {
            len: items,
            validity: None,
            values: Values::Int64(vec![7i64; items].into()),
        })),
    });
    let field = Field::list("a", Field::primitive("element", Type::INT64));
    probe::reset();
    write_arrays(
        std::slice::from_ref(&field),
        &[vec![array]],
        WriterOptions::default(),
    );
    assert_eq!(probe::get("memory.huge_pages_advised"), 2);
}

#[test]
fn plain_byte_arrays_are_encoded_from_their_offsets() {
    use arrow_buffer::{Buffer, OffsetBuffer, ScalarBuffer};
    use parq::array::{Array, ListArray, ListOffsets};
    use parq::column::{Column, Values};
    use parq::metadata::Encoding;
    // 3,000 lists of 2 strings of 1 to 12 bytes, all distinct: PLAIN.
    let lists = 3000;
    let mut data = Vec::new();
    let mut ends = vec![0usize];
    for i in 0..2 * lists {
        data.extend(format!("{i:x}").bytes().cycle().take(1 + i % 12));
        ends.push(data.len());
    }
    let list = |values: Values| {
        let offsets: Vec<i32> = (0..=lists as i32).map(|i| 2 * i).collect();
        Array::List(ListArray {
            validity: None,
            offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(offsets))),
            values: Box::new(Array::Primitive(Column {
                len: 2 * lists,
                validity: None,
                values,
            })),
        })
    };
    let small = || Values::SmallBinary {
        offsets: OffsetBuffer::new(ScalarBuffer::from(
            ends.iter().map(|&e| e as i32).collect::<Vec<_>>(),
        )),
        data: Buffer::from_vec(data.clone()),
    };
    let large = || Values::Binary {
        offsets: OffsetBuffer::new(ScalarBuffer::from(
            ends.iter().map(|&e| e as i64).collect::<Vec<_>>(),
        )),
        data: Buffer::from_vec(data.clone()),
    };
    let field = Field::list("a", Field::primitive("element", Type::BYTE_ARRAY));
    let run = |values: Values, options: WriterOptions| {
        probe::reset();
        write_arrays(
            std::slice::from_ref(&field),
            &[vec![list(values)]],
            options.with_data_page_size(4096),
        )
    };
    let plain = || WriterOptions::default().with_encoding(EncodingPolicy::Plain);
    // i32 and i64 offsets: every page from its runs of offsets, short values copied as
    // 16-byte blocks (all but the last value or so, at the end of the buffer), prefix keys
    // loaded whole (all but the last few); the same file either way.
    let from_small = run(small(), plain());
    let pages = probe::get("write.byte_offset_runs");
    assert!(pages > 5, "{pages} pages");
    assert!(probe::get("plain.byte_array_block") >= 2 * lists as u64 - 2);
    assert!(probe::get("write.stats_prefix_load") >= 2 * lists as u64 - pages - 8);
    let from_large = run(large(), plain());
    assert_eq!(probe::get("write.byte_offset_runs"), pages);
    assert_eq!(from_small, from_large);
    // Another encoding takes the values as slices.
    let delta = WriterOptions::default()
        .with_encoding(EncodingPolicy::Explicit(Encoding::DELTA_LENGTH_BYTE_ARRAY));
    run(small(), delta);
    assert_eq!(probe::get("write.byte_offset_runs"), 0);
    assert_eq!(probe::get("plain.byte_array_block"), 0);
}

#[test]
fn structs_of_leaves_shred_each_leaf_once() {
    // A nullable struct of leaves with nulls: each leaf over the whole range.
    let leaves = Field::structure(
        "a",
        vec![
            Field::primitive("x", Type::INT64),
            Field::primitive("y", Type::BYTE_ARRAY).required(),
        ],
    );
    write(&leaves, 0.1);
    assert_eq!(probe::get("write.shred_struct_leaves"), 1);
    // Without nulls there are no runs to walk; a list below walks run by run.
    write(&leaves, 0.0);
    assert_eq!(probe::get("write.shred_struct_leaves"), 0);
    let nested = Field::structure(
        "a",
        vec![
            Field::primitive("x", Type::INT64),
            Field::list("y", Field::primitive("element", Type::INT32)),
        ],
    );
    write(&nested, 0.1);
    assert_eq!(probe::get("write.shred_struct_leaves"), 0);
}

/// Columns with the same codec and level share one compressor (a context per column grows
/// with the column count); a column with another codec or level gets its own, and every
/// column reads back.
#[test]
fn columns_of_one_codec_and_level_share_its_compressor() {
    use parq::codecs::compression::CodecKind;
    use parq::column::{Column, Values};
    use parq::read::ParquetReader;
    use parq::write::{ColumnOptions, Field as WriteField, ParquetWriter};

    let n = 40;
    let fields: Vec<WriteField> = (0..n).map(|i| WriteField::int64(format!("c{i}"))).collect();
    let columns: Vec<Column> = (0..n)
        .map(|i| Column {
            len: 100,
            validity: None,
            values: Values::Int64((0..100).map(|v| v * i as i64).collect::<Vec<_>>().into()),
        })
        .collect();
    let options = WriterOptions::default()
        .with_compression(CodecKind::Zstd)
        .with_column(
            "c3",
            ColumnOptions::default().with_compression(Some(CodecKind::Snappy)),
        )
        .with_column(
            "c4",
            ColumnOptions::default().with_compression_level(Some(Some(9))),
        );
    probe::reset();
    let mut file = Vec::new();
    let mut w = ParquetWriter::new(&mut file, fields, options).unwrap();
    w.write_batch(&columns).unwrap();
    w.finish().unwrap();
    // 38 columns of zstd at the default level: one compressor, shared 37 times.
    assert_eq!(probe::get("write.codec_shared"), n as u64 - 3);
    let reader = ParquetReader::new(bytes::Bytes::from(file)).unwrap();
    for (i, want) in columns.iter().enumerate() {
        assert_eq!(&reader.read_column(i).unwrap(), want, "column {i}");
    }
}
