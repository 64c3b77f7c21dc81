//! `artiscan scan ARTIFACTS...`: evidence JSON Lines from the pack rules.

use super::Found;
use crate::drive::{self, Stats};
use crate::limits::ReadLimits;
use crate::output::sink::ScanRecord;
use crate::output::{self, CoverageRecord};
use crate::pack::RuleSet;
use crate::scan::{ScanOptions, scan_all};
use crate::source;
use std::io::Write;
use std::time::Instant;

pub use crate::output::sink::OutputFormat;

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
    let mut stats = Stats::default();
    drive::report_walk_errors(err, &walk_errors)?;
    stats.walk_errors(walk_errors.len());
    let mut sink = output::sink::sink(format, out);
    let mut io_result: std::io::Result<()> = Ok(());
    let bar = super::Bar::new(true);
    scan_all(
        rules,
        &artifacts,
        limits,
        opts,
        threads,
        &bar,
        |_, a, scan| {
            stats.artifact(&scan.coverage);
            stats.rules(&scan.counts);
            let coverage = CoverageRecord::new(&a.path, scan.sha256.clone(), &scan.coverage);
            drive::Progress::suspend(&bar, &mut || {
                let _ = drive::report_coverage_errors(err, &a.path, &scan.coverage.errors);
            });
            io_result = sink.artifact(&a.path, &records(&scan), &coverage);
            // Output that cannot be written ends the scan.
            match io_result {
                Ok(()) => std::ops::ControlFlow::Continue(()),
                Err(_) => std::ops::ControlFlow::Break(()),
            }
        },
    );
    io_result?;
    let summary = super::summary_record(&stats, start.elapsed().as_secs_f64());
    sink.summary(&summary)?;
    Ok(Found {
        found: stats.matches > 0,
        errors: stats.errors > 0,
        unreadable: stats.unreadable,
    })
}

/// A scan's records as a sink takes them.
fn records(scan: &crate::scan::ArtifactScan) -> Vec<ScanRecord<'_>> {
    scan.records.iter().map(ScanRecord::from).collect()
}
