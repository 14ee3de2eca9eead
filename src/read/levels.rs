//! Definition levels of a page to a validity bitmap.

use arrow_buffer::{BooleanBuffer, BooleanBufferBuilder};
use parq_codecs::probe;

use super::page::{DataPage, Levels};
use crate::{Error, Result};

/// An error decoding a level stream, saying which (`"definition"` or `"repetition"`): the
/// codec's own message ("input truncated at byte 0") does not.
pub(crate) fn levels_error(which: &str, e: Error) -> Error {
    match e {
        Error::Codec { source, at } => Error::Format {
            what: format!("{which} levels: {source}"),
            at,
        },
        e => e,
    }
}

/// Validity of one page: `None` when every slot holds a value.
pub(crate) struct PageValidity {
    pub bits: Option<BooleanBuffer>,
    pub valid: usize,
}

/// Decode the definition levels of a flat column's page (max level 0 or 1). A v2 header's
/// null count must be what the levels hold.
pub(crate) fn page_validity(page: &DataPage) -> Result<PageValidity> {
    let v = decode_validity(page)?;
    check_nulls(page.num_nulls, page.num_values, v.valid)?;
    Ok(v)
}

/// A v2 page's `num_nulls` (when given) against the `valid` values its `slots` levels hold.
pub(crate) fn check_nulls(num_nulls: Option<usize>, slots: usize, valid: usize) -> Result<()> {
    match num_nulls {
        Some(nulls) if slots.checked_sub(nulls) != Some(valid) => Err(Error::format(format!(
            "data page v2 says {nulls} nulls in {slots} values, its definition levels hold {}",
            slots - valid
        ))),
        _ => Ok(()),
    }
}

fn decode_validity(page: &DataPage) -> Result<PageValidity> {
    let n = page.num_values;
    let all_valid = PageValidity {
        bits: None,
        valid: n,
    };
    match &page.def_levels {
        Levels::None => Ok(all_valid),
        _ if page.num_nulls == Some(0) => {
            // v2 header says no nulls: skip the levels entirely.
            probe::hit("read.levels_skipped_no_nulls");
            Ok(all_valid)
        }
        Levels::Rle(data) => {
            let mut b = BooleanBufferBuilder::new(0);
            let valid = parq_codecs::levels::def_levels_to_bitmap(data, n, &mut b)
                .map_err(|e| levels_error("definition", e.into()))?;
            Ok(finish(b, valid, n))
        }
        Levels::BitPacked(data) => {
            probe::hit("read.levels_bit_packed_legacy");
            let mut b = BooleanBufferBuilder::new(n);
            let mut valid = 0;
            for i in 0..n {
                // Deprecated BIT_PACKED levels are packed from the most significant bit.
                let bit = (data[i / 8] >> (7 - (i % 8))) & 1 == 1;
                valid += bit as usize;
                b.append(bit);
            }
            Ok(finish(b, valid, n))
        }
    }
}

fn finish(mut b: BooleanBufferBuilder, valid: usize, n: usize) -> PageValidity {
    if valid == n {
        probe::hit("read.page_without_nulls");
        PageValidity { bits: None, valid }
    } else {
        PageValidity {
            bits: Some(b.finish()),
            valid,
        }
    }
}
