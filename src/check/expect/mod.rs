//! Expectation kinds judged by code of their own (one file each), apart
//! from the general judging in `judge.rs`.

pub(super) mod agree;
pub(super) mod every_rank;
pub(in crate::check) mod left_out;
pub(super) mod pareto;
pub(super) mod same;

use crate::check::judge::{Ctx, MAX_CITES};
use crate::check::{Cited, Status, Verdict};

/// A finding about one item: its reason and its citations.
pub(super) type Finding = (String, Vec<Cited>);

/// How many findings' reasons a verdict quotes before "and N more".
const MAX_REASONS: usize = 3;

/// The reasons of the first findings, distinct and joined ("; and N
/// more"), and their first distinct citations.
pub(super) fn summarize(items: &[Finding]) -> Finding {
    let mut reasons: Vec<&str> = items
        .iter()
        .take(MAX_REASONS)
        .map(|(r, _)| r.as_str())
        .collect();
    reasons.dedup();
    let more = items.len().saturating_sub(MAX_REASONS);
    let tail = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    let mut cites: Vec<Cited> = Vec::new();
    for c in items.iter().flat_map(|(_, c)| c) {
        if !cites.iter().any(|x| x.citation == c.citation) && cites.len() < MAX_CITES {
            cites.push(c.clone());
        }
    }
    (format!("{}{tail}", reasons.join("; ")), cites)
}

/// Settles `v` where a finding decides it: any failure fails it; else
/// any item that could not be told makes it unknown (a scope not read
/// completely says so). False where neither decided: the caller's pass.
pub(super) fn fail_or_unknown(
    v: &mut Verdict,
    cx: &Ctx,
    fails: &[Finding],
    unknowns: &[Finding],
) -> bool {
    if !fails.is_empty() {
        let (reason, cites) = summarize(fails);
        v.status = Status::Fail;
        v.reason = reason;
        v.evidence = cites;
    } else if !unknowns.is_empty() {
        let (reason, cites) = summarize(unknowns);
        v.evidence = cites;
        if cx.complete() {
            v.status = Status::Unknown;
            v.reason = reason;
        } else {
            cx.unread(v, reason);
        }
    } else {
        return false;
    }
    true
}
