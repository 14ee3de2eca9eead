//! `intersects box(...)` predicates: row groups are pruned exactly when their geospatial
//! statistics box misses the query box (probes and `FilterStats`), matching rows are never
//! dropped, and GEOGRAPHY is pruned only where its values are points; the boxes parq writes
//! for GEOGRAPHY cover every point of its great-circle arcs.

use std::path::PathBuf;

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer};
use bytes::Bytes;
use parq::codecs::probe;
use parq::column::{Column, Values};
use parq::geospatial::{spherical_bounds, wkb_bounds, GeoBox};
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
    geo_file(values, rows_per_group, LogicalType::Geometry { crs: None })
}

fn geo_file(values: &[Option<Vec<u8>>], rows_per_group: usize, lt: LogicalType) -> Bytes {
    let field = Field::new("geom", Type::BYTE_ARRAY)
        .optional()
        .with_logical_type(lt);
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

/// The paths of a little-endian 2D WKB POINT, LINESTRING or POLYGON: `(is_ring, points)`.
fn paths(wkb: &[u8]) -> Vec<(bool, Vec<(f64, f64)>)> {
    let u32_at = |at: usize| u32::from_le_bytes(wkb[at..at + 4].try_into().unwrap()) as usize;
    let f64_at = |at: usize| f64::from_le_bytes(wkb[at..at + 8].try_into().unwrap());
    assert_eq!(wkb[0], 1, "little-endian");
    let points = |at: usize, n: usize| -> Vec<(f64, f64)> {
        (0..n)
            .map(|i| (f64_at(at + 16 * i), f64_at(at + 16 * i + 8)))
            .collect()
    };
    match u32_at(1) {
        1 => vec![(false, points(5, 1))],
        2 => vec![(false, points(9, u32_at(5)))],
        3 => {
            let mut at = 9;
            (0..u32_at(5))
                .map(|_| {
                    let n = u32_at(at);
                    let ring = points(at + 4, n);
                    at += 4 + 16 * n;
                    (true, ring)
                })
                .collect()
        }
        code => panic!("type {code}"),
    }
}

fn unit(p: (f64, f64)) -> [f64; 3] {
    let (x, y) = (p.0.to_radians(), p.1.to_radians());
    [y.cos() * x.cos(), y.cos() * x.sin(), y.sin()]
}

/// Points along the great-circle arc from `a` to `b` (spherical interpolation), ends included.
fn arc_samples(a: (f64, f64), b: (f64, f64), n: usize) -> Vec<(f64, f64)> {
    let (u, v) = (unit(a), unit(b));
    let dot: f64 = (0..3).map(|i| u[i] * v[i]).sum();
    let theta = dot.clamp(-1.0, 1.0).acos();
    if theta < 1e-12 {
        return vec![a];
    }
    (0..=n)
        .map(|k| {
            let t = k as f64 / n as f64;
            let (wa, wb) = (
                ((1.0 - t) * theta).sin() / theta.sin(),
                (t * theta).sin() / theta.sin(),
            );
            let p: Vec<f64> = (0..3).map(|i| wa * u[i] + wb * v[i]).collect();
            let lat = p[2].atan2(p[0].hypot(p[1])).to_degrees();
            (p[1].atan2(p[0]).to_degrees(), lat)
        })
        .collect()
}

/// Points of a value to check a covering box with: its vertices, samples along its arcs,
/// and for a ring the mean of its vertices (inside the small diamonds the test files hold).
fn samples(wkb: &[u8]) -> Vec<(f64, f64)> {
    let mut out = Vec::new();
    for (ring, pts) in paths(wkb) {
        out.extend(&pts);
        for w in pts.windows(2) {
            out.extend(arc_samples(w[0], w[1], 64));
        }
        if ring && pts.len() > 3 {
            let n = (pts.len() - 1) as f64;
            let c = pts[..pts.len() - 1]
                .iter()
                .map(|&p| unit(p))
                .fold([0.0; 3], |s, u| {
                    [s[0] + u[0] / n, s[1] + u[1] / n, s[2] + u[2] / n]
                });
            let lat = c[2].atan2(c[0].hypot(c[1])).to_degrees();
            out.push((c[1].atan2(c[0]).to_degrees(), lat));
        }
    }
    out
}

fn in_box(b: &BoundingBox, (x, y): (f64, f64)) -> bool {
    let slack = 1e-9;
    b.ymin - slack <= y && y <= b.ymax + slack && x_meets((b.xmin - slack, b.xmax + slack), (x, x))
}

/// Assert that every chunk box of the GEOGRAPHY column of `file` holds every sample of every
/// value; the number of chunks checked.
fn assert_boxes_cover(file: &Bytes) -> usize {
    let reader = ParquetReader::new(file.clone()).unwrap();
    let col = reader.read_column_by_path("geom").unwrap();
    let mut at = 0;
    for (g, rg) in reader.metadata().row_groups.iter().enumerate() {
        let stats = rg.columns[0].meta_data.as_ref().unwrap();
        let bbox = stats.geospatial_statistics.as_ref().unwrap().bbox.as_ref();
        let bbox = bbox.unwrap_or_else(|| panic!("group {g}: no box"));
        for i in at..at + rg.num_rows as usize {
            for p in samples(col.bytes(i).unwrap()) {
                assert!(in_box(bbox, p), "group {g} row {i}: {p:?} outside {bbox:?}");
            }
        }
        at += rg.num_rows as usize;
    }
    reader.metadata().row_groups.len()
}

fn geography() -> LogicalType {
    LogicalType::Geography {
        crs: None,
        algorithm: None,
    }
}

fn wkb_path(code: u32, rings: &[Vec<(f64, f64)>]) -> Vec<u8> {
    let mut w = vec![1u8];
    w.extend(code.to_le_bytes());
    if code == 3 {
        w.extend((rings.len() as u32).to_le_bytes());
    }
    for r in rings {
        w.extend((r.len() as u32).to_le_bytes());
        for (x, y) in r {
            w.extend(x.to_le_bytes());
            w.extend(y.to_le_bytes());
        }
    }
    w
}

#[test]
fn geography_boxes_cover_every_arc() {
    // SedonaDB's files: the poles, lines and polygons across the antimeridian.
    let mut checked = 0;
    for name in [
        "geography-points.parquet",
        "geography-lines.parquet",
        "geography-polygons.parquet",
        "crs-geography.parquet",
    ] {
        let reader = ParquetReader::new(data(name)).unwrap();
        let path = if name.starts_with("crs") {
            "geography"
        } else {
            "geometry"
        };
        let c = reader.read_column_by_path(path).unwrap();
        let values: Vec<Option<Vec<u8>>> =
            (0..c.len).map(|i| c.bytes(i).map(<[u8]>::to_vec)).collect();
        checked += assert_boxes_cover(&geo_file(&values, 10, geography()));
    }
    assert_eq!(checked, 3 * 50 + 1);
    // Long arcs at every latitude, in chunks of 3: lines that bulge, pass near and over
    // the poles and cross the antimeridian, and triangles around them.
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |lo: f64, hi: f64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        lo + (hi - lo) * (seed >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut values = Vec::new();
    for _ in 0..600 {
        let a = (next(-180.0, 180.0), next(-89.0, 89.0));
        let b = (
            (a.0 + next(-170.0, 170.0) + 540.0) % 360.0 - 180.0,
            next(-89.0, 89.0),
        );
        values.push(Some(wkb_path(2, &[vec![a, b]])));
        // A thin triangle along the arc: its inside is the small side.
        let c = (b.0, (b.1 + 0.5).min(89.5));
        values.push(Some(wkb_path(3, &[vec![a, b, c, a]])));
    }
    assert_eq!(assert_boxes_cover(&geo_file(&values, 3, geography())), 400);
    // A cap around the north pole: the box reaches the pole at every longitude.
    let cap: Vec<(f64, f64)> = (0..=6).map(|i| (-180.0 + 60.0 * i as f64, 70.0)).collect();
    let file = geo_file(
        &[Some(wkb_path(3, std::slice::from_ref(&cap)))],
        10,
        geography(),
    );
    let reader = ParquetReader::new(file).unwrap();
    let m = reader.metadata().row_groups[0].columns[0]
        .meta_data
        .clone()
        .unwrap();
    let b = m.geospatial_statistics.unwrap().bbox.unwrap();
    assert_eq!(
        (b.xmin, b.xmax, b.ymin, b.ymax),
        (-180.0, 180.0, 70.0, 90.0)
    );
    let (_, one) = spherical_bounds(&wkb_path(3, &[cap])).unwrap();
    assert_eq!(one, Some(b));
}

#[test]
fn geography_lines_and_polygons_keep_every_row_that_meets_the_box() {
    let queries = [
        GeoBox {
            xmin: -10.0,
            ymin: 40.0,
            xmax: 10.0,
            ymax: 60.0,
        },
        GeoBox {
            xmin: 175.0,
            ymin: -50.0,
            xmax: -175.0,
            ymax: 0.0,
        }, // wraps
        GeoBox {
            xmin: -180.0,
            ymin: 88.0,
            xmax: 180.0,
            ymax: 90.0,
        }, // the north pole
    ];
    for name in ["geography-lines.parquet", "geography-polygons.parquet"] {
        let reader = ParquetReader::new(data(name)).unwrap();
        let all = reader.read_column_by_path("geometry").unwrap();
        for q in &queries {
            let expr = col("geometry").intersects_box(q.xmin, q.ymin, q.xmax, q.ymax);
            let (rows, stats) = reader.filter_rows(&expr).unwrap();
            // Their boxes are there, but parq cannot check that the writer bounded the
            // geodesic edges: no row group is skipped by them. (Dictionary pages, whose
            // entries get the row test, do skip groups.)
            assert_eq!(stats.pruned_by_statistics, 0, "{name}");
            let kept: Vec<u64> = rows.ranges().iter().flat_map(|r| r.clone()).collect();
            let as_box = BoundingBox {
                xmin: q.xmin,
                xmax: q.xmax,
                ymin: q.ymin,
                ymax: q.ymax,
                ..Default::default()
            };
            let meets: Vec<u64> = (0..all.len)
                .filter(|&i| {
                    samples(all.bytes(i).unwrap())
                        .into_iter()
                        .any(|p| in_box(&as_box, p))
                })
                .map(|i| i as u64)
                .collect();
            assert!(!meets.is_empty(), "{name} {q:?}");
            for i in &meets {
                assert!(kept.contains(i), "{name} {q:?}: row {i} meets the box");
            }
            // Rows whose covering box misses are dropped: far fewer than all are kept.
            assert!(
                kept.len() < all.len / 4,
                "{name} {q:?}: {} kept",
                kept.len()
            );
        }
        let expr = col("geometry").intersects_box(-10.0, 40.0, 10.0, 60.0);
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
