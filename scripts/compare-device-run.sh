#!/bin/bash
# `pops compare` on the H100 (docs/experiments.md): each experiment against the unmodified
# application, the layer timing the interlocked work on both sides. Runs on the device machine
# from the repository root with .gl/ and .h100/ carried (scripts/oit-nvpro-device-run.sh says
# what .h100/ holds). APPS: nvpro (vk_order_independent_transparency, interlock algorithm, one
# test sequence of NV_FRAMES frames per anti-aliasing mode) and/or oit (pops-oit, its
# pixel-ordered interlock with FRAMES frames). Writes $OUT/compare.txt (each comparison's table,
# as pops compare printed it), $OUT/compare.log (everything else the runs printed) and
# $OUT/reports.tar.gz (every run's report).
set -u
. scripts/h100-env.sh
h=$root/.h100
rm -rf /tmp/reports /tmp/img
experiments=${EXPERIMENTS:-pixel-to-sample ordered-to-unordered no-interlock}
runs=${RUNS:-3}
for app in ${APPS:-nvpro oit}; do
  case $app in
  nvpro) aas=${NV_AAS:-1 4} ;;   # the sample's aaType: 1 MSAA 4x, 4 MSAA 8x
  oit) aas=${OIT_AAS:-noaa msaa4 msaa8} ;;
  esac
  for aa in $aas; do
    for exp in $experiments; do
      name=${app}_${aa}_${exp}
      mkdir -p "/tmp/reports/$name" "/tmp/img/$name"
      if [ "$app" = nvpro ]; then
        (cd "$h/nvpro" && rm -f ./*.png &&
          LD_LIBRARY_PATH=$h/loader OIT_SEQUENCE_FRAMES=${NV_FRAMES:-30} \
            "$h/pops" compare --experiment "$exp" --runs "$runs" --chip navi31 \
            --reports "/tmp/reports/$name" \
            --image "$h/nvpro/vk_order_independent_transparency.interlock_aa${aa}.png" -- \
            ./vk_order_independent_transparency --windowSize 1600 1024 \
            --sequencestring "SEQUENCE \"interlock_aa${aa}\""$'\n'"--algorithm 5 --aaType $aa") \
          >"/tmp/$name.txt" 2>"/tmp/$name.log"
      else
        "$h/pops" compare --experiment "$exp" --runs "$runs" --chip navi31 \
          --reports "/tmp/reports/$name" --image "/tmp/img/$name/out.png" -- \
          "$h/pops-oit" --algorithm interlock-pixel-ordered --aa "$aa" --frames "${FRAMES:-30}" \
          --output "/tmp/img/$name/out.png" >"/tmp/$name.txt" 2>"/tmp/$name.log"
      fi
      rc=$?
      {
        echo "===== $name (rc=$rc)"
        sed -n '/^pops compare: /,$p' "/tmp/$name.txt"
      } >>"$OUT/compare.txt"
      { echo "===== $name"; cat "/tmp/$name.txt" "/tmp/$name.log"; } >>"$OUT/compare.log"
    done
  done
done
tar -C /tmp -czf "$OUT/reports.tar.gz" reports
