//! Geospatial statistics: `parq rewrite` of every `data/geospatial` file writes the
//! statistics the original writers wrote (parquet-cpp for GEOMETRY, SedonaDB for GEOGRAPHY,
//! whose S2 boxes cover the great-circle arcs as parq's do), and `parq meta` shows them.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Command;

use parq::metadata::{BoundingBox, FileMetaData, GeospatialStatistics, LogicalType};
use parq::read::ParquetReader;

fn geospatial_dir() -> PathBuf {
    support::parquet_test_data().join("geospatial")
}

fn footer(path: &Path) -> (FileMetaData, Vec<Option<LogicalType>>) {
    let reader = ParquetReader::new(bytes::Bytes::from(std::fs::read(path).unwrap())).unwrap();
    let types = reader
        .schema()
        .leaves
        .iter()
        .map(|l| l.logical_type.clone())
        .collect();
    (reader.metadata().clone(), types)
}

fn run(args: &[&str]) -> String {
    let out = Command::new(support::parq_bin())
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "parq {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn geo_stats(m: &FileMetaData, rg: usize, col: usize) -> Option<&GeospatialStatistics> {
    m.row_groups[rg].columns[col]
        .meta_data
        .as_ref()?
        .geospatial_statistics
        .as_ref()
}

#[test]
fn rewrites_keep_the_original_statistics() {
    let scratch = support::scratch_dir("geospatial_rewrite");
    let mut files: Vec<PathBuf> = std::fs::read_dir(geospatial_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "parquet"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 10, "{files:?}");
    let mut compared = (0, 0);
    let mut differ = Vec::new();
    for file in &files {
        let out = scratch.join(file.file_name().unwrap());
        run(&["rewrite", file.to_str().unwrap(), out.to_str().unwrap()]);
        let (original, types) = footer(file);
        let (rewritten, _) = footer(&out);
        assert_eq!(original.row_groups.len(), rewritten.row_groups.len());
        for rg in 0..original.row_groups.len() {
            for (col, lt) in types.iter().enumerate() {
                let (want, got) = (
                    geo_stats(&original, rg, col),
                    geo_stats(&rewritten, rg, col),
                );
                let at = format!("{} row group {rg} column {col}", file.display());
                match lt {
                    Some(LogicalType::Geometry { .. }) => {
                        // parquet-cpp writes no geospatial statistics for a chunk of nulls;
                        // parq writes an empty list of types there.
                        match want {
                            Some(w) => assert_eq!(got, Some(w), "{at}"),
                            None => assert_eq!(
                                got.and_then(|g| g.geospatial_types.clone()),
                                Some(vec![]),
                                "{at}"
                            ),
                        }
                        compared.0 += 1;
                    }
                    Some(LogicalType::Geography { .. }) => {
                        // The same types, and SedonaDB's S2 boxes (which cover the arcs too)
                        // within 1e-6 degrees, but where noted below.
                        let got = got.unwrap_or_else(|| panic!("{at}: no statistics"));
                        let Some(w) = want else {
                            // parquet-cpp writes no geospatial statistics for GEOGRAPHY.
                            assert!(got.bbox.is_some(), "{at}");
                            continue;
                        };
                        assert_eq!(got.geospatial_types, w.geospatial_types, "{at}");
                        let (g, w) = (got.bbox.as_ref().unwrap(), w.bbox.as_ref().unwrap());
                        let near = |a: f64, b: f64| (a - b).abs() < 1e-6;
                        let all_x = |b: &BoundingBox| (b.xmin, b.xmax) == (-180.0, 180.0);
                        if near(g.ymin, w.ymin) && near(g.ymax, w.ymax) {
                            if near(g.xmin, w.xmin) && near(g.xmax, w.xmax) {
                                compared.1 += 1;
                            } else {
                                // A point at a pole: parq gives it every longitude, S2 the one
                                // it was written with.
                                assert!(all_x(g) && g.ymin.abs().max(g.ymax.abs()) == 90.0, "{at}");
                                differ.push(format!("{at}: pole"));
                            }
                        } else {
                            // A row group of small diamonds across the antimeridian: S2's box
                            // runs to the north pole, parq's stays around them (tighter).
                            assert!(all_x(w) && w.ymax == 90.0 && g.ymax < 0.0, "{at}");
                            differ.push(format!("{at}: antimeridian"));
                        }
                    }
                    _ => assert_eq!(got, None, "{at}"),
                }
            }
        }
    }
    // geospatial.parquet's 31 row groups, 1 each for the other 5 GEOMETRY files; of the
    // 3 × 50 SedonaDB GEOGRAPHY groups, all but 3 equal.
    assert_eq!(compared, (31 + 5, 147), "{differ:?}");
    assert_eq!(differ.len(), 3, "{differ:?}");
}

#[test]
fn meta_shows_geospatial_statistics() {
    let file = geospatial_dir().join("geospatial-with-nan.parquet");
    let text = run(&["meta", file.to_str().unwrap()]);
    assert!(
        text.contains(
            "geo types=[POINT ZM, LINESTRING ZM] x=[10, 130] y=[20, 140] z=[30, 150] m=[40, 160]"
        ),
        "{text}"
    );
    let json = run(&["meta", "--json", file.to_str().unwrap()]);
    assert!(
        json.contains(r#""geospatial_statistics":{"bbox":{"xmin":10.0,"xmax":130.0,"ymin":20.0,"ymax":140.0,"zmin":30.0,"zmax":150.0,"mmin":40.0,"mmax":160.0},"geospatial_types":[3001,3002]}"#),
        "{json}"
    );
    // Wraparound boxes print as stored (xmin > xmax).
    let text = run(&[
        "meta",
        geospatial_dir()
            .join("geography-points.parquet")
            .to_str()
            .unwrap(),
    ]);
    assert!(text.contains("geo types=[POINT] x=["), "{text}");
}
