#!/usr/bin/env bash
# How often an OpenGL application on Zink dies at exit under `pops run --verify-isa`: piglit's
# shader_runner (Zink compiles pipelines on threads of its own and piglit exits without waiting
# for them) on RADV over the amdgpu shim, the host's Mesa, as gfx1150 (where Mesa 25.0.7's LLVM 15
# does not know the chip and warns when RADV prints code). Counts the runs killed by a signal or
# aborted ("pure virtual method called"). Built pops and layer from target/release by default.
#
#   scripts/zink-exit-race.sh [RUNS] [SHADER_TEST] [ZINK_DEBUG]
#   scripts/zink-exit-race.sh 100 arb-pixel-ordered noshobj     # the default
#   POPS_BIN=/other/build scripts/zink-exit-race.sh              # another build (its pops and layer)
#   POPS_CHIP=navi21 scripts/zink-exit-race.sh 100 arb-pixel-ordered ""   # another chip, Zink's default
#
# A race at exit may show only under load (the layer thread starting while Zink unloaded the
# loader did: 2 of 600 runs): run two at once, beside two busy loops (`sh -c 'while :; do :; done'`),
# and with POPS_BIN=target/debug, the build the test command runs.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-100}
case_name=${2:-arb-pixel-ordered}
mode=${3-noshobj}
bin=${POPS_BIN:-$PWD/target/release}
shim=${POPS_AMDGPU_SHIM:-$PWD/target/amdgpu-shim/libamdgpu_oracle_drm_shim.so}
runner=/usr/lib/x86_64-linux-gnu/piglit/bin/shader_runner
[ -x "$runner" ] || { echo "piglit is not installed (scripts/install-deps.sh installs it)" >&2; exit 2; }
[ -f "$shim" ] || { echo "the amdgpu shim is not built at $shim (scripts/test-all.sh builds it)" >&2; exit 2; }
[ -x "$bin/pops" ] || { echo "no pops in $bin (cargo build --release -p pops-cli -p pops-layer)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
died=0
for i in $(seq 1 "$runs"); do
  rc=0
  env -u RADV_FORCE_FAMILY -u VK_ICD_FILENAMES PIGLIT_PLATFORM=surfaceless_egl \
    MESA_LOADER_DRIVER_OVERRIDE=zink MESA_SHADER_CACHE_DISABLE=true ZINK_DEBUG="$mode" \
    VK_POPS_INTERLOCK_VERIFY_ISA_CACHE=off VK_LOADER_LAYERS_DISABLE='~implicit~' \
    "$bin/pops" run --amdgpu-shim "$shim" --chip "${POPS_CHIP:-gfx1150}" --verify-isa --report "$work/r.jsonl" -- \
    "$runner" "tests/shader_tests/$case_name.shader_test" -auto -fbo > "$work/out" 2>&1 || rc=$?
  # pops run names a program killed by a signal; an abort is also a status of 134.
  if [ "$rc" -ge 128 ] || grep -q -e 'pure virtual method called' -e 'killed by signal' -e 'crashed' "$work/out"; then
    died=$((died + 1))
    echo "run $i: status $rc: $(grep -m1 -e 'pure virtual' -e 'signal' -e 'crashed' "$work/out" || true)"
  fi
  rm -f "$work/r.jsonl"
done
echo "$case_name (ZINK_DEBUG=$mode) under $bin/pops run --verify-isa: $died of $runs runs died"
