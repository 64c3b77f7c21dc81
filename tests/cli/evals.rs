//! Check 2 on eval files shaped as InferenceX's eval jobs write them
//! (lm-eval's `results_<ts>.json`, the batched `results*_conc<N>.json` with
//! `meta_env.json`, collect_eval_results.py's `agg_eval_all.json`), judged
//! as `utils/evals/validate_scores.py` judges them, in the downloaded-folder
//! layout and as zips.

use crate::harness::artiscan_in;
use crate::results::{verdict, verdicts, zip_artifacts};
use serde_json::{Value, json};
use std::path::Path;

pub(crate) const EXP: &str =
    "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";

/// An lm-eval results file (evaluation_tracker.py: `json.dumps(indent=2)`),
/// abridged to the keys validate_scores.py and collect_eval_results.py read.
pub(crate) fn lm_eval(strict: Value, flexible: Value, effective: u64) -> String {
    serde_json::to_string_pretty(&json!({
        "results": {
            "gsm8k": {
                "alias": "gsm8k",
                "exact_match,strict-match": strict,
                "exact_match_stderr,strict-match": 0.0041,
                "exact_match,flexible-extract": flexible,
                "exact_match_stderr,flexible-extract": 0.0039
            }
        },
        "group_subtasks": {"gsm8k": []},
        "configs": {"gsm8k": {"task": "gsm8k", "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": true}]}},
        "n-shot": {"gsm8k": 5},
        "higher_is_better": {"gsm8k": {"exact_match": true}},
        "n-samples": {"gsm8k": {"original": 1319, "effective": effective}},
        "config": {"model": "local-chat-completions", "batch_size": 1},
        "git_hash": "a1b2c3d"
    }))
    .unwrap()
}

/// meta_env.json as benchmark_lib.sh `_write_lm_eval_meta_json` writes it
/// (abridged), with the batched keys when `batch` is given.
pub(crate) fn meta_env(batch: Option<(&str, &str, &str)>) -> String {
    let b = batch.map_or(String::new(), |(e, c, f)| {
        format!("  \"eval_concs\": {e},\n  \"completed_eval_concs\": {c},\n  \"failed_eval_concs\": {f},\n")
    });
    format!(
        "{{\n{b}  \"framework\": \"sglang\",\n  \"precision\": \"fp8\",\n  \"spec_decoding\": \"mtp\",\n  \"tp\": 8,\n  \"conc\": 64,\n  \"model\": \"deepseek-ai/DeepSeek-V4\",\n  \"infmax_model_prefix\": \"dsv4\",\n  \"hw\": \"mi355x-amds\",\n  \"isl\": \"1024\",\n  \"osl\": \"1024\"\n}}\n"
    )
}

/// One eval artifact folder `run/eval_gsm8k_<exp>/` holding `files`, and
/// the same run zipped (`zips/eval_gsm8k_<exp>.zip`).
fn eval_run(files: &[(&str, String)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let art = tmp.path().join(format!("run/eval_gsm8k_{EXP}"));
    std::fs::create_dir_all(&art).unwrap();
    for (name, text) in files {
        std::fs::write(art.join(name), text).unwrap();
    }
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    tmp
}

/// The verdict of `check` on the folder and on the zip: the same status.
fn status_both(dir: &Path, check: &str, args: &[&str]) -> (String, Value) {
    let mut out = Vec::new();
    for layout in ["run", "zips"] {
        let mut a = args.to_vec();
        a.push(layout);
        let vs = verdicts(dir, &a);
        let v = verdict(&vs, check);
        assert_eq!(v.len(), 1, "{layout}: {vs:?}");
        out.push((v[0]["status"].as_str().unwrap().to_string(), v[0].clone()));
    }
    assert_eq!(out[0].0, out[1].0, "folder and zip: {out:?}");
    out.remove(0)
}

const BAR: [&str; 2] = ["--param", "gsm8k_min=0.9"];

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn every_exact_match_filter_is_barred_and_a_score_is_a_fraction() {
    // flexible-extract 0.41 under a 0.9 bar: validate_scores.py checks every
    // `exact_match,*` metric, not strict-match alone.
    let d = eval_run(&[
        (
            "results_2026-10-29T05-00-00.123456.json",
            lm_eval(json!(0.97), json!(0.41), 1319),
        ),
        ("meta_env.json", meta_env(None)),
    ]);
    let (s, v) = status_both(d.path(), "eval-exact-match-meets-bar", &BAR);
    assert_eq!(s, "fail", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("0.41"), "{v}");
    // 45.0 is a percent: CI passes it (45.0 < 0.9 is false); here it fails.
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.json",
        lm_eval(json!(45.0), json!(0.95), 1319),
    )]);
    assert_eq!(
        status_both(d.path(), "eval-exact-match-meets-bar", &BAR).0,
        "fail"
    );
    // Python's NaN: CI passes it too (NaN < bar is false); not a pass here.
    let text = lm_eval(json!(0.97), json!(0.95), 1319).replace("0.97,", "NaN,");
    let d = eval_run(&[("results_2026-10-29T05-00-00.json", text)]);
    assert_eq!(
        status_both(d.path(), "eval-exact-match-meets-bar", &BAR).0,
        "fail"
    );
    // Both filters at the bar pass (>=, as CI).
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.json",
        lm_eval(json!(0.9), json!(0.95), 1319),
    )]);
    assert_eq!(
        status_both(d.path(), "eval-exact-match-meets-bar", &BAR).0,
        "pass"
    );
}

/// An lm-eval results file whose gsm8k config declares `metric_list`
/// (evaluation_tracker.py writes the task's config under `configs`).
fn lm_eval_declaring(metric_list: Value, results: Value) -> String {
    let mut doc: Value = serde_json::from_str(&lm_eval(json!(0.0), json!(0.0), 1319)).unwrap();
    doc["results"]["gsm8k"] = results;
    doc["configs"]["gsm8k"]["metric_list"] = metric_list;
    serde_json::to_string_pretty(&doc).unwrap()
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn the_tasks_metric_list_selects_the_barred_metrics() {
    // validate_scores.py's metric_prefixes: the metrics configs.<task>.metric_list
    // declares are barred ("acc,"), not exact_match: a strict-match of 0.41
    // beside an acc of 0.93 passes CI's 0.9 bar.
    let acc = json!([{"metric": "acc", "aggregation": "mean", "higher_is_better": true}]);
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.123456.json",
        lm_eval_declaring(
            acc.clone(),
            json!({"alias": "gsm8k", "acc,none": 0.93, "acc_stderr,none": 0.007,
                   "exact_match,strict-match": 0.41, "exact_match_stderr,strict-match": 0.0135}),
        ),
    )]);
    let (s, v) = status_both(d.path(), "eval-exact-match-meets-bar", &BAR);
    assert_eq!(s, "pass", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("0.93"), "{v}");
    // The declared metric below the bar fails.
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.123456.json",
        lm_eval_declaring(
            acc.clone(),
            json!({"alias": "gsm8k", "acc,none": 0.52, "acc_stderr,none": 0.013,
                   "exact_match,strict-match": 0.97, "exact_match_stderr,strict-match": 0.0041}),
        ),
    )]);
    assert_eq!(
        status_both(d.path(), "eval-exact-match-meets-bar", &BAR).0,
        "fail"
    );
    // A declared metric the results lack: CI checks nothing and fails
    // ("no metrics matched"), however high the exact_match beside it.
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.123456.json",
        lm_eval_declaring(
            acc,
            json!({"alias": "gsm8k", "exact_match,strict-match": 0.97,
                   "exact_match_stderr,strict-match": 0.0041}),
        ),
    )]);
    let (s, v) = status_both(d.path(), "eval-exact-match-meets-bar", &BAR);
    assert_eq!(s, "fail", "{v}");
    // A metric_list with no metric name falls back to exact_match, as CI.
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.123456.json",
        lm_eval_declaring(
            json!([{"metric": ""}]),
            json!({"alias": "gsm8k", "exact_match,strict-match": 0.41}),
        ),
    )]);
    assert_eq!(
        status_both(d.path(), "eval-exact-match-meets-bar", &BAR).0,
        "fail"
    );
}

#[test]
fn a_results_file_cut_short_is_not_read_completely() {
    let full = lm_eval(json!(0.97), json!(0.41), 1319);
    let cut = &full[..full.find("0.97,").unwrap() + 5];
    let d = eval_run(&[("results_2026-10-29T05-00-00.json", cut.to_string())]);
    let (s, v) = status_both(d.path(), "eval-exact-match-meets-bar", &BAR);
    assert_ne!(s, "pass", "{v}");
    assert_ne!(s, "not_applicable", "{v}");
}

#[test]
fn zero_effective_samples_and_integration_errors_fail() {
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.json",
        lm_eval(json!(0.97), json!(0.95), 0),
    )]);
    assert_eq!(
        status_both(d.path(), "eval-effective-samples", &BAR).0,
        "fail"
    );
    let mut doc: Value = serde_json::from_str(&lm_eval(json!(0.97), json!(0.95), 1319)).unwrap();
    doc["integration_error"] = json!("server exited during warmup");
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.json",
        serde_json::to_string_pretty(&doc).unwrap(),
    )]);
    let (s, v) = status_both(d.path(), "eval-no-integration-error", &BAR);
    assert_eq!(s, "fail", "{v}");
}

#[test]
fn a_batched_eval_with_a_failed_concurrency_fails() {
    let d = eval_run(&[
        (
            "results_2026-10-29T05-00-00_conc64.json",
            lm_eval(json!(0.97), json!(0.95), 1319),
        ),
        (
            "meta_env.json",
            meta_env(Some(("[64, 128]", "[64]", "[128]"))),
        ),
    ]);
    assert_eq!(
        status_both(d.path(), "eval-batch-every-concurrency", &BAR).0,
        "fail"
    );
    assert_eq!(
        status_both(d.path(), "eval-batch-completed", &BAR).0,
        "fail"
    );
    // A concurrency neither completed nor listed as failed (the job died
    // before it wrote it): completed is not what was asked.
    let d = eval_run(&[
        (
            "results_2026-10-29T05-00-00_conc64.json",
            lm_eval(json!(0.97), json!(0.95), 1319),
        ),
        ("meta_env.json", meta_env(Some(("[64, 128]", "[64]", "[]")))),
    ]);
    let (s, v) = status_both(d.path(), "eval-batch-completed", &BAR);
    assert_eq!(s, "fail", "{v}");
    let d = eval_run(&[
        (
            "results_2026-10-29T05-00-00_conc64.json",
            lm_eval(json!(0.97), json!(0.95), 1319),
        ),
        (
            "results_2026-10-29T05-10-00_conc128.json",
            lm_eval(json!(0.96), json!(0.95), 1319),
        ),
        (
            "meta_env.json",
            meta_env(Some(("[64, 128]", "[64, 128]", "[]"))),
        ),
    ]);
    assert_eq!(
        status_both(d.path(), "eval-batch-every-concurrency", &BAR).0,
        "pass"
    );
    assert_eq!(
        status_both(d.path(), "eval-batch-completed", &BAR).0,
        "pass"
    );
}

fn agg_run(text: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let art = tmp.path().join("run/eval_results_all");
    std::fs::create_dir_all(&art).unwrap();
    std::fs::write(art.join("agg_eval_all.json"), text).unwrap();
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    tmp
}

/// collect_eval_results.py's lm-eval row: em_strict / em_flexible, n_eff.
fn agg_row(strict: f64, flexible: f64, n_eff: u64) -> Value {
    json!({
        "model": "deepseek-ai/DeepSeek-V4", "model_prefix": "dsv4", "hw": "MI355X-AMDS",
        "framework": "sglang", "precision": "fp8", "spec_decoding": "mtp", "tp": 8, "ep": 8,
        "task": "gsm8k", "em_strict": strict, "em_strict_se": 0.004,
        "em_flexible": flexible, "em_flexible_se": 0.004, "n_eff": n_eff,
    })
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn aggregated_rows_are_read_beyond_score() {
    let d = agg_run(&serde_json::to_string_pretty(&json!([agg_row(0.12, 0.95, 1319)])).unwrap());
    assert_eq!(
        status_both(d.path(), "eval-rows-strict-meets-bar", &BAR).0,
        "fail"
    );
    let d = agg_run(&serde_json::to_string_pretty(&json!([agg_row(0.95, 0.41, 1319)])).unwrap());
    assert_eq!(
        status_both(d.path(), "eval-rows-flexible-meets-bar", &BAR).0,
        "fail"
    );
    let d = agg_run(&serde_json::to_string_pretty(&json!([agg_row(0.95, 0.95, 0)])).unwrap());
    assert_eq!(
        status_both(d.path(), "eval-rows-effective-samples", &BAR).0,
        "fail"
    );
    // A score written as text, as a percent, or as Python's NaN is no
    // score at the bar (CI never reads the rows; its `val < bar` passes
    // 45.0 and NaN in a results file).
    let text = serde_json::to_string_pretty(&json!([agg_row(0.95, 0.95, 1319)])).unwrap();
    for bad in [
        text.replace("\"em_strict\": 0.95,", "\"em_strict\": \"0.95\","),
        text.replace("\"em_strict\": 0.95,", "\"em_strict\": 45.0,"),
        text.replace("\"em_strict\": 0.95,", "\"em_strict\": NaN,"),
    ] {
        assert!(bad != text);
        let d = agg_run(&bad);
        let (s, v) = status_both(d.path(), "eval-rows-strict-meets-bar", &BAR);
        assert_eq!(s, "fail", "{bad}: {v}");
    }
}

/// A 0-byte agg_eval_all.json and one written as JSON Lines are no N/A
/// with exit 0: the member is a coverage error, the eval claims unknown.
#[test]
fn an_empty_or_json_lines_aggregate_is_not_not_applicable() {
    let rows = format!(
        "{}\n{}\n",
        agg_row(0.12, 0.13, 1319),
        agg_row(0.95, 0.95, 1319)
    );
    for text in ["", rows.as_str()] {
        let d = agg_run(text);
        for layout in ["run", "zips"] {
            let run = artiscan_in(
                d.path(),
                &[
                    "check",
                    "--set",
                    "inferencex",
                    "--param",
                    "gsm8k_min=0.9",
                    layout,
                ],
            );
            assert_ne!(run.code, 0, "{layout} {text:?}: {}", run.stdout);
            let vs = run.of_type("verdict");
            let v = verdict(&vs, "eval-rows-strict-meets-bar");
            assert_eq!(v[0]["status"], "unknown", "{layout} {text:?}: {}", v[0]);
        }
    }
}

/// A bar that is not a score: exit 2 with the reason, never a pass.
#[test]
fn a_bar_that_is_not_a_score_is_an_input_error() {
    let d = eval_run(&[(
        "results_2026-10-29T05-00-00.json",
        lm_eval(json!(0.97), json!(0.95), 1319),
    )]);
    for bad in [
        "gsm8k_min=-inf",
        "gsm8k_min=nan",
        "gsm8k_min=1.5",
        "gsm8k_min=-0.1",
        "gsm8k_min=90",
    ] {
        let run = artiscan_in(
            d.path(),
            &["check", "--set", "inferencex", "--param", bad, "run"],
        );
        assert_eq!(run.code, 2, "{bad}: {}", run.stdout);
        assert!(
            run.stderr.contains("not a finite number") || run.stderr.contains("out of range"),
            "{bad}: {}",
            run.stderr
        );
    }
}

/// InferenceX's utils/evals/thresholds.yaml in its YAML form (2026-08,
/// abridged); the JSON text form and the flat form read the same.
const THRESHOLDS_YAML: &str = "# Model thresholds override task defaults.\ndefault:\n  gsm8k: 0.90\n  gpqa_diamond_cot_n_shot: 0.30\n  swebench_lite: 0.50\nmodels:\n  dsv4:\n    gsm8k: 0.98\n  glm5:\n    gsm8k: 0.94\n";

fn with_prefix(prefix: &str) -> String {
    meta_env(None).replace("\"dsv4\"", &format!("\"{prefix}\""))
}

/// The bar is picked as validate_scores.py picks it (the model's own from
/// meta_env.json's prefix, else the default), named with its source; a
/// --param overrides it; neither is not verifiable, never a pass.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn thresholds_file_bars_per_model_default_and_param_override() {
    let tmp = tempfile::tempdir().unwrap();
    let yaml = tmp.path().join("thresholds.yaml");
    std::fs::write(&yaml, THRESHOLDS_YAML).unwrap();
    let json_form = tmp.path().join("thresholds.json");
    std::fs::write(
        &json_form,
        r#"{"default": {"gsm8k": 0.90}, "models": {"dsv4": {"gsm8k": 0.98}}}"#,
    )
    .unwrap();
    let results = lm_eval(json!(0.97), json!(0.975), 1319);
    let file = "results_2026-10-29T05-00-00.123456.json";
    for t in [&yaml, &json_form] {
        let t = t.to_str().unwrap();
        // dsv4 has its own bar, 0.98: 0.97 fails.
        let d = eval_run(&[
            (file, results.clone()),
            ("meta_env.json", with_prefix("dsv4")),
        ]);
        let (s, v) = status_both(d.path(), "eval-exact-match-meets-bar", &["--thresholds", t]);
        assert_eq!(s, "fail", "{v}");
        let r = v["reason"].as_str().unwrap();
        assert!(
            r.contains("bar gsm8k_min: models.dsv4.gsm8k = 0.98 ("),
            "{r}"
        );
        assert!(r.contains(", sha256 "), "{r}");
        // No bar of its own (and `unknown`, as the writer leaves it): the default.
        for (prefix, why) in [
            ("qwen3.5", "model prefix qwen3.5 has no bar of its own"),
            ("unknown", "model prefix unknown"),
        ] {
            let d = eval_run(&[
                (file, results.clone()),
                ("meta_env.json", with_prefix(prefix)),
            ]);
            let (s, v) = status_both(d.path(), "eval-exact-match-meets-bar", &["--thresholds", t]);
            assert_eq!(s, "pass", "{v}");
            let r = v["reason"].as_str().unwrap();
            assert!(r.contains("bar gsm8k_min: default.gsm8k = 0.9 ("), "{r}");
            assert!(r.contains(why), "{r}");
        }
        // --param wins over the file.
        let d = eval_run(&[
            (file, results.clone()),
            ("meta_env.json", with_prefix("dsv4")),
        ]);
        let (s, v) = status_both(
            d.path(),
            "eval-exact-match-meets-bar",
            &["--thresholds", t, "--param", "gsm8k_min=0.95"],
        );
        assert_eq!(s, "pass", "{v}");
        assert!(
            v["reason"]
                .as_str()
                .unwrap()
                .contains("bar gsm8k_min: --param (wins over --thresholds)"),
            "{v}"
        );
    }
    // Neither: not verifiable, never a pass.
    let d = eval_run(&[
        (file, results.clone()),
        ("meta_env.json", with_prefix("dsv4")),
    ]);
    let (s, v) = status_both(d.path(), "eval-exact-match-meets-bar", &[]);
    assert_eq!(s, "unknown", "{v}");
    assert!(
        v["reason"].as_str().unwrap().contains("give --thresholds"),
        "{v}"
    );
    // A file whose bar is no score is bad input.
    let bad = tmp.path().join("bad.yaml");
    std::fs::write(&bad, "default:\n  gsm8k: 90\n").unwrap();
    let run = artiscan_in(
        d.path(),
        &[
            "check",
            "--set",
            "inferencex",
            "--thresholds",
            bad.to_str().unwrap(),
            "run",
        ],
    );
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(
        run.stderr.contains("a bar is a score between 0 and 1"),
        "{}",
        run.stderr
    );
}

/// A benchmark run downloaded without its eval artifacts: Check 2 is not
/// verifiable from it (unknown, with what to fetch), never N/A, which the
/// prompt counts as a pass.
#[test]
fn a_benchmark_run_without_evals_says_what_to_fetch() {
    let tmp = tempfile::tempdir().unwrap();
    let stem =
        "dsv4_tp8_conc64_fp8_sglang_tp8-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
    let art = tmp.path().join(format!("run/bmk_{stem}"));
    std::fs::create_dir_all(&art).unwrap();
    let point = serde_json::to_string_pretty(&json!({
        "hw": "mi355x", "conc": 64, "image": "lmsysorg/sglang:v0.5.16-rocm700-mi35x",
        "model": "deepseek-ai/DeepSeek-V4", "framework": "sglang", "precision": "fp8",
        "spec_decoding": "mtp", "disagg": false, "isl": 1024, "osl": 1024, "tp": 8,
        "median_e2el": 12.5, "tput_per_gpu": 1450.0,
    }))
    .unwrap();
    std::fs::write(art.join(format!("{stem}.json")), point).unwrap();
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    let (s, v) = status_both(tmp.path(), "evals-in-the-download", &[]);
    assert_eq!(s, "unknown", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("gh run download RUN -p 'eval_*'"),
        "{v}"
    );
    // With the eval artifact beside it, the eval checks judge the evals.
    let eval = tmp.path().join(format!("run/eval_gsm8k_{EXP}"));
    std::fs::create_dir_all(&eval).unwrap();
    std::fs::write(
        eval.join("results_2026-10-29T05-00-00.json"),
        lm_eval(json!(0.97), json!(0.95), 1319),
    )
    .unwrap();
    std::fs::write(eval.join("meta_env.json"), meta_env(None)).unwrap();
    let vs = verdicts(tmp.path(), &["--param", "gsm8k_min=0.9", "run"]);
    let v = verdict(&vs, "evals-in-the-download");
    assert_ne!(v[0]["status"], "unknown", "{}", v[0]);
    let bar = verdict(&vs, "eval-exact-match-meets-bar");
    assert!(bar.iter().any(|v| v["status"] == "pass"), "{bar:?}");
    assert!(bar.iter().all(|v| v["status"] != "fail"), "{bar:?}");
}

/// An lm-eval results file that is not one JSON document (0 bytes, JSON
/// Lines) is a named coverage error for that member, and the eval's
/// claims are unknown: never "read completely", never N/A.
#[test]
fn a_results_file_that_is_no_document_is_a_named_coverage_error() {
    let one = |s: f64| {
        serde_json::to_string(
            &serde_json::from_str::<Value>(&lm_eval(json!(s), json!(s), 1319)).unwrap(),
        )
        .unwrap()
    };
    let lines = format!("{}\n{}\n", one(0.97), one(0.12));
    let cut = {
        let full = lm_eval(json!(0.97), json!(0.95), 1319);
        full[..full.find("0.97,").unwrap() + 5].to_string()
    };
    for (what, text) in [
        ("empty", String::new()),
        ("json lines", lines),
        ("cut", cut),
    ] {
        let d = eval_run(&[("results_2026-10-29T05-00-00.json", text)]);
        for layout in ["run", "zips"] {
            let run = artiscan_in(
                d.path(),
                &[
                    "check",
                    "--set",
                    "inferencex",
                    "--param",
                    "gsm8k_min=0.9",
                    layout,
                ],
            );
            assert_ne!(run.code, 0, "{what} {layout}: {}", run.stdout);
            let cov = run.of_type("coverage");
            let bad: Vec<&Value> = cov.iter().filter(|c| c["complete"] == false).collect();
            assert_eq!(bad.len(), 1, "{what} {layout}: {cov:?}");
            let named = bad[0]["path"]
                .as_str()
                .unwrap()
                .ends_with("results_2026-10-29T05-00-00.json")
                || bad[0]["errors"]
                    .to_string()
                    .contains("results_2026-10-29T05-00-00.json");
            assert!(named, "{what} {layout}: {}", bad[0]);
            assert_eq!(
                bad[0]["errors"][0]["kind"], "corrupt",
                "{what} {layout}: {}",
                bad[0]
            );
            let vs = run.of_type("verdict");
            let v = verdict(&vs, "eval-exact-match-meets-bar");
            assert_eq!(v[0]["status"], "unknown", "{what} {layout}: {}", v[0]);
        }
    }
}

/// collect_eval_results.py `build_row` (json.dump, indent 2) for a task
/// whose results file held no strict-match filter and no `acc`: every
/// score null. No bar check sees a score, so this is an empty eval.
fn empty_row(task: &str) -> Value {
    json!({
        "is_multinode": false, "model_prefix": "dsv4", "model": "deepseek-ai/DeepSeek-V4",
        "hw": "MI355X-AMDS", "framework": "sglang", "precision": "fp8", "spec_decoding": "mtp",
        "isl": 1024, "osl": 1024, "tp": 8, "ep": 8, "prefill_tp": 8, "prefill_ep": 8,
        "prefill_num_workers": 1, "decode_tp": 8, "decode_ep": 8, "decode_num_workers": 1,
        "conc": 64, "dp_attention": "none", "prefill_dp_attention": "none",
        "decode_dp_attention": "none", "task": task,
        "em_strict": null, "em_strict_se": null, "em_flexible": null, "em_flexible_se": null,
        "n_eff": 1319,
        "source": format!("eval_results/eval_{task}_{EXP}/results_2026-10-29T05-00-00.123456.json"),
        "score": null, "score_name": null, "score_se": null,
    })
}

/// A row that reports no metric at all fails, whichever collector wrote
/// it: the 2025 rows (no `score` key) with em_strict and em_flexible null,
/// and today's all-null row; a row with any one value is not this claim's
/// failure (its bar checks judge it).
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn a_row_that_reports_no_metric_fails() {
    let check = "eval-rows-report-a-metric";
    let mut old = agg_row(0.95, 0.95, 1319);
    old["em_strict"] = Value::Null;
    old["em_flexible"] = Value::Null;
    let good = agg_row(0.95, 0.95, 1319);
    for rows in [json!([good.clone(), old]), json!([empty_row("gsm8k")])] {
        let d = agg_run(&serde_json::to_string_pretty(&rows).unwrap());
        let (s, v) = status_both(d.path(), check, &BAR);
        assert_eq!(s, "fail", "{v}");
        let cite = v["evidence"][0]["citation"].as_str().unwrap();
        assert!(cite.contains("agg_eval_all.json:"), "{v}");
    }
    let mut flex_only = agg_row(0.95, 0.95, 1319);
    flex_only["em_strict"] = Value::Null;
    for rows in [json!([good]), json!([flex_only])] {
        let d = agg_run(&serde_json::to_string_pretty(&rows).unwrap());
        assert_eq!(status_both(d.path(), check, &BAR).0, "pass", "{rows}");
    }
}

/// A row with a null score beside a scored one fails, cited on its score
/// line (it passed: no bar check judged it); a row whose em_flexible
/// holds the score is left to the flexible bar; rows of the 2025
/// collector (no `score` key) are not this claim's.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn an_aggregated_row_without_a_score_fails() {
    let mut scored = empty_row("gsm8k");
    for (k, v) in [
        ("em_strict", json!(0.9772554965883244)),
        ("em_flexible", json!(0.978_013_646_702_047)),
        ("score", json!(0.9772554965883244)),
        ("score_name", json!("em_strict")),
        ("score_se", json!(0.0041)),
    ] {
        scored[k] = v;
    }
    let rows = json!([scored.clone(), empty_row("gpqa_diamond")]);
    let d = agg_run(&serde_json::to_string_pretty(&rows).unwrap());
    let (s, v) = status_both(d.path(), "eval-rows-have-a-score", &BAR);
    assert_eq!(s, "fail", "{v}");
    assert!(
        v["reason"].as_str().unwrap().contains("score = null"),
        "{v}"
    );
    let cite = v["evidence"][0]["citation"].as_str().unwrap();
    assert!(cite.contains("agg_eval_all.json:"), "{v}");
    // The scored row alone passes.
    let d = agg_run(&serde_json::to_string_pretty(&json!([scored])).unwrap());
    assert_eq!(
        status_both(d.path(), "eval-rows-have-a-score", &BAR).0,
        "pass"
    );
    // em_flexible carries the score: judged by its own bar, not here.
    let mut flex = empty_row("gsm8k");
    flex["em_flexible"] = json!(0.41);
    let d = agg_run(&serde_json::to_string_pretty(&json!([flex])).unwrap());
    assert_eq!(
        status_both(d.path(), "eval-rows-have-a-score", &BAR).0,
        "not_applicable"
    );
    assert_eq!(
        status_both(d.path(), "eval-rows-flexible-meets-bar", &BAR).0,
        "fail"
    );
    // The 2025 rows have no `score` key.
    let d = agg_run(&serde_json::to_string_pretty(&json!([agg_row(0.95, 0.95, 1319)])).unwrap());
    assert_eq!(
        status_both(d.path(), "eval-rows-have-a-score", &BAR).0,
        "not_applicable"
    );
}
