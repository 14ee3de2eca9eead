//! The canonical Arrow extension type `arrow.parquet.variant`: a struct of `metadata` and
//! `value` binaries, named in the field metadata under `ARROW:extension:name`.
//!
//! - Reading ([`ParquetReader::record_batches`](crate::read::ParquetReader::record_batches)):
//!   a whole VARIANT group becomes this type, unshredded as stored or rebuilt from its
//!   shredding. The shredded columns stay readable as they are: project a leaf path such as
//!   `var.typed_value.a.typed_value` and it comes back as plain structs.
//! - Writing ([`ArrowWriter`](super::ArrowWriter)): a top-level field with this extension
//!   name is written as a VARIANT group (its `metadata` and `value`, and a `typed_value` if the
//!   struct has one).

use std::sync::Arc;

use arrow_array::{ArrayRef, StructArray};
use arrow_schema::{DataType as ArrowType, Field as ArrowField, Fields};

use super::read::column_to_arrow;
use crate::variant::VariantArray;
use crate::Result;

/// The extension name of Parquet variants in Arrow.
pub const VARIANT_EXTENSION_NAME: &str = "arrow.parquet.variant";

/// The field metadata key of an Arrow extension type's name.
pub const EXTENSION_NAME_KEY: &str = "ARROW:extension:name";

/// Whether `f` is annotated as a Parquet variant.
pub fn is_variant_field(f: &ArrowField) -> bool {
    f.metadata().get(EXTENSION_NAME_KEY).map(String::as_str) == Some(VARIANT_EXTENSION_NAME)
}

fn storage_fields() -> Fields {
    Fields::from(vec![
        ArrowField::new("metadata", ArrowType::LargeBinary, false),
        ArrowField::new("value", ArrowType::LargeBinary, false),
    ])
}

/// The Arrow field of an (unshredded) variant column: `struct<metadata: large_binary,
/// value: large_binary>` with the extension name, keeping any other metadata of `base`.
pub fn variant_arrow_field(base: &ArrowField) -> ArrowField {
    let mut metadata = base.metadata().clone();
    metadata.insert(
        EXTENSION_NAME_KEY.to_string(),
        VARIANT_EXTENSION_NAME.to_string(),
    );
    ArrowField::new(
        base.name(),
        ArrowType::Struct(storage_fields()),
        base.is_nullable(),
    )
    .with_metadata(metadata)
}

/// The storage array of `variants`, without copying their bytes.
pub fn variant_to_arrow(variants: &VariantArray) -> Result<ArrayRef> {
    let metadata = column_to_arrow(&variants.metadata, &ArrowType::LargeBinary)?;
    let value = column_to_arrow(&variants.value, &ArrowType::LargeBinary)?;
    Ok(Arc::new(StructArray::new(
        storage_fields(),
        vec![metadata, value],
        variants.validity.clone(),
    )))
}
