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
    /// A page or dictionary declares more values than
    /// [`ReadOptions::max_page_values`](crate::read::ReadOptions::max_page_values) accepts,
    /// a 32nd of the memory budget: a guard on allocations sized by headers, which a legal
    /// file can exceed.
    TooManyValues {
        /// `"page"` or `"dictionary"`.
        what: &'static str,
        /// The values it declares.
        values: usize,
        /// The limit.
        limit: usize,
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
    /// A check of parq's own bookkeeping failed (bytes the push decoder planned and the bytes
    /// its decoding read disagree, a decoding thread panicked): a bug in parq, not in the
    /// file. The message says which check; please report it with the file.
    Internal(String),
    /// Uploading an object failed (a failed or timed-out request); the upload was aborted.
    Upload {
        /// The object (its path or URL).
        object: String,
        /// The request that failed (`part 3`, `completing the multipart upload`, ...).
        what: String,
        /// What went wrong.
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// A limit of [`ReadOptions`](crate::read::ReadOptions) that a read went over, as
/// [`Error::limit`] names it: a refusal that a legal file can meet and that the caller lifts
/// by raising the option. Named by kind, so that a program with knobs of its own (the `parq`
/// CLI's flags) can name its knob instead of the option.
#[non_exhaustive]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// A page's declared uncompressed size: a quarter of `ReadOptions::max_memory`.
    PageSize,
    /// The values of one page or dictionary: a 32nd of `ReadOptions::max_memory`.
    PageValues,
    /// The read's memory budget: `ReadOptions::max_memory`.
    Memory,
}

impl Limit {
    /// The option that sets the limit, as error messages name it: every limit derives
    /// from the one memory budget, `ReadOptions::max_memory`.
    pub fn option(self) -> &'static str {
        "ReadOptions::max_memory"
    }

    /// The share of [`option`](Self::option) this limit is.
    pub fn share(self) -> &'static str {
        match self {
            Limit::PageSize => "a quarter of",
            Limit::PageValues => "a 32nd of",
            Limit::Memory => "all of",
        }
    }
}

/// The start of the message of [`Error::invalid_utf8`].
const INVALID_UTF8: &str = "invalid UTF-8 in a string value";

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An [`Error::Internal`]: parq's own check `what` failed.
    pub(crate) fn internal(what: impl Into<String>) -> Self {
        Error::Internal(what.into())
    }

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

    /// Whether this is a page whose declared uncompressed size is over
    /// [`ReadOptions::max_page_size`](crate::read::ReadOptions::max_page_size) (a quarter of
    /// the memory budget): a refusal that a legal file can meet and that the caller lifts by
    /// raising the budget.
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

    /// The limit of the read's options that this error is over, if it is one the caller can
    /// raise (see [`Limit`]); its message names [`Limit::option`].
    pub fn limit(&self) -> Option<Limit> {
        match self {
            _ if self.is_page_size_limit() => Some(Limit::PageSize),
            Error::TooManyValues { .. } => Some(Limit::PageValues),
            Error::Memory { limit: Some(_), .. } => Some(Limit::Memory),
            _ => None,
        }
    }

    /// A [`Error::TooManyValues`] of a `"page"` or `"dictionary"`, with no location yet.
    pub(crate) fn too_many_values(what: &'static str, values: usize, limit: usize) -> Self {
        Error::TooManyValues {
            what,
            values,
            limit,
            at: Location::default(),
        }
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
        if let Error::Codec { at, .. }
        | Error::Format { at, .. }
        | Error::Memory { at, .. }
        | Error::TooManyValues { at, .. } = &mut self
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

    /// A [`Error::Format`] for a value of a STRING, ENUM or JSON column that is not UTF-8;
    /// `which` says which value, appended to the message ("at row 3 of the row group").
    pub(crate) fn invalid_utf8(which: Option<String>) -> Self {
        Error::format(match which {
            Some(w) => format!("{INVALID_UTF8} {w}"),
            None => INVALID_UTF8.to_string(),
        })
    }

    /// Whether this is a string value that is not UTF-8: a column the read checks
    /// ([`ReadOptions::utf8_columns`](crate::read::ReadOptions::utf8_columns),
    /// [`ReadOptions::check_strings`](crate::read::ReadOptions::check_strings), Arrow string
    /// types) holds bytes that STRING, ENUM and JSON do not allow. The location names the
    /// column and the row group, and the message the row in the row group ("at row 3 of the
    /// row group"; for a leaf inside lists or structs, the record its levels put it in), or,
    /// where no row is known, the value's place in its page.
    pub fn is_invalid_utf8(&self) -> bool {
        matches!(self, Error::Format { what, .. } if what.starts_with(INVALID_UTF8))
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
                        " ({} {}); raise it to read the page",
                        Limit::PageSize.share(),
                        Limit::PageSize.option()
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
            Error::Internal(what) => write!(f, "internal error (a bug in parq): {what}"),
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
                         {l} ({})",
                        Limit::Memory.option()
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
            Error::TooManyValues {
                what,
                values,
                limit,
                at,
            } => {
                write!(
                    f,
                    "{what} of {values} values exceeds the limit of {limit} ({} {})",
                    Limit::PageValues.share(),
                    Limit::PageValues.option()
                )?;
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
            Error::Upload {
                object,
                what,
                source,
            } => write!(f, "uploading {object} ({what}): {source}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io(e) | Error::File { source: e, .. } => Some(e),
            Error::Codec { source, .. } => Some(source),
            Error::Fetch { source, .. } | Error::Upload { source, .. } => Some(source.as_ref()),
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
