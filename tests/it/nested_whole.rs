//! Whole-field reads of nested columns against streamed batches and the written values, on
//! random nested specs (`parq::testing`) large enough that a whole read assembles in several
//! runs of records (it appends one run of 8192 records after the other into one output).

use bytes::Bytes;
use parq::array::{Array, Value};
use parq::read::{ParquetReader, ReadOptions};
use parq::testing::schema::{depth, gen_schema};
use parq::testing::spec::gen_spec_for;
use parq::testing::{LeafFilter, Rng, SpecConfig};
use proptest::prelude::*;

fn rows(a: &Array) -> Vec<Value> {
    (0..a.len()).map(|i| a.value(i)).collect()
}

/// Write a random spec of `rows` rows with at least one nested field: the file, the nested
/// fields' names, and the arrays every field must read back as.
fn nested_file(seed: u64, rows: usize) -> Option<(Bytes, Vec<String>, Vec<Array>)> {
    let mut e = Rng::new(seed);
    let config = SpecConfig::default().with_max_long(20);
    let fields = gen_schema(&mut e, 1 + (seed % 2) as usize, 3, &LeafFilter::all());
    let nested: Vec<String> = fields
        .iter()
        .filter(|f| depth(f) > 0)
        .map(|f| f.name.clone())
        .collect();
    if nested.is_empty() {
        return None;
    }
    let spec = gen_spec_for(&mut e, fields, rows, &config);
    let (bytes, expected) = spec.write().expect("write");
    Some((Bytes::from(bytes), nested, expected))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    /// `read_field` (one thread and two) equals the written arrays, and the batches of
    /// `array_batches` concatenate to it.
    #[test]
    fn whole_nested_reads_equal_batches_and_values(seed: u64, n in 8193usize..12_000, size in 1000usize..9000) {
        let Some((bytes, nested, expected)) = nested_file(seed, n) else {
            return Ok(());
        };
        let reader = ParquetReader::new(bytes.clone()).expect("open");
        let fields = reader.fields().expect("fields");
        let two = ParquetReader::with_options(bytes, ReadOptions::default().with_threads(2))
            .expect("open");
        for name in &nested {
            let i = fields.iter().position(|f| &f.name == name).expect("field");
            let (_, whole) = reader.read_field(i).expect("read_field");
            prop_assert!(whole == expected[i], "field {name}: whole read differs from the values written");
            let (_, parallel) = two.read_field(i).expect("read_field on two threads");
            prop_assert!(parallel == whole, "field {name}: two threads differ");
            let want = rows(&whole);
            let mut got = Vec::with_capacity(want.len());
            for b in reader.array_batches(&[name.as_str()], size).expect("batches") {
                got.extend(rows(&b.expect("batch").arrays[0]));
            }
            prop_assert!(got == want, "field {name}: batches of {size} differ from the whole read");
        }
    }
}

/// A whole read of more records than one run assembles them in several runs into one array.
#[cfg(feature = "probes")]
#[test]
fn whole_nested_reads_assemble_in_runs() {
    use parq::codecs::probe;
    let (bytes, nested, expected) = (0..)
        .find_map(|seed| nested_file(seed, 30_000))
        .expect("a nested spec");
    let reader = ParquetReader::new(bytes).expect("open");
    let fields = reader.fields().expect("fields");
    let i = fields
        .iter()
        .position(|f| f.name == nested[0])
        .expect("field");
    probe::reset();
    let (_, whole) = reader.read_field(i).expect("read_field");
    assert!(whole == expected[i]);
    // The output carries across row groups; each row group is assembled in runs of 8192.
    let runs: u64 = reader
        .metadata()
        .row_groups
        .iter()
        .map(|rg| (rg.num_rows as u64).div_ceil(8192))
        .sum();
    assert!(runs >= 4, "30,000 records take at least 4 runs");
    assert_eq!(probe::get("nested.whole_runs"), runs);
}

/// Nulls that first appear after the first run: the runs before them had no validity bits
/// yet, and must read back valid (lists, their items, structs, a list inside a list).
#[test]
fn nulls_first_met_in_a_later_run() {
    use parq::field::Field;
    use parq::metadata::Type;
    use parq::testing::columns::{build_array, ColumnProfile};
    use parq::write::{ParquetWriter, WriterOptions};

    let n = 20_000usize;
    let late = |i: usize, every: usize| i >= 9000 && i % every == 0;
    let leaf = |v: i64| Value::Leaf(v.to_le_bytes().to_vec());
    let fields = vec![
        Field::list("l", Field::primitive("element", Type::INT64)),
        Field::structure("s", vec![Field::primitive("a", Type::INT64)]),
        Field::list(
            "ll",
            Field::list("element", Field::primitive("element", Type::INT64)),
        ),
    ];
    let columns: Vec<Vec<Value>> = vec![
        (0..n)
            .map(|i| match i {
                _ if late(i, 7) => Value::Null,
                _ => Value::List(vec![
                    leaf(i as i64),
                    if late(i, 5) {
                        Value::Null
                    } else {
                        leaf(-(i as i64))
                    },
                ]),
            })
            .collect(),
        (0..n)
            .map(|i| match i {
                _ if late(i, 7) => Value::Null,
                _ if late(i, 5) => Value::Struct(vec![Value::Null]),
                _ => Value::Struct(vec![leaf(i as i64)]),
            })
            .collect(),
        (0..n)
            .map(|i| {
                let inner = if late(i, 3) {
                    Value::Null
                } else {
                    Value::List(vec![leaf(i as i64)])
                };
                Value::List(vec![inner, Value::List(vec![])])
            })
            .collect(),
    ];
    let arrays: Vec<Array> = fields
        .iter()
        .zip(&columns)
        .map(|(f, rows)| build_array(f, rows, &ColumnProfile::default()))
        .collect();
    let mut file = Vec::new();
    let mut w =
        ParquetWriter::with_fields(&mut file, fields, WriterOptions::default()).expect("writer");
    w.write_arrays(&arrays).expect("write");
    w.finish().expect("finish");
    let reader = ParquetReader::new(Bytes::from(file)).expect("open");
    for (i, want) in columns.iter().enumerate() {
        let (f, whole) = reader.read_field(i).expect("read_field");
        assert!(&rows(&whole) == want, "field {}", f.name);
    }
}
