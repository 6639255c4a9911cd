#!/usr/bin/env bash
# Load-independent overhead of VK_LAYER_POPS_interlock on pipeline creation:
# instruction counts (valgrind --tool=callgrind) instead of time, so other processes on the
# machine do not move the figure.
#
# One process of `pops-vk-scenario bench` creates two devices on RADV null hardware — one whose
# instance enables the layer, one without — and builds the interlocked shader corpus on both,
# alternating device and order pipeline by pipeline (RADV_DEBUG=nocache: every pipeline compiles).
# The measured calls (vkCreateShaderModule + vkCreateGraphicsPipelines) of each device run inside
# their own never-inlined function, `bench_create_layered` / `bench_create_plain`; their inclusive
# instruction counts (Ir) give the ratio. An A/A control (neither device layered) shows the
# method's own bias.
#
#   scripts/layer-overhead-callgrind.sh            # control, no report, report, verify_isa
#   POPS_BENCH_ITERS=10 POPS_BENCH_FAMILY=vega10 scripts/layer-overhead-callgrind.sh
#   POPS_BENCH_MESA=current scripts/layer-overhead-callgrind.sh   # today's Mesa
#   POPS_BENCH_MESA=current POPS_BENCH_SHIM=oracle POPS_BENCH_FAMILY=gfx1201 \
#     scripts/layer-overhead-callgrind.sh                           # RDNA4, on the amdgpu shim
#
# Needs valgrind (callgrind, callgrind_annotate) and Mesa's RADV. Takes a few minutes (callgrind
# runs code ~50x slower). `perf stat -e instructions:u` would do the same job faster, but hardware
# counters are not available in the VMs this was written on.
set -euo pipefail
cd "$(dirname "$0")/.."

iters=${POPS_BENCH_ITERS:-5}
family=${POPS_BENCH_FAMILY:-navi31}
icd=/usr/share/vulkan/icd.d/radeon_icd.json
[ -f "$icd" ] || { echo "SKIPPED: $icd not installed" >&2; exit 0; }
source scripts/callgrind-common.sh
# POPS_BENCH_MESA=current: today's Mesa (target/mesa-current, as the test command builds it, or
# POPS_MESA_CURRENT) on Mesa's no-op drm-shim of the chip, as Mesa 26 has no null hardware of its
# own; else the host's RADV null hardware.
mesa="the host's Mesa, null hardware"
null_device=(RADV_FORCE_FAMILY="$family")
if [ "${POPS_BENCH_MESA:-host}" = current ]; then
    root=${POPS_MESA_CURRENT:-$target/mesa-current}
    [ -f "$root/VERSIONS" ] || { echo "SKIPPED: today's Mesa is not built at $root (scripts/test-all.sh builds it)" >&2; exit 0; }
    callgrind_in_root "$root"
    mesa="today's Mesa, $(grep -m1 "^mesa-vulkan-drivers " "$root/VERSIONS" || echo "$root")"
    null_device=(LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libamdgpu_noop_drm_shim.so AMDGPU_GPU_ID="$family")
fi
# POPS_BENCH_SHIM=oracle: the amdgpu kernel-interface shim of the test tools instead (as the test
# command builds it), which has chips Mesa's no-op shim lacks (gfx1201).
if [ "${POPS_BENCH_SHIM:-}" = oracle ]; then
    shim=${POPS_AMDGPU_SHIM:-$target/amdgpu-shim/libamdgpu_oracle_drm_shim.so}
    [ -f "$shim" ] || { echo "SKIPPED: the amdgpu shim is not built at $shim (scripts/test-all.sh builds it)" >&2; exit 0; }
    mesa="$mesa, the amdgpu shim"
    null_device=(LD_PRELOAD="$shim" AMDGPU_GPU_ID="$family" AMDGPU_ORACLE_DIR="$work/shim")
fi

run() { # name, then extra environment
    local name=$1
    shift
    callgrind_run "$name" bench -- \
        VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd "${null_device[@]}" \
        RADV_DEBUG=nocache POPS_BENCH_ITERS="$iters" "$@"
}

echo "instructions and estimated cycles (callgrind, simulated caches) of vkCreateShaderModule + vkCreateGraphicsPipelines on RADV without a GPU ($mesa, $family, RADV_DEBUG=nocache), corpus x $iters per device, with/without alternating per pipeline"
# POPS_BENCH_ONLY=verify: only the verify_isa run whose verdicts are kept for the process (the
# verification's cost on the layer's thread, in a few minutes rather than all six runs).
only=${POPS_BENCH_ONLY:-all}
if [ "$only" = all ]; then
    run "control (A/A: neither device has the layer)" POPS_BENCH_CONTROL=1
    run "layer logging at warn" VK_POPS_INTERLOCK_LOG=warn
    run "layer writing the JSONL report" VK_POPS_INTERLOCK_LOG=warn VK_POPS_INTERLOCK_REPORT="$work/report.jsonl"
fi
# verify_isa: what the application's call costs more (the driver keeping the pipeline's
# binaries, the layer reading the fragment shader's from them), and apart from it the
# verification itself (diagnostics_cached), which runs on the layer's own verifier thread.
# Verdicts are kept by the driver's pipeline key: within the run (the corpus repeats), and in
# the verify_isa_cache directory between runs — measured without it, with it empty (an
# application's first run) and with it filled by that run (every later run).
verify_isa() { # name, then the verify_isa_cache value
    callgrind_run "layer verifying the driver's code of each interlocked pipeline (verify_isa, $1)" \
        bench pipelines bench_create_layered bench_create_plain diagnostics_cached -- \
        VK_DRIVER_FILES=$icd VK_ICD_FILENAMES=$icd "${null_device[@]}" \
        RADV_DEBUG=nocache POPS_BENCH_ITERS="$iters" VK_POPS_INTERLOCK_LOG=warn \
        VK_POPS_INTERLOCK_VERIFY_ISA=1 VK_POPS_INTERLOCK_VERIFY_ISA_CACHE="$2"
}
verify_isa "verdicts kept for the process only" off
if [ "$only" = all ]; then
    verify_isa "first run, verdicts kept in an empty directory" "$work/verdicts"
    verify_isa "a later run, the verdicts of the first kept" "$work/verdicts"
fi
