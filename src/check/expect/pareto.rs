//! `expect = { pareto = ... }` (the verifier's Check 14): measured
//! frontier points per curve, as InferenceX's
//! `infx/workflows/pareto_coverage.py` counts them (a point is on the
//! frontier when no other point of its curve has both a lower x and a
//! higher y; identical coordinates count once) and the prompt asks:
//! at least `min` per curve. Curves are keyed on what each result records
//! (the `curve` captures); runs are kept apart by the check's run scope.
//! Points that are no points (missing, not finite, not positive) make the
//! answer unverifiable, kept apart from a short count; points measured on
//! fewer requests than they sent are left out and listed.

use crate::check::judge::{Ctx, MAX_CITES, cited};
use crate::check::{Check, Pareto, Status, Verdict};
use crate::domain::Evidence;
use serde_json::Value;
use std::collections::BTreeMap;

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
        let mut partial = Vec::new();
        for r in m {
            // A point measured on fewer requests than it sent (a server
            // that failed mid-run, requests cancelled) is not a point of
            // the curve (process_agentic_result.py records both counts).
            let int = |k: &str| {
                r.captures
                    .as_ref()
                    .and_then(|c| c.get(k))
                    .and_then(Value::as_i64)
            };
            if let (Some(total), Some(ok)) =
                (int("num_requests_total"), int("num_requests_successful"))
                && ok < total
            {
                partial.push((*r, ok, total));
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
            let entry = curves.entry(key.join(", ")).or_default();
            match (num(r, &p.x), num(r, &p.y)) {
                (Some(x), Some(y)) => entry.push((x, y, r)),
                _ => invalid.push(*r),
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
            counts.push(serde_json::json!({
                "curve": curve,
                "frontier": n,
                "measured": pts.len(),
            }));
            if n < p.min {
                short.push(format!("{curve}: {n}/{} ({} measured)", p.min, pts.len()));
            }
            frontier_cites.extend(kept.into_iter().map(cited));
        }
        v.observed.insert("curves".into(), Value::Array(counts));
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
        let partial_note = if partial.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = partial
                .iter()
                .take(MAX_LISTED)
                .map(|(r, ok, total)| {
                    format!("{} ({ok} of {total} requests succeeded)", r.citation)
                })
                .collect();
            format!(
                "; left out, measured on fewer requests than sent: {}{}",
                list.join(", "),
                if partial.len() > MAX_LISTED {
                    format!(" and {} more", partial.len() - MAX_LISTED)
                } else {
                    String::new()
                }
            )
        };
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
        } else if !invalid.is_empty() {
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
