//! [`FileSpec`]: a schema, its columns and writer options; [`FileSpec::write`] makes the file.

use proptest::prelude::*;

use super::columns::{build_array, gen_profile, gen_rows, ColumnProfile};
use super::leaves::LeafFilter;
use super::options::gen_options;
use super::schema::gen_schema;
use super::{Entropy, Rng};
use crate::array::Array;
use crate::field::Field;
use crate::metadata::FileMetaData;
use crate::write::{ParquetWriter, WriterOptions};
use crate::Result;

/// Bounds of generated specs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct SpecConfig {
    /// Most top-level fields (at least one is always drawn).
    pub max_fields: usize,
    /// Deepest nesting (0: flat).
    pub max_depth: usize,
    /// Most rows.
    pub max_rows: usize,
    /// Longest "long" string or binary value, in bytes.
    pub max_long: u16,
    /// Most write calls the rows are split into.
    pub max_batches: usize,
    /// The leaf types drawn (all by default).
    pub leaves: LeafFilter,
}

impl Default for SpecConfig {
    fn default() -> Self {
        SpecConfig {
            max_fields: 4,
            max_depth: 3,
            max_rows: 300,
            max_long: 300,
            max_batches: 4,
            leaves: LeafFilter::all(),
        }
    }
}

impl SpecConfig {
    /// Flat schemas only.
    pub fn flat() -> Self {
        SpecConfig {
            max_depth: 0,
            ..SpecConfig::default()
        }
    }

    /// These options with [`max_fields`](Self::max_fields) set to `v`.
    pub fn with_max_fields(mut self, v: usize) -> Self {
        self.max_fields = v;
        self
    }

    /// These options with [`max_depth`](Self::max_depth) set to `v`.
    pub fn with_max_depth(mut self, v: usize) -> Self {
        self.max_depth = v;
        self
    }

    /// These options with [`max_rows`](Self::max_rows) set to `v`.
    pub fn with_max_rows(mut self, v: usize) -> Self {
        self.max_rows = v;
        self
    }

    /// These options with [`max_long`](Self::max_long) set to `v`.
    pub fn with_max_long(mut self, v: u16) -> Self {
        self.max_long = v;
        self
    }

    /// These options with [`max_batches`](Self::max_batches) set to `v`.
    pub fn with_max_batches(mut self, v: usize) -> Self {
        self.max_batches = v;
        self
    }

    /// These options with [`leaves`](Self::leaves) set to `v`.
    pub fn with_leaves(mut self, v: LeafFilter) -> Self {
        self.leaves = v;
        self
    }
}

/// One file to write: its schema, its columns (one array per top-level field, the whole
/// file) and how to write them.
#[derive(Debug, Clone)]
pub struct FileSpec {
    /// The top-level fields.
    pub fields: Vec<Field>,
    /// One array per field, all of the same length.
    pub columns: Vec<Array>,
    /// Rows per `write_arrays` call; the rest of the rows go in one last call.
    pub batches: Vec<usize>,
    /// Writer options (per-column overrides keyed by leaf path).
    pub options: WriterOptions,
    /// How each column's values were drawn (for reports; not used to write).
    pub profiles: Vec<ColumnProfile>,
}

impl FileSpec {
    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.columns.first().map_or(0, Array::len)
    }

    /// Write the file: its bytes, and the arrays it must read back as (one per top-level
    /// field, compared by [`Array`]'s logical, bit-exact equality).
    pub fn write(&self) -> Result<(Vec<u8>, Vec<Array>)> {
        let (bytes, _) = self.write_with_metadata()?;
        Ok((bytes, self.columns.clone()))
    }

    /// Write the file: its bytes and the footer the writer returned.
    pub fn write_with_metadata(&self) -> Result<(Vec<u8>, FileMetaData)> {
        let mut w =
            ParquetWriter::with_fields(Vec::new(), self.fields.clone(), self.options.clone())?;
        let rows = self.num_rows();
        let mut at = 0;
        for &b in &self.batches {
            let take = b.min(rows - at);
            if take == 0 {
                continue;
            }
            let batch: Vec<Array> = self.columns.iter().map(|c| c.slice(at, take)).collect();
            w.write_arrays(&batch)?;
            at += take;
        }
        if at < rows {
            let batch: Vec<Array> = self
                .columns
                .iter()
                .map(|c| c.slice(at, rows - at))
                .collect();
            w.write_arrays(&batch)?;
        }
        let (meta, bytes) = w.close()?;
        Ok((bytes, meta))
    }
}

/// A spec drawn from `e` within `config`. Zeros (an exhausted fuzzer input) give one flat
/// required column of zero rows.
pub fn gen_spec(e: &mut dyn Entropy, config: &SpecConfig) -> FileSpec {
    let count = 1 + e.below(config.max_fields.max(1) as u64) as usize;
    let depth = e.below(config.max_depth as u64 + 1) as usize;
    let fields = gen_schema(e, count, depth, &config.leaves);
    let rows = e.below(config.max_rows as u64 + 1) as usize;
    gen_spec_for(e, fields, rows, config)
}

/// A spec of `fields` with `rows` rows: columns, batches and options drawn from `e`.
pub fn gen_spec_for(
    e: &mut dyn Entropy,
    fields: Vec<Field>,
    rows: usize,
    config: &SpecConfig,
) -> FileSpec {
    let mut columns = Vec::with_capacity(fields.len());
    let mut profiles = Vec::with_capacity(fields.len());
    for f in &fields {
        let profile = gen_profile(e, config.max_long);
        let values = gen_rows(e, f, rows, &profile);
        columns.push(build_array(f, &values, &profile));
        profiles.push(profile);
    }
    let batches = (0..e.below(config.max_batches as u64 + 1))
        .map(|_| 1 + e.below(rows as u64 + 1) as usize)
        .collect();
    let options = gen_options(e, &fields, rows);
    FileSpec {
        fields,
        columns,
        batches,
        options,
        profiles,
    }
}

/// Specs within `config`: proptest draws the schema (shrinking towards fewer, flatter fields)
/// and the row count (towards 0); a seed draws the values and the options.
pub fn file_spec(config: SpecConfig) -> impl Strategy<Value = FileSpec> {
    let schema = super::schema::schema_strategy(
        1..=config.max_fields.max(1),
        config.max_depth as u32,
        &config.leaves,
    );
    (schema, 0..=config.max_rows, any::<u64>()).prop_map(move |(fields, rows, seed)| {
        gen_spec_for(&mut Rng::new(seed), fields, rows, &config)
    })
}

/// Specs of the given `fields` (see [`file_spec`]).
pub fn file_spec_for(fields: Vec<Field>, config: SpecConfig) -> impl Strategy<Value = FileSpec> {
    (0..=config.max_rows, any::<u64>()).prop_map(move |(rows, seed)| {
        gen_spec_for(&mut Rng::new(seed), fields.clone(), rows, &config)
    })
}
