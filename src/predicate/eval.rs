//! Exact evaluation on decoded columns, and the kernels that keep only the matching rows.

use std::cmp::Ordering;
use std::collections::HashMap;

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use parq_codecs::probe;

use super::literal::{be_to_i128, f16_to_f64, Domain, Scalar};
use super::{CmpOp, Input, Leaf, Node, Test};
use crate::array::{Array, ListArray, ListOffsets, StructArray};
use crate::column::{Column, Values};
use crate::{Error, Result};

/// One non-null value of a column, borrowed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Val<'a> {
    Bool(bool),
    I32(i32),
    U32(u32),
    I64(i64),
    U64(u64),
    F64(f64),
    Bytes(&'a [u8]),
    Dec(i128),
}

impl Val<'_> {
    fn compare(self, s: &Scalar) -> Option<Ordering> {
        match (self, s) {
            (Val::Bool(a), Scalar::Bool(b)) => Some(a.cmp(b)),
            (Val::I32(a), Scalar::I32(b)) => Some(a.cmp(b)),
            (Val::U32(a), Scalar::U32(b)) => Some(a.cmp(b)),
            (Val::I64(a), Scalar::I64(b)) => Some(a.cmp(b)),
            (Val::U64(a), Scalar::U64(b)) => Some(a.cmp(b)),
            (Val::F64(a), Scalar::F64(b)) => a.partial_cmp(b),
            (Val::Bytes(a), Scalar::Bytes(b)) => Some(a.cmp(&b[..])),
            (Val::Dec(a), Scalar::Dec(b)) => Some(a.cmp(b)),
            _ => None,
        }
    }

    fn is_nan(self) -> bool {
        matches!(self, Val::F64(x) if x.is_nan())
    }
}

/// Whether the non-null value `v` satisfies a value test (`IS [NOT] NULL` are the caller's).
pub(crate) fn value_matches(test: &Test, v: Val<'_>) -> bool {
    let eq = |s: &Scalar| v.compare(s) == Some(Ordering::Equal);
    match test {
        Test::Cmp { op, value, or_nan } => match v.compare(value) {
            Some(o) => op.holds(o),
            // A NaN value: only `!=` and the negated orderings hold.
            None => *op == CmpOp::Ne || (*or_nan && v.is_nan()),
        },
        Test::In(values) => values.iter().any(eq),
        Test::NotIn(values) => !values.iter().any(eq),
        Test::IsNull => false,
        Test::IsNotNull => true,
        Test::Geo(g) => match v {
            Val::Bytes(b) => g.matches(b),
            _ => false,
        },
    }
}

/// The value of slot `i` of `col` in `domain`; `None` for a null or a value the domain cannot
/// read (a decimal of 0 or more than 16 bytes).
pub(crate) fn value_at(col: &Column, domain: Domain, i: usize) -> Option<Val<'_>> {
    if !col.is_valid(i) {
        return None;
    }
    Some(match (&col.values, domain) {
        (Values::Dictionary { keys, dictionary }, _) => {
            return value_at(dictionary, domain, keys[i] as usize)
        }
        (Values::Boolean(b), _) => Val::Bool(b.value(i)),
        (Values::Int32(v), Domain::U32) => Val::U32(v[i] as u32),
        (Values::Int32(v), _) => Val::I32(v[i]),
        (Values::Int64(v), Domain::U64) => Val::U64(v[i] as u64),
        (Values::Int64(v), _) => Val::I64(v[i]),
        (Values::Float(v), _) => Val::F64(v[i] as f64),
        (Values::Double(v), _) => Val::F64(v[i]),
        (_, Domain::F16) => {
            let b = col.bytes(i)?;
            Val::F64(f16_to_f64(u16::from_le_bytes(b.try_into().ok()?)))
        }
        (_, Domain::Decimal) => Val::Dec(be_to_i128(col.bytes(i)?)?),
        _ => Val::Bytes(col.bytes(i)?),
    })
}

/// Rows of `col` that satisfy the leaf's test (nulls never satisfy a value test).
pub(crate) fn eval_leaf(leaf: &Leaf, col: &Column) -> BooleanBuffer {
    let n = col.len;
    match &leaf.test {
        Test::IsNull => match &col.validity {
            Some(v) => !v.inner(),
            None => BooleanBuffer::new_unset(n),
        },
        Test::IsNotNull => match &col.validity {
            Some(v) => v.inner().clone(),
            None => BooleanBuffer::new_set(n),
        },
        test => {
            fast_test(col, test, leaf.domain).unwrap_or_else(|| per_value(col, test, leaf.domain))
        }
    }
}

/// The rows of `col` whose value satisfies `test`, a value at a time.
fn per_value(col: &Column, test: &Test, domain: Domain) -> BooleanBuffer {
    probe::hit("predicate.eval_per_value");
    BooleanBuffer::collect_bool(col.len, |i| {
        value_at(col, domain, i).is_some_and(|v| value_matches(test, v))
    })
}

/// Whether [`eval_leaf`] evaluates `leaf` in a vectorised loop whatever the column's layout:
/// null tests, comparisons of numbers and byte arrays, and `IN` lists of integers and byte
/// arrays ([`fast_test`]); on dictionary keys, the test runs on the dictionary once.
pub(crate) fn vectorised_leaf(leaf: &Leaf) -> bool {
    match &leaf.test {
        Test::IsNull | Test::IsNotNull => true,
        Test::Cmp { .. } => matches!(
            leaf.domain,
            Domain::I32 | Domain::I64 | Domain::F32 | Domain::F64 | Domain::Bytes
        ),
        Test::In(_) | Test::NotIn(_) => {
            matches!(leaf.domain, Domain::I32 | Domain::I64 | Domain::Bytes)
        }
        Test::Geo(_) => false,
    }
}

/// A value test on the common layouts without a per-row enum: comparisons of signed
/// integers, floats and byte arrays (offsets, views, fixed width), `IN` lists of signed
/// integers and byte arrays. Dictionary keys take the test's result on the dictionary.
fn fast_test(col: &Column, test: &Test, domain: Domain) -> Option<BooleanBuffer> {
    let n = col.len;
    if let Values::Dictionary { keys, dictionary } = &col.values {
        let on_dictionary = fast_test(dictionary, test, domain)
            .unwrap_or_else(|| per_value(dictionary, test, domain));
        probe::hit("predicate.eval_dictionary_once");
        // Null slots hold key 0, which an empty dictionary lacks: `masked` clears them.
        let mask = BooleanBuffer::collect_bool(n, |i| {
            let k = keys[i] as usize;
            k < on_dictionary.len() && on_dictionary.value(k)
        });
        return Some(masked(col, mask));
    }
    let mask = match test {
        Test::Cmp { op, value, or_nan } => fast_cmp(col, *op, value, *or_nan, domain)?,
        Test::In(values) => fast_in(col, values, domain)?,
        Test::NotIn(values) => !&fast_in(col, values, domain)?,
        _ => return None,
    };
    probe::hit("predicate.eval_fast_path");
    Some(masked(col, mask))
}

/// `x op value` for every slot (nulls included: the caller masks them).
fn fast_cmp(
    col: &Column,
    op: CmpOp,
    value: &Scalar,
    or_nan: bool,
    domain: Domain,
) -> Option<BooleanBuffer> {
    let n = col.len;
    Some(match (&col.values, value, domain) {
        (Values::Int32(v), Scalar::I32(x), Domain::I32) => compare_words(&v[..n], *x, op),
        (Values::Int64(v), Scalar::I64(x), Domain::I64) => compare_words(&v[..n], *x, op),
        (Values::Double(v), Scalar::F64(x), _) => {
            BooleanBuffer::collect_bool(n, |i| float_holds(op, v[i], *x, or_nan))
        }
        (Values::Float(v), Scalar::F64(x), _) => {
            BooleanBuffer::collect_bool(n, |i| float_holds(op, v[i] as f64, *x, or_nan))
        }
        (values, Scalar::Bytes(x), Domain::Bytes) => {
            let x = &x[..];
            match op {
                // Slices compare their lengths first: most rows are rejected there.
                CmpOp::Eq => with_bytes(values, n, |b| b == x)?,
                CmpOp::Ne => with_bytes(values, n, |b| b != x)?,
                op => with_bytes(values, n, |b| op.holds(b.cmp(x)))?,
            }
        }
        _ => return None,
    })
}

/// Whether each slot's value is one of `values` (nulls included: the caller masks them).
fn fast_in(col: &Column, values: &[Scalar], domain: Domain) -> Option<BooleanBuffer> {
    let n = col.len;
    match (&col.values, domain) {
        (Values::Int32(v), Domain::I32) => {
            let xs = literals(values, |s| match s {
                Scalar::I32(x) => Some(*x),
                _ => None,
            })?;
            Some(pack_words(&v[..n], |a| xs.contains(&a)))
        }
        (Values::Int64(v), Domain::I64) => {
            let xs = literals(values, |s| match s {
                Scalar::I64(x) => Some(*x),
                _ => None,
            })?;
            Some(pack_words(&v[..n], |a| xs.contains(&a)))
        }
        (layout, Domain::Bytes) => {
            let xs = literals(values, |s| match s {
                Scalar::Bytes(x) => Some(&x[..]),
                _ => None,
            })?;
            with_bytes(layout, n, |b| xs.contains(&b))
        }
        _ => None,
    }
}

/// The list's literals as `T`s; `None` if one is of another kind.
fn literals<'a, T>(values: &'a [Scalar], as_t: impl Fn(&'a Scalar) -> Option<T>) -> Option<Vec<T>> {
    values.iter().map(as_t).collect()
}

/// `f` of each of the first `n` byte-array values of a layout that holds them (offsets,
/// views, fixed width), as a mask; `None` for other layouts. A null slot's value is
/// whatever its slot holds (empty, or zero bytes wide).
fn with_bytes(values: &Values, n: usize, f: impl Fn(&[u8]) -> bool) -> Option<BooleanBuffer> {
    Some(match values {
        Values::Binary { offsets, data } => BooleanBuffer::collect_bool(n, |i| {
            f(&data[offsets[i] as usize..offsets[i + 1] as usize])
        }),
        Values::SmallBinary { offsets, data } => BooleanBuffer::collect_bool(n, |i| {
            f(&data[offsets[i] as usize..offsets[i + 1] as usize])
        }),
        Values::FixedLenByteArray { width, data } => {
            BooleanBuffer::collect_bool(n, |i| f(&data[i * width..(i + 1) * width]))
        }
        Values::BinaryView { views, buffers } => {
            // Arrow's view: length (u32 LE), then up to 12 bytes inline, else a 4-byte
            // prefix, the buffer's index and the offset in it.
            let raw = views.inner().as_slice();
            BooleanBuffer::collect_bool(n, |i| {
                let view = &raw[i * 16..i * 16 + 16];
                let word = |at: usize| {
                    u32::from_le_bytes(view[at..at + 4].try_into().expect("4 bytes")) as usize
                };
                let len = word(0);
                if len <= 12 {
                    f(&view[4..4 + len])
                } else {
                    let (buffer, offset) = (word(8), word(12));
                    let bytes = buffers
                        .get(buffer)
                        .and_then(|b| b.get(offset..offset + len))
                        .unwrap_or_default();
                    f(bytes)
                }
            })
        }
        _ => return None,
    })
}

/// `v[i] op x` for every slot: one loop per operator over 64 slots a word, which compiles
/// to vector compares (a `match` on the operator per slot, inside `collect_bool`, did not).
fn compare_words<T: Copy + Ord>(v: &[T], x: T, op: CmpOp) -> BooleanBuffer {
    match op {
        CmpOp::Eq => pack_words(v, |a| a == x),
        CmpOp::Ne => pack_words(v, |a| a != x),
        CmpOp::Lt => pack_words(v, |a| a < x),
        CmpOp::Le => pack_words(v, |a| a <= x),
        CmpOp::Gt => pack_words(v, |a| a > x),
        CmpOp::Ge => pack_words(v, |a| a >= x),
    }
}

/// `f` of every value of `v` as bits, 64 to a word.
#[inline(always)]
fn pack_words<T: Copy>(v: &[T], f: impl Fn(T) -> bool) -> BooleanBuffer {
    let word = |c: &[T]| {
        c.iter()
            .enumerate()
            .fold(0u64, |w, (j, &a)| w | ((f(a) as u64) << j))
    };
    let chunks = v.chunks_exact(64);
    let rest = chunks.remainder();
    let mut words: Vec<u64> = chunks.map(word).collect();
    if !rest.is_empty() {
        words.push(word(rest));
    }
    BooleanBuffer::new(Buffer::from_vec(words), 0, v.len())
}

/// `x op v` on floats, IEEE 754: a `NaN` satisfies only `!=` and the `or_nan` orderings.
#[inline]
fn float_holds(op: CmpOp, x: f64, v: f64, or_nan: bool) -> bool {
    match x.partial_cmp(&v) {
        Some(o) => op.holds(o),
        None => op == CmpOp::Ne || (or_nan && x.is_nan()),
    }
}

/// `mask` with null slots cleared.
fn masked(col: &Column, mask: BooleanBuffer) -> BooleanBuffer {
    match &col.validity {
        Some(v) => &mask & v.inner(),
        None => mask,
    }
}

/// Rows (of `len`) that satisfy the predicate, given each leaf column's decoded values.
/// The values of each variant path a predicate reads (`var.a.b`), for [`eval`].
pub(crate) type VariantValues = HashMap<String, crate::variant::VariantArray>;

pub(crate) fn eval(
    node: &Node,
    columns: &HashMap<Input, Column>,
    variants: &VariantValues,
    len: usize,
) -> Result<BooleanBuffer> {
    Ok(match node {
        Node::Const(b) => {
            if *b {
                BooleanBuffer::new_set(len)
            } else {
                BooleanBuffer::new_unset(len)
            }
        }
        Node::Leaf(l) if l.variant.is_some() => {
            let v = l.variant.as_deref().map(|v| v.dotted()).unwrap_or_default();
            let values = variants
                .get(&v)
                .ok_or_else(|| Error::InvalidArgument(format!("variant path {v} not decoded")))?;
            if values.len() != len {
                return Err(Error::format(format!(
                    "variant path {v} has {} rows where {len} were expected",
                    values.len()
                )));
            }
            super::variant_path::eval(&l.test, values)?
        }
        Node::Leaf(l) => {
            let col = columns.get(&l.input()).ok_or_else(|| {
                Error::InvalidArgument(format!("column {} not decoded", l.column))
            })?;
            if col.len != len {
                return Err(Error::format(format!(
                    "predicate column has {} rows where {len} were expected",
                    col.len
                )));
            }
            eval_leaf(l, col)
        }
        Node::Custom(c) => {
            let mut values = Vec::with_capacity(c.columns.len());
            for &i in &c.columns {
                let col = columns.get(&(i, None)).ok_or_else(|| {
                    Error::InvalidArgument(format!("column {i} of {} not decoded", c.predicate))
                })?;
                // Byte arrays the filter decoded as dictionary keys: the caller gets values.
                values.push(col.materialize());
            }
            c.predicate.evaluate(&values, &c.leaves, len)?
        }
        Node::And(c) => {
            let mut out = BooleanBuffer::new_set(len);
            for n in c {
                out = &out & &eval(n, columns, variants, len)?;
            }
            out
        }
        Node::Or(c) => {
            let mut out = BooleanBuffer::new_unset(len);
            for n in c {
                out = &out | &eval(n, columns, variants, len)?;
            }
            out
        }
    })
}

/// Slots `indices` of `col`, in that order.
///
/// # Panics
/// If an index is out of bounds.
pub fn take_column(col: &Column, indices: &[usize]) -> Column {
    let n = indices.len();
    let validity = col.validity.as_ref().and_then(|v| {
        let b = BooleanBuffer::collect_bool(n, |k| v.is_valid(indices[k]));
        let nb = NullBuffer::new(b);
        (nb.null_count() > 0).then_some(nb)
    });
    fn gather<T: arrow_buffer::ArrowNativeType>(
        v: &ScalarBuffer<T>,
        idx: &[usize],
    ) -> ScalarBuffer<T> {
        idx.iter().map(|&i| v[i]).collect::<Vec<T>>().into()
    }
    fn fixed(data: &Buffer, width: usize, idx: &[usize]) -> Buffer {
        let mut out = Vec::with_capacity(idx.len() * width);
        for &i in idx {
            out.extend_from_slice(&data[i * width..(i + 1) * width]);
        }
        Buffer::from_vec(out)
    }
    let values = match &col.values {
        Values::Boolean(b) => {
            Values::Boolean(BooleanBuffer::collect_bool(n, |k| b.value(indices[k])))
        }
        Values::Int32(v) => Values::Int32(gather(v, indices)),
        Values::Int64(v) => Values::Int64(gather(v, indices)),
        Values::Float(v) => Values::Float(gather(v, indices)),
        Values::Double(v) => Values::Double(gather(v, indices)),
        Values::Int96(d) => Values::Int96(fixed(d, 12, indices)),
        Values::FixedLenByteArray { width, data } => Values::FixedLenByteArray {
            width: *width,
            data: fixed(data, *width, indices),
        },
        Values::BinaryView { views, buffers } => Values::BinaryView {
            views: gather(views, indices),
            buffers: buffers.clone(),
        },
        Values::Dictionary { keys, dictionary } => Values::Dictionary {
            keys: gather(keys, indices),
            dictionary: dictionary.clone(),
        },
        // Repeated indices may take more bytes than i32 offsets hold: i64 offsets out.
        Values::SmallBinary { .. } => return take_column(&col.to_offsets(), indices),
        Values::Binary { offsets, data } => {
            let mut out_offsets = Vec::with_capacity(n + 1);
            out_offsets.push(0i64);
            let total: usize = indices
                .iter()
                .map(|&i| (offsets[i + 1] - offsets[i]) as usize)
                .sum();
            let mut out = Vec::with_capacity(total);
            for &i in indices {
                out.extend_from_slice(&data[offsets[i] as usize..offsets[i + 1] as usize]);
                out_offsets.push(out.len() as i64);
            }
            Values::Binary {
                offsets: OffsetBuffer::new(out_offsets.into()),
                data: Buffer::from_vec(out),
            }
        }
    };
    Column {
        len: n,
        validity,
        values,
    }
}

/// Slots `indices` of `array`, in that order (lists and maps keep their elements).
///
/// # Panics
/// If an index is out of bounds.
pub fn take_array(array: &Array, indices: &[usize]) -> Array {
    let validity = |v: Option<&NullBuffer>| {
        v.and_then(|v| {
            let nb = NullBuffer::new(BooleanBuffer::collect_bool(indices.len(), |k| {
                v.is_valid(indices[k])
            }));
            (nb.null_count() > 0).then_some(nb)
        })
    };
    match array {
        Array::Primitive(c) => Array::Primitive(take_column(c, indices)),
        Array::Struct(s) => Array::Struct(StructArray {
            len: indices.len(),
            validity: validity(s.validity.as_ref()),
            children: s.children.iter().map(|c| take_array(c, indices)).collect(),
        }),
        Array::List(l) | Array::Map(l) => {
            let mut child = Vec::new();
            let mut ends = Vec::with_capacity(indices.len() + 1);
            ends.push(0usize);
            for &i in indices {
                child.extend(l.offsets.range(i));
                ends.push(child.len());
            }
            let offsets = if child.len() <= i32::MAX as usize {
                ListOffsets::Small(OffsetBuffer::new(
                    ends.iter().map(|&e| e as i32).collect::<Vec<_>>().into(),
                ))
            } else {
                ListOffsets::Large(OffsetBuffer::new(
                    ends.iter().map(|&e| e as i64).collect::<Vec<_>>().into(),
                ))
            };
            let list = ListArray {
                validity: validity(l.validity.as_ref()),
                offsets,
                values: Box::new(take_array(&l.values, &child)),
            };
            if matches!(array, Array::Map(_)) {
                Array::Map(list)
            } else {
                Array::List(list)
            }
        }
    }
}

/// The rows of `array` where `mask` is set.
///
/// # Panics
/// If `mask` is shorter than the array.
pub fn filter_array(array: &Array, mask: &BooleanBuffer) -> Array {
    // Counted first: a mask that keeps every row (a filter most rows pass, batch by batch)
    // must not build an index per row.
    let kept = mask.count_set_bits();
    if mask.len() == array.len() && kept == array.len() {
        return array.clone();
    }
    Kept::of_counted(mask, kept).apply(array)
}

/// The rows of `col` where `mask` is set.
pub(crate) fn filter_column(col: &Column, mask: &BooleanBuffer) -> Column {
    match filter_array(&Array::Primitive(col.clone()), mask) {
        Array::Primitive(c) => c,
        _ => unreachable!("a primitive array filters to a primitive array"),
    }
}

/// The average run of kept rows from which they are copied run by run rather than gathered
/// one index at a time.
pub const MIN_COPIED_RUN: usize = 8;

/// Which rows of arrays as long as a mask to keep, in the cheaper of two forms.
#[derive(Debug)]
pub enum Kept {
    /// Row indices, gathered one by one: where runs are short.
    Rows(Vec<usize>),
    /// Runs of rows (`start..end`), copied a run at a time: where runs average
    /// [`MIN_COPIED_RUN`] rows or more. Probe `predicate.kept_by_runs`.
    Runs(Vec<std::ops::Range<usize>>, usize),
}

impl Kept {
    /// The rows `mask` sets, `kept` of them (the caller counted them already).
    pub fn of_counted(mask: &BooleanBuffer, kept: usize) -> Kept {
        if kept >= MIN_COPIED_RUN * count_runs(mask) {
            Kept::Runs(mask.set_slices().map(|(s, e)| s..e).collect(), kept)
        } else {
            Kept::Rows(mask.set_indices().collect())
        }
    }

    /// How many rows are kept.
    pub fn len(&self) -> usize {
        match self {
            Kept::Rows(rows) => rows.len(),
            Kept::Runs(_, n) => *n,
        }
    }

    /// Whether no row is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The kept rows of `array`. Runs are copied for flat columns; nested arrays gather.
    pub fn apply(&self, array: &Array) -> Array {
        match (self, array) {
            (Kept::Rows(rows), a) => take_array(a, rows),
            (Kept::Runs(runs, n), Array::Primitive(c)) => {
                probe::hit("predicate.kept_by_runs");
                Array::Primitive(copy_runs(c, runs, *n))
            }
            (Kept::Runs(runs, _), a) => {
                let rows: Vec<usize> = runs.iter().flat_map(|r| r.clone()).collect();
                take_array(a, &rows)
            }
        }
    }
}

/// How many runs of set bits `mask` holds, counted a word at a time (a run starts at a set
/// bit whose predecessor is unset).
pub(crate) fn count_runs(mask: &BooleanBuffer) -> usize {
    let chunks = mask.inner().bit_chunks(mask.offset(), mask.len());
    let mut carry = 0u64;
    let mut runs = 0usize;
    for w in chunks
        .iter()
        .chain(std::iter::once(chunks.remainder_bits()))
    {
        runs += (w & !((w << 1) | carry)).count_ones() as usize;
        carry = w >> 63;
    }
    runs
}

/// The rows of `col` in `runs` (ascending, disjoint; `n` rows in all), copied run by run.
fn copy_runs(col: &Column, runs: &[std::ops::Range<usize>], n: usize) -> Column {
    let validity = col.validity.as_ref().and_then(|v| {
        let mut b = arrow_buffer::BooleanBufferBuilder::new(n);
        for r in runs {
            b.append_buffer(&v.inner().slice(r.start, r.len()));
        }
        let nb = NullBuffer::new(b.finish());
        (nb.null_count() > 0).then_some(nb)
    });
    fn scalars<T: arrow_buffer::ArrowNativeType>(
        v: &ScalarBuffer<T>,
        runs: &[std::ops::Range<usize>],
        n: usize,
    ) -> ScalarBuffer<T> {
        let mut out = Vec::with_capacity(n);
        for r in runs {
            out.extend_from_slice(&v[r.clone()]);
        }
        out.into()
    }
    fn fixed(data: &Buffer, width: usize, runs: &[std::ops::Range<usize>], n: usize) -> Buffer {
        let mut out = Vec::with_capacity(n * width);
        for r in runs {
            out.extend_from_slice(&data[r.start * width..r.end * width]);
        }
        Buffer::from_vec(out)
    }
    let values = match &col.values {
        Values::Boolean(b) => {
            let mut out = arrow_buffer::BooleanBufferBuilder::new(n);
            for r in runs {
                out.append_buffer(&b.slice(r.start, r.len()));
            }
            Values::Boolean(out.finish())
        }
        Values::Int32(v) => Values::Int32(scalars(v, runs, n)),
        Values::Int64(v) => Values::Int64(scalars(v, runs, n)),
        Values::Float(v) => Values::Float(scalars(v, runs, n)),
        Values::Double(v) => Values::Double(scalars(v, runs, n)),
        Values::Int96(d) => Values::Int96(fixed(d, 12, runs, n)),
        Values::FixedLenByteArray { width, data } => Values::FixedLenByteArray {
            width: *width,
            data: fixed(data, *width, runs, n),
        },
        Values::BinaryView { views, buffers } => Values::BinaryView {
            views: scalars(views, runs, n),
            buffers: buffers.clone(),
        },
        Values::Dictionary { keys, dictionary } => Values::Dictionary {
            keys: scalars(keys, runs, n),
            dictionary: dictionary.clone(),
        },
        // Runs never repeat a row: the kept bytes fit the offsets they came with.
        Values::SmallBinary { offsets, data } => {
            let (offsets, data) = binary_runs(offsets, data, runs, n);
            Values::SmallBinary { offsets, data }
        }
        Values::Binary { offsets, data } => {
            let (offsets, data) = binary_runs(offsets, data, runs, n);
            Values::Binary { offsets, data }
        }
    };
    Column {
        len: n,
        validity,
        values,
    }
}

/// Offsets and bytes of the values in `runs` (`n` values), each run's bytes copied at once.
fn binary_runs<
    O: arrow_buffer::ArrowNativeType + std::ops::Sub<Output = O> + std::ops::Add<Output = O>,
>(
    offsets: &OffsetBuffer<O>,
    data: &Buffer,
    runs: &[std::ops::Range<usize>],
    n: usize,
) -> (OffsetBuffer<O>, Buffer) {
    let mut out_offsets: Vec<O> = Vec::with_capacity(n + 1);
    let mut at = O::usize_as(0);
    out_offsets.push(at);
    let mut bytes = Vec::new();
    for r in runs {
        let (s, e) = (offsets[r.start], offsets[r.end]);
        bytes.extend_from_slice(&data[s.as_usize()..e.as_usize()]);
        for w in offsets[r.start..=r.end].windows(2) {
            at = at + (w[1] - w[0]);
            out_offsets.push(at);
        }
    }
    (
        OffsetBuffer::new(out_offsets.into()),
        Buffer::from_vec(bytes),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The word-packed comparisons agree with `CmpOp::holds`, slot by slot, for lengths
        /// around the 64-slot words.
        #[test]
        fn packed_compares_agree_with_holds(
            v in proptest::collection::vec(-3i64..3, 0..200),
            x in -3i64..3,
        ) {
            use CmpOp::*;
            for op in [Eq, Ne, Lt, Le, Gt, Ge] {
                let got = compare_words(&v, x, op);
                let want: Vec<bool> = v.iter().map(|a| op.holds(a.cmp(&x))).collect();
                proptest::prop_assert_eq!(got.iter().collect::<Vec<_>>(), want);
            }
        }
    }

    fn offsets<O: arrow_buffer::ArrowNativeType>(
        values: &[Vec<u8>],
        offset: impl Fn(usize) -> O,
    ) -> (OffsetBuffer<O>, Buffer) {
        let mut ends = vec![offset(0)];
        let mut data = Vec::new();
        for v in values {
            data.extend_from_slice(v);
            ends.push(offset(data.len()));
        }
        (
            OffsetBuffer::new(ScalarBuffer::from(ends)),
            Buffer::from_vec(data),
        )
    }

    /// Every layout a byte-array column comes in: offsets (both widths), views, and
    /// dictionary keys into each of those.
    fn byte_layouts(values: &[Vec<u8>]) -> Vec<Values> {
        let (large, data) = offsets(values, |o| o as i64);
        let (small, small_data) = offsets(values, |o| o as i32);
        let mut distinct: Vec<Vec<u8>> = values.to_vec();
        distinct.sort();
        distinct.dedup();
        let keys: ScalarBuffer<i32> = values
            .iter()
            .map(|v| distinct.binary_search(v).expect("present") as i32)
            .collect();
        let flat = vec![
            Values::Binary {
                offsets: large,
                data,
            },
            Values::SmallBinary {
                offsets: small,
                data: small_data,
            },
            Values::views_of(values.iter().map(Vec::as_slice)),
        ];
        let mut layouts = flat.clone();
        for dictionary in byte_layouts_flat(&distinct) {
            layouts.push(Values::Dictionary {
                keys: keys.clone(),
                dictionary: std::sync::Arc::new(Column {
                    len: distinct.len(),
                    validity: None,
                    values: dictionary,
                }),
            });
        }
        layouts
    }

    fn byte_layouts_flat(values: &[Vec<u8>]) -> Vec<Values> {
        let (large, data) = offsets(values, |o| o as i64);
        vec![
            Values::Binary {
                offsets: large,
                data,
            },
            Values::views_of(values.iter().map(Vec::as_slice)),
        ]
    }

    fn byte_test() -> impl proptest::strategy::Strategy<Value = Test> {
        use proptest::prelude::*;
        let bytes = || proptest::collection::vec(prop_oneof![Just(b'a'), Just(b'b')], 0..16);
        let op = prop_oneof![
            Just(CmpOp::Eq),
            Just(CmpOp::Ne),
            Just(CmpOp::Lt),
            Just(CmpOp::Le),
            Just(CmpOp::Gt),
            Just(CmpOp::Ge)
        ];
        let list = || proptest::collection::vec(bytes().prop_map(Scalar::Bytes), 0..4);
        prop_oneof![
            (op, bytes()).prop_map(|(op, x)| Test::Cmp {
                op,
                value: Scalar::Bytes(x),
                or_nan: false
            }),
            list().prop_map(Test::In),
            list().prop_map(Test::NotIn),
        ]
    }

    proptest::proptest! {
        /// Byte-array comparisons and `IN` lists take the vectorised path on every layout
        /// (on dictionary keys, through the dictionary) and agree with the per-value
        /// evaluation, nulls and values past 12 bytes (out of line in views) included.
        #[test]
        fn byte_tests_agree_on_every_layout(
            rows in proptest::collection::vec(
                (proptest::collection::vec(
                    proptest::prop_oneof![proptest::strategy::Just(b'a'), proptest::strategy::Just(b'b')],
                    0..16,
                ), proptest::bool::weighted(0.8)),
                0..150,
            ),
            test in byte_test(),
        ) {
            let values: Vec<Vec<u8>> = rows.iter().map(|(v, _)| v.clone()).collect();
            let validity = NullBuffer::from(rows.iter().map(|(_, valid)| *valid).collect::<Vec<_>>());
            for layout in byte_layouts(&values) {
                let col = Column { len: values.len(), validity: Some(validity.clone()), values: layout };
                let fast = fast_test(&col, &test, Domain::Bytes);
                proptest::prop_assert!(fast.is_some(), "no fast path for {:?}", col.values);
                let want: Vec<bool> = rows
                    .iter()
                    .map(|(v, valid)| *valid && value_matches(&test, Val::Bytes(v)))
                    .collect();
                proptest::prop_assert_eq!(fast.unwrap().iter().collect::<Vec<_>>(), want);
            }
        }

        /// `IN` lists of integers agree with the per-value evaluation.
        #[test]
        fn integer_in_lists_agree(
            v in proptest::collection::vec(-3i64..3, 0..150),
            xs in proptest::collection::vec(-3i64..3, 0..4),
            negated in proptest::bool::ANY,
        ) {
            let list = |f: fn(i64) -> Scalar| xs.iter().map(|&x| f(x)).collect::<Vec<_>>();
            let cases = [
                (Values::Int64(v.clone().into()), Domain::I64, list(Scalar::I64)),
                (
                    Values::Int32(v.iter().map(|&a| a as i32).collect::<Vec<_>>().into()),
                    Domain::I32,
                    list(|x| Scalar::I32(x as i32)),
                ),
            ];
            for (values, domain, list) in cases {
                let test = if negated { Test::NotIn(list) } else { Test::In(list) };
                let col = Column { len: v.len(), validity: None, values };
                let fast = fast_test(&col, &test, domain).expect("a fast path");
                proptest::prop_assert_eq!(fast, per_value(&col, &test, domain));
            }
        }
    }

    proptest::proptest! {
        /// Copying runs of kept rows gives the rows gathering their indices gives, on every
        /// layout, nulls included.
        #[test]
        fn runs_copy_what_indices_gather(
            values in proptest::collection::vec(
                proptest::option::of(proptest::collection::vec(0u8..4, 0..6)),
                1..150,
            ),
            runs in proptest::collection::vec((proptest::bool::ANY, 1usize..24), 1..40),
        ) {
            let n = values.len();
            let bits: Vec<bool> = runs
                .iter()
                .flat_map(|&(keep, len)| std::iter::repeat_n(keep, len))
                .chain(std::iter::repeat(false))
                .take(n)
                .collect();
            let mask = BooleanBuffer::from(bits);
            proptest::prop_assert_eq!(count_runs(&mask), mask.set_slices().count());
            let sliced = mask.slice(n / 3, n - n / 3);
            proptest::prop_assert_eq!(count_runs(&sliced), sliced.set_slices().count());
            let rows: Vec<usize> = mask.set_indices().collect();
            let kept: Vec<std::ops::Range<usize>> = mask.set_slices().map(|(s, e)| s..e).collect();
            let validity = Some(NullBuffer::from(values.iter().map(Option::is_some).collect::<Vec<_>>()));
            let bytes: Vec<Vec<u8>> = values.iter().map(|v| v.clone().unwrap_or_default()).collect();
            let mut layouts = byte_layouts(&bytes);
            layouts.push(Values::Int32(bytes.iter().map(|b| b.len() as i32).collect()));
            layouts.push(Values::Double(bytes.iter().map(|b| b.len() as f64).collect()));
            layouts.push(Values::Boolean(bytes.iter().map(|b| b.len() % 2 == 0).collect()));
            layouts.push(Values::FixedLenByteArray {
                width: 2,
                data: Buffer::from_vec(bytes.iter().flat_map(|b| [b.len() as u8, 7]).collect::<Vec<u8>>()),
            });
            for values in layouts {
                let col = Column { len: n, validity: validity.clone(), values };
                let want = Array::Primitive(take_column(&col, &rows));
                let got = Array::Primitive(copy_runs(&col, &kept, rows.len()));
                proptest::prop_assert_eq!(got.len(), want.len());
                for i in 0..want.len() {
                    proptest::prop_assert_eq!(got.value(i), want.value(i), "row {} of {:?}", i, col.values);
                }
            }
        }
    }

    #[test]
    fn take_keeps_layouts() {
        let col = Column {
            len: 4,
            validity: Some(NullBuffer::from(vec![true, false, true, true])),
            values: Values::Binary {
                offsets: OffsetBuffer::new(vec![0i64, 1, 1, 3, 6].into()),
                data: Buffer::from(&b"abcdef"[..]),
            },
        };
        let t = take_column(&col, &[3, 1, 0]);
        assert_eq!(t.bytes(0), Some(&b"def"[..]));
        assert!(!t.is_valid(1));
        assert_eq!(t.bytes(2), Some(&b"a"[..]));
        let list = Array::List(ListArray {
            validity: None,
            offsets: ListOffsets::Small(OffsetBuffer::new(vec![0i32, 2, 2, 4].into())),
            values: Box::new(Array::Primitive(Column {
                len: 4,
                validity: None,
                values: Values::Int32(vec![1, 2, 3, 4].into()),
            })),
        });
        let t = filter_array(&list, &BooleanBuffer::from(vec![false, true, true]));
        assert_eq!(t.len(), 2);
        let leaf = |x: i32| crate::array::Value::Leaf(x.to_le_bytes().to_vec());
        assert_eq!(
            t.value(1),
            crate::array::Value::List(vec![leaf(3), leaf(4)])
        );
    }

    #[test]
    fn nan_and_zero_compare_as_ieee() {
        let cmp = |op, x: f64| Test::Cmp {
            op,
            value: Scalar::F64(x),
            or_nan: false,
        };
        assert!(value_matches(&cmp(CmpOp::Eq, 0.0), Val::F64(-0.0)));
        assert!(!value_matches(&cmp(CmpOp::Lt, 1.0), Val::F64(f64::NAN)));
        assert!(value_matches(&cmp(CmpOp::Ne, 1.0), Val::F64(f64::NAN)));
        let negated = Test::Cmp {
            op: CmpOp::Ge,
            value: Scalar::F64(1.0),
            or_nan: true,
        };
        assert!(value_matches(&negated, Val::F64(f64::NAN)));
        assert!(value_matches(
            &Test::NotIn(vec![Scalar::F64(1.0)]),
            Val::F64(f64::NAN)
        ));
    }
}
