#!/usr/bin/env bash
# SPDX-License-Identifier: MIT OR Apache-2.0
#
# Every source, script and build file of the repository states its license
# (SPDX-License-Identifier: MIT OR Apache-2.0) in its first five lines.
# Usage: spdx_test.sh SOURCE_DIR
set -euo pipefail
root="${1:?usage: $0 SOURCE_DIR}"
cd "$root"

pattern='\.(c|h|cpp|cu|cuh|rs|go|py|sh|cmake|proto)$|(^|/)CMakeLists\.txt$|(^|/)Dockerfile$|^\.ci/run$'
expected='SPDX-License-Identifier: MIT OR Apache-2.0'

# missing FILE...: prints the files without the line.
missing() {
  local f
  for f in "$@"; do
    grep -qF "$expected" < <(head -n 5 "$f") || echo "$f"
  done
}

# The check itself must be able to fail.
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
printf '// no license line\nint x;\n' >"$tmp/bad.c"
printf '// %s\nint x;\n' "$expected" >"$tmp/good.c"
[ "$(missing "$tmp/bad.c" "$tmp/good.c")" = "$tmp/bad.c" ] || { echo "self-check failed" >&2; exit 1; }

if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  mapfile -t files < <(git ls-files | grep -E "$pattern")
else
  mapfile -t files < <(find . -path ./build -prune -o -type f -print | sed 's#^\./##' | grep -E "$pattern" | grep -vE '^(build|target)')
fi
[ "${#files[@]}" -gt 100 ] || { echo "only ${#files[@]} files found under $root" >&2; exit 1; }

bad="$(missing "${files[@]}")"
if [ -n "$bad" ]; then
  echo "files without '$expected' in their first five lines:" >&2
  echo "$bad" >&2
  exit 1
fi
echo "${#files[@]} files carry '$expected'"
