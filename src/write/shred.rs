//! Shredding: a nested [`Array`] (Arrow layout) into, per leaf column, repetition and
//! definition levels and the leaf slots whose values are stored.
//!
//! One walk per top-level field visits every node once and emits into all leaves below it.
//! Struct slots are visited in runs of the struct's validity bitmap, list slots by spans:
//! - a run of null slots emits one pair per slot at the parent's definition level, into every
//!   leaf below (Arrow keeps children under null slots; Parquet stores nothing for them, so
//!   the walk never descends there);
//! - a run of valid struct slots descends into each child with the same run;
//! - a list's slots go by spans: consecutive lists, null, empty or not, whose child ranges
//!   are contiguous (only a null list over child slots breaks a span: Arrow keeps children
//!   under a null slot, Parquet stores nothing for them, so the walk skips them). The span's
//!   whole child range `offsets[k].start..offsets[j].end` is walked once (offsets need not
//!   start at 0: only the visited ranges matter), then each stretch of pairs between two null
//!   or empty lists is moved up to make room for their one pair each (at the list's own
//!   definition level when empty, one less when null), and each list's first pair gets its
//!   repetition level. One walk per span, not per list or per validity run: with 50 % null
//!   lists or a list below, those cost more than the levels themselves;
//! - a run of valid leaf slots emits one run of pairs at the max definition level and records
//!   the slot run, so values are later gathered one copy per run.
//!
//! The first pair of a visited range carries the repetition level handed down (0 for a new
//! record, or the level of the list that starts there); the rest carry the level at which
//! the range's own list continues.
//!
//! Where the lists of a span start among the walked pairs: below a child without lists, each
//! leaf has exactly one pair per child slot; below one with lists, a child slot starts at each
//! pair whose repetition level is no deeper than the child's (deeper levels continue a list
//! further down).
//!
//! A leaf with a validity bitmap takes its definition levels from the bitmap's words (the
//! null level plus the bit) and its stored runs from the runs of set bits.
//!
//! Probes: `write.shred_list_span` (a span of lists walked as one child range, no list below),
//! `write.shred_list_span_nested` (the same with lists below the child),
//! `write.shred_list_spread` (a span with null or empty lists, their pairs inserted),
//! `write.shred_leaf_bits` (a leaf's slots with a validity bitmap, levels from its words).

use std::ops::Range;

use arrow_buffer::{BooleanBuffer, NullBuffer};
use parq_codecs::kernels::memory::reserve_huge;
use parq_codecs::probe;

use crate::array::Array;
use crate::column::Column;
use crate::field::{DataType, Field};
use crate::{Error, Result};

/// The shredding plan of one field: its definition level, and which leaves are below it.
#[derive(Debug, Clone)]
pub(crate) struct Node {
    /// Dotted path of names, for errors.
    pub path: String,
    pub nullable: bool,
    /// The definition level of a valid slot (a null slot is at `def - 1`).
    pub def: u16,
    /// Indices of the leaves below, into the field's [`LeafLevels`].
    pub leaves: Range<usize>,
    pub kind: NodeKind,
}

#[derive(Debug, Clone)]
pub(crate) enum NodeKind {
    Leaf,
    Struct(Vec<Node>),
    /// A list or a map (whose child is the entries struct).
    List {
        /// Repetition level of the elements after the first.
        rep: u16,
        child: Box<Node>,
        /// No list below the child: one pair per child slot in every leaf.
        flat_child: bool,
        map: bool,
    },
}

impl Node {
    /// The plan of `field` under a parent at definition level `def` and repetition level
    /// `rep`; its leaves are numbered from `first_leaf` (0 for a top-level field: the
    /// numbers index the field's [`LeafLevels`]), and their max (definition, repetition)
    /// levels pushed to `levels`.
    pub(crate) fn plan(
        field: &Field,
        parent: &str,
        def: u16,
        rep: u16,
        first_leaf: usize,
        levels: &mut Vec<(u16, u16)>,
    ) -> Node {
        let path = if parent.is_empty() {
            field.name.clone()
        } else {
            format!("{parent}.{}", field.name)
        };
        let def = def + field.nullable as u16;
        let kind = match &field.data_type {
            DataType::Primitive(_) => {
                levels.push((def, rep));
                NodeKind::Leaf
            }
            DataType::Struct(children) => {
                let mut at = first_leaf;
                let children = children
                    .iter()
                    .map(|c| {
                        let n = Node::plan(c, &path, def, rep, at, levels);
                        at = n.leaves.end;
                        n
                    })
                    .collect();
                NodeKind::Struct(children)
            }
            DataType::List(child) | DataType::Map(child) => {
                let child = Node::plan(child, &path, def + 1, rep + 1, first_leaf, levels);
                NodeKind::List {
                    rep: rep + 1,
                    flat_child: !child.has_list(),
                    child: Box::new(child),
                    map: matches!(field.data_type, DataType::Map(_)),
                }
            }
        };
        let end = match &kind {
            NodeKind::Leaf => first_leaf + 1,
            NodeKind::Struct(c) => c.last().map_or(first_leaf, |c| c.leaves.end),
            NodeKind::List { child, .. } => child.leaves.end,
        };
        Node {
            path,
            nullable: field.nullable,
            def,
            leaves: first_leaf..end,
            kind,
        }
    }

    fn has_list(&self) -> bool {
        match &self.kind {
            NodeKind::Leaf => false,
            NodeKind::Struct(c) => c.iter().any(Node::has_list),
            NodeKind::List { .. } => true,
        }
    }

    fn invalid(&self, what: impl std::fmt::Display) -> Error {
        Error::InvalidArgument(format!("field {}: {what}", self.path))
    }

    /// Check that `array` has this node's shape and consistent lengths, and each leaf column
    /// its layout (`check_leaf(leaf index, column)`), before anything is shredded.
    pub(crate) fn check_shape(
        &self,
        array: &Array,
        check_leaf: &mut dyn FnMut(usize, &Column) -> Result<()>,
    ) -> Result<()> {
        if let Some(v) = array.validity() {
            if v.len() != array.len() {
                return Err(self.invalid(format!(
                    "validity of {} slots for {} slots",
                    v.len(),
                    array.len()
                )));
            }
        }
        match (&self.kind, array) {
            (NodeKind::Leaf, Array::Primitive(c)) => check_leaf(self.leaves.start, c),
            (NodeKind::Struct(children), Array::Struct(s)) => {
                if children.len() != s.children.len() {
                    return Err(self.invalid(format!(
                        "a struct of {} fields given {} children",
                        children.len(),
                        s.children.len()
                    )));
                }
                for (c, a) in children.iter().zip(&s.children) {
                    if a.len() != s.len {
                        return Err(c.invalid(format!(
                            "{} slots in a struct of {}",
                            a.len(),
                            s.len
                        )));
                    }
                    c.check_shape(a, check_leaf)?;
                }
                Ok(())
            }
            (NodeKind::List { child, map, .. }, Array::List(l) | Array::Map(l))
                if *map == matches!(array, Array::Map(_)) =>
            {
                let n = l.offsets.len();
                let end = if n == 0 {
                    0
                } else {
                    l.offsets.range(n - 1).end
                };
                if end > l.values.len() {
                    return Err(self.invalid(format!(
                        "offsets reach {end} in a child of {} slots",
                        l.values.len()
                    )));
                }
                child.check_shape(&l.values, check_leaf)
            }
            (kind, _) => {
                let want = match kind {
                    NodeKind::Leaf => "a primitive",
                    NodeKind::Struct(_) => "a struct",
                    NodeKind::List { map: true, .. } => "a map",
                    NodeKind::List { .. } => "a list",
                };
                Err(self.invalid(format!("expected {want} array")))
            }
        }
    }

    fn null_in_required(&self) -> Error {
        self.invalid("a null slot in a required field")
    }
}

/// The 8 bits of each byte value as 0/1 levels, LSB first.
static BYTE_LEVELS: [[u16; 8]; 256] = {
    let mut t = [[0u16; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut j = 0;
        while j < 8 {
            t[b][j] = ((b >> j) & 1) as u16;
            j += 1;
        }
        b += 1;
    }
    t
};

/// A run of leaf slots `[start, end)` of one column whose values are stored.
#[derive(Debug, Clone)]
pub(crate) struct Piece {
    pub column: Column,
    pub runs: Vec<(usize, usize)>,
}

/// The shredded levels and values of one leaf column, accumulated over batches.
#[derive(Debug, Clone, Default)]
pub(crate) struct LeafLevels {
    pub max_def: u16,
    pub max_rep: u16,
    /// Repetition levels (empty when `max_rep == 0`).
    pub rep: Vec<u16>,
    /// Definition levels (empty when `max_def == 0`).
    pub def: Vec<u16>,
    /// Level pairs.
    pub pairs: usize,
    /// Stored values (pairs at `max_def`).
    pub values: usize,
    /// Where the stored values are, one piece per shredded array.
    pub pieces: Vec<Piece>,
    /// Whether the last piece belongs to the array being shredded.
    open: bool,
}

impl LeafLevels {
    pub(crate) fn new(max_def: u16, max_rep: u16) -> Self {
        LeafLevels {
            max_def,
            max_rep,
            ..LeafLevels::default()
        }
    }

    /// Records (top-level rows) held.
    pub(crate) fn records(&self) -> usize {
        if self.max_rep == 0 {
            self.pairs
        } else {
            self.rep.iter().filter(|&&r| r == 0).count()
        }
    }

    /// `n` pairs: the first at repetition level `first`, the others at `cont`, all at
    /// definition level `def`.
    #[inline]
    fn emit(&mut self, first: u16, cont: u16, def: u16, n: usize) {
        if n == 0 {
            return;
        }
        self.emit_rep(first, cont, n);
        if self.max_def > 0 {
            self.def.extend(std::iter::repeat_n(def, n));
        }
        self.pairs += n;
    }

    /// The repetition levels of `n` pairs, the first at `first`, the others at `cont`.
    #[inline]
    fn emit_rep(&mut self, first: u16, cont: u16, n: usize) {
        if self.max_rep > 0 && n > 0 {
            self.rep.push(first);
            self.rep.extend(std::iter::repeat_n(cont, n - 1));
        }
    }

    /// One definition level per bit of `bits`: `null_def` for a null slot, one more for a
    /// valid one, 8 levels per byte of the bitmap from a table.
    fn push_def_bits(&mut self, bits: &BooleanBuffer, null_def: u16) {
        let base = [null_def; 8];
        let levels = |byte: u8| {
            let t = &BYTE_LEVELS[byte as usize];
            std::array::from_fn::<u16, 8, _>(|j| base[j] + t[j])
        };
        let chunks = bits.bit_chunks();
        for w in chunks.iter() {
            for byte in w.to_le_bytes() {
                self.def.extend_from_slice(&levels(byte));
            }
        }
        let (w, r) = (chunks.remainder_bits(), chunks.remainder_len());
        for (k, byte) in w.to_le_bytes().into_iter().enumerate().take(r.div_ceil(8)) {
            let n = (r - k * 8).min(8);
            self.def.extend_from_slice(&levels(byte)[..n]);
        }
    }

    /// One definition level per slot: `base`, plus one where `outer` is set, plus one more
    /// where `inner` (a subset of `outer`) is set; 8 levels per byte pair from a table.
    fn push_def_two(&mut self, outer: &BooleanBuffer, inner: &BooleanBuffer, base: u16) {
        let mut put = |x: u8, y: u8, n: usize| {
            let (t, u) = (&BYTE_LEVELS[x as usize], &BYTE_LEVELS[y as usize]);
            let levels: [u16; 8] = std::array::from_fn(|j| base + t[j] + u[j]);
            self.def.extend_from_slice(&levels[..n]);
        };
        let (a, b) = (outer.bit_chunks(), inner.bit_chunks());
        for (x, y) in a.iter().zip(b.iter()) {
            for (x, y) in x.to_le_bytes().into_iter().zip(y.to_le_bytes()) {
                put(x, y, 8);
            }
        }
        let r = a.remainder_len();
        let (x, y) = (
            a.remainder_bits().to_le_bytes(),
            b.remainder_bits().to_le_bytes(),
        );
        for k in 0..r.div_ceil(8) {
            put(x[k], y[k], (r - k * 8).min(8));
        }
    }

    #[inline]
    fn push_run(&mut self, column: &Column, a: usize, b: usize) {
        if !self.open {
            self.pieces.push(Piece {
                column: column.clone(),
                runs: Vec::new(),
            });
            self.open = true;
        }
        let runs = &mut self.pieces.last_mut().expect("opened above").runs;
        match runs.last_mut() {
            Some(last) if last.1 == a => last.1 = b,
            _ => runs.push((a, b)),
        }
        self.values += b - a;
    }

    /// Move everything `other` holds to the end of `self`.
    pub(crate) fn append(&mut self, other: &mut LeafLevels) {
        if self.pairs == 0 {
            std::mem::swap(&mut self.rep, &mut other.rep);
            std::mem::swap(&mut self.def, &mut other.def);
            std::mem::swap(&mut self.pieces, &mut other.pieces);
        } else {
            self.rep.append(&mut other.rep);
            self.def.append(&mut other.def);
            self.pieces.append(&mut other.pieces);
        }
        self.pairs += std::mem::take(&mut other.pairs);
        self.values += std::mem::take(&mut other.values);
        other.open = false;
    }

    /// Forget everything held (the buffers are kept for reuse).
    pub(crate) fn clear(&mut self) {
        self.rep.clear();
        self.def.clear();
        self.pieces.clear();
        self.pairs = 0;
        self.values = 0;
        self.open = false;
    }
}

/// A span of consecutive lists whose children were walked as one range, each list's first
/// pair at the continuation level of the elements: [`Span::spread`] then gives each list its
/// own first repetition level and puts one pair in place for each null or empty list.
struct Span {
    /// The list slots.
    lists: Range<usize>,
    /// The first child slot walked.
    start: usize,
    /// Child slots walked.
    children: usize,
    /// Null or empty lists in the span (one pair each, not walked).
    single: usize,
    /// The definition level of a valid list (an empty one's pair; a null one is one less).
    list_def: u16,
    /// The repetition level of the elements after a list's first.
    child_rep: u16,
    /// One pair per child slot (no list below the child).
    flat: bool,
}

impl Span {
    /// Rewrite the levels the child walk appended to `leaf` into the span's: from the back,
    /// each stretch of pairs between two null or empty lists moved up by the pairs still to
    /// be inserted before it (one move per stretch, not per list), one pair inserted for each
    /// null or empty list, and the first pair of each list set to `rep_at`. Below a flat
    /// child a list's pairs are its child slots; otherwise a child slot starts at each
    /// repetition level no deeper than the child's (deeper ones continue a list further
    /// down).
    fn spread(
        &self,
        leaf: &mut LeafLevels,
        l: &crate::array::ListArray,
        valid: &impl Fn(usize) -> bool,
        rep_at: &impl Fn(usize) -> u16,
    ) {
        if leaf.max_rep == 0 {
            return;
        }
        let end = leaf.rep.len();
        let has_def = leaf.max_def > 0;
        if self.single > 0 {
            leaf.rep.resize(end + self.single, 0);
            if has_def {
                leaf.def.resize(end + self.single, 0);
            }
            leaf.pairs += self.single;
        }
        // Walked pairs from `at` to `hi` are still to move up by `shift` (the pairs still to
        // be inserted before them); those before `at` have not been looked at.
        let (mut at, mut hi, mut shift) = (end, end, self.single);
        let flat_base = end - self.children;
        for m in self.lists.clone().rev() {
            let range = l.offsets.range(m);
            if range.is_empty() {
                if at < hi {
                    leaf.rep.copy_within(at..hi, at + shift);
                    if has_def {
                        leaf.def.copy_within(at..hi, at + shift);
                    }
                }
                hi = at;
                shift -= 1;
                leaf.rep[at + shift] = rep_at(m);
                if has_def {
                    leaf.def[at + shift] = self.list_def - (!valid(m)) as u16;
                }
                continue;
            }
            at = if self.flat {
                flat_base + range.start - self.start
            } else {
                self.slot_start(leaf, at, range.len())
            };
            leaf.rep[at] = rep_at(m);
        }
        // Every null or empty list had its pair inserted: what is left is in place.
        debug_assert_eq!(shift, 0);
    }

    /// Where the last `n` child slots ending at pair `end` begin.
    fn slot_start(&self, leaf: &LeafLevels, mut end: usize, n: usize) -> usize {
        let mut slots = 0;
        while slots < n {
            end -= 1;
            slots += (leaf.rep[end] <= self.child_rep) as usize;
        }
        end
    }
}

/// Shred all slots of `array` (checked by [`Node::check_shape`]) into `leaves`, one per leaf
/// of `node`, appending to what they hold.
pub(crate) fn shred(node: &Node, array: &Array, leaves: &mut [LeafLevels]) -> Result<()> {
    for l in leaves.iter_mut() {
        l.open = false;
    }
    // Each leaf gets about one pair per visited slot of its column, plus one per null or
    // empty ancestor: reserve that much once rather than grow by doubling.
    let mut sizes = vec![0f64; leaves.len()];
    leaf_lens(node, array, array.len() as f64, &mut sizes);
    // A chunk's levels are tens of MiB in fresh memory: huge pages take one page fault per
    // 2 MiB where 4 KiB pages take 512.
    for (l, n) in leaves.iter_mut().zip(sizes) {
        let n = n as usize + array.len();
        if l.max_rep > 0 {
            reserve_huge(&mut l.rep, n);
        }
        if l.max_def > 0 {
            reserve_huge(&mut l.def, n);
        }
    }
    walk(node, array, 0, array.len(), 0, 0, leaves)
}

/// An estimate of the slots of each leaf column visited when `visited` slots of `array`
/// (checked by [`Node::check_shape`]) are: list children in proportion to the child range
/// the list's offsets span.
fn leaf_lens(node: &Node, array: &Array, visited: f64, out: &mut [f64]) {
    match (&node.kind, array) {
        (NodeKind::Leaf, _) => out[node.leaves.start] = visited,
        (NodeKind::Struct(children), Array::Struct(s)) => {
            for (c, a) in children.iter().zip(&s.children) {
                leaf_lens(c, a, visited, out);
            }
        }
        (NodeKind::List { child, .. }, Array::List(l) | Array::Map(l)) => {
            let n = l.offsets.len();
            let span = if n == 0 {
                0
            } else {
                l.offsets.range(n - 1).end - l.offsets.range(0).start
            };
            let per_slot = span as f64 / n.max(1) as f64;
            leaf_lens(child, &l.values, visited * per_slot, out)
        }
        _ => {}
    }
}

/// Call `f(valid, start, end)` for each run of valid or null slots of `[s, e)`.
#[inline]
fn for_runs(
    validity: Option<&NullBuffer>,
    s: usize,
    e: usize,
    mut f: impl FnMut(bool, usize, usize) -> Result<()>,
) -> Result<()> {
    match validity {
        None => f(true, s, e),
        Some(v) => {
            let bits = v.inner().slice(s, e - s);
            let mut at = 0;
            for (a, b) in bits.set_slices() {
                if a > at {
                    f(false, s + at, s + a)?;
                }
                f(true, s + a, s + b)?;
                at = b;
            }
            if at < e - s {
                f(false, s + at, e)?;
            }
            Ok(())
        }
    }
}

/// Shred slots `[s, e)` of a nullable struct with nulls (`validity`) whose children are all
/// leaves, each leaf over the whole range at once instead of once per run of valid structs
/// (a struct with 10 % nulls has a run every ten slots): its definition levels from the
/// struct's bitmap and its own together (8 levels per byte pair from a table), its stored
/// values by the runs of set bits of both (probe `write.shred_struct_leaves`). `false`, with
/// nothing shredded, when a child is not a leaf or a required child has a null in a valid
/// struct (the run by run walk reports that one).
#[allow(clippy::too_many_arguments)]
fn struct_of_leaves(
    children: &[Node],
    st: &crate::array::StructArray,
    validity: &NullBuffer,
    s: usize,
    e: usize,
    first: u16,
    cont: u16,
    leaves: &mut [LeafLevels],
) -> bool {
    let outer = validity.inner().slice(s, e - s);
    let mut stored = Vec::with_capacity(children.len());
    for (c, ca) in children.iter().zip(&st.children) {
        let (NodeKind::Leaf, Array::Primitive(col)) = (&c.kind, ca) else {
            return false;
        };
        let both = match col.validity.as_ref() {
            Some(v) => &outer & &v.inner().slice(s, e - s),
            None => outer.clone(),
        };
        if !c.nullable && both.count_set_bits() != outer.count_set_bits() {
            return false;
        }
        stored.push((col, both));
    }
    probe::hit("write.shred_struct_leaves");
    for (c, (col, both)) in children.iter().zip(stored) {
        let leaf = &mut leaves[c.leaves.start];
        leaf.emit_rep(first, cont, e - s);
        // A null struct is at the child's level less one for the struct and, for a
        // nullable child, one for itself; a valid struct adds one, a stored value another.
        if c.nullable {
            leaf.push_def_two(&outer, &both, c.def - 2);
        } else {
            leaf.push_def_bits(&outer, c.def - 1);
        }
        leaf.pairs += e - s;
        for (a, b) in both.set_slices() {
            leaf.push_run(col, s + a, s + b);
        }
    }
    true
}

/// Shred slots `[s, e)` of `array`: the first pair at repetition level `first`, each later
/// slot's first pair at `cont`.
fn walk(
    node: &Node,
    array: &Array,
    s: usize,
    e: usize,
    first: u16,
    cont: u16,
    leaves: &mut [LeafLevels],
) -> Result<()> {
    if s >= e {
        return Ok(());
    }
    let rep_at = |a: usize| if a == s { first } else { cont };
    let null_run = |leaves: &mut [LeafLevels], a: usize, b: usize| {
        if !node.nullable {
            return Err(node.null_in_required());
        }
        for l in &mut leaves[node.leaves.clone()] {
            l.emit(rep_at(a), cont, node.def - 1, b - a);
        }
        Ok(())
    };
    match (&node.kind, array) {
        (NodeKind::Leaf, Array::Primitive(col)) => {
            let leaf = &mut leaves[node.leaves.start];
            let Some(validity) = col.validity.as_ref() else {
                leaf.emit(first, cont, node.def, e - s);
                leaf.push_run(col, s, e);
                return Ok(());
            };
            // The definition levels straight from the bitmap's words, the stored values by
            // its runs of set bits: no per-run level pushes.
            let bits = validity.inner().slice(s, e - s);
            if !node.nullable && bits.count_set_bits() != e - s {
                return Err(node.null_in_required());
            }
            probe::hit("write.shred_leaf_bits");
            leaf.emit_rep(first, cont, e - s);
            if leaf.max_def > 0 {
                leaf.push_def_bits(&bits, node.def - 1);
            }
            leaf.pairs += e - s;
            for (a, b) in bits.set_slices() {
                leaf.push_run(col, s + a, s + b);
            }
            Ok(())
        }
        (NodeKind::Struct(children), Array::Struct(st)) => {
            if let Some(v) = st.validity.as_ref().filter(|v| v.null_count() > 0) {
                if node.nullable && struct_of_leaves(children, st, v, s, e, first, cont, leaves) {
                    return Ok(());
                }
            }
            for_runs(st.validity.as_ref(), s, e, |valid, a, b| {
                if !valid {
                    return null_run(leaves, a, b);
                }
                for (c, ca) in children.iter().zip(&st.children) {
                    walk(c, ca, a, b, rep_at(a), cont, leaves)?;
                }
                Ok(())
            })
        }
        (
            NodeKind::List {
                rep,
                child,
                flat_child,
                ..
            },
            Array::List(l) | Array::Map(l),
        ) => {
            let valid = |m: usize| l.validity.as_ref().is_none_or(|v| v.is_valid(m));
            let mut k = s;
            while k < e {
                // A span `[k, j)` of lists whose children form one contiguous range: any
                // list but a null one over child slots (Arrow keeps them, Parquet stores
                // nothing for them, so the walk must skip them).
                let start = l.offsets.range(k).start;
                let (mut j, mut end, mut single) = (k, start, 0);
                while j < e {
                    let range = l.offsets.range(j);
                    if !valid(j) {
                        if !node.nullable {
                            return Err(node.null_in_required());
                        }
                        if !range.is_empty() {
                            break;
                        }
                    }
                    single += range.is_empty() as usize;
                    end = range.end;
                    j += 1;
                }
                if j == k {
                    null_run(leaves, k, k + 1)?;
                    k += 1;
                    continue;
                }
                probe::hit(if *flat_child {
                    "write.shred_list_span"
                } else {
                    "write.shred_list_span_nested"
                });
                if single > 0 {
                    probe::hit("write.shred_list_spread");
                }
                walk(child, &l.values, start, end, rep_at(k), *rep, leaves)?;
                let span = Span {
                    lists: k..j,
                    start,
                    children: end - start,
                    single,
                    list_def: node.def,
                    child_rep: *rep,
                    flat: *flat_child,
                };
                for leaf in &mut leaves[node.leaves.clone()] {
                    span.spread(leaf, l, &valid, &rep_at);
                }
                k = j;
            }
            Ok(())
        }
        _ => Err(node.invalid("the array does not have the field's shape")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array::{ListArray, ListOffsets};
    use crate::column::Values;
    use crate::metadata::Type;
    use arrow_buffer::{OffsetBuffer, ScalarBuffer};

    fn list(offsets: &[i32], valid: Option<&[bool]>, values: Array) -> Array {
        Array::List(ListArray {
            validity: valid.map(|v| NullBuffer::from(v.to_vec())),
            offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(offsets.to_vec()))),
            values: Box::new(values),
        })
    }

    /// `list<list<int32>>` rows `[[1, 2], [], null, [3]]`, null (over the child list `[4]`),
    /// `[]`, `[[5, null]]`: spans over empty and null lists at both levels, a null outer list
    /// over child slots that must be skipped, and outer lists found among inner pairs.
    #[test]
    fn spans_insert_null_and_empty_lists_and_skip_children_of_null_lists() {
        let field = Field::list(
            "a",
            Field::list("element", Field::primitive("element", Type::INT32)),
        );
        let items = Array::Primitive(Column {
            len: 6,
            validity: Some(NullBuffer::from(vec![true, true, true, true, true, false])),
            values: Values::Int32(ScalarBuffer::from(vec![1, 2, 3, 4, 5, 0])),
        });
        let inner_valid = [true, true, false, true, true, true];
        let inner = list(&[0, 2, 2, 2, 3, 4, 6], Some(&inner_valid), items);
        let outer_valid = [true, false, true, true];
        let array = list(&[0, 4, 5, 5, 6], Some(&outer_valid), inner);
        let mut levels = Vec::new();
        let node = Node::plan(&field, "", 0, 0, 0, &mut levels);
        assert_eq!(levels, [(5, 2)]);
        let mut leaves = vec![LeafLevels::new(5, 2)];
        shred(&node, &array, &mut leaves).unwrap();
        let leaf = &leaves[0];
        assert_eq!(leaf.rep, [0, 2, 1, 1, 1, 0, 0, 0, 2]);
        assert_eq!(leaf.def, [5, 5, 3, 2, 5, 0, 1, 5, 4]);
        assert_eq!(leaf.pairs, 9);
        assert_eq!(leaf.values, 4);
        assert_eq!(leaf.pieces.len(), 1);
        assert_eq!(leaf.pieces[0].runs, [(0, 3), (4, 5)]);
        assert_eq!(leaf.records(), 4);
    }

    /// A nullable struct `{x: int32, y: required int32}` of 10 slots, null at 1, 2 and 9:
    /// each leaf shredded once over the whole range, levels and stored runs as the run by run
    /// walk gives them. A null `y` under a null struct is allowed; under a valid one it is
    /// an error (found by the run by run walk).
    #[test]
    fn structs_of_leaves_shred_each_leaf_over_the_range() {
        use crate::array::StructArray;
        let field = Field::structure(
            "a",
            vec![
                Field::primitive("x", Type::INT32),
                Field::primitive("y", Type::INT32).required(),
            ],
        );
        let column = |valid: Vec<bool>| {
            Array::Primitive(Column {
                len: 10,
                validity: Some(NullBuffer::from(valid)),
                values: Values::Int32(ScalarBuffer::from((0..10).collect::<Vec<i32>>())),
            })
        };
        let outer: Vec<bool> = (0..10).map(|i| ![1, 2, 9].contains(&i)).collect();
        let x_valid: Vec<bool> = (0..10).map(|i| i != 4 && i != 5).collect();
        let y_valid: Vec<bool> = (0..10).map(|i| i != 2).collect();
        let array = |y: Vec<bool>| {
            Array::Struct(StructArray {
                len: 10,
                validity: Some(NullBuffer::from(outer.clone())),
                children: vec![column(x_valid.clone()), column(y)],
            })
        };
        let mut levels = Vec::new();
        let node = Node::plan(&field, "", 0, 0, 0, &mut levels);
        assert_eq!(levels, [(2, 0), (1, 0)]);
        let mut leaves: Vec<_> = levels.iter().map(|&(d, r)| LeafLevels::new(d, r)).collect();
        probe::reset();
        shred(&node, &array(y_valid.clone()), &mut leaves).unwrap();
        // The counter only counts with `probes`; the levels below are checked either way.
        if probe::ENABLED {
            assert_eq!(probe::get("write.shred_struct_leaves"), 1);
        }
        assert_eq!(leaves[0].def, [2, 0, 0, 2, 1, 1, 2, 2, 2, 0]);
        assert_eq!(leaves[0].pieces[0].runs, [(0, 1), (3, 4), (6, 9)]);
        assert_eq!(leaves[1].def, [1, 0, 0, 1, 1, 1, 1, 1, 1, 0]);
        assert_eq!(leaves[1].pieces[0].runs, [(0, 1), (3, 9)]);
        assert_eq!((leaves[0].pairs, leaves[0].values), (10, 5));
        assert_eq!((leaves[1].pairs, leaves[1].values), (10, 7));
        // A null `y` in a valid struct.
        let mut y = y_valid;
        y[7] = false;
        let mut leaves: Vec<_> = levels.iter().map(|&(d, r)| LeafLevels::new(d, r)).collect();
        assert!(shred(&node, &array(y), &mut leaves).is_err());
    }

    /// A null slot in a required list is an error, wherever it is in a span.
    #[test]
    fn a_null_required_list_is_an_error() {
        let field = Field::list("a", Field::primitive("element", Type::INT32)).required();
        let items = Array::Primitive(Column {
            len: 2,
            validity: None,
            values: Values::Int32(ScalarBuffer::from(vec![1, 2])),
        });
        let array = list(&[0, 1, 1, 2], Some(&[true, false, true]), items);
        let mut levels = Vec::new();
        let node = Node::plan(&field, "", 0, 0, 0, &mut levels);
        let mut leaves: Vec<_> = levels.iter().map(|&(d, r)| LeafLevels::new(d, r)).collect();
        assert!(shred(&node, &array, &mut leaves).is_err());
    }
}
