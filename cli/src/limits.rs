//! `--max-page-size` and `--max-memory`: the reader's cap on a page's declared uncompressed
//! size (`ReadOptions::limits`), which a legal file can exceed (parquet-testing's
//! `large_string_map.brotli.parquet` holds a page of 1 GiB + 4 bytes, just over the default),
//! and its memory budget (`ReadOptions::max_memory`).

use parq::codecs::compression::Limits;
use parq::read::ReadOptions;

/// Limits of the commands that decode pages.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LimitArgs {
    /// Largest decompressed page accepted, in bytes, or with a K, M or G suffix (powers of
    /// 1024, e.g. 2G); default 1G. The cap keeps a forged header from allocating more.
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    max_page_size: Option<usize>,
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
            options.limits = Limits {
                max_uncompressed_size: max,
            };
        }
        if let Some(max) = self.max_memory {
            options.max_memory = max as u64;
        }
        options
    }
}

/// What the CLI adds to an error: the flag that lifts the limit it hit.
pub fn hint(e: &parq::Error) -> Option<&'static str> {
    if e.is_invalid_utf8() {
        return Some("to print such values with their invalid bytes as \\xHH instead, pass --invalid-utf8 escape");
    }
    if e.is_page_size_limit() {
        return Some("the page is larger than --max-page-size allows (default 1G): raise it, e.g. --max-page-size 2G");
    }
    matches!(e, parq::Error::Memory { limit: Some(_), .. }).then_some(
        "the read needs more than --max-memory allows (default 4G): raise it, e.g. --max-memory 8G",
    )
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
