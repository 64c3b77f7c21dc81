//! The printer interface: every command that prints records (scan's
//! evidence, check's verdicts) hands them to a [`RecordSink`], one per
//! output format, as ripgrep's searcher hands matches to its printers. A new
//! output format is one more sink and one more [`OutputFormat`] value.

use super::records::{
    Aggregate, AggregateRecord, CoverageRecord, Evidence, EvidenceRecord, SummaryRecord, Verdict,
    VerdictRecord,
};
use super::{SCHEMA_VERSION, verdict_rows, verdicts, write_jsonl};
use crate::escape;
use crate::location::Location;
use std::io::{self, Write};

/// How records are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum OutputFormat {
    /// One JSON record per line (default when stdout is not a terminal).
    Jsonl,
    /// One JSON document: scan's `{"schema_version", "records": [...]}`,
    /// check's `{"schema_version", "verdicts": [...], "coverage": [...]}`.
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

/// One record of an artifact's scan, as a sink receives it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum ScanRecord<'a> {
    Evidence(&'a Evidence),
    Aggregate(&'a Aggregate),
}

impl<'a> From<&'a crate::scan::Record> for ScanRecord<'a> {
    fn from(r: &'a crate::scan::Record) -> Self {
        match r {
            crate::scan::Record::Evidence(e) => ScanRecord::Evidence(e),
            crate::scan::Record::Aggregate(a) => ScanRecord::Aggregate(a),
        }
    }
}

impl serde::Serialize for ScanRecord<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ScanRecord::Evidence(e) => EvidenceRecord::from(*e).serialize(s),
            ScanRecord::Aggregate(a) => AggregateRecord::from(*a).serialize(s),
        }
    }
}

/// Where a scan's records go: [`RecordSink::artifact`] per artifact in
/// input order, then [`RecordSink::summary`].
pub(crate) trait RecordSink {
    /// One artifact's scan records and its coverage.
    fn artifact(
        &mut self,
        path: &str,
        records: &[ScanRecord<'_>],
        coverage: &CoverageRecord,
    ) -> io::Result<()>;
    /// The end of a scan: its summary.
    fn summary(&mut self, summary: &SummaryRecord) -> io::Result<()>;
}

/// Where a check's output goes, as it is judged:
/// [`VerdictSink::coverage`] per scanned artifact in input order,
/// [`VerdictSink::verdict`] per verdict in the order judged (each
/// artifact's checks once it is scanned, then each run's), then
/// [`VerdictSink::end`]. Verdicts are written as they come; a sink holds
/// only what its ending needs (the coverage lines that close JSON Lines
/// and JSON, the totals and summary tables of text and Markdown), so a
/// check's memory does not grow with its verdicts.
pub(crate) trait VerdictSink {
    /// The coverage of one artifact the verdicts rest on. The text,
    /// Markdown and row formats print verdicts only.
    fn coverage(&mut self, coverage: &CoverageRecord) -> io::Result<()> {
        let _ = coverage;
        Ok(())
    }
    fn verdict(&mut self, verdict: &Verdict) -> io::Result<()>;
    fn end(&mut self) -> io::Result<()>;
    /// One scanned file of run `run`, at `path`, and its records: what ran
    /// (the row and Markdown formats write it under the rows). Whether the
    /// sink keeps it: then its [`VerdictSink::exit_code`] reads it, and
    /// the caller need not keep a copy of its own.
    fn records(&mut self, run: &str, path: &str, records: &[crate::scan::Record]) -> bool {
        let _ = (run, path, records);
        false
    }
    /// The exit code, where the sink keeps what ran (see `records`).
    fn exit_code(&self) -> Option<i32> {
        None
    }
}

/// How `check` shows its verdicts beyond the format.
#[derive(Clone, Debug, Default)]
pub struct CheckView {
    /// `verdicts`: the verifier prompt's layout (failures and warnings,
    /// then PASS and N/A rows in one collapsed `<details>` group).
    pub grouped: bool,
    /// `text`: the statuses listed (empty: all); totals count all.
    pub(crate) shown: Vec<crate::domain::Status>,
    /// `--curves PATH`: where to write the Pareto curves as InferenceX's
    /// `pareto_coverage.py` takes them (`output::curves`).
    pub curves: Option<std::path::PathBuf>,
}

impl CheckView {
    /// The view for `--grouped` and `--status LIST` (`fail,unknown`; also
    /// `pass`, `not_applicable` or `na`).
    pub fn new(grouped: bool, status: Option<&str>) -> Result<CheckView, String> {
        use crate::domain::Status;
        let mut shown = Vec::new();
        for s in status.unwrap_or("").split(',').map(str::trim) {
            let st = match s.to_ascii_lowercase().as_str() {
                "" => continue,
                "fail" => Status::Fail,
                "unknown" => Status::Unknown,
                "pass" => Status::Pass,
                "not_applicable" | "na" | "n/a" => Status::NotApplicable,
                other => {
                    return Err(format!(
                        "--status: unknown status {other:?} (fail, unknown, pass, not_applicable)"
                    ));
                }
            };
            if !shown.contains(&st) {
                shown.push(st);
            }
        }
        Ok(CheckView {
            grouped,
            shown,
            curves: None,
        })
    }

    /// With `--curves PATH`.
    pub fn with_curves(self, curves: Option<std::path::PathBuf>) -> CheckView {
        CheckView { curves, ..self }
    }
}

/// The sink for `format`, writing to `out`.
pub(crate) fn sink<'w>(format: OutputFormat, out: &'w mut dyn Write) -> Box<dyn RecordSink + 'w> {
    match format {
        OutputFormat::Jsonl => Box::new(Jsonl {
            out: Spill::new(out),
        }),
        OutputFormat::Json => Box::new(Json {
            out: Spill::new(out),
            started: false,
            first: true,
        }),
        // Scan refuses `markdown` and `verdicts`: a check's formats.
        OutputFormat::Text | OutputFormat::Markdown | OutputFormat::Verdicts => Box::new(Text {
            out: Spill::new(out),
        }),
    }
}

/// The sink for a check's verdicts in `format`; `run_checks` names the
/// checks judged per run, whose rows are the run's own (`verdicts`).
pub(crate) fn check_sink<'w>(
    format: OutputFormat,
    out: &'w mut dyn Write,
    run_checks: Vec<String>,
    view: &CheckView,
) -> Box<dyn VerdictSink + 'w> {
    let out = Spill::new(out);
    match format {
        OutputFormat::Jsonl => Box::new(JsonlVerdicts {
            out,
            coverage: Deferred::default(),
        }),
        OutputFormat::Json => Box::new(JsonVerdicts {
            out,
            coverage: Deferred::default(),
            first: true,
        }),
        OutputFormat::Text => Box::new(TextVerdicts {
            out,
            listing: verdicts::TextListing::new(view.shown.clone()),
        }),
        OutputFormat::Markdown => Box::new(MarkdownVerdicts {
            out,
            report: verdicts::MarkdownReport::new(run_checks),
        }),
        OutputFormat::Verdicts => Box::new(RowsVerdicts {
            out,
            rows: verdict_rows::VerdictRows::new(run_checks, view.grouped),
        }),
    }
}

/// `check --format jsonl`: a line per verdict as judged, then the
/// coverage lines.
struct JsonlVerdicts<'w> {
    out: Spill<'w>,
    /// The coverage lines, serialized.
    coverage: Deferred,
}

impl VerdictSink for JsonlVerdicts<'_> {
    fn coverage(&mut self, c: &CoverageRecord) -> io::Result<()> {
        let mut line = Vec::new();
        write_jsonl(&mut line, c);
        self.coverage.push(&line)
    }

    fn verdict(&mut self, v: &Verdict) -> io::Result<()> {
        write_jsonl(&mut self.out.buf, &VerdictRecord::from(v));
        self.out.maybe()
    }

    fn end(&mut self) -> io::Result<()> {
        self.out.flush()?;
        self.coverage.replay(self.out.out)?;
        self.out.end()
    }
}

/// `check --format json`: `{"schema_version", "verdicts": [...],
/// "coverage": [...]}`, the verdicts written as judged, each record as its
/// JSON Lines line.
struct JsonVerdicts<'w> {
    out: Spill<'w>,
    /// The coverage records, serialized and separated.
    coverage: Deferred,
    /// No verdict written yet (the document's head is next).
    first: bool,
}

impl JsonVerdicts<'_> {
    fn head(&mut self) {
        if std::mem::take(&mut self.first) {
            let _ = write!(
                self.out.buf,
                "{{\"schema_version\":\"{SCHEMA_VERSION}\",\"verdicts\":["
            );
        } else {
            self.out.buf.push(b',');
        }
    }
}

impl VerdictSink for JsonVerdicts<'_> {
    fn coverage(&mut self, c: &CoverageRecord) -> io::Result<()> {
        let mut record = Vec::new();
        if !self.coverage.is_empty() {
            record.push(b',');
        }
        // Serializing a plain struct into a Vec cannot fail.
        serde_json::to_writer(&mut record, c).expect("serialize coverage");
        self.coverage.push(&record)
    }

    fn verdict(&mut self, v: &Verdict) -> io::Result<()> {
        self.head();
        serde_json::to_writer(&mut self.out.buf, &VerdictRecord::from(v))
            .expect("serialize verdict");
        self.out.maybe()
    }

    fn end(&mut self) -> io::Result<()> {
        if self.first {
            self.head();
        }
        self.out.buf.extend_from_slice(b"],\"coverage\":[");
        self.out.flush()?;
        self.coverage.replay(self.out.out)?;
        self.out.buf.extend_from_slice(b"]}\n");
        self.out.end()
    }
}

/// `check --format text`: verdicts listed per scope as judged.
struct TextVerdicts<'w> {
    out: Spill<'w>,
    listing: verdicts::TextListing,
}

impl VerdictSink for TextVerdicts<'_> {
    fn verdict(&mut self, v: &Verdict) -> io::Result<()> {
        self.listing.verdict(&mut self.out.buf, v);
        self.out.maybe()
    }

    fn end(&mut self) -> io::Result<()> {
        self.listing.finish(&mut self.out.buf);
        self.out.end()
    }
}

/// `check --format markdown`: the PR-comment report, written at the end.
struct MarkdownVerdicts<'w> {
    out: Spill<'w>,
    report: verdicts::MarkdownReport,
}

impl VerdictSink for MarkdownVerdicts<'_> {
    fn verdict(&mut self, v: &Verdict) -> io::Result<()> {
        self.report.verdict(v);
        Ok(())
    }

    fn records(&mut self, run: &str, path: &str, records: &[crate::scan::Record]) -> bool {
        self.report.facts.records(run, path, records);
        true
    }

    fn exit_code(&self) -> Option<i32> {
        Some(self.report.exit_code())
    }

    fn end(&mut self) -> io::Result<()> {
        self.report.finish(&mut self.out.buf);
        self.out.end()
    }
}

/// `check --format verdicts`: the InferenceX verifier's rows.
struct RowsVerdicts<'w> {
    out: Spill<'w>,
    rows: verdict_rows::VerdictRows,
}

impl VerdictSink for RowsVerdicts<'_> {
    fn verdict(&mut self, v: &Verdict) -> io::Result<()> {
        self.rows.verdict(v);
        Ok(())
    }

    fn records(&mut self, run: &str, path: &str, records: &[crate::scan::Record]) -> bool {
        self.rows.facts.records(run, path, records);
        true
    }

    fn exit_code(&self) -> Option<i32> {
        Some(self.rows.exit_code())
    }

    fn end(&mut self) -> io::Result<()> {
        self.out
            .buf
            .extend_from_slice(self.rows.finish().as_bytes());
        self.out.end()
    }
}

/// Output that must wait for the end (`check`'s coverage records follow
/// every verdict), held compressed: a record of a folder of a million
/// small files is some 200 bytes of JSON that repeats its neighbours'
/// keys and path, about a fifth of that once compressed.
#[derive(Default)]
struct Deferred {
    zstd: Option<zstd::stream::write::Encoder<'static, Vec<u8>>>,
}

impl Deferred {
    fn is_empty(&self) -> bool {
        self.zstd.is_none()
    }

    fn push(&mut self, bytes: &[u8]) -> io::Result<()> {
        let zstd = match &mut self.zstd {
            Some(z) => z,
            None => self
                .zstd
                .insert(zstd::stream::write::Encoder::new(Vec::new(), 1)?),
        };
        zstd.write_all(bytes)
    }

    /// Writes what was pushed, in order, and forgets it.
    fn replay(&mut self, out: &mut dyn Write) -> io::Result<()> {
        if let Some(zstd) = self.zstd.take() {
            let packed = zstd.finish()?;
            io::copy(&mut zstd::stream::read::Decoder::new(&packed[..])?, out)?;
        }
        Ok(())
    }
}

/// Bytes of output held before they are written.
const SPILL: usize = 1 << 20;

/// Output written in chunks: records share a long line or member name in
/// memory, but each serialized record repeats it, so one artifact's output
/// can be thousands of times its records' size.
struct Spill<'w> {
    out: &'w mut dyn Write,
    buf: Vec<u8>,
}

impl<'w> Spill<'w> {
    fn new(out: &'w mut dyn Write) -> Spill<'w> {
        Spill {
            out,
            buf: Vec::new(),
        }
    }

    /// Writes what is held once it is past [`SPILL`].
    fn maybe(&mut self) -> io::Result<()> {
        if self.buf.len() >= SPILL {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.write_all(&self.buf)?;
        self.buf.clear();
        Ok(())
    }

    /// Writes what is held and flushes the writer.
    fn end(&mut self) -> io::Result<()> {
        self.flush()?;
        self.out.flush()
    }
}

/// `--format jsonl`: one JSON record per line.
struct Jsonl<'w> {
    out: Spill<'w>,
}

impl RecordSink for Jsonl<'_> {
    fn artifact(
        &mut self,
        _: &str,
        records: &[ScanRecord<'_>],
        coverage: &CoverageRecord,
    ) -> io::Result<()> {
        for r in records {
            write_jsonl(&mut self.out.buf, r);
            self.out.maybe()?;
        }
        write_jsonl(&mut self.out.buf, coverage);
        self.out.flush()
    }

    fn summary(&mut self, summary: &SummaryRecord) -> io::Result<()> {
        write_jsonl(&mut self.out.buf, summary);
        self.out.end()
    }
}

/// `--format json`: one document. A scan's is `{"schema_version",
/// "records": [...]}` with its summary last; a check's `{"schema_version",
/// "verdicts", "coverage"}`.
struct Json<'w> {
    out: Spill<'w>,
    /// The scan document's head is written.
    started: bool,
    /// No record written yet (no comma before the next).
    first: bool,
}

impl Json<'_> {
    fn start(&mut self) {
        if !std::mem::replace(&mut self.started, true) {
            let _ = write!(
                self.out.buf,
                "{{\"schema_version\":\"{SCHEMA_VERSION}\",\"records\":["
            );
        }
    }

    fn record<T: serde::Serialize>(&mut self, r: &T) {
        if !std::mem::take(&mut self.first) {
            self.out.buf.push(b',');
        }
        write_jsonl(&mut self.out.buf, r);
    }
}

impl RecordSink for Json<'_> {
    fn artifact(
        &mut self,
        _: &str,
        records: &[ScanRecord<'_>],
        coverage: &CoverageRecord,
    ) -> io::Result<()> {
        self.start();
        for r in records {
            self.record(r);
            self.out.maybe()?;
        }
        self.record(coverage);
        self.out.flush()
    }

    fn summary(&mut self, summary: &SummaryRecord) -> io::Result<()> {
        self.start();
        self.record(summary);
        self.out.buf.extend_from_slice(b"]}\n");
        self.out.end()
    }
}

/// `scan --format text`: each artifact's records, for a person.
struct Text<'w> {
    out: Spill<'w>,
}

impl RecordSink for Text<'_> {
    fn artifact(
        &mut self,
        path: &str,
        records: &[ScanRecord<'_>],
        coverage: &CoverageRecord,
    ) -> io::Result<()> {
        let mut result = Ok(());
        let Spill { out, buf } = &mut self.out;
        let mut spill = |b: &mut Vec<u8>| {
            if result.is_ok() {
                result = out.write_all(b);
            }
            b.clear();
        };
        scan_text(buf, path, records, coverage, &mut spill);
        result?;
        self.out.flush()
    }

    fn summary(&mut self, summary: &SummaryRecord) -> io::Result<()> {
        let _ = writeln!(
            self.out.buf,
            "{} artifact(s), {} incomplete, {} member(s), {} evidence line(s), {:.2}s",
            summary.artifacts,
            summary.incomplete,
            summary.members,
            summary.matches,
            summary.elapsed_s
        );
        self.out.end()
    }
}

/// The `--format text` listing. Every line goes through
/// [`escape::text`]: paths, capture values and error messages come from the
/// artifact and may hold newlines or escape sequences.
fn scan_text(
    buf: &mut Vec<u8>,
    path: &str,
    records: &[ScanRecord<'_>],
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
            ScanRecord::Evidence(e) => {
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
            ScanRecord::Aggregate(a) => {
                let stats = a
                    .stats
                    .iter()
                    .map(|(k, s)| format!("{k} min {} mean {:.3} max {}", s.min, s.mean, s.max))
                    .collect::<Vec<_>>()
                    .join(", ");
                let group = serde_json::to_string(&a.group).unwrap_or_default();
                // `first..N`, the range `cite` takes (N: the last line).
                let last = a.last.line_number().unwrap_or(0);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Coverage;

    /// Coverage records held for the end of a check come back byte for
    /// byte, and take a fraction of their size while held (counted: a
    /// folder of 20,000 small files, each record with its own path and
    /// hash).
    #[test]
    fn held_records_come_back_whole_and_take_a_fraction_of_their_size() {
        let coverage = Coverage {
            members: 1,
            bytes: 35,
            ..Coverage::default()
        };
        let mut held = Deferred::default();
        let mut raw = Vec::new();
        for i in 0..20_000u32 {
            let sha = format!(
                "{:064x}",
                u128::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c)
            );
            let path = format!("/runs/2026-11-30/d{}/server_{i}.log", i / 1000);
            let mut line = Vec::new();
            write_jsonl(&mut line, &CoverageRecord::new(&path, Some(sha), &coverage));
            held.push(&line).unwrap();
            raw.extend_from_slice(&line);
        }
        let packed = held.zstd.as_mut().unwrap();
        packed.flush().unwrap();
        let packed = packed.get_ref().len();
        assert!(
            packed * 3 < raw.len(),
            "{packed} bytes held for {}",
            raw.len()
        );
        let mut out = Vec::new();
        held.replay(&mut out).unwrap();
        assert!(out == raw);
        assert!(held.is_empty());
    }
}
