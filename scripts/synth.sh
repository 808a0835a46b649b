#!/usr/bin/env bash
# Synthesizes the VTA core RTL of one config with Yosys (synth_xilinx, 7-series) and reports
# LUTs, flip-flops, DSPs and block RAMs against the xc7z020 (Pynq) budget.
#   usage: scripts/synth.sh [CONFIG] [BUILD_DIR]      e.g. scripts/synth.sh pynq build
# CONFIG names configs/CONFIG.json (default pynq). The parameter header is generated with the
# project's generator (BUILD_DIR/hw/gen_vta_params, or the configure-time copy), never by hand.
# The GEMM core is read in its synthesis variant (VTA_GEMM_PACKED: two int8 MACs per DSP48).
# Output: BUILD_DIR/synth/CONFIG/{vta_params.vh,yosys.log,stat.txt} and a summary on stdout.
set -euo pipefail
cd "$(dirname "$0")/.."
CONFIG=${1:-pynq}
BUILD=${2:-build}
CFG_FILE=configs/${CONFIG}.json
[[ -f "$CFG_FILE" ]] || { echo "synth.sh: no config file $CFG_FILE" >&2; exit 2; }
GEN=""
for g in "$BUILD/hw/gen_vta_params" "$BUILD/hw/gen_vta_params_host"; do
  [[ -x "$g" ]] && { GEN=$g; break; }
done
[[ -n "$GEN" ]] || { echo "synth.sh: configure $BUILD first (no $BUILD/hw/gen_vta_params)" >&2; exit 2; }
OUT=$BUILD/synth/$CONFIG
mkdir -p "$OUT"
"$GEN" "$CFG_FILE" "$OUT/vta_params.vh"
SOURCES=$(ls hw/rtl/*.v | tr '\n' ' ')
if ! command -v yosys >/dev/null; then  # only synthesis needs Yosys: installed on first use
  echo "synth.sh: installing yosys"
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends yosys >/dev/null
fi
# Yosys' messages (incl. its many harmless "Resizing cell port" warnings) go to the log only.
if ! yosys -q -l "$OUT/yosys.log" -p "
  read_verilog -sv -DVTA_GEMM_PACKED -I$OUT $SOURCES
  synth_xilinx -top vta_core -family xc7 -flatten
  tee -o $OUT/stat.txt stat
" >/dev/null 2>&1; then
  echo "synth.sh: yosys failed, see $OUT/yosys.log:" >&2
  tail -20 "$OUT/yosys.log" >&2
  exit 1
fi

# Sum the cell counts of each resource class from Yosys' stat report.
awk -v cfg="$CONFIG" '
  /^ +[0-9]+ +[A-Za-z0-9_]+$/ || /^ +[A-Za-z0-9_]+ +[0-9]+$/ {
    if ($1 ~ /^[0-9]+$/) { n = $1; c = $2 } else { c = $1; n = $2 }
    if (c ~ /^LUT[1-6]$/) lut += n
    else if (c ~ /^(RAM32M|RAM64M|RAM32X1D|RAM64X1D|RAM128X1D|RAM256X1S|RAM64X1S|RAM32X1S|RAM128X1S|SRL16E|SRLC32E)$/) lutram[c] += n
    else if (c ~ /^FD[RSCP]E$/) ff += n
    else if (c ~ /^DSP48E1$/) dsp += n
    else if (c ~ /^RAMB36E1$/) b36 += n
    else if (c ~ /^RAMB18E1$/) b18 += n
    else if (c ~ /^CARRY4$/) carry += n
  }
  END {
    lr = 0; for (k in lutram) lr += lutram[k]
    bram = b36 + b18 / 2
    printf "config %s (xc7z020 budget in parentheses)\n", cfg
    printf "  LUTs (logic)      %8d (53200, %5.1f%%)\n", lut, 100 * lut / 53200
    printf "  LUTRAM/SRL cells  %8d\n", lr
    printf "  flip-flops        %8d (106400, %5.1f%%)\n", ff, 100 * ff / 106400
    printf "  DSP48E1           %8d (220, %5.1f%%)\n", dsp, 100 * dsp / 220
    printf "  block RAM (36Kb)  %8.1f (140, %5.1f%%)  [RAMB36E1 %d, RAMB18E1 %d]\n", bram, 100 * bram / 140, b36, b18
    printf "  CARRY4            %8d\n", carry
  }' "$OUT/stat.txt"
