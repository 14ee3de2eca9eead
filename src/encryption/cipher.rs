//! Module encryption (Encryption.md §4.2, §5.1) over RustCrypto's `aes-gcm` and `ctr`.
//!
//! ```text
//! GCM module: | length (4, LE) | nonce (12) | ciphertext (length - 28) | tag (16) |
//! CTR module: | length (4, LE) | nonce (12) | ciphertext (length - 12) |
//! ```
//!
//! CTR's 16-byte IV is the nonce followed by a 32-bit big-endian counter starting at 1.
//! Nonces are random (RBG-based construction, NIST SP 800-38D §8.2.2).
//!
//! Probes: every module encrypted or decrypted counts `crypto.aes_ni` when the CPU has AES-NI
//! (the `aes` crate then takes its hardware path, detected the same way at run time) and
//! `crypto.aes_soft` otherwise.

use aes::{Aes128, Aes192, Aes256};
use aes_gcm::aead::consts::U12;
use aes_gcm::aead::{AeadInOut, KeyInit};
use aes_gcm::{AesGcm, Nonce, Tag};
use ctr::cipher::{KeyIvInit, StreamCipher};

use crate::{Error, Result};

/// Bytes of a nonce.
pub const NONCE_LEN: usize = 12;
/// Bytes of a GCM tag.
pub const TAG_LEN: usize = 16;
/// Bytes of the length prefix of a module.
pub const LENGTH_LEN: usize = 4;
/// Bytes a GCM module adds to its plaintext.
pub const GCM_OVERHEAD: usize = LENGTH_LEN + NONCE_LEN + TAG_LEN;
/// Bytes a CTR module adds to its plaintext.
pub const CTR_OVERHEAD: usize = LENGTH_LEN + NONCE_LEN;

enum Gcm {
    A128(Box<AesGcm<Aes128, U12>>),
    A192(Box<AesGcm<Aes192, U12>>),
    A256(Box<AesGcm<Aes256, U12>>),
}

/// The ciphers of one key: GCM for every module, CTR for page bodies of AES_GCM_CTR_V1 files.
pub(crate) struct KeyCipher {
    gcm: Gcm,
    key: Vec<u8>,
}

/// Why a module did not decrypt. Carries no plaintext.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ModuleError {
    /// The module's length prefix does not fit the bytes present.
    Truncated {
        /// Bytes the prefix declares (after the prefix).
        declared: u64,
        /// Bytes present after the prefix.
        available: usize,
    },
    /// The length prefix is smaller than a nonce (and tag).
    TooShort(u32),
    /// The GCM tag did not verify: wrong key, wrong AAD (prefix, file or module identity) or
    /// modified bytes.
    Authentication,
}

impl std::fmt::Display for ModuleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModuleError::Truncated {
                declared,
                available,
            } => write!(
                f,
                "truncated module: length says {declared} bytes, {available} present"
            ),
            ModuleError::TooShort(n) => {
                write!(f, "module length {n} is shorter than its nonce and tag")
            }
            ModuleError::Authentication => f.write_str(
                "authentication failed (wrong key, wrong AAD prefix, or modified bytes)",
            ),
        }
    }
}

/// True when the CPU has AES-NI, the test the `aes` crate makes to choose its hardware path.
pub fn aes_ni_available() -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        cpufeatures::new!(aes_intrinsics, "aes");
        aes_intrinsics::get()
    }
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    {
        false
    }
}

fn probe() {
    parq_codecs::probe::hit(if aes_ni_available() {
        "crypto.aes_ni"
    } else {
        "crypto.aes_soft"
    });
}

/// Checks that `key` is an AES key (16, 24 or 32 bytes).
pub fn check_key(key: &[u8], what: &str) -> Result<()> {
    match key.len() {
        16 | 24 | 32 => Ok(()),
        n => Err(Error::Crypto(format!(
            "{what} has {n} bytes: AES keys have 16, 24 or 32"
        ))),
    }
}

/// `len` random bytes from the operating system.
pub fn random_bytes(len: usize) -> Result<Vec<u8>> {
    let mut v = vec![0u8; len];
    getrandom::fill(&mut v)
        .map_err(|e| Error::Crypto(format!("no random bytes from the system: {e}")))?;
    Ok(v)
}

/// Splits `module` (starting at its length prefix) into its body and its total length.
fn split(module: &[u8], min: usize) -> std::result::Result<(&[u8], usize), ModuleError> {
    let Some(prefix) = module.get(..LENGTH_LEN) else {
        return Err(ModuleError::Truncated {
            declared: LENGTH_LEN as u64,
            available: module.len(),
        });
    };
    let len = u32::from_le_bytes([prefix[0], prefix[1], prefix[2], prefix[3]]);
    if (len as usize) < min {
        return Err(ModuleError::TooShort(len));
    }
    let rest = &module[LENGTH_LEN..];
    if len as usize > rest.len() {
        return Err(ModuleError::Truncated {
            declared: len as u64,
            available: rest.len(),
        });
    }
    Ok((&rest[..len as usize], LENGTH_LEN + len as usize))
}

impl KeyCipher {
    /// The ciphers of `key` (16, 24 or 32 bytes).
    pub(crate) fn new(key: &[u8], what: &str) -> Result<Self> {
        check_key(key, what)?;
        let bad = |_| Error::Crypto(format!("{what}: bad key length"));
        let gcm = match key.len() {
            16 => Gcm::A128(Box::new(AesGcm::new_from_slice(key).map_err(bad)?)),
            24 => Gcm::A192(Box::new(AesGcm::new_from_slice(key).map_err(bad)?)),
            _ => Gcm::A256(Box::new(AesGcm::new_from_slice(key).map_err(bad)?)),
        };
        Ok(KeyCipher {
            gcm,
            key: key.to_vec(),
        })
    }

    fn gcm_seal(&self, nonce: &[u8], aad: &[u8], buf: &mut [u8]) -> Result<Tag> {
        probe();
        let nonce = <&Nonce<U12>>::try_from(nonce)
            .map_err(|_| Error::Crypto(format!("nonce of {} bytes", nonce.len())))?;
        match &self.gcm {
            Gcm::A128(c) => c.encrypt_inout_detached(nonce, aad, buf.into()),
            Gcm::A192(c) => c.encrypt_inout_detached(nonce, aad, buf.into()),
            Gcm::A256(c) => c.encrypt_inout_detached(nonce, aad, buf.into()),
        }
        .map_err(|_| Error::Crypto("module too large for AES-GCM".into()))
    }

    /// Appends the GCM module of `plaintext` to `out`.
    pub(crate) fn gcm_encrypt(
        &self,
        plaintext: &[u8],
        aad: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let len = module_len(plaintext.len() + NONCE_LEN + TAG_LEN)?;
        let nonce = random_bytes(NONCE_LEN)?;
        out.reserve(GCM_OVERHEAD + plaintext.len());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&nonce);
        let start = out.len();
        out.extend_from_slice(plaintext);
        let tag = self.gcm_seal(&nonce, aad, &mut out[start..])?;
        out.extend_from_slice(&tag);
        Ok(())
    }

    /// The GCM tag of `plaintext` under `nonce` (the footer signature, Encryption.md §5.5).
    pub(crate) fn gcm_tag(
        &self,
        plaintext: &[u8],
        aad: &[u8],
        nonce: &[u8],
    ) -> Result<[u8; TAG_LEN]> {
        let mut copy = plaintext.to_vec();
        let tag = self.gcm_seal(nonce, aad, &mut copy)?;
        Ok(tag.into())
    }

    /// Decrypts the GCM module at the start of `module`: the plaintext and the bytes the
    /// module took. Nothing is returned when the tag does not verify.
    pub(crate) fn gcm_decrypt(
        &self,
        module: &[u8],
        aad: &[u8],
    ) -> std::result::Result<(Vec<u8>, usize), ModuleError> {
        let (body, total) = split(module, NONCE_LEN + TAG_LEN)?;
        let (nonce, rest) = body.split_at(NONCE_LEN);
        let (ct, tag) = rest.split_at(rest.len() - TAG_LEN);
        let mut buf = ct.to_vec();
        probe();
        // `split` guarantees 12 and 16 bytes.
        let (Ok(nonce), Ok(tag)) = (<&Nonce<U12>>::try_from(nonce), <&Tag>::try_from(tag)) else {
            return Err(ModuleError::Authentication);
        };
        let inout = buf.as_mut_slice().into();
        match &self.gcm {
            Gcm::A128(c) => c.decrypt_inout_detached(nonce, aad, inout, tag),
            Gcm::A192(c) => c.decrypt_inout_detached(nonce, aad, inout, tag),
            Gcm::A256(c) => c.decrypt_inout_detached(nonce, aad, inout, tag),
        }
        .map_err(|_| ModuleError::Authentication)?;
        Ok((buf, total))
    }

    fn ctr_apply(&self, nonce: &[u8], buf: &mut [u8]) -> Result<()> {
        probe();
        let mut iv = [0u8; 16];
        iv[..NONCE_LEN].copy_from_slice(nonce);
        iv[15] = 1;
        let exhausted = |_| Error::Crypto("page too large for AES-CTR".into());
        let bad = |_| Error::Crypto("bad AES-CTR key or IV length".into());
        match self.key.len() {
            16 => ctr::Ctr32BE::<Aes128>::new_from_slices(&self.key, &iv)
                .map_err(bad)?
                .try_apply_keystream(buf)
                .map_err(exhausted),
            24 => ctr::Ctr32BE::<Aes192>::new_from_slices(&self.key, &iv)
                .map_err(bad)?
                .try_apply_keystream(buf)
                .map_err(exhausted),
            _ => ctr::Ctr32BE::<Aes256>::new_from_slices(&self.key, &iv)
                .map_err(bad)?
                .try_apply_keystream(buf)
                .map_err(exhausted),
        }
    }

    /// Appends the CTR module of `plaintext` to `out`.
    pub(crate) fn ctr_encrypt(&self, plaintext: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let len = module_len(plaintext.len() + NONCE_LEN)?;
        let nonce = random_bytes(NONCE_LEN)?;
        out.reserve(CTR_OVERHEAD + plaintext.len());
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&nonce);
        let start = out.len();
        out.extend_from_slice(plaintext);
        self.ctr_apply(&nonce, &mut out[start..])
    }

    /// Decrypts the CTR module at the start of `module` (CTR has no tag: nothing is verified).
    pub(crate) fn ctr_decrypt(
        &self,
        module: &[u8],
    ) -> std::result::Result<(Vec<u8>, usize), ModuleError> {
        let (body, total) = split(module, NONCE_LEN)?;
        let (nonce, ct) = body.split_at(NONCE_LEN);
        let mut buf = ct.to_vec();
        // The key length was checked in `new`, and the page fits an i32: neither fails.
        self.ctr_apply(nonce, &mut buf)
            .map_err(|_| ModuleError::Authentication)?;
        Ok((buf, total))
    }
}

fn module_len(n: usize) -> Result<u32> {
    u32::try_from(n).map_err(|_| Error::Crypto(format!("module of {n} bytes exceeds 4 GiB")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gcm_round_trip_and_tamper() {
        for len in [16, 24, 32] {
            let c = KeyCipher::new(&vec![7u8; len], "key").unwrap();
            let mut m = Vec::new();
            c.gcm_encrypt(b"hello parquet", b"aad", &mut m).unwrap();
            assert_eq!(m.len(), 13 + GCM_OVERHEAD);
            assert_eq!(
                c.gcm_decrypt(&m, b"aad").unwrap(),
                (b"hello parquet".to_vec(), m.len())
            );
            assert_eq!(c.gcm_decrypt(&m, b"aae"), Err(ModuleError::Authentication));
            let mut bad = m.clone();
            bad[20] ^= 1;
            assert_eq!(
                c.gcm_decrypt(&bad, b"aad"),
                Err(ModuleError::Authentication)
            );
            assert!(matches!(
                c.gcm_decrypt(&m[..m.len() - 1], b"aad"),
                Err(ModuleError::Truncated { .. })
            ));
        }
        assert!(KeyCipher::new(&[0; 15], "key").is_err());
    }

    #[test]
    fn ctr_round_trip() {
        let c = KeyCipher::new(&[3u8; 16], "key").unwrap();
        let mut m = Vec::new();
        c.ctr_encrypt(b"page bytes", &mut m).unwrap();
        assert_eq!(m.len(), 10 + CTR_OVERHEAD);
        assert_ne!(&m[16..], b"page bytes");
        assert_eq!(c.ctr_decrypt(&m).unwrap().0, b"page bytes");
    }

    #[test]
    fn ctr_iv_counter_starts_at_one() {
        // With CTR, the first keystream block is AES(nonce || 00 00 00 01).
        use aes::cipher::{BlockCipherEncrypt, KeyInit as _};
        let key = [9u8; 16];
        let c = KeyCipher::new(&key, "key").unwrap();
        let mut m = Vec::new();
        c.ctr_encrypt(&[0u8; 16], &mut m).unwrap();
        let mut block = [0u8; 16];
        block[..12].copy_from_slice(&m[4..16]);
        block[15] = 1;
        let mut block = block.into();
        Aes128::new(&key.into()).encrypt_block(&mut block);
        assert_eq!(&m[16..], &block[..]);
    }
}
