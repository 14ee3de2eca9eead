//! Predicates on arbitrary input: the `--where` parser never panics, and pruning by
//! statistics and by a column index never rules out a row that satisfies the predicate
//! (statistics built truthfully from arbitrary rows), nor panics on garbage statistics.
//! See `parq::predicate::fuzzing::check`.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

/// Tokens of the grammar, so that most inputs parse.
const TOKENS: &[&str] = &[
    "x",
    "x",
    "x",
    "=",
    "!=",
    "<",
    "<=",
    ">",
    ">=",
    "and",
    "or",
    "not",
    "(",
    ")",
    "in",
    "is",
    "null",
    ",",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "2",
    "-8",
    "7",
    "0.5",
    "-0.0",
    "1e3",
    "4294967295",
    "-3.5",
    "'a'",
    "'ab'",
    "''",
    "'b'",
    "'d'",
    "'abd'",
    "1.25",
    "NaN",
    "x.y",
];

#[derive(Arbitrary, Debug)]
struct Input {
    /// Raw text instead of tokens.
    raw: Option<String>,
    tokens: Vec<u8>,
    kind: u8,
    rows: Vec<Option<u64>>,
    flags: u8,
    garbage: Vec<Vec<u8>>,
}

fuzz_target!(|input: Input| {
    let text = match input.raw {
        Some(t) => t,
        None => input
            .tokens
            .iter()
            .take(64)
            .map(|t| TOKENS[*t as usize % TOKENS.len()])
            .collect::<Vec<_>>()
            .join(" "),
    };
    let rows = &input.rows[..input.rows.len().min(256)];
    let garbage = &input.garbage[..input.garbage.len().min(32)];
    parq::predicate::fuzzing::check(&text, input.kind, rows, input.flags, garbage);
});
