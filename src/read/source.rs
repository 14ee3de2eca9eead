//! Where file bytes come from: memory, positioned reads, or a memory map.
//!
//! Every source hands out [`Bytes`]. For in-memory bytes and memory maps these are
//! zero-copy views that keep their owner alive, so a column decoded from them may borrow
//! (see `Values` buffers) and still be `'static` and `Send`.

use std::fs::File;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use bytes::Bytes;

use crate::{Error, Result};

/// A random-access source of file bytes.
pub trait Source: Send + Sync {
    /// Total length in bytes.
    fn len(&self) -> u64;
    /// True when the source holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The bytes in `range`. Errors if the range is outside the source.
    fn read(&self, range: Range<u64>) -> Result<Bytes>;
}

fn check_range(range: &Range<u64>, len: u64) -> Result<()> {
    if range.start > range.end || range.end > len {
        return Err(Error::format(format!(
            "byte range {}..{} outside the file of {} bytes",
            range.start, range.end, len
        )));
    }
    Ok(())
}

impl Source for Bytes {
    fn len(&self) -> u64 {
        Bytes::len(self) as u64
    }
    fn read(&self, range: Range<u64>) -> Result<Bytes> {
        check_range(&range, Source::len(self))?;
        Ok(self.slice(range.start as usize..range.end as usize))
    }
}

/// A file read with positioned reads (`pread`): the safe default for files on disk.
#[derive(Debug)]
pub struct FileSource {
    file: File,
    len: u64,
    /// The path it was opened from, named by its I/O errors ([`Error::File`]); `None` for a
    /// [`FileSource::new`] file, whose errors are [`Error::Io`].
    path: Option<PathBuf>,
}

impl FileSource {
    /// Open `path` for reading. Its I/O errors, here and in later reads, name `path`.
    ///
    /// ```
    /// # use parq::column::{Column, Values};
    /// # use parq::write::{Field, ParquetWriter, WriterOptions};
    /// # let path = std::env::temp_dir().join(format!("parq-doc-file-{}.parquet", std::process::id()));
    /// # let mut file = std::fs::File::create(&path).map_err(parq::Error::from)?;
    /// # let fields = vec![Field::int64("id"), Field::string("name").optional()];
    /// # let mut w = ParquetWriter::new(&mut file, fields, WriterOptions::default())?;
    /// # let ids = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
    /// # let names = Column {
    /// #     len: 3,
    /// #     validity: Some(vec![true, false, true].into()),
    /// #     values: Values::Binary {
    /// #         offsets: arrow_buffer::OffsetBuffer::new(vec![0i64, 1, 1, 3].into()),
    /// #         data: arrow_buffer::Buffer::from(&b"abc"[..]),
    /// #     },
    /// # };
    /// # w.write_batch(&[ids, names])?;
    /// # w.finish()?;
    /// use parq::read::{FileSource, ParquetReader};
    ///
    /// let reader = ParquetReader::new(FileSource::open(&path)?)?;
    /// assert_eq!(reader.read_column_by_path("id")?.len, 3);
    ///
    /// let missing = FileSource::open("no/such/file.parquet").unwrap_err();
    /// assert!(missing.to_string().contains("no/such/file.parquet"));
    /// # std::fs::remove_file(&path).ok();
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let named = |e: std::io::Error| Error::from(e).in_file(path);
        let file = File::open(path).map_err(named)?;
        let len = file.metadata().map_err(named)?.len();
        Ok(FileSource {
            file,
            len,
            path: Some(path.to_path_buf()),
        })
    }

    /// Wrap an open file. Its I/O errors are [`Error::Io`]: a `File` does not know its path.
    pub fn new(file: File) -> Result<Self> {
        let len = file.metadata()?.len();
        Ok(FileSource {
            file,
            len,
            path: None,
        })
    }
}

impl Source for FileSource {
    fn len(&self) -> u64 {
        self.len
    }
    fn read(&self, range: Range<u64>) -> Result<Bytes> {
        check_range(&range, self.len)?;
        // The range comes from the footer (a column chunk, a row group): memory the system
        // refuses for it is an error, not an abort.
        let len = range.end - range.start;
        let mut buf = Vec::new();
        buf.try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
            .map_err(|_| Error::memory("bytes read from the file", len, None))?;
        buf.resize(len as usize, 0);
        read_exact_at(&self.file, &mut buf, range.start).map_err(|e| {
            let e = Error::from(e);
            match &self.path {
                Some(path) => e.in_file(path),
                None => e,
            }
        })?;
        Ok(Bytes::from(buf))
    }
}

#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        match file.seek_read(buf, offset)? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
        }
    }
    Ok(())
}

/// A memory-mapped file: zero-copy, opt-in.
///
/// Page buffers and decoded columns may borrow from the map; they keep it alive.
#[derive(Debug, Clone)]
pub struct MmapSource {
    bytes: Bytes,
}

impl MmapSource {
    /// Map `path` read-only. Its I/O errors name `path`.
    ///
    /// ```
    /// # use parq::column::{Column, Values};
    /// # use parq::write::{Field, ParquetWriter, WriterOptions};
    /// # let path = std::env::temp_dir().join(format!("parq-doc-mmap-{}.parquet", std::process::id()));
    /// # let mut file = std::fs::File::create(&path).map_err(parq::Error::from)?;
    /// # let fields = vec![Field::int64("id"), Field::string("name").optional()];
    /// # let mut w = ParquetWriter::new(&mut file, fields, WriterOptions::default())?;
    /// # let ids = Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 2, 3].into()) };
    /// # let names = Column {
    /// #     len: 3,
    /// #     validity: Some(vec![true, false, true].into()),
    /// #     values: Values::Binary {
    /// #         offsets: arrow_buffer::OffsetBuffer::new(vec![0i64, 1, 1, 3].into()),
    /// #         data: arrow_buffer::Buffer::from(&b"abc"[..]),
    /// #     },
    /// # };
    /// # w.write_batch(&[ids, names])?;
    /// # w.finish()?;
    /// use parq::read::{MmapSource, ParquetReader};
    ///
    /// // SAFETY: nothing else writes or truncates the file while it is mapped.
    /// let source = unsafe { MmapSource::open(&path)? };
    /// let reader = ParquetReader::new(source)?;
    /// assert_eq!(reader.read_column_by_path("id")?.len, 3);
    /// # drop(reader);
    /// # std::fs::remove_file(&path).ok();
    /// # Ok::<(), parq::Error>(())
    /// ```
    ///
    /// # Safety
    ///
    /// The caller must ensure that no other process or thread truncates or modifies the file
    /// while the map (or any buffer decoded from it) is alive. If the file shrinks, touching
    /// the missing pages kills the process with `SIGBUS` instead of returning an error; if it
    /// is modified, decoded values change under the reader's feet. Never map files that other
    /// writers may replace in place; use [`FileSource`] for those.
    #[allow(unsafe_code)]
    pub unsafe fn open(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let named = |e: std::io::Error| Error::from(e).in_file(path);
        let file = File::open(path).map_err(named)?;
        // SAFETY: the caller upholds the contract above (no concurrent truncation or
        // modification for the lifetime of the map).
        let map = unsafe { memmap2::Mmap::map(&file) }.map_err(named)?;
        Ok(MmapSource {
            bytes: Bytes::from_owner(MapOwner(Arc::new(map))),
        })
    }

    /// The whole mapped file as zero-copy bytes.
    pub fn bytes(&self) -> &Bytes {
        &self.bytes
    }
}

struct MapOwner(Arc<memmap2::Mmap>);

impl AsRef<[u8]> for MapOwner {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Source for MmapSource {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }
    fn read(&self, range: Range<u64>) -> Result<Bytes> {
        Source::read(&self.bytes, range)
    }
}
