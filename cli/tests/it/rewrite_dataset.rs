//! `parq rewrite IN OUT` to URLs and `--partition-by`: a partitioned folder whose Hive
//! folders escape the values as Hive and Spark do, listed on stdout with each file's rows
//! and bytes as stored; every row back in its partition; a `file://` URL output the same
//! bytes as the local path; and (with moto) an `s3://` prefix.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use parq::column::{Column, Values};
use parq::read::ParquetReader;
use parq::write::{Field, ParquetWriter, WriterOptions};

use crate::prefixes::parq_env;
use crate::support::{rel, scratch_dir, walk_files};

const CITIES: [Option<&str>; 5] = [Some("a/b"), None, Some("São Paulo"), Some("x=1%"), Some("")];

/// A file of 100 rows: `id` 0..100, `city` cycling through [`CITIES`], `n` = id % 2, in
/// two row groups.
fn input(dir: &Path) -> std::path::PathBuf {
    let rows = 100usize;
    let mut offsets = vec![0i64];
    let mut data = Vec::new();
    let mut valid = Vec::new();
    for i in 0..rows {
        let c = CITIES[i % CITIES.len()];
        data.extend_from_slice(c.unwrap_or("").as_bytes());
        offsets.push(data.len() as i64);
        valid.push(c.is_some());
    }
    let ids = Column {
        len: rows,
        validity: None,
        values: Values::Int64((0..rows as i64).collect::<Vec<_>>().into()),
    };
    let cities = Column {
        len: rows,
        validity: Some(NullBuffer::from(valid)),
        values: Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
            data: Buffer::from(data),
        },
    };
    let n = Column {
        len: rows,
        validity: None,
        values: Values::Int32((0..rows as i32).map(|i| i % 2).collect::<Vec<_>>().into()),
    };
    let path = dir.join("in.parquet");
    let mut w = ParquetWriter::new(
        std::fs::File::create(&path).unwrap(),
        vec![
            Field::int64("id"),
            Field::string("city").optional(),
            Field::int32("n"),
        ],
        WriterOptions::default().with_row_group_rows(50),
    )
    .unwrap();
    w.write_batch(&[ids, cities, n]).unwrap();
    w.finish().unwrap();
    path
}

/// The ids in `bytes`' first column.
fn ids(bytes: Vec<u8>) -> Vec<i64> {
    let reader = ParquetReader::new(bytes::Bytes::from(bytes)).unwrap();
    assert_eq!(reader.schema().leaves[0].name(), "id");
    let Values::Int64(v) = reader.read_column(0).unwrap().values else {
        panic!("id is not INT64")
    };
    v.to_vec()
}

/// The ids a partition of (city, n) must hold, by the input's rule.
fn want(city: Option<&str>, n: &str) -> Vec<i64> {
    (0..100i64)
        .filter(|i| {
            let c = CITIES[*i as usize % CITIES.len()].filter(|c| !c.is_empty());
            c == city && (i % 2).to_string() == n
        })
        .collect()
}

/// The listing's lines after its header: path -> (rows, bytes).
fn listing(stdout: &[u8]) -> BTreeMap<String, (u64, u64)> {
    let text = String::from_utf8_lossy(stdout);
    text.lines()
        .skip(2)
        .map(|l| {
            let (rest, bytes) = l.trim_end().rsplit_once(' ').unwrap();
            let (path, rows) = rest.trim_end().rsplit_once(' ').unwrap();
            (
                path.trim_end().to_string(),
                (rows.parse().unwrap(), bytes.parse().unwrap()),
            )
        })
        .collect()
}

/// The listing matches the folder: the same files, sizes and rows; each file holds its
/// partition's ids.
fn check_folder(root: &Path, listed: &BTreeMap<String, (u64, u64)>) {
    let on_disk: Vec<String> = walk_files(root, &|_| true)
        .iter()
        .map(|p| rel(p, root))
        .collect();
    assert_eq!(on_disk, listed.keys().cloned().collect::<Vec<_>>());
    let mut total = 0;
    for (path, (rows, bytes)) in listed {
        let data = std::fs::read(root.join(path)).unwrap();
        assert_eq!(data.len() as u64, *bytes, "{path}");
        let got = ids(data);
        assert_eq!(got.len() as u64, *rows);
        let values = parq::write::dataset::parse_partition_path(path);
        assert_eq!(values[0].0, "city");
        assert_eq!(values[1].0, "n");
        assert_eq!(
            got,
            want(values[0].1.as_deref(), values[1].1.as_deref().unwrap()),
            "{path}"
        );
        total += got.len();
    }
    assert_eq!(total, 100);
}

#[test]
fn partition_by_writes_escaped_hive_folders_and_lists_them() {
    let dir = scratch_dir("rewrite-dataset");
    let input = input(&dir);
    let out = dir.join("out");
    let run = parq_env(
        &[
            "rewrite",
            input.to_str().unwrap(),
            out.to_str().unwrap(),
            "--partition-by",
            "city,n",
        ],
        &[],
    );
    let listed = listing(&run.stdout);
    // Four cities (null and "" are one) by two values of n.
    assert_eq!(listed.len(), 8, "{}", String::from_utf8_lossy(&run.stdout));
    let folders: Vec<&str> = listed
        .keys()
        .map(|p| p.rsplit_once('/').unwrap().0)
        .collect();
    for want in [
        "city=a%2Fb/n=0",
        "city=__HIVE_DEFAULT_PARTITION__/n=1",
        "city=São Paulo/n=0",
        "city=x%3D1%25/n=1",
    ] {
        assert!(folders.contains(&want), "{want} not in {folders:?}");
    }
    check_folder(&out, &listed);
    // The files do not have the partition columns.
    let first = std::fs::read(out.join(listed.keys().next().unwrap())).unwrap();
    let reader = ParquetReader::new(bytes::Bytes::from(first)).unwrap();
    assert_eq!(reader.schema().leaves.len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn file_urls_are_written_as_paths_are() {
    let dir = scratch_dir("rewrite-url");
    let input = input(&dir);
    let local = dir.join("local.parquet");
    let via_url = dir.join("url.parquet");
    parq_env(
        &["rewrite", input.to_str().unwrap(), local.to_str().unwrap()],
        &[],
    );
    let url_in = format!("file://{}", input.display());
    let url_out = format!("file://{}", via_url.display());
    let run = parq_env(&["rewrite", &url_in, &url_out], &[]);
    assert!(String::from_utf8_lossy(&run.stdout).contains("100 rows, 2 row groups"));
    assert_eq!(
        std::fs::read(&local).unwrap(),
        std::fs::read(&via_url).unwrap()
    );
    // A partitioned prefix given as a URL: the same folders as a path gives.
    let prefix = dir.join("prefix");
    let run = parq_env(
        &[
            "rewrite",
            &url_in,
            &format!("file://{}/", prefix.display()),
            "--partition-by",
            "city,n",
        ],
        &[],
    );
    let listed = listing(&run.stdout);
    assert_eq!(listed.len(), 8);
    check_folder(&prefix, &listed);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_partition_column_that_cannot_name_folders_is_refused_before_writing() {
    let dir = scratch_dir("rewrite-refused");
    let input = input(&dir);
    let out = dir.join("out");
    let run = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args([
            "rewrite",
            input.to_str().unwrap(),
            out.to_str().unwrap(),
            "--partition-by",
            "nope",
        ])
        .output()
        .unwrap();
    assert!(!run.status.success());
    assert!(String::from_utf8_lossy(&run.stderr).contains("no top-level column \"nope\""));
    assert!(!out.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[cfg(feature = "cloud")]
#[test]
fn an_s3_prefix_gets_the_partitions() {
    use crate::prefixes::s3::moto;
    use parq::object_store::object_store::aws::AmazonS3Builder;
    use parq::object_store::object_store::path::Path as ObjectPath;
    use parq::object_store::object_store::ObjectStoreExt;

    crate::python::require_python!("moto.server");
    let (_moto, port) = moto("lake");
    let endpoint = format!("http://127.0.0.1:{port}");
    let env = [
        ("AWS_ENDPOINT", endpoint.clone()),
        ("AWS_ALLOW_HTTP", "true".into()),
        ("AWS_ACCESS_KEY_ID", "test".into()),
        ("AWS_SECRET_ACCESS_KEY", "test".into()),
        ("AWS_REGION", "us-east-1".into()),
    ];
    let dir = scratch_dir("rewrite-s3");
    let input = input(&dir);
    let run = parq_env(
        &[
            "rewrite",
            input.to_str().unwrap(),
            "s3://lake/tables/t/",
            "--partition-by",
            "city,n",
        ],
        &env,
    );
    let listed = listing(&run.stdout);
    assert_eq!(listed.len(), 8);
    // One file through S3 and back, and the objects as listed.
    parq_env(
        &["rewrite", input.to_str().unwrap(), "s3://lake/one.parquet"],
        &env,
    );
    let store = AmazonS3Builder::new()
        .with_endpoint(&endpoint)
        .with_allow_http(true)
        .with_bucket_name("lake")
        .with_region("us-east-1")
        .with_access_key_id("test")
        .with_secret_access_key("test")
        .build()
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let mut total = 0;
    for (path, (rows, bytes)) in &listed {
        let key = ObjectPath::parse(format!("tables/t/{path}")).unwrap();
        let data = rt.block_on(async { store.get(&key).await.unwrap().bytes().await.unwrap() });
        assert_eq!(data.len() as u64, *bytes, "{path}");
        let got = ids(data.to_vec());
        assert_eq!(got.len() as u64, *rows);
        total += got.len();
    }
    assert_eq!(total, 100);
    let one = rt.block_on(async {
        let key = ObjectPath::from("one.parquet");
        store.get(&key).await.unwrap().bytes().await.unwrap()
    });
    assert_eq!(ids(one.to_vec()), (0..100).collect::<Vec<_>>());
    let _ = std::fs::remove_dir_all(&dir);
}
