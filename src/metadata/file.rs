//! The footer structs of `parquet.thrift`: [`FileMetaData`] and everything inside it.
//!
//! Each struct is one [`thrift_struct!`] declaration, from which its reader and writer come;
//! the two unions of this file are written by hand (see `thrift_struct`).

use super::inline::{InlineBytes, InlineVec};
use super::path::ColumnPath;
use super::thrift::{ty, CompactReader, CompactWriter};
use super::thrift_struct::Value;
use super::types::{
    ColumnOrder, CompressionCodec, ConvertedType, Encoding, FieldRepetitionType, LogicalType,
    PageType, Type,
};
use crate::Result;

thrift_struct! {
    in_place;
    /// Key/value metadata.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct KeyValue {
        /// The key.
        1: required key: String,
        /// The value, if any.
        2: optional value: String,
    }
}

/// The encodings of a column chunk (`ColumnMetaData::encodings`): a few, held in place.
pub type Encodings = InlineVec<Encoding, 4>;

/// The page counts of a column chunk (`ColumnMetaData::encoding_stats`): usually one or two
/// (a dictionary page, data pages), held in place.
pub type EncodingStatsList = InlineVec<PageEncodingStats, 2>;

/// A level histogram of a column chunk (`SizeStatistics`): `max_level + 1` counts, held in
/// place up to 3 (a column nested two deep).
pub type LevelHistogram = InlineVec<i64, 3>;

thrift_struct! {
    in_place;
    /// Min/max and counts of a column chunk or page. Every field is optional.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct Statistics {
        /// Deprecated max, signed comparison.
        1: optional max: InlineBytes,
        /// Deprecated min, signed comparison.
        2: optional min: InlineBytes,
        /// Count of nulls (absent is not zero).
        3: optional null_count: i64,
        /// Count of distinct values.
        4: optional distinct_count: i64,
        /// Upper bound under the column order.
        5: optional max_value: InlineBytes,
        /// Lower bound under the column order.
        6: optional min_value: InlineBytes,
        /// Whether `max_value` is the actual maximum.
        7: optional is_max_value_exact: bool,
        /// Whether `min_value` is the actual minimum.
        8: optional is_min_value_exact: bool,
        /// Count of NaN values.
        9: optional nan_count: i64,
    }
}

thrift_struct! {
    in_place;
    /// Unencoded sizes and level histograms of a column chunk.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct SizeStatistics {
        /// Bytes of BYTE_ARRAY values, without length prefixes.
        1: optional unencoded_byte_array_data_bytes: i64,
        /// Count of each repetition level, `max_rep_level + 1` entries.
        2: optional repetition_level_histogram: LevelHistogram,
        /// Count of each definition level, `max_def_level + 1` entries.
        3: optional definition_level_histogram: LevelHistogram,
    }
}

thrift_struct! {
    in_place;
    /// Bounding box of geospatial statistics.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct BoundingBox {
        /// Minimum x.
        1: required xmin: f64,
        /// Maximum x.
        2: required xmax: f64,
        /// Minimum y.
        3: required ymin: f64,
        /// Maximum y.
        4: required ymax: f64,
        /// Minimum z.
        5: optional zmin: f64,
        /// Maximum z.
        6: optional zmax: f64,
        /// Minimum m.
        7: optional mmin: f64,
        /// Maximum m.
        8: optional mmax: f64,
    }
}

thrift_struct! {
    in_place;
    /// Statistics of the Geometry and Geography logical types.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct GeospatialStatistics {
        /// Bounding box of all values.
        1: optional bbox: BoundingBox,
        /// Geospatial type codes of all values (empty if unknown).
        2: optional geospatial_types: Vec<i32>,
    }
}

thrift_struct! {
    in_place;
    /// One node of the flattened schema (depth-first, groups carry `num_children`).
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct SchemaElement {
        /// Physical type; set for leaves only.
        1: optional type_ as "type": Type,
        /// Byte width for FIXED_LEN_BYTE_ARRAY.
        2: optional type_length: i32,
        /// Repetition; unset on the root.
        3: optional repetition_type: FieldRepetitionType,
        /// Field name.
        4: required name: String,
        /// Number of children; set for groups only.
        5: optional num_children: i32,
        /// Deprecated logical annotation.
        6: optional converted_type: ConvertedType,
        /// Decimal scale (deprecated, mirrors the logical type).
        7: optional scale: i32,
        /// Decimal precision (deprecated, mirrors the logical type).
        8: optional precision: i32,
        /// Field id of the original schema.
        9: optional field_id: i32,
        /// Logical annotation.
        10: optional logical_type: LogicalType,
        /// Element slots per parent occurrence for VECTOR repetition.
        11: optional vector_length: i32,
    }
}

thrift_struct! {
    in_place;
    /// Count of pages of one type and encoding in a column chunk.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct PageEncodingStats {
        /// The page type.
        1: required page_type: PageType,
        /// The encoding.
        2: required encoding: Encoding,
        /// Number of such pages.
        3: required count: i32,
    }
}

thrift_struct! {
    in_place;
    /// Metadata of one column chunk: type, codec, sizes, offsets, statistics.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct ColumnMetaData {
        /// Physical type.
        1: required type_ as "type": Type,
        /// All encodings used in the chunk, in the order the writer listed them.
        2: required encodings: Encodings,
        /// Path of the leaf in the schema (shared by the chunks of the column in a footer).
        3: required path_in_schema: ColumnPath,
        /// Compression codec.
        4: required codec: CompressionCodec,
        /// Number of values, nulls included.
        5: required num_values: i64,
        /// Uncompressed bytes of all pages, headers included.
        6: required total_uncompressed_size: i64,
        /// Compressed bytes of all pages, headers included.
        7: required total_compressed_size: i64,
        /// Key/value metadata.
        8: optional key_value_metadata: Vec<KeyValue>,
        /// File offset of the first data page.
        9: required data_page_offset: i64,
        /// File offset of the root index page.
        10: optional index_page_offset: i64,
        /// File offset of the dictionary page.
        11: optional dictionary_page_offset: i64,
        /// Chunk statistics.
        12: optional statistics: Statistics,
        /// Page counts per type and encoding.
        13: optional encoding_stats: EncodingStatsList,
        /// File offset of the Bloom filter.
        14: optional bloom_filter_offset: i64,
        /// Bytes of the Bloom filter, header included.
        15: optional bloom_filter_length: i32,
        /// Unencoded sizes and level histograms.
        16: optional size_statistics: SizeStatistics,
        /// Geospatial statistics.
        17: optional geospatial_statistics: GeospatialStatistics,
    }
}

/// The `ColumnCryptoMetaData` union (acted on by the `encryption` feature).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ColumnCryptoMetaData {
    /// The column is encrypted with the footer key.
    EncryptionWithFooterKey,
    /// The column is encrypted with its own key.
    EncryptionWithColumnKey {
        /// Path of the column.
        path_in_schema: Vec<String>,
        /// Key retrieval metadata.
        key_metadata: Option<Vec<u8>>,
    },
    /// A variant this crate does not know (0 for an empty union).
    Unknown {
        /// The union field id.
        field_id: i16,
    },
}

thrift_struct! {
    /// The content of `ColumnCryptoMetaData::EncryptionWithColumnKey` (written from a copy:
    /// once per encrypted column chunk of a footer).
    struct EncryptionWithColumnKey {
        1: required path_in_schema: Vec<String>,
        2: optional key_metadata: Vec<u8>,
    }
}

impl ColumnCryptoMetaData {
    /// Reads a `ColumnCryptoMetaData` union.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut out = None;
        r.read_struct("ColumnCryptoMetaData", |r, id, t| {
            if (id == 1 || id == 2) && t != ty::STRUCT {
                return Err(r.error(format!(
                    "ColumnCryptoMetaData field {id} has wire type {t}, not a struct"
                )));
            }
            if out.is_some() || id != 2 {
                if out.is_none() {
                    out = Some(if id == 1 {
                        ColumnCryptoMetaData::EncryptionWithFooterKey
                    } else {
                        ColumnCryptoMetaData::Unknown { field_id: id }
                    });
                }
                return r.skip(t);
            }
            let k = EncryptionWithColumnKey::read(r)?;
            out = Some(ColumnCryptoMetaData::EncryptionWithColumnKey {
                path_in_schema: k.path_in_schema,
                key_metadata: k.key_metadata,
            });
            Ok(())
        })?;
        Ok(out.unwrap_or(ColumnCryptoMetaData::Unknown { field_id: 0 }))
    }

    /// Writes a `ColumnCryptoMetaData` union.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        match self {
            ColumnCryptoMetaData::EncryptionWithFooterKey => w.empty_struct_field(1),
            ColumnCryptoMetaData::EncryptionWithColumnKey {
                path_in_schema,
                key_metadata,
            } => EncryptionWithColumnKey {
                path_in_schema: path_in_schema.clone(),
                key_metadata: key_metadata.clone(),
            }
            .write_field(w, 2),
            ColumnCryptoMetaData::Unknown { field_id } => {
                if *field_id > 0 {
                    w.empty_struct_field(*field_id);
                }
            }
        }
        w.struct_end();
    }
}

thrift_struct! {
    in_place;
    /// One column chunk of a row group.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct ColumnChunk {
        /// File holding the data, relative to this one (summary files only).
        1: optional file_path: String,
        /// Deprecated; 0 if absent (some writers omit it; the spec gives 0 as its default).
        2: default file_offset: i64,
        /// The column metadata (optional in the spec, present in practice).
        3: optional meta_data: ColumnMetaData,
        /// File offset of the OffsetIndex.
        4: optional offset_index_offset: i64,
        /// Bytes of the OffsetIndex.
        5: optional offset_index_length: i32,
        /// File offset of the ColumnIndex.
        6: optional column_index_offset: i64,
        /// Bytes of the ColumnIndex.
        7: optional column_index_length: i32,
        /// Crypto metadata of an encrypted column.
        8: optional crypto_metadata: ColumnCryptoMetaData,
        /// Encrypted ColumnMetaData.
        9: optional encrypted_column_metadata: Vec<u8>,
    }
}

thrift_struct! {
    in_place;
    /// Sort order of one column within a row group.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct SortingColumn {
        /// Leaf column index.
        1: required column_idx: i32,
        /// Descending order.
        2: required descending: bool,
        /// Nulls before non-null values.
        3: required nulls_first: bool,
    }
}

thrift_struct! {
    in_place;
    /// One row group: its column chunks and row count.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct RowGroup {
        /// Column chunks, in schema leaf order.
        1: required columns: Vec<ColumnChunk>,
        /// Uncompressed bytes of all column data.
        2: required total_byte_size: i64,
        /// Number of rows.
        3: required num_rows: i64,
        /// Sort order of the rows.
        4: optional sorting_columns: Vec<SortingColumn>,
        /// File offset of the first page.
        5: optional file_offset: i64,
        /// Compressed bytes of all column data.
        6: optional total_compressed_size: i64,
        /// Ordinal of the row group in the file.
        7: optional ordinal: i16,
    }
}

thrift_struct! {
    in_place;
    /// Parameters of the AES-GCM and AES-GCM-CTR encryption algorithms (the `AesGcmV1` and
    /// `AesGcmCtrV1` structs, which have the same fields).
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct AesGcmParams as "AesGcm" {
        /// AAD prefix.
        1: optional aad_prefix: Vec<u8>,
        /// Unique file part of the AAD suffix.
        2: optional aad_file_unique: Vec<u8>,
        /// Whether readers must supply the AAD prefix.
        3: optional supply_aad_prefix: bool,
    }
}

/// The `EncryptionAlgorithm` union (acted on by the `encryption` feature).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EncryptionAlgorithm {
    /// AES-GCM (field 1).
    AesGcmV1(AesGcmParams),
    /// AES-GCM-CTR (field 2).
    AesGcmCtrV1(AesGcmParams),
    /// A variant this crate does not know (0 for an empty union).
    Unknown {
        /// The union field id.
        field_id: i16,
    },
}

impl EncryptionAlgorithm {
    /// Reads an `EncryptionAlgorithm` union.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut out = None;
        r.read_struct("EncryptionAlgorithm", |r, id, t| {
            if out.is_some() || t != ty::STRUCT || !(1..=2).contains(&id) {
                if out.is_none() {
                    out = Some(EncryptionAlgorithm::Unknown { field_id: id });
                }
                return r.skip(t);
            }
            let p = AesGcmParams::read(r)?;
            out = Some(if id == 1 {
                EncryptionAlgorithm::AesGcmV1(p)
            } else {
                EncryptionAlgorithm::AesGcmCtrV1(p)
            });
            Ok(())
        })?;
        Ok(out.unwrap_or(EncryptionAlgorithm::Unknown { field_id: 0 }))
    }

    /// Writes an `EncryptionAlgorithm` union.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        match self {
            EncryptionAlgorithm::AesGcmV1(p) => {
                w.field_header(ty::STRUCT, 1);
                p.write(w);
            }
            EncryptionAlgorithm::AesGcmCtrV1(p) => {
                w.field_header(ty::STRUCT, 2);
                p.write(w);
            }
            EncryptionAlgorithm::Unknown { field_id } => {
                if *field_id > 0 {
                    w.empty_struct_field(*field_id);
                }
            }
        }
        w.struct_end();
    }
}

struct_value!(ColumnCryptoMetaData, EncryptionAlgorithm);

thrift_struct! {
    in_place;
    /// The file footer: schema, row groups and file-level metadata.
    #[derive(Clone, Debug, Default, PartialEq)]
    pub struct FileMetaData {
        /// Format version (1 and 2 are used interchangeably).
        1: required version: i32,
        /// The flattened schema, root first.
        2: required schema: Vec<SchemaElement>,
        /// Number of rows in the file.
        3: required num_rows: i64,
        /// The row groups.
        4: required row_groups: Vec<RowGroup>,
        /// Key/value metadata.
        5: optional key_value_metadata: Vec<KeyValue>,
        /// Application that wrote the file.
        6: optional created_by: String,
        /// Sort order of each leaf column's statistics.
        7: optional column_orders: Vec<ColumnOrder>,
        /// Encryption algorithm (plaintext-footer encrypted files only).
        8: optional encryption_algorithm: EncryptionAlgorithm,
        /// Key metadata of the footer signing key.
        9: optional footer_signing_key_metadata: Vec<u8>,
    }
}
