//! Page headers and the page index structs of `parquet.thrift`.

use super::file::{read_i64_list, Statistics};
use super::thrift::{ty, CompactReader, CompactWriter};
use super::types::{BoundaryOrder, Encoding, PageType};
use crate::Result;

/// Header of a v1 data page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DataPageHeader {
    /// Number of values, nulls included.
    pub num_values: i32,
    /// Encoding of the values.
    pub encoding: Encoding,
    /// Encoding of the definition levels.
    pub definition_level_encoding: Encoding,
    /// Encoding of the repetition levels.
    pub repetition_level_encoding: Encoding,
    /// Page statistics.
    pub statistics: Option<Statistics>,
}

impl DataPageHeader {
    /// Reads a `DataPageHeader` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let (mut nv, mut enc, mut def, mut rep, mut statistics) = (None, None, None, None, None);
        r.read_struct("DataPageHeader", |r, id, t| {
            match id {
                1 => nv = Some(r.i32(t)?),
                2 => enc = Some(Encoding(r.i32(t)?)),
                3 => def = Some(Encoding(r.i32(t)?)),
                4 => rep = Some(Encoding(r.i32(t)?)),
                5 => statistics = Some(r.struct_value(t, Statistics::read)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(DataPageHeader {
            num_values: r.required(nv, "DataPageHeader.num_values")?,
            encoding: r.required(enc, "DataPageHeader.encoding")?,
            definition_level_encoding: r
                .required(def, "DataPageHeader.definition_level_encoding")?,
            repetition_level_encoding: r
                .required(rep, "DataPageHeader.repetition_level_encoding")?,
            statistics,
        })
    }

    /// Writes a `DataPageHeader` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i32_field(1, self.num_values);
        w.i32_field(2, self.encoding.0);
        w.i32_field(3, self.definition_level_encoding.0);
        w.i32_field(4, self.repetition_level_encoding.0);
        if let Some(s) = &self.statistics {
            w.field_header(ty::STRUCT, 5);
            s.write(w);
        }
        w.struct_end();
    }
}

/// Header of a v2 data page (levels uncompressed, before the values).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DataPageHeaderV2 {
    /// Number of values, nulls included.
    pub num_values: i32,
    /// Number of nulls.
    pub num_nulls: i32,
    /// Number of rows.
    pub num_rows: i32,
    /// Encoding of the values.
    pub encoding: Encoding,
    /// Bytes of the definition levels.
    pub definition_levels_byte_length: i32,
    /// Bytes of the repetition levels.
    pub repetition_levels_byte_length: i32,
    /// Whether the values section is compressed; absent means true
    /// (see [`values_compressed`](Self::values_compressed)).
    pub is_compressed: Option<bool>,
    /// Page statistics.
    pub statistics: Option<Statistics>,
}

impl DataPageHeaderV2 {
    /// Whether the values section is compressed (the spec's default is true).
    pub fn values_compressed(&self) -> bool {
        self.is_compressed.unwrap_or(true)
    }

    /// Reads a `DataPageHeaderV2` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut h = DataPageHeaderV2::default();
        let mut req: [Option<i32>; 6] = [None; 6];
        r.read_struct("DataPageHeaderV2", |r, id, t| {
            match id {
                1..=6 => req[id as usize - 1] = Some(r.i32(t)?),
                7 => h.is_compressed = Some(r.bool(t)?),
                8 => h.statistics = Some(r.struct_value(t, Statistics::read)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        h.num_values = r.required(req[0], "DataPageHeaderV2.num_values")?;
        h.num_nulls = r.required(req[1], "DataPageHeaderV2.num_nulls")?;
        h.num_rows = r.required(req[2], "DataPageHeaderV2.num_rows")?;
        h.encoding = Encoding(r.required(req[3], "DataPageHeaderV2.encoding")?);
        h.definition_levels_byte_length =
            r.required(req[4], "DataPageHeaderV2.definition_levels_byte_length")?;
        h.repetition_levels_byte_length =
            r.required(req[5], "DataPageHeaderV2.repetition_levels_byte_length")?;
        Ok(h)
    }

    /// Writes a `DataPageHeaderV2` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i32_field(1, self.num_values);
        w.i32_field(2, self.num_nulls);
        w.i32_field(3, self.num_rows);
        w.i32_field(4, self.encoding.0);
        w.i32_field(5, self.definition_levels_byte_length);
        w.i32_field(6, self.repetition_levels_byte_length);
        if let Some(v) = self.is_compressed {
            w.bool_field(7, v);
        }
        if let Some(s) = &self.statistics {
            w.field_header(ty::STRUCT, 8);
            s.write(w);
        }
        w.struct_end();
    }
}

/// Header of a dictionary page.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct DictionaryPageHeader {
    /// Number of dictionary entries.
    pub num_values: i32,
    /// Encoding of the entries (PLAIN or PLAIN_DICTIONARY).
    pub encoding: Encoding,
    /// Whether the entries are sorted ascending.
    pub is_sorted: Option<bool>,
}

impl DictionaryPageHeader {
    /// Reads a `DictionaryPageHeader` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let (mut nv, mut enc, mut is_sorted) = (None, None, None);
        r.read_struct("DictionaryPageHeader", |r, id, t| {
            match id {
                1 => nv = Some(r.i32(t)?),
                2 => enc = Some(Encoding(r.i32(t)?)),
                3 => is_sorted = Some(r.bool(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(DictionaryPageHeader {
            num_values: r.required(nv, "DictionaryPageHeader.num_values")?,
            encoding: r.required(enc, "DictionaryPageHeader.encoding")?,
            is_sorted,
        })
    }

    /// Writes a `DictionaryPageHeader` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i32_field(1, self.num_values);
        w.i32_field(2, self.encoding.0);
        if let Some(v) = self.is_sorted {
            w.bool_field(3, v);
        }
        w.struct_end();
    }
}

/// Header of an index page (empty in the spec).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct IndexPageHeader {}

impl IndexPageHeader {
    /// Reads an `IndexPageHeader` struct (skipping any content).
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        r.read_struct("IndexPageHeader", |r, _, t| r.skip(t))?;
        Ok(IndexPageHeader {})
    }

    /// Writes an `IndexPageHeader` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.struct_end();
    }
}

/// Header in front of every page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct PageHeader {
    /// Kind of page; says which of the `*_header` fields is set.
    pub type_: PageType,
    /// Bytes of the page after decompression, header excluded.
    pub uncompressed_page_size: i32,
    /// Bytes of the page as stored, header excluded.
    pub compressed_page_size: i32,
    /// CRC-32 of the stored page bytes.
    pub crc: Option<i32>,
    /// Set for v1 data pages.
    pub data_page_header: Option<DataPageHeader>,
    /// Set for index pages.
    pub index_page_header: Option<IndexPageHeader>,
    /// Set for dictionary pages.
    pub dictionary_page_header: Option<DictionaryPageHeader>,
    /// Set for v2 data pages.
    pub data_page_header_v2: Option<DataPageHeaderV2>,
}

impl PageHeader {
    /// Reads a `PageHeader` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut h = PageHeader::default();
        let (mut type_, mut unc, mut comp) = (None, None, None);
        r.read_struct("PageHeader", |r, id, t| {
            match id {
                1 => type_ = Some(PageType(r.i32(t)?)),
                2 => unc = Some(r.i32(t)?),
                3 => comp = Some(r.i32(t)?),
                4 => h.crc = Some(r.i32(t)?),
                5 => h.data_page_header = Some(r.struct_value(t, DataPageHeader::read)?),
                6 => h.index_page_header = Some(r.struct_value(t, IndexPageHeader::read)?),
                7 => {
                    h.dictionary_page_header = Some(r.struct_value(t, DictionaryPageHeader::read)?)
                }
                8 => h.data_page_header_v2 = Some(r.struct_value(t, DataPageHeaderV2::read)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        h.type_ = r.required(type_, "PageHeader.type")?;
        h.uncompressed_page_size = r.required(unc, "PageHeader.uncompressed_page_size")?;
        h.compressed_page_size = r.required(comp, "PageHeader.compressed_page_size")?;
        Ok(h)
    }

    /// Writes a `PageHeader` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i32_field(1, self.type_.0);
        w.i32_field(2, self.uncompressed_page_size);
        w.i32_field(3, self.compressed_page_size);
        if let Some(v) = self.crc {
            w.i32_field(4, v);
        }
        if let Some(h) = &self.data_page_header {
            w.field_header(ty::STRUCT, 5);
            h.write(w);
        }
        if let Some(h) = &self.index_page_header {
            w.field_header(ty::STRUCT, 6);
            h.write(w);
        }
        if let Some(h) = &self.dictionary_page_header {
            w.field_header(ty::STRUCT, 7);
            h.write(w);
        }
        if let Some(h) = &self.data_page_header_v2 {
            w.field_header(ty::STRUCT, 8);
            h.write(w);
        }
        w.struct_end();
    }
}

/// Location of one data page, for the offset index.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct PageLocation {
    /// File offset of the page header.
    pub offset: i64,
    /// Bytes of the page, header included.
    pub compressed_page_size: i32,
    /// Index in the row group of the page's first row.
    pub first_row_index: i64,
}

impl PageLocation {
    /// Reads a `PageLocation` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let (mut offset, mut size, mut first) = (None, None, None);
        r.read_struct("PageLocation", |r, id, t| {
            match id {
                1 => offset = Some(r.i64(t)?),
                2 => size = Some(r.i32(t)?),
                3 => first = Some(r.i64(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(PageLocation {
            offset: r.required(offset, "PageLocation.offset")?,
            compressed_page_size: r.required(size, "PageLocation.compressed_page_size")?,
            first_row_index: r.required(first, "PageLocation.first_row_index")?,
        })
    }

    /// Writes a `PageLocation` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.i64_field(1, self.offset);
        w.i32_field(2, self.compressed_page_size);
        w.i64_field(3, self.first_row_index);
        w.struct_end();
    }
}

/// Offset index of a column chunk: where each data page is.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct OffsetIndex {
    /// Page locations, by increasing offset.
    pub page_locations: Vec<PageLocation>,
    /// Unencoded BYTE_ARRAY bytes per page.
    pub unencoded_byte_array_data_bytes: Option<Vec<i64>>,
}

impl OffsetIndex {
    /// Reads an `OffsetIndex` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let (mut locs, mut unenc) = (None, None);
        r.read_struct("OffsetIndex", |r, id, t| {
            match id {
                1 => locs = Some(r.list(t, |r, et| r.struct_value(et, PageLocation::read))?),
                2 => unenc = Some(read_i64_list(r, t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        Ok(OffsetIndex {
            page_locations: r.required(locs, "OffsetIndex.page_locations")?,
            unencoded_byte_array_data_bytes: unenc,
        })
    }

    /// Writes an `OffsetIndex` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.list_field(1, ty::STRUCT, self.page_locations.len());
        for p in &self.page_locations {
            p.write(w);
        }
        if let Some(v) = &self.unencoded_byte_array_data_bytes {
            write_i64s(w, 2, v);
        }
        w.struct_end();
    }
}

fn write_i64s(w: &mut CompactWriter<'_>, id: i16, v: &[i64]) {
    w.list_field(id, ty::I64, v.len());
    for &x in v {
        w.write_i64(x);
    }
}

/// Column index of a column chunk: min/max and null counts per page.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct ColumnIndex {
    /// Whether each page holds only nulls (its min/max are then empty).
    pub null_pages: Vec<bool>,
    /// Lower bound per page.
    pub min_values: Vec<Vec<u8>>,
    /// Upper bound per page.
    pub max_values: Vec<Vec<u8>>,
    /// Whether the bounds are ordered.
    pub boundary_order: BoundaryOrder,
    /// Null count per page.
    pub null_counts: Option<Vec<i64>>,
    /// Repetition level histograms of all pages, concatenated.
    pub repetition_level_histograms: Option<Vec<i64>>,
    /// Definition level histograms of all pages, concatenated.
    pub definition_level_histograms: Option<Vec<i64>>,
    /// NaN count per page.
    pub nan_counts: Option<Vec<i64>>,
}

impl ColumnIndex {
    /// Reads a `ColumnIndex` struct.
    pub fn read(r: &mut CompactReader<'_>) -> Result<Self> {
        let mut c = ColumnIndex::default();
        let (mut nulls, mut mins, mut maxs, mut order) = (None, None, None, None);
        r.read_struct("ColumnIndex", |r, id, t| {
            match id {
                1 => nulls = Some(r.list(t, |r, et| r.bool(et))?),
                2 => mins = Some(r.list(t, |r, et| r.bytes(et))?),
                3 => maxs = Some(r.list(t, |r, et| r.bytes(et))?),
                4 => order = Some(BoundaryOrder(r.i32(t)?)),
                5 => c.null_counts = Some(read_i64_list(r, t)?),
                6 => c.repetition_level_histograms = Some(read_i64_list(r, t)?),
                7 => c.definition_level_histograms = Some(read_i64_list(r, t)?),
                8 => c.nan_counts = Some(read_i64_list(r, t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })?;
        c.null_pages = r.required(nulls, "ColumnIndex.null_pages")?;
        c.min_values = r.required(mins, "ColumnIndex.min_values")?;
        c.max_values = r.required(maxs, "ColumnIndex.max_values")?;
        c.boundary_order = r.required(order, "ColumnIndex.boundary_order")?;
        Ok(c)
    }

    /// Writes a `ColumnIndex` struct.
    pub fn write(&self, w: &mut CompactWriter<'_>) {
        w.struct_begin();
        w.list_field(1, ty::BOOL_ELEM, self.null_pages.len());
        for &b in &self.null_pages {
            w.write_bool_elem(b);
        }
        w.list_field(2, ty::BINARY, self.min_values.len());
        for v in &self.min_values {
            w.write_binary(v);
        }
        w.list_field(3, ty::BINARY, self.max_values.len());
        for v in &self.max_values {
            w.write_binary(v);
        }
        w.i32_field(4, self.boundary_order.0);
        if let Some(v) = &self.null_counts {
            write_i64s(w, 5, v);
        }
        if let Some(v) = &self.repetition_level_histograms {
            write_i64s(w, 6, v);
        }
        if let Some(v) = &self.definition_level_histograms {
            write_i64s(w, 7, v);
        }
        if let Some(v) = &self.nan_counts {
            write_i64s(w, 8, v);
        }
        w.struct_end();
    }
}
