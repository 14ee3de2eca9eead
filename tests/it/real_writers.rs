//! Pages that real writers emit and the spec allows, built here byte by byte: an empty values
//! section that the writer still ran its codec over. hyparquet-writer 0.17 writes an all-null
//! v2 page whose values are a 1-byte brotli stream declaring 0 uncompressed bytes; pyarrow and
//! the parquet crate read it (they skip decompression when nothing is declared).
//!
//! The files start as parq's own (one optional INT32 column, one row group, no page index),
//! then the page is rewritten and the footer's sizes and offsets follow it.

use bytes::Bytes;
use parq::codecs::compression::{new_codec, CodecKind};
#[cfg(feature = "probes")]
use parq::codecs::probe;
use parq::column::{Column, Values};
use parq::metadata::{CompactReader, CompactWriter, FileMetaData, PageHeader};
use parq::read::ParquetReader;
use parq::write::{Field, PageVersion, ParquetWriter, WriterOptions};

/// parq's file of `rows` values of an optional INT32 column, with `valid` set where not null.
fn parq_file(codec: CodecKind, version: PageVersion, valid: &[bool]) -> Vec<u8> {
    let options = (WriterOptions::default()
        .with_compression(codec)
        .with_page_version(version))
    .with_page_index(false);
    let column = Column {
        len: valid.len(),
        validity: Some(valid.to_vec().into()),
        values: Values::Int32(vec![7; valid.len()].into()), // a slot per row, nulls included
    };
    let mut file = Vec::new();
    let mut w =
        ParquetWriter::new(&mut file, vec![Field::int32("i32").optional()], options).unwrap();
    w.write_batch(&[column]).unwrap();
    w.finish().unwrap();
    file
}

/// The compressed form of nothing, as `kind`'s library writes it.
fn compressed_empty(kind: CodecKind) -> Vec<u8> {
    let mut out = Vec::new();
    new_codec(kind, None)
        .unwrap()
        .compress(&[], &mut out)
        .unwrap();
    out
}

/// Rebuilds a one-chunk file: `edit` maps the chunk's pages (header, body) to new pages, then
/// the chunk's offsets and sizes and the footer are rewritten to match.
fn rebuild(
    file: &[u8],
    edit: impl FnOnce(Vec<(PageHeader, Vec<u8>)>) -> Vec<(PageHeader, Vec<u8>)>,
) -> Vec<u8> {
    let reader = ParquetReader::new(Bytes::copy_from_slice(file)).unwrap();
    let mut meta: FileMetaData = reader.metadata().clone();
    let chunk = &meta.row_groups[0].columns[0];
    let cmeta = chunk.meta_data.as_ref().unwrap();
    let start = cmeta
        .dictionary_page_offset
        .unwrap_or(cmeta.data_page_offset) as usize;
    let end = start + cmeta.total_compressed_size as usize;
    let mut pages = Vec::new();
    let mut pos = start;
    while pos < end {
        let mut r = CompactReader::new(&file[pos..end]);
        let header = PageHeader::read(&mut r).unwrap();
        let body_start = pos + r.position();
        let body_end = body_start + header.compressed_page_size as usize;
        pages.push((header, file[body_start..body_end].to_vec()));
        pos = body_end;
    }
    let pages = edit(pages);

    let mut out = b"PAR1".to_vec();
    let (mut data_offset, mut dictionary_offset, mut uncompressed) = (None, None, 0i64);
    for (header, body) in &pages {
        let at = out.len() as i64;
        if header.dictionary_page_header.is_some() {
            dictionary_offset = Some(at);
        } else if data_offset.is_none() {
            data_offset = Some(at);
        }
        let mut encoded = Vec::new();
        header.write(&mut CompactWriter::new(&mut encoded));
        uncompressed += (encoded.len() + header.uncompressed_page_size as usize) as i64;
        out.extend_from_slice(&encoded);
        out.extend_from_slice(body);
    }
    let group = &mut meta.row_groups[0];
    let chunk = &mut group.columns[0];
    let cmeta = chunk.meta_data.as_mut().unwrap();
    cmeta.total_compressed_size = out.len() as i64 - 4;
    cmeta.total_uncompressed_size = uncompressed;
    cmeta.data_page_offset = data_offset.unwrap();
    cmeta.dictionary_page_offset = dictionary_offset;
    cmeta.bloom_filter_offset = None;
    chunk.file_offset = 4;
    chunk.offset_index_offset = None;
    chunk.offset_index_length = None;
    chunk.column_index_offset = None;
    chunk.column_index_length = None;
    group.file_offset = Some(4);
    group.total_compressed_size = Some(out.len() as i64 - 4);
    let mut footer = Vec::new();
    meta.write(&mut CompactWriter::new(&mut footer));
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    out
}

fn read_i32(file: Vec<u8>) -> parq::Result<Vec<Option<i32>>> {
    let column = ParquetReader::new(Bytes::from(file))?.read_column(0)?;
    let Values::Int32(v) = &column.values else {
        panic!("not int32")
    };
    Ok((0..column.len)
        .map(|i| {
            column
                .validity
                .as_ref()
                .is_none_or(|b| b.is_valid(i))
                .then(|| v[i])
        })
        .collect())
}

/// hyparquet's all-null v2 page: values section compressed although it declares 0 bytes.
#[test]
fn all_null_v2_page_with_a_compressed_empty_values_section_reads() {
    for kind in [
        CodecKind::Brotli,
        CodecKind::Snappy,
        CodecKind::Gzip,
        CodecKind::Zstd,
        CodecKind::Lz4Raw,
    ] {
        let file = parq_file(kind, PageVersion::V2, &[false; 5]);
        let empty = compressed_empty(kind);
        let file = rebuild(&file, |mut pages| {
            let (header, body) = pages
                .iter_mut()
                .find(|(h, _)| h.data_page_header_v2.is_some())
                .unwrap();
            let v2 = header.data_page_header_v2.as_mut().unwrap();
            let levels =
                (v2.definition_levels_byte_length + v2.repetition_levels_byte_length) as usize;
            assert_eq!(
                body.len(),
                levels,
                "{kind}: parq writes no values section for all nulls"
            );
            assert_eq!(header.uncompressed_page_size as usize, levels);
            v2.is_compressed = Some(true);
            body.extend_from_slice(&empty);
            header.compressed_page_size = body.len() as i32;
            pages
        });
        #[cfg(feature = "probes")]
        probe::reset();
        assert_eq!(
            read_i32(file).unwrap_or_else(|e| panic!("{kind}: {e}")),
            vec![None; 5],
            "{kind}"
        );
        #[cfg(feature = "probes")]
        assert_eq!(probe::get("read.v2_empty_values_compressed"), 1, "{kind}");
    }
}

/// The tolerance is only for an empty section: declared values that are missing stay an error,
/// and so does an uncompressed section whose length contradicts its header.
#[test]
fn v2_values_that_contradict_their_sizes_stay_errors() {
    let file = parq_file(CodecKind::Uncompressed, PageVersion::V2, &[false; 5]);
    let file = rebuild(&file, |mut pages| {
        let (header, body) = pages
            .iter_mut()
            .find(|(h, _)| h.data_page_header_v2.is_some())
            .unwrap();
        body.push(0);
        header.compressed_page_size = body.len() as i32;
        pages
    });
    let err = read_i32(file).unwrap_err().to_string();
    assert!(
        err.contains("uncompressed v2 values hold 1 bytes but declare 0"),
        "{err}"
    );
}

/// An empty v1 data page (0 values, 0 bytes declared) whose body is still compressed: 20 bytes
/// of gzip, 1 of snappy or brotli; before the page that holds the values.
#[test]
fn empty_v1_page_with_a_compressed_body_reads() {
    for kind in [
        CodecKind::Gzip,
        CodecKind::Snappy,
        CodecKind::Brotli,
        CodecKind::Zstd,
    ] {
        let file = parq_file(kind, PageVersion::V1, &[true, false, true]);
        let empty = compressed_empty(kind);
        let file = rebuild(&file, |mut pages| {
            let i = pages
                .iter()
                .position(|(h, _)| h.data_page_header.is_some())
                .unwrap();
            let mut header = pages[i].0.clone();
            header.uncompressed_page_size = 0;
            header.compressed_page_size = empty.len() as i32;
            header.crc = None;
            let v1 = header.data_page_header.as_mut().unwrap();
            v1.num_values = 0;
            v1.statistics = None;
            pages.insert(i, (header, empty.clone()));
            pages
        });
        #[cfg(feature = "probes")]
        probe::reset();
        assert_eq!(
            read_i32(file).unwrap_or_else(|e| panic!("{kind}: {e}")),
            vec![Some(7), None, Some(7)],
            "{kind}"
        );
        #[cfg(feature = "probes")]
        assert_eq!(probe::get("read.v1_empty_page"), 1, "{kind}");
    }
}

/// parquet-cpp up to 8 and parquetjs 1.8 write a v2 page's `num_values` into its `num_rows`
/// for a repeated column. The repetition levels decide: such a file reads as written, whole
/// and under a selection that skips pages (counted from the levels, not the header), and a
/// header that claims fewer rows than the levels hold reads the same.
#[test]
fn v2_pages_whose_num_rows_count_values_read_by_their_levels() {
    use parq::array::Value;
    use parq::read::{ReadOptions, RowSelection};
    let field = parq::field::Field::list(
        "l",
        parq::field::Field::primitive("element", parq::metadata::Type::INT64),
    )
    .optional();
    // 300 records of 0..4 elements, pages of 50 records.
    let lists: Vec<Option<Vec<i64>>> = (0..300i64)
        .map(|i| (i % 7 != 3).then(|| (0..i % 4).map(|k| i * 10 + k).collect()))
        .collect();
    let mut offsets = vec![0i32];
    let mut items = Vec::new();
    for l in &lists {
        items.extend(l.iter().flatten());
        offsets.push(items.len() as i32);
    }
    let array = parq::array::Array::List(parq::array::ListArray {
        validity: Some(arrow_buffer::NullBuffer::from(
            lists.iter().map(Option::is_some).collect::<Vec<_>>(),
        )),
        offsets: parq::array::ListOffsets::Small(arrow_buffer::OffsetBuffer::new(
            arrow_buffer::ScalarBuffer::from(offsets),
        )),
        values: Box::new(parq::array::Array::Primitive(Column {
            len: items.len(),
            validity: None,
            values: Values::Int64(items.into()),
        })),
    });
    let options = WriterOptions::default()
        .with_page_version(PageVersion::V2)
        .with_page_index(false)
        .with_data_page_row_limit(50);
    let mut file = Vec::new();
    let mut w = ParquetWriter::with_fields(&mut file, vec![field], options).unwrap();
    w.write_arrays(&[array]).unwrap();
    w.finish().unwrap();
    let values_as_rows = |pages: Vec<(PageHeader, Vec<u8>)>| {
        let mut n = 0;
        let out = pages
            .into_iter()
            .map(|(mut h, b)| {
                if let Some(v2) = h.data_page_header_v2.as_mut() {
                    v2.num_rows = v2.num_values;
                    n += 1;
                }
                (h, b)
            })
            .collect();
        assert!(n >= 6, "{n} v2 pages");
        out
    };
    let one_row_each = |pages: Vec<(PageHeader, Vec<u8>)>| {
        pages
            .into_iter()
            .map(|(mut h, b)| {
                if let Some(v2) = h.data_page_header_v2.as_mut() {
                    v2.num_rows = 1;
                }
                (h, b)
            })
            .collect()
    };
    let want = |sel: Option<&RowSelection>| -> Vec<Value> {
        let reader = ParquetReader::new(Bytes::from(file.clone())).unwrap();
        let all = reader.read_field(0).unwrap().1;
        (0..all.len())
            .filter(|&i| sel.is_none_or(|s| s.contains(i as u64)))
            .map(|i| all.value(i))
            .collect()
    };
    let sel = RowSelection::from_ranges([120..130, 260..261]);
    for edited in [rebuild(&file, values_as_rows), rebuild(&file, one_row_each)] {
        for sel in [None, Some(&sel)] {
            let options = ReadOptions::default().with_selection(sel.cloned());
            let want = want(sel);
            #[cfg(feature = "probes")]
            probe::reset();
            let reader = ParquetReader::with_options(Bytes::from(edited.clone()), options).unwrap();
            let got = reader.read_field(0).unwrap().1;
            let got: Vec<Value> = (0..got.len()).map(|i| got.value(i)).collect();
            assert_eq!(got, want, "selection {sel:?}");
            // The selection touches two of six pages: the others are skipped undecoded.
            #[cfg(feature = "probes")]
            if sel.is_some() {
                assert_eq!(probe::get("read.pages_decoded"), 2);
                assert_eq!(probe::get("read.pages_skipped"), 4);
            }
        }
    }
}
