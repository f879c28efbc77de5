# SPDX-License-Identifier: MIT OR Apache-2.0
# Shared by run.sh and run_server.sh (sourced): builds one fuzz target and
# fuzzes it from a seed corpus for a bounded time.
#
#   fuzz_build BUILD TARGET REMOTE
#
# Configures BUILD once (clang, CPU backend, GP_ENABLE_REMOTE=REMOTE), then
# brings only TARGET up to date; returns 2 when it cannot.
fuzz_build() {
    local build="$1" target="$2" remote="$3" root
    root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
    if [ ! -f "$build/CMakeCache.txt" ]; then
        CC="${CC:-clang}" CXX="${CXX:-clang++}" cmake -S "$root" -B "$build" \
            -DGP_BUILD_FUZZ=ON -DGP_ENABLE_CUDA=OFF -DGP_ENABLE_REMOTE="$remote" -DGP_BUILD_TESTS=OFF \
            -DGP_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo || return 2
    fi
    if [ "$remote" = ON ] && ! grep -q '^GP_GRPC_FOUND:INTERNAL=1' "$build/CMakeCache.txt"; then
        echo "$target needs gRPC and protobuf (libgrpc++-dev protobuf-compiler-grpc): not found by $build" >&2
        return 2
    fi
    cmake --build "$build" --target "$target" -j "$(nproc 2>/dev/null || echo 2)" || return 2
}

#
#   fuzz_and_report NAME BIN SEEDS SECONDS WORK [libFuzzer options...]
#
# WORK holds the working corpus (SEEDS copied in, unless GP_FUZZ_KEEP_CORPUS
# is 1), the log and the reproducers. Returns 0 without a finding, 1 with
# one (crash, oracle violation, leak, timeout, out of memory), 2 when the
# fuzzer itself fails.
fuzz_and_report() {
    local name="$1" bin="$2" seeds="$3" secs="$4" work="$5"
    shift 5
    mkdir -p "$work/artifacts"
    if [ "${GP_FUZZ_KEEP_CORPUS:-0}" != 1 ]; then rm -rf "$work/corpus"; fi
    mkdir -p "$work/corpus"
    cp "$seeds"/* "$work/corpus/"
    local log="$work/fuzz.log"
    # Reproducers of earlier runs stay; count only what this run writes.
    local before
    before="$(ls "$work/artifacts" | wc -l)"

    export ASAN_OPTIONS="detect_leaks=1:symbolize=1:${ASAN_OPTIONS:-}"
    export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
    # GP_FUZZ_SEED fixes libFuzzer's seed: CI runs the same sequence of
    # inputs each time (a prefix of it on a slower machine), so that its
    # verdict depends on the code and not on chance; exploration runs leave
    # it unset (a seed of its own each run).
    local seed=()
    [ -n "${GP_FUZZ_SEED:-}" ] && seed=(-seed="$GP_FUZZ_SEED")
    echo "fuzzing $name for ${secs} s (corpus $work/corpus, log $log${GP_FUZZ_SEED:+, seed $GP_FUZZ_SEED})"
    "$bin" "$work/corpus" -max_len=4096 -timeout=10 -max_total_time="$secs" "${seed[@]}" "$@" \
        -print_final_stats=1 -artifact_prefix="$work/artifacts/" >"$log" 2>&1
    local rc=$?

    # Closing summary: executions, rate and coverage.
    stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
    local last cov ft corp after found
    last="$(grep -E '^#[0-9]+' "$log" | grep 'cov:' | tail -1)"
    cov="$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")"
    ft="$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")"
    corp="$(sed -n 's/.* corp: \([^ ]*\).*/\1/p' <<<"$last")"
    after="$(ls "$work/artifacts" | wc -l)"
    found=$((after - before))
    echo "$name summary: ${secs} s, $(stat number_of_executed_units) executions" \
        "($(stat average_exec_per_sec)/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?}," \
        "peak rss $(stat peak_rss_mb) MB, findings ${found}, exit ${rc}"

    if [ "$found" -gt 0 ] || [ "$rc" -ne 0 ]; then
        grep -E 'ORACLE VIOLATED|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' "$log" | head -20
        echo "reproducers in $work/artifacts/ (newest first):"
        ls -t "$work/artifacts" | head -"$((found > 0 ? found : 5))" | sed "s|^|  $work/artifacts/|"
        echo "reproduce one with: $bin <reproducer>   (GP_FUZZ_TRACE=1 lists what it does)"
        [ "$found" -gt 0 ] && return 1
        grep -q 'stat::number_of_executed_units' "$log" && return 1
        return 2
    fi
    return 0
}
