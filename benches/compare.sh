#!/usr/bin/env bash
# Side-by-side benchmark of `artiscan scan` against reference tools (see benches/README.md).
#
#   benches/compare.sh                  # everything, 5 interleaved runs per command
#   RUNS=3 ONLY=a,c benches/compare.sh  # only tar.gz and plain-log workloads
#   ARTISCAN=/path/to/artiscan benches/compare.sh   # skip cargo build
#
# Environment:
#   RUNS=5                 measured runs per command (after one warm-up run each)
#   BENCH_DIR=/tmp/artiscan-bench   workload folder (generated when MANIFEST.json is absent)
#   BENCH_MB=1024          size passed to gen_workload.py --mb when generating
#   ONLY=a,b,c,d           workloads: a=tar.gz b=tar.zst c=plain log d=folder of zips
#   ARTISCAN=path          prebuilt artiscan binary (default: cargo build --release)
#   ARTISCAN_ARGS=...      extra arguments after `artiscan scan` (word-split)
#   PATTERNS=benches/patterns.txt   pattern file for rg/ugrep
#   RESULTS=$BENCH_DIR/results   where outputs, raw timings and the summary go
#   NO_INSTALL=1           never apt-get / pip install; commands whose tool is missing are skipped
#   STRICT=1               exit 1 when a target is not met
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
RUNS=${RUNS:-5}
DIR=${BENCH_DIR:-/tmp/artiscan-bench}
ONLY=${ONLY:-a,b,c,d}
PATS=${PATTERNS:-$HERE/patterns.txt}
RES=${RESULTS:-$DIR/results}
ARTISCAN_ARGS=${ARTISCAN_ARGS:-}
TIME=/usr/bin/time

log() { printf '==> %s\n' "$*" >&2; }
want() { [[ ",$ONLY," == *",$1,"* ]]; }

# ---------------------------------------------------------------- 1. reference tools
as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo -n "$@"
  else return 1; fi
}

install_tools() {
  local missing=() pair
  for pair in ugrep:ugrep rg:ripgrep pigz:pigz zstd:zstd gzip:gzip; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair#*:}")
  done
  "$TIME" --version >/dev/null 2>&1 || missing+=(time)   # GNU time, for %e %M
  if ((${#missing[@]})) && [[ -z ${NO_INSTALL:-} ]] && command -v apt-get >/dev/null; then
    log "apt-get install ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1 ||
      { as_root apt-get update -qq >/dev/null 2>&1 &&
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null 2>&1; } ||
      log "warning: apt-get install ${missing[*]} failed"
  fi
  if ! command -v rapidgzip >/dev/null && [[ -z ${NO_INSTALL:-} ]]; then
    log "pip install rapidgzip"
    python3 -m pip install -q rapidgzip 2>/dev/null ||
      python3 -m pip install -q --user rapidgzip 2>/dev/null ||
      python3 -m pip install -q --break-system-packages rapidgzip 2>/dev/null ||
      log "warning: pip install rapidgzip failed"
    export PATH="$PATH:$HOME/.local/bin"
    hash -r
  fi
  "$TIME" --version >/dev/null 2>&1 || { echo "compare.sh: GNU time is required at $TIME (apt-get install time)" >&2; exit 2; }
}
install_tools

# ---------------------------------------------------------------- 2. artiscan
if [[ -z ${ARTISCAN:-} ]]; then
  log "cargo build --release"
  (cd "$ROOT" && cargo build --release --bin artiscan)
  ARTISCAN=${CARGO_TARGET_DIR:-$ROOT/target}/release/artiscan
fi
[[ -x $ARTISCAN ]] || { echo "compare.sh: artiscan binary not found: $ARTISCAN" >&2; exit 2; }

# ---------------------------------------------------------------- 3. workload
if [[ ! -f $DIR/MANIFEST.json ]]; then
  log "generating workload in $DIR"
  python3 "$HERE/gen_workload.py" "$DIR" ${BENCH_MB:+--mb "$BENCH_MB"}
fi
mkdir -p "$RES"
RAW=$RES/timings.tsv
CMDS=$RES/commands.tsv
: >"$RAW"
: >"$CMDS"

# ---------------------------------------------------------------- 4. commands
# add WORKLOAD ID OUTFILE TOOL ARGV...   (TOOL: binary that must exist, else the command is skipped)
declare -a C_W=() C_ID=() C_OUT=() C_CMD=()
add() {
  local w=$1 id=$2 out=$3 tool=$4; shift 4
  want "$w" || return 0
  if ! command -v "$tool" >/dev/null; then log "skipping $w.$id: $tool not found"; return 0; fi
  local cmd; cmd=$(printf '%q ' "$@")
  C_W+=("$w"); C_ID+=("$id"); C_OUT+=("$out"); C_CMD+=("$cmd")
  printf '%s\t%s\t%s\t%s\n' "$w" "$id" "$*" "$out" >>"$CMDS"
}
# shellcheck disable=SC2206
AA=(scan $ARTISCAN_ARGS)
add a artiscan    "$RES/a.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$DIR/logs.tar.gz"
add a rapidgzip   /dev/null         rapidgzip rapidgzip -P 1 -d -c "$DIR/logs.tar.gz"
add a pigz        /dev/null         pigz      pigz -dc "$DIR/logs.tar.gz"
add a gzip        /dev/null         gzip      gzip -dc "$DIR/logs.tar.gz"
add a ugrep       "$RES/a.ugrep.txt" ugrep    ugrep -z --zmax=2 -c -f "$PATS" "$DIR/logs.tar.gz"
add b artiscan    "$RES/b.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$DIR/logs.tar.zst"
add b zstd        /dev/null         zstd      zstd -dc "$DIR/logs.tar.zst"
add b ugrep       "$RES/b.ugrep.txt" ugrep    ugrep -z --zmax=2 -c -f "$PATS" "$DIR/logs.tar.zst"
add c artiscan    "$RES/c.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$DIR/big.log"
add c rg          "$RES/c.rg.txt"    rg       rg -c -f "$PATS" "$DIR/big.log"
add c ugrep       "$RES/c.ugrep.txt" ugrep    ugrep -c -f "$PATS" "$DIR/big.log"
add d artiscan-j2 "$RES/d.artiscan-j2.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" -j 2 "$DIR/zips"
add d artiscan-j1 "$RES/d.artiscan-j1.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" -j 1 "$DIR/zips"
add d ugrep-J2    "$RES/d.ugrep-J2.txt" ugrep ugrep -z -r -J2 -c -f "$PATS" "$DIR/zips"
add d ugrep-J1    "$RES/d.ugrep-J1.txt" ugrep ugrep -z -r -J1 -c -f "$PATS" "$DIR/zips"

# run_one INDEX RUN   -> appends "w id run wall_s rss_kib rc" to $RAW (RUN=0: warm-up, not recorded)
run_one() {
  local i=$1 run=$2 tf rc=0 wall rss t0 t1 us
  tf=$(mktemp)
  t0=${EPOCHREALTIME:-}
  eval "\"\$TIME\" -f '%e %M' -o \"\$tf\" ${C_CMD[$i]} >\"\${C_OUT[$i]}\" 2>\"\$RES/\${C_W[$i]}.\${C_ID[$i]}.stderr\"" || rc=$?
  t1=${EPOCHREALTIME:-}
  read -r wall rss < <(tail -n 1 "$tf") || true
  rm -f "$tf"
  if [[ -n $t0 ]]; then   # microsecond wall clock (GNU time's %e has 10 ms resolution)
    us=$(( 10#${t1//[.,]/} - 10#${t0//[.,]/} ))
    wall=$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))
  fi
  # grep-like tools exit 1 for "no match"; anything else is a failure
  if [[ $rc -gt 1 || ($rc -eq 1 && ${C_ID[$i]} == artiscan*) ]]; then
    log "FAILED (rc=$rc): ${C_W[$i]}.${C_ID[$i]}: $(head -c 300 "$RES/${C_W[$i]}.${C_ID[$i]}.stderr")"
  fi
  ((run == 0)) || printf '%s\t%s\t%s\t%s\t%s\t%s\n' "${C_W[$i]}" "${C_ID[$i]}" "$run" "${wall:-nan}" "${rss:-0}" "$rc" >>"$RAW"
}

{
  echo "artiscan benchmark  $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //')"
  echo "artiscan: $ARTISCAN ($("$ARTISCAN" --version 2>/dev/null || echo '?'))"
  for t in rapidgzip pigz gzip zstd ugrep rg; do
    command -v "$t" >/dev/null && echo "$t: $("$t" --version 2>&1 | head -n 1)"
  done
  echo "workload: $DIR ($(tr -s ' \n' ' ' <"$DIR/MANIFEST.json" | head -c 500))"
  echo "runs: $RUNS (+1 warm-up), interleaved per workload"
} | tee "$RES/summary.txt" >&2

for w in a b c d; do
  want "$w" || continue
  idx=()
  for i in "${!C_W[@]}"; do [[ ${C_W[$i]} == "$w" ]] && idx+=("$i"); done
  ((${#idx[@]})) || continue
  log "workload $w: warm-up"
  for i in "${idx[@]}"; do run_one "$i" 0; done
  for ((r = 1; r <= RUNS; r++)); do
    log "workload $w: run $r/$RUNS"
    for i in "${idx[@]}"; do run_one "$i" "$r"; done
  done
done

# ---------------------------------------------------------------- 5. report
python3 - "$RAW" "$CMDS" "$RES" "$DIR/MANIFEST.json" <<'PY' | tee -a "$RES/summary.txt"
import csv, json, os, statistics as st, sys

raw, cmds, res, manifest = sys.argv[1:5]
try:
    man = json.load(open(manifest))
except (OSError, ValueError):
    man = {}
SIZE = {"a": man.get("tar", {}).get("text_bytes"), "b": man.get("tar", {}).get("text_bytes"),
        "c": man.get("big", {}).get("text_bytes"), "d": man.get("zips", {}).get("text_bytes")}
rows = {}
for w, i, run, wall, rss, rc in csv.reader(open(raw), delimiter="\t"):
    rows.setdefault((w, i), {})[int(run)] = (float(wall), int(rss) / 1024, int(rc))
cmd, out = {}, {}
for w, i, c, o in csv.reader(open(cmds), delimiter="\t"):
    cmd[(w, i)], out[(w, i)] = c, o

NAMES = {"a": "tar.gz (logs.tar.gz)", "b": "tar.zst (logs.tar.zst)", "c": "plain log (big.log)",
         "d": "folder of zips (zips/)"}
# artiscan command -> references its ratio is reported against
PAIRS = {"a": [("artiscan", r) for r in ("rapidgzip", "pigz", "gzip", "ugrep")],
         "b": [("artiscan", r) for r in ("zstd", "ugrep")],
         "c": [("artiscan", r) for r in ("rg", "ugrep")],
         "d": [("artiscan-j2", "ugrep-J2"), ("artiscan-j1", "ugrep-J1"), ("artiscan-j2", "artiscan-j1")]}
# (workload, a, b, op, limit, text): ratio = median over runs of time(a)/time(b)
TARGETS = [
    ("a", "artiscan", "rapidgzip", "<=", 1.3, "tar.gz: artiscan <= 1.3x rapidgzip -P 1 -d"),
    ("a", "artiscan", "ugrep", "<=", 1 / 2, "tar.gz: artiscan >= 2x faster than ugrep -z"),
    ("b", "artiscan", "zstd", "<=", 1.15, "tar.zst: artiscan <= 1.15x zstd -dc"),
    ("b", "artiscan", "ugrep", "<=", 1 / 1.6, "tar.zst: artiscan >= 1.6x faster than ugrep -z"),
    ("c", "artiscan", "rg", "<=", 0.8, "plain: artiscan <= 0.8x rg -c -f"),
    ("d", "artiscan-j2", "ugrep-J2", "<=", 1 / 1.6, "zips: artiscan -j2 >= 1.6x faster than ugrep -z -r -J2"),
    ("d", "artiscan-j1", "ugrep-J1", "<=", 1 / 1.6, "zips: artiscan -j1 >= 1.6x faster than ugrep -z -r -J1"),
    ("d", "artiscan-j1", "artiscan-j2", ">=", 1.8, "zips: artiscan speed-up -j1 -> -j2 >= 1.8x"),
]
RSS_LIMIT = 64.0
RSS_TARGETS = [("a", "artiscan"), ("b", "artiscan"), ("d", "artiscan-j2"), ("d", "artiscan-j1")]


def ratio(w, a, b):
    ra, rb = rows.get((w, a), {}), rows.get((w, b), {})
    rs = [ra[k][0] / rb[k][0] for k in ra if k in rb and rb[k][0] > 0]
    return st.median(rs) if rs else None


def failed(w, i):
    return any(rc > 1 or (rc == 1 and i.startswith("artiscan")) for _, _, rc in rows.get((w, i), {}).values())


verdicts = []
for w in "abcd":
    ids = [i for (ww, i) in rows if ww == w]
    if not ids:
        continue
    print(f"\n## ({w}) {NAMES[w]}")
    print(f"{'command':<13} {'median s':>9} {'min s':>8} {'max s':>8} {'RSS MiB':>8}  {'GB/s*':>6}  command line")
    size = SIZE[w]
    for i in ids:
        v = list(rows[(w, i)].values())
        walls = [x[0] for x in v]
        rss = st.median(x[1] for x in v)
        med = st.median(walls)
        gbs = f"{size / med / 1e9:6.2f}" if size and med > 0 else "     -"
        flag = "  FAILED" if failed(w, i) else ""
        print(f"{i:<13} {med:9.3f} {min(walls):8.3f} {max(walls):8.3f} {rss:8.1f}  {gbs}  {cmd.get((w, i), '')}{flag}")
    print("  (* GB/s of uncompressed log text)")
    for i in ids:
        if i.startswith("artiscan") and out.get((w, i), "").endswith(".jsonl"):
            try:
                n = sum(1 for _ in open(out[(w, i)], "rb"))
            except OSError:
                n = 0
            print(f"  {i} output (last run): {n} JSON lines{'  <- EMPTY' if n == 0 else ''}")
    for a, b in PAIRS[w]:
        r = ratio(w, a, b)
        if r is not None:
            how = f"{1 / r:.2f}x faster" if r < 1 else f"{r:.2f}x slower"
            print(f"  time {a} / {b} = {r:.3f}  ({a} {how})")

print("\n## targets")
for w, a, b, op, lim, text in TARGETS:
    if (w, a) not in rows or (w, b) not in rows:
        continue
    r = ratio(w, a, b)
    ok = r is not None and not failed(w, a) and (r <= lim if op == "<=" else r >= lim)
    verdicts.append(ok)
    shown = f"{r:.3f} (need {op} {lim:.3f})" if r is not None else "n/a"
    print(f"  [{'met' if ok else 'NOT MET'}] {text}: ratio {shown}")
for w, i in RSS_TARGETS:
    if (w, i) not in rows:
        continue
    rss = st.median(x[1] for x in rows[(w, i)].values())
    ok = rss <= RSS_LIMIT and not failed(w, i)
    verdicts.append(ok)
    print(f"  [{'met' if ok else 'NOT MET'}] ({w}) {i} peak RSS <= {RSS_LIMIT:.0f} MiB: {rss:.1f} MiB")
print(f"\n{sum(verdicts)}/{len(verdicts)} targets met")
open(os.path.join(res, "verdict"), "w").write("ok\n" if all(verdicts) else "not met\n")
PY

log "raw timings: $RAW; summary: $RES/summary.txt"
if [[ -n ${STRICT:-} && $(cat "$RES/verdict") != ok ]]; then exit 1; fi
