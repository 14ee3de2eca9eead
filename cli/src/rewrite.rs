//! `parq rewrite IN OUT`: read a file with parq and write it again with parq's writer,
//! keeping the schema elements (names, physical and logical types, INT96, field ids, the
//! spelling of lists and maps) and the key-value metadata (an embedded `ARROW:schema` among
//! it) exactly. Nested fields go through the nested reader and the shredding writer.

use std::collections::BTreeMap;
use std::io::{BufWriter, IsTerminal};
use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use parq::codecs::compression::CodecKind;
use parq::metadata::{Encoding, FileMetaData, PageType};
use parq::read::{ParquetReader, ReadOptions};
use parq::write::{
    BloomFilterOptions, CdcOptions, ColumnOptions, EncodingPolicy, PageVersion, ParquetWriter,
    WriterOptions,
};
use parq::{Error, Result};

/// Arguments of `parq rewrite`.
#[derive(clap::Args)]
pub struct Args {
    /// The file to read.
    input: PathBuf,
    /// The file to write.
    output: PathBuf,
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
    let bytes = crate::read_file(&args.input)?;
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
    let mut options = WriterOptions {
        encoding,
        page_version,
        key_value_metadata: meta.key_value_metadata.clone().unwrap_or_default(),
        row_group_rows: args.row_group_rows.unwrap_or(usize::MAX),
        row_group_bytes: usize::MAX,
        encryption: args.encrypt.encryption()?,
        content_defined_chunking: args.cdc.then(CdcOptions::default),
        ..WriterOptions::default()
    };
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
                ColumnOptions {
                    compression: Some(kind),
                    ..ColumnOptions::default()
                },
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
    // Check the schema and options before the output file exists.
    ParquetWriter::from_schema_elements(std::io::sink(), output_schema(&meta), options.clone())?;
    // The writer's I/O errors are the output file's: it writes nothing else.
    let result = write(args, &reader, &bytes, options).map_err(|e| e.in_file(&args.output));
    if result.is_err() {
        // What was written has no footer and is not a Parquet file: do not leave it around.
        let _ = std::fs::remove_file(&args.output);
    }
    let written = result?;
    let out_len = std::fs::metadata(&args.output)
        .map_err(|e| Error::from(e).in_file(&args.output))?
        .len();
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

fn write(
    args: &Args,
    reader: &ParquetReader,
    bytes: &bytes::Bytes,
    options: WriterOptions,
) -> Result<FileMetaData> {
    let meta = reader.metadata();
    let out = std::fs::File::create(&args.output)?;
    let mut writer =
        ParquetWriter::from_schema_elements(BufWriter::new(out), output_schema(meta), options)?;
    let leaves = reader.schema().leaves.len();
    let progress = progress_bar(meta);
    for (rg, group) in meta.row_groups.iter().enumerate() {
        let part = ParquetReader::with_options(
            bytes.clone(),
            ReadOptions {
                row_groups: Some(vec![rg]),
                ..args.limits.apply(args.keys.read_options()?)
            },
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
            let fields = writer.fields().len();
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
            writer.flush_row_group()?;
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
