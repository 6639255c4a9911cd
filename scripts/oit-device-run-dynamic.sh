#!/bin/bash
# The H100 run of the layer's draw tracking (docs/oit.md, "Draw records on a real GPU"): pops-oit's
# matrix with the rasterization sample count set at draw time (--dynamic), with shader objects
# (--shader-objects: every state set at draw time) and with it fixed in the pipelines, each without
# and with the layer (MODES, default all three); the PNGs of every combination are compared between
# the runs, and the layer's reports (with draw records) are kept. Runs from a folder holding pops,
# pops-oit, libVkLayer_pops_interlock.so and VkLayer_pops_interlock.json (library_path
# "./libVkLayer_pops_interlock.so"), on a machine where the Vulkan loader and libglvnd are
# installed (on the device machine: bookworm's libvulkan1, libglvnd0, libglx0, libegl1, libgl1,
# libgles2 and libopengl0 .debs unpacked into / first); writes $OUT/all.txt, the reports and
# $OUT/images.txt (md5 of every PNG).
set -u
cd "$(dirname "$0")"
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
L=$OUT/all.txt
sec() { echo "===== $* =====" >> $L; }
sec probe; ./pops-oit --probe >> $L 2>&1
for mode in ${MODES:-static dynamic shader-objects}; do
  flag=""; [ $mode != static ] && flag="--$mode"
  mkdir -p /tmp/img/$mode-off /tmp/img/$mode-on
  sec "matrix $mode off"
  ./pops-oit --matrix --frames 20 $flag --output /tmp/img/$mode-off >> $L 2>&1; echo "rc=$?" >> $L
  sec "matrix $mode on"
  ./pops run --chip navi31 --report $OUT/report_$mode.jsonl -- \
    ./pops-oit --matrix --frames 20 $flag --output /tmp/img/$mode-on >> $L 2>&1; echo "rc=$?" >> $L
done
(cd /tmp/img && find . -name '*.png' | sort | xargs md5sum) > $OUT/images.txt
echo done >> $L
