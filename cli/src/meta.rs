//! `parq meta`: row groups and column chunks.

use std::fmt::Write as _;

use parq::metadata::{FileMetaData, GeospatialStatistics, InlineBytes, Statistics};
use parq::schema::ColumnDescriptor;

use crate::{cat, json};

/// A statistic's bytes: the current field (`min_value`/`max_value`), else the deprecated one.
fn bound<'a>(
    current: &'a Option<InlineBytes>,
    legacy: &'a Option<InlineBytes>,
) -> Option<&'a [u8]> {
    current.as_deref().or(legacy.as_deref())
}

/// A bound as text: typed as `cat` prints the column (`leaf` known), else hex.
fn bound_text(leaf: Option<&ColumnDescriptor>, bytes: Option<&[u8]>) -> String {
    let Some(bytes) = bytes else {
        return "-".into();
    };
    let mut out = String::new();
    if leaf.is_some_and(|l| cat::stat_value(&mut out, l, bytes, true)) {
        return out;
    }
    bytes.iter().map(|x| format!("{x:02x}")).collect()
}

fn stats_text(s: &Statistics, leaf: Option<&ColumnDescriptor>) -> String {
    format!(
        "min={} max={} nulls={}",
        bound_text(leaf, bound(&s.min_value, &s.min)),
        bound_text(leaf, bound(&s.max_value, &s.max)),
        s.null_count.map_or_else(|| "-".into(), |n| n.to_string())
    )
}

/// A geospatial type code by its WKT name (`POLYGON Z`), or the number if it has none.
fn geo_type(code: i32) -> String {
    parq::geospatial::type_name(code).unwrap_or_else(|| code.to_string())
}

/// Geospatial statistics as text: `geo types=[POINT, LINESTRING Z] x=[1, 2] y=[3, 4] z=[..]`
/// (`x=[170, -170]` wraps around the antimeridian).
fn geo_text(g: &GeospatialStatistics) -> String {
    let mut s = String::from(" geo");
    match &g.geospatial_types {
        Some(t) if !t.is_empty() => {
            let names: Vec<String> = t.iter().map(|&c| geo_type(c)).collect();
            let _ = write!(s, " types=[{}]", names.join(", "));
        }
        _ => s.push_str(" types=unknown"),
    }
    match &g.bbox {
        None => s.push_str(" bbox=-"),
        Some(b) => {
            let _ = write!(s, " x=[{}, {}] y=[{}, {}]", b.xmin, b.xmax, b.ymin, b.ymax);
            for (axis, lo, hi) in [("z", b.zmin, b.zmax), ("m", b.mmin, b.mmax)] {
                if let (Some(lo), Some(hi)) = (lo, hi) {
                    let _ = write!(s, " {axis}=[{lo}, {hi}]");
                }
            }
        }
    }
    s
}

/// A float as JSON (`null` for a NaN or an infinity, which JSON cannot write).
fn json_f64(s: &mut String, v: Option<f64>) {
    match v {
        Some(v) if v.is_finite() => {
            let _ = write!(s, "{v:?}");
        }
        _ => s.push_str("null"),
    }
}

/// Geospatial statistics as JSON: `{"bbox":{"xmin":..},"geospatial_types":[1,1003]}`.
fn geo_json(s: &mut String, g: &GeospatialStatistics) {
    s.push_str(",\"geospatial_statistics\":{\"bbox\":");
    match &g.bbox {
        None => s.push_str("null"),
        Some(b) => {
            let axes = [
                ("xmin", Some(b.xmin)),
                ("xmax", Some(b.xmax)),
                ("ymin", Some(b.ymin)),
                ("ymax", Some(b.ymax)),
                ("zmin", b.zmin),
                ("zmax", b.zmax),
                ("mmin", b.mmin),
                ("mmax", b.mmax),
            ];
            for (i, (name, v)) in axes.into_iter().enumerate() {
                let _ = write!(s, "{}\"{name}\":", if i == 0 { "{" } else { "," });
                json_f64(s, v);
            }
            s.push('}');
        }
    }
    s.push_str(",\"geospatial_types\":");
    match &g.geospatial_types {
        None => s.push_str("null"),
        Some(t) => {
            let codes: Vec<String> = t.iter().map(i32::to_string).collect();
            let _ = write!(s, "[{}]", codes.join(","));
        }
    }
    s.push('}');
}

/// Row groups and column chunks as text; statistics typed by the `leaves` of the schema.
pub fn text(m: &FileMetaData, leaves: &[ColumnDescriptor]) -> String {
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
        for (leaf, c) in rg.columns.iter().enumerate() {
            let Some(md) = &c.meta_data else {
                let _ = writeln!(s, "  (column chunk without metadata)");
                continue;
            };
            let _ = writeln!(
                s,
                "  {:<24} {:?} {:?} encodings={:?} values={} compressed={} uncompressed={}{}{}{}",
                md.path_in_schema.join("."),
                md.type_,
                md.codec,
                md.encodings,
                md.num_values,
                md.total_compressed_size,
                md.total_uncompressed_size,
                md.statistics
                    .as_ref()
                    .map(|st| format!(" {}", stats_text(st, leaves.get(leaf))))
                    .unwrap_or_default(),
                md.geospatial_statistics
                    .as_ref()
                    .map(geo_text)
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

/// Row groups and column chunks as one JSON object; statistics typed by the `leaves`.
pub fn json(m: &FileMetaData, leaves: &[ColumnDescriptor]) -> String {
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
                // `min`/`max` typed as `cat` prints the column (hex when the bytes do not fit
                // its type), `min_bytes`/`max_bytes` the stored bytes as hex.
                let leaf = leaves.get(j);
                let bounds = [
                    ("min", bound(&st.min_value, &st.min)),
                    ("max", bound(&st.max_value, &st.max)),
                ];
                s.push_str(",\"statistics\":{");
                for (name, bytes) in bounds {
                    let _ = write!(s, "\"{name}\":");
                    match bytes {
                        Some(b) if leaf.is_some_and(|l| cat::stat_value(&mut s, l, b, false)) => {}
                        Some(b) => json::hex(&mut s, b),
                        None => s.push_str("null"),
                    }
                    let _ = write!(s, ",\"{name}_bytes\":");
                    match bytes {
                        Some(b) => json::hex(&mut s, b),
                        None => s.push_str("null"),
                    }
                    s.push(',');
                }
                let _ = write!(
                    s,
                    "\"null_count\":{}}}",
                    st.null_count.map_or("null".to_string(), |n| n.to_string())
                );
            }
            if let Some(g) = &md.geospatial_statistics {
                geo_json(&mut s, g);
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
