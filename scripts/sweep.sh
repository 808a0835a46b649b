#!/usr/bin/env bash
# Thin wrapper over `vtasim sweep` (configs/sweeps/README.md): runs a sweep spec into a SQLite
# database (resuming it if it exists) and exports all rows as CSV next to it.
# Usage: scripts/sweep.sh [SPEC.json] [DB.sqlite] [vtasim sweep options...]
#   e.g. scripts/sweep.sh configs/sweeps/quick.json quick.sqlite -j 2
# Exit status: that of vtasim sweep (0 all ok/invalid, 3 some failed, 2 bad spec).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
spec=${1:-$root/configs/sweeps/quick.json}
db=${2:-$(basename "${spec%.json}").sqlite}
shift $(($# < 2 ? $# : 2))
[ -x "$root/build/vtasim" ] || bash "$root/scripts/setup.sh"
status=0
"$root/build/vtasim" sweep "$spec" --db "$db" "$@" || status=$?
[ -f "$db" ] && "$root/build/vtasim" sweep export "$db" --csv "${db%.sqlite}.csv"
exit $status
