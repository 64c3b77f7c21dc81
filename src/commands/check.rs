//! `artiscan check --checks FILE|--set NAME ARTIFACTS...`: verdicts.

use super::scan::OutputFormat;

use crate::check::CheckScope;
use crate::check::load::{Judging, check_sources};
use crate::check::scope::walk_units;
use crate::check::{self, Check, CheckParams, Layout};
use crate::drive;
use crate::escape;
use crate::limits::ReadLimits;
use crate::output::checklist::Checklist;
/// How check shows its verdicts beyond the format (`--grouped`).
pub use crate::output::sink::CheckView;
/// The most characters `--format markdown` writes (see `output::verdicts`).
pub use crate::output::verdicts::MARKDOWN_BUDGET;
use crate::output::{self, CoverageRecord, Verdict};
use crate::pack::RuleSet;
use crate::scan::{ScanOptions, scan_all};
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
    view: &CheckView,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    let walked = walk_units(inputs, layout);
    let (mut artifacts, mut units, walk_errors) = (walked.files, walked.units, walked.errors);
    // An input that could not be walked (a missing path, an unreadable
    // folder) is judged as an artifact that could not be read: its claims
    // are unknown and it is named in the report itself, never a clean
    // table with the error on stderr only (its coverage error is printed
    // with the others', below).
    for (path, e) in &walk_errors {
        units.push(crate::check::scope::Unit {
            name: path.clone(),
            files: vec![artifacts.len()],
        });
        artifacts.push(crate::source::Artifact {
            path: path.clone(),
            kind: crate::source::ArtifactKind::Unreadable(e.to_string()),
        });
    }
    // A file given twice is one artifact to judge: its second scan would
    // read as a second launch in the same logs.
    for u in &mut units {
        let mut seen = std::collections::HashSet::new();
        u.files.retain(|&i| seen.insert(artifacts[i].path.as_str()));
    }
    for (j, why) in &walked.junk {
        writeln!(
            err,
            "artiscan: {}: set aside as download junk ({why}), not part of any artifact: not judged",
            escape::text(j)
        )?;
    }
    let opts = ScanOptions {
        every_match: check::needs_every_match(checks, rules),
        skip_prefilter: false,
    };
    // Run-scope checks' verdicts are the run's own rows in `verdicts`.
    let run_checks: Vec<String> = checks
        .iter()
        .filter(|c| c.scope == CheckScope::Run)
        .map(|c| c.id.clone())
        .collect();
    // Verdicts are printed as they are judged, artifact by artifact: a
    // check's memory follows the runs open at once, not its verdicts.
    let mut printer = Printer {
        sink: output::sink::check_sink(format, out, run_checks.clone(), view),
        standing: Checklist::new(run_checks),
        written: Ok(()),
        curves: view
            .curves
            .as_ref()
            .map(|_| output::curves::Curves::default()),
    };
    // Each file's run, for what ran under the rows.
    let mut run_of_file: Vec<Option<String>> = vec![None; artifacts.len()];
    for u in &units {
        for &i in &u.files {
            run_of_file[i] = Some(u.run());
        }
    }
    let mut judging = Judging::new(checks, params, &units, artifacts.len());
    // An input that could not be read is grep's exit 2, after the rest is
    // judged, with a message: its verdicts alone would only say unknown.
    let mut unreadable = Vec::new();
    let bar = super::Bar::new(true);
    scan_all(rules, &artifacts, limits, opts, threads, &bar, |i, a, s| {
        if drive::unreadable(&s.coverage) {
            unreadable.push((a.path.clone(), s.coverage.errors.clone()));
        }
        printer.coverage(&CoverageRecord::new(&a.path, s.sha256.clone(), &s.coverage));
        if let Some(run) = run_of_file.get(i).and_then(Option::as_deref) {
            // One copy of what ran: the sink's where it keeps one.
            if !printer.sink.records(run, &a.path, &s.records) {
                printer.standing.records(run, &a.path, &s.records);
            }
        }
        judging.scanned(i, a.path.clone(), s, &mut |v| printer.verdict(v));
        // Output that cannot be written ends the check.
        match printer.written {
            Ok(()) => std::ops::ControlFlow::Continue(()),
            Err(_) => std::ops::ControlFlow::Break(()),
        }
    });
    judging.finish(&mut |v| printer.verdict(v));
    printer.written?;
    printer.sink.end()?;
    if let (Some(path), Some(curves)) = (&view.curves, &printer.curves) {
        curves.write(path).map_err(|e| {
            anyhow::anyhow!(
                "--curves {}: {e}",
                escape::text(&path.display().to_string())
            )
        })?;
    }
    for (path, errors) in &unreadable {
        drive::report_coverage_errors(err, path, errors)?;
    }
    if !walk_errors.is_empty() || !unreadable.is_empty() {
        return Ok(2);
    }
    Ok(printer
        .sink
        .exit_code()
        .unwrap_or_else(|| printer.standing.exit_code()))
}

/// A check's sink, where the checklist stands (for the exit code, the
/// same in every format), and the first write error (it stops the scan and
/// ends the check).
struct Printer<'w> {
    sink: Box<dyn output::sink::VerdictSink + 'w>,
    standing: Checklist,
    written: std::io::Result<()>,
    /// `--curves`: the Pareto curves for InferenceX's helper.
    curves: Option<output::curves::Curves>,
}

impl Printer<'_> {
    fn verdict(&mut self, v: &Verdict) {
        self.standing.verdict(v);
        if let Some(c) = &mut self.curves {
            c.verdict(v);
        }
        if self.written.is_ok() {
            self.written = self.sink.verdict(v);
        }
    }

    fn coverage(&mut self, c: &CoverageRecord) {
        if self.written.is_ok() {
            self.written = self.sink.coverage(c);
        }
    }
}
