//! The footer structs of `parquet.thrift`: [`FileMetaData`] and everything inside it.

use super::thrift::{ty, CompactReader, CompactWriter};
use super::types::{
    ColumnOrder, CompressionCodec, ConvertedType, Encoding, FieldRepetitionType, LogicalType,
    PageType, Type,
};
use crate::Result;

fn write_kv_list(w: &mut CompactWriter<'_>, id: i16, kvs: &[KeyValue]) {
    w.list_field(id, ty::STRUCT, kvs.len());
    for kv in kvs {
        kv.write(w);
    }
}

fn write_i64_list(w: &mut CompactWriter<'_>, id: i16, v: &[i64]) {
    w.list_field(id, ty::I64, v.len());
    for &x in v {
        w.write_i64(x);
    }
}

/// Reads a `list<i64>` field value.
pub(crate) fn read_i64_list(r: &mut CompactReader<'_>, t: u8) -> Result<Vec<i64>> {
    r.list(t, |r, et| r.i64(et))
}

fn read_kv_list(r: &mut CompactReader<'_>, t: u8) -> Result<Vec<KeyValue>> {
    r.list(t, |r, et| r.struct_value(et, KeyValue::read))
}

/// Key/value metadata.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KeyValue {
    /// The key.
    pub key: String,
    /// The value, if any.
    pub value: Option<String>,
}

impl KeyValue {
    /// Reads a `KeyValue` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let (mut key, mut value) = (None, None);
        r.read_struct("KeyValue", |r, id, t| {
            match id {
                1 => key = Some(r.string(t)?),
                2 => value = Some(r.string(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(KeyValue {
            key: r.required(key, "KeyValue.key")?,
            value,
        })
    }

    /// Writes a `KeyValue` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.binary_field(1, self.key.as_bytes());
        if let Some(v) = &self.value {
            w.binary_field(2, v.as_bytes());
        }
        w.struct_end();
    }
}

/// Min/max and counts of a column chunk or page. Every field is optional.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Statistics {
    /// Deprecated max, signed comparison.
    pub max: Option<Vec<u8>>,
    /// Deprecated min, signed comparison.
    pub min: Option<Vec<u8>>,
    /// Count of nulls (absent is not zero).
    pub null_count: Option<i64>,
    /// Count of distinct values.
    pub distinct_count: Option<i64>,
    /// Upper bound under the column order.
    pub max_value: Option<Vec<u8>>,
    /// Lower bound under the column order.
    pub min_value: Option<Vec<u8>>,
    /// Whether `max_value` is the actual maximum.
    pub is_max_value_exact: Option<bool>,
    /// Whether `min_value` is the actual minimum.
    pub is_min_value_exact: Option<bool>,
    /// Count of NaN values.
    pub nan_count: Option<i64>,
}

impl Statistics {
    /// Reads a `Statistics` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut s = Statistics::default();
        r.read_struct("Statistics", |r, id, t| {
            match id {
                1 => s.max = Some(r.bytes(t)?),
                2 => s.min = Some(r.bytes(t)?),
                3 => s.null_count = Some(r.i64(t)?),
                4 => s.distinct_count = Some(r.i64(t)?),
                5 => s.max_value = Some(r.bytes(t)?),
                6 => s.min_value = Some(r.bytes(t)?),
                7 => s.is_max_value_exact = Some(r.bool(t)?),
                8 => s.is_min_value_exact = Some(r.bool(t)?),
                9 => s.nan_count = Some(r.i64(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(s)
    }

    /// Writes a `Statistics` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        if let Some(v) = &self.max {
            w.binary_field(1, v);
        }
        if let Some(v) = &self.min {
            w.binary_field(2, v);
        }
        if let Some(v) = self.null_count {
            w.i64_field(3, v);
        }
        if let Some(v) = self.distinct_count {
            w.i64_field(4, v);
        }
        if let Some(v) = &self.max_value {
            w.binary_field(5, v);
        }
        if let Some(v) = &self.min_value {
            w.binary_field(6, v);
        }
        if let Some(v) = self.is_max_value_exact {
            w.bool_field(7, v);
        }
        if let Some(v) = self.is_min_value_exact {
            w.bool_field(8, v);
        }
        if let Some(v) = self.nan_count {
            w.i64_field(9, v);
        }
        w.struct_end();
    }
}

/// Unencoded sizes and level histograms of a column chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SizeStatistics {
    /// Bytes of BYTE_ARRAY values, without length prefixes.
    pub unencoded_byte_array_data_bytes: Option<i64>,
    /// Count of each repetition level, `max_rep_level + 1` entries.
    pub repetition_level_histogram: Option<Vec<i64>>,
    /// Count of each definition level, `max_def_level + 1` entries.
    pub definition_level_histogram: Option<Vec<i64>>,
}

impl SizeStatistics {
    /// Reads a `SizeStatistics` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut s = SizeStatistics::default();
        r.read_struct("SizeStatistics", |r, id, t| {
            match id {
                1 => s.unencoded_byte_array_data_bytes = Some(r.i64(t)?),
                2 => s.repetition_level_histogram = Some(read_i64_list(r, t)?),
                3 => s.definition_level_histogram = Some(read_i64_list(r, t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(s)
    }

    /// Writes a `SizeStatistics` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        if let Some(v) = self.unencoded_byte_array_data_bytes {
            w.i64_field(1, v);
        }
        if let Some(v) = &self.repetition_level_histogram {
            write_i64_list(w, 2, v);
        }
        if let Some(v) = &self.definition_level_histogram {
            write_i64_list(w, 3, v);
        }
        w.struct_end();
    }
}

/// Bounding box of geospatial statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoundingBox {
    /// Minimum x.
    pub xmin: f64,
    /// Maximum x.
    pub xmax: f64,
    /// Minimum y.
    pub ymin: f64,
    /// Maximum y.
    pub ymax: f64,
    /// Minimum z.
    pub zmin: Option<f64>,
    /// Maximum z.
    pub zmax: Option<f64>,
    /// Minimum m.
    pub mmin: Option<f64>,
    /// Maximum m.
    pub mmax: Option<f64>,
}

impl BoundingBox {
    /// Reads a `BoundingBox` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut req = [None; 4];
        let mut opt = [None; 4];
        r.read_struct("BoundingBox", |r, id, t| {
            match id {
                1..=4 => req[id as usize - 1] = Some(r.double(t)?),
                5..=8 => opt[id as usize - 5] = Some(r.double(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(BoundingBox {
            xmin: r.required(req[0], "BoundingBox.xmin")?,
            xmax: r.required(req[1], "BoundingBox.xmax")?,
            ymin: r.required(req[2], "BoundingBox.ymin")?,
            ymax: r.required(req[3], "BoundingBox.ymax")?,
            zmin: opt[0],
            zmax: opt[1],
            mmin: opt[2],
            mmax: opt[3],
        })
    }

    /// Writes a `BoundingBox` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.double_field(1, self.xmin);
        w.double_field(2, self.xmax);
        w.double_field(3, self.ymin);
        w.double_field(4, self.ymax);
        for (id, v) in [
            (5, self.zmin),
            (6, self.zmax),
            (7, self.mmin),
            (8, self.mmax),
        ] {
            if let Some(v) = v {
                w.double_field(id, v);
            }
        }
        w.struct_end();
    }
}

/// Statistics of the Geometry and Geography logical types.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GeospatialStatistics {
    /// Bounding box of all values.
    pub bbox: Option<BoundingBox>,
    /// Geospatial type codes of all values (empty if unknown).
    pub geospatial_types: Option<Vec<i32>>,
}

impl GeospatialStatistics {
    /// Reads a `GeospatialStatistics` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut s = GeospatialStatistics::default();
        r.read_struct("GeospatialStatistics", |r, id, t| {
            match id {
                1 => s.bbox = Some(r.struct_value(t, BoundingBox::read)?),
                2 => s.geospatial_types = Some(r.list(t, |r, et| r.i32(et))?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(s)
    }

    /// Writes a `GeospatialStatistics` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        if let Some(b) = &self.bbox {
            w.field_header(ty::STRUCT, 1);
            b.write(w);
        }
        if let Some(v) = &self.geospatial_types {
            w.list_field(2, ty::I32, v.len());
            for &x in v {
                w.write_i32(x);
            }
        }
        w.struct_end();
    }
}

/// One node of the flattened schema (depth-first, groups carry `num_children`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SchemaElement {
    /// Physical type; set for leaves only.
    pub type_: Option<Type>,
    /// Byte width for FIXED_LEN_BYTE_ARRAY.
    pub type_length: Option<i32>,
    /// Repetition; unset on the root.
    pub repetition_type: Option<FieldRepetitionType>,
    /// Field name.
    pub name: String,
    /// Number of children; set for groups only.
    pub num_children: Option<i32>,
    /// Deprecated logical annotation.
    pub converted_type: Option<ConvertedType>,
    /// Decimal scale (deprecated, mirrors the logical type).
    pub scale: Option<i32>,
    /// Decimal precision (deprecated, mirrors the logical type).
    pub precision: Option<i32>,
    /// Field id of the original schema.
    pub field_id: Option<i32>,
    /// Logical annotation.
    pub logical_type: Option<LogicalType>,
    /// Element slots per parent occurrence for VECTOR repetition.
    pub vector_length: Option<i32>,
}

impl SchemaElement {
    /// Reads a `SchemaElement` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut s = SchemaElement::default();
        let mut name = None;
        r.read_struct("SchemaElement", |r, id, t| {
            match id {
                1 => s.type_ = Some(Type(r.i32(t)?)),
                2 => s.type_length = Some(r.i32(t)?),
                3 => s.repetition_type = Some(FieldRepetitionType(r.i32(t)?)),
                4 => name = Some(r.string(t)?),
                5 => s.num_children = Some(r.i32(t)?),
                6 => s.converted_type = Some(ConvertedType(r.i32(t)?)),
                7 => s.scale = Some(r.i32(t)?),
                8 => s.precision = Some(r.i32(t)?),
                9 => s.field_id = Some(r.i32(t)?),
                10 => s.logical_type = Some(r.struct_value(t, LogicalType::read)?),
                11 => s.vector_length = Some(r.i32(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        s.name = r.required(name, "SchemaElement.name")?;
        Ok(s)
    }

    /// Writes a `SchemaElement` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        if let Some(v) = self.type_ {
            w.i32_field(1, v.0);
        }
        if let Some(v) = self.type_length {
            w.i32_field(2, v);
        }
        if let Some(v) = self.repetition_type {
            w.i32_field(3, v.0);
        }
        w.binary_field(4, self.name.as_bytes());
        if let Some(v) = self.num_children {
            w.i32_field(5, v);
        }
        if let Some(v) = self.converted_type {
            w.i32_field(6, v.0);
        }
        if let Some(v) = self.scale {
            w.i32_field(7, v);
        }
        if let Some(v) = self.precision {
            w.i32_field(8, v);
        }
        if let Some(v) = self.field_id {
            w.i32_field(9, v);
        }
        if let Some(v) = &self.logical_type {
            w.field_header(ty::STRUCT, 10);
            v.write(w);
        }
        if let Some(v) = self.vector_length {
            w.i32_field(11, v);
        }
        w.struct_end();
    }
}

/// Count of pages of one type and encoding in a column chunk.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PageEncodingStats {
    /// The page type.
    pub page_type: PageType,
    /// The encoding.
    pub encoding: Encoding,
    /// Number of such pages.
    pub count: i32,
}

impl PageEncodingStats {
    /// Reads a `PageEncodingStats` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let (mut page_type, mut encoding, mut count) = (None, None, None);
        r.read_struct("PageEncodingStats", |r, id, t| {
            match id {
                1 => page_type = Some(PageType(r.i32(t)?)),
                2 => encoding = Some(Encoding(r.i32(t)?)),
                3 => count = Some(r.i32(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(PageEncodingStats {
            page_type: r.required(page_type, "PageEncodingStats.page_type")?,
            encoding: r.required(encoding, "PageEncodingStats.encoding")?,
            count: r.required(count, "PageEncodingStats.count")?,
        })
    }

    /// Writes a `PageEncodingStats` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i32_field(1, self.page_type.0);
        w.i32_field(2, self.encoding.0);
        w.i32_field(3, self.count);
        w.struct_end();
    }
}

/// Metadata of one column chunk: type, codec, sizes, offsets, statistics.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColumnMetaData {
    /// Physical type.
    pub type_: Type,
    /// All encodings used in the chunk.
    pub encodings: Vec<Encoding>,
    /// Path of the leaf in the schema.
    pub path_in_schema: Vec<String>,
    /// Compression codec.
    pub codec: CompressionCodec,
    /// Number of values, nulls included.
    pub num_values: i64,
    /// Uncompressed bytes of all pages, headers included.
    pub total_uncompressed_size: i64,
    /// Compressed bytes of all pages, headers included.
    pub total_compressed_size: i64,
    /// Key/value metadata.
    pub key_value_metadata: Option<Vec<KeyValue>>,
    /// File offset of the first data page.
    pub data_page_offset: i64,
    /// File offset of the root index page.
    pub index_page_offset: Option<i64>,
    /// File offset of the dictionary page.
    pub dictionary_page_offset: Option<i64>,
    /// Chunk statistics.
    pub statistics: Option<Statistics>,
    /// Page counts per type and encoding.
    pub encoding_stats: Option<Vec<PageEncodingStats>>,
    /// File offset of the Bloom filter.
    pub bloom_filter_offset: Option<i64>,
    /// Bytes of the Bloom filter, header included.
    pub bloom_filter_length: Option<i32>,
    /// Unencoded sizes and level histograms.
    pub size_statistics: Option<SizeStatistics>,
    /// Geospatial statistics.
    pub geospatial_statistics: Option<GeospatialStatistics>,
}

impl ColumnMetaData {
    /// Reads a `ColumnMetaData` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut m = ColumnMetaData::default();
        let (mut type_, mut encodings, mut path, mut codec) = (None, None, None, None);
        let (mut num_values, mut unc, mut comp, mut dpo) = (None, None, None, None);
        r.read_struct("ColumnMetaData", |r, id, t| {
            match id {
                1 => type_ = Some(Type(r.i32(t)?)),
                2 => encodings = Some(r.list(t, |r, et| Ok(Encoding(r.i32(et)?)))?),
                3 => path = Some(r.list(t, |r, et| r.string(et))?),
                4 => codec = Some(CompressionCodec(r.i32(t)?)),
                5 => num_values = Some(r.i64(t)?),
                6 => unc = Some(r.i64(t)?),
                7 => comp = Some(r.i64(t)?),
                8 => m.key_value_metadata = Some(read_kv_list(r, t)?),
                9 => dpo = Some(r.i64(t)?),
                10 => m.index_page_offset = Some(r.i64(t)?),
                11 => m.dictionary_page_offset = Some(r.i64(t)?),
                12 => m.statistics = Some(r.struct_value(t, Statistics::read)?),
                13 => {
                    m.encoding_stats =
                        Some(r.list(t, |r, et| r.struct_value(et, PageEncodingStats::read))?)
                }
                14 => m.bloom_filter_offset = Some(r.i64(t)?),
                15 => m.bloom_filter_length = Some(r.i32(t)?),
                16 => m.size_statistics = Some(r.struct_value(t, SizeStatistics::read)?),
                17 => {
                    m.geospatial_statistics = Some(r.struct_value(t, GeospatialStatistics::read)?)
                }
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        m.type_ = r.required(type_, "ColumnMetaData.type")?;
        m.encodings = r.required(encodings, "ColumnMetaData.encodings")?;
        m.path_in_schema = r.required(path, "ColumnMetaData.path_in_schema")?;
        m.codec = r.required(codec, "ColumnMetaData.codec")?;
        m.num_values = r.required(num_values, "ColumnMetaData.num_values")?;
        m.total_uncompressed_size = r.required(unc, "ColumnMetaData.total_uncompressed_size")?;
        m.total_compressed_size = r.required(comp, "ColumnMetaData.total_compressed_size")?;
        m.data_page_offset = r.required(dpo, "ColumnMetaData.data_page_offset")?;
        Ok(m)
    }

    /// Writes a `ColumnMetaData` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i32_field(1, self.type_.0);
        w.list_field(2, ty::I32, self.encodings.len());
        for e in &self.encodings {
            w.write_i32(e.0);
        }
        w.list_field(3, ty::BINARY, self.path_in_schema.len());
        for p in &self.path_in_schema {
            w.write_binary(p.as_bytes());
        }
        w.i32_field(4, self.codec.0);
        w.i64_field(5, self.num_values);
        w.i64_field(6, self.total_uncompressed_size);
        w.i64_field(7, self.total_compressed_size);
        if let Some(kv) = &self.key_value_metadata {
            write_kv_list(w, 8, kv);
        }
        w.i64_field(9, self.data_page_offset);
        if let Some(v) = self.index_page_offset {
            w.i64_field(10, v);
        }
        if let Some(v) = self.dictionary_page_offset {
            w.i64_field(11, v);
        }
        if let Some(s) = &self.statistics {
            w.field_header(ty::STRUCT, 12);
            s.write(w);
        }
        if let Some(v) = &self.encoding_stats {
            w.list_field(13, ty::STRUCT, v.len());
            for s in v {
                s.write(w);
            }
        }
        if let Some(v) = self.bloom_filter_offset {
            w.i64_field(14, v);
        }
        if let Some(v) = self.bloom_filter_length {
            w.i32_field(15, v);
        }
        if let Some(s) = &self.size_statistics {
            w.field_header(ty::STRUCT, 16);
            s.write(w);
        }
        if let Some(s) = &self.geospatial_statistics {
            w.field_header(ty::STRUCT, 17);
            s.write(w);
        }
        w.struct_end();
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
            let (mut path, mut key_metadata) = (None, None);
            r.read_struct("EncryptionWithColumnKey", |r, id, t| {
                match id {
                    1 => path = Some(r.list(t, |r, et| r.string(et))?),
                    2 => key_metadata = Some(r.bytes(t)?),
                    _ => r.skip(t)?,
                }
                Ok(())
            })?;
            out = Some(ColumnCryptoMetaData::EncryptionWithColumnKey {
                path_in_schema: r.required(path, "EncryptionWithColumnKey.path_in_schema")?,
                key_metadata,
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
            } => {
                w.field_header(ty::STRUCT, 2);
                w.struct_begin();
                w.list_field(1, ty::BINARY, path_in_schema.len());
                for p in path_in_schema {
                    w.write_binary(p.as_bytes());
                }
                if let Some(k) = key_metadata {
                    w.binary_field(2, k);
                }
                w.struct_end();
            }
            ColumnCryptoMetaData::Unknown { field_id } => {
                if *field_id > 0 {
                    w.empty_struct_field(*field_id);
                }
            }
        }
        w.struct_end();
    }
}

/// One column chunk of a row group.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ColumnChunk {
    /// File holding the data, relative to this one (summary files only).
    pub file_path: Option<String>,
    /// Deprecated; 0 if absent.
    pub file_offset: i64,
    /// The column metadata (optional in the spec, present in practice).
    pub meta_data: Option<ColumnMetaData>,
    /// File offset of the OffsetIndex.
    pub offset_index_offset: Option<i64>,
    /// Bytes of the OffsetIndex.
    pub offset_index_length: Option<i32>,
    /// File offset of the ColumnIndex.
    pub column_index_offset: Option<i64>,
    /// Bytes of the ColumnIndex.
    pub column_index_length: Option<i32>,
    /// Crypto metadata of an encrypted column.
    pub crypto_metadata: Option<ColumnCryptoMetaData>,
    /// Encrypted ColumnMetaData.
    pub encrypted_column_metadata: Option<Vec<u8>>,
}

impl ColumnChunk {
    /// Reads a `ColumnChunk` struct. A missing `file_offset` reads as 0 (some writers omit
    /// it; the spec gives 0 as its default).
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut c = ColumnChunk::default();
        r.read_struct("ColumnChunk", |r, id, t| {
            match id {
                1 => c.file_path = Some(r.string(t)?),
                2 => c.file_offset = r.i64(t)?,
                3 => c.meta_data = Some(r.struct_value(t, ColumnMetaData::read)?),
                4 => c.offset_index_offset = Some(r.i64(t)?),
                5 => c.offset_index_length = Some(r.i32(t)?),
                6 => c.column_index_offset = Some(r.i64(t)?),
                7 => c.column_index_length = Some(r.i32(t)?),
                8 => c.crypto_metadata = Some(r.struct_value(t, ColumnCryptoMetaData::read)?),
                9 => c.encrypted_column_metadata = Some(r.bytes(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(c)
    }

    /// Writes a `ColumnChunk` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        if let Some(p) = &self.file_path {
            w.binary_field(1, p.as_bytes());
        }
        w.i64_field(2, self.file_offset);
        if let Some(m) = &self.meta_data {
            w.field_header(ty::STRUCT, 3);
            m.write(w);
        }
        if let Some(v) = self.offset_index_offset {
            w.i64_field(4, v);
        }
        if let Some(v) = self.offset_index_length {
            w.i32_field(5, v);
        }
        if let Some(v) = self.column_index_offset {
            w.i64_field(6, v);
        }
        if let Some(v) = self.column_index_length {
            w.i32_field(7, v);
        }
        if let Some(c) = &self.crypto_metadata {
            w.field_header(ty::STRUCT, 8);
            c.write(w);
        }
        if let Some(v) = &self.encrypted_column_metadata {
            w.binary_field(9, v);
        }
        w.struct_end();
    }
}

/// Sort order of one column within a row group.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct SortingColumn {
    /// Leaf column index.
    pub column_idx: i32,
    /// Descending order.
    pub descending: bool,
    /// Nulls before non-null values.
    pub nulls_first: bool,
}

impl SortingColumn {
    /// Reads a `SortingColumn` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let (mut idx, mut desc, mut nf) = (None, None, None);
        r.read_struct("SortingColumn", |r, id, t| {
            match id {
                1 => idx = Some(r.i32(t)?),
                2 => desc = Some(r.bool(t)?),
                3 => nf = Some(r.bool(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(SortingColumn {
            column_idx: r.required(idx, "SortingColumn.column_idx")?,
            descending: r.required(desc, "SortingColumn.descending")?,
            nulls_first: r.required(nf, "SortingColumn.nulls_first")?,
        })
    }

    /// Writes a `SortingColumn` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i32_field(1, self.column_idx);
        w.bool_field(2, self.descending);
        w.bool_field(3, self.nulls_first);
        w.struct_end();
    }
}

/// One row group: its column chunks and row count.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RowGroup {
    /// Column chunks, in schema leaf order.
    pub columns: Vec<ColumnChunk>,
    /// Uncompressed bytes of all column data.
    pub total_byte_size: i64,
    /// Number of rows.
    pub num_rows: i64,
    /// Sort order of the rows.
    pub sorting_columns: Option<Vec<SortingColumn>>,
    /// File offset of the first page.
    pub file_offset: Option<i64>,
    /// Compressed bytes of all column data.
    pub total_compressed_size: Option<i64>,
    /// Ordinal of the row group in the file.
    pub ordinal: Option<i16>,
}

impl RowGroup {
    /// Reads a `RowGroup` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut g = RowGroup::default();
        let (mut columns, mut tbs, mut num_rows) = (None, None, None);
        r.read_struct("RowGroup", |r, id, t| {
            match id {
                1 => columns = Some(r.list(t, |r, et| r.struct_value(et, ColumnChunk::read))?),
                2 => tbs = Some(r.i64(t)?),
                3 => num_rows = Some(r.i64(t)?),
                4 => {
                    g.sorting_columns =
                        Some(r.list(t, |r, et| r.struct_value(et, SortingColumn::read))?)
                }
                5 => g.file_offset = Some(r.i64(t)?),
                6 => g.total_compressed_size = Some(r.i64(t)?),
                7 => g.ordinal = Some(r.i16(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        g.columns = r.required(columns, "RowGroup.columns")?;
        g.total_byte_size = r.required(tbs, "RowGroup.total_byte_size")?;
        g.num_rows = r.required(num_rows, "RowGroup.num_rows")?;
        Ok(g)
    }

    /// Writes a `RowGroup` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.list_field(1, ty::STRUCT, self.columns.len());
        for c in &self.columns {
            c.write(w);
        }
        w.i64_field(2, self.total_byte_size);
        w.i64_field(3, self.num_rows);
        if let Some(v) = &self.sorting_columns {
            w.list_field(4, ty::STRUCT, v.len());
            for s in v {
                s.write(w);
            }
        }
        if let Some(v) = self.file_offset {
            w.i64_field(5, v);
        }
        if let Some(v) = self.total_compressed_size {
            w.i64_field(6, v);
        }
        if let Some(v) = self.ordinal {
            w.i16_field(7, v);
        }
        w.struct_end();
    }
}

/// Parameters of the AES-GCM and AES-GCM-CTR encryption algorithms.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AesGcmParams {
    /// AAD prefix.
    pub aad_prefix: Option<Vec<u8>>,
    /// Unique file part of the AAD suffix.
    pub aad_file_unique: Option<Vec<u8>>,
    /// Whether readers must supply the AAD prefix.
    pub supply_aad_prefix: Option<bool>,
}

impl AesGcmParams {
    /// Reads an `AesGcmV1` or `AesGcmCtrV1` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut p = AesGcmParams::default();
        r.read_struct("AesGcm", |r, id, t| {
            match id {
                1 => p.aad_prefix = Some(r.bytes(t)?),
                2 => p.aad_file_unique = Some(r.bytes(t)?),
                3 => p.supply_aad_prefix = Some(r.bool(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(p)
    }

    /// Writes an `AesGcmV1` or `AesGcmCtrV1` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        if let Some(v) = &self.aad_prefix {
            w.binary_field(1, v);
        }
        if let Some(v) = &self.aad_file_unique {
            w.binary_field(2, v);
        }
        if let Some(v) = self.supply_aad_prefix {
            w.bool_field(3, v);
        }
        w.struct_end();
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

/// The file footer: schema, row groups and file-level metadata.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FileMetaData {
    /// Format version (1 and 2 are used interchangeably).
    pub version: i32,
    /// The flattened schema, root first.
    pub schema: Vec<SchemaElement>,
    /// Number of rows in the file.
    pub num_rows: i64,
    /// The row groups.
    pub row_groups: Vec<RowGroup>,
    /// Key/value metadata.
    pub key_value_metadata: Option<Vec<KeyValue>>,
    /// Application that wrote the file.
    pub created_by: Option<String>,
    /// Sort order of each leaf column's statistics.
    pub column_orders: Option<Vec<ColumnOrder>>,
    /// Encryption algorithm (plaintext-footer encrypted files only).
    pub encryption_algorithm: Option<EncryptionAlgorithm>,
    /// Key metadata of the footer signing key.
    pub footer_signing_key_metadata: Option<Vec<u8>>,
}

impl FileMetaData {
    /// Reads a `FileMetaData` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut m = FileMetaData::default();
        let (mut version, mut schema, mut num_rows, mut row_groups) = (None, None, None, None);
        r.read_struct("FileMetaData", |r, id, t| {
            match id {
                1 => version = Some(r.i32(t)?),
                2 => schema = Some(r.list(t, |r, et| r.struct_value(et, SchemaElement::read))?),
                3 => num_rows = Some(r.i64(t)?),
                4 => row_groups = Some(r.list(t, |r, et| r.struct_value(et, RowGroup::read))?),
                5 => m.key_value_metadata = Some(read_kv_list(r, t)?),
                6 => m.created_by = Some(r.string(t)?),
                7 => {
                    m.column_orders =
                        Some(r.list(t, |r, et| r.struct_value(et, ColumnOrder::read))?)
                }
                8 => m.encryption_algorithm = Some(r.struct_value(t, EncryptionAlgorithm::read)?),
                9 => m.footer_signing_key_metadata = Some(r.bytes(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        m.version = r.required(version, "FileMetaData.version")?;
        m.schema = r.required(schema, "FileMetaData.schema")?;
        m.num_rows = r.required(num_rows, "FileMetaData.num_rows")?;
        m.row_groups = r.required(row_groups, "FileMetaData.row_groups")?;
        Ok(m)
    }

    /// Writes a `FileMetaData` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i32_field(1, self.version);
        w.list_field(2, ty::STRUCT, self.schema.len());
        for s in &self.schema {
            s.write(w);
        }
        w.i64_field(3, self.num_rows);
        w.list_field(4, ty::STRUCT, self.row_groups.len());
        for g in &self.row_groups {
            g.write(w);
        }
        if let Some(kv) = &self.key_value_metadata {
            write_kv_list(w, 5, kv);
        }
        if let Some(v) = &self.created_by {
            w.binary_field(6, v.as_bytes());
        }
        if let Some(v) = &self.column_orders {
            w.list_field(7, ty::STRUCT, v.len());
            for c in v {
                c.write(w);
            }
        }
        if let Some(e) = &self.encryption_algorithm {
            w.field_header(ty::STRUCT, 8);
            e.write(w);
        }
        if let Some(v) = &self.footer_signing_key_metadata {
            w.binary_field(9, v);
        }
        w.struct_end();
    }
}
