#!/usr/bin/env python3
"""Regenerate samples/verifier/: small runs for the InferenceX verifier's
Checks 2 (same image), 8, 9, 10, 11 and 13 (tests/cli/verifier.rs reads
them).

Run from the repository root:

    python3 samples/make_verifier_samples.py

Each run is written twice: as folders the way `gh run download RUN -D DIR`
lays artifacts out (`runs/<run>/<artifact>/...`), and as the artifact zips
the API serves (`zips/<run>/<artifact>.zip`); both must give the same
verdicts. Everything is deterministic (fixed zip dates, tar mtimes, gzip
mtime 0), so running it twice gives byte-identical files.

Line shapes are the engines' and tools' own (see context.md and the rules'
`source` in patterns/config.toml): SGLang `server_args=ServerArgs(...)`,
vLLM `non-default args: {...}` and `Initializing a V1 LLM engine`, srt-slurm
config.yaml and `Command:` lines, Dynamo's worker config, aiperf's one-line
command in benchmark_command.txt (copied from a real InferenceX agentic run,
model and port changed), InferenceX benchmark_serving.py under `set -x`.
"""

import gzip
import io
import json
import os
import shutil
import tarfile
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "verifier")
ZIP_DT = (2026, 10, 29, 4, 30, 0)
MTIME = 1793248200  # 2026-10-29 04:30:00 UTC

RF_SGL = "glm5.1_tp8_conc16_offloadnone_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc16_mi355x-amds_02"
RF_SGL_BAD = "glm5.1_tp8_conc32_offloadnone_fp8_sglang_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc32_mi355x-amds_04"
RF_VLLM = "qwen3.5_fp8_vllm_tp8-pp1-dcp1-pcp1-ep1-dpafalse_disagg-false_spec-mtp_conc64_b200-nv_03"
RF_TRT = "dsr1_fp4_dynamo-trt_tp4-pp1-dcp1-pcp1-ep4-dpatrue_disagg-true_spec-mtp_conc64_gb200-nv_01"
RF_TRT_BAD = "dsr1_fp4_dynamo-trt_tp4-pp1-dcp1-pcp1-ep4-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_02"

RF_IMG = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03"
IMAGE = "lmsysorg/sglang-rocm:v0.5.20-rocm720-mi35x-20260926"
IMAGE_OTHER = "lmsysorg/sglang-rocm:v0.5.21-rocm720-mi35x-20261015"

AIPERF = (
    "aiperf profile --scenario inferencex-agentx-mvp --url http://localhost:{port} "
    "--endpoint /v1/chat/completions --endpoint-type chat --streaming --model {model} "
    "--concurrency {conc} --benchmark-duration 1800 --random-seed 42 --failed-request-threshold 0.10 "
    "--trajectory-start-min-ratio 0.25 --trajectory-start-max-ratio 0.75 --use-server-token-count "
    "--tokenizer-trust-remote-code --num-dataset-entries 472 --slice-duration 1.0 "
    "--output-artifact-dir /workspace/results/aiperf_artifacts "
    "--public-dataset semianalysis_cc_traces_weka_with_subagents_060226_256k\n"
)


def sglang_server_log(override, spec=True):
    """An SGLang GLM-5.1 start-up with EAGLE (MTP) and a few decode batches."""
    algo = "'EAGLE'" if spec else "None"
    lines = [
        "[2026-10-29 04:10:01] server_args=ServerArgs(model_path='/models/GLM-5.1-FP8', "
        "tokenizer_path='/models/GLM-5.1-FP8', tp_size=8, ep_size=1, dp_size=1, pp_size=1, "
        "enable_dp_attention=False, quantization='fp8', kv_cache_dtype='auto', "
        f"json_model_override_args='{override}', speculative_algorithm={algo}, "
        "speculative_num_steps=3, speculative_eagle_topk=1, speculative_num_draft_tokens=4, "
        "speculative_draft_model_quantization=None, port=8896)",
        "[2026-10-29 04:10:05 TP0] Init torch distributed begin.",
    ]
    for tp in range(8):
        lines.append(
            f"[2026-10-29 04:12:{tp:02d} TP{tp}] Load weight end. elapsed=120.51 s, "
            "type=Glm4MoeForCausalLM, quant=fp8, avail mem=60.12 GB, mem usage=70.20 GB."
        )
    lines.append("[2026-10-29 04:14:00] The server is fired up and ready to roll!")
    for i in range(3):
        lines.append(
            f"[2026-10-29 04:20:{i:02d} TP0] Decode batch, #running-req: 13, #token: 81234, "
            "token usage: 0.41, accept len: 3.39, accept rate: 0.55, cuda graph: True, "
            "gen throughput (token/s): 1012.55, #queue-req: 0"
        )
    return "\n".join(lines) + "\n"


def setup_log(exports, extra=()):
    """srt-slurm's setup script output under `set -x`."""
    lines = [f"+ export {k}={v}" for k, v in exports]
    lines += list(extra)
    lines += [
        "+ pip install aiperf==0.4.0",
        "+ python3 -m sglang.launch_server --model-path /models/GLM-5.1-FP8 --tp 8 "
        "--speculative-algorithm EAGLE --speculative-num-steps 3 --port 8896",
    ]
    return "\n".join(lines) + "\n"


def trt_tar(pub, accepted, command_flag, cut=False):
    """A multinode srt-slurm Dynamo TRT-LLM run: multinode_server_logs.tar.gz."""
    config = (
        "name: dsr1-fp4-mtp-agentic\n"
        "model:\n"
        "  path: /models/DeepSeek-R1-FP4\n"
        "backend:\n"
        "  type: trtllm\n"
        f"  publish_events_and_metrics: {pub}\n"
        "  decode_environment:\n"
        '    TRTLLM_ENABLE_PDL: "1"\n'
        f'    TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS: "{accepted}"\n'
        '    NCCL_GRAPH_MIXING_SUPPORT: "0"\n'
        "  trtllm_config:\n"
        "    decode:\n"
        "      tensor_parallel_size: 4\n"
        "      speculative_config:\n"
        "        decoding_type: MTP\n"
        "        num_nextn_predict_layers: 3\n"
    )
    sweep = (
        "2026-10-29 04:01:05 [INFO] Command: trtllm-llmapi-launch python3 -m dynamo.trtllm "
        "--model-path /model --served-model-name dsr1 --disaggregation-mode decode "
        f"--extra-engine-args /logs/trtllm_config_decode.yaml --request-plane nats{command_flag}\n"
    )
    worker = (
        "2026-10-29T04:14:40.555894Z  INFO main.worker: Initializing the worker with config: "
        "Config(namespace=dynamo, component=tensorrt_llm, endpoint=generate, "
        "model_path=/model, served_model_name=dsr1, tensor_parallel_size=4, "
        "pipeline_parallel_size=1, expert_parallel_size=4, max_batch_size=256, "
        f"publish_events_and_metrics={'True' if pub == 'true' else 'False'}, "
        "disaggregation_mode=decode)\n"
    )
    bench = AIPERF.format(port=8000, model="dsr1", conc=64)
    members = [
        ("./sweep_8812345.log", sweep),
        ("./gb200-node02_decode_w0.out", worker),
        ("./benchmark.out", bench),
        # Last, so that a download cut short loses the env dump.
        ("./config.yaml", config),
    ]
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
        for name, text in members:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = MTIME
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    raw = buf.getvalue()
    gz = gzip.compress(raw, mtime=0)
    if cut:
        # Cut mid-stream, inside the config.yaml member (the env dump).
        at = raw.index(b"TRTLLM_ENABLE_PDL")
        gz = gzip.compress(raw[: at + 8], mtime=0)[:-8]
    return gz


def result_point():
    """A single-node result file as utils/process_result.py writes it (indent 2)."""
    return json.dumps(
        {
            "hw": "mi355x",
            "conc": 64,
            "image": IMAGE,
            "model": "deepseek-ai/DeepSeek-V4-Pro",
            "infmax_model_prefix": "dsv4",
            "framework": "sglang",
            "precision": "fp8",
            "spec_decoding": "mtp",
            "disagg": False,
            "isl": 1024,
            "osl": 1024,
            "tp": 8,
            "ep": 8,
            "median_e2el": 41.27,
            "tput_per_gpu": 1874.5,
        },
        indent=2,
    ) + "\n"


def meta_env(image):
    """benchmark_lib.sh _write_lm_eval_meta_json (a subset); InferenceX writes
    no `image` today: `image=None` leaves it out, as a real run does."""
    meta = {
        "is_multinode": False,
        "framework": "sglang",
        "precision": "fp8",
        "spec_decoding": "mtp",
        "tp": 8,
        "ep": 8,
        "conc": 64,
        "model": "deepseek-ai/DeepSeek-V4-Pro",
        "infmax_model_prefix": "dsv4",
        "hw": "mi355x",
        "isl": "1024",
        "osl": "1024",
    }
    if image is not None:
        meta["image"] = image
    return json.dumps(meta, indent=2) + "\n"


def agg_eval(image):
    """utils/collect_eval_results.py's agg_eval_all.json: hw upper-cased."""
    row = {
        "is_multinode": False,
        "model_prefix": "dsv4",
        "model": "deepseek-ai/DeepSeek-V4-Pro",
        "hw": "MI355X",
        "framework": "sglang",
        "precision": "fp8",
        "spec_decoding": "mtp",
        "tp": 8,
        "ep": 8,
        "conc": 64,
        "task": "gsm8k",
        "em_strict": 0.9712,
        "em_flexible": 0.9727,
        "n_eff": 1319,
    }
    if image is not None:
        row["image"] = image
    return json.dumps([row], indent=2) + "\n"


def image_run(image):
    """A run with one benchmark point and one gsm8k eval of its config."""
    return {
        f"bmk_{RF_IMG}": {f"{RF_IMG}.json": result_point()},
        f"eval_gsm8k_{RF_IMG}": {"meta_env.json": meta_env(image)},
        "eval_results_all": {"agg_eval_all.json": agg_eval(image)},
    }


def runs():
    """{run: {artifact: {member: bytes}}}"""
    model = "amd/GLM-5.1-FP8"
    good_env = [
        ("SGLANG_SIMULATE_ACC_LEN", "3.39"),
        ("SGLANG_SIMULATE_ACC_METHOD", "match-expected"),
        ("SGLANG_SIMULATE_ACC_TOKEN_MODE", "real-draft-token"),
        ("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", "0"),
    ]
    bad_env = [
        ("SGLANG_SIMULATE_ACC_LEN", "-1"),
        ("SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", "1"),
    ]
    vllm_log = (
        "(APIServer pid=1) INFO 10-29 05:00:01 [utils.py:253] non-default args: {'model_tag': "
        "'/models/Qwen3.5-397B-FP8', 'model': '/models/Qwen3.5-397B-FP8', 'tensor_parallel_size': 8, "
        "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3, "
        "'rejection_sample_method': 'synthetic', 'synthetic_acceptance_length': 3.39}}\n"
        "(EngineCore_DP0 pid=263) INFO 10-29 05:01:02 [core.py:107] Initializing a V1 LLM engine "
        "(v0.13.0) with config: model='/models/Qwen3.5-397B-FP8', speculative_config=SpeculativeConfig("
        "method='mtp', model='/models/Qwen3.5-397B-FP8', num_spec_tokens=3), "
        "tokenizer='/models/Qwen3.5-397B-FP8', dtype=torch.bfloat16, max_seq_len=163840, "
        "tensor_parallel_size=8, pipeline_parallel_size=1, data_parallel_size=1, "
        "quantization=fp8, kv_cache_dtype=fp8\n"
    )
    vllm_bench = (
        "+ export VLLM_USE_V1=1\n"
        "+ export VLLM_ROCM_USE_AITER=0\n"
        "+ python3 /workspace/utils/bench_serving/benchmark_serving.py --model /models/Qwen3.5-397B-FP8 "
        "--backend vllm --base-url http://0.0.0.0:8888 --dataset-name random --random-input-len 1024 "
        "--random-output-len 1024 --random-range-ratio 0.8 --num-prompts 640 --max-concurrency 64 "
        "--request-rate inf --ignore-eos --save-result --num-warmups 128 "
        "--percentile-metrics ttft,tpot,itl,e2el --result-dir /workspace/results "
        f"--result-filename {RF_VLLM}.json\n"
    )
    return {
        "pass": {
            f"agentic_{RF_SGL}": {
                "server.log": sglang_server_log("{}"),
                "benchmark_command.txt": AIPERF.format(port=8896, model=model, conc=16),
                "srt-setup.log": setup_log(good_env),
            },
            f"multinode_server_logs_{RF_TRT}": {
                "multinode_server_logs.tar.gz": trt_tar(
                    "true", "2.39", " --publish-events-and-metrics"
                ),
            },
        },
        "fail": {
            f"agentic_{RF_SGL_BAD}": {
                "server.log": sglang_server_log('{"index_topk_freq": 4}'),
                "benchmark_command.txt": AIPERF.format(port=8896, model=model, conc=32),
                "srt-setup.log": setup_log(
                    bad_env,
                    ["+ git apply /workspace/patches/sglang-glm-eagle-fix.patch"],
                ),
            },
            f"server_logs_{RF_VLLM}": {
                "server.log": vllm_log,
                "benchmark.log": vllm_bench,
            },
            f"multinode_server_logs_{RF_TRT_BAD}": {
                "multinode_server_logs.tar.gz": trt_tar("false", "2.5", ""),
            },
        },
        # Check 2, same image: the eval's image equal to the benchmark's,
        # another image, and none recorded (as meta_env.json is today).
        "image-same": image_run(IMAGE),
        "image-other": image_run(IMAGE_OTHER),
        "image-none": image_run(None),
        "cut": {
            f"multinode_server_logs_{RF_TRT}": {
                "multinode_server_logs.tar.gz": trt_tar(
                    "true", "2.39", " --publish-events-and-metrics", cut=True
                ),
            },
            f"server_logs_{RF_SGL}": {
                "server.log": sglang_server_log("{}"),
            },
        },
    }


def as_bytes(v):
    return v if isinstance(v, bytes) else v.encode()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def zip_bytes(members):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=ZIP_DT)
            info.external_attr = 0o644 << 16
            # Archives inside stay stored, as upload-artifact leaves them.
            info.compress_type = (
                zipfile.ZIP_STORED if name.endswith(".gz") else zipfile.ZIP_DEFLATED
            )
            z.writestr(info, as_bytes(data))
    return buf.getvalue()


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    for run, arts in runs().items():
        for art, members in arts.items():
            for m, data in members.items():
                write(os.path.join(OUT, "runs", run, art, m), as_bytes(data))
            write(os.path.join(OUT, "zips", run, art + ".zip"), zip_bytes(members))
    with open(os.path.join(OUT, "README.md"), "w") as f:
        f.write(README)


README = """# Verifier samples (generated: `python3 samples/make_verifier_samples.py`)

Small runs for the InferenceX verifier's Checks 2, 8, 9, 10, 11 and 13, each as
downloaded folders (`runs/<run>/<artifact>/`) and as artifact zips
(`zips/<run>/<artifact>.zip`). tests/cli/verifier.rs judges both and expects
the same verdicts.

| run | artifact | what it holds | verdicts it shows |
|---|---|---|---|
| pass | agentic_glm5.1_..._conc16 | SGLang EAGLE, json_model_override_args '{}', aiperf agentic chat, SGLANG_SIMULATE_ACC_LEN=3.39, NEXTN=0, pip install of aiperf only | 8, 9, 10, 11 (al=3.39), 13 pass; 11 unknown without --param al |
| pass | multinode_server_logs_dsr1_..._conc64 | Dynamo TRT-LLM, publish_events_and_metrics true (YAML, worker config, flag), MTP, TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2.39 | 8 pass, 11 pass for al=3.39 (2.39 + 1) |
| fail | agentic_glm5.1_..._conc32 | json_model_override_args '{"index_topk_freq": 4}', SGLANG_SIMULATE_ACC_LEN=-1 (real acceptance), NEXTN=1, `+ git apply` | 8 unknown (override quoted), 10 fail, 11 fail, 13 fail |
| fail | server_logs_qwen3.5_... | vLLM MTP with synthetic acceptance, benchmark_serving.py without --use-chat-template | 9 fail (raw completions), 11 fail (fixed-sequence simulates) |
| fail | multinode_server_logs_dsr1_..._conc128 | publish_events_and_metrics false, worker launched without the flag, TLLM_SPEC_DECODE_FORCE_NUM_ACCEPTED_TOKENS=2.5 | 8 fail; 11 pass for al=3.5, fail for al=3.39 |
| cut | multinode_server_logs_dsr1_..._conc64 | the pass run's tarball cut short inside config.yaml (the env dump) | 8 and 11 unknown |
| cut | server_logs_glm5.1_... | the SGLang server log alone (no client command, no env dump) | 9 unknown, 13 unknown |
| image-same | bmk_dsv4_..., eval_gsm8k_dsv4_..., eval_results_all | one benchmark point (image v0.5.20), the gsm8k eval's meta_env.json and agg_eval row with the same image | 2 (eval-same-image) pass |
| image-other | the same | the eval's meta_env.json and row name another image (v0.5.21) | 2 (eval-same-image) fail, both images quoted |
| image-none | the same | meta_env.json and the row without `image`, as InferenceX writes them today | 2 (eval-same-image) unknown |
"""

if __name__ == "__main__":
    main()
