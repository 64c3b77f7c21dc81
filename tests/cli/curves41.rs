//! Check 14 on fixed-sequence results (issue 41): a curve is one app
//! series, so speculative methods and GPU types are never pooled into
//! one curve (pooled, two 3-point series make a 6-point "pass"); points are
//! `median_e2el` against `tput_per_gpu`, as InferenceX's
//! utils/process_result.py writes them; in the downloaded-folder layout
//! and as zips.

use crate::results::{verdict, verdicts, zip_artifacts};
use serde_json::json;
use std::path::Path;

/// One fixed-sequence result (process_result.py: json.dump, indent 2).
fn point(hw: &str, spec: &str, conc: u32, e2el: f64, tput: f64) -> String {
    serde_json::to_string_pretty(&json!({
        "hw": hw, "tp": 8, "ep": 8, "dp_attention": "false", "conc": conc,
        "model": "deepseek-ai/DeepSeek-V4", "framework": "sglang", "precision": "fp8",
        "spec_decoding": spec, "disagg": false, "isl": 1024, "osl": 1024,
        "image": "lmsysorg/sglang:v0.5.16",
        "tput_per_gpu": tput, "output_tput_per_gpu": tput / 2.0,
        "median_ttft": 0.21, "median_tpot": 0.012, "median_e2el": e2el,
    }))
    .unwrap()
}

/// `series` as bmk_ artifact folders of `run/` (one per point, as the
/// sweep uploads them) and the same run zipped in `zips/`: each series
/// `n` points up one frontier.
fn run(series: &[(&str, &str, u32)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for (hw, spec, n) in series {
        for i in 0..*n {
            let conc = 4 << i;
            let stem = format!(
                "dsv4_tp8_conc{conc}_fp8_sglang_tp8-ep8-dpafalse_disagg-false_spec-{spec}_conc{conc}_{hw}_{i:02}"
            );
            let art = tmp.path().join(format!("run/bmk_{stem}"));
            std::fs::create_dir_all(&art).unwrap();
            let (e2el, tput) = (5.0 + 3.0 * f64::from(i), 800.0 + 400.0 * f64::from(i));
            std::fs::write(
                art.join(format!("{stem}.json")),
                point(hw, spec, conc, e2el, tput),
            )
            .unwrap();
        }
    }
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    tmp
}

/// pareto-fixed-seq's verdict on the folder and on the zips: one status.
fn fixed_seq(dir: &Path) -> (String, String) {
    let mut out = Vec::new();
    for layout in ["run", "zips"] {
        let vs = verdicts(dir, &[layout]);
        let v = verdict(&vs, "pareto-fixed-seq");
        assert_eq!(v.len(), 1, "{layout}: {vs:?}");
        out.push((
            v[0]["status"].as_str().unwrap().to_string(),
            v[0]["reason"].as_str().unwrap().to_string(),
        ));
    }
    assert_eq!(out[0].0, out[1].0, "folder and zip: {out:?}");
    out.remove(0)
}

#[test]
fn fixed_sequence_series_keep_spec_methods_and_gpus_apart() {
    // MTP and no speculation: two series of three, never one of six.
    let d = run(&[("mi355x-amds", "mtp", 3), ("mi355x-amds", "none", 3)]);
    let (s, r) = fixed_seq(d.path());
    assert_eq!(s, "fail", "{r}");
    assert!(r.contains("3/5"), "{r}");
    // Two GPU types: two series.
    let d = run(&[("mi355x-amds", "mtp", 3), ("b200-nv", "mtp", 3)]);
    let (s, r) = fixed_seq(d.path());
    assert_eq!(s, "fail", "{r}");
    assert!(r.contains("3/5"), "{r}");
    // Five measured points of one series pass.
    let d = run(&[("mi355x-amds", "mtp", 5)]);
    let (s, r) = fixed_seq(d.path());
    assert_eq!(s, "pass", "{r}");
}

/// `points` (AgentX results) as `bmk_agentic_<stem>` folders of `run/`
/// and the same run zipped; pareto-agentic's verdict on both.
fn agentic(points: &[String]) -> (String, String) {
    let tmp = tempfile::tempdir().unwrap();
    for (i, text) in points.iter().enumerate() {
        // The runner in the artifact's name is the result's GPU's.
        let hw = serde_json::from_str::<serde_json::Value>(text).unwrap()["hw"]
            .as_str()
            .map_or("mi355x".to_string(), str::to_string);
        let runner = if hw == "mi355x" { "mi355x-amds" } else { &hw };
        let stem = format!(
            "glm5.1_tp8_conc{i}_offloadnone_fp4_sglang_tp8-ep1-dpafalse_disagg-false_spec-none_conc{i}_{runner}_{i:02}"
        );
        let art = tmp.path().join(format!("run/bmk_agentic_{stem}"));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join(format!("{stem}.json")), text).unwrap();
    }
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    let mut out = Vec::new();
    for layout in ["run", "zips"] {
        let vs = verdicts(tmp.path(), &[layout]);
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

/// An AgentX curve mixes topologies, speculative methods and KV offload
/// modes (the app draws them as one series); a point whose LMCache
/// degraded (26 of 62 requests done, 36 cancelled) is no point of it.
#[test]
fn agentx_curves_mix_topology_spec_and_offload_but_not_degraded_points() {
    let mut pts = crate::pareto::frontier(5);
    for (i, (tp, spec, offload)) in [
        (8, "mtp", "none"),
        (8, "mtp", "lmcache"),
        (4, "none", "none"),
        (4, "none", "lmcache"),
        (8, "none", "none"),
    ]
    .iter()
    .enumerate()
    {
        let mut v: serde_json::Value = serde_json::from_str(&pts[i]).unwrap();
        v["tp"] = json!(tp);
        v["spec_decoding"] = json!(spec);
        v["kv_offloading"] = json!(offload);
        pts[i] = serde_json::to_string_pretty(&v).unwrap();
    }
    let (s, r) = agentic(&pts);
    assert_eq!(s, "pass", "{r}");
    // The fifth point degraded: left out and named, the curve is 4/5.
    pts[4] = crate::pareto::nested(64, json!(60.0), json!(2400.0), 62, 26);
    let (s, r) = agentic(&pts);
    assert_eq!(s, "fail", "{r}");
    assert!(r.contains("4/5") && r.contains("26 of 62"), "{r}");
}

/// One run's AgentX results on two GPU types are two curves (the app's
/// series key holds the GPU): three on MI355X and two on B200 are 3/5 and
/// 2/5, never one curve of five (a real folder pooled two GPU types).
#[test]
fn agentx_curves_keep_gpu_types_apart() {
    let mut pts = crate::pareto::frontier(5);
    for p in pts.iter_mut().skip(3) {
        let mut v: serde_json::Value = serde_json::from_str(p).unwrap();
        v["hw"] = json!("b200");
        v["image"] = json!("lmsysorg/sglang:v0.5.16-cu130");
        *p = serde_json::to_string_pretty(&v).unwrap();
    }
    let (s, r) = agentic(&pts);
    assert_eq!(s, "fail", "{r}");
    assert!(r.contains("hw=mi355x") && r.contains("3/5"), "{r}");
    assert!(r.contains("hw=b200") && r.contains("2/5"), "{r}");
    // All five on one GPU: one curve of five.
    let (s, r) = agentic(&crate::pareto::frontier(5));
    assert_eq!(s, "pass", "{r}");
}
