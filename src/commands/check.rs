//! `artiscan check --checks FILE|--set NAME ARTIFACTS...`: verdicts.

use super::scan::OutputFormat;
use crate::check::CheckScope;
use crate::check::load::{check_sources, exit_code, judge_units};
use crate::check::scope::walk_units;
use crate::check::{self, Check, CheckParams, Layout, Status, VerdictRecord};
use crate::limits::ReadLimits;
use crate::output::{self, CoverageRecord, SCHEMA_VERSION, escape};
use crate::pack::RuleSet;
use crate::scan::{ArtifactScan, ScanOptions, scan_all};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// `check --list`: sets, their checks, applicability and parameters.
pub fn list(sets: &[String], files: &[PathBuf], out: &mut dyn Write) -> anyhow::Result<()> {
    let sets: Vec<String> = if sets.is_empty() && files.is_empty() {
        check::builtin_set_names()
            .into_iter()
            .map(String::from)
            .collect()
    } else {
        sets.to_vec()
    };
    for (name, src) in check_sources(files, &sets)? {
        let checks = check::parse_checks(&name, &src)?;
        writeln!(out, "{name}")?;
        for c in &checks {
            match c.checklist {
                Some(n) => writeln!(out, "  {} (verifier check {n})", c.id)?,
                None => writeln!(out, "  {}", c.id)?,
            }
            if !c.description.is_empty() {
                writeln!(out, "      {}", c.description)?;
            }
            writeln!(out, "      rule: {}; expect: {}", c.rule, c.expect_text())?;
            writeln!(out, "      applies: {}", c.applies_text())?;
            if c.scope == CheckScope::Run {
                writeln!(out, "      scope: run")?;
            }
        }
        let specs = check::merge_specs(checks.iter().flat_map(Check::params));
        if specs.is_empty() {
            writeln!(out, "  parameters: none")?;
        } else {
            writeln!(out, "  parameters:")?;
            for p in specs {
                writeln!(out, "    --param {p}: used by {}", p.checks.join(", "))?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

#[allow(clippy::too_many_arguments)]
pub fn run(
    inputs: &[String],
    layout: Layout,
    checks: &[Check],
    rules: &RuleSet,
    params: &CheckParams,
    limits: &ReadLimits,
    threads: usize,
    format: OutputFormat,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let walked = walk_units(inputs, layout);
    let (artifacts, units, walk_errors) = (walked.files, walked.units, walked.errors);
    super::report_walk_errors(err, &walk_errors)?;
    for j in &walked.junk {
        writeln!(
            err,
            "artiscan: {}: download junk, not part of any artifact: not judged",
            escape::text(j)
        )?;
    }
    let opts = ScanOptions {
        every_match: true,
        skip_prefilter: false,
    };
    let mut done: Vec<Option<ArtifactScan>> = artifacts.iter().map(|_| None).collect();
    let index: BTreeMap<&str, usize> = artifacts
        .iter()
        .enumerate()
        .map(|(i, a)| (a.path.as_str(), i))
        .collect();
    scan_all(rules, &artifacts, limits, opts, threads, |a, s, _| {
        if let Some(&i) = index.get(a.path.as_str()) {
            done[i] = Some(s);
        }
    });
    // Completion order varies with threads; everything follows walk order.
    let scans: Vec<(String, ArtifactScan)> = artifacts
        .iter()
        .zip(done)
        .map(|(a, s)| (a.path.clone(), s.unwrap_or_default()))
        .collect();
    let verdicts = judge_units(checks, &scans, &units, params);
    let mut buf = Vec::new();
    match format {
        OutputFormat::Jsonl => {
            for v in &verdicts {
                output::write_jsonl(&mut buf, v);
            }
            for (path, s) in &scans {
                output::write_jsonl(
                    &mut buf,
                    &CoverageRecord::new(path, s.sha256.clone(), &s.coverage),
                );
            }
        }
        OutputFormat::Json => {
            let coverage: Vec<_> = scans
                .iter()
                .map(|(p, s)| CoverageRecord::new(p, s.sha256.clone(), &s.coverage))
                .collect();
            let doc = serde_json::json!({"schema_version": SCHEMA_VERSION, "verdicts": verdicts, "coverage": coverage});
            output::write_jsonl(&mut buf, &doc);
        }
        OutputFormat::Markdown => markdown(&mut buf, &verdicts),
        OutputFormat::Verdicts => {
            let run: Vec<&str> = checks
                .iter()
                .filter(|c| c.scope == CheckScope::Run)
                .map(|c| c.id.as_str())
                .collect();
            buf.extend_from_slice(output::verdicts::render(&verdicts, &run).as_bytes());
        }
        OutputFormat::Text => text(&mut buf, &verdicts),
    }
    out.write_all(&buf)?;
    out.flush()?;
    // An input that could not be read is grep's exit 2, after the rest is
    // judged, with a message: its verdicts alone would only say unknown.
    let mut unreadable = !walk_errors.is_empty();
    for (path, s) in scans.iter().filter(|(_, s)| super::unreadable(&s.coverage)) {
        super::report_coverage_errors(err, path, &s.coverage)?;
        unreadable = true;
    }
    if unreadable {
        return Ok(2);
    }
    Ok(exit_code(&verdicts))
}

/// Verdicts grouped by scope, keeping their order.
fn groups(verdicts: &[VerdictRecord]) -> Vec<(&str, Vec<&VerdictRecord>)> {
    let mut out: Vec<(&str, Vec<&VerdictRecord>)> = Vec::new();
    for v in verdicts {
        match out.last_mut() {
            Some((s, vs)) if *s == v.scope => vs.push(v),
            _ => out.push((&v.scope, vec![v])),
        }
    }
    out
}

fn totals(verdicts: &[VerdictRecord]) -> String {
    let n = |s: Status| verdicts.iter().filter(|v| v.status == s).count();
    format!(
        "{} fail, {} unknown, {} pass, {} not applicable",
        n(Status::Fail),
        n(Status::Unknown),
        n(Status::Pass),
        n(Status::NotApplicable)
    )
}

fn text(buf: &mut Vec<u8>, verdicts: &[VerdictRecord]) {
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
fn whose(c: &check::Cited) -> String {
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
pub fn markdown(buf: &mut Vec<u8>, verdicts: &[VerdictRecord]) {
    let _ = writeln!(buf, "## artiscan check: {}", totals(verdicts));
    let run_of = |scope: &str| -> String {
        scope
            .rsplit_once('/')
            .map_or(".", |(d, _)| if d.is_empty() { "/" } else { d })
            .to_string()
    };
    // Summary tables: one per run, in order of first appearance.
    let mut runs: Vec<(String, Vec<&VerdictRecord>)> = Vec::new();
    for v in verdicts {
        let run = run_of(&v.scope);
        match runs.iter_mut().find(|(r, _)| *r == run) {
            Some((_, vs)) => vs.push(v),
            None => runs.push((run, vec![v])),
        }
    }
    let mut tail = Vec::new();
    for (run, vs) in &runs {
        let scopes: std::collections::BTreeSet<&str> =
            vs.iter().map(|v| v.scope.as_str()).collect();
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
            let n = |s: Status| vs.iter().filter(|v| v.check == c && v.status == s).count();
            let _ = writeln!(
                table,
                "| {} | {} | {} | {} | {} |",
                escape::md_code(c),
                n(Status::Fail),
                n(Status::Unknown),
                n(Status::Pass),
                n(Status::NotApplicable)
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
    let mut rows: Vec<&VerdictRecord> = verdicts
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
    let mut left: Vec<&VerdictRecord> = Vec::new();
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
        let n = |s: Status| left.iter().filter(|v| v.status == s).count();
        let _ = writeln!(
            buf,
            "\n_and {} more verdict(s) ({} fail, {} unknown, {} pass) that do not fit a comment: `--format jsonl` has them all._",
            left.len(),
            n(Status::Fail),
            n(Status::Unknown),
            n(Status::Pass)
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
