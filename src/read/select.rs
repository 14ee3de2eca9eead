//! What a projection names: a top-level field or a leaf column, by name or by index.

/// One item of a projection.
///
/// A name is resolved against the schema: a top-level field's name takes the whole field,
/// a leaf's dotted path (`"a.list.element"`) takes that leaf under its ancestors. A name that
/// more than one field or leaf carries (some writers repeat top-level names) is an error that
/// lists the candidates; name such a field by its index instead, which is never ambiguous.
///
/// Every read that takes a projection takes anything that converts into this, so `&str`,
/// `String` and indices mix with no ceremony:
///
/// ```
/// use parq::read::Select;
///
/// let by_name: Select = "id".into();
/// let by_index = Select::Field(2);
/// assert_eq!(by_name, Select::Path("id".into()));
/// assert_ne!(by_name, by_index);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Select {
    /// A top-level field's name, or a leaf's dotted path.
    Path(String),
    /// Top-level field `i`, as [`ParquetReader::fields`](super::ParquetReader::fields)
    /// lists them: the whole field.
    Field(usize),
    /// Leaf column `i`, as the schema numbers them: that leaf under its ancestors.
    Leaf(usize),
}

impl From<&str> for Select {
    fn from(path: &str) -> Self {
        Select::Path(path.to_string())
    }
}

impl From<&&str> for Select {
    fn from(path: &&str) -> Self {
        Select::Path(path.to_string())
    }
}

impl From<String> for Select {
    fn from(path: String) -> Self {
        Select::Path(path)
    }
}

impl From<&String> for Select {
    fn from(path: &String) -> Self {
        Select::Path(path.clone())
    }
}

impl From<&Select> for Select {
    fn from(s: &Select) -> Self {
        s.clone()
    }
}

impl std::fmt::Display for Select {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Select::Path(p) => write!(f, "{p:?}"),
            Select::Field(i) => write!(f, "field {i}"),
            Select::Leaf(i) => write!(f, "leaf {i}"),
        }
    }
}

/// The items of a projection, converted.
pub(crate) fn selects<'a, C>(columns: &'a [C]) -> Vec<Select>
where
    &'a C: Into<Select>,
{
    columns.iter().map(Into::into).collect()
}

/// The empty projection, which reads every field: `reader.record_batches(EVERY_FIELD, n)`
/// (a bare `&[]` leaves the item type to guess).
pub const EVERY_FIELD: &[Select] = &[];
