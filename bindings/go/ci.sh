#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
# CI for the Go binding: tests bindings/go and runs examples/go against an
# installed gpuprover, then builds and runs a module outside this repository
# that uses the binding from the checkout through a replace directive.
#
#   bash bindings/go/ci.sh PREFIX
#
# PREFIX is the prefix gpuprover was installed to (cmake --install ... --prefix
# PREFIX). Installs golang-go and pkg-config with apt-get when they are
# missing. Needs no network otherwise: GOPROXY=off, and the binding has no
# dependencies outside the standard library.
set -euo pipefail

if [ $# -ne 1 ] || [ -z "$1" ]; then
  echo "usage: $0 PREFIX" >&2
  exit 2
fi
prefix="$(cd "$1" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# What examples/c/lde_checksum.c prints.
expected='lde checksum: 0x40445ea8c51c1e87
merkle root: 0x1b2845fdf79a57eb43cfdb86c67607b10c03817fe2d482098171bfd73b594adc'

if ! command -v go >/dev/null 2>&1 || ! command -v pkg-config >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update
  $SUDO apt-get install -y --no-install-recommends golang-go pkg-config build-essential ca-certificates
fi
go version

# Find the installed library through its pkg-config file.
pc_file="$(find "$prefix" -name gpuprover.pc -path '*/pkgconfig/*' | head -n 1)"
if [ -z "$pc_file" ]; then
  echo "no gpuprover.pc under $prefix" >&2
  exit 1
fi
pc_dir="$(dirname "$pc_file")"
export PKG_CONFIG_PATH="$pc_dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
libdir="$(pkg-config --variable=libdir gpuprover)"
echo "gpuprover $(pkg-config --modversion gpuprover) in $libdir"

# Binaries find the library by rpath; LD_LIBRARY_PATH as well, for anything
# built without it.
export CGO_ENABLED=1
export CGO_LDFLAGS="-Wl,-rpath,$libdir${CGO_LDFLAGS:+ $CGO_LDFLAGS}"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# A throw-away Go workspace, offline.
gotmp="$(mktemp -d)"
trap 'chmod -R u+w "$gotmp" 2>/dev/null; rm -rf "$gotmp"' EXIT
export GOPATH="$gotmp/gopath" GOCACHE="$gotmp/gocache" GOMODCACHE="$gotmp/gopath/pkg/mod"
export GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GOENV=off

cd "$root/bindings/go"
unformatted="$(gofmt -l . "$root/examples/go")"
if [ -n "$unformatted" ]; then
  echo "gofmt would change: $unformatted" >&2
  exit 1
fi
go vet ./...
go test -count=1 ./...

cd "$root/examples/go"
go vet ./...
out="$(go run .)"
printf '%s\n' "$out"
if [ "$out" != "$expected" ]; then
  echo "examples/go printed '$out', expected '$expected'" >&2
  exit 1
fi

# A module outside this repository using the binding from the checkout, as
# bindings/go/README.md ("Using it from another module") shows: a replace
# directive to bindings/go, go get, go build.
modpath="$(cd "$root/bindings/go" && go list -m)"
consumer="$gotmp/consumer"
mkdir "$consumer"
cd "$consumer"
go mod init example.com/gpuprover-consumer
go mod edit -replace "$modpath=$root/bindings/go"
cat >main.go <<EOF
// SPDX-License-Identifier: MIT OR Apache-2.0
package main

import (
	"fmt"
	"os"

	gp "$modpath"
)

func main() {
	ctx, err := gp.NewContext(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer ctx.Close()
	fmt.Printf("gpuprover %s, backend %s\n", gp.Version(), ctx.Backend())
}
EOF
go get "$modpath"
go vet ./...
go build -o consumer .
out="$(./consumer)"
echo "external module: $out"
want="gpuprover $(pkg-config --modversion gpuprover), backend "
case "$out" in
"$want"*) ;;
*)
  echo "the external module printed '$out', expected '$want...'" >&2
  exit 1
  ;;
esac
echo "Go binding CI passed"
