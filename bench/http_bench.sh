#!/usr/bin/env bash
# http_bench.sh - HTTP throughput of `structtest run` against a local nginx,
# compared with wrk at the same concurrency.
#
# What it measures
#   A private nginx (bench/nginx.conf.in, started from a tmp dir, no root
#   needed) answers POST /v1/chat/completions with one fixed OpenAI chat
#   completion. For each concurrency C:
#     - wrk POSTs a ~1.5 KB chat request for DURATION seconds: the ceiling;
#     - `structtest run --model openai/bench --base-url ...` runs the suite
#       against the same server; its req/s comes from the stderr line
#       "structtest: requests: N sent, E errored, S s, R req/s", its peak RSS
#       from /usr/bin/time.
#   It prints C, wrk req/s, structtest req/s, structtest/wrk in %, peak RSS,
#   the rates of bare libcurl and of structtest's client alone (bench/client_bench),
#   and the whole process's wall time next to its request loop's (issue 10 asks
#   for wall/loop <= 1.3); then structtest's peak RSS at SIZE and 10*SIZE (does
#   memory stay flat as the sample count grows?).
#
# How to run (from anywhere; it works from the repo root)
#   scripts/build            # build/structtest must exist
#   bench/http_bench.sh      # full benchmark
#   bench/http_bench.sh --wrk-only   # nginx + wrk only (no structtest)
#
# Environment knobs (defaults in brackets)
#   STRUCTTEST      structtest binary, relative to the repo root [build/structtest]
#   CONCURRENCY     concurrencies to measure ["64 256"]
#   DURATION        wrk run length in seconds [10]
#   WRK_THREADS     wrk threads [1]
#   TASKS           structtest --tasks [math_easy]
#   SIZE            structtest --size [4]
#   MEM_SIZES       sizes of the memory-flatness runs ["SIZE 10*SIZE"]
#   MEM_CONCURRENCY concurrency of the memory-flatness runs [64]
#   TARGET_PCT      minimum structtest/wrk ratio in percent [30]
#   TARGET_WALL     maximum wall/loop [1.3]
#   TARGET_MEM      maximum peak RSS at the last MEM_SIZES over the first [1.2]
#   NGINX_WORKERS   nginx worker_processes [1]
#   PORT            nginx port [a free port picked with python3, else 18080]
#   KEEP_TMP        1 keeps the tmp dir (nginx error log, outputs) [0]
#   CLIENT_REQUESTS requests per bench/client_bench loop [50000]
#
# The targets are issue 10's. Exit status: 0 if every one is met (always 0 with
# --wrk-only when everything ran), 1 if one is missed or anything failed.

set -euo pipefail

readonly PROG=http_bench

die() {
  echo "$PROG: error: $*" >&2
  exit 1
}
note() { echo "$PROG: $*" >&2; }

usage() {
  sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"
}

WRK_ONLY=0
for arg in "$@"; do
  case "$arg" in
    --wrk-only) WRK_ONLY=1 ;;
    -h | --help) usage; exit 0 ;;
    *) die "unknown argument '$arg' (try --help)" ;;
  esac
done

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(dirname "$BENCH_DIR")
cd "$REPO_ROOT"

STRUCTTEST=${STRUCTTEST:-build/structtest}
CONCURRENCY=${CONCURRENCY:-"64 256"}
DURATION=${DURATION:-10}
WRK_THREADS=${WRK_THREADS:-1}
TASKS=${TASKS:-math_easy}
SIZE=${SIZE:-4}
MEM_SIZES=${MEM_SIZES:-"$SIZE $(awk -v s="$SIZE" 'BEGIN { print s * 10 }')"}
MEM_CONCURRENCY=${MEM_CONCURRENCY:-64}
TARGET_PCT=${TARGET_PCT:-30}
TARGET_WALL=${TARGET_WALL:-1.3}
TARGET_MEM=${TARGET_MEM:-1.2}
NGINX_WORKERS=${NGINX_WORKERS:-1}
KEEP_TMP=${KEEP_TMP:-0}

# --- prerequisites ----------------------------------------------------------

# as_root CMD...: run CMD as root, through sudo when we are not root.
as_root() {
  if [[ $(id -u) -eq 0 ]]; then
    "$@"
  else
    command -v sudo >/dev/null || die "need root or sudo to run: $*"
    sudo "$@"
  fi
}

# apt_install PKG...: install Debian packages quietly; apt-get update only if
# the first attempt fails (stale or missing package lists).
apt_install() {
  local log
  log=$(mktemp)
  note "installing $* with apt-get"
  if ! as_root env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y --no-install-recommends "$@" >"$log" 2>&1; then
    if ! { as_root apt-get update >>"$log" 2>&1 &&
           as_root env DEBIAN_FRONTEND=noninteractive \
             apt-get install -y --no-install-recommends "$@" >>"$log" 2>&1; }; then
      tail -n 20 "$log" >&2
      rm -f "$log"
      die "apt-get install $* failed"
    fi
  fi
  rm -f "$log"
}

missing=()
command -v nginx >/dev/null || [[ -x /usr/sbin/nginx ]] || missing+=(nginx)
command -v wrk >/dev/null || missing+=(wrk)
if [[ $WRK_ONLY -eq 0 && ! -x /usr/bin/time ]]; then missing+=(time); fi
if [[ ${#missing[@]} -gt 0 ]]; then apt_install "${missing[@]}"; fi
NGINX=$(command -v nginx || echo /usr/sbin/nginx)

if [[ $WRK_ONLY -eq 0 && ! -x $STRUCTTEST ]]; then
  die "structtest binary '$STRUCTTEST' is missing: build it first with scripts/build"
fi

# --- tmp dir, nginx ---------------------------------------------------------

# shellcheck source=bench/nginx_lib.sh
. "$BENCH_DIR/nginx_lib.sh"
bench_tmp_dir http_bench
PORT=${PORT:-$(free_port 18080)}

NGINX_CONF=$TMP/nginx.conf
sed -e "s|@PREFIX@|$TMP|g" -e "s|@PORT@|$PORT|g" -e "s|@WORKERS@|$NGINX_WORKERS|g" \
  "$BENCH_DIR/nginx.conf.in" >"$NGINX_CONF"

nginx_failed() {
  local f
  for f in "$TMP/nginx.stderr" "$TMP/error.log"; do
    [[ -s $f ]] || continue
    echo "--- $f ---" >&2
    tail -n 20 "$f" >&2
  done
  die "nginx failed to start ($*)"
}

# -e: the error log nginx uses before it has read the config.
"$NGINX" -t -q -p "$TMP" -c "$NGINX_CONF" -e "$TMP/error.log" 2>>"$TMP/nginx.stderr" ||
  nginx_failed "bad config $NGINX_CONF"
"$NGINX" -p "$TMP" -c "$NGINX_CONF" -e "$TMP/error.log" 2>>"$TMP/nginx.stderr" &
NGINX_PID=$!

URL=http://127.0.0.1:$PORT/v1/chat/completions
ready=0
for _ in $(seq 200); do
  kill -0 "$NGINX_PID" 2>/dev/null || nginx_failed "it exited"
  # nginx writes its pid file only once it has bound the port: until then a
  # curl answer could come from another server already on that port.
  if [[ $(cat "$TMP/nginx.pid" 2>/dev/null) == "$NGINX_PID" ]] &&
     curl -sf -o /dev/null -XPOST -d '{}' "$URL" 2>/dev/null; then
    ready=1
    break
  fi
  sleep 0.05
done
[[ $ready == 1 ]] || nginx_failed "no answer on 127.0.0.1:$PORT after 10 s"
answer=$(curl -s -XPOST -H 'Content-Type: application/json' -d '{}' "$URL")
[[ $answer == *'"object":"chat.completion"'* ]] ||
  die "nginx answered something else than the chat completion: $answer"
note "nginx $("$NGINX" -v 2>&1 | sed 's|.*/||') on 127.0.0.1:$PORT, $NGINX_WORKERS worker(s); $(wrk -v 2>&1 | head -n 1 | awk '{print $1, $2}')"

# --- wrk --------------------------------------------------------------------

# A representative chat request (~1.5 KB), as an OpenAI client would send it.
WRK_LUA=$TMP/post.lua
cat >"$WRK_LUA" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = [[{"model":"bench","temperature":0,"max_tokens":512,"messages":[{"role":"system","content":"You are a careful assistant that solves grade-school math problems. Think step by step, show the intermediate arithmetic, and end your answer with a line of the form 'The answer is N.' where N is the final number, written without units, commas or extra words."},{"role":"user","content":"Solve the following problem and give the final answer in the required format.\n\nProblem: A bakery sells muffins in boxes of 6 and cookies in bags of 12. On Monday it sold 17 boxes of muffins and 9 bags of cookies. On Tuesday it sold twice as many boxes of muffins as on Monday, but only a third as many bags of cookies. Each muffin costs 2 dollars and each cookie costs 1 dollar. The bakery spends 30 percent of its income on ingredients and 120 dollars per day on rent and wages. How many dollars of profit did the bakery make over the two days together? Assume that every item that was baked was sold, and that there were no other costs or sources of income.\n\nRemember: work it out step by step, check each multiplication and division, and finish with exactly one line 'The answer is N.' Do not add anything after that line, and do not wrap the number in markdown, quotes or a code block; the grader reads only the last line of your answer."}]}]]
LUA

# run_wrk C: print wrk's Requests/sec at concurrency C.
run_wrk() {
  local c=$1 out
  out=$TMP/wrk.$c.txt
  wrk -t"$WRK_THREADS" -c"$c" -d"${DURATION}s" -s "$WRK_LUA" "$URL" >"$out" 2>&1 ||
    { cat "$out" >&2; die "wrk -c$c failed"; }
  if grep -qE 'Non-2xx|Socket errors' "$out"; then
    note "wrk -c$c reported: $(grep -E 'Non-2xx|Socket errors' "$out" | tr -s ' ' | paste -sd';')"
  fi
  awk '/^Requests\/sec:/ { print $2; found = 1 } END { exit !found }' "$out" ||
    { cat "$out" >&2; die "no 'Requests/sec:' line in wrk -c$c output"; }
}

# --- structtest -------------------------------------------------------------

# run_structtest C SIZE: run structtest, print "REQ_PER_S RSS_MB SENT WALL_S LOOP_S":
# the whole process's wall time (reading the samples, storing, scoring, reporting
# included) next to its request loop's.
run_structtest() {
  local c=$1 size=$2 dir rc=0 line
  dir=$(mktemp -d "$TMP/st.c$c.s$size.XXXXXX")
  # The samples are generated beforehand, so the figures are those of the run itself.
  local samples="$TMP/samples.s$size.jsonl"
  if [[ ! -f $samples ]]; then
    "$STRUCTTEST" generate --tasks "$TASKS" --size "$size" --out "$samples" >/dev/null ||
      die "structtest generate (size $size) failed"
  fi
  /usr/bin/time -f '%M %e' -o "$dir/rss_kb" \
    "$STRUCTTEST" run --model openai/bench --base-url "http://127.0.0.1:$PORT/v1" \
      --samples "$samples" --concurrency "$c" --out "$dir/out" \
      --no-cache --quiet >"$dir/stdout" 2>"$dir/stderr" || rc=$?
  if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    echo "--- last 20 lines of structtest stderr ---" >&2
    tail -n 20 "$dir/stderr" >&2
    die "structtest run (concurrency $c, size $size) exited with status $rc"
  fi
  line=$(grep -E '(^|[[:space:]])requests: ' "$dir/stderr" | tail -n 1 || true)
  if [[ $line != *" req/s"* ]]; then
    echo "--- last 20 lines of structtest stderr ---" >&2
    tail -n 20 "$dir/stderr" >&2
    die "structtest run printed no 'structtest: requests: N sent, E errored, S s, R req/s' line on stderr"
  fi
  if [[ $line =~ ([0-9]+)\ errored && ${BASH_REMATCH[1]} != 0 ]]; then
    note "structtest (concurrency $c, size $size): ${BASH_REMATCH[1]} requests errored"
  fi
  # "... 0.52 s, 10146.2 req/s" -> rate; the first number is the sent count.
  awk -v line="$line" -v usage="$(tail -n 1 "$dir/rss_kb")" 'BEGIN {
    split(usage, u, " ")
    n = split(line, f, /[ ,]+/)
    for (i = 2; i <= n; i++) if (f[i] == "req/s") rate = f[i - 1]
    for (i = 2; i <= n; i++) if (f[i] == "s") loop = f[i - 1]
    for (i = 1; i < n; i++) if (f[i + 1] == "sent") sent = f[i]
    printf "%s %.1f %s %s %s\n", rate, u[1] / 1024, sent, u[2], loop
  }'
}

# run_client_bench C: print "LIBCURL_REQ_PER_S CLIENT_REQ_PER_S" from bench/client_bench,
# or "- -" when it was not built.
run_client_bench() {
  local c=$1 bin out
  bin="$(dirname "$STRUCTTEST")/bench/client_bench"
  if [[ ! -x $bin ]]; then
    echo "- -"
    return
  fi
  out=$("$bin" "http://127.0.0.1:$PORT/v1" "$c" "${CLIENT_REQUESTS:-50000}") ||
    die "client_bench (concurrency $c) failed"
  awk '/^libcurl:/ { l = $2 } /^CurlModelClient:/ { c = $2 } END { printf "%.0f %.0f\n", l, c }' \
    <<<"$out"
}

# --- main -------------------------------------------------------------------

failed=()
printf '\n%-12s %14s %18s %8s %14s %16s %16s %10s %10s %10s\n' concurrency "wrk req/s" \
  "structtest req/s" ratio "peak RSS" "libcurl req/s" "client req/s" "wall s" "loop s" \
  "wall/loop"
for c in $CONCURRENCY; do
  wrk_rate=$(run_wrk "$c")
  if [[ $WRK_ONLY == 1 ]]; then
    printf '%-12s %14.0f %18s %8s %14s\n' "$c" "$wrk_rate" - - -
    continue
  fi
  result=$(run_structtest "$c" "$SIZE")
  read -r st_rate rss_mb _ wall_s loop_s <<<"$result"
  ratio=$(awk -v a="$st_rate" -v b="$wrk_rate" 'BEGIN { printf "%.1f", (b > 0 ? 100 * a / b : 0) }')
  # The transport ceilings under it: bare libcurl, and structtest's client alone.
  read -r curl_rate client_rate < <(run_client_bench "$c")
  wall_per_loop=$(awk -v w="$wall_s" -v l="$loop_s" 'BEGIN { printf "%.2f", (l > 0 ? w / l : 0) }')
  printf '%-12s %14.0f %18.0f %7s%% %11s MB %16s %16s %10s %10s %10s\n' "$c" "$wrk_rate" \
    "$st_rate" "$ratio" "$rss_mb" "$curl_rate" "$client_rate" "$wall_s" "$loop_s" \
    "${wall_per_loop}x"
  if ! awk -v r="$ratio" -v t="$TARGET_PCT" 'BEGIN { exit !(r >= t) }'; then
    failed+=("concurrency $c: structtest at $ratio% of wrk (target $TARGET_PCT%)")
  fi
  if ! awk -v r="$wall_per_loop" -v t="$TARGET_WALL" 'BEGIN { exit !(r <= t) }'; then
    failed+=("concurrency $c: wall time ${wall_per_loop}x the request loop (target ${TARGET_WALL}x)")
  fi
done

if [[ $WRK_ONLY == 0 ]]; then
  printf '\nmemory flatness (tasks %s, concurrency %s)\n' "$TASKS" "$MEM_CONCURRENCY"
  printf '%-8s %10s %12s %14s\n' size requests "req/s" "peak RSS"
  first_rss="" last_rss=""
  for size in $MEM_SIZES; do
    result=$(run_structtest "$MEM_CONCURRENCY" "$size")
    read -r st_rate rss_mb sent _ _ <<<"$result"
    printf '%-8s %10s %12.0f %11s MB\n' "$size" "${sent:-?}" "$st_rate" "$rss_mb"
    first_rss=${first_rss:-$rss_mb}
    last_rss=$rss_mb
  done
  if [[ $(wc -w <<<"$MEM_SIZES") -ge 2 ]]; then
    growth=$(awk -v a="$first_rss" -v b="$last_rss" 'BEGIN { printf "%.2f", (a > 0 ? b / a : 0) }')
    printf 'peak RSS grew %sx\n' "$growth"
    if ! awk -v r="$growth" -v t="$TARGET_MEM" 'BEGIN { exit !(r <= t) }'; then
      failed+=("peak RSS grew ${growth}x from size ${MEM_SIZES%% *} (target ${TARGET_MEM}x)")
    fi
  fi
fi
echo

if [[ ${#failed[@]} -gt 0 ]]; then
  for f in "${failed[@]}"; do note "missed target: $f"; done
  exit 1
fi
exit 0
