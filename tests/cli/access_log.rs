//! Check 9 from the server's own access log (issue 42): uvicorn's
//! `"POST /v1/chat/completions HTTP/1.1" 200` lines, counted per log. Chat
//! requests pass; a log of raw `/v1/completions` only fails where the
//! client says it sent raw text, passes where the client renders the chat
//! template itself (benchmark_serving --use-chat-template still posts to
//! /v1/completions), and is unknown without a client. vLLM's startup line
//! "Detected the chat template content format" is no evidence.

use crate::harness::*;
use serde_json::Value;

/// SGLang's launch line of a speculative (EAGLE) server.
const ARGS: &str = "[2026-11-02 10:01:12] server_args=ServerArgs(model_path='/models/GLM-5.1-FP8', tp_size=8, ep_size=1, speculative_algorithm='EAGLE', speculative_num_steps=5, speculative_eagle_topk=1, speculative_num_draft_tokens=6)\n";

/// InferenceX's fixed-sequence client's print (benchmark.out), raw.
const NAMESPACE_RAW: &str = "Namespace(backend='vllm', base_url='http://0.0.0.0:8888', burstiness=1.0, dataset_name='random', dsv4=False, endpoint='/v1/completions', host='127.0.0.1', ignore_eos=True, max_concurrency=64, model='zai-org/GLM-5.1-FP8', num_prompts=640, port=8000, random_input_len=8192, random_output_len=1024, random_range_ratio=0.8, request_rate=inf, result_dir='/workspace/results', save_result=True, seed=0, tokenizer=None, trust_remote_code=True, use_chat_template=False)\n";

/// A speculative server's log whose requests went to `path` (uvicorn's
/// access lines as SGLang prints them; the real glm5.1 run, June 2026),
/// with vLLM's startup line about the chat template's format in it.
fn server_log(path: &str, n: usize) -> String {
    let mut s = String::from(ARGS);
    s.push_str("(APIServer pid=204529) INFO 06-04 05:11:26 [hf.py:488] Detected the chat template content format to be 'openai'. You can set `--chat-template-content-format` to override this.\n");
    for i in 0..n {
        s.push_str(&format!(
            "[2026-11-02 10:0{}:17] INFO:     127.0.0.1:49792 - \"POST {path} HTTP/1.1\" 200 OK\n",
            5 + i % 4
        ));
    }
    s
}

/// The spec-decode-access-log verdict of a run whose artifact `name`
/// holds `files`.
fn access(name: &str, files: &[(&str, &str)]) -> Value {
    let dir = tempfile::tempdir().expect("tempdir");
    for (f, text) in files {
        let p = dir.path().join("run").join(name).join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let run = dir.path().join("run");
    let out = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--format",
        "jsonl",
        run.to_str().unwrap(),
    ]);
    out.of_type("verdict")
        .into_iter()
        .find(|v| v["check"] == "spec-decode-access-log")
        .unwrap_or_else(|| panic!("no access verdict: {}\n{}", out.stdout, out.stderr))
}

const RF: &str =
    "glm5.1_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02";

fn reason(v: &Value) -> &str {
    v["reason"].as_str().unwrap_or_default()
}

#[test]
fn raw_completions_in_the_access_log_fail_with_a_raw_client() {
    let log = server_log("/v1/completions", 5);
    let v = access(
        &format!("bmk_{RF}"),
        &[("server.log", &log), ("benchmark.out", NAMESPACE_RAW)],
    );
    assert_eq!(v["status"], "fail", "{v}");
    assert!(
        reason(&v).starts_with("the server's access log counts 5 POST /v1/completions and no /v1/chat/completions request"),
        "{v}"
    );
    assert!(
        v["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("server.log:3"),
        "{v}"
    );
}

#[test]
fn raw_completions_pass_where_the_client_renders_the_chat_template() {
    let log = server_log("/v1/completions", 5);
    let chat = NAMESPACE_RAW.replace("use_chat_template=False", "use_chat_template=True");
    let v = access(
        &format!("bmk_{RF}"),
        &[("server.log", &log), ("benchmark.out", &chat)],
    );
    assert_eq!(v["status"], "pass", "{v}");
    assert!(
        reason(&v).contains("renders the chat template itself"),
        "{v}"
    );
}

#[test]
fn chat_requests_pass_and_the_template_format_line_is_no_evidence() {
    let v = access(
        &format!("bmk_{RF}"),
        &[("server.log", &server_log("/v1/chat/completions", 3))],
    );
    assert_eq!(v["status"], "pass", "{v}");
    assert!(
        reason(&v).starts_with("the server's access log counts 3 POST /v1/chat/completions"),
        "{v}"
    );
    // The format line alone, no request: nothing to judge from the log.
    let v = access(&format!("bmk_{RF}"), &[("server.log", &server_log("", 0))]);
    assert_eq!(v["status"], "not_applicable", "{v}");
}

#[test]
fn raw_completions_without_a_client_are_unknown_and_a_twin_does_not_vote() {
    let log = server_log("/v1/completions", 2);
    let v = access(&format!("bmk_{RF}"), &[("server.log", &log)]);
    assert_eq!(v["status"], "unknown", "{v}");
    assert!(reason(&v).contains("--use-chat-template"), "{v}");
    let v = access(&format!("server_logs_{RF}"), &[("server.log", &log)]);
    assert_eq!(v["status"], "not_applicable", "{v}");
    assert!(reason(&v).starts_with("does not vote"), "{v}");
}

/// The agentic client's command as InferenceX writes benchmark_command.txt.
const AGENTIC: &str = "aiperf profile --scenario inferencex-agentx-mvp --url http://localhost:8896 --endpoint /v1/chat/completions --endpoint-type chat --streaming --model zai-org/GLM-5.1-FP8 --concurrency 16\n";

/// A run of a point's agentic_ artifact (chat client, chat requests) and
/// its eval-only server (`eval_server_logs_`: lm_eval's raw completions,
/// no benchmark client): the eval server votes in neither Check 9 claim,
/// so the run's Check 9 is the agentic artifact's pass.
#[test]
fn an_eval_only_server_with_raw_requests_does_not_vote_in_check_9() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = dir.path().join("run");
    let files = [
        (
            format!("agentic_{RF}/server.log"),
            server_log("/v1/chat/completions", 4),
        ),
        (
            format!("agentic_{RF}/benchmark_command.txt"),
            AGENTIC.into(),
        ),
        (
            format!("eval_server_logs_{RF}/server.log"),
            server_log("/v1/completions", 6),
        ),
    ];
    for (f, text) in &files {
        let p = run.join(f);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let out = artiscan(&[
        "check",
        "--set",
        "inferencex",
        "--format",
        "jsonl",
        run.to_str().unwrap(),
    ]);
    let nine: Vec<Value> = out
        .of_type("verdict")
        .into_iter()
        .filter(|v| v["checklist"] == 9)
        .collect();
    let of = |check: &str, art: &str| {
        nine.iter()
            .find(|v| v["check"] == check && v["scope"].as_str().unwrap().ends_with(art))
            .unwrap_or_else(|| panic!("no {check} of {art}: {nine:?}"))["status"]
            .clone()
    };
    let eval = format!("eval_server_logs_{RF}");
    assert_eq!(of("spec-decode-access-log", &eval), "not_applicable");
    assert_eq!(of("spec-decode-chat-template", &eval), "not_applicable");
    let agentic = format!("agentic_{RF}");
    assert_eq!(of("spec-decode-access-log", &agentic), "pass");
    assert_eq!(of("spec-decode-chat-template", &agentic), "pass");
    assert_eq!(of("spec-decode-client-in-run", "run"), "pass");
}
