#!/usr/bin/env python3
"""Lay the committed sample artifacts out as a history of CI runs, for trying
`artiscan audit` (see docs/audit.md):

    python3 samples/make_audit_runs.py /tmp/audit-demo [--runs 6]
    cd /tmp/audit-demo && artiscan audit runs/ --db audit.sqlite

Writes OUT/runs/<run id>/<artifact>_1_<id>.zip (the storage backup naming):
every run has server logs, a conc128 multinode artifact, an eval and its job
logs; run 18000003 adds the conc256 multinode artifact (which sets
SGLANG_NVFP4_CKPT_FP8_NEXTN_MOE=1), run 18000005 the damaged samples, even runs
a TensorRT-LLM tarball and a plain vLLM log. The same layout as the audit tests
(tests/cli/audit.rs). Standard library only.
"""

import argparse
import shutil
from pathlib import Path

SAMPLES = Path(__file__).resolve().parent / "artifacts"
RF1 = "dsv4_fp8_sglang_tp8-pp1-dcp1-pcp1-ep8-dpafalse_disagg-false_spec-mtp_conc64_mi355x-amds_03"
RF2 = "dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc128_gb200-nv_01"
RF3 = "dsv4_fp4_sglang_tp8-pp1-dcp1-pcp1-ep8-dpatrue_disagg-true_spec-mtp_conc256_gb200-nv_02"
NEXTN_RUN = 18_000_003
DAMAGED_RUN = 18_000_005


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--runs", type=int, default=6)
    a = ap.parse_args()
    n = 0

    def copy(src: str, dst: Path) -> None:
        nonlocal n
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(SAMPLES / src, dst)
        n += 1

    for i in range(1, a.runs + 1):
        run_id = 18_000_000 + i
        run = a.out / "runs" / str(run_id)

        def backup(name: str, k: int) -> str:
            return f"{name}_1_{9_000_000 + i * 10 + k}.zip"

        copy(f"server_logs_{RF1}.zip", run / backup(f"server_logs_{RF1}", 1))
        copy(f"multinode_server_logs_{RF2}.zip", run / backup(f"multinode_server_logs_{RF2}", 2))
        copy(f"eval_gsm8k_{RF1}.zip", run / backup(f"eval_gsm8k_{RF1}", 3))
        copy("logs_12345678.zip", run / f"logs_{run_id}.zip")
        if run_id == NEXTN_RUN:
            copy(f"multinode_server_logs_{RF3}.zip", run / backup(f"multinode_server_logs_{RF3}", 4))
        if run_id == DAMAGED_RUN:
            for f in sorted((SAMPLES / "damaged").iterdir()):
                copy(f"damaged/{f.name}", run / f.name)
        if i % 2 == 0:
            copy("trtllm_logs.tar.zst", run / "trtllm_logs.tar.zst")
            copy("plain/vllm_server.log", run / "vllm_server.log")
    print(f"{n} artifacts in {a.runs} runs under {a.out / 'runs'}")


if __name__ == "__main__":
    main()
