//! Schemas: every leaf type parq writes, and trees of lists, structs and maps over them.
//!
//! [`leaf_types`] is the catalogue: the eight physical types and every logical annotation parq
//! writes (integers of every width and sign, decimals on INT32 / INT64 / FIXED_LEN_BYTE_ARRAY /
//! BYTE_ARRAY, dates, times and timestamps of every unit, strings, enums, JSON, BSON, UUID,
//! FLOAT16, INTERVAL, INT96, fixed-length byte arrays of several widths). [`gen_field`] and
//! [`field_strategy`] build trees of those leaves up to a nesting depth, required or optional
//! at every level. Field names are canonical (`f0`, `c1`, `element`, `key`, `value`) and
//! unique among siblings.

use proptest::prelude::*;

use super::leaves::LeafFilter;
use super::Entropy;
use crate::field::{DataType, Field, Primitive};
use crate::metadata::{ConvertedType, TimeUnit, Type};
use crate::write::Field as Leaf;

/// Every leaf type the generators use, as required fields named `leaf`.
pub fn leaf_types() -> Vec<Field> {
    use TimeUnit::*;
    let n = "leaf";
    let mut interval = Leaf::fixed_len_byte_array(n, 12);
    interval.converted_type = Some(ConvertedType::INTERVAL);
    let leaves = vec![
        Leaf::boolean(n),
        Leaf::int32(n),
        Leaf::int64(n),
        Leaf::int96(n),
        Leaf::float(n),
        Leaf::double(n),
        Leaf::byte_array(n),
        Leaf::fixed_len_byte_array(n, 1),
        Leaf::fixed_len_byte_array(n, 3),
        Leaf::fixed_len_byte_array(n, 8),
        Leaf::fixed_len_byte_array(n, 17),
        Leaf::string(n),
        Leaf::enumeration(n),
        Leaf::json(n),
        Leaf::bson(n),
        Leaf::uuid(n),
        Leaf::float16(n),
        interval,
        Leaf::date(n),
        Leaf::time(n, Millis, true),
        Leaf::time(n, Micros, false),
        Leaf::time(n, Nanos, true),
        Leaf::timestamp(n, Millis, true),
        Leaf::timestamp(n, Micros, false),
        Leaf::timestamp(n, Nanos, true),
        Leaf::timestamp(n, Nanos, false),
        Leaf::integer(n, 8, true),
        Leaf::integer(n, 16, true),
        Leaf::integer(n, 32, true),
        Leaf::integer(n, 64, true),
        Leaf::integer(n, 8, false),
        Leaf::integer(n, 16, false),
        Leaf::integer(n, 32, false),
        Leaf::integer(n, 64, false),
        Leaf::decimal(n, Type::INT32, 9, 2),
        Leaf::decimal(n, Type::INT32, 3, 0),
        Leaf::decimal(n, Type::INT64, 18, 4),
        Leaf::decimal(n, Type::INT64, 12, 12),
        Leaf::decimal_fixed(n, 16, 38, 10),
        Leaf::decimal_fixed(n, 5, 11, 2),
        Leaf::decimal_fixed(n, 1, 2, 1),
        Leaf::decimal(n, Type::BYTE_ARRAY, 20, 4),
        Leaf::decimal(n, Type::BYTE_ARRAY, 38, 0),
    ];
    leaves.into_iter().map(Field::from).collect()
}

/// The primitive of a leaf field.
pub fn primitive(field: &Field) -> Option<&Primitive> {
    match &field.data_type {
        DataType::Primitive(p) => Some(p),
        _ => None,
    }
}

/// A random leaf of the catalogue that `leaves` admits, named `name`, nullable or not.
pub fn gen_leaf(e: &mut dyn Entropy, name: &str, leaves: &LeafFilter) -> Field {
    let mut f = e.pick(&leaves.admitted()).clone();
    f.name = name.to_string();
    f.nullable = e.below(2) == 1;
    f
}

/// A random field of nesting depth at most `depth` (a primitive is depth 0); lists, structs
/// (1 to 3 children) and maps (a required primitive key) are equally likely, and each level
/// is nullable or not.
pub fn gen_field(e: &mut dyn Entropy, depth: usize, name: &str, leaves: &LeafFilter) -> Field {
    // Zeros (a fuzzer's exhausted input) give a leaf.
    if depth == 0 || e.below(4) == 0 {
        return gen_leaf(e, name, leaves);
    }
    let f = match e.below(3) {
        0 => Field::list(name, gen_field(e, depth - 1, "element", leaves)),
        1 => {
            let n = 1 + e.below(3) as usize;
            let children = (0..n)
                .map(|i| gen_field(e, depth - 1, &format!("c{i}"), leaves))
                .collect();
            Field::structure(name, children)
        }
        _ => Field::map(
            name,
            gen_leaf(e, "key", leaves),
            gen_field(e, depth - 1, "value", leaves),
        ),
    };
    if e.below(2) == 1 {
        f.optional()
    } else {
        f.required()
    }
}

/// `count` top-level fields named `f0`, `f1`, ..., of the leaf types `leaves` admits.
pub fn gen_schema(
    e: &mut dyn Entropy,
    count: usize,
    depth: usize,
    leaves: &LeafFilter,
) -> Vec<Field> {
    (0..count)
        .map(|i| gen_field(e, depth, &format!("f{i}"), leaves))
        .collect()
}

/// A leaf of the catalogue that `leaves` admits, nullable or not (named `leaf`;
/// [`schema_strategy`] renames).
pub fn leaf_strategy(leaves: &LeafFilter) -> impl Strategy<Value = Field> {
    (prop::sample::select(leaves.admitted()), any::<bool>()).prop_map(|(mut f, nullable)| {
        f.nullable = nullable;
        f
    })
}

/// A field of nesting depth at most `depth`: leaves, lists, structs of 1 to 3 children and
/// maps, each level required or optional. Shrinks towards leaves.
pub fn field_strategy(depth: u32, leaves: &LeafFilter) -> impl Strategy<Value = Field> {
    let leaves = *leaves;
    leaf_strategy(&leaves).prop_recursive(depth, 16, 3, move |inner| {
        (
            prop_oneof![
                inner.clone().prop_map(|e| Field::list("list", e)),
                prop::collection::vec(inner.clone(), 1..=3)
                    .prop_map(|c| Field::structure("struct", c)),
                (leaf_strategy(&leaves), inner).prop_map(|(k, v)| Field::map("map", k, v)),
            ],
            any::<bool>(),
        )
            .prop_map(|(f, nullable)| if nullable { f.optional() } else { f.required() })
    })
}

/// `fields` top-level fields (a range: `1..=4`) of depth at most `depth`, of the leaf types
/// `leaves` admits, named canonically.
pub fn schema_strategy(
    fields: std::ops::RangeInclusive<usize>,
    depth: u32,
    leaves: &LeafFilter,
) -> impl Strategy<Value = Vec<Field>> {
    prop::collection::vec(field_strategy(depth, leaves), fields).prop_map(|mut fs| {
        for (i, f) in fs.iter_mut().enumerate() {
            rename(f, format!("f{i}"));
        }
        fs
    })
}

/// Give `field` the name `name` and its descendants the canonical names.
fn rename(field: &mut Field, name: String) {
    field.name = name;
    match &mut field.data_type {
        DataType::Primitive(_) => {}
        DataType::List(e) => rename(e, "element".into()),
        DataType::Struct(c) => {
            for (i, c) in c.iter_mut().enumerate() {
                rename(c, format!("c{i}"));
            }
        }
        DataType::Map(entries) => {
            entries.name = "key_value".into();
            if let DataType::Struct(kv) = &mut entries.data_type {
                for (c, n) in kv.iter_mut().zip(["key", "value"]) {
                    rename(c, n.into());
                }
            }
        }
    }
}

/// The dotted paths of the leaves under `field` (as the writer's per-column options name
/// them: `f0.list.element`, `f1.key_value.key`) with their primitives, in schema order.
pub fn leaf_paths(field: &Field) -> Vec<(String, Primitive)> {
    let mut out = Vec::new();
    walk(field, String::new(), &mut out);
    out
}

fn walk(field: &Field, prefix: String, out: &mut Vec<(String, Primitive)>) {
    let path = if prefix.is_empty() {
        field.name.clone()
    } else {
        format!("{prefix}.{}", field.name)
    };
    match &field.data_type {
        DataType::Primitive(p) => out.push((path, p.clone())),
        DataType::List(e) => walk(e, format!("{path}.list"), out),
        DataType::Map(entries) => walk(entries, path, out),
        DataType::Struct(c) => {
            for c in c {
                walk(c, path.clone(), out);
            }
        }
    }
}

/// `field` with every level required (map entries are required anyway).
pub fn all_required(field: &Field) -> Field {
    let data_type = match &field.data_type {
        DataType::Primitive(p) => DataType::Primitive(p.clone()),
        DataType::List(e) => DataType::List(Box::new(all_required(e))),
        DataType::Map(e) => DataType::Map(Box::new(all_required(e))),
        DataType::Struct(c) => DataType::Struct(c.iter().map(all_required).collect()),
    };
    Field {
        data_type,
        nullable: false,
        ..field.clone()
    }
}

/// Nesting depth of `field` (a primitive is 0).
pub fn depth(field: &Field) -> usize {
    match &field.data_type {
        DataType::Primitive(_) => 0,
        DataType::Map(entries) => entries
            .children()
            .iter()
            .map(|c| depth(c))
            .max()
            .unwrap_or(0)
            .saturating_add(1),
        _ => 1 + field.children().iter().map(|c| depth(c)).max().unwrap_or(0),
    }
}
