//! Check 14 over a sweep downloaded as two runs: `<run>` and its
//! high-concurrency continuation `<run>_high`, given in one invocation.
//! Where every point of `_high` is a row of the sibling's
//! `results_bmk/agg_bmk.json` (its aggregation took the whole sweep in),
//! the two draw one curve; otherwise each folder is judged apart. Every
//! other run check judges each folder alone either way.

use crate::harness::artiscan_in;
use crate::pareto::{nested, stem};
use crate::results::{verdict, verdicts, zip_artifacts};
use serde_json::{Value, json};
use std::path::Path;

/// Point `i` of a rising frontier, `tput` scaled by `skew` (1.0: the
/// value the sibling's aggregate holds).
fn point(i: u32, skew: f64) -> String {
    nested(
        i,
        json!(5.0 * f64::from(i)),
        json!(200.0 * f64::from(i) * skew),
        62,
        62,
    )
}

/// `dir/<name>/bmk_agentic_<stem>/<stem>.json` per point of `concs`.
fn points(dir: &Path, concs: &[u32], skew: f64) {
    for &i in concs {
        let stem = stem(i as usize);
        let art = dir.join(format!("bmk_agentic_{stem}"));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join(format!("{stem}.json")), point(i, skew)).unwrap();
    }
}

/// A sweep of five points: conc 1-3 in `run/`, whose aggregate holds all
/// five rows, and conc 4-5 in `run_high/` (values scaled by `skew`); the
/// same as zips in `zips/` and `zips_high/`.
fn sweep(skew: f64) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    points(&run, &[1, 2, 3], 1.0);
    let rows: Vec<Value> = (1..=5)
        .map(|i| serde_json::from_str(&point(i, 1.0)).unwrap())
        .collect();
    std::fs::create_dir_all(run.join("results_bmk")).unwrap();
    std::fs::write(
        run.join("results_bmk/agg_bmk.json"),
        serde_json::to_string_pretty(&rows).unwrap(),
    )
    .unwrap();
    points(&tmp.path().join("run_high"), &[4, 5], skew);
    zip_artifacts(&run, &tmp.path().join("zips"));
    zip_artifacts(&tmp.path().join("run_high"), &tmp.path().join("zips_high"));
    tmp
}

/// Check 14's verdicts, and the other run checks' scopes, for `a` and
/// `a_high` given together.
fn judged(dir: &Path, a: &str) -> (Vec<Value>, Vec<String>) {
    let high = format!("{a}_high");
    let vs = verdicts(dir, &[a, &high]);
    let pareto: Vec<Value> = verdict(&vs, "pareto-agentic")
        .into_iter()
        .cloned()
        .collect();
    let mut crash_scopes: Vec<String> = verdict(&vs, "crash-logs-kept")
        .iter()
        .map(|v| v["scope"].as_str().unwrap().to_string())
        .collect();
    crash_scopes.sort();
    (pareto, crash_scopes)
}

#[test]
fn a_high_folder_whose_points_are_its_siblings_rows_is_one_curve() {
    let tmp = sweep(1.0);
    for a in ["run", "zips"] {
        // Alone, `_high`'s two points are a short curve of their own.
        let alone = verdicts(tmp.path(), &[&format!("{a}_high")]);
        assert_eq!(verdict(&alone, "pareto-agentic")[0]["status"], "fail");
        let (pareto, scopes) = judged(tmp.path(), a);
        assert_eq!(pareto.len(), 1, "{a}: {pareto:?}");
        let reason = pareto[0]["reason"].as_str().unwrap();
        assert_eq!(pareto[0]["status"], "pass", "{a}: {reason}");
        assert_eq!(pareto[0]["scope"], a, "{a}");
        assert!(
            reason.contains(&format!("{a}_high is one sweep with {a} (its 2 point(s)")),
            "{reason}"
        );
        assert!(!reason.contains("run="), "one curve: {reason}");
        // Every other run check still speaks of each folder.
        assert_eq!(scopes, [a.to_string(), format!("{a}_high")], "{a}");
        // The rows say so in a note, the verifier need not open the JSON.
        let rows = artiscan_in(
            tmp.path(),
            &[
                "check",
                "--set",
                "inferencex",
                "--format",
                "verdicts",
                a,
                &format!("{a}_high"),
            ],
        );
        assert!(
            rows.stdout.lines().any(|l| l.starts_with("Note")
                && l.contains("is one sweep with")
                && l.contains("one curve")),
            "{}",
            rows.stdout
        );
        assert!(
            rows.stdout.contains("✅ Check 14 (Pareto coverage): PASS"),
            "{}",
            rows.stdout
        );
    }
}

#[test]
fn a_high_folder_with_points_of_its_own_is_judged_apart() {
    // `_high`'s values are not the sibling's rows: another run.
    let tmp = sweep(1.5);
    for a in ["run", "zips"] {
        let (pareto, scopes) = judged(tmp.path(), a);
        assert_eq!(pareto.len(), 1, "{a}: {pareto:?}");
        let reason = pareto[0]["reason"].as_str().unwrap();
        assert_eq!(pareto[0]["status"], "fail", "{a}: {reason}");
        assert!(
            reason.contains(&format!(
                "{a}_high is judged apart from {a}: 2 of its 2 point(s) are not rows"
            )),
            "{reason}"
        );
        assert!(reason.contains(&format!("run={a}_high")), "{reason}");
        assert_eq!(scopes, [a.to_string(), format!("{a}_high")], "{a}");
    }
}
