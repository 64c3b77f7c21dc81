#!/usr/bin/env bash
# The GitHub Action's check step (see action.yml). Inputs come as INPUT_*
# environment variables, one item per line; `ARTISCAN` may name the binary
# (tests point it at a fresh build). Writes the Markdown verdicts to
# $GITHUB_STEP_SUMMARY, counts to $GITHUB_OUTPUT, the JSON Lines to
# $RUNNER_TEMP (or a temporary folder).
set -uo pipefail
artiscan=${ARTISCAN:-artiscan}
: "${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set}"
: "${GITHUB_STEP_SUMMARY:?GITHUB_STEP_SUMMARY is not set}"
out_dir=${RUNNER_TEMP:-$(mktemp -d)}
json="$out_dir/artiscan-verdicts.jsonl"

lines() { printf '%s\n' "$1" | sed -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' | grep -v '^$'; }

args=(check)
while IFS= read -r s; do args+=(--set "$s"); done < <(lines "${INPUT_SET-inferencex}")
while IFS= read -r c; do args+=(--checks "$c"); done < <(lines "${INPUT_CHECKS:-}")
while IFS= read -r p; do args+=(--param "$p"); done < <(lines "${INPUT_PARAMS:-}")
paths=()
while IFS= read -r p; do paths+=("$p"); done < <(lines "${INPUT_PATHS:-}")
if [ ${#paths[@]} -eq 0 ]; then
    echo "artiscan action: input 'paths' is empty" >&2
    exit 2
fi
case ${INPUT_FAIL_ON:-fail} in
    fail | unknown | never) ;;
    *) echo "artiscan action: fail-on must be fail, unknown or never, not '${INPUT_FAIL_ON}'" >&2; exit 2 ;;
esac

"$artiscan" "${args[@]}" --no-progress --format jsonl -- "${paths[@]}" > "$json"
rc=$?
"$artiscan" "${args[@]}" --no-progress --format markdown -- "${paths[@]}" >> "$GITHUB_STEP_SUMMARY"

python3 - "$json" <<'PY' >> "$GITHUB_OUTPUT" || exit 2
import json, sys
counts = {"pass": 0, "fail": 0, "unknown": 0, "not_applicable": 0}
with open(sys.argv[1], encoding="utf-8") as f:
    for line in f:
        rec = json.loads(line)
        if rec.get("type") == "verdict":
            counts[rec["status"]] = counts.get(rec["status"], 0) + 1
for k, v in counts.items():
    print(f"{k.replace('_', '-')}={v}")
PY
{
    echo "json=$json"
    echo "exit-code=$rc"
} >> "$GITHUB_OUTPUT"

case $rc in
    0) exit 0 ;;
    2) echo "artiscan check failed with an error (exit 2); see the log above" >&2; exit 2 ;;
    1) [ "${INPUT_FAIL_ON:-fail}" = never ] && exit 0; exit 1 ;;
    3) [ "${INPUT_FAIL_ON:-fail}" = unknown ] && exit 3; exit 0 ;;
    *) exit "$rc" ;;
esac
