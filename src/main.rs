//! The `artiscan` binary: parse arguments, run a command, map the outcome
//! to an exit code. All logic lives in the library.

use artiscan::commands;
use artiscan::output::ColorChoice;
use artiscan::scan::grep::GrepOptions;
use artiscan::source::Limits;
use clap::{Args, Parser, Subcommand};
use std::io::{self, Write};
use std::process::ExitCode;

#[derive(Parser)]
#[command(name = "artiscan", version, about = "Evidence from LLM-serving benchmark CI artifacts: greps and scans inside nested zips and tarballs, with exact citations")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Search lines inside artifacts, like grep, with `path!member:line` citations
    Grep(GrepArgs),
}

/// Limits and input options shared by every command that reads artifacts.
#[derive(Args, Clone)]
struct InputArgs {
    /// Worker threads (default: number of cores)
    #[arg(short = 'j', long = "threads")]
    threads: Option<usize>,
    /// Deepest nesting of compression layers and containers
    #[arg(long, default_value_t = Limits::default().max_depth)]
    max_depth: usize,
    /// Decompressed bytes allowed per artifact
    #[arg(long, default_value_t = Limits::default().max_bytes)]
    max_bytes: u64,
    /// Decompressed bytes allowed per member
    #[arg(long, default_value_t = Limits::default().max_member_bytes)]
    max_member_bytes: u64,
    /// Largest decompressed/compressed ratio of a member (checked past 64 MiB)
    #[arg(long, default_value_t = Limits::default().max_ratio)]
    max_ratio: f64,
    /// Longest line searched, in bytes; longer lines are searched up to it
    #[arg(long, default_value_t = Limits::default().max_line)]
    max_line: usize,
    /// Search binary members too (NUL bytes in the first block)
    #[arg(long)]
    binary: bool,
}

impl InputArgs {
    fn limits(&self) -> Limits {
        Limits {
            max_depth: self.max_depth,
            max_bytes: self.max_bytes,
            max_member_bytes: self.max_member_bytes,
            max_ratio: self.max_ratio,
            max_line: self.max_line,
            binary: self.binary,
            ..Limits::default()
        }
    }

    fn threads(&self) -> usize {
        self.threads.unwrap_or_else(artiscan::engine::default_threads).max(1)
    }
}

#[derive(Args)]
struct GrepArgs {
    /// Pattern (a regex unless -F); omit when -e is given
    #[arg(required_unless_present = "regexp")]
    pattern: Option<String>,
    /// Files, folders (recursive) or `-` for stdin
    #[arg(default_value = "-")]
    paths: Vec<String>,
    /// A pattern; repeat for several
    #[arg(short = 'e', long = "regexp")]
    regexp: Vec<String>,
    /// Patterns are fixed strings
    #[arg(short = 'F', long)]
    fixed_strings: bool,
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Match whole words only
    #[arg(short = 'w', long)]
    word_regexp: bool,
    /// Select lines that do not match
    #[arg(short = 'v', long)]
    invert_match: bool,
    /// Print the number of matching lines per member
    #[arg(short = 'c', long)]
    count: bool,
    /// Print only the citation of members with a match
    #[arg(short = 'l', long)]
    files_with_matches: bool,
    #[arg(short = 'A', long, default_value_t = 0)]
    after_context: usize,
    #[arg(short = 'B', long, default_value_t = 0)]
    before_context: usize,
    #[arg(short = 'C', long)]
    context: Option<usize>,
    /// JSON Lines: evidence, context, coverage and summary records
    #[arg(long)]
    json: bool,
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    #[command(flatten)]
    input: InputArgs,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let stdout = io::stdout();
    let mut out = io::BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut err = io::stderr();
    let result = match cli.command {
        Command::Grep(a) => grep(a, &mut out, &mut err),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::from(0);
            }
            let _ = writeln!(err, "artiscan: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

fn grep(a: GrepArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let mut patterns = a.regexp.clone();
    let mut paths = a.paths.clone();
    match (&a.pattern, patterns.is_empty()) {
        (Some(p), true) => patterns.push(p.clone()),
        // With -e, the first positional is a path.
        (Some(p), false) => paths.insert(0, p.clone()),
        (None, _) => {}
    }
    if paths.len() > 1 {
        paths.retain(|p| p != "-" || a.paths.iter().filter(|x| *x == "-").count() > 0);
    }
    let opts = GrepOptions {
        patterns,
        fixed: a.fixed_strings,
        ignore_case: a.ignore_case,
        word: a.word_regexp,
        invert: a.invert_match,
        count: a.count,
        files_with_matches: a.files_with_matches,
        before: a.context.unwrap_or(a.before_context),
        after: a.context.unwrap_or(a.after_context),
        json: a.json,
        color: a.color.enabled() && !a.json,
    };
    let status = commands::grep::run(&paths, &opts, &a.input.limits(), a.input.threads(), out, err)?;
    Ok(status.exit_code())
}
