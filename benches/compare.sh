#!/usr/bin/env bash
# Side-by-side benchmark of `artiscan scan` (and `audit`) against the tools a user would
# pick instead, with the targets of the performance issue (see benches/README.md).
#
#   benches/compare.sh                  # everything, 5 interleaved runs per command
#   RUNS=3 ONLY=a,c benches/compare.sh  # only tar.gz and plain-log workloads
#   ARTISCAN=/path/to/artiscan benches/compare.sh   # skip cargo build
#
# Environment:
#   RUNS=5                 measured runs per command (after one warm-up run each)
#   BENCH_DIR=/tmp/artiscan-bench   workload folder (generated when MANIFEST.json is absent)
#   BENCH_MB=1024          size passed to gen_workload.py --mb when generating
#   ONLY=a,b,c,d,e,f,g,h,i,j   workloads: a=tar.gz b=tar.zst c=plain log d=folder of zips
#                          e=sparse tar.gz f=env/JSON-heavy tar.gz folder g=small-member tar.gz
#                          h, i = the real SGLang and vLLM run folders, j = their coloured lmcache_server.log
#   REAL_RUNS=dir          the real run folders' *.tar.zst (default: ../shared/corpus/real-runs beside the repo)
#   REAL_DIR=$BENCH_DIR/real-runs   where they are unpacked (once; never inside the repository)
#   GREP_LITERALS='accept len|INFO'  literals for `grep -c -F` on h-j, separated by |
#   ARTISCAN=path          prebuilt artiscan binary (default: cargo build --release)
#   ARTISCAN_ARGS=...      extra arguments after `artiscan scan` / `artiscan audit` (word-split)
#   PATTERNS=benches/patterns.txt   pattern file for rg/ugrep
#   TOOLS=dir              searched first for ugrep/rg (default: ../shared/tools beside the repo)
#   RESULTS=$BENCH_DIR/results   where outputs, raw timings and the summary go
#   NO_MEM=1               skip the memory and -j pass (peak RssAnon at -j1/-j2, -j1 vs -j2 output)
#   NO_INSTALL=1           never apt-get / pip install; commands whose tool is missing are skipped
#   STRICT=1               exit 1 when a target is not met
#   SKIP_RULES=id,id,...   also time `artiscan scan --skip` of these rules on each workload
#                          (artiscan-skip): what those rules cost, with a 5% target
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$HERE")
RUNS=${RUNS:-5}
DIR=${BENCH_DIR:-/tmp/artiscan-bench}
ONLY=${ONLY:-a,b,c,d,e,f,g,h,i,j}
PATS=${PATTERNS:-$HERE/patterns.txt}
RES=${RESULTS:-$DIR/results}
ARTISCAN_ARGS=${ARTISCAN_ARGS:-}
TIME=/usr/bin/time
WORKLOADS="a b c d e f g h i j"
REAL_DIR=${REAL_DIR:-$DIR/real-runs}
GREP_LITERALS=${GREP_LITERALS:-accept len|INFO}

log() { printf '==> %s\n' "$*" >&2; }
want() { [[ ",$ONLY," == *",$1,"* ]]; }

# ---------------------------------------------------------------- 1. reference tools
# Current ugrep/rg (Debian's are years older and slower) come first on PATH when present.
if [[ -z ${TOOLS:-} ]]; then
  for t in "$ROOT/../shared/tools" "$ROOT/../../shared/tools"; do
    [[ -d $t ]] && { TOOLS=$(cd "$t" && pwd); break; }
  done
fi
[[ -n ${TOOLS:-} ]] && export PATH="$TOOLS:$PATH"

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
  # rapidgzip (the gzip workloads' decoder floor) goes into a virtual environment beside the
  # workload, never into the system's Python.
  [[ -x $DIR/venv/bin/rapidgzip ]] && export PATH="$PATH:$DIR/venv/bin"
  if ! command -v rapidgzip >/dev/null && [[ -z ${NO_INSTALL:-} ]] && { want a || want e || want f || want g; }; then
    log "pip install rapidgzip (into $DIR/venv)"
    mkdir -p "$DIR"
    { python3 -m venv "$DIR/venv" && "$DIR/venv/bin/pip" install -q rapidgzip; } >/dev/null 2>&1 ||
      log "warning: pip install rapidgzip failed"
    export PATH="$PATH:$DIR/venv/bin"
    hash -r
  fi
  "$TIME" --version >/dev/null 2>&1 || { echo "compare.sh: GNU time is required at $TIME (apt-get install time)" >&2; exit 2; }
}
install_tools
# pip's rapidgzip is a Python script (~0.3 s to start); a pyenv shim in front of it adds
# ~0.4 s more, which would make the decoder floor look slow: call the script itself.
RAPIDGZIP=$(command -v rapidgzip || true)
if [[ $RAPIDGZIP == */shims/* ]] && command -v pyenv >/dev/null; then
  RAPIDGZIP=$(pyenv which rapidgzip 2>/dev/null || echo "$RAPIDGZIP")
fi

# ---------------------------------------------------------------- 2. artiscan
if [[ -z ${ARTISCAN:-} ]]; then
  log "cargo build --release"
  (cd "$ROOT" && cargo build --release --bin artiscan)
  ARTISCAN=${CARGO_TARGET_DIR:-$ROOT/target}/release/artiscan
fi
[[ -x $ARTISCAN ]] || { echo "compare.sh: artiscan binary not found: $ARTISCAN" >&2; exit 2; }

# ---------------------------------------------------------------- 3. workload and patterns
need_gen=
[[ -f $DIR/MANIFEST.json ]] || need_gen=1
for f in sparse.tar.gz small.tar.gz envjson; do   # a set from before the e-g compositions
  [[ -e $DIR/$f ]] || need_gen=1
done
synthetic=
for w in a b c d e f g; do want "$w" && synthetic=1; done
if [[ -n $need_gen && -n $synthetic ]]; then
  log "generating workload in $DIR"
  python3 "$HERE/gen_workload.py" "$DIR" ${BENCH_MB:+--mb "$BENCH_MB"}
fi

# The real run folders (h, i) and their largest coloured log (j): unpacked once from
# REAL_RUNS into REAL_DIR, each archive into a folder of its own, a marker written last so
# that an interrupted unpack is redone.
REAL_H= REAL_I= REAL_J=
real_unpack() {   # real_unpack ENGINE -> prints the unpacked run folder of the archive named *ENGINE*
  local a name top
  a=$(find "$REAL_RUNS" -maxdepth 1 -name "*$1*.tar.zst" | sort | head -n 1)
  [[ -n $a ]] || { log "no *$1*.tar.zst in $REAL_RUNS"; return 0; }
  name=$(basename "$a" .tar.zst)
  if [[ ! -f $REAL_DIR/$name/.unpacked ]]; then
    log "unpacking $a into $REAL_DIR/$name"
    rm -rf "$REAL_DIR/$name" && mkdir -p "$REAL_DIR/$name"
    zstd -dc "$a" | tar -x -C "$REAL_DIR/$name" || { log "warning: cannot unpack $a"; return 0; }
    : >"$REAL_DIR/$name/.unpacked"
  fi
  top=$(find "$REAL_DIR/$name" -mindepth 1 -maxdepth 1 -type d | sort | head -n 1)
  [[ -n $top ]] && echo "$top"
}
if want h || want i || want j; then
  if [[ -z ${REAL_RUNS:-} ]]; then
    for t in "$ROOT/../shared/corpus/real-runs" "$ROOT/../../shared/corpus/real-runs"; do
      [[ -d $t ]] && { REAL_RUNS=$(cd "$t" && pwd); break; }
    done
  fi
  if [[ -d ${REAL_RUNS:-} ]]; then
    want h && REAL_H=$(real_unpack sglang)
    if want i || want j; then REAL_I=$(real_unpack vllm); fi
    if want j && [[ -n $REAL_I ]]; then   # the largest lmcache_server.log: ANSI colour on every line
      REAL_J=$(find "$REAL_I" -name lmcache_server.log -printf '%s %p\n' | sort -rn | head -n 1 | cut -d' ' -f2-)
    fi
  else
    log "skipping h, i, j: no real run folders (set REAL_RUNS to the folder of their .tar.zst)"
  fi
fi
mkdir -p "$RES"
# Run a private copy: a binary rebuilt in place (cargo replaces the file) during the run
# would otherwise mix two builds in one table.
ARTISCAN_SRC=$ARTISCAN
cp "$ARTISCAN_SRC" "$RES/artiscan"
ARTISCAN=$RES/artiscan
BIN_SHA=$(sha256sum "$ARTISCAN" | cut -c1-16)
read -r LOAD_START _ </proc/loadavg
RAW=$RES/timings.tsv
CMDS=$RES/commands.tsv
MEM=$RES/memory.tsv
: >"$RAW"
: >"$CMDS"
: >"$MEM"

# Each pattern must still be a literal core of a built-in pack, or the anchors search for
# something the rules no longer look at.
python3 - "$PATS" "$ROOT"/patterns/*.toml <<'PY' >&2 || true
import re, sys
packs = "".join(open(p, encoding="utf-8").read() for p in sys.argv[2:])
for pat in open(sys.argv[1], encoding="utf-8").read().splitlines():
    lit = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), pat)
    lit = re.sub(r"\\(.)", r"\1", lit)
    if not pat or lit not in packs:
        print(f"==> warning: pattern {pat!r} is not in patterns/*.toml (update benches/patterns.txt)")
PY

# ---------------------------------------------------------------- 4. commands
# add WORKLOAD ID OUTFILE TOOL ARGV...   (TOOL: binary that must exist, else the command is skipped)
# PRE, when set, is run (untimed) before every run of the command.
# OKRC, when set, lists the exit codes that are not a failure (default: 0 for artiscan*
# and audit*, 0 and 1 (no match) for the grep-like others).
declare -a C_W=() C_ID=() C_OUT=() C_CMD=() C_PRE=() C_OK=()
PRE=
OKRC=
add() {
  local w=$1 id=$2 out=$3 tool=$4 ok=$OKRC; shift 4
  want "$w" || return 0
  if ! command -v "$tool" >/dev/null; then log "skipping $w.$id: $tool not found"; return 0; fi
  local cmd; cmd=$(printf '%q ' "$@")
  if [[ -z $ok ]]; then
    if [[ $id == artiscan* || $id == audit* ]]; then ok=0; else ok="0 1"; fi
  fi
  C_W+=("$w"); C_ID+=("$id"); C_OUT+=("$out"); C_CMD+=("$cmd"); C_PRE+=("$PRE"); C_OK+=("$ok")
  printf '%s\t%s\t%s\t%s\t%s\n' "$w" "$id" "$cmd" "$out" "$ok" >>"$CMDS"
}
# the single-stream decoder floor of a folder of .tar.gz: one rapidgzip over their concatenation
catgz() { local d=$1; shift; cat "$d"/*.tar.gz | "$@"; }
export -f catgz
RG=${RAPIDGZIP:-rapidgzip}
# shellcheck disable=SC2206
AA=(scan $ARTISCAN_ARGS)
# shellcheck disable=SC2206
AU=(audit --no-progress $ARTISCAN_ARGS)
ENVJ=$DIR/envjson
# Every explicit `prefilter` literal of the built-in packs, one per line (Python 3.11+ tomllib).
PACK_LITS=$RES/pack_literals.txt
python3 - "$ROOT/patterns" >"$PACK_LITS" <<'PY'
import glob, os, sys, tomllib
lits = set()
for f in glob.glob(os.path.join(sys.argv[1], "*.toml")):
    for r in tomllib.load(open(f, "rb")).get("rule", []):
        for v in [r] + r.get("variant", []):
            lits.update(l for l in v.get("prefilter", []) if l)
print("\n".join(sorted(lits)))
PY
add a artiscan    "$RES/a.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$DIR/logs.tar.gz"
add a rapidgzip   /dev/null         "$RG"     "$RG" -P 1 -d -c "$DIR/logs.tar.gz"
add a pigz        /dev/null         pigz      pigz -dc "$DIR/logs.tar.gz"
add a gzip        /dev/null         gzip      gzip -dc "$DIR/logs.tar.gz"
add a ugrep       "$RES/a.ugrep.txt" ugrep    ugrep -z --zmax=2 -c -f "$PATS" "$DIR/logs.tar.gz"
add a ugrep-packs "$RES/a.ugrep-packs.txt" ugrep ugrep -z --zmax=2 -c -F -f "$PACK_LITS" "$DIR/logs.tar.gz"
add b artiscan    "$RES/b.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$DIR/logs.tar.zst"
add b zstd        /dev/null         zstd      zstd -dc "$DIR/logs.tar.zst"
add b ugrep       "$RES/b.ugrep.txt" ugrep    ugrep -z --zmax=2 -c -f "$PATS" "$DIR/logs.tar.zst"
add b ugrep-packs "$RES/b.ugrep-packs.txt" ugrep ugrep -z --zmax=2 -c -F -f "$PACK_LITS" "$DIR/logs.tar.zst"
add c artiscan    "$RES/c.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$DIR/big.log"
add c rg          "$RES/c.rg.txt"    rg       rg -c -f "$PATS" "$DIR/big.log"
add c ugrep       "$RES/c.ugrep.txt" ugrep    ugrep -c -f "$PATS" "$DIR/big.log"
add c rg-packs    "$RES/c.rg-packs.txt" rg    rg -c -F -f "$PACK_LITS" "$DIR/big.log"
add d artiscan-j2 "$RES/d.artiscan-j2.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" -j 2 "$DIR/zips"
add d artiscan-j1 "$RES/d.artiscan-j1.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" -j 1 "$DIR/zips"
PRE="rm -rf '$RES/store-d' && mkdir -p '$RES/store-d'"   # a fresh store each run: every artifact scanned
add d audit-j2    "$RES/d.audit-j2.txt" "$ARTISCAN" "$ARTISCAN" "${AU[@]}" --db "$RES/store-d/audit.sqlite" -j 2 "$DIR/zips"
PRE=
add d ugrep-J2    "$RES/d.ugrep-J2.txt" ugrep ugrep -z -r -J2 -c -f "$PATS" "$DIR/zips"
add d ugrep-J1    "$RES/d.ugrep-J1.txt" ugrep ugrep -z -r -J1 -c -f "$PATS" "$DIR/zips"
add d ugrep-packs-J2 "$RES/d.ugrep-packs-J2.txt" ugrep ugrep -z -r -J2 -c -F -f "$PACK_LITS" "$DIR/zips"
add e artiscan    "$RES/e.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$DIR/sparse.tar.gz"
add e rapidgzip   /dev/null         "$RG"     "$RG" -P 1 -d -c "$DIR/sparse.tar.gz"
add e pigz        /dev/null         pigz      pigz -dc "$DIR/sparse.tar.gz"
add e ugrep       "$RES/e.ugrep.txt" ugrep    ugrep -z --zmax=2 -c -f "$PATS" "$DIR/sparse.tar.gz"
add e ugrep-packs "$RES/e.ugrep-packs.txt" ugrep ugrep -z --zmax=2 -c -F -f "$PACK_LITS" "$DIR/sparse.tar.gz"
add f artiscan    "$RES/f.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$ENVJ"
PRE="rm -rf '$RES/store-f' && mkdir -p '$RES/store-f'"
add f audit       "$RES/f.audit.txt" "$ARTISCAN" "$ARTISCAN" "${AU[@]}" --db "$RES/store-f/audit.sqlite" "$ENVJ"
PRE=
add f rapidgzip   /dev/null         "$RG"     bash -c 'catgz "$0" "$1" -P 1 -d -c' "$ENVJ" "$RG"
add f pigz        /dev/null         pigz      bash -c 'catgz "$0" pigz -dc' "$ENVJ"
add f ugrep       "$RES/f.ugrep.txt" ugrep    ugrep -z --zmax=2 -r -c -f "$PATS" "$ENVJ"
add f ugrep-packs "$RES/f.ugrep-packs.txt" ugrep ugrep -z --zmax=2 -r -c -F -f "$PACK_LITS" "$ENVJ"
add g artiscan    "$RES/g.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$DIR/small.tar.gz"
add g rapidgzip   /dev/null         "$RG"     "$RG" -P 1 -d -c "$DIR/small.tar.gz"
add g pigz        /dev/null         pigz      pigz -dc "$DIR/small.tar.gz"
add g ugrep       "$RES/g.ugrep.txt" ugrep    ugrep -z --zmax=2 -c -f "$PATS" "$DIR/small.tar.gz"
add g ugrep-packs "$RES/g.ugrep-packs.txt" ugrep ugrep -z --zmax=2 -c -F -f "$PACK_LITS" "$DIR/small.tar.gz"
# h-j: what the verifier reads. scan and check against rg -c with the verifier's literals
# (patterns.txt); grep -c -F of each literal in GREP_LITERALS against rg -c -F and ugrep -c -F
# (agrep-K, rg-F-K, ugrep-F-K: the K-th literal). grep's exit 1 is "nothing found";
# check's 1 and 3 are verdicts (a fail, an unknown), not a failure of the command.
real_cmds() {   # real_cmds WORKLOAD PATH
  local w=$1 p=$2 k=0 lit lits
  [[ -n $p ]] || return 0
  [[ $w != j ]] || OKRC="0 1"   # the LMCache log holds no evidence: scan finds nothing there
  add "$w" artiscan "$RES/$w.artiscan.jsonl" "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "$p"
  OKRC=
  if [[ $w != j ]]; then
    OKRC="0 1 3"
    add "$w" check "$RES/$w.check.jsonl" "$ARTISCAN" "$ARTISCAN" check --set inferencex --format jsonl "$p"
    OKRC=
  fi
  add "$w" rg "$RES/$w.rg.txt" rg rg -c -f "$PATS" "$p"
  # No target: rg given every prefilter literal of the built-in packs (what scan searches
  # for; patterns.txt holds the verifier's 18), to show what the literal count costs rg.
  [[ $w == j ]] || add "$w" rg-packs "$RES/$w.rg-packs.txt" rg rg -c -F -f "$PACK_LITS" "$p"
  # Issue 44's yardstick: artiscan's own grep given the literals scan searches for (the
  # packs' prefilters), so that what is left is extraction, records and hashing.
  [[ $w == j ]] || add "$w" agrep-packs "$RES/$w.agrep-packs.txt" "$ARTISCAN" "$ARTISCAN" grep -c -F -f "$PACK_LITS" "$p"
  IFS='|' read -ra lits <<<"$GREP_LITERALS"
  for lit in "${lits[@]}"; do
    k=$((k + 1))
    add "$w" "agrep-$k" "$RES/$w.agrep-$k.txt" "$ARTISCAN" "$ARTISCAN" grep -c -F "$lit" "$p"
    add "$w" "rg-F-$k" "$RES/$w.rg-F-$k.txt" rg rg -c -F "$lit" "$p"
    add "$w" "ugrep-F-$k" "$RES/$w.ugrep-F-$k.txt" ugrep ugrep -r -c -F "$lit" "$p"
  done
}
real_cmds h "$REAL_H"
real_cmds i "$REAL_I"
real_cmds j "$REAL_J"
if [ -n "${SKIP_RULES:-}" ]; then
  SK=()
  IFS=, read -ra skip_ids <<< "$SKIP_RULES"
  for r in "${skip_ids[@]}"; do SK+=(--skip "$r"); done
  add a artiscan-skip /dev/null "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "${SK[@]}" "$DIR/logs.tar.gz"
  add b artiscan-skip /dev/null "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "${SK[@]}" "$DIR/logs.tar.zst"
  add c artiscan-skip /dev/null "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "${SK[@]}" "$DIR/big.log"
  add d artiscan-skip /dev/null "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "${SK[@]}" -j 2 "$DIR/zips"
  add e artiscan-skip /dev/null "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "${SK[@]}" "$DIR/sparse.tar.gz"
  add f artiscan-skip /dev/null "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "${SK[@]}" "$ENVJ"
  add g artiscan-skip /dev/null "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "${SK[@]}" "$DIR/small.tar.gz"
  for w in h i j; do
    p=REAL_${w^^}
    [[ -z ${!p} ]] || add "$w" artiscan-skip /dev/null "$ARTISCAN" "$ARTISCAN" "${AA[@]}" "${SK[@]}" "${!p}"
  done
fi

# run_one INDEX RUN   -> appends "w id run wall_s rss_kib rc cpu_s" to $RAW (RUN=0: warm-up, not recorded)
run_one() {
  local i=$1 run=$2 tf rc=0 wall rss usr sys t0 t1 us
  [[ -z ${C_PRE[$i]} ]] || eval "${C_PRE[$i]}"
  tf=$(mktemp)
  t0=${EPOCHREALTIME:-}
  eval "\"\$TIME\" -f '%e %M %U %S' -o \"\$tf\" ${C_CMD[$i]} >\"\${C_OUT[$i]}\" 2>\"\$RES/\${C_W[$i]}.\${C_ID[$i]}.stderr\"" || rc=$?
  t1=${EPOCHREALTIME:-}
  read -r wall rss usr sys < <(tail -n 1 "$tf") || true
  rm -f "$tf"
  if [[ -n $t0 ]]; then   # microsecond wall clock (GNU time's %e has 10 ms resolution)
    us=$(( 10#${t1//[.,]/} - 10#${t0//[.,]/} ))
    wall=$(printf '%d.%06d' $((us / 1000000)) $((us % 1000000)))
  fi
  if [[ " ${C_OK[$i]} " != *" $rc "* ]]; then
    log "FAILED (rc=$rc): ${C_W[$i]}.${C_ID[$i]}: $(head -c 300 "$RES/${C_W[$i]}.${C_ID[$i]}.stderr")"
  fi
  ((run == 0)) || printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${C_W[$i]}" "${C_ID[$i]}" "$run" "${wall:-nan}" "${rss:-0}" "$rc" \
    "$(awk -v u="${usr:-0}" -v s="${sys:-0}" 'BEGIN { printf "%.2f", u + s }')" >>"$RAW"
}

{
  echo "artiscan benchmark  $(date -u '+%Y-%m-%dT%H:%M:%SZ')"
  echo "host: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //')"
  echo "artiscan: $ARTISCAN_SRC, copied to $ARTISCAN ($("$ARTISCAN" --version 2>/dev/null || echo '?'), sha256 $BIN_SHA...)"
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) (ratios are only meaningful on an otherwise idle machine)"
  for t in "${RAPIDGZIP:-rapidgzip}" pigz gzip zstd ugrep rg; do
    command -v "$t" >/dev/null && echo "${t##*/}: $(command -v "$t") $("$t" --version 2>&1 | head -n 1)"
  done
  if [[ -n $RAPIDGZIP ]]; then
    gzip -c </dev/null >"$RES/empty.gz"
    t0=$EPOCHREALTIME; "$RAPIDGZIP" -P 1 -d -c "$RES/empty.gz" >/dev/null; t1=$EPOCHREALTIME
    echo "rapidgzip start-up (empty input): $(( (10#${t1//[.,]/} - 10#${t0//[.,]/}) / 1000 )) ms" \
      "(the decoder floor is the faster of rapidgzip -P 1 and pigz -dc in each round)"
  fi
  echo "patterns: $PATS ($(wc -l <"$PATS") lines)"
  [[ -z $synthetic ]] || echo "workload: $DIR ($(tr -s ' \n' ' ' <"$DIR/MANIFEST.json" | head -c 1200))"
  for w in h i j; do
    p=REAL_${w^^}
    [[ -z ${!p} ]] || ! want "$w" || echo "real ($w): ${!p} ($(du -sb "${!p}" | cut -f1) bytes, $(find "${!p}" -type f | wc -l) files)"
  done
  echo "runs: $RUNS (+1 warm-up; j: $((RUNS * 3)), its runs take milliseconds), interleaved per workload"
} | tee "$RES/summary.txt" >&2

for w in $WORKLOADS; do
  want "$w" || continue
  idx=()
  for i in "${!C_W[@]}"; do [[ ${C_W[$i]} == "$w" ]] && idx+=("$i"); done
  ((${#idx[@]})) || continue
  log "workload $w: warm-up"
  for i in "${idx[@]}"; do run_one "$i" 0; done
  n=$RUNS
  [[ $w != j ]] || n=$((RUNS * 3))
  for ((r = 1; r <= n; r++)); do
    log "workload $w: run $r/$n"
    for i in "${idx[@]}"; do run_one "$i" "$r"; done
  done
done

# ---------------------------------------------------------------- 5. memory and -j pass
# Untimed: `artiscan scan -j1` and `-j2` once per input under a poller. GNU time's %M (VmHWM)
# counted the input file's pages while zips were mapped (none is since); the target excludes
# them, so the poller samples RssAnon every millisecond. wait4's ru_maxrss gives the exact VmHWM, and
# VmHWM - input bytes is an exact lower bound on the anonymous peak (a sampled peak below
# that bound means the sampling missed it: reported, never "met"). The two outputs must
# be byte-identical (records come out in walk order whatever -j) and equal to the timed run's.
cat >"$RES/memrun.py" <<'PY'
import os, subprocess, sys, time
out, err, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
with open(out, "wb") as o, open(err, "wb") as e:
    p = subprocess.Popen(cmd, stdout=o, stderr=e)
anon, status = 0, f"/proc/{p.pid}/status"
while True:
    pid, st, ru = os.wait4(p.pid, os.WNOHANG)
    if pid:
        break
    try:
        with open(status) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    anon = max(anon, int(line.split()[1]))
                    break
    except (OSError, ValueError):
        pass
    time.sleep(0.001)
print(anon, ru.ru_maxrss, os.waitstatus_to_exitcode(st))
PY
mem_one() {   # mem_one WORKLOAD INPUT_BYTES ARGV...   -> "w j anon_kib hwm_kib rc input_bytes binary_bytes"
  local w=$1 bytes=$2 j a h rc; shift 2
  for j in 1 2; do
    a=0 h=0 rc=255   # what is left when the poller itself fails: a failed run
    read -r a h rc < <(python3 "$RES/memrun.py" "$RES/$w.mem-j$j.jsonl" "$RES/$w.mem-j$j.stderr" \
      "$ARTISCAN" "${AA[@]}" -j "$j" "$@") || true
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$j" "$a" "$h" "$rc" "$bytes" "$(fsize "$ARTISCAN")" >>"$MEM"
  done
}
fsize() { du -cb "$@" | tail -n 1 | cut -f1; }
if [[ -z ${NO_MEM:-} ]]; then
  log "memory and -j pass"
  want a && mem_one a "$(fsize "$DIR/logs.tar.gz")" "$DIR/logs.tar.gz"
  want b && mem_one b "$(fsize "$DIR/logs.tar.zst")" "$DIR/logs.tar.zst"
  want c && mem_one c "$(fsize "$DIR/big.log")" "$DIR/big.log"
  want d && mem_one d "$(fsize "$DIR/zips")" "$DIR/zips"
  want e && mem_one e "$(fsize "$DIR/sparse.tar.gz")" "$DIR/sparse.tar.gz"
  want f && mem_one f "$(fsize "$ENVJ")" "$ENVJ"
  want g && mem_one g "$(fsize "$DIR/small.tar.gz")" "$DIR/small.tar.gz"
  for w in h i j; do
    p=REAL_${w^^}
    [[ -z ${!p} ]] || ! want "$w" || mem_one "$w" "$(fsize "${!p}")" "${!p}"
  done
fi
[[ $(sha256sum "$ARTISCAN" | cut -c1-16) == "$BIN_SHA" ]] || BIN_CHANGED=1
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$RES/summary.txt" >&2

# ---------------------------------------------------------------- 6. report
python3 - "$RAW" "$CMDS" "$RES" "$DIR/MANIFEST.json" "$MEM" "${BIN_CHANGED:-}" \
  "$REAL_H" "$REAL_I" "$REAL_J" "$GREP_LITERALS" <<'PY' | tee -a "$RES/summary.txt"
import csv, json, os, re, statistics as st, sys

raw, cmds, res, manifest, mem, bin_changed = sys.argv[1:7]
real = dict(zip("hij", sys.argv[7:10]))
literals = sys.argv[10].split("|")


def tree_bytes(p):
    if not p:
        return None
    if os.path.isfile(p):
        return os.path.getsize(p)
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(p) for f in fs)


try:
    man = json.load(open(manifest))
except (OSError, ValueError):
    man = {}
text = lambda k: man.get(k, {}).get("text_bytes")  # noqa: E731
SIZE = {"a": text("tar"), "b": text("tar"), "c": text("big"), "d": text("zips"),
        "e": text("sparse"), "f": text("envjson"), "g": text("small"),
        **{w: tree_bytes(p) for w, p in real.items()}}
rows = {}
cpu = {}
for w, i, run, wall, rss, rc, cpus in csv.reader(open(raw), delimiter="\t"):
    rows.setdefault((w, i), {})[int(run)] = (float(wall), int(rss) / 1024, int(rc))
    cpu.setdefault((w, i), []).append(float(cpus))
cmd, out = {}, {}
okrc = {}
for w, i, c, o, ok in csv.reader(open(cmds), delimiter="\t", quoting=csv.QUOTE_NONE):
    cmd[(w, i)], out[(w, i)], okrc[(w, i)] = c, o, {int(x) for x in ok.split()}
# The single-stream decoder floor of a gzip workload, per round: the faster of rapidgzip -P 1
# and pigz -dc (rapidgzip alone would carry its ~0.3 s Python start-up into the floor).
for w in "aefg":
    dec = [rows[(w, d)] for d in ("rapidgzip", "pigz") if (w, d) in rows]
    if dec:
        rows[(w, "floor")] = {k: (min(d[k][0] for d in dec if k in d), 0.0, max(d[k][2] for d in dec if k in d))
                              for k in set().union(*dec)}
        cmd[(w, "floor")] = "min(rapidgzip -P 1, pigz -dc) per round"

NAMES = {"a": "tar.gz (logs.tar.gz)", "b": "tar.zst (logs.tar.zst)", "c": "plain log (big.log)",
         "d": "folder of zips (zips/)", "e": "sparse matches, tar.gz (sparse.tar.gz)",
         "f": "env dumps and JSON, folder of tar.gz (envjson/)",
         "g": "thousands of small members, tar.gz (small.tar.gz)",
         "h": f"real SGLang run folder ({os.path.basename(real['h'])})",
         "i": f"real vLLM run folder ({os.path.basename(real['i'])})",
         "j": f"real coloured log alone ({real['j']})"}
# artiscan command -> references its ratio is reported against
PAIRS = {"a": [("artiscan", r) for r in ("floor", "rapidgzip", "pigz", "gzip", "ugrep", "ugrep-packs")],
         "b": [("artiscan", r) for r in ("zstd", "ugrep", "ugrep-packs")],
         "c": [("artiscan", r) for r in ("rg", "ugrep", "rg-packs")] + [("rg-packs", "rg")],
         "d": [("artiscan-j2", "ugrep-J2"), ("artiscan-j1", "ugrep-J1"), ("artiscan-j1", "artiscan-j2"),
               ("audit-j2", "artiscan-j2"), ("artiscan-j2", "ugrep-packs-J2")],
         "e": [("artiscan", r) for r in ("floor", "ugrep", "ugrep-packs")],
         "f": [("artiscan", "floor"), ("artiscan", "ugrep"), ("audit", "artiscan"), ("artiscan", "ugrep-packs")],
         "g": [("artiscan", r) for r in ("floor", "ugrep", "ugrep-packs")]}
for w in "abdefg":  # what the packs' literal count costs the reference (no target)
    PAIRS[w].append(("ugrep-packs-J2" if w == "d" else "ugrep-packs", "ugrep-J2" if w == "d" else "ugrep"))
for w in "hij":
    PAIRS[w] = [("artiscan", "rg"), ("check", "rg"), ("check", "artiscan"),
                ("artiscan", "rg-packs"), ("rg-packs", "rg"),
                ("artiscan", "agrep-packs"), ("check", "agrep-packs"), ("agrep-packs", "rg-packs")]
    for k in range(1, len(literals) + 1):
        PAIRS[w] += [(f"agrep-{k}", f"rg-F-{k}"), (f"agrep-{k}", f"ugrep-F-{k}")]
for w in PAIRS:  # SKIP_RULES: what the skipped rules cost
    PAIRS[w].append(("artiscan-j2" if w == "d" else "artiscan", "artiscan-skip"))
# (workload, a, b, op, limit, text): ratio = median over runs of time(a)/time(b)
FLOOR = "within 1.5x of the decoder floor (rapidgzip -P 1 / pigz -dc)"
TARGETS = [
    ("a", "artiscan", "ugrep", "<", 1.0, "tar.gz: faster than ugrep -z -c"),
    ("a", "artiscan", "floor", "<=", 1.5, "tar.gz: " + FLOOR),
    ("b", "artiscan", "ugrep", "<", 1.0, "tar.zst: faster than ugrep -z -c"),
    ("b", "artiscan", "zstd", "<=", 1.5, "tar.zst: within 1.5x of zstd -dc"),
    ("c", "artiscan", "rg", "<=", 1.25, "plain: within 1.25x of rg -c -f"),
    ("d", "artiscan-j2", "ugrep-J2", "<", 1.0, "zips: -j2 faster than ugrep -z -r -J2"),
    ("d", "artiscan-j1", "ugrep-J1", "<", 1.0, "zips: -j1 faster than ugrep -z -r -J1"),
    ("d", "artiscan-j1", "artiscan-j2", ">=", 1.8, "zips: speed-up -j1 -> -j2 at least 1.8x"),
    ("d", "audit-j2", "artiscan-j2", "<=", 1.2, "zips: audit (fresh store) within 1.2x of scan"),
    ("e", "artiscan", "ugrep", "<", 1.0, "sparse tar.gz: faster than ugrep -z -c"),
    ("e", "artiscan", "floor", "<=", 1.5, "sparse tar.gz: " + FLOOR),
    ("f", "artiscan", "ugrep", "<", 1.0, "env/JSON tar.gz folder: faster than ugrep -z -r -c"),
    ("f", "artiscan", "floor", "<=", 1.5, "env/JSON tar.gz folder: " + FLOOR + " (concatenated)"),
    ("f", "audit", "artiscan", "<=", 1.2, "env/JSON tar.gz folder: audit (fresh store) within 1.2x of scan"),
    ("g", "artiscan", "ugrep", "<", 1.0, "small-member tar.gz: faster than ugrep -z -c"),
    ("g", "artiscan", "floor", "<=", 1.5, "small-member tar.gz: " + FLOOR),
] + [(w, "artiscan", "rg", "<=", 3.0, "scan: within 3x of rg -c -f patterns.txt") for w in "hi"
] + [(w, a, "agrep-packs", "<=", 3.0, f"{a}: within 3x of artiscan grep -c -F -f (the packs' literals)")
     for w in "hi" for a in ("artiscan", "check")
] + [(w, f"agrep-{k}", f"rg-F-{k}", "<=", 1.5, f"grep -c -F '{lit}': within 1.5x of rg -c -F")
     for w in "hij" for k, lit in enumerate(literals, 1)
] + [(w, "artiscan-j2" if w == "d" else "artiscan", "artiscan-skip", "<=", 1.05,
      f"{w}: the SKIP_RULES rules cost at most 5%") for w in "abcdefghij"]
RSS_LIMIT = 64.0
ELAPSED = re.compile(rb'"elapsed_s":[0-9.eE+-]+')
ARCHIVES = "abdefghij"  # (c) is a plain log: its RssAnon is the target


def count_sum(path):
    """Total of a `-c` output: `PATH:N` lines (or a bare `N` for one file)."""
    try:
        return sum(int(line.rsplit(b":", 1)[-1]) for line in open(path, "rb") if line.strip())
    except (OSError, ValueError):
        return None


def ratio(w, a, b):
    ra, rb = rows.get((w, a), {}), rows.get((w, b), {})
    rs = [ra[k][0] / rb[k][0] for k in ra if k in rb and rb[k][0] > 0]
    return st.median(rs) if rs else None


def failed(w, i):
    ok = okrc.get((w, i), {0, 1})
    return any(rc not in ok for _, _, rc in rows.get((w, i), {}).values())


verdicts = []  # (met, text)
for w in "abcdefghij":
    ids = [i for (ww, i) in rows if ww == w]
    if not ids:
        continue
    print(f"\n## ({w}) {NAMES[w]}")
    print(f"{'command':<13} {'median s':>9} {'min s':>8} {'max s':>8} {'CPU s':>7} {'RSS MiB':>8}  {'GB/s*':>6}  command line")
    size = SIZE[w]
    for i in ids:
        v = list(rows[(w, i)].values())
        walls = [x[0] for x in v]
        rss = st.median(x[1] for x in v)
        med = st.median(walls)
        gbs = f"{size / med / 1e9:6.2f}" if size and med > 0 else "     -"
        flag = "  FAILED" if failed(w, i) else ""
        c = f"{st.median(cpu[(w, i)]):7.2f}" if (w, i) in cpu else "      -"
        print(f"{i:<13} {med:9.3f} {min(walls):8.3f} {max(walls):8.3f} {c} {rss:8.1f}  {gbs}  {cmd.get((w, i), '')}{flag}")
    print("  (* GB/s of uncompressed log text; CPU s: median user+sys; RSS: GNU time %M; no input is mapped)")
    for i in ids:
        if i.startswith("artiscan") and out.get((w, i), "").endswith(".jsonl"):
            try:
                n = sum(1 for _ in open(out[(w, i)], "rb"))
            except OSError:
                n = 0
            print(f"  {i} output (last run): {n} JSON lines{'  <- EMPTY' if n == 0 else ''}")
    for k, lit in enumerate(literals, 1):  # a fast wrong count is no result
        ids_k = [i for i in (f"agrep-{k}", f"rg-F-{k}", f"ugrep-F-{k}") if (w, i) in out]
        if len(ids_k) > 1:
            counts = {i: count_sum(out[(w, i)]) for i in ids_k}
            same = len(set(counts.values())) == 1 and None not in counts.values()
            verdicts.append(same)
            shown = ", ".join(f"{i} {c}" for i, c in counts.items())
            print(f"  [{'met' if same else 'NOT MET (FAILED)'}] grep -c -F '{lit}' counts agree: {shown}")
    for a, b in PAIRS[w]:
        r = ratio(w, a, b)
        if r is not None:
            how = f"{1 / r:.2f}x faster" if r < 1 else f"{r:.2f}x slower"
            ca, cb = cpu.get((w, a)), cpu.get((w, b))
            cr = f"; CPU {st.median(ca) / st.median(cb):.2f}x" if ca and cb and st.median(cb) > 0 else ""
            print(f"  time {a} / {b} = {r:.3f}  ({a} {how}{cr})")

print("\n## targets")
for w, a, b, op, lim, txt in TARGETS:
    if (w, a) not in rows or (w, b) not in rows:
        continue
    r = ratio(w, a, b)
    ok = r is not None and not failed(w, a) and (r < lim if op == "<" else r <= lim if op == "<=" else r >= lim)
    verdicts.append(ok)
    shown = f"{r:.3f} (need {op} {lim:.3f})" if r is not None else "n/a"
    print(f"  [{'met' if ok else 'NOT MET'}] ({w}) {txt}: ratio {shown}")

mrows = list(csv.reader(open(mem), delimiter="\t")) if os.path.exists(mem) else []
if mrows:
    print(f"\n## memory and -j (untimed; peak RssAnon sampled every 1 ms, VmHWM exact)")
by_w = {}
for w, j, anon, hwm, rc, nbytes, binbytes in mrows:
    anon_m, hwm_m = int(anon) / 1024, int(hwm) / 1024
    # VmHWM counts file pages too: at most the input and the binary (+ 8 MiB for libraries)
    lower = (int(hwm) * 1024 - int(nbytes) - int(binbytes)) / (1 << 20) - 8
    by_w.setdefault(w, []).append(j)
    if int(rc) not in okrc.get((w, "artiscan-j2" if w == "d" else "artiscan"), {0}):
        ok, how = False, f"FAILED rc={rc}"
    elif hwm_m <= RSS_LIMIT:
        ok, how = True, "exact: VmHWM"
    elif max(anon_m, lower) > RSS_LIMIT:
        ok, how = False, "sampled RssAnon or VmHWM - input"
    elif anon_m < lower:
        ok, how = False, "unknown: the samples missed the peak"
    else:
        ok, how = True, "sampled RssAnon"
    print(f"  ({w}) -j{j}: RssAnon peak {anon_m:7.1f} MiB, VmHWM {hwm_m:7.1f} MiB, "
          f"input {int(nbytes) / (1 << 20):7.1f} MiB")
    if w in ARCHIVES:
        verdicts.append(ok)
        print(f"  [{'met' if ok else 'NOT MET'}] ({w}) peak memory at -j{j} <= {RSS_LIMIT:.0f} MiB "
              f"(anonymous): {max(anon_m, lower):.1f} MiB ({how})")
for w, js in sorted(by_w.items()):
    outs = {j: os.path.join(res, f"{w}.mem-j{j}.jsonl") for j in js}
    timed = [o for (ww, i), o in out.items() if ww == w and i.startswith("artiscan") and o.endswith(".jsonl")]
    blobs = {}
    for name, p in list(outs.items()) + [(os.path.basename(p), p) for p in timed]:
        try:  # the summary's wall time is the one field allowed to differ
            blobs[name] = ELAPSED.sub(b'"elapsed_s":0', open(p, "rb").read())
        except OSError:
            blobs[name] = None
    same = all(b is not None and b == blobs["1"] for b in blobs.values()) and bool(blobs.get("1"))
    verdicts.append(same)
    what = ", ".join(sorted(blobs))
    print(f"  [{'met' if same else 'NOT MET (FAILED)'}] ({w}) output independent of -j: "
          f"{'byte-identical' if same else 'DIFFERENT or missing'} ({what})")

if bin_changed:
    verdicts.append(False)
    print("\n  [NOT MET] the artiscan binary changed during the run: timings mix two builds")
print(f"\n{sum(verdicts)}/{len(verdicts)} targets met")
open(os.path.join(res, "verdict"), "w").write("ok\n" if all(verdicts) else "not met\n")
PY

# Wall-time ratios of multi-threaded commands and the -j scaling mean little on a busy machine.
read -r load1 _ </proc/loadavg
if awk -v l="$load1" -v s="$LOAD_START" -v n="$(nproc)" 'BEGIN { exit !(l >= n / 2 || s >= n / 2) }'; then
  echo "WARNING: machine busy (load average $LOAD_START at start, $load1 at end, $(nproc) CPUs): wall-time ratios, above all -j scaling, are unreliable; compare CPU s" |
    tee -a "$RES/summary.txt" >&2
fi
log "raw timings: $RAW; memory: $MEM; summary: $RES/summary.txt"
if [[ -n ${STRICT:-} && $(cat "$RES/verdict") != ok ]]; then exit 1; fi
