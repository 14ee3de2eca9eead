//! Dictionary builders (fixed width and byte arrays, borrowed and copied): when they keep the
//! dictionary, its entries are distinct, in first-seen order, and `dict[indices[i]] ==
//! values[i]`; when they abort, `at_value` is within the pushed values.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use parq_codecs::encoding::dictionary::{ByteArrayDictionaryBuilder, DictionaryBuilder};
use std::collections::HashSet;

#[derive(Arbitrary, Debug)]
struct Input {
    /// Declared total (may be smaller or larger than what is pushed).
    total: Option<u16>,
    max_dict_bytes: u16,
    /// Exact PLAIN size for the byte-array builder.
    exact_plain: bool,
    /// Push one at a time (else `extend`).
    one_by_one: bool,
    kind: Kind,
}

#[derive(Arbitrary, Debug)]
enum Kind {
    /// Small alphabet: many repeats.
    U8(Vec<u8>),
    I64(Vec<i64>),
    Bytes(Vec<Vec<u8>>),
}

fn first_seen<T: Clone + Eq + std::hash::Hash>(values: &[T]) -> Vec<T> {
    let mut seen = HashSet::new();
    values
        .iter()
        .filter(|v| seen.insert((*v).clone()))
        .cloned()
        .collect()
}

fn fixed<T: bytemuck::Pod + Eq + std::hash::Hash + std::fmt::Debug>(values: &[T], input: &Input) {
    let total = input.total.map_or(values.len(), |t| t as usize);
    let mut b = DictionaryBuilder::<T>::new(total, input.max_dict_bytes as usize);
    let pushed = if input.one_by_one {
        values.iter().try_for_each(|&v| b.push(v))
    } else {
        b.extend(values)
    };
    match (pushed, b.finish()) {
        (Ok(()), Ok((dict, indices))) => {
            assert_eq!(dict, first_seen(values), "dictionary");
            assert_eq!(indices.len(), values.len());
            for (i, &ix) in indices.iter().enumerate() {
                assert_eq!(dict[ix as usize], values[i], "value {i}");
            }
        }
        (Err(a), Err(f)) => {
            assert_eq!(a, f, "abort not sticky");
            assert!(a.at_value >= 1 && a.at_value <= values.len(), "{a:?}");
        }
        (p, f) => panic!("push {p:?} but finish {:?}", f.map(|_| ())),
    }
}

fuzz_target!(|input: Input| match &input.kind {
    Kind::U8(v) => fixed(v, &input),
    Kind::I64(v) => fixed(v, &input),
    Kind::Bytes(values) => {
        let total = input.total.map_or(values.len(), |t| t as usize);
        let new = || {
            let b = ByteArrayDictionaryBuilder::new(total, input.max_dict_bytes as usize);
            if input.exact_plain {
                b.with_plain_bytes(values.iter().map(|v| 4 + v.len()).sum())
            } else {
                b
            }
        };
        let mut b1 = new();
        let mut b2 = new();
        let (p1, p2) = if input.one_by_one {
            (
                values.iter().try_for_each(|v| b1.push(&v[..])),
                values.iter().try_for_each(|v| b2.push(&v[..])),
            )
        } else {
            (
                b1.extend(values.iter().map(|v| &v[..])),
                b2.extend(values.iter().map(|v| &v[..])),
            )
        };
        assert_eq!(p1, p2);
        match (p1, b1.finish_borrowed(), b2.finish()) {
            (Ok(()), Ok((dict, indices)), Ok(owned)) => {
                let expected = first_seen(values);
                assert_eq!(dict.len(), expected.len());
                for (d, e) in dict.iter().zip(&expected) {
                    assert_eq!(*d, &e[..]);
                }
                assert_eq!(indices, owned.indices);
                assert_eq!(owned.offsets.len(), dict.len() + 1);
                assert_eq!(owned.offsets[0], 0);
                for (i, d) in dict.iter().enumerate() {
                    let (s, e) = (owned.offsets[i] as usize, owned.offsets[i + 1] as usize);
                    assert_eq!(&owned.data[s..e], *d);
                }
                for (i, &ix) in indices.iter().enumerate() {
                    assert_eq!(dict[ix as usize], &values[i][..], "value {i}");
                }
            }
            (Err(a), Err(f1), Err(f2)) => {
                assert_eq!(a, f1);
                assert_eq!(a, f2);
                assert!(a.at_value >= 1 && a.at_value <= values.len(), "{a:?}");
            }
            (p, f1, f2) => panic!(
                "push {p:?}, finish_borrowed {:?}, finish {:?}",
                f1.is_ok(),
                f2.is_ok()
            ),
        }
    }
});
