//! Encryption flags shared by the commands that read (`--footer-key`, `--column-key`,
//! `--aad-prefix`) and by `rewrite`'s output (`--encrypt-*`). A KEY is hex
//! (`30313233...`) or `ascii:TEXT`; AES keys have 16, 24 or 32 bytes.

use parq::encryption::{Algorithm, FileDecryptionProperties, FileEncryptionProperties};
use parq::read::ReadOptions;
use parq::{Error, Result};

/// Keys to read an encrypted file with.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct KeyArgs {
    /// Footer key of an encrypted file (also the key of columns encrypted with it): hex, or
    /// ascii:TEXT.
    #[arg(long, value_name = "KEY")]
    footer_key: Option<String>,
    /// Key of one encrypted column, as PATH:KEY (dotted column path); repeatable.
    #[arg(long = "column-key", value_name = "PATH:KEY")]
    column_keys: Vec<String>,
    /// AAD prefix of a file that was encrypted with one and does not store it.
    #[arg(long, value_name = "TEXT")]
    aad_prefix: Option<String>,
}

/// A KEY argument: hex digits, or `ascii:` and the key's bytes as text.
pub fn parse_key(text: &str) -> Result<Vec<u8>> {
    if let Some(ascii) = text.strip_prefix("ascii:") {
        return Ok(ascii.as_bytes().to_vec());
    }
    let bad = || {
        Error::InvalidArgument(format!(
            "key {text:?} is neither hex nor ascii:TEXT (e.g. ascii:0123456789012345)"
        ))
    };
    if text.len() % 2 != 0 || !text.is_ascii() {
        return Err(bad());
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&text[i..i + 2], 16).map_err(|_| bad()))
        .collect()
}

/// `PATH:KEY` split at the first colon.
fn column_key(arg: &str) -> Result<(String, Vec<u8>)> {
    let (path, key) = arg
        .split_once(':')
        .ok_or_else(|| Error::InvalidArgument(format!("column key {arg:?} is not PATH:KEY")))?;
    Ok((path.to_string(), parse_key(key)?))
}

impl KeyArgs {
    /// The decryption properties the flags give, `None` without flags.
    pub fn decryption(&self) -> Result<Option<FileDecryptionProperties>> {
        if self.footer_key.is_none() && self.column_keys.is_empty() && self.aad_prefix.is_none() {
            return Ok(None);
        }
        let mut b = FileDecryptionProperties::builder();
        if let Some(k) = &self.footer_key {
            b = b.with_footer_key(parse_key(k)?);
        }
        for arg in &self.column_keys {
            let (path, key) = column_key(arg)?;
            b = b.with_column_key(path, key);
        }
        if let Some(p) = &self.aad_prefix {
            b = b.with_aad_prefix(p.as_bytes().to_vec());
        }
        b.build().map(Some)
    }

    /// Default read options with these keys.
    pub fn read_options(&self) -> Result<ReadOptions> {
        Ok(ReadOptions::default().with_decryption(self.decryption()?))
    }

    /// [`Self::read_options`] decoding on `threads` threads.
    pub fn read_options_with(&self, threads: u16) -> Result<ReadOptions> {
        Ok(self.read_options()?.with_threads(threads.into()))
    }
}

/// How `rewrite` encrypts its output.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct EncryptArgs {
    /// Encrypt the output with this footer key (every column with it, unless
    /// --encrypt-column-key names columns: then only those are encrypted).
    #[arg(long, value_name = "KEY")]
    encrypt_footer_key: Option<String>,
    /// Encrypt one column of the output with its own key, as PATH:KEY; repeatable.
    #[arg(long = "encrypt-column-key", value_name = "PATH:KEY")]
    encrypt_column_keys: Vec<String>,
    /// gcm (AES_GCM_V1) or ctr (AES_GCM_CTR_V1: pages with AES-CTR).
    #[arg(long, value_name = "ALGORITHM", default_value = "gcm")]
    encrypt_algorithm: String,
    /// Leave the footer in plaintext (signed with the footer key).
    #[arg(long)]
    plaintext_footer: bool,
    /// AAD prefix of the output, stored in it.
    #[arg(long, value_name = "TEXT")]
    encrypt_aad_prefix: Option<String>,
    /// Do not store the AAD prefix in the output: readers must supply it.
    #[arg(long)]
    no_store_aad_prefix: bool,
}

impl EncryptArgs {
    /// The encryption properties the flags give, `None` without --encrypt-footer-key.
    pub fn encryption(&self) -> Result<Option<FileEncryptionProperties>> {
        let Some(footer) = &self.encrypt_footer_key else {
            if !self.encrypt_column_keys.is_empty() || self.plaintext_footer {
                return Err(Error::InvalidArgument(
                    "encrypting needs --encrypt-footer-key".into(),
                ));
            }
            return Ok(None);
        };
        let algorithm = match self.encrypt_algorithm.to_ascii_lowercase().as_str() {
            "gcm" => Algorithm::AesGcmV1,
            "ctr" | "gcm-ctr" => Algorithm::AesGcmCtrV1,
            a => {
                return Err(Error::InvalidArgument(format!(
                    "encryption algorithm {a:?} (gcm or ctr)"
                )))
            }
        };
        let mut b = FileEncryptionProperties::builder(parse_key(footer)?)
            .with_algorithm(algorithm)
            .with_plaintext_footer(self.plaintext_footer)
            .with_aad_prefix_storage(!self.no_store_aad_prefix);
        for arg in &self.encrypt_column_keys {
            let (path, key) = column_key(arg)?;
            b = b.with_column_key(path, key);
        }
        if let Some(p) = &self.encrypt_aad_prefix {
            b = b.with_aad_prefix(p.as_bytes().to_vec());
        }
        b.build().map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_as_hex_or_ascii() {
        assert_eq!(parse_key("00ff10").unwrap(), [0, 255, 16]);
        assert_eq!(parse_key("ascii:ab:c").unwrap(), b"ab:c");
        assert!(parse_key("0g").is_err());
        assert!(parse_key("abc").is_err());
        assert_eq!(
            column_key("a.b:ascii:0123456789012345").unwrap(),
            ("a.b".to_string(), b"0123456789012345".to_vec())
        );
    }
}
