#!/usr/bin/env bash
# `structtest score` end to end (read JSONL, score, write verdict lines), one core, per
# non-code subtask, next to the Python reference doing the same work on the same file
# in the same run: bench/reference_score.py (json.loads, the paper rules with NLTK's
# Punkt and html.parser, json.dumps) and its --json-only floor (json.loads + json.dumps
# alone). Each file is the dev conformance corpus of the subtask repeated REPEAT times
# (default 10), so start-up is a small share. Rates are records per second of CPU time
# (user + system) of the whole process for structtest, and of the timed loop for
# Python (which leaves its start-up and model load out, in its favour). Each of the
# three is run RUNS times (default 3) and its best rate kept: on a shared machine a
# single run of a fraction of a second varies by half. Prints a table and exits 1
# when structtest is below 10x the reference on a subtask.
# STRUCTTEST=path scores with another build; SUBTASKS="math_easy math_hard" runs only
# those. Needs ../shared and python3-nltk; run after scripts/build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
shared=${STRUCTTEST_SHARED:-$root/../shared}
bin=${STRUCTTEST:-$root/build/structtest}
repeat=${REPEAT:-10}
runs=${RUNS:-3}
[[ -d $shared/conformance/dev ]] || { echo "score_e2e: $shared/conformance/dev not found" >&2; exit 2; }
[[ -x $bin ]] || { echo "score_e2e: $bin not built (run scripts/build)" >&2; exit 2; }
export NLTK_DATA=$shared/nltk_data
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
pin=""
command -v taskset >/dev/null && pin="taskset -c 0"

read -r -a subtasks <<< "${SUBTASKS:-length bullet_points numbered_points questions \
bullet_points_length numbered_points_length indented_bullet_points html_easy html_hard \
math_easy math_hard}"
printf '%-24s %8s %12s %12s %12s %8s %8s\n' subtask records structtest/s reference/s \
  json-only/s x-ref x-json
status=0
for s in "${subtasks[@]}"; do
  in=$work/$s.jsonl
  for ((i = 0; i < repeat; i++)); do cat "$shared"/conformance/dev/*/"$s".jsonl; done > "$in"
  n=$(wc -l < "$in")
  st=0 ref=0 json=0
  for ((r = 0; r < runs; r++)); do
    # bash's own `time`, to the millisecond (/usr/bin/time's -f %U rounds to 10 ms).
    cpu=$( { TIMEFORMAT='%3U %3S'; time $pin "$bin" score -i "$in" -o "$work/out.jsonl" \
               > /dev/null; } 2>&1 | tail -1)
    rate=$(awk -v n="$n" -v t="$cpu" 'BEGIN { split(t, a, " "); printf "%.0f", n / (a[1] + a[2]) }')
    st=$(awk -v a="$st" -v b="$rate" 'BEGIN { printf "%.1f", (b > a ? b : a) }')
    rate=$($pin python3 "$root/bench/reference_score.py" "$in" "$work/ref.jsonl" |
           sed -n 's/.* rate=\([0-9.]*\).*/\1/p')
    ref=$(awk -v a="$ref" -v b="$rate" 'BEGIN { printf "%.1f", (b > a ? b : a) }')
    rate=$($pin python3 "$root/bench/reference_score.py" --json-only "$in" "$work/ref.jsonl" |
           sed -n 's/.* rate=\([0-9.]*\).*/\1/p')
    json=$(awk -v a="$json" -v b="$rate" 'BEGIN { printf "%.1f", (b > a ? b : a) }')
  done
  read -r xr xj < <(awk -v a="$st" -v r="$ref" -v j="$json" 'BEGIN { printf "%.1f %.1f\n", a / r, a / j }')
  printf '%-24s %8d %12.0f %12.0f %12.0f %8s %8s\n' "$s" "$n" "$st" "$ref" "$json" "$xr" "$xj"
  if awk -v x="$xr" 'BEGIN { exit !(x < 10) }'; then status=1; fi
done
exit $status
