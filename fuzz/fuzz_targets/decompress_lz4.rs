//! `Decompressor::decompress` and `decompress_to_slice` for Lz4, with an arbitrary declared
//! size (first 4 bytes of the input); see `parq_fuzz::fuzz_decompress`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq_codecs::compression::CodecKind;

fuzz_target!(|data: &[u8]| parq_fuzz::fuzz_decompress(CodecKind::Lz4, data));
