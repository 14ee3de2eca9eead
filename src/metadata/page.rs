//! Page headers and the page index structs of `parquet.thrift`, each one
//! [`thrift_struct!`] declaration.

use super::file::Statistics;
use super::types::{BoundaryOrder, Encoding, PageType};

thrift_struct! {
    in_place;
    /// Header of a v1 data page.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct DataPageHeader {
        /// Number of values, nulls included.
        1: required num_values: i32,
        /// Encoding of the values.
        2: required encoding: Encoding,
        /// Encoding of the definition levels.
        3: required definition_level_encoding: Encoding,
        /// Encoding of the repetition levels.
        4: required repetition_level_encoding: Encoding,
        /// Page statistics.
        5: optional statistics: Statistics,
    }
}

thrift_struct! {
    in_place;
    /// Header of a v2 data page (levels uncompressed, before the values).
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct DataPageHeaderV2 {
        /// Number of values, nulls included.
        1: required num_values: i32,
        /// Number of nulls.
        2: required num_nulls: i32,
        /// Number of rows.
        3: required num_rows: i32,
        /// Encoding of the values.
        4: required encoding: Encoding,
        /// Bytes of the definition levels.
        5: required definition_levels_byte_length: i32,
        /// Bytes of the repetition levels.
        6: required repetition_levels_byte_length: i32,
        /// Whether the values section is compressed; absent means true
        /// (see [`values_compressed`](Self::values_compressed)).
        7: optional is_compressed: bool,
        /// Page statistics.
        8: optional statistics: Statistics,
    }
}

impl DataPageHeaderV2 {
    /// Whether the values section is compressed (the spec's default is true).
    pub fn values_compressed(&self) -> bool {
        self.is_compressed.unwrap_or(true)
    }
}

thrift_struct! {
    in_place;
    /// Header of a dictionary page.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct DictionaryPageHeader {
        /// Number of dictionary entries.
        1: required num_values: i32,
        /// Encoding of the entries (PLAIN or PLAIN_DICTIONARY).
        2: required encoding: Encoding,
        /// Whether the entries are sorted ascending.
        3: optional is_sorted: bool,
    }
}

thrift_struct! {
    in_place;
    /// Header of an index page (empty in the spec; any content is skipped).
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct IndexPageHeader {}
}

thrift_struct! {
    in_place;
    /// Header in front of every page.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct PageHeader {
        /// Kind of page; says which of the `*_header` fields is set.
        1: required type_ as "type": PageType,
        /// Bytes of the page after decompression, header excluded.
        2: required uncompressed_page_size: i32,
        /// Bytes of the page as stored, header excluded.
        3: required compressed_page_size: i32,
        /// CRC-32 of the stored page bytes.
        4: optional crc: i32,
        /// Set for v1 data pages.
        5: optional data_page_header: DataPageHeader,
        /// Set for index pages.
        6: optional index_page_header: IndexPageHeader,
        /// Set for dictionary pages.
        7: optional dictionary_page_header: DictionaryPageHeader,
        /// Set for v2 data pages.
        8: optional data_page_header_v2: DataPageHeaderV2,
    }
}

thrift_struct! {
    in_place;
    /// Location of one data page, for the offset index.
    #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
    pub struct PageLocation {
        /// File offset of the page header.
        1: required offset: i64,
        /// Bytes of the page, header included.
        2: required compressed_page_size: i32,
        /// Index in the row group of the page's first row.
        3: required first_row_index: i64,
    }
}

thrift_struct! {
    in_place;
    /// Offset index of a column chunk: where each data page is.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct OffsetIndex {
        /// Page locations, by increasing offset.
        1: required page_locations: Vec<PageLocation>,
        /// Unencoded BYTE_ARRAY bytes per page.
        2: optional unencoded_byte_array_data_bytes: Vec<i64>,
    }
}

thrift_struct! {
    in_place;
    /// Column index of a column chunk: min/max and null counts per page.
    #[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
    pub struct ColumnIndex {
        /// Whether each page holds only nulls (its min/max are then empty).
        1: required null_pages: Vec<bool>,
        /// Lower bound per page.
        2: required min_values: Vec<Vec<u8>>,
        /// Upper bound per page.
        3: required max_values: Vec<Vec<u8>>,
        /// Whether the bounds are ordered.
        4: required boundary_order: BoundaryOrder,
        /// Null count per page.
        5: optional null_counts: Vec<i64>,
        /// Repetition level histograms of all pages, concatenated.
        6: optional repetition_level_histograms: Vec<i64>,
        /// Definition level histograms of all pages, concatenated.
        7: optional definition_level_histograms: Vec<i64>,
        /// NaN count per page.
        8: optional nan_counts: Vec<i64>,
    }
}
