//! The InferenceX verifier's Checks 2 (same image), 8, 9, 10, 11 and 13 on
//! the samples of samples/make_verifier_samples.py: a pass, a fail and an
//! unknown each, the same as downloaded folders and as zips; checklist
//! numbers, `--params FILE`, and `--format verdicts`. ATOM's forced
//! acceptance (Check 11) on runs written here.

use crate::harness::*;
use serde_json::Value;
use std::collections::BTreeMap;

const SGL: &str = "glm5.1_tp8_conc16_offloadnone_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02";
const SGL_BAD: &str = "glm5.1_tp8_conc32_offloadnone_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc32_mi355x-amds_04";
const VLLM: &str =
    "qwen3.5_fp8_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc64_b200-nv_03";
const TRT: &str =
    "dsr1_fp4_dynamo-trt_tp4-pp1-dcp1-pcp1-ep4-dpatrue_disagg-true_spec-mtp_conc64_gb200-nv_01";
const TRT_BAD: &str =
    "dsr1_fp4_dynamo-trt_tp4-pp1-dcp1-pcp1-ep4-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_02";
const IMG: &str =
    "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03";

/// (artifact name without `.zip`, check) → verdict.
type Verdicts = BTreeMap<(String, String), Value>;

fn judge(layout: &str, run: &str, extra: &[&str]) -> (Run, Verdicts) {
    let path = format!("samples/verifier/{layout}/{run}");
    let mut args = vec!["check", "--set", "inferencex", "--format", "jsonl"];
    args.extend_from_slice(extra);
    args.push(&path);
    let r = artiscan(&args);
    assert!(r.code != 2, "{}\n{}", r.stdout, r.stderr);
    let mut out = Verdicts::new();
    for v in r.of_type("verdict") {
        let scope = v["scope"].as_str().unwrap();
        let art = scope.rsplit('/').next().unwrap().trim_end_matches(".zip");
        out.insert(
            (art.to_string(), v["check"].as_str().unwrap().to_string()),
            v,
        );
    }
    (r, out)
}

/// Judges a run both as folders and as zips, checks that they agree, and
/// returns the folders' verdicts.
fn both(run: &str, extra: &[&str]) -> Verdicts {
    let (_, folders) = judge("runs", run, extra);
    let (_, zips) = judge("zips", run, extra);
    let statuses = |m: &Verdicts| -> Vec<(String, String, String)> {
        m.iter()
            .map(|((a, c), v)| (a.clone(), c.clone(), v["status"].as_str().unwrap().into()))
            .collect()
    };
    assert_eq!(
        statuses(&folders),
        statuses(&zips),
        "{run}: folders and zips differ"
    );
    assert!(!folders.is_empty());
    folders
}

fn get<'a>(m: &'a Verdicts, kind_rf: &str, check: &str) -> &'a Value {
    m.get(&(kind_rf.to_string(), check.to_string()))
        .unwrap_or_else(|| panic!("no verdict {check} on {kind_rf}: {:?}", m.keys()))
}

fn status(m: &Verdicts, kind_rf: &str, check: &str) -> String {
    get(m, kind_rf, check)["status"]
        .as_str()
        .unwrap()
        .to_string()
}

fn reason(m: &Verdicts, kind_rf: &str, check: &str) -> String {
    get(m, kind_rf, check)["reason"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn pass_run_passes_each_check_with_its_number() {
    let m = both("pass", &["--param", "al=3.39"]);
    let sgl = format!("agentic_{SGL}");
    let trt = format!("multinode_server_logs_{TRT}");
    for c in [
        "no-architecture-override",
        "spec-decode-chat-template",
        "no-engine-patch",
        "agentic-sglang-simulated-al",
        "nextn-fp8-moe-unset",
        "glm-nextn-moe-ptpc-unset",
        "draft-quantization-flag",
    ] {
        assert_eq!(status(&m, &sgl, c), "pass", "{c}: {}", reason(&m, &sgl, c));
    }
    // SGLang's default json_model_override_args '{}' is no override.
    assert!(reason(&m, &sgl, "no-architecture-override").contains("every member was read"));
    // NEXTN at 0 is not enabled.
    assert_eq!(get(&m, &sgl, "nextn-fp8-moe-unset")["checklist"], 13);
    assert_eq!(get(&m, &sgl, "no-engine-patch")["checklist"], 10);
    assert_eq!(get(&m, &sgl, "spec-decode-chat-template")["checklist"], 9);
    assert_eq!(
        get(&m, &sgl, "agentic-sglang-simulated-al")["checklist"],
        11
    );
    // Fixed-sequence checks do not speak about an agentic run.
    assert_eq!(
        status(&m, &sgl, "fixed-sequence-no-simulation"),
        "not_applicable"
    );
    // publish_events_and_metrics applies to Dynamo TRT-LLM only.
    assert_eq!(status(&m, &sgl, "publish-events-enabled"), "not_applicable");
    assert_eq!(status(&m, &trt, "publish-events-enabled"), "pass");
    assert_eq!(get(&m, &trt, "publish-events-enabled")["checklist"], 8);
    // TRT-LLM's 2.39 + 1 is the golden 3.39.
    assert_eq!(
        status(&m, &trt, "agentic-trtllm-forced-al"),
        "pass",
        "{}",
        reason(&m, &trt, "agentic-trtllm-forced-al")
    );
}

#[test]
fn a_bar_not_given_is_unknown() {
    let m = both("pass", &[]);
    let sgl = format!("agentic_{SGL}");
    let v = get(&m, &sgl, "agentic-sglang-simulated-al");
    assert_eq!(v["status"], "unknown");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("no bar given: --param al")
    );
    assert_eq!(
        status(
            &m,
            &format!("multinode_server_logs_{TRT}"),
            "agentic-trtllm-forced-al"
        ),
        "unknown"
    );
}

#[test]
fn fail_run_fails_with_citations_and_quotes_an_override() {
    let m = both("fail", &["--param", "al=3.5"]);
    let sgl = format!("agentic_{SGL_BAD}");
    // An override is quoted for the reviewer, not judged.
    let v = get(&m, &sgl, "no-architecture-override");
    assert_eq!(v["status"], "unknown");
    assert!(
        v["reason"].as_str().unwrap().contains("index_topk_freq"),
        "{v}"
    );
    assert!(v["reason"].as_str().unwrap().contains("reviewer"), "{v}");
    // git apply in the setup output.
    let v = get(&m, &sgl, "no-engine-patch");
    assert_eq!(v["status"], "fail", "{v}");
    let cite = v["evidence"][0]["citation"].as_str().unwrap();
    assert!(cite.ends_with("srt-setup.log:3"), "{cite}");
    let c = artiscan(&["cite", cite, "--expect", "git apply"]);
    assert_eq!(c.code, 0, "{}", c.stderr);
    // SGLANG_SIMULATE_ACC_LEN=-1 is off: real acceptance on an agentic run.
    let r = reason(&m, &sgl, "agentic-sglang-simulated-al");
    assert_eq!(
        status(&m, &sgl, "agentic-sglang-simulated-al"),
        "fail",
        "{r}"
    );
    assert!(r.contains("\"-1\""), "{r}");
    // NEXTN at 1.
    assert_eq!(status(&m, &sgl, "nextn-fp8-moe-unset"), "fail");
    // vLLM MTP benchmarked through raw completions, simulating on a
    // fixed-sequence run.
    let vl = format!("server_logs_{VLLM}");
    let v = get(&m, &vl, "spec-decode-chat-template");
    assert_eq!(v["status"], "fail", "{v}");
    assert!(
        v["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("benchmark.log:3")
    );
    assert_eq!(status(&m, &vl, "fixed-sequence-no-simulation"), "fail");
    assert_eq!(
        status(&m, &vl, "agentic-vllm-synthetic-al"),
        "not_applicable"
    );
    // publish_events_and_metrics: false (and the worker launched without it).
    let trt = format!("multinode_server_logs_{TRT_BAD}");
    let v = get(&m, &trt, "publish-events-enabled");
    assert_eq!(v["status"], "fail", "{v}");
    let cites: Vec<&str> = v["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["citation"].as_str().unwrap())
        .collect();
    assert!(
        cites.iter().any(|c| c.ends_with("!./config.yaml:6")),
        "{cites:?}"
    );
    assert!(
        cites.iter().any(|c| c.ends_with("!./sweep_8812345.log:1")),
        "{cites:?}"
    );
    // TRT-LLM 2.5 is AL 3.5: passes for golden 3.5, fails for 3.39.
    assert_eq!(status(&m, &trt, "agentic-trtllm-forced-al"), "pass");
    let m = both("fail", &["--param", "al=3.39"]);
    let r = reason(&m, &trt, "agentic-trtllm-forced-al");
    assert_eq!(status(&m, &trt, "agentic-trtllm-forced-al"), "fail", "{r}");
    assert!(r.contains("2.5") && r.contains("3.39"), "{r}");
}

#[test]
fn cut_downloads_and_missing_sources_are_unknown() {
    let m = both("cut", &["--param", "al=3.39"]);
    let trt = format!("multinode_server_logs_{TRT}");
    for c in ["publish-events-enabled", "agentic-trtllm-forced-al"] {
        let v = get(&m, &trt, c);
        assert_eq!(v["status"], "unknown", "{c}: {v}");
        assert!(
            !v["missing"]["members"].as_array().unwrap().is_empty(),
            "{v}"
        );
    }
    // A server log alone: the client ran elsewhere (a server-log twin does
    // not vote on Check 9; the run's artifacts that hold a client answer),
    // no env dump was read.
    let sgl = format!("server_logs_{SGL}");
    let r = reason(&m, &sgl, "spec-decode-chat-template");
    assert_eq!(
        status(&m, &sgl, "spec-decode-chat-template"),
        "not_applicable",
        "{r}"
    );
    assert!(
        r.contains("does not vote") && r.contains("bench.client"),
        "{r}"
    );
    assert_eq!(status(&m, &sgl, "nextn-fp8-moe-unset"), "unknown");
    // Agentic or not cannot be told from it: Check 11 does not judge it.
    assert_eq!(
        status(&m, &sgl, "agentic-sglang-simulated-al"),
        "not_applicable"
    );
}

#[test]
fn params_file_gives_bars_and_the_command_line_wins() {
    let dir = std::env::temp_dir().join(format!("artiscan-verifier-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("golden.toml");
    std::fs::write(
        &f,
        "# golden AL, qwen3.5 thinking_on, 3 draft tokens\nal = 3.39\n",
    )
    .unwrap();
    let f = f.to_str().unwrap();
    let (r, m) = judge("runs", "pass", &["--params", f]);
    // No verdict fails; the run holds no evals and no result points, so
    // Checks 2 and 14 could not be verified: 3.
    assert_eq!(r.code, 3, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(
        status(&m, &format!("agentic_{SGL}"), "agentic-sglang-simulated-al"),
        "pass"
    );
    let (_, m) = judge("runs", "pass", &["--params", f, "--param", "al=3.5"]);
    assert_eq!(
        status(&m, &format!("agentic_{SGL}"), "agentic-sglang-simulated-al"),
        "fail"
    );
    // An unknown name is refused, as with --param.
    std::fs::write(dir.join("bad.toml"), "alpha = 1\n").unwrap();
    let bad = dir.join("bad.toml");
    let r = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--params",
        bad.to_str().unwrap(),
        "samples/verifier/runs/pass",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("alpha"), "{}", r.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn verdict_rows_in_the_verifiers_shape() {
    let r = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--param",
        "al=3.5",
        "--format",
        "verdicts",
        "samples/verifier/runs/fail",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let md = &r.stdout;
    // One row per checklist number, ordered by number.
    for n in [8, 9, 10, 11, 13] {
        assert_eq!(md.matches(&format!(" Check {n} (")).count(), 1, "{n}: {md}");
    }
    assert!(
        md.contains("❌ Check 10 (No engine patches): FAIL — `no-engine-patch`: "),
        "{md}"
    );
    assert!(
        md.contains("❌ Check 8 (No architecture hacks): FAIL — `publish-events-enabled`"),
        "{md}"
    );
    assert!(md.contains("❌ Check 9 (Chat template): FAIL"), "{md}");
    assert!(md.contains("❌ Check 13 (Draft as shipped): FAIL"), "{md}");
    let row9 = md.find("Check 9 (").unwrap();
    let row10 = md.find("Check 10 (").unwrap();
    assert!(row9 < row10, "{md}");
    // The row's citation closes it, and reopens.
    let line = md[row10..].lines().next().unwrap();
    let cite = line.rsplit_once(" (`").unwrap().1.trim_end_matches("`)");
    assert!(cite.ends_with("srt-setup.log:3"), "{md}");
    assert_eq!(artiscan(&["cite", cite]).code, 0);
    // The pass run: no row fails on evidence; what the download lacks
    // (evals, result points) is said, and the exit code is 3, not 1.
    let r = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--param",
        "al=3.39",
        "--format",
        "verdicts",
        "samples/verifier/zips/pass",
    ]);
    assert_eq!(r.code, 3, "{}", r.stdout);
    for line in r.stdout.lines().filter(|l| l.contains(": FAIL — ")) {
        assert!(line.contains("FAIL — could not be verified: "), "{line}");
    }
    assert!(
        r.stdout.contains("❌ Check 2 (Evals pass): FAIL — could not be verified: evals not in the download: fetch with `gh run download RUN -p 'eval_*'`"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("✅ Check 11 (Golden simulated AL): PASS"),
        "{}",
        r.stdout
    );
}

#[test]
fn list_shows_the_checklist_numbers() {
    let r = artiscan(&["check", "--list", "--set", "inferencex"]);
    assert_eq!(r.code, 0);
    assert!(
        r.stdout.contains("nextn-fp8-moe-unset (verifier check 13)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("agentic-trtllm-forced-al (verifier check 11)")
    );
    assert!(
        r.stdout
            .contains("publish-events-enabled (verifier check 8)")
    );
    // What no artifact holds is said.
    assert!(r.stdout.contains("waiver"));
    assert!(r.stdout.contains("PR diff"));
}

fn citations(v: &Value) -> Vec<String> {
    v["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["citation"].as_str().unwrap().to_string())
        .collect()
}

/// Check 2, same image: the eval's image equal to its configuration's
/// benchmark image passes citing both, another image fails quoting both,
/// none recorded (meta_env.json as InferenceX writes it today) is unknown;
/// a run without evals is not applicable. One verdict per run, the same as
/// folders and as zips.
#[test]
fn eval_image_against_the_benchmark_image() {
    let point = format!("bmk_{IMG}/{IMG}.json:16");
    let meta = format!("eval_gsm8k_{IMG}/meta_env.json:1");
    let m = both("image-same", &[]);
    let v = get(&m, "image-same", "eval-same-image");
    assert_eq!(v["status"], "pass", "{v}");
    assert_eq!(v["checklist"], 2);
    let cites = citations(v);
    assert!(cites.iter().any(|c| c.ends_with(&meta)), "{cites:?}");
    assert!(cites.iter().any(|c| c.ends_with(&point)), "{cites:?}");
    assert!(
        cites
            .iter()
            .any(|c| c.ends_with("eval_results_all/agg_eval_all.json:13")),
        "{cites:?}"
    );
    // The agg row's upper-cased hw is the same configuration.
    let configs = v["observed"]["configs"].as_array().unwrap();
    assert_eq!(configs.len(), 2, "{v}");
    assert!(configs.iter().all(|c| c["status"] == "pass"), "{v}");
    assert_eq!(
        v["observed"]["image"],
        serde_json::json!(["lmsysorg/sglang-rocm:v0.5.20-rocm720-mi35x-20260926"])
    );
    // The benchmark point's line reopens.
    let c = artiscan(&[
        "cite",
        cites.iter().find(|c| c.ends_with(&point)).unwrap(),
        "--expect",
        "tput_per_gpu",
    ]);
    assert_eq!(c.code, 0, "{}", c.stderr);

    let m = both("image-other", &[]);
    let v = get(&m, "image-other", "eval-same-image");
    assert_eq!(v["status"], "fail", "{v}");
    let r = v["reason"].as_str().unwrap();
    assert!(
        r.contains("v0.5.21-rocm720-mi35x-20261015")
            && r.contains("v0.5.20-rocm720-mi35x-20260926"),
        "{r}"
    );
    let cites = citations(v);
    assert!(cites.iter().any(|c| c.ends_with(&meta)), "{cites:?}");
    assert!(cites.iter().any(|c| c.ends_with(&point)), "{cites:?}");

    let m = both("image-none", &[]);
    let v = get(&m, "image-none", "eval-same-image");
    assert_eq!(v["status"], "unknown", "{v}");
    let r = v["reason"].as_str().unwrap();
    assert!(r.contains("no artifact records the eval's image"), "{r}");
    assert!(citations(v).iter().any(|c| c.ends_with(&meta)), "{v}");

    // No evals in the run: nothing to compare.
    let m = both("pass", &["--param", "al=3.39"]);
    assert_eq!(status(&m, "pass", "eval-same-image"), "not_applicable");
}

/// A run folder of one ATOM artifact: the launch command as InferenceX's
/// write_command leaves it in server_command.txt, the client's command,
/// and a set -x trace of the environment.
fn atom_run(command: &str, client: &str, env: &str) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let art = tmp.path().join(
        "run/agentic_kimik3_fp4_atom_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-dspark_conc4_mi355x-amds_01",
    );
    std::fs::create_dir_all(&art).unwrap();
    std::fs::write(art.join("server_command.txt"), format!("{command}\n")).unwrap();
    std::fs::write(art.join("benchmark_command.txt"), format!("{client}\n")).unwrap();
    std::fs::write(art.join("setup.log"), format!("{env}\n")).unwrap();
    tmp
}

const ATOM_LEN: &str = "python -m atom.entrypoints.openai_server --model /models/Kimi-K3 --tensor-parallel-size 8 --method dspark --draft-model Inferact/Kimi-K3-DSpark --num-speculative-tokens 2 --spec-decode-acceptance-length 2.51";
const ATOM_RATE: &str = "python -m atom.entrypoints.openai_server --model /models/GLM-5.2 --tensor-parallel-size 8 --method mtp --num-speculative-tokens 3 --spec-decode-acceptance-rate 0.6633";
const ATOM_REAL: &str = "python -m atom.entrypoints.openai_server --model /models/Kimi-K3 --tensor-parallel-size 8 --method dspark --num-speculative-tokens 2";
const AGENTIC: &str = "aiperf profile --scenario inferencex-agentx-mvp --url http://localhost:8000 --endpoint /v1/chat/completions --endpoint-type chat --model m --concurrency 4";
const FIXED: &str = "+ python3 /workspace/utils/bench_serving/benchmark_serving.py --model m --backend vllm --use-chat-template --max-concurrency 4";

fn atom_verdicts(tmp: &tempfile::TempDir, al: &str) -> Verdicts {
    let r = crate::harness::artiscan_in(
        tmp.path(),
        &[
            "check",
            "--set",
            "inferencex",
            "--format",
            "jsonl",
            "--param",
            al,
            "run",
        ],
    );
    assert!(r.code != 2, "{}\n{}", r.stdout, r.stderr);
    let mut out = Verdicts::new();
    for v in r.of_type("verdict") {
        out.insert(
            ("atom".to_string(), v["check"].as_str().unwrap().to_string()),
            v,
        );
    }
    out
}

/// ATOM forces acceptance with `--spec-decode-acceptance-length` (judged
/// against --param al), or the rate form (quoted, unknown); a launch without
/// either on an agentic run is real acceptance (fail); on a fixed-sequence
/// run the flag fails; `EVAL_ONLY=true` (any case) is an eval-only server,
/// `EVAL_ONLY=1` is not (srt-slurm and InferenceX's scripts test "true").
#[test]
fn atom_forced_acceptance_for_check_11() {
    let run = atom_run(ATOM_LEN, AGENTIC, "+ export EVAL_ONLY=false");
    let m = atom_verdicts(&run, "al=2.51");
    let v = get(&m, "atom", "agentic-atom-forced-al");
    assert_eq!(v["status"], "pass", "{v}");
    assert_eq!(v["checklist"], 11);
    assert!(citations(v)[0].ends_with("/server_command.txt:1"), "{v}");
    assert_eq!(
        status(&m, "atom", "agentic-atom-acceptance-rate-form"),
        "pass"
    );
    assert_eq!(
        status(&m, "atom", "fixed-sequence-no-atom-forced-acceptance"),
        "not_applicable"
    );
    let m = atom_verdicts(&run, "al=3.75");
    let v = get(&m, "atom", "agentic-atom-forced-al");
    assert_eq!(v["status"], "fail", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("2.51"), "{v}");

    // Real acceptance on an agentic run.
    let run = atom_run(ATOM_REAL, AGENTIC, "+ export EVAL_ONLY=1");
    let m = atom_verdicts(&run, "al=2.51");
    let v = get(&m, "atom", "agentic-atom-forced-al");
    assert_eq!(v["status"], "fail", "EVAL_ONLY=1 is not eval-only: {v}");
    // EVAL_ONLY=True is.
    let run = atom_run(ATOM_REAL, AGENTIC, "+ export EVAL_ONLY=True");
    let m = atom_verdicts(&run, "al=2.51");
    let v = get(&m, "atom", "agentic-atom-forced-al");
    assert_eq!(v["status"], "not_applicable", "{v}");
    assert!(v["reason"].as_str().unwrap().contains("eval-only"), "{v}");

    // The rate form: quoted for the reviewer.
    let run = atom_run(ATOM_RATE, AGENTIC, "+ export EVAL_ONLY=false");
    let m = atom_verdicts(&run, "al=2.99");
    assert_eq!(
        status(&m, "atom", "agentic-atom-forced-al"),
        "not_applicable"
    );
    let v = get(&m, "atom", "agentic-atom-acceptance-rate-form");
    assert_eq!(v["status"], "unknown", "{v}");
    let r = v["reason"].as_str().unwrap();
    assert!(r.contains("0.6633") && r.contains("golden AL"), "{r}");

    // Forcing acceptance on a fixed-sequence run.
    let run = atom_run(ATOM_LEN, FIXED, "+ export EVAL_ONLY=false");
    let m = atom_verdicts(&run, "al=2.51");
    let v = get(&m, "atom", "fixed-sequence-no-atom-forced-acceptance");
    assert_eq!(v["status"], "fail", "{v}");
    assert_eq!(
        status(&m, "atom", "agentic-atom-forced-al"),
        "not_applicable"
    );
}

/// Check 13 reads the two draft-MoE flags as SGLang's EnvBool does:
/// lowercased, `true`/`1`/`yes`/`y` (and `on`) enable them; any other value
/// leaves the default, off. A falsy value in another case is no FAIL.
#[test]
fn check_13_reads_the_flag_as_sglang_does() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("agentic_{SGL}");
    let from = root().join("samples/verifier/runs/pass").join(&name);
    for (value, want) in [
        ("0", "pass"),
        ("fALSE", "pass"),
        ("OFF", "pass"),
        ("No", "pass"),
        ("1", "fail"),
        ("TRUE", "fail"),
        ("Yes", "fail"),
        ("y", "fail"),
    ] {
        let folder = dir.path().join(value).join(&name);
        copy_dir(&from, &folder);
        let setup = folder.join("srt-setup.log");
        let text = std::fs::read_to_string(&setup).unwrap();
        let set = "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=0";
        assert!(text.contains(set), "the sample sets the flag to 0");
        let changed = text.replace(set, &format!("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE={value}"));
        std::fs::write(&setup, changed).unwrap();
        let r = artiscan_in(
            dir.path(),
            &["check", "--set", "inferencex", "--format", "jsonl", value],
        );
        let v = r
            .of_type("verdict")
            .into_iter()
            .find(|v| v["check"] == "nextn-fp8-moe-unset")
            .unwrap_or_else(|| panic!("no verdict for {value}: {}", r.stdout));
        assert_eq!(v["status"], want, "{value}: {v}");
    }
}
