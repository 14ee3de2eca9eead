//! Variant to JSON text.
//!
//! JSON has fewer types than Variant; the others are written as strings the way engines
//! print them (Spark's `to_json` of a variant, and parquet-testing's `data_dictionary.json`):
//! - integers, floats, doubles: numbers (non-finite floats: the strings `"NaN"`,
//!   `"Infinity"`, `"-Infinity"`);
//! - decimals: exact numbers with `scale` digits after the point (`12.30`), never through a
//!   float;
//! - date: `"2025-04-16"`; time: `"12:34:56.123456"`;
//! - timestamps: ISO 8601, `"2025-04-16T12:34:56.780000+00:00"` with a time zone (UTC),
//!   without the offset for the no-time-zone kinds; nanosecond kinds with 9 digits;
//! - binary: a base64 string (standard alphabet, padded); UUID: the hyphenated form.

use std::fmt::Write as _;

use super::decode::VariantRef;
use super::metadata::MetadataCache;
use super::owned::Variant;
use super::rebuild::VariantArray;
use super::{variant_error, MAX_DEPTH};
use crate::Result;

impl VariantRef<'_> {
    /// The value as JSON text (see the module docs for types JSON lacks).
    pub fn to_json(&self) -> Result<String> {
        let mut out = String::new();
        self.write_json(&mut out)?;
        Ok(out)
    }

    /// Append the value as JSON text to `out`.
    pub fn write_json(&self, out: &mut String) -> Result<()> {
        write_json(self, out, 0)
    }
}

impl VariantArray {
    /// Append every row as JSON text to `text`, and after each row its end in `text` to
    /// `offsets` (a null row adds nothing to `text`): row `i` is
    /// `text[offsets[i]..offsets[i + 1]]` when `offsets` starts as `[0]`. Each distinct
    /// metadata dictionary of the column is decoded once.
    ///
    /// ```
    /// use parq::variant::{Variant, VariantArray};
    /// let rows = [Some(Variant::Int8(1)), None, Some(Variant::String("a".into()))];
    /// let (mut text, mut offsets) = (String::new(), vec![0]);
    /// VariantArray::from_variants(&rows)?.write_json(&mut text, &mut offsets)?;
    /// assert_eq!((text.as_str(), offsets), ("1\"a\"", vec![0, 1, 1, 4]));
    /// # Ok::<(), parq::Error>(())
    /// ```
    pub fn write_json(&self, text: &mut String, offsets: &mut Vec<usize>) -> Result<()> {
        let mut dictionaries = MetadataCache::new();
        offsets.reserve(self.len());
        for i in 0..self.len() {
            if let Some((m, v)) = self.encoded(i) {
                let m = dictionaries.decode(m)?;
                write_json(&VariantRef::new(m, v)?, text, 0)?;
            }
            offsets.push(text.len());
        }
        Ok(())
    }
}

impl Variant {
    /// The value as JSON text (see [`VariantRef::to_json`]).
    pub fn to_json(&self) -> Result<String> {
        let enc = self.encode()?;
        let m = super::VariantMetadata::new(&enc.metadata)?;
        VariantRef::new(m, &enc.value)?.to_json()
    }
}

fn write_json(v: &VariantRef<'_>, out: &mut String, depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(variant_error(format!(
            "value nested deeper than {MAX_DEPTH} levels"
        )));
    }
    match *v {
        VariantRef::Null => out.push_str("null"),
        VariantRef::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
        VariantRef::Int8(x) => integer(out, i128::from(x)),
        VariantRef::Int16(x) => integer(out, i128::from(x)),
        VariantRef::Int32(x) => integer(out, i128::from(x)),
        VariantRef::Int64(x) => integer(out, i128::from(x)),
        VariantRef::Float(x) if x.is_finite() => push(out, x),
        VariantRef::Double(x) if x.is_finite() => push(out, x),
        VariantRef::Float(x) => non_finite(out, f64::from(x)),
        VariantRef::Double(x) => non_finite(out, x),
        VariantRef::Decimal4 { unscaled, scale } => decimal(out, i128::from(unscaled), scale),
        VariantRef::Decimal8 { unscaled, scale } => decimal(out, i128::from(unscaled), scale),
        VariantRef::Decimal16 { unscaled, scale } => decimal(out, unscaled, scale),
        VariantRef::Date(days) => {
            out.push('"');
            date(out, i64::from(days));
            out.push('"');
        }
        VariantRef::TimeMicros(us) => {
            out.push('"');
            time_of_day(out, us.rem_euclid(86_400_000_000) * 1000, 6);
            out.push('"');
        }
        VariantRef::TimestampMicros(us) => timestamp(out, us, 1_000_000, 6, true),
        VariantRef::TimestampNtzMicros(us) => timestamp(out, us, 1_000_000, 6, false),
        VariantRef::TimestampNanos(ns) => timestamp(out, ns, 1_000_000_000, 9, true),
        VariantRef::TimestampNtzNanos(ns) => timestamp(out, ns, 1_000_000_000, 9, false),
        VariantRef::Binary(b) => {
            out.push('"');
            base64(out, b);
            out.push('"');
        }
        VariantRef::String(s) => string(out, s),
        VariantRef::Uuid(u) => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.push('"');
            for (i, b) in u.iter().enumerate() {
                if matches!(i, 4 | 6 | 8 | 10) {
                    out.push('-');
                }
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 15)]));
            }
            out.push('"');
        }
        VariantRef::Object(o) => {
            out.push('{');
            for i in 0..o.len() {
                if i > 0 {
                    out.push(',');
                }
                let (name, value) = o.field(i)?;
                string(out, name);
                out.push(':');
                write_json(&value, out, depth + 1)?;
            }
            out.push('}');
        }
        VariantRef::Array(a) => {
            out.push('[');
            for i in 0..a.len() {
                if i > 0 {
                    out.push(',');
                }
                write_json(&a.get(i)?, out, depth + 1)?;
            }
            out.push(']');
        }
    }
    Ok(())
}

/// A finite float as `Display` writes it (shortest digits that read back, no exponent).
fn push(out: &mut String, x: impl std::fmt::Display) {
    let _ = write!(out, "{x}");
}

fn non_finite(out: &mut String, x: f64) {
    out.push_str(if x.is_nan() {
        "\"NaN\""
    } else if x > 0.0 {
        "\"Infinity\""
    } else {
        "\"-Infinity\""
    });
}

/// The decimal digits of `v`, written from the end of `buf` backwards (two at a time);
/// returns where they start. 39 bytes hold any `u128`.
fn digits(mut v: u128, buf: &mut [u8; 39]) -> usize {
    const PAIRS: &[u8; 200] = b"\
        0001020304050607080910111213141516171819\
        2021222324252627282930313233343536373839\
        4041424344454647484950515253545556575859\
        6061626364656667686970717273747576777879\
        8081828384858687888990919293949596979899";
    let mut at = buf.len();
    // u64 arithmetic once the value fits (every variant integer and most decimals).
    while v > u128::from(u64::MAX) {
        at -= 1;
        buf[at] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    let mut v = v as u64;
    while v >= 100 {
        let pair = (v % 100) as usize * 2;
        v /= 100;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    }
    if v >= 10 {
        let pair = v as usize * 2;
        at -= 2;
        buf[at..at + 2].copy_from_slice(&PAIRS[pair..pair + 2]);
    } else {
        at -= 1;
        buf[at] = b'0' + v as u8;
    }
    at
}

/// An integer in decimal, as `Display` writes it, without the formatting machinery.
fn integer(out: &mut String, v: i128) {
    if v < 0 {
        out.push('-');
    }
    let mut buf = [0u8; 39];
    let at = digits(v.unsigned_abs(), &mut buf);
    out.push_str(ascii(&buf[at..]));
}

/// Bytes known to be ASCII digits as a `str`.
fn ascii(b: &[u8]) -> &str {
    std::str::from_utf8(b).unwrap_or_default()
}

/// `unscaled * 10^-scale`, exactly.
fn decimal(out: &mut String, unscaled: i128, scale: u8) {
    if unscaled < 0 {
        out.push('-');
    }
    let mut buf = [0u8; 39];
    let at = digits(unscaled.unsigned_abs(), &mut buf);
    let digits = ascii(&buf[at..]);
    let scale = usize::from(scale);
    if scale == 0 {
        out.push_str(digits);
    } else if digits.len() > scale {
        let (int, frac) = digits.split_at(digits.len() - scale);
        out.push_str(int);
        out.push('.');
        out.push_str(frac);
    } else {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', scale - digits.len()));
        out.push_str(digits);
    }
}

/// Append `s` as a JSON string literal (also the CLI's escaping, so there is one).
///
/// Runs of bytes that need no escape (all but `"`, `\` and controls, so every byte of a
/// multi-byte character too) are copied whole, found with a table lookup per byte.
pub fn string(out: &mut String, s: &str) {
    out.reserve(s.len() + 2);
    out.push('"');
    let bytes = s.as_bytes();
    let mut run = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escape = ESCAPE[usize::from(b)];
        if escape == 0 {
            continue;
        }
        // `b` is ASCII, so `run..i` and `i + 1..` start and end on character boundaries.
        out.push_str(&s[run..i]);
        run = i + 1;
        match escape {
            b'u' => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(b >> 4)]));
                out.push(char::from(HEX[usize::from(b & 15)]));
            }
            e => {
                out.push('\\');
                out.push(char::from(e));
            }
        }
    }
    out.push_str(&s[run..]);
    out.push('"');
}

/// Per byte, how a JSON string writes it: 0 as itself, `u` as `\u00XX`, else a backslash and
/// that letter.
const ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[b'\n' as usize] = b'n';
    t[b'\r' as usize] = b'r';
    t[b'\t' as usize] = b't';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

/// The proleptic Gregorian date of `days` since 1970-01-01 (the civil-from-days method of
/// counting 400-year eras from 0000-03-01).
fn date(out: &mut String, days: i64) {
    let (year, month, day) = crate::predicate::temporal::civil_from_days(days);
    if (0..=9999).contains(&year) {
        let _ = write!(out, "{year:04}-{month:02}-{day:02}");
    } else {
        let _ = write!(out, "{year:+05}-{month:02}-{day:02}");
    }
}

/// `HH:MM:SS.fraction` of `nanos` since midnight, with `digits` (6 or 9) fraction digits.
fn time_of_day(out: &mut String, nanos: i64, digits: u32) {
    let secs = nanos / 1_000_000_000;
    let frac = nanos % 1_000_000_000 / 10i64.pow(9 - digits);
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}.{frac:0width$}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60,
        width = digits as usize
    );
}

fn timestamp(out: &mut String, ticks: i64, per_second: i64, digits: u32, utc: bool) {
    let per_day = per_second * 86_400;
    let days = ticks.div_euclid(per_day);
    let in_day = ticks.rem_euclid(per_day);
    out.push('"');
    date(out, days);
    out.push('T');
    time_of_day(out, in_day * (1_000_000_000 / per_second), digits);
    if utc {
        out.push_str("+00:00");
    }
    out.push('"');
}

fn base64(out: &mut String, b: &[u8]) {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for chunk in b.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &x)| n | (u32::from(x) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(v: VariantRef<'_>) -> String {
        v.to_json().unwrap()
    }

    #[test]
    fn types_json_lacks_are_strings() {
        assert_eq!(json(VariantRef::Date(20194)), "\"2025-04-16\"");
        assert_eq!(json(VariantRef::Date(-719_528)), "\"0000-01-01\"");
        assert_eq!(json(VariantRef::Date(-1)), "\"1969-12-31\"");
        assert_eq!(
            json(VariantRef::TimestampMicros(1_744_806_896_780_000)),
            "\"2025-04-16T12:34:56.780000+00:00\""
        );
        assert_eq!(
            json(VariantRef::TimestampNtzMicros(-1)),
            "\"1969-12-31T23:59:59.999999\""
        );
        assert_eq!(
            json(VariantRef::TimestampNanos(1_730_982_834_123_456_789)),
            "\"2024-11-07T12:33:54.123456789+00:00\""
        );
        assert_eq!(
            json(VariantRef::TimeMicros(45_234_123_456)),
            "\"12:33:54.123456\""
        );
        assert_eq!(json(VariantRef::Binary(b"")), "\"\"");
        assert_eq!(json(VariantRef::Binary(b"f")), "\"Zg==\"");
        assert_eq!(json(VariantRef::Binary(b"fo")), "\"Zm8=\"");
        assert_eq!(json(VariantRef::Binary(b"foobar")), "\"Zm9vYmFy\"");
        assert_eq!(json(VariantRef::Float(f32::NAN)), "\"NaN\"");
        assert_eq!(json(VariantRef::Double(f64::NEG_INFINITY)), "\"-Infinity\"");
        assert_eq!(
            json(VariantRef::String("a\"\\\n\u{1}")),
            r#""a\"\\\n\u0001""#
        );
    }

    #[test]
    fn decimals_are_exact() {
        let d = |unscaled: i128, scale: u8| json(VariantRef::Decimal16 { unscaled, scale });
        assert_eq!(d(1234, 2), "12.34");
        assert_eq!(d(-5, 3), "-0.005");
        assert_eq!(d(1230, 2), "12.30");
        assert_eq!(d(7, 0), "7");
        assert_eq!(d(i128::MAX, 38), "1.70141183460469231731687303715884105727");
        assert_eq!(
            json(VariantRef::Decimal8 {
                unscaled: i64::MIN,
                scale: 1
            }),
            "-922337203685477580.8"
        );
    }
}
