//! The assembly plan: each field of the schema with the level thresholds that turn a leaf's
//! (repetition, definition) pairs into its offsets and validity.
//!
//! For every node, a level pair `(r, d)` of a leaf below it
//! - *starts a slot* of the node when `d >= def_slot && r <= rep_slot`;
//! - makes that slot *valid* when `d >= def_valid`;
//!
//! and for a list, starts an *element* when `d >= def_elem && r <= rep_elem` (which is the
//! child's own slot rule: the child's `def_slot`/`rep_slot` are the list's
//! `def_elem`/`rep_elem`). A struct's children share its slot rule. Every node computes
//! these once, from the levels of the first leaf below it: all leaves under a node carry the
//! same levels down to the node's depth.
//!
//! The legacy spellings of `LogicalTypes.md` are resolved here, once:
//! - a repeated field outside a LIST (or MAP) group is a required list of required elements;
//! - a LIST whose repeated child is a primitive, has several fields, or is named `array` or
//!   `<list>_tuple` is a 2-level list whose element is that repeated child;
//! - MAP and MAP_KEY_VALUE groups both read as maps, whatever their key and value are named;
//!   a map without values (a key_value group of one field) reads as a list of its keys.

use std::collections::BTreeSet;

use crate::field::{DataType, Field, Primitive};
use crate::metadata::{ConvertedType, FieldRepetitionType, LogicalType};
use crate::schema::{SchemaDescriptor, SchemaNode, SchemaNodeKind};
use crate::{Error, Result};

/// One node of the plan.
#[derive(Debug, Clone)]
pub(crate) struct FieldPlan {
    pub name: String,
    pub nullable: bool,
    pub field_id: Option<i32>,
    pub def_slot: i16,
    pub rep_slot: i16,
    pub def_valid: i16,
    /// The first leaf column under this node: its levels give this node's shape.
    /// [`NO_LEAF`] for a group with no leaf under it (see [`FieldPlan::is_leafless`]).
    pub first_leaf: usize,
    pub kind: PlanKind,
}

#[derive(Debug, Clone)]
pub(crate) enum PlanKind {
    /// A leaf column; its slots are valid when `d == def_valid` (its max definition level).
    Leaf {
        column: usize,
        primitive: Primitive,
    },
    Struct(Vec<FieldPlan>),
    List {
        def_elem: i16,
        rep_elem: i16,
        child: Box<FieldPlan>,
        map: bool,
    },
}

/// [`FieldPlan::first_leaf`] of a group with no leaf below it.
pub(crate) const NO_LEAF: usize = usize::MAX;

impl FieldPlan {
    /// Whether no leaf column is under this node: a group without fields (segmentio's
    /// parquet-go writes them for empty Go structs), or one holding only such groups. Such
    /// a field has no levels to give it a shape: it reads as a struct without fields, one
    /// slot per slot of its parent, null when it is optional (as pyarrow reads it) and
    /// valid when required.
    pub fn is_leafless(&self) -> bool {
        self.first_leaf == NO_LEAF
    }

    /// The logical field this node reads as.
    pub fn field(&self) -> Field {
        let data_type = match &self.kind {
            PlanKind::Leaf { primitive, .. } => DataType::Primitive(primitive.clone()),
            PlanKind::Struct(children) => {
                DataType::Struct(children.iter().map(FieldPlan::field).collect())
            }
            PlanKind::List {
                child, map: true, ..
            } => DataType::Map(Box::new(child.field())),
            PlanKind::List { child, .. } => DataType::List(Box::new(child.field())),
        };
        Field {
            name: self.name.clone(),
            nullable: self.nullable,
            field_id: self.field_id,
            data_type,
        }
    }

    /// The leaf columns under this node, in schema order.
    pub fn leaves(&self, out: &mut Vec<usize>) {
        match &self.kind {
            PlanKind::Leaf { column, .. } => out.push(*column),
            PlanKind::Struct(children) => children.iter().for_each(|c| c.leaves(out)),
            PlanKind::List { child, .. } => child.leaves(out),
        }
    }

    /// This node pruned to the leaves in `keep` and their ancestors; `None` when no leaf is
    /// kept. A map keeps its key whenever any part of it is kept (a map without keys is not
    /// a map).
    pub fn project(&self, keep: &BTreeSet<usize>) -> Option<FieldPlan> {
        let kind = match &self.kind {
            PlanKind::Leaf { column, .. } => {
                return keep.contains(column).then(|| self.clone());
            }
            // Nothing to prune under a field without leaves, and nothing to read.
            _ if self.is_leafless() => return Some(self.clone()),
            PlanKind::Struct(children) => {
                let kept: Vec<FieldPlan> =
                    children.iter().filter_map(|c| c.project(keep)).collect();
                if kept.iter().all(FieldPlan::is_leafless) {
                    return None;
                }
                PlanKind::Struct(kept)
            }
            PlanKind::List {
                def_elem,
                rep_elem,
                child,
                map,
            } => {
                let child = if *map {
                    let mut all = Vec::new();
                    child.leaves(&mut all);
                    if !all.iter().any(|l| keep.contains(l)) {
                        return None;
                    }
                    // Keep the key (the first child of the entries) and what was asked for.
                    let mut keep = keep.clone();
                    if let PlanKind::Struct(entries) = &child.kind {
                        if let Some(k) = entries.first() {
                            let mut key_leaves = Vec::new();
                            k.leaves(&mut key_leaves);
                            keep.extend(key_leaves);
                        }
                    }
                    child.project(&keep)?
                } else {
                    child.project(keep)?
                };
                PlanKind::List {
                    def_elem: *def_elem,
                    rep_elem: *rep_elem,
                    child: Box::new(child),
                    map: *map,
                }
            }
        };
        let mut first = Vec::new();
        let mut p = FieldPlan {
            kind,
            ..self.clone()
        };
        p.leaves(&mut first);
        p.first_leaf = first.first().copied().unwrap_or(NO_LEAF);
        Some(p)
    }
}

/// The plans of the top-level fields of a schema.
pub(crate) fn plan_fields(schema: &SchemaDescriptor) -> Result<Vec<FieldPlan>> {
    let b = PlanBuilder { schema };
    schema
        .top_level_fields()
        .iter()
        .map(|n| b.node(n, 0, 0, Slot { def: 0, rep: 0 }, false))
        .collect()
}

#[derive(Clone, Copy)]
struct Slot {
    def: i16,
    rep: i16,
}

struct PlanBuilder<'a> {
    schema: &'a SchemaDescriptor,
}

fn is_list(e: &crate::metadata::SchemaElement) -> bool {
    matches!(e.logical_type, Some(LogicalType::List))
        || e.converted_type == Some(ConvertedType::LIST)
}

fn is_map(e: &crate::metadata::SchemaElement) -> bool {
    matches!(e.logical_type, Some(LogicalType::Map))
        || matches!(
            e.converted_type,
            Some(ConvertedType::MAP | ConvertedType::MAP_KEY_VALUE)
        )
}

impl PlanBuilder<'_> {
    fn element(&self, n: &SchemaNode) -> &crate::metadata::SchemaElement {
        &self.schema.elements()[n.schema_index]
    }

    fn error(&self, n: &SchemaNode, what: &str) -> Error {
        Error::format(format!(
            "schema element {} ({:?}): {what}",
            n.schema_index, n.name
        ))
    }

    /// The plan of `n`, whose parent is defined at `def` with repetition level `rep`, and
    /// whose slots start by `slot`. With `as_required`, `n`'s own repetition is ignored (it
    /// is the element of a 2-level list, or of a list made from a bare repeated field).
    fn node(
        &self,
        n: &SchemaNode,
        def: i16,
        rep: i16,
        slot: Slot,
        as_required: bool,
    ) -> Result<FieldPlan> {
        let e = self.element(n);
        let repetition = if as_required {
            FieldRepetitionType::REQUIRED
        } else {
            n.repetition
        };
        if repetition == FieldRepetitionType::REPEATED {
            // A repeated field outside a LIST: a required list of required elements.
            let (def_elem, rep_elem) = (def + 1, rep + 1);
            let child = self.node(
                n,
                def_elem,
                rep_elem,
                Slot {
                    def: def_elem,
                    rep: rep_elem,
                },
                true,
            )?;
            return Ok(FieldPlan {
                name: n.name.clone(),
                nullable: false,
                field_id: e.field_id,
                def_slot: slot.def,
                rep_slot: slot.rep,
                def_valid: def,
                first_leaf: child.first_leaf,
                kind: PlanKind::List {
                    def_elem,
                    rep_elem,
                    child: Box::new(child),
                    map: false,
                },
            });
        }
        let nullable = repetition == FieldRepetitionType::OPTIONAL;
        let def = def + nullable as i16;
        let base = |kind: PlanKind, first_leaf: usize| FieldPlan {
            name: n.name.clone(),
            nullable,
            field_id: e.field_id,
            def_slot: slot.def,
            rep_slot: slot.rep,
            def_valid: def,
            first_leaf,
            kind,
        };
        match &n.kind {
            SchemaNodeKind::Leaf(column) => {
                let d = self.schema.leaf(*column);
                if d.max_def_level != def || d.max_rep_level != rep {
                    return Err(self.error(n, "levels disagree with the schema tree"));
                }
                Ok(base(
                    PlanKind::Leaf {
                        column: *column,
                        primitive: d.primitive(),
                    },
                    *column,
                ))
            }
            SchemaNodeKind::Group(children) if is_list(e) || is_map(e) => {
                let map = is_map(e);
                let [r] = children.as_slice() else {
                    return Err(self.error(
                        n,
                        &format!(
                            "a {} group must hold exactly one repeated field, not {}",
                            if map { "MAP" } else { "LIST" },
                            children.len()
                        ),
                    ));
                };
                if r.repetition != FieldRepetitionType::REPEATED {
                    return Err(self.error(
                        n,
                        &format!(
                            "the field of a {} group must be repeated",
                            if map { "MAP" } else { "LIST" }
                        ),
                    ));
                }
                let (def_elem, rep_elem) = (def + 1, rep + 1);
                let elem_slot = Slot {
                    def: def_elem,
                    rep: rep_elem,
                };
                // A MAP whose key_value group holds only a key (parquet-testing's
                // `map_no_value`) reads as a list of its keys, as pyarrow reads it.
                let map = map && r.children().len() != 1;
                let child = if map {
                    if r.is_leaf() {
                        return Err(self.error(n, "the repeated field of a MAP must be a group"));
                    }
                    if r.children().is_empty() || r.children().len() > 2 {
                        return Err(self.error(
                            n,
                            &format!(
                                "a map's key_value group holds {} fields, not 2",
                                r.children().len()
                            ),
                        ));
                    }
                    // The key_value group is a struct whatever it is annotated with (legacy
                    // files put MAP_KEY_VALUE on it).
                    let entries = r
                        .children()
                        .iter()
                        .map(|c| self.node(c, def_elem, rep_elem, elem_slot, false))
                        .collect::<Result<Vec<_>>>()?;
                    FieldPlan {
                        name: r.name.clone(),
                        nullable: false,
                        field_id: self.element(r).field_id,
                        def_slot: def_elem,
                        rep_slot: rep_elem,
                        def_valid: def_elem,
                        first_leaf: entries
                            .iter()
                            .map(|c| c.first_leaf)
                            .find(|&f| f != NO_LEAF)
                            .unwrap_or(NO_LEAF),
                        kind: PlanKind::Struct(entries),
                    }
                } else {
                    let two_level = r.is_leaf()
                        || r.children().len() > 1
                        || r.name == "array"
                        || r.name == format!("{}_tuple", n.name);
                    if r.children().is_empty() && !r.is_leaf() {
                        return Err(self.error(n, "a list's repeated group has no fields"));
                    }
                    if two_level {
                        self.node(r, def_elem, rep_elem, elem_slot, true)?
                    } else {
                        self.node(&r.children()[0], def_elem, rep_elem, elem_slot, false)?
                    }
                };
                let first = child.first_leaf;
                Ok(base(
                    PlanKind::List {
                        def_elem,
                        rep_elem,
                        child: Box::new(child),
                        map,
                    },
                    first,
                ))
            }
            SchemaNodeKind::Group(children) => {
                let children = children
                    .iter()
                    .map(|c| self.node(c, def, rep, slot, false))
                    .collect::<Result<Vec<_>>>()?;
                let first = children
                    .iter()
                    .map(|c| c.first_leaf)
                    .find(|&f| f != NO_LEAF)
                    .unwrap_or(NO_LEAF);
                Ok(base(PlanKind::Struct(children), first))
            }
        }
    }
}
