//! The JSON Lines records. Field docs here are the contract; bump
//! [`SCHEMA_VERSION`] and `schema/output.schema.json` when they change.

use crate::location::Location;
use crate::source::{Coverage, MemberError, Note};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A citation, `path!member!member:line`, kept as its member part (shared
/// by every record of the member, however long the names) and the line.
/// Prints and serializes as the one string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Citation {
    member: Arc<str>,
    line: Option<u64>,
}

impl Citation {
    /// `member` is [`Location::member_citation`] of the record's member.
    pub fn new(member: Arc<str>, line: u64) -> Self {
        Citation {
            member,
            line: Some(line),
        }
    }
}

/// A citation read back as text (the audit store): kept whole.
impl From<String> for Citation {
    fn from(s: String) -> Self {
        Citation {
            member: s.into(),
            line: None,
        }
    }
}

impl From<&Location> for Citation {
    fn from(l: &Location) -> Self {
        Citation::new(
            Location::member_citation(&l.path, &l.members).into(),
            l.line,
        )
    }
}

impl fmt::Display for Citation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.member),
            None => f.write_str(&self.member),
        }
    }
}

impl Serialize for Citation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Version of the record shapes below.
pub const SCHEMA_VERSION: &str = "2";

/// A line that matched: from `grep` (`rule` = "grep") or a pack rule.
/// The line text, path and member chain are shared (`Arc`) by all records
/// of a line or member, so that many matches on one long line, or under one
/// long member name, cost no copies.
#[derive(Debug, Clone, Serialize)]
pub struct EvidenceRecord {
    /// Always "evidence".
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Rule id, or "grep".
    pub rule: String,
    /// Pack the rule comes from (absent for grep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack: Option<String>,
    /// `path!member!member:line`, the same as `location` in one string;
    /// `artiscan cite` reopens it.
    pub citation: Citation,
    pub location: Location,
    /// The cleaned line (ANSI escapes and trailing `\r` removed), lossy UTF-8;
    /// for a rule's match on a line longer than [`EXCERPT_MAX`] bytes, an
    /// excerpt of it around the match (see `text_start`), so that output
    /// grows with the matches, not with matches times the line's length
    /// (an `Env:` line of 300 variables gives 300 records). `cite` prints
    /// the whole line.
    pub text: Arc<str>,
    /// Present when `text` is an excerpt: its byte offset in the cleaned line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_start: Option<u64>,
    /// True when `text` had invalid UTF-8 replaced by U+FFFD.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
    /// True when the line was longer than `--max-line` and only its start was searched.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Typed named captures of the rule (absent for grep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captures: Option<Map<String, Value>>,
    /// Rank from the line prefix (`tp`, `dp`, `ep`, `pp`, `attn_cp`, `moe_dp`, `rank`); absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<BTreeMap<String, u32>>,
    /// Stable id: hash of artifact sha256, members, line, rule and column (absent for grep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
}

/// Longest `text` of a rule's evidence record: longer lines are quoted by
/// an excerpt of this many bytes at most.
pub const EXCERPT_MAX: usize = 1024;

/// The bounds in `line` of the excerpt quoted for a match at byte `at`:
/// from a quarter of [`EXCERPT_MAX`] before it, never splitting a UTF-8
/// character.
pub fn excerpt_bounds(line: &[u8], at: usize) -> (usize, usize) {
    let inside = |i: usize| i < line.len() && line[i] & 0xc0 == 0x80;
    let mut start = at.min(line.len()).saturating_sub(EXCERPT_MAX / 4);
    while inside(start) {
        start += 1;
    }
    let mut end = (start + EXCERPT_MAX).min(line.len());
    while inside(end) {
        end -= 1;
    }
    (start, end)
}

/// A context line around a grep hit (`-A/-B/-C`).
#[derive(Debug, Clone, Serialize)]
pub struct ContextRecord {
    /// Always "context".
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub citation: Citation,
    pub location: Location,
    pub text: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

/// Many matches of one rule in one member and group, summarised.
#[derive(Debug, Clone, Serialize)]
pub struct AggregateRecord {
    /// Always "aggregate".
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub rule: String,
    pub pack: String,
    pub path: String,
    pub members: Vec<String>,
    /// The group key: rank fields and/or the captures named by the rule's
    /// `aggregate`. `"overflow": true` marks the lines of a rule that does
    /// not aggregate, counted here because the artifact had reached its cap
    /// on evidence records (see `scan::MAX_RECORDS`).
    pub group: Map<String, Value>,
    /// Matching lines in this member and group.
    pub count: u64,
    /// Per numeric capture: min, max, mean.
    pub stats: BTreeMap<String, Stats>,
    /// Citation of the first and last matching line.
    pub first: String,
    pub last: String,
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

/// One per artifact, after its evidence: what was read and what was not.
#[derive(Debug, Clone, Serialize)]
pub struct CoverageRecord {
    /// Always "coverage".
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub path: String,
    /// SHA-256 of the artifact file (absent for stdin, or when not computed).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// True only if every member was read to its end.
    pub complete: bool,
    /// Leaf members opened.
    pub members: u64,
    /// Decompressed bytes of leaf members read.
    pub bytes: u64,
    pub errors: Vec<MemberError>,
    /// Things skipped on purpose (binary members, links, long lines).
    pub notes: Vec<Note>,
}

impl CoverageRecord {
    pub fn new(path: &str, sha256: Option<String>, c: &Coverage) -> Self {
        CoverageRecord {
            kind: "coverage",
            path: path.to_string(),
            sha256,
            complete: c.complete(),
            members: c.members,
            bytes: c.bytes,
            errors: c.errors.clone(),
            notes: c.notes.clone(),
        }
    }
}

/// Last record of a run.
#[derive(Debug, Clone, Serialize, Default)]
pub struct SummaryRecord {
    /// Always "summary".
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub schema_version: &'static str,
    /// artiscan version.
    pub version: &'static str,
    pub artifacts: u64,
    /// Artifacts with at least one coverage error.
    pub incomplete: u64,
    pub members: u64,
    pub bytes: u64,
    /// Matching lines (grep) or evidence records (scan).
    pub matches: u64,
    /// Coverage errors plus inputs that could not be opened.
    pub errors: u64,
    /// Evidence per rule id (scan; aggregated lines counted).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub rules: BTreeMap<String, u64>,
    pub elapsed_s: f64,
}

impl SummaryRecord {
    pub fn new() -> Self {
        SummaryRecord {
            kind: "summary",
            schema_version: SCHEMA_VERSION,
            version: env!("CARGO_PKG_VERSION"),
            ..Default::default()
        }
    }
}
