//! Points a Pareto curve leaves out, and why (the verifier's Check 14
//! takes only valid measured points):
//! - a point whose requests failed beyond what InferenceX's CI accepts.
//!   `utils/agentic/validation/validate_agentic_result.py` fails a replay
//!   whose error rate (errors / completed requests) exceeds
//!   `--failed-request-threshold`, `AIPERF_FAILED_REQUEST_THRESHOLD`
//!   (0.10 in `benchmarks/benchmark_lib.sh`): a healthy point cancels a few
//!   requests at the grace timeout and stays. The result JSON carries the
//!   counts (`utils/agentic/aggregation/process_agentic_result.py`):
//!   `num_requests_total` is every record of `profile_export.jsonl`, warmup
//!   included since AgentX v1.0 (`request_accounting.records_warmup_dropped`),
//!   and `num_requests_successful` the profiled records without an error;
//! - a point whose server crashed while it was measured (`window.rs`
//!   decides when a crash spoils a point; the point is the result's
//!   artifact and its twins, `agentic_<stem>` / `server_logs_<stem>`).

use super::pareto::point_of_unit;
use crate::check::crash::{Crash, crashes, windows};
use crate::domain::Evidence;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The rules a Pareto check reads besides its points: the crash records
/// and the timing that places them (a run scope keeps only what its checks
/// read).
pub(crate) const RULES: [&str; 4] = [
    "error.traceback",
    "error.oom",
    crate::check::crash::LIFECYCLE,
    crate::check::crash::WINDOW,
];

/// `AIPERF_FAILED_REQUEST_THRESHOLD`'s default (benchmarks/benchmark_lib.sh):
/// the largest share of failed requests a valid point may have.
const FAILED_REQUEST_THRESHOLD: f64 = 0.10;

/// Why a point's request counts make it no valid point, if they do.
pub(super) fn failed_requests(r: &Evidence) -> Option<String> {
    let int = |k: &str| {
        r.captures
            .as_ref()
            .and_then(|c| c.get(k))
            .and_then(Value::as_i64)
    };
    let (total, ok) = (int("num_requests_total")?, int("num_requests_successful")?);
    // Warmup records are counted in the total but never measured (before
    // AgentX v1.0 there were none in it).
    let completed = total - int("num_requests_warmup").unwrap_or(0).max(0);
    if completed <= 0 || ok <= 0 {
        return Some(format!(
            "{ok} of {completed} measured requests succeeded: the point measured nothing"
        ));
    }
    let failed = (completed - ok).max(0);
    // As validate_agentic_result.py: `error_rate > threshold` fails.
    (failed as f64 / completed as f64 > FAILED_REQUEST_THRESHOLD).then(|| {
        format!(
            "{ok} of {completed} requests succeeded, over CI's {:.0}% failed-request limit",
            FAILED_REQUEST_THRESHOLD * 100.0
        )
    })
}

/// The crashes that spoiled each point of the scope, by the point's
/// (run, stem). A copy of the server log in an artifact without the
/// client's lines (a `server_logs_` twin) cannot place its crash; where a
/// twin of the same point holds both the server log and the client's
/// window, that twin decides.
pub(super) fn spoiled_points<'a>(
    scope: &crate::check::scope::Scope<'a>,
) -> HashMap<(String, String), Vec<Crash<'a>>> {
    let windowed: HashSet<String> = windows(scope).into_keys().collect();
    let all = crashes(scope);
    // Points with a twin that can place a crash: it holds a window and a
    // server log (a lifecycle record, or a crash of its own).
    let mut placeable: HashSet<(String, String)> = HashSet::new();
    let served: HashSet<&str> = scope
        .records_of(crate::check::crash::LIFECYCLE)
        .map(|r| &*r.location.path)
        .collect();
    for a in &windowed {
        let inside = |p: &str| {
            p == a.as_str()
                || p.strip_prefix(a.as_str())
                    .is_some_and(|rest| rest.starts_with('/') || rest.starts_with('!'))
        };
        let holds_log = served.iter().any(|p| inside(p)) || all.iter().any(|c| &c.artifact == a);
        if holds_log {
            placeable.insert(point_of_unit(a));
        }
    }
    let mut out: HashMap<(String, String), Vec<Crash<'a>>> = HashMap::new();
    for c in all {
        if !c.when.spoils() {
            continue;
        }
        let point = point_of_unit(&c.artifact);
        if !windowed.contains(&c.artifact) && placeable.contains(&point) {
            continue;
        }
        out.entry(point).or_default().push(c);
    }
    out
}

/// The sentence naming a crash that spoiled a point, with its citation.
pub(super) fn crash_reason(c: &[Crash<'_>]) -> String {
    let first = &c[0];
    let more = if c.len() > 1 {
        format!(" and {} more crash record(s)", c.len() - 1)
    } else {
        String::new()
    };
    format!("{} ({}){more}", first.describe(), first.record.citation)
}
