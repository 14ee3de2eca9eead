//! The expression type and its builder.

use std::fmt;

use super::custom::RowPredicate;
use super::literal::Literal;
use crate::geospatial::GeoBox;

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// The operator's text in the expression grammar.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A predicate over the columns of a file, named by dotted path.
///
/// Comparisons follow SQL: a null value makes a comparison unknown, `NOT` of unknown is
/// unknown, and a row is kept only when the whole expression is true. Floats compare as IEEE
/// 754 does: `NaN` equals nothing (so `x != 1.0` holds for a `NaN`) and `-0.0 = 0.0`.
///
/// ```
/// use parq::predicate::{col, Expr};
///
/// let built = col("a").eq(5).and(col("b.c").is_null().not());
/// let parsed = Expr::parse("a = 5 and not b.c is null").unwrap();
/// assert_eq!(built, parsed);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `column op value`.
    Cmp {
        /// Dotted column path.
        column: String,
        /// The operator.
        op: CmpOp,
        /// The literal.
        value: Literal,
    },
    /// `column [not] in (v1, v2, ...)`.
    In {
        /// Dotted column path.
        column: String,
        /// The literals.
        values: Vec<Literal>,
        /// `not in`.
        negated: bool,
    },
    /// `column is [not] null`.
    IsNull {
        /// Dotted column path.
        column: String,
        /// `is not null`.
        negated: bool,
    },
    /// `column intersects box(xmin, ymin, xmax, ymax)` on a GEOMETRY or GEOGRAPHY column:
    /// see [`crate::predicate`] for what it means and how it prunes.
    Intersects {
        /// Dotted column path.
        column: String,
        /// The query box (`xmin > xmax` wraps around the antimeridian).
        bbox: GeoBox,
    },
    /// Both.
    And(Box<Expr>, Box<Expr>),
    /// Either.
    Or(Box<Expr>, Box<Expr>),
    /// The negation.
    Not(Box<Expr>),
    /// A caller's own predicate over decoded columns (see [`RowPredicate`]). Displayed as
    /// `name(column, ...)`, which [`Expr::parse`] does not read back.
    Custom(RowPredicate),
}

/// A column reference: the start of a builder expression, see [`col`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnRef(String);

/// Refer to the column at dotted path `path`.
pub fn col(path: impl Into<String>) -> ColumnRef {
    ColumnRef(path.into())
}

impl ColumnRef {
    fn cmp(self, op: CmpOp, value: impl Into<Literal>) -> Expr {
        Expr::Cmp {
            column: self.0,
            op,
            value: value.into(),
        }
    }

    /// `column = value`.
    pub fn eq(self, value: impl Into<Literal>) -> Expr {
        self.cmp(CmpOp::Eq, value)
    }

    /// `column != value`.
    pub fn ne(self, value: impl Into<Literal>) -> Expr {
        self.cmp(CmpOp::Ne, value)
    }

    /// `column < value`.
    pub fn lt(self, value: impl Into<Literal>) -> Expr {
        self.cmp(CmpOp::Lt, value)
    }

    /// `column <= value`.
    pub fn le(self, value: impl Into<Literal>) -> Expr {
        self.cmp(CmpOp::Le, value)
    }

    /// `column > value`.
    pub fn gt(self, value: impl Into<Literal>) -> Expr {
        self.cmp(CmpOp::Gt, value)
    }

    /// `column >= value`.
    pub fn ge(self, value: impl Into<Literal>) -> Expr {
        self.cmp(CmpOp::Ge, value)
    }

    /// `column in (values...)`.
    pub fn is_in<L: Into<Literal>>(self, values: impl IntoIterator<Item = L>) -> Expr {
        Expr::In {
            column: self.0,
            values: values.into_iter().map(Into::into).collect(),
            negated: false,
        }
    }

    /// `column not in (values...)`.
    pub fn not_in<L: Into<Literal>>(self, values: impl IntoIterator<Item = L>) -> Expr {
        Expr::In {
            column: self.0,
            values: values.into_iter().map(Into::into).collect(),
            negated: true,
        }
    }

    /// `column intersects box(xmin, ymin, xmax, ymax)`.
    pub fn intersects_box(self, xmin: f64, ymin: f64, xmax: f64, ymax: f64) -> Expr {
        Expr::Intersects {
            column: self.0,
            bbox: GeoBox {
                xmin,
                ymin,
                xmax,
                ymax,
            },
        }
    }

    /// `column is null`.
    pub fn is_null(self) -> Expr {
        Expr::IsNull {
            column: self.0,
            negated: false,
        }
    }

    /// `column is not null`.
    pub fn is_not_null(self) -> Expr {
        Expr::IsNull {
            column: self.0,
            negated: true,
        }
    }
}

impl Expr {
    /// `self and other`.
    pub fn and(self, other: Expr) -> Expr {
        Expr::And(Box::new(self), Box::new(other))
    }

    /// `self or other`.
    pub fn or(self, other: Expr) -> Expr {
        Expr::Or(Box::new(self), Box::new(other))
    }

    /// `not self`.
    #[allow(clippy::should_implement_trait)]
    pub fn not(self) -> Expr {
        Expr::Not(Box::new(self))
    }

    /// The column paths the expression names, each once, in order of first use.
    pub fn columns(&self) -> Vec<&str> {
        let mut out: Vec<&str> = Vec::new();
        self.visit_columns(&mut |c| {
            if !out.contains(&c) {
                out.push(c);
            }
        });
        out
    }

    fn visit_columns<'a>(&'a self, f: &mut impl FnMut(&'a str)) {
        match self {
            Expr::Cmp { column, .. }
            | Expr::In { column, .. }
            | Expr::IsNull { column, .. }
            | Expr::Intersects { column, .. } => f(column),
            Expr::And(a, b) | Expr::Or(a, b) => {
                a.visit_columns(f);
                b.visit_columns(f);
            }
            Expr::Not(e) => e.visit_columns(f),
            Expr::Custom(p) => p.columns().iter().for_each(|c| f(c)),
        }
    }
}

/// The expression in the grammar [`Expr::parse`] reads (fully parenthesised), caller's
/// predicates aside.
impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Cmp { column, op, value } => write!(f, "{column} {} {value}", op.symbol()),
            Expr::In {
                column,
                values,
                negated,
            } => {
                write!(f, "{column} {}in (", if *negated { "not " } else { "" })?;
                for (i, v) in values.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write!(f, "{v}")?;
                }
                f.write_str(")")
            }
            Expr::IsNull { column, negated } => {
                write!(f, "{column} is {}null", if *negated { "not " } else { "" })
            }
            Expr::Intersects { column, bbox: b } => write!(
                f,
                "{column} intersects box({:?}, {:?}, {:?}, {:?})",
                b.xmin, b.ymin, b.xmax, b.ymax
            ),
            Expr::And(a, b) => write!(f, "({a} and {b})"),
            Expr::Or(a, b) => write!(f, "({a} or {b})"),
            Expr::Not(e) => write!(f, "not ({e})"),
            Expr::Custom(p) => write!(f, "{p}"),
        }
    }
}
