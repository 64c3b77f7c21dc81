//! `expect = { agree = { rows, scores, meta } }` (the verifier's Check 2:
//! an eval's documents that disagree are a FAIL naming both): one eval
//! point reported by two documents of one run with different scores.
//! - An aggregated eval row (`rows`: `agg_eval_<exp>.json`, written by
//!   InferenceX's `utils/collect_eval_results.py`) against the lm-eval
//!   results file it was built from (`scores`). The row names that file in
//!   `source` (`str(path)` under the collector's root: `eval_results/
//!   <artifact>/<file>`, or `eval_results/<file>` when one artifact was
//!   downloaded flat); a row without `source` is linked through the
//!   `meta_env.json` (`meta`) beside each results file, by the row's model
//!   prefix, hardware, framework, precision, spec method, tp, ep, ISL/OSL
//!   and concurrency (a batched file's `_conc<N>` suffix, as the collector
//!   reads it). The row's `em_strict` is the file's `<metric>,<filter>` with
//!   `strict` in the filter and `em_flexible` the one with `flex` or
//!   `extract` (strict first), `<metric>` the first of the task's
//!   `configs.<task>.metric_list` else `exact_match`: collect_eval_results.py
//!   `extract_lm_metrics`. `score` is compared where `score_name` is
//!   `em_strict`.
//! - Two results files of one point (one artifact, one concurrency), and
//!   two copies of one file (a zip and its extracted folder), per task,
//!   metric and filter.
//! - Two rows naming one `source` (two aggregates, or copies of one).
//!
//! Only results files are documents here (`results*.json`, validate_scores.
//! py's glob): lm-eval's printed table and CI's PASS/FAIL lines round to
//! four places and say nothing a results file does not.

use crate::check::judge::{Ctx, MAX_CITES, cited};
use crate::check::run_id::run_of_artifact;
use crate::check::{Check, Cited, Status, Verdict};
use crate::domain::Evidence;
use serde_json::Value;
use std::collections::HashMap;

/// `expect = { agree = { rows = RULE, scores = RULE, meta = RULE } }`.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Agree {
    /// Aggregated eval rows (`task`, `source`, `em_strict`, ...).
    pub(crate) rows: String,
    /// lm-eval metric records (`task`, `metric`, `filter`, `value`).
    pub(crate) scores: String,
    /// The eval job's `meta_env.json` beside its results files.
    pub(crate) meta: String,
}

impl Agree {
    /// Every rule it reads, with the captures it reads of each.
    pub(crate) fn references(&self) -> Vec<(&str, Vec<&str>)> {
        let row = [
            "task",
            "source",
            "em_strict",
            "em_flexible",
            "score",
            "score_name",
            "conc",
        ];
        vec![
            (self.rows.as_str(), row.into_iter().chain(CONFIG).collect()),
            (
                self.scores.as_str(),
                vec!["task", "metric", "filter", "value", "declared"],
            ),
            (
                self.meta.as_str(),
                std::iter::once("conc").chain(CONFIG).collect(),
            ),
        ]
    }
}

/// The configuration a row and a meta_env.json both record (compared
/// where both hold a value, as text ignoring case: the collector
/// upper-cases `hw` and lower-cases framework and precision).
const CONFIG: [&str; 9] = [
    "prefix",
    "hw",
    "framework",
    "precision",
    "spec_decoding",
    "tp",
    "ep",
    "isl",
    "osl",
];

pub(crate) fn parse(p: &toml::Table) -> Result<Agree, String> {
    if let Some(k) = p
        .keys()
        .find(|k| !["rows", "scores", "meta"].contains(&k.as_str()))
    {
        return Err(format!("agree: unknown key {k:?} (rows, scores, meta)"));
    }
    let rule = |k: &str| -> Result<String, String> {
        p.get(k)
            .and_then(toml::Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| format!("agree needs `{k}`, a rule id"))
    };
    Ok(Agree {
        rows: rule("rows")?,
        scores: rule("scores")?,
        meta: rule("meta")?,
    })
}

/// Two scores are one where they are the same number: the collector
/// `json.dump`s the float it read, whose text round-trips, so only a
/// rewritten text (`0.97` as `9.7e-1`, `0.9700000000000001`) may differ,
/// and by far less than any score's precision.
fn same_number(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn text(r: &Evidence, k: &str) -> Option<String> {
    match r.captures.as_ref()?.get(k)? {
        Value::Null => None,
        Value::String(s) if s.trim().is_empty() => None,
        Value::String(s) => Some(s.trim().to_string()),
        v => Some(v.to_string()),
    }
}

fn number(r: &Evidence, k: &str) -> Option<f64> {
    r.captures
        .as_ref()?
        .get(k)?
        .as_f64()
        .filter(|v| v.is_finite())
}

/// Every component of where a record lies: the path's, then each member's.
fn parts(r: &Evidence) -> Vec<&str> {
    r.location
        .path
        .split('/')
        .chain(r.location.members.iter().flat_map(|m| m.split('/')))
        .filter(|p| !p.is_empty() && *p != ".")
        .collect()
}

/// The artifact (as walked) a record lies in.
fn unit_of<'a>(cx: &'a Ctx, r: &'a Evidence) -> &'a str {
    cx.scope.artifact_of(&r.location.path)
}

/// The batched eval's concurrency in a results file's name, as
/// collect_eval_results.py's `_conc(\d+)(?:_\d+)?\.json$` reads it (a
/// `_2` after it is a retry of the same concurrency).
fn conc_of(file: &str) -> Option<u64> {
    let stem = file.strip_suffix(".json")?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let at = stem.rfind("_conc")?;
    let tail = &stem[at + 5..];
    let n = match tail.split_once('_') {
        Some((n, retry)) if digits(retry) => n,
        Some(_) => return None,
        None => tail,
    };
    if digits(n) { n.parse().ok() } else { None }
}

/// One metric of one results file.
struct Doc<'a> {
    r: &'a Evidence,
    run: String,
    /// The folder (or archive, suffix dropped) holding the file: the eval
    /// artifact's name, the same for a zip and its extracted copy.
    artifact: String,
    file: String,
    /// Where the file lies, for the meta_env.json beside it.
    dir: Vec<String>,
    conc: Option<u64>,
    task: String,
    metric: String,
    filter: String,
    value: f64,
    /// The task's base metric: the first of its declared metric_list.
    base: String,
}

/// Which filter a row field stands for (extract_lm_metrics: a filter
/// with `strict` is em_strict, else one with `flex` or `extract` is
/// em_flexible).
fn filter_is(field: &str, filter: &str) -> bool {
    let strict = filter.contains("strict");
    match field {
        "em_flexible" => !strict && (filter.contains("flex") || filter.contains("extract")),
        _ => strict,
    }
}

use super::Finding;

/// One eval point's metric: run, artifact, concurrency, task, metric, filter.
type PointKey = (String, String, Option<u64>, String, String, String);

fn docs_of<'a>(cx: &'a Ctx, a: &Agree) -> Vec<Doc<'a>> {
    let mut out = Vec::new();
    for r in cx.scope.records_of(&a.scores) {
        let p = parts(r);
        let Some((file, dirs)) = p.split_last() else {
            continue;
        };
        if !(file.starts_with("results") && file.ends_with(".json")) {
            continue;
        }
        let (Some(task), Some(metric), Some(filter), Some(value)) = (
            text(r, "task"),
            text(r, "metric"),
            text(r, "filter"),
            number(r, "value"),
        ) else {
            continue;
        };
        if metric.contains("stderr") {
            continue;
        }
        let base = r
            .captures
            .as_ref()
            .and_then(|c| c.get("declared"))
            .and_then(Value::as_array)
            .and_then(|d| {
                d.iter()
                    .filter_map(Value::as_str)
                    .find(|m| !m.is_empty())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "exact_match".into());
        out.push(Doc {
            r,
            run: run_of_artifact(unit_of(cx, r)),
            artifact: dirs
                .last()
                .map_or(String::new(), |d| crate::names::stem(d).to_string()),
            file: file.to_string(),
            dir: dirs.iter().map(|d| d.to_string()).collect(),
            conc: conc_of(file),
            task,
            metric,
            filter,
            value,
            base,
        });
    }
    out
}

/// Names the records' places and values in a finding.
fn differs(what: &str, a: (f64, &Evidence, &str), b: (f64, &Evidence, &str)) -> Finding {
    (
        format!(
            "{what} disagree: {} at {} ({}), {} at {} ({})",
            a.0, a.1.citation, a.2, b.0, b.1.citation, b.2
        ),
        vec![cited(a.1), cited(b.1)],
    )
}

impl Check {
    pub(in crate::check) fn judge_agree(&self, v: &mut Verdict, cx: &Ctx, a: &Agree) {
        let docs = docs_of(cx, a);
        let rows: Vec<&Evidence> = cx
            .scope
            .records_of(&a.rows)
            .filter(|r| text(r, "task").is_some())
            .collect();
        let metas: Vec<(Vec<String>, &Evidence)> = cx
            .scope
            .records_of(&a.meta)
            .map(|r| {
                let p = parts(r);
                let dir = p[..p.len().saturating_sub(1)]
                    .iter()
                    .map(|d| d.to_string())
                    .collect();
                (dir, r)
            })
            .collect();
        let mut fails: Vec<Finding> = Vec::new();
        let mut unknowns: Vec<Finding> = Vec::new();
        let mut compared = 0usize;
        let mut agreeing: Vec<Cited> = Vec::new();
        let mut unlinked: Vec<String> = Vec::new();

        // Two documents (or copies) of one point: one artifact, one
        // concurrency, one task, metric and filter.
        let mut points: HashMap<PointKey, &Doc> = HashMap::new();
        let mut split_points: Vec<PointKey> = Vec::new();
        for d in &docs {
            let key = (
                d.run.clone(),
                d.artifact.clone(),
                d.conc,
                d.task.clone(),
                d.metric.clone(),
                d.filter.clone(),
            );
            match points.get(&key) {
                None => {
                    points.insert(key, d);
                }
                Some(first) => {
                    compared += 1;
                    if same_number(first.value, d.value) {
                        if agreeing.len() < MAX_CITES {
                            agreeing.push(cited(d.r));
                        }
                    } else if !split_points.contains(&key) {
                        split_points.push(key);
                        fails.push(differs(
                            &format!(
                                "two results files of one eval point ({} {},{} in {})",
                                d.task, d.metric, d.filter, d.artifact
                            ),
                            (first.value, first.r, "results file"),
                            (d.value, d.r, "results file"),
                        ));
                    }
                }
            }
        }

        // Two rows naming one results file.
        let mut by_source: HashMap<(String, String, String), &Evidence> = HashMap::new();
        for r in &rows {
            let (Some(src), Some(task)) = (text(r, "source"), text(r, "task")) else {
                continue;
            };
            let run = run_of_artifact(unit_of(cx, r));
            match by_source.get(&(run.clone(), src.clone(), task.clone())) {
                None => {
                    by_source.insert((run, src, task), r);
                }
                Some(first) => {
                    for f in ["em_strict", "em_flexible", "score"] {
                        if let (Some(x), Some(y)) = (number(first, f), number(r, f)) {
                            compared += 1;
                            if !same_number(x, y) {
                                fails.push(differs(
                                    &format!("two eval rows of {src} ({task} {f})"),
                                    (x, first, "eval row"),
                                    (y, r, "eval row"),
                                ));
                            }
                        }
                    }
                }
            }
        }

        // Each row against the results file it was built from.
        for row in &rows {
            let task = text(row, "task").unwrap_or_default();
            let run = run_of_artifact(unit_of(cx, row));
            let of_task: Vec<&Doc> = docs
                .iter()
                .filter(|d| d.run == run && d.task == task)
                .collect();
            let linked: Vec<&Doc> = match text(row, "source") {
                Some(src) => {
                    let s: Vec<&str> = src
                        .split(['/', '\\'])
                        .filter(|p| !p.is_empty() && *p != ".")
                        .collect();
                    let file = s.last().copied().unwrap_or_default();
                    let folder = s.len().checked_sub(2).map(|i| crate::names::stem(s[i]));
                    let exact: Vec<&Doc> = of_task
                        .iter()
                        .copied()
                        .filter(|d| d.file == file && folder == Some(d.artifact.as_str()))
                        .collect();
                    if !exact.is_empty() {
                        exact
                    } else {
                        // One artifact downloaded flat (`eval_results/<file>`):
                        // the file's name alone, where one artifact has it.
                        let by_name: Vec<&Doc> =
                            of_task.iter().copied().filter(|d| d.file == file).collect();
                        let mut arts: Vec<&str> =
                            by_name.iter().map(|d| d.artifact.as_str()).collect();
                        arts.sort_unstable();
                        arts.dedup();
                        if arts.len() == 1 { by_name } else { Vec::new() }
                    }
                }
                None => of_task
                    .iter()
                    .copied()
                    .filter(|d| {
                        let Some((_, m)) = metas.iter().find(|(dir, _)| *dir == d.dir) else {
                            return false;
                        };
                        let conc_ok = match (text(row, "conc"), d.conc) {
                            (Some(rc), Some(dc)) => rc == dc.to_string(),
                            (Some(rc), None) => text(m, "conc").is_none_or(|mc| mc == rc),
                            (None, _) => true,
                        };
                        conc_ok
                            && CONFIG.iter().all(|k| match (text(row, k), text(m, k)) {
                                (Some(x), Some(y)) => {
                                    let held = |t: &str| !t.eq_ignore_ascii_case("unknown");
                                    !(held(&x) && held(&y)) || x.eq_ignore_ascii_case(&y)
                                }
                                _ => true,
                            })
                    })
                    .collect(),
            };
            if linked.is_empty() {
                unlinked.push(row.citation.to_string());
                continue;
            }
            let mut arts: Vec<(&str, Option<u64>)> = linked
                .iter()
                .map(|d| (d.artifact.as_str(), d.conc))
                .collect();
            arts.sort();
            arts.dedup();
            let one_point = arts.len() == 1;
            let mut fields = vec!["em_strict", "em_flexible"];
            if text(row, "score_name").as_deref() == Some("em_strict") {
                fields.push("score");
            }
            for f in fields {
                let Some(rv) = number(row, f) else {
                    continue;
                };
                let want = if f == "score" { "em_strict" } else { f };
                let cands: Vec<&Doc> = linked
                    .iter()
                    .copied()
                    .filter(|d| d.metric == d.base && filter_is(want, &d.filter))
                    .collect();
                if cands.is_empty() {
                    unknowns.push((
                        format!(
                            "{task} {f} {rv} at {} (eval row): its results file {} holds no {} metric of a {} filter to compare with",
                            row.citation,
                            linked[0].r.citation,
                            linked[0].base,
                            if want == "em_strict" { "strict" } else { "flexible" }
                        ),
                        vec![cited(row), cited(linked[0].r)],
                    ));
                    continue;
                }
                compared += 1;
                if let Some(d) = cands.iter().find(|d| same_number(d.value, rv)) {
                    if agreeing.len() < MAX_CITES {
                        agreeing.push(cited(d.r));
                    }
                    continue;
                }
                let d = cands[0];
                if one_point {
                    fails.push(differs(
                        &format!("{task} {f} of the eval row and its results file"),
                        (rv, row, "eval row"),
                        (
                            d.value,
                            d.r,
                            &format!("{},{} of the results file", d.metric, d.filter),
                        ),
                    ));
                } else {
                    unknowns.push((
                        format!(
                            "{task} {f} {rv} at {} (eval row, no source) equals no results file of its configuration ({} points, e.g. {} at {}): which one it was built from cannot be told",
                            row.citation,
                            arts.len(),
                            d.value,
                            d.r.citation
                        ),
                        vec![cited(row), cited(d.r)],
                    ));
                }
            }
        }

        if !unlinked.is_empty() {
            v.observed.insert(
                "rows_without_their_results_file".into(),
                Value::from(unlinked.iter().take(MAX_CITES).cloned().collect::<Vec<_>>()),
            );
        }
        let not_linked = if unlinked.is_empty() {
            String::new()
        } else {
            format!(
                "; {} eval row(s) without their results file in the download, not compared (e.g. {})",
                unlinked.len(),
                unlinked[0]
            )
        };
        if super::fail_or_unknown(v, cx, &fails, &unknowns) {
            return;
        }
        if compared == 0 {
            let what = format!(
                "no eval is reported by two documents here ({} eval row(s), {} results-file metric(s)): nothing to compare{not_linked}",
                rows.len(),
                docs.len()
            );
            v.evidence.clear();
            if cx.complete() {
                v.status = Status::NotApplicable;
                v.reason = what;
            } else {
                cx.unread(v, what);
            }
        } else {
            v.status = Status::Pass;
            v.reason = format!(
                "{compared} score(s) reported by two documents agree (eval rows and the results files they were built from, results files of one point){not_linked}"
            );
            v.evidence = agreeing;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conc_suffix_as_the_collector_reads_it() {
        // collect_eval_results.py's test_result_readers_parse_concurrency_suffixes
        for (name, want) in [
            ("results_conc16.json", Some(16)),
            ("results_conc16_2.json", Some(16)),
            ("results_conc0004.json", Some(4)),
            ("results_conc4_conc16_2.json", Some(16)),
            ("results_conc-4.json", None),
            ("results_conc4_extra.json", None),
            ("results_conc4.json.bak", None),
            ("results_conc4_2_3.json", None),
            ("results.json", None),
        ] {
            assert_eq!(conc_of(name), want, "{name}");
        }
    }

    #[test]
    fn filters_of_a_row_field_and_number_formatting() {
        assert!(filter_is("em_strict", "strict-match"));
        assert!(filter_is("em_flexible", "flexible-extract"));
        assert!(!filter_is("em_flexible", "strict-extract"));
        assert!(!filter_is("em_strict", "none"));
        assert!(same_number(0.97, 0.9700000000000001));
        assert!(!same_number(0.9773, 0.9772554965883244));
    }
}
