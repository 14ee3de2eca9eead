//! What to write: the fields of a flat schema ([`Field`]) and how to write them
//! ([`WriterOptions`], per-column [`ColumnOptions`]).

use std::collections::HashMap;

use parq_codecs::compression::CodecKind;

pub use super::cdc::CdcOptions;
use crate::metadata::{
    ConvertedType, Encoding, FieldRepetitionType, KeyValue, LogicalType, SchemaElement, TimeUnit,
    Type,
};

/// One column of a flat schema: a leaf under the root.
///
/// The constructors set the logical type and the matching deprecated converted type (as the
/// `LogicalType` comment of `parquet.thrift` asks), and make the field `REQUIRED`; chain
/// [`Field::optional`] for a nullable column.
///
/// ```
/// use parq::write::Field;
/// let fields = vec![Field::int64("id"), Field::string("name").optional()];
/// # assert_eq!(fields.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Column name.
    pub name: String,
    /// Physical type.
    pub physical_type: Type,
    /// Width in bytes for `FIXED_LEN_BYTE_ARRAY`.
    pub type_length: Option<i32>,
    /// `REQUIRED` or `OPTIONAL`.
    pub repetition: FieldRepetitionType,
    /// Logical annotation.
    pub logical_type: Option<LogicalType>,
    /// Deprecated annotation, still written for older readers.
    pub converted_type: Option<ConvertedType>,
    /// Decimal scale (with `DECIMAL`).
    pub scale: Option<i32>,
    /// Decimal precision (with `DECIMAL`).
    pub precision: Option<i32>,
    /// Field id of the original schema (Iceberg and others).
    pub field_id: Option<i32>,
}

impl Field {
    /// A required column of physical type `physical_type` without annotation.
    pub fn new(name: impl Into<String>, physical_type: Type) -> Self {
        Field {
            name: name.into(),
            physical_type,
            type_length: None,
            repetition: FieldRepetitionType::REQUIRED,
            logical_type: None,
            converted_type: None,
            scale: None,
            precision: None,
            field_id: None,
        }
    }

    /// Make the column nullable (`OPTIONAL`).
    pub fn optional(mut self) -> Self {
        self.repetition = FieldRepetitionType::OPTIONAL;
        self
    }

    /// Make the column non-nullable (`REQUIRED`, the default).
    pub fn required(mut self) -> Self {
        self.repetition = FieldRepetitionType::REQUIRED;
        self
    }

    /// Set the field id.
    pub fn with_field_id(mut self, id: i32) -> Self {
        self.field_id = Some(id);
        self
    }

    /// Set a logical type, and the converted type the spec pairs with it (if any).
    pub fn with_logical_type(mut self, lt: LogicalType) -> Self {
        let (converted, scale, precision) = converted_for(&lt);
        self.converted_type = converted;
        if scale.is_some() {
            self.scale = scale;
            self.precision = precision;
        }
        self.logical_type = Some(lt);
        self
    }

    /// `BOOLEAN`.
    pub fn boolean(name: impl Into<String>) -> Self {
        Self::new(name, Type::BOOLEAN)
    }
    /// `INT32`.
    pub fn int32(name: impl Into<String>) -> Self {
        Self::new(name, Type::INT32)
    }
    /// `INT64`.
    pub fn int64(name: impl Into<String>) -> Self {
        Self::new(name, Type::INT64)
    }
    /// `INT96` (legacy timestamps, 12 bytes per value).
    pub fn int96(name: impl Into<String>) -> Self {
        Self::new(name, Type::INT96)
    }
    /// `FLOAT`.
    pub fn float(name: impl Into<String>) -> Self {
        Self::new(name, Type::FLOAT)
    }
    /// `DOUBLE`.
    pub fn double(name: impl Into<String>) -> Self {
        Self::new(name, Type::DOUBLE)
    }
    /// `BYTE_ARRAY` without annotation (binary).
    pub fn byte_array(name: impl Into<String>) -> Self {
        Self::new(name, Type::BYTE_ARRAY)
    }
    /// `FIXED_LEN_BYTE_ARRAY(width)` without annotation.
    pub fn fixed_len_byte_array(name: impl Into<String>, width: i32) -> Self {
        let mut f = Self::new(name, Type::FIXED_LEN_BYTE_ARRAY);
        f.type_length = Some(width);
        f
    }
    /// `BYTE_ARRAY` annotated `STRING` (UTF-8).
    pub fn string(name: impl Into<String>) -> Self {
        Self::byte_array(name).with_logical_type(LogicalType::String)
    }
    /// `BYTE_ARRAY` annotated `ENUM`.
    pub fn enumeration(name: impl Into<String>) -> Self {
        Self::byte_array(name).with_logical_type(LogicalType::Enum)
    }
    /// `BYTE_ARRAY` annotated `JSON`.
    pub fn json(name: impl Into<String>) -> Self {
        Self::byte_array(name).with_logical_type(LogicalType::Json)
    }
    /// `BYTE_ARRAY` annotated `BSON`.
    pub fn bson(name: impl Into<String>) -> Self {
        Self::byte_array(name).with_logical_type(LogicalType::Bson)
    }
    /// `INT32` annotated `DATE` (days since the epoch).
    pub fn date(name: impl Into<String>) -> Self {
        Self::int32(name).with_logical_type(LogicalType::Date)
    }
    /// `TIME` of `unit`: `INT32` for millis, `INT64` for micros and nanos.
    pub fn time(name: impl Into<String>, unit: TimeUnit, is_adjusted_to_utc: bool) -> Self {
        let ty = if unit == TimeUnit::Millis {
            Type::INT32
        } else {
            Type::INT64
        };
        Self::new(name, ty).with_logical_type(LogicalType::Time {
            is_adjusted_to_utc,
            unit,
        })
    }
    /// `INT64` annotated `TIMESTAMP` of `unit`.
    pub fn timestamp(name: impl Into<String>, unit: TimeUnit, is_adjusted_to_utc: bool) -> Self {
        Self::int64(name).with_logical_type(LogicalType::Timestamp {
            is_adjusted_to_utc,
            unit,
        })
    }
    /// An `INTEGER(bit_width, is_signed)` annotation on `INT32` (widths 8, 16, 32) or `INT64`
    /// (width 64).
    pub fn integer(name: impl Into<String>, bit_width: i8, is_signed: bool) -> Self {
        let ty = if bit_width == 64 {
            Type::INT64
        } else {
            Type::INT32
        };
        Self::new(name, ty).with_logical_type(LogicalType::Integer {
            bit_width,
            is_signed,
        })
    }
    /// `DECIMAL(precision, scale)` on `physical_type` (`INT32`, `INT64`, `BYTE_ARRAY`) or, with
    /// [`Field::decimal_fixed`], on `FIXED_LEN_BYTE_ARRAY`.
    pub fn decimal(
        name: impl Into<String>,
        physical_type: Type,
        precision: i32,
        scale: i32,
    ) -> Self {
        Self::new(name, physical_type).with_logical_type(LogicalType::Decimal { scale, precision })
    }
    /// `DECIMAL(precision, scale)` on `FIXED_LEN_BYTE_ARRAY(width)` (big-endian two's
    /// complement).
    pub fn decimal_fixed(name: impl Into<String>, width: i32, precision: i32, scale: i32) -> Self {
        Self::fixed_len_byte_array(name, width)
            .with_logical_type(LogicalType::Decimal { scale, precision })
    }
    /// `FIXED_LEN_BYTE_ARRAY(16)` annotated `UUID`.
    pub fn uuid(name: impl Into<String>) -> Self {
        Self::fixed_len_byte_array(name, 16).with_logical_type(LogicalType::Uuid)
    }
    /// `FIXED_LEN_BYTE_ARRAY(2)` annotated `FLOAT16` (IEEE half, little-endian).
    pub fn float16(name: impl Into<String>) -> Self {
        Self::fixed_len_byte_array(name, 2).with_logical_type(LogicalType::Float16)
    }

    /// The schema element of this leaf.
    pub fn to_schema_element(&self) -> SchemaElement {
        SchemaElement {
            type_: Some(self.physical_type),
            type_length: self.type_length,
            repetition_type: Some(self.repetition),
            name: self.name.clone(),
            num_children: None,
            converted_type: self.converted_type,
            scale: self.scale,
            precision: self.precision,
            field_id: self.field_id,
            logical_type: self.logical_type.clone(),
            vector_length: None,
        }
    }
}

/// The converted type (and decimal scale/precision) that the spec pairs with a logical type.
pub(crate) fn converted_for(lt: &LogicalType) -> (Option<ConvertedType>, Option<i32>, Option<i32>) {
    let c = match lt {
        LogicalType::String => ConvertedType::UTF8,
        LogicalType::Map => ConvertedType::MAP,
        LogicalType::List => ConvertedType::LIST,
        LogicalType::Enum => ConvertedType::ENUM,
        LogicalType::Decimal { scale, precision } => {
            return (Some(ConvertedType::DECIMAL), Some(*scale), Some(*precision))
        }
        LogicalType::Date => ConvertedType::DATE,
        LogicalType::Time { unit, .. } => match unit {
            TimeUnit::Millis => ConvertedType::TIME_MILLIS,
            TimeUnit::Micros => ConvertedType::TIME_MICROS,
            TimeUnit::Nanos => return (None, None, None),
        },
        LogicalType::Timestamp { unit, .. } => match unit {
            TimeUnit::Millis => ConvertedType::TIMESTAMP_MILLIS,
            TimeUnit::Micros => ConvertedType::TIMESTAMP_MICROS,
            TimeUnit::Nanos => return (None, None, None),
        },
        LogicalType::Integer {
            bit_width,
            is_signed,
        } => match (bit_width, is_signed) {
            (8, true) => ConvertedType::INT_8,
            (16, true) => ConvertedType::INT_16,
            (32, true) => ConvertedType::INT_32,
            (64, true) => ConvertedType::INT_64,
            (8, false) => ConvertedType::UINT_8,
            (16, false) => ConvertedType::UINT_16,
            (32, false) => ConvertedType::UINT_32,
            (64, false) => ConvertedType::UINT_64,
            _ => return (None, None, None),
        },
        LogicalType::Json => ConvertedType::JSON,
        LogicalType::Bson => ConvertedType::BSON,
        _ => return (None, None, None),
    };
    (Some(c), None, None)
}

/// How a column's values are encoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum EncodingPolicy {
    /// Decide per column chunk: a cheap estimate first, then a dictionary builder that aborts
    /// as soon as the dictionary can no longer beat PLAIN. Booleans: PLAIN in v1 pages, RLE in
    /// v2 pages.
    #[default]
    Auto,
    /// Always a dictionary, except when it grows past the dictionary size limit (then PLAIN).
    Dictionary,
    /// Always PLAIN.
    Plain,
    /// This encoding for every page. `RLE_DICTIONARY` / `PLAIN_DICTIONARY` mean
    /// [`EncodingPolicy::Dictionary`]; an encoding the physical type does not allow is an
    /// error when the writer is created.
    Explicit(Encoding),
}

/// Data page format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PageVersion {
    /// `DATA_PAGE`: levels and values compressed together. Every reader opens these.
    #[default]
    V1,
    /// `DATA_PAGE_V2`: levels uncompressed, ahead of the (compressed) values.
    V2,
}

/// Per-column overrides of [`WriterOptions`]; `None` keeps the file-wide setting.
#[derive(Debug, Clone, Default, PartialEq)]
#[non_exhaustive]
pub struct ColumnOptions {
    /// Compression codec.
    pub compression: Option<CodecKind>,
    /// Compression level (`Some(None)` = the writer's default level for the codec, see
    /// [`WriterOptions::compression_level`]).
    pub compression_level: Option<Option<i32>>,
    /// Encoding policy.
    pub encoding: Option<EncodingPolicy>,
    /// Largest dictionary page, in PLAIN bytes.
    pub dictionary_size_limit: Option<usize>,
    /// Write statistics (chunk, page headers, column index).
    pub statistics: Option<bool>,
    /// Write a bloom filter for each chunk of the column (off when `None`).
    pub bloom_filter: Option<BloomFilterOptions>,
}

impl ColumnOptions {
    /// These options with [`compression`](Self::compression) set to `v`.
    pub fn with_compression(mut self, v: Option<CodecKind>) -> Self {
        self.compression = v;
        self
    }

    /// These options with [`compression_level`](Self::compression_level) set to `v`.
    pub fn with_compression_level(mut self, v: Option<Option<i32>>) -> Self {
        self.compression_level = v;
        self
    }

    /// These options with [`encoding`](Self::encoding) set to `v`.
    pub fn with_encoding(mut self, v: Option<EncodingPolicy>) -> Self {
        self.encoding = v;
        self
    }

    /// These options with [`dictionary_size_limit`](Self::dictionary_size_limit) set to `v`.
    pub fn with_dictionary_size_limit(mut self, v: Option<usize>) -> Self {
        self.dictionary_size_limit = v;
        self
    }

    /// These options with [`statistics`](Self::statistics) set to `v`.
    pub fn with_statistics(mut self, v: Option<bool>) -> Self {
        self.statistics = v;
        self
    }

    /// These options with [`bloom_filter`](Self::bloom_filter) set to `v`.
    pub fn with_bloom_filter(mut self, v: Option<BloomFilterOptions>) -> Self {
        self.bloom_filter = v;
        self
    }
}

/// A column's bloom filter: sized for `ndv` distinct values at false-positive probability
/// `fpp`, as `BloomFilter.md` gives (see [`crate::bloom::optimal_num_bytes`]).
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct BloomFilterOptions {
    /// Distinct values per column chunk. `None` takes the chunk's own count: the dictionary
    /// size when the chunk is dictionary-encoded, else its number of non-null values.
    pub ndv: Option<u64>,
    /// False-positive probability, strictly between 0 and 1.
    pub fpp: f64,
}

impl Default for BloomFilterOptions {
    /// The chunk's own distinct count, at 5 % false positives (arrow-rs's default FPP).
    fn default() -> Self {
        BloomFilterOptions {
            ndv: None,
            fpp: 0.05,
        }
    }
}

impl BloomFilterOptions {
    /// These options with [`ndv`](Self::ndv) set to `v`.
    pub fn with_ndv(mut self, v: Option<u64>) -> Self {
        self.ndv = v;
        self
    }

    /// These options with [`fpp`](Self::fpp) set to `v`.
    pub fn with_fpp(mut self, v: f64) -> Self {
        self.fpp = v;
        self
    }
}

/// How to write a file. `WriterOptions::default()` writes what every reader opens: v1 pages
/// of about 1 MiB, uncompressed, row groups of up to 1 Mi rows, automatic dictionary
/// encoding, statistics and the page index.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct WriterOptions {
    /// Compression codec of every column chunk (unless overridden per column).
    pub compression: CodecKind,
    /// Compression level; `None` takes the writer's default for the codec: zstd level
    /// [`DEFAULT_WRITE_ZSTD_LEVEL`] (1, as arrow-rs and DuckDB write, rather than libzstd's 3:
    /// about 2-3x faster on page-sized inputs for a few percent of size), the library's own
    /// default for the other codecs.
    pub compression_level: Option<i32>,
    /// Encoding policy.
    pub encoding: EncodingPolicy,
    /// Data page format.
    pub page_version: PageVersion,
    /// Target size of a data page, in encoded (uncompressed) bytes of values.
    pub data_page_size: usize,
    /// Most rows in one data page (keeps the page index useful for wide values too).
    pub data_page_row_limit: usize,
    /// Most rows in one row group.
    pub row_group_rows: usize,
    /// Close a row group once its buffered (Arrow-layout) bytes reach this.
    pub row_group_bytes: usize,
    /// Largest dictionary page, in PLAIN bytes; a bigger dictionary falls back to PLAIN.
    pub dictionary_size_limit: usize,
    /// Write statistics: per chunk, per page header and in the column index.
    pub statistics: bool,
    /// Write statistics into data page headers too. Off by default, as in arrow-rs and
    /// parquet-mr: the column index holds the same per-page bounds and null counts, and
    /// headers without them keep files smaller (~40 bytes per page of short strings).
    pub page_header_statistics: bool,
    /// Byte-array min/max longer than this are truncated (max rounded up) and marked inexact;
    /// `None` never truncates.
    pub statistics_truncate_length: Option<usize>,
    /// Write the page index (column index and offset index).
    pub page_index: bool,
    /// Key-value metadata of the file.
    pub key_value_metadata: Vec<KeyValue>,
    /// `created_by` of the footer.
    pub created_by: String,
    /// Per-column overrides, by dotted column path (the column name for flat schemas).
    pub columns: HashMap<String, ColumnOptions>,
    /// Cut data pages where the content says (see [`CdcOptions`]), as pyarrow's
    /// `use_content_defined_chunking` does: off (`None`) by default.
    pub content_defined_chunking: Option<CdcOptions>,
    /// Encrypt the file (feature `encryption`).
    #[cfg(feature = "encryption")]
    pub encryption: Option<crate::encryption::FileEncryptionProperties>,
}

/// 1 MiB.
const MIB: usize = 1 << 20;

/// The zstd level the writer uses when none is given.
pub const DEFAULT_WRITE_ZSTD_LEVEL: i32 = 1;

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            compression: CodecKind::Uncompressed,
            compression_level: None,
            encoding: EncodingPolicy::Auto,
            page_version: PageVersion::V1,
            data_page_size: MIB,
            data_page_row_limit: 20_000,
            row_group_rows: 1 << 20,
            row_group_bytes: 512 * MIB,
            dictionary_size_limit: MIB,
            statistics: true,
            page_header_statistics: false,
            statistics_truncate_length: Some(64),
            page_index: true,
            key_value_metadata: Vec::new(),
            created_by: concat!("parq version ", env!("CARGO_PKG_VERSION")).to_string(),
            columns: HashMap::new(),
            content_defined_chunking: None,
            #[cfg(feature = "encryption")]
            encryption: None,
        }
    }
}

impl WriterOptions {
    /// Set the compression codec.
    pub fn with_compression(mut self, codec: CodecKind) -> Self {
        self.compression = codec;
        self
    }
    /// Set the encoding policy.
    pub fn with_encoding(mut self, encoding: EncodingPolicy) -> Self {
        self.encoding = encoding;
        self
    }
    /// Set the data page format.
    pub fn with_page_version(mut self, v: PageVersion) -> Self {
        self.page_version = v;
        self
    }
    /// Set the most rows per row group.
    pub fn with_row_group_rows(mut self, rows: usize) -> Self {
        self.row_group_rows = rows;
        self
    }
    /// Set the data page target size in bytes.
    pub fn with_data_page_size(mut self, bytes: usize) -> Self {
        self.data_page_size = bytes;
        self
    }
    /// Set an override for the column at `path`.
    pub fn with_column(mut self, path: impl Into<String>, options: ColumnOptions) -> Self {
        self.columns.insert(path.into(), options);
        self
    }
    /// Cut data pages at content-defined boundaries, so that a file rewritten after an edit
    /// keeps the pages away from the edit byte for byte (see [`CdcOptions`]). Meant with a
    /// non-dictionary encoding: a dictionary changes with every value of its chunk.
    pub fn with_content_defined_chunking(mut self, cdc: CdcOptions) -> Self {
        self.content_defined_chunking = Some(cdc);
        self
    }
    /// Write a bloom filter for the column at `path` (keeping its other overrides).
    pub fn with_bloom_filter(mut self, path: impl Into<String>, bloom: BloomFilterOptions) -> Self {
        self.columns.entry(path.into()).or_default().bloom_filter = Some(bloom);
        self
    }

    /// These options with [`compression_level`](Self::compression_level) set to `v`.
    pub fn with_compression_level(mut self, v: Option<i32>) -> Self {
        self.compression_level = v;
        self
    }

    /// These options with [`data_page_row_limit`](Self::data_page_row_limit) set to `v`.
    pub fn with_data_page_row_limit(mut self, v: usize) -> Self {
        self.data_page_row_limit = v;
        self
    }

    /// These options with [`row_group_bytes`](Self::row_group_bytes) set to `v`.
    pub fn with_row_group_bytes(mut self, v: usize) -> Self {
        self.row_group_bytes = v;
        self
    }

    /// These options with [`dictionary_size_limit`](Self::dictionary_size_limit) set to `v`.
    pub fn with_dictionary_size_limit(mut self, v: usize) -> Self {
        self.dictionary_size_limit = v;
        self
    }

    /// These options with [`statistics`](Self::statistics) set to `v`.
    pub fn with_statistics(mut self, v: bool) -> Self {
        self.statistics = v;
        self
    }

    /// These options with [`page_header_statistics`](Self::page_header_statistics) set to `v`.
    pub fn with_page_header_statistics(mut self, v: bool) -> Self {
        self.page_header_statistics = v;
        self
    }

    /// These options with [`statistics_truncate_length`](Self::statistics_truncate_length) set to `v`.
    pub fn with_statistics_truncate_length(mut self, v: Option<usize>) -> Self {
        self.statistics_truncate_length = v;
        self
    }

    /// These options with [`page_index`](Self::page_index) set to `v`.
    pub fn with_page_index(mut self, v: bool) -> Self {
        self.page_index = v;
        self
    }

    /// These options with [`key_value_metadata`](Self::key_value_metadata) set to `v`.
    pub fn with_key_value_metadata(mut self, v: Vec<KeyValue>) -> Self {
        self.key_value_metadata = v;
        self
    }

    /// These options with [`created_by`](Self::created_by) set to `v`.
    pub fn with_created_by(mut self, v: String) -> Self {
        self.created_by = v;
        self
    }

    /// These options with [`columns`](Self::columns) set to `v`.
    pub fn with_columns(mut self, v: HashMap<String, ColumnOptions>) -> Self {
        self.columns = v;
        self
    }

    /// These options with [`encryption`](Self::encryption) set to `v`.
    #[cfg(feature = "encryption")]
    pub fn with_encryption(
        mut self,
        v: Option<crate::encryption::FileEncryptionProperties>,
    ) -> Self {
        self.encryption = v;
        self
    }
}
