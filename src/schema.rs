//! The schema tree: the footer's flat, depth-first list of [`SchemaElement`]s resolved into a
//! tree of [`SchemaNode`]s and the leaf columns ([`ColumnDescriptor`]) with their maximum
//! definition and repetition levels.
//!
//! ```text
//! [root(num_children=2), a(int32), b(group, num_children=1), c(binary)]
//!
//! message schema {        leaves: a  path ["a"]       top-level field 0
//!   required int32 a;             c  path ["b", "c"]  top-level field 1
//!   optional group b {
//!     repeated binary c;
//!   }
//! }
//! ```
//!
//! Each OPTIONAL or REPEATED node on the path of a leaf adds one definition level, each
//! REPEATED node one repetition level (the root counts for nothing).

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::metadata::{
    ConvertedType, FieldRepetitionType, LogicalType, SchemaElement, TimeUnit, Type,
};
use crate::{Error, Result};

pub(crate) mod plan;

/// Maximum nesting of groups accepted in a schema (the root is depth 0).
pub const MAX_SCHEMA_DEPTH: usize = 64;

/// One node of the schema tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaNode {
    /// Field name.
    pub name: String,
    /// Repetition; `REQUIRED` for the root, which has none.
    pub repetition: FieldRepetitionType,
    /// Index of this node's element in `FileMetaData.schema`.
    pub schema_index: usize,
    /// Group or leaf.
    pub kind: SchemaNodeKind,
}

/// Whether a [`SchemaNode`] is a group or a leaf column.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SchemaNodeKind {
    /// A group and its children (possibly none).
    Group(Vec<SchemaNode>),
    /// A leaf: its index in [`SchemaDescriptor::leaves`].
    Leaf(usize),
}

impl SchemaNode {
    /// Whether this node is a leaf column.
    pub fn is_leaf(&self) -> bool {
        matches!(self.kind, SchemaNodeKind::Leaf(_))
    }

    /// The children of a group; empty for a leaf.
    pub fn children(&self) -> &[SchemaNode] {
        match &self.kind {
            SchemaNodeKind::Group(c) => c,
            SchemaNodeKind::Leaf(_) => &[],
        }
    }

    /// The leaf index, for a leaf.
    pub fn leaf_index(&self) -> Option<usize> {
        match self.kind {
            SchemaNodeKind::Leaf(i) => Some(i),
            SchemaNodeKind::Group(_) => None,
        }
    }
}

/// A leaf column: what a column reader or writer needs to know about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ColumnDescriptor {
    /// Names from the root's child down to the leaf, e.g. `["a", "list", "element"]`.
    pub path: Vec<String>,
    /// Physical type.
    pub physical_type: Type,
    /// Byte width of FIXED_LEN_BYTE_ARRAY (the element's `type_length`).
    pub type_length: Option<i32>,
    /// Logical annotation as written (see [`effective_logical_type`]).
    pub logical_type: Option<LogicalType>,
    /// Deprecated annotation as written.
    pub converted_type: Option<ConvertedType>,
    /// Decimal scale of the element.
    pub scale: Option<i32>,
    /// Decimal precision of the element.
    pub precision: Option<i32>,
    /// Field id of the element.
    pub field_id: Option<i32>,
    /// The leaf's own repetition.
    pub repetition: FieldRepetitionType,
    /// Maximum definition level.
    pub max_def_level: i16,
    /// Maximum repetition level.
    pub max_rep_level: i16,
    /// Index of the root's child this leaf is under.
    pub top_level_field: usize,
    /// Index of the leaf's element in `FileMetaData.schema`.
    pub schema_index: usize,
}

impl ColumnDescriptor {
    /// The leaf's type and annotations, as a field's primitive.
    pub(crate) fn primitive(&self) -> crate::field::Primitive {
        crate::field::Primitive {
            physical_type: self.physical_type,
            type_length: self.type_length,
            logical_type: self.logical_type.clone(),
            converted_type: self.converted_type,
            scale: self.scale,
            precision: self.precision,
        }
    }

    /// The path joined with dots, e.g. `"a.list.element"`.
    pub fn path_string(&self) -> String {
        self.path.join(".")
    }

    /// The leaf's own name (last path component).
    pub fn name(&self) -> &str {
        self.path.last().map_or("", String::as_str)
    }

    /// Whether the leaf's values are text: BYTE_ARRAY annotated STRING, ENUM or JSON (or the
    /// converted UTF8, ENUM or JSON), which LogicalTypes.md says hold UTF-8. These are the
    /// columns [`ReadOptions::check_strings`](crate::read::ReadOptions::check_strings)
    /// checks; BSON and unannotated byte arrays are binary.
    pub fn is_string(&self) -> bool {
        if self.physical_type != Type::BYTE_ARRAY {
            return false;
        }
        match &self.logical_type {
            Some(LogicalType::Unknown { .. }) | None => matches!(
                self.converted_type,
                Some(ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON)
            ),
            Some(lt) => matches!(
                lt,
                LogicalType::String | LogicalType::Enum | LogicalType::Json
            ),
        }
    }

    /// Check that the leaf's annotation fits its physical type as LogicalTypes.md allows
    /// (TIMESTAMP on INT64, DATE and INT(8..32) on INT32, STRING on BYTE_ARRAY, a DECIMAL's
    /// precision within what the type holds, ...): the logical type when there is a known
    /// one, else the converted type. Readers call it when a column is about to be read, not
    /// when the footer is parsed: a file with such a column still shows its schema and
    /// metadata, and its other columns read. Reading the column's values as the annotation
    /// says would misread them (an INT32 as microseconds of a timestamp), and reading them as
    /// the physical type would silently drop the annotation, so it is an error naming the
    /// column, as pyarrow and DuckDB refuse such columns.
    pub fn check_annotation(&self) -> Result<()> {
        let fits = annotation_fit(self);
        let Err(wants) = fits else {
            return Ok(());
        };
        let name = annotation_of(
            self.logical_type.as_ref(),
            self.converted_type,
            self.precision,
            self.scale,
        )
        .unwrap_or_default();
        let physical = match self.type_length {
            Some(n) if self.physical_type == Type::FIXED_LEN_BYTE_ARRAY => {
                format!("{}({n})", self.physical_type)
            }
            _ => self.physical_type.to_string(),
        };
        Err(Error::format(format!(
            "annotation {name} does not fit physical type {physical} ({wants})"
        ))
        .at(&crate::error::Location {
            column: Some(self.path_string()),
            ..Default::default()
        }))
    }
}

/// The most decimal digits a FIXED_LEN_BYTE_ARRAY of `n` bytes holds: floor(log10(2^(8n-1) - 1)).
fn max_decimal_digits(n: i32) -> i64 {
    if n <= 0 {
        return 0;
    }
    // 2^(8n-1) - 1 is never a power of ten, so the floor of log10(2^(8n-1)) is the same.
    ((8.0 * n as f64 - 1.0) * std::f64::consts::LOG10_2).floor() as i64
}

/// `Ok` when the annotation of leaf `c` fits its physical type; else what it needs, as
/// LogicalTypes.md says it.
fn annotation_fit(c: &ColumnDescriptor) -> std::result::Result<(), String> {
    let t = c.physical_type;
    let only = |want: Type| match t == want {
        true => Ok(()),
        false => Err(format!("it annotates {want} only")),
    };
    let fixed = |n: i32| match t == Type::FIXED_LEN_BYTE_ARRAY && c.type_length == Some(n) {
        true => Ok(()),
        false => Err(format!("it annotates FIXED_LEN_BYTE_ARRAY({n}) only")),
    };
    let decimal = |precision: Option<i32>, scale: Option<i32>| {
        let (p, s) = (precision.unwrap_or(0), scale.unwrap_or(0));
        let max = match t {
            Type::INT32 => 9,
            Type::INT64 => 18,
            Type::FIXED_LEN_BYTE_ARRAY => max_decimal_digits(c.type_length.unwrap_or(0)),
            Type::BYTE_ARRAY => i64::MAX,
            _ => {
                return Err(
                    "it annotates INT32, INT64, FIXED_LEN_BYTE_ARRAY and BYTE_ARRAY only".into(),
                )
            }
        };
        if p < 1 || i64::from(p) > max {
            return Err(format!("{t} holds a precision of 1 to {max}, not {p}"));
        }
        if s < 0 || s > p {
            return Err(format!("the scale must be 0 to the precision {p}, not {s}"));
        }
        Ok(())
    };
    match &c.logical_type {
        Some(LogicalType::Unknown { .. }) | None => {}
        Some(lt) => {
            return match lt {
                LogicalType::String
                | LogicalType::Enum
                | LogicalType::Json
                | LogicalType::Bson
                | LogicalType::Geometry { .. }
                | LogicalType::Geography { .. } => only(Type::BYTE_ARRAY),
                LogicalType::Uuid => fixed(16),
                LogicalType::Float16 => fixed(2),
                LogicalType::Date => only(Type::INT32),
                LogicalType::Time {
                    unit: TimeUnit::Millis,
                    ..
                } => only(Type::INT32),
                LogicalType::Time { .. } | LogicalType::Timestamp { .. } => only(Type::INT64),
                LogicalType::Integer { bit_width: 64, .. } => only(Type::INT64),
                LogicalType::Integer {
                    bit_width: 8 | 16 | 32,
                    ..
                } => only(Type::INT32),
                LogicalType::Integer { bit_width, .. } => Err(format!(
                    "INTEGER is 8, 16, 32 or 64 bits wide, not {bit_width}"
                )),
                LogicalType::Decimal { scale, precision } => {
                    decimal(Some(*precision), Some(*scale))
                }
                // NULL fits any type; group annotations (LIST, MAP, VARIANT) and the newer
                // ones are left to the schema's resolution.
                _ => Ok(()),
            };
        }
    }
    let Some(ct) = c.converted_type else {
        return Ok(());
    };
    match ct {
        ConvertedType::UTF8 | ConvertedType::ENUM | ConvertedType::JSON | ConvertedType::BSON => {
            only(Type::BYTE_ARRAY)
        }
        ConvertedType::DATE
        | ConvertedType::TIME_MILLIS
        | ConvertedType::UINT_8
        | ConvertedType::UINT_16
        | ConvertedType::UINT_32
        | ConvertedType::INT_8
        | ConvertedType::INT_16
        | ConvertedType::INT_32 => only(Type::INT32),
        ConvertedType::TIME_MICROS
        | ConvertedType::TIMESTAMP_MILLIS
        | ConvertedType::TIMESTAMP_MICROS
        | ConvertedType::UINT_64
        | ConvertedType::INT_64 => only(Type::INT64),
        ConvertedType::INTERVAL => fixed(12),
        ConvertedType::DECIMAL => decimal(c.precision, c.scale),
        _ => Ok(()),
    }
}

/// The resolved schema of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaDescriptor {
    /// The root group (named after the message, usually `schema`).
    pub root: SchemaNode,
    /// The leaf columns in schema order (the order of column chunks in a row group).
    pub leaves: Vec<ColumnDescriptor>,
    elements: Vec<SchemaElement>,
    /// Leaves by dotted path; a path several leaves share lists them all.
    by_path: HashMap<String, Vec<usize>>,
}

struct Builder<'a> {
    elements: &'a [SchemaElement],
    next: usize,
    leaves: Vec<ColumnDescriptor>,
    path: Vec<String>,
}

/// `0, 2` for the indices `[0, 2]`, for messages.
pub(crate) fn list_indices(indices: &[usize]) -> String {
    indices
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

fn schema_error(i: usize, what: impl std::fmt::Display) -> Error {
    Error::format(format!("schema element {i}: {what}"))
}

impl Builder<'_> {
    /// Builds the node at `self.next` and its subtree.
    fn node(
        &mut self,
        depth: usize,
        def: i16,
        rep: i16,
        top_level_field: usize,
    ) -> Result<SchemaNode> {
        let i = self.next;
        let Some(e) = self.elements.get(i) else {
            return Err(schema_error(
                i,
                "missing: a group has more children than elements",
            ));
        };
        self.next += 1;
        if depth > MAX_SCHEMA_DEPTH {
            return Err(schema_error(
                i,
                format!("nested deeper than {MAX_SCHEMA_DEPTH}"),
            ));
        }
        let is_group = match e.num_children {
            Some(n) if n < 0 => {
                return Err(schema_error(i, format!("negative num_children {n}")));
            }
            Some(n) if n > 0 => true,
            // parquet-cpp has written num_children = 0 on leaves.
            _ => e.type_.is_none(),
        };
        let repetition = match e.repetition_type {
            Some(r) => r,
            None if !is_group => {
                return Err(schema_error(
                    i,
                    format!("leaf {:?} has no repetition", e.name),
                ));
            }
            None => FieldRepetitionType::REQUIRED,
        };
        let (def, rep) = match repetition {
            FieldRepetitionType::REQUIRED => (def, rep),
            FieldRepetitionType::OPTIONAL => (def + 1, rep),
            FieldRepetitionType::REPEATED => (def + 1, rep + 1),
            r => {
                return Err(Error::Unsupported(format!(
                    "schema element {i} ({:?}): repetition {r:?}",
                    e.name
                )));
            }
        };
        self.path.push(e.name.clone());
        let kind = if is_group {
            if e.num_children.is_none() {
                return Err(schema_error(
                    i,
                    format!("{:?} has neither a type nor children", e.name),
                ));
            }
            let n = e.num_children.unwrap_or(0) as usize;
            if n > self.elements.len() - self.next {
                return Err(schema_error(
                    i,
                    format!(
                        "num_children {n} exceeds the {} elements that follow",
                        self.elements.len() - self.next
                    ),
                ));
            }
            let mut children = Vec::with_capacity(n);
            for _ in 0..n {
                children.push(self.node(depth + 1, def, rep, top_level_field)?);
            }
            SchemaNodeKind::Group(children)
        } else {
            let physical_type = e.type_.unwrap_or_default();
            if physical_type.name().is_none() {
                return Err(schema_error(
                    i,
                    format!("{:?} has unknown physical type {}", e.name, physical_type.0),
                ));
            }
            if physical_type == Type::FIXED_LEN_BYTE_ARRAY && e.type_length.is_none_or(|l| l <= 0) {
                return Err(schema_error(
                    i,
                    format!(
                        "FIXED_LEN_BYTE_ARRAY {:?} needs a positive type_length, found {:?}",
                        e.name, e.type_length
                    ),
                ));
            }
            self.leaves.push(ColumnDescriptor {
                path: self.path.clone(),
                physical_type,
                type_length: e.type_length,
                logical_type: e.logical_type.clone(),
                converted_type: e.converted_type,
                scale: e.scale,
                precision: e.precision,
                field_id: e.field_id,
                repetition,
                max_def_level: def,
                max_rep_level: rep,
                top_level_field,
                schema_index: i,
            });
            SchemaNodeKind::Leaf(self.leaves.len() - 1)
        };
        self.path.pop();
        Ok(SchemaNode {
            name: e.name.clone(),
            repetition,
            schema_index: i,
            kind,
        })
    }
}

impl SchemaDescriptor {
    /// Resolves the footer's schema elements (root first, depth-first, groups carrying
    /// `num_children`) into a tree and its leaf columns.
    pub fn new(elements: &[SchemaElement]) -> Result<Self> {
        let Some(root) = elements.first() else {
            return Err(Error::format("schema has no elements"));
        };
        let n = root.num_children.unwrap_or(0);
        if n < 0 || n as usize > elements.len() - 1 {
            return Err(schema_error(
                0,
                format!(
                    "root num_children {n} exceeds the {} elements that follow",
                    elements.len() - 1
                ),
            ));
        }
        let mut b = Builder {
            elements,
            next: 1,
            leaves: Vec::new(),
            path: Vec::new(),
        };
        let mut children = Vec::with_capacity(n as usize);
        for field in 0..n as usize {
            children.push(b.node(1, 0, 0, field)?);
        }
        if b.next != elements.len() {
            return Err(schema_error(
                b.next,
                format!(
                    "not reachable from the root: the tree covers {} of {} elements",
                    b.next,
                    elements.len()
                ),
            ));
        }
        let mut by_path: HashMap<String, Vec<usize>> = HashMap::with_capacity(b.leaves.len());
        for (i, l) in b.leaves.iter().enumerate() {
            by_path.entry(l.path_string()).or_default().push(i);
        }
        Ok(SchemaDescriptor {
            root: SchemaNode {
                name: root.name.clone(),
                repetition: FieldRepetitionType::REQUIRED,
                schema_index: 0,
                kind: SchemaNodeKind::Group(children),
            },
            leaves: b.leaves,
            elements: elements.to_vec(),
            by_path,
        })
    }

    /// Number of leaf columns.
    pub fn num_columns(&self) -> usize {
        self.leaves.len()
    }

    /// Leaf column `i`.
    ///
    /// # Panics
    /// If `i >= self.num_columns()`.
    pub fn leaf(&self, i: usize) -> &ColumnDescriptor {
        &self.leaves[i]
    }

    /// The index of the leaf whose dotted path is `dotted_path` (e.g. `"a.list.element"`);
    /// `None` when no leaf has it, or when several do (some writers repeat top-level names):
    /// [`Self::lookup`] tells the two apart.
    pub fn find(&self, dotted_path: &str) -> Option<usize> {
        match self.by_path.get(dotted_path)?.as_slice() {
            [i] => Some(*i),
            _ => None,
        }
    }

    /// [`Self::find`] as a result: an error says whether no leaf has the path or which
    /// leaves share it.
    pub fn lookup(&self, dotted_path: &str) -> Result<usize> {
        match self.by_path.get(dotted_path).map(Vec::as_slice) {
            Some([i]) => Ok(*i),
            Some(several) => Err(Error::InvalidArgument(format!(
                "{dotted_path:?} names {} leaf columns (columns {}): select one by index",
                several.len(),
                list_indices(several)
            ))),
            None => Err(Error::InvalidArgument(format!("no column {dotted_path:?}"))),
        }
    }

    /// The root's children: the top-level fields.
    pub fn top_level_fields(&self) -> &[SchemaNode] {
        self.root.children()
    }

    /// The top-level fields with lists, structs and maps resolved (including the legacy
    /// spellings of `LogicalTypes.md`): what the reader assembles.
    pub fn fields(&self) -> Result<Vec<crate::field::Field>> {
        Ok(plan::plan_fields(self)?.iter().map(|p| p.field()).collect())
    }

    /// Whether every leaf is directly under the root and not repeated.
    pub fn is_flat(&self) -> bool {
        self.leaves
            .iter()
            .all(|l| l.path.len() == 1 && l.max_rep_level == 0)
    }

    /// The schema elements this descriptor was built from, for writing them back.
    pub fn elements(&self) -> &[SchemaElement] {
        &self.elements
    }

    /// A copy of the schema elements, for a writer's `FileMetaData`.
    pub fn to_elements(&self) -> Vec<SchemaElement> {
        self.elements.clone()
    }

    /// The schema in parquet-mr's message syntax, as `parq schema` prints it:
    ///
    /// ```text
    /// message schema {
    ///   optional int32 id;
    ///   optional binary name (STRING);
    /// }
    /// ```
    pub fn display_tree(&self) -> String {
        let mut s = format!("message {} {{\n", self.root.name);
        for c in self.top_level_fields() {
            self.display_node(c, 1, &mut s);
        }
        s.push_str("}\n");
        s
    }

    fn display_node(&self, node: &SchemaNode, indent: usize, s: &mut String) {
        let e = &self.elements[node.schema_index];
        let pad = "  ".repeat(indent);
        let rep = match node.repetition.name() {
            Some(n) => n.to_ascii_lowercase(),
            None => format!("repetition({})", node.repetition.0),
        };
        let _ = write!(s, "{pad}{rep} ");
        match &node.kind {
            SchemaNodeKind::Group(_) => s.push_str("group "),
            SchemaNodeKind::Leaf(_) => {
                let t = e.type_.unwrap_or_default();
                match (t, t.name()) {
                    (Type::FIXED_LEN_BYTE_ARRAY, _) => {
                        let w = e.type_length.unwrap_or(0);
                        let _ = write!(s, "fixed_len_byte_array({w}) ");
                    }
                    (Type::BYTE_ARRAY, _) => s.push_str("binary "),
                    (_, Some(n)) => {
                        let _ = write!(s, "{} ", n.to_ascii_lowercase());
                    }
                    (_, None) => {
                        let _ = write!(s, "type({}) ", t.0);
                    }
                }
            }
        }
        s.push_str(&node.name);
        if let Some(a) = annotation(e) {
            let _ = write!(s, " ({a})");
        }
        if let Some(id) = e.field_id {
            let _ = write!(s, " = {id}");
        }
        match &node.kind {
            SchemaNodeKind::Group(children) => {
                s.push_str(" {\n");
                for c in children {
                    self.display_node(c, indent + 1, s);
                }
                let _ = writeln!(s, "{pad}}}");
            }
            SchemaNodeKind::Leaf(_) => s.push_str(";\n"),
        }
    }
}

fn unit_name(u: TimeUnit) -> &'static str {
    match u {
        TimeUnit::Millis => "MILLIS",
        TimeUnit::Micros => "MICROS",
        TimeUnit::Nanos => "NANOS",
    }
}

/// The annotation parquet-mr prints in parentheses after a field name.
fn annotation(e: &SchemaElement) -> Option<String> {
    annotation_of(
        e.logical_type.as_ref(),
        e.converted_type,
        e.precision,
        e.scale,
    )
}

/// [`annotation`] of an element's annotation fields.
fn annotation_of(
    logical_type: Option<&LogicalType>,
    converted_type: Option<ConvertedType>,
    precision: Option<i32>,
    scale: Option<i32>,
) -> Option<String> {
    let lt = match logical_type {
        Some(LogicalType::Unknown { .. }) | None => None,
        Some(lt) => Some(lt),
    };
    let Some(lt) = lt else {
        return converted_type.map(|c| match c {
            ConvertedType::DECIMAL => {
                format!("DECIMAL({},{})", precision.unwrap_or(0), scale.unwrap_or(0))
            }
            c => format!("{c:?}"),
        });
    };
    Some(match lt {
        LogicalType::String => "STRING".into(),
        LogicalType::Map => "MAP".into(),
        LogicalType::List => "LIST".into(),
        LogicalType::Enum => "ENUM".into(),
        LogicalType::Decimal { scale, precision } => format!("DECIMAL({precision},{scale})"),
        LogicalType::Date => "DATE".into(),
        LogicalType::Time {
            is_adjusted_to_utc,
            unit,
        } => format!("TIME({},{is_adjusted_to_utc})", unit_name(*unit)),
        LogicalType::Timestamp {
            is_adjusted_to_utc,
            unit,
        } => format!("TIMESTAMP({},{is_adjusted_to_utc})", unit_name(*unit)),
        LogicalType::Integer {
            bit_width,
            is_signed,
        } => format!("INTEGER({bit_width},{is_signed})"),
        LogicalType::Null => "UNKNOWN".into(),
        LogicalType::Json => "JSON".into(),
        LogicalType::Bson => "BSON".into(),
        LogicalType::Uuid => "UUID".into(),
        LogicalType::Float16 => "FLOAT16".into(),
        LogicalType::Variant {
            specification_version,
        } => match specification_version {
            Some(v) => format!("VARIANT({v})"),
            None => "VARIANT".into(),
        },
        LogicalType::Geometry { crs } => match crs {
            Some(c) => format!("GEOMETRY({c})"),
            None => "GEOMETRY".into(),
        },
        LogicalType::Geography { crs, algorithm } => {
            let mut a = Vec::new();
            if let Some(c) = crs {
                a.push(c.clone());
            }
            if let Some(al) = algorithm {
                a.push(format!("{al:?}"));
            }
            if a.is_empty() {
                "GEOGRAPHY".into()
            } else {
                format!("GEOGRAPHY({})", a.join(","))
            }
        }
        LogicalType::Vector => "VECTOR".into(),
        LogicalType::Unknown { .. } => return None,
    })
}

/// The logical type a legacy converted type stands for (LogicalTypes.md, "Backward
/// compatibility"): UTF8 → String, DECIMAL → Decimal (needs `precision`), DATE,
/// TIME_* and TIMESTAMP_* (adjusted to UTC), UINT_*/INT_* → Integer, ENUM, JSON, BSON.
/// `None` for the group annotations (MAP, LIST, MAP_KEY_VALUE), INTERVAL (which has no
/// logical type) and unknown values.
pub fn logical_from_converted(
    converted: ConvertedType,
    scale: Option<i32>,
    precision: Option<i32>,
) -> Option<LogicalType> {
    let int = |bit_width, is_signed| LogicalType::Integer {
        bit_width,
        is_signed,
    };
    let time = |unit| LogicalType::Time {
        is_adjusted_to_utc: true,
        unit,
    };
    let ts = |unit| LogicalType::Timestamp {
        is_adjusted_to_utc: true,
        unit,
    };
    Some(match converted {
        ConvertedType::UTF8 => LogicalType::String,
        ConvertedType::ENUM => LogicalType::Enum,
        ConvertedType::DECIMAL => LogicalType::Decimal {
            scale: scale.unwrap_or(0),
            precision: precision?,
        },
        ConvertedType::DATE => LogicalType::Date,
        ConvertedType::TIME_MILLIS => time(TimeUnit::Millis),
        ConvertedType::TIME_MICROS => time(TimeUnit::Micros),
        ConvertedType::TIMESTAMP_MILLIS => ts(TimeUnit::Millis),
        ConvertedType::TIMESTAMP_MICROS => ts(TimeUnit::Micros),
        ConvertedType::UINT_8 => int(8, false),
        ConvertedType::UINT_16 => int(16, false),
        ConvertedType::UINT_32 => int(32, false),
        ConvertedType::UINT_64 => int(64, false),
        ConvertedType::INT_8 => int(8, true),
        ConvertedType::INT_16 => int(16, true),
        ConvertedType::INT_32 => int(32, true),
        ConvertedType::INT_64 => int(64, true),
        ConvertedType::JSON => LogicalType::Json,
        ConvertedType::BSON => LogicalType::Bson,
        _ => return None,
    })
}

/// The logical type of a column: its `logical_type` if known, else the one its legacy
/// `converted_type` stands for ([`logical_from_converted`]). INTERVAL stays a converted
/// type only (`None` here; check `converted_type`).
pub fn effective_logical_type(c: &ColumnDescriptor) -> Option<LogicalType> {
    match &c.logical_type {
        Some(LogicalType::Unknown { .. }) | None => {
            logical_from_converted(c.converted_type?, c.scale, c.precision)
        }
        Some(lt) => Some(lt.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metadata::decode_footer;

    fn group(name: &str, rep: Option<FieldRepetitionType>, n: i32) -> SchemaElement {
        SchemaElement {
            name: name.into(),
            repetition_type: rep,
            num_children: Some(n),
            ..Default::default()
        }
    }

    fn leaf(name: &str, rep: FieldRepetitionType, t: Type) -> SchemaElement {
        SchemaElement {
            name: name.into(),
            repetition_type: Some(rep),
            type_: Some(t),
            ..Default::default()
        }
    }

    const REQ: FieldRepetitionType = FieldRepetitionType::REQUIRED;
    const OPT: FieldRepetitionType = FieldRepetitionType::OPTIONAL;
    const REP: FieldRepetitionType = FieldRepetitionType::REPEATED;

    fn nested() -> Vec<SchemaElement> {
        vec![
            group("schema", None, 3),
            leaf("id", REQ, Type::INT64),
            SchemaElement {
                converted_type: Some(ConvertedType::LIST),
                logical_type: Some(LogicalType::List),
                ..group("tags", Some(OPT), 1)
            },
            group("list", Some(REP), 1),
            SchemaElement {
                converted_type: Some(ConvertedType::UTF8),
                ..leaf("element", OPT, Type::BYTE_ARRAY)
            },
            group("s", Some(OPT), 2),
            SchemaElement {
                type_length: Some(16),
                field_id: Some(7),
                logical_type: Some(LogicalType::Uuid),
                ..leaf("u", REQ, Type::FIXED_LEN_BYTE_ARRAY)
            },
            leaf("r", REP, Type::INT32),
        ]
    }

    #[test]
    fn levels_paths_and_top_level_fields() {
        let s = SchemaDescriptor::new(&nested()).unwrap();
        assert_eq!(s.num_columns(), 4);
        let got: Vec<_> = s
            .leaves
            .iter()
            .map(|l| {
                (
                    l.path_string(),
                    l.max_def_level,
                    l.max_rep_level,
                    l.top_level_field,
                    l.schema_index,
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("id".to_string(), 0, 0, 0, 1),
                ("tags.list.element".to_string(), 3, 1, 1, 4),
                ("s.u".to_string(), 1, 0, 2, 6),
                ("s.r".to_string(), 2, 1, 2, 7),
            ]
        );
        assert_eq!(s.find("s.u"), Some(2));
        assert_eq!(s.find("s"), None);
        assert_eq!(s.leaf(2).type_length, Some(16));
        assert_eq!(s.leaf(2).field_id, Some(7));
        assert_eq!(s.leaf(1).name(), "element");
        let top: Vec<_> = s
            .top_level_fields()
            .iter()
            .map(|n| n.name.as_str())
            .collect();
        assert_eq!(top, ["id", "tags", "s"]);
        assert!(!s.is_flat());
        assert_eq!(s.to_elements(), nested());
        assert_eq!(
            s.top_level_fields()[1].children()[0].children()[0].leaf_index(),
            Some(1)
        );
    }

    #[test]
    fn flat_schema() {
        let e = vec![
            group("schema", None, 2),
            leaf("a", REQ, Type::INT32),
            leaf("b", OPT, Type::DOUBLE),
        ];
        let s = SchemaDescriptor::new(&e).unwrap();
        assert!(s.is_flat());
        assert_eq!(s.leaf(1).max_def_level, 1);
        let e = vec![group("schema", None, 1), leaf("a", REP, Type::INT32)];
        assert!(!SchemaDescriptor::new(&e).unwrap().is_flat());
    }

    #[test]
    fn empty_schema_and_empty_group() {
        let s = SchemaDescriptor::new(&[group("schema", None, 0)]).unwrap();
        assert_eq!(s.num_columns(), 0);
        assert!(s.is_flat());
        let e = vec![group("schema", None, 1), group("empty", Some(OPT), 0)];
        let s = SchemaDescriptor::new(&e).unwrap();
        assert_eq!(s.num_columns(), 0);
        assert!(!s.top_level_fields()[0].is_leaf());
    }

    #[test]
    fn leaf_with_zero_children_is_a_leaf() {
        let e = vec![
            group("schema", None, 1),
            SchemaElement {
                num_children: Some(0),
                ..leaf("a", OPT, Type::INT32)
            },
        ];
        assert_eq!(SchemaDescriptor::new(&e).unwrap().num_columns(), 1);
    }

    #[test]
    fn invalid_schemas() {
        let cases: Vec<Vec<SchemaElement>> = vec![
            vec![],
            // Root claims more children than there are.
            vec![group("schema", None, 2), leaf("a", REQ, Type::INT32)],
            vec![group("schema", None, -1)],
            // Trailing element.
            vec![
                group("schema", None, 1),
                leaf("a", REQ, Type::INT32),
                leaf("b", REQ, Type::INT32),
            ],
            // Group child count too large.
            vec![group("schema", None, 1), group("g", Some(OPT), 5)],
            vec![group("schema", None, 1), group("g", Some(OPT), -2)],
            // Leaf without type or children.
            vec![
                group("schema", None, 1),
                SchemaElement {
                    name: "x".into(),
                    repetition_type: Some(OPT),
                    ..Default::default()
                },
            ],
            // Leaf without repetition.
            vec![
                group("schema", None, 1),
                SchemaElement {
                    name: "x".into(),
                    type_: Some(Type::INT32),
                    ..Default::default()
                },
            ],
            // FLBA without a width.
            vec![
                group("schema", None, 1),
                leaf("f", REQ, Type::FIXED_LEN_BYTE_ARRAY),
            ],
            vec![
                group("schema", None, 1),
                SchemaElement {
                    type_length: Some(0),
                    ..leaf("f", REQ, Type::FIXED_LEN_BYTE_ARRAY)
                },
            ],
            // Unknown physical type (PARQUET-1481).
            vec![group("schema", None, 1), leaf("a", REQ, Type(8))],
            // Unknown repetition.
            vec![
                group("schema", None, 1),
                leaf("a", FieldRepetitionType(7), Type::INT32),
            ],
        ];
        for (i, c) in cases.iter().enumerate() {
            assert!(SchemaDescriptor::new(c).is_err(), "case {i}");
        }
    }

    #[test]
    fn depth_is_bounded() {
        let mut e = vec![group("schema", None, 1)];
        for i in 0..100 {
            e.push(group(&format!("g{i}"), Some(OPT), 1));
        }
        e.push(leaf("a", OPT, Type::INT32));
        let err = SchemaDescriptor::new(&e).unwrap_err();
        assert!(err.to_string().contains("deeper"), "{err}");
        // 60 levels is fine and the levels fit.
        let mut e = vec![group("schema", None, 1)];
        for i in 0..60 {
            e.push(group(&format!("g{i}"), Some(REP), 1));
        }
        e.push(leaf("a", OPT, Type::INT32));
        let s = SchemaDescriptor::new(&e).unwrap();
        assert_eq!(s.leaf(0).max_def_level, 61);
        assert_eq!(s.leaf(0).max_rep_level, 60);
    }

    #[test]
    fn display() {
        let s = SchemaDescriptor::new(&nested()).unwrap();
        assert_eq!(
            s.display_tree(),
            "message schema {
  required int64 id;
  optional group tags (LIST) {
    repeated group list {
      optional binary element (UTF8);
    }
  }
  optional group s {
    required fixed_len_byte_array(16) u (UUID) = 7;
    repeated int32 r;
  }
}
"
        );
    }

    /// The digits a FIXED_LEN_BYTE_ARRAY decimal holds, per LogicalTypes.md's table.
    #[test]
    fn decimal_digits_by_width() {
        let digits: Vec<i64> = (1..=16).map(max_decimal_digits).collect();
        assert_eq!(
            digits,
            [2, 4, 6, 9, 11, 14, 16, 18, 21, 23, 26, 28, 31, 33, 35, 38]
        );
        assert_eq!(max_decimal_digits(32), 76);
        assert_eq!(max_decimal_digits(0), 0);
    }

    #[test]
    fn converted_to_logical() {
        let mut e = vec![
            group("schema", None, 1),
            SchemaElement {
                converted_type: Some(ConvertedType::DECIMAL),
                scale: Some(2),
                precision: Some(9),
                ..leaf("d", OPT, Type::INT32)
            },
        ];
        let s = SchemaDescriptor::new(&e).unwrap();
        assert_eq!(
            effective_logical_type(s.leaf(0)),
            Some(LogicalType::Decimal {
                scale: 2,
                precision: 9
            })
        );
        assert!(s.display_tree().contains("d (DECIMAL(9,2));"));
        e[1].logical_type = Some(LogicalType::Date);
        let s = SchemaDescriptor::new(&e).unwrap();
        assert_eq!(effective_logical_type(s.leaf(0)), Some(LogicalType::Date));
        use ConvertedType as C;
        assert_eq!(
            logical_from_converted(C::TIMESTAMP_MICROS, None, None),
            Some(LogicalType::Timestamp {
                is_adjusted_to_utc: true,
                unit: TimeUnit::Micros
            })
        );
        assert_eq!(
            logical_from_converted(C::TIME_MILLIS, None, None),
            Some(LogicalType::Time {
                is_adjusted_to_utc: true,
                unit: TimeUnit::Millis
            })
        );
        assert_eq!(
            logical_from_converted(C::UINT_16, None, None),
            Some(LogicalType::Integer {
                bit_width: 16,
                is_signed: false
            })
        );
        assert_eq!(
            logical_from_converted(C::INT_64, None, None),
            Some(LogicalType::Integer {
                bit_width: 64,
                is_signed: true
            })
        );
        assert_eq!(
            logical_from_converted(C::UTF8, None, None),
            Some(LogicalType::String)
        );
        assert_eq!(logical_from_converted(C::INTERVAL, None, None), None);
        assert_eq!(logical_from_converted(C::DECIMAL, Some(1), None), None);
        assert_eq!(logical_from_converted(C::MAP, None, None), None);
        assert_eq!(logical_from_converted(C(99), None, None), None);
    }

    #[test]
    fn parquet_testing_schemas() {
        let dir = std::fs::read_dir(crate::testdata::data_dir()).unwrap();
        let mut n = 0;
        for entry in dir.flatten() {
            let p = entry.path();
            if p.extension().is_none_or(|e| e != "parquet") {
                continue;
            }
            let bytes = std::fs::read(&p).unwrap();
            let m = decode_footer(&bytes).unwrap();
            let s =
                SchemaDescriptor::new(&m.schema).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            for g in &m.row_groups {
                assert_eq!(g.columns.len(), s.num_columns(), "{}", p.display());
                for (c, l) in g.columns.iter().zip(&s.leaves) {
                    if let Some(md) = &c.meta_data {
                        assert_eq!(md.path_in_schema, l.path, "{}", p.display());
                        assert_eq!(md.type_, l.physical_type, "{}", p.display());
                    }
                }
            }
            assert!(s.display_tree().starts_with("message "));
            n += 1;
        }
        assert!(n > 50);
    }

    #[test]
    fn alltypes_plain_schema() {
        let bytes = crate::testdata::data_file("alltypes_plain.parquet");
        let m = decode_footer(&bytes).unwrap();
        let s = SchemaDescriptor::new(&m.schema).unwrap();
        assert_eq!(s.num_columns(), 11);
        assert!(s.is_flat());
        assert_eq!(s.find("id"), Some(0));
        assert_eq!(s.leaf(0).physical_type, Type::INT32);
        assert_eq!(s.leaf(0).max_def_level, 1);
        let tree = s.display_tree();
        assert!(tree.contains("optional int32 id;"), "{tree}");
        assert!(tree.contains("optional int96 timestamp_col;"), "{tree}");
    }

    #[test]
    fn parquet_1481_is_an_error() {
        let bytes =
            std::fs::read(crate::testdata::bad_data_dir().join("PARQUET-1481.parquet")).unwrap();
        if let Ok(m) = decode_footer(&bytes) {
            assert!(SchemaDescriptor::new(&m.schema).is_err());
        }
    }

    #[test]
    fn nested_file_schema() {
        let bytes = crate::testdata::data_file("nested_lists.snappy.parquet");
        let m = decode_footer(&bytes).unwrap();
        let s = SchemaDescriptor::new(&m.schema).unwrap();
        assert!(!s.is_flat());
        assert!(s.leaves.iter().any(|l| l.max_rep_level >= 2));
    }
}
