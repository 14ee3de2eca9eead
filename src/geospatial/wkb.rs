//! A reader of Well-Known Binary that visits coordinates without building geometries.
//!
//! ISO WKB (type codes 1–7 plus 1000 for Z, 2000 for M, 3000 for ZM) and the EWKB flags
//! (`0x8000_0000` Z, `0x4000_0000` M, `0x2000_0000` SRID, which is skipped) are read. Every
//! count is checked against the bytes left before anything is read, so a corrupt count is an
//! error, never an allocation or a panic; nesting deeper than [`MAX_DEPTH`] is an error too.

use crate::{Error, Result};

/// Deepest nesting of collections followed.
pub const MAX_DEPTH: usize = 64;

/// The coordinate dimensions of a geometry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Dims {
    pub z: bool,
    pub m: bool,
}

impl Dims {
    fn count(self) -> usize {
        2 + self.z as usize + self.m as usize
    }
}

/// The kind of a sequence of coordinates: how its points are joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Path {
    /// One point (of a POINT or a MULTIPOINT).
    Point,
    /// A LINESTRING: consecutive points joined by edges.
    Line,
    /// A polygon's ring: a closed line around an area.
    Ring,
}

/// What a visit sees: each coordinate (`z`/`m` when the geometry has them), between a
/// `begin` and an `end` of the sequence it belongs to.
pub(crate) trait Visitor {
    fn coord(&mut self, x: f64, y: f64, z: Option<f64>, m: Option<f64>);

    /// A point, line or ring starts (planar bounds ignore the structure).
    fn begin(&mut self, _path: Path) {}

    /// The sequence begun last ends.
    fn end(&mut self) {}
}

fn bad(what: impl std::fmt::Display) -> Error {
    Error::format(format!("invalid WKB: {what}"))
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N]> {
        let end = self.at.checked_add(N).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| bad(format!("{what} past the end at byte {}", self.at)))?;
        let mut out = [0u8; N];
        out.copy_from_slice(&self.bytes[self.at..end]);
        self.at = end;
        Ok(out)
    }

    fn u32(&mut self, little: bool, what: &str) -> Result<u32> {
        let b = self.take::<4>(what)?;
        Ok(if little {
            u32::from_le_bytes(b)
        } else {
            u32::from_be_bytes(b)
        })
    }

    fn f64(&mut self, little: bool) -> Result<f64> {
        let b = self.take::<8>("coordinate")?;
        Ok(if little {
            f64::from_le_bytes(b)
        } else {
            f64::from_be_bytes(b)
        })
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// A count of items of at least `min_size` bytes each, checked against the bytes left.
    fn count(&mut self, little: bool, min_size: usize, what: &str) -> Result<usize> {
        let n = self.u32(little, what)? as usize;
        if n.saturating_mul(min_size) > self.left() {
            return Err(bad(format!(
                "{n} {what} need more than the {} bytes left",
                self.left()
            )));
        }
        Ok(n)
    }
}

/// Visit every coordinate of the one geometry `wkb` holds (trailing bytes are an error) and
/// return its ISO type code (for example 1003 for a POLYGON Z).
pub(crate) fn visit(wkb: &[u8], v: &mut impl Visitor) -> Result<i32> {
    let mut c = Cursor { bytes: wkb, at: 0 };
    let code = geometry(&mut c, v, 0)?;
    if c.left() != 0 {
        return Err(bad(format!("{} bytes after the geometry", c.left())));
    }
    Ok(code)
}

fn geometry(c: &mut Cursor<'_>, v: &mut impl Visitor, depth: usize) -> Result<i32> {
    if depth > MAX_DEPTH {
        return Err(bad(format!("nested deeper than {MAX_DEPTH}")));
    }
    let little = match c.take::<1>("byte order")?[0] {
        0 => false,
        1 => true,
        b => return Err(bad(format!("byte order {b}"))),
    };
    let raw = c.u32(little, "geometry type")?;
    let mut dims = Dims {
        z: raw & 0x8000_0000 != 0,
        m: raw & 0x4000_0000 != 0,
    };
    if raw & 0x2000_0000 != 0 {
        c.u32(little, "SRID")?;
    }
    let iso = raw & 0x0fff_ffff;
    let (kind, iso_dims) = (iso % 1000, iso / 1000);
    match iso_dims {
        0 => {}
        1 => dims.z = true,
        2 => dims.m = true,
        3 => (dims.z, dims.m) = (true, true),
        _ => return Err(bad(format!("geometry type {raw}"))),
    }
    let point_size = 8 * dims.count();
    match kind {
        1 => coords(c, v, dims, little, 1, Path::Point)?,
        2 => {
            let n = c.count(little, point_size, "points")?;
            coords(c, v, dims, little, n, Path::Line)?
        }
        3 => {
            let rings = c.count(little, 4, "rings")?;
            for _ in 0..rings {
                let n = c.count(little, point_size, "points")?;
                coords(c, v, dims, little, n, Path::Ring)?;
            }
        }
        4..=7 => {
            // Each part is a geometry of its own: at least a byte order and a type.
            let parts = c.count(little, 5, "parts")?;
            for _ in 0..parts {
                geometry(c, v, depth + 1)?;
            }
        }
        _ => return Err(bad(format!("geometry type {raw}"))),
    }
    Ok((kind + 1000 * (dims.z as u32 + 2 * dims.m as u32)) as i32)
}

fn coords(
    c: &mut Cursor<'_>,
    v: &mut impl Visitor,
    dims: Dims,
    little: bool,
    n: usize,
    path: Path,
) -> Result<()> {
    v.begin(path);
    for _ in 0..n {
        let x = c.f64(little)?;
        let y = c.f64(little)?;
        let z = if dims.z { Some(c.f64(little)?) } else { None };
        let m = if dims.m { Some(c.f64(little)?) } else { None };
        v.coord(x, y, z, m);
    }
    v.end();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Count(usize);
    impl Visitor for Count {
        fn coord(&mut self, _: f64, _: f64, _: Option<f64>, _: Option<f64>) {
            self.0 += 1;
        }
    }

    fn point(little: bool, code: u32, coords: &[f64]) -> Vec<u8> {
        let mut out = vec![little as u8];
        let put =
            |out: &mut Vec<u8>, b: [u8; 4], l: [u8; 4]| out.extend(if little { l } else { b });
        put(&mut out, code.to_be_bytes(), code.to_le_bytes());
        for x in coords {
            out.extend(if little {
                x.to_le_bytes()
            } else {
                x.to_be_bytes()
            });
        }
        out
    }

    #[test]
    fn codes_and_byte_orders() {
        let mut n = Count(0);
        assert_eq!(visit(&point(true, 1, &[1.0, 2.0]), &mut n).unwrap(), 1);
        assert_eq!(
            visit(&point(false, 3001, &[1.0, 2.0, 3.0, 4.0]), &mut n).unwrap(),
            3001
        );
        // EWKB: the Z flag and an SRID.
        let ewkb = point(true, 0xA000_0001, &[]);
        let mut with_srid = ewkb[..5].to_vec();
        with_srid.extend(4326u32.to_le_bytes());
        for x in [1.0f64, 2.0, 3.0] {
            with_srid.extend(x.to_le_bytes());
        }
        assert_eq!(visit(&with_srid, &mut n).unwrap(), 1001);
        assert_eq!(n.0, 3);
    }

    #[test]
    fn bad_wkb_is_an_error() {
        let mut n = Count(0);
        let good = point(true, 1, &[1.0, 2.0]);
        for cut in 0..good.len() {
            assert!(visit(&good[..cut], &mut n).is_err(), "cut at {cut}");
        }
        let mut trailing = good.clone();
        trailing.push(0);
        assert!(visit(&trailing, &mut n).is_err());
        assert!(visit(&point(true, 8, &[]), &mut n).is_err());
        assert!(visit(&point(true, 4001, &[1.0, 2.0]), &mut n).is_err());
        // A linestring claiming 2^32-1 points in 9 bytes: an error before any read.
        let mut huge = vec![1u8];
        huge.extend(2u32.to_le_bytes());
        huge.extend(u32::MAX.to_le_bytes());
        assert!(visit(&huge, &mut n)
            .unwrap_err()
            .to_string()
            .contains("points"));
        // Collections nested past the limit.
        let mut deep = Vec::new();
        for _ in 0..=MAX_DEPTH + 1 {
            deep.push(1u8);
            deep.extend(7u32.to_le_bytes());
            deep.extend(1u32.to_le_bytes());
        }
        assert!(visit(&deep, &mut n)
            .unwrap_err()
            .to_string()
            .contains("nested"));
    }
}
