//! Dictionary-encoded pages kept as they are stored: the pages' indices become the keys of a
//! [`Values::Dictionary`], and the chunk's dictionary page is decoded once into the column
//! every key points into (shared, not copied, by every run of the chunk).
//!
//! A page that is not dictionary-encoded (a writer's fallback to PLAIN when the dictionary
//! grew too large, or a chunk without a dictionary page) goes to the column's own decoder,
//! and so does the rest of its chunk. A run that holds both keys and values is handed out as
//! values (the keys looked up: one copy, for the one run where the chunk fell back).

use std::collections::TryReserveError;
use std::sync::Arc;

use arrow_buffer::BooleanBuffer;
use bytes::Bytes;
use parq_codecs::encoding::rle;
use parq_codecs::kernels::memory;
use parq_codecs::{levels, probe};

use super::values::{check_count, is_dictionary, IndexCursor, PartStart, ValuesDecoder};
use crate::column::{Column, Values};
use crate::read::page::DataPage;
use crate::{Error, Result};

pub(super) struct KeysDecoder {
    /// The column's own decoder: pages that are not dictionary-encoded, and every page of a
    /// chunk after its first such page.
    inner: Box<dyn ValuesDecoder>,
    /// Slots `inner` decoded since its output was last taken.
    inner_len: usize,
    /// Decodes a dictionary page (PLAIN values, no nulls) into a column.
    dictionary_decoder: Box<dyn ValuesDecoder>,
    /// The chunk's dictionary.
    dictionary: Option<Arc<Column>>,
    /// The chunk's dictionary page, given to `inner` only if the chunk falls back.
    page: Option<(Bytes, usize)>,
    /// True once this chunk had a page that is not dictionary-encoded.
    fallen_back: bool,
    /// Keys of the current run (one per slot, 0 in null slots).
    keys: Vec<i32>,
    /// Where the last part of a keys page ended.
    indices: IndexCursor,
    /// Dense keys of a page with nulls, before they are scattered into their slots.
    scratch: Vec<i32>,
    /// Parts of the current run already closed (keys of an earlier dictionary, or values of
    /// `inner`), in order, without validity (the chunk decoder keeps it).
    sealed: Vec<Column>,
}

impl KeysDecoder {
    pub(super) fn new(inner: Box<dyn ValuesDecoder>, dictionary: Box<dyn ValuesDecoder>) -> Self {
        KeysDecoder {
            inner,
            inner_len: 0,
            dictionary_decoder: dictionary,
            dictionary: None,
            page: None,
            fallen_back: false,
            keys: Vec::new(),
            indices: IndexCursor::default(),
            scratch: Vec::new(),
            sealed: Vec::new(),
        }
    }

    /// True when `page` is decoded to keys.
    fn keys_page(&self, page: &DataPage) -> bool {
        !self.fallen_back && self.dictionary.is_some() && is_dictionary(page.encoding)
    }

    /// True for a dictionary-encoded page of a chunk with a dictionary: it splits and skips
    /// whether it is decoded to keys or by `inner` (which has the dictionary by then: it
    /// gets it when the chunk falls back, before its first page).
    fn dictionary_page_known(&self, page: &DataPage) -> bool {
        self.dictionary.is_some() && is_dictionary(page.encoding)
    }

    /// Close the current part of the run (keys, or `inner`'s values).
    fn seal(&mut self) {
        if !self.keys.is_empty() {
            if let Some(dictionary) = &self.dictionary {
                let keys = std::mem::take(&mut self.keys);
                self.sealed.push(Column {
                    len: keys.len(),
                    validity: None,
                    values: Values::Dictionary {
                        keys: keys.into(),
                        dictionary: Arc::clone(dictionary),
                    },
                });
            }
        }
        if self.inner_len > 0 {
            self.sealed.push(Column {
                len: std::mem::take(&mut self.inner_len),
                validity: None,
                values: self.inner.finish(),
            });
        }
    }

    /// A page that is not decoded to keys: from now on this chunk goes to `inner`.
    fn fall_back(&mut self) -> Result<()> {
        if self.fallen_back {
            return Ok(());
        }
        probe::hit("read.dictionary_keys_fallback");
        self.seal();
        self.fallen_back = true;
        if let Some((values, n)) = self.page.take() {
            self.inner.set_dictionary(values, n)?;
        }
        Ok(())
    }

    /// Append `slots` keys: the page's dense indices `at.first..at.first + count` in the
    /// valid slots of `validity` (`None`: all `slots` valid).
    fn decode_keys(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<()> {
        let len = self.dictionary.as_ref().map_or(0, |d| d.len);
        let mut dec = self.indices.decoder(&page.values, at.first)?;
        probe::hit("read.dictionary_keys");
        match validity {
            None => rle::dictionary_keys(&mut dec, len, slots, &mut self.keys)?,
            Some(bits) => {
                self.scratch.clear();
                rle::dictionary_keys(&mut dec, len, count, &mut self.scratch)?;
                levels::scatter_fixed(
                    &self.scratch,
                    bits.values(),
                    bits.offset(),
                    slots,
                    &mut self.keys,
                )?;
            }
        }
        self.indices.keep(at.first + count, &dec);
        Ok(())
    }
}

impl ValuesDecoder for KeysDecoder {
    fn output_bytes(&self, page: &DataPage, slots: usize, valid: usize) -> u64 {
        if self.keys_page(page) {
            (slots as u64).saturating_mul(4)
        } else {
            self.inner.output_bytes(page, slots, valid)
        }
    }

    fn try_reserve(
        &mut self,
        slots: usize,
        valid: usize,
    ) -> std::result::Result<(), TryReserveError> {
        if self.fallen_back {
            return self.inner.try_reserve(slots, valid);
        }
        self.keys.try_reserve(slots)?;
        if valid < slots {
            self.scratch.try_reserve(valid)?;
        }
        Ok(())
    }

    fn reserve(&mut self, slots: usize) {
        memory::reserve_hint(&mut self.keys, slots);
    }

    fn reserve_run(&mut self, page: &DataPage, n: usize, valid: usize, pages: usize) {
        if self.keys_page(page) {
            memory::reserve_hint(&mut self.keys, n.saturating_mul(pages));
        } else {
            self.inner.reserve_run(page, n, valid, pages);
        }
    }

    fn set_dictionary(&mut self, values: Bytes, num_values: usize) -> Result<()> {
        self.clear_dictionary();
        // Every PLAIN entry of a type with dictionaries takes a byte or more: no count from
        // the header sizes anything past the page's bytes (each decoder checks its own
        // width too).
        check_count(num_values, 1, values.len(), "dictionary page")?;
        // The entries are PLAIN values: decoded as a required PLAIN page.
        let page = DataPage::dictionary_entries(values.clone(), num_values);
        if let Err(e) = self.dictionary_decoder.decode(&page, None, num_values) {
            // Kept whole and shared, the dictionary is checked whole: any entry may be picked.
            return Err(match self.dictionary_decoder.take_invalid_utf8() {
                Some(k) => Error::invalid_utf8(Some(format!(
                    "at entry {k} of the dictionary page (the column is read as dictionary keys)"
                ))),
                None => e,
            });
        }
        let decoded = self.dictionary_decoder.finish();
        self.dictionary = Some(Arc::new(Column {
            len: num_values,
            validity: None,
            values: decoded,
        }));
        self.page = Some((values, num_values));
        Ok(())
    }

    fn check_utf8(&mut self) {
        // The dictionary's entries are checked whole when it is decoded (a key may pick any
        // of them), and fallen-back pages as the column's own decoder checks them.
        self.inner.check_utf8();
        self.dictionary_decoder.check_utf8();
    }

    fn take_invalid_utf8(&mut self) -> Option<usize> {
        self.inner.take_invalid_utf8()
    }

    fn small_offsets(&mut self) {
        // Pages that fall back to values; the dictionary, decoded once per chunk and shared,
        // keeps the layout it has.
        self.inner.small_offsets();
    }

    fn clear_dictionary(&mut self) {
        self.seal();
        self.dictionary = None;
        self.page = None;
        self.fallen_back = false;
        self.inner.clear_dictionary();
    }

    fn decode(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        valid: usize,
    ) -> Result<()> {
        let n = page.num_values;
        if self.keys_page(page) {
            return self.decode_keys(page, validity, n, PartStart::default(), valid);
        }
        self.fall_back()?;
        self.inner.decode(page, validity, valid)?;
        self.inner_len += n;
        Ok(())
    }

    fn can_split(&self, page: &DataPage) -> bool {
        self.dictionary_page_known(page) || self.inner.can_split(page)
    }

    fn can_skip(&self, page: &DataPage) -> bool {
        self.dictionary_page_known(page) || self.inner.can_skip(page)
    }

    fn start_skipping(&mut self, page: &DataPage) -> Result<()> {
        if self.keys_page(page) {
            self.indices.start();
            return Ok(());
        }
        self.inner.start_skipping(page)
    }

    fn end_skipping(&mut self) {
        self.indices.end();
        self.inner.end_skipping();
    }

    fn skip(&self, page: &DataPage, at: PartStart, n: usize) -> Result<PartStart> {
        if self.keys_page(page) {
            return Ok(PartStart {
                first: at.first + n,
                cursor: at.cursor,
            });
        }
        self.inner.skip(page, at, n)
    }

    fn plain_values(&mut self, page: &DataPage, valid: usize) -> Result<Bytes> {
        self.fall_back()?;
        self.inner.plain_values(page, valid)
    }

    fn decode_part(
        &mut self,
        page: &DataPage,
        validity: Option<&BooleanBuffer>,
        slots: usize,
        at: PartStart,
        count: usize,
    ) -> Result<usize> {
        if self.keys_page(page) {
            self.decode_keys(page, validity, slots, at, count)?;
            return Ok(0);
        }
        self.fall_back()?;
        let cursor = self.inner.decode_part(page, validity, slots, at, count)?;
        self.inner_len += slots;
        Ok(cursor)
    }

    fn finish(&mut self) -> Values {
        if self.sealed.is_empty() {
            return match &self.dictionary {
                Some(dictionary) if !self.fallen_back => Values::Dictionary {
                    keys: std::mem::take(&mut self.keys).into(),
                    dictionary: Arc::clone(dictionary),
                },
                _ => {
                    self.inner_len = 0;
                    self.inner.finish()
                }
            };
        }
        // The run holds keys and values (a chunk that fell back), or keys of two
        // dictionaries: values for all, unless every part shares one dictionary.
        self.seal();
        let parts = std::mem::take(&mut self.sealed);
        let run = Column::concat(&parts);
        if !matches!(run.values, Values::Dictionary { .. }) {
            probe::hit("read.dictionary_keys_materialized");
        }
        run.values
    }
}
