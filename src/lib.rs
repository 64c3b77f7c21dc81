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
//! hashing, coverage wording) → `lines` → `source` → `output` ⇄ `location`
//! (the wire format, citations and escaping, at the bottom because every
//! layer writes records or citations). Known exceptions, to be removed
//! (issue 15): `audit` calls `commands::check` (judging) and
//! `commands::scan` (rule loading); `pack::selftest` runs `scan`;
//! `check::scope` parses artifact names with `audit::names`;
//! `output::records` writes `source`'s coverage errors and notes as they
//! are (`source::MemberError`, `source::Note`). `main.rs` parses arguments
//! and calls `commands`.
//!
//! Where to look: a JSON record's shape is in [`output::records`] (with the
//! format's description); a citation is built and parsed by [`Location`];
//! a read limit is a field of [`source::Limits`], enforced in `source`
//! (depth, bytes, ratio, spool) or `lines` (`max_line`, `binary`).

pub mod audit;
pub mod check;
pub mod commands;
pub mod engine;
pub mod lines;
pub mod location;
pub mod member_glob;
pub mod output;
pub mod pack;
pub mod scan;
pub mod source;

pub use location::Location;
