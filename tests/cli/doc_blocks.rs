//! The docs cannot drift: every fenced `sh` block of README.md and
//! docs/*.md runs in a test (this file is shared by the `cli` and `tools`
//! targets), on the committed samples, with the built binary as
//! `artiscan` (and for `cargo run --release --`; a leading `cargo build
//! --release --tests &&` is the build already done).
//!
//! How a block is written for this test:
//! - each command line (a trailing `\` joins the next) must exit 0, or the
//!   code its trailing comment names: `# exit 1: some checks fail`;
//! - a command whose trailing comment says `not run: WHY` is not run (it
//!   needs the network, a huge input, or is the test command itself), and
//!   `SKIP` with the why is printed; a block whose first line is the
//!   comment `# not run: WHY` is skipped whole;
//! - lines run under `set -o pipefail`, so the code is the pipe's; a
//!   program that is not installed fails the block. A block that uses a
//!   program besides Rust's and Python's (`sqlite3`: [`TOOL_PROGRAMS`]) runs
//!   in the `tools` target, whose harness reports it skipped where the
//!   program is missing; the `cli` target runs every other line;
//! - the blocks of one file run in order in one scratch folder holding
//!   links to `samples/`, `patterns/`, `schema/` and `docs/`, so a block can
//!   use what an earlier one wrote; a `cd` lasts to the end of its block;
//! - a ` ```text output ` block right after a block shows its stdout: it
//!   must be this run's stdout byte for byte (shown output that drifted is
//!   a wrong doc), and `ARTISCAN_BLESS=1 cargo test --release --test cli
//!   docs` rewrites it from this run.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub struct Cmd {
    pub line: usize,
    pub text: String,
    pub expect: i32,
    pub skip: Option<String>,
}

pub struct Block {
    pub line: usize,
    pub cmds: Vec<Cmd>,
    pub skip: Option<String>,
    /// Byte range of the body of the ` ```text output ` block after it.
    pub output: Option<(usize, usize)>,
}

/// The comment of a shell line: from the first `#` that starts a word
/// outside quotes.
fn split_comment(line: &str) -> (&str, &str) {
    let (mut single, mut double) = (false, false);
    let mut prev = ' ';
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev.is_whitespace() => {
                return (line[..i].trim_end(), line[i + 1..].trim());
            }
            _ => {}
        }
        prev = c;
    }
    (line, "")
}

fn not_run(comment: &str) -> Option<String> {
    let at = comment.find("not run:")?;
    let why = comment[at + "not run:".len()..]
        .trim()
        .trim_end_matches(')')
        .to_string();
    assert!(!why.is_empty(), "`not run:` without a reason: {comment:?}");
    Some(why)
}

fn expected_exit(comment: &str) -> i32 {
    let mut words = comment.split(|c: char| !c.is_ascii_alphanumeric());
    while let Some(w) = words.next() {
        if w == "exit" {
            if let Some(Ok(n)) = words.next().map(str::parse) {
                return n;
            }
        }
    }
    0
}

pub fn blocks(doc: &str) -> Vec<Block> {
    let lines: Vec<(usize, &str)> = {
        let mut at = 0;
        doc.split_inclusive('\n')
            .map(|l| {
                let start = at;
                at += l.len();
                (start, l)
            })
            .collect()
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].1.trim_end() != "```sh" {
            i += 1;
            continue;
        }
        let first = i + 1;
        let mut end = first;
        while end < lines.len() && lines[end].1.trim_end() != "```" {
            end += 1;
        }
        let mut block = Block {
            line: first,
            cmds: Vec::new(),
            skip: None,
            output: None,
        };
        let mut k = first;
        while k < end {
            let line_no = k + 1;
            let mut text = String::new();
            loop {
                let l = lines[k].1.trim_end_matches('\n');
                k += 1;
                match l.strip_suffix('\\') {
                    Some(head) if k < end => text.push_str(head),
                    _ => {
                        text.push_str(l);
                        break;
                    }
                }
            }
            let (cmd, comment) = split_comment(&text);
            if cmd.trim().is_empty() {
                if block.cmds.is_empty() && block.skip.is_none() {
                    block.skip = not_run(comment);
                }
                continue;
            }
            block.cmds.push(Cmd {
                line: line_no,
                // The build has been done: the binary under test is it.
                text: cmd
                    .replace("cargo build --release --tests && ", "")
                    .replace("cargo run --release --", "artiscan"),
                expect: expected_exit(comment),
                skip: not_run(comment),
            });
        }
        // The shown output: a ```text output block after blank lines only.
        let mut j = end + 1;
        while j < lines.len() && lines[j].1.trim().is_empty() {
            j += 1;
        }
        if j < lines.len() && lines[j].1.trim_end() == "```text output" {
            let body = j + 1;
            let mut close = body;
            while close < lines.len() && lines[close].1.trim_end() != "```" {
                close += 1;
            }
            let stop = lines.get(close).map_or(doc.len(), |l| l.0);
            block.output = Some((lines.get(body).map_or(doc.len(), |l| l.0), stop));
        }
        out.push(block);
        i = end + 1;
    }
    out
}

/// The documents whose blocks run: README.md and docs/*.md.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![root.join("README.md")];
    let mut more: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// A folder with `artiscan` in it, for PATH.
fn bin_dir(scratch: &Path) -> PathBuf {
    let dir = scratch.join(".bin");
    std::fs::create_dir_all(&dir).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_artiscan"), dir.join("artiscan")).unwrap();
    dir
}

/// Whether `program` runs here (a shell builtin or on PATH).
fn installed(program: &str, path_var: &str) -> bool {
    Command::new("bash")
        .args(["-c", "command -v \"$0\" >/dev/null", program])
        .env("PATH", path_var)
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs one block; its stdout, or what went wrong.
fn run_block(block: &Block, work: &Path, path_var: &str, name: &str) -> Result<String, String> {
    // pipefail: a command in a pipe that fails fails the line (artiscan
    // exits 0 on a closed pipe, so `| head` is fine).
    let mut script = String::from("set -o pipefail\nexec </dev/null\n");
    for c in &block.cmds {
        if let Some(why) = &c.skip {
            eprintln!("SKIP {name}:{}: {} (not run: {why})", c.line, c.text);
            continue;
        }
        let program = program_of(&c.text);
        if !installed(program, path_var) {
            return Err(format!("{name}:{}: {program} is not installed", c.line));
        }
        script.push_str(&format!(
            "{{\n{}\n}}\n__rc=$?\n[ \"$__rc\" -eq {} ] || {{ echo \"{name}:{}: exit $__rc, the doc says {}\" >&2; exit 90; }}\n",
            c.text, c.expect, c.line, c.expect
        ));
    }
    let out = Command::new("timeout")
        .args(["600", "bash", "-c", &script])
        .current_dir(work)
        .env("PATH", path_var)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if out.status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "{name}:{}: block failed ({}):\n{stderr}\nstdout:\n{stdout}",
            block.line, out.status
        ))
    }
}

/// Programs besides Rust's and Python's that a doc block may use: such a
/// block runs in the `tools` target, which says SKIP where one is missing.
pub const TOOL_PROGRAMS: &[&str] = &["sqlite3"];

/// Which blocks a target runs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// Every block but those using a [`TOOL_PROGRAMS`] program.
    WithoutTools,
    /// The documents with a block using one, whole.
    NeedingTools,
}

/// A command line's program (`sqlite3 audit.sqlite "..."` -> `sqlite3`).
fn program_of(text: &str) -> &str {
    text.split_whitespace().next().unwrap_or_default()
}

/// Runs the blocks of README.md and docs/*.md that `part` selects; how
/// many ran, and what went wrong.
pub fn run_docs(root: &Path, part: Part) -> (usize, Vec<String>) {
    let bless = std::env::var_os("ARTISCAN_BLESS").is_some();
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc_path in documents(root) {
        let name = doc_path.strip_prefix(root).unwrap().display().to_string();
        let doc = std::fs::read_to_string(&doc_path).unwrap();
        let all = blocks(&doc);
        let needs_tool = |b: &Block| {
            b.cmds
                .iter()
                .any(|c| c.skip.is_none() && TOOL_PROGRAMS.contains(&program_of(&c.text)))
        };
        // The tools target runs a document that uses such a program whole
        // (its blocks build on one another); the cli target all but the
        // blocks that use one.
        if part == Part::NeedingTools && !all.iter().any(needs_tool) {
            continue;
        }
        let scratch = tempfile::tempdir().unwrap();
        for link in ["samples", "patterns", "schema", "docs"] {
            std::os::unix::fs::symlink(root.join(link), scratch.path().join(link)).unwrap();
        }
        let path_var = format!(
            "{}:{}",
            bin_dir(scratch.path()).display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut rewritten = doc.clone();
        // Rewrites go from the end so earlier ranges stay valid.
        let mut shown = Vec::new();
        for block in all {
            if let Some(why) = &block.skip {
                eprintln!("SKIP {name}:{}: block not run: {why}", block.line);
                continue;
            }
            // Here the lines that use such a program are left out (the
            // tools target runs them), and so is the comparison of the
            // block's shown output, which they make.
            let mut block = block;
            let mut output = block.output;
            if part == Part::WithoutTools && needs_tool(&block) {
                for c in block.cmds.iter_mut().filter(|c| c.skip.is_none()) {
                    if TOOL_PROGRAMS.contains(&program_of(&c.text)) {
                        c.skip = Some("the tools target runs it".into());
                    }
                }
                output = None;
            }
            ran += 1;
            match run_block(&block, scratch.path(), &path_var, &name) {
                Ok(stdout) => {
                    if let Some((a, b)) = output {
                        if doc[a..b] != stdout {
                            if bless {
                                shown.push((a, b, stdout));
                            } else {
                                // Shown output that drifted is a wrong doc.
                                failures.push(format!(
                                    "{name}:{}: the output shown differs from this run's (ARTISCAN_BLESS=1 and the test refreshes it):\n{stdout}",
                                    block.line
                                ));
                            }
                        }
                    }
                }
                Err(e) => failures.push(e),
            }
        }
        for (a, b, stdout) in shown.into_iter().rev() {
            rewritten.replace_range(a..b, &stdout);
        }
        if rewritten != doc {
            std::fs::write(&doc_path, rewritten).unwrap();
        }
    }
    (ran, failures)
}
