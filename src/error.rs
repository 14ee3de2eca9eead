//! The error type of the file crate.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where in a file an error happened. Every field is optional: fill what is known.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Location {
    /// Byte offset in the file.
    pub offset: Option<u64>,
    /// Dotted column path.
    pub column: Option<String>,
    /// Row group index.
    pub row_group: Option<usize>,
    /// Page index within the column chunk (0 = first page, dictionary page included).
    pub page: Option<usize>,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(c) = &self.column {
            write!(f, "column {c}")?;
            sep = ", ";
        }
        if let Some(rg) = self.row_group {
            write!(f, "{sep}row group {rg}")?;
            sep = ", ";
        }
        if let Some(p) = self.page {
            write!(f, "{sep}page {p}")?;
            sep = ", ";
        }
        if let Some(o) = self.offset {
            write!(f, "{sep}file offset {o}")?;
        }
        Ok(())
    }
}

/// What went wrong reading or writing a Parquet file.
#[non_exhaustive]
#[derive(Debug)]
pub enum Error {
    /// An I/O error from a source or sink that has no path (a `Write` given to the writer, an
    /// open `File`).
    Io(std::io::Error),
    /// An I/O error on a named file. The message names the path, since "No such file or
    /// directory" alone does not say which of several files was missing.
    File {
        /// The file the operation was on.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// An encoding or codec error, with where it happened.
    Codec {
        /// The underlying error.
        source: parq_codecs::Error,
        /// Where it happened.
        at: Location,
    },
    /// The file's structure (footer, metadata, page headers) is invalid.
    Format {
        /// What is wrong, in lower case.
        what: String,
        /// Where it happened.
        at: Location,
    },
    /// Valid Parquet that this library does not handle (yet).
    Unsupported(String),
    /// The caller asked for something that does not exist or does not fit (a column path,
    /// a row group index, mismatched buffers).
    InvalidArgument(String),
    /// An encrypted module that could not be decrypted or verified (missing or wrong key,
    /// wrong AAD prefix, modified bytes); the message names the module.
    Crypto(String),
    /// Reading needed more memory than the read's budget
    /// ([`ReadOptions::max_memory`](crate::read::ReadOptions::max_memory)) allows, or than
    /// the system would give. A file's counts can ask for far more memory than its bytes
    /// hold; this is the error instead of an abort. Raise the budget for a file that really
    /// holds that much.
    Memory {
        /// What wanted the memory ("decoded values of a page", "the footer").
        what: String,
        /// Bytes it wanted (the read's total so far, for the budget).
        bytes: u64,
        /// The budget it went over; `None` when the allocation itself failed.
        limit: Option<u64>,
        /// Where it happened.
        at: Location,
    },
    /// Fetching bytes of an object failed (a failed, short or timed-out request): which
    /// object and which bytes.
    Fetch {
        /// The object (its path or URL).
        object: String,
        /// The bytes asked for, when the request was for a range.
        range: Option<std::ops::Range<u64>>,
        /// What went wrong.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// A [`Error::Format`] with no location yet.
    pub fn format(what: impl Into<String>) -> Self {
        Error::Format {
            what: what.into(),
            at: Location::default(),
        }
    }

    /// Name the file an [`Error::Io`] happened on, making it an [`Error::File`]. Other errors,
    /// and I/O errors that already name a file, are returned unchanged.
    pub fn in_file(self, path: impl AsRef<Path>) -> Self {
        match self {
            Error::Io(source) => Error::File {
                path: path.as_ref().to_path_buf(),
                source,
            },
            e => e,
        }
    }

    /// Whether this is a page whose declared uncompressed size is over the configured
    /// [`Limits::max_uncompressed_size`](parq_codecs::compression::Limits) (of
    /// [`ReadOptions::limits`](crate::read::ReadOptions::limits)): the one refusal that a
    /// legal file can meet and that the caller can lift by raising the limit.
    pub fn is_page_size_limit(&self) -> bool {
        matches!(
            self,
            Error::Codec {
                source: parq_codecs::Error::TooLarge {
                    what: parq_codecs::compression::DECLARED_PAGE_SIZE,
                    ..
                },
                ..
            }
        )
    }

    /// A [`Error::Memory`] over the budget `limit` (`None`: the allocation failed).
    pub(crate) fn memory(what: impl Into<String>, bytes: u64, limit: Option<u64>) -> Self {
        Error::Memory {
            what: what.into(),
            bytes,
            limit,
            at: Location::default(),
        }
    }

    /// Fill in location fields that are not yet known.
    pub fn at(mut self, loc: &Location) -> Self {
        if let Error::Codec { at, .. } | Error::Format { at, .. } | Error::Memory { at, .. } =
            &mut self
        {
            at.offset = at.offset.or(loc.offset);
            if at.column.is_none() {
                at.column.clone_from(&loc.column);
            }
            at.row_group = at.row_group.or(loc.row_group);
            at.page = at.page.or(loc.page);
        }
        self
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Io(e) => write!(f, "i/o error: {e}"),
            Error::File { path, source } => write!(f, "i/o error: {}: {source}", path.display()),
            Error::Codec { source, at } => {
                write!(f, "{source}")?;
                if *at != Location::default() {
                    write!(f, " ({at})")?;
                }
                if self.is_page_size_limit() {
                    // A legal file may hold a bigger page: say which option lets it through.
                    write!(
                        f,
                        "; raise ReadOptions::limits.max_uncompressed_size to read it"
                    )?;
                }
                Ok(())
            }
            Error::Format { what, at } => {
                write!(f, "invalid parquet: {what}")?;
                if *at != Location::default() {
                    write!(f, " ({at})")?;
                }
                Ok(())
            }
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::InvalidArgument(what) => write!(f, "invalid argument: {what}"),
            Error::Crypto(what) => write!(f, "encryption: {what}"),
            Error::Memory {
                what,
                bytes,
                limit,
                at,
            } => {
                match limit {
                    Some(l) => write!(
                        f,
                        "out of memory budget: {what} needs {bytes} bytes, over the limit of \
                         {l} (ReadOptions::max_memory, parq --max-memory)"
                    )?,
                    None => write!(
                        f,
                        "out of memory: {what} needs {bytes} bytes the system refused"
                    )?,
                }
                if *at != Location::default() {
                    write!(f, " ({at})")?;
                }
                Ok(())
            }
            Error::Fetch {
                object,
                range: Some(r),
                source,
            } => write!(
                f,
                "fetching bytes {}..{} of {object}: {source}",
                r.start, r.end
            ),
            Error::Fetch { object, source, .. } => write!(f, "fetching {object}: {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) | Error::File { source: e, .. } => Some(e),
            Error::Codec { source, .. } => Some(source),
            Error::Fetch { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::Io(e)
    }
}

impl From<parq_codecs::Error> for Error {
    fn from(source: parq_codecs::Error) -> Self {
        match source {
            // One error for memory the system refused, whichever crate asked.
            parq_codecs::Error::OutOfMemory { what, bytes } => Error::memory(what, bytes, None),
            source => Error::Codec {
                source,
                at: Location::default(),
            },
        }
    }
}
