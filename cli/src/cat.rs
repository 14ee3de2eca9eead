//! `parq cat`: rows as JSON Lines.

use std::io::Write;

use parq::column::{Column, Values};
use parq::metadata::{ConvertedType, LogicalType, Type};
use parq::read::{ParquetReader, Source};
use parq::schema::ColumnDescriptor;

use crate::json;

/// How one column's values print.
enum Format {
    Bool,
    Signed,
    Unsigned,
    Int96,
    Float,
    Double,
    Text,
    Hex,
    Decimal(u32),
}

fn format_of(d: &ColumnDescriptor) -> Format {
    let scale = |s: i32| Format::Decimal(s.max(0) as u32);
    match &d.logical_type {
        Some(LogicalType::Decimal { scale: s, .. }) => return scale(*s),
        Some(LogicalType::Integer {
            is_signed: false, ..
        }) => return Format::Unsigned,
        Some(LogicalType::String | LogicalType::Enum | LogicalType::Json)
            if d.physical_type == Type::BYTE_ARRAY =>
        {
            return Format::Text
        }
        _ => {}
    }
    match d.converted_type {
        Some(ConvertedType::DECIMAL) => return scale(d.scale.unwrap_or(0)),
        Some(
            ConvertedType::UINT_8
            | ConvertedType::UINT_16
            | ConvertedType::UINT_32
            | ConvertedType::UINT_64,
        ) => return Format::Unsigned,
        Some(ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON)
            if d.physical_type == Type::BYTE_ARRAY =>
        {
            return Format::Text
        }
        _ => {}
    }
    match d.physical_type {
        Type::BOOLEAN => Format::Bool,
        Type::INT32 | Type::INT64 => Format::Signed,
        Type::INT96 => Format::Int96,
        Type::FLOAT => Format::Float,
        Type::DOUBLE => Format::Double,
        _ => Format::Hex,
    }
}

/// Format a big-endian two's complement integer with `scale` digits after the point.
fn decimal_bytes(out: &mut String, be: &[u8], scale: u32) {
    let negative = be.first().is_some_and(|b| b & 0x80 != 0);
    // Magnitude as big-endian bytes.
    let mut mag: Vec<u8> = if negative {
        let mut v: Vec<u8> = be.iter().map(|b| !b).collect();
        for b in v.iter_mut().rev() {
            let (n, carry) = b.overflowing_add(1);
            *b = n;
            if !carry {
                break;
            }
        }
        v
    } else {
        be.to_vec()
    };
    let mut digits = Vec::new();
    while mag.iter().any(|b| *b != 0) {
        let mut rem = 0u32;
        for b in mag.iter_mut() {
            let cur = (rem << 8) | *b as u32;
            *b = (cur / 10) as u8;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    while digits.len() <= scale as usize {
        digits.push(b'0');
    }
    digits.reverse();
    let point = digits.len() - scale as usize;
    out.push('"');
    if negative {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[..point]).unwrap_or("?"));
    if scale > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(&digits[point..]).unwrap_or("?"));
    }
    out.push('"');
}

fn value(out: &mut String, col: &Column, fmt: &Format, i: usize) {
    use std::fmt::Write as _;
    if !col.is_valid(i) {
        out.push_str("null");
        return;
    }
    match (&col.values, fmt) {
        (Values::Boolean(b), _) => out.push_str(if b.value(i) { "true" } else { "false" }),
        (Values::Int32(v), Format::Unsigned) => {
            let _ = write!(out, "{}", v[i] as u32);
        }
        (Values::Int32(v), Format::Decimal(s)) => decimal_bytes(out, &v[i].to_be_bytes(), *s),
        (Values::Int32(v), _) => {
            let _ = write!(out, "{}", v[i]);
        }
        (Values::Int64(v), Format::Unsigned) => {
            let _ = write!(out, "{}", v[i] as u64);
        }
        (Values::Int64(v), Format::Decimal(s)) => decimal_bytes(out, &v[i].to_be_bytes(), *s),
        (Values::Int64(v), _) => {
            let _ = write!(out, "{}", v[i]);
        }
        (Values::Float(v), _) => json::float(out, v[i] as f64, true),
        (Values::Double(v), _) => json::float(out, v[i], false),
        (Values::Int96(d), _) => {
            let b = &d[i * 12..i * 12 + 12];
            let nanos = u64::from_le_bytes(b[..8].try_into().unwrap_or_default()) as i128;
            let day = u32::from_le_bytes(b[8..].try_into().unwrap_or_default()) as i128;
            let _ = write!(out, "{}", (day - 2_440_588) * 86_400_000_000_000 + nanos);
        }
        _ => {
            let bytes = col.bytes(i).unwrap_or_default();
            match fmt {
                Format::Text => json::string(out, &String::from_utf8_lossy(bytes)),
                Format::Decimal(s) => decimal_bytes(out, bytes, *s),
                _ => json::hex(out, bytes),
            }
        }
    }
}

/// Print rows of the chosen top-level columns as JSON Lines.
pub fn run<S: Source>(
    reader: &ParquetReader<S>,
    columns: Option<&str>,
    limit: Option<usize>,
) -> parq::Result<()> {
    let schema = reader.schema();
    if !schema.is_flat() {
        return Err(parq::Error::Unsupported(
            "nested columns (structs, lists, maps) are not supported yet".into(),
        ));
    }
    let leaves: Vec<usize> = match columns {
        Some(list) => list
            .split(',')
            .map(|p| reader.column_index(p.trim()))
            .collect::<parq::Result<_>>()?,
        None => (0..schema.leaves.len()).collect(),
    };
    let names: Vec<String> = leaves
        .iter()
        .map(|&c| {
            let mut s = String::new();
            json::string(&mut s, &schema.leaves[c].path.join("."));
            s
        })
        .collect();
    let formats: Vec<Format> = leaves
        .iter()
        .map(|&c| format_of(&schema.leaves[c]))
        .collect();
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // Standard output has no path; name it so that e.g. a closed pipe does not read as a
    // failure on the input file.
    let stdout_err = |e: std::io::Error| parq::Error::from(e).in_file("<stdout>");
    let mut left = limit.unwrap_or(usize::MAX);
    let mut line = String::new();
    if left == 0 {
        return Ok(());
    }
    for batch in reader.batches(&leaves, 4096)? {
        let batch = batch?;
        for row in 0..batch.num_rows {
            line.clear();
            line.push('{');
            for (k, col) in batch.columns.iter().enumerate() {
                if k > 0 {
                    line.push(',');
                }
                line.push_str(&names[k]);
                line.push(':');
                value(&mut line, col, &formats[k], row);
            }
            line.push_str("}\n");
            out.write_all(line.as_bytes()).map_err(stdout_err)?;
            left -= 1;
            if left == 0 {
                out.flush().map_err(stdout_err)?;
                return Ok(());
            }
        }
    }
    out.flush().map_err(stdout_err)?;
    Ok(())
}
