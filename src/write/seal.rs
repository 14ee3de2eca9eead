//! The hook through which an encrypted column's pages become modules as they are written
//! (Parquet modular encryption, `crate::encryption`): the column writer gathers each page's
//! header and body in its output buffer behind room for the module's length and nonce, and
//! the sealer encrypts them there, in place. No chunk is written twice and no header is
//! encoded twice.

use crate::Result;

/// Which part of a page a module holds (its AAD's module type).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PagePart {
    /// The header of the dictionary page.
    DictionaryHeader,
    /// The body of the dictionary page.
    Dictionary,
    /// The header of a data page.
    DataHeader,
    /// The body of a data page; sealing it ends the page.
    Data,
}

/// Seals the pages of one column chunk into modules.
pub(crate) trait PageSealer {
    /// Bytes reserved before a module's plaintext: its length prefix and nonce.
    fn prefix_len(&self) -> usize;

    /// Bytes a body module adds to its page body; the page header's `compressed_page_size`
    /// counts them.
    fn body_overhead(&self) -> usize;

    /// Seals the module that starts at `buf[start..]`: `prefix_len` reserved bytes, then the
    /// plaintext up to the end of `buf`. Encrypts in place, fills the prefix and appends the
    /// tag (if the module has one).
    fn seal(&mut self, part: PagePart, buf: &mut Vec<u8>, start: usize) -> Result<()>;
}

/// Bytes of the compact-protocol encoding of the i32 `v` (a zigzag varint).
pub(crate) fn i32_varint_len(v: i32) -> usize {
    let zigzag = ((v << 1) ^ (v >> 31)) as u32;
    (32 - (zigzag | 1).leading_zeros() as usize).div_ceil(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_len_matches_the_encoder() {
        use crate::metadata::{encode_page_header, PageHeader};
        for v in [
            0,
            1,
            63,
            64,
            65,
            8191,
            8192,
            1 << 20,
            i32::MAX,
            -1,
            -64,
            -65,
            i32::MIN,
        ] {
            let mut a = Vec::new();
            let mut b = Vec::new();
            let h = |n| PageHeader {
                compressed_page_size: n,
                ..PageHeader::default()
            };
            encode_page_header(&h(0), &mut a);
            encode_page_header(&h(v), &mut b);
            assert_eq!(b.len() - a.len() + 1, i32_varint_len(v), "{v}");
        }
    }
}
