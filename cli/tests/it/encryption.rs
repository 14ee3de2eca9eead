//! `parq cat|schema|meta|scan` with `--footer-key`, `--column-key`, `--aad-prefix`, and
//! `parq rewrite` encrypting and decrypting, on parquet-testing's encrypted files.

use std::path::PathBuf;
use std::process::{Command, Output};

fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../testdata/parquet-testing/data")
        .join(name)
        .display()
        .to_string()
}

fn parq(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_parq"))
        .args(args)
        .output()
        .expect("run parq")
}

fn ok(args: &[&str]) -> String {
    let out = parq(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "parq {args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

fn fails(args: &[&str]) -> String {
    let out = parq(args);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert_eq!(out.status.code(), Some(1), "parq {args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

const KEYS: [&str; 6] = [
    "--footer-key",
    "ascii:0123456789012345",
    "--column-key",
    "double_field:ascii:1234567890123450",
    "--column-key",
    "float_field:31323334353637383930313233343531", // hex of 1234567890123451
];

#[test]
fn reading_commands_take_keys() {
    let file = data("encrypt_columns_and_footer_aad.parquet.encrypted");
    let mut args = vec!["cat", file.as_str(), "--limit", "2"];
    args.extend(KEYS);
    args.extend(["--aad-prefix", "tester"]);
    let out = ok(&args);
    assert!(
        out.starts_with("{\"boolean_field\":true,\"int32_field\":0,"),
        "{out}"
    );
    assert!(out.contains("\"double_field\":1.1111111"), "{out}");
    for cmd in ["schema", "meta"] {
        let mut args = vec![cmd, file.as_str()];
        args.extend(KEYS);
        args.extend(["--aad-prefix", "tester"]);
        assert!(ok(&args).contains("double_field"));
    }
    let mut args = vec!["scan", file.as_str(), "--repeat", "1"];
    args.extend(KEYS);
    args.extend(["--aad-prefix", "tester"]);
    assert!(ok(&args).contains("rows"));
    // Without keys, or with a wrong one: a clean error that names what is missing.
    let e = fails(&["cat", &file]);
    assert!(e.contains("footer is encrypted"), "{e}");
    let e = fails(&["cat", &file, "--footer-key", "ascii:0123456789012345"]);
    assert!(e.contains("no key of column"), "{e}");
    let mut args = vec!["cat", file.as_str()];
    args.extend(KEYS);
    args.extend(["--aad-prefix", "other"]);
    let e = fails(&args);
    assert!(e.contains("AAD prefix") && e.contains("differs"), "{e}");
    let e = fails(&["cat", &file, "--footer-key", "zz"]);
    assert!(e.contains("neither hex nor ascii"), "{e}");
    // A plaintext footer: plaintext columns read without keys.
    let plain = data("encrypt_columns_plaintext_footer.parquet.encrypted");
    let out = ok(&["cat", &plain, "--columns", "int32_field", "--limit", "1"]);
    assert_eq!(out.trim(), "{\"int32_field\":0}");
    let e = fails(&["cat", &plain, "--columns", "double_field"]);
    assert!(e.contains("column double_field is encrypted"), "{e}");
}

#[test]
fn rewrite_encrypts_and_decrypts() {
    let dir = std::env::temp_dir().join(format!("parq-cli-encryption-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (enc, dec) = (dir.join("enc.parquet"), dir.join("dec.parquet"));
    let (enc, dec) = (enc.to_str().unwrap(), dec.to_str().unwrap());
    let input = data("uniform_encryption.parquet.encrypted");
    ok(&[
        "rewrite",
        &input,
        enc,
        "--footer-key",
        "ascii:0123456789012345",
        "--encrypt-footer-key",
        "ascii:abcdefghijklmnop",
        "--encrypt-column-key",
        "double_field:ascii:ABCDEFGHIJKLMNOP",
        "--encrypt-algorithm",
        "ctr",
        "--encrypt-aad-prefix",
        "part-0",
        "--no-store-aad-prefix",
    ]);
    let keys = [
        "--footer-key",
        "ascii:abcdefghijklmnop",
        "--column-key",
        "double_field:ascii:ABCDEFGHIJKLMNOP",
        "--aad-prefix",
        "part-0",
    ];
    let mut args = vec!["rewrite", enc, dec];
    args.extend(keys);
    ok(&args);
    let mut args = vec!["cat", enc];
    args.extend(keys);
    let encrypted = ok(&args);
    let decrypted = ok(&["cat", dec]);
    let original = ok(&["cat", &input, "--footer-key", "ascii:0123456789012345"]);
    assert_eq!(encrypted, original);
    assert_eq!(decrypted, original);
    let e = fails(&["cat", enc, "--footer-key", "ascii:abcdefghijklmnop"]);
    assert!(e.contains("AAD prefix"), "{e}");
    std::fs::remove_dir_all(&dir).ok();
}
