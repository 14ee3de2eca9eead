//! Codecs as cargo features: in every build (all codecs, none, one alone), a compiled-in codec
//! round-trips and a compiled-out one is an error that names the feature to turn on.

use super::*;

/// The cargo feature that compiles `kind` in.
fn feature_of(kind: CodecKind) -> Option<&'static str> {
    match kind {
        CodecKind::Uncompressed | CodecKind::Lzo => None,
        CodecKind::Snappy => Some("snappy"),
        CodecKind::Gzip => Some("gzip"),
        CodecKind::Brotli => Some("brotli"),
        CodecKind::Lz4 | CodecKind::Lz4Raw => Some("lz4"),
        CodecKind::Zstd => Some("zstd"),
    }
}

#[test]
fn available_codecs_round_trip_and_missing_ones_name_their_feature() {
    let page = b"parquet pages compress ".repeat(64);
    let mut decompressor = Decompressor::default();
    for kind in CodecKind::ALL {
        match new_codec(kind, None) {
            Ok(mut codec) => {
                assert!(is_available(kind), "{kind} built but reported unavailable");
                let mut compressed = Vec::new();
                codec.compress(&page, &mut compressed).unwrap();
                let mut out = Vec::new();
                decompressor
                    .decompress(kind, &compressed, page.len(), &mut out)
                    .unwrap();
                assert_eq!(out, page, "{kind}");
            }
            Err(e) => {
                assert!(!is_available(kind), "{kind} available but failed: {e}");
                let Some(feature) = feature_of(kind) else {
                    assert_eq!(kind, CodecKind::Lzo);
                    continue;
                };
                let message = e.to_string();
                assert!(
                    message.contains(&format!("cargo feature `{feature}`")),
                    "{kind}: {message}"
                );
                // Decompressing a page of a compiled-out codec gives the same error.
                let err = decompressor
                    .decompress(kind, &page[..10], 10, &mut Vec::new())
                    .unwrap_err();
                assert_eq!(err.to_string(), message);
            }
        }
    }
}

#[test]
fn availability_follows_the_features() {
    assert_eq!(is_available(CodecKind::Snappy), cfg!(feature = "snappy"));
    assert_eq!(is_available(CodecKind::Zstd), cfg!(feature = "zstd"));
    assert_eq!(is_available(CodecKind::Gzip), cfg!(feature = "gzip"));
    assert_eq!(is_available(CodecKind::Lz4Raw), cfg!(feature = "lz4"));
    assert_eq!(is_available(CodecKind::Brotli), cfg!(feature = "brotli"));
    assert!(is_available(CodecKind::Uncompressed));
    assert!(!is_available(CodecKind::Lzo));
}
