#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Tests gpuprover-winterfell against winterfell 0.13.1's real prover and
# verifier:
#
#   bash bindings/rust/gpuprover-winterfell/ci.sh PREFIX
#
# PREFIX is the library's install prefix (cmake --install BUILD --prefix
# PREFIX). A copy of the pristine tree $GP_THIRD_PARTY/winterfell-v0.13.1
# (default <repo>/../shared/third_party) is made to build offline against
# Debian's crates (third_party/offline/winterfell-debian.sh; the pristine
# tree is never written), cargo is pointed at it with a [patch.crates-io]
# per winter-* crate, and `cargo test` runs the crate's tests on the
# library's best backend (GP_TEST_BACKEND=cuda or cpu to choose): proofs of
# Fibonacci, a Rescue (Rp64_256) AIR and an AIR with an auxiliary segment,
# made through GpuProver with Blake3_256, Blake3_192, Sha3_256 and Rp64_256,
# are byte-identical to the stock prover's, winterfell's verifier accepts
# them and rejects tampered ones; GpuTraceLde and GpuConstraintCommitment
# equal DefaultTraceLde and DefaultConstraintCommitment. The prove_fib
# example runs once at 2^10 steps.
#
# Needs cargo 1.87 or later (winterfell's rust-version; the machine image's
# ~/.cargo/bin has one) and Debian's librust-*-dev crates (installed with
# apt-get when missing). Environment: CARGO, CARGO_TARGET_DIR (default
# bindings/rust/target-wf), GP_CARGO_REGISTRY, GP_THIRD_PARTY.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bindings/rust/cargo_env.sh
. "$here/../cargo_env.sh"

prefix="$(gp_prefix "bash bindings/rust/gpuprover-winterfell/ci.sh PREFIX" "$@")"
repo="$(cd "$here/../../.." && pwd)"
third="${GP_THIRD_PARTY:-$repo/../shared/third_party}"
src="$third/winterfell-v0.13.1"
[ -d "$src" ] && [ -d "$third/offline" ] || die "no winterfell-v0.13.1 at $third (set GP_THIRD_PARTY)"
registry="${GP_CARGO_REGISTRY:-/usr/share/cargo/registry}"

gp_apt_install pkg-config libclang-dev librust-bindgen-dev librust-bindgen+runtime-dev \
  librust-blake3-dev librust-sha3-dev librust-libm-dev librust-tracing-dev librust-serde-dev \
  librust-syn-dev librust-quote-dev librust-rayon-dev
cargo="$(gp_find_cargo 87)" || die "needs cargo 1.87 or later (winterfell's rust-version): set CARGO"
PATH="$(dirname "$cargo"):$PATH"
export PATH
gp_library "$prefix"
export LD_LIBRARY_PATH="$gp_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/bindings/rust/target-wf}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
copy="$tmp/winterfell-v0.13.1"
cp -r "$src" "$copy"
run bash "$third/offline/winterfell-debian.sh" "$copy"
gp_cargo_home "$tmp/cargo-home" "$registry"
{
  echo
  echo "[patch.crates-io]"
  for m in air crypto fri math prover verifier winterfell utils/core utils/maybe_async; do
    name="$(sed -n 's/^name = "\(.*\)"/\1/p' "$copy/$m/Cargo.toml" | head -n 1)"
    echo "$name = { path = \"$copy/$m\" }"
  done
} >>"$CARGO_HOME/config.toml"

manifest=(--manifest-path "$here/Cargo.toml")
rm -f "$here/Cargo.lock"
echo "== gpuprover-winterfell against winterfell v0.13.1 ($src)" >&2
# Without winterfell's `concurrent` feature: its parallel proof-of-work
# search returns whichever nonce a thread checks first, even at grinding 0,
# so only the sequential build is byte-for-byte deterministic (the tests
# also pass with `--features concurrent`, comparing up to the nonce).
run "$cargo" test --offline "${manifest[@]}"
out="$(run "$cargo" run --offline "${manifest[@]}" --example prove_fib -- 10)"
echo "$out"
grep -q "identical to the stock proof: yes; verified: yes; library commitments: 1 trace, 1 constraint;" <<<"$out" ||
  die "prove_fib: the proofs differ, do not verify or were not committed by the library"
rm -f "$here/Cargo.lock"
echo "gpuprover-winterfell: all checks passed"
