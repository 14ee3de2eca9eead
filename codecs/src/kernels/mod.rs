//! The hot loops. The only module of this crate where `unsafe` may live.

pub mod bitpack;
pub mod byte_arrays;
pub mod copy;
pub mod expand;
pub mod gather;
pub mod memory;
pub mod pext;
pub mod shuffle;
pub mod simd;
pub mod v3;
