#!/usr/bin/env bash
# Sets up (packages + build) and runs the main job: ResNet-18 C8 (14x14, 256->256, 3x3, stride 1,
# pad 1) with the upstream tutorial schedule on the default config and the cycle backend, checked
# against the C++ reference, with its report. Extra arguments go to vtasim (e.g. --backend rtl).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec build/vtasim conv2d --layer resnet18.C8 --schedule compiler/schedules/tutorial_c8.json "$@"
