//! Every command that reads a file takes an object-store URL too (`file://` here; `s3://`
//! and the other cloud schemes go through the same `object_store` parsing), and prints what
//! it prints for the local path; a missing object is an error naming it.

use std::path::PathBuf;
use std::process::{Command, Output};

fn parq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(args)
        .output()
        .expect("run parq")
}

fn testing_file(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/parquet-testing/data")
        .join(name)
        .canonicalize()
        .unwrap()
}

#[test]
fn commands_read_file_urls_as_they_read_paths() {
    for name in [
        "alltypes_plain.parquet",
        "nested_lists.snappy.parquet",
        "datapage_v2.snappy.parquet",
    ] {
        let path = testing_file(name);
        let local = path.to_str().unwrap().to_string();
        let url = format!("file://{local}");
        for cmd in [
            vec!["schema"],
            vec!["meta"],
            vec!["meta", "--json"],
            vec!["cat"],
            vec!["head", "-n", "2"],
            vec!["scan", "--json"],
        ] {
            let run = |file: &str| {
                let mut args = cmd.clone();
                args.insert(1, file);
                parq(&args)
            };
            let (a, b) = (run(&local), run(&url));
            assert!(
                a.status.success(),
                "{cmd:?} {local}: {}",
                String::from_utf8_lossy(&a.stderr)
            );
            assert!(
                b.status.success(),
                "{cmd:?} {url}: {}",
                String::from_utf8_lossy(&b.stderr)
            );
            if cmd[0] == "scan" {
                // Timings differ; the row count does not.
                let rows = |o: &Output| {
                    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
                    v["rows"].clone()
                };
                assert_eq!(rows(&a), rows(&b), "{cmd:?} {name}");
            } else {
                assert_eq!(a.stdout, b.stdout, "{cmd:?} {name}");
            }
        }
    }
}

#[test]
fn a_missing_object_is_an_error_naming_it() {
    let out = parq(&["schema", "file:///no/such/object.parquet"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("file:///no/such/object.parquet"), "{err}");
}
