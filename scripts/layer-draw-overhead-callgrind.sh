#!/usr/bin/env bash
# Load-independent overhead of VK_LAYER_POPS_interlock on command-buffer recording: instruction
# counts (valgrind --tool=callgrind) of recording one command buffer of POPS_BENCH_DRAWS draws
# (10,000) on the RADV that really records command buffers on null hardware (shared/tools/
# radv-oracle), on two devices of one process: one whose instance enables the layer, one without.
# Each device has an interlocked and a plain pipeline; the recording binds the plain one ("no
# interlocked fragment stage bound") or the interlocked one ("every draw uses one"), each in both
# orders of device creation (scripts/callgrind-common.sh). The measured
# calls run inside `record_draws_layered` / `record_draws_plain`; their inclusive instruction
# counts give the ratio. An A/A control (neither device layered) shows the method's own bias.
#
#   scripts/layer-draw-overhead-callgrind.sh
#   POPS_BENCH_DRAWS=20000 POPS_BENCH_FAMILY=vega10 scripts/layer-draw-overhead-callgrind.sh
set -euo pipefail
cd "$(dirname "$0")/.."

draws=${POPS_BENCH_DRAWS:-10000}
family=${POPS_BENCH_FAMILY:-navi31}
icd=$(bash ../shared/tools/radv-oracle/build.sh target/radv-oracle | tail -n 1)
source scripts/callgrind-common.sh

run() { # name, then extra environment
    local name=$1
    shift
    callgrind_run "$name" bench-draws draws record_draws_layered record_draws_plain -- \
        VK_DRIVER_FILES="$icd" VK_ICD_FILENAMES="$icd" RADV_FORCE_FAMILY="$family" \
        POPS_BENCH_DRAWS="$draws" VK_POPS_INTERLOCK_LOG=warn "$@"
}

echo "instructions and estimated cycles (callgrind) of recording a command buffer of $draws draws on the RADV oracle ($family), with/without the layer"
both "control (A/A), plain pipeline bound" POPS_BENCH_CONTROL=1
both "control (A/A), interlocked pipeline bound" POPS_BENCH_CONTROL=1 POPS_BENCH_INTERLOCK=1
both "layer, no interlocked fragment stage bound"
both "layer, every draw uses an interlocked fragment stage" POPS_BENCH_INTERLOCK=1
both "layer writing the JSONL report, every draw interlocked" POPS_BENCH_INTERLOCK=1 VK_POPS_INTERLOCK_REPORT="$work/report.jsonl"
