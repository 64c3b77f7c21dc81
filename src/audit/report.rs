//! `artiscan audit report`: per run and per check pass/fail/unknown counts,
//! the failing verdicts with their first citation, and the incomplete
//! (damaged) artifacts, as a terminal table, Markdown, CSV or JSON Lines;
//! filtered on the parsed name fields.

use super::store;
use crate::check::Status;
use rusqlite::Connection;
use rusqlite::types::Value as SqlValue;
use std::collections::BTreeMap;
use std::io::Write;

/// Name fields `--where` may filter on.
pub(crate) const FIELDS: &[&str] = &[
    "kind",
    "eval_task",
    "exp",
    "precision",
    "framework",
    "tp",
    "pp",
    "dcp",
    "pcp",
    "ep",
    "dpa",
    "disagg",
    "spec",
    "conc",
    "runner",
    "backup_n",
    "artifact_id",
    "run_id",
    "run_dir",
    "artifact",
    "path",
    "complete",
    "sha256",
    "fingerprint",
];

const BOOL_FIELDS: &[&str] = &["dpa", "disagg", "complete"];

/// Which artifacts a report or export covers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Filter {
    /// A run id (runs with an id >= it) or a date `YYYY-MM-DD[THH:MM:SS]`
    /// (artifact files modified on or after it).
    pub since: Option<String>,
    /// `field=value`; `value` may be `a,b` (any of), hold `*`/`?` globs, or be
    /// empty (the field is null).
    pub wheres: Vec<String>,
    /// Also files found gone (superseded): the store's history.
    pub history: bool,
}

impl Filter {
    /// A SQL condition on `artifacts a`, with its parameters.
    pub(crate) fn sql(&self, conn: &Connection) -> anyhow::Result<(String, Vec<SqlValue>)> {
        let mut conds = vec![if self.history {
            "1".to_string()
        } else {
            "a.superseded_ns IS NULL".to_string()
        }];
        let mut params = Vec::new();
        if let Some(since) = &self.since {
            let since = since.trim();
            if !since.is_empty() && since.bytes().all(|b| b.is_ascii_digit()) {
                conds.push("CAST(a.run_id AS INTEGER) >= ?".into());
                params.push(SqlValue::Integer(
                    since
                        .parse()
                        .map_err(|_| anyhow::anyhow!("--since {since}: too large"))?,
                ));
            } else {
                let t: Option<i64> =
                    conn.query_row("SELECT unixepoch(?1)", [since], |r| r.get(0))?;
                let Some(t) = t else {
                    anyhow::bail!("--since {since:?}: expected a run id or a date like 2026-01-31");
                };
                conds.push("a.mtime_ns >= ?".into());
                params.push(SqlValue::Integer(t.saturating_mul(1_000_000_000)));
            }
        }
        for w in &self.wheres {
            let (field, value) = w
                .split_once('=')
                .ok_or_else(|| anyhow::anyhow!("--where {w:?}: expected FIELD=VALUE"))?;
            let field = field.trim();
            if !FIELDS.contains(&field) {
                anyhow::bail!(
                    "--where {w:?}: unknown field {field:?} (have: {})",
                    FIELDS.join(", ")
                );
            }
            if value.is_empty() {
                conds.push(format!("a.{field} IS NULL"));
                continue;
            }
            let mut alts = Vec::new();
            for v in value.split(',') {
                let v = v.trim();
                if BOOL_FIELDS.contains(&field) {
                    let b = match v.to_ascii_lowercase().as_str() {
                        "true" | "1" | "yes" => 1,
                        "false" | "0" | "no" => 0,
                        _ => anyhow::bail!("--where {w:?}: {field} is true or false"),
                    };
                    alts.push(format!("a.{field} = ?"));
                    params.push(SqlValue::Integer(b));
                } else if v.contains(['*', '?', '[']) {
                    alts.push(format!("CAST(a.{field} AS TEXT) GLOB ?"));
                    params.push(SqlValue::Text(v.to_string()));
                } else {
                    alts.push(format!("CAST(a.{field} AS TEXT) = ?"));
                    params.push(SqlValue::Text(v.to_string()));
                }
            }
            conds.push(format!("({})", alts.join(" OR ")));
        }
        Ok((conds.join(" AND "), params))
    }
}

/// Report formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ReportFormat {
    /// Aligned tables for a terminal.
    Text,
    Markdown,
    /// One table; the `record` column says which part a row belongs to.
    Csv,
    /// One JSON object per line; `type` says which part.
    Jsonl,
}

/// Verdicts per status (not-applicable ones are counted apart and not
/// shown: they say the check has nothing to judge there).
pub(crate) type Counts = crate::output::Tally;

#[derive(Debug, Default, Clone)]
pub(crate) struct RunRow {
    pub run: String,
    pub artifacts: u64,
    pub incomplete: u64,
    pub counts: Counts,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct CheckRow {
    pub check: String,
    pub description: String,
    pub counts: Counts,
}

#[derive(Debug, Clone)]
pub(crate) struct FailRow {
    pub check: String,
    pub run: String,
    /// The artifact file name, or the run folder for a run-scope check.
    pub artifact: String,
    pub scope: String,
    pub reason: String,
    pub citation: Option<String>,
}

#[derive(Debug, Clone)]
pub(crate) struct IncompleteRow {
    pub run: String,
    pub artifact: String,
    pub errors: u64,
    pub kind: String,
    pub message: String,
    pub citation: String,
}

/// Everything a report shows.
#[derive(Debug, Default)]
pub(crate) struct AuditReport {
    pub db: String,
    pub artifacts: u64,
    pub incomplete: u64,
    pub runs: Vec<RunRow>,
    pub checks: Vec<CheckRow>,
    pub totals: Counts,
    pub failing: Vec<FailRow>,
    pub damaged: Vec<IncompleteRow>,
}

/// Numeric run ids in numeric order, then folders.
fn run_order(run: &str) -> (u8, u128, String) {
    match run.parse::<u128>() {
        Ok(n) => (0, n, String::new()),
        Err(_) => (1, 0, run.to_string()),
    }
}

pub(crate) fn build(conn: &Connection, db: &str, filter: &Filter) -> anyhow::Result<AuditReport> {
    let (cond, params) = filter.sql(conn)?;
    let p = rusqlite::params_from_iter(params.iter());
    let mut report = AuditReport {
        db: db.to_string(),
        ..AuditReport::default()
    };
    let mut runs: BTreeMap<(u8, u128, String), RunRow> = BTreeMap::new();
    let run_of = |run_id: Option<String>, run_dir: String| run_id.unwrap_or(run_dir);
    let mut stmt = conn.prepare(&format!(
        "SELECT a.run_id, a.run_dir, a.artifact, a.complete, \
           (SELECT count(*) FROM coverage_errors e WHERE e.path = a.path) AS errors, \
           (SELECT kind FROM coverage_errors e WHERE e.path = a.path ORDER BY seq LIMIT 1) AS kind, \
           (SELECT message FROM coverage_errors e WHERE e.path = a.path ORDER BY seq LIMIT 1) AS message, \
           (SELECT citation FROM coverage_errors e WHERE e.path = a.path ORDER BY seq LIMIT 1) AS citation \
         FROM artifacts a WHERE {cond} ORDER BY a.path"
    ))?;
    let mut rows = stmt.query(p.clone())?;
    while let Some(r) = rows.next()? {
        let run = run_of(r.get("run_id")?, r.get("run_dir")?);
        let complete: bool = r.get("complete")?;
        report.artifacts += 1;
        let e = runs.entry(run_order(&run)).or_insert_with(|| RunRow {
            run: run.clone(),
            ..RunRow::default()
        });
        e.artifacts += 1;
        if !complete {
            report.incomplete += 1;
            e.incomplete += 1;
            report.damaged.push(IncompleteRow {
                run,
                artifact: r.get("artifact")?,
                errors: r.get::<_, i64>("errors")? as u64,
                // Shown as stored (an incomplete artifact may have no error row).
                kind: r.get::<_, Option<String>>("kind")?.unwrap_or_default(),
                message: r.get::<_, Option<String>>("message")?.unwrap_or_default(),
                citation: r.get::<_, Option<String>>("citation")?.unwrap_or_default(),
            });
        }
    }
    let descriptions: BTreeMap<String, String> = conn
        .prepare("SELECT check_id, description FROM checks")?
        .query_map([], |r| Ok((r.get("check_id")?, r.get("description")?)))?
        .collect::<Result<_, _>>()?;
    let mut checks: BTreeMap<String, CheckRow> = BTreeMap::new();
    let mut stmt = conn.prepare(&format!(
        "WITH sel AS (SELECT a.path, a.run_dir FROM artifacts a WHERE {cond})
         SELECT v.check_id, v.scope, v.scope_name, v.artifact, v.run_id, v.run_dir, v.status, v.reason, v.first_citation
         FROM verdicts v
         WHERE v.path IN (SELECT path FROM sel)
            OR (v.path IS NULL AND v.run_dir IN (SELECT run_dir FROM sel))
         ORDER BY v.check_id, v.run_dir, v.scope_name"
    ))?;
    let mut rows = stmt.query(p)?;
    while let Some(r) = rows.next()? {
        let check: String = r.get("check_id")?;
        let scope: String = r.get("scope")?;
        let scope_name: String = r.get("scope_name")?;
        let artifact: Option<String> = r.get("artifact")?;
        let run = run_of(r.get("run_id")?, r.get("run_dir")?);
        // Typed: a status this build does not know is an error naming the
        // row, never counted as one it knows.
        let status: Status = store::verdict_status(r, &scope_name)?;
        report.totals.add(status);
        runs.entry(run_order(&run))
            .or_insert_with(|| RunRow {
                run: run.clone(),
                ..RunRow::default()
            })
            .counts
            .add(status);
        checks
            .entry(check.clone())
            .or_insert_with(|| CheckRow {
                check: check.clone(),
                description: descriptions.get(&check).cloned().unwrap_or_default(),
                ..CheckRow::default()
            })
            .counts
            .add(status);
        if status == Status::Fail {
            report.failing.push(FailRow {
                check,
                run,
                artifact: artifact.unwrap_or(scope_name),
                scope,
                reason: r.get("reason")?,
                citation: r.get("first_citation")?,
            });
        }
    }
    report.runs = runs.into_values().collect();
    report.checks = checks.into_values().collect();
    report.failing.sort_by(|a, b| {
        (&a.check, run_order(&a.run), &a.artifact).cmp(&(&b.check, run_order(&b.run), &b.artifact))
    });
    report
        .damaged
        .sort_by(|a, b| (run_order(&a.run), &a.artifact).cmp(&(run_order(&b.run), &b.artifact)));
    Ok(report)
}

pub(crate) fn write(
    report: &AuditReport,
    format: ReportFormat,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    match format {
        ReportFormat::Text => text(report, &mut buf),
        ReportFormat::Markdown => markdown(report, &mut buf),
        ReportFormat::Csv => csv(report, &mut buf),
        ReportFormat::Jsonl => jsonl(report, &mut buf),
    }
    out.write_all(&buf)?;
    out.flush()
}

fn headline(r: &AuditReport) -> String {
    format!(
        "{} artifacts in {} runs ({} incomplete); {} verdicts: {} pass, {} fail, {} unknown",
        r.artifacts,
        r.runs.len(),
        r.incomplete,
        r.totals.pass + r.totals.fail + r.totals.unknown,
        r.totals.pass,
        r.totals.fail,
        r.totals.unknown
    )
}

/// Left-aligned columns, two spaces apart.
fn table(buf: &mut Vec<u8>, head: &[&str], rows: &[Vec<String>]) {
    let mut width: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |buf: &mut Vec<u8>, cells: Vec<&str>| {
        let n = cells.len();
        let mut s = String::new();
        for (i, c) in cells.into_iter().enumerate() {
            s.push_str(c);
            if i + 1 < n {
                s.push_str(&" ".repeat(width[i] - c.chars().count() + 2));
            }
        }
        let _ = writeln!(buf, "{}", s.trim_end());
    };
    line(buf, head.to_vec());
    for r in rows {
        line(buf, r.iter().map(String::as_str).collect());
    }
}

fn text(r: &AuditReport, buf: &mut Vec<u8>) {
    let _ = writeln!(
        buf,
        "artiscan audit report: {}\n{}\n",
        esc(&r.db),
        headline(r)
    );
    let _ = writeln!(buf, "RUNS");
    let rows: Vec<Vec<String>> = r
        .runs
        .iter()
        .map(|x| {
            vec![
                esc(&x.run),
                x.artifacts.to_string(),
                x.incomplete.to_string(),
                x.counts.pass.to_string(),
                x.counts.fail.to_string(),
                x.counts.unknown.to_string(),
            ]
        })
        .collect();
    table(
        buf,
        &["run", "artifacts", "incomplete", "pass", "fail", "unknown"],
        &rows,
    );
    let _ = writeln!(buf, "\nCHECKS");
    let rows: Vec<Vec<String>> = r
        .checks
        .iter()
        .map(|x| {
            vec![
                esc(&x.check),
                x.counts.pass.to_string(),
                x.counts.fail.to_string(),
                x.counts.unknown.to_string(),
            ]
        })
        .collect();
    table(buf, &["check", "pass", "fail", "unknown"], &rows);
    let _ = writeln!(buf, "\nFAILING ({})", r.failing.len());
    for f in &r.failing {
        let _ = writeln!(
            buf,
            "FAIL  {}  run {}  {}\n      {}",
            esc(&f.check),
            esc(&f.run),
            esc(&f.artifact),
            esc(&f.reason)
        );
        if let Some(c) = &f.citation {
            let _ = writeln!(buf, "      {}", esc(c));
        }
    }
    let _ = writeln!(buf, "\nINCOMPLETE ({})", r.damaged.len());
    for d in &r.damaged {
        let _ = writeln!(
            buf,
            "{}  run {}  {} error(s), first {}: {}\n      {}",
            esc(&d.artifact),
            esc(&d.run),
            d.errors,
            esc(&d.kind),
            esc(&d.message),
            esc(&d.citation)
        );
    }
}

/// Stored names, reasons and messages come from artifacts: no markup.
fn cell(s: &str) -> String {
    crate::escape::md_cell(s)
}

/// The same for text output: controls escaped.
fn esc(s: &str) -> String {
    crate::escape::text(s).into_owned()
}

fn markdown(r: &AuditReport, buf: &mut Vec<u8>) {
    let _ = writeln!(
        buf,
        "# artiscan audit report\n\n{}: {}.\n",
        crate::escape::md_code(&r.db),
        headline(r)
    );
    let _ = writeln!(
        buf,
        "## Runs\n\n| run | artifacts | incomplete | pass | fail | unknown |\n|---|---:|---:|---:|---:|---:|"
    );
    for x in &r.runs {
        let _ = writeln!(
            buf,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&x.run),
            x.artifacts,
            x.incomplete,
            x.counts.pass,
            x.counts.fail,
            x.counts.unknown
        );
    }
    let _ = writeln!(
        buf,
        "\n## Checks\n\n| check | pass | fail | unknown | description |\n|---|---:|---:|---:|---|"
    );
    for x in &r.checks {
        let _ = writeln!(
            buf,
            "| {} | {} | {} | {} | {} |",
            cell(&x.check),
            x.counts.pass,
            x.counts.fail,
            x.counts.unknown,
            cell(&x.description)
        );
    }
    let _ = writeln!(
        buf,
        "\n## Failing\n\n| check | run | artifact | reason | first citation |\n|---|---|---|---|---|"
    );
    for f in &r.failing {
        let cite = f
            .citation
            .as_deref()
            .map(crate::escape::md_code)
            .unwrap_or_default();
        let _ = writeln!(
            buf,
            "| {} | {} | {} | {} | {cite} |",
            cell(&f.check),
            cell(&f.run),
            cell(&f.artifact),
            cell(&f.reason)
        );
    }
    let _ = writeln!(
        buf,
        "\n## Incomplete artifacts\n\n| run | artifact | errors | first error | where |\n|---|---|---:|---|---|"
    );
    for d in &r.damaged {
        let _ = writeln!(
            buf,
            "| {} | {} | {} | {}: {} | {} |",
            cell(&d.run),
            cell(&d.artifact),
            d.errors,
            cell(&d.kind),
            cell(&d.message),
            crate::escape::md_code(&d.citation)
        );
    }
}

fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(r: &AuditReport, buf: &mut Vec<u8>) {
    let _ = writeln!(
        buf,
        "record,run,check,artifact,artifacts,incomplete,pass,fail,unknown,reason,citation"
    );
    let mut row = |cells: [&str; 11]| {
        let line: Vec<String> = cells.iter().map(|c| csv_field(c)).collect();
        let _ = writeln!(buf, "{}", line.join(","));
    };
    for x in &r.runs {
        let (a, i, p, f, u) = (
            x.artifacts.to_string(),
            x.incomplete.to_string(),
            x.counts.pass.to_string(),
            x.counts.fail.to_string(),
            x.counts.unknown.to_string(),
        );
        row(["run", &x.run, "", "", &a, &i, &p, &f, &u, "", ""]);
    }
    for x in &r.checks {
        let (p, f, u) = (
            x.counts.pass.to_string(),
            x.counts.fail.to_string(),
            x.counts.unknown.to_string(),
        );
        row([
            "check",
            "",
            &x.check,
            "",
            "",
            "",
            &p,
            &f,
            &u,
            &x.description,
            "",
        ]);
    }
    for x in &r.failing {
        row([
            "fail",
            &x.run,
            &x.check,
            &x.artifact,
            "",
            "",
            "",
            "",
            "",
            &x.reason,
            x.citation.as_deref().unwrap_or(""),
        ]);
    }
    for d in &r.damaged {
        let msg = format!("{}: {}", d.kind, d.message);
        row([
            "incomplete",
            &d.run,
            "",
            &d.artifact,
            "",
            "",
            "",
            "",
            "",
            &msg,
            &d.citation,
        ]);
    }
}

/// The report as `audit_*` records (`crate::output::records`).
fn jsonl(r: &AuditReport, buf: &mut Vec<u8>) {
    use crate::output::{
        AuditCheckRecord, AuditFailRecord, AuditIncompleteRecord, AuditRunRecord,
        AuditSummaryRecord, write_jsonl,
    };
    write_jsonl(
        buf,
        &AuditSummaryRecord {
            kind: AuditSummaryRecord::KIND,
            db: r.db.clone(),
            artifacts: r.artifacts,
            runs: r.runs.len() as u64,
            incomplete: r.incomplete,
            pass: r.totals.pass,
            fail: r.totals.fail,
            unknown: r.totals.unknown,
        },
    );
    for x in &r.runs {
        write_jsonl(
            buf,
            &AuditRunRecord {
                kind: AuditRunRecord::KIND,
                run: x.run.clone(),
                artifacts: x.artifacts,
                incomplete: x.incomplete,
                pass: x.counts.pass,
                fail: x.counts.fail,
                unknown: x.counts.unknown,
            },
        );
    }
    for x in &r.checks {
        write_jsonl(
            buf,
            &AuditCheckRecord {
                kind: AuditCheckRecord::KIND,
                check: x.check.clone(),
                description: x.description.clone(),
                pass: x.counts.pass,
                fail: x.counts.fail,
                unknown: x.counts.unknown,
            },
        );
    }
    for x in &r.failing {
        write_jsonl(
            buf,
            &AuditFailRecord {
                kind: AuditFailRecord::KIND,
                check: x.check.clone(),
                run: x.run.clone(),
                artifact: x.artifact.clone(),
                scope: x.scope.clone(),
                reason: x.reason.clone(),
                citation: x.citation.clone(),
            },
        );
    }
    for x in &r.damaged {
        write_jsonl(
            buf,
            &AuditIncompleteRecord {
                kind: AuditIncompleteRecord::KIND,
                run: x.run.clone(),
                artifact: x.artifact.clone(),
                errors: x.errors,
                error_kind: x.kind.clone(),
                message: x.message.clone(),
                citation: x.citation.clone(),
            },
        );
    }
}
