//! [`ReadBuilder`]: one place to say what a read takes (projection, row groups, rows,
//! pruning, an exact filter, offset and limit, virtual columns) and how (batch size,
//! threads, memory), whatever the shape of the file.

use std::collections::HashSet;
use std::ops::Range;

use super::drive::PushDriver;
use super::positions::{Positions, VirtualColumns};
use super::push::whole::WholeItem;
use super::push::{PushDecoder, PushOptions};
use super::{
    ArrayBatch, ArrayBatchReader, FileDecoder, ParquetReader, ReadOptions, RowSelection, Select,
    Source,
};
use crate::array::Array;
use crate::column::Column;
use crate::field::Field;
use crate::predicate::{Expr, FilterStats, Materialise};
use crate::{Error, Result};

/// Rows per batch unless [`ReadBuilder::with_batch_size`] says.
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// A read of one file, set up by `with_*` calls and started by [`Self::build`]; from
/// [`ParquetReader::read_builder`].
///
/// ```
/// # use parq::column::{Column, Values};
/// # use parq::write::{Field, ParquetWriter, WriterOptions};
/// use parq::array::Value;
/// use parq::predicate::col;
/// use parq::read::ParquetReader;
///
/// # let mut file = Vec::new();
/// # let mut w = ParquetWriter::new(&mut file, vec![Field::int64("k")], WriterOptions::default())?;
/// # w.write_batch(&[Column { len: 100, validity: None,
/// #     values: Values::Int64((0..100i64).collect::<Vec<_>>().into()) }])?;
/// # w.finish()?;
/// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
/// let rows = reader
///     .read_builder()
///     .with_projection(["k"])
///     .with_filter(col("k").ge(10i64)) // exact: only the rows where k >= 10
///     .with_offset(5) // counted over the rows that pass
///     .with_limit(20)
///     .with_row_number_column("_pos") // where each row sits in the file
///     .with_batch_size(8)
///     .build()?;
/// let mut positions = Vec::new();
/// for batch in rows {
///     let batch = batch?;
///     assert!(batch.num_rows <= 8);
///     positions.extend((0..batch.num_rows).map(|i| batch.arrays[1].value(i)));
/// }
/// assert_eq!(positions.len(), 20);
/// assert_eq!(positions[0], Value::Leaf(15i64.to_le_bytes().to_vec()));
/// # Ok::<(), parq::Error>(())
/// ```
///
/// **Which rows** a read returns, in this order: those of the row groups
/// ([`Self::with_row_groups`], in the order given) and of the selection
/// ([`Self::with_row_selection`]); of those, the ones the pruning predicate may keep
/// ([`Self::with_pruning_predicate`], inexact: metadata only); of those, the ones the row
/// filter keeps ([`Self::with_filter`], exact); then [`Self::with_offset`] passes over the
/// first of them and [`Self::with_limit`] caps the rest.
///
/// Without an exact filter, the offset and the limit are settled from the row counts before
/// anything is read: row groups and pages wholly outside them are never fetched nor decoded.
#[must_use = "a builder reads nothing until `build`"]
pub struct ReadBuilder<'a, S: Source> {
    file: &'a FileDecoder<S>,
    projection: Option<Vec<Select>>,
    row_groups: Option<Vec<usize>>,
    selection: Option<RowSelection>,
    pruning: Option<Expr>,
    filter: Option<Expr>,
    materialise: Materialise,
    offset: u64,
    limit: Option<u64>,
    batch_size: usize,
    threads: Option<usize>,
    max_memory: Option<u64>,
    virtual_columns: VirtualColumns,
}

impl<S: Source> ParquetReader<S> {
    /// A read of this file to set up; see [`ReadBuilder`]. The reader's own
    /// [`ReadOptions`](super::ReadOptions) are where the builder starts.
    pub fn read_builder(&self) -> ReadBuilder<'_, S> {
        ReadBuilder {
            file: &self.decoder,
            projection: None,
            row_groups: None,
            selection: None,
            pruning: None,
            filter: None,
            materialise: Materialise::default(),
            offset: 0,
            limit: None,
            batch_size: DEFAULT_BATCH_SIZE,
            threads: None,
            max_memory: None,
            virtual_columns: VirtualColumns::default(),
        }
    }
}

impl<'a, S: Source> ReadBuilder<'a, S> {
    /// Read these top-level fields or leaves, in this order (by name or index, see
    /// [`Select`]). Unset: every top-level field. Empty: no column at all, only the row
    /// count and the virtual columns.
    pub fn with_projection<C: Into<Select>>(
        mut self,
        columns: impl IntoIterator<Item = C>,
    ) -> Self {
        self.projection = Some(columns.into_iter().map(Into::into).collect());
        self
    }

    /// Read only these row groups, in this order.
    pub fn with_row_groups(mut self, row_groups: impl IntoIterator<Item = usize>) -> Self {
        self.row_groups = Some(row_groups.into_iter().collect());
        self
    }

    /// Read only these rows (file row numbers), within the reader's own selection if it has
    /// one.
    pub fn with_row_selection(mut self, selection: RowSelection) -> Self {
        self.selection = Some(selection);
        self
    }

    /// Skip rows that metadata shows cannot satisfy `expr`: row groups by statistics, pages
    /// by the column index, row groups by bloom filters and dictionaries. Inexact: rows that
    /// do not satisfy it remain. For an exact filter, see [`Self::with_filter`].
    pub fn with_pruning_predicate(mut self, expr: Expr) -> Self {
        self.pruning = Some(expr);
        self
    }

    /// Return only the rows that satisfy `expr`. It prunes as
    /// [`Self::with_pruning_predicate`] does, decodes its own columns first, and the other
    /// projected columns only for the rows that pass (see [`Self::with_materialise`]). For
    /// what parq's expressions cannot say, `expr` may hold the caller's own tests over the
    /// decoded columns ([`RowPredicate`](crate::predicate::RowPredicate)), ANDed or ORed with
    /// parq's.
    pub fn with_filter(mut self, expr: Expr) -> Self {
        self.filter = Some(expr);
        self
    }

    /// How the filter reads the columns it did not decode (default [`Materialise::Auto`]).
    pub fn with_materialise(mut self, how: Materialise) -> Self {
        self.materialise = how;
        self
    }

    /// Pass over the first `rows` rows that would be returned.
    pub fn with_offset(mut self, rows: u64) -> Self {
        self.offset = rows;
        self
    }

    /// Return at most `rows` rows (after the offset).
    pub fn with_limit(mut self, rows: u64) -> Self {
        self.limit = Some(rows);
        self
    }

    /// At most `rows` rows per batch (at least 1; default [`DEFAULT_BATCH_SIZE`]). Batches
    /// never span row groups.
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows.max(1);
        self
    }

    /// Decode on this many threads (see [`ReadOptions::threads`](super::ReadOptions::threads)).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = Some(threads.max(1));
        self
    }

    /// The read's memory budget in bytes, the one bound every other derives from: decoded
    /// output, page sizes and counts, and the bytes planned (and fetched) ahead (see
    /// [`ReadOptions::max_memory`](super::ReadOptions::max_memory)).
    pub fn with_max_memory(mut self, bytes: u64) -> Self {
        self.max_memory = Some(bytes);
        self
    }

    /// Append a column `name` (INT64, required) holding each row's position in the file:
    /// its row number counting every row of every row group from 0, whatever the read
    /// pruned, skipped or filtered out.
    pub fn with_row_number_column(mut self, name: impl Into<String>) -> Self {
        self.virtual_columns.row_number = Some(name.into());
        self
    }

    /// Append a column `name` (INT32, required) holding the index of each row's row group
    /// (after the row-number column when both are asked for).
    pub fn with_row_group_column(mut self, name: impl Into<String>) -> Self {
        self.virtual_columns.row_group = Some(name.into());
        self
    }

    /// The read as a [`PushDecoder`] of this file's footer, for a caller that does its own
    /// I/O (an object store, its own cache: see the decoder's docs); the same rows, and
    /// virtual columns, as [`Self::build`].
    pub fn build_decoder(self) -> Result<PushDecoder> {
        let reader = self.file.clone_handle();
        let (reader, read) = self.checked_reader(reader)?;
        let mut options = PushOptions::default()
            .with_read(reader.options.clone())
            .with_projection(read.projection)
            .with_batch_size(read.batch_size)
            .with_predicate(read.pruning)
            .with_filter(read.filter)
            .with_materialise(read.materialise)
            .with_offset(read.offset)
            .with_limit(read.limit);
        options.row_number_column = read.virtual_columns.row_number;
        options.row_group_column = read.virtual_columns.row_group;
        PushDecoder::try_new(reader.footer(), options)
    }

    /// `reader` with the row groups, selection, threads and memory of this read, checked.
    fn checked_reader(self, mut reader: FileDecoder<S>) -> Result<(FileDecoder<S>, Self)> {
        let groups = reader.metadata.row_groups.len();
        if let Some(row_groups) = self.row_groups.clone() {
            let mut seen = HashSet::with_capacity(row_groups.len());
            for &g in &row_groups {
                if g >= groups {
                    return Err(Error::InvalidArgument(format!(
                        "row group {g} of a file with {groups}"
                    )));
                }
                if !seen.insert(g) {
                    return Err(Error::InvalidArgument(format!(
                        "row group {g} is listed twice"
                    )));
                }
            }
            reader.options.row_groups = Some(row_groups);
        }
        if let Some(selection) = self.selection.clone() {
            reader.options.selection = Some(match reader.options.selection.take() {
                Some(own) => own.intersection(&selection),
                None => selection,
            });
        }
        if let Some(threads) = self.threads {
            reader.options.threads = threads;
        }
        if let Some(bytes) = self.max_memory {
            reader.options.max_memory = bytes;
        }
        let virtual_fields = self.virtual_columns.fields();
        if let [a, b] = &virtual_fields[..] {
            if a.name == b.name {
                return Err(Error::InvalidArgument(format!(
                    "the virtual columns share the name {:?}",
                    a.name
                )));
            }
        }
        Ok((reader, self))
    }

    /// Start the read: pruning runs now; the rows come from the iterator. For Arrow record
    /// batches, see `build_arrow` (feature `arrow`).
    pub fn build(self) -> Result<RowBatches<S>> {
        let options = self.file.options.clone();
        self.build_with(options)
    }

    /// The file this read is of.
    #[cfg(feature = "arrow")]
    pub(crate) fn file(&self) -> &'a FileDecoder<S> {
        self.file
    }

    /// The projection as set (`None`: every top-level field).
    #[cfg(feature = "arrow")]
    pub(crate) fn projection(&self) -> Option<&[Select]> {
        self.projection.as_deref()
    }

    /// [`Self::build`] with the decoders' options `options`: the file's, with what an output
    /// type asked of them (dictionary keys, UTF-8 checks, offset widths).
    pub(crate) fn build_with(self, options: ReadOptions) -> Result<RowBatches<S>> {
        let (mut reader, this, stats) = self.pruned(options)?;
        let projection = this.projection_of(&reader)?;
        let virtual_fields = this.virtual_columns.fields();

        if let Some(filter) = this.filter {
            let driver = PushDriver::filtered(
                &reader,
                &projection,
                this.batch_size,
                (filter, this.materialise),
                (this.offset, this.limit),
                this.virtual_columns,
            )?;
            return Ok(RowBatches {
                fields: driver.batch_fields().to_vec(),
                stats,
                inner: Inner::Filtered(Box::new(driver)),
            });
        }

        // No exact filter: the rows out are the selected rows in order, so the offset and
        // the limit become a narrower selection before anything is read.
        let runs = cut_runs(
            &reader,
            reader.options.selection.as_ref(),
            this.offset,
            this.limit,
        );
        reader.narrow_to(&runs);
        let columns = if projection.is_empty() {
            None
        } else {
            Some(Box::new(
                reader.array_batches(&projection, this.batch_size)?,
            ))
        };
        let mut fields = match &columns {
            Some(c) => c.fields().to_vec(),
            None => Vec::new(),
        };
        fields.extend(virtual_fields);
        Ok(RowBatches {
            fields,
            stats,
            inner: Inner::Plain {
                columns,
                positions: Positions::new(runs),
                virtual_columns: this.virtual_columns,
                batch_size: this.batch_size,
            },
        })
    }
}

impl<'a, S: Source> ReadBuilder<'a, S> {
    /// The whole read as one batch: every row it returns, each projected field one array
    /// (each column decoded into one buffer, on the read's threads), then the virtual
    /// columns. Everything else set on the builder applies; the batch size does not.
    ///
    /// [`ParquetReader::read_field`], [`read_leaves`](ParquetReader::read_leaves) and
    /// [`read_filtered`](ParquetReader::read_filtered) are this read of one field, of flat
    /// leaves, and under a filter.
    ///
    /// ```
    /// # use parq::column::{Column, Values};
    /// # use parq::write::{Field, ParquetWriter, WriterOptions};
    /// use parq::array::Value;
    /// use parq::predicate::col;
    /// use parq::read::ParquetReader;
    ///
    /// # let mut file = Vec::new();
    /// # let mut w = ParquetWriter::new(&mut file, vec![Field::int64("k")], WriterOptions::default())?;
    /// # w.write_batch(&[Column { len: 100, validity: None,
    /// #     values: Values::Int64((0..100i64).collect::<Vec<_>>().into()) }])?;
    /// # w.finish()?;
    /// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
    /// let batch = reader
    ///     .read_builder()
    ///     .with_filter(col("k").ge(90i64))
    ///     .with_limit(3)
    ///     .read_all()?;
    /// assert_eq!(batch.num_rows, 3);
    /// assert_eq!(batch.arrays[0].value(2), Value::Leaf(92i64.to_le_bytes().to_vec()));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn read_all(self) -> Result<ArrayBatch> {
        self.read_all_with_stats().map(|(batch, _)| batch)
    }

    /// [`Self::read_all`], with what pruning and the filter did.
    pub(crate) fn read_all_with_stats(self) -> Result<(ArrayBatch, FilterStats)> {
        self.read_whole(None)
    }

    /// [`Self::read_all`] of the flat leaf columns `columns` (indices into the schema's
    /// leaves, in this order) instead of the projection: each leaf alone, one slot per row,
    /// its ancestors' nulls folded into its own.
    pub(crate) fn read_flat_leaves(self, columns: &[usize]) -> Result<Vec<Column>> {
        let (batch, _) = self.read_whole(Some(columns))?;
        batch
            .arrays
            .into_iter()
            .take(columns.len())
            .map(|a| match a {
                Array::Primitive(c) => Ok(c),
                _ => Err(Error::internal("a leaf read to a nested array")),
            })
            .collect()
    }

    /// The one-batch read of the projection, or (`leaves`) of flat leaf columns, which have
    /// no fields in the batch.
    fn read_whole(self, leaves: Option<&[usize]>) -> Result<(ArrayBatch, FilterStats)> {
        let options = self.file.options.clone();
        let (mut reader, this, mut stats) = self.pruned(options)?;
        let plans = match leaves {
            Some(_) => Vec::new(),
            None => reader.projection(&this.projection_of(&reader)?)?,
        };
        let mut fields: Vec<Field> = plans.iter().map(|p| p.field()).collect();
        if let Some(filter) = &this.filter {
            let rows_only = this.offset == 0 && this.limit.is_none();
            let in_file_order = reader.selected_row_groups().is_sorted();
            if rows_only && in_file_order && this.virtual_columns.is_empty() && leaves.is_none() {
                // The filter's columns decoded once, the others for its matches.
                let (out, s) = reader.read_filtered(plans, filter, this.materialise)?;
                stats.add(&s);
                let num_rows = match out.first() {
                    Some((_, a)) => a.len(),
                    None => s.rows_matched as usize,
                };
                let arrays = out.into_iter().map(|(_, a)| a).collect();
                return Ok((
                    ArrayBatch {
                        num_rows,
                        fields,
                        arrays,
                    },
                    stats,
                ));
            }
            // Offset, limit and positions count over the matches, in the order of the row
            // groups: read the matches as a selection.
            let (matched, s) = reader.filter_rows(filter)?;
            stats.add(&s);
            reader.options.selection = Some(matched);
        }
        let runs = cut_runs(
            &reader,
            reader.options.selection.as_ref(),
            this.offset,
            this.limit,
        );
        if this.offset > 0 || this.limit.is_some() {
            reader.narrow_to(&runs);
        }
        let items: Vec<WholeItem> = match leaves {
            Some(columns) => columns.iter().map(|&c| WholeItem::Leaf(c)).collect(),
            None => plans.into_iter().map(|p| reader.whole_item(p)).collect(),
        };
        let mut positions = Positions::new(runs);
        let (num_rows, mut arrays) = if items.is_empty() {
            (positions.remaining() as usize, Vec::new())
        } else {
            let arrays = PushDriver::whole(&reader, items)?;
            let num_rows = arrays[0].len();
            if arrays.iter().any(|a| a.len() != num_rows) {
                return Err(Error::format(
                    "the columns of a read hold different numbers of rows",
                ));
            }
            (num_rows, arrays)
        };
        if !this.virtual_columns.is_empty() {
            if positions.remaining() != num_rows as u64 {
                return Err(Error::format(format!(
                    "the columns hold {num_rows} rows where their row groups count {}",
                    positions.remaining()
                )));
            }
            this.virtual_columns
                .append(&mut positions, num_rows, &mut arrays)?;
            fields.extend(this.virtual_columns.fields());
        }
        Ok((
            ArrayBatch {
                num_rows,
                fields,
                arrays,
            },
            stats,
        ))
    }

    /// The file's reader with this read's row groups, selection, threads and memory
    /// (`options` its decoders'), pruned by the pruning predicate.
    fn pruned(self, options: ReadOptions) -> Result<(FileDecoder<S>, Self, FilterStats)> {
        let mut reader = self.file.clone_handle();
        reader.options = options;
        let (mut reader, this) = self.checked_reader(reader)?;
        let mut stats = FilterStats::default();
        if let Some(expr) = &this.pruning {
            let (kept, s) = reader.prune(expr)?;
            stats = s;
            reader.options.selection = Some(kept);
        }
        Ok((reader, this, stats))
    }

    /// The projection as set, or every top-level field.
    fn projection_of(&self, reader: &FileDecoder<S>) -> Result<Vec<Select>> {
        Ok(match &self.projection {
            Some(p) => p.clone(),
            None => (0..reader.fields()?.len()).map(Select::Field).collect(),
        })
    }
}

/// The selected rows of `reader`'s row groups in its order, as runs of file rows with their
/// row group, past the first `offset` of them and at most `limit` in all.
pub(crate) fn cut_runs<S: Source>(
    reader: &FileDecoder<S>,
    selection: Option<&RowSelection>,
    mut offset: u64,
    limit: Option<u64>,
) -> Vec<(Range<u64>, usize)> {
    let first = reader.row_group_first_rows();
    let mut left = limit.unwrap_or(u64::MAX);
    let mut runs = Vec::new();
    for g in reader.selected_row_groups() {
        if left == 0 {
            break;
        }
        let whole = first[g]..first[g].saturating_add(reader.group_rows(g));
        let ranges = match selection {
            // `slice` counts from the row group's first row.
            Some(s) => s
                .slice(whole.clone())
                .ranges()
                .iter()
                .map(|r| whole.start + r.start..whole.start + r.end)
                .collect(),
            None => vec![whole],
        };
        for r in ranges {
            let len = r.end - r.start;
            if offset >= len {
                offset -= len;
                continue;
            }
            let start = r.start + offset;
            offset = 0;
            let end = start + (r.end - start).min(left);
            left -= end - start;
            runs.push((start..end, g));
            if left == 0 {
                break;
            }
        }
    }
    runs
}

impl<S: Source> FileDecoder<S> {
    /// Rows of row group `g` as its footer counts them.
    fn group_rows(&self, g: usize) -> u64 {
        self.metadata.row_groups[g].num_rows.max(0) as u64
    }

    /// Read only the rows of `runs` (from [`cut_runs`]): their row groups, and a selection
    /// where they are not those row groups whole.
    fn narrow_to(&mut self, runs: &[(Range<u64>, usize)]) {
        let rows: u64 = runs.iter().map(|(r, _)| r.end - r.start).sum();
        let mut kept_groups: Vec<usize> = Vec::new();
        for (_, g) in runs {
            if kept_groups.last() != Some(g) {
                kept_groups.push(*g);
            }
        }
        let group_rows: u64 = kept_groups.iter().map(|&g| self.group_rows(g)).sum();
        self.options.selection = (rows != group_rows)
            .then(|| RowSelection::from_ranges(runs.iter().map(|(r, _)| r.clone())));
        self.options.row_groups = Some(kept_groups);
    }
}

/// The batches of a [`ReadBuilder`]'s read: an iterator of [`ArrayBatch`]es whose arrays
/// are the projection's, then the virtual columns'.
pub struct RowBatches<S: Source> {
    fields: Vec<Field>,
    stats: FilterStats,
    inner: Inner<S>,
}

enum Inner<S: Source> {
    Plain {
        /// `None` for an empty projection: batches of virtual columns alone.
        columns: Option<Box<ArrayBatchReader<S>>>,
        positions: Positions,
        virtual_columns: VirtualColumns,
        batch_size: usize,
    },
    /// Under an exact filter, the push decoder's (with the offset and the limit, counted
    /// over the rows that pass).
    Filtered(Box<PushDriver<S>>),
}

impl<S: Source> RowBatches<S> {
    /// The fields of every batch: the projection's, then the virtual columns.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// What pruning and the filter did so far.
    pub fn stats(&self) -> FilterStats {
        match &self.inner {
            Inner::Plain { .. } => self.stats.clone(),
            Inner::Filtered(driver) => {
                let mut s = self.stats.clone();
                s.add(driver.filter_stats());
                s
            }
        }
    }

    fn next_batch(&mut self) -> Result<Option<ArrayBatch>> {
        match &mut self.inner {
            Inner::Filtered(driver) => driver.next_batch(),
            Inner::Plain {
                columns,
                positions,
                virtual_columns,
                batch_size,
            } => {
                let (num_rows, mut arrays) = match columns {
                    Some(c) => match c.next().transpose()? {
                        Some(b) => (b.num_rows, b.arrays),
                        None => {
                            if positions.remaining() > 0 {
                                return Err(Error::format(
                                    "the columns end before the rows their row groups count",
                                ));
                            }
                            return Ok(None);
                        }
                    },
                    None => match positions.remaining() {
                        0 => return Ok(None),
                        left => (left.min(*batch_size as u64) as usize, Vec::new()),
                    },
                };
                if virtual_columns.is_empty() {
                    positions.skip(num_rows)?;
                } else {
                    virtual_columns.append(positions, num_rows, &mut arrays)?;
                }
                Ok(Some(ArrayBatch {
                    num_rows,
                    fields: self.fields.clone(),
                    arrays,
                }))
            }
        }
    }
}

impl<S: Source> Iterator for RowBatches<S> {
    type Item = Result<ArrayBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_batch().transpose()
    }
}
