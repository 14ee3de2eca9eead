//! `parq meta`: row groups and column chunks.

use std::fmt::Write as _;

use parq::metadata::{FileMetaData, Statistics};

use crate::json;

fn stats_text(s: &Statistics) -> String {
    let hex = |b: &Option<Vec<u8>>| {
        b.as_ref()
            .map(|v| v.iter().map(|x| format!("{x:02x}")).collect::<String>())
    };
    format!(
        "min={} max={} nulls={}",
        hex(&s.min_value)
            .or(hex(&s.min))
            .unwrap_or_else(|| "-".into()),
        hex(&s.max_value)
            .or(hex(&s.max))
            .unwrap_or_else(|| "-".into()),
        s.null_count.map_or_else(|| "-".into(), |n| n.to_string())
    )
}

pub fn text(m: &FileMetaData) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "version      {}", m.version);
    let _ = writeln!(s, "created_by   {}", m.created_by.as_deref().unwrap_or("-"));
    let _ = writeln!(s, "rows         {}", m.num_rows);
    let _ = writeln!(s, "row groups   {}", m.row_groups.len());
    if let Some(kv) = &m.key_value_metadata {
        for e in kv {
            let v = e.value.as_deref().unwrap_or("");
            let short: String = v.chars().take(60).collect();
            let _ = writeln!(
                s,
                "key/value    {} = {}{}",
                e.key,
                short,
                if v.len() > 60 { "…" } else { "" }
            );
        }
    }
    for (i, rg) in m.row_groups.iter().enumerate() {
        let _ = writeln!(
            s,
            "row group {i}: {} rows, {} bytes",
            rg.num_rows, rg.total_byte_size
        );
        for c in &rg.columns {
            let Some(md) = &c.meta_data else {
                let _ = writeln!(s, "  (column chunk without metadata)");
                continue;
            };
            let _ = writeln!(
                s,
                "  {:<24} {:?} {:?} encodings={:?} values={} compressed={} uncompressed={}{}{}",
                md.path_in_schema.join("."),
                md.type_,
                md.codec,
                md.encodings,
                md.num_values,
                md.total_compressed_size,
                md.total_uncompressed_size,
                md.statistics
                    .as_ref()
                    .map(|st| format!(" {}", stats_text(st)))
                    .unwrap_or_default(),
                md.bloom_filter_offset
                    .map(|o| format!(
                        " bloom_filter=(offset {o}, {} bytes)",
                        md.bloom_filter_length
                            .map_or_else(|| "?".to_string(), |n| n.to_string())
                    ))
                    .unwrap_or_default()
            );
        }
    }
    s
}

pub fn json(m: &FileMetaData) -> String {
    let mut s = String::new();
    let _ = write!(
        s,
        "{{\"version\":{},\"num_rows\":{},\"created_by\":",
        m.version, m.num_rows
    );
    match &m.created_by {
        Some(c) => json::string(&mut s, c),
        None => s.push_str("null"),
    }
    s.push_str(",\"row_groups\":[");
    for (i, rg) in m.row_groups.iter().enumerate() {
        if i > 0 {
            s.push(',');
        }
        let _ = write!(
            s,
            "{{\"num_rows\":{},\"total_byte_size\":{},\"columns\":[",
            rg.num_rows, rg.total_byte_size
        );
        for (j, c) in rg.columns.iter().enumerate() {
            if j > 0 {
                s.push(',');
            }
            let Some(md) = &c.meta_data else {
                s.push_str("null");
                continue;
            };
            s.push_str("{\"path\":");
            json::string(&mut s, &md.path_in_schema.join("."));
            s.push_str(",\"type\":");
            json::string(&mut s, &format!("{:?}", md.type_));
            s.push_str(",\"codec\":");
            json::string(&mut s, &format!("{:?}", md.codec));
            s.push_str(",\"encodings\":[");
            for (k, e) in md.encodings.iter().enumerate() {
                if k > 0 {
                    s.push(',');
                }
                json::string(&mut s, &format!("{e:?}"));
            }
            let _ = write!(
                s,
                "],\"num_values\":{},\"total_compressed_size\":{},\"total_uncompressed_size\":{},\"data_page_offset\":{},\"dictionary_page_offset\":{}",
                md.num_values,
                md.total_compressed_size,
                md.total_uncompressed_size,
                md.data_page_offset,
                md.dictionary_page_offset.map_or("null".to_string(), |d| d.to_string())
            );
            if let Some(st) = &md.statistics {
                let hex = |s: &mut String, b: &Option<Vec<u8>>| match b {
                    Some(v) => json::hex(s, v),
                    None => s.push_str("null"),
                };
                s.push_str(",\"statistics\":{\"min\":");
                hex(
                    &mut s,
                    if st.min_value.is_some() {
                        &st.min_value
                    } else {
                        &st.min
                    },
                );
                s.push_str(",\"max\":");
                hex(
                    &mut s,
                    if st.max_value.is_some() {
                        &st.max_value
                    } else {
                        &st.max
                    },
                );
                let _ = write!(
                    s,
                    ",\"null_count\":{}}}",
                    st.null_count.map_or("null".to_string(), |n| n.to_string())
                );
            }
            if let Some(o) = md.bloom_filter_offset {
                let _ = write!(
                    s,
                    ",\"bloom_filter\":{{\"offset\":{o},\"length\":{}}}",
                    md.bloom_filter_length
                        .map_or("null".to_string(), |n| n.to_string())
                );
            }
            s.push('}');
        }
        s.push_str("]}");
    }
    s.push_str("]}");
    s
}
