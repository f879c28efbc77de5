#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds the fuzz tree (if needed) and fuzzes gp_fuzz_api for a bounded time.
#
#   tests/fuzz/run.sh [SECONDS]        # default 120
#
# Environment:
#   GP_FUZZ_BUILD_DIR   build tree (default: <repo>/build-fuzz)
#   GP_FUZZ_KEEP_CORPUS 1: keep the working corpus of earlier runs instead of
#                       starting again from tests/fuzz/corpus
#   GP_FUZZ_THREADS     cpu_threads of the fuzzed context (default 1)
#   GP_FUZZ_SEED        libFuzzer's -seed (CI fixes it; unset: a new seed per run)
#   ASAN_OPTIONS, UBSAN_OPTIONS are extended, not replaced.
#
# The working corpus (a copy of tests/fuzz/corpus plus what the run adds),
# the log and any crash reproducers live under $GP_FUZZ_BUILD_DIR/fuzz-run/;
# the repository is not written. Exit status: 0 when the run ends without a
# finding, 1 when it finds a crash, leak, timeout or out-of-memory input, 2
# when the build or the fuzzer itself fails.
set -uo pipefail

secs="${1:-120}"
case "$secs" in '' | *[!0-9]*) echo "usage: $0 [SECONDS]" >&2; exit 2 ;; esac

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
build="${GP_FUZZ_BUILD_DIR:-$root/build-fuzz}"
work="$build/fuzz-run"
bin="$build/tests/fuzz/gp_fuzz_api"

# shellcheck source=tests/fuzz/fuzz_lib.sh
. "$here/fuzz_lib.sh"
fuzz_build "$build" gp_fuzz_api OFF || exit 2
fuzz_and_report gp_fuzz_api "$bin" "$here/corpus" "$secs" "$work" -rss_limit_mb=4096
