//! The file writer: buffers batches into row groups, encodes each column chunk when its row
//! group closes, and writes the page index and footer once, in [`ParquetWriter::finish`].
//!
//! File layout written:
//!
//! ```text
//! "PAR1" <row group 0: chunk 0, chunk 1, ...> [<bloom filters of row group 0>] ...
//! <column indexes> <offset indexes> <FileMetaData> <u32 LE length> "PAR1"
//! ```
//!
//! A column's bloom filters (opt-in, [`ColumnOptions::bloom_filter`]) follow the data of
//! their row group, so that only one row group's filters are ever held in memory.
//!
//! [`ColumnOptions::bloom_filter`]: super::ColumnOptions::bloom_filter
//!
//! A top-level primitive field is buffered as its [`Column`]s and written the flat way (its
//! definition levels straight from the validity bitmap). Any other field is shredded when
//! its batch arrives ([`super::shred`]): the levels and the runs of stored values wait in
//! the row group's buffer, and every leaf is then written like a flat column with levels.
//!
//! The footer exists only after `finish`: a writer dropped early (or that hit an error)
//! leaves at most the leading magic and some pages, which no reader takes for a valid file.

use std::io::Write;

use parq_codecs::kernels::byte_arrays::{self, Offset};

use super::column::{resolve_policy, Codecs, ColumnWriter, EncodedChunk, GeoKind, Leaf, Settings};
use super::options::{Field, WriterOptions, DEFAULT_WRITE_ZSTD_LEVEL};
use super::seal::PageSealer;
use super::shred::{self, LeafLevels, Node};
use super::stats::SortOrder;
use crate::array::Array;
use crate::column::{Column, Values};
use crate::field;
use crate::metadata::{
    self, ColumnChunk, ColumnIndex, ColumnOrder, ConvertedType, FieldRepetitionType, FileMetaData,
    LogicalType, OffsetIndex, RowGroup, SchemaElement, Type, MAGIC,
};
use crate::schema::SchemaDescriptor;
use crate::{Error, Result};
use parq_codecs::compression::CodecKind;

/// Writes a Parquet file to `W`: flat columns ([`ParquetWriter::new`],
/// [`ParquetWriter::write_batch`]) or fields of any shape ([`ParquetWriter::with_fields`],
/// [`ParquetWriter::write_arrays`]).
///
/// ```
/// use arrow_buffer::ScalarBuffer;
/// use parq::column::{Column, Values};
/// use parq::write::{Field, ParquetWriter, WriterOptions};
///
/// let mut out = Vec::new();
/// let mut w = ParquetWriter::new(&mut out, vec![Field::int64("id")], WriterOptions::default())?;
/// w.write_batch(&[Column {
///     len: 3,
///     validity: None,
///     values: Values::Int64(ScalarBuffer::from(vec![1i64, 2, 3])),
/// }])?;
/// let meta = w.finish()?;
/// assert_eq!(meta.num_rows, 3);
/// assert_eq!(&out[..4], b"PAR1");
/// # Ok::<(), parq::Error>(())
/// ```
///
/// A nested field, a list of int64:
///
/// ```
/// use arrow_buffer::{NullBuffer, OffsetBuffer, ScalarBuffer};
/// use parq::array::{Array, ListArray, ListOffsets};
/// use parq::column::{Column, Values};
/// use parq::field::Field;
/// use parq::metadata::Type;
/// use parq::write::{ParquetWriter, WriterOptions};
///
/// // [[1, 2], null, []]
/// let ids = Array::List(ListArray {
///     validity: Some(NullBuffer::from(vec![true, false, true])),
///     offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(vec![0, 2, 2, 2]))),
///     values: Box::new(Array::Primitive(Column {
///         len: 2,
///         validity: None,
///         values: Values::Int64(ScalarBuffer::from(vec![1i64, 2])),
///     })),
/// });
/// let field = Field::list("ids", Field::primitive("element", Type::INT64));
/// let mut out = Vec::new();
/// let mut w = ParquetWriter::with_fields(&mut out, vec![field], WriterOptions::default())?;
/// w.write_arrays(&[ids])?;
/// assert_eq!(w.finish()?.num_rows, 3);
/// # Ok::<(), parq::Error>(())
/// ```
pub struct ParquetWriter<W: Write> {
    sink: W,
    /// Bytes written to `sink` so far.
    pos: u64,
    schema: Vec<SchemaElement>,
    /// One per leaf column, in schema order.
    columns: Vec<ColumnWriter>,
    /// One per top-level field, with what the current row group holds of it.
    fields: Vec<TopField>,
    pending_rows: usize,
    pending_bytes: usize,
    row_groups: Vec<RowGroup>,
    /// Per row group, per column: the page index of the chunk (absolute offsets).
    indexes: Vec<Vec<(Option<ColumnIndex>, Option<OffsetIndex>)>>,
    num_rows: i64,
    options: WriterOptions,
    /// Set after an error that may have left the file half-written: every later call fails.
    poisoned: bool,
    encryptor: Encryptor,
}

/// Encrypts the modules of an encrypted file (feature `encryption`).
#[cfg(feature = "encryption")]
type Encryptor = Option<crate::encryption::write::FileEncryptor>;
#[cfg(not(feature = "encryption"))]
type Encryptor = ();

/// Writes one chunk of leaf `leaf` through `write`; an encrypted column's pages are sealed
/// into their modules as they are written.
fn put_chunk(
    sink: &mut dyn Write,
    encryptor: &Encryptor,
    (row_group, leaf): (usize, usize),
    write: impl FnOnce(&mut dyn Write, Option<&mut dyn PageSealer>) -> Result<EncodedChunk>,
) -> Result<EncodedChunk> {
    #[cfg(feature = "encryption")]
    if let Some(e) = encryptor.as_ref().filter(|e| e.is_encrypted(leaf)) {
        let mut sealer = e.chunk_sealer((row_group, leaf))?;
        return write(sink, Some(&mut sealer));
    }
    let _ = (encryptor, row_group, leaf);
    write(sink, None)
}

/// A top-level field and its buffered rows.
struct TopField {
    field: field::Field,
    node: Node,
    /// Index of its first leaf in `columns`.
    first_leaf: usize,
    pending: Pending,
}

enum Pending {
    /// A primitive field: the columns of the batches (or slices of them).
    Flat(Vec<Column>),
    /// Any other field: one shredded leaf per leaf column.
    Leveled(Vec<LeafLevels>),
}

impl<W: Write> std::fmt::Debug for ParquetWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParquetWriter")
            .field("pos", &self.pos)
            .field("columns", &self.columns.len())
            .field("row_groups", &self.row_groups.len())
            .field("pending_rows", &self.pending_rows)
            .finish()
    }
}

fn is_utf8(lt: Option<&LogicalType>, ct: Option<ConvertedType>) -> bool {
    matches!(
        lt,
        Some(LogicalType::String | LogicalType::Enum | LogicalType::Json)
    ) || matches!(
        ct,
        Some(ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON)
    )
}

/// The max definition level of a flat schema's child element.
fn flat_max_def(e: &SchemaElement) -> Result<i16> {
    match e.repetition_type {
        Some(FieldRepetitionType::REQUIRED) => Ok(0),
        Some(FieldRepetitionType::OPTIONAL) => Ok(1),
        Some(r) => Err(Error::Unsupported(format!(
            "column {} with repetition {r} at the root",
            e.name
        ))),
        None => Err(Error::InvalidArgument(format!(
            "column {}: no repetition type",
            e.name
        ))),
    }
}

/// The leaf description of element `e` at `path` with the given max levels.
fn leaf_of(e: &SchemaElement, path: Vec<String>, max_def: i16, max_rep: i16) -> Result<Leaf> {
    let bad = |what: String| Error::InvalidArgument(format!("column {}: {what}", e.name));
    let physical = e
        .type_
        .ok_or_else(|| bad("a group where a leaf was expected".into()))?;
    if e.num_children.is_some_and(|n| n > 0) {
        return Err(bad("a leaf with children".into()));
    }
    let width = match physical {
        Type::INT96 => 12,
        Type::FIXED_LEN_BYTE_ARRAY => match e.type_length {
            Some(w) if w > 0 => w as usize,
            w => return Err(bad(format!("FIXED_LEN_BYTE_ARRAY of length {w:?}"))),
        },
        Type::BOOLEAN
        | Type::INT32
        | Type::INT64
        | Type::FLOAT
        | Type::DOUBLE
        | Type::BYTE_ARRAY => 0,
        t => return Err(bad(format!("unknown physical type {t}"))),
    };
    let lt = e.logical_type.as_ref();
    Ok(Leaf {
        path,
        physical,
        width,
        max_def,
        max_rep,
        order: SortOrder::of(physical, lt, e.converted_type),
        utf8: physical == Type::BYTE_ARRAY && is_utf8(lt, e.converted_type),
        float: matches!(physical, Type::FLOAT | Type::DOUBLE)
            || (physical == Type::FIXED_LEN_BYTE_ARRAY && lt == Some(&LogicalType::Float16)),
        geo: match lt {
            Some(LogicalType::Geometry { .. }) if physical == Type::BYTE_ARRAY => {
                Some(GeoKind::Geometry)
            }
            Some(LogicalType::Geography { algorithm, .. }) if physical == Type::BYTE_ARRAY => {
                Some(GeoKind::Geography(*algorithm))
            }
            _ => None,
        },
        cdc_form: super::cdc::ValueForm::of(e, physical),
    })
}

/// The field a flat schema's leaf element reads as.
fn flat_field(e: &SchemaElement) -> field::Field {
    field::Field {
        name: e.name.clone(),
        nullable: e.repetition_type == Some(FieldRepetitionType::OPTIONAL),
        field_id: e.field_id,
        data_type: field::DataType::Primitive(field::Primitive {
            physical_type: e.type_.unwrap_or(Type::BYTE_ARRAY),
            type_length: e.type_length,
            logical_type: e.logical_type.clone(),
            converted_type: e.converted_type,
            scale: e.scale,
            precision: e.precision,
        }),
    }
}

/// Whether `offsets` (i32 or i64) delimit `len` byte arrays inside `data_len` bytes: one
/// more offset than values, the first non-negative, none decreasing (the vectorised
/// kernel), the last inside.
fn offsets_fit<O: Offset>(offsets: &[O], len: usize, data_len: usize) -> bool {
    offsets.len() == len + 1
        && offsets[0].into() >= 0
        && offsets[len].into() as u64 <= data_len as u64
        && byte_arrays::offsets_monotonic(offsets)
}

/// Check a leaf column's buffers against its leaf (`col.len` slots).
fn check_values(leaf: &Leaf, col: &Column) -> Result<()> {
    let len = col.len;
    let bad = |what: String| {
        Err(Error::InvalidArgument(format!(
            "column {}: {what}",
            leaf.dotted()
        )))
    };
    if let Some(v) = &col.validity {
        if v.len() != len {
            return bad(format!("validity of {} slots for {len} slots", v.len()));
        }
    }
    let (ok, n) = match (&col.values, leaf.physical) {
        (Values::Boolean(b), Type::BOOLEAN) => (true, b.len()),
        (Values::Int32(v), Type::INT32) => (true, v.len()),
        (Values::Int64(v), Type::INT64) => (true, v.len()),
        (Values::Float(v), Type::FLOAT) => (true, v.len()),
        (Values::Double(v), Type::DOUBLE) => (true, v.len()),
        (Values::Int96(d), Type::INT96) => (d.len() == len * 12, len),
        (Values::FixedLenByteArray { width, data }, Type::FIXED_LEN_BYTE_ARRAY) => {
            if *width != leaf.width {
                return bad(format!(
                    "values of width {width} for FIXED_LEN_BYTE_ARRAY({})",
                    leaf.width
                ));
            }
            (data.len() == len * width, len)
        }
        (Values::Binary { offsets, data }, Type::BYTE_ARRAY) => {
            if !offsets_fit(offsets, len, data.len()) {
                return bad("offsets out of order or out of the data".into());
            }
            (true, len)
        }
        (Values::SmallBinary { offsets, data }, Type::BYTE_ARRAY) => {
            if !offsets_fit(offsets, len, data.len()) {
                return bad("offsets out of order or out of the data".into());
            }
            (true, len)
        }
        (Values::BinaryView { views, buffers }, Type::BYTE_ARRAY) => {
            let ok = views.iter().all(|&v| {
                let l = v as u32 as usize;
                l <= 12 || {
                    let (b, o) = ((v >> 64) as u32 as usize, (v >> 96) as u32 as usize);
                    buffers.get(b).is_some_and(|buf| o + l <= buf.len())
                }
            });
            if !ok {
                return bad("a view points outside its buffers".into());
            }
            (true, views.len())
        }
        (_, t) => return bad(format!("values of the wrong layout for physical type {t}")),
    };
    if !ok || n != len {
        return bad(format!("value buffers do not hold {len} values"));
    }
    Ok(())
}

/// Bytes of Arrow buffers an array spans (children counted whole: an estimate for sizing
/// row groups, not an exact figure for slices).
fn array_bytes(a: &Array) -> usize {
    match a {
        // i32 byte array offsets count as the i64 ones they were widened to before the
        // writer took them as they are: row groups are cut by bytes where they were.
        Array::Primitive(c) => match &c.values {
            Values::SmallBinary { offsets, .. } => c.decoded_bytes() + offsets.len() * 4,
            _ => c.decoded_bytes(),
        },
        Array::List(l) | Array::Map(l) => {
            let width = match l.offsets {
                crate::array::ListOffsets::Small(_) => 4,
                crate::array::ListOffsets::Large(_) => 8,
            };
            (l.offsets.len() + 1) * width + array_bytes(&l.values)
        }
        Array::Struct(s) => s.children.iter().map(array_bytes).sum::<usize>() + s.len / 8,
    }
}

impl<W: Write> ParquetWriter<W> {
    /// A writer of a flat schema made of `fields`, under a root named `schema`.
    ///
    /// ```
    /// use parq::column::{Column, Values};
    /// use parq::write::{Field, ParquetWriter, WriterOptions};
    ///
    /// let mut file = Vec::new();
    /// let fields = vec![Field::int64("id"), Field::double("score").optional()];
    /// let mut writer = ParquetWriter::new(&mut file, fields, WriterOptions::default())?;
    /// let ids = Column { len: 2, validity: None, values: Values::Int64(vec![1i64, 2].into()) };
    /// let scores = Column {
    ///     len: 2,
    ///     validity: Some(vec![true, false].into()), // the second score is null
    ///     values: Values::Double(vec![0.5, 0.0].into()),
    /// };
    /// writer.write_batch(&[ids, scores])?;
    /// let footer = writer.finish()?;
    /// assert_eq!(footer.num_rows, 2);
    /// assert_eq!(&file[..4], b"PAR1");
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn new(sink: W, fields: Vec<Field>, options: WriterOptions) -> Result<Self> {
        let mut elements = Vec::with_capacity(fields.len() + 1);
        elements.push(SchemaElement {
            name: "schema".into(),
            num_children: Some(fields.len() as i32),
            ..SchemaElement::default()
        });
        elements.extend(fields.iter().map(Field::to_schema_element));
        Self::from_schema_elements(sink, elements, options)
    }

    /// A writer of `fields` of any shape (the model the reader gives:
    /// [`ParquetReader::fields`](crate::read::ParquetReader::fields)), written in the
    /// canonical spellings: 3-level LIST, MAP with a `key_value` group, structs as groups.
    /// Field ids are kept; a leaf with a logical type but no converted type gets the
    /// converted type the spec pairs with it. Flat leaves built with [`Field`] convert with
    /// `.into()`.
    ///
    /// ```
    /// use parq::array::{Array, StructArray};
    /// use parq::column::{Column, Values};
    /// use parq::field::Field;
    /// use parq::metadata::Type;
    /// use parq::write::{ParquetWriter, WriterOptions};
    ///
    /// // point: struct<x: int32, y: int32>, two rows.
    /// let schema = vec![Field::structure(
    ///     "point",
    ///     vec![Field::primitive("x", Type::INT32), Field::primitive("y", Type::INT32)],
    /// )];
    /// let column = |v: Vec<i32>| {
    ///     Array::Primitive(Column { len: v.len(), validity: None, values: Values::Int32(v.into()) })
    /// };
    /// let points = Array::Struct(StructArray {
    ///     len: 2,
    ///     validity: None,
    ///     children: vec![column(vec![1, 2]), column(vec![3, 4])],
    /// });
    /// let mut file = Vec::new();
    /// let mut writer = ParquetWriter::with_fields(&mut file, schema, WriterOptions::default())?;
    /// writer.write_arrays(&[points])?;
    /// writer.finish()?;
    /// let reader = parq::read::ParquetReader::new(bytes::Bytes::from(file))?;
    /// assert_eq!(reader.schema().leaves.len(), 2);
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn with_fields(sink: W, fields: Vec<field::Field>, options: WriterOptions) -> Result<Self> {
        let elements = super::fields::schema_elements(&fields)?;
        Self::from_schema_elements(sink, elements, options)
    }

    /// A writer keeping `elements` (a file's schema: the root, then its fields depth first)
    /// exactly as given: names, physical and logical types, field ids, and for nested fields
    /// the spelling of their lists and maps (legacy ones included), as long as it resolves
    /// to fields whose levels match the schema's.
    pub fn from_schema_elements(
        sink: W,
        elements: Vec<SchemaElement>,
        options: WriterOptions,
    ) -> Result<Self> {
        let root = elements
            .first()
            .ok_or_else(|| Error::InvalidArgument("empty schema".into()))?;
        if root.type_.is_some() {
            return Err(Error::InvalidArgument(
                "the schema root is a primitive, not a group".into(),
            ));
        }
        if options.row_group_rows == 0 || options.data_page_size == 0 {
            return Err(Error::InvalidArgument(
                "row_group_rows and data_page_size must be positive".into(),
            ));
        }
        let children = root.num_children.unwrap_or(0);
        let flat = children >= 0
            && children as usize == elements.len() - 1
            && elements[1..].iter().all(|e| {
                e.type_.is_some() && e.repetition_type != Some(FieldRepetitionType::REPEATED)
            });
        let mut leaves = Vec::new();
        let mut fields = Vec::new();
        if flat {
            for (i, e) in elements[1..].iter().enumerate() {
                let leaf = leaf_of(e, vec![e.name.clone()], flat_max_def(e)?, 0)?;
                let field = flat_field(e);
                let node = Node::plan(&field, "", 0, 0, 0, &mut Vec::new());
                leaves.push(leaf);
                fields.push(TopField {
                    field,
                    node,
                    first_leaf: i,
                    pending: Pending::Flat(Vec::new()),
                });
            }
        } else {
            let schema = SchemaDescriptor::new(&elements)?;
            let mut levels = Vec::new();
            for f in schema.fields()? {
                let first_leaf = levels.len();
                // Leaves are numbered within the field: they index its `LeafLevels`.
                let mut own = Vec::new();
                let node = Node::plan(&f, "", 0, 0, 0, &mut own);
                levels.extend_from_slice(&own);
                let pending = if f.is_primitive() {
                    Pending::Flat(Vec::new())
                } else {
                    Pending::Leveled(own.iter().map(|&(d, r)| LeafLevels::new(d, r)).collect())
                };
                fields.push(TopField {
                    field: f,
                    node,
                    first_leaf,
                    pending,
                });
            }
            if levels.len() != schema.leaves.len() {
                return Err(Error::Unsupported(format!(
                    "a schema of {} leaves that resolves to {} fields' leaves",
                    schema.leaves.len(),
                    levels.len()
                )));
            }
            for (d, &(def, rep)) in schema.leaves.iter().zip(&levels) {
                if d.max_def_level != def as i16 || d.max_rep_level != rep as i16 {
                    return Err(Error::Unsupported(format!(
                        "column {}: levels ({}, {}) that its field's shape does not give",
                        d.path_string(),
                        d.max_def_level,
                        d.max_rep_level
                    )));
                }
                let e = &elements[d.schema_index];
                leaves.push(leaf_of(
                    e,
                    d.path.clone(),
                    d.max_def_level,
                    d.max_rep_level,
                )?);
            }
        }
        if let Some(cdc) = &options.content_defined_chunking {
            cdc.mask()?;
        }
        let mut columns = Vec::with_capacity(leaves.len());
        let mut codecs = Codecs::default();
        for leaf in leaves {
            let over = options.columns.get(&leaf.dotted());
            let codec = over
                .and_then(|o| o.compression)
                .unwrap_or(options.compression);
            let level = over
                .and_then(|o| o.compression_level)
                .unwrap_or(options.compression_level)
                .or((codec == CodecKind::Zstd).then_some(DEFAULT_WRITE_ZSTD_LEVEL));
            let policy = over.and_then(|o| o.encoding).unwrap_or(options.encoding);
            let settings = Settings {
                codec,
                encoding: resolve_policy(policy, &leaf)?,
                page_version: options.page_version,
                data_page_size: options.data_page_size,
                data_page_row_limit: options.data_page_row_limit,
                dictionary_size_limit: over
                    .and_then(|o| o.dictionary_size_limit)
                    .unwrap_or(options.dictionary_size_limit),
                statistics: over
                    .and_then(|o| o.statistics)
                    .unwrap_or(options.statistics),
                page_header_statistics: options.page_header_statistics,
                truncate: options.statistics_truncate_length,
                page_index: options.page_index,
                bloom_filter: over.and_then(|o| o.bloom_filter),
                cdc: options.content_defined_chunking,
            };
            if let Some(b) = &settings.bloom_filter {
                if !(b.fpp > 0.0 && b.fpp < 1.0) || leaf.physical == Type::BOOLEAN {
                    return Err(Error::InvalidArgument(format!(
                        "bloom filter of column {} (type {}): fpp {} must be in (0, 1), and \
                         BOOLEAN columns have none",
                        leaf.dotted(),
                        leaf.physical,
                        b.fpp
                    )));
                }
            }
            let codec = codecs.get(codec, level)?;
            columns.push(ColumnWriter::new(leaf, settings, codec)?);
        }
        // Once per leaf, not once per leaf and option: a rewrite names every column.
        let dotted: std::collections::HashSet<String> =
            columns.iter().map(|c| c.leaf.dotted()).collect();
        if let Some(path) = options.columns.keys().find(|p| !dotted.contains(*p)) {
            return Err(Error::InvalidArgument(format!(
                "options for column {path}, which the schema does not have"
            )));
        }
        #[cfg(feature = "encryption")]
        let encryptor = match &options.encryption {
            Some(p) => {
                let leaves: Vec<Vec<String>> =
                    columns.iter().map(|c| c.leaf.path.clone()).collect();
                let e = crate::encryption::write::FileEncryptor::new(p, &leaves)?;
                // Bloom filters would go out in plaintext: the encrypted bloom filter modules
                // are not written yet, so an encrypted column gets none.
                if let Some((_, c)) = columns
                    .iter()
                    .enumerate()
                    .find(|(i, c)| c.settings.bloom_filter.is_some() && e.is_encrypted(*i))
                {
                    return Err(Error::Unsupported(format!(
                        "a bloom filter for encrypted column {}",
                        c.leaf.dotted()
                    )));
                }
                Some(e)
            }
            None => None,
        };
        #[cfg(not(feature = "encryption"))]
        let encryptor = ();
        Ok(ParquetWriter {
            encryptor,
            sink,
            pos: 0,
            columns,
            fields,
            schema: elements,
            pending_rows: 0,
            pending_bytes: 0,
            row_groups: Vec::new(),
            indexes: Vec::new(),
            num_rows: 0,
            options,
            poisoned: false,
        })
    }

    /// The schema elements the footer will hold.
    pub fn schema(&self) -> &[SchemaElement] {
        &self.schema
    }

    /// The top-level fields, one per array [`Self::write_arrays`] takes.
    pub fn fields(&self) -> Vec<field::Field> {
        self.fields.iter().map(|f| f.field.clone()).collect()
    }

    /// The sink, to take what was written so far (the object-store writer moves the bytes
    /// of each row group into its upload).
    #[cfg(feature = "object_store")]
    pub(crate) fn sink_mut(&mut self) -> &mut W {
        &mut self.sink
    }

    /// Bytes of the open row group buffered, as the writer counts them against
    /// [`WriterOptions::row_group_bytes`].
    pub fn buffered_bytes(&self) -> usize {
        self.pending_bytes
    }

    /// Rows written so far (flushed row groups plus buffered rows).
    pub fn num_rows(&self) -> u64 {
        self.num_rows as u64 + self.pending_rows as u64
    }

    fn check_live(&self) -> Result<()> {
        if self.poisoned {
            return Err(Error::InvalidArgument(
                "the writer failed earlier; the file is incomplete".into(),
            ));
        }
        Ok(())
    }

    /// Check the column of a top-level primitive field (leaf `i`) of a batch of `len` rows.
    fn check_column(&self, i: usize, col: &Column, len: usize) -> Result<()> {
        let leaf = &self.columns[i].leaf;
        if col.len != len {
            return Err(Error::InvalidArgument(format!(
                "column {}: {} rows, but column 0 has {len}",
                leaf.dotted(),
                col.len
            )));
        }
        check_values(leaf, col)?;
        if leaf.max_def == 0 && col.null_count() > 0 {
            return Err(Error::InvalidArgument(format!(
                "column {}: {} nulls in a required column",
                leaf.dotted(),
                col.null_count()
            )));
        }
        Ok(())
    }

    /// Buffer one batch of a flat schema (one [`Column`] per leaf, all of the same length)
    /// into the current row group, closing row groups at `row_group_rows` rows or
    /// `row_group_bytes` bytes.
    ///
    /// A batch that fails validation is rejected whole and nothing is buffered. A schema
    /// with nested fields takes [`Self::write_arrays`] instead.
    ///
    /// ```
    /// use parq::column::{Column, Values};
    /// use parq::write::{Field, ParquetWriter, WriterOptions};
    ///
    /// let mut writer = ParquetWriter::new(Vec::new(), vec![Field::int32("n")], WriterOptions::default())?;
    /// for chunk in [vec![1, 2, 3], vec![4, 5]] {
    ///     let n = Column { len: chunk.len(), validity: None, values: Values::Int32(chunk.into()) };
    ///     writer.write_batch(&[n])?; // batches go to the same row group until it is full
    /// }
    /// // A null in a required column is refused, and nothing of the batch is kept.
    /// let null = Column {
    ///     len: 1,
    ///     validity: Some(vec![false].into()),
    ///     values: Values::Int32(vec![0].into()),
    /// };
    /// assert!(writer.write_batch(&[null]).is_err());
    /// assert_eq!(writer.finish()?.num_rows, 5);
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn write_batch(&mut self, columns: &[Column]) -> Result<()> {
        self.check_live()?;
        if columns.len() != self.columns.len() {
            return Err(Error::InvalidArgument(format!(
                "{} columns for a schema of {}",
                columns.len(),
                self.columns.len()
            )));
        }
        if self
            .fields
            .iter()
            .any(|f| matches!(f.pending, Pending::Leveled(_)))
        {
            return Err(Error::InvalidArgument(
                "a schema with nested fields takes arrays (write_arrays), not columns".into(),
            ));
        }
        let arrays: Vec<Array> = columns.iter().cloned().map(Array::Primitive).collect();
        self.write_arrays(&arrays)
    }

    /// Buffer one batch of rows: one [`Array`] per top-level field (see [`Self::fields`]),
    /// all of the same length, shaped like its field. Row groups close at `row_group_rows`
    /// rows or `row_group_bytes` bytes, always between records.
    ///
    /// A batch that fails validation (a shape or a buffer that does not fit its field, a
    /// null in a required field) is an [`Error::InvalidArgument`] and nothing of it is
    /// buffered.
    ///
    /// ```
    /// use arrow_buffer::{OffsetBuffer, ScalarBuffer};
    /// use parq::array::{Array, ListArray, ListOffsets, Value};
    /// use parq::column::{Column, Values};
    /// use parq::field::Field;
    /// use parq::metadata::Type;
    /// use parq::write::{ParquetWriter, WriterOptions};
    ///
    /// // tags: list<int64> with rows [10, 20], [] and [30].
    /// let items = Column { len: 3, validity: None, values: Values::Int64(vec![10i64, 20, 30].into()) };
    /// let tags = Array::List(ListArray {
    ///     validity: None,
    ///     offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(vec![0i32, 2, 2, 3]))),
    ///     values: Box::new(Array::Primitive(items)),
    /// });
    /// let schema = vec![Field::list("tags", Field::primitive("element", Type::INT64))];
    /// let mut file = Vec::new();
    /// let mut writer = ParquetWriter::with_fields(&mut file, schema, WriterOptions::default())?;
    /// writer.write_arrays(&[tags])?;
    /// writer.finish()?;
    /// let reader = parq::read::ParquetReader::new(bytes::Bytes::from(file))?;
    /// let (_, tags) = reader.read_field(0)?;
    /// assert_eq!(tags.value(1), Value::List(vec![]));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn write_arrays(&mut self, arrays: &[Array]) -> Result<()> {
        self.check_live()?;
        if arrays.len() != self.fields.len() {
            return Err(Error::InvalidArgument(format!(
                "{} arrays for a schema of {} fields",
                arrays.len(),
                self.fields.len()
            )));
        }
        if arrays.iter().any(Array::has_dictionary_keys) {
            // Keys into a dictionary (a read with `ReadOptions::dictionary_keys`) are written
            // as their values. i32 offsets (Arrow's `Utf8`, `ReadOptions::small_offsets`) are
            // written as they are: widening them would copy 8 bytes per value into fresh
            // memory.
            let arrays: Vec<Array> = arrays.iter().map(Array::for_writer).collect();
            return self.write_arrays(&arrays);
        }
        let Some(first) = arrays.first() else {
            return Ok(());
        };
        let n = first.len();
        // Validate everything before buffering anything. Shredding is the last check (a null
        // in a required field shows only there), so each nested field is shredded whole here.
        let mut shredded: Vec<Option<Vec<LeafLevels>>> = Vec::with_capacity(arrays.len());
        for (f, a) in self.fields.iter().zip(arrays) {
            if a.len() != n {
                return Err(Error::InvalidArgument(format!(
                    "field {}: {} rows, but field 0 has {n}",
                    f.field.name,
                    a.len()
                )));
            }
            match &f.pending {
                Pending::Flat(_) => {
                    let Array::Primitive(c) = a else {
                        return Err(Error::InvalidArgument(format!(
                            "field {}: expected a primitive array",
                            f.field.name
                        )));
                    };
                    self.check_column(f.first_leaf, c, n)?;
                    shredded.push(None);
                }
                Pending::Leveled(pending) => {
                    let columns = &self.columns[f.first_leaf..];
                    f.node
                        .check_shape(a, &mut |i, c| check_values(&columns[i].leaf, c))?;
                    let mut leaves: Vec<LeafLevels> = pending
                        .iter()
                        .map(|l| LeafLevels::new(l.max_def, l.max_rep))
                        .collect();
                    shred::shred(&f.node, a, &mut leaves)?;
                    shredded.push(Some(leaves));
                }
            }
        }
        let batch_bytes: usize = arrays.iter().map(array_bytes).sum();
        let row_bytes = batch_bytes.div_ceil(n.max(1)).max(1);
        let mut off = 0;
        while off < n {
            let room_rows = self.options.row_group_rows - self.pending_rows;
            let room_bytes = self
                .options
                .row_group_bytes
                .saturating_sub(self.pending_bytes);
            let take = (n - off)
                .min(room_rows)
                .min((room_bytes / row_bytes).max(1));
            let whole = off == 0 && take == n;
            for ((f, a), s) in self.fields.iter_mut().zip(arrays).zip(&mut shredded) {
                match (&mut f.pending, a) {
                    (Pending::Flat(p), Array::Primitive(c)) => {
                        p.push(if whole { c.clone() } else { c.slice(off, take) })
                    }
                    (Pending::Leveled(p), a) => match s {
                        Some(leaves) if whole => {
                            for (p, l) in p.iter_mut().zip(leaves) {
                                p.append(l);
                            }
                        }
                        // A batch split across row groups: shred each part again (already
                        // validated whole, so this cannot fail half-way).
                        _ => shred::shred(&f.node, &a.slice(off, take), p)?,
                    },
                    _ => unreachable!("checked above"),
                }
            }
            self.pending_rows += take;
            self.pending_bytes += take * row_bytes;
            off += take;
            if self.pending_rows >= self.options.row_group_rows
                || self.pending_bytes >= self.options.row_group_bytes
            {
                self.flush_row_group()?;
            }
        }
        Ok(())
    }

    fn write_all(&mut self, bytes: &[u8]) -> Result<()> {
        if let Err(e) = self.sink.write_all(bytes) {
            self.poisoned = true;
            return Err(e.into());
        }
        self.pos += bytes.len() as u64;
        Ok(())
    }

    fn start(&mut self) -> Result<()> {
        if self.pos == 0 {
            #[cfg(feature = "encryption")]
            let magic = self.encryptor.as_ref().map_or(MAGIC, |e| e.head_magic());
            #[cfg(not(feature = "encryption"))]
            let magic = MAGIC;
            self.write_all(magic)?;
        }
        Ok(())
    }

    /// Close the current row group (if it has rows): encode and write its column chunks.
    pub fn flush_row_group(&mut self) -> Result<()> {
        self.check_live()?;
        if self.pending_rows == 0 {
            return Ok(());
        }
        let result = self.write_row_group();
        if result.is_err() {
            self.poisoned = true;
        }
        result
    }

    fn write_row_group(&mut self) -> Result<()> {
        self.start()?;
        let rows = self.pending_rows;
        let ordinal = self.row_groups.len();
        let start = self.pos as i64;
        let mut chunks = Vec::with_capacity(self.columns.len());
        let mut indexes = Vec::with_capacity(self.columns.len());
        let mut blooms = Vec::new();
        let (mut total_uncompressed, mut total_compressed) = (0i64, 0i64);
        for f in 0..self.fields.len() {
            let first = self.fields[f].first_leaf;
            let mut encoded = Vec::new();
            match &mut self.fields[f].pending {
                Pending::Flat(parts) => {
                    let parts = std::mem::take(parts);
                    let col = match <[Column; 1]>::try_from(parts) {
                        Ok([c]) => c,
                        Err(parts) => Column::concat(&parts),
                    };
                    let base = self.pos;
                    let chunk = put_chunk(
                        &mut self.sink,
                        &self.encryptor,
                        (ordinal, first),
                        |s, seal| self.columns[first].write_chunk(&col, s, seal),
                    );
                    drop(col);
                    let chunk = chunk.map_err(|e| chunk_error(e, &self.columns[first], ordinal))?;
                    self.pos += chunk.len as u64;
                    encoded.push((base, chunk));
                }
                Pending::Leveled(leaves) => {
                    for (j, leaf) in leaves.iter_mut().enumerate() {
                        debug_assert_eq!(leaf.records(), rows, "records of a shredded leaf");
                        let base = self.pos;
                        let column = &mut self.columns[first + j];
                        let chunk = put_chunk(
                            &mut self.sink,
                            &self.encryptor,
                            (ordinal, first + j),
                            |s, seal| column.write_leveled_chunk(leaf, s, seal),
                        );
                        leaf.clear();
                        let chunk = chunk.map_err(|e| chunk_error(e, column, ordinal))?;
                        self.pos += chunk.len as u64;
                        encoded.push((base, chunk));
                    }
                }
            }
            for (base, chunk) in encoded {
                let base = base as i64;
                let mut meta = chunk.meta;
                meta.data_page_offset += base;
                if let Some(d) = &mut meta.dictionary_page_offset {
                    *d += base;
                }
                total_uncompressed += meta.total_uncompressed_size;
                total_compressed += meta.total_compressed_size;
                let mut offset_index = chunk.offset_index;
                if let Some(oi) = &mut offset_index {
                    for loc in &mut oi.page_locations {
                        loc.offset += base;
                    }
                }
                indexes.push((chunk.column_index, offset_index));
                if let Some(b) = chunk.bloom_filter {
                    blooms.push((chunks.len(), b));
                }
                chunks.push(ColumnChunk {
                    file_path: None,
                    file_offset: base,
                    meta_data: Some(meta),
                    ..ColumnChunk::default()
                });
            }
        }
        // Bloom filters right after their row group's data: only one row group's filters are
        // ever held in memory.
        let mut buf = Vec::new();
        for (c, filter) in blooms {
            buf.clear();
            filter.write(&mut buf);
            if let Some(meta) = &mut chunks[c].meta_data {
                meta.bloom_filter_offset = Some(self.pos as i64);
                meta.bloom_filter_length = Some(index_len(buf.len())?);
            }
            self.write_all(&buf)?;
        }
        self.row_groups.push(RowGroup {
            columns: chunks,
            total_byte_size: total_uncompressed,
            num_rows: rows as i64,
            sorting_columns: None,
            file_offset: Some(start),
            total_compressed_size: Some(total_compressed),
            ordinal: i16::try_from(ordinal).ok(),
        });
        self.indexes.push(indexes);
        self.num_rows += rows as i64;
        self.pending_rows = 0;
        self.pending_bytes = 0;
        Ok(())
    }

    /// Flush the last row group, write the page index and the footer, and return the footer.
    ///
    /// ```
    /// use parq::column::{Column, Values};
    /// use parq::write::{Field, ParquetWriter, WriterOptions};
    ///
    /// let mut file = Vec::new();
    /// let mut writer = ParquetWriter::new(&mut file, vec![Field::boolean("ok")], WriterOptions::default())?;
    /// let ok = Column { len: 2, validity: None, values: Values::Boolean(vec![true, false].into()) };
    /// writer.write_batch(&[ok])?;
    /// let footer = writer.finish()?; // the file ends with the footer and "PAR1"
    /// assert_eq!((footer.num_rows, footer.row_groups.len()), (2, 1));
    /// assert_eq!(&file[file.len() - 4..], b"PAR1");
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn finish(self) -> Result<FileMetaData> {
        self.close().map(|(m, _)| m)
    }

    /// [`finish`](Self::finish), also giving back the sink.
    pub fn close(mut self) -> Result<(FileMetaData, W)> {
        self.flush_row_group()?;
        self.check_live()?;
        let result = self.write_footer();
        match result {
            Ok(meta) => Ok((meta, self.sink)),
            Err(e) => Err(e),
        }
    }

    fn write_footer(&mut self) -> Result<FileMetaData> {
        self.start()?;
        let indexes = std::mem::take(&mut self.indexes);
        let mut buf = Vec::new();
        for (rg, cols) in indexes.iter().enumerate() {
            for (c, (ci, _)) in cols.iter().enumerate() {
                if let Some(ci) = ci {
                    buf.clear();
                    metadata::encode_column_index(ci, &mut buf);
                    #[cfg(feature = "encryption")]
                    if let Some(e) = &self.encryptor {
                        let m = crate::encryption::ModuleType::ColumnIndex;
                        buf = e.index(std::mem::take(&mut buf), m, rg, c)?;
                    }
                    let chunk = &mut self.row_groups[rg].columns[c];
                    chunk.column_index_offset = Some(self.pos as i64);
                    chunk.column_index_length = Some(index_len(buf.len())?);
                    self.write_all(&buf)?;
                }
            }
        }
        for (rg, cols) in indexes.iter().enumerate() {
            for (c, (_, oi)) in cols.iter().enumerate() {
                if let Some(oi) = oi {
                    buf.clear();
                    metadata::encode_offset_index(oi, &mut buf);
                    #[cfg(feature = "encryption")]
                    if let Some(e) = &self.encryptor {
                        let m = crate::encryption::ModuleType::OffsetIndex;
                        buf = e.index(std::mem::take(&mut buf), m, rg, c)?;
                    }
                    let chunk = &mut self.row_groups[rg].columns[c];
                    chunk.offset_index_offset = Some(self.pos as i64);
                    chunk.offset_index_length = Some(index_len(buf.len())?);
                    self.write_all(&buf)?;
                }
            }
        }
        let kv = std::mem::take(&mut self.options.key_value_metadata);
        #[allow(unused_mut)]
        let mut meta = FileMetaData {
            version: 1,
            schema: self.schema.clone(),
            num_rows: self.num_rows,
            row_groups: std::mem::take(&mut self.row_groups),
            key_value_metadata: (!kv.is_empty()).then_some(kv),
            created_by: Some(self.options.created_by.clone()),
            column_orders: Some(vec![ColumnOrder::TypeDefinedOrder; self.columns.len()]),
            encryption_algorithm: None,
            footer_signing_key_metadata: None,
        };
        buf.clear();
        #[cfg(feature = "encryption")]
        if let Some(e) = &self.encryptor {
            buf = e.footer(&mut meta)?;
        }
        if buf.is_empty() {
            metadata::encode_file_metadata(&meta, &mut buf);
            let len = u32::try_from(buf.len())
                .map_err(|_| Error::InvalidArgument("footer larger than 4 GiB".into()))?;
            buf.extend_from_slice(&len.to_le_bytes());
            buf.extend_from_slice(MAGIC);
        }
        self.write_all(&buf)?;
        if let Err(e) = self.sink.flush() {
            self.poisoned = true;
            return Err(e.into());
        }
        Ok(meta)
    }
}

fn index_len(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::InvalidArgument("page index larger than 2 GiB".into()))
}

fn chunk_error(e: Error, column: &ColumnWriter, row_group: usize) -> Error {
    e.at(&crate::error::Location {
        column: Some(column.leaf.dotted()),
        row_group: Some(row_group),
        ..Default::default()
    })
}
