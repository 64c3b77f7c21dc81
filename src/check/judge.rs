//! Judging one check over one scope: applicability, the sources an absence
//! needs, then one function per expectation kind.

use super::scope::{Scope, server_of};
use super::{Check, Cited, Expect, Status, Verdict, cond};
use crate::domain::Evidence;
use crate::location::Location;
use crate::scan::Record;
use cond::Params;
use serde_json::{Map, Value};
use std::collections::BTreeSet;
use std::sync::Arc;

pub(super) const MAX_CITES: usize = 20;
/// Citations of set-aside records named in a reason.
const MAX_ASIDE_CITES: usize = 3;
const MAX_VALUES: usize = 20;

pub(super) struct Ctx<'s, 'a> {
    pub(in crate::check) scope: &'s Scope<'a>,
    pub(in crate::check) params: Params,
    incomplete: Vec<String>,
}

impl Ctx<'_, '_> {
    pub(super) fn complete(&self) -> bool {
        self.incomplete.is_empty()
    }

    /// Marks the verdict unknown for lack of complete reading.
    pub(super) fn unread(&self, v: &mut Verdict, what: String) {
        v.status = Status::Unknown;
        v.missing
            .insert("members".into(), Value::from(self.incomplete.clone()));
        v.reason = format!(
            "{what}, and {} part(s) could not be read completely: {}",
            self.incomplete.len(),
            self.incomplete.join(", ")
        );
    }
}

/// What the claim speaks about is not here: not_applicable, or unknown
/// where the claim has `undecidable` and the scope holds what it needs
/// (`undecidable_when`: a server log whose launch left no setup output).
fn not_applicable(v: &mut Verdict, cx: &Ctx, a: &super::Applies, what: String) {
    let when = a.undecidable_when.is_empty()
        || cx
            .scope
            .records()
            .any(|r| a.undecidable_when.iter().any(|e| e.matches(r, &cx.params)));
    match &a.undecidable {
        Some(why) if when => {
            v.status = Status::Unknown;
            v.reason = format!("{why}: {what}");
        }
        _ => {
            v.status = Status::NotApplicable;
            v.reason = what;
        }
    }
}

/// Names the records set aside by when they were printed.
fn note_benign(v: &mut Verdict, benign: &[(&Evidence, super::crash::Benign)]) {
    use super::crash::Benign;
    for why in Benign::NOTED {
        let these: Vec<String> = benign
            .iter()
            .filter(|(_, b)| *b == why)
            .map(|(r, _)| r.citation.to_string())
            .collect();
        if these.is_empty() {
            continue;
        }
        let more = these.len().saturating_sub(MAX_ASIDE_CITES);
        v.reason.push_str(&format!(
            "; not counted: {} record(s) {}: {}{}",
            these.len(),
            why.what(),
            these[..these.len().min(MAX_ASIDE_CITES)].join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
}

pub(super) fn cited(r: &Evidence) -> Cited {
    Cited {
        citation: r.citation.to_string(),
        server: Some(server_of(r).1),
        rank: r.rank.clone(),
    }
}

fn show(v: &Option<Value>) -> String {
    v.as_ref().map_or("(none)".into(), Value::to_string)
}

impl Check {
    pub fn judge(&self, scope: &Scope<'_>, params: &Params) -> Verdict {
        let mut params = params.with_defaults(&self.defaults);
        // validate_scores.py reads the prefix from meta_env.json only.
        let prefixes: Vec<String> = scope
            .records_of("result.eval_meta")
            .filter_map(|r| {
                r.captures
                    .as_ref()?
                    .get("prefix")?
                    .as_str()
                    .map(String::from)
            })
            .collect();
        let bar_notes = params.with_thresholds(&prefixes);
        let cx = Ctx {
            scope,
            params,
            incomplete: scope.incomplete_for(self.reads.get().unwrap_or(&Default::default())),
        };
        let mut v = Verdict::new(&self.id, &self.description, &self.rule, &scope.name);
        v.checklist = self.checklist;
        let mut matching = Vec::new();
        for r in scope.records_of(&self.rule) {
            match cond::all_hold(&self.filter, r, &cx.params) {
                Ok(true) => matching.push(r),
                Ok(false) => {}
                Err(missing) => {
                    v.reason = format!("parameter {missing} not given (--param {missing}=...)");
                    return v;
                }
            }
        }
        let elsewhere = self.keep_applying_artifacts(&cx, &mut matching);
        if !self.applies_here(&mut v, &cx, &matching) || !self.sources(&mut v, &cx) {
            return v;
        }
        if let Some(r) = elsewhere
            && matching.is_empty()
            && self.expect == Expect::Present
        {
            // Found only where the claim does not speak: the artifacts it
            // speaks about may have kept theirs elsewhere (a job log).
            v.status = Status::Unknown;
            v.evidence = vec![cited(r)];
            v.reason = format!(
                "no {} record in the artifacts holding {} ({} is in an artifact without it, which says nothing of them)",
                self.rule,
                self.applies
                    .as_ref()
                    .map(|a| a.what.as_str())
                    .unwrap_or_default(),
                r.citation
            );
            return v;
        }
        let benign = self.set_aside_by_timing(&cx, &mut matching);
        v.evidence = matching.iter().take(MAX_CITES).map(|r| cited(r)).collect();
        v.observed = self.observed(&matching);
        v.expected = self.expected(&cx.params, &matching);
        match &self.expect {
            Expect::Present => self.judge_present(&mut v, &cx, &matching),
            Expect::Absent => self.judge_absent(&mut v, &cx, &matching),
            Expect::Count { min, max } => self.judge_count(&mut v, &cx, &matching, *min, *max),
            Expect::Consistent(cap) => self.judge_consistent(&mut v, &cx, &matching, cap),
            Expect::EveryRank => self.judge_every_rank(&mut v, &cx, &matching),
            Expect::Pareto(p) => self.judge_pareto(&mut v, &cx, &matching, p),
            Expect::Same(s) => self.judge_same(&mut v, &cx, s),
            Expect::Agree(a) => self.judge_agree(&mut v, &cx, a),
            Expect::Logged(l) => super::crash_points::judge_logged(&mut v, &cx, &matching, l),
            Expect::ChatServed => super::access::judge_chat_served(
                &mut v,
                &cx,
                &self.rule,
                &matching,
                self.applies.as_ref(),
            ),
        }
        // Claims about every record, rank, server or an upper bound: a part
        // not read could break them.
        let universal = !self.all.is_empty()
            || matches!(
                self.expect,
                Expect::Consistent(_)
                    | Expect::EveryRank
                    | Expect::Count { max: Some(_), .. }
                    | Expect::Pareto(_)
                    | Expect::Same(_)
                    | Expect::Agree(_)
                    | Expect::ChatServed
            );
        if v.status == Status::Pass && universal && !cx.complete() {
            let what = format!("{} on every record read", v.reason);
            cx.unread(&mut v, what);
        }
        // A bar that was not given is not a bar: what passed only because a
        // condition was left out is unknown.
        let unbarred: Vec<String> = cond::skipped_params(&self.all, &cx.params, &matching)
            .into_iter()
            .chain(cond::skipped_params(&self.any, &cx.params, &matching))
            .collect();
        if v.status == Status::Pass && !unbarred.is_empty() {
            v.status = Status::Unknown;
            let flags: Vec<String> = unbarred.iter().map(|p| format!("--param {p}")).collect();
            // Eval bars live in InferenceX's thresholds file, per model.
            let hint = if unbarred.iter().any(|p| p.ends_with("_min")) {
                " (not verifiable: give --thresholds PATH, InferenceX's utils/evals/thresholds.yaml)"
            } else {
                ""
            };
            v.reason = format!("no bar given: {}{hint}; {}", flags.join(", "), v.reason);
        }
        // Which bar judged, and where it came from.
        let used: Vec<String> = cond::param_keys(&self.all, &matching)
            .into_iter()
            .chain(cond::param_keys(&self.any, &matching))
            .filter_map(|k| bar_notes.get(&k).map(|n| format!("bar {k}: {n}")))
            .collect();
        if !used.is_empty() && v.status != Status::NotApplicable {
            v.reason = format!("{}; {}", v.reason, used.join("; "));
        }
        self.note_aside(&mut v, &cx);
        if self.crash_timing && v.status == Status::Fail {
            // Which point the crash spoiled, and when.
            let first = super::window::classify(scope, &matching[..matching.len().min(1)]);
            if let Some(c) = first.first() {
                v.reason.push_str(&format!("; {}", c.describe()));
            }
        }
        note_benign(&mut v, &benign);
        if v.status == Status::Pass
            && let Some(note) = &self.pass_note
        {
            v.reason = format!("{}; {note}", v.reason);
        }
        v
    }

    /// A run's answer to a claim that only its evidence makes apply
    /// (`evidence_only`) comes from the artifacts holding that evidence: a
    /// non-speculative sibling's client says nothing of the speculative
    /// points (Check 9 passed on it).
    /// Returns a record left out, if any.
    fn keep_applying_artifacts<'a>(
        &self,
        cx: &Ctx<'_, 'a>,
        matching: &mut Vec<&'a Evidence>,
    ) -> Option<&'a Evidence> {
        let a = self.applies.as_ref()?;
        if self.scope != super::CheckScope::Run || !a.evidence_only || matching.is_empty() {
            return None;
        }
        let applying: std::collections::HashSet<&str> = cx
            .scope
            .records()
            .filter(|r| a.evidence.iter().any(|e| e.matches(r, &cx.params)))
            .map(|r| cx.scope.artifact_of(&r.location.path))
            .collect();
        let first = matching[0];
        matching.retain(|r| applying.contains(cx.scope.artifact_of(&r.location.path)));
        (matching.is_empty()).then_some(first)
    }

    /// With `crash_timing`, takes out of `matching` the records printed
    /// where the server measured nothing; returns them with why.
    fn set_aside_by_timing<'a>(
        &self,
        cx: &Ctx<'_, 'a>,
        matching: &mut Vec<&'a Evidence>,
    ) -> Vec<(&'a Evidence, super::crash::Benign)> {
        if !self.crash_timing {
            return Vec::new();
        }
        let when = super::crash::classify(cx.scope, matching);
        let mut benign = Vec::new();
        let mut kept = Vec::new();
        for (r, w) in matching.iter().zip(when) {
            match w {
                Some(b) => benign.push((*r, b)),
                None => kept.push(*r),
            }
        }
        *matching = kept;
        benign
    }

    /// Names the records the claim leaves out (`aside`), so that a reader
    /// sees them apart from what was judged.
    fn note_aside(&self, v: &mut Verdict, cx: &Ctx) {
        let Some((filter, what)) = &self.aside else {
            return;
        };
        let set: Vec<&Evidence> = cx
            .scope
            .records_of(&self.rule)
            .filter(|r| cond::all_hold(filter, r, &cx.params) == Ok(true))
            .collect();
        if set.is_empty() {
            return;
        }
        let cites: Vec<String> = set
            .iter()
            .take(MAX_ASIDE_CITES)
            .map(|r| r.citation.to_string())
            .collect();
        let more = set.len().saturating_sub(MAX_ASIDE_CITES);
        v.reason.push_str(&format!(
            "; not counted: {} {} record(s) {what}: {}{}",
            set.len(),
            self.rule,
            cites.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }

    /// False (with the verdict filled in) when the scope holds nothing the
    /// claim speaks about: `not_applicable`, or `unknown` when part of the
    /// scope could not be read (the evidence may be there).
    fn applies_here(&self, v: &mut Verdict, cx: &Ctx, matching: &[&Evidence]) -> bool {
        let Some(a) = &self.applies else { return true };
        // Aggregated lines (the audit keeps high-frequency rules summarised)
        // count for evidence without a filter.
        let aggregated = cx
            .scope
            .scans
            .iter()
            .flat_map(|(_, s)| &s.records)
            .any(|r| {
                matches!(r, Record::Aggregate(g)
                if a.evidence.iter().any(|e| e.filter.is_empty() && e.rule == g.rule))
            });
        if (!matching.is_empty() && !a.evidence_only)
            || aggregated
            || cx
                .scope
                .records()
                .any(|r| a.evidence.iter().any(|e| e.matches(r, &cx.params)))
        {
            return self.also_applies(v, cx, a);
        }
        if let Some(g) = &a.expected_globs {
            let base = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
            if cx.scope.artifacts.iter().any(|n| g.is_match(base(n))) {
                return self.also_applies(v, cx, a);
            }
        }
        let looked: Vec<String> = a.evidence.iter().map(|e| e.to_string()).collect();
        let what = format!(
            "nothing this claim speaks about: no {} here (no {} evidence, no matching {} record)",
            a.what,
            looked.join(" or "),
            self.rule
        );
        if cx.complete() {
            not_applicable(v, cx, a, what);
        } else {
            cx.unread(v, what);
        }
        false
    }

    /// The scope holds what the claim speaks about; false (verdict filled
    /// in) where `unless` excludes it or a `requires` is missing.
    fn also_applies(&self, v: &mut Verdict, cx: &Ctx, a: &super::Applies) -> bool {
        if let Some(g) = &a.unless_globs {
            let base = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
            if let Some(n) = cx.scope.artifacts.iter().find(|n| g.is_match(base(n))) {
                v.status = Status::NotApplicable;
                v.reason = format!(
                    "not judged: {} (the artifact {} is named like {})",
                    a.unless_what,
                    base(n),
                    a.unless_in.join(" or ")
                );
                return false;
            }
        }
        if let Some((r, e)) = cx.scope.records().find_map(|r| {
            a.unless
                .iter()
                .find(|e| e.matches(r, &cx.params))
                .map(|e| (r, e))
        }) {
            v.status = Status::NotApplicable;
            v.reason = format!("not judged: {} ({e} at {})", a.unless_what, r.citation);
            v.evidence = vec![cited(r)];
            return false;
        }
        for e in &a.requires {
            if cx.scope.records().any(|r| e.matches(r, &cx.params)) {
                continue;
            }
            let what = format!(
                "the claim is about {} only, and this scope holds no {e} evidence of it",
                a.requires_what
            );
            if cx.complete() {
                not_applicable(v, cx, a, what);
            } else {
                cx.unread(v, what);
            }
            return false;
        }
        true
    }

    /// False (verdict unknown) when a `within` source is missing; records
    /// the members examined.
    fn sources(&self, v: &mut Verdict, cx: &Ctx) -> bool {
        let mut examined = BTreeSet::new();
        for w in &self.within {
            let mut found = false;
            // A member's records share its path and members: its citation
            // is made once per run of them, not per record (an env dump's
            // thousands of `env.var` records).
            let mut last: Option<&Location> = None;
            for r in cx.scope.records_of(w).filter(|r| self.covered_by(r)) {
                found = true;
                let l = &r.location;
                if last.is_some_and(|p| {
                    Arc::ptr_eq(&p.path, &l.path) && Arc::ptr_eq(&p.members, &l.members)
                }) {
                    continue;
                }
                last = Some(l);
                examined.insert(Location::member_citation(&l.path, &l.members));
            }
            if !found {
                let what = format!(
                    "no {w} evidence in this scope: the source this claim needs was not found"
                );
                let base = |n: &str| n.rsplit('/').next().unwrap_or(n).to_string();
                let voteless = self.applies.as_ref().and_then(|a| {
                    let g = a.voteless_globs.as_ref()?;
                    cx.scope.artifacts.iter().find(|n| g.is_match(base(n)))
                });
                if let (Some(n), true) = (voteless, cx.complete()) {
                    // A server-log twin holds no client: it does not vote,
                    // a run-scope check asks for the client in the run.
                    v.status = Status::NotApplicable;
                    v.reason = format!(
                        "does not vote: {} holds no {w} record (a server-log twin); the run's \
                         artifact that holds the client answers",
                        base(n)
                    );
                    return false;
                }
                if cx.complete() {
                    v.reason = what;
                } else {
                    cx.unread(v, what);
                }
                return false;
            }
        }
        v.examined = examined.into_iter().collect();
        true
    }

    /// Whether a source record can speak about the variable the check pins
    /// (`where = { name = "X" }`). A dump that says which names it holds
    /// (`covers`: the prefix InferenceX's `env | grep -E '^SGLANG_SIMULATE_ACC_'`
    /// kept) is no source for other names: its silence on them proves nothing.
    fn covered_by(&self, r: &Evidence) -> bool {
        let Some(prefix) = r
            .captures
            .as_ref()
            .and_then(|c| c.get("covers"))
            .and_then(Value::as_str)
        else {
            return true;
        };
        self.filter
            .iter()
            .find(|(k, _)| k == "name")
            .and_then(|(_, c)| c.literal_text())
            .is_none_or(|name| name.starts_with(prefix))
    }

    /// Distinct values of the captures the check speaks about.
    fn observed(&self, matching: &[&Evidence]) -> Map<String, Value> {
        let mut caps: Vec<&str> = Vec::new();
        for (c, _) in self.all.iter().chain(&self.any) {
            caps.push(c);
        }
        if let Expect::Consistent(c) = &self.expect {
            caps.push(c);
        }
        if caps.is_empty() {
            caps.push("value");
        }
        let mut out = Map::new();
        for cap in caps {
            if out.contains_key(cap) {
                continue;
            }
            let mut vals: Vec<Value> = Vec::new();
            for r in matching {
                let Some(x) = r.captures.as_ref().and_then(|c| c.get(cap)) else {
                    continue;
                };
                if !vals.iter().any(|y| y == x) {
                    vals.push(x.clone());
                    if vals.len() == MAX_VALUES {
                        break;
                    }
                }
            }
            if !vals.is_empty() {
                out.insert(cap.to_string(), Value::Array(vals));
            }
        }
        out
    }

    fn expected(&self, p: &Params, records: &[&Evidence]) -> Map<String, Value> {
        let mut out = Map::new();
        for (cap, c) in &self.all {
            out.insert(cap.clone(), c.describe(p, records));
        }
        if !self.any.is_empty() {
            let any: Map<String, Value> = self
                .any
                .iter()
                .map(|(cap, c)| (cap.clone(), c.describe(p, records)))
                .collect();
            out.insert("any".into(), Value::Object(any));
        }
        match &self.expect {
            Expect::Count { min, max } => {
                out.insert("count".into(), serde_json::json!({"min": min, "max": max}));
            }
            Expect::EveryRank => {
                out.insert("ranks".into(), Value::String(self.ranks_text()));
            }
            Expect::Absent => {
                out.insert("count".into(), serde_json::json!({"max": 0}));
            }
            Expect::Pareto(p) => {
                out.insert("frontier_points".into(), serde_json::json!({"min": p.min}));
            }
            Expect::Same(s) => {
                out.insert(
                    "same".into(),
                    serde_json::json!({"capture": s.capture, "as": s.right, "by": s.by}),
                );
            }
            _ => {}
        }
        out
    }

    /// The observed values in words: ` (value = 0.9773; expected ge 0.5)`.
    fn values_text(&self, v: &Verdict) -> String {
        let mut parts = Vec::new();
        for (k, vals) in &v.observed {
            let vals: Vec<String> = vals
                .as_array()
                .into_iter()
                .flatten()
                .map(|x| x.to_string())
                .collect();
            let mut s = format!("{k} = {}", vals.join(", "));
            if let Some(e) = v.expected.get(k) {
                s.push_str(&format!(" (expected {e})"));
            }
            parts.push(s);
        }
        if parts.is_empty() {
            String::new()
        } else {
            format!("; {}", parts.join("; "))
        }
    }

    /// A failing `all` or `any` condition: the verdict fails, citing the record.
    pub(super) fn conditions_fail(
        &self,
        v: &mut Verdict,
        cx: &Ctx,
        matching: &[&Evidence],
    ) -> bool {
        for r in matching {
            if cond::all_hold(&self.all, r, &cx.params) != Ok(false) {
                continue;
            }
            let why: Vec<String> = self
                .all
                .iter()
                .filter(|(cap, c)| {
                    cond::all_hold(&[(cap.clone(), c.clone())], r, &cx.params) == Ok(false)
                })
                .map(|(cap, c)| {
                    let got = r.captures.as_ref().and_then(|m| m.get(cap)).cloned();
                    format!(
                        "{cap} = {} (expected {})",
                        show(&got),
                        c.describe(&cx.params, &[r])
                    )
                })
                .collect();
            v.status = Status::Fail;
            v.reason = format!(
                "{} does not satisfy the condition: {}",
                r.citation,
                why.join(", ")
            );
            v.evidence = vec![cited(r)];
            return true;
        }
        let any_ok = self.any.is_empty()
            || matching
                .iter()
                .any(|r| cond::all_hold(&self.any, r, &cx.params) == Ok(true));
        if !any_ok {
            v.status = Status::Fail;
            v.reason = format!(
                "none of {} record(s) satisfies the `any` condition {}",
                matching.len(),
                self.any_text
            );
            return true;
        }
        false
    }

    /// ` (no --param k: value not compared)` for each condition left out.
    pub(super) fn skipped_note(&self, cx: &Ctx, m: &[&Evidence]) -> String {
        cond::skipped_params(&self.all, &cx.params, m)
            .into_iter()
            .chain(cond::skipped_params(&self.any, &cx.params, m))
            .map(|p| format!(" (no --param {p}: value not compared)"))
            .collect()
    }

    fn what(&self) -> String {
        if self.filter_text.is_empty() {
            self.rule.clone()
        } else {
            format!("{} {}", self.rule, self.filter_text)
        }
    }

    /// Nothing matched where something must: fail on complete reading.
    pub(super) fn nothing_found(&self, v: &mut Verdict, cx: &Ctx) {
        let what = format!("no matching {} record", self.what());
        if let Some(why) = &self.missing_unknown {
            v.status = Status::Unknown;
            v.reason = format!("{what}: {why}");
            return;
        }
        if cx.complete() {
            v.status = Status::Fail;
            v.reason = format!("{what}; every member was read completely");
        } else {
            cx.unread(v, what);
        }
    }

    fn judge_present(&self, v: &mut Verdict, cx: &Ctx, m: &[&Evidence]) {
        if m.is_empty() {
            self.nothing_found(v, cx);
        } else if !self.conditions_fail(v, cx, m) {
            v.status = Status::Pass;
            v.reason = format!(
                "{} matching record(s){}{}",
                m.len(),
                self.values_text(v),
                self.skipped_note(cx, m)
            );
        }
    }

    fn judge_absent(&self, v: &mut Verdict, cx: &Ctx, m: &[&Evidence]) {
        if !m.is_empty() {
            // The citations are in `evidence`; the reason says what was
            // found, quoting the first record's values of the filter.
            v.status = Status::Fail;
            let mut quoted: Vec<String> = self
                .filter
                .iter()
                .filter_map(|(cap, _)| {
                    let got = m[0].captures.as_ref().and_then(|c| c.get(cap))?;
                    Some(format!("{cap} = {got}"))
                })
                .collect();
            // What the reviewer must judge is quoted whole.
            if self.found_unknown.is_some()
                && let Some(c) = &m[0].captures
            {
                quoted = c.iter().map(|(k, x)| format!("{k} = {x}")).collect();
            }
            // Where no observed value says what was found, the first
            // record's filtered values do.
            let values = self.values_text(v);
            let first = if quoted.is_empty() || !values.is_empty() {
                String::new()
            } else {
                format!("; first at {}: {}", m[0].citation, quoted.join(", "))
            };
            v.reason = format!("{} matching record(s){values}{first}", m.len());
            if let Some(why) = &self.found_unknown {
                v.status = Status::Unknown;
                v.reason = format!("{}; {why}", v.reason);
            }
            return;
        }
        let what = format!("no matching {} record", self.what());
        if !cx.complete() {
            cx.unread(v, what);
            return;
        }
        v.status = Status::Pass;
        v.reason = if v.examined.is_empty() {
            format!("{what}; every member was read completely")
        } else {
            format!(
                "{what}; every member was read completely, {} source(s) examined: {}",
                v.examined.len(),
                v.examined.join(", ")
            )
        };
    }

    fn judge_count(
        &self,
        v: &mut Verdict,
        cx: &Ctx,
        m: &[&Evidence],
        min: Option<u64>,
        max: Option<u64>,
    ) {
        let n = m.len() as u64;
        if max.is_some_and(|x| n > x) {
            v.status = Status::Fail;
            v.reason = format!("{n} matching record(s), more than {}", max.unwrap_or(0));
        } else if min.is_some_and(|x| n < x) {
            let what = format!("{n} matching record(s), fewer than {}", min.unwrap_or(0));
            if cx.complete() {
                v.status = Status::Fail;
                v.reason = what;
            } else {
                cx.unread(v, what);
            }
        } else if !self.conditions_fail(v, cx, m) {
            v.status = Status::Pass;
            v.reason = format!(
                "{n} matching record(s){}{}",
                self.values_text(v),
                self.skipped_note(cx, m)
            );
        }
    }

    fn judge_consistent(&self, v: &mut Verdict, cx: &Ctx, m: &[&Evidence], cap: &str) {
        let Some(first) = m.first() else {
            return self.nothing_found(v, cx);
        };
        let value = |r: &Evidence| r.captures.as_ref().and_then(|c| c.get(cap)).cloned();
        let v0 = value(first);
        if let Some(other) = m
            .iter()
            .find(|r| !cond::json_eq(value(r).as_ref(), v0.as_ref()))
        {
            v.status = Status::Fail;
            v.reason = format!(
                "{cap} differs: {} at {}, {} at {}",
                show(&v0),
                first.citation,
                show(&value(other)),
                other.citation
            );
            v.evidence = vec![cited(first), cited(other)];
        } else if !self.conditions_fail(v, cx, m) {
            v.status = Status::Pass;
            v.reason = format!(
                "{cap} = {} in all {} record(s){}{}",
                show(&v0),
                m.len(),
                self.values_text(v)
                    .split("; ")
                    .filter(|s| !s.is_empty() && !s.starts_with(&format!("{cap} = ")))
                    .map(|s| format!("; {s}"))
                    .collect::<String>(),
                self.skipped_note(cx, m)
            );
            if let Some(e) = v.expected.get(cap) {
                v.reason.push_str(&format!(" (expected {e})"));
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::parse_checks;
    use super::*;
    use crate::scan::{ArtifactScan, Record};
    use crate::source::{Coverage, ErrorKind, NoteKind};

    pub(in crate::check) fn rec(
        member: &str,
        line: u64,
        rule: &str,
        caps: Value,
        tp: Option<u32>,
    ) -> Evidence {
        let location = Location {
            path: "a.zip".into(),
            members: vec![member.into()].into(),
            line,
            byte_offset: 0,
            column: None,
        };
        Evidence {
            rule: rule.into(),
            pack: None,
            citation: location.to_string().into(),
            location,
            text: String::new().into(),
            text_start: None,
            lossy: false,
            truncated: false,
            captures: caps.as_object().cloned(),
            rank: tp.map(|t| [("tp".to_string(), t)].into_iter().collect()),
            id: None,
        }
    }

    pub(in crate::check) fn scan(records: Vec<Evidence>) -> ArtifactScan {
        ArtifactScan {
            records: records
                .into_iter()
                .map(|e| Record::Evidence(Box::new(e)))
                .collect(),
            coverage: Coverage::default(),
            sha256: None,
            counts: Default::default(),
        }
    }

    fn judge1(src: &str, s: &ArtifactScan, params: &[&str]) -> Verdict {
        let checks = parse_checks("t.toml", src).unwrap();
        let scope = Scope::new("a.zip".into(), vec!["a.zip".into()], vec![("a.zip", s)]);
        let p = Params::parse(&params.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        checks[0].judge(&scope, &p)
    }

    fn score(v: f64) -> Evidence {
        rec(
            "results.json",
            3,
            "eval.score",
            serde_json::json!({"task": "gsm8k", "value": v}),
            None,
        )
    }

    const PRESENT: &str = r#"
[params]
min = 0.5
[[check]]
id = "score"
rule = "eval.score"
where = { task = "gsm8k" }
expect = "present"
all = { value = { ge = "@param:min" } }
applies = { what = "eval results", evidence = ["eval.score"], expected_in = ["eval_*"] }
"#;

    #[test]
    fn present_reports_the_value_and_the_bound() {
        let v = judge1(PRESENT, &scan(vec![score(0.9773)]), &[]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert_eq!(v.observed["value"], serde_json::json!([0.9773]));
        assert_eq!(v.expected["value"], serde_json::json!({"ge": 0.5}));
        assert!(v.reason.contains("value = 0.9773"), "{}", v.reason);
        let v = judge1(PRESENT, &scan(vec![score(0.4)]), &[]);
        assert_eq!(v.status, Status::Fail);
        assert!(
            v.reason.contains("value = 0.4 (expected {\"ge\":0.5})"),
            "{}",
            v.reason
        );
        let v = judge1(PRESENT, &scan(vec![score(0.9)]), &["min=0.95"]);
        assert_eq!(v.status, Status::Fail);
    }

    #[test]
    fn not_applicable_without_the_evidence_and_unknown_on_partial_reading() {
        let other = rec("server.log", 1, "error.oom", Value::Null, None);
        let v = judge1(PRESENT, &scan(vec![other.clone()]), &[]);
        assert_eq!(v.status, Status::NotApplicable, "{}", v.reason);
        assert!(v.reason.contains("eval results"));
        let mut s = scan(vec![other]);
        s.coverage
            .error(&["x.log".into()], ErrorKind::Truncated, "cut");
        let v = judge1(PRESENT, &s, &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        assert!(v.reason.contains("a.zip!x.log"), "{}", v.reason);
    }

    #[test]
    fn aggregated_lines_make_a_check_apply() {
        let src = r#"
[[check]]
id = "sim"
rule = "env.var"
expect = "absent"
applies = { what = "speculative decoding", evidence = ["spec.accept_len"] }
"#;
        assert_eq!(
            judge1(src, &scan(vec![]), &[]).status,
            Status::NotApplicable
        );
        let mut s = scan(vec![]);
        let cite: std::sync::Arc<str> = "a.zip!server.log".into();
        s.records
            .push(Record::Aggregate(Box::new(crate::domain::Aggregate {
                rule: "spec.accept_len".into(),
                pack: "common".into(),
                path: "a.zip".into(),
                members: vec!["server.log".to_string()].into(),
                group: Default::default(),
                count: 3,
                stats: Default::default(),
                first: crate::domain::Citation::new(cite.clone(), 1),
                last: crate::domain::Citation::new(cite, 3),
            })));
        assert_eq!(judge1(src, &s, &[]).status, Status::Pass);
    }

    /// The verifier's Check 11 shape: a speculative server judged only
    /// beside an agentic client, never where an eval-only marker shows.
    const AGENTIC: &str = r#"
[[check]]
id = "sim"
checklist = 11
rule = "env.var"
where = { name = "TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS" }
expect = "present"
all = { value = { add = 1, within = ["@param:al", 0.005] } }
applies = { what = "spec decode", evidence = ["spec.accept_len"], requires = [{ rule = "bench.client", where = { workload = "agentic" } }], requires_what = "agentic benchmarks", unless = [{ rule = "env.var", where = { name = "EVAL_ONLY" } }], unless_in = ["eval_server_logs_*"], unless_what = "an eval-only server" }
"#;

    fn var(name: &str, value: &str) -> Evidence {
        rec(
            "env.log",
            2,
            "env.var",
            serde_json::json!({"name": name, "value": value}),
            None,
        )
    }

    #[test]
    fn requires_unless_and_add() {
        let spec = rec(
            "server.log",
            1,
            "spec.accept_len",
            serde_json::json!({"value": 2.1}),
            None,
        );
        let agentic = rec(
            "cmd.txt",
            1,
            "bench.client",
            serde_json::json!({"workload": "agentic"}),
            None,
        );
        let fixed = rec(
            "cmd.txt",
            1,
            "bench.client",
            serde_json::json!({"workload": "fixed"}),
            None,
        );
        let trt = |v: &str| var("TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS", v);
        // TRT-LLM's 2.5 is AL 3.5: pass for golden 3.5, fail for 3.39.
        let s = scan(vec![spec.clone(), agentic.clone(), trt("2.5")]);
        let v = judge1(AGENTIC, &s, &["al=3.5"]);
        assert_eq!(
            (v.status, v.checklist),
            (Status::Pass, Some(11)),
            "{}",
            v.reason
        );
        let v = judge1(AGENTIC, &s, &["al=3.39"]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(v.reason.contains("\"add\":1.0"), "{}", v.reason);
        // A bar not given: unknown, never pass.
        assert_eq!(judge1(AGENTIC, &s, &[]).status, Status::Unknown);
        // Not a number: holds nothing.
        let s = scan(vec![spec.clone(), agentic.clone(), trt("$AL")]);
        assert_eq!(judge1(AGENTIC, &s, &["al=3.5"]).status, Status::Fail);
        // No agentic client: not applicable; unread: unknown.
        let s = scan(vec![spec.clone(), fixed, trt("2.5")]);
        let v = judge1(AGENTIC, &s, &["al=3.5"]);
        assert_eq!(v.status, Status::NotApplicable, "{}", v.reason);
        assert!(v.reason.contains("agentic benchmarks"), "{}", v.reason);
        let mut s = scan(vec![spec.clone(), trt("2.5")]);
        s.coverage
            .error(&["x.log".into()], ErrorKind::Truncated, "cut");
        assert_eq!(judge1(AGENTIC, &s, &["al=3.5"]).status, Status::Unknown);
        // An eval-only marker: not judged, cited.
        let s = scan(vec![spec, agentic, var("EVAL_ONLY", "true")]);
        let v = judge1(AGENTIC, &s, &["al=3.5"]);
        assert_eq!(v.status, Status::NotApplicable, "{}", v.reason);
        assert!(
            v.reason.contains("eval-only") && v.evidence.len() == 1,
            "{}",
            v.reason
        );
        // requires without words is refused.
        let bad = AGENTIC.replace("requires_what = \"agentic benchmarks\", ", "");
        assert!(parse_checks("t.toml", &bad).is_err());
        let bad = AGENTIC.replace("checklist = 11", "checklist = 16");
        assert!(parse_checks("t.toml", &bad).is_err());
    }

    #[test]
    fn found_unknown_quotes_what_a_tool_cannot_judge() {
        let src = r#"
[[check]]
id = "override"
rule = "env.var"
where = { name = "OVR" }
expect = "absent"
found_unknown = "the reviewer must judge it"
"#;
        let v = judge1(src, &scan(vec![var("OVR", "{x: 1}")]), &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        assert!(
            v.reason.contains("{x: 1}") && v.reason.contains("reviewer"),
            "{}",
            v.reason
        );
        assert_eq!(
            judge1(src, &scan(vec![var("B", "1")]), &[]).status,
            Status::Pass
        );
    }

    const ABSENT: &str = r#"
[[check]]
id = "unset"
rule = "env.var"
where = { name = "BAD" }
expect = "absent"
within = "env.var"
"#;

    fn env(member: &str, name: &str) -> Evidence {
        rec(
            member,
            1,
            "env.var",
            serde_json::json!({"name": name, "value": "1"}),
            None,
        )
    }

    #[test]
    fn absent_names_the_sources_and_needs_complete_reading() {
        let v = judge1(
            ABSENT,
            &scan(vec![env("a.yaml", "OK"), env("b.log", "OK")]),
            &[],
        );
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert_eq!(v.examined, vec!["a.zip!a.yaml", "a.zip!b.log"]);
        let v = judge1(ABSENT, &scan(vec![env("a.yaml", "BAD")]), &[]);
        assert_eq!(v.status, Status::Fail);
        assert_eq!(v.observed["value"], serde_json::json!(["1"]));
        let v = judge1(ABSENT, &scan(vec![]), &[]);
        assert_eq!(v.status, Status::Unknown, "no source: never pass");
        let mut s = scan(vec![env("a.yaml", "OK")]);
        s.coverage
            .note(&["big.log".into()], NoteKind::LongLine, "line 7 cut");
        let v = judge1(ABSENT, &s, &[]);
        assert_eq!(v.status, Status::Unknown);
        assert!(
            v.reason.contains("a.zip!big.log (line 7 cut)"),
            "{}",
            v.reason
        );
    }

    #[test]
    fn count_bounds() {
        let src = r#"
[[check]]
id = "n"
rule = "eval.score"
expect = { count = { min = 2, max = 3 } }
"#;
        assert_eq!(
            judge1(src, &scan(vec![score(1.0)]), &[]).status,
            Status::Fail
        );
        let two = scan(vec![score(1.0), score(0.5)]);
        let v = judge1(src, &two, &[]);
        assert_eq!(v.status, Status::Pass);
        assert_eq!(v.expected["count"], serde_json::json!({"min": 2, "max": 3}));
        let four = scan((0..4).map(|_| score(1.0)).collect());
        assert_eq!(judge1(src, &four, &[]).status, Status::Fail);
    }

    #[test]
    fn consistent_values() {
        let src = r#"
[[check]]
id = "c"
rule = "eval.score"
expect = { consistent = "value" }
all = { value = { within = ["@param:al", 0.005] } }
"#;
        let same = scan(vec![score(3.77), score(3.77)]);
        let v = judge1(src, &same, &["al=3.77"]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert!(v.reason.contains("value = 3.77 in all 2"), "{}", v.reason);
        assert_eq!(judge1(src, &same, &["al=3.5"]).status, Status::Fail);
        // Consistent, but the bar was not given: no bar, no pass.
        let v = judge1(src, &same, &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        assert!(
            v.reason.starts_with("no bar given: --param al;"),
            "{}",
            v.reason
        );
        // A disagreement fails without any bar.
        let diff = scan(vec![score(3.77), score(3.39)]);
        let v = judge1(src, &diff, &[]);
        assert_eq!(v.status, Status::Fail);
        assert_eq!(v.evidence.len(), 2);
    }

    const EVERY: &str = r#"
[[check]]
id = "r"
rule = "route"
expect = "every_rank"
ranks = { rule = "args", capture = "tp_size" }
"#;

    fn route(member: &str, tp: u32) -> Evidence {
        rec(
            member,
            10 + tp as u64,
            "route",
            serde_json::json!({}),
            Some(tp),
        )
    }

    fn args(member: &str, tp: u64) -> Evidence {
        rec(member, 1, "args", serde_json::json!({"tp_size": tp}), None)
    }

    #[test]
    fn every_rank_per_server() {
        // Prefill TP0-TP3 must not stand in for decode's missing TP2.
        let mut recs = vec![args("n2_prefill_w0.out", 4), args("n1_decode_w0.out", 8)];
        recs.extend((0..4).map(|t| route("n2_prefill_w0.out", t)));
        recs.extend(
            (0..8)
                .filter(|t| *t != 2)
                .map(|t| route("n1_decode_w0.out", t)),
        );
        let v = judge1(EVERY, &scan(recs.clone()), &[]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(
            v.reason
                .contains("decode_w0: TP0-TP1, TP3-TP7 logged it; TP2 never"),
            "{}",
            v.reason
        );
        assert_eq!(v.missing["ranks"], serde_json::json!({"decode_w0": [2]}));
        assert_eq!(v.servers.len(), 2);
        let ev = &v.evidence[0];
        assert_eq!(ev.server.as_deref(), Some("prefill_w0"));
        // The same worker's ranks in a second node's file count for it.
        recs.push(route("n3_decode_w0.out", 2));
        let v = judge1(EVERY, &scan(recs.clone()), &[]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert!(v.reason.contains("decode_w0: every rank (TP0-TP7)"));
        // A server without a rank count is unknown, never passed over.
        recs.push(route("n9_decode_w1.out", 0));
        let v = judge1(EVERY, &scan(recs), &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        assert!(v.reason.contains("decode_w1: rank count unknown"));
    }

    #[test]
    fn every_rank_and_upper_bounds_need_complete_reading() {
        let mut recs = vec![args("n1_decode_w0.out", 2)];
        recs.extend((0..2).map(|t| route("n1_decode_w0.out", t)));
        let mut s = scan(recs);
        assert_eq!(judge1(EVERY, &s, &[]).status, Status::Pass);
        // An unread member may be a server that misses ranks.
        s.coverage
            .note(&["core".into()], NoteKind::Binary, "binary member");
        let v = judge1(EVERY, &s, &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        assert!(
            v.reason.contains("a.zip!core (binary member)"),
            "{}",
            v.reason
        );
        let most = EVERY.replace(
            "expect = \"every_rank\"",
            "expect = { count = { max = 5 } }",
        );
        assert_eq!(judge1(&most, &s, &[]).status, Status::Unknown);
    }

    #[test]
    fn every_rank_fixed_count_from_a_parameter() {
        let src = EVERY.replace(
            "ranks = { rule = \"args\", capture = \"tp_size\" }",
            "ranks = \"@param:tp\"",
        );
        let s = scan((0..4).map(|t| route("server.log", t)).collect());
        assert_eq!(judge1(&src, &s, &["tp=4"]).status, Status::Pass);
        let v = judge1(&src, &s, &["tp=8"]);
        assert_eq!(v.status, Status::Fail);
        assert_eq!(
            v.missing["ranks"],
            serde_json::json!({"server": [4, 5, 6, 7]})
        );
        assert_eq!(judge1(&src, &s, &[]).status, Status::Unknown);
    }

    #[test]
    fn within_takes_a_string_or_a_list_and_artifacts_globs_are_refused() {
        assert!(parse_checks("t", ABSENT).is_ok());
        let list = ABSENT.replace("within = \"env.var\"", "within = [\"env.var\"]");
        assert!(parse_checks("t", &list).is_ok());
        let old = ABSENT.replace("within = \"env.var\"", "artifacts = [\"*server_logs*\"]");
        let e = parse_checks("t", &old).unwrap_err().to_string();
        assert!(e.contains("applies"), "{e}");
        let no_ranks = EVERY.replace("ranks = { rule = \"args\", capture = \"tp_size\" }", "");
        assert!(parse_checks("t", &no_ranks).is_err());
    }

    fn tagged(member: &str, line: u64, rule: &str, caps: Value, tags: &[(&str, u32)]) -> Evidence {
        let mut r = rec(member, line, rule, caps, None);
        r.rank = Some(tags.iter().map(|(k, n)| (k.to_string(), *n)).collect());
        r
    }

    /// SGLang dp_size=2 (no DP attention): DP1 TP0-TP3 are ranks of their
    /// own, not covered by DP0's.
    #[test]
    fn every_rank_fixed_count_is_per_replica_where_the_launch_line_says() {
        // ranks = @param:tp is TP ranks per replica: a DP1 that never logs
        // fails where server_args gives dp_size = 2 without DP attention.
        let src = EVERY.replace(
            "ranks = { rule = \"args\", capture = \"tp_size\" }",
            "ranks = \"@param:tp\"",
        );
        let argv = |dp: u32, attn: bool| {
            rec(
                "server.log",
                1,
                "sglang.server_args",
                serde_json::json!({"tp_size": 4, "dp_size": dp, "enable_dp_attention": attn}),
                None,
            )
        };
        let dp0 = (0..4).map(|t| {
            tagged(
                "server.log",
                10 + t as u64,
                "route",
                serde_json::json!({}),
                &[("dp", 0), ("tp", t)],
            )
        });
        let mut recs = vec![argv(2, false)];
        recs.extend(dp0.clone());
        let v = judge1(&src, &scan(recs), &["tp=4"]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(
            v.reason.contains("DP1 TP0-TP3 never logged"),
            "{}",
            v.reason
        );
        // DP attention: one TP group, DP0 covers it.
        let mut recs = vec![argv(2, true)];
        recs.extend((0..4).map(|t| {
            tagged(
                "server.log",
                10 + t as u64,
                "route",
                serde_json::json!({}),
                &[("dp", t / 2), ("tp", t)],
            )
        }));
        assert_eq!(judge1(&src, &scan(recs), &["tp=4"]).status, Status::Pass);
        // No launch line: TP ranks only, as before.
        let v = judge1(&src, &scan(dp0.collect()), &["tp=4"]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
    }

    #[test]
    fn every_rank_keys_replicas_by_dp_and_pp() {
        let argv = |dp: u32, pp: u32, attn: bool| {
            rec(
                "server.log",
                1,
                "args",
                serde_json::json!({"tp_size": 4, "dp_size": dp, "pp_size": pp, "enable_dp_attention": attn}),
                None,
            )
        };
        let dp0: Vec<Evidence> = (0..4)
            .map(|t| {
                tagged(
                    "server.log",
                    10 + t as u64,
                    "route",
                    serde_json::json!({}),
                    &[("dp", 0), ("tp", t)],
                )
            })
            .collect();
        let mut recs = vec![argv(2, 1, false)];
        recs.extend(dp0.clone());
        let v = judge1(EVERY, &scan(recs.clone()), &[]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(
            v.reason
                .contains("server: DP0 TP0-TP3 logged it; DP1 TP0-TP3 never logged"),
            "{}",
            v.reason
        );
        assert_eq!(
            v.missing["ranks"],
            serde_json::json!({"server": ["DP1 TP0", "DP1 TP1", "DP1 TP2", "DP1 TP3"]})
        );
        recs.extend((0..4).map(|t| {
            tagged(
                "server.log",
                20 + t as u64,
                "route",
                serde_json::json!({}),
                &[("dp", 1), ("tp", t)],
            )
        }));
        let v = judge1(EVERY, &scan(recs), &[]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert!(
            v.reason.contains("every rank (DP0 TP0-TP3, DP1 TP0-TP3)"),
            "{}",
            v.reason
        );
        // DP attention: DP ranks are attention groups of one TP group.
        let mut recs = vec![argv(2, 1, true)];
        recs.extend((0..4).map(|t| {
            tagged(
                "server.log",
                10 + t as u64,
                "route",
                serde_json::json!({}),
                &[("dp", t / 2), ("tp", t)],
            )
        }));
        let v = judge1(EVERY, &scan(recs), &[]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert!(v.reason.contains("every rank (TP0-TP3)"), "{}", v.reason);
        // dp_size without enable_dp_attention: unknown, never pass.
        let mut bare = argv(2, 1, false);
        bare.captures
            .as_mut()
            .unwrap()
            .remove("enable_dp_attention");
        let mut recs = vec![bare];
        recs.extend(dp0.clone());
        let v = judge1(EVERY, &scan(recs), &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        // pp_size=2: PP1 is its own stage.
        let mut recs = vec![argv(1, 2, false)];
        recs.extend((0..4).map(|t| {
            tagged(
                "server.log",
                10 + t as u64,
                "route",
                serde_json::json!({}),
                &[("pp", 0), ("tp", t)],
            )
        }));
        let v = judge1(EVERY, &scan(recs), &[]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(
            v.reason.contains("PP1 TP0-TP3 never logged"),
            "{}",
            v.reason
        );
        // Ranks from the ranks that logged a rule: DP1's TP ranks loaded
        // weights, so each must log.
        let seen = r#"
[[check]]
id = "d"
rule = "route"
expect = "every_rank"
ranks_from = "load"
"#;
        let mut recs: Vec<Evidence> = (0..2)
            .flat_map(|d| {
                (0..2).map(move |t| {
                    tagged(
                        "server.log",
                        5,
                        "load",
                        serde_json::json!({}),
                        &[("dp", d), ("tp", t)],
                    )
                })
            })
            .collect();
        recs.extend(dp0[..2].iter().cloned());
        let v = judge1(seen, &scan(recs), &[]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(
            v.reason.contains(
                "DP1 TP0-TP1 never logged a matching route line (expected DP0 TP0-TP1, DP1 TP0-TP1)"
            ),
            "{}",
            v.reason
        );
    }

    /// A relaunch in the same log: the first launch's ranks do not cover
    /// the last one's.
    #[test]
    fn every_rank_judges_the_last_launch() {
        let src = EVERY.replace("\"args\"", "\"sglang.server_args\"");
        let launch = |line: u64| {
            rec(
                "server.log",
                line,
                "sglang.server_args",
                serde_json::json!({"tp_size": 2}),
                None,
            )
        };
        let at =
            |line: u64, t: u32| rec("server.log", line, "route", serde_json::json!({}), Some(t));
        let recs = vec![launch(1), at(2, 0), at(3, 1), launch(100), at(101, 0)];
        let v = judge1(&src, &scan(recs), &[]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(v.reason.contains("TP1 never logged"), "{}", v.reason);
        assert!(
            v.reason
                .contains("an earlier launch was ignored, only lines from 100 on"),
            "{}",
            v.reason
        );
        let recs = vec![launch(1), at(2, 0), launch(100), at(101, 0), at(102, 1)];
        let v = judge1(&src, &scan(recs), &[]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert!(
            v.reason.contains("earlier launch was ignored"),
            "{}",
            v.reason
        );
        // A two-node server's merged log: one line per node is one launch.
        let node = |line: u64, n: u64| {
            rec(
                "server.log",
                line,
                "sglang.server_args",
                serde_json::json!({"tp_size": 2, "node_rank": n}),
                None,
            )
        };
        let recs = vec![node(1, 0), at(2, 0), node(3, 1), at(4, 1)];
        let v = judge1(&src, &scan(recs), &[]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert!(!v.reason.contains("launch"), "{}", v.reason);
        // Node 0 again: a relaunch.
        let recs = vec![
            node(1, 0),
            node(2, 1),
            at(3, 0),
            at(4, 1),
            node(9, 0),
            node(10, 1),
            at(11, 0),
        ];
        let v = judge1(&src, &scan(recs), &[]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(v.reason.contains("holds 2 launches"), "{}", v.reason);
    }

    const SAME: &str = r#"
[[check]]
id = "same-image"
rule = "result.eval"
expect = { same = { capture = "image", left = ["result.eval", "result.eval_meta"], right = ["result.point"], by = ["hw", "framework"], absent = ["unknown"], left_what = "the eval", right_what = "the benchmark points" } }
applies = { what = "evals", evidence = ["result.eval", "result.eval_meta"] }
"#;

    fn img(member: &str, rule: &str, caps: Value) -> Evidence {
        rec(member, 1, rule, caps, None)
    }

    #[test]
    fn same_compares_per_configuration() {
        let point = |hw: &str, image: &str| {
            img(
                &format!("{hw}_{image}.json"),
                "result.point",
                serde_json::json!({"hw": hw, "framework": "sglang", "image": image}),
            )
        };
        let eval = |hw: &str, image: Option<&str>| {
            let mut c = serde_json::json!({"hw": hw, "framework": "SGLang"});
            if let Some(i) = image {
                c["image"] = Value::from(i);
            }
            img("agg_eval_all.json", "result.eval", c)
        };
        // Each eval against its own hw's points, hw and framework ignoring case.
        let s = scan(vec![
            point("mi355x", "a"),
            point("b200", "b"),
            eval("MI355X", Some("a")),
            eval("b200", Some("b")),
        ]);
        let v = judge1(SAME, &s, &[]);
        assert_eq!(v.status, Status::Pass, "{}", v.reason);
        assert_eq!(v.observed["image"], serde_json::json!(["a", "b"]));
        // Another image fails, quoting and citing both.
        let s = scan(vec![point("mi355x", "a"), eval("mi355x", Some("z"))]);
        let v = judge1(SAME, &s, &[]);
        assert_eq!(v.status, Status::Fail, "{}", v.reason);
        assert!(
            v.reason.contains("\"z\"") && v.reason.contains("\"a\""),
            "{}",
            v.reason
        );
        assert_eq!(v.evidence.len(), 2);
        // Several benchmark images of one configuration: cannot be told.
        let s = scan(vec![
            point("mi355x", "a"),
            point("mi355x", "b"),
            eval("mi355x", Some("a")),
        ]);
        let v = judge1(SAME, &s, &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        // No benchmark image for the eval's configuration.
        let s = scan(vec![point("b200", "a"), eval("mi355x", Some("a"))]);
        let v = judge1(SAME, &s, &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        assert!(v.reason.contains("holds a value of image"), "{}", v.reason);
        // No image recorded: unknown; a meta file without one beside a row
        // with one of its configuration is covered.
        let s = scan(vec![point("mi355x", "a"), eval("mi355x", None)]);
        let v = judge1(SAME, &s, &[]);
        assert_eq!(v.status, Status::Unknown, "{}", v.reason);
        assert!(v.reason.contains("no artifact records the eval's image"));
        let meta = img(
            "meta_env.json",
            "result.eval_meta",
            serde_json::json!({"hw": "unknown", "framework": "sglang"}),
        );
        let s = scan(vec![point("mi355x", "a"), eval("mi355x", Some("a")), meta]);
        assert_eq!(judge1(SAME, &s, &[]).status, Status::Pass);
        // A pass needs every part read.
        let mut s = scan(vec![point("mi355x", "a"), eval("mi355x", Some("a"))]);
        s.coverage
            .error(&["x.json".into()], ErrorKind::Truncated, "cut");
        assert_eq!(judge1(SAME, &s, &[]).status, Status::Unknown);
        // Nothing about evals: not applicable.
        let s = scan(vec![point("mi355x", "a")]);
        assert_eq!(judge1(SAME, &s, &[]).status, Status::NotApplicable);
    }

    #[test]
    fn same_is_validated() {
        let bad = SAME.replace("rule = \"result.eval\"", "rule = \"result.point\"");
        assert!(parse_checks("t.toml", &bad).is_err());
        let bad = SAME.replace("applies =", "where = { hw = \"x\" }\napplies =");
        assert!(parse_checks("t.toml", &bad).is_err());
        let bad = SAME.replace("by = [", "bye = [");
        assert!(parse_checks("t.toml", &bad).is_err());
        let bad = SAME.replace("right = [\"result.point\"]", "right = []");
        assert!(parse_checks("t.toml", &bad).is_err());
        let c = &parse_checks("t.toml", SAME).unwrap()[0];
        let refs = c.references();
        assert!(
            refs.iter()
                .any(|(r, caps)| *r == "result.point" && caps.contains(&"image")),
            "{refs:?}"
        );
        assert!(super::super::needed_rules(std::slice::from_ref(c)).contains("result.point"));
    }
}
