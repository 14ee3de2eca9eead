//! `parq`: inspect, print, scan and rewrite Parquet files.

mod cat;
mod json;
mod keys;
mod limits;
mod meta;
mod pages;
mod prefix;
mod remote;
mod rewrite;
mod scan;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use parq::predicate::Expr;
use parq::read::{ByteArrayLayout, MmapSource, ParquetReader, ReadOptions};

#[derive(Parser)]
#[command(
    name = "parq",
    version,
    about = "Inspect, print and scan Apache Parquet files"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Print the schema tree.
    Schema {
        file: PathBuf,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Print row groups and column chunks (encodings, codec, sizes, statistics).
    Meta {
        file: PathBuf,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        keys: keys::KeyArgs,
    },
    /// Print rows as JSON Lines (default) or CSV.
    Cat {
        file: PathBuf,
        /// Comma-separated column paths.
        #[arg(long)]
        columns: Option<String>,
        /// Print at most N rows.
        #[arg(long)]
        limit: Option<usize>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = cat::OutputFormat::Jsonl)]
        format: cat::OutputFormat,
        /// A value of a STRING, ENUM or JSON column that is not UTF-8: an error naming its
        /// column, row group and row, or printed with its invalid bytes as \xHH.
        #[arg(long, value_enum, value_name = "WHAT", default_value_t = cat::InvalidUtf8::Error)]
        invalid_utf8: cat::InvalidUtf8,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Print the first N rows, as `cat --limit N` does.
    Head {
        file: PathBuf,
        /// Number of rows.
        #[arg(short = 'n', long = "lines", default_value_t = 10)]
        n: usize,
        /// Comma-separated column paths.
        #[arg(long)]
        columns: Option<String>,
        /// Output format.
        #[arg(long, value_enum, default_value_t = cat::OutputFormat::Jsonl)]
        format: cat::OutputFormat,
        /// A value of a STRING, ENUM or JSON column that is not UTF-8: an error naming its
        /// column, row group and row, or printed with its invalid bytes as \xHH.
        #[arg(long, value_enum, value_name = "WHAT", default_value_t = cat::InvalidUtf8::Error)]
        invalid_utf8: cat::InvalidUtf8,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// List every page of every column chunk: type, encoding, sizes, values, nulls, min/max.
    Pages {
        file: PathBuf,
        /// Comma-separated column paths (a leaf's dotted path, or a prefix of it such as a
        /// top-level name); default: every column.
        #[arg(long)]
        columns: Option<String>,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Decode columns to Arrow buffers N times and report the timing.
    Scan {
        file: PathBuf,
        /// Comma-separated column paths.
        #[arg(long)]
        columns: Option<String>,
        /// Number of timed decodes.
        #[arg(long, default_value_t = 5)]
        repeat: usize,
        /// Memory-map the file instead of loading it into memory.
        #[arg(long)]
        mmap: bool,
        /// One JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// Stream batches of this many rows (each dropped after it is counted).
        #[arg(long, default_value_t = 8192)]
        batch_size: usize,
        /// Read each column with the one-call API into one buffer instead of streaming
        /// batches (includes first-touch page faults of the whole output).
        #[arg(long)]
        whole: bool,
        /// Decode byte arrays as views into page buffers instead of offsets + copied data.
        #[arg(long)]
        views: bool,
        /// With `--where`: how the columns the filter did not decode are read: only the
        /// matching rows (`selected`), every row then the matches (`masked`), or chosen per
        /// row group from how scattered the matches are (`auto`).
        #[arg(long, value_enum, default_value_t = MaterialiseArg::Auto)]
        materialise: MaterialiseArg,
        /// Check that STRING, ENUM and JSON values are UTF-8 as `cat` does (with offsets,
        /// not `--views`), to time what the check costs.
        #[arg(long)]
        check_strings: bool,
        #[command(flatten)]
        read: ReadArgs,
    },
    /// Read a file and write it again with parq's writer (same schema and key-value metadata).
    Rewrite(rewrite::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // `parq cat F | head`: the reader of our output has gone, as it meant to.
        Err(e) if closed_stdout(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("parq: error: {}", limits::message(&e));
            if let Some(hint) = limits::hint(&e) {
                eprintln!("parq: hint: {hint}");
            }
            ExitCode::FAILURE
        }
    }
}

/// Whether `e` is a write to standard output whose reader closed the pipe.
fn closed_stdout(e: &parq::Error) -> bool {
    match e {
        parq::Error::Io(io) | parq::Error::File { source: io, .. } => {
            io.kind() == std::io::ErrorKind::BrokenPipe
        }
        _ => false,
    }
}

/// How `cat`, `head` and `scan` read: a filter, threads, and keys of an encrypted file.
#[derive(clap::Args, Debug)]
struct ReadArgs {
    /// Only the rows where EXPR holds, e.g. `id >= 10 and name in ('a', 'b')` (see
    /// "Filtering" in the README); `scan` reports what was pruned.
    #[arg(long = "where", value_name = "EXPR")]
    filter: Option<String>,
    /// Decoding threads (work split across row groups, columns and page ranges).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u16).range(1..))]
    threads: u16,
    #[command(flatten)]
    keys: keys::KeyArgs,
    #[command(flatten)]
    limits: limits::LimitArgs,
}

impl ReadArgs {
    /// The `--where` expression, parsed; a malformed one is an error that points at the spot.
    fn filter(&self) -> parq::Result<Option<Expr>> {
        self.filter
            .as_deref()
            .map(|t| Expr::parse(t).map_err(parq::Error::from))
            .transpose()
    }

    /// Read options with the threads, keys and limits given.
    fn options(&self) -> parq::Result<ReadOptions> {
        Ok(self
            .limits
            .apply(self.keys.read_options_with(self.threads)?))
    }
}

/// `options` reading only the first `limit` rows when there is a limit and no filter: rows
/// past it are not decoded (nor checked: a string that is not UTF-8 after them is no error).
fn first_rows(options: ReadOptions, limit: Option<usize>, filter: Option<&Expr>) -> ReadOptions {
    match (limit, filter) {
        (Some(n), None) => options.with_selection(Some(parq::read::RowSelection::from_ranges(
            std::iter::once(0..n as u64),
        ))),
        _ => options,
    }
}

/// The whole file at `path`; an I/O error names `path`.
fn read_file(path: &Path) -> parq::Result<bytes::Bytes> {
    use std::io::Read as _;
    let in_file = |e: std::io::Error| parq::Error::from(e).in_file(path);
    let mut file = std::fs::File::open(path).map_err(in_file)?;
    let len = file.metadata().map_err(in_file)?.len();
    // The whole file is held in memory: a file larger than the system will give is an
    // error that says so, not an abort.
    let mut buf = Vec::new();
    buf.try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(|_| parq::Error::Memory {
            what: format!("reading {}", path.display()),
            bytes: len,
            limit: None,
            at: Default::default(),
        })?;
    file.read_to_end(&mut buf).map_err(in_file)?;
    Ok(bytes::Bytes::from(buf))
}

/// The URL a file argument spells (see [`remote::is_url`]).
fn url(arg: &Path) -> String {
    arg.to_string_lossy().into_owned()
}

fn open(path: &Path, options: ReadOptions) -> parq::Result<ParquetReader> {
    ParquetReader::with_options(read_file(path)?, options)
}

/// `parq schema`: the schema tree, then each VARIANT column's shredding tree.
fn print_schema<S: parq::read::Source>(reader: &ParquetReader<S>) -> parq::Result<()> {
    say(&reader.schema().display_tree().to_string())?;
    let variants = reader.variant_fields();
    for f in reader
        .fields()?
        .iter()
        .filter(|f| variants.contains(&f.name.as_str()))
    {
        // A tree parq cannot read is still shown, with why.
        let tree =
            parq::variant::describe_shredding(f).unwrap_or_else(|e| format!("{}: {e}\n", f.name));
        say(&format!("\nvariant shredding:\n{tree}"))?;
    }
    Ok(())
}

/// Write `text` to standard output; a closed pipe is an error (that `main` takes as the
/// reader having gone), not a panic.
///
/// Every subcommand writes its standard output through this function or a writer whose errors
/// it returns (`cat`, `pages`, `scan`), never with `print!`/`println!`, which panic when the
/// write fails (`parq meta F | head -1`). `main` then exits 0 without a word. Restoring
/// SIGPIPE's default action instead (death by the signal, status 141, as `cat` does) would
/// need an unsafe `signal` call through libc and would end the process wherever it writes,
/// skipping destructors; the error path keeps one exit, tested by
/// `cli/tests/it/broken_pipe.rs` for every subcommand.
pub(crate) fn say(text: &str) -> parq::Result<()> {
    use std::io::Write as _;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| parq::Error::from(e).in_file("<stdout>"))
}

/// `parq cat` and `parq head` over many files: each in turn, in path order, the CSV header
/// once, the limit across all of them; a file that `--where`'s footer statistics rule out
/// is skipped before any of its data is read.
fn cat_many(
    arg: &Path,
    columns: Option<&str>,
    limit: Option<usize>,
    format: cat::OutputFormat,
    invalid_utf8: cat::InvalidUtf8,
    read: &ReadArgs,
) -> parq::Result<()> {
    let filter = read.filter()?;
    let files = prefix::Listing::new(arg)?;
    let mut left = limit.unwrap_or(usize::MAX);
    let mut header = true;
    for meta in files.objects() {
        let options = invalid_utf8.apply(read.options()?);
        let first = limit.map(|_| left);
        let reader = files.open(meta, first_rows(options, first, filter.as_ref()))?;
        if !prefix::may_match(&reader, filter.as_ref())? {
            continue;
        }
        left -= cat::run(
            &reader,
            columns,
            Some(left),
            format,
            filter.as_ref(),
            header,
        )?;
        header = false;
        if left == 0 {
            break;
        }
    }
    Ok(())
}

fn run(cli: Cli) -> parq::Result<()> {
    match cli.command {
        Command::Schema { file, keys } if prefix::is_prefix(&file) => {
            let files = prefix::Listing::new(&file)?;
            for meta in files.objects() {
                say(&format!("== {} ==\n", files.name(meta)))?;
                print_schema(&files.open(meta, keys.read_options()?)?)?;
            }
        }
        Command::Schema { file, keys } => match remote::is_url(&file) {
            true => print_schema(&remote::open(&url(&file), keys.read_options()?)?)?,
            false => print_schema(&open(&file, keys.read_options()?)?)?,
        },
        Command::Meta { file, json, keys } if prefix::is_prefix(&file) => {
            let files = prefix::Listing::new(&file)?;
            for meta in files.objects() {
                let reader = files.open(meta, keys.read_options()?)?;
                let (m, leaves) = (reader.metadata(), &reader.schema().leaves);
                if json {
                    let mut name = String::new();
                    json::string(&mut name, &files.name(meta));
                    say(&format!(
                        "{{\"file\":{name},\"meta\":{}}}\n",
                        meta::json(m, leaves)
                    ))?;
                } else {
                    say(&format!(
                        "== {} ==\n{}",
                        files.name(meta),
                        meta::text(m, leaves)
                    ))?;
                }
            }
        }
        Command::Meta { file, json, keys } => {
            let (metadata, schema) = match remote::is_url(&file) {
                true => {
                    let reader = remote::open(&url(&file), keys.read_options()?)?;
                    (reader.metadata().clone(), reader.schema().clone())
                }
                false => {
                    let reader = open(&file, keys.read_options()?)?;
                    (reader.metadata().clone(), reader.schema().clone())
                }
            };
            if json {
                say(&format!("{}\n", meta::json(&metadata, &schema.leaves)))?;
            } else {
                say(&meta::text(&metadata, &schema.leaves))?;
            }
        }
        Command::Cat {
            file,
            columns,
            limit,
            format,
            invalid_utf8,
            read,
        } if prefix::is_prefix(&file) => {
            cat_many(
                &file,
                columns.as_deref(),
                limit,
                format,
                invalid_utf8,
                &read,
            )?;
            cat::report_escaped();
        }
        Command::Head {
            file,
            n,
            columns,
            format,
            invalid_utf8,
            read,
        } if prefix::is_prefix(&file) => {
            cat_many(
                &file,
                columns.as_deref(),
                Some(n),
                format,
                invalid_utf8,
                &read,
            )?;
            cat::report_escaped();
        }
        Command::Cat {
            file,
            columns,
            limit,
            format,
            invalid_utf8,
            read,
        } => {
            let filter = read.filter()?;
            let columns = columns.as_deref();
            let options = first_rows(invalid_utf8.apply(read.options()?), limit, filter.as_ref());
            if remote::is_url(&file) {
                let reader = remote::open(&url(&file), options)?;
                cat::run(&reader, columns, limit, format, filter.as_ref(), true)?;
            } else {
                let reader = open(&file, options)?;
                cat::run(&reader, columns, limit, format, filter.as_ref(), true)?;
            }
            cat::report_escaped();
        }
        Command::Head {
            file,
            n,
            columns,
            format,
            invalid_utf8,
            read,
        } => {
            let filter = read.filter()?;
            let columns = columns.as_deref();
            let options = first_rows(
                invalid_utf8.apply(read.options()?),
                Some(n),
                filter.as_ref(),
            );
            if remote::is_url(&file) {
                let reader = remote::open(&url(&file), options)?;
                cat::run(&reader, columns, Some(n), format, filter.as_ref(), true)?;
            } else {
                let reader = open(&file, options)?;
                cat::run(&reader, columns, Some(n), format, filter.as_ref(), true)?;
            }
            cat::report_escaped();
        }
        Command::Pages {
            file,
            columns,
            json,
        } => pages::run(&file, columns.as_deref(), json)?,
        Command::Scan {
            file,
            columns,
            repeat,
            mmap,
            json,
            batch_size,
            whole,
            views,
            materialise,
            check_strings,
            read,
        } => {
            let filter = read.filter()?;
            let options = read
                .options()?
                .with_byte_array_layout(if views {
                    ByteArrayLayout::Views
                } else {
                    ByteArrayLayout::Offsets
                })
                .with_check_strings(check_strings);
            let args = scan::ScanArgs {
                columns: columns.as_deref(),
                repeat,
                json,
                batch_size: (!whole).then_some(batch_size),
                filter: filter.as_ref(),
                materialise: materialise.into(),
                threads: read.threads.into(),
            };
            if prefix::is_prefix(&file) {
                scan::run_many(&prefix::Listing::new(&file)?, &args, options)?;
            } else if remote::is_url(&file) {
                scan::run(&remote::open(&url(&file), options)?, &args)?;
            } else if mmap {
                // SAFETY: not an unsafe block in the library sense: the CLI maps a file the
                // user named for the duration of one scan and documents that it must not be
                // modified meanwhile.
                #[allow(unsafe_code)]
                let source = unsafe { MmapSource::open(&file)? };
                scan::run(&ParquetReader::with_options(source, options)?, &args)?;
            } else {
                scan::run(&open(&file, options)?, &args)?;
            }
        }
        Command::Rewrite(args) => rewrite::run(&args)?,
    }
    Ok(())
}

/// `scan --materialise`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum MaterialiseArg {
    Auto,
    Selected,
    Masked,
}

impl From<MaterialiseArg> for parq::predicate::Materialise {
    fn from(m: MaterialiseArg) -> Self {
        match m {
            MaterialiseArg::Auto => Self::Auto,
            MaterialiseArg::Selected => Self::Selected,
            MaterialiseArg::Masked => Self::Masked,
        }
    }
}
