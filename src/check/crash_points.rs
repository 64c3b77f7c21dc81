//! `expect = { logged = [RULE...] }`: every measured point of a run has a
//! log its crashes can be read from. The crash claims are judged per
//! artifact, so a point whose download kept neither its server's log nor
//! its client's lines says nothing at all (its result artifact is N/A for
//! them) and the run would pass on its other points: that point is
//! unknown, never a pass. Points pair with logs by their result stem, as
//! "what ran" pairs them ([`super::what_ran::result_stem`]).

use super::judge::{Ctx, MAX_CITES, cited};
use super::what_ran::result_stem;
use super::{Status, Verdict};
use crate::domain::Evidence;
use std::collections::{BTreeMap, HashSet};

/// Judges `points` (result records) against the log records of `logged`.
pub(super) fn judge_logged(v: &mut Verdict, cx: &Ctx, points: &[&Evidence], logged: &[String]) {
    let mut stems: HashSet<String> = HashSet::new();
    // A log in an artifact named for no point (a job's driver log beside
    // per-point results): the job's, so it speaks for every point.
    let mut unnamed: Option<&Evidence> = None;
    for r in cx.scope.records().filter(|r| logged.contains(&r.rule)) {
        match result_stem(r) {
            Some(s) => {
                stems.insert(s);
            }
            None => {
                unnamed.get_or_insert(r);
            }
        }
    }
    let mut keyed: BTreeMap<String, &Evidence> = BTreeMap::new();
    for &p in points {
        if let Some(s) = result_stem(p) {
            keyed.entry(s).or_insert(p);
        }
    }
    if keyed.is_empty() {
        // Aggregate rows only (`agg_bmk.json`): no point to pair.
        if stems.is_empty() && unnamed.is_none() {
            v.status = Status::Unknown;
            v.reason = format!(
                "{} result record(s) and no server log, client log or job log in the download: whether a server crashed while measuring cannot be judged",
                points.len()
            );
        } else {
            v.status = Status::Pass;
            v.reason = "the results name no point by artifact (aggregate rows only); the logs the download holds are judged by the crash claims".into();
        }
        return;
    }
    let without: Vec<&Evidence> = keyed
        .iter()
        .filter(|(s, _)| unnamed.is_none() && !stems.contains(*s))
        .map(|(_, &p)| p)
        .collect();
    // Every point has a log: a member not read could add one, never take
    // one away, so the pass stands (not a claim about every record).
    if without.is_empty() {
        v.status = Status::Pass;
        v.reason = match unnamed {
            Some(r) if stems.len() < keyed.len() => format!(
                "every one of {} point(s) has a log crashes are read from (the job's log {} for those without their own)",
                keyed.len(),
                r.citation
            ),
            _ => format!(
                "every one of {} point(s) has its server's or its client's log",
                keyed.len()
            ),
        };
        return;
    }
    v.status = Status::Unknown;
    v.evidence = without.iter().take(MAX_CITES).map(|r| cited(r)).collect();
    v.reason = format!(
        "{} of {} point(s) have neither a server log nor their client's log in the download (e.g. {}): whether their server crashed while measuring cannot be judged",
        without.len(),
        keyed.len(),
        without[0].citation
    );
}
