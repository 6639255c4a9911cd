#!/bin/bash
# Records the reference of the GFX12 POPS draw: the IBs stock RADV from today's Mesa submits for
# one pixel-ordered interlock draw (pops-oit, 32x32, no anti-aliasing; binning disabled, as in
# libdrm's draws of the other generations, through RADV's own `nobinning` option) on the amdgpu shim as
# gfx1201 (Radeon RX 9070 XT). libdrm has no GFX12 draw test, so the driver that ships for RDNA4
# is the hardware-tested reference there; draw/reference/radv-gfx1201/README.md says what the
# files are. Needs the test command's builds: target/mesa-current, target/amdgpu-shim and the
# release pops-oit. Run from the repository root:
#     bash scripts/record-gfx12-draw-reference.sh
set -euo pipefail
out=draw/reference/radv-gfx1201
root=target/mesa-current
shim=$PWD/target/amdgpu-shim/libamdgpu_oracle_drm_shim.so
for need in "$root/VERSIONS" "$shim" target/release/pops-oit; do
  [[ -e $need ]] || { echo "record-gfx12-draw-reference: $need is missing (bash scripts/test-all.sh builds it)" >&2; exit 1; }
done
rec=$(mktemp -d)
trap 'rm -rf "$rec"' EXIT
# pops-oit's status 3: submitted, with no shader output (the shim runs no shaders).
status=0
flock "$root/pops-run.lock" bash ../shared/tools/mesa-current/run.sh "$root" -- /usr/bin/env \
  LD_PRELOAD="$shim" AMDGPU_GPU_ID=gfx1201 AMDGPU_ORACLE_DIR="$rec" \
  VK_DRIVER_FILES=/usr/share/vulkan/icd.d/radeon_icd.json MESA_SHADER_CACHE_DISABLE=true \
  RADV_DEBUG=noibchaining,nobinning VK_LOADER_LAYERS_DISABLE='~implicit~' \
  target/release/pops-oit --algorithm interlock-pixel-ordered --aa noaa --width 32 --height 32 \
  --triangles 2 || status=$?
[[ $status == 3 ]] || { echo "record-gfx12-draw-reference: pops-oit exited with $status" >&2; exit 1; }
if grep -h -E 'VIOLATION|LEAK' "$rec"/events-*.log; then
  echo "record-gfx12-draw-reference: the shim refused part of RADV's submission" >&2
  exit 1
fi
subs=("$rec"/submissions-*.jsonl)
[[ $(wc -l < "${subs[0]}") == 1 ]] || { echo "record-gfx12-draw-reference: expected one submission" >&2; exit 1; }
mkdir -p "$out"
cp "$rec"/ib-*-1-0.bin "$out/ib-0.bin"
cp "$rec"/ib-*-1-1.bin "$out/ib-1.bin"
grep -E '^(mesa-vulkan-drivers|libdrm-amdgpu1) ' "$root/VERSIONS" > "$out/VERSIONS"
python3 tools/gen-draw-reference.py
