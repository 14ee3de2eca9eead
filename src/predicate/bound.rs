//! Predicates bound to a schema, evaluated on columns a caller decoded.

use arrow_buffer::BooleanBuffer;

use super::{eval, Expr, Input, Node};
use crate::column::Column;
use crate::schema::SchemaDescriptor;
use crate::{Error, Result};

/// A predicate bound to a file's schema, to evaluate exactly on batches of its flat leaf
/// columns that a caller decoded itself (a scan that filters its batches before handing
/// them on). [`ParquetReader::filter_rows`](crate::read::ParquetReader::filter_rows) and
/// its siblings do the decoding themselves.
///
/// Semantics are those of the reader's filters: a null never satisfies a comparison, `IN`
/// or `NOT IN`, and `NOT` is pushed down to the leaves.
#[derive(Debug, Clone)]
pub struct BoundPredicate {
    node: Node,
    leaves: Vec<usize>,
}

impl BoundPredicate {
    /// Bind `expr` to `schema`. An error when a column is missing or a literal does not fit
    /// its column, and when the predicate reads anything but flat leaves (a leaf under a
    /// struct or a list, a variant path).
    pub fn bind(expr: &Expr, schema: &SchemaDescriptor) -> Result<Self> {
        let node = Node::bind(expr, schema)?;
        let inputs = node.inputs();
        let flat =
            |&(leaf, of_struct): &Input| of_struct.is_none() && schema.leaf(leaf).path.len() == 1;
        if !inputs.iter().all(flat) || !node.variant_paths().is_empty() {
            return Err(Error::InvalidArgument(
                "the predicate reads a nested column or a variant path".into(),
            ));
        }
        Ok(BoundPredicate::new(node))
    }

    /// `node` with the leaves it reads.
    fn new(node: Node) -> Self {
        let mut leaves: Vec<usize> = node.inputs().iter().map(|&(leaf, _)| leaf).collect();
        leaves.sort_unstable();
        leaves.dedup();
        BoundPredicate { node, leaves }
    }

    /// The part of it that evaluates in vectorised loops, if any: the whole predicate when
    /// every test in it is a comparison of an integer, floating-point or byte-array column
    /// with a literal, an `IN` list of integers or byte arrays, or `IS [NOT] NULL`; else, of
    /// a conjunction at the top, the conjuncts that are. What it keeps is implied by the
    /// predicate (every row the predicate keeps, it keeps), so a scan that filters with it
    /// and then with the original predicate is exact. The tests left out (decimals, `IN`
    /// lists of floats, geometry) are evaluated a value at a time.
    pub fn vectorised(&self) -> Option<BoundPredicate> {
        let node = match &self.node {
            n if vectorised(n) => n.clone(),
            Node::And(c) => {
                let kept: Vec<Node> = c.iter().filter(|n| vectorised(n)).cloned().collect();
                if kept.is_empty() {
                    return None;
                }
                Node::And(kept)
            }
            _ => return None,
        };
        Some(BoundPredicate::new(node))
    }

    /// The leaf columns it reads (indices into the schema's leaves), ascending.
    pub fn leaves(&self) -> &[usize] {
        &self.leaves
    }

    /// The rows of a batch of `len` rows that satisfy it; `column(leaf)` is the batch's
    /// column of each of [`Self::leaves`] (`len` slots each).
    pub fn evaluate<'a>(
        &self,
        len: usize,
        mut column: impl FnMut(usize) -> Option<&'a Column>,
    ) -> Result<BooleanBuffer> {
        let mut columns = std::collections::HashMap::with_capacity(self.leaves.len());
        for &leaf in &self.leaves {
            let c = column(leaf)
                .ok_or_else(|| Error::InvalidArgument(format!("no column for leaf {leaf}")))?;
            columns.insert((leaf, None), c.clone());
        }
        eval::eval(&self.node, &columns, &eval::VariantValues::new(), len)
    }
}

/// Whether every test under `node` has a vectorised evaluation (see
/// [`BoundPredicate::vectorised`]).
fn vectorised(node: &Node) -> bool {
    match node {
        Node::And(c) | Node::Or(c) => c.iter().all(vectorised),
        Node::Const(_) => true,
        Node::Leaf(l) => eval::vectorised_leaf(l),
        Node::Custom(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::{FieldRepetitionType, SchemaElement, Type};

    /// A bound predicate evaluates a caller's columns as the reader's filters do: nulls
    /// satisfy no comparison, `NOT` is pushed to the leaves.
    #[test]
    fn bound_predicates_evaluate_callers_columns() {
        use crate::column::Values;
        let leaf = |name: &str, t| SchemaElement {
            name: name.into(),
            type_: Some(t),
            repetition_type: Some(FieldRepetitionType::OPTIONAL),
            ..Default::default()
        };
        let root = SchemaElement {
            name: "schema".into(),
            num_children: Some(2),
            ..Default::default()
        };
        let s = SchemaDescriptor::new(&[root, leaf("i", Type::INT32), leaf("f", Type::DOUBLE)])
            .unwrap();
        let bound =
            BoundPredicate::bind(&Expr::parse("not (i < 3 or f >= 1)").unwrap(), &s).unwrap();
        assert_eq!(bound.leaves(), &[0, 1]);
        let i = Column {
            len: 4,
            validity: Some(arrow_buffer::NullBuffer::from(vec![
                true, true, false, true,
            ])),
            values: Values::Int32(vec![5, 1, 7, 4].into()),
        };
        let f = Column {
            len: 4,
            validity: None,
            values: Values::Double(vec![0.5, 0.5, 0.5, 2.0].into()),
        };
        let mask = bound
            .evaluate(4, |leaf| [&i, &f].get(leaf).copied())
            .unwrap();
        assert_eq!(mask.iter().collect::<Vec<_>>(), [true, false, false, false]);
        assert!(
            bound.evaluate(4, |_| None).is_err(),
            "a missing column is an error"
        );

        // Of a conjunction, the vectorised conjuncts; an `IN` list of floats alone is not
        // (one of integers is).
        let mixed = Expr::parse("f in (0.5) and i < 5").unwrap();
        let part = BoundPredicate::bind(&mixed, &s)
            .unwrap()
            .vectorised()
            .unwrap();
        assert_eq!(part.leaves(), &[0]);
        let mask = part
            .evaluate(4, |leaf| [&i, &f].get(leaf).copied())
            .unwrap();
        assert_eq!(mask.iter().collect::<Vec<_>>(), [false, true, false, true]);
        let only_in = Expr::parse("f in (0.5, 2)").unwrap();
        assert!(BoundPredicate::bind(&only_in, &s)
            .unwrap()
            .vectorised()
            .is_none());
        let integers_in = Expr::parse("i in (1, 2)").unwrap();
        assert!(BoundPredicate::bind(&integers_in, &s)
            .unwrap()
            .vectorised()
            .is_some());
        assert!(bound.vectorised().is_some(), "comparisons of numbers are");

        // Keys into a dictionary (`ReadOptions::dictionary_keys`) evaluate as their values.
        let keyed = |c: &Column, keys: Vec<i32>| Column {
            len: keys.len(),
            validity: c.validity.clone(),
            values: Values::Dictionary {
                keys: keys.into(),
                dictionary: std::sync::Arc::new(Column {
                    validity: None,
                    ..c.clone()
                }),
            },
        };
        let (ki, kf) = (keyed(&i, vec![0, 1, 0, 3]), keyed(&f, vec![0, 1, 2, 3]));
        let mask = bound
            .evaluate(4, |leaf| [&ki, &kf].get(leaf).copied())
            .unwrap();
        assert_eq!(mask.iter().collect::<Vec<_>>(), [true, false, false, false]);
        let mask = part
            .evaluate(4, |leaf| [&ki, &kf].get(leaf).copied())
            .unwrap();
        assert_eq!(mask.iter().collect::<Vec<_>>(), [false, true, false, true]);
    }
}
