//! [`ParqFormat`]: the [`FileFormat`] (schema, statistics, scan plan), and its factory for
//! `STORED AS PARQ`.

use std::collections::HashMap;
use std::sync::Arc;

use async_trait::async_trait;
use datafusion::arrow::datatypes::{DataType, Field, Schema, SchemaRef, TimeUnit};
use datafusion::catalog::Session;
use datafusion::common::config::{
    ConfigField, ConfigFileType, ParquetOptions, TableParquetOptions,
};
use datafusion::common::{
    internal_datafusion_err, not_impl_err, plan_err, DataFusionError, GetExt, Result, Statistics,
};
use datafusion::datasource::file_format::file_compression_type::FileCompressionType;
use datafusion::datasource::file_format::{FileFormat, FileFormatFactory};
use datafusion::datasource::physical_plan::{FileScanConfig, FileScanConfigBuilder, FileSource};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::source::DataSourceExec;
use datafusion::datasource::table_schema::TableSchema;
use datafusion::logical_expr::dml::InsertOp;
use datafusion::physical_plan::ExecutionPlan;
use futures::{FutureExt, StreamExt, TryStreamExt};
use object_store::{ObjectMeta, ObjectStore};
use parq::object_store::FooterCache;
use parq::read::{ParquetReader, ReadOptions};

use crate::counted_store::FetchCounts;
use crate::sink::ParqSink;
use crate::source::ParqSource;
use crate::store_source::StoreSource;

/// Parquet read by parq, as a DataFusion [`FileFormat`].
///
/// The schema comes from the footers through [`parq::arrow::to_arrow_schema`] (the embedded
/// `ARROW:schema` honoured), merged across files; like DataFusion's own Parquet format it
/// drops schema-level metadata and, when `datafusion.execution.parquet.schema_force_view_types`
/// is on (the default), reads top-level strings and binaries as views, which parq produces
/// without copying the values. Statistics come from row-group statistics
/// ([`crate::statistics`]).
///
/// Footers fetched for planning are kept (parq's [`FooterCache`], by path, size and version)
/// and reused by this format's scans.
#[derive(Debug, Clone)]
pub struct ParqFormat {
    footers: Arc<FooterCache>,
    /// DataFusion's Parquet options for this table or `COPY`; `None` takes the session's.
    options: Option<TableParquetOptions>,
}

impl Default for ParqFormat {
    fn default() -> Self {
        ParqFormat::new()
    }
}

impl ParqFormat {
    /// Footers a format keeps, at most.
    pub const FOOTER_CACHE_CAPACITY: usize = 4096;

    /// The format, with an empty footer cache.
    pub fn new() -> Self {
        ParqFormat::with_footer_cache(Arc::new(FooterCache::new(Self::FOOTER_CACHE_CAPACITY)))
    }

    /// The format, sharing `footers` (with other formats, or with parq's own readers).
    pub fn with_footer_cache(footers: Arc<FooterCache>) -> Self {
        ParqFormat {
            footers,
            options: None,
        }
    }

    /// The format with DataFusion's Parquet options (`OPTIONS (...)` of a table or a `COPY`):
    /// honoured, or refused by name where parq has no such setting ([`crate::options`]).
    pub fn with_options(mut self, options: TableParquetOptions) -> Self {
        self.options = Some(options);
        self
    }

    /// The options set with [`Self::with_options`].
    pub fn options(&self) -> Option<&TableParquetOptions> {
        self.options.as_ref()
    }

    /// The options in force: the format's own, else the session's.
    fn options_for(&self, state: &dyn Session) -> TableParquetOptions {
        self.options
            .clone()
            .unwrap_or_else(|| state.default_table_options().parquet)
    }
}

/// Fetch (or find in `footers`) and decode one file's footer.
async fn open_footer(
    store: &Arc<dyn ObjectStore>,
    object: &ObjectMeta,
    footers: &Arc<FooterCache>,
) -> Result<ParquetReader<StoreSource>> {
    let (_, footer) = crate::opener::footer(Arc::clone(store), object, footers).await?;
    let source = StoreSource::new(
        Arc::clone(store),
        object.location.clone(),
        object.size,
        Arc::new(FetchCounts::default()),
    );
    crate::opener::metadata_reader(source, &footer, ReadOptions::default())
}

/// DataFusion's read coercions of one file's schema, as its own Parquet reader makes them:
/// `binary_as_string` reads top-level binaries (BYTE_ARRAY without a STRING annotation) as
/// strings, and `coerce_int96` reads top-level INT96 timestamps in that unit (with
/// `coerce_int96_tz`) instead of nanoseconds, which hold dates only up to 2262.
fn coerce(
    schema: Schema,
    leaves: &parq::schema::SchemaDescriptor,
    options: &ParquetOptions,
) -> Result<Schema> {
    let int96_unit = match options.coerce_int96.as_deref() {
        None => None,
        Some(unit) => Some(match unit.to_ascii_lowercase().as_str() {
            "s" => TimeUnit::Second,
            "ms" => TimeUnit::Millisecond,
            "us" => TimeUnit::Microsecond,
            "ns" => TimeUnit::Nanosecond,
            _ => return plan_err!("coerce_int96 {unit:?} is not one of s, ms, us, ns"),
        }),
    };
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let dt = match f.data_type() {
                DataType::Binary if options.binary_as_string => DataType::Utf8,
                DataType::LargeBinary if options.binary_as_string => DataType::LargeUtf8,
                DataType::BinaryView if options.binary_as_string => DataType::Utf8View,
                DataType::Timestamp(_, _)
                    if int96_unit.is_some() && is_top_level_int96(leaves, f.name()) =>
                {
                    DataType::Timestamp(
                        int96_unit.expect("checked"),
                        options.coerce_int96_tz.as_deref().map(Into::into),
                    )
                }
                dt => dt.clone(),
            };
            f.as_ref().clone().with_data_type(dt)
        })
        .collect();
    Ok(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// Whether the file's top-level column `name` is stored as INT96 (which Arrow reads as a
/// timestamp).
pub(crate) fn is_top_level_int96(schema: &parq::schema::SchemaDescriptor, name: &str) -> bool {
    schema.leaves.iter().any(|l| {
        l.physical_type == parq::metadata::Type::INT96 && l.path.len() == 1 && l.path[0] == name
    })
}

/// Top-level strings and binaries as their view types.
fn to_view_types(schema: &Schema) -> Schema {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| {
            let dt = match f.data_type() {
                DataType::Utf8 | DataType::LargeUtf8 => DataType::Utf8View,
                DataType::Binary | DataType::LargeBinary => DataType::BinaryView,
                dt => dt.clone(),
            };
            f.as_ref().clone().with_data_type(dt)
        })
        .collect();
    Schema::new(fields)
}

#[async_trait]
impl FileFormat for ParqFormat {
    /// `parquet`, without a dot, as DataFusion's own Parquet format says it: `COPY` names files
    /// `*.parquet` and listings keep the `.parquet` files.
    fn get_ext(&self) -> String {
        "parquet".to_string()
    }

    fn get_ext_with_compression(&self, c: &FileCompressionType) -> Result<String> {
        if c.is_compressed() {
            return Err(internal_datafusion_err!(
                "Parquet files are not compressed as a whole"
            ));
        }
        Ok(self.get_ext())
    }

    /// Uncompressed as a whole, said rather than left unsaid: a `CREATE EXTERNAL TABLE` on a
    /// folder globs `*.<extension with compression>` when a format names its compression, and
    /// `*.<STORED AS name>` (`*.parq`) when it does not.
    fn compression_type(&self) -> Option<FileCompressionType> {
        Some(FileCompressionType::UNCOMPRESSED)
    }

    async fn infer_schema(
        &self,
        state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        objects: &[ObjectMeta],
    ) -> Result<SchemaRef> {
        let concurrency = state.config_options().execution.meta_fetch_concurrency;
        let options = self.options_for(state).global;
        let opens: Vec<_> = objects
            .iter()
            .map(|object| {
                let (store, object) = (Arc::clone(store), object.clone());
                let footers = Arc::clone(&self.footers);
                let options = options.clone();
                async move {
                    let reader = open_footer(&store, &object, &footers).await?;
                    let schema = reader
                        .arrow_schema()
                        .map_err(|e| DataFusionError::External(Box::new(e)))?;
                    let schema = coerce(schema, reader.schema(), &options)?;
                    Ok::<_, DataFusionError>((object.location.to_string(), schema))
                }
                .boxed()
            })
            .collect();
        let mut schemas: Vec<(String, Schema)> = futures::stream::iter(opens)
            .buffer_unordered(concurrency.get())
            .try_collect()
            .await?;
        // Merge in path order, so that the field order does not depend on listing order.
        schemas.sort_by(|a, b| a.0.cmp(&b.0));
        let schema = Schema::try_merge(
            schemas
                .into_iter()
                .map(|(_, s)| s.with_metadata(HashMap::new())),
        )?;
        let schema = if state
            .config_options()
            .execution
            .parquet
            .schema_force_view_types
        {
            to_view_types(&schema)
        } else {
            schema
        };
        Ok(Arc::new(schema))
    }

    async fn infer_stats(
        &self,
        _state: &dyn Session,
        store: &Arc<dyn ObjectStore>,
        table_schema: SchemaRef,
        object: &ObjectMeta,
    ) -> Result<Statistics> {
        let reader = open_footer(store, object, &self.footers).await?;
        Ok(crate::statistics::file_statistics(
            reader.metadata(),
            reader.schema(),
            &table_schema,
        ))
    }

    async fn create_physical_plan(
        &self,
        state: &dyn Session,
        conf: FileScanConfig,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        crate::options::check_read_options(&self.options_for(state))?;
        let Some(source) = conf.file_source().downcast_ref::<ParqSource>() else {
            return Err(internal_datafusion_err!("expected a ParqSource"));
        };
        let settings = crate::config::filter_settings(state.config_options());
        let conf = if source.filter_settings() == settings {
            conf
        } else {
            let source = source
                .clone()
                .with_row_filter(settings.row_filter)
                .with_row_predicates(settings.row_predicates)
                .with_join_lookups(settings.join_lookups);
            FileScanConfigBuilder::from(conf)
                .with_source(Arc::new(source))
                .build()
        };
        Ok(DataSourceExec::from_data_source(conf))
    }

    async fn create_writer_physical_plan(
        &self,
        input: Arc<dyn ExecutionPlan>,
        state: &dyn Session,
        conf: datafusion::datasource::physical_plan::FileSinkConfig,
        order_requirements: Option<datafusion::physical_expr::LexRequirement>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if conf.insert_op != InsertOp::Append {
            return not_impl_err!("parq-datafusion appends; overwriting a table is not supported");
        }
        let sink = ParqSink::try_new(conf, self.options_for(state))?;
        Ok(Arc::new(DataSinkExec::new(
            input,
            Arc::new(sink),
            order_requirements,
        )))
    }

    fn file_source(&self, table_schema: TableSchema) -> Arc<dyn FileSource> {
        Arc::new(ParqSource::new(table_schema).with_footer_cache(Arc::clone(&self.footers)))
    }
}

/// Makes [`ParqFormat`] for `STORED AS PARQ` (see [`crate::register`]), or, made with
/// [`ParqFormatFactory::for_parquet`], for `STORED AS PARQUET` (see
/// [`crate::register_as_parquet`]).
#[derive(Debug)]
pub struct ParqFormatFactory {
    /// The `STORED AS` name, lower case.
    name: &'static str,
    footers: Arc<FooterCache>,
    /// Options that `create`'s format options are set over, instead of the session's.
    options: Option<TableParquetOptions>,
}

impl Default for ParqFormatFactory {
    fn default() -> Self {
        ParqFormatFactory::new()
    }
}

impl ParqFormatFactory {
    /// The factory for `STORED AS PARQ`.
    pub fn new() -> Self {
        ParqFormatFactory {
            name: "parq",
            footers: Arc::new(FooterCache::new(ParqFormat::FOOTER_CACHE_CAPACITY)),
            options: None,
        }
    }

    /// The factory, its formats made from `options` rather than the session's (as
    /// `DataFrame::write_parquet` gives them).
    pub fn with_options(mut self, options: TableParquetOptions) -> Self {
        self.options = Some(options);
        self
    }

    /// The factory for `STORED AS PARQUET`, taking the place of DataFusion's own.
    pub fn for_parquet() -> Self {
        ParqFormatFactory {
            name: "parquet",
            ..ParqFormatFactory::new()
        }
    }
}

#[cfg(feature = "ballista")]
impl ParqFormatFactory {
    /// The factory's `STORED AS` name and preset options, to send it (Ballista).
    pub(crate) fn parts(&self) -> (&'static str, Option<&TableParquetOptions>) {
        (self.name, self.options.as_ref())
    }
}

impl GetExt for ParqFormatFactory {
    /// The `STORED AS` name: `parq`, or `parquet` ([`ParqFormatFactory::for_parquet`]).
    fn get_ext(&self) -> String {
        self.name.to_string()
    }
}

impl FileFormatFactory for ParqFormatFactory {
    /// The format, with `format_options` (`OPTIONS ('format.compression' 'snappy')`, ...)
    /// over the session's Parquet options, as DataFusion's own factory reads them.
    fn create(
        &self,
        state: &dyn Session,
        format_options: &HashMap<String, String>,
    ) -> Result<Arc<dyn FileFormat>> {
        let options = match &self.options {
            None => {
                let mut table_options = state.default_table_options();
                table_options.set_config_format(ConfigFileType::PARQUET);
                table_options.alter_with_string_hash_map(format_options)?;
                table_options.parquet
            }
            Some(preset) => {
                let mut options = preset.clone();
                for (k, v) in format_options {
                    options.set(k, v)?;
                }
                options
            }
        };
        Ok(Arc::new(
            ParqFormat::with_footer_cache(Arc::clone(&self.footers)).with_options(options),
        ))
    }

    fn default(&self) -> Arc<dyn FileFormat> {
        Arc::new(ParqFormat::with_footer_cache(Arc::clone(&self.footers)))
    }
}
