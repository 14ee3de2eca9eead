//! The one error type of the codecs crate.

use std::fmt;

/// What went wrong while encoding, decoding, compressing or decompressing.
///
/// Offsets are byte offsets into the input buffer the failing function was given; callers
/// that know where that buffer sits in a file add their own context.
#[non_exhaustive]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Error {
    /// The input ended before a complete item could be read.
    Truncated {
        /// Byte offset in the input where the incomplete item starts.
        offset: usize,
        /// Bytes needed from `offset`.
        needed: usize,
        /// Bytes available from `offset`.
        available: usize,
    },
    /// A bit width outside `0..=max` was requested or found in the input.
    InvalidBitWidth {
        /// The width found.
        width: u32,
        /// The largest width allowed here.
        max: u32,
    },
    /// The input is structurally invalid.
    InvalidData {
        /// Byte offset in the input where the problem was found.
        offset: usize,
        /// What is wrong, in lower case.
        what: &'static str,
    },
    /// A size read from the input exceeds what the input can hold or a configured limit.
    TooLarge {
        /// What the size describes.
        what: &'static str,
        /// The size that was declared or required.
        declared: u64,
        /// The largest size accepted.
        limit: u64,
    },
    /// A dictionary index points past the end of the dictionary.
    IndexOutOfRange {
        /// The index found.
        index: u64,
        /// The dictionary length.
        len: usize,
    },
    /// A compression library reported an error.
    Compression {
        /// The codec's name.
        codec: &'static str,
        /// The library's message.
        message: String,
    },
    /// The operation is valid Parquet but not supported here (e.g. a width for a type).
    Unsupported(&'static str),
    /// The system refused memory for an output sized from the input (a page's declared
    /// size): reported instead of an abort.
    OutOfMemory {
        /// What the memory was for.
        what: &'static str,
        /// Bytes asked for.
        bytes: u64,
    },
}

impl Error {
    /// Reserve room for `additional` more elements in `v` with `Vec::try_reserve_exact`:
    /// for buffers sized from the input, whose allocation failure is then an
    /// [`Error::OutOfMemory`] rather than an abort.
    pub fn try_reserve_exact<T>(
        v: &mut Vec<T>,
        additional: usize,
        what: &'static str,
    ) -> Result<()> {
        v.try_reserve_exact(additional)
            .map_err(|_| Error::OutOfMemory {
                what,
                bytes: (additional as u64).saturating_mul(size_of::<T>() as u64),
            })
    }
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated {
                offset,
                needed,
                available,
            } => write!(
                f,
                "input truncated at byte {offset}: needed {needed} bytes, {available} available"
            ),
            Error::InvalidBitWidth { width, max } => {
                write!(f, "invalid bit width {width} (max {max})")
            }
            Error::InvalidData { offset, what } => {
                write!(f, "invalid data at byte {offset}: {what}")
            }
            Error::TooLarge {
                what,
                declared,
                limit,
            } => write!(f, "{what} of {declared} exceeds the limit of {limit}"),
            Error::IndexOutOfRange { index, len } => {
                write!(f, "dictionary index {index} out of range for {len} entries")
            }
            Error::Compression { codec, message } => write!(f, "{codec} error: {message}"),
            Error::Unsupported(what) => write!(f, "unsupported: {what}"),
            Error::OutOfMemory { what, bytes } => {
                write!(
                    f,
                    "out of memory: {what} needs {bytes} bytes the system refused"
                )
            }
        }
    }
}

impl std::error::Error for Error {}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        std::io::Error::new(std::io::ErrorKind::InvalidData, e)
    }
}
