//! `ParquetReader::read_variant`: a variant column of a file, rebuilt from its shredding.

use super::rebuild::VariantArray;
use crate::metadata::LogicalType;
use crate::read::{FileDecoder, ParquetReader, Source};
use crate::{Error, Result};

impl<S: Source> FileDecoder<S> {
    fn check_variant(&self, path: &str) -> Result<()> {
        let top = self
            .schema
            .top_level_fields()
            .iter()
            .find(|n| n.name == path)
            .ok_or_else(|| Error::InvalidArgument(format!("no top-level field {path:?}")))?;
        let element = &self.schema.elements()[top.schema_index];
        let annotated = matches!(element.logical_type, Some(LogicalType::Variant { .. }));
        let has_metadata = top.children().iter().any(|c| c.name == "metadata");
        if !annotated && !has_metadata {
            return Err(Error::InvalidArgument(format!(
                "{path:?} is not a variant group"
            )));
        }
        Ok(())
    }

    pub(crate) fn variant_fields(&self) -> Vec<&str> {
        self.schema
            .top_level_fields()
            .iter()
            .filter(|n| {
                matches!(
                    self.schema.elements()[n.schema_index].logical_type,
                    Some(LogicalType::Variant { .. })
                )
            })
            .map(|n| n.name.as_str())
            .collect()
    }

    pub(crate) fn variant_path_leaves(&self, column: &str, path: &str) -> Result<Vec<String>> {
        let all: Vec<String> = self.schema.leaves.iter().map(|l| l.path_string()).collect();
        let has = |p: &str| all.iter().any(|l| l == p);
        let under = |p: &str| {
            let prefix = format!("{p}.");
            all.iter()
                .filter(|l| l.starts_with(&prefix))
                .cloned()
                .collect::<Vec<_>>()
        };
        let mut out = vec![format!("{column}.metadata")];
        if !has(&out[0]) {
            return Err(Error::InvalidArgument(format!(
                "{column:?} has no metadata column"
            )));
        }
        let mut at = column.to_string();
        for segment in path.split('.').filter(|s| !s.is_empty()) {
            let value = format!("{at}.value");
            if has(&value) {
                out.push(value);
            }
            let next = format!("{at}.typed_value.{segment}");
            if under(&next).is_empty() {
                return Ok(out); // not shredded: the rest is inside `value`
            }
            at = next;
        }
        for leaf in under(&at) {
            if !out.contains(&leaf) {
                out.push(leaf);
            }
        }
        Ok(out)
    }
}

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
        self.decoder.check_variant(path)?;
        let (field, array) = self.read_field_by_path(path)?;
        VariantArray::from_group(&field, &array)
    }

    /// [`Self::read_variant`] in batches of at most `batch_rows` rows, each rebuilt on its
    /// own: memory stays at a batch's columns and rebuilt bytes, where the whole-column read
    /// holds every row's at once.
    ///
    /// ```no_run
    /// use parq::read::ParquetReader;
    /// let reader = ParquetReader::new(bytes::Bytes::from(std::fs::read("events.parquet")?))?;
    /// let (mut text, mut offsets) = (String::new(), vec![0]);
    /// for batch in reader.variant_batches("event", 8192)? {
    ///     batch?.write_json(&mut text, &mut offsets)?;
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn variant_batches(
        &self,
        path: &str,
        batch_rows: usize,
    ) -> Result<impl Iterator<Item = Result<VariantArray>>> {
        self.decoder.check_variant(path)?;
        let batches = self.array_batches(&[path], batch_rows)?;
        Ok(batches.map(|b| {
            let b = b?;
            VariantArray::from_group(&b.fields[0], &b.arrays[0])
        }))
    }

    /// The names of the top-level fields annotated `VARIANT`.
    pub fn variant_fields(&self) -> Vec<&str> {
        self.decoder.variant_fields()
    }
}

impl<S: Source> ParquetReader<S> {
    /// The values at `path` (object field names joined with dots, e.g. `"a.b"`) of the variant
    /// column `column`: a row with nothing there is null. Only the leaf columns on the path
    /// are read ([`Self::variant_path_leaves`]): the metadata, the `value` columns of the
    /// levels above (where the field may sit unshredded), and the whole subtree of the
    /// shredded field at the end of the path.
    pub fn read_variant_path(&self, column: &str, path: &str) -> Result<VariantArray> {
        self.decoder.check_variant(column)?;
        let segments: Vec<&str> = path.split('.').filter(|s| !s.is_empty()).collect();
        let leaves = self.variant_path_leaves(column, path)?;
        let leaves: Vec<&str> = leaves.iter().map(String::as_str).collect();
        let rows = self.selected_rows() as usize;
        let mut parts: Vec<VariantArray> = Vec::new();
        for batch in self.array_batches(&leaves, rows.clamp(1, 1 << 20))? {
            let batch = batch?;
            parts.push(VariantArray::from_group_at(
                &batch.fields[0],
                &batch.arrays[0],
                &segments,
            )?);
        }
        Ok(VariantArray::concat(&parts))
    }

    /// The leaf columns (dotted paths) [`Self::read_variant_path`] reads for `path`.
    pub fn variant_path_leaves(&self, column: &str, path: &str) -> Result<Vec<String>> {
        self.decoder.variant_path_leaves(column, path)
    }
}
