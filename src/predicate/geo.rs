//! `column intersects box(xmin, ymin, xmax, ymax)`: the row test and chunk pruning; what it
//! means is in the [`super`] docs (section *Geospatial*).

use crate::geospatial::{wkb_bounds, GeoBox};
use crate::metadata::GeospatialStatistics;

/// A bound `intersects` test.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct GeoTest {
    pub bbox: GeoBox,
    /// The column is GEOGRAPHY (see the module docs).
    pub geography: bool,
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
        let Ok((code, bbox)) = wkb_bounds(wkb) else {
            return false; // not a geometry: unknown
        };
        if self.geography && code.rem_euclid(1000) != 1 {
            return true; // undecided without spherical geometry: kept
        }
        let meets = bbox.is_some_and(|b| self.bbox.intersects(&b));
        meets != self.negated
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
        // GEOGRAPHY: points decided, other shapes kept.
        let g = test(true, false);
        assert!(!g.matches(&point(11.0, 5.0)) && g.matches(&point(1.0, 1.0)));
        assert!(g.matches(&line(&[(50.0, 50.0), (60.0, 60.0)])));
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
