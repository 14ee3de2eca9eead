//! [`LeafFilter`]: which leaf types the generators draw, so that a suite can leave out the
//! types its reader under test does not support (or maps in its own way) instead of drowning
//! in mismatches it already knows about.
//!
//! ```
//! use parq::metadata::Type;
//! use parq::testing::{LeafFilter, LogicalKind, SpecConfig};
//! let config = SpecConfig::default()
//!     .with_leaves(LeafFilter::all()
//!         .without_physical(Type::INT96)
//!         .without_logical(LogicalKind::Interval));
//! assert!(config.leaves.admitted().iter().all(|f| !format!("{f:?}").contains("INT96")));
//! ```

use super::schema::{leaf_types, primitive};
use crate::field::{Field, Primitive};
use crate::metadata::{ConvertedType, LogicalType, Type};

/// The annotation of a leaf, as [`LeafFilter`] names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogicalKind {
    /// No annotation.
    Plain,
    /// STRING.
    String,
    /// ENUM.
    Enum,
    /// JSON.
    Json,
    /// BSON.
    Bson,
    /// UUID.
    Uuid,
    /// FLOAT16.
    Float16,
    /// The INTERVAL converted type.
    Interval,
    /// DATE.
    Date,
    /// TIME of any unit.
    Time,
    /// TIMESTAMP of any unit.
    Timestamp,
    /// INTEGER of a width or sign other than the physical type's.
    Integer,
    /// DECIMAL on any physical type.
    Decimal,
}

impl LogicalKind {
    /// The kind of a leaf's annotation.
    pub fn of(p: &Primitive) -> LogicalKind {
        if p.converted_type == Some(ConvertedType::INTERVAL) {
            return LogicalKind::Interval;
        }
        match &p.logical_type {
            None => LogicalKind::Plain,
            Some(LogicalType::String) => LogicalKind::String,
            Some(LogicalType::Enum) => LogicalKind::Enum,
            Some(LogicalType::Json) => LogicalKind::Json,
            Some(LogicalType::Bson) => LogicalKind::Bson,
            Some(LogicalType::Uuid) => LogicalKind::Uuid,
            Some(LogicalType::Float16) => LogicalKind::Float16,
            Some(LogicalType::Date) => LogicalKind::Date,
            Some(LogicalType::Time { .. }) => LogicalKind::Time,
            Some(LogicalType::Timestamp { .. }) => LogicalKind::Timestamp,
            Some(LogicalType::Integer { .. }) => LogicalKind::Integer,
            Some(LogicalType::Decimal { .. }) => LogicalKind::Decimal,
            Some(_) => LogicalKind::Plain,
        }
    }
}

/// Leaf types left out of generated schemas, by physical type or by annotation; the default
/// admits every type of [`leaf_types`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LeafFilter {
    /// One bit per physical type left out (bit `Type.0`).
    physical: u8,
    /// One bit per [`LogicalKind`] left out.
    logical: u16,
}

impl LeafFilter {
    /// Every leaf type.
    pub const fn all() -> Self {
        LeafFilter {
            physical: 0,
            logical: 0,
        }
    }

    /// This filter, also leaving out leaves of physical type `t`.
    pub const fn without_physical(mut self, t: Type) -> Self {
        if t.0 >= 0 && t.0 < 8 {
            self.physical |= 1 << t.0;
        }
        self
    }

    /// This filter, also leaving out leaves annotated `kind`.
    pub const fn without_logical(mut self, kind: LogicalKind) -> Self {
        self.logical |= 1 << kind as u16;
        self
    }

    /// Whether leaves of `p` are drawn.
    pub fn admits(&self, p: &Primitive) -> bool {
        let physical = p.physical_type.0;
        let out = (0..8).contains(&physical) && self.physical & (1 << physical) != 0;
        !out && self.logical & (1 << LogicalKind::of(p) as u16) == 0
    }

    /// The leaves of [`leaf_types`] this filter admits.
    ///
    /// # Panics
    /// When it admits none: a generator needs at least one leaf type.
    pub fn admitted(&self) -> Vec<Field> {
        let leaves: Vec<Field> = leaf_types()
            .into_iter()
            .filter(|f| primitive(f).is_some_and(|p| self.admits(p)))
            .collect();
        assert!(
            !leaves.is_empty(),
            "the leaf filter {self:?} leaves out every leaf type"
        );
        leaves
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_leave_out_what_they_name() {
        let all = LeafFilter::all().admitted();
        assert_eq!(all.len(), leaf_types().len());
        let f = LeafFilter::all()
            .without_physical(Type::INT96)
            .without_logical(LogicalKind::Decimal)
            .without_logical(LogicalKind::Interval);
        let kept = f.admitted();
        assert!(kept.len() < all.len());
        for leaf in &kept {
            let p = primitive(leaf).unwrap();
            assert_ne!(p.physical_type, Type::INT96);
            assert!(!matches!(
                LogicalKind::of(p),
                LogicalKind::Decimal | LogicalKind::Interval
            ));
        }
        let dropped = all.len() - kept.len();
        // 1 INT96, 9 decimals, 1 interval.
        assert_eq!(dropped, 11);
    }
}
