//! Pruning by split-block bloom filters, for `=` and `IN`.
//!
//! A filter holds the xxHash64 of each distinct value's PLAIN bytes (no length prefix). A
//! literal is looked up in every form a matching value may have been stored in: both zeros
//! of a float (`0.0 = -0.0`, but they hash apart); none for a literal no value of the column
//! can equal (a double that no FLOAT holds exactly). Where the stored bytes are not fixed by
//! the value (decimals in BYTE_ARRAY, whose byte length is the writer's choice; FLOAT16;
//! booleans) filters are not used.

use super::literal::{be_to_i128, Domain, Scalar};
use super::{CmpOp, Leaf, Test};
use crate::bloom::{hash_bytes, Sbbf};

/// The PLAIN bytes a writer hashed for a value equal to `v`; `None` when they are not
/// determined by the value.
pub(crate) fn plain_forms(
    domain: Domain,
    type_length: Option<i32>,
    v: &Scalar,
) -> Option<Vec<Vec<u8>>> {
    let zeros = |pos: Vec<u8>, neg: Vec<u8>| vec![pos, neg];
    Some(match (domain, v) {
        (Domain::I32, Scalar::I32(x)) => vec![x.to_le_bytes().to_vec()],
        (Domain::U32, Scalar::U32(x)) => vec![x.to_le_bytes().to_vec()],
        (Domain::I64, Scalar::I64(x)) => vec![x.to_le_bytes().to_vec()],
        (Domain::U64, Scalar::U64(x)) => vec![x.to_le_bytes().to_vec()],
        (Domain::F64, Scalar::F64(x)) if *x == 0.0 => {
            zeros(0f64.to_le_bytes().to_vec(), (-0f64).to_le_bytes().to_vec())
        }
        (Domain::F64, Scalar::F64(x)) => vec![x.to_le_bytes().to_vec()],
        (Domain::F32, Scalar::F64(x)) => {
            let f = *x as f32;
            if f as f64 != *x {
                // No FLOAT equals it.
                Vec::new()
            } else if f == 0.0 {
                zeros(0f32.to_le_bytes().to_vec(), (-0f32).to_le_bytes().to_vec())
            } else {
                vec![f.to_le_bytes().to_vec()]
            }
        }
        (Domain::Bytes, Scalar::Bytes(b)) => vec![b.clone()],
        (Domain::Decimal, Scalar::Dec(x)) => {
            // FIXED_LEN_BYTE_ARRAY: the two's complement in exactly `width` bytes.
            let width = usize::try_from(type_length?)
                .ok()
                .filter(|w| (1..=16).contains(w))?;
            let bytes = x.to_be_bytes()[16 - width..].to_vec();
            if be_to_i128(&bytes) == Some(*x) {
                vec![bytes]
            } else {
                // Out of the column's range: no value equals it.
                Vec::new()
            }
        }
        _ => return None,
    })
}

/// The hashes to look up for the leaf's `=` / `IN` test; `None` when the filter cannot
/// decide it (another test, or values whose stored bytes are not known).
pub(crate) fn leaf_hashes(leaf: &Leaf, type_length: Option<i32>) -> Option<Vec<u64>> {
    let values: &[Scalar] = match &leaf.test {
        Test::Cmp {
            op: CmpOp::Eq,
            value,
            ..
        } => std::slice::from_ref(value),
        Test::In(values) => values,
        _ => return None,
    };
    let mut hashes = Vec::new();
    for v in values {
        hashes.extend(
            plain_forms(leaf.domain, type_length, v)?
                .iter()
                .map(|b| hash_bytes(b)),
        );
    }
    Some(hashes)
}

/// True when `filter` holds none of `hashes`.
pub(crate) fn excludes(filter: &Sbbf, hashes: &[u64]) -> bool {
    hashes.iter().all(|h| !filter.check_hash(*h))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms_of_values() {
        assert_eq!(
            plain_forms(Domain::F64, None, &Scalar::F64(-0.0))
                .unwrap()
                .len(),
            2
        );
        assert!(plain_forms(Domain::F32, None, &Scalar::F64(0.1))
            .unwrap()
            .is_empty());
        assert_eq!(
            plain_forms(Domain::F32, None, &Scalar::F64(0.5)).unwrap(),
            vec![0.5f32.to_le_bytes().to_vec()]
        );
        assert_eq!(
            plain_forms(Domain::Decimal, Some(3), &Scalar::Dec(-2)).unwrap(),
            vec![vec![0xff, 0xff, 0xfe]]
        );
        assert!(plain_forms(Domain::Decimal, Some(1), &Scalar::Dec(300))
            .unwrap()
            .is_empty());
        assert!(plain_forms(Domain::Decimal, None, &Scalar::Dec(1)).is_none());
        assert!(plain_forms(Domain::Bool, None, &Scalar::Bool(true)).is_none());
    }
}
