#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Tests gpuprover-plonky3 against the real Plonky3 provers and verifiers:
#
#   bash bindings/rust/gpuprover-plonky3/ci.sh PREFIX [TREE...]
#
# PREFIX is the library's install prefix (cmake --install BUILD --prefix
# PREFIX). TREE is v0.6.2 and/or main (default both): the pristine Plonky3
# trees in $GP_THIRD_PARTY (default <repo>/../shared/third_party,
# plonky3-v0.6.2 and plonky3-5dc50e51).
#
# For each tree: a copy is made to build offline against Debian's crates
# (third_party/offline/plonky3-debian.sh; the pristine tree is never
# written), cargo is pointed at it with a [patch.crates-io] per Plonky3
# crate, and `cargo test` runs the crate's tests on the library's best
# backend (GP_TEST_BACKEND=cuda or cpu to choose): uni-stark proofs of
# Fibonacci and keccak-air made through gpuprover are byte-identical to the
# stock prover's and the stock verifier accepts them; the MMCS and DFT equal
# MerkleTreeMmcs and Radix2DitParallel. Main is tested with the crate's
# `plonky3-main` feature.
#
# Needs cargo 1.85 or later (Plonky3 uses edition 2024; the machine image's
# ~/.cargo/bin has one) and Debian's librust-*-dev crates (installed with
# apt-get when missing). Environment: CARGO, CARGO_TARGET_DIR (default
# bindings/rust/target-p3), GP_CARGO_REGISTRY, GP_THIRD_PARTY.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bindings/rust/cargo_env.sh
. "$here/../cargo_env.sh"

prefix="$(gp_prefix "bash bindings/rust/gpuprover-plonky3/ci.sh PREFIX [v0.6.2|main ...]" "$@")"
shift
trees=("$@")
[ "${#trees[@]}" -gt 0 ] || trees=(v0.6.2 main)
repo="$(cd "$here/../../.." && pwd)"
third="${GP_THIRD_PARTY:-$repo/../shared/third_party}"
[ -d "$third/offline" ] || die "no upstream provers at $third (set GP_THIRD_PARTY)"
registry="${GP_CARGO_REGISTRY:-/usr/share/cargo/registry}"

gp_apt_install pkg-config libclang-dev librust-bindgen-dev librust-bindgen+runtime-dev \
  librust-itertools-dev librust-num-bigint-dev librust-paste-dev librust-rand-dev \
  librust-thiserror-dev librust-spin-dev librust-tracing-dev librust-serde-dev \
  librust-serde-derive-dev librust-libm-dev librust-serde-json-dev librust-tiny-keccak-dev \
  librust-blake3-dev librust-sha3-dev librust-syn-dev librust-quote-dev librust-rayon-dev
cargo="$(gp_find_cargo 85)" || die "needs cargo 1.85 or later (Plonky3 is edition 2024): set CARGO"
PATH="$(dirname "$cargo"):$PATH"
export PATH
gp_library "$prefix"
export LD_LIBRARY_PATH="$gp_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# The Plonky3 crates the tests build (their workspace is trimmed to them).
members="air baby-bear challenger commit dft field fri goldilocks keccak keccak-air koala-bear
  matrix maybe-rayon mds merkle-tree monty-31 multilinear-util poseidon1 poseidon2 poseidon2-air
  symmetric uni-stark util"

# One target directory for both trees: what does not come from Plonky3
# (bindgen, gpuprover-sys, serde, rayon) is built once.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/bindings/rust/target-p3}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for tree in "${trees[@]}"; do
  case "$tree" in
    v0.6.2) src="$third/plonky3-v0.6.2" extra="" features=() ;;
    main) src="$third/plonky3-5dc50e51" extra="security" features=(--features plonky3-main) ;;
    *) die "unknown tree '$tree' (v0.6.2 or main)" ;;
  esac
  [ -d "$src" ] || die "no $src"
  copy="$tmp/plonky3-$tree"
  cp -r "$src" "$copy"
  # shellcheck disable=SC2086
  run bash "$third/offline/plonky3-debian.sh" "$copy" "$(echo $members $extra)"
  # The offline rand shim has no rand::prelude; p3-poseidon2-air's
  # vectorized.rs names Distribution through it (its other files use
  # rand::distr, which the shim has). In the copy only.
  sed -i 's/use rand::prelude::Distribution;/use rand::distr::Distribution;/' "$copy/poseidon2-air/src/vectorized.rs"
  gp_cargo_home "$tmp/cargo-home-$tree" "$registry"
  {
    echo
    echo "[patch.crates-io]"
    for m in $members $extra; do
      name="$(sed -n 's/^name = "\(.*\)"/\1/p' "$copy/$m/Cargo.toml" | head -n 1)"
      echo "$name = { path = \"$copy/$m\" }"
    done
  } >>"$CARGO_HOME/config.toml"
  rm -f "$here/Cargo.lock"
  echo "== gpuprover-plonky3 against Plonky3 $tree ($src)" >&2
  run "$cargo" test --offline --manifest-path "$here/Cargo.toml" "${features[@]}"
  rm -f "$here/Cargo.lock"
done
echo "gpuprover-plonky3: all checks passed (${trees[*]})"
