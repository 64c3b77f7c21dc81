//! artiscan: evidence from the CI artifacts of LLM-serving benchmark runs.
//!
//! Data flows `source` (walk, detect, decode, containers) → `lines` →
//! `pack` (load, compile) → `scan` (match, evidence) → `check` → `output`.
//! `commands` wires them into the CLI's subcommands; `main.rs` only parses.

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
