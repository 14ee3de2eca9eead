//! The expression grammar of `parq cat --where`:
//!
//! ```text
//! expr    := and ("or" and)*
//! and     := unary ("and" unary)*
//! unary   := "not" unary | "(" expr ")" | path test
//! test    := op literal | ["not"] "in" "(" literal ("," literal)* ")" | "is" ["not"] "null"
//!          | "intersects" "box" "(" number "," number "," number "," number ")"
//! op      := "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//! path    := name ("." name)*          name: [A-Za-z_][A-Za-z0-9_]* or "double quoted"
//! literal := 'single quoted' ('' is a quote) | JSON number | "true" | "false"
//! ```
//!
//! Keywords are case-insensitive. A number with a fraction or exponent is an exact decimal
//! ([`Literal::Decimal`]), so `price = 1.10` means exactly 1.10 on a decimal column.

use std::fmt;

use super::expr::{col, CmpOp, Expr};
use super::literal::Literal;

/// A malformed expression: what was expected, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset in the input.
    pub offset: usize,
    /// What is wrong, in lower case.
    pub message: String,
    /// The whole input.
    pub input: String,
}

/// `message at byte N`, then the input and a caret under the offending byte.
impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{} at byte {}", self.message, self.offset)?;
        writeln!(f, "  {}", self.input.replace(['\n', '\r', '\t'], " "))?;
        let col = self
            .input
            .get(..self.offset)
            .map_or(self.offset, |s| s.chars().count());
        write!(f, "  {}^", " ".repeat(col))
    }
}

impl std::error::Error for ParseError {}

impl From<ParseError> for crate::Error {
    fn from(e: ParseError) -> Self {
        crate::Error::InvalidArgument(format!("bad expression: {e}"))
    }
}

impl Expr {
    /// Parse the `--where` grammar:
    ///
    /// ```text
    /// expr    := and ("or" and)*
    /// and     := unary ("and" unary)*
    /// unary   := "not" unary | "(" expr ")" | path test
    /// test    := op literal | ["not"] "in" "(" [literal ("," literal)*] ")" | "is" ["not"] "null"
    ///          | "intersects" "box" "(" xmin "," ymin "," xmax "," ymax ")"
    /// op      := "=" | "==" | "!=" | "<>" | "<" | "<=" | ">" | ">="
    /// path    := name ("." name)*      name: [A-Za-z_][A-Za-z0-9_]* (not a keyword) or "quoted"
    /// literal := 'single quoted' ('' is a quote) | JSON number | "true" | "false"
    /// ```
    ///
    /// Keywords are case-insensitive. A number with a fraction or exponent is an exact decimal
    /// ([`Literal::Decimal`]). An error gives the byte offset, and its `Display` shows the
    /// input with a caret under that byte.
    ///
    /// ```
    /// use parq::predicate::Expr;
    ///
    /// let e = Expr::parse("a.b in (1, 2) or (name = 'x' and not c is null)").unwrap();
    /// assert_eq!(e.columns(), ["a.b", "name", "c"]);
    /// let err = Expr::parse("a = ").unwrap_err();
    /// assert_eq!(err.offset, 4);
    /// assert!(err.to_string().ends_with("      ^"));
    /// ```
    pub fn parse(input: &str) -> Result<Expr, ParseError> {
        let mut p = Parser {
            input,
            pos: 0,
            depth: 0,
        };
        let e = p.or()?;
        p.skip_ws();
        if p.pos < input.len() {
            return Err(p.error("expected `and`, `or` or the end"));
        }
        Ok(e)
    }
}

/// Nesting deeper than this is an error, not a stack overflow.
const MAX_DEPTH: usize = 200;

struct Parser<'a> {
    input: &'a str,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, message: impl Into<String>) -> ParseError {
        self.error_at(self.pos, message)
    }

    fn error_at(&self, offset: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            offset,
            message: message.into(),
            input: self.input.to_string(),
        }
    }

    fn rest(&self) -> &str {
        &self.input[self.pos..]
    }

    fn skip_ws(&mut self) {
        let trimmed = self.rest().trim_start();
        self.pos = self.input.len() - trimmed.len();
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_ws();
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// A case-insensitive keyword not followed by a name character.
    fn keyword(&mut self, kw: &str) -> bool {
        self.skip_ws();
        let rest = self.rest();
        let matches = rest
            .get(..kw.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(kw))
            && !rest[kw.len()..]
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        if matches {
            self.pos += kw.len();
        }
        matches
    }

    fn or(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.and()?;
        while self.keyword("or") {
            e = e.or(self.and()?);
        }
        Ok(e)
    }

    fn and(&mut self) -> Result<Expr, ParseError> {
        let mut e = self.unary()?;
        while self.keyword("and") {
            e = e.and(self.unary()?);
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(format!("nested deeper than {MAX_DEPTH}")));
        }
        let e = if self.keyword("not") {
            self.unary()?.not()
        } else if self.eat("(") {
            let e = self.or()?;
            if !self.eat(")") {
                return Err(self.error("expected `)`"));
            }
            e
        } else {
            let column = self.path()?;
            self.test(column)?
        };
        self.depth -= 1;
        Ok(e)
    }

    fn name(&mut self) -> Result<String, ParseError> {
        self.skip_ws();
        let rest = self.rest();
        if let Some(quoted) = rest.strip_prefix('"') {
            let Some(end) = quoted.find('"') else {
                return Err(self.error("unterminated quoted name"));
            };
            let name = quoted[..end].to_string();
            self.pos += end + 2;
            return Ok(name);
        }
        let len = rest
            .char_indices()
            .find(|&(i, c)| !(c.is_ascii_alphabetic() || c == '_' || (i > 0 && c.is_ascii_digit())))
            .map_or(rest.len(), |(i, _)| i);
        if len == 0 {
            return Err(self.error("expected a column name"));
        }
        let name = rest[..len].to_string();
        const KEYWORDS: [&str; 8] = ["and", "or", "not", "in", "is", "null", "true", "false"];
        if KEYWORDS.iter().any(|k| k.eq_ignore_ascii_case(&name)) {
            return Err(self.error(format!(
                "expected a column name, found `{name}` (quote a column of that name: \"{name}\")"
            )));
        }
        self.pos += len;
        Ok(name)
    }

    fn path(&mut self) -> Result<String, ParseError> {
        let mut path = self.name()?;
        while self.rest().starts_with('.') {
            self.pos += 1;
            path.push('.');
            path.push_str(&self.name()?);
        }
        Ok(path)
    }

    fn test(&mut self, column: String) -> Result<Expr, ParseError> {
        if self.keyword("is") {
            let negated = self.keyword("not");
            if !self.keyword("null") {
                return Err(self.error("expected `null`"));
            }
            return Ok(Expr::IsNull { column, negated });
        }
        if self.keyword("intersects") {
            return self.intersects(column);
        }
        let negated = self.keyword("not");
        if self.keyword("in") {
            if !self.eat("(") {
                return Err(self.error("expected `(`"));
            }
            let mut values = Vec::new();
            if !self.eat(")") {
                loop {
                    values.push(self.literal()?);
                    if self.eat(")") {
                        break;
                    }
                    if !self.eat(",") {
                        return Err(self.error("expected `,` or `)`"));
                    }
                }
            }
            return Ok(Expr::In {
                column,
                values,
                negated,
            });
        }
        if negated {
            return Err(self.error("expected `in`"));
        }
        // Longest operators first.
        const OPS: [(&str, CmpOp); 8] = [
            ("==", CmpOp::Eq),
            ("!=", CmpOp::Ne),
            ("<>", CmpOp::Ne),
            ("<=", CmpOp::Le),
            (">=", CmpOp::Ge),
            ("=", CmpOp::Eq),
            ("<", CmpOp::Lt),
            (">", CmpOp::Gt),
        ];
        let Some(op) = OPS.iter().find(|(s, _)| self.eat(s)).map(|(_, op)| *op) else {
            return Err(self.error(
                "expected an operator (=, !=, <, <=, >, >=), `in`, `not in` or `is [not] null`",
            ));
        };
        let value = self.literal()?;
        Ok(Expr::Cmp { column, op, value })
    }

    /// `box(xmin, ymin, xmax, ymax)` after `intersects`.
    fn intersects(&mut self, column: String) -> Result<Expr, ParseError> {
        if !self.keyword("box") || !self.eat("(") {
            return Err(self.error("expected `box(`"));
        }
        let mut b = [0f64; 4];
        for (k, v) in b.iter_mut().enumerate() {
            if k > 0 && !self.eat(",") {
                return Err(self.error("expected `,`"));
            }
            let start = self.pos;
            *v = match self.literal()? {
                Literal::Int(i) => i as f64,
                Literal::Float(f) => f,
                Literal::Decimal { unscaled, scale } => {
                    unscaled as f64 / 10f64.powi(scale.min(i32::MAX as u32) as i32)
                }
                _ => return Err(self.error_at(start, "expected a number")),
            };
        }
        if !self.eat(")") {
            return Err(self.error("expected `)`"));
        }
        Ok(col(column).intersects_box(b[0], b[1], b[2], b[3]))
    }

    fn literal(&mut self) -> Result<Literal, ParseError> {
        match self.peek() {
            Some('\'') => {
                let start = self.pos;
                self.pos += 1;
                let mut s = String::new();
                loop {
                    let rest = self.rest();
                    let Some(q) = rest.find('\'') else {
                        return Err(self.error_at(start, "unterminated string"));
                    };
                    s.push_str(&rest[..q]);
                    self.pos += q + 1;
                    if self.rest().starts_with('\'') {
                        s.push('\'');
                        self.pos += 1;
                    } else {
                        return Ok(Literal::String(s));
                    }
                }
            }
            Some(c) if c == '-' || c.is_ascii_digit() => {
                let start = self.pos;
                let len = number_len(self.rest().as_bytes())
                    .ok_or_else(|| self.error("malformed number"))?;
                let text = &self.input[start..start + len];
                let lit = parse_number(text)
                    .ok_or_else(|| self.error_at(start, "number out of range"))?;
                self.pos += len;
                Ok(lit)
            }
            _ if self.keyword("true") => Ok(Literal::Bool(true)),
            _ if self.keyword("false") => Ok(Literal::Bool(false)),
            _ => Err(self.error("expected a literal ('string', number, true or false)")),
        }
    }
}

/// The length of the JSON number at the start of `b`, if one is there.
fn number_len(b: &[u8]) -> Option<usize> {
    let mut i = 0;
    let digits = |i: &mut usize| {
        let start = *i;
        while b.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > start
    };
    if b.first() == Some(&b'-') {
        i += 1;
    }
    match b.get(i) {
        Some(b'0') => i += 1,
        Some(b'1'..=b'9') => {
            digits(&mut i);
        }
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        i += 1;
        if !digits(&mut i) {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if !digits(&mut i) {
            return None;
        }
    }
    // `1abc` is not a number followed by a name.
    if b.get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_' || *c == b'.')
    {
        return None;
    }
    Some(i)
}

/// A JSON number as an integer, or an exact decimal when it has a fraction or exponent (a
/// binary float when the decimal does not fit). `None` for malformed text or an integer
/// beyond `i128`.
pub(crate) fn parse_number(text: &str) -> Option<Literal> {
    let (mantissa, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !text.contains(['.', 'e', 'E']) {
        return text.parse::<i128>().ok().map(Literal::Int);
    }
    let float = || text.parse::<f64>().ok().map(Literal::Float);
    let digits = format!("{int}{frac}");
    let Ok(unscaled) = digits.parse::<i128>() else {
        return float();
    };
    let scale = frac.len() as i64 - exp;
    if scale >= 0 {
        match u32::try_from(scale) {
            Ok(scale) if scale <= 76 => Some(Literal::Decimal { unscaled, scale }),
            _ => float(),
        }
    } else {
        let p = u32::try_from(-scale)
            .ok()
            .and_then(|s| 10i128.checked_pow(s));
        match p.and_then(|p| unscaled.checked_mul(p)) {
            Some(v) => Some(Literal::Decimal {
                unscaled: v,
                scale: 0,
            }),
            None => float(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::predicate::col;

    #[test]
    fn precedence_and_forms() {
        let e = Expr::parse("a = 1 or b < 2 and not c is not null").unwrap();
        assert_eq!(
            e,
            col("a")
                .eq(1)
                .or(col("b").lt(2).and(col("c").is_not_null().not()))
        );
        let e = Expr::parse("(x.y NOT IN ('a', 'it''s') ) AND z >= -1.5e1").unwrap();
        assert_eq!(
            e,
            col("x.y")
                .not_in(["a", "it's"])
                .and(col("z").ge(Literal::Decimal {
                    unscaled: -15,
                    scale: 0
                }))
        );
        assert_eq!(
            Expr::parse("\"odd name\".b != true").unwrap(),
            col("odd name.b").ne(true)
        );
        assert_eq!(
            Expr::parse("a in ()").unwrap(),
            col("a").is_in(Vec::<i32>::new())
        );
    }

    #[test]
    fn numbers_are_json() {
        assert_eq!(parse_number("-0"), Some(Literal::Int(0)));
        assert_eq!(
            parse_number("1.25"),
            Some(Literal::Decimal {
                unscaled: 125,
                scale: 2
            })
        );
        assert_eq!(
            parse_number("2e3"),
            Some(Literal::Decimal {
                unscaled: 2000,
                scale: 0
            })
        );
        assert_eq!(parse_number("1e400"), Some(Literal::Float(f64::INFINITY)));
        for bad in ["a = 01", "a = 1.", "a = .5", "a = 1e", "a = +1", "a = 1x"] {
            assert!(Expr::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn errors_point_at_the_position() {
        let cases = [
            ("a = ", 4),
            ("a == 'x", 5),
            ("a is nul", 5),
            ("(a = 1", 6),
            ("a = 1 b", 6),
            ("a ~ 1", 2),
            ("= 1", 0),
            ("a in (1 2)", 8),
            ("a not = 1", 6),
            ("a = 1 and and", 10),
            ("not = 1", 4),
        ];
        for (input, offset) in cases {
            let e = Expr::parse(input).unwrap_err();
            assert_eq!(e.offset, offset, "{input}: {e}");
            let caret = e.to_string().lines().last().unwrap().to_string();
            assert_eq!(caret.len(), 2 + offset + 1, "{input}: {e}");
        }
        let deep = format!("{}a = 1{}", "(".repeat(500), ")".repeat(500));
        assert!(Expr::parse(&deep).is_err());
    }

    #[test]
    fn display_parses_back() {
        let e = col("a")
            .is_in([Literal::Int(1), Literal::Float(0.5)])
            .or(col("s").eq("it's").not())
            .and(col("d").is_null());
        assert_eq!(Expr::parse(&e.to_string()).unwrap(), {
            // 0.5 reads back as an exact decimal.
            col("a")
                .is_in([
                    Literal::Int(1),
                    Literal::Decimal {
                        unscaled: 5,
                        scale: 1,
                    },
                ])
                .or(col("s").eq("it's").not())
                .and(col("d").is_null())
        });
    }
}
