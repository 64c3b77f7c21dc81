//! Setting a check run up and judging it: the check files and sets, the
//! `--param` values, the rules the checks need, and the verdicts over the
//! scanned artifacts. Shared by `check` and `audit`.

use super::scope::Unit;
use super::{Check, CheckParams, CheckScope, Scope, Verdict};
use crate::pack::{RuleSet, compile::Selection};
use crate::scan::{ArtifactScan, Record};
use std::path::PathBuf;

/// The (file name, text) of each built-in set and check file, in order.
pub(crate) fn check_sources(
    files: &[PathBuf],
    sets: &[String],
) -> anyhow::Result<Vec<(String, String)>> {
    let mut sources = Vec::new();
    for s in sets {
        let src = super::builtin_set(s).ok_or_else(|| {
            anyhow::anyhow!(
                "no built-in check set {s:?} (have: {})",
                super::builtin_set_names().join(", ")
            )
        })?;
        sources.push((format!("patterns/checks/{s}.toml"), src.to_string()));
    }
    for f in files {
        let src =
            std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        sources.push((f.display().to_string(), src));
    }
    Ok(sources)
}

/// Check files and built-in sets, parsed.
pub fn load_checks(files: &[PathBuf], sets: &[String]) -> anyhow::Result<Vec<Check>> {
    let mut out = Vec::new();
    for (name, src) in check_sources(files, sets)? {
        out.extend(super::parse_checks(&name, &src)?);
    }
    if out.is_empty() {
        anyhow::bail!("no checks: give --checks FILE or --set NAME");
    }
    Ok(out)
}

/// `--param` values, checked against the parameters the checks read: an
/// unknown name or a non-number where a number is compared is an error.
pub fn load_params(checks: &[Check], pairs: &[String]) -> anyhow::Result<CheckParams> {
    let params = CheckParams::parse(pairs).map_err(anyhow::Error::msg)?;
    let specs = super::merge_specs(checks.iter().flat_map(Check::params));
    params.validate(&specs).map_err(anyhow::Error::msg)?;
    Ok(params)
}

/// `--thresholds PATH`: InferenceX's eval thresholds file, whose bars
/// apply per model where no `--param <task>_min` is given.
pub fn with_thresholds(
    mut params: CheckParams,
    path: Option<&std::path::Path>,
) -> anyhow::Result<CheckParams> {
    if let Some(p) = path {
        params.1 = Some(std::sync::Arc::new(super::thresholds::Thresholds::load(p)?));
    }
    Ok(params)
}

/// `--params FILE` then `--param KEY=VALUE`, as one list of `KEY=VALUE`
/// pairs in which the command line comes last, so that it wins.
///
/// A params file is TOML with one top-level `KEY = VALUE` per parameter,
/// the same names as `--param` (`al = 3.5`, `gsm8k_min = 0.9`). Tables
/// are refused: a check reads one value per name, so a golden AL per model
/// and draft length is chosen by whoever runs the check (`al` for the run
/// judged), not looked up by artiscan.
pub fn param_pairs(files: &[PathBuf], pairs: &[String]) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for f in files {
        let src =
            std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        out.extend(params_file_pairs(&src).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?);
    }
    out.extend(pairs.iter().cloned());
    Ok(out)
}

/// An error as printed: escaped (it may quote artifact names or text), but a
/// check file's TOML error keeps its line breaks, each line escaped: the
/// parser's snippet of the user's own file with a caret under the fault,
/// which reads as a literal `\n` run otherwise.
pub fn error_text(e: &anyhow::Error) -> String {
    let msg = format!("{e:#}");
    let toml = e
        .chain()
        .any(|c| matches!(c.downcast_ref(), Some(super::CheckError::Parse { .. })));
    if toml {
        msg.trim_end()
            .lines()
            .map(|l| crate::escape::text(l).into_owned())
            .collect::<Vec<_>>()
            .join("\n")
    } else {
        crate::escape::text(&msg).into_owned()
    }
}

/// The `KEY=VALUE` pairs of one params file's text.
fn params_file_pairs(src: &str) -> Result<Vec<String>, String> {
    let table: toml::Table = toml::from_str(src).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (k, v) in table {
        let text = match v {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                return Err(format!(
                    "{k}: a parameter is one number or string, not a {} (give the value for the run judged, e.g. `{k} = 3.5`)",
                    other.type_str()
                ));
            }
        };
        out.push(format!("{k}={text}"));
    }
    Ok(out)
}

/// The rules the checks need, from the built-in and extra packs.
pub fn rules_for(checks: &[Check], extra_packs: &[PathBuf]) -> anyhow::Result<RuleSet> {
    let mut only: Vec<String> = super::selected_rules(checks).into_iter().collect();
    // What ran under the verifier's rows reads these whatever the checks.
    only.extend(super::what_ran::RULES.iter().map(|r| r.to_string()));
    let rules = crate::pack::load_rules(
        extra_packs,
        // A check's rule runs even when it is opt-in: `only` names it.
        &Selection {
            only,
            ..Selection::default()
        },
        crate::pack::Builtin::Included,
    )?;
    validate(checks, extra_packs, &rules)?;
    super::scope_reads(checks, &rules);
    Ok(rules)
}

/// Every rule a check names exists in the packs (opt-in ones included),
/// and every capture it reads is one that rule can record: a mistyped
/// `where = { nmae = ... }` would pass everywhere, a mistyped `applies`
/// rule would turn a FAIL into not_applicable. Errors name the check file
/// and the line of the check's `id`.
fn validate(checks: &[Check], extra_packs: &[PathBuf], selected: &RuleSet) -> anyhow::Result<()> {
    // The rules the checks name are the ones selected: when they all check
    // out there, compiling every rule again (half of a check's start-up)
    // would find the same. Packs given with --packs are compiled whole, so
    // that a broken rule in one is an error even when no check reads it;
    // an error is reported as found among all the rules.
    if extra_packs.is_empty() && references_known(checks, selected).is_ok() {
        return Ok(());
    }
    let all = crate::pack::load_rules(
        extra_packs,
        &Selection::all(),
        crate::pack::Builtin::Included,
    )?;
    references_known(checks, &all)
}

/// Every rule the checks name is in `rules`, with every capture they read.
fn references_known(checks: &[Check], rules: &RuleSet) -> anyhow::Result<()> {
    for c in checks {
        // Only an error needs the line.
        let at = || check_line(&c.file, &c.id);
        for (rule, caps) in c.references() {
            let Some(names) = rules.capture_names(rule) else {
                anyhow::bail!(
                    "{}{}: check {}: no rule {rule:?} in the packs (`artiscan packs list` lists them)",
                    c.file,
                    at(),
                    c.id
                );
            };
            let Some(names) = names else { continue };
            if let Some(bad) = caps.iter().find(|k| !names.contains(**k)) {
                let known: Vec<&str> = names.iter().map(String::as_str).collect();
                anyhow::bail!(
                    "{}{}: check {}: rule {rule} records no capture {bad:?} (it has: {})",
                    c.file,
                    at(),
                    c.id,
                    known.join(", ")
                );
            }
        }
    }
    Ok(())
}

/// `:LINE` of the `id = "ID"` line in a check file, when it can be read.
fn check_line(file: &str, id: &str) -> String {
    let src = super::builtin_set(
        file.strip_prefix("patterns/checks/")
            .and_then(|f| f.strip_suffix(".toml"))
            .unwrap_or(""),
    )
    .map(str::to_string)
    .or_else(|| std::fs::read_to_string(file).ok());
    src.and_then(|s| {
        s.lines().position(|l| {
            let l = l.trim_start();
            l.starts_with("id") && l.contains(&format!("\"{id}\""))
        })
    })
    .map_or(String::new(), |n| format!(":{}", n + 1))
}

/// Judges every check with each scanned file as its own artifact (the
/// audit's artifacts are files).
pub(crate) fn judge(
    checks: &[Check],
    scans: &[(String, ArtifactScan)],
    params: &CheckParams,
) -> Vec<Verdict> {
    let units: Vec<Unit> = scans
        .iter()
        .enumerate()
        .map(|(i, (p, _))| Unit {
            name: p.clone(),
            files: vec![i],
        })
        .collect();
    judge_units(checks, scans, &units, params)
}

/// Judges every check over the artifacts (`units`, files indexing `scans`):
/// per artifact, or per run (artifacts of the same folder) for
/// `scope = "run"` checks. Verdicts come grouped by scope, in walk order:
/// every artifact's, then every run's (runs in order of first appearance).
pub(crate) fn judge_units(
    checks: &[Check],
    scans: &[(String, ArtifactScan)],
    units: &[Unit],
    params: &CheckParams,
) -> Vec<Verdict> {
    judge_units_where(checks, scans, units, params, |_| true)
}

/// [`judge_units`], the artifact checks of the units `pick` keeps only
/// (twins are still found among all `units`: the audit judges again a
/// file artifact with an empty server log beside its folders).
pub(crate) fn judge_units_where(
    checks: &[Check],
    scans: &[(String, ArtifactScan)],
    units: &[Unit],
    params: &CheckParams,
    pick: impl Fn(usize) -> bool,
) -> Vec<Verdict> {
    let lookup = |i: usize| scans.get(i).map(|(p, s)| (p.as_str(), s));
    let mut verdicts = Vec::new();
    let (groups, group_of) = twins(units);
    for (u, g) in group_of.iter().enumerate().filter(|&(u, _)| pick(u)) {
        let group = g.map_or(&[][..], |g| &groups[g][..]);
        super::twin::judge_unit(checks, units, u, group, params, &lookup, |v| {
            verdicts.push(v)
        });
    }
    if checks.iter().any(|c| c.scope == CheckScope::Run) {
        for (name, us) in runs(units) {
            let us: Vec<&Unit> = us.iter().map(|&u| &units[u]).collect();
            judge_run(checks, name, &us, lookup, params, |v| verdicts.push(v));
        }
    }
    verdicts
}

/// The run checks of one run group (see [`runs`]): a curve check (Check
/// 14) judges the group whole, since only its points tell whether a
/// `_high` folder and its sibling are one sweep (`expect/pareto.rs`);
/// every other run check judges each run folder alone, so one folder's
/// evidence never answers for another's.
fn judge_run<'s>(
    checks: &[Check],
    name: String,
    us: &[&Unit],
    scan: impl Fn(usize) -> Option<(&'s str, &'s ArtifactScan)>,
    params: &CheckParams,
    mut emit: impl FnMut(Verdict),
) {
    let mut folders: Vec<String> = Vec::new();
    for u in us {
        let run = u.run();
        if !folders.contains(&run) {
            folders.push(run);
        }
    }
    if folders.len() <= 1 {
        let scope = scope_of(name, us, &scan);
        return judge_scope(checks, CheckScope::Run, &scope, params, emit);
    }
    let whole = scope_of(name, us, &scan);
    for (k, folder) in folders.iter().enumerate() {
        let part: Vec<&Unit> = us.iter().copied().filter(|u| &u.run() == folder).collect();
        let part = scope_of(folder.clone(), &part, &scan);
        for c in checks.iter().filter(|c| c.scope == CheckScope::Run) {
            if !c.judges_a_sweep() {
                emit(c.judge(&part, params));
            } else if k == 0 {
                emit(c.judge(&whole, params));
            }
        }
    }
}

/// The units' groups of twins (units of one point, see [`super::twin`])
/// and each unit's group.
fn twins(units: &[Unit]) -> (Vec<Vec<usize>>, Vec<Option<usize>>) {
    let groups = super::twin::groups(units);
    let mut group_of = vec![None; units.len()];
    for (g, us) in groups.iter().enumerate() {
        for &u in us {
            group_of[u] = Some(g);
        }
    }
    (groups, group_of)
}

/// The scope of `units` named `name`, their scans looked up by file index.
fn scope_of<'s>(
    name: String,
    units: &[&Unit],
    scan: impl Fn(usize) -> Option<(&'s str, &'s ArtifactScan)>,
) -> Scope<'s> {
    Scope::new(
        name,
        units.iter().map(|u| u.name.clone()).collect(),
        units
            .iter()
            .flat_map(|u| u.files.iter())
            .filter_map(|&i| scan(i))
            .collect(),
    )
}

fn judge_scope(
    checks: &[Check],
    kind: CheckScope,
    scope: &Scope<'_>,
    params: &CheckParams,
    mut emit: impl FnMut(Verdict),
) {
    for c in checks.iter().filter(|c| c.scope == kind) {
        emit(c.judge(scope, params));
    }
}

/// The runs of `units` (the folders holding them), in order of first
/// appearance, each with its units' indexes; found through an index, so
/// linear in the units however many runs they span. A `<run>_high`
/// folder given beside `<run>` joins its group (judged in [`judge_run`]):
/// InferenceX's high-concurrency continuation of a sweep, whose points
/// the sibling's `agg_bmk.json` may also hold.
fn runs(units: &[Unit]) -> Vec<(String, Vec<usize>)> {
    let mut runs = super::by_run::ByRun::default();
    for (i, u) in units.iter().enumerate() {
        runs.entry(&u.run(), Vec::new).push(i);
    }
    let mut runs = runs.into_vec();
    let at: std::collections::HashMap<String, usize> = runs
        .iter()
        .enumerate()
        .map(|(k, (name, _))| (name.clone(), k))
        .collect();
    let mut joined = vec![false; runs.len()];
    for k in 0..runs.len() {
        // The first run of the chain (`a_high_high` joins `a`'s).
        let mut b = k;
        while let Some(&base) = runs[b].0.strip_suffix("_high").and_then(|n| at.get(n)) {
            b = base;
        }
        if b != k {
            let moved = std::mem::take(&mut runs[k].1);
            runs[b].1.extend(moved);
            runs[b].1.sort_unstable();
            joined[k] = true;
        }
    }
    let mut k = 0;
    runs.retain(|_| {
        k += 1;
        !joined[k - 1]
    });
    runs
}

/// [`judge_units`] as the scans arrive, for a check that streams its
/// verdicts: the same verdicts in the same order, each artifact's handed
/// on as soon as it and every artifact before it are scanned, the runs'
/// at [`Judging::finish`] (they follow every artifact's). A run is judged
/// once its last artifact is in, and a scan is dropped once no artifact or
/// run left to judge needs it: what is held is the scans of the runs still
/// open and one verdict per run and run check, never every verdict.
pub(crate) struct Judging<'a> {
    checks: &'a [Check],
    params: &'a CheckParams,
    units: &'a [Unit],
    /// Per file, its path and scan while needed, without what judging does
    /// not read (the hash, the per-rule counts): a run of a million empty
    /// files holds a box and a path each.
    scans: Vec<Option<Box<(String, ArtifactScan)>>>,
    /// Per file, how many artifacts and runs left to judge need its scan.
    needed: Vec<u32>,
    /// The units holding file `i`: `unit_list[unit_at[i]..unit_at[i + 1]]`.
    unit_at: Vec<usize>,
    unit_list: Vec<usize>,
    /// Per unit, its files not scanned yet.
    missing: Vec<usize>,
    /// The first unit not judged yet.
    next: usize,
    /// With run checks: the runs, each unit's run, and per run the units
    /// not judged yet and its verdicts.
    runs: Vec<(String, Vec<usize>)>,
    run_of: Vec<usize>,
    run_left: Vec<usize>,
    run_verdicts: Vec<Vec<Verdict>>,
    /// The rules the run checks read: once its artifact is judged, a file
    /// waiting for its run keeps only their records (a run of env dumps
    /// held every `env.var` record until its last artifact was judged).
    run_rules: std::collections::HashSet<String>,
    /// Twins (units of one point): an artifact with an empty server log
    /// waits for its group's scans, which are held (one more use each)
    /// until every unit of the group is judged.
    groups: Vec<Vec<usize>>,
    group_of: Vec<Option<usize>>,
    group_left: Vec<usize>,
}

impl<'a> Judging<'a> {
    pub(crate) fn new(
        checks: &'a [Check],
        params: &'a CheckParams,
        units: &'a [Unit],
        files: usize,
    ) -> Judging<'a> {
        let per_run = checks.iter().any(|c| c.scope == CheckScope::Run);
        let runs = if per_run { runs(units) } else { Vec::new() };
        let mut run_of = vec![0; if per_run { units.len() } else { 0 }];
        for (r, (_, us)) in runs.iter().enumerate() {
            for &u in us {
                run_of[u] = r;
            }
        }
        // Each unit's file is needed by the unit, and by its run if any.
        let uses = if per_run { 2 } else { 1 };
        let (groups, group_of) = twins(units);
        let mut needed = vec![0u32; files];
        let mut unit_at = vec![0usize; files + 1];
        for (u, unit) in units.iter().enumerate() {
            let uses = uses + u32::from(group_of[u].is_some());
            for &f in unit.files.iter().filter(|&&f| f < files) {
                needed[f] += uses;
                unit_at[f + 1] += 1;
            }
        }
        for i in 0..files {
            unit_at[i + 1] += unit_at[i];
        }
        let mut fill = unit_at.clone();
        let mut unit_list = vec![0; unit_at[files]];
        for (u, unit) in units.iter().enumerate() {
            for &f in unit.files.iter().filter(|&&f| f < files) {
                unit_list[fill[f]] = u;
                fill[f] += 1;
            }
        }
        Judging {
            checks,
            params,
            units,
            scans: (0..files).map(|_| None).collect(),
            needed,
            unit_at,
            unit_list,
            missing: units
                .iter()
                .map(|u| u.files.iter().filter(|&&f| f < files).count())
                .collect(),
            next: 0,
            run_left: runs.iter().map(|(_, us)| us.len()).collect(),
            run_verdicts: runs.iter().map(|_| Vec::new()).collect(),
            runs,
            run_of,
            run_rules: super::judged_rules(checks.iter().filter(|c| c.scope == CheckScope::Run)),
            group_left: groups.iter().map(Vec::len).collect(),
            groups,
            group_of,
        }
    }

    /// File `i`'s scan, walked as `path`: judges what it completes.
    pub(crate) fn scanned(
        &mut self,
        i: usize,
        path: String,
        scan: ArtifactScan,
        emit: &mut dyn FnMut(&Verdict),
    ) {
        if i >= self.scans.len() {
            return;
        }
        if self.needed[i] > 0 {
            let mut scan = scan;
            // Evidence ids are made at scan time; verdicts cite no hash.
            scan.sha256 = None;
            scan.counts = Default::default();
            scan.records.shrink_to_fit();
            self.scans[i] = Some(Box::new((path, scan)));
        }
        for k in self.unit_at[i]..self.unit_at[i + 1] {
            self.missing[self.unit_list[k]] -= 1;
        }
        while self.next < self.units.len() && self.ready(self.next) {
            self.judge_unit(emit);
        }
    }

    /// Whether unit `u` can be judged: its files are scanned, and with an
    /// empty server log, every file of its twins too.
    fn ready(&self, u: usize) -> bool {
        if self.missing[u] > 0 {
            return false;
        }
        let Some(g) = self.group_of[u] else {
            return true;
        };
        !super::twin::has_empty(&self.units[u], &self.lookup())
            || self.groups[g].iter().all(|&t| self.missing[t] == 0)
    }

    /// Judges what is left (a file never scanned counts as absent, as in
    /// [`judge_units`]) and hands on the runs' verdicts.
    pub(crate) fn finish(mut self, emit: &mut dyn FnMut(&Verdict)) {
        while self.next < self.units.len() {
            self.judge_unit(emit);
        }
        for vs in &self.run_verdicts {
            for v in vs {
                emit(v);
            }
        }
    }

    fn lookup<'s>(&'s self) -> impl Fn(usize) -> Option<(&'s str, &'s ArtifactScan)> + 's {
        |i| {
            self.scans
                .get(i)
                .and_then(Option::as_deref)
                .map(|(p, s)| (p.as_str(), s))
        }
    }

    fn judge_unit(&mut self, emit: &mut dyn FnMut(&Verdict)) {
        let u = self.next;
        self.next += 1;
        let group = self.group_of[u].map_or(&[][..], |g| &self.groups[g][..]);
        super::twin::judge_unit(
            self.checks,
            self.units,
            u,
            group,
            self.params,
            &self.lookup(),
            |v| emit(&v),
        );
        self.release(u);
        if let Some(g) = self.group_of[u] {
            self.group_left[g] -= 1;
            if self.group_left[g] == 0 {
                for k in 0..self.groups[g].len() {
                    self.release(self.groups[g][k]);
                }
            }
        }
        if self.runs.is_empty() {
            return;
        }
        for &f in &self.units[u].files {
            // Its run's use alone is left: keep what the run checks read.
            if self.needed.get(f) == Some(&1) {
                if let Some(held) = self.scans[f].as_deref_mut() {
                    let rules = &self.run_rules;
                    held.1.records.retain(|r| match r {
                        Record::Evidence(e) => rules.contains(&e.rule),
                        Record::Aggregate(a) => rules.contains(&a.rule),
                    });
                    held.1.records.shrink_to_fit();
                }
            }
        }
        let r = self.run_of[u];
        self.run_left[r] -= 1;
        if self.run_left[r] > 0 {
            return;
        }
        let us: Vec<&Unit> = self.runs[r].1.iter().map(|&u| &self.units[u]).collect();
        let mut verdicts = Vec::new();
        let name = self.runs[r].0.clone();
        judge_run(self.checks, name, &us, self.lookup(), self.params, |v| {
            verdicts.push(v)
        });
        self.run_verdicts[r] = verdicts;
        for k in 0..self.runs[r].1.len() {
            self.release(self.runs[r].1[k]);
        }
    }

    /// One use of each of unit `u`'s files' scans is over.
    fn release(&mut self, u: usize) {
        for &f in &self.units[u].files {
            if let Some(n) = self.needed.get_mut(f) {
                *n = n.saturating_sub(1);
                if *n == 0 {
                    self.scans[f] = None;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Once its artifact is judged, a file that waits for its run keeps
    /// only the records of the rules the run checks read, and the run is
    /// judged on them.
    #[test]
    fn a_file_waiting_for_its_run_keeps_only_what_run_checks_read() {
        use crate::check::judge::tests::{rec, scan};
        let checks = crate::check::parse_checks(
            "t.toml",
            "[[check]]\nid = \"per-artifact\"\nrule = \"env.var\"\nexpect = \"absent\"\n\n\
             [[check]]\nid = \"per-run\"\nrule = \"error.oom\"\nexpect = \"absent\"\nscope = \"run\"\n",
        )
        .unwrap();
        let params = CheckParams::default();
        let units = [
            Unit {
                name: "runs/1/a.zip".into(),
                files: vec![0],
            },
            Unit {
                name: "runs/1/b.zip".into(),
                files: vec![1],
            },
        ];
        let mut judging = Judging::new(&checks, &params, &units, 2);
        let mut verdicts = Vec::new();
        let records = (0..50)
            .map(|i| rec("env.log", i + 1, "env.var", serde_json::json!({}), None))
            .chain([rec(
                "server.log",
                7,
                "error.oom",
                serde_json::json!({}),
                None,
            )])
            .collect();
        judging.scanned(0, "runs/1/a.zip".into(), scan(records), &mut |v| {
            verdicts.push((v.check.clone(), v.status))
        });
        assert_eq!(verdicts.len(), 1, "a.zip's artifact check: {verdicts:?}");
        let held = judging.scans[0].as_deref().expect("held for its run");
        let rules: Vec<&str> = held.1.evidence().map(|e| e.rule.as_str()).collect();
        assert_eq!(rules, ["error.oom"]);
        judging.scanned(1, "runs/1/b.zip".into(), scan(Vec::new()), &mut |v| {
            verdicts.push((v.check.clone(), v.status))
        });
        judging.finish(&mut |v| verdicts.push((v.check.clone(), v.status)));
        // The run's verdict found a.zip's `error.oom` line: it fails.
        let run: Vec<_> = verdicts.iter().filter(|(c, _)| c == "per-run").collect();
        assert_eq!(run.len(), 1, "{verdicts:?}");
        assert_eq!(run[0].1, crate::domain::Status::Fail, "{verdicts:?}");
    }

    #[test]
    fn params_file_takes_flat_values_and_the_command_line_wins() {
        let dir = std::env::temp_dir().join(format!("artiscan-params-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.toml");
        std::fs::write(&f, "al = 3.5\ngsm8k_min = 0.9\nname = \"x\"\n").unwrap();
        let pairs = param_pairs(std::slice::from_ref(&f), &["al=2.0".into()]).unwrap();
        let p = CheckParams::parse(&pairs).unwrap();
        assert_eq!(p.0["al"], serde_json::json!(2.0));
        assert_eq!(p.0["gsm8k_min"], serde_json::json!(0.9));
        assert_eq!(p.0["name"], serde_json::json!("x"));
        std::fs::write(&f, "[al]\nqwen = 3.39\n").unwrap();
        let e = param_pairs(std::slice::from_ref(&f), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("p.toml") && e.contains("al: a parameter is one number"),
            "{e}"
        );
        std::fs::write(&f, "al = \n").unwrap();
        assert!(param_pairs(&[f], &[]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Streaming judges exactly what `judge_units` judges, in its order,
    /// whatever order the scans arrive in, on the verifier samples (runs
    /// of folders and zips, artifact and run checks).
    #[test]
    fn judging_as_scans_arrive_gives_judge_units_verdicts_in_order() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/samples/verifier");
        let checks = load_checks(&[], &["inferencex".to_string()]).unwrap();
        let rules = rules_for(&checks, &[]).unwrap();
        let params = CheckParams::default();
        let w = super::super::scope::walk_units(
            &[format!("{root}/runs"), format!("{root}/zips")],
            super::super::Layout::Auto,
        );
        assert!(w.units.len() > 10 && w.files.len() > w.units.len());
        let scan = |i: usize| {
            crate::scan::scan_artifact(
                &rules,
                &w.files[i],
                &crate::limits::ReadLimits::default(),
                crate::scan::ScanOptions {
                    every_match: true,
                    skip_prefilter: false,
                },
            )
        };
        let scans: Vec<(String, ArtifactScan)> = (0..w.files.len())
            .map(|i| (w.files[i].path.clone(), scan(i)))
            .collect();
        let want: Vec<String> = judge_units(&checks, &scans, &w.units, &params)
            .iter()
            .map(|v| format!("{v:?}"))
            .collect();
        let n = scans.len();
        let orders: Vec<Vec<usize>> = vec![
            (0..n).collect(),
            (0..n).rev().collect(),
            shuffled(n, 7),
            shuffled(n, 12345),
            (0..n)
                .map(|i| if i % 2 == 0 { i / 2 } else { n - 1 - i / 2 })
                .collect(),
        ];
        for order in orders {
            let mut got = Vec::new();
            let mut j = Judging::new(&checks, &params, &w.units, n);
            for &i in &order {
                j.scanned(i, scans[i].0.clone(), scan(i), &mut |v| {
                    got.push(format!("{v:?}"))
                });
            }
            j.finish(&mut |v| got.push(format!("{v:?}")));
            assert_eq!(got, want, "order {order:?}");
        }
        // In input order, each artifact's verdicts come as it is scanned.
        let mut j = Judging::new(&checks, &params, &w.units, n);
        let mut seen = 0;
        for (i, (path, _)) in scans.iter().enumerate().take(n / 2) {
            j.scanned(i, path.clone(), scan(i), &mut |_| seen += 1);
        }
        assert!(seen > 0, "nothing judged before the end");
    }

    /// 0..n in a fixed pseudo-random order (Fisher-Yates on an LCG).
    fn shuffled(n: usize, seed: u64) -> Vec<usize> {
        let mut v: Vec<usize> = (0..n).collect();
        let mut x = seed;
        for i in (1..n).rev() {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            v.swap(i, (x >> 33) as usize % (i + 1));
        }
        v
    }
}
