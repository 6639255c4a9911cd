#!/usr/bin/env bash
# What an application that creates an interlocked pipeline and records a command buffer with it
# at once pays with verify_isa on: `pops-vk-scenario bench-create-record` on
# RADV over the amdgpu shim (null hardware cannot record), two devices in one process — one whose
# instance enables the layer with verify_isa, one without — each corpus shader's pipeline created
# once (every pipeline new) and a command buffer recorded with it at once; what the layer adds
# to the recording (once a wait for the verdict in vkEndCommandBuffer) is shown apart. Wall time
# and the application thread's CPU time, several processes; prints each and the medians, what
# each pipeline after a device's first pays apart from what that first one pays once, and the
# thread's page faults, context switches and kernel time. The process's first compile is made
# before, uncounted, on the device without verify_isa (RADV detects the CPUs then).
#
#   scripts/create-record-bench.sh                  # the host's Mesa
#   POPS_BENCH_MESA=current scripts/create-record-bench.sh   # today's Mesa (target/mesa-current)
#   POPS_BENCH_RUNS=9 POPS_BENCH_FAMILY=vega10 scripts/create-record-bench.sh
#   POPS_BENCH_SHADER_OBJECTS=1 scripts/create-record-bench.sh # shader objects (a vertex and
#                                                              # a fragment one) instead
#   POPS_BENCH_BASELINE=layer scripts/create-record-bench.sh   # against the layer without
#                                                              # verify_isa, not without the layer
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${POPS_BENCH_RUNS:-7}
family=${POPS_BENCH_FAMILY:-navi31}
target=${CARGO_TARGET_DIR:-$PWD/target}
# Two builds: with `--bin`, a package without that binary (the layer) would be left unbuilt.
cargo build --quiet --release -p pops-layer --lib
cargo build --quiet --release -p pops-tests --bin pops-vk-scenario
shim=${POPS_AMDGPU_SHIM:-$target/amdgpu-shim/libamdgpu_oracle_drm_shim.so}
[ -f "$shim" ] || { echo "SKIPPED: the amdgpu shim is not built at $shim (scripts/test-all.sh builds it)" >&2; exit 0; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=()
debug=noibs
if [ "${POPS_BENCH_MESA:-host}" = current ]; then
    root=${POPS_MESA_CURRENT:-$target/mesa-current}
    prefix=(flock "$root/pops-run.lock" bash ../shared/tools/mesa-current/run.sh "$root" --)
    debug=noibchaining
fi
# The baseline: no layer (default), or the layer without verify_isa (`layer`: both instances
# enable it, only the first asks for verify_isa, through VK_EXT_layer_settings).
baseline=${POPS_BENCH_BASELINE:-none}
verify_env=(VK_POPS_INTERLOCK_VERIFY_ISA=1)
label="without the layer"
if [ "$baseline" = layer ]; then
    verify_env=(POPS_BENCH_BASELINE=layer)
    label="the layer without verify_isa"
fi
export POPS_BENCH_LABEL="$label"
for i in $(seq "$runs"); do
    "${prefix[@]}" env VK_ADD_LAYER_PATH="$target/release/explicit_layer.d" \
        VK_DRIVER_FILES=/usr/share/vulkan/icd.d/radeon_icd.json LD_PRELOAD="$shim" \
        AMDGPU_GPU_ID="$family" AMDGPU_ORACLE_DIR="$work/shim" RADV_DEBUG="nocache,$debug" \
        MESA_SHADER_CACHE_DISABLE=true VK_POPS_INTERLOCK_LOG=warn "${verify_env[@]}" \
        VK_POPS_INTERLOCK_VERIFY_ISA_CACHE=off POPS_BENCH_ITERS=1 \
        "$target/release/pops-vk-scenario" bench-create-record 2>/dev/null | tail -1
done | python3 -c '
import json, os, statistics, sys
label = os.environ["POPS_BENCH_LABEL"]
rows = [json.loads(l) for l in sys.stdin if l.startswith("{")]
if not rows:
    sys.exit("no run gave figures")
def ms(r, d, k): return r[d][k] / 1e6
for r in rows:
    w = ms(r, "with", "create_ns") + ms(r, "with", "record_ns")
    o = ms(r, "without", "create_ns") + ms(r, "without", "record_ns")
    wr, orec, n = ms(r, "with", "record_ns"), ms(r, "without", "record_ns"), r["pipelines"]
    print(f"{n} pipelines: with verify_isa {w:.1f} ms (recording {wr:.1f}), {label} {o:.1f} ms (recording {orec:.1f}): x{w / o:.3f}")
ratio = statistics.median((r["with"]["create_ns"] + r["with"]["record_ns"]) / (r["without"]["create_ns"] + r["without"]["record_ns"]) for r in rows)
wait = statistics.median((r["with"]["record_ns"] - r["without"]["record_ns"]) / r["pipelines"] / 1e3 for r in rows)
create = statistics.median(r["with"]["create_ns"] / r["without"]["create_ns"] for r in rows)
cpu = statistics.median(r["with"]["cpu_ns"] / r["without"]["cpu_ns"] for r in rows)
print(f"median over {len(rows)} runs, against {label}: create and record x{ratio:.3f} (wall time); CPU time of the application thread x{cpu:.3f}; creation alone x{create:.3f}; the recording (vkEndCommandBuffer included) +{wait:.0f} us per pipeline")
later = statistics.median((r["with"]["cpu_ns"] - r["with"]["first_cpu_ns"]) / (r["without"]["cpu_ns"] - r["without"]["first_cpu_ns"]) for r in rows)
first = statistics.median((r["with"]["first_cpu_ns"] - r["without"]["first_cpu_ns"]) / 1e3 for r in rows)
print(f"  the application thread CPU time of each pipeline after a device first one x{later:.3f}; the first pipeline of the device pays {first:+.0f} us more (once: the layer thread started, code run the first time; the process first compile is made before, uncounted)")
m = {(d, k): statistics.median(r[d][k] / r["pipelines"] for r in rows) for d in ("with", "without") for k in ("cpu_ns", "sys_ns", "minor_faults", "switches", "preempted")}
w, o = {k: m["with", k] for k in ("cpu_ns", "sys_ns", "minor_faults", "switches", "preempted")}, {k: m["without", k] for k in ("cpu_ns", "sys_ns", "minor_faults", "switches", "preempted")}
print("  the application thread per pipeline, with / without verify_isa (medians): CPU %.0f / %.0f us, of it in the kernel (as the kernel splits it, by its timer ticks) %.0f / %.0f us; minor page faults %.1f / %.1f; context switches %.2f / %.2f, preempted %.2f / %.2f" % (w["cpu_ns"] / 1e3, o["cpu_ns"] / 1e3, w["sys_ns"] / 1e3, o["sys_ns"] / 1e3, w["minor_faults"], o["minor_faults"], w["switches"], o["switches"], w["preempted"], o["preempted"]))
'
