//! VARIANT values: the binary encoding of `VariantEncoding.md` and the shredding of
//! `VariantShredding.md` (apache/parquet-format).
//!
//! A variant is two byte strings: a *metadata* dictionary of field names and a *value* whose
//! objects name their fields by dictionary id.
//! - Decoding gives borrowed views: [`VariantMetadata`] and [`VariantRef`] (strings and
//!   binaries are slices of the input; objects and arrays decode their children on access).
//!   Every length and offset is checked against the bytes present: bad bytes are an `Err`.
//! - [`Variant`] is an owned tree whose equality is logical (see its docs).
//! - Encoding: [`Variant::encode`], or [`MetadataBuilder`] with [`write_variant`] /
//!   [`ObjectWriter`] / [`ArrayWriter`] to build values against one dictionary.
//!
//! ```
//! use parq::variant::{Variant, VariantMetadata, VariantRef};
//! let v = Variant::Array(vec![Variant::String("comedy".into()), Variant::Int8(1)]);
//! let enc = v.encode()?;
//! let meta = VariantMetadata::new(&enc.metadata)?;
//! let view = VariantRef::new(meta, &enc.value)?;
//! assert_eq!(view.as_array().unwrap().get(0)?, VariantRef::String("comedy"));
//! assert_eq!(view.to_owned_variant()?, v);
//! # Ok::<(), parq::Error>(())
//! ```

mod decode;
mod encode;
mod json;
mod metadata;
mod owned;
mod read;
mod rebuild;
mod shredded_type;
mod shredding;

pub use decode::{VariantList, VariantObject, VariantRef};
pub use encode::{
    write_primitive, write_variant, write_variant_ref, ArrayWriter, EncodedVariant, ObjectWriter,
};
pub use json::string as json_string;
pub use metadata::{MetadataBuilder, VariantMetadata};
pub use owned::Variant;
pub use rebuild::{describe_shredding, VariantArray};
pub use shredded_type::ShreddedType;
#[cfg(feature = "arrow")]
pub(crate) use shredding::annotate_variants;
pub use shredding::{infer_shredding, shred, variant_field, variant_writer, Shredding};

use crate::Error;

/// Deepest nesting of objects and arrays that decoding follows (a guard for the stack).
pub const MAX_DEPTH: usize = 256;

fn variant_error(what: impl Into<String>) -> Error {
    Error::format(format!("variant {}", what.into()))
}

/// The unsigned little-endian integer of `width` (1..=4) bytes at `at`, or `None` when it does
/// not fit in `bytes`.
/// One arm per width, so that the hot 1- and 2-byte reads are a single load.
#[inline]
fn read_uint(bytes: &[u8], at: usize, width: usize) -> Option<usize> {
    match width {
        1 => bytes.get(at).map(|&b| usize::from(b)),
        2 => bytes
            .get(at..at.checked_add(2)?)
            .map(|b| usize::from(u16::from_le_bytes([b[0], b[1]]))),
        3 => bytes
            .get(at..at.checked_add(3)?)
            .map(|b| usize::from(b[0]) | usize::from(b[1]) << 8 | usize::from(b[2]) << 16),
        4 => bytes
            .get(at..at.checked_add(4)?)
            .and_then(|b| usize::try_from(u32::from_le_bytes([b[0], b[1], b[2], b[3]])).ok()),
        _ => None,
    }
}

/// Bytes needed (1..=4) for an unsigned value up to `max`.
fn uint_width(max: usize) -> usize {
    match max {
        0..=0xff => 1,
        0x100..=0xffff => 2,
        0x1_0000..=0xff_ffff => 3,
        _ => 4,
    }
}

#[cfg(test)]
mod tests;
