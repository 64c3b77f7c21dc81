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
    with_warmup(conc, p90, tput, total, 0, ok)
}

/// As [`nested`], with `warmup` of the `total` records in aiperf's warmup
/// phase (`load_records_with_accounting` counts them in `records_total`,
/// never in the successful ones).
pub(crate) fn with_warmup(
    conc: u32,
    p90: Value,
    tput: Value,
    total: u64,
    warmup: u64,
    ok: u64,
) -> String {
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
        "request_accounting": {
            "records_total": total,
            "records_profiled": ok,
            "records_dropped_total": total - ok,
            "records_warmup_dropped": warmup,
            "records_error_dropped": total - warmup - ok,
            "error_categories": if total - warmup > ok { json!({"RequestCancellationError": total - warmup - ok}) } else { json!({}) }
        },
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
    run_with(points, &[])
}

/// The stem of the `i`-th point's artifacts.
pub(crate) fn stem(i: usize) -> String {
    format!(
        "glm5.1_tp8_conc{i}_offloadnone_fp4_sglang_tp8-ep1-dpafalse_disagg-false_spec-none_conc{i}_mi355x-amds_{i:02}"
    )
}

/// As [`run`], with files of the points' `agentic_<stem>` artifacts (the
/// server and client logs InferenceX uploads beside each result):
/// (point, file name, text).
fn run_with(points: &[String], logs: &[(usize, &str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (i, text) in points.iter().enumerate() {
        let stem = stem(i);
        let art = tmp.path().join(format!("run/bmk_agentic_{stem}"));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join(format!("{stem}.json")), text).unwrap();
    }
    for (i, name, text) in logs {
        let art = tmp.path().join(format!("run/agentic_{}", stem(*i)));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join(name), text).unwrap();
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
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
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
    assert!(r.contains("(25 of 45 requests succeeded"), "{r}");
    // LMCache degraded: 26 done, 36 cancelled.
    let mut pts = frontier(4);
    pts.push(with_warmup(64, json!(40.0), json!(1500.0), 70, 8, 26));
    let (s, r) = agentic(run(&pts).path());
    assert_eq!(s, "fail", "{r}");
    assert!(r.contains("(26 of 62 requests succeeded"), "{r}");
}

/// AgentX v1.0 results count warmup records in `num_requests_total`, and a
/// healthy point cancels a few requests at the grace timeout: CI
/// (validate_agentic_result.py) accepts up to 10% failed requests. Five
/// such points are a full curve (each was left out: fewer successful than
/// total).
#[test]
fn healthy_points_with_warmup_and_a_few_cancelled_requests_are_points() {
    let pts: Vec<String> = (1..=5)
        .map(|i| {
            with_warmup(
                i,
                json!(5.0 * f64::from(i)),
                json!(200.0 * f64::from(i)),
                91,
                16,
                // 59 completed, 16 cancelled at the grace timeout would be
                // 21%: here 3 of 75 (4%).
                72,
            )
        })
        .collect();
    let (s, r) = agentic(run(&pts).path());
    assert_eq!(s, "pass", "{r}");
    assert!(!r.contains("left out"), "{r}");
    // Over the limit: 8 of 75 failed (10.7%).
    let mut pts = pts;
    pts[4] = with_warmup(5, json!(25.0), json!(1000.0), 91, 16, 67);
    let (s, r) = agentic(run(&pts).path());
    assert_eq!(s, "fail", "{r}");
    assert!(
        r.contains("(67 of 75 requests succeeded, over CI's 10% failed-request limit)"),
        "{r}"
    );
}

/// Real SGLang lines (glm5.1 conc16 hicache server.log, InferenceX June
/// 2026): serving, then the KV pool running dry and the scheduler dying of
/// it (srt/mem_cache/common.py, v0.5.x) at `time`.
fn sglang_log(time: &str) -> String {
    format!(
        "[2026-06-03 17:32:28 TP0] Load weight end. elapsed=259.47 s, type=GlmMoeDsaForCausalLM, quant=quark, avail mem=79.62 GB, mem usage=199.52 GB.
[2026-06-03 17:37:40] INFO:     The server is fired up and ready to roll!
[2026-06-03 17:37:40] INFO:     Application startup complete.
[2026-06-03 {time} TP0] Out of memory. Try to lower your batch size.
Try to allocate 8192 tokens.
[2026-06-03 {time} TP0] Scheduler hit an exception: Traceback (most recent call last):
  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2816, in run_scheduler_process
    scheduler.event_loop_overlap()
  File \"/sgl-workspace/sglang/python/sglang/srt/mem_cache/common.py\", line 312, in alloc_token_slots
    raise RuntimeError(error_msg)
RuntimeError: Out of memory. Try to lower your batch size.
"
    )
}

/// aiperf's lines in benchmark.log (the same run): profiling
/// 17:44:44.293-18:15:14.295.
const AIPERF: &str = "\
17:38:01.192 NOTICE   Phase warmup started | target: 16 requests (runner.py:303)
17:44:44.277 NOTICE   Phase warmup complete | completed=16, cancelled=0, errors=0 | elapsed=403.08s (runner.py:662)
17:44:44.293 NOTICE   Phase profiling started | target: 1800.0s duration (runner.py:303)
17:44:59.807 INFO     [realtime 00:15 profiling] rps=0.2 (avg 0.2) tput_in=5121/s tput_out=5/s done=3 ok=3 err=0
18:15:14.295 NOTICE   Phase profiling complete | completed=59, cancelled=16, errors=0 | sessions: completed=0, cancelled=1 | elapsed=1830.00s | grace_period_timeout=True (runner.py:662)
";

/// A point whose server died inside its measurement window is no point:
/// left out and listed with the crash and its citation, so five results
/// are a 4/5 curve. The same crash after the window leaves it a point.
#[test]
fn a_point_whose_server_crashed_inside_its_window_is_left_out() {
    let log = sglang_log("17:50:02");
    let dir = run_with(
        &frontier(5),
        &[(4, "server.log", &log), (4, "benchmark.log", AIPERF)],
    );
    let (s, r) = agentic(dir.path());
    assert_eq!(s, "fail", "{r}");
    assert!(r.contains(": 4/5"), "{r}");
    assert!(
        r.contains("left out, the server crashed while it was measured: "),
        "{r}"
    );
    assert!(r.contains("crash inside the measurement window of"), "{r}");
    assert!(r.contains(&format!("agentic_{}", stem(4))), "{r}");
    assert!(r.contains("server.log:"), "{r}");
    let log = sglang_log("18:20:31");
    let dir = run_with(
        &frontier(5),
        &[(4, "server.log", &log), (4, "benchmark.log", AIPERF)],
    );
    let (s, r) = agentic(dir.path());
    assert_eq!(s, "pass", "{r}");
    assert!(!r.contains("left out"), "{r}");
}
