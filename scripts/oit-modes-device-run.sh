#!/bin/bash
# pops-oit's matrix in every way it compiles its fragment shaders — pipelines, the sample count
# set at draw time (--dynamic), the colour blending set at draw time (--dynamic-blend), pipelines
# linked from graphics pipeline libraries (--libraries), shader objects (--shader-objects) — on a
# real Vulkan driver with interlock (the `device` tool's NVIDIA H200), each image checked against
# the CPU reference, without and with the layer. Run from a folder holding the release pops,
# pops-oit and libVkLayer_pops_interlock.so, the layer's manifest with "library_path":
# "./libVkLayer_pops_interlock.so", and the .debs of libdrm2 and libdrm-amdgpu1 (pops links them);
# the loaders' .debs in ../.gl (the device tool's README says how to fetch them). Writes
# $OUT/modes.txt and one report per mode.
set -u
cd "$(dirname "$0")"
for f in ../.gl/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/vk && for d in *.deb; do dpkg -x "$d" /tmp/vk; done
export LD_LIBRARY_PATH=/tmp/vk/usr/lib/x86_64-linux-gnu:/tmp/vk/lib/x86_64-linux-gnu
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/modes.txt
sec() { echo "===== $* =====" >> "$L"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> "$L" 2>&1
sec probe; ./pops-oit --probe >> "$L" 2>&1
for m in "" --dynamic --dynamic-blend --libraries --shader-objects; do
  name=${m#--}; name=${name:-pipelines}
  sec "$name without the layer"; ./pops-oit --matrix --frames 5 $m >> "$L" 2>&1; echo "rc=$?" >> "$L"
  sec "$name with the layer"
  ./pops run --layer "$PWD" --chip navi31 --report "/tmp/r_$name.jsonl" -- ./pops-oit --matrix --frames 5 $m >> "$L" 2>&1
  echo "rc=$?" >> "$L"
  cp "/tmp/r_$name.jsonl" "$OUT/report_$name.jsonl"
done
echo done >> "$L"
