//! Keys and choices: what a reader needs to decrypt ([`FileDecryptionProperties`]) and what a
//! writer encrypts with ([`FileEncryptionProperties`]).

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::sync::Arc;

use super::cipher::check_key;
use crate::{Error, Result};

/// Maps the `key_metadata` stored in a file (for the footer key or a column key) to the key.
///
/// ```
/// use parq::encryption::KeyRetriever;
///
/// /// Key ids stored as key metadata, looked up in a table.
/// struct Table(Vec<(Vec<u8>, Vec<u8>)>);
/// impl KeyRetriever for Table {
///     fn retrieve_key(&self, key_metadata: &[u8]) -> parq::Result<Vec<u8>> {
///         self.0.iter().find(|(id, _)| id == key_metadata).map(|(_, k)| k.clone()).ok_or_else(|| {
///             parq::Error::Crypto(format!("unknown key id {:?}", String::from_utf8_lossy(key_metadata)))
///         })
///     }
/// }
/// ```
pub trait KeyRetriever: Send + Sync {
    /// The key that `key_metadata` names. An error stops reading what the key protects.
    fn retrieve_key(&self, key_metadata: &[u8]) -> Result<Vec<u8>>;
}

/// What a reader knows to decrypt a file: the footer key, column keys by dotted path, a key
/// retriever for keys named by their `key_metadata`, and the AAD prefix when the file does
/// not store it. Explicit keys win over the retriever.
///
/// ```
/// use parq::encryption::FileDecryptionProperties;
///
/// let props = FileDecryptionProperties::builder()
///     .with_footer_key(b"0123456789012345".to_vec())
///     .with_column_key("double_field", b"1234567890123450".to_vec())
///     .with_aad_prefix(b"tester".to_vec())
///     .build()?;
/// assert!(props.footer_key().is_some());
/// # Ok::<(), parq::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct FileDecryptionProperties {
    footer_key: Option<Vec<u8>>,
    column_keys: HashMap<String, Vec<u8>>,
    aad_prefix: Option<Vec<u8>>,
    retriever: Option<Arc<dyn KeyRetriever>>,
    verify_footer_signature: bool,
}

impl fmt::Debug for FileDecryptionProperties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Keys are secrets: name what is known, never the bytes.
        let mut cols: Vec<_> = self.column_keys.keys().collect();
        cols.sort();
        f.debug_struct("FileDecryptionProperties")
            .field(
                "footer_key",
                &self.footer_key.as_ref().map(|_| "<redacted>"),
            )
            .field("column_keys", &cols)
            .field(
                "aad_prefix",
                &self.aad_prefix.as_ref().map(|p| String::from_utf8_lossy(p)),
            )
            .field("retriever", &self.retriever.is_some())
            .field("verify_footer_signature", &self.verify_footer_signature)
            .finish()
    }
}

impl FileDecryptionProperties {
    /// A builder with no keys; footer signatures are verified when the footer key is known.
    pub fn builder() -> FileDecryptionPropertiesBuilder {
        FileDecryptionPropertiesBuilder {
            props: FileDecryptionProperties {
                verify_footer_signature: true,
                ..FileDecryptionProperties::default()
            },
        }
    }

    /// The explicit footer key.
    pub fn footer_key(&self) -> Option<&[u8]> {
        self.footer_key.as_deref()
    }

    /// The explicit key of the column at dotted `path`.
    pub fn column_key(&self, path: &str) -> Option<&[u8]> {
        self.column_keys.get(path).map(Vec::as_slice)
    }

    /// The AAD prefix supplied by the caller.
    pub fn aad_prefix(&self) -> Option<&[u8]> {
        self.aad_prefix.as_deref()
    }

    /// The key retriever.
    pub fn retriever(&self) -> Option<&Arc<dyn KeyRetriever>> {
        self.retriever.as_ref()
    }

    /// Whether a plaintext footer's signature is checked (when the footer key is known).
    pub fn verify_footer_signature(&self) -> bool {
        self.verify_footer_signature
    }
}

/// Builds [`FileDecryptionProperties`].
#[derive(Debug)]
pub struct FileDecryptionPropertiesBuilder {
    props: FileDecryptionProperties,
}

impl FileDecryptionPropertiesBuilder {
    /// The footer key (also the key of columns encrypted with it).
    pub fn with_footer_key(mut self, key: Vec<u8>) -> Self {
        self.props.footer_key = Some(key);
        self
    }

    /// The key of the column at dotted `path` (e.g. `a.b.list.element`).
    pub fn with_column_key(mut self, path: impl Into<String>, key: Vec<u8>) -> Self {
        self.props.column_keys.insert(path.into(), key);
        self
    }

    /// The AAD prefix, for files written without storing it (`supply_aad_prefix`). A file
    /// that stores a different prefix is refused.
    pub fn with_aad_prefix(mut self, prefix: Vec<u8>) -> Self {
        self.props.aad_prefix = Some(prefix);
        self
    }

    /// Where keys without an explicit value come from, by their `key_metadata`.
    pub fn with_key_retriever(mut self, retriever: Arc<dyn KeyRetriever>) -> Self {
        self.props.retriever = Some(retriever);
        self
    }

    /// Skip the check of a plaintext footer's signature (on by default).
    pub fn without_footer_signature_verification(mut self) -> Self {
        self.props.verify_footer_signature = false;
        self
    }

    /// Check the key sizes and build.
    pub fn build(self) -> Result<FileDecryptionProperties> {
        if let Some(k) = &self.props.footer_key {
            check_key(k, "footer key")?;
        }
        for (path, k) in &self.props.column_keys {
            check_key(k, &format!("key of column {path}"))?;
        }
        Ok(self.props)
    }
}

/// The two algorithms of the spec (Encryption.md §4.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// AES_GCM_V1: every module with AES-GCM.
    #[default]
    AesGcmV1,
    /// AES_GCM_CTR_V1: page bodies with AES-CTR (no tag), everything else with AES-GCM.
    AesGcmCtrV1,
}

/// The key of one encrypted column.
#[derive(Clone, PartialEq, Eq)]
pub struct ColumnKey {
    /// The column's own key; `None` encrypts it with the footer key.
    pub key: Option<Vec<u8>>,
    /// Stored in the file for readers' key retrievers.
    pub key_metadata: Option<Vec<u8>>,
}

/// How a writer encrypts a file.
///
/// With no column keys every column is encrypted with the footer key ("uniform
/// encryption"). With column keys only the named columns are encrypted; the others stay
/// plaintext.
///
/// ```
/// use parq::encryption::{Algorithm, FileEncryptionProperties};
///
/// let props = FileEncryptionProperties::builder(b"0123456789012345".to_vec())
///     .with_algorithm(Algorithm::AesGcmCtrV1)
///     .with_column_key("ssn", b"1234567890123450".to_vec())
///     .with_plaintext_footer(true)
///     .with_aad_prefix(b"employees_2026".to_vec())
///     .with_aad_prefix_storage(false)
///     .build()?;
/// assert!(props.plaintext_footer());
/// # Ok::<(), parq::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct FileEncryptionProperties {
    algorithm: Algorithm,
    footer_key: Vec<u8>,
    footer_key_metadata: Option<Vec<u8>>,
    plaintext_footer: bool,
    column_keys: BTreeMap<String, ColumnKey>,
    aad_prefix: Option<Vec<u8>>,
    store_aad_prefix: bool,
}

impl fmt::Debug for FileEncryptionProperties {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FileEncryptionProperties")
            .field("algorithm", &self.algorithm)
            .field("plaintext_footer", &self.plaintext_footer)
            .field("columns", &self.column_keys.keys().collect::<Vec<_>>())
            .field(
                "aad_prefix",
                &self.aad_prefix.as_ref().map(|p| String::from_utf8_lossy(p)),
            )
            .field("store_aad_prefix", &self.store_aad_prefix)
            .finish_non_exhaustive()
    }
}

impl FileEncryptionProperties {
    /// A builder encrypting with `footer_key` (AES-GCM, encrypted footer, all columns).
    pub fn builder(footer_key: Vec<u8>) -> FileEncryptionPropertiesBuilder {
        FileEncryptionPropertiesBuilder {
            props: FileEncryptionProperties {
                algorithm: Algorithm::AesGcmV1,
                footer_key,
                footer_key_metadata: None,
                plaintext_footer: false,
                column_keys: BTreeMap::new(),
                aad_prefix: None,
                store_aad_prefix: true,
            },
        }
    }

    /// The algorithm.
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The footer key.
    pub fn footer_key(&self) -> &[u8] {
        &self.footer_key
    }

    /// Key metadata of the footer key.
    pub fn footer_key_metadata(&self) -> Option<&[u8]> {
        self.footer_key_metadata.as_deref()
    }

    /// True when the footer is written in plaintext (signed) rather than encrypted.
    pub fn plaintext_footer(&self) -> bool {
        self.plaintext_footer
    }

    /// The encrypted columns by dotted path (empty: every column, with the footer key).
    pub fn column_keys(&self) -> &BTreeMap<String, ColumnKey> {
        &self.column_keys
    }

    /// The AAD prefix.
    pub fn aad_prefix(&self) -> Option<&[u8]> {
        self.aad_prefix.as_deref()
    }

    /// Whether the AAD prefix is stored in the file.
    pub fn store_aad_prefix(&self) -> bool {
        self.store_aad_prefix
    }
}

/// Builds [`FileEncryptionProperties`].
#[derive(Debug)]
pub struct FileEncryptionPropertiesBuilder {
    props: FileEncryptionProperties,
}

impl FileEncryptionPropertiesBuilder {
    /// The algorithm (AES_GCM_V1 by default).
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Self {
        self.props.algorithm = algorithm;
        self
    }

    /// Key metadata stored for the footer key.
    pub fn with_footer_key_metadata(mut self, metadata: Vec<u8>) -> Self {
        self.props.footer_key_metadata = Some(metadata);
        self
    }

    /// Write the footer in plaintext, signed with the footer key, so that readers without
    /// keys can read the plaintext columns.
    pub fn with_plaintext_footer(mut self, plaintext: bool) -> Self {
        self.props.plaintext_footer = plaintext;
        self
    }

    /// Encrypt the column at dotted `path` with its own `key`.
    pub fn with_column_key(mut self, path: impl Into<String>, key: Vec<u8>) -> Self {
        self.props.column_keys.insert(
            path.into(),
            ColumnKey {
                key: Some(key),
                key_metadata: None,
            },
        );
        self
    }

    /// Encrypt the column at dotted `path` with its own `key`, storing `key_metadata`.
    pub fn with_column_key_and_metadata(
        mut self,
        path: impl Into<String>,
        key: Vec<u8>,
        key_metadata: Vec<u8>,
    ) -> Self {
        self.props.column_keys.insert(
            path.into(),
            ColumnKey {
                key: Some(key),
                key_metadata: Some(key_metadata),
            },
        );
        self
    }

    /// Encrypt the column at dotted `path` with the footer key.
    pub fn with_column_footer_key(mut self, path: impl Into<String>) -> Self {
        self.props.column_keys.insert(
            path.into(),
            ColumnKey {
                key: None,
                key_metadata: None,
            },
        );
        self
    }

    /// The AAD prefix: a file identity that readers check.
    pub fn with_aad_prefix(mut self, prefix: Vec<u8>) -> Self {
        self.props.aad_prefix = Some(prefix);
        self
    }

    /// Whether the AAD prefix is stored in the file (default); when not, readers must supply
    /// it (`supply_aad_prefix`).
    pub fn with_aad_prefix_storage(mut self, store: bool) -> Self {
        self.props.store_aad_prefix = store;
        self
    }

    /// Check the key sizes and build.
    pub fn build(self) -> Result<FileEncryptionProperties> {
        check_key(&self.props.footer_key, "footer key")?;
        for (path, k) in &self.props.column_keys {
            if let Some(k) = &k.key {
                check_key(k, &format!("key of column {path}"))?;
            }
        }
        if !self.props.store_aad_prefix && self.props.aad_prefix.is_none() {
            return Err(Error::InvalidArgument(
                "an AAD prefix kept out of the file needs an AAD prefix".into(),
            ));
        }
        Ok(self.props)
    }
}
