#!/usr/bin/env bash
# The main job: pops-oit's whole algorithm × anti-aliasing matrix, run through `pops run` so that
# VK_LAYER_POPS_interlock reports every interlocked pipeline:
#
#   pops run -- pops-oit --matrix [ARGS…]
#
# Builds pops, pops-oit and the layer (release) first. With a GPU that has fragment shader
# interlock, every combination is rendered and checked against the CPU reference. Without one,
# `pops run` switches to RADV null hardware (navi31): every pipeline is created and analysed,
# nothing is rendered; the script then also renders what lavapipe can (the linked-list
# algorithm) and checks it against the reference.
#
# Usage: scripts/run-main.sh [pops-oit options, e.g. --frames 20 --width 1600 --height 1024]
# Environment: POPS_CHIP=<family> models that AMD chip (default: the device's own, or navi31 on
# null hardware).
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages (Mesa 25's RADV and lavapipe, the Vulkan loader, glslang, …): Debian 12 +
# bookworm-backports. Without root, install them once with sudo and set POPS_SKIP_INSTALL=1.
if [ "${POPS_SKIP_INSTALL:-0}" != "1" ]; then
  bash scripts/install-deps.sh
fi

cargo build --release --locked -p pops-cli -p pops-oit -p pops-layer
T=target/release

chip=()
if [ -n "${POPS_CHIP:-}" ]; then chip=(--chip "$POPS_CHIP"); fi

status=0
echo "== pops run ${chip[*]} -- pops-oit --matrix $*"
"$T/pops" run "${chip[@]}" -- "$T/pops-oit" --matrix "$@" || status=$?

# Without a real interlock device the run above rendered nothing: render on lavapipe too.
if ! "$T/pops-oit" --probe 2>/dev/null | grep -q "pixel-interlock=true"; then
  lvp=/usr/share/vulkan/icd.d/lvp_icd.json
  if [ -f "$lvp" ]; then
    echo "== no interlock GPU: rendering what lavapipe can, checked against the CPU reference"
    echo "== VK_DRIVER_FILES=$lvp pops-oit --matrix $*"
    VK_DRIVER_FILES="$lvp" "$T/pops-oit" --matrix "$@" || status=$?
  else
    echo "== no interlock GPU and no lavapipe ($lvp): nothing was rendered" >&2
  fi
fi
exit "$status"
