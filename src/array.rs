//! Nested columns in Arrow layout: lists, structs and maps over [`Column`] leaves.
//!
//! The layout is Arrow's, so an engine can wrap the buffers without copying:
//! - a list is offsets (i32, or i64 past 2^31 - 1 children) + validity + one child array;
//! - a struct is validity + children, each child as long as the struct; under a null struct
//!   slot the children hold a slot too (null, in parq's output);
//! - a map is a list whose child is the entries struct (`key`, `value`).
//!
//! Field names live in the [`crate::field::Field`] tree that describes an array, not in the
//! array.

use arrow_buffer::{NullBuffer, OffsetBuffer};

use crate::column::Column;

/// List offsets: `len + 1` monotonic positions into the child.
#[derive(Debug, Clone)]
pub enum ListOffsets {
    /// Arrow `List` / `Map`: i32 offsets.
    Small(OffsetBuffer<i32>),
    /// Arrow `LargeList`: i64 offsets.
    Large(OffsetBuffer<i64>),
}

impl ListOffsets {
    /// Number of list slots.
    pub fn len(&self) -> usize {
        match self {
            ListOffsets::Small(o) => o.len() - 1,
            ListOffsets::Large(o) => o.len() - 1,
        }
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The child range of slot `i`.
    #[inline]
    pub fn range(&self, i: usize) -> std::ops::Range<usize> {
        match self {
            ListOffsets::Small(o) => o[i] as usize..o[i + 1] as usize,
            ListOffsets::Large(o) => o[i] as usize..o[i + 1] as usize,
        }
    }

    /// Slots `offset..offset + len` (the child is not sliced: offsets keep pointing into it).
    pub fn slice(&self, offset: usize, len: usize) -> ListOffsets {
        match self {
            ListOffsets::Small(o) => ListOffsets::Small(o.slice(offset, len)),
            ListOffsets::Large(o) => ListOffsets::Large(o.slice(offset, len)),
        }
    }
}

/// A list (or map) column.
#[derive(Debug, Clone)]
pub struct ListArray {
    /// Validity of the list slots; `None` when none is null.
    pub validity: Option<NullBuffer>,
    /// Where each slot's elements are in `values`.
    pub offsets: ListOffsets,
    /// The elements (for a map, the entries struct).
    pub values: Box<Array>,
}

/// A struct column.
#[derive(Debug, Clone)]
pub struct StructArray {
    /// Number of slots (also every child's length).
    pub len: usize,
    /// Validity of the struct slots; `None` when none is null.
    pub validity: Option<NullBuffer>,
    /// One array per child field, in field order.
    pub children: Vec<Array>,
}

/// A column of any shape.
#[derive(Debug, Clone)]
pub enum Array {
    /// A primitive leaf.
    Primitive(Column),
    /// A list.
    List(ListArray),
    /// A struct.
    Struct(StructArray),
    /// A map: a list of `key`/`value` entries.
    Map(ListArray),
}

impl Array {
    /// Number of slots.
    pub fn len(&self) -> usize {
        match self {
            Array::Primitive(c) => c.len,
            Array::List(l) | Array::Map(l) => l.offsets.len(),
            Array::Struct(s) => s.len,
        }
    }

    /// Whether there are no slots.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The validity of the slots; `None` when none is null.
    pub fn validity(&self) -> Option<&NullBuffer> {
        match self {
            Array::Primitive(c) => c.validity.as_ref(),
            Array::List(l) | Array::Map(l) => l.validity.as_ref(),
            Array::Struct(s) => s.validity.as_ref(),
        }
    }

    /// Whether slot `i` is not null.
    pub fn is_valid(&self, i: usize) -> bool {
        self.validity().is_none_or(|v| v.is_valid(i))
    }

    /// Number of null slots.
    pub fn null_count(&self) -> usize {
        self.validity().map_or(0, |v| v.null_count())
    }

    /// The leaf column of a primitive array.
    pub fn as_primitive(&self) -> Option<&Column> {
        match self {
            Array::Primitive(c) => Some(c),
            _ => None,
        }
    }

    /// Slots `offset..offset + len`, without copying any buffer.
    ///
    /// # Panics
    /// If the range is outside the array.
    pub fn slice(&self, offset: usize, len: usize) -> Array {
        assert!(offset + len <= self.len(), "slice out of bounds");
        let validity = |v: &Option<NullBuffer>| {
            v.as_ref()
                .map(|v| v.slice(offset, len))
                .filter(|v| v.null_count() > 0)
        };
        match self {
            Array::Primitive(c) => Array::Primitive(c.slice(offset, len)),
            Array::List(l) => Array::List(ListArray {
                validity: validity(&l.validity),
                offsets: l.offsets.slice(offset, len),
                values: l.values.clone(),
            }),
            Array::Map(l) => Array::Map(ListArray {
                validity: validity(&l.validity),
                offsets: l.offsets.slice(offset, len),
                values: l.values.clone(),
            }),
            Array::Struct(s) => Array::Struct(StructArray {
                len,
                validity: validity(&s.validity),
                children: s.children.iter().map(|c| c.slice(offset, len)).collect(),
            }),
        }
    }

    /// True when a leaf holds keys into a dictionary ([`crate::column::Values::Dictionary`]).
    pub fn has_dictionary_keys(&self) -> bool {
        match self {
            Array::Primitive(c) => matches!(c.values, crate::column::Values::Dictionary { .. }),
            Array::List(l) | Array::Map(l) => l.values.has_dictionary_keys(),
            Array::Struct(s) => s.children.iter().any(Array::has_dictionary_keys),
        }
    }

    /// This array with every leaf in its values' own layout ([`Column::materialize`]).
    pub fn materialize(&self) -> Array {
        self.map_leaves(&Column::materialize)
    }

    /// This array in the layouts the writer takes: keys looked up in their dictionary
    /// ([`Column::materialize`]).
    pub(crate) fn for_writer(&self) -> Array {
        self.map_leaves(&Column::materialize)
    }

    /// This array with `f` applied to every leaf column.
    fn map_leaves(&self, f: &dyn Fn(&Column) -> Column) -> Array {
        match self {
            Array::Primitive(c) => Array::Primitive(f(c)),
            Array::List(l) => Array::List(ListArray {
                values: Box::new(l.values.map_leaves(f)),
                ..l.clone()
            }),
            Array::Map(l) => Array::Map(ListArray {
                values: Box::new(l.values.map_leaves(f)),
                ..l.clone()
            }),
            Array::Struct(s) => Array::Struct(StructArray {
                children: s.children.iter().map(|c| c.map_leaves(f)).collect(),
                ..s.clone()
            }),
        }
    }

    /// Bytes of Arrow buffers this array spans: offsets, validity bitmaps and every child.
    pub fn decoded_bytes(&self) -> usize {
        let bitmap = |v: Option<&NullBuffer>| v.map_or(0, |v| v.len().div_ceil(8));
        match self {
            Array::Primitive(c) => c.decoded_bytes(),
            Array::List(l) | Array::Map(l) => {
                let width = match l.offsets {
                    ListOffsets::Small(_) => 4,
                    ListOffsets::Large(_) => 8,
                };
                (l.offsets.len() + 1) * width
                    + bitmap(l.validity.as_ref())
                    + l.values.decoded_bytes()
            }
            Array::Struct(s) => {
                bitmap(s.validity.as_ref())
                    + s.children.iter().map(Array::decoded_bytes).sum::<usize>()
            }
        }
    }

    /// The value of slot `i` as a tree: a layout-independent view for comparisons, tests and
    /// printing, not a fast path.
    pub fn value(&self, i: usize) -> Value {
        if !self.is_valid(i) {
            return Value::Null;
        }
        match self {
            Array::Primitive(c) => c.value_bytes(i).map_or(Value::Null, Value::Leaf),
            Array::List(l) => Value::List(l.offsets.range(i).map(|j| l.values.value(j)).collect()),
            Array::Map(l) => {
                let Array::Struct(entries) = l.values.as_ref() else {
                    return Value::List(l.offsets.range(i).map(|j| l.values.value(j)).collect());
                };
                Value::Map(
                    l.offsets
                        .range(i)
                        .map(|j| {
                            let key = entries.children.first().map_or(Value::Null, |k| k.value(j));
                            let value = entries.children.get(1).map_or(Value::Null, |v| v.value(j));
                            (key, value)
                        })
                        .collect(),
                )
            }
            Array::Struct(s) => Value::Struct(s.children.iter().map(|c| c.value(i)).collect()),
        }
    }
}

/// One slot of an [`Array`] as a plain tree (see [`Array::value`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// A null at this level.
    Null,
    /// A primitive value, as [`Column::value_bytes`] gives it.
    Leaf(Vec<u8>),
    /// A list's elements.
    List(Vec<Value>),
    /// A struct's children, in field order.
    Struct(Vec<Value>),
    /// A map's entries, in order (duplicate keys kept).
    Map(Vec<(Value, Value)>),
}

/// Logical equality: same length and the same [`Value`] in every slot (so offsets that start
/// elsewhere, or children that differ under null slots, still compare equal).
impl PartialEq for Array {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.value(i) == other.value(i))
    }
}
