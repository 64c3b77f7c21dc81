//! How check verdicts read for a person: the `--format text` listing per
//! scope and the `--format markdown` report sized for a PR comment.

use super::records::{Cited, Status, Tally, Verdict};
use crate::escape;
use std::io::Write;

/// Verdicts grouped by scope, keeping their order.
fn groups(verdicts: &[Verdict]) -> Vec<(&str, Vec<&Verdict>)> {
    let mut out: Vec<(&str, Vec<&Verdict>)> = Vec::new();
    for v in verdicts {
        match out.last_mut() {
            Some((s, vs)) if *s == v.scope => vs.push(v),
            _ => out.push((&v.scope, vec![v])),
        }
    }
    out
}

fn totals(verdicts: &[Verdict]) -> String {
    let t = Tally::of(verdicts.iter().map(|v| v.status));
    format!(
        "{} fail, {} unknown, {} pass, {} not applicable",
        t.fail, t.unknown, t.pass, t.not_applicable
    )
}

pub(crate) fn text(buf: &mut Vec<u8>, verdicts: &[Verdict]) {
    for (scope, vs) in groups(verdicts) {
        let _ = writeln!(buf, "{}", escape::text(&crate::location::escape(scope)));
        for v in vs {
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
    }
    let _ = writeln!(buf, "{}", totals(verdicts));
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
/// Citations written per verdict row; the rest are counted.
const MD_CITES: usize = 2;
/// Characters of a reason written in a row.
const MD_REASON: usize = 400;

/// A report for a PR comment, at most [`MARKDOWN_BUDGET`] characters for
/// any number of artifacts: totals, a summary table per run (counts per
/// check and status), then one row per verdict that says something (fail,
/// unknown, pass; not-applicable ones are only counted), worst first, each
/// with a few full citations that paste into `artiscan cite`. Rows that do
/// not fit are counted in a last line that points at `--format jsonl`.
/// Every piece of artifact-derived text sits in a code span it cannot leave.
/// The run a verdict belongs to: its artifact's folder, or, for a check
/// judged per run (named in `run_checks`), its scope, which is the run.
pub(crate) fn run_of(v: &Verdict, run_checks: &[String]) -> String {
    if run_checks.contains(&v.check) {
        return v.scope.clone();
    }
    v.scope
        .rsplit_once('/')
        .map_or(".", |(d, _)| if d.is_empty() { "/" } else { d })
        .to_string()
}

/// `run_checks` names the checks judged per run: their scope is the run.
pub(crate) fn markdown(buf: &mut Vec<u8>, verdicts: &[Verdict], run_checks: &[String]) {
    let _ = writeln!(buf, "## artiscan check: {}", totals(verdicts));
    let per_run = |v: &Verdict| run_checks.contains(&v.check);
    // Summary tables: one per run, in order of first appearance.
    let mut runs: Vec<(String, Vec<&Verdict>)> = Vec::new();
    for v in verdicts {
        let run = run_of(v, run_checks);
        match runs.iter_mut().find(|(r, _)| *r == run) {
            Some((_, vs)) => vs.push(v),
            None => runs.push((run, vec![v])),
        }
    }
    let mut tail = Vec::new();
    for (run, vs) in &runs {
        let scopes: std::collections::BTreeSet<&str> = vs
            .iter()
            .filter(|v| !per_run(v))
            .map(|v| v.scope.as_str())
            .collect();
        let mut table = Vec::new();
        let _ = writeln!(
            table,
            "\n### Run {} ({} artifact(s))\n",
            escape::md_code(&crate::location::escape(run)),
            scopes.len()
        );
        let _ = writeln!(
            table,
            "| check | ❌ fail | ❔ unknown | ✅ pass | ➖ not applicable |"
        );
        let _ = writeln!(table, "|---|---|---|---|---|");
        let mut checks: Vec<&str> = Vec::new();
        for v in vs {
            if !checks.contains(&v.check.as_str()) {
                checks.push(&v.check);
            }
        }
        for c in checks {
            let t = Tally::of(vs.iter().filter(|v| v.check == c).map(|v| v.status));
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
        if buf.len() + table.len() + 200 > MARKDOWN_BUDGET {
            tail.push(run.clone());
            continue;
        }
        buf.extend_from_slice(&table);
    }
    if !tail.is_empty() {
        let _ = writeln!(
            buf,
            "\n_{} more run(s) not summarised here: see `--format jsonl`._",
            tail.len()
        );
    }
    // Verdict rows, worst first (fail, unknown, pass), in walk order within.
    let rank = |s: Status| match s {
        Status::Fail => 0,
        Status::Unknown => 1,
        Status::Pass => 2,
        Status::NotApplicable => 3,
    };
    let mut rows: Vec<&Verdict> = verdicts
        .iter()
        .filter(|v| v.status != Status::NotApplicable)
        .collect();
    rows.sort_by_key(|v| rank(v.status));
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(buf, "\n### Verdicts, worst first\n");
    let _ = writeln!(buf, "| check | status | artifact | reason | evidence |");
    let _ = writeln!(buf, "|---|---|---|---|---|");
    let mut left: Vec<&Verdict> = Vec::new();
    for v in rows {
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
        let row = format!(
            "| {} | {icon} | {} | {} | {} |\n",
            escape::md_code(&v.check),
            escape::md_code(&crate::location::escape(artifact)),
            escape::md_code(&cut_chars(&v.reason, MD_REASON)),
            cites.join("<br>")
        );
        // Room is kept for the closing line.
        if !left.is_empty() || buf.len() + row.len() + 300 > MARKDOWN_BUDGET {
            left.push(v);
            continue;
        }
        buf.extend_from_slice(row.as_bytes());
    }
    if !left.is_empty() {
        let t = Tally::of(left.iter().map(|v| v.status));
        let _ = writeln!(
            buf,
            "\n_and {} more verdict(s) ({} fail, {} unknown, {} pass) that do not fit a comment: `--format jsonl` has them all._",
            left.len(),
            t.fail,
            t.unknown,
            t.pass
        );
    }
}

/// `s` cut to at most `max` characters, with `…` where it was cut.
fn cut_chars(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}
