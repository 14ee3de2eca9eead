//! Shared helpers of the writer tests: column kinds with value generators, exact column
//! comparison, the values and statistics pyarrow is expected to report, and the pyarrow
//! dump script runner.
#![allow(dead_code)] // each module uses a different subset, some only with their feature

use std::path::{Path, PathBuf};
use std::process::Command;

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use parq::column::{Column, Values};
use parq::metadata::{ConvertedType, LogicalType, TimeUnit, Type};
use parq::write::Field;
use serde_json::{json, Value};

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
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + self.below((hi - lo) as u64 + 1) as i64
    }
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p && p > 0.0
    }
}

/// How values of a kind are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Card {
    /// Mostly distinct values.
    High,
    /// About 10 distinct values.
    Low,
}

/// A column kind: a field plus a generator of its values.
#[derive(Debug, Clone)]
pub struct Kind {
    pub field: Field,
    pub card: Card,
}

/// Every physical type with the logical annotations the writer supports.
pub fn kinds() -> Vec<Kind> {
    use TimeUnit::*;
    let k = |field: Field| Kind {
        field,
        card: Card::High,
    };
    let low = |field: Field| Kind {
        field,
        card: Card::Low,
    };
    vec![
        k(Field::boolean("bool")),
        k(Field::int32("i32")),
        low(Field::int32("i32_low")),
        k(Field::int64("i64")),
        low(Field::int64("i64_low")),
        k(Field::int96("i96")),
        k(Field::float("f32")),
        k(Field::double("f64")),
        low(Field::double("f64_low")),
        k(Field::byte_array("bin")),
        k(Field::string("str")),
        low(Field::string("str_low")),
        k(Field::fixed_len_byte_array("flba", 5)),
        k(Field::date("date")),
        k(Field::time("time_ms", Millis, true)),
        k(Field::time("time_us", Micros, false)),
        k(Field::time("time_ns", Nanos, true)),
        k(Field::timestamp("ts_ms", Millis, true)),
        k(Field::timestamp("ts_us", Micros, false)),
        k(Field::timestamp("ts_ns", Nanos, true)),
        k(Field::decimal("dec32", Type::INT32, 9, 2)),
        k(Field::decimal("dec64", Type::INT64, 18, 3)),
        k(Field::decimal_fixed("dec_flba", 16, 38, 5)),
        k(Field::decimal("dec_ba", Type::BYTE_ARRAY, 20, 4)),
        k(Field::uuid("uuid")),
        k(Field::integer("u8", 8, false)),
        k(Field::integer("u16", 16, false)),
        k(Field::integer("u32", 32, false)),
        k(Field::integer("u64", 64, false)),
        k(Field::integer("i8", 8, true)),
        k(Field::integer("i16", 16, true)),
        k(Field::float16("f16")),
        k(Field::json("json")),
        low(Field::enumeration("enum")),
    ]
}

/// Minimal big-endian two's complement bytes of `v`.
pub fn be_bytes_min(v: i128) -> Vec<u8> {
    let b = v.to_be_bytes();
    let mut start = 0;
    while start < 15 {
        let (x, next) = (b[start], b[start + 1]);
        if (x == 0 && next & 0x80 == 0) || (x == 0xFF && next & 0x80 != 0) {
            start += 1;
        } else {
            break;
        }
    }
    b[start..].to_vec()
}

pub fn be_to_i128(b: &[u8]) -> i128 {
    let mut v: i128 = if b.first().is_some_and(|x| x & 0x80 != 0) {
        -1
    } else {
        0
    };
    for &x in b {
        v = (v << 8) | x as i128;
    }
    v
}

const STRINGS: &[&str] = &[
    "",
    "a",
    "é",
    "日本語",
    "🦀 crab",
    "zz",
    "A longer string value",
];

fn float_special(r: &mut Rng) -> Option<f64> {
    match r.below(12) {
        0 => Some(f64::NAN),
        1 => Some(f64::from_bits(0x7FF8_0000_0000_0ABC)),
        2 => Some(-0.0),
        3 => Some(0.0),
        4 => Some(f64::INFINITY),
        5 => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// `n` values of `kind` (no nulls yet; those come from [`with_nulls`]).
pub fn gen_values(kind: &Kind, n: usize, r: &mut Rng) -> Values {
    let f = &kind.field;
    let low = kind.card == Card::Low;
    let pick = |r: &mut Rng, hi: i64| if low { r.range(0, 9) } else { r.range(-hi, hi) };
    match (f.physical_type, &f.logical_type) {
        (Type::BOOLEAN, _) => {
            Values::Boolean(BooleanBuffer::from_iter((0..n).map(|_| r.chance(0.5))))
        }
        (Type::INT32, lt) => {
            let v: Vec<i32> = (0..n)
                .map(|_| match lt {
                    Some(LogicalType::Date) => r.range(-20000, 40000) as i32,
                    Some(LogicalType::Time { .. }) => r.range(0, 86_399_999) as i32,
                    Some(LogicalType::Decimal { .. }) => r.range(-999_999_999, 999_999_999) as i32,
                    Some(LogicalType::Integer {
                        bit_width: 8,
                        is_signed: false,
                    }) => r.range(0, 255) as i32,
                    Some(LogicalType::Integer {
                        bit_width: 16,
                        is_signed: false,
                    }) => r.range(0, 65535) as i32,
                    Some(LogicalType::Integer {
                        bit_width: 8,
                        is_signed: true,
                    }) => r.range(-128, 127) as i32,
                    Some(LogicalType::Integer {
                        bit_width: 16,
                        is_signed: true,
                    }) => r.range(-32768, 32767) as i32,
                    _ if low => pick(r, 0) as i32,
                    _ => match r.below(20) {
                        0 => i32::MIN,
                        1 => i32::MAX,
                        2 => -1,
                        _ => r.next() as i32,
                    },
                })
                .collect();
            Values::Int32(ScalarBuffer::from(v))
        }
        (Type::INT64, lt) => {
            let v: Vec<i64> = (0..n)
                .map(|_| match lt {
                    Some(LogicalType::Time {
                        unit: TimeUnit::Micros,
                        ..
                    }) => r.range(0, 86_399_999_999),
                    Some(LogicalType::Time { .. }) => r.range(0, 86_399_999_999_999),
                    Some(LogicalType::Timestamp { .. }) => r.range(-1 << 50, 1 << 50),
                    Some(LogicalType::Decimal { .. }) => {
                        r.range(-999_999_999_999_999_999, 999_999_999_999_999_999)
                    }
                    _ if low => pick(r, 0) * 1_000_000_007,
                    _ => match r.below(20) {
                        0 => i64::MIN,
                        1 => i64::MAX,
                        2 => -1,
                        _ => r.next() as i64,
                    },
                })
                .collect();
            Values::Int64(ScalarBuffer::from(v))
        }
        (Type::INT96, _) => {
            let mut d = Vec::with_capacity(n * 12);
            for _ in 0..n {
                let nanos = r.range(0, 86_399_999_999_999) as u64;
                let day = r.range(2_440_588 - 50_000, 2_440_588 + 50_000) as u32;
                d.extend_from_slice(&nanos.to_le_bytes());
                d.extend_from_slice(&day.to_le_bytes());
            }
            Values::Int96(Buffer::from(d))
        }
        (Type::FLOAT, _) => {
            let v: Vec<f32> = (0..n)
                .map(|_| match float_special(r) {
                    Some(x) if x.is_nan() && r.chance(0.5) => f32::from_bits(0x7FC0_1234),
                    Some(x) => x as f32,
                    None => (r.range(-1_000_000, 1_000_000) as f32) / 64.0,
                })
                .collect();
            Values::Float(ScalarBuffer::from(v))
        }
        (Type::DOUBLE, _) => {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    if low {
                        return pick(r, 0) as f64 * 0.5;
                    }
                    float_special(r).unwrap_or_else(|| (r.next() as i64) as f64 / 1e6)
                })
                .collect();
            Values::Double(ScalarBuffer::from(v))
        }
        (Type::BYTE_ARRAY, lt) => {
            let mut offsets = vec![0i64];
            let mut data = Vec::new();
            for _ in 0..n {
                match lt {
                    Some(LogicalType::String | LogicalType::Enum) => {
                        let s = if low {
                            format!("cat-{}", r.below(10))
                        } else {
                            let base = STRINGS[r.below(STRINGS.len() as u64) as usize];
                            format!("{base}{}", r.below(1000))
                        };
                        let s = if !low && r.chance(0.05) {
                            String::new()
                        } else {
                            s
                        };
                        data.extend_from_slice(s.as_bytes());
                    }
                    Some(LogicalType::Json) => {
                        data.extend_from_slice(format!("{{\"k\":{}}}", r.below(100)).as_bytes())
                    }
                    Some(LogicalType::Decimal { .. }) => {
                        let v = (r.next() as i128) * (r.below(100_000) as i128) % 10i128.pow(19);
                        let v = if r.chance(0.5) { -v } else { v };
                        data.extend_from_slice(&be_bytes_min(v));
                    }
                    _ => {
                        let len = r.below(20) as usize;
                        data.extend((0..len).map(|_| r.next() as u8));
                    }
                }
                offsets.push(data.len() as i64);
            }
            Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(offsets)),
                data: Buffer::from(data),
            }
        }
        (Type::FIXED_LEN_BYTE_ARRAY, lt) => {
            let width = f.type_length.unwrap_or(1) as usize;
            let mut data = Vec::with_capacity(n * width);
            for _ in 0..n {
                match lt {
                    Some(LogicalType::Decimal { .. }) => {
                        let v = ((r.next() as i128) << 40 | r.next() as i128) % 10i128.pow(37);
                        let v = if r.chance(0.5) { -v } else { v };
                        data.extend_from_slice(&v.to_be_bytes()[16 - width..]);
                    }
                    Some(LogicalType::Float16) => {
                        let h: u16 = match r.below(10) {
                            0 => 0x7E00,
                            1 => 0x7C01,
                            2 => 0x8000,
                            3 => 0x0000,
                            4 => 0xFC00,
                            _ => {
                                let h = r.next() as u16;
                                if h & 0x7C00 == 0x7C00 {
                                    h & !0x4000
                                } else {
                                    h
                                }
                            }
                        };
                        data.extend_from_slice(&h.to_le_bytes());
                    }
                    _ => data.extend((0..width).map(|_| r.next() as u8)),
                }
            }
            Values::FixedLenByteArray {
                width,
                data: Buffer::from(data),
            }
        }
        (t, _) => panic!("no generator for {t}"),
    }
}

/// A column of `n` values of `kind` with nulls at rate `null_rate` (0 for a required field).
pub fn gen_column(kind: &Kind, n: usize, null_rate: f64, r: &mut Rng) -> Column {
    let values = gen_values(kind, n, r);
    let validity = (null_rate > 0.0).then(|| {
        NullBuffer::from(BooleanBuffer::from_iter(
            (0..n).map(|_| !r.chance(null_rate)),
        ))
    });
    Column {
        len: n,
        validity: validity.filter(|v| v.null_count() > 0),
        values,
    }
}

/// Assert two columns hold the same slots: same nulls, same values bit for bit.
pub fn assert_same(name: &str, expected: &Column, actual: &Column) {
    assert_eq!(expected.len, actual.len, "{name}: length");
    for i in 0..expected.len {
        let (e, a) = (expected.is_valid(i), actual.is_valid(i));
        assert_eq!(e, a, "{name}: validity of slot {i}");
        if !e {
            continue;
        }
        let same = match (&expected.values, &actual.values) {
            (Values::Boolean(x), Values::Boolean(y)) => x.value(i) == y.value(i),
            (Values::Int32(x), Values::Int32(y)) => x[i] == y[i],
            (Values::Int64(x), Values::Int64(y)) => x[i] == y[i],
            (Values::Float(x), Values::Float(y)) => x[i].to_bits() == y[i].to_bits(),
            (Values::Double(x), Values::Double(y)) => x[i].to_bits() == y[i].to_bits(),
            (Values::Int96(x), Values::Int96(y)) => {
                x[i * 12..i * 12 + 12] == y[i * 12..i * 12 + 12]
            }
            _ => match (expected.bytes(i), actual.bytes(i)) {
                (Some(x), Some(y)) => x == y,
                _ => panic!(
                    "{name}: layouts {:?} vs {:?}",
                    kind_of(expected),
                    kind_of(actual)
                ),
            },
        };
        assert!(same, "{name}: value of slot {i} differs");
    }
}

fn kind_of(c: &Column) -> &'static str {
    match c.values {
        Values::Boolean(_) => "boolean",
        Values::Int32(_) => "int32",
        Values::Int64(_) => "int64",
        Values::Int96(_) => "int96",
        Values::Float(_) => "float",
        Values::Double(_) => "double",
        Values::Binary { .. } => "binary",
        Values::SmallBinary { .. } => "binary, i32 offsets",
        Values::BinaryView { .. } => "binary view",
        Values::FixedLenByteArray { .. } => "fixed",
        Values::Dictionary { .. } => "dictionary keys",
    }
}

fn is_unsigned(f: &Field) -> bool {
    matches!(
        f.logical_type,
        Some(LogicalType::Integer {
            is_signed: false,
            ..
        })
    ) || matches!(
        f.converted_type,
        Some(
            ConvertedType::UINT_8
                | ConvertedType::UINT_16
                | ConvertedType::UINT_32
                | ConvertedType::UINT_64
        )
    )
}

fn is_decimal(f: &Field) -> bool {
    matches!(f.logical_type, Some(LogicalType::Decimal { .. }))
}

fn is_f16(f: &Field) -> bool {
    f.logical_type == Some(LogicalType::Float16)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// The JSON value `dump.py` prints for slot `i` of `col`.
pub fn expected_value(f: &Field, col: &Column, i: usize) -> Value {
    if !col.is_valid(i) {
        return Value::Null;
    }
    match &col.values {
        Values::Boolean(b) => json!(b.value(i)),
        Values::Int32(v) if is_decimal(f) => json!(v[i].to_string()),
        Values::Int32(v) if is_unsigned(f) => json!(v[i] as u32),
        Values::Int32(v) => json!(v[i]),
        Values::Int64(v) if is_decimal(f) => json!(v[i].to_string()),
        Values::Int64(v) if is_unsigned(f) => json!(v[i] as u64),
        Values::Int64(v) => json!(v[i]),
        Values::Int96(d) => {
            let b = &d[i * 12..i * 12 + 12];
            let nanos = i64::from_le_bytes(b[..8].try_into().unwrap());
            let day = u32::from_le_bytes(b[8..].try_into().unwrap()) as i64;
            json!((day - 2_440_588) * 86_400_000_000_000 + nanos)
        }
        Values::Float(v) => json!(v[i].to_bits()),
        Values::Double(v) => json!(v[i].to_bits()),
        _ => {
            let b = col.bytes(i).unwrap();
            if is_decimal(f) {
                json!(be_to_i128(b).to_string())
            } else if is_f16(f) {
                json!(u16::from_le_bytes([b[0], b[1]]))
            } else {
                json!(hex(b))
            }
        }
    }
}

/// Chunk statistics pyarrow should report for rows `[start, end)` of `col`:
/// `(null_count, Some((min, max)))` in `dump.py`'s raw forms, `None` when no min/max.
pub fn expected_stats(
    f: &Field,
    col: &Column,
    start: usize,
    end: usize,
) -> (u64, Option<(Value, Value)>) {
    let valid: Vec<usize> = (start..end).filter(|&i| col.is_valid(i)).collect();
    let nulls = (end - start - valid.len()) as u64;
    if valid.is_empty() {
        return (nulls, None);
    }
    let mm = match &col.values {
        Values::Boolean(b) => {
            let it = valid.iter().map(|&i| b.value(i));
            Some((json!(it.clone().min().unwrap()), json!(it.max().unwrap())))
        }
        Values::Int32(v) if is_unsigned(f) => {
            let it = valid.iter().map(|&i| v[i] as u32);
            Some((
                json!(it.clone().min().unwrap() as i32),
                json!(it.max().unwrap() as i32),
            ))
        }
        Values::Int32(v) => {
            let it = valid.iter().map(|&i| v[i]);
            Some((json!(it.clone().min().unwrap()), json!(it.max().unwrap())))
        }
        Values::Int64(v) if is_unsigned(f) => {
            let it = valid.iter().map(|&i| v[i] as u64);
            Some((
                json!(it.clone().min().unwrap() as i64),
                json!(it.max().unwrap() as i64),
            ))
        }
        Values::Int64(v) => {
            let it = valid.iter().map(|&i| v[i]);
            Some((json!(it.clone().min().unwrap()), json!(it.max().unwrap())))
        }
        Values::Int96(_) => None,
        Values::Float(v) => {
            let xs: Vec<f32> = valid
                .iter()
                .map(|&i| v[i])
                .filter(|x| !x.is_nan())
                .collect();
            (!xs.is_empty()).then(|| {
                let mut lo = xs.iter().copied().fold(f32::INFINITY, f32::min);
                let mut hi = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                if lo == 0.0 {
                    lo = -0.0;
                }
                if hi == 0.0 {
                    hi = 0.0;
                }
                (json!(lo.to_bits()), json!(hi.to_bits()))
            })
        }
        Values::Double(v) => {
            let xs: Vec<f64> = valid
                .iter()
                .map(|&i| v[i])
                .filter(|x| !x.is_nan())
                .collect();
            (!xs.is_empty()).then(|| {
                let mut lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
                let mut hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                if lo == 0.0 {
                    lo = -0.0;
                }
                if hi == 0.0 {
                    hi = 0.0;
                }
                (json!(lo.to_bits()), json!(hi.to_bits()))
            })
        }
        _ if is_f16(f) => {
            let xs: Vec<(f32, [u8; 2])> = valid
                .iter()
                .map(|&i| {
                    let b = col.bytes(i).unwrap();
                    (half_to_f32(u16::from_le_bytes([b[0], b[1]])), [b[0], b[1]])
                })
                .filter(|(x, _)| !x.is_nan())
                .collect();
            (!xs.is_empty()).then(|| {
                let lo = xs
                    .iter()
                    .min_by(|a, b| a.0.partial_cmp(&b.0).unwrap())
                    .unwrap();
                let hi = xs
                    .iter()
                    .max_by(|a, b| a.0.partial_cmp(&b.0).unwrap())
                    .unwrap();
                let lo = if lo.0 == 0.0 { [0x00, 0x80] } else { lo.1 };
                let hi = if hi.0 == 0.0 { [0x00, 0x00] } else { hi.1 };
                (json!(hex(&lo)), json!(hex(&hi)))
            })
        }
        _ => {
            let mut xs: Vec<&[u8]> = valid.iter().map(|&i| col.bytes(i).unwrap()).collect();
            if is_decimal(f) {
                xs.sort_by_key(|b| be_to_i128(b));
            } else {
                xs.sort();
            }
            Some((json!(hex(xs[0])), json!(hex(xs[xs.len() - 1]))))
        }
    };
    (nulls, mm)
}

pub fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0f32 } else { 1.0 };
    let exp = ((h >> 10) & 0x1f) as i32;
    let mant = (h & 0x3ff) as f32;
    match exp {
        0 => sign * mant * 2f32.powi(-24),
        0x1f if mant == 0.0 => sign * f32::INFINITY,
        0x1f => f32::NAN,
        e => sign * (1.0 + mant / 1024.0) * 2f32.powi(e - 15),
    }
}

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch directory under `target/`.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = manifest_dir()
        .join("target/test-scratch")
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `dump.py` on `files`: one JSON object per file. Its callers skip without pyarrow
/// (`python::require_python!`).
pub fn pyarrow_dump(files: &[PathBuf]) -> Vec<Value> {
    let script = manifest_dir().join("tests/it/support_write/dump.py");
    let out = Command::new("python3")
        .arg(&script)
        .args(files)
        .output()
        .expect("python3 must be installed to run the interop tests");
    assert!(
        out.status.success(),
        "dump.py failed (is pyarrow installed? `pip install pyarrow`):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let v: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        v.len(),
        files.len(),
        "dump.py printed {} objects for {} files",
        v.len(),
        files.len()
    );
    v
}

pub fn path_str(p: &Path) -> String {
    p.display().to_string()
}
