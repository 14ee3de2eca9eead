//! The synchronous readers' one control loop: a [`PushDecoder`] answered from a local
//! [`Source`].
//!
//! [`ParquetReader::batches`] and [`ParquetReader::array_batches`] decode through the push
//! decoder, as the object-store reader does; this driver only fetches. It answers each
//! [`DecodeResult::NeedsData`] with [`Source::read`]s of exactly the ranges asked for:
//! slices of the same buffer for bytes in memory and memory maps (pushed as they are, so
//! the decoder keeps views of them and nothing is copied), positioned reads for a
//! [`FileSource`](super::FileSource).
//!
//! Local reads pay nothing per request, so the driver asks the decoder not to coalesce
//! ranges (no bytes between chunks are read and dropped) nor split them, and to plan no row
//! group ahead of the one it decodes (a positioned read then holds one row group's
//! projected bytes, as the column readers did). The decoder hands each row group's column
//! decoders on to the next, so what they learn of a column's pages carries across chunks.

use std::sync::Arc;

use super::positions::VirtualColumns;
use super::push::whole::WholeItem;
use super::push::{DecodeResult, IoOptions, PushDecoder, PushOptions};
use super::{ArrayBatch, FileDecoder, Select, Source};
use crate::array::Array;
use crate::field::Field;
use crate::predicate::{Expr, FilterStats, Materialise};
use crate::{Error, Result};

/// A push decoder and the local source that feeds it.
pub(crate) struct PushDriver<S: Source> {
    source: Arc<S>,
    decoder: PushDecoder,
}

impl<S: Source> PushDriver<S> {
    /// Batches of the fields `columns` (top-level names or leaf paths) of `reader`'s file.
    pub(crate) fn fields(
        reader: &FileDecoder<S>,
        columns: &[Select],
        batch_size: usize,
    ) -> Result<Self> {
        let projection = Some(columns.to_vec());
        let options = local_options(reader, batch_size, projection);
        let mut decoder = PushDecoder::try_new(reader.footer(), options)?;
        decoder.ask_for_ahead_bytes_first();
        Ok(Self::over(reader, decoder))
    }

    /// Batches of the fields `columns` of `reader`'s file for the rows that satisfy `filter`
    /// (see [`PushOptions::filter`]), past `offset` of them and at most `limit`, then
    /// `virtual_columns`.
    pub(crate) fn filtered(
        reader: &FileDecoder<S>,
        columns: &[Select],
        batch_size: usize,
        (filter, materialise): (Expr, Materialise),
        (offset, limit): (u64, Option<u64>),
        virtual_columns: VirtualColumns,
    ) -> Result<Self> {
        let options = local_options(reader, batch_size, Some(columns.to_vec()))
            .with_filter(Some(filter))
            .with_materialise(materialise)
            .with_offset(offset)
            .with_limit(limit);
        let options = PushOptions {
            row_number_column: virtual_columns.row_number,
            row_group_column: virtual_columns.row_group,
            ..options
        };
        let decoder = PushDecoder::try_new(reader.footer(), options)?;
        Ok(Self::over(reader, decoder))
    }

    /// What pruning and the filter did so far.
    pub(crate) fn filter_stats(&self) -> &FilterStats {
        self.decoder.filter_stats()
    }

    /// Batches of the flat leaf columns `columns` of `reader`'s file, each batch's arrays
    /// the leaves' columns in the order given.
    pub(crate) fn leaves(
        reader: &FileDecoder<S>,
        columns: &[usize],
        batch_size: usize,
    ) -> Result<Self> {
        let decoder = PushDecoder::for_leaves(
            reader.footer(),
            local_options(reader, batch_size, None),
            columns.to_vec(),
        )?;
        Ok(Self::over(reader, decoder))
    }

    /// The whole arrays of `items` of `reader`'s file, one per item, in order.
    pub(crate) fn whole(reader: &FileDecoder<S>, items: Vec<WholeItem>) -> Result<Vec<Array>> {
        let decoder =
            PushDecoder::for_whole(reader.footer(), local_options(reader, 1, None), items)?;
        let batch = Self::over(reader, decoder).next_batch()?;
        Ok(batch
            .ok_or_else(|| Error::internal("a whole read ended without its columns"))?
            .arrays)
    }

    fn over(reader: &FileDecoder<S>, decoder: PushDecoder) -> Self {
        PushDriver {
            source: Arc::clone(&reader.source),
            decoder,
        }
    }

    /// The fields of every batch.
    pub(crate) fn batch_fields(&self) -> &[Field] {
        self.decoder.fields()
    }

    /// The next batch, fetching what the decoder asks for first; `None` when done.
    pub(crate) fn next_batch(&mut self) -> Result<Option<ArrayBatch>> {
        loop {
            match self.decoder.try_next()? {
                DecodeResult::NeedsData(ranges) => {
                    for r in ranges {
                        let bytes = self.source.read(r.clone())?;
                        self.decoder.push(r.start, bytes);
                    }
                }
                DecodeResult::Batch(batch) => {
                    // Nothing is cached here: what the decoder lets go is already dropped.
                    self.decoder.take_released();
                    return Ok(Some(batch));
                }
                DecodeResult::Finished => return Ok(None),
            }
        }
    }
}

/// The push options of a local read of `reader` (see the module docs).
fn local_options<S: Source>(
    reader: &FileDecoder<S>,
    batch_size: usize,
    projection: Option<Vec<Select>>,
) -> PushOptions {
    PushOptions {
        read: reader.options.clone(),
        projection,
        batch_size,
        io: IoOptions {
            coalesce_gap: 0,
            max_request_size: 0,
        },
        plan_ahead: false,
        ..PushOptions::default()
    }
}
