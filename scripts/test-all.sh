#!/usr/bin/env bash
# Runs every test of pops: installs the system packages it needs (Debian 12 + bookworm-backports),
# then formatting, clippy, and the whole workspace's tests, including the loader-level ones.
# Without root, set POPS_SKIP_INSTALL=1 after installing the packages in scripts/install-deps.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${POPS_SKIP_INSTALL:-0}" != "1" ]; then
  bash scripts/install-deps.sh
fi

# The reference data beside the clone must be present in CI: its absence fails instead of skipping.
if [ "${CI:-}" = "true" ]; then export POPS_REQUIRE_REFERENCE=1; fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
mkdir -p target
cargo test --workspace --locked 2>&1 | tee target/test-all.log

# Tests that need an AMD GPU skip themselves where there is none; libtest hides their stderr, so
# run them again, visibly, and list what was skipped.
echo "== Skipped for lack of hardware (tests that run only with an amdgpu render node):"
skipped=$(cargo test --locked -p pops-winsys --test amdgpu -- --nocapture --test-threads=1 2>&1 \
            | grep -o 'SKIPPED: .*' || true)
if [ -n "$skipped" ]; then echo "$skipped" | sed 's/^/   /'; else echo "   none: every hardware test ran"; fi

# One closing line for the whole run (the sum of every test binary's "test result" line).
read -r passed failed < <(grep '^test result:' target/test-all.log \
  | sed -E 's/.* ([0-9]+) passed; ([0-9]+) failed.*/\1 \2/' \
  | awk '{p += $1; f += $2} END {print p + 0, f + 0}')
n_skipped=0
if [ -n "$skipped" ]; then n_skipped=$(printf '%s\n' "$skipped" | wc -l); fi
# libtest counts a test that skipped itself as passed.
echo "tests: $((passed - n_skipped)) passed, $failed failed, $n_skipped skipped"
