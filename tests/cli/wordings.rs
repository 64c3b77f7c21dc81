//! Lines as the engines print them, read through the whole binary (issue
//! 27, issue 24's traceback context): the exception a traceback ends in,
//! the quoted source of a raise that is no event, torch 1.x watchdog ranks.

use crate::harness::*;
use serde_json::Value;

fn scan_text(name: &str, text: &str) -> Vec<Value> {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let run = artiscan(&["scan", path.to_str().unwrap()]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    run.of_type("evidence")
}

fn of_rule<'a>(recs: &'a [Value], rule: &str) -> Vec<&'a Value> {
    recs.iter().filter(|r| r["rule"] == rule).collect()
}

/// A vLLM start-up that dies: the engine core's traceback ends in an OOM,
/// the API server's in `RuntimeError: Engine core initialization failed`;
/// a monitor thread's traceback at exit keeps its thread context.
const VLLM_CRASH: &str = "\
(APIServer pid=91877) INFO 10-29 05:00:01 [api_server.py:1839] vLLM API server version 0.11.0
(EngineCore_DP0 pid=92010) ERROR 10-29 05:03:12 [core.py:710] EngineCore failed to start.
(EngineCore_DP0 pid=92010) ERROR 10-29 05:03:12 [core.py:710] Traceback (most recent call last):
(EngineCore_DP0 pid=92010) ERROR 10-29 05:03:12 [core.py:710]   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py\", line 701, in run_engine_core
(EngineCore_DP0 pid=92010) ERROR 10-29 05:03:12 [core.py:710]     engine_core = EngineCoreProc(*args, **kwargs)
(EngineCore_DP0 pid=92010) ERROR 10-29 05:03:12 [core.py:710]                   ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
(EngineCore_DP0 pid=92010) ERROR 10-29 05:03:12 [core.py:710] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.50 GiB. GPU 0 has a total capacity of 178.35 GiB of which 1.02 GiB is free.
(APIServer pid=91877) Traceback (most recent call last):
(APIServer pid=91877)   File \"/usr/local/bin/vllm\", line 10, in <module>
(APIServer pid=91877)     sys.exit(main())
(APIServer pid=91877)   File \"/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/utils.py\", line 781, in wait_for_engine_startup
(APIServer pid=91877)     raise RuntimeError(\"Engine core initialization failed. \"
(APIServer pid=91877) RuntimeError: Engine core initialization failed. See root cause above. Failed core proc(s): {}
Exception in thread Thread-2 (monitor):
Traceback (most recent call last):
  File \"/usr/lib/python3.12/threading.py\", line 1075, in _bootstrap_inner
psutil.NoSuchProcess: process no longer exists (pid=92010)
";

#[test]
fn tracebacks_carry_the_exception_they_end_in() {
    let recs = scan_text("server.log", VLLM_CRASH);
    let tb = of_rule(&recs, "error.traceback");
    assert_eq!(tb.len(), 3, "{tb:?}");
    let caps = |i: usize| &tb[i]["captures"];
    assert_eq!(caps(0)["exception"], "torch.OutOfMemoryError");
    assert!(
        caps(0)["exception_message"]
            .as_str()
            .unwrap()
            .starts_with("CUDA out of memory. Tried to allocate 3.50 GiB."),
        "{}",
        caps(0)
    );
    assert_eq!(caps(0)["context"], "main");
    assert_eq!(tb[0]["rank"]["dp"], 0);
    // Each record still cites its own header line.
    assert!(
        tb[0]["citation"]
            .as_str()
            .unwrap()
            .ends_with("server.log:3")
    );
    assert_eq!(caps(1)["exception"], "RuntimeError");
    assert_eq!(caps(1)["context"], "main");
    assert_eq!(caps(2)["exception"], "psutil.NoSuchProcess");
    assert_eq!(caps(2)["context"], "thread");
    assert_eq!(caps(2)["thread"], "Thread-2 (monitor)");
    // The quoted `raise RuntimeError("Engine core initialization failed. "`
    // under the APIServer prefix is no child failure; the exception line is.
    let child: Vec<u64> = of_rule(&recs, "error.child_failed")
        .iter()
        .map(|r| r["location"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(child, vec![2, 13], "{recs:?}");
}

#[test]
fn a_traceback_cut_short_has_no_exception() {
    let cut = "[2026-10-29 04:30:17 TP3 EP3] Scheduler hit an exception: Traceback (most recent call last):\n  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 2816, in run_scheduler_process\n";
    let recs = scan_text("server.log", cut);
    let tb = of_rule(&recs, "error.traceback");
    assert_eq!(tb.len(), 1);
    assert!(tb[0]["captures"].get("exception").is_none(), "{}", tb[0]);
}

#[test]
fn torch_1_watchdog_lines_have_their_rank() {
    let log = "[E ProcessGroupNCCL.cpp:737] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4411, OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1800322 milliseconds before timing out.\n\
[E ProcessGroupNCCL.cpp:737] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=4411, OpType=ALLGATHER, Timeout(ms)=1800000) ran for 1800329 milliseconds before timing out.\n";
    let recs = scan_text("train.log", log);
    let ranks: Vec<u64> = of_rule(&recs, "error.nccl")
        .iter()
        .map(|r| r["rank"]["rank"].as_u64().unwrap())
        .collect();
    assert_eq!(ranks, vec![1, 3]);
}

/// `then` and `complete` are checked like every pack key: a rule that both
/// waits for a later line and aggregates, or `complete` on a line variant,
/// is an input error naming the file and rule.
#[test]
fn then_and_complete_are_validated() {
    let head = "name = \"x\"\nversion = \"1\"\ndescription = \"x\"\n\n[[rule]]\nid = \"x.tb\"\ndescription = \"x\"\nsource = \"x\"\nthen = '''^(?P<exception>\\w+Error): '''\n";
    let tail = "\n[[rule.variant]]\nregex = '''Traceback'''\n";
    let example = "\n[[rule.example]]\nline = '''Traceback'''\n";
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |name: &str, text: String| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let agg = write(
        "agg.toml",
        format!("{head}aggregate = [\"rank\"]\n{tail}{example}"),
    );
    let run = artiscan(&["packs", "test", &agg]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("agg.toml:6: rule x.tb: a rule with `then` cannot aggregate"),
        "{}",
        run.stderr
    );
    let line = write(
        "line.toml",
        format!("{head}{tail}complete = true\n{example}"),
    );
    let run = artiscan(&["packs", "test", &line]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("`complete` needs a block variant with `end`"),
        "{}",
        run.stderr
    );
    let good = write("good.toml", format!("{head}{tail}{example}"));
    let run = artiscan(&["packs", "test", &good]);
    assert_eq!(run.code, 0, "{}", run.stderr);
}

/// An SGLang NVFP4 start-up on Blackwell: the main process resolves the
/// MoE runner backend and a rank the FP4 GEMM backend; each becomes a
/// `sglang.kernel_backend` record with the backend it names.
#[test]
fn sglang_fp4_kernel_selection_lines_name_the_backend() {
    let log = "\
[2026-10-29 04:10:01] Use flashinfer_trtllm as MoE runner backend on sm100 for DeepseekV3ForCausalLM
[2026-10-29 04:10:01] Use trtllm_mla as attention backend on sm100 for DeepseekV3ForCausalLM
[2026-10-29 04:11:02 TP1] SM120 (Blackwell) detected: auto-selecting fp4-gemm-backend=flashinfer_cudnn
[2026-10-29 04:11:02 TP0] WARNING fp4_utils.py:77: FP4 GEMM backend set to 'flashinfer_trtllm' via --fp4-gemm-backend overrides environment variable SGLANG_FLASHINFER_FP4_GEMM_BACKEND. Using server argument value.
";
    let recs = scan_text("server.log", log);
    let got: Vec<(u64, String, String, String)> = of_rule(&recs, "sglang.kernel_backend")
        .iter()
        .map(|r| {
            let c = &r["captures"];
            (
                r["location"]["line"].as_u64().unwrap(),
                c["layer"].as_str().unwrap().to_string(),
                c["backend"].as_str().unwrap().to_string(),
                c["via"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let want = [
        (1, "moe", "flashinfer_trtllm", "auto"),
        (3, "fp4_gemm", "flashinfer_cudnn", "auto"),
        (4, "fp4_gemm", "flashinfer_trtllm", "arg"),
    ]
    .map(|(l, a, b, c)| (l, a.to_string(), b.to_string(), c.to_string()));
    assert_eq!(got, want, "{recs:?}");
    let gemm = of_rule(&recs, "sglang.kernel_backend")[1];
    assert_eq!(gemm["rank"]["tp"], 1);
    assert_eq!(gemm["captures"]["platform"], "SM120");
}
