//! Setting a check run up and judging it: the check files and sets, the
//! `--param` values, the rules the checks need, and the verdicts over the
//! scanned artifacts. Shared by `check` and `audit`.

use super::scope::Unit;
use super::{Check, CheckParams, CheckScope, Scope, Status, Verdict};
use crate::pack::{RuleSet, compile::Selection};
use crate::scan::ArtifactScan;
use std::path::PathBuf;

/// The (file name, text) of each built-in set and check file, in order.
pub(crate) fn check_sources(
    files: &[PathBuf],
    sets: &[String],
) -> anyhow::Result<Vec<(String, String)>> {
    let mut sources = Vec::new();
    for s in sets {
        let src = super::builtin_set(s).ok_or_else(|| {
            anyhow::anyhow!(
                "no built-in check set {s:?} (have: {})",
                super::builtin_set_names().join(", ")
            )
        })?;
        sources.push((format!("patterns/checks/{s}.toml"), src.to_string()));
    }
    for f in files {
        let src =
            std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        sources.push((f.display().to_string(), src));
    }
    Ok(sources)
}

/// Check files and built-in sets, parsed.
pub fn load_checks(files: &[PathBuf], sets: &[String]) -> anyhow::Result<Vec<Check>> {
    let mut out = Vec::new();
    for (name, src) in check_sources(files, sets)? {
        out.extend(super::parse_checks(&name, &src)?);
    }
    if out.is_empty() {
        anyhow::bail!("no checks: give --checks FILE or --set NAME");
    }
    Ok(out)
}

/// `--param` values, checked against the parameters the checks read: an
/// unknown name or a non-number where a number is compared is an error.
pub fn load_params(checks: &[Check], pairs: &[String]) -> anyhow::Result<CheckParams> {
    let params = CheckParams::parse(pairs).map_err(anyhow::Error::msg)?;
    let specs = super::merge_specs(checks.iter().flat_map(Check::params));
    params.validate(&specs).map_err(anyhow::Error::msg)?;
    Ok(params)
}

/// `--params FILE` then `--param KEY=VALUE`, as one list of `KEY=VALUE`
/// pairs in which the command line comes last, so that it wins.
///
/// A params file is TOML with one top-level `KEY = VALUE` per parameter,
/// the same names as `--param` (`al = 3.5`, `gsm8k_min = 0.9`). Tables
/// are refused: a check reads one value per name, so a golden AL per model
/// and draft length is chosen by whoever runs the check (`al` for the run
/// judged), not looked up by artiscan.
pub fn param_pairs(files: &[PathBuf], pairs: &[String]) -> anyhow::Result<Vec<String>> {
    let mut out = Vec::new();
    for f in files {
        let src =
            std::fs::read_to_string(f).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        out.extend(params_file_pairs(&src).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?);
    }
    out.extend(pairs.iter().cloned());
    Ok(out)
}

/// The `KEY=VALUE` pairs of one params file's text.
fn params_file_pairs(src: &str) -> Result<Vec<String>, String> {
    let table: toml::Table = toml::from_str(src).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (k, v) in table {
        let text = match v {
            toml::Value::String(s) => s,
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            other => {
                return Err(format!(
                    "{k}: a parameter is one number or string, not a {} (give the value for the run judged, e.g. `{k} = 3.5`)",
                    other.type_str()
                ));
            }
        };
        out.push(format!("{k}={text}"));
    }
    Ok(out)
}

/// The rules the checks need, from the built-in and extra packs.
pub fn rules_for(checks: &[Check], extra_packs: &[PathBuf]) -> anyhow::Result<RuleSet> {
    let only: Vec<String> = super::selected_rules(checks).into_iter().collect();
    let rules = crate::pack::load_rules(
        extra_packs,
        // A check's rule runs even when it is opt-in: `only` names it.
        &Selection {
            only,
            ..Selection::default()
        },
        crate::pack::Builtin::Included,
    )?;
    validate(checks, extra_packs)?;
    Ok(rules)
}

/// Every rule a check names exists in the packs (opt-in ones included),
/// and every capture it reads is one that rule can record: a mistyped
/// `where = { nmae = ... }` would pass everywhere, a mistyped `applies`
/// rule would turn a FAIL into not_applicable. Errors name the check file
/// and the line of the check's `id`.
fn validate(checks: &[Check], extra_packs: &[PathBuf]) -> anyhow::Result<()> {
    let all = crate::pack::load_rules(
        extra_packs,
        &Selection::all(),
        crate::pack::Builtin::Included,
    )?;
    for c in checks {
        let at = check_line(&c.file, &c.id);
        for (rule, caps) in c.references() {
            let Some(names) = all.capture_names(rule) else {
                anyhow::bail!(
                    "{}{at}: check {}: no rule {rule:?} in the packs (`artiscan packs list` lists them)",
                    c.file,
                    c.id
                );
            };
            let Some(names) = names else { continue };
            if let Some(bad) = caps.iter().find(|k| !names.contains(**k)) {
                let known: Vec<&str> = names.iter().map(String::as_str).collect();
                anyhow::bail!(
                    "{}{at}: check {}: rule {rule} records no capture {bad:?} (it has: {})",
                    c.file,
                    c.id,
                    known.join(", ")
                );
            }
        }
    }
    Ok(())
}

/// `:LINE` of the `id = "ID"` line in a check file, when it can be read.
fn check_line(file: &str, id: &str) -> String {
    let src = super::builtin_set(
        file.strip_prefix("patterns/checks/")
            .and_then(|f| f.strip_suffix(".toml"))
            .unwrap_or(""),
    )
    .map(str::to_string)
    .or_else(|| std::fs::read_to_string(file).ok());
    src.and_then(|s| {
        s.lines().position(|l| {
            let l = l.trim_start();
            l.starts_with("id") && l.contains(&format!("\"{id}\""))
        })
    })
    .map_or(String::new(), |n| format!(":{}", n + 1))
}

/// Judges every check with each scanned file as its own artifact (the
/// audit's artifacts are files).
pub(crate) fn judge(
    checks: &[Check],
    scans: &[(String, ArtifactScan)],
    params: &CheckParams,
) -> Vec<Verdict> {
    let units: Vec<Unit> = scans
        .iter()
        .enumerate()
        .map(|(i, (p, _))| Unit {
            name: p.clone(),
            files: vec![i],
        })
        .collect();
    judge_units(checks, scans, &units, params)
}

/// Judges every check over the artifacts (`units`, files indexing `scans`):
/// per artifact, or per run (artifacts of the same folder) for
/// `scope = "run"` checks. Verdicts come grouped by scope, in walk order.
pub(crate) fn judge_units(
    checks: &[Check],
    scans: &[(String, ArtifactScan)],
    units: &[Unit],
    params: &CheckParams,
) -> Vec<Verdict> {
    let scope_of = |name: String, us: &[&Unit]| Scope {
        name,
        artifacts: us.iter().map(|u| u.name.clone()).collect(),
        scans: us
            .iter()
            .flat_map(|u| u.files.iter())
            .filter_map(|&i| scans.get(i))
            .map(|(p, s)| (p.as_str(), s))
            .collect(),
    };
    let mut verdicts = Vec::new();
    for u in units {
        let scope = scope_of(u.name.clone(), &[u]);
        for c in checks.iter().filter(|c| c.scope == CheckScope::Artifact) {
            verdicts.push(c.judge(&scope, params));
        }
    }
    if checks.iter().any(|c| c.scope == CheckScope::Run) {
        // In order of first appearance, found through an index (linear in
        // the artifacts however many runs they span).
        let mut runs: Vec<(String, Vec<&Unit>)> = Vec::new();
        let mut by_run: std::collections::HashMap<String, usize> = Default::default();
        for u in units {
            let run = u.run();
            let at = *by_run.entry(run.clone()).or_insert_with(|| {
                runs.push((run, Vec::new()));
                runs.len() - 1
            });
            runs[at].1.push(u);
        }
        for (name, us) in runs {
            let scope = scope_of(name, &us);
            for c in checks.iter().filter(|c| c.scope == CheckScope::Run) {
                verdicts.push(c.judge(&scope, params));
            }
        }
    }
    verdicts
}

/// Exit code: 0 all pass, 1 any fail, 3 any unknown and none fail;
/// `not_applicable` counts for nothing.
pub(crate) fn exit_code(verdicts: &[Verdict]) -> i32 {
    if verdicts.iter().any(|v| v.status == Status::Fail) {
        1
    } else if verdicts.iter().any(|v| v.status == Status::Unknown) {
        3
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn params_file_takes_flat_values_and_the_command_line_wins() {
        let dir = std::env::temp_dir().join(format!("artiscan-params-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("p.toml");
        std::fs::write(&f, "al = 3.5\ngsm8k_min = 0.9\nname = \"x\"\n").unwrap();
        let pairs = param_pairs(std::slice::from_ref(&f), &["al=2.0".into()]).unwrap();
        let p = CheckParams::parse(&pairs).unwrap();
        assert_eq!(p.0["al"], serde_json::json!(2.0));
        assert_eq!(p.0["gsm8k_min"], serde_json::json!(0.9));
        assert_eq!(p.0["name"], serde_json::json!("x"));
        std::fs::write(&f, "[al]\nqwen = 3.39\n").unwrap();
        let e = param_pairs(std::slice::from_ref(&f), &[])
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("p.toml") && e.contains("al: a parameter is one number"),
            "{e}"
        );
        std::fs::write(&f, "al = \n").unwrap();
        assert!(param_pairs(&[f], &[]).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
