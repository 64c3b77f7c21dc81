//! `artiscan check --checks FILE|--set NAME ARTIFACTS...`: verdicts.

use super::scan::Format;
use crate::check::{self, Check, CheckParams, Scope, Status, VerdictRecord};
use crate::output::{self, CoverageRecord, SCHEMA_VERSION};
use crate::pack::{RuleSet, compile::Selection};
use crate::scan::{ArtifactScan, ScanOptions, scan_all};
use crate::source::{self, Limits};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;

/// The (file name, text) of each built-in set and check file, in order.
pub fn check_sources(files: &[PathBuf], sets: &[String]) -> anyhow::Result<Vec<(String, String)>> {
    let mut sources = Vec::new();
    for s in sets {
        let src = check::builtin_set(s).ok_or_else(|| {
            anyhow::anyhow!(
                "no built-in check set {s:?} (have: {})",
                check::builtin_set_names().join(", ")
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
        out.extend(check::parse_checks(&name, &src)?);
    }
    if out.is_empty() {
        anyhow::bail!("no checks: give --checks FILE or --set NAME");
    }
    Ok(out)
}

/// The rules the checks need, from the built-in and extra packs.
pub fn rules_for(checks: &[Check], extra_packs: &[PathBuf]) -> anyhow::Result<RuleSet> {
    let only: Vec<String> = check::needed_rules(checks).into_iter().collect();
    let rules = super::scan::load_rules(extra_packs, &Selection { only, skip: vec![] }, true)?;
    for c in checks {
        if rules.rule(&c.rule).is_none() {
            anyhow::bail!("check {}: no rule {:?} in the packs", c.id, c.rule);
        }
    }
    Ok(rules)
}

/// Judges every check over the scanned artifacts: per artifact, or per run
/// (artifacts of the same folder) for `scope = "run"` checks.
pub fn judge(
    checks: &[Check],
    scans: &[(String, ArtifactScan)],
    params: &CheckParams,
) -> Vec<VerdictRecord> {
    let mut verdicts = Vec::new();
    for c in checks {
        if c.run_scope {
            let mut runs: BTreeMap<String, Vec<(&str, &ArtifactScan)>> = BTreeMap::new();
            for (path, scan) in scans.iter().filter(|(p, _)| c.applies_to(p)) {
                let run = path
                    .rsplit_once('/')
                    .map_or(".", |(dir, _)| dir)
                    .to_string();
                runs.entry(run).or_default().push((path, scan));
            }
            for (name, scans) in runs {
                verdicts.push(c.judge(&Scope { name, scans }, params));
            }
        } else {
            for (path, scan) in scans.iter().filter(|(p, _)| c.applies_to(p)) {
                let scope = Scope {
                    name: path.clone(),
                    scans: vec![(path, scan)],
                };
                verdicts.push(c.judge(&scope, params));
            }
        }
    }
    verdicts
}

/// Exit code: 0 all pass, 1 any fail, 3 any unknown and none fail.
pub fn exit_code(verdicts: &[VerdictRecord]) -> i32 {
    if verdicts.iter().any(|v| v.status == Status::Fail) {
        1
    } else if verdicts.iter().any(|v| v.status == Status::Unknown) {
        3
    } else {
        0
    }
}

#[allow(clippy::too_many_arguments)]
pub fn run(
    inputs: &[String],
    checks: &[Check],
    rules: &RuleSet,
    params: &CheckParams,
    limits: &Limits,
    threads: usize,
    format: Format,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let (artifacts, walk_errors) = source::walk(inputs);
    for (path, e) in &walk_errors {
        let esc = crate::output::escape::text;
        writeln!(err, "artiscan: {}: {}", esc(path), esc(&e.to_string()))?;
    }
    let opts = ScanOptions {
        every_match: true,
        force: false,
    };
    let mut scans = Vec::new();
    scan_all(rules, &artifacts, limits, opts, threads, |a, s, _| {
        scans.push((a.path.clone(), s))
    });
    // Completion order varies with threads; verdicts follow input order.
    let order: BTreeMap<&str, usize> = artifacts
        .iter()
        .enumerate()
        .map(|(i, a)| (a.path.as_str(), i))
        .collect();
    scans.sort_by_key(|(p, _)| order.get(p.as_str()).copied().unwrap_or(usize::MAX));
    let verdicts = judge(checks, &scans, params);
    let mut buf = Vec::new();
    match format {
        Format::Jsonl => {
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
        Format::Json => {
            let coverage: Vec<_> = scans
                .iter()
                .map(|(p, s)| CoverageRecord::new(p, s.sha256.clone(), &s.coverage))
                .collect();
            let doc = serde_json::json!({"schema_version": SCHEMA_VERSION, "verdicts": verdicts, "coverage": coverage});
            output::write_jsonl(&mut buf, &doc);
        }
        Format::Markdown => markdown(&mut buf, &verdicts),
        Format::Text => {
            for v in &verdicts {
                let status = format!("{:?}", v.status).to_uppercase();
                let esc = crate::output::escape::text;
                let _ = writeln!(
                    buf,
                    "{status:<7} {}  {}\n        {}",
                    v.check,
                    esc(&v.scope),
                    esc(&v.reason)
                );
                for c in v.evidence.iter().take(3) {
                    let _ = writeln!(buf, "        {}", esc(c));
                }
            }
        }
    }
    out.write_all(&buf)?;
    out.flush()?;
    if !walk_errors.is_empty() && verdicts.is_empty() {
        return Ok(2);
    }
    Ok(exit_code(&verdicts))
}

/// A compact table for a PR comment: citations shortened to `member:line`.
pub fn markdown(buf: &mut Vec<u8>, verdicts: &[VerdictRecord]) {
    let _ = writeln!(buf, "| check | artifact | status | reason | evidence |");
    let _ = writeln!(buf, "|---|---|---|---|---|");
    for v in verdicts {
        let icon = match v.status {
            Status::Pass => "✅ pass",
            Status::Fail => "❌ fail",
            Status::Unknown => "❔ unknown",
        };
        let artifact = v.scope.rsplit('/').next().unwrap_or(&v.scope);
        let cites: Vec<String> = v.evidence.iter().take(4).map(|c| short(c)).collect();
        let more = if v.evidence.len() > 4 {
            format!(" +{}", v.evidence.len() - 4)
        } else {
            String::new()
        };
        let _ = writeln!(
            buf,
            "| {} | {} | {icon} | {} | {}{more} |",
            cell(&v.check),
            cell(artifact),
            cell(&v.reason),
            cell(&cites.join(", "))
        );
    }
}

/// `a.zip!x.tar.gz!server.log:12` → `server.log:12`.
fn short(citation: &str) -> String {
    match citation.rsplit_once('!') {
        Some((_, tail)) => tail.to_string(),
        None => citation.rsplit('/').next().unwrap_or(citation).to_string(),
    }
}

/// Artifact-derived text in a cell: no markup, no row split.
fn cell(s: &str) -> String {
    crate::output::escape::md_cell(s)
}
