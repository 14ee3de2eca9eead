//! Helpers of the nested writer tests: random nested fields, values and arrays in any legal
//! Arrow layout (from `parq::testing`), read-back and page checks, and the pyarrow/DuckDB
//! check.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use bytes::Bytes;
use parq::array::{Array, Value};
use parq::codecs::compression::{new_codec, CodecKind};
use parq::codecs::encoding::rle::RleDecoder;
use parq::field::{DataType, Field};
use parq::metadata::{decode_footer, decode_offset_index, decode_page_header, PageType, Type};
use parq::read::ParquetReader;
pub use parq::testing::columns::Layout;
use parq::testing::columns::{build_array, build_array_with, gen_value, ColumnProfile};
use parq::testing::schema::gen_field;
pub use parq::testing::{Entropy, LeafFilter, LogicalKind, Rng};
use parq::write::{ParquetWriter, WriterOptions};
use serde_json::{json, Value as Json};

/// The leaf types these tests draw: those the JSON of the Python check spells exactly
/// (integers, booleans, doubles, strings, plain byte arrays as hex).
const LEAVES: LeafFilter = LeafFilter::all()
    .without_physical(Type::INT96)
    .without_physical(Type::FLOAT)
    .without_logical(LogicalKind::Enum)
    .without_logical(LogicalKind::Json)
    .without_logical(LogicalKind::Bson)
    .without_logical(LogicalKind::Uuid)
    .without_logical(LogicalKind::Float16)
    .without_logical(LogicalKind::Interval)
    .without_logical(LogicalKind::Date)
    .without_logical(LogicalKind::Time)
    .without_logical(LogicalKind::Timestamp)
    .without_logical(LogicalKind::Integer)
    .without_logical(LogicalKind::Decimal);

/// A random field of nesting depth at most `depth` over [`LEAVES`].
pub fn random_field(rng: &mut Rng, depth: usize, name: &str) -> Field {
    gen_field(rng, depth, name, &LEAVES)
}

/// Values without edge cases (JSON has no NaN): nulls at `null_percent` where nullable,
/// lists and maps of up to `max_len` entries.
fn profile(null_percent: u8, max_len: u8) -> ColumnProfile {
    ColumnProfile {
        null_percent,
        edge_percent: 0,
        max_list_len: max_len,
        ..ColumnProfile::default()
    }
}

/// A random row of `field`: null with probability `null_rate` where nullable, lists and maps
/// of up to `max_len` entries (see [`profile`]).
pub fn random_value(field: &Field, rng: &mut Rng, null_rate: f64, max_len: u8) -> Value {
    gen_value(
        rng,
        field,
        &profile((null_rate * 100.0).round() as u8, max_len),
    )
}

/// The array of `rows` of `field`, in the plainest layout.
pub fn build(field: &Field, rows: &[Value]) -> Array {
    build_array(field, rows, &ColumnProfile::default())
}

/// The array of `rows` of `field`, in the layout `layout` asks for.
pub fn build_with(field: &Field, rows: &[Value], layout: &Layout, rng: &mut Rng) -> Array {
    build_array_with(rng, field, rows, &profile(20, 3), layout)
}

/// Write batches of arrays.
pub fn write_arrays(fields: &[Field], batches: &[Vec<Array>], options: WriterOptions) -> Vec<u8> {
    let mut w = ParquetWriter::with_fields(Vec::new(), fields.to_vec(), options).unwrap();
    for b in batches {
        w.write_arrays(b).unwrap();
    }
    w.close().unwrap().1
}

/// Write `columns` (rows per field) in batches of sizes and layouts drawn from `seed`.
pub fn write_rows(
    fields: &[Field],
    columns: &[Vec<Value>],
    options: WriterOptions,
    seed: u64,
) -> Vec<u8> {
    let mut rng = Rng::new(seed ^ 0x5eed);
    let n = columns.first().map_or(0, |c| c.len());
    let mut batches = Vec::new();
    let mut at = 0;
    while at < n || (n == 0 && batches.is_empty()) {
        let take = if rng.chance(0.3) {
            n - at
        } else {
            (1 + rng.below(n as u64 / 2 + 1) as usize).min(n - at)
        };
        let layout = Layout {
            large_offsets: rng.chance(0.3),
            junk_under_nulls: rng.chance(0.5),
            sliced: rng.chance(0.5),
        };
        let batch = fields
            .iter()
            .zip(columns)
            .map(|(f, c)| build_with(f, &c[at..at + take], &layout, &mut rng))
            .collect();
        batches.push(batch);
        at += take;
        if n == 0 {
            break;
        }
    }
    write_arrays(fields, &batches, options)
}

/// Read every field back and compare with `columns`, row by row.
pub fn check_read_back(bytes: &[u8], fields: &[Field], columns: &[Vec<Value>], what: &str) {
    let reader = ParquetReader::new(Bytes::from(bytes.to_vec())).unwrap();
    assert_eq!(reader.fields().unwrap(), fields, "{what}: fields");
    for (i, rows) in columns.iter().enumerate() {
        let (_, array) = reader
            .read_field(i)
            .unwrap_or_else(|e| panic!("{what}: read field {i}: {e}"));
        assert_eq!(array.len(), rows.len(), "{what}: rows of field {i}");
        for (r, want) in rows.iter().enumerate() {
            assert_eq!(&array.value(r), want, "{what}: field {i} row {r}");
        }
    }
}

/// Read in batches of `batch` records: concatenated, the batches are the whole.
pub fn check_batches(bytes: &[u8], columns: &[Vec<Value>], batch: usize) {
    let reader = ParquetReader::new(Bytes::from(bytes.to_vec())).unwrap();
    let fields = reader.fields().unwrap();
    let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
    let mut got: Vec<Vec<Value>> = vec![Vec::new(); columns.len()];
    for b in reader.array_batches(&names, batch).unwrap() {
        let b = b.unwrap();
        assert!(b.num_rows <= batch);
        for (g, a) in got.iter_mut().zip(&b.arrays) {
            assert_eq!(a.len(), b.num_rows);
            g.extend((0..a.len()).map(|i| a.value(i)));
        }
    }
    assert_eq!(&got, columns, "batches of {batch}");
}

/// The (repetition, definition) levels of each data page of column `column` in row group 0.
pub fn chunk_levels(bytes: &[u8], column: usize) -> Vec<(Vec<u16>, Vec<u16>)> {
    let meta = decode_footer(bytes).unwrap();
    let schema = parq::schema::SchemaDescriptor::new(&meta.schema).unwrap();
    pages(
        bytes,
        &meta.row_groups[0].columns[column],
        schema.leaf(column),
    )
    .into_iter()
    .map(|p| (p.rep, p.def))
    .collect()
}

pub struct PageLevels {
    pub num_values: usize,
    pub rep: Vec<u16>,
    pub def: Vec<u16>,
    pub v2_rows: Option<i32>,
}

/// Decode the levels of each data page of a chunk.
fn pages(
    bytes: &[u8],
    chunk: &parq::metadata::ColumnChunk,
    leaf: &parq::schema::ColumnDescriptor,
) -> Vec<PageLevels> {
    let md = chunk.meta_data.as_ref().unwrap();
    let kind = CodecKind::from_thrift(md.codec.0).unwrap();
    let start = md.dictionary_page_offset.unwrap_or(md.data_page_offset) as usize;
    let end = start + md.total_compressed_size as usize;
    let (max_rep, max_def) = (leaf.max_rep_level as u16, leaf.max_def_level as u16);
    let width = |m: u16| 16 - m.leading_zeros();
    let decode = |data: &[u8], max: u16, n: usize| -> Vec<u16> {
        if max == 0 {
            return Vec::new();
        }
        let mut out = vec![0u16; n];
        let mut d = RleDecoder::new(data, width(max)).unwrap();
        assert_eq!(d.get_batch(&mut out).unwrap(), n);
        out
    };
    let mut at = start;
    let mut out = Vec::new();
    while at < end {
        let (h, len) = decode_page_header(&bytes[at..]).unwrap();
        let body = &bytes[at + len..at + len + h.compressed_page_size as usize];
        at += len + h.compressed_page_size as usize;
        match h.type_ {
            PageType::DATA_PAGE => {
                let n = h.data_page_header.as_ref().unwrap().num_values as usize;
                let raw = if kind == CodecKind::Uncompressed {
                    body.to_vec()
                } else {
                    let mut raw = vec![0u8; h.uncompressed_page_size as usize];
                    new_codec(kind, None)
                        .unwrap()
                        .decompress_to_slice(body, &mut raw)
                        .unwrap();
                    raw
                };
                let mut p = 0;
                let mut stream = |max: u16| {
                    if max == 0 {
                        return Vec::new();
                    }
                    let l = u32::from_le_bytes(raw[p..p + 4].try_into().unwrap()) as usize;
                    let v = decode(&raw[p + 4..p + 4 + l], max, n);
                    p += 4 + l;
                    v
                };
                let rep = stream(max_rep);
                let def = stream(max_def);
                out.push(PageLevels {
                    num_values: n,
                    rep,
                    def,
                    v2_rows: None,
                });
            }
            PageType::DATA_PAGE_V2 => {
                let v2 = h.data_page_header_v2.as_ref().unwrap();
                let n = v2.num_values as usize;
                let rl = v2.repetition_levels_byte_length as usize;
                let dl = v2.definition_levels_byte_length as usize;
                out.push(PageLevels {
                    num_values: n,
                    rep: decode(&body[..rl], max_rep, n),
                    def: decode(&body[rl..rl + dl], max_def, n),
                    v2_rows: Some(v2.num_rows),
                });
            }
            _ => {}
        }
    }
    out
}

/// Every data page of every chunk starts at a record (r = 0), and the offset index's
/// `first_row_index` counts records; v2 headers count the page's records.
pub fn check_pages(bytes: &[u8], what: &str) {
    let meta = decode_footer(bytes).unwrap();
    let schema = parq::schema::SchemaDescriptor::new(&meta.schema).unwrap();
    for (g, rg) in meta.row_groups.iter().enumerate() {
        for (c, chunk) in rg.columns.iter().enumerate() {
            let leaf = schema.leaf(c);
            let pages = pages(bytes, chunk, leaf);
            let oi_at = chunk.offset_index_offset.unwrap() as usize;
            let oi = decode_offset_index(
                &bytes[oi_at..oi_at + chunk.offset_index_length.unwrap() as usize],
            )
            .unwrap();
            assert_eq!(oi.page_locations.len(), pages.len(), "{what}: pages");
            let mut rows = 0i64;
            let mut hist = vec![0i64; leaf.max_def_level as usize + 1];
            for (p, (page, loc)) in pages.iter().zip(&oi.page_locations).enumerate() {
                let n = if leaf.max_rep_level > 0 {
                    assert_eq!(
                        page.rep.first(),
                        Some(&0),
                        "{what}: rg {g} column {c} page {p} starts inside a record"
                    );
                    page.rep.iter().filter(|&&r| r == 0).count() as i64
                } else {
                    page.num_values as i64
                };
                assert_eq!(loc.first_row_index, rows, "{what}: first_row_index");
                if let Some(v2) = page.v2_rows {
                    assert_eq!(v2 as i64, n, "{what}: v2 num_rows");
                }
                rows += n;
                for &d in &page.def {
                    hist[d as usize] += 1;
                }
            }
            assert_eq!(rows, rg.num_rows, "{what}: records in rg {g} column {c}");
            let md = chunk.meta_data.as_ref().unwrap();
            if leaf.max_def_level > 0 {
                let ss = md.size_statistics.as_ref().unwrap();
                assert_eq!(
                    ss.definition_level_histogram.as_deref(),
                    Some(&hist[..]),
                    "{what}"
                );
            }
            if leaf.max_rep_level > 0 {
                let ss = md.size_statistics.as_ref().unwrap();
                let h = ss.repetition_level_histogram.as_ref().unwrap();
                assert_eq!(h[0], rg.num_rows, "{what}: rep histogram");
            }
        }
    }
}

/// One file for the Python check, with what it must hold.
pub struct Case {
    pub what: String,
    pub path: PathBuf,
    pub fields: Vec<Field>,
    pub columns: Vec<Vec<Value>>,
}

/// `v` of `field` as JSON: numbers, strings (UTF-8) or hex (other bytes), lists as arrays,
/// structs as objects, maps as arrays of `[key, value]`.
pub fn to_json(field: &Field, v: &Value) -> Json {
    match (v, &field.data_type) {
        (Value::Null, _) => Json::Null,
        (Value::Leaf(b), DataType::Primitive(p)) => match p.physical_type {
            Type::INT32 => json!(i32::from_le_bytes(b[..4].try_into().unwrap())),
            Type::INT64 => json!(i64::from_le_bytes(b[..8].try_into().unwrap())),
            Type::BOOLEAN => json!(b[0] != 0),
            Type::DOUBLE => json!(f64::from_le_bytes(b[..8].try_into().unwrap())),
            Type::BYTE_ARRAY if p.logical_type.is_some() => {
                json!(String::from_utf8(b.clone()).unwrap())
            }
            _ => json!({ "hex": b.iter().map(|x| format!("{x:02x}")).collect::<String>() }),
        },
        (Value::List(items), DataType::List(e)) => {
            Json::Array(items.iter().map(|i| to_json(e, i)).collect())
        }
        (Value::Struct(vals), DataType::Struct(c)) => Json::Object(
            c.iter()
                .zip(vals)
                .map(|(f, v)| (f.name.clone(), to_json(f, v)))
                .collect(),
        ),
        (Value::Map(entries), DataType::Map(e)) => {
            let DataType::Struct(kv) = &e.data_type else {
                panic!("map entries")
            };
            Json::Array(
                entries
                    .iter()
                    .map(|(k, v)| {
                        json!([
                            to_json(&kv[0], k),
                            kv.get(1).map_or(Json::Null, |f| to_json(f, v))
                        ])
                    })
                    .collect(),
            )
        }
        (v, _) => panic!("value {v:?} does not fit field {}", field.name),
    }
}

/// Write the expected values next to the files and have pyarrow and DuckDB check them.
pub fn check_with_python(dir: &Path, cases: &[Case]) {
    let manifest: Vec<Json> = cases
        .iter()
        .map(|c| {
            let columns: serde_json::Map<String, Json> = c
                .fields
                .iter()
                .zip(&c.columns)
                .map(|(f, rows)| {
                    (
                        f.name.clone(),
                        Json::Array(rows.iter().map(|v| to_json(f, v)).collect()),
                    )
                })
                .collect();
            json!({ "what": c.what, "path": c.path, "columns": columns })
        })
        .collect();
    let manifest_path = dir.join("manifest.json");
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/support_nested/check.py");
    let out = Command::new("python3")
        .arg(script)
        .arg(&manifest_path)
        .output()
        .expect("python3 must be installed to run the interop tests");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "python check failed:\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains(&format!("checked {} files", cases.len())),
        "{stdout}"
    );
}
