//! Environment dumps in the forms others write (issue 27): each read
//! completely, or the dump marked partly read so that the absence claim
//! `nextn-fp8-moe-unset` is `unknown`, never `pass`; advice text and quoted
//! source are not settings.

use crate::harness::*;
use serde_json::Value;

/// The server's launch line: a NEXTN draft ran, so the claim applies.
const SERVER: &str = "[2026-10-29 04:10:01] server_args=ServerArgs(model_path='/models/DeepSeek-R1-FP4', tp_size=4, ep_size=4, speculative_algorithm='NEXTN', speculative_num_steps=3, speculative_eagle_topk=1)\n\
[2026-10-29 04:11:40 TP0] Load weight end. elapsed=61.20 s, type=DeepseekV3ForCausalLM, quant=modelopt_fp4, avail mem=97.10 GB, mem usage=42.61 GB.\n";

/// The `nextn-fp8-moe-unset` verdict on a folder holding `server.log` and
/// `files`.
fn nextn(files: &[(&str, &str)]) -> Value {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("server.log"), SERVER).unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let run = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--format",
        "jsonl",
        dir.path().to_str().unwrap(),
    ]);
    run.of_type("verdict")
        .into_iter()
        .find(|v| v["check"] == "nextn-fp8-moe-unset")
        .unwrap_or_else(|| panic!("no verdict: {}\n{}", run.stdout, run.stderr))
}

fn status(v: &Value) -> &str {
    v["status"].as_str().unwrap_or_default()
}

fn fails_citing(files: &[(&str, &str)], member: &str, line: u64) {
    let v = nextn(files);
    assert_eq!(status(&v), "fail", "{v}");
    let cite = v["evidence"][0]["citation"].as_str().unwrap();
    assert!(cite.ends_with(&format!("{member}:{line}")), "{cite}");
}

#[test]
fn pretty_json_with_non_string_values_is_read_to_its_end() {
    let json = "{\n  \"mode\": \"decode\",\n  \"env\": {\n    \"SGLANG_ENABLE_JIT_DEEPGEMM\": \"0\",\n    \"OMP_NUM_THREADS\": 8,\n    \"SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE\": 1,\n    \"no_proxy\": \"localhost\"\n  },\n  \"hostname\": \"gb200-nv-07\"\n}\n";
    fails_citing(
        &[("fingerprint_decode_w0.json", json)],
        "fingerprint_decode_w0.json",
        6,
    );
    // The same dump without the variable, read whole: the claim holds.
    let clean = json.replace("    \"SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE\": 1,\n", "");
    let v = nextn(&[("fingerprint_decode_w0.json", &clean)]);
    assert_eq!(status(&v), "pass", "{v}");
}

#[test]
fn a_cut_json_env_dump_makes_the_absence_unknown() {
    // The file ends inside the "env" object (a cut copy).
    let cut = "{\n  \"env\": {\n    \"SGLANG_ENABLE_JIT_DEEPGEMM\": \"0\",\n    \"NCCL_DEBUG\": \"WARN\",\n";
    let v = nextn(&[("fingerprint_decode_w0.json", cut)]);
    assert_eq!(status(&v), "unknown", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("fingerprint_decode_w0.json (truncated)"),
        "{v}"
    );
    // A value the rule cannot read (a nested object) stops the reading:
    // what follows it is not known.
    let nested = "{\n  \"env\": {\n    \"NCCL_DEBUG\": \"WARN\",\n    \"SGLANG_CFG\": {\"a\": 1},\n    \"HF_HOME\": \"/data/hf\"\n  }\n}\n";
    let v = nextn(&[("fingerprint_decode_w0.json", nested)]);
    assert_eq!(status(&v), "unknown", "{v}");
}

#[test]
fn yaml_env_block_reads_past_a_lower_case_proxy_name() {
    let yaml = "backend:\n  decode_environment:\n    SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK: \"256\"\n    no_proxy: \"localhost,127.0.0.1\"\n    SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: \"1\"\n  sglang_config:\n    decode:\n      tp-size: 4\n";
    fails_citing(&[("config.yaml", yaml)], "config.yaml", 5);
}

#[test]
fn launcher_by_path_docker_env_srun_export_and_traced_assignment_are_settings() {
    fails_citing(
        &[(
            "commands_gb200-nv-07.txt",
            "cd /workspace\nSGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 PYTHONUNBUFFERED=1 /opt/venv/bin/python3 -m sglang.launch_server --model-path /models/DeepSeek-R1-FP4 --tp 4\n",
        )],
        "commands_gb200-nv-07.txt",
        2,
    );
    fails_citing(
        &[(
            "launch.sh.log",
            "+ docker pull lmsysorg/sglang:v0.5.20-cu129\n+ docker run --rm --gpus all --ipc=host -e HF_TOKEN -e SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 lmsysorg/sglang:v0.5.20-cu129 python3 -m sglang.launch_server --port 30000\n",
        )],
        "launch.sh.log",
        2,
    );
    fails_citing(
        &[(
            "sweep_4411.log",
            "2026-10-29 04:01:05 [INFO] Launching decode worker 0\nsrun --nodes=1 --ntasks-per-node=1 --export=ALL,SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 --container-image=/images/sglang.sqsh python3 -m sglang.launch_server\n",
        )],
        "sweep_4411.log",
        2,
    );
    fails_citing(
        &[(
            "job.log",
            "2026-10-29T04:12:33.1234567Z + SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n2026-10-29T04:12:33.1234568Z + export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE\n",
        )],
        "job.log",
        1,
    );
}

#[test]
fn advice_text_and_quoted_source_are_not_settings() {
    let env = "{\"env\": {\"NCCL_DEBUG\": \"WARN\", \"SGLANG_ENABLE_JIT_DEEPGEMM\": \"0\"}}\n";
    let advice = "[2026-10-29 04:10:02 TP0] NVFP4 checkpoint with an FP8 NEXTN draft detected; to load the draft MoE as FP8 please export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 and restart.\n\
/sgl-workspace/sglang/python/sglang/srt/models/deepseek_nextn.py:88: UserWarning: draft MoE kept in NVFP4; export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 to load it as FP8\n\
  warnings.warn(\"draft MoE kept in NVFP4; export SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 to load it as FP8\")\n";
    let v = nextn(&[("fingerprint.json", env), ("warnings.log", advice)]);
    assert_eq!(status(&v), "pass", "{v}");
}

/// A recipe's YAML env block as people write it: lower-case proxy and
/// cache names before the variable asked about. The block ends where its
/// indentation does, so the variable after them is read.
const YAML_RECIPE: &str = "\
name: dsr1-fp4-mtp
backend:
  decode_environment:
    no_proxy: \"localhost,127.0.0.1,.cluster.local\"
    http_proxy: \"http://proxy.internal:3128\"
    hf_home: /data/hf
    # the draft's MoE
    SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: \"1\"
    NCCL_MNNVL_ENABLE: 1
  sglang_config:
    decode:
      tp-size: 4
";

#[test]
fn yaml_env_block_reads_past_lower_case_names_to_its_indentation_end() {
    fails_citing(&[("config.yaml", YAML_RECIPE)], "config.yaml", 8);
    // Without it, read to the block's end: the claim holds.
    let clean = YAML_RECIPE.replace("    SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: \"1\"\n", "");
    let v = nextn(&[("config.yaml", &clean)]);
    assert_eq!(status(&v), "pass", "{v}");
    // The lower-case names are variables of the block.
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.yaml");
    std::fs::write(&path, YAML_RECIPE).unwrap();
    let run = artiscan(&["scan", "--only", "env.var", path.to_str().unwrap()]);
    let names: Vec<String> = run
        .of_type("evidence")
        .iter()
        .map(|e| {
            e["captures"]["name"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect();
    assert_eq!(
        names,
        [
            "no_proxy",
            "http_proxy",
            "hf_home",
            "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE",
            "NCCL_MNNVL_ENABLE"
        ],
        "{}",
        run.stdout
    );
}

/// A fixed-sequence SGLang run whose job log traces the simulated
/// acceptance length being set: `fixed-sequence-no-simulation` fails on it
/// (the trace is a setting), whichever form set -x printed.
#[test]
fn a_traced_simulated_acceptance_length_fails_fixed_sequence_runs() {
    let client = "+ python3 utils/bench_serving/benchmark_serving.py --backend sglang --model /models/DeepSeek-R1-FP4 --dataset-name random --random-input-len 1024 --random-output-len 1024 --num-prompts 640 --max-concurrency 64\n";
    for (trace, line) in [
        (
            "+ SGLANG_SIMULATE_ACC_LEN=3.5\n+ export SGLANG_SIMULATE_ACC_LEN\n",
            1,
        ),
        ("+ export SGLANG_SIMULATE_ACC_LEN=3.5\n", 1),
        ("++ SGLANG_SIMULATE_ACC_LEN=3.5\n", 1),
    ] {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("server.log"), SERVER).unwrap();
        std::fs::write(dir.path().join("job.log"), format!("{trace}{client}")).unwrap();
        let run = artiscan(&[
            "check",
            "--set",
            "inferencex",
            "--format",
            "jsonl",
            dir.path().to_str().unwrap(),
        ]);
        let v = run
            .of_type("verdict")
            .into_iter()
            .find(|v| v["check"] == "fixed-sequence-no-simulation")
            .unwrap_or_else(|| panic!("no verdict: {}\n{}", run.stdout, run.stderr));
        assert_eq!(status(&v), "fail", "{trace:?}: {v}");
        let cite = v["evidence"][0]["citation"].as_str().unwrap();
        assert!(cite.ends_with(&format!("job.log:{line}")), "{cite}");
    }
}

/// A Kubernetes container's `env:` list (`- name:` then `value:`), as
/// `kubectl get pod -o yaml` and Dynamo's k8s deployments print it.
const K8S_POD: &str = "spec:\n  containers:\n  - name: sglang-decode\n    image: lmsysorg/sglang:v0.5.20-cu129\n    env:\n    - name: HF_HOME\n      value: /data/hf\n    - name: SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE\n      value: \"1\"\n    command: [\"python3\", \"-m\", \"sglang.launch_server\"]\n";

#[test]
fn a_kubernetes_env_list_is_read_name_with_value() {
    fails_citing(&[("pod.yaml", K8S_POD)], "pod.yaml", 9);
    // Its value given from a secret is not in the log: unknown, not pass.
    let from = K8S_POD.replace(
        "      value: \"1\"\n",
        "      valueFrom:\n        configMapKeyRef: {name: sglang-env, key: nextn}\n",
    );
    let v = nextn(&[("pod.yaml", &from)]);
    assert_eq!(status(&v), "unknown", "{v}");
}

#[test]
fn yaml_spaced_colon_and_a_value_on_the_next_line_are_read() {
    let spaced = "backend:\n  decode_environment:\n    NCCL_DEBUG: WARN\n    SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE : \"1\"\n  sglang_config:\n    tp-size: 4\n";
    fails_citing(&[("config.yaml", spaced)], "config.yaml", 4);
    let next = "backend:\n  decode_environment:\n    NCCL_DEBUG: WARN\n    SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE:\n      \"1\"\n  sglang_config:\n    tp-size: 4\n";
    fails_citing(&[("config.yaml", next)], "config.yaml", 5);
    // A trailing comment is not part of the value: "0" is off.
    let off = "backend:\n  decode_environment:\n    SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE: \"0\"  # off on GB200\n  sglang_config:\n    tp-size: 4\n";
    let v = nextn(&[("config.yaml", off)]);
    assert_eq!(status(&v), "pass", "{v}");
}

#[test]
fn an_entry_the_reader_cannot_parse_makes_the_absence_unknown() {
    let odd = "backend:\n  decode_environment:\n    NCCL_DEBUG: WARN\n    <<: *common_env\n  sglang_config:\n    tp-size: 4\n";
    let v = nextn(&[("config.yaml", odd)]);
    assert_eq!(status(&v), "unknown", "{v}");
    // The same block without it, read whole: pass.
    let v = nextn(&[("config.yaml", &odd.replace("    <<: *common_env\n", ""))]);
    assert_eq!(status(&v), "pass", "{v}");
}
