//! What the sync and async dataset writers share: the files' layout (the schema without the
//! partition columns), splitting batches by partition, naming files, when to roll a file,
//! which file to close when too many are open, and the listing of what was written. Only
//! opening and closing a file's sink differs between them.

use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use crate::array::Array;
use crate::column::{Column, Values};
use crate::metadata::{ConvertedType, FileMetaData, LogicalType, SchemaElement, Type};
use crate::predicate::eval::take_array;
use crate::schema::{ColumnDescriptor, SchemaDescriptor};
use crate::write::stats::{MinMax, SortOrder, Stats};
use crate::write::{ParquetWriter, WriterOptions};
use crate::{Error, Result};

use super::hive;
use super::{ColumnStatistics, DatasetOptions, WrittenFile};

/// How a partition column's values become folder names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KeyKind {
    Boolean,
    /// INT32 or INT64, signed or not.
    Integer {
        unsigned: bool,
        int32: bool,
    },
    /// INT32 days since the epoch.
    Date,
    /// INT32 or INT64 unscaled decimal.
    Decimal {
        scale: u32,
    },
    /// UTF-8 byte arrays.
    String,
}

impl KeyKind {
    /// The kind of a leaf, or why it cannot partition.
    fn of(leaf: &ColumnDescriptor) -> Result<KeyKind> {
        let unsupported = |what: &str| {
            Err(Error::Unsupported(format!(
                "partitioning by column {}: {what} values have no agreed folder name \
                 (partition by booleans, integers, dates, decimals or strings)",
                leaf.path_string()
            )))
        };
        let int = matches!(leaf.physical_type, Type::INT32 | Type::INT64);
        match (&leaf.logical_type, leaf.converted_type) {
            (Some(LogicalType::Date), _) | (None, Some(ConvertedType::DATE))
                if leaf.physical_type == Type::INT32 =>
            {
                return Ok(KeyKind::Date)
            }
            (Some(LogicalType::Decimal { scale, .. }), _) if int => {
                return Ok(KeyKind::Decimal {
                    scale: u32::try_from(*scale).unwrap_or(0),
                })
            }
            (None, Some(ConvertedType::DECIMAL)) if int => {
                return Ok(KeyKind::Decimal {
                    scale: u32::try_from(leaf.scale.unwrap_or(0)).unwrap_or(0),
                })
            }
            (Some(LogicalType::Integer { is_signed, .. }), _) if int => {
                return Ok(KeyKind::Integer {
                    unsigned: !is_signed,
                    int32: leaf.physical_type == Type::INT32,
                })
            }
            (None, Some(c)) if int => {
                let unsigned = matches!(
                    c,
                    ConvertedType::UINT_8
                        | ConvertedType::UINT_16
                        | ConvertedType::UINT_32
                        | ConvertedType::UINT_64
                );
                let signed = matches!(
                    c,
                    ConvertedType::INT_8
                        | ConvertedType::INT_16
                        | ConvertedType::INT_32
                        | ConvertedType::INT_64
                );
                if unsigned || signed {
                    return Ok(KeyKind::Integer {
                        unsigned,
                        int32: leaf.physical_type == Type::INT32,
                    });
                }
                return unsupported(&format!("{c:?}"));
            }
            (Some(lt), _) if !leaf.is_string() => return unsupported(&format!("{lt:?}")),
            _ => {}
        }
        match leaf.physical_type {
            Type::BOOLEAN => Ok(KeyKind::Boolean),
            Type::INT32 | Type::INT64 => Ok(KeyKind::Integer {
                unsigned: false,
                int32: leaf.physical_type == Type::INT32,
            }),
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY if leaf.is_string() => {
                Ok(KeyKind::String)
            }
            Type::BYTE_ARRAY | Type::FIXED_LEN_BYTE_ARRAY => unsupported("binary"),
            t => unsupported(&format!("{t:?}")),
        }
    }
}

/// One slot of a partition column, borrowed from its batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Slot<'a> {
    Null,
    Boolean(bool),
    Integer(i64),
    Bytes(&'a [u8]),
}

/// Slot `i` of `col`, or `None` for a layout the column cannot have.
fn slot(col: &Column, i: usize) -> Option<Slot<'_>> {
    if !col.is_valid(i) {
        return Some(Slot::Null);
    }
    Some(match &col.values {
        Values::Boolean(b) => Slot::Boolean(b.value(i)),
        Values::Int32(v) => Slot::Integer(i64::from(v[i])),
        Values::Int64(v) => Slot::Integer(v[i]),
        Values::Dictionary { keys, dictionary } => {
            let k = usize::try_from(keys[i]).ok()?;
            if k >= dictionary.len {
                return None;
            }
            return slot(dictionary, k);
        }
        Values::Binary { .. }
        | Values::SmallBinary { .. }
        | Values::BinaryView { .. }
        | Values::FixedLenByteArray { .. } => Slot::Bytes(col.bytes(i)?),
        Values::Int96(_) | Values::Float(_) | Values::Double(_) => return None,
    })
}

/// A partition column of the input.
#[derive(Debug, Clone)]
struct PartitionColumn {
    /// Its top-level field among the arrays a batch has.
    field: usize,
    name: String,
    kind: KeyKind,
}

impl PartitionColumn {
    /// The text of a slot (`None` for null).
    fn render(&self, s: Slot<'_>) -> Result<Option<String>> {
        let wrong = || {
            Error::InvalidArgument(format!(
                "partition column {}: a value of another type than the schema's",
                self.name
            ))
        };
        Ok(Some(match (self.kind, s) {
            (_, Slot::Null) => return Ok(None),
            (KeyKind::Boolean, Slot::Boolean(b)) => b.to_string(),
            (KeyKind::Integer { unsigned, int32 }, Slot::Integer(v)) => match (unsigned, int32) {
                (false, _) => v.to_string(),
                (true, true) => (v as i32 as u32).to_string(),
                (true, false) => (v as u64).to_string(),
            },
            (KeyKind::Date, Slot::Integer(v)) => hive::date_string(v),
            (KeyKind::Decimal { scale }, Slot::Integer(v)) => {
                hive::decimal_string(i128::from(v), scale)
            }
            (KeyKind::String, Slot::Bytes(b)) => std::str::from_utf8(b)
                .map_err(|_| {
                    Error::InvalidArgument(format!(
                        "partition column {}: a value that is not UTF-8",
                        self.name
                    ))
                })?
                .to_string(),
            _ => return Err(wrong()),
        }))
    }
}

/// What every file of a dataset is written with, and how batches split into partitions.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    partition: Vec<PartitionColumn>,
    /// The top-level fields that go into the files, in order.
    data: Vec<usize>,
    /// Top-level fields a batch has.
    fields: usize,
    /// The files' schema: the input's without the partition columns.
    file_elements: Vec<SchemaElement>,
    file_schema: SchemaDescriptor,
    writer_options: WriterOptions,
}

impl Layout {
    /// The layout of a dataset of `elements` (the input's schema, root first) partitioned as
    /// `options` say. `file_elements`, when given, is the files' schema as the caller built
    /// it (the Arrow writer's, with its annotations); otherwise it is `elements` without the
    /// partition columns.
    pub(crate) fn new(
        elements: &[SchemaElement],
        file_elements: Option<Vec<SchemaElement>>,
        options: &DatasetOptions,
    ) -> Result<Layout> {
        let schema = SchemaDescriptor::new(elements)?;
        let top = schema.top_level_fields();
        let mut partition = Vec::with_capacity(options.partition_by.len());
        for name in &options.partition_by {
            let field = top.iter().position(|f| &f.name == name).ok_or_else(|| {
                Error::InvalidArgument(format!("no top-level column {name:?} to partition by"))
            })?;
            if partition.iter().any(|p: &PartitionColumn| p.field == field) {
                return Err(Error::InvalidArgument(format!(
                    "column {name:?} is named twice to partition by"
                )));
            }
            let leaf = top[field].leaf_index().ok_or_else(|| {
                Error::Unsupported(format!(
                    "partitioning by {name:?}: a nested field has no folder name"
                ))
            })?;
            let leaf = schema.leaf(leaf);
            if leaf.max_rep_level > 0 {
                return Err(Error::Unsupported(format!(
                    "partitioning by {name:?}: a repeated field has no folder name"
                )));
            }
            partition.push(PartitionColumn {
                field,
                name: name.clone(),
                kind: KeyKind::of(leaf)?,
            });
        }
        let data: Vec<usize> = (0..top.len())
            .filter(|i| !partition.iter().any(|p| p.field == *i))
            .collect();
        if data.is_empty() {
            return Err(Error::InvalidArgument(
                "every column is a partition column: the files would have no columns".into(),
            ));
        }
        let file_elements = match file_elements {
            Some(e) => e,
            None => without_fields(elements, &schema, &partition)?,
        };
        let mut writer_options = options.writer.clone();
        // Options of the partition columns have no column to apply to in the files.
        writer_options
            .columns
            .retain(|path, _| !options.partition_by.iter().any(|p| p == path));
        // Check the schema and options once, before any file exists.
        ParquetWriter::from_schema_elements(
            std::io::sink(),
            file_elements.clone(),
            writer_options.clone(),
        )?;
        Ok(Layout {
            partition,
            data,
            fields: top.len(),
            file_schema: SchemaDescriptor::new(&file_elements)?,
            file_elements,
            writer_options,
        })
    }

    /// A writer of one file into `sink`.
    fn writer<S: Write>(&self, sink: S) -> Result<ParquetWriter<S>> {
        ParquetWriter::from_schema_elements(
            sink,
            self.file_elements.clone(),
            self.writer_options.clone(),
        )
    }

    /// `arrays` (one per top-level field of the input) split by partition: for each
    /// partition in the batch, in order of first row, its values and its rows of the data
    /// fields.
    pub(crate) fn split(&self, arrays: &[Array]) -> Result<Vec<Part>> {
        if arrays.len() != self.fields {
            return Err(Error::InvalidArgument(format!(
                "{} arrays for a schema of {} top-level fields",
                arrays.len(),
                self.fields
            )));
        }
        let len = arrays.first().map_or(0, Array::len);
        if let Some(a) = arrays.iter().find(|a| a.len() != len) {
            return Err(Error::InvalidArgument(format!(
                "arrays of {} and {len} rows in one batch",
                a.len()
            )));
        }
        if len == 0 {
            return Ok(Vec::new());
        }
        let data = |rows: Option<&[usize]>| -> Vec<Array> {
            self.data
                .iter()
                .map(|&i| match rows {
                    Some(rows) => take_array(&arrays[i], rows),
                    None => arrays[i].clone(),
                })
                .collect()
        };
        if self.partition.is_empty() {
            return Ok(vec![Part {
                values: Vec::new(),
                dir: String::new(),
                arrays: data(None),
            }]);
        }
        let mut columns = Vec::with_capacity(self.partition.len());
        for p in &self.partition {
            let Array::Primitive(col) = &arrays[p.field] else {
                return Err(Error::InvalidArgument(format!(
                    "partition column {}: not a primitive array",
                    p.name
                )));
            };
            columns.push((p, col));
        }
        // A group id per row, refined one partition column at a time: ids of distinct
        // (group so far, slot) pairs, given in order of first row. No allocation per row.
        let mut group = vec![0u32; len];
        let mut groups = 1u32;
        for (p, col) in &columns {
            let mut ids: HashMap<(u32, Slot<'_>), u32> = HashMap::new();
            for (row, g) in group.iter_mut().enumerate() {
                let s = slot(col, row).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "partition column {}: a layout its type does not have",
                        p.name
                    ))
                })?;
                let next = ids.len() as u32;
                *g = *ids.entry((*g, s)).or_insert(next);
            }
            groups = ids.len() as u32;
        }
        let mut rows: Vec<Vec<usize>> = vec![Vec::new(); groups as usize];
        for (row, g) in group.iter().enumerate() {
            rows[*g as usize].push(row);
        }
        // Groups in order of their first row (ids were given in that order). Groups of one
        // folder (a null and an empty string) are merged, their rows kept in input order.
        let mut folders: Vec<(String, PartitionValues, Vec<usize>)> =
            Vec::with_capacity(rows.len());
        for rows in rows {
            let first = rows[0];
            let mut values = Vec::with_capacity(self.partition.len());
            let mut dir = String::new();
            for (p, col) in &columns {
                let s = slot(col, first).unwrap_or(Slot::Null);
                // An empty string is written as the default partition, as Spark does: it
                // reads back as null, and the listing says so.
                let value = p.render(s)?.filter(|v| !v.is_empty());
                dir.push_str(&hive::segment(&p.name, value.as_deref()));
                dir.push('/');
                values.push((p.name.clone(), value));
            }
            match folders.iter_mut().find(|f| f.0 == dir) {
                Some(f) => {
                    f.2.extend(rows);
                    f.2.sort_unstable();
                }
                None => folders.push((dir, values, rows)),
            }
        }
        let whole = folders.len() == 1;
        Ok(folders
            .into_iter()
            .map(|(dir, values, rows)| Part {
                values,
                dir,
                arrays: if whole { data(None) } else { data(Some(&rows)) },
            })
            .collect())
    }
}

/// `elements` without the top-level primitive fields `partition` names.
fn without_fields(
    elements: &[SchemaElement],
    schema: &SchemaDescriptor,
    partition: &[PartitionColumn],
) -> Result<Vec<SchemaElement>> {
    let top = schema.top_level_fields();
    let drop: Vec<usize> = partition
        .iter()
        .map(|p| top[p.field].schema_index)
        .collect();
    let mut out: Vec<SchemaElement> = elements
        .iter()
        .enumerate()
        .filter(|(i, _)| !drop.contains(i))
        .map(|(_, e)| e.clone())
        .collect();
    let kept = top.len() - partition.len();
    if let Some(root) = out.first_mut() {
        root.num_children = Some(
            i32::try_from(kept)
                .map_err(|_| Error::InvalidArgument(format!("{kept} top-level fields")))?,
        );
    }
    Ok(out)
}

/// One partition's rows of a batch.
#[derive(Debug)]
pub(crate) struct Part {
    pub(crate) values: PartitionValues,
    /// `k=v/` folders, or empty without partition columns.
    pub(crate) dir: String,
    /// The data fields' rows.
    pub(crate) arrays: Vec<Array>,
}

/// A sink that counts what goes through it: the bytes of the file so far, read while the
/// writer owns the sink.
#[derive(Debug)]
pub(crate) struct Counting<S> {
    pub(crate) inner: S,
    count: Arc<AtomicU64>,
}

impl<S: Write> Write for Counting<S> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A file being written: its writer over the sink `S`, and `E`, what the sink's owner keeps
/// beside it (the async writer's upload).
pub(crate) struct OpenFile<S: Write, E> {
    pub(crate) writer: ParquetWriter<Counting<S>>,
    pub(crate) extra: E,
    /// Relative to the dataset's root.
    pub(crate) path: String,
    values: PartitionValues,
    written: Arc<AtomicU64>,
    last_use: u64,
}

impl<S: Write, E> OpenFile<S, E> {
    /// Bytes written into the sink so far.
    pub(crate) fn written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }
}

/// The bookkeeping of a dataset being written: open files by partition folder, names, and
/// the files finished so far.
pub(crate) struct Core<S: Write, E> {
    pub(crate) layout: Layout,
    options: DatasetOptions,
    open: HashMap<String, OpenFile<S, E>>,
    tick: u64,
    files_started: u64,
    unique: String,
    done: Vec<WrittenFile>,
}

impl<S: Write, E> std::fmt::Debug for Core<S, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut open: Vec<&str> = self.open.values().map(|o| o.path.as_str()).collect();
        open.sort_unstable();
        f.debug_struct("DatasetCore")
            .field("open", &open)
            .field("written", &self.done.len())
            .finish()
    }
}

/// An id for this run's file names: the clock and the process id, mixed (SplitMix64), so
/// runs writing into one folder, at once or one after another, do not collide.
fn run_id() -> String {
    static RUNS: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    let mut z = nanos
        ^ (u64::from(std::process::id()) << 32)
        ^ RUNS
            .fetch_add(1, Ordering::Relaxed)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    format!("{:016x}", z ^ (z >> 31))
}

impl<S: Write, E> Core<S, E> {
    pub(crate) fn new(layout: Layout, options: DatasetOptions) -> Result<Self> {
        if options.max_open_files == 0 || options.target_file_bytes == 0 {
            return Err(Error::InvalidArgument(
                "a dataset needs at least one open file and a target file size of at least \
                 one byte"
                    .into(),
            ));
        }
        let unique = options.unique_id.clone().unwrap_or_else(run_id);
        Ok(Core {
            layout,
            options,
            open: HashMap::new(),
            tick: 0,
            files_started: 0,
            unique,
            done: Vec::new(),
        })
    }

    /// Whether the partition in `dir` has a file open.
    pub(crate) fn is_open(&self, dir: &str) -> bool {
        self.open.contains_key(dir)
    }

    /// The files to close before one more opens: the least recently written, while
    /// `max_open_files` are open.
    pub(crate) fn evict(&mut self) -> Vec<OpenFile<S, E>> {
        let mut out = Vec::new();
        while self.open.len() >= self.options.max_open_files {
            let Some(dir) = self
                .open
                .iter()
                .min_by_key(|(_, f)| f.last_use)
                .map(|(d, _)| d.clone())
            else {
                break;
            };
            out.extend(self.open.remove(&dir));
        }
        out
    }

    /// The path of the next file in folder `dir`, relative to the root.
    pub(crate) fn next_path(&mut self, dir: &str) -> String {
        let n = self.files_started;
        self.files_started += 1;
        format!(
            "{dir}{}{}-{n:05}.parquet",
            self.options.file_prefix, self.unique
        )
    }

    /// Start the file at `path` (from [`Self::next_path`]) for partition `part`, over `sink`.
    pub(crate) fn open(&mut self, part: &Part, path: String, sink: S, extra: E) -> Result<()> {
        let written = Arc::new(AtomicU64::new(0));
        let writer = self.layout.writer(Counting {
            inner: sink,
            count: Arc::clone(&written),
        })?;
        self.open.insert(
            part.dir.clone(),
            OpenFile {
                writer,
                extra,
                path,
                values: part.values.clone(),
                written,
                last_use: self.tick,
            },
        );
        Ok(())
    }

    /// Write the next rows of `part` from row `offset` into its open file: as many as fit
    /// under the target size (at least one), estimated from the rows' decoded bytes. Returns
    /// the rows written, and the file when it reached the target and must be closed.
    pub(crate) fn write(
        &mut self,
        part: &Part,
        offset: usize,
    ) -> Result<(usize, Option<OpenFile<S, E>>)> {
        self.tick += 1;
        let target = self.options.target_file_bytes;
        let file = self
            .open
            .get_mut(&part.dir)
            .ok_or_else(|| Error::InvalidArgument(format!("no open file in {:?}", part.dir)))?;
        file.last_use = self.tick;
        let len = part.arrays.first().map_or(0, Array::len);
        let left = len - offset;
        let used = file.written() + file.writer.buffered_bytes() as u64;
        let room = target.saturating_sub(used);
        let bytes: u64 = part.arrays.iter().map(|a| a.decoded_bytes() as u64).sum();
        let per_row = bytes.div_ceil(len.max(1) as u64).max(1);
        let rows = usize::try_from(room.div_ceil(per_row))
            .unwrap_or(usize::MAX)
            .clamp(1, left);
        if offset == 0 && rows == len {
            file.writer.write_arrays(&part.arrays)?;
        } else {
            let slice: Vec<Array> = part.arrays.iter().map(|a| a.slice(offset, rows)).collect();
            file.writer.write_arrays(&slice)?;
        }
        let full = file.written() + file.writer.buffered_bytes() as u64 >= target;
        Ok((
            rows,
            if full {
                self.open.remove(&part.dir)
            } else {
                None
            },
        ))
    }

    /// The open file of partition folder `dir`.
    #[cfg(feature = "object_store")]
    pub(crate) fn open_file_mut(&mut self, dir: &str) -> Option<&mut OpenFile<S, E>> {
        self.open.get_mut(dir)
    }

    /// Every open file, oldest first, for `finish`.
    pub(crate) fn take_open(&mut self) -> Vec<OpenFile<S, E>> {
        let mut files: Vec<OpenFile<S, E>> = self.open.drain().map(|(_, f)| f).collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        files
    }

    /// Record a closed file: its footer `meta` and `size` as stored.
    pub(crate) fn record(
        &mut self,
        path: String,
        values: PartitionValues,
        meta: &FileMetaData,
        size: u64,
    ) {
        self.done.push(WrittenFile {
            path,
            partition_values: values,
            num_rows: meta.num_rows.max(0) as u64,
            size_bytes: size,
            row_groups: meta.row_groups.len(),
            columns: column_statistics(meta, &self.layout.file_schema),
        });
    }

    /// The files finished so far.
    pub(crate) fn written(&self) -> &[WrittenFile] {
        &self.done
    }

    /// The listing, once every file is closed.
    pub(crate) fn into_written(self) -> Vec<WrittenFile> {
        self.done
    }
}

/// The partition columns and their values (`None` for null), in partitioning order.
pub(crate) type PartitionValues = Vec<(String, Option<String>)>;

/// A file whose writer wrote its footer.
pub(crate) struct Closed<S, E> {
    pub(crate) path: String,
    pub(crate) values: PartitionValues,
    /// What the sink needs after the footer (the object-store writer's upload); the local
    /// writer carries `()`.
    #[cfg_attr(not(feature = "object_store"), allow(dead_code))]
    pub(crate) extra: E,
    /// The footer, the sink and the bytes written into it, or why the footer failed.
    pub(crate) result: Result<(FileMetaData, S, u64)>,
}

/// Write the footer of `file`.
pub(crate) fn close_writer<S: Write, E>(file: OpenFile<S, E>) -> Closed<S, E> {
    let OpenFile {
        writer,
        extra,
        path,
        values,
        written,
        ..
    } = file;
    let result = writer.close().map(|(meta, sink)| {
        let size = written.load(Ordering::Relaxed);
        (meta, sink.inner, size)
    });
    Closed {
        path,
        values,
        extra,
        result,
    }
}

/// Per leaf column of a file, its statistics over every row group, from the footer.
fn column_statistics(meta: &FileMetaData, schema: &SchemaDescriptor) -> Vec<ColumnStatistics> {
    schema
        .leaves
        .iter()
        .enumerate()
        .map(|(i, leaf)| {
            let order = SortOrder::of(
                leaf.physical_type,
                leaf.logical_type.as_ref(),
                leaf.converted_type,
            );
            let mut merged = Stats::default();
            let mut bounds = order != SortOrder::Undefined;
            let mut null_count = Some(0u64);
            let mut nan_count = Some(0u64);
            let (mut values, mut bytes) = (0u64, 0u64);
            for rg in &meta.row_groups {
                let Some(m) = rg.columns.get(i).and_then(|c| c.meta_data.as_ref()) else {
                    // An encrypted column whose metadata the footer does not show.
                    (bounds, null_count, nan_count) = (false, None, None);
                    continue;
                };
                values += m.num_values.max(0) as u64;
                bytes += m.total_compressed_size.max(0) as u64;
                let s = m.statistics.as_ref();
                let nulls = s.and_then(|s| s.null_count).map(|n| n.max(0) as u64);
                null_count = null_count.zip(nulls).map(|(a, b)| a + b);
                let nans = s.and_then(|s| s.nan_count).map(|n| n.max(0) as u64);
                nan_count = nan_count.zip(nans).map(|(a, b)| a + b);
                match s.and_then(|s| Some((s, s.min_value.as_ref()?, s.max_value.as_ref()?))) {
                    Some((s, min, max)) => merged.merge(
                        &Stats {
                            min_max: Some(MinMax {
                                min: min.to_vec(),
                                max: max.to_vec(),
                                min_exact: s.is_min_value_exact.unwrap_or(false),
                                max_exact: s.is_max_value_exact.unwrap_or(false),
                            }),
                            ..Stats::default()
                        },
                        order,
                    ),
                    // A chunk of nulls only has no bounds, and needs none.
                    None if nulls == Some(m.num_values.max(0) as u64) => {}
                    None => bounds = false,
                }
            }
            let min_max = merged.min_max.filter(|_| bounds);
            ColumnStatistics {
                path: leaf.path.clone(),
                physical_type: leaf.physical_type,
                min_exact: min_max.as_ref().is_some_and(|m| m.min_exact),
                max_exact: min_max.as_ref().is_some_and(|m| m.max_exact),
                min: min_max.as_ref().map(|m| m.min.clone()),
                max: min_max.map(|m| m.max),
                null_count,
                nan_count: nan_count.filter(|_| {
                    matches!(leaf.physical_type, Type::FLOAT | Type::DOUBLE)
                        || leaf.logical_type == Some(LogicalType::Float16)
                }),
                num_values: values,
                compressed_bytes: bytes,
            }
        })
        .collect()
}
