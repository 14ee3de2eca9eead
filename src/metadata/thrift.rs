//! A hand-written Thrift compact protocol reader and writer.
//!
//! Wire format (see `thrift-compact-protocol.md` in apache/thrift):
//!
//! ```text
//! struct        ::= ( field-header field-value )* stop
//! field-header  ::= ddddtttt                      (delta 1..=15 from the previous id)
//!                 | 0000tttt zigzag-varint(i16)   (long form)
//! stop          ::= 00000000
//! list / set    ::= sssstttt elements             (size 0..=14)
//!                 | 1111tttt varint(size) elements
//! map           ::= 0 | varint(size) kkkkvvvv (key value)*
//! i16/i32/i64   ::= zigzag varint (ULEB128)
//! i8            ::= one byte
//! double        ::= 8 bytes little endian
//! binary        ::= varint(len) bytes
//! bool          ::= in the field header (type 1 = true, 2 = false) for struct fields,
//!                   one byte inside collections (1 = true, 0 or 2 = false)
//! ```
//!
//! The reader works over a byte slice and never panics: every length is checked against the
//! bytes that remain, nesting is bounded by [`MAX_DEPTH`], and unknown fields of any type are
//! skipped. Errors are [`Error::Format`] with the byte offset inside the buffer.

use super::path::{ColumnPath, PathCache};
use super::thrift_struct::Value;
use crate::error::{Error, Location};
use crate::Result;

/// Compact protocol type codes, as they appear in field headers and collection headers.
pub mod ty {
    /// End of a struct (field headers only).
    pub const STOP: u8 = 0;
    /// A `true` bool field (value in the header); also the common bool element type.
    pub const BOOL_TRUE: u8 = 1;
    /// A `false` bool field (value in the header); also the spec's bool element type.
    pub const BOOL_FALSE: u8 = 2;
    /// An 8-bit integer.
    pub const I8: u8 = 3;
    /// A 16-bit integer (zigzag varint).
    pub const I16: u8 = 4;
    /// A 32-bit integer (zigzag varint).
    pub const I32: u8 = 5;
    /// A 64-bit integer (zigzag varint).
    pub const I64: u8 = 6;
    /// An IEEE 754 double, 8 bytes little endian.
    pub const DOUBLE: u8 = 7;
    /// Binary or string: varint length and bytes.
    pub const BINARY: u8 = 8;
    /// A list.
    pub const LIST: u8 = 9;
    /// A set (encoded like a list).
    pub const SET: u8 = 10;
    /// A map.
    pub const MAP: u8 = 11;
    /// A struct or union.
    pub const STRUCT: u8 = 12;
    /// A 16-byte UUID.
    pub const UUID: u8 = 13;
    /// Not a wire code: the type handed out for bool *elements* of a list, set or map, whose
    /// value is one byte rather than part of a header.
    pub const BOOL_ELEM: u8 = 0x10;
}

/// Maximum nesting of structs and collections the reader accepts.
pub const MAX_DEPTH: u32 = 64;

fn type_name(t: u8) -> &'static str {
    match t {
        ty::STOP => "stop",
        ty::BOOL_TRUE | ty::BOOL_FALSE | ty::BOOL_ELEM => "bool",
        ty::I8 => "i8",
        ty::I16 => "i16",
        ty::I32 => "i32",
        ty::I64 => "i64",
        ty::DOUBLE => "double",
        ty::BINARY => "binary",
        ty::LIST => "list",
        ty::SET => "set",
        ty::MAP => "map",
        ty::STRUCT => "struct",
        ty::UUID => "uuid",
        _ => "unknown",
    }
}

/// Reads Thrift compact protocol values from a byte slice, tracking the position.
#[derive(Debug, Clone)]
pub struct CompactReader<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: u32,
    /// Name of the struct being read, for error messages.
    ctx: &'static str,
    /// Set when the last error was a field of an unexpected wire type, which
    /// [`read_struct`](Self::read_struct) turns into skipping the field.
    mismatch: bool,
    /// Bytes the lists decoded from here may still take in memory (see
    /// [`with_memory_budget`](Self::with_memory_budget)).
    memory_left: u64,
    /// The whole of that budget.
    memory_limit: u64,
    /// The column paths read so far, to share with later row groups.
    paths: PathCache<'a>,
}

impl<'a> CompactReader<'a> {
    /// A reader at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        CompactReader {
            buf,
            pos: 0,
            depth: 0,
            ctx: "",
            mismatch: false,
            memory_left: u64::MAX,
            memory_limit: u64::MAX,
            paths: PathCache::default(),
        }
    }

    /// Bound what the decoded lists may take in memory. On the wire an element can be one
    /// byte (an empty struct) and in memory hundreds (a `ColumnChunk`), so a list's length,
    /// though bounded by the bytes remaining, does not bound its memory: each list charges
    /// its elements' in-memory size here before it is allocated, fallibly, and one that
    /// does not fit is an [`Error::Memory`].
    pub fn with_memory_budget(mut self, bytes: u64) -> Self {
        self.memory_left = bytes;
        self.memory_limit = bytes;
        self
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not yet consumed.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// A format error at the current position.
    pub fn error(&self, what: impl Into<String>) -> Error {
        self.error_at(self.pos, what)
    }

    fn error_at(&self, pos: usize, what: impl Into<String>) -> Error {
        let mut what = what.into();
        if !self.ctx.is_empty() {
            what = format!("{}: {what}", self.ctx);
        }
        Error::Format {
            what,
            at: Location {
                offset: Some(pos as u64),
                ..Location::default()
            },
        }
    }

    /// `Ok(v)` if a required field was present, else an error naming it (`"Struct.field"`).
    pub fn required<T>(&self, v: Option<T>, name: &str) -> Result<T> {
        v.ok_or_else(|| self.error(format!("missing required field {name}")))
    }

    /// `Ok(v)` if the required field `field` of struct `name` was present, else an error
    /// naming it (`"Struct.field"`).
    pub fn required_field<T>(&self, v: Option<T>, name: &str, field: &str) -> Result<T> {
        v.ok_or_else(|| self.error(format!("missing required field {name}.{field}")))
    }

    /// One raw byte.
    #[inline(always)]
    pub fn read_byte(&mut self) -> Result<u8> {
        match self.buf.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                Ok(b)
            }
            None => Err(self.end_error()),
        }
    }

    /// The error of a read past the end, out of line: the hot readers stay small enough to
    /// inline into every struct reader.
    #[cold]
    #[inline(never)]
    fn end_error(&self) -> Error {
        self.error("unexpected end of thrift data")
    }

    /// `n` raw bytes.
    #[inline]
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.error(format!(
                "length {n} exceeds the {} bytes remaining",
                self.remaining()
            )));
        }
        let s = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// An unsigned LEB128 varint of at most 10 bytes.
    ///
    /// Most varints of a footer are one or two bytes (field ids, enums, list sizes), and
    /// there are hundreds of thousands of them in a wide footer: the one-byte case is
    /// checked first, the rest is read from the slice without a bounds check per byte, and
    /// errors are built out of line.
    #[inline(always)]
    pub fn read_varint(&mut self) -> Result<u64> {
        match self.buf.get(self.pos) {
            Some(&b) if b < 0x80 => {
                self.pos += 1;
                Ok(u64::from(b))
            }
            _ => self.read_varint_long(),
        }
    }

    /// [`Self::read_varint`] past its first byte's fast path.
    #[inline(never)]
    fn read_varint_long(&mut self) -> Result<u64> {
        let start = self.pos;
        let rest = &self.buf[start.min(self.buf.len())..];
        let rest = &rest[..rest.len().min(10)];
        let mut v: u64 = 0;
        for (i, &b) in rest.iter().enumerate() {
            v |= u64::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                if i == 9 && b > 1 {
                    return Err(self.varint_error(start, "varint overflows 64 bits"));
                }
                self.pos = start + i + 1;
                return Ok(v);
            }
        }
        if rest.len() < 10 {
            // Ran out of bytes before the last byte of the varint.
            self.pos = self.buf.len();
            return Err(self.end_error());
        }
        Err(self.varint_error(start, "varint longer than 10 bytes"))
    }

    #[cold]
    #[inline(never)]
    fn varint_error(&self, start: usize, what: &str) -> Error {
        self.error_at(start, what)
    }

    #[inline(always)]
    fn read_zigzag(&mut self) -> Result<i64> {
        let v = self.read_varint()?;
        Ok((v >> 1) as i64 ^ -((v & 1) as i64))
    }

    /// A zigzag varint that must fit an `i16`.
    pub fn read_i16(&mut self) -> Result<i16> {
        let start = self.pos;
        let v = self.read_zigzag()?;
        i16::try_from(v).map_err(|_| self.error_at(start, format!("{v} out of range for i16")))
    }

    /// A zigzag varint that must fit an `i32`.
    pub fn read_i32(&mut self) -> Result<i32> {
        let start = self.pos;
        let v = self.read_zigzag()?;
        i32::try_from(v).map_err(|_| self.error_at(start, format!("{v} out of range for i32")))
    }

    /// A zigzag varint.
    pub fn read_i64(&mut self) -> Result<i64> {
        self.read_zigzag()
    }

    /// A varint length prefix followed by that many bytes.
    #[inline]
    pub fn read_binary(&mut self) -> Result<&'a [u8]> {
        let start = self.pos;
        let n = self.read_varint()?;
        if n > self.remaining() as u64 {
            return Err(self.error_at(
                start,
                format!(
                    "binary length {n} exceeds the {} bytes remaining",
                    self.remaining()
                ),
            ));
        }
        self.read_bytes(n as usize)
    }

    #[cold]
    #[inline(never)]
    fn type_error(&mut self, want: &str, t: u8) -> Error {
        self.mismatch = true;
        self.error(format!(
            "expected thrift {want}, found {} (type {t})",
            type_name(t)
        ))
    }

    #[inline(always)]
    fn expect(&mut self, t: u8, want: u8) -> Result<()> {
        if t == want {
            Ok(())
        } else {
            Err(self.type_error(type_name(want), t))
        }
    }

    #[inline(always)]
    fn int_value(&mut self, t: u8) -> Result<i64> {
        match t {
            ty::I8 => Ok(i64::from(self.read_byte()? as i8)),
            ty::I16 | ty::I32 | ty::I64 => self.read_zigzag(),
            _ => Err(self.type_error("integer", t)),
        }
    }

    /// An `i8` value of type `t` (any integer type is accepted if the value fits).
    pub fn i8(&mut self, t: u8) -> Result<i8> {
        let start = self.pos;
        let v = self.int_value(t)?;
        i8::try_from(v).map_err(|_| self.error_at(start, format!("{v} out of range for i8")))
    }

    /// An `i16` value of type `t` (any integer type is accepted if the value fits).
    #[inline]
    pub fn i16(&mut self, t: u8) -> Result<i16> {
        let start = self.pos;
        let v = self.int_value(t)?;
        i16::try_from(v).map_err(|_| self.error_at(start, format!("{v} out of range for i16")))
    }

    /// An `i32` value of type `t` (any integer type is accepted if the value fits).
    #[inline(always)]
    pub fn i32(&mut self, t: u8) -> Result<i32> {
        let start = self.pos;
        let v = self.int_value(t)?;
        i32::try_from(v).map_err(|_| self.error_at(start, format!("{v} out of range for i32")))
    }

    /// An `i64` value of type `t`.
    #[inline(always)]
    pub fn i64(&mut self, t: u8) -> Result<i64> {
        self.int_value(t)
    }

    /// A bool value: from the field header for struct fields, one byte for elements.
    #[inline(always)]
    pub fn bool(&mut self, t: u8) -> Result<bool> {
        match t {
            ty::BOOL_TRUE => Ok(true),
            ty::BOOL_FALSE => Ok(false),
            ty::BOOL_ELEM => {
                let start = self.pos;
                match self.read_byte()? {
                    1 => Ok(true),
                    0 | 2 => Ok(false),
                    b => Err(self.error_at(start, format!("invalid bool byte {b}"))),
                }
            }
            _ => Err(self.type_error("bool", t)),
        }
    }

    /// A double value.
    pub fn double(&mut self, t: u8) -> Result<f64> {
        self.expect(t, ty::DOUBLE)?;
        let b = self.read_bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    /// A binary value, borrowed from the input.
    #[inline]
    pub fn binary(&mut self, t: u8) -> Result<&'a [u8]> {
        self.expect(t, ty::BINARY)?;
        self.read_binary()
    }

    /// A binary value, copied.
    pub fn bytes(&mut self, t: u8) -> Result<Vec<u8>> {
        Ok(self.binary(t)?.to_vec())
    }

    /// A string value. Invalid UTF-8 is replaced (U+FFFD), never an error: names and
    /// key/value metadata written by other tools are kept readable.
    pub fn string(&mut self, t: u8) -> Result<String> {
        let b = self.binary(t)?;
        // `from_utf8` first: it checks valid text (nearly every name and path) much faster
        // than the lossy decoder's chunk iterator.
        Ok(match std::str::from_utf8(b) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(b).into_owned(),
        })
    }

    fn enter(&mut self) -> Result<()> {
        if self.depth >= MAX_DEPTH {
            return Err(self.error(format!("thrift nesting deeper than {MAX_DEPTH}")));
        }
        self.depth += 1;
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Read a struct: calls `field(reader, id, type)` for each field until the stop byte.
    /// The callback must consume the field's value (or [`skip`](Self::skip) it).
    /// `name` appears in error messages.
    ///
    /// A field whose wire type is not the one the callback reads it as (the typed readers
    /// report that, e.g. [`i32`](Self::i32) given a list, or a list of the wrong element
    /// type) is skipped like an unknown field: some writers reuse field ids with other
    /// types. A missing required field then still fails where the struct is built.
    pub fn read_struct(
        &mut self,
        name: &'static str,
        mut field: impl FnMut(&mut Self, i16, u8) -> Result<()>,
    ) -> Result<()> {
        self.enter()?;
        let saved = std::mem::replace(&mut self.ctx, name);
        let mut last: i16 = 0;
        loop {
            let start = self.pos;
            let b = self.read_byte()?;
            let t = b & 0x0f;
            if t == ty::STOP {
                break;
            }
            let delta = b >> 4;
            let id = if delta == 0 {
                self.read_i16()?
            } else {
                last.checked_add(i16::from(delta))
                    .ok_or_else(|| self.error_at(start, "field id overflows i16"))?
            };
            if t > ty::UUID {
                return Err(self.error_at(start, format!("invalid thrift field type {t}")));
            }
            last = id;
            let (value_start, depth) = (self.pos, self.depth);
            self.mismatch = false;
            if let Err(e) = field(self, id, t) {
                if !self.mismatch {
                    return Err(e);
                }
                self.mismatch = false;
                self.pos = value_start;
                self.depth = depth;
                self.ctx = name;
                self.skip(t)?;
            }
        }
        self.ctx = saved;
        self.leave();
        Ok(())
    }

    /// A struct value (type `t` must be struct) read by `read`.
    pub fn struct_value<T>(
        &mut self,
        t: u8,
        read: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<T> {
        self.expect(t, ty::STRUCT)?;
        read(self)
    }

    fn elem_type(&self, pos: usize, t: u8) -> Result<u8> {
        match t {
            ty::BOOL_TRUE | ty::BOOL_FALSE => Ok(ty::BOOL_ELEM),
            ty::I8..=ty::UUID => Ok(t),
            _ => Err(self.error_at(pos, format!("invalid thrift element type {t}"))),
        }
    }

    /// A list or set header: `(element type, length)`. Bool elements are reported as
    /// `ty::BOOL_ELEM`. The length is checked against the remaining bytes (every element
    /// takes at least one byte).
    pub fn read_list_header(&mut self) -> Result<(u8, usize)> {
        let start = self.pos;
        let b = self.read_byte()?;
        if b == 0 {
            // Some writers emit a zero element type for empty lists.
            return Ok((ty::I8, 0));
        }
        let short = b >> 4;
        let n = if short == 15 {
            self.read_varint()?
        } else {
            u64::from(short)
        };
        let et = self.elem_type(start, b & 0x0f)?;
        let min = if et == ty::DOUBLE { 8 } else { 1 };
        if n.saturating_mul(min) > self.remaining() as u64 || n > i32::MAX as u64 {
            return Err(self.error_at(
                start,
                format!(
                    "list of {n} elements exceeds the {} bytes remaining",
                    self.remaining()
                ),
            ));
        }
        Ok((et, n as usize))
    }

    /// A map header: `(key type, value type, length)`, length checked like lists.
    pub fn read_map_header(&mut self) -> Result<(u8, u8, usize)> {
        let start = self.pos;
        let n = self.read_varint()?;
        if n == 0 {
            return Ok((ty::I8, ty::I8, 0));
        }
        let kv = self.read_byte()?;
        let kt = self.elem_type(start, kv >> 4)?;
        let vt = self.elem_type(start, kv & 0x0f)?;
        if n.saturating_mul(2) > self.remaining() as u64 || n > i32::MAX as u64 {
            return Err(self.error_at(
                start,
                format!(
                    "map of {n} entries exceeds the {} bytes remaining",
                    self.remaining()
                ),
            ));
        }
        Ok((kt, vt, n as usize))
    }

    /// A list (or set) value of type `t`, each element read by `elem(reader, element_type)`.
    pub fn list<T>(
        &mut self,
        t: u8,
        mut elem: impl FnMut(&mut Self, u8) -> Result<T>,
    ) -> Result<Vec<T>> {
        self.list_with(t, |r, et, v| {
            v.push(elem(r, et)?);
            Ok(())
        })
    }

    /// [`Self::list`] whose elements are appended by `push(reader, element_type, list)`,
    /// which may read an element in its place at the end of the list.
    pub(crate) fn list_with<T>(
        &mut self,
        t: u8,
        mut push: impl FnMut(&mut Self, u8, &mut Vec<T>) -> Result<()>,
    ) -> Result<Vec<T>> {
        let (et, n) = self.list_begin(t)?;
        let mut v = self.list_storage(n)?;
        for _ in 0..n {
            push(self, et, &mut v)?;
        }
        self.list_end();
        Ok(v)
    }

    /// The start of a list (or set) value of type `t`: its element type and length. The
    /// caller reads the elements, then calls [`Self::list_end`].
    pub(crate) fn list_begin(&mut self, t: u8) -> Result<(u8, usize)> {
        if t != ty::LIST && t != ty::SET {
            return Err(self.type_error("list", t));
        }
        self.enter()?;
        self.read_list_header()
    }

    /// The end of a list begun by [`Self::list_begin`].
    pub(crate) fn list_end(&mut self) {
        self.leave();
    }

    /// An empty `Vec` for the `n` elements of a list (from [`Self::list_begin`]).
    ///
    /// `n` is bounded by the remaining bytes, but elements can be much larger in memory than
    /// on the wire: charged to the budget, then reserved fallibly and at once.
    pub(crate) fn list_storage<T>(&mut self, n: usize) -> Result<Vec<T>> {
        let bytes = (n as u64).saturating_mul(std::mem::size_of::<T>() as u64);
        if bytes > self.memory_left {
            return Err(Error::memory(
                format!(
                    "the decoded footer (at a list of {n} {} of {bytes} bytes)",
                    std::any::type_name::<T>().rsplit("::").next().unwrap_or("")
                ),
                (self.memory_limit - self.memory_left).saturating_add(bytes),
                Some(self.memory_limit),
            )
            .at(&Location {
                offset: Some(self.pos as u64),
                ..Location::default()
            }));
        }
        self.memory_left -= bytes;
        let mut v = Vec::new();
        v.try_reserve_exact(n)
            .map_err(|_| Error::memory("the decoded footer (at a list)", bytes, None))?;
        Ok(v)
    }

    /// A column path (a `list<string>` of type `t`), shared with an earlier one of the same
    /// bytes where [`PathCache`] finds it.
    pub(crate) fn column_path(&mut self, t: u8) -> Result<ColumnPath> {
        if t != ty::LIST && t != ty::SET {
            return Err(self.type_error("list", t));
        }
        let buf = self.buf;
        if let Some((p, n)) = self.paths.find(&buf[self.pos..]) {
            self.pos += n;
            return Ok(p);
        }
        let start = self.pos;
        let p = ColumnPath::from(self.list_with(t, String::push_read)?);
        self.paths.keep(&buf[start..self.pos], &p);
        Ok(p)
    }

    /// Skip a value of type `t` (field type or element type), however deeply nested.
    pub fn skip(&mut self, t: u8) -> Result<()> {
        match t {
            ty::BOOL_TRUE | ty::BOOL_FALSE => Ok(()),
            ty::BOOL_ELEM | ty::I8 => self.read_byte().map(|_| ()),
            ty::I16 | ty::I32 | ty::I64 => self.read_varint().map(|_| ()),
            ty::DOUBLE => self.read_bytes(8).map(|_| ()),
            ty::UUID => self.read_bytes(16).map(|_| ()),
            ty::BINARY => self.read_binary().map(|_| ()),
            ty::STRUCT => {
                let ctx = self.ctx;
                self.read_struct(ctx, |r, _, ft| r.skip(ft))
            }
            ty::LIST | ty::SET => {
                self.enter()?;
                let (et, n) = self.read_list_header()?;
                for _ in 0..n {
                    self.skip(et)?;
                }
                self.leave();
                Ok(())
            }
            ty::MAP => {
                self.enter()?;
                let (kt, vt, n) = self.read_map_header()?;
                for _ in 0..n {
                    self.skip(kt)?;
                    self.skip(vt)?;
                }
                self.leave();
                Ok(())
            }
            _ => Err(self.error(format!("cannot skip thrift type {t}"))),
        }
    }
}

/// Writes Thrift compact protocol values into a `Vec<u8>`.
#[derive(Debug)]
pub struct CompactWriter<'a> {
    out: &'a mut Vec<u8>,
    last: i16,
    stack: Vec<i16>,
}

impl<'a> CompactWriter<'a> {
    /// A writer appending to `out`.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        CompactWriter {
            out,
            last: 0,
            stack: Vec::new(),
        }
    }

    /// Start a struct: field ids restart from zero.
    pub fn struct_begin(&mut self) {
        self.stack.push(self.last);
        self.last = 0;
    }

    /// End a struct: writes the stop byte.
    pub fn struct_end(&mut self) {
        self.out.push(ty::STOP);
        self.last = self.stack.pop().unwrap_or(0);
    }

    /// A field header of type `t` (for bools: `ty::BOOL_TRUE` or `ty::BOOL_FALSE`).
    pub fn field_header(&mut self, t: u8, id: i16) {
        let delta = i32::from(id) - i32::from(self.last);
        if (1..=15).contains(&delta) {
            self.out.push(((delta as u8) << 4) | t);
        } else {
            self.out.push(t);
            self.write_i16(id);
        }
        self.last = id;
    }

    /// A raw varint.
    pub fn write_varint(&mut self, mut v: u64) {
        while v >= 0x80 {
            self.out.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.out.push(v as u8);
    }

    /// An `i8` value (one byte).
    pub fn write_i8(&mut self, v: i8) {
        self.out.push(v as u8);
    }

    /// An `i16` value (zigzag varint).
    pub fn write_i16(&mut self, v: i16) {
        self.write_i64(i64::from(v));
    }

    /// An `i32` value (zigzag varint).
    pub fn write_i32(&mut self, v: i32) {
        self.write_i64(i64::from(v));
    }

    /// An `i64` value (zigzag varint).
    pub fn write_i64(&mut self, v: i64) {
        self.write_varint(((v << 1) ^ (v >> 63)) as u64);
    }

    /// A double value.
    pub fn write_double(&mut self, v: f64) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }

    /// A binary or string value.
    pub fn write_binary(&mut self, v: &[u8]) {
        self.write_varint(v.len() as u64);
        self.out.extend_from_slice(v);
    }

    /// A bool list element: 1 for true, 2 for false, as parquet-java writes them (every
    /// reader accepts that; some older ones reject 0).
    pub fn write_bool_elem(&mut self, v: bool) {
        self.out.push(if v { 1 } else { 2 });
    }

    /// A list header. Bool lists use element type 1, as parquet-java writes them.
    pub fn list_header(&mut self, elem_type: u8, n: usize) {
        let et = if elem_type == ty::BOOL_ELEM || elem_type == ty::BOOL_FALSE {
            ty::BOOL_TRUE
        } else {
            elem_type
        };
        if n < 15 {
            self.out.push(((n as u8) << 4) | et);
        } else {
            self.out.push(0xf0 | et);
            self.write_varint(n as u64);
        }
    }

    /// A bool field.
    pub fn bool_field(&mut self, id: i16, v: bool) {
        self.field_header(if v { ty::BOOL_TRUE } else { ty::BOOL_FALSE }, id);
    }

    /// An `i8` field.
    pub fn i8_field(&mut self, id: i16, v: i8) {
        self.field_header(ty::I8, id);
        self.write_i8(v);
    }

    /// An `i16` field.
    pub fn i16_field(&mut self, id: i16, v: i16) {
        self.field_header(ty::I16, id);
        self.write_i16(v);
    }

    /// An `i32` field.
    pub fn i32_field(&mut self, id: i16, v: i32) {
        self.field_header(ty::I32, id);
        self.write_i32(v);
    }

    /// An `i64` field.
    pub fn i64_field(&mut self, id: i16, v: i64) {
        self.field_header(ty::I64, id);
        self.write_i64(v);
    }

    /// A double field.
    pub fn double_field(&mut self, id: i16, v: f64) {
        self.field_header(ty::DOUBLE, id);
        self.write_double(v);
    }

    /// A binary or string field.
    pub fn binary_field(&mut self, id: i16, v: &[u8]) {
        self.field_header(ty::BINARY, id);
        self.write_binary(v);
    }

    /// A list field header; the caller then writes `n` elements.
    pub fn list_field(&mut self, id: i16, elem_type: u8, n: usize) {
        self.field_header(ty::LIST, id);
        self.list_header(elem_type, n);
    }

    /// An empty struct as field `id` (union variants without content).
    pub fn empty_struct_field(&mut self, id: i16) {
        self.field_header(ty::STRUCT, id);
        self.struct_begin();
        self.struct_end();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_and_zigzag_round_trip() {
        let vals = [
            0i64,
            1,
            -1,
            63,
            -64,
            64,
            i32::MAX as i64,
            i32::MIN as i64,
            i64::MAX,
            i64::MIN,
        ];
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        for &v in &vals {
            w.write_i64(v);
        }
        let mut r = CompactReader::new(&out);
        for &v in &vals {
            assert_eq!(r.read_i64().unwrap(), v);
        }
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn varint_spec_example() {
        let mut r = CompactReader::new(&[0xdf, 0x89, 0x03]);
        assert_eq!(r.read_varint().unwrap(), 50399);
    }

    #[test]
    fn varint_errors() {
        assert!(CompactReader::new(&[0x80; 11]).read_varint().is_err());
        assert!(CompactReader::new(&[0xff; 9]).read_varint().is_err());
        let mut over = vec![0xff; 9];
        over.push(0x02);
        assert!(CompactReader::new(&over).read_varint().is_err());
        let mut max = vec![0xff; 9];
        max.push(0x01);
        assert_eq!(CompactReader::new(&max).read_varint().unwrap(), u64::MAX);
    }

    #[test]
    fn i32_out_of_range() {
        let mut out = Vec::new();
        CompactWriter::new(&mut out).write_i64(i64::from(i32::MAX) + 1);
        let err = CompactReader::new(&out).read_i32().unwrap_err();
        assert!(matches!(
            err,
            Error::Format {
                at: Location {
                    offset: Some(0),
                    ..
                },
                ..
            }
        ));
    }

    #[test]
    fn field_headers_short_and_long() {
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.i32_field(1, 7);
        w.i32_field(20, 8); // delta 19: long form
        w.i32_field(5, 9); // negative delta: long form
        w.bool_field(6, true);
        w.bool_field(7, false);
        w.struct_end();
        let mut r = CompactReader::new(&out);
        let mut seen = Vec::new();
        r.read_struct("T", |r, id, t| {
            let v = match t {
                ty::BOOL_TRUE | ty::BOOL_FALSE => i32::from(r.bool(t)?),
                _ => r.i32(t)?,
            };
            seen.push((id, v));
            Ok(())
        })
        .unwrap();
        assert_eq!(seen, [(1, 7), (20, 8), (5, 9), (6, 1), (7, 0)]);
        assert_eq!(r.remaining(), 0);
    }

    #[test]
    fn skip_every_type() {
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.bool_field(1, true);
        w.i8_field(2, -3);
        w.i16_field(3, -300);
        w.i32_field(4, 1 << 20);
        w.i64_field(5, -1 << 40);
        w.double_field(6, 1.5);
        w.binary_field(7, b"hello");
        w.list_field(8, ty::BINARY, 20);
        for _ in 0..20 {
            w.write_binary(b"x");
        }
        w.list_field(9, ty::BOOL_ELEM, 3);
        w.write_bool_elem(true);
        w.write_bool_elem(false);
        w.write_bool_elem(true);
        // map<i32, struct>
        w.field_header(ty::MAP, 10);
        w.write_varint(2);
        w.out.push((ty::I32 << 4) | ty::STRUCT);
        for k in 0..2 {
            w.write_i32(k);
            w.struct_begin();
            w.binary_field(1, b"v");
            w.struct_end();
        }
        // empty map
        w.field_header(ty::MAP, 11);
        w.write_varint(0);
        // nested struct with a list of lists
        w.field_header(ty::STRUCT, 12);
        w.struct_begin();
        w.list_field(1, ty::LIST, 2);
        w.list_header(ty::I32, 1);
        w.write_i32(5);
        w.list_header(ty::I32, 0);
        w.struct_end();
        w.field_header(ty::UUID, 13);
        w.out.extend_from_slice(&[7; 16]);
        w.field_header(ty::SET, 14);
        w.list_header(ty::I64, 1);
        w.write_i64(3);
        w.i32_field(15, 42);
        w.struct_end();

        let mut r = CompactReader::new(&out);
        let mut last = None;
        r.read_struct("T", |r, id, t| {
            if id == 15 {
                last = Some(r.i32(t)?);
                Ok(())
            } else {
                r.skip(t)
            }
        })
        .unwrap();
        assert_eq!(last, Some(42));
        assert_eq!(r.remaining(), 0);
        // Skipping the whole thing as a struct value also works.
        let mut r = CompactReader::new(&out);
        r.skip(ty::STRUCT).unwrap();
        assert_eq!(r.remaining(), 0);
        // Every truncation is an error, never a panic.
        for n in 0..out.len() {
            assert!(CompactReader::new(&out[..n]).skip(ty::STRUCT).is_err());
        }
    }

    #[test]
    fn legacy_list_forms() {
        // Empty list with element type 0.
        let mut r = CompactReader::new(&[0x00]);
        assert_eq!(
            r.list(ty::LIST, |r, t| r.i32(t)).unwrap(),
            Vec::<i32>::new()
        );
        // Bool element type 1 or 2, values 1, 0 and 2.
        for et in [1u8, 2] {
            let buf = [(3 << 4) | et, 1, 0, 2];
            let mut r = CompactReader::new(&buf);
            assert_eq!(
                r.list(ty::LIST, |r, t| r.bool(t)).unwrap(),
                [true, false, false]
            );
        }
        // Long form used for a short list.
        let buf = [0xf5, 0x02, 0x02, 0x04];
        let mut r = CompactReader::new(&buf);
        assert_eq!(r.list(ty::LIST, |r, t| r.i32(t)).unwrap(), [1, 2]);
        // Set encoded like a list.
        let buf = [0x15, 0x02];
        let mut r = CompactReader::new(&buf);
        assert_eq!(r.list(ty::SET, |r, t| r.i32(t)).unwrap(), [1]);
        // Invalid bool byte.
        let buf = [0x11, 3];
        assert!(CompactReader::new(&buf)
            .list(ty::LIST, |r, t| r.bool(t))
            .is_err());
    }

    #[test]
    fn huge_lengths_are_rejected_before_allocating() {
        // list<i32> claiming 2^31-1 elements.
        let buf = [0xf5, 0xff, 0xff, 0xff, 0xff, 0x07, 0x00];
        assert!(CompactReader::new(&buf)
            .list(ty::LIST, |r, t| r.i32(t))
            .is_err());
        // binary claiming u64::MAX bytes.
        let mut buf = vec![0xff; 9];
        buf.push(0x01);
        assert!(CompactReader::new(&buf).read_binary().is_err());
        // map claiming many entries.
        let buf = [0xff, 0xff, 0x03, 0x55, 0, 0];
        assert!(CompactReader::new(&buf).read_map_header().is_err());
        // list<double> needs 8 bytes per element.
        let buf = [0x27, 0, 0, 0, 0, 0, 0, 0, 0];
        assert!(CompactReader::new(&buf).read_list_header().is_err());
    }

    #[test]
    fn nesting_is_bounded() {
        // 100 nested struct fields with id 1.
        let mut buf = vec![0x1c; 100];
        buf.extend(std::iter::repeat_n(0, 101));
        let err = CompactReader::new(&buf).skip(ty::STRUCT).unwrap_err();
        assert!(err.to_string().contains("nesting"), "{err}");
        // 100 nested lists.
        let buf = vec![0x19; 200];
        assert!(CompactReader::new(&buf).skip(ty::LIST).is_err());
    }

    #[test]
    fn wrong_field_type_is_skipped() {
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.binary_field(1, b"x");
        w.list_field(2, ty::BINARY, 2);
        w.write_binary(b"a");
        w.write_binary(b"b");
        w.i32_field(3, 5);
        w.struct_end();
        let (mut one, mut two, mut three) = (None, None, None);
        let mut r = CompactReader::new(&out);
        r.read_struct("T", |r, id, t| {
            match id {
                1 => one = Some(r.i32(t)?),
                2 => two = Some(r.list(t, |r, et| r.i64(et))?),
                3 => three = Some(r.i32(t)?),
                _ => r.skip(t)?,
            }
            Ok(())
        })
        .unwrap();
        assert_eq!((one, two, three), (None, None, Some(5)));
        assert_eq!(r.remaining(), 0);
        let err = r.required(one, "T.one").unwrap_err();
        assert!(
            err.to_string().contains("missing required field T.one"),
            "{err}"
        );
    }

    #[test]
    fn invalid_field_type() {
        let buf = [0x1e, 0x00];
        assert!(CompactReader::new(&buf).skip(ty::STRUCT).is_err());
    }
}
