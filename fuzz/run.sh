#!/usr/bin/env bash
# Runs each fuzz target for a fixed time, keeping its corpus in
# fuzz/corpus/TARGET (seeded from samples/ and patterns/ the first time) and
# any crash in fuzz/artifacts/TARGET. Needs cargo-fuzz and a nightly
# toolchain (`cargo install cargo-fuzz`; `rustup toolchain install nightly`).
# Without them, the stable driver runs the same targets without coverage
# feedback: `cargo run --manifest-path fuzz/Cargo.toml --release
# --no-default-features --example drive -- SECONDS [TARGET...]`.
#
#   fuzz/run.sh [SECONDS_PER_TARGET] [TARGET...]     (default 600, all)
#
# A crash input belongs in tests/regressions/ once fixed (see SECURITY.md).
set -euo pipefail
cd "$(dirname "$0")"
secs=${1:-600}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(source pack rules)
jobs=${FUZZ_JOBS:-1}
jobs_flags=()
[ "$jobs" -le 1 ] || jobs_flags=(-jobs="$jobs" -workers="$jobs")

seed() {
    local t=$1 dir=corpus/$1
    mkdir -p "$dir"
    [ -z "$(ls -A "$dir")" ] || return 0
    case $t in
        source)
            find ../samples/artifacts -type f -size -200k -exec cp {} "$dir/" \;
            cp seeds/source/* "$dir/" 2>/dev/null || true
            cp ../tests/regressions/* "$dir/" 2>/dev/null || true
            ;;
        pack)
            cp ../patterns/*.toml "$dir/"
            ;;
        rules)
            # Plain logs (their first byte doubles as the control byte).
            find ../samples/artifacts -type f -size -200k \( -name '*.log' -o -name '*.out' -o -name '*.txt' -o -name '*.json' \) -exec cp {} "$dir/" \;
            ;;
    esac
}

toolchain=${FUZZ_TOOLCHAIN:-nightly}
cargo +"$toolchain" fuzz build -O
for t in "${targets[@]}"; do
    seed "$t"
    mkdir -p "artifacts/$t" logs
    echo "== $t: ${secs}s, corpus $(ls corpus/$t | wc -l) files"
    # -rss_limit_mb: generous, as AddressSanitizer itself needs memory.
    cargo +"$toolchain" fuzz run -O "$t" "corpus/$t" -- \
        -max_total_time="$secs" -rss_limit_mb=2048 -max_len=1048576 -timeout=20 \
        ${jobs_flags[@]+"${jobs_flags[@]}"} -print_final_stats=1 \
        -artifact_prefix="artifacts/$t/" 2>&1 | tee "logs/$t.log" | grep -E '^#[0-9]+.*(pulse|DONE)|stat::|ERROR|SUMMARY|Test unit written' || true
    status=${PIPESTATUS[0]}
    echo "== $t: exit $status, corpus $(ls corpus/$t | wc -l) files, crashes $(ls artifacts/$t | wc -l)"
done
