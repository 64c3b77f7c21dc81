//! The JSON wire format: every record artiscan prints as JSON, in one place.
//! Field docs here are the contract; bump [`SCHEMA_VERSION`] and
//! `schema/output.schema.json` (a test checks real output against it, and
//! another that each record's `KIND` is the schema's) when they change.
//!
//! ## Format
//! JSON Lines: one JSON object per line, UTF-8, `\n`-terminated. Every
//! record has a `"type"` field naming its kind, written once here as the
//! record type's `KIND`:
//!
//! | `type` | Rust type | printed by |
//! |---|---|---|
//! | `evidence` | [`EvidenceRecord`] | `scan`, `grep --format jsonl` (`rule` = "grep") |
//! | `context` | [`ContextRecord`] | `grep --format jsonl -A/-B/-C` |
//! | `aggregate` | [`AggregateRecord`] | `scan` (high-frequency rules) |
//! | `coverage` | [`CoverageRecord`] | `scan`, `grep --format jsonl`, `check`: one per artifact, after its records |
//! | `summary` | [`SummaryRecord`] | `scan`, `grep --format jsonl`: the last line |
//! | `count` | [`CountRecord`] | `grep --format jsonl -c/-l/-L`: one per member |
//! | `verdict` | [`VerdictRecord`] | `check` |
//! | `cite` | [`CiteRecord`] | `cite --json` |
//! | `member` | [`MemberRecord`] | `ls --json` |
//! | `audit_summary` | [`AuditSummaryRecord`] | `audit report --format jsonl`: the first line |
//! | `run` | [`AuditRunRecord`] | `audit report --format jsonl`: per run |
//! | `check` | [`AuditCheckRecord`] | `audit report --format jsonl`: per check |
//! | `fail` | [`AuditFailRecord`] | `audit report --format jsonl`: per failing verdict |
//! | `incomplete` | [`AuditIncompleteRecord`] | `audit report --format jsonl`: per damaged artifact |
//!
//! `grep --json` is not this format: it writes ripgrep's messages
//! (`begin`, `match`, `context`, `end`, `summary`; see `output::grep_json`).
//!
//! Records of one artifact come together, in member and line order, then its
//! `coverage` record; artifacts come in walk order whatever `-j` is.
//! `scan --format json` and `check --format json` wrap the same records in
//! one document that carries [`SCHEMA_VERSION`]; `summary` carries it in
//! JSON Lines. Optional fields are omitted, never `null`, unless documented
//! (`sha256` of `cite`). A place in an artifact is a [`Location`] object
//! plus its citation string (`path!member!member:line`, components
//! percent-escaped), built and parsed only by [`Location`]; the two always
//! agree. Coverage errors and notes are
//! [`MemberError`] and [`Note`]: `{members, kind, message}`.

use crate::domain::SmallMap;
pub(crate) use crate::domain::{
    Aggregate, Citation, Cited, Evidence, Quote, ServerRanks, Stats, Status, Tally, Verdict,
};
use crate::location::Location;
use crate::source::{Coverage, MemberError, Note};
use serde::Serialize;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Version of the record shapes below, as every output writes it (a JSON
/// string). The audit store's own SQLite schema is versioned apart
/// (`audit::store::STORE_SCHEMA_VERSION`).
///
/// 6: a capture may be a list of strings or numbers (a JSON rule's `*`
/// field: `eval.score`'s `declared`, the metrics of `configs.<task>.metric_list`).
///
/// 5: record type `diff` (`artiscan diff`); coverage notes of kind
/// `core_dump`, errors of kind `empty`; a match in a later window of a long
/// line has `truncated` true and its `column` counted from the line's start.
///
/// 4: a verdict's `checklist`: the InferenceX verifier's check number
/// (0-15) the check answers, where its check file gives one.
///
/// 3: coverage notes of kind `image`; coverage errors of kind
/// `not_an_archive`; notes `after_end` and `name_mismatch`; a verdict's
/// per-server ranks may be `"DP1 TP3"` strings where replicas name them.
pub(crate) const SCHEMA_VERSION: &str = "6";

// The domain's text types print as their strings.
impl Serialize for Citation {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl Serialize for Quote {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self)
    }
}

/// A line that matched ([`Evidence`]): from `grep` (`rule` = "grep") or a
/// pack rule.
#[derive(Debug, Serialize)]
pub(crate) struct EvidenceRecord<'a> {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Rule id, or "grep".
    pub rule: &'a str,
    /// Pack the rule comes from (absent for grep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pack: Option<&'a str>,
    /// `path!member!member:line`, the same as `location` in one string;
    /// `artiscan cite` reopens it.
    pub citation: &'a Citation,
    pub location: &'a Location,
    /// The cleaned line (ANSI escapes and trailing `\r` removed), lossy UTF-8;
    /// for a rule's match on a line longer than [`crate::domain::EXCERPT_MAX`] bytes, an
    /// excerpt of it around the match (see `text_start`), so that output
    /// grows with the matches, not with matches times the line's length
    /// (an `Env:` line of 300 variables gives 300 records). `cite` prints
    /// the whole line.
    pub text: &'a Quote,
    /// Present when `text` is an excerpt: its byte offset in the line as
    /// `text` and `cite` render it (cleaned, lossy UTF-8).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text_start: Option<u64>,
    /// True when `text` had invalid UTF-8 replaced by U+FFFD.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
    /// True when the line was longer than `--max-line` and only its start was searched.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Typed named captures of the rule (absent for grep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub captures: Option<&'a Map<String, Value>>,
    /// Rank from the line prefix (`tp`, `dp`, `ep`, `pp`, `attn_cp`, `moe_dp`, `rank`); absent when unknown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rank: Option<&'a BTreeMap<String, u32>>,
    /// Stable id: hash of artifact sha256, members, line, rule and column (absent for grep).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<&'a str>,
}

impl EvidenceRecord<'_> {
    pub(crate) const KIND: &'static str = "evidence";
}

impl<'a> From<&'a Evidence> for EvidenceRecord<'a> {
    fn from(e: &'a Evidence) -> Self {
        EvidenceRecord {
            kind: Self::KIND,
            rule: &e.rule,
            pack: e.pack.as_deref(),
            citation: &e.citation,
            location: &e.location,
            text: &e.text,
            text_start: e.text_start,
            lossy: e.lossy,
            truncated: e.truncated,
            captures: e.captures.as_ref(),
            rank: e.rank.as_ref(),
            id: e.id.as_deref(),
        }
    }
}

/// Many matches of one rule in one member and group, summarised
/// ([`Aggregate`]).
#[derive(Debug, Serialize)]
pub(crate) struct AggregateRecord<'a> {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub rule: &'a str,
    pub pack: &'a str,
    pub path: &'a str,
    pub members: &'a [String],
    /// The group key: rank fields and/or the captures named by the rule's
    /// `aggregate`. `"overflow": true` marks the lines of a rule that does
    /// not aggregate, counted here because the artifact had reached its cap
    /// on evidence records (see `scan::MAX_RECORDS`).
    pub group: &'a SmallMap<Value>,
    /// Matching lines in this member and group.
    pub count: u64,
    /// Per numeric capture: min, max, mean.
    pub stats: &'a SmallMap<Stats>,
    /// Citation of the first and last matching line.
    pub first: &'a Citation,
    pub last: &'a Citation,
}

impl AggregateRecord<'_> {
    pub(crate) const KIND: &'static str = "aggregate";
}

impl<'a> From<&'a Aggregate> for AggregateRecord<'a> {
    fn from(a: &'a Aggregate) -> Self {
        AggregateRecord {
            kind: Self::KIND,
            rule: &a.rule,
            pack: &a.pack,
            path: &a.path,
            members: &a.members,
            group: &a.group,
            count: a.count,
            stats: &a.stats,
            first: &a.first,
            last: &a.last,
        }
    }
}

/// One check judged over one scope ([`Verdict`]).
#[derive(Debug, Serialize)]
pub(crate) struct VerdictRecord<'a> {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub check: &'a str,
    /// The InferenceX verifier's check number (0-15, `Check N` of its
    /// prompt) that this check answers, from `checklist = N` in the check
    /// file; absent where it answers none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checklist: Option<u8>,
    pub description: &'a str,
    pub rule: &'a str,
    /// The artifact (zip, file, or extracted artifact folder) or, with
    /// `scope = "run"`, the run's folder.
    pub scope: &'a str,
    pub status: Status,
    pub reason: &'a str,
    /// The records behind the verdict (at most 20), with rank and server.
    pub evidence: &'a [Cited],
    /// Observed capture values of the matching records: capture → distinct values (at most 20).
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub observed: &'a Map<String, Value>,
    /// What was expected: the conditions with `@param:` values resolved, the count bounds.
    #[serde(skip_serializing_if = "Map::is_empty")]
    pub expected: &'a Map<String, Value>,
    /// Sources read for an absence: members holding `within` evidence.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub examined: &'a [String],
    /// `every_rank`: one entry per server.
    #[serde(skip_serializing_if = "<[ServerRanks]>::is_empty")]
    pub servers: &'a [ServerRanks],
    /// What is missing: `ranks` per server not seen, `members` not read completely.
    pub missing: &'a BTreeMap<String, Value>,
}

impl VerdictRecord<'_> {
    pub(crate) const KIND: &'static str = "verdict";
}

impl<'a> From<&'a Verdict> for VerdictRecord<'a> {
    fn from(v: &'a Verdict) -> Self {
        VerdictRecord {
            kind: Self::KIND,
            check: &v.check,
            checklist: v.checklist,
            description: &v.description,
            rule: &v.rule,
            scope: &v.scope,
            status: v.status,
            reason: &v.reason,
            evidence: &v.evidence,
            observed: &v.observed,
            expected: &v.expected,
            examined: &v.examined,
            servers: &v.servers,
            missing: &v.missing,
        }
    }
}

/// A context line around a grep hit (`-A/-B/-C`).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct ContextRecord {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub citation: Citation,
    pub location: Location,
    pub text: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub lossy: bool,
}

impl ContextRecord {
    pub(crate) const KIND: &'static str = "context";

    pub(crate) fn new(location: Location, citation: Citation, text: String, lossy: bool) -> Self {
        ContextRecord {
            kind: Self::KIND,
            citation,
            location,
            text,
            lossy,
        }
    }
}

/// One per artifact, after its evidence: what was read and what was not.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct CoverageRecord {
    /// Always [`Self::KIND`].
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
    pub(crate) const KIND: &'static str = "coverage";

    pub(crate) fn new(path: &str, sha256: Option<String>, c: &Coverage) -> Self {
        CoverageRecord {
            kind: Self::KIND,
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
pub(crate) struct SummaryRecord {
    /// Always [`Self::KIND`].
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
    pub(crate) const KIND: &'static str = "summary";

    pub(crate) fn new() -> Self {
        SummaryRecord {
            kind: Self::KIND,
            schema_version: SCHEMA_VERSION,
            version: env!("CARGO_PKG_VERSION"),
            ..Default::default()
        }
    }
}

/// `diff --format jsonl`: one key whose values differ between two runs.
#[derive(Debug, Serialize)]
pub(crate) struct DiffRecord<'a> {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// What differs: `run image`, `engine sglang`, `launch tp_size`,
    /// `env NAME`, `eval <task> ...`, `point conc=16 tput_per_gpu`.
    pub key: &'a str,
    /// Run A's value, absent when A has none.
    pub a: Option<DiffSide<'a>>,
    /// Run B's value, absent when B has none.
    pub b: Option<DiffSide<'a>>,
}

/// One side of a difference: the value and where it was read.
#[derive(Debug, Serialize)]
pub(crate) struct DiffSide<'a> {
    pub value: &'a str,
    pub citation: &'a str,
}

impl DiffRecord<'_> {
    pub(crate) const KIND: &'static str = "diff";
}

/// `grep --format jsonl -c` (every member read) or `-l` (members with a match;
/// reading stops at the first, so `count` is 1): one record per member.
#[derive(Serialize)]
pub(crate) struct CountRecord<'a> {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `path!member!member` (no line).
    pub citation: String,
    pub path: &'a str,
    pub members: &'a [String],
    /// Matching lines (selected lines with `-v`).
    pub count: u64,
}

impl CountRecord<'_> {
    pub(crate) const KIND: &'static str = "count";
}

/// One leaf member, as `ls --json` prints it.
#[derive(Debug, Serialize)]
pub(crate) struct MemberRecord {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// `path!member!member`: the member's citation without a line.
    pub citation: String,
    pub path: String,
    pub members: Vec<String>,
    /// Decompressed bytes read (all of them when `complete`).
    pub bytes: u64,
    /// Each member of the chain's size as stored in its container (zip:
    /// compressed size; tar: size), null when the container does not say
    /// before the data (a streamed zip entry with a data descriptor).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stored: Vec<Option<u64>>,
    /// Formats detected from the artifact down to this member, outermost
    /// first: `["zip", "gzip", "tar", "text"]`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub formats: Vec<&'static str>,
    /// Lines as `grep -c ''` counts them.
    pub lines: u64,
    /// A NUL in the first 8 KiB: scan and grep skip it unless `--binary`.
    pub binary: bool,
    /// False when an error stopped reading this member.
    pub complete: bool,
    /// What went wrong in this member.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<MemberError>,
    /// Why the member was not opened (a link, a special file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

impl MemberRecord {
    pub(crate) const KIND: &'static str = "member";
}

/// The record that ends `show --format jsonl`: what was printed and whether
/// it is all that was asked for.
#[derive(Debug, Serialize)]
pub(crate) struct ShowRecord {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// The member, `path!member!member` (no line).
    pub citation: String,
    pub path: String,
    pub members: Vec<String>,
    pub sha256: Option<String>,
    /// Lines asked for: first, and last (absent: to the end).
    pub first: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last: Option<u64>,
    /// Lines printed.
    pub lines: u64,
    /// Every line asked for was printed, whole.
    pub complete: bool,
    /// Why not complete (absent when complete).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl ShowRecord {
    pub(crate) const KIND: &'static str = "show";
}

/// What `cite --json` prints.
#[derive(Debug, Serialize)]
pub(crate) struct CiteRecord {
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub citation: String,
    pub sha256: Option<String>,
    pub location: Location,
    pub text: String,
    /// Context lines: `[line, text]`.
    pub before: Vec<(u64, String)>,
    pub after: Vec<(u64, String)>,
    /// Whether `--expect` text is on the cited line (absent without `--expect`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expect_ok: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256_ok: Option<bool>,
}

impl CiteRecord {
    pub(crate) const KIND: &'static str = "cite";
}

/// `audit report --format jsonl`, first line: the store and its totals.
/// Fields of the `audit_*` records are in name order (as the report has
/// always printed them).
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AuditSummaryRecord {
    /// Artifacts reported on (after `--since`/`--where`).
    pub artifacts: u64,
    /// The store, as given on the command line.
    pub db: String,
    /// Verdicts `fail`, `pass`, `unknown` over all checks and scopes
    /// (`not_applicable` is not counted).
    pub fail: u64,
    /// Artifacts with a coverage error.
    pub incomplete: u64,
    pub pass: u64,
    /// Run folders reported on.
    pub runs: u64,
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub unknown: u64,
}

impl AuditSummaryRecord {
    pub(crate) const KIND: &'static str = "audit_summary";
}

/// `audit report --format jsonl`: one per run folder, in run order.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AuditRunRecord {
    pub artifacts: u64,
    pub fail: u64,
    pub incomplete: u64,
    pub pass: u64,
    /// The run: its id, else its folder.
    pub run: String,
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub unknown: u64,
}

impl AuditRunRecord {
    pub(crate) const KIND: &'static str = "run";
}

/// `audit report --format jsonl`: one per check, with its verdict counts.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AuditCheckRecord {
    pub check: String,
    pub description: String,
    pub fail: u64,
    pub pass: u64,
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub unknown: u64,
}

impl AuditCheckRecord {
    pub(crate) const KIND: &'static str = "check";
}

/// `audit report --format jsonl`: one per failing verdict.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AuditFailRecord {
    /// The artifact file name, or the run folder for a run-scope check.
    pub artifact: String,
    pub check: String,
    /// The verdict's first evidence citation; `null` when it has none.
    pub citation: Option<String>,
    pub reason: String,
    pub run: String,
    /// `artifact` or `run`.
    pub scope: String,
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl AuditFailRecord {
    pub(crate) const KIND: &'static str = "fail";
}

/// `audit report --format jsonl`: one per artifact with coverage errors,
/// showing the first.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct AuditIncompleteRecord {
    pub artifact: String,
    /// Where the first error was noticed: `path!member!member`.
    pub citation: String,
    /// How many coverage errors the artifact has.
    pub errors: u64,
    /// The first error's kind ([`crate::source::ErrorKind`] name).
    #[serde(rename = "kind")]
    pub error_kind: String,
    pub message: String,
    pub run: String,
    /// Always [`Self::KIND`].
    #[serde(rename = "type")]
    pub kind: &'static str,
}

impl AuditIncompleteRecord {
    pub(crate) const KIND: &'static str = "incomplete";
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every kind this module writes, with its `$defs` entry in the schema.
    const KINDS: [&str; 16] = [
        EvidenceRecord::KIND,
        ContextRecord::KIND,
        AggregateRecord::KIND,
        CoverageRecord::KIND,
        SummaryRecord::KIND,
        CountRecord::KIND,
        VerdictRecord::KIND,
        CiteRecord::KIND,
        MemberRecord::KIND,
        ShowRecord::KIND,
        AuditSummaryRecord::KIND,
        AuditRunRecord::KIND,
        AuditCheckRecord::KIND,
        AuditFailRecord::KIND,
        AuditIncompleteRecord::KIND,
        DiffRecord::KIND,
    ];

    #[test]
    fn kinds_are_the_schemas_record_types() {
        let schema: Value =
            serde_json::from_str(include_str!("../../schema/output.schema.json")).unwrap();
        let mut in_schema: Vec<String> = schema["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| {
                let name = r["$ref"].as_str().unwrap().trim_start_matches("#/$defs/");
                let def = &schema["$defs"][name];
                def["properties"]["type"]["const"]
                    .as_str()
                    .unwrap_or_else(|| panic!("schema record {name} has no type const"))
                    .to_string()
            })
            .collect();
        in_schema.sort();
        let mut ours: Vec<String> = KINDS.iter().map(|k| k.to_string()).collect();
        ours.sort();
        assert_eq!(in_schema, ours);
    }

    #[test]
    fn constructors_write_their_kind() {
        let v = serde_json::to_value(SummaryRecord::new()).unwrap();
        assert_eq!(
            (v["type"].as_str(), v["schema_version"].as_str()),
            (Some("summary"), Some(SCHEMA_VERSION))
        );
        let v =
            serde_json::to_value(CoverageRecord::new("a.zip", None, &Coverage::default())).unwrap();
        assert_eq!(v["type"], "coverage");
        let v =
            serde_json::to_value(VerdictRecord::from(&Verdict::new("c", "d", "r", "s"))).unwrap();
        assert_eq!(v["type"], "verdict");
        let loc = Location::default();
        let c = ContextRecord::new(loc.clone(), Citation::from(&loc), "t".into(), false);
        assert_eq!(serde_json::to_value(c).unwrap()["type"], "context");
    }
}
