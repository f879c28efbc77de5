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
#      pkg-config, libclang-dev, librust-bindgen-dev,
#      librust-bindgen+runtime-dev (bindgen 0.60 and its dependencies as crate
#      sources in /usr/share/cargo/registry) and librust-cmake-dev (the cmake
#      crate of the optional `bundled` feature: cargo resolves optional
#      dependencies of workspace members too), and cargo if no cargo is found.
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
#   4. The `bundled` feature, with no install visible (GPUPROVER_DIR unset,
#      pkg-config finding nothing): gpuprover-sys builds the library from
#      this checkout with CMake (CPU only) into a target directory of its own,
#      then its tests and the `lde` and `merkle` tests of gpuprover run
#      against it.
#
# Environment (optional):
#   CARGO              cargo to use (default: cargo in PATH, else ~/.cargo/bin/cargo)
#   CARGO_TARGET_DIR   build directory (default: bindings/rust/target, git-ignored)
#   GP_BUNDLED_TARGET_DIR  build directory of step 4 (default: $CARGO_TARGET_DIR/bundled)
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

pkgs=(pkg-config libclang-dev librust-bindgen-dev librust-bindgen+runtime-dev librust-cmake-dev)
gp_find_cargo >/dev/null || pkgs+=(cargo) # Debian's cargo and rustc (1.63 on Debian 12)
gp_apt_install "${pkgs[@]}"

cargo="$(gp_find_cargo)" || die "no cargo found"
# rustc and rustdoc next to cargo (e.g. ~/.cargo/bin) come first.
PATH="$(dirname "$cargo"):$PATH"
export PATH
command -v pkg-config >/dev/null 2>&1 || die "pkg-config not found"
compgen -G "$registry/bindgen-0.60.*" >/dev/null ||
  die "no bindgen 0.60 crate in $registry (apt-get install librust-bindgen-dev librust-bindgen+runtime-dev)"
compgen -G "$registry/cmake-0.1.*" >/dev/null ||
  die "no cmake 0.1 crate in $registry (apt-get install librust-cmake-dev)"

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

# --- 6. The bundled feature --------------------------------------------------

# gpuprover-sys builds libgpuprover from this checkout (CMake, Release, no
# tests, benchmarks or remote backend) and links it with an rpath; nothing
# installed may be found: GPUPROVER_DIR is unset and pkg-config searches
# nothing. CPU only (GPUPROVER_CUDA=OFF): the CI machine has nvcc but no GPU,
# so the CUDA kernels would take most of the build time for code no test
# there can run. A target directory of its own keeps the builds above as
# they are. With a fresh one this step took about 3 minutes on 2 cores with
# one job (bindgen's crates again, then the library); seconds when kept.
bundled_target="${GP_BUNDLED_TARGET_DIR:-$CARGO_TARGET_DIR/bundled}"
bundled=(env -u GPUPROVER_DIR PKG_CONFIG_PATH=/nonexistent PKG_CONFIG_LIBDIR=/nonexistent
  GPUPROVER_CUDA=OFF CARGO_TARGET_DIR="$bundled_target")
bundled_start=$SECONDS
run "${bundled[@]}" "$cargo" test --offline --manifest-path "$rust_dir/Cargo.toml" \
  -p gpuprover-sys --features bundled
# Two test files of the safe crate over the same library (LDE against a
# naive evaluation, Merkle roots against Plonky3's). Not examples/rust: a
# package outside this workspace gets a gpuprover-sys build of its own, so it
# would build the library a second time.
run "${bundled[@]}" "$cargo" test --offline --manifest-path "$rust_dir/Cargo.toml" \
  -p gpuprover --features bundled --test lde --test merkle
echo "bundled feature: $((SECONDS - bundled_start)) s (library built into $bundled_target)" >&2

echo "Rust bindings: all checks passed"
