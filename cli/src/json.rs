//! Minimal JSON text helpers (the CLI writes JSON by hand; the library has no serde).

use std::fmt::Write;

/// Append `s` as a JSON string literal (the variant JSON writer's escaping).
pub fn string(out: &mut String, s: &str) {
    parq::variant::json_string(out, s);
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
        out.push_str(&shortest_f32(v as f32));
    } else {
        let _ = write!(out, "{v:?}");
    }
}

/// The shortest decimal that parses back to `v`; among equally short candidates the one
/// nearest to `v`, ties to even (the choice `%.{p}g` makes, so the text is deterministic).
fn shortest_f32(v: f32) -> String {
    for digits in 1..=9 {
        let sci = format!("{:.*e}", digits - 1, v as f64);
        if sci.parse::<f32>() == Ok(v) {
            return positional(&sci);
        }
    }
    format!("{v:?}")
}

/// `-1.25e2` -> `-125.0`; keeps scientific notation for very large or small exponents.
fn positional(sci: &str) -> String {
    let Some((mantissa, exp)) = sci.split_once('e') else {
        return sci.to_string();
    };
    let Ok(exp) = exp.parse::<i32>() else {
        return sci.to_string();
    };
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    if !(-5..=16).contains(&exp) {
        return sci.to_string();
    }
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    let point = 1 + exp; // position of the decimal point within `digits`
    let s = if point <= 0 {
        format!("0.{}{}", "0".repeat((-point) as usize), digits)
    } else if point as usize >= digits.len() {
        format!("{}{}.0", digits, "0".repeat(point as usize - digits.len()))
    } else {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    };
    format!("{sign}{s}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_ties_go_to_even_and_render_positionally() {
        let tie: f32 = "-301065.625".parse().unwrap();
        assert_eq!(shortest_f32(tie), "-301065.62");
        assert_eq!(shortest_f32(1.0), "1.0");
        assert_eq!(shortest_f32(0.1), "0.1");
        assert_eq!(shortest_f32(1.5e-7), "1.5e-7");
        assert_eq!(shortest_f32(f32::MAX), "3.4028235e38");
        assert_eq!(shortest_f32(-0.0), "-0.0");
        assert_eq!(shortest_f32(123456.0), "123456.0");
    }
}
