#!/usr/bin/env bash
# House-style checks on the project's own sources: formatting (clang-format 16, the version that
# knows InsertBraces) and the curated clang-tidy checks of .clang-tidy (function size, braces,
# bug patterns). Usage: scripts/lint.sh [--fix] [files...]; needs build/compile_commands.json
# (bash scripts/setup.sh). Installs clang-format-16 / clang-tidy on first use.
set -euo pipefail
cd "$(dirname "$0")/.."
fix=0
if [ "${1:-}" = "--fix" ]; then
  fix=1
  shift
fi
for p in clang-format-16 clang-tidy; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends \
      "$p" >/dev/null
  fi
done
if [ $# -gt 0 ]; then
  files=("$@")
else
  mapfile -t files < <(git ls-files '*.cc' '*.h' '*.c' | grep -v '^tests/.*\.c$')
fi
if [ $fix -eq 1 ]; then
  clang-format-16 -i "${files[@]}"
else
  clang-format-16 --dry-run -Werror "${files[@]}"
fi
# clang-tidy on translation units only (headers are checked through them), tests excluded from
# the function-size rule by HeaderFilterRegex and this list.
mapfile -t units < <(printf '%s\n' "${files[@]}" | grep -E '\.cc$' | grep -v '^tests/')
if [ ${#units[@]} -gt 0 ]; then
  clang-tidy -p build --quiet "${units[@]}" 2>/dev/null | grep -E "warning:|error:" || true
fi
