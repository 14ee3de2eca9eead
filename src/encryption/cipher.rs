//! Module encryption (Encryption.md §4.2, §5.1) over `aws-lc-rs` (AWS-LC's AES-GCM and
//! AES-CTR; it takes the CPU's VAES/VPCLMULQDQ, AES-NI or ARMv8 crypto paths at run time).
//! This file is the only one that names the backend.
//!
//! ```text
//! GCM module: | length (4, LE) | nonce (12) | ciphertext (length - 28) | tag (16) |
//! CTR module: | length (4, LE) | nonce (12) | ciphertext (length - 12) |
//! ```
//!
//! CTR's 16-byte IV is the nonce followed by a 32-bit big-endian counter starting at 1 (the
//! backend's 128-bit counter carries out of those 32 bits only past 64 GiB, far beyond a
//! page's i32 size). Nonces are random (RBG-based construction, NIST SP 800-38D §8.2.2).
//! Modules are sealed in place in the writer's buffer and opened out of place, straight from
//! the file's bytes into the plaintext's own buffer.
//!
//! Probes: every module encrypted or decrypted counts `crypto.aes_ni` when the CPU has AES-NI
//! (AWS-LC then takes a hardware path, detected the same way at run time) and
//! `crypto.aes_soft` otherwise.

use aws_lc_rs::aead::{Aad, LessSafeKey, Nonce, UnboundKey, AES_128_GCM, AES_192_GCM, AES_256_GCM};
use aws_lc_rs::cipher::{
    EncryptingKey, EncryptionContext, UnboundCipherKey, AES_128, AES_192, AES_256,
};

use crate::{Error, Result};

/// Bytes of a nonce.
pub const NONCE_LEN: usize = 12;
/// Bytes of a GCM tag.
pub const TAG_LEN: usize = 16;
/// Bytes of the length prefix of a module.
pub const LENGTH_LEN: usize = 4;
/// Bytes before a module's ciphertext: its length prefix and nonce.
pub(crate) const MODULE_PREFIX: usize = LENGTH_LEN + NONCE_LEN;
/// Bytes a GCM module adds to its plaintext.
pub const GCM_OVERHEAD: usize = LENGTH_LEN + NONCE_LEN + TAG_LEN;
/// Bytes a CTR module adds to its plaintext.
pub const CTR_OVERHEAD: usize = LENGTH_LEN + NONCE_LEN;

/// The ciphers of one key: GCM for every module, CTR for page bodies of AES_GCM_CTR_V1 files.
pub(crate) struct KeyCipher {
    gcm: LessSafeKey,
    /// CTR is its own inverse: this key decrypts as well.
    ctr: EncryptingKey,
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

/// True when the CPU has AES-NI, the first test AWS-LC makes to choose a hardware path.
pub fn aes_ni_available() -> bool {
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        std::arch::is_x86_feature_detected!("aes")
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
        let (gcm, ctr) = match key.len() {
            16 => (&AES_128_GCM, &AES_128),
            24 => (&AES_192_GCM, &AES_192),
            _ => (&AES_256_GCM, &AES_256),
        };
        let bad = |_| Error::Crypto(format!("{what}: bad key length"));
        Ok(KeyCipher {
            gcm: LessSafeKey::new(UnboundKey::new(gcm, key).map_err(bad)?),
            ctr: EncryptingKey::ctr(UnboundCipherKey::new(ctr, key).map_err(bad)?).map_err(bad)?,
        })
    }

    /// Seals the GCM module at `buf[start..]`: [`MODULE_PREFIX`] reserved bytes, then the
    /// plaintext to the end of `buf`. Encrypts in place, fills the length and a random nonce,
    /// appends the tag.
    pub(crate) fn gcm_seal(&self, aad: &[u8], buf: &mut Vec<u8>, start: usize) -> Result<()> {
        let nonce = fill_prefix(buf, start, TAG_LEN)?;
        probe();
        let tag = self
            .gcm
            .seal_in_place_separate_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(aad),
                &mut buf[start + MODULE_PREFIX..],
            )
            .map_err(|_| Error::Crypto("module too large for AES-GCM".into()))?;
        buf.extend_from_slice(tag.as_ref());
        Ok(())
    }

    /// Seals the CTR module at `buf[start..]`, laid out as for [`KeyCipher::gcm_seal`].
    pub(crate) fn ctr_seal(&self, buf: &mut [u8], start: usize) -> Result<()> {
        let nonce = fill_prefix(buf, start, 0)?;
        self.ctr_apply(&nonce, &mut buf[start + MODULE_PREFIX..])
            .map_err(|_| Error::Crypto("page too large for AES-CTR".into()))
    }

    /// Appends the GCM module of `plaintext` to `out`.
    pub(crate) fn gcm_encrypt(
        &self,
        plaintext: &[u8],
        aad: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        out.reserve(GCM_OVERHEAD + plaintext.len());
        let start = out.len();
        out.resize(start + MODULE_PREFIX, 0);
        out.extend_from_slice(plaintext);
        self.gcm_seal(aad, out, start)
    }

    /// The GCM tag of `plaintext` under `nonce` (the footer signature, Encryption.md §5.5).
    pub(crate) fn gcm_tag(
        &self,
        plaintext: &[u8],
        aad: &[u8],
        nonce: &[u8],
    ) -> Result<[u8; TAG_LEN]> {
        let nonce = Nonce::try_assume_unique_for_key(nonce)
            .map_err(|_| Error::Crypto(format!("nonce of {} bytes", nonce.len())))?;
        let mut copy = plaintext.to_vec();
        probe();
        let tag = self
            .gcm
            .seal_in_place_separate_tag(nonce, Aad::from(aad), &mut copy)
            .map_err(|_| Error::Crypto("footer too large for AES-GCM".into()))?;
        let mut out = [0u8; TAG_LEN];
        out.copy_from_slice(tag.as_ref());
        Ok(out)
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
        // `split` guarantees the nonce's 12 bytes.
        let nonce =
            Nonce::try_assume_unique_for_key(nonce).map_err(|_| ModuleError::Authentication)?;
        let mut plain = vec![0u8; ct.len()];
        probe();
        self.gcm
            .open_separate_gather(nonce, Aad::from(aad), ct, tag, &mut plain)
            .map_err(|_| ModuleError::Authentication)?;
        Ok((plain, total))
    }

    fn ctr_apply(&self, nonce: &[u8], buf: &mut [u8]) -> Result<()> {
        probe();
        let mut iv = [0u8; 16];
        iv[..NONCE_LEN].copy_from_slice(nonce);
        iv[15] = 1;
        self.ctr
            .less_safe_encrypt(buf, EncryptionContext::Iv128(iv.into()))
            .map(|_| ())
            .map_err(|_| Error::Crypto("AES-CTR failed".into()))
    }

    /// Appends the CTR module of `plaintext` to `out`.
    #[cfg(test)]
    fn ctr_encrypt(&self, plaintext: &[u8], out: &mut Vec<u8>) -> Result<()> {
        out.reserve(CTR_OVERHEAD + plaintext.len());
        let start = out.len();
        out.resize(start + MODULE_PREFIX, 0);
        out.extend_from_slice(plaintext);
        self.ctr_seal(out, start)
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

/// Fills the prefix of the module at `buf[start..]` (its plaintext runs to the end of
/// `buf`, and `tail` bytes of tag will follow): the length and a random nonce, returned.
fn fill_prefix(buf: &mut [u8], start: usize, tail: usize) -> Result<[u8; NONCE_LEN]> {
    let plain = buf
        .len()
        .checked_sub(start + MODULE_PREFIX)
        .ok_or_else(|| Error::Crypto("module without room for its prefix".into()))?;
    let len = module_len(plain + NONCE_LEN + tail)?;
    let mut nonce = [0u8; NONCE_LEN];
    getrandom::fill(&mut nonce)
        .map_err(|e| Error::Crypto(format!("no random bytes from the system: {e}")))?;
    buf[start..start + LENGTH_LEN].copy_from_slice(&len.to_le_bytes());
    buf[start + LENGTH_LEN..start + MODULE_PREFIX].copy_from_slice(&nonce);
    Ok(nonce)
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
        // With CTR, the first keystream block is AES(nonce || 00 00 00 01), the second
        // AES(nonce || 00 00 00 02).
        use aws_lc_rs::cipher::EncryptionContext;
        for len in [16, 24, 32] {
            let key = vec![9u8; len];
            let c = KeyCipher::new(&key, "key").unwrap();
            let mut m = Vec::new();
            c.ctr_encrypt(&[0u8; 32], &mut m).unwrap();
            let mut blocks = [0u8; 32];
            for (i, block) in blocks.chunks_mut(16).enumerate() {
                block[..12].copy_from_slice(&m[4..16]);
                block[15] = i as u8 + 1;
            }
            let alg = [&AES_128, &AES_192, &AES_256][len / 8 - 2];
            let ecb = EncryptingKey::ecb(UnboundCipherKey::new(alg, &key).unwrap()).unwrap();
            ecb.less_safe_encrypt(&mut blocks, EncryptionContext::None)
                .unwrap();
            assert_eq!(&m[16..], &blocks[..], "AES-{}", len * 8);
        }
    }

    #[test]
    fn gcm_matches_a_known_answer() {
        // NIST GCM test vector (gcmEncryptExtIV128, Count 0 with 16-byte plaintext):
        // key 0, nonce 0, plaintext 0^16 -> ciphertext 0388dace60b6a392f328c2b971b2fe78,
        // tag ab6e47d42cec13bdf53a67b21257bddf.
        let c = KeyCipher::new(&[0u8; 16], "key").unwrap();
        let mut module = vec![0u8; MODULE_PREFIX + 16];
        module[..4].copy_from_slice(&44u32.to_le_bytes());
        let (ct, tag) = (
            "0388dace60b6a392f328c2b971b2fe78",
            "ab6e47d42cec13bdf53a67b21257bddf",
        );
        let hex = |s: &str| -> Vec<u8> {
            (0..s.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
                .collect()
        };
        module[MODULE_PREFIX..].copy_from_slice(&hex(ct));
        module.extend_from_slice(&hex(tag));
        assert_eq!(c.gcm_decrypt(&module, b"").unwrap().0, vec![0u8; 16]);
        assert_eq!(
            c.gcm_tag(&[0u8; 16], b"", &[0; 12]).unwrap()[..],
            hex(tag)[..]
        );
    }
}
