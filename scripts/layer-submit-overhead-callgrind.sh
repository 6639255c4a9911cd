#!/usr/bin/env bash
# Load-independent overhead of VK_LAYER_POPS_interlock on queue submission: instruction counts
# (valgrind --tool=callgrind) of POPS_BENCH_SUBMITS (1,000) submissions of one command buffer,
# each waited for with a fence and the fence reset, as a frame loop does, on two devices of one
# process: one whose instance enables the layer, one without. The driver is stock RADV with its
# own amdgpu winsys on the amdgpu kernel-interface shim (shared/tools/amdgpu-shim), so every
# submission really goes through libdrm. The command buffer draws with a plain pipeline ("nothing
# interlocked": the budget is <= 1 %) or an interlocked one (its draws are then kept in flight
# until the fence says they completed). The measured calls run inside `submit_layered` /
# `submit_plain`; their inclusive instruction counts give the ratio, first of everything the
# process executes (the shim's checks of each ioctl stand in for the kernel's, which callgrind
# would not count), then with the ioctls' own instructions taken out of both sides: the layer
# against the driver's user-space work alone. An A/A control (neither device layered) shows the
# method's own bias.
#
#   scripts/layer-submit-overhead-callgrind.sh
#   POPS_BENCH_SUBMITS=5000 POPS_BENCH_CHIP=vega10 scripts/layer-submit-overhead-callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."

submits=${POPS_BENCH_SUBMITS:-1000}
chip=${POPS_BENCH_CHIP:-navi31}
bash ../shared/tools/amdgpu-shim/build.sh target/amdgpu-shim >/dev/null
shim=$PWD/target/amdgpu-shim/libamdgpu_oracle_drm_shim.so
source scripts/callgrind-common.sh

run() { # name, then extra environment
    local name=$1
    shift
    callgrind_run "$name" bench-submits submits submit_layered submit_plain -- \
        VK_DRIVER_FILES=/usr/share/vulkan/icd.d/radeon_icd.json AMDGPU_GPU_ID="$chip" \
        POPS_BENCH_SUBMITS="$submits" VK_POPS_INTERLOCK_LOG=warn LD_PRELOAD="$shim" "$@"
}


echo "instructions and estimated cycles (callgrind) of $submits submissions, each waited for, on stock RADV over the amdgpu shim ($chip), with/without the layer"
both "control (A/A)" POPS_BENCH_CONTROL=1
both "layer, nothing interlocked"
both "layer, every submission interlocked" POPS_BENCH_INTERLOCK=1
