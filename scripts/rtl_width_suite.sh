#!/usr/bin/env bash
# The ISA program suite on rtl at every element-width combination of kIsaWidthConfigs
# (tests/programs/isa_programs.h): one Verilated model per width config, each running the whole
# suite against the plain lane reference ("rtl isa widths <config> every program") and every
# program cycle for cycle against the cycle model ("rtl==cycle <config> <program>").
#
#   scripts/rtl_width_suite.sh [--build-dir DIR] [--jobs N] [--configs "a;b;..."]
#
# Configures DIR (default build-rtl-widths, next to build/ so the compiler cache serves both)
# with VTA_RTL_CONFIGS set to the width models, builds test_rtl, runs the tests and prints a
# Markdown table: per config its widths, tests passed / run and the test time, then the build
# and test wall times. The default build and CI keep only the Verilated models of
# hw/CMakeLists.txt's VTA_RTL_CONFIGS (each model costs 25-35 s of CPU to build); this script is
# the whole matrix. Exit status: non-zero when any test fails or a config ran no test.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=$ROOT/build-rtl-widths
JOBS=2
# int8 x int8 -> int32 models (pynq, small) are the default suite's; these are the other widths.
CONFIGS="pynq_int32;small_int4;small_int8_acc16;small_int4_bus128;small_int4_acc32;small_int16"
CONFIGS+=";small_int16_acc16;small_int2_wgt8;small_int4_wgt16"

while [[ $# -gt 0 ]]; do
  case $1 in
    --build-dir) BUILD=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --configs) CONFIGS=$2; shift 2 ;;
    -h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "rtl_width_suite.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
IFS=';' read -r -a CFG_LIST <<< "$CONFIGS"
for cfg in "${CFG_LIST[@]}"; do
  if [[ ! -f $ROOT/configs/$cfg.json ]]; then
    echo "rtl_width_suite.sh: no config file configs/$cfg.json" >&2
    exit 2
  fi
done

launcher=()
if command -v ccache > /dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
mkdir -p "$BUILD"
t0=$(date +%s)
cmake -S "$ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=/usr/bin/python3 \
  "${launcher[@]}" "-DVTA_RTL_CONFIGS=$CONFIGS" > "$BUILD/rtl_width_suite.configure.log" 2>&1 \
  || { cat "$BUILD/rtl_width_suite.configure.log" >&2; exit 1; }
cmake --build "$BUILD" -j "$JOBS" --target test_rtl > "$BUILD/rtl_width_suite.build.log" 2>&1 \
  || { tail -40 "$BUILD/rtl_width_suite.build.log" >&2; exit 1; }
t1=$(date +%s)

# one alternation of the configs, each followed by a space so that small_int4 does not match
# small_int4_bus128
alt=$(IFS='|'; echo "${CFG_LIST[*]}")
regex="^rtl( isa widths |==cycle )($alt) "
log=$BUILD/rtl_width_suite.ctest.log
set +e
ctest --test-dir "$BUILD" -j "$JOBS" -R "$regex" > "$log" 2>&1
rc=$?
set -e
t2=$(date +%s)

table_rc=0
/usr/bin/python3 - "$log" "$ROOT" "${CFG_LIST[@]}" <<'EOF' || table_rc=$?
import json, re, sys
log, root, configs = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = {c: [0, 0, 0.0] for c in configs}  # passed, run, seconds
failed = []
pat = re.compile(r"Test +#\d+: (.+?) \.+\**\s*(Passed|\*\*\*Failed|Failed|Exception.*?|Timeout)"
                 r"\s+([\d.]+) sec")
for line in open(log):
    m = pat.search(line)
    if not m:
        continue
    name, status, secs = m.group(1), m.group(2), float(m.group(3))
    cfg = next((c for c in sorted(configs, key=len, reverse=True)
                if f"==cycle {c} " in name or f"isa widths {c} " in name), None)
    if cfg is None:
        continue
    rows[cfg][1] += 1
    rows[cfg][2] += secs
    if status == "Passed":
        rows[cfg][0] += 1
    else:
        failed.append(name)


def widths(cfg):
    """int<inp> / int<wgt> / int<acc> of a config (following its "base")."""
    keys = {}
    name = cfg
    while name:
        with open(f"{root}/configs/{name}.json") as f:
            j = json.load(f)
        keys = {**j, **keys}
        name = j.get("base")
    return " / ".join(f"int{1 << keys[k]}" for k in ("LOG_INP_WIDTH", "LOG_WGT_WIDTH",
                                                      "LOG_ACC_WIDTH"))


print("| rtl model | inp / wgt / acc | tests passed / run | test time (s) |")
print("| --- | --- | ---: | ---: |")
for c in configs:
    p, n, s = rows[c]
    print(f"| `{c}` | {widths(c)} | {p} / {n} | {s:.1f} |")
for name in failed:
    print(f"FAILED: {name}")
empty = [c for c in configs if rows[c][1] == 0]
if empty:
    print("no tests ran for: " + ", ".join(empty))
sys.exit(1 if failed or empty else 0)
EOF
echo "build (configure + test_rtl): $((t1 - t0)) s wall; tests: $((t2 - t1)) s wall at -j $JOBS"
echo "ctest log: $log"
[[ $rc -ne 0 ]] && exit $rc
exit $table_rc
