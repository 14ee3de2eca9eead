//! A caller's own row filter ([`RowPredicate`]), for what an [`Expr`](super::Expr) cannot
//! say: casts, `LIKE`, functions of several columns, an engine's own expressions.

use std::fmt;
use std::sync::Arc;

use arrow_buffer::BooleanBuffer;

use crate::column::Column;
use crate::schema::ColumnDescriptor;
use crate::{Error, Result};

/// What a [`RowPredicate`] runs: the columns it reads, in the order it named them (each
/// described by its leaf), to one flag per row.
type Evaluate = dyn Fn(&[Column], &[ColumnDescriptor]) -> Result<BooleanBuffer> + Send + Sync;

/// A predicate the caller evaluates itself over decoded columns, as arrow-rs's
/// `ArrowPredicate` is: part of an [`Expr`](super::Expr) ([`Expr::Custom`](super::Expr),
/// or [`RowPredicate::into_expr`]), so that it is ANDed and ORed with parq's own tests and
/// runs as a stage of the row filter like them.
///
/// The filter decodes the named columns (flat leaves, by dotted path; dictionary-encoded
/// byte arrays come with their values looked up) for the rows the stages before it kept,
/// calls the function on batches of them, and keeps the rows it returns `true` for. Stages
/// run in the order of what they measure, so a selective cheap test runs first whether it is
/// the caller's or parq's. Metadata cannot prune for it: it only filters decoded rows.
///
/// The function may change what it keeps during a read (a join's bounds tightening, a
/// top-k threshold): each batch is evaluated by what it does when that batch is decoded.
/// It must only tighten, since rows already returned are not taken back.
///
/// A row predicate cannot be negated inside an expression (`NOT` would keep the rows it
/// leaves unknown); negate inside the function instead.
///
/// ```
/// # use parq::column::{Column, Values};
/// # use parq::write::{Field, ParquetWriter, WriterOptions};
/// # let mut file = Vec::new();
/// # let mut w = ParquetWriter::new(&mut file, vec![Field::int64("a"), Field::int64("b")],
/// #     WriterOptions::default())?;
/// # let a = Column { len: 100, validity: None, values: Values::Int64((0..100i64).collect::<Vec<_>>().into()) };
/// # let b = Column { len: 100, validity: None, values: Values::Int64((0..100i64).rev().collect::<Vec<_>>().into()) };
/// # w.write_batch(&[a, b])?;
/// # w.finish()?;
/// use arrow_buffer::BooleanBuffer;
/// use parq::predicate::{col, RowPredicate};
/// use parq::read::ParquetReader;
///
/// // a < b, which no single-column test can say.
/// let a_below_b = RowPredicate::new("a_below_b", ["a", "b"], |columns, _leaves| {
///     let (Values::Int64(a), Values::Int64(b)) = (&columns[0].values, &columns[1].values) else {
///         return Err(parq::Error::Unsupported("a and b as int64".into()));
///     };
///     Ok(BooleanBuffer::collect_bool(a.len(), |i| a[i] < b[i]))
/// });
/// let reader = ParquetReader::new(bytes::Bytes::from(file))?;
/// let rows = reader
///     .read_builder()
///     .with_projection(["a"])
///     .with_filter(a_below_b.into_expr().and(col("a").ge(10)))
///     .build()?
///     .map(|b| b.map(|b| b.num_rows))
///     .sum::<parq::Result<usize>>()?;
/// assert_eq!(rows, 40); // 10..50
/// # Ok::<(), parq::Error>(())
/// ```
#[derive(Clone)]
pub struct RowPredicate {
    name: String,
    columns: Vec<String>,
    evaluate: Arc<Evaluate>,
}

impl RowPredicate {
    /// A predicate named `name` (for [`Display`](fmt::Display) and errors) over the leaf
    /// columns at `columns` (dotted paths). `evaluate` gets those columns for one batch of
    /// rows, in that order, with their leaves' descriptions, and returns one flag per row:
    /// `true` keeps the row. A null row is for the function to decide (SQL keeps it out).
    pub fn new<C: Into<String>>(
        name: impl Into<String>,
        columns: impl IntoIterator<Item = C>,
        evaluate: impl Fn(&[Column], &[ColumnDescriptor]) -> Result<BooleanBuffer>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        RowPredicate {
            name: name.into(),
            columns: columns.into_iter().map(Into::into).collect(),
            evaluate: Arc::new(evaluate),
        }
    }

    /// A predicate over the columns as one Arrow `RecordBatch` (named by their paths, typed
    /// as [`to_arrow_schema`](crate::arrow::to_arrow_schema) types their leaves). A null in
    /// the returned array drops the row, as SQL's `WHERE` does.
    #[cfg(feature = "arrow")]
    pub fn arrow<C: Into<String>>(
        name: impl Into<String>,
        columns: impl IntoIterator<Item = C>,
        evaluate: impl Fn(
                &arrow_array::RecordBatch,
            )
                -> std::result::Result<arrow_array::BooleanArray, arrow_schema::ArrowError>
            + Send
            + Sync
            + 'static,
    ) -> Self {
        let name = name.into();
        let what = name.clone();
        RowPredicate::new(name, columns, move |columns, leaves| {
            let batch = crate::arrow::columns_to_record_batch(columns, leaves)?;
            let flags = evaluate(&batch)
                .map_err(|e| Error::InvalidArgument(format!("row predicate {what} failed: {e}")))?;
            Ok(match arrow_array::Array::nulls(&flags) {
                Some(nulls) => flags.values() & nulls.inner(),
                None => flags.values().clone(),
            })
        })
    }

    /// The predicate's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The dotted paths of the columns it reads, in the order it gets them.
    pub fn columns(&self) -> &[String] {
        &self.columns
    }

    /// This predicate as an expression, to combine with others.
    pub fn into_expr(self) -> super::Expr {
        super::Expr::Custom(self)
    }

    /// Run it over one batch of `len` rows, checking what it returns.
    pub(crate) fn evaluate(
        &self,
        columns: &[Column],
        leaves: &[ColumnDescriptor],
        len: usize,
    ) -> Result<BooleanBuffer> {
        let flags = (self.evaluate)(columns, leaves)?;
        if flags.len() != len {
            return Err(Error::InvalidArgument(format!(
                "row predicate {} returned {} flags for {len} rows",
                self.name,
                flags.len()
            )));
        }
        Ok(flags)
    }
}

impl fmt::Debug for RowPredicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RowPredicate")
            .field("name", &self.name)
            .field("columns", &self.columns)
            .finish_non_exhaustive()
    }
}

/// Two row predicates are equal when they are clones of one (the same function).
impl PartialEq for RowPredicate {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && self.columns == other.columns
            && Arc::ptr_eq(&self.evaluate, &other.evaluate)
    }
}

/// `name(column, ...)`.
impl fmt::Display for RowPredicate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}({})", self.name, self.columns.join(", "))
    }
}
