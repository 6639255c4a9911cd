#!/bin/bash
# The H100 verification of docs/oit.md: pops-oit --matrix with and without the layer, interleaved,
# and 1600x1024 timings. Runs from a folder holding pops, pops-oit, libVkLayer_pops_interlock.so,
# VkLayer_pops_interlock.json (library_path "./libVkLayer_pops_interlock.so") and trixie's
# libvulkan1 .deb; writes $OUT/all.txt, which scripts/oit-overhead.py summarises.
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
sec "no chip (NVIDIA device's own: no AMD state)"; ./pops run -- ./pops-oit --algorithm interlock-sample-ordered --aa ssaa4 >> $L 2>&1; echo "rc=$?" >> $L
sec "bookworm loader 1.3.239"; LD_LIBRARY_PATH= ./pops-oit --matrix --frames 2 >> $L 2>&1; echo "rc=$?" >> $L
echo done >> $L
