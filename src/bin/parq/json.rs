//! Minimal JSON text helpers (the CLI writes JSON by hand; the library has no serde).

use std::fmt::Write;

/// Append `s` as a JSON string literal.
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Append lowercase hex of `bytes` as a JSON string.
pub fn hex(out: &mut String, bytes: &[u8]) {
    out.push('"');
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out.push('"');
}

/// Append a float as the shortest decimal that round-trips, or "NaN"/"inf"/"-inf".
pub fn float(out: &mut String, v: f64, is_f32: bool) {
    if v.is_nan() {
        out.push_str("\"NaN\"");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "\"inf\"" } else { "\"-inf\"" });
    } else if is_f32 {
        let _ = write!(out, "{:?}", v as f32);
    } else {
        let _ = write!(out, "{v:?}");
    }
}
