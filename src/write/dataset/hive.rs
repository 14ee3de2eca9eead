//! Hive-style partition folders (`key=value/`): the escaping Hive's `FileUtils.escapePathName`
//! and Spark's `ExternalCatalogUtils.escapePathName` apply, so that engines reading the
//! folders back (Spark, Hive, Trino, DataFusion, pyarrow's "hive" flavour) see the values
//! that were written.

/// The folder name of a null partition value (Hive's `hive.exec.default.partition.name`,
/// which Spark also writes). An empty string is written as this too, as Spark does, so it
/// reads back as null.
pub const HIVE_DEFAULT_PARTITION: &str = "__HIVE_DEFAULT_PARTITION__";

/// Whether Hive and Spark escape `c` in a path name: the ASCII controls 0x01 to 0x1F, DEL,
/// and `"#%'*/:=?\^{[]`. (Spark adds space and `<>|` on Windows only; they are not escaped
/// here, so the folders are the same on every platform.)
fn needs_escaping(c: char) -> bool {
    matches!(
        c,
        '\u{01}'
            ..='\u{1F}'
                | '"'
                | '#'
                | '%'
                | '\''
                | '*'
                | '/'
                | ':'
                | '='
                | '?'
                | '\\'
                | '\u{7F}'
                | '{'
                | '['
                | ']'
                | '^'
    )
}

/// `name` as one segment of a partition path: each character Hive escapes becomes `%XX`
/// (uppercase hex of its code), everything else (non-ASCII included) is kept.
///
/// ```
/// use parq::write::dataset::{escape_path_name, unescape_path_name};
/// assert_eq!(escape_path_name("a/b=c %"), "a%2Fb%3Dc %25");
/// assert_eq!(unescape_path_name("a%2Fb%3Dc %25"), "a/b=c %");
/// ```
pub fn escape_path_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if needs_escaping(c) {
            out.push_str(&format!("%{:02X}", c as u32));
        } else {
            out.push(c);
        }
    }
    out
}

/// The inverse of [`escape_path_name`], as Hive and Spark read folder names: `%` and two hex
/// digits is the character of that code; a `%` not followed by two hex digits is kept.
pub fn unescape_path_name(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    let mut chars = segment.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '%' {
            let hex = segment.get(i + 1..i + 3);
            if let Some(code) = hex
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(char::from(code));
                chars.next();
                chars.next();
                continue;
            }
        }
        out.push(c);
    }
    out
}

/// The folder of one partition column: `escaped name=escaped value`, or the default
/// partition name for a null or empty value.
pub(crate) fn segment(name: &str, value: Option<&str>) -> String {
    match value.filter(|v| !v.is_empty()) {
        Some(v) => format!("{}={}", escape_path_name(name), escape_path_name(v)),
        None => format!("{}={HIVE_DEFAULT_PARTITION}", escape_path_name(name)),
    }
}

/// The partition values a relative path names, in folder order: each `key=value` folder
/// unescaped, the default partition name read as null. Folders without `=` (and the file
/// name) are skipped.
///
/// ```
/// use parq::write::dataset::parse_partition_path;
/// let values = parse_partition_path("day=2024-01-02/city=S%C3o Paulo/part-0.parquet");
/// assert_eq!(values[0], ("day".to_string(), Some("2024-01-02".to_string())));
/// let values = parse_partition_path("k=__HIVE_DEFAULT_PARTITION__/part-0.parquet");
/// assert_eq!(values, vec![("k".to_string(), None)]);
/// ```
pub fn parse_partition_path(path: &str) -> Vec<(String, Option<String>)> {
    let mut folders: Vec<&str> = path.split('/').collect();
    folders.pop(); // the file name
    folders
        .into_iter()
        .filter_map(|f| f.split_once('='))
        .map(|(k, v)| {
            let value = (v != HIVE_DEFAULT_PARTITION).then(|| unescape_path_name(v));
            (unescape_path_name(k), value)
        })
        .collect()
}

/// A date (days since 1970-01-01) as `YYYY-MM-DD` (proleptic Gregorian; years outside
/// 0..=9999 keep their sign and digits).
pub(crate) fn date_string(days: i64) -> String {
    let (year, month, day) = crate::predicate::temporal::civil_from_days(days);
    if year < 0 {
        format!("-{:04}-{month:02}-{day:02}", -year)
    } else {
        format!("{year:04}-{month:02}-{day:02}")
    }
}

/// An unscaled decimal integer with `scale` digits after the point (`12345`, 2 → `123.45`).
pub(crate) fn decimal_string(unscaled: i128, scale: u32) -> String {
    if scale == 0 {
        return unscaled.to_string();
    }
    let digits = unscaled.unsigned_abs().to_string();
    let scale = scale as usize;
    let padded = if digits.len() <= scale {
        format!("{}{digits}", "0".repeat(scale + 1 - digits.len()))
    } else {
        digits
    };
    let (int, frac) = padded.split_at(padded.len() - scale);
    let sign = if unscaled < 0 { "-" } else { "" };
    format!("{sign}{int}.{frac}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_hive() {
        assert_eq!(escape_path_name("plain-name_1.x"), "plain-name_1.x");
        assert_eq!(
            escape_path_name("\"#%'*/:=?\\{[]^"),
            "%22%23%25%27%2A%2F%3A%3D%3F%5C%7B%5B%5D%5E"
        );
        assert_eq!(escape_path_name("\n\u{1}\u{7f}"), "%0A%01%7F");
        // Kept: space, `}`, `<>|`, `~`, non-ASCII, NUL (Hive's set starts at 0x01).
        assert_eq!(escape_path_name(" }<>|~é\u{0}"), " }<>|~é\u{0}");
        assert_eq!(segment("a b", Some("x/y")), "a b=x%2Fy");
        assert_eq!(segment("k", None), "k=__HIVE_DEFAULT_PARTITION__");
        assert_eq!(segment("k", Some("")), "k=__HIVE_DEFAULT_PARTITION__");
    }

    #[test]
    fn unescapes_as_hive() {
        assert_eq!(unescape_path_name("%2f%2F%zz%4"), "//%zz%4");
        assert_eq!(unescape_path_name("é%"), "é%");
        for s in ["a=b/c%d", "ünï/cödé", "%%%", "\u{1}\u{7f}x"] {
            assert_eq!(unescape_path_name(&escape_path_name(s)), s);
        }
    }

    #[test]
    fn dates_and_decimals() {
        assert_eq!(date_string(0), "1970-01-01");
        assert_eq!(date_string(19_723), "2024-01-01");
        assert_eq!(date_string(-1), "1969-12-31");
        assert_eq!(date_string(11_016), "2000-02-29");
        assert_eq!(date_string(-719_528), "0000-01-01");
        assert_eq!(decimal_string(12_345, 2), "123.45");
        assert_eq!(decimal_string(-5, 3), "-0.005");
        assert_eq!(decimal_string(7, 0), "7");
        assert_eq!(decimal_string(-100, 2), "-1.00");
    }
}
