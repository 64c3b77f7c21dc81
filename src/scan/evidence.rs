//! Pack rules over the lines of a member: evidence records with typed
//! captures and ranks, aggregates for high-frequency rules.

use super::aggregate::{Agg, Field, Groups};
use super::rank::RankKey;
use crate::domain::{Aggregate, Citation, Evidence, Quote, SmallMap};
use crate::lines::{Line, LineSink, clean};
use crate::location::Location;
use crate::pack::kind::{Out, State};
use crate::pack::{Hit, LiteralCursor, Literals, RuleSet};
use crate::source::{self, Coverage};
use regex::bytes::Captures;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

mod group;
mod then;

/// A scan output record, in the order it was found.
#[derive(Debug, Clone)]
/// Boxed: an artifact's records wait in one vector until it is hashed,
/// and a vector of the records themselves (about 300 bytes each) doubles
/// to twice what they need as it grows.
pub enum Record {
    Evidence(Box<Evidence>),
    Aggregate(Box<Aggregate>),
}

#[derive(Debug, Clone, Copy, Default)]
pub struct ScanOptions {
    /// One record per matching line even for rules that aggregate.
    pub every_match: bool,
    /// Run every rule on every line, without the literal prefilter (pack
    /// self-tests: the prefilter must never drop a line a rule matches).
    pub skip_prefilter: bool,
}

/// Evidence records one artifact keeps. Past this (or
/// [`MAX_RECORD_BYTES`]), further matching lines are counted in aggregate
/// records marked `"overflow": true`, and a `limit` error in coverage says
/// so (claims of absence, or about every line, are then not judged). Keeps
/// memory bounded on floods: 6 million Traceback lines in a 611 KB `.gz`.
pub(crate) const MAX_RECORDS: usize = 100_000;
/// Estimated bytes of the evidence records one artifact keeps (see
/// `record_cost`).
pub(crate) const MAX_RECORD_BYTES: usize = 64 << 20;

/// What the records kept so far cost: a prefix of the records in member
/// and line order, so the cut is the same on any number of threads.
#[derive(Debug, Default, Clone, Copy)]
pub struct RecordBudget {
    records: usize,
    bytes: usize,
    full: bool,
}

impl RecordBudget {
    /// Takes one more record of `cost`, unless the budget is spent.
    fn take(&mut self, cost: usize) -> bool {
        if self.full || self.records + 1 > MAX_RECORDS || self.bytes + cost > MAX_RECORD_BYTES {
            self.full = true;
            return false;
        }
        self.records += 1;
        self.bytes += cost;
        true
    }
}

/// Estimated heap bytes of an evidence record: the struct and its maps, the
/// capture strings, and the line text when it is the first record of its
/// line (the others share it).
fn record_cost(e: &Evidence, first_of_line: bool) -> usize {
    let caps: usize = e
        .captures
        .iter()
        .flatten()
        .map(|(k, v)| k.len() + 48 + v.as_str().map_or(0, str::len))
        .sum();
    let text = if first_of_line { e.text.line_len() } else { 0 };
    768 + e.rule.len() + caps + text
}

/// Everything one artifact yielded.
#[derive(Debug, Default)]
pub struct ArtifactScan {
    pub records: Vec<Record>,
    pub coverage: Coverage,
    pub sha256: Option<String>,
    /// Matching lines per rule (aggregated ones included).
    pub counts: BTreeMap<String, u64>,
}

/// Rough bytes of a record beside its own struct: strings, captures, its
/// share of a line.
const RECORD_HEAP: usize = 1024;

impl crate::drive::Held for ArtifactScan {
    fn held_bytes(&self) -> usize {
        use std::mem::size_of;
        let boxed = |r: &Record| match r {
            Record::Evidence(_) => size_of::<Evidence>(),
            Record::Aggregate(_) => size_of::<Aggregate>(),
        };
        self.records
            .iter()
            .map(|r| size_of::<Record>() + boxed(r) + RECORD_HEAP)
            .sum()
    }
}

impl ArtifactScan {
    pub fn evidence(&self) -> impl Iterator<Item = &Evidence> {
        self.records.iter().filter_map(|r| match r {
            Record::Evidence(e) => Some(&**e),
            Record::Aggregate(_) => None,
        })
    }
}

/// Stable id of an evidence record: artifact sha256 (or path for stdin),
/// members, line, rule and column.
pub(crate) fn evidence_id(artifact_key: &str, e: &Evidence) -> String {
    let mut h = Sha256::new();
    h.update(artifact_key.as_bytes());
    for m in e.location.members.iter() {
        h.update(b"\0");
        h.update(m.as_bytes());
    }
    h.update(
        format!(
            "\0{}\0{}\0{}",
            e.location.line,
            e.rule,
            e.location.column.unwrap_or(0)
        )
        .as_bytes(),
    );
    crate::hash::hex(&h.finalize()[..12])
}

/// Rule matching over one member's lines. The rule kinds' steps
/// (`pack::kind`) run through the dispatch `pack::kind::State` makes for
/// them; what they find goes to `out`, which implements their `Out`: the
/// record budget, emitting records, aggregation, `then` waits.
pub struct MemberScan<'a> {
    /// What each rule kind keeps per member.
    kinds: State,
    /// Which lines the rules run on: the literal prefilter.
    filter: Filter,
    /// What the rules found.
    out: Results<'a>,
    /// Matched out of order: stop once records cost more than this, to be
    /// matched again in order (`aborted`).
    pub(super) soft_limit: Option<usize>,
    pub(super) aborted: bool,
    /// Past the end of its part of a split member: only follows the open
    /// blocks, and stops when they close.
    pub(super) overrun: bool,
}

/// What a member's rules found, and what every kind shares to find it.
struct Results<'a> {
    set: &'a RuleSet,
    at: MemberAt,
    cache: LineCache,
    /// Which variants read this member.
    active: Vec<bool>,
    opts: ScanOptions,
    records: Vec<Record>,
    /// This scanner's own records (bounds memory before the artifact's
    /// budget is applied in order, in `finish_capped`).
    budget: RecordBudget,
    /// Lines past the budget, by rule and rank.
    overflow: HashMap<(usize, String), Agg, foldhash::fast::RandomState>,
    groups: Groups,
    /// Matching lines per rule index.
    counts: Vec<u64>,
    /// Records waiting for their rule's `then` line: (rule, index in
    /// `records`, lines left to look in). A rule's, not a kind's: a record
    /// of any kind waits (see `then.rs`).
    waits: Vec<(usize, usize, u32)>,
}

/// The member a scanner reads, shared by every record's location.
struct MemberAt {
    path: Arc<str>,
    members: Arc<[String]>,
    /// `path!member!member`, shared by every record's citation.
    cite: Arc<str>,
}

/// What the scanner remembers of the line it is on.
#[derive(Default)]
struct LineCache {
    /// The text of the last line that made a record, shared by its records.
    text: Option<(u64, Arc<str>, bool)>,
    /// The rank of the last line asked about: read once per line, not once
    /// per match (an `Env:` line of 60,000 variables makes 60,000 records,
    /// and reading a `\r`-glued prefix scans the whole line).
    rank: Option<(u64, RankKey)>,
    /// Reused buffer of the cleaned line.
    scratch: Vec<u8>,
}

/// Which variants run on which lines of the member.
struct Filter {
    literals: Arc<Literals>,
    cursor: LiteralCursor,
    /// Every line is a candidate (no prefilter, or a rule that needs them all).
    every_line: bool,
    /// Reused: the variants whose literals are on the line.
    hits: Vec<Hit>,
}

impl<'a> MemberScan<'a> {
    pub fn new(
        set: &'a RuleSet,
        path: &'a str,
        members: &[String],
        name: &str,
        opts: ScanOptions,
    ) -> Self {
        let active = set.active_for(name);
        let literals = set.literals_for(&active);
        let cite = Location::member_citation(path, members).into();
        let at = MemberAt {
            path: path.into(),
            members: members.into(),
            cite,
        };
        MemberScan::with(set, at, active, literals, opts)
    }

    fn with(
        set: &'a RuleSet,
        at: MemberAt,
        active: Vec<bool>,
        literals: Arc<Literals>,
        opts: ScanOptions,
    ) -> Self {
        let kinds = State::new(&set.variants, &active);
        MemberScan {
            filter: Filter {
                cursor: literals.cursor(),
                every_line: opts.skip_prefilter
                    || literals.needs_every_line()
                    || kinds.every_line(),
                literals,
                hits: Vec::new(),
            },
            kinds,
            out: Results {
                set,
                at,
                cache: LineCache::default(),
                active,
                opts,
                records: Vec::new(),
                budget: RecordBudget::default(),
                overflow: HashMap::default(),
                groups: Groups::new(set.rules.len()),
                counts: vec![0; set.rules.len()],
                waits: Vec::new(),
            },
            soft_limit: None,
            aborted: false,
            overrun: false,
        }
    }

    /// A fresh scanner for another part of the same member.
    pub(super) fn fork(&self) -> MemberScan<'a> {
        let at = MemberAt {
            path: self.out.at.path.clone(),
            members: self.out.at.members.clone(),
            cite: self.out.at.cite.clone(),
        };
        MemberScan::with(
            self.out.set,
            at,
            self.out.active.clone(),
            self.filter.literals.clone(),
            self.out.opts,
        )
    }

    /// Takes in what the scanner of the next part of the member found.
    pub(super) fn absorb(&mut self, mut later: MemberScan<'a>) {
        self.kinds.append(later.kinds, &mut later.out);
        let (out, later) = (&mut self.out, later.out);
        out.records.extend(later.records);
        for (key, b) in later.overflow {
            match out.overflow.get_mut(&key) {
                Some(a) => a.merge(b),
                None => {
                    out.overflow.insert(key, b);
                }
            }
        }
        for (c, n) in out.counts.iter_mut().zip(later.counts) {
            *c += n;
        }
        out.groups.merge(later.groups);
    }

    /// Records in line order (a block followed across a part's end adds
    /// records after those of the next part's first lines).
    pub(super) fn sort_by_line(&mut self) {
        self.out.sort_by_line();
    }

    /// Flushes aggregates and hands the member's records over (pack
    /// self-tests: one member, no artifact budget shared).
    pub fn finish(self, records: &mut Vec<Record>, counts: &mut BTreeMap<String, u64>) {
        self.finish_capped(
            records,
            counts,
            &mut RecordBudget::default(),
            &mut Coverage::default(),
        );
    }

    /// Hands the member's records over while the artifact's `budget` lasts;
    /// the rest become overflow aggregates, and a `limit` error in
    /// `coverage` names the member and the rules.
    pub fn finish_capped(
        mut self,
        records: &mut Vec<Record>,
        counts: &mut BTreeMap<String, u64>,
        budget: &mut RecordBudget,
        coverage: &mut Coverage,
    ) {
        // The kinds' business at the member's end (blocks cut, json
        // documents read).
        self.kinds.end(&mut self.out, coverage);
        let mut out = self.out;
        let mut last_line = None;
        let mut rule = 0;
        for r in std::mem::take(&mut out.records) {
            let Record::Evidence(e) = r else {
                records.push(r);
                continue;
            };
            let first = last_line != Some(e.location.line);
            last_line = Some(e.location.line);
            if budget.take(record_cost(&e, first)) {
                records.push(Record::Evidence(e));
                continue;
            }
            if out.set.rules.get(rule).is_none_or(|r| r.id != e.rule) {
                rule = out
                    .set
                    .rules
                    .iter()
                    .position(|r| r.id == e.rule)
                    .expect("rule of the set");
            }
            out.spill(rule, &e);
        }
        for (key, a) in std::mem::take(&mut out.groups.list) {
            let rule = &out.set.rules[key.0];
            records.push(Record::Aggregate(Box::new(a.record(
                rule,
                &out.at.path,
                &out.at.members,
                &out.at.cite,
            ))));
        }
        // In line order whatever order the parts of the member came in.
        let mut over: Vec<_> = std::mem::take(&mut out.overflow).into_iter().collect();
        over.sort_by(|a, b| (a.1.first, &a.0).cmp(&(b.1.first, &b.0)));
        if !over.is_empty() {
            let lines: u64 = over.iter().map(|(_, a)| a.count).sum();
            let mut rules: Vec<&str> = over
                .iter()
                .map(|((r, _), _)| out.set.rules[*r].id.as_str())
                .collect();
            rules.dedup();
            rules.sort_unstable();
            rules.dedup();
            coverage.error(
                &out.at.members,
                source::ErrorKind::Limit,
                format!(
                    "the artifact reached its cap of {MAX_RECORDS} evidence records ({} MiB): \
                     {lines} more matching line(s) of {} are counted in aggregate records \
                     (\"overflow\": true), not listed",
                    MAX_RECORD_BYTES >> 20,
                    rules.join(", ")
                ),
            );
        }
        for ((rule, _), a) in over {
            let rule = &out.set.rules[rule];
            records.push(Record::Aggregate(Box::new(a.record(
                rule,
                &out.at.path,
                &out.at.members,
                &out.at.cite,
            ))));
        }
        for (rule, n) in out.counts.into_iter().enumerate().filter(|(_, n)| *n > 0) {
            *counts.entry(out.set.rules[rule].id.clone()).or_default() += n;
        }
    }

    /// Whether the scanner still follows something past its part's end:
    /// an open block, or a record waiting for its `then` line.
    pub(super) fn following(&self) -> bool {
        self.kinds.following() || !self.out.waits.is_empty()
    }

    /// Whether to read on: not once the records cost more than the soft
    /// limit.
    #[inline]
    fn go_on(&mut self) -> bool {
        if self
            .soft_limit
            .is_some_and(|soft| self.out.budget.bytes > soft)
        {
            self.aborted = true;
        }
        !self.aborted
    }
    /// Runs the rules whose literal is on the line; the first matching
    /// variant of each rule wins.
    fn rules(&mut self, line: &Line<'_>, text: &[u8], raw: bool) {
        let mut hits = std::mem::take(&mut self.filter.hits);
        if self.out.opts.skip_prefilter {
            hits.clear();
            hits.extend(
                (0..self.out.set.variants.len())
                    .filter(|&v| self.out.active[v])
                    .map(|variant| Hit { variant, place: 0 }),
            );
        } else if raw && line.shared == 0 {
            self.filter.literals.hits_at(
                &mut self.filter.cursor,
                line.hay,
                line.raw.len(),
                line.offset,
                &mut hits,
            );
        } else if line.shared > 0 || line.raw.starts_with(crate::lines::JSON_FILE) {
            // A window of a long line: its place in the member is not
            // where the cursor's raw search looks.
            self.filter.literals.hits(text, &mut hits);
        } else {
            self.filter.literals.hits_cleaned(
                &mut self.filter.cursor,
                line.hay,
                line.raw.len(),
                line.offset,
                text,
                &mut hits,
            );
        }
        let set = self.out.set;
        let mut done_rule = usize::MAX;
        for &Hit { variant: vi, place } in &hits {
            let v = &set.variants[vi];
            if v.rule == done_rule || v.excluded(text) || self.kinds.took(v.rule) {
                continue;
            }
            if self
                .kinds
                .candidate(&v.kind, vi, place, line, text, &mut self.out)
            {
                done_rule = v.rule;
            }
        }
        self.filter.hits = hits;
    }
}

impl LineSink for MemberScan<'_> {
    fn candidate(&mut self, hay: &[u8], offset: u64) -> Option<usize> {
        if self.filter.every_line || self.following() {
            return Some(0);
        }
        self.filter
            .literals
            .candidate(&mut self.filter.cursor, hay, offset)
    }

    fn windows(&self) -> bool {
        true
    }

    fn line(&mut self, line: &Line<'_>) -> bool {
        let mut scratch = std::mem::take(&mut self.out.cache.scratch);
        let text = clean(line.raw, &mut scratch);
        if line.window > 0 {
            // A later window of a long line: the rules' matches in it. No
            // line starts here (blocks, waits and documents saw the first).
            self.out.cache.text = None;
            self.rules(line, text, false);
            self.out.cache.scratch = scratch;
            return self.go_on();
        }
        if !self.out.waits.is_empty() {
            self.out.follow(text);
        }
        if self.overrun {
            if !self.out.waits.is_empty() {
                self.out.end_waits_at_new_records(text);
            }
            self.kinds.overrun(line, text, &mut self.out);
            self.out.cache.scratch = scratch;
            self.go_on();
            return self.following();
        }
        self.kinds.each_line(line, text, &mut self.out);
        // The cursor knows where the literals are in raw lines only.
        let raw = std::ptr::eq(text.as_ptr(), line.raw.as_ptr());
        self.rules(line, text, raw);
        self.out.cache.scratch = scratch;
        self.go_on()
    }
}

impl Results<'_> {
    /// Counts a record past the budget in its rule's overflow aggregate
    /// (grouped by rank; numeric captures summarised).
    fn spill(&mut self, rule: usize, e: &Evidence) {
        let rank = e
            .rank
            .as_ref()
            .map(|r| serde_json::to_string(r).unwrap_or_default());
        let key = (rule, rank.unwrap_or_default());
        let at = (e.location.line, e.location.byte_offset);
        let agg = self.overflow.entry(key).or_insert_with(|| {
            let mut group = SmallMap::new();
            for (k, v) in e.rank.iter().flatten() {
                group.insert(k.clone(), Value::from(*v));
            }
            group.insert("overflow".into(), Value::Bool(true));
            Agg::new(group, at)
        });
        agg.count += 1;
        agg.first = agg.first.min(at);
        agg.last = agg.last.max(at);
        for (name, v) in e.captures.iter().flatten() {
            if let Some(x) = v.as_f64() {
                agg.add_stat(name, x);
            }
        }
    }

    /// The rank in `line`'s prefix (`text` is the line cleaned).
    fn rank_of(&mut self, line: &Line<'_>, text: &[u8]) -> RankKey {
        match self.cache.rank {
            Some((n, r)) if n == line.number => r,
            _ => {
                let r = RankKey::parse(text);
                self.cache.rank = Some((line.number, r));
                r
            }
        }
    }
}

impl<'a> Out<'a> for Results<'a> {
    fn set(&self) -> &'a RuleSet {
        self.set
    }

    #[inline]
    fn active(&self, vi: usize) -> bool {
        self.active[vi]
    }

    #[inline]
    fn aggregates(&self, variant: usize) -> bool {
        !self.opts.every_match
            && !self.set.rules[self.set.variants[variant].rule]
                .aggregate
                .is_empty()
    }

    fn emit(
        &mut self,
        variant: usize,
        line: &Line<'_>,
        text: &[u8],
        column: usize,
        captures: Map<String, Value>,
    ) {
        let rule_index = self.set.variants[variant].rule;
        let rule = &self.set.rules[rule_index];
        self.counts[rule_index] += 1;
        let rank = self.rank_of(line, text).to_map();
        let location = Location {
            path: self.at.path.clone(),
            members: self.at.members.clone(),
            line: line.number,
            byte_offset: line.offset,
            column: Some(line.window + column as u64 + 1),
        };
        // Every record of one line shares its text; a long line is quoted
        // by an excerpt around each match.
        let first = !matches!(&self.cache.text, Some((n, _, _)) if *n == line.number);
        if first {
            let (text, lossy) = crate::domain::line_text(text);
            self.cache.text = Some((line.number, text.into(), lossy));
        }
        let (_, shared, lossy) = self.cache.text.as_ref().expect("line text");
        let (text, lossy) = (Quote::around(shared.clone(), column), *lossy);
        let text_start = text.excerpt_start();
        let e = Evidence {
            rule: rule.id.clone(),
            pack: Some(rule.pack.clone()),
            citation: Citation::new(self.at.cite.clone(), line.number),
            location,
            text,
            text_start,
            lossy,
            truncated: line.truncated || line.window > 0,
            captures: Some(captures),
            rank,
            id: None,
        };
        if !self.budget.take(record_cost(&e, first)) {
            self.spill(rule_index, &e);
            return;
        }
        self.records.push(Record::Evidence(Box::new(e)));
        if rule.then.is_some() {
            // A new record of the rule (the next traceback) ends the wait
            // of the one before.
            self.waits.retain(|p| p.0 != rule_index);
            self.waits
                .push((rule_index, self.records.len() - 1, crate::pack::THEN_LINES));
        }
    }

    /// Fills `self.groups.fields` from regex captures (`caps` each with the offset
    /// in the line's text of what it ran on) and counts the line.
    fn aggregate_captures(
        &mut self,
        variant: usize,
        line: &Line<'_>,
        text: &[u8],
        caps: &[(&Captures<'_>, usize)],
    ) {
        let rule = &self.set.rules[self.set.variants[variant].rule];
        let mut fields = std::mem::take(&mut self.groups.fields);
        fields.clear();
        fields.extend(rule.aggregate.iter().chain(&rule.numeric).map(|name| {
            caps.iter()
                .find_map(|(c, off)| c.name(name).map(|m| (off + m.start(), off + m.end())))
        }));
        self.aggregate(variant, line, text, &fields);
        self.groups.fields = fields;
    }

    #[inline]
    fn aggregate_spans(
        &mut self,
        variant: usize,
        line: &Line<'_>,
        text: &[u8],
        spans: impl FnOnce(&mut Vec<Field>),
    ) {
        let mut fields = std::mem::take(&mut self.groups.fields);
        fields.clear();
        spans(&mut fields);
        self.aggregate(variant, line, text, &fields);
        self.groups.fields = fields;
    }

    fn drop_records(&mut self, claimed: impl Fn(usize, u64) -> bool) {
        let set = self.set;
        let counts = &mut self.counts;
        self.records.retain(|r| {
            let Record::Evidence(e) = r else { return true };
            let Some(ri) = set.rules.iter().position(|x| x.id == e.rule) else {
                return true;
            };
            let claimed = claimed(ri, e.location.line);
            if claimed {
                counts[ri] = counts[ri].saturating_sub(1);
            }
            !claimed
        });
    }

    fn sort_by_line(&mut self) {
        self.records.sort_by_key(|r| match r {
            Record::Evidence(e) => e.location.line,
            Record::Aggregate(_) => 0,
        });
    }

    fn members(&self) -> &[String] {
        &self.at.members
    }
}

#[cfg(test)]
mod tests {
    //! The rule state machine on small packs: which variant wins a line,
    //! blocks opening, recording and closing, json documents, and a member
    //! split across scanners giving what one scanner gives.
    use super::*;
    use crate::lines::{LineLimits, LineReader};
    use crate::pack::compile::Selection;

    fn set(rules: &str) -> RuleSet {
        let src = format!("name = \"t\"\nversion = \"1\"\n{rules}");
        let pack = crate::pack::parse_pack("t.toml", &src).expect("pack");
        RuleSet::compile(&[pack], &Selection::all()).expect("compile")
    }

    /// (rule, line, captures) of the records `text` yields as member `name`.
    fn run(set: &RuleSet, name: &str, text: &str) -> Vec<(String, u64, String)> {
        let members = vec![name.to_string()];
        let mut sink = MemberScan::new(set, "a.zip", &members, name, ScanOptions::default());
        let mut reader = LineReader::new(LineLimits::default());
        reader.scan(&mut text.as_bytes(), &mut sink).expect("scan");
        finished(sink)
    }

    /// (rule, line, captures) of a scanner's evidence records.
    fn finished(sink: MemberScan<'_>) -> Vec<(String, u64, String)> {
        let (mut records, mut counts) = (Vec::new(), BTreeMap::new());
        sink.finish(&mut records, &mut counts);
        records
            .into_iter()
            .filter_map(|r| match r {
                Record::Evidence(e) => Some((
                    e.rule.clone(),
                    e.location.line,
                    Value::Object(e.captures.unwrap_or_default()).to_string(),
                )),
                Record::Aggregate(_) => None,
            })
            .collect()
    }

    /// Aggregates of a rule grouped by rank and a capture, with 3, 8 and
    /// 20 ranks taking turns line by line (fewer and more than the recent
    /// groups looked at first): each group counts its own lines, first and
    /// last, and sums its values, as a tally line by line does.
    #[test]
    fn interleaved_groups_each_count_their_own_lines() {
        let s = set(r#"
[[rule]]
id = "acc"
aggregate = ["rank", "phase"]
captures = { value = "float" }
[[rule.variant]]
prefilter = ["accept len: "]
regex = '(?P<phase>prefill|decode) accept len: (?P<value>\d+)'
"#);
        for ranks in [3u64, 8, 20] {
            let mut text = String::new();
            let mut want: BTreeMap<(u64, &str), (u64, u64, u64, f64)> = BTreeMap::new();
            for n in 0..400u64 {
                let (tp, phase) = (
                    (n * 7) % ranks,
                    if n % 5 == 0 { "prefill" } else { "decode" },
                );
                text.push_str(&format!(
                    "[2026-10-29 04:48:14 TP{tp}] {phase} accept len: {}\n",
                    n % 9
                ));
                let line = n + 1;
                let g = want.entry((tp, phase)).or_insert((0, line, line, 0.0));
                g.0 += 1;
                g.2 = line;
                g.3 += (n % 9) as f64;
            }
            let members = vec!["a.log".to_string()];
            let mut sink = MemberScan::new(&s, "a.zip", &members, "a.log", ScanOptions::default());
            let mut reader = LineReader::new(LineLimits::default());
            reader.scan(&mut text.as_bytes(), &mut sink).expect("scan");
            let (mut records, mut counts) = (Vec::new(), BTreeMap::new());
            sink.finish(&mut records, &mut counts);
            let mut got: BTreeMap<(u64, String), (u64, u64, u64, f64)> = BTreeMap::new();
            for r in records {
                let Record::Aggregate(a) = r else { continue };
                let tp = a.group.get("tp").and_then(Value::as_u64).expect("tp");
                let phase = a.group.get("phase").and_then(Value::as_str).expect("phase");
                let mean = a.stats.get("value").expect("stats").mean;
                let sum = (mean * a.count as f64).round();
                let old = got.insert(
                    (tp, phase.to_string()),
                    (
                        a.count,
                        a.first.line_number().expect("first"),
                        a.last.line_number().expect("last"),
                        sum,
                    ),
                );
                assert!(old.is_none(), "one aggregate per group");
            }
            let want: BTreeMap<(u64, String), (u64, u64, u64, f64)> = want
                .into_iter()
                .map(|((tp, p), v)| ((tp, p.to_string()), v))
                .collect();
            assert_eq!(got, want, "{ranks} ranks");
        }
    }

    #[test]
    fn first_matching_variant_of_a_rule_wins_a_line() {
        let s = set(r#"
[[rule]]
id = "r"
[[rule.variant]]
regex = 'x=(?P<v>\d+)'
set = { form = "a" }
[[rule.variant]]
regex = 'x=(?P<v>\d+) y'
set = { form = "b" }
"#);
        let got = run(&s, "a.log", "x=1 y\nnothing\nx=2\n");
        assert_eq!(
            got,
            vec![
                ("r".into(), 1, r#"{"form":"a","v":"1"}"#.into()),
                ("r".into(), 3, r#"{"form":"a","v":"2"}"#.into()),
            ]
        );
    }

    #[test]
    fn blocks_open_record_carry_and_close() {
        let s = set(r#"
[[rule]]
id = "b"
kind = "block"
start = '^table (?P<t>\w+)$'
each = '^\| (?P<task>\w*) \| (?P<v>\d+) \|$'
end = '^end$'
carry = ["task"]
"#);
        let text = "| x | 0 |\ntable one\n| gsm8k | 1 |\n\n|  | 2 |\nend\n| y | 3 |\ntable two\n| a | 4 |\nother\n| b | 5 |\n";
        let got = run(&s, "a.log", text);
        assert_eq!(
            got,
            vec![
                (
                    "b".into(),
                    3,
                    r#"{"t":"one","task":"gsm8k","v":"1"}"#.into()
                ),
                // An empty task cell takes the row above's; a blank line
                // does not end the block.
                (
                    "b".into(),
                    5,
                    r#"{"t":"one","task":"gsm8k","v":"2"}"#.into()
                ),
                // After `end`, and after a line matching neither, rows are
                // outside any block.
                ("b".into(), 9, r#"{"t":"two","task":"a","v":"4"}"#.into()),
            ]
        );
    }

    #[test]
    fn a_block_record_wins_over_the_rules_line_variant() {
        let s = set(r#"
[[rule]]
id = "r"
[[rule.variant]]
kind = "block"
start = '^env:$'
each = '^  (?P<name>[A-Z]+)=(?P<value>\S*)$'
set = { style = "block" }
[[rule.variant]]
regex = '(?P<name>[A-Z]+)=(?P<value>\S*)'
set = { style = "line" }
"#);
        let got = run(&s, "a.log", "env:\n  A=1\nB=2\n");
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got[0].2.contains(r#""style":"block""#), "{got:?}");
        assert!(got[1].2.contains(r#""style":"line""#), "{got:?}");
    }

    #[test]
    fn json_rules_read_named_members_whole_or_by_line() {
        let s = set(r#"
[[rule]]
id = "j"
kind = "json"
members = ["*.json", "*.jsonl"]
json_lines = true
at = "/*"
cite = "v"
fields = { v = "/v" }
[rule.captures]
v = "int"
"#);
        let doc = "[\n  {\"v\": 1},\n  {\"w\": 2},\n  {\"v\": 3}\n]\n";
        assert_eq!(
            run(&s, "r.json", doc),
            vec![
                ("j".into(), 2, r#"{"v":1}"#.into()),
                ("j".into(), 4, r#"{"v":3}"#.into())
            ]
        );
        // Not a member it names: nothing, however JSON it looks.
        assert!(run(&s, "r.log", doc).is_empty());
        let lines = "[{\"v\": 5}]\n\n[{\"v\": 6}]\n";
        assert_eq!(
            run(&s, "r.jsonl", lines),
            vec![
                ("j".into(), 1, r#"{"v":5}"#.into()),
                ("j".into(), 3, r#"{"v":6}"#.into())
            ]
        );
    }

    #[test]
    fn a_json_member_that_does_not_parse_is_a_coverage_error() {
        let s = set(r#"
[[rule]]
id = "j"
kind = "json"
members = ["*.json"]
fields = { v = "/v" }
"#);
        let members = vec!["r.json".to_string()];
        let mut sink = MemberScan::new(&s, "a", &members, "r.json", ScanOptions::default());
        let mut reader = LineReader::new(LineLimits::default());
        reader
            .scan(&mut &b"{\"v\": 1,\n"[..], &mut sink)
            .expect("scan");
        let (mut records, mut counts, mut cov) = (Vec::new(), BTreeMap::new(), Coverage::default());
        sink.finish_capped(
            &mut records,
            &mut counts,
            &mut RecordBudget::default(),
            &mut cov,
        );
        assert!(records.is_empty());
        assert_eq!(cov.errors.len(), 1, "{cov:?}");
        assert_eq!(cov.errors[0].kind, source::ErrorKind::Corrupt);
        assert!(
            cov.errors[0].message.contains("by j"),
            "{:?}",
            cov.errors[0]
        );
    }

    /// A member that must be one document and is empty or JSON Lines is a
    /// named coverage error, not a member read completely with no record
    /// (a 0-byte `agg_eval_all.json`, rows written one a line).
    #[test]
    fn an_empty_or_json_lines_member_where_one_document_belongs_is_a_coverage_error() {
        let s = set(r#"
[[rule]]
id = "result.eval"
kind = "json"
members = ["agg_eval_*.json"]
at = "/*"
fields = { score = "/score" }
"#);
        let members = vec!["agg_eval_all.json".to_string()];
        for (text, why) in [
            (&b""[..], "empty: no JSON document"),
            (
                &b"{\"task\": \"gsm8k\", \"score\": 0.12}\n{\"task\": \"gsm8k\", \"score\": 0.95}\n"[..],
                "JSON Lines (2 documents), not one JSON document",
            ),
        ] {
            let mut sink =
                MemberScan::new(&s, "a", &members, "agg_eval_all.json", ScanOptions::default());
            let mut reader = LineReader::new(LineLimits::default());
            reader.scan(&mut &text[..], &mut sink).expect("scan");
            let (mut records, mut counts, mut cov) =
                (Vec::new(), BTreeMap::new(), Coverage::default());
            sink.finish_capped(
                &mut records,
                &mut counts,
                &mut RecordBudget::default(),
                &mut cov,
            );
            assert!(records.is_empty(), "{records:?}");
            assert_eq!(cov.errors.len(), 1, "{cov:?}");
            assert_eq!(
                cov.errors[0].message,
                format!("{why}, so not read by result.eval")
            );
        }
    }

    /// A member cut into parts (as threads scan a big one) and absorbed in
    /// order yields what one scanner yields, json documents included.
    #[test]
    fn split_parts_absorbed_equal_one_scan() {
        let s = set(r#"
[[rule]]
id = "j"
kind = "json"
members = ["*.json"]
at = "/*"
cite = "v"
fields = { v = "/v" }
[[rule]]
id = "l"
regex = '"v": (?P<n>\d+)'
"#);
        let doc: String = std::iter::once("[\n".to_string())
            .chain((0..50).map(|i| format!("  {{\"v\": {i}}}{}\n", if i < 49 { "," } else { "" })))
            .chain(std::iter::once("]\n".to_string()))
            .collect();
        let whole = run(&s, "r.json", &doc);
        assert_eq!(whole.len(), 100);
        let members = vec!["r.json".to_string()];
        let cut = doc.match_indices('\n').nth(20).unwrap().0 + 1;
        let reader = LineReader::new(LineLimits::default());
        let mut first = MemberScan::new(&s, "a.zip", &members, "r.json", ScanOptions::default());
        reader.scan_slice(&doc.as_bytes()[..cut], 0, 1, &mut first);
        let mut second = first.fork();
        reader.scan_slice(&doc.as_bytes()[cut..], cut as u64, 22, &mut second);
        first.absorb(second);
        assert_eq!(finished(first), whole);
    }
}
