# Shared by the layer's callgrind overhead scripts (sourced, not run): builds the layer and the
# scenario binary in release, and sets `bin` (pops-vk-scenario), `manifests` (the development
# layer manifest directory) and `work` (a temporary directory removed at exit).
# `both NAME ENV...` runs the script's own `run NAME ENV...` twice, with the device without the
# layer created first the second time (POPS_BENCH_SWAP=1; what coming first or second in the
# process costs differs, e.g. with the heap's layout), and prints both lines and their mean.

command -v valgrind >/dev/null || { echo "SKIPPED: valgrind not installed" >&2; exit 0; }
cargo build --quiet --release -p pops-layer --lib
cargo build --quiet --release -p pops-tests --bin pops-vk-scenario
target=$(cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')
bin=$target/release/pops-vk-scenario
manifests=$target/release/explicit_layer.d
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

both() {
    local name=$1
    shift
    local a b
    a=$(run "$name (device with the layer created first)" "$@")
    b=$(run "$name (device without the layer created first)" POPS_BENCH_SWAP=1 "$@")
    printf '%s\n%s\n' "$a" "$b"
    python3 - "$name" "$a" "$b" <<'PY'
import re, sys
name, a, b = sys.argv[1:4]
r = [float(re.search(r"instruction ratio ([0-9.]+)", x).group(1)) for x in (a, b)]
unit = re.search(r"instructions per (\w+) \(", a).group(1)
d = [int(re.search(r"instructions per \w+ \(([+-][0-9,]+)\)", x).group(1).replace(",", "")) for x in (a, b)]
m = sum(r) / 2
print(f"{name}: mean instruction ratio {m:.4f} ({(m - 1) * 100:+.2f} %), {sum(d) / 2:+,.0f} instructions per {unit}")
PY
}
