//! A downstream fuzz target on `parq::testing` (feature `testing`).
//!
//! In a cargo-fuzz crate, [`fuzz_one`] is the whole target:
//!
//! ```text
//! fuzz_target!(|data: &[u8]| fuzz_one(data));
//! ```
//!
//! The fuzzer's bytes become a valid [`FileSpec`] (`arbitrary`), which is written and read
//! back by the reader under test (here parq's own; plug in yours through
//! `ParquetReadUnderTest`), then one named near-valid corruption of the same file must be an
//! error, never a panic. So the fuzzer explores schemas, encodings, codecs and page versions
//! instead of dying at the footer's first length check.
//!
//! This example drives it from a `main` over pseudo-random inputs:
//! `cargo run --features testing --example fuzz_target -- [inputs]`.

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use parq::read::ParquetReader;
use parq::testing::{check_roundtrip_with, mutate, Entropy, FileSpec, Mutation, ParqReader, Rng};

/// The body of the fuzz target.
fn fuzz_one(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(spec) = FileSpec::arbitrary(&mut u) else {
        return;
    };
    if let Err(m) = check_roundtrip_with(&ParqReader, &spec) {
        panic!("{m}\n{spec:#?}");
    }
    let kind = Mutation::ALL[u.choose_index(Mutation::ALL.len()).unwrap_or(0)];
    let Ok((bytes, _)) = spec.write() else {
        return;
    };
    if let Some(m) = mutate(&bytes, kind) {
        let read = || -> parq::Result<()> {
            let reader = ParquetReader::new(Bytes::from(m.bytes.clone()))?;
            for i in 0..reader.fields()?.len() {
                reader.read_field(i)?;
            }
            Ok(())
        };
        // Ok is possible: a reader may skip the levels of a page without nulls.
        if let Err(e) = read() {
            assert!(
                kind.named_by(&e.to_string()),
                "{kind} ({}): the error does not name it: {e}",
                m.description
            );
        }
    }
}

fn main() {
    let inputs: u64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000);
    let mut rng = Rng::new(0x5eed);
    let mut data = Vec::new();
    for _ in 0..inputs {
        let len = rng.below(4096) as usize;
        data.clear();
        data.extend((0..len).map(|_| rng.bits() as u8));
        fuzz_one(&data);
    }
    println!("fuzz_target: {inputs} inputs, no failure");
}
