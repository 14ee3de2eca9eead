//! `intersects box(...)` predicates: row groups are pruned exactly when their geospatial
//! statistics box misses the query box (probes and `FilterStats`), matching rows are never
//! dropped, and GEOGRAPHY is pruned only where its values are points.

use std::path::PathBuf;

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer};
use bytes::Bytes;
use parq::codecs::probe;
use parq::column::{Column, Values};
use parq::geospatial::{wkb_bounds, GeoBox};
use parq::metadata::{BoundingBox, LogicalType, Type};
use parq::predicate::{col, Expr};
use parq::read::ParquetReader;
use parq::write::{Field, ParquetWriter, WriterOptions};

fn data(name: &str) -> Bytes {
    let dir = std::env::var_os("PARQUET_TEST_DATA").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("testdata/parquet-testing/data"),
        PathBuf::from,
    );
    Bytes::from(std::fs::read(dir.join("geospatial").join(name)).unwrap())
}

fn point(x: f64, y: f64) -> Vec<u8> {
    let mut w = vec![1u8, 1, 0, 0, 0];
    w.extend(x.to_le_bytes());
    w.extend(y.to_le_bytes());
    w
}

fn binary(values: &[Option<Vec<u8>>]) -> Column {
    let mut offsets = vec![0i64];
    let mut bytes = Vec::new();
    for v in values {
        bytes.extend_from_slice(v.as_deref().unwrap_or(&[]));
        offsets.push(bytes.len() as i64);
    }
    Column {
        len: values.len(),
        validity: Some(NullBuffer::from_iter(values.iter().map(Option::is_some))),
        values: Values::Binary {
            offsets: OffsetBuffer::new(offsets.into()),
            data: Buffer::from_vec(bytes),
        },
    }
}

fn geometry_file(values: &[Option<Vec<u8>>], rows_per_group: usize) -> Bytes {
    let field = Field::new("geom", Type::BYTE_ARRAY)
        .optional()
        .with_logical_type(LogicalType::Geometry { crs: None });
    let mut file = Vec::new();
    let options = WriterOptions::default().with_row_group_rows(rows_per_group);
    let mut w = ParquetWriter::new(&mut file, vec![field], options).unwrap();
    w.write_batch(&[binary(values)]).unwrap();
    w.finish().unwrap();
    Bytes::from(file)
}

/// Whether X range `a` (possibly wrapping, lo > hi) meets `b`, spelt out per case.
fn x_meets(a: (f64, f64), b: (f64, f64)) -> bool {
    let inside = |x: f64, (lo, hi): (f64, f64)| {
        if lo <= hi {
            lo <= x && x <= hi
        } else {
            x >= lo || x <= hi
        }
    };
    // Two arcs meet when one holds an end of the other.
    inside(a.0, b) || inside(a.1, b) || inside(b.0, a) || inside(b.1, a)
}

fn box_misses(q: &GeoBox, b: &BoundingBox) -> bool {
    !(q.ymin <= b.ymax && b.ymin <= q.ymax && x_meets((q.xmin, q.xmax), (b.xmin, b.xmax)))
}

/// The points (x, y) of the POINT column `geometry`, per row group.
fn points_per_group(reader: &ParquetReader<Bytes>) -> Vec<Vec<(f64, f64)>> {
    let c = reader.read_column_by_path("geometry").unwrap();
    let mut at = 0usize;
    let mut out = Vec::new();
    for rg in &reader.metadata().row_groups {
        let n = rg.num_rows as usize;
        out.push(
            (at..at + n)
                .filter_map(|i| c.bytes(i))
                .map(|b| {
                    let bbox = wkb_bounds(b).unwrap().1.unwrap();
                    (bbox.xmin, bbox.ymin)
                })
                .collect(),
        );
        at += n;
    }
    out
}

#[test]
fn geometry_groups_whose_boxes_miss_are_pruned_and_rows_filtered() {
    // 10 row groups of 10 rows: group g holds points x in [10g, 10g + 4.5], y = x, one null.
    let values: Vec<Option<Vec<u8>>> = (0..100)
        .map(|i| {
            let (g, k) = (i / 10, i % 10);
            let x = 10.0 * g as f64 + 0.5 * k as f64;
            (k != 9).then(|| point(x, x))
        })
        .collect();
    let file = geometry_file(&values, 10);
    let reader = ParquetReader::new(file).unwrap();
    let g0 = &reader.metadata().row_groups[0].columns[0]
        .meta_data
        .as_ref()
        .unwrap();
    let stats = g0.geospatial_statistics.as_ref().unwrap();
    assert_eq!(stats.geospatial_types, Some(vec![1]));
    assert_eq!(
        stats.bbox.as_ref().map(|b| (b.xmin, b.xmax)),
        Some((0.0, 4.0))
    );

    // x in [21, 34]: groups 2 (x up to 24) and 3 (from 30) meet it.
    let expr = Expr::parse("geom intersects box(21, -1000, 34, 1000)").unwrap();
    assert_eq!(
        expr,
        col("geom").intersects_box(21.0, -1000.0, 34.0, 1000.0)
    );
    assert_eq!(Expr::parse(&expr.to_string()).unwrap(), expr);
    for bad in [
        "geom intersects box(1, 2, 3)",
        "geom intersects (1, 2, 3, 4)",
        "geom intersects box(1, 2, 'a', 4)",
    ] {
        assert!(Expr::parse(bad).is_err(), "{bad}");
    }
    let e = reader
        .filter_rows(&col("geom").intersects_box(0.0, 5.0, 1.0, 4.0))
        .unwrap_err();
    assert!(e.to_string().contains("ymin <= ymax"), "{e}");
    probe::reset();
    let (rows, stats) = reader.filter_rows(&expr).unwrap();
    assert_eq!((stats.row_groups, stats.pruned_by_statistics), (10, 8));
    if probe::ENABLED {
        assert_eq!(probe::get("predicate.row_group_pruned_by_statistics"), 8);
    }
    // Exact rows: 21.0..=24.0 (7 points) and 30.0..=34.0 (9 points).
    let want: Vec<u64> = (0..100u64)
        .filter(|&i| {
            let x = 10.0 * (i / 10) as f64 + 0.5 * (i % 10) as f64;
            i % 10 != 9 && (21.0..=34.0).contains(&x)
        })
        .collect();
    assert_eq!(rows.row_count(), 16);
    let got: Vec<u64> = rows.ranges().iter().flat_map(|r| r.clone()).collect();
    assert_eq!(got, want);
    // The footer alone gives the same row groups.
    let kept = expr
        .row_groups_by_statistics(reader.metadata(), reader.schema())
        .unwrap();
    assert_eq!(kept, [2, 3]);

    // NOT: no row group is pruned (a box cannot show every row meets the query), rows exact.
    let (rows, stats) = reader.filter_rows(&expr.clone().not()).unwrap();
    assert_eq!(stats.row_groups_pruned, 0);
    assert_eq!(rows.row_count(), 90 - 16);

    // A query box wrapping around the antimeridian: x >= 85 or x <= 3.
    let wrap = col("geom").intersects_box(85.0, -1000.0, 3.0, 1000.0);
    let (rows, stats) = reader.filter_rows(&wrap).unwrap();
    assert_eq!(stats.pruned_by_statistics, 8);
    assert_eq!(rows.row_count(), 7 + 9);
}

#[test]
fn invalid_wkb_leaves_the_chunk_without_statistics_and_prunes_nothing() {
    let values = vec![
        Some(point(1.0, 1.0)),
        Some(b"not wkb".to_vec()),
        Some(point(50.0, 50.0)),
        Some(point(60.0, 60.0)),
    ];
    let reader = ParquetReader::new(geometry_file(&values, 2)).unwrap();
    let geo = |rg: usize| {
        reader.metadata().row_groups[rg].columns[0]
            .meta_data
            .as_ref()
            .unwrap()
            .geospatial_statistics
            .clone()
    };
    assert_eq!(geo(0), None);
    assert!(geo(1).is_some_and(|g| g.bbox.is_some()));
    let (rows, stats) = reader
        .filter_rows(&col("geom").intersects_box(0.0, 0.0, 2.0, 2.0))
        .unwrap();
    // Group 0 has no statistics, so it is read; the invalid value is not a match.
    assert_eq!((stats.pruned_by_statistics, rows.row_count()), (1, 1));
}

#[test]
fn geography_points_prune_exactly_the_groups_whose_boxes_miss() {
    let reader = ParquetReader::new(data("geography-points.parquet")).unwrap();
    let groups = points_per_group(&reader);
    let boxes: Vec<BoundingBox> = reader
        .metadata()
        .row_groups
        .iter()
        .map(|rg| {
            let m = rg.columns[1].meta_data.as_ref().unwrap();
            m.geospatial_statistics
                .as_ref()
                .unwrap()
                .bbox
                .clone()
                .unwrap()
        })
        .collect();
    assert!(boxes.iter().any(|b| b.xmin > b.xmax), "a wraparound box");
    let queries = [
        GeoBox {
            xmin: 170.0,
            ymin: -30.0,
            xmax: 180.0,
            ymax: 30.0,
        },
        GeoBox {
            xmin: 175.0,
            ymin: -90.0,
            xmax: -175.0,
            ymax: 90.0,
        }, // wraps
        GeoBox {
            xmin: -10.0,
            ymin: 40.0,
            xmax: 10.0,
            ymax: 60.0,
        },
        GeoBox {
            xmin: -180.0,
            ymin: 89.0,
            xmax: 180.0,
            ymax: 90.0,
        }, // the north pole
    ];
    for q in queries {
        let expr = col("geometry").intersects_box(q.xmin, q.ymin, q.xmax, q.ymax);
        let want_kept: Vec<usize> = (0..boxes.len())
            .filter(|&g| !box_misses(&q, &boxes[g]))
            .collect();
        probe::reset();
        let (rows, stats) = reader.filter_rows(&expr).unwrap();
        assert_eq!(
            stats.pruned_by_statistics,
            boxes.len() - want_kept.len(),
            "{q:?}"
        );
        assert!(stats.pruned_by_statistics > 0, "{q:?} prunes something");
        if probe::ENABLED {
            assert_eq!(
                probe::get("predicate.row_group_pruned_by_statistics") as usize,
                boxes.len() - want_kept.len()
            );
        }
        let kept = expr
            .row_groups_by_statistics(reader.metadata(), reader.schema())
            .unwrap();
        assert_eq!(kept, want_kept, "{q:?}");
        // Points are decided exactly: the matches are the points in the box, none lost.
        let inside =
            |&(x, y): &(f64, f64)| q.ymin <= y && y <= q.ymax && x_meets((q.xmin, q.xmax), (x, x));
        let want_rows: usize = groups
            .iter()
            .map(|g| g.iter().filter(|p| inside(p)).count())
            .sum();
        assert!(want_rows > 0, "{q:?}");
        assert_eq!(rows.row_count() as usize, want_rows, "{q:?}");
        for (g, points) in groups.iter().enumerate() {
            if points.iter().any(inside) {
                assert!(want_kept.contains(&g), "{q:?}: group {g} has a match");
            }
        }
    }
}

#[test]
fn geography_lines_and_polygons_are_not_pruned() {
    for name in ["geography-lines.parquet", "geography-polygons.parquet"] {
        let reader = ParquetReader::new(data(name)).unwrap();
        let expr = col("geometry").intersects_box(-10.0, 40.0, 10.0, 60.0);
        let (rows, stats) = reader.filter_rows(&expr).unwrap();
        // Their boxes are there, but parq cannot check that the writer bounded the geodesic
        // edges: no row group is skipped, and every non-null row is kept.
        assert_eq!(stats.row_groups_pruned, 0, "{name}");
        assert_eq!(
            rows.row_count() as i64,
            reader.metadata().num_rows,
            "{name}"
        );
        let e = reader.filter_rows(&expr.not()).unwrap_err().to_string();
        assert!(e.contains("GEOGRAPHY"), "{e}");
    }
    let reader = ParquetReader::new(data("geospatial.parquet")).unwrap();
    let e = reader
        .filter_rows(&col("wkt").intersects_box(0.0, 0.0, 1.0, 1.0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("GEOMETRY or GEOGRAPHY"), "{e}");
}

#[test]
fn geometry_file_from_parquet_cpp() {
    // geospatial.parquet: 31 row groups of one kind of geometry each; group 1 is all empty
    // geometries (types, no box), so it is never pruned but holds no match.
    let reader = ParquetReader::new(data("geospatial.parquet")).unwrap();
    let expr = Expr::parse("geometry intersects box(0, 0, 12, 12)").unwrap();
    let (rows, stats) = reader.filter_rows(&expr).unwrap();
    let groups = &reader.metadata().row_groups;
    let want_pruned = groups
        .iter()
        .filter(|rg| {
            let g = rg.columns[2]
                .meta_data
                .as_ref()
                .unwrap()
                .geospatial_statistics
                .as_ref();
            g.and_then(|g| g.bbox.as_ref()).is_some_and(|b| {
                box_misses(
                    &GeoBox {
                        xmin: 0.0,
                        ymin: 0.0,
                        xmax: 12.0,
                        ymax: 12.0,
                    },
                    b,
                )
            })
        })
        .count();
    assert!(want_pruned > 0);
    assert_eq!(stats.pruned_by_statistics, want_pruned);
    // Brute force over every row.
    let all = reader.read_column_by_path("geometry").unwrap();
    let q = GeoBox {
        xmin: 0.0,
        ymin: 0.0,
        xmax: 12.0,
        ymax: 12.0,
    };
    let want = (0..all.len)
        .filter(|&i| {
            all.bytes(i)
                .and_then(|b| wkb_bounds(b).ok())
                .and_then(|(_, b)| b)
                .is_some_and(|b| !box_misses(&q, &b))
        })
        .count();
    assert!(want > 0);
    assert_eq!(rows.row_count() as usize, want);
}
