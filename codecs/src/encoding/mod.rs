//! Parquet's encodings: <https://github.com/apache/parquet-format/blob/master/Encodings.md>.
//!
//! Each submodule is stateless functions (`encode_into` / `decode_into` style) plus, where a
//! decoder must be resumable across calls, an `XxxDecoder` type.

pub mod bitpack;
pub mod byte_stream_split;
pub mod delta;
pub mod dictionary;
pub mod plain;
pub mod rle;
