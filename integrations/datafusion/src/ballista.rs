//! Plans that read through parq, on a Ballista cluster (feature `ballista`).
//!
//! Ballista ships plans as protobuf: the client sends the logical plan to the scheduler, and
//! the scheduler sends each stage's physical plan to the executors. Two codecs carry what
//! `datafusion-proto` does not know:
//! - [`ParqPhysicalCodec`]: a `DataSourceExec` whose source is a [`ParqSource`] (its
//!   `FileScanConfig` — file groups and their row-group ranges, schema, projection, limit,
//!   statistics, ordering — through `datafusion-proto`'s own file-scan message, plus the
//!   pruning predicate),
//!   and a write: a `DataSinkExec` over a [`ParqSink`] (its `FileSinkConfig` and
//!   DataFusion's Parquet options, through `datafusion-proto`'s messages);
//! - [`ParqLogicalCodec`]: a [`ParqTable`] (the `STORED AS PARQ` tables of
//!   [`crate::register`]: its paths, file schema, partition columns and file extension),
//!   and parq's file format for `COPY … STORED AS PARQ` (or `PARQUET` where parq is the
//!   session's Parquet).
//!
//! Each wraps Ballista's own codec and passes everything else to it; a node of parq's is
//! told apart by a leading tag. Set both on the session config that the client, the
//! scheduler and the executors are made from:
//!
//! ```no_run
//! use std::sync::Arc;
//! use ballista_core::extension::SessionConfigExt;
//! use datafusion::prelude::SessionConfig;
//! use parq_datafusion::ballista::{ParqLogicalCodec, ParqPhysicalCodec};
//!
//! let config = SessionConfig::new_with_ballista()
//!     .with_ballista_logical_extension_codec(Arc::new(ParqLogicalCodec::default()))
//!     .with_ballista_physical_extension_codec(Arc::new(ParqPhysicalCodec::default()));
//! ```
//!
//! Not carried: a table's declared sort order (`WITH ORDER`) and constraints (a table with a
//! sort order is refused); dynamic filters, which are sent as they are when the plan is
//! encoded.

use std::sync::Arc;

use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::arrow::datatypes::{Field, Schema, SchemaRef};
use datafusion::catalog::TableProvider;
use datafusion::common::{internal_datafusion_err, not_impl_err, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::datasource::listing::{
    ListingOptions, ListingTable, ListingTableConfig, ListingTableUrl,
};
use datafusion::datasource::physical_plan::{FileScanConfig, FileSink};
use datafusion::datasource::sink::DataSinkExec;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, Extension, LogicalPlan, ScalarUDF, WindowUDF};
use datafusion::physical_expr_common::physical_expr::snapshot_physical_expr;
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::from_proto::parse_protobuf_file_scan_config;
use datafusion_proto::physical_plan::to_proto::serialize_file_scan_config;
use datafusion_proto::physical_plan::{
    PhysicalExtensionCodec, PhysicalPlanDecodeContext, PhysicalProtoConverterExtension,
};
use datafusion_proto::protobuf;
use datafusion_proto_common::protobuf_common;
use parq::object_store::FooterCache;
use prost::Message;

use crate::{ParqFormat, ParqFormatFactory, ParqSink, ParqSource, ParqTable};

/// The tag in front of a scan node of parq's.
const SCAN_TAG: &[u8] = b"parq-scan/1\0";
/// The tag in front of a table of parq's.
const TABLE_TAG: &[u8] = b"parq-table/1\0";
/// The tag in front of a write of parq's (a `DataSinkExec` over a [`ParqSink`]).
const SINK_TAG: &[u8] = b"parq-sink/1\0";
/// The tag in front of parq's file format (`COPY … STORED AS PARQ`, or `PARQUET` in a
/// session where parq is the Parquet).
const FORMAT_TAG: &[u8] = b"parq-format/1\0";

/// A `DataSourceExec` over a [`ParqSource`], on the wire.
#[derive(Clone, PartialEq, Message)]
struct ParqScanNode {
    /// `datafusion-proto`'s message for the format-agnostic part of a file scan.
    #[prost(message, optional, tag = "1")]
    base_conf: Option<protobuf::FileScanExecConf>,
    /// The pruning predicate, over the table schema.
    #[prost(message, optional, tag = "2")]
    predicate: Option<protobuf::PhysicalExprNode>,
    /// The scan does not filter inside parq's decoder (`SET parq.row_filter = false`).
    #[prost(bool, tag = "3")]
    no_row_filter: bool,
    /// The scan's filter runs row predicates too (`SET parq.row_predicates = true`).
    #[prost(bool, tag = "4")]
    row_predicates: bool,
}

/// A `DataSinkExec` over a [`ParqSink`], on the wire (its input goes as the node's input).
#[derive(Clone, PartialEq, Message)]
struct ParqSinkNode {
    #[prost(message, optional, tag = "1")]
    config: Option<protobuf::FileSinkConfig>,
    /// DataFusion's Parquet options the sink was made with.
    #[prost(message, optional, tag = "2")]
    options: Option<protobuf_common::TableParquetOptions>,
}

/// A [`ParqFormatFactory`], on the wire.
#[derive(Clone, PartialEq, Message)]
struct ParqFormatNode {
    /// `parq` or `parquet`.
    #[prost(string, tag = "1")]
    name: String,
    #[prost(message, optional, tag = "2")]
    options: Option<protobuf_common::TableParquetOptions>,
}

/// A [`ParqTable`], on the wire.
#[derive(Clone, PartialEq, Message)]
struct ParqTableNode {
    #[prost(string, repeated, tag = "1")]
    paths: Vec<String>,
    /// The columns stored in the files.
    #[prost(message, optional, tag = "2")]
    file_schema: Option<protobuf::Schema>,
    /// The partition columns (from the paths), as fields.
    #[prost(message, optional, tag = "3")]
    partition_cols: Option<protobuf::Schema>,
    #[prost(string, tag = "4")]
    file_extension: String,
}

fn decode_err(what: &str, e: prost::DecodeError) -> datafusion::common::DataFusionError {
    internal_datafusion_err!("decoding a {what} of parq: {e}")
}

/// A `DataSinkExec` over a [`ParqSink`] from its message and its input.
fn decode_sink(body: &[u8], inputs: &[Arc<dyn ExecutionPlan>]) -> Result<Arc<dyn ExecutionPlan>> {
    let node = ParqSinkNode::decode(body).map_err(|e| decode_err("write", e))?;
    let [input] = inputs else {
        return Err(internal_datafusion_err!(
            "a parq write with {} inputs",
            inputs.len()
        ));
    };
    let config = node
        .config
        .as_ref()
        .ok_or_else(|| internal_datafusion_err!("a parq write without its file sink"))?;
    let options = node
        .options
        .as_ref()
        .ok_or_else(|| internal_datafusion_err!("a parq write without its options"))?;
    let sink = ParqSink::try_new(config.try_into()?, options.try_into()?)?;
    Ok(Arc::new(DataSinkExec::new(
        Arc::clone(input),
        Arc::new(sink),
        None,
    )))
}

/// Ballista's physical codec, plus scans that read through parq; see the
/// [module docs](self).
#[derive(Debug, Clone)]
pub struct ParqPhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
    footers: Arc<FooterCache>,
}

impl Default for ParqPhysicalCodec {
    fn default() -> Self {
        ParqPhysicalCodec::new(Arc::new(BallistaPhysicalExtensionCodec::default()))
    }
}

impl ParqPhysicalCodec {
    /// Scans of parq's, and everything else through `inner`.
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        ParqPhysicalCodec {
            inner,
            footers: Arc::new(FooterCache::new(ParqFormat::FOOTER_CACHE_CAPACITY)),
        }
    }
}

impl PhysicalExtensionCodec for ParqPhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if let Some(body) = buf.strip_prefix(SINK_TAG) {
            return decode_sink(body, inputs);
        }
        let Some(body) = buf.strip_prefix(SCAN_TAG) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        let node = ParqScanNode::decode(body).map_err(|e| decode_err("scan", e))?;
        let conf = node
            .base_conf
            .ok_or_else(|| internal_datafusion_err!("a parq scan without its file scan"))?;
        let table_schema = FileScanConfig::parse_table_schema_from_proto(&conf)?;
        let decode_ctx = PhysicalPlanDecodeContext::new(ctx, self);
        let mut source = ParqSource::new(table_schema.clone())
            .with_footer_cache(Arc::clone(&self.footers))
            .with_row_filter(!node.no_row_filter)
            .with_row_predicates(node.row_predicates);
        if let Some(p) = &node.predicate {
            let schema = table_schema.table_schema();
            let p = proto_converter.proto_to_physical_expr(p, schema, &decode_ctx)?;
            source = source.with_predicate(p);
        }
        let conf =
            parse_protobuf_file_scan_config(&conf, &decode_ctx, proto_converter, Arc::new(source))?;
        Ok(DataSourceExec::from_data_source(conf))
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let sink = node
            .downcast_ref::<DataSinkExec>()
            .and_then(|e| e.sink().downcast_ref::<ParqSink>());
        if let Some(sink) = sink {
            // The input goes as the extension node's input; the sort the input was
            // planned under is not needed to run it.
            let message = ParqSinkNode {
                config: Some(sink.config().try_into()?),
                options: Some(sink.table_options().try_into()?),
            };
            buf.extend_from_slice(SINK_TAG);
            return message
                .encode(buf)
                .map_err(|e| internal_datafusion_err!("encoding a parq write: {e}"));
        }
        let scan = node
            .downcast_ref::<DataSourceExec>()
            .and_then(|e| e.downcast_to_file_source::<ParqSource>());
        let Some((conf, source)) = scan else {
            return self.inner.try_encode(node, buf, proto_converter);
        };
        let predicate = source
            .predicate()
            .map(|p| {
                let p = snapshot_physical_expr(Arc::clone(p))?;
                proto_converter.physical_expr_to_proto(&p, self)
            })
            .transpose()?;
        let message = ParqScanNode {
            base_conf: Some(serialize_file_scan_config(conf, self, proto_converter)?),
            predicate,
            no_row_filter: !source.row_filter(),
            row_predicates: source.row_predicates(),
        };
        buf.extend_from_slice(SCAN_TAG);
        message
            .encode(buf)
            .map_err(|e| internal_datafusion_err!("encoding a parq scan: {e}"))
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}

/// Ballista's logical codec, plus [`ParqTable`]s; see the [module docs](self).
#[derive(Debug, Clone)]
pub struct ParqLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
    footers: Arc<FooterCache>,
}

impl Default for ParqLogicalCodec {
    fn default() -> Self {
        ParqLogicalCodec::new(Arc::new(BallistaLogicalExtensionCodec::default()))
    }
}

impl ParqLogicalCodec {
    /// Tables of parq's, and everything else through `inner`.
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        ParqLogicalCodec {
            inner,
            footers: Arc::new(FooterCache::new(ParqFormat::FOOTER_CACHE_CAPACITY)),
        }
    }
}

fn fields_schema(fields: impl IntoIterator<Item = Field>) -> Result<protobuf::Schema> {
    Ok((&Schema::new(fields.into_iter().collect::<Vec<_>>())).try_into()?)
}

impl LogicalExtensionCodec for ParqLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        let Some(body) = buf.strip_prefix(TABLE_TAG) else {
            return self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx);
        };
        let node = ParqTableNode::decode(body).map_err(|e| decode_err("table", e))?;
        let schema_of = |s: Option<&protobuf::Schema>| -> Result<Schema> {
            let s = s.ok_or_else(|| internal_datafusion_err!("a parq table without a schema"))?;
            Ok(s.try_into()?)
        };
        let file_schema = schema_of(node.file_schema.as_ref())?;
        let partition_cols = schema_of(node.partition_cols.as_ref())?
            .fields()
            .iter()
            .map(|f| (f.name().clone(), f.data_type().clone()))
            .collect();
        let paths = node
            .paths
            .iter()
            .map(ListingTableUrl::parse)
            .collect::<Result<Vec<_>>>()?;
        let format = ParqFormat::with_footer_cache(Arc::clone(&self.footers));
        let options = ListingOptions::new(Arc::new(format))
            .with_file_extension(node.file_extension)
            .with_table_partition_cols(partition_cols);
        let config = ListingTableConfig::new_with_multi_paths(paths)
            .with_listing_options(options)
            .with_schema(Arc::new(file_schema));
        Ok(Arc::new(ParqTable::try_new(ListingTable::try_new(
            config,
        )?)?))
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        let Some(table) = node.downcast_ref::<ParqTable>() else {
            return self.inner.try_encode_table_provider(table_ref, node, buf);
        };
        let listing = table.listing();
        let options = listing.options();
        if !options.file_sort_order.is_empty() {
            return not_impl_err!(
                "table {table_ref}: a parq table's sort order (WITH ORDER) is not shipped"
            );
        }
        let schema = listing.schema();
        let parts = options.table_partition_cols.len();
        let file_fields = schema.fields().len() - parts;
        let message = ParqTableNode {
            paths: listing
                .table_paths()
                .iter()
                .map(|p| p.as_str().to_string())
                .collect(),
            file_schema: Some(fields_schema(
                schema.fields()[..file_fields]
                    .iter()
                    .map(|f| f.as_ref().clone()),
            )?),
            partition_cols: Some(fields_schema(
                options
                    .table_partition_cols
                    .iter()
                    .map(|(n, t)| Field::new(n, t.clone(), false)),
            )?),
            file_extension: options.file_extension.clone(),
        };
        buf.extend_from_slice(TABLE_TAG);
        message
            .encode(buf)
            .map_err(|e| internal_datafusion_err!("encoding a parq table: {e}"))
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        let Some(body) = buf.strip_prefix(FORMAT_TAG) else {
            return self.inner.try_decode_file_format(buf, ctx);
        };
        let node = ParqFormatNode::decode(body).map_err(|e| decode_err("format", e))?;
        let mut factory = match node.name.as_str() {
            "parq" => ParqFormatFactory::new(),
            "parquet" => ParqFormatFactory::for_parquet(),
            other => return Err(internal_datafusion_err!("a parq format named {other:?}")),
        };
        if let Some(options) = &node.options {
            factory = factory.with_options(options.try_into()?);
        }
        Ok(Arc::new(factory))
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        let Some(factory) = node.as_ref().downcast_ref::<ParqFormatFactory>() else {
            return self.inner.try_encode_file_format(buf, node);
        };
        let (name, options) = factory.parts();
        let message = ParqFormatNode {
            name: name.to_string(),
            options: options.map(TryInto::try_into).transpose()?,
        };
        buf.extend_from_slice(FORMAT_TAG);
        message
            .encode(buf)
            .map_err(|e| internal_datafusion_err!("encoding a parq format: {e}"))
    }

    fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
        self.inner.try_decode_udf(name, buf)
    }

    fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udf(node, buf)
    }

    fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
        self.inner.try_decode_udaf(name, buf)
    }

    fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udaf(node, buf)
    }

    fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
        self.inner.try_decode_udwf(name, buf)
    }

    fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode_udwf(node, buf)
    }
}
