#!/bin/bash
# The H100 run of nvpro's vk_order_independent_transparency with and without VK_LAYER_POPS_interlock
# (docs/oit-nvpro.md). Runs on the device machine from the repository root, with .gl/ (bookworm's
# libvulkan1 and GL debs) and .h100/ carried: pops, libVkLayer_pops_interlock.so and its manifest
# (library_path "./libVkLayer_pops_interlock.so"), .h100/loader/libvulkan.so.1 (a Vulkan 1.4 loader
# built from KhronosGroup/Vulkan-Loader: the sample needs one), and .h100/nvpro/ holding a build of the
# sample (vk_order_independent_transparency and vk_order_independent_transparency_files/shaders)
# whose test mode runs OIT_SEQUENCE_FRAMES frames per sequence without validation (see the doc).
# The sample runs headless (--sequencestring): SEQUENCES sequences of each anti-aliasing mode with
# the interlock algorithm, alternately without and with the layer (ROUNDS times each); it saves
# one PNG per sequence. Writes $OUT/<run>.log, $OUT/report_<k>.jsonl, $OUT/images.txt (md5 of
# every PNG) and $OUT/wall.txt.
set -u
. scripts/h100-env.sh
export OIT_SEQUENCE_FRAMES=${OIT_SEQUENCE_FRAMES:-30}
export LD_LIBRARY_PATH=$root/.h100/loader
sequences=${SEQUENCES:-6}
rounds=${ROUNDS:-2}
script=""
# aaType: 0 none, 1 MSAA 4x, 4 MSAA 8x; algorithm 5: interlock.
for aa in 0 1 4; do
  for i in $(seq 1 "$sequences"); do
    script+="SEQUENCE \"interlock_aa${aa}_$i\""$'\n'"--algorithm 5 --aaType $aa"$'\n'
  done
done
cd "$root/.h100/nvpro"
app=./vk_order_independent_transparency
run() { # name, then the command
  local name=$1
  shift
  rm -f ./*.png
  local t0 t1
  t0=$(date +%s%N)
  "$@" >"$OUT/$name.log" 2>&1
  echo "rc=$?" >>"$OUT/$name.log"
  t1=$(date +%s%N)
  echo "$name $(((t1 - t0) / 1000000)) ms" >>"$OUT/wall.txt"
  mkdir -p "/tmp/img/$name"
  mv ./*.png "/tmp/img/$name/" 2>/dev/null
}
for k in $(seq 1 "$rounds"); do
  run "off_$k" "$app" --windowSize 1600 1024 --sequencestring "$script"
  run "on_$k" "$root/.h100/pops" run --chip navi31 --report "$OUT/report_$k.jsonl" -- \
    "$app" --windowSize 1600 1024 --sequencestring "$script"
done
(cd /tmp/img && find . -name '*.png' | sort | xargs -r md5sum) >"$OUT/images.txt"
