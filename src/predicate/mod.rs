//! Predicates: an expression over column paths, pruning by metadata, exact filtering.
//!
//! An [`Expr`] (built with [`col`] or parsed with [`Expr::parse`]) is bound to a file's
//! schema: literals are coerced to each column's type, and `NOT` is pushed down to the
//! leaves (De Morgan, operator inversion; `NOT (x < 1)` on a float column becomes
//! `x >= 1 OR x is NaN`). The bound predicate is then checked, in order, against:
//!
//! 1. row-group statistics,
//! 2. the column index, page by page, giving a [`RowSelection`],
//! 3. bloom filters, for `=` and `IN` (looked up in every stored form of the value: both
//!    zeros of a float),
//! 4. dictionary pages, when every data page of a chunk is dictionary-encoded,
//! 5. and exactly, on the decoded rows ([`BoundPredicate::evaluate`]).
//!
//! Steps 1–4 only ever say "no row here can match" or "maybe": a matching row is never
//! dropped. Comparisons follow SQL's three-valued logic; a row is kept when the predicate is
//! true (not when it is unknown because of a null).
//!
//! ```
//! use parq::predicate::{col, Expr};
//! # use parq::column::{Column, Values};
//! # use parq::write::{Field, ParquetWriter, WriterOptions};
//! # let mut file = Vec::new();
//! # let mut w = ParquetWriter::new(&mut file, vec![Field::int64("id"), Field::double("x")],
//! #     WriterOptions::default().with_row_group_rows(100))?;
//! # let ids = Column { len: 1000, validity: None, values: Values::Int64((0..1000i64).collect::<Vec<_>>().into()) };
//! # let xs = Column { len: 1000, validity: None, values: Values::Double((0..1000).map(|i| i as f64 / 2.0).collect::<Vec<_>>().into()) };
//! # w.write_batch(&[ids, xs])?;
//! # w.finish()?;
//! use parq::read::ParquetReader;
//!
//! let reader = ParquetReader::new(bytes::Bytes::from(file))?;
//! let expr = col("id").ge(250).and(col("id").lt(260)).and(col("x").ne(128.0));
//! let (columns, stats) = reader.read_filtered(&["x"], &expr)?;
//! assert_eq!(columns[0].1.len(), 9);
//! assert_eq!((stats.row_groups, stats.row_groups_pruned), (10, 9));
//! assert_eq!(stats.rows_matched, 9);
//! // The same from the `--where` grammar:
//! let parsed = Expr::parse("id >= 250 and id < 260 and x != 128")?;
//! assert_eq!(reader.read_filtered(&["x"], &parsed)?.1, stats);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Streamed, the same rows come in batches from the read builder
//! ([`ReadBuilder::with_filter`](crate::read::ReadBuilder::with_filter)), with an offset and a
//! limit counted over the matching rows. The predicate's columns are decoded first; the other
//! columns only in row groups with a match, and there either for the matching rows alone or
//! for every row and then filtered, whichever the matches make cheaper ([`Materialise`]):
//!
//! ```
//! # use parq::column::{Column, Values};
//! # use parq::write::{Field, ParquetWriter, WriterOptions};
//! # let mut file = Vec::new();
//! # let mut w = ParquetWriter::new(&mut file, vec![Field::int64("id"), Field::double("x")],
//! #     WriterOptions::default().with_row_group_rows(100))?;
//! # let ids = Column { len: 1000, validity: None, values: Values::Int64((0..1000i64).collect::<Vec<_>>().into()) };
//! # let xs = Column { len: 1000, validity: None, values: Values::Double((0..1000).map(|i| i as f64 / 2.0).collect::<Vec<_>>().into()) };
//! # w.write_batch(&[ids, xs])?;
//! # w.finish()?;
//! use parq::predicate::col;
//! use parq::read::ParquetReader;
//!
//! let reader = ParquetReader::new(bytes::Bytes::from(file))?;
//! let batches = reader
//!     .read_builder()
//!     .with_projection(["id", "x"])
//!     .with_filter(col("id").ge(250).and(col("id").lt(260)))
//!     .with_batch_size(4)
//!     .with_offset(1)
//!     .with_limit(6)
//!     .build()?;
//! let rows = batches
//!     .map(|b| b.map(|b| b.num_rows))
//!     .collect::<Result<Vec<_>, _>>()?;
//! assert_eq!(rows, [3, 3]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`ParquetReader::prune`](crate::read::ParquetReader::prune) gives the rows metadata cannot
//! rule out and [`ParquetReader::filter_rows`](crate::read::ParquetReader::filter_rows) the
//! matching rows, both as a [`RowSelection`] of file row numbers, with [`FilterStats`].
//!
//! Literals are coerced exactly (unsigned integers by annotation, decimals by scale); one that
//! does not fit the column is an error naming it. Pruning never drops a matching row: `NaN`
//! bounds are ignored, `-0.0 = 0.0`, legacy `min`/`max` are used only for signed orders, and a
//! max marked inexact is not used. The text grammar (the CLI's `--where`) is in
//! `docs/cli.md`.
//!
//! # Variant paths
//!
//! A path into a top-level VARIANT column, `var.a.b > 5` (`col("var.a.b").gt(5)`), compares
//! the variant value at `a.b` where the path is shredded to a primitive `typed_value` leaf,
//! and prunes by that leaf's statistics only where no row's value there can sit in a `value`
//! column. The rules are in the `variant_path` module's notes: comparisons and `in` with
//! integers, numbers, strings and booleans (a value of another kind is unknown), and
//! `IS [NOT] NULL` (null where the row has no value at the path; a variant null is a value).
//!
//! # Geospatial: `intersects`
//!
//! `geom intersects box(xmin, ymin, xmax, ymax)` ([`ColumnRef::intersects_box`]) applies to
//! GEOMETRY and GEOGRAPHY columns.
//!
//! **What it means.** On GEOMETRY, a row matches when the bounding box of its WKB value
//! meets the query box, edges included (PostGIS's `&&`, not an exact shape intersection: a
//! polygon whose box meets the query box matches even if its shape does not). The box of a
//! planar geometry is the box of its vertices, so this test is exact and rows are filtered
//! by it. On GEOGRAPHY, a POINT or MULTIPOINT matches when one of its points lies in the box
//! (as stored: a point at a pole has the longitude it was written with). Every other
//! non-null GEOGRAPHY value is kept unless the box that covers its great-circle edges and
//! its polygons' insides ([`crate::geospatial::spherical_bounds`]) misses the query box: a
//! value dropped surely misses, a value kept may miss too. With another edge interpolation
//! than spherical, such values are all kept. `NOT (… intersects …)` is allowed on GEOMETRY
//! only. A query box with `xmin > xmax` wraps around the antimeridian. Nulls and values that
//! are not valid WKB satisfy neither the test nor its negation.
//!
//! **Pruning.** A row group is skipped when its `GeospatialStatistics` box misses the query
//! box (`NaN` bounds are not used, X wraparound is honoured) or when every value is null.
//! GEOGRAPHY boxes are used only when the chunk's geospatial types say every value is a
//! POINT or MULTIPOINT: a box around points bounds them whatever the edges, while for lines
//! and polygons parq cannot tell whether the writer bounded the geodesic edges (parq and
//! SedonaDB do; a writer that bounded vertices only, as a planar bounder does, would make
//! pruning drop matches).
//! The column index has no geospatial statistics, so pages are pruned only when they hold
//! nulls only; a dictionary page whose entries all miss prunes the row group.

mod bloom;
mod bound;
mod custom;
mod dictionary;
// Unstable internals for parq's own fuzz targets, benches and integrations (feature
// `internals`); crate-private otherwise, so they carry no semver promise.
#[cfg(feature = "internals")]
pub mod eval;
#[cfg(not(feature = "internals"))]
pub(crate) mod eval;
mod expr;
pub(crate) mod filter;
mod footer_stats;
// Only the fuzz target `predicate_prune` calls it (feature `internals`).
#[cfg(feature = "internals")]
#[doc(hidden)]
pub mod fuzzing;
mod geo;
mod literal;
mod page_index;
mod parse;
mod parts;
pub(crate) mod prune_plan;
mod stages;
mod stats;
pub(crate) mod temporal;
mod variant_path;

pub use bound::BoundPredicate;
pub use custom::RowPredicate;
pub use expr::{col, CmpOp, ColumnRef, Expr};

pub use filter::{FilterStats, Materialise, MIN_SKIPPED_RUN};
pub use literal::Literal;
pub use parse::ParseError;

use crate::metadata::{EdgeInterpolationAlgorithm, LogicalType};
use crate::read::RowSelection;
use crate::schema::SchemaDescriptor;
use crate::{Error, Result};
use literal::{coerce, Domain, Scalar, Units};

/// One test of one column, with any `NOT` above it already folded in.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Test {
    /// `x op value`, also true for a `NaN` when `or_nan` (a negated ordering on floats).
    Cmp {
        op: CmpOp,
        value: Scalar,
        or_nan: bool,
    },
    /// `x` equals one of the values (none of which is `NaN`).
    In(Vec<Scalar>),
    /// `x` is not null and equals none of the values (none of which is `NaN`).
    NotIn(Vec<Scalar>),
    IsNull,
    IsNotNull,
    /// `x intersects box(...)`, possibly negated (see [`geo`]).
    Geo(geo::GeoTest),
}

/// A test of a leaf column.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Leaf {
    /// Index into the schema's leaves.
    pub column: usize,
    pub domain: Domain,
    pub test: Test,
    /// `Some(k)`: the test is `IS [NOT] NULL` of the struct made of the first `k` names of
    /// the leaf's path (the leaf is the struct's first), not of the leaf.
    pub of_struct: Option<usize>,
    /// Read through a shredded variant path (`column` is its typed leaf): see
    /// [`variant_path`].
    pub variant: Option<Box<variant_path::VariantPath>>,
}

/// What a leaf test reads when it is evaluated: the leaf column, with its nulls (`None`) or
/// with the nulls of the struct of its first `k` path names (`Some(k)`).
pub(crate) type Input = (usize, Option<usize>);

impl Leaf {
    /// What the test reads.
    pub(crate) fn input(&self) -> Input {
        (self.column, self.of_struct)
    }

    /// Whether the leaf column's metadata (statistics, page index, bloom filter, dictionary)
    /// can rule rows out. Not for `IS NOT NULL` of a struct: a null leaf may sit in a valid
    /// struct. (A struct is null only where its leaves are, so leaf metadata can rule out
    /// `IS NULL`.)
    fn metadata_decides(&self) -> bool {
        !(self.of_struct.is_some() && self.test == Test::IsNotNull)
    }
}

/// A bound predicate in negation normal form. With no `NOT` left above the leaves, a null
/// (unknown) leaf can be read as false: AND and OR are monotone, and only "true" keeps a row.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node {
    And(Vec<Node>),
    Or(Vec<Node>),
    Leaf(Leaf),
    Const(bool),
    /// A caller's [`RowPredicate`] over these leaf columns.
    Custom(Custom),
}

/// A [`RowPredicate`] bound to a schema.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Custom {
    pub predicate: RowPredicate,
    /// The leaves of its columns, in its order.
    pub columns: Vec<usize>,
    pub leaves: Vec<crate::schema::ColumnDescriptor>,
}

impl CmpOp {
    /// The operator of `NOT (x op v)` for a non-NaN, non-null `x`.
    fn inverse(self) -> CmpOp {
        match self {
            CmpOp::Eq => CmpOp::Ne,
            CmpOp::Ne => CmpOp::Eq,
            CmpOp::Lt => CmpOp::Ge,
            CmpOp::Le => CmpOp::Gt,
            CmpOp::Gt => CmpOp::Le,
            CmpOp::Ge => CmpOp::Lt,
        }
    }

    /// Whether `x op v` holds when `x` compares to `v` as `ord`.
    pub(crate) fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CmpOp::Eq => ord == Equal,
            CmpOp::Ne => ord != Equal,
            CmpOp::Lt => ord == Less,
            CmpOp::Le => ord != Greater,
            CmpOp::Gt => ord == Greater,
            CmpOp::Ge => ord != Less,
        }
    }
}

impl Node {
    /// Bind `expr` to `schema`, pushing `NOT` down (`negate` is the parity of the `NOT`s
    /// above).
    pub(crate) fn bind(expr: &Expr, schema: &SchemaDescriptor) -> Result<Node> {
        Self::bind_inner(expr, schema, false).map(Node::fold)
    }

    fn bind_inner(expr: &Expr, schema: &SchemaDescriptor, negate: bool) -> Result<Node> {
        // A leaf column, or the typed leaf of a variant path (`var.a.b`).
        let variant = |column: &str| -> Result<Option<(usize, variant_path::VariantPath)>> {
            match schema.find(column) {
                Some(_) => Ok(None),
                None => variant_path::resolve(schema, column),
            }
        };
        let leaf = |column: &str| -> Result<(usize, Domain, Units)> {
            let i = match (schema.find(column), variant(column)?) {
                (Some(i), _) | (None, Some((i, _))) => i,
                (None, None) => {
                    return Err(Error::InvalidArgument(format!(
                        "no leaf column {column:?} in the schema"
                    )))
                }
            };
            let (domain, units) = Domain::of(schema.leaf(i))?;
            Ok((i, domain, units))
        };
        let node = |name: &str, column, domain, test| -> Result<Node> {
            let variant = variant(name)?.map(|(_, v)| Box::new(v));
            if variant.is_some() && !variant_path::supported(&test) {
                return Err(Error::InvalidArgument(format!(
                    "column {name}: predicates on variant paths support `is [not] null`, and \
                     comparisons and `in` with integers, numbers, strings and booleans"
                )));
            }
            Ok(Node::Leaf(Leaf {
                column,
                domain,
                test,
                of_struct: None,
                variant,
            }))
        };
        Ok(match expr {
            Expr::And(a, b) | Expr::Or(a, b) => {
                let children = vec![
                    Self::bind_inner(a, schema, negate)?,
                    Self::bind_inner(b, schema, negate)?,
                ];
                if matches!(expr, Expr::And(..)) != negate {
                    Node::And(children)
                } else {
                    Node::Or(children)
                }
            }
            Expr::Not(e) => Self::bind_inner(e, schema, !negate)?,
            Expr::Custom(predicate) => {
                if negate {
                    return Err(Error::InvalidArgument(format!(
                        "row predicate {predicate} under NOT: negate inside it instead"
                    )));
                }
                let mut columns = Vec::new();
                for path in predicate.columns() {
                    let i = schema.find(path).ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "row predicate {predicate}: no leaf column {path:?} in the schema"
                        ))
                    })?;
                    if schema.leaf(i).max_rep_level > 0 {
                        return Err(Error::Unsupported(format!(
                            "row predicate {predicate}: {path} is repeated"
                        )));
                    }
                    columns.push(i);
                }
                let leaves = columns.iter().map(|&i| schema.leaf(i).clone()).collect();
                Node::Custom(Custom {
                    predicate: predicate.clone(),
                    columns,
                    leaves,
                })
            }
            Expr::IsNull { column, negated } => {
                let test = if *negated != negate {
                    Test::IsNotNull
                } else {
                    Test::IsNull
                };
                // A struct (not under a list or map) is null where its first leaf is null
                // at the struct's level.
                if let Some((i, k)) = struct_leaf(schema, column) {
                    return Ok(Node::Leaf(Leaf {
                        column: i,
                        domain: Domain::Bytes,
                        test,
                        of_struct: Some(k),
                        variant: None,
                    }));
                }
                // Nulls are known for any non-repeated leaf, even one whose values cannot be
                // compared (INT96, INTERVAL): the domain is then never used.
                let (i, domain) = match leaf(column) {
                    Ok((i, domain, _)) => (i, domain),
                    Err(e) => match schema.find(column) {
                        Some(i) if schema.leaf(i).max_rep_level == 0 => (i, Domain::Bytes),
                        _ => return Err(e),
                    },
                };
                node(column, i, domain, test)?
            }
            Expr::Cmp { column, op, value } => {
                let (i, domain, units) = leaf(column)?;
                let value = coerce(value, domain, units, column)?;
                if value.is_nan() {
                    // Every comparison with NaN is false except `!=`, which holds for every
                    // value; negated, the other way round. Nulls stay unknown (false).
                    let always = (*op == CmpOp::Ne) != negate;
                    return Ok(if always {
                        node(column, i, domain, Test::IsNotNull)?
                    } else {
                        Node::Const(false)
                    });
                }
                let ordering = !matches!(op, CmpOp::Eq | CmpOp::Ne);
                let (op, or_nan) = if negate {
                    (op.inverse(), ordering && domain.is_float())
                } else {
                    (*op, false)
                };
                node(column, i, domain, Test::Cmp { op, value, or_nan })?
            }
            Expr::Intersects { column, bbox } => {
                let (i, domain, _) = leaf(column)?;
                let (geography, spherical) = match &schema.leaf(i).logical_type {
                    Some(LogicalType::Geometry { .. }) => (false, false),
                    Some(LogicalType::Geography { algorithm, .. }) => (
                        true,
                        matches!(
                            algorithm,
                            None | Some(EdgeInterpolationAlgorithm::SPHERICAL)
                        ),
                    ),
                    _ => {
                        return Err(Error::InvalidArgument(format!(
                            "column {column}: `intersects` needs a GEOMETRY or GEOGRAPHY column"
                        )))
                    }
                };
                let b = [bbox.xmin, bbox.ymin, bbox.xmax, bbox.ymax];
                if b.iter().any(|v| v.is_nan()) || bbox.ymin > bbox.ymax {
                    return Err(Error::InvalidArgument(format!(
                        "column {column}: box({}, {}, {}, {}) needs numbers and ymin <= ymax",
                        b[0], b[1], b[2], b[3]
                    )));
                }
                if negate && geography {
                    return Err(Error::InvalidArgument(format!(
                        "column {column}: `not … intersects` on GEOGRAPHY is not supported: \
                         parq cannot decide it for geodesic edges"
                    )));
                }
                let test = geo::GeoTest {
                    bbox: *bbox,
                    geography,
                    spherical,
                    negated: negate,
                };
                node(column, i, domain, Test::Geo(test))?
            }
            Expr::In {
                column,
                values,
                negated,
            } => {
                let (i, domain, units) = leaf(column)?;
                let mut scalars = Vec::with_capacity(values.len());
                for v in values {
                    let s = coerce(v, domain, units, column)?;
                    // NaN is in no list; `NOT IN` holds for it.
                    if !s.is_nan() && !scalars.contains(&s) {
                        scalars.push(s);
                    }
                }
                let test = if *negated != negate {
                    Test::NotIn(scalars)
                } else {
                    Test::In(scalars)
                };
                node(column, i, domain, test)?
            }
        })
    }

    /// What the leaves read when evaluated, each once, in order of first use.
    pub(crate) fn inputs(&self) -> Vec<Input> {
        let mut out = Vec::new();
        self.visit(&mut |l| {
            if !out.contains(&l.input()) {
                out.push(l.input());
            }
        });
        self.visit_custom(&mut |c| {
            for &i in &c.columns {
                if !out.contains(&(i, None)) {
                    out.push((i, None));
                }
            }
        });
        out
    }

    /// Flatten nested ANDs and ORs and fold constants.
    fn fold(self) -> Node {
        match self {
            Node::And(children) => {
                let mut out = Vec::new();
                for c in children.into_iter().map(Node::fold) {
                    match c {
                        Node::Const(true) => {}
                        Node::Const(false) => return Node::Const(false),
                        Node::And(inner) => out.extend(inner),
                        c => out.push(c),
                    }
                }
                match out.len() {
                    0 => Node::Const(true),
                    1 => out.pop().unwrap_or(Node::Const(true)),
                    _ => Node::And(out),
                }
            }
            Node::Or(children) => {
                let mut out = Vec::new();
                for c in children.into_iter().map(Node::fold) {
                    match c {
                        Node::Const(false) => {}
                        Node::Const(true) => return Node::Const(true),
                        Node::Or(inner) => out.extend(inner),
                        c => out.push(c),
                    }
                }
                match out.len() {
                    0 => Node::Const(false),
                    1 => out.pop().unwrap_or(Node::Const(false)),
                    _ => Node::Or(out),
                }
            }
            n => n,
        }
    }

    /// The leaf columns its tests read, each once, in order of first use (variant paths and
    /// caller's predicates aside): the columns whose metadata can prune.
    pub(crate) fn tested_columns(&self) -> Vec<usize> {
        let mut out = Vec::new();
        self.visit(&mut |l| {
            if l.variant.is_none() && !out.contains(&l.column) {
                out.push(l.column);
            }
        });
        out
    }

    /// The leaf columns evaluating it reads, each once: its tests' (see
    /// [`Self::tested_columns`]), then its caller's predicates'.
    pub(crate) fn columns(&self) -> Vec<usize> {
        let mut out = self.tested_columns();
        self.visit_custom(&mut |c| {
            for &i in &c.columns {
                if !out.contains(&i) {
                    out.push(i);
                }
            }
        });
        out
    }

    /// The variant paths the predicate reads, each once.
    pub(crate) fn variant_paths(&self) -> Vec<variant_path::VariantPath> {
        let mut out: Vec<variant_path::VariantPath> = Vec::new();
        self.visit(&mut |l| {
            if let Some(v) = &l.variant {
                if !out.contains(v) {
                    out.push((**v).clone());
                }
            }
        });
        out
    }

    pub(crate) fn visit(&self, f: &mut impl FnMut(&Leaf)) {
        match self {
            Node::And(c) | Node::Or(c) => c.iter().for_each(|n| n.visit(f)),
            Node::Leaf(l) => f(l),
            Node::Const(_) | Node::Custom(_) => {}
        }
    }

    /// Each caller's predicate in the tree.
    fn visit_custom(&self, f: &mut impl FnMut(&Custom)) {
        match self {
            Node::And(c) | Node::Or(c) => c.iter().for_each(|n| n.visit_custom(f)),
            Node::Custom(c) => f(c),
            Node::Leaf(_) | Node::Const(_) => {}
        }
    }

    /// The share of rows the predicate is estimated to keep, given each leaf's
    /// (`leaf_share`, from statistics); `None` where a part cannot be estimated. Conjuncts
    /// are taken as independent; of a disjunction with parts that cannot be estimated, the
    /// largest share of the others (the disjunction keeps at least those rows).
    pub(crate) fn estimated_share(
        &self,
        leaf_share: &mut impl FnMut(&Leaf) -> Option<f64>,
    ) -> Option<f64> {
        match self {
            Node::And(c) => c
                .iter()
                .map(|n| n.estimated_share(leaf_share))
                .try_fold(1.0, |acc, p| p.map(|p| acc * p)),
            Node::Or(c) => {
                let shares: Vec<Option<f64>> =
                    c.iter().map(|n| n.estimated_share(leaf_share)).collect();
                if shares.iter().all(Option::is_some) {
                    Some(1.0 - shares.iter().flatten().map(|p| 1.0 - p).product::<f64>())
                } else {
                    shares.into_iter().flatten().reduce(f64::max)
                }
            }
            Node::Leaf(l)
                if l.metadata_decides() && l.variant.is_none() && l.of_struct.is_none() =>
            {
                leaf_share(l)
            }
            Node::Leaf(_) | Node::Custom(_) => None,
            Node::Const(b) => Some(if *b { 1.0 } else { 0.0 }),
        }
    }

    /// True when `leaf_prunes` shows that no row can satisfy the predicate.
    pub(crate) fn prunes(
        &self,
        leaf_prunes: &mut impl FnMut(&Leaf) -> Result<bool>,
    ) -> Result<bool> {
        Ok(match self {
            Node::And(c) => {
                for n in c {
                    if n.prunes(leaf_prunes)? {
                        return Ok(true);
                    }
                }
                false
            }
            Node::Or(c) => {
                for n in c {
                    if !n.prunes(leaf_prunes)? {
                        return Ok(false);
                    }
                }
                true
            }
            Node::Leaf(l) => l.metadata_decides() && leaf_prunes(l)?,
            Node::Const(b) => !b,
            // Metadata says nothing of what a caller's function keeps.
            Node::Custom(_) => false,
        })
    }

    /// The rows of `all` that may satisfy the predicate, given the rows each leaf may hold
    /// in (a subset of `all` or `None` for "all of them").
    pub(crate) fn select(
        &self,
        all: &RowSelection,
        leaf_select: &mut impl FnMut(&Leaf) -> Result<Option<RowSelection>>,
    ) -> Result<RowSelection> {
        Ok(match self {
            Node::And(c) => {
                let mut out = all.clone();
                for n in c {
                    out = out.intersection(&n.select(all, leaf_select)?);
                    if out.is_empty() {
                        break;
                    }
                }
                out
            }
            Node::Or(c) => {
                let mut out = RowSelection::none();
                for n in c {
                    out = out.union(&n.select(all, leaf_select)?);
                }
                out
            }
            Node::Leaf(l) if !l.metadata_decides() => all.clone(),
            Node::Leaf(l) => match leaf_select(l)? {
                Some(s) => s.intersection(all),
                None => all.clone(),
            },
            Node::Const(true) | Node::Custom(_) => all.clone(),
            Node::Const(false) => RowSelection::none(),
        })
    }
}

/// The first leaf under the struct at dotted path `path` and the length of that path, when
/// `path` names a group that is not under a list or map.
fn struct_leaf(schema: &SchemaDescriptor, path: &str) -> Option<(usize, usize)> {
    if schema.find(path).is_some() {
        return None;
    }
    let names: Vec<&str> = path.split('.').collect();
    let i = (0..schema.num_columns()).find(|&i| {
        let p = &schema.leaf(i).path;
        p.len() > names.len() && p.iter().zip(&names).all(|(a, b)| a == b)
    })?;
    (schema.leaf(i).max_rep_level == 0).then_some((i, names.len()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::SchemaElement;
    use crate::metadata::{FieldRepetitionType, LogicalType, TimeUnit, Type};

    fn schema() -> SchemaDescriptor {
        let leaf = |name: &str, t| SchemaElement {
            name: name.into(),
            type_: Some(t),
            repetition_type: Some(FieldRepetitionType::OPTIONAL),
            ..Default::default()
        };
        SchemaDescriptor::new(&[
            SchemaElement {
                name: "schema".into(),
                num_children: Some(2),
                ..Default::default()
            },
            leaf("i", Type::INT32),
            leaf("f", Type::DOUBLE),
        ])
        .unwrap()
    }

    #[test]
    fn not_is_pushed_down() {
        let s = schema();
        let bind = |text: &str| Node::bind(&Expr::parse(text).unwrap(), &s).unwrap();
        let cmp = |column, op, value, or_nan| {
            Node::Leaf(Leaf {
                column,
                domain: if column == 0 {
                    Domain::I32
                } else {
                    Domain::F64
                },
                test: Test::Cmp { op, value, or_nan },
                of_struct: None,
                variant: None,
            })
        };
        assert_eq!(
            bind("not (i < 3 or f >= 1)"),
            Node::And(vec![
                cmp(0, CmpOp::Ge, Scalar::I32(3), false),
                cmp(1, CmpOp::Lt, Scalar::F64(1.0), true),
            ])
        );
        assert_eq!(
            bind("not not f = 2"),
            cmp(1, CmpOp::Eq, Scalar::F64(2.0), false)
        );
        assert_eq!(
            bind("not f != 2"),
            cmp(1, CmpOp::Eq, Scalar::F64(2.0), false)
        );
        assert!(matches!(
            bind("not i in (1, 2, 1)"),
            Node::Leaf(Leaf { test: Test::NotIn(v), .. }) if v.len() == 2
        ));
        assert_eq!(bind("i is null and not (i is null)"), {
            let l = |test| {
                Node::Leaf(Leaf {
                    column: 0,
                    domain: Domain::I32,
                    test,
                    of_struct: None,
                    variant: None,
                })
            };
            Node::And(vec![l(Test::IsNull), l(Test::IsNotNull)])
        });
    }

    #[test]
    fn nan_literals_fold() {
        let s = schema();
        let bind = |e: Expr| Node::bind(&e, &s).unwrap();
        assert_eq!(bind(col("f").lt(f64::NAN)), Node::Const(false));
        // NOT (f = NaN OR i = 1) = f IS NOT NULL AND i != 1.
        assert_eq!(
            bind(col("f").eq(f64::NAN).or(col("i").eq(1)).not()),
            Node::And(vec![
                Node::Leaf(Leaf {
                    column: 1,
                    domain: Domain::F64,
                    test: Test::IsNotNull,
                    of_struct: None,
                    variant: None,
                }),
                Node::Leaf(Leaf {
                    column: 0,
                    domain: Domain::I32,
                    test: Test::Cmp {
                        op: CmpOp::Ne,
                        value: Scalar::I32(1),
                        or_nan: false,
                    },
                    of_struct: None,
                    variant: None,
                }),
            ])
        );
        assert_eq!(
            bind(col("f").eq(f64::NAN).and(col("i").eq(1))),
            Node::Const(false)
        );
        assert!(matches!(
            bind(col("f").lt(f64::NAN).not()),
            Node::Leaf(Leaf {
                test: Test::IsNotNull,
                ..
            })
        ));
    }

    #[test]
    fn nulls_of_incomparable_columns() {
        let s = SchemaDescriptor::new(&[
            SchemaElement {
                name: "schema".into(),
                num_children: Some(1),
                ..Default::default()
            },
            SchemaElement {
                name: "t".into(),
                type_: Some(Type::INT96),
                repetition_type: Some(FieldRepetitionType::OPTIONAL),
                ..Default::default()
            },
        ])
        .unwrap();
        assert!(Node::bind(&col("t").is_not_null(), &s).is_ok());
        let e = Node::bind(&col("t").eq(1), &s).unwrap_err().to_string();
        assert!(e.contains("INT96"), "{e}");
    }

    #[test]
    fn structs_dates_and_timestamps_bind() {
        let leaf = |name: &str, t: Type, logical| SchemaElement {
            name: name.into(),
            type_: Some(t),
            repetition_type: Some(FieldRepetitionType::OPTIONAL),
            logical_type: logical,
            ..Default::default()
        };
        let s = SchemaDescriptor::new(&[
            SchemaElement {
                name: "schema".into(),
                num_children: Some(3),
                ..Default::default()
            },
            leaf("d", Type::INT32, Some(LogicalType::Date)),
            leaf(
                "ts",
                Type::INT64,
                Some(LogicalType::Timestamp {
                    is_adjusted_to_utc: true,
                    unit: TimeUnit::Millis,
                }),
            ),
            SchemaElement {
                name: "s".into(),
                repetition_type: Some(FieldRepetitionType::OPTIONAL),
                num_children: Some(1),
                ..Default::default()
            },
            leaf("x", Type::INT64, None),
        ])
        .unwrap();
        let bind = |text: &str| Node::bind(&Expr::parse(text).unwrap(), &s);
        let value = |text: &str| match bind(text).unwrap() {
            Node::Leaf(Leaf {
                test: Test::Cmp { value, .. },
                ..
            }) => value,
            n => panic!("{n:?}"),
        };
        assert_eq!(value("d = '1970-01-02'"), Scalar::I32(1));
        assert_eq!(value("d = 1"), Scalar::I32(1));
        assert_eq!(value("ts > '1970-01-01T00:00:01.5Z'"), Scalar::I64(1500));
        assert_eq!(
            bind("not s is null").unwrap(),
            Node::Leaf(Leaf {
                column: 2,
                domain: Domain::Bytes,
                test: Test::IsNotNull,
                of_struct: Some(1),
                variant: None,
            })
        );
        assert_eq!(bind("s.x is null").unwrap().inputs(), [(2, None)]);
        let e = bind("ts > '1970-01-01T00:00:00.0001Z'")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("column ts") && e.contains("TIMESTAMP(Millis, UTC)"),
            "{e}"
        );
    }

    #[test]
    fn bad_columns_and_literals_name_the_column() {
        let s = schema();
        let e = Node::bind(&col("nope").eq(1), &s).unwrap_err().to_string();
        assert!(e.contains("nope"), "{e}");
        let e = Node::bind(&col("i").eq("text"), &s)
            .unwrap_err()
            .to_string();
        assert!(e.contains("column i"), "{e}");
    }
}
