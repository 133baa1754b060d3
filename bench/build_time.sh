#!/usr/bin/env bash
# A clean build of structtest in a temporary folder: prints the wall and CPU time
# (user + system of every compiler and linker the build ran) and the ten slowest steps
# by .ninja_log. Run it before and after a change to the build to see what it costs.
# Usage: bench/build_time.sh [TARGET...]   (default: the whole tree, tests included;
#        e.g. bench/build_time.sh structtest for the binary alone)
# SRC=path builds another checkout (a git worktree of an older commit, say);
# KEEP=1 leaves the build folder (its path is printed); JOBS=N (default: nproc);
# the compiler is scripts/build's (clang++ unless $CXX names another);
# CMAKE_ARGS='-DCMAKE_UNITY_BUILD=OFF' (say) configures it otherwise; with
# CMAKE_ARGS='-DCMAKE_CXX_COMPILER=g++ -DCMAKE_UNITY_BUILD=OFF -DSTRUCTTEST_PCH=OFF
# -DSTRUCTTEST_LLD=OFF' it is the build as it was before those four (GCC, file by file,
# no precompiled headers, ld.bfd) on the same code. On a shared VM, timings drift by
# 10-30% over minutes: compare builds run back to back, in both orders.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
src=${SRC:-$root}
jobs=${JOBS:-$(nproc)}
work=$(mktemp -d /tmp/structtest-build-time.XXXXXX)
if [[ -z "${KEEP:-}" ]]; then trap 'rm -rf "$work"' EXIT; fi
"$root/scripts/install-deps" --test
targets=("$@")

echo "build_time: $src -> $work (${targets[*]:-all}, -j $jobs)" >&2
cmake -S "$src" -B "$work" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_COMPILER="${CXX:-clang++}" -DSTRUCTTEST_SHARED_DIR="$src/../shared" \
      ${CMAKE_ARGS:-} >/dev/null
# The configure step is left out of the figures: it is the same whatever is built.
target_args=()
for t in "${targets[@]}"; do target_args+=(--target "$t"); done
# bash's `times` gives the CPU time of the children waited for (the compilers and
# linkers, through cmake and ninja). It runs in this shell (a subshell would see none of
# them), written to a file before and after the build.
times >"$work/times.before"
start=$(date +%s.%N)
cmake --build "$work" -j "$jobs" "${target_args[@]}" >"$work/build.log" 2>&1 || {
  tail -50 "$work/build.log" >&2; exit 1; }
end=$(date +%s.%N)
times >"$work/times.after"
read -r cu cs < <(tail -q -n1 "$work/times.before" "$work/times.after" | sed 's/m/ /g; s/s//g' |
  awk '{u[NR]=$1*60+$2; s[NR]=$3*60+$4} END {printf "%.1f %.1f\n", u[2]-u[1], s[2]-s[1]}')
steps=$(awk '!/^#/' "$work/.ninja_log" | wc -l)
awk -v b="$start" -v e="$end" -v u="$cu" -v s="$cs" -v n="$steps" 'BEGIN {
  printf "wall %.1f s   cpu %.1f s (user %.1f, sys %.1f)   %d steps\n", e-b, u+s, u, s, n}'
echo "slowest steps (wall s, from .ninja_log):"
awk -F'\t' '!/^#/ {printf "%8.1f  %s\n", ($2-$1)/1000, $4}' "$work/.ninja_log" |
  sort -rn | head -10
[[ -n "${KEEP:-}" ]] && echo "kept: $work" >&2
exit 0
