//! Check 14 on agentic results shaped as InferenceX's
//! `process_agentic_result.py` writes them since AgentX v1.0 (2026-07:
//! request metrics only nested), in the downloaded-folder layout and as
//! zips.

use crate::results::{verdict, verdicts, zip_artifacts};
use serde_json::{Value, json};
use std::path::Path;

/// An agentic result (`agg` of process_agentic_result.py, abridged): the
/// request metrics nested, as `compute_request_metrics` nests them.
pub(crate) fn nested(conc: u32, p90: Value, tput: Value, total: u64, ok: u64) -> String {
    serde_json::to_string_pretty(&json!({
        "hw": "mi355x",
        "conc": conc,
        "image": "lmsysorg/sglang:v0.5.16-rocm700-mi35x",
        "recipe_fingerprint": "",
        "model": "zai-org/GLM-5.1-FP4",
        "infmax_model_prefix": "glm5.1",
        "framework": "sglang",
        "precision": "fp4",
        "spec_decoding": "none",
        "disagg": false,
        "scenario_type": "agentic-coding",
        "is_multinode": false,
        "tp": 8,
        "ep": 1,
        "dp_attention": false,
        "kv_offloading": "none",
        "num_requests_total": total,
        "num_requests_successful": ok,
        "request_accounting": {"records_total": total, "records_profiled": ok, "records_dropped_total": total - ok},
        "request_metrics": {
            "latency": {"e2el": {"mean": 10.0, "p50": 9.0, "p75": 11.0, "p90": p90, "p95": 14.0, "std": 1.0}},
            "throughput": {"per_gpu": {"total_tput_tps": tput, "output_tput_tps": 100.0, "input_tput_tps": 900.0}}
        },
        "server_metrics": {"kv_cache": {"gpu_total_tokens": 1000000}}
    }))
    .unwrap()
}

/// One artifact folder per point (`bmk_agentic_<stem>/<stem>.json`), and
/// the same run zipped.
fn run(points: &[String]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (i, text) in points.iter().enumerate() {
        let stem = format!(
            "glm5.1_tp8_conc{i}_offloadnone_fp4_sglang_tp8-ep1-dpafalse_disagg-false_spec-none_conc{i}_mi355x-amds_{i:02}"
        );
        let art = tmp.path().join(format!("run/bmk_agentic_{stem}"));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join(format!("{stem}.json")), text).unwrap();
    }
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    tmp
}

fn agentic(dir: &Path) -> (String, String) {
    let mut out = Vec::new();
    for layout in ["run", "zips"] {
        let vs = verdicts(dir, &[layout]);
        let v = verdict(&vs, "pareto-agentic");
        assert_eq!(v.len(), 1, "{layout}: {vs:?}");
        out.push((
            v[0]["status"].as_str().unwrap().to_string(),
            v[0]["reason"].as_str().unwrap().to_string(),
        ));
    }
    assert_eq!(out[0].0, out[1].0, "folder and zip: {out:?}");
    out.remove(0)
}

/// A frontier of `n` points: x and y both rise with concurrency.
pub(crate) fn frontier(n: u32) -> Vec<String> {
    (1..=n)
        .map(|i| {
            nested(
                i,
                json!(5.0 * f64::from(i)),
                json!(200.0 * f64::from(i)),
                62,
                62,
            )
        })
        .collect()
}

#[test]
fn agentx_nested_results_give_points() {
    // Four nested points: a short curve (it was N/A: no point read).
    let (s, r) = agentic(run(&frontier(4)).path());
    assert_eq!(s, "fail", "{r}");
    assert!(r.contains(": 4/5"), "{r}");
    let (s, r) = agentic(run(&frontier(5)).path());
    assert_eq!(s, "pass", "{r}");
}

#[test]
fn points_that_are_no_points_leave_the_curve_unverifiable() {
    for bad in [json!(-3.0), json!("12.5"), Value::Null] {
        let mut pts = frontier(5);
        pts.push(nested(64, json!(40.0), bad.clone(), 62, 62));
        let (s, r) = agentic(run(&pts).path());
        assert_eq!(s, "unknown", "{bad}: {r}");
        assert!(r.starts_with("unverifiable: "), "{r}");
        assert!(r.contains("invalid evidence"), "{r}");
    }
    let mut pts = frontier(5);
    pts.push(nested(64, json!(40.0), json!(1500.0), 62, 62).replace("40.0", "NaN"));
    assert_eq!(agentic(run(&pts).path()).0, "unknown");
}

/// The server hit CUBLAS_STATUS_EXECUTION_FAILED mid-run: 25 of 45
/// requests counted. Such a point is left out and named, so four measured
/// points stay four.
#[test]
fn a_point_measured_on_fewer_requests_than_sent_is_left_out() {
    let mut pts = frontier(4);
    pts.push(nested(64, json!(40.0), json!(1500.0), 45, 25));
    let (s, r) = agentic(run(&pts).path());
    assert_eq!(s, "fail", "{r}");
    assert!(r.contains(": 4/5"), "{r}");
    assert!(r.contains("(25 of 45 requests succeeded)"), "{r}");
}
