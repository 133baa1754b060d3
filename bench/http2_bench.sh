#!/usr/bin/env bash
# http2_bench.sh - `structtest run` over https against a local nginx that offers
# HTTP/2, once letting it negotiate HTTP/2 (the default) and once with --http1.1.
#
# What it measures
#   A private nginx (no root needed) listens with `ssl http2` on a self-signed
#   certificate made here with openssl, and answers POST /v1/chat/completions with
#   one fixed chat completion; its access log records the connection serial number
#   and protocol of every request. For each concurrency C and each protocol it runs
#   `structtest run --model openai/bench --base-url https://... --ca-cert CERT`
#   on the same generated samples and prints: requests, req/s (structtest's own
#   "requests: ..." line), the distinct connections nginx saw, and the protocol
#   nginx logged. HTTP/2 should carry the requests on a few connections (curl puts
#   up to 100 streams on one), HTTP/1.1 needs one connection per request in flight.
#
# How to run (from anywhere)
#   scripts/build            # build/structtest must exist
#   bench/http2_bench.sh
#
# Environment knobs (defaults in brackets)
#   STRUCTTEST      structtest binary, relative to the repo root [build/structtest]
#   CONCURRENCY     concurrencies to measure ["64 256"]
#   TASKS           structtest --tasks [math_easy]
#   SIZE            structtest --size [4]
#   ROUNDS          runs of each (C, protocol); the best req/s is shown [3]
#   NGINX_WORKERS   nginx worker_processes [1]
#   PORT            nginx port [a free port picked with python3, else 18443]
#   KEEP_TMP        1 keeps the tmp dir [0]
#
# Exit status: 0 when every run answered every request and HTTP/2 was negotiated
# where asked for, 1 otherwise.

set -euo pipefail

readonly PROG=http2_bench
die() {
  echo "$PROG: error: $*" >&2
  exit 1
}
note() { echo "$PROG: $*" >&2; }

case "${1:-}" in
  "") ;;
  -h | --help) sed -n '2,/^$/{s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
  *) die "unknown argument '$1' (try --help)" ;;
esac

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$REPO_ROOT"
STRUCTTEST=${STRUCTTEST:-build/structtest}
CONCURRENCY=${CONCURRENCY:-"64 256"}
TASKS=${TASKS:-math_easy}
SIZE=${SIZE:-4}
ROUNDS=${ROUNDS:-3}
NGINX_WORKERS=${NGINX_WORKERS:-1}
KEEP_TMP=${KEEP_TMP:-0}

NGINX=$(command -v nginx || echo /usr/sbin/nginx)
[[ -x $NGINX ]] || die "nginx is missing (apt-get install nginx)"
command -v openssl >/dev/null || die "openssl is missing (apt-get install openssl)"
[[ -x $STRUCTTEST ]] || die "structtest binary '$STRUCTTEST' is missing: build it first with scripts/build"

# shellcheck source=bench/nginx_lib.sh
. "$REPO_ROOT/bench/nginx_lib.sh"
bench_tmp_dir http2_bench
PORT=${PORT:-$(free_port 18443)}

# A self-signed certificate for 127.0.0.1, valid for a day.
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj "/CN=127.0.0.1" \
  -addext "subjectAltName=IP:127.0.0.1" \
  -keyout "$TMP/key.pem" -out "$TMP/cert.pem" 2>"$TMP/openssl.log" ||
  { cat "$TMP/openssl.log" >&2; die "openssl could not make a certificate"; }

cat >"$TMP/nginx.conf" <<EOF
daemon off;
worker_processes $NGINX_WORKERS;
worker_rlimit_nofile 65536;
pid $TMP/nginx.pid;
error_log $TMP/error.log warn;
events { worker_connections 16384; }
http {
  log_format conn '\$connection \$server_protocol';
  access_log $TMP/access.log conn buffer=256k;
  server_tokens off;
  keepalive_requests 1000000;
  keepalive_timeout 60s;
  http2_max_concurrent_streams ${H2_STREAMS:-128};
  client_body_buffer_size 1m;
  client_body_temp_path $TMP/client_body_temp;
  proxy_temp_path $TMP/proxy_temp;
  fastcgi_temp_path $TMP/fastcgi_temp;
  uwsgi_temp_path $TMP/uwsgi_temp;
  scgi_temp_path $TMP/scgi_temp;
  server {
    listen 127.0.0.1:$PORT ssl http2 backlog=4096;
    ssl_certificate $TMP/cert.pem;
    ssl_certificate_key $TMP/key.pem;
    location /v1/chat/completions {
      default_type application/json;
      return 200 '{"id":"bench","object":"chat.completion","created":0,"model":"bench","choices":[{"index":0,"message":{"role":"assistant","content":"The answer is 42."},"finish_reason":"stop"}],"usage":{"prompt_tokens":100,"completion_tokens":8,"total_tokens":108}}';
    }
  }
}
EOF
"$NGINX" -t -q -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/error.log" 2>"$TMP/nginx.stderr" ||
  { cat "$TMP/nginx.stderr" >&2; die "nginx rejected $TMP/nginx.conf"; }
"$NGINX" -p "$TMP" -c "$TMP/nginx.conf" -e "$TMP/error.log" 2>>"$TMP/nginx.stderr" &
NGINX_PID=$!
URL=https://127.0.0.1:$PORT/v1
for _ in $(seq 200); do
  kill -0 "$NGINX_PID" 2>/dev/null || { cat "$TMP/nginx.stderr" >&2; die "nginx exited"; }
  if [[ $(cat "$TMP/nginx.pid" 2>/dev/null) == "$NGINX_PID" ]] &&
     curl -sf --cacert "$TMP/cert.pem" -o /dev/null -XPOST -d '{}' "$URL/chat/completions"; then
    break
  fi
  sleep 0.05
done
note "nginx $("$NGINX" -v 2>&1 | sed 's|.*/||') with TLS + http2 on 127.0.0.1:$PORT"

SAMPLES=$TMP/samples.jsonl
"$STRUCTTEST" generate --tasks "$TASKS" --size "$SIZE" --out "$SAMPLES" >/dev/null ||
  die "structtest generate failed"

# run_once C PROTO: print "REQUESTS REQ_PER_S CONNECTIONS PROTOCOLS" of one run.
run_once() {
  local c=$1 proto=$2 dir flags=() line rc=0
  dir=$(mktemp -d "$TMP/run.XXXXXX")
  [[ $proto == 1.1 ]] && flags=(--http1.1)
  : >"$TMP/access.log"
  kill -USR1 "$NGINX_PID"  # reopen the (emptied) access log
  sleep 0.2
  "$STRUCTTEST" run --model openai/bench --base-url "$URL" --ca-cert "$TMP/cert.pem" \
    "${flags[@]}" --samples "$SAMPLES" --concurrency "$c" --out "$dir/out" --no-cache \
    --quiet >"$dir/stdout" 2>"$dir/stderr" || rc=$?
  if [[ $rc -ne 0 && $rc -ne 1 ]]; then
    tail -n 20 "$dir/stderr" >&2
    die "structtest run (concurrency $c, HTTP/$proto) exited with status $rc"
  fi
  line=$(grep -E '(^|[[:space:]])requests: ' "$dir/stderr" | tail -n 1 || true)
  [[ $line == *" req/s"* ]] || { tail -n 20 "$dir/stderr" >&2; die "no 'requests:' line"; }
  [[ $line == *" 0 errored"* ]] || note "HTTP/$proto -j$c: $line"
  kill -USR1 "$NGINX_PID"  # flush the access log buffer
  sleep 0.3
  awk -v line="$line" '
    { conn[$1] = 1; proto[$2] = 1 }
    END {
      n = split(line, f, /[ ,]+/)
      for (i = 2; i <= n; i++) if (f[i] == "req/s") rate = f[i - 1]
      for (i = 1; i < n; i++) if (f[i + 1] == "sent") sent = f[i]
      c = 0; for (k in conn) c++
      p = ""; for (k in proto) p = p (p == "" ? "" : "+") k
      printf "%s %s %d %s\n", sent, rate, c, p
    }' "$TMP/access.log"
}

failed=0
printf '\n%-12s %-9s %10s %12s %13s  %s\n' concurrency asked requests "best req/s" connections \
  "nginx saw"
for c in $CONCURRENCY; do
  for proto in 2 1.1; do
    best=0 sent=0 conns=0 seen=
    for _ in $(seq "$ROUNDS"); do
      read -r sent rate conns seen < <(run_once "$c" "$proto")
      best=$(awk -v a="$rate" -v b="$best" 'BEGIN { print (a > b ? a : b) }')
    done
    printf '%-12s HTTP/%-4s %10s %12.0f %13s  %s\n' "$c" "$proto" "$sent" "$best" "$conns" "$seen"
    if [[ $proto == 2 && $seen != HTTP/2.0 ]]; then
      note "HTTP/2 was asked for but nginx logged $seen"
      failed=1
    fi
  done
done
echo
exit "$failed"
