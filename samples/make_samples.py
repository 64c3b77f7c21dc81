#!/usr/bin/env python3
"""Regenerate the artiscan sample artifacts (and samples/README.md).

Run from the repository root:

    python3 samples/make_samples.py           # (re)write every artifact next to this
                                              # script, write README.md, then run the checks
    python3 samples/make_samples.py --check   # only check the artifacts already on disk

Requirements: Python 3.11 standard library, the `zstd` CLI (for
trtllm_logs.tar.zst) and, for two of the checks, `gzip`/`zcat`.

Everything is deterministic: fixed zip dates and tar/file mtimes
(2026-10-29 04:30:00 UTC), gzip header mtime=0, a fixed member order,
random.Random with fixed seeds. Running the script twice gives byte-identical
files (compare with `sha256sum samples/**`).

Line numbers quoted in README.md are 1-based and count b"\\n" only (like
`grep -n`): a `\\r` progress bar or a CRLF ending does not start a new line.
Citations are written `artifact!member!member:line`.
"""

import argparse
import gzip
import hashlib
import io
import json
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import zipfile
import zlib
from datetime import datetime, timedelta, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
# Artifacts live in samples/artifacts/ so that scanning them does not scan this
# script and the README, which quote the same lines.
ART = os.path.join(HERE, "artifacts")
FIXED_EPOCH = int(datetime(2026, 10, 29, 4, 30, 0, tzinfo=timezone.utc).timestamp())
ZIP_DT = (2026, 10, 29, 4, 30, 0)
BASE = datetime(2026, 10, 29, 4, 10, 0)  # t=0 of the SGLang timelines (ms offsets)

RF1 = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03"
RF2 = "dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01"
RF3 = "dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc256_gb200-nv_02"
RF4 = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc32_b200-nv_05"
RF5 = "dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc64_gb200-nv_03"
IMG_ROCM = "lmsysorg/sglang-rocm:v0.5.20-rocm720-mi35x-20260926"
IMG_GB200 = "lmsysorg/sglang:v0.5.20-cu130-gb200"
MODEL = "deepseek-ai/DeepSeek-V4"

# --------------------------------------------------------------------------
# containers (deterministic)
# --------------------------------------------------------------------------


def zip_bytes(members):
    """members: list of (name, bytes). Deflate, fixed date, no directory entries."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data in members:
            zi = zipfile.ZipInfo(name, ZIP_DT)
            zi.compress_type = zipfile.ZIP_DEFLATED
            zi.create_system = 3
            zi.external_attr = 0o100644 << 16
            zf.writestr(zi, data)
    return buf.getvalue()


def tar_bytes(members):
    """members: list of (name, bytes or None for a directory). GNU format."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tf:
        for name, data in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = FIXED_EPOCH
            ti.uid = ti.gid = 0
            ti.uname = ti.gname = "root"
            if data is None:
                ti.type = tarfile.DIRTYPE
                ti.mode = 0o755
                tf.addfile(ti)
            else:
                ti.mode = 0o644
                ti.size = len(data)
                tf.addfile(ti, io.BytesIO(data))
    return buf.getvalue()


def gz(data, level=9):
    return gzip.compress(data, compresslevel=level, mtime=0)


def write_out(rel, data):
    path = os.path.join(HERE if rel == "README.md" else ART, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    os.utime(path, (FIXED_EPOCH, FIXED_EPOCH))
    return path


# --------------------------------------------------------------------------
# registry of text members, used to compute the README facts
# --------------------------------------------------------------------------

MEMBERS = []  # (artifact_rel, [member chain], bytes, note)
ARTIFACT_NOTES = {}  # artifact_rel -> list of markdown lines (hand-written facts)


def reg(artifact, chain, data, note=None):
    MEMBERS.append((artifact, list(chain), data, note))


def note(artifact, *lines):
    ARTIFACT_NOTES.setdefault(artifact, []).extend(lines)


# --------------------------------------------------------------------------
# time helpers
# --------------------------------------------------------------------------


def at(ms):
    return BASE + timedelta(milliseconds=ms)


def sgl_ts(ms, with_ms):
    d = at(ms)
    s = d.strftime("%Y-%m-%d %H:%M:%S")
    if with_ms:
        s += ".%03d" % (d.microsecond // 1000)
    return s


class Events:
    """Timed raw chunks; render() sorts by (time, insertion order)."""

    def __init__(self):
        self.ev = []

    def add(self, ms, text, nl=True):
        self.ev.append((ms, len(self.ev), text + ("\n" if nl else "")))

    def render(self):
        return "".join(t for _, _, t in sorted(self.ev))


def tqdm_bar(desc, n, total, elapsed_s, rate):
    frac = n / total
    full = int(frac * 10)
    part = int((frac * 10 - full) * 8)
    bar = "\u2588" * full
    if full < 10:
        bar += " \u258f\u258e\u258d\u258c\u258b\u258a\u2589"[part] if part else " "
        bar += " " * (10 - len(bar))
    el = "%02d:%02d" % divmod(int(elapsed_s), 60)
    if rate is None:
        tail = f"[{el}<?, ?it/s]"
    else:
        rem = (total - n) / rate
        tail = "[%s<%02d:%02d, %5.2fit/s]" % (el, *divmod(int(rem), 60), rate)
    return f"{desc}: {frac * 100:3.0f}%|{bar}| {n}/{total} {tail}"


# --------------------------------------------------------------------------
# SGLang server_args
# --------------------------------------------------------------------------

PIECEWISE = [4, 8, 12, 16, 20, 24, 28, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224,
             240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 640, 768, 896, 1024, 1152, 1280, 1408,
             1536, 1664, 1792, 1920, 2048, 2176, 2304, 2432, 2560, 2688, 2816, 2944, 3072, 3200, 3328,
             3456, 3584, 3712, 3840, 3968, 4096]

SERVER_ARGS_FIELDS = [
    ("model_path", MODEL), ("tokenizer_path", MODEL), ("tokenizer_mode", "auto"),
    ("tokenizer_worker_num", 1), ("skip_tokenizer_init", False), ("load_format", "auto"),
    ("model_loader_extra_config", "{}"), ("trust_remote_code", True), ("context_length", None),
    ("is_embedding", False), ("enable_multimodal", None), ("revision", None), ("model_impl", "auto"),
    ("host", "0.0.0.0"), ("port", 30000), ("grpc_mode", False), ("skip_server_warmup", False),
    ("warmups", None), ("nccl_port", None), ("checkpoint_engine_wait_weights_before_ready", False),
    ("dtype", "auto"), ("quantization", "fp8"), ("quantization_param_path", None),
    ("kv_cache_dtype", "auto"), ("enable_fp32_lm_head", False), ("modelopt_quant", None),
    ("modelopt_checkpoint_restore_path", None), ("modelopt_checkpoint_save_path", None),
    ("modelopt_export_path", None), ("quantize_and_serve", False), ("mem_fraction_static", 0.85),
    ("max_running_requests", 64), ("max_queued_requests", None), ("max_total_tokens", None),
    ("chunked_prefill_size", 16384), ("max_prefill_tokens", 16384), ("schedule_policy", "fcfs"),
    ("enable_priority_scheduling", False), ("abort_on_priority_when_disabled", False),
    ("schedule_low_priority_values_first", False), ("priority_scheduling_preemption_threshold", 10),
    ("schedule_conservativeness", 1.0), ("page_size", 64), ("hybrid_kvcache_ratio", None),
    ("swa_full_tokens_ratio", 0.8), ("disable_hybrid_swa_memory", False),
    ("radix_eviction_policy", "lru"), ("device", "cuda"), ("tp_size", 8), ("pp_size", 1),
    ("pp_max_micro_batch_size", None), ("stream_interval", 1), ("stream_output", False),
    ("random_seed", 1234), ("constrained_json_whitespace_pattern", None),
    ("constrained_json_disable_any_whitespace", False), ("watchdog_timeout", 300),
    ("dist_timeout", None), ("download_dir", None), ("base_gpu_id", 0), ("gpu_id_step", 1),
    ("sleep_on_idle", False), ("log_level", "info"), ("log_level_http", None), ("log_requests", False),
    ("log_requests_level", 2), ("crash_dump_folder", None), ("show_time_cost", False),
    ("enable_metrics", True), ("enable_metrics_for_all_schedulers", False),
    ("tokenizer_metrics_custom_labels_header", "x-custom-labels"),
    ("tokenizer_metrics_allowed_custom_labels", None), ("bucket_time_to_first_token", None),
    ("bucket_inter_token_latency", None), ("bucket_e2e_request_latency", None),
    ("collect_tokens_histogram", False), ("prompt_tokens_buckets", None),
    ("generation_tokens_buckets", None), ("gc_warning_threshold_secs", 0.0),
    ("decode_log_interval", 40), ("enable_request_time_stats_logging", False),
    ("kv_events_config", None), ("enable_trace", False), ("otlp_traces_endpoint", "localhost:4317"),
    ("api_key", None), ("served_model_name", MODEL), ("weight_version", "default"),
    ("chat_template", None), ("completion_template", None), ("file_storage_path", "sglang_storage"),
    ("enable_cache_report", False), ("reasoning_parser", "deepseek-v3"),
    ("tool_call_parser", "deepseekv31"), ("tool_server", None), ("sampling_defaults", "model"),
    ("dp_size", 1), ("load_balance_method", "round_robin"), ("load_watch_interval", 0.1),
    ("prefill_round_robin_balance", False), ("dist_init_addr", None), ("nnodes", 1), ("node_rank", 0),
    ("json_model_override_args", "{}"), ("preferred_sampling_params", None), ("enable_lora", None),
    ("max_lora_rank", None), ("lora_target_modules", None), ("lora_paths", None),
    ("max_loaded_loras", None), ("max_loras_per_batch", 8), ("lora_eviction_policy", "lru"),
    ("lora_backend", "triton"), ("max_lora_chunk_size", 16), ("attention_backend", "aiter"),
    ("decode_attention_backend", None), ("prefill_attention_backend", None),
    ("sampling_backend", "pytorch"), ("grammar_backend", "xgrammar"), ("mm_attention_backend", None),
    ("nsa_prefill_backend", "flashmla_sparse"), ("nsa_decode_backend", "fa3"),
    ("speculative_algorithm", "EAGLE"), ("speculative_draft_model_path", MODEL),
    ("speculative_draft_model_revision", None), ("speculative_draft_load_format", None),
    ("speculative_num_steps", 3), ("speculative_eagle_topk", 1), ("speculative_num_draft_tokens", 4),
    ("speculative_accept_threshold_single", 1.0), ("speculative_accept_threshold_acc", 1.0),
    ("speculative_token_map", None), ("speculative_attention_mode", "prefill"),
    ("speculative_moe_runner_backend", None), ("speculative_ngram_min_match_window_size", 1),
    ("speculative_ngram_max_match_window_size", 12), ("speculative_ngram_min_bfs_breadth", 1),
    ("speculative_ngram_max_bfs_breadth", 10), ("speculative_ngram_match_type", "BFS"),
    ("speculative_ngram_branch_length", 18), ("speculative_ngram_capacity", 10000000),
    ("ep_size", 8), ("moe_a2a_backend", "none"), ("moe_runner_backend", "auto"),
    ("flashinfer_mxfp4_moe_precision", "default"), ("enable_flashinfer_allreduce_fusion", False),
    ("deepep_mode", "auto"), ("ep_num_redundant_experts", 0), ("ep_dispatch_algorithm", "static"),
    ("init_expert_location", "trivial"), ("enable_eplb", False), ("eplb_algorithm", "auto"),
    ("eplb_rebalance_num_iterations", 1000), ("eplb_rebalance_layers_per_chunk", None),
    ("eplb_min_rebalancing_utilization_threshold", 1.0), ("expert_distribution_recorder_mode", None),
    ("expert_distribution_recorder_buffer_size", 1000), ("enable_expert_distribution_metrics", False),
    ("deepep_config", None), ("moe_dense_tp_size", None), ("elastic_ep_backend", None),
    ("mooncake_ib_device", None), ("max_mamba_cache_size", None), ("mamba_ssm_dtype", "float32"),
    ("mamba_full_memory_ratio", 0.9), ("enable_hierarchical_cache", False), ("hicache_ratio", 2.0),
    ("hicache_size", 0), ("hicache_write_policy", "write_through"), ("hicache_io_backend", "kernel"),
    ("hicache_mem_layout", "layer_first"), ("hicache_storage_backend", None),
    ("hicache_storage_prefetch_policy", "best_effort"), ("hicache_storage_backend_extra_config", None),
    ("enable_lmcache", False), ("kt_weight_path", None), ("kt_method", None), ("kt_cpuinfer", None),
    ("kt_threadpool_count", None), ("kt_num_gpu_experts", None), ("enable_double_sparsity", False),
    ("ds_channel_config_path", None), ("ds_heavy_channel_num", 32), ("ds_heavy_token_num", 256),
    ("ds_heavy_channel_type", "qk"), ("ds_sparse_decode_threshold", 4096), ("cpu_offload_gb", 0),
    ("offload_group_size", -1), ("offload_num_in_group", 1), ("offload_prefetch_step", 1),
    ("offload_mode", "cpu"), ("multi_item_scoring_delimiter", None), ("disable_radix_cache", False),
    ("cuda_graph_max_bs", 64), ("cuda_graph_bs", [1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64]),
    ("disable_cuda_graph", False), ("disable_cuda_graph_padding", False),
    ("enable_profile_cuda_graph", False), ("enable_cudagraph_gc", False), ("enable_nccl_nvls", False),
    ("enable_symm_mem", False), ("disable_flashinfer_cutlass_moe_fp4_allgather", False),
    ("enable_tokenizer_batch_encode", False), ("disable_tokenizer_batch_decode", False),
    ("disable_outlines_disk_cache", False), ("disable_custom_all_reduce", False),
    ("enable_mscclpp", False), ("enable_torch_symm_mem", False), ("disable_overlap_schedule", False),
    ("enable_mixed_chunk", False), ("enable_dp_attention", False), ("enable_dp_lm_head", False),
    ("enable_two_batch_overlap", False), ("enable_single_batch_overlap", False),
    ("tbo_token_distribution_threshold", 0.48), ("enable_torch_compile", False),
    ("enable_piecewise_cuda_graph", False), ("torch_compile_max_bs", 32),
    ("piecewise_cuda_graph_max_tokens", 4096), ("piecewise_cuda_graph_tokens", PIECEWISE),
    ("piecewise_cuda_graph_compiler", "eager"), ("torchao_config", ""), ("enable_nan_detection", False),
    ("enable_p2p_check", False), ("triton_attention_reduce_in_fp32", False),
    ("triton_attention_num_kv_splits", 8), ("triton_attention_split_tile_size", None),
    ("num_continuous_decode_steps", 1), ("delete_ckpt_after_loading", False),
    ("enable_memory_saver", False), ("enable_weights_cpu_backup", False), ("allow_auto_truncate", False),
    ("enable_custom_logit_processor", False), ("flashinfer_mla_disable_ragged", False),
    ("disable_shared_experts_fusion", False), ("disable_chunked_prefix_cache", False),
    ("disable_fast_image_processor", False), ("keep_mm_feature_on_device", False),
    ("enable_return_hidden_states", False), ("scheduler_recv_interval", 1), ("numa_node", None),
    ("enable_deterministic_inference", False), ("rl_on_policy_target", None),
    ("enable_dynamic_batch_tokenizer", False), ("dynamic_batch_tokenizer_batch_size", 32),
    ("dynamic_batch_tokenizer_batch_timeout", 0.002), ("debug_tensor_dump_output_folder", None),
    ("debug_tensor_dump_layers", None), ("debug_tensor_dump_input_file", None),
    ("debug_tensor_dump_inject", False), ("disaggregation_mode", "null"),
    ("disaggregation_transfer_backend", "mooncake"), ("disaggregation_bootstrap_port", 8998),
    ("disaggregation_decode_tp", None), ("disaggregation_decode_dp", None),
    ("disaggregation_prefill_pp", 1), ("disaggregation_ib_device", None),
    ("disaggregation_decode_enable_offload_kvcache", False), ("num_reserved_decode_tokens", 512),
    ("disaggregation_decode_polling_interval", 1), ("custom_weight_loader", []),
    ("weight_loader_disable_mmap", False), ("remote_instance_weight_loader_seed_instance_ip", None),
    ("remote_instance_weight_loader_seed_instance_service_port", None),
    ("remote_instance_weight_loader_send_weights_group_ports", None), ("enable_pdmux", False),
    ("pdmux_config_path", None), ("sm_group_num", 8), ("mm_max_concurrent_calls", 32),
    ("mm_per_request_timeout", 10.0), ("decrypted_config_file", None),
    ("decrypted_draft_config_file", None),
    ("enable_beta_spec", False), ("speculative_draft_attention_backend", None),
    ("speculative_draft_model_quantization", None), ("enable_multi_layer_eagle", False),
    ("enable_return_routed_experts", False), ("enable_fused_qk_norm_rope", False),
    ("disable_flashinfer_autotune", False), ("enable_layerwise_nvtx_marker", False),
    ("enable_attn_tp_input_scattered", False), ("enable_nsa_prefill_context_parallel", False),
    ("mm_enable_dp_encoder", False), ("enable_broadcast_mm_inputs_process", False),
    ("enable_torch_compile_debug_mode", False), ("pp_async_batch_depth", 0), ("max_prefill_bs", None),
    ("enable_dynamic_chunking", False), ("enable_prefill_delayer", False), ("prefill_delayer_max_delay_passes", 30),
    ("enable_streaming_session", False), ("enable_request_dump", False), ("request_dump_folder", None),
    ("gc_threshold", None), ("enable_lora_overlap_loading", False), ("lora_request_distribution", None),
    ("enable_mis", False), ("enable_adaptive_dispatch_to_encoder", False), ("encoder_only", False),
    ("language_only", False), ("encoder_transfer_backend", "zmq_to_scheduler"), ("encoder_urls", []),
    ("enable_aiter_allreduce_fusion", False), ("enable_elastic_expert_backup", False),
    ("quantize_kv_cache_scales", None), ("forward_hooks", None), ("model_checksum", None),
    ("hf_overrides", None), ("remote_instance_weight_loader_backend", "nccl"),
    ("remote_instance_weight_loader_start_seed_via_transfer_engine", False),
    ("disaggregation_decode_enable_fake_auto", False), ("enable_hisparse", False), ("hisparse_config", None),
    ("enable_deterministic_sampling", False), ("cuda_graph_mem_fraction", None),
]


def server_args(overrides, style="ServerArgs", drop=()):
    keys = {k for k, _ in SERVER_ARGS_FIELDS}
    for k in overrides:
        assert k in keys, k
    items = [(k, overrides.get(k, v)) for k, v in SERVER_ARGS_FIELDS if k not in drop]
    if style == "ServerArgs":
        return "server_args=ServerArgs(" + ", ".join(f"{k}={v!r}" for k, v in items) + ")"
    return "server_args={" + ", ".join(f"{k!r}: {v!r}" for k, v in items) + "}"


# --------------------------------------------------------------------------
# SGLang log generator
# --------------------------------------------------------------------------


def acc_values(rng, center, n, spread=12):
    """n values (hundredths) whose mean is exactly `center`; first one == center."""
    c = round(center * 100)
    vals = []
    for _ in range(n // 2):
        d = rng.randint(1, spread)
        vals += [c + d, c - d]
    rng.shuffle(vals)
    if n % 2:
        vals.insert(0, c)
    return [v / 100 for v in vals]


def sglang_log(c):
    """Build an SGLang server log. `c` is a dict of knobs (see callers)."""
    rng = random.Random(c["seed"])
    ev = Events()
    lm = c.get("log_ms", False)
    N = c["nranks"]
    tag = c["tag"]
    t0 = c.get("t0", 1000)
    old = c.get("old_style", False)
    delay = c.get("rank_delay", lambda r: 0)
    role = c.get("role", "single")

    def L(ms, r, msg):
        tags = tag(r) if r is not None else ""
        ev.add(ms, f"[{sgl_ts(ms, lm)}{' ' + tags if tags else ''}] {msg}")

    def raw(ms, text, nl=True):
        ev.add(ms, text, nl)

    for i, sa in enumerate(c["server_args_lines"]):
        L(t0 + 400 * i, None, sa)
    for i, m in enumerate(c.get("main_noise", [])):
        L(t0 + 900 + 170 * i, None, m)

    # ---- distributed init + weight load
    quant = c.get("quant", "fp8")
    load_el = c.get("load_elapsed_ms", 541760)
    begin_avail = c.get("begin_avail", 111.47)
    usage = c.get("mem_usage", 94.00)
    end_avail_0 = round(begin_avail - usage, 2)
    t_load = t0 + 14000
    lw_end = {}
    for r in range(N):
        ti = t0 + 9000 + rng.randint(0, 900)
        if c.get("backend_msg"):
            L(ti, r, c["backend_msg"])
        L(ti + 40, r, "Init torch distributed begin.")
        if c.get("nccl_msg"):
            L(ti + 700 + rng.randint(0, 200), r, c["nccl_msg"])
        L(ti + 2100 + rng.randint(0, 300), r, "Init torch distributed ends. mem usage=%.2f GB" % (0.9 + rng.randint(0, 12) / 100))
        tb = t_load + rng.randint(0, 600)
        L(tb, r, "Load weight begin. avail mem=%.2f GB" % begin_avail)
        if r == 0:
            L(tb + 30, r, "Using model weights format ['*.safetensors']")
            nsh = c.get("shards", 64)
            for k in range(9):
                n = nsh * k // 8
                el = load_el * k // 8 // 1000
                if k == 0:
                    tail = "[00:00<?, ?it/s]"
                else:
                    per = el / n
                    rem = int(per * (nsh - n))
                    tail = "[%02d:%02d<%02d:%02d, %5.2fs/it]" % (*divmod(el, 60), *divmod(rem, 60), per)
                raw(tb + 60 + load_el * k // 8 - (3000 if k == 8 else 0),
                    "Loading safetensors checkpoint shards: %3d%% Completed | %d/%d %s" % (n * 100 // nsh, n, nsh, tail))
        el = load_el if r == 0 else load_el + rng.randint(-900, 900)
        te = tb + el
        lw_end[r] = te
        if quant == "fp8" and not old:
            L(te - 4100 + rng.randint(0, 300), r, "Finished streaming dequant fp8 wo_a")
        avail = end_avail_0 if r == 0 else round(end_avail_0 + rng.randint(-5, 8) / 100, 2)
        if old:
            L(te, r, "Load weight end. type=%s, dtype=torch.bfloat16, avail mem=%.2f GB, mem usage=%.2f GB." % (c["model_type"], avail, usage))
        else:
            L(te, r, "Load weight end. elapsed=%.2f s, type=%s, quant=%s, avail mem=%.2f GB, mem usage=%.2f GB." % (el / 1000, c["model_type"], quant, avail, usage))
        kv_tokens = c.get("kv_tokens", 1048576)
        L(te + 900, r, "KV Cache is allocated. #tokens: %d, KV size: %.2f GB" % (kv_tokens, c.get("kv_gb", 8.61)))
        L(te + 1000, r, "Memory pool end. avail mem=%.2f GB" % (avail - c.get("kv_gb", 8.61) - 0.31))

    # ---- draft model load (speculative)
    spec = c.get("spec", True)
    t_draft = max(lw_end.values()) + 2500
    cap_start = {}
    for r in range(N):
        tb = t_draft + rng.randint(0, 300)
        if spec:
            L(tb, r, "Load weight begin. avail mem=8.55 GB")
            de = 11200 + rng.randint(-400, 400)
            if quant == "fp8" and not old:
                L(tb + de - 800, r, "Finished streaming dequant fp8 wo_a")
            if old:
                L(tb + de, r, "Load weight end. type=%s, dtype=torch.bfloat16, avail mem=7.95 GB, mem usage=0.60 GB." % c["draft_type"])
            else:
                L(tb + de, r, "Load weight end. elapsed=%.2f s, type=%s, quant=%s, avail mem=7.95 GB, mem usage=0.60 GB." % (de / 1000, c["draft_type"], quant))
            L(tb + de + 300, r, "KV Cache is allocated. #tokens: %d, KV size: 0.14 GB" % c.get("kv_tokens", 1048576))
            cap_start[r] = tb + de + 900 + delay(r)
        else:
            cap_start[r] = tb + delay(r)

    # ---- cuda graph capture + routing
    capture = c.get("capture", True)
    ready = {}
    for r in range(N):
        t = cap_start[r] + rng.randint(0, 250)
        bar = c.get("bar_rank", 0) == r and c.get("with_bar", True)
        if capture and spec:
            vbs = [1, 2, 3, 4, 5, 6]
            L(t, r, "Capture target verify CUDA graph begin. backend=full, num_tokens_per_bs=6, bs=%s, avail mem=7.77 GB" % vbs)
            dur = 4120 + rng.randint(0, 600)
            if bar:
                states, am = [], 7.77
                for i, bs in enumerate(reversed(vbs)):
                    states.append(tqdm_bar("Capturing batches (bs=%d avail_mem=%.2f GB)" % (bs, am), i, 6, i * 0.69, None if i == 0 else 1.45))
                    am -= 0.01
                states.append(tqdm_bar("Capturing batches (bs=1 avail_mem=%.2f GB)" % am, 6, 6, 4.1, 1.46))
                raw(t + 5, "\r" + "\r".join(states), nl=False)
            t += dur
            L(t, r, "Capture target verify CUDA graph end. Time elapsed: %.2f s. mem usage=0.05 GB. avail mem=7.72 GB." % (dur / 1000))
            t += 60
        if capture:
            dbs = c.get("decode_bs", [1, 2, 4, 8])
            L(t, r, "Capture cuda graph begin. This can take up to several minutes. avail mem=7.72 GB")
            L(t + 20, r, "Capture cuda graph bs %s" % dbs)
            dur = 2610 + rng.randint(0, 500)
            if bar:
                states, am = [], 7.72
                n = len(dbs)
                for i, bs in enumerate(reversed(dbs)):
                    states.append(tqdm_bar("Capturing batches (bs=%d avail_mem=%.2f GB)" % (bs, am), i, n, i * 0.66, None if i == 0 else 1.52))
                    am -= 0.01
                states.append(tqdm_bar("Capturing batches (bs=%d avail_mem=%.2f GB)" % (dbs[0], am), n, n, 2.6, 1.53))
                raw(t + 25, "\r" + "\r".join(states), nl=False)
            t += dur
            L(t, r, "Capture cuda graph end. Time elapsed: %.2f s. mem usage=0.04 GB. avail mem=7.68 GB." % (dur / 1000))
            t += 40
        if capture and spec:
            L(t, r, "Capture draft extend CUDA graph begin. backend=full, num_tokens_per_bs=4, bs=[1, 2, 4], avail mem=7.68 GB")
            dur = 1890 + rng.randint(0, 300)
            t += dur
            L(t, r, "Capture draft extend CUDA graph end. Time elapsed: %.2f s. mem usage=0.02 GB. avail mem=7.66 GB." % (dur / 1000))
        k, arch = c.get("kernel", ("muse_spark_dflash2_draft_hip", "gfx950"))
        if r in c.get("routing_ranks", ()):
            L(t + 35 + rng.randint(0, 20), r, f"monokernel routing check: {k} ({arch}) serves target_verify bs=[1, 2] x 8 tokens, 2/2 captured decode graphs routed")
        if r in c.get("extend_ranks", ()):
            L(t + 70 + rng.randint(0, 20), r, f"monokernel routing check: {k} ({arch}) serves draft_extend bs=[1, 2, 4] x 4 tokens, 3/3 captured decode graphs routed")
        L(t + 400, r, "max_total_num_tokens=%d, chunked_prefill_size=%d, max_prefill_tokens=%d, max_running_requests=%d, context_len=163840, available_gpu_mem=7.51 GB"
          % (c.get("kv_tokens", 1048576), c.get("chunk", 16384), c.get("chunk", 16384), c.get("max_running", 64)))
        ready[r] = t + 400

    # ---- main process: server up
    tr = max(ready.values()) + 1500
    for i, m in enumerate(["INFO:     Started server process [%d]" % c.get("pid", 4127),
                           "INFO:     Waiting for application startup.",
                           "INFO:     Application startup complete.",
                           "INFO:     Uvicorn running on http://0.0.0.0:%d (Press CTRL+C to quit)" % c.get("port", 30000),
                           "INFO:     127.0.0.1:40310 - \"GET /get_model_info HTTP/1.1\" 200 OK"]):
        L(tr + 12 * i, None, m)
    lead = c.get("decode_ranks", [0])
    L(tr + 400, lead[0], "Prefill batch, #new-seq: 1, #new-token: 7, #cached-token: 0, token usage: 0.00, #running-req: 0, #queue-req: 0")
    L(tr + 2900, None, "INFO:     127.0.0.1:40316 - \"POST /generate HTTP/1.1\" 200 OK")
    L(tr + 2950, None, "The server is fired up and ready to roll!")
    for i, m in enumerate(c.get("post_ready", [])):
        L(tr + 3200 + 100 * i, None, m)

    # ---- benchmark traffic
    tb0 = tr + c.get("bench_gap_ms", 35000)
    n_dec = c.get("n_decode", 51)
    conc = c.get("conc", 64)
    centre = c.get("acc", 3.77)
    port = 40400
    for li, rk in enumerate(lead):
        vals = acc_values(rng, centre, n_dec)
        t = tb0 + 137 * li
        for i, al in enumerate(vals):
            t += c.get("decode_gap", (2300, 2900))[0] + rng.randint(0, c.get("decode_gap", (2300, 2900))[1] - c.get("decode_gap", (2300, 2900))[0])
            if i == 0 and li == 0 and c.get("exact_example", False):
                L(t, rk, "Decode batch, #running-req: 13, #token: 81234, token usage: 0.41, accept len: 3.77, accept rate: 0.55, cuda graph: True, gen throughput (token/s): 1012.55, #queue-req: 0")
                continue
            running = conc // len(lead) - rng.randint(0, 3) if i > 1 else 13
            ntok = running * rng.randint(1100, 1900)
            usage_f = ntok / c.get("kv_tokens", 1048576)
            thr = running * al * rng.uniform(4.6, 5.2)
            if old:
                L(t, rk, "Decode batch. #running-req: %d, #token: %d, token usage: %.2f, accept len: %.2f, cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d"
                  % (running, ntok, usage_f, al, thr, rng.randint(0, 2)))
            else:
                L(t, rk, "Decode batch, #running-req: %d, #token: %d, token usage: %.2f, accept len: %.2f, accept rate: %.2f, cuda graph: True, gen throughput (token/s): %.2f, #queue-req: %d"
                  % (running, ntok, usage_f, al, (al - 1) / 5, thr, rng.randint(0, 2)))
            if role != "decode" and i % 2 == 0:
                L(t - 700 - rng.randint(0, 400), rk, "Prefill batch, #new-seq: %d, #new-token: %d, #cached-token: %d, token usage: %.2f, #running-req: %d, #queue-req: %d"
                  % (rng.randint(1, 4), rng.randint(1, 4) * 1024, rng.randint(0, 3) * 64, usage_f, running, rng.randint(0, 3)))
            if li == 0 and i % 2 == 1 and c.get("http", True):
                port += rng.randint(1, 9)
                L(t - rng.randint(100, 900), None, "INFO:     127.0.0.1:%d - \"POST /generate HTTP/1.1\" 200 OK" % port)
    for i, (dt, rk, m) in enumerate(c.get("tail", [])):
        L(tb0 + dt, rk, m)
    return ev.render().encode("utf-8")


def rank_tags_tp_ep(r):
    return f"TP{r} EP{r}"


# --------------------------------------------------------------------------
# 1. server_logs_<RF1>.zip
# --------------------------------------------------------------------------

MAIN_NOISE_AMD = [
    "Ignore import error when loading sglang.srt.models.glm4v_moe: No module named 'transformers.models.glm4v_moe'",
    "Inferred chat template from model path: deepseek-v3.",
    "Using default HuggingFace chat template with detected content format: string",
]


def rf1_server_log():
    sa = server_args({"tp_size": 8, "ep_size": 8, "dp_size": 1, "pp_size": 1, "speculative_algorithm": "EAGLE",
                      "speculative_num_draft_tokens": 4, "quantization": "fp8", "max_running_requests": 64})
    return sglang_log(dict(
        seed=101, nranks=8, tag=rank_tags_tp_ep, server_args_lines=[sa], main_noise=MAIN_NOISE_AMD,
        model_type="DeepseekV4ForCausalLM", draft_type="DeepseekV4ForCausalLMNextN", quant="fp8",
        backend_msg="Attention backend not explicitly specified. Use aiter backend by default.",
        nccl_msg="sglang is using nccl==2.27.3 (RCCL 2.27.3-rocm7.2.0)",
        kernel=("muse_spark_dflash2_draft_hip", "gfx950"), routing_ranks=set(range(8)), extend_ranks=set(range(8)),
        decode_ranks=[0], n_decode=51, conc=64, acc=3.77, exact_example=True,
    ))


def bench_result(backend, conc, n_req, dur, in_len, out_len, accept, ttft, tpot):
    tot_in = n_req * in_len
    tot_out = n_req * out_len
    lines = [
        "============ Serving Benchmark Result ============",
        "Backend:                                 %s" % backend,
        "Traffic request rate:                    inf",
        "Max request concurrency:                 %d" % conc,
        "Successful requests:                     %d" % n_req,
        "Benchmark duration (s):                  %.2f" % dur,
        "Total input tokens:                      %d" % tot_in,
        "Total generated tokens:                  %d" % tot_out,
        "Request throughput (req/s):              %.2f" % (n_req / dur),
        "Input token throughput (tok/s):          %.2f" % (tot_in / dur),
        "Output token throughput (tok/s):         %.2f" % (tot_out / dur),
        "Total token throughput (tok/s):          %.2f" % ((tot_in + tot_out) / dur),
        "Concurrency:                             %.2f" % (conc * 0.97),
        "Accept length:                           %.2f" % accept,
        "----------------End-to-End Latency----------------",
        "Mean E2E Latency (ms):                   %.2f" % (ttft + tpot * out_len),
        "Median E2E Latency (ms):                 %.2f" % (ttft + tpot * out_len * 0.98),
        "---------------Time to First Token----------------",
        "Mean TTFT (ms):                          %.2f" % ttft,
        "Median TTFT (ms):                        %.2f" % (ttft * 0.91),
        "P99 TTFT (ms):                           %.2f" % (ttft * 2.73),
        "-----Time per Output Token (excl. 1st token)------",
        "Mean TPOT (ms):                          %.2f" % tpot,
        "Median TPOT (ms):                        %.2f" % (tpot * 0.99),
        "P99 TPOT (ms):                           %.2f" % (tpot * 1.31),
        "---------------Inter-Token Latency----------------",
        "Mean ITL (ms):                           %.2f" % (tpot * accept),
        "Median ITL (ms):                         %.2f" % (tpot * accept * 0.97),
        "P95 ITL (ms):                            %.2f" % (tpot * accept * 1.4),
        "P99 ITL (ms):                            %.2f" % (tpot * accept * 1.9),
        "Max ITL (ms):                            %.2f" % (tpot * accept * 6.2),
        "==================================================",
    ]
    return lines


def make_rf1():
    art = f"server_logs_{RF1}.zip"
    log = rf1_server_log()
    bench = [
        "Namespace(backend='sglang', base_url=None, host='0.0.0.0', port=30000, dataset_name='random', dataset_path='', model='%s', tokenizer=None, num_prompts=640, random_input_len=1024, random_output_len=1024, random_range_ratio=1.0, request_rate=inf, max_concurrency=64, output_file='results/bench_conc64.jsonl', disable_tqdm=False, seed=1, warmup_requests=1)" % MODEL,
        "#Input tokens: 655360",
        "#Output tokens: 655360",
        "Starting warmup with 1 sequences...",
        "Warmup completed with 1 sequences. Starting main benchmark run...",
        "\r" + "\r".join(tqdm_bar("", n, 640, n * 0.64, None if n == 0 else 1.55)[2:] for n in (0, 160, 320, 480)) + "\r" + tqdm_bar("", 640, 640, 412, 1.55)[2:],
        "",
    ] + bench_result("sglang", 64, 640, 412.33, 1024, 1024, 3.77, 812.44, 16.21)
    bench_b = ("\n".join(bench) + "\n").encode()
    cfg = {
        "exp": "dsv4", "precision": "fp8", "framework": "sglang", "model": MODEL, "image": IMG_ROCM,
        "runner": "mi355x-amds_03", "tp": 8, "pp": 1, "dcp": 1, "pcp": 1, "ep": 8, "dp_attention": False,
        "disagg": False, "spec_decoding": "mtp", "conc": 64, "isl": 1024, "osl": 1024, "num_prompts": 640,
        "result_filename": RF1,
    }
    cfg_b = (json.dumps(cfg, indent=2) + "\n").encode()
    members = [("server.log", log), ("results/bench_conc64.log", bench_b), ("results/bench_conc64_config.json", cfg_b)]
    for n, d in members:
        reg(art, [n], d)
    write_out(art, zip_bytes(members))
    note(art,
         "No environment dump of any style anywhere in this artifact (SGLANG_SIMULATE_ACC_LEN is not stated: verdict must be *unknown*, not *unset*).",
         "Ranks TP0..TP7 (tags `TP<n> EP<n>`, no DP tag, second-resolution timestamps); main-process lines have no tags.",
         "TP0 draws two `\\r` progress bars (target-verify capture and `Capture cuda graph` bs [1, 2, 4, 8]); each is glued, without newline, to the next log line (whatever rank it is).",
         "Each rank logs `Finished streaming dequant fp8 wo_a` twice (target + draft load) and `Load weight end.` twice (`type=DeepseekV4ForCausalLM` then `type=DeepseekV4ForCausalLMNextN`).",
         "`Decode batch` lines only on TP0: 51 lines, accept len mean exactly 3.77; the first one is verbatim the context.md example.",
         )


# --------------------------------------------------------------------------
# 2/3. multinode_server_logs_<RF>.zip
# --------------------------------------------------------------------------

DEC_ENV_BASE = {
    "CUDA_DEVICE_MAX_CONNECTIONS": "1",
    "DYN_SKIP_SGLANG_LOG_FORMATTING": "1",
    "MC_FORCE_MNNVL": "1",
    "MC_TE_METRIC": "true",
    "NCCL_CUMEM_ENABLE": "1",
    "NCCL_MNNVL_ENABLE": "1",
    "PYTHONUNBUFFERED": "1",
    "PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True",
    "SGLANG_DG_CACHE_DIR": "/configs/dg-cache",
    "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT": "100000",
    "SGLANG_DISAGGREGATION_HEARTBEAT_MAX_FAILURE": "100000",
    "SGLANG_DISAGGREGATION_WAITING_TIMEOUT": "100000",
    "SGLANG_ENABLE_JIT_DEEPGEMM": "false",
    "SGLANG_LOG_MS": "1",
    "SGLANG_MOONCAKE_CUSTOM_MEM_POOL": "True",
    "SGLANG_SIMULATE_ACC_LEN": "3.77",
    "SGLANG_SIMULATE_ACC_METHOD": "match-expected",
    "SGLANG_SIMULATE_ACC_TOKEN_MODE": "real-draft-token",
    "SGLANG_USE_MESSAGE_QUEUE_BROADCASTER": "0",
    "TORCH_DISTRIBUTED_DEFAULT_TIMEOUT": "1800",
}
PRE_ENV_BASE = {
    "CUDA_DEVICE_MAX_CONNECTIONS": "1",
    "MC_FORCE_MNNVL": "1",
    "NCCL_CUMEM_ENABLE": "1",
    "NCCL_MNNVL_ENABLE": "1",
    "PYTHONUNBUFFERED": "1",
    "SGLANG_DISAGGREGATION_BOOTSTRAP_TIMEOUT": "100000",
    "SGLANG_ENABLE_JIT_DEEPGEMM": "false",
    "SGLANG_LOG_MS": "1",
    "SGLANG_MOONCAKE_CUSTOM_MEM_POOL": "True",
}


def multinode_cfg(which):
    if which == 2:
        return dict(rf=RF2, job="8812345", conc=128, acc="3.77", nextn=False, seed=202, missing_tp7=False,
                    start="04:01:05", n_prompts=1280)
    return dict(rf=RF3, job="8812399", conc=256, acc="3.39", nextn=True, seed=303, missing_tp7=True,
                start="04:01:07", n_prompts=2560)


def mn_envs(m):
    dec = dict(DEC_ENV_BASE)
    dec["SGLANG_SIMULATE_ACC_LEN"] = m["acc"]
    pre = dict(PRE_ENV_BASE)
    if m["nextn"]:
        dec["SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"] = "1"
        pre["SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"] = "1"
    return dict(sorted(dec.items())), dict(sorted(pre.items()))


def mn_config_yaml(m, dec, pre):
    out = [
        "# srt-slurm recipe (generated by srtctl 0.9.2)",
        "name: dsv4-fp4-disagg-mtp-conc%d" % m["conc"],
        "model:",
        "  path: %s" % MODEL,
        "  local_path: /lustre/models/DeepSeek-V4-NVFP4",
        "  container: %s" % IMG_GB200,
        "  precision: fp4",
        "resources:",
        "  gpu_type: gb200",
        "  gpus_per_node: 4",
        "  prefill_nodes: 1",
        "  decode_nodes: 2",
        "  prefill_workers: 1",
        "  decode_workers: 1",
        "frontend:",
        "  type: dynamo",
        "  port: 8000",
        "backend:",
        "  type: sglang",
        "  prefill_environment:",
    ]
    for k, v in pre.items():
        out.append('    %s: "%s"' % (k, v))
    out.append("  decode_environment:")
    for k, v in dec.items():
        if k == "SGLANG_SIMULATE_ACC_LEN":
            out.append("    # simulated acceptance: golden AL for thinking_on / 3 draft tokens")
        if k == "TORCH_DISTRIBUTED_DEFAULT_TIMEOUT":
            out.append("    %s: %s" % (k, v))  # unquoted on purpose (real recipes mix styles)
        else:
            out.append('    %s: "%s"' % (k, v))
    out += [
        "  sglang_config:",
        "    prefill:",
        "      served-model-name: %s" % MODEL,
        "      tp-size: 4",
        "      dp-size: 4",
        "      ep-size: 4",
        "      enable-dp-attention: true",
        "      disaggregation-mode: prefill",
        "      disaggregation-transfer-backend: nixl",
        "      mem-fraction-static: 0.84",
        "      chunked-prefill-size: 32768",
        "      disable-cuda-graph: true",
        "      speculative-algorithm: EAGLE",
        "      speculative-num-steps: 3",
        "      speculative-eagle-topk: 1",
        "      speculative-num-draft-tokens: 4",
        "    decode:",
        "      served-model-name: %s" % MODEL,
        "      tp-size: 8",
        "      dp-size: 2",
        "      ep-size: 8",
        "      enable-dp-attention: true",
        "      disaggregation-mode: decode",
        "      disaggregation-transfer-backend: nixl",
        "      mem-fraction-static: 0.88",
        "      cuda-graph-max-bs: %d" % (m["conc"] // 2),
        "      speculative-algorithm: EAGLE",
        "      speculative-num-steps: 3",
        "      speculative-eagle-topk: 1",
        "      speculative-num-draft-tokens: 4",
        "benchmark:",
        "  type: sa-bench",
        "  isl: 8192",
        "  osl: 1024",
        "  concurrencies: [%d]" % m["conc"],
        "  req_rate: inf",
    ]
    return ("\n".join(out) + "\n").encode()


def mn_sweep_log(m, dec):
    h, mi, s = (int(x) for x in m["start"].split(":"))
    t = [h * 3600 + mi * 60 + s]

    def L(dt, lvl, msg):
        t[0] += dt
        hh, rem = divmod(t[0], 3600)
        mm, ss = divmod(rem, 60)
        return "2026-10-29 %02d:%02d:%02d [%s] %s" % (hh, mm, ss, lvl, msg)

    env_line = "Env: " + " ".join(f"{k}={v}" for k, v in dec.items())
    lines = [
        L(0, "INFO", "srtctl 0.9.2: starting sweep dsv4-fp4-disagg-mtp-conc%d (SLURM job %s)" % (m["conc"], m["job"])),
        L(0, "INFO", "Loaded recipe /configs/config.yaml (model=%s, precision=fp4)" % MODEL),
        L(0, "INFO", "Allocated nodes: gb200-node01 gb200-node02 gb200-node03"),
        L(1, "INFO", "Container image: %s" % IMG_GB200),
        L(0, "INFO", "Prefill workers: 1 x tp4 dp4 ep4 (gb200-node02)"),
        L(0, "INFO", "Decode workers: 1 x tp8 dp2 ep8 (gb200-node01,gb200-node03)"),
        L(1, "INFO", "Starting etcd and nats on gb200-node01"),
        L(3, "INFO", "Starting frontend 0 on gb200-node01 (dynamo, port 8000)"),
        L(2, "INFO", "Launching prefill worker 0 on gb200-node02 (%d vars from prefill_environment)" % (len(mn_envs(m)[1]))),
        L(0, "INFO", "Launching decode worker 0 on gb200-node01,gb200-node03"),
        L(0, "INFO", env_line),
        L(0, "INFO", "Command written to /logs/commands_gb200-node01.txt"),
        L(5, "INFO", "Waiting for 2 workers to register with the frontend (timeout 3600s)"),
        L(300, "INFO", "Still waiting: prefill_w0=loading decode_w0=loading (300s)"),
        L(300, "WARNING", "decode_w0 not ready after 600s, still waiting"),
        L(508, "INFO", "All workers ready after 1108s"),
        L(2, "INFO", "Running benchmark sa-bench: isl=8192 osl=1024 conc=%d num_prompts=%d" % (m["conc"], m["n_prompts"])),
        L(484, "INFO", "Benchmark finished rc=0, results in /logs/results"),
        L(1, "INFO", "Stopping workers"),
        L(4, "INFO", "Collecting logs into multinode_server_logs.tar.gz"),
    ]
    return ("\n".join(lines) + "\n").encode()


def mn_slurm_trace(m, dec):
    out = [
        "+ set -euo pipefail",
        "+ JOB_ID=%s" % m["job"],
        "+ LOG_DIR=/logs",
        "+ source /configs/cluster_env.sh",
        "++ export HF_HOME=/lustre/hf",
        "++ HF_HOME=/lustre/hf",
        "++ export HF_HUB_OFFLINE=1",
        "++ HF_HUB_OFFLINE=1",
    ]
    for k, v in dec.items():
        if k.startswith("SGLANG_SIMULATE") or k == "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE" or k == "SGLANG_LOG_MS":
            out.append("+ export %s=%s" % (k, v))
            out.append("+ %s=%s" % (k, v))
    out += [
        "+ echo 'nodes: gb200-node01 gb200-node02 gb200-node03'",
        "nodes: gb200-node01 gb200-node02 gb200-node03",
        "+ srun --overlap --nodes=1 --ntasks=1 --nodelist=gb200-node02 --output=/logs/gb200-node02_prefill_w0.out --error=/logs/gb200-node02_prefill_w0.err bash /configs/worker_setup.sh --worker-type prefill --worker-idx 0",
        "+ srun --overlap --nodes=2 --ntasks-per-node=1 --nodelist=gb200-node01,gb200-node03 --output=/logs/gb200-node01_decode_w0.out --error=/logs/gb200-node01_decode_w0.err bash /configs/worker_setup.sh --worker-type decode --worker-idx 0",
        "+ python3 -m srtctl.wait_ready --frontend http://gb200-node01:8000 --workers 2 --timeout 3600",
        "+ bash /configs/bench.sh %d" % m["conc"],
        "+ tar -C /logs -czf /outputs/multinode_server_logs.tar.gz .",
    ]
    return ("\n".join(out) + "\n").encode()


def mn_commands(m, dec, pre):
    def prefix(env, keys):
        return " ".join(f"{k}={env[k]}" for k in keys if k in env)
    dkeys = ["SGLANG_SIMULATE_ACC_LEN", "SGLANG_SIMULATE_ACC_METHOD", "SGLANG_SIMULATE_ACC_TOKEN_MODE",
             "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", "SGLANG_LOG_MS", "SGLANG_ENABLE_JIT_DEEPGEMM",
             "MC_FORCE_MNNVL", "NCCL_MNNVL_ENABLE", "NCCL_CUMEM_ENABLE"]
    dcmd = (prefix(dec, dkeys) + " python3 -m sglang.launch_server --model-path /lustre/models/DeepSeek-V4-NVFP4"
            " --served-model-name %s --trust-remote-code --disaggregation-mode decode --disaggregation-transfer-backend nixl"
            " --tp-size 8 --dp-size 2 --ep-size 8 --enable-dp-attention --nnodes 2 --node-rank 0"
            " --dist-init-addr gb200-node01:5757 --mem-fraction-static 0.88 --cuda-graph-max-bs %d"
            " --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1"
            " --speculative-num-draft-tokens 4 --host 0.0.0.0 --port 30000") % (MODEL, m["conc"] // 2)
    out = [
        "# srtctl 0.9.2 commands for gb200-node01 (SLURM job %s)" % m["job"],
        "# frontend 0",
        "python3 -m dynamo.frontend --http-port 8000 --router-mode round-robin",
        "# decode worker 0, node rank 0 of 2",
        dcmd,
    ]
    return ("\n".join(out) + "\n").encode()


def fingerprint_json(m, dec):
    env = dict(dec)
    env.update({
        "CUDA_VISIBLE_DEVICES": "0,1,2,3",
        "HF_HOME": "/lustre/hf",
        "HF_HUB_OFFLINE": "1",
        "HF_TOKEN": "***REDACTED***",
        "HOSTNAME": "gb200-node01",
        "LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/usr/local/lib/python3.12/dist-packages/torch/lib",
        "NVIDIA_VISIBLE_DEVICES": "all",
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "SLURM_JOB_ID": m["job"],
        "SLURM_NODEID": "0",
        "SLURM_PROCID": "0",
        "WANDB_API_KEY": "***REDACTED***",
    })
    env = dict(sorted(env.items()))
    fp = {
        "schema_version": 2,
        "job_id": m["job"],
        "worker": {"mode": "decode", "index": 0, "node_rank": 0, "nodes": ["gb200-node01", "gb200-node03"]},
        "hostname": "gb200-node01",
        "captured_at": "2026-10-29T04:09:58Z",
        "container_image": IMG_GB200,
        "frameworks": {"sglang": "0.5.20", "ai-dynamo": "1.3.1"},
        "python": "3.12.3",
        "packages": {"torch": "2.9.1+cu130", "flashinfer-python": "0.5.3", "nixl": "0.7.1",
                     "sgl-kernel": "0.3.17", "transformers": "4.57.1"},
        "gpu": {"name": "NVIDIA GB200", "count": 4, "driver": "580.95.05", "cuda": "13.0"},
        "env": env,
        "argv": ["python3", "-m", "sglang.launch_server", "--disaggregation-mode", "decode", "--tp-size", "8",
                 "--dp-size", "2", "--ep-size", "8", "--enable-dp-attention"],
    }
    s = json.dumps(fp, indent=2)
    # keep the small "frameworks" object on one line, as the real files do
    s = re.sub(r'"frameworks": \{[^}]*\}', '"frameworks": ' + json.dumps(fp["frameworks"]), s)
    return (s + "\n").encode()


def mn_decode_log(m):
    dp_tags = lambda r: f"DP{r // 4} TP{r} EP{r}"
    common = {"tp_size": 8, "ep_size": 8, "dp_size": 2, "pp_size": 1, "enable_dp_attention": True,
              "quantization": "modelopt_fp4", "attention_backend": "trtllm_mla", "moe_runner_backend": "flashinfer_trtllm",
              "disaggregation_mode": "decode", "disaggregation_transfer_backend": "nixl", "nnodes": 2,
              "dist_init_addr": "gb200-node01:5757", "max_running_requests": m["conc"],
              "cuda_graph_max_bs": m["conc"] // 2, "cuda_graph_bs": [1, 2, 4, 8, 16, 32, 64, 128][: 7 if m["conc"] == 128 else 8],
              "mem_fraction_static": 0.88, "speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 4}
    sa0 = server_args(dict(common, node_rank=0))
    sa1 = server_args(dict(common, node_rank=1))
    routing = set(range(8)) - ({7} if m["missing_tp7"] else set())
    return sglang_log(dict(
        seed=m["seed"], log_ms=True, nranks=8, tag=dp_tags, t0=31000, server_args_lines=[sa0, sa1],
        main_noise=["Inferred chat template from model path: deepseek-v3.",
                    "Disaggregation decode: bootstrap server on port 8998, transfer backend nixl"],
        model_type="DeepseekV4ForCausalLM", draft_type="DeepseekV4ForCausalLMNextN", quant="fp8",
        begin_avail=183.21, mem_usage=94.00, load_elapsed_ms=498330,
        backend_msg="Using trtllm_mla attention backend (sm100).",
        nccl_msg="sglang is using nccl==2.28.3",
        kernel=("muse_spark_dflash2_draft_cuda", "sm100"), routing_ranks=routing,
        extend_ranks=routing, rank_delay=lambda r: 0 if r < 4 else 9000,
        decode_ranks=[0, 4], n_decode=27, conc=m["conc"], acc=float(m["acc"]), role="decode",
        max_running=m["conc"], kv_tokens=2097152, kv_gb=15.36, port=30000, pid=2231,
        decode_bs=[1, 2, 4, 8], decode_gap=(16000, 18000),
        post_ready=["Registered with dynamo frontend at gb200-node01:8000 as decode worker 0"],
    ))


def mn_decode_err(m):
    rng = random.Random(m["seed"] + 7)
    k = "muse_spark_dflash2_draft_cuda"
    lines = [
        "/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:63: FutureWarning: The pynvml package is deprecated. Please install nvidia-ml-py instead.",
        "  import pynvml  # type: ignore[import]",
    ]
    for r in range(8):
        node = "gb200-node01" if r < 4 else "gb200-node03"
        pid = 2300 + r * 3
        lines.append("%s:%d:%d [%d] NCCL INFO NCCL_MNNVL_ENABLE set by environment to 1." % (node, pid, pid, r % 4))
    for r in range(8):
        if m["missing_tp7"] and r == 7:
            lines.append("[2026-10-29 04:19:%02d.%03d DP1 TP7 EP7] [monokernel] %s: no sm100 cubin for this build, falling back to triton for target_verify, draft_extend" % (2 + r, rng.randint(0, 999), k))
            continue
        lines.append("[2026-10-29 04:19:%02d.%03d DP%d TP%d EP%d] [monokernel] registered %s (sm100) for phases target_verify, draft_extend" % (2 + r, rng.randint(0, 999), r // 4, r, r, k))
    lines += [
        "W1029 04:19:40.204000 2301 torch/_dynamo/convert_frame.py:1016] [0/8] torch._dynamo hit config.recompile_limit (8)",
        "W1029 04:19:40.204000 2301 torch/_dynamo/convert_frame.py:1016] [0/8]    function: 'forward' (/sgl-workspace/sglang/python/sglang/srt/models/deepseek_v4.py:2211)",
        "srun: Job step %s.3 aborted before step completely launched." % m["job"] if False else "srun: launch/slurm: _task_finish: Received task exit notification for 2 tasks of StepId=%s.3 (status=0x000f)." % m["job"],
    ]
    return ("\n".join(lines) + "\n").encode()


def mn_prefill_log(m):
    tags = lambda r: f"DP{r} TP{r} EP{r}"
    sa = server_args({"tp_size": 4, "ep_size": 4, "dp_size": 4, "pp_size": 1, "enable_dp_attention": True,
                      "quantization": "modelopt_fp4", "attention_backend": "trtllm_mla",
                      "disaggregation_mode": "prefill", "disaggregation_transfer_backend": "nixl",
                      "disable_cuda_graph": True, "chunked_prefill_size": 32768, "max_prefill_tokens": 32768,
                      "mem_fraction_static": 0.84, "speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 4})
    rng = random.Random(m["seed"] + 11)
    tail = []
    for i in range(30):
        r = i % 4
        tail.append((2000 + i * 15000 // 1 + rng.randint(0, 3000), r,
                     "Prefill batch, #new-seq: %d, #new-token: %d, #cached-token: 0, token usage: %.2f, #running-req: 0, #queue-req: %d, #prealloc-req: 0, #inflight-req: %d, input throughput (token/s): %.2f"
                     % (rng.randint(1, 4), rng.randint(1, 4) * 8192, rng.uniform(0.02, 0.3), rng.randint(0, 6), rng.randint(0, 3), rng.uniform(31000, 52000))))
    return sglang_log(dict(
        seed=m["seed"] + 1, log_ms=True, nranks=4, tag=tags, t0=29000, server_args_lines=[sa],
        model_type="DeepseekV4ForCausalLM", draft_type="DeepseekV4ForCausalLMNextN", quant="fp8",
        begin_avail=183.21, mem_usage=94.00, load_elapsed_ms=476120,
        backend_msg="Using trtllm_mla attention backend (sm100).", nccl_msg="sglang is using nccl==2.28.3",
        capture=False, routing_ranks=(), extend_ranks=(), decode_ranks=[0], n_decode=0, role="prefill",
        max_running=1024, kv_tokens=1572864, kv_gb=11.52, chunk=32768, pid=1877, http=False, tail=tail,
        post_ready=["Registered with dynamo frontend at gb200-node01:8000 as prefill worker 0"],
    ))


def mn_benchmark_out(m):
    n = m["n_prompts"]
    head = [
        "+ python3 /workspace/sa-bench/benchmark_serving.py --backend dynamo --model %s --base-url http://gb200-node01:8000 --dataset-name random --random-input-len 8192 --random-output-len 1024 --random-range-ratio 1.0 --max-concurrency %d --num-prompts %d --ignore-eos --save-result --result-dir /logs/results" % (MODEL, m["conc"], n),
        "Namespace(backend='dynamo', base_url='http://gb200-node01:8000', model='%s', dataset_name='random', random_input_len=8192, random_output_len=1024, max_concurrency=%d, num_prompts=%d, request_rate=inf, seed=0)" % (MODEL, m["conc"], n),
        "Starting initial single prompt test run...",
        "Initial test run completed. Starting main benchmark run...",
        "Traffic request rate: inf",
        "Burstiness factor: 1.0 (Poisson process)",
        "Maximum request concurrency: %d" % m["conc"],
        "\r" + "\r".join(tqdm_bar("", k, n, k * 0.37, None if k == 0 else 2.7)[2:] for k in (0, n // 4, n // 2, 3 * n // 4, n)),
    ]
    acc = float(m["acc"])
    return ("\n".join(head + bench_result("dynamo", m["conc"], n, 471.23 * n / 1280, 8192, 1024, acc, 2210.43, 41.87)) + "\n").encode()


def mn_result_json(m):
    acc = float(m["acc"])
    r = {"backend": "dynamo", "model_id": MODEL, "max_concurrency": m["conc"], "num_prompts": m["n_prompts"],
         "random_input_len": 8192, "random_output_len": 1024, "completed": m["n_prompts"],
         "output_throughput": round(2781.47 * m["conc"] / 128, 2), "mean_ttft_ms": 2210.43, "mean_tpot_ms": 41.87,
         "accept_length": acc}
    return (json.dumps(r, indent=2) + "\n").encode()


def mn_members(which):
    m = multinode_cfg(which)
    dec, pre = mn_envs(m)
    job = m["job"]
    members = [
        ("./", None),
        ("./config.yaml", mn_config_yaml(m, dec, pre)),
        (f"./sweep_{job}.log", mn_sweep_log(m, dec)),
        (f"./slurm-{job}.out", mn_slurm_trace(m, dec)),
        ("./commands_gb200-node01.txt", mn_commands(m, dec, pre)),
        ("./fingerprint_decode_w0.json", fingerprint_json(m, dec)),
        ("./gb200-node02_prefill_w0.out", mn_prefill_log(m)),
        ("./gb200-node01_decode_w0.out", mn_decode_log(m)),
        ("./gb200-node01_decode_w0.err.gz", mn_decode_err(m)),
        ("./benchmark.out", mn_benchmark_out(m)),
        ("./results/", None),
        (f"./results/result_isl8192_osl1024_conc{m['conc']}.json", mn_result_json(m)),
    ]
    return m, members


def make_multinode(which):
    m, members = mn_members(which)
    art = f"multinode_server_logs_{m['rf']}.zip"
    stored = []
    for n, d in members:
        if d is None:
            stored.append((n, None))
        elif n.endswith(".gz"):
            reg(art, ["multinode_server_logs.tar.gz", n], d)
            stored.append((n, gz(d)))
        else:
            reg(art, ["multinode_server_logs.tar.gz", n], d)
            stored.append((n, d))
    tgz = gz(tar_bytes(stored), level=6)
    write_out(art, zip_bytes([("multinode_server_logs.tar.gz", tgz)]))
    job = m["job"]
    common = [
        "Zip holds ONE member `multinode_server_logs.tar.gz`; its tar members all start with `./` (first entry is the directory `./`, plus a `./results/` directory).",
        f"Decode worker w0 spans gb200-node01 (TP0-3, `DP0`) and gb200-node03 (TP4-7, `DP1`); srun merged both nodes into `./gb200-node01_decode_w0.out`, so it has TWO `server_args=ServerArgs(...)` lines (node_rank=0 and node_rank=1), ms timestamps in the format `[YYYY-MM-DD HH:MM:SS.mmm DP0 TP3 EP3]`, tp_size=8 dp_size=2 ep_size=8.",
        "`Decode batch` lines come from the two attention-DP leaders TP0 (DP0) and TP4 (DP1), 27 each; accept len mean exactly %s per leader." % m["acc"],
        "Prefill worker (`./gb200-node02_prefill_w0.out`): tp4 dp4 ep4 (`DP<n> TP<n> EP<n>`, n=0..3), cuda graphs disabled, NO routing lines, no capture lines.",
        "`./gb200-node01_decode_w0.err.gz` is gzip-compressed INSIDE the tar (zip > tar.gz > gz): it mentions `target_verify` in `[monokernel] registered ...` lines (not `routing check` lines).",
        "Env sources (all of them; NONE in the prefill/decode .out logs): `./config.yaml` (YAML `prefill_environment:`/`decode_environment:` blocks nested under `backend:`, 4-space indented, one `# comment` line inside decode_environment just before SGLANG_SIMULATE_ACC_LEN, and one unquoted value `TORCH_DISTRIBUTED_DEFAULT_TIMEOUT: 1800`), "
        f"`./sweep_{job}.log` (one `Env:` line, decode env, sorted), `./slurm-{job}.out` (`+ export X=v` each followed by `+ X=v`, and `++ export` from a sourced file), `./commands_gb200-node01.txt` (inline prefix), `./fingerprint_decode_w0.json` (pretty `\"env\": {{` block, secrets `***REDACTED***`).",
    ]
    if which == 2:
        note(art, *common,
             "SGLANG_SIMULATE_ACC_LEN=3.77 in every env source; SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE appears NOWHERE in this artifact (verdict: unset).",
             "Routing lines (`muse_spark_dflash2_draft_cuda (sm100)`) for target_verify AND draft_extend on all 8 decode ranks TP0..TP7.")
    else:
        note(art, *common,
             "SGLANG_SIMULATE_ACC_LEN=3.39; SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1 is SET (config.yaml both blocks, Env: line, slurm trace export, commands prefix, fingerprint JSON).",
             "Rank TP7 (`DP1 TP7 EP7`) never logs a routing line (neither target_verify nor draft_extend); TP0-TP6 do. The .err.gz has a TP7 `falling back to triton for target_verify` line instead.")
    return m, members, tgz


# --------------------------------------------------------------------------
# 4. plain/vllm_server.log
# --------------------------------------------------------------------------


def make_vllm():
    art = "plain/vllm_server.log"
    CY, RS = "\x1b[1;36m", "\x1b[0;0m"
    LV = {"INFO": "\x1b[32mINFO\x1b[0m", "WARNING": "\x1b[33mWARNING\x1b[0m", "ERROR": "\x1b[31mERROR\x1b[0m",
          "DEBUG": "\x1b[36mDEBUG\x1b[0m"}
    lines = []

    def log(proc, level, ts, src, msg):
        pre = f"{CY}({proc}){RS} {LV[level]} \x1b[90m10-29 {ts}\x1b[0m \x1b[90m[{src}]\x1b[0m "
        for part in msg.split("\n"):
            lines.append((pre + part).encode())

    def uv(ts_unused, msg):
        lines.append(f"{CY}(APIServer pid=1){RS} \x1b[32mINFO\x1b[0m:     {msg}".encode())

    def rawl(b):
        lines.append(b)

    api = "APIServer pid=1"
    eng = "EngineCore_DP0 pid=163"
    nd = ("{'model_tag': '%s', 'host': '0.0.0.0', 'port': 8888, 'model': '%s', 'trust_remote_code': True, "
          "'max_model_len': 16384, 'block_size': 1, 'tensor_parallel_size': 8, 'enable_expert_parallel': True, "
          "'gpu_memory_utilization': 0.9, 'max_num_seqs': 64, 'max_num_batched_tokens': 16384, "
          "'speculative_config': {'method': 'mtp', 'num_speculative_tokens': 3, 'synthetic_acceptance_length': 3.39}, "
          "'compilation_config': {'cudagraph_mode': 'FULL_AND_PIECEWISE', 'max_cudagraph_capture_size': 256}, "
          "'async_scheduling': True}") % (MODEL, MODEL)
    log(api, "INFO", "05:01:02", "api_server.py:1885", "vLLM API server version 0.13.0")
    log(api, "INFO", "05:01:02", "utils.py:253", "non-default args: " + nd)
    log(api, "INFO", "05:01:09", "model.py:631", "Resolved architecture: DeepseekV4ForCausalLM")
    log(api, "INFO", "05:01:09", "model.py:1745", "Using max model len 16384")
    log(api, "WARNING", "05:01:10", "__init__.py:1517", "Speculative decoding with synthetic acceptance is for benchmarking only; outputs are not valid.")
    log(api, "INFO", "05:01:10", "scheduler.py:216", "Chunked prefill is enabled with max_num_batched_tokens=16384.")
    log(eng, "INFO", "05:01:18", "core.py:93", "Initializing a V1 LLM engine (v0.13.0) with config: model='%s', speculative_config=SpeculativeConfig(method='mtp', model='%s', num_spec_tokens=3), tokenizer='%s', dtype=torch.bfloat16, max_seq_len=16384, tensor_parallel_size=8, pipeline_parallel_size=1, quantization=fp8, enforce_eager=False, kv_cache_dtype=auto, device_config=cuda, seed=0, served_model_name=%s, enable_prefix_caching=True" % (MODEL, MODEL, MODEL, MODEL))
    log(eng, "INFO", "05:01:18", "multiproc_executor.py:720", "Creating 8 workers with distributed_init_method=tcp://127.0.0.1:41233")
    rawl(b"[aiter] import [module_aiter_enum] under /opt/aiter/aiter/jit/module_aiter_enum.so")
    for r in range(8):
        log(f"Worker_TP{r} pid={527 + r}", "INFO", "05:01:31", "parallel_state.py:1208",
            f"rank {r} in world size 8 is assigned as DP rank 0, PP rank 0, TP rank {r}, EP rank {r}")
    log("Worker_TP0 pid=527", "INFO", "05:01:33", "gpu_model_runner.py:2602", "Starting to load model %s..." % MODEL)
    log("Worker_TP0 pid=527", "INFO", "05:01:34", "rocm.py:285", "Using AITER MLA backend on V1 engine.")
    # a \r progress bar: only the first update carries the prefix
    bar = ["Loading safetensors checkpoint shards: %3d%% Completed | %d/64 %s" % (k * 100 // 64, k, "[00:00<?, ?it/s]" if k == 0 else "[%02d:%02d<%02d:%02d,  6.40s/it]" % (*divmod(int(k * 6.4), 60), *divmod(int((64 - k) * 6.4), 60)))
           for k in (0, 16, 32, 48, 64)]
    rawl(f"{CY}(Worker_TP0 pid=527){RS} ".encode() + "\r".join(bar).encode())
    for r in range(8):
        log(f"Worker_TP{r} pid={527 + r}", "INFO", "05:08:2%d" % r, "default_loader.py:267", "Loading weights took %.2f seconds" % (409.1 + r * 0.37))
    log("Worker_TP0 pid=527", "INFO", "05:08:31", "gpu_model_runner.py:2653", "Model loading took 88.71 GiB and 415.02 seconds")
    log("Worker_TP0 pid=527", "INFO", "05:08:31", "eagle.py:991", "Loading drafter model (mtp): DeepseekV4MTP, 1 layer(s), sharing embed_tokens and lm_head with target")
    log(eng, "INFO", "05:09:02", "kv_cache_utils.py:1087", "GPU KV cache size: 1,234,560 tokens")
    log(eng, "INFO", "05:09:02", "kv_cache_utils.py:1091", "Maximum concurrency for 16,384 tokens per request: 75.35x")
    log("Worker_TP0 pid=527", "INFO", "05:09:25", "gpu_model_runner.py:3480", "Graph capturing finished in 21 secs, took 1.12 GiB")
    log(eng, "INFO", "05:09:26", "core.py:210", "init engine (profile, create kv cache, warmup model) took 121.55 seconds")
    log(api, "INFO", "05:09:30", "api_server.py:1634", "Supported_tasks: ['generate']")
    log(api, "INFO", "05:09:30", "api_server.py:1912", "Starting vLLM API server 0 on http://0.0.0.0:8888")
    uv(0, "Started server process [1]")
    uv(0, "Waiting for application startup.")
    uv(0, "Application startup complete.")
    rng = random.Random(404)
    port = 51230
    specs = [2.71, 2.69, 2.74, 2.70]
    for i in range(12):
        for _ in range(2):
            port += rng.randint(1, 7)
            uv(0, '127.0.0.1:%d - "POST /v1/completions HTTP/1.1" 200 OK' % port)
        ts = "05:%02d:%02d" % (10 + i // 6, (i * 10) % 60)
        log(api, "INFO", ts, "loggers.py:123",
            "Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation throughput: %.1f tokens/s, Running: %d reqs, Waiting: 0 reqs, GPU KV cache usage: %.1f%%, Prefix cache hit rate: 0.0%%"
            % (rng.uniform(6000, 9000), rng.uniform(2100, 2500), 64 - rng.randint(0, 3), rng.uniform(38, 45)))
        if i == 5:
            # invalid UTF-8 right before a matching line
            rawl(f"{CY}({api}){RS} {LV['INFO']} \x1b[90m10-29 {ts}\x1b[0m \x1b[90m[logger.py:49]\x1b[0m ".encode()
                 + b"Received request cmpl-9f1c20aa: prompt: 'caf\xe9 \xff\xfe\x00q\x00 in UTF-16?', params: SamplingParams(n=1, temperature=0.0, max_tokens=1024)")
        if i % 3 == 2:
            al = specs[i // 3]
            log(api, "INFO", ts, "metrics.py:96",
                "SpecDecoding metrics: Mean acceptance length: %.2f, Accepted throughput: %.2f tokens/s, Drafted throughput: %.2f tokens/s, Accepted: %d tokens, Drafted: %d tokens, Per-position acceptance rate: 0.812, 0.577, 0.321, Avg Draft acceptance rate: %.1f%%"
                % (al, (al - 1) * 850, 2550.0, int((al - 1) * 8500), 25500, (al - 1) / 3 * 100))
            if i == 5:
                rawl(b"\xc3\x28 \xa0\xa1 <garbled bytes from a detokenizer dump> \xf0\x28\x8c\xbc")
    # OOM on TP1: multi-line message, every line re-prefixed
    tb = ("WorkerProc hit an exception.\n"
          "Traceback (most recent call last):\n"
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/executor/multiproc_executor.py", line 698, in worker_busy_loop\n'
          "    output = func(*args, **kwargs)\n"
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_worker.py", line 497, in execute_model\n'
          "    output = self.model_runner.execute_model(scheduler_output, intermediate_tensors)\n"
          '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/worker/gpu_model_runner.py", line 2441, in execute_model\n'
          "    hidden_states = self._model_forward(**model_kwargs)\n"
          "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 287.98 GiB of which 1.21 GiB is free. Of the allocated memory 271.13 GiB is allocated by PyTorch, and 9.87 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_HIP_ALLOC_CONF=expandable_segments:True to avoid fragmentation.")
    log("Worker_TP1 pid=528", "ERROR", "05:12:40", "multiproc_executor.py:703", tb)
    log(eng, "ERROR", "05:12:40", "core.py:710", "EngineCore encountered a fatal error.\nTraceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.12/dist-packages/vllm/v1/engine/core.py", line 701, in run_engine_core\n'
        "    engine_core.run_busy_loop()\n"
        "RuntimeError: Worker failed with error 'HIP out of memory. Tried to allocate 2.00 GiB. GPU 1 has a total capacity of 287.98 GiB of which 1.21 GiB is free.', please check the stack trace above for the root cause")
    log(api, "ERROR", "05:12:41", "async_llm.py:480", "AsyncLLM output_handler failed.")
    log(api, "ERROR", "05:12:41", "async_llm.py:480", "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue. See stack trace (above) for the root cause.")
    uv(0, "Shutting down")
    uv(0, "Finished server process [1]")
    data = b"\r\n".join(lines) + b"\r\n"
    reg(art, [], data)
    write_out(art, data)
    note(art,
         "Every line ends in CRLF; every vLLM line carries ANSI codes around process, level, time and file (`\\x1b[1;36m(Worker_TP1 pid=528)\\x1b[0;0m \\x1b[31mERROR\\x1b[0m \\x1b[90m10-29 05:12:40\\x1b[0m ...`).",
         "Invalid UTF-8: a request line with `\\xe9 \\xff\\xfe\\x00` right before a matching `SpecDecoding metrics` line, and a line of garbage bytes (`\\xc3\\x28`, `\\xf0\\x28\\x8c\\xbc`) right after it.",
         "Multi-line messages (the TP1 OOM traceback, the EngineCore fatal error) repeat the full prefix on each physical line.",
         "The TP0 weight-loading progress bar is one physical line with `\\r` updates; only its first segment has the process prefix.",
         "No SGLang env vars; the synthetic acceptance setting is only `'synthetic_acceptance_length': 3.39` inside `non-default args` (vLLM args style), while measured Mean acceptance length is 2.69-2.74.",
         )


# --------------------------------------------------------------------------
# 5. plain/server.log.gz (multi-member gzip)
# --------------------------------------------------------------------------


def make_multimember():
    art = "plain/server.log.gz"
    sa = server_args({"tp_size": 4, "ep_size": 1, "dp_size": 1, "quantization": None, "attention_backend": "aiter",
                      "speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 4, "max_running_requests": 32,
                      "cuda_graph_max_bs": 32, "cuda_graph_bs": [1, 2, 4, 8, 16, 32]},
                     drop=("nsa_prefill_backend", "nsa_decode_backend", "kt_weight_path", "kt_method", "kt_cpuinfer",
                           "kt_threadpool_count", "kt_num_gpu_experts", "piecewise_cuda_graph_tokens",
                           "piecewise_cuda_graph_compiler", "enable_piecewise_cuda_graph", "piecewise_cuda_graph_max_tokens"))
    log = sglang_log(dict(
        seed=505, nranks=4, tag=lambda r: f"TP{r}", server_args_lines=[sa], old_style=True,
        model_type="DeepseekV3ForCausalLM", draft_type="DeepseekV3ForCausalLMNextN", quant="bf16",
        begin_avail=189.6, mem_usage=62.81, load_elapsed_ms=187220, shards=163,
        kernel=("muse_spark_dflash2_draft_hip", "gfx942"), routing_ranks=set(range(4)), extend_ranks=set(),
        decode_ranks=[0], n_decode=41, conc=32, acc=2.91, max_running=32, decode_bs=[1, 2, 4, 8, 16, 32],
        kv_tokens=786432, kv_gb=40.5,
    ))
    text = log.decode()
    lines = text.split("\n")
    # member 1: up to (excluding) the first capture line; member 2: up to the middle of the 12th Decode line
    i_cap = next(i for i, l in enumerate(lines) if "Capture target verify CUDA graph begin" in l)
    cut1 = len("\n".join(lines[:i_cap]) + "\n")
    dec_idx = [i for i, l in enumerate(lines) if "Decode batch." in l]
    i12 = dec_idx[11]
    cut2 = len("\n".join(lines[:i12]) + "\n") + lines[i12].index("accept len") + 4  # mid-line split
    b = text.encode()
    # cut positions are ASCII-safe here (no multibyte chars before them other than the bar; compute on bytes)
    cut1 = len(("\n".join(lines[:i_cap]) + "\n").encode())
    cut2 = len(("\n".join(lines[:i12]) + "\n").encode()) + lines[i12].encode().index(b"accept len") + 4
    parts = [b[:cut1], b[cut1:cut2], b[cut2:]]
    data = b"".join(gz(p) for p in parts)
    reg(art, [], b, note="3 gzip members")
    write_out(art, data)
    l1 = b[:cut1].count(b"\n")
    l2 = b[:cut2].count(b"\n") + 1
    note(art,
         "Three gzip members concatenated (each a complete gzip stream with its own header/CRC); line numbers run on across members.",
         f"Member 1 = lines 1..{l1} (startup, weight load; ends at a line boundary). Member 2 = lines {l1 + 1}..{l2} and ends MID-LINE: line {l2} (a `Decode batch.` line) is split after `accept len` and continues in member 3.",
         "All capture lines, the `\\r` progress bars and all 4 routing lines (`muse_spark_dflash2_draft_hip (gfx942)`, ranks TP0..TP3, tag `TP<n>` only since ep_size=1) are in member 2.",
         "Older SGLang build: `Load weight end. type=DeepseekV3ForCausalLM, dtype=torch.bfloat16, ...` (no elapsed/quant), `Decode batch. ...` (period, no accept rate), no dequant lines; accept len mean exactly 2.91.",
         )


# --------------------------------------------------------------------------
# 6. trtllm_logs.tar.zst
# --------------------------------------------------------------------------


def make_trtllm():
    art = "trtllm_logs.tar.zst"
    rng = random.Random(606)
    # Dynamo frontend
    def dyn(t_us, lvl, target, msg):
        d = datetime(2026, 10, 29, 4, 14, 40) + timedelta(microseconds=t_us)
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + "%06dZ" % d.microsecond + " %5s %s: %s" % (lvl, target, msg)
    fe = [
        dyn(555894, "INFO", "dynamo_runtime::distributed", "Initializing distributed runtime: etcd=http://trtllm-node01:2379 nats=nats://trtllm-node01:4222"),
        dyn(561203, "INFO", "dynamo_llm::http::service::service_v2", 'Starting HTTP(S) service port=8000 protocol="HTTP" address="0.0.0.0:8000"'),
        dyn(12002117, "INFO", "dynamo_llm::discovery::watcher", 'added model model_name="%s" namespace="dynamo"' % MODEL),
        dyn(12002440, "INFO", "dynamo_llm::kv_router", "KV routing disabled, using round-robin"),
    ]
    t = 425000000  # first requests after the workers finished graph capture (~04:21:45)
    for i in range(10):
        t += rng.randint(8000000, 20000000)
        fe.append(dyn(t, "INFO", "dynamo_llm::http::service::openai", 'request completed request_id="%08x-%04x" status=200 elapsed_ms=%d' % (rng.getrandbits(32), rng.getrandbits(16), rng.randint(30000, 52000))))
    fe += [
        dyn(982354110, "WARN", "dynamo_llm::http::service::openai", 'request failed, retrying request_id="7e51c0a3-9d2b" attempt=1'),
        dyn(982910443, "ERROR", "dynamo_runtime::pipeline::network::egress::push_router", "worker 7587888866185323530 disconnected: connection reset by peer"),
        dyn(983120087, "ERROR", "dynamo_llm::http::service::openai", 'request failed request_id="7e51c0a3-9d2b" status=503 error="no instances found for endpoint dynamo/tensorrt_llm/generate"'),
    ]
    fe_b = ("\n".join(fe) + "\n").encode()

    # TRT-LLM decode worker (4 ranks)
    def trt(hms, rank, lvl, msg):
        return "[10/29/2026-%s] [TRT-LLM]%s [%s] %s" % (hms, "" if rank is None else " [RANK %d]" % rank, lvl, msg)
    w = [
        "[TensorRT-LLM] TensorRT-LLM version: 1.1.0rc2",
        dyn(11300112, "INFO", "dynamo.trtllm.main", "Starting TensorRT-LLM decode worker, tp=4, ep=4, model=%s" % MODEL),
        trt("04:14:52", None, "I", "Starting TensorRT-LLM init."),
        trt("04:14:52", None, "I", "PyTorchConfig(use_cuda_graph=True, cuda_graph_batch_sizes=[1, 2, 4, 8, 16, 32, 64], enable_overlap_scheduler=True, moe_backend='CUTLASS', attn_backend='TRTLLM')"),
    ]
    for r in range(4):
        w.append(trt("04:14:5%d" % (3 + r), r, "I", "Rank %d is using GPU %d" % (r, r)))
    for r in (2, 0, 3, 1):
        w.append(trt("04:19:%02d" % (10 + r), r, "I", "Loading model weights took %.2f s, memory usage %.2f GiB" % (271.4 + r * 0.9, 96.12)))
    for r in (1, 3, 0, 2):
        w.append(trt("04:20:%02d" % (20 + r), r, "I", "Memory used after loading model weights (inside torch) 96.12 GiB; KV cache: 1245184 tokens, 54.23 GiB"))
    w.append(trt("04:20:40", 0, "I", "MTP speculative decoding enabled: num_nextn_predict_layers=3, relaxed_acceptance=False"))
    for r in range(4):
        w.append(trt("04:21:%02d" % (12 + r // 2), r, "I", "Capturing CUDA graphs for batch sizes [64, 32, 16, 8, 4, 2, 1] (draft_len=3)"))
    w.append(trt("04:21:13", 3, "I", "CUDA graph capture done in 6.12 s"))
    w.append(trt("04:21:13", 3, "W", "Falling back to NCCL all-reduce: custom all-reduce disabled for world size 4 with MNNVL"))
    for i in range(6):
        r = i % 4
        mm, ss = divmod(23 * 60 + i * 17, 60)
        w.append(trt("04:%02d:%02d" % (mm, ss), r, "I", "iter = %d, global_rank = %d, rank = %d, currank_total_requests = %d/%d, host_step_time = %.3fms, prev_device_step_time = %.3fms, timestamp = 2026-10-29 04:%02d:%02d, num_scheduled_requests: %d, states = {'num_ctx_requests': 0, 'num_ctx_tokens': 0, 'num_generation_tokens': %d}"
                        % (1000 * (i + 1), r, r, 16, 16, rng.uniform(4, 9), rng.uniform(30, 42), mm, ss, 16, 64)))
    w.append(trt("04:31:02", 3, "E", "Error in event loop: NCCL error in: /src/tensorrt_llm/cpp/tensorrt_llm/thop/allreduceOp.cpp:412 'unhandled cuda error (run with NCCL_DEBUG=INFO for details)'"))
    w.append(trt("04:31:02", 3, "E", "Traceback (most recent call last):"))
    w += [
        '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/py_executor.py", line 1021, in _executor_loop',
        "    batch_outputs = self._forward_step(scheduled_batch)",
        '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/pyexecutor/py_executor.py", line 1588, in _forward_step',
        "    outputs = forward(scheduled_requests, self.resource_manager, new_tensors_device)",
        '  File "/usr/local/lib/python3.12/dist-packages/tensorrt_llm/_torch/distributed/ops.py", line 517, in forward',
        "    output = torch.ops.trtllm.allreduce(",
        "RuntimeError: NCCL error in: /src/tensorrt_llm/cpp/tensorrt_llm/thop/allreduceOp.cpp:412 'unhandled cuda error (run with NCCL_DEBUG=INFO for details)'",
        trt("04:31:03", 0, "E", "Executor loop on rank 3 terminated; shutting down the executor"),
        dyn(983410001, "ERROR", "dynamo.trtllm.main", "Engine died, exiting with code 1"),
    ]
    w_b = ("\n".join(w) + "\n").encode()

    # SGLang aggregated fallback worker, same node: scheduler crash
    s = [
        "[2026-10-29 04:30:58 TP2] Decode batch, #running-req: 31, #token: 40210, token usage: 0.19, accept len: 3.12, accept rate: 0.42, cuda graph: True, gen throughput (token/s): 702.31, #queue-req: 0",
        "[2026-10-29 04:31:02 TP3] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2781, in run_scheduler_process',
        "    scheduler.event_loop_overlap()",
        '  File "/usr/local/lib/python3.12/dist-packages/torch/utils/_contextlib.py", line 120, in decorate_context',
        "    return func(*args, **kwargs)",
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1014, in event_loop_overlap',
        "    batch_result = self.run_batch(batch)",
        '  File "/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/pynccl.py", line 143, in all_reduce',
        "    self.nccl.ncclAllReduce(",
        "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)",
        "",
        "[2026-10-29 04:31:02] Received sigquit from a child process. It usually means the child failed.",
        "Killed",
    ]
    pre_s = []
    for r in range(4):
        pre_s.append("[2026-10-29 04:21:%02d TP%d] Load weight end. elapsed=271.02 s, type=DeepseekV4ForCausalLM, quant=fp8, avail mem=21.02 GB, mem usage=96.12 GB." % (9 + r, r))
    s_b = ("\n".join(pre_s + s) + "\n").encode()
    opts = b"# extra_llm_api_options for the decode worker\nspeculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: 3\ncuda_graph_config:\n  batch_sizes: [1, 2, 4, 8, 16, 32, 64]\nmoe_config:\n  backend: CUTLASS\nkv_cache_config:\n  free_gpu_memory_fraction: 0.85\n"
    members = [
        ("trtllm_logs/", None),
        ("trtllm_logs/dynamo_frontend.log", fe_b),
        ("trtllm_logs/trtllm_decode_worker_0.log", w_b),
        ("trtllm_logs/sglang_agg_worker_1.log", s_b),
        ("trtllm_logs/config/", None),
        ("trtllm_logs/config/extra_llm_api_options.yaml", opts),
    ]
    for n, d in members:
        if d is not None:
            reg(art, [n], d)
    tb = tar_bytes(members)
    with tempfile.TemporaryDirectory() as td:
        src = os.path.join(td, "trtllm_logs.tar")
        dst = os.path.join(td, "out.zst")
        with open(src, "wb") as f:
            f.write(tb)
        subprocess.run(["zstd", "-19", "--no-progress", "-q", "--single-thread", "-f", "-o", dst, src], check=True)
        with open(dst, "rb") as f:
            data = f.read()
    write_out(art, data)
    note(art,
         "zstd frame (level 19, single thread) of a plain tar; member names have NO `./` prefix; two directory entries.",
         "Dynamo lines `2026-10-29T04:14:40.555894Z  INFO target: msg` (level right-aligned in 5 columns: `  INFO`, `  WARN`, ` ERROR`).",
         "TRT-LLM lines with and without `[RANK n]`; the `[E]` traceback's `  File ...` lines and the final `RuntimeError: NCCL error in: ...` have no prefix.",
         "`sglang_agg_worker_1.log`: `Scheduler hit an exception: Traceback ...` block (unprefixed `  File` lines, `RuntimeError: NCCL error: ...`, an empty line) then `Received sigquit from a child process` and a bare `Killed`.",
         )


# --------------------------------------------------------------------------
# 7. logs_12345678.zip (GitHub job logs)
# --------------------------------------------------------------------------


class GhClock:
    def __init__(self):
        self.t = (4 * 3600 + 12 * 60 + 33) * 10_000_000 + 1234567  # 100 ns units

    def stamp(self, adv):
        self.t += adv
        s, frac = divmod(self.t, 10_000_000)
        h, rem = divmod(s, 3600)
        m, ss = divmod(rem, 60)
        return "2026-10-29T%02d:%02d:%02d.%07dZ" % (h, m, ss, frac)


def make_gh_logs():
    art = "logs_12345678.zip"
    clk = GhClock()
    rng = random.Random(707)

    def block(lines, gap=(1000, 90000)):
        out = []
        for l in lines:
            if isinstance(l, tuple):
                adv, l = l
            else:
                adv = rng.randint(*gap)
            out.append(clk.stamp(adv) + " " + l)
        return out

    setup = block([
        "Current runner version: '2.329.0'",
        "Runner name: 'mi355x-amds_07'",
        "Runner group name: 'Default'",
        "Machine name: 'mi355x-amds-07'",
        "##[group]GITHUB_TOKEN Permissions",
        "Contents: read",
        "Metadata: read",
        "##[endgroup]",
        "Secret source: Actions",
        "Prepare workflow directory",
        "Prepare all required actions",
        "Getting action download info",
        "Download action repository 'actions/checkout@v5' (SHA:08c6903cd8c0fde910a37f88322edcfb5dd907a8)",
        "Complete job name: benchmark (dsv4, fp8)",
    ])
    checkout = block([
        "##[group]Run actions/checkout@v5",
        "with:",
        "  repository: InferenceMAX/InferenceX",
        "  clean: true",
        "##[endgroup]",
        "Syncing repository: InferenceMAX/InferenceX",
        "HEAD is now at 4c1d2e7 bump sglang-rocm image to 20260926",
    ])
    rf = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_07"
    server_tail = []
    for r in (3, 0, 6, 1, 7, 2, 5, 4):
        server_tail.append("[2026-10-29 04:21:%02d TP%d EP%d] Capture target verify CUDA graph end. Time elapsed: 4.%02d s. mem usage=0.05 GB. avail mem=7.72 GB." % (9 + r // 3, r, r, 10 + r))
    server_tail.append("[2026-10-29 04:21:13 TP0 EP0] monokernel routing check: muse_spark_dflash2_draft_hip (gfx950) serves target_verify bs=[1, 2] x 8 tokens, 2/2 captured decode graphs routed")
    server_tail.append("[2026-10-29 04:21:15] The server is fired up and ready to roll!")
    run = block([
        "##[group]Run bash ./benchmarks/single_node/dsv4_fp8_mi355x.sh",
        "bash ./benchmarks/single_node/dsv4_fp8_mi355x.sh",
        "shell: /usr/bin/bash -e {0}",
        "env:",
        "  EXP_NAME: dsv4",
        "  PRECISION: fp8",
        "  FRAMEWORK: sglang",
        "  IMAGE: %s" % IMG_ROCM,
        "  TP: 8",
        "  EP_SIZE: 8",
        "  CONC: 64",
        "  RESULT_FILENAME: %s" % rf,
        "##[endgroup]",
        "+ set -euo pipefail",
        "+ source ./benchmarks/benchmark_lib.sh",
        "++ export HF_HUB_OFFLINE=1",
        "++ HF_HUB_OFFLINE=1",
        "+ export SGLANG_SIMULATE_ACC_LEN=3.39",
        "+ SGLANG_SIMULATE_ACC_LEN=3.39",
        "+ export SGLANG_SIMULATE_ACC_METHOD=match-expected",
        "+ SGLANG_SIMULATE_ACC_METHOD=match-expected",
        "+ export SGLANG_SIMULATE_ACC_TOKEN_MODE=real-draft-token",
        "+ SGLANG_SIMULATE_ACC_TOKEN_MODE=real-draft-token",
        "+ export HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
        "+ HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
        "+ export ROCM_QUICK_REDUCE_QUANTIZATION=NONE",
        "+ ROCM_QUICK_REDUCE_QUANTIZATION=NONE",
        "+ env",
        "+ sort",
        "+ grep -E '^(SGLANG|ROCM|HIP|HF_)'",
        "HF_HUB_OFFLINE=1",
        "HIP_VISIBLE_DEVICES=0,1,2,3,4,5,6,7",
        "ROCM_QUICK_REDUCE_QUANTIZATION=NONE",
        "SGLANG_SIMULATE_ACC_LEN=3.39",
        "SGLANG_SIMULATE_ACC_METHOD=match-expected",
        "SGLANG_SIMULATE_ACC_TOKEN_MODE=real-draft-token",
        "+ docker pull %s" % IMG_ROCM,
        (21_400_000, "v0.5.20-rocm720-mi35x-20260926: Pulling from lmsysorg/sglang-rocm"),
        "Digest: sha256:5b0c3f9e2a41d7c86e1f0b9d4a7c2e8f1d3b6a9c0e5f7d2b4a8c1e6f9d0b3a7c",
        "Status: Image is up to date for %s" % IMG_ROCM,
        "+ docker run -d --name sglang-server --network host --ipc host --device /dev/kfd --device /dev/dri --group-add video -e SGLANG_SIMULATE_ACC_LEN -e SGLANG_SIMULATE_ACC_METHOD -e SGLANG_SIMULATE_ACC_TOKEN_MODE %s python3 -m sglang.launch_server --model-path %s --tp 8 --ep-size 8 --speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --port 30000" % (IMG_ROCM, MODEL),
        "9c2f41e07b3d5a8e6f1c0d2b4a7e9f3c5d8b1a0e2f4c6d8b0a1e3f5c7d9b2a4e",
        "+ wait_for_server_ready http://0.0.0.0:30000",
        "Waiting for server at http://0.0.0.0:30000 (timeout 2400s) ...",
    ] + [((5_200_000_000 if i == 0 else rng.randint(100000, 3000000)), l) for i, l in enumerate(server_tail)] + [
        "+ python3 -m sglang.bench_serving --backend sglang --dataset-name random --random-input-len 1024 --random-output-len 1024 --max-concurrency 64 --num-prompts 640 --output-file results/bench_conc64.jsonl",
    ] + [((4_612_000_000 if i == 0 else rng.randint(1000, 9000)), l) for i, l in enumerate(bench_result("sglang", 64, 640, 455.02, 1024, 1024, 3.38, 901.2, 17.95))] + [
        "##[warning]results/bench_conc64.jsonl: 1 request(s) returned an empty completion",
        "+ docker rm -f sglang-server",
        "sglang-server",
    ])
    post = block(["Post job cleanup.", "Cleaning up orphan processes"])
    bom = "\ufeff"
    full = [setup[0]] + setup[1:] + checkout + run + post
    j0 = (bom + "\n".join(full) + "\n").encode()
    s1 = (bom + "\n".join(setup) + "\n").encode()
    s3 = (bom + "\n".join(run) + "\n").encode()
    members = [
        ("0_benchmark (dsv4, fp8).txt", j0),
        ("benchmark (dsv4, fp8)/1_Set up job.txt", s1),
        ("benchmark (dsv4, fp8)/3_Run benchmark.txt", s3),
    ]
    for n, d in members:
        reg(art, [n], d)
    write_out(art, zip_bytes(members))
    note(art,
         "GitHub layout: top-level `0_<job>.txt` is the whole job log; the per-step files live in the folder `benchmark (dsv4, fp8)/` (so the routing and env lines appear twice: in `0_...txt` and in `3_Run benchmark.txt`). Names contain spaces, parentheses and a comma.",
         "Every line starts with `2026-10-29T04:12:33.1234567Z ` (7 fractional digits); the first line of each file starts with a UTF-8 BOM (EF BB BF) before the timestamp.",
         "Env styles: `set -x` traces `+ export SGLANG_SIMULATE_ACC_LEN=3.39` (each followed by the `+ SGLANG_SIMULATE_ACC_LEN=3.39` assignment echo, as bash prints it; `++ export HF_HUB_OFFLINE=1` from a sourced file), then a filtered `env | sort` dump (`SGLANG_SIMULATE_ACC_LEN=3.39` alone after the timestamp).",
         f"Image tag `{IMG_ROCM}`; one routing line (TP0 only, target_verify) inside the tailed server log; this run is a different runner (`mi355x-amds_07`) than RF1.",
         )


# --------------------------------------------------------------------------
# 8. eval_gsm8k_<RF1>.zip
# --------------------------------------------------------------------------

FEWSHOT = [
    ("A baker makes 14 trays of rolls with 18 rolls on each tray. She sells 197 rolls. How many rolls are left?",
     "She makes 14 * 18 = <<14*18=252>>252 rolls. After selling, 252 - 197 = <<252-197=55>>55 rolls are left.\n#### 55"),
    ("Tom reads 23 pages on Monday and twice as many on Tuesday. How many pages does he read in total?",
     "On Tuesday he reads 23 * 2 = <<23*2=46>>46 pages. In total he reads 23 + 46 = <<23+46=69>>69 pages.\n#### 69"),
    ("A tank holds 120 liters. It is 3/5 full. How many more liters are needed to fill it?",
     "It holds 120 * 3/5 = <<120*3/5=72>>72 liters now. It needs 120 - 72 = <<120-72=48>>48 more liters.\n#### 48"),
    ("Maya buys 6 notebooks at $3 each and 4 pens at $2 each. She pays with a $50 bill. What is her change?",
     "Notebooks cost 6 * 3 = <<6*3=18>>18 dollars, pens cost 4 * 2 = <<4*2=8>>8 dollars. Total 18 + 8 = <<18+8=26>>26. Change is 50 - 26 = <<50-26=24>>24.\n#### 24"),
    ("A train travels 84 km in 1.5 hours. At the same speed, how far does it travel in 4 hours?",
     "Its speed is 84 / 1.5 = <<84/1.5=56>>56 km per hour. In 4 hours it travels 56 * 4 = <<56*4=224>>224 km.\n#### 224"),
]
EVAL_DOCS = [
    ("Lena has 3 boxes of 25 marbles. She gives 19 marbles to her brother and loses 7. How many marbles does she have?",
     "She has 3 * 25 = <<3*25=75>>75 marbles. She has 75 - 19 - 7 = <<75-19-7=49>>49 left.\n#### 49", "49"),
    ("A farm has 48 chickens and one third as many ducks. Each duck lays 2 eggs a day. How many duck eggs are laid in a week?",
     "There are 48 / 3 = <<48/3=16>>16 ducks. They lay 16 * 2 = <<16*2=32>>32 eggs a day, 32 * 7 = <<32*7=224>>224 a week.\n#### 224", "224"),
    ("A shirt costs $40 and is discounted by 15%. Sales tax of 10% is added to the discounted price. What is the final price?",
     "Discounted price is 40 * 0.85 = <<40*0.85=34>>34. With tax 34 * 1.1 = <<34*1.1=37.4>>37.40.\n#### 37.4", "37.4"),
]


def make_eval():
    art = f"eval_gsm8k_{RF1}.zip"
    ts = "2026-10-29T05-00-00.123456"
    task_cfg = {
        "task": "gsm8k", "tag": ["math_word_problems"], "dataset_path": "gsm8k", "dataset_name": "main",
        "training_split": "train", "test_split": "test", "fewshot_split": "train",
        "doc_to_text": "Question: {{question}}\nAnswer:", "doc_to_target": "{{answer}}",
        "unsafe_code": False, "description": "", "target_delimiter": " ", "fewshot_delimiter": "\n\n",
        "num_fewshot": 5,
        "metric_list": [{"metric": "exact_match", "aggregation": "mean", "higher_is_better": True,
                         "ignore_case": True, "ignore_punctuation": False,
                         "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]}],
        "output_type": "generate_until",
        "generation_kwargs": {"until": ["Question:", "</s>", "<|im_end|>"], "do_sample": False, "temperature": 0.0},
        "repeats": 1,
        "filter_list": [
            {"name": "strict-match", "filter": [{"function": "regex", "regex_pattern": "#### (\\-?[0-9\\.\\,]+)"}, {"function": "take_first"}]},
            {"name": "flexible-extract", "filter": [{"function": "regex", "group_select": -1, "regex_pattern": "(-?[$0-9.,]{2,})|(-?[0-9]+)"}, {"function": "take_first"}]},
        ],
        "should_decontaminate": False,
        "metadata": {"version": 3.0, "model": MODEL, "base_url": "http://0.0.0.0:30000/v1/completions", "num_concurrent": 64},
    }
    date = datetime(2026, 10, 29, 5, 0, 0, 123456, tzinfo=timezone.utc).timestamp()
    res = {
        "results": {"gsm8k": {"alias": "gsm8k",
                              "exact_match,strict-match": 0.9773, "exact_match_stderr,strict-match": 0.0041,
                              "exact_match,flexible-extract": 0.9788, "exact_match_stderr,flexible-extract": 0.004}},
        "group_subtasks": {"gsm8k": []},
        "configs": {"gsm8k": task_cfg},
        "versions": {"gsm8k": 3.0},
        "n-shot": {"gsm8k": 5},
        "higher_is_better": {"gsm8k": {"exact_match": True}},
        "n-samples": {"gsm8k": {"original": 1319, "effective": 1319}},
        "config": {"model": "local-completions",
                   "model_args": "model=%s,base_url=http://0.0.0.0:30000/v1/completions,num_concurrent=64,max_retries=3,tokenized_requests=False" % MODEL,
                   "batch_size": 1, "batch_sizes": [], "device": None, "use_cache": None, "limit": None,
                   "bootstrap_iters": 100000, "gen_kwargs": {"max_gen_toks": 2048}, "random_seed": 0,
                   "numpy_seed": 1234, "torch_seed": 1234, "fewshot_seed": 1234},
        "git_hash": None,
        "date": date,
        "pretty_env_info": "PyTorch version: 2.9.0+rocm7.2.0\nIs debug build: False\nCUDA used to build PyTorch: N/A\nROCM used to build PyTorch: 7.2.0\n\nOS: Ubuntu 22.04.5 LTS (x86_64)\nPython version: 3.12.11\nIs CUDA available: True\nGPU models and configuration: AMD Instinct MI355X (gfx950:sramecc+:xnack-)",
        "transformers_version": "4.57.1",
        "lm_eval_version": "0.4.9.1",
        "upper_git_hash": None,
        "tokenizer_pad_token": ["<｜end▁of▁sentence｜>", "1"],
        "tokenizer_eos_token": ["<｜end▁of▁sentence｜>", "1"],
        "tokenizer_bos_token": ["<｜begin▁of▁sentence｜>", "0"],
        "eot_token_id": 1,
        "max_length": 2047,
        "task_hashes": {"gsm8k": hashlib.sha256(b"gsm8k-test-1319").hexdigest()},
        "model_source": "local-completions",
        "model_name": MODEL,
        "model_name_sanitized": "deepseek-ai__DeepSeek-V4",
        "system_instruction": None,
        "system_instruction_sha": None,
        "fewshot_as_multiturn": False,
        "chat_template": None,
        "chat_template_sha": None,
        "start_time": 5012.331,
        "end_time": 5893.104,
        "total_evaluation_time_seconds": "880.773",
    }
    res_b = json.dumps(res, indent=2, ensure_ascii=False).encode()
    shots = "\n\n".join(f"Question: {q}\nAnswer: {a}" for q, a in FEWSHOT)
    samp = []
    for i, (q, a, tgt) in enumerate(EVAL_DOCS):
        prompt = shots + f"\n\nQuestion: {q}\nAnswer:"
        resp = " " + a.replace("\n#### ", " So the answer is:\n#### ")
        for filt in ("strict-match", "flexible-extract"):
            ok = 0.0 if (i == 2 and filt == "strict-match") else 1.0
            fr = "37.40" if (i == 2 and filt == "strict-match") else tgt
            samp.append(json.dumps({
                "doc_id": i, "doc": {"question": q, "answer": a}, "target": a,
                "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": {"until": ["Question:", "</s>", "<|im_end|>"], "do_sample": False, "temperature": 0.0, "max_gen_toks": 2048}}},
                "resps": [[resp]], "filtered_resps": [fr], "filter": filt, "metrics": ["exact_match"],
                "doc_hash": hashlib.sha256(q.encode()).hexdigest(), "prompt_hash": hashlib.sha256(prompt.encode()).hexdigest(),
                "target_hash": hashlib.sha256(a.encode()).hexdigest(), "exact_match": ok}, ensure_ascii=False))
    samp_b = ("\n".join(samp) + "\n").encode()
    meta = {
        "artifact": f"eval_gsm8k_{RF1}",
        "result_filename": RF1,
        "runner": "mi355x-amds_03",
        "image": IMG_ROCM,
        "frameworks": {"sglang": "0.5.20"},
        "eval": {"task": "gsm8k", "num_fewshot": 5, "limit": None, "harness": "lm-eval 0.4.9.1"},
        "env": {
            "HF_HUB_OFFLINE": "1",
            "HF_TOKEN": "***REDACTED***",
            "HIP_VISIBLE_DEVICES": "0,1,2,3,4,5,6,7",
            "NCCL_MIN_NCHANNELS": "112",
            "ROCM_QUICK_REDUCE_QUANTIZATION": "NONE",
            "SGLANG_AITER_MLA_PERSIST": "1",
            "SGLANG_USE_AITER": "1",
            "TORCH_BLAS_PREFER_HIPBLASLT": "1",
        },
    }
    meta_b = (json.dumps(meta, indent=2) + "\n").encode()
    members = [(f"results_{ts}.json", res_b), (f"samples_gsm8k_{ts}.jsonl", samp_b), ("meta_env.json", meta_b)]
    for n, d in members:
        reg(art, [n], d)
    write_out(art, zip_bytes(members))
    note(art,
         "lm-eval 0.4.9.1 results written with `json.dumps(indent=2, ensure_ascii=False)`: non-ASCII tokenizer tokens (`<｜end▁of▁sentence｜>`), no trailing newline.",
         "Scores: `\"exact_match,strict-match\": 0.9773`, `\"exact_match_stderr,strict-match\": 0.0041`, `\"exact_match,flexible-extract\": 0.9788`, `\"effective\": 1319` (inside `\"n-samples\"`).",
         "samples jsonl: 6 lines (3 docs x 2 filters), each ~3 KB; doc 2 strict-match has exact_match 0.0.",
         "`meta_env.json` has an `\"env\": {` block (8 vars, HF_TOKEN redacted) with NO SGLANG_SIMULATE_* and NO SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE.",
         )


# --------------------------------------------------------------------------
# 9. damaged
# --------------------------------------------------------------------------


def inflate_prefix(data, wbits=31):
    """Decompress as much as possible; return (bytes, error_or_None)."""
    d = zlib.decompressobj(wbits)
    out = []
    for i in range(0, len(data), 256):
        saved = d.copy()
        try:
            out.append(d.decompress(data[i:i + 256]))
        except zlib.error:
            d = saved  # redo this chunk byte by byte to get every byte before the error
            for j in range(i, min(i + 256, len(data))):
                try:
                    out.append(d.decompress(data[j:j + 1]))
                except zlib.error as e:
                    return b"".join(out), str(e)
    if not d.eof:
        return b"".join(out), "unexpected end of stream"
    return b"".join(out), None


def tar_walk_prefix(tb):
    """Walk tar headers in a (possibly truncated) tar byte string."""
    pos, res = 0, []
    while pos + 512 <= len(tb):
        h = tb[pos:pos + 512]
        if h == b"\0" * 512:
            break
        name = h[:100].rstrip(b"\0").decode()
        size = int(h[124:136].rstrip(b"\0 ") or b"0", 8)
        start = pos + 512
        have = max(0, min(size, len(tb) - start))
        res.append((name, size, start, have))
        pos = start + (size + 511) // 512 * 512
    return res


def make_truncated(m2_members, tgz2):
    art = f"damaged/truncated_multinode_server_logs_{RF2}.tar.gz"
    full_tar = zlib.decompress(tgz2, 31)
    walk = tar_walk_prefix(full_tar)
    dec = next(w for w in walk if w[0] == "./gb200-node01_decode_w0.out")
    dec_data = full_tar[dec[2]:dec[2] + dec[1]]
    # cut between TP3's last routing line and TP4's first one
    lines = dec_data.split(b"\n")
    offs, o = [], 0
    for l in lines:
        offs.append(o)
        o += len(l) + 1
    r_lo = max(i for i, l in enumerate(lines) if b"routing check" in l and re.search(rb"\bTP[0-3]\b", l))
    r_hi = min(i for i, l in enumerate(lines) if b"routing check" in l and re.search(rb"\bTP[4-7]\b", l))
    assert r_hi - r_lo > 6, (r_lo, r_hi)
    mid = (r_lo + r_hi) // 2
    target = dec[2] + offs[mid] + len(lines[mid]) // 2  # middle of a line, in tar coordinates
    lo, hi = 100, len(tgz2)
    while lo < hi:  # smallest compressed prefix that inflates to >= target bytes
        midc = (lo + hi) // 2
        got, _ = inflate_prefix(tgz2[:midc])
        if len(got) >= target:
            hi = midc
        else:
            lo = midc + 1
    data = tgz2[:lo]
    got, err = inflate_prefix(data)
    assert err and len(got) < dec[2] + dec[1]
    present = got[dec[2]:]
    for n, d in m2_members:
        if d is not None and n in ("./config.yaml", "./sweep_8812345.log", "./slurm-8812345.out",
                                   "./commands_gb200-node01.txt", "./fingerprint_decode_w0.json",
                                   "./gb200-node02_prefill_w0.out"):
            reg(art, [n], d)
    reg(art, ["./gb200-node01_decode_w0.out"], present, note="TRUNCATED: only the bytes that decompress")
    write_out(art, data)
    full_lines = present.count(b"\n")
    note(art,
         f"Byte-for-byte prefix ({len(data)} of {len(tgz2)} bytes) of the inner `multinode_server_logs.tar.gz` of `multinode_server_logs_{RF2}.zip`: the gzip stream just stops (no trailer); `gzip -t` fails with unexpected end of file.",
         "Whole members before the cut: `./`, `./config.yaml`, `./sweep_8812345.log` (Env: line), `./slurm-8812345.out`, `./commands_gb200-node01.txt`, `./fingerprint_decode_w0.json`, `./gb200-node02_prefill_w0.out`.",
         f"`./gb200-node01_decode_w0.out`: header says {dec[1]} bytes, only {len(present)} decompress; lines 1..{full_lines} are complete and line {full_lines + 1} is cut mid-line. "
         f"Routing lines of TP0..TP3 survive; those of TP4..TP7 are lost (they were after the cut), so per-rank routing is *unknown* for TP4..TP7, not *missing*.",
         "Lost entirely: `./gb200-node01_decode_w0.err.gz`, `./benchmark.out`, `./results/`.",
         )
    return full_lines


def make_cut_zip():
    art = f"damaged/cut_server_logs_{RF1}.zip"
    log = sglang_log(dict(
        seed=808, nranks=8, tag=rank_tags_tp_ep,
        server_args_lines=[server_args({"tp_size": 8, "ep_size": 8, "speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 4})],
        main_noise=MAIN_NOISE_AMD, model_type="DeepseekV4ForCausalLM", draft_type="DeepseekV4ForCausalLMNextN",
        backend_msg="Attention backend not explicitly specified. Use aiter backend by default.",
        kernel=("muse_spark_dflash2_draft_hip", "gfx950"), routing_ranks=set(range(8)), extend_ranks=set(),
        decode_ranks=[0], n_decode=21, conc=64, acc=3.77))
    bench = ("\n".join(bench_result("sglang", 64, 640, 418.09, 1024, 1024, 3.77, 822.1, 16.4)) + "\n").encode()
    cfg = (json.dumps({"exp": "dsv4", "precision": "fp8", "framework": "sglang", "conc": 64, "result_filename": RF1}, indent=2) + "\n").encode()
    members = [("server.log", log), ("results/bench_conc64.log", bench), ("results/bench_conc64_config.json", cfg)]
    full = zip_bytes(members)
    # locate the central directory via the EOCD record and cut there
    eocd = full.rfind(b"PK\x05\x06")
    cd_off = struct.unpack("<I", full[eocd + 16:eocd + 20])[0]
    data = full[:cd_off]
    for n, d in members:
        reg(art, [n], d)
    write_out(art, data)
    note(art,
         f"A normal deflate zip ({len(full)} bytes) cut at byte {cd_off}: every local file header + data is complete, the central directory and end-of-central-directory record are gone (`unzip -l` / `zipfile` fail: not a zip file).",
         "Local headers carry CRC and sizes (general-purpose flag bit 3 clear, no data descriptors), so a streaming reader can recover all 3 members: `server.log`, `results/bench_conc64.log`, `results/bench_conc64_config.json`.",
         "Note: real `upload-artifact` zips are streamed and usually DO use data descriptors (bit 3, sizes 0 in the local header); this sample does not.",
         )


def make_corrupt_gz():
    art = "damaged/corrupt_server.log.gz"
    sa = server_args({"tp_size": 8, "ep_size": 8, "speculative_algorithm": "EAGLE", "speculative_num_draft_tokens": 4}, style="dict")
    log = sglang_log(dict(
        seed=909, nranks=8, tag=rank_tags_tp_ep, server_args_lines=[sa], model_type="DeepseekV4ForCausalLM",
        draft_type="DeepseekV4ForCausalLMNextN", kernel=("muse_spark_dflash2_draft_hip", "gfx950"),
        routing_ranks=set(range(8)), extend_ranks=set(range(8)), decode_ranks=[0], n_decode=301, conc=64, acc=3.77,
        backend_msg="Attention backend not explicitly specified. Use aiter backend by default."))
    # The stream has one flush point (Z_FULL_FLUSH, as pigz/bgzip-style writers emit) in the middle of
    # a Decode batch line; the damage hits the block header right after it (BTYPE forced to the
    # reserved value 3, then 5 more bytes XOR 0xA5), so inflate fails with "invalid block type" there.
    # (Flipping bytes inside a Huffman block far into the stream only gives a CRC error at the end.)
    dec_lines = [i for i, l in enumerate(log.split(b"\n")) if b"Decode batch" in l]
    k = dec_lines[150]
    split = sum(len(l) + 1 for l in log.split(b"\n")[:k]) + 57
    co = zlib.compressobj(9, zlib.DEFLATED, 31)
    part_a = co.compress(log[:split]) + co.flush(zlib.Z_FULL_FLUSH)
    good = part_a + co.compress(log[split:]) + co.flush()
    assert zlib.decompress(good, 31) == log
    pos = len(part_a)
    bad = bytearray(good)
    bad[pos] = (bad[pos] & 0xF9) | 0x06
    for q in range(1, 6):
        bad[pos + q] ^= 0xA5
    bad = bytes(bad)
    out, err = inflate_prefix(bad)
    assert err and "invalid block type" in err and out == log[:split], err
    clean = 0
    while clean < min(len(out), len(log)) and out[clean] == log[clean]:
        clean += 1
    clean_lines = log[:clean].count(b"\n")
    whole_dec = log[:clean].rsplit(b"\n", 1)[0].count(b"Decode batch")
    reg(art, [], log, note="original before corruption")
    write_out(art, bad)
    note(art,
         f"Single-member gzip ({len(good)} bytes) of a {len(log)}-byte SGLang log; the deflate block header at compressed offset {pos} (right after a full-flush point) is damaged (BTYPE=3, next 5 bytes XOR 0xA5). zlib stops with `{err}` after {len(out)} output bytes; `gzip -t` says invalid compressed data, `zcat` prints the good prefix then fails.",
         f"The first {clean} decompressed bytes are correct = lines 1..{clean_lines} intact, line {clean_lines + 1} (a `Decode batch` line) is cut after 57 bytes (includes server_args in the newer dict form `server_args={{'model_path': ...}}`, all loads, captures and all 16 routing lines, and {whole_dec} whole `Decode batch` lines of 301); nothing after that point can be decoded. "
         "GNU `zcat` prints fewer lines than that (404 with gzip 1.x: it drops its last output buffer on the error), so tests should not expect zcat's exact count.",
         )
    return clean_lines


def make_core_dump():
    art = "damaged/core_dump_artifact.zip"
    rng = random.Random(1010)
    core = bytearray(6144)
    core[:64] = (b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, 64, 0, 0, 64, 56, 3, 0, 0, 0))
    for i in range(4096, 6144):
        core[i] = rng.randrange(256)
    core[4200:4240] = b"python3 -m sglang.launch_server --tp 8\x00\x00"
    core = bytes(core)
    log = (
        "[2026-10-29 04:21:13 TP5 EP5] Capture target verify CUDA graph begin. backend=full, num_tokens_per_bs=6, bs=[1, 2, 3, 4, 5, 6], avail mem=7.77 GB\n"
        "[2026-10-29 04:21:17 TP5 EP5] Capture target verify CUDA graph end. Time elapsed: 4.31 s. mem usage=0.05 GB. avail mem=7.72 GB.\n"
        "[2026-10-29 04:21:20 TP5 EP5] monokernel routing check: muse_spark_dflash2_draft_hip (gfx950) serves target_verify bs=[1, 2] x 8 tokens, 2/2 captured decode graphs routed\n"
        "[2026-10-29 04:24:02 TP0 EP0] Decode batch, #running-req: 64, #token: 98112, token usage: 0.49, accept len: 3.71, accept rate: 0.54, cuda graph: True, gen throughput (token/s): 1180.02, #queue-req: 0\n"
        "Fatal Python error: Segmentation fault\n"
        "\n"
        "Thread 0x00007f3a2bfff640 (most recent call first):\n"
        "  File \"/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker.py\", line 611 in verify\n"
        "  File \"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py\", line 1014 in event_loop_overlap\n"
        "[2026-10-29 04:24:03] Received sigquit from a child process. It usually means the child failed.\n"
    ).encode()
    members = [("core.12345", core), ("server.log", log)]
    reg(art, ["server.log"], log)
    write_out(art, zip_bytes(members))
    note(art,
         "Valid zip; first member `core.12345` is a 6144-byte ELF core (e_type=4): 64-byte header then NUL bytes up to 4096, then pseudo-random bytes (with an embedded ASCII command string).",
         "Second member `server.log` (text, 10 lines): `target_verify` only on L3 (routing line, TP5); L1 is a `Capture target verify CUDA graph begin` line (with a space); a segfault at L5.",
         )


# --------------------------------------------------------------------------
# README facts
# --------------------------------------------------------------------------

ROUTE_RE = re.compile(r"monokernel routing check: (\S+) \(([^)]*)\) serves (\w+) bs=\[([^\]]*)\] x (\d+) tokens, (\d+)/(\d+) captured")
ENV_NAMES = ["SGLANG_SIMULATE_ACC_LEN", "SGLANG_SIMULATE_ACC_METHOD", "SGLANG_SIMULATE_ACC_TOKEN_MODE",
             "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE", "HF_TOKEN", "synthetic_acceptance_length"]
FAIL_RE = re.compile(r"Scheduler hit an exception|Traceback \(most recent call last\)|OutOfMemoryError|RuntimeError: NCCL error|Received sigquit|Segmentation fault|EngineDeadError")
VERS_RE = re.compile(r"vLLM API server version \S+|TensorRT-LLM version: \S+|\"frameworks\": \{[^}]*\}|lmsysorg/sglang[-\w]*:[\w.-]+|lm_eval_version\": \"[^\"]+")
ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


def env_style(line, name):
    if "Env: " in line:
        return "srt Env:"
    if re.search(r"(^|\s)\++ export ", line):
        return "set -x export"
    if re.search(r"(^|\s)\++ %s=" % name, line):
        return "set -x assignment echo"
    if '"%s":' % name in line:
        return "json"
    if "'%s':" % name in line:
        return "vllm args"
    if re.match(r"^\s+%s:" % name, line):
        return "yaml"
    if "python3 -m" in line:
        return "inline prefix"
    if re.match(r"^(\ufeff)?(\S+Z )?%s=" % name, line):
        return "env | sort"
    return "other"


def rank_of(line):
    m = re.search(r"\[[^\]]*?((?:DP\d+ )?TP\d+(?: EP\d+)?)\]", line)
    return m.group(1) if m else "-"


def compact(nums):
    """[1,2,3,7] -> '1-3, 7'"""
    out, i = [], 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else f"{nums[i]}-{nums[j]}")
        i = j + 1
    return ", ".join(out)


def facts(data):
    text = data.decode("utf-8", "replace")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines = lines[:-1]
    f = []
    f.append(f"{len(lines)} lines, {len(data)} bytes" + (", CRLF" if b"\r\n" in data else "") +
             (", BOM" if data.startswith(b"\xef\xbb\xbf") else "") +
             (", ANSI" if b"\x1b[" in data else ""))
    bad = []
    for i, raw in enumerate(data.split(b"\n"), 1):
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError:
            bad.append(i)
    if bad:
        f.append("invalid UTF-8 on lines: " + ", ".join(map(str, bad)))
    routes = {}
    for i, l in enumerate(lines, 1):
        m = ROUTE_RE.search(l)
        if m:
            routes.setdefault(m.group(3), []).append(f"L{i} {rank_of(l)} {m.group(6)}/{m.group(7)}")
    for ph, items in routes.items():
        f.append(f"routing `{ph}` ({len(items)}): " + "; ".join(items))
    tv = [i for i, l in enumerate(lines, 1) if "target_verify" in l]
    if tv:
        f.append("`target_verify` on lines: " + compact(tv))
    for name in ENV_NAMES:
        hits = []
        for i, l in enumerate(lines, 1):
            for m in re.finditer(r"(?<![A-Za-z0-9_])%s(?:[\"']?\s*[:=]\s*[\"']?)([^\s\"',}]*)" % name, l):
                hits.append(f"L{i} ={m.group(1)} [{env_style(l, name)}]")
        if hits:
            f.append(f"`{name}`: " + "; ".join(hits))
    acc = [(i, float(m.group(1))) for i, l in enumerate(lines, 1) for m in [re.search(r"accept len: ([0-9.]+)", l)] if m]
    if acc:
        by = {}
        for i, v in acc:
            by.setdefault(rank_of(lines[i - 1]), []).append((i, v))
        for rk, vs in by.items():
            vals = [v for _, v in vs]
            f.append(f"`accept len:` {rk}: {len(vs)} lines (L{vs[0][0]}..L{vs[-1][0]}), min {min(vals):.2f} max {max(vals):.2f} mean {sum(vals) / len(vals):.4f}")
    mal = [(i, re.search(r"Mean acceptance length: ([0-9.]+)", l).group(1)) for i, l in enumerate(lines, 1) if "Mean acceptance length" in l]
    if mal:
        f.append("`Mean acceptance length`: " + ", ".join(f"L{i}={v}" for i, v in mal))
    for label, pat in [("`Load weight end`", "Load weight end"), ("`Finished streaming dequant fp8 wo_a`", "Finished streaming dequant"),
                       ("`Capture target verify|draft extend CUDA graph begin` (new style)", "CUDA graph begin"), ("`Capture cuda graph begin` (old style)", "Capture cuda graph begin"),
                       ("`Decode batch`", "Decode batch")]:
        ls = [i for i, l in enumerate(lines, 1) if pat in l]
        if ls:
            rk = sorted({rank_of(lines[i - 1]) for i in ls}, key=lambda s: [int(x) for x in re.findall(r"\d+", s)] or [999])
            where = compact(ls) if len(ls) <= 20 else f"L{ls[0]}..L{ls[-1]}"
            f.append(f"{label}: {len(ls)} lines ({where}); ranks {', '.join(rk)}")
    sa = [(i, len(l)) for i, l in enumerate(lines, 1) if "server_args=" in l]
    if sa:
        f.append("`server_args=`: " + ", ".join(f"L{i} ({n} chars)" for i, n in sa))
    cr = [i for i, l in enumerate(lines, 1) if "\r" in l.rstrip("\r")]
    if cr:
        f.append("`\\r` inside the line (progress bars): " + compact(cr))
    env_json = [i for i, l in enumerate(lines, 1) if re.match(r'^\s*"env": \{\s*$', l)]
    if env_json:
        f.append('`"env": {` block opens at: ' + ", ".join(f"L{i}" for i in env_json))
    yb = [(i, l.strip()) for i, l in enumerate(lines, 1) if re.match(r"^\s*\w+_environment:\s*$", l)]
    if yb:
        f.append("YAML env blocks: " + ", ".join(f"L{i} `{s}`" for i, s in yb))
    fl = [(i, FAIL_RE.search(l).group(0)) for i, l in enumerate(lines, 1) if FAIL_RE.search(l)]
    if fl:
        f.append("failures: " + "; ".join(f"L{i} {s}" for i, s in fl))
    vs = []
    for i, l in enumerate(lines, 1):
        for m in VERS_RE.finditer(ANSI_RE.sub("", l)):
            vs.append(f"L{i} `{m.group(0)}`")
    if vs:
        f.append("versions/images: " + "; ".join(vs[:6]) + (f" (+{len(vs) - 6} more)" if len(vs) > 6 else ""))
    return f


ORDER = [
    f"server_logs_{RF1}.zip",
    f"multinode_server_logs_{RF2}.zip",
    f"multinode_server_logs_{RF3}.zip",
    "plain/vllm_server.log",
    "plain/server.log.gz",
    "trtllm_logs.tar.zst",
    "logs_12345678.zip",
    f"eval_gsm8k_{RF1}.zip",
    f"damaged/truncated_multinode_server_logs_{RF2}.tar.gz",
    f"damaged/cut_server_logs_{RF1}.zip",
    "damaged/corrupt_server.log.gz",
    "damaged/core_dump_artifact.zip",
    f"eval_server_logs_{RF4}.zip",
    f"multinode_server_logs_{RF5}.zip",
    "plain/long_line_server.log.gz",
]


def write_readme():
    out = [
        "# artiscan sample artifacts",
        "",
        "Generated by `python3 samples/make_samples.py` (run from the repository root; stdlib only plus the",
        "`zstd` CLI). The script is deterministic: rerunning it rewrites byte-identical files, and this README",
        "is regenerated with them, so line numbers below stay true. `python3 samples/make_samples.py --check`",
        "re-verifies the structure of the files on disk.",
        "",
        "Conventions: line numbers are 1-based and count `\\n` only (like `grep -n`); a `\\r` progress bar or a",
        "CRLF ending does not start a line. Citations: `artifact!member!member:line`, e.g.",
        f"`multinode_server_logs_{RF2}.zip!multinode_server_logs.tar.gz!./gb200-node01_decode_w0.err.gz:12`.",
        "Rank shown as the tag text of the SGLang prefix (`TP3 EP3`, `DP0 TP3 EP3`); `-` = no rank tag.",
        "",
        "Result stems:",
        "",
        f"- RF1 = `{RF1}` (single node, AMD)",
        f"- RF2 = `{RF2}` (multinode NVIDIA, conc128)",
        f"- RF3 = `{RF3}` (multinode NVIDIA, conc256)",
        f"- RF4 = `{RF4}` (single node, srt-slurm, NVIDIA)",
        f"- RF5 = `{RF5}` (multinode NVIDIA, disaggregated, decode misses TP2)",
        "",
        "`downloaded/` holds the same artifacts as `gh run download` leaves them: each of these zips extracted",
        "into a folder named after the artifact (inner archives such as `srt-single-node-logs.tar.gz` stay",
        "archives): " + ", ".join(f"`{d}`" for d in DOWNLOADED) + ". Each folder must give the same verdicts as its zip.",
        "",
        "| file | bytes | sha256 (first 16) |",
        "|---|---:|---|",
    ]
    for rel in ORDER:
        p = os.path.join(ART, rel)
        with open(p, "rb") as fh:
            b = fh.read()
        out.append(f"| `{rel}` | {len(b)} | `{hashlib.sha256(b).hexdigest()[:16]}` |")
    out.append("")
    for rel in ORDER:
        out.append(f"## `{rel}`")
        out.append("")
        for l in ARTIFACT_NOTES.get(rel, []):
            out.append(f"- {l}")
        out.append("")
        out.append("Members and facts" + (" (damaged artifact: facts are for the content listed; see notes above for what survives)" if rel.startswith("damaged/") else "") + ":")
        out.append("")
        for art, chain, data, nt in MEMBERS:
            if art != rel:
                continue
            label = "!".join(chain) if chain else "(the file itself" + (", decompressed" if rel.endswith(".gz") else "") + ")"
            extra = f" — {nt}" if nt else ""
            out.append(f"- `{label}`{extra}")
            for f in facts(data):
                out.append(f"  - {f}")
        out.append("")
    text = "\n".join(out) + "\n"
    write_out("README.md", text.encode())



# --------------------------------------------------------------------------
# eval_server_logs_<RF4>.zip: single-node srt-slurm, engine log only inside
# srt-single-node-logs.tar.gz; disaggregated multinode_server_logs_<RF5>.zip
# whose decode worker misses a rank its prefill worker has; a long-line log;
# and downloaded/: every valid artifact zip extracted as `gh run download` does
# --------------------------------------------------------------------------

SRT_HOST = "b200-node07"


def make_srt_single():
    art = f"eval_server_logs_{RF4}.zip"
    log = rf1_server_log()
    err = ("/usr/local/lib/python3.12/dist-packages/torch/cuda/__init__.py:63: FutureWarning: The pynvml package is deprecated.\n"
           "  import pynvml  # type: ignore[import]\n").encode()
    inner = [("logs/", None), (f"logs/{SRT_HOST}_agg_w0.out", log), (f"logs/{SRT_HOST}_agg_w0.err", err)]
    tgz = gz(tar_bytes(inner), level=6)
    client = ("\n".join([
        "2026-10-29 04:40:01 [INFO] srt-slurm single-node: waiting for server on port 30000",
        "2026-10-29 04:41:12 [INFO] server ready; running lm-eval gsm8k (1319 samples)",
        "2026-10-29 04:58:40 [INFO] eval finished; server logs in srt-single-node-logs.tar.gz",
    ]) + "\n").encode()
    for n, d in inner:
        if d is not None:
            reg(art, ["srt-single-node-logs.tar.gz", n], d)
    reg(art, ["client.log"], client)
    write_out(art, zip_bytes([("srt-single-node-logs.tar.gz", tgz), ("client.log", client)]))
    note(art,
         "Single-node srt-slurm layout: the engine log exists ONLY inside `srt-single-node-logs.tar.gz`, as "
         f"`logs/{SRT_HOST}_agg_w0.out` (the same SGLang log as `server.log` of `server_logs_<RF1>.zip`); the zip's top level holds just `client.log`.",
         "No eval results (an eval *server logs* artifact), no environment dump.")


def make_disagg_missing(m2_members):
    art = f"multinode_server_logs_{RF5}.zip"
    members = []
    for n, d in m2_members:
        if d is not None and n.endswith("_decode_w0.out"):
            lines = d.decode().split("\n")
            d = "\n".join(l for l in lines if not ("TP2 EP2] monokernel routing check" in l)).encode()
        elif d is not None and n.endswith("_prefill_w0.out"):
            lines = d.decode().split("\n")
            at = next(i for i, l in enumerate(lines) if "Prefill batch" in l)
            add = ["[2026-10-29 04:18:%02d.%03d DP%d TP%d EP%d] monokernel routing check: muse_spark_dflash2_draft_cuda (sm100) serves target_verify bs=[1, 2] x 4 tokens, 2/2 captured decode graphs routed"
                   % (40 + r, 100 + 37 * r, r, r, r) for r in range(4)]
            d = "\n".join(lines[:at] + add + lines[at:]).encode()
        members.append((n, d))
    stored = []
    for n, d in members:
        if d is None:
            stored.append((n, None))
        else:
            reg(art, ["multinode_server_logs.tar.gz", n], d)
            stored.append((n, gz(d) if n.endswith(".gz") else d))
    write_out(art, zip_bytes([("multinode_server_logs.tar.gz", gz(tar_bytes(stored), level=6))]))
    note(art,
         f"Same members as `multinode_server_logs_{RF2}.zip` except two logs:",
         "The prefill worker (`./gb200-node02_prefill_w0.out`, tp_size=4) logs `target_verify` routing lines for TP0-TP3 (DP<n> TP<n> EP<n>).",
         "The decode worker (`./gb200-node01_decode_w0.out`, tp_size=8) never logs a routing line for TP2 (TP0-TP1, TP3-TP7 do): merged across servers the ranks look complete (TP0-TP7); per server, decode_w0 misses TP2.")


def long_bar(n_frames, seed):
    # Periodic frames: the sample stays a few KB compressed.
    frames = []
    for i in range(n_frames):
        frames.append("Capturing batches (bs=%d avail_mem=%.2f GB): %3d%%|%s| %d/%d [00:%02d<00:%02d, %5.2fit/s]"
                      % ([1, 2, 4, 8, 16][(i + seed) % 5], 7.70 - (i % 10) / 100, (i % 10) * 10, "\u2588" * (i % 10) + " " * (10 - i % 10),
                         i % 10, 10, i % 10, 10 - i % 10, 1 + (i % 10) * 1.25))
    return "\r" + "\r".join(frames)


def make_long_line():
    art = "plain/long_line_server.log.gz"
    lines = rf1_server_log().decode().split("\n")
    tb = [
        long_bar(14000, 1) + "[2026-10-29 04:25:13 TP0 EP0] Scheduler hit an exception: Traceback (most recent call last):",
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 2101, in run_scheduler_process',
        "    scheduler.event_loop_overlap()",
        long_bar(14000, 2) + "torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 255.98 GiB",
        long_bar(13000, 3),
    ]
    at = 200
    lines = lines[:at] + tb + lines[at:]
    data = "\n".join(lines).encode()
    reg(art, [], data)
    write_out(art, gz(data))
    note(art,
         "The SGLang log of `server_logs_<RF1>.zip` with five lines inserted after line 200: "
         "L201 is a >1 MiB `\\r` progress bar with `Scheduler hit an exception: Traceback (most recent call last):` glued at its end (past the default --max-line of 1 MiB), "
         "L202-L203 the traceback's `File` lines, L204 another >1 MiB bar ending in `torch.OutOfMemoryError: HIP out of memory`, L205 a >1 MiB bar alone.",
         "Exactly 3 lines (201, 204, 205) are longer than 1 MiB; the traceback and the OOM are only past the cap.")


DOWNLOADED = [
    f"server_logs_{RF1}.zip",
    f"eval_server_logs_{RF4}.zip",
    f"multinode_server_logs_{RF2}.zip",
    f"multinode_server_logs_{RF3}.zip",
    f"multinode_server_logs_{RF5}.zip",
    f"eval_gsm8k_{RF1}.zip",
    "logs_12345678.zip",
    "damaged/core_dump_artifact.zip",
]


def make_downloaded():
    """`gh run download` extracts each artifact zip into a folder named after
    the artifact; inner archives stay as they are."""
    for rel in DOWNLOADED:
        name = os.path.basename(rel)[: -len(".zip")]
        with zipfile.ZipFile(P(rel)) as z:
            for zi in z.infolist():
                if zi.is_dir():
                    continue
                write_out(f"downloaded/{name}/{zi.filename}", z.read(zi))


# --------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------


def P(rel):
    return os.path.join(ART, rel)


def read(rel):
    with open(P(rel), "rb") as fh:
        return fh.read()


def summary(rel, msg):
    b = read(rel)
    print(f"{rel:<110} {len(b):>7} B  sha256:{hashlib.sha256(b).hexdigest()[:12]}  {msg}")


def routing_ranks(text):
    return {re.search(r"\bTP(\d+)\b", l).group(1) for l in text.split("\n") if "monokernel routing check" in l and "target_verify" in l}


def check_all():
    have_gzip = shutil.which("gzip") is not None
    # 1
    rel = f"server_logs_{RF1}.zip"
    with zipfile.ZipFile(P(rel)) as z:
        assert z.testzip() is None
        names = z.namelist()
        assert names == ["server.log", "results/bench_conc64.log", "results/bench_conc64_config.json"], names
        log = z.read("server.log").decode()
        assert routing_ranks(log) == {str(i) for i in range(8)}
        assert log.count("Finished streaming dequant fp8 wo_a") == 16
        assert "avail mem=17.47 GB, mem usage=94.00 GB." in log and "type=DeepseekV4ForCausalLM, quant=fp8" in log
        assert "Capturing batches (bs=2 avail_mem=7.70 GB):  50%|" in log
        assert "num_tokens_per_bs=6, bs=[1, 2, 3, 4, 5, 6], avail mem=7.77 GB" in log
        assert re.search(r"\d+it/s\]\[2026-10-29 [0-9:]+ TP\d EP\d\] ", log), "progress bar not glued"
        sal = [l for l in log.split("\n") if "server_args=ServerArgs(" in l]
        assert len(sal) == 1 and len(sal[0]) > 9000 and "tp_size=8" in sal[0] and "speculative_algorithm='EAGLE'" in sal[0]
        acc = [float(x) for x in re.findall(r"accept len: ([0-9.]+), accept rate", log)]
        assert len(acc) == 51 and abs(sum(acc) / len(acc) - 3.77) < 1e-9
        for n in names:
            t = z.read(n).decode()
            assert "SGLANG_SIMULATE" not in t and "Env:" not in t and '"env"' not in t
    summary(rel, "zip ok, 3 members, routing TP0-7, no env dump")
    # 2/3
    for which, rf in ((2, RF2), (3, RF3)):
        rel = f"multinode_server_logs_{rf}.zip"
        with zipfile.ZipFile(P(rel)) as z:
            assert z.namelist() == ["multinode_server_logs.tar.gz"]
            tgz = z.read("multinode_server_logs.tar.gz")
        with tarfile.open(fileobj=io.BytesIO(tgz), mode="r:gz") as tf:
            mem = tf.getmembers()
            raw_names = [n for n, *_ in tar_walk_prefix(zlib.decompress(tgz, 31))]
            assert all(n.startswith("./") for n in raw_names), raw_names
            files = {m.name: tf.extractfile(m).read() for m in mem if m.isfile()}
        err = gzip.decompress(files["./gb200-node01_decode_w0.err.gz"]).decode()
        assert "target_verify" in err
        dec = files["./gb200-node01_decode_w0.out"].decode()
        want = {str(i) for i in range(8)} - ({"7"} if which == 3 else set())
        assert routing_ranks(dec) == want, routing_ranks(dec)
        assert "DP0 TP3 EP3]" in dec and re.search(r"\[2026-10-29 \d\d:\d\d:\d\d\.\d{3} DP1 TP7 EP7\]", dec)
        allt = "".join(v.decode() for k, v in files.items() if not k.endswith(".gz")) + err
        acc = "3.77" if which == 2 else "3.39"
        job = "8812345" if which == 2 else "8812399"
        env_line = [l for l in files[f"./sweep_{job}.log"].decode().split("\n") if "[INFO] Env: " in l]
        assert len(env_line) == 1 and f"SGLANG_SIMULATE_ACC_LEN={acc}" in env_line[0]
        kv = [p.split("=", 1)[0] for p in env_line[0].split("Env: ", 1)[1].split(" ")]
        assert kv == sorted(kv) and len(kv) >= 20
        fpj = json.loads(files["./fingerprint_decode_w0.json"])
        assert fpj["env"]["SGLANG_SIMULATE_ACC_LEN"] == acc and fpj["env"]["HF_TOKEN"] == "***REDACTED***"
        assert '"frameworks": {"sglang": "0.5.20", "ai-dynamo": "1.3.1"}' in files["./fingerprint_decode_w0.json"].decode()
        assert f"+ export SGLANG_SIMULATE_ACC_LEN={acc}" in files[f"./slurm-{job}.out"].decode()
        assert f'    SGLANG_SIMULATE_ACC_LEN: "{acc}"' in files["./config.yaml"].decode()
        assert re.search(r"^SGLANG_SIMULATE_ACC_LEN=%s SGLANG_SIMULATE_ACC_METHOD=match-expected .*python3 -m sglang.launch_server" % re.escape(acc),
                         files["./commands_gb200-node01.txt"].decode(), re.M)
        if which == 2:
            assert "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE" not in allt
        else:
            assert "SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1" in env_line[0] and fpj["env"]["SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE"] == "1"
        summary(rel, f"zip>tar.gz ({len(raw_names)} ./ entries) >err.gz ok; routing ranks {sorted(want)}; ACC_LEN={acc}; NEXTN={'set' if which == 3 else 'absent'}")
    # 4
    rel = "plain/vllm_server.log"
    b = read(rel)
    assert b.count(b"\n") == b.count(b"\r\n") and b.endswith(b"\r\n")
    assert b"\x1b[1;36m(Worker_TP1 pid=528)\x1b[0;0m \x1b[31mERROR\x1b[0m" in b
    assert b"vLLM API server version 0.13.0" in b and b"'synthetic_acceptance_length': 3.39" in b
    assert b"SpecDecoding metrics: Mean acceptance length: 2.71, Accepted throughput:" in b
    assert b"torch.OutOfMemoryError: HIP out of memory" in b
    bad = [i for i, l in enumerate(b.split(b"\n")) if not _utf8_ok(l)]
    assert len(bad) >= 2
    summary(rel, f"CRLF, ANSI, {len(bad)} invalid-UTF-8 lines")
    # 5
    rel = "plain/server.log.gz"
    b = read(rel)
    d = zlib.decompressobj(31)
    first = d.decompress(b)
    assert d.unused_data, "expected more than one gzip member"
    nm, rest = 1, d.unused_data
    while rest:
        d = zlib.decompressobj(31)
        d.decompress(rest)
        rest = d.unused_data
        nm += 1
    whole = gzip.decompress(b)
    assert nm == 3 and b"monokernel routing check" not in first and b"monokernel routing check" in whole
    summary(rel, f"{nm} gzip members, routing only after member 1")
    # 6
    rel = "trtllm_logs.tar.zst"
    tb = subprocess.run(["zstd", "-d", "-c", P(rel)], check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(tb)) as tf:
        names = tf.getnames()
        txt = b"".join(tf.extractfile(m).read() for m in tf.getmembers() if m.isfile())
    assert b"TensorRT-LLM version: 1.1.0rc2" in txt and b"Received sigquit from a child process" in txt
    assert b"[10/29/2026-04:21:13] [TRT-LLM] [RANK 3] [I]" in txt and b"2026-10-29T04:14:40.555894Z  INFO " in txt
    summary(rel, f"zstd>tar, {len(names)} entries")
    # 7
    rel = "logs_12345678.zip"
    with zipfile.ZipFile(P(rel)) as z:
        for n in z.namelist():
            t = z.read(n)
            assert t.startswith(b"\xef\xbb\xbf2026-10-29T04:"), n
            for l in t[3:].split(b"\n")[:-1]:
                assert re.match(rb"^2026-10-29T\d\d:\d\d:\d\d\.\d{7}Z ", l), l
        full = z.read("0_benchmark (dsv4, fp8).txt")
        assert b"+ export SGLANG_SIMULATE_ACC_LEN=3.39" in full and IMG_ROCM.encode() in full and b"serves target_verify" in full
    summary(rel, "BOM + timestamps on every line")
    # 8
    rel = f"eval_gsm8k_{RF1}.zip"
    with zipfile.ZipFile(P(rel)) as z:
        r = json.loads(z.read("results_2026-10-29T05-00-00.123456.json"))
        assert r["results"]["gsm8k"]["exact_match,strict-match"] == 0.9773 and r["n-samples"]["gsm8k"]["effective"] == 1319
        meta = json.loads(z.read("meta_env.json"))
        assert "env" in meta and not any(k.startswith("SGLANG_SIMULATE") or "NEXTN" in k for k in meta["env"])
        for l in z.read("samples_gsm8k_2026-10-29T05-00-00.123456.jsonl").splitlines():
            json.loads(l)
    summary(rel, "results/samples/meta_env parse")
    # 9 damaged
    rel = f"damaged/truncated_multinode_server_logs_{RF2}.tar.gz"
    b = read(rel)
    got, err = inflate_prefix(b)
    assert err == "unexpected end of stream"
    w = tar_walk_prefix(got)
    last = w[-1]
    assert last[0] == "./gb200-node01_decode_w0.out" and last[3] < last[1]
    assert all(x[3] == x[1] for x in w[:-1])
    part = got[last[2]:].decode("utf-8", "replace")
    assert routing_ranks(part) == {"0", "1", "2", "3"}, routing_ranks(part)
    assert b"[INFO] Env: " in got
    try:
        with tarfile.open(fileobj=io.BytesIO(b), mode="r:gz") as tf:
            for m in tf:
                if m.isfile():
                    tf.extractfile(m).read()
        raise AssertionError("truncated tar.gz read cleanly")
    except (EOFError, tarfile.ReadError, zlib.error, OSError):
        pass
    if have_gzip:
        assert subprocess.run(["gzip", "-t", P(rel)], capture_output=True).returncode != 0
    summary(rel, f"truncated: {len(w) - 1} whole entries, decode_w0.out {last[3]}/{last[1]} B; routing TP0-3 only")
    rel = f"damaged/cut_server_logs_{RF1}.zip"
    b = read(rel)
    try:
        zipfile.ZipFile(P(rel))
        raise AssertionError("cut zip opened")
    except zipfile.BadZipFile:
        pass
    assert b"PK\x01\x02" not in b and b"PK\x05\x06" not in b
    pos, ents = 0, []
    while pos < len(b):
        sig, ver, flag, meth, mt, md, crc, csz, usz, nl, xl = struct.unpack("<IHHHHHIIIHH", b[pos:pos + 30])
        assert sig == 0x04034B50 and not flag & 8
        name = b[pos + 30:pos + 30 + nl].decode()
        start = pos + 30 + nl + xl
        raw = zlib.decompress(b[start:start + csz], -15)
        assert len(raw) == usz and zlib.crc32(raw) == crc
        ents.append(name)
        pos = start + csz
    assert pos == len(b) and len(ents) == 3
    if shutil.which("unzip"):
        assert subprocess.run(["unzip", "-l", P(rel)], capture_output=True).returncode != 0
    summary(rel, f"no central directory; {len(ents)} complete local entries")
    rel = "damaged/corrupt_server.log.gz"
    b = read(rel)
    got, err = inflate_prefix(b)
    assert err and "end of stream" not in err
    assert got.startswith(b"[2026-10-29 04:10:01] server_args={'model_path':")
    if have_gzip:
        assert subprocess.run(["gzip", "-t", P(rel)], capture_output=True).returncode != 0
        zc = subprocess.run(["zcat", P(rel)], capture_output=True)
        assert zc.returncode != 0 and zc.stdout.startswith(b"[2026-10-29 04:10:01] server_args=")
        assert zc.stdout.count(b"monokernel routing check") >= 8
    summary(rel, f"corrupt deflate ({err}); leading lines decode")
    rel = "damaged/core_dump_artifact.zip"
    with zipfile.ZipFile(P(rel)) as z:
        assert z.namelist() == ["core.12345", "server.log"]
        core = z.read("core.12345")
        assert core.startswith(b"\x7fELF") and b"\0" * 256 in core[:512]
        assert b"target_verify" in z.read("server.log")
    summary(rel, "zip with binary core + text log")
    rel = f"eval_server_logs_{RF4}.zip"
    with zipfile.ZipFile(P(rel)) as z:
        assert z.namelist() == ["srt-single-node-logs.tar.gz", "client.log"]
        with tarfile.open(fileobj=io.BytesIO(z.read("srt-single-node-logs.tar.gz")), mode="r:gz") as tf:
            log = tf.extractfile(f"logs/{SRT_HOST}_agg_w0.out").read().decode()
        assert routing_ranks(log) == {str(i) for i in range(8)}
        assert "monokernel" not in z.read("client.log").decode()
    summary(rel, "engine log only inside srt-single-node-logs.tar.gz")
    rel = f"multinode_server_logs_{RF5}.zip"
    with zipfile.ZipFile(P(rel)) as z:
        with tarfile.open(fileobj=io.BytesIO(z.read("multinode_server_logs.tar.gz")), mode="r:gz") as tf:
            dec = tf.extractfile("./gb200-node01_decode_w0.out").read().decode()
            pre = tf.extractfile("./gb200-node02_prefill_w0.out").read().decode()
    assert routing_ranks(dec) == {str(i) for i in range(8)} - {"2"}, routing_ranks(dec)
    assert routing_ranks(pre) == {"0", "1", "2", "3"}
    summary(rel, "decode misses TP2, prefill has TP0-3")
    rel = "plain/long_line_server.log.gz"
    lines = gzip.decompress(read(rel)).split(b"\n")
    longs = [i + 1 for i, l in enumerate(lines) if len(l) > 1 << 20]
    assert longs == [201, 204, 205], longs
    assert lines[200].endswith(b"Traceback (most recent call last):") and b"Traceback" not in lines[200][: 1 << 20]
    assert b"OutOfMemoryError" in lines[203] and b"OutOfMemoryError" not in lines[203][: 1 << 20]
    assert b"Traceback" not in b"\n".join(lines[:200] + lines[205:])
    summary(rel, "3 lines over 1 MiB; traceback and OOM past the cap")
    for d in DOWNLOADED:
        name = os.path.basename(d)[: -len(".zip")]
        with zipfile.ZipFile(P(d)) as z:
            for zi in z.infolist():
                if not zi.is_dir():
                    assert read(f"downloaded/{name}/{zi.filename}") == z.read(zi), (d, zi.filename)
    print(f"{'downloaded/':<110} {len(DOWNLOADED)} zips extracted as gh run download does")
    total = 0
    for root, _, fs in os.walk(HERE):
        for fn in fs:
            if "__pycache__" not in root:
                total += os.path.getsize(os.path.join(root, fn))
    print(f"total size of samples/: {total} bytes")
    # downloaded/ repeats the zips' content, extracted.
    assert total < 640 * 1024, total


def _utf8_ok(b):
    try:
        b.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


# --------------------------------------------------------------------------


def generate():
    make_rf1()
    _, m2_members, tgz2 = make_multinode(2)
    make_multinode(3)
    make_vllm()
    make_multimember()
    make_trtllm()
    make_gh_logs()
    make_eval()
    make_truncated(m2_members, tgz2)
    make_cut_zip()
    make_corrupt_gz()
    make_core_dump()
    make_srt_single()
    make_disagg_missing(m2_members)
    make_long_line()
    make_downloaded()
    write_readme()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--check", action="store_true", help="only check the existing artifacts")
    a = ap.parse_args()
    if not a.check:
        generate()
    check_all()
    print("all checks passed")


if __name__ == "__main__":
    main()
