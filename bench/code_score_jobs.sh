#!/usr/bin/env bash
# Code-subtask scoring throughput of `structtest score` with 1 and with N threads
# (--score-jobs, one sandboxed python3 worker each): records per second of wall time,
# the whole process (read, score, write), on every code subtask. The records are
# generated samples (seed 1, LIMIT per subtask, default 40) answered with their
# reference answer and with an empty one. N defaults to the number of cores (JOBS=...
# to change it). Prints a table; the verdict files of 1 and N threads must be the same
# bytes, else it exits 1. Run after scripts/build.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin=$root/build/structtest
limit=${LIMIT:-40}
jobs=${JOBS:-$(nproc)}
[[ -x $bin ]] || { echo "code_score_jobs: $bin not built (run scripts/build)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$bin" generate --seed 1 --tasks code --limit "$limit" --out "$work/samples.jsonl" >/dev/null
python3 - "$work/samples.jsonl" "$work" <<'PY'
import json, sys, collections
by = collections.defaultdict(list)
for line in open(sys.argv[1]):
    j = json.loads(line)
    for response in (j["target"]["answer"], ""):
        j["response"] = response
        by[j["subtask"]].append(json.dumps(j))
for subtask, lines in by.items():
    with open(f"{sys.argv[2]}/{subtask}.jsonl", "w") as f:
        f.write("\n".join(lines) + "\n")
    with open(f"{sys.argv[2]}/all.jsonl", "a") as f:
        f.write("\n".join(lines) + "\n")
PY

rate() {  # rate FILE JOBS OUT: records/s of wall time
  local n start end
  n=$(wc -l < "$1")
  start=$(date +%s.%N)
  "$bin" score -J "$2" -i "$1" -o "$3" > /dev/null || [[ $? == 1 ]]
  end=$(date +%s.%N)
  awk -v n="$n" -v a="$start" -v b="$end" 'BEGIN { printf "%.1f", n / (b - a) }'
}

printf '%-26s %8s %12s %12s %8s\n' subtask records "1 thread/s" "$jobs threads/s" speedup
status=0
for f in "$work"/add_print_statements.jsonl "$work"/replace_variables.jsonl \
         "$work"/test_case_inputs_gen.jsonl "$work"/simulate_execute.jsonl \
         "$work"/add_print_statements_v2.jsonl "$work"/replace_variables_v2.jsonl \
         "$work"/test_case_inputs_gen_v2.jsonl "$work"/simulate_execute_v2.jsonl \
         "$work"/all.jsonl; do
  s=$(basename "$f" .jsonl)
  one=$(rate "$f" 1 "$work/one.out")
  many=$(rate "$f" "$jobs" "$work/many.out")
  if ! cmp -s "$work/one.out" "$work/many.out"; then
    echo "code_score_jobs: $s: the verdicts of 1 and $jobs threads differ" >&2
    status=1
  fi
  printf '%-26s %8d %12s %12s %7.2fx\n' "$s" "$(wc -l < "$f")" "$one" "$many" \
    "$(awk -v a="$one" -v b="$many" 'BEGIN { print b / a }')"
done
exit $status
