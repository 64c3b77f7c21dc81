//! `artiscan grep PATTERN ARTIFACTS...`

use super::Status;
use crate::engine;
use crate::lines::LineReader;
use crate::location::Location;
use crate::output::{self, CoverageRecord, SummaryRecord};
use crate::scan::grep::{GrepMatcher, GrepOptions, GrepSink};
use crate::source::{self, Coverage, Limits};
use std::io::Write;
use std::time::Instant;

struct Done {
    out: Vec<u8>,
    coverage: Coverage,
    sha256: Option<String>,
    matches: u64,
}

pub fn run(
    inputs: &[String],
    opts: &GrepOptions,
    limits: &Limits,
    threads: usize,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<Status> {
    let start = Instant::now();
    let matcher = GrepMatcher::new(opts)?;
    let (artifacts, walk_errors) = source::walk(inputs);
    let mut summary = SummaryRecord::new();
    for (path, e) in &walk_errors {
        writeln!(err, "artiscan: {path}: {e}")?;
        summary.errors += 1;
    }
    let work = |a: &source::Artifact| {
        let mut buf = Vec::new();
        let mut coverage = Coverage::default();
        let mut matches = 0;
        let mut lines = LineReader::new(limits.max_line, limits.binary);
        let (sha256, ()) = rayon::join(
            || {
                if opts.json {
                    engine::sha256_of(a)
                } else {
                    None
                }
            },
            || {
                source::for_each_member(a, limits, &mut coverage, |leaf| {
                    let mut sink = GrepSink::new(&matcher, opts, &a.path, leaf.members, &mut buf);
                    let result = lines.scan(leaf.reader, &mut sink);
                    sink.finish();
                    matches += sink.matches;
                    let outcome = result?;
                    engine::account(leaf.coverage, leaf.members, &outcome, limits.max_line);
                    Ok(())
                })
            },
        );
        Done {
            out: buf,
            coverage,
            sha256,
            matches,
        }
    };
    let mut io_result = Ok(());
    engine::parallel(&artifacts, threads, work, |a, mut done| {
        summary.artifacts += 1;
        summary.members += done.coverage.members;
        summary.bytes += done.coverage.bytes;
        summary.matches += done.matches;
        summary.errors += done.coverage.errors.len() as u64;
        summary.incomplete += u64::from(!done.coverage.complete());
        if opts.json {
            let rec = CoverageRecord::new(&a.path, done.sha256.take(), &done.coverage);
            output::write_jsonl(&mut done.out, &rec);
        }
        for e in &done.coverage.errors {
            let cite = Location::member_citation(&a.path, &e.members);
            let _ = writeln!(err, "artiscan: {cite}: {:?}: {}", e.kind, e.message);
        }
        if io_result.is_ok() {
            io_result = out.write_all(&done.out);
        }
    });
    io_result?;
    summary.elapsed_s = start.elapsed().as_secs_f64();
    if opts.json {
        let mut buf = Vec::new();
        output::write_jsonl(&mut buf, &summary);
        out.write_all(&buf)?;
    }
    out.flush()?;
    Ok(Status {
        found: summary.matches > 0,
        errors: summary.errors > 0,
    })
}
