//! `artiscan diff RUN_A RUN_B`: only what differs, each side cited; text
//! and JSON Lines (`diff` records in the schema); exit 0 same, 1 differ.

use crate::harness::*;
use std::path::Path;

const BMK: &str = "bmk_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";
const POINT: &str = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.json";

/// A baseline run (the image-same sample) and the same config run again
/// on the next image, measuring a little more: the realistic variation a
/// PR's run shows against the last accepted one.
fn two_runs(dir: &Path) {
    copy_dir(
        &root().join("samples/verifier/runs/image-same"),
        &dir.join("base"),
    );
    copy_dir(
        &root().join("samples/verifier/runs/image-same"),
        &dir.join("pr"),
    );
    let p = dir.join("pr").join(BMK).join(POINT);
    let json = std::fs::read_to_string(&p).unwrap();
    let edited = json
        .replace(
            "v0.5.20-rocm720-mi35x-20260926",
            "v0.5.21-rocm720-mi35x-20261010",
        )
        .replace("\"tput_per_gpu\": 1874.5", "\"tput_per_gpu\": 1921.0");
    assert_ne!(json, edited);
    std::fs::write(p, edited).unwrap();
}

#[test]
fn two_runs_of_one_config_differ_in_image_and_points_only() {
    let tmp = tempfile::tempdir().unwrap();
    two_runs(tmp.path());
    let r = artiscan_in(tmp.path(), &["diff", "base", "pr"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let cited = |side: &str, value: &str| format!("  {side}: {value}  (");
    for want in [
        "run image\n".to_string(),
        cited("A", "lmsysorg/sglang-rocm:v0.5.20-rocm720-mi35x-20260926"),
        cited("B", "lmsysorg/sglang-rocm:v0.5.21-rocm720-mi35x-20261010"),
        format!("(pr/{BMK}/{POINT}:"),
        "point conc=64 tput_per_gpu\n".to_string(),
        cited("A", "1874.5"),
        cited("B", "1921.0"),
    ] {
        assert!(r.stdout.contains(&want), "{want}\n{}", r.stdout);
    }
    // Nothing that is the same is listed: the model, hardware, topology.
    assert!(!r.stdout.contains("run model"), "{}", r.stdout);
    assert!(!r.stdout.contains("run tp"), "{}", r.stdout);
    // JSON Lines: one `diff` record per key (the tools target validates
    // them against the schema).
    let j = artiscan_in(tmp.path(), &["diff", "--json", "base", "pr"]);
    assert_eq!(j.code, 1);
    let recs = j.records();
    let image = recs.iter().find(|r| r["key"] == "run image").unwrap();
    assert_eq!(image["type"], "diff");
    assert_eq!(
        image["b"]["value"],
        "lmsysorg/sglang-rocm:v0.5.21-rocm720-mi35x-20261010"
    );
    assert!(
        image["a"]["citation"]
            .as_str()
            .unwrap()
            .starts_with("base/")
    );
    // A run against itself: nothing differs.
    let same = artiscan_in(tmp.path(), &["diff", "base", "base"]);
    assert_eq!(same.code, 0, "{}", same.stdout);
    assert!(
        same.stdout.starts_with("0 difference(s)"),
        "{}",
        same.stdout
    );
}
