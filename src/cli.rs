//! The command line: clap's definitions of every command and its
//! arguments, and the help text's exit codes and examples. Binary-side
//! only (the library never sees clap); `main.rs` runs what it parses.

use artiscan::commands::scan::OutputFormat;
use artiscan::commands::{self, InputArgs};
use artiscan::{ColorChoice, RuleSet, Selection};
use clap::{Args, CommandFactory, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser)]
#[command(
    name = "artiscan",
    version,
    about = "Evidence from LLM-serving benchmark CI artifacts: greps and scans inside nested zips and tarballs, with exact citations"
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
    /// No progress bar on stderr, even on a terminal
    #[arg(long, global = true)]
    pub(crate) no_progress: bool,
}

#[derive(Subcommand)]
pub(crate) enum Command {
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
pub(crate) enum PacksCommand {
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
pub(crate) struct PackSel {
    /// Add a pack file, or every *.toml in a folder
    #[arg(long = "pack")]
    pub(crate) packs: Vec<PathBuf>,
    /// Keep only rules whose id matches this glob (repeatable)
    #[arg(long)]
    pub(crate) only: Vec<String>,
    /// Drop rules whose id matches this glob (repeatable)
    #[arg(long)]
    pub(crate) skip: Vec<String>,
    /// Also run the opt-in rules whose id matches this glob (repeatable;
    /// `packs list` marks them): per-line stats of the most frequent lines,
    /// such as sglang.batch_throughput
    #[arg(long)]
    pub(crate) with: Vec<String>,
}

impl PackSel {
    pub(crate) fn rules(&self) -> anyhow::Result<RuleSet> {
        let sel = Selection {
            only: self.only.clone(),
            skip: self.skip.clone(),
            with: self.with.clone(),
        };
        artiscan::load_rules(&self.packs, &sel, artiscan::Builtin::Included)
    }

    /// The same with every opt-in rule: `packs` lists and tests them all.
    pub(crate) fn all_rules(&self) -> anyhow::Result<RuleSet> {
        let mut all = self.clone();
        all.with.push("*".into());
        all.rules()
    }
}

#[derive(Args)]
pub(crate) struct CheckArgs {
    /// Files, folders (recursive) or `-` for stdin
    #[arg(required_unless_present = "list")]
    pub(crate) paths: Vec<String>,
    /// Print the sets (or the --set/--checks given), their checks, applicability and parameters
    #[arg(long)]
    pub(crate) list: bool,
    /// How folders map to artifacts (auto: a folder named like an artifact is one)
    #[arg(long, value_enum, default_value_t = artiscan::Layout::Auto)]
    pub(crate) layout: artiscan::Layout,
    /// A check file (repeatable)
    #[arg(long = "checks", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub(crate) checks: Vec<PathBuf>,
    /// A built-in check set, e.g. `inferencex` (repeatable)
    #[arg(long = "set", value_name = "SET", value_parser = set_names())]
    pub(crate) sets: Vec<String>,
    /// A parameter referenced as "@param:KEY" in check files (wins over --params)
    #[arg(long = "param", value_name = "KEY=VALUE")]
    pub(crate) params: Vec<String>,
    /// A TOML file of parameters, one `KEY = VALUE` each (`al = 3.5`, `gsm8k_min = 0.9`); repeatable
    #[arg(long = "params", value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub(crate) param_files: Vec<PathBuf>,
    /// InferenceX's eval thresholds file (utils/evals/thresholds.yaml of the checkout judged; YAML, JSON or the flat form): each eval task's bar for the eval's model prefix (meta_env.json), as validate_scores.py picks it; --param <task>_min wins
    #[arg(long = "thresholds", value_name = "PATH", value_hint = clap::ValueHint::FilePath)]
    pub(crate) thresholds: Option<PathBuf>,
    /// Write the Pareto curves read (Check 14) to PATH as InferenceX's `python -m infx.workflows.pareto_coverage` takes them: [{"key": "<model/scenario/hwKey/precision/run/percentile/image>", "points": [{"x": E2EL, "y": tput_per_gpu}]}]
    #[arg(long = "curves", value_name = "PATH", value_hint = clap::ValueHint::FilePath)]
    pub(crate) curves: Option<PathBuf>,
    /// Extra pack file or folder
    #[arg(long = "pack")]
    pub(crate) packs: Vec<PathBuf>,
    /// Output format (default: jsonl, or text on a terminal; `verdicts`: the block the InferenceX verifier merges, one row per checklist number for all runs given, then what ran and notes)
    #[arg(long, value_enum)]
    pub(crate) format: Option<OutputFormat>,
    /// With `--format verdicts`: the verifier prompt's layout, failures and warnings first, PASS and N/A rows in one collapsed <details> group
    #[arg(long)]
    pub(crate) grouped: bool,
    /// With `--format text`: list only verdicts of these statuses, e.g. `fail,unknown` (totals count all)
    #[arg(long, value_name = "LIST")]
    pub(crate) status: Option<String>,
    #[command(flatten)]
    pub(crate) member: commands::MemberArgs,
    #[command(flatten)]
    pub(crate) input: InputArgs,
}

#[derive(Args)]
pub(crate) struct CiteArgs {
    /// `path!member!member:line`, as printed by grep, scan and check
    pub(crate) citation: String,
    /// Lines of context before and after (at most 10000)
    #[arg(short = 'C', long, default_value_t = 0)]
    pub(crate) context: usize,
    /// Exit 1 unless the cited line (cleaned as scan cleans it) contains this text
    #[arg(long)]
    pub(crate) expect: Option<String>,
    /// Exit 1 unless the artifact has this sha256
    #[arg(long)]
    pub(crate) sha256: Option<String>,
    /// Open the citation's path only inside this folder: no absolute path,
    /// no `..`, no symlink out, no fallback to the current folder. Without
    /// it the path is opened as given, like any file argument (so use
    /// --root for citations that others wrote)
    #[arg(long)]
    pub(crate) root: Option<String>,
    /// One `cite` JSON record instead of text: the line, its context, the artifact sha256 and the byte offset
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) input: InputArgs,
}

#[derive(Args)]
pub(crate) struct LsArgs {
    /// Files, folders (recursive) or `-` for stdin
    #[arg(required = true)]
    pub(crate) paths: Vec<String>,
    /// JSON Lines: one `member` record per member, then the artifact's `coverage`
    #[arg(long)]
    pub(crate) json: bool,
    /// No column header (text output prints one only on a terminal)
    #[arg(long)]
    pub(crate) no_header: bool,
    #[command(flatten)]
    pub(crate) input: InputArgs,
}

#[derive(Args)]
pub(crate) struct DiffArgs {
    /// The first run (a downloaded run folder, or an archive of one): the baseline
    pub(crate) a: String,
    /// The second run: the PR's
    pub(crate) b: String,
    /// JSON Lines: one `diff` record per key that differs
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) input: InputArgs,
}

#[derive(Args)]
pub(crate) struct ShowArgs {
    /// `ARTIFACT!member[!member...]`, then optionally `:N`, `:A..B` or `:A..`
    /// (lines from 1, as grep, scan and check cite them). Exit 0: all of it
    /// printed; 1: cut at a bound or the range runs past the end; 2: error
    pub(crate) spec: String,
    /// Print each line's number first (`N:text`)
    #[arg(short = 'n', long)]
    pub(crate) line_number: bool,
    /// Most lines printed; more is cut with a message (exit 1)
    #[arg(long, default_value_t = commands::show::DEFAULT_MAX_LINES)]
    pub(crate) max_lines: u64,
    /// Most bytes of line text printed (suffixes K, M, G); more is cut with a message (exit 1)
    #[arg(long, default_value_t = commands::show::DEFAULT_MAX_OUTPUT, value_parser = artiscan::parse_size)]
    pub(crate) max_output: u64,
    /// Open the artifact only inside this folder (as `cite --root`)
    #[arg(long)]
    pub(crate) root: Option<String>,
    /// text: the lines, controls escaped; jsonl: a `context` record per line, then a `show` record
    #[arg(long, value_enum)]
    pub(crate) format: Option<GrepFormat>,
    #[command(flatten)]
    pub(crate) input: InputArgs,
}

#[derive(Args)]
pub(crate) struct ScanArgs {
    /// Files, folders (recursive) or `-` for stdin
    #[arg(required = true)]
    pub(crate) paths: Vec<String>,
    #[command(flatten)]
    pub(crate) sel: PackSel,
    /// One record per matching line, also for rules that aggregate
    #[arg(long)]
    pub(crate) every_match: bool,
    /// Output format (default: jsonl, or text on a terminal)
    #[arg(long, value_enum)]
    pub(crate) format: Option<OutputFormat>,
    #[command(flatten)]
    pub(crate) member: commands::MemberArgs,
    #[command(flatten)]
    pub(crate) input: InputArgs,
}

#[derive(Args)]
// `-h` is `--no-filename` as in grep and rg; help stays on `--help`.
#[command(disable_help_flag = true)]
pub(crate) struct GrepArgs {
    /// Pattern (a regex unless -F); omit when -e or -f is given
    #[arg(required_unless_present_any = ["regexp", "file", "files"])]
    pub(crate) pattern: Option<String>,
    /// Files, folders (always recursive) or `-` for stdin
    pub(crate) paths: Vec<String>,
    /// A pattern, which may start with `-` (`-e --tp-size`); repeat for several
    #[arg(
        short = 'e',
        long = "regexp",
        allow_hyphen_values = true,
        value_name = "PATTERN"
    )]
    pub(crate) regexp: Vec<String>,
    /// Read patterns from FILE, one per line (`-` for stdin)
    #[arg(short = 'f', long = "file", value_name = "FILE")]
    pub(crate) file: Vec<PathBuf>,
    /// Patterns are fixed strings, not regexes
    #[arg(short = 'F', long)]
    pub(crate) fixed_strings: bool,
    /// Patterns are regexes (the default; accepted for grep habits)
    #[arg(short = 'E', long)]
    pub(crate) extended_regexp: bool,
    /// Match case-insensitively
    #[arg(short = 'i', long)]
    pub(crate) ignore_case: bool,
    /// Smart case, as rg: case-insensitive unless a pattern has an
    /// upper-case letter (`-i` wins)
    #[arg(short = 'S', long)]
    pub(crate) smart_case: bool,
    /// Match whole words only
    #[arg(short = 'w', long)]
    pub(crate) word_regexp: bool,
    /// Match whole lines only
    #[arg(short = 'x', long)]
    pub(crate) line_regexp: bool,
    /// Select lines that do not match
    #[arg(short = 'v', long)]
    pub(crate) invert_match: bool,
    /// Print the number of matching lines of every member searched, 0
    /// included, as GNU grep (of -l and -c, the last given wins, as in rg:
    /// `-lc` counts)
    #[arg(short = 'c', overrides_with_all = ["files_with_matches", "count_long"])]
    pub(crate) count: bool,
    /// As -c, but members without a match are left out, as rg's --count
    #[arg(long = "count", overrides_with_all = ["files_with_matches", "count"])]
    pub(crate) count_long: bool,
    /// Count matches, not matching lines (implies --count), as rg
    #[arg(long)]
    pub(crate) count_matches: bool,
    /// Print only the citation of members with a match
    #[arg(short = 'l', long, overrides_with_all = ["count", "count_long"])]
    pub(crate) files_with_matches: bool,
    /// Print only the citation of members without a match
    #[arg(short = 'L', long)]
    pub(crate) files_without_match: bool,
    /// Print each match on its own line, not the whole line (text output)
    #[arg(short = 'o', long)]
    pub(crate) only_matching: bool,
    /// Print nothing; exit 0 on a match (a member stops at its first match)
    #[arg(short = 'q', long, alias = "silent")]
    pub(crate) quiet: bool,
    /// Stop a member after NUM matching lines
    #[arg(short = 'm', long, value_name = "NUM")]
    pub(crate) max_count: Option<u64>,
    /// Show the artifact path in citations (the default)
    #[arg(short = 'H', long)]
    pub(crate) with_filename: bool,
    /// Citations without the artifact path: `member!member:line`
    #[arg(short = 'h', long, overrides_with = "with_filename")]
    pub(crate) no_filename: bool,
    /// Line numbers (shown by default; accepted for grep habits)
    #[arg(short = 'n', long, overrides_with = "no_line_number")]
    pub(crate) line_number: bool,
    /// No line numbers in text output, as rg -N
    #[arg(short = 'N', long, overrides_with = "line_number")]
    pub(crate) no_line_number: bool,
    /// Text output: the column (1-based byte) of the line's first match
    /// after its line number, as rg
    #[arg(long)]
    pub(crate) column: bool,
    /// One line per match, `CITATION:LINE:COLUMN:TEXT`, as rg --vimgrep
    #[arg(long)]
    pub(crate) vimgrep: bool,
    /// Binary members are never searched unless --binary is given, so
    /// this is the default (GNU grep's -I; rg's -I is --no-filename)
    #[arg(short = 'I')]
    pub(crate) skip_binary: bool,
    /// Accepted for rg habits: everything inside an artifact is searched,
    /// hidden files included
    #[arg(long, alias = "no-ignore", alias = "unrestricted")]
    pub(crate) hidden: bool,
    /// Search only members of file type TYPE (`log`, `txt`, `json`,
    /// `jsonl`, `yaml`, `toml`, `csv`, `md`, `py`, `sh`, `config` as rg
    /// defines them; `out`: `*.out`, `*.err`); repeatable
    #[arg(short = 't', long = "type", value_name = "TYPE")]
    pub(crate) types: Vec<String>,
    /// Leave out members of file type TYPE (as -t)
    #[arg(long = "type-not", value_name = "TYPE")]
    pub(crate) types_not: Vec<String>,
    /// Leave out members whose name matches GLOB, as grep --exclude
    /// (`-g '!GLOB'`; --include is -g)
    #[arg(long, value_name = "GLOB")]
    pub(crate) exclude: Vec<String>,
    /// List the members that would be searched, without searching, as rg
    /// --files (no pattern is given)
    #[arg(long)]
    pub(crate) files: bool,
    /// After the results, the totals: matched lines, members and bytes
    /// searched, seconds, as rg --stats
    #[arg(long)]
    pub(crate) stats: bool,
    /// Refused: PCRE2 is not built in; the patterns are Rust regex syntax
    /// (no look-around or back-references)
    #[arg(short = 'P', long = "pcre2", hide = true)]
    pub(crate) pcre2: bool,
    /// Refused: matches never span lines (each line is matched on its own,
    /// cleaned, and cited by its number)
    #[arg(short = 'U', long = "multiline", hide = true)]
    pub(crate) multiline: bool,
    /// Folders are always searched recursively (accepted for grep habits)
    #[arg(short = 'r', long)]
    pub(crate) recursive: bool,
    /// Compressed files and archives are always searched inside (accepted
    /// for rg habits)
    #[arg(short = 'z', long)]
    pub(crate) search_zip: bool,
    /// Text output: the byte offset of each line in its (decompressed)
    /// member after the line number, or of each match with -o, as rg
    #[arg(short = 'b', long)]
    pub(crate) byte_offset: bool,
    /// Text output: a NUL byte after each citation instead of `:` (with -l,
    /// instead of the newline), as rg's -0, for `xargs -0`
    #[arg(short = '0', long)]
    pub(crate) null: bool,
    /// No messages about unreadable or damaged artifacts on stderr (the exit code still says)
    #[arg(short = 's', long)]
    pub(crate) no_messages: bool,
    /// Print NUM lines after each match
    #[arg(short = 'A', long, default_value_t = 0, value_name = "NUM")]
    pub(crate) after_context: usize,
    /// Print NUM lines before each match
    #[arg(short = 'B', long, default_value_t = 0, value_name = "NUM")]
    pub(crate) before_context: usize,
    /// Print NUM lines before and after each match
    #[arg(short = 'C', long, value_name = "NUM")]
    pub(crate) context: Option<usize>,
    /// Output format: text (`CITATION:TEXT`) or jsonl (artiscan's evidence, context, coverage, summary records)
    #[arg(long, value_enum)]
    pub(crate) format: Option<GrepFormat>,
    /// rg's JSON messages (begin, match, context, end, summary), as rg
    /// --json: `data.path.text` is the member's citation; artiscan's
    /// coverage rides in the summary's `artiscan` key
    #[arg(long, conflicts_with_all = ["count", "count_long", "count_matches", "files_with_matches", "files_without_match", "files"])]
    pub(crate) json: bool,
    /// Colour matches, citations and line numbers
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    pub(crate) color: ColorChoice,
    /// Print help
    #[arg(long, action = clap::ArgAction::Help)]
    pub(crate) help: Option<bool>,
    #[command(flatten)]
    pub(crate) member: commands::MemberArgs,
    #[command(flatten)]
    pub(crate) input: InputArgs,
}

/// `-g` globs with grep's `--exclude` and rg's `-t`/`-T` added.
pub(crate) fn member_globs(a: &GrepArgs) -> anyhow::Result<commands::MemberArgs> {
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
pub(crate) fn set_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(commands::check_set_names())
}

/// Each command's exit codes and examples: the end of its `--help` and the
/// EXIT STATUS and EXAMPLES sections of its man page. One table, so that
/// the two say the same.
pub(crate) const HELP_TAILS: &[(&str, &str, &str)] = &[
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
pub(crate) const EXIT_SUMMARY: &str =
    "As grep: 0 found, 1 nothing found, 2 an error; an input that cannot be
read is 2 for every command, after the others are read. check: 0 all pass,
1 any fail, 3 any unknown (none fail), 2 error. `artiscan COMMAND --help`
says each command's.";

/// The CLI with each command's exit codes and examples at the end of its
/// long help.
pub(crate) fn cli_command() -> clap::Command {
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

pub(crate) fn indent(text: &str) -> String {
    text.lines()
        .map(|l| format!("  {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// grep prints text or JSON Lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum GrepFormat {
    Text,
    Jsonl,
}
