#!/bin/bash
# The interlock experiments on the H100 (docs/experiments.md): pops-oit's matrix and nvpro's
# vk_order_independent_transparency (interlock algorithm at MSAA 4x and 8x, pixel-rate shading),
# each without an experiment and with each of EXPERIMENTS, through `pops run` (the layer's
# `experiment` setting). Runs on the device machine from the repository root with .gl/ and .h100/
# carried (see scripts/oit-nvpro-device-run.sh for what .h100/ holds). Writes $OUT/oit.txt (the
# matrix per experiment: PASS/FAIL against the CPU reference and GPU frame times), $OUT/nvpro.txt
# (whole-run times), the reports, and $OUT/images.txt (md5 of every PNG).
set -u
. scripts/h100-env.sh
h=$root/.h100
experiments=${EXPERIMENTS:-none pixel-to-sample ordered-to-unordered no-interlock}
setting() { [ "$1" = none ] && echo "" || echo "$1"; }
for exp in $experiments; do
  mkdir -p "/tmp/img/oit-$exp"
  echo "===== $exp =====" >>"$OUT/oit.txt"
  VK_POPS_INTERLOCK_EXPERIMENT=$(setting "$exp") "$h/pops" run --chip navi31 \
    --report "$OUT/oit_$exp.jsonl" -- "$h/pops-oit" --matrix --frames "${FRAMES:-30}" \
    --output "/tmp/img/oit-$exp" >>"$OUT/oit.txt" 2>&1
  echo "rc=$?" >>"$OUT/oit.txt"
done
script=""
for aa in 1 4; do
  for i in 1 2 3; do
    script+="SEQUENCE \"interlock_aa${aa}_$i\""$'\n'"--algorithm 5 --aaType $aa"$'\n'
  done
done
cd "$h/nvpro"
export LD_LIBRARY_PATH=$h/loader OIT_SEQUENCE_FRAMES=${NV_FRAMES:-100}
for exp in $experiments; do
  rm -f ./*.png
  t0=$(date +%s%N)
  VK_POPS_INTERLOCK_EXPERIMENT=$(setting "$exp") "$h/pops" run --chip navi31 \
    --report "$OUT/nvpro_$exp.jsonl" -- ./vk_order_independent_transparency \
    --windowSize 1600 1024 --sequencestring "$script" >"$OUT/nvpro_$exp.log" 2>&1
  rc=$?
  t1=$(date +%s%N)
  echo "$exp $(((t1 - t0) / 1000000)) ms rc=$rc" >>"$OUT/nvpro.txt"
  mkdir -p "/tmp/img/nv-$exp"
  mv ./*.png "/tmp/img/nv-$exp/" 2>/dev/null
done
(cd /tmp/img && find . -name '*.png' | sort | xargs -r md5sum) >"$OUT/images.txt"
