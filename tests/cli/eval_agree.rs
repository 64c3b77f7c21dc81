//! Check 2's "rows that disagree" (issue 41): one eval reported by two
//! documents of a run with different scores fails, naming both. The rows
//! are collect_eval_results.py's (`agg_eval_all.json` in the
//! `eval_results_all` artifact, each row naming its results file in
//! `source` as the collector saw it under `eval_results/`), the documents
//! lm-eval's results files with the eval job's meta_env.json; in the
//! downloaded-folder layout and as zips.

use crate::evals::{EXP, lm_eval, meta_env};
use crate::results::{verdict, verdicts, zip_artifacts};
use serde_json::{Value, json};
use std::path::Path;

const CHECK: &str = "eval-documents-agree";
const RESULTS: &str = "results_2026-10-29T05-40-01.123456.json";

/// A run folder `run/` holding the artifacts `(name, [(file, text)])`,
/// and the same artifacts zipped in `zips/`.
fn run_of(artifacts: &[(&str, Vec<(String, String)>)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (name, files) in artifacts {
        let art = tmp.path().join("run").join(name);
        std::fs::create_dir_all(&art).unwrap();
        for (file, text) in files {
            std::fs::write(art.join(file), text).unwrap();
        }
    }
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    tmp
}

/// collect_eval_results.py `build_row` for the gsm8k results of
/// `meta_env(None)` (json.dump, indent 2), built from `source`.
fn agg_row(strict: f64, flexible: f64, source: Option<&str>) -> Value {
    let mut row = json!({
        "is_multinode": false, "model_prefix": "dsv4", "model": "deepseek-ai/DeepSeek-V4",
        "hw": "MI355X-AMDS", "framework": "sglang", "precision": "fp8", "spec_decoding": "mtp",
        "isl": 1024, "osl": 1024, "tp": 8, "ep": 1, "prefill_tp": 8, "prefill_ep": 1,
        "prefill_num_workers": 1, "decode_tp": 8, "decode_ep": 1, "decode_num_workers": 1,
        "conc": 64, "dp_attention": "none", "prefill_dp_attention": "none",
        "decode_dp_attention": "none", "task": "gsm8k",
        "em_strict": strict, "em_strict_se": 0.0041, "em_flexible": flexible,
        "em_flexible_se": 0.0039, "n_eff": 1319,
        "score": strict, "score_name": "em_strict", "score_se": 0.0041,
    });
    if let Some(s) = source {
        row["source"] = json!(s);
    }
    row
}

fn agg(rows: &[Value]) -> (&'static str, Vec<(String, String)>) {
    (
        "eval_results_all",
        vec![(
            "agg_eval_all.json".into(),
            serde_json::to_string_pretty(&json!(rows)).unwrap(),
        )],
    )
}

fn source() -> String {
    format!("eval_results/eval_gsm8k_{EXP}/{RESULTS}")
}

/// The check's verdict on the folder and on the zips: the same status.
fn both(dir: &Path) -> (String, Value) {
    let mut out = Vec::new();
    for layout in ["run", "zips"] {
        let vs = verdicts(dir, &["--param", "gsm8k_min=0.9", layout]);
        let v = verdict(&vs, CHECK);
        assert_eq!(v.len(), 1, "{layout}: {vs:?}");
        out.push((v[0]["status"].as_str().unwrap().to_string(), v[0].clone()));
    }
    assert_eq!(out[0].0, out[1].0, "folder and zip: {out:?}");
    out.remove(0)
}

fn reason(v: &Value) -> &str {
    v["reason"].as_str().unwrap()
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn an_aggregated_row_that_disagrees_with_its_results_file_fails_naming_both() {
    let eval = format!("eval_gsm8k_{EXP}");
    // The row says 0.12 strict, its results file 0.9772554965883244: the
    // bar checks judge each document alone and cannot see it.
    let d = run_of(&[
        (
            &eval,
            vec![
                (
                    RESULTS.into(),
                    lm_eval(json!(0.9772554965883244), json!(0.9788), 1319),
                ),
                ("meta_env.json".into(), meta_env(None)),
            ],
        ),
        agg(&[agg_row(0.12, 0.9788, Some(&source()))]),
    ]);
    let (s, v) = both(d.path());
    assert_eq!(s, "fail", "{v}");
    let r = reason(&v);
    assert!(
        r.contains("0.12") && r.contains("0.9772554965883244"),
        "{r}"
    );
    assert!(
        r.contains("agg_eval_all.json") && r.contains(RESULTS),
        "{r}"
    );
    let cites: Vec<&str> = v["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["citation"].as_str().unwrap())
        .collect();
    assert!(
        cites.iter().any(|c| c.contains("agg_eval_all.json")),
        "{cites:?}"
    );
    assert!(cites.iter().any(|c| c.contains(RESULTS)), "{cites:?}");

    // The same row and file agreeing (the float json.dump wrote, and the
    // same number spelled another way) pass.
    let text =
        lm_eval(json!(0.9772554965883244), json!(0.9788), 1319).replace("0.9788", "9.788e-1");
    let d = run_of(&[
        (
            &eval,
            vec![
                (RESULTS.into(), text),
                ("meta_env.json".into(), meta_env(None)),
            ],
        ),
        agg(&[agg_row(0.9772554965883244, 0.9788, Some(&source()))]),
    ]);
    let (s, v) = both(d.path());
    assert_eq!(s, "pass", "{v}");

    // The flexible filter disagreeing fails too.
    let d = run_of(&[
        (
            &eval,
            vec![
                (RESULTS.into(), lm_eval(json!(0.97), json!(0.41), 1319)),
                ("meta_env.json".into(), meta_env(None)),
            ],
        ),
        agg(&[agg_row(0.97, 0.95, Some(&source()))]),
    ]);
    let (s, v) = both(d.path());
    assert_eq!(s, "fail", "{v}");
    assert!(reason(&v).contains("em_flexible"), "{v}");
}

/// A row without `source` (older collectors) is linked through the
/// meta_env.json beside the results file: the same configuration.
#[test]
fn a_row_without_source_is_linked_by_its_configuration() {
    let eval = format!("eval_gsm8k_{EXP}");
    let files = vec![
        (RESULTS.to_string(), lm_eval(json!(0.97), json!(0.96), 1319)),
        ("meta_env.json".to_string(), meta_env(None)),
    ];
    let d = run_of(&[(&eval, files.clone()), agg(&[agg_row(0.45, 0.96, None)])]);
    let (s, v) = both(d.path());
    assert_eq!(s, "fail", "{v}");
    assert!(
        reason(&v).contains("0.45") && reason(&v).contains("0.97"),
        "{v}"
    );
    // A row of another configuration (tp 4) is no row of this file.
    let mut other = agg_row(0.45, 0.96, None);
    other["tp"] = json!(4);
    let d = run_of(&[(&eval, files), agg(&[other])]);
    let (s, v) = both(d.path());
    assert_eq!(s, "not_applicable", "{v}");
    assert!(reason(&v).contains("without their results file"), "{v}");
}

/// Two results files of one point (a batched eval's concurrency and its
/// retry, `_conc64` and `_conc64_2`, as the collector names them) that
/// disagree fail; other concurrencies are other points.
#[test]
fn two_results_files_of_one_point_that_disagree_fail() {
    let eval = format!("eval_gsm8k_{EXP}");
    let meta = meta_env(Some(("[64, 128]", "[64, 128]", "[]")));
    let d = run_of(&[(
        &eval,
        vec![
            (
                "results_2026-10-29T05-40-01_conc64.json".into(),
                lm_eval(json!(0.97), json!(0.96), 1319),
            ),
            (
                "results_2026-10-29T06-10-00_conc64_2.json".into(),
                lm_eval(json!(0.41), json!(0.96), 1319),
            ),
            (
                "results_2026-10-29T05-50-00_conc128.json".into(),
                lm_eval(json!(0.93), json!(0.95), 1319),
            ),
            ("meta_env.json".into(), meta.clone()),
        ],
    )]);
    let (s, v) = both(d.path());
    assert_eq!(s, "fail", "{v}");
    let r = reason(&v);
    assert!(r.contains("0.97") && r.contains("0.41"), "{r}");
    assert!(!r.contains("0.93"), "{r}");
    // Concurrencies apart are no disagreement: one document per point.
    let d = run_of(&[(
        &eval,
        vec![
            (
                "results_2026-10-29T05-40-01_conc64.json".into(),
                lm_eval(json!(0.97), json!(0.96), 1319),
            ),
            (
                "results_2026-10-29T05-50-00_conc128.json".into(),
                lm_eval(json!(0.93), json!(0.95), 1319),
            ),
            ("meta_env.json".into(), meta),
        ],
    )]);
    let (s, v) = both(d.path());
    assert_eq!(s, "not_applicable", "{v}");
    assert!(reason(&v).contains("nothing to compare"), "{v}");
}

/// A zip and its extracted copy in one run folder: one document read
/// twice agrees; an edited copy fails, naming both.
#[test]
fn an_extracted_copy_that_differs_from_its_zip_fails() {
    let eval = format!("eval_gsm8k_{EXP}");
    let d = run_of(&[(
        &eval,
        vec![
            (RESULTS.into(), lm_eval(json!(0.41), json!(0.40), 1319)),
            ("meta_env.json".into(), meta_env(None)),
        ],
    )]);
    // The zip of the original beside the folder, whose file is edited.
    std::fs::copy(
        d.path().join(format!("zips/{eval}.zip")),
        d.path().join(format!("run/{eval}.zip")),
    )
    .unwrap();
    let vs = verdicts(d.path(), &["--param", "gsm8k_min=0.9", "run"]);
    let v = verdict(&vs, CHECK);
    assert_eq!(v[0]["status"], "pass", "{}", v[0]);
    std::fs::write(
        d.path().join(format!("run/{eval}/{RESULTS}")),
        lm_eval(json!(0.97), json!(0.96), 1319),
    )
    .unwrap();
    let vs = verdicts(d.path(), &["--param", "gsm8k_min=0.9", "run"]);
    let v = verdict(&vs, CHECK);
    assert_eq!(v[0]["status"], "fail", "{}", v[0]);
    let r = reason(v[0]);
    assert!(r.contains("0.41") && r.contains("0.97"), "{r}");
    assert!(r.contains(&format!("{eval}.zip!")), "{r}");
}
