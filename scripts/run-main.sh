#!/usr/bin/env bash
# The main job: pops-oit's whole algorithm × anti-aliasing matrix, run through `pops run
# --verify-isa` so that VK_LAYER_POPS_interlock reports every interlocked pipeline, shader object
# and draw, and verifies the machine code the driver compiled for each:
#
#   pops run --verify-isa -- pops-oit --matrix [ARGS…]
#
# Builds pops, pops-oit and the layer (release) first.
# - With a GPU that has fragment shader interlock, every combination is rendered and checked
#   against the CPU reference, in every way pops-oit compiles its fragment shaders.
# - Without one, for each Mesa — Debian 12's (25.0.7), then today's (Debian sid's, as a root file
#   system built once into target/mesa-current) — the matrix runs on stock RADV over the amdgpu
#   kernel-interface shim (../shared/tools/amdgpu-shim, built into target/amdgpu-shim) for one
#   chip of each POPS generation, RDNA4's gfx1201 with today's Mesa, in each way RADV compiles a
#   fragment shader (pipelines; colour blending set at draw time; pipelines linked from
#   libraries; shader objects): every command
#   buffer goes through libdrm and the kernel's checks, each draw record is compared with the
#   registers RADV programmed, and each interlocked object's code is verified. Shaders do not run
#   there, so lavapipe then renders the matrix: Debian 12's lavapipe has no interlock (the
#   linked-list algorithm only); today's renders every interlock combination, under the layer.
#   The job ends with one verdict per Mesa and the driver defects found, each named from
#   pops's table of known defects (docs/defects.md); a finding no entry explains fails the job.
#
# Usage: scripts/run-main.sh [pops-oit options, e.g. --frames 20 --width 1600 --height 1024]
# Environment: POPS_CHIP=<family> models that AMD chip (default: the device's own; on the shim,
# one chip per generation); POPS_MAIN_MESA="host current" (default) chooses the Mesa versions.
set -euo pipefail
cd "$(dirname "$0")/.."

# System packages (Mesa 25's RADV and lavapipe, the Vulkan loader, glslang, …): Debian 12 +
# bookworm-backports. Without root, install them once with sudo and set POPS_SKIP_INSTALL=1.
out=target/main-job
mkdir -p "$out"
source scripts/quietly.sh
if [ "${POPS_SKIP_INSTALL:-0}" != "1" ]; then
  quietly "installing the Debian packages (a few minutes the first time)" \
    "$out/install.log" bash scripts/install-deps.sh
fi

quietly "building pops, pops-oit and the layer (release; several minutes the first time)" \
  "$out/build.log" cargo build --release --locked -p pops-cli -p pops-oit -p pops-layer
T=$PWD/target/release
# pops-oit's own options, as given to this script. Nothing renders on the amdgpu shim, so there
# the scene is small unless options are given: its size changes no draw record and no code.
user_args=("$@")
shim_args=("$@")
if [ "$#" -eq 0 ]; then shim_args=(--width 64 --height 48 --triangles 30); fi
modes=("" --dynamic-blend --libraries --shader-objects)
mode_name() { echo "${1:-pipelines}" | sed 's/^--//'; }
# Verdicts are kept for this job only: nothing is written under the user's cache.
export VK_POPS_INTERLOCK_VERIFY_ISA_CACHE=off

status=0
if "$T/pops-oit" --probe 2>/dev/null | grep -q "pixel-interlock=true"; then
  chip=()
  if [ -n "${POPS_CHIP:-}" ]; then chip=(--chip "$POPS_CHIP"); fi
  for m in "${modes[@]}"; do
    echo "== pops run --verify-isa ${chip[*]} -- pops-oit --matrix $m $*"
    "$T/pops" run --verify-isa "${chip[@]}" -- "$T/pops-oit" --matrix $m "$@" || status=$?
  done
  exit "$status"
fi

shim_build=../shared/tools/amdgpu-shim/build.sh
if [ ! -f "$shim_build" ]; then
  echo "== FAILED: no interlock GPU and no amdgpu shim ($shim_build): nothing can be checked" >&2
  exit 1
fi
if [ "${POPS_SKIP_INSTALL:-0}" = "1" ]; then export AMDGPU_SHIM_SKIP_INSTALL=1; fi
quietly "no interlock GPU: building the amdgpu kernel-interface shim (about a minute the first time, then cached)" \
  target/amdgpu-shim.log bash "$shim_build" target/amdgpu-shim
shim="$PWD/target/amdgpu-shim/libamdgpu_oracle_drm_shim.so"

verdicts=()
# One Mesa: the matrix on the shim for each chip and compile mode, then lavapipe's rendering.
# $1: host|current; $2…: the command prefix that runs a program under that Mesa.
one_mesa() {
  local mesa=$1; shift
  local chips=${POPS_CHIP:-vega10 navi10 navi21 navi31 gfx1150}
  if [ "$mesa" = current ]; then chips=${POPS_CHIP:-vega10 navi10 navi21 navi31 gfx1150 gfx1201}; fi
  local version
  version=$("$@" sh -c 'dpkg-query -W -f "\${Version}" mesa-vulkan-drivers' 2>/dev/null || echo "?")
  echo
  echo "==== Mesa $version ($([ "$mesa" = host ] && echo "Debian 12" || echo "today's, Debian sid")): RADV over the amdgpu shim, every chip and compile mode, with verify_isa"
  local agree=0 runs=0
  for c in $chips; do
    for m in "${modes[@]}"; do
      local name="$mesa-$c-$(mode_name "$m")"
      local report="$out/$name.jsonl" log="$out/$name.log" rc=0
      "$@" "$T/pops" run --verify-isa --amdgpu-shim "$shim" --chip "$c" --report "$PWD/$report" \
        -- "$T/pops-oit" --matrix $m "${shim_args[@]}" > "$log" 2>&1 || rc=$?
      runs=$((runs + 1))
      local line
      line=$(grep -E "^pops run: $c: ([0-9]+ of [0-9]+ interlocked draws|NOTHING CHECKED)" "$log" || echo "pops run: $c: no draw check (see $log)")
      echo "  $c, $(mode_name "$m"): ${line#pops run: $c: }" | cut -c1-160
      grep -E "^pops run: (verify_isa on|finding )" "$log" | sed 's/^pops run: /      /' | cut -c1-220 || true
      # 3: pops-oit's verdict when every combination was submitted and none could run shaders.
      if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
        echo "== $c $(mode_name "$m"): pops run exited with status $rc (full output: $log)" >&2
        status=1
      elif grep -q "RADV programmed every POPS register field" <<<"$line"; then
        agree=$((agree + 1))
      else
        status=1
      fi
      "$T/pops" report --html "$out/$name.html" "$report" > "$out/$name.page.log" 2>&1 \
        || { echo "== $name: pops report --html failed (see $out/$name.page.log)" >&2; status=1; }
    done
  done
  verdicts+=("Mesa $version: $agree of $runs runs (chips $chips × pipelines, dynamic blending, libraries, shader objects): every draw record as RADV programmed it")
  # Code verdicts over every run of this Mesa, and the driver defects found in them.
  local code
  code=$("$T/pops" report "$out/$mesa"-*.jsonl 2>/dev/null | grep -E "^pops report: (verify_isa on|driver defects found)" || true)
  local verified objects
  verified=$(grep -oE ": [0-9]+ verified clean" <<<"$code" | awk '{n += $2} END {print n + 0}')
  objects=$(grep -oE ": [0-9]+ interlocked pipeline" <<<"$code" | awk '{n += $2} END {print n + 0}')
  verdicts+=("Mesa $version: verify_isa: ${verified:-0} of ${objects:-0} interlocked objects' code verified clean; $(grep -E "^pops report: driver defects found" <<<"$code" | sed 's/^pops report: //')")
  if grep -q "not verified" <<<"$code"; then
    verdicts+=("Mesa $version: some code could not be verified: see $out/$mesa-*.log")
    status=1
  fi

  echo
  local lvp=/usr/share/vulkan/icd.d/lvp_icd.json
  echo "== lavapipe of Mesa $version renders the matrix under the layer, checked against the CPU reference"
  local rendered=""
  if [ "$mesa" = host ]; then
    # Debian 12's lavapipe has no interlock: the layer would have nothing to report.
    VK_DRIVER_FILES="$lvp" "$T/pops-oit" --matrix "${user_args[@]}" > "$out/$mesa-lavapipe.log" 2>&1 || true
  else
    "$@" env VK_DRIVER_FILES="$lvp" "$T/pops" run --report "$PWD/$out/$mesa-lavapipe.jsonl" \
      -- "$T/pops-oit" --matrix "${user_args[@]}" > "$out/$mesa-lavapipe.log" 2>&1 || true
  fi
  rendered=$(grep -E '^summary: ' "$out/$mesa-lavapipe.log" | tail -n 1 || true)
  if [ -z "$rendered" ]; then
    echo "== lavapipe did not run the matrix (see $out/$mesa-lavapipe.log)" >&2
    verdicts+=("Mesa $version: lavapipe: the matrix did not run (see $out/$mesa-lavapipe.log)")
    status=1
    return
  fi
  grep -E "^(combination|[a-z_0-9-]+ +(PASS|FAIL|ERROR|UNSUPPORTED))" "$out/$mesa-lavapipe.log" | sed 's/^/  /' | cut -c1-110
  local pass fail err unsup
  read -r pass fail err unsup <<<"$(sed -E 's/^summary: ([0-9]+) pass, ([0-9]+) fail, ([0-9]+) error, ([0-9]+) unsupported.*/\1 \2 \3 \4/' <<<"$rendered")"
  local what="$pass rendered image(s) match the CPU reference, $fail differ, $err failed to run"
  if [ "$unsup" != 0 ]; then
    what="$what; $unsup combination(s) need fragment shader interlock or 8x MSAA, which this lavapipe lacks"
  else
    what="$what: every interlock combination rendered"
  fi
  verdicts+=("Mesa $version: lavapipe: $what")
  if [ "$fail" != 0 ] || [ "$err" != 0 ]; then status=1; fi
}

for mesa in ${POPS_MAIN_MESA:-host current}; do
  case $mesa in
    host) one_mesa host env ;;
    current)
      root=../shared/tools/mesa-current
      if [ ! -f "$root/build.sh" ]; then
        echo "== today's Mesa: $root is missing: not run" >&2
        verdicts+=("today's Mesa: not run ($root is missing)")
        status=1
        continue
      fi
      quietly "building today's Mesa root from Debian sid (about 5 minutes the first time, then cached)" \
        target/mesa-current.log bash "$root/build.sh" target/mesa-current
      # Each run inside the root holds its lock: the root's runner unmounts /tmp and the
      # workspace when its command ends, under any other run still inside (pops's tests lock
      # the same file).
      one_mesa current flock target/mesa-current/pops-run.lock bash "$root/run.sh" target/mesa-current --
      ;;
    *) echo "POPS_MAIN_MESA: '$mesa' is not host or current" >&2; exit 2 ;;
  esac
done

# Every driver defect of the whole job, each once: known ones named from the table, new ones
# failing the job. The reports for Mesa's tracker go to target/main-job/defects.
echo
echo "== Verdict"
for v in "${verdicts[@]}"; do
  echo "   $v"
done
found=$("$T/pops" report --defects "$out/defects" "$out"/*.jsonl 2>/dev/null \
  | grep -E "^pops report: driver defects found" | sed 's/^pops report: //' || true)
echo "   (each run's page: $out/NAME.html; reports for Mesa's issue tracker: $out/defects/)"
if grep -q "NEW " <<<"$found"; then
  echo "== FAILED: a finding no known driver defect explains: $found"
  exit 1
fi
if [ "$status" -ne 0 ]; then
  echo "== FAILED: see the lines above"
elif grep -q "none in the code" <<<"$found"; then
  echo "== OK: every check ran, and the driver programmed and compiled everything as pops derives it"
else
  echo "== Every check ran; pops and the driver differ only by known driver defects (the job passes):"
  echo "   ${found^}"
fi
exit "$status"
