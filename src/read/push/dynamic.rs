//! A filter its owner tightens while a decoder reads.

use std::sync::{Arc, Mutex};

use crate::predicate::Expr;

/// An exact filter that may change while a [`PushDecoder`](super::PushDecoder) reads, such
/// as an engine's dynamic filters: a hash join's build-side keys, a top-k bound.
///
/// Its owner calls [`set`](Self::set) whenever the filter tightens; every clone shares the
/// one filter. The decoder takes the latest version at its next step: the row groups it is
/// not yet decoding (planned ahead or not) are pruned by the new version's statistics at
/// once, their bytes let go, and the others evaluated with it. A row group already
/// evaluated or decoding keeps the version it had. So each row group is filtered by some
/// version: use it where every version keeps every row the reader needs, as a dynamic
/// filter does (it only ever narrows what a query already excludes).
#[derive(Debug, Clone, Default)]
pub struct DynamicFilter {
    inner: Arc<Mutex<Versioned>>,
}

#[derive(Debug, Default)]
struct Versioned {
    version: u64,
    expr: Option<Expr>,
}

impl DynamicFilter {
    /// A filter starting as `expr` (`None`: every row passes).
    pub fn new(expr: Option<Expr>) -> Self {
        DynamicFilter {
            inner: Arc::new(Mutex::new(Versioned { version: 0, expr })),
        }
    }

    /// Replace the filter; decoders take it before their next row group.
    pub fn set(&self, expr: Option<Expr>) {
        let mut v = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        v.version += 1;
        v.expr = expr;
    }

    /// The filter now.
    pub fn get(&self) -> Option<Expr> {
        self.latest().1
    }

    /// The version and the filter now.
    pub(crate) fn latest(&self) -> (u64, Option<Expr>) {
        let v = self.inner.lock().unwrap_or_else(|e| e.into_inner());
        (v.version, v.expr.clone())
    }

    /// The version now, without cloning the filter.
    pub(crate) fn version(&self) -> u64 {
        self.inner.lock().unwrap_or_else(|e| e.into_inner()).version
    }
}
