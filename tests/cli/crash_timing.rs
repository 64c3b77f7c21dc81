//! Crashes judged by when they happened (issue 42): inside a point's
//! measurement window (its client's own lines) a crash FAILs the crash
//! claims naming the point and time; before the server first served (and
//! it came up), after the window or after shutdown it is named, not
//! counted; a server that never came up measured nothing (FAIL).

use crate::harness::*;
use serde_json::Value;
use std::path::Path;

/// The point's artifact folder as InferenceX's agentic job uploads it.
const RF: &str = "agentic_glm5.1_tp2_conc16_offloadhicache_fp4_sglang_tp2-ep1-dpafalse_disagg-false_spec-none_conc16_mi355x-amds_08";

/// Real SGLang lines (glm5.1 conc16 hicache server.log, InferenceX June
/// 2026): weights loaded, then serving.
const SERVING: &str = "\
[2026-06-03 17:32:28 TP0] Load weight end. elapsed=259.47 s, type=GlmMoeDsaForCausalLM, quant=quark, avail mem=79.62 GB, mem usage=199.52 GB.
[2026-06-03 17:37:40] INFO:     The server is fired up and ready to roll!
[2026-06-03 17:37:40] INFO:     Application startup complete.
";

/// SGLang's KV pool running dry (srt/mem_cache/common.py alloc_token_slots:
/// `logger.error(error_msg)` then `raise RuntimeError(error_msg)`, v0.5.x)
/// and the scheduler dying of it, at `time`.
fn sglang_oom(time: &str) -> String {
    format!(
        "[2026-06-03 {time} TP0] Out of memory. Try to lower your batch size.
Try to allocate 8192 tokens.
[2026-06-03 {time} TP0] Scheduler hit an exception: Traceback (most recent call last):
  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2816, in run_scheduler_process
    scheduler.event_loop_overlap()
  File \"/sgl-workspace/sglang/python/sglang/srt/mem_cache/common.py\", line 312, in alloc_token_slots
    raise RuntimeError(error_msg)
RuntimeError: Out of memory. Try to lower your batch size.
"
    )
}

/// aiperf's own lines in benchmark.log (the same run): the profiling
/// phase 17:44:44.293-18:15:14.295, its epoch stats; `ended` false: the
/// client never finished the phase.
fn aiperf(ended: bool) -> String {
    let mut s = String::from(
        "17:38:01.192 NOTICE   Phase warmup started | target: 16 requests (runner.py:303)
17:44:44.277 NOTICE   Phase warmup complete | completed=16, cancelled=0, errors=0 | elapsed=403.08s (runner.py:662)
17:44:44.293 NOTICE   Phase profiling started | target: 1800.0s duration (runner.py:303)
17:44:59.807 INFO     [realtime 00:15 profiling] rps=0.2 (avg 0.2) tput_in=5121/s tput_out=5/s done=3 ok=3 err=0
",
    );
    if ended {
        s.push_str("18:15:14.295 NOTICE   Phase profiling complete | completed=59, cancelled=16, errors=0 | sessions: completed=0, cancelled=1 | elapsed=1830.00s | grace_period_timeout=True (runner.py:662)
18:15:14.296 INFO     Received CREDIT_PHASE_COMPLETE message, Phase complete: PhaseRecordsStats(phase=CreditPhase.PROFILING, start_ns=1780508684293002574, sent_end_ns=1780510484293119557, requests_end_ns=1780510514295200691, total_expected_requests=None, expected_duration_sec=None, expected_num_sessions=None, expected_grace_period_sec=None, final_requests_sent=None, final_requests_completed=59, final_requests_cancelled=16, final_request_errors=0, final_sent_sessions=None, final_completed_sessions=None, final_cancelled_sessions=None, timeout_triggered=True, grace_period_timeout_triggered=True, was_cancelled=False, records_end_ns=None, success_records=59, error_records=0) (records_manager.py:763)
");
    }
    s
}

/// `check --set inferencex` on a run folder holding the point `RF` with
/// these files: the (no-traceback, no-oom) verdicts of the point.
fn crash_verdicts(dir: &Path, files: &[(&str, &str)]) -> (Value, Value) {
    let point = dir.join("run").join(RF);
    std::fs::create_dir_all(&point).unwrap();
    for (name, text) in files {
        std::fs::write(point.join(name), text).unwrap();
    }
    let run = artiscan_in(dir, &["check", "--set", "inferencex", "run"]);
    let find = |check: &str| {
        run.of_type("verdict")
            .into_iter()
            .find(|v| v["check"] == check && v["scope"].as_str().unwrap().ends_with(RF))
            .unwrap_or_else(|| panic!("no {check} verdict: {}\n{}", run.stdout, run.stderr))
    };
    (find("no-traceback"), find("no-oom"))
}

fn reason(v: &Value) -> &str {
    v["reason"].as_str().unwrap()
}

#[test]
fn an_oom_inside_the_measurement_window_fails_naming_the_point_and_time() {
    let d = tempfile::tempdir().unwrap();
    let log = format!("{SERVING}{}", sglang_oom("17:50:02"));
    let (tb, oom) = crash_verdicts(
        d.path(),
        &[("server.log", &log), ("benchmark.log", &aiperf(true))],
    );
    for v in [&tb, &oom] {
        assert_eq!(v["status"], "fail", "{v}");
        let r = reason(v);
        assert!(r.contains("inside the measurement window of"), "{r}");
        assert!(r.contains(RF), "{r}");
        assert!(r.contains("at 2026-06-03 17:50:02"), "{r}");
    }
}

#[test]
fn a_crash_after_the_window_or_before_the_server_came_up_is_named_not_counted() {
    let d = tempfile::tempdir().unwrap();
    let log = format!("{SERVING}{}", sglang_oom("18:20:31"));
    let (tb, oom) = crash_verdicts(
        d.path(),
        &[("server.log", &log), ("benchmark.log", &aiperf(true))],
    );
    for v in [&tb, &oom] {
        assert_eq!(v["status"], "pass", "{v}");
        assert!(
            reason(v).contains("printed after the client's measured phase ended"),
            "{v}"
        );
    }
    // The same crash while the client never finished: the window is open.
    let d = tempfile::tempdir().unwrap();
    let (tb, oom) = crash_verdicts(
        d.path(),
        &[("server.log", &log), ("benchmark.log", &aiperf(false))],
    );
    assert_eq!(tb["status"], "fail", "{tb}");
    assert_eq!(oom["status"], "fail", "{oom}");
    // A first launch that ran out of memory, then a server that came up
    // and served the whole window.
    let d = tempfile::tempdir().unwrap();
    let log = format!("{}{SERVING}", sglang_oom("17:20:00"));
    let (tb, oom) = crash_verdicts(
        d.path(),
        &[("server.log", &log), ("benchmark.log", &aiperf(true))],
    );
    for v in [&tb, &oom] {
        assert_eq!(v["status"], "pass", "{v}");
        assert!(reason(v).contains("before the server first served"), "{v}");
    }
}

#[test]
fn a_server_that_never_came_up_fails_and_a_server_log_alone_cannot_place_a_crash() {
    // vLLM's engine core dying at start-up (v1/engine/core.py and
    // v1/engine/utils.py wording, 0.10-0.21): no `Application startup
    // complete.`, the point measured nothing.
    let d = tempfile::tempdir().unwrap();
    let log = "\
(EngineCore pid=205186) INFO 06-04 05:06:04 [core.py:112] Initializing a V1 LLM engine (v0.22.0) with config: model='MiniMaxAI/MiniMax-M2.5', speculative_config=None, tokenizer='MiniMaxAI/MiniMax-M2.5', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=196608, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:710] EngineCore failed to start.
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:710] Traceback (most recent call last):
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:710]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 701, in run_engine_core
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:710] torch.OutOfMemoryError: HIP out of memory. Tried to allocate 1.50 GiB.
(APIServer pid=91877) Traceback (most recent call last):
(APIServer pid=91877)   File \"/usr/local/bin/vllm\", line 10, in <module>
(APIServer pid=91877) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
";
    let (tb, oom) = crash_verdicts(d.path(), &[("server.log", log)]);
    for v in [&tb, &oom] {
        assert_eq!(v["status"], "fail", "{v}");
        assert!(reason(v).contains("the point measured nothing"), "{v}");
    }
    // Serving, then a crash, and no client lines beside the log (a
    // `server_logs_` twin): it may have been inside the window, so it
    // counts.
    let d = tempfile::tempdir().unwrap();
    let log = format!("{SERVING}{}", sglang_oom("18:20:31"));
    let (tb, _) = crash_verdicts(d.path(), &[("server.log", &log)]);
    assert_eq!(tb["status"], "fail", "{tb}");
    assert!(reason(&tb).contains("not placeable"), "{tb}");
}

#[test]
fn worker_tracebacks_after_finished_server_process_and_finalizers_at_exit_are_not_crashes() {
    // vLLM: uvicorn's `Finished server process [N]`, then a worker's
    // traceback as the engine tears down; CPython's unraisable hook for a
    // failing `__del__` at interpreter exit.
    let d = tempfile::tempdir().unwrap();
    let log = "\
(EngineCore pid=205186) INFO 06-04 05:06:04 [core.py:112] Initializing a V1 LLM engine (v0.22.0) with config: model='MiniMaxAI/MiniMax-M2.5', speculative_config=None, tokenizer='MiniMaxAI/MiniMax-M2.5', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=196608, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8
(APIServer pid=204529) INFO:     Application startup complete.
(APIServer pid=204529) INFO:     Shutting down
(APIServer pid=204529) INFO:     Finished server process [204529]
(Worker_TP1 pid=204780) ERROR 06-04 05:46:12 [multiproc_executor.py:671] WorkerProc hit an exception.
(Worker_TP1 pid=204780) ERROR 06-04 05:46:12 [multiproc_executor.py:671] Traceback (most recent call last):
(Worker_TP1 pid=204780) ERROR 06-04 05:46:12 [multiproc_executor.py:671]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py\", line 666, in worker_busy_loop
(Worker_TP1 pid=204780) ERROR 06-04 05:46:12 [multiproc_executor.py:671] RuntimeError: cancelled
Exception ignored in: <function ZmqSocket.__del__ at 0x7f3b2c1d8e50>
Traceback (most recent call last):
  File \"/usr/local/lib/python3.12/dist-packages/zmq/sugar/socket.py\", line 185, in __del__
TypeError: 'NoneType' object is not callable
";
    let (tb, _) = crash_verdicts(d.path(), &[("server.log", log)]);
    let r = reason(&tb);
    assert!(r.contains("printed after the server shut down"), "{tb}");
    assert!(r.contains("a finalizer at interpreter exit"), "{tb}");
}

/// A vLLM engine whose weights left no memory for the KV cache
/// (v1/core/kv_cache_utils.py, raised at start-up): the server never came
/// up, so the point measured nothing.
#[test]
fn vllm_no_memory_for_the_cache_blocks_fails_no_oom() {
    let d = tempfile::tempdir().unwrap();
    let log = "\
(EngineCore_DP0 pid=163) INFO 06-04 05:00:04 [core.py:112] Initializing a V1 LLM engine (v0.22.0) with config: model='MiniMaxAI/MiniMax-M2.5', speculative_config=None, tokenizer='MiniMaxAI/MiniMax-M2.5', skip_tokenizer_init=False, tokenizer_mode=auto, revision=None, tokenizer_revision=None, trust_remote_code=True, dtype=torch.bfloat16, max_seq_len=196608, download_dir=None, load_format=auto, tensor_parallel_size=2, pipeline_parallel_size=1, data_parallel_size=1, quantization=fp8
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:708] EngineCore failed to start.
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:708] Traceback (most recent call last):
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:708]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py\", line 689, in check_enough_kv_cache_memory
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:708]     raise ValueError(\"No available memory for the cache blocks. \"
(EngineCore_DP0 pid=163) ERROR 06-04 05:01:02 [core.py:708] ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.
";
    let (_, oom) = crash_verdicts(d.path(), &[("server.log", log)]);
    assert_eq!(oom["status"], "fail", "{oom}");
    assert!(reason(&oom).contains("the point measured nothing"), "{oom}");
    // The quoted `raise` is the source line, not a second event.
    assert_eq!(oom["evidence"].as_array().unwrap().len(), 1, "{oom}");
}

/// srt-slurm's driver log (`%(asctime)s [%(levelname)s] %(message)s`,
/// srtctl/logging_utils.py): workers started, healthy, the benchmark
/// script running (worker_stage.py, benchmark_stage.py wording).
const DRIVER: &str = "\
2026-10-29 04:01:05 [INFO] Starting prefill worker 0 on gb200-nv-02
2026-10-29 04:01:05 [INFO] Starting decode worker 0 on gb200-nv-01
2026-10-29 04:21:39 [INFO] Server is healthy - starting benchmark
2026-10-29 04:21:40 [INFO] Running sa-bench benchmark
";

/// A decode worker killed inside the benchmark (exit 137), and the last
/// lines of its log the driver quotes under `[ERROR]` (processes.py
/// print_failure_details: the traceback's header cut off by the tail).
const WORKER_DIED: &str = "\
2026-10-29 04:31:10 [ERROR] Critical process 'decode_w0' exited with code 137
2026-10-29 04:31:10 [ERROR] Critical process failure detected!
2026-10-29 04:31:10 [ERROR] ============================================================
2026-10-29 04:31:10 [ERROR] FAILURE DETAILS
2026-10-29 04:31:10 [ERROR] 
--- Process: decode_w0 ---
2026-10-29 04:31:10 [ERROR] Exit code: 137
2026-10-29 04:31:10 [ERROR] 
Last 50 lines of log:
2026-10-29 04:31:10 [ERROR]     scheduler.event_loop_overlap()
2026-10-29 04:31:10 [ERROR]   File \"/sgl-workspace/sglang/python/sglang/srt/mem_cache/common.py\", line 312, in alloc_token_slots
2026-10-29 04:31:10 [ERROR]     raise RuntimeError(error_msg)
2026-10-29 04:31:10 [ERROR]   RuntimeError: Out of memory. Try to lower your batch size.
";

/// `check --set inferencex` on a run whose one artifact `multinode_<id>`
/// holds these files: every verdict of that artifact, by check id.
fn job_verdicts(dir: &Path, files: &[(&str, &str)]) -> impl Fn(&str) -> Value + use<> {
    let art = dir
        .join("run")
        .join("multinode_dsr1_fp4_gb200_sglang_disagg");
    std::fs::create_dir_all(&art).unwrap();
    for (name, text) in files {
        std::fs::write(art.join(name), text).unwrap();
    }
    let run = artiscan_in(dir, &["check", "--set", "inferencex", "run"]);
    let vs = run.of_type("verdict");
    move |check: &str| {
        vs.iter()
            .find(|v| {
                v["check"] == check
                    && v["scope"]
                        .as_str()
                        .unwrap()
                        .ends_with("multinode_dsr1_fp4_gb200_sglang_disagg")
            })
            .cloned()
            .unwrap_or_else(|| panic!("no {check} verdict: {}\n{}", run.stdout, run.stderr))
    }
}

#[test]
fn a_driver_log_is_crash_evidence_when_no_server_log_was_kept() {
    // A worker's death inside the benchmark, read from the driver alone.
    let d = tempfile::tempdir().unwrap();
    let log = format!("{DRIVER}{WORKER_DIED}");
    let v = job_verdicts(d.path(), &[("sweep_4411.log", &log)]);
    let abort = v("no-job-abort");
    assert_eq!(abort["status"], "fail", "{abort}");
    assert!(
        reason(&abort).contains("inside the measurement window"),
        "{abort}"
    );
    assert!(
        abort["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("sweep_4411.log:5"),
        "{abort}"
    );
    let oom = v("no-oom");
    assert_eq!(oom["status"], "fail", "{oom}");
    // The same driver, the benchmark completing: runtime evidence that no
    // serving process died (a pass, not "no server log").
    let d = tempfile::tempdir().unwrap();
    let log = format!("{DRIVER}2026-10-29 04:58:02 [INFO] Benchmark completed successfully\n");
    let v = job_verdicts(d.path(), &[("sweep_4411.log", &log)]);
    for id in ["no-job-abort", "no-oom", "no-traceback"] {
        assert_eq!(v(id)["status"], "pass", "{}", v(id));
    }
    // The workers never became healthy: nothing was measured.
    let d = tempfile::tempdir().unwrap();
    let log = format!(
        "{}2026-10-29 04:51:39 [ERROR] Server did not become healthy\n",
        &DRIVER[..DRIVER.find("2026-10-29 04:21:39").unwrap()]
    );
    let v = job_verdicts(d.path(), &[("sweep_4411.log", &log)]);
    let abort = v("no-job-abort");
    assert_eq!(abort["status"], "fail", "{abort}");
    assert!(reason(&abort).contains("measured nothing"), "{abort}");
}

#[test]
fn a_slurm_cancellation_fails_inside_the_window_and_is_named_after_it() {
    // slurmstepd's line (req.c) in the job's output, after the benchmark
    // ended: the measurement is whole.
    let cancel = |at: &str| {
        format!(
            "slurmstepd: error: *** JOB 4411 ON gb200-nv-01 CANCELLED AT 2026-10-29T{at} DUE TO TIME LIMIT ***\n"
        )
    };
    let d = tempfile::tempdir().unwrap();
    let log = format!(
        "{DRIVER}2026-10-29 04:58:02 [INFO] Benchmark completed successfully\n{}",
        cancel("05:00:00")
    );
    let v = job_verdicts(d.path(), &[("sweep_4411.log", &log)]);
    let abort = v("no-job-abort");
    assert_eq!(abort["status"], "pass", "{abort}");
    assert!(
        reason(&abort).contains("printed after the client's measured phase ended"),
        "{abort}"
    );
    // Mid-run: the benchmark never finished.
    let d = tempfile::tempdir().unwrap();
    let log = format!("{DRIVER}{}", cancel("04:40:00"));
    let v = job_verdicts(d.path(), &[("sweep_4411.log", &log)]);
    let abort = v("no-job-abort");
    assert_eq!(abort["status"], "fail", "{abort}");
    assert!(reason(&abort).contains("at 2026-10-29 04:40:00"), "{abort}");
    // scancel (SIGTERM/SIGKILL): req.c prints the line without a reason.
    let d = tempfile::tempdir().unwrap();
    let log = format!(
        "{DRIVER}slurmstepd: error: *** JOB 4411 ON gb200-nv-01 CANCELLED AT 2026-10-29T04:40:00 ***\n"
    );
    let v = job_verdicts(d.path(), &[("sweep_4411.log", &log)]);
    let abort = v("no-job-abort");
    assert_eq!(abort["status"], "fail", "{abort}");
    assert!(
        reason(&abort).contains("inside the measurement window"),
        "{abort}"
    );
}

/// A result JSON as process_agentic_result.py writes it (the real glm5.1
/// conc16 hicache point, abridged to the keys a point needs).
fn result(conc: u32) -> String {
    format!(
        "{{\n  \"hw\": \"mi355x\",\n  \"conc\": {conc},\n  \"image\": \"lmsysorg/sglang-rocm:v0.5.12.post1-rocm720-mi35x-20260529\",\n  \"model\": \"amd/GLM-5.1-MXFP4\",\n  \"framework\": \"sglang\",\n  \"precision\": \"fp4\",\n  \"spec_decoding\": \"none\",\n  \"scenario_type\": \"agentic-coding\",\n  \"tp\": 2,\n  \"num_requests_total\": 57,\n  \"num_requests_successful\": 57,\n  \"p90_e2el\": 140.72892268479998,\n  \"tput_per_gpu\": 6329.964651059201\n}}\n"
    )
}

/// `check --set inferencex` on a run of two points (conc16, conc8), each
/// a `bmk_agentic_<stem>` result, with these `(point, artifact kind, file,
/// text)` logs: the run's crash-logs-kept verdict and the conc8 point's
/// no-traceback verdicts.
fn logs_kept(dir: &Path, logs: &[(u32, &str, &str, &str)]) -> Value {
    let stem = |conc: u32| RF["agentic_".len()..].replace("conc16", &format!("conc{conc}"));
    for conc in [16, 8] {
        let art = dir.join(format!("run/bmk_agentic_{}", stem(conc)));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join(format!("{}.json", stem(conc))), result(conc)).unwrap();
    }
    for (conc, kind, name, text) in logs {
        let art = dir.join(format!("run/{kind}_{}", stem(*conc)));
        std::fs::create_dir_all(&art).unwrap();
        std::fs::write(art.join(name), text).unwrap();
    }
    let run = artiscan_in(dir, &["check", "--set", "inferencex", "run"]);
    run.of_type("verdict")
        .into_iter()
        .find(|v| v["check"] == "crash-logs-kept")
        .unwrap_or_else(|| panic!("no crash-logs-kept verdict: {}\n{}", run.stdout, run.stderr))
}

#[test]
fn a_point_with_neither_server_nor_client_log_is_unknown_for_crashes() {
    // conc16 kept its server log; conc8 kept nothing but its result.
    let d = tempfile::tempdir().unwrap();
    let v = logs_kept(d.path(), &[(16, "server_logs", "server.log", SERVING)]);
    assert_eq!(v["status"], "unknown", "{v}");
    let r = reason(&v);
    assert!(r.starts_with("1 of 2 point(s) have neither"), "{r}");
    assert!(r.contains("bmk_agentic_glm5.1_tp2_conc8_"), "{r}");
    assert!(!r.contains("conc16_offload"), "{r}");
    // conc8's client log alone (aiperf's benchmark.log) is a log of it.
    let d = tempfile::tempdir().unwrap();
    let v = logs_kept(
        d.path(),
        &[
            (16, "server_logs", "server.log", SERVING),
            (8, "agentic", "benchmark.log", &aiperf(true)),
        ],
    );
    assert_eq!(v["status"], "pass", "{v}");
    assert!(reason(&v).starts_with("every one of 2 point(s)"), "{v}");
    // A member that cannot be read could add a log, never take one away:
    // the pass stands beside a corrupt archive.
    let d = tempfile::tempdir().unwrap();
    let v = logs_kept(
        d.path(),
        &[
            (16, "server_logs", "server.log", SERVING),
            (8, "agentic", "benchmark.log", &aiperf(true)),
            (8, "agentic", "aiperf.log.gz", "not gzip at all"),
        ],
    );
    assert_eq!(v["status"], "pass", "{v}");
    // No log at all: both unknown.
    let d = tempfile::tempdir().unwrap();
    let v = logs_kept(d.path(), &[]);
    assert_eq!(v["status"], "unknown", "{v}");
    assert!(reason(&v).starts_with("2 of 2 point(s)"), "{v}");
}

/// A Dynamo vLLM decode worker's log (Dynamo's readable format, UTC), its
/// engine core dying at `time`: handlers.py's and engine_monitor.py's
/// lines, then the worker shutting itself down.
fn dynamo_worker_died(time: &str) -> String {
    format!(
        "2026-10-29T04:05:12.100230Z  INFO main.init: VllmWorker for deepseek-ai/DeepSeek-R1-0528 has been initialized
2026-10-29T{time}.512345Z ERROR handlers.generate: vLLM EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.
2026-10-29T{time}.512901Z  WARN handlers.generate: Initiating Dynamo Runtime shutdown.
"
    )
}

#[test]
fn a_dynamo_worker_whose_engine_died_fails_inside_the_window_and_is_named_after_it() {
    // The driver's benchmark window (04:21:40-04:58:02) and the worker's
    // own log: its death at 04:31:10 spoiled the measurement.
    let d = tempfile::tempdir().unwrap();
    let worker = dynamo_worker_died("04:31:10");
    let v = job_verdicts(
        d.path(),
        &[("sweep_4411.log", DRIVER), ("decode_w0.err", &worker)],
    );
    let abort = v("no-job-abort");
    assert_eq!(abort["status"], "fail", "{abort}");
    assert!(
        reason(&abort).contains("inside the measurement window")
            && reason(&abort).contains("at 2026-10-29 04:31:10"),
        "{abort}"
    );
    assert!(
        abort["evidence"][0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("decode_w0.err:2"),
        "{abort}"
    );
    // The same death after the benchmark completed: named, not counted.
    let d = tempfile::tempdir().unwrap();
    let driver = format!("{DRIVER}2026-10-29 04:58:02 [INFO] Benchmark completed successfully\n");
    let worker = dynamo_worker_died("05:02:00");
    let v = job_verdicts(
        d.path(),
        &[("sweep_4411.log", &driver), ("decode_w0.err", &worker)],
    );
    let abort = v("no-job-abort");
    assert_eq!(abort["status"], "pass", "{abort}");
    assert!(
        reason(&abort).contains("printed after the client's measured phase ended"),
        "{abort}"
    );
}

/// benchmark_serving's own lines (infx/bench_serving/benchmark_serving.py
/// `print("Starting main benchmark run...")`, then its summary), each
/// line led by `stamp(time)`: nothing in benchmark.out, GitHub Actions'
/// `2026-06-03T17:40:00.4410321Z ` in a downloaded job log.
fn bench_serving(stamp: impl Fn(&str) -> String) -> String {
    format!(
        "{}Starting main benchmark run...\n{}============ Serving Benchmark Result ============\n{}Successful requests:                     640\n",
        stamp("17:40:00"),
        stamp("18:10:00"),
        stamp("18:10:00"),
    )
}

#[test]
fn benchmark_serving_start_and_summary_bound_the_window_only_where_stamped() {
    let gh = |t: &str| format!("2026-06-03T{t}.4410321Z ");
    // Stamped: an OOM between start and summary spoils the point ...
    let d = tempfile::tempdir().unwrap();
    let log = format!("{SERVING}{}", sglang_oom("17:50:02"));
    let (tb, oom) = crash_verdicts(
        d.path(),
        &[("server.log", &log), ("job.log", &bench_serving(gh))],
    );
    for v in [&tb, &oom] {
        assert_eq!(v["status"], "fail", "{v}");
        assert!(
            reason(v).contains("inside the measurement window of"),
            "{v}"
        );
    }
    // ... one after the summary is named, not counted.
    let d = tempfile::tempdir().unwrap();
    let late = format!("{SERVING}{}", sglang_oom("18:20:31"));
    let (tb, oom) = crash_verdicts(
        d.path(),
        &[("server.log", &late), ("job.log", &bench_serving(gh))],
    );
    for v in [&tb, &oom] {
        assert_eq!(v["status"], "pass", "{v}");
        assert!(
            reason(v).contains("printed after the client's measured phase ended"),
            "{v}"
        );
    }
    // Unstamped (benchmark.out): the crash cannot be set against the
    // window, so it counts (never a pass on a guess).
    let d = tempfile::tempdir().unwrap();
    let (tb, _) = crash_verdicts(
        d.path(),
        &[
            ("server.log", &late),
            ("benchmark.out", &bench_serving(|_| String::new())),
        ],
    );
    assert_eq!(tb["status"], "fail", "{tb}");
    assert!(reason(&tb).contains("not placeable"), "{tb}");
}
