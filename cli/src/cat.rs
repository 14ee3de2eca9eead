//! `parq cat` and `parq head`: rows as JSON Lines or CSV.

use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use arrow_buffer::{BooleanBuffer, Buffer, OffsetBuffer, ScalarBuffer};
use parq::array::Array;
use parq::column::{Column, Values};
use parq::field::{DataType, Field, Primitive};
use parq::metadata::{ConvertedType, LogicalType, Type};
use parq::predicate::Expr;
use parq::read::{ParquetReader, Select, Source};
use parq::schema::ColumnDescriptor;

use crate::json;

/// What `parq cat` and `parq head` do with a value of a STRING, ENUM or JSON column that is
/// not UTF-8.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum InvalidUtf8 {
    /// Fail, naming the column, the row group and the row (as DuckDB and the parquet crate
    /// do): text is never printed other than it is stored.
    #[default]
    Error,
    /// Print the value with each byte that is not part of a UTF-8 character as `\xHH` (in
    /// JSON, the backslash escaped: `"\\xff"`), and say on stderr how many values were.
    /// A backslash stored in the value is not escaped: the output is for reading, not for
    /// reading back.
    Escape,
}

impl InvalidUtf8 {
    /// `options` reading string columns as this asks: checked for `Error` (in the decoder,
    /// where the bytes are hot), as stored for `Escape`.
    pub fn apply(self, options: parq::read::ReadOptions) -> parq::read::ReadOptions {
        options.with_check_strings(self == InvalidUtf8::Error)
    }
}

/// Values of text columns printed escaped since the process started (see [`InvalidUtf8`]).
static ESCAPED: AtomicU64 = AtomicU64::new(0);

/// Append `bytes` of a text column: as they are when UTF-8 (the common case, checked
/// once); otherwise each invalid byte as `\xHH`, never U+FFFD (which would change the value
/// without a trace). JSON-quoted unless `raw`.
fn text(out: &mut String, bytes: &[u8], raw: bool) {
    use std::fmt::Write as _;
    let escaped;
    let s = match std::str::from_utf8(bytes) {
        Ok(s) => s,
        Err(_) => {
            ESCAPED.fetch_add(1, Ordering::Relaxed);
            let mut e = String::with_capacity(bytes.len() + 8);
            for chunk in bytes.utf8_chunks() {
                e.push_str(chunk.valid());
                for b in chunk.invalid() {
                    let _ = write!(e, "\\x{b:02x}");
                }
            }
            escaped = e;
            &escaped
        }
    };
    if raw {
        out.push_str(s);
    } else {
        json::string(out, s);
    }
}

/// How one column's values print.
enum Format {
    Bool,
    /// An integer of the given width in bits: INT(8) and INT(16) are stored as INT32 and
    /// print cut to their width, as Arrow's Int8/Int16 (pyarrow, DuckDB) read a value a
    /// writer stored out of range.
    Signed(u32),
    Unsigned(u32),
    Int96,
    Float,
    Double,
    Text,
    Hex,
    Decimal(u32),
}

fn format_of(d: &Primitive) -> Format {
    let scale = |s: i32| Format::Decimal(s.max(0) as u32);
    match &d.logical_type {
        Some(LogicalType::Decimal { scale: s, .. }) => return scale(*s),
        Some(LogicalType::Integer {
            bit_width,
            is_signed,
        }) if matches!(d.physical_type, Type::INT32 | Type::INT64) => {
            let bits = (*bit_width as u32).clamp(8, 64);
            return if *is_signed {
                Format::Signed(bits)
            } else {
                Format::Unsigned(bits)
            };
        }
        Some(LogicalType::String | LogicalType::Enum | LogicalType::Json)
            if d.physical_type == Type::BYTE_ARRAY =>
        {
            return Format::Text
        }
        _ => {}
    }
    match d.converted_type {
        Some(ConvertedType::DECIMAL) => return scale(d.scale.unwrap_or(0)),
        Some(ConvertedType::UINT_8) => return Format::Unsigned(8),
        Some(ConvertedType::UINT_16) => return Format::Unsigned(16),
        Some(ConvertedType::UINT_32 | ConvertedType::UINT_64) => return Format::Unsigned(64),
        Some(ConvertedType::INT_8) => return Format::Signed(8),
        Some(ConvertedType::INT_16) => return Format::Signed(16),
        Some(ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON)
            if d.physical_type == Type::BYTE_ARRAY =>
        {
            return Format::Text
        }
        _ => {}
    }
    match d.physical_type {
        Type::BOOLEAN => Format::Bool,
        Type::INT32 | Type::INT64 => Format::Signed(64),
        Type::INT96 => Format::Int96,
        Type::FLOAT => Format::Float,
        Type::DOUBLE => Format::Double,
        _ => Format::Hex,
    }
}

/// Format a big-endian two's complement integer with `scale` digits after the point, in
/// double quotes (a JSON string) unless `raw`.
fn decimal_bytes(out: &mut String, be: &[u8], scale: u32, raw: bool) {
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
    if !raw {
        out.push('"');
    }
    if negative {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[..point]).unwrap_or("?"));
    if scale > 0 {
        out.push('.');
        out.push_str(std::str::from_utf8(&digits[point..]).unwrap_or("?"));
    }
    if !raw {
        out.push('"');
    }
}

/// Append slot `i` of `col` as JSON, or, when `raw`, as the bare text of a CSV cell: strings,
/// hex, decimals and the float specials without JSON quotes or escapes (the caller handles
/// nulls and CSV quoting).
fn value(out: &mut String, col: &Column, fmt: &Format, i: usize, raw: bool) {
    use std::fmt::Write as _;
    if !col.is_valid(i) {
        out.push_str("null");
        return;
    }
    match (&col.values, fmt) {
        (Values::Boolean(b), _) => out.push_str(if b.value(i) { "true" } else { "false" }),
        (Values::Int32(v), Format::Unsigned(bits)) => {
            let _ = write!(
                out,
                "{}",
                (v[i] as u32) & (u32::MAX >> 32u32.saturating_sub(*bits))
            );
        }
        (Values::Int32(v), Format::Signed(bits)) if *bits < 32 => {
            let _ = write!(out, "{}", (v[i] << (32 - bits)) >> (32 - bits));
        }
        (Values::Int32(v), Format::Decimal(s)) => decimal_bytes(out, &v[i].to_be_bytes(), *s, raw),
        (Values::Int32(v), _) => {
            let _ = write!(out, "{}", v[i]);
        }
        (Values::Int64(v), Format::Unsigned(_)) => {
            let _ = write!(out, "{}", v[i] as u64);
        }
        (Values::Int64(v), Format::Decimal(s)) => decimal_bytes(out, &v[i].to_be_bytes(), *s, raw),
        (Values::Int64(v), _) => {
            let _ = write!(out, "{}", v[i]);
        }
        (Values::Float(v), _) => float(out, v[i] as f64, true, raw),
        (Values::Double(v), _) => float(out, v[i], false, raw),
        (Values::Int96(d), _) => {
            let b = &d[i * 12..i * 12 + 12];
            let nanos = u64::from_le_bytes(b[..8].try_into().unwrap_or_default()) as i128;
            let day = u32::from_le_bytes(b[8..].try_into().unwrap_or_default()) as i128;
            let _ = write!(out, "{}", (day - 2_440_588) * 86_400_000_000_000 + nanos);
        }
        _ => {
            let bytes = col.bytes(i).unwrap_or_default();
            match fmt {
                Format::Text => text(out, bytes, raw),
                Format::Decimal(s) => decimal_bytes(out, bytes, *s, raw),
                _ if raw => {
                    for b in bytes {
                        let _ = write!(out, "{b:02x}");
                    }
                }
                _ => json::hex(out, bytes),
            }
        }
    }
}

/// Append a statistic of column `leaf` (its PLAIN bytes, without a length prefix) as `cat`
/// prints that column's values: JSON, or when `raw` the bare text. `false` (nothing appended)
/// when the bytes do not fit the physical type.
pub fn stat_value(out: &mut String, leaf: &ColumnDescriptor, bytes: &[u8], raw: bool) -> bool {
    let Some(values) = stat_values(leaf.physical_type, bytes) else {
        return false;
    };
    let column = Column {
        len: 1,
        validity: None,
        values,
    };
    let mut primitive = Primitive::new(leaf.physical_type);
    primitive.logical_type = leaf.logical_type.clone();
    primitive.converted_type = leaf.converted_type;
    primitive.scale = leaf.scale;
    value(out, &column, &format_of(&primitive), 0, raw);
    true
}

/// One value of `physical` from its PLAIN bytes; `None` when the length does not fit.
fn stat_values(physical: Type, bytes: &[u8]) -> Option<Values> {
    fn le<const N: usize>(bytes: &[u8]) -> Option<[u8; N]> {
        bytes.try_into().ok()
    }
    Some(match physical {
        Type::BOOLEAN => Values::Boolean(BooleanBuffer::from(vec![le::<1>(bytes)?[0] != 0])),
        Type::INT32 => Values::Int32(vec![i32::from_le_bytes(le(bytes)?)].into()),
        Type::INT64 => Values::Int64(vec![i64::from_le_bytes(le(bytes)?)].into()),
        Type::INT96 => Values::Int96(Buffer::from(le::<12>(bytes)?.to_vec())),
        Type::FLOAT => Values::Float(vec![f32::from_le_bytes(le(bytes)?)].into()),
        Type::DOUBLE => Values::Double(vec![f64::from_le_bytes(le(bytes)?)].into()),
        _ => Values::Binary {
            offsets: OffsetBuffer::new(ScalarBuffer::from(vec![0i64, bytes.len() as i64])),
            data: Buffer::from(bytes.to_vec()),
        },
    })
}

/// A float as JSON ([`json::float`]); when `raw`, the specials without their quotes.
fn float(out: &mut String, v: f64, is_f32: bool, raw: bool) {
    let start = out.len();
    json::float(out, v, is_f32);
    if raw && out[start..].starts_with('"') {
        let bare = out[start + 1..out.len() - 1].to_string();
        out.truncate(start);
        out.push_str(&bare);
    }
}

/// Append slot `i` of `array` (shaped by `field`) as JSON: lists as arrays, structs as
/// objects in field order, maps as arrays of `[key, value]` pairs, nulls as `null`.
fn nested_value(out: &mut String, field: &Field, array: &Array, i: usize) {
    if !array.is_valid(i) {
        out.push_str("null");
        return;
    }
    match (&field.data_type, array) {
        (DataType::Primitive(p), Array::Primitive(col)) => value(out, col, &format_of(p), i, false),
        (DataType::List(element), Array::List(list)) => {
            out.push('[');
            for (k, j) in list.offsets.range(i).enumerate() {
                if k > 0 {
                    out.push(',');
                }
                nested_value(out, element, &list.values, j);
            }
            out.push(']');
        }
        (DataType::Struct(children), Array::Struct(s)) => {
            out.push('{');
            for (k, (f, a)) in children.iter().zip(&s.children).enumerate() {
                if k > 0 {
                    out.push(',');
                }
                json::string(out, &f.name);
                out.push(':');
                nested_value(out, f, a, i);
            }
            out.push('}');
        }
        (DataType::Map(entries), Array::Map(list)) => {
            let (DataType::Struct(kv), Array::Struct(e)) =
                (&entries.data_type, list.values.as_ref())
            else {
                out.push_str("null");
                return;
            };
            out.push('[');
            for (k, j) in list.offsets.range(i).enumerate() {
                if k > 0 {
                    out.push(',');
                }
                out.push('[');
                match (kv.first(), e.children.first()) {
                    (Some(f), Some(a)) => nested_value(out, f, a, j),
                    _ => out.push_str("null"),
                }
                out.push(',');
                match (kv.get(1), e.children.get(1)) {
                    (Some(f), Some(a)) => nested_value(out, f, a, j),
                    _ => out.push_str("null"),
                }
                out.push(']');
            }
            out.push(']');
        }
        // A field and an array of different shapes cannot come out of the reader.
        _ => out.push_str("null"),
    }
}

/// The JSON text of each row of a variant group, back to back, and where each row's is
/// (`None`: a null row).
type VariantText = (String, Vec<Option<std::ops::Range<usize>>>);

fn variant_json(field: &Field, array: &Array) -> parq::Result<VariantText> {
    let variants = parq::variant::VariantArray::from_group(field, array)?;
    let mut text = String::new();
    let mut rows = Vec::with_capacity(variants.len());
    for i in 0..variants.len() {
        rows.push(match variants.get(i) {
            Some(v) => {
                let start = text.len();
                v?.write_json(&mut text)?;
                Some(start..text.len())
            }
            None => None,
        });
    }
    Ok((text, rows))
}

/// How `parq cat` and `parq head` print rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// One JSON object per row, keyed by top-level field name.
    Jsonl,
    /// A header row of top-level field names, then one row per record (RFC 4180 quoting;
    /// nested values as their JSON text; null as an empty cell).
    Csv,
}

/// Append `cell` as an RFC 4180 field: in double quotes (inner quotes doubled) when it holds a
/// comma, a quote, CR or LF, or when `quote` says so.
fn csv_cell(out: &mut String, cell: &str, quote: bool) {
    if quote || cell.contains([',', '"', '\r', '\n']) {
        out.push('"');
        out.push_str(&cell.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(cell);
    }
}

/// Append slot `row` of a top-level `array` as a CSV cell: null as an empty cell, an empty
/// string as `""` (so that the two stay apart), primitives as their bare text, nested values
/// as their JSON text, always quoted.
fn csv_value(out: &mut String, scratch: &mut String, field: &Field, array: &Array, row: usize) {
    if !array.is_valid(row) {
        return;
    }
    scratch.clear();
    match (&field.data_type, array) {
        (DataType::Primitive(p), Array::Primitive(col)) => {
            value(scratch, col, &format_of(p), row, true);
            csv_cell(out, scratch, scratch.is_empty());
        }
        _ => {
            nested_value(scratch, field, array, row);
            csv_cell(out, scratch, true);
        }
    }
}

/// Print rows of the chosen columns (top-level names or leaf dotted paths) as JSON Lines or
/// CSV, at most `limit` of them, those `filter` keeps; the CSV header first when
/// `csv_header` (a multi-file `cat` prints it once). Returns the rows printed. `parq head`
/// is this with a limit.
pub fn run<S: Source>(
    reader: &ParquetReader<S>,
    columns: Option<&str>,
    limit: Option<usize>,
    format: OutputFormat,
    filter: Option<&Expr>,
    csv_header: bool,
) -> parq::Result<usize> {
    // Every field by index: top-level names may repeat (a name that does is an error
    // listing its fields when given to --columns).
    let all = reader.fields()?;
    let printed_all = names_apart(all.iter().map(|f| f.name.as_str()));
    let columns: Vec<Select> = match columns {
        // A repeated name is asked for by the name it is printed under (`column_2`).
        Some(list) => list
            .split(',')
            .map(str::trim)
            .map(|c| match printed_all.iter().position(|p| p == c) {
                Some(k) if all[k].name != c => Select::Field(k),
                _ => Select::from(c),
            })
            .collect(),
        None => (0..all.len()).map(Select::Field).collect(),
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    // Standard output has no path; name it so that e.g. a closed pipe does not read as a
    // failure on the input file.
    let stdout_err = |e: std::io::Error| parq::Error::from(e).in_file("<stdout>");
    let limit = limit.unwrap_or(usize::MAX);
    let mut left = limit;
    let mut line = String::new();
    let mut scratch = String::new();
    if columns.is_empty() {
        return Ok(0);
    }
    // With a filter: pruned, then filtered one row group at a time. The limit stops the read
    // (without a filter, it narrows what is read to its rows).
    let mut read = reader
        .read_builder()
        .with_projection(columns.iter().cloned())
        .with_batch_size(4096);
    if let Some(expr) = filter {
        read = read.with_filter(expr.clone());
    }
    if limit != usize::MAX {
        read = read.with_limit(limit as u64);
    }
    let mut batches = read.build()?;
    let fields = batches.fields().to_vec();
    // Each projected field under the name it has among all the file's fields, so that a
    // repeated name prints the same whichever columns are asked for.
    let mut tops: Vec<usize> = Vec::new();
    for c in &columns {
        let top = match c {
            Select::Field(k) => Some(*k),
            Select::Path(p) => all.iter().position(|f| f.name == *p).or_else(|| {
                let schema = reader.schema();
                schema.find(p).map(|l| schema.leaf(l).top_level_field)
            }),
            _ => None,
        };
        if let Some(top) = top.filter(|t| !tops.contains(t)) {
            tops.push(top);
        }
    }
    let printed: Vec<String> = if tops.len() == fields.len() {
        tops.iter().map(|&k| printed_all[k].clone()).collect()
    } else {
        names_apart(fields.iter().map(|f| f.name.as_str()))
    };
    for (k, (field, name)) in fields.iter().zip(&printed).enumerate() {
        if field.name != *name && csv_header {
            eprintln!(
                "parq: note: field {} repeats the name {:?}: printed as {name:?}",
                tops.get(k).copied().unwrap_or(k),
                field.name
            );
        }
    }
    let names: Vec<String> = printed
        .iter()
        .map(|name| {
            let mut s = String::new();
            json::string(&mut s, name);
            s
        })
        .collect();
    if format == OutputFormat::Csv && csv_header {
        // The header comes even when no row follows.
        for (k, name) in printed.iter().enumerate() {
            if k > 0 {
                line.push(',');
            }
            csv_cell(&mut line, name, false);
        }
        line.push('\n');
        out.write_all(line.as_bytes()).map_err(stdout_err)?;
    }
    if left == 0 {
        out.flush().map_err(stdout_err)?;
        return Ok(0);
    }
    // Variant groups (whole, not a projection of their leaves) print as their JSON value.
    let variant_names = reader.variant_fields();
    let is_variant: Vec<bool> = fields
        .iter()
        .map(|f| {
            variant_names.contains(&f.name.as_str())
                && f.children().iter().any(|c| c.name == "metadata")
        })
        .collect();
    for batch in &mut batches {
        let parq::read::ArrayBatch {
            arrays, num_rows, ..
        } = batch?;
        let variants: Vec<Option<VariantText>> = fields
            .iter()
            .zip(&arrays)
            .zip(&is_variant)
            .map(|((f, a), &v)| v.then(|| variant_json(f, a)).transpose())
            .collect::<parq::Result<_>>()?;
        let variant_row = |k: usize, row: usize| {
            variants[k]
                .as_ref()
                .map(|(text, rows)| rows[row].clone().map(|r| &text[r]))
        };
        for row in 0..num_rows {
            line.clear();
            match format {
                OutputFormat::Csv => {
                    for (k, (field, array)) in fields.iter().zip(&arrays).enumerate() {
                        if k > 0 {
                            line.push(',');
                        }
                        match variant_row(k, row) {
                            Some(Some(json)) => csv_cell(&mut line, json, true),
                            Some(None) => {}
                            None => csv_value(&mut line, &mut scratch, field, array, row),
                        }
                    }
                    line.push('\n');
                }
                OutputFormat::Jsonl => {
                    line.push('{');
                    for (k, (field, array)) in fields.iter().zip(&arrays).enumerate() {
                        if k > 0 {
                            line.push(',');
                        }
                        line.push_str(&names[k]);
                        line.push(':');
                        match variant_row(k, row) {
                            Some(json) => line.push_str(json.unwrap_or("null")),
                            None => nested_value(&mut line, field, array, row),
                        }
                    }
                    line.push_str("}\n");
                }
            }
            out.write_all(line.as_bytes()).map_err(stdout_err)?;
            left -= 1;
            if left == 0 {
                out.flush().map_err(stdout_err)?;
                return Ok(limit);
            }
        }
    }
    out.flush().map_err(stdout_err)?;
    Ok(limit - left)
}

/// After `parq cat --invalid-utf8 escape`: say on stderr how many values were printed
/// escaped, so that the change is not silent.
pub fn report_escaped() {
    let n = ESCAPED.load(Ordering::Relaxed);
    if n > 0 {
        let s = if n == 1 { "" } else { "s" };
        eprintln!(
            "parq: warning: {n} value{s} of string columns not UTF-8, printed with the invalid \
             bytes as \\xHH"
        );
    }
}

/// Top-level names made distinct for printing, as DuckDB does: a name already taken gets
/// the first free suffix `_1`, `_2`, … (`column, column_1, column` prints as `column,
/// column_1, column_2`). Names are compared exactly, as Parquet does.
pub fn names_apart<'a>(names: impl Iterator<Item = &'a str>) -> Vec<String> {
    use std::collections::HashSet;
    let names: Vec<&str> = names.collect();
    // Sets, not scans: a wide file has thousands of names.
    let given: HashSet<&str> = names.iter().copied().collect();
    let mut taken: HashSet<String> = HashSet::with_capacity(names.len());
    let mut out = Vec::with_capacity(names.len());
    for name in names {
        let printed = if taken.contains(name) {
            (1..)
                .map(|k| format!("{name}_{k}"))
                .find(|c| !taken.contains(c) && !given.contains(c.as_str()))
                .expect("a free suffix")
        } else {
            name.to_string()
        };
        taken.insert(printed.clone());
        out.push(printed);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::names_apart;

    #[test]
    fn repeated_names_print_apart() {
        let got = names_apart(["column", "column_1", "column"].into_iter());
        assert_eq!(got, ["column", "column_1", "column_2"]);
        let got = names_apart(["a", "a", "a", "b"].into_iter());
        assert_eq!(got, ["a", "a_1", "a_2", "b"]);
        let got = names_apart(["a", "A"].into_iter());
        assert_eq!(got, ["a", "A"]);
    }
}
