//! Short lists kept inside the footer structs: [`InlineVec`] and [`InlineBytes`].
//!
//! A column chunk's encodings, page encoding counts, level histograms and statistics
//! bounds are a few values each, and a wide footer has tens of thousands of chunks: held in
//! `Vec`s they were most of the footer's allocations. These types hold up to a fixed number
//! of values in place and move to the heap only beyond it.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

use super::thrift::{ty, CompactReader, CompactWriter};
use super::thrift_struct::Value;
use crate::Result;

/// A list of up to `N` values held in place, on the heap beyond (`N` at most 255).
///
/// It reads as a slice (`Deref<Target = [T]>`); equality, hashing and `Debug` are those of
/// the slice, wherever the values are kept. On the wire it is a Thrift `list<T>`, like
/// `Vec<T>`, element for element.
#[derive(Clone)]
pub struct InlineVec<T: Copy + Default, const N: usize>(Repr<T, N>);

#[derive(Clone)]
enum Repr<T, const N: usize> {
    Inline { len: u8, items: [T; N] },
    Heap(Vec<T>),
}

impl<T: Copy + Default, const N: usize> InlineVec<T, N> {
    const FITS_LEN: () = assert!(
        N <= u8::MAX as usize,
        "InlineVec holds at most 255 in place"
    );

    /// An empty list (no allocation).
    pub fn new() -> Self {
        let () = Self::FITS_LEN;
        InlineVec(Repr::Inline {
            len: 0,
            items: [T::default(); N],
        })
    }

    /// The values, as a slice.
    pub fn as_slice(&self) -> &[T] {
        match &self.0 {
            Repr::Inline { len, items } => &items[..usize::from(*len)],
            Repr::Heap(v) => v,
        }
    }

    /// The values, as a mutable slice.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.0 {
            Repr::Inline { len, items } => &mut items[..usize::from(*len)],
            Repr::Heap(v) => v,
        }
    }

    /// Appends `v`, moving the values to the heap if it does not fit in place.
    pub fn push(&mut self, v: T) {
        match &mut self.0 {
            Repr::Inline { len, items } if usize::from(*len) < N => {
                items[usize::from(*len)] = v;
                *len += 1;
            }
            Repr::Inline { items, .. } => {
                let mut heap = Vec::with_capacity(N * 2 + 1);
                heap.extend_from_slice(items);
                heap.push(v);
                self.0 = Repr::Heap(heap);
            }
            Repr::Heap(heap) => heap.push(v),
        }
    }

    /// Whether the values are held in place (no allocation).
    pub fn is_inline(&self) -> bool {
        matches!(self.0, Repr::Inline { .. })
    }
}

impl<T: Copy + Default, const N: usize> Default for InlineVec<T, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Copy + Default, const N: usize> Deref for InlineVec<T, N> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default, const N: usize> DerefMut for InlineVec<T, N> {
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: Copy + Default, const N: usize> From<&[T]> for InlineVec<T, N> {
    fn from(s: &[T]) -> Self {
        if s.len() <= N {
            let mut out = Self::new();
            if let Repr::Inline { len, items } = &mut out.0 {
                items[..s.len()].copy_from_slice(s);
                *len = s.len() as u8;
            }
            out
        } else {
            InlineVec(Repr::Heap(s.to_vec()))
        }
    }
}

impl<T: Copy + Default, const N: usize, const M: usize> From<[T; M]> for InlineVec<T, N> {
    fn from(a: [T; M]) -> Self {
        Self::from(&a[..])
    }
}

/// Short vectors move in place (their allocation is freed); longer ones keep it.
impl<T: Copy + Default, const N: usize> From<Vec<T>> for InlineVec<T, N> {
    fn from(v: Vec<T>) -> Self {
        if v.len() <= N {
            Self::from(&v[..])
        } else {
            InlineVec(Repr::Heap(v))
        }
    }
}

impl<T: Copy + Default, const N: usize> From<InlineVec<T, N>> for Vec<T> {
    fn from(v: InlineVec<T, N>) -> Self {
        match v.0 {
            Repr::Inline { .. } => v.as_slice().to_vec(),
            Repr::Heap(heap) => heap,
        }
    }
}

impl<T: Copy + Default, const N: usize> FromIterator<T> for InlineVec<T, N> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut out = Self::new();
        out.extend(iter);
        out
    }
}

impl<T: Copy + Default, const N: usize> Extend<T> for InlineVec<T, N> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

impl<'a, T: Copy + Default, const N: usize> IntoIterator for &'a InlineVec<T, N> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: Copy + Default + fmt::Debug, const N: usize> fmt::Debug for InlineVec<T, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq for InlineVec<T, N> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Eq, const N: usize> Eq for InlineVec<T, N> {}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<[T]> for InlineVec<T, N> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Copy + Default + PartialEq, const N: usize, const M: usize> PartialEq<[T; M]>
    for InlineVec<T, N>
{
    fn eq(&self, other: &[T; M]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<Vec<T>> for InlineVec<T, N> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Hash, const N: usize> Hash for InlineVec<T, N> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

/// A `list<T>`, element for element as `Vec<T>`.
impl<T: Value + Copy + Default, const N: usize> Value for InlineVec<T, N> {
    const TYPE: u8 = ty::LIST;

    fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
        let (et, n) = r.list_begin(t)?;
        let mut out = if n <= N {
            Self::new()
        } else {
            InlineVec(Repr::Heap(r.list_storage(n)?))
        };
        for _ in 0..n {
            out.push(T::read_value(r, et)?);
        }
        r.list_end();
        Ok(out)
    }

    fn write_value(&self, w: &mut CompactWriter<'_>) {
        w.list_header(T::TYPE, self.len());
        for v in self {
            v.write_value(w);
        }
    }
}

/// Bytes held in place up to [`InlineBytes::INLINE`], on the heap beyond: a statistics
/// bound (the 4 to 16 bytes of a number, decimal or UUID, or a short string's prefix).
///
/// It reads as a byte slice (`Deref<Target = [u8]>`); equality, ordering, hashing and
/// `Debug` are those of the slice. On the wire it is a Thrift `binary`, like `Vec<u8>`.
#[derive(Clone, Default, PartialEq, Eq, Hash)]
pub struct InlineBytes(InlineVec<u8, BYTES_INLINE>);

const BYTES_INLINE: usize = 22;

impl InlineBytes {
    /// Bytes held without an allocation.
    pub const INLINE: usize = BYTES_INLINE;

    /// The bytes.
    pub fn as_slice(&self) -> &[u8] {
        self.0.as_slice()
    }

    /// Whether the bytes are held in place (no allocation).
    pub fn is_inline(&self) -> bool {
        self.0.is_inline()
    }
}

impl Deref for InlineBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl AsRef<[u8]> for InlineBytes {
    fn as_ref(&self) -> &[u8] {
        self.as_slice()
    }
}

impl From<&[u8]> for InlineBytes {
    fn from(b: &[u8]) -> Self {
        InlineBytes(InlineVec::from(b))
    }
}

impl<const M: usize> From<&[u8; M]> for InlineBytes {
    fn from(b: &[u8; M]) -> Self {
        Self::from(&b[..])
    }
}

impl<const M: usize> From<[u8; M]> for InlineBytes {
    fn from(b: [u8; M]) -> Self {
        Self::from(&b[..])
    }
}

impl From<Vec<u8>> for InlineBytes {
    fn from(v: Vec<u8>) -> Self {
        InlineBytes(InlineVec::from(v))
    }
}

impl From<InlineBytes> for Vec<u8> {
    fn from(b: InlineBytes) -> Self {
        b.0.into()
    }
}

impl PartialEq<[u8]> for InlineBytes {
    fn eq(&self, other: &[u8]) -> bool {
        self.as_slice() == other
    }
}

impl PartialEq<Vec<u8>> for InlineBytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl PartialOrd for InlineBytes {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for InlineBytes {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

impl fmt::Debug for InlineBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// A `binary`, as `Vec<u8>`.
impl Value for InlineBytes {
    const TYPE: u8 = ty::BINARY;

    #[inline]
    fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
        Ok(InlineBytes::from(r.binary(t)?))
    }

    #[inline]
    fn write_value(&self, w: &mut CompactWriter<'_>) {
        w.write_binary(self);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_vec_spills_past_its_capacity_and_compares_by_content() {
        let mut v: InlineVec<i64, 3> = InlineVec::new();
        for i in 0..3 {
            v.push(i);
        }
        assert!(v.is_inline());
        v.push(3);
        assert!(!v.is_inline());
        assert_eq!(v, [0, 1, 2, 3]);
        let short = InlineVec::<i64, 3>::from(vec![0, 1]);
        assert!(short.is_inline());
        assert_eq!(short, InlineVec::from(&[0i64, 1][..]));
        assert_eq!(format!("{short:?}"), "[0, 1]");
        assert_eq!(Vec::from(v.clone()), vec![0, 1, 2, 3]);
        let b = InlineBytes::from(&[7u8; InlineBytes::INLINE]);
        assert!(b.is_inline());
        assert!(!InlineBytes::from(vec![7u8; InlineBytes::INLINE + 1]).is_inline());
        assert_eq!(format!("{:?}", InlineBytes::from(b"ab")), "[97, 98]");
    }

    #[test]
    fn inline_types_take_no_more_room_than_a_vec_and_its_option() {
        use std::mem::size_of;
        assert!(size_of::<Option<InlineBytes>>() <= 32);
        assert!(size_of::<Option<InlineVec<i64, 3>>>() <= 32);
    }

    #[test]
    fn lists_encode_as_vecs_do() {
        for n in [0usize, 2, 3, 4, 40] {
            let v: Vec<i64> = (0..n as i64).map(|i| i * 1000 - 7).collect();
            let (mut a, mut b) = (Vec::new(), Vec::new());
            v.write_value(&mut CompactWriter::new(&mut a));
            InlineVec::<i64, 3>::from(v.clone()).write_value(&mut CompactWriter::new(&mut b));
            assert_eq!(a, b);
            let back = InlineVec::<i64, 3>::read_value(&mut CompactReader::new(&b), ty::LIST);
            assert_eq!(back.unwrap(), v);
        }
    }
}
