//! Appending plain-old-data values from unaligned bytes without zero-filling first.
//!
//! `Vec::resize` followed by `copy_from_slice` writes the destination twice (a memset, then
//! the copy) and, for fresh memory, takes the page faults inside the memset. Copying straight
//! into the vector's spare capacity writes it once.

use bytemuck::Pod;

/// Append `bytes.len() / size_of::<T>()` values read from `bytes` (any alignment) to `out`.
///
/// # Panics
/// If `bytes.len()` is not a multiple of `size_of::<T>()` (a caller bug, not an input error).
pub fn extend_from_unaligned<T: Pod>(out: &mut Vec<T>, bytes: &[u8]) {
    let size = std::mem::size_of::<T>();
    assert!(
        size > 0 && bytes.len() % size == 0,
        "byte length must be a multiple of the value size"
    );
    let n = bytes.len() / size;
    out.reserve(n);
    let start = out.len();
    // SAFETY: `reserve(n)` guarantees capacity for `start + n` values, so the destination
    // range `start..start + n` (n * size bytes) lies inside the allocation and does not
    // overlap `bytes` (a shared borrow cannot alias the vector's unique buffer). Copying as
    // bytes has no alignment requirement. Every byte of the new values is written before
    // `set_len`, and `T: Pod` makes any bit pattern a valid `T`.
    unsafe {
        let dst = out.as_mut_ptr().add(start).cast::<u8>();
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), dst, bytes.len());
        out.set_len(start + n);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_unaligned_values() {
        let raw: Vec<u8> = (0u8..=40).collect();
        for skew in 0..8 {
            let bytes = &raw[skew..skew + 32];
            let mut out = vec![7u64];
            extend_from_unaligned(&mut out, bytes);
            let want: Vec<u64> = bytes
                .chunks_exact(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(out[0], 7);
            assert_eq!(&out[1..], &want[..]);
        }
        let mut empty: Vec<u32> = Vec::new();
        extend_from_unaligned(&mut empty, &[]);
        assert!(empty.is_empty());
    }
}
