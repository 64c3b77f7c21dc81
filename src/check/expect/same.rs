//! `expect = { same = ... }` (the verifier's Check 2: "the run used the
//! same inference-engine image as this PR's config"): each `left` record's
//! `capture` equals the one value the `right` records of its configuration
//! hold, and the value `--param <capture>` gives (the PR's image, which the
//! verifier reads from the diff), on both sides. With `compare = "image"`
//! values are compared as Docker resolves references (`check/image.rs`):
//! `docker.io/x/y:t` is `x/y:t`; a digest against a tag is unknown.

use crate::check::image::{self, Cmp};
use crate::check::judge::{Ctx, cited};
use crate::check::{Check, Same, Status, Verdict};
use crate::domain::Evidence;
use serde_json::Value;

/// Configurations listed in `observed`.
const MAX_CONFIGS: usize = 20;

use super::Finding;

/// Whether a folder or archive in the record's path is named like a glob of
/// `left_in` (the artifact the record lies in: `eval_gsm8k_<exp>/config.yaml`).
fn in_left_artifact(r: &Evidence, globs: &globset::GlobSet) -> bool {
    std::iter::once(r.location.path.as_ref())
        .chain(r.location.members.iter().map(String::as_str))
        .flat_map(|p| p.split('/'))
        .any(|part| globs.is_match(part))
}

impl Check {
    pub(in crate::check) fn judge_same(&self, v: &mut Verdict, cx: &Ctx, s: &Same) {
        let text = |x: &Value| match x {
            Value::String(t) => t.clone(),
            other => other.to_string(),
        };
        let get = |r: &Evidence, k: &str| -> Option<String> {
            let x = r.captures.as_ref()?.get(k)?;
            if x.is_null() {
                return None;
            }
            let t = text(x);
            (!t.trim().is_empty() && !s.absent.iter().any(|a| a.eq_ignore_ascii_case(t.trim())))
                .then_some(t)
        };
        // Values compared as the capture is: image references as Docker
        // resolves them, anything else as text.
        let canon = |t: &str| -> String {
            if s.images {
                image::parse(t).map_or_else(|| t.to_string(), |r| r.canonical())
            } else {
                t.to_string()
            }
        };
        let cmp = |a: &str, b: &str| -> Cmp {
            if s.images {
                image::compare(a, b)
            } else if a == b {
                Cmp::Same
            } else {
                Cmp::Differ
            }
        };
        let cap = s.capture.as_str();
        let config = |r: &Evidence| -> String {
            let parts: Vec<String> =
                s.by.iter()
                    .filter_map(|k| Some(format!("{k}={}", get(r, k)?)))
                    .collect();
            if parts.is_empty() {
                "no configuration fields".into()
            } else {
                parts.join(", ")
            }
        };
        let same_config = |a: &Evidence, b: &Evidence| {
            s.by.iter().all(|k| match (get(a, k), get(b, k)) {
                (Some(x), Some(y)) => x.to_lowercase() == y.to_lowercase(),
                _ => true,
            })
        };
        let left_in = crate::member_glob::glob_set(&s.left_in).ok().flatten();
        let is_left = |r: &Evidence| {
            s.left.contains(&r.rule)
                && (!s.right.contains(&r.rule)
                    || left_in.as_ref().is_none_or(|g| in_left_artifact(r, g)))
        };
        let is_right = |r: &Evidence| {
            s.right.contains(&r.rule)
                && (!s.left.contains(&r.rule)
                    || left_in.as_ref().is_some_and(|g| !in_left_artifact(r, g)))
        };
        let left: Vec<&Evidence> = cx.scope.records().filter(|r| is_left(r)).collect();
        let right: Vec<&Evidence> = cx
            .scope
            .records()
            .filter(|r| is_right(r) && get(r, cap).is_some())
            .collect();
        // The PR's value (`--param image=REF`), from its diff.
        let pr = cx
            .params
            .0
            .get(cap)
            .map(text)
            .filter(|t| !t.trim().is_empty());
        let (held, unheld): (Vec<&Evidence>, Vec<&Evidence>) =
            left.iter().partition(|r| get(r, cap).is_some());
        let mut fails: Vec<Finding> = Vec::new();
        let mut unknowns: Vec<Finding> = Vec::new();
        let mut passes: Vec<Finding> = Vec::new();
        let mut configs: Vec<Value> = Vec::new();
        let mut left_values: Vec<Value> = Vec::new();
        // Each side against the PR's value.
        if let Some(want) = &pr {
            let mut seen: Vec<String> = Vec::new();
            for (r, what) in held
                .iter()
                .map(|r| (*r, &s.left_what))
                .chain(right.iter().map(|r| (*r, &s.right_what)))
            {
                let val = get(r, cap).unwrap_or_default();
                let key = format!("{what}\u{0}{}", canon(&val));
                if seen.contains(&key) {
                    continue;
                }
                seen.push(key);
                match cmp(&val, want) {
                    Cmp::Same => {}
                    Cmp::Differ => fails.push((
                        format!(
                            "{cap} differs from the PR's: {} at {} ({what}), {} given (--param {cap})",
                            Value::from(val.clone()),
                            r.citation,
                            Value::from(want.clone())
                        ),
                        vec![cited(r)],
                    )),
                    Cmp::Unknown(why) => unknowns.push((
                        format!(
                            "{cap} at {} ({what}) against the PR's (--param {cap}): {why}",
                            r.citation
                        ),
                        vec![cited(r)],
                    )),
                }
            }
        }
        for l in &held {
            let lv = get(l, cap).unwrap_or_default();
            if !left_values.contains(&Value::from(lv.clone())) {
                left_values.push(Value::from(lv.clone()));
            }
            let of_config: Vec<&Evidence> = right
                .iter()
                .copied()
                .filter(|r| same_config(l, r))
                .collect();
            // Distinct values (as compared), each with its first record.
            let mut values: Vec<(String, String, &Evidence)> = Vec::new();
            for r in &of_config {
                let rv = get(r, cap).unwrap_or_default();
                let c = canon(&rv);
                if !values.iter().any(|(k, _, _)| *k == c) {
                    values.push((c, rv, r));
                }
            }
            let results: Vec<Cmp> = values.iter().map(|(_, rv, _)| cmp(&lv, rv)).collect();
            let status;
            if values.is_empty() {
                status = "unknown";
                unknowns.push((
                    format!(
                        "{cap} {} at {}, but no {} record of its configuration ({}) holds a value of {cap}",
                        Value::from(lv.clone()),
                        l.citation,
                        s.right.join(" / "),
                        config(l)
                    ),
                    vec![cited(l)],
                ));
            } else if results.iter().all(|c| *c == Cmp::Differ) {
                let (_, rv, other) = &values[0];
                status = "fail";
                fails.push((
                    format!(
                        "{cap} differs: {} at {} ({}), {} at {} ({})",
                        Value::from(lv.clone()),
                        l.citation,
                        s.left_what,
                        Value::from(rv.clone()),
                        other.citation,
                        s.right_what
                    ),
                    vec![cited(l), cited(other)],
                ));
            } else if values.len() > 1 {
                status = "unknown";
                let at: Vec<String> = values
                    .iter()
                    .map(|(_, x, _)| Value::from(x.clone()).to_string())
                    .collect();
                unknowns.push((
                    format!(
                        "{} of its configuration ({}) hold {} values of {cap} ({}): which one {} at {} belongs with cannot be told",
                        s.right_what,
                        config(l),
                        values.len(),
                        at.join(", "),
                        Value::from(lv.clone()),
                        l.citation
                    ),
                    std::iter::once(cited(l))
                        .chain(of_config.iter().take(2).map(|r| cited(r)))
                        .collect(),
                ));
            } else if let Cmp::Unknown(why) = &results[0] {
                status = "unknown";
                unknowns.push((
                    format!(
                        "{cap} at {} ({}) against {} at {} ({}): {why}",
                        l.citation,
                        s.left_what,
                        s.right_what,
                        values[0].2.citation,
                        config(l)
                    ),
                    vec![cited(l), cited(values[0].2)],
                ));
            } else {
                status = "pass";
                passes.push((
                    format!(
                        "{cap} {} at {} equals {} at {} ({} record(s) of its configuration: {})",
                        Value::from(lv.clone()),
                        l.citation,
                        s.right_what,
                        of_config[0].citation,
                        of_config.len(),
                        config(l)
                    ),
                    vec![cited(l), cited(of_config[0])],
                ));
            }
            if configs.len() < MAX_CONFIGS {
                configs.push(serde_json::json!({
                    "config": config(l),
                    "left": lv,
                    "right": values.iter().map(|(_, x, _)| x.clone()).collect::<Vec<_>>(),
                    "status": status,
                }));
            }
        }
        // A record without the capture is covered where a record of its
        // configuration holds one (a meta file beside the eval's rows).
        for l in &unheld {
            if held.iter().any(|h| same_config(l, h)) {
                continue;
            }
            unknowns.push((
                format!(
                    "no artifact records {}'s {cap} ({} at {})",
                    s.left_what,
                    config(l),
                    l.citation
                ),
                vec![cited(l)],
            ));
        }
        if !left_values.is_empty() {
            v.observed
                .insert(cap.to_string(), Value::Array(left_values));
        }
        if !configs.is_empty() {
            v.observed.insert("configs".into(), Value::Array(configs));
        }
        if let Some(want) = &pr {
            v.expected
                .insert(cap.to_string(), Value::from(want.clone()));
        }
        if left.is_empty() && fails.is_empty() {
            let what = format!(
                "no artifact records {}'s {cap}: no {} record in this scope",
                s.left_what,
                s.left.join(" / ")
            );
            v.evidence.clear();
            if cx.complete() {
                v.status = Status::Unknown;
                v.reason = what;
            } else {
                cx.unread(v, what);
            }
            return;
        }
        if !super::fail_or_unknown(v, cx, &fails, &unknowns) {
            let (reason, cites) = super::summarize(&passes);
            v.status = Status::Pass;
            let and_pr = pr.as_ref().map_or(String::new(), |p| {
                format!(" and the PR's {} (--param {cap})", Value::from(p.clone()))
            });
            v.reason = format!(
                "{cap} of {} equals that of {} of its configuration{and_pr}, in all {} record(s): {reason}",
                s.left_what,
                s.right_what,
                passes.len()
            );
            v.evidence = cites;
        }
    }
}
