//! Module AADs (Encryption.md §4.4): `aad_prefix || aad_file_unique || module type ||
//! row group ordinal || column ordinal || page ordinal`, the ordinals as 2-byte little-endian
//! shorts, the page ordinal for data pages and their headers only, no ordinals for the footer.

use std::fmt;

use crate::{Error, Result};

/// The kinds of encrypted module, with their AAD type byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ModuleType {
    /// The footer (`FileMetaData`), encrypted or signed.
    Footer = 0,
    /// A `ColumnMetaData` in `ColumnChunk.encrypted_column_metadata`.
    ColumnMetaData = 1,
    /// The body of a data page.
    DataPage = 2,
    /// The body of a dictionary page.
    DictionaryPage = 3,
    /// The `PageHeader` of a data page.
    DataPageHeader = 4,
    /// The `PageHeader` of a dictionary page.
    DictionaryPageHeader = 5,
    /// A `ColumnIndex`.
    ColumnIndex = 6,
    /// An `OffsetIndex`.
    OffsetIndex = 7,
    /// A bloom filter header.
    BloomFilterHeader = 8,
    /// A bloom filter bitset.
    BloomFilterBitset = 9,
}

impl ModuleType {
    /// True for the modules whose AAD carries a page ordinal.
    pub fn has_page_ordinal(self) -> bool {
        matches!(self, ModuleType::DataPage | ModuleType::DataPageHeader)
    }

    /// True for page bodies, which AES_GCM_CTR_V1 encrypts with CTR instead of GCM.
    pub fn is_page(self) -> bool {
        matches!(self, ModuleType::DataPage | ModuleType::DictionaryPage)
    }
}

impl fmt::Display for ModuleType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ModuleType::Footer => "footer",
            ModuleType::ColumnMetaData => "column metadata",
            ModuleType::DataPage => "data page",
            ModuleType::DictionaryPage => "dictionary page",
            ModuleType::DataPageHeader => "data page header",
            ModuleType::DictionaryPageHeader => "dictionary page header",
            ModuleType::ColumnIndex => "column index",
            ModuleType::OffsetIndex => "offset index",
            ModuleType::BloomFilterHeader => "bloom filter header",
            ModuleType::BloomFilterBitset => "bloom filter bitset",
        })
    }
}

/// Most row groups, columns or pages an encrypted file can number (ordinals are i16).
pub const MAX_ORDINAL: usize = i16::MAX as usize;

fn ordinal(v: usize, what: &str) -> Result<[u8; 2]> {
    if v > MAX_ORDINAL {
        return Err(Error::Crypto(format!(
            "{what} ordinal {v} exceeds the {MAX_ORDINAL} an encrypted file can hold"
        )));
    }
    Ok((v as u16).to_le_bytes())
}

/// The AAD of the footer: the file AAD and the footer's type byte.
pub fn footer_aad(file_aad: &[u8]) -> Vec<u8> {
    let mut aad = Vec::with_capacity(file_aad.len() + 1);
    aad.extend_from_slice(file_aad);
    aad.push(ModuleType::Footer as u8);
    aad
}

/// The AAD of a module of a column chunk. `page` is the data page ordinal within the chunk
/// and is used only by the modules that carry one ([`ModuleType::has_page_ordinal`]).
pub fn module_aad(
    file_aad: &[u8],
    module: ModuleType,
    row_group: usize,
    column: usize,
    page: usize,
) -> Result<Vec<u8>> {
    if module == ModuleType::Footer {
        return Ok(footer_aad(file_aad));
    }
    let mut aad = Vec::with_capacity(file_aad.len() + 7);
    aad.extend_from_slice(file_aad);
    aad.push(module as u8);
    aad.extend_from_slice(&ordinal(row_group, "row group")?);
    aad.extend_from_slice(&ordinal(column, "column")?);
    if module.has_page_ordinal() {
        aad.extend_from_slice(&ordinal(page, "page")?);
    }
    Ok(aad)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        assert_eq!(footer_aad(b"ab"), b"ab\0");
        assert_eq!(
            module_aad(b"f", ModuleType::ColumnIndex, 1, 258, 9).unwrap(),
            [b'f', 6, 1, 0, 2, 1]
        );
        assert_eq!(
            module_aad(b"", ModuleType::DataPageHeader, 0, 0, 3).unwrap(),
            [4, 0, 0, 0, 0, 3, 0]
        );
        assert!(module_aad(b"", ModuleType::DataPage, 0, 0, 40_000).is_err());
    }
}
