//! Record assembly (`parq::read::testing::assemble_leaf_levels`) against a naive oracle
//! (`tests/it/support_nested/oracle.rs`), over random nested schemas of depth up to 4 (structs
//! required/optional/repeated, 3-level and legacy 2-level LISTs, MAP and MAP_KEY_VALUE,
//! unannotated repeated fields):
//! - random valid records, shredded: the same records come back;
//! - the same levels damaged, and random levels: the same records, or both refuse.
//!
//! Where `assemble_levels` is more lenient than the oracle: when two leaves under one node
//! disagree (one says a struct is null, the other that it is defined; two leaves of one
//! list give it different lengths), the oracle refuses and assembly takes each node's shape
//! from the first leaf below it, as it does for speed (a node's offsets and validity are
//! computed once, from one leaf). That is sound for a reader: every array it returns has
//! consistent lengths (checked here by reading every slot), it never panics, and the first
//! leaf's shape is one a valid file could hold. Every level stream that is wrong on its
//! own (a level out of range, a record started with r > 0, a pair whose r says an
//! ancestor repeats where its d says the ancestor is undefined, counts that do not add
//! up) is refused by both.

use crate::oracle;

use oracle::{
    check, gen_garbage, gen_records, gen_schema, max_levels, mutate, resolve, Outcome, Picker,
};
use parq::schema::SchemaDescriptor;
use proptest::prelude::*;

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 2000,
        ..ProptestConfig::default()
    }
}

fn schema_of(p: &mut Picker<'_>, invalid: bool) -> SchemaDescriptor {
    let elements = gen_schema(p, 4, invalid);
    SchemaDescriptor::new(&elements).expect("the grammar gives well-formed element lists")
}

proptest! {
    #![proptest_config(config())]

    /// Valid records, shredded, come back as they were, from the oracle and from assembly.
    #[test]
    fn valid_records_round_trip(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let mut p = Picker::new(&bytes);
        let schema = schema_of(&mut p, false);
        for field in 0..schema.top_level_fields().len() {
            let (node, columns) = resolve(&schema, field).expect("a valid schema resolves");
            let n = p.pick(12);
            let (records, levels) = gen_records(&schema, &node, &columns, &mut p, n);
            let back = oracle::assemble(&schema, field, &levels).expect("shredded levels are valid");
            prop_assert_eq!(&back, &records, "oracle against the generator");
            prop_assert_eq!(check(&schema, field, &levels), Outcome::Equal);
        }
    }

    /// Damaged valid levels: equal, or both refuse (see the module doc for the leniency).
    #[test]
    fn damaged_levels_agree(bytes in prop::collection::vec(any::<u8>(), 0..600)) {
        let mut p = Picker::new(&bytes);
        let schema = schema_of(&mut p, false);
        for field in 0..schema.top_level_fields().len() {
            let (node, columns) = resolve(&schema, field).expect("a valid schema resolves");
            let n = p.pick(8);
            let (_, mut levels) = gen_records(&schema, &node, &columns, &mut p, n);
            mutate(&mut levels, &max_levels(&schema, &columns), &mut p);
            check(&schema, field, &levels);
        }
    }

    /// Random levels (mostly invalid), also on schemas the oracle refuses.
    #[test]
    fn random_levels_agree(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let mut p = Picker::new(&bytes);
        let schema = schema_of(&mut p, true);
        for field in 0..schema.top_level_fields().len() {
            let columns: Vec<usize> = (0..schema.num_columns())
                .filter(|&c| schema.leaf(c).top_level_field == field)
                .collect();
            let levels = gen_garbage(&max_levels(&schema, &columns), &mut p);
            check(&schema, field, &levels);
        }
    }
}

/// A schema the oracle refuses is refused by assembly too, and the other way round.
#[test]
fn schemas_refused_alike() {
    let mut refused = 0;
    for seed in 0..4000u32 {
        let bytes: Vec<u8> = (0..200u32)
            .map(|i| {
                (seed
                    .wrapping_mul(2654435761)
                    .wrapping_add(i.wrapping_mul(40503))
                    >> 7) as u8
            })
            .collect();
        let mut p = Picker::new(&bytes);
        let schema = schema_of(&mut p, true);
        for field in 0..schema.top_level_fields().len() {
            // A reader plans the whole schema: one bad field makes every field refused.
            let oracle = (0..schema.top_level_fields().len())
                .map(|f| resolve(&schema, f))
                .find(|r| r.is_err())
                .unwrap_or_else(|| resolve(&schema, field));
            let leaves = schema
                .leaves
                .iter()
                .filter(|l| l.top_level_field == field)
                .count();
            let input: Vec<(usize, &[i16], &[i16])> = vec![(0, &[][..], &[][..]); leaves];
            let got = parq::read::testing::assemble_leaf_levels(&schema, field, &input);
            assert_eq!(
                oracle.is_ok(),
                got.is_ok(),
                "{:?}\n{oracle:?}\n{got:?}",
                schema.display_tree()
            );
            refused += oracle.is_err() as usize;
        }
    }
    assert!(refused > 50, "the grammar made only {refused} bad schemas");
}

fn seeded(seed: u32, len: u32) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9) ^ 0x5bd1_e995;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x >> 24) as u8
        })
        .collect()
}

/// The generators reach deep schemas and every outcome: the properties above are not
/// vacuous.
#[test]
fn generators_reach_deep_data_and_every_outcome() {
    let (mut deepest_rep, mut deepest_def, mut records, mut max_pairs) = (0, 0, 0, 0);
    let mut outcomes = std::collections::BTreeMap::new();
    for seed in 0..3000 {
        let bytes = seeded(seed, 800);
        let mut p = Picker::new(&bytes);
        let schema = schema_of(&mut p, false);
        for l in &schema.leaves {
            deepest_rep = deepest_rep.max(l.max_rep_level);
            deepest_def = deepest_def.max(l.max_def_level);
        }
        for field in 0..schema.top_level_fields().len() {
            let (node, columns) = resolve(&schema, field).expect("valid");
            let n = 1 + p.pick(10);
            let (recs, mut levels) = gen_records(&schema, &node, &columns, &mut p, n);
            records += recs.len();
            max_pairs = max_pairs.max(levels.iter().map(|l| l.entries).max().unwrap_or(0));
            assert_eq!(check(&schema, field, &levels), Outcome::Equal);
            mutate(&mut levels, &max_levels(&schema, &columns), &mut p);
            *outcomes
                .entry(format!("{:?}", check(&schema, field, &levels)))
                .or_insert(0usize) += 1;
        }
    }
    eprintln!(
        "max rep {deepest_rep}, max def {deepest_def}, {records} records, up to {max_pairs} pairs a leaf; damaged: {outcomes:?}"
    );
    assert!(deepest_rep >= 4 && deepest_def >= 8, "shallow schemas");
    for o in [
        "Equal",
        "BothRefused",
        "LenientOnDangling",
        "LenientOnDisagreement",
    ] {
        assert!(
            outcomes.get(o).is_some_and(|&n| n > 0),
            "no {o}: {outcomes:?}"
        );
    }
}

/// The two leniencies of the module doc, one example each, pinned: when assembly turns
/// strict, these become `BothRefused`.
#[test]
fn leniencies_as_documented() {
    use oracle::{group, leaf, LeafLevels, OracleError};
    use parq::array::Value;
    use parq::metadata::{ConvertedType, FieldRepetitionType as R};
    let root = |n| oracle::group("schema", R::REQUIRED, n);
    let lv = |rep: &[i16], def: &[i16]| LeafLevels {
        entries: rep.len().max(def.len()),
        rep: rep.to_vec(),
        def: def.to_vec(),
    };
    let int = |i: i64| Value::Leaf(i.to_le_bytes().to_vec());
    let got = |schema: &SchemaDescriptor, levels: &[LeafLevels]| {
        let input: Vec<(usize, &[i16], &[i16])> = levels
            .iter()
            .map(|l| (l.entries, &l.rep[..], &l.def[..]))
            .collect();
        let a = parq::read::testing::assemble_leaf_levels(schema, 0, &input).unwrap();
        (0..a.len()).map(|i| a.value(i)).collect::<Vec<_>>()
    };

    // `repeated int64 x` (a required list of required int64, D = R = 1). (0, 0) is an empty
    // list; (1, 0) then claims a new element that its d says is absent (dangling); (1, 1)
    // appends to the list that was closed as empty. Assembly ignores (1, 0) and reads [0].
    let schema = SchemaDescriptor::new(&[root(1), leaf("x", R::REPEATED)]).unwrap();
    let levels = [lv(&[0, 1, 1], &[0, 0, 1])];
    assert!(matches!(
        oracle::assemble(&schema, 0, &levels),
        Err(OracleError::Dangling(_))
    ));
    assert_eq!(got(&schema, &levels), [Value::List(vec![int(0)])]);
    assert_eq!(check(&schema, 0, &levels), Outcome::LenientOnDangling);

    // `optional group l (LIST) { repeated int64 element }`: (0, 0) is a null list, (1, 2) an
    // element of it. Assembly reads null; the element stays in the child under the null
    // slot (Arrow allows a null list slot a non-empty range).
    let mut l = group("l", R::OPTIONAL, 1);
    l.converted_type = Some(ConvertedType::LIST);
    let schema = SchemaDescriptor::new(&[root(1), l, leaf("element", R::REPEATED)]).unwrap();
    let levels = [lv(&[0, 1, 0], &[0, 2, 2])];
    assert_eq!(
        got(&schema, &levels),
        [Value::Null, Value::List(vec![int(1)])]
    );
    assert_eq!(check(&schema, 0, &levels), Outcome::LenientOnDangling);

    // `optional group s { optional int64 a; optional int64 b }`: a says s is null (d = 0),
    // b says s is defined and b null (d = 1). Assembly takes s's validity from a.
    let schema = SchemaDescriptor::new(&[
        root(1),
        group("s", R::OPTIONAL, 2),
        leaf("a", R::OPTIONAL),
        leaf("b", R::OPTIONAL),
    ])
    .unwrap();
    let levels = [lv(&[], &[0]), lv(&[], &[1])];
    assert!(matches!(
        oracle::assemble(&schema, 0, &levels),
        Err(OracleError::LeavesDisagree(_))
    ));
    assert_eq!(got(&schema, &levels), [Value::Null]);
    assert_eq!(check(&schema, 0, &levels), Outcome::LenientOnDisagreement);
}
