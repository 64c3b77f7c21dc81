//! Checks: claims about evidence, judged per artifact (or per run) into
//! pass / fail / unknown verdicts that cite their evidence. An absence is
//! only ever claimed on complete coverage.

mod cond;

use crate::output::EvidenceRecord;
use crate::scan::ArtifactScan;
use cond::{Cond, Params};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

include!(concat!(env!("OUT_DIR"), "/builtin.rs"));

#[derive(Debug, thiserror::Error)]
pub enum CheckError {
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

#[derive(Debug, Deserialize, Clone)]
#[serde(deny_unknown_fields)]
struct CheckDef {
    id: String,
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
    within: Vec<String>,
    #[serde(default)]
    ranks: Option<toml::Value>,
    #[serde(default)]
    ranks_from: Option<String>,
    #[serde(default = "default_rank_key")]
    rank_key: String,
    #[serde(default)]
    scope: Option<String>,
    #[serde(default)]
    artifacts: Vec<String>,
}

fn default_rank_key() -> String {
    "tp".into()
}

#[derive(Debug, Clone, PartialEq)]
enum Expect {
    Present,
    Absent,
    EveryRank,
    Count { min: Option<u64>, max: Option<u64> },
    Consistent(String),
}

/// A compiled check.
#[derive(Debug, Clone)]
pub struct Check {
    pub id: String,
    pub description: String,
    pub rule: String,
    filter: Vec<(String, Cond)>,
    expect: Expect,
    all: Vec<(String, Cond)>,
    any: Vec<(String, Cond)>,
    within: Vec<String>,
    ranks: Option<toml::Value>,
    ranks_from: Option<String>,
    rank_key: String,
    pub run_scope: bool,
    artifacts: Option<globset::GlobSet>,
    /// Defaults of `@param:` values from the check file.
    defaults: toml::Table,
}

/// The rules a set of checks needs evidence from.
pub fn needed_rules(checks: &[Check]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for c in checks {
        out.insert(c.rule.clone());
        out.extend(c.within.iter().cloned());
        out.extend(c.ranks_from.iter().cloned());
        if c.expect == Expect::EveryRank && c.ranks.is_none() && c.ranks_from.is_none() {
            out.insert("sglang.server_args".into());
        }
    }
    out
}

pub fn builtin_set(name: &str) -> Option<&'static str> {
    BUILTIN_CHECKS
        .iter()
        .find(|(f, _)| f.trim_end_matches(".toml") == name)
        .map(|(_, src)| *src)
}

pub fn builtin_set_names() -> Vec<&'static str> {
    BUILTIN_CHECKS
        .iter()
        .map(|(f, _)| f.trim_end_matches(".toml"))
        .collect()
}

pub fn parse_checks(file: &str, src: &str) -> Result<Vec<Check>, CheckError> {
    let def: CheckFile = toml::from_str(src).map_err(|e| CheckError::Parse {
        file: file.into(),
        message: e.to_string(),
    })?;
    def.checks
        .iter()
        .map(|c| {
            let err = |message: String| CheckError::Check {
                file: file.into(),
                check: c.id.clone(),
                message,
            };
            let conds = |t: &toml::Table| -> Result<Vec<(String, Cond)>, CheckError> {
                t.iter()
                    .map(|(k, v)| Cond::parse(v).map(|c| (k.clone(), c)).map_err(&err))
                    .collect()
            };
            let expect = match &c.expect {
                toml::Value::String(s) => match s.as_str() {
                    "present" => Expect::Present,
                    "absent" => Expect::Absent,
                    "every_rank" => Expect::EveryRank,
                    other => return Err(err(format!("unknown expect {other:?}"))),
                },
                toml::Value::Table(t) => {
                    if let Some(toml::Value::Table(n)) = t.get("count") {
                        let get = |k: &str| {
                            n.get(k)
                                .and_then(|v| v.as_integer())
                                .map(|i| i.max(0) as u64)
                        };
                        Expect::Count {
                            min: get("min"),
                            max: get("max"),
                        }
                    } else if let Some(toml::Value::String(cap)) = t.get("consistent") {
                        Expect::Consistent(cap.clone())
                    } else {
                        return Err(err("expect table needs `count` or `consistent`".into()));
                    }
                }
                _ => return Err(err("expect must be a string or a table".into())),
            };
            let artifacts = if c.artifacts.is_empty() {
                None
            } else {
                let mut b = globset::GlobSetBuilder::new();
                for g in &c.artifacts {
                    b.add(globset::Glob::new(g).map_err(|e| err(e.to_string()))?);
                }
                Some(b.build().map_err(|e| err(e.to_string()))?)
            };
            let run_scope = match c.scope.as_deref() {
                None | Some("artifact") => false,
                Some("run") => true,
                Some(s) => return Err(err(format!("unknown scope {s:?} (artifact, run)"))),
            };
            Ok(Check {
                id: c.id.clone(),
                description: c.description.clone(),
                rule: c.rule.clone(),
                filter: conds(&c.filter)?,
                expect,
                all: conds(&c.all)?,
                any: conds(&c.any)?,
                within: c.within.clone(),
                ranks: c.ranks.clone(),
                ranks_from: c.ranks_from.clone(),
                rank_key: c.rank_key.clone(),
                run_scope,
                artifacts,
                defaults: def.params.clone(),
            })
        })
        .collect()
}

/// pass, fail or unknown.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Pass,
    Fail,
    Unknown,
}

/// One check judged over one scope.
#[derive(Debug, Clone, Serialize)]
pub struct VerdictRecord {
    /// Always "verdict".
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub check: String,
    pub description: String,
    pub rule: String,
    /// The artifact path (or, with `scope = "run"`, the run's folder).
    pub scope: String,
    pub status: Status,
    pub reason: String,
    /// Citations of the records behind the verdict (at most 20).
    pub evidence: Vec<String>,
    /// What is missing: `ranks` not seen, `members` not read.
    pub missing: BTreeMap<String, Value>,
}

/// The artifacts of one scope, scanned.
pub struct Scope<'a> {
    pub name: String,
    pub scans: Vec<(&'a str, &'a ArtifactScan)>,
}

fn records<'a>(scope: &Scope<'a>, rule: &str) -> Vec<&'a EvidenceRecord> {
    scope
        .scans
        .iter()
        .flat_map(|(_, s)| s.evidence())
        .filter(|e| e.rule == rule)
        .collect()
}

const MAX_CITES: usize = 20;

impl Check {
    pub fn applies_to(&self, artifact_path: &str) -> bool {
        let name = artifact_path.rsplit('/').next().unwrap_or(artifact_path);
        self.artifacts.as_ref().is_none_or(|g| g.is_match(name))
    }

    pub fn judge(&self, scope: &Scope<'_>, params: &Params) -> VerdictRecord {
        let params = params.with_defaults(&self.defaults);
        let mut v = VerdictRecord {
            kind: "verdict",
            check: self.id.clone(),
            description: self.description.clone(),
            rule: self.rule.clone(),
            scope: scope.name.clone(),
            status: Status::Unknown,
            reason: String::new(),
            evidence: Vec::new(),
            missing: BTreeMap::new(),
        };
        let incomplete: Vec<String> = scope
            .scans
            .iter()
            .flat_map(|(path, s)| {
                s.coverage.errors.iter().map(move |e| {
                    let at = crate::Location::member_citation(path, &e.members);
                    format!("{at} ({:?})", e.kind).to_lowercase()
                })
            })
            .collect();
        let complete = incomplete.is_empty();
        let unread = |v: &mut VerdictRecord| {
            v.missing
                .insert("members".into(), Value::from(incomplete.clone()));
        };
        for w in &self.within {
            if records(scope, w).is_empty() {
                v.reason = if complete {
                    format!(
                        "no {w} evidence in this scope: the source this claim needs was not found"
                    )
                } else {
                    unread(&mut v);
                    format!("no {w} evidence, and part of the artifact could not be read")
                };
                return v;
            }
        }
        let all = records(scope, &self.rule);
        let mut matching = Vec::new();
        for r in &all {
            match cond::all_hold(&self.filter, r, &params) {
                Ok(true) => matching.push(*r),
                Ok(false) => {}
                Err(missing) => {
                    v.reason = format!("parameter {missing} not given (--param {missing}=...)");
                    return v;
                }
            }
        }
        v.evidence = matching
            .iter()
            .take(MAX_CITES)
            .map(|r| r.citation.to_string())
            .collect();
        // Value conditions on the matching records.
        let all_fail = matching
            .iter()
            .find_map(|r| match cond::all_hold(&self.all, r, &params) {
                Ok(true) | Err(_) => None,
                Ok(false) => Some(*r),
            });
        let any_ok = self.any.is_empty()
            || matching
                .iter()
                .any(|r| cond::all_hold(&self.any, r, &params) == Ok(true));
        let cond_note = cond::skipped_params(&self.all, &params)
            .into_iter()
            .chain(cond::skipped_params(&self.any, &params))
            .map(|p| format!(" (no --param {p}: value not compared)"))
            .collect::<String>();
        let n = matching.len();
        let conditions_fail = |v: &mut VerdictRecord| -> bool {
            if let Some(r) = all_fail {
                v.status = Status::Fail;
                v.reason = format!(
                    "{} does not satisfy the condition: {}",
                    r.citation,
                    describe(r)
                );
                v.evidence = vec![r.citation.to_string()];
                return true;
            }
            if !any_ok {
                v.status = Status::Fail;
                v.reason = format!("none of {n} record(s) satisfies the `any` condition");
                return true;
            }
            false
        };
        match &self.expect {
            Expect::Present => {
                if n == 0 {
                    absent_outcome(&mut v, complete, &self.rule);
                    if !complete {
                        unread(&mut v);
                    }
                } else if !conditions_fail(&mut v) {
                    v.status = Status::Pass;
                    v.reason = format!("{n} matching record(s){cond_note}");
                }
            }
            Expect::Absent => {
                if n > 0 {
                    v.status = Status::Fail;
                    v.reason = format!("{n} matching record(s), first {}", matching[0].citation);
                } else if complete {
                    v.status = Status::Pass;
                    v.reason = format!(
                        "no matching {} record; every member was read completely",
                        self.rule
                    );
                } else {
                    unread(&mut v);
                    v.reason = format!(
                        "no matching record, but {} part(s) could not be read: {}",
                        incomplete.len(),
                        incomplete.join(", ")
                    );
                }
            }
            Expect::Count { min, max } => {
                let lo = min.is_none_or(|m| n as u64 >= m);
                let hi = max.is_none_or(|m| n as u64 <= m);
                if !hi {
                    v.status = Status::Fail;
                    v.reason = format!("{n} matching record(s), more than {}", max.unwrap_or(0));
                } else if !lo && complete {
                    v.status = Status::Fail;
                    v.reason = format!("{n} matching record(s), fewer than {}", min.unwrap_or(0));
                } else if !lo {
                    unread(&mut v);
                    v.reason = format!(
                        "{n} matching record(s), fewer than {}, and part of the artifact could not be read",
                        min.unwrap_or(0)
                    );
                } else if !conditions_fail(&mut v) {
                    v.status = Status::Pass;
                    v.reason = format!("{n} matching record(s){cond_note}");
                }
            }
            Expect::Consistent(cap) => {
                if n == 0 {
                    absent_outcome(&mut v, complete, &self.rule);
                    if !complete {
                        unread(&mut v);
                    }
                } else {
                    let first = matching[0];
                    let value =
                        |r: &EvidenceRecord| r.captures.as_ref().and_then(|c| c.get(cap)).cloned();
                    let v0 = value(first);
                    if let Some(other) = matching.iter().find(|r| !cond::json_eq(&value(r), &v0)) {
                        v.status = Status::Fail;
                        v.reason = format!(
                            "{cap} differs: {} at {}, {} at {}",
                            show(&v0),
                            first.citation,
                            show(&value(other)),
                            other.citation
                        );
                        v.evidence = vec![first.citation.to_string(), other.citation.to_string()];
                    } else if !conditions_fail(&mut v) {
                        v.status = Status::Pass;
                        v.reason = format!("{cap} = {} in all {n} record(s){cond_note}", show(&v0));
                    }
                }
            }
            Expect::EveryRank => {
                let expected = match self.expected_ranks(scope, &params) {
                    Ok(r) => r,
                    Err(why) => {
                        v.reason = why;
                        return v;
                    }
                };
                let seen: BTreeSet<u32> = matching
                    .iter()
                    .filter_map(|r| r.rank.as_ref()?.get(&self.rank_key).copied())
                    .collect();
                let missing: Vec<u32> = expected
                    .iter()
                    .filter(|r| !seen.contains(r))
                    .copied()
                    .collect();
                let key = self.rank_key.to_uppercase();
                if missing.is_empty() {
                    if !conditions_fail(&mut v) {
                        v.status = Status::Pass;
                        v.reason = format!(
                            "{} on every rank ({}){cond_note}",
                            self.rule,
                            ranges(&key, &seen)
                        );
                    }
                } else {
                    v.missing
                        .insert("ranks".into(), Value::from(missing.clone()));
                    let seen_s = if seen.is_empty() {
                        "no rank".to_string()
                    } else {
                        ranges(&key, &seen)
                    };
                    let missing_s = ranges(&key, &missing.iter().copied().collect());
                    let what = format!(
                        "{seen_s} logged it; {missing_s} never logged a matching {} line",
                        self.rule
                    );
                    if complete {
                        v.status = Status::Fail;
                        v.reason = what;
                    } else {
                        unread(&mut v);
                        v.reason = format!("{what}, and part of the artifact could not be read");
                    }
                }
            }
        }
        v
    }

    fn expected_ranks(&self, scope: &Scope<'_>, params: &Params) -> Result<BTreeSet<u32>, String> {
        if let Some(r) = &self.ranks {
            let n = match r {
                toml::Value::Integer(i) => *i,
                toml::Value::String(s) => match params.resolve_str(s) {
                    Some(v) => v
                        .as_f64()
                        .map(|f| f as i64)
                        .ok_or_else(|| format!("ranks {s} is not a number"))?,
                    None => return Err(format!("ranks {s}: parameter not given")),
                },
                _ => return Err("ranks must be a number".into()),
            };
            return Ok((0..n.clamp(0, 4096) as u32).collect());
        }
        if let Some(rule) = &self.ranks_from {
            let set: BTreeSet<u32> = records(scope, rule)
                .iter()
                .filter_map(|r| r.rank.as_ref()?.get(&self.rank_key).copied())
                .collect();
            if set.is_empty() {
                return Err(format!(
                    "no {rule} record with a {} rank: the expected ranks are unknown",
                    self.rank_key
                ));
            }
            return Ok(set);
        }
        let key = format!("{}_size", self.rank_key);
        // Disaggregated runs log one server_args per worker (prefill TP4,
        // decode TP8...): the largest worker sets the ranks to expect.
        let n = records(scope, "sglang.server_args")
            .iter()
            .filter_map(|r| r.captures.as_ref()?.get(&key)?.as_u64())
            .max();
        match n {
            Some(n) => Ok((0..n.min(4096) as u32).collect()),
            None => Err(format!(
                "rank count unknown: no sglang.server_args {key} in scope (set `ranks` or --param)"
            )),
        }
    }
}

fn absent_outcome(v: &mut VerdictRecord, complete: bool, rule: &str) {
    if complete {
        v.status = Status::Fail;
        v.reason = format!("no matching {rule} record; every member was read completely");
    } else {
        v.status = Status::Unknown;
        v.reason = format!("no matching {rule} record, and part of the artifact could not be read");
    }
}

fn show(v: &Option<Value>) -> String {
    v.as_ref().map_or("(none)".into(), Value::to_string)
}

fn describe(r: &EvidenceRecord) -> String {
    Value::Object(r.captures.clone().unwrap_or_default()).to_string()
}

/// `TP0-TP6, TP8` style listing.
fn ranges(key: &str, set: &BTreeSet<u32>) -> String {
    let mut out = Vec::new();
    let v: Vec<u32> = set.iter().copied().collect();
    let mut i = 0;
    while i < v.len() {
        let mut j = i;
        while j + 1 < v.len() && v[j + 1] == v[j] + 1 {
            j += 1;
        }
        out.push(if i == j {
            format!("{key}{}", v[i])
        } else {
            format!("{key}{}-{key}{}", v[i], v[j])
        });
        i = j + 1;
    }
    out.join(", ")
}

pub use cond::Params as CheckParams;
