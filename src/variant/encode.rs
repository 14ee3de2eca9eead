//! Encoding variant values: primitives, and objects and arrays assembled from their children.
//!
//! A container's header needs the widths of its offsets, which depend on the size of its
//! children, so children are written first into the writer's own buffer and the container is
//! assembled once, at the narrowest widths that fit ([`ObjectWriter`], [`ArrayWriter`]).
//! Children already encoded against the same dictionary (the unshredded parts of a shredded
//! variant) are copied as bytes, not re-encoded.

use std::collections::BTreeSet;

use super::decode::VariantRef;
use super::metadata::{push_uint, MetadataBuilder};
use super::owned::Variant;
use super::uint_width;
use crate::{Error, Result};

/// A variant as its two encoded halves.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct EncodedVariant {
    /// The metadata dictionary.
    pub metadata: Vec<u8>,
    /// The value.
    pub value: Vec<u8>,
}

impl EncodedVariant {
    /// Decode both halves to an owned tree.
    pub fn decode(&self) -> Result<Variant> {
        Variant::decode(&self.metadata, &self.value)
    }
}

fn too_large(what: &str, n: usize) -> Error {
    Error::InvalidArgument(format!("variant {what} of {n} bytes is above 4 GiB - 1"))
}

/// Append a primitive (anything but an object or array) to `out`. Strings shorter than 64
/// bytes take the short-string form, as the spec intends.
pub fn write_primitive(out: &mut Vec<u8>, v: &VariantRef<'_>) -> Result<()> {
    let p = |t: u8| t << 2;
    match *v {
        VariantRef::Null => out.push(p(0)),
        VariantRef::Boolean(true) => out.push(p(1)),
        VariantRef::Boolean(false) => out.push(p(2)),
        VariantRef::Int8(x) => out.extend_from_slice(&[p(3), x as u8]),
        VariantRef::Int16(x) => {
            out.push(p(4));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::Int32(x) => {
            out.push(p(5));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::Int64(x) => {
            out.push(p(6));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::Double(x) => {
            out.push(p(7));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::Decimal4 { unscaled, scale } => {
            out.extend_from_slice(&[p(8), check_scale(scale)?]);
            out.extend_from_slice(&unscaled.to_le_bytes());
        }
        VariantRef::Decimal8 { unscaled, scale } => {
            out.extend_from_slice(&[p(9), check_scale(scale)?]);
            out.extend_from_slice(&unscaled.to_le_bytes());
        }
        VariantRef::Decimal16 { unscaled, scale } => {
            out.extend_from_slice(&[p(10), check_scale(scale)?]);
            out.extend_from_slice(&unscaled.to_le_bytes());
        }
        VariantRef::Date(x) => {
            out.push(p(11));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::TimestampMicros(x) => {
            out.push(p(12));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::TimestampNtzMicros(x) => {
            out.push(p(13));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::Float(x) => {
            out.push(p(14));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::Binary(b) => {
            out.push(p(15));
            let n = u32::try_from(b.len()).map_err(|_| too_large("binary", b.len()))?;
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(b);
        }
        VariantRef::String(s) if s.len() < 64 => {
            out.push(1 | ((s.len() as u8) << 2));
            out.extend_from_slice(s.as_bytes());
        }
        VariantRef::String(s) => {
            out.push(p(16));
            let n = u32::try_from(s.len()).map_err(|_| too_large("string", s.len()))?;
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(s.as_bytes());
        }
        VariantRef::TimeMicros(x) => {
            out.push(p(17));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::TimestampNanos(x) => {
            out.push(p(18));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::TimestampNtzNanos(x) => {
            out.push(p(19));
            out.extend_from_slice(&x.to_le_bytes());
        }
        VariantRef::Uuid(u) => {
            out.push(p(20));
            out.extend_from_slice(&u);
        }
        VariantRef::Object(_) | VariantRef::Array(_) => {
            return Err(Error::InvalidArgument(
                "write_primitive given an object or array".into(),
            ))
        }
    }
    Ok(())
}

fn check_scale(scale: u8) -> Result<u8> {
    if scale > 38 {
        return Err(Error::InvalidArgument(format!(
            "variant decimal scale {scale} is above 38"
        )));
    }
    Ok(scale)
}

/// Collects an object's fields, then writes the object.
#[derive(Debug, Default)]
pub struct ObjectWriter {
    /// (field id, start, end) of each field's value in `values`.
    fields: Vec<(u32, usize, usize)>,
    values: Vec<u8>,
}

impl ObjectWriter {
    /// An object with no fields yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add field `id`, its value written by `write` (which appends one encoded value).
    pub fn field(&mut self, id: u32, write: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<()> {
        let start = self.values.len();
        write(&mut self.values)?;
        self.fields.push((id, start, self.values.len()));
        Ok(())
    }

    /// Add field `id` whose value is already encoded (against the same dictionary).
    pub fn field_raw(&mut self, id: u32, encoded: &[u8]) {
        let start = self.values.len();
        self.values.extend_from_slice(encoded);
        self.fields.push((id, start, self.values.len()));
    }

    /// Number of fields added.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// Whether no field was added.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    /// Drop the field added last (a writer that found the field missing after all).
    pub fn pop(&mut self) {
        if let Some((_, start, _)) = self.fields.pop() {
            self.values.truncate(start);
        }
    }

    /// Append the object to `out`: field ids in name order (names from `dict`), values in the
    /// order they were added. Two fields of the same name are an error.
    pub fn finish(self, dict: &MetadataBuilder, out: &mut Vec<u8>) -> Result<()> {
        self.finish_with_names(|id| dict.name(id), out)
    }

    /// [`Self::finish`] with the names of ids given by `names` (say a decoded dictionary).
    pub fn finish_with_names<'n>(
        mut self,
        names: impl Fn(u32) -> Option<&'n str>,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        self.write_sorted(names, out)
    }

    /// [`Self::finish_with_names`] that keeps the writer for reuse ([`Self::clear`]).
    pub(super) fn write_sorted<'n>(
        &mut self,
        names: impl Fn(u32) -> Option<&'n str>,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let name = |id: u32| names(id).unwrap_or_default();
        self.fields.sort_by(|a, b| name(a.0).cmp(name(b.0)));
        if let Some(w) = self
            .fields
            .windows(2)
            .find(|w| name(w[0].0) == name(w[1].0))
        {
            return Err(Error::InvalidArgument(format!(
                "variant object has field {:?} twice",
                name(w[0].0)
            )));
        }
        self.assemble(self.fields.iter().map(|f| (f.0, f.1)), out)
    }

    /// Append the object with its fields in the order `order` gives (indices into the fields
    /// in the order they were added, each once), which the caller knows to be strictly
    /// increasing by name: what [`Self::finish`] writes, without sorting by name lookups.
    pub(super) fn write_in_order(&self, order: &[u32], out: &mut Vec<u8>) -> Result<()> {
        debug_assert_eq!(order.len(), self.fields.len());
        let fields = order.iter().map(|&k| {
            let f = self.fields[k as usize];
            (f.0, f.1)
        });
        self.assemble(fields, out)
    }

    /// Forget the fields, keeping the buffers.
    pub(super) fn clear(&mut self) {
        self.fields.clear();
        self.values.clear();
    }

    /// Header, ids and offsets of `fields` (id, value start; in name order), then the values.
    fn assemble(
        &self,
        fields: impl Iterator<Item = (u32, usize)> + Clone,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let n = self.fields.len();
        let total = self.values.len();
        u32::try_from(total).map_err(|_| too_large("object", total))?;
        let max_id = self.fields.iter().map(|f| f.0).max().unwrap_or(0) as usize;
        let (id_size, offset_size) = (uint_width(max_id), uint_width(total));
        let large = n > 255;
        let header = (u8::from(large) << 4) | ((id_size as u8 - 1) << 2) | (offset_size as u8 - 1);
        out.reserve(6 + n * (id_size + offset_size) + offset_size + total);
        out.push(2 | (header << 2));
        push_uint(out, n, if large { 4 } else { 1 });
        for (id, _) in fields.clone() {
            push_uint(out, id as usize, id_size);
        }
        for (_, start) in fields {
            push_uint(out, start, offset_size);
        }
        push_uint(out, total, offset_size);
        out.extend_from_slice(&self.values);
        Ok(())
    }
}

/// Collects an array's elements, then writes the array.
#[derive(Debug, Default)]
pub struct ArrayWriter {
    starts: Vec<usize>,
    values: Vec<u8>,
}

impl ArrayWriter {
    /// An empty array.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add an element written by `write` (which appends one encoded value).
    pub fn element(&mut self, write: impl FnOnce(&mut Vec<u8>) -> Result<()>) -> Result<()> {
        self.starts.push(self.values.len());
        write(&mut self.values)
    }

    /// Add an element already encoded (against the same dictionary).
    pub fn element_raw(&mut self, encoded: &[u8]) {
        self.starts.push(self.values.len());
        self.values.extend_from_slice(encoded);
    }

    /// Append the array to `out`.
    pub fn finish(self, out: &mut Vec<u8>) -> Result<()> {
        self.write(out)
    }

    /// Forget the elements, keeping the buffers.
    pub(super) fn clear(&mut self) {
        self.starts.clear();
        self.values.clear();
    }

    /// [`Self::finish`] that keeps the writer for reuse ([`Self::clear`]).
    pub(super) fn write(&self, out: &mut Vec<u8>) -> Result<()> {
        let n = self.starts.len();
        let total = self.values.len();
        u32::try_from(total).map_err(|_| too_large("array", total))?;
        let offset_size = uint_width(total);
        let large = n > 255;
        let header = (u8::from(large) << 2) | (offset_size as u8 - 1);
        out.reserve(6 + (n + 1) * offset_size + total);
        out.push(3 | (header << 2));
        push_uint(out, n, if large { 4 } else { 1 });
        for &s in &self.starts {
            push_uint(out, s, offset_size);
        }
        push_uint(out, total, offset_size);
        out.extend_from_slice(&self.values);
        Ok(())
    }
}

/// Append `v` to `out`, its field names given ids by `dict`.
pub fn write_variant(v: &Variant, dict: &mut MetadataBuilder, out: &mut Vec<u8>) -> Result<()> {
    match v {
        Variant::Object(fields) => {
            let mut w = ObjectWriter::new();
            for (name, value) in fields {
                let id = dict.id(name);
                w.field(id, |buf| write_variant(value, dict, buf))?;
            }
            w.finish(dict, out)
        }
        Variant::Array(elements) => {
            let mut w = ArrayWriter::new();
            for e in elements {
                w.element(|buf| write_variant(e, dict, buf))?;
            }
            w.finish(out)
        }
        p => write_primitive(out, &p.as_primitive_ref().unwrap_or(VariantRef::Null)),
    }
}

/// Append `v` (decoded against another dictionary) to `out`, its names given ids by `dict`.
/// Object values keep their physical order, so a value re-encoded against its own dictionary
/// at the narrowest widths gives back its bytes.
pub fn write_variant_ref(
    v: &VariantRef<'_>,
    dict: &mut MetadataBuilder,
    out: &mut Vec<u8>,
) -> Result<()> {
    match v {
        VariantRef::Object(o) => {
            let mut order: Vec<usize> = (0..o.len()).collect();
            order.sort_by_key(|&i| o.value_offset(i));
            let mut w = ObjectWriter::new();
            for i in order {
                let (name, value) = o.field(i)?;
                let id = dict.id(name);
                w.field(id, |buf| write_variant_ref(&value, dict, buf))?;
            }
            w.finish(dict, out)
        }
        VariantRef::Array(a) => {
            let mut w = ArrayWriter::new();
            for e in a.iter() {
                let e = e?;
                w.element(|buf| write_variant_ref(&e, dict, buf))?;
            }
            w.finish(out)
        }
        p => write_primitive(out, p),
    }
}

impl Variant {
    /// Encode with a fresh dictionary of this value's field names, sorted (so flagged sorted).
    pub fn encode(&self) -> Result<EncodedVariant> {
        let mut names = BTreeSet::new();
        self.collect_names(&mut names);
        let mut dict = MetadataBuilder::with_names(names);
        let mut value = Vec::new();
        write_variant(self, &mut dict, &mut value)?;
        Ok(EncodedVariant {
            metadata: dict.finish(),
            value,
        })
    }

    fn collect_names<'a>(&'a self, names: &mut BTreeSet<&'a str>) {
        match self {
            Variant::Object(fields) => {
                for (k, v) in fields {
                    names.insert(k);
                    v.collect_names(names);
                }
            }
            Variant::Array(elements) => elements.iter().for_each(|e| e.collect_names(names)),
            _ => {}
        }
    }
}
