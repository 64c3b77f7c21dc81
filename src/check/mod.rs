//! Checks: claims about evidence, judged per artifact (or per run) into
//! pass / fail / unknown / not_applicable verdicts that cite their evidence.
//! An absence is only ever claimed on complete coverage; whether a claim
//! applies is decided by the evidence a scope holds (declared in the check
//! file), never by file names.

mod access;
pub(crate) mod by_run;
mod cond;
pub(crate) mod crash;
mod crash_points;
mod expect;
mod image;
mod judge;
pub(crate) mod load;
pub(crate) mod member_cost;
mod parse;
pub(crate) mod run_id;
pub(crate) mod scope;
pub(crate) mod thresholds;
pub(crate) mod twin;
pub(crate) mod what_ran;
pub(crate) mod window;

use crate::domain::Evidence;
use cond::Cond;
use std::collections::{BTreeMap, BTreeSet};

pub(crate) use crate::domain::{Cited, ServerRanks, Status, Verdict};
pub(crate) use cond::{ParamSpec, Params as CheckParams, merge_specs};
pub(crate) use parse::parse_checks;
pub(crate) use scope::{Layout, Scope};

use crate::embedded::BUILTIN_CHECKS;

#[derive(Debug, thiserror::Error)]
pub(crate) enum CheckError {
    #[error("{file}: {message}")]
    Parse { file: String, message: String },
    #[error("{file}: check {check}: {message}")]
    Check {
        file: String,
        check: String,
        message: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Present,
    Absent,
    EveryRank,
    Count {
        min: Option<u64>,
        max: Option<u64>,
    },
    Consistent(String),
    /// At least `min` points on the throughput-vs-latency frontier of each
    /// curve (records grouped by the `curve` captures).
    Pareto(Pareto),
    /// One capture of the `left` rules' records equals that of the `right`
    /// rules' records of the same configuration (the `by` captures).
    Same(Same),
    /// One eval point's scores agree across its documents.
    Agree(expect::agree::Agree),
    /// Every point of the run (its result records' artifact stem) has one
    /// of these rules' records under its stem: a log crashes are read from.
    Logged(Vec<String>),
    /// The rule's (aggregated) access-log lines, per member: raw
    /// completions with no chat request fail (see `access`).
    ChatServed,
}

/// `expect = { same = { capture, left = [RULE...], right = [RULE...], by =
/// [CAPTURE...], absent = [TEXT...] } }`: every left record's `capture`
/// equals the one value the right records of its configuration hold. Two
/// records are of one configuration where every `by` capture that both
/// hold is equal, as text and ignoring case (InferenceX's aggregated eval
/// rows upper-case `hw`); a `by` value in `absent` counts as not held.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Same {
    capture: String,
    left: Vec<String>,
    right: Vec<String>,
    by: Vec<String>,
    absent: Vec<String>,
    /// The left and right records in words, for reasons ("the eval").
    left_what: String,
    right_what: String,
    /// Records of a rule on both sides are left where a folder or archive
    /// in their path is named like one of these (`eval_*`: the eval job's
    /// srt config.yaml), right otherwise.
    left_in: Vec<String>,
    /// `compare = "image"`: values are container image references,
    /// compared as Docker resolves them (`image.rs`).
    images: bool,
}

/// `expect = { pareto = { x, y, curve = [...], min } }`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Pareto {
    /// Latency: lower is better.
    x: String,
    /// Throughput: higher is better.
    y: String,
    curve: Vec<String>,
    min: u64,
}

/// Evidence of one rule, optionally filtered by capture conditions.
#[derive(Debug, Clone)]
pub struct EvidenceSpec {
    pub rule: String,
    filter: Vec<(String, Cond)>,
    /// The filter as written, for reasons and `--list`.
    filter_text: String,
}

impl EvidenceSpec {
    /// Whether `r` is evidence of this kind (filters needing an absent
    /// parameter do not hold).
    fn matches(&self, r: &Evidence, p: &CheckParams) -> bool {
        r.rule == self.rule && cond::all_hold(&self.filter, r, p) == Ok(true)
    }
}

impl std::fmt::Display for EvidenceSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.filter_text.is_empty() {
            write!(f, "{}", self.rule)
        } else {
            write!(f, "{} {}", self.rule, self.filter_text)
        }
    }
}

/// When a check applies to a scope.
#[derive(Debug, Clone)]
pub struct Applies {
    pub what: String,
    pub evidence: Vec<EvidenceSpec>,
    pub expected_in: Vec<String>,
    expected_globs: Option<globset::GlobSet>,
    pub requires: Vec<EvidenceSpec>,
    pub requires_what: String,
    pub unless: Vec<EvidenceSpec>,
    pub unless_in: Vec<String>,
    unless_globs: Option<globset::GlobSet>,
    pub unless_what: String,
    pub undecidable: Option<String>,
    pub undecidable_when: Vec<EvidenceSpec>,
    pub evidence_only: bool,
    pub voteless_globs: Option<globset::GlobSet>,
}

/// Where the expected ranks of a server come from.
#[derive(Debug, Clone)]
enum Ranks {
    /// A fixed count, or `@param:key`.
    Count(toml::Value),
    /// The ranks that logged this rule in the same server.
    Seen(String),
    /// The largest value of this capture of this rule in the same server.
    Capture { rule: String, capture: String },
}

/// A compiled check.
#[derive(Debug, Clone)]
pub struct Check {
    pub id: String,
    /// The InferenceX verifier's check number (0-15) this check answers.
    pub checklist: Option<u8>,
    pub description: String,
    pub rule: String,
    filter: Vec<(String, Cond)>,
    filter_text: String,
    expect: Expect,
    all: Vec<(String, Cond)>,
    any: Vec<(String, Cond)>,
    any_text: String,
    within: Vec<String>,
    ranks: Option<Ranks>,
    rank_key: String,
    servers: Vec<EvidenceSpec>,
    pub applies: Option<Applies>,
    /// Records of `rule` left out of the claim, named in its reason: the
    /// filter and what they are, in words.
    aside: Option<(Vec<(String, Cond)>, String)>,
    pub scope: CheckScope,
    /// `found_unknown`: matches of an absence claim answer unknown, why.
    found_unknown: Option<String>,
    /// Records are judged by when they were printed (`crash_timing`).
    crash_timing: bool,
    /// Added to a pass's reason.
    pass_note: Option<String>,
    /// `missing_unknown`: a presence claim with nothing found is unknown, why.
    missing_unknown: Option<String>,
    /// Defaults of `@param:` values from the check file.
    defaults: toml::Table,
    /// The file the check came from.
    pub file: String,
    /// The members its rules can read, once looked up in the rules
    /// ([`scope_reads`]); unset, every unread part costs it.
    reads: std::sync::OnceLock<member_cost::Reads>,
}

/// What a check judges: each artifact (`scope = "artifact"`, the default)
/// or each run folder, over all its artifacts (`scope = "run"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckScope {
    Artifact,
    Run,
}

impl CheckScope {
    /// As check files and the audit store spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            CheckScope::Artifact => "artifact",
            CheckScope::Run => "run",
        }
    }
}

/// The rules a set of checks needs every line of (evidence records, not
/// aggregates). Applicability rules are left out: their aggregates do.
pub(crate) fn needed_rules<'c>(checks: impl IntoIterator<Item = &'c Check>) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for c in checks {
        // Access-log lines stay aggregated (counted per member): one
        // record per request would fill an artifact's record cap.
        if c.expect == Expect::ChatServed {
            out.insert("bench.client".to_string());
        } else {
            out.insert(c.rule.clone());
        }
        out.extend(c.within.iter().cloned());
        if c.crash_timing {
            out.insert(crash::LIFECYCLE.to_string());
            out.insert(crash::WINDOW.to_string());
            out.insert(crash::DRIVER.to_string());
        }
        match &c.ranks {
            Some(Ranks::Seen(r)) | Some(Ranks::Capture { rule: r, .. }) => {
                out.insert(r.clone());
            }
            _ => {}
        }
        out.extend(c.servers.iter().map(|s| s.rule.clone()));
        if let Expect::Same(s) = &c.expect {
            out.extend(s.left.iter().chain(&s.right).cloned());
        }
        if let Expect::Agree(a) = &c.expect {
            out.extend([a.rows.clone(), a.scores.clone(), a.meta.clone()]);
        }
        if let Expect::Logged(l) = &c.expect {
            out.extend(l.iter().cloned());
        }
        // A curve leaves out points whose server crashed while measured.
        if let Expect::Pareto(_) = &c.expect {
            out.extend(expect::left_out::RULES.iter().map(|r| r.to_string()));
        }
    }
    out
}

/// Whether some check needs the lines of a rule that aggregates (its
/// [`needed_rules`]): then a scan for it makes one record per matching line
/// (`every_match`), else aggregates, as the audit stores them. A rule
/// only in a check's `applies` counts as aggregated there (a flood of
/// `accept len:` lines would else fill the artifact's record cap, and every
/// claim on it would be unknown).
pub(crate) fn needs_every_match(checks: &[Check], rules: &crate::pack::RuleSet) -> bool {
    let needed = needed_rules(checks);
    rules
        .rules
        .iter()
        .any(|r| !r.aggregate.is_empty() && needed.contains(&r.id))
}

/// Every rule a set of checks reads: [`needed_rules`] and the evidence
/// that makes a check apply.
pub(crate) fn selected_rules<'c>(
    checks: impl IntoIterator<Item = &'c Check> + Clone,
) -> BTreeSet<String> {
    let mut out = needed_rules(checks.clone());
    for c in checks {
        out.insert(c.rule.clone());
        if let Some(a) = &c.applies {
            out.extend(a.specs().map(|s| s.rule.clone()));
        }
    }
    out
}

/// Every rule a judge of `checks` reads: [`selected_rules`] and the
/// launches, which rank counts read by name wherever a scope is judged.
/// What a scope's files must keep of their records to be judged by these
/// checks alone.
pub(crate) fn judged_rules<'c>(
    checks: impl IntoIterator<Item = &'c Check> + Clone,
) -> std::collections::HashSet<String> {
    let mut rules: std::collections::HashSet<String> = selected_rules(checks).into_iter().collect();
    rules.insert(expect::every_rank::LAUNCH_RULE.to_string());
    rules
}

pub(crate) fn builtin_set(name: &str) -> Option<&'static str> {
    BUILTIN_CHECKS
        .iter()
        .find(|(f, _)| f.trim_end_matches(".toml") == name)
        .map(|(_, src)| *src)
}

pub(crate) fn builtin_set_names() -> Vec<&'static str> {
    BUILTIN_CHECKS
        .iter()
        .map(|(f, _)| f.trim_end_matches(".toml"))
        .collect()
}

impl Applies {
    /// Every evidence kind it reads: what makes it apply, what it requires,
    /// what excludes.
    fn specs(&self) -> impl Iterator<Item = &EvidenceSpec> {
        self.evidence
            .iter()
            .chain(&self.requires)
            .chain(&self.unless)
    }
}

/// Looks up, for each check, the members its rules can read (see
/// [`member_cost`]): what lets an unread member cost only the claims it
/// could hold. Every rule the judge reads for the check counts: its
/// records, applicability, bars' metadata, and launches for rank counts.
pub(crate) fn scope_reads(checks: &[Check], rules: &crate::pack::RuleSet) {
    for c in checks {
        let mut ids = selected_rules(std::iter::once(c));
        if let Some(a) = &c.applies {
            ids.extend(a.undecidable_when.iter().map(|s| s.rule.clone()));
        }
        ids.insert("result.eval_meta".into());
        if c.ranks.is_some() || matches!(c.expect, Expect::EveryRank) {
            ids.insert(expect::every_rank::LAUNCH_RULE.into());
        }
        let _ = c.reads.set(member_cost::Reads::of(&ids, rules));
    }
}

impl Check {
    /// Whether the check draws curves, which may span a sweep's `_high`
    /// folder and its sibling (`load::judge_run`).
    pub(crate) fn judges_a_sweep(&self) -> bool {
        matches!(self.expect, Expect::Pareto(_))
    }

    /// The parameters this check reads, with whether they must be numbers.
    /// Every rule the check names, each with the capture names it reads
    /// of it: what `rules_for` checks against the packs, so that a mistyped
    /// rule or capture is an input error, never a silent PASS or N/A.
    pub(crate) fn references(&self) -> Vec<(&str, Vec<&str>)> {
        fn names(conds: &[(String, Cond)]) -> Vec<&str> {
            conds.iter().map(|(k, _)| k.as_str()).collect()
        }
        let mut own = names(&self.filter);
        own.extend(names(&self.all));
        own.extend(names(&self.any));
        if let Expect::Consistent(c) = &self.expect {
            own.push(c);
        }
        if let Expect::Pareto(p) = &self.expect {
            own.extend([p.x.as_str(), p.y.as_str()]);
            own.extend(p.curve.iter().map(String::as_str));
        }
        if let Some((f, _)) = &self.aside {
            own.extend(names(f));
        }
        let mut out = vec![(self.rule.as_str(), own)];
        if let Expect::Same(s) = &self.expect {
            // A configuration capture counts where both records hold it:
            // only the check's own rule must record every one (the eval's
            // srt config.yaml records the image alone).
            for r in s.left.iter().chain(&s.right) {
                let mut caps = vec![s.capture.as_str()];
                if *r == self.rule {
                    caps.extend(s.by.iter().map(String::as_str));
                }
                out.push((r.as_str(), caps));
            }
        }
        if let Expect::Agree(a) = &self.expect {
            out.extend(a.references());
        }
        for s in self
            .servers
            .iter()
            .chain(self.applies.iter().flat_map(|a| a.specs()))
        {
            out.push((s.rule.as_str(), names(&s.filter)));
        }
        for w in &self.within {
            out.push((w.as_str(), Vec::new()));
        }
        if let Expect::Logged(l) = &self.expect {
            out.extend(l.iter().map(|r| (r.as_str(), Vec::new())));
        }
        match &self.ranks {
            Some(Ranks::Seen(r)) => out.push((r.as_str(), Vec::new())),
            Some(Ranks::Capture { rule, capture }) => {
                out.push((rule.as_str(), vec![capture.as_str()]))
            }
            _ => {}
        }
        out
    }

    pub fn params(&self) -> Vec<ParamSpec> {
        let mut out: BTreeMap<String, ParamSpec> = BTreeMap::new();
        let mut add = |name: String, numeric: bool, range: Option<(f64, f64)>| {
            let e = out.entry(name.clone()).or_insert_with(|| ParamSpec {
                name: name.clone(),
                default: None,
                numeric: false,
                range: None,
                checks: vec![self.id.clone()],
            });
            e.numeric |= numeric;
            e.range = e.range.or(range);
        };
        for (_, c) in self.filter.iter().chain(&self.all).chain(&self.any) {
            for (k, numeric) in c.params() {
                add(k, numeric, c.range().filter(|_| numeric));
            }
        }
        for s in self
            .servers
            .iter()
            .chain(self.applies.iter().flat_map(|a| a.specs()))
        {
            for (_, c) in &s.filter {
                for (k, numeric) in c.params() {
                    add(k, numeric, c.range().filter(|_| numeric));
                }
            }
        }
        if let Some(Ranks::Count(toml::Value::String(s))) = &self.ranks
            && let Some(k) = s.strip_prefix("@param:")
        {
            add(k.to_string(), true, None);
        }
        // `--param <capture>=V`: the value both sides must hold (the PR's
        // image, read from its diff).
        if let Expect::Same(s) = &self.expect {
            add(s.capture.clone(), false, None);
        }
        for (k, v) in &self.defaults {
            if let Some(p) = out.get_mut(k) {
                p.default = serde_json::to_value(v).ok();
                p.numeric |= v.is_integer() || v.is_float();
            }
        }
        out.into_values().collect()
    }

    /// The expectation in words, for `--list` and verdicts.
    pub fn expect_text(&self) -> String {
        match &self.expect {
            Expect::Present => "present".into(),
            Expect::Absent => "absent".into(),
            Expect::EveryRank => format!("every_rank ({})", self.ranks_text()),
            Expect::Count { min, max } => format!(
                "count {}..{}",
                min.map_or(String::new(), |m| m.to_string()),
                max.map_or(String::new(), |m| m.to_string())
            ),
            Expect::Consistent(c) => format!("consistent {c}"),
            Expect::Logged(l) => format!("logged: each point has a {} record", l.join(" / ")),
            Expect::ChatServed => {
                "chat_served: no server log with raw completions and no chat request".into()
            }
            Expect::Pareto(p) => format!(
                "pareto: at least {} frontier points ({} up, {} down) per curve of {}",
                p.min,
                p.y,
                p.x,
                if p.curve.is_empty() {
                    "all records".to_string()
                } else {
                    p.curve.join(", ")
                }
            ),
            Expect::Same(s) => format!(
                "same {}: each {} record's equals that of the {} records of its configuration ({})",
                s.capture,
                s.left.join(" / "),
                s.right.join(" / "),
                if s.by.is_empty() {
                    "all records".to_string()
                } else {
                    s.by.join(", ")
                }
            ),
            Expect::Agree(a) => format!(
                "agree: each {} record's scores equal those of the {} records of its results file and one point's {} records equal each other",
                a.rows, a.scores, a.scores
            ),
        }
    }

    fn ranks_text(&self) -> String {
        let key = self.rank_key.to_uppercase();
        match &self.ranks {
            Some(Ranks::Count(v)) => format!("{key} ranks 0..{v}, per server"),
            Some(Ranks::Seen(r)) => format!("the {key} ranks that logged {r}, per server"),
            Some(Ranks::Capture { rule, capture }) => {
                format!("{key} ranks 0..{rule} {capture}, per server")
            }
            None => String::new(),
        }
    }

    /// Applicability in words, for `--list`.
    pub fn applies_text(&self) -> String {
        match &self.applies {
            None => "always".into(),
            Some(a) => {
                let ev: Vec<String> = a.evidence.iter().map(|e| e.to_string()).collect();
                let mut s = format!("{} (evidence: {})", a.what, ev.join(" or "));
                if !a.expected_in.is_empty() {
                    s.push_str(&format!(
                        "; expected in artifacts named {}",
                        a.expected_in.join(", ")
                    ));
                }
                if !a.requires.is_empty() {
                    let r: Vec<String> = a.requires.iter().map(|e| e.to_string()).collect();
                    s.push_str(&format!(
                        "; and only with {} ({})",
                        a.requires_what,
                        r.join(" and ")
                    ));
                }
                if !a.unless.is_empty() || !a.unless_in.is_empty() {
                    let mut r: Vec<String> = a.unless.iter().map(|e| e.to_string()).collect();
                    r.extend(a.unless_in.iter().map(|g| format!("artifacts named {g}")));
                    s.push_str(&format!("; not for {} ({})", a.unless_what, r.join(" or ")));
                }
                s
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::member_glob::MemberGlobs;
    use crate::pack::compile::{RuleSet, Selection};

    /// `-g`, a pack rule's `members` and a check's `expected_in`/`unless_in`
    /// are one glob dialect (`*` inside a path component, `**` across):
    /// on the same names the three decide alike.
    #[test]
    fn member_globs_are_one_dialect() {
        let pats = [
            "*.log",
            "*env*.txt",
            "logs/*.log",
            "**/*.log",
            "logs/**",
            "n1_*",
            "{a,b}.json",
            "[ab].out",
            "?.out",
            "l*.log",
        ];
        let names = [
            "server.log",
            "logs/server.log",
            "logs/n1/server.log",
            "env_dir/x.txt",
            "my_env.txt",
            "a.json",
            "logs/b.json",
            "b.out",
            "logs/ab.out",
            "n1_decode.log",
            "x/n1_decode.log",
        ];
        for p in pats {
            let dash_g = MemberGlobs::new(&[p.to_string()]).unwrap().unwrap();
            let src = format!(
                "name = \"t\"\nversion = \"1\"\n[[rule]]\nid = \"t.r\"\nmembers = [{p:?}]\nregex = 'x'\n"
            );
            let pack = crate::pack::parse_pack("t.toml", &src).unwrap();
            let members = RuleSet::compile(&[pack], &Selection::all()).unwrap();
            let check = super::parse::globs(&[p.to_string()]).unwrap().unwrap();
            for n in names {
                assert_eq!(
                    dash_g.admits("a.zip", &[n.to_string()]),
                    members.active_for(n)[0],
                    "-g and members disagree: {p} on {n}"
                );
                // A check matches an artifact's base name; -g a plain
                // file by its file name.
                let base = n.rsplit('/').next().unwrap();
                assert_eq!(
                    check.is_match(base),
                    dash_g.admits(base, &[]),
                    "expected_in and -g disagree: {p} on {base}"
                );
            }
            // The dialect itself: `*` never crosses `/`, `**` does.
            assert_eq!(
                check.is_match("logs/n1/server.log"),
                p == "**/*.log" || p == "logs/**",
                "{p}"
            );
        }
    }
}
