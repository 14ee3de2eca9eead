//! Virtual columns: where each row of a read sits in its file, which no column chunk stores.
//!
//! Deletion vectors (Delta, Iceberg) name rows by their position in the file, so a reader
//! that prunes, skips pages or filters must still say which file row each output row was.

use std::ops::Range;

use arrow_buffer::ScalarBuffer;

use crate::array::Array;
use crate::column::{Column, Values};
use crate::field::Field;
use crate::metadata::Type;
use crate::{Error, Result};

/// The virtual columns a read appends after its projected fields, by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct VirtualColumns {
    /// The row's position in the file (INT64, from 0, counting every row of every row
    /// group whatever the read skipped).
    pub row_number: Option<String>,
    /// The index of the row's row group (INT32).
    pub row_group: Option<String>,
}

impl VirtualColumns {
    pub(crate) fn is_empty(&self) -> bool {
        self.row_number.is_none() && self.row_group.is_none()
    }

    /// Their fields, in the order their arrays come.
    pub(crate) fn fields(&self) -> Vec<Field> {
        let required = |name: &String, t: Type| Field {
            nullable: false,
            ..Field::primitive(name.clone(), t)
        };
        let mut fields = Vec::new();
        if let Some(name) = &self.row_number {
            fields.push(required(name, Type::INT64));
        }
        if let Some(name) = &self.row_group {
            fields.push(required(name, Type::INT32));
        }
        fields
    }

    /// The arrays of the next `n` rows of `positions`, pushed onto `arrays`.
    pub(crate) fn append(
        &self,
        positions: &mut Positions,
        n: usize,
        arrays: &mut Vec<Array>,
    ) -> Result<()> {
        if self.is_empty() {
            return Ok(());
        }
        let (rows, groups) = positions.take(n)?;
        let column = |values| {
            Array::Primitive(Column {
                len: n,
                validity: None,
                values,
            })
        };
        if self.row_number.is_some() {
            arrays.push(column(Values::Int64(ScalarBuffer::from(rows))));
        }
        if self.row_group.is_some() {
            arrays.push(column(Values::Int32(ScalarBuffer::from(groups))));
        }
        Ok(())
    }
}

/// The file rows a read returns, in output order, as runs of consecutive row numbers with
/// their row group, handed out batch by batch.
#[derive(Debug, Clone, Default)]
pub(crate) struct Positions {
    runs: Vec<(Range<u64>, usize)>,
    /// The next run, and the rows of it already handed out.
    at: usize,
    done: u64,
    /// Rows not yet handed out (kept, not summed: asked once per batch).
    left: u64,
}

impl Positions {
    pub(crate) fn new(runs: Vec<(Range<u64>, usize)>) -> Self {
        let left = runs.iter().map(|(r, _)| r.end - r.start).sum();
        Positions {
            runs,
            at: 0,
            done: 0,
            left,
        }
    }

    /// Rows not yet handed out.
    pub(crate) fn remaining(&self) -> u64 {
        self.left
    }

    /// Pass over the next `n` rows.
    pub(crate) fn skip(&mut self, n: usize) -> Result<()> {
        let mut n = n as u64;
        while n > 0 {
            let Some((run, _)) = self.runs.get(self.at) else {
                return Err(past_the_runs());
            };
            let k = (run.end - run.start - self.done).min(n);
            n -= k;
            self.done += k;
            self.left -= k;
            if run.start + self.done == run.end {
                self.at += 1;
                self.done = 0;
            }
        }
        Ok(())
    }

    /// The row numbers and row groups of the next `n` rows.
    fn take(&mut self, n: usize) -> Result<(Vec<i64>, Vec<i32>)> {
        let mut rows = Vec::with_capacity(n);
        let mut groups = Vec::with_capacity(n);
        while rows.len() < n {
            let Some((run, group)) = self.runs.get(self.at) else {
                return Err(past_the_runs());
            };
            let start = run.start + self.done;
            let k = (run.end - start).min((n - rows.len()) as u64);
            let group = i32::try_from(*group)
                .map_err(|_| Error::format(format!("row group {group} is past i32")))?;
            for r in start..start + k {
                rows.push(
                    i64::try_from(r)
                        .map_err(|_| Error::format(format!("row number {r} is past i64")))?,
                );
            }
            groups.resize(groups.len() + k as usize, group);
            self.done += k;
            self.left -= k;
            if start + k == run.end {
                self.at += 1;
                self.done = 0;
            }
        }
        Ok((rows, groups))
    }
}

fn past_the_runs() -> Error {
    Error::format("a read returned more rows than its row groups and selection hold")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_hand_out_runs_across_batches() {
        let mut p = Positions::new(vec![(10..13, 1), (20..22, 3), (0..1, 0)]);
        assert_eq!(p.remaining(), 6);
        assert_eq!(p.take(2).unwrap(), (vec![10, 11], vec![1, 1]));
        assert_eq!(p.take(3).unwrap(), (vec![12, 20, 21], vec![1, 3, 3]));
        assert_eq!(p.remaining(), 1);
        assert_eq!(p.take(1).unwrap(), (vec![0], vec![0]));
        assert!(p.take(1).is_err());
        let mut p = Positions::new(vec![(10..13, 1), (20..22, 3)]);
        p.skip(4).unwrap();
        assert_eq!(p.take(1).unwrap(), (vec![21], vec![3]));
        assert!(p.skip(1).is_err());
    }
}
