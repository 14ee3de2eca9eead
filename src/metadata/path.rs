//! [`ColumnPath`], the `path_in_schema` of a column chunk, shared between the row groups of a
//! footer.
//!
//! Every row group lists the same columns in the same order, each with its path; a footer
//! of R row groups and C columns spells out R × C paths for C distinct ones. The reader keeps
//! the paths of the first row group it reads (a [`PathCache`] in the `CompactReader`) and
//! hands out that path again, without allocating, where a later chunk's path has the same
//! bytes on the wire.

use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use super::thrift::{ty, CompactReader, CompactWriter};
use super::thrift_struct::Value;
use crate::Result;

/// The path of a leaf column in the schema (`ColumnMetaData.path_in_schema`): the names from
/// the root's child down to the leaf.
///
/// Cloning shares the names rather than copying them. It reads as a slice of names
/// (`Deref<Target = [String]>`); equality, hashing and `Debug` are those of the slice. On
/// the wire it is a Thrift `list<string>`, like `Vec<String>`.
#[derive(Clone, Default)]
pub struct ColumnPath(
    // `None` for the empty path: a default `ColumnMetaData` (one is made for every chunk
    // read) allocates nothing.
    Option<Arc<[String]>>,
);

impl ColumnPath {
    /// The path of the given names.
    pub fn new(names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        names.into_iter().map(Into::into).collect()
    }

    /// The names, root side first.
    pub fn as_slice(&self) -> &[String] {
        self.0.as_deref().unwrap_or(&[])
    }

    /// Whether `self` and `other` share their names (one was cloned from the other, or both
    /// were read from the same footer and spelled the same there).
    pub fn shares_with(&self, other: &ColumnPath) -> bool {
        match (&self.0, &other.0) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            _ => false,
        }
    }
}

impl Deref for ColumnPath {
    type Target = [String];

    fn deref(&self) -> &[String] {
        self.as_slice()
    }
}

impl From<Vec<String>> for ColumnPath {
    fn from(v: Vec<String>) -> Self {
        if v.is_empty() {
            ColumnPath(None)
        } else {
            ColumnPath(Some(v.into()))
        }
    }
}

impl From<&[String]> for ColumnPath {
    fn from(s: &[String]) -> Self {
        ColumnPath::from(s.to_vec())
    }
}

impl From<&[&str]> for ColumnPath {
    fn from(s: &[&str]) -> Self {
        ColumnPath::new(s.iter().copied())
    }
}

impl From<ColumnPath> for Vec<String> {
    fn from(p: ColumnPath) -> Self {
        p.as_slice().to_vec()
    }
}

impl FromIterator<String> for ColumnPath {
    fn from_iter<I: IntoIterator<Item = String>>(iter: I) -> Self {
        ColumnPath::from(iter.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a ColumnPath {
    type Item = &'a String;
    type IntoIter = std::slice::Iter<'a, String>;

    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl PartialEq for ColumnPath {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for ColumnPath {}

impl<S> PartialEq<[S]> for ColumnPath
where
    String: PartialEq<S>,
{
    fn eq(&self, other: &[S]) -> bool {
        self.as_slice() == other
    }
}

impl<S> PartialEq<Vec<S>> for ColumnPath
where
    String: PartialEq<S>,
{
    fn eq(&self, other: &Vec<S>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<S, const N: usize> PartialEq<[S; N]> for ColumnPath
where
    String: PartialEq<S>,
{
    fn eq(&self, other: &[S; N]) -> bool {
        self.as_slice() == other
    }
}

impl std::hash::Hash for ColumnPath {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state);
    }
}

impl fmt::Debug for ColumnPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

/// A `list<string>`, as `Vec<String>`; a path whose bytes match one the reader kept is
/// shared with it.
impl Value for ColumnPath {
    const TYPE: u8 = ty::LIST;

    fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
        r.column_path(t)
    }

    fn write_value(&self, w: &mut CompactWriter<'_>) {
        w.list_header(ty::BINARY, self.len());
        for name in self {
            w.write_binary(name.as_bytes());
        }
    }
}

/// The paths of the first row group read, in order, each with its bytes on the wire, and
/// where the next chunk's path is expected among them.
///
/// A path is looked up where the previous one matched (the next column of the row group),
/// then at the first column (a new row group); a file whose row groups differ only shares
/// less. Entries are added only while reading in order from the first, so there is at most
/// one per column chunk read, each far smaller than the chunk it came with (which the
/// memory budget was charged for).
#[derive(Clone, Debug, Default)]
pub(crate) struct PathCache<'a> {
    seen: Vec<(&'a [u8], ColumnPath)>,
    next: usize,
}

impl<'a> PathCache<'a> {
    /// The kept path whose bytes `rest` starts with, if it is one expected, and its length
    /// on the wire. A Thrift value's encoding ends itself, so the value at the start of
    /// `rest` is that path: it need not be parsed again.
    #[inline]
    pub(crate) fn find(&mut self, rest: &[u8]) -> Option<(ColumnPath, usize)> {
        if let Some((b, p)) = self.seen.get(self.next) {
            if rest.starts_with(b) {
                self.next += 1;
                return Some((p.clone(), b.len()));
            }
        }
        match self.seen.first() {
            Some((b, p)) if rest.starts_with(b) => {
                self.next = 1;
                Some((p.clone(), b.len()))
            }
            _ => None,
        }
    }

    /// Keeps `path`, read from `bytes`, if the paths read so far were all kept in order.
    pub(crate) fn keep(&mut self, bytes: &'a [u8], path: &ColumnPath) {
        if self.next == self.seen.len() {
            self.seen.push((bytes, path.clone()));
            self.next += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::thrift::CompactReader;

    fn encoded(p: &ColumnPath) -> Vec<u8> {
        let mut out = Vec::new();
        p.write_value(&mut CompactWriter::new(&mut out));
        out
    }

    #[test]
    fn paths_encode_as_vecs_of_strings_do() {
        let names = vec!["a".to_string(), "list".into(), "element".into()];
        let mut out = Vec::new();
        names.write_value(&mut CompactWriter::new(&mut out));
        assert_eq!(encoded(&ColumnPath::from(names.clone())), out);
        assert_eq!(encoded(&ColumnPath::default()), [0x08]);
        let back = ColumnPath::read_value(&mut CompactReader::new(&out), ty::LIST).unwrap();
        assert_eq!(back, names);
        assert_eq!(format!("{back:?}"), r#"["a", "list", "element"]"#);
    }

    #[test]
    fn paths_read_again_in_order_are_shared() {
        let paths: Vec<ColumnPath> = ["a", "b", "c"].map(|n| ColumnPath::new([n])).into();
        let mut buf = Vec::new();
        // Two row groups of a, b, c, then one of a, c (b missing), then a, b.
        for i in [0, 1, 2, 0, 1, 2, 0, 2, 0, 1] {
            buf.extend(encoded(&paths[i]));
        }
        let mut r = CompactReader::new(&buf);
        let read: Vec<ColumnPath> = (0..10)
            .map(|_| ColumnPath::read_value(&mut r, ty::LIST).unwrap())
            .collect();
        for (i, p) in read.iter().enumerate() {
            assert_eq!(p, &paths[[0, 1, 2, 0, 1, 2, 0, 2, 0, 1][i]]);
        }
        assert!(read[3].shares_with(&read[0]) && read[5].shares_with(&read[2]));
        // The unexpected `c` is read anew; the next row group is shared again.
        assert!(!read[7].shares_with(&read[2]));
        assert!(read[8].shares_with(&read[0]) && read[9].shares_with(&read[1]));
        assert!(!read[1].shares_with(&read[0]));
    }
}
