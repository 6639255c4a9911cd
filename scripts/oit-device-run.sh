#!/bin/bash
# The H100 verification of docs/oit.md: pops-oit --matrix with and without the layer, interleaved,
# and 1600x1024 timings. Runs from a folder holding pops, pops-oit, libVkLayer_pops_interlock.so,
# VkLayer_pops_interlock.json (library_path "./libVkLayer_pops_interlock.so") and trixie's
# libvulkan1 .deb; writes $OUT/all.txt, which scripts/oit-overhead.py summarises, and the
# layer's reports.
set -u
cd "$(dirname "$0")"
mkdir -p /tmp/vk && dpkg -x libvulkan1_1.4.309*.deb /tmp/vk
export LD_LIBRARY_PATH=/tmp/vk/usr/lib/x86_64-linux-gnu
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/all.txt
sec() { echo "===== $* =====" >> $L; }
sec probe; ./pops-oit --probe >> $L 2>&1
for i in 1 2 3; do
  sec "matrix off $i"; ./pops-oit --matrix --frames 20 >> $L 2>&1; echo "rc=$?" >> $L
  sec "matrix on $i"; ./pops run --chip navi31 --report /tmp/r_$i.jsonl -- ./pops-oit --matrix --frames 20 >> $L 2>&1; echo "rc=$?" >> $L
done
cp /tmp/r_1.jsonl $OUT/report_matrix_navi31.jsonl
for i in 1 2 3; do
  for aa in noaa msaa4; do
    sec "perf off $aa $i"; ./pops-oit --width 1600 --height 1024 --algorithm interlock-pixel-ordered --aa $aa --frames 50 --output /tmp/p.png >> $L 2>&1; echo "rc=$?" >> $L
    sec "perf on $aa $i"; ./pops run --report /tmp/p_$i.jsonl -- ./pops-oit --width 1600 --height 1024 --algorithm interlock-pixel-ordered --aa $aa --frames 50 --output /tmp/p.png >> $L 2>&1; echo "rc=$?" >> $L
  done
done
for aa in noaa msaa4; do
  sec "heavy off $aa"; ./pops-oit --width 1600 --height 1024 --triangles 6000 --algorithm interlock-pixel-ordered --aa $aa --frames 20 --output $OUT/heavy_$aa.png >> $L 2>&1; echo "rc=$?" >> $L
  sec "heavy on $aa"; ./pops run --report /tmp/h.jsonl -- ./pops-oit --width 1600 --height 1024 --triangles 6000 --algorithm interlock-pixel-ordered --aa $aa --frames 20 --output /tmp/h.png >> $L 2>&1; echo "rc=$?" >> $L
done
sec "matrix vega10"; ./pops run --chip vega10 --report $OUT/report_matrix_vega10.jsonl -- ./pops-oit --matrix --frames 2 >> $L 2>&1; echo "rc=$?" >> $L
sec "matrix no chip (NVIDIA device: no AMD state)"; ./pops run -- ./pops-oit --matrix --frames 2 >> $L 2>&1; echo "rc=$?" >> $L
sec "bookworm loader 1.3.239"; LD_LIBRARY_PATH= ./pops-oit --matrix --frames 2 >> $L 2>&1; echo "rc=$?" >> $L
echo done >> $L
