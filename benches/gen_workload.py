#!/usr/bin/env python3
"""Generate the artiscan benchmark workload (Python 3.11+, standard library only).

Writes realistic SGLang server logs (8 ranks interleaved, mostly `Decode batch`
lines, some `Prefill batch` and HTTP access lines, plus the startup evidence lines
that the built-in pattern packs look for) into OUT_DIR (default /tmp/artiscan-bench):

  logs.tar.gz   tar of ~240 members of ~4 MiB each (for --mb 1024), gzip level 6
                (pigz -6 -n when pigz is installed, else Python zlib; see --gzip)
  logs.tar.zst  the very same tar, zstd -3
  big.log       one plain log of --mb MiB
  zips/         ~120 zips (for --mb 1024), each holding one ~2 MiB server.log
  MANIFEST.json parameters, sizes and line counts; written last, marks the set complete

Everything is deterministic for a given --seed and --mb (and gzip tool). Speed comes
from building the logs out of a pool of pre-formatted "one second of log" blocks,
whose timestamp is filled in with one str.replace per block, and from handing the
bytes to the compressors in large writes, in parallel with generation.

Usage: python3 benches/gen_workload.py [OUT_DIR] [--mb 1024] [--seed N] [--gzip auto|pigz|python]
"""

from __future__ import annotations

import argparse
import calendar
import json
import os
import queue
import random
import shutil
import subprocess
import sys
import tarfile
import threading
import time
import zipfile
import zlib

MIB = 1 << 20
SENT = "\x00"  # placeholder for "YYYY-MM-DD HH:MM:SS" inside block templates
BASE_DAY = (2026, 10, 29)
POOL_BLOCKS = 8192  # blocks per log flavour; ~1.5 KiB each


# ---------------------------------------------------------------------------
# timestamps


class Clock:
    """Seconds since 2026-10-29 00:00:00 -> 'YYYY-MM-DD HH:MM:SS', cheaply."""

    def __init__(self) -> None:
        self.hms = [f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}" for s in range(86400)]
        base = calendar.timegm((*BASE_DAY, 0, 0, 0))
        self.days = [time.strftime("%Y-%m-%d ", time.gmtime(base + d * 86400)) for d in range(64)]

    def ts(self, sec: int) -> str:
        return self.days[sec // 86400] + self.hms[sec % 86400]


# ---------------------------------------------------------------------------
# log flavours: how a rank's line prefix looks


class Flavour:
    def __init__(self, name: str, ms: bool, tags, wrap=None, old_decode: bool = False):
        self.name = name
        self.ms = ms
        self.tags = tags  # rank -> tag string ("TP3 EP3")
        self.wrap = wrap  # rank -> wrapper prefix (srun " 3: ") or None
        self.old_decode = old_decode

    def prefix(self, rng: random.Random, rank: int | None) -> str:
        """Line prefix with SENT standing for the date and time."""
        ts = SENT + (f".{rng.randrange(1000):03d}" if self.ms else "")
        p = f"[{ts}] " if rank is None else f"[{ts} {self.tags(rank)}] "
        if self.wrap is not None and rank is not None:
            p = self.wrap(rank) + p
        return p


FLAVOURS = [
    Flavour("tp_ep", False, lambda r: f"TP{r} EP{r}"),
    Flavour("dp_tp_ep_ms", True, lambda r: f"DP{r} TP{r} EP{r}"),
    Flavour("tp_old", False, lambda r: f"TP{r}", old_decode=True),
    Flavour("srun_tp_ep", False, lambda r: f"TP{r} EP{r}", wrap=lambda r: f"{r // 4}: "),
]


# ---------------------------------------------------------------------------
# message bodies


def decode_msg(rng: random.Random, fl: Flavour, st: dict) -> str:
    run = max(0, min(256, st["run"] + rng.randint(-3, 3)))
    st["run"] = run
    tok = run * rng.randint(1500, 9000) + rng.randint(0, 999)
    usage = min(0.99, tok / 420000)
    al = rng.gauss(st["al"], 0.25)
    al = min(max(al, 1.0), 7.0)
    thr = run * rng.uniform(18.0, 95.0) + rng.uniform(0, 50)
    q = 0 if rng.random() < 0.8 else rng.randint(1, 64)
    cg = "True" if run <= 256 and rng.random() < 0.97 else "False"
    if fl.old_decode:
        return (f"Decode batch. #running-req: {run}, #token: {tok}, token usage: {usage:.2f}, "
                f"accept len: {al:.2f}, cuda graph: {cg}, gen throughput (token/s): {thr:.2f}, "
                f"#queue-req: {q}, ")
    ar = (al - 1.0) / 5.0
    return (f"Decode batch, #running-req: {run}, #token: {tok}, token usage: {usage:.2f}, "
            f"accept len: {al:.2f}, accept rate: {ar:.2f}, cuda graph: {cg}, "
            f"gen throughput (token/s): {thr:.2f}, #queue-req: {q}")


def prefill_msg(rng: random.Random, st: dict) -> str:
    new_tok = rng.choice((8192, 8192, 4096, 2048, rng.randint(200, 8192)))
    cached = rng.choice((0, 0, rng.randint(0, 64) * 64))
    return (f"Prefill batch. #new-seq: {rng.randint(1, 4)}, #new-token: {new_tok}, "
            f"#cached-token: {cached}, token usage: {rng.uniform(0, 0.9):.2f}, "
            f"#running-req: {st['run']}, #queue-req: {rng.randint(0, 40)}")


HTTP_PATHS = ("/generate", "/generate", "/generate", "/v1/chat/completions", "/v1/completions")


def http_line(rng: random.Random, fl: Flavour) -> str:
    path = rng.choice(HTTP_PATHS)
    body = f'INFO:     127.0.0.1:{rng.randint(32768, 60999)} - "POST {path} HTTP/1.1" 200 OK'
    if rng.random() < 0.25:  # some builds route uvicorn through the SGLang formatter
        return fl.prefix(rng, None) + body
    return body


def build_pool(fl: Flavour, seed: int, n: int) -> tuple[list[str], list[int]]:
    """n blocks, each ~one second of log for 8 ranks; SENT marks the timestamps."""
    rng = random.Random(seed)
    st = {"run": 32, "al": 3.2}
    blocks, lens = [], []
    for _ in range(n):
        if rng.random() < 0.02:
            st["run"] = rng.randint(1, 128)
            st["al"] = rng.uniform(2.0, 4.5)
        lines = []
        for r in range(8):
            if rng.random() < 0.9:
                lines.append(fl.prefix(rng, r) + decode_msg(rng, fl, st))
            if rng.random() < 0.06:
                lines.append(fl.prefix(rng, r) + prefill_msg(rng, st))
        for _ in range(rng.choice((0, 0, 1, 1, 2))):
            lines.insert(rng.randrange(len(lines) + 1), http_line(rng, fl))
        if not lines:
            lines.append(http_line(rng, fl))
        b = "\n".join(lines) + "\n"
        blocks.append(b)
        lens.append(len(b.encode()) + b.count(SENT) * 18)
    return blocks, lens


# ---------------------------------------------------------------------------
# startup / evidence lines


SERVER_ARG_NAMES = """tokenizer_mode skip_tokenizer_init load_format model_loader_extra_config
trust_remote_code context_length is_embedding enable_multimodal revision model_impl host port
skip_server_warmup warmups nccl_port dtype quantization quantization_param_path kv_cache_dtype
mem_fraction_static max_running_requests max_queued_requests max_total_tokens
chunked_prefill_size max_prefill_tokens schedule_policy enable_priority_scheduling
schedule_conservativeness page_size hybrid_kvcache_ratio swa_full_tokens_ratio
disable_hybrid_swa_memory device pp_size pp_max_micro_batch_size stream_interval stream_output
random_seed constrained_json_whitespace_pattern watchdog_timeout dist_timeout download_dir
base_gpu_id gpu_id_step sleep_on_idle log_level log_level_http log_requests log_requests_level
crash_dump_folder show_time_cost enable_metrics enable_metrics_for_all_schedulers
bucket_time_to_first_token bucket_inter_token_latency bucket_e2e_request_latency
collect_tokens_histogram decode_log_interval enable_request_time_stats_logging
kv_events_config gc_warning_threshold_secs api_key served_model_name weight_version
chat_template completion_template file_storage_path enable_cache_report reasoning_parser
tool_call_parser tool_server load_balance_method dist_init_addr nnodes node_rank
json_model_override_args preferred_sampling_params enable_lora max_lora_rank
lora_target_modules lora_paths max_loaded_loras max_loras_per_batch lora_backend
attention_backend decode_attention_backend prefill_attention_backend sampling_backend
grammar_backend mm_attention_backend speculative_draft_model_revision
speculative_accept_threshold_single speculative_accept_threshold_acc speculative_token_map
speculative_attention_mode moe_a2a_backend moe_runner_backend flashinfer_mxfp4_moe_precision
enable_flashinfer_allreduce_fusion deepep_mode ep_num_redundant_experts ep_dispatch_algorithm
init_expert_location enable_eplb eplb_algorithm eplb_rebalance_num_iterations
eplb_rebalance_layers_per_chunk expert_distribution_recorder_mode
expert_distribution_recorder_buffer_size enable_expert_distribution_metrics deepep_config
moe_dense_tp_size enable_hierarchical_cache hicache_ratio hicache_size hicache_write_policy
hicache_io_backend hicache_mem_layout hicache_storage_backend enable_double_sparsity
ds_channel_config_path ds_heavy_channel_num ds_heavy_token_num ds_heavy_channel_type
ds_sparse_decode_threshold offload_group_size offload_num_in_group offload_prefetch_step
offload_mode disable_radix_cache cuda_graph_max_bs disable_cuda_graph
disable_cuda_graph_padding enable_profile_cuda_graph enable_cudagraph_gc enable_nccl_nvls
enable_symm_mem disable_flashinfer_cutlass_moe_fp4_allgather enable_tokenizer_batch_encode
disable_outlines_disk_cache disable_custom_all_reduce enable_mscclpp disable_overlap_schedule
enable_mixed_chunk enable_dp_lm_head enable_two_batch_overlap
tbo_token_distribution_threshold enable_torch_compile torch_compile_max_bs torchao_config
enable_nan_detection enable_p2p_check triton_attention_reduce_in_fp32
triton_attention_num_kv_splits triton_attention_split_tile_size num_continuous_decode_steps
delete_ckpt_after_loading enable_memory_saver allow_auto_truncate
enable_custom_logit_processor flashinfer_mla_disable_ragged disable_shared_experts_fusion
disable_chunked_prefix_cache disable_fast_image_processor enable_return_hidden_states
scheduler_recv_interval numa_node debug_tensor_dump_output_folder
debug_tensor_dump_input_file debug_tensor_dump_inject debug_tensor_dump_prefill_only
disaggregation_transfer_backend disaggregation_bootstrap_port disaggregation_decode_tp
disaggregation_decode_dp disaggregation_prefill_pp disaggregation_ib_device
num_reserved_decode_tokens pdlb_url custom_weight_loader weight_loader_disable_mmap
enable_pdmux sm_group_num enable_ep_moe enable_deepep_moe enable_flashinfer_cutlass_moe
enable_triton_kernel_moe enable_flashinfer_trtllm_moe enable_flashinfer_mxfp4_moe""".split()

INT_ARGS = {"port": 30000, "nccl_port": 29517, "page_size": 64, "stream_interval": 1,
            "random_seed": 731, "watchdog_timeout": 300, "decode_log_interval": 40,
            "nnodes": 1, "node_rank": 0, "max_lora_rank": 64, "cuda_graph_max_bs": 512,
            "chunked_prefill_size": 8192, "max_prefill_tokens": 16384, "pp_size": 1,
            "disaggregation_bootstrap_port": 8998, "torch_compile_max_bs": 32,
            "triton_attention_num_kv_splits": 8, "triton_attention_split_tile_size": 256,
            "num_continuous_decode_steps": 1, "scheduler_recv_interval": 1,
            "moe_dense_tp_size": 1, "gpu_id_step": 1, "base_gpu_id": 0}
STR_ARGS = {"tokenizer_mode": "'auto'", "load_format": "'auto'", "model_impl": "'auto'",
            "host": "'0.0.0.0'", "dtype": "'auto'", "quantization": "'fp8'",
            "kv_cache_dtype": "'fp8_e4m3'", "schedule_policy": "'fcfs'", "device": "'cuda'",
            "log_level": "'info'", "attention_backend": "'aiter'", "sampling_backend": "'pytorch'",
            "grammar_backend": "'xgrammar'", "moe_a2a_backend": "'none'",
            "moe_runner_backend": "'auto'", "deepep_mode": "'auto'", "lora_backend": "'triton'",
            "load_balance_method": "'round_robin'", "ep_dispatch_algorithm": "'static'",
            "eplb_algorithm": "'auto'", "hicache_write_policy": "'write_through_selective'",
            "hicache_io_backend": "'kernel'", "hicache_mem_layout": "'layer_first'",
            "disaggregation_transfer_backend": "'mooncake'", "offload_mode": "'cpu'",
            "json_model_override_args": "'{}'", "speculative_attention_mode": "'prefill'",
            "flashinfer_mxfp4_moe_precision": "'default'", "ds_heavy_channel_type": "'qk'",
            "expert_distribution_recorder_mode": "None", "served_model_name": None,
            "reasoning_parser": "'deepseek-v3'", "tool_call_parser": "'deepseekv31'"}
FLOAT_ARGS = {"mem_fraction_static": 0.82, "schedule_conservativeness": 1.0,
              "hybrid_kvcache_ratio": None, "swa_full_tokens_ratio": 0.8, "hicache_ratio": 2.0,
              "speculative_accept_threshold_single": 1.0, "speculative_accept_threshold_acc": 1.0,
              "gc_warning_threshold_secs": 0.0, "tbo_token_distribution_threshold": 0.48}


def server_args_line(rng: random.Random, model: str, tp: int, ep: int, dp: int) -> str:
    """A ~12 KiB `server_args=ServerArgs(...)` message."""
    parts = [f"model_path='{model}'", f"tokenizer_path='{model}'"]
    for name in SERVER_ARG_NAMES:
        if name in INT_ARGS:
            v = str(INT_ARGS[name])
        elif name in STR_ARGS:
            v = STR_ARGS[name] or f"'{model}'"
        elif name in FLOAT_ARGS:
            v = str(FLOAT_ARGS[name])
        elif name.startswith(("enable_", "disable_", "skip_", "is_", "log_requests",
                              "trust_", "show_", "allow_", "delete_", "sleep_", "stream_",
                              "collect_", "weight_loader_", "debug_tensor_dump_prefill")):
            v = "True" if name in ("enable_metrics", "trust_remote_code", "enable_dp_lm_head") else "False"
        elif name.startswith("bucket_") or name.endswith("_buckets"):
            v = "None"
        else:
            v = "None"
        parts.append(f"{name}={v}")
    parts.insert(30, f"tp_size={tp}")
    parts.insert(31, f"ep_size={ep}")
    parts.insert(32, f"dp_size={dp}")
    parts.insert(33, f"enable_dp_attention={dp > 1}")
    parts.insert(34, f"max_total_tokens={rng.choice((None, 1048576, 524288))}")
    parts += ["speculative_algorithm='EAGLE'", f"speculative_draft_model_path='{model}-MTP'",
              "speculative_num_steps=3", "speculative_eagle_topk=1",
              f"speculative_num_draft_tokens={rng.choice((4, 6, 8))}",
              "cuda_graph_bs=[" + ", ".join(str(i) for i in range(1, 513)) + "]",
              "prompt_tokens_buckets=None", "generation_tokens_buckets=None",
              "disaggregation_mode='null'", "hicache_size=0", "hicache_storage_backend=None"]
    s = ", ".join(parts)
    filler = 0
    while len(s) < 11800:  # newer builds carry more fields; keep the line ~12 KiB
        s += f", reserved_option_{filler}=None"
        filler += 1
    return f"server_args=ServerArgs({s})"


ENV_BASE = {
    "CUDA_DEVICE_MAX_CONNECTIONS": "1", "HIP_FORCE_DEV_KERNARG": "1",
    "HIP_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7", "HSA_NO_SCRATCH_RECLAIM": "1",
    "MC_TE_METRIC": "true", "NCCL_IB_GID_INDEX": "3", "NCCL_IB_HCA": "mlx5_0,mlx5_1,mlx5_2,mlx5_3",
    "NCCL_MIN_NCHANNELS": "112", "NCCL_SOCKET_IFNAME": "eth0", "OMP_NUM_THREADS": "1",
    "PYTHONUNBUFFERED": "1", "ROCM_QUICK_REDUCE_QUANTIZATION": "NONE",
    "SGLANG_AITER_MLA_PERSIST": "1", "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT": "1200",
    "SGLANG_ENABLE_JIT_DEEPGEMM": "0", "SGLANG_LOG_MS": "0", "SGLANG_MOE_PADDING": "1",
    "SGLANG_SET_CPU_AFFINITY": "1", "SGLANG_TORCH_PROFILER_DIR": "/logs/profiles",
    "SGLANG_USE_AITER": "1", "TORCHINDUCTOR_CACHE_DIR": "/tmp/inductor",
    "TOKENIZERS_PARALLELISM": "false", "UCX_TLS": "rc,sm,self", "VLLM_USE_V1": "1",
}


def env_line(rng: random.Random, ts: str, al: float | None) -> str:
    env = dict(ENV_BASE)
    env["HF_TOKEN"] = "***REDACTED***"
    env["SLURM_JOB_ID"] = str(rng.randint(100000, 999999))
    if al is not None:
        env["SGLANG_SIMULATE_ACC_LEN"] = f"{al:.2f}"
        env["SGLANG_SIMULATE_ACC_METHOD"] = "match-expected"
        env["SGLANG_SIMULATE_ACC_TOKEN_MODE"] = "real-draft-token"
    return f"{ts} [INFO] Env: " + " ".join(f"{k}={env[k]}" for k in sorted(env))


def header(rng: random.Random, fl: Flavour, clock: Clock, start: int, model: str,
           al: float | None) -> tuple[str, int]:
    """Startup part of a server log; returns (text, second where the decode stream starts)."""
    out = []
    t = start
    pf = lambda r: fl.prefix(rng, r).replace(SENT, clock.ts(t))  # noqa: E731
    dp = 8 if fl.name.startswith("dp") else 1
    out.append(env_line(rng, clock.ts(t - 5), al))
    out.append(pf(None) + server_args_line(rng, model, 8, 8, dp))
    t += rng.randint(20, 60)
    for r in range(8):
        out.append(pf(r) + f"Load weight begin. avail mem={rng.uniform(180, 190):.2f} GB")
    t += rng.randint(200, 600)
    for role in ("target", "draft"):
        for r in range(8):
            out.append(pf(r) + "Finished streaming dequant fp8 wo_a")
            if role == "target" and rng.random() < 0.5:
                out.append(pf(r) + "Finished streaming dequant fp8 wkv_b")
        t += rng.randint(1, 5)
    for r in range(8):
        el = rng.uniform(100, 600)
        out.append(pf(r) + f"Load weight end. elapsed={el:.2f} s, type=DeepseekV4ForCausalLM, "
                           f"quant=fp8, avail mem={rng.uniform(15, 25):.2f} GB, "
                           f"mem usage={rng.uniform(80, 100):.2f} GB.")
    t += rng.randint(5, 30)
    for r in range(8):
        out.append(pf(r) + "Capture cuda graph begin. This can take up to several minutes. "
                           f"avail mem={rng.uniform(15, 25):.2f} GB")
        out.append(pf(r) + "Capture cuda graph bs [1, 2, 4, 8, 16, 32, 64, 128, 256]")
    bar = "".join(f"Capturing batches (bs={bs} avail_mem={rng.uniform(7, 8):.2f} GB): "
                  f"{int(100 * i / 9):3d}%|{'#' * i}{' ' * (9 - i)}| {i}/9 [00:0{i}<00:0{9 - i}, "
                  f"{rng.uniform(1, 3):.2f}it/s]\r"
                  for i, bs in enumerate((256, 128, 64, 32, 16, 8, 4, 2, 1), 1))
    t += rng.randint(5, 15)
    for r in range(8):
        # TP0's \r progress bar is glued to its next log line (no newline)
        glue = bar if r == 0 else ""
        out.append(glue + pf(r) + f"Capture cuda graph end. Time elapsed: {rng.uniform(4, 9):.2f} s. "
                                  f"mem usage={rng.uniform(1, 3):.2f} GB. avail mem={rng.uniform(15, 25):.2f} GB.")
    for r in range(8):
        out.append(pf(r) + "Capture target verify CUDA graph begin. backend=full, num_tokens_per_bs=6, "
                           f"bs=[1, 2, 3, 4, 5, 6], avail mem={rng.uniform(7, 8):.2f} GB")
    t += rng.randint(2, 8)
    for r in range(8):
        out.append(pf(r) + "Capture target verify CUDA graph end. Time elapsed: "
                           f"{rng.uniform(1, 4):.2f} s. mem usage={rng.uniform(0.2, 1):.2f} GB. "
                           f"avail mem={rng.uniform(6, 7):.2f} GB.")
    for r in range(8):
        routed = 2 if rng.random() < 0.97 else 1
        out.append(pf(r) + "monokernel routing check: muse_spark_dflash2_draft_hip (gfx950) serves "
                           f"target_verify bs=[1, 2] x 8 tokens, {routed}/2 captured decode graphs routed")
    t += rng.randint(1, 5)
    out.append(pf(None) + "INFO:     Started server process [" + str(rng.randint(100, 99999)) + "]")
    out.append(pf(None) + "INFO:     Uvicorn running on http://0.0.0.0:30000 (Press CTRL+C to quit)")
    out.append(pf(None) + "The server is fired up and ready to roll!")
    return "\n".join(out) + "\n", t + 1


def failure_tail(rng: random.Random, fl: Flavour, clock: Clock, t: int) -> str:
    pf = fl.prefix(rng, 3).replace(SENT, clock.ts(t))
    return (pf + "Scheduler hit an exception: Traceback (most recent call last):\n"
            '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2807, in run_scheduler_process\n'
            "    scheduler.event_loop_overlap()\n"
            '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1021, in event_loop_overlap\n'
            "    batch_result = self.run_batch(batch)\n"
            "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 255.98 GiB\n"
            + fl.prefix(rng, None).replace(SENT, clock.ts(t + 1)) + "Received sigquit from a child process. It usually means the child failed.\n")


# ---------------------------------------------------------------------------
# a whole log


class LogMaker:
    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.clock = Clock()
        self.pools = [build_pool(fl, seed + 7919 * i, POOL_BLOCKS) for i, fl in enumerate(FLAVOURS)]

    def make(self, idx: int, target: int, flavour: int | None = None, per_second: int = 1,
             start: int | None = None, with_header: bool = True,
             pools: list | None = None) -> tuple[bytes, int]:
        """One log of ~target bytes; returns (text, next free second).
        `pools` replaces the decode-stream block pools (one per flavour)."""
        rng = random.Random(self.seed * 1_000_003 + idx)
        fi = rng.randrange(len(FLAVOURS)) if flavour is None else flavour
        fl = FLAVOURS[fi]
        blocks, lens = (pools or self.pools)[fi]
        al = rng.choice((None, 2.49, 3.39, 3.77)) if rng.random() < 0.7 else None
        model = rng.choice(("deepseek-ai/DeepSeek-V4-Exp", "/models/muse-spark-fp8",
                            "deepseek-ai/DeepSeek-R1-0528"))
        sec = 4 * 3600 + rng.randint(0, 3600) if start is None else start
        parts, size = [], 0
        if with_header:
            head, sec = header(rng, fl, self.clock, sec, model, al)
            parts.append(head)
            size = len(head.encode())
        fail = with_header and rng.random() < 0.03
        if fail:
            target -= 700
        n = len(blocks)
        ts = self.clock.ts
        rand = rng.randrange
        k = 0
        while size < target:
            b = rand(n)
            parts.append(blocks[b].replace(SENT, ts(sec)))
            size += lens[b]
            k += 1
            if k % per_second == 0:
                sec += 1
        if fail:
            parts.append(failure_tail(rng, fl, self.clock, sec))
        return "".join(parts).encode(), sec + 2


# ---------------------------------------------------------------------------
# (e) sparse matches: client and access-log lines no rule wants


BENCH_PATHS = ("/generate", "/v1/chat/completions", "/v1/completions", "/health", "/metrics")


def sparse_block(rng: random.Random, fl: Flavour, st: dict) -> str:
    """About one second of a busy front end: uvicorn access lines, prefill lines and the
    benchmark client's per-request lines; about one line in 2000 is a decode line that a
    rule wants (`accept len:`)."""
    lines = []
    for _ in range(rng.randint(6, 14)):
        x = rng.random()
        if x < 0.55:
            path = rng.choice(BENCH_PATHS)
            code = "200 OK" if rng.random() < 0.995 else "503 Service Unavailable"
            meth = "GET" if path in ("/health", "/metrics") else "POST"
            body = f'INFO:     10.0.{rng.randint(0, 9)}.{rng.randint(2, 250)}:{rng.randint(32768, 60999)} - "{meth} {path} HTTP/1.1" {code}'
            lines.append(body if rng.random() < 0.7 else fl.prefix(rng, None) + body)
        elif x < 0.75:
            lines.append(fl.prefix(rng, rng.randrange(8)) + prefill_msg(rng, st))
        else:
            # bench_serving-like client progress (no rule wants these)
            n = st.setdefault("req", 0) + 1
            st["req"] = n
            lines.append(f"[{SENT}] client: request {n} done, prompt {rng.randint(128, 8192)} tok, "
                         f"output {rng.randint(16, 2048)} tok, ttft {rng.uniform(20, 900):.1f} ms, "
                         f"itl {rng.uniform(5, 40):.2f} ms, e2e {rng.uniform(0.2, 60):.2f} s")
        if rng.random() < 0.0005:
            lines.append(fl.prefix(rng, rng.randrange(8)) + decode_msg(rng, fl, st))
    return "\n".join(lines) + "\n"


def build_sparse_pool(fl: Flavour, seed: int, n: int) -> tuple[list[str], list[int]]:
    rng = random.Random(seed)
    st = {"run": 32, "al": 3.2}
    blocks, lens = [], []
    for _ in range(n):
        b = sparse_block(rng, fl, st)
        blocks.append(b)
        lens.append(len(b.encode()) + b.count(SENT) * 18)
    return blocks, lens


def sparse_member_name(i: int) -> str:
    return f"./bench_serving_w{i}.log" if i % 2 else f"./{'gb200' if i % 4 else 'mi355x'}-{i:03d}_agg_w{i % 8}.out"


# ---------------------------------------------------------------------------
# (f) env dumps and JSON: nearly every line is evidence


ENV_FAMILIES = ("NCCL", "SLURM", "SGLANG", "UCX", "OMPI", "PMIX", "CUDA", "HIP", "TORCH", "VLLM",
                "MC", "DYN", "HF", "AITER", "RCCL", "NVSHMEM", "MORI", "GLOO", "OMP", "PYTORCH")
ENV_WORDS = ("TIMEOUT", "LEVEL", "DEBUG", "ENABLE", "DISABLE", "SIZE", "PATH", "DIR", "PORT",
             "HOST", "MODE", "NUM_THREADS", "BUFFSIZE", "MAX_NCHANNELS", "IB_HCA", "CACHE",
             "BACKEND", "VISIBLE_DEVICES", "ALGO", "PROTO", "QUANTIZATION", "RANK", "POLICY")


def env_vars(rng: random.Random, n: int, al: float | None) -> dict[str, str]:
    """n environment variables of a worker, sorted, ENV_BASE among them."""
    env = dict(ENV_BASE)
    env["HF_TOKEN"] = "***REDACTED***"
    env["PATH"] = "/usr/local/nvidia/bin:/usr/local/cuda/bin:/opt/conda/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    env["LD_LIBRARY_PATH"] = "/usr/local/nvidia/lib64:/usr/local/cuda/lib64:/opt/rocm/lib:/usr/lib/x86_64-linux-gnu"
    while len(env) < n:
        k = f"{rng.choice(ENV_FAMILIES)}_{rng.choice(ENV_WORDS)}"
        if rng.random() < 0.5:
            k += f"_{rng.randint(0, 63)}"
        env[k] = rng.choice((str(rng.randint(0, 4096)), "1", "0", "true", "false", "INFO", "WARN",
                             f"/scratch/job/{rng.randint(1000, 9999)}", "mlx5_0,mlx5_1,mlx5_2,mlx5_3"))
    if al is not None:
        env["SGLANG_SIMULATE_ACC_LEN"] = f"{al:.2f}"
        env["SGLANG_SIMULATE_ACC_METHOD"] = "match-expected"
        env["SGLANG_SIMULATE_ACC_TOKEN_MODE"] = "real-draft-token"
    return dict(sorted(env.items()))


PIP = ("sglang", "sgl-kernel", "torch", "transformers", "flashinfer-python", "triton", "vllm",
       "ai-dynamo", "nixl", "deep_gemm", "aiter", "lm_eval", "numpy", "safetensors", "tokenizers")


def envjson_bundle(rng: random.Random, lm: "LogMaker", w: int) -> list[tuple[str, bytes]]:
    """One worker's members (~200 KiB): srt-slurm engine log with a 300-variable `Env:` line
    and server args, fingerprint JSON, vLLM log with `non-default args`, a job log with
    `set -x` exports and `env | sort`, and an lm-eval results JSON."""
    clock = lm.clock
    node = f"{'gb200' if w % 3 else 'mi355x'}-{w // 4:04d}"
    al = rng.choice((None, 2.49, 3.39, 3.77))
    env = env_vars(rng, rng.randint(250, 350), al)
    sec = 4 * 3600 + rng.randint(0, 7200)
    ts = clock.ts(sec)
    fl = FLAVOURS[0]
    model = rng.choice(("deepseek-ai/DeepSeek-V4-Exp", "/models/muse-spark-fp8"))
    out = []

    # srt-slurm engine log: Env line, ServerArgs (repr or dict style), a short decode stream
    eng = [f"{ts} [INFO] Env: " + " ".join(f"{k}={v}" for k, v in env.items())]
    sa = server_args_line(rng, model, 8, 8, 1)
    if w % 2:  # newer builds print a dict
        body = sa[len("server_args=ServerArgs("):-1]
        sa = "server_args={" + ", ".join(
            f"'{kv.split('=', 1)[0]}': {kv.split('=', 1)[1]}" for kv in body.split(", ") if "=" in kv) + "}"
    eng.append(f"[{ts}] " + sa)
    for r in range(8):
        eng.append(f"[{ts} TP{r} EP{r}] Load weight end. elapsed={rng.uniform(100, 600):.2f} s, "
                   f"type=DeepseekV4ForCausalLM, quant=fp8, avail mem={rng.uniform(15, 25):.2f} GB, "
                   f"mem usage={rng.uniform(80, 100):.2f} GB.")
    head = "\n".join(eng) + "\n"
    stream, _ = lm.make(900_000 + w, 24 * 1024, flavour=0, start=sec + 600, with_header=False)
    out.append((f"./{node}_agg_w{w % 8}.out", head.encode() + stream))

    # fingerprint JSON (pretty-printed; every 4th on one line)
    fp = {"hostname": node, "mode": "agg", "worker": w % 8,
          "frameworks": {"sglang": "0.5.20", "ai-dynamo": "1.3.1", "torch": "2.9.0"},
          "image": "lmsysorg/sglang-rocm:v0.5.20-rocm720-mi35x-20260926",
          "env": env,
          "pip_packages": {p: f"{rng.randint(0, 9)}.{rng.randint(0, 30)}.{rng.randint(0, 9)}" for p in PIP}}
    out.append((f"./fingerprint_agg_w{w}.json",
                json.dumps(fp, indent=None if w % 4 == 3 else 2).encode() + b"\n"))

    # vLLM API server log
    pfx = f"(APIServer pid={rng.randint(1, 999)}) INFO 10-29 {clock.hms[sec % 86400]}"
    nda = {"model_tag": model, "host": "0.0.0.0", "model": model, "trust_remote_code": True,
           "max_model_len": 163840, "tensor_parallel_size": 8, "enable_expert_parallel": True,
           "gpu_memory_utilization": 0.92, "kv_cache_dtype": "fp8", "max_num_seqs": 256,
           "speculative_config": {"method": "mtp", "num_speculative_tokens": 3,
                                  "synthetic_acceptance_length": al or 3.39}}
    v = [f"{pfx} [api_server.py:1850] vLLM API server version 0.13.0",
         f"{pfx} [utils.py:233] non-default args: {nda!r}"]
    for k in range(rng.randint(150, 250)):
        v.append(f"(APIServer pid=1) INFO 10-29 {clock.hms[(sec + 10 * k) % 86400]} [metrics.py:96] "
                 f"SpecDecoding metrics: Mean acceptance length: {rng.uniform(1.5, 4):.2f}, "
                 f"Accepted throughput: {rng.uniform(100, 900):.2f} tokens/s, Drafted throughput: "
                 f"{rng.uniform(300, 1500):.2f} tokens/s, Accepted: {rng.randint(1000, 9000)} tokens, "
                 f"Drafted: {rng.randint(3000, 20000)} tokens, Per-position acceptance rate: 0.812, 0.601, 0.433, "
                 f"Avg Draft acceptance rate: {rng.uniform(20, 80):.1f}%")
    out.append((f"./vllm_server_w{w}.log", ("\n".join(v) + "\n").encode()))

    # GitHub job log: ISO timestamps, set -x exports, env | sort
    iso = f"2026-10-29T{clock.hms[sec % 86400]}.{rng.randrange(10**7):07d}Z "
    job = ["\ufeff" + iso + "##[group]Run bash benchmarks/run.sh"]
    job += [f"{iso}+ export {k}={v}" for k, v in env.items()]
    job += [f"{iso}{k}={v}" for k, v in env.items()]
    out.append((f"./logs/{w}_benchmark.txt", ("\n".join(job) + "\n").encode()))

    # lm-eval results JSON: many tasks, stderr and sample counts
    tasks = [f"gsm8k_{t}" for t in range(rng.randint(30, 60))]
    res = {"results": {t: {"alias": t, "exact_match,strict-match": round(rng.uniform(0.8, 0.99), 4),
                           "exact_match_stderr,strict-match": round(rng.uniform(0.001, 0.01), 4),
                           "exact_match,flexible-extract": round(rng.uniform(0.8, 0.99), 4),
                           "exact_match_stderr,flexible-extract": round(rng.uniform(0.001, 0.01), 4)}
                       for t in tasks},
           "n-samples": {t: {"original": 1319, "effective": 1319} for t in tasks},
           "transformers_version": "4.57.1", "lm_eval_version": "0.4.9"}
    out.append((f"./results/results_2026-10-29T05-{w // 60 % 60:02d}-{w % 60:02d}.json",
                json.dumps(res, indent=2).encode() + b"\n"))
    return out


# ---------------------------------------------------------------------------
# (g) many small members


def small_member(rng: random.Random, lm: "LogMaker", i: int) -> tuple[str, bytes]:
    """A 1-20 KiB log; one in eight starts with a few evidence lines (env, weights, routing)."""
    target = rng.randint(1024, 20 * 1024)
    data, sec = lm.make(500_000 + i, target, with_header=False)
    if i % 8 == 0:
        fl = FLAVOURS[i % len(FLAVOURS)]
        ts = lm.clock.ts(4 * 3600 + i)
        pre = [env_line(rng, ts, rng.choice((None, 3.39)))]
        for r in range(2):
            pre.append(fl.prefix(rng, r).replace(SENT, ts) + "Load weight end. elapsed=412.20 s, "
                       "type=DeepseekV4ForCausalLM, quant=fp8, avail mem=17.47 GB, mem usage=94.00 GB.")
            pre.append(fl.prefix(rng, r).replace(SENT, ts) + "monokernel routing check: "
                       "muse_spark_dflash2_draft_hip (gfx950) serves target_verify bs=[1, 2] x 8 tokens, "
                       "2/2 captured decode graphs routed")
        data = ("\n".join(pre) + "\n").encode() + data
    return f"./results/conc{(4, 16, 64, 256)[i % 4]}/req_{i:06d}/server.log", data


# ---------------------------------------------------------------------------
# outputs


class Sink:
    """Feeds bytes to a compressor in its own thread (subprocess pipe or zlib)."""

    def __init__(self, path: str, cmd: list[str] | None = None, level: int = 6) -> None:
        self.q: queue.Queue = queue.Queue(maxsize=8)
        self.f = open(path, "wb")
        self.proc = None
        if cmd is not None:
            self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=self.f)
            self.z = None
        else:
            self.z = zlib.compressobj(level, zlib.DEFLATED, 31, 9)  # gzip wrapper, mtime 0
        self.t = threading.Thread(target=self._run, daemon=True)
        self.t.start()

    def _run(self) -> None:
        while (b := self.q.get()) is not None:
            if self.proc is not None:
                self.proc.stdin.write(b)
            else:
                self.f.write(self.z.compress(b))
        if self.proc is not None:
            self.proc.stdin.close()
        else:
            self.f.write(self.z.flush())

    def write(self, b: bytes) -> None:
        self.q.put(b)

    def close(self) -> None:
        self.q.put(None)
        self.t.join()
        if self.proc is not None and self.proc.wait() != 0:
            raise SystemExit(f"compressor {self.proc.args} failed")
        self.f.close()


MTIME = calendar.timegm((*BASE_DAY, 5, 30, 0))


def tar_header(name: str, size: int) -> bytes:
    ti = tarfile.TarInfo(name)
    ti.size, ti.mtime, ti.mode, ti.uid, ti.gid, ti.uname, ti.gname = size, MTIME, 0o644, 0, 0, "", ""
    return ti.tobuf(tarfile.GNU_FORMAT)


def write_targz(path: str, members, gz_cmd: list[str] | None) -> dict:
    """Tar the (name, bytes) members into path (gzip -6 via gz_cmd, else zlib); write to
    path.tmp and rename, so a partial file never looks complete."""
    gz = Sink(path + ".tmp", gz_cmd)
    total = lines = n = written = 0
    for name, data in members:
        blob = tar_header(name, len(data)) + data + b"\0" * ((-len(data)) % 512)
        gz.write(blob)
        written += len(blob)
        total += len(data)
        lines += data.count(b"\n")
        n += 1
    gz.write(b"\0" * (1024 + (-(written + 1024) % 10240)))  # end blocks, whole 10 KiB records
    gz.close()
    os.replace(path + ".tmp", path)
    return {"members": n, "text_bytes": total, "lines": lines, "gz_bytes": os.path.getsize(path)}


def member_name(i: int) -> str:
    if i % 3 == 2:
        return f"./slurm_job-{8800 + i // 40}/decode_mi355x-{i:03d}.log"
    role = "prefill" if i % 3 == 0 else "decode"
    return f"./gb200-{i // 8:03d}_{role}_w{i % 8}.out"


def zip_name(i: int) -> str:
    conc = (4, 8, 16, 32, 64, 128, 256, 512)[i % 8]
    runner = f"mi355x-amds_{i // 8:02d}" if i % 2 else f"gb200-nv_{i // 8:02d}"
    return (f"server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpa{str(i % 3 == 0).lower()}"
            f"_disagg-false_spec-mtp_conc{conc}_{runner}.zip")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out_dir", nargs="?", default="/tmp/artiscan-bench")
    ap.add_argument("--mb", type=int, default=1024, help="MiB of log text in the tar and in big.log (default 1024)")
    ap.add_argument("--seed", type=int, default=20261029)
    ap.add_argument("--gzip", choices=("auto", "pigz", "python"), default="auto",
                    help="gzip tool for logs.tar.gz (default: pigz when installed)")
    ap.add_argument("--only", default="tar,big,zips,sparse,envjson,small",
                    help="comma list of outputs: tar,big,zips,sparse,envjson,small")
    a = ap.parse_args()
    if not shutil.which("zstd"):
        sys.exit("gen_workload: zstd not found (apt-get install zstd)")
    only = set(a.only.split(","))
    out = a.out_dir
    os.makedirs(out, exist_ok=True)
    man_path = os.path.join(out, "MANIFEST.json")
    if os.path.exists(man_path):
        os.remove(man_path)
    t0 = time.perf_counter()
    lm = LogMaker(a.seed)
    man = {"seed": a.seed, "mb": a.mb, "generator": "benches/gen_workload.py"}
    print(f"pools built in {time.perf_counter() - t0:.1f}s", file=sys.stderr)

    if "tar" in only:
        t = time.perf_counter()
        n_tar = max(2, round(a.mb * 240 / 1024))
        per = a.mb * MIB // n_tar
        use_pigz = a.gzip == "pigz" or (a.gzip == "auto" and shutil.which("pigz"))
        gz_cmd = ["pigz", "-6", "-n", "-c"] if use_pigz else None
        gz = Sink(os.path.join(out, "logs.tar.gz.tmp"), gz_cmd)
        zs = Sink(os.path.join(out, "logs.tar.zst.tmp"), ["zstd", "-3", "-T0", "-q", "-c"])
        total = lines = 0
        for i in range(n_tar):
            data, _ = lm.make(i, per)
            pad = (-len(data)) % 512
            blob = tar_header(member_name(i), len(data)) + data + b"\0" * pad
            gz.write(blob)
            zs.write(blob)
            total += len(data)
            lines += data.count(b"\n")
        end = 1024 + (-(total + 1024) % 10240)  # two zero blocks, pad to a 10 KiB record
        gz.write(b"\0" * end)
        zs.write(b"\0" * end)
        gz.close()
        zs.close()
        for ext in ("gz", "zst"):
            os.replace(os.path.join(out, f"logs.tar.{ext}.tmp"), os.path.join(out, f"logs.tar.{ext}"))
        man["tar"] = {"members": n_tar, "text_bytes": total, "lines": lines,
                      "gzip": "pigz -6 -n" if use_pigz else "python zlib level 6", "zstd": "zstd -3",
                      "gz_bytes": os.path.getsize(os.path.join(out, "logs.tar.gz")),
                      "zst_bytes": os.path.getsize(os.path.join(out, "logs.tar.zst"))}
        print(f"tar: {n_tar} members, {total / MIB:.0f} MiB text -> "
              f"{man['tar']['gz_bytes'] / MIB:.0f} MiB gz, {man['tar']['zst_bytes'] / MIB:.0f} MiB zst "
              f"in {time.perf_counter() - t:.1f}s", file=sys.stderr)

    if "big" in only:
        t = time.perf_counter()
        tmp = os.path.join(out, "big.log.tmp")
        target = a.mb * MIB
        chunk = 64 * MIB
        total = lines = piece = 0
        with open(tmp, "wb") as f:
            # one server's log: startup once, then a continuous, busier decode stream
            # (written in 64 MiB pieces, each continuing the clock of the previous one)
            sec = None
            while total < target:
                data, sec = lm.make(10_000 + piece, min(chunk, target - total), flavour=0,
                                    per_second=6, start=sec, with_header=piece == 0)
                f.write(data)
                total += len(data)
                lines += data.count(b"\n")
                piece += 1
        os.replace(tmp, os.path.join(out, "big.log"))
        man["big"] = {"text_bytes": total, "lines": lines}
        print(f"big.log: {total / MIB:.0f} MiB in {time.perf_counter() - t:.1f}s", file=sys.stderr)

    if "zips" in only:
        t = time.perf_counter()
        zdir = os.path.join(out, "zips")
        tmpdir = zdir + ".tmp"
        shutil.rmtree(tmpdir, ignore_errors=True)
        os.makedirs(tmpdir)
        n_zip = max(2, round(a.mb * 120 / 1024))
        total = zbytes = 0
        for i in range(n_zip):
            data, _ = lm.make(20_000 + i, 2 * MIB)
            zi = zipfile.ZipInfo("server.log", date_time=(*BASE_DAY, 5, 30, 0))
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.external_attr = 0o644 << 16
            p = os.path.join(tmpdir, zip_name(i))
            with zipfile.ZipFile(p, "w", compresslevel=6) as z:
                z.writestr(zi, data)
            total += len(data)
            zbytes += os.path.getsize(p)
        shutil.rmtree(zdir, ignore_errors=True)
        os.replace(tmpdir, zdir)
        man["zips"] = {"count": n_zip, "text_bytes": total, "zip_bytes": zbytes}
        print(f"zips: {n_zip} x ~2 MiB, {total / MIB:.0f} MiB text -> {zbytes / MIB:.0f} MiB "
              f"in {time.perf_counter() - t:.1f}s", file=sys.stderr)

    use_pigz = a.gzip == "pigz" or (a.gzip == "auto" and shutil.which("pigz"))
    gz_cmd = ["pigz", "-6", "-n", "-c"] if use_pigz else None
    gz_name = "pigz -6 -n" if use_pigz else "python zlib level 6"

    if "sparse" in only:
        # (e) --mb MiB; members of ~16 MiB: engine logs (startup evidence, then front-end
        # traffic) and client logs (no startup)
        t = time.perf_counter()
        pools = [build_sparse_pool(fl, a.seed + 104729 * (i + 1), 2048) for i, fl in enumerate(FLAVOURS)]
        n = max(2, round(a.mb / 16))
        per = a.mb * MIB // n
        members = ((sparse_member_name(i), lm.make(30_000 + i, per, with_header=i % 2 == 0, pools=pools)[0])
                   for i in range(n))
        man["sparse"] = write_targz(os.path.join(out, "sparse.tar.gz"), members, gz_cmd) | {"gzip": gz_name}
        print(f"sparse.tar.gz: {man['sparse']['members']} members, {man['sparse']['text_bytes'] / MIB:.0f} MiB "
              f"in {time.perf_counter() - t:.1f}s", file=sys.stderr)

    if "envjson" in only:
        # (f) --mb/8 MiB as a folder of multinode-style artifacts, 8 worker bundles (~1.3 MiB
        # text, ~10k evidence records) each: one artifact of this density per --mb would pass
        # the per-artifact cap of 100 000 evidence records, and then measure the overflow path
        t = time.perf_counter()
        target = max(1, a.mb // 8) * MIB
        edir = os.path.join(out, "envjson")
        tmpdir = edir + ".tmp"
        shutil.rmtree(tmpdir, ignore_errors=True)
        os.makedirs(tmpdir)
        size = w = k = 0
        tot = {"artifacts": 0, "members": 0, "text_bytes": 0, "lines": 0, "gz_bytes": 0}
        while size < target:
            members = [m for j in range(8) for m in envjson_bundle(random.Random(a.seed * 31 + w + j), lm, w + j)]
            name = (f"multinode_server_logs_dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-true"
                    f"_spec-mtp_conc{(64, 128, 256, 512)[k % 4]}_gb200-nv_{k:03d}.tar.gz")
            r = write_targz(os.path.join(tmpdir, name), iter(members), gz_cmd)
            for key in ("members", "text_bytes", "lines", "gz_bytes"):
                tot[key] += r[key]
            tot["artifacts"] += 1
            size += r["text_bytes"]
            w += 8
            k += 1
        shutil.rmtree(edir, ignore_errors=True)
        os.replace(tmpdir, edir)
        man["envjson"] = tot | {"gzip": gz_name}
        print(f"envjson/: {tot['artifacts']} artifacts, {tot['members']} members, "
              f"{tot['text_bytes'] / MIB:.0f} MiB in {time.perf_counter() - t:.1f}s", file=sys.stderr)

    if "small" in only:
        # (g) --mb/4 MiB of 1-20 KiB members (3000+ members for --mb 128)
        t = time.perf_counter()
        target = max(1, a.mb // 4) * MIB
        rng = random.Random(a.seed + 17)

        def smalls():
            size = i = 0
            while size < target:
                name, data = small_member(rng, lm, i)
                size += len(data)
                i += 1
                yield name, data

        man["small"] = write_targz(os.path.join(out, "small.tar.gz"), smalls(), gz_cmd) | {"gzip": gz_name}
        print(f"small.tar.gz: {man['small']['members']} members, {man['small']['text_bytes'] / MIB:.0f} MiB "
              f"in {time.perf_counter() - t:.1f}s", file=sys.stderr)

    man["seconds"] = round(time.perf_counter() - t0, 1)
    with open(man_path, "w") as f:
        json.dump(man, f, indent=2)
    print(f"done in {man['seconds']}s -> {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
