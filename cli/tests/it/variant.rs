//! `parq cat` prints variant columns as their JSON value, `parq schema` their shredding tree.

use std::path::PathBuf;
use std::process::Command;

fn case(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/parquet-testing/shredded_variant")
        .join(name)
}

fn parq(args: &[&str], file: &str) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(args)
        .arg(case(file))
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn cat_prints_variants_as_json() {
    let (ok, out, err) = parq(&["cat"], "case-001.parquet");
    assert!(ok, "{err}");
    assert_eq!(out, "{\"id\":1,\"var\":[\"comedy\",\"drama\"]}\n");
    // A null variant row, nested shredded objects.
    let (ok, out, err) = parq(&["cat"], "case-083.parquet");
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "{\"id\":0,\"var\":null}");
    assert_eq!(lines[1], "{\"id\":1,\"var\":{\"c\":{\"b\":\"iceberg\"}}}");
    let (ok, out, _) = parq(&["cat", "--format", "csv"], "case-001.parquet");
    assert!(ok);
    assert_eq!(out, "id,var\n1,\"[\"\"comedy\"\",\"\"drama\"\"]\"\n");
}

#[test]
fn cat_fails_on_a_conflict_naming_row_and_path() {
    let (ok, _, err) = parq(&["cat"], "case-042.parquet");
    assert!(!ok);
    assert!(
        err.contains("row 0, path var: conflicting value and typed_value"),
        "{err}"
    );
}

#[test]
fn schema_shows_the_shredding_tree() {
    let (ok, out, err) = parq(&["schema"], "case-083.parquet");
    assert!(ok, "{err}");
    assert!(
        out.ends_with(
            "variant shredding:\nvar: object | variant\n  c: object | variant\n    \
             a: int32 | variant\n    b: string | variant\n  d: double | variant\n"
        ),
        "{out}"
    );
    // A tree parq cannot read still prints, with the reason.
    let (ok, out, _) = parq(&["schema"], "case-127.parquet");
    assert!(ok);
    assert!(
        out.contains("var: unsupported: shredded value type INT32"),
        "{out}"
    );
}
