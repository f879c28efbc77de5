#!/usr/bin/env bash
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

# Configure once (clang, CPU backend, with the protocol's protobuf messages),
# then bring only the fuzz target up to date.
if [ ! -f "$build/CMakeCache.txt" ]; then
    CC="${CC:-clang}" CXX="${CXX:-clang++}" cmake -S "$root" -B "$build" \
        -DGP_BUILD_FUZZ=ON -DGP_ENABLE_CUDA=OFF -DGP_ENABLE_REMOTE=ON -DGP_BUILD_TESTS=OFF -DGP_BUILD_BENCH=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo || exit 2
fi
if ! grep -q '^GP_GRPC_FOUND:INTERNAL=1' "$build/CMakeCache.txt"; then
    echo "gp_fuzz_server needs gRPC and protobuf (libgrpc++-dev protobuf-compiler-grpc): not found by $build" >&2
    exit 2
fi
cmake --build "$build" --target gp_fuzz_server -j "$(nproc 2>/dev/null || echo 2)" || exit 2

mkdir -p "$work/artifacts"
if [ "${GP_FUZZ_KEEP_CORPUS:-0}" != 1 ]; then rm -rf "$work/corpus"; fi
mkdir -p "$work/corpus"
cp "$here"/server_corpus/* "$work/corpus/"
log="$work/fuzz.log"
# Reproducers of earlier runs stay; count only what this run writes.
before="$(ls "$work/artifacts" | wc -l)"

export ASAN_OPTIONS="detect_leaks=1:symbolize=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
echo "fuzzing gp_fuzz_server for ${secs} s (corpus $work/corpus, log $log)"
# -close_fd_mask=2: the server core logs a line per job on stderr; libFuzzer
# and the sanitizers keep reporting on a copy of it, and so does the harness.
"$bin" "$work/corpus" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -max_total_time="$secs" \
    -close_fd_mask=2 -print_final_stats=1 -artifact_prefix="$work/artifacts/" >"$log" 2>&1
rc=$?

# Closing summary: executions, rate and coverage.
stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
last="$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -1)"
cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
corp="$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")"
after="$(ls "$work/artifacts" | wc -l)"
found=$((after - before))
echo "gp_fuzz_server summary: ${secs} s, $(stat number_of_executed_units) executions" \
    "($(stat average_exec_per_sec)/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}," \
    "peak rss $(stat peak_rss_mb) MB, findings ${found}, exit ${rc}"

if [ "$found" -gt 0 ] || [ "$rc" -ne 0 ]; then
    grep -E 'ORACLE VIOLATED|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' "$log" | head -20
    echo "reproducers in $work/artifacts/ (newest first):"
    ls -t "$work/artifacts" | head -"$((found > 0 ? found : 5))" | sed "s|^|  $work/artifacts/|"
    echo "reproduce one with: $bin <reproducer>   (GP_FUZZ_TRACE=1 lists the requests)"
    [ "$found" -gt 0 ] && exit 1
    grep -q 'stat::number_of_executed_units' "$log" && exit 1
    exit 2
fi
exit 0
