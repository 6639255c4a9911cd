#!/usr/bin/env bash
# The hardware run: what .github/workflows/hardware.yml does on a real AMD GPU, and what the test
# command does on the amdgpu kernel-interface shim (shared/tools/amdgpu-shim) for every POPS chip —
# one script, the same steps, the same artifacts.
#
#   scripts/hardware-run.sh OUT_DIR
#
# Environment (all optional):
#   POPS          the pops binary (default target/release/pops)
#   EXPECT_LEVEL  the gfx level the GPU must have (the runner's label), checked in devices.json
#   WINSYS_TESTS  the winsys `amdgpu` test binary, run first with --include-ignored
#   DRAW_RUNS     submissions per draw variant (default 10)
#   DEVICE        the render node to run on (pops selftest --device; default: the first amdgpu one)
#   GPU_VA_BASE   place every buffer from this GPU address on, on the GPU and in the captures
#                 alike, so that their IBs are the same bytes (pops selftest --gpu-va-base)
#   SHIM, SHIM_CHIP  run the GPU steps on the shim library SHIM as chip SHIM_CHIP; each step's
#                 kernel-interface record and events go to OUT_DIR/shim/<step>/
#   POPS_OIT      pops-oit (built with the layer beside pops): the product runs too — `pops run
#                 --verify-isa -- pops-oit --matrix` in every compile mode (pipelines, dynamic
#                 blending, libraries, shader objects), images against the CPU reference where
#                 shaders run, draw records and the driver's code verified; then `pops report
#                 --defects` over the runs. A known driver defect is named in known-defects.txt
#                 and is no failure; a finding no known defect explains fails the step
#   OIT_ARGS      more pops-oit options (the test command's run on the shim, where nothing
#                 renders, gives a small scene: --width 64 --height 48 --triangles 30)
#                 With POPS_OIT also the race test (`pops-oit --race` under `pops run --verify-isa`
#                 in every compile mode: lost updates and order violations of every interlock mode
#                 against a control without interlock; a known driver defect that explains lost
#                 updates in a mode — the epilog store gap where verify_isa finds it — is named in
#                 known-defects.txt and is no failure), and, on a GPU, `pops compare` of
#                 pixel-ordered against pixel-unordered interlock (compare/: table and page)
#   RACE_ARGS     more `pops-oit --race` options (sizes; the shim run creates pipelines only)
#
# Artifacts in OUT_DIR: logs/machine.txt, logs/winsys-tests.log, devices.json, selftest.json,
# capture/ and selftest-capture.json, draw.json and draw-timing.txt, draw-capture/ and
# draw-capture.json, logs/kernel.log, with POPS_OIT oit/ (each mode's log, report and page,
# defects/ for Mesa's tracker), race/ (each mode's log and report), compare/ and
# known-defects.txt, and steps.txt: one line `STEP STATUS` per
# step. Every step
# runs whatever the earlier ones gave; the script exits with the first non-zero status.
set -uo pipefail
out=${1:?usage: hardware-run.sh OUT_DIR}
mkdir -p "$out/logs"
out=$(cd "$out" && pwd)
pops=${POPS:-target/release/pops}
runs=${DRAW_RUNS:-10}
va=()
if [ -n "${GPU_VA_BASE:-}" ]; then va=(--gpu-va-base "$GPU_VA_BASE"); fi
node=()
if [ -n "${DEVICE:-}" ]; then node=(--device "$DEVICE"); fi
: >"$out/steps.txt"
first_failure=0

# step NAME COMMAND...: runs COMMAND, records its status.
step() {
  local name=$1
  shift
  "$@"
  local status=$?
  echo "$name $status" >>"$out/steps.txt"
  if [ "$status" -ne 0 ] && [ "$first_failure" -eq 0 ]; then first_failure=$status; fi
  return 0
}

# on_gpu STEP COMMAND...: COMMAND on the GPU, or on the shim with its record in shim/STEP.
on_gpu() {
  local name=$1
  shift
  if [ -n "${SHIM:-}" ]; then
    mkdir -p "$out/shim/$name"
    LD_PRELOAD=$SHIM AMDGPU_GPU_ID=${SHIM_CHIP:?SHIM needs SHIM_CHIP} \
      AMDGPU_ORACLE_DIR="$out/shim/$name" "$@"
  else
    "$@"
  fi
}

machine() {
  {
    echo "label: ${EXPECT_LEVEL:-}"
    echo "kernel: $(uname -r)"
    echo "user: $(id)"
    if [ -n "${SHIM:-}" ]; then echo "amdgpu kernel interface: shim $SHIM as $SHIM_CHIP"; fi
    ls -l /dev/dri 2>&1 || true
    cat /sys/module/amdgpu/version 2>/dev/null || true
    for n in /sys/class/drm/renderD*/device/driver; do
      [ -e "$n" ] && echo "$n -> $(readlink -f "$n")"
    done
    ls /lib/firmware/amdgpu 2>/dev/null | head -n 400 || true
  } >"$out/logs/machine.txt" 2>&1
}

winsys_tests() {
  on_gpu winsys-tests "$WINSYS_TESTS" --include-ignored --nocapture --test-threads=1 \
    >"$out/logs/winsys-tests.log" 2>&1
}

devices() {
  on_gpu devices "$pops" devices --json >"$out/devices.json" || return
  if [ -n "${EXPECT_LEVEL:-}" ] && ! grep -q "\"gfx_level\":\"$EXPECT_LEVEL\"" "$out/devices.json"; then
    echo "this GPU is expected to be $EXPECT_LEVEL but pops found no such GPU" >&2
    return 1
  fi
}

# The GPU's family as pops devices named it.
family() {
  sed -n 's/.*"family":"\([^"]*\)".*/\1/p' "$out/devices.json" | head -n 1
}

selftest() {
  on_gpu selftest "$pops" selftest "${node[@]}" --json "${va[@]}" >"$out/selftest.json"
}

selftest_capture() {
  "$pops" selftest --capture "$out/capture" --chip "$(family)" --json "${va[@]}" \
    >"$out/selftest-capture.json"
}

draw() {
  on_gpu draw "$pops" selftest --draw "${node[@]}" --runs "$runs" --json "${va[@]}" >"$out/draw.json"
}

draw_timing() {
  on_gpu draw-timing "$pops" selftest --draw "${node[@]}" --runs "$runs" "${va[@]}" >"$out/draw-timing.txt"
}

draw_capture() {
  "$pops" selftest --draw --capture "$out/draw-capture" --chip "$(family)" --json "${va[@]}" \
    >"$out/draw-capture.json"
}

# The product: pops-oit's matrix in each compile mode under `pops run --verify-isa`, on the GPU
# (images checked) or on the shim (draw records checked against what RADV submitted; pops-oit's
# status 3 says no shader ran there), then one `pops report` over them: the driver defects found.
oit_modes() {
  mkdir -p "$out/oit"
  local shim_args=() status=0
  if [ -n "${SHIM:-}" ]; then shim_args=(--amdgpu-shim "$SHIM" --chip "$SHIM_CHIP"); fi
  for m in "" --dynamic-blend --libraries --shader-objects; do
    local name=${m#--}
    name=${name:-pipelines}
    VK_POPS_INTERLOCK_VERIFY_ISA_CACHE=off "$pops" run --verify-isa "${shim_args[@]}" \
      --report "$out/oit/$name.jsonl" -- "$POPS_OIT" --matrix $m ${OIT_ARGS:-} >"$out/oit/$name.log" 2>&1
    local rc=$?
    if [ "$rc" -ne 0 ] && { [ -z "${SHIM:-}" ] || [ "$rc" -ne 3 ]; }; then
      echo "pops-oit --matrix $m: status $rc (oit/$name.log)" >&2
      status=1
    fi
    "$pops" report --html "$out/oit/$name.html" "$out/oit/$name.jsonl" >/dev/null 2>&1 || status=1
  done
  "$pops" report --defects "$out/oit/defects" "$out"/oit/*.jsonl >"$out/oit/report.txt" 2>&1 || status=1
  grep -E "^pops report: (verify_isa on|finding |driver defects found)" "$out/oit/report.txt" \
    >"$out/known-defects.txt" || true
  if grep -q "NEW" "$out/known-defects.txt"; then
    echo "a finding no known driver defect explains (known-defects.txt)" >&2
    status=1
  fi
  return "$status"
}

# The race test in each compile mode under `pops run --verify-isa`. A mode whose interlocked
# combinations lost updates or broke order fails the step, unless verify_isa named a known driver
# defect for that mode's code (the epilog store gap): then the race is that defect, shown and
# counted in known-defects.txt. On the shim nothing runs (pops-oit's status 3).
race() {
  mkdir -p "$out/race"
  local shim_args=() status=0
  if [ -n "${SHIM:-}" ]; then shim_args=(--amdgpu-shim "$SHIM" --chip "$SHIM_CHIP"); fi
  for m in "" --dynamic-blend --libraries --shader-objects; do
    local name=${m#--}
    name=${name:-pipelines}
    local log="$out/race/$name.log"
    VK_POPS_INTERLOCK_VERIFY_ISA_CACHE=off "$pops" run --verify-isa "${shim_args[@]}" \
      --report "$out/race/$name.jsonl" -- "$POPS_OIT" --race $m ${RACE_ARGS:-} >"$log" 2>&1
    local rc=$?
    grep -E "^race: the control" "$log" | sed "s/^/race $name: /" >>"$out/known-defects.txt"
    if [ "$rc" -eq 0 ] || { [ -n "${SHIM:-}" ] && [ "$rc" -eq 3 ]; }; then continue; fi
    local known
    known=$(grep -oE "known defect [a-z0-9-]+ of [^:]*" "$log" | sort -u | head -n 1)
    if [ "$rc" -eq 1 ] && grep -q "^race .*: RACE:" "$log" && [ -n "$known" ]; then
      echo "race $name: $(grep -c '^race .*: RACE:' "$log") interlocked combination(s) lost updates or broke order: $known (not a failure of pops)" \
        >>"$out/known-defects.txt"
    else
      echo "pops-oit --race $m: status $rc (race/$name.log)" >&2
      status=1
    fi
  done
  return "$status"
}

# `pops compare` of one interlock pair on a GPU that runs shaders: pixel-ordered interlock against
# the same shaders made pixel-unordered, GPU time per pipeline and the images' hashes.
compare() {
  mkdir -p "$out/compare"
  "$pops" compare --experiment ordered-to-unordered --runs 3 --reports "$out/compare/reports" \
    --html "$out/compare/compare.html" --image "$out/compare/oit.png" -- \
    "$POPS_OIT" --algorithm interlock-pixel-ordered --frames 3 --output "$out/compare/oit.png" \
    ${OIT_ARGS:-} >"$out/compare/compare.txt" 2>&1
}

kernel_log() {
  (sudo -n dmesg 2>/dev/null || dmesg 2>/dev/null || journalctl -k -n 500 --no-pager 2>/dev/null \
    || echo "kernel log not readable") | grep -iE 'amdgpu|drm|gpu' | tail -n 300 \
    >"$out/logs/kernel.log" || true
}

step machine machine
if [ -n "${WINSYS_TESTS:-}" ]; then step winsys-tests winsys_tests; fi
step devices devices
step selftest selftest
step selftest-capture selftest_capture
step draw draw
step draw-timing draw_timing
step draw-capture draw_capture
if [ -n "${POPS_OIT:-}" ]; then
  step oit-modes oit_modes
  step race race
  # On the shim nothing runs, so there is no GPU time to compare.
  if [ -z "${SHIM:-}" ]; then step compare compare; fi
fi
step kernel-log kernel_log
cat "$out/steps.txt"
exit "$first_failure"
