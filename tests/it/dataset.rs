//! The dataset writer (`parq::write::dataset`): rows split into Hive folders with the values
//! escaped as Hive and Spark escape them; files rolled at the target size; the listing it
//! returns matches the files on disk (sizes, rows, footer statistics); every file reads
//! back to its partition's rows; the async writer into an object store lists the same
//! files; and a proptest over random partition keys (nulls, empty and nasty strings) puts
//! every row back, its partition values re-attached from the folders.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{
    ArrayRef, BooleanArray, Date32Array, Int32Array, Int64Array, RecordBatch, StringArray,
};
use parq::metadata::FileMetaData;
use parq::read::ParquetReader;
use parq::write::dataset::{
    escape_path_name, parse_partition_path, unescape_path_name, DatasetOptions, DatasetWriter,
    LocalDirectory, WrittenFile,
};
use proptest::prelude::*;

/// A fresh folder under the system's temp dir, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        static N: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "parq-dataset-{name}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every file under `root`, as `/`-separated paths relative to it.
fn files_under(root: &Path) -> Vec<String> {
    fn walk(dir: &Path, prefix: &str, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries {
            let e = e.unwrap();
            let name = e.file_name().into_string().unwrap();
            let rel = format!("{prefix}{name}");
            if e.file_type().unwrap().is_dir() {
                walk(&e.path(), &format!("{rel}/"), out);
            } else {
                out.push(rel);
            }
        }
    }
    let mut out = Vec::new();
    walk(root, "", &mut out);
    out.sort();
    out
}

fn sorted(mut files: Vec<WrittenFile>) -> Vec<WrittenFile> {
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files
}

/// The listing agrees with the files: the same set, each entry's size the file's length,
/// its rows and row groups the footer's, and its column statistics the footer's chunk
/// statistics merged (checked here on files of one row group, where they are the chunk's).
/// Returns each file's footer.
fn check_listing(root: &Path, files: &[WrittenFile]) -> Vec<FileMetaData> {
    let listed: Vec<String> = sorted(files.to_vec()).into_iter().map(|f| f.path).collect();
    assert_eq!(listed, files_under(root));
    files
        .iter()
        .map(|f| {
            let bytes = std::fs::read(root.join(&f.path)).unwrap();
            assert_eq!(f.size_bytes, bytes.len() as u64, "{}", f.path);
            let reader = ParquetReader::new(bytes::Bytes::from(bytes)).unwrap();
            let meta = reader.metadata().clone();
            assert_eq!(f.num_rows, meta.num_rows as u64);
            assert_eq!(f.row_groups, meta.row_groups.len());
            assert_eq!(f.partition_values, parse_partition_path(&f.path));
            for (i, c) in f.columns.iter().enumerate() {
                let chunks: Vec<_> = meta
                    .row_groups
                    .iter()
                    .map(|rg| rg.columns[i].meta_data.as_ref().unwrap())
                    .collect();
                assert_eq!(c.path, chunks[0].path_in_schema.to_vec());
                let nulls: i64 = chunks
                    .iter()
                    .map(|m| m.statistics.as_ref().unwrap().null_count.unwrap())
                    .sum();
                assert_eq!(c.null_count, Some(nulls as u64));
                if let [one] = chunks.as_slice() {
                    let s = one.statistics.as_ref().unwrap();
                    assert_eq!(
                        c.min.as_deref(),
                        s.min_value.as_deref(),
                        "{} {:?}",
                        f.path,
                        c.path
                    );
                    assert_eq!(
                        c.max.as_deref(),
                        s.max_value.as_deref(),
                        "{} {:?}",
                        f.path,
                        c.path
                    );
                }
            }
            meta
        })
        .collect()
}

/// The batches of a file, read with parq.
fn read_back(path: &Path) -> Vec<RecordBatch> {
    let bytes = std::fs::read(path).unwrap();
    let reader = ParquetReader::new(bytes::Bytes::from(bytes)).unwrap();
    reader
        .record_batches(parq::read::EVERY_FIELD, 1024)
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap()
}

fn ids_of(batches: &[RecordBatch]) -> Vec<i64> {
    batches
        .iter()
        .flat_map(|b| {
            b.column_by_name("id")
                .unwrap()
                .as_primitive::<Int64Type>()
                .values()
                .to_vec()
        })
        .collect()
}

/// Keys with every character Hive escapes, spaces, unicode, `%` sequences, null and empty.
const NASTY: [Option<&str>; 9] = [
    Some("a/b"),
    Some("x=y"),
    Some("50%"),
    Some("with space"),
    Some("ünï €"),
    None,
    Some(""),
    Some("\"#%'*/:=?\\^{[]\n\u{7f}"),
    Some("%2F"),
];

fn nasty_batch(rows: usize) -> RecordBatch {
    let ids: Vec<i64> = (0..rows as i64).collect();
    let keys: Vec<Option<&str>> = (0..rows).map(|i| NASTY[i % NASTY.len()]).collect();
    let days: Vec<i32> = (0..rows).map(|i| 19_723 + (i % 2) as i32).collect();
    let flags: Vec<bool> = (0..rows).map(|i| i % 3 == 0).collect();
    let names: Vec<String> = (0..rows).map(|i| format!("name {i}")).collect();
    RecordBatch::try_from_iter([
        ("id", Arc::new(Int64Array::from(ids)) as ArrayRef),
        ("key", Arc::new(StringArray::from(keys)) as ArrayRef),
        ("day", Arc::new(Date32Array::from(days)) as ArrayRef),
        ("flag", Arc::new(BooleanArray::from(flags)) as ArrayRef),
        ("name", Arc::new(StringArray::from(names)) as ArrayRef),
    ])
    .unwrap()
}

#[test]
fn partitions_into_escaped_hive_folders() {
    let dir = TempDir::new("nasty");
    let batch = nasty_batch(90);
    let options = DatasetOptions::default()
        .with_partition_by(["key", "day"])
        .with_unique_id("run");
    let mut w =
        DatasetWriter::try_new_arrow(LocalDirectory::new(&dir.0), batch.schema(), options).unwrap();
    w.write_record_batch(&batch.slice(0, 40)).unwrap();
    w.write_record_batch(&batch.slice(40, 50)).unwrap();
    let files = sorted(w.finish().unwrap());
    // 8 keys (null and "" share the default partition) by 2 days.
    assert_eq!(files.len(), 16);
    let folders: Vec<&str> = files
        .iter()
        .map(|f| f.path.split("/day=").next().unwrap())
        .collect();
    for want in [
        "key=a%2Fb",
        "key=x%3Dy",
        "key=50%25",
        "key=with space",
        "key=ünï €",
        "key=__HIVE_DEFAULT_PARTITION__",
        "key=%22%23%25%27%2A%2F%3A%3D%3F%5C%5E%7B%5B%5D%0A%7F",
        "key=%252F",
    ] {
        assert!(folders.contains(&want), "{want} not in {folders:?}");
    }
    assert!(files
        .iter()
        .any(|f| f.path == "key=a%2Fb/day=2024-01-01/part-run-00000.parquet"));
    let metas = check_listing(&dir.0, &files);
    // The partition columns are not in the files; the others are, in order.
    let schema = read_back(&dir.0.join(&files[0].path))[0].schema();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names, ["id", "flag", "name"]);
    assert!(metas.iter().all(|m| m.schema.len() == 4));
    // Each file holds exactly its partition's rows, in input order.
    let mut seen = 0;
    for f in &files {
        let ids = ids_of(&read_back(&dir.0.join(&f.path)));
        let key = f.partition_values[0].1.as_deref();
        let day = f.partition_values[1].1.as_deref().unwrap();
        let want: Vec<i64> = (0..90i64)
            .filter(|&i| {
                let k = NASTY[i as usize % NASTY.len()].filter(|k| !k.is_empty());
                let d = if i % 2 == 0 {
                    "2024-01-01"
                } else {
                    "2024-01-02"
                };
                k == key && d == day
            })
            .collect();
        assert_eq!(ids, want, "{}", f.path);
        seen += ids.len();
        // Statistics of the ids: min and max of the file's rows, PLAIN-encoded.
        let id = &f.columns[0];
        assert_eq!(id.min.as_deref(), Some(&want[0].to_le_bytes()[..]));
        assert_eq!(
            id.max.as_deref(),
            Some(&want[want.len() - 1].to_le_bytes()[..])
        );
        assert!(id.min_exact && id.max_exact);
    }
    assert_eq!(seen, 90);
}

#[test]
fn rolls_files_at_the_target_size() {
    let dir = TempDir::new("roll");
    let rows = 20_000usize;
    let batch = RecordBatch::try_from_iter([
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..rows as i64)) as ArrayRef,
        ),
        (
            "text",
            Arc::new(StringArray::from_iter_values((0..rows).map(|i| {
                format!("row {i} of some text that does not repeat {}", i * 7)
            }))) as ArrayRef,
        ),
    ])
    .unwrap();
    let target = 128 << 10;
    let options = DatasetOptions::default()
        .with_target_file_bytes(target)
        .with_row_group_bytes(32 << 10);
    let mut w =
        DatasetWriter::try_new_arrow(LocalDirectory::new(&dir.0), batch.schema(), options).unwrap();
    for start in (0..rows).step_by(5_000) {
        w.write_record_batch(&batch.slice(start, 5_000)).unwrap();
    }
    let rolled = w.written().len();
    let files = w.finish().unwrap();
    assert!(rolled >= 5, "{rolled} files rolled before finish");
    check_listing(&dir.0, &files);
    let total: u64 = files.iter().map(|f| f.num_rows).sum();
    assert_eq!(total, rows as u64);
    let (last, full) = files.split_last().unwrap();
    for f in full {
        // Cut where the buffered rows reach the target: within a row group of it.
        assert!(
            f.size_bytes > target / 2 && f.size_bytes < target + (40 << 10),
            "{} bytes",
            f.size_bytes
        );
        // Row groups of 32 KiB: several per file.
        assert!(f.row_groups >= 3, "{} row groups", f.row_groups);
    }
    assert!(last.size_bytes < target + (40 << 10));
    // Rows stay in order across the files.
    let ids: Vec<i64> = files
        .iter()
        .flat_map(|f| ids_of(&read_back(&dir.0.join(&f.path))))
        .collect();
    assert_eq!(ids, (0..rows as i64).collect::<Vec<_>>());
}

#[test]
fn closes_the_least_recently_written_file_over_the_limit() {
    let dir = TempDir::new("lru");
    let keys: Vec<i32> = (0..60).map(|i| i % 3).collect();
    let batch = RecordBatch::try_from_iter([
        ("k", Arc::new(Int32Array::from(keys)) as ArrayRef),
        (
            "id",
            Arc::new(Int64Array::from_iter_values(0..60)) as ArrayRef,
        ),
    ])
    .unwrap();
    let options = DatasetOptions::default()
        .with_partition_by(["k"])
        .with_max_open_files(2);
    let mut w =
        DatasetWriter::try_new_arrow(LocalDirectory::new(&dir.0), batch.schema(), options).unwrap();
    // Batches of one row each: partitions 0, 1, 2, 0, ... so each new one evicts the oldest.
    for i in 0..60 {
        w.write_record_batch(&batch.slice(i, 1)).unwrap();
    }
    let files = w.finish().unwrap();
    assert_eq!(files.len(), 60);
    check_listing(&dir.0, &files);
    let mut ids: Vec<i64> = files
        .iter()
        .flat_map(|f| {
            let ids = ids_of(&read_back(&dir.0.join(&f.path)));
            let k: i64 = f.partition_values[0].1.as_deref().unwrap().parse().unwrap();
            assert!(ids.iter().all(|i| i % 3 == k));
            ids
        })
        .collect();
    ids.sort_unstable();
    assert_eq!(ids, (0..60).collect::<Vec<_>>());
}

#[test]
fn refuses_what_cannot_partition() {
    let dir = TempDir::new("refuse");
    let batch = nasty_batch(3);
    for (by, what) in [
        (vec!["nope"], "no top-level column"),
        (vec!["id", "id"], "twice"),
        (
            vec!["id", "key", "day", "flag", "name"],
            "every column is a partition column",
        ),
    ] {
        let err = DatasetWriter::try_new_arrow(
            LocalDirectory::new(&dir.0),
            batch.schema(),
            DatasetOptions::default().with_partition_by(by),
        )
        .unwrap_err();
        assert!(err.to_string().contains(what), "{err}");
    }
    let floats = RecordBatch::try_from_iter([
        (
            "x",
            Arc::new(arrow_array::Float64Array::from(vec![1.5])) as ArrayRef,
        ),
        ("y", Arc::new(Int32Array::from(vec![1])) as ArrayRef),
    ])
    .unwrap();
    let err = DatasetWriter::try_new_arrow(
        LocalDirectory::new(&dir.0),
        floats.schema(),
        DatasetOptions::default().with_partition_by(["x"]),
    )
    .unwrap_err();
    assert!(err.to_string().contains("no agreed folder name"), "{err}");
    // A batch of another schema is an error, not a panic, and nothing is written.
    let mut w = DatasetWriter::try_new_arrow(
        LocalDirectory::new(&dir.0),
        floats.schema(),
        DatasetOptions::default().with_partition_by(["y"]),
    )
    .unwrap();
    assert!(w.write_record_batch(&batch).is_err());
    assert!(w.finish().unwrap().is_empty());
    assert!(files_under(&dir.0).is_empty());
}

#[cfg(feature = "object_store")]
#[tokio::test(flavor = "current_thread")]
async fn the_object_store_writer_lists_the_same_files() {
    use parq::object_store::object_store::memory::InMemory;
    use parq::object_store::object_store::path::Path as ObjectPath;
    use parq::object_store::object_store::{ObjectStore, ObjectStoreExt};
    use parq::object_store::{ObjectDatasetWriter, ObjectWriteOptions};

    let dir = TempDir::new("twin");
    let batch = nasty_batch(300);
    let options = DatasetOptions::default()
        .with_partition_by(["key"])
        .with_unique_id("same")
        .with_target_file_bytes(2_000)
        .with_max_open_files(3);
    let mut w =
        DatasetWriter::try_new_arrow(LocalDirectory::new(&dir.0), batch.schema(), options.clone())
            .unwrap();
    let store: Arc<dyn ObjectStore> = Arc::new(InMemory::new());
    let mut o = ObjectDatasetWriter::try_new_arrow(
        Arc::clone(&store),
        ObjectPath::from("lake/t"),
        batch.schema(),
        options,
        ObjectWriteOptions::default().with_part_size(1024),
    )
    .unwrap();
    for start in (0..300).step_by(50) {
        w.write_record_batch(&batch.slice(start, 50)).unwrap();
        o.write_record_batch(&batch.slice(start, 50)).await.unwrap();
    }
    let local = w.finish().unwrap();
    let remote = o.finish().await.unwrap();
    assert!(local.len() > 8, "{} files", local.len());
    assert_eq!(local, remote);
    // And the objects are the files, byte for byte.
    for f in &remote {
        let path = ObjectPath::parse(format!("lake/t/{}", f.path)).unwrap();
        let object = store.get(&path).await.unwrap().bytes().await.unwrap();
        assert_eq!(object, std::fs::read(dir.0.join(&f.path)).unwrap());
    }
}

/// One row of the proptest: two partition keys and an id.
type Row = (Option<String>, Option<i32>, i64);

fn key_strategy() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        1 => Just(None),
        1 => Just(Some(String::new())),
        6 => "[a-c/=% é:\\\\{}\\[\\]^#?*'\"\u{1}\u{7f}~.]{1,5}".prop_map(Some),
    ]
}

/// Reads back every file of `root` and re-attaches the partition values of its folders.
fn rows_on_disk(root: &Path, files: &[WrittenFile]) -> Vec<Row> {
    let mut out = Vec::new();
    for f in files {
        let values: BTreeMap<String, Option<String>> =
            parse_partition_path(&f.path).into_iter().collect();
        assert_eq!(values.len(), 2);
        let k = values["k"].clone();
        let n = values["n"].as_deref().map(|v| v.parse::<i32>().unwrap());
        for id in ids_of(&read_back(&root.join(&f.path))) {
            out.push((k.clone(), n, id));
        }
    }
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Random batches with random keys (nulls, empty and nasty strings): every row comes
    /// back from the files, its keys from the folders; the empty string comes back null.
    #[test]
    fn partitioning_puts_every_row_back(
        batches in proptest::collection::vec(
            proptest::collection::vec((key_strategy(), proptest::option::of(-2i32..3)), 0..12),
            1..5,
        ),
        target in 200u64..5_000,
        open in 1usize..4,
    ) {
        let dir = TempDir::new("prop");
        let schema = nasty_schema();
        let options = DatasetOptions::default()
            .with_partition_by(["k", "n"])
            .with_target_file_bytes(target)
            .with_max_open_files(open);
        let mut w = DatasetWriter::try_new_arrow(LocalDirectory::new(&dir.0), schema.clone(), options)
            .unwrap();
        let mut want: Vec<Row> = Vec::new();
        for rows in &batches {
            let first = want.len() as i64;
            let ids: Vec<i64> = (first..first + rows.len() as i64).collect();
            let keys: Vec<Option<&str>> = rows.iter().map(|r| r.0.as_deref()).collect();
            let ns: Vec<Option<i32>> = rows.iter().map(|r| r.1).collect();
            let batch = RecordBatch::try_new(schema.clone(), vec![
                Arc::new(StringArray::from(keys)) as ArrayRef,
                Arc::new(Int64Array::from(ids.clone())),
                Arc::new(Int32Array::from(ns)),
            ]).unwrap();
            w.write_record_batch(&batch).unwrap();
            for (r, id) in rows.iter().zip(ids) {
                want.push((r.0.clone().filter(|k| !k.is_empty()), r.1, id));
            }
        }
        let files = w.finish().unwrap();
        check_listing(&dir.0, &files);
        want.sort();
        prop_assert_eq!(rows_on_disk(&dir.0, &files), want);
    }

    /// Escaping round-trips any string, and an escaped name is one folder without `=`.
    #[test]
    fn escaping_round_trips(s in "\\PC{0,12}|[\u{0}-\u{7f}]{0,12}") {
        let e = escape_path_name(&s);
        prop_assert!(!e.contains('/') && !e.contains('='));
        prop_assert_eq!(unescape_path_name(&e), s);
    }
}

fn nasty_schema() -> arrow_schema::SchemaRef {
    Arc::new(arrow_schema::Schema::new(vec![
        arrow_schema::Field::new("k", arrow_schema::DataType::Utf8, true),
        arrow_schema::Field::new("id", arrow_schema::DataType::Int64, false),
        arrow_schema::Field::new("n", arrow_schema::DataType::Int32, true),
    ]))
}
