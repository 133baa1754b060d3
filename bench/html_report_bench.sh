#!/usr/bin/env bash
# html_report_bench.sh - the HTML report at scale: a report of one and of ten
# default-suite runs (13,879 and 138,790 samples), how long writing it takes and
# how it behaves in headless Chromium.
#
# What it measures
#   Ten runs of the built-in responders on the default suite (seed SEED, paper
#   size), all on the same samples so that every pair can be compared:
#   builtin/oracle, null, echo, skeleton and loophole, and five more of the
#   oracle on copies of the samples with a different fifth of the targets made
#   wrong each (those fail; the samples stay the same for compare). Then
#   `structtest report --format html` of the first run and of all ten, under
#   /usr/bin/time -v (wall-clock seconds, peak RSS), and
#   bench/html_report_measure.mjs on each page: file size, time to draw, filter
#   and search latency (budget 200 ms), scroll smoothness.
#
# How to run (from anywhere; the runs take several minutes the first time and
# are kept in WORK, so a second call only writes and measures the reports)
#   cmake --build build --target structtest
#   bench/html_report_bench.sh
#
# Environment knobs (defaults in brackets)
#   STRUCTTEST  structtest binary, relative to the repo root [build/structtest]
#   WORK        where the runs and reports go [/tmp/structtest_html_bench]
#   SEED        --seed [3]
#   NLTK_DATA   the Punkt model [../shared/nltk_data beside the checkout]
#
# Exit status: 0 when every run, report and measurement completed, 1 otherwise.

set -euo pipefail

readonly PROG=html_report_bench

die() {
  echo "$PROG: error: $*" >&2
  exit 1
}

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"
  exit 0
fi
[[ $# -eq 0 ]] || die "unknown argument '$1' (try --help)"

root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/${STRUCTTEST:-build/structtest}"
work=${WORK:-/tmp/structtest_html_bench}
seed=${SEED:-3}
[[ -x "$bin" ]] || die "$bin: no structtest binary (cmake --build build --target structtest)"
command -v node >/dev/null || die "node: not found"
[[ -x /usr/bin/time ]] || die "/usr/bin/time: not found (apt-get install time)"
if [[ -z "${NLTK_DATA:-}" && -d "$root/../shared/nltk_data" ]]; then
  export NLTK_DATA="$root/../shared/nltk_data"
fi
mkdir -p "$work"

samples="$work/samples.jsonl"
if [[ ! -s "$samples" ]]; then
  "$bin" generate --seed "$seed" --out "$samples.tmp" >&2 || die "generate failed"
  mv "$samples.tmp" "$samples"
fi
# Copies with the targets of every fifth sample (offset k) made wrong.
for k in 0 1 2 3 4; do
  [[ -s "$work/wrong$k.jsonl" ]] && continue
  python3 - "$samples" "$work/wrong$k.jsonl" "$k" <<'EOF' || die "cannot write wrong$k.jsonl"
import json, sys
src, dst, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(src) as f, open(dst + ".tmp", "w") as out:
    for i, line in enumerate(f):
        s = json.loads(line)
        if i % 5 == k and isinstance(s.get("target"), dict) and "answer" in s["target"]:
            s["target"]["answer"] = "not the answer"
        out.write(json.dumps(s) + "\n")
import os
os.rename(dst + ".tmp", dst)
EOF
done

runs=()
run_one() {  # NAME MODEL SAMPLES
  local dir="$work/run_$1"
  local t0=$SECONDS
  # Exit 1: finished with failures (a wrong answer), still a run.
  "$bin" run --model "$2" --samples "$3" --out "$dir" --quiet >/dev/null || [[ $? -eq 1 ]] ||
    die "run $1 failed"
  echo "run $1 ($2): $((SECONDS - t0)) s" >&2
  runs+=("$dir")
}
for r in oracle null echo skeleton loophole; do run_one "$r" "builtin/$r" "$samples"; done
for k in 0 1 2 3 4; do run_one "wrong$k" builtin/oracle "$work/wrong$k.jsonl"; done

write_report() {  # OUT RUN...
  local out=$1
  shift
  /usr/bin/time -f '%e %M' -o "$work/time.txt" "$bin" report "$@" --format html --output "$out" ||
    die "report failed"
  read -r seconds kb <"$work/time.txt"
  echo "{\"report\": \"$out\", \"runs\": $#, \"write_s\": $seconds, \"peak_rss_mb\": $((kb / 1024))}"
}
write_report "$work/report1.html" "${runs[0]}"
write_report "$work/report10.html" "${runs[@]}"
node "$root/bench/html_report_measure.mjs" "$work/report1.html" "expected" || die "measuring report1.html failed"
node "$root/bench/html_report_measure.mjs" "$work/report10.html" "expected" || die "measuring report10.html failed"
