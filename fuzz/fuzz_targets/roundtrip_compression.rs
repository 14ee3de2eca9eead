//! Every codec (arbitrary level): compress, then decompress through `Decompressor` (declared
//! size = original length) and through the codec itself; the bytes come back.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::compression::{new_codec, CodecKind, Decompressor, Limits};
use parq_fuzz::kind_of;

#[derive(Arbitrary, Debug)]
struct Input {
    kind: u8,
    level: Option<i8>,
    /// Compress twice with the same codec (reused state).
    twice: bool,
    data: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let kind = kind_of(input.kind);
    // Brotli and zstd's top levels are slow; the levels' code paths are the libraries'.
    let level = input.level.map(|l| match kind {
        CodecKind::Zstd => l as i32 % 20,
        _ => l as i32,
    });
    let Ok(mut codec) = new_codec(kind, level) else {
        return;
    };
    let data = &input.data[..];
    let mut compressed = vec![0x11u8];
    codec.compress(data, &mut compressed).unwrap();
    if input.twice {
        let mut again = Vec::new();
        codec.compress(data, &mut again).unwrap();
        assert_eq!(
            again,
            compressed[1..],
            "{kind}: compression not deterministic across calls"
        );
    }
    let compressed = &compressed[1..];
    let mut d = Decompressor::new(Limits::default());
    let mut out = vec![0x22u8];
    d.decompress(kind, compressed, data.len(), &mut out)
        .unwrap_or_else(|e| panic!("{kind}: own output refused: {e}"));
    assert_eq!(&out[1..], data, "{kind}: round trip");
    let mut out2 = Vec::new();
    codec
        .decompress(compressed, data.len(), &mut out2)
        .unwrap_or_else(|e| panic!("{kind}: codec refused its own output: {e}"));
    assert_eq!(out2, data);
});
