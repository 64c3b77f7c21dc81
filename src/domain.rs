//! What the layers produce, apart from how it is printed: evidence and
//! aggregates (`scan`), verdicts and their statuses (`check`), citations
//! and quoted text. `output` renders them (its `records` are serialize-only
//! views that add each record's `"type"` and the wire's field rules), and
//! nothing here knows a format. Small value types (statuses, stats, cited
//! lines, per-server ranks) derive their JSON form, which is also how the
//! audit store keeps them.

use crate::location::Location;
use serde::{Deserialize, Serialize};
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

    /// The cited line (read from the text for a citation read back whole).
    pub fn line_number(&self) -> Option<u64> {
        self.line
            .or_else(|| Location::parse(&self.member).map(|l| l.line))
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
            Some(line) => Location::write_citation(f, &self.member, line),
            None => f.write_str(&self.member),
        }
    }
}

/// Longest `text` of a rule's evidence record: longer lines are quoted by
/// an excerpt of this many bytes at most.
pub(crate) const EXCERPT_MAX: usize = 1024;

/// The text an evidence record quotes: its whole line, or an excerpt of a
/// long one. Either way it shares the line's allocation with every other
/// record of the line; only the quoted part is written out.
#[derive(Debug, Clone)]
pub struct Quote {
    line: Arc<str>,
    start: usize,
    end: usize,
}

impl Quote {
    /// The whole line.
    pub fn whole(line: Arc<str>) -> Quote {
        let end = line.len();
        Quote {
            line,
            start: 0,
            end,
        }
    }

    /// The line if it is at most [`EXCERPT_MAX`] bytes, else an excerpt of
    /// it for a match at byte `at`: from a quarter of the bound before it,
    /// never splitting a character.
    pub fn around(line: Arc<str>, at: usize) -> Quote {
        if line.len() <= EXCERPT_MAX {
            return Quote::whole(line);
        }
        let mut start = at.min(line.len()).saturating_sub(EXCERPT_MAX / 4);
        while !line.is_char_boundary(start) {
            start += 1;
        }
        let mut end = (start + EXCERPT_MAX).min(line.len());
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        Quote { line, start, end }
    }

    /// Bytes of the whole line (what the quote holds in memory).
    pub fn line_len(&self) -> usize {
        self.line.len()
    }

    /// Where the excerpt starts in the line; `None` for a whole line.
    pub fn excerpt_start(&self) -> Option<u64> {
        (self.start > 0 || self.end < self.line.len()).then_some(self.start as u64)
    }
}

impl std::ops::Deref for Quote {
    type Target = str;
    fn deref(&self) -> &str {
        &self.line[self.start..self.end]
    }
}

impl From<String> for Quote {
    fn from(s: String) -> Quote {
        Quote::whole(s.into())
    }
}

impl From<&str> for Quote {
    fn from(s: &str) -> Quote {
        Quote::whole(s.into())
    }
}

/// A line that matched: from `grep` (`rule` = "grep") or a pack rule.
/// The line text, path and member chain are shared (`Arc`) by all records
/// of a line or member, so that many matches on one long line, or under one
/// long member name, cost no copies. Printed as `output`'s `EvidenceRecord`.
#[derive(Debug, Clone)]
pub struct Evidence {
    /// Rule id, or "grep".
    pub rule: String,
    /// Pack the rule comes from (none for grep).
    pub pack: Option<String>,
    /// `path!member!member:line`, the same place as `location`.
    pub citation: Citation,
    pub location: Location,
    /// The cleaned line, or an excerpt of a long one ([`Quote`]).
    pub text: Quote,
    /// Where `text` starts in the line when it is an excerpt.
    pub text_start: Option<u64>,
    /// Invalid UTF-8 replaced by U+FFFD in `text`.
    pub lossy: bool,
    /// The line was longer than `--max-line`: only its start was searched.
    pub truncated: bool,
    /// Typed named captures of the rule (none for grep).
    pub captures: Option<Map<String, Value>>,
    /// Rank from the line prefix; none when unknown.
    pub rank: Option<BTreeMap<String, u32>>,
    /// Stable id (none for grep).
    pub id: Option<String>,
}

/// Many matches of one rule in one member and group, summarised. Printed
/// as `output`'s `AggregateRecord`. A folder of logs makes tens of
/// thousands (one per rule, member and rank), held until their artifact is
/// hashed: the path, members and citations are shared with the member's
/// other records, the group and stats are [`SmallMap`]s.
#[derive(Debug, Clone)]
pub struct Aggregate {
    pub rule: String,
    pub pack: String,
    pub path: Arc<str>,
    pub members: Arc<[String]>,
    /// The group key: rank fields and/or captures; `"overflow": true` for
    /// lines counted past the artifact's record cap.
    pub group: SmallMap<Value>,
    /// Matching lines in this member and group.
    pub count: u64,
    /// Per numeric capture: min, max, mean.
    pub stats: SmallMap<Stats>,
    /// Citation of the first and last matching line.
    pub first: Citation,
    pub last: Citation,
}

/// A map of a few string keys, kept as a vector sorted by key: a record's
/// two or three group fields or stats cost a tenth of a `BTreeMap`, whose
/// every node holds eleven slots. Iterates and serializes (as a JSON
/// object) in key order, as a `BTreeMap` does.
#[derive(Debug, Clone, PartialEq)]
pub struct SmallMap<V>(Vec<(String, V)>);

impl<V> Default for SmallMap<V> {
    fn default() -> Self {
        SmallMap(Vec::new())
    }
}

impl<V> SmallMap<V> {
    pub fn new() -> Self {
        SmallMap::default()
    }

    /// Sets `key` to `value`, replacing what it held.
    pub fn insert(&mut self, key: String, value: V) {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(&key)) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (key, value)),
        }
    }

    pub fn get(&self, key: &str) -> Option<&V> {
        self.0
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| &self.0[i].1)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut V> {
        self.0
            .binary_search_by(|(k, _)| k.as_str().cmp(key))
            .ok()
            .map(|i| &mut self.0[i].1)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Entries in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
}

impl<V> FromIterator<(String, V)> for SmallMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(iter: I) -> Self {
        let mut m = SmallMap::new();
        for (k, v) in iter {
            m.insert(k, v);
        }
        m
    }
}

impl<V> IntoIterator for SmallMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<V: Serialize> Serialize for SmallMap<V> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for SmallMap<V> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(BTreeMap::<String, V>::deserialize(d)?.into_iter().collect())
    }
}

#[derive(Debug, Clone, Copy, Serialize)]
pub struct Stats {
    pub min: f64,
    pub max: f64,
    pub mean: f64,
}

/// pass, fail, unknown or not_applicable.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    Pass,
    Fail,
    Unknown,
    /// The scope holds nothing the claim speaks about; does not change the exit code.
    NotApplicable,
}

impl Status {
    /// Every status, for readers that check stored names (the audit store).
    pub const ALL: [Status; 4] = [
        Status::Pass,
        Status::Fail,
        Status::Unknown,
        Status::NotApplicable,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Fail => "fail",
            Status::Unknown => "unknown",
            Status::NotApplicable => "not_applicable",
        }
    }
}

/// How many verdicts have each status: the one tally behind every count of
/// verdicts (check's totals and Markdown tables, audit's summary, runs
/// judged and report).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Tally {
    pub pass: u64,
    pub fail: u64,
    pub unknown: u64,
    pub not_applicable: u64,
}

impl Tally {
    pub(crate) fn add(&mut self, status: Status) {
        *match status {
            Status::Pass => &mut self.pass,
            Status::Fail => &mut self.fail,
            Status::Unknown => &mut self.unknown,
            Status::NotApplicable => &mut self.not_applicable,
        } += 1;
    }

    /// How many verdicts in all.
    pub(crate) fn total(&self) -> u64 {
        self.pass + self.fail + self.unknown + self.not_applicable
    }

    /// The tally of `statuses`.
    pub(crate) fn of(statuses: impl IntoIterator<Item = Status>) -> Tally {
        let mut t = Tally::default();
        for s in statuses {
            t.add(s);
        }
        t
    }
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Tally) {
        self.pass += other.pass;
        self.fail += other.fail;
        self.unknown += other.unknown;
        self.not_applicable += other.not_applicable;
    }
}

/// One citation behind a verdict, with the rank and server it came from.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Cited {
    /// `path!member:line`, as `artiscan cite` takes it.
    pub citation: String,
    /// The server (worker log) the line belongs to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
    /// Rank from the line prefix.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rank: Option<BTreeMap<String, u32>>,
}

/// Per-server outcome of an `every_rank` check.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ServerRanks {
    pub server: String,
    /// Expected ranks (absent when the rank count is unknown): a number, or
    /// `DP1 TP3` where the server runs replicas (DP, PP) that name them too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expected: Option<Vec<Value>>,
    pub seen: Vec<Value>,
    pub missing: Vec<Value>,
    pub status: Status,
    pub reason: String,
}

/// One check judged over one scope.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub check: String,
    /// The InferenceX verifier's check number (0-15, `Check N` of its
    /// prompt) that this check answers, from `checklist = N` in the check
    /// file; absent where it answers none.
    pub checklist: Option<u8>,
    pub description: String,
    pub rule: String,
    /// The artifact (zip, file, or extracted artifact folder) or, with
    /// `scope = "run"`, the run's folder.
    pub scope: String,
    pub status: Status,
    pub reason: String,
    /// The records behind the verdict (at most 20), with rank and server.
    pub evidence: Vec<Cited>,
    /// Observed capture values of the matching records: capture → distinct values (at most 20).
    pub observed: Map<String, Value>,
    /// What was expected: the conditions with `@param:` values resolved, the count bounds.
    pub expected: Map<String, Value>,
    /// Sources read for an absence: members holding `within` evidence.
    pub examined: Vec<String>,
    /// `every_rank`: one entry per server.
    pub servers: Vec<ServerRanks>,
    /// What is missing: `ranks` per server not seen, `members` not read completely.
    pub missing: BTreeMap<String, Value>,
}

impl Verdict {
    pub fn new(check: &str, description: &str, rule: &str, scope: &str) -> Verdict {
        Verdict {
            check: check.into(),
            checklist: None,
            description: description.into(),
            rule: rule.into(),
            scope: scope.into(),
            status: Status::Unknown,
            reason: String::new(),
            evidence: Vec::new(),
            observed: Map::new(),
            expected: Map::new(),
            examined: Vec::new(),
            servers: Vec::new(),
            missing: BTreeMap::new(),
        }
    }
}

/// Lossy UTF-8 text of a line and whether bytes were replaced.
pub(crate) fn line_text(bytes: &[u8]) -> (String, bool) {
    match std::str::from_utf8(bytes) {
        Ok(s) => (s.to_string(), false),
        Err(_) => (String::from_utf8_lossy(bytes).into_owned(), true),
    }
}

#[cfg(test)]
mod tests {
    use super::SmallMap;
    use std::collections::BTreeMap;

    /// A `SmallMap` reads, iterates and prints as the `BTreeMap` it
    /// replaced, given the same inserts in any order (a later insert of a
    /// key replaces its value).
    #[test]
    fn small_map_behaves_as_a_btreemap() {
        let keys = ["tp", "dp", "ep", "value", "", "a\u{e9}", "Z", "dp", "tp"];
        let mut seed = 7u64;
        for round in 0..200 {
            let (mut small, mut tree) = (SmallMap::new(), BTreeMap::new());
            for i in 0..(round % 12) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let k = keys[(seed >> 33) as usize % keys.len()].to_string();
                small.insert(k.clone(), i);
                tree.insert(k, i);
            }
            assert_eq!(
                serde_json::to_string(&small).unwrap(),
                serde_json::to_string(&tree).unwrap()
            );
            assert_eq!(small.len(), tree.len());
            assert!(small.iter().eq(tree.iter()));
            for k in keys {
                assert_eq!(small.get(k), tree.get(k));
            }
            let back: SmallMap<i32> =
                serde_json::from_str(&serde_json::to_string(&tree).unwrap()).unwrap();
            assert_eq!(back, small);
        }
    }
}
