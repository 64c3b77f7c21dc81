//! Today's run shapes (issue 42): lines InferenceX's scripts and the engines
//! print in 2026, each read as the verifier reads it.

use crate::harness::*;
use serde_json::Value;

/// SGLang's launch line of a speculative (EAGLE) server.
const ARGS: &str = "[2026-11-02 10:01:12] server_args=ServerArgs(model_path='/models/GLM-5.1-FP8', tp_size=8, ep_size=1, speculative_algorithm='EAGLE', speculative_num_steps=5, speculative_eagle_topk=1, speculative_num_draft_tokens=6)\n";

/// The agentic client's command as InferenceX writes benchmark_command.txt.
const AGENTIC: &str = "aiperf profile --scenario inferencex-agentx-mvp --url http://localhost:8896 --endpoint /v1/chat/completions --endpoint-type chat --streaming --model zai-org/GLM-5.1-FP8 --concurrency 16\n";

/// The header InferenceX's agentic SGLang scripts tee to server.log.
const ACC_HEADER: &str =
    "=== SGLANG_SIMULATE_ACC_* env vars at launch (empty => real verification) ===\n";
const ACC_CLOSE: &str =
    "============================================================================\n";

/// Verdicts of `check --set inferencex` on a folder holding `files`.
fn verdicts(files: &[(&str, &str)], params: &[&str]) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    for (name, text) in files {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let mut args = vec!["check", "--set", "inferencex", "--format", "jsonl"];
    for p in params {
        args.extend(["--param", p]);
    }
    args.push(dir.path().to_str().unwrap());
    let run = artiscan(&args);
    run.of_type("verdict")
}

fn verdict<'a>(vs: &'a [Value], id: &str) -> &'a Value {
    vs.iter()
        .find(|v| v["check"] == id)
        .unwrap_or_else(|| panic!("no verdict {id}: {vs:?}"))
}

fn status(v: &Value) -> &str {
    v["status"].as_str().unwrap_or_default()
}

fn server_log(dump: &str) -> String {
    format!("{dump}Starting SGLang server for MI355X...\n{ARGS}")
}

#[test]
fn launch_env_dump_minus_one_fails_simulated_al() {
    let log = server_log(&format!(
        "{ACC_HEADER}SGLANG_SIMULATE_ACC_LEN=-1\nSGLANG_SIMULATE_ACC_METHOD=match-expected\n{ACC_CLOSE}"
    ));
    let vs = verdicts(
        &[("server.log", &log), ("benchmark_command.txt", AGENTIC)],
        &["al=3.5"],
    );
    let v = verdict(&vs, "agentic-sglang-simulated-al");
    assert_eq!(status(v), "fail", "{v}");
    let cite = v["evidence"][0]["citation"].as_str().unwrap();
    assert!(cite.ends_with("server.log:2"), "{cite}");
    // The golden value in the same dump passes.
    let log = log.replace("=-1\n", "=3.5\n");
    let vs = verdicts(
        &[("server.log", &log), ("benchmark_command.txt", AGENTIC)],
        &["al=3.5"],
    );
    assert_eq!(status(verdict(&vs, "agentic-sglang-simulated-al")), "pass");
}

#[test]
fn an_empty_launch_env_dump_is_real_verification() {
    let log = server_log(&format!("{ACC_HEADER}{ACC_CLOSE}"));
    let vs = verdicts(
        &[("server.log", &log), ("benchmark_command.txt", AGENTIC)],
        &["al=3.5"],
    );
    let v = verdict(&vs, "agentic-sglang-simulated-al");
    assert_eq!(status(v), "fail", "{v}");
}

#[test]
fn a_prefix_dump_is_no_source_for_names_it_does_not_cover() {
    // The SGLANG_SIMULATE_ACC_ dump says nothing about other variables: the
    // Check 13 absence claims stay unknown on it alone.
    let log = server_log(&format!(
        "{ACC_HEADER}SGLANG_SIMULATE_ACC_LEN=3.5\n{ACC_CLOSE}"
    ));
    let vs = verdicts(&[("server.log", &log)], &[]);
    let v = verdict(&vs, "nextn-fp8-moe-unset");
    assert_eq!(status(v), "unknown", "{v}");
    // The DSV4 scripts' SGLANG_* dump covers it: read whole, it answers.
    let dsv4 = "IMAGE=lmsysorg/sglang:deepseek-v4-b300\n=== SGLANG_* env vars at launch ===\nSGLANG_DSV4_FP4_EXPERTS=1\n===================================\n";
    let vs = verdicts(&[("server.log", &server_log(dsv4))], &[]);
    assert_eq!(status(verdict(&vs, "nextn-fp8-moe-unset")), "pass");
    let set = dsv4.replace(
        "SGLANG_DSV4_FP4_EXPERTS=1\n",
        "SGLANG_DSV4_FP4_EXPERTS=1\nSGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n",
    );
    let vs = verdicts(&[("server.log", &server_log(&set))], &[]);
    assert_eq!(status(verdict(&vs, "nextn-fp8-moe-unset")), "fail");
}

/// A DSV4 single-node script's block at the top of server.log: its own
/// settings first (`echo "TP=$TP DP_ATTENTION=$DP_ATTENTION ..."`), then
/// `env | grep -E '^SGLANG_' | sort` under its header.
fn dsv4_launch_block(dump: &str) -> String {
    format!(
        "=== dsv4_fp4_b200 server launch ===\n\
TP=8 DP_ATTENTION=false ISL=8192 CONC=64 PORT=8888\n\
mem_fraction_static=0.90 max_running_requests=512\n\
swa_full_tokens_ratio=0.1 cuda_graph_max_bs=512\n\
=== SGLANG_* env vars at launch ===\n\
{dump}===================================\n"
    )
}

#[test]
fn the_dsv4_settings_preamble_is_not_env_and_its_sglang_dump_answers_check_13() {
    let unset = dsv4_launch_block("SGLANG_DSV4_FP4_EXPERTS=1\n");
    let vs = verdicts(&[("server.log", &server_log(&unset))], &[]);
    let v = verdict(&vs, "nextn-fp8-moe-unset");
    assert_eq!(status(v), "pass", "{v}");
    let set = dsv4_launch_block("SGLANG_DSV4_FP4_EXPERTS=1\nSGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n");
    let vs = verdicts(&[("server.log", &server_log(&set))], &[]);
    let v = verdict(&vs, "nextn-fp8-moe-unset");
    assert_eq!(status(v), "fail", "{v}");
    assert!(
        v["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("server.log:7"),
        "{v}"
    );
}

/// A TRT-LLM worker's speculative config (extra LLM API options).
const TRT_CONFIG: &str = "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 3\nenable_attention_dp: false\n";

#[test]
fn trtllm_refusing_the_forced_count_fails_check_11() {
    let log = "+ export TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2.5\n[12/06/2026-10:14:02] [TRT-LLM] [RANK 0] [W] TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS must be a valid integer, got '2.5'. Using default value 0.\n";
    let files = [
        ("extra_llm_api_config.yaml", TRT_CONFIG),
        ("server.log", log),
        ("benchmark_command.txt", AGENTIC),
    ];
    let vs = verdicts(&files, &["al=3.5"]);
    // The configured value alone looks right ...
    assert_eq!(status(verdict(&vs, "agentic-trtllm-forced-al")), "pass");
    // ... but TRT-LLM refused it: forcing was off.
    let v = verdict(&vs, "agentic-trtllm-forcing-took-effect");
    assert_eq!(status(v), "fail", "{v}");
    assert!(
        v["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("server.log:2"),
        "{v}"
    );
    // The float path's wording too.
    let float = log.replace(
        "must be a valid integer, got '2.5'. Using default value 0.",
        "must be a valid number (int or float), got '2,5'. Using default value 0.0.",
    );
    let files = [
        ("extra_llm_api_config.yaml", TRT_CONFIG),
        ("server.log", float.as_str()),
        ("benchmark_command.txt", AGENTIC),
    ];
    let vs = verdicts(&files, &["al=3.5"]);
    assert_eq!(
        status(verdict(&vs, "agentic-trtllm-forcing-took-effect")),
        "fail"
    );
}

#[test]
fn sglang_refusing_simulated_acceptance_fails_check_11() {
    let log = format!(
        "{ACC_HEADER}SGLANG_SIMULATE_ACC_LEN=3.5\n{ACC_CLOSE}{ARGS}Traceback (most recent call last):\n  File \"/sgl-workspace/sglang/python/sglang/srt/speculative/dspark_worker_v2.py\", line 412, in __init__\n    raise ValueError(\nValueError: SGLANG_SIMULATE_ACC_LEN>1.0 with DSpark requires a verify-all schedule (SGLANG_RAGGED_VERIFY_MODE=static, or =compact with the uninitialized/flat SPS table): a constant simulated correct_len>0 can exceed a trimmed request's verify budget (cap-accept, or compact with a profiled SPS table) and break the cutoff/cap accounting.\n"
    );
    let vs = verdicts(
        &[("server.log", &log), ("benchmark_command.txt", AGENTIC)],
        &["al=3.5"],
    );
    let v = verdict(&vs, "sglang-simulation-not-refused");
    assert_eq!(status(v), "fail", "{v}");
    let log = log.replace(
        "SGLANG_SIMULATE_ACC_LEN>1.0 with DSpark requires a verify-all schedule (SGLANG_RAGGED_VERIFY_MODE=static, or =compact with the uninitialized/flat SPS table): a constant simulated correct_len>0 can exceed a trimmed request's verify budget (cap-accept, or compact with a profiled SPS table) and break the cutoff/cap accounting.",
        "SGLANG_SPEC_TEACHER_FORCING and SGLANG_SIMULATE_ACC_LEN both override acceptance and cannot be enabled together.",
    );
    let vs = verdicts(
        &[("server.log", &log), ("benchmark_command.txt", AGENTIC)],
        &["al=3.5"],
    );
    assert_eq!(
        status(verdict(&vs, "sglang-simulation-not-refused")),
        "fail"
    );
}

/// The fixed-sequence client's Namespace print (benchmark.out).
const NAMESPACE_RAW: &str = "Namespace(backend='vllm', base_url='http://0.0.0.0:8888', burstiness=1.0, dataset_name='random', dsv4=False, endpoint='/v1/completions', host='127.0.0.1', ignore_eos=True, max_concurrency=64, model='zai-org/GLM-5.1-FP8', num_prompts=640, port=8000, random_input_len=8192, random_output_len=1024, random_range_ratio=0.8, request_rate=inf, result_dir='/workspace/results', save_result=True, seed=0, tokenizer=None, trust_remote_code=True, use_chat_template=False)\n";

#[test]
fn declare_x_unquoted_is_a_setting() {
    let log = ARGS.to_string();
    let trace = "+ declare -x SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1\n+ python3 -m sglang.launch_server --model-path /models/GLM-5.1-FP8 --tp 8\n";
    let vs = verdicts(&[("server.log", &log), ("launch.sh.log", trace)], &[]);
    let v = verdict(&vs, "nextn-fp8-moe-unset");
    assert_eq!(status(v), "fail", "{v}");
}

/// SGLang reads the NEXTN MoE switch as `EnvBool` (srt/environ.py: the
/// lower-cased value in true/1/yes/y enables it, false/0/no/n does not): a
/// case the check's list missed would be a false PASS.
#[test]
fn the_nextn_moe_switch_is_read_as_sglang_envbool_reads_it() {
    for (value, want) in [
        ("1", "fail"),
        ("yes", "fail"),
        ("Y", "fail"),
        ("TRUE", "fail"),
        ("0", "pass"),
        ("false", "pass"),
        ("No", "pass"),
    ] {
        let trace = format!(
            "+ declare -x SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE={value}\n+ python3 -m sglang.launch_server --model-path /models/GLM-5.1-FP8 --tp 8\n"
        );
        let vs = verdicts(&[("server.log", ARGS), ("launch.sh.log", &trace)], &[]);
        let v = verdict(&vs, "nextn-fp8-moe-unset");
        assert_eq!(status(v), want, "{value}: {v}");
    }
}

#[test]
fn python_float_forms_of_the_simulated_length_are_read() {
    // A fixed-sequence run: simulation is a benchmark hack in any form
    // Python's float() reads; -1 is off.
    for (value, want) in [
        ("+3.5", "fail"),
        (".35e1", "fail"),
        ("3.", "fail"),
        ("-1", "pass"),
    ] {
        let job = format!(
            "+ export SGLANG_SIMULATE_ACC_LEN={value}\n+ python3 -m infx.bench_serving.benchmark_serving --model zai-org/GLM-5.1-FP8 --backend vllm --base-url http://0.0.0.0:8888 --dataset-name random --use-chat-template\n"
        );
        let vs = verdicts(&[("server.log", ARGS), ("job.log", &job)], &[]);
        let v = verdict(&vs, "fixed-sequence-no-simulation");
        assert_eq!(status(v), want, "{value}: {v}");
    }
}

#[test]
fn an_env_prefix_on_the_eval_client_does_not_exempt_the_server() {
    let log = server_log(&format!(
        "{ACC_HEADER}SGLANG_SIMULATE_ACC_LEN=-1\n{ACC_CLOSE}"
    ));
    let job = "+ EVAL_ONLY=true python3 -m lm_eval --model local-chat-completions --tasks gsm8k --model_args base_url=http://0.0.0.0:8896/v1/chat/completions\n";
    let vs = verdicts(
        &[
            ("server.log", &log),
            ("benchmark_command.txt", AGENTIC),
            ("job.log", job),
        ],
        &["al=3.5"],
    );
    let v = verdict(&vs, "agentic-sglang-simulated-al");
    assert_eq!(status(v), "fail", "{v}");
}

#[test]
fn check_9_reads_the_namespace_print_the_module_launch_and_use_chat_template() {
    let vs = verdicts(
        &[("server.log", ARGS), ("benchmark.out", NAMESPACE_RAW)],
        &[],
    );
    let v = verdict(&vs, "spec-decode-chat-template");
    assert_eq!(status(v), "fail", "{v}");
    assert!(
        v["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("benchmark.out:1"),
        "{v}"
    );
    // --use-chat-template renders the template on the client, still posting
    // to /v1/completions: chat.
    let chat = NAMESPACE_RAW.replace("use_chat_template=False", "use_chat_template=True");
    let vs = verdicts(&[("server.log", ARGS), ("benchmark.out", &chat)], &[]);
    assert_eq!(status(verdict(&vs, "spec-decode-chat-template")), "pass");
    // The client launched as a module, without the flag.
    let job = "+ python3 -m infx.bench_serving.benchmark_serving --model zai-org/GLM-5.1-FP8 --backend vllm --base-url http://0.0.0.0:8888 --dataset-name random --random-input-len 8192\n";
    let vs = verdicts(&[("server.log", ARGS), ("job.log", job)], &[]);
    assert_eq!(status(verdict(&vs, "spec-decode-chat-template")), "fail");
    // srt-slurm's recipe passes it to the benchmark as an env var.
    let cfg = "benchmark:\n  type: sa-bench\n  isl: 8192\n  osl: 1024\n  env:\n    USE_CHAT_TEMPLATE: 'false'\n";
    let vs = verdicts(&[("server.log", ARGS), ("config.yaml", cfg)], &[]);
    let v = verdict(&vs, "spec-decode-chat-template");
    assert_eq!(status(v), "fail", "{v}");
}

/// An SGLang server log: launch, a request served, then what `tail` adds.
fn sglang_log(middle: &str, tail: &str) -> String {
    format!(
        "[2026-06-03 17:40:02] server_args=ServerArgs(model_path='/models/GLM-5.1-FP4', tp_size=2, ep_size=1)\n\
[2026-06-03 17:47:10 TP0] Load weight end. elapsed=301.20 s, type=GlmMoeDsaForCausalLM, quant=mxfp4, avail mem=120.10 GB, mem usage=160.61 GB.\n\
[2026-06-03 17:47:42] INFO:     Application startup complete.\n\
{middle}\
[2026-06-03 17:48:02] INFO:     The server is fired up and ready to roll!\n\
[2026-06-03 17:50:01] INFO:     127.0.0.1:54596 - \"POST /v1/chat/completions HTTP/1.1\" 200 OK\n\
{tail}"
    )
}

fn no_traceback(log: &str) -> Value {
    let vs = verdicts(&[("server.log", log)], &[]);
    verdict(&vs, "no-traceback").clone()
}

#[test]
fn a_startup_health_probe_before_serving_is_noted_not_a_crash() {
    let probe = "[2026-06-03 17:47:52] Health check failed. Server couldn't get a response from detokenizer for last 20 seconds. tic start time: 17:47:32. last_heartbeat time: 17:47:31\n\
[2026-06-03 17:47:52] ERROR:    Exception in ASGI application\n\
Traceback (most recent call last):\n\
  File \"/sgl-workspace/sglang/python/sglang/srt/managers/tokenizer_manager.py\", line 1022, in _wait_one_response\n\
    raise ValueError(\n\
ValueError: Request is disconnected from the client side (type 3). Abort request obj.rid='HEALTH_CHECK_1749031672.47'\n";
    // Under uvicorn's ASGI header it is one request; printed bare, the
    // timing says so.
    let bare = probe.replace(
        "[2026-06-03 17:47:52] ERROR:    Exception in ASGI application\n",
        "",
    );
    let v = no_traceback(&sglang_log(&bare, ""));
    assert_eq!(status(&v), "pass", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .contains("startup health check"),
        "{v}"
    );
    // The same probe with no serving after it: the server never came up.
    let v = no_traceback(&format!(
        "[2026-06-03 17:40:02] server_args=ServerArgs(model_path='/models/GLM-5.1-FP4', tp_size=2)\n{bare}"
    ));
    assert_eq!(status(&v), "fail", "{v}");
}

#[test]
fn tracebacks_after_shutdown_and_at_exit_are_noted_a_crash_while_serving_fails() {
    let after = "(APIServer pid=204529) INFO:     Shutting down\n\
(APIServer pid=204529) INFO:     Waiting for application shutdown.\n\
(APIServer pid=204529) INFO:     Application shutdown complete.\n\
[2026-06-04 07:40:11,204] LMCache ERROR: Traceback (most recent call last):\n\
  File \"/opt/venv/lib/python3.12/site-packages/lmcache/v1/cache_engine.py\", line 902, in close\n\
RuntimeError: Event loop is closed\n\
Exception ignored in: <function ZmqSocket.__del__ at 0x7f3b2c1d8e50>\n\
Traceback (most recent call last):\n\
  File \"/usr/local/lib/python3.12/dist-packages/zmq/sugar/socket.py\", line 185, in __del__\n\
TypeError: 'NoneType' object is not callable\n";
    let v = no_traceback(&sglang_log("", after));
    assert_eq!(status(&v), "pass", "{v}");
    let reason = v["reason"].as_str().unwrap();
    assert!(reason.contains("after the server shut down"), "{v}");
    assert!(reason.contains("interpreter exit"), "{v}");
    // A scheduler crash while serving fails, OOM included.
    let crash = "[2026-06-03 18:02:45 TP0] Scheduler hit an exception: Traceback (most recent call last):\n\
  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2816, in run_scheduler_process\n\
RuntimeError: Out of memory. Try to lower your batch size.\n";
    let vs = verdicts(&[("server.log", &sglang_log("", crash))], &[]);
    assert_eq!(status(verdict(&vs, "no-traceback")), "fail");
    let oom = verdict(&vs, "no-oom");
    assert_eq!(status(oom), "fail", "{oom}");
}

#[test]
fn sglang_kv_pool_oom_fails_no_oom() {
    let line = "[2026-06-03 18:02:45 TP0] Out of memory. Try to lower your batch size.\n";
    let vs = verdicts(&[("server.log", &sglang_log("", line))], &[]);
    let v = verdict(&vs, "no-oom");
    assert_eq!(status(v), "fail", "{v}");
}

/// srt-slurm's driver log: the worker it started.
const SRT_DRIVER: &str = "2026-10-29 04:01:02 [INFO] Env: NCCL_IB_DISABLE=0 SGLANG_SIMULATE_ACC_LEN=3.5\n2026-10-29 04:01:05 [INFO] Starting decode worker 0 on gb200-nv-01\n";

#[test]
fn check_10_reads_srt_setup_scripts_and_says_when_it_cannot_decide() {
    let worker = format!(
        "Running setup script: /configs/install_mooncake.sh (fallback /configs/patches/install_mooncake.sh)\n+ pip install mooncake-transfer-engine==0.3.7\n{ARGS}"
    );
    let vs = verdicts(
        &[
            ("sweep_4411.log", SRT_DRIVER),
            ("gb200-nv-01_decode_w0.out", &worker),
        ],
        &[],
    );
    let v = verdict(&vs, "no-engine-patch");
    assert_eq!(status(v), "fail", "{v}");
    assert!(
        v["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("gb200-nv-01_decode_w0.out:1"),
        "{v}"
    );
    // Worker logs read whole, no setup script and no patch trace: runtime
    // evidence that none ran; the diff is still the verifier's to read.
    let vs = verdicts(
        &[
            ("sweep_4411.log", SRT_DRIVER),
            ("gb200-nv-01_decode_w0.out", ARGS),
        ],
        &[],
    );
    let v = verdict(&vs, "no-engine-patch");
    assert_eq!(status(v), "pass", "{v}");
    assert!(
        v["reason"].as_str().unwrap().contains("inline patches"),
        "{v}"
    );
    // A single-node server log: no launch output at all.
    let vs = verdicts(&[("server.log", ARGS)], &[]);
    let v = verdict(&vs, "no-engine-patch");
    assert_eq!(status(v), "unknown", "{v}");
    assert!(
        v["reason"]
            .as_str()
            .unwrap()
            .starts_with("not decidable from the artifacts"),
        "{v}"
    );
}

#[test]
fn a_kubernetes_env_item_and_a_next_line_value_carry_the_simulated_length() {
    let pod = "    env:\n    - name: SGLANG_SIMULATE_ACC_LEN\n      value: \"-1\"\n    - name: SGLANG_SIMULATE_ACC_METHOD\n      value: match-expected\n";
    let vs = verdicts(
        &[
            ("server.log", ARGS),
            ("pod.yaml", pod),
            ("benchmark_command.txt", AGENTIC),
        ],
        &["al=3.5"],
    );
    let v = verdict(&vs, "agentic-sglang-simulated-al");
    assert_eq!(status(v), "fail", "{v}");
    let golden = pod.replace("\"-1\"", "\"3.5\"");
    let vs = verdicts(
        &[
            ("server.log", ARGS),
            ("pod.yaml", &golden),
            ("benchmark_command.txt", AGENTIC),
        ],
        &["al=3.5"],
    );
    assert_eq!(status(verdict(&vs, "agentic-sglang-simulated-al")), "pass");
    // A value on the next line is the value, not an empty one.
    let cfg = "backend:\n  decode_environment:\n    SGLANG_SIMULATE_ACC_LEN:\n      \"3.5\"\n  sglang_config:\n    tp-size: 8\n";
    let vs = verdicts(
        &[
            ("server.log", ARGS),
            ("config.yaml", cfg),
            ("benchmark_command.txt", AGENTIC),
        ],
        &["al=3.5"],
    );
    let v = verdict(&vs, "agentic-sglang-simulated-al");
    assert_eq!(status(v), "pass", "{v}");
}

/// Verdicts of `check --set inferencex` on a run folder holding artifact
/// folders, each with its files.
fn run_verdicts(artifacts: &[(&str, &[(&str, &str)])]) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run");
    for (name, files) in artifacts {
        for (f, text) in *files {
            let p = run.join(name).join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
    }
    let out = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--format",
        "jsonl",
        run.to_str().unwrap(),
    ]);
    out.of_type("verdict")
}

/// The Check 9 verdicts (`check` id, scope's last component, status).
fn check_9(vs: &[Value]) -> Vec<(String, String, String)> {
    vs.iter()
        .filter(|v| v["checklist"] == 9)
        .map(|v| {
            let scope = v["scope"].as_str().unwrap_or_default();
            (
                v["check"].as_str().unwrap_or_default().to_string(),
                scope.rsplit('/').next().unwrap_or_default().to_string(),
                status(v).to_string(),
            )
        })
        .collect()
}

const RF_MTP: &str =
    "glm5.1_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02";

#[test]
fn check_9_judges_spec_decode_artifacts_only_and_twins_do_not_vote() {
    // A mixed MTP+STP sweep: the STP sibling's raw client is not Check 9's.
    let stp_args = ARGS.replace(
        ", speculative_algorithm='EAGLE', speculative_num_steps=5, speculative_eagle_topk=1, speculative_num_draft_tokens=6",
        ", speculative_algorithm=None",
    );
    let chat = NAMESPACE_RAW.replace("use_chat_template=False", "use_chat_template=True");
    let vs = run_verdicts(&[
        ("mtp", &[("server.log", ARGS), ("benchmark.out", &chat)]),
        (
            "stp",
            &[("server.log", &stp_args), ("benchmark.out", NAMESPACE_RAW)],
        ),
    ]);
    let got = check_9(&vs);
    assert!(
        got.iter()
            .all(|(_, _, s)| s == "pass" || s == "not_applicable"),
        "{got:?}"
    );
    assert!(
        got.contains(&(
            "spec-decode-chat-template".into(),
            "stp".into(),
            "not_applicable".into()
        )),
        "{got:?}"
    );
    // The MTP point's raw client still fails.
    let vs = run_verdicts(&[(
        "mtp",
        &[("server.log", ARGS), ("benchmark.out", NAMESPACE_RAW)],
    )]);
    assert!(
        check_9(&vs)
            .iter()
            .any(|(c, _, s)| c == "spec-decode-chat-template" && s == "fail")
    );
    // A server_logs_ twin holds no client: the agentic_ artifact answers.
    let agentic = format!("agentic_{RF_MTP}");
    let twin = format!("server_logs_{RF_MTP}");
    let vs = run_verdicts(&[
        (
            &agentic,
            &[("server.log", ARGS), ("benchmark_command.txt", AGENTIC)],
        ),
        (&twin, &[("server.log", ARGS)]),
    ]);
    let got = check_9(&vs);
    assert!(
        got.iter()
            .all(|(_, _, s)| s == "pass" || s == "not_applicable"),
        "{got:?}"
    );
    // A twin that holds a raw client is judged: it fails.
    let vs = run_verdicts(&[
        (
            &agentic,
            &[("server.log", ARGS), ("benchmark_command.txt", AGENTIC)],
        ),
        (
            &twin,
            &[("server.log", ARGS), ("benchmark.out", NAMESPACE_RAW)],
        ),
    ]);
    let got = check_9(&vs);
    assert!(
        got.iter()
            .any(|(c, a, s)| c == "spec-decode-chat-template" && *a == twin && s == "fail"),
        "{got:?}"
    );
    // The twin alone: the run holds no client, so Check 9 is unknown.
    let vs = run_verdicts(&[(&twin, &[("server.log", ARGS)])]);
    let got = check_9(&vs);
    assert!(
        got.contains(&(
            "spec-decode-client-in-run".into(),
            "run".into(),
            "unknown".into()
        )),
        "{got:?}"
    );
}

#[test]
fn a_client_only_in_a_non_speculative_sibling_does_not_answer_check_9_for_the_run() {
    // Mixed MTP+STP sweep: the STP point kept its (chat) client, the MTP
    // point none. The run's speculative points have no client: unknown,
    // not a pass on the sibling's client.
    let stp_args = ARGS.replace(
        ", speculative_algorithm='EAGLE', speculative_num_steps=5, speculative_eagle_topk=1, speculative_num_draft_tokens=6",
        ", speculative_algorithm=None",
    );
    let chat = NAMESPACE_RAW.replace("use_chat_template=False", "use_chat_template=True");
    let vs = run_verdicts(&[
        ("mtp", &[("server.log", ARGS)]),
        (
            "stp",
            &[("server.log", &stp_args), ("benchmark.out", &chat)],
        ),
    ]);
    let got = check_9(&vs);
    assert!(
        got.contains(&(
            "spec-decode-client-in-run".into(),
            "run".into(),
            "unknown".into()
        )),
        "{got:?}"
    );
    // The client beside the MTP server answers.
    let vs = run_verdicts(&[
        ("mtp", &[("server.log", ARGS), ("benchmark.out", &chat)]),
        ("stp", &[("server.log", &stp_args)]),
    ]);
    let got = check_9(&vs);
    assert!(
        got.contains(&(
            "spec-decode-client-in-run".into(),
            "run".into(),
            "pass".into()
        )),
        "{got:?}"
    );
}
