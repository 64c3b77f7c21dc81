//! `expect = { pareto = ... }` (the verifier's Check 14): measured
//! frontier points per curve, as InferenceX's
//! `infx/workflows/pareto_coverage.py` counts them (a point is on the
//! frontier when no other point of its curve has both a lower x and a
//! higher y; identical coordinates count once) and the prompt asks:
//! at least `min` per curve. Curves are keyed on what each result records
//! (the `curve` captures); runs are kept apart by the check's run scope.
//! Points that are no points (missing, not finite, not positive) make the
//! answer unverifiable, kept apart from a short count; points that are no
//! valid measurement are left out and listed.
//!
//! Written once here, after the CI files each rule follows:
//! - frontier, identical coordinates once, invalid points:
//!   `inferencex-e2e/infx/workflows/pareto_coverage.py` (`assess_curve`);
//! - one curve per app series, never pooling runs, percentiles or images:
//!   `.github/codeowner-signoff-verify-prompt.md` Check 14 (its helper key
//!   `<model/scenario/hwKey/precision/run/percentile/image>`, built by
//!   [`helper_key`]); a curve is also kept per run (`run_id.rs`);
//! - the same result read twice (an artifact's zip and its extracted copy,
//!   a `server_logs_` twin of a `bmk_` artifact) is one point: the prompt's
//!   "Deduplicate identical coordinates" and "Require raw measured result
//!   evidence"; a copy whose values differ from its zip leaves the curve
//!   unverifiable (which one the app shows cannot be told);
//! - points left out and listed (too many failed requests, as
//!   `validate_agentic_result.py` decides; a server crash inside the
//!   measurement window, as `window.rs` places it): `left_out.rs`.

use super::left_out;
use crate::check::judge::{Ctx, MAX_CITES, cited};
use crate::check::run_id::run_of_artifact;
use crate::check::{Check, Pareto, Status, Verdict};
use crate::domain::Evidence;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};

/// Left-out points named in a reason.
const MAX_LISTED: usize = 5;

impl Check {
    pub(in crate::check) fn judge_pareto(
        &self,
        v: &mut Verdict,
        cx: &Ctx,
        m: &[&Evidence],
        p: &Pareto,
    ) {
        let num = |r: &Evidence, k: &str| {
            r.captures
                .as_ref()
                .and_then(|c| c.get(k))
                .and_then(Value::as_f64)
                .filter(|f| f.is_finite() && *f > 0.0)
        };
        let mut curves: BTreeMap<String, Vec<(f64, f64, &Evidence)>> = BTreeMap::new();
        let mut invalid = Vec::new();
        let mut partial: Vec<(&Evidence, String)> = Vec::new();
        let mut crashed: Vec<(&Evidence, String)> = Vec::new();
        let (m, differing) = one_copy_each(cx, m);
        let mut invalid_by_curve: BTreeMap<String, Vec<&Evidence>> = BTreeMap::new();
        let runs: Vec<String> = {
            let mut r: Vec<String> = m.iter().map(|e| run_of(cx, e)).collect();
            r.sort();
            r.dedup();
            r
        };
        // Points that are no valid evidence are left out and listed, with
        // any other record of the same run at the same coordinates (the
        // run's `agg_*.json` row of the same point).
        let spoiled = left_out::spoiled_points(cx.scope);
        let coords = |r: &Evidence| {
            num(r, &p.x)
                .zip(num(r, &p.y))
                .map(|(x, y)| (x.to_bits(), y.to_bits()))
        };
        // A `_high` folder that is one sweep with its sibling draws one
        // curve with it: its run is the sibling's from here on.
        let (sweep, sweep_said) = sweeps(cx, &m, &runs, coords);
        let sweep_note: String = sweep_said.iter().map(|n| format!("; {n}")).collect();
        let run_of = |cx: &Ctx, r: &Evidence| {
            let run = run_of(cx, r);
            sweep.get(&run).cloned().unwrap_or(run)
        };
        let curve_runs = runs
            .iter()
            .filter(|r| !sweep.contains_key(r.as_str()))
            .count();
        let mut dropped: HashSet<(String, u64, u64)> = HashSet::new();
        for r in &m {
            let (_, stem, _) = copy_key(cx, r);
            let run = run_of(cx, r);
            let why = if let Some(why) = left_out::failed_requests(r) {
                partial.push((*r, why));
                true
            } else if let Some(c) = spoiled.get(&(run_of_artifact(unit_of(cx, r)), stem)) {
                crashed.push((*r, left_out::crash_reason(c)));
                true
            } else {
                false
            };
            if why && let Some((x, y)) = coords(r) {
                dropped.insert((run, x, y));
            }
        }
        let out: HashSet<*const Evidence> = partial
            .iter()
            .chain(&crashed)
            .map(|(r, _)| *r as *const Evidence)
            .collect();
        for r in &m {
            if out.contains(&(*r as *const Evidence)) {
                continue;
            }
            if let Some((x, y)) = coords(r)
                && dropped.contains(&(run_of(cx, r), x, y))
            {
                continue;
            }
            let key: Vec<String> = p
                .curve
                .iter()
                .map(|k| {
                    let val = r.captures.as_ref().and_then(|c| c.get(k));
                    let text = val.map_or("(none)".to_string(), |v| match v {
                        Value::String(s) => s.clone(),
                        other => other.to_string(),
                    });
                    format!("{k}={text}")
                })
                .collect();
            // Runs are never pooled (the prompt: "Never pool ... run/date
            // selection"): with several runs in scope each has its curves.
            let mut key = key;
            if curve_runs > 1 {
                key.insert(0, format!("run={}", run_of(cx, r)));
            }
            let entry = curves.entry(key.join(", ")).or_default();
            match (num(r, &p.x), num(r, &p.y)) {
                (Some(x), Some(y)) => entry.push((x, y, r)),
                _ => {
                    invalid.push(*r);
                    invalid_by_curve.entry(key.join(", ")).or_default().push(*r);
                }
            }
        }
        // `observed` values are lists (the output schema): one entry per curve.
        let mut counts = Vec::new();
        let mut short = Vec::new();
        let mut frontier_cites = Vec::new();
        for (curve, pts) in &mut curves {
            pts.sort_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
            pts.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
            let mut best = f64::NEG_INFINITY;
            let mut kept: Vec<&Evidence> = Vec::new();
            let mut last_x = None;
            for &(x, y, r) in pts.iter() {
                if y > best || (y == best && last_x != Some(x)) {
                    kept.push(r);
                    best = y;
                    last_x = Some(x);
                }
            }
            let n = kept.len() as u64;
            let first = pts.first().map(|p| p.2);
            let bad = invalid_by_curve
                .get(curve.as_str())
                .map_or(&[][..], Vec::as_slice);
            counts.push(helper_entry(cx, p, curve, first, pts, bad, n));
            if n < p.min {
                short.push(format!("{curve}: {n}/{} ({} measured)", p.min, pts.len()));
            }
            frontier_cites.extend(kept.into_iter().map(cited));
        }
        v.observed.insert("curves".into(), Value::Array(counts));
        if !sweep_said.is_empty() {
            v.observed.insert("sweeps".into(), json!(sweep_said));
        }
        v.evidence = frontier_cites.into_iter().take(MAX_CITES).collect();
        let invalid_note = if invalid.is_empty() {
            String::new()
        } else {
            format!(
                "; {} record(s) without a finite positive {} and {} are invalid evidence, not points (first: {})",
                invalid.len(),
                p.x,
                p.y,
                invalid[0].citation
            )
        };
        let partial_note = format!(
            "{}{}",
            listed("left out, too many failed requests", &partial),
            listed(
                "left out, the server crashed while it was measured",
                &crashed
            )
        );
        let copy_note = if differing.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = differing
                .iter()
                .take(MAX_LISTED)
                .map(|(copy, kept)| format!("{} differs from {}", copy.citation, kept.citation))
                .collect();
            format!(
                "; the same result read twice with different values (a copy edited after download?): {}{}",
                list.join(", "),
                if differing.len() > MAX_LISTED {
                    format!(" and {} more", differing.len() - MAX_LISTED)
                } else {
                    String::new()
                }
            )
        };
        let partial_note = format!("{partial_note}{copy_note}{sweep_note}");
        if curves.is_empty() {
            self.nothing_found(v, cx);
            v.reason.push_str(&invalid_note);
            v.reason.push_str(&partial_note);
            return;
        }
        let what = if short.is_empty() {
            format!(
                "every curve has at least {} frontier points: {}{invalid_note}",
                p.min,
                curves
                    .iter()
                    .map(|(c, pts)| format!("{c} ({} measured)", pts.len()))
                    .collect::<Vec<_>>()
                    .join("; ")
            )
        } else {
            format!(
                "{} of {} curve(s) have fewer than {} frontier points: {}{invalid_note}",
                short.len(),
                curves.len(),
                p.min,
                short.join("; ")
            )
        };
        let what = format!("{what}{partial_note}");
        if !cx.complete() {
            return cx.unread(v, what);
        }
        v.status = if !short.is_empty() {
            Status::Fail
        } else if !invalid.is_empty() || !differing.is_empty() {
            // Records that are no points (NaN, negative, a string, null)
            // leave the curve unverifiable, apart from a short count.
            Status::Unknown
        } else {
            Status::Pass
        };
        v.reason = if v.status == Status::Unknown {
            format!("unverifiable: {what}")
        } else {
            what
        };
    }
}

/// The `_high` folders among `runs` whose every point is a row of their
/// sibling's `agg_*.json` (the sibling's aggregation took the whole
/// sweep in): each mapped to the sibling, and per `_high` folder a
/// sentence saying whether it drew one curve with it or was judged apart
/// (and why).
fn sweeps(
    cx: &Ctx,
    m: &[&Evidence],
    runs: &[String],
    coords: impl Fn(&Evidence) -> Option<(u64, u64)>,
) -> (HashMap<String, String>, Vec<String>) {
    let mut alias = HashMap::new();
    let mut notes = Vec::new();
    for run in runs {
        let mut base = run.as_str();
        while let Some(b) = base
            .strip_suffix("_high")
            .filter(|b| runs.iter().any(|r| r == b))
        {
            base = b;
        }
        if base == run {
            continue;
        }
        let rows: HashSet<(u64, u64)> = m
            .iter()
            .filter(|r| run_of(cx, r) == base && in_aggregate(r))
            .filter_map(|r| coords(r))
            .collect();
        let points: Vec<(u64, u64)> = m
            .iter()
            .filter(|r| run_of(cx, r) == *run)
            .filter_map(|r| coords(r))
            .collect();
        let apart = points.iter().filter(|p| !rows.contains(p)).count();
        if !points.is_empty() && apart == 0 {
            alias.insert(run.clone(), base.to_string());
            notes.push(format!(
                "{run} is one sweep with {base} (its {} point(s) are rows of {base}'s agg_*.json): one curve",
                points.len()
            ));
        } else {
            notes.push(format!(
                "{run} is judged apart from {base}: {apart} of its {} point(s) are not rows of {base}'s agg_*.json",
                points.len()
            ));
        }
    }
    (alias, notes)
}

/// Whether a record lies in an aggregated results file (`agg_bmk.json`).
fn in_aggregate(r: &Evidence) -> bool {
    let file = r
        .location
        .members
        .last()
        .map(String::as_str)
        .unwrap_or(&r.location.path);
    let name = file.rsplit('/').next().unwrap_or(file);
    name.starts_with("agg_") && name.ends_with(".json")
}

/// `; <what>: <citation> (<why>), ...` for the points left out, or nothing.
fn listed(what: &str, points: &[(&Evidence, String)]) -> String {
    if points.is_empty() {
        return String::new();
    }
    let list: Vec<String> = points
        .iter()
        .take(MAX_LISTED)
        .map(|(r, why)| format!("{} ({why})", r.citation))
        .collect();
    let more = if points.len() > MAX_LISTED {
        format!(" and {} more", points.len() - MAX_LISTED)
    } else {
        String::new()
    };
    format!("; {what}: {}{more}", list.join(", "))
}

/// The run of a record: the folder that holds its artifact (`run_id.rs`).
fn run_of(cx: &Ctx, r: &Evidence) -> String {
    run_of_artifact(unit_of(cx, r))
}

/// The artifact (as walked) a record lies in.
fn unit_of<'a>(cx: &'a Ctx, r: &'a Evidence) -> &'a str {
    cx.scope.artifact_of(&r.location.path)
}

/// Where a result lies, the same for its copies: the run, the artifact's
/// name without archive suffix or kind prefix (`bmk_`, `server_logs_`,
/// `agentic_`: a `server_logs_<RF>` holding `bmk_<RF>`'s result is its
/// twin), the file inside the artifact, and the record's order in it.
fn copy_key(cx: &Ctx, r: &Evidence) -> (String, String, String) {
    let unit = unit_of(cx, r);
    let (run, stem) = point_of_unit(unit);
    let path: &str = &r.location.path;
    let mut inside: Vec<&str> = Vec::new();
    if let Some(rest) = path.strip_prefix(unit).and_then(|p| p.strip_prefix('/')) {
        inside.push(rest);
    }
    inside.extend(r.location.members.iter().map(String::as_str));
    (run, stem, inside.join("!"))
}

/// The point an artifact belongs to: its run, and its name without
/// archive suffix or kind prefix (`bmk_agentic_<stem>`, `agentic_<stem>`
/// and `server_logs_<stem>` are one point's).
pub(super) fn point_of_unit(unit: &str) -> (String, String) {
    let base = unit.rsplit('/').next().unwrap_or(unit);
    let mut stem = crate::names::stem(base);
    while let Some(rest) = ["bmk_", "server_logs_", "agentic_"]
        .iter()
        .find_map(|p| stem.strip_prefix(p))
    {
        stem = rest;
    }
    (run_of_artifact(unit), stem.to_string())
}

/// One record per result however often the download holds it; with the
/// copies whose values differ from the one kept (an archive's record is
/// kept: the extracted folder is the copy).
fn one_copy_each<'a>(
    cx: &Ctx,
    m: &[&'a Evidence],
) -> (Vec<&'a Evidence>, Vec<(&'a Evidence, &'a Evidence)>) {
    // The n-th record of a file is the n-th of its copy.
    let mut nth: HashMap<(String, String, String, String), usize> = HashMap::new();
    let mut slot: HashMap<(String, String, String, usize), usize> = HashMap::new();
    let mut kept: Vec<&'a Evidence> = Vec::new();
    let mut differing = Vec::new();
    for r in m {
        let (run, stem, inside) = copy_key(cx, r);
        let unit = unit_of(cx, r).to_string();
        let n = nth
            .entry((unit, run.clone(), stem.clone(), inside.clone()))
            .or_default();
        let key = (run, stem, inside, *n);
        *n += 1;
        match slot.get(&key) {
            None => {
                slot.insert(key, kept.len());
                kept.push(r);
            }
            Some(&i) => {
                let first = kept[i];
                let archive = |e: &Evidence| !e.location.members.is_empty();
                let (copy, orig) = if archive(r) && !archive(first) {
                    kept[i] = r;
                    (first, *r)
                } else {
                    (*r, first)
                };
                if copy.captures != orig.captures {
                    differing.push((copy, orig));
                }
            }
        }
    }
    (kept, differing)
}

/// The key `pareto_coverage.py` takes for a curve, as the prompt's Check 14
/// spells it: `<model/scenario/hwKey/precision/run/percentile/image>`.
/// scenario: AgentX's `scenario_type`, else ISL/OSL as the app names them
/// (`1k1k`, `8k1k`); hwKey: hardware and framework, and for fixed-sequence
/// curves the speculative method (the app keeps them apart).
fn helper_key(r: &Evidence, x: &str, run: &str) -> (String, String, String) {
    let cap = |k: &str| -> String {
        match r.captures.as_ref().and_then(|c| c.get(k)) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Null) | None => String::new(),
            Some(v) => v.to_string(),
        }
    };
    let scenario = match cap("scenario_type") {
        s if !s.is_empty() => s,
        _ => {
            let k = |n: String| match n.parse::<u64>() {
                Ok(v) if v >= 1024 && v % 1024 == 0 => format!("{}k", v / 1024),
                _ => n,
            };
            format!("{}{}", k(cap("isl")), k(cap("osl")))
        }
    };
    let mut hw_key = format!("{}_{}", cap("hw"), cap("framework")).to_lowercase();
    let spec = cap("spec_decoding");
    if cap("scenario_type").is_empty() && !spec.is_empty() && spec != "none" {
        hw_key = format!("{hw_key}_{spec}");
    }
    let percentile = match x {
        "median_e2el" => "p50".to_string(),
        other => other.strip_suffix("_e2el").unwrap_or(other).to_string(),
    };
    let image = cap("image");
    (
        format!(
            "{}/{scenario}/{hw_key}/{}/{run}/{percentile}/{image}",
            cap("model"),
            cap("precision")
        ),
        percentile,
        image,
    )
}

/// A curve's entry in `observed.curves`: its counts, and what the
/// verifier's helper takes (`key`, `points`) with the run, image,
/// percentile and the points' citations.
fn helper_entry(
    cx: &Ctx,
    p: &Pareto,
    curve: &str,
    first: Option<&Evidence>,
    pts: &[(f64, f64, &Evidence)],
    bad: &[&Evidence],
    frontier: u64,
) -> Value {
    let any = first.or(bad.first().copied());
    let run = any.map(|r| run_of(cx, r)).unwrap_or_default();
    let (key, percentile, image) = any.map_or_else(Default::default, |r| helper_key(r, &p.x, &run));
    let raw = |r: &Evidence, k: &str| {
        r.captures
            .as_ref()
            .and_then(|c| c.get(k))
            .cloned()
            .unwrap_or(Value::Null)
    };
    let points: Vec<Value> = pts
        .iter()
        .map(|(x, y, _)| json!({"x": x, "y": y}))
        .chain(
            bad.iter()
                .map(|r| json!({"x": raw(r, &p.x), "y": raw(r, &p.y)})),
        )
        .collect();
    let citations: Vec<String> = pts
        .iter()
        .map(|(_, _, r)| r.citation.to_string())
        .chain(bad.iter().map(|r| r.citation.to_string()))
        .collect();
    json!({
        "curve": curve,
        "frontier": frontier,
        "measured": pts.len(),
        "key": key,
        "run": run,
        "image": image,
        "percentile": percentile,
        "points": points,
        "citations": citations,
    })
}
