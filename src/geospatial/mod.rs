//! GEOMETRY and GEOGRAPHY columns: their statistics from WKB values, and bounding boxes.
//!
//! The writer computes `GeospatialStatistics` (`ColumnMetaData` field 17) for every chunk of
//! a column annotated GEOMETRY or GEOGRAPHY, as `Geospatial.md` (apache/parquet-format) says:
//! - the bounding box of every coordinate, skipping nulls and special values (`NaN` per axis,
//!   empty geometries); no box when no X or no Y was seen, no Z (M) range when no Z (M) was;
//! - the set of ISO WKB type codes of the values (1 POINT … 7 GEOMETRYCOLLECTION, plus 1000
//!   for Z, 2000 for M, 3000 for ZM), sorted;
//! - a value that is not valid WKB leaves the chunk **without** geospatial statistics (the
//!   column's data is still written): no statistics is always safe, a wrong box is not. This
//!   is what parquet-cpp and arrow-rs do.
//!
//! GEOGRAPHY with the spherical edge interpolation (the default) gets a box that covers its
//! edges, not only its vertices: its edges are great-circle arcs, and an arc between two
//! points at latitude 60° passes north of 60°. How that box is made, and which side of a
//! ring is its inside, is in [`spherical`]'s docs. GEOGRAPHY with any other (ellipsoidal)
//! interpolation gets the type codes but no box: its geodesics differ from great circles by
//! up to a few tenths of a degree, and parq does not bound them. (parquet-cpp and arrow-rs
//! write no statistics at all for GEOGRAPHY; SedonaDB writes S2's covering boxes.)
//!
//! Reading, the boxes prune row groups for `col intersects box(...)` predicates
//! ([`crate::predicate`]); [`GeoBox::intersects`] is that test, X wraparound included.

pub mod spherical;
mod wkb;

use std::collections::BTreeSet;

use crate::metadata::{BoundingBox, EdgeInterpolationAlgorithm, GeospatialStatistics};
use crate::Result;

pub use wkb::MAX_DEPTH;

/// Minimum and maximum of one axis, over the values that are not `NaN`.
#[derive(Debug, Clone, Copy)]
struct Range {
    lo: f64,
    hi: f64,
}

impl Range {
    const EMPTY: Range = Range {
        lo: f64::INFINITY,
        hi: f64::NEG_INFINITY,
    };

    fn add(&mut self, v: f64) {
        if !v.is_nan() {
            self.lo = self.lo.min(v);
            self.hi = self.hi.max(v);
        }
    }

    fn get(self) -> Option<(f64, f64)> {
        (self.lo <= self.hi).then_some((self.lo, self.hi))
    }
}

/// The ranges of the four axes.
#[derive(Debug, Clone, Copy)]
struct Ranges([Range; 4]);

impl wkb::Visitor for Ranges {
    fn coord(&mut self, x: f64, y: f64, z: Option<f64>, m: Option<f64>) {
        self.0[0].add(x);
        self.0[1].add(y);
        if let Some(z) = z {
            self.0[2].add(z);
        }
        if let Some(m) = m {
            self.0[3].add(m);
        }
    }
}

impl Ranges {
    fn new() -> Ranges {
        Ranges([Range::EMPTY; 4])
    }

    fn bbox(&self) -> Option<BoundingBox> {
        let (xmin, xmax) = self.0[0].get()?;
        let (ymin, ymax) = self.0[1].get()?;
        Some(make_box((xmin, xmax, ymin, ymax), self.0[2], self.0[3]))
    }
}

/// A box of the X/Y bounds `(xmin, xmax, ymin, ymax)` and the Z and M ranges, if any.
fn make_box((xmin, xmax, ymin, ymax): (f64, f64, f64, f64), z: Range, m: Range) -> BoundingBox {
    let (z, m) = (z.get(), m.get());
    BoundingBox {
        xmin,
        xmax,
        ymin,
        ymax,
        zmin: z.map(|z| z.0),
        zmax: z.map(|z| z.1),
        mmin: m.map(|m| m.0),
        mmax: m.map(|m| m.1),
    }
}

/// How a chunk's values are bounded.
#[derive(Debug, Clone)]
enum Bounder {
    /// GEOMETRY: the box of the vertices.
    Planar(Ranges),
    /// Spherical GEOGRAPHY: a box covering the great-circle edges.
    Spherical(Box<spherical::SphericalBounds>),
    /// Other GEOGRAPHY: no box.
    None,
}

impl Bounder {
    fn visit(&mut self, wkb: &[u8]) -> Result<i32> {
        match self {
            Bounder::Planar(r) => wkb::visit(wkb, r),
            Bounder::Spherical(s) => wkb::visit(wkb, s.as_mut()),
            Bounder::None => wkb::visit(wkb, &mut Ranges::new()),
        }
    }

    fn bbox(&self) -> Option<BoundingBox> {
        match self {
            Bounder::Planar(r) => r.bbox(),
            Bounder::Spherical(s) => Some(make_box(s.xy()?, s.z, s.m)),
            Bounder::None => None,
        }
    }
}

/// The ISO type code and bounding box (`None` for an empty geometry) of one WKB value.
///
/// ```
/// // POINT (1 2), little-endian.
/// let mut wkb = vec![1u8, 1, 0, 0, 0];
/// wkb.extend(1f64.to_le_bytes());
/// wkb.extend(2f64.to_le_bytes());
/// let (code, bbox) = parq::geospatial::wkb_bounds(&wkb)?;
/// assert_eq!(code, 1);
/// assert_eq!(bbox.map(|b| (b.xmin, b.ymax)), Some((1.0, 2.0)));
/// assert!(parq::geospatial::wkb_bounds(&wkb[..12]).is_err());
/// # Ok::<(), parq::Error>(())
/// ```
pub fn wkb_bounds(wkb: &[u8]) -> Result<(i32, Option<BoundingBox>)> {
    let mut r = Ranges::new();
    let code = wkb::visit(wkb, &mut r)?;
    Ok((code, r.bbox()))
}

/// The ISO type code and covering box of one GEOGRAPHY WKB value with spherical edges
/// (`None` for an empty geography): the box holds every point of its edges and of its
/// polygons' insides, as [`spherical`] describes. `xmin > xmax` when it crosses the
/// antimeridian.
///
/// ```
/// // LINESTRING (-45 60, 45 60): the great-circle arc peaks at about 67.8°N.
/// let mut wkb = vec![1u8, 2, 0, 0, 0, 2, 0, 0, 0];
/// for c in [-45f64, 60.0, 45.0, 60.0] {
///     wkb.extend(c.to_le_bytes());
/// }
/// let (code, bbox) = parq::geospatial::spherical_bounds(&wkb)?;
/// let b = bbox.unwrap();
/// assert_eq!((code, b.xmin, b.xmax, b.ymin), (2, -45.0, 45.0, 60.0));
/// assert!((b.ymax - 67.79).abs() < 0.01);
/// # Ok::<(), parq::Error>(())
/// ```
pub fn spherical_bounds(wkb: &[u8]) -> Result<(i32, Option<BoundingBox>)> {
    let mut b = Bounder::Spherical(Box::new(spherical::SphericalBounds::new()));
    let code = b.visit(wkb)?;
    Ok((code, b.bbox()))
}

/// The WKT name of an ISO WKB type code, e.g. `"POLYGON Z"` for 1003; `None` for a code
/// outside 1–7 (plus 1000, 2000 or 3000).
pub fn type_name(code: i32) -> Option<String> {
    if !(1..4000).contains(&code) {
        return None;
    }
    let kind = match code % 1000 {
        1 => "POINT",
        2 => "LINESTRING",
        3 => "POLYGON",
        4 => "MULTIPOINT",
        5 => "MULTILINESTRING",
        6 => "MULTIPOLYGON",
        7 => "GEOMETRYCOLLECTION",
        _ => return None,
    };
    let dims = ["", " Z", " M", " ZM"][(code / 1000) as usize];
    Some(format!("{kind}{dims}"))
}

/// Accumulates the `GeospatialStatistics` of a column chunk, value by value.
#[derive(Debug, Clone)]
pub struct GeoStatsBuilder {
    bounder: Bounder,
    types: BTreeSet<i32>,
    invalid: bool,
}

impl GeoStatsBuilder {
    fn with(bounder: Bounder) -> Self {
        GeoStatsBuilder {
            bounder,
            types: BTreeSet::new(),
            invalid: false,
        }
    }

    /// For a GEOMETRY column: the box of the vertices, and types.
    pub fn geometry() -> Self {
        Self::with(Bounder::Planar(Ranges::new()))
    }

    /// For a GEOGRAPHY column with edges interpolated by `algorithm` (`None`: spherical):
    /// a box covering the edges when they are spherical, no box otherwise (see the module
    /// docs); types always.
    pub fn geography(algorithm: Option<EdgeInterpolationAlgorithm>) -> Self {
        let spherical = matches!(
            algorithm,
            None | Some(EdgeInterpolationAlgorithm::SPHERICAL)
        );
        Self::with(if spherical {
            Bounder::Spherical(Box::new(spherical::SphericalBounds::new()))
        } else {
            Bounder::None
        })
    }

    /// Add one non-null WKB value; an invalid one makes [`Self::finish`] return `None`.
    pub fn update(&mut self, wkb: &[u8]) {
        if self.invalid {
            return;
        }
        match self.bounder.visit(wkb) {
            Ok(code) => {
                self.types.insert(code);
            }
            Err(_) => self.invalid = true,
        }
    }

    /// The statistics of the values added, or `None` when one of them was not valid WKB.
    pub fn finish(&self) -> Option<GeospatialStatistics> {
        if self.invalid {
            return None;
        }
        Some(GeospatialStatistics {
            bbox: self.bounder.bbox(),
            geospatial_types: Some(self.types.iter().copied().collect()),
        })
    }
}

/// An X/Y query box. `xmin > xmax` wraps around the antimeridian: X in `[xmin, ∞) ∪ (-∞, xmax]`,
/// as `Geospatial.md` defines for statistics.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GeoBox {
    /// Smallest X (westernmost).
    pub xmin: f64,
    /// Smallest Y.
    pub ymin: f64,
    /// Largest X (easternmost).
    pub xmax: f64,
    /// Largest Y.
    pub ymax: f64,
}

impl GeoBox {
    /// Whether this box and the X/Y part of `other` share a point (edges included). A box with
    /// a `NaN` bound is not reliable (the spec says not to use it): the answer is then `true`.
    pub fn intersects(&self, other: &BoundingBox) -> bool {
        let o = [other.xmin, other.xmax, other.ymin, other.ymax];
        if o.iter().any(|v| v.is_nan()) {
            return true;
        }
        let y = self.ymin <= other.ymax && other.ymin <= self.ymax;
        y && x_overlaps((self.xmin, self.xmax), (other.xmin, other.xmax))
    }
}

/// Whether some coordinate of `wkb` lies in `query` (edges included; `NaN`s never do).
pub(crate) fn any_point_in(wkb: &[u8], query: &GeoBox) -> Result<bool> {
    struct AnyIn<'a>(&'a GeoBox, bool);
    impl wkb::Visitor for AnyIn<'_> {
        fn coord(&mut self, x: f64, y: f64, _: Option<f64>, _: Option<f64>) {
            let q = self.0;
            self.1 |= (q.ymin..=q.ymax).contains(&y) && x_overlaps((q.xmin, q.xmax), (x, x));
        }
    }
    let mut v = AnyIn(query, false);
    wkb::visit(wkb, &mut v)?;
    Ok(v.1)
}

/// Whether two X ranges overlap, either of which may wrap (`lo > hi`).
fn x_overlaps(a: (f64, f64), b: (f64, f64)) -> bool {
    let parts = |(lo, hi): (f64, f64)| {
        if lo <= hi {
            [(lo, hi), (f64::NAN, f64::NAN)]
        } else {
            [(lo, f64::INFINITY), (f64::NEG_INFINITY, hi)]
        }
    };
    parts(a)
        .iter()
        .any(|&(alo, ahi)| parts(b).iter().any(|&(blo, bhi)| alo <= bhi && blo <= ahi))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bbox(xmin: f64, xmax: f64, ymin: f64, ymax: f64) -> BoundingBox {
        BoundingBox {
            xmin,
            xmax,
            ymin,
            ymax,
            ..Default::default()
        }
    }

    fn q(xmin: f64, ymin: f64, xmax: f64, ymax: f64) -> GeoBox {
        GeoBox {
            xmin,
            ymin,
            xmax,
            ymax,
        }
    }

    #[test]
    fn boxes_intersect_with_wraparound() {
        let b = bbox(10.0, 20.0, 0.0, 5.0);
        assert!(q(20.0, 5.0, 30.0, 6.0).intersects(&b)); // corners touch
        assert!(!q(21.0, 0.0, 30.0, 5.0).intersects(&b));
        assert!(!q(10.0, 6.0, 20.0, 7.0).intersects(&b));
        // Statistics crossing the antimeridian: x in [170, 180] or [-180, -170].
        let wrap = bbox(170.0, -170.0, 0.0, 5.0);
        assert!(q(175.0, 0.0, 178.0, 1.0).intersects(&wrap));
        assert!(q(-179.0, 0.0, -175.0, 1.0).intersects(&wrap));
        assert!(!q(-160.0, 0.0, 160.0, 1.0).intersects(&wrap));
        // A query crossing it too.
        assert!(q(160.0, 0.0, -175.0, 1.0).intersects(&b.clone().with_x(-178.0, -177.0)));
        assert!(!q(160.0, 0.0, -175.0, 1.0).intersects(&b));
        assert!(q(160.0, 0.0, -175.0, 1.0).intersects(&wrap));
        // NaN bounds are not used.
        assert!(q(100.0, 100.0, 101.0, 101.0).intersects(&bbox(f64::NAN, 1.0, 0.0, 1.0)));
    }

    impl BoundingBox {
        fn with_x(mut self, xmin: f64, xmax: f64) -> Self {
            self.xmin = xmin;
            self.xmax = xmax;
            self
        }
    }

    #[test]
    fn type_names() {
        assert_eq!(type_name(1).as_deref(), Some("POINT"));
        assert_eq!(type_name(3007).as_deref(), Some("GEOMETRYCOLLECTION ZM"));
        assert_eq!(type_name(2002).as_deref(), Some("LINESTRING M"));
        for bad in [0, 8, 1000, 4001, -1] {
            assert_eq!(type_name(bad), None, "{bad}");
        }
    }

    #[test]
    fn builder_skips_nan_and_empty_and_gives_up_on_bad_wkb() {
        let point = |x: f64, y: f64| {
            let mut w = vec![1u8, 1, 0, 0, 0];
            w.extend(x.to_le_bytes());
            w.extend(y.to_le_bytes());
            w
        };
        let empty_line = [1u8, 2, 0, 0, 0, 0, 0, 0, 0];
        let mut b = GeoStatsBuilder::geometry();
        b.update(&point(f64::NAN, f64::NAN));
        b.update(&empty_line);
        let s = b.finish().unwrap();
        assert_eq!((s.bbox, s.geospatial_types), (None, Some(vec![1, 2])));
        b.update(&point(3.0, -1.0));
        b.update(&point(-2.0, f64::NAN));
        let s = b.finish().unwrap();
        assert_eq!(s.bbox, Some(bbox(-2.0, 3.0, -1.0, -1.0)));
        b.update(&point(1.0, 1.0)[..10]);
        assert_eq!(b.finish(), None);
        let mut g = GeoStatsBuilder::geography(None);
        g.update(&point(1.0, 1.0));
        assert_eq!(g.finish().unwrap().bbox, Some(bbox(1.0, 1.0, 1.0, 1.0)));
        let mut v = GeoStatsBuilder::geography(Some(EdgeInterpolationAlgorithm::VINCENTY));
        v.update(&point(1.0, 1.0));
        assert_eq!(v.finish().unwrap().bbox, None);
    }
}
