//! artiscan: evidence from the CI artifacts of LLM-serving benchmark runs.
//!
//! Data flows `source` (walk, detect, decode, containers: leaf members with
//! their coverage) → `lines` (line reader: cleaning, long lines, binary
//! probe) → `scan` (the rules `pack` compiled, matched into evidence,
//! aggregates and ranks) → `check` (verdicts) → printed by `commands`
//! as the records of `output`. `audit` runs the same scan and checks over
//! many artifacts into SQLite.
//!
//! Modules depend downwards in this order (each may use those below it):
//! `commands` → `audit` → `check` → `scan` ⇄ `pack` → `engine` (threads,
//! hashing, coverage wording) → `limits` → `lines` → `source` (with
//! `member_glob`) → `output` ⇄ `location`
//! (the wire format, citations and escaping, at the bottom because every
//! layer writes records or citations). Nothing in the library uses
//! `commands`: rule loading is [`pack::load_rules`], check set-up and
//! judging are in [`check::load`]. Known exceptions, to be removed
//! (issue 15): `pack::selftest` runs `scan`;
//! `check::scope` parses artifact names with `audit::names`;
//! `output::records` writes `source`'s coverage errors and notes as they
//! are (`source::MemberError`, `source::Note`). `main.rs` parses arguments
//! and calls `commands`.
//!
//! Where to look: a JSON record's shape is in [`output::records`] (with the
//! format's description); a citation is built and parsed by [`Location`];
//! every read limit is a field of [`limits::ReadLimits`] (its flag, help
//! and default declared on the field), enforced in one place each: depth
//! by `source`'s walker, bytes, ratio and spool by [`source::Budget`] (and
//! the layers charged to it), `max_line` and `binary` by
//! [`lines::LineReader`]. `limits` gathers the
//! two structs it names (and they name its size parser for their flags).

pub mod audit;
pub mod check;
pub mod commands;
pub mod engine;
pub mod limits;
pub mod lines;
pub mod location;
pub mod member_glob;
pub mod output;
pub mod pack;
pub mod scan;
pub mod source;

pub use location::Location;

#[cfg(test)]
mod tests {
    /// Dependencies point down: no library module names `commands`
    /// (only `main.rs` and the commands themselves do).
    #[test]
    fn the_library_does_not_use_commands() {
        fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
            for e in std::fs::read_dir(dir).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    walk(&p, out);
                } else if p.extension().is_some_and(|x| x == "rs") {
                    out.push(p);
                }
            }
        }
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        let needle = ["commands", "::"].concat();
        for f in files {
            let rel = f.strip_prefix(&src).unwrap();
            if rel.starts_with("commands") || rel == std::path::Path::new("main.rs") {
                continue;
            }
            for (i, line) in std::fs::read_to_string(&f).unwrap().lines().enumerate() {
                let code = line.trim_start();
                if code.starts_with("//") {
                    continue;
                }
                assert!(
                    !code.contains(&needle),
                    "{}:{}: the library uses commands: {code}",
                    rel.display(),
                    i + 1
                );
            }
        }
    }
}
