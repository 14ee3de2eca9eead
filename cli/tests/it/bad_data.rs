//! `parq cat` on hostile input: no panic, no hang, an error with a message.
//!
//! * every file in parquet-testing's bad_data/: an error exit (not 101, no
//!   "panicked", a message on stderr) within 30 s -- except files pyarrow reads,
//!   whose output must equal pyarrow's;
//! * truncated and byte-flipped variants of a few good files: no panic, no hang
//!   (an error exit or success are both fine).

use crate::python;
use crate::support;

use std::path::{Path, PathBuf};

use support::*;

/// Good files that get truncated and corrupted.
const MUTATED: &[&str] = &[
    "alltypes_plain.parquet",
    "datapage_v2.snappy.parquet",
    "delta_encoding_optional_column.parquet",
    "rle-dict-snappy-checksum.parquet",
];

#[test]
fn bad_data_files_fail_cleanly() {
    python::require_python!("pyarrow");
    let dir = parquet_bad_data();
    let files = walk_files(&dir, &|p: &Path| {
        p.extension().is_some_and(|e| e == "parquet")
    });
    assert!(!files.is_empty(), "no files in {}", dir.display());

    let scratch = scratch_dir("bad_data");
    let expected = expected_batch(&files, &scratch, 1);

    let results = par_map(&expected, threads(), |e| {
        let name = rel(&e.file, &dir);
        if e.status == "ok" {
            // pyarrow reads it: parq must agree.
            let want = load_expected(&e.out);
            let outcome = cat_and_compare(&e.file, &[], &want, &scratch);
            let line = format!("pyarrow reads it; parq {outcome}");
            let err = (!outcome.is_match()).then(|| format!("{name}: {line}"));
            return (name, line, err);
        }
        let run = parq_cat(&e.file, &[], &scratch);
        let line = format!(
            "pyarrow: {} ({}); parq: {} in {:?}",
            e.status,
            clip(&e.reason, 100),
            if run.success() {
                "exit 0".to_string()
            } else {
                run.describe_error()
            },
            run.elapsed
        );
        let err = if let Some(c) = run.crash() {
            Some(format!("{name}: {c}"))
        } else if run.success() {
            Some(format!(
                "{name}: parq exited 0 on a file pyarrow rejects ({})",
                e.reason
            ))
        } else if run.stderr.trim().is_empty() {
            Some(format!(
                "{name}: parq failed with exit {:?} but printed no message",
                run.code
            ))
        } else {
            None
        };
        (name, line, err)
    });

    let mut errors = Vec::new();
    for (name, line, err) in results {
        eprintln!("{name:40} {line}");
        errors.extend(err);
    }
    if errors.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        errors.is_empty(),
        "bad_data failures:\n  {}",
        errors.join("\n  ")
    );
}

/// A small deterministic PRNG (xorshift64*), so the mutations are reproducible.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// (variant name, bytes): 10 truncations and 20 single-byte flips, half of the
/// flips inside the footer (metadata), where a flip changes the most.
fn mutations(bytes: &[u8], seed: u64) -> Vec<(String, Vec<u8>)> {
    let len = bytes.len();
    let footer_len = if len >= 8 && &bytes[len - 4..] == b"PAR1" {
        u32::from_le_bytes(bytes[len - 8..len - 4].try_into().unwrap()) as usize + 8
    } else {
        len
    }
    .min(len);
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    let mut cuts = vec![
        0,
        4,
        len / 2,
        len - footer_len,
        len - footer_len / 2,
        len - 9,
        len - 8,
        len - 4,
        len - 1,
    ];
    cuts.push(rng.below(len));
    for cut in cuts {
        out.push((
            format!("truncated-at-{cut}"),
            bytes[..cut.min(len)].to_vec(),
        ));
    }
    for i in 0..20 {
        let pos = if i % 2 == 0 {
            rng.below(len)
        } else {
            len - footer_len + rng.below(footer_len)
        };
        let mask = (rng.next() % 255 + 1) as u8;
        let mut v = bytes.to_vec();
        v[pos] ^= mask;
        out.push((format!("flip-{pos}-x{mask:02x}"), v));
    }
    out
}

#[test]
fn corrupted_good_files_do_not_panic() {
    let data = parquet_test_data();
    let scratch = scratch_dir("bad_data-mutated");
    let mut cases: Vec<(String, PathBuf)> = Vec::new();
    for (n, name) in MUTATED.iter().enumerate() {
        let bytes = std::fs::read(data.join(name)).unwrap_or_else(|e| panic!("read {name}: {e}"));
        for (variant, v) in mutations(&bytes, 0x5eed_0000 + n as u64) {
            let path = scratch.join(format!("{name}.{variant}"));
            std::fs::write(&path, v).expect("write variant");
            cases.push((format!("{name} {variant}"), path));
        }
    }
    let results = par_map(&cases, threads(), |(label, path)| {
        let run = parq_cat(path, &[], &scratch);
        let err = if let Some(c) = run.crash() {
            Some(format!("{label}: {c}"))
        } else if !run.success() && run.stderr.trim().is_empty() {
            Some(format!("{label}: exit {:?} without a message", run.code))
        } else {
            None
        };
        let line = if run.success() {
            "exit 0".to_string()
        } else {
            run.describe_error()
        };
        (label.clone(), line, err)
    });
    let mut errors = Vec::new();
    let mut ok = 0;
    for (label, line, err) in &results {
        eprintln!("{label:60} {}", clip(line, 160));
        if line == "exit 0" {
            ok += 1;
        }
        errors.extend(err.clone());
    }
    eprintln!(
        "mutated files: {} variants, {} read without error, {} failures",
        results.len(),
        ok,
        errors.len()
    );
    if errors.is_empty() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
    assert!(
        errors.is_empty(),
        "corrupted files:\n  {}",
        errors.join("\n  ")
    );
}
