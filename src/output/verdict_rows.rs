//! `check --format verdicts`: verdicts in the shape of the InferenceX
//! verifier's own rows (`✅ Check 13 (Draft as shipped): PASS — reason`),
//! one row per verifier check number and run, the worst verdict of the
//! run's artifacts first, with one citation. Built one verdict at a time,
//! as a check judges them.

use super::records::{Status, Tally, Verdict};
use super::verdicts::cut_chars;
use crate::check::by_run::ByRun;
use crate::escape;
use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::fmt::Write;

/// The verifier's checks, by number, as its prompt names them (Checks
/// 0-15 of `codeowner-signoff-verify`'s prompt; the row names are short).
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

/// Checks the verifier may WARN on but never FAIL: their `fail` reads WARN.
const ADVISORY: [u8; 3] = [4, 14, 15];

/// The most characters written (GitHub's comment limit is 65,536).
const BUDGET: usize = 60_000;
/// Characters of a reason written in a row.
const REASON: usize = 400;

fn worse(s: Status) -> u8 {
    match s {
        Status::Fail => 0,
        Status::Unknown => 1,
        Status::Pass => 2,
        Status::NotApplicable => 3,
    }
}

/// The verifier-shaped rows, built as verdicts are judged: per run (in
/// order of first appearance), one row per checklist number judged, ordered
/// by number. Only the worst verdict so far and the counts are held per run
/// and number, never every verdict. `run_checks` names the checks judged per
/// run (`scope = "run"`), whose scope is the run folder. Verdicts of checks
/// without a number are only counted. All artifact text sits in code spans
/// it cannot leave.
pub(crate) struct VerdictRows {
    run_checks: Vec<String>,
    runs: ByRun<BTreeMap<u8, Worst>>,
    unnumbered: u64,
}

/// The first of the worst verdicts of one number in a run, and how all of
/// them stand.
struct Worst {
    verdict: Verdict,
    tally: Tally,
}

impl VerdictRows {
    pub(crate) fn new(run_checks: Vec<String>) -> VerdictRows {
        VerdictRows {
            run_checks,
            runs: ByRun::default(),
            unnumbered: 0,
        }
    }

    pub(crate) fn verdict(&mut self, v: &Verdict) {
        let Some(n) = v.checklist else {
            self.unnumbered += 1;
            return;
        };
        let run = super::verdicts::run_of(v, &self.run_checks);
        match self.runs.entry(&run, BTreeMap::new).entry(n) {
            Entry::Vacant(e) => {
                e.insert(Worst {
                    verdict: v.clone(),
                    tally: Tally::of([v.status]),
                });
            }
            Entry::Occupied(mut e) => {
                let w = e.get_mut();
                w.tally.add(v.status);
                if worse(v.status) < worse(w.verdict.status) {
                    w.verdict = v.clone();
                }
            }
        }
    }

    pub(crate) fn finish(&self) -> String {
        let mut out = String::new();
        let mut left = 0;
        for (run, numbers) in self.runs.iter() {
            let mut block = String::new();
            let _ = writeln!(
                block,
                "### Run {}\n",
                escape::md_code(&crate::location::escape(run))
            );
            for (&n, w) in numbers {
                block.push_str(&row(n, w));
                block.push('\n');
            }
            if out.len() + block.len() + 200 > BUDGET {
                left += 1;
                continue;
            }
            out.push_str(&block);
        }
        if left > 0 {
            let _ = writeln!(
                out,
                "_{left} more run(s) do not fit a comment: `--format jsonl` has them all._\n"
            );
        }
        if self.runs.is_empty() {
            out.push_str("_No verdict of a check that carries a verifier check number._\n");
        }
        if self.unnumbered > 0 {
            let _ = writeln!(
                out,
                "_{} verdict(s) of checks without a verifier check number are not shown: see `--format markdown`._",
                self.unnumbered
            );
        }
        out
    }
}

/// The rows for `verdicts` (see [`VerdictRows`]).
#[cfg(test)]
fn render(verdicts: &[Verdict], run_checks: &[String]) -> String {
    let mut rows = VerdictRows::new(run_checks.to_vec());
    for v in verdicts {
        rows.verdict(v);
    }
    rows.finish()
}

/// One row: the worst verdict of this number in the run, its reason and
/// first citation, and how the others stand.
fn row(n: u8, w: &Worst) -> String {
    let worst = &w.verdict;
    let name = CHECK_NAMES.get(usize::from(n)).copied().unwrap_or("check");
    let (icon, word) = match worst.status {
        Status::Fail if ADVISORY.contains(&n) => ("⚠️", "WARN"),
        Status::Fail => ("❌", "FAIL"),
        Status::Unknown => ("❔", "UNKNOWN"),
        Status::Pass => ("✅", "PASS"),
        Status::NotApplicable => ("➖", "N/A"),
    };
    let artifact = worst.scope.rsplit('/').next().unwrap_or(&worst.scope);
    let mut s = format!(
        "{icon} Check {n} ({name}): {word} — {} on {}: {}",
        escape::md_code(&worst.check),
        escape::md_code(&crate::location::escape(artifact)),
        escape::md_code(&cut_chars(&worst.reason, REASON)),
    );
    let t = &w.tally;
    let of = t.fail + t.unknown + t.pass + t.not_applicable;
    if of > 1 {
        let parts: Vec<String> = [
            (t.fail, "fail"),
            (t.unknown, "unknown"),
            (t.pass, "pass"),
            (t.not_applicable, "not applicable"),
        ]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, w)| format!("{count} {w}"))
        .collect();
        let _ = write!(s, " (worst of {of} verdicts: {})", parts.join(", "));
    }
    s.push('\n');
    if let Some(c) = worst.evidence.first() {
        let _ = writeln!(s, "{}", escape::md_code(&c.citation));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::records::Cited;

    fn v(check: &str, n: Option<u8>, scope: &str, st: Status, reason: &str) -> Verdict {
        let mut v = Verdict::new(check, "", "r", scope);
        v.checklist = n;
        v.status = st;
        v.reason = reason.into();
        v.evidence = vec![Cited {
            citation: format!("{scope}!server.log:3"),
            server: None,
            rank: None,
        }];
        v
    }

    #[test]
    fn one_row_per_number_and_run_worst_first() {
        let vs = vec![
            v("a", Some(13), "runs/1/x.zip", Status::Pass, "unset"),
            v(
                "b",
                Some(13),
                "runs/1/y.zip",
                Status::Fail,
                "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1",
            ),
            v(
                "c",
                Some(9),
                "runs/1/y.zip",
                Status::NotApplicable,
                "no spec",
            ),
            v("d", Some(14), "runs/1", Status::Fail, "4 points"),
            v("e", None, "runs/1/x.zip", Status::Fail, "oom"),
            v(
                "a",
                Some(13),
                "runs/2/z.zip",
                Status::Unknown,
                "cut `short` | x",
            ),
        ];
        let md = render(&vs, &["d".to_string()]);
        let run1 = md.find("### Run `runs/1`").unwrap();
        let run2 = md.find("### Run `runs/2`").unwrap();
        assert!(run1 < run2, "{md}");
        let r13 = md
            .find("❌ Check 13 (Draft as shipped): FAIL — `b` on `y.zip`: `SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1` (worst of 2 verdicts: 1 fail, 1 pass)\n`runs/1/y.zip!server.log:3`")
            .unwrap_or_else(|| panic!("{md}"));
        let r9 = md.find("➖ Check 9 (Chat template): N/A").unwrap();
        assert!(r9 < r13, "ordered by number: {md}");
        // Check 14 may warn but never fail; a run-scope verdict is the run's.
        assert!(
            md.contains("⚠️ Check 14 (Pareto coverage): WARN — `d` on `1`"),
            "{md}"
        );
        // Artifact text cannot leave its code span or open a table cell.
        assert!(
            md.contains(
                "❔ Check 13 (Draft as shipped): UNKNOWN — `a` on `z.zip`: ``cut `short` \\| x``"
            ),
            "{md}"
        );
        assert!(
            md.contains("1 verdict(s) of checks without a verifier check number"),
            "{md}"
        );
        assert_eq!(md.matches("Check 13").count(), 2, "{md}");
    }

    #[test]
    fn nothing_numbered_says_so() {
        let md = render(&[v("e", None, "x.zip", Status::Pass, "ok")], &[]);
        assert!(md.contains("No verdict of a check that carries"), "{md}");
    }
}
