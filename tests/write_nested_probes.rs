//! The nested writer's fast paths are taken for the inputs that must take them (and the
//! general paths for the others). Run with `--features probes`.
#![cfg(feature = "probes")]

mod support_nested;

use parq::codecs::probe;
use parq::field::Field;
use parq::metadata::Type;
use parq::write::WriterOptions;
use support_nested::{build, random_value, write_arrays, Rng};

fn write(field: &Field, null_rate: f64) {
    let mut rng = Rng::new(11);
    let rows: Vec<_> = (0..2000)
        .map(|_| random_value(field, &mut rng, null_rate, 6))
        .collect();
    let array = build(field, &rows);
    probe::reset();
    write_arrays(
        std::slice::from_ref(field),
        &[vec![array]],
        WriterOptions::default(),
    );
}

#[test]
fn lists_of_leaves_are_shredded_by_spans() {
    // list<int64> with nulls at both levels: spans of lists, never one walk per list.
    write(
        &Field::list("a", Field::primitive("element", Type::INT64)),
        0.05,
    );
    assert!(probe::get("write.shred_list_span") > 0);
    assert_eq!(probe::get("write.shred_list_each"), 0);
    // A list of structs of leaves is flat below the list too.
    let s = Field::structure(
        "element",
        vec![
            Field::primitive("x", Type::INT32),
            Field::primitive("y", Type::DOUBLE),
        ],
    );
    write(&Field::list("a", s), 0.1);
    assert!(probe::get("write.shred_list_span") > 0);
    assert_eq!(probe::get("write.shred_list_each"), 0);
}

#[test]
fn lists_of_lists_walk_the_outer_list_by_list() {
    let inner = Field::list("element", Field::primitive("element", Type::INT32));
    write(&Field::list("a", inner), 0.0);
    assert!(probe::get("write.shred_list_each") > 0);
    // The inner lists still go by spans.
    assert!(probe::get("write.shred_list_span") > 0);
}

#[test]
fn uniform_levels_become_runs() {
    // Required lists of required values: every definition level is the max, so each group
    // of 8 joins a run; the repetition levels vary and are bit-packed.
    let f = Field::list("a", Field::primitive("element", Type::INT64).required()).required();
    write(&f, 0.0);
    assert!(probe::get("write.levels_run_group") > 0);
    assert!(probe::get("write.levels_packed_group") > 0);
}
