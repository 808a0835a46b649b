#!/usr/bin/env bash
# The model zoo: every classification model of the installed torchvision
# (torchvision.models.list_models(module=torchvision.models), 80 in torchvision 0.14) exported at
# 1x3x224x224 with seeded weights, imported, quantized (--calib 4) and run on pynq and block32
# as sweeps, then tabled into docs/zoo.md (scripts/zoo_table.py).
#
# Usage: scripts/zoo.sh [--models M1,M2,...] [--out DIR] [-j N] [--slurm SHARDS [sbatch opts]]
#   --models   a subset (default: all of them)
#   --out      where the models, specs and databases go (default: build/zoo)
#   -j N       sweep workers (default 2)
#   --slurm S  submit each sweep with scripts/sweep-slurm.sh on S shards instead of running it
#              here (then run scripts/zoo_table.py on the merged databases when they are done)
#
# Backends: the cycle model, except for the largest models (ZOO_FSIM below: above ~15 G MACs,
# where the cycle model takes hours per design), which run on fsim: VTA's cycles are then absent
# from their rows and the table says "fsim". Two sweep specs, zoo_cycle.json and zoo_fsim.json,
# each with the points pynq and block32 (block32's keys over the base pynq).
#
# A model that does not export is listed with the exporter's last line; one that does not
# import (or quantize) has failed rows whose error the table shows.
set -euo pipefail
cd "$(dirname "$0")/.."

ZOO_FSIM="vit_h_14 vit_l_16 vit_l_32 regnet_y_128gf regnet_y_32gf regnet_y_16gf regnet_x_32gf
  regnet_x_16gf efficientnet_v2_l convnext_large convnext_base swin_v2_b swin_b vgg16 vgg16_bn
  vgg19 vgg19_bn wide_resnet101_2 resnext101_32x8d resnext101_64x4d"

die() {
  echo "zoo: error: $*" >&2
  exit 2
}

models="" out="build/zoo" jobs=2 shards=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --models) models="${2:-}"; shift 2 ;;
    --out) out="${2:-}"; shift 2 ;;
    -j) jobs="${2:-}"; shift 2 ;;
    --slurm) shards="${2:-}"; shift 2; break ;;
    *) die "unknown option '$1' (see the header of scripts/zoo.sh)" ;;
  esac
done
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || die "-j needs a positive number (got '$jobs')"
[[ -z "$shards" || "$shards" =~ ^[1-9][0-9]*$ ]] || die "--slurm needs a shard count"
vtasim="${VTASIM:-build/vtasim}"
[[ -x "$vtasim" ]] || die "$vtasim not found: build first (cmake --build build)"

if [[ -z "$models" ]]; then
  models=$(/usr/bin/python3 -c 'import torchvision
print(",".join(torchvision.models.list_models(module=torchvision.models)))')
fi
mkdir -p "$out/models"
: > "$out/export_errors.txt"
cycle=() fsim=()
for m in ${models//,/ }; do
  # One directory per model: a model above 2 GiB is exported with its weights in files beside
  # the .onnx, named by tensor, which must not meet another model's.
  mkdir -p "$out/models/$m"
  onnx="$out/models/$m/$m.onnx"
  if [[ ! -s "$onnx" ]]; then
    echo "zoo: exporting $m" >&2
    if ! /usr/bin/python3 scripts/export_torchvision.py "$m" "$onnx" > "$out/models/$m/export.log" 2>&1
    then
      rm -f "$onnx"
      printf '%s\t%s\n' "$m" "$(grep -v '^\s*$' "$out/models/$m/export.log" | tail -1)" \
        >> "$out/export_errors.txt"
      continue
    fi
  fi
  if [[ " $(echo $ZOO_FSIM) " == *" $m "* ]]; then fsim+=("$m"); else cycle+=("$m"); fi
done

# A spec per backend: the points pynq and block32 (block32's keys that differ from pynq's).
write_spec() {  # NAME BACKEND MODELS...
  local name="$1" backend="$2"
  shift 2
  /usr/bin/python3 - "$out/$name.json" "$name" "$backend" "$@" <<'PY'
import json, sys
path, name, backend, models = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
pynq = json.load(open("configs/pynq.json"))
block32 = json.load(open("configs/block32.json"))
diff = {k: v for k, v in block32.items() if pynq.get(k) != v and k != "base"}
spec = {"name": name, "base": "pynq", "points": [{}, diff], "backend": backend,
        "schedule": "auto", "calib": 4, "workloads": [f"network:models/{m}/{m}.onnx" for m in models]}
json.dump(spec, open(path, "w"), indent=1)
PY
}

dbs=()
for kind in cycle fsim; do
  declare -n list="$kind"
  [[ ${#list[@]} -gt 0 ]] || continue
  write_spec "zoo_$kind" "$kind" "${list[@]}"
  db="$out/zoo_$kind.sqlite"
  dbs+=("$db")
  if [[ -n "$shards" ]]; then
    scripts/sweep-slurm.sh "$out/zoo_$kind.json" --db "$db" --shards "$shards" "$@"
  else
    "$vtasim" sweep "$out/zoo_$kind.json" --db "$db" -j "$jobs" || [[ $? -eq 3 ]]
  fi
done
if [[ -n "$shards" ]]; then
  echo "zoo: submitted; when the merges are done: /usr/bin/python3 scripts/zoo_table.py" \
    "--export-errors $out/export_errors.txt ${dbs[*]} > docs/zoo.md" >&2
  exit 0
fi
/usr/bin/python3 scripts/zoo_table.py --export-errors "$out/export_errors.txt" "${dbs[@]}" \
  > docs/zoo.md
echo "zoo: wrote docs/zoo.md" >&2
