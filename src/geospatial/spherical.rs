//! A longitude/latitude box that covers GEOGRAPHY values whose edges are great-circle arcs
//! (the `SPHERICAL` edge interpolation, the default).
//!
//! The box of the vertices is not enough: an arc between two points at latitude 60° bulges
//! toward the pole. So the box covers:
//! - every vertex (a vertex at a pole has every longitude: the box then spans all of them);
//! - every edge: its longitudes are the shorter way between its ends, and its latitudes reach
//!   the great circle's northernmost (southernmost) point when that point lies on the arc;
//!   an edge through a pole spans every longitude, an edge between antipodes (no single
//!   great circle) spans the whole sphere;
//! - every ring's inside. The spec does not say which side of a ring is its inside; parq
//!   takes the **smaller** side, as S2 and BigQuery do for unoriented input (SedonaDB reads
//!   GEOGRAPHY through S2). Latitude has no extremum inside an area without a pole and
//!   longitude only changes across the boundary, so a side that holds no pole is covered by
//!   the box of its ring. A ring that winds once around the earth separates the poles: its
//!   smaller side holds the pole of the hemisphere the ring lies in, and the box then runs to
//!   that pole at every longitude; when the ring crosses the equator, or when parq cannot
//!   bound the area of the pole-free side below half the sphere, the box runs to both poles.
//!
//! Latitudes computed for arcs are widened by `LAT_MARGIN` (1e-9°) against rounding; vertex values
//! are kept exactly. Coordinates outside `[-180, 180] × [-90, 90]` and `NaN`s are special
//! values (`Geospatial.md`) and skipped, with their edges.

use super::wkb::{Path, Visitor};
use super::Range;

/// Degrees added outside a latitude computed for the inside of an arc.
pub(crate) const LAT_MARGIN: f64 = 1e-9;

/// Most disjoint longitude intervals kept; more are joined across their smallest gap.
const MAX_INTERVALS: usize = 64;

/// A unit vector of a point on the sphere.
#[derive(Debug, Clone, Copy)]
struct Vec3([f64; 3]);

impl Vec3 {
    fn of(lon: f64, lat: f64) -> Vec3 {
        let (lon, lat) = (lon.to_radians(), lat.to_radians());
        Vec3([lat.cos() * lon.cos(), lat.cos() * lon.sin(), lat.sin()])
    }

    fn cross(self, o: Vec3) -> Vec3 {
        let (a, b) = (self.0, o.0);
        Vec3([
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ])
    }

    fn dot(self, o: Vec3) -> f64 {
        self.0[0] * o.0[0] + self.0[1] * o.0[1] + self.0[2] * o.0[2]
    }

    fn norm(self) -> f64 {
        self.dot(self).sqrt()
    }
}

/// The longitudes covered, as sorted disjoint intervals within `[-180, 180]`.
#[derive(Debug, Clone, Default)]
struct Longitudes(Vec<(f64, f64)>);

impl Longitudes {
    fn all(&mut self) {
        self.0.clear();
        self.0.push((-180.0, 180.0));
    }

    /// Add `[lo, hi]`, both in `[-180, 180]`; `lo > hi` wraps across the antimeridian.
    fn add(&mut self, lo: f64, hi: f64) {
        if lo > hi {
            self.add_plain(lo, 180.0);
            self.add_plain(-180.0, hi);
        } else {
            self.add_plain(lo, hi);
        }
    }

    fn add_plain(&mut self, lo: f64, hi: f64) {
        let v = &mut self.0;
        // The intervals that overlap or touch [lo, hi] are v[first..last].
        let first = v.partition_point(|&(_, h)| h < lo);
        let last = v.partition_point(|&(l, _)| l <= hi);
        if first == last {
            v.insert(first, (lo, hi));
        } else {
            let merged = (lo.min(v[first].0), hi.max(v[last - 1].1));
            v.splice(first..last, [merged]);
        }
        if v.len() > MAX_INTERVALS {
            let i = (0..v.len() - 1)
                .min_by(|&a, &b| (v[a + 1].0 - v[a].1).total_cmp(&(v[b + 1].0 - v[b].1)))
                .expect("more than one interval");
            v[i].1 = v[i + 1].1;
            v.remove(i + 1);
        }
    }

    /// The shortest `(west, east)` arc covering every interval (`west > east` when it crosses
    /// the antimeridian), or `None` when nothing was added.
    fn arc(&self) -> Option<(f64, f64)> {
        let v = &self.0;
        let (first, last) = (v.first()?, v.last()?);
        // The gap across the antimeridian, then the gaps between neighbours.
        let mut best = (first.0 + 360.0 - last.1, first.0, last.1);
        for w in v.windows(2) {
            let gap = w[1].0 - w[0].1;
            if gap > best.0 {
                best = (gap, w[1].0, w[0].1);
            }
        }
        if best.0 <= 0.0 {
            return Some((-180.0, 180.0));
        }
        Some((best.1, best.2))
    }
}

/// The sequence being visited: its kind, first and previous vertex, and for a ring what
/// decides its inside.
#[derive(Debug, Clone, Copy)]
struct Open {
    path: Path,
    first: Option<(f64, f64, Vec3)>,
    prev: Option<(f64, f64, Vec3)>,
    /// Sum of the edges' longitude steps: about ±360 when the ring winds around a pole.
    winding: f64,
    /// Longitude relative to the first vertex, unwrapped along the ring: its range.
    unwrapped: (f64, f64, f64),
    /// Latitudes of the ring and its edges.
    lat: Range,
    /// An edge or vertex touches a pole: the ring's sides are not told apart.
    polar: bool,
}

/// Accumulates the covering box of spherical GEOGRAPHY values (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct SphericalBounds {
    lon: Longitudes,
    lat: Range,
    pub(super) z: Range,
    pub(super) m: Range,
    open: Option<Open>,
}

impl SphericalBounds {
    pub(crate) fn new() -> Self {
        SphericalBounds {
            lon: Longitudes::default(),
            lat: Range::EMPTY,
            z: Range::EMPTY,
            m: Range::EMPTY,
            open: None,
        }
    }

    /// The covering `(xmin, xmax, ymin, ymax)`, `xmin > xmax` across the antimeridian.
    pub(crate) fn xy(&self) -> Option<(f64, f64, f64, f64)> {
        let (west, east) = self.lon.arc()?;
        let (south, north) = self.lat.get()?;
        Some((west, east, south, north))
    }

    fn pole(&mut self, north: bool) {
        self.lon.all();
        self.lat.add(if north { 90.0 } else { -90.0 });
    }

    fn whole_sphere(&mut self) {
        self.pole(true);
        self.pole(false);
    }

    /// Bound the arc from `a` to `b` into the chunk's box and the open ring's latitudes.
    fn edge(&mut self, a: (f64, f64, Vec3), b: (f64, f64, Vec3), open: &mut Open) {
        let n = a.2.cross(b.2);
        let len = n.norm();
        if len < 1e-15 {
            if a.2.dot(b.2) < 0.0 {
                // Antipodes: no single great circle joins them.
                self.whole_sphere();
                open.polar = true;
            }
            return;
        }
        let n = Vec3([n.0[0] / len, n.0[1] / len, n.0[2] / len]);
        let mut through_pole = false;
        // The great circle's northernmost point, and (negated) its southernmost one.
        let top = Vec3([-n.0[2] * n.0[0], -n.0[2] * n.0[1], 1.0 - n.0[2] * n.0[2]]);
        for sign in [1.0, -1.0] {
            let p = Vec3([sign * top.0[0], sign * top.0[1], sign * top.0[2]]);
            if a.2.cross(p).dot(n) > 0.0 && p.cross(b.2).dot(n) > 0.0 {
                let horizontal = (p.0[0] * p.0[0] + p.0[1] * p.0[1]).sqrt();
                let lat = p.0[2].atan2(horizontal).to_degrees();
                let widened = (lat + sign * LAT_MARGIN).clamp(-90.0, 90.0);
                self.lat.add(widened);
                open.lat.add(widened);
                through_pole |= widened.abs() >= 90.0;
            }
        }
        let step = lon_step(a.0, b.0);
        if through_pole || step.abs() >= 180.0 {
            self.lon.all();
            open.polar = true;
        } else if step >= 0.0 {
            self.lon.add(a.0, b.0);
        } else {
            self.lon.add(b.0, a.0);
        }
        open.winding += step;
        let u = open.unwrapped.0 + step;
        open.unwrapped = (u, open.unwrapped.1.min(u), open.unwrapped.2.max(u));
    }

    /// Close the open ring: add the pole(s) its smaller side holds.
    fn close_ring(&mut self, open: &Open) {
        let Some((south, north)) = open.lat.get() else {
            return;
        };
        if open.polar {
            self.whole_sphere();
        } else if open.winding.abs() > 180.0 {
            match (south > 0.0, north < 0.0) {
                (true, _) => self.pole(true),
                (_, true) => self.pole(false),
                _ => self.whole_sphere(),
            }
        } else {
            // The pole-free side lies in its box; its area is below half the sphere's (2π)
            // when the box's is.
            let width = (open.unwrapped.2 - open.unwrapped.1).to_radians();
            let height = north.to_radians().sin() - south.to_radians().sin();
            if width * height >= 2.0 * std::f64::consts::PI {
                self.whole_sphere();
            }
        }
    }
}

/// The signed step in longitude from `a` to `b` the shorter way, in `[-180, 180]`.
fn lon_step(a: f64, b: f64) -> f64 {
    let d = b - a;
    if d > 180.0 {
        d - 360.0
    } else if d < -180.0 {
        d + 360.0
    } else {
        d
    }
}

impl Visitor for SphericalBounds {
    fn begin(&mut self, path: Path) {
        self.open = Some(Open {
            path,
            first: None,
            prev: None,
            winding: 0.0,
            unwrapped: (0.0, 0.0, 0.0),
            lat: Range::EMPTY,
            polar: false,
        });
    }

    fn coord(&mut self, x: f64, y: f64, z: Option<f64>, m: Option<f64>) {
        if let Some(z) = z {
            self.z.add(z);
        }
        if let Some(m) = m {
            self.m.add(m);
        }
        let Some(mut open) = self.open.take() else {
            return;
        };
        if !((-180.0..=180.0).contains(&x) && (-90.0..=90.0).contains(&y)) {
            // NaN or out of range: a special value. A ring missing a vertex has no sides.
            open.polar |= open.path == Path::Ring;
            self.open = Some(open);
            return;
        }
        let here = (x, y, Vec3::of(x, y));
        self.lat.add(y);
        open.lat.add(y);
        if y.abs() == 90.0 {
            self.lon.all();
            open.polar = true;
        } else {
            self.lon.add(x, x);
        }
        match open.prev {
            Some(prev) if open.path != Path::Point => self.edge(prev, here, &mut open),
            _ => open.first = Some(here),
        }
        open.prev = Some(here);
        self.open = Some(open);
    }

    fn end(&mut self) {
        let Some(mut open) = self.open.take() else {
            return;
        };
        if open.path == Path::Ring {
            // A ring is closed in WKB (last point = first); close it anyway.
            if let (Some(first), Some(prev)) = (open.first, open.prev) {
                self.edge(prev, first, &mut open);
            }
            self.close_ring(&open);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The covering box of one sequence of `(lon, lat)` points.
    fn bound(path: Path, points: &[(f64, f64)]) -> (f64, f64, f64, f64) {
        let mut b = SphericalBounds::new();
        b.begin(path);
        for &(x, y) in points {
            b.coord(x, y, None, None);
        }
        b.end();
        b.xy().unwrap()
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-6
    }

    #[test]
    fn arcs_bulge_toward_the_pole() {
        // Two points at 60°N, 90° apart: the arc between them peaks at atan(tan 60° / cos 45°).
        let (w, e, s, n) = bound(Path::Line, &[(-45.0, 60.0), (45.0, 60.0)]);
        let peak = (60f64.to_radians().tan() / 45f64.to_radians().cos())
            .atan()
            .to_degrees();
        assert_eq!((w, e, s), (-45.0, 45.0, 60.0));
        assert!(close(n, peak) && n > peak, "{n} vs {peak}");
        // And in the south, toward the south pole.
        let (_, _, s, n) = bound(Path::Line, &[(-45.0, -60.0), (45.0, -60.0)]);
        assert!(close(s, -peak) && s < -peak && n == -60.0);
        // Along the equator or a meridian there is no bulge.
        assert_eq!(
            bound(Path::Line, &[(10.0, 0.0), (20.0, 0.0)]),
            (10.0, 20.0, 0.0, 0.0)
        );
        assert_eq!(
            bound(Path::Line, &[(10.0, -5.0), (10.0, 5.0)]),
            (10.0, 10.0, -5.0, 5.0)
        );
    }

    #[test]
    fn longitudes_take_the_short_way_and_wrap() {
        let (w, e, _, _) = bound(Path::Line, &[(170.0, 0.0), (-170.0, 0.0)]);
        assert_eq!((w, e), (170.0, -170.0));
        // Points: the largest gap is left out.
        let (w, e, s, n) = bound(Path::Point, &[(170.0, 1.0)]);
        assert_eq!((w, e, s, n), (170.0, 170.0, 1.0, 1.0));
        let mut b = SphericalBounds::new();
        for x in [-175.0, 175.0, 0.0] {
            b.begin(Path::Point);
            b.coord(x, 0.0, None, None);
            b.end();
        }
        assert_eq!(b.xy().unwrap().0..=b.xy().unwrap().1, 0.0..=-175.0);
    }

    #[test]
    fn poles_span_every_longitude() {
        assert_eq!(
            bound(Path::Point, &[(0.0, 90.0)]),
            (-180.0, 180.0, 90.0, 90.0)
        );
        // An arc over the pole: from 10°E to 170°W at 80°N.
        let (w, e, s, n) = bound(Path::Line, &[(10.0, 80.0), (-170.0, 80.0)]);
        assert_eq!((w, e, s, n), (-180.0, 180.0, 80.0, 90.0));
        // Antipodes: the whole sphere.
        assert_eq!(
            bound(Path::Line, &[(0.0, 0.0), (180.0, 0.0)]),
            (-180.0, 180.0, -90.0, 90.0)
        );
    }

    #[test]
    fn rings_hold_their_smaller_side() {
        // A small square: its own box (plus the bulge of its northern edge).
        let square = [
            (0.0, 0.0),
            (10.0, 0.0),
            (10.0, 10.0),
            (0.0, 10.0),
            (0.0, 0.0),
        ];
        let (w, e, s, n) = bound(Path::Ring, &square);
        assert_eq!((w, e, s), (0.0, 10.0, 0.0));
        assert!(n > 10.0 && n < 10.2, "{n}");
        // A ring around the north pole at 80°N holds the pole.
        let cap: Vec<_> = (0..=4).map(|i| (-180.0 + 90.0 * i as f64, 80.0)).collect();
        assert_eq!(bound(Path::Ring, &cap), (-180.0, 180.0, 80.0, 90.0));
        let south: Vec<_> = cap.iter().map(|&(x, y)| (x, -y)).collect();
        assert_eq!(bound(Path::Ring, &south), (-180.0, 180.0, -90.0, -80.0));
        // Around the earth across the equator: either pole may be inside.
        let tilted = [
            (-180.0, -10.0),
            (-90.0, 10.0),
            (0.0, -10.0),
            (90.0, 10.0),
            (-180.0, -10.0),
        ];
        assert_eq!(bound(Path::Ring, &tilted), (-180.0, 180.0, -90.0, 90.0));
        // Lines are not rings: no inside.
        let (w, e, _, n) = bound(Path::Line, &cap);
        assert!(w == -180.0 && e == 180.0 && n < 90.0);
    }

    #[test]
    fn special_values_are_skipped() {
        let mut b = SphericalBounds::new();
        b.begin(Path::Point);
        b.coord(f64::NAN, f64::NAN, Some(f64::NAN), None);
        b.end();
        assert!(b.xy().is_none());
        b.begin(Path::Line);
        for (x, y) in [(1.0, 1.0), (200.0, 1.0), (2.0, 2.0), (3.0, 95.0)] {
            b.coord(x, y, Some(5.0), None);
        }
        b.end();
        let (w, e, s, n) = b.xy().unwrap();
        assert_eq!((w, e, s), (1.0, 2.0, 1.0));
        assert!(close(n, 2.0));
        assert_eq!(b.z.get(), Some((5.0, 5.0)));
    }

    #[test]
    fn many_intervals_stay_covered() {
        let mut lon = Longitudes::default();
        for i in 0..1000 {
            let x = -180.0 + (i as f64 * 7.31) % 360.0;
            lon.add(x, x);
        }
        assert!(lon.0.len() <= MAX_INTERVALS);
        for i in 0..1000 {
            let x = -180.0 + (i as f64 * 7.31) % 360.0;
            assert!(lon.0.iter().any(|&(l, h)| l <= x && x <= h), "{x}");
        }
    }
}
