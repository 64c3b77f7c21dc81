//! How check verdicts read for a person: the `--format text` listing per
//! scope and the `--format markdown` report sized for a PR comment. Both
//! take verdicts one at a time, as a check judges them, and hold only what
//! their last lines need (totals; for Markdown the per-run tables and the
//! rows that can still fit its budget), never every verdict.

use super::records::{Cited, Status, Tally, Verdict};
use crate::check::by_run::ByRun;
use crate::escape;
use std::collections::BTreeSet;
use std::io::Write;

fn totals(t: &Tally) -> String {
    format!(
        "{} fail, {} unknown, {} pass, {} not applicable",
        t.fail, t.unknown, t.pass, t.not_applicable
    )
}

/// `--format text`: each scope's verdicts under its name (a scope's
/// verdicts come together), then the totals.
#[derive(Default)]
pub(crate) struct TextListing {
    /// The scope whose heading was written last.
    scope: Option<String>,
    total: Tally,
    /// The statuses shown (`--status`); empty shows every one. Totals
    /// count every verdict.
    shown: Vec<Status>,
}

impl TextListing {
    pub(crate) fn new(shown: Vec<Status>) -> TextListing {
        TextListing {
            shown,
            ..TextListing::default()
        }
    }

    pub(crate) fn verdict(&mut self, buf: &mut Vec<u8>, v: &Verdict) {
        if !self.shown.is_empty() && !self.shown.contains(&v.status) {
            self.total.add(v.status);
            return;
        }
        if self.scope.as_deref() != Some(v.scope.as_str()) {
            let _ = writeln!(buf, "{}", escape::text(&crate::location::escape(&v.scope)));
            self.scope = Some(v.scope.clone());
        }
        self.total.add(v.status);
        let status = v.status.as_str().to_uppercase();
        let _ = writeln!(buf, "  {status:<14} {}", escape::text(&v.check));
        let _ = writeln!(buf, "      {}", escape::text(&v.reason));
        for c in v.evidence.iter().take(3) {
            let _ = writeln!(buf, "      {}{}", escape::text(&c.citation), whose(c));
        }
        if v.evidence.len() > 3 {
            let _ = writeln!(
                buf,
                "      ({} more in --format jsonl)",
                v.evidence.len() - 3
            );
        }
    }

    pub(crate) fn finish(&self, buf: &mut Vec<u8>) {
        let _ = writeln!(buf, "{}", totals(&self.total));
    }
}

/// ` (decode_w0, TP3)` for a citation.
fn whose(c: &Cited) -> String {
    let mut parts = Vec::new();
    if let Some(s) = &c.server {
        // A name as citations write it: bytes that are not UTF-8 as `%XX`.
        parts.push(escape::text(&crate::location::escape(s)).into_owned());
    }
    if let Some(r) = &c.rank {
        for k in ["dp", "tp", "ep", "pp", "rank"] {
            if let Some(n) = r.get(k) {
                parts.push(format!("{}{n}", k.to_uppercase()));
            }
        }
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(" "))
    }
}

/// The most characters `--format markdown` writes (GitHub's comment limit
/// is 65,536): rows past it are counted, not written.
pub const MARKDOWN_BUDGET: usize = 60_000;
/// The most characters `--format markdown` writes per run folder.
pub(crate) const MARKDOWN_PER_RUN: usize = 32 << 10;
/// Citations written per verdict row; the rest are counted.
const MD_CITES: usize = 2;
/// Characters of a reason written in a row.
const MD_REASON: usize = 400;

/// The run a verdict belongs to: its artifact's folder, or, for a check
/// judged per run (named in `run_checks`), its scope, which is the run.
pub(crate) fn run_of(v: &Verdict, run_checks: &[String]) -> String {
    if run_checks.contains(&v.check) {
        return v.scope.clone();
    }
    crate::check::run_id::run_of_artifact(&v.scope)
}

/// A report for a PR comment, at most [`MARKDOWN_BUDGET`] characters for
/// any number of artifacts: totals, a summary table per run (counts per
/// check and status), then one row per verdict that says something (fail,
/// unknown, pass; not-applicable ones are only counted), worst first, each
/// with a few full citations that paste into `artiscan cite`. Rows that do
/// not fit are counted in a last line that points at `--format jsonl`.
/// Every piece of artifact-derived text sits in a code span it cannot leave.
pub(crate) struct MarkdownReport {
    /// The checks judged per run: their scope is the run.
    run_checks: Vec<String>,
    total: Tally,
    runs: ByRun<RunTable>,
    /// The rows of fail and unknown verdicts (worst first), each in the
    /// order judged. Passing and not applicable verdicts are counted in
    /// the summary tables only.
    rows: [HeldRows; 2],
    /// Where the verifier's checklist stands: the summary on top.
    checklist: super::checklist::Checklist,
    /// What ran, per run (under the summary's rows).
    pub(crate) facts: crate::check::what_ran::Facts,
}

#[derive(Default)]
struct RunTable {
    /// The artifacts judged (scopes of artifact checks).
    scopes: BTreeSet<String>,
    /// Per check, in order of first appearance.
    checks: Vec<(String, Tally)>,
}

/// Rendered rows of one status, held while they could still fit the
/// budget: once they alone fill it, later ones can never be written and
/// are only counted.
#[derive(Default)]
struct HeldRows {
    rows: Vec<String>,
    bytes: usize,
    unheld: u64,
}

impl MarkdownReport {
    pub(crate) fn new(run_checks: Vec<String>) -> MarkdownReport {
        MarkdownReport {
            checklist: super::checklist::Checklist::new(run_checks.clone()),
            run_checks,
            total: Tally::default(),
            runs: ByRun::default(),
            rows: Default::default(),
            facts: Default::default(),
        }
    }

    pub(crate) fn exit_code(&self) -> i32 {
        self.checklist.exit_code_with(&self.facts)
    }

    pub(crate) fn verdict(&mut self, v: &Verdict) {
        self.total.add(v.status);
        self.checklist.verdict_in(v, &self.facts);
        let run = run_of(v, &self.run_checks);
        let table = self.runs.entry(&run, RunTable::default);
        if !self.run_checks.contains(&v.check) && !table.scopes.contains(&v.scope) {
            table.scopes.insert(v.scope.clone());
        }
        match table.checks.iter_mut().find(|(c, _)| *c == v.check) {
            Some((_, t)) => t.add(v.status),
            None => table.checks.push((v.check.clone(), Tally::of([v.status]))),
        }
        let held = match v.status {
            Status::Fail => &mut self.rows[0],
            Status::Unknown => &mut self.rows[1],
            Status::Pass | Status::NotApplicable => return,
        };
        if held.bytes >= MARKDOWN_BUDGET {
            held.unheld += 1;
            return;
        }
        let row = row(v);
        held.bytes += row.len();
        held.rows.push(row);
    }

    /// The most characters written: [`MARKDOWN_PER_RUN`] per run, at most
    /// [`MARKDOWN_BUDGET`].
    fn budget(&self) -> usize {
        let runs = self.runs.iter().count().max(1);
        (runs * MARKDOWN_PER_RUN).min(MARKDOWN_BUDGET)
    }

    pub(crate) fn finish(&self, buf: &mut Vec<u8>) {
        let budget = self.budget();
        let _ = writeln!(buf, "## artiscan check: {}", totals(&self.total));
        if !self.checklist.numbers().is_empty() {
            let _ = writeln!(
                buf,
                "\n{}",
                super::verdict_rows::render(&self.checklist, Some(&self.facts), false)
            );
        }
        let mut tail = 0;
        for (name, run) in self.runs.iter() {
            let mut table = Vec::new();
            let _ = writeln!(
                table,
                "\n### Run {} ({} artifact(s))\n",
                escape::md_code(&crate::location::escape(name)),
                run.scopes.len()
            );
            let _ = writeln!(
                table,
                "| check | ❌ fail | ❔ unknown | ✅ pass | ➖ not applicable |"
            );
            let _ = writeln!(table, "|---|---|---|---|---|");
            let mut not_applicable = Vec::new();
            for (c, t) in &run.checks {
                if t.total() == t.not_applicable {
                    not_applicable.push(escape::md_code(c));
                    continue;
                }
                let _ = writeln!(
                    table,
                    "| {} | {} | {} | {} | {} |",
                    escape::md_code(c),
                    t.fail,
                    t.unknown,
                    t.pass,
                    t.not_applicable
                );
            }
            if !not_applicable.is_empty() {
                let _ = writeln!(
                    table,
                    "\nNot applicable throughout ({}): {}",
                    not_applicable.len(),
                    not_applicable.join(", ")
                );
            }
            if buf.len() + table.len() + 200 > budget {
                tail += 1;
                continue;
            }
            buf.extend_from_slice(&table);
        }
        if tail > 0 {
            let _ = writeln!(
                buf,
                "\n_{tail} more run(s) not summarised here: see `--format jsonl`._"
            );
        }
        if self.rows.iter().all(|h| h.rows.is_empty() && h.unheld == 0) {
            return;
        }
        let _ = writeln!(buf, "\n### Failing and undecided verdicts, worst first\n");
        let _ = writeln!(buf, "| check | status | artifact | reason | evidence |");
        let _ = writeln!(buf, "|---|---|---|---|---|");
        // Once one row does not fit, it and every row after it are counted.
        let mut left = Tally::default();
        let mut cut = false;
        for (held, status) in self.rows.iter().zip([Status::Fail, Status::Unknown]) {
            for row in &held.rows {
                // Room is kept for the closing line.
                if cut || buf.len() + row.len() + 300 > budget {
                    cut = true;
                    left.add(status);
                    continue;
                }
                buf.extend_from_slice(row.as_bytes());
            }
            for _ in 0..held.unheld {
                cut = true;
                left.add(status);
            }
        }
        let n = left.fail + left.unknown;
        if n > 0 {
            let _ = writeln!(
                buf,
                "\n_and {n} more verdict(s) ({} fail, {} unknown) that do not fit a comment: `--format jsonl` has them all._",
                left.fail, left.unknown
            );
        }
    }
}

/// One row of the worst-first table.
fn row(v: &Verdict) -> String {
    let icon = match v.status {
        Status::Pass => "✅ pass",
        Status::Fail => "❌ fail",
        Status::Unknown => "❔ unknown",
        Status::NotApplicable => "➖ not applicable",
    };
    let mut cites: Vec<String> = v
        .evidence
        .iter()
        .take(MD_CITES)
        .map(|c| {
            format!(
                "{}{}",
                escape::md_code(&c.citation),
                escape::md_cell(&whose(c))
            )
        })
        .collect();
    if v.evidence.len() > MD_CITES {
        cites.push(format!("and {} more", v.evidence.len() - MD_CITES));
    }
    let artifact = v.scope.rsplit('/').next().unwrap_or(&v.scope);
    format!(
        "| {} | {icon} | {} | {} | {} |\n",
        escape::md_code(&v.check),
        escape::md_code(&crate::location::escape(artifact)),
        escape::md_code(&cut_chars(&v.reason, MD_REASON)),
        cites.join("<br>")
    )
}

/// `s` cut to at most `max` characters, with `…` where it was cut.
pub(crate) fn cut_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
