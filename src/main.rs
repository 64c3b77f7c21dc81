//! The `artiscan` binary: parse arguments (`cli.rs`), run a command, map the outcome
//! to an exit code. All logic lives in the library.

use artiscan::GrepOptions;
use artiscan::ScanOptions;
use artiscan::Selection;
use artiscan::commands::scan::OutputFormat;
use artiscan::commands::{self, InputArgs};
use clap::FromArgMatches;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

mod cli;
use cli::*;

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
