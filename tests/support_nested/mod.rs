//! Helpers of the nested writer tests: random nested fields and values, arrays built from
//! rows in any legal Arrow layout, read-back and page checks, and the pyarrow/DuckDB check.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use bytes::Bytes;
use parq::array::{Array, ListArray, ListOffsets, StructArray, Value};
use parq::codecs::compression::{new_codec, CodecKind};
use parq::codecs::encoding::rle::RleDecoder;
use parq::column::{Column, Values};
use parq::field::{DataType, Field};
use parq::metadata::{decode_footer, decode_offset_index, decode_page_header, PageType, Type};
use parq::read::ParquetReader;
use parq::write::{ParquetWriter, WriterOptions};
use serde_json::{json, Value as Json};

/// A small deterministic generator (xorshift64*).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub fn chance(&mut self, p: f64) -> bool {
        p > 0.0 && (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }
}

/// `f` with every level required (map entries are required anyway).
pub fn all_required(f: &Field) -> Field {
    let data_type = match &f.data_type {
        DataType::Primitive(p) => DataType::Primitive(p.clone()),
        DataType::List(e) => DataType::List(Box::new(all_required(e))),
        DataType::Map(e) => DataType::Map(Box::new(all_required(e))),
        DataType::Struct(c) => DataType::Struct(c.iter().map(all_required).collect()),
    };
    Field {
        data_type,
        nullable: false,
        ..f.clone()
    }
}

fn random_primitive(rng: &mut Rng, name: &str) -> Field {
    match rng.below(6) {
        0 => Field::primitive(name, Type::INT32),
        1 => Field::primitive(name, Type::INT64),
        2 => parq::write::Field::string(name).into(),
        3 => Field::primitive(name, Type::BOOLEAN),
        4 => Field::primitive(name, Type::DOUBLE),
        _ => parq::write::Field::fixed_len_byte_array(name, 3).into(),
    }
}

/// A random field of nesting depth at most `depth` (a primitive is depth 0).
pub fn random_field(rng: &mut Rng, depth: usize, name: &str) -> Field {
    let f = if depth == 0 || rng.chance(0.25) {
        random_primitive(rng, name)
    } else {
        match rng.below(3) {
            0 => Field::list(name, random_field(rng, depth - 1, "element")),
            1 => {
                let n = 1 + rng.below(3) as usize;
                Field::structure(
                    name,
                    (0..n)
                        .map(|i| random_field(rng, depth - 1, &format!("c{i}")))
                        .collect(),
                )
            }
            _ => {
                let key = if rng.chance(0.5) {
                    Field::primitive("key", Type::INT32)
                } else {
                    parq::write::Field::string("key").into()
                };
                Field::map(name, key, random_field(rng, depth - 1, "value"))
            }
        }
    };
    if rng.chance(0.5) {
        f.optional()
    } else {
        f.required()
    }
}

fn leaf_bytes(p: &parq::field::Primitive, rng: &mut Rng) -> Vec<u8> {
    match p.physical_type {
        Type::INT32 => (rng.below(2000) as i32 - 1000).to_le_bytes().to_vec(),
        Type::INT64 => (rng.next() as i64 >> rng.below(60)).to_le_bytes().to_vec(),
        Type::BOOLEAN => vec![rng.below(2) as u8],
        Type::DOUBLE => ((rng.below(1 << 20) as f64 - 5e5) / 64.0)
            .to_le_bytes()
            .to_vec(),
        Type::FIXED_LEN_BYTE_ARRAY => (0..p.type_length.unwrap_or(1))
            .map(|_| rng.below(256) as u8)
            .collect(),
        _ => {
            let n = rng.below(12) as usize;
            (0..n).map(|_| b'a' + rng.below(26) as u8).collect()
        }
    }
}

/// A random value of `field`: null (where nullable) with probability `null_rate`, lists and
/// maps of up to `max_len` entries; map keys are distinct within a map.
pub fn random_value(field: &Field, rng: &mut Rng, null_rate: f64, max_len: u64) -> Value {
    if field.nullable && rng.chance(null_rate) {
        return Value::Null;
    }
    match &field.data_type {
        DataType::Primitive(p) => Value::Leaf(leaf_bytes(p, rng)),
        DataType::List(e) => {
            let n = rng.below(max_len + 1);
            Value::List(
                (0..n)
                    .map(|_| random_value(e, rng, null_rate, max_len))
                    .collect(),
            )
        }
        DataType::Struct(c) => Value::Struct(
            c.iter()
                .map(|c| random_value(c, rng, null_rate, max_len))
                .collect(),
        ),
        DataType::Map(entries) => {
            let DataType::Struct(kv) = &entries.data_type else {
                panic!("map entries must be a struct")
            };
            let n = rng.below(max_len + 1);
            let mut keys: Vec<Value> = Vec::new();
            let mut out = Vec::new();
            for _ in 0..n {
                let k = random_value(&kv[0], rng, 0.0, max_len);
                if keys.contains(&k) {
                    continue;
                }
                keys.push(k.clone());
                let v = match kv.get(1) {
                    Some(v) => random_value(v, rng, null_rate, max_len),
                    None => Value::Null,
                };
                out.push((k, v));
            }
            Value::Map(out)
        }
    }
}

/// Legal Arrow layout choices that must not change what is written.
#[derive(Debug, Clone, Default)]
pub struct Quirks {
    /// i64 list offsets.
    pub large: bool,
    /// Child slots under null list and struct slots hold arbitrary values (and null lists
    /// non-empty child ranges).
    pub junk: bool,
    /// Build with extra rows around and slice them off (offsets not starting at 0).
    pub slice: bool,
}

/// The array of `rows` of `field`, in the plainest layout.
pub fn build(field: &Field, rows: &[Value]) -> Array {
    build_with(field, rows, &Quirks::default(), &mut Rng::new(1))
}

/// The array of `rows` of `field`, in the layout `quirks` asks for.
pub fn build_with(field: &Field, rows: &[Value], quirks: &Quirks, rng: &mut Rng) -> Array {
    if quirks.slice {
        let mut padded = Vec::with_capacity(rows.len() + 3);
        padded.push(random_value(&field.clone().required(), rng, 0.2, 3));
        padded.push(random_value(&field.clone().required(), rng, 0.2, 3));
        padded.extend_from_slice(rows);
        padded.push(random_value(&field.clone().required(), rng, 0.2, 3));
        let inner = Quirks {
            slice: false,
            ..quirks.clone()
        };
        return build_inner(field, &padded, &inner, rng).slice(2, rows.len());
    }
    build_inner(field, rows, quirks, rng)
}

fn validity(rows: &[Value]) -> Option<NullBuffer> {
    let v: Vec<bool> = rows.iter().map(|r| *r != Value::Null).collect();
    v.iter().any(|b| !b).then(|| NullBuffer::from(v))
}

fn build_inner(field: &Field, rows: &[Value], q: &Quirks, rng: &mut Rng) -> Array {
    match &field.data_type {
        DataType::Primitive(p) => Array::Primitive(leaf_column(p, rows)),
        DataType::Struct(children) => {
            let arrays = children
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    let col: Vec<Value> = rows
                        .iter()
                        .map(|r| match r {
                            Value::Struct(v) => v[i].clone(),
                            _ if q.junk => random_value(&c.clone().optional(), rng, 0.3, 3),
                            _ => Value::Null,
                        })
                        .collect();
                    build_inner(c, &col, q, rng)
                })
                .collect();
            Array::Struct(StructArray {
                len: rows.len(),
                validity: validity(rows),
                children: arrays,
            })
        }
        DataType::List(e) | DataType::Map(e) => {
            let map = matches!(field.data_type, DataType::Map(_));
            let mut offsets = vec![0i64];
            let mut child = Vec::new();
            for r in rows {
                match r {
                    Value::List(items) => child.extend(items.iter().cloned()),
                    Value::Map(entries) => child.extend(
                        entries
                            .iter()
                            .map(|(k, v)| Value::Struct(vec![k.clone(), v.clone()])),
                    ),
                    _ if q.junk => {
                        for _ in 0..rng.below(3) {
                            child.push(random_value(e, rng, 0.3, 2));
                        }
                    }
                    _ => {}
                }
                offsets.push(child.len() as i64);
            }
            if let DataType::Struct(kv) = &e.data_type {
                // A key-only map: entries of one field.
                if map && kv.len() == 1 {
                    for c in &mut child {
                        if let Value::Struct(v) = c {
                            v.truncate(1);
                        }
                    }
                }
            }
            let offsets = if q.large {
                ListOffsets::Large(OffsetBuffer::new(ScalarBuffer::from(offsets)))
            } else {
                ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(
                    offsets.iter().map(|&o| o as i32).collect::<Vec<_>>(),
                )))
            };
            let list = ListArray {
                validity: validity(rows),
                offsets,
                values: Box::new(build_inner(e, &child, q, rng)),
            };
            if map {
                Array::Map(list)
            } else {
                Array::List(list)
            }
        }
    }
}

fn leaf_column(p: &parq::field::Primitive, rows: &[Value]) -> Column {
    let bytes: Vec<Option<&[u8]>> = rows
        .iter()
        .map(|r| match r {
            Value::Leaf(b) => Some(b.as_slice()),
            _ => None,
        })
        .collect();
    let fixed = |w: usize| -> Vec<u8> {
        bytes
            .iter()
            .flat_map(|b| b.map_or(vec![0; w], |b| b.to_vec()))
            .collect()
    };
    let values = match p.physical_type {
        Type::INT32 => Values::Int32(ScalarBuffer::from(bytemuck_vec::<i32>(&fixed(4)))),
        Type::INT64 => Values::Int64(ScalarBuffer::from(bytemuck_vec::<i64>(&fixed(8)))),
        Type::DOUBLE => Values::Double(ScalarBuffer::from(bytemuck_vec::<f64>(&fixed(8)))),
        Type::FLOAT => Values::Float(ScalarBuffer::from(bytemuck_vec::<f32>(&fixed(4)))),
        Type::BOOLEAN => {
            Values::Boolean(bytes.iter().map(|b| b.is_some_and(|b| b[0] != 0)).collect())
        }
        Type::FIXED_LEN_BYTE_ARRAY => {
            let w = p.type_length.unwrap_or(1) as usize;
            Values::FixedLenByteArray {
                width: w,
                data: Buffer::from_vec(fixed(w)),
            }
        }
        _ => {
            let mut offsets = vec![0i64];
            let mut data = Vec::new();
            for b in &bytes {
                data.extend_from_slice(b.unwrap_or(&[]));
                offsets.push(data.len() as i64);
            }
            Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                data: Buffer::from_vec(data),
            }
        }
    };
    Column {
        len: rows.len(),
        validity: validity(rows),
        values,
    }
}

fn bytemuck_vec<T: bytemuck::Pod>(bytes: &[u8]) -> Vec<T> {
    bytemuck::pod_collect_to_vec(bytes)
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
        let quirks = Quirks {
            large: rng.chance(0.3),
            junk: rng.chance(0.5),
            slice: rng.chance(0.5),
        };
        let batch = fields
            .iter()
            .zip(columns)
            .map(|(f, c)| build_with(f, &c[at..at + take], &quirks, &mut rng))
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
                    ss.definition_level_histogram.as_ref(),
                    Some(&hist),
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
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support_nested/check.py");
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
