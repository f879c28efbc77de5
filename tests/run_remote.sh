#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Runs a test binary's CPU tests with every CPU context a session on a
# gpuprover-server (GP_TEST_REMOTE): the same known answers and naive
# references, through the remote backend. Usage:
#   tests/run_remote.sh SERVER_BIN TEST_BIN unix|tcp [gtest args...]
set -euo pipefail
server="$1" tests="$2" transport="$3"
shift 3
dir="$(mktemp -d /tmp/gp-remote-suite.XXXXXX)"
sock="$dir/s.sock"
# GP_REMOTE_SERVER_ARGS replaces the server's device options (default: the
# CPU pool, two jobs at a time); "--num-gpus 1" runs the suite on a GPU.
read -r -a devargs <<< "${GP_REMOTE_SERVER_ARGS:---num-gpus 0 --cpu-jobs 2}"
args=("${devargs[@]}" --unix "$sock")
[ "$transport" = tcp ] && args+=(--tcp 127.0.0.1:0)
"$server" "${args[@]}" 2> "$dir/server.log" &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$dir"; }
trap cleanup EXIT
for _ in $(seq 200); do
  grep -q 'tcp_port=' "$dir/server.log" 2>/dev/null && break
  sleep 0.05
done
endpoint="$sock"
if [ "$transport" = tcp ]; then
  port="$(sed -n 's/.*tcp_port=\([0-9]*\).*/\1/p' "$dir/server.log" | head -n 1)"
  endpoint="127.0.0.1:$port"
fi
# Small chunks: host input of more than 4 KiB goes through the pipelined
# (chunked, double-buffered) path of the shared window.
GPUPROVER_REMOTE_CHUNK_BYTES=8192 GP_TEST_REMOTE="$endpoint" "$tests" "$@"
# The server is still alive, and every session it opened is closed.
kill -0 "$pid"
"$server" --status "$sock" | tee "$dir/status.txt"
grep -q ' 0.0 MiB held' "$dir/status.txt"
opened="$(sed -n 's/.*sessions opened \([0-9]*\), closed \([0-9]*\).*/\1 \2/p' "$dir/status.txt")"
set -- $opened
test "$1" = "$2"
