//! Nested reading on files pyarrow writes with tiny pages (records cross v1 pages): batches of
//! every size concatenate to the whole field, projections by leaf path keep the leaf's
//! ancestors, and the nested fast paths are taken where they must be.

use crate::python;
use std::path::{Path, PathBuf};
use std::process::Command;

use bytes::Bytes;
use parq::array::{Array, Value};
use parq::field::DataType;
use parq::read::ParquetReader;

fn scratch_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Writes the test files with pyarrow; returns their paths by name.
fn write_files(dir: &Path) -> Vec<PathBuf> {
    let script = r#"
import sys, random
import pyarrow as pa, pyarrow.parquet as pq
out = sys.argv[1]
rnd = random.Random(7)
n = 3000
def maybe(p, v):
    return None if rnd.random() < p else v
lists = [maybe(0.05, [maybe(0.05, rnd.randrange(-1000, 1000)) for _ in range(rnd.randrange(9))]) for _ in range(n)]
nonull = [[rnd.randrange(1 << 40) for _ in range(1 + rnd.randrange(8))] for _ in range(n)]
structs = [maybe(0.1, {"a": maybe(0.05, rnd.randrange(100)), "b": maybe(0.05, "s%d" % rnd.randrange(50))}) for _ in range(n)]
deep = [maybe(0.1, [maybe(0.1, {"x": maybe(0.1, [maybe(0.1, "v%d" % rnd.randrange(9)) for _ in range(rnd.randrange(4))]), "y": rnd.randrange(5)}) for _ in range(rnd.randrange(4))]) for _ in range(n)]
maps = [maybe(0.1, [("k%d" % rnd.randrange(20), maybe(0.2, [rnd.randrange(9) for _ in range(rnd.randrange(3))])) for _ in range(rnd.randrange(4))]) for _ in range(n)]
req = pa.list_(pa.field("element", pa.int64(), nullable=False))
t = pa.table({
    "lists": pa.array(lists, pa.list_(pa.int64())),
    "nonull": pa.array(nonull, req),
    "structs": pa.array(structs, pa.struct([("a", pa.int32()), ("b", pa.string())])),
    "deep": pa.array(deep, pa.list_(pa.struct([("x", pa.list_(pa.string())), ("y", pa.int64())]))),
    "maps": pa.array(maps, pa.map_(pa.string(), pa.list_(pa.int32()))),
    "flat": pa.array([maybe(0.3, i) for i in range(n)], pa.int64()),
})
schema = t.schema.set(1, pa.field("nonull", req, nullable=False))
t = t.cast(schema)
for version in ["1.0", "2.0"]:
    for dictionary in [False, True]:
        name = "v%s_%s" % (version[0], "dict" if dictionary else "plain")
        pq.write_table(t, "%s/%s.parquet" % (out, name), data_page_version=version,
                       use_dictionary=dictionary, data_page_size=256, write_batch_size=7,
                       row_group_size=1000, compression="snappy")
"#;
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(dir)
        .status()
        .expect("python3");
    assert!(status.success(), "pyarrow failed to write the test files");
    ["v1_plain", "v1_dict", "v2_plain", "v2_dict"]
        .iter()
        .map(|n| dir.join(format!("{n}.parquet")))
        .collect()
}

fn open(path: &Path) -> ParquetReader {
    ParquetReader::new(Bytes::from(std::fs::read(path).expect("read"))).expect("open")
}

fn rows(a: &Array) -> Vec<Value> {
    (0..a.len()).map(|i| a.value(i)).collect()
}

#[test]
fn batches_of_every_size_concatenate_to_the_whole() {
    python::require_python!("pyarrow");
    let dir = scratch_dir("nested_read_batches");
    for file in write_files(&dir) {
        let reader = open(&file);
        let fields = reader.fields().expect("fields");
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        let whole: Vec<Vec<Value>> = (0..fields.len())
            .map(|i| rows(&reader.read_field(i).expect("read_field").1))
            .collect();
        assert_eq!(whole[0].len(), 3000);
        for size in [1, 2, 3, 7, 100, 999, 1000, 1001, 4096] {
            let mut got: Vec<Vec<Value>> = vec![Vec::new(); fields.len()];
            for batch in reader.array_batches(&names, size).expect("batches") {
                let batch = batch.expect("batch");
                assert!(batch.num_rows <= size);
                for (k, a) in batch.arrays.iter().enumerate() {
                    assert_eq!(a.len(), batch.num_rows);
                    got[k].extend(rows(a));
                }
            }
            for (k, name) in names.iter().enumerate() {
                assert!(
                    got[k] == whole[k],
                    "{}: field {name}, batch size {size}",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn projection_by_leaf_path_keeps_its_ancestors() {
    python::require_python!("pyarrow");
    let dir = scratch_dir("nested_read_projection");
    let file = &write_files(&dir)[0];
    let reader = open(file);
    let (field, y) = reader
        .read_field_by_path("deep.list.element.y")
        .expect("project");
    let DataType::List(element) = &field.data_type else {
        panic!("deep is a list: {field:?}")
    };
    let DataType::Struct(children) = &element.data_type else {
        panic!("its element is a struct: {element:?}")
    };
    assert_eq!(children.len(), 1);
    assert_eq!(children[0].name, "y");
    // Same lists, same nulls, same y as the whole field.
    let (_, whole) = reader.read_field_by_path("deep").expect("whole");
    for i in 0..whole.len() {
        let project = |v: Value| match v {
            Value::List(items) => Value::List(
                items
                    .into_iter()
                    .map(|it| match it {
                        Value::Struct(mut c) => Value::Struct(vec![c.remove(1)]),
                        other => other,
                    })
                    .collect(),
            ),
            other => other,
        };
        assert_eq!(y.value(i), project(whole.value(i)), "row {i}");
    }
    // A map projected to its value keeps its key.
    let (field, _) = reader
        .read_field_by_path("maps.key_value.value.list.element")
        .expect("map value");
    let DataType::Map(entries) = &field.data_type else {
        panic!("maps is a map: {field:?}")
    };
    assert_eq!(entries.children().len(), 2);
    assert!(reader.read_field_by_path("nope.x").is_err());
}

#[cfg(feature = "probes")]
#[test]
fn nested_fast_paths_are_taken() {
    use parq::codecs::probe;
    python::require_python!("pyarrow");
    let dir = scratch_dir("nested_read_probes");
    let file = &write_files(&dir)[0];
    let reader = open(file);
    // A list without nulls or empty lists: offsets straight from the repetition levels, and
    // every leaf page all valid (values decoded in one go).
    probe::reset();
    let (_, a) = reader.read_field_by_path("nonull").expect("nonull");
    assert_eq!(a.len(), 3000);
    assert!(probe::get("nested.list_offsets_from_rep") > 0);
    assert_eq!(probe::get("nested.list_offsets_general"), 0);
    assert!(probe::get("nested.leaf_page_all_valid") > 0);
    // With null lists and items, the general path.
    probe::reset();
    reader.read_field_by_path("lists").expect("lists");
    assert!(probe::get("nested.list_offsets_general") > 0);
    // Null items compact the leaf's validity with pext: the BMI2 instruction at a level
    // that has it (AVX2 and up), the portable loop otherwise.
    #[cfg(target_arch = "x86_64")]
    if parq::codecs::simd::level().has_avx2() {
        assert!(probe::get("kernels.pext.avx2") > 0);
        assert_eq!(probe::get("kernels.pext.scalar"), 0);
    } else {
        assert!(probe::get("kernels.pext.scalar") > 0);
        assert_eq!(probe::get("kernels.pext.avx2"), 0);
    }
    assert_eq!(probe::get("nested.list_offsets_from_rep"), 0);
    // A flat column read through array_batches takes the flat reader, not the level buffer.
    probe::reset();
    for b in reader.array_batches(&["flat"], 500).expect("flat") {
        b.expect("batch");
    }
    assert_eq!(probe::get("nested.leaf_page_all_valid"), 0);
    assert_eq!(probe::get("nested.list_offsets_general"), 0);
}

/// Fixed-width leaves of lists without nulls come in one go: an uncompressed PLAIN page whose
/// values are aligned is lent out as the leaf's buffer, not copied (as flat columns are).
#[cfg(feature = "probes")]
/// Batches of a nested field are each one column per leaf: pages are cut at batch
/// boundaries as they are decoded, so no batch is copied together from the pieces of the
/// pages it spans (pages here are tiny: a batch of 100 records spans several). Batches read
/// the same values as the whole field (itself checked against pyarrow in the CLI's
/// `nested_pyarrow`).
#[cfg(feature = "probes")]
#[test]
fn nested_batches_are_cut_from_pages_not_copied_together() {
    use parq::codecs::probe;
    python::require_python!("pyarrow");
    let dir = scratch_dir("nested_read_cuts");
    // Byte-array leaves only: fixed-width ones first try to lend each page out whole.
    let script = r#"
import sys, random
import pyarrow as pa, pyarrow.parquet as pq
rnd = random.Random(11)
n = 3000
def maybe(p, v):
    return None if rnd.random() < p else v
tags = [maybe(0.05, [maybe(0.05, "t%d" % rnd.randrange(500)) for _ in range(rnd.randrange(6))]) for _ in range(n)]
pairs = [maybe(0.1, {"s": maybe(0.05, "s%d" % rnd.randrange(50)), "t": "x" * rnd.randrange(9)}) for _ in range(n)]
words = [["w%d" % rnd.randrange(90) for _ in range(rnd.randrange(5))] for _ in range(n)]
t = pa.table({
    "tags": pa.array(tags, pa.list_(pa.string())),
    "pairs": pa.array(pairs, pa.struct([("s", pa.string()), ("t", pa.string())])),
    "words": pa.array(words, pa.list_(pa.string())),
})
for version in ["1.0", "2.0"]:
    for dictionary in [False, True]:
        pq.write_table(t, "%s/v%s_%d.parquet" % (sys.argv[1], version[0], dictionary),
                       data_page_version=version, use_dictionary=dictionary,
                       data_page_size=256, write_batch_size=7, row_group_size=1000)
"#;
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&dir)
        .status()
        .expect("python3");
    assert!(status.success(), "pyarrow failed to write the test files");
    for name in ["v1_0", "v1_1", "v2_0", "v2_1"] {
        let file = dir.join(format!("{name}.parquet"));
        let reader = open(&file);
        for (index, field) in ["tags", "pairs", "words"].iter().enumerate() {
            let whole = rows(&reader.read_field(index).expect("whole").1);
            probe::reset();
            let mut got = Vec::new();
            for batch in reader.array_batches(&[*field], 100).expect("batches") {
                got.extend(rows(&batch.expect("batch").arrays[0]));
            }
            assert!(got == whole, "{name}: {field}");
            assert!(
                probe::get("read.page_cut_at_batches") > 0,
                "{name}: {field}"
            );
            assert_eq!(
                probe::get("nested.values_copied_together"),
                0,
                "{name}: {field}"
            );
            // Empty lists but no null list or value: the leaf's slots and the lists are all
            // valid without computing their validity bit by bit.
            if *field == "words" {
                assert!(probe::get("nested.leaf_page_slots_all_valid") > 0, "{name}");
                assert_eq!(probe::get("kernels.slot_validity.avx2"), 0, "{name}");
                assert_eq!(probe::get("kernels.slot_validity.scalar"), 0, "{name}");
            }
        }
    }
}

// What it checks is counted by the probes.
#[cfg(feature = "probes")]
#[test]
fn aligned_plain_list_leaves_are_borrowed() {
    use arrow_buffer::{OffsetBuffer, ScalarBuffer};
    use parq::array::{ListArray, ListOffsets};
    use parq::codecs::compression::CodecKind;
    use parq::codecs::probe;
    use parq::column::{Column, Values};
    use parq::field::Field;
    use parq::metadata::Type;
    use parq::write::{EncodingPolicy, ParquetWriter, WriterOptions};

    let n = 10_000usize;
    let offsets: Vec<i32> = (0..=n as i32).map(|i| i * 3).collect();
    let values: Vec<i64> = (0..3 * n as i64).map(|i| i * 7919).collect();
    let list = Array::List(ListArray {
        validity: None,
        offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(offsets))),
        values: Box::new(Array::Primitive(Column {
            len: values.len(),
            validity: None,
            values: Values::Int64(values.into()),
        })),
    });
    let schema =
        vec![Field::list("l", Field::primitive("element", Type::INT64).required()).required()];
    let options = WriterOptions::default()
        .with_compression(CodecKind::Uncompressed)
        .with_encoding(EncodingPolicy::Plain);
    let mut file = Vec::new();
    let mut w = ParquetWriter::with_fields(&mut file, schema, options).expect("writer");
    w.write_arrays(std::slice::from_ref(&list)).expect("write");
    w.finish().expect("finish");
    // The values' alignment is the file offset's: try every shift of the file in memory.
    let mut borrowed = 0;
    for shift in 0..8 {
        let mut buf = vec![0u8; shift];
        buf.extend_from_slice(&file);
        let bytes = Bytes::from(buf).slice(shift..);
        let reader = ParquetReader::new(bytes).expect("open");
        probe::reset();
        let mut got = Vec::new();
        for b in reader.array_batches(&["l"], 1000).expect("batches") {
            got.extend(rows(&b.expect("batch").arrays[0]));
        }
        assert!(got == rows(&list), "shift {shift}");
        borrowed += probe::get("read.plain_borrowed");
    }
    assert!(borrowed > 0, "no aligned page was lent out");
}
