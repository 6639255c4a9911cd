#!/usr/bin/env bash
# The main job: pops-oit's whole algorithm × anti-aliasing matrix, run through `pops run` so that
# VK_LAYER_POPS_interlock reports every interlocked pipeline and every draw:
#
#   pops run -- pops-oit --matrix [ARGS…]
#
# Builds pops, pops-oit and the layer (release) first.
# - With a GPU that has fragment shader interlock, every combination is rendered and checked
#   against the CPU reference.
# - Without one, the matrix runs on stock RADV over the amdgpu kernel-interface shim
#   (../shared/tools/amdgpu-shim, built into target/amdgpu-shim) for one chip of each POPS
#   generation: every command buffer is submitted through libdrm and the kernel's checks, the
#   layer writes its draw records, and `pops run --amdgpu-shim` shows each combination's draws
#   (samples, POPS register fields) and compares every record with the registers RADV really
#   programmed at its draws. Shaders do not run there, so lavapipe then renders what it can (the
#   linked-list algorithm), checked against the CPU reference. Without the shim, RADV null
#   hardware creates the pipelines instead (no draws).
#
# Usage: scripts/run-main.sh [pops-oit options, e.g. --frames 20 --width 1600 --height 1024]
# Environment: POPS_CHIP=<family> models that AMD chip (default: the device's own; on the shim,
# vega10 navi10 navi21 navi31 gfx1150).
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages (Mesa 25's RADV and lavapipe, the Vulkan loader, glslang, …): Debian 12 +
# bookworm-backports. Without root, install them once with sudo and set POPS_SKIP_INSTALL=1.
mkdir -p target/main-job
source scripts/quietly.sh
if [ "${POPS_SKIP_INSTALL:-0}" != "1" ]; then
  quietly "installing the Debian packages (a few minutes the first time)" \
    target/main-job/install.log bash scripts/install-deps.sh
fi

quietly "building pops, pops-oit and the layer (release; several minutes the first time)" \
  target/main-job/build.log cargo build --release --locked -p pops-cli -p pops-oit -p pops-layer
T=target/release

status=0
lines=()
if "$T/pops-oit" --probe 2>/dev/null | grep -q "pixel-interlock=true"; then
  chip=()
  if [ -n "${POPS_CHIP:-}" ]; then chip=(--chip "$POPS_CHIP"); fi
  echo "== pops run ${chip[*]} -- pops-oit --matrix $*"
  "$T/pops" run "${chip[@]}" -- "$T/pops-oit" --matrix "$@" || status=$?
  exit "$status"
fi

shim_build=../shared/tools/amdgpu-shim/build.sh
radv=/usr/share/vulkan/icd.d/radeon_icd.json
if [ -f "$shim_build" ] && [ -f "$radv" ]; then
  if [ "${POPS_SKIP_INSTALL:-0}" = "1" ]; then export AMDGPU_SHIM_SKIP_INSTALL=1; fi
  mkdir -p target
  quietly "no interlock GPU: building the amdgpu kernel-interface shim (about a minute the first time, then cached)" \
    target/amdgpu-shim.log bash "$shim_build" target/amdgpu-shim
  shim="$PWD/target/amdgpu-shim/libamdgpu_oracle_drm_shim.so"
  lines=()
  for c in ${POPS_CHIP:-vega10 navi10 navi21 navi31 gfx1150}; do
    report="target/main-job/$c.jsonl"
    echo
    echo "== pops run --amdgpu-shim --chip $c -- pops-oit --matrix $*"
    log="target/main-job/$c.log"
    rc=0
    "$T/pops" run --amdgpu-shim "$shim" --chip "$c" --report "$report" -- "$T/pops-oit" --matrix "$@" \
      > "$log" 2>&1 || rc=$?
    # pops-oit's own table and the layer's log are in the log; the draws and their check follow.
    sed -n '/^pops run: report /,$p' "$log"
    # 3: pops-oit's verdict when every combination was submitted and none could run shaders.
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
      echo "== $c: pops run exited with status $rc (full output: $log)" >&2
      status=1
    fi
    lines+=("$(grep -E "^pops run: $c: ([0-9]+ of [0-9]+ interlocked draws|NOTHING CHECKED)" "$log" || echo "pops run: $c: no draw check (see $log)")")
    # The same as a page: the table, the verdict and the notes.
    "$T/pops" report --html "target/main-job/$c.html" "$report" > "target/main-job/$c.page.log" 2>&1 \
      || { echo "== $c: pops report --html failed (see target/main-job/$c.page.log)" >&2; status=1; }
  done
else
  chip=()
  if [ -n "${POPS_CHIP:-}" ]; then chip=(--chip "$POPS_CHIP"); fi
  echo "== no interlock GPU and no amdgpu shim ($shim_build) or RADV: pipelines on RADV null hardware"
  echo "== pops run ${chip[*]} -- pops-oit --matrix $*"
  "$T/pops" run "${chip[@]}" -- "$T/pops-oit" --matrix "$@" || status=$?
fi

# Without a real interlock device nothing above was rendered: render on lavapipe too.
lvp=/usr/share/vulkan/icd.d/lvp_icd.json
rendered=""
if [ -f "$lvp" ]; then
  echo
  echo "== no interlock GPU: rendering what lavapipe can, checked against the CPU reference"
  echo "== VK_DRIVER_FILES=$lvp pops-oit --matrix $*"
  VK_DRIVER_FILES="$lvp" "$T/pops-oit" --matrix "$@" | tee target/main-job/lavapipe.log || status=$?
  rendered=$(grep -E '^summary: ' target/main-job/lavapipe.log | tail -n 1)
else
  echo "== no interlock GPU and no lavapipe ($lvp): nothing was rendered" >&2
fi

# One verdict, in words, for the whole job: each chip's sentence as `pops run` said it (its
# exit status above says whether it agreed), then what lavapipe rendered.
echo
echo "== Verdict"
if [ "${#lines[@]}" -gt 0 ]; then
  for l in "${lines[@]}"; do
    echo "   ${l#pops run: }"
  done
  echo "   (each chip's page: target/main-job/CHIP.html)"
fi
if [ -n "$rendered" ]; then
  read -r pass fail err unsup <<<"$(sed -E 's/^summary: ([0-9]+) pass, ([0-9]+) fail, ([0-9]+) error, ([0-9]+) unsupported.*/\1 \2 \3 \4/' <<<"$rendered")"
  echo "   lavapipe: $pass rendered image(s) match the CPU reference, $fail differ, $err failed to run; $unsup combination(s) need fragment shader interlock or 8x MSAA, which lavapipe lacks"
  if [ "$fail" != 0 ] || [ "$err" != 0 ]; then status=1; fi
fi
if [ "$status" -eq 0 ]; then
  echo "== OK: everything checked agrees"
else
  echo "== FAILED: see the lines above"
fi
exit "$status"
