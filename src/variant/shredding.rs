//! Writing shredded variants: a [`Shredding`] schema says which parts of each variant get
//! typed columns, [`shred`] splits a [`VariantArray`] into the `metadata`, `value` and
//! `typed_value` columns of that schema, and [`infer_shredding`] proposes a schema from a
//! sample of rows.
//!
//! Any variant fits any schema: a value whose type is not the shredded one goes to `value`
//! whole, and an object's fields that are not shredded go to `value` as an object of the rest
//! (a partially shredded object). A primitive is shredded only into a column of its exact
//! Variant type (an int8 does not go to an int32 column), so that reading gives back the very
//! value written. Each row keeps its own metadata dictionary, so unshredded parts are copied
//! as bytes.
//!
//! ```
//! use parq::variant::{shred, variant_field, Shredding, ShreddedType, Variant, VariantArray};
//! let rows = vec![
//!     Some(Variant::Int64(34)),
//!     Some(Variant::String("n/a".into())),
//!     None,
//! ];
//! let variants = VariantArray::from_variants(&rows)?;
//! let schema = Shredding::Primitive(ShreddedType::Int64);
//! let array = shred(&variants, &schema)?;
//! let field = variant_field("measurement", &schema);
//! let back = VariantArray::from_group(&field, &array)?;
//! assert_eq!(back.get(0).unwrap()?.to_owned_variant()?, Variant::Int64(34));
//! assert!(back.get(2).is_none());
//! # Ok::<(), parq::Error>(())
//! ```

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};

use super::decode::{VariantObject, VariantRef};
use super::encode::ObjectWriter;
use super::metadata::VariantMetadata;
use super::owned::Variant;
use super::rebuild::VariantArray;
use super::shredded_type::ShreddedType;
use crate::array::{Array, ListArray, ListOffsets, StructArray};
use crate::column::{Column, Values};
use crate::field::{DataType, Field, Primitive};
use crate::metadata::{LogicalType, TimeUnit, Type};
use crate::write::{ParquetWriter, WriterOptions};
use crate::{Error, Result};

/// Which parts of a variant are stored as typed columns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Shredding {
    /// No `typed_value`: the whole value in `value`.
    Unshredded,
    /// A primitive `typed_value` column of this type.
    Primitive(ShreddedType),
    /// A shredded object: these fields, each with its own shredding.
    Object(Vec<(String, Shredding)>),
    /// A shredded array, its elements shredded so.
    Array(Box<Shredding>),
}

impl ShreddedType {
    /// The shredded type that stores `v` exactly; `None` for null, objects, arrays and
    /// decimals of a scale above what their width's precision allows.
    pub fn of(v: &VariantRef<'_>) -> Option<ShreddedType> {
        use ShreddedType as S;
        Some(match v {
            VariantRef::Boolean(_) => S::Boolean,
            VariantRef::Int8(_) => S::Int8,
            VariantRef::Int16(_) => S::Int16,
            VariantRef::Int32(_) => S::Int32,
            VariantRef::Int64(_) => S::Int64,
            VariantRef::Float(_) => S::Float,
            VariantRef::Double(_) => S::Double,
            // A Parquet DECIMAL's scale is at most its precision: 9, 18, 38 for the widths.
            VariantRef::Decimal4 { scale, .. } if *scale <= 9 => S::Decimal4(*scale),
            VariantRef::Decimal8 { scale, .. } if *scale <= 18 => S::Decimal8(*scale),
            VariantRef::Decimal16 { scale, .. } => S::Decimal16(*scale),
            VariantRef::Date(_) => S::Date,
            VariantRef::TimeMicros(_) => S::Time,
            VariantRef::TimestampMicros(_) => S::Timestamp {
                utc: true,
                nanos: false,
            },
            VariantRef::TimestampNtzMicros(_) => S::Timestamp {
                utc: false,
                nanos: false,
            },
            VariantRef::TimestampNanos(_) => S::Timestamp {
                utc: true,
                nanos: true,
            },
            VariantRef::TimestampNtzNanos(_) => S::Timestamp {
                utc: false,
                nanos: true,
            },
            VariantRef::Binary(_) => S::Binary,
            VariantRef::String(_) => S::String,
            VariantRef::Uuid(_) => S::Uuid,
            _ => return None,
        })
    }

    /// The Parquet primitive of a `typed_value` column of this type.
    pub fn primitive(self) -> Primitive {
        use ShreddedType as S;
        let with = |t: Type, l: LogicalType| Primitive {
            logical_type: Some(l),
            ..Primitive::new(t)
        };
        let decimal = |t: Type, precision: i32, scale: u8| Primitive {
            scale: Some(i32::from(scale)),
            precision: Some(precision),
            type_length: (t == Type::FIXED_LEN_BYTE_ARRAY).then_some(16),
            ..with(
                t,
                LogicalType::Decimal {
                    scale: i32::from(scale),
                    precision,
                },
            )
        };
        let int = |bit_width| LogicalType::Integer {
            bit_width,
            is_signed: true,
        };
        match self {
            S::Boolean => Primitive::new(Type::BOOLEAN),
            S::Int8 => with(Type::INT32, int(8)),
            S::Int16 => with(Type::INT32, int(16)),
            S::Int32 => Primitive::new(Type::INT32),
            S::Int64 => Primitive::new(Type::INT64),
            S::Float => Primitive::new(Type::FLOAT),
            S::Double => Primitive::new(Type::DOUBLE),
            S::Decimal4(s) => decimal(Type::INT32, 9, s),
            S::Decimal8(s) => decimal(Type::INT64, 18, s),
            S::Decimal16(s) => decimal(Type::FIXED_LEN_BYTE_ARRAY, 38, s),
            S::Date => with(Type::INT32, LogicalType::Date),
            S::Time => with(
                Type::INT64,
                LogicalType::Time {
                    is_adjusted_to_utc: false,
                    unit: TimeUnit::Micros,
                },
            ),
            S::Timestamp { utc, nanos } => with(
                Type::INT64,
                LogicalType::Timestamp {
                    is_adjusted_to_utc: utc,
                    unit: if nanos {
                        TimeUnit::Nanos
                    } else {
                        TimeUnit::Micros
                    },
                },
            ),
            S::Binary => Primitive::new(Type::BYTE_ARRAY),
            S::String => with(Type::BYTE_ARRAY, LogicalType::String),
            S::Uuid => Primitive {
                type_length: Some(16),
                ..with(Type::FIXED_LEN_BYTE_ARRAY, LogicalType::Uuid)
            },
        }
    }
}

/// The field of a nullable variant group `name` shredded by `shredding`: `metadata`,
/// `value` (required when unshredded, as the spec asks) and `typed_value`. Annotate it
/// `VARIANT` when writing with [`variant_writer`].
pub fn variant_field(name: &str, shredding: &Shredding) -> Field {
    let mut children = vec![Field::primitive("metadata", Type::BYTE_ARRAY).required()];
    let Field { data_type, .. } = pair_field(name, shredding);
    let DataType::Struct(pair) = data_type else {
        unreachable!("a value/typed_value pair is a struct")
    };
    children.extend(pair);
    if *shredding == Shredding::Unshredded {
        children[1].nullable = false;
    }
    Field::structure(name, children)
}

/// A required group `name` of an optional `value` and, when shredded, `typed_value`.
fn pair_field(name: &str, shredding: &Shredding) -> Field {
    let mut children = vec![Field::primitive("value", Type::BYTE_ARRAY)];
    match shredding {
        Shredding::Unshredded => {}
        Shredding::Primitive(t) => children.push(Field::new(
            "typed_value",
            DataType::Primitive(t.primitive()),
        )),
        Shredding::Object(fields) => children.push(Field::structure(
            "typed_value",
            fields.iter().map(|(n, s)| pair_field(n, s)).collect(),
        )),
        Shredding::Array(element) => {
            children.push(Field::list("typed_value", pair_field("element", element)))
        }
    }
    Field::structure(name, children).required()
}

/// Split `variants` into the columns of `shredding`: the struct array of the group that
/// [`variant_field`] describes.
pub fn shred(variants: &VariantArray, shredding: &Shredding) -> Result<Array> {
    let mut pair = PairBuilder::new(shredding)?;
    let mut metadata = BinaryBuilder::default();
    let mut validity = Vec::with_capacity(variants.len());
    for i in 0..variants.len() {
        match variants.encoded(i) {
            None => {
                validity.push(false);
                metadata.push(Some(&[]));
                pair.push_null();
            }
            Some((m, v)) => {
                validity.push(true);
                metadata.push(Some(m));
                let meta = VariantMetadata::new(m)
                    .map_err(|e| Error::InvalidArgument(format!("variant row {i}: {e}")))?;
                let value = VariantRef::new(meta, v)
                    .map_err(|e| Error::InvalidArgument(format!("variant row {i}: {e}")))?;
                pair.push(Some((value, v)), meta)
                    .map_err(|e| Error::InvalidArgument(format!("variant row {i}: {e}")))?;
            }
        }
    }
    let (mut children, len) = pair.finish(*shredding != Shredding::Unshredded);
    children.insert(0, metadata.finish(false));
    Ok(Array::Struct(StructArray {
        len,
        validity: nulls(&validity),
        children,
    }))
}

fn nulls(valid: &[bool]) -> Option<NullBuffer> {
    valid
        .contains(&false)
        .then(|| NullBuffer::from(valid.to_vec()))
}

/// A binary column built slot by slot.
#[derive(Default)]
struct BinaryBuilder {
    offsets: Vec<i64>,
    data: Vec<u8>,
    valid: Vec<bool>,
}

impl BinaryBuilder {
    fn push(&mut self, b: Option<&[u8]>) {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        self.data.extend_from_slice(b.unwrap_or_default());
        self.offsets.push(self.data.len() as i64);
        self.valid.push(b.is_some());
    }

    fn finish(mut self, nullable: bool) -> Array {
        if self.offsets.is_empty() {
            self.offsets.push(0);
        }
        Array::Primitive(Column {
            len: self.valid.len(),
            validity: if nullable { nulls(&self.valid) } else { None },
            values: Values::Binary {
                offsets: OffsetBuffer::new(ScalarBuffer::from(self.offsets)),
                data: Buffer::from_vec(self.data),
            },
        })
    }
}

/// The values of a primitive `typed_value` column.
enum LeafValues {
    Boolean(Vec<bool>),
    Int32(Vec<i32>),
    Int64(Vec<i64>),
    Float(Vec<f32>),
    Double(Vec<f64>),
    Bytes(BinaryBuilder),
    Fixed16(Vec<u8>),
}

struct LeafBuilder {
    ty: ShreddedType,
    values: LeafValues,
    valid: Vec<bool>,
}

impl LeafBuilder {
    fn new(ty: ShreddedType) -> Self {
        use ShreddedType as S;
        let values = match ty {
            S::Boolean => LeafValues::Boolean(Vec::new()),
            S::Int8 | S::Int16 | S::Int32 | S::Date | S::Decimal4(_) => {
                LeafValues::Int32(Vec::new())
            }
            S::Int64 | S::Time | S::Timestamp { .. } | S::Decimal8(_) => {
                LeafValues::Int64(Vec::new())
            }
            S::Float => LeafValues::Float(Vec::new()),
            S::Double => LeafValues::Double(Vec::new()),
            S::Binary | S::String => LeafValues::Bytes(BinaryBuilder::default()),
            S::Decimal16(_) | S::Uuid => LeafValues::Fixed16(Vec::new()),
        };
        LeafBuilder {
            ty,
            values,
            valid: Vec::new(),
        }
    }

    /// Push `v` when it is of this column's type; false (nothing pushed) when not.
    fn push(&mut self, v: &VariantRef<'_>) -> bool {
        if ShreddedType::of(v) != Some(self.ty) {
            return false;
        }
        match (&mut self.values, *v) {
            (LeafValues::Boolean(b), VariantRef::Boolean(x)) => b.push(x),
            (LeafValues::Int32(c), VariantRef::Int8(x)) => c.push(i32::from(x)),
            (LeafValues::Int32(c), VariantRef::Int16(x)) => c.push(i32::from(x)),
            (LeafValues::Int32(c), VariantRef::Int32(x) | VariantRef::Date(x)) => c.push(x),
            (LeafValues::Int32(c), VariantRef::Decimal4 { unscaled, .. }) => c.push(unscaled),
            (
                LeafValues::Int64(c),
                VariantRef::Int64(x)
                | VariantRef::TimeMicros(x)
                | VariantRef::TimestampMicros(x)
                | VariantRef::TimestampNtzMicros(x)
                | VariantRef::TimestampNanos(x)
                | VariantRef::TimestampNtzNanos(x)
                | VariantRef::Decimal8 { unscaled: x, .. },
            ) => c.push(x),
            (LeafValues::Float(c), VariantRef::Float(x)) => c.push(x),
            (LeafValues::Double(c), VariantRef::Double(x)) => c.push(x),
            (LeafValues::Bytes(c), VariantRef::Binary(b)) => c.push(Some(b)),
            (LeafValues::Bytes(c), VariantRef::String(s)) => c.push(Some(s.as_bytes())),
            (LeafValues::Fixed16(c), VariantRef::Uuid(u)) => c.extend_from_slice(&u),
            (LeafValues::Fixed16(c), VariantRef::Decimal16 { unscaled, .. }) => {
                c.extend_from_slice(&unscaled.to_be_bytes())
            }
            _ => return false,
        }
        self.valid.push(true);
        true
    }

    fn push_null(&mut self) {
        match &mut self.values {
            LeafValues::Boolean(c) => c.push(false),
            LeafValues::Int32(c) => c.push(0),
            LeafValues::Int64(c) => c.push(0),
            LeafValues::Float(c) => c.push(0.0),
            LeafValues::Double(c) => c.push(0.0),
            LeafValues::Bytes(c) => c.push(Some(&[])),
            LeafValues::Fixed16(c) => c.extend_from_slice(&[0; 16]),
        }
        self.valid.push(false);
    }

    fn finish(self) -> Array {
        let len = self.valid.len();
        let validity = nulls(&self.valid);
        let values = match self.values {
            LeafValues::Boolean(b) => Values::Boolean(BooleanBuffer::from(b)),
            LeafValues::Int32(v) => Values::Int32(ScalarBuffer::from(v)),
            LeafValues::Int64(v) => Values::Int64(ScalarBuffer::from(v)),
            LeafValues::Float(v) => Values::Float(ScalarBuffer::from(v)),
            LeafValues::Double(v) => Values::Double(ScalarBuffer::from(v)),
            LeafValues::Bytes(b) => return with_validity(b.finish(false), validity),
            LeafValues::Fixed16(d) => Values::FixedLenByteArray {
                width: 16,
                data: Buffer::from_vec(d),
            },
        };
        Array::Primitive(Column {
            len,
            validity,
            values,
        })
    }
}

fn with_validity(a: Array, validity: Option<NullBuffer>) -> Array {
    match a {
        Array::Primitive(mut c) => {
            c.validity = validity;
            Array::Primitive(c)
        }
        other => other,
    }
}

/// The builder of one `value` / `typed_value` pair.
struct PairBuilder {
    value: BinaryBuilder,
    typed: Option<TypedBuilder>,
    len: usize,
}

enum TypedBuilder {
    Leaf(LeafBuilder),
    Object {
        valid: Vec<bool>,
        fields: Vec<(String, PairBuilder)>,
    },
    Array {
        valid: Vec<bool>,
        offsets: Vec<i32>,
        element: Box<PairBuilder>,
    },
}

impl PairBuilder {
    fn new(shredding: &Shredding) -> Result<Self> {
        let typed = match shredding {
            Shredding::Unshredded => None,
            Shredding::Primitive(t) => Some(TypedBuilder::Leaf(LeafBuilder::new(*t))),
            Shredding::Object(fields) => {
                let mut names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
                names.sort_unstable();
                if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
                    return Err(Error::InvalidArgument(format!(
                        "shredding schema names field {:?} twice",
                        w[0]
                    )));
                }
                if fields.is_empty() {
                    return Err(Error::InvalidArgument(
                        "a shredded object needs a field (Parquet has no empty groups)".into(),
                    ));
                }
                Some(TypedBuilder::Object {
                    valid: Vec::new(),
                    fields: fields
                        .iter()
                        .map(|(n, s)| Ok((n.clone(), PairBuilder::new(s)?)))
                        .collect::<Result<_>>()?,
                })
            }
            Shredding::Array(element) => Some(TypedBuilder::Array {
                valid: Vec::new(),
                offsets: vec![0],
                element: Box::new(PairBuilder::new(element)?),
            }),
        };
        Ok(PairBuilder {
            value: BinaryBuilder::default(),
            typed,
            len: 0,
        })
    }

    /// A slot under a null parent: both columns null, all the way down.
    fn push_null(&mut self) {
        self.len += 1;
        self.value.push(None);
        if let Some(t) = &mut self.typed {
            t.push_null();
        }
    }

    /// The slot of `v` (with its encoded bytes); `None`: a missing object field.
    fn push(
        &mut self,
        v: Option<(VariantRef<'_>, &[u8])>,
        meta: VariantMetadata<'_>,
    ) -> Result<()> {
        let Some((v, raw)) = v else {
            self.push_null();
            return Ok(());
        };
        self.len += 1;
        let typed = match (&mut self.typed, &v) {
            (Some(TypedBuilder::Leaf(leaf)), v) => leaf.push(v),
            (
                Some(TypedBuilder::Array {
                    valid,
                    offsets,
                    element,
                }),
                VariantRef::Array(a),
            ) => {
                for i in 0..a.len() {
                    element.push(Some((a.get(i)?, a.get_raw(i)?)), meta)?;
                }
                valid.push(true);
                offsets.push(i32::try_from(element.len).map_err(|_| {
                    Error::InvalidArgument("more than 2^31 - 1 shredded array elements".into())
                })?);
                self.value.push(None);
                return Ok(());
            }
            (Some(TypedBuilder::Object { valid, fields }), VariantRef::Object(o)) => {
                for (name, pair) in fields.iter_mut() {
                    match find(o, name)? {
                        Some(k) => {
                            let (_, _, raw) = o.field_raw(k)?;
                            pair.push(Some((o.field(k)?.1, raw)), meta)?;
                        }
                        None => pair.push(None, meta)?,
                    }
                }
                valid.push(true);
                // The fields not shredded stay in `value`, as an object of the rest.
                let mut rest = ObjectWriter::new();
                for k in 0..o.len() {
                    let (id, name, raw) = o.field_raw(k)?;
                    if !fields.iter().any(|(n, _)| n == name) {
                        rest.field_raw(id as u32, raw);
                    }
                }
                if rest.is_empty() {
                    self.value.push(None);
                } else {
                    let mut out = Vec::new();
                    rest.finish_with_names(|id| meta.get(id as usize).ok(), &mut out)?;
                    self.value.push(Some(&out));
                }
                return Ok(());
            }
            _ => false,
        };
        if typed {
            self.value.push(None);
        } else {
            self.value.push(Some(raw));
            if let Some(t) = &mut self.typed {
                t.push_null();
            }
        }
        Ok(())
    }

    /// The `value` and `typed_value` arrays and the slot count.
    fn finish(self, value_nullable: bool) -> (Vec<Array>, usize) {
        let mut out = vec![self.value.finish(value_nullable)];
        if let Some(t) = self.typed {
            out.push(t.finish());
        }
        (out, self.len)
    }

    /// This pair as a required struct (an object field or a list element).
    fn finish_struct(self) -> Array {
        let (children, len) = self.finish(true);
        Array::Struct(StructArray {
            len,
            validity: None,
            children,
        })
    }
}

impl TypedBuilder {
    fn push_null(&mut self) {
        match self {
            TypedBuilder::Leaf(l) => l.push_null(),
            TypedBuilder::Object { valid, fields } => {
                valid.push(false);
                fields.iter_mut().for_each(|(_, p)| p.push_null());
            }
            TypedBuilder::Array { valid, offsets, .. } => {
                valid.push(false);
                offsets.push(*offsets.last().unwrap_or(&0));
            }
        }
    }

    fn finish(self) -> Array {
        match self {
            TypedBuilder::Leaf(l) => l.finish(),
            TypedBuilder::Object { valid, fields } => Array::Struct(StructArray {
                len: valid.len(),
                validity: nulls(&valid),
                children: fields.into_iter().map(|(_, p)| p.finish_struct()).collect(),
            }),
            TypedBuilder::Array {
                valid,
                offsets,
                element,
            } => Array::List(ListArray {
                validity: nulls(&valid),
                offsets: ListOffsets::Small(OffsetBuffer::new(ScalarBuffer::from(offsets))),
                values: Box::new(element.finish_struct()),
            }),
        }
    }
}

/// The index of field `name` in `o`, by binary search over its name-ordered fields.
fn find(o: &VariantObject<'_>, name: &str) -> Result<Option<usize>> {
    let (mut lo, mut hi) = (0, o.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        let (n, _) = o.field(mid)?;
        match n.cmp(name) {
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
            std::cmp::Ordering::Equal => return Ok(Some(mid)),
        }
    }
    Ok(None)
}

impl VariantArray {
    /// Encode owned variants (`None`: a null row), each with its own sorted dictionary.
    pub fn from_variants(rows: &[Option<Variant>]) -> Result<VariantArray> {
        let mut metadata = BinaryBuilder::default();
        let mut value = BinaryBuilder::default();
        let mut valid = Vec::with_capacity(rows.len());
        for row in rows {
            match row {
                Some(v) => {
                    let e = v.encode()?;
                    metadata.push(Some(&e.metadata));
                    value.push(Some(&e.value));
                    valid.push(true);
                }
                None => {
                    metadata.push(Some(&[]));
                    value.push(Some(&[]));
                    valid.push(false);
                }
            }
        }
        let col = |b: BinaryBuilder| match b.finish(false) {
            Array::Primitive(c) => c,
            _ => unreachable!("a binary builder makes a primitive"),
        };
        Ok(VariantArray {
            validity: nulls(&valid),
            metadata: col(metadata),
            value: col(value),
        })
    }
}

/// How often a part of the sample was seen, by type, for [`infer_shredding`].
#[derive(Default)]
struct Seen {
    count: usize,
    types: HashMap<ShreddedType, usize>,
    objects: usize,
    arrays: usize,
    fields: BTreeMap<String, Seen>,
    elements: Option<Box<Seen>>,
}

impl Seen {
    fn observe(&mut self, v: &VariantRef<'_>, depth: usize) -> Result<()> {
        self.count += 1;
        if depth > INFER_DEPTH {
            return Ok(());
        }
        match v {
            VariantRef::Object(o) => {
                self.objects += 1;
                for f in o.iter() {
                    let (name, fv) = f?;
                    self.fields
                        .entry(name.to_owned())
                        .or_default()
                        .observe(&fv, depth + 1)?;
                }
            }
            VariantRef::Array(a) => {
                self.arrays += 1;
                let e = self.elements.get_or_insert_with(Default::default);
                for x in a.iter() {
                    e.observe(&x?, depth + 1)?;
                }
            }
            p => {
                if let Some(t) = ShreddedType::of(p) {
                    *self.types.entry(t).or_default() += 1;
                }
            }
        }
        Ok(())
    }

    /// The shredding of the most common kind, when it covers at least half of the values.
    fn decide(&self, depth: usize) -> Shredding {
        let (best_type, best_count) = self
            .types
            .iter()
            .max_by_key(|(t, n)| (**n, std::cmp::Reverse(format!("{t:?}"))))
            .map_or((None, 0), |(t, n)| (Some(*t), *n));
        let best = best_count.max(self.objects).max(self.arrays);
        if best == 0 || best * 2 < self.count || depth > INFER_DEPTH {
            return Shredding::Unshredded;
        }
        if self.objects == best {
            let fields: Vec<(String, Shredding)> = self
                .fields
                .iter()
                .filter(|(_, s)| s.count * 10 >= self.objects)
                .take(INFER_FIELDS)
                .map(|(n, s)| (n.clone(), s.decide(depth + 1)))
                .collect();
            if fields.is_empty() {
                return Shredding::Unshredded;
            }
            Shredding::Object(fields)
        } else if self.arrays == best {
            let element = self
                .elements
                .as_ref()
                .map_or(Shredding::Unshredded, |e| e.decide(depth + 1));
            Shredding::Array(Box::new(element))
        } else {
            best_type.map_or(Shredding::Unshredded, Shredding::Primitive)
        }
    }
}

/// Deepest level [`infer_shredding`] shreds.
const INFER_DEPTH: usize = 8;
/// Most fields [`infer_shredding`] shreds in one object.
const INFER_FIELDS: usize = 64;

/// A shredding schema for rows like `sample`: at each level the most common kind (object,
/// array or one primitive type) when at least half the values there have it; an object's
/// fields present in at least a tenth of its objects (at most 64 per object, 8 levels deep).
pub fn infer_shredding(sample: &VariantArray) -> Result<Shredding> {
    let mut seen = Seen::default();
    for i in 0..sample.len() {
        if let Some(v) = sample.get(i) {
            seen.observe(&v?, 0)?;
        }
    }
    Ok(seen.decide(0))
}

/// A writer of `fields` in which the top-level fields named in `variants` (groups built by
/// [`variant_field`]) are annotated `VARIANT`.
pub fn variant_writer<W: Write>(
    sink: W,
    fields: Vec<Field>,
    variants: &[&str],
    options: WriterOptions,
) -> Result<ParquetWriter<W>> {
    let mut elements = crate::write::schema_elements(&fields)?;
    annotate_variants(&mut elements, variants)?;
    ParquetWriter::from_schema_elements(sink, elements, options)
}

/// Mark the top-level groups named in `variants` `VARIANT(1)` in a schema's elements.
pub(crate) fn annotate_variants(
    elements: &mut [crate::metadata::SchemaElement],
    variants: &[&str],
) -> Result<()> {
    let mut i = 1;
    let mut found = 0;
    while i < elements.len() {
        let subtree = subtree_len(elements, i);
        let e = &mut elements[i];
        if variants.contains(&e.name.as_str()) {
            if e.num_children.is_none() {
                return Err(Error::InvalidArgument(format!(
                    "variant field {} is not a group",
                    e.name
                )));
            }
            e.logical_type = Some(LogicalType::Variant {
                specification_version: Some(1),
            });
            found += 1;
        }
        i += subtree;
    }
    if found != variants.len() {
        return Err(Error::InvalidArgument(format!(
            "variant fields {variants:?}: not all are top-level fields"
        )));
    }
    Ok(())
}

/// Number of elements of the subtree at `i` (the element and its descendants).
fn subtree_len(elements: &[crate::metadata::SchemaElement], i: usize) -> usize {
    let mut pending = 1usize;
    let mut j = i;
    while pending > 0 && j < elements.len() {
        pending = pending - 1 + elements[j].num_children.unwrap_or(0).max(0) as usize;
        j += 1;
    }
    j - i
}
