//! Files that lie about sizes (issue 19), each read by `parq scan` in a child process under a
//! 256 MiB address-space cap (`prlimit --as`): a lying file must end in a clean error (exit
//! 1, `parq: error: ...`), never an abort, and the honest control beside it, same layout
//! with true sizes, must read. The files are built here, byte by byte, from the footer and
//! page header structs, so every count in them is the one the case names.
//!
//! The children run with `--max-memory 128M`: an embedder sets its budget below the memory
//! it has, and the cap then proves that nothing allocates outside the budget's accounting
//! without failing cleanly. `PARQ_HOSTILE_SEEDS=DIR` also writes the files under 64 KiB to
//! DIR (the fuzz seeds of `fuzz/seeds/read_file`).

use std::path::{Path, PathBuf};
use std::process::Command;

use parq::codecs::compression::{new_codec, CodecKind};
use parq::metadata::{
    encode_file_metadata, encode_page_header, ColumnChunk, ColumnMetaData, CompressionCodec,
    ConvertedType, DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding,
    FieldRepetitionType, FileMetaData, PageHeader, PageType, RowGroup, SchemaElement, Type,
};

/// The address-space cap of each child.
const CAP: u64 = 256 << 20;
/// The budget each child reads with.
const BUDGET: &str = "128M";
/// Slots a lying page declares: 2^27, 1 GiB of INT64.
const HUGE: u64 = 1 << 27;
/// What a page of `HUGE` slots meets under `BUDGET`, before anything is allocated for it:
/// the cap on a page's values, a 32nd of the budget (2^22).
const OVER_VALUES: &str = "exceeds the limit of 4194304 (a 32nd of --max-memory)";
/// The largest page `BUDGET` admits: a quarter of it.
const PAGE_CAP: usize = 32 << 20;

// ---------------------------------------------------------------------------------------
// Bytes of pages.

fn varint(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// RLE runs `(count, value)` of a hybrid stream of `bit_width`-bit values.
fn rle(runs: &[(u64, u8)], bit_width: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for &(count, value) in runs {
        varint(count << 1, &mut out);
        out.extend(std::iter::repeat_n(value, bit_width.div_ceil(8) as usize));
    }
    out
}

/// Levels as a v1 page stores them: a 4-byte length, then the hybrid stream.
fn v1_levels(runs: &[(u64, u8)], bit_width: u32) -> Vec<u8> {
    let body = rle(runs, bit_width);
    let mut out = (body.len() as u32).to_le_bytes().to_vec();
    out.extend(body);
    out
}

fn plain_i64(values: impl IntoIterator<Item = i64>) -> Vec<u8> {
    values.into_iter().flat_map(i64::to_le_bytes).collect()
}

fn page(header: PageHeader, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    encode_page_header(&header, &mut out);
    out.extend_from_slice(body);
    out
}

/// A v1 data page of `num_values` slots over `body`, declared `uncompressed` bytes.
fn v1(num_values: u64, encoding: Encoding, body: &[u8], uncompressed: usize) -> Vec<u8> {
    page(
        PageHeader {
            type_: PageType::DATA_PAGE,
            uncompressed_page_size: uncompressed as i32,
            compressed_page_size: body.len() as i32,
            data_page_header: Some(DataPageHeader {
                num_values: num_values as i32,
                encoding,
                definition_level_encoding: Encoding::RLE,
                repetition_level_encoding: Encoding::RLE,
                statistics: None,
            }),
            ..PageHeader::default()
        },
        body,
    )
}

/// An uncompressed v1 data page.
fn v1_plain(num_values: u64, encoding: Encoding, body: &[u8]) -> Vec<u8> {
    v1(num_values, encoding, body, body.len())
}

/// An uncompressed v2 data page of a flat optional column: `def` levels (no length prefix).
fn v2(values: u64, nulls: u64, rows: u64, def: &[u8], data: &[u8]) -> Vec<u8> {
    v2_nested(values, nulls, rows, &[], def, data)
}

/// An uncompressed v2 data page with `rep` and `def` levels (no length prefixes).
fn v2_nested(values: u64, nulls: u64, rows: u64, rep: &[u8], def: &[u8], data: &[u8]) -> Vec<u8> {
    let body = [rep, def, data].concat();
    page(
        PageHeader {
            type_: PageType::DATA_PAGE_V2,
            uncompressed_page_size: body.len() as i32,
            compressed_page_size: body.len() as i32,
            data_page_header_v2: Some(DataPageHeaderV2 {
                num_values: values as i32,
                num_nulls: nulls as i32,
                num_rows: rows as i32,
                encoding: Encoding::PLAIN,
                definition_levels_byte_length: def.len() as i32,
                repetition_levels_byte_length: rep.len() as i32,
                is_compressed: Some(false),
                statistics: None,
            }),
            ..PageHeader::default()
        },
        &body,
    )
}

fn dictionary(num_values: u64, body: &[u8]) -> Vec<u8> {
    page(
        PageHeader {
            type_: PageType::DICTIONARY_PAGE,
            uncompressed_page_size: body.len() as i32,
            compressed_page_size: body.len() as i32,
            dictionary_page_header: Some(DictionaryPageHeader {
                num_values: num_values as i32,
                encoding: Encoding::PLAIN,
                is_sorted: None,
            }),
            ..PageHeader::default()
        },
        body,
    )
}

// ---------------------------------------------------------------------------------------
// Files.

fn root(children: usize) -> SchemaElement {
    SchemaElement {
        name: "schema".into(),
        num_children: Some(children as i32),
        ..SchemaElement::default()
    }
}

fn leaf(name: &str, ty: Type, rep: FieldRepetitionType) -> SchemaElement {
    SchemaElement {
        name: name.into(),
        type_: Some(ty),
        repetition_type: Some(rep),
        ..SchemaElement::default()
    }
}

fn group(name: &str, rep: FieldRepetitionType, children: usize) -> SchemaElement {
    SchemaElement {
        name: name.into(),
        repetition_type: Some(rep),
        num_children: Some(children as i32),
        ..SchemaElement::default()
    }
}

/// One column chunk: its page bytes (a dictionary page first when `dict_len > 0`), the
/// values its metadata declares.
struct Chunk {
    pages: Vec<u8>,
    dict_len: usize,
    num_values: u64,
    codec: CodecKind,
}

fn chunk(pages: Vec<u8>, num_values: u64) -> Chunk {
    Chunk {
        pages,
        dict_len: 0,
        num_values,
        codec: CodecKind::Uncompressed,
    }
}

/// A file of one row group per `(num_rows, chunks)`; the chunks follow the schema's leaves
/// (`path` names each, `ty` its type).
fn file(
    schema: Vec<SchemaElement>,
    leaves: &[(&[&str], Type)],
    groups: Vec<(u64, Vec<Chunk>)>,
) -> Vec<u8> {
    let mut out = b"PAR1".to_vec();
    let mut row_groups = Vec::new();
    let mut total_rows = 0i64;
    for (num_rows, chunks) in groups {
        let mut columns = Vec::new();
        for (c, (path, ty)) in chunks.into_iter().zip(leaves) {
            let offset = out.len() as i64;
            out.extend_from_slice(&c.pages);
            columns.push(ColumnChunk {
                file_offset: offset,
                meta_data: Some(ColumnMetaData {
                    type_: *ty,
                    encodings: [Encoding::PLAIN, Encoding::RLE].into(),
                    path_in_schema: path.iter().map(|s| s.to_string()).collect(),
                    codec: CompressionCodec(c.codec.to_thrift()),
                    num_values: c.num_values as i64,
                    total_uncompressed_size: c.pages.len() as i64,
                    total_compressed_size: c.pages.len() as i64,
                    data_page_offset: offset + c.dict_len as i64,
                    dictionary_page_offset: (c.dict_len > 0).then_some(offset),
                    ..ColumnMetaData::default()
                }),
                ..ColumnChunk::default()
            });
        }
        total_rows += num_rows as i64;
        row_groups.push(RowGroup {
            columns,
            total_byte_size: 0,
            num_rows: num_rows as i64,
            ..RowGroup::default()
        });
    }
    finish(
        out,
        FileMetaData {
            version: 2,
            schema,
            num_rows: total_rows,
            row_groups,
            ..FileMetaData::default()
        },
    )
}

fn finish(mut out: Vec<u8>, meta: FileMetaData) -> Vec<u8> {
    let mut footer = Vec::new();
    encode_file_metadata(&meta, &mut footer);
    out.extend_from_slice(&footer);
    out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
    out.extend_from_slice(b"PAR1");
    out
}

/// A flat column `v`: optional (levels) or required, INT64, one row group.
fn flat(optional: bool, num_rows: u64, c: Chunk) -> Vec<u8> {
    let rep = if optional {
        FieldRepetitionType::OPTIONAL
    } else {
        FieldRepetitionType::REQUIRED
    };
    file(
        vec![root(1), leaf("v", Type::INT64, rep)],
        &[(&["v"], Type::INT64)],
        vec![(num_rows, vec![c])],
    )
}

/// A flat optional INT64 column whose one v1 page holds `slots` nulls (one RLE run of 0s),
/// the page, the chunk and the row group declaring `page`, `chunk` and `rows`.
fn nulls_v1(page: u64, chunk_values: u64, rows: u64) -> Vec<u8> {
    let body = v1_levels(&[(page, 0)], 1);
    flat(
        true,
        rows,
        chunk(v1_plain(page, Encoding::PLAIN, &body), chunk_values),
    )
}

/// The same as a v2 page (`nulls` and `rows` as declared).
fn nulls_v2(page: u64, nulls: u64, page_rows: u64, chunk_values: u64, rows: u64) -> Vec<u8> {
    let def = rle(&[(page, 0)], 1);
    flat(
        true,
        rows,
        chunk(v2(page, nulls, page_rows, &def, &[]), chunk_values),
    )
}

/// A required INT64 column of RLE_DICTIONARY pages: a dictionary of `entries` declared over
/// `dict_values` values, one data page of `page` slots whose indices are one run of `run`,
/// in a chunk of `rows` values (and rows).
fn dictionary_file(entries: u64, dict_values: usize, page: u64, run: u64, rows: u64) -> Vec<u8> {
    let dict = dictionary(entries, &plain_i64((0..dict_values as i64).map(|i| i * 7)));
    let mut indices = vec![0u8]; // bit width 0: every index is 0
    indices.extend(rle(&[(run, 0)], 0));
    let data = v1_plain(page, Encoding::RLE_DICTIONARY, &indices);
    let dict_len = dict.len();
    flat(
        false,
        rows,
        Chunk {
            pages: [dict, data].concat(),
            dict_len,
            num_values: rows,
            codec: CodecKind::Uncompressed,
        },
    )
}

/// 1024 INT64 values (8 KiB) compressed by `codec` as `body`, declared `declared` bytes.
fn compressed_file(codec: CodecKind, body: &[u8], declared: usize) -> Vec<u8> {
    flat(
        false,
        1024,
        Chunk {
            pages: v1(1024, Encoding::PLAIN, body, declared),
            dict_len: 0,
            num_values: 1024,
            codec,
        },
    )
}

fn compress(codec: CodecKind, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    new_codec(codec, None)
        .unwrap()
        .compress(data, &mut out)
        .unwrap();
    out
}

fn pseudo_random(len: usize) -> Vec<u8> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// A zstd frame without a content size (as a streaming writer leaves it).
fn zstd_unsized(data: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut enc = zstd::stream::Encoder::new(Vec::new(), 1).unwrap();
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// `data` of `total` zero bytes in `codec`, built cheaply: gzip members and zstd frames of
/// 1 MiB repeated; the block codecs compressed whole.
fn zeros(codec: CodecKind, total: usize) -> Vec<u8> {
    match codec {
        CodecKind::Gzip | CodecKind::Zstd => {
            let piece = compress(codec, &vec![0u8; 1 << 20]);
            piece.repeat(total >> 20)
        }
        _ => compress(codec, &vec![0u8; total]),
    }
}

/// `1 + extra` schema levels of `optional group` above one INT64 leaf.
fn deep(groups: usize) -> Vec<u8> {
    let mut schema = vec![root(1)];
    for i in 0..groups {
        schema.push(group(&format!("g{i}"), FieldRepetitionType::OPTIONAL, 1));
    }
    schema.push(leaf("v", Type::INT64, FieldRepetitionType::OPTIONAL));
    let meta = FileMetaData {
        version: 2,
        schema,
        row_groups: vec![RowGroup {
            columns: vec![ColumnChunk {
                meta_data: Some(ColumnMetaData {
                    type_: Type::INT64,
                    codec: CompressionCodec(0),
                    data_page_offset: 4,
                    ..ColumnMetaData::default()
                }),
                ..ColumnChunk::default()
            }],
            ..RowGroup::default()
        }],
        ..FileMetaData::default()
    };
    finish(b"PAR1".to_vec(), meta)
}

/// `n` row groups of one row each, every chunk the same one-value page.
fn many_row_groups(n: usize) -> Vec<u8> {
    let page = v1_plain(1, Encoding::PLAIN, &plain_i64([42]));
    let mut out = b"PAR1".to_vec();
    out.extend_from_slice(&page);
    let rg = RowGroup {
        columns: vec![ColumnChunk {
            file_offset: 4,
            meta_data: Some(ColumnMetaData {
                type_: Type::INT64,
                encodings: [Encoding::PLAIN].into(),
                path_in_schema: vec!["v".into()].into(),
                codec: CompressionCodec(0),
                num_values: 1,
                total_uncompressed_size: page.len() as i64,
                total_compressed_size: page.len() as i64,
                data_page_offset: 4,
                ..ColumnMetaData::default()
            }),
            ..ColumnChunk::default()
        }],
        num_rows: 1,
        ..RowGroup::default()
    };
    let meta = FileMetaData {
        version: 2,
        schema: vec![
            root(1),
            leaf("v", Type::INT64, FieldRepetitionType::REQUIRED),
        ],
        num_rows: n as i64,
        row_groups: vec![rg; n],
        ..FileMetaData::default()
    };
    finish(out, meta)
}

/// One row group of `n` bare column chunks (no metadata) for a schema of one leaf.
fn bare_chunks(n: usize) -> Vec<u8> {
    let meta = FileMetaData {
        version: 2,
        schema: vec![
            root(1),
            leaf("v", Type::INT64, FieldRepetitionType::REQUIRED),
        ],
        row_groups: vec![RowGroup {
            columns: vec![ColumnChunk::default(); n],
            ..RowGroup::default()
        }],
        ..FileMetaData::default()
    };
    finish(b"PAR1".to_vec(), meta)
}

/// An optional FIXED_LEN_BYTE_ARRAY column of `width` bytes, one v1 page of `slots` nulls.
fn flba_nulls(width: i32, slots: u64) -> Vec<u8> {
    let body = v1_levels(&[(slots, 0)], 1);
    file(
        vec![
            root(1),
            SchemaElement {
                type_length: Some(width),
                ..leaf(
                    "f",
                    Type::FIXED_LEN_BYTE_ARRAY,
                    FieldRepetitionType::OPTIONAL,
                )
            },
        ],
        &[(&["f"], Type::FIXED_LEN_BYTE_ARRAY)],
        vec![(
            slots,
            vec![chunk(v1_plain(slots, Encoding::PLAIN, &body), slots)],
        )],
    )
}

/// One row: a list (3-level LIST, optional elements) of `elements` null elements.
fn null_list(elements: u64) -> Vec<u8> {
    let rep = v1_levels(&[(1, 0), (elements - 1, 1)], 1);
    let def = v1_levels(&[(elements, 2)], 2);
    list_file(
        v1_plain(elements, Encoding::PLAIN, &[rep, def].concat()),
        elements,
    )
}

/// The same one row in a v2 page that declares `rows` rows.
fn null_list_v2(elements: u64, rows: u64) -> Vec<u8> {
    let rep = rle(&[(1, 0), (elements - 1, 1)], 1);
    let def = rle(&[(elements, 2)], 2);
    list_file(
        v2_nested(elements, elements, rows, &rep, &def, &[]),
        elements,
    )
}

/// A list column whose levels start `records` records of one element each, in a row group
/// that declares one row: levels that invent rows.
fn list_records(records: u64) -> Vec<u8> {
    let rep = rle(&[(records, 0)], 1);
    let def = rle(&[(records, 2)], 2);
    list_file(v2_nested(records, records, 1, &rep, &def, &[]), records)
}

fn list_file(page: Vec<u8>, elements: u64) -> Vec<u8> {
    file(
        vec![
            root(1),
            SchemaElement {
                converted_type: Some(ConvertedType::LIST),
                ..group("l", FieldRepetitionType::OPTIONAL, 1)
            },
            group("list", FieldRepetitionType::REPEATED, 1),
            leaf("element", Type::INT64, FieldRepetitionType::OPTIONAL),
        ],
        &[(&["l", "list", "element"], Type::INT64)],
        vec![(1, vec![chunk(page, elements)])],
    )
}

// ---------------------------------------------------------------------------------------
// The corpus and its runner.

/// What a child must do with a file.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Expect {
    /// Exit 0: an honest control.
    Reads,
    /// Exit 1 with `parq: error:` and this in the message (the check that must catch it,
    /// so that losing one check fails the case even when another catches the lie later): a
    /// lie.
    Fails(&'static str),
}

struct Case {
    name: String,
    bytes: Vec<u8>,
    expect: Expect,
    /// The command and its arguments besides the budget and the file.
    args: &'static [&'static str],
}

fn case(name: impl Into<String>, bytes: Vec<u8>, expect: Expect) -> Case {
    Case {
        name: name.into(),
        bytes,
        expect,
        args: &["scan"],
    }
}

fn corpus() -> Vec<Case> {
    use Expect::*;
    let mut c = vec![
        // A footer of 3 rows, a page of 2^27 nulls: more rows than the footer declares,
        // whether the chunk agrees with the page or with the row group.
        case(
            "v1 page of 2^27 nulls, chunk and footer 3",
            nulls_v1(HUGE, 3, 3),
            Fails("column chunk has 3 left"),
        ),
        case(
            "v1 page of 2^27 nulls, chunk 2^27, footer 3",
            nulls_v1(HUGE, HUGE, 3),
            Fails("values for the 3 rows"),
        ),
        case(
            "v1 page of 3 nulls, footer 3 (control)",
            nulls_v1(3, 3, 3),
            Reads,
        ),
        // Consistent counts, 1 GiB of output from a 128-byte file: over the budget's cap on
        // a page's values.
        case(
            "v1 page of 2^27 nulls, footer 2^31",
            nulls_v1(HUGE, 1 << 31, 1 << 31),
            Fails(OVER_VALUES),
        ),
        case(
            "v2 page of 2^27 nulls, footer 3",
            nulls_v2(HUGE, HUGE, HUGE, 3, 3),
            Fails("column chunk has 3 left"),
        ),
        case(
            "v2 page of 2^27 nulls, footer 2^31",
            nulls_v2(HUGE, HUGE, HUGE, 1 << 31, 1 << 31),
            Fails(OVER_VALUES),
        ),
        // A v2 header's num_rows decides nothing: the levels and the footer do.
        case(
            "v2 page of 3 nulls saying 7 rows (the levels decide)",
            nulls_v2(3, 3, 7, 3, 3),
            Reads,
        ),
        case(
            "v2 page saying 1 null of 3 nulls",
            nulls_v2(3, 1, 3, 3, 3),
            Fails("says 1 nulls"),
        ),
        case(
            "v2 page of 3 nulls, footer 3 (control)",
            nulls_v2(3, 3, 3, 3, 3),
            Reads,
        ),
        // Dictionary pages.
        case(
            "dictionary page of 2^27 slots, footer 5",
            dictionary_file(1, 1, HUGE, HUGE, 5),
            Fails("column chunk has 5 left"),
        ),
        case(
            "dictionary page of 2^27 slots, footer 2^31",
            dictionary_file(1, 1, HUGE, HUGE, 1 << 31),
            Fails(OVER_VALUES),
        ),
        // A run longer than its page is read only as far as the page's 5 slots.
        case(
            "dictionary page of 5 slots, index run 2^27",
            dictionary_file(1, 1, 5, HUGE, 5),
            Reads,
        ),
        case(
            "dictionary page claiming 2^30 entries",
            dictionary_file(1 << 30, 1, 5, 5, 5),
            Fails("claims 1073741824 values"),
        ),
        case(
            "dictionary page of 5 slots (control)",
            dictionary_file(1, 1, 5, 5, 5),
            Reads,
        ),
        // Widths and shapes.
        case(
            "FLBA of 64 KiB with 2^20 nulls",
            flba_nulls(1 << 16, 1 << 20),
            Fails("memory budget"),
        ),
        case(
            "FLBA of 2^31-1 bytes",
            flba_nulls(i32::MAX, 4),
            Fails("type_length"),
        ),
        case(
            "FLBA of 16 bytes with 4 nulls (control)",
            flba_nulls(16, 4),
            Reads,
        ),
        case(
            "list of 2^27 null elements",
            null_list(HUGE),
            Fails(OVER_VALUES),
        ),
        case("list of 3 null elements (control)", null_list(3), Reads),
        // parquet-cpp up to 8 and parquetjs 1.8 write a repeated column's value count
        // there: the levels decide, and such a file reads.
        case(
            "v2 list page saying 2 rows of 1 (the levels decide)",
            null_list_v2(3, 2),
            Reads,
        ),
        case(
            "v2 list page saying 3 values are 3 rows (parquet-cpp 8)",
            null_list_v2(3, 3),
            Reads,
        ),
        case(
            "list levels of 3 records in a row group of 1",
            list_records(3),
            Fails("hold 3 records by the end of this page, more than the 1 rows"),
        ),
        case("v2 list page of 1 row (control)", null_list_v2(3, 1), Reads),
        case("10^5 nested groups", deep(100_000), Fails("nested deeper")),
        case("10 nested groups (control)", deep(10), Reads),
        case(
            "10^6 row groups",
            many_row_groups(1_000_000),
            Fails("memory budget"),
        ),
        case("1000 row groups (control)", many_row_groups(1000), Reads),
        case(
            "10^6 bare column chunks",
            bare_chunks(1_000_000),
            Fails("memory budget"),
        ),
    ];
    // The whole-column reader too, for the flat lies that pass the count checks.
    c.push(Case {
        args: &["scan", "--whole"],
        ..case(
            "v1 page of 2^27 nulls, footer 2^31, whole",
            nulls_v1(HUGE, 1 << 31, 1 << 31),
            Fails(OVER_VALUES),
        )
    });
    c.push(Case {
        args: &["scan", "--whole"],
        ..case(
            "v1 page of 3 nulls (control), whole",
            nulls_v1(3, 3, 3),
            Reads,
        )
    });
    // The reported case: a footer of 3 rows and a page of 10 values printed 10 rows. Every
    // reader refuses it: streaming, whole-column, on threads, and `cat` that prints them.
    let ten = || {
        flat(
            false,
            3,
            chunk(v1_plain(10, Encoding::PLAIN, &plain_i64(0..10)), 3),
        )
    };
    let honest = || {
        flat(
            false,
            10,
            chunk(v1_plain(10, Encoding::PLAIN, &plain_i64(0..10)), 10),
        )
    };
    for args in [
        &["scan"][..],
        &["scan", "--whole"],
        &["scan", "--threads", "2"],
        &["scan", "--whole", "--threads", "2"],
        &["cat"],
    ] {
        let what = args.join(" ");
        c.push(Case {
            args,
            ..case(
                format!("10 values, footer 3 rows: {what}"),
                ten(),
                Fails("column chunk has 3 left"),
            )
        });
        c.push(Case {
            args,
            ..case(
                format!("10 values, footer 10 rows (control): {what}"),
                honest(),
                Reads,
            )
        });
    }
    // Each codec: a page declaring 8 KiB whose bytes inflate to much more, one declaring far
    // more than its bytes inflate to, and the honest page.
    let values = plain_i64((0..1024).map(|i| i * 3 + 1));
    let random = pseudo_random(8 << 10);
    for codec in [
        CodecKind::Gzip,
        CodecKind::Zstd,
        CodecKind::Brotli,
        CodecKind::Lz4Raw,
        CodecKind::Lz4,
        CodecKind::Snappy,
    ] {
        let inflated = match codec {
            CodecKind::Gzip | CodecKind::Zstd => 1 << 30,
            _ => 64 << 20,
        };
        c.push(case(
            format!("{codec}: 8 KiB declared, {} MiB inflated", inflated >> 20),
            compressed_file(codec, &zeros(codec, inflated), 8 << 10),
            Fails(""),
        ));
        // The most the codec's ratio lets 8 KiB of bytes declare (within the budget's page
        // cap).
        let small = match codec {
            CodecKind::Zstd => zstd_unsized(&random),
            _ => compress(codec, &random),
        };
        let ratio = parq::codecs::compression::max_decompressed_len(codec, small.len()).unwrap();
        // The streaming codecs grow with the data; the others know their size from a header
        // or their bytes bound it.
        let fewer = match codec {
            CodecKind::Snappy => "length header",
            CodecKind::Lz4 => "lz4 error",
            _ => "fewer bytes than its declared size",
        };
        let declared = ratio.min(PAGE_CAP - 1);
        c.push(case(
            format!("{codec}: {declared} bytes declared, 8 KiB inflated"),
            compressed_file(codec, &small, declared),
            Fails(fewer),
        ));
        c.push(case(
            format!("{codec}: 8 KiB (control)"),
            compressed_file(codec, &compress(codec, &values), values.len()),
            Reads,
        ));
    }
    c
}

fn parq() -> &'static str {
    env!("CARGO_BIN_EXE_parq")
}

fn scratch_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("parq-hostile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `parq ARGS` on `path` under the cap; returns the exit code (`None`: killed by a
/// signal, as an abort is) and stderr.
fn run_capped(path: &Path, args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new("prlimit")
        .arg(format!("--as={CAP}"))
        .arg("--")
        .arg(parq())
        .args(args)
        .arg("--max-memory")
        .arg(BUDGET)
        .arg(path)
        .output()
        .expect("run prlimit (util-linux)");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn lying_files_fail_cleanly_and_their_controls_read_under_a_256_mib_cap() {
    let dir = scratch_dir();
    let seeds = std::env::var_os("PARQ_HOSTILE_SEEDS").map(PathBuf::from);
    let mut failures = Vec::new();
    for (i, case) in corpus().into_iter().enumerate() {
        let path = dir.join(format!("case{i:02}.parquet"));
        std::fs::write(&path, &case.bytes).unwrap();
        if let Some(seeds) = &seeds {
            if case.bytes.len() < 64 << 10 {
                std::fs::create_dir_all(seeds).unwrap();
                std::fs::write(seeds.join(format!("hostile-{i:02}.parquet")), &case.bytes).unwrap();
            }
        }
        let (code, stderr) = run_capped(&path, case.args);
        let first = stderr.lines().next().unwrap_or("").to_string();
        let ok = match case.expect {
            Expect::Reads => code == Some(0),
            Expect::Fails(what) => {
                code == Some(1) && first.starts_with("parq: error:") && first.contains(what)
            }
        };
        eprintln!(
            "{:<6} {:?} {} ({} bytes): exit {code:?}: {first}",
            if ok { "ok" } else { "WRONG" },
            case.expect,
            case.name,
            case.bytes.len()
        );
        if !ok {
            failures.push(format!("{}: exit {code:?}: {stderr}", case.name));
        }
        std::fs::remove_file(&path).ok();
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(
        failures.is_empty(),
        "{} case(s) wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
