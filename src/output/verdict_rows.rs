//! `check --format verdicts`: the fragment the InferenceX verifier merges
//! into its verdict. One block per invocation, however many runs are
//! given: exactly one row per checklist number judged, in the verifier's
//! shape (`✅ Check 13 (Draft as shipped): PASS — reason`), its status the
//! worst over the runs (naming the run where the runs differ), its reason
//! in plain words with one or two citations. Then `Note:` lines (no status
//! mark, so the publisher never reads them as rows) for findings without a
//! checklist number (crashes, OOM). With `grouped`, the prompt's layout:
//! failures and warnings first, PASS and N/A rows in one collapsed
//! `<details>` group.

use super::checklist::{
    ADVISORY, Checklist, Declared, RowStatus, RunRow, RunStanding, Worst, check_name, rows_of,
};
use super::plain;
use super::records::{Status, Verdict};
use super::verdicts::cut_chars;
use crate::check::run_id::{Split, split_folder};
use crate::check::what_ran::{Facts, RunFacts, merged, what_ran};
use crate::escape;
use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

/// Characters of a row's reason (citations come after it).
pub(crate) const REASON: usize = 300;
/// At most this many characters a row, citations included (the
/// verifier's row lint).
const ROW_MAX: usize = 400;
/// A reason is never cut below this to make room for a citation.
const MIN_REASON: usize = 120;
/// The most characters of notes per run.
const NOTES_PER_RUN: usize = 2_000;

pub(crate) struct VerdictRows {
    list: Checklist,
    grouped: bool,
    /// What ran, per run (written under the rows).
    pub(crate) facts: Facts,
}

impl VerdictRows {
    pub(crate) fn new(run_checks: Vec<String>, grouped: bool) -> VerdictRows {
        VerdictRows {
            list: Checklist::new(run_checks),
            grouped,
            facts: Facts::default(),
        }
    }

    pub(crate) fn verdict(&mut self, v: &Verdict) {
        self.list.verdict_in(v, &self.facts);
    }

    pub(crate) fn finish(&self) -> String {
        render(&self.list, Some(&self.facts), self.grouped)
    }

    pub(crate) fn exit_code(&self) -> i32 {
        self.list.exit_code_with(&self.facts)
    }
}

/// One run as the rows read it: a folder's run, or one of the runs a
/// folder holding several was split into (`run_id::split_folder`).
struct View<'a> {
    /// Unique among views: the folder, or the folder and the run's number.
    key: String,
    /// What rows and notes call it (Markdown).
    label: String,
    folder: &'a str,
    standing: &'a RunStanding,
    numbers: BTreeMap<u8, Worst>,
    facts: Option<RunFacts>,
    /// Said once, before the folder's first view: how it was split, or
    /// why it could not be.
    split_note: Option<String>,
}

/// The runs of `list`, a folder holding several split by the evidence
/// that differs.
fn views<'a>(list: &'a Checklist, facts: Option<&Facts>) -> Vec<View<'a>> {
    let mut out = Vec::new();
    for (run, standing) in list.runs.iter() {
        let arts = facts.and_then(|f| f.artifacts(run));
        // A chart or script beside the artifacts forms no run and places none.
        let ci: Vec<(&str, &RunFacts)> = arts.map_or(Vec::new(), |a| {
            a.iter()
                .filter(|(n, _)| crate::check::run_id::is_ci_artifact(n))
                .collect()
        });
        let names: Vec<&str> = ci.iter().map(|(n, _)| *n).collect();
        let marks: Vec<_> = ci.iter().map(|(_, f)| f.marks.clone()).collect();
        let whole = |note: Option<String>| View {
            key: run.to_string(),
            label: run_label(run),
            folder: run,
            standing,
            numbers: standing.numbers.clone(),
            facts: facts.and_then(|f| f.get(run)),
            split_note: note,
        };
        match split_folder(&marks) {
            Split::One => out.push(whole(None)),
            Split::Undecided(why) => out.push(whole(Some(format!(
                "{}: one run or several, the download does not say; judged as one run",
                escape::md_cell(&why)
            )))),
            Split::Apart { on, runs, rest } => {
                let mut group_of: HashMap<&str, usize> = HashMap::new();
                for (g, (_, _, members)) in runs.iter().enumerate() {
                    for &i in members {
                        group_of.insert(names[i], g);
                    }
                }
                let facts_of = |members: &[usize]| {
                    let a = arts.expect("split from facts");
                    merged(members.iter().filter_map(|&i| a.get(names[i])))
                };
                let told: Vec<String> = runs
                    .iter()
                    .enumerate()
                    .map(|(g, (value, cite, members))| {
                        format!(
                            "#{} {} ({}, {} artifact(s))",
                            g + 1,
                            escape::md_code(value),
                            escape::md_code(cite),
                            members.len()
                        )
                    })
                    .collect();
                let mut note = format!(
                    "folder {} holds {} runs, told apart by {on}: {}; each is judged as its own run below",
                    run_label(run),
                    runs.len(),
                    told.join(", ")
                );
                let _ = write!(
                    note,
                    "; checks judged over the folder (Check 2's eval image, Check 9's client, Check 14's curves) read all of them"
                );
                if let Some(&i) = rest.first() {
                    let _ = write!(
                        note,
                        ", as do {} artifact(s) {on} does not place (e.g. {}): these are under {} (the folder)",
                        rest.len(),
                        escape::md_code(&crate::location::escape(
                            names[i].rsplit('/').next().unwrap_or(names[i])
                        )),
                        run_label(run)
                    );
                } else {
                    let _ = write!(note, ": these are under {} (the folder)", run_label(run));
                }
                note.push_str("; give each run's artifacts separately to judge them apart");
                let mut first = Some(note);
                for (g, (_, _, members)) in runs.iter().enumerate() {
                    out.push(View {
                        key: format!("{run}\u{1f}{}", g + 1),
                        label: format!("{} #{}", run_label(run), g + 1),
                        folder: run,
                        standing,
                        numbers: standing.numbers_of(|s| group_of.get(s) == Some(&g)),
                        facts: Some(facts_of(members)),
                        split_note: first.take(),
                    });
                }
                let numbers = standing.numbers_of(|s| !group_of.contains_key(s));
                if !numbers.is_empty() || !rest.is_empty() {
                    out.push(View {
                        key: run.to_string(),
                        label: run_label(run),
                        folder: run,
                        standing,
                        numbers,
                        facts: (!rest.is_empty()).then(|| facts_of(&rest)),
                        split_note: None,
                    });
                }
            }
        }
    }
    out
}

/// Whether any row of `list`'s block could not be verified (the exit
/// code's 3).
pub(crate) fn any_unverified(list: &Checklist, facts: Option<&Facts>) -> bool {
    let views = views(list, facts);
    let table: Vec<(String, BTreeMap<u8, Worst>, &Declared)> = views
        .iter()
        .map(|v| (v.key.clone(), v.numbers.clone(), &v.standing.declared))
        .collect();
    table
        .iter()
        .flat_map(|(_, n, _)| n.keys().copied())
        .any(|n| {
            rows_of(&table, n)
                .iter()
                .any(|r| r.status == RowStatus::Unverified)
        })
}

/// The block for `list`.
pub(crate) fn render(list: &Checklist, facts: Option<&Facts>, grouped: bool) -> String {
    let views = views(list, facts);
    let table: Vec<(String, BTreeMap<u8, Worst>, &Declared)> = views
        .iter()
        .map(|v| (v.key.clone(), v.numbers.clone(), &v.standing.declared))
        .collect();
    let labels: HashMap<&str, &str> = views
        .iter()
        .map(|v| (v.key.as_str(), v.label.as_str()))
        .collect();
    let label = |key: &str| -> String {
        labels
            .get(key)
            .map_or_else(|| run_label(key), |l| (*l).to_string())
    };
    let folder_of: HashMap<&str, &str> = views.iter().map(|v| (v.key.as_str(), v.folder)).collect();
    let several = views.len() > 1;
    let mut numbers: Vec<u8> = table
        .iter()
        .flat_map(|(_, n, _)| n.keys().copied())
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    let rows: Vec<(RowStatus, String)> = numbers
        .into_iter()
        .map(|n| {
            let r = rows_of(&table, n);
            let folder = folder_of.get(r[0].run).copied().unwrap_or(r[0].run);
            (r[0].status, row(n, &r, several, &label, folder))
        })
        .collect();
    let mut out = String::new();
    if list.runs.is_empty() || rows.is_empty() {
        out.push_str("_No verdict of a check that carries a verifier check number._\n");
    }
    if grouped {
        for (_, r) in rows.iter().filter(|(s, _)| !s.collapsed()) {
            out.push_str(r);
            out.push_str("\n\n");
        }
        if rows.iter().any(|(s, _)| s.collapsed()) {
            out.push_str("<details>\n<summary>Passed and not applicable checks</summary>\n\n");
            for (_, r) in rows.iter().filter(|(s, _)| s.collapsed()) {
                out.push_str(r);
                out.push_str("\n\n");
            }
            out.push_str("</details>\n\n");
        }
    } else {
        for (_, r) in &rows {
            out.push_str(r);
            out.push_str("\n\n");
        }
    }
    for (i, view) in views.iter().enumerate() {
        let mut notes = String::new();
        let at = if several {
            format!(" (run {})", view.label)
        } else {
            String::new()
        };
        if let Some(n) = &view.split_note {
            let _ = writeln!(notes, "Note: {n}");
        }
        if let Some(f) = &view.facts {
            let w = what_ran(f);
            if !w.lines.is_empty() {
                let _ = writeln!(out, "**What ran** in run {}:", view.label);
                for l in &w.lines {
                    let _ = writeln!(out, "- {l}");
                }
                out.push('\n');
            }
            for n in &w.notes {
                let _ = writeln!(notes, "Note{at}: {n}");
            }
        }
        // Findings without a number are the folder's: said after its last view.
        let last_of_folder = views
            .get(i + 1)
            .is_none_or(|next| next.folder != view.folder);
        if last_of_folder {
            let standing = view.standing;
            let run = view.folder;
            for s in &standing.sweeps {
                let _ = writeln!(notes, "Note{at}: {}", escape::md_cell(s));
            }
            let mut written = 0u64;
            for v in &standing.unnumbered {
                let line = note(v, run, several);
                if notes.len() + line.len() > NOTES_PER_RUN {
                    break;
                }
                notes.push_str(&line);
                written += 1;
            }
            let kept = standing.unnumbered.len() as u64;
            let left = standing.unnumbered_left + kept - written.min(kept);
            if left > 0 {
                let _ = writeln!(
                    notes,
                    "Note: {left} more finding(s) without a checklist number in run {}: `--format jsonl` has them.",
                    run_label(run)
                );
            }
        }
        out.push_str(&notes);
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    out
}

/// The short name of a run: its folder's last component.
fn run_label(run: &str) -> String {
    let name = run.trim_end_matches('/').rsplit('/').next().unwrap_or(run);
    let name = if name.is_empty() || name == "." {
        run
    } else {
        name
    };
    escape::md_code(&crate::location::escape(name))
}

/// One row: the worst run's verdict, in plain words, with citations.
fn row(
    n: u8,
    rows: &[RunRow<'_>],
    several: bool,
    label: &dyn Fn(&str) -> String,
    folder: &str,
) -> String {
    let top = &rows[0];
    let (mark, word) = top.status.mark(n);
    let v = &top.worst.verdict;
    let mut reason = match top.status {
        RowStatus::Fail => format!(
            "`{}`: {} does not hold: {}",
            v.check,
            escape::md_cell(&plain::claim(v)),
            escape::md_cell(&plain::reason(v))
        ),
        RowStatus::Warn => format!(
            "{}; admin exception not verified here",
            escape::md_cell(&plain::reason(v))
        ),
        RowStatus::Unverified if for_want_of_evidence(v) => missing(n, folder),
        RowStatus::Unverified => format!(
            "{}: {}; decides it: `{}` ({})",
            if ADVISORY.contains(&n) {
                "unverifiable"
            } else {
                "could not be verified"
            },
            escape::md_cell(&plain::reason(v)),
            v.check,
            escape::md_cell(&plain::claim(v))
        ),
        RowStatus::Pass => format!(
            "{} (`{}`, {} verdict(s) pass)",
            escape::md_cell(&plain::claim(v)),
            v.check,
            top.worst.tally.pass
        ),
        RowStatus::NotApplicable => escape::md_cell(&plain::reason(v)),
    };
    if several {
        let others: Vec<String> = [
            RowStatus::Fail,
            RowStatus::Warn,
            RowStatus::Unverified,
            RowStatus::Pass,
            RowStatus::NotApplicable,
        ]
        .iter()
        .filter_map(|&s| {
            let k = rows[1..].iter().filter(|r| r.status == s).count();
            (k > 0).then(|| format!("{k} {}", s.label()))
        })
        .collect();
        let all_same = rows.iter().all(|r| r.status == top.status);
        reason = if rows.len() == 1 {
            format!("in run {}: {reason}", label(top.run))
        } else if all_same {
            format!(
                "in all {} runs, e.g. run {}: {reason}",
                rows.len(),
                label(top.run)
            )
        } else {
            format!(
                "in run {} (other runs: {}): {reason}",
                label(top.run),
                others.join(", ")
            )
        };
    }
    let head = format!("{mark} Check {n} ({}): {word} — ", check_name(n));
    let mut cites: Vec<String> = v
        .evidence
        .iter()
        .take(2)
        .map(|c| escape::md_code(&c.citation))
        .collect();
    if v.status == Status::NotApplicable {
        cites.clear();
    }
    // The whole row stays within ROW_MAX characters: citations of real runs are
    // long paths, so the second one goes first, then the reason is cut to
    // leave room for one, and a citation that leaves no room is dropped.
    let len = |c: &[String]| {
        if c.is_empty() {
            0
        } else {
            c.join(", ").chars().count() + 3
        }
    };
    let room = ROW_MAX.saturating_sub(head.chars().count());
    while !cites.is_empty() && len(&cites) + MIN_REASON.min(reason.chars().count()) > room {
        cites.pop();
    }
    let mut s = head;
    s.push_str(&cut_markdown(
        &reason,
        REASON.min(room.saturating_sub(len(&cites) + 1)),
    ));
    if !cites.is_empty() {
        let _ = write!(s, " ({})", cites.join(", "));
    }
    s
}

/// `s` cut to `max` characters without leaving a code span open or a
/// backslash escape split.
fn cut_markdown(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut cut = cut_chars(s, max - 1);
    cut.pop(); // the `…`
    while cut.ends_with('\\') {
        cut.pop();
    }
    if cut.matches('`').count() % 2 == 1 {
        cut.push('`');
    }
    cut.push('…');
    cut
}

/// An undecided verdict that says only that the download lacks what
/// decides it: not applicable where the check applies, the missing-evals
/// claim (`evals-in-the-download`), or an `undecidable` claim's "not
/// decidable from the artifacts". Its row says what to fetch or read
/// (`missing`) rather than quoting the claim.
fn for_want_of_evidence(v: &Verdict) -> bool {
    v.status == Status::NotApplicable
        || (v.status == Status::Unknown
            && (v.check == "evals-in-the-download"
                || v.reason.starts_with("not decidable from the artifacts")))
}

/// What an undecided check misses, where the check applies and nothing in
/// the download speaks to it, and what would decide it.
fn missing(n: u8, run: &str) -> String {
    let id = run
        .rsplit('/')
        .find_map(crate::names::run_folder)
        .unwrap_or_else(|| "RUN".into());
    match n {
        2 => format!(
            "could not be verified: evals not in the download: fetch with `gh run download {id} -p 'eval_*'`"
        ),
        8 => "could not be verified: no serving configuration (server arguments, engine or worker config) in the download; the server logs or the launch config decide".into(),
        10 => "could not be verified: no `set -x` setup-script trace in the download; the PR's benchmark scripts (patches, `git apply`, `sed -i` on engine files) decide".into(),
        14 => "unverifiable: no benchmark result points in the download; the run's `bmk_*` or results artifacts decide".into(),
        9 | 11 | 13 => "could not be verified: the artifact names declare speculative decoding but no speculative configuration was read; the server arguments decide".into(),
        _ => "could not be verified: nothing in the download speaks to it".into(),
    }
}

/// A `Note:` line for a finding without a checklist number.
fn note(v: &Verdict, run: &str, several: bool) -> String {
    let what = match v.status {
        Status::Fail => "fails",
        _ => "could not be decided",
    };
    let at = if several {
        format!(" in run {}", run_label(run))
    } else {
        String::new()
    };
    let mut s = format!(
        "Note: `{}` {what}{at}: {}",
        v.check,
        cut_markdown(&escape::md_cell(&plain::reason(v)), 200)
    );
    if let Some(c) = v.evidence.first() {
        let _ = write!(s, " ({})", escape::md_code(&c.citation));
    }
    s.push('\n');
    s
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::output::records::Cited;
    use regex::Regex;

    /// The verifier's row, as its prompt gives it.
    pub(crate) const ROW: &str =
        r"^(✅|❌|➖|⚠️) Check (\d+) \(([^)]+)\): (PASS|FAIL|N/A|WARN) — (.+)$";

    fn v(check: &str, n: Option<u8>, scope: &str, st: Status, reason: &str) -> Verdict {
        let mut v = Verdict::new(check, "The claim (explained)", "r", scope);
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

    fn rendered(vs: &[Verdict], grouped: bool) -> String {
        let mut rows = VerdictRows::new(vec!["d".to_string()], grouped);
        for v in vs {
            rows.verdict(v);
        }
        rows.finish()
    }

    /// Every line that starts with a mark is a well-formed row, one per
    /// number, the mark matching the word, WARN only for 4, 14 and 15.
    pub(crate) fn assert_rows(md: &str) -> Vec<(u8, String)> {
        let re = Regex::new(ROW).unwrap();
        let mut seen = Vec::new();
        for line in md.lines() {
            if !["✅", "❌", "➖", "⚠️"].iter().any(|m| line.starts_with(m)) {
                continue;
            }
            let c = re
                .captures(line)
                .unwrap_or_else(|| panic!("malformed: {line}"));
            let n: u8 = c[2].parse().unwrap();
            assert!(
                line.chars().count() <= ROW_MAX,
                "{} characters: {line}",
                line.chars().count()
            );
            let pair = (&c[1], &c[4]);
            assert!(
                matches!(
                    pair,
                    ("✅", "PASS") | ("❌", "FAIL") | ("➖", "N/A") | ("⚠️", "WARN")
                ),
                "{line}"
            );
            assert!(&c[4] != "WARN" || [4, 14, 15].contains(&n), "{line}");
            assert_eq!(&c[3], check_name(n), "{line}");
            assert!(!seen.iter().any(|(m, _)| *m == n), "duplicate {n}: {md}");
            seen.push((n, c[4].to_string()));
        }
        seen
    }

    #[test]
    fn one_row_per_number_for_all_runs_worst_run_named() {
        let vs = vec![
            v(
                "a",
                Some(13),
                "runs/1/x.zip",
                Status::Pass,
                "no matching env.var { name = \"X\" } record",
            ),
            v(
                "b",
                Some(13),
                "runs/1/y.zip",
                Status::Fail,
                "1 matching record(s); value = \"1\"",
            ),
            v(
                "c",
                Some(9),
                "runs/1/y.zip",
                Status::NotApplicable,
                "nothing this claim speaks about: no speculative decoding here (no config.speculative evidence)",
            ),
            v(
                "d",
                Some(14),
                "runs/1",
                Status::Fail,
                "1 of 1 curve(s) have fewer than 5 frontier points: 3/5",
            ),
            v(
                "e",
                None,
                "runs/1/x.zip",
                Status::Fail,
                "1 matching record(s)",
            ),
            v(
                "a",
                Some(13),
                "runs/2/z.zip",
                Status::Unknown,
                "cut `short` | x",
            ),
            v("a", Some(13), "runs/3/z.zip", Status::Pass, "ok"),
        ];
        let md = rendered(&vs, false);
        let rows = assert_rows(&md);
        assert_eq!(
            rows.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
            [9, 13, 14],
            "{md}"
        );
        assert!(
            md.contains("❌ Check 13 (Draft as shipped): FAIL — in run `1` (other runs: 1 not verified, 1 PASS): `b`: The claim does not hold: 1 matching record(s); value = \"1\" (`runs/1/y.zip!server.log:3`)"),
            "{md}"
        );
        assert!(
            md.contains("⚠️ Check 14 (Pareto coverage): WARN — "),
            "{md}"
        );
        assert!(!md.contains("{"), "no rule syntax: {md}");
        assert!(md.contains("Note: `e` fails in run `1`"), "{md}");
        // A note is never a row.
        assert!(
            md.lines()
                .filter(|l| l.starts_with("Note:"))
                .all(|l| !l.contains(" — "))
        );
    }

    /// Real runs' citations are paths of about 150 characters: the row keeps
    /// within the verifier's 400 by dropping the second citation and cutting
    /// the reason, never by running over.
    #[test]
    fn a_row_with_long_citations_stays_within_the_rows_bound() {
        let scope = format!(
            "runs/1/{}",
            "agentic_glm5.1_tp8_conc32_offloadnone_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc32_mi355x-amds_04/agentic"
        );
        let mut f = v(
            "c",
            Some(14),
            &scope,
            Status::Fail,
            &"3/5 frontier points; ".repeat(20),
        );
        let e = f.evidence[0].clone();
        f.evidence.push(e);
        let md = rendered(&[f], false);
        let rows = assert_rows(&md);
        assert_eq!(rows.len(), 1, "{md}");
        let line = md.lines().find(|l| l.contains("Check 14")).unwrap();
        assert!(line.contains("server.log:3"), "one citation kept: {line}");
    }

    #[test]
    fn the_prompts_grouping() {
        let vs = vec![
            v("a", Some(8), "runs/1/x.zip", Status::Pass, "ok"),
            v(
                "b",
                Some(10),
                "runs/1/x.zip",
                Status::Fail,
                "1 matching record(s)",
            ),
            v("c", Some(14), "runs/1/x.zip", Status::Fail, "3/5"),
        ];
        let md = rendered(&vs, true);
        assert_rows(&md);
        let want = "❌ Check 10 (No engine patches): FAIL — `b`: The claim does not hold: 1 matching record(s) (`runs/1/x.zip!server.log:3`)\n\n\
            ⚠️ Check 14 (Pareto coverage): WARN — 3/5; admin exception not verified here (`runs/1/x.zip!server.log:3`)\n\n\
            <details>\n<summary>Passed and not applicable checks</summary>\n\n\
            ✅ Check 8 (No architecture hacks): PASS — The claim (`a`, 1 verdict(s) pass) (`runs/1/x.zip!server.log:3`)\n\n\
            </details>\n";
        assert_eq!(md, want);
    }

    #[test]
    fn a_check_that_applies_is_never_na_for_want_of_evidence() {
        let na = |n| {
            v(
                "x",
                Some(n),
                "runs/a/x.zip",
                Status::NotApplicable,
                "nothing this claim speaks about: no eval results here (no eval.score evidence)",
            )
        };
        let md = rendered(&[na(2), na(10), na(14)], false);
        let rows = assert_rows(&md);
        assert!(rows.iter().all(|(_, w)| w != "N/A"), "{md}");
        assert!(
            md.contains("❌ Check 2 (Evals pass): FAIL — could not be verified: evals not in the download: fetch with `gh run download RUN -p 'eval_*'`"),
            "{md}"
        );
        assert!(
            md.contains("⚠️ Check 14 (Pareto coverage): WARN — unverifiable: "),
            "{md}"
        );
        let md = rendered(
            &[v(
                "x",
                Some(2),
                "runs/123456/x.zip",
                Status::NotApplicable,
                "",
            )],
            false,
        );
        assert!(md.contains("gh run download 123456 -p 'eval_*'"), "{md}");
        // The same rows where the claims answered unknown for want of the
        // evidence (the missing-evals claim, an undecidable Check 10).
        let md = rendered(
            &[
                v(
                    "evals-in-the-download",
                    Some(2),
                    "runs/a/x.zip",
                    Status::Unknown,
                    "none found: evals not in the download: fetch them with `gh run download RUN -p 'eval_*'`",
                ),
                v(
                    "no-engine-patch",
                    Some(10),
                    "runs/a/x.zip",
                    Status::Unknown,
                    "not decidable from the artifacts: nothing this claim speaks about: no launch output here",
                ),
            ],
            false,
        );
        assert_rows(&md);
        assert!(
            md.contains("❌ Check 2 (Evals pass): FAIL — could not be verified: evals not in the download: fetch with `gh run download RUN -p 'eval_*'`"),
            "{md}"
        );
        assert!(
            md.contains("❌ Check 10 (No engine patches): FAIL — could not be verified: no `set -x` setup-script trace in the download"),
            "{md}"
        );
    }

    #[test]
    fn reasons_stay_short_and_in_their_spans() {
        let long = format!("cut `short` | x {}", "y".repeat(900));
        let md = rendered(
            &[v("a", Some(13), "runs/2/z.zip", Status::Unknown, &long)],
            false,
        );
        let line = md.lines().next().unwrap();
        let reason = line.split(" — ").nth(1).unwrap();
        let before_cites = reason.rsplit_once(" (`").map_or(reason, |(r, _)| r);
        assert!(before_cites.chars().count() <= REASON + 1, "{line}");
        assert!(line.starts_with("❌ Check 13 (Draft as shipped): FAIL — could not be verified: cut \\`short\\` \\| x"), "{line}");
    }

    #[test]
    fn nothing_numbered_says_so() {
        let md = rendered(&[v("e", None, "x.zip", Status::Pass, "ok")], false);
        assert!(md.contains("No verdict of a check that carries"), "{md}");
    }
}
