//! `artiscan diff RUN_A RUN_B`: what two runs ran and measured, only what
//! differs, each side cited (library logic in `crate::diff`).

use crate::check::scope::walk_units;
use crate::diff::{Side, differences};
use crate::escape;
use crate::limits::ReadLimits;
use crate::output::{DiffRecord, DiffSide, write_jsonl};
use crate::pack::RuleSet;
use crate::scan::{ScanOptions, scan_all};
use std::io::Write;

/// One side of a difference as its record writes it.
fn one(s: &Option<(String, String)>) -> Option<DiffSide<'_>> {
    s.as_ref().map(|(v, c)| DiffSide {
        value: v.as_str(),
        citation: c.as_str(),
    })
}

/// One run's side: every artifact under `input` scanned with `rules`.
/// Returns the side and whether an input could not be read.
fn side(
    input: &str,
    rules: &RuleSet,
    limits: &ReadLimits,
    threads: usize,
    err: &mut dyn Write,
) -> anyhow::Result<(Side, bool)> {
    let walked = walk_units(&[input.to_string()], crate::check::scope::Layout::Auto);
    let mut failed = !walked.errors.is_empty();
    for (path, e) in &walked.errors {
        writeln!(err, "artiscan: {}: {e}", escape::text(path))?;
    }
    let mut s = Side::default();
    let bar = super::Bar::new(true);
    scan_all(
        rules,
        &walked.files,
        limits,
        ScanOptions::default(),
        threads,
        &bar,
        |_, a, scan| {
            if crate::drive::unreadable(&scan.coverage) {
                failed = true;
                let _ = crate::drive::report_coverage_errors(err, &a.path, &scan.coverage.errors);
            }
            for r in &scan.records {
                if let crate::scan::Record::Evidence(e) = r {
                    s.record(e);
                }
            }
            std::ops::ControlFlow::Continue(())
        },
    );
    Ok((s, failed))
}

/// Prints what differs between runs `a` and `b` (text, or one `diff`
/// record per key with `json`). Exit code as diff(1): 0 the same, 1 they
/// differ, 2 an input could not be read.
#[allow(clippy::too_many_arguments)]
pub fn run(
    a: &str,
    b: &str,
    limits: &ReadLimits,
    threads: usize,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    // The built-in packs, every default rule: what ran is read by several.
    let rules = crate::pack::load_rules(
        &[],
        &crate::pack::compile::Selection::default(),
        crate::pack::Builtin::Included,
    )?;
    let (sa, fa) = side(a, &rules, limits, threads, err)?;
    let (sb, fb) = side(b, &rules, limits, threads, err)?;
    let diffs = differences(&sa, &sb);
    let mut buf = Vec::new();
    for d in &diffs {
        if json {
            write_jsonl(
                &mut buf,
                &DiffRecord {
                    kind: DiffRecord::KIND,
                    key: &d.key,
                    a: one(&d.a),
                    b: one(&d.b),
                },
            );
            continue;
        }
        writeln!(buf, "{}", escape::text(&d.key))?;
        for (label, s) in [("A", &d.a), ("B", &d.b)] {
            match s {
                Some((v, c)) => {
                    writeln!(buf, "  {label}: {}  ({})", escape::text(v), escape::text(c))?
                }
                None => writeln!(buf, "  {label}: (none)")?,
            }
        }
    }
    if !json {
        writeln!(
            buf,
            "{} difference(s) between {} and {}",
            diffs.len(),
            escape::text(a),
            escape::text(b)
        )?;
        for (label, s) in [("A", &sa), ("B", &sb)] {
            if s.dropped > 0 {
                writeln!(buf, "{label}: {} more key(s) not compared", s.dropped)?;
            }
        }
    }
    out.write_all(&buf)?;
    out.flush()?;
    Ok(if fa || fb {
        2
    } else if diffs.is_empty() {
        0
    } else {
        1
    })
}
