#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the server fuzz tree (if needed) and fuzzes gp_fuzz_server, the
# request handling of gpuprover-server, for a bounded time.
#
#   tests/fuzz/run_server.sh [SECONDS]        # default 120
#
# Environment:
#   GP_FUZZ_SERVER_BUILD_DIR  build tree (default: <repo>/build-fuzz-server;
#                             configured with gRPC/protobuf, separate from
#                             run.sh's build-fuzz)
#   GP_FUZZ_KEEP_CORPUS 1: keep the working corpus of earlier runs instead of
#                       starting again from tests/fuzz/server_corpus
#   GP_FUZZ_SEED        libFuzzer's -seed (CI fixes it; unset: a new seed per run)
#   ASAN_OPTIONS, UBSAN_OPTIONS are extended, not replaced.
#
# The working corpus (a copy of tests/fuzz/server_corpus plus what the run
# adds), the log and any crash reproducers live under
# $GP_FUZZ_SERVER_BUILD_DIR/fuzz-run/; the repository is not written. Exit
# status: 0 when the run ends without a finding, 1 when it finds a crash,
# oracle violation, leak, timeout or out-of-memory input, 2 when the build or
# the fuzzer itself fails.
set -uo pipefail

secs="${1:-120}"
case "$secs" in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${GP_FUZZ_SERVER_BUILD_DIR:-$root/build-fuzz-server}"
work="$build/fuzz-run"
bin="$build/tests/fuzz/gp_fuzz_server"

# shellcheck source=tests/fuzz/fuzz_lib.sh
. "$here/fuzz_lib.sh"
# With the remote backend: the protocol's protobuf messages.
fuzz_build "$build" gp_fuzz_server ON || exit 2
# -close_fd_mask=2: the server core logs a line per job on stderr; libFuzzer
# and the sanitizers keep reporting on a copy of it, and so does the harness.
fuzz_and_report gp_fuzz_server "$bin" "$here/server_corpus" "$secs" "$work" -rss_limit_mb=2048 -close_fd_mask=2
