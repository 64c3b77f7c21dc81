//! The per-role launch view (issue 42): `launch.role` records, one per
//! serving process launched, with role, engine, command and env prefix,
//! cited to the launch line.

use crate::harness::*;
use serde_json::Value;

fn roles(name: &str, text: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join(name), text).unwrap();
    let run = artiscan(&[
        "scan",
        "--only",
        "launch.role",
        "--format",
        "jsonl",
        dir.path().to_str().unwrap(),
    ]);
    run.of_type("evidence")
}

#[test]
fn each_role_of_a_disaggregated_launch_is_a_cited_record() {
    // srt-slurm worker logs: `Env:` then `Command:` per worker; a Dynamo
    // frontend in the set -x trace.
    let log = "2026-10-29 04:01:05 [INFO] Env: NCCL_IB_DISABLE=0 TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2\n\
2026-10-29 04:01:05 [INFO] Command: trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path /model --served-model-name dsr1 --disaggregation-mode decode --extra-engine-args /logs/trtllm_config_decode.yaml --request-plane nats\n\
2026-10-29 04:01:06 [INFO] Command: trtllm-llmapi-launch python3 -m dynamo.trtllm --model-path /model --served-model-name dsr1 --disaggregation-mode prefill --extra-engine-args /logs/trtllm_config_prefill.yaml --request-plane nats\n\
+ python3 -m dynamo.frontend --http-port 8000 --router-mode kv\n\
+ SGLANG_SIMULATE_ACC_LEN=3.5 python3 -m sglang.launch_server --model-path /models/GLM-5.1-FP8 --tp 8 --speculative-algorithm EAGLE\n";
    let rs = roles("sweep_4411.log", log);
    let got: Vec<(String, String, u64)> = rs
        .iter()
        .map(|r| {
            (
                r["captures"]["role"].as_str().unwrap().to_string(),
                r["captures"]["engine"].as_str().unwrap().to_string(),
                r["location"]["line"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("decode".into(), "dynamo.trtllm".into(), 2),
            ("prefill".into(), "dynamo.trtllm".into(), 3),
            ("frontend".into(), "dynamo.frontend".into(), 4),
            ("agg".into(), "sglang.launch_server".into(), 5),
        ],
        "{rs:?}"
    );
    assert_eq!(
        rs[3]["captures"]["env"], "SGLANG_SIMULATE_ACC_LEN=3.5",
        "{rs:?}"
    );
    assert!(
        rs[0]["captures"]["command"]
            .as_str()
            .unwrap()
            .starts_with("trtllm-llmapi-launch python3 -m dynamo.trtllm")
    );
    // Advice text that names a launch is none.
    let rs = roles(
        "server.log",
        "[2026-10-29 04:10:02 TP0] To disaggregate, relaunch with python3 -m sglang.launch_server --disaggregation-mode prefill\n",
    );
    assert!(rs.is_empty(), "{rs:?}");
}
