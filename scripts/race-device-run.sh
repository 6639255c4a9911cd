#!/bin/bash
# The race test (`pops-oit --race`) on a real Vulkan driver with interlock (the `device` tool's
# NVIDIA H200), in every way pops-oit compiles its fragment shaders — pipelines, --dynamic,
# --dynamic-blend, --libraries, --shader-objects — without and with the layer. Run from a
# folder holding the release pops, pops-oit and libVkLayer_pops_interlock.so, the layer's manifest
# with "library_path": "./libVkLayer_pops_interlock.so", and the .debs of libdrm2 and
# libdrm-amdgpu1 (pops links them); the loaders' .debs in ../.gl (the device tool's README says
# how to fetch them). RACE_ARGS adds pops-oit arguments (sizes). Writes $OUT/race.txt.
set -u
cd "$(dirname "$0")"
for f in ../.gl/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/vk && for d in *.deb; do dpkg -x "$d" /tmp/vk; done
export LD_LIBRARY_PATH=/tmp/vk/usr/lib/x86_64-linux-gnu:/tmp/vk/lib/x86_64-linux-gnu
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/race.txt
sec() { echo "===== $* =====" >> "$L"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$L" 2>&1
for m in "" --dynamic --dynamic-blend --libraries --shader-objects; do
  name=${m#--}; name=${name:-pipelines}
  sec "$name without the layer: ./pops-oit --race ${RACE_ARGS:-} $m"
  ./pops-oit --race ${RACE_ARGS:-} $m >> "$L" 2>&1; echo "rc=$?" >> "$L"
  sec "$name with the layer: ./pops run --layer . -- ./pops-oit --race ${RACE_ARGS:-} $m"
  ./pops run --layer "$PWD" --chip navi31 --report "/tmp/race_$name.jsonl" -- ./pops-oit --race ${RACE_ARGS:-} $m >> "$L" 2>&1
  echo "rc=$?" >> "$L"
done
echo done >> "$L"
