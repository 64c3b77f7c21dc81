//! Result files read as JSON (the `result` pack's json rules): benchmark
//! points and the Pareto checks, aggregated eval rows and the eval checks,
//! in the downloaded-folder layout and as zips.

use crate::harness::artiscan_in;
use serde_json::{Value, json};
use std::path::Path;

/// A single-node agentic result file as InferenceX writes it (indent 2).
fn point(model: &str, conc: u32, p90: f64, tput: f64, offload: &str) -> String {
    serde_json::to_string_pretty(&json!({
        "hw": "mi355x",
        "conc": conc,
        "image": "vllm/vllm-openai-rocm:v0.22.0",
        "model": model,
        "framework": "vllm",
        "precision": "fp8",
        "spec_decoding": "none",
        "disagg": false,
        "scenario_type": "agentic-coding",
        "tp": 2,
        "offloading": offload,
        "num_requests_total": 62,
        "mean_e2el": p90 / 2.0,
        "p90_e2el": p90,
        "tput_per_gpu": tput,
    }))
    .unwrap()
}

/// Writes one artifact folder per point, as `gh run download` leaves them.
fn run_folder(dir: &Path, points: &[(&str, u32, f64, f64, &str)]) {
    for (i, (model, conc, p90, tput, off)) in points.iter().enumerate() {
        let stem = format!(
            "{}_tp2_conc{conc}_offload{off}_fp8_vllm_conc{conc}_mi355x-amds_{i:02}",
            model.replace('/', "_")
        );
        let art = dir.join(format!("bmk_agentic_{stem}"));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(
            art.join(format!("{stem}.json")),
            point(model, *conc, *p90, *tput, off),
        )
        .unwrap();
    }
}

/// Zips every artifact folder of `dir` into `out` (`NAME.zip`), with
/// Python's zipfile (on every machine CI runs on).
pub(crate) fn zip_artifacts(dir: &Path, out: &Path) {
    std::fs::create_dir_all(out).unwrap();
    let script = "import os,sys,zipfile\n\
        src,dst=sys.argv[1],sys.argv[2]\n\
        for a in sorted(os.listdir(src)):\n\
        \x20   with zipfile.ZipFile(os.path.join(dst,a+'.zip'),'w',zipfile.ZIP_DEFLATED) as z:\n\
        \x20       for root,_,files in os.walk(os.path.join(src,a)):\n\
        \x20           for f in sorted(files):\n\
        \x20               p=os.path.join(root,f); z.write(p, os.path.relpath(p, os.path.join(src,a)))\n";
    let st = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(dir)
        .arg(out)
        .status()
        .expect("python3");
    assert!(st.success());
}

pub(crate) fn verdicts(dir: &Path, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["check", "--set", "inferencex"];
    all.extend_from_slice(args);
    let run = artiscan_in(dir, &all);
    assert!(run.code != 2, "exit 2: {}", run.stderr);
    run.of_type("verdict")
}

pub(crate) fn verdict<'a>(vs: &'a [Value], check: &str) -> Vec<&'a Value> {
    vs.iter().filter(|v| v["check"] == check).collect()
}

/// Six points on one frontier pass; a second model with four frontier
/// points (and a dominated fifth and a duplicate) fails with its count;
/// the same run as zips gives the same verdicts.
#[test]
fn pareto_points_per_curve_folder_and_zip() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let mut pts = vec![];
    for (i, (p90, tput)) in [
        (10.0, 1000.0),
        (14.0, 2000.0),
        (20.0, 3500.0),
        (30.0, 5000.0),
        (50.0, 6000.0),
        (90.0, 6500.0),
    ]
    .iter()
    .enumerate()
    {
        pts.push((
            "org/A",
            1 << i,
            *p90,
            *tput,
            if i % 2 == 0 { "none" } else { "lmcache" },
        ));
    }
    // B: 4 on the frontier; (25, 1500) is dominated by (12, 2000); one
    // point measured twice counts once.
    for (i, (p90, tput)) in [
        (8.0, 900.0),
        (12.0, 2000.0),
        (25.0, 1500.0),
        (40.0, 2500.0),
        (70.0, 2600.0),
        (70.0, 2600.0),
    ]
    .iter()
    .enumerate()
    {
        pts.push(("org/B", 1 << i, *p90, *tput, "none"));
    }
    run_folder(&run, &pts);
    let zips = tmp.path().join("zips");
    zip_artifacts(&run, &zips);
    for dir in [&run, &zips] {
        let vs = verdicts(tmp.path(), &[dir.file_name().unwrap().to_str().unwrap()]);
        let p = verdict(&vs, "pareto-agentic");
        assert_eq!(p.len(), 1, "one run-level verdict: {p:?}");
        let v = p[0];
        assert_eq!(v["status"], "fail", "{v}");
        let reason = v["reason"].as_str().unwrap();
        assert!(
            reason.contains("model=org/B") && reason.contains("4/5 (5 measured)"),
            "{reason}"
        );
        assert!(!reason.contains("model=org/A,"), "A has six: {reason}");
        let curves = v["observed"]["curves"].as_array().unwrap();
        let a = curves
            .iter()
            .find(|c| c["curve"].as_str().unwrap().contains("org/A"))
            .unwrap();
        assert_eq!(a["frontier"], 6);
        // Frontier points are cited on their tput_per_gpu lines.
        let cite = v["evidence"][0]["citation"].as_str().unwrap();
        assert!(cite.ends_with(":16"), "{cite}");
        // Fixed-sequence curves have no points here.
        assert!(
            verdict(&vs, "pareto-fixed-seq")
                .iter()
                .all(|v| v["status"] == "not_applicable")
        );
    }
}

/// A result file cut short could hold a point that changes a curve: the
/// count is unknown, never a pass or a fail.
#[test]
fn pareto_is_unknown_when_a_result_file_cannot_be_read() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    let pts: Vec<_> = (0..6)
        .map(|i| {
            (
                "org/A",
                1u32 << i,
                10.0 * (i + 1) as f64,
                1000.0 * (i + 1) as f64,
                "none",
            )
        })
        .collect();
    run_folder(&run, &pts);
    let vs = verdicts(tmp.path(), &["run"]);
    assert_eq!(verdict(&vs, "pareto-agentic")[0]["status"], "pass");
    // Cut the last file in the middle of an object.
    let art = std::fs::read_dir(&run)
        .unwrap()
        .map(|e| e.unwrap().path())
        .max()
        .unwrap();
    let file = std::fs::read_dir(&art)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, &text[..text.len() / 2]).unwrap();
    let vs = verdicts(tmp.path(), &["run"]);
    let v = verdict(&vs, "pareto-agentic")[0];
    assert_eq!(v["status"], "unknown", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("could not be read completely"),
        "{v}"
    );
}

fn eval_rows(rows: &Value) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let art = tmp.path().join("run/eval_results_all");
    std::fs::create_dir_all(&art).unwrap();
    std::fs::write(
        art.join("agg_eval_all.json"),
        serde_json::to_string_pretty(rows).unwrap(),
    )
    .unwrap();
    tmp
}

fn row(task: &str, score: f64) -> Value {
    json!({
        "model": "deepseek-ai/DeepSeek-V4", "framework": "sglang", "task": task,
        "score": score, "n_eff": 1319, "eval_suite": "inferencex-eval-v1",
        "infrastructure_success": true, "integration_error": null,
    })
}

/// Scores against per-task bars: met passes, one below fails citing its
/// row, a task without a bar is unknown; infrastructure failures and
/// integration errors fail their checks.
#[test]
fn eval_rows_against_bars_and_failures() {
    let ok = eval_rows(&json!([row("gsm8k", 0.95), row("gpqa_diamond", 0.71)]));
    let vs = verdicts(
        ok.path(),
        &[
            "run",
            "--param",
            "gsm8k_min=0.9",
            "--param",
            "gpqa_diamond_min=0.6",
        ],
    );
    assert_eq!(verdict(&vs, "eval-scores-meet-bar")[0]["status"], "pass");
    assert_eq!(verdict(&vs, "eval-infrastructure-ok")[0]["status"], "pass");
    assert_eq!(
        verdict(&vs, "eval-no-integration-error")[0]["status"],
        "pass"
    );

    let vs = verdicts(ok.path(), &["run", "--param", "gsm8k_min=0.9"]);
    let v = verdict(&vs, "eval-scores-meet-bar")[0];
    assert_eq!(v["status"], "unknown", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("--param gpqa_diamond_min"),
        "{v}"
    );

    let vs = verdicts(
        ok.path(),
        &[
            "run",
            "--param",
            "gsm8k_min=0.96",
            "--param",
            "gpqa_diamond_min=0.6",
        ],
    );
    let v = verdict(&vs, "eval-scores-meet-bar")[0];
    assert_eq!(v["status"], "fail", "{v}");
    assert!(
        v["reason"].as_str().unwrap().contains("score = 0.95"),
        "{v}"
    );
    assert!(
        v["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .contains("agg_eval_all.json:")
    );

    // A mistyped bar is an input error, a per-task one is not.
    let run = artiscan_in(
        ok.path(),
        &[
            "check",
            "--set",
            "inferencex",
            "run",
            "--param",
            "gsm8k_mni=0.9",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stderr);

    let mut bad = row("gsm8k", 0.95);
    bad["infrastructure_success"] = json!(false);
    let mut err = row("gpqa_diamond", 0.7);
    err["integration_error"] = json!("server exited during warmup");
    let failed = eval_rows(&json!([bad, err]));
    let vs = verdicts(
        failed.path(),
        &[
            "run",
            "--param",
            "gsm8k_min=0.9",
            "--param",
            "gpqa_diamond_min=0.6",
        ],
    );
    assert_eq!(verdict(&vs, "eval-infrastructure-ok")[0]["status"], "fail");
    let v = verdict(&vs, "eval-no-integration-error")[0];
    assert_eq!(v["status"], "fail");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("server exited during warmup"),
        "{v}"
    );
}

/// A json record's citation reopens with `cite` at the field's line.
#[test]
fn json_records_cite_the_field_line() {
    let tmp = tempfile::tempdir().unwrap();
    let run = tmp.path().join("run");
    run_folder(&run, &[("org/A", 4, 19.4, 2712.44, "none")]);
    let scan = artiscan_in(tmp.path(), &["scan", "--only", "result.*", "run"]);
    let ev = scan.of_type("evidence");
    assert_eq!(ev.len(), 1, "{}", scan.stdout);
    assert_eq!(ev[0]["text"], "  \"tput_per_gpu\": 2712.44");
    assert_eq!(ev[0]["captures"]["conc"], 4);
    let cite = ev[0]["citation"].as_str().unwrap();
    let shown = artiscan_in(tmp.path(), &["cite", cite]);
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(
        shown.stdout.contains("\"tput_per_gpu\": 2712.44"),
        "{}",
        shown.stdout
    );
}
