//! `artiscan packs list|show|test|lint`.

use crate::pack::RuleSet;
use crate::scan::selftest;
use std::io::Write;

pub fn list(rules: &RuleSet, out: &mut dyn Write) -> anyhow::Result<()> {
    for r in &rules.rules {
        // Opt-in rules run only when asked for (`--with ID`).
        let opt_in = if r.opt_in { "(opt-in: --with) " } else { "" };
        writeln!(out, "{:<32} {:<8} {opt_in}{}", r.id, r.pack, r.description)?;
    }
    Ok(())
}

pub fn show(rules: &RuleSet, id: &str, out: &mut dyn Write) -> anyhow::Result<bool> {
    let Some(r) = rules.rule(id) else {
        return Ok(false);
    };
    writeln!(
        out,
        "id: {}\npack: {} (version {})\nfile: {}:{}",
        r.id, r.pack, r.pack_version, r.file, r.line
    )?;
    writeln!(
        out,
        "description: {}\nsource: {}\ntags: {}",
        r.description,
        r.source.as_deref().unwrap_or("(none)"),
        r.tags.join(", ")
    )?;
    if r.opt_in {
        writeln!(
            out,
            "opt-in: runs only with --with {0} (or --only {0}, or a check on it)",
            r.id
        )?;
    }
    for (k, t) in &r.captures {
        writeln!(out, "capture {k}: {t:?}")?;
    }
    if let Some(&v) = r.variants.first() {
        for re in &rules.variants[v].exclude {
            writeln!(out, "exclude: {}", re.as_str())?;
        }
    }
    if !r.aggregate.is_empty() {
        writeln!(out, "aggregate: {}", r.aggregate.join(", "))?;
    }
    for &v in &r.variants {
        let v = &rules.variants[v];
        writeln!(out, "variant ({}):", v.kind_name())?;
        for (name, pattern) in v.patterns() {
            writeln!(out, "  {name}: {pattern}")?;
        }
        if !v.member_globs.is_empty() {
            writeln!(out, "  members: {}", v.member_globs.join(", "))?;
        }
        let how = if v.prefilter_explicit {
            "explicit"
        } else {
            "derived"
        };
        writeln!(out, "  prefilter ({how}): {:?}", v.prefilter)?;
        if let Some((group, keys)) = v.dump() {
            let keys = keys.as_ref().map_or("all".to_string(), |k| k.join(", "));
            writeln!(out, "  dump: group {group}, keys: {keys}")?;
        }
    }
    writeln!(out, "examples: {}", r.examples.len())?;
    Ok(true)
}

/// Runs all examples; returns whether all passed.
pub fn test(rules: &RuleSet, out: &mut dyn Write) -> anyhow::Result<bool> {
    let report = selftest::test(rules);
    for f in &report.failures {
        writeln!(out, "FAIL {f}")?;
    }
    writeln!(
        out,
        "{} rules, {} examples: {} passed, {} failed",
        report.rules,
        report.examples,
        report.examples - report.failures.len(),
        report.failures.len()
    )?;
    Ok(report.failures.is_empty())
}

pub fn lint(rules: &RuleSet, out: &mut dyn Write) -> anyhow::Result<bool> {
    let warnings = selftest::lint(rules);
    for w in &warnings {
        writeln!(out, "warning: {w}")?;
    }
    writeln!(
        out,
        "{} rules, {} warnings",
        rules.rules.len(),
        warnings.len()
    )?;
    Ok(warnings.is_empty())
}
