#!/bin/bash
# A shorter H100 verification than scripts/oit-device-run.sh (run 5 of docs/oit.md): the matrix
# without and with the layer, and 1600x1024 timings. Run from the folder holding the binaries, the
# manifest and trixie's libvulkan1 .deb, as oit-device-run.sh describes.
set -u
cd "$(dirname "$0")"
mkdir -p /tmp/vk && dpkg -x libvulkan1_1.4.309*.deb /tmp/vk
export LD_LIBRARY_PATH=/tmp/vk/usr/lib/x86_64-linux-gnu
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/all.txt
sec() { echo "===== $* =====" >> $L; }
sec version; cat LAYER_VERSION >> $L
sec probe; ./pops-oit --probe >> $L 2>&1
for i in 1 2; do
  sec "matrix off $i"; ./pops-oit --matrix --frames 20 >> $L 2>&1; echo "rc=$?" >> $L
  sec "matrix on $i"; ./pops run --chip navi31 --report /tmp/r_$i.jsonl -- ./pops-oit --matrix --frames 20 >> $L 2>&1; echo "rc=$?" >> $L
done
cp /tmp/r_1.jsonl $OUT/report_matrix_navi31.jsonl
for aa in noaa msaa4; do
  sec "perf off $aa 1"; ./pops-oit --width 1600 --height 1024 --algorithm interlock-pixel-ordered --aa $aa --frames 50 --output /tmp/p.png >> $L 2>&1; echo "rc=$?" >> $L
  sec "perf on $aa 1"; ./pops run --report /tmp/p.jsonl -- ./pops-oit --width 1600 --height 1024 --algorithm interlock-pixel-ordered --aa $aa --frames 50 --output /tmp/p.png >> $L 2>&1; echo "rc=$?" >> $L
done
sec "matrix vega10"; ./pops run --chip vega10 --report $OUT/report_matrix_vega10.jsonl -- ./pops-oit --matrix --frames 2 >> $L 2>&1; echo "rc=$?" >> $L
echo done >> $L
