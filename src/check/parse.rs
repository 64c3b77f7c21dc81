//! Check files (TOML) into compiled [`Check`]s: the file's shape as serde
//! reads it, and its validation (rule ids, conditions, expectations,
//! parameters), each error naming the file and the check.

use super::cond::Cond;
use super::*;
use serde::Deserialize;

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
pub(super) fn globs(list: &[String]) -> Result<Option<globset::GlobSet>, String> {
    crate::member_glob::glob_set(list).map_err(|e| e.to_string())
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
}
