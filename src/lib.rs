//! artiscan: evidence from the CI artifacts of LLM-serving benchmark runs.
//!
//! Data flows `source` (walk, detect, decode, containers: leaf members with
//! their coverage) → `lines` (line reader: cleaning, long lines, binary
//! probe) → `scan` (the rules `pack` compiled, matched into evidence,
//! aggregates and ranks; grep's matching) → `check` (verdicts) → `output`
//! (JSON Lines, JSON, text, Markdown, verdict rows, grep's lines), called by
//! `commands`. `audit` runs the same scan and checks over many artifacts
//! into SQLite, and prints its reports through `output`.
//!
//! Modules depend downwards in this order (each may use those below it):
//! `commands` → `audit` → `output` (the printers and the wire format:
//! serialize-only views of the domain values) → `check` → `scan` (with
//! `scan::selftest`, which runs each rule's examples) → `pack` → `drive`
//! (the driver of every command: threads, input order, progress,
//! messages, tallies; hashing, coverage wording) → `limits` → `lines` →
//! `source` (with `member_glob`, the one glob dialect) → `domain` (what the
//! layers produce: evidence, aggregates, verdicts, statuses, citations,
//! quoted text; no format) → `location` (a place and its citation string)
//! → `escape` (hostile text made safe to print); `names` (artifact names
//! parsed into run fields) is a leaf that `check` and `audit` both read;
//! `formats` (the one table of decoded formats: magic, name suffixes) is
//! below every layer that reads names. Nothing in the library uses
//! `commands`: rule loading is [`load_rules`], check set-up and judging are
//! in `check::load`. `main.rs` (its clap definitions in `cli.rs`) parses arguments and calls
//! `commands`.
//!
//! The public API is `commands` and the re-exports below (what `main.rs`,
//! the benches and the fuzz targets need); everything else is
//! `pub(crate)`, and `unreachable_pub` keeps it so.
//!
//! Where to look: a JSON record's shape is in `output::records` (with the
//! format's description); a citation is built and parsed by [`Location`];
//! every read limit is a field of [`ReadLimits`] (its flag, help
//! and default declared on the field), enforced in one place each: depth
//! by `source`'s walker, bytes, ratio and spool by `source::Budget` (and
//! the layers charged to it), `max_line` and `binary` by
//! [`LineReader`]. `limits` gathers the
//! two structs it names (and they name its size parser for their flags).

#![warn(unreachable_pub)]

pub mod commands;

mod audit;
mod check;
mod diff;
mod domain;
mod drive;
mod embedded;
mod escape;
mod formats;
mod hash;
mod limits;
mod lines;
mod location;
mod member_glob;
mod names;
mod output;
mod pack;
mod scan;
mod sizes;
mod source;

// The facade: what `main.rs` uses beside `commands`, and what the benches
// and the fuzz targets drive directly. Everything else is `pub(crate)`.
pub use crate::escape::text as escape_text;
pub use check::load::{
    error_text, load_checks, load_params, param_pairs, rules_for, with_thresholds,
};
pub use check::scope::Layout;
pub use limits::ReadLimits;
pub use lines::{Line, LineLimits, LineReader, LineSink};
pub use location::Location;
pub use output::ColorChoice;
pub use output::progress::disable as disable_progress;
pub use pack::compile::{RuleSet, Selection};
pub use pack::{Builtin, builtin as builtin_packs, load_rules, parse_pack};
pub use scan::evidence::{MemberScan, ScanOptions};
pub use scan::grep::GrepOptions;
pub use scan::schedule::scan_artifact;
pub use scan::selftest;
pub use sizes::parse_size;
pub use source::walk::{Artifact, ArtifactKind};
pub use source::{Coverage, Limits, for_each_member};

#[cfg(test)]
mod tests {
    /// The modules, higher first: each may use those after it, none uses
    /// one before it (outside its tests).
    const ORDER: &[&str] = &[
        "commands",
        "audit",
        "output",
        "check",
        "diff",
        "scan",
        "pack",
        "drive",
        "limits",
        "lines",
        "source",
        "member_glob",
        "domain",
        "location",
        "escape",
        "names",
        "formats",
        "sizes",
        "embedded",
        "hash",
    ];
    /// Files that may use a module above their own (none now).
    const ALLOWED: &[(&str, &str)] = &[];

    fn files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// Every top-level module `code` names after `crate::`, with the byte
    /// offset where it is named: `crate::a::x`, and each item of a grouped
    /// `crate::{a, b::c}` (over several lines too).
    fn crate_uses(code: &str) -> Vec<(usize, String)> {
        let ident = |s: &str| -> String {
            s.trim_start()
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || *c == '_')
                .collect()
        };
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(i) = code[from..].find("crate::") {
            let at = from + i + "crate::".len();
            from = at;
            let rest = &code[at..];
            if let Some(group) = rest.strip_prefix('{') {
                // Top-level items of the group, to its matching brace.
                let (mut open_braces, mut start) = (0usize, 0usize);
                for (j, c) in group.char_indices() {
                    match c {
                        '{' => open_braces += 1,
                        '}' if open_braces == 0 => {
                            out.push((at, ident(&group[start..j])));
                            break;
                        }
                        '}' => open_braces -= 1,
                        ',' if open_braces == 0 => {
                            out.push((at, ident(&group[start..j])));
                            start = j + 1;
                        }
                        _ => {}
                    }
                }
            } else {
                out.push((at, ident(rest)));
            }
        }
        out
    }

    #[test]
    fn grouped_uses_are_read() {
        let uses = crate_uses(
            "use crate::{lines, source::x};\nuse crate::{\n    a::{b, c},\n    d,\n};\nlet x = crate::e::f;",
        );
        let names: Vec<&str> = uses.iter().map(|(_, n)| n.as_str()).collect();
        assert_eq!(names, ["lines", "source", "a", "d", "", "e"]);
    }

    /// Dependencies point down (ripgrep's crates are layered the same
    /// way): a module never names one above it, so `commands` is used by
    /// `main.rs` alone and each concept has one home.
    #[test]
    fn modules_depend_downwards() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut all = Vec::new();
        files(&src, &mut all);
        let rank = |m: &str| ORDER.iter().position(|x| *x == m);
        let mut seen = std::collections::BTreeSet::new();
        for f in all {
            let rel = f.strip_prefix(&src).unwrap();
            let top = rel.iter().next().unwrap().to_str().unwrap();
            let module = top.trim_end_matches(".rs");
            let Some(own) = rank(module) else {
                assert!(
                    // The binary's own files: clap stays out of the library.
                    ["lib", "main", "cli"].contains(&module),
                    "{module} is missing from ORDER"
                );
                continue;
            };
            seen.insert(module.to_string());
            let text = std::fs::read_to_string(&f).unwrap();
            // Tests may use anything.
            let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
            // Doc links name other layers without depending on them:
            // comment lines are blanked (line numbers kept).
            let code: String = code
                .lines()
                .map(|l| {
                    if l.trim_start().starts_with("//") {
                        ""
                    } else {
                        l
                    }
                })
                .collect::<Vec<_>>()
                .join("\n");
            for (at, dep) in crate_uses(&code) {
                let Some(d) = rank(&dep) else { continue };
                let line = code[..at].matches('\n').count() + 1;
                assert!(
                    d >= own || ALLOWED.contains(&(rel.to_str().unwrap(), dep.as_str())),
                    "{}:{line}: {module} uses {dep}, which sits above it",
                    rel.display(),
                );
            }
        }
        assert_eq!(seen.len(), ORDER.len(), "a module in ORDER has no file");
    }
}
