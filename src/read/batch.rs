//! Streaming reads: batches of a chosen row count.
//!
//! Each column decodes a run of several batches into one buffer, and batches are zero-copy
//! slices of it. A PLAIN or dictionary page that crosses the end of a run is split there, so
//! runs hold whole batches; a page that cannot be split is decoded whole, and the one batch
//! across that run boundary is copied together. Fixed-width pages that can be lent out
//! without a copy are decoded page by page instead (a run is then one page).
//!
//! [`ParquetReader::batches`] runs through the push decoder (see `drive`), which decodes
//! each row group with a [`ColumnBatches`] (its pieces on several threads when the options
//! ask for them).

use std::collections::VecDeque;

use parq_codecs::probe;

use super::decode::ChunkDecoder;
use super::drive::PushDriver;
use super::file::{ColumnReader, FileDecoder, ParquetReader};
use super::parallel::ParallelFeed;
use super::source::Source;
use crate::array::Array;
use crate::column::Column;
use crate::{Error, Result};

/// Rows of several columns, all of the same length.
#[derive(Debug, Clone)]
pub struct Batch {
    /// Rows in this batch.
    pub num_rows: usize,
    /// One column per requested leaf, in the requested order.
    pub columns: Vec<Column>,
}

/// Batches decoded per refill of a column (see `ColumnState::fill`).
const FILL_BATCHES: usize = 8;

/// The most slots one refill reserves ahead (a hint: buffers still grow past it).
const MAX_RESERVE: usize = 1 << 20;

struct ColumnState<S: Source> {
    reader: ColumnReader<S>,
    decoder: ChunkDecoder,
    ready: VecDeque<Column>,
    /// Rows of `ready.front()` already handed out.
    front_offset: usize,
    ready_rows: usize,
    /// Rows the reader's row groups hold and that are not decoded yet: a run never plans
    /// room for more (a chunk of one row reserves for one, not for [`FILL_BATCHES`] batches).
    rows_left: u64,
    done: bool,
}

impl<S: Source> ColumnState<S> {
    fn fill(&mut self, want: usize) -> Result<()> {
        while !self.done && self.ready_rows < want {
            // Decode several batches' worth at once (memory stays bounded by FILL_BATCHES
            // batches plus a page).
            let batches = if self.decoder.can_borrow() {
                // Fixed-width pages may be lent out whole, which works page by page.
                1
            } else {
                FILL_BATCHES
            };
            let need = batches * want - self.ready_rows;
            if batches > 1 {
                // Room for the whole run up front: growing by doubling copied each buffer
                // about once more. `want` is the caller's batch size, so cap the hint.
                // Nor past the rows the chunks hold.
                let rows_left = usize::try_from(self.rows_left).unwrap_or(usize::MAX);
                self.decoder.plan_run(need.min(MAX_RESERVE).min(rows_left));
            }
            // With a limit, a page that crosses the end of the run is split there (when its
            // encoding allows), so that runs hold whole batches and none is copied together.
            while self.decoder.len() < need {
                let left = need - self.decoder.len();
                if self.decoder.has_pending() {
                    self.decoder.resume(left)?;
                } else if !self
                    .reader
                    .next_page_into(&mut self.decoder, (batches > 1).then_some(left))?
                {
                    self.done = true;
                    break;
                }
            }
            if self.decoder.len() > 0 {
                let col = self.decoder.finish();
                self.rows_left = self.rows_left.saturating_sub(col.len as u64);
                self.ready_rows += col.len;
                self.ready.push_back(col);
            }
        }
        Ok(())
    }

    fn take(&mut self, n: usize) -> Column {
        let mut pieces = Vec::new();
        let mut left = n;
        while left > 0 {
            let Some(front) = self.ready.front() else {
                break;
            };
            let avail = front.len - self.front_offset;
            let k = avail.min(left);
            pieces.push(front.slice(self.front_offset, k));
            left -= k;
            if k == avail {
                self.ready.pop_front();
                self.front_offset = 0;
            } else {
                self.front_offset += k;
            }
        }
        self.ready_rows -= n - left;
        if pieces.len() == 1 {
            pieces.pop().expect("one piece")
        } else {
            probe::hit("read.batch_copied_together");
            Column::concat(&pieces)
        }
    }
}

/// An iterator of [`Batch`]es over chosen columns of the selected row groups; see
/// [`ParquetReader::batches`].
pub struct BatchReader<S: Source>(PushDriver<S>);

/// Batches of flat leaf columns, decoded straight from their column readers.
pub(crate) struct ColumnBatches<S: Source> {
    columns: Vec<ColumnState<S>>,
    /// With more than one thread: decodes pieces of every column in parallel.
    feed: Option<Box<ParallelFeed<S>>>,
    batch_size: usize,
    failed: bool,
}

impl<S: Source> FileDecoder<S> {
    /// Batches decoded straight from the column readers of this reader's row groups (the
    /// push decoder's, for one row group).
    ///
    /// `handed`: the decoders of the same columns from the row group before
    /// ([`ColumnBatches::into_decoders`]). A decoder keeps across chunks what it learnt of
    /// the column's pages (that they are copied, not lent out, so whole runs are decoded),
    /// as it does when one reader reads every row group, and is not made again. Decoders of
    /// another shape are dropped and new ones made.
    pub(crate) fn column_batches(
        &self,
        columns: &[usize],
        batch_size: usize,
        handed: Vec<ChunkDecoder>,
    ) -> Result<ColumnBatches<S>> {
        if batch_size == 0 {
            return Err(Error::InvalidArgument("batch size 0".into()));
        }
        let mut handed = (handed.len() == columns.len()).then(|| handed.into_iter());
        let columns = columns
            .iter()
            .map(|&c| {
                let reader = self.column_reader(c)?;
                let decoder = match handed.as_mut().and_then(Iterator::next) {
                    Some(d) => d,
                    None => reader.new_batch_decoder()?,
                };
                Ok(ColumnState {
                    rows_left: reader.rows(),
                    reader,
                    decoder,
                    ready: VecDeque::new(),
                    front_offset: 0,
                    ready_rows: 0,
                    done: false,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let feed = if self.runs_parallel() {
            Some(Box::new(ParallelFeed::new(
                self,
                &columns.iter().map(|c| c.reader.column).collect::<Vec<_>>(),
            )?))
        } else {
            None
        };
        Ok(ColumnBatches {
            columns,
            feed,
            batch_size,
            failed: false,
        })
    }

    pub(crate) fn batches(&self, columns: &[usize], batch_size: usize) -> Result<BatchReader<S>> {
        Ok(BatchReader(PushDriver::leaves(self, columns, batch_size)?))
    }
}

impl<S: Source> ParquetReader<S> {
    /// Stream batches of `batch_size` rows of the leaf columns `columns` (indices into
    /// `schema().leaves`). The push decoder decodes them, so a batch never spans two row
    /// groups: the last of each row group may be shorter.
    ///
    /// ```
    /// # use parq::column::{Column, Values};
    /// # use parq::write::{Field, ParquetWriter, WriterOptions};
    /// # let mut file = Vec::new();
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
    /// use parq::read::ParquetReader;
    ///
    /// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
    /// let mut rows = 0;
    /// for batch in reader.batches(&[0, 1], 2)? {
    ///     let batch = batch?; // batches of 2 rows, the last one shorter
    ///     assert_eq!(batch.columns.len(), 2);
    ///     rows += batch.num_rows;
    /// }
    /// assert_eq!(rows, 3);
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn batches(&self, columns: &[usize], batch_size: usize) -> Result<BatchReader<S>> {
        self.decoder.batches(columns, batch_size)
    }
}

impl<S: Source> ColumnBatches<S> {
    /// The columns' decoders, once the batches are done, handed to the next row group's
    /// [`FileDecoder::column_batches`].
    pub(crate) fn into_decoders(self) -> Vec<ChunkDecoder> {
        self.columns.into_iter().map(|c| c.decoder).collect()
    }

    fn next_batch(&mut self) -> Result<Option<Batch>> {
        if let Some(feed) = &mut self.feed {
            let ready: Vec<usize> = self.columns.iter().map(|c| c.ready_rows).collect();
            for (c, cols) in self
                .columns
                .iter_mut()
                .zip(feed.fill(&ready, self.batch_size)?)
            {
                for col in cols.into_iter().filter(|col| col.len > 0) {
                    c.ready_rows += col.len;
                    c.ready.push_back(col);
                }
            }
        } else {
            for c in &mut self.columns {
                c.fill(self.batch_size)?;
            }
        }
        let Some(first) = self.columns.first() else {
            return Ok(None);
        };
        let rows = first.ready_rows.min(self.batch_size);
        if let Some(c) = self
            .columns
            .iter()
            .find(|c| c.ready_rows.min(self.batch_size) != rows)
        {
            return Err(Error::format(format!(
                "column {} has {} rows where column {} has {rows}",
                c.reader.desc.path_string(),
                c.ready_rows.min(self.batch_size),
                first.reader.desc.path_string()
            )));
        }
        if rows == 0 {
            return Ok(None);
        }
        let columns = self.columns.iter_mut().map(|c| c.take(rows)).collect();
        Ok(Some(Batch {
            num_rows: rows,
            columns,
        }))
    }
}

impl<S: Source> Iterator for ColumnBatches<S> {
    type Item = Result<Batch>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_batch() {
            Ok(b) => b.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

impl<S: Source> Iterator for BatchReader<S> {
    type Item = Result<Batch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0
            .next_batch()
            .transpose()
            .map(|b| b.and_then(leaf_batch))
    }
}

/// A batch of the push decoder's leaf output ([`PushDriver::leaves`]) as leaf columns.
fn leaf_batch(batch: crate::read::ArrayBatch) -> Result<Batch> {
    let columns = batch
        .arrays
        .into_iter()
        .map(|a| match a {
            Array::Primitive(c) => Ok(c),
            _ => Err(Error::internal(
                "the push decoder gave a nested array for a flat leaf",
            )),
        })
        .collect::<Result<_>>()?;
    Ok(Batch {
        num_rows: batch.num_rows,
        columns,
    })
}
