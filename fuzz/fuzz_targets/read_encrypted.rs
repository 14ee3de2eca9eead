//! An encrypted Parquet file from arbitrary bytes, opened with fixed keys (those of
//! parquet-testing's encrypted files): the first byte picks the key set (bit 1: 128- or
//! 256-bit keys; bit 0: the AAD prefix "tester"; bit 2: skip the plaintext footer's signature
//! check, so that mutated plaintext footers reach the schema, the column metadata and the
//! plaintext columns), the rest is the file. Open it, read every flat
//! column, every top-level field and every page index. Errors are fine (almost every
//! mutation fails authentication); a panic, a hang or an allocation past the limits is not,
//! and whatever decodes must be well formed.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::encryption::FileDecryptionProperties;
use parq::read::{ParquetReader, ReadOptions};

/// Footer key and the column keys of parquet-testing/data/README.md.
fn props(selector: u8) -> FileDecryptionProperties {
    let wide = selector & 2 != 0;
    let mut b = FileDecryptionProperties::builder();
    if wide {
        b = b.with_footer_key(b"01234567890123456789012345678901".to_vec());
        for (c, last) in [
            ("double_field", b'2'),
            ("float_field", b'3'),
            ("boolean_field", b'4'),
            ("int32_field", b'5'),
            ("ba_field", b'6'),
            ("flba_field", b'7'),
            ("int64_field.list.element", b'8'),
            ("int96_field", b'9'),
        ] {
            let mut k = b"1234567890123456789012345678901".to_vec();
            k.push(last);
            b = b.with_column_key(c, k);
        }
    } else {
        b = b
            .with_footer_key(b"0123456789012345".to_vec())
            .with_column_key("double_field", b"1234567890123450".to_vec())
            .with_column_key("float_field", b"1234567890123451".to_vec());
    }
    if selector & 1 != 0 {
        b = b.with_aad_prefix(b"tester".to_vec());
    }
    if selector & 4 != 0 {
        b = b.without_footer_signature_verification();
    }
    b.build().expect("fixed keys are valid")
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, file)) = data.split_first() else {
        return;
    };
    let opts = ReadOptions::default()
        .with_max_memory(64 << 20)
        .with_decryption(Some(props(selector)));
    let Ok(reader) = ParquetReader::with_options(bytes::Bytes::copy_from_slice(file), opts) else {
        return;
    };
    let leaves = reader.schema().leaves.len();
    for i in 0..leaves {
        if let Ok(c) = reader.read_column(i) {
            if let Some(v) = &c.validity {
                assert_eq!(v.len(), c.len, "validity length");
            }
            for j in 0..c.len {
                let _ = c.bytes(j);
            }
        }
    }
    if let Ok(fields) = reader.fields() {
        for i in 0..fields.len() {
            if let Ok((_, a)) = reader.read_field(i) {
                if let Some(v) = a.validity() {
                    assert_eq!(v.len(), a.len(), "field validity length");
                }
            }
        }
    }
    for rg in 0..reader.metadata().row_groups.len() {
        for c in 0..leaves {
            let _ = reader.read_column_index(rg, c);
            let _ = reader.read_offset_index(rg, c);
        }
    }
});
