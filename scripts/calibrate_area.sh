#!/usr/bin/env bash
# Regenerates the area model's calibration and validation data: synthesizes every design of
# explore/area_data/configs/ with scripts/synth.sh (cached by design hash) and writes its JSON
# resource report to explore/area_data/reports/<name>.json. Takes 1-3 hours on one core; -j N
# runs N syntheses at once.   usage: scripts/calibrate_area.sh [-j N] [--build DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=1
build=build
while [ $# -gt 0 ]; do
  case "$1" in
    -j) jobs=$2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    *) echo "calibrate_area.sh: error: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
mkdir -p explore/area_data/reports
ls explore/area_data/configs/*.json | xargs -P "$jobs" -I{} sh -c '
  name=$(basename {} .json)
  scripts/synth.sh --build '"$build"' --out explore/area_data/reports/$name.json {} >/dev/null &&
    echo "calibrate_area: $name done"'
