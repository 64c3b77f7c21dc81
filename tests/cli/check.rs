//! `artiscan check`: verdicts, coverage-aware absence, every-rank claims,
//! parameters, Markdown.

use crate::harness::*;
use serde_json::Value;

const GOOD: &str = "multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.zip";
const BAD: &str = "multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc256_gb200-nv_02.zip";
const TRUNC: &str = "damaged/truncated_multinode_server_logs_dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01.tar.gz";
const NOENV: &str = "server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03.zip";

fn verdict(run: &Run, check: &str) -> Value {
    run.of_type("verdict")
        .into_iter()
        .find(|v| v["check"] == check)
        .unwrap_or_else(|| panic!("no verdict for {check}: {}", run.stdout))
}

#[test]
fn seed_claims_pass_on_a_good_run() {
    let run = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--param",
        "al=3.77",
        &sample(GOOD),
    ]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    for c in [
        "monokernel-every-rank",
        "nextn-fp8-moe-unset",
        "simulated-acceptance",
        "default-dequant-every-rank",
        "no-traceback",
    ] {
        assert_eq!(verdict(&run, c)["status"], "pass", "{c}");
    }
    let v = verdict(&run, "monokernel-every-rank");
    assert_eq!(v["evidence"].as_array().unwrap().len(), 8);
    assert!(v["reason"].as_str().unwrap().contains("TP0-TP7"));
}

#[test]
fn missing_rank_and_forbidden_env_fail_with_citations() {
    let run = artiscan(&["check", "--set", "inferencex", &sample(BAD)]);
    assert_eq!(run.code, 1);
    let v = verdict(&run, "monokernel-every-rank");
    assert_eq!(v["status"], "fail");
    assert_eq!(v["missing"]["ranks"], serde_json::json!([7]));
    assert!(
        v["reason"].as_str().unwrap().contains("TP0-TP6")
            && v["reason"].as_str().unwrap().contains("TP7")
    );
    let v = verdict(&run, "nextn-fp8-moe-unset");
    assert_eq!(v["status"], "fail");
    let first = v["evidence"][0].as_str().unwrap();
    assert!(first.contains("!multinode_server_logs.tar.gz!"));
    let cite = artiscan(&["cite", first, "--expect", "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"]);
    assert_eq!(cite.code, 0, "{}", cite.stderr);
}

#[test]
fn absence_is_unknown_on_partial_coverage_and_without_a_source() {
    let run = artiscan(&["check", "--set", "inferencex", &sample(TRUNC)]);
    let v = verdict(&run, "nextn-fp8-moe-unset");
    assert_eq!(v["status"], "unknown");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("gb200-node01_decode_w0.out")
    );
    assert!(!v["missing"]["members"].as_array().unwrap().is_empty());
    assert_eq!(verdict(&run, "monokernel-every-rank")["status"], "unknown");
    assert_eq!(run.code, 3);
    let run = artiscan(&["check", "--set", "inferencex", &sample(NOENV)]);
    let v = verdict(&run, "nextn-fp8-moe-unset");
    assert_eq!(v["status"], "unknown", "no env dump: never pass");
    assert!(v["reason"].as_str().unwrap().contains("env.var"));
}

#[test]
fn value_equality_with_a_parameter() {
    let run = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--param",
        "al=3.77",
        &sample(GOOD),
    ]);
    assert_eq!(verdict(&run, "simulated-acceptance")["status"], "pass");
    let run = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--param",
        "al=3.5",
        &sample(GOOD),
    ]);
    let v = verdict(&run, "simulated-acceptance");
    assert_eq!(v["status"], "fail");
    assert_eq!(
        v["evidence"].as_array().unwrap().len(),
        1,
        "names the first offending record"
    );
    let run = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--param",
        "al=3.39",
        &sample(BAD),
    ]);
    assert_eq!(verdict(&run, "simulated-acceptance")["status"], "pass");
}

#[test]
fn user_check_file_with_filters_and_counts() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("c.toml");
    std::fs::write(
        &f,
        r#"
[[check]]
id = "draft-extend-routed"
rule = "sglang.monokernel_routing"
where = { phase = { regex = "^draft_" }, tokens = { ge = 1 } }
expect = { count = { min = 8, max = 8 } }
all = { routed = "@total" }

[[check]]
id = "capture-backends"
rule = "sglang.cuda_graph_capture"
where = { event = "begin", backend = { in = ["full", "flashinfer"] } }
expect = "present"

[[check]]
id = "too-many"
rule = "quant.dequant"
expect = { count = { max = 3 } }
"#,
    )
    .unwrap();
    let run = artiscan(&["check", "--checks", f.to_str().unwrap(), &sample(NOENV)]);
    assert_eq!(
        verdict(&run, "draft-extend-routed")["status"],
        "pass",
        "{}",
        run.stdout
    );
    assert_eq!(verdict(&run, "capture-backends")["status"], "pass");
    assert_eq!(verdict(&run, "too-many")["status"], "fail");
    assert_eq!(run.code, 1);
}

#[test]
fn markdown_table_for_a_pr_comment() {
    let run = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--format",
        "markdown",
        &sample(BAD),
    ]);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "| check | artifact | status | reason | evidence |"
    );
    assert_eq!(lines[1], "|---|---|---|---|---|");
    let row = lines
        .iter()
        .find(|l| l.starts_with("| monokernel-every-rank |"))
        .unwrap();
    assert!(row.contains("❌ fail"));
    assert!(
        row.contains("gb200-node01_decode_w0.out:147"),
        "citations as member:line: {row}"
    );
    assert!(!row.contains("samples/artifacts"), "short citations");
}
