//! An empty server log decided by its twin (issue 45, item 5): a
//! `server.log` with no bytes leaves the claims about that server unknown,
//! unless another artifact of the same run and point (a `server_logs_` copy
//! of an `agentic_` one: same name fields but the kind) holds the same
//! member complete and non-empty; the empty copy's claims are then judged
//! on the twin's records, and the reason names the copy that decided.

use super::scope::{Scope, Unit};
use super::{Check, CheckParams, CheckScope, Status, Verdict};
use crate::scan::{ArtifactScan, Record};
use crate::source::ErrorKind;

/// Groups (two units or more) of the units of one run that name the same
/// point: equal name fields but the kind and the copy's numbers.
pub(crate) fn groups(units: &[Unit]) -> Vec<Vec<usize>> {
    let mut by_key: std::collections::HashMap<(String, String), usize> = Default::default();
    let mut out: Vec<Vec<usize>> = Vec::new();
    for (i, u) in units.iter().enumerate() {
        let base = u.name.rsplit('/').next().unwrap_or(&u.name);
        let Some(mut f) = crate::names::parse_name(base) else {
            continue;
        };
        // A point needs its fields; a bare `logs_<id>` names none.
        if f.exp.is_none() || f.conc.is_none() {
            continue;
        }
        f.kind = None;
        f.backup_n = None;
        f.artifact_id = None;
        f.run_id = None;
        let key = (u.run(), format!("{f:?}"));
        let g = *by_key.entry(key).or_insert_with(|| {
            out.push(Vec::new());
            out.len() - 1
        });
        out[g].push(i);
    }
    out.retain(|g| g.len() > 1);
    out
}

/// Whether any of the unit's held scans has an empty server log.
pub(crate) fn has_empty<'s>(
    unit: &Unit,
    scan: &impl Fn(usize) -> Option<(&'s str, &'s ArtifactScan)>,
) -> bool {
    unit.files
        .iter()
        .filter_map(|&i| scan(i))
        .any(|(_, s)| s.coverage.errors.iter().any(|e| e.kind == ErrorKind::Empty))
}

/// A member's path inside its artifact (`server.log`, `logs/server.log`),
/// whether the artifact is a folder (the file under it) or an archive
/// (its member chain).
fn member_of(unit: &str, path: &str, members: &[String]) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if let Some(rest) = path.strip_prefix(unit).and_then(|r| r.strip_prefix('/')) {
        parts.extend(rest.split('/').filter(|p| !p.is_empty()));
    }
    parts.extend(members.iter().map(String::as_str));
    parts.join("/")
}

/// Whether member `inner` lies in (or is) member `outer` ("" holds all).
fn within(inner: &str, outer: &str) -> bool {
    outer.is_empty()
        || inner == outer
        || inner
            .strip_prefix(outer)
            .is_some_and(|r| r.starts_with('/'))
}

/// The twin's records of member `m`, if the twin holds it complete and
/// non-empty: read with no error on it or on what holds it, and shown to be
/// there with bytes by a record of its own (a member with no record cannot
/// be told from an absent one, so it decides nothing).
fn stand_in<'s>(
    twin: &Unit,
    m: &str,
    scan: &impl Fn(usize) -> Option<(&'s str, &'s ArtifactScan)>,
) -> Option<Vec<Record>> {
    let mut records = Vec::new();
    for &i in &twin.files {
        // A file of the twin not scanned: what it held is unknown.
        let (path, s) = scan(i)?;
        let bad = s
            .coverage
            .errors
            .iter()
            .any(|e| within(m, &member_of(&twin.name, path, &e.members)));
        if bad {
            return None;
        }
        for r in &s.records {
            let (p, ms) = match r {
                Record::Evidence(e) => (&*e.location.path, &*e.location.members),
                Record::Aggregate(a) => (&*a.path, &*a.members),
            };
            if member_of(&twin.name, p, ms) == m {
                records.push(r.clone());
            }
        }
    }
    records
        .iter()
        .any(|r| matches!(r, Record::Evidence(_)))
        .then_some(records)
}

/// Judges unit `u`'s artifact checks, emitting them in check order. Where
/// a claim is unknown and the unit's empty server logs all have a complete
/// copy in a unit of `group` (the units of its point), the claim is judged
/// again with the copies' records in place of the empty logs.
pub(crate) fn judge_unit<'s>(
    checks: &[Check],
    units: &[Unit],
    u: usize,
    group: &[usize],
    params: &CheckParams,
    scan: &impl Fn(usize) -> Option<(&'s str, &'s ArtifactScan)>,
    mut emit: impl FnMut(Verdict),
) {
    let unit = &units[u];
    let held: Vec<(&str, &ArtifactScan)> = unit.files.iter().filter_map(|&i| scan(i)).collect();
    let scope = Scope::new(unit.name.clone(), vec![unit.name.clone()], held.clone());
    let artifact = || checks.iter().filter(|c| c.scope == CheckScope::Artifact);
    let mut verdicts: Vec<Verdict> = artifact().map(|c| c.judge(&scope, params)).collect();
    if !verdicts.iter().any(|v| v.status == Status::Unknown) {
        verdicts.into_iter().for_each(&mut emit);
        return;
    }
    // Each file's scan with its empty server logs replaced, and who decided.
    let mut replaced: Vec<Option<ArtifactScan>> = Vec::new();
    let mut decided: Vec<String> = Vec::new();
    let mut whole = true;
    for (path, s) in &held {
        let empty: Vec<String> = s
            .coverage
            .errors
            .iter()
            .filter(|e| e.kind == ErrorKind::Empty)
            .map(|e| member_of(&unit.name, path, &e.members))
            .collect();
        if empty.is_empty() {
            replaced.push(None);
            continue;
        }
        let mut s = ArtifactScan {
            records: s.records.clone(),
            coverage: s.coverage.clone(),
            sha256: None,
            counts: Default::default(),
        };
        for m in &empty {
            let found = group
                .iter()
                .filter(|&&t| t != u)
                .find_map(|&t| stand_in(&units[t], m, scan).map(|r| (t, r)));
            let Some((t, records)) = found else {
                whole = false;
                break;
            };
            s.coverage.errors.retain(|e| {
                !(e.kind == ErrorKind::Empty && member_of(&unit.name, path, &e.members) == *m)
            });
            s.records.extend(records);
            decided.push(format!(
                "{m} is empty here: judged on its complete copy in {}",
                units[t].name
            ));
        }
        replaced.push(Some(s));
    }
    if !whole || decided.is_empty() {
        verdicts.into_iter().for_each(&mut emit);
        return;
    }
    let scans: Vec<(&str, &ArtifactScan)> = held
        .iter()
        .zip(&replaced)
        .map(|(&(p, s), r)| (p, r.as_ref().unwrap_or(s)))
        .collect();
    let twinned = Scope::new(unit.name.clone(), vec![unit.name.clone()], scans);
    let note = decided.join("; ");
    for (v, c) in verdicts.iter_mut().zip(artifact()) {
        if v.status == Status::Unknown {
            let mut w = c.judge(&twinned, params);
            w.reason = format!("{} ({note})", w.reason);
            *v = w;
        }
    }
    verdicts.into_iter().for_each(&mut emit);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_named_alike_in_folders_and_archives() {
        assert_eq!(member_of("r/1/a", "r/1/a/server.log", &[]), "server.log");
        assert_eq!(
            member_of("r/1/a.zip", "r/1/a.zip", &["server.log".into()]),
            "server.log"
        );
        assert_eq!(member_of("r/1/a.zip", "r/1/a.zip", &[]), "");
        assert!(within("server.log", ""));
        assert!(within("logs/server.log", "logs"));
        assert!(!within("server.log.1", "server.log"));
    }

    #[test]
    fn an_agentic_artifact_and_its_server_logs_copy_are_one_point() {
        let rf = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
        let unit = |n: String| Unit {
            name: n,
            files: vec![],
        };
        let units = [
            unit(format!("runs/1/agentic_{rf}")),
            unit(format!("runs/1/server_logs_{rf}.zip")),
            unit(format!("runs/2/server_logs_{rf}")),
            unit(format!(
                "runs/1/server_logs_{}",
                rf.replace("conc64", "conc32")
            )),
        ];
        assert_eq!(groups(&units), vec![vec![0, 1]]);
    }
}
