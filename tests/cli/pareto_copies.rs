//! Check 14's curves kept as the prompt and `pareto_coverage.py` keep them:
//! runs never pooled, the same result read twice counted once (an
//! artifact's zip beside its extracted folder, edited or not), and the
//! helper's own input written by `check --curves PATH`.

use crate::harness::artiscan_in;
use crate::pareto::{frontier, nested};
use crate::results::{verdict, verdicts, zip_artifacts};
use serde_json::{Value, json};
use std::path::Path;

fn stem(i: usize) -> String {
    format!(
        "glm5.1_tp8_conc{i}_offloadnone_fp4_sglang_tp8-ep1-dpafalse_disagg-false_spec-none_conc{i}_mi355x-amds_{i:02}"
    )
}

/// `points` as artifact folders of `dir` (`bmk_agentic_<stem>/<stem>.json`).
fn write_run(dir: &Path, points: &[String]) {
    for (i, text) in points.iter().enumerate() {
        let art = dir.join(format!("bmk_agentic_{}", stem(i)));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join(format!("{}.json", stem(i))), text).unwrap();
    }
}

fn agentic(dir: &Path, inputs: &[&str]) -> Value {
    let vs = verdicts(dir, inputs);
    let v = verdict(&vs, "pareto-agentic");
    assert_eq!(v.len(), 1, "{vs:?}");
    v[0].clone()
}

/// Ten downloads under one folder: each run has its curve, never pooled.
#[test]
fn runs_are_never_pooled() {
    let tmp = tempfile::tempdir().unwrap();
    // Three points in each of two runs: pooled they would make six.
    let pts = frontier(6);
    write_run(&tmp.path().join("runs/1001"), &pts[..3]);
    write_run(&tmp.path().join("runs/1002"), &pts[3..]);
    let vs = verdicts(tmp.path(), &["runs"]);
    let v = verdict(&vs, "pareto-agentic");
    assert!(!v.is_empty(), "{vs:?}");
    for v in &v {
        assert_eq!(v["status"], "fail", "{v}");
        assert!(v["reason"].as_str().unwrap().contains(": 3/5"), "{v}");
    }
}

/// A run as downloaded: each artifact's zip beside its extracted folder.
/// Read twice, each point counts once; a copy edited after download (its
/// values differ from its zip) leaves the curve unverifiable, named.
#[test]
fn a_zip_and_its_extracted_copy_count_once() {
    let tmp = tempfile::tempdir().unwrap();
    write_run(&tmp.path().join("run"), &frontier(4));
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    for e in std::fs::read_dir(tmp.path().join("zips")).unwrap() {
        let e = e.unwrap();
        std::fs::rename(e.path(), tmp.path().join("run").join(e.file_name())).unwrap();
    }
    let v = agentic(tmp.path(), &["run"]);
    assert_eq!(v["status"], "fail", "{v}");
    assert!(v["reason"].as_str().unwrap().contains(": 4/5"), "{v}");
    // The extracted copy of the fourth point edited: 4 points, not 5, and
    // the copy is named.
    let f = tmp
        .path()
        .join(format!("run/bmk_agentic_{}/{}.json", stem(3), stem(3)));
    let text = std::fs::read_to_string(&f)
        .unwrap()
        .replace("800.0", "9000.0");
    std::fs::write(&f, text).unwrap();
    let v = agentic(tmp.path(), &["run"]);
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains(": 4/5"), "{v}");
    assert!(reason.contains("read twice with different values"), "{v}");
    assert!(reason.contains(&format!("bmk_agentic_{}/", stem(3))), "{v}");
}

/// `--curves PATH` writes pareto_coverage.py's input; the verdict records
/// each curve's run, image, percentile and citations.
#[test]
fn curves_are_written_as_the_helper_takes_them() {
    let tmp = tempfile::tempdir().unwrap();
    let mut pts = frontier(5);
    pts.push(nested(64, json!(40.0), Value::Null, 62, 62));
    write_run(&tmp.path().join("run"), &pts);
    let out = tmp.path().join("curves.json");
    let run = artiscan_in(
        tmp.path(),
        &[
            "check",
            "--set",
            "inferencex",
            "--curves",
            "curves.json",
            "run",
        ],
    );
    assert_ne!(run.code, 2, "{}", run.stderr);
    let curves: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let arr = curves.as_array().unwrap();
    assert_eq!(arr.len(), 1, "{curves}");
    assert_eq!(
        arr[0]["key"],
        "zai-org/GLM-5.1-FP4/agentic-coding/mi355x_sglang/fp4/run/p90/lmsysorg/sglang:v0.5.16-rocm700-mi35x",
        "{curves}"
    );
    let points = arr[0]["points"].as_array().unwrap();
    assert_eq!(points.len(), 6, "{curves}");
    assert_eq!(points[0], json!({"x": 5.0, "y": 200.0}));
    assert!(points.contains(&json!({"x": 40.0, "y": null})), "{curves}");
    // Only key and points: the helper reads nothing else.
    assert_eq!(arr[0].as_object().unwrap().len(), 2);
    let v: Vec<Value> = run
        .of_type("verdict")
        .into_iter()
        .filter(|v| v["check"] == "pareto-agentic")
        .collect();
    let c = &v[0]["observed"]["curves"][0];
    assert_eq!(c["run"], "run", "{c}");
    assert_eq!(c["percentile"], "p90", "{c}");
    assert_eq!(c["image"], "lmsysorg/sglang:v0.5.16-rocm700-mi35x", "{c}");
    assert_eq!(c["citations"].as_array().unwrap().len(), 6, "{c}");
}

/// A `server_logs_<stem>` artifact holding its `bmk_agentic_<stem>`'s
/// result is the same point read twice: counted once, and where its values
/// differ it is named (it was a fifth point: a 4/5 curve passed).
#[test]
fn a_server_logs_twin_of_a_result_counts_once() {
    let tmp = tempfile::tempdir().unwrap();
    let pts = frontier(4);
    write_run(&tmp.path().join("run"), &pts);
    let twin = tmp.path().join(format!("run/server_logs_{}", stem(3)));
    std::fs::create_dir_all(&twin).unwrap();
    let edited = pts[3].replace("800.0", "9000.0");
    std::fs::write(twin.join(format!("{}.json", stem(3))), edited).unwrap();
    let v = agentic(tmp.path(), &["run"]);
    let reason = v["reason"].as_str().unwrap();
    assert_eq!(v["status"], "fail", "{v}");
    assert!(reason.contains(": 4/5"), "{v}");
    assert!(reason.contains("read twice with different values"), "{v}");
    assert!(reason.contains(&format!("server_logs_{}/", stem(3))), "{v}");
}
