//! `parq_codecs` (package `parq-format-codecs`): every encoding and compression codec Apache
//! Parquet defines, as pure functions over bytes.
//!
//! This crate knows Parquet's encodings (PLAIN, RLE/bit-packed hybrid, dictionary, the delta
//! family, BYTE_STREAM_SPLIT) and compression codecs, and nothing about files, schemas or
//! metadata. Decoders take untrusted bytes and return [`Error`] rather than panic. The hot
//! loops live in [`kernels`], the only module allowed to use `unsafe`.
//!
//! Fast paths bump counters in [`probe`] when the `probes` feature is on.
#![deny(missing_docs)]

pub mod compression;
pub mod encoding;
mod error;
pub mod kernels;
pub mod levels;
pub mod nested_levels;
pub mod probe;

pub use error::{Error, Result};
pub use kernels::simd;
