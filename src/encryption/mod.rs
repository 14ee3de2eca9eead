//! Parquet modular encryption (apache/parquet-format `Encryption.md`): AES_GCM_V1 and
//! AES_GCM_CTR_V1 with 128-, 192- and 256-bit keys, encrypted or plaintext (signed) footers,
//! a footer key and per-column keys. Feature `encryption`; the ciphers are AWS-LC's
//! (`aws-lc-rs`), behind one small interface in `cipher.rs`.
//!
//! Reading: give [`crate::read::ReadOptions::decryption`] a [`FileDecryptionProperties`].
//! Writing: give [`crate::write::WriterOptions::encryption`] a [`FileEncryptionProperties`].
//!
//! ```
//! use parq::column::{Column, Values};
//! use parq::encryption::{FileDecryptionProperties, FileEncryptionProperties};
//! use parq::read::{ParquetReader, ReadOptions};
//! use parq::write::{Field, ParquetWriter, WriterOptions};
//!
//! let footer_key = b"0123456789012345".to_vec();
//! let options = WriterOptions::default()
//!     .with_encryption(Some(FileEncryptionProperties::builder(footer_key.clone()).build()?));
//! let mut file = Vec::new();
//! let mut w = ParquetWriter::new(&mut file, vec![Field::int64("id")], options)?;
//! w.write_batch(&[Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) }])?;
//! w.finish()?;
//! assert_eq!(&file[..4], b"PARE"); // encrypted footer
//!
//! let options = ReadOptions::default()
//!     .with_decryption(Some(FileDecryptionProperties::builder().with_footer_key(footer_key).build()?));
//! let reader = ParquetReader::with_options(bytes::Bytes::from(file.clone()), options)?;
//! assert_eq!(reader.read_column(0)?.len, 3);
//!
//! // Without the key the footer stays closed.
//! assert!(ParquetReader::new(bytes::Bytes::from(file)).is_err());
//! # Ok::<(), parq::Error>(())
//! ```
//!
//! # Modes, keys and errors
//!
//! An encrypted footer (`PARE`) or a plaintext footer signed with the footer key (plaintext
//! columns then read without keys); a footer key and column keys by dotted path; a
//! [`KeyRetriever`] that maps stored `key_metadata` to keys; an AAD prefix stored in the file or
//! supplied by the reader. AWS-LC takes its hardware AES paths when the CPU has them (probes
//! `crypto.aes_ni` / `crypto.aes_soft`). Pages are sealed in place in the writer's page buffer
//! as they are written; modules are opened out of place, from the file's bytes straight into an
//! owned buffer, never a view of a memory map. A module that does not authenticate is an [`Error::Crypto`](crate::Error::Crypto)
//! that names it, e.g. `encryption: decrypting data page 3 of column x in row group 0:
//! authentication failed (wrong key, wrong AAD prefix, or modified bytes)`; a missing key names
//! the column. With a plaintext footer, encrypted columns keep a copy of their metadata without
//! statistics in the footer and the full one encrypted (§5.5). What it was checked against is in
//! `docs/interop.md`.
//!
//! A plaintext footer with one encrypted column:
//!
//! ```
//! use parq::column::{Column, Values};
//! use parq::encryption::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};
//! use parq::read::{ParquetReader, ReadOptions};
//! use parq::write::{Field, ParquetWriter, WriterOptions};
//!
//! let encryption = FileEncryptionProperties::builder(b"0123456789012345".to_vec())
//!     .with_algorithm(Algorithm::AesGcmV1)
//!     .with_column_key("ssn", b"1234567890123450".to_vec()) // only `ssn` is encrypted
//!     .with_plaintext_footer(true)
//!     .build()?;
//! let options = WriterOptions::default().with_encryption(Some(encryption));
//! let mut file = Vec::new();
//! let mut w = ParquetWriter::new(&mut file, vec![Field::int64("id"), Field::int64("ssn")], options)?;
//! let col = |v: Vec<i64>| Column { len: v.len(), validity: None, values: Values::Int64(v.into()) };
//! w.write_batch(&[col(vec![1, 2]), col(vec![111, 222])])?;
//! w.finish()?;
//! let file = bytes::Bytes::from(file);
//!
//! // No keys: the plaintext column reads, the encrypted one is an error naming it.
//! let reader = ParquetReader::new(file.clone())?;
//! assert_eq!(reader.read_column_by_path("id")?.len, 2);
//! assert!(reader.read_column_by_path("ssn").is_err());
//!
//! let decryption = FileDecryptionProperties::builder()
//!     .with_footer_key(b"0123456789012345".to_vec()) // verifies the footer signature
//!     .with_column_key("ssn", b"1234567890123450".to_vec())
//!     .build()?;
//! let options = ReadOptions::default().with_decryption(Some(decryption));
//! let reader = ParquetReader::with_options(file, options)?;
//! assert_eq!(reader.read_column_by_path("ssn")?.len, 2);
//! # Ok::<(), parq::Error>(())
//! ```

mod aad;
mod cipher;
mod keys;
pub(crate) mod read;
pub(crate) mod write;

pub use aad::{footer_aad, module_aad, ModuleType, MAX_ORDINAL};
pub use cipher::{aes_ni_available, CTR_OVERHEAD, GCM_OVERHEAD, NONCE_LEN, TAG_LEN};
pub use keys::{
    Algorithm, ColumnKey, FileDecryptionProperties, FileDecryptionPropertiesBuilder,
    FileEncryptionProperties, FileEncryptionPropertiesBuilder, KeyRetriever,
};
pub use read::SIGNATURE_LEN;

use crate::metadata::thrift::ty;
use crate::metadata::{CompactReader, CompactWriter, EncryptionAlgorithm};
use crate::Result;

/// The `FileCryptoMetaData` written before an encrypted footer (Encryption.md §5.4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileCryptoMetaData {
    /// The algorithm and its AAD parameters.
    pub encryption_algorithm: EncryptionAlgorithm,
    /// Retrieval metadata of the footer key.
    pub key_metadata: Option<Vec<u8>>,
}

impl FileCryptoMetaData {
    /// Reads a `FileCryptoMetaData` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let (mut algorithm, mut key_metadata) = (None, None);
        r.read_struct("FileCryptoMetaData", |r, id, t| {
            match id {
                1 => algorithm = Some(r.struct_value(t, EncryptionAlgorithm::read)?),
                2 => key_metadata = Some(r.bytes(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(FileCryptoMetaData {
            encryption_algorithm: r
                .required(algorithm, "FileCryptoMetaData.encryption_algorithm")?,
            key_metadata,
        })
    }

    /// Writes a `FileCryptoMetaData` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.field_header(ty::STRUCT, 1);
        self.encryption_algorithm.write(w);
        if let Some(k) = &self.key_metadata {
            w.binary_field(2, k);
        }
        w.struct_end();
    }
}

#[cfg(test)]
mod sealed_pages;
