//! Reading shredded variants: rebuilding each row's value from its `value` and `typed_value`
//! columns (`VariantShredding.md`).
//!
//! The shredding tree of a variant group is compiled once into a [`Plan`] (which child is
//! `value`, which is `typed_value` and what Variant type each typed leaf becomes); an
//! unsupported typed leaf is an error there, before any row is read. Each row is then
//! rebuilt against its own metadata dictionary: unshredded parts are copied as encoded
//! bytes, shredded parts are encoded from their columns, and shredded object fields are
//! merged with the unshredded fields of the `value` object.
//!
//! What the spec forbids and how it reads here:
//! - `value` and `typed_value` both set for a primitive or an array: an error naming the row
//!   and the path.
//! - `typed_value` (an object) set while `value` is not an object: an error.
//! - a field in both the shredded fields and the `value` object: the shredded columns win
//!   (even when they say the field is missing), as the spec says a reader that reads such
//!   data must do.
//! - both null for an array element (which must be present): Variant null.
//! - both null at the top of a non-null variant: Variant null.

use std::fmt::Write as _;

use arrow_buffer::{Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::decode::VariantRef;
use super::encode::{ArrayWriter, ObjectWriter};
use super::metadata::{MetadataBuilder, MetadataCache, VariantMetadata};
use super::shredded_type::ShreddedType;
use super::variant_error;
use crate::array::{Array, StructArray};
use crate::column::{Column, Values};
use crate::field::{DataType, Field};
use crate::metadata::Type;
use crate::{Error, Result};

/// A column of variants: per row, an encoded metadata and value (Arrow binary layout, the
/// storage of the `arrow.parquet.variant` extension type).
#[derive(Clone, Debug)]
pub struct VariantArray {
    /// Which rows hold a variant (`None`: all do). A null row has empty metadata and value.
    pub validity: Option<NullBuffer>,
    /// The metadata of each row (`Values::Binary`).
    pub metadata: Column,
    /// The value of each row (`Values::Binary`).
    pub value: Column,
}

impl VariantArray {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.metadata.len
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether row `i` is a variant (not null).
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity.as_ref().is_none_or(|v| v.is_valid(i))
    }

    /// The decoded variant of row `i`; `None` for a null row.
    pub fn get(&self, i: usize) -> Option<Result<VariantRef<'_>>> {
        if !self.is_valid(i) {
            return None;
        }
        let m = self.metadata.bytes(i).unwrap_or_default();
        let v = self.value.bytes(i).unwrap_or_default();
        Some(VariantMetadata::new(m).and_then(|m| VariantRef::new(m, v)))
    }

    /// The encoded metadata and value of row `i`; `None` for a null row.
    pub fn encoded(&self, i: usize) -> Option<(&[u8], &[u8])> {
        self.is_valid(i).then(|| {
            (
                self.metadata.bytes(i).unwrap_or_default(),
                self.value.bytes(i).unwrap_or_default(),
            )
        })
    }

    /// The rows of `parts`, one after the other.
    pub fn concat(parts: &[VariantArray]) -> VariantArray {
        if parts.len() == 1 {
            return parts[0].clone();
        }
        let valid: Vec<bool> = parts
            .iter()
            .flat_map(|p| (0..p.len()).map(|i| p.is_valid(i)))
            .collect();
        let column = |get: fn(&VariantArray) -> &Column| {
            let cols: Vec<Column> = parts.iter().map(|p| get(p).clone()).collect();
            if cols.is_empty() {
                BinaryBuilder::with_rows(0).finish()
            } else {
                Column::concat(&cols)
            }
        };
        VariantArray {
            validity: Some(NullBuffer::from(valid)).filter(|v| v.null_count() > 0),
            metadata: column(|p| &p.metadata),
            value: column(|p| &p.value),
        }
    }

    /// Rebuild the variants of a variant group read as a nested array: `field` is the group
    /// (a struct of `metadata`, `value` and/or `typed_value`), `array` its values. Errors
    /// name the row and the path from the group's name down (`var.a[2].b`).
    pub fn from_group(field: &Field, array: &Array) -> Result<VariantArray> {
        Self::from_group_at(field, array, &[])
    }

    /// The values at `path` (object field names from the top) of the variants of a group
    /// read as for [`Self::from_group`], which may be a projection of the group holding only
    /// the leaves on that path (see `ParquetReader::read_variant_path`). A row whose variant
    /// has nothing at `path` is null. Each value keeps its row's metadata.
    pub fn from_group_at(field: &Field, array: &Array, path: &[&str]) -> Result<VariantArray> {
        let plan = Plan::compile(field)?;
        let Array::Struct(s) = array else {
            return Err(Error::InvalidArgument(format!(
                "variant {}: not a struct array",
                field.name
            )));
        };
        let metadata_at = plan
            .metadata
            .ok_or_else(|| Error::format(format!("variant {}: no metadata field", field.name)))?;
        let meta_col = s.children[metadata_at].as_primitive().ok_or_else(|| {
            Error::format(format!("variant {}: metadata is not binary", field.name))
        })?;
        // Unshredded: the value column already is the variant value of every row.
        if plan.typed.is_none() && path.is_empty() {
            if let Some(value_at) = plan.value {
                if let Some(values) = s.children[value_at].as_primitive() {
                    if values.null_count() == 0 && meta_col.null_count() == 0 {
                        parq_codecs::probe::hit("variant.read_unshredded_borrowed");
                        return Ok(VariantArray {
                            validity: s.validity.clone(),
                            metadata: meta_col.clone(),
                            value: values.clone(),
                        });
                    }
                }
            }
        }
        parq_codecs::probe::hit("variant.read_rebuilt");
        let mut meta = BinaryBuilder::with_capacity(s.len, binary_bytes(meta_col));
        let estimate = if path.is_empty() {
            value_bytes_estimate(array)
        } else {
            0
        };
        let mut value = BinaryBuilder::with_capacity(s.len, estimate);
        let mut scratch = Vec::new();
        let mut found = Vec::with_capacity(if path.is_empty() { 0 } else { s.len });
        let mut ctx: Option<Rebuild<'_>> = None;
        let mut dictionaries = MetadataCache::new();
        for row in 0..s.len {
            if !s.is_valid_slot(row) {
                meta.push(&[]);
                value.push(&[]);
                found.push(false);
                continue;
            }
            let m_bytes = meta_col.bytes(row).filter(|_| meta_col.is_valid(row));
            let m_bytes = m_bytes.ok_or_else(|| {
                variant_error(format!("{}: row {row}: metadata is null", field.name))
            })?;
            let m = dictionaries
                .decode(m_bytes)
                .map_err(|e| variant_error(format!("{}: row {row}: {e}", field.name)))?;
            let ctx = match &mut ctx {
                Some(c) => {
                    c.metadata = m;
                    c
                }
                None => ctx.insert(Rebuild::new(m, &field.name, plan.id_slots())),
            };
            ctx.row = row;
            ctx.dict = None;
            scratch.clear();
            if path.is_empty() {
                if !ctx.rebuild(&plan, s, row, &mut scratch)? {
                    scratch.push(0); // a missing top-level value is Variant null
                }
            } else {
                found.push(ctx.extract(&plan, s, row, path, &mut scratch)?);
            }
            match &ctx.dict {
                Some(d) => meta.push(&d.finish()),
                None => meta.push(m_bytes),
            }
            ctx.path.truncate(field.name.len());
            value.push(&scratch);
        }
        let validity = if path.is_empty() {
            s.validity.clone()
        } else {
            Some(NullBuffer::from(found)).filter(|v| v.null_count() > 0)
        };
        Ok(VariantArray {
            validity,
            metadata: meta.finish(),
            value: value.finish(),
        })
    }
}

trait SlotValid {
    fn is_valid_slot(&self, i: usize) -> bool;
}

impl SlotValid for StructArray {
    fn is_valid_slot(&self, i: usize) -> bool {
        self.validity.as_ref().is_none_or(|v| v.is_valid(i))
    }
}

/// The bytes of a binary column's values.
fn binary_bytes(c: &Column) -> usize {
    match &c.values {
        Values::Binary { data, .. } => data.len(),
        _ => 0,
    }
}

/// About the bytes of the rebuilt values of a variant group: the bytes of every leaf, plus a
/// header's worth per slot. Only a capacity hint, to spare the big buffer its regrowth.
fn value_bytes_estimate(array: &Array) -> usize {
    match array {
        Array::Primitive(c) => binary_bytes(c).max(c.len * 8) + c.len * 2,
        Array::Struct(s) => s.children.iter().map(value_bytes_estimate).sum(),
        Array::List(l) | Array::Map(l) => value_bytes_estimate(&l.values),
    }
}

/// Offsets and bytes of a binary column, appended row by row.
struct BinaryBuilder {
    offsets: Vec<i64>,
    data: Vec<u8>,
}

impl BinaryBuilder {
    fn with_rows(n: usize) -> Self {
        Self::with_capacity(n, 0)
    }

    fn with_capacity(n: usize, bytes: usize) -> Self {
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0);
        BinaryBuilder {
            offsets,
            data: Vec::with_capacity(bytes),
        }
    }

    fn push(&mut self, b: &[u8]) {
        self.data.extend_from_slice(b);
        self.offsets.push(self.data.len() as i64);
    }

    fn finish(self) -> Column {
        Column {
            len: self.offsets.len() - 1,
            validity: None,
            values: Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(self.offsets)),
                data: Buffer::from_vec(self.data),
            },
        }
    }
}

/// The shredding tree of a variant group as indented text, one line per level: what
/// `typed_value` holds there, and `| variant` where a `value` column can hold what does not
/// fit it.
///
/// ```text
/// var: object | variant
///   a: int32 | variant
///   tags: array
///     element: string | variant
/// ```
///
/// An unsupported typed leaf is an error, as when reading.
pub fn describe_shredding(group: &Field) -> Result<String> {
    let mut out = String::new();
    Plan::compile(group)?.describe(&group.name, 0, &mut out);
    Ok(out)
}

/// One `value` / `typed_value` pair: the indices of those children in its group.
#[derive(Debug)]
struct Plan {
    metadata: Option<usize>,
    value: Option<usize>,
    typed: Option<(usize, Typed)>,
}

/// What a `typed_value` holds.
#[derive(Debug)]
enum Typed {
    Primitive(ShreddedType),
    /// Shredded object fields.
    Object(ShreddedFields),
    /// The plan of the element group.
    Array(Box<Plan>),
}

/// The shredded fields of an object `typed_value`.
#[derive(Debug)]
struct ShreddedFields {
    /// Name and plan of each field, in the order of the group's children.
    fields: Vec<(String, Plan)>,
    /// Indices into `fields` in name order, so that a rebuilt object merges them with the
    /// name-ordered fields of its `value` in one walk; `None` when two share a name (then the
    /// object is sorted, and the repeat is an error where both are present).
    by_name: Option<Vec<usize>>,
    /// The first of `fields.len()` slots of `Rebuild::ids`, where the field ids of these
    /// names in the previous row's dictionary are kept.
    ids_at: usize,
}

impl Plan {
    fn compile(group: &Field) -> Result<Plan> {
        Self::compile_at(group, &mut 0)
    }

    /// `slots` counts the shredded object fields compiled so far (see `ShreddedFields::ids_at`).
    fn compile_at(group: &Field, slots: &mut usize) -> Result<Plan> {
        let DataType::Struct(children) = &group.data_type else {
            return Err(variant_error(format!(
                "{}: a variant (or shredded field) must be a group",
                group.name
            )));
        };
        let mut plan = Plan {
            metadata: None,
            value: None,
            typed: None,
        };
        for (i, c) in children.iter().enumerate() {
            match c.name.as_str() {
                "metadata" => plan.metadata = Some(i),
                "value" => {
                    if !matches!(&c.data_type, DataType::Primitive(p) if p.physical_type == Type::BYTE_ARRAY)
                    {
                        return Err(variant_error(format!("{}.value is not binary", group.name)));
                    }
                    plan.value = Some(i);
                }
                "typed_value" => plan.typed = Some((i, Typed::compile(c, &group.name, slots)?)),
                _ => {}
            }
        }
        Ok(plan)
    }
}

impl Plan {
    /// How many id slots (`ShreddedFields::ids_at`) the plan uses.
    fn id_slots(&self) -> usize {
        match &self.typed {
            Some((_, Typed::Object(s))) => {
                s.fields.len() + s.fields.iter().map(|(_, p)| p.id_slots()).sum::<usize>()
            }
            Some((_, Typed::Array(element))) => element.id_slots(),
            _ => 0,
        }
    }

    fn describe(&self, name: &str, indent: usize, out: &mut String) {
        use std::fmt::Write as _;
        let kind = match &self.typed {
            None => "variant".to_string(),
            Some((_, Typed::Primitive(leaf))) => leaf.name(),
            Some((_, Typed::Object(_))) => "object".into(),
            Some((_, Typed::Array(_))) => "array".into(),
        };
        let fallback = if self.typed.is_some() && self.value.is_some() {
            " | variant"
        } else {
            ""
        };
        let _ = writeln!(out, "{:indent$}{name}: {kind}{fallback}", "");
        match &self.typed {
            Some((_, Typed::Object(shredded))) => {
                for (n, p) in &shredded.fields {
                    p.describe(n, indent + 2, out);
                }
            }
            Some((_, Typed::Array(element))) => element.describe("element", indent + 2, out),
            _ => {}
        }
    }
}

impl Typed {
    fn compile(f: &Field, parent: &str, slots: &mut usize) -> Result<Typed> {
        Ok(match &f.data_type {
            DataType::Primitive(p) => Typed::Primitive(ShreddedType::of_column(p, parent)?),
            DataType::Struct(fields) => {
                let ids_at = *slots;
                *slots += fields.len();
                let fields: Vec<(String, Plan)> = fields
                    .iter()
                    .map(|g| Ok((g.name.clone(), Plan::compile_at(g, slots)?)))
                    .collect::<Result<_>>()?;
                let mut by_name: Vec<usize> = (0..fields.len()).collect();
                by_name.sort_by(|&a, &b| fields[a].0.cmp(&fields[b].0));
                let unique = by_name.windows(2).all(|w| fields[w[0]].0 != fields[w[1]].0);
                Typed::Object(ShreddedFields {
                    fields,
                    by_name: unique.then_some(by_name),
                    ids_at,
                })
            }
            DataType::List(element) => Typed::Array(Box::new(Plan::compile_at(element, slots)?)),
            DataType::Map(_) => {
                return Err(Error::Unsupported(format!(
                    "shredded value type MAP at {parent}.typed_value"
                )))
            }
        })
    }
}

/// The state of rebuilding a row, kept from row to row with its buffers.
struct Rebuild<'m> {
    row: usize,
    metadata: VariantMetadata<'m>,
    /// The row's dictionary extended with shredded names it lacks, made when first needed.
    dict: Option<MetadataBuilder>,
    path: String,
    /// Per shredded object field (`ShreddedFields::ids_at`): its id in an earlier row's
    /// dictionary, tried first (`u32::MAX`: none yet).
    ids: Vec<u32>,
    /// Writers of the objects and arrays being rebuilt, one per nesting level, reused.
    objects: Vec<ObjectScratch>,
    arrays: Vec<ArrayWriter>,
}

/// An object being rebuilt: its writer, and where its fields go in name order.
#[derive(Default)]
struct ObjectScratch {
    writer: ObjectWriter,
    /// Per shredded field (schema order): its index in `writer`, or `u32::MAX` if missing.
    shredded_at: Vec<u32>,
    /// The writer's fields in name order.
    order: Vec<u32>,
}

impl<'m> Rebuild<'m> {
    fn new(metadata: VariantMetadata<'m>, name: &str, id_slots: usize) -> Self {
        Rebuild {
            row: 0,
            metadata,
            dict: None,
            path: name.to_string(),
            ids: vec![u32::MAX; id_slots],
            objects: Vec::new(),
            arrays: Vec::new(),
        }
    }

    fn error(&self, what: &str) -> Error {
        variant_error(format!("row {}, path {}: {what}", self.row, self.path))
    }

    /// The id of shredded field `name`, whose id cache is `slot`.
    fn field_id(&mut self, name: &str, slot: usize) -> u32 {
        if let Some(d) = &mut self.dict {
            return d.id(name);
        }
        // A sorted dictionary has each name once, so the id that names it is the id.
        let cached = self.ids[slot];
        if self.metadata.is_sorted() && self.metadata.get(cached as usize).is_ok_and(|n| n == name)
        {
            return cached;
        }
        match self.metadata.find(name) {
            Some(id) => {
                self.ids[slot] = id as u32;
                id as u32
            }
            None => {
                let mut d = MetadataBuilder::extend(&self.metadata);
                let id = d.id(name);
                self.dict = Some(d);
                id
            }
        }
    }

    fn name(&self, id: u32) -> Option<&str> {
        match &self.dict {
            Some(d) => d.name(id),
            None => self.metadata.get(id as usize).ok(),
        }
    }

    /// Append the value of slot `i` of `group` (whose fields `plan` describes) to `out`;
    /// false when it is missing (both `value` and `typed_value` null).
    fn rebuild(
        &mut self,
        plan: &Plan,
        group: &StructArray,
        i: usize,
        out: &mut Vec<u8>,
    ) -> Result<bool> {
        let value = plan
            .value
            .map(|v| &group.children[v])
            .filter(|a| group.is_valid_slot(i) && a.is_valid(i))
            .and_then(Array::as_primitive)
            .and_then(|c| c.bytes(i));
        let typed = plan
            .typed
            .as_ref()
            .map(|(t, kind)| (&group.children[*t], kind))
            .filter(|(a, _)| group.is_valid_slot(i) && a.is_valid(i));
        let Some((typed_array, kind)) = typed else {
            return match value {
                Some(v) => {
                    self.check_value(v)?;
                    out.extend_from_slice(v);
                    Ok(true)
                }
                None => Ok(false),
            };
        };
        match kind {
            Typed::Primitive(leaf) => {
                if value.is_some() {
                    return Err(self.error("conflicting value and typed_value"));
                }
                let c = typed_array
                    .as_primitive()
                    .ok_or_else(|| self.error("typed_value is not a leaf"))?;
                leaf.write(c, i, out)
                    .map_err(|e| self.error(&e.to_string()))?;
            }
            Typed::Array(element) => {
                if value.is_some() {
                    return Err(self.error("conflicting value and typed_value"));
                }
                let Array::List(list) = typed_array else {
                    return Err(self.error("typed_value is not a list"));
                };
                let Array::Struct(elements) = list.values.as_ref() else {
                    return Err(self.error("list element is not a group"));
                };
                let mut w = self.arrays.pop().unwrap_or_default();
                w.clear();
                let base = self.path.len();
                for (k, j) in list.offsets.range(i).enumerate() {
                    self.path.truncate(base);
                    let _ = write!(self.path, "[{k}]");
                    w.element(|buf| {
                        if !self.rebuild(element, elements, j, buf)? {
                            buf.push(0); // an element must be present: read as Variant null
                        }
                        Ok(())
                    })?;
                }
                self.path.truncate(base);
                let written = w.write(out);
                self.arrays.push(w);
                written?;
            }
            Typed::Object(shredded) => {
                let Array::Struct(columns) = typed_array else {
                    return Err(self.error("typed_value is not a group"));
                };
                let mut o = self.objects.pop().unwrap_or_default();
                let built = self.rebuild_object(shredded, columns, value, i, &mut o, out);
                self.objects.push(o);
                built?;
            }
        }
        Ok(true)
    }

    /// Append the object of slot `i`: the shredded fields (their groups in `columns`) merged
    /// with the unshredded fields of `value`. Values go in the order they are added (shredded
    /// fields in schema order, then the `value` fields); the field ids in name order come from
    /// one walk over both name-ordered lists, or from a sort where `value`'s fields are out of
    /// order or the shredded names repeat.
    fn rebuild_object(
        &mut self,
        shredded: &ShreddedFields,
        columns: &StructArray,
        value: Option<&[u8]>,
        i: usize,
        o: &mut ObjectScratch,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let fields = &shredded.fields;
        let w = &mut o.writer;
        w.clear();
        o.shredded_at.clear();
        o.order.clear();
        let base = self.path.len();
        for (k, (name, field_plan)) in fields.iter().enumerate() {
            let Array::Struct(field_group) = &columns.children[k] else {
                return Err(self.error(&format!("shredded field {name} is not a group")));
            };
            self.path.truncate(base);
            self.path.push('.');
            self.path.push_str(name);
            let id = self.field_id(name, shredded.ids_at + k);
            let mut present = true;
            w.field(id, |buf| {
                present = self.rebuild(field_plan, field_group, i, buf)?;
                Ok(())
            })?;
            if present {
                o.shredded_at.push(w.len() as u32 - 1);
            } else {
                w.pop();
                o.shredded_at.push(u32::MAX);
            }
        }
        self.path.truncate(base);
        // The walk over `by_name` (while the names are in order): a present shredded field
        // goes into `order` once the walk passes its name.
        let mut merged = shredded.by_name.as_deref();
        let mut next = 0;
        let shredded_at = &o.shredded_at;
        let pass =
            |next: &mut usize, order: &mut Vec<u32>, by_name: &[usize], below: Option<&str>| {
                while let Some(&k) = by_name.get(*next) {
                    if below.is_some_and(|name| fields[k].0.as_str() >= name) {
                        break;
                    }
                    if shredded_at[k] != u32::MAX {
                        order.push(shredded_at[k]);
                    }
                    *next += 1;
                }
            };
        if let Some(v) = value {
            let m = self.metadata;
            let obj = VariantRef::new(m, v).map_err(|e| self.error(&e.to_string()))?;
            let VariantRef::Object(obj) = obj else {
                return Err(self.error("non-object value with shredded fields"));
            };
            let mut previous: Option<&str> = None;
            for k in 0..obj.len() {
                let (id, name, raw) = obj.field_bytes(k).map_err(|e| self.error(&e.to_string()))?;
                if previous.is_some_and(|p| p >= name) {
                    merged = None;
                }
                previous = Some(name);
                // The shredded columns are what a shredded field is, even when they say it
                // is missing (spec, "Objects": readers must use `typed_value`;
                // parquet-testing case 43).
                let is_shredded = match merged {
                    Some(by_name) => {
                        pass(&mut next, &mut o.order, by_name, Some(name));
                        by_name.get(next).is_some_and(|&s| fields[s].0 == name)
                    }
                    None => fields.iter().any(|(n, _)| n == name),
                };
                if is_shredded {
                    continue;
                }
                self.check_value(raw)?;
                w.field_raw(id as u32, raw);
                o.order.push(w.len() as u32 - 1);
            }
        }
        match merged {
            Some(by_name) => {
                parq_codecs::probe::hit("variant.object_merged");
                pass(&mut next, &mut o.order, by_name, None);
                w.write_in_order(&o.order, out)
            }
            None => {
                parq_codecs::probe::hit("variant.object_sorted");
                w.write_sorted(|id| self.name(id), out)
            }
        }
        .map_err(|e| self.error(&e.to_string()))
    }

    /// Append the value at `path` under slot `i` of `group` to `out`; false when there is
    /// none. Shredded fields are followed through their columns, the rest through the
    /// encoded `value` (only the columns on the path need to have been read).
    fn extract(
        &mut self,
        plan: &Plan,
        group: &StructArray,
        i: usize,
        path: &[&str],
        out: &mut Vec<u8>,
    ) -> Result<bool> {
        let Some((&name, rest)) = path.split_first() else {
            return self.rebuild(plan, group, i, out);
        };
        if let Some((t, Typed::Object(ShreddedFields { fields, .. }))) = &plan.typed {
            let typed = &group.children[*t];
            if group.is_valid_slot(i) && typed.is_valid(i) {
                if let (Some(k), Array::Struct(shredded)) =
                    (fields.iter().position(|(n, _)| n == name), typed)
                {
                    let Array::Struct(field_group) = &shredded.children[k] else {
                        return Err(self.error(&format!("shredded field {name} is not a group")));
                    };
                    let base = self.path.len();
                    self.path.push('.');
                    self.path.push_str(name);
                    let found = self.extract(&fields[k].1, field_group, i, rest, out)?;
                    self.path.truncate(base);
                    return Ok(found);
                }
            }
        }
        // Not shredded here: follow the path through the encoded value, if any.
        let value = plan
            .value
            .map(|v| &group.children[v])
            .filter(|a| group.is_valid_slot(i) && a.is_valid(i))
            .and_then(Array::as_primitive)
            .and_then(|c| c.bytes(i));
        let Some(mut raw) = value else {
            return Ok(false);
        };
        for &name in path {
            let v = VariantRef::new(self.metadata, raw).map_err(|e| self.error(&e.to_string()))?;
            let VariantRef::Object(o) = v else {
                return Ok(false);
            };
            match (0..o.len()).find(|&k| o.field(k).is_ok_and(|(n, _)| n == name)) {
                Some(k) => raw = o.field_raw(k).map_err(|e| self.error(&e.to_string()))?.2,
                None => return Ok(false),
            }
        }
        self.check_value(raw)?;
        out.extend_from_slice(raw);
        Ok(true)
    }

    /// An unshredded value is copied as bytes: check it decodes, all of it.
    fn check_value(&self, v: &[u8]) -> Result<()> {
        VariantRef::new(self.metadata, v)
            .and_then(|r| r.validate())
            .map_err(|e| self.error(&e.to_string()))
    }
}
