//! DataFusion's Parquet options (`TableParquetOptions`, `datafusion.execution.parquet.*` and
//! `OPTIONS ('format.…')`) as parq's: each one is honoured, or, where parq has no such
//! setting and the session sets it to other than DataFusion's default, refused by its name.
//!
//! Options that only steer how DataFusion's own writer schedules its work
//! (`allow_single_file_parallelism`, `maximum_parallel_row_group_writers`,
//! `maximum_buffered_record_batches_per_stream`, `write_batch_size`) do not change the file
//! and are ignored; so are the read hints parq decides itself (`metadata_size_hint`,
//! `pushdown_filters`, `reorder_filters`, `force_filter_selections`,
//! `max_predicate_cache_size`, `bloom_filter_on_read`, `enable_page_index`, `pruning`,
//! `skip_metadata`): parq always prunes with what the file has, and its own row filter does
//! the filtering.

use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::common::config::{ParquetOptions, TableParquetOptions};
use datafusion::common::parquet_config::DFParquetWriterVersion;
use datafusion::common::{not_impl_err, plan_err, Result};
use parq::codecs::compression::CodecKind;
use parq::write::{BloomFilterOptions, ColumnOptions, EncodingPolicy, PageVersion, WriterOptions};

/// A refusal naming the option.
fn unsupported<T>(name: &str, why: &str) -> Result<T> {
    not_impl_err!("parq-datafusion: datafusion.execution.parquet.{name} is not supported ({why})")
}

/// Refuse the read options parq has no equivalent of, when set away from the default.
pub fn check_read_options(options: &TableParquetOptions) -> Result<()> {
    if options.crypto.file_decryption.is_some() || options.crypto.factory_id.is_some() {
        return unsupported(
            "crypto",
            "encrypted files are read with parq's own keys, not through DataFusion",
        );
    }
    Ok(())
}

/// `zstd(3)`, `snappy`, `gzip(6)`, `brotli(1)`, `lz4`, `lz4_raw`, `uncompressed` as a codec
/// and level.
fn codec(text: &str) -> Result<(CodecKind, Option<i32>)> {
    let text = text.trim().to_ascii_lowercase();
    let (name, level) = match text.split_once('(') {
        Some((name, rest)) => {
            let level = rest
                .strip_suffix(')')
                .and_then(|l| l.trim().parse::<i32>().ok());
            match level {
                Some(l) => (name.trim().to_string(), Some(l)),
                None => return plan_err!("compression {text:?}: the level is not a number"),
            }
        }
        None => (text.clone(), None),
    };
    let kind = match name.as_str() {
        "uncompressed" => CodecKind::Uncompressed,
        "snappy" => CodecKind::Snappy,
        "gzip" => CodecKind::Gzip,
        "brotli" => CodecKind::Brotli,
        "lz4" => CodecKind::Lz4,
        "lz4_raw" => CodecKind::Lz4Raw,
        "zstd" => CodecKind::Zstd,
        "lzo" => return unsupported("compression", "parq does not write LZO"),
        _ => return plan_err!("unknown compression {text:?}"),
    };
    Ok((kind, level))
}

/// DataFusion's `encoding` names as parq's policy.
fn encoding(text: &str) -> Result<EncodingPolicy> {
    use parq::metadata::Encoding;
    let e = match text.trim().to_ascii_lowercase().as_str() {
        "plain" => return Ok(EncodingPolicy::Plain),
        "plain_dictionary" | "rle_dictionary" => return Ok(EncodingPolicy::Dictionary),
        "rle" => Encoding::RLE,
        "delta_binary_packed" => Encoding::DELTA_BINARY_PACKED,
        "delta_length_byte_array" => Encoding::DELTA_LENGTH_BYTE_ARRAY,
        "delta_byte_array" => Encoding::DELTA_BYTE_ARRAY,
        "byte_stream_split" => Encoding::BYTE_STREAM_SPLIT,
        other => return plan_err!("unknown encoding {other:?}"),
    };
    Ok(EncodingPolicy::Explicit(e))
}

/// Whether statistics are written, and the page index with them: `none`, `chunk`, `page`.
fn statistics(text: &str) -> Result<(bool, bool)> {
    match text.trim().to_ascii_lowercase().as_str() {
        "none" => Ok((false, false)),
        "chunk" => Ok((true, false)),
        "page" => Ok((true, true)),
        other => plan_err!("unknown statistics_enabled {other:?}"),
    }
}

/// parq's writer options for DataFusion's.
pub fn writer_options(options: &TableParquetOptions, schema: &Schema) -> Result<WriterOptions> {
    let (g, default) = (&options.global, ParquetOptions::default());
    if g.skip_arrow_metadata != default.skip_arrow_metadata {
        return unsupported("skip_arrow_metadata", "parq always embeds the Arrow schema");
    }
    if g.column_index_truncate_length != default.column_index_truncate_length {
        return unsupported(
            "column_index_truncate_length",
            "parq truncates the column index as it truncates statistics: set statistics_truncate_length",
        );
    }
    if g.content_defined_chunking.enabled {
        return unsupported("content_defined_chunking", "parq cuts pages by size");
    }
    if options.crypto.file_encryption.is_some() || options.crypto.factory_id.is_some() {
        return unsupported(
            "crypto",
            "encrypt with parq's own WriterOptions::encryption",
        );
    }
    let mut w = WriterOptions::default()
        .with_data_page_size(g.data_pagesize_limit)
        .with_data_page_row_limit(g.data_page_row_count_limit)
        .with_row_group_rows(g.max_row_group_size)
        .with_dictionary_size_limit(g.dictionary_page_size_limit)
        .with_statistics_truncate_length(g.statistics_truncate_length);
    // DataFusion's default names DataFusion as the writer; readers work around writers' bugs
    // by that name, so a file parq wrote says parq unless the session chose a name.
    if g.created_by != default.created_by {
        w.created_by = g.created_by.clone();
    }
    if let Some(bytes) = &g.max_row_group_bytes {
        w.row_group_bytes = bytes.get();
    }
    w.page_version = match g.writer_version {
        DFParquetWriterVersion::V1_0 => PageVersion::V1,
        DFParquetWriterVersion::V2_0 => PageVersion::V2,
    };
    if let Some(c) = &g.compression {
        (w.compression, w.compression_level) = codec(c)?;
    }
    if let Some(e) = &g.encoding {
        w.encoding = encoding(e)?;
    } else if g.dictionary_enabled == Some(false) {
        w.encoding = EncodingPolicy::Plain;
    }
    if let Some(s) = &g.statistics_enabled {
        (w.statistics, w.page_index) = statistics(s)?;
    }
    let bloom = |fpp: Option<f64>, ndv: Option<u64>| {
        BloomFilterOptions::default()
            .with_fpp(fpp.unwrap_or(BloomFilterOptions::default().fpp))
            .with_ndv(ndv)
    };
    let global_bloom = g
        .bloom_filter_on_write
        .then(|| bloom(g.bloom_filter_fpp, g.bloom_filter_ndv));
    for (path, c) in &options.column_specific_options {
        let mut column = ColumnOptions::default();
        if let Some(text) = &c.compression {
            let (kind, level) = codec(text)?;
            column.compression = Some(kind);
            column.compression_level = Some(level);
        }
        if let Some(e) = &c.encoding {
            column.encoding = Some(encoding(e)?);
        } else if c.dictionary_enabled == Some(false) {
            column.encoding = Some(EncodingPolicy::Plain);
        } else if c.dictionary_enabled == Some(true) && g.dictionary_enabled == Some(false) {
            column.encoding = Some(EncodingPolicy::Auto);
        }
        if let Some(s) = &c.statistics_enabled {
            let (on, page) = statistics(s)?;
            if page != w.page_index && on {
                return unsupported(
                    "statistics_enabled",
                    "parq writes the page index for every column or for none",
                );
            }
            column.statistics = Some(on);
        }
        column.bloom_filter = match c.bloom_filter_enabled {
            Some(true) => Some(bloom(
                c.bloom_filter_fpp.or(g.bloom_filter_fpp),
                c.bloom_filter_ndv.or(g.bloom_filter_ndv),
            )),
            Some(false) => None,
            None => global_bloom,
        };
        w.columns.insert(path.clone(), column);
    }
    // `bloom_filter_on_write` is for every column: parq's bloom options are per column, so
    // each leaf of `schema` without options of its own gets it.
    if let Some(b) = global_bloom {
        for path in leaf_paths(schema) {
            w.columns
                .entry(path)
                .or_default()
                .bloom_filter
                .get_or_insert(b);
        }
    }
    for (key, value) in &options.key_value_metadata {
        w.key_value_metadata.push(parq::metadata::KeyValue {
            key: key.clone(),
            value: value.clone(),
        });
    }
    Ok(w)
}

/// The dotted paths of the leaf columns `schema` is written as (a list's leaf is
/// `name.list.element`, a map's `name.key_value.key` and `.value`, as parq's writer spells
/// them).
fn leaf_paths(schema: &Schema) -> Vec<String> {
    fn walk(field: &Field, prefix: String, out: &mut Vec<String>) {
        let path = if prefix.is_empty() {
            field.name().clone()
        } else {
            format!("{prefix}.{}", field.name())
        };
        match field.data_type() {
            DataType::Struct(children) => {
                for c in children {
                    walk(c, path.clone(), out);
                }
            }
            DataType::List(item) | DataType::LargeList(item) | DataType::FixedSizeList(item, _) => {
                walk(
                    &item.as_ref().clone().with_name("element"),
                    format!("{path}.list"),
                    out,
                )
            }
            DataType::Map(entries, _) => {
                if let DataType::Struct(kv) = entries.data_type() {
                    for c in kv {
                        walk(c, format!("{path}.key_value"), out);
                    }
                }
            }
            _ => out.push(path),
        }
    }
    let mut out = Vec::new();
    for f in schema.fields() {
        walk(f, String::new(), &mut out);
    }
    out
}
