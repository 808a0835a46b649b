#!/usr/bin/env bash
# Design-space sweep: runs one conv2d layer (automatic schedule) on every given config and prints
# cycles, cycles over the compute bound, GEMM utilization and wall-clock time at the config's clock.
# Usage: scripts/sweep.sh [LAYER] [CONFIG...]    e.g. scripts/sweep.sh resnet18.C8 pynq block32
# Extra vtasim options can be passed in $VTASIM_ARGS (e.g. VTASIM_ARGS="--backend rtl").
set -euo pipefail
cd "$(dirname "$0")/.."
layer=${1:-resnet18.C8}
shift || true
configs=("$@")
[ ${#configs[@]} -eq 0 ] && configs=(pynq ultra96 zcu104 de10nano block32 batch4 small)
[ -x build/vtasim ] || bash scripts/setup.sh
printf "%-10s %12s %9s %8s %10s  %s\n" config cycles x_bound util time_ms schedule
for c in "${configs[@]}"; do
  cfg=$c
  [ -f "$cfg" ] || cfg=configs/$c.json
  mhz=$(sed -n 's/.*"CLOCK_MHZ": *\([0-9.]*\).*/\1/p' "$cfg")
  # shellcheck disable=SC2086
  out=$(build/vtasim conv2d --layer "$layer" --config "$cfg" ${VTASIM_ARGS:-} 2>&1) || {
    printf "%-10s error: %s\n" "$c" "$(echo "$out" | tail -n 1)"
    continue
  }
  summary=$(echo "$out" | grep '^summary:')
  cycles=$(echo "$summary" | sed -n 's/.*moved[^,]*, \([0-9.KM]*\) cycles.*/\1/p')
  bound=$(echo "$summary" | sed -n 's/.*cycles (\([0-9.]*\)x bound.*/\1/p')
  util=$(echo "$summary" | sed -n 's/.*, \([0-9.]*%\) GEMM utilization.*/\1/p')
  sched=$(echo "$out" | grep "^$layer " | awk '{for(i=1;i<=NF;i++) if ($i ~ /^h[0-9]+$/) {print $i, $(i+1), $(i+2), $(i+3), $(i+4); exit}}')
  raw=$(echo "$out" | sed -n 's/^  cycles  *\([0-9]*\) cycles$/\1/p' | head -n 1)
  ms=$(awk -v c="${raw:-0}" -v f="$mhz" 'BEGIN { printf "%.3f", c / (f * 1000) }')
  printf "%-10s %12s %9s %8s %10s  %s\n" "$c" "$cycles" "$bound" "$util" "$ms" "$sched"
done
