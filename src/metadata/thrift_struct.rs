//! One declaration per Thrift struct: [`thrift_struct!`] turns a list of fields (id,
//! required/optional, Rust field, Rust type) into the Rust struct, its reader and its
//! writer, so that a field id or a field type is written down once.
//!
//! The Thrift type of a field follows from its Rust type through [`Value`]:
//!
//! | Rust type | Thrift type |
//! | --- | --- |
//! | `bool`, `i8`, `i16`, `i32`, `i64`, `f64` | the same |
//! | `String` | `string` (invalid UTF-8 replaced, never an error) |
//! | `Vec<u8>` | `binary` |
//! | `Vec<T>` | `list<T>` (charged to the reader's memory budget) |
//! | `InlineBytes` | `binary` (held in place when short) |
//! | `InlineVec<T, N>` | `list<T>` (held in place up to `N`, charged beyond) |
//! | `ColumnPath` | `list<string>` (shared with an earlier path of the same bytes) |
//! | an enum of `types.rs` (`Type`, `Encoding`, ...) | `i32` |
//! | a struct declared here, or a union | `struct` |
//!
//! Field kinds: `required` (absent is an [`Error::Format`](crate::Error::Format) naming
//! `Struct.field`), `optional` (an `Option`), and `default` (absent reads as
//! `Default::default()`, always written). `as "name"` gives the spec's name, for errors,
//! where the Rust name differs (`type_ as "type"`, and `struct AesGcmParams as "AesGcm"`).
//!
//! A declaration that starts with `in_place;` (the struct must implement `Default`) is read
//! in place: its fields, and it inside a list or an `Option`, are filled where they are kept
//! rather than built and moved there (see [`Value::read_into`]).
//!
//! Reading keeps the rules of [`CompactReader::read_struct`]: unknown field ids and fields of
//! an unexpected wire type are skipped. Writing emits the fields in declaration order (by
//! increasing id), an optional field only when it is set.
//!
//! Unions (`LogicalType`, `ColumnOrder`, `ColumnCryptoMetaData`, `EncryptionAlgorithm`,
//! `TimeUnit`, the bloom filter unions) stay hand-written: they are a match over the one field
//! id that is set, keep unknown variants as their id, and a macro would only hide that match.
//! They implement [`Value`] through [`struct_value!`].

use super::thrift::{ty, CompactReader, CompactWriter};
use crate::Result;

/// A Rust type that is one Thrift value of the compact protocol.
pub(crate) trait Value: Sized {
    /// The compact type code of the value as a list element (bools: [`ty::BOOL_ELEM`]).
    const TYPE: u8;

    /// Reads a value of wire type `t`, a field's type or a list's element type.
    fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self>;

    /// Reads a value of wire type `t` over `slot` (a required or defaulted field).
    ///
    /// Structs declared `in_place` read straight into the slot: a `ColumnChunk` is 680
    /// bytes, and returning it through `Result`s, `Option` locals and a final push would
    /// copy it four or five times, for each of the tens of thousands in a wide footer.
    #[inline]
    fn read_into(r: &mut CompactReader<'_>, t: u8, slot: &mut Self) -> Result<()> {
        *slot = Self::read_value(r, t)?;
        Ok(())
    }

    /// Reads a value of wire type `t` into `slot` (an optional field), as
    /// [`Value::read_into`].
    #[inline]
    fn read_option(r: &mut CompactReader<'_>, t: u8, slot: &mut Option<Self>) -> Result<()> {
        *slot = Some(Self::read_value(r, t)?);
        Ok(())
    }

    /// Reads a list element of wire type `t` onto the end of `v`, as [`Value::read_into`].
    #[inline]
    fn push_read(r: &mut CompactReader<'_>, t: u8, v: &mut Vec<Self>) -> Result<()> {
        v.push(Self::read_value(r, t)?);
        Ok(())
    }

    /// Writes the value alone: a list element, or a field's value after its header.
    fn write_value(&self, w: &mut CompactWriter<'_>);

    /// Writes the value as field `id`, header first.
    #[inline]
    fn write_field(&self, w: &mut CompactWriter<'_>, id: i16) {
        w.field_header(Self::TYPE, id);
        self.write_value(w);
    }
}

/// Reads a value of wire type `t` as a `T` (the declared field's type, inferred).
#[inline]
pub(crate) fn read<T: Value>(r: &mut CompactReader<'_>, t: u8) -> Result<T> {
    T::read_value(r, t)
}

impl Value for bool {
    const TYPE: u8 = ty::BOOL_ELEM;

    #[inline]
    fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
        r.bool(t)
    }

    #[inline]
    fn write_value(&self, w: &mut CompactWriter<'_>) {
        w.write_bool_elem(*self);
    }

    /// A bool field's value is its header's type.
    #[inline]
    fn write_field(&self, w: &mut CompactWriter<'_>, id: i16) {
        w.bool_field(id, *self);
    }
}

/// [`Value`] for the integer and double types: the reader's typed read, the writer's write.
macro_rules! number_value {
    ($($rust:ty: $code:ident, $read:ident, $write:ident;)*) => {$(
        impl Value for $rust {
            const TYPE: u8 = ty::$code;

            #[inline]
            fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
                r.$read(t)
            }

            #[inline]
            fn write_value(&self, w: &mut CompactWriter<'_>) {
                w.$write(*self);
            }
        }
    )*};
}

number_value! {
    i8: I8, i8, write_i8;
    i16: I16, i16, write_i16;
    i32: I32, i32, write_i32;
    i64: I64, i64, write_i64;
    f64: DOUBLE, double, write_double;
}

impl Value for String {
    const TYPE: u8 = ty::BINARY;

    #[inline]
    fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
        r.string(t)
    }

    #[inline]
    fn write_value(&self, w: &mut CompactWriter<'_>) {
        w.write_binary(self.as_bytes());
    }
}

impl Value for Vec<u8> {
    const TYPE: u8 = ty::BINARY;

    #[inline]
    fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
        r.bytes(t)
    }

    #[inline]
    fn write_value(&self, w: &mut CompactWriter<'_>) {
        w.write_binary(self);
    }
}

impl<T: Value> Value for Vec<T> {
    const TYPE: u8 = ty::LIST;

    #[inline]
    fn read_value(r: &mut CompactReader<'_>, t: u8) -> Result<Self> {
        r.list_with(t, T::push_read)
    }

    #[inline]
    fn write_value(&self, w: &mut CompactWriter<'_>) {
        w.list_header(T::TYPE, self.len());
        for v in self {
            v.write_value(w);
        }
    }
}

/// [`Value`] (a `struct` on the wire) for types with inherent `read(&mut CompactReader)` and
/// `write(&self, &mut CompactWriter)`: the declared structs and the hand-written unions.
macro_rules! struct_value {
    ($($t:ty),* $(,)?) => {$(
        impl $crate::metadata::thrift_struct::Value for $t {
            const TYPE: u8 = $crate::metadata::thrift::ty::STRUCT;

            #[inline]
            fn read_value(
                r: &mut $crate::metadata::thrift::CompactReader<'_>,
                t: u8,
            ) -> $crate::Result<Self> {
                r.struct_value(t, <$t>::read)
            }

            #[inline]
            fn write_value(&self, w: &mut $crate::metadata::thrift::CompactWriter<'_>) {
                self.write(w);
            }
        }
    )*};
}

/// [`Value`] for a struct declared `in_place` (it implements `Default` and `read_into`):
/// fields, options and list elements are read where they are kept, never moved there.
macro_rules! struct_value_in_place {
    ($t:ty) => {
        impl $crate::metadata::thrift_struct::Value for $t {
            const TYPE: u8 = $crate::metadata::thrift::ty::STRUCT;

            #[inline]
            fn read_value(
                r: &mut $crate::metadata::thrift::CompactReader<'_>,
                t: u8,
            ) -> $crate::Result<Self> {
                r.struct_value(t, <$t>::read)
            }

            #[inline]
            fn read_into(
                r: &mut $crate::metadata::thrift::CompactReader<'_>,
                t: u8,
                slot: &mut Self,
            ) -> $crate::Result<()> {
                // The wire type first: a field of another type is skipped, the slot kept.
                r.struct_value(t, |r| {
                    *slot = <$t>::default();
                    <$t>::read_fields(r, slot)
                })
            }

            #[inline]
            fn read_option(
                r: &mut $crate::metadata::thrift::CompactReader<'_>,
                t: u8,
                slot: &mut Option<Self>,
            ) -> $crate::Result<()> {
                r.struct_value(t, |r| <$t>::read_fields(r, slot.insert(<$t>::default())))
            }

            #[inline]
            fn push_read(
                r: &mut $crate::metadata::thrift::CompactReader<'_>,
                t: u8,
                v: &mut Vec<Self>,
            ) -> $crate::Result<()> {
                r.struct_value(t, |r| {
                    v.push(<$t>::default());
                    match v.last_mut() {
                        Some(slot) => <$t>::read_fields(r, slot),
                        None => Ok(()),
                    }
                })
            }

            #[inline]
            fn write_value(&self, w: &mut $crate::metadata::thrift::CompactWriter<'_>) {
                self.write(w);
            }
        }
    };
}

/// Declares a Thrift struct: the Rust struct, `read`, `write` and its [`Value`] (see the
/// module documentation for the syntax).
macro_rules! thrift_struct {
    (@name $rust:ident) => { stringify!($rust) };
    (@name $rust:ident $thrift:literal) => { $thrift };

    (@type optional $ty:ty) => { Option<$ty> };
    (@type $kind:ident $ty:ty) => { $ty };

    (@take required $r:ident $field:ident $name:expr) => {
        $r.required_field($field, Self::THRIFT_NAME, $name)?
    };
    (@take optional $r:ident $field:ident $name:expr) => { $field };
    (@take default $r:ident $field:ident $name:expr) => { $field.unwrap_or_default() };

    (@write optional $w:ident $v:expr, $id:literal) => {
        if let Some(v) = &$v {
            $crate::metadata::thrift_struct::Value::write_field(v, $w, $id);
        }
    };
    (@write $kind:ident $w:ident $v:expr, $id:literal) => {
        $crate::metadata::thrift_struct::Value::write_field(&$v, $w, $id)
    };

    (@check required $r:ident $seen:ident $id:literal $name:expr) => {
        if $seen & (1u64 << $id) == 0 {
            return Err($r.error(format!(
                "missing required field {}.{}",
                Self::THRIFT_NAME,
                $name
            )));
        }
    };
    (@check $kind:ident $r:ident $seen:ident $id:literal $name:expr) => {};

    (@read optional $r:ident $t:ident $slot:expr) => {
        $crate::metadata::thrift_struct::Value::read_option($r, $t, $slot)?
    };
    (@read $kind:ident $r:ident $t:ident $slot:expr) => {
        $crate::metadata::thrift_struct::Value::read_into($r, $t, $slot)?
    };

    // A struct read in place (it must implement `Default`): see `Value::read_into`.
    (
        in_place;
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(as $thrift:literal)? {
            $(
                $(#[$fmeta:meta])*
                $id:literal : $kind:ident $field:ident $(as $fname:literal)? : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$fmeta])* pub $field: thrift_struct!(@type $kind $ty), )*
        }

        impl $name {
            const THRIFT_NAME: &'static str = thrift_struct!(@name $name $($thrift)?);

            #[doc = concat!("Reads a `", stringify!($name), "` struct.")]
            pub fn read(
                r: &mut $crate::metadata::thrift::CompactReader<'_>,
            ) -> $crate::Result<Self> {
                let mut out = Self::default();
                Self::read_fields(r, &mut out)?;
                Ok(out)
            }

            /// Reads the fields of a struct into `out` (a default value), each where it is
            /// kept; required fields missing are an error.
            #[allow(clippy::match_single_binding, unused_mut, unused_variables)]
            fn read_fields(
                r: &mut $crate::metadata::thrift::CompactReader<'_>,
                out: &mut Self,
            ) -> $crate::Result<()> {
                // Field ids are bits of `seen` (which required fields were read).
                $( const _: () = assert!($id >= 1 && $id < 64); )*
                let mut seen: u64 = 0;
                r.read_struct(Self::THRIFT_NAME, |r, id, t| {
                    match id {
                        $( $id => {
                            thrift_struct!(@read $kind r t &mut out.$field);
                            seen |= 1u64 << $id;
                        } )*
                        _ => r.skip(t)?,
                    }
                    Ok(())
                })?;
                $( thrift_struct!(@check $kind r seen $id
                    thrift_struct!(@name $field $($fname)?)); )*
                Ok(())
            }

            #[doc = concat!("Writes a `", stringify!($name), "` struct.")]
            pub fn write(&self, w: &mut $crate::metadata::thrift::CompactWriter<'_>) {
                w.struct_begin();
                $( thrift_struct!(@write $kind w self.$field, $id); )*
                w.struct_end();
            }
        }

        struct_value_in_place!($name);
    };

    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(as $thrift:literal)? {
            $(
                $(#[$fmeta:meta])*
                $id:literal : $kind:ident $field:ident $(as $fname:literal)? : $ty:ty
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name {
            $( $(#[$fmeta])* pub $field: thrift_struct!(@type $kind $ty), )*
        }

        impl $name {
            const THRIFT_NAME: &'static str = thrift_struct!(@name $name $($thrift)?);

            #[doc = concat!("Reads a `", stringify!($name), "` struct.")]
            #[allow(clippy::match_single_binding)] // a struct without fields
            pub fn read(
                r: &mut $crate::metadata::thrift::CompactReader<'_>,
            ) -> $crate::Result<Self> {
                $( let mut $field: Option<$ty> = None; )*
                r.read_struct(Self::THRIFT_NAME, |r, id, t| {
                    match id {
                        $( $id => $field = Some($crate::metadata::thrift_struct::read(r, t)?), )*
                        _ => r.skip(t)?,
                    }
                    Ok(())
                })?;
                Ok($name {
                    $( $field: thrift_struct!(@take $kind r $field
                        thrift_struct!(@name $field $($fname)?)), )*
                })
            }

            #[doc = concat!("Writes a `", stringify!($name), "` struct.")]
            pub fn write(&self, w: &mut $crate::metadata::thrift::CompactWriter<'_>) {
                w.struct_begin();
                $( thrift_struct!(@write $kind w self.$field, $id); )*
                w.struct_end();
            }
        }

        struct_value!($name);
    };

}

#[cfg(test)]
mod tests {
    use crate::metadata::thrift::{CompactReader, CompactWriter};
    use crate::metadata::{BloomFilterHeader, ColumnChunk, ColumnMetaData, OffsetIndex};
    use crate::Error;

    fn empty_struct() -> Vec<u8> {
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.struct_end();
        out
    }

    #[test]
    fn required_fields_are_named_as_the_spec_names_them() {
        for (err, name) in [
            (
                ColumnMetaData::read(&mut CompactReader::new(&empty_struct())).unwrap_err(),
                "ColumnMetaData.type",
            ),
            (
                BloomFilterHeader::read(&mut CompactReader::new(&empty_struct())).unwrap_err(),
                "BloomFilterHeader.numBytes",
            ),
            (
                OffsetIndex::read(&mut CompactReader::new(&empty_struct())).unwrap_err(),
                "OffsetIndex.page_locations",
            ),
        ] {
            match err {
                Error::Format { what, at } => {
                    assert!(
                        what.contains(&format!("missing required field {name}")),
                        "{what}"
                    );
                    assert_eq!(at.offset, Some(1));
                }
                e => panic!("{e:?}"),
            }
        }
    }

    #[test]
    fn default_fields_read_as_default_and_are_always_written() {
        let c = ColumnChunk::read(&mut CompactReader::new(&empty_struct())).unwrap();
        assert_eq!(c, ColumnChunk::default());
        let mut out = Vec::new();
        c.write(&mut CompactWriter::new(&mut out));
        // Field 2 (file_offset) as an i64 of 0, then stop.
        assert_eq!(out, [0x26, 0x00, 0x00]);
    }

    #[test]
    fn structs_read_in_place_keep_the_rules_of_owned_reads() {
        use crate::metadata::thrift::ty;
        use crate::metadata::Statistics;
        // `meta_data` (field 3) as an i32: skipped, the field stays unset.
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.i32_field(3, 7);
        w.i64_field(4, 99);
        w.struct_end();
        let c = ColumnChunk::read(&mut CompactReader::new(&out)).unwrap();
        assert_eq!(c.meta_data, None);
        assert_eq!(c.offset_index_offset, Some(99));
        // A struct field given twice reads as the last one, not as a merge of both.
        let mut out = Vec::new();
        let mut w = CompactWriter::new(&mut out);
        w.struct_begin();
        w.field_header(ty::STRUCT, 12);
        Statistics {
            null_count: Some(1),
            max_value: Some(b"z".to_vec().into()),
            ..Statistics::default()
        }
        .write(&mut w);
        w.struct_end();
        // The same id again: a long-form header (delta 0, then the id).
        let mut twice = out[..out.len() - 1].to_vec();
        twice.push(ty::STRUCT);
        let mut w = CompactWriter::new(&mut twice);
        w.write_i16(12);
        Statistics {
            min_value: Some(b"a".to_vec().into()),
            ..Statistics::default()
        }
        .write(&mut w);
        twice.push(ty::STOP);
        let mut r = CompactReader::new(&twice);
        let mut stats = None;
        r.read_struct("T", |r, id, t| match id {
            12 => super::Value::read_option(r, t, &mut stats),
            _ => r.skip(t),
        })
        .unwrap();
        let stats: Statistics = stats.unwrap();
        assert_eq!(stats.null_count, None);
        assert_eq!(stats.max_value, None);
        assert_eq!(stats.min_value.as_deref(), Some(&b"a"[..]));
        // Every truncation of a column chunk is an error, never a panic.
        let mut full = Vec::new();
        ColumnChunk {
            meta_data: Some(ColumnMetaData {
                path_in_schema: vec!["a".into()].into(),
                encodings: [Default::default(); 3].into(),
                statistics: Some(stats),
                ..ColumnMetaData::default()
            }),
            ..ColumnChunk::default()
        }
        .write(&mut CompactWriter::new(&mut full));
        assert!(ColumnChunk::read(&mut CompactReader::new(&full)).is_ok());
        for n in 0..full.len() {
            assert!(ColumnChunk::read(&mut CompactReader::new(&full[..n])).is_err());
        }
    }

    #[test]
    fn lists_of_declared_structs_are_charged_to_the_memory_budget() {
        let mut out = Vec::new();
        OffsetIndex {
            page_locations: vec![Default::default(); 100],
            unencoded_byte_array_data_bytes: None,
        }
        .write(&mut CompactWriter::new(&mut out));
        let mut r = CompactReader::new(&out).with_memory_budget(100);
        assert!(matches!(
            OffsetIndex::read(&mut r),
            Err(Error::Memory { .. })
        ));
        let mut r = CompactReader::new(&out).with_memory_budget(1 << 20);
        assert_eq!(OffsetIndex::read(&mut r).unwrap().page_locations.len(), 100);
    }
}
