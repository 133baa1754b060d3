# nginx_lib.sh - sourced by the benches that run a private nginx (http_bench.sh,
# http2_bench.sh): their tmp dir, the cleanup that stops nginx, and a free port.
#
# bench_tmp_dir NAME: makes $TMP (workers may run as another user when we are root, so
# it is world-traversable), sets NGINX_PID= and traps EXIT, INT and TERM to stop nginx
# (once the caller has set NGINX_PID) and remove $TMP (kept when KEEP_TMP=1; `note`
# must be defined).
bench_tmp_dir() {
  TMP=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")
  chmod 755 "$TMP"
  NGINX_PID=
  trap bench_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

# shellcheck disable=SC2317  # invoked by the EXIT trap
bench_cleanup() {
  if [[ -n $NGINX_PID ]] && kill -0 "$NGINX_PID" 2>/dev/null; then
    kill -TERM "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
  fi
  if [[ ${KEEP_TMP:-0} == 1 ]]; then
    note "kept $TMP"
  else
    rm -rf "$TMP"
  fi
}

# free_port FALLBACK: a free loopback port (from python3), else FALLBACK.
free_port() {
  python3 -c 'import socket
s = socket.socket()
s.bind(("127.0.0.1", 0))
print(s.getsockname()[1])' 2>/dev/null || echo "$1"
}
