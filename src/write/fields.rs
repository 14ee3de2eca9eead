//! The writer's schema: a tree of [`crate::field::Field`]s (the model the reader resolves files
//! into) spelled as Parquet schema elements, the canonical way `LogicalTypes.md` asks writers
//! to spell them:
//!
//! ```text
//! <opt> group <name> (LIST) { repeated group list { <element> } }
//! <opt> group <name> (MAP)  { repeated group key_value { required <key>; <value> } }
//! <opt> group <name>        { <children> }                        (a struct)
//! ```
//!
//! The flat writer's [`options::Field`](super::options::Field) stays as the typed builder of
//! leaves (`Field::string`, `Field::timestamp`, ...); `impl From<options::Field> for
//! field::Field` puts such a leaf into a tree, so one set of constructors serves both.

use super::options::{self, converted_for};
use crate::field::{DataType, Field, Primitive};
use crate::metadata::{ConvertedType, FieldRepetitionType, LogicalType, SchemaElement};
use crate::{Error, Result};

/// A flat leaf as a field of the shared model. `REPEATED` (which the flat writer never
/// accepted) becomes what the reader makes of a bare repeated field: a required list of
/// required elements.
impl From<options::Field> for Field {
    fn from(f: options::Field) -> Field {
        let primitive = Primitive {
            physical_type: f.physical_type,
            type_length: f.type_length,
            logical_type: f.logical_type,
            converted_type: f.converted_type,
            scale: f.scale,
            precision: f.precision,
        };
        let leaf = Field {
            name: f.name.clone(),
            nullable: f.repetition == FieldRepetitionType::OPTIONAL,
            field_id: f.field_id,
            data_type: DataType::Primitive(primitive),
        };
        if f.repetition == FieldRepetitionType::REPEATED {
            let mut list = Field::list(f.name, leaf.required()).required();
            list.field_id = f.field_id;
            if let DataType::List(e) = &mut list.data_type {
                e.field_id = None;
            }
            list
        } else {
            leaf
        }
    }
}

impl options::Field {
    /// This leaf as a field of the shared model, to nest in lists, structs and maps.
    pub fn into_field(self) -> Field {
        self.into()
    }
}

fn repetition(nullable: bool) -> FieldRepetitionType {
    if nullable {
        FieldRepetitionType::OPTIONAL
    } else {
        FieldRepetitionType::REQUIRED
    }
}

fn group(name: &str, rep: FieldRepetitionType, children: usize) -> Result<SchemaElement> {
    Ok(SchemaElement {
        name: name.to_string(),
        repetition_type: Some(rep),
        num_children: Some(i32::try_from(children).map_err(|_| {
            Error::InvalidArgument(format!("group {name} with {children} children"))
        })?),
        ..SchemaElement::default()
    })
}

/// Append the schema elements of `field` (depth first) to `out`.
fn push(field: &Field, out: &mut Vec<SchemaElement>, depth: usize) -> Result<()> {
    let bad = |what: &str| {
        Err(Error::InvalidArgument(format!(
            "field {}: {what}",
            field.name
        )))
    };
    if depth > crate::schema::MAX_SCHEMA_DEPTH {
        return bad("nested deeper than a schema may be");
    }
    let rep = repetition(field.nullable);
    match &field.data_type {
        DataType::Primitive(p) => {
            let (mut converted, mut scale, mut precision) =
                (p.converted_type, p.scale, p.precision);
            if let (None, Some(lt)) = (converted, &p.logical_type) {
                // The spec asks for the converted type that goes with a logical type.
                let (c, s, pr) = converted_for(lt);
                converted = c;
                scale = scale.or(s);
                precision = precision.or(pr);
            }
            out.push(SchemaElement {
                type_: Some(p.physical_type),
                type_length: p.type_length,
                repetition_type: Some(rep),
                name: field.name.clone(),
                num_children: None,
                converted_type: converted,
                scale,
                precision,
                field_id: field.field_id,
                logical_type: p.logical_type.clone(),
                vector_length: None,
            });
        }
        DataType::Struct(children) => {
            if children.is_empty() {
                // The format allows such a group (segmentio's parquet-go writes them), but
                // pyarrow, the parquet crate and Spark refuse to, so a file parq writes
                // stays one they all read.
                return bad(
                    "a struct without fields: parq does not write a group without fields, \
                     which pyarrow, the parquet crate and Spark refuse to write",
                );
            }
            out.push(SchemaElement {
                field_id: field.field_id,
                ..group(&field.name, rep, children.len())?
            });
            for c in children {
                push(c, out, depth + 1)?;
            }
        }
        DataType::List(element) => {
            out.push(SchemaElement {
                field_id: field.field_id,
                converted_type: Some(ConvertedType::LIST),
                logical_type: Some(LogicalType::List),
                ..group(&field.name, rep, 1)?
            });
            out.push(group("list", FieldRepetitionType::REPEATED, 1)?);
            push(element, out, depth + 2)?;
        }
        DataType::Map(entries) => {
            let DataType::Struct(kv) = &entries.data_type else {
                return bad("a map's entries must be a struct of key and value");
            };
            if entries.nullable {
                return bad("a map's entries cannot be null (only the map can)");
            }
            if kv.is_empty() || kv.len() > 2 {
                return bad("a map's entries must hold a key and at most one value");
            }
            out.push(SchemaElement {
                field_id: field.field_id,
                converted_type: Some(ConvertedType::MAP),
                logical_type: Some(LogicalType::Map),
                ..group(&field.name, rep, 1)?
            });
            out.push(SchemaElement {
                field_id: entries.field_id,
                ..group(&entries.name, FieldRepetitionType::REPEATED, kv.len())?
            });
            for c in kv {
                push(c, out, depth + 2)?;
            }
        }
    }
    Ok(())
}

/// The schema elements of a file holding `fields`: a root named `schema`, then each field
/// depth first, lists and maps in their canonical 3-level spelling.
pub(crate) fn schema_elements(fields: &[Field]) -> Result<Vec<SchemaElement>> {
    let mut out =
        vec![SchemaElement {
            name: "schema".into(),
            num_children: Some(i32::try_from(fields.len()).map_err(|_| {
                Error::InvalidArgument(format!("{} top-level fields", fields.len()))
            })?),
            ..SchemaElement::default()
        }];
    for f in fields {
        push(f, &mut out, 1)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::Type;
    use crate::schema::SchemaDescriptor;

    #[test]
    fn canonical_spellings_read_back_as_the_same_fields() {
        let fields = vec![
            Field::list("ids", Field::primitive("element", Type::INT64)).with_field_id(3),
            Field::map(
                "m",
                options::Field::string("key").into(),
                Field::list("value", Field::primitive("element", Type::INT32).required()),
            ),
            Field::structure(
                "s",
                vec![
                    Field::primitive("a", Type::INT32).required(),
                    Field::structure("t", vec![Field::primitive("b", Type::DOUBLE)]),
                ],
            )
            .required(),
        ];
        let elements = schema_elements(&fields).unwrap();
        assert_eq!(elements[1].converted_type, Some(ConvertedType::LIST));
        assert_eq!(elements[2].name, "list");
        let schema = SchemaDescriptor::new(&elements).unwrap();
        assert_eq!(schema.fields().unwrap(), fields);
        let levels: Vec<(i16, i16)> = schema
            .leaves
            .iter()
            .map(|l| (l.max_def_level, l.max_rep_level))
            .collect();
        assert_eq!(levels, vec![(3, 1), (2, 1), (4, 2), (0, 0), (2, 0)]);
    }

    #[test]
    fn repeated_flat_leaf_is_a_required_list() {
        let f: Field = options::Field {
            repetition: FieldRepetitionType::REPEATED,
            ..options::Field::int32("x")
        }
        .into();
        assert!(!f.nullable);
        let DataType::List(e) = &f.data_type else {
            panic!("not a list")
        };
        assert!(!e.nullable);
    }

    #[test]
    fn shapes_parquet_cannot_hold_are_refused() {
        let empty = Field::structure("s", vec![]);
        assert!(matches!(
            schema_elements(&[empty]),
            Err(Error::InvalidArgument(_))
        ));
        let mut m = Field::map(
            "m",
            Field::primitive("k", Type::INT32),
            Field::primitive("v", Type::INT32),
        );
        if let DataType::Map(e) = &mut m.data_type {
            e.nullable = true;
        }
        assert!(matches!(
            schema_elements(&[m]),
            Err(Error::InvalidArgument(_))
        ));
    }
}
