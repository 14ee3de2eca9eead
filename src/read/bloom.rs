//! The bloom filter of a column chunk, read on demand.

use crate::bloom::{self, Sbbf};
use crate::metadata;
use crate::read::{FileDecoder, ParquetReader, Source};
use crate::{Error, Result};

/// Bytes read for the header when the writer did not record `bloom_filter_length` (a
/// split-block header takes about 15 bytes); a header that does not decode from them is
/// retried with [`HEADER_RETRY`] bytes.
const HEADER_PROBE: u64 = 64;
/// The second, last try at a header of unknown length (headers with unknown fields).
const HEADER_RETRY: u64 = 16 << 10;

impl<S: Source> ParquetReader<S> {
    /// The bloom filter of leaf `column` in row group `row_group`, when the file has one.
    ///
    /// The filter is read from `bloom_filter_offset`: header and bitset within
    /// `bloom_filter_length` bytes when the writer recorded it, otherwise the header, then
    /// the bitset it announces (older writers). Every range is checked against the file, and
    /// the bitset must be a power of two from 32 bytes to 128 MiB before anything is
    /// allocated for it.
    ///
    /// A filter of an algorithm, hash or compression other than the spec's split-block,
    /// xxHash64 and uncompressed gets [`Error::Unsupported`] naming it (none is defined yet):
    /// a caller pruning with filters should treat that error like a missing filter.
    ///
    /// ```
    /// use parq::bloom::hash_i64;
    /// use parq::column::{Column, Values};
    /// use parq::write::{BloomFilterOptions, Field, ParquetWriter, WriterOptions};
    ///
    /// let options = WriterOptions::default()
    ///     .with_bloom_filter("id", BloomFilterOptions::default().with_ndv(None).with_fpp(0.01));
    /// let mut file = Vec::new();
    /// let mut w = ParquetWriter::new(&mut file, vec![Field::int64("id")], options)?;
    /// w.write_batch(&[Column { len: 3, validity: None, values: Values::Int64(vec![1i64, 5, 9].into()) }])?;
    /// w.finish()?;
    ///
    /// let reader = parq::read::ParquetReader::new(bytes::Bytes::from(file))?;
    /// let filter = reader.read_bloom_filter(0, 0)?.expect("written");
    /// assert!(filter.check_hash(hash_i64(5)));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn read_bloom_filter(&self, row_group: usize, column: usize) -> Result<Option<Sbbf>> {
        self.decoder.read_bloom_filter(row_group, column)
    }
}

impl<S: Source> FileDecoder<S> {
    pub(crate) fn read_bloom_filter(
        &self,
        row_group: usize,
        column: usize,
    ) -> Result<Option<Sbbf>> {
        let chunk = self.chunk(row_group, column)?;
        let Some(meta) = &chunk.meta_data else {
            return Ok(None);
        };
        let Some(offset) = meta.bloom_filter_offset else {
            return Ok(None);
        };
        if chunk.crypto_metadata.is_some() {
            // Its header and bitset are encrypted modules, which parq does not decrypt yet.
            return Err(Error::Unsupported(format!(
                "the bloom filter of encrypted column {}",
                self.schema.leaf(column).path_string()
            )));
        }
        let at = self.index_location(row_group, column, offset);
        let what = "bloom filter";
        if let Some(len) = meta.bloom_filter_length {
            let bytes = self.index_bytes(offset, len, what, row_group, column)?;
            return Sbbf::decode(&bytes).map(Some).map_err(|e| e.at(&at));
        }
        // No length: the header first, then the bitset it announces.
        let file_len = self.source.len();
        let start = u64::try_from(offset)
            .ok()
            .filter(|&s| s < file_len)
            .ok_or_else(|| {
                Error::format(format!(
                    "{what} at {offset} is outside the file of {file_len} bytes"
                ))
                .at(&at)
            })?;
        let mut probe = HEADER_PROBE;
        let (header, header_len) = loop {
            let n = probe.min(file_len - start);
            let bytes = self.source.read(start..start + n)?;
            match metadata::decode_bloom_filter_header(&bytes) {
                Ok(h) => break h,
                Err(_) if n == probe && probe < HEADER_RETRY => probe = HEADER_RETRY,
                Err(e) => return Err(metadata::rebase_error(e, start).at(&at)),
            }
        };
        let num_bytes = bloom::check_header(&header).map_err(|e| e.at(&at))?;
        let bitset_start = start + header_len as u64;
        let bitset_end = bitset_start + num_bytes as u64;
        if bitset_end > file_len {
            return Err(Error::format(format!(
                "{what} bitset of {num_bytes} bytes at {bitset_start} runs past the file of \
                 {file_len} bytes"
            ))
            .at(&at));
        }
        let bitset = self.source.read(bitset_start..bitset_end)?;
        Sbbf::from_bitset(&bitset).map(Some).map_err(|e| e.at(&at))
    }
}
