//! Rule kinds: how a variant finds its events. Each kind is one file here
//! holding its definition (what a variant of the kind reads from the pack),
//! its compiled form and what it keeps per member.
//!
//! Dispatch is the enum [`super::compile::Matcher`], not a trait object:
//! the line kind runs on every candidate line of every member, and a
//! `match` there costs nothing where a virtual call per line would; the
//! kinds are few and known when the crate is built. Only the json kind
//! lives here so far; the line and block kinds are still in `compile.rs`
//! and `scan/evidence.rs`, and move here when next changed.

pub(crate) mod indent;
pub(crate) mod json;
