//! `parq pages`: every page of every column chunk, read from the page headers.
//!
//! The chunk's bytes are walked header by header with [`decode_page_header`]: nothing is
//! decompressed or decoded, and nothing is allocated from a size a header claims. A header
//! that does not decode, or a page that runs past its chunk, is an error naming the file
//! offset; the pages listed before it are still printed (text output).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use parq::metadata::{
    decode_page_header, parse_footer_len, rebase_error, ColumnMetaData, PageHeader, PageType,
    Statistics, FOOTER_TAIL_LEN,
};
use parq::read::{FileSource, ParquetReader, Source};
use parq::{Error, Result};

use crate::json;

/// Old parquet-mr (PARQUET-816) left the dictionary page header out of the chunk's
/// `total_compressed_size`; like the reader (and parquet-cpp), look up to this many bytes past
/// the declared end while the chunk's values are not all accounted for.
const DICT_HEADER_SLACK: u64 = 100;

/// One page, as its header describes it.
struct Page {
    row_group: usize,
    column: String,
    index: usize,
    offset: u64,
    header_size: usize,
    type_: PageType,
    encoding: Option<String>,
    version: Option<u8>,
    compressed: i32,
    uncompressed: i32,
    num_values: Option<i32>,
    num_nulls: Option<i64>,
    num_rows: Option<i32>,
    min: Option<Vec<u8>>,
    max: Option<Vec<u8>>,
}

impl Page {
    fn new(row_group: usize, column: &str, index: usize, offset: u64, h: PageHeader) -> Self {
        let mut page = Page {
            row_group,
            column: column.to_string(),
            index,
            offset,
            header_size: 0,
            type_: h.type_,
            encoding: None,
            version: None,
            compressed: h.compressed_page_size,
            uncompressed: h.uncompressed_page_size,
            num_values: None,
            num_nulls: None,
            num_rows: None,
            min: None,
            max: None,
        };
        let mut stats: Option<Statistics> = None;
        if let Some(d) = h.data_page_header {
            page.encoding = Some(d.encoding.to_string());
            page.version = Some(1);
            page.num_values = Some(d.num_values);
            stats = d.statistics;
            page.num_nulls = stats.as_ref().and_then(|s| s.null_count);
        } else if let Some(d) = h.data_page_header_v2 {
            page.encoding = Some(d.encoding.to_string());
            page.version = Some(2);
            page.num_values = Some(d.num_values);
            page.num_nulls = Some(d.num_nulls as i64);
            page.num_rows = Some(d.num_rows);
            stats = d.statistics;
        } else if let Some(d) = h.dictionary_page_header {
            page.encoding = Some(d.encoding.to_string());
            page.num_values = Some(d.num_values);
        }
        if let Some(s) = stats {
            page.min = s.min_value.or(s.min).map(Vec::from);
            page.max = s.max_value.or(s.max).map(Vec::from);
        }
        page
    }

    fn is_data(&self) -> bool {
        self.type_ == PageType::DATA_PAGE || self.type_ == PageType::DATA_PAGE_V2
    }
}

fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len() * 2);
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// The pages of one column chunk, appended to `out`.
fn chunk_pages(
    file: &FileSource,
    body_end: u64,
    row_group: usize,
    column: &str,
    md: &ColumnMetaData,
    out: &mut Vec<Page>,
) -> Result<()> {
    let at =
        |what: String| Error::format(format!("{what} (column {column}, row group {row_group})"));
    let data = md.data_page_offset;
    // Some writers store dictionary_page_offset = 0 for "none"; trust it only when it points
    // before the first data page (or when the data page offset is 0, as pyarrow 17 writes it
    // for a chunk without values).
    let start = match md.dictionary_page_offset {
        Some(d) if d >= 4 && (d < data || data < 4) => d,
        _ => data,
    };
    let len = md.total_compressed_size;
    if start < 4 || len < 0 || start as u64 >= body_end {
        return Err(at(format!(
            "column chunk at {start} with {len} bytes is outside the file"
        )));
    }
    let start = start as u64;
    // A chunk that claims to run into the footer is walked as far as the footer: its pages
    // may still all be there.
    let declared_end = start.saturating_add(len as u64).min(body_end);
    let limit = declared_end.saturating_add(DICT_HEADER_SLACK).min(body_end);
    // One read per chunk, sized by the footer's chunk length and bounded by the file.
    let chunk = file.read(start..limit)?;
    let mut pos = start;
    let mut values: i64 = 0;
    let mut index = 0usize;
    loop {
        if pos >= declared_end && values >= md.num_values {
            return Ok(());
        }
        if pos >= limit {
            return Err(at(format!(
                "column chunk ends at file offset {pos} with {values} of its {} values in data pages",
                md.num_values
            )));
        }
        // `start <= pos < limit`: the slice is in bounds.
        let buf = &chunk[(pos - start) as usize..];
        let (header, header_size) = decode_page_header(buf).map_err(|e| {
            let e = rebase_error(e, pos).to_string();
            let e = e
                .strip_prefix("invalid parquet: ")
                .unwrap_or(&e)
                .to_string();
            at(format!(
                "page {index} header at file offset {pos} does not decode: {e}"
            ))
        })?;
        let mut page = Page::new(row_group, column, index, pos, header);
        page.header_size = header_size;
        if page.compressed < 0 || page.uncompressed < 0 {
            return Err(at(format!(
                "page {index} at file offset {pos} claims a negative size ({} compressed, {} uncompressed)",
                page.compressed, page.uncompressed
            )));
        }
        let left = buf.len() - header_size;
        if page.compressed as usize > left {
            return Err(at(format!(
                "page {index} at file offset {pos} claims {} compressed bytes, {left} left in the chunk",
                page.compressed
            )));
        }
        if page.is_data() {
            values = values.saturating_add(page.num_values.unwrap_or(0).max(0) as i64);
        }
        pos += (header_size + page.compressed as usize) as u64;
        index += 1;
        out.push(page);
    }
}

fn text(pages: &[Page]) -> String {
    let width = pages
        .iter()
        .map(|p| p.column.len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut s = String::new();
    let _ =
        writeln!(
        s,
        "{:>3} {:width$} {:>4} {:15} {:23} {:>2} {:>10} {:>12} {:>8} {:>8} {:>8} {:>10}  min / max",
        "rg", "column", "page", "type", "encoding", "v", "compressed", "uncompressed", "values",
        "nulls", "rows", "offset"
    );
    let opt = |v: Option<String>| v.unwrap_or_else(|| "-".into());
    let short = |b: &Option<Vec<u8>>| match b {
        Some(b) if b.len() > 16 => format!("{}…", hex(&b[..16])),
        Some(b) => hex(b),
        None => "-".into(),
    };
    for p in pages {
        let _ = write!(
            s,
            "{:>3} {:width$} {:>4} {:15} {:23} {:>2} {:>10} {:>12} {:>8} {:>8} {:>8} {:>10}",
            p.row_group,
            p.column,
            p.index,
            p.type_.to_string(),
            opt(p.encoding.clone()),
            opt(p.version.map(|v| format!("v{v}"))),
            p.compressed,
            p.uncompressed,
            opt(p.num_values.map(|v| v.to_string())),
            opt(p.num_nulls.map(|v| v.to_string())),
            opt(p.num_rows.map(|v| v.to_string())),
            p.offset,
        );
        if p.min.is_some() || p.max.is_some() {
            let _ = write!(s, "  {} / {}", short(&p.min), short(&p.max));
        }
        s.push('\n');
    }
    s
}

fn json_text(pages: &[Page]) -> String {
    let mut s = String::from("{\"pages\":[");
    let num = |s: &mut String, v: Option<i64>| match v {
        Some(v) => {
            let _ = write!(s, "{v}");
        }
        None => s.push_str("null"),
    };
    let bytes = |s: &mut String, v: &Option<Vec<u8>>| match v {
        Some(v) => json::hex(s, v),
        None => s.push_str("null"),
    };
    for (k, p) in pages.iter().enumerate() {
        if k > 0 {
            s.push(',');
        }
        let _ = write!(s, "{{\"row_group\":{},\"column\":", p.row_group);
        json::string(&mut s, &p.column);
        let _ = write!(s, ",\"page\":{},\"type\":", p.index);
        json::string(&mut s, &p.type_.to_string());
        s.push_str(",\"encoding\":");
        match &p.encoding {
            Some(e) => json::string(&mut s, e),
            None => s.push_str("null"),
        }
        s.push_str(",\"version\":");
        num(&mut s, p.version.map(i64::from));
        let _ = write!(
            s,
            ",\"offset\":{},\"header_size\":{},\"compressed_size\":{},\"uncompressed_size\":{},\"num_values\":",
            p.offset, p.header_size, p.compressed, p.uncompressed
        );
        num(&mut s, p.num_values.map(i64::from));
        s.push_str(",\"num_nulls\":");
        num(&mut s, p.num_nulls);
        s.push_str(",\"num_rows\":");
        num(&mut s, p.num_rows.map(i64::from));
        s.push_str(",\"min\":");
        bytes(&mut s, &p.min);
        s.push_str(",\"max\":");
        bytes(&mut s, &p.max);
        s.push('}');
    }
    s.push_str("]}\n");
    s
}

/// Whether the chunk at `path` is selected by `columns` (a leaf's dotted path, or a prefix
/// of it ending at a dot, such as a top-level name).
fn selected(path: &str, columns: &[&str]) -> bool {
    columns.iter().any(|c| {
        path == *c
            || path
                .strip_prefix(c)
                .is_some_and(|rest| rest.starts_with('.'))
    })
}

/// Print the pages of the chosen columns of the file at `path`.
pub fn run(path: &Path, columns: Option<&str>, as_json: bool) -> Result<()> {
    // Positioned reads: the metadata, then one column chunk at a time (a large file is never
    // in memory whole).
    let reader = ParquetReader::new(FileSource::open(path)?)?;
    let file = FileSource::open(path)?;
    let len = file.len();
    let tail: [u8; FOOTER_TAIL_LEN] = file
        .read(len.saturating_sub(FOOTER_TAIL_LEN as u64)..len)?
        .as_ref()
        .try_into()
        .map_err(|_| Error::format("file too small for a footer"))?;
    // The reader checked that the footer fits the file.
    let body_end = len
        .saturating_sub(FOOTER_TAIL_LEN as u64)
        .saturating_sub(parse_footer_len(&tail)? as u64);
    let columns: Option<Vec<&str>> = columns.map(|c| c.split(',').map(str::trim).collect());
    let leaves: Vec<String> = reader
        .schema()
        .leaves
        .iter()
        .map(|l| l.path_string())
        .collect();
    if let Some(cols) = &columns {
        if let Some(missing) = cols
            .iter()
            .find(|c| !leaves.iter().any(|l| selected(l, &[*c])))
        {
            return Err(Error::InvalidArgument(format!("no column {missing:?}")));
        }
    }
    let mut pages = Vec::new();
    let mut failure: Option<Error> = None;
    'groups: for (rg, group) in reader.metadata().row_groups.iter().enumerate() {
        for (i, chunk) in group.columns.iter().enumerate() {
            let name = leaves.get(i).cloned().unwrap_or_else(|| format!("#{i}"));
            if columns.as_ref().is_some_and(|c| !selected(&name, c)) {
                continue;
            }
            let Some(md) = &chunk.meta_data else {
                failure = Some(Error::Unsupported(format!(
                    "column chunk without metadata (encrypted?) (column {name}, row group {rg})"
                )));
                break 'groups;
            };
            if let Err(e) = chunk_pages(&file, body_end, rg, &name, md, &mut pages) {
                failure = Some(e);
                break 'groups;
            }
        }
    }
    let printed = if as_json {
        // JSON is all or nothing: on an error, the message alone.
        if let Some(e) = failure {
            return Err(e);
        }
        json_text(&pages)
    } else {
        text(&pages)
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    out.write_all(printed.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::from(e).in_file("<stdout>"))?;
    failure.map_or(Ok(()), Err)
}
