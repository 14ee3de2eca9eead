//! Record assembly: the (repetition, definition) levels of a field's leaves into the offsets
//! and validity bitmaps of every list and struct above them (see [`super::plan`] for the
//! thresholds).
//!
//! Each node is computed once, from the levels of the first leaf below it, in one pass that
//! writes its offsets and validity straight into their final buffers. The leaves' values were
//! already decoded in leaf-slot layout (one slot per level pair that reaches the leaf's
//! parent), so a leaf's array is its decoded column.

use arrow_buffer::{BooleanBufferBuilder, NullBuffer, OffsetBuffer, ScalarBuffer};
use parq_codecs::{nested_levels, probe};

use crate::array::{Array, ListArray, ListOffsets, StructArray};
use crate::column::Column;
use crate::schema::plan::{FieldPlan, PlanKind};
use crate::{Error, Result};

/// The levels and values of one leaf for a run of whole records.
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
    /// The leaf's decoded slots; taken by the assembly.
    pub values: Option<Column>,
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

fn view<'v, 'a>(views: &'v mut [LeafView<'a>], column: usize) -> Result<&'v mut LeafView<'a>> {
    views
        .iter_mut()
        .find(|v| v.column == column)
        .ok_or_else(|| Error::format(format!("leaf column {column} missing from the assembly")))
}

fn mismatch(plan: &FieldPlan, want: usize, got: usize) -> Error {
    Error::format(format!(
        "field {:?}: its levels give {want} slots but a child holds {got}",
        plan.name
    ))
}

/// Assemble `plan`'s array of `slots` slots from the leaves' views.
pub(crate) fn assemble(
    plan: &FieldPlan,
    views: &mut [LeafView<'_>],
    slots: usize,
) -> Result<Array> {
    match &plan.kind {
        PlanKind::Leaf { column, .. } => {
            let v = view(views, *column)?;
            let col = v
                .values
                .take()
                .ok_or_else(|| Error::format("a leaf assembled twice"))?;
            if col.len != slots {
                return Err(mismatch(plan, slots, col.len));
            }
            Ok(Array::Primitive(col))
        }
        PlanKind::Struct(children) => {
            let levels = view(views, plan.first_leaf)?.levels();
            let validity = struct_validity(plan, levels, slots)?;
            let children = children
                .iter()
                .map(|c| assemble(c, views, slots))
                .collect::<Result<Vec<_>>>()?;
            Ok(Array::Struct(StructArray {
                len: slots,
                validity,
                children,
            }))
        }
        PlanKind::List {
            def_elem,
            rep_elem,
            child,
            map,
        } => {
            let levels = view(views, plan.first_leaf)?.levels();
            let (offsets, validity, count) =
                list_offsets(plan, *def_elem, *rep_elem, levels, slots)?;
            let values = Box::new(assemble(child, views, count)?);
            let list = ListArray {
                validity,
                offsets,
                values,
            };
            Ok(if *map {
                Array::Map(list)
            } else {
                Array::List(list)
            })
        }
    }
}

fn finish_validity(mut b: BooleanBufferBuilder, valid: usize, len: usize) -> Option<NullBuffer> {
    (valid < len).then(|| NullBuffer::new(b.finish()))
}

/// A struct's validity, once for all its children.
fn struct_validity(plan: &FieldPlan, l: Levels<'_>, slots: usize) -> Result<Option<NullBuffer>> {
    let (ds, rs, dv) = (plan.def_slot, plan.rep_slot, plan.def_valid);
    if l.def.is_empty() || dv <= ds {
        // A required struct: every slot it has is valid.
        probe::hit("nested.struct_all_valid");
        return Ok(None);
    }
    let mut b = BooleanBufferBuilder::new(slots);
    // Outside lists (rs >= the leaf's max repetition) every pair that reaches the struct's
    // parent is a slot.
    let rep = (rs < l.max_rep).then_some((l.rep, rs));
    let (n, valid) = nested_levels::slot_validity(l.def, rep, ds, dv, &mut b);
    if n != slots {
        return Err(mismatch(plan, slots, n));
    }
    Ok(finish_validity(b, valid, slots))
}

/// A list's offsets and validity, and the number of elements (its child's length).
fn list_offsets(
    plan: &FieldPlan,
    de: i16,
    re: i16,
    l: Levels<'_>,
    slots: usize,
) -> Result<(ListOffsets, Option<NullBuffer>, usize)> {
    let (ds, rs, dv) = (plan.def_slot, plan.rep_slot, plan.def_valid);
    if l.entries > i32::MAX as usize {
        return Err(Error::Unsupported(format!(
            "list {:?} with {} level pairs in one batch (read smaller batches)",
            plan.name, l.entries
        )));
    }
    if l.rep.len() != l.entries || l.def.len() != l.entries {
        return Err(Error::format(format!(
            "list {:?}: the levels of its first leaf are incomplete",
            plan.name
        )));
    }
    // Every pair at or past the element level means no null or empty list at this level or
    // above (d >= de > dv >= ds), so every slot is valid.
    let no_nulls = re >= l.max_rep && nested_levels::all_at_least(l.def, de);
    let (mut offsets, validity, count) = if no_nulls {
        // The innermost list, every slot valid and every level pair an element: the offsets
        // are the positions of the pairs that start a slot (r <= rs).
        probe::hit("nested.list_offsets_from_rep");
        let mut offsets: Vec<i32> = Vec::with_capacity(slots + 1);
        offsets.extend(
            l.rep
                .iter()
                .enumerate()
                .filter(|(_, &r)| r <= rs)
                .map(|(i, _)| i as i32),
        );
        (offsets, None, l.entries as i32)
    } else {
        probe::hit("nested.list_offsets_general");
        let mut offsets = Vec::with_capacity(slots + 1);
        let count = nested_levels::list_offsets(
            l.def,
            l.rep,
            (ds, rs),
            (de, re),
            l.max_rep,
            0,
            &mut offsets,
        );
        if offsets.len() != slots {
            return Err(mismatch(plan, slots, offsets.len()));
        }
        let validity = if dv <= ds {
            None
        } else {
            let mut b = BooleanBufferBuilder::new(slots);
            let rep = (rs < l.max_rep).then_some((l.rep, rs));
            let (_, valid) = nested_levels::slot_validity(l.def, rep, ds, dv, &mut b);
            finish_validity(b, valid, slots)
        };
        (offsets, validity, count)
    };
    if offsets.len() != slots {
        return Err(mismatch(plan, slots, offsets.len()));
    }
    offsets.push(count);
    // Monotonic by construction (`count` never decreases), as OffsetBuffer::new requires.
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    Ok((ListOffsets::Small(offsets), validity, count as usize))
}
