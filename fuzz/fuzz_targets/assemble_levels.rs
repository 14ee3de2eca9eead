//! Record assembly from raw levels (`parq::read::testing::assemble_leaf_levels`) against the
//! naive oracle of `tests/it/support_nested/oracle.rs`.
//!
//! The input drives a small schema grammar (structs, 3-level and legacy 2-level LISTs, MAP
//! and MAP_KEY_VALUE, unannotated repeated fields, depth up to 4, now and then a malformed
//! group), picks a top-level field, then its leaves' levels, one of four ways:
//! - random records shredded (valid);
//! - the same, damaged a little;
//! - random levels in range (first r mostly 0);
//! - levels read straight from the bytes (out of range and negative too).
//!
//! Equal records when both assemble; assembly may refuse only what the oracle refuses, and
//! may accept what the oracle refuses only for the two documented leniencies (leaves that
//! disagree, dangling continuation pairs), with arrays of consistent lengths.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parq::schema::SchemaDescriptor;
use parq_fuzz::nested_oracle::{
    check, gen_garbage, gen_records, gen_schema, max_levels, mutate, resolve, LeafLevels, Picker,
};

fuzz_target!(|data: &[u8]| {
    let mut p = Picker::new(data);
    let mode = p.pick(4);
    let depth = 1 + p.pick(4);
    let elements = gen_schema(&mut p, depth, true);
    let Ok(schema) = SchemaDescriptor::new(&elements) else {
        return;
    };
    let field = p.pick(schema.top_level_fields().len());
    let columns: Vec<usize> = (0..schema.num_columns())
        .filter(|&c| schema.leaf(c).top_level_field == field)
        .collect();
    let max = max_levels(&schema, &columns);
    let resolved = resolve(&schema, field).ok();
    let levels = match (mode, resolved) {
        (0 | 1, Some((node, cols))) => {
            let n = p.pick(16);
            let (_, mut levels) = gen_records(&schema, &node, &cols, &mut p, n);
            // Keep a case small enough to run thousands a second.
            if levels.iter().map(|l| l.entries).sum::<usize>() > 1 << 14 {
                return;
            }
            if mode == 1 {
                mutate(&mut levels, &max, &mut p);
            }
            levels
        }
        (2, _) => gen_garbage(&max, &mut p),
        _ => max
            .iter()
            .map(|&(max_rep, max_def)| {
                let entries = p.pick(48);
                let mut level = |m: i16| -> Vec<i16> {
                    if m == 0 {
                        return Vec::new();
                    }
                    (0..entries)
                        .map(|_| match p.pick(40) {
                            0 => -1,
                            1 => m + 1,
                            _ => p.pick(m as usize + 1) as i16,
                        })
                        .collect()
                };
                let rep = level(max_rep);
                let def = level(max_def);
                LeafLevels { entries, rep, def }
            })
            .collect(),
    };
    check(&schema, field, &levels);
});
