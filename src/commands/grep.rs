//! `artiscan grep PATTERN ARTIFACTS...`

use super::Found;
use crate::engine;
use crate::limits::ReadLimits;
use crate::lines::LineReader;
use crate::output::shared::{ARTIFACT_BUFFER, SharedOut, Spill};
use crate::output::{self, CoverageRecord, SummaryRecord};
use crate::scan::grep::{GrepMatcher, GrepOptions, GrepSink};
use crate::source::{self, Coverage};
use std::io::Write;
use std::time::Instant;

struct Done {
    coverage: Coverage,
    matches: u64,
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
    let mut summary = SummaryRecord::new();
    super::report_walk_errors(err, &walk_errors)?;
    summary.errors += walk_errors.len() as u64;
    let mut unreadable = !walk_errors.is_empty();
    let shared = SharedOut::new(out, ARTIFACT_BUFFER);
    // Each artifact's place in the input, from its address in the slice.
    let index: std::collections::HashMap<usize, usize> = artifacts
        .iter()
        .enumerate()
        .map(|(i, a)| (a as *const source::Artifact as usize, i))
        .collect();
    let work = |a: &source::Artifact| {
        let at = index.get(&(a as *const source::Artifact as usize)).copied();
        let mut aout = shared.artifact(at.unwrap_or(usize::MAX));
        let mut coverage = Coverage::default();
        let mut matches = 0;
        let mut lines = LineReader::new(limits.lines);
        let (sha256, ()) = rayon::join(
            || {
                if opts.json {
                    engine::sha256_of(a)
                } else {
                    None
                }
            },
            || {
                source::for_each_member(a, &limits.source, &mut coverage, |leaf| {
                    let mut sink = GrepSink::new(&matcher, opts, &a.path, leaf.members, &mut aout);
                    // A mapped file is searched in place, not copied.
                    let result = match leaf.slice {
                        Some(bytes) => Ok(lines.scan_slice(bytes, 0, 1, &mut sink)),
                        None => lines.scan(leaf.reader, &mut sink),
                    };
                    sink.finish();
                    matches += sink.matches;
                    let outcome = result?;
                    engine::account(leaf.coverage, leaf.members, &outcome, limits.lines.max_line);
                    Ok(())
                })
            },
        );
        if opts.json {
            let rec = CoverageRecord::new(&a.path, sha256, &coverage);
            output::write_jsonl(aout.buf(), &rec);
        }
        aout.finish();
        Done { coverage, matches }
    };
    // The bar shares the terminal only with output that goes elsewhere:
    // grep's lines on a terminal are their own progress.
    let bar_on = !opts.quiet && !std::io::IsTerminal::is_terminal(&std::io::stdout());
    let total = artifacts.iter().map(engine::artifact_size).sum();
    let pb = crate::output::progress::bar(bar_on, total, artifacts.len());
    let mut finished = 0;
    engine::parallel(&artifacts, threads, work, |a, done| {
        finished += 1;
        crate::output::progress::advance(&pb, engine::artifact_size(a), finished, artifacts.len());
        super::count_artifact(&mut summary, &done.coverage);
        unreadable |= super::unreadable(&done.coverage);
        summary.matches += done.matches;
        pb.suspend(|| {
            let _ = super::report_coverage_errors(err, &a.path, &done.coverage);
        });
    });
    pb.finish_and_clear();
    summary.elapsed_s = start.elapsed().as_secs_f64();
    let mut tail = Vec::new();
    if opts.json {
        output::write_jsonl(&mut tail, &summary);
    }
    shared.finish(&tail)?;
    Ok(Found {
        found: summary.matches > 0,
        errors: summary.errors > 0,
        unreadable,
    })
}
