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
pub(crate) mod run_id;
pub(crate) mod scope;
pub(crate) mod thresholds;
pub(crate) mod twin;
pub(crate) mod what_ran;
pub(crate) mod window;

use crate::domain::Evidence;
use cond::Cond;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};

pub(crate) use crate::domain::{Cited, ServerRanks, Status, Verdict};
pub(crate) use cond::{ParamSpec, Params as CheckParams, merge_specs};
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

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CheckFile {
    #[serde(default)]
    params: toml::Table,
    #[serde(default, rename = "check")]
    checks: Vec<CheckDef>,
}

/// A rule id, or a list of them.
#[derive(Debug, Deserialize, Clone)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl Default for OneOrMany {
    fn default() -> Self {
        OneOrMany::Many(Vec::new())
    }
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }
    }
}

/// `"rule.id"` or `{ rule = "rule.id", where = { capture = cond } }`.
#[derive(Debug, Deserialize, Clone)]
#[serde(untagged)]
enum EvidenceDef {
    Rule(String),
    Filtered {
        rule: String,
        #[serde(default, rename = "where")]
        filter: toml::Table,
    },
}

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct AppliesDef {
    /// What the claim speaks about, in words ("an SGLang server log").
    what: String,
    /// Evidence any of which makes the claim apply.
    evidence: Vec<EvidenceDef>,
    /// Artifact-name globs where the claim is expected to apply even
    /// without that evidence (an `eval_*` artifact should hold eval results).
    #[serde(default)]
    expected_in: Vec<String>,
    /// Evidence that must be present as well (each entry), in words
    /// `requires_what`: an agentic client beside a speculative server. A
    /// scope without it is not_applicable (unknown where part was unread).
    #[serde(default)]
    requires: Vec<EvidenceDef>,
    #[serde(default)]
    requires_what: String,
    /// Evidence (any) or artifact-name globs that put a scope outside the
    /// claim, in words `unless_what`: an eval-only server, which runs real
    /// acceptance on purpose. The verdict is not_applicable and cites it.
    #[serde(default)]
    unless: Vec<EvidenceDef>,
    #[serde(default)]
    unless_in: Vec<String>,
    #[serde(default)]
    unless_what: String,
    /// Where neither `evidence` nor a `requires` is found: the verdict is
    /// unknown with this reason, not not_applicable (a claim every run is
    /// subject to, whose evidence this run's artifacts may not keep).
    #[serde(default)]
    undecidable: Option<String>,
    /// Evidence (any) that makes `undecidable` hold; none: always.
    #[serde(default)]
    undecidable_when: Vec<EvidenceDef>,
    /// Only `evidence` makes the claim apply, not a matching record of the
    /// rule itself (Check 9: a raw client beside a non-speculative server).
    #[serde(default)]
    evidence_only: bool,
    /// Artifact-name globs whose artifacts, where the `within` source is
    /// missing, do not vote (not_applicable, not unknown): a `server_logs_`
    /// twin holds no benchmark client; one that holds it is judged.
    #[serde(default)]
    voteless_in: Vec<String>,
}

/// `aside = { what = "in background threads", where = { context = "thread" } }`.
#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct AsideDef {
    what: String,
    #[serde(rename = "where")]
    filter: toml::Table,
}

/// `ranks = 8`, `ranks = "@param:tp"`, or `ranks = { rule, capture }`.
#[derive(Debug, Deserialize, Clone)]
#[serde(untagged)]
enum RanksDef {
    Count(i64),
    Param(String),
    FromCapture { rule: String, capture: String },
}

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct CheckDef {
    id: String,
    /// The InferenceX verifier's check number (0-15) this check answers.
    #[serde(default)]
    checklist: Option<i64>,
    #[serde(default)]
    description: String,
    rule: String,
    #[serde(default, rename = "where")]
    filter: toml::Table,
    expect: toml::Value,
    #[serde(default)]
    all: toml::Table,
    #[serde(default)]
    any: toml::Table,
    #[serde(default)]
    within: OneOrMany,
    #[serde(default)]
    ranks: Option<RanksDef>,
    #[serde(default)]
    ranks_from: Option<String>,
    #[serde(default = "default_rank_key")]
    rank_key: String,
    #[serde(default)]
    servers: Vec<EvidenceDef>,
    #[serde(default)]
    applies: Option<AppliesDef>,
    /// Records of the rule that the claim leaves out but the reason names
    /// (tracebacks of background threads beside a no-crash claim).
    #[serde(default)]
    aside: Option<AsideDef>,
    #[serde(default)]
    scope: Option<String>,
    /// Matching records of an `absent` claim answer `unknown` with this
    /// reason, not `fail`: a knob a tool cannot judge (an `hf_overrides`
    /// value may or may not remove FLOPs), quoted for the reviewer.
    #[serde(default)]
    found_unknown: Option<String>,
    /// Added to the reason of a pass: what the pass does not cover.
    #[serde(default)]
    pass_note: Option<String>,
    /// `crash_timing = true`: records printed where they measured nothing
    /// (after the server shut down, a startup health probe) are named in
    /// the reason, not counted (see `crash`).
    #[serde(default)]
    crash_timing: bool,
    /// A `present` claim with nothing found answers `unknown` with this
    /// reason, not `fail`: evidence a download can lack without the run
    /// lacking it (evals are their own artifacts), with what to fetch.
    #[serde(default)]
    missing_unknown: Option<String>,
    /// Replaced by `applies`; kept only to say so.
    #[serde(default)]
    artifacts: Option<toml::Value>,
}

/// The highest check number of the InferenceX verifier's prompt (Checks 0-15).
const MAX_CHECKLIST: i64 = 15;

fn default_rank_key() -> String {
    "tp".into()
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
    fn parse(d: &EvidenceDef) -> Result<EvidenceSpec, String> {
        let (rule, filter) = match d {
            EvidenceDef::Rule(r) => (r.clone(), toml::Table::new()),
            EvidenceDef::Filtered { rule, filter } => (rule.clone(), filter.clone()),
        };
        Ok(EvidenceSpec {
            rule,
            filter: parse_conds(&filter)?,
            filter_text: inline_table(&filter),
        })
    }

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
    rules.insert(judge::LAUNCH_RULE.to_string());
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

fn parse_conds(t: &toml::Table) -> Result<Vec<(String, Cond)>, String> {
    t.iter()
        .map(|(k, v)| Cond::parse(v).map(|c| (k.clone(), c)))
        .collect()
}

/// `{ a = 1, b = "x" }` on one line (empty for an empty table).
fn inline_table(t: &toml::Table) -> String {
    if t.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = t.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    format!("{{ {} }}", parts.join(", "))
}

fn parse_expect(v: &toml::Value) -> Result<Expect, String> {
    Ok(match v {
        toml::Value::String(s) => match s.as_str() {
            "present" => Expect::Present,
            "absent" => Expect::Absent,
            "every_rank" => Expect::EveryRank,
            "chat_served" => Expect::ChatServed,
            other => return Err(format!("unknown expect {other:?}")),
        },
        toml::Value::Table(t) => {
            if let Some(toml::Value::Table(n)) = t.get("count") {
                let get = |k: &str| -> Result<Option<u64>, String> {
                    match n.get(k) {
                        None => Ok(None),
                        Some(v) => v
                            .as_integer()
                            .filter(|i| *i >= 0)
                            .map(|i| Some(i as u64))
                            .ok_or_else(|| format!("count {k} must be a whole number >= 0")),
                    }
                };
                Expect::Count {
                    min: get("min")?,
                    max: get("max")?,
                }
            } else if let Some(toml::Value::String(cap)) = t.get("consistent") {
                Expect::Consistent(cap.clone())
            } else if let Some(toml::Value::Table(p)) = t.get("pareto") {
                let text = |k: &str| -> Result<String, String> {
                    p.get(k)
                        .and_then(toml::Value::as_str)
                        .map(str::to_string)
                        .ok_or_else(|| format!("pareto needs `{k}`, a capture name"))
                };
                let curve = match p.get("curve") {
                    Some(toml::Value::Array(a)) => a
                        .iter()
                        .map(|v| v.as_str().map(str::to_string))
                        .collect::<Option<Vec<_>>>()
                        .ok_or("pareto `curve` is a list of capture names")?,
                    None => Vec::new(),
                    _ => return Err("pareto `curve` is a list of capture names".into()),
                };
                let min = p
                    .get("min")
                    .and_then(toml::Value::as_integer)
                    .filter(|m| *m >= 1)
                    .ok_or("pareto needs `min`, a whole number >= 1")?;
                if let Some(k) = p
                    .keys()
                    .find(|k| !["x", "y", "curve", "min"].contains(&k.as_str()))
                {
                    return Err(format!("pareto: unknown key {k:?} (x, y, curve, min)"));
                }
                Expect::Pareto(Pareto {
                    x: text("x")?,
                    y: text("y")?,
                    curve,
                    min: min as u64,
                })
            } else if let Some(toml::Value::Table(p)) = t.get("same") {
                Expect::Same(parse_same(p)?)
            } else if let Some(toml::Value::Table(p)) = t.get("agree") {
                Expect::Agree(expect::agree::parse(p)?)
            } else if let Some(l) = t.get("logged") {
                Expect::Logged(
                    l.as_array()
                        .and_then(|a| a.iter().map(|v| v.as_str().map(str::to_string)).collect())
                        .filter(|v: &Vec<String>| !v.is_empty())
                        .ok_or("expect `logged` is a list of rule ids")?,
                )
            } else {
                return Err(
                    "expect table needs `count`, `consistent`, `pareto`, `same`, `agree` or `logged`"
                        .into(),
                );
            }
        }
        _ => return Err("expect must be a string or a table".into()),
    })
}

fn parse_same(p: &toml::Table) -> Result<Same, String> {
    let list = |k: &str, need: bool| -> Result<Vec<String>, String> {
        let v = match p.get(k) {
            Some(toml::Value::Array(a)) => a
                .iter()
                .map(|v| v.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>(),
            None => Some(Vec::new()),
            _ => None,
        };
        match v {
            Some(v) if !(need && v.is_empty()) => Ok(v),
            _ => Err(format!(
                "same `{k}` is a list of {}",
                if k == "absent" { "texts" } else { "names" }
            )),
        }
    };
    if let Some(k) = p.keys().find(|k| {
        ![
            "capture",
            "left",
            "right",
            "by",
            "absent",
            "left_what",
            "right_what",
            "left_in",
            "compare",
        ]
        .contains(&k.as_str())
    }) {
        return Err(format!(
            "same: unknown key {k:?} (capture, left, right, by, absent, left_what, right_what, left_in, compare)"
        ));
    }
    let images = match p.get("compare") {
        None => false,
        Some(toml::Value::String(s)) if s == "image" => true,
        Some(_) => return Err("same `compare` is \"image\" (or absent: as text)".into()),
    };
    let what = |k: &str, side: &[String]| -> Result<String, String> {
        match p.get(k) {
            None => Ok(side.join(" / ")),
            Some(toml::Value::String(s)) => Ok(s.clone()),
            Some(_) => Err(format!(
                "same `{k}` is text (what those records are, in words)"
            )),
        }
    };
    let (left, right) = (list("left", true)?, list("right", true)?);
    Ok(Same {
        capture: p
            .get("capture")
            .and_then(toml::Value::as_str)
            .ok_or("same needs `capture`, a capture name")?
            .to_string(),
        left_what: what("left_what", &left)?,
        right_what: what("right_what", &right)?,
        left,
        right,
        by: list("by", false)?,
        absent: list("absent", false)?,
        left_in: {
            let l = list("left_in", false)?;
            globs(&l).map_err(|e| format!("same `left_in`: {e}"))?;
            l
        },
        images,
    })
}

/// Artifact-name globs, compiled (None for none), in the one dialect of
/// [`crate::member_glob`].
fn globs(list: &[String]) -> Result<Option<globset::GlobSet>, String> {
    crate::member_glob::glob_set(list).map_err(|e| e.to_string())
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

fn compile(file: &str, c: &CheckDef, defaults: &toml::Table) -> Result<Check, String> {
    if c.artifacts.is_some() {
        return Err("`artifacts` (file-name globs) is gone: declare `applies = { what, evidence = [RULE...] }` so that applicability follows content".into());
    }
    let expect = parse_expect(&c.expect)?;
    let checklist = match c.checklist {
        None => None,
        Some(n @ 0..=MAX_CHECKLIST) => Some(n as u8),
        Some(n) => {
            return Err(format!(
                "checklist = {n}: the verifier's checks are numbered 0-{MAX_CHECKLIST}"
            ));
        }
    };
    let ranks = match (&c.ranks, &c.ranks_from) {
        (Some(_), Some(_)) => return Err("give `ranks` or `ranks_from`, not both".into()),
        (Some(RanksDef::Count(n)), None) => Some(Ranks::Count(toml::Value::Integer(*n))),
        (Some(RanksDef::Param(s)), None) => {
            if !s.starts_with("@param:") {
                return Err(format!(
                    "ranks {s:?}: a number, \"@param:KEY\" or {{ rule, capture }}"
                ));
            }
            Some(Ranks::Count(toml::Value::String(s.clone())))
        }
        (Some(RanksDef::FromCapture { rule, capture }), None) => Some(Ranks::Capture {
            rule: rule.clone(),
            capture: capture.clone(),
        }),
        (None, Some(r)) => Some(Ranks::Seen(r.clone())),
        (None, None) => None,
    };
    if let Expect::Same(sm) = &expect {
        if !sm.left.contains(&c.rule) {
            return Err(format!(
                "same: the check's rule {:?} must be one of `left` (the records the claim is about)",
                c.rule
            ));
        }
        if !c.filter.is_empty() || !c.all.is_empty() || !c.any.is_empty() {
            return Err("same compares whole records: it takes no `where`, `all` or `any`".into());
        }
    }
    if let Expect::Agree(a) = &expect {
        if c.rule != a.rows && c.rule != a.scores {
            return Err(format!(
                "agree: the check's rule {:?} must be its `rows` or `scores`",
                c.rule
            ));
        }
        if !c.filter.is_empty() || !c.all.is_empty() || !c.any.is_empty() {
            return Err("agree compares whole records: it takes no `where`, `all` or `any`".into());
        }
    }
    if expect == Expect::EveryRank && ranks.is_none() {
        return Err("every_rank needs `ranks` (a number, \"@param:KEY\", or { rule, capture } read per server) or `ranks_from = RULE`".into());
    }
    let applies = match &c.applies {
        None => None,
        Some(a) => {
            if a.evidence.is_empty() {
                return Err("applies.evidence must name at least one rule".into());
            }
            let evidence = a
                .evidence
                .iter()
                .map(EvidenceSpec::parse)
                .collect::<Result<Vec<_>, _>>()?;
            let specs = |d: &[EvidenceDef]| {
                d.iter()
                    .map(EvidenceSpec::parse)
                    .collect::<Result<Vec<_>, _>>()
            };
            if !a.requires.is_empty() && a.requires_what.is_empty() {
                return Err("applies.requires needs `requires_what` (what it is, in words)".into());
            }
            if (!a.unless.is_empty() || !a.unless_in.is_empty()) && a.unless_what.is_empty() {
                return Err("applies.unless needs `unless_what` (what it is, in words)".into());
            }
            Some(Applies {
                what: a.what.clone(),
                evidence,
                expected_in: a.expected_in.clone(),
                expected_globs: globs(&a.expected_in)?,
                requires: specs(&a.requires)?,
                requires_what: a.requires_what.clone(),
                unless: specs(&a.unless)?,
                unless_in: a.unless_in.clone(),
                unless_globs: globs(&a.unless_in)?,
                unless_what: a.unless_what.clone(),
                undecidable: a.undecidable.clone(),
                undecidable_when: a
                    .undecidable_when
                    .iter()
                    .map(EvidenceSpec::parse)
                    .collect::<Result<_, _>>()?,
                evidence_only: a.evidence_only,
                voteless_globs: globs(&a.voteless_in)?,
            })
        }
    };
    let scope = match c.scope.as_deref() {
        None | Some("artifact") => CheckScope::Artifact,
        Some("run") => CheckScope::Run,
        Some(s) => return Err(format!("unknown scope {s:?} (artifact, run)")),
    };
    Ok(Check {
        id: c.id.clone(),
        checklist,
        description: c.description.clone(),
        rule: c.rule.clone(),
        filter: parse_conds(&c.filter)?,
        filter_text: inline_table(&c.filter),
        expect,
        all: parse_conds(&c.all)?,
        any: parse_conds(&c.any)?,
        any_text: inline_table(&c.any),
        within: c.within.clone().into_vec(),
        ranks,
        rank_key: c.rank_key.clone(),
        servers: c
            .servers
            .iter()
            .map(EvidenceSpec::parse)
            .collect::<Result<_, _>>()?,
        applies,
        aside: match &c.aside {
            Some(a) => Some((parse_conds(&a.filter)?, a.what.clone())),
            None => None,
        },
        scope,
        found_unknown: c.found_unknown.clone(),
        crash_timing: c.crash_timing,
        pass_note: c.pass_note.clone(),
        missing_unknown: c.missing_unknown.clone(),
        defaults: defaults.clone(),
        file: file.to_string(),
        reads: Default::default(),
    })
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
            ids.insert(judge::LAUNCH_RULE.into());
        }
        let _ = c.reads.set(member_cost::Reads::of(&ids, rules));
    }
}

pub(crate) fn parse_checks(file: &str, src: &str) -> Result<Vec<Check>, CheckError> {
    let def: CheckFile = toml::from_str(src).map_err(|e| CheckError::Parse {
        file: file.into(),
        message: e.to_string(),
    })?;
    def.checks
        .iter()
        .map(|c| {
            compile(file, c, &def.params).map_err(|message| CheckError::Check {
                file: file.into(),
                check: c.id.clone(),
                message,
            })
        })
        .collect()
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
            let check = super::globs(&[p.to_string()]).unwrap().unwrap();
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
