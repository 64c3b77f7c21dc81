//! `artiscan packs test` and `packs lint`: every rule's examples run through
//! the real line scanner, once with the prefilter and once without it, so a
//! prefilter that rejects a line the regex accepts is caught.

use crate::lines::LineReader;
use crate::pack::{ExampleDef, RuleSet};
use crate::scan::evidence::{MemberScan, Record, ScanOptions};
use serde_json::Value;
use std::collections::BTreeMap;

#[derive(Debug, Clone)]
pub struct Failure {
    pub rule: String,
    pub file: String,
    pub line: usize,
    /// 1-based index of the example within the rule.
    pub example: usize,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}:{}: rule {} example {}: {}",
            self.file, self.line, self.rule, self.example, self.message
        )
    }
}

#[derive(Debug, Default)]
pub struct Report {
    pub rules: usize,
    pub examples: usize,
    pub failures: Vec<Failure>,
}

fn values_equal(want: &Value, got: &Value) -> bool {
    match (want, got) {
        (Value::Number(a), Value::Number(b)) => {
            let (a, b) = (
                a.as_f64().unwrap_or(f64::NAN),
                b.as_f64().unwrap_or(f64::NAN),
            );
            (a - b).abs() <= 1e-9 * a.abs().max(1.0)
        }
        (Value::Array(a), Value::Array(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| values_equal(x, y))
        }
        _ => want == got,
    }
}

fn subset(want: &toml::Table, got: &Value) -> Result<(), String> {
    for (k, w) in want {
        let w = serde_json::to_value(w).unwrap_or(Value::Null);
        match got.get(k) {
            Some(g) if values_equal(&w, g) => {}
            Some(g) => return Err(format!("capture {k}: expected {w}, got {g}")),
            None => return Err(format!("capture {k}: expected {w}, missing (got {got})")),
        }
    }
    Ok(())
}

/// Runs every example of every rule in `set`.
pub fn test(set: &RuleSet) -> Report {
    let mut report = Report::default();
    for rule in &set.rules {
        report.rules += 1;
        for (i, ex) in rule.examples.iter().enumerate() {
            report.examples += 1;
            let fail = |message: String| Failure {
                rule: rule.id.clone(),
                file: rule.file.clone(),
                line: rule.line,
                example: i + 1,
                message,
            };
            if ex.line.is_none() && ex.lines.is_none() {
                report
                    .failures
                    .push(fail("example has neither `line` nor `lines`".into()));
                continue;
            }
            let with = ScanOptions {
                every_match: true,
                skip_prefilter: false,
            };
            let without = ScanOptions {
                skip_prefilter: true,
                ..with
            };
            let filtered = run_example_for(set, ex, with, &rule.id);
            let forced = run_example_for(set, ex, without, &rule.id);
            if filtered.len() != forced.len()
                || filtered
                    .iter()
                    .zip(&forced)
                    .any(|(a, b)| a.0 != b.0 || a.1 != b.1 || a.2 != b.2)
            {
                report.failures.push(fail(format!(
                    "the prefilter changes the result: {} record(s) with it, {} without",
                    filtered.len(),
                    forced.len()
                )));
                continue;
            }
            if let Err(m) = check(ex, &filtered) {
                report.failures.push(fail(m));
            }
        }
    }
    report
}

type Got = (u64, u64, Value, Option<BTreeMap<String, u32>>);

/// The records an example yields for rule `id`; other rules' records are
/// dropped (examples speak for their own rule).
fn run_example_for(set: &RuleSet, ex: &ExampleDef, opts: ScanOptions, id: &str) -> Vec<Got> {
    let text = match (&ex.line, &ex.lines) {
        (Some(l), _) => l.clone(),
        (None, Some(ls)) => ls.join("\n"),
        (None, None) => String::new(),
    };
    let member = vec![ex.member.clone().unwrap_or_else(|| "example.log".into())];
    let mut sink = MemberScan::new(set, "example", &member, &member[0], opts);
    let mut reader = LineReader::new(crate::lines::LineLimits {
        binary: true,
        ..Default::default()
    });
    let mut bytes = text.as_bytes();
    let _ = reader.scan(&mut bytes, &mut sink);
    let mut records = Vec::new();
    let mut counts = BTreeMap::new();
    sink.finish(&mut records, &mut counts);
    records
        .into_iter()
        .filter_map(|r| match r {
            Record::Evidence(e) if e.rule == id => Some((
                e.location.line,
                e.location.column.unwrap_or(0),
                Value::Object(e.captures.unwrap_or_default()),
                e.rank,
            )),
            _ => None,
        })
        .collect()
}

fn check(ex: &ExampleDef, got: &[Got]) -> Result<(), String> {
    if !ex.matches {
        return match got.first() {
            None => Ok(()),
            Some(g) => Err(format!(
                "must not match, but yields {} record(s), first {}",
                got.len(),
                g.2
            )),
        };
    }
    let Some(first) = got.first() else {
        return Err("must match, but yields no record".into());
    };
    if let Some(n) = ex.records {
        if got.len() != n {
            return Err(format!("expected {n} record(s), got {}", got.len()));
        }
    }
    if let Some(c) = &ex.captures {
        subset(c, &first.2)?;
    }
    if let Some(list) = &ex.expect {
        if list.len() > got.len() {
            return Err(format!(
                "expected at least {} records, got {}",
                list.len(),
                got.len()
            ));
        }
        for (i, (w, g)) in list.iter().zip(got).enumerate() {
            subset(w, &g.2).map_err(|m| format!("record {}: {m}", i + 1))?;
        }
    }
    if let Some(r) = &ex.rank {
        let got_rank = first.3.clone().unwrap_or_default();
        if &got_rank != r {
            return Err(format!("rank: expected {r:?}, got {got_rank:?}"));
        }
    }
    Ok(())
}

/// Lint warnings: rules without examples, without a negative example,
/// without a source, or without a literal prefilter (they run on every line).
pub fn lint(set: &RuleSet) -> Vec<String> {
    let mut out = Vec::new();
    for rule in &set.rules {
        let at = format!("{}:{}: rule {}", rule.file, rule.line, rule.id);
        if rule.examples.is_empty() {
            out.push(format!("{at}: no examples"));
        } else if rule.examples.iter().all(|e| e.matches) {
            out.push(format!("{at}: no example that must not match"));
        }
        if rule.description.trim().is_empty() {
            out.push(format!("{at}: no description"));
        }
        if rule.source.as_deref().is_none_or(|s| s.trim().is_empty()) {
            out.push(format!(
                "{at}: no source (the engine file that prints the line, and the versions each variant covers)"
            ));
        }
        for &v in &rule.variants {
            let var = &set.variants[v];
            if var.prefilter.is_empty() && var.member_globs.is_empty() {
                out.push(format!("{at}: a variant has no literal prefilter and no `members` restriction: it runs on every line"));
            }
        }
    }
    out
}
