#!/usr/bin/env bash
# Builds the fuzz tree (if needed) and fuzzes gp_fuzz_api for a bounded time.
#
#   tests/fuzz/run.sh [SECONDS]        # default 120
#
# Environment:
#   GP_FUZZ_BUILD_DIR   build tree (default: <repo>/build-fuzz)
#   GP_FUZZ_KEEP_CORPUS 1: keep the working corpus of earlier runs instead of
#                       starting again from tests/fuzz/corpus
#   GP_FUZZ_THREADS     cpu_threads of the fuzzed context (default 1)
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

# Configure once (clang, CPU backend only), then bring the target up to date.
if [ ! -f "$build/CMakeCache.txt" ]; then
    CC="${CC:-clang}" CXX="${CXX:-clang++}" cmake -S "$root" -B "$build" \
        -DGP_BUILD_FUZZ=ON -DGP_ENABLE_CUDA=OFF -DGP_ENABLE_REMOTE=OFF -DGP_BUILD_TESTS=OFF -DGP_BUILD_BENCH=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo || exit 2
fi
cmake --build "$build" --target gp_fuzz_api -j "$(nproc 2>/dev/null || echo 2)" || exit 2

mkdir -p "$work/artifacts"
if [ "${GP_FUZZ_KEEP_CORPUS:-0}" != 1 ]; then rm -rf "$work/corpus"; fi
mkdir -p "$work/corpus"
cp "$here"/corpus/* "$work/corpus/"
log="$work/fuzz.log"
# Reproducers of earlier runs stay; count only what this run writes.
before="$(ls "$work/artifacts" | wc -l)"

export ASAN_OPTIONS="detect_leaks=1:symbolize=1:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
echo "fuzzing gp_fuzz_api for ${secs} s (corpus $work/corpus, log $log)"
"$bin" "$work/corpus" -max_len=4096 -timeout=10 -rss_limit_mb=4096 -max_total_time="$secs" \
    -print_final_stats=1 -artifact_prefix="$work/artifacts/" >"$log" 2>&1
rc=$?

# Closing summary: executions, rate and coverage.
stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
last="$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -1)"
cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
corp="$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")"
after="$(ls "$work/artifacts" | wc -l)"
found=$((after - before))
echo "gp_fuzz_api summary: ${secs} s, $(stat number_of_executed_units) executions" \
    "($(stat average_exec_per_sec)/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}," \
    "peak rss $(stat peak_rss_mb) MB, findings ${found}, exit ${rc}"

if [ "$found" -gt 0 ] || [ "$rc" -ne 0 ]; then
    grep -E 'ORACLE VIOLATED|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' "$log" | head -20
    echo "reproducers in $work/artifacts/ (newest first):"
    ls -t "$work/artifacts" | head -"$((found > 0 ? found : 5))" | sed "s|^|  $work/artifacts/|"
    echo "reproduce one with: $bin <reproducer>   (GP_FUZZ_TRACE=1 lists the calls)"
    [ "$found" -gt 0 ] && exit 1
    grep -q 'stat::number_of_executed_units' "$log" && exit 1
    exit 2
fi
exit 0
