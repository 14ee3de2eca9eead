//! Round trips of every struct, and the footers of the parquet-testing files.

use std::fmt::Debug;
use std::path::Path;

use super::*;

/// Write then read must give the original back and consume every byte; every truncation of
/// the encoding must be an error, not a panic.
fn rt<T: PartialEq + Debug>(
    v: &T,
    write: impl Fn(&T, &mut CompactWriter<'_>),
    read: impl Fn(&mut CompactReader<'_>) -> Result<T>,
) {
    let mut out = Vec::new();
    write(v, &mut CompactWriter::new(&mut out));
    let mut r = CompactReader::new(&out);
    let back = read(&mut r).unwrap_or_else(|e| panic!("{e} reading back {v:?}"));
    assert_eq!(&back, v);
    assert_eq!(r.remaining(), 0, "{v:?}");
    for n in 0..out.len() {
        assert!(
            read(&mut CompactReader::new(&out[..n])).is_err(),
            "{v:?} cut at {n}"
        );
    }
}

fn full_statistics() -> Statistics {
    Statistics {
        max: Some(vec![9, 9].into()),
        min: Some(vec![].into()),
        null_count: Some(3),
        distinct_count: Some(-1),
        max_value: Some(b"zz".to_vec().into()),
        min_value: Some(b"a".to_vec().into()),
        is_max_value_exact: Some(true),
        is_min_value_exact: Some(false),
        nan_count: Some(i64::MAX),
    }
}

fn kv(k: &str, v: Option<&str>) -> KeyValue {
    KeyValue {
        key: k.into(),
        value: v.map(Into::into),
    }
}

fn full_size_statistics() -> SizeStatistics {
    SizeStatistics {
        unencoded_byte_array_data_bytes: Some(1234),
        repetition_level_histogram: Some(vec![1, 2].into()),
        definition_level_histogram: Some((0..20).collect()),
    }
}

fn full_geo() -> GeospatialStatistics {
    GeospatialStatistics {
        bbox: Some(BoundingBox {
            xmin: -1.0,
            xmax: 1.0,
            ymin: -2.5,
            ymax: 2.5,
            zmin: Some(0.0),
            zmax: Some(10.0),
            mmin: Some(-0.0),
            mmax: Some(f64::INFINITY),
        }),
        geospatial_types: Some(vec![1, 2, 1003]),
    }
}

fn minimal_column_metadata() -> ColumnMetaData {
    ColumnMetaData {
        type_: Type::INT32,
        encodings: [].into(),
        path_in_schema: vec!["a".into()].into(),
        codec: CompressionCodec::UNCOMPRESSED,
        num_values: 0,
        total_uncompressed_size: 0,
        total_compressed_size: 0,
        data_page_offset: 4,
        ..Default::default()
    }
}

fn full_column_metadata() -> ColumnMetaData {
    ColumnMetaData {
        type_: Type::BYTE_ARRAY,
        encodings: [
            Encoding::PLAIN,
            Encoding::RLE,
            Encoding::RLE_DICTIONARY,
            Encoding(99),
        ]
        .into(),
        path_in_schema: vec!["a".into(), "list".into(), "element".into()].into(),
        codec: CompressionCodec::ZSTD,
        num_values: 1 << 40,
        total_uncompressed_size: 1 << 33,
        total_compressed_size: 12345,
        key_value_metadata: Some(vec![kv("k", Some("v")), kv("only key", None)]),
        data_page_offset: 100,
        index_page_offset: Some(50),
        dictionary_page_offset: Some(4),
        statistics: Some(full_statistics()),
        encoding_stats: Some(
            [
                PageEncodingStats {
                    page_type: PageType::DICTIONARY_PAGE,
                    encoding: Encoding::PLAIN,
                    count: 1,
                },
                PageEncodingStats {
                    page_type: PageType::DATA_PAGE_V2,
                    encoding: Encoding::RLE_DICTIONARY,
                    count: 17,
                },
            ]
            .into(),
        ),
        bloom_filter_offset: Some(9999),
        bloom_filter_length: Some(256),
        size_statistics: Some(full_size_statistics()),
        geospatial_statistics: Some(full_geo()),
    }
}

fn full_column_chunk() -> ColumnChunk {
    ColumnChunk {
        file_path: Some("other.parquet".into()),
        file_offset: 77,
        meta_data: Some(full_column_metadata()),
        offset_index_offset: Some(1000),
        offset_index_length: Some(20),
        column_index_offset: Some(1020),
        column_index_length: Some(30),
        crypto_metadata: Some(ColumnCryptoMetaData::EncryptionWithColumnKey {
            path_in_schema: vec!["a".into()],
            key_metadata: Some(vec![1, 2, 3]),
        }),
        encrypted_column_metadata: Some(vec![0xde, 0xad]),
    }
}

fn full_row_group() -> RowGroup {
    RowGroup {
        columns: vec![full_column_chunk(), ColumnChunk::default()],
        total_byte_size: 5000,
        num_rows: 10,
        sorting_columns: Some(vec![
            SortingColumn {
                column_idx: 0,
                descending: true,
                nulls_first: false,
            },
            SortingColumn {
                column_idx: 1,
                descending: false,
                nulls_first: true,
            },
        ]),
        file_offset: Some(4),
        total_compressed_size: Some(4000),
        ordinal: Some(-3),
    }
}

fn full_schema_element() -> SchemaElement {
    SchemaElement {
        type_: Some(Type::FIXED_LEN_BYTE_ARRAY),
        type_length: Some(16),
        repetition_type: Some(FieldRepetitionType::OPTIONAL),
        name: "dec".into(),
        num_children: Some(0),
        converted_type: Some(ConvertedType::DECIMAL),
        scale: Some(2),
        precision: Some(30),
        field_id: Some(-7),
        logical_type: Some(LogicalType::Decimal {
            scale: 2,
            precision: 30,
        }),
        vector_length: Some(3),
    }
}

fn full_file_metadata() -> FileMetaData {
    FileMetaData {
        version: 2,
        schema: vec![
            SchemaElement {
                name: "schema".into(),
                num_children: Some(1),
                ..Default::default()
            },
            full_schema_element(),
        ],
        num_rows: 10,
        row_groups: vec![full_row_group(), full_row_group()],
        key_value_metadata: Some(vec![kv("ARROW:schema", Some("...")), kv("é", None)]),
        created_by: Some("parq version 0.1.0".into()),
        column_orders: Some(vec![
            ColumnOrder::TypeDefinedOrder,
            ColumnOrder::Ieee754TotalOrder,
        ]),
        encryption_algorithm: Some(EncryptionAlgorithm::AesGcmV1(AesGcmParams {
            aad_prefix: Some(vec![1]),
            aad_file_unique: Some(vec![2, 3]),
            supply_aad_prefix: Some(true),
        })),
        footer_signing_key_metadata: Some(vec![4, 5, 6]),
    }
}

#[test]
fn round_trip_small_structs() {
    rt(&Statistics::default(), Statistics::write, Statistics::read);
    rt(&full_statistics(), Statistics::write, Statistics::read);
    rt(&kv("a", None), KeyValue::write, KeyValue::read);
    rt(&kv("", Some("b")), KeyValue::write, KeyValue::read);
    rt(
        &SizeStatistics::default(),
        SizeStatistics::write,
        SizeStatistics::read,
    );
    rt(
        &full_size_statistics(),
        SizeStatistics::write,
        SizeStatistics::read,
    );
    rt(
        &GeospatialStatistics::default(),
        GeospatialStatistics::write,
        GeospatialStatistics::read,
    );
    rt(
        &full_geo(),
        GeospatialStatistics::write,
        GeospatialStatistics::read,
    );
    rt(
        &BoundingBox::default(),
        BoundingBox::write,
        BoundingBox::read,
    );
    rt(
        &SortingColumn {
            column_idx: 3,
            descending: false,
            nulls_first: true,
        },
        SortingColumn::write,
        SortingColumn::read,
    );
    rt(
        &PageEncodingStats {
            page_type: PageType::DATA_PAGE,
            encoding: Encoding::BYTE_STREAM_SPLIT,
            count: 0,
        },
        PageEncodingStats::write,
        PageEncodingStats::read,
    );
    for p in [
        AesGcmParams::default(),
        AesGcmParams {
            aad_prefix: Some(vec![]),
            aad_file_unique: Some(vec![1]),
            supply_aad_prefix: Some(false),
        },
    ] {
        rt(&p, AesGcmParams::write, AesGcmParams::read);
        rt(
            &EncryptionAlgorithm::AesGcmV1(p.clone()),
            EncryptionAlgorithm::write,
            EncryptionAlgorithm::read,
        );
        rt(
            &EncryptionAlgorithm::AesGcmCtrV1(p),
            EncryptionAlgorithm::write,
            EncryptionAlgorithm::read,
        );
    }
    rt(
        &EncryptionAlgorithm::Unknown { field_id: 5 },
        EncryptionAlgorithm::write,
        EncryptionAlgorithm::read,
    );
    for c in [
        ColumnCryptoMetaData::EncryptionWithFooterKey,
        ColumnCryptoMetaData::EncryptionWithColumnKey {
            path_in_schema: vec![],
            key_metadata: None,
        },
        ColumnCryptoMetaData::Unknown { field_id: 3 },
    ] {
        rt(&c, ColumnCryptoMetaData::write, ColumnCryptoMetaData::read);
    }
}

#[test]
fn round_trip_schema_element() {
    rt(
        &SchemaElement {
            name: "root".into(),
            ..Default::default()
        },
        SchemaElement::write,
        SchemaElement::read,
    );
    rt(
        &full_schema_element(),
        SchemaElement::write,
        SchemaElement::read,
    );
    let mut e = full_schema_element();
    e.logical_type = Some(LogicalType::Timestamp {
        is_adjusted_to_utc: true,
        unit: TimeUnit::Nanos,
    });
    rt(&e, SchemaElement::write, SchemaElement::read);
}

#[test]
fn round_trip_column_chunk_and_row_group() {
    rt(
        &minimal_column_metadata(),
        ColumnMetaData::write,
        ColumnMetaData::read,
    );
    rt(
        &full_column_metadata(),
        ColumnMetaData::write,
        ColumnMetaData::read,
    );
    rt(
        &ColumnChunk::default(),
        ColumnChunk::write,
        ColumnChunk::read,
    );
    rt(&full_column_chunk(), ColumnChunk::write, ColumnChunk::read);
    rt(&RowGroup::default(), RowGroup::write, RowGroup::read);
    rt(&full_row_group(), RowGroup::write, RowGroup::read);
}

#[test]
fn round_trip_file_metadata() {
    rt(
        &FileMetaData::default(),
        FileMetaData::write,
        FileMetaData::read,
    );
    let m = full_file_metadata();
    rt(&m, FileMetaData::write, FileMetaData::read);
    let mut out = Vec::new();
    encode_file_metadata(&m, &mut out);
    assert_eq!(decode_file_metadata(&out).unwrap(), m);
}

fn full_page_headers() -> Vec<PageHeader> {
    vec![
        PageHeader {
            type_: PageType::DATA_PAGE,
            uncompressed_page_size: 100,
            compressed_page_size: 50,
            crc: Some(-123456),
            data_page_header: Some(DataPageHeader {
                num_values: 10,
                encoding: Encoding::PLAIN,
                definition_level_encoding: Encoding::RLE,
                repetition_level_encoding: Encoding::BIT_PACKED,
                statistics: Some(full_statistics()),
            }),
            ..Default::default()
        },
        PageHeader {
            type_: PageType::DICTIONARY_PAGE,
            uncompressed_page_size: 8,
            compressed_page_size: 8,
            dictionary_page_header: Some(DictionaryPageHeader {
                num_values: 2,
                encoding: Encoding::PLAIN_DICTIONARY,
                is_sorted: Some(true),
            }),
            ..Default::default()
        },
        PageHeader {
            type_: PageType::DATA_PAGE_V2,
            uncompressed_page_size: 1 << 30,
            compressed_page_size: 7,
            data_page_header_v2: Some(DataPageHeaderV2 {
                num_values: 10,
                num_nulls: 2,
                num_rows: 5,
                encoding: Encoding::DELTA_BYTE_ARRAY,
                definition_levels_byte_length: 3,
                repetition_levels_byte_length: 4,
                is_compressed: Some(false),
                statistics: Some(Statistics::default()),
            }),
            ..Default::default()
        },
        PageHeader {
            type_: PageType::INDEX_PAGE,
            index_page_header: Some(IndexPageHeader {}),
            ..Default::default()
        },
        // All four sub-headers set at once (invalid, but must round-trip).
        PageHeader {
            type_: PageType(9),
            uncompressed_page_size: -1,
            compressed_page_size: 0,
            crc: Some(0),
            data_page_header: Some(DataPageHeader::default()),
            index_page_header: Some(IndexPageHeader {}),
            dictionary_page_header: Some(DictionaryPageHeader::default()),
            data_page_header_v2: Some(DataPageHeaderV2::default()),
        },
    ]
}

#[test]
fn round_trip_page_headers() {
    for h in full_page_headers() {
        rt(&h, PageHeader::write, PageHeader::read);
        let mut out = Vec::new();
        encode_page_header(&h, &mut out);
        let len = out.len();
        out.extend_from_slice(b"page data");
        let (back, n) = decode_page_header(&out).unwrap();
        assert_eq!(back, h);
        assert_eq!(n, len);
    }
    rt(
        &DataPageHeader::default(),
        DataPageHeader::write,
        DataPageHeader::read,
    );
    rt(
        &DataPageHeaderV2::default(),
        DataPageHeaderV2::write,
        DataPageHeaderV2::read,
    );
    rt(
        &DictionaryPageHeader::default(),
        DictionaryPageHeader::write,
        DictionaryPageHeader::read,
    );
    assert!(DataPageHeaderV2::default().values_compressed());
}

#[test]
fn round_trip_page_index() {
    let ci = ColumnIndex {
        null_pages: vec![false, true, false],
        min_values: vec![b"a".to_vec(), vec![], b"c".to_vec()],
        max_values: vec![b"b".to_vec(), vec![], b"d".to_vec()],
        boundary_order: BoundaryOrder::ASCENDING,
        null_counts: Some(vec![0, 5, 1]),
        repetition_level_histograms: Some(vec![1, 2, 3, 4, 5, 6]),
        definition_level_histograms: Some(vec![6, 5, 4, 3, 2, 1]),
        nan_counts: Some(vec![0, 0, 0]),
    };
    rt(&ci, ColumnIndex::write, ColumnIndex::read);
    rt(
        &ColumnIndex::default(),
        ColumnIndex::write,
        ColumnIndex::read,
    );
    let big = ColumnIndex {
        null_pages: (0..100).map(|i| i % 3 == 0).collect(),
        min_values: vec![vec![1]; 100],
        max_values: vec![vec![2]; 100],
        ..Default::default()
    };
    rt(&big, ColumnIndex::write, ColumnIndex::read);
    let mut out = Vec::new();
    encode_column_index(&ci, &mut out);
    assert_eq!(decode_column_index(&out).unwrap(), ci);

    let oi = OffsetIndex {
        page_locations: (0..20)
            .map(|i| PageLocation {
                offset: 4 + i * 100,
                compressed_page_size: 100,
                first_row_index: i * 10,
            })
            .collect(),
        unencoded_byte_array_data_bytes: Some(vec![7; 20]),
    };
    rt(&oi, OffsetIndex::write, OffsetIndex::read);
    rt(
        &OffsetIndex::default(),
        OffsetIndex::write,
        OffsetIndex::read,
    );
    let mut out = Vec::new();
    encode_offset_index(&oi, &mut out);
    assert_eq!(decode_offset_index(&out).unwrap(), oi);
}

#[test]
fn missing_required_field_is_an_error_with_offset() {
    // A PageHeader with only `type`.
    let mut out = Vec::new();
    let mut w = CompactWriter::new(&mut out);
    w.struct_begin();
    w.i32_field(1, 0);
    w.struct_end();
    match decode_page_header(&out).unwrap_err() {
        Error::Format { what, at } => {
            assert!(what.contains("PageHeader.uncompressed_page_size"), "{what}");
            assert_eq!(at.offset, Some(out.len() as u64));
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn unknown_fields_are_skipped() {
    // A KeyValue with extra fields of every shape before and after the known ones.
    let mut out = Vec::new();
    let mut w = CompactWriter::new(&mut out);
    w.struct_begin();
    w.field_header(thrift::ty::STRUCT, 0);
    w.struct_begin();
    w.list_field(1, thrift::ty::STRUCT, 1);
    w.struct_begin();
    w.double_field(1, 1.0);
    w.struct_end();
    w.struct_end();
    w.binary_field(1, b"key");
    w.bool_field(3, true);
    w.field_header(thrift::ty::MAP, 100);
    w.write_varint(1);
    w.write_i8(((thrift::ty::BINARY << 4) | thrift::ty::BOOL_TRUE) as i8);
    w.write_binary(b"x");
    w.write_bool_elem(true);
    w.binary_field(2, b"value");
    w.i64_field(-5, 3);
    w.struct_end();
    let mut r = CompactReader::new(&out);
    assert_eq!(KeyValue::read(&mut r).unwrap(), kv("key", Some("value")));
    assert_eq!(r.remaining(), 0);
}

#[test]
fn footer_len() {
    let mut t = [0u8; 8];
    t[..4].copy_from_slice(&1234u32.to_le_bytes());
    t[4..].copy_from_slice(MAGIC);
    assert_eq!(parse_footer_len(&t).unwrap(), 1234);
    t[4..].copy_from_slice(MAGIC_ENCRYPTED);
    assert!(matches!(parse_footer_len(&t), Err(Error::Unsupported(_))));
    t[4..].copy_from_slice(b"PAR2");
    assert!(matches!(parse_footer_len(&t), Err(Error::Format { .. })));
    assert!(footer_metadata(b"PAR1PAR1").is_err());
    assert!(footer_metadata(b"PAR1\x01\x00\x00\x00PAR1").is_err());
    assert_eq!(footer_metadata(b"PAR1\x00\x00\x00\x00PAR1").unwrap(), b"");
    assert!(footer_metadata(b"PAR0\x00\x00\x00\x00PAR1").is_err());
}

fn parquet_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    v.sort();
    v
}

#[test]
fn parquet_testing_footers() {
    let dir = crate::testdata::data_dir();
    let mut files = parquet_files(&dir);
    assert!(files.len() > 50, "{}", files.len());
    let geo = dir.join("geospatial");
    if geo.is_dir() {
        files.extend(parquet_files(&geo));
    }
    let mut geo_types = 0;
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let m = decode_footer(&bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(!m.schema.is_empty(), "{name}");
        let mut out = Vec::new();
        encode_file_metadata(&m, &mut out);
        let back = decode_file_metadata(&out).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(back, m, "{name}");
        // The original encoding, re-read from our encoding, must be stable.
        let mut out2 = Vec::new();
        encode_file_metadata(&back, &mut out2);
        assert_eq!(out, out2, "{name}");
        geo_types += m
            .schema
            .iter()
            .filter(|e| {
                matches!(
                    e.logical_type,
                    Some(LogicalType::Geometry { .. } | LogicalType::Geography { .. })
                )
            })
            .count();
        if name == "alltypes_plain.parquet" {
            assert_eq!(m.num_rows, 8);
            assert_eq!(m.schema.len(), 12);
            assert_eq!(m.schema[0].num_children, Some(11));
            assert_eq!(m.row_groups[0].columns.len(), 11);
            assert_eq!(m.schema[1].name, "id");
            assert_eq!(m.schema[1].type_, Some(Type::INT32));
        }
    }
    if geo.is_dir() {
        assert!(geo_types > 0);
    }
}

#[test]
fn parquet_testing_page_indexes_and_headers() {
    let dir = crate::testdata::data_dir();
    let mut indexes = 0;
    let mut headers = 0;
    for path in parquet_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let m = decode_footer(&bytes).unwrap();
        for g in &m.row_groups {
            for c in &g.columns {
                if let (Some(o), Some(l)) = (c.column_index_offset, c.column_index_length) {
                    let s = &bytes[o as usize..o as usize + l as usize];
                    let ci = decode_column_index(s).unwrap_or_else(|e| panic!("{name}: {e}"));
                    let mut out = Vec::new();
                    encode_column_index(&ci, &mut out);
                    assert_eq!(decode_column_index(&out).unwrap(), ci);
                    indexes += 1;
                }
                if let (Some(o), Some(l)) = (c.offset_index_offset, c.offset_index_length) {
                    let s = &bytes[o as usize..o as usize + l as usize];
                    let oi = decode_offset_index(s).unwrap_or_else(|e| panic!("{name}: {e}"));
                    let mut out = Vec::new();
                    encode_offset_index(&oi, &mut out);
                    assert_eq!(decode_offset_index(&out).unwrap(), oi);
                    indexes += 1;
                }
                // The first page header of the chunk.
                let Some(md) = &c.meta_data else { continue };
                let start = md
                    .dictionary_page_offset
                    .filter(|&d| d > 0)
                    .unwrap_or(md.data_page_offset);
                if let Some(buf) = bytes.get(start.max(0) as usize..) {
                    if let Ok((h, n)) = decode_page_header(buf) {
                        assert!(n > 0);
                        let mut out = Vec::new();
                        encode_page_header(&h, &mut out);
                        assert_eq!(decode_page_header(&out).unwrap(), (h, out.len()));
                        headers += 1;
                    }
                }
            }
        }
    }
    assert!(indexes > 10, "{indexes}");
    assert!(headers > 100, "{headers}");
}

#[test]
fn bad_data_footers_do_not_panic() {
    let dir = crate::testdata::bad_data_dir();
    for path in parquet_files(&dir) {
        let bytes = std::fs::read(&path).unwrap();
        let _ = decode_footer(&bytes);
    }
}

/// Mutated real footers: decoding must return, never panic or allocate wildly.
#[test]
fn mutated_footers_do_not_panic() {
    let dir = crate::testdata::data_dir();
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    for path in parquet_files(&dir).into_iter().step_by(4) {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(meta) = footer_metadata(&bytes) else {
            continue;
        };
        for _ in 0..200 {
            let mut m = meta.to_vec();
            for _ in 0..1 + next() % 4 {
                let i = (next() % m.len() as u64) as usize;
                m[i] = next() as u8;
            }
            let cut = m.len() - (next() % 4) as usize;
            let _ = decode_file_metadata(&m[..cut]);
        }
    }
}

#[test]
fn unknown_logical_type_file() {
    let dir = crate::testdata::data_dir();
    let bytes = std::fs::read(dir.join("unknown-logical-type.parquet")).unwrap();
    let m = decode_footer(&bytes).unwrap();
    assert!(
        m.schema.iter().any(
            |e| matches!(e.logical_type, Some(LogicalType::Unknown { field_id }) if field_id > 19)
        ),
        "{:?}",
        m.schema
    );
}

/// FNV-1a, 64 bits: a short fingerprint of an encoding for the golden file.
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn encoded<T>(v: &T, write: impl Fn(&T, &mut CompactWriter<'_>)) -> Vec<u8> {
    let mut out = Vec::new();
    write(v, &mut CompactWriter::new(&mut out));
    out
}

/// One line per encoding: `label hex` for the structs built here, `label length fnv1a` for
/// the re-encoded metadata of the vendored parquet-testing files.
fn golden_lines() -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = |label: &str, bytes: &[u8]| lines.push(format!("{label} {}", hex(bytes)));
    for (label, bytes) in [
        ("statistics", encoded(&full_statistics(), Statistics::write)),
        (
            "size_statistics",
            encoded(&full_size_statistics(), SizeStatistics::write),
        ),
        ("geo", encoded(&full_geo(), GeospatialStatistics::write)),
        (
            "schema_element",
            encoded(&full_schema_element(), SchemaElement::write),
        ),
        (
            "column_metadata_minimal",
            encoded(&minimal_column_metadata(), ColumnMetaData::write),
        ),
        (
            "column_chunk",
            encoded(&full_column_chunk(), ColumnChunk::write),
        ),
        ("row_group", encoded(&full_row_group(), RowGroup::write)),
        (
            "file_metadata",
            encoded(&full_file_metadata(), FileMetaData::write),
        ),
        (
            "file_metadata_default",
            encoded(&FileMetaData::default(), FileMetaData::write),
        ),
    ] {
        line(label, &bytes);
    }
    for (i, h) in full_page_headers().iter().enumerate() {
        line(&format!("page_header_{i}"), &encoded(h, PageHeader::write));
    }
    let ci = ColumnIndex {
        null_pages: vec![false, true, false],
        min_values: vec![b"a".to_vec(), vec![], b"c".to_vec()],
        max_values: vec![b"b".to_vec(), vec![], b"d".to_vec()],
        boundary_order: BoundaryOrder::ASCENDING,
        null_counts: Some(vec![0, 5, 1]),
        repetition_level_histograms: Some(vec![1, 2, 3, 4, 5, 6]),
        definition_level_histograms: Some(vec![6, 5, 4, 3, 2, 1]),
        nan_counts: Some(vec![0, 0, 0]),
    };
    line("column_index", &encoded(&ci, ColumnIndex::write));
    let oi = OffsetIndex {
        page_locations: (0..3)
            .map(|i| PageLocation {
                offset: 4 + i * 100,
                compressed_page_size: 100,
                first_row_index: i * 10,
            })
            .collect(),
        unencoded_byte_array_data_bytes: Some(vec![7; 3]),
    };
    line("offset_index", &encoded(&oi, OffsetIndex::write));
    line(
        "bloom_header",
        &encoded(
            &BloomFilterHeader {
                num_bytes: 1024,
                algorithm: BloomFilterUnion::Known,
                hash: BloomFilterUnion::Unknown { field_id: 4 },
                compression: BloomFilterUnion::Known,
            },
            BloomFilterHeader::write,
        ),
    );
    let units = [TimeUnit::Millis, TimeUnit::Micros, TimeUnit::Nanos];
    let logical = [
        LogicalType::String,
        LogicalType::Map,
        LogicalType::List,
        LogicalType::Enum,
        LogicalType::Decimal {
            scale: 2,
            precision: 38,
        },
        LogicalType::Date,
        LogicalType::Integer {
            bit_width: 16,
            is_signed: false,
        },
        LogicalType::Null,
        LogicalType::Json,
        LogicalType::Bson,
        LogicalType::Uuid,
        LogicalType::Float16,
        LogicalType::Variant {
            specification_version: Some(1),
        },
        LogicalType::Geometry {
            crs: Some("EPSG:4326".into()),
        },
        LogicalType::Geography {
            crs: Some("OGC:CRS84".into()),
            algorithm: Some(EdgeInterpolationAlgorithm::KARNEY),
        },
        LogicalType::Vector,
        LogicalType::Unknown { field_id: 42 },
    ]
    .into_iter()
    .chain(units.iter().flat_map(|&unit| {
        [
            LogicalType::Time {
                is_adjusted_to_utc: true,
                unit,
            },
            LogicalType::Timestamp {
                is_adjusted_to_utc: false,
                unit,
            },
        ]
    }));
    for (i, lt) in logical.enumerate() {
        line(
            &format!("logical_type_{i}"),
            &encoded(&lt, LogicalType::write),
        );
    }
    for co in [
        ColumnOrder::TypeDefinedOrder,
        ColumnOrder::Ieee754TotalOrder,
        ColumnOrder::Int96TimestampOrder,
        ColumnOrder::Unknown { field_id: 7 },
    ] {
        line(&format!("{co:?}"), &encoded(&co, ColumnOrder::write));
    }
    line(
        "encryption_ctr",
        &encoded(
            &EncryptionAlgorithm::AesGcmCtrV1(AesGcmParams {
                aad_prefix: None,
                aad_file_unique: Some(vec![9; 8]),
                supply_aad_prefix: Some(false),
            }),
            EncryptionAlgorithm::write,
        ),
    );
    line(
        "crypto_footer_key",
        &encoded(
            &ColumnCryptoMetaData::EncryptionWithFooterKey,
            ColumnCryptoMetaData::write,
        ),
    );

    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data");
    let mut files = parquet_files(&dir);
    files.extend(parquet_files(&dir.join("geospatial")));
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let m = decode_footer(&bytes).unwrap();
        let mut digest = |what: &str, out: &[u8]| {
            lines.push(format!("{name}:{what} {} {:016x}", out.len(), fnv1a(out)));
        };
        let mut out = Vec::new();
        encode_file_metadata(&m, &mut out);
        digest("footer", &out);
        let (mut indexes, mut headers) = (Vec::new(), Vec::new());
        for c in m.row_groups.iter().flat_map(|g| &g.columns) {
            if let (Some(o), Some(l)) = (c.column_index_offset, c.column_index_length) {
                let ci = decode_column_index(&bytes[o as usize..][..l as usize]).unwrap();
                encode_column_index(&ci, &mut indexes);
            }
            if let (Some(o), Some(l)) = (c.offset_index_offset, c.offset_index_length) {
                let oi = decode_offset_index(&bytes[o as usize..][..l as usize]).unwrap();
                encode_offset_index(&oi, &mut indexes);
            }
            let Some(md) = &c.meta_data else { continue };
            let start = md
                .dictionary_page_offset
                .filter(|&d| d > 0)
                .unwrap_or(md.data_page_offset);
            if let Some(Ok((h, _))) = bytes.get(start.max(0) as usize..).map(decode_page_header) {
                encode_page_header(&h, &mut headers);
            }
        }
        digest("page_indexes", &indexes);
        digest("page_headers", &headers);
    }
    lines
}

/// The encoder's output, byte for byte, against `testdata/metadata-golden.txt`, which main's
/// hand-written encoders produced before the structs were declared with `thrift_struct!`.
#[test]
fn encodings_match_the_golden_file() {
    let golden = include_str!("../../testdata/metadata-golden.txt");
    let actual = golden_lines();
    let golden: Vec<&str> = golden.lines().collect();
    for (i, (want, got)) in golden.iter().zip(&actual).enumerate() {
        assert_eq!(want, got, "line {} of metadata-golden.txt", i + 1);
    }
    assert_eq!(golden.len(), actual.len(), "lines in metadata-golden.txt");
}
