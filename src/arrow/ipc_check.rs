//! Checks an embedded `ARROW:schema` flatbuffer before arrow-ipc converts it.
//!
//! parq supports every Arrow major in its range (59 and 60). Both have
//! `arrow_ipc::convert::fb_to_schema`, but it panics on a malformed schema (a missing type
//! table, an unknown unit, a list without its child), and only 60 has the fallible
//! `try_fb_to_schema`. The schema comes from the file, so it is untrusted: this walk
//! rejects, with an error, every shape that `fb_to_schema` would panic on, so that the one
//! conversion both majors share is safe to call.

use arrow_ipc::{
    DateUnit, Endianness, Field, IntervalUnit, Precision, Schema, TimeUnit, Type, UnionMode,
};

use crate::{Error, Result};

use super::schema::ARROW_SCHEMA_META_KEY;

/// `Ok` when `fb_to_schema(schema)` cannot panic.
pub(crate) fn check_schema(schema: &Schema) -> Result<()> {
    let fields = schema
        .fields()
        .ok_or_else(|| malformed("the schema has no field list"))?;
    for field in fields {
        if schema.endianness() == Endianness::Big && field.type_type() == Type::Decimal {
            return Err(malformed("a big-endian Decimal"));
        }
        check_field(&field)?;
    }
    Ok(())
}

fn malformed(what: &str) -> Error {
    Error::format(format!("{ARROW_SCHEMA_META_KEY} is malformed: {what}"))
}

fn int_width_ok(width: i32) -> bool {
    matches!(width, 8 | 16 | 32 | 64)
}

fn check_field(field: &Field) -> Result<()> {
    if let Some(dictionary) = field.dictionary() {
        let index = dictionary
            .indexType()
            .ok_or_else(|| malformed("a dictionary without an index type"))?;
        if !int_width_ok(index.bitWidth()) {
            return Err(malformed("a dictionary index of an unknown width"));
        }
    }
    let children = field.children();
    let child_count = children.map_or(0, |c| c.len());
    let want_children = |n: usize, what: &str| -> Result<()> {
        if children.is_none() || child_count != n {
            return Err(malformed(what));
        }
        Ok(())
    };
    match field.type_type() {
        Type::Null
        | Type::Bool
        | Type::Binary
        | Type::BinaryView
        | Type::LargeBinary
        | Type::Utf8
        | Type::Utf8View
        | Type::LargeUtf8
        | Type::Struct_ => {}
        Type::Int => {
            let int = field
                .type_as_int()
                .ok_or_else(|| malformed("an Int without its table"))?;
            if !int_width_ok(int.bitWidth()) {
                return Err(malformed("an Int of an unknown width"));
            }
        }
        Type::FixedSizeBinary => {
            field
                .type_as_fixed_size_binary()
                .ok_or_else(|| malformed("a FixedSizeBinary without its table"))?;
        }
        Type::FloatingPoint => {
            let float = field
                .type_as_floating_point()
                .ok_or_else(|| malformed("a FloatingPoint without its table"))?;
            if !matches!(
                float.precision(),
                Precision::HALF | Precision::SINGLE | Precision::DOUBLE
            ) {
                return Err(malformed("a FloatingPoint of an unknown precision"));
            }
        }
        Type::Date => {
            let date = field
                .type_as_date()
                .ok_or_else(|| malformed("a Date without its table"))?;
            if !matches!(date.unit(), DateUnit::DAY | DateUnit::MILLISECOND) {
                return Err(malformed("a Date of an unknown unit"));
            }
        }
        Type::Time => {
            let time = field
                .type_as_time()
                .ok_or_else(|| malformed("a Time without its table"))?;
            let ok = matches!(
                (time.bitWidth(), time.unit()),
                (32, TimeUnit::SECOND)
                    | (32, TimeUnit::MILLISECOND)
                    | (64, TimeUnit::MICROSECOND)
                    | (64, TimeUnit::NANOSECOND)
            );
            if !ok {
                return Err(malformed("a Time of an unknown width or unit"));
            }
        }
        Type::Timestamp => {
            let ts = field
                .type_as_timestamp()
                .ok_or_else(|| malformed("a Timestamp without its table"))?;
            check_time_unit(ts.unit(), "a Timestamp of an unknown unit")?;
        }
        Type::Duration => {
            let d = field
                .type_as_duration()
                .ok_or_else(|| malformed("a Duration without its table"))?;
            check_time_unit(d.unit(), "a Duration of an unknown unit")?;
        }
        Type::Interval => {
            let interval = field
                .type_as_interval()
                .ok_or_else(|| malformed("an Interval without its table"))?;
            if !matches!(
                interval.unit(),
                IntervalUnit::YEAR_MONTH | IntervalUnit::DAY_TIME | IntervalUnit::MONTH_DAY_NANO
            ) {
                return Err(malformed("an Interval of an unknown unit"));
            }
        }
        Type::List | Type::LargeList | Type::ListView | Type::LargeListView => {
            want_children(1, "a list without exactly one child")?;
        }
        Type::FixedSizeList => {
            want_children(1, "a fixed-size list without exactly one child")?;
            field
                .type_as_fixed_size_list()
                .ok_or_else(|| malformed("a FixedSizeList without its table"))?;
        }
        Type::RunEndEncoded => {
            want_children(2, "a run-end encoded type without exactly two children")?;
        }
        Type::Map => {
            field
                .type_as_map()
                .ok_or_else(|| malformed("a Map without its table"))?;
            want_children(1, "a map without exactly one child")?;
        }
        Type::Decimal => {
            let decimal = field
                .type_as_decimal()
                .ok_or_else(|| malformed("a Decimal without its table"))?;
            if u8::try_from(decimal.precision()).is_err() || i8::try_from(decimal.scale()).is_err()
            {
                return Err(malformed("a Decimal precision or scale out of range"));
            }
            if !matches!(decimal.bitWidth(), 32 | 64 | 128 | 256) {
                return Err(malformed("a Decimal of an unknown width"));
            }
        }
        Type::Union => check_union(field, child_count)?,
        _ => return Err(malformed("a type arrow-ipc does not know")),
    }
    if let Some(children) = children {
        for child in children {
            check_field(&child)?;
        }
    }
    Ok(())
}

fn check_time_unit(unit: TimeUnit, what: &str) -> Result<()> {
    if matches!(
        unit,
        TimeUnit::SECOND | TimeUnit::MILLISECOND | TimeUnit::MICROSECOND | TimeUnit::NANOSECOND
    ) {
        Ok(())
    } else {
        Err(malformed(what))
    }
}

/// `UnionFields::from_fields` panics past 128 children, `try_new` on ids that do not match.
fn check_union(field: &Field, child_count: usize) -> Result<()> {
    let union = field
        .type_as_union()
        .ok_or_else(|| malformed("a Union without its table"))?;
    if !matches!(union.mode(), UnionMode::Dense | UnionMode::Sparse) {
        return Err(malformed("a Union of an unknown mode"));
    }
    match union.typeIds() {
        None => {
            if child_count > 128 {
                return Err(malformed("a Union of more than 128 children"));
            }
        }
        Some(ids) => {
            if ids.len() != child_count {
                return Err(malformed(
                    "a Union whose type ids do not match its children",
                ));
            }
            let mut seen = [false; 128];
            for id in ids.iter() {
                let slot = usize::try_from(id)
                    .ok()
                    .filter(|i| *i < 128)
                    .ok_or_else(|| malformed("a Union type id out of range"))?;
                if std::mem::replace(&mut seen[slot], true) {
                    return Err(malformed("a Union with a repeated type id"));
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use arrow_schema::{DataType, Field as ArrowField, Fields, Schema as ArrowSchema, TimeUnit};
    use base64::prelude::*;

    use super::check_schema;
    use crate::arrow::encode_arrow_schema;

    fn rich_schema() -> ArrowSchema {
        let item = Arc::new(ArrowField::new("item", DataType::Int32, true));
        ArrowSchema::new(vec![
            ArrowField::new("i", DataType::Int16, false),
            ArrowField::new("f", DataType::Float64, true),
            ArrowField::new("d", DataType::Decimal128(20, 3), true),
            ArrowField::new("t", DataType::Time64(TimeUnit::Nanosecond), true),
            ArrowField::new(
                "ts",
                DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
                true,
            ),
            ArrowField::new("l", DataType::List(item.clone()), true),
            ArrowField::new("fl", DataType::FixedSizeList(item, 3), true),
            ArrowField::new(
                "s",
                DataType::Struct(Fields::from(vec![ArrowField::new(
                    "a",
                    DataType::Date32,
                    true,
                )])),
                true,
            ),
            ArrowField::new_dictionary("dict", DataType::UInt8, DataType::Utf8, true),
        ])
    }

    /// Every one-byte change of a valid schema that the flatbuffer verifier accepts: the
    /// check refuses exactly what the conversion panics on, at either Arrow major (the
    /// panic is caught here, and its message silenced, only to observe it).
    #[test]
    fn check_refuses_exactly_what_the_conversion_panics_on() {
        let encoded = BASE64_STANDARD
            .decode(encode_arrow_schema(&rich_schema()))
            .unwrap();
        let message = &encoded[8..];
        let (mut verified, mut refused, mut disagreements) = (0, 0, Vec::new());
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        for at in 0..message.len() {
            for value in [0u8, 1, 2, 7, 0x40, 0x7f, 0xff] {
                let mut bytes = message.to_vec();
                bytes[at] = value;
                let Ok(message) = arrow_ipc::root_as_message(&bytes) else {
                    continue;
                };
                let Some(schema) = message.header_as_schema() else {
                    continue;
                };
                verified += 1;
                let checked = check_schema(&schema).is_ok();
                #[allow(deprecated)] // the shared API of Arrow 59 and 60
                let converted = std::panic::catch_unwind(|| {
                    arrow_ipc::convert::fb_to_schema(schema);
                })
                .is_ok();
                if checked != converted {
                    disagreements.push(format!("byte {at} set to {value:#x}: check {checked}"));
                }
                refused += usize::from(!checked);
            }
        }
        std::panic::set_hook(hook);
        assert!(disagreements.is_empty(), "{disagreements:?}");
        assert!(
            verified > 100 && refused > 10,
            "{verified} verified, {refused} refused"
        );
    }
}
