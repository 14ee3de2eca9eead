//! Bloom filters: no false negatives (proptest, in memory and through files), the measured
//! false-positive rate against the configured one, the hash and the bitset against the
//! parquet crate's, and filters crossing between parq, pyarrow and the parquet crate.
//!
//! The pyarrow test runs `tests/it/support_bloom/pyarrow_bloom.py`; without pyarrow it is
//! skipped, or fails under `PARQ_REQUIRE_ORACLES=1` as in CI (see `python.rs`).

use crate::python;
use std::process::Command;

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq::bloom::{hash_bytes, hash_f32, hash_f64, hash_i32, hash_i64, Sbbf};
use parq::column::{Column, Values};
use parq::metadata::{self, BloomFilterUnion, Type};
use parq::read::{ParquetReader, ReadOptions};
use parq::write::{BloomFilterOptions, EncodingPolicy, Field, ParquetWriter, WriterOptions};
use parq::Error;
use proptest::prelude::*;

/// The leaf columns of one physical type each, with their values.
fn columns_of(i: &[i64], bytes: &[Vec<u8>], valid: &[bool]) -> (Vec<Field>, Vec<Column>) {
    let n = i.len();
    let validity = Some(NullBuffer::from(valid.to_vec()));
    let col = |values: Values| Column {
        len: n,
        validity: validity.clone(),
        values,
    };
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    for b in bytes {
        data.extend_from_slice(b);
        offsets.push(data.len() as i64);
    }
    let fixed: Vec<u8> = i.iter().flat_map(|x| (x ^ 0x55).to_le_bytes()).collect();
    let int96: Vec<u8> = i
        .iter()
        .flat_map(|x| {
            let mut b = [0u8; 12];
            b[..8].copy_from_slice(&x.to_le_bytes());
            b[8..].copy_from_slice(&(*x as u32).to_be_bytes());
            b
        })
        .collect();
    let fields = vec![
        Field::int32("i32").optional(),
        Field::int64("i64").optional(),
        Field::float("f32").optional(),
        Field::double("f64").optional(),
        Field::int96("i96").optional(),
        Field::fixed_len_byte_array("flba", 8).optional(),
        Field::byte_array("bin").optional(),
    ];
    let columns = vec![
        col(Values::Int32(i.iter().map(|&x| x as i32).collect())),
        col(Values::Int64(i.iter().copied().collect())),
        col(Values::Float(
            i.iter().map(|&x| f32::from_bits(x as u32)).collect(),
        )),
        col(Values::Double(
            i.iter().map(|&x| f64::from_bits(x as u64)).collect(),
        )),
        col(Values::Int96(Buffer::from(int96))),
        col(Values::FixedLenByteArray {
            width: 8,
            data: Buffer::from(fixed),
        }),
        col(Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from(data),
        }),
    ];
    (fields, columns)
}

fn write(fields: Vec<Field>, columns: &[Column], options: WriterOptions) -> Bytes {
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(&mut out, fields, options).unwrap();
    w.write_batch(columns).unwrap();
    w.finish().unwrap();
    Bytes::from(out)
}

/// Checks every non-null value of every column that has filters against its row group's
/// filter; returns the number of filters checked.
fn check_every_value_found(file: &Bytes) -> usize {
    let reader = ParquetReader::new(file.clone()).unwrap();
    let mut filters = 0;
    for rg in 0..reader.metadata().row_groups.len() {
        let one = ParquetReader::with_options(
            file.clone(),
            ReadOptions::default().with_row_groups(Some(vec![rg])),
        )
        .unwrap();
        for c in 0..reader.schema().leaves.len() {
            let Some(filter) = reader.read_bloom_filter(rg, c).unwrap() else {
                continue;
            };
            filters += 1;
            let col = one.read_column(c).unwrap();
            for i in 0..col.len {
                if let Some(v) = col.value_bytes(i) {
                    assert!(
                        filter.check_hash(hash_bytes(&v)),
                        "row group {rg} column {c} slot {i}: {v:02x?} not in the filter"
                    );
                }
            }
        }
    }
    filters
}

fn all_bloom(fields: &[Field], options: BloomFilterOptions, base: WriterOptions) -> WriterOptions {
    fields
        .iter()
        .fold(base, |o, f| o.with_bloom_filter(f.name.clone(), options))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Every inserted hash is found, for values of every physical type.
    #[test]
    fn no_false_negatives_in_memory(
        values in proptest::collection::vec(any::<i64>(), 0..2000),
        bytes in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 0..500),
        ndv in 0u64..5000,
        fpp in 0.001f64..0.5,
    ) {
        let mut f = Sbbf::with_ndv_fpp(ndv, fpp);
        for &v in &values {
            f.insert_hash(hash_i64(v));
            f.insert_hash(hash_i32(v as i32));
            f.insert_hash(hash_f32(f32::from_bits(v as u32)));
            f.insert_hash(hash_f64(f64::from_bits(v as u64)));
            f.insert_hash(hash_bytes(&v.to_le_bytes()[..6]));
        }
        for b in &bytes {
            f.insert_hash(hash_bytes(b));
        }
        for &v in &values {
            prop_assert!(f.check_hash(hash_i64(v)));
            prop_assert!(f.check_hash(hash_i32(v as i32)));
            prop_assert!(f.check_hash(hash_f32(f32::from_bits(v as u32))));
            prop_assert!(f.check_hash(hash_f64(f64::from_bits(v as u64))));
            prop_assert!(f.check_hash(hash_bytes(&v.to_le_bytes()[..6])));
        }
        for b in &bytes {
            prop_assert!(f.check_hash(hash_bytes(b)));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Written by parq and read back, with either encoding and several row groups, every
    /// non-null value of every physical type is in its chunk's filter.
    #[test]
    fn no_false_negatives_through_a_file(
        rows in proptest::collection::vec((any::<i64>(), any::<bool>()), 1..1500),
        distinct in 1i64..3000,
        dictionary in any::<bool>(),
        ndv in proptest::option::of(1u64..2000),
        row_group_rows in 100usize..2000,
    ) {
        let i: Vec<i64> = rows.iter().map(|(v, _)| v % distinct).collect();
        let valid: Vec<bool> = rows.iter().map(|(_, ok)| *ok).collect();
        let bytes: Vec<Vec<u8>> = i.iter().map(|v| v.to_string().into_bytes()).collect();
        let (fields, columns) = columns_of(&i, &bytes, &valid);
        let policy = if dictionary { EncodingPolicy::Dictionary } else { EncodingPolicy::Plain };
        let base = WriterOptions::default()
            .with_encoding(policy)
            .with_row_group_rows(row_group_rows);
        let options = all_bloom(&fields, BloomFilterOptions::default().with_ndv(ndv).with_fpp(0.05), base);
        let file = write(fields, &columns, options);
        let groups = i.len().div_ceil(row_group_rows);
        prop_assert_eq!(check_every_value_found(&file), 7 * groups);
    }
}

/// False positives on 100k absent values stay within 2x of the configured FPP (the filter is
/// rounded up to a power of two, so the measured rate is usually lower).
#[test]
fn false_positive_rate_is_near_the_configured_one() {
    for (ndv, fpp) in [
        (1_000u64, 0.01),
        (10_000, 0.05),
        (50_000, 0.01),
        (100_000, 0.1),
        (20_000, 0.001),
    ] {
        let mut f = Sbbf::with_ndv_fpp(ndv, fpp);
        for v in 0..ndv as i64 {
            f.insert_hash(hash_i64(v));
        }
        let trials = 100_000i64;
        let hits = (0..trials)
            .filter(|k| f.check_hash(hash_i64(ndv as i64 + k)))
            .count();
        let rate = hits as f64 / trials as f64;
        eprintln!(
            "ndv {ndv} fpp {fpp}: {rate} measured, {} bytes",
            f.num_bytes()
        );
        // A floor of 20 hits keeps the tiniest FPP clear of sampling noise.
        let limit = (2.0 * fpp).max(20.0 / trials as f64);
        assert!(
            rate <= limit,
            "ndv {ndv} fpp {fpp}: measured {rate} ({hits} of {trials}, {} bytes)",
            f.num_bytes()
        );
    }
}

/// parq's filter equals the parquet crate's, bit for bit, after inserting the same values of
/// every physical type: the same hash of each value's plain bytes, block choice and masks.
#[test]
fn hash_and_bitset_equal_the_parquet_crates() {
    use parquet::bloom_filter::Sbbf as Theirs;
    use parquet::data_type::{ByteArray, FixedLenByteArray, Int96};
    for num_bytes in [32usize, 1024, 1 << 16] {
        let mut ours = Sbbf::with_num_bytes(num_bytes);
        let mut theirs = Theirs::new_with_num_of_bytes(num_bytes);
        for k in 0..3000i64 {
            let v = k.wrapping_mul(0x1E37_79B9_7F4A_7C15);
            ours.insert_hash(hash_i32(v as i32));
            theirs.insert(&(v as i32));
            ours.insert_hash(hash_i64(v));
            theirs.insert(&v);
            ours.insert_hash(hash_f32(f32::from_bits(v as u32)));
            theirs.insert(&f32::from_bits(v as u32));
            ours.insert_hash(hash_f64(f64::from_bits(v as u64)));
            theirs.insert(&f64::from_bits(v as u64));
            let i96 = Int96::from(vec![v as u32, (v >> 32) as u32, k as u32]);
            let b: Vec<u8> = i96.data().iter().flat_map(|w| w.to_le_bytes()).collect();
            ours.insert_hash(hash_bytes(&b));
            theirs.insert(&i96);
            let s = format!("value {v}");
            ours.insert_hash(hash_bytes(s.as_bytes()));
            theirs.insert(&ByteArray::from(s.as_str()));
            let flba = FixedLenByteArray::from(v.to_be_bytes().to_vec());
            ours.insert_hash(hash_bytes(&v.to_be_bytes()));
            theirs.insert(&flba);
        }
        let mut a = Vec::new();
        ours.write(&mut a);
        let mut b = Vec::new();
        theirs.write(&mut b).unwrap();
        assert_eq!(a, b, "{num_bytes}-byte filters differ");
        assert_eq!(Sbbf::decode(&b).unwrap(), ours);
    }
}

/// Filters are sized as the parquet crate sizes them for the same NDV and FPP.
#[test]
fn sizes_equal_the_parquet_crates() {
    for ndv in [
        0u64,
        1,
        100,
        1000,
        4000,
        65_536,
        1_000_000,
        50_000_000,
        u64::MAX >> 20,
    ] {
        for fpp in [0.001, 0.01, 0.05, 0.1, 0.3, 0.9] {
            let theirs = parquet::bloom_filter::Sbbf::new_with_ndv_fpp(ndv, fpp).unwrap();
            assert_eq!(
                Sbbf::with_ndv_fpp(ndv, fpp).num_bytes(),
                theirs.num_blocks() * 32,
                "ndv {ndv} fpp {fpp}"
            );
        }
    }
}

fn reader_props() -> parquet::file::properties::ReaderProperties {
    parquet::file::properties::ReaderProperties::builder()
        .set_read_bloom_filter(true)
        .build()
}

/// The parquet crate finds every value of every physical type in parq's filters.
#[test]
fn parquet_crate_reads_parqs_filters() {
    use parquet::file::reader::FileReader;
    use parquet::file::serialized_reader::{ReadOptionsBuilder, SerializedFileReader};
    let n = 5000;
    let i: Vec<i64> = (0..n).map(|k| (k * 7919) % 3001 - 1500).collect();
    let valid: Vec<bool> = (0..n).map(|k| k % 5 != 0).collect();
    let bytes: Vec<Vec<u8>> = i.iter().map(|v| format!("s{v}").into_bytes()).collect();
    let (fields, columns) = columns_of(&i, &bytes, &valid);
    for policy in [EncodingPolicy::Auto, EncodingPolicy::Plain] {
        let base = WriterOptions::default()
            .with_encoding(policy)
            .with_row_group_rows(1500);
        let options = all_bloom(
            &fields,
            BloomFilterOptions::default().with_ndv(None).with_fpp(0.01),
            base,
        );
        let file = write(fields.clone(), &columns, options);
        assert_eq!(check_every_value_found(&file), 7 * 4);
        let theirs = SerializedFileReader::new_with_options(
            file.clone(),
            ReadOptionsBuilder::new()
                .with_reader_properties(reader_props())
                .build(),
        )
        .unwrap();
        let ours = ParquetReader::new(file.clone()).unwrap();
        let mut checked = 0;
        for rg in 0..theirs.num_row_groups() {
            let group = theirs.get_row_group(rg).unwrap();
            let one = ParquetReader::with_options(
                file.clone(),
                ReadOptions::default().with_row_groups(Some(vec![rg])),
            )
            .unwrap();
            for c in 0..fields.len() {
                let filter = group.get_column_bloom_filter(c).expect("a filter");
                let mut mine = Vec::new();
                ours.read_bloom_filter(rg, c)
                    .unwrap()
                    .unwrap()
                    .write(&mut mine);
                let mut back = Vec::new();
                filter.write(&mut back).unwrap();
                assert_eq!(mine, back, "row group {rg} column {c}");
                let col = one.read_column(c).unwrap();
                for s in 0..col.len {
                    if let Some(v) = col.value_bytes(s) {
                        assert!(filter.check(v.as_slice()), "rg {rg} col {c} slot {s}");
                        checked += 1;
                    }
                }
            }
        }
        assert_eq!(checked, 7 * valid.iter().filter(|v| **v).count());
    }
}

/// parq finds every value in the filters the parquet crate writes.
#[test]
fn parq_reads_the_parquet_crates_filters() {
    use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch, StringArray};
    use parquet::arrow::ArrowWriter;
    use parquet::file::properties::WriterProperties;
    use std::sync::Arc;
    let n = 6000i64;
    let i64s = Int64Array::from_iter((0..n).map(|k| (k % 9 != 0).then_some(k * 31 - 7)));
    let i32s = Int32Array::from_iter((0..n).map(|k| Some((k * 17 % 1000) as i32)));
    let strs = StringArray::from_iter((0..n).map(|k| (k % 4 != 0).then(|| format!("v{k}"))));
    let batch = RecordBatch::try_from_iter([
        ("a", Arc::new(i64s) as ArrayRef),
        ("b", Arc::new(i32s) as ArrayRef),
        ("c", Arc::new(strs) as ArrayRef),
    ])
    .unwrap();
    let props = WriterProperties::builder()
        .set_bloom_filter_enabled(true)
        .set_bloom_filter_fpp(0.02)
        .set_max_row_group_row_count(Some(2500))
        .build();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, batch.schema(), Some(props)).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let file = Bytes::from(out);
    assert_eq!(check_every_value_found(&file), 3 * 3);
    // And values that are absent are mostly rejected.
    let reader = ParquetReader::new(file).unwrap();
    let f = reader.read_bloom_filter(0, 0).unwrap().unwrap();
    let false_hits = (0..10_000i64)
        .filter(|k| f.check_hash(hash_i64(-1_000_000 - k)))
        .count();
    assert!(false_hits < 1000, "{false_hits} of 10000 absent values hit");
}

/// pyarrow (parquet-cpp) writes filters for every physical type; parq finds every value.
#[test]
fn parq_reads_pyarrows_filters() {
    python::require_python!("pyarrow");
    let dir = std::env::temp_dir().join(format!("parq-bloom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("pyarrow_bloom.parquet");
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/it/support_bloom/pyarrow_bloom.py"
    );
    let out = Command::new("python3")
        .arg(script)
        .arg(&path)
        .output()
        .expect("python3 must be installed to run the interop tests");
    assert!(
        out.status.success(),
        "pyarrow_bloom.py failed (is pyarrow installed? `pip install pyarrow`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let file = Bytes::from(std::fs::read(&path).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    // 8 columns with filters, 4 row groups; `no_filter` has none.
    assert_eq!(check_every_value_found(&file), 8 * 4);
    let reader = ParquetReader::new(file).unwrap();
    let last = reader.schema().leaves.len() - 1;
    assert!(reader.read_bloom_filter(0, last).unwrap().is_none());
}

/// parquet-mr's files in parquet-testing: one without `bloom_filter_length` (header read
/// first), one with it, and a bare serialized filter.
#[test]
fn parquet_testing_filters() {
    let data = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/testdata/parquet-testing/data/"
    );
    let words = [
        "Hello",
        "This is",
        "a",
        "test",
        "How",
        "are you",
        "doing ",
        "today",
        "the quick",
        "brown fox",
        "jumps",
        "over",
        "the lazy",
        "dog",
    ];
    for (name, has_length) in [
        ("data_index_bloom_encoding_stats.parquet", false),
        ("data_index_bloom_encoding_with_length.parquet", true),
    ] {
        let file = Bytes::from(std::fs::read(format!("{data}{name}")).unwrap());
        let reader = ParquetReader::new(file.clone()).unwrap();
        let meta = reader.metadata().row_groups[0].columns[0]
            .meta_data
            .clone()
            .unwrap();
        assert_eq!(meta.bloom_filter_length.is_some(), has_length, "{name}");
        let f = reader.read_bloom_filter(0, 0).unwrap().expect(name);
        for w in words {
            assert!(f.check_hash(hash_bytes(w.as_bytes())), "{name}: {w}");
        }
        let absent = (0..1000)
            .filter(|k| f.check_hash(hash_bytes(format!("absent {k}").as_bytes())))
            .count();
        assert!(absent < 100, "{name}: {absent} of 1000 absent words hit");
        assert_eq!(check_every_value_found(&file), 1);
    }
    let bin = std::fs::read(format!("{data}bloom_filter.xxhash.bin")).unwrap();
    let f = Sbbf::decode(&bin).unwrap();
    assert_eq!(f.num_bytes(), 1024);
    for w in ["hello", "parquet", "bloom", "filter"] {
        assert!(f.check_hash(hash_bytes(w.as_bytes())), "{w}");
    }
}

/// A nested leaf (list<int64> elements) gets its filter too.
#[test]
fn nested_leaf_columns_get_filters() {
    use parq::array::{Array, ListArray, ListOffsets};
    let items: Vec<i64> = (0..3000).map(|k| k * 1_000_003).collect();
    let offsets: Vec<i32> = (0..=1000).map(|r| r * 3).collect();
    let list = Array::List(ListArray {
        validity: None,
        offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(offsets))),
        values: Box::new(Array::Primitive(Column {
            len: items.len(),
            validity: None,
            values: Values::Int64(items.clone().into()),
        })),
    });
    let field =
        parq::field::Field::list("ids", parq::field::Field::primitive("element", Type::INT64));
    let options = WriterOptions::default().with_bloom_filter(
        "ids.list.element",
        BloomFilterOptions::default()
            .with_ndv(Some(3000))
            .with_fpp(0.01),
    );
    let mut out = Vec::new();
    let mut w = ParquetWriter::with_fields(&mut out, vec![field], options).unwrap();
    w.write_arrays(&[list]).unwrap();
    w.finish().unwrap();
    let reader = ParquetReader::new(Bytes::from(out)).unwrap();
    let f = reader.read_bloom_filter(0, 0).unwrap().expect("a filter");
    assert!(items.iter().all(|&v| f.check_hash(hash_i64(v))));
}

/// Options the writer refuses, when it is created.
#[test]
fn bad_bloom_options_are_refused() {
    let bad = |field: Field, fpp: f64| {
        let name = field.name.clone();
        let options = WriterOptions::default().with_bloom_filter(
            name,
            BloomFilterOptions::default().with_ndv(None).with_fpp(fpp),
        );
        let e = ParquetWriter::new(Vec::new(), vec![field], options).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
    };
    bad(Field::int64("a"), 0.0);
    bad(Field::int64("a"), 1.0);
    bad(Field::int64("a"), f64::NAN);
    bad(Field::boolean("a"), 0.1);
    let options = WriterOptions::default().with_bloom_filter("nope", BloomFilterOptions::default());
    assert!(ParquetWriter::new(Vec::new(), vec![Field::int64("a")], options).is_err());
}

/// A file whose footer is rewritten by `edit`.
fn with_footer(file: &Bytes, edit: impl FnOnce(&mut metadata::FileMetaData)) -> Bytes {
    let meta_bytes = metadata::footer_metadata(file).unwrap();
    let start = file.len() - 8 - meta_bytes.len();
    let mut meta = metadata::decode_file_metadata(meta_bytes).unwrap();
    edit(&mut meta);
    let mut out = file[..start].to_vec();
    let mut m = Vec::new();
    metadata::encode_file_metadata(&meta, &mut m);
    out.extend_from_slice(&m);
    out.extend_from_slice(&(m.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    Bytes::from(out)
}

/// `file` with `extra` inserted before its footer, as the bloom filter of its first chunk
/// (with or without `bloom_filter_length`).
fn with_extra(file: &Bytes, extra: &[u8], with_len: bool) -> Bytes {
    let meta_bytes = metadata::footer_metadata(file).unwrap();
    let start = file.len() - 8 - meta_bytes.len();
    let mut head = file[..start].to_vec();
    head.extend_from_slice(extra);
    let mut meta = metadata::decode_file_metadata(meta_bytes).unwrap();
    let md = meta.row_groups[0].columns[0].meta_data.as_mut().unwrap();
    md.bloom_filter_offset = Some(start as i64);
    md.bloom_filter_length = with_len.then_some(extra.len() as i32);
    let mut m = Vec::new();
    metadata::encode_file_metadata(&meta, &mut m);
    head.extend_from_slice(&m);
    head.extend_from_slice(&(m.len() as u32).to_le_bytes());
    head.extend_from_slice(b"PAR1");
    Bytes::from(head)
}

/// Bad offsets, lengths, sizes and unknown kinds are errors, never panics or huge
/// allocations.
#[test]
fn bad_filters_are_errors() {
    let (fields, columns) = columns_of(&[1, 2, 3], &[vec![1], vec![2], vec![3]], &[true; 3]);
    let options = all_bloom(
        &fields,
        BloomFilterOptions::default(),
        WriterOptions::default(),
    );
    let file = write(fields, &columns, options);
    let meta = ParquetReader::new(file.clone()).unwrap().metadata().clone();
    let md = meta.row_groups[0].columns[0].meta_data.clone().unwrap();
    let (offset, len) = (
        md.bloom_filter_offset.unwrap(),
        md.bloom_filter_length.unwrap(),
    );
    let set = |offset: Option<i64>, len: Option<i32>| {
        with_footer(&file, |m| {
            let md = m.row_groups[0].columns[0].meta_data.as_mut().unwrap();
            md.bloom_filter_offset = offset;
            md.bloom_filter_length = len;
        })
    };
    let read = |f: &Bytes| {
        ParquetReader::new(f.clone())
            .unwrap()
            .read_bloom_filter(0, 0)
    };
    // Without the length, the header then the bitset are read: the same filter.
    let expected = read(&file).unwrap().unwrap();
    assert_eq!(read(&set(Some(offset), None)).unwrap().unwrap(), expected);
    assert!(read(&set(None, None)).unwrap().is_none());
    for (o, l) in [
        (Some(-1), Some(len)),
        (Some(offset), Some(-5)),
        (Some(offset), Some(len - 1)),
        (Some(offset), Some(i32::MAX)),
        (Some(file.len() as i64), None),
        (Some(i64::MAX), None),
        (Some(i64::MAX), Some(len)),
        (Some(offset + 1), None),
        (Some(offset + 1), Some(len)),
        (Some(0), None),
    ] {
        let e = read(&set(o, l)).unwrap_err();
        assert!(matches!(e, Error::Format { .. }), "{o:?} {l:?}: {e}");
    }
    // Filters placed before the footer by hand: a bitset that is not a power of two, one too
    // large for the file, one cut short, and an unknown compression.
    let h = expected.header();
    let placed = |h: metadata::BloomFilterHeader, bitset: usize, with_len: bool| {
        let mut extra = Vec::new();
        metadata::encode_bloom_filter_header(&h, &mut extra);
        extra.resize(extra.len() + bitset, 0);
        with_extra(&file, &extra, with_len)
    };
    for with_len in [true, false] {
        for (num_bytes, bitset) in [(48, 48), (1 << 30, 64), (-32, 32), (0, 0)] {
            let f = placed(
                metadata::BloomFilterHeader { num_bytes, ..h },
                bitset,
                with_len,
            );
            let e = read(&f).unwrap_err();
            assert!(matches!(e, Error::Format { .. }), "{num_bytes}: {e}");
        }
        let unknown = metadata::BloomFilterHeader {
            compression: BloomFilterUnion::Unknown { field_id: 2 },
            ..h
        };
        let e = read(&placed(unknown, 32, with_len)).unwrap_err();
        assert!(matches!(e, Error::Unsupported(_)), "{e}");
        // A well-formed one placed the same way reads back.
        let ok = read(&placed(
            metadata::BloomFilterHeader { num_bytes: 64, ..h },
            64,
            with_len,
        ));
        assert_eq!(ok.unwrap().unwrap().num_bytes(), 64);
    }
    let short = placed(metadata::BloomFilterHeader { num_bytes: 64, ..h }, 32, true);
    assert!(matches!(read(&short), Err(Error::Format { .. })));
    // Asking for a chunk that does not exist.
    assert!(matches!(
        ParquetReader::new(file.clone())
            .unwrap()
            .read_bloom_filter(1, 0),
        Err(Error::InvalidArgument(_))
    ));
}

/// Dictionary chunks hash their distinct values from the dictionary; plain chunks hash
/// every value.
#[cfg(feature = "probes")]
#[test]
fn dictionary_chunks_hash_the_dictionary() {
    use parq::codecs::probe;
    let i: Vec<i64> = (0..4000).map(|k| k % 50).collect();
    let bytes: Vec<Vec<u8>> = i.iter().map(|v| vec![*v as u8; 3]).collect();
    let (fields, columns) = columns_of(&i, &bytes, &vec![true; i.len()]);
    for (policy, dict, values) in [
        (EncodingPolicy::Dictionary, 7, 0),
        (EncodingPolicy::Plain, 0, 7),
    ] {
        let options = all_bloom(
            &fields,
            BloomFilterOptions::default(),
            WriterOptions::default().with_encoding(policy),
        );
        probe::reset();
        let file = write(fields.clone(), &columns, options);
        assert_eq!(probe::get("write.bloom_dictionary"), dict, "{policy:?}");
        assert_eq!(probe::get("write.bloom_values"), values, "{policy:?}");
        assert_eq!(check_every_value_found(&file), 7);
        // Sized from the chunk: 50 distinct values under a dictionary, 4000 values without.
        let f = ParquetReader::new(file)
            .unwrap()
            .read_bloom_filter(0, 1)
            .unwrap()
            .unwrap();
        let expected = parq::bloom::optimal_num_bytes(if dict > 0 { 50 } else { 4000 }, 0.05);
        assert_eq!(f.num_bytes(), expected);
    }
}
