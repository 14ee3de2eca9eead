//! Decryption: the footer (encrypted, or plaintext and signed), column metadata, pages and
//! page indexes. Every decrypted module lands in an owned buffer; a module that fails to
//! authenticate returns an error naming it and nothing else.

use std::collections::HashMap;
use std::sync::Arc;

use bytes::Bytes;

use super::aad::{footer_aad, module_aad, ModuleType};
use super::cipher::{KeyCipher, ModuleError, NONCE_LEN, TAG_LEN};
use super::keys::{Algorithm, FileDecryptionProperties};
use super::FileCryptoMetaData;
use crate::metadata::{
    self, AesGcmParams, ColumnCryptoMetaData, ColumnMetaData, CompactReader, EncryptionAlgorithm,
    FileMetaData, PageHeader, PageType, MAGIC_ENCRYPTED,
};
use crate::{Error, Result};

/// Bytes of a plaintext footer's signature: nonce and GCM tag.
pub const SIGNATURE_LEN: usize = NONCE_LEN + TAG_LEN;

/// The footer length and whether the footer is encrypted, from the last 8 bytes of a file.
pub(crate) fn parse_tail(tail: &[u8; 8]) -> Result<(usize, bool)> {
    if &tail[4..] == MAGIC_ENCRYPTED {
        return Ok((
            u32::from_le_bytes([tail[0], tail[1], tail[2], tail[3]]) as usize,
            true,
        ));
    }
    Ok((metadata::parse_footer_len(tail)?, false))
}

/// A column key's cipher, or why there is none.
type KeyOrWhy = std::result::Result<Arc<KeyCipher>, String>;

/// How the chunks of one column in one row group are decrypted.
enum ChunkKey {
    /// Not encrypted.
    Plain,
    /// Encrypted with this key.
    Key {
        cipher: Arc<KeyCipher>,
        /// The column's dotted path, for errors.
        path: Arc<str>,
        /// The chunk starts with a dictionary page.
        has_dictionary: bool,
    },
    /// Encrypted, and not readable: why.
    Unavailable(String),
}

/// What a reader keeps to decrypt an encrypted file's modules.
pub(crate) struct FileDecryptor {
    ctr_pages: bool,
    file_aad: Arc<[u8]>,
    /// Per row group (ordinal, per column key state).
    chunks: Vec<(usize, Vec<ChunkKey>)>,
}

/// The `supply_aad_prefix` / stored prefix / file-unique logic of Encryption.md §4.4.
fn file_aad(params: &AesGcmParams, props: &FileDecryptionProperties) -> Result<Vec<u8>> {
    let prefix = match (props.aad_prefix(), &params.aad_prefix) {
        (Some(given), Some(stored)) if given != stored.as_slice() => {
            return Err(Error::Crypto(format!(
                "the AAD prefix supplied ({:?}) differs from the one the file stores ({:?})",
                String::from_utf8_lossy(given),
                String::from_utf8_lossy(stored)
            )))
        }
        (Some(given), _) => given.to_vec(),
        (None, Some(stored)) => stored.clone(),
        (None, None) if params.supply_aad_prefix == Some(true) => {
            return Err(Error::Crypto(
                "the file was encrypted with an AAD prefix it does not store: supply it".into(),
            ))
        }
        (None, None) => Vec::new(),
    };
    let mut aad = prefix;
    aad.extend_from_slice(params.aad_file_unique.as_deref().unwrap_or_default());
    Ok(aad)
}

/// True when `key_metadata` is parquet-mr / pyarrow key material kept outside the file
/// (`"internalStorage":false`): the key is wrapped in a separate JSON file.
fn is_external_key_material(key_metadata: &[u8]) -> bool {
    let text = String::from_utf8_lossy(key_metadata);
    let compact: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    compact.contains("\"internalStorage\":false")
}

/// The key `what` needs: explicit, else from the retriever by its key metadata.
fn resolve_key(
    explicit: Option<&[u8]>,
    key_metadata: Option<&[u8]>,
    props: &FileDecryptionProperties,
    what: &str,
) -> std::result::Result<Vec<u8>, String> {
    if let Some(k) = explicit {
        return Ok(k.to_vec());
    }
    match (props.retriever(), key_metadata) {
        (Some(r), Some(m)) => r
            .retrieve_key(m)
            .map_err(|e| format!("retrieving the {what}: {e}")),
        (_, Some(m)) if is_external_key_material(m) => Err(format!(
            "the {what} is wrapped in key material stored outside the file \
             (a _KEY_MATERIAL_FOR_<file>.json beside it): supply a key retriever that reads it, \
             or the key itself"
        )),
        _ => Err(format!("no {what} was supplied")),
    }
}

fn algorithm_params(a: &EncryptionAlgorithm) -> Result<(&AesGcmParams, bool)> {
    match a {
        EncryptionAlgorithm::AesGcmV1(p) => Ok((p, false)),
        EncryptionAlgorithm::AesGcmCtrV1(p) => Ok((p, true)),
        EncryptionAlgorithm::Unknown { field_id } => Err(Error::Unsupported(format!(
            "encryption algorithm {field_id} (known: AES_GCM_V1, AES_GCM_CTR_V1)"
        ))),
    }
}

fn crypto_error(what: &str, e: ModuleError) -> Error {
    Error::Crypto(format!("decrypting {what}: {e}"))
}

/// Decodes a footer (the bytes between the data and the 8-byte tail) that may be encrypted
/// or signed. Returns the metadata, with the column metadata that the keys open decrypted
/// into `meta_data`, and the decryptor of an encrypted file.
pub(crate) fn decode_footer(
    footer: &[u8],
    encrypted_footer: bool,
    props: Option<&FileDecryptionProperties>,
    memory: u64,
) -> Result<(FileMetaData, Option<Arc<FileDecryptor>>)> {
    let empty = FileDecryptionProperties::default();
    if !encrypted_footer {
        let mut r = CompactReader::new(footer).with_memory_budget(memory);
        let mut meta = FileMetaData::read(&mut r)?;
        let Some(algorithm) = meta.encryption_algorithm.clone() else {
            return Ok((meta, None));
        };
        let props = props.unwrap_or(&empty);
        let (params, ctr_pages) = algorithm_params(&algorithm)?;
        let key = resolve_key(
            props.footer_key(),
            meta.footer_signing_key_metadata.as_deref(),
            props,
            "footer key",
        );
        let footer_cipher = match key {
            Ok(k) => Some(Arc::new(KeyCipher::new(&k, "footer key")?)),
            Err(_) => None,
        };
        let aad = if footer_cipher.is_some() || props.aad_prefix().is_some() {
            file_aad(params, props)?
        } else {
            // Nothing to decrypt with; a stored prefix is enough for column keys.
            file_aad(params, props).unwrap_or_default()
        };
        if let (Some(cipher), true) = (&footer_cipher, props.verify_footer_signature()) {
            let end = r.position();
            let sig = &footer[end..];
            if sig.len() != SIGNATURE_LEN {
                return Err(Error::Crypto(format!(
                    "verifying the footer signature: {} bytes follow the footer, a signature has {SIGNATURE_LEN}",
                    sig.len()
                )));
            }
            let tag = cipher.gcm_tag(&footer[..end], &footer_aad(&aad), &sig[..NONCE_LEN])?;
            let diff = tag
                .iter()
                .zip(&sig[NONCE_LEN..])
                .fold(0u8, |acc, (a, b)| acc | (a ^ b));
            if diff != 0 {
                return Err(Error::Crypto(
                    "verifying the footer signature: it does not match (wrong footer key, wrong \
                     AAD prefix, or a modified footer)"
                        .into(),
                ));
            }
        }
        let dec = FileDecryptor::new(&mut meta, props, aad, footer_cipher, ctr_pages)?;
        return Ok((meta, Some(Arc::new(dec))));
    }
    let Some(props) = props else {
        return Err(Error::Crypto(
            "the footer is encrypted: supply decryption properties with the footer key".into(),
        ));
    };
    let mut r = CompactReader::new(footer);
    let crypto = FileCryptoMetaData::read(&mut r)?;
    let (params, ctr_pages) = algorithm_params(&crypto.encryption_algorithm)?;
    let aad = file_aad(params, props)?;
    let key = resolve_key(
        props.footer_key(),
        crypto.key_metadata.as_deref(),
        props,
        "footer key",
    )
    .map_err(|e| Error::Crypto(format!("decrypting the footer: {e}")))?;
    let cipher = Arc::new(KeyCipher::new(&key, "footer key")?);
    let (plain, _) = cipher
        .gcm_decrypt(&footer[r.position()..], &footer_aad(&aad))
        .map_err(|e| crypto_error("the footer", e))?;
    let mut meta = metadata::decode_file_metadata_within(&plain, memory)?;
    let dec = FileDecryptor::new(&mut meta, props, aad, Some(cipher), ctr_pages)?;
    Ok((meta, Some(Arc::new(dec))))
}

impl FileDecryptor {
    fn new(
        meta: &mut FileMetaData,
        props: &FileDecryptionProperties,
        file_aad: Vec<u8>,
        footer: Option<Arc<KeyCipher>>,
        ctr_pages: bool,
    ) -> Result<Self> {
        let mut keys: HashMap<(String, Option<Vec<u8>>), KeyOrWhy> = HashMap::new();
        let mut chunks = Vec::with_capacity(meta.row_groups.len());
        for (i, rg) in meta.row_groups.iter_mut().enumerate() {
            let ordinal = match rg.ordinal {
                Some(o) => usize::try_from(o)
                    .map_err(|_| Error::format(format!("row group {i} has ordinal {o}")))?,
                None => i,
            };
            let mut states = Vec::with_capacity(rg.columns.len());
            for (j, chunk) in rg.columns.iter_mut().enumerate() {
                let name = || match (&chunk.meta_data, &chunk.crypto_metadata) {
                    (Some(m), _) => m.path_in_schema.join("."),
                    (
                        None,
                        Some(ColumnCryptoMetaData::EncryptionWithColumnKey {
                            path_in_schema, ..
                        }),
                    ) => path_in_schema.join("."),
                    _ => format!("#{j}"),
                };
                let key = match &chunk.crypto_metadata {
                    None => {
                        states.push(ChunkKey::Plain);
                        continue;
                    }
                    Some(ColumnCryptoMetaData::EncryptionWithFooterKey) => match &footer {
                        Some(c) => Ok(Arc::clone(c)),
                        None => Err(format!(
                            "column {} is encrypted with the footer key, which was not supplied",
                            name()
                        )),
                    },
                    Some(ColumnCryptoMetaData::EncryptionWithColumnKey {
                        path_in_schema,
                        key_metadata,
                    }) => {
                        let path = path_in_schema.join(".");
                        keys.entry((path.clone(), key_metadata.clone()))
                            .or_insert_with(|| {
                                let what = format!("key of column {path}");
                                let k = resolve_key(
                                    props.column_key(&path),
                                    key_metadata.as_deref(),
                                    props,
                                    &what,
                                )?;
                                KeyCipher::new(&k, &what)
                                    .map(Arc::new)
                                    .map_err(|e| match e {
                                        Error::Crypto(m) => m,
                                        e => e.to_string(),
                                    })
                            })
                            .clone()
                            .map_err(|e| format!("column {path} is encrypted: {e}"))
                    }
                    Some(ColumnCryptoMetaData::Unknown { field_id }) => Err(format!(
                        "column {} has unknown crypto metadata {field_id}",
                        name()
                    )),
                };
                let state = match key {
                    Err(why) => ChunkKey::Unavailable(why),
                    Ok(cipher) => match &chunk.encrypted_column_metadata {
                        None => ChunkKey::key(cipher, name(), chunk.meta_data.as_ref()),
                        Some(enc) => {
                            let what =
                                format!("column metadata of column {} in row group {i}", name());
                            let aad =
                                module_aad(&file_aad, ModuleType::ColumnMetaData, ordinal, j, 0)?;
                            match cipher.gcm_decrypt(enc, &aad) {
                                Ok((plain, _)) => {
                                    let m = ColumnMetaData::read(&mut CompactReader::new(&plain))
                                        .map_err(|e| {
                                        Error::Crypto(format!("decoding decrypted {what}: {e}"))
                                    })?;
                                    let key = ChunkKey::key(cipher, name(), Some(&m));
                                    chunk.meta_data = Some(m);
                                    key
                                }
                                Err(e) => ChunkKey::Unavailable(format!("decrypting {what}: {e}")),
                            }
                        }
                    },
                };
                states.push(state);
            }
            chunks.push((ordinal, states));
        }
        Ok(FileDecryptor {
            ctr_pages,
            file_aad: file_aad.into(),
            chunks,
        })
    }

    /// The decryptor of the chunk of leaf `column` in row group `row_group`: `None` when it
    /// is not encrypted, an error naming the column when its key is missing or wrong.
    pub(crate) fn chunk(&self, row_group: usize, column: usize) -> Result<Option<ChunkDecryptor>> {
        let Some((ordinal, states)) = self.chunks.get(row_group) else {
            return Ok(None);
        };
        match states.get(column) {
            None | Some(ChunkKey::Plain) => Ok(None),
            Some(ChunkKey::Unavailable(why)) => Err(Error::Crypto(why.clone())),
            Some(ChunkKey::Key {
                cipher,
                path,
                has_dictionary,
            }) => Ok(Some(ChunkDecryptor {
                cipher: Arc::clone(cipher),
                ctr_pages: self.ctr_pages,
                file_aad: Arc::clone(&self.file_aad),
                row_group: *ordinal,
                column,
                path: Arc::clone(path),
                has_dictionary: *has_dictionary,
            })),
        }
    }

    /// The plaintext of the column or offset index (`module`) of leaf `column` in row group
    /// `row_group`: `bytes` itself when the column is not encrypted.
    pub(crate) fn index(
        &self,
        bytes: Bytes,
        module: ModuleType,
        row_group: usize,
        column: usize,
    ) -> Result<Bytes> {
        match self.chunk(row_group, column)? {
            None => Ok(bytes),
            Some(c) => Ok(Bytes::from(c.decrypt_module(module, 0, &bytes)?.0)),
        }
    }
}

impl ChunkKey {
    fn key(cipher: Arc<KeyCipher>, path: String, meta: Option<&ColumnMetaData>) -> Self {
        ChunkKey::Key {
            cipher,
            path: path.into(),
            has_dictionary: meta.is_some_and(
                |m| matches!(m.dictionary_page_offset, Some(d) if d > 0 && d < m.data_page_offset),
            ),
        }
    }
}

/// Decrypts the modules of one column chunk.
#[derive(Clone)]
pub(crate) struct ChunkDecryptor {
    cipher: Arc<KeyCipher>,
    ctr_pages: bool,
    file_aad: Arc<[u8]>,
    row_group: usize,
    column: usize,
    path: Arc<str>,
    /// The chunk starts with a dictionary page.
    has_dictionary: bool,
}

impl ChunkDecryptor {
    fn what(&self, module: ModuleType, page: Option<usize>) -> String {
        match page {
            Some(p) => format!(
                "{module} {p} of column {} in row group {}",
                self.path, self.row_group
            ),
            None => format!(
                "{module} of column {} in row group {}",
                self.path, self.row_group
            ),
        }
    }

    /// Decrypts the GCM module at the start of `bytes`: the plaintext and the bytes taken.
    /// `page` is the data page ordinal (ignored by other modules).
    fn decrypt_module(
        &self,
        module: ModuleType,
        page: usize,
        bytes: &[u8],
    ) -> Result<(Vec<u8>, usize)> {
        let shown = module.has_page_ordinal().then_some(page);
        let aad = module_aad(&self.file_aad, module, self.row_group, self.column, page)?;
        let result = if module.is_page() && self.ctr_pages {
            self.cipher.ctr_decrypt(bytes)
        } else {
            self.cipher.gcm_decrypt(bytes, &aad)
        };
        result.map_err(|e| crypto_error(&self.what(module, shown), e))
    }

    /// The (data page ordinal, whether a dictionary page) of the page at `page_index` of
    /// the chunk, which its header cannot say before it is decrypted.
    fn page_module(&self, page_index: usize) -> (usize, bool) {
        let dictionary = self.has_dictionary && page_index == 0;
        (
            page_index - usize::from(self.has_dictionary && !dictionary),
            dictionary,
        )
    }

    /// The header of the page at `page_index` of the chunk, decrypted from the start of
    /// `bytes`, and the bytes its module took.
    pub(crate) fn page_header(
        &self,
        page_index: usize,
        bytes: &[u8],
    ) -> Result<(PageHeader, usize)> {
        let (ordinal, dictionary) = self.page_module(page_index);
        let module = if dictionary {
            ModuleType::DictionaryPageHeader
        } else {
            ModuleType::DataPageHeader
        };
        let (plain, used) = self.decrypt_module(module, ordinal, bytes)?;
        let (mut header, _) = metadata::decode_page_header(&plain)?;
        // A CRC covers the page as stored, i.e. its ciphertext, not the plaintext the reader
        // decodes; the GCM tag authenticates those bytes (AES_GCM_CTR_V1 leaves page bodies
        // unauthenticated, as the spec accepts).
        header.crc = None;
        Ok((header, used))
    }

    /// The plaintext of the body of the page at `page_index` of the chunk, whose decrypted
    /// header is `header`; the module fills `body` exactly.
    pub(crate) fn page_body(
        &self,
        page_index: usize,
        header: &PageHeader,
        body: &[u8],
    ) -> Result<Bytes> {
        let (ordinal, dictionary) = self.page_module(page_index);
        if dictionary != (header.type_ == PageType::DICTIONARY_PAGE) {
            return Err(Error::format(format!(
                "page {page_index} of an encrypted chunk is a {:?} page where the metadata says {}",
                header.type_,
                if dictionary { "dictionary" } else { "data" }
            )));
        }
        let module = if dictionary {
            ModuleType::DictionaryPage
        } else {
            ModuleType::DataPage
        };
        let (plain, used) = self.decrypt_module(module, ordinal, body)?;
        if used != body.len() {
            return Err(Error::Crypto(format!(
                "decrypting {}: the module has {used} bytes, the page header says {}",
                self.what(module, module.has_page_ordinal().then_some(ordinal)),
                body.len()
            )));
        }
        Ok(Bytes::from(plain))
    }
}

impl Algorithm {
    /// The algorithm of a file's `EncryptionAlgorithm`.
    pub fn of(a: &EncryptionAlgorithm) -> Option<Algorithm> {
        match a {
            EncryptionAlgorithm::AesGcmV1(_) => Some(Algorithm::AesGcmV1),
            EncryptionAlgorithm::AesGcmCtrV1(_) => Some(Algorithm::AesGcmCtrV1),
            EncryptionAlgorithm::Unknown { .. } => None,
        }
    }
}
