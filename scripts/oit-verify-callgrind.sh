#!/usr/bin/env bash
# What verify_isa's verification costs on the layer's thread for pops-oit's own pipelines, as a
# share of their creation: `pops-oit --matrix` (a small scene; every combination's pipelines are
# created, nothing is rendered) under valgrind's callgrind with VK_LAYER_POPS_interlock and
# verify_isa (its cache off, RADV_DEBUG=nocache: every pipeline compiles). Prints the layer
# thread's verification (`diagnostics_cached`, inclusive) per verified pipeline against the
# pipeline creation hook (the driver's creation and the layer's share of it on the application's
# thread) per pipeline — every pipeline of the run, interlocked or not, counted in the latter.
# The corpus's figure is scripts/layer-overhead-callgrind.sh's.
#
#   scripts/oit-verify-callgrind.sh                       # navi31, the host's Mesa (null device)
#   POPS_BENCH_FAMILY=vega10 scripts/oit-verify-callgrind.sh
#   POPS_BENCH_MESA=current scripts/oit-verify-callgrind.sh   # today's Mesa (target/mesa-current)
#   POPS_BENCH_FAMILY=gfx1201 scripts/oit-verify-callgrind.sh # on the amdgpu shim (either Mesa)
#
# Needs valgrind and the builds scripts/test-all.sh makes (the amdgpu shim, today's Mesa root).
# About 20 s a run (two minutes under today's Mesa the first time).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "SKIPPED: valgrind not installed" >&2; exit 0; }
chip=${POPS_BENCH_FAMILY:-navi31}
mesa=${POPS_BENCH_MESA:-host}
cargo build --quiet --release --locked -p pops-layer --lib
cargo build --quiet --release --locked -p pops-oit
T=$PWD/target/release
shim=$PWD/target/amdgpu-shim/libamdgpu_oracle_drm_shim.so
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
env_common=(VK_ADD_LAYER_PATH="$T/explicit_layer.d" VK_INSTANCE_LAYERS=VK_LAYER_POPS_interlock
    VK_POPS_INTERLOCK_VERIFY_ISA=1 VK_POPS_INTERLOCK_VERIFY_ISA_CACHE=off VK_POPS_INTERLOCK_LOG=error
    VK_POPS_INTERLOCK_REPORT="$work/report.jsonl" RADV_DEBUG=nocache,noibs MESA_SHADER_CACHE_DISABLE=true
    VK_DRIVER_FILES=/usr/share/vulkan/icd.d/radeon_icd.json)
# RDNA4 on the amdgpu shim (Mesa's no-op shim has no gfx1201; RADV_FORCE_FAMILY's null device
# has no PCI ID pops knows); other chips on the null device of each Mesa.
if [ "$chip" = gfx1201 ]; then
    device=(LD_PRELOAD="$shim" AMDGPU_GPU_ID="$chip" AMDGPU_ORACLE_DIR="$work/shim")
elif [ "$mesa" = current ]; then
    device=(LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libamdgpu_noop_drm_shim.so AMDGPU_GPU_ID="$chip")
else
    device=(RADV_FORCE_FAMILY="$chip")
fi
run=(env)
valgrind=valgrind
if [ "$mesa" = current ]; then
    # Today's Mesa's root has no valgrind of its own: the host's runs there, its tools bound in.
    cp /usr/bin/valgrind.bin "$work/valgrind.bin"
    valgrind=$work/valgrind.bin
    run=(flock target/mesa-current/pops-run.lock bash ../shared/tools/mesa-current/run.sh
        target/mesa-current --bind /usr/libexec/valgrind -- /usr/bin/env)
fi
status=0
"${run[@]}" "${env_common[@]}" "${device[@]}" "$valgrind" --tool=callgrind \
    --callgrind-out-file="$work/cg" "$T/pops-oit" --matrix --width 64 --height 48 --triangles 30 \
    > "$work/log" 2>&1 || status=$?
# pops-oit's 3: every combination created, none could run its shaders here.
if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "pops-oit exited with status $status:" >&2
    tail -20 "$work/log" >&2
    exit 1
fi
callgrind_annotate --inclusive=yes --tree=calling --threshold=100 "$work/cg" > "$work/tree.txt" 2>/dev/null
python3 - "$work/tree.txt" "$work/report.jsonl" "$chip" "$mesa" <<'PY'
import json, re, sys
tree = open(sys.argv[1]).read().splitlines()
def callee(parent):
    """The inclusive instructions and call count of `parent`'s one callee line."""
    for i, line in enumerate(tree):
        if "*" in line and re.search(parent, line):
            for m in tree[i + 1 : i + 4]:
                c = re.match(r"\s*([\d,]+) .*>.*\(([\d,]+)x\)", m)
                if c:
                    return int(c.group(1).replace(",", "")), int(c.group(2).replace(",", ""))
    sys.exit(f"{parent} not found in the callgrind output")
created, pipelines = callee(r"hooks::pipelines::create \[")
verified_ir, verified = callee(r"layer_model::isa::diagnostics_cached \[")
codes = {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    if r.get("kind") == "pipeline":
        for d in r.get("diagnostics", []):
            if d["code"].startswith("isa-"):
                codes[d["code"]] = codes.get(d["code"], 0) + 1
share = verified_ir / verified / (created / pipelines) * 100
print(f"{sys.argv[3]}, {sys.argv[4]} Mesa: pops-oit --matrix: {pipelines} pipelines created, "
      f"{created / pipelines:,.0f} instructions each; {verified} verified on the layer's thread "
      f"(the rest found by key), {verified_ir / verified:,.0f} instructions each: "
      f"{share:.2f} % of a pipeline's creation; verdicts {codes}")
PY
