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
            writeln!(out, "  {}", c.id)?;
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
    let (artifacts, units, walk_errors) = walk_units(inputs, layout);
    super::report_walk_errors(err, &walk_errors)?;
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

/// A report for a PR comment: a heading with totals, one table per scope
/// (named once), full citations that paste into `artiscan cite`. Every
/// piece of artifact-derived text sits in a code span it cannot leave.
pub fn markdown(buf: &mut Vec<u8>, verdicts: &[VerdictRecord]) {
    let _ = writeln!(buf, "## artiscan check: {}", totals(verdicts));
    for (scope, vs) in groups(verdicts) {
        let _ = writeln!(
            buf,
            "\n### {}\n",
            escape::md_code(&crate::location::escape(scope))
        );
        let _ = writeln!(buf, "| check | status | reason | evidence |");
        let _ = writeln!(buf, "|---|---|---|---|");
        for v in vs {
            let icon = match v.status {
                Status::Pass => "✅ pass",
                Status::Fail => "❌ fail",
                Status::Unknown => "❔ unknown",
                Status::NotApplicable => "➖ not applicable",
            };
            let cites: Vec<String> = v
                .evidence
                .iter()
                .map(|c| {
                    format!(
                        "{}{}",
                        escape::md_code(&c.citation),
                        escape::md_cell(&whose(c))
                    )
                })
                .collect();
            let _ = writeln!(
                buf,
                "| {} | {icon} | {} | {} |",
                escape::md_code(&v.check),
                escape::md_code(&v.reason),
                cites.join("<br>")
            );
        }
    }
}
