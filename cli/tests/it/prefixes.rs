//! A directory, a `file://` URL ending in `/`, or an `s3://` prefix (moto's S3 server on
//! loopback) names every `.parquet` file under it: `cat`, `head`, `schema`, `meta` and
//! `scan` print what reading the files one by one prints, in path order; `--where` prunes
//! whole files by their footer statistics; no progress bar is drawn when stderr is not a
//! terminal.

use crate::python;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use parq::column::{Column, Values};
use parq::write::{Field, ParquetWriter, WriterOptions};

/// Run parq with `env` set, and require that it succeeds.
pub(crate) fn parq_env(args: &[&str], env: &[(&str, String)]) -> Output {
    let out = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(args)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .output()
        .expect("run parq");
    assert!(
        out.status.success(),
        "parq {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn parq(args: &[&str]) -> Output {
    parq_env(args, &[])
}

fn text(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// File `k`: `id` = k*100 .. k*100+50 and `name`, pages of 10 rows, statistics on.
fn file(k: i64) -> Vec<u8> {
    let ids: Vec<i64> = (k * 100..k * 100 + 50).collect();
    let mut data = Vec::new();
    let mut offsets = vec![0i64];
    for i in &ids {
        data.extend_from_slice(format!("name-{i}").as_bytes());
        offsets.push(data.len() as i64);
    }
    let columns = [
        Column {
            len: ids.len(),
            validity: None,
            values: Values::Int64(ids.clone().into()),
        },
        Column {
            len: ids.len(),
            validity: None,
            values: Values::Binary {
                offsets: arrow_buffer::OffsetBuffer::new(offsets.into()),
                data: data.into(),
            },
        },
    ];
    let options = WriterOptions::default().with_data_page_row_limit(10);
    let mut out = Vec::new();
    let mut w = ParquetWriter::new(
        &mut out,
        vec![Field::int64("id"), Field::string("name")],
        options,
    )
    .unwrap();
    w.write_batch(&columns).unwrap();
    w.finish().unwrap();
    out
}

/// The dataset's files, as (path under the root, bytes): path order is 0, 1, 2.
fn dataset() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("part-0.parquet", file(0)),
        ("part-1.parquet", file(1)),
        ("sub/part-2.parquet", file(2)),
    ]
}

/// A fresh directory holding the dataset, a `_SUCCESS` marker and a non-Parquet file.
fn local_dataset(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parq-prefix-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    for (name, bytes) in dataset() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    std::fs::write(dir.join("_SUCCESS"), b"").unwrap();
    std::fs::write(dir.join("notes.txt"), b"not parquet").unwrap();
    dir
}

/// What one command prints for each file of `dir` named one by one, joined as a prefix
/// prints it.
fn one_by_one(dir: &Path, cmd: &[&str], name: impl Fn(&str) -> String) -> String {
    let mut want = String::new();
    for (i, (file, _)) in dataset().into_iter().enumerate() {
        let path = dir.join(file);
        let mut args = cmd.to_vec();
        let p = path.to_str().unwrap();
        args.insert(1, p);
        let got = text(&parq(&args));
        match cmd[0] {
            "schema" => want.push_str(&format!("== {} ==\n{got}", name(file))),
            "meta" if cmd.contains(&"--json") => want.push_str(&format!(
                "{{\"file\":{},\"meta\":{}}}\n",
                serde_json::Value::String(name(file)),
                got.trim_end()
            )),
            "meta" => want.push_str(&format!("== {} ==\n{got}", name(file))),
            // One CSV header, from the first file.
            _ if cmd.contains(&"csv") && i > 0 => {
                want.push_str(got.split_once('\n').map_or("", |(_, rest)| rest))
            }
            _ => want.push_str(&got),
        }
    }
    want
}

fn commands() -> Vec<Vec<&'static str>> {
    vec![
        vec!["schema"],
        vec!["meta"],
        vec!["meta", "--json"],
        vec!["cat"],
        vec!["cat", "--format", "csv"],
        vec![
            "cat",
            "--columns",
            "name",
            "--where",
            "id >= 120 and id < 230",
        ],
    ]
}

#[test]
fn a_directory_reads_as_its_files_one_by_one() {
    let dir = local_dataset("dir");
    let root = dir.to_str().unwrap();
    for cmd in commands() {
        let mut args = cmd.clone();
        args.insert(1, root);
        let got = text(&parq(&args));
        let want = one_by_one(&dir, &cmd, |f| dir.join(f).display().to_string());
        assert_eq!(got, want, "{cmd:?}");
    }
    // `head` takes its rows across file boundaries.
    let all = one_by_one(&dir, &["cat"], |f| f.to_string());
    let got = text(&parq(&["head", root, "-n", "70"]));
    let want: Vec<&str> = all.lines().take(70).collect();
    assert_eq!(got.lines().collect::<Vec<_>>(), want);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_file_url_prefix_reads_as_its_files_one_by_one() {
    let dir = local_dataset("url");
    let url = format!("file://{}/", dir.canonicalize().unwrap().display());
    for cmd in commands() {
        let mut args = cmd.clone();
        args.insert(1, &url);
        let got = text(&parq(&args));
        let want = one_by_one(&dir, &cmd, |f| format!("{url}{f}"));
        assert_eq!(got, want, "{cmd:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_over_a_prefix_prunes_files_by_statistics_and_draws_no_bar_off_a_terminal() {
    let dir = local_dataset("scan");
    let root = dir.to_str().unwrap();
    let json = |o: &Output| -> serde_json::Value { serde_json::from_slice(&o.stdout).unwrap() };
    let all = parq(&["scan", root, "--json", "--repeat", "1"]);
    let v = json(&all);
    assert_eq!(v["rows"], 150);
    assert_eq!(v["files"], 3);
    assert_eq!(v["files_pruned"], 0);
    // Standard error is a pipe here: no progress bar, nothing at all.
    assert!(
        all.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&all.stderr)
    );
    let text_scan = parq(&["scan", root, "--repeat", "1"]);
    assert!(text_scan.stderr.is_empty());
    // Files 0 and 1 hold ids below 150: ruled out by their statistics, never read.
    let pruned = json(&parq(&[
        "scan",
        root,
        "--json",
        "--repeat",
        "1",
        "--where",
        "id >= 200",
    ]));
    assert_eq!(pruned["files_pruned"], 2);
    assert_eq!(pruned["rows"], 50);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn scan_over_a_prefix_shows_progress_on_a_terminal() {
    let script = ["/usr/bin/script", "/bin/script"]
        .into_iter()
        .map(PathBuf::from)
        .find(|p| p.exists());
    let Some(script) = script else {
        eprintln!("note: util-linux `script` not found; the terminal case is not exercised");
        return;
    };
    let dir = local_dataset("tty");
    let typescript = dir.join("typescript");
    // stdout to /dev/null: only stderr reaches the terminal.
    let command = format!(
        "'{}' scan '{}' --repeat 1 >/dev/null",
        env!("CARGO_BIN_EXE_parq"),
        dir.display()
    );
    let out = Command::new(script)
        .args(["-q", "-e", "-c", &command])
        .arg(&typescript)
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let drawn = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    assert!(
        drawn.contains("files ") && drawn.contains("(0 pruned)"),
        "{drawn}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// S3 served by moto (`moto_server`, installed by `.ci/test`) on loopback.
#[cfg(feature = "cloud")]
pub(crate) mod s3 {
    use super::*;
    use parq::object_store::object_store::aws::AmazonS3Builder;
    use parq::object_store::object_store::path::Path as ObjectPath;
    use parq::object_store::object_store::ObjectStoreExt;
    use std::io::{Read, Write};
    use std::net::{TcpListener, TcpStream};
    use std::process::{Child, Stdio};
    use std::time::Duration;

    /// A running moto server, killed when dropped.
    pub(crate) struct Moto(Child);
    impl Drop for Moto {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    /// Start moto on a free loopback port and create `bucket`.
    pub(crate) fn moto(bucket: &str) -> (Moto, u16) {
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("moto_server")
            .args(["-H", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("moto_server not found: pip install 'moto[server]'");
        let moto = Moto(child);
        for _ in 0..200 {
            if let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) {
                let req = format!("PUT /{bucket} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
                s.write_all(req.as_bytes()).unwrap();
                let mut answer = String::new();
                let _ = s.read_to_string(&mut answer);
                assert!(answer.contains(" 200 "), "{answer}");
                return (moto, port);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("moto_server did not start on port {port}");
    }

    #[test]
    fn an_s3_prefix_reads_as_its_files_one_by_one() {
        python::require_python!("moto.server");
        let (_moto, port) = moto("lake");
        let endpoint = format!("http://127.0.0.1:{port}");
        let store = AmazonS3Builder::new()
            .with_endpoint(&endpoint)
            .with_allow_http(true)
            .with_bucket_name("lake")
            .with_region("us-east-1")
            .with_access_key_id("test")
            .with_secret_access_key("test")
            .build()
            .unwrap();
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            for (name, bytes) in dataset() {
                let path = ObjectPath::from(format!("events/{name}"));
                store.put(&path, bytes.into()).await.unwrap();
            }
            let other = ObjectPath::from("other/part-9.parquet");
            store.put(&other, file(9).into()).await.unwrap();
        });
        let env = [
            ("AWS_ENDPOINT", endpoint),
            ("AWS_ALLOW_HTTP", "true".into()),
            ("AWS_ACCESS_KEY_ID", "test".into()),
            ("AWS_SECRET_ACCESS_KEY", "test".into()),
            ("AWS_REGION", "us-east-1".into()),
        ];
        let dir = local_dataset("s3");
        let url = "s3://lake/events/";
        for cmd in commands() {
            let mut args = cmd.clone();
            args.insert(1, url);
            let got = text(&parq_env(&args, &env));
            let want = one_by_one(&dir, &cmd, |f| format!("s3://lake/events/{f}"));
            assert_eq!(got, want, "{cmd:?}");
        }
        let scan = parq_env(
            &[
                "scan", url, "--json", "--repeat", "1", "--where", "id < 150",
            ],
            &env,
        );
        let v: serde_json::Value = serde_json::from_slice(&scan.stdout).unwrap();
        assert_eq!(
            (v["files"].clone(), v["files_pruned"].clone()),
            (3.into(), 1.into())
        );
        assert_eq!(v["rows"], 100);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
