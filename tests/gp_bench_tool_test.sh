#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# gp-bench on the CPU backend at tiny shapes: every op runs and prints a
# well-formed JSON object; the commitment root does not depend on the thread
# or device count, nor the LDE checksum on the device count; bad arguments
# exit 2 naming the argument, a refused library call exits 1 naming the
# call. No timing thresholds: only that times are positive.
#
# Usage: tests/gp_bench_tool_test.sh PATH/TO/gp-bench [PROJECT_VERSION]
set -u

BENCH=${1:?usage: gp_bench_tool_test.sh PATH/TO/gp-bench [PROJECT_VERSION]}
VERSION=${2:-}
# Small bandwidth probes keep every run short; the floor is still measured.
COMMON=(--backend cpu --cols 4 --reps 2 --floor-mib 8)

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
    echo "FAIL: $*" >&2
    failures=$((failures + 1))
}

# check_json FILE OP: the keys, their types and positive times.
check_json() {
    python3 -c '
import json, re, sys
path, op = sys.argv[1], sys.argv[2]
with open(path) as f:
    j = json.load(f)
keys = ["tool", "version", "op", "field", "log_n", "cols", "ext", "blowup", "order", "hash",
        "backend", "device", "devices", "reps", "times_ms", "min_ms", "median_ms", "mean_ms",
        "bytes", "gb_per_s", "floor_ms", "x_floor", "fraction_of_floor", "floor_basis", "root",
        "checksum"]
missing = [k for k in keys if k not in j]
assert not missing, "missing keys %s" % missing
assert j["tool"] == "gp-bench" and j["op"] == op and j["backend"] == "cpu", j
assert isinstance(j["device"], str) and j["device"], j["device"]
assert j["devices"] >= 1
t = j["times_ms"]
assert isinstance(t, list) and len(t) == j["reps"], t
assert all(isinstance(x, (int, float)) and x > 0 for x in t), t
assert 0 < j["min_ms"] <= j["median_ms"] <= max(t) and j["min_ms"] <= j["mean_ms"] <= max(t), j
assert j["bytes"] > 0 and j["gb_per_s"] > 0, j
assert j["floor_ms"] > 0 and j["x_floor"] > 0 and j["fraction_of_floor"] > 0, j
assert abs(j["x_floor"] * j["fraction_of_floor"] - 1) < 1e-3, j
assert "memcpy" in j["floor_basis"], j["floor_basis"]
if op in ("merkle", "commit", "fri"):
    assert isinstance(j["hash"], str) and re.fullmatch("[0-9a-f]{16,}", j["root"] or ""), j
else:
    assert j["hash"] is None and j["root"] is None, j
if op in ("merkle", "commit"):
    assert j["checksum"] is None, j
else:
    assert re.fullmatch("0x[0-9a-f]{16}", j["checksum"] or ""), j
' "$1" "$2"
}

# value FILE KEY: a string field of a JSON file.
value() {
    python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# run NAME OP ARGS...: runs gp-bench --json, checks exit 0 and the object.
run() {
    local name=$1 op=$2
    shift 2
    if ! "$BENCH" "${COMMON[@]}" --op "$op" --json "$@" >"$tmp/$name.json" 2>"$tmp/$name.err"; then
        fail "$name: gp-bench --op $op $* exited non-zero: $(cat "$tmp/$name.err")"
        return
    fi
    check_json "$tmp/$name.json" "$op" || fail "$name: bad JSON from --op $op $*: $(cat "$tmp/$name.json")"
}

# Every op, at log-n 8..10.
run lde lde --log-n 10
run ntt ntt --log-n 10
run merkle merkle --log-n 9
run commit commit --log-n 9 --hash poseidon2
run fri fri --log-n 8
run deep deep --log-n 8
run upload upload --log-n 10
run download download --log-n 10
# Other fields, extensions, orders and profiles.
run lde_bb_nat lde --log-n 9 --field babybear --order natural
run commit_kb_keccak commit --log-n 8 --field koalabear --hash keccak
run fri_bb fri --log-n 8 --field babybear --arity 4
run deep_gl3 deep --log-n 8 --ext 3 --points 1
run merkle_rpo merkle --log-n 8 --hash rpo --cap-height 2
run fri_blake3 fri --log-n 8 --hash blake3-256
run merkle_sp1 merkle --log-n 8 --field koalabear --hash poseidon2-sp1
run lde_coeffs lde --log-n 9 --field koalabear --input coeffs --order bitrev

# The root does not depend on the thread count nor on the device count.
run commit_t1 commit --log-n 9 --hash poseidon2 --threads 1
run commit_t2 commit --log-n 9 --hash poseidon2 --threads 2
run commit_d2 commit --log-n 9 --hash poseidon2 --devices 0,0
if [ -s "$tmp/commit.json" ]; then
    root=$(value "$tmp/commit.json" root)
    for v in commit_t1 commit_t2 commit_d2; do
        [ -s "$tmp/$v.json" ] && [ "$(value "$tmp/$v.json" root)" = "$root" ] ||
            fail "$v: root differs from the plain run's ($root)"
    done
    [ "$(value "$tmp/commit_d2.json" devices)" = 2 ] || fail "commit_d2: --devices 0,0 did not give 2 devices"
fi
# Nor the LDE's checksum on the device count.
run lde_d2 lde --log-n 10 --devices 0,0
if [ -s "$tmp/lde.json" ] && [ -s "$tmp/lde_d2.json" ]; then
    [ "$(value "$tmp/lde.json" checksum)" = "$(value "$tmp/lde_d2.json" checksum)" ] ||
        fail "lde: checksum differs with --devices 0,0"
fi
# Upload and download move the same trace.
if [ -s "$tmp/upload.json" ] && [ -s "$tmp/download.json" ]; then
    [ "$(value "$tmp/upload.json" checksum)" = "$(value "$tmp/download.json" checksum)" ] ||
        fail "upload and download checksums differ"
fi

# The table output states the floor and prints the root.
if out=$("$BENCH" "${COMMON[@]}" --op merkle --log-n 8 2>&1); then
    for want in "device:" "floor:" "x floor:" "root:" "min / median / mean:" "GB/s:"; do
        case $out in *"$want"*) ;; *) fail "table output lacks '$want': $out" ;; esac
    done
else
    fail "table run exited non-zero: $out"
fi
# --floor-mib 0: no floor, null in the JSON.
if "$BENCH" "${COMMON[@]}" --floor-mib 0 --op ntt --log-n 8 --json >"$tmp/nofloor.json" 2>&1; then
    python3 -c 'import json, sys; j = json.load(open(sys.argv[1])); assert j["floor_ms"] is None and j["x_floor"] is None, j' \
        "$tmp/nofloor.json" || fail "--floor-mib 0 still gave a floor: $(cat "$tmp/nofloor.json")"
else
    fail "--floor-mib 0 exited non-zero"
fi

# Bad arguments: exit 2, the message names the argument.
bad() {
    local want=$1
    shift
    local err rc
    err=$("$BENCH" "$@" 2>&1 >/dev/null)
    rc=$?
    [ "$rc" = 2 ] || fail "gp-bench $*: exit $rc, expected 2"
    case $err in *"$want"*) ;; *) fail "gp-bench $*: message does not name $want: $err" ;; esac
}
bad --field --field nope
bad --blowup --blowup 3
bad --op --op nope
bad --log-n --log-n 99
bad --hash --backend cpu --op merkle --field babybear --hash rpo
bad --ext --ext 2 --field koalabear
bad --devices --devices x
bad --threads --threads -1
bad --nope --nope

# A call the library refuses: exit 1, the call and its status named.
err=$("$BENCH" "${COMMON[@]}" --op commit --log-n 8 --hash lmcs-blake3 2>&1 >/dev/null)
rc=$?
[ "$rc" = 1 ] || fail "refused gp_commit_host: exit $rc, expected 1"
case $err in *gp_commit_host*GP_ERR_UNSUPPORTED*) ;; *) fail "refused gp_commit_host: message $err" ;; esac

# --version and --help.
ver=$("$BENCH" --version) || fail "--version exited non-zero"
case $ver in "gp-bench (gpuprover "*")") ;; *) fail "--version printed '$ver'" ;; esac
if [ -n "$VERSION" ]; then
    case $ver in *"$VERSION"*) ;; *) fail "--version '$ver' lacks the project version $VERSION" ;; esac
fi
help=$("$BENCH" --help) || fail "--help exited non-zero"
for op in lde ntt merkle commit fri deep upload download x_floor; do
    case $help in *"$op"*) ;; *) fail "--help does not mention $op" ;; esac
done

if [ "$failures" -ne 0 ]; then
    echo "gp_bench_tool_test: $failures failure(s)" >&2
    exit 1
fi
echo "gp_bench_tool_test: all checks passed"
