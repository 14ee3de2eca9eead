//! `--max-memory`: the reader's memory budget (`ReadOptions::max_memory`), the one bound its
//! other limits derive from: a page's declared uncompressed size may be a quarter of it (a
//! legal file can exceed the default: parquet-testing's `large_string_map.brotli.parquet`
//! holds a page of 1 GiB + 4 bytes), a page's values a 32nd. An error over one of them names
//! the flag, not the library option: a CLI user has no `ReadOptions` to set.

use parq::read::ReadOptions;
use parq::Limit;

/// Limits of the commands that decode pages.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LimitArgs {
    /// The read's memory budget, in bytes or with a K, M or G suffix (powers of 1024, e.g.
    /// 512M); default 4G. It bounds the footer and each column's decoded output, a page's
    /// declared uncompressed size (a quarter of it) and a page's values (a 32nd): past it the
    /// read fails instead of allocating what a file's counts ask for.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    max_memory: Option<usize>,
}

impl LimitArgs {
    /// `options` with these limits.
    pub fn apply(&self, mut options: ReadOptions) -> ReadOptions {
        if let Some(max) = self.max_memory {
            options.max_memory = max as u64;
        }
        options
    }
}

/// `e`'s message as the CLI prints it: over a limit (known by [`parq::Error::limit`], not by
/// its text), the library option the message names is replaced by the flag that sets it.
pub fn message(e: &parq::Error) -> String {
    let text = e.to_string();
    match e.limit() {
        Some(l) => text.replace(l.option(), "--max-memory"),
        None => text,
    }
}

/// What the CLI adds to an error: the flag that lifts the limit it hit, with its default.
pub fn hint(e: &parq::Error) -> Option<&'static str> {
    if e.is_invalid_utf8() {
        return Some(
            "to print such values with their invalid bytes as \\xHH instead, pass \
             --invalid-utf8 escape",
        );
    }
    match e.limit()? {
        Limit::PageSize => Some(
            "the page is larger than a quarter of --max-memory (default 4G): raise it, e.g. \
             --max-memory 8G",
        ),
        Limit::PageValues => Some(
            "the page holds more values than a 32nd of --max-memory (default 4G): raise it, \
             e.g. --max-memory 8G",
        ),
        Limit::Memory => Some(
            "the read needs more than --max-memory allows (default 4G): raise it, e.g. \
             --max-memory 8G",
        ),
        _ => None,
    }
}

/// `123`, `64K`, `512M`, `2G` (also `KiB`, `MiB`, `GiB`, any case).
fn parse_size(text: &str) -> Result<usize, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    let digits_end = lower
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(lower.len());
    let (digits, suffix) = lower.split_at(digits_end);
    let shift = match suffix.trim() {
        "" | "b" => 0,
        "k" | "kib" | "kb" => 10,
        "m" | "mib" | "mb" => 20,
        "g" | "gib" | "gb" => 30,
        _ => return Err(format!("{text:?}: a byte count, e.g. 1073741824 or 2G")),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("{text:?}: a byte count, e.g. 1073741824 or 2G"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{text:?} does not fit in this machine's memory addresses"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!(parse_size("1073741828"), Ok(1073741828));
        assert_eq!(parse_size("64K"), Ok(64 << 10));
        assert_eq!(parse_size("512mib"), Ok(512 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert!(parse_size("2T").is_err());
        assert!(parse_size("G").is_err());
        assert!(parse_size("-1").is_err());
    }
}
