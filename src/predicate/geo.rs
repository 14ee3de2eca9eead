//! `column intersects box(xmin, ymin, xmax, ymax)`: the row test and chunk pruning; what it
//! means is in the [`super`] docs (section *Geospatial*).

use crate::geospatial::{any_point_in, spherical_bounds, wkb_bounds, GeoBox};
use crate::metadata::GeospatialStatistics;

/// A bound `intersects` test.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GeoTest {
    pub bbox: GeoBox,
    /// The column is GEOGRAPHY (see the module docs).
    pub geography: bool,
    /// GEOGRAPHY with spherical edges: parq bounds them.
    pub spherical: bool,
    /// `NOT (x intersects box)` (GEOMETRY only).
    pub negated: bool,
}

/// POINT or MULTIPOINT, in any dimensions.
fn is_point_type(code: i32) -> bool {
    matches!(code.rem_euclid(1000), 1 | 4)
}

impl GeoTest {
    /// Whether the non-null WKB value `wkb` satisfies the test.
    pub(crate) fn matches(&self, wkb: &[u8]) -> bool {
        if self.geography {
            return self.geography_matches(wkb);
        }
        let Ok((_, bbox)) = wkb_bounds(wkb) else {
            return false; // not a geometry: unknown
        };
        let meets = bbox.is_some_and(|b| self.bbox.intersects(&b));
        meets != self.negated
    }

    /// A GEOGRAPHY value: points decided exactly, other shapes kept unless their covering
    /// box (spherical edges only) misses the query box.
    fn geography_matches(&self, wkb: &[u8]) -> bool {
        let Ok((code, bbox)) = wkb_bounds(wkb) else {
            return false;
        };
        if is_point_type(code) {
            return any_point_in(wkb, &self.bbox).unwrap_or(false);
        }
        if bbox.is_none() || !self.spherical {
            return bbox.is_some();
        }
        match spherical_bounds(wkb) {
            Ok((_, Some(cover))) => self.bbox.intersects(&cover),
            _ => false,
        }
    }

    /// True when the chunk's statistics show that no value meets the box.
    pub(crate) fn prunes(&self, stats: Option<&GeospatialStatistics>) -> bool {
        if self.negated {
            return false;
        }
        let Some(s) = stats else {
            return false;
        };
        let Some(bbox) = &s.bbox else {
            return false;
        };
        if self.geography {
            let points_only = s
                .geospatial_types
                .as_ref()
                .is_some_and(|t| !t.is_empty() && t.iter().all(|&c| is_point_type(c)));
            if !points_only {
                return false;
            }
        }
        !self.bbox.intersects(bbox)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::BoundingBox;

    fn point(x: f64, y: f64) -> Vec<u8> {
        let mut w = vec![1u8, 1, 0, 0, 0];
        w.extend(x.to_le_bytes());
        w.extend(y.to_le_bytes());
        w
    }

    fn line(points: &[(f64, f64)]) -> Vec<u8> {
        let mut w = vec![1u8, 2, 0, 0, 0];
        w.extend((points.len() as u32).to_le_bytes());
        for (x, y) in points {
            w.extend(x.to_le_bytes());
            w.extend(y.to_le_bytes());
        }
        w
    }

    fn test(geography: bool, negated: bool) -> GeoTest {
        GeoTest {
            bbox: GeoBox {
                xmin: 0.0,
                ymin: 0.0,
                xmax: 10.0,
                ymax: 10.0,
            },
            geography,
            spherical: true,
            negated,
        }
    }

    #[test]
    fn rows() {
        let t = test(false, false);
        assert!(t.matches(&point(5.0, 5.0)) && !t.matches(&point(11.0, 5.0)));
        // The line's box meets the query box.
        assert!(t.matches(&line(&[(-5.0, 5.0), (20.0, 5.0)])));
        // Empty and invalid values: neither matching nor (negated) not matching.
        let empty = line(&[]);
        assert!(!t.matches(&empty) && !t.matches(b"nope"));
        let not = test(false, true);
        assert!(not.matches(&point(11.0, 5.0)) && !not.matches(&point(5.0, 5.0)));
        assert!(not.matches(&empty) && !not.matches(b"nope"));
        // GEOGRAPHY: points decided, other shapes by the box covering their arcs.
        let g = test(true, false);
        assert!(!g.matches(&point(11.0, 5.0)) && g.matches(&point(1.0, 1.0)));
        assert!(!g.matches(&line(&[(50.0, 50.0), (60.0, 60.0)])));
        assert!(!g.matches(&empty) && !g.matches(b"nope"));
        let mut multi = vec![1u8, 4, 0, 0, 0, 2, 0, 0, 0];
        multi.extend(point(-5.0, 5.0));
        multi.extend(point(20.0, 5.0));
        assert!(!g.matches(&multi), "no point of the MULTIPOINT in the box");
        multi.extend(point(5.0, 5.0));
        multi[5] = 3;
        assert!(g.matches(&multi));
        // A line north of the box: it bulges further north, away from it.
        assert!(!g.matches(&line(&[(-20.0, 10.5), (30.0, 10.5)])));
        // An arc across the box's top: vertices at 9°N outside in X, the arc between them
        // passes through the box.
        assert!(g.matches(&line(&[(-20.0, 9.0), (30.0, 9.0)])));
        // Near the pole: vertices at 80°N 120° apart, the arc peaks near 84.96°N; a query box
        // there holds no vertex but meets the arc (a planar bounder would drop it).
        let polar = GeoTest {
            bbox: GeoBox {
                xmin: -10.0,
                ymin: 84.0,
                xmax: 10.0,
                ymax: 87.0,
            },
            ..test(true, false)
        };
        assert!(polar.matches(&line(&[(-60.0, 80.0), (60.0, 80.0)])));
        let planar = GeoTest {
            geography: false,
            ..polar.clone()
        };
        assert!(!planar.matches(&line(&[(-60.0, 80.0), (60.0, 80.0)])));
        // Other edge interpolations: kept.
        let other = GeoTest {
            spherical: false,
            ..test(true, false)
        };
        assert!(other.matches(&line(&[(50.0, 50.0), (60.0, 60.0)])));
    }

    #[test]
    fn chunks() {
        let stats = |xmin, xmax, types: Vec<i32>| GeospatialStatistics {
            bbox: Some(BoundingBox {
                xmin,
                xmax,
                ymin: 0.0,
                ymax: 1.0,
                ..Default::default()
            }),
            geospatial_types: Some(types),
        };
        let t = test(false, false);
        assert!(t.prunes(Some(&stats(20.0, 30.0, vec![3]))));
        assert!(!t.prunes(Some(&stats(5.0, 30.0, vec![3]))));
        // Wraparound: [170, 180] ∪ [-180, -170] misses [0, 10]; [170, 180] ∪ [-180, 5] does not.
        assert!(t.prunes(Some(&stats(170.0, -170.0, vec![1]))));
        assert!(!t.prunes(Some(&stats(170.0, 5.0, vec![1]))));
        assert!(!t.prunes(None) && !test(false, true).prunes(Some(&stats(20.0, 30.0, vec![3]))));
        let g = test(true, false);
        assert!(g.prunes(Some(&stats(20.0, 30.0, vec![1, 1004]))));
        assert!(!g.prunes(Some(&stats(20.0, 30.0, vec![1, 2]))));
        assert!(!g.prunes(Some(&stats(20.0, 30.0, vec![]))));
    }
}
