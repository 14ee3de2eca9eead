//! Encryption on the write side: the column writer seals each page header and page body of an
//! encrypted column into its module as the page is written ([`ChunkSealer`]; the header's
//! `compressed_page_size` counts the encrypted body), so the chunk's offsets come out right
//! the first time. Column and offset indexes, column metadata and the footer are encrypted
//! (or the footer signed) at the end.

use std::sync::Arc;

use super::aad::{footer_aad, module_aad, ModuleType};
use super::cipher::{
    random_bytes, KeyCipher, CTR_OVERHEAD, GCM_OVERHEAD, MODULE_PREFIX, NONCE_LEN,
};
use super::keys::{Algorithm, FileEncryptionProperties};
use super::FileCryptoMetaData;
use crate::metadata::{
    self, AesGcmParams, ColumnChunk, ColumnCryptoMetaData, CompactWriter, EncryptionAlgorithm,
    FileMetaData, MAGIC, MAGIC_ENCRYPTED,
};
use crate::write::seal::{PagePart, PageSealer};
use crate::{Error, Result};

/// Bytes of the random file-unique part of the AAD.
const AAD_FILE_UNIQUE_LEN: usize = 8;

struct ColumnCrypt {
    cipher: Arc<KeyCipher>,
    with_footer_key: bool,
    path: Vec<String>,
    key_metadata: Option<Vec<u8>>,
}

/// Seals the pages of one encrypted chunk into modules, in the writer's buffer, as they are
/// written; counts the data pages for their AADs.
pub(crate) struct ChunkSealer<'a> {
    cipher: &'a KeyCipher,
    ctr_pages: bool,
    file_aad: &'a [u8],
    row_group: usize,
    column: usize,
    data_pages: usize,
}

impl PageSealer for ChunkSealer<'_> {
    fn prefix_len(&self) -> usize {
        MODULE_PREFIX
    }

    fn body_overhead(&self) -> usize {
        if self.ctr_pages {
            CTR_OVERHEAD
        } else {
            GCM_OVERHEAD
        }
    }

    fn seal(&mut self, part: PagePart, buf: &mut Vec<u8>, start: usize) -> Result<()> {
        let module = match part {
            PagePart::DictionaryHeader => ModuleType::DictionaryPageHeader,
            PagePart::Dictionary => ModuleType::DictionaryPage,
            PagePart::DataHeader => ModuleType::DataPageHeader,
            PagePart::Data => ModuleType::DataPage,
        };
        if module.is_page() && self.ctr_pages {
            self.cipher.ctr_seal(buf, start)?;
        } else {
            let aad = module_aad(
                self.file_aad,
                module,
                self.row_group,
                self.column,
                self.data_pages,
            )?;
            self.cipher.gcm_seal(&aad, buf, start)?;
        }
        if part == PagePart::Data {
            self.data_pages += 1;
        }
        Ok(())
    }
}

/// Encrypts the modules of one file as it is written.
pub(crate) struct FileEncryptor {
    props: FileEncryptionProperties,
    aad_file_unique: Vec<u8>,
    file_aad: Vec<u8>,
    footer: Arc<KeyCipher>,
    /// Per leaf column: how it is encrypted (`None`: plaintext).
    columns: Vec<Option<ColumnCrypt>>,
}

impl FileEncryptor {
    /// The encryptor of a file whose leaves have the paths `leaves`.
    pub(crate) fn new(props: &FileEncryptionProperties, leaves: &[Vec<String>]) -> Result<Self> {
        let dotted: Vec<String> = leaves.iter().map(|p| p.join(".")).collect();
        let known: std::collections::HashSet<&String> = dotted.iter().collect();
        if let Some(unknown) = props.column_keys().keys().find(|k| !known.contains(k)) {
            return Err(Error::InvalidArgument(format!(
                "encryption key for column {unknown:?}, which the schema does not have \
                 (its leaves: {})",
                dotted.join(", ")
            )));
        }
        let footer = Arc::new(KeyCipher::new(props.footer_key(), "footer key")?);
        let uniform = props.column_keys().is_empty();
        let mut columns = Vec::with_capacity(leaves.len());
        for (path, name) in leaves.iter().zip(&dotted) {
            let crypt = match props.column_keys().get(name) {
                None if uniform => Some(ColumnCrypt {
                    cipher: Arc::clone(&footer),
                    with_footer_key: true,
                    path: path.clone(),
                    key_metadata: None,
                }),
                None => None,
                Some(k) => Some(ColumnCrypt {
                    cipher: match &k.key {
                        Some(key) => {
                            Arc::new(KeyCipher::new(key, &format!("key of column {name}"))?)
                        }
                        None => Arc::clone(&footer),
                    },
                    with_footer_key: k.key.is_none(),
                    path: path.clone(),
                    key_metadata: k.key_metadata.clone(),
                }),
            };
            columns.push(crypt);
        }
        let aad_file_unique = random_bytes(AAD_FILE_UNIQUE_LEN)?;
        let mut file_aad = props.aad_prefix().unwrap_or_default().to_vec();
        file_aad.extend_from_slice(&aad_file_unique);
        Ok(FileEncryptor {
            props: props.clone(),
            aad_file_unique,
            file_aad,
            footer,
            columns,
        })
    }

    /// The magic at the start of the file.
    pub(crate) fn head_magic(&self) -> &'static [u8; 4] {
        if self.props.plaintext_footer() {
            MAGIC
        } else {
            MAGIC_ENCRYPTED
        }
    }

    /// True when leaf `column` is encrypted.
    pub(crate) fn is_encrypted(&self, column: usize) -> bool {
        matches!(self.columns.get(column), Some(Some(_)))
    }

    fn column(&self, column: usize) -> Result<&ColumnCrypt> {
        match self.columns.get(column) {
            Some(Some(c)) => Ok(c),
            _ => Err(Error::InvalidArgument(format!(
                "column {column} is not encrypted"
            ))),
        }
    }

    /// The sealer of the pages of the chunk of leaf `column` in row group `row_group`.
    pub(crate) fn chunk_sealer(
        &self,
        (row_group, column): (usize, usize),
    ) -> Result<ChunkSealer<'_>> {
        Ok(ChunkSealer {
            cipher: &self.column(column)?.cipher,
            ctr_pages: self.props.algorithm() == Algorithm::AesGcmCtrV1,
            file_aad: &self.file_aad,
            row_group,
            column,
            data_pages: 0,
        })
    }

    /// Encrypts a serialized column or offset index of an encrypted column (others pass
    /// through).
    pub(crate) fn index(
        &self,
        plain: Vec<u8>,
        module: ModuleType,
        row_group: usize,
        column: usize,
    ) -> Result<Vec<u8>> {
        let Some(Some(c)) = self.columns.get(column) else {
            return Ok(plain);
        };
        let mut out = Vec::with_capacity(plain.len() + GCM_OVERHEAD);
        let aad = module_aad(&self.file_aad, module, row_group, column, 0)?;
        c.cipher.gcm_encrypt(&plain, &aad, &mut out)?;
        Ok(out)
    }

    /// Sets the crypto metadata of an encrypted column's chunk, and hides its metadata where
    /// the spec asks (Encryption.md §5.3-5.5): with a plaintext footer, the footer keeps a
    /// copy without statistics and the full metadata is encrypted; with an encrypted footer,
    /// the metadata of a column with its own key is encrypted with it and left out.
    pub(crate) fn protect_chunk(
        &self,
        chunk: &mut ColumnChunk,
        row_group: usize,
        column: usize,
    ) -> Result<()> {
        let Some(Some(c)) = self.columns.get(column) else {
            return Ok(());
        };
        chunk.crypto_metadata = Some(if c.with_footer_key {
            ColumnCryptoMetaData::EncryptionWithFooterKey
        } else {
            ColumnCryptoMetaData::EncryptionWithColumnKey {
                path_in_schema: c.path.clone(),
                key_metadata: c.key_metadata.clone(),
            }
        });
        let plaintext_footer = self.props.plaintext_footer();
        if c.with_footer_key && !plaintext_footer {
            return Ok(());
        }
        let Some(meta) = chunk.meta_data.take() else {
            return Ok(());
        };
        let mut plain = Vec::new();
        meta.write(&mut CompactWriter::new(&mut plain));
        let mut enc = Vec::with_capacity(plain.len() + GCM_OVERHEAD);
        let aad = module_aad(
            &self.file_aad,
            ModuleType::ColumnMetaData,
            row_group,
            column,
            0,
        )?;
        c.cipher.gcm_encrypt(&plain, &aad, &mut enc)?;
        chunk.encrypted_column_metadata = Some(enc);
        if plaintext_footer {
            let mut stripped = meta;
            stripped.statistics = None;
            stripped.encoding_stats = None;
            stripped.size_statistics = None;
            stripped.geospatial_statistics = None;
            stripped.bloom_filter_offset = None;
            stripped.bloom_filter_length = None;
            stripped.key_value_metadata = None;
            chunk.meta_data = Some(stripped);
        }
        Ok(())
    }

    fn algorithm(&self) -> EncryptionAlgorithm {
        let prefix = self.props.aad_prefix().map(<[u8]>::to_vec);
        let store = self.props.store_aad_prefix();
        let params = AesGcmParams {
            aad_prefix: if store { prefix.clone() } else { None },
            aad_file_unique: Some(self.aad_file_unique.clone()),
            supply_aad_prefix: (prefix.is_some() && !store).then_some(true),
        };
        match self.props.algorithm() {
            Algorithm::AesGcmV1 => EncryptionAlgorithm::AesGcmV1(params),
            Algorithm::AesGcmCtrV1 => EncryptionAlgorithm::AesGcmCtrV1(params),
        }
    }

    /// Protects the column metadata of the encrypted columns, then serializes the footer,
    /// encrypted or plaintext and signed, with its length and magic.
    pub(crate) fn footer(&self, meta: &mut FileMetaData) -> Result<Vec<u8>> {
        for (i, rg) in meta.row_groups.iter_mut().enumerate() {
            for (j, chunk) in rg.columns.iter_mut().enumerate() {
                self.protect_chunk(chunk, i, j)?;
            }
        }
        let mut out = Vec::new();
        let aad = footer_aad(&self.file_aad);
        if self.props.plaintext_footer() {
            meta.encryption_algorithm = Some(self.algorithm());
            meta.footer_signing_key_metadata = self.props.footer_key_metadata().map(<[u8]>::to_vec);
            metadata::encode_file_metadata(meta, &mut out);
            let nonce = random_bytes(NONCE_LEN)?;
            let tag = self.footer.gcm_tag(&out, &aad, &nonce)?;
            out.extend_from_slice(&nonce);
            out.extend_from_slice(&tag);
        } else {
            let crypto = FileCryptoMetaData {
                encryption_algorithm: self.algorithm(),
                key_metadata: self.props.footer_key_metadata().map(<[u8]>::to_vec),
            };
            crypto.write(&mut CompactWriter::new(&mut out));
            let mut plain = Vec::new();
            metadata::encode_file_metadata(meta, &mut plain);
            self.footer.gcm_encrypt(&plain, &aad, &mut out)?;
        }
        let len = u32::try_from(out.len())
            .map_err(|_| Error::InvalidArgument("footer larger than 4 GiB".into()))?;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(if self.props.plaintext_footer() {
            MAGIC
        } else {
            MAGIC_ENCRYPTED
        });
        Ok(out)
    }
}
