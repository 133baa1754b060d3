#!/usr/bin/env bash
# generate_size_bench.sh - time and peak memory of `structtest generate` on the
# whole default suite as --size grows: does memory stay flat?
#
# What it measures
#   For each size S of SIZES, `structtest generate --suite default --seed SEED
#   --size S` writes the whole default suite (all 19 subtasks) to a temporary
#   file under /usr/bin/time -v. It prints S, the samples written, the
#   wall-clock seconds, the peak RSS and the size of the file. With REPEAT=1
#   each size is generated twice and the two files must be byte-identical.
#
# How to run (from anywhere)
#   cmake --build build --target structtest   # build/structtest must exist
#   bench/generate_size_bench.sh
#   SIZES="1 20" REPEAT=1 bench/generate_size_bench.sh
#
# Environment knobs (defaults in brackets)
#   STRUCTTEST  structtest binary, relative to the repo root [build/structtest]
#   SIZES       the --size values ["1 5 20"]
#   SEED        --seed [3]
#   REPEAT      1: generate each size twice and compare the files [0]
#   TMPDIR      where the samples go (about 1 GB at --size 20) [/tmp]
#
# Exit status: 0 if every size generated (and, with REPEAT=1, both runs gave
# the same bytes), 1 otherwise.

set -euo pipefail

readonly PROG=generate_size_bench

die() {
  echo "$PROG: error: $*" >&2
  exit 1
}

if [[ "${1:-}" == "-h" || "${1:-}" == "--help" ]]; then
  sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"
  exit 0
fi
[[ $# -eq 0 ]] || die "unknown argument '$1' (try --help)"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
STRUCTTEST=${STRUCTTEST:-build/structtest}
[[ "$STRUCTTEST" = /* ]] || STRUCTTEST="$ROOT/$STRUCTTEST"
SIZES=${SIZES:-1 5 20}
SEED=${SEED:-3}
REPEAT=${REPEAT:-0}

[[ -x "$STRUCTTEST" ]] || die "$STRUCTTEST is missing: build it first (cmake --build build --target structtest)"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing (apt-get install time)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/$PROG.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

# generate SIZE NAME: one run; prints "SAMPLES SECONDS PEAK_KB BYTES".
generate() {
  local size=$1 name=$2
  local out="$WORK/$name.jsonl" log="$WORK/$name.time"
  if ! /usr/bin/time -v "$STRUCTTEST" generate --suite default --seed "$SEED" --size "$size" \
      --out "$out" >"$WORK/$name.stdout" 2>"$log"; then
    cat "$log" >&2
    die "generate --size $size failed"
  fi
  local samples seconds peak
  samples=$(wc -l <"$out")
  seconds=$(awk -F': ' '/Elapsed \(wall clock\)/ {
      n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$log")
  peak=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log")
  echo "$samples $seconds $peak $(stat -c %s "$out")"
}

status=0
printf '%-6s %9s %9s %14s %10s %s\n' size samples seconds "peak RSS MiB" "file MiB" \
  "$([[ $REPEAT == 1 ]] && echo "same bytes")"
for size in $SIZES; do
  read -r samples seconds peak bytes < <(generate "$size" "a$size")
  same=""
  if [[ $REPEAT == 1 ]]; then
    generate "$size" "b$size" >/dev/null
    if cmp -s "$WORK/a$size.jsonl" "$WORK/b$size.jsonl"; then
      same=yes
    else
      same=NO
      status=1
    fi
    rm -f "$WORK/b$size.jsonl"
  fi
  rm -f "$WORK/a$size.jsonl"
  awk -v size="$size" -v samples="$samples" -v seconds="$seconds" -v peak="$peak" \
    -v bytes="$bytes" -v same="$same" \
    'BEGIN { printf "%-6s %9s %9.2f %14.1f %10.1f %s\n", size, samples, seconds,
             peak / 1024, bytes / 1048576, same }'
done
exit $status
