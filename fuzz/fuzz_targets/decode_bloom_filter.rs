//! A serialized bloom filter (header, then bitset) from arbitrary bytes: `Sbbf::decode` gives
//! a filter or an error, never a panic or an allocation the input does not back. A filter
//! that decodes answers `check_hash` for any hash, keeps every hash inserted into it, and
//! serializes back to the header and bitset it was read from.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::bloom::{hash_bytes, Sbbf};
use parq::metadata;

fuzz_target!(|data: &[u8]| {
    let Ok(mut filter) = Sbbf::decode(data) else {
        return;
    };
    let (_, header_len) = metadata::decode_bloom_filter_header(data).expect("decoded before");
    let mut out = Vec::new();
    filter.write_bitset(&mut out);
    assert_eq!(out, data[header_len..header_len + filter.num_bytes()]);
    for chunk in data.chunks(8).take(64) {
        let h = hash_bytes(chunk);
        let _ = filter.check_hash(h);
        let _ = filter.check_hash(h.rotate_left(17));
        filter.insert_hash(h);
        assert!(filter.check_hash(h), "an inserted hash is missing");
    }
});
