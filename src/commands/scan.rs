//! `artiscan scan ARTIFACTS...`: evidence JSON Lines from the pack rules.

use super::Found;
use crate::limits::ReadLimits;
use crate::location::Location;
use crate::output::escape;
use crate::output::{self, CoverageRecord, SummaryRecord};
use crate::pack::RuleSet;
use crate::scan::{Record, ScanOptions, scan_all};
use crate::source;
use std::io::Write;
use std::time::Instant;

/// How records are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// One JSON record per line (default when stdout is not a terminal).
    Jsonl,
    /// One JSON document: `{"schema_version", "records": [...]}`.
    Json,
    /// A readable listing per artifact (default on a terminal).
    Text,
    /// A Markdown table (checks).
    Markdown,
    /// Markdown rows in the InferenceX verifier's shape, one per verifier
    /// check number and run (checks).
    Verdicts,
}

impl OutputFormat {
    pub fn default_for_stdout() -> OutputFormat {
        use std::io::IsTerminal;
        if std::io::stdout().is_terminal() {
            OutputFormat::Text
        } else {
            OutputFormat::Jsonl
        }
    }
}

/// Bytes of output held before they are written.
const SPILL: usize = 1 << 20;

#[allow(clippy::too_many_arguments)]
pub fn run(
    inputs: &[String],
    rules: &RuleSet,
    opts: ScanOptions,
    limits: &ReadLimits,
    threads: usize,
    format: OutputFormat,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Found> {
    let start = Instant::now();
    let (artifacts, walk_errors) = source::walk(inputs);
    let mut summary = SummaryRecord::new();
    super::report_walk_errors(err, &walk_errors)?;
    summary.errors += walk_errors.len() as u64;
    let mut unreadable = !walk_errors.is_empty();
    let json_doc = format == OutputFormat::Json;
    if json_doc {
        write!(
            out,
            "{{\"schema_version\":\"{}\",\"records\":[",
            output::SCHEMA_VERSION
        )?;
    }
    let mut first = true;
    let mut io_result: std::io::Result<()> = Ok(());
    scan_all(rules, &artifacts, limits, opts, threads, |a, scan, pb| {
        super::count_artifact(&mut summary, &scan.coverage);
        unreadable |= super::unreadable(&scan.coverage);
        for (rule, n) in &scan.counts {
            *summary.rules.entry(rule.clone()).or_default() += n;
            summary.matches += n;
        }
        let coverage = CoverageRecord::new(&a.path, scan.sha256.clone(), &scan.coverage);
        pb.suspend(|| {
            let _ = super::report_coverage_errors(err, &a.path, &scan.coverage);
        });
        // Written out in chunks: records share a long line or member name
        // in memory, but each serialized record repeats it, so one
        // artifact's output can be thousands of times its records' size.
        let mut spill = |buf: &mut Vec<u8>| {
            if io_result.is_ok() {
                io_result = out.write_all(buf);
            }
            buf.clear();
        };
        let mut buf = Vec::new();
        match format {
            OutputFormat::Jsonl | OutputFormat::Json => {
                for r in &scan.records {
                    if json_doc && !std::mem::take(&mut first) {
                        buf.push(b',');
                    }
                    output::write_jsonl(&mut buf, r);
                    if buf.len() >= SPILL {
                        spill(&mut buf);
                    }
                }
                if json_doc && !std::mem::take(&mut first) {
                    buf.push(b',');
                }
                output::write_jsonl(&mut buf, &coverage);
            }
            OutputFormat::Text | OutputFormat::Markdown | OutputFormat::Verdicts => {
                text(&mut buf, &a.path, &scan.records, &coverage, &mut spill)
            }
        }
        spill(&mut buf);
    });
    io_result?;
    summary.elapsed_s = start.elapsed().as_secs_f64();
    let mut buf = Vec::new();
    match format {
        OutputFormat::Jsonl => output::write_jsonl(&mut buf, &summary),
        OutputFormat::Json => {
            if !first {
                buf.push(b',');
            }
            output::write_jsonl(&mut buf, &summary);
            buf.extend_from_slice(b"]}\n");
        }
        OutputFormat::Text | OutputFormat::Markdown | OutputFormat::Verdicts => {
            let _ = writeln!(
                buf,
                "{} artifact(s), {} incomplete, {} member(s), {} evidence line(s), {:.2}s",
                summary.artifacts,
                summary.incomplete,
                summary.members,
                summary.matches,
                summary.elapsed_s
            );
        }
    }
    out.write_all(&buf)?;
    out.flush()?;
    Ok(Found {
        found: summary.matches > 0,
        errors: summary.errors > 0,
        unreadable,
    })
}

/// The `--format text` listing. Every line goes through
/// [`escape::text`]: paths, capture values and error messages come from the
/// artifact and may hold newlines or escape sequences.
fn text(
    buf: &mut Vec<u8>,
    path: &str,
    records: &[Record],
    cov: &CoverageRecord,
    spill: &mut dyn FnMut(&mut Vec<u8>),
) {
    let mut line = |s: String| {
        buf.extend_from_slice(escape::text(&s).as_bytes());
        buf.push(b'\n');
        if buf.len() >= SPILL {
            spill(buf);
        }
    };
    let state = if cov.complete {
        "complete"
    } else {
        "INCOMPLETE"
    };
    line(format!(
        "== {} ({state}, {} members, {} bytes)",
        crate::location::escape(path),
        cov.members,
        cov.bytes
    ));
    for r in records {
        match r {
            Record::Evidence(e) => {
                let caps = e
                    .captures
                    .iter()
                    .flatten()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ");
                let rank = e
                    .rank
                    .iter()
                    .flatten()
                    .map(|(k, v)| format!("{}{v}", k.to_uppercase()))
                    .collect::<Vec<_>>()
                    .join(" ");
                line(format!("  {}  {}  {caps}  {rank}", e.citation, e.rule));
            }
            Record::Aggregate(a) => {
                let stats = a
                    .stats
                    .iter()
                    .map(|(k, s)| format!("{k} min {} mean {:.3} max {}", s.min, s.mean, s.max))
                    .collect::<Vec<_>>()
                    .join(", ");
                let group = serde_json::Value::Object(a.group.clone());
                // `first..N`, the range `cite` takes (N: the last line).
                let last = Location::parse(&a.last).map_or(0, |l| l.line);
                line(format!(
                    "  {}..{last}  {} x{} {group} {stats}",
                    a.first, a.rule, a.count
                ));
            }
        }
    }
    for e in &cov.errors {
        line(format!(
            "  ! {} {:?}: {}",
            Location::member_citation(path, &e.members),
            e.kind,
            e.message
        ));
    }
}
