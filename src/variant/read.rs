//! `ParquetReader::read_variant`: a variant column of a file, rebuilt from its shredding.

use super::rebuild::VariantArray;
use crate::metadata::LogicalType;
use crate::read::{ParquetReader, Source};
use crate::{Error, Result};

impl<S: Source> ParquetReader<S> {
    /// Read the variant group `path` (a top-level field name) over the selected row groups:
    /// each row's metadata and value, rebuilt from `typed_value` where the file shreds it.
    /// The group must be annotated `VARIANT`, or be a group with a `metadata` child.
    ///
    /// ```no_run
    /// use parq::read::ParquetReader;
    /// let reader = ParquetReader::new(bytes::Bytes::from(std::fs::read("events.parquet")?))?;
    /// let events = reader.read_variant("event")?;
    /// if let Some(v) = events.get(0) {
    ///     println!("{}", v?.to_json()?);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_variant(&self, path: &str) -> Result<VariantArray> {
        self.check_variant(path)?;
        let (field, array) = self.read_field_by_path(path)?;
        VariantArray::from_group(&field, &array)
    }

    /// The names of the top-level fields annotated `VARIANT`.
    pub fn variant_fields(&self) -> Vec<&str> {
        self.schema()
            .top_level_fields()
            .iter()
            .filter(|n| {
                matches!(
                    self.schema().elements()[n.schema_index].logical_type,
                    Some(LogicalType::Variant { .. })
                )
            })
            .map(|n| n.name.as_str())
            .collect()
    }

    fn check_variant(&self, path: &str) -> Result<()> {
        let top = self
            .schema()
            .top_level_fields()
            .iter()
            .find(|n| n.name == path)
            .ok_or_else(|| Error::InvalidArgument(format!("no top-level field {path:?}")))?;
        let element = &self.schema().elements()[top.schema_index];
        let annotated = matches!(element.logical_type, Some(LogicalType::Variant { .. }));
        let has_metadata = top.children().iter().any(|c| c.name == "metadata");
        if !annotated && !has_metadata {
            return Err(Error::InvalidArgument(format!(
                "{path:?} is not a variant group"
            )));
        }
        Ok(())
    }
}
