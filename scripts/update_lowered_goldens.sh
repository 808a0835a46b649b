#!/bin/sh
# Regenerates the lowered-program goldens (tests/compiler/lowered/<name>.txt) from the cases
# in tests/compiler/lowered/cases.txt with a built vtasim. Review the diff before committing.
# Usage: scripts/update_lowered_goldens.sh [BUILD_DIR]   (default: build)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build}
case "$build" in /*) ;; *) build="$root/$build" ;; esac
vtasim="$build/vtasim"
[ -x "$vtasim" ] || { echo "update_lowered_goldens: $vtasim is not built" >&2; exit 1; }
cd "$root"
grep -v '^#' tests/compiler/lowered/cases.txt | while IFS='|' read -r name args; do
  [ -n "$name" ] || continue
  # shellcheck disable=SC2086  # the arguments are meant to split
  "$vtasim" $args > "tests/compiler/lowered/$name.txt"
  echo "tests/compiler/lowered/$name.txt"
done
