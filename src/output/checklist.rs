//! Where the verifier's checklist stands after a check: per checklist
//! number, the worst verdict of each run, mapped onto the verifier's four
//! statuses (PASS, FAIL, N/A, WARN); and the exit code, which reads the
//! same map in every output format. Verdicts keep their own status in JSON
//! (`unknown` stays `unknown` there); only this mapping reads an unknown as
//! the verifier's "could not be verified".

use super::records::{Status, Tally, Verdict};
use crate::check::by_run::ByRun;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;

/// The verifier's checks, by number, as its prompt names them (Checks
/// 0-15 of `codeowner-signoff-verify`'s prompt; the row names are short,
/// and those of Checks 4, 14 and 15 are the prompt's own).
pub(crate) const CHECK_NAMES: [&str; 16] = [
    "CODEOWNER sign-off",
    "Passing sweep and evals",
    "Evals pass",
    "Recipe linked and merged",
    "Reuse command",
    "Latest checklist",
    "Upstream images",
    "No deprecated models",
    "No architecture hacks",
    "Chat template",
    "No engine patches",
    "Golden simulated AL",
    "Append-only",
    "Draft as shipped",
    "Pareto coverage",
    "PR description",
];

/// Checks the verifier may WARN on but never FAIL: their `fail` reads WARN
/// and does not fail the exit code.
pub(crate) const ADVISORY: [u8; 3] = [4, 14, 15];

/// The name of checklist number `n`.
pub(crate) fn check_name(n: u8) -> &'static str {
    CHECK_NAMES.get(usize::from(n)).copied().unwrap_or("check")
}

/// What a row says, best last (the order picks the worst run).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum RowStatus {
    /// A verdict fails.
    Fail,
    /// A verdict of an advisory check (4, 14, 15) fails.
    Warn,
    /// Undecided: a verdict is unknown, or the check applies and nothing in
    /// the download speaks to it. FAIL "could not be verified" (WARN
    /// "unverifiable" for advisory checks).
    Unverified,
    Pass,
    /// The artifacts show the prompt's own N/A condition.
    NotApplicable,
}

impl RowStatus {
    /// The mark and word of the verifier's row.
    pub(crate) fn mark(self, n: u8) -> (&'static str, &'static str) {
        match self {
            RowStatus::Fail => ("❌", "FAIL"),
            RowStatus::Warn => ("⚠️", "WARN"),
            RowStatus::Unverified if ADVISORY.contains(&n) => ("⚠️", "WARN"),
            RowStatus::Unverified => ("❌", "FAIL"),
            RowStatus::Pass => ("✅", "PASS"),
            RowStatus::NotApplicable => ("➖", "N/A"),
        }
    }

    /// How a run's standing is counted beside the worst run's.
    pub(crate) fn label(self) -> &'static str {
        match self {
            RowStatus::Fail => "FAIL",
            RowStatus::Warn => "WARN",
            RowStatus::Unverified => "not verified",
            RowStatus::Pass => "PASS",
            RowStatus::NotApplicable => "N/A",
        }
    }

    /// Whether the row goes in the collapsed PASS/N/A group.
    pub(crate) fn collapsed(self) -> bool {
        matches!(self, RowStatus::Pass | RowStatus::NotApplicable)
    }
}

/// The worst verdict of one number in one run, and how all of them stand.
#[derive(Clone, Debug)]
pub(crate) struct Worst {
    pub verdict: Verdict,
    pub tally: Tally,
}

/// What a run's artifact names declare, for the N/A conditions.
#[derive(Clone, Debug, Default)]
pub(crate) struct Declared {
    /// Speculative methods named (`spec-mtp`), `none` left out.
    pub spec: std::collections::BTreeSet<String>,
    /// Whether an artifact name is agentic (`agentic_`, `bmk_agentic_`).
    pub agentic: bool,
}

/// One run's standing: per number its worst verdict, what its names
/// declare, and the verdicts without a number that fail or are unknown
/// (crash findings: notes, not rows).
#[derive(Clone, Debug, Default)]
pub(crate) struct RunStanding {
    pub numbers: BTreeMap<u8, Worst>,
    pub declared: Declared,
    pub unnumbered: Vec<Verdict>,
    pub unnumbered_left: u64,
    /// Each unnumbered finding's (check, twin key), seen once: the
    /// `agentic_<RF>` and `server_logs_<RF>` copies of one server log
    /// report one crash, so it is one note.
    seen_findings: std::collections::HashSet<(String, String)>,
    /// Per verdict scope (artifact, or the run for run-scope checks), its
    /// worst verdict per number: a folder holding several runs is split
    /// by its artifacts when the rows are written.
    pub parts: ByRun<BTreeMap<u8, Worst>>,
    /// How the curve checks took a `_high` folder given beside the run:
    /// one sweep with it, or judged apart (the verdicts' `observed.sweeps`).
    pub sweeps: Vec<String>,
}

/// Unnumbered findings kept per run for notes; the rest are counted.
const NOTES_KEPT: usize = 4;

/// `v` counted into `numbers`' worst verdict of number `n`, kept as
/// `keep` makes it.
fn worse(numbers: &mut BTreeMap<u8, Worst>, n: u8, v: &Verdict, keep: fn(&Verdict) -> Verdict) {
    match numbers.entry(n) {
        Entry::Vacant(e) => {
            e.insert(Worst {
                verdict: keep(v),
                tally: Tally::of([v.status]),
            });
        }
        Entry::Occupied(mut e) => {
            let w = e.get_mut();
            w.tally.add(v.status);
            if rank(v.status) < rank(w.verdict.status) {
                w.verdict = keep(v);
            }
        }
    }
}

/// What a row reads of a verdict (its claim, reason and first two
/// citations): the rest (rule text, observed and expected values) is
/// dropped from the per-artifact worsts, one per artifact and number.
fn slim(v: &Verdict) -> Verdict {
    Verdict {
        checklist: v.checklist,
        status: v.status,
        reason: v.reason.clone(),
        evidence: v.evidence.iter().take(2).cloned().collect(),
        ..Verdict::new(&v.check, &v.description, "", &v.scope)
    }
}

impl RunStanding {
    /// Per number, the worst verdict over the artifacts (verdict scopes)
    /// `keep` picks: one run of a folder holding several.
    pub(crate) fn numbers_of(&self, keep: impl Fn(&str) -> bool) -> BTreeMap<u8, Worst> {
        let mut out: BTreeMap<u8, Worst> = BTreeMap::new();
        for (_, numbers) in self.parts.iter().filter(|(s, _)| keep(s)) {
            for (&n, w) in numbers {
                match out.entry(n) {
                    Entry::Vacant(e) => {
                        e.insert(w.clone());
                    }
                    Entry::Occupied(mut e) => {
                        let o = e.get_mut();
                        let t = &w.tally;
                        o.tally.pass += t.pass;
                        o.tally.fail += t.fail;
                        o.tally.unknown += t.unknown;
                        o.tally.not_applicable += t.not_applicable;
                        if rank(w.verdict.status) < rank(o.verdict.status) {
                            o.verdict = w.verdict.clone();
                        }
                    }
                }
            }
        }
        out
    }
}

/// Each run's row status for number `n` over `runs` (a run's name, its
/// worst verdict per number, what its names declare), worst run first.
pub(crate) fn rows_of<'a>(
    runs: &'a [(String, BTreeMap<u8, Worst>, &'a Declared)],
    n: u8,
) -> Vec<RunRow<'a>> {
    let mut rows: Vec<RunRow<'a>> = runs
        .iter()
        .filter_map(|(run, numbers, declared)| {
            let worst = numbers.get(&n)?;
            Some(RunRow {
                run,
                status: row_status(n, worst, declared),
                worst,
            })
        })
        .collect();
    rows.sort_by_key(|r| r.status);
    rows
}

fn rank(s: Status) -> u8 {
    match s {
        Status::Fail => 0,
        Status::Unknown => 1,
        Status::Pass => 2,
        Status::NotApplicable => 3,
    }
}

/// The checklist as verdicts arrive: one worst verdict per run and number.
#[derive(Debug, Default)]
pub(crate) struct Checklist {
    run_checks: Vec<String>,
    pub(crate) runs: ByRun<RunStanding>,
    tally: Tally,
    /// Fails of checks that are not advisory (unnumbered ones included).
    hard_fails: u64,
    /// What each artifact's records say of its run, to split a folder
    /// holding several runs as the rows do (`records`).
    facts: crate::check::what_ran::Facts,
}

/// One run's verdict for one number, as the row reads it.
#[derive(Clone, Debug)]
pub(crate) struct RunRow<'a> {
    pub run: &'a str,
    pub status: RowStatus,
    pub worst: &'a Worst,
}

impl Checklist {
    pub(crate) fn new(run_checks: Vec<String>) -> Checklist {
        Checklist {
            run_checks,
            ..Checklist::default()
        }
    }

    /// One scanned file of `run` at `path` and its records (for the exit
    /// code to split runs as the verdict rows do).
    pub(crate) fn records(&mut self, run: &str, path: &str, records: &[crate::scan::Record]) {
        self.facts.records(run, path, records);
    }

    pub(crate) fn verdict(&mut self, v: &Verdict) {
        let facts = std::mem::take(&mut self.facts);
        self.verdict_in(v, &facts);
        self.facts = facts;
    }

    /// `v` counted, `facts` saying which artifacts could be told apart
    /// from their neighbours (`run_id::split_folder`).
    pub(crate) fn verdict_in(&mut self, v: &Verdict, facts: &crate::check::what_ran::Facts) {
        // A chart or script beside the artifacts is no run of its own: only
        // a fail there would count.
        if !crate::check::run_id::is_ci_artifact(&v.scope) && v.status != Status::Fail {
            return;
        }
        self.tally.add(v.status);
        if v.status == Status::Fail && !v.checklist.is_some_and(|n| ADVISORY.contains(&n)) {
            self.hard_fails += 1;
        }
        let run = super::verdicts::run_of(v, &self.run_checks);
        let standing = self.runs.entry(&run, RunStanding::default);
        declare(&mut standing.declared, &v.scope);
        if let Some(serde_json::Value::Array(said)) = v.observed.get("sweeps") {
            for s in said.iter().filter_map(serde_json::Value::as_str) {
                if !standing.sweeps.iter().any(|k| k == s) {
                    standing.sweeps.push(s.to_string());
                }
            }
        }
        let Some(n) = v.checklist else {
            if matches!(v.status, Status::Fail | Status::Unknown) {
                let key = (v.check.clone(), twin_key(&v.scope));
                if !standing.seen_findings.insert(key.clone()) {
                    // The twin's finding: the worse of the two is kept.
                    if let Some(held) = standing
                        .unnumbered
                        .iter_mut()
                        .find(|h| (h.check.clone(), twin_key(&h.scope)) == key)
                        && rank(v.status) < rank(held.status)
                    {
                        *held = v.clone();
                    }
                    return;
                }
                if standing.unnumbered.len() < NOTES_KEPT {
                    standing.unnumbered.push(v.clone());
                } else {
                    standing.unnumbered_left += 1;
                }
            }
            return;
        };
        worse(&mut standing.numbers, n, v, Verdict::clone);
        // Only an artifact naming a model or a date can be placed in one of
        // a folder's runs; the others (and run-scope verdicts) stay under
        // the folder, held once: a folder of 20,000 unmarked files holds
        // no worst per file.
        let placeable = crate::check::run_id::is_ci_artifact(&v.scope)
            && facts
                .artifacts(&run)
                .and_then(|a| a.get(&v.scope))
                .is_some_and(|f| !f.marks.is_empty());
        let part = if placeable { &v.scope } else { &run };
        worse(standing.parts.entry(part, BTreeMap::new), n, v, slim);
    }

    /// The numbers any run was judged on, in order.
    pub(crate) fn numbers(&self) -> Vec<u8> {
        let mut ns: Vec<u8> = self
            .runs
            .iter()
            .flat_map(|(_, s)| s.numbers.keys().copied())
            .collect();
        ns.sort_unstable();
        ns.dedup();
        ns
    }

    /// Each run's row status for number `n`, worst run first (runs in
    /// order of first sight among equals), folders unsplit (the rows
    /// split them: `verdict_rows`).
    #[cfg(test)]
    pub(crate) fn row(&self, n: u8) -> Vec<RunRow<'_>> {
        let mut rows: Vec<RunRow<'_>> = self
            .runs
            .iter()
            .filter_map(|(run, s)| {
                let worst = s.numbers.get(&n)?;
                Some(RunRow {
                    run,
                    status: row_status(n, worst, &s.declared),
                    worst,
                })
            })
            .collect();
        rows.sort_by_key(|r| r.status);
        rows
    }

    /// The exit code every format shares: 1 when a verdict fails (a crash
    /// finding without a number included; an advisory check's fail is a
    /// WARN and does not count); else 3 when a verdict is unknown or a row
    /// could not be verified; else 0.
    pub(crate) fn exit_code(&self) -> i32 {
        self.exit_code_with(&self.facts)
    }

    /// [`Checklist::exit_code`] where what ran is held elsewhere (by the
    /// rows or the Markdown report, which were given the same records).
    pub(crate) fn exit_code_with(&self, facts: &crate::check::what_ran::Facts) -> i32 {
        if self.hard_fails > 0 {
            return 1;
        }
        // As the rows read it: a folder holding several runs is split first
        // (a run without evals is "could not be verified" beside one with).
        let unverified = super::verdict_rows::any_unverified(self, Some(facts));
        if self.tally.unknown > 0 || unverified {
            3
        } else {
            0
        }
    }
}

/// What names one server log's copies alike: the artifact's result stem
/// without its kind (`agentic_<RF>` and `server_logs_<RF>` are both
/// `<RF>`: InferenceX uploads the agentic job's `server.log` twice), or
/// the scope itself for a name that does not parse.
fn twin_key(scope: &str) -> String {
    let name = scope.rsplit('/').next().unwrap_or(scope);
    let dir = scope.rsplit_once('/').map_or("", |(d, _)| d);
    match crate::names::parse_name(name).and_then(|f| f.kind) {
        Some(kind) if kind == "agentic" || kind == "server_logs" => {
            let stem = crate::names::stem(name);
            let rf = stem.strip_prefix(&format!("{kind}_")).unwrap_or(stem);
            format!("{dir}/{rf}")
        }
        _ => scope.to_string(),
    }
}

/// Notes what an artifact's name declares.
fn declare(d: &mut Declared, scope: &str) {
    let name = scope.rsplit('/').next().unwrap_or(scope);
    if let Some(f) = crate::names::parse_name(name) {
        if let Some(s) = f.spec.filter(|s| s != "none") {
            d.spec.insert(s);
        }
        if f.kind.as_deref().is_some_and(|k| k.contains("agentic")) {
            d.agentic = true;
        }
    }
}

/// Whether the artifacts can show the prompt's N/A condition of check `n`:
/// only "no speculative decoding" (9, 13) and "no agentic speculative
/// decoding" (11) can be read from a download. The N/A conditions of the
/// others (2, 8, 10, 14) are about the PR's diff: a run of a benchmark is
/// always in their scope, and their "nothing here" means missing evidence.
fn may_be_not_applicable(n: u8, d: &Declared) -> bool {
    match n {
        // A name that declares a speculative method contradicts a "no
        // speculative decoding here" read from the logs.
        9 | 13 => d.spec.is_empty(),
        11 => d.spec.is_empty() || !d.agentic,
        _ => false,
    }
}

fn row_status(n: u8, w: &Worst, d: &Declared) -> RowStatus {
    let advisory = ADVISORY.contains(&n);
    match w.verdict.status {
        Status::Fail if advisory => RowStatus::Warn,
        Status::Fail => RowStatus::Fail,
        Status::Unknown => RowStatus::Unverified,
        Status::Pass => RowStatus::Pass,
        Status::NotApplicable if may_be_not_applicable(n, d) => RowStatus::NotApplicable,
        Status::NotApplicable => RowStatus::Unverified,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn v(check: &str, n: Option<u8>, scope: &str, st: Status) -> Verdict {
        let mut v = Verdict::new(check, "", "r", scope);
        v.checklist = n;
        v.status = st;
        v
    }

    const SPEC: &str = "runs/1/server_logs_glm5.1_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02";
    const NOSPEC: &str = "runs/1/server_logs_glm5.1_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-none_conc16_mi355x-amds_02";

    #[test]
    fn not_applicable_stands_only_where_the_download_can_show_it() {
        let mut c = Checklist::new(vec![]);
        for n in [2, 8, 9, 10, 13, 14] {
            c.verdict(&v("x", Some(n), NOSPEC, Status::NotApplicable));
        }
        let st = |c: &Checklist, n| c.row(n)[0].status;
        assert_eq!(st(&c, 9), RowStatus::NotApplicable);
        assert_eq!(st(&c, 13), RowStatus::NotApplicable);
        for n in [2, 8, 10, 14] {
            assert_eq!(st(&c, n), RowStatus::Unverified, "{n}");
        }
        assert_eq!(c.exit_code(), 3);
        // A name that says spec-mtp: "no speculative decoding" is not shown.
        let mut c = Checklist::new(vec![]);
        c.verdict(&v("x", Some(9), SPEC, Status::NotApplicable));
        assert_eq!(st(&c, 9), RowStatus::Unverified);
    }

    #[test]
    fn exit_code_reads_advisory_fails_as_warnings_and_crashes_as_fails() {
        let mut c = Checklist::new(vec![]);
        c.verdict(&v("pareto", Some(14), NOSPEC, Status::Fail));
        c.verdict(&v("p", Some(8), NOSPEC, Status::Pass));
        assert_eq!(c.row(14)[0].status, RowStatus::Warn);
        assert_eq!(c.exit_code(), 0);
        c.verdict(&v("no-oom", None, NOSPEC, Status::Unknown));
        assert_eq!(c.exit_code(), 3);
        c.verdict(&v("no-traceback", None, NOSPEC, Status::Fail));
        assert_eq!(c.exit_code(), 1);
        assert_eq!(c.runs.iter().next().unwrap().1.unnumbered.len(), 2);
    }

    #[test]
    fn one_crash_in_the_twin_copies_of_a_server_log_is_one_finding() {
        // InferenceX uploads the agentic job's server.log as agentic_<RF>
        // and as server_logs_<RF> (the real minimaxm2.5 run: 17 twins, byte
        // for byte): one crash, one note, the worse verdict kept.
        let rf = "minimaxm2.5_tp2_conc4_offloadlmcache_fp8_vllm_tp2-ep1-dpafalse_disagg-false_spec-none_conc4_mi355x-amds_05";
        let mut c = Checklist::new(vec![]);
        c.verdict(&v(
            "no-oom",
            None,
            &format!("r/server_logs_{rf}"),
            Status::Unknown,
        ));
        c.verdict(&v("no-oom", None, &format!("r/agentic_{rf}"), Status::Fail));
        c.verdict(&v(
            "no-traceback",
            None,
            &format!("r/agentic_{rf}"),
            Status::Fail,
        ));
        let other = rf.replace("amds_05", "amds_06");
        c.verdict(&v(
            "no-oom",
            None,
            &format!("r/agentic_{other}"),
            Status::Fail,
        ));
        let s = c.runs.get("r").unwrap();
        let got: Vec<(&str, &str, Status)> = s
            .unnumbered
            .iter()
            .map(|v| (v.check.as_str(), v.scope.as_str(), v.status))
            .collect();
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(
            got[0],
            ("no-oom", format!("r/agentic_{rf}").as_str(), Status::Fail)
        );
        assert_eq!(got[1].0, "no-traceback");
        assert!(got[2].1.ends_with("amds_06"));
        assert_eq!(c.exit_code(), 1);
    }

    #[test]
    fn a_chart_beside_the_artifacts_forms_no_run() {
        let mut c = Checklist::new(vec![]);
        c.verdict(&v(
            "x",
            Some(2),
            "runs/combined_pareto_tokens.png",
            Status::NotApplicable,
        ));
        assert!(c.runs.is_empty());
        assert_eq!(c.exit_code(), 0);
    }

    #[test]
    fn the_worst_run_comes_first() {
        let mut c = Checklist::new(vec![]);
        c.verdict(&v("a", Some(8), "runs/1/x.zip", Status::Pass));
        c.verdict(&v("a", Some(8), "runs/2/x.zip", Status::Unknown));
        c.verdict(&v("b", Some(8), "runs/3/x.zip", Status::Fail));
        let rows = c.row(8);
        let order: Vec<&str> = rows.iter().map(|r| r.run).collect();
        assert_eq!(order, ["runs/3", "runs/2", "runs/1"]);
        assert_eq!(c.exit_code(), 1);
    }
}
