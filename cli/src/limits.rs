//! `--max-page-size`, `--max-page-values` and `--max-memory`: the reader's cap on a page's
//! declared uncompressed size (`ReadOptions::limits`), which a legal file can exceed
//! (parquet-testing's `large_string_map.brotli.parquet` holds a page of 1 GiB + 4 bytes, just
//! over the default), on the values of one page (`ReadOptions::max_page_values`), and its
//! memory budget (`ReadOptions::max_memory`). An error over one of them names its flag, not
//! the library option: a CLI user has no `ReadOptions` to set.

use parq::codecs::compression::Limits;
use parq::read::ReadOptions;
use parq::Limit;

/// Limits of the commands that decode pages.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LimitArgs {
    /// Largest decompressed page accepted, in bytes, or with a K, M or G suffix (powers of
    /// 1024, e.g. 2G); default 1G. The cap keeps a forged header from allocating more.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    max_page_size: Option<usize>,
    /// Most values (slots, nulls included) accepted in one page or dictionary; default
    /// 134217728 (2^27). The cap keeps a forged header from allocating more.
    #[arg(long, value_name = "N")]
    max_page_values: Option<usize>,
    /// The read's memory budget (footer and decoded output per column), in bytes or with a
    /// K, M or G suffix, e.g. 512M; past it the read fails instead of allocating what a
    /// file's counts ask for. Default 4G.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    max_memory: Option<usize>,
}

impl LimitArgs {
    /// `options` with these limits.
    pub fn apply(&self, mut options: ReadOptions) -> ReadOptions {
        if let Some(max) = self.max_page_size {
            options.limits = Limits::default().with_max_uncompressed_size(max);
        }
        if let Some(max) = self.max_page_values {
            options.max_page_values = max;
        }
        if let Some(max) = self.max_memory {
            options.max_memory = max as u64;
        }
        options
    }
}

/// The flag that sets `limit` (`None` for a limit this CLI has no flag for).
fn flag(limit: Limit) -> Option<&'static str> {
    match limit {
        Limit::PageSize => Some("--max-page-size"),
        Limit::PageValues => Some("--max-page-values"),
        Limit::Memory => Some("--max-memory"),
        _ => None,
    }
}

/// `e`'s message as the CLI prints it: over a limit (known by [`parq::Error::limit`], not by
/// its text), the library option the message names is replaced by the flag that sets it.
pub fn message(e: &parq::Error) -> String {
    let text = e.to_string();
    match e.limit().and_then(|l| Some((l.option(), flag(l)?))) {
        Some((option, flag)) => text.replace(option, flag),
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
            "the page is larger than --max-page-size allows (default 1G): raise it, e.g. \
             --max-page-size 2G",
        ),
        Limit::PageValues => Some(
            "the page holds more values than --max-page-values allows (default 134217728): \
             raise it, e.g. --max-page-values 268435456",
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
