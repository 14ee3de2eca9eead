//! The logical schema: a tree of [`Field`]s, shared by the reader and the writer.
//!
//! A Parquet schema is a tree of groups and primitive leaves, with LIST and MAP annotations and
//! several legacy spellings of both (`LogicalTypes.md`, "backward-compatibility rules"). This
//! module is what that tree *means*, in Arrow's terms: primitives, lists, structs and maps.
//! The reader resolves a file's schema into fields ([`crate::schema::SchemaDescriptor::fields`])
//! and assembles [`crate::array::Array`]s of that shape; the writer takes fields and writes the
//! canonical 3-level LIST and MAP spellings.
//!
//! ```
//! use parq::field::{DataType, Field};
//! use parq::metadata::Type;
//! // optional list of optional int64, the shape pyarrow writes for `list<int64>`
//! let f = Field::list("ids", Field::primitive("element", Type::INT64));
//! assert!(matches!(f.data_type, DataType::List(_)));
//! ```

use crate::metadata::{ConvertedType, LogicalType, Type};

/// A primitive leaf: how the values are stored and what they mean.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Primitive {
    /// Physical type.
    pub physical_type: Type,
    /// Width in bytes of `FIXED_LEN_BYTE_ARRAY`.
    pub type_length: Option<i32>,
    /// Logical annotation.
    pub logical_type: Option<LogicalType>,
    /// Deprecated annotation (still written for older readers).
    pub converted_type: Option<ConvertedType>,
    /// Decimal scale.
    pub scale: Option<i32>,
    /// Decimal precision.
    pub precision: Option<i32>,
}

impl Primitive {
    /// A primitive of `physical_type` without annotation.
    pub fn new(physical_type: Type) -> Self {
        Primitive {
            physical_type,
            type_length: None,
            logical_type: None,
            converted_type: None,
            scale: None,
            precision: None,
        }
    }
}

/// The shape of a field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DataType {
    /// A leaf column.
    Primitive(Primitive),
    /// A list of the element field.
    List(Box<Field>),
    /// A struct of the child fields, in order.
    Struct(Vec<Field>),
    /// A map: a list of the entries field, a non-null struct of `key` and `value`. (A legacy
    /// map whose entries hold a key only reads as a list of keys, as pyarrow reads it.)
    Map(Box<Field>),
}

/// A named field of a schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// Name.
    pub name: String,
    /// Whether a slot may be null (Parquet OPTIONAL).
    pub nullable: bool,
    /// Field id of the original schema (Iceberg and others).
    pub field_id: Option<i32>,
    /// The shape.
    pub data_type: DataType,
}

impl Field {
    /// A nullable field.
    pub fn new(name: impl Into<String>, data_type: DataType) -> Self {
        Field {
            name: name.into(),
            nullable: true,
            field_id: None,
            data_type,
        }
    }

    /// A nullable primitive field of `physical_type` without annotation.
    pub fn primitive(name: impl Into<String>, physical_type: Type) -> Self {
        Field::new(name, DataType::Primitive(Primitive::new(physical_type)))
    }

    /// A nullable list of `element`.
    pub fn list(name: impl Into<String>, element: Field) -> Self {
        Field::new(name, DataType::List(Box::new(element)))
    }

    /// A nullable struct of `children`.
    pub fn structure(name: impl Into<String>, children: Vec<Field>) -> Self {
        Field::new(name, DataType::Struct(children))
    }

    /// A nullable map of `key` (made non-null, as the spec requires) to `value`, with the
    /// entries named `key_value` as the spec spells them.
    pub fn map(name: impl Into<String>, key: Field, value: Field) -> Self {
        let entries = Field::structure("key_value", vec![key.required(), value]).required();
        Field::new(name, DataType::Map(Box::new(entries)))
    }

    /// This field, non-null (Parquet REQUIRED).
    pub fn required(mut self) -> Self {
        self.nullable = false;
        self
    }

    /// This field, nullable (Parquet OPTIONAL).
    pub fn optional(mut self) -> Self {
        self.nullable = true;
        self
    }

    /// This field with a field id.
    pub fn with_field_id(mut self, id: i32) -> Self {
        self.field_id = Some(id);
        self
    }

    /// The children of a struct, the element of a list, the entries of a map; none for a
    /// primitive.
    pub fn children(&self) -> Vec<&Field> {
        match &self.data_type {
            DataType::Primitive(_) => Vec::new(),
            DataType::List(e) | DataType::Map(e) => vec![e],
            DataType::Struct(c) => c.iter().collect(),
        }
    }

    /// Number of primitive leaves under (or at) this field.
    pub fn num_leaves(&self) -> usize {
        match &self.data_type {
            DataType::Primitive(_) => 1,
            _ => self.children().iter().map(|c| c.num_leaves()).sum(),
        }
    }

    /// Whether this field is a primitive.
    pub fn is_primitive(&self) -> bool {
        matches!(self.data_type, DataType::Primitive(_))
    }
}
