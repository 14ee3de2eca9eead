//! Record assembly: the (repetition, definition) levels of a field's leaves into the offsets
//! and validity bitmaps of every list and struct above them (see [`super::plan`] for the
//! thresholds).
//!
//! Each node is computed once, from the levels of the first leaf below it, in one pass that
//! appends its offsets and validity straight onto their final buffers. An [`Assembly`] takes
//! runs of whole records one after the other, so that a whole-column read assembles page by
//! page (its levels stay in cache) into one output, the same code a batch of records uses.
//! The leaves' values were already decoded in leaf-slot layout (one slot per level pair that
//! reaches the leaf's parent), so a leaf's array is its decoded column, given at the end.

use arrow_buffer::{BooleanBufferBuilder, NullBuffer, OffsetBuffer, ScalarBuffer};
use parq_codecs::kernels::memory::reserve_huge;
use parq_codecs::{nested_levels, probe};

use crate::array::{Array, ListArray, ListOffsets, StructArray};
use crate::column::Column;
use crate::schema::plan::{FieldPlan, PlanKind};
use crate::{Error, Result};

/// The levels of one leaf for a run of whole records.
pub(crate) struct LeafView<'a> {
    pub column: usize,
    /// Level pairs in the run.
    pub entries: usize,
    /// The leaf's max repetition level.
    pub max_rep: i16,
    /// Repetition levels (empty when the leaf is not repeated: all 0).
    pub rep: &'a [i16],
    /// Definition levels (empty when the leaf's max level is 0: all 0).
    pub def: &'a [i16],
    /// The leaf's slots in the run, counted from its own levels.
    pub slots: usize,
}

impl LeafView<'_> {
    fn levels(&self) -> Levels<'_> {
        Levels {
            entries: self.entries,
            max_rep: self.max_rep,
            rep: self.rep,
            def: self.def,
        }
    }
}

#[derive(Clone, Copy)]
struct Levels<'a> {
    entries: usize,
    max_rep: i16,
    rep: &'a [i16],
    def: &'a [i16],
}

fn view<'v, 'a>(views: &'v [LeafView<'a>], column: usize) -> Result<&'v LeafView<'a>> {
    views
        .iter()
        .find(|v| v.column == column)
        .ok_or_else(|| Error::format(format!("leaf column {column} missing from the assembly")))
}

fn mismatch(plan: &FieldPlan, want: usize, got: usize) -> Error {
    Error::format(format!(
        "field {:?}: its levels give {want} slots but a child holds {got}",
        plan.name
    ))
}

/// Assemble `plan`'s array of `slots` slots from one run of the leaves' levels and their
/// values (`(column, slots)` pairs, each taken once). Only `read::testing` assembles a
/// whole run at once (feature `internals`).
#[cfg(feature = "internals")]
pub(crate) fn assemble(
    plan: &FieldPlan,
    views: &[LeafView<'_>],
    slots: usize,
    values: &mut [(usize, Option<Column>)],
) -> Result<Array> {
    let mut asm = Assembly::new(plan);
    asm.append(plan, views, slots)?;
    asm.finish(plan, values)
}

/// A field's offsets and validity bitmaps, appended one run of whole records at a time.
/// It mirrors the field's plan, which every call is given again.
pub(crate) struct Assembly {
    node: Node,
}

enum Node {
    Leaf {
        len: usize,
    },
    Struct {
        len: usize,
        validity: Validity,
        children: Vec<Node>,
    },
    List {
        /// Each slot's first element, without the closing offset.
        offsets: Vec<i32>,
        /// Elements so far: the child's length.
        count: i32,
        validity: Validity,
        child: Box<Node>,
    },
}

impl Node {
    fn new(plan: &FieldPlan) -> Node {
        match &plan.kind {
            PlanKind::Leaf { .. } => Node::Leaf { len: 0 },
            PlanKind::Struct(children) => Node::Struct {
                len: 0,
                validity: Validity::default(),
                children: children.iter().map(Node::new).collect(),
            },
            PlanKind::List { child, .. } => Node::List {
                offsets: Vec::new(),
                count: 0,
                validity: Validity::default(),
                child: Box::new(Node::new(child)),
            },
        }
    }
}

/// A validity bitmap appended run by run. Runs without nulls only count until a run has a
/// null (or needs its bits computed); then the bits are materialised.
#[derive(Default)]
struct Validity {
    bits: Option<BooleanBufferBuilder>,
    len: usize,
    valid: usize,
}

impl Validity {
    fn append_valid(&mut self, n: usize) {
        if let Some(b) = &mut self.bits {
            b.append_n(n, true);
        }
        self.len += n;
        self.valid += n;
    }

    /// The builder to append `n` more bits to (counted by the caller with `counted`).
    fn builder(&mut self, n: usize) -> &mut BooleanBufferBuilder {
        let len = self.len;
        self.bits.get_or_insert_with(|| {
            let mut b = BooleanBufferBuilder::new(len + n);
            b.append_n(len, true);
            b
        })
    }

    fn counted(&mut self, n: usize, valid: usize) {
        self.len += n;
        self.valid += valid;
    }

    fn finish(self) -> Option<NullBuffer> {
        match self.bits {
            Some(mut b) if self.valid < self.len => Some(NullBuffer::new(b.finish())),
            _ => None,
        }
    }
}

impl Assembly {
    /// An empty assembly of `plan`'s field.
    pub(crate) fn new(plan: &FieldPlan) -> Assembly {
        Assembly {
            node: Node::new(plan),
        }
    }

    /// Append a run of `slots` whole records from the leaves' levels.
    pub(crate) fn append(
        &mut self,
        plan: &FieldPlan,
        views: &[LeafView<'_>],
        slots: usize,
    ) -> Result<()> {
        append(plan, &mut self.node, views, slots)
    }

    /// Each leaf's slots so far, in plan order: the values [`Self::finish`] expects.
    pub(crate) fn leaf_slots(&self, out: &mut Vec<usize>) {
        fn walk(node: &Node, out: &mut Vec<usize>) {
            match node {
                Node::Leaf { len } => out.push(*len),
                Node::Struct { children, .. } => children.iter().for_each(|c| walk(c, out)),
                Node::List { child, .. } => walk(child, out),
            }
        }
        walk(&self.node, out)
    }

    /// The array, with each leaf's values taken from `values` (`(column, values)`).
    pub(crate) fn finish(
        self,
        plan: &FieldPlan,
        values: &mut [(usize, Option<Column>)],
    ) -> Result<Array> {
        finish(plan, self.node, values)
    }
}

fn append(plan: &FieldPlan, node: &mut Node, views: &[LeafView<'_>], slots: usize) -> Result<()> {
    if plan.is_leafless() {
        append_leafless(plan, node, slots);
        return Ok(());
    }
    match (&plan.kind, node) {
        (PlanKind::Leaf { column, .. }, Node::Leaf { len }) => {
            let got = view(views, *column)?.slots;
            if got != slots {
                return Err(mismatch(plan, slots, got));
            }
            *len += slots;
        }
        (
            PlanKind::Struct(plans),
            Node::Struct {
                len,
                validity,
                children,
            },
        ) => {
            let levels = view(views, plan.first_leaf)?.levels();
            struct_validity(plan, levels, slots, validity)?;
            *len += slots;
            for (p, c) in plans.iter().zip(children) {
                append(p, c, views, slots)?;
            }
        }
        (
            PlanKind::List {
                def_elem,
                rep_elem,
                child: child_plan,
                ..
            },
            Node::List {
                offsets,
                count,
                validity,
                child,
            },
        ) => {
            let levels = view(views, plan.first_leaf)?.levels();
            let elem = (*def_elem, *rep_elem);
            let all_valid = no_nulls(levels, elem);
            let before = *count;
            *count = list_offsets(plan, elem, all_valid, levels, slots, before, offsets)?;
            list_validity(plan, all_valid, levels, slots, validity);
            append(child_plan, child, views, (*count - before) as usize)?;
        }
        _ => unreachable!("an assembly follows the plan it was made from"),
    }
    Ok(())
}

/// `slots` slots of a field with no leaf below it, which no level describes: null when it
/// is optional (pyarrow reads them so), valid when required; a list's are empty.
fn append_leafless(plan: &FieldPlan, node: &mut Node, slots: usize) {
    let mark = |validity: &mut Validity| {
        if plan.nullable {
            validity.builder(slots).append_n(slots, false);
            validity.counted(slots, 0);
        } else {
            validity.append_valid(slots);
        }
    };
    match (&plan.kind, node) {
        (
            PlanKind::Struct(plans),
            Node::Struct {
                len,
                validity,
                children,
            },
        ) => {
            mark(validity);
            *len += slots;
            for (p, c) in plans.iter().zip(children) {
                append_leafless(p, c, slots);
            }
        }
        (
            PlanKind::List { .. },
            Node::List {
                offsets,
                count,
                validity,
                ..
            },
        ) => {
            mark(validity);
            offsets.extend(std::iter::repeat_n(*count, slots));
        }
        // A leaf is never leafless; an assembly follows the plan it was made from.
        _ => {}
    }
}

fn finish(plan: &FieldPlan, node: Node, values: &mut [(usize, Option<Column>)]) -> Result<Array> {
    Ok(match (&plan.kind, node) {
        (PlanKind::Leaf { column, .. }, Node::Leaf { len }) => {
            let col = values
                .iter_mut()
                .find(|(c, _)| c == column)
                .and_then(|(_, v)| v.take())
                .ok_or_else(|| Error::format("a leaf's values missing from the assembly"))?;
            if col.len != len {
                return Err(mismatch(plan, len, col.len));
            }
            Array::Primitive(col)
        }
        (
            PlanKind::Struct(plans),
            Node::Struct {
                len,
                validity,
                children,
            },
        ) => Array::Struct(StructArray {
            len,
            validity: validity.finish(),
            children: plans
                .iter()
                .zip(children)
                .map(|(p, c)| finish(p, c, values))
                .collect::<Result<Vec<_>>>()?,
        }),
        (
            PlanKind::List {
                child: child_plan,
                map,
                ..
            },
            Node::List {
                mut offsets,
                count,
                validity,
                child,
            },
        ) => {
            offsets.push(count);
            // Monotonic and from 0 by construction (`count` never decreases). Checked with
            // the vectorised kernel, not `OffsetBuffer::new`'s loop of about 8 instructions
            // an offset (12M of a 1M-row list read).
            assert!(
                offsets[0] >= 0 && parq_codecs::kernels::byte_arrays::offsets_monotonic(&offsets),
                "list offsets built out of order"
            );
            // SAFETY: non-empty (the push above), non-negative and monotonic (just checked).
            let offsets = unsafe { OffsetBuffer::new_unchecked(ScalarBuffer::from(offsets)) };
            let list = ListArray {
                validity: validity.finish(),
                offsets: ListOffsets::Small(offsets),
                values: Box::new(finish(child_plan, *child, values)?),
            };
            if *map {
                Array::Map(list)
            } else {
                Array::List(list)
            }
        }
        _ => unreachable!("an assembly follows the plan it was made from"),
    })
}

/// A struct's validity, once for all its children.
fn struct_validity(
    plan: &FieldPlan,
    l: Levels<'_>,
    slots: usize,
    validity: &mut Validity,
) -> Result<()> {
    let (ds, rs, dv) = (plan.def_slot, plan.rep_slot, plan.def_valid);
    if l.def.is_empty() || dv <= ds {
        // A required struct: every slot it has is valid.
        probe::hit("nested.struct_all_valid");
        validity.append_valid(slots);
        return Ok(());
    }
    // Outside lists (rs >= the leaf's max repetition) every pair that reaches the struct's
    // parent is a slot.
    let rep = (rs < l.max_rep).then_some((l.rep, rs));
    let (n, valid) = nested_levels::slot_validity(l.def, rep, ds, dv, validity.builder(slots));
    validity.counted(n, valid);
    if n != slots {
        return Err(mismatch(plan, slots, n));
    }
    Ok(())
}

/// Append a run's list offsets (from `base` elements on) to `offsets`; returns the elements
/// after the run (the child's length).
fn list_offsets(
    plan: &FieldPlan,
    (de, re): (i16, i16),
    all_valid: bool,
    l: Levels<'_>,
    slots: usize,
    base: i32,
    offsets: &mut Vec<i32>,
) -> Result<i32> {
    let (ds, rs) = (plan.def_slot, plan.rep_slot);
    if l.entries > (i32::MAX - base) as usize {
        return Err(Error::Unsupported(format!(
            "list {:?} with more than {} elements in one read (read smaller batches)",
            plan.name,
            i32::MAX
        )));
    }
    if l.rep.len() != l.entries || l.def.len() != l.entries {
        return Err(Error::format(format!(
            "list {:?}: the levels of its first leaf are incomplete",
            plan.name
        )));
    }
    let start = offsets.len();
    // One more for the closing offset `finish` pushes: without it that push doubled a full
    // buffer (a copy of the batch's offsets).
    reserve_huge(offsets, slots + 1);
    let count = if all_valid {
        // The innermost list, every slot valid and every level pair an element: the offsets
        // are the positions of the pairs that start a slot (r <= rs).
        probe::hit("nested.list_offsets_from_rep");
        offsets.extend(
            l.rep
                .iter()
                .enumerate()
                .filter(|(_, &r)| r <= rs)
                .map(|(i, _)| base + i as i32),
        );
        base + l.entries as i32
    } else {
        probe::hit("nested.list_offsets_general");
        nested_levels::list_offsets(l.def, l.rep, (ds, rs), (de, re), l.max_rep, base, offsets)
    };
    if offsets.len() - start != slots {
        return Err(mismatch(plan, slots, offsets.len() - start));
    }
    Ok(count)
}

/// Every pair at or past the element level means no null or empty list at this level or
/// above (d >= de > dv >= ds), so every slot is valid.
fn no_nulls(l: Levels<'_>, (de, re): (i16, i16)) -> bool {
    re >= l.max_rep && nested_levels::all_at_least(l.def, de)
}

/// Append a run's list validity (its slot count was checked by [`list_offsets`]).
fn list_validity(
    plan: &FieldPlan,
    all_valid: bool,
    l: Levels<'_>,
    slots: usize,
    validity: &mut Validity,
) {
    let (ds, rs, dv) = (plan.def_slot, plan.rep_slot, plan.def_valid);
    if dv <= ds || all_valid || nested_levels::all_at_least(l.def, dv) {
        // No pair below the valid level: no null list here (there may be empty ones).
        validity.append_valid(slots);
        return;
    }
    let rep = (rs < l.max_rep).then_some((l.rep, rs));
    let (n, valid) = nested_levels::slot_validity(l.def, rep, ds, dv, validity.builder(slots));
    validity.counted(n, valid);
}
