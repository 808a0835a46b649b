#!/usr/bin/env bash
# Synthesizes the VTA core RTL of one config with Yosys (synth_xilinx, 7-series) and writes a JSON
# resource report (Yosys' own `stat -json`, summed into LUT / FF / DSP / BRAM36 classes).
#
#   usage: scripts/synth.sh [--build DIR] [--out FILE.json] [--set KEY=VALUE]... [CONFIG]
#
# CONFIG is a preset name (configs/CONFIG.json) or a path to a config JSON (default pynq);
# --set overrides keys over it (applied through the config's "base" inheritance, validated by the
# simulator's own config parser). The parameter header comes from the project's generator
# (DIR/hw/gen_vta_params), never by hand. Results are cached by the SHA-256 of the generated
# parameter header and the RTL sources under DIR/synth/cache/<hash>/: an unchanged design is not
# synthesized again. The GEMM core is read in its synthesis variant (VTA_GEMM_PACKED: two int8
# MACs per DSP48 at int8 x int8 -> int32; other widths one product per MAC). A run takes 1-20
# minutes depending on the GEMM array.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=build
OUT_JSON=""
CONFIG=pynq
sets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) BUILD=$2; shift 2 ;;
    --out) OUT_JSON=$2; shift 2 ;;
    --set) sets+=("$2"); shift 2 ;;
    --set=*) sets+=("${1#--set=}"); shift ;;
    -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
    -*) echo "synth.sh: error: unknown option '$1'" >&2; exit 2 ;;
    *) CONFIG=$1; shift ;;
  esac
done

if [ -f "$CONFIG" ]; then
  CFG_FILE=$(realpath "$CONFIG")
elif [ -f "configs/$CONFIG.json" ]; then
  CFG_FILE=$(realpath "configs/$CONFIG.json")
else
  echo "synth.sh: error: config '$CONFIG' is neither a file nor a preset in configs/" >&2
  exit 2
fi
GEN=""
for g in "$BUILD/hw/gen_vta_params" "$BUILD/hw/gen_vta_params_host"; do
  [[ -x "$g" ]] && { GEN=$g; break; }
done
[[ -n "$GEN" ]] || { echo "synth.sh: error: configure $BUILD first (no $BUILD/hw/gen_vta_params)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The design = the config with its overrides, written as a config that starts from the file.
/usr/bin/python3 - "$CFG_FILE" "$work/config.json" "${sets[@]}" <<'EOF'
import json, sys
base, out, sets = sys.argv[1], sys.argv[2], sys.argv[3:]
cfg = {"base": base} if sets else json.load(open(base))
for s in sets:
    if "=" not in s:
        sys.exit("synth.sh: error: --set '%s' is not KEY=VALUE" % s)
    k, v = s.split("=", 1)
    try:
        cfg[k] = json.loads(v)
    except ValueError:
        cfg[k] = v
json.dump(cfg, open(out, "w"), indent=1)
EOF
"$GEN" "$work/config.json" "$work/vta_params.vh"
SOURCES=$(ls hw/rtl/*.v)
hash=$(cat "$work/vta_params.vh" $SOURCES | sha256sum | cut -c1-16)
CACHE=$BUILD/synth/cache/$hash
if [ ! -f "$CACHE/report.json" ]; then
  if ! command -v yosys >/dev/null; then  # only synthesis needs Yosys: installed on first use
    echo "synth.sh: installing yosys" >&2
    sudo_cmd=""
    [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends yosys >/dev/null
  fi
  mkdir -p "$CACHE"
  cp "$work/vta_params.vh" "$work/config.json" "$CACHE/"
  start=$(date +%s)
  # Yosys' messages (incl. its many harmless "Resizing cell port" warnings) go to the log only.
  if ! yosys -q -l "$CACHE/yosys.log" -p "
    read_verilog -sv -DVTA_GEMM_PACKED -I$CACHE $(echo $SOURCES)
    synth_xilinx -top vta_core -family xc7 -flatten
    tee -q -o $CACHE/stat.json stat -json
  " >/dev/null 2>&1; then
    echo "synth.sh: error: yosys failed, see $CACHE/yosys.log:" >&2
    tail -20 "$CACHE/yosys.log" >&2
    rm -f "$CACHE/stat.json"
    exit 1
  fi
  seconds=$(( $(date +%s) - start ))
  /usr/bin/python3 scripts/synth_report.py "$CACHE/stat.json" "$CACHE/config.json" "$hash" \
    "$seconds" > "$CACHE/report.json.tmp"
  mv "$CACHE/report.json.tmp" "$CACHE/report.json"
fi
if [ -n "$OUT_JSON" ]; then
  cp "$CACHE/report.json" "$OUT_JSON"
fi
/usr/bin/python3 - "$CACHE/report.json" <<'EOF'
import json, sys
r = json.load(open(sys.argv[1]))
u = r["resources"]
print("design %s (%s), Yosys synth_xilinx, %d s" % (r["design_hash"], r["label"], r["synth_seconds"]))
for k in ("lut", "ff", "dsp", "bram36"):
    print("  %-7s %10g" % (k, u[k]))
EOF
