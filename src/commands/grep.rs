//! `artiscan grep PATTERN ARTIFACTS...`

use super::Found;
use crate::drive::{self, Stats};
use crate::limits::ReadLimits;
use crate::lines::LineReader;
use crate::output::grep::GrepPrint;
use crate::output::grep_json::{self, RgStats};
use crate::output::shared::{ARTIFACT_BUFFER, SharedOut, Spill};
use crate::output::{self, CoverageRecord};
use crate::scan::grep::{GrepMatcher, GrepOptions, GrepSink};
use crate::source::{self, Coverage};
use std::io::Write;
use std::ops::ControlFlow;
use std::time::Instant;

/// rg's file types that `-t`/`-T` know (rg's own globs), and `out` for
/// the `.out`/`.err` worker logs of srt-slurm.
pub const TYPES: &[(&str, &[&str])] = &[
    ("config", &["*.cfg", "*.conf", "*.config", "*.ini"]),
    ("csv", &["*.csv"]),
    ("json", &["*.json", "*.sarif", "composer.lock"]),
    ("jsonl", &["*.jsonl"]),
    ("log", &["*.log"]),
    (
        "md",
        &[
            "*.markdown",
            "*.md",
            "*.mdown",
            "*.mdwn",
            "*.mdx",
            "*.mkd",
            "*.mkdn",
        ],
    ),
    ("out", &["*.out", "*.err"]),
    ("py", &["*.py", "*.pyi"]),
    (
        "sh",
        &["*.bash", "*.csh", "*.ksh", "*.sh", "*.tcsh", "*.zsh"],
    ),
    ("toml", &["*.toml", "Cargo.lock"]),
    ("txt", &["*.txt"]),
    ("yaml", &["*.yaml", "*.yml"]),
];

/// The member globs of file type `name`.
pub fn type_globs(name: &str) -> Option<&'static [&'static str]> {
    TYPES.iter().find(|t| t.0 == name).map(|t| t.1)
}

struct Done {
    coverage: Coverage,
    matches: u64,
    /// `--json`: the artifact's members' rg stats, summed.
    rg: RgStats,
}

/// grep's lines go out through `SharedOut`, not with the result.
impl drive::Held for Done {
    fn held_bytes(&self) -> usize {
        0
    }
}

/// Output goes out artifact by artifact, in input order whatever the thread
/// count; see `SharedOut` for how memory stays bounded.
pub fn run(
    inputs: &[String],
    opts: &GrepOptions,
    limits: &ReadLimits,
    threads: usize,
    out: &mut (dyn Write + Send),
    err: &mut dyn Write,
) -> anyhow::Result<Found> {
    let start = Instant::now();
    let matcher = GrepMatcher::new(opts)?;
    let (artifacts, walk_errors) = source::walk(inputs);
    let mut stats = Stats::default();
    drive::report_walk_errors(err, &walk_errors)?;
    stats.walk_errors(walk_errors.len());
    let shared = SharedOut::new(out, ARTIFACT_BUFFER);
    let work = |at: usize, a: &source::Artifact| {
        let mut aout = shared.artifact(at);
        let mut coverage = Coverage::default();
        let mut matches = 0;
        let mut rg = RgStats::default();
        let mut lines = LineReader::new(limits.lines);
        let visit = |leaf: source::Leaf<'_, '_>| {
            let mut printer = GrepPrint::new(&matcher, opts, &a.path, leaf.members, &mut aout);
            let mut sink = GrepSink::new(&matcher, opts, &mut printer);
            // A file in memory is searched in place, not copied.
            let result = match leaf.slice {
                Some(bytes) => Ok(lines.scan_slice(bytes, 0, 1, &mut sink)),
                None => lines.scan(leaf.reader, &mut sink),
            };
            sink.finish();
            matches += sink.matches;
            drop(sink);
            rg.add(&printer.end(result.as_ref().map_or(0, |o| o.bytes)));
            let outcome = result?;
            drive::account(leaf.coverage, leaf.members, &outcome, limits.lines.max_line);
            Ok(())
        };
        // The hash (JSON output only) is of the bytes searched, from the
        // same open file and in the same pass, as `scan` has it.
        let sha256 = if opts.json {
            source::for_each_member_hashed(a, &limits.source, &mut coverage, visit)
        } else {
            source::for_each_member(a, &limits.source, &mut coverage, visit);
            None
        };
        if opts.json {
            let rec = CoverageRecord::new(&a.path, sha256, &coverage);
            output::write_jsonl(aout.buf(), &rec);
        }
        aout.finish();
        Done {
            coverage,
            matches,
            rg,
        }
    };
    let mut rg_total = RgStats::default();
    let mut rg_coverage = Vec::new();
    // The bar shares the terminal only with output that goes elsewhere:
    // grep's lines on a terminal are their own progress.
    let bar_on = !opts.quiet && !std::io::IsTerminal::is_terminal(&std::io::stdout());
    let bar = super::Bar::new(bar_on);
    drive::run(&artifacts, threads, &bar, work, |_, a, done| {
        stats.artifact(&done.coverage);
        stats.matches += done.matches;
        if opts.rg_json {
            rg_total.add(&done.rg);
            let rec = CoverageRecord::new(&a.path, None, &done.coverage);
            rg_coverage.push(serde_json::to_value(&rec).unwrap_or_default());
        }
        drive::Progress::suspend(&bar, &mut || {
            let _ = drive::report_coverage_errors(err, &a.path, &done.coverage.errors);
        });
        // A closed pipe: the rest would be written nowhere.
        if shared.failed() {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    let summary = super::summary_record(&stats, start.elapsed().as_secs_f64());
    let mut tail = Vec::new();
    if opts.json {
        output::write_jsonl(&mut tail, &summary);
    }
    if opts.rg_json {
        grep_json::summary(&mut tail, &rg_total, start.elapsed(), rg_coverage);
    }
    if opts.stats && !opts.json && !opts.rg_json {
        let _ = write!(
            tail,
            "\n{} matched lines\n{} members searched\n{} bytes searched\n{:.6} seconds\n",
            stats.matches,
            stats.members,
            stats.bytes,
            start.elapsed().as_secs_f64()
        );
    }
    shared.finish(&tail)?;
    Ok(Found {
        found: stats.matches > 0,
        errors: stats.errors > 0,
        unreadable: stats.unreadable,
    })
}
