//! `parq rewrite IN OUT`: read a file with parq and write it again with parq's writer,
//! keeping the schema elements (names, physical and logical types, INT96, field ids, the
//! spelling of lists and maps) and the key-value metadata (an embedded `ARROW:schema` among
//! it) exactly. Nested fields go through the nested reader and the shredding writer.
//!
//! IN and OUT may be object-store URLs (`s3://`, `gs://`, `az://`, `file://`, `memory://`),
//! configured from the environment as every command's URLs are; a URL output is written as
//! a multipart upload. With `--partition-by`, OUT is a folder (or a prefix) of Hive
//! partitions written by parq's dataset writer, and the files written are listed.

use std::collections::BTreeMap;
use std::io::{BufWriter, IsTerminal};
use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use parq::codecs::compression::CodecKind;
use parq::metadata::{Encoding, FileMetaData, PageType};
use parq::object_store::object_store::ObjectStoreExt;
use parq::object_store::{ObjectDatasetWriter, ObjectWriteOptions, ObjectWriter};
use parq::read::ParquetReader;
use parq::write::dataset::{DatasetOptions, DatasetWriter, LocalDirectory, WrittenFile};
use parq::write::{
    BloomFilterOptions, CdcOptions, ColumnOptions, EncodingPolicy, PageVersion, ParquetWriter,
    WriterOptions,
};
use parq::{Error, Result};

/// Arguments of `parq rewrite`.
#[derive(clap::Args)]
pub struct Args {
    /// The file to read: a path or an object-store URL.
    input: PathBuf,
    /// The file to write (a folder or prefix with --partition-by): a path or an
    /// object-store URL.
    output: PathBuf,
    /// Write a folder of Hive partitions (`col=value/`) by these top-level columns
    /// (booleans, integers, dates, decimals or strings), outermost first; the columns move
    /// from the files into the folder names.
    #[arg(long, value_delimiter = ',')]
    partition_by: Vec<String>,
    /// With --partition-by: start a new file once one reaches this many bytes (default
    /// 512 MiB).
    #[arg(long)]
    target_file_bytes: Option<u64>,
    /// Compression codec (uncompressed, snappy, gzip, zstd, lz4_raw, brotli, lz4), with an
    /// optional level after a colon (zstd:9, gzip:6, brotli:5); default: each column keeps
    /// the codec it has in the input.
    #[arg(long)]
    compression: Option<String>,
    /// auto, dictionary or plain.
    #[arg(long, default_value = "auto")]
    encoding: String,
    /// Data page version: 1 or 2.
    #[arg(long, default_value_t = 1)]
    page_version: u8,
    /// Rows per row group; default: keep the input's row groups.
    #[arg(long)]
    row_group_rows: Option<usize>,
    /// Content-defined chunking: cut data pages where the values say (pyarrow's
    /// use_content_defined_chunking, its default sizes), so that a file rewritten after an
    /// edit shares its other pages byte for byte with the old one. Best with --encoding plain
    /// (a dictionary changes with every value of its chunk).
    #[arg(long)]
    cdc: bool,
    /// Keys of the input.
    #[command(flatten)]
    keys: crate::keys::KeyArgs,
    /// Encryption of the output.
    #[command(flatten)]
    encrypt: crate::keys::EncryptArgs,
    #[command(flatten)]
    limits: crate::limits::LimitArgs,
}

/// `--compression`: a codec name, optionally with a level after a colon (`zstd:9`,
/// `gzip:6`, `brotli:5`); a level the codec does not take is refused when the writer is built.
fn codec(text: &str) -> Result<(CodecKind, Option<i32>)> {
    let (name, level) = match text.split_once(':') {
        Some((name, level)) => {
            let level = level.trim().parse::<i32>().map_err(|_| {
                Error::InvalidArgument(format!(
                    "compression level {level:?} in {text:?} is not an integer (e.g. zstd:9)"
                ))
            })?;
            (name, Some(level))
        }
        None => (text, None),
    };
    let kind = CodecKind::parse(name)
        .ok_or_else(|| Error::InvalidArgument(format!("unknown codec {name:?}")))?;
    Ok((kind, level))
}

/// A group without fields reads (as a struct without fields), but parq does not write one:
/// pyarrow, the parquet crate and Spark refuse to write them, so a rewrite would give a
/// file they may not take. Refused up front, by its path.
fn refuse_empty_groups<'a>(
    fields: impl IntoIterator<Item = &'a parq::field::Field>,
    parent: &str,
) -> Result<()> {
    for f in fields {
        let path = if parent.is_empty() {
            f.name.clone()
        } else {
            format!("{parent}.{}", f.name)
        };
        let children = f.children();
        if matches!(f.data_type, parq::field::DataType::Struct(_)) && children.is_empty() {
            return Err(Error::Unsupported(format!(
                "field {path} is a struct without fields: parq does not write a group \
                 without fields, which pyarrow, the parquet crate and Spark refuse to write"
            )));
        }
        refuse_empty_groups(children, &path)?;
    }
    Ok(())
}

/// The input's schema as the output writes it: as it is, but for a root that carries a
/// physical type (segmentio's parquet-go writes one), which readers ignore and the spec
/// does not allow: the root is written as the plain group it reads as.
fn output_schema(meta: &FileMetaData) -> Vec<parq::metadata::SchemaElement> {
    let mut schema = meta.schema.clone();
    if let Some(root) = schema.first_mut().filter(|r| r.type_.is_some()) {
        root.type_ = None;
        root.type_length = None;
        root.converted_type = None;
        root.logical_type = None;
    }
    schema
}

pub fn run(args: &Args) -> Result<()> {
    let start = Instant::now();
    let bytes = read_input(&args.input)?;
    let in_len = bytes.len();
    let read_options = args.limits.apply(args.keys.read_options()?);
    let reader = ParquetReader::with_options(bytes.clone(), read_options)?;
    refuse_empty_groups(&reader.fields()?, "")?;
    let meta = reader.metadata().clone();
    let encoding = match args.encoding.to_ascii_lowercase().as_str() {
        "auto" => EncodingPolicy::Auto,
        "dictionary" | "dict" => EncodingPolicy::Dictionary,
        "plain" => EncodingPolicy::Plain,
        e => {
            return Err(Error::InvalidArgument(format!(
                "unknown encoding policy {e:?}"
            )))
        }
    };
    let page_version = match args.page_version {
        1 => PageVersion::V1,
        2 => PageVersion::V2,
        v => return Err(Error::InvalidArgument(format!("page version {v} (1 or 2)"))),
    };
    let mut options = WriterOptions::default()
        .with_encoding(encoding)
        .with_page_version(page_version)
        .with_key_value_metadata(meta.key_value_metadata.clone().unwrap_or_default())
        .with_row_group_rows(args.row_group_rows.unwrap_or(usize::MAX))
        .with_row_group_bytes(usize::MAX)
        .with_encryption(args.encrypt.encryption()?);
    if args.cdc {
        options = options.with_content_defined_chunking(CdcOptions::default());
    }
    if let Some(c) = &args.compression {
        (options.compression, options.compression_level) = codec(c)?;
    } else if let Some(rg) = meta.row_groups.first() {
        // Keep each column's codec.
        for (leaf, chunk) in reader.schema().leaves.iter().zip(&rg.columns) {
            let kind = chunk
                .meta_data
                .as_ref()
                .and_then(|m| CodecKind::from_thrift(m.codec.0))
                .filter(|k| *k != CodecKind::Lzo)
                .unwrap_or(CodecKind::Uncompressed);
            options.columns.insert(
                leaf.path_string(),
                ColumnOptions::default().with_compression(Some(kind)),
            );
        }
    }
    // Keep bloom filters, as the page index is kept: a column with a filter in any row group
    // of the input gets one in every row group of the output, rebuilt from its values at the
    // writer's default sizing (the chunk's distinct count, 5 % false positives).
    for (i, leaf) in reader.schema().leaves.iter().enumerate() {
        let has_filter = meta.row_groups.iter().any(|rg| {
            rg.columns
                .get(i)
                .and_then(|c| c.meta_data.as_ref())
                .is_some_and(|m| m.bloom_filter_offset.is_some())
        });
        if has_filter {
            options
                .columns
                .entry(leaf.path_string())
                .or_default()
                .bloom_filter = Some(BloomFilterOptions::default());
        }
    }
    if !args.partition_by.is_empty() {
        return run_partitioned(args, &reader, &bytes, options, start);
    }
    // Check the schema and options before the output file exists.
    ParquetWriter::from_schema_elements(std::io::sink(), output_schema(&meta), options.clone())?;
    let url = crate::remote::is_url(&args.output);
    let output = if url {
        FileOut::object(&crate::url(&args.output), output_schema(&meta), options)?
    } else {
        // The writer's I/O errors are the output file's: it writes nothing else.
        let out = std::fs::File::create(&args.output)
            .map_err(|e| Error::from(e).in_file(&args.output))?;
        FileOut::File(Box::new(ParquetWriter::from_schema_elements(
            BufWriter::new(out),
            output_schema(&meta),
            options,
        )?))
    };
    let result = write(args, &reader, &bytes, output).map_err(|e| e.in_file(&args.output));
    if result.is_err() && !url {
        // What was written has no footer and is not a Parquet file: do not leave it around.
        let _ = std::fs::remove_file(&args.output);
    }
    let (written, out_len) = result?;
    let secs = start.elapsed().as_secs_f64();
    crate::say(&format!(
        "{} ({in_len} bytes) -> {} ({out_len} bytes, {:.1} %) in {secs:.3} s: {} rows, {} row groups\n{}",
        args.input.display(),
        args.output.display(),
        out_len as f64 * 100.0 / in_len.max(1) as f64,
        written.num_rows,
        written.row_groups.len(),
        report(&written)
    ))?;
    if encoding == EncodingPolicy::Dictionary {
        for note in dictionary_fallbacks(&written) {
            eprintln!("note: {note}");
        }
    }
    Ok(())
}

/// The columns whose data pages are not all dictionary-encoded although `--encoding
/// dictionary` asked for it (the writer falls back to plain when a chunk's dictionary outgrows
/// its limit, and some types are never dictionary-encoded), one line each.
fn dictionary_fallbacks(meta: &FileMetaData) -> Vec<String> {
    let n = meta.row_groups.first().map_or(0, |g| g.columns.len());
    let mut notes = Vec::new();
    for c in 0..n {
        let (mut pages, mut other, mut path) = (0usize, BTreeMap::new(), String::new());
        for m in meta
            .row_groups
            .iter()
            .filter_map(|g| g.columns[c].meta_data.as_ref())
        {
            path = m.path_in_schema.join(".");
            for s in m.encoding_stats.iter().flatten() {
                if s.page_type == PageType::DICTIONARY_PAGE {
                    continue;
                }
                let count = s.count.max(0) as usize;
                pages += count;
                if !matches!(
                    s.encoding,
                    Encoding::RLE_DICTIONARY | Encoding::PLAIN_DICTIONARY
                ) {
                    *other.entry(s.encoding.to_string()).or_insert(0usize) += count;
                }
            }
        }
        if !other.is_empty() {
            let kept: usize = other.values().sum();
            let encodings: Vec<String> = other.keys().cloned().collect();
            notes.push(format!(
                "--encoding dictionary not honoured for column {path}: {kept} of {pages} data \
                 pages are {}",
                encodings.join(", ")
            ));
        }
    }
    notes
}

/// Where a rewrite's rows go: one file, or a dataset of partitions.
trait Sink {
    /// What finishing gives.
    type Done;
    fn write_batch(&mut self, columns: &[parq::column::Column]) -> Result<()>;
    fn write_arrays(&mut self, arrays: &[parq::array::Array]) -> Result<()>;
    /// The input's row group ended (a file keeps the input's row groups).
    fn end_row_group(&mut self) -> Result<()>;
    fn finish(self) -> Result<Self::Done>;
}

/// One output file: local, or an object uploaded in parts.
enum FileOut {
    // Boxed, both: the writers are large beside the enum's other fields.
    File(Box<ParquetWriter<BufWriter<std::fs::File>>>),
    Object(tokio::runtime::Runtime, Box<ObjectWriter>),
}

impl FileOut {
    /// A writer of the object `url` names.
    fn object(
        url: &str,
        schema: Vec<parq::metadata::SchemaElement>,
        options: WriterOptions,
    ) -> Result<FileOut> {
        let runtime = crate::remote::runtime()?;
        let (store, path) = parq::object_store::store_for_url(url)?;
        let writer = {
            let _inside = runtime.enter();
            ObjectWriter::from_schema_elements(
                store,
                path,
                schema,
                options,
                ObjectWriteOptions::default(),
            )?
        };
        Ok(FileOut::Object(runtime, Box::new(writer)))
    }
}

impl Sink for FileOut {
    /// The footer and the bytes stored.
    type Done = (FileMetaData, u64);

    fn write_batch(&mut self, columns: &[parq::column::Column]) -> Result<()> {
        match self {
            FileOut::File(w) => w.write_batch(columns),
            FileOut::Object(rt, w) => rt.block_on(w.write_batch(columns)),
        }
    }

    fn write_arrays(&mut self, arrays: &[parq::array::Array]) -> Result<()> {
        match self {
            FileOut::File(w) => w.write_arrays(arrays),
            FileOut::Object(rt, w) => rt.block_on(w.write_arrays(arrays)),
        }
    }

    fn end_row_group(&mut self) -> Result<()> {
        match self {
            FileOut::File(w) => w.flush_row_group(),
            FileOut::Object(rt, w) => rt.block_on(w.flush_row_group()),
        }
    }

    fn finish(self) -> Result<Self::Done> {
        match self {
            FileOut::File(w) => {
                let (meta, out) = (*w).close()?;
                let file = out.into_inner().map_err(|e| Error::from(e.into_error()))?;
                let len = file.metadata()?.len();
                Ok((meta, len))
            }
            FileOut::Object(rt, w) => {
                let (meta, object) = rt.block_on((*w).finish())?;
                Ok((meta, object.size))
            }
        }
    }
}

/// A dataset of Hive partitions: in a local folder, or under an object-store prefix.
enum DatasetOut {
    Local(DatasetWriter<LocalDirectory>),
    Object(tokio::runtime::Runtime, ObjectDatasetWriter),
}

impl Sink for DatasetOut {
    type Done = Vec<WrittenFile>;

    fn write_batch(&mut self, columns: &[parq::column::Column]) -> Result<()> {
        match self {
            DatasetOut::Local(w) => w.write_batch(columns),
            DatasetOut::Object(rt, w) => rt.block_on(w.write_batch(columns)),
        }
    }

    fn write_arrays(&mut self, arrays: &[parq::array::Array]) -> Result<()> {
        match self {
            DatasetOut::Local(w) => w.write_arrays(arrays),
            DatasetOut::Object(rt, w) => rt.block_on(w.write_arrays(arrays)),
        }
    }

    /// Row groups are the dataset writer's (`--row-group-rows`, or its default): an input
    /// row group split over partitions would otherwise leave tiny ones.
    fn end_row_group(&mut self) -> Result<()> {
        Ok(())
    }

    fn finish(self) -> Result<Self::Done> {
        match self {
            DatasetOut::Local(w) => w.finish(),
            DatasetOut::Object(rt, w) => rt.block_on(w.finish()),
        }
    }
}

/// The input's bytes: a local file, or the whole object a URL names (one GET).
fn read_input(input: &std::path::Path) -> Result<bytes::Bytes> {
    if !crate::remote::is_url(input) {
        return crate::read_file(input);
    }
    let url = crate::url(input);
    let runtime = crate::remote::runtime()?;
    let (store, path) = parq::object_store::store_for_url(&url)?;
    let fetch = |e: parq::object_store::object_store::Error| Error::Fetch {
        object: url.clone(),
        range: None,
        source: Box::new(e),
    };
    runtime.block_on(async {
        let got = store.get(&path).await.map_err(fetch)?;
        got.bytes().await.map_err(fetch)
    })
}

/// `--partition-by`: the rows into a dataset of Hive partitions under OUT, then the list
/// of files written.
fn run_partitioned(
    args: &Args,
    reader: &ParquetReader,
    bytes: &bytes::Bytes,
    mut options: WriterOptions,
    start: Instant,
) -> Result<()> {
    if args.row_group_rows.is_none() {
        options.row_group_rows = WriterOptions::default().row_group_rows;
    }
    options.row_group_bytes = WriterOptions::default().row_group_bytes;
    let mut dataset = DatasetOptions::default()
        .with_writer_options(options)
        .with_partition_by(args.partition_by.iter().cloned());
    if let Some(bytes) = args.target_file_bytes {
        dataset = dataset.with_target_file_bytes(bytes);
    }
    let schema = output_schema(reader.metadata());
    let out = if crate::remote::is_url(&args.output) {
        let runtime = crate::remote::runtime()?;
        let (store, prefix) = parq::object_store::store_for_url(&crate::url(&args.output))?;
        let writer = ObjectDatasetWriter::from_schema_elements(
            store,
            prefix,
            &schema,
            dataset,
            ObjectWriteOptions::default(),
        )?;
        DatasetOut::Object(runtime, writer)
    } else {
        DatasetOut::Local(DatasetWriter::from_schema_elements(
            LocalDirectory::new(&args.output),
            &schema,
            dataset,
        )?)
    };
    let files = write(args, reader, bytes, out).map_err(|e| e.in_file(&args.output))?;
    let rows: u64 = files.iter().map(|f| f.num_rows).sum();
    let stored: u64 = files.iter().map(|f| f.size_bytes).sum();
    let mut text = format!(
        "{} -> {}: {} files, {rows} rows, {stored} bytes in {:.3} s\n",
        args.input.display(),
        args.output.display(),
        files.len(),
        start.elapsed().as_secs_f64()
    );
    let width = files
        .iter()
        .map(|f| f.path.chars().count())
        .max()
        .unwrap_or(0);
    text.push_str(&format!(
        "{:width$}  {:>12}  {:>12}\n",
        "path", "rows", "bytes"
    ));
    let mut files = files;
    files.sort_by(|a, b| a.path.cmp(&b.path));
    for f in &files {
        text.push_str(&format!(
            "{:width$}  {:>12}  {:>12}\n",
            f.path, f.num_rows, f.size_bytes
        ));
    }
    crate::say(&text)
}

fn write<S: Sink>(
    args: &Args,
    reader: &ParquetReader,
    bytes: &bytes::Bytes,
    mut writer: S,
) -> Result<S::Done> {
    let meta = reader.metadata();
    let leaves = reader.schema().leaves.len();
    let fields = reader.schema().top_level_fields().len();
    let progress = progress_bar(meta);
    for (rg, group) in meta.row_groups.iter().enumerate() {
        let part = ParquetReader::with_options(
            bytes.clone(),
            args.limits
                .apply(args.keys.read_options()?)
                .with_row_groups(Some(vec![rg])),
        )?;
        let groups = meta.row_groups.len();
        if reader.schema().is_flat() {
            let columns = (0..leaves)
                .map(|i| {
                    progress.set_message(format!(
                        "row group {}/{groups}: reading column {}/{leaves}",
                        rg + 1,
                        i + 1
                    ));
                    part.read_column(i)
                })
                .collect::<Result<Vec<_>>>()?;
            progress.set_message(format!("row group {}/{groups}: writing", rg + 1));
            writer.write_batch(&columns)?;
        } else {
            // Nested fields: each top-level field whole, assembled by the nested reader.
            let arrays = (0..fields)
                .map(|i| {
                    progress.set_message(format!(
                        "row group {}/{groups}: reading field {}/{fields}",
                        rg + 1,
                        i + 1
                    ));
                    part.read_field(i).map(|(_, a)| a)
                })
                .collect::<Result<Vec<_>>>()?;
            progress.set_message(format!("row group {}/{groups}: writing", rg + 1));
            writer.write_arrays(&arrays)?;
        }
        if args.row_group_rows.is_none() {
            writer.end_row_group()?;
        }
        progress.inc(group.num_rows.max(0) as u64);
    }
    progress.set_message("writing the footer");
    let written = writer.finish();
    progress.finish_and_clear();
    written
}

/// A bar over the input's rows, advanced once per row group, drawn on stderr only when
/// stderr is a terminal (a pipe or a file gets nothing).
fn progress_bar(meta: &FileMetaData) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(
        Some(meta.num_rows.max(0) as u64),
        ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} rows ({eta}) {msg}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// One line per column: data page encodings chosen (with how many chunks took each), codec,
/// and compressed bytes.
/// The table of what was written: per column its path, bytes, codec and data page encodings
/// (with the number of chunks each), aligned to the longest path.
fn report(meta: &FileMetaData) -> String {
    let n = meta.row_groups.first().map_or(0, |g| g.columns.len());
    let mut rows = Vec::with_capacity(n);
    for c in 0..n {
        let mut encodings: BTreeMap<String, usize> = BTreeMap::new();
        let (mut bytes, mut codec, mut path) = (0i64, String::new(), String::new());
        for g in &meta.row_groups {
            let Some(m) = g.columns[c].meta_data.as_ref() else {
                continue;
            };
            bytes += m.total_compressed_size;
            codec = m.codec.name().unwrap_or("?").to_ascii_lowercase();
            path = m.path_in_schema.join(".");
            let data: Vec<Encoding> = m
                .encoding_stats
                .iter()
                .flatten()
                .filter(|s| s.page_type != PageType::DICTIONARY_PAGE)
                .map(|s| s.encoding)
                .collect();
            for e in data {
                *encodings.entry(e.to_string()).or_default() += 1;
            }
        }
        let encodings: Vec<String> = encodings
            .iter()
            .map(|(e, k)| format!("{e} ({k})"))
            .collect();
        rows.push((path, bytes, codec, encodings.join(", ")));
    }
    // Padding counts chars, so the width does too (a name may be any UTF-8).
    let width = rows
        .iter()
        .map(|r| r.0.chars().count())
        .max()
        .unwrap_or(0)
        .max("column".len());
    let mut out = format!(
        "{:width$}  {:>12}  {:12}  encoding (chunks)\n",
        "column", "bytes", "codec"
    );
    for (path, bytes, codec, encodings) in rows {
        out.push_str(&format!(
            "{path:width$}  {bytes:>12}  {codec:12}  {encodings}\n"
        ));
    }
    out
}
