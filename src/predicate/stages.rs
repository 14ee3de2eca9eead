//! A predicate's top-level AND evaluated conjunct by conjunct.
//!
//! The conjuncts are grouped into stages that read disjoint columns. Each stage decodes its
//! columns only for the rows the stages before it kept, so a selective cheap conjunct spares
//! the decoding of the others' columns. Stages run in order of rank: the time a stage takes
//! per row it decodes, over the share of rows it drops. Until every stage has been measured
//! the rank comes from the columns' physical types (fixed-width before byte arrays before
//! variant paths); after that from what the stages measured, row group by row group.
//!
//! Probes: `predicate.conjunct_stages` (an evaluation in two stages or more),
//! `predicate.stages_reordered` (the measured order differs from the first one),
//! `predicate.stage_by_selection` (a stage decodes only the rows left, not all of them) and
//! `predicate.stage_without_rows` (the stages left do not run: no row is left).

use std::sync::Mutex;
use std::time::Duration;

use parq_codecs::probe;

use super::Node;
use crate::metadata::Type;
use crate::schema::SchemaDescriptor;

/// The stages of a bound predicate, and what each measured so far.
#[derive(Debug)]
pub(crate) struct Stages {
    nodes: Vec<Node>,
    /// The order before anything is measured (a permutation of the stages).
    first_order: Vec<usize>,
    measured: Mutex<Vec<Measured>>,
}

/// What one stage did, summed over the evaluations that ran it.
#[derive(Debug, Default, Clone, Copy)]
struct Measured {
    /// Rows the stages before it kept.
    rows_in: u64,
    /// Rows it kept of those.
    rows_out: u64,
    /// Rows it decoded (all the rows pruning left where it decoded them all).
    rows_decoded: u64,
    nanos: u64,
}

impl Measured {
    /// Nanoseconds per decoded row over the share of rows dropped: lower runs first.
    fn rank(&self) -> f64 {
        let cost = self.nanos as f64 / self.rows_decoded.max(1) as f64;
        let dropped = 1.0 - self.rows_out as f64 / self.rows_in.max(1) as f64;
        cost / dropped.max(1e-3)
    }
}

impl Stages {
    /// `node` split into stages: the children of a top-level AND, those that share a column
    /// (or variant path) in one stage. Anything else is one stage.
    pub(crate) fn of(node: &Node, schema: &SchemaDescriptor) -> Stages {
        let nodes = match node {
            Node::And(children) => group_by_columns(children),
            n => vec![n.clone()],
        };
        let cost: Vec<u32> = nodes.iter().map(|n| static_cost(n, schema)).collect();
        let mut first_order: Vec<usize> = (0..nodes.len()).collect();
        first_order.sort_by_key(|&k| cost[k]);
        let measured = Mutex::new(vec![Measured::default(); nodes.len()]);
        Stages {
            nodes,
            first_order,
            measured,
        }
    }

    /// The stage `k`'s predicate.
    pub(crate) fn node(&self, k: usize) -> &Node {
        &self.nodes[k]
    }

    /// The order to run the stages in now.
    pub(crate) fn order(&self) -> Vec<usize> {
        if self.nodes.len() > 1 {
            probe::hit("predicate.conjunct_stages");
        }
        let measured = self.measured.lock().map(|m| m.clone()).unwrap_or_default();
        if measured.len() != self.nodes.len() || measured.iter().any(|m| m.rows_in == 0) {
            return self.first_order.clone();
        }
        let mut order = self.first_order.clone();
        order.sort_by(|&a, &b| measured[a].rank().total_cmp(&measured[b].rank()));
        if order != self.first_order {
            probe::hit("predicate.stages_reordered");
        }
        order
    }

    /// Stage `k` kept `rows_out` of `rows_in` rows, decoding `rows_decoded`, in `took`.
    pub(crate) fn record(
        &self,
        k: usize,
        (rows_in, rows_out, rows_decoded): (u64, u64, u64),
        took: Duration,
    ) {
        if let Ok(mut m) = self.measured.lock() {
            if let Some(m) = m.get_mut(k) {
                m.rows_in += rows_in;
                m.rows_out += rows_out;
                m.rows_decoded += rows_decoded;
                m.nanos += u64::try_from(took.as_nanos()).unwrap_or(u64::MAX);
            }
        }
    }
}

/// What a stage reads: its leaf columns and variant paths.
type Reads = (Vec<usize>, Vec<String>);

/// What `node` reads.
fn reads(node: &Node) -> Reads {
    let paths = node.variant_paths().iter().map(|v| v.dotted()).collect();
    (node.columns(), paths)
}

/// `children` in groups that share no column, each an AND of its members (or the member).
fn group_by_columns(children: &[Node]) -> Vec<Node> {
    let mut groups: Vec<(Vec<Node>, Reads)> = Vec::new();
    for child in children {
        let (mut columns, mut paths) = reads(child);
        let mut members = vec![child.clone()];
        // Absorb every group that shares a column with this child (transitively, since a
        // merged group's columns are this child's from then on).
        let mut k = 0;
        while k < groups.len() {
            let (c, p) = &groups[k].1;
            if c.iter().any(|x| columns.contains(x)) || p.iter().any(|x| paths.contains(x)) {
                let (m, (c, p)) = groups.remove(k);
                members.splice(0..0, m);
                columns.extend(c);
                paths.extend(p);
                k = 0;
            } else {
                k += 1;
            }
        }
        groups.push((members, (columns, paths)));
    }
    groups
        .into_iter()
        .map(|(mut members, _)| match members.len() {
            1 => members.pop().unwrap_or(Node::Const(true)),
            _ => Node::And(members),
        })
        .collect()
}

/// A stage's cost before it is measured: per column read, 1 for fixed width, 2 for fixed
/// length byte arrays, 4 for byte arrays, doubled under repetition or structs; 8 per
/// variant path.
fn static_cost(node: &Node, schema: &SchemaDescriptor) -> u32 {
    let (columns, paths) = reads(node);
    let per_column = |c: usize| {
        let leaf = schema.leaf(c);
        let width = match leaf.physical_type {
            Type::BYTE_ARRAY => 4,
            Type::FIXED_LEN_BYTE_ARRAY => 2,
            _ => 1,
        };
        if leaf.max_rep_level > 0 || leaf.max_def_level > 1 {
            2 * width
        } else {
            width
        }
    };
    columns.into_iter().map(per_column).sum::<u32>() + 8 * paths.len() as u32
}
