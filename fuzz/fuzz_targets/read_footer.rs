//! Thrift metadata decoders on arbitrary bytes: `decode_file_metadata`, `decode_page_header`,
//! `decode_column_index`, `decode_offset_index`, `decode_bloom_filter_header` and
//! `decode_footer`. What decodes re-encodes to bytes that decode and re-encode to the same
//! bytes (compared as bytes: float statistics may be NaN).
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::metadata;

fuzz_target!(|data: &[u8]| {
    if let Ok(m) = metadata::decode_file_metadata(data) {
        let mut b1 = Vec::new();
        metadata::encode_file_metadata(&m, &mut b1);
        let m2 = metadata::decode_file_metadata(&b1).expect("re-encoded metadata fails to decode");
        let mut b2 = Vec::new();
        metadata::encode_file_metadata(&m2, &mut b2);
        assert_eq!(b1, b2, "file metadata not stable under re-encoding");
    }
    if let Ok((h, used)) = metadata::decode_page_header(data) {
        assert!(used <= data.len());
        let mut b1 = Vec::new();
        metadata::encode_page_header(&h, &mut b1);
        let (h2, used2) = metadata::decode_page_header(&b1).expect("re-encoded header fails");
        assert_eq!(used2, b1.len());
        assert_eq!(h, h2, "page header changed by re-encoding");
    }
    if let Ok(c) = metadata::decode_column_index(data) {
        let mut b1 = Vec::new();
        metadata::encode_column_index(&c, &mut b1);
        let c2 = metadata::decode_column_index(&b1).expect("re-encoded column index fails");
        let mut b2 = Vec::new();
        metadata::encode_column_index(&c2, &mut b2);
        assert_eq!(b1, b2);
    }
    if let Ok(o) = metadata::decode_offset_index(data) {
        let mut b1 = Vec::new();
        metadata::encode_offset_index(&o, &mut b1);
        let o2 = metadata::decode_offset_index(&b1).expect("re-encoded offset index fails");
        assert_eq!(o, o2);
    }
    if let Ok((h, used)) = metadata::decode_bloom_filter_header(data) {
        assert!(used <= data.len());
        let mut b1 = Vec::new();
        metadata::encode_bloom_filter_header(&h, &mut b1);
        let (h2, used2) =
            metadata::decode_bloom_filter_header(&b1).expect("re-encoded bloom header fails");
        assert_eq!(used2, b1.len());
        assert_eq!(h, h2, "bloom filter header changed by re-encoding");
    }
    let _ = metadata::decode_footer(data);
});
