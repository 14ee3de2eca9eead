//! Structure-aware: the input is an `arbitrary` `parq::testing::FileSpec` (schema, values and
//! writer options, all steered by the fuzzer's bytes), so every input is a valid file. Write
//! it, read every field back with parq, and require the values bit for bit; read it again in
//! batches (`array_batches`, and `batches` for flat files) of a size and a byte-array layout
//! (offsets or views) the input chooses, and require the same rows; then corrupt the file
//! with one named near-valid mutation (chosen by the input) and read it again: an error is
//! fine, a panic is not.
//!
//! Byte mutation of real files (`read_file`) mostly ends at the first length check; here the
//! decoders see every encoding × codec × page version × nesting the writer produces.
#![no_main]

use arbitrary::{Arbitrary, Unstructured};
use bytes::Bytes;
use libfuzzer_sys::fuzz_target;
use parq::array::Array;
use parq::read::{ByteArrayLayout, ParquetReader, ReadOptions};
use parq::testing::{compare, mutate, FileSpec, Mutation, ParqReader};

fn read_all(bytes: Vec<u8>) -> parq::Result<()> {
    let reader = ParquetReader::new(Bytes::from(bytes))?;
    for i in 0..reader.fields()?.len() {
        reader.read_field(i)?;
    }
    Ok(())
}

/// Batches of `batch` rows, concatenated, are the expected rows.
fn check_batches(
    spec: &FileSpec,
    bytes: &[u8],
    expected: &[Array],
    layout: ByteArrayLayout,
    batch: usize,
) {
    let options = ReadOptions::default().with_byte_array_layout(layout);
    let reader = ParquetReader::with_options(Bytes::copy_from_slice(bytes), options).unwrap();
    let names: Vec<&str> = spec.fields.iter().map(|f| f.name.as_str()).collect();
    let mut at = 0;
    for b in reader.array_batches(&names, batch).unwrap() {
        let b = b.unwrap_or_else(|e| panic!("array_batches({batch}): {e}\n{spec:#?}"));
        for ((f, got), want) in spec.fields.iter().zip(&b.arrays).zip(expected) {
            for r in 0..b.num_rows {
                assert_eq!(
                    got.value(r),
                    want.value(at + r),
                    "array_batches({batch}, {layout:?}): {} row {}\n{spec:#?}",
                    f.name,
                    at + r
                );
            }
        }
        at += b.num_rows;
    }
    assert_eq!(at, spec.num_rows(), "array_batches({batch}) rows");
    if spec.fields.iter().all(|f| f.is_primitive()) {
        let leaves: Vec<usize> = (0..spec.fields.len()).collect();
        let mut at = 0;
        for b in reader.batches(&leaves, batch).unwrap() {
            let b = b.unwrap_or_else(|e| panic!("batches({batch}): {e}\n{spec:#?}"));
            for ((f, got), want) in spec.fields.iter().zip(&b.columns).zip(expected) {
                let want = want.as_primitive().unwrap();
                for r in 0..b.num_rows {
                    assert_eq!(
                        got.value_bytes(r),
                        want.value_bytes(at + r),
                        "batches({batch}, {layout:?}): {} row {}\n{spec:#?}",
                        f.name,
                        at + r
                    );
                }
            }
            at += b.num_rows;
        }
        assert_eq!(at, spec.num_rows(), "batches({batch}) rows");
    }
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
    let layout = if u.arbitrary::<bool>().unwrap_or(false) {
        ByteArrayLayout::Views
    } else {
        ByteArrayLayout::Offsets
    };
    let batch = 1 + u.choose_index(64).unwrap_or(0);
    check_batches(&spec, &bytes, &expected, layout, batch);
    let kind = Mutation::ALL[u.choose_index(Mutation::ALL.len()).unwrap_or(0)];
    if let Some(m) = mutate(&bytes, kind) {
        let _ = read_all(m.bytes);
    }
});
