//! A naive record-assembly oracle for nested fields, and a generator of valid level streams.
//!
//! Shared by `tests/it/nested_assembly.rs` and the fuzz crate (`fuzz/src/lib.rs` includes this
//! file with `#[path]`), so both hold `parq::read::testing::assemble_levels` against the same
//! oracle.
//!
//! The oracle is written from the Parquet spec, not from `src/read/plan.rs` or
//! `src/read/assemble.rs`:
//! - [`resolve`] walks the schema tree with the backward-compatibility rules of
//!   `LogicalTypes.md` into a [`Node`] tree carrying, for every node, the definition level
//!   at which it is non-null;
//! - [`assemble`] splits each leaf's `(r, d)` pairs into records at `r = 0`, then each
//!   record recursively: a node is null when its first pair's `d` is below the node's
//!   level, a list is empty when `d` is below its element level, and a list's elements
//!   start at the pairs whose `r` equals the list's repetition level. Every leaf under a
//!   node must tell the same story, and every pair must be consumed by exactly one leaf
//!   value, null or empty list. Anything else is an error.
//!
//! The generator builds random records as [`Value`] trees from a [`Node`] tree and shreds
//! them into levels with the inverse walk, so tests reach deep valid data.

#![allow(dead_code)]

use std::ops::Range;

use parq::array::Value;
use parq::metadata::{ConvertedType, FieldRepetitionType, LogicalType, SchemaElement, Type};
use parq::schema::{SchemaDescriptor, SchemaNode, SchemaNodeKind};

// ---------------------------------------------------------------------------------------------
// Choices from bytes

/// Choices drawn from a byte string (fuzz input or a proptest `Vec<u8>`); past its end every
/// choice is 0, so shorter inputs mean simpler cases (and proptest shrinks towards them).
pub struct Picker<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Picker<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Picker { data, pos: 0 }
    }

    /// A number in `0..n` (`n >= 1`), one byte per choice (two past 256).
    pub fn pick(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        let mut v = 0usize;
        let bytes = if n > 256 { 2 } else { 1 };
        for _ in 0..bytes {
            v = (v << 8) | self.data.get(self.pos).copied().unwrap_or(0) as usize;
            self.pos += 1;
        }
        v % n
    }

    /// True with probability about `percent` %.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.pick(100) < percent
    }

    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }
}

// ---------------------------------------------------------------------------------------------
// The schema, resolved

/// Why the oracle refuses an input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OracleError {
    /// The schema cannot be read as a field (e.g. a LIST group with two fields).
    Schema(String),
    /// The levels are malformed on their own: out of range, not starting a record, wrong
    /// counts, a pair that contradicts the structure of its own leaf.
    Levels(String),
    /// A pair that continues (`r = k > 0`) a list the same leaf says is not there: the
    /// pair's own `d` is below the k-th repeated field's level, or the slot it continues
    /// was opened as null or as an empty list.
    Dangling(String),
    /// Each leaf is consistent with itself, but two leaves under one node disagree (on the
    /// number of records, on whether a struct is null, on a list's length).
    LeavesDisagree(String),
}

/// The logical shape of a node.
#[derive(Debug, Clone)]
pub enum Shape {
    /// A leaf column (its index among the field's leaves is `Node::leaves.start`).
    Leaf { column: usize },
    /// A struct of fields.
    Struct(Vec<Node>),
    /// A list: elements exist at `d >= elem_def`, and an element starts at `r == elem_rep`.
    List {
        elem: Box<Node>,
        elem_def: i16,
        elem_rep: i16,
    },
    /// A map: a list of the `elem` struct, whose first field is the key and the second (if
    /// any) the value.
    Map {
        elem: Box<Node>,
        elem_def: i16,
        elem_rep: i16,
    },
}

/// One node of a resolved field.
#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    /// Whether the node may be null.
    pub nullable: bool,
    /// The definition level from which the node is non-null.
    pub def: i16,
    /// Repeated ancestors above the node (the repetition level of its parent).
    pub rep: i16,
    /// The field's leaves under this node (indices among the field's leaves).
    pub leaves: Range<usize>,
    pub shape: Shape,
}

fn annotated_list(e: &SchemaElement) -> bool {
    matches!(e.logical_type, Some(LogicalType::List))
        || e.converted_type == Some(ConvertedType::LIST)
}

fn annotated_map(e: &SchemaElement) -> bool {
    matches!(e.logical_type, Some(LogicalType::Map))
        || e.converted_type == Some(ConvertedType::MAP)
        || e.converted_type == Some(ConvertedType::MAP_KEY_VALUE)
}

struct Resolver<'a> {
    schema: &'a SchemaDescriptor,
    next_leaf: usize,
}

impl Resolver<'_> {
    fn err(n: &SchemaNode, what: &str) -> OracleError {
        OracleError::Schema(format!("{}: {what}", n.name))
    }

    /// `n` under a parent non-null from `def`, below `rep` repeated fields. `as_element`:
    /// `n` is the element of a list made from its own repetition (2-level lists, bare
    /// repeated fields), so it counts as required.
    fn node(
        &mut self,
        n: &SchemaNode,
        def: i16,
        rep: i16,
        as_element: bool,
    ) -> Result<Node, OracleError> {
        let e = &self.schema.elements()[n.schema_index];
        let repetition = if as_element {
            FieldRepetitionType::REQUIRED
        } else {
            n.repetition
        };
        let first_leaf = self.next_leaf;
        if repetition == FieldRepetitionType::REPEATED {
            // Not inside a LIST/MAP (those strip the repetition of their repeated field): a
            // required list of required elements, the element being the field itself.
            let elem = self.node(n, def + 1, rep + 1, true)?;
            return Ok(Node {
                name: n.name.clone(),
                nullable: false,
                def,
                rep,
                leaves: first_leaf..self.next_leaf,
                shape: Shape::List {
                    elem: Box::new(elem),
                    elem_def: def + 1,
                    elem_rep: rep + 1,
                },
            });
        }
        let nullable = match repetition {
            FieldRepetitionType::REQUIRED => false,
            FieldRepetitionType::OPTIONAL => true,
            _ => return Err(Self::err(n, "unknown repetition")),
        };
        let def = def + nullable as i16;
        let shape = match &n.kind {
            SchemaNodeKind::Leaf(column) => {
                let d = self.schema.leaf(*column);
                // The schema's own level count must agree with the walk; a disagreement is a
                // bug in the oracle or in SchemaDescriptor, not bad input.
                assert_eq!(
                    (d.max_def_level, d.max_rep_level),
                    (def, rep),
                    "oracle: levels of {:?}",
                    d.path
                );
                self.next_leaf += 1;
                Shape::Leaf { column: *column }
            }
            SchemaNodeKind::Group(children) if annotated_list(e) => {
                let [r] = children.as_slice() else {
                    return Err(Self::err(n, "a LIST holds one field"));
                };
                if r.repetition != FieldRepetitionType::REPEATED {
                    return Err(Self::err(n, "a LIST's field is repeated"));
                }
                let (elem_def, elem_rep) = (def + 1, rep + 1);
                // LogicalTypes.md, backward-compatibility rules: the repeated field is itself
                // the (required) element when it is a primitive, a group of several fields,
                // or named `array` or `<list>_tuple`. Otherwise it is the 3-level middle
                // group and its one field is the element.
                let two_level = match &r.kind {
                    SchemaNodeKind::Leaf(_) => true,
                    SchemaNodeKind::Group(g) if g.is_empty() => {
                        return Err(Self::err(n, "a LIST's repeated group without fields"));
                    }
                    SchemaNodeKind::Group(g) => {
                        g.len() > 1 || r.name == "array" || r.name == format!("{}_tuple", n.name)
                    }
                };
                let elem = if two_level {
                    self.node(r, elem_def, elem_rep, true)?
                } else {
                    self.node(&r.children()[0], elem_def, elem_rep, false)?
                };
                Shape::List {
                    elem: Box::new(elem),
                    elem_def,
                    elem_rep,
                }
            }
            SchemaNodeKind::Group(children) if annotated_map(e) => {
                let [kv] = children.as_slice() else {
                    return Err(Self::err(n, "a MAP holds one field"));
                };
                if kv.repetition != FieldRepetitionType::REPEATED {
                    return Err(Self::err(n, "a MAP's field is repeated"));
                }
                let SchemaNodeKind::Group(fields) = &kv.kind else {
                    return Err(Self::err(n, "a MAP's field is a group"));
                };
                if fields.is_empty() || fields.len() > 2 {
                    return Err(Self::err(
                        n,
                        "a MAP's key_value holds a key and maybe a value",
                    ));
                }
                let (elem_def, elem_rep) = (def + 1, rep + 1);
                // The key_value group is a required struct, whatever its annotation (legacy
                // writers put MAP_KEY_VALUE on it). Keys are taken with the repetition they
                // are written with (a required key is the spec's rule, not checked here).
                if let [key] = fields.as_slice() {
                    // A map without values reads as a list of its keys (as pyarrow reads it).
                    let elem = self.node(key, elem_def, elem_rep, false)?;
                    return Ok(Node {
                        name: n.name.clone(),
                        nullable,
                        def,
                        rep,
                        leaves: first_leaf..self.next_leaf,
                        shape: Shape::List {
                            elem: Box::new(elem),
                            elem_def,
                            elem_rep,
                        },
                    });
                }
                let first = self.next_leaf;
                let entries = fields
                    .iter()
                    .map(|f| self.node(f, elem_def, elem_rep, false))
                    .collect::<Result<Vec<_>, _>>()?;
                let elem = Node {
                    name: kv.name.clone(),
                    nullable: false,
                    def: elem_def,
                    rep: elem_rep,
                    leaves: first..self.next_leaf,
                    shape: Shape::Struct(entries),
                };
                Shape::Map {
                    elem: Box::new(elem),
                    elem_def,
                    elem_rep,
                }
            }
            SchemaNodeKind::Group(children) => Shape::Struct(
                children
                    .iter()
                    .map(|c| self.node(c, def, rep, false))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
        };
        Ok(Node {
            name: n.name.clone(),
            nullable,
            def,
            rep,
            leaves: first_leaf..self.next_leaf,
            shape,
        })
    }
}

/// Top-level field `field` of `schema` resolved, with the columns of its leaves in order.
pub fn resolve(schema: &SchemaDescriptor, field: usize) -> Result<(Node, Vec<usize>), OracleError> {
    let top = schema
        .top_level_fields()
        .get(field)
        .ok_or_else(|| OracleError::Schema(format!("no field {field}")))?;
    let mut r = Resolver {
        schema,
        next_leaf: 0,
    };
    let node = r.node(top, 0, 0, false)?;
    let mut columns = Vec::new();
    leaf_columns(&node, &mut columns);
    Ok((node, columns))
}

fn leaf_columns(n: &Node, out: &mut Vec<usize>) {
    match &n.shape {
        Shape::Leaf { column } => out.push(*column),
        Shape::Struct(c) => c.iter().for_each(|c| leaf_columns(c, out)),
        Shape::List { elem, .. } | Shape::Map { elem, .. } => leaf_columns(elem, out),
    }
}

// ---------------------------------------------------------------------------------------------
// Assembly, slot by slot

/// One leaf's levels: `entries` pairs; `rep`/`def` empty where the leaf's max level is 0.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LeafLevels {
    pub entries: usize,
    pub rep: Vec<i16>,
    pub def: Vec<i16>,
}

type Pair = (i16, i16);

struct Assembler {
    /// Per leaf: values taken so far (the dense index of the next value).
    next_value: Vec<i64>,
}

fn levels_err(s: impl Into<String>) -> OracleError {
    OracleError::Levels(s.into())
}

fn disagree(s: impl Into<String>) -> OracleError {
    OracleError::LeavesDisagree(s.into())
}

/// Split `pairs` before every pair whose repetition level is `r` (the first pair always
/// opens the first piece).
fn split_at_rep(pairs: &[Pair], r: i16) -> Vec<&[Pair]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..pairs.len() {
        if pairs[i].0 == r {
            out.push(&pairs[start..i]);
            start = i;
        }
    }
    if !pairs.is_empty() {
        out.push(&pairs[start..]);
    }
    out
}

impl Assembler {
    /// One slot of `node` from each of its leaves' pairs for that slot (`chunks`, indexed
    /// like `node.leaves`). The parent is known non-null from `parent_def`.
    fn build(
        &mut self,
        node: &Node,
        chunks: &[&[Pair]],
        parent_def: i16,
    ) -> Result<Value, OracleError> {
        debug_assert_eq!(chunks.len(), node.leaves.len());
        if node.leaves.is_empty() {
            return Ok(leafless(node));
        }
        for c in chunks {
            let Some(&(_, d)) = c.first() else {
                return Err(levels_err("a slot without pairs"));
            };
            if d < parent_def {
                return Err(OracleError::Dangling(format!(
                    "{}: definition level {d} where the repetition level says the parent is defined (>= {parent_def})",
                    node.name
                )));
            }
        }
        let single = |what: &str| -> Result<(), OracleError> {
            if chunks.iter().any(|c| c.len() != 1) {
                return Err(OracleError::Dangling(format!(
                    "{}: pairs continue {what}",
                    node.name
                )));
            }
            Ok(())
        };
        let defined = chunks[0][0].1 >= node.def;
        if chunks.iter().any(|c| (c[0].1 >= node.def) != defined) {
            return Err(disagree(format!("{}: leaves disagree on null", node.name)));
        }
        if !defined {
            debug_assert!(node.nullable, "d >= parent_def reaches a required node");
            single("a null")?;
            return Ok(Value::Null);
        }
        match &node.shape {
            Shape::Leaf { .. } => {
                single("a leaf value")?;
                let leaf = node.leaves.start;
                let v = self.next_value[leaf];
                self.next_value[leaf] += 1;
                Ok(Value::Leaf(v.to_le_bytes().to_vec()))
            }
            Shape::Struct(children) => {
                let mut out = Vec::with_capacity(children.len());
                for c in children {
                    let r = c.leaves.start - node.leaves.start..c.leaves.end - node.leaves.start;
                    out.push(self.build(c, &chunks[r], node.def)?);
                }
                Ok(Value::Struct(out))
            }
            Shape::List {
                elem,
                elem_def,
                elem_rep,
            }
            | Shape::Map {
                elem,
                elem_def,
                elem_rep,
            } => {
                let nonempty = chunks[0][0].1 >= *elem_def;
                if chunks.iter().any(|c| (c[0].1 >= *elem_def) != nonempty) {
                    return Err(disagree(format!("{}: leaves disagree on empty", node.name)));
                }
                let elems = if !nonempty {
                    single("an empty list")?;
                    Vec::new()
                } else {
                    let pieces: Vec<Vec<&[Pair]>> =
                        chunks.iter().map(|c| split_at_rep(c, *elem_rep)).collect();
                    let n = pieces[0].len();
                    if pieces.iter().any(|p| p.len() != n) {
                        return Err(disagree(format!(
                            "{}: leaves disagree on the length",
                            node.name
                        )));
                    }
                    let mut elems = Vec::with_capacity(n);
                    for k in 0..n {
                        let slot: Vec<&[Pair]> = pieces.iter().map(|p| p[k]).collect();
                        elems.push(self.build(elem, &slot, *elem_def)?);
                    }
                    elems
                };
                if matches!(node.shape, Shape::List { .. }) {
                    return Ok(Value::List(elems));
                }
                Ok(Value::Map(
                    elems
                        .into_iter()
                        .map(|e| match e {
                            Value::Struct(mut kv) => {
                                let value = if kv.len() > 1 {
                                    kv.pop().unwrap()
                                } else {
                                    Value::Null
                                };
                                (kv.pop().unwrap(), value)
                            }
                            other => unreachable!("map entry {other:?}"),
                        })
                        .collect(),
                ))
            }
        }
    }
}

/// A slot of a node with no leaf below it (a group without fields, or of only such
/// groups), which no level describes: null when the node is optional, else a struct of such
/// slots or an empty list (pyarrow reads them so).
fn leafless(node: &Node) -> Value {
    if node.nullable {
        return Value::Null;
    }
    match &node.shape {
        Shape::Struct(children) => Value::Struct(children.iter().map(leafless).collect()),
        Shape::List { .. } => Value::List(Vec::new()),
        Shape::Map { .. } => Value::Map(Vec::new()),
        Shape::Leaf { .. } => unreachable!("a leaf is a leaf"),
    }
}

/// The records of top-level field `field` from its leaves' levels (in schema order), each
/// leaf's values being `0, 1, 2, ...` (as little-endian i64 bytes) in stored order.
pub fn assemble(
    schema: &SchemaDescriptor,
    field: usize,
    leaves: &[LeafLevels],
) -> Result<Vec<Value>, OracleError> {
    let (node, columns) = resolve(schema, field)?;
    if columns.len() != leaves.len() {
        return Err(levels_err(format!(
            "{} leaves given for {}",
            leaves.len(),
            columns.len()
        )));
    }
    // Each leaf's pairs, checked on their own.
    let mut pairs: Vec<Vec<Pair>> = Vec::with_capacity(leaves.len());
    for (&column, l) in columns.iter().zip(leaves) {
        let desc = schema.leaf(column);
        let (max_rep, max_def) = (desc.max_rep_level, desc.max_def_level);
        for (v, max) in [(&l.rep, max_rep), (&l.def, max_def)] {
            let want = if max > 0 { l.entries } else { 0 };
            if v.len() != want {
                return Err(levels_err(format!(
                    "{} levels where {want} are due",
                    v.len()
                )));
            }
            if v.iter().any(|&x| x < 0 || x > max) {
                return Err(levels_err("a level out of range"));
            }
        }
        let p: Vec<Pair> = (0..l.entries)
            .map(|i| {
                (
                    l.rep.get(i).copied().unwrap_or(0),
                    l.def.get(i).copied().unwrap_or(0),
                )
            })
            .collect();
        if p.first().is_some_and(|&(r, _)| r != 0) {
            return Err(levels_err("the first pair does not start a record"));
        }
        pairs.push(p);
    }
    // A field without leaves has no levels, hence no records here (a reader counts them
    // from the footer).
    if columns.is_empty() {
        return Ok(Vec::new());
    }
    // Records: each starts at r == 0.
    let records: Vec<Vec<&[Pair]>> = pairs.iter().map(|p| split_at_rep(p, 0)).collect();
    let n = records[0].len();
    if records.iter().any(|r| r.len() != n) {
        return Err(disagree("leaves hold different numbers of records"));
    }
    let mut a = Assembler {
        next_value: vec![0; leaves.len()],
    };
    (0..n)
        .map(|i| {
            let chunks: Vec<&[Pair]> = records.iter().map(|r| r[i]).collect();
            a.build(&node, &chunks, 0)
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Valid data: random records, shredded

/// How a generator draws records.
#[derive(Debug, Clone, Copy)]
pub struct GenOptions {
    /// Percent of nullable slots that are null.
    pub null_percent: usize,
    /// Percent of lists that are empty.
    pub empty_percent: usize,
    /// Longest list.
    pub max_len: usize,
}

/// A random record of `node`; leaf values are the per-leaf dense indices, counted in
/// `next_value` (so records generated in order carry the values the oracle gives).
pub fn gen_value(node: &Node, p: &mut Picker<'_>, o: &GenOptions, next_value: &mut [i64]) -> Value {
    if node.nullable && p.chance(o.null_percent) {
        return Value::Null;
    }
    match &node.shape {
        Shape::Leaf { .. } => {
            let v = next_value[node.leaves.start];
            next_value[node.leaves.start] += 1;
            Value::Leaf(v.to_le_bytes().to_vec())
        }
        Shape::Struct(children) => Value::Struct(
            children
                .iter()
                .map(|c| gen_value(c, p, o, next_value))
                .collect(),
        ),
        Shape::List { elem, .. } | Shape::Map { elem, .. } => {
            let len = if p.chance(o.empty_percent) {
                0
            } else {
                1 + p.pick(o.max_len.max(1))
            };
            let elems: Vec<Value> = (0..len)
                .map(|_| gen_value(elem, p, o, next_value))
                .collect();
            if matches!(node.shape, Shape::List { .. }) {
                Value::List(elems)
            } else {
                Value::Map(
                    elems
                        .into_iter()
                        .map(|e| match e {
                            Value::Struct(mut kv) => {
                                let value = if kv.len() > 1 {
                                    kv.pop().unwrap()
                                } else {
                                    Value::Null
                                };
                                (kv.pop().unwrap(), value)
                            }
                            other => unreachable!("map entry {other:?}"),
                        })
                        .collect(),
                )
            }
        }
    }
}

/// Append the pairs of `value` (one slot of `node`, whose parent is non-null from
/// `parent_def`, starting with repetition level `r`) to each leaf's pairs.
fn shred_value(node: &Node, value: &Value, r: i16, parent_def: i16, out: &mut [Vec<Pair>]) {
    let all = |out: &mut [Vec<Pair>], d: i16| {
        for l in node.leaves.clone() {
            out[l].push((r, d));
        }
    };
    match (value, &node.shape) {
        (Value::Null, _) => {
            assert!(node.nullable, "null in required {}", node.name);
            all(out, parent_def);
        }
        (Value::Leaf(_), Shape::Leaf { .. }) => all(out, node.def),
        (Value::Struct(vs), Shape::Struct(children)) => {
            for (c, v) in children.iter().zip(vs) {
                shred_value(c, v, r, node.def, out);
            }
        }
        (
            Value::List(vs),
            Shape::List {
                elem,
                elem_def,
                elem_rep,
            },
        ) => {
            if vs.is_empty() {
                all(out, node.def);
            }
            for (k, v) in vs.iter().enumerate() {
                shred_value(elem, v, if k == 0 { r } else { *elem_rep }, *elem_def, out);
            }
        }
        (
            Value::Map(kvs),
            Shape::Map {
                elem,
                elem_def,
                elem_rep,
            },
        ) => {
            if kvs.is_empty() {
                all(out, node.def);
            }
            let Shape::Struct(fields) = &elem.shape else {
                unreachable!()
            };
            for (k, (key, value)) in kvs.iter().enumerate() {
                let entry = if fields.len() > 1 {
                    Value::Struct(vec![key.clone(), value.clone()])
                } else {
                    Value::Struct(vec![key.clone()])
                };
                shred_value(
                    elem,
                    &entry,
                    if k == 0 { r } else { *elem_rep },
                    *elem_def,
                    out,
                );
            }
        }
        (v, _) => panic!("{v:?} does not fit {}", node.name),
    }
}

/// The levels of `records` of `node` (resolved against `schema`), per leaf.
pub fn shred(
    schema: &SchemaDescriptor,
    node: &Node,
    columns: &[usize],
    records: &[Value],
) -> Vec<LeafLevels> {
    let mut pairs: Vec<Vec<Pair>> = vec![Vec::new(); columns.len()];
    for v in records {
        shred_value(node, v, 0, 0, &mut pairs);
    }
    columns
        .iter()
        .zip(pairs)
        .map(|(&c, p)| {
            let d = schema.leaf(c);
            LeafLevels {
                entries: p.len(),
                rep: if d.max_rep_level > 0 {
                    p.iter().map(|x| x.0).collect()
                } else {
                    Vec::new()
                },
                def: if d.max_def_level > 0 {
                    p.iter().map(|x| x.1).collect()
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

/// Random options, then `n` random records of `node` and their levels.
pub fn gen_records(
    schema: &SchemaDescriptor,
    node: &Node,
    columns: &[usize],
    p: &mut Picker<'_>,
    n: usize,
) -> (Vec<Value>, Vec<LeafLevels>) {
    let o = GenOptions {
        null_percent: [0, 10, 30, 50, 100][p.pick(5)],
        empty_percent: [0, 10, 30, 100][p.pick(4)],
        max_len: [1, 3, 6][p.pick(3)],
    };
    let mut next = vec![0i64; columns.len()];
    let records: Vec<Value> = (0..n).map(|_| gen_value(node, p, &o, &mut next)).collect();
    let levels = shred(schema, node, columns, &records);
    (records, levels)
}

/// Damage valid levels a little: change, drop, insert or duplicate a pair of one leaf, or
/// change a count. The result is often invalid, sometimes still valid.
pub fn mutate(levels: &mut [LeafLevels], max: &[(i16, i16)], p: &mut Picker<'_>) {
    if levels.is_empty() {
        return;
    }
    let times = 1 + p.pick(3);
    for _ in 0..times {
        let l = p.pick(levels.len());
        let (max_rep, max_def) = max[l];
        let leaf = &mut levels[l];
        let at = p.pick(leaf.entries + 1);
        match p.pick(6) {
            0 if at < leaf.rep.len() => {
                if max_rep > 0 {
                    leaf.rep[at] = p.pick(max_rep as usize + 1) as i16;
                }
            }
            1 if at < leaf.def.len() => {
                if max_def > 0 {
                    leaf.def[at] = p.pick(max_def as usize + 1) as i16;
                }
            }
            2 if at < leaf.entries => {
                leaf.entries -= 1;
                if at < leaf.rep.len() {
                    leaf.rep.remove(at);
                }
                if at < leaf.def.len() {
                    leaf.def.remove(at);
                }
            }
            3 => {
                leaf.entries += 1;
                if max_rep > 0 {
                    let at = at.min(leaf.rep.len());
                    leaf.rep.insert(at, p.pick(max_rep as usize + 1) as i16);
                }
                if max_def > 0 {
                    let at = at.min(leaf.def.len());
                    leaf.def.insert(at, p.pick(max_def as usize + 1) as i16);
                }
            }
            4 if at < leaf.def.len() => {
                // Off by one: the classic writer bug.
                let d = &mut leaf.def[at];
                *d = if *d > 0 && p.chance(50) {
                    *d - 1
                } else {
                    (*d + 1).min(max_def)
                };
            }
            _ => {
                // A count that disagrees with the levels (or a level past the max).
                match p.pick(3) {
                    0 => leaf.entries += 1,
                    1 if at < leaf.def.len() => leaf.def[at] = max_def + 1,
                    _ if at < leaf.rep.len() => leaf.rep[at] = -1,
                    _ => {}
                }
            }
        }
    }
}

/// Random levels, valid or not, for leaves of the given max levels.
pub fn gen_garbage(max: &[(i16, i16)], p: &mut Picker<'_>) -> Vec<LeafLevels> {
    let entries = p.pick(24);
    max.iter()
        .map(|&(max_rep, max_def)| {
            let entries = if p.chance(80) { entries } else { p.pick(24) };
            let mut rep: Vec<i16> = (0..entries)
                .map(|_| p.pick(max_rep as usize + 1) as i16)
                .collect();
            if let Some(r) = rep.first_mut() {
                if p.chance(90) {
                    *r = 0;
                }
            }
            LeafLevels {
                entries,
                rep: if max_rep > 0 {
                    std::mem::take(&mut rep)
                } else {
                    Vec::new()
                },
                def: if max_def > 0 {
                    (0..entries)
                        .map(|_| p.pick(max_def as usize + 1) as i16)
                        .collect()
                } else {
                    Vec::new()
                },
            }
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Random schemas

/// A schema grammar: a few top-level fields, each of depth up to `depth` groups.
///
/// ```text
/// field   := prim | group | list3 | list2 | map          (repetition required/optional/repeated)
/// prim    := int64 leaf
/// group   := unannotated group of 1..=3 fields
/// list3   := g (LIST) { repeated group list { field element } }
/// list2   := g (LIST) { repeated int64 element }                    (rule 1)
///          | g (LIST) { repeated group element { 2..=3 fields } }   (rule 2)
///          | g (LIST) { repeated group array { field } }            (rule 3: `array`)
///          | g (LIST) { repeated group g_tuple { field } }          (rule 3: `_tuple`)
/// map     := g (MAP | MAP_KEY_VALUE) { repeated group key_value { key [value] } }
/// ```
///
/// With `invalid`, about one group in twenty is malformed (a LIST with two fields, a LIST
/// whose field is not repeated, a MAP over a primitive or three fields, an empty group).
pub fn gen_schema(p: &mut Picker<'_>, depth: usize, invalid: bool) -> Vec<SchemaElement> {
    let mut out = vec![SchemaElement {
        name: "schema".into(),
        num_children: Some(0),
        ..Default::default()
    }];
    let fields = 1 + p.pick(2);
    for i in 0..fields {
        gen_field(p, &format!("f{i}"), depth, None, invalid, &mut out);
    }
    out[0].num_children = Some(fields as i32);
    out
}

fn rep_of(p: &mut Picker<'_>, repeated_ok: bool) -> FieldRepetitionType {
    match p.pick(if repeated_ok { 4 } else { 2 }) {
        0 => FieldRepetitionType::OPTIONAL,
        1 => FieldRepetitionType::REQUIRED,
        2 => FieldRepetitionType::OPTIONAL,
        _ => FieldRepetitionType::REPEATED,
    }
}

pub fn leaf(name: &str, rep: FieldRepetitionType) -> SchemaElement {
    SchemaElement {
        type_: Some(Type::INT64),
        repetition_type: Some(rep),
        name: name.into(),
        ..Default::default()
    }
}

pub fn group(name: &str, rep: FieldRepetitionType, n: usize) -> SchemaElement {
    SchemaElement {
        repetition_type: Some(rep),
        name: name.into(),
        num_children: Some(n as i32),
        ..Default::default()
    }
}

fn annotate(p: &mut Picker<'_>, e: &mut SchemaElement, map: bool) {
    if map {
        match p.pick(3) {
            0 => e.logical_type = Some(LogicalType::Map),
            1 => e.converted_type = Some(ConvertedType::MAP),
            _ => e.converted_type = Some(ConvertedType::MAP_KEY_VALUE),
        }
    } else if p.chance(50) {
        e.logical_type = Some(LogicalType::List);
    } else {
        e.converted_type = Some(ConvertedType::LIST);
    }
}

/// One field named `name`; `rep` forces its repetition.
fn gen_field(
    p: &mut Picker<'_>,
    name: &str,
    depth: usize,
    rep: Option<FieldRepetitionType>,
    invalid: bool,
    out: &mut Vec<SchemaElement>,
) {
    let kind = if depth == 0 { 0 } else { p.pick(10) };
    let rep = rep.unwrap_or_else(|| rep_of(p, true));
    if invalid && depth > 0 && p.chance(5) {
        gen_bad_group(p, name, depth, out);
        return;
    }
    // LIST and MAP groups are optional or required (repeated only now and then: 2-level
    // lists may be repeated elements of other 2-level lists; anywhere else a repeated LIST
    // reads as a list of lists).
    let list_rep = if rep == FieldRepetitionType::REPEATED && p.chance(70) {
        rep_of(p, false)
    } else {
        rep
    };
    match kind {
        0 | 1 => out.push(leaf(name, rep)),
        2 | 3 => {
            let n = 1 + p.pick(3);
            out.push(group(name, rep, n));
            for i in 0..n {
                gen_field(p, &format!("{name}c{i}"), depth - 1, None, invalid, out);
            }
        }
        4 | 5 => {
            // 3-level; the element may itself be repeated (rule 5: read as a list).
            let mut g = group(name, list_rep, 1);
            annotate(p, &mut g, false);
            out.push(g);
            out.push(group("list", FieldRepetitionType::REPEATED, 1));
            let elem_rep = if p.chance(10) {
                FieldRepetitionType::REPEATED
            } else {
                rep_of(p, false)
            };
            gen_field(p, "element", depth - 1, Some(elem_rep), invalid, out);
        }
        6 => {
            let mut g = group(name, list_rep, 1);
            annotate(p, &mut g, false);
            out.push(g);
            out.push(leaf("element", FieldRepetitionType::REPEATED));
        }
        7 => {
            let mut g = group(name, list_rep, 1);
            annotate(p, &mut g, false);
            out.push(g);
            let n = 2 + p.pick(2);
            out.push(group("element", FieldRepetitionType::REPEATED, n));
            for i in 0..n {
                gen_field(p, &format!("{name}e{i}"), depth - 1, None, invalid, out);
            }
        }
        8 => {
            let mut g = group(name, list_rep, 1);
            annotate(p, &mut g, false);
            out.push(g);
            let inner = if p.chance(50) {
                "array".to_string()
            } else {
                format!("{name}_tuple")
            };
            out.push(group(&inner, FieldRepetitionType::REPEATED, 1));
            gen_field(p, &format!("{name}t"), depth - 1, None, invalid, out);
        }
        _ => {
            let mut g = group(name, list_rep, 1);
            annotate(p, &mut g, true);
            out.push(g);
            let with_value = p.chance(80);
            let mut kv = group(
                "key_value",
                FieldRepetitionType::REPEATED,
                1 + with_value as usize,
            );
            if p.chance(20) {
                kv.converted_type = Some(ConvertedType::MAP_KEY_VALUE);
            }
            out.push(kv);
            // The key: required, usually a primitive (the spec's rule); now and then optional.
            let key_rep = if p.chance(90) {
                FieldRepetitionType::REQUIRED
            } else {
                FieldRepetitionType::OPTIONAL
            };
            if p.chance(80) {
                out.push(leaf("key", key_rep));
            } else {
                gen_field(p, "key", depth - 1, Some(key_rep), invalid, out);
            }
            if with_value {
                gen_field(p, "value", depth - 1, None, invalid, out);
            }
        }
    }
}

fn gen_bad_group(p: &mut Picker<'_>, name: &str, depth: usize, out: &mut Vec<SchemaElement>) {
    let rep = rep_of(p, false);
    match p.pick(5) {
        0 => {
            // A LIST with two fields.
            let mut g = group(name, rep, 2);
            annotate(p, &mut g, false);
            out.push(g);
            out.push(leaf("a", FieldRepetitionType::REPEATED));
            out.push(leaf("b", FieldRepetitionType::REPEATED));
        }
        1 => {
            // A LIST whose field is not repeated.
            let mut g = group(name, rep, 1);
            annotate(p, &mut g, false);
            out.push(g);
            let r = rep_of(p, false);
            gen_field(p, "element", depth - 1, Some(r), true, out);
        }
        2 => {
            // A MAP over a repeated primitive.
            let mut g = group(name, rep, 1);
            annotate(p, &mut g, true);
            out.push(g);
            out.push(leaf("key_value", FieldRepetitionType::REPEATED));
        }
        3 => {
            // A MAP's key_value with three fields.
            let mut g = group(name, rep, 1);
            annotate(p, &mut g, true);
            out.push(g);
            out.push(group("key_value", FieldRepetitionType::REPEATED, 3));
            for n in ["key", "value", "extra"] {
                out.push(leaf(n, FieldRepetitionType::REQUIRED));
            }
        }
        _ => {
            // An empty group (a type-less element with num_children = 0): valid, but easy
            // to get wrong, so drawn here among the malformed ones.
            out.push(group(name, rep, 0));
        }
    }
}

/// The max (rep, def) levels of `columns`.
pub fn max_levels(schema: &SchemaDescriptor, columns: &[usize]) -> Vec<(i16, i16)> {
    columns
        .iter()
        .map(|&c| (schema.leaf(c).max_rep_level, schema.leaf(c).max_def_level))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The check

/// What [`check`] saw.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Both assembled the same records.
    Equal,
    /// Both refused.
    BothRefused,
    /// The oracle found two leaves that disagree and `assemble_levels` read the first
    /// leaf's shape (see the leniencies in tests/it/nested_assembly.rs).
    LenientOnDisagreement,
    /// The oracle found a dangling pair and `assemble_levels` read past it (see the
    /// leniencies in tests/it/nested_assembly.rs).
    LenientOnDangling,
}

/// Hold `parq::read::testing::assemble_leaf_levels` against [`assemble`] for one field;
/// panics on any disagreement that is not a documented leniency.
///
/// A reader plans the whole schema before it reads a field, so one field the oracle cannot
/// resolve makes every field of the schema refused.
pub fn check(schema: &SchemaDescriptor, field: usize, leaves: &[LeafLevels]) -> Outcome {
    let bad_schema = (0..schema.top_level_fields().len()).find_map(|f| resolve(schema, f).err());
    let oracle = match bad_schema {
        Some(e) => Err(e),
        None => assemble(schema, field, leaves),
    };
    let input: Vec<(usize, &[i16], &[i16])> = leaves
        .iter()
        .map(|l| (l.entries, l.rep.as_slice(), l.def.as_slice()))
        .collect();
    let got = parq::read::testing::assemble_leaf_levels(schema, field, &input);
    match (oracle, got) {
        (Ok(want), Ok(array)) => {
            assert_eq!(array.len(), want.len(), "record count; levels {leaves:?}");
            for (i, w) in want.iter().enumerate() {
                assert_eq!(&array.value(i), w, "record {i}; levels {leaves:?}");
            }
            Outcome::Equal
        }
        (Ok(want), Err(e)) => {
            panic!("assemble_levels refused levels the oracle reads: {e}\nlevels {leaves:?}\nrecords {want:?}")
        }
        (Err(e @ (OracleError::LeavesDisagree(_) | OracleError::Dangling(_))), Ok(array)) => {
            // Sound but lenient: every slot must still be reachable without a panic, and the
            // array as long as the first leaf's record count.
            let records = leaves.first().map_or(0, |l| {
                if l.rep.is_empty() {
                    l.entries
                } else {
                    l.rep.iter().filter(|&&r| r == 0).count()
                }
            });
            assert_eq!(array.len(), records, "records; levels {leaves:?}");
            for i in 0..array.len() {
                let _ = array.value(i);
            }
            if matches!(e, OracleError::Dangling(_)) {
                Outcome::LenientOnDangling
            } else {
                Outcome::LenientOnDisagreement
            }
        }
        (Err(o), Ok(array)) => {
            let values: Vec<Value> = (0..array.len()).map(|i| array.value(i)).collect();
            panic!("assemble_levels accepted what the oracle refuses ({o:?})\nlevels {leaves:?}\ngot {values:?}")
        }
        (Err(_), Err(_)) => Outcome::BothRefused,
    }
}
