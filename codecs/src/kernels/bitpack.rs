//! Bit unpacking and packing kernels (scalar groups; per-width kernels in progress).

use crate::encoding::bitpack::BitPackable;

/// Unpack as many whole groups of values as the kernels handle; returns how many values were
/// written (a multiple of 8). `input` holds at least `ceil(out.len() * width / 8)` bytes.
pub fn unpack_groups<T: BitPackable>(input: &[u8], width: u32, out: &mut [T]) -> usize {
    let _ = (input, width, out);
    0
}

/// Pack as many whole groups of values as the kernels handle, appending to `out`; returns how
/// many values were consumed (a multiple of 8).
pub fn pack_groups<T: BitPackable>(values: &[T], width: u32, out: &mut Vec<u8>) -> usize {
    let _ = (values, width, out);
    0
}
