//! The `artiscan` binary: parse arguments, run a command, map the outcome
//! to an exit code. All logic lives in the library.

use artiscan::ColorChoice;
use artiscan::GrepOptions;
use artiscan::RuleSet;
use artiscan::ScanOptions;
use artiscan::Selection;
use artiscan::commands::scan::OutputFormat;
use artiscan::commands::{self, InputArgs};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "artiscan",
    version,
    about = "Evidence from LLM-serving benchmark CI artifacts: greps and scans inside nested zips and tarballs, with exact citations"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// No progress bar on stderr, even on a terminal
    #[arg(long, global = true)]
    no_progress: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Search lines inside artifacts, like grep, with `path!member:line` citations
    Grep(GrepArgs),
    /// Match the pattern packs and print typed, cited evidence
    Scan(ScanArgs),
    /// Judge claims (check files or a built-in set) into cited pass/fail/unknown verdicts
    Check(CheckArgs),
    /// Reopen a citation: print the line with context, the artifact sha256 and byte offset
    Cite(CiteArgs),
    /// List the members inside artifacts through every layer, like `tar -tv` / `unzip -l`
    Ls(LsArgs),
    /// Print one member, or a line range of it, escaped and bounded: `show 'a.zip!x.tar.gz!server.log:100..200'`
    Show(ShowArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell)
    Completions {
        /// The shell to complete for
        shell: clap_complete::Shell,
    },
    /// Print a man page (roff): `artiscan man > artiscan.1`, `artiscan man grep > artiscan-grep.1`
    Man {
        /// A command's own page (its options in full); a subcommand's with
        /// its path: `artiscan man audit report`
        command: Vec<String>,
    },
    /// What two runs ran and measured, side by side: only what differs, each side cited
    Diff(DiffArgs),
    /// Audit many runs into an SQLite store: resumable, sharded, queryable
    Audit(commands::audit::AuditArgs),
    /// List, show, test and lint pattern packs
    Packs {
        #[command(subcommand)]
        command: PacksCommand,
    },
}

#[derive(Subcommand)]
enum PacksCommand {
    /// Rule ids, packs and descriptions
    List(PackSel),
    /// One rule in full
    Show {
        id: String,
        #[command(flatten)]
        sel: PackSel,
    },
    /// Run every rule's examples (the built-in packs, or the files given)
    Test { files: Vec<PathBuf> },
    /// Duplicate ids, missing examples, rules without a literal prefilter
    Lint { files: Vec<PathBuf> },
}

/// Which packs and rules to use.
#[derive(Args, Clone, Default)]
struct PackSel {
    /// Add a pack file, or every *.toml in a folder
    #[arg(long = "pack")]
    packs: Vec<PathBuf>,
    /// Keep only rules whose id matches this glob (repeatable)
    #[arg(long)]
    only: Vec<String>,
    /// Drop rules whose id matches this glob (repeatable)
    #[arg(long)]
    skip: Vec<String>,
    /// Also run the opt-in rules whose id matches this glob (repeatable;
    /// `packs list` marks them): per-line stats of the most frequent lines,
    /// such as sglang.batch_throughput
    #[arg(long)]
    with: Vec<String>,
}

impl PackSel {
    fn rules(&self) -> anyhow::Result<RuleSet> {
        let sel = Selection {
            only: self.only.clone(),
            skip: self.skip.clone(),
            with: self.with.clone(),
        };
        artiscan::load_rules(&self.packs, &sel, artiscan::Builtin::Included)
    }

    /// The same with every opt-in rule: `packs` lists and tests them all.
    fn all_rules(&self) -> anyhow::Result<RuleSet> {
        let mut all = self.clone();
        all.with.push("*".into());
        all.rules()
    }
}

#[derive(Args)]
struct CheckArgs {
    /// Files, folders (recursive) or `-` for stdin
    #[arg(required_unless_present = "list")]
    paths: Vec<String>,
    /// Print the sets (or the --set/--checks given), their checks, applicability and parameters
    #[arg(long)]
    list: bool,
    /// How folders map to artifacts (auto: a folder named like an artifact is one)
    #[arg(long, value_enum, default_value_t = artiscan::Layout::Auto)]
    layout: artiscan::Layout,
    /// A check file (repeatable)
    #[arg(long = "checks", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    checks: Vec<PathBuf>,
    /// A built-in check set, e.g. `inferencex` (repeatable)
    #[arg(long = "set", value_name = "SET", value_parser = set_names())]
    sets: Vec<String>,
    /// A parameter referenced as "@param:KEY" in check files (wins over --params)
    #[arg(long = "param", value_name = "KEY=VALUE")]
    params: Vec<String>,
    /// A TOML file of parameters, one `KEY = VALUE` each (`al = 3.5`, `gsm8k_min = 0.9`); repeatable
    #[arg(long = "params", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    param_files: Vec<PathBuf>,
    /// InferenceX's eval thresholds file (utils/evals/thresholds.yaml of the checkout judged; YAML, JSON or the flat form): each eval task's bar for the eval's model prefix (meta_env.json), as validate_scores.py picks it; --param <task>_min wins
    #[arg(long = "thresholds", value_name = "PATH", value_hint = clap::ValueHint::FilePath)]
    thresholds: Option<PathBuf>,
    /// Write the Pareto curves read (Check 14) to PATH as InferenceX's `python -m infx.workflows.pareto_coverage` takes them: [{"key": "<model/scenario/hwKey/precision/run/percentile/image>", "points": [{"x": E2EL, "y": tput_per_gpu}]}]
    #[arg(long = "curves", value_name = "PATH", value_hint = clap::ValueHint::FilePath)]
    curves: Option<PathBuf>,
    /// Extra pack file or folder
    #[arg(long = "pack")]
    packs: Vec<PathBuf>,
    /// Output format (default: jsonl, or text on a terminal; `verdicts`: the block the InferenceX verifier merges, one row per checklist number for all runs given, then what ran and notes)
    #[arg(long, value_enum)]
    format: Option<OutputFormat>,
    /// With `--format verdicts`: the verifier prompt's layout, failures and warnings first, PASS and N/A rows in one collapsed <details> group
    #[arg(long)]
    grouped: bool,
    /// With `--format text`: list only verdicts of these statuses, e.g. `fail,unknown` (totals count all)
    #[arg(long, value_name = "LIST")]
    status: Option<String>,
    #[command(flatten)]
    member: commands::MemberArgs,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args)]
struct CiteArgs {
    /// `path!member!member:line`, as printed by grep, scan and check
    citation: String,
    /// Lines of context before and after (at most 10000)
    #[arg(short = 'C', long, default_value_t = 0)]
    context: usize,
    /// Exit 1 unless the cited line (cleaned as scan cleans it) contains this text
    #[arg(long)]
    expect: Option<String>,
    /// Exit 1 unless the artifact has this sha256
    #[arg(long)]
    sha256: Option<String>,
    /// Open the citation's path only inside this folder: no absolute path,
    /// no `..`, no symlink out, no fallback to the current folder. Without
    /// it the path is opened as given, like any file argument (so use
    /// --root for citations that others wrote)
    #[arg(long)]
    root: Option<String>,
    /// One `cite` JSON record instead of text: the line, its context, the artifact sha256 and the byte offset
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args)]
struct LsArgs {
    /// Files, folders (recursive) or `-` for stdin
    #[arg(required = true)]
    paths: Vec<String>,
    /// JSON Lines: one `member` record per member, then the artifact's `coverage`
    #[arg(long)]
    json: bool,
    /// No column header (text output prints one only on a terminal)
    #[arg(long)]
    no_header: bool,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args)]
struct DiffArgs {
    /// The first run (a downloaded run folder, or an archive of one): the baseline
    a: String,
    /// The second run: the PR's
    b: String,
    /// JSON Lines: one `diff` record per key that differs
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args)]
struct ShowArgs {
    /// `ARTIFACT!member[!member...]`, then optionally `:N`, `:A..B` or `:A..`
    /// (lines from 1, as grep, scan and check cite them). Exit 0: all of it
    /// printed; 1: cut at a bound or the range runs past the end; 2: error
    spec: String,
    /// Print each line's number first (`N:text`)
    #[arg(short = 'n', long)]
    line_number: bool,
    /// Most lines printed; more is cut with a message (exit 1)
    #[arg(long, default_value_t = commands::show::DEFAULT_MAX_LINES)]
    max_lines: u64,
    /// Most bytes of line text printed (suffixes K, M, G); more is cut with a message (exit 1)
    #[arg(long, default_value_t = commands::show::DEFAULT_MAX_OUTPUT, value_parser = artiscan::parse_size)]
    max_output: u64,
    /// Open the artifact only inside this folder (as `cite --root`)
    #[arg(long)]
    root: Option<String>,
    /// text: the lines, controls escaped; jsonl: a `context` record per line, then a `show` record
    #[arg(long, value_enum)]
    format: Option<GrepFormat>,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args)]
struct ScanArgs {
    /// Files, folders (recursive) or `-` for stdin
    #[arg(required = true)]
    paths: Vec<String>,
    #[command(flatten)]
    sel: PackSel,
    /// One record per matching line, also for rules that aggregate
    #[arg(long)]
    every_match: bool,
    /// Output format (default: jsonl, or text on a terminal)
    #[arg(long, value_enum)]
    format: Option<OutputFormat>,
    #[command(flatten)]
    member: commands::MemberArgs,
    #[command(flatten)]
    input: InputArgs,
}

#[derive(Args)]
// `-h` is `--no-filename` as in grep and rg; help stays on `--help`.
#[command(disable_help_flag = true)]
struct GrepArgs {
    /// Pattern (a regex unless -F); omit when -e or -f is given
    #[arg(required_unless_present_any = ["regexp", "file", "files"])]
    pattern: Option<String>,
    /// Files, folders (always recursive) or `-` for stdin
    paths: Vec<String>,
    /// A pattern, which may start with `-` (`-e --tp-size`); repeat for several
    #[arg(
        short = 'e',
        long = "regexp",
        allow_hyphen_values = true,
        value_name = "PATTERN"
    )]
    regexp: Vec<String>,
    /// Read patterns from FILE, one per line (`-` for stdin)
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    file: Vec<PathBuf>,
    /// Patterns are fixed strings, not regexes
    #[arg(short = 'F', long)]
    fixed_strings: bool,
    /// Patterns are regexes (the default; accepted for grep habits)
    #[arg(short = 'E', long)]
    extended_regexp: bool,
    /// Match case-insensitively
    #[arg(short = 'i', long)]
    ignore_case: bool,
    /// Smart case, as rg: case-insensitive unless a pattern has an
    /// upper-case letter (`-i` wins)
    #[arg(short = 'S', long)]
    smart_case: bool,
    /// Match whole words only
    #[arg(short = 'w', long)]
    word_regexp: bool,
    /// Match whole lines only
    #[arg(short = 'x', long)]
    line_regexp: bool,
    /// Select lines that do not match
    #[arg(short = 'v', long)]
    invert_match: bool,
    /// Print the number of matching lines of every member searched, 0
    /// included, as GNU grep (of -l and -c, the last given wins, as in rg:
    /// `-lc` counts)
    #[arg(short = 'c', overrides_with_all = ["files_with_matches", "count_long"])]
    count: bool,
    /// As -c, but members without a match are left out, as rg's --count
    #[arg(long = "count", overrides_with_all = ["files_with_matches", "count"])]
    count_long: bool,
    /// Count matches, not matching lines (implies --count), as rg
    #[arg(long)]
    count_matches: bool,
    /// Print only the citation of members with a match
    #[arg(short = 'l', long, overrides_with_all = ["count", "count_long"])]
    files_with_matches: bool,
    /// Print only the citation of members without a match
    #[arg(short = 'L', long)]
    files_without_match: bool,
    /// Print each match on its own line, not the whole line (text output)
    #[arg(short = 'o', long)]
    only_matching: bool,
    /// Print nothing; exit 0 on a match (a member stops at its first match)
    #[arg(short = 'q', long, alias = "silent")]
    quiet: bool,
    /// Stop a member after NUM matching lines
    #[arg(short = 'm', long, value_name = "NUM")]
    max_count: Option<u64>,
    /// Show the artifact path in citations (the default)
    #[arg(short = 'H', long)]
    with_filename: bool,
    /// Citations without the artifact path: `member!member:line`
    #[arg(short = 'h', long, overrides_with = "with_filename")]
    no_filename: bool,
    /// Line numbers (shown by default; accepted for grep habits)
    #[arg(short = 'n', long, overrides_with = "no_line_number")]
    line_number: bool,
    /// No line numbers in text output, as rg -N
    #[arg(short = 'N', long, overrides_with = "line_number")]
    no_line_number: bool,
    /// Text output: the column (1-based byte) of the line's first match
    /// after its line number, as rg
    #[arg(long)]
    column: bool,
    /// One line per match, `CITATION:LINE:COLUMN:TEXT`, as rg --vimgrep
    #[arg(long)]
    vimgrep: bool,
    /// Binary members are never searched unless --binary is given, so
    /// this is the default (GNU grep's -I; rg's -I is --no-filename)
    #[arg(short = 'I')]
    skip_binary: bool,
    /// Accepted for rg habits: everything inside an artifact is searched,
    /// hidden files included
    #[arg(long, alias = "no-ignore", alias = "unrestricted")]
    hidden: bool,
    /// Search only members of file type TYPE (`log`, `txt`, `json`,
    /// `jsonl`, `yaml`, `toml`, `csv`, `md`, `py`, `sh`, `config` as rg
    /// defines them; `out`: `*.out`, `*.err`); repeatable
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    types: Vec<String>,
    /// Leave out members of file type TYPE (as -t)
    #[arg(long = "type-not", value_name = "TYPE")]
    types_not: Vec<String>,
    /// Leave out members whose name matches GLOB, as grep --exclude
    /// (`-g '!GLOB'`; --include is -g)
    #[arg(long, value_name = "GLOB")]
    exclude: Vec<String>,
    /// List the members that would be searched, without searching, as rg
    /// --files (no pattern is given)
    #[arg(long)]
    files: bool,
    /// After the results, the totals: matched lines, members and bytes
    /// searched, seconds, as rg --stats
    #[arg(long)]
    stats: bool,
    /// Refused: PCRE2 is not built in; the patterns are Rust regex syntax
    /// (no look-around or back-references)
    #[arg(short = 'P', long = "pcre2", hide = true)]
    pcre2: bool,
    /// Refused: matches never span lines (each line is matched on its own,
    /// cleaned, and cited by its number)
    #[arg(short = 'U', long = "multiline", hide = true)]
    multiline: bool,
    /// Folders are always searched recursively (accepted for grep habits)
    #[arg(short = 'r', long)]
    recursive: bool,
    /// Compressed files and archives are always searched inside (accepted
    /// for rg habits)
    #[arg(short = 'z', long)]
    search_zip: bool,
    /// Text output: the byte offset of each line in its (decompressed)
    /// member after the line number, or of each match with -o, as rg
    #[arg(short = 'b', long)]
    byte_offset: bool,
    /// Text output: a NUL byte after each citation instead of `:` (with -l,
    /// instead of the newline), as rg's -0, for `xargs -0`
    #[arg(short = '0', long)]
    null: bool,
    /// No messages about unreadable or damaged artifacts on stderr (the exit code still says)
    #[arg(short = 's', long)]
    no_messages: bool,
    /// Print NUM lines after each match
    #[arg(short = 'A', long, default_value_t = 0, value_name = "NUM")]
    after_context: usize,
    /// Print NUM lines before each match
    #[arg(short = 'B', long, default_value_t = 0, value_name = "NUM")]
    before_context: usize,
    /// Print NUM lines before and after each match
    #[arg(short = 'C', long, value_name = "NUM")]
    context: Option<usize>,
    /// Output format: text (`CITATION:TEXT`) or jsonl (artiscan's evidence, context, coverage, summary records)
    #[arg(long, value_enum)]
    format: Option<GrepFormat>,
    /// rg's JSON messages (begin, match, context, end, summary), as rg
    /// --json: `data.path.text` is the member's citation; artiscan's
    /// coverage rides in the summary's `artiscan` key
    #[arg(long, conflicts_with_all = ["count", "count_long", "count_matches", "files_with_matches", "files_without_match", "files"])]
    json: bool,
    /// Colour matches, citations and line numbers
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    /// Print help
    #[arg(long, action = clap::ArgAction::Help)]
    help: Option<bool>,
    #[command(flatten)]
    member: commands::MemberArgs,
    #[command(flatten)]
    input: InputArgs,
}

/// `-g` globs with grep's `--exclude` and rg's `-t`/`-T` added.
fn member_globs(a: &GrepArgs) -> anyhow::Result<commands::MemberArgs> {
    let mut m = a.member.clone();
    for (names, not) in [(&a.types, false), (&a.types_not, true)] {
        for name in names {
            let globs = commands::grep::type_globs(name).ok_or_else(|| {
                anyhow::anyhow!(
                    "unknown file type {name:?}: known are {}",
                    commands::grep::TYPES
                        .iter()
                        .map(|t| t.0)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            })?;
            let bang = if not { "!" } else { "" };
            m.globs.extend(globs.iter().map(|g| format!("{bang}{g}")));
        }
    }
    m.globs.extend(a.exclude.iter().map(|g| format!("!{g}")));
    Ok(m)
}

/// The built-in check sets, for `--set`'s completion and its error message.
fn set_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(commands::check_set_names())
}

/// Each command's exit codes and examples: the end of its `--help` and the
/// EXIT STATUS and EXAMPLES sections of its man page. One table, so that
/// the two say the same.
const HELP_TAILS: &[(&str, &str, &str)] = &[
    (
        "grep",
        "0  a line was selected (with -q, even if an input failed)
1  no line was selected
2  an input could not be read (missing, unreadable; the others are still
   searched), a bad pattern or usage, or a damaged member and no line selected",
        "artiscan grep -F 'Finished streaming dequant' -C 2 runs/
artiscan grep -c -g '*.out' 'accept len: ' artifact.zip
artiscan grep -l0 Traceback runs/ | xargs -0 -n1 artiscan show --max-lines 20",
    ),
    (
        "scan",
        "0  evidence was found
1  no evidence
2  an input could not be read (the others are still scanned), or an error
   and no evidence",
        "artiscan scan --format text artifacts/
artiscan scan --only 'spec.*' artifact.zip | jq .",
    ),
    (
        "check",
        "0  every verdict passes, warns (Checks 4, 14, 15 fail only as WARN) or
   does not apply
1  some verdict fails, a crash or OOM finding without a checklist number
   included
3  some verdict is unknown, or a checklist row could not be verified (the
   check applies and the download holds nothing it reads), and none fails:
   a `❌ ... FAIL — could not be verified` row is a 3, not a 1
2  an input could not be read (the rest is still judged and printed), or
   an error
The status is the same in every --format.",
        "artiscan check --set inferencex --param al=3.77 --format verdicts --grouped run-1234/
artiscan check --set inferencex --format text --status fail,unknown run-1234/
artiscan check --list",
    ),
    (
        "cite",
        "0  the line is there (and matches --expect/--sha256)
1  the quote or sha256 does not match
2  the citation does not resolve, or an error",
        "artiscan cite 'a.zip!logs.tar.gz!server.log:11' --expect SGLANG_SIMULATE_ACC_LEN=3.77",
    ),
    (
        "ls",
        "0  every member was read completely
2  an input or a member could not be read completely (all is still listed)",
        "artiscan ls artifact.zip
artiscan ls --json runs/ | jq 'select(.complete == false)'",
    ),
    (
        "show",
        "0  all that was asked was printed
1  printed, but cut at a bound, or the range runs past the member's end
2  no such artifact or member, a container or binary member, or an error",
        "artiscan show 'a.zip!logs.tar.gz!server.log:100..200'",
    ),
    (
        "audit",
        "0  the store was written
2  an input could not be read (the rest is still stored), or an error",
        "artiscan audit runs/ --db audit.sqlite",
    ),
];

/// The top-level summary of the exit codes.
const EXIT_SUMMARY: &str = "As grep: 0 found, 1 nothing found, 2 an error; an input that cannot be
read is 2 for every command, after the others are read. check: 0 all pass,
1 any fail, 3 any unknown (none fail), 2 error. `artiscan COMMAND --help`
says each command's.";

/// The CLI with each command's exit codes and examples at the end of its
/// long help.
fn cli_command() -> clap::Command {
    let mut cmd = Cli::command().after_long_help(format!("Exit status:\n{}", indent(EXIT_SUMMARY)));
    for (name, exit, examples) in HELP_TAILS {
        cmd = cmd.mut_subcommand(*name, |sub| {
            sub.after_long_help(format!(
                "Exit status:\n{}\n\nExamples:\n{}",
                indent(exit),
                indent(examples)
            ))
        });
    }
    cmd
}

fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// grep prints text or JSON Lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum GrepFormat {
    Text,
    Jsonl,
}

fn main() -> ExitCode {
    let cli = match Cli::from_arg_matches(&cli_command().get_matches()) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    if cli.no_progress {
        artiscan::disable_progress();
    }
    // `Stdout`, not a lock of it: grep's workers write from their threads.
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout());
    let mut err = io::stderr();
    let input = match &cli.command {
        Command::Grep(a) => Some(&a.input),
        Command::Scan(a) => Some(&a.input),
        Command::Check(a) => Some(&a.input),
        Command::Cite(a) => Some(&a.input),
        Command::Audit(a) => Some(&a.limits),
        Command::Ls(a) => Some(&a.input),
        Command::Show(a) => Some(&a.input),
        Command::Diff(a) => Some(&a.input),
        Command::Packs { .. } | Command::Completions { .. } | Command::Man { .. } => None,
    };
    if let Some(note) = input.and_then(InputArgs::clamp_note) {
        let _ = writeln!(err, "artiscan: {note}");
    }
    let result = match cli.command {
        Command::Grep(a) => grep(a, &mut out, &mut err),
        Command::Scan(a) => scan(a, &mut out, &mut err),
        Command::Check(a) => check(a, &mut out, &mut err),
        Command::Cite(a) => cite(a, &mut out, &mut err),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut cli_command(), "artiscan", &mut out);
            out.flush().map(|()| 0).map_err(anyhow::Error::from)
        }
        Command::Man { command } => man(&command, &mut out),
        Command::Ls(a) => {
            use std::io::IsTerminal;
            // A header for a person reading the table, none for a script.
            let header = !a.no_header && !a.json && io::stdout().is_terminal();
            let opts = commands::ls::LsOptions {
                json: a.json,
                header,
                threads: a.input.threads(),
            };
            commands::ls::run(&a.paths, &a.input.limits().source, opts, &mut out, &mut err)
        }
        Command::Show(a) => show(a, &mut out, &mut err),
        Command::Audit(a) => commands::audit::run(a, &mut out, &mut err),
        Command::Diff(a) => commands::diff::run(
            &a.a,
            &a.b,
            &a.input.limits(),
            a.input.threads(),
            a.json,
            &mut out,
            &mut err,
        ),
        Command::Packs { command } => packs(command, &mut out),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            if is_broken_pipe(&e) {
                return ExitCode::from(0);
            }
            // Errors may quote artifact names or text: escaped.
            let msg = artiscan::error_text(&e);
            let _ = writeln!(err, "artiscan: {msg}");
            ExitCode::from(2)
        }
    }
}

fn man(command: &[String], out: &mut dyn Write) -> anyhow::Result<i32> {
    let mut cli = cli_command();
    cli.build();
    let (page, tail) = if command.is_empty() {
        (cli, None)
    } else {
        let mut sub = &cli;
        for name in command {
            let Some(next) = sub.find_subcommand(name) else {
                let path = command.join(" ");
                anyhow::bail!("no command {path:?}: see `artiscan --help`");
            };
            sub = next;
        }
        let page_name = format!("artiscan-{}", command.join("-"));
        let page = sub
            .clone()
            .name(page_name)
            .version(env!("CARGO_PKG_VERSION"));
        let top = command.len() == 1;
        let tail = HELP_TAILS.iter().find(|(n, _, _)| top && *n == command[0]);
        (page, tail)
    };
    // clap_mangen's `render` would print the long help's tail as "EXTRA":
    // its sections, then EXIT STATUS and EXAMPLES of our own.
    let man = clap_mangen::Man::new(page.clone());
    man.render_title(out)?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if page.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if page.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(out)?;
    }
    let (exit, examples) = match tail {
        Some((_, exit, examples)) => (*exit, Some(*examples)),
        None => (EXIT_SUMMARY, None),
    };
    roff_section(out, "EXIT STATUS", exit)?;
    if let Some(examples) = examples {
        roff_section(out, "EXAMPLES", examples)?;
    }
    man.render_version_section(out)?;
    out.flush()?;
    Ok(0)
}

/// A man page section of preformatted lines: roff's escape character and
/// `-` escaped, and a line starting with `.` or `'` kept as text.
fn roff_section(out: &mut dyn Write, title: &str, text: &str) -> io::Result<()> {
    writeln!(out, ".SH \"{title}\"\n.nf")?;
    for line in text.lines() {
        let line = line.replace('\\', "\\e").replace('-', "\\-");
        let guard = if line.starts_with(['.', '\'']) {
            "\\&"
        } else {
            ""
        };
        writeln!(out, "{guard}{line}")?;
    }
    writeln!(out, ".fi")
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.downcast_ref::<io::Error>()
        .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
}

fn grep(a: GrepArgs, out: &mut (dyn Write + Send), err: &mut dyn Write) -> anyhow::Result<i32> {
    let mut patterns = a.regexp.clone();
    for f in &a.file {
        let text = if f.as_os_str() == "-" {
            io::read_to_string(io::stdin())?
        } else {
            std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?
        };
        patterns.extend(text.lines().map(str::to_string));
    }
    let mut paths = a.paths.clone();
    match (&a.pattern, patterns.is_empty() && a.file.is_empty()) {
        // --files takes no pattern: the first positional is a path.
        (Some(p), true) if !a.files => patterns.push(p.clone()),
        (Some(p), true) => paths.insert(0, p.clone()),
        // With -e or -f, the first positional is a path.
        (Some(p), false) => paths.insert(0, p.clone()),
        (None, _) => {}
    }
    if paths.is_empty() {
        use std::io::IsTerminal;
        if io::stdin().is_terminal() {
            anyhow::bail!(
                "no artifact given and stdin is a terminal: give files or folders to search, \
                 or pipe data in (`cat server.log.gz | artiscan grep PATTERN`)"
            );
        }
        paths.push("-".into());
    }
    if a.pcre2 {
        anyhow::bail!(
            "-P/--pcre2 is not supported: patterns are Rust regex syntax (as rg without -P), \
             with no look-around or back-references; rewrite the pattern, or use -F for a literal"
        );
    }
    if a.multiline {
        anyhow::bail!(
            "-U/--multiline is not supported: inside archives each line is matched on its own \
             (escape codes cleaned) and cited by its number, so a match cannot span lines"
        );
    }
    if a.json && a.format == Some(GrepFormat::Jsonl) {
        anyhow::bail!("--json (rg's messages) and --format jsonl (artiscan's records): give one");
    }
    let json = a.format == Some(GrepFormat::Jsonl);
    // -A/-B/-C past MAX_CONTEXT would hold that many lines in memory.
    let max = commands::cite::MAX_CONTEXT;
    let mut clamp = |flag: &str, n: usize| {
        if n > max {
            let _ = writeln!(
                err,
                "artiscan: {flag} {n} is more than {max} lines: using {max}"
            );
        }
        n.min(max)
    };
    let before = clamp("-B", a.context.unwrap_or(a.before_context));
    let after = clamp("-A", a.context.unwrap_or(a.after_context));
    let opts = GrepOptions {
        patterns,
        fixed: a.fixed_strings,
        ignore_case: a.ignore_case,
        smart_case: a.smart_case,
        word: a.word_regexp,
        line: a.line_regexp,
        invert: a.invert_match,
        count: a.count || a.count_long || a.count_matches,
        count_matches: a.count_matches,
        omit_zero: (a.count_long || a.count_matches) && !a.count,
        files_with_matches: a.files_with_matches,
        files_without_match: a.files_without_match || a.files,
        only_matching: a.only_matching,
        quiet: a.quiet,
        // --files: every member is "without a match" after no line.
        max_count: if a.files { Some(0) } else { a.max_count },
        no_filename: a.no_filename,
        before,
        after,
        byte_offset: a.byte_offset,
        null: a.null,
        json: json && !a.quiet,
        rg_json: a.json && !a.quiet,
        color: a.color.enabled() && !json && !a.json,
        no_line_number: a.no_line_number,
        column: a.column || a.vimgrep,
        vimgrep: a.vimgrep,
        stats: a.stats,
    };
    let mut silent = io::sink();
    let err: &mut dyn Write = if a.no_messages { &mut silent } else { err };
    let mut nothing = io::sink();
    let out: &mut (dyn Write + Send) = if a.quiet { &mut nothing } else { out };
    let status = commands::grep::run(
        &paths,
        &opts,
        &member_globs(&a)?.apply(a.input.limits())?,
        a.input.threads(),
        out,
        err,
    )?;
    // grep and rg: with -q, a match is exit 0 even when an input failed.
    Ok(if a.quiet && status.found {
        0
    } else {
        status.exit_code()
    })
}

fn scan(a: ScanArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let rules = a.sel.rules()?;
    let opts = ScanOptions {
        every_match: a.every_match,
        skip_prefilter: false,
    };
    let format = a.format.unwrap_or_else(OutputFormat::default_for_stdout);
    if matches!(format, OutputFormat::Markdown | OutputFormat::Verdicts) {
        anyhow::bail!("scan has no Markdown output (check has): use --format text, jsonl or json");
    }
    let limits = a.member.apply(a.input.limits())?;
    let status = commands::scan::run(
        &a.paths,
        &rules,
        opts,
        &limits,
        a.input.threads(),
        format,
        out,
        err,
    )?;
    Ok(status.exit_code())
}

fn packs(c: PacksCommand, out: &mut dyn Write) -> anyhow::Result<i32> {
    let files_rules = |files: &[PathBuf]| {
        if files.is_empty() {
            PackSel::default().all_rules()
        } else {
            artiscan::load_rules(files, &Selection::all(), artiscan::Builtin::Left)
        }
    };
    let ok = match c {
        PacksCommand::List(sel) => {
            commands::packs::list(&sel.all_rules()?, out)?;
            true
        }
        PacksCommand::Show { id, sel } => {
            let found = commands::packs::show(&sel.all_rules()?, &id, out)?;
            if !found {
                anyhow::bail!("no rule with id {id:?} (see `artiscan packs list`)");
            }
            true
        }
        PacksCommand::Test { files } => commands::packs::test(&files_rules(&files)?, out)?,
        PacksCommand::Lint { files } => commands::packs::lint(&files_rules(&files)?, out)?,
    };
    out.flush()?;
    Ok(if ok { 0 } else { 1 })
}

fn check(a: CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    if a.list {
        commands::check::list(&a.sets, &a.checks, out)?;
        return Ok(0);
    }
    let checks = artiscan::load_checks(&a.checks, &a.sets)?;
    let pairs = artiscan::param_pairs(&a.param_files, &a.params)?;
    let params = artiscan::load_params(&checks, &pairs)?;
    let params = artiscan::with_thresholds(params, a.thresholds.as_deref())?;
    let rules = artiscan::rules_for(&checks, &a.packs)?;
    let format = a.format.unwrap_or_else(OutputFormat::default_for_stdout);
    let limits = a.member.apply(a.input.limits())?;
    commands::check::run(
        &a.paths,
        a.layout,
        &checks,
        &rules,
        &params,
        &limits,
        a.input.threads(),
        format,
        &commands::check::CheckView::new(a.grouped, a.status.as_deref())
            .map_err(anyhow::Error::msg)?
            .with_curves(a.curves.clone()),
        out,
        err,
    )
}

fn cite(a: CiteArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let opts = commands::cite::CiteOptions {
        context: a.context,
        expect: a.expect,
        sha256: a.sha256,
        root: a.root,
        json: a.json,
    };
    commands::cite::run(&a.citation, &opts, &a.input.limits(), out, err)
}

fn show(a: ShowArgs, out: &mut dyn Write, err: &mut dyn Write) -> anyhow::Result<i32> {
    let opts = commands::show::ShowOptions {
        max_lines: a.max_lines,
        max_output: a.max_output,
        line_numbers: a.line_number,
        root: a.root,
        json: a.format == Some(GrepFormat::Jsonl),
    };
    commands::show::run(&a.spec, &opts, &a.input.limits(), out, err)
}
