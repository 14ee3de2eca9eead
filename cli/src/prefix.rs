//! File arguments that name many files: a local directory, or a URL ending in `/`
//! (`s3://bucket/events/`, `file:///data/events/`). They stand for every object under
//! them whose name ends in `.parquet`, in path order (one listing, as
//! [`parq::object_store::Scan::prefix`] lists).
//!
//! `scan` reads them as one multi-file [`Scan`](parq::object_store::Scan) (several files
//! in flight, `--where` pruning whole files and row groups by their footer statistics) with
//! a progress bar on a terminal; `cat`, `head`, `schema` and `meta` go through them one file
//! after the other, as if each had been named, and `cat --where` skips a file whose
//! statistics rule it out before reading any of its data.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use parq::object_store::object_store::local::LocalFileSystem;
use parq::object_store::object_store::path::Path as ObjectPath;
use parq::object_store::object_store::{ObjectMeta, ObjectStore};
use parq::object_store::{Scan, ScanOptions};
use parq::predicate::Expr;
use parq::read::{ParquetReader, ReadOptions};

use crate::remote::{self, ObjectSource};

/// True when `arg` names many files: a URL ending in `/`, or a local directory.
pub fn is_prefix(arg: &Path) -> bool {
    match remote::is_url(arg) {
        true => arg.to_str().is_some_and(|s| s.ends_with('/')),
        false => arg.is_dir(),
    }
}

/// The objects under a prefix argument, listed.
pub struct Listing {
    runtime: Arc<tokio::runtime::Runtime>,
    store: Arc<dyn ObjectStore>,
    /// What object names are shown after: a directory, or a URL's scheme and authority.
    base: Base,
    objects: Vec<ObjectMeta>,
}

enum Base {
    Dir(PathBuf),
    Url(String),
}

impl Listing {
    /// List the `.parquet` objects under `arg` (see [`is_prefix`]).
    pub fn new(arg: &Path) -> parq::Result<Self> {
        let runtime = Arc::new(remote::runtime()?);
        let (store, prefix, base): (Arc<dyn ObjectStore>, _, _) = if remote::is_url(arg) {
            let url = arg.to_string_lossy().into_owned();
            let (store, prefix) = parq::object_store::store_for_url(&url)?;
            // `scheme://authority/`: object locations are relative to it.
            let authority = url.find("://").map_or(0, |i| i + 3);
            let end = url[authority..]
                .find('/')
                .map_or(url.len(), |i| authority + i + 1);
            let base = url[..end].to_string();
            (store, prefix, Base::Url(base))
        } else {
            let store = LocalFileSystem::new_with_prefix(arg).map_err(|e| parq::Error::Fetch {
                object: arg.display().to_string(),
                range: None,
                source: Box::new(e),
            })?;
            (
                Arc::new(store),
                ObjectPath::default(),
                Base::Dir(arg.to_path_buf()),
            )
        };
        let scan = runtime.block_on(Scan::prefix(
            Arc::clone(&store),
            &prefix,
            ScanOptions::default(),
        ))?;
        let objects = scan.objects().to_vec();
        Ok(Listing {
            runtime,
            store,
            base,
            objects,
        })
    }

    /// The objects, in path order.
    pub fn objects(&self) -> &[ObjectMeta] {
        &self.objects
    }

    /// How `meta`'s object is named in output and errors: its local path or its URL.
    pub fn name(&self, meta: &ObjectMeta) -> String {
        match &self.base {
            Base::Dir(dir) => dir.join(meta.location.as_ref()).display().to_string(),
            Base::Url(base) => format!("{base}{}", meta.location),
        }
    }

    /// A reader of `meta`'s object (its footer read, no HEAD request).
    pub fn open(
        &self,
        meta: &ObjectMeta,
        options: ReadOptions,
    ) -> parq::Result<ParquetReader<ObjectSource>> {
        let source = ObjectSource::new(
            Arc::clone(&self.runtime),
            Arc::clone(&self.store),
            meta,
            self.name(meta),
        );
        ParquetReader::with_options(source, options)
    }

    /// A multi-file scan of the objects, and the runtime to poll it on.
    pub fn scan(&self, options: ScanOptions) -> (Scan, Arc<tokio::runtime::Runtime>) {
        let scan = Scan::new(Arc::clone(&self.store), self.objects.clone(), options);
        (scan, Arc::clone(&self.runtime))
    }
}

/// Whether `filter`'s footer statistics leave any row group of `reader`'s file.
pub fn may_match<S: parq::read::Source>(
    reader: &ParquetReader<S>,
    filter: Option<&Expr>,
) -> parq::Result<bool> {
    match filter {
        None => Ok(true),
        Some(expr) => Ok(!expr
            .row_groups_by_statistics(reader.metadata(), reader.schema())?
            .is_empty()),
    }
}
