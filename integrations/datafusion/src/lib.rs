//! parq as a DataFusion file format.
