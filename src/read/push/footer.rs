//! The footer, decoded push-style: one suffix request, a second only for a large footer.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use parq_codecs::probe;

use super::buffer::Spans;
use crate::error::Location;
use crate::metadata::{self, FileMetaData};
use crate::schema::SchemaDescriptor;
use crate::{Error, Result};

/// The first request's length: the footer of almost every file fits.
pub const DEFAULT_FOOTER_SUFFIX: u64 = 64 << 10;

/// A decoded footer with what reading the file needs: its metadata, its resolved schema,
/// the file's length and (feature `encryption`) the decryptor of an encrypted file.
///
/// Cheap to clone (shared), so one footer can serve many decoders and scans.
#[derive(Clone)]
pub struct Footer {
    pub(crate) metadata: Arc<FileMetaData>,
    /// Each row group's first row in the file: readers of one row group cut a selection by
    /// it, so it is summed once, not for every reader.
    pub(crate) first_rows: Arc<[u64]>,
    pub(crate) schema: Arc<SchemaDescriptor>,
    pub(crate) file_len: u64,
    #[cfg(feature = "encryption")]
    pub(crate) decryptor: Option<Arc<crate::encryption::read::FileDecryptor>>,
}

impl std::fmt::Debug for Footer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Footer")
            .field("file_len", &self.file_len)
            .field("row_groups", &self.metadata.row_groups.len())
            .field("num_rows", &self.metadata.num_rows)
            .finish_non_exhaustive()
    }
}

impl Footer {
    /// The decoded file metadata.
    pub fn metadata(&self) -> &FileMetaData {
        &self.metadata
    }

    /// The resolved schema.
    pub fn schema(&self) -> &SchemaDescriptor {
        &self.schema
    }

    /// The length of the file the footer was read from.
    pub fn file_len(&self) -> u64 {
        self.file_len
    }

    /// Bytes of memory the decoded footer holds, roughly (the encoded footer's length is a
    /// fair stand-in), for sizing footer caches.
    pub fn approx_size(&self) -> usize {
        std::mem::size_of::<FileMetaData>()
            + self.metadata.row_groups.len() * 64
            + self
                .metadata
                .row_groups
                .iter()
                .map(|rg| rg.columns.len() * 160)
                .sum::<usize>()
    }
}

/// Options of a [`FooterDecoder`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct FooterOptions {
    /// Bytes of the first (suffix) request.
    pub suffix_len: u64,
    /// Largest footer accepted, in bytes.
    pub max_footer_size: usize,
    /// The memory budget of decoding the footer (with
    /// [`metadata::footer_memory_budget`]: a footer's decoded size is bounded by its bytes).
    pub max_memory: u64,
    /// Also check the `PAR1` magic at the start of the file. When the suffix does not reach
    /// the start, this asks for its first 4 bytes in the first request too (two ranges): the
    /// synchronous readers check it, remote readers do not pay a request for it.
    pub verify_head: bool,
    /// Keys and AAD prefix of an encrypted file (feature `encryption`).
    #[cfg(feature = "encryption")]
    pub decryption: Option<crate::encryption::FileDecryptionProperties>,
}

impl Default for FooterOptions {
    fn default() -> Self {
        FooterOptions {
            suffix_len: DEFAULT_FOOTER_SUFFIX,
            max_footer_size: 256 << 20,
            max_memory: crate::read::DEFAULT_MAX_MEMORY,
            verify_head: false,
            #[cfg(feature = "encryption")]
            decryption: None,
        }
    }
}

impl FooterOptions {
    /// These options with [`suffix_len`](Self::suffix_len) set to `v`.
    pub fn with_suffix_len(mut self, v: u64) -> Self {
        self.suffix_len = v;
        self
    }

    /// These options with [`max_footer_size`](Self::max_footer_size) set to `v`.
    pub fn with_max_footer_size(mut self, v: usize) -> Self {
        self.max_footer_size = v;
        self
    }

    /// These options with [`max_memory`](Self::max_memory) set to `v`.
    pub fn with_max_memory(mut self, v: u64) -> Self {
        self.max_memory = v;
        self
    }

    /// These options with [`verify_head`](Self::verify_head) set to `v`.
    pub fn with_verify_head(mut self, v: bool) -> Self {
        self.verify_head = v;
        self
    }

    /// These options with [`decryption`](Self::decryption) set to `v`.
    #[cfg(feature = "encryption")]
    pub fn with_decryption(
        mut self,
        v: Option<crate::encryption::FileDecryptionProperties>,
    ) -> Self {
        self.decryption = v;
        self
    }
}

/// What a [`FooterDecoder`] answers.
#[derive(Debug)]
pub enum FooterStep {
    /// Push these byte ranges (the same ones are asked again until they arrive).
    NeedsData(Vec<Range<u64>>),
    /// The footer.
    Done(Footer),
}

/// The footer, decoded push-style: one suffix request, a second only for a large footer.
///
/// A [`FooterDecoder`] knows the file's length and nothing else. It first asks for the last
/// [`FooterOptions::suffix_len`] bytes (64 KiB, or the whole file when it is smaller), which
/// holds the footer of almost every file, and asks for the rest of the footer only when the
/// 8-byte tail announces a longer one.
///
/// ```
/// # let file = std::fs::read("testdata/parquet-testing/data/alltypes_plain.parquet").unwrap();
/// use parq::read::push::{FooterDecoder, FooterOptions, FooterStep};
///
/// let file = bytes::Bytes::from(file);
/// let mut decoder = FooterDecoder::new(file.len() as u64, FooterOptions::default());
/// let footer = loop {
///     match decoder.try_next()? {
///         FooterStep::NeedsData(ranges) => {
///             for r in ranges {
///                 decoder.push(r.start, file.slice(r.start as usize..r.end as usize));
///             }
///         }
///         FooterStep::Done(footer) => break footer,
///     }
/// };
/// assert_eq!(footer.metadata().num_rows, 8);
/// # Ok::<(), parq::Error>(())
/// ```
#[derive(Debug)]
pub struct FooterDecoder {
    file_len: u64,
    options: FooterOptions,
    spans: Spans,
    /// The footer's range, once the tail has told it.
    footer: Option<Range<u64>>,
    encrypted: bool,
}

impl FooterDecoder {
    /// A decoder for a file of `file_len` bytes.
    pub fn new(file_len: u64, options: FooterOptions) -> Self {
        let mut spans = Spans::default();
        if file_len >= 12 {
            let suffix = options.suffix_len.max(8).min(file_len);
            let mut first = Vec::with_capacity(2);
            if options.verify_head && suffix < file_len {
                first.push(0..4);
            }
            first.push(file_len - suffix..file_len);
            spans.want(&first);
        }
        FooterDecoder {
            file_len,
            options,
            spans,
            footer: None,
            encrypted: false,
        }
    }

    /// Push the bytes at `offset` (any piece, in any order; bytes not asked for are
    /// dropped).
    pub fn push(&mut self, offset: u64, data: Bytes) {
        self.spans.push(offset, &data);
    }

    /// The bytes pushed so far that lie before the footer (most of a suffix request over a
    /// small footer), as `(offset, bytes)`: offset indexes, column indexes, bloom filters and
    /// even data pages of the last row groups often sit there. Give them to the
    /// [`PushDecoder`](super::PushDecoder) of the same file with
    /// [`hold`](super::PushDecoder::hold), and it does not ask for them again. Empty until
    /// the footer's position is known.
    pub fn prefetched(&self) -> Vec<(u64, Bytes)> {
        let (Some(footer), Some(snap)) = (&self.footer, self.spans.snapshot()) else {
            return Vec::new();
        };
        self.spans
            .ranges()
            .into_iter()
            .filter_map(|r| {
                let end = r.end.min(footer.start);
                (r.start < end)
                    .then(|| snap.read(r.start..end).map(|b| (r.start, b)))
                    .flatten()
            })
            .collect()
    }

    /// The next step: ranges to push, or the footer.
    pub fn try_next(&mut self) -> Result<FooterStep> {
        let len = self.file_len;
        if len < 12 {
            return Err(Error::format(format!(
                "file of {len} bytes is too small to be parquet"
            )));
        }
        let missing = self.spans.missing();
        if !missing.is_empty() {
            return Ok(FooterStep::NeedsData(missing));
        }
        let snap = self.spans.snapshot().expect("no span missing");
        let read = |r: Range<u64>| {
            snap.read(r.clone()).ok_or_else(|| {
                Error::internal(format!("footer bytes {}..{} not held", r.start, r.end))
            })
        };
        if self.options.verify_head {
            let head = read(0..4)?;
            #[cfg(feature = "encryption")]
            let head_ok = &head[..] == metadata::MAGIC || &head[..] == metadata::MAGIC_ENCRYPTED;
            #[cfg(not(feature = "encryption"))]
            let head_ok = &head[..] == metadata::MAGIC;
            if !head_ok {
                return Err(Error::format("missing PAR1 magic at the start of the file"));
            }
        }
        let footer = match &self.footer {
            Some(f) => f.clone(),
            None => {
                let tail = read(len - 8..len)?;
                let tail: [u8; 8] = tail[..].try_into().expect("8 bytes");
                #[cfg(feature = "encryption")]
                let (footer_len, encrypted) = crate::encryption::read::parse_tail(&tail)?;
                #[cfg(not(feature = "encryption"))]
                let (footer_len, encrypted) = (metadata::parse_footer_len(&tail)?, false);
                if footer_len as u64 > len - 12 || footer_len > self.options.max_footer_size {
                    return Err(Error::format(format!(
                        "footer length {footer_len} does not fit in a file of {len} bytes"
                    )));
                }
                let range = len - 8 - footer_len as u64..len - 8;
                self.footer = Some(range.clone());
                self.encrypted = encrypted;
                if snap.read(range.clone()).is_none() {
                    // A footer longer than the suffix: one more request, for the rest.
                    probe::hit("io.footer_second_request");
                    self.spans.want(&[range]);
                    return Ok(FooterStep::NeedsData(self.spans.missing()));
                }
                range
            }
        };
        let bytes = read(footer.clone())?;
        let at_footer = |e: Error| {
            e.at(&Location {
                offset: Some(footer.start),
                ..Location::default()
            })
        };
        #[cfg(feature = "encryption")]
        let (metadata, decryptor) = crate::encryption::read::decode_footer(
            &bytes,
            self.encrypted,
            self.options.decryption.as_ref(),
            metadata::footer_memory_budget(bytes.len(), self.options.max_memory),
        )
        .map_err(at_footer)?;
        #[cfg(not(feature = "encryption"))]
        let metadata = metadata::decode_file_metadata_within(
            &bytes,
            metadata::footer_memory_budget(bytes.len(), self.options.max_memory),
        )
        .map_err(at_footer)?;
        let schema = SchemaDescriptor::new(&metadata.schema)?;
        for (i, rg) in metadata.row_groups.iter().enumerate() {
            if rg.columns.len() != schema.leaves.len() {
                return Err(Error::format(format!(
                    "row group {i} has {} column chunks for {} leaf columns",
                    rg.columns.len(),
                    schema.leaves.len()
                )));
            }
        }
        Ok(FooterStep::Done(Footer {
            first_rows: first_rows(&metadata),
            metadata: Arc::new(metadata),
            schema: Arc::new(schema),
            file_len: len,
            #[cfg(feature = "encryption")]
            decryptor,
        }))
    }
}

/// Each row group's first row in the file (the rows before it, saturating).
fn first_rows(metadata: &FileMetaData) -> Arc<[u64]> {
    let mut first = 0u64;
    metadata
        .row_groups
        .iter()
        .map(|rg| {
            let f = first;
            first = first.saturating_add(rg.num_rows.max(0) as u64);
            f
        })
        .collect()
}

/// Decode the footer of `source`, reading what the decoder asks for from it.
pub(crate) fn read_footer<S: crate::read::Source + ?Sized>(
    source: &S,
    options: FooterOptions,
) -> Result<Footer> {
    let mut decoder = FooterDecoder::new(source.len(), options);
    loop {
        match decoder.try_next()? {
            FooterStep::NeedsData(ranges) => {
                for r in ranges {
                    decoder.push(r.start, source.read(r.clone())?);
                }
            }
            FooterStep::Done(footer) => return Ok(footer),
        }
    }
}
