//! Structure-aware: the input is an `arbitrary` `parq::testing::FileSpec` (schema, values and
//! writer options, all steered by the fuzzer's bytes), so every input is a valid file. Write
//! it, read every field back with parq, and require the values bit for bit; then corrupt the
//! file with one named near-valid mutation (chosen by the input) and read it again: an error
//! is fine, a panic is not.
//!
//! Byte mutation of real files (`read_file`) mostly ends at the first length check; here the
//! decoders see every encoding × codec × page version × nesting the writer produces.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use parq::read::ParquetReader;
use parq::testing::{compare, mutate, FileSpec, Mutation, ParqReader};

fn read_all(bytes: Vec<u8>) -> parq::Result<()> {
    let reader = ParquetReader::new(Bytes::from(bytes))?;
    for i in 0..reader.fields()?.len() {
        reader.read_field(i)?;
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let mut u = Unstructured::new(data);
    let Ok(spec) = FileSpec::arbitrary(&mut u) else {
        return;
    };
    let (bytes, expected) = spec
        .write()
        .unwrap_or_else(|e| panic!("a valid spec failed to write: {e}\n{spec:#?}"));
    if let Err(m) = compare(&ParqReader, &spec, &bytes, &expected) {
        panic!("{m}\n{spec:#?}");
    }
    let kind = Mutation::ALL[u.choose_index(Mutation::ALL.len()).unwrap_or(0)];
    if let Some(m) = mutate(&bytes, kind) {
        let _ = read_all(m.bytes);
    }
});
