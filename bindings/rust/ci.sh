#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# Builds and tests the Rust bindings against an installed gpuprover:
#
#   bash bindings/rust/ci.sh PREFIX
#
# PREFIX is the library's install prefix (cmake --install BUILD --prefix PREFIX).
#
# What it does:
#   1. Installs, with apt-get, only the Debian packages that are missing:
#      pkg-config, libclang-dev, librust-bindgen-dev and
#      librust-bindgen+runtime-dev (bindgen 0.60 and its dependencies as crate
#      sources in /usr/share/cargo/registry), and cargo if no cargo is found.
#      As root (CI) directly, otherwise through sudo.
#   2. Points cargo at the Debian crate registry through a temporary
#      CARGO_HOME (your ~/.cargo is neither read for sources nor written) and
#      runs everything --offline: crates.io is never contacted.
#   3. cargo test for gpuprover-sys and gpuprover (found with pkg-config;
#      with the tests of the adapters in gpuprover/examples/),
#      cargo test for gpuprover-sys once more with GPUPROVER_DIR=PREFIX,
#      cargo test for examples/rust-dropin (the Plonky3 KoalaBear Poseidon2
#      MerkleTreeMmcs drop-in), and cargo run for examples/rust, whose output
#      must be the two lines the C example prints:
#        lde checksum: 0x40445ea8c51c1e87
#        merkle root: 0x1b2845fdf79a57eb43cfdb86c67607b10c03817fe2d482098171bfd73b594adc
#
# Environment (optional):
#   CARGO              cargo to use (default: cargo in PATH, else ~/.cargo/bin/cargo)
#   CARGO_TARGET_DIR   build directory (default: bindings/rust/target, git-ignored)
#   GP_CARGO_REGISTRY  crate directory source (default: /usr/share/cargo/registry)
#
# Exits non-zero on any failure.
set -euo pipefail

rust_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=bindings/rust/cargo_env.sh
. "$rust_dir/cargo_env.sh"

[ "$#" -le 1 ] || die "one argument: the install prefix"
prefix="$(gp_prefix "bash bindings/rust/ci.sh PREFIX   (PREFIX = gpuprover install prefix)" "$@")"
repo="$(cd "$rust_dir/../.." && pwd)"
registry="${GP_CARGO_REGISTRY:-/usr/share/cargo/registry}"
# What examples/c/lde_checksum.c prints.
expected='lde checksum: 0x40445ea8c51c1e87
merkle root: 0x1b2845fdf79a57eb43cfdb86c67607b10c03817fe2d482098171bfd73b594adc'

# --- 1. Tools ----------------------------------------------------------------

pkgs=(pkg-config libclang-dev librust-bindgen-dev librust-bindgen+runtime-dev)
gp_find_cargo >/dev/null || pkgs+=(cargo) # Debian's cargo and rustc (1.63 on Debian 12)
gp_apt_install "${pkgs[@]}"

cargo="$(gp_find_cargo)" || die "no cargo found"
# rustc and rustdoc next to cargo (e.g. ~/.cargo/bin) come first.
PATH="$(dirname "$cargo"):$PATH"
export PATH
command -v pkg-config >/dev/null 2>&1 || die "pkg-config not found"
compgen -G "$registry/bindgen-0.60.*" >/dev/null ||
  die "no bindgen 0.60 crate in $registry (apt-get install librust-bindgen-dev librust-bindgen+runtime-dev)"

# --- 2. Cargo configuration --------------------------------------------------

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
gp_cargo_home "$tmp/cargo-home" "$registry"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$rust_dir/target}"
run "$cargo" --version
run rustc --version

# --- 3. The library ----------------------------------------------------------

gp_library "$prefix"
libdir="$gp_libdir"
includedir="$gp_includedir"

# Lock files are not committed (see .gitignore): resolve them from the
# registry with this cargo, whatever version wrote an old one.
run "$cargo" generate-lockfile --offline --manifest-path "$rust_dir/Cargo.toml"
run "$cargo" generate-lockfile --offline --manifest-path "$repo/examples/rust/Cargo.toml"
run "$cargo" generate-lockfile --offline --manifest-path "$repo/examples/rust-dropin/Cargo.toml"

# --- 4. Tests ----------------------------------------------------------------

run "$cargo" test --offline --manifest-path "$rust_dir/Cargo.toml" --workspace

# The GPUPROVER_DIR override, without pkg-config.
if [ -z "${GPUPROVER_DIR:-}" ]; then
  run env GPUPROVER_DIR="$prefix" PKG_CONFIG_PATH=/nonexistent \
    "$cargo" test --offline --manifest-path "$rust_dir/Cargo.toml" -p gpuprover-sys
fi

# The drop-in (examples/rust-dropin) against the CPU backend and a naive tree.
run "$cargo" test --offline --manifest-path "$repo/examples/rust-dropin/Cargo.toml"

# --- 5. The example ----------------------------------------------------------

echo "+ $cargo run --offline --manifest-path $repo/examples/rust/Cargo.toml" >&2
out="$("$cargo" run --offline --quiet --manifest-path "$repo/examples/rust/Cargo.toml")"
printf '%s\n' "$out"
[ "$out" = "$expected" ] || die "example printed '$out', expected '$expected'"

# Where a C compiler exists, the C example must print the same lines.
if command -v cc >/dev/null 2>&1 && [ -f "$repo/examples/c/lde_checksum.c" ]; then
  run cc -std=c99 "$repo/examples/c/lde_checksum.c" -I"$includedir" -L"$libdir" -lgpuprover \
    -Wl,-rpath,"$libdir" -o "$tmp/lde_checksum_c"
  out_c="$("$tmp/lde_checksum_c")"
  [ "$out_c" = "$out" ] || die "C example printed '$out_c', Rust example '$out'"
fi

echo "Rust bindings: all checks passed"
