#!/bin/bash
# The layer on a real Vulkan driver (the `device` tool's NVIDIA H100/H200), from a folder holding
# the release pops, pops-oit, pops-vk-scenario and libVkLayer_pops_interlock.so, the layer's
# manifest with "library_path": "./libVkLayer_pops_interlock.so", and the .debs of libdrm2 and
# libdrm-amdgpu1 (pops links them); the loaders' .debs in ../.gl (the device tool's README says
# how to fetch them). Writes $OUT/all.txt and the reports:
# - pops-oit's matrix without and with the layer, twice, and draw-heavy 1600x1024 frames with
#   the images compared;
# - three command buffers of repeated draws recorded in alternation (pops-vk-scenario
#   draws-interleaved), whose draw records must count exactly the draws the scenario made.
set -u
cd "$(dirname "$0")"
for f in ../.gl/*.deb; do dpkg -x "$f" /; done; ldconfig
mkdir -p /tmp/vk && for d in *.deb; do dpkg -x "$d" /tmp/vk; done
export LD_LIBRARY_PATH=/tmp/vk/usr/lib/x86_64-linux-gnu:/tmp/vk/lib/x86_64-linux-gnu
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/all.txt
sec() { echo "===== $* =====" >> $L; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $L 2>&1
sec probe; ./pops-oit --probe >> $L 2>&1
for i in 1 2; do
  sec "matrix off $i"; ./pops-oit --matrix --frames 20 >> $L 2>&1; echo "rc=$?" >> $L
  sec "matrix on $i"; ./pops run --layer "$PWD" --chip navi31 --report /tmp/r_$i.jsonl -- ./pops-oit --matrix --frames 20 >> $L 2>&1; echo "rc=$?" >> $L
done
cp /tmp/r_1.jsonl $OUT/report_matrix_navi31.jsonl
sec "report"; ./pops report --html $OUT/page.html /tmp/r_1.jsonl >> $L 2>&1; echo "rc=$?" >> $L
for aa in noaa msaa4; do
  sec "heavy off $aa"; ./pops-oit --width 1600 --height 1024 --triangles 6000 --algorithm interlock-pixel-ordered --aa $aa --frames 20 --output /tmp/h0.png >> $L 2>&1; echo "rc=$?" >> $L
  sec "heavy on $aa"; ./pops run --layer "$PWD" --report /tmp/h.jsonl -- ./pops-oit --width 1600 --height 1024 --triangles 6000 --algorithm interlock-pixel-ordered --aa $aa --frames 20 --output /tmp/h1.png >> $L 2>&1; echo "rc=$?" >> $L
  sec "heavy images $aa"; cmp /tmp/h0.png /tmp/h1.png >> $L 2>&1 && echo "identical" >> $L
done
for i in 1 2 3; do
  sec "draws interleaved $i"
  rm -f /tmp/ri.jsonl
  VK_ADD_LAYER_PATH="$PWD" VK_INSTANCE_LAYERS=VK_LAYER_POPS_interlock VK_POPS_INTERLOCK_REPORT=/tmp/ri.jsonl \
    VK_POPS_INTERLOCK_CHIP=navi31 ./pops-vk-scenario draws-interleaved > $OUT/interleaved_made_$i.json 2>> $L
  echo "rc=$?" >> $L
  cp /tmp/ri.jsonl $OUT/interleaved_report_$i.jsonl
done
echo done >> $L
