//! Check 2's "same image": the eval job's image read where real runs write
//! it (the eval job's srt-slurm `config.yaml`: `model.container`,
//! `identity.container.image`), compared with the benchmark results'
//! `image` and the PR's (`--param image=REF`) as Docker resolves
//! references, in the downloaded-folder layout and as zips.

use crate::evals::{EXP, lm_eval, meta_env};
use crate::results::{verdict, verdicts, zip_artifacts};
use serde_json::{Value, json};
use std::path::Path;

const BMK: &str =
    "dsv4_tp8_conc64_fp8_sglang_tp8-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";

/// srt-slurm's job config as srtctl saves it into the job folder (the
/// recipe's own text: examples/*.yaml of NVIDIA/srt-slurm, abridged).
fn srt_config(container: &str, identity: &str) -> String {
    format!(
        "name: \"dsv4-fp8-eval\"\n\nmodel:\n  path: \"deepseek-v4\"\n  container: \"{container}\"\n  precision: \"fp8\"\n\nidentity:\n  container:\n    image: \"{identity}\"\n\nresources:\n  gpu_type: \"mi355x\"\n  gpus_per_node: 8\n"
    )
}

/// A run with an eval artifact (lm-eval results, meta_env.json without an
/// image as InferenceX writes it, the eval job's config.yaml) and one
/// benchmark result on `bench`; the folder and the same run zipped.
fn run(eval_image: &str, bench: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let eval = tmp.path().join(format!("run/eval_gsm8k_{EXP}"));
    std::fs::create_dir_all(&eval).unwrap();
    std::fs::write(
        eval.join("results_2026-10-29T05-00-00.json"),
        lm_eval(json!(0.97), json!(0.95), 1319),
    )
    .unwrap();
    std::fs::write(eval.join("meta_env.json"), meta_env(None)).unwrap();
    std::fs::write(eval.join("config.yaml"), srt_config(eval_image, eval_image)).unwrap();
    let art = tmp.path().join(format!("run/bmk_{BMK}"));
    std::fs::create_dir_all(&art).unwrap();
    let point = serde_json::to_string_pretty(&json!({
        "hw": "mi355x", "conc": 64, "image": bench,
        "model": "deepseek-ai/DeepSeek-V4", "framework": "sglang", "precision": "fp8",
        "spec_decoding": "mtp", "disagg": false, "isl": 1024, "osl": 1024, "tp": 8,
        "median_e2el": 12.5, "tput_per_gpu": 1450.0,
    }))
    .unwrap();
    std::fs::write(art.join(format!("{BMK}.json")), point).unwrap();
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    tmp
}

/// eval-same-image on the folder and on the zips: one status.
fn same_image(dir: &Path, args: &[&str]) -> (String, Value) {
    let mut out = Vec::new();
    for layout in ["run", "zips"] {
        let mut a = args.to_vec();
        a.push(layout);
        let vs = verdicts(dir, &a);
        let v = verdict(&vs, "eval-same-image");
        assert_eq!(v.len(), 1, "{layout}: {vs:?}");
        out.push((v[0]["status"].as_str().unwrap().to_string(), v[0].clone()));
    }
    assert_eq!(out[0].0, out[1].0, "folder and zip: {out:?}");
    out.remove(0)
}

#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn the_eval_image_from_its_srt_config_against_the_benchmark() {
    // A real difference: eval on v0.5.15.post1, benchmark on v0.5.16.
    let tmp = run("lmsysorg/sglang:v0.5.15.post1", "lmsysorg/sglang:v0.5.16");
    let (s, v) = same_image(tmp.path(), &[]);
    assert_eq!(s, "fail", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(
        reason.contains("v0.5.15.post1")
            && reason.contains("v0.5.16")
            && reason.contains("config.yaml"),
        "{reason}"
    );
    // docker.io/ is Docker Hub: the same image.
    let tmp = run(
        "docker.io/lmsysorg/sglang:v0.5.16",
        "lmsysorg/sglang:v0.5.16",
    );
    let (s, v) = same_image(tmp.path(), &[]);
    assert_eq!(s, "pass", "{v}");
    // The PR's image (from its diff) differs from what both ran on.
    let (s, v) = same_image(tmp.path(), &["--param", "image=lmsysorg/sglang:v0.5.17"]);
    assert_eq!(s, "fail", "{v}");
    assert!(
        v["reason"].as_str().unwrap().contains("--param image"),
        "{v}"
    );
    let (s, v) = same_image(
        tmp.path(),
        &["--param", "image=index.docker.io/lmsysorg/sglang:v0.5.16"],
    );
    assert_eq!(s, "pass", "{v}");
    // A digest against a tag cannot be told from the text.
    let digest =
        "lmsysorg/sglang@sha256:4f0c8e5a2b1d9c3e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e";
    let tmp = run(digest, "lmsysorg/sglang:v0.5.16");
    let (s, v) = same_image(tmp.path(), &[]);
    assert_eq!(s, "unknown", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("digest"), "{v}");
}

/// A job config that names the image in one place only (`model.container`
/// or `identity.container.image`) is read there; where its two places
/// disagree, the eval's image differs from the benchmark's whichever it
/// ran, so the claim fails.
#[test]
#[ignore = "slow: `cargo test --release -- --include-ignored` runs it, as CI does"]
fn the_eval_image_from_either_place_of_its_srt_config() {
    let bench = "lmsysorg/sglang:v0.5.16";
    let old = "lmsysorg/sglang:v0.5.15.post1";
    let both = srt_config(old, old);
    let identity = format!("identity:\n  container:\n    image: \"{old}\"\n\n");
    let container_only = both.replace(&identity, "");
    let identity_only = both.replace(&format!("  container: \"{old}\"\n"), "");
    let split = srt_config(bench, old);
    for (what, config) in [
        ("model.container only", container_only),
        ("identity.container.image only", identity_only),
        ("both, disagreeing", split),
    ] {
        assert!(config != both || what.starts_with("both"), "{what}");
        let tmp = run(old, bench);
        let eval = tmp.path().join(format!("run/eval_gsm8k_{EXP}"));
        std::fs::write(eval.join("config.yaml"), &config).unwrap();
        std::fs::remove_dir_all(tmp.path().join("zips")).unwrap();
        zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
        let (s, v) = same_image(tmp.path(), &[]);
        assert_eq!(s, "fail", "{what}: {v}");
        let reason = v["reason"].as_str().unwrap();
        assert!(
            reason.contains("v0.5.15.post1") && reason.contains("config.yaml"),
            "{what}: {reason}"
        );
    }
    // Named once, the same as the benchmark's: a pass.
    let tmp = run(bench, bench);
    let eval = tmp.path().join(format!("run/eval_gsm8k_{EXP}"));
    let identity = format!("identity:\n  container:\n    image: \"{bench}\"\n\n");
    std::fs::write(
        eval.join("config.yaml"),
        srt_config(bench, bench).replace(&identity, ""),
    )
    .unwrap();
    std::fs::remove_dir_all(tmp.path().join("zips")).unwrap();
    zip_artifacts(&tmp.path().join("run"), &tmp.path().join("zips"));
    assert_eq!(same_image(tmp.path(), &[]).0, "pass");
}
