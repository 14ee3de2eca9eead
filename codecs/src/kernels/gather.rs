//! Gathering dictionary values by index: fixed-width values ([`gather_fixed`]), and byte
//! arrays into Arrow offsets + data ([`ByteArrayDictionary::gather`]).
//!
//! Fixed-width values: one bounds check for a whole chunk of indices (their maximum), then a
//! loop without a check per value, four values per step. The same loop serves every level: a
//! dictionary of a few thousand entries sits in L1, where scalar loads (two or three a cycle
//! on current x86-64 and aarch64 cores) keep up with AVX2's `vpgatherdd`, which Zen 4 and
//! Ice Lake run at about one element a cycle.
//!
//! Dictionary-encoded strings are mostly short. Copying each with `extend_from_slice` pays a
//! `memcpy` call per value; here the output is reserved once, and every value of up to
//! `BLOCK` bytes is copied as one fixed-size block (the dictionary carries `BLOCK` bytes of
//! padding and the output `BLOCK` bytes of spare capacity, so the over-read and over-write stay
//! in bounds; the next value overwrites the excess).

use super::byte_arrays::Offset;
use super::copy::BLOCK;
use crate::{Error, Result};

/// The first index of `indices` that is `>= len`, as an error; `Ok` if there is none.
pub(crate) fn check_indices(indices: &[u32], len: usize) -> Result<()> {
    // Branch-free maximum first (it vectorises); search for the culprit only on failure.
    let max = indices.iter().copied().fold(0u32, u32::max);
    if indices.is_empty() || (max as usize) < len {
        return Ok(());
    }
    let bad = indices
        .iter()
        .copied()
        .find(|&i| i as usize >= len)
        .unwrap_or(max);
    Err(Error::IndexOutOfRange {
        index: bad as u64,
        len,
    })
}

/// Append `dict[i]` for every index to `out`. Errors, appending nothing, on an index out of
/// range. Compiled for AVX2 at that level (see [`super::v3`]): probes `kernels.gather.avx2` /
/// `kernels.gather.scalar`.
pub fn gather_fixed<T: Copy>(dict: &[T], indices: &[u32], out: &mut Vec<T>) -> Result<()> {
    check_indices(indices, dict.len())?;
    struct Loop<'a, T> {
        dict: &'a [T],
        indices: &'a [u32],
        out: &'a mut Vec<T>,
    }
    impl<T: Copy> super::v3::Body for Loop<'_, T> {
        type Output = ();
        #[inline(always)]
        fn call<M: super::v3::LevelMasks>(self, _: M) {
            // SAFETY: `gather_fixed` checked every index against `dict.len()` just above.
            unsafe { gather_checked(self.dict, self.indices, self.out) }
        }
    }
    let body = Loop { dict, indices, out };
    super::v3::run("kernels.gather.avx2", "kernels.gather.scalar", body);
    Ok(())
}

/// [`gather_fixed`]'s loop.
///
/// # Safety
///
/// Every index must be `< dict.len()`.
#[inline(always)]
unsafe fn gather_checked<T: Copy>(dict: &[T], indices: &[u32], out: &mut Vec<T>) {
    out.reserve(indices.len());
    let base = out.len();
    let src = dict.as_ptr();
    // SAFETY: `reserve` made room for `indices.len()` more values after `base`.
    let dst = unsafe { out.as_mut_ptr().add(base) };
    let mut quads = indices.chunks_exact(4);
    let mut k = 0usize;
    for q in &mut quads {
        // SAFETY: every index is `< dict.len()` (the contract), so each read is in bounds;
        // `k + 3 < indices.len()`, so each write is inside the reserved capacity. `dict` and
        // `out` are different allocations (one is borrowed shared, the other mutably).
        unsafe {
            let v = [
                *src.add(q[0] as usize),
                *src.add(q[1] as usize),
                *src.add(q[2] as usize),
                *src.add(q[3] as usize),
            ];
            dst.add(k).cast::<[T; 4]>().write_unaligned(v);
        }
        k += 4;
    }
    for &i in quads.remainder() {
        // SAFETY: as above, `i < dict.len()` and `k < indices.len()`.
        unsafe { dst.add(k).write(*src.add(i as usize)) };
        k += 1;
    }
    // SAFETY: the loops wrote all `indices.len()` values after `base`, inside the capacity.
    unsafe { out.set_len(base + indices.len()) };
}

/// Indices [`ByteArrayDictionary::gather`] takes in one stretch: their dictionary offsets
/// (two lines at most each) stay in L1 between its two passes.
const STRETCH: usize = 64;

/// A byte-array dictionary, validated once so that gathers index it without checks.
#[derive(Debug, Clone, Default)]
pub struct ByteArrayDictionary {
    /// `len + 1` monotonic offsets into `data`, starting at 0.
    offsets: Vec<i64>,
    /// The values back to back, then `BLOCK` zero bytes of padding.
    data: Vec<u8>,
}

impl ByteArrayDictionary {
    /// Take offsets (`len + 1` entries, first 0, monotonic, last = `data.len()`) and data.
    pub fn new(offsets: Vec<i64>, mut data: Vec<u8>) -> Result<Self> {
        let bad = Error::InvalidData {
            offset: 0,
            what: "dictionary offsets are not monotonic within the data",
        };
        if offsets.first() != Some(&0) || offsets.last() != Some(&(data.len() as i64)) {
            return Err(bad);
        }
        if offsets.windows(2).any(|w| w[1] < w[0]) {
            return Err(bad);
        }
        data.extend_from_slice(&[0; BLOCK]);
        Ok(ByteArrayDictionary { offsets, data })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.offsets.len() - 1
    }

    /// Bytes of all entries together.
    pub fn data_len(&self) -> usize {
        self.data.len() - BLOCK
    }

    /// True when the dictionary has no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Entry `i`.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let (s, e) = (*self.offsets.get(i)?, *self.offsets.get(i + 1)?);
        Some(&self.data[s as usize..e as usize])
    }

    /// Append `dict[i]` for every index to `data`, and its end offset to `offsets` (whose last
    /// element is the current end of `data`, as in Arrow; a leading 0 is pushed if empty).
    /// Errors, appending nothing, on an index out of range.
    ///
    /// Offsets are i64 or i32 ([`Offset`]): the running end is kept in i64 and each offset
    /// stored truncated, so with i32 the caller checks that the bytes stay within `i32::MAX`.
    pub fn gather<O: Offset>(
        &self,
        indices: &[u32],
        offsets: &mut Vec<O>,
        data: &mut Vec<u8>,
    ) -> Result<()> {
        let entries = self.len();
        check_indices(indices, entries)?;
        if offsets.is_empty() {
            offsets.push(O::truncate(data.len() as i64));
        }
        // Stretches of `STRETCH` indices, each in two passes: its offsets, then its bytes. The
        // second pass finds the stretch's dictionary offsets still in L1; over a whole batch
        // (a dictionary of 10,000 entries is 80 KB of offsets) each was a miss twice.
        for stretch in indices.chunks(STRETCH) {
            // SAFETY: every index was checked against `entries` just above.
            unsafe { self.gather_checked(stretch, offsets, data) };
        }
        Ok(())
    }

    /// [`gather`](Self::gather) of one stretch, after the leading offset: offsets first, in
    /// one pass without per-push capacity checks (the iterator's length is exact); the copy
    /// loop then only moves bytes.
    ///
    /// # Safety
    ///
    /// Every index must be `< self.len()`, and `offsets` must not be empty.
    #[inline(always)]
    unsafe fn gather_checked<O: Offset>(
        &self,
        indices: &[u32],
        offsets: &mut Vec<O>,
        data: &mut Vec<u8>,
    ) {
        let first: i64 = (*offsets.last().unwrap_or(&O::default())).into();
        let mut end = first;
        let starts = self.offsets.as_ptr();
        offsets.extend(indices.iter().map(|&i| {
            let i = i as usize;
            // SAFETY: every index is `< self.len()` (the contract), and `self.offsets` holds
            // `len + 1` elements, so `i` and `i + 1` are in bounds.
            end += unsafe { *starts.add(i + 1) - *starts.add(i) };
            O::truncate(end)
        }));
        let total = (end - first) as usize;
        data.reserve(total + BLOCK);
        let base = data.len();
        let mut pos = 0usize;
        let src_base = self.data.as_ptr();
        let dst_base = data.as_mut_ptr();
        for &i in indices {
            let i = i as usize;
            // SAFETY: as above, `i + 1 <= self.len()` indexes `self.offsets`.
            let (start, stop) = unsafe { (*starts.add(i), *starts.add(i + 1)) };
            let (start, len) = (start as usize, (stop - start) as usize);
            // SAFETY: `i < self.len()` (the contract), and `new` guaranteed the offsets are
            // monotonic within the value bytes, so `start + len <= data.len() - BLOCK` and
            // `start + BLOCK <= self.data.len()` (the padding): both source ranges are in
            // bounds. The destination: `pos + len <= total` for every value (the lengths sum
            // to `total`), and `reserve(total + BLOCK)` made room for `base + total + BLOCK`
            // bytes, so `base + pos + max(len, BLOCK)` stays inside the allocation. Source and
            // destination are different allocations. Bytes written past `base + total` are
            // outside the final length and never read.
            unsafe {
                let src = src_base.add(start);
                let dst = dst_base.add(base + pos);
                if len <= BLOCK {
                    std::ptr::copy_nonoverlapping(src, dst, BLOCK);
                } else {
                    std::ptr::copy_nonoverlapping(src, dst, len);
                }
            }
            pos += len;
        }
        // SAFETY: the loop wrote every byte of `base..base + total` (values are written in
        // order, each starting where the previous ended), and capacity covers it.
        unsafe { data.set_len(base + total) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn dict(values: &[Vec<u8>]) -> ByteArrayDictionary {
        let mut offsets = vec![0i64];
        let mut data = Vec::new();
        for v in values {
            data.extend_from_slice(v);
            offsets.push(data.len() as i64);
        }
        ByteArrayDictionary::new(offsets, data).unwrap()
    }

    proptest! {
        #[test]
        fn gather_equals_naive(
            values in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..40), 1..20),
            picks in proptest::collection::vec(any::<u32>(), 0..200),
            prefix in proptest::collection::vec(any::<u8>(), 0..5),
        ) {
            let d = dict(&values);
            let indices: Vec<u32> = picks.iter().map(|p| p % values.len() as u32).collect();
            let mut offsets = vec![prefix.len() as i64];
            let mut data = prefix.clone();
            d.gather(&indices, &mut offsets, &mut data).unwrap();
            let mut want = prefix.clone();
            let mut want_offsets = vec![prefix.len() as i64];
            for &i in &indices {
                want.extend_from_slice(&values[i as usize]);
                want_offsets.push(want.len() as i64);
            }
            prop_assert_eq!(&data, &want);
            prop_assert_eq!(&offsets, &want_offsets);
            // With i32 offsets: the same ends, the same bytes.
            let (mut small, mut small_data) = (vec![prefix.len() as i32], prefix.clone());
            d.gather(&indices, &mut small, &mut small_data).unwrap();
            prop_assert_eq!(small_data, want);
            prop_assert_eq!(small, want_offsets.iter().map(|&o| o as i32).collect::<Vec<i32>>());
        }
    }

    proptest! {
        #[test]
        fn gather_fixed_equals_naive(
            dict in proptest::collection::vec(any::<u64>(), 1..40),
            picks in proptest::collection::vec(any::<u32>(), 0..200),
            prefix in proptest::collection::vec(any::<u64>(), 0..5),
        ) {
            let indices: Vec<u32> = picks.iter().map(|p| p % dict.len() as u32).collect();
            let mut want = prefix.clone();
            want.extend(indices.iter().map(|&i| dict[i as usize]));
            for level in crate::simd::available() {
                let mut out = prefix.clone();
                crate::simd::with_level(level, || gather_fixed(&dict, &indices, &mut out))
                    .unwrap()
                    .unwrap();
                prop_assert_eq!(&out, &want, "{}", level);
            }
        }
    }

    /// Each level takes its own compiled form of the gather, and says so in its probes.
    #[cfg(feature = "probes")]
    #[test]
    fn gather_probes_name_the_level() {
        use crate::probe;
        let dict: Vec<u64> = (0..100).collect();
        let indices: Vec<u32> = (0..37).map(|i| (i * 7) % 100).collect();
        for level in crate::simd::available() {
            probe::reset();
            let mut out = Vec::new();
            crate::simd::with_level(level, || gather_fixed(&dict, &indices, &mut out))
                .unwrap()
                .unwrap();
            assert_eq!(out, indices.iter().map(|&i| i as u64).collect::<Vec<_>>());
            let v3 = level.has_avx2();
            let got = (
                probe::get("kernels.gather.avx2"),
                probe::get("kernels.gather.scalar"),
            );
            assert_eq!(got, (v3 as u64, !v3 as u64), "{level}");
        }
    }

    #[test]
    fn gather_fixed_rejects_bad_indices() {
        let mut out = vec![7u32];
        let e = gather_fixed(&[1u32, 2, 3], &[0, 1, 2, 3, 0], &mut out).unwrap_err();
        assert!(
            matches!(e, Error::IndexOutOfRange { index: 3, len: 3 }),
            "{e:?}"
        );
        assert_eq!(out, [7]);
        assert!(gather_fixed(&[] as &[u32], &[0], &mut out).is_err());
        gather_fixed(&[] as &[u32], &[], &mut out).unwrap();
        assert_eq!(out, [7]);
    }

    #[test]
    fn rejects_bad_indices_and_offsets() {
        let d = dict(&[b"a".to_vec(), b"bc".to_vec()]);
        let (mut o, mut v) = (vec![0], Vec::new());
        assert!(d.gather(&[0, 2], &mut o, &mut v).is_err());
        assert_eq!((o.len(), v.len()), (1, 0));
        assert!(ByteArrayDictionary::new(vec![0, 3, 2], vec![0; 3]).is_err());
        assert!(ByteArrayDictionary::new(vec![0, 4], vec![0; 3]).is_err());
        assert!(ByteArrayDictionary::new(vec![1, 3], vec![0; 3]).is_err());
        assert!(ByteArrayDictionary::new(vec![0], vec![])
            .unwrap()
            .is_empty());
    }
}
