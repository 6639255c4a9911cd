# Shared by the layer's callgrind overhead scripts (sourced, not run): builds the layer and the
# scenario binary in release, and sets `bin` (pops-vk-scenario), `manifests` (the development
# layer manifest directory) and `work` (a temporary directory removed at exit).
# `callgrind_in_root ROOT` makes the runs below go inside today's Mesa's root file system.
# `callgrind_run NAME SCENARIO [RATIO ARGS…] -- ENV…` runs `pops-vk-scenario SCENARIO` under
# callgrind with a clean loader environment and ENV, and prints scripts/callgrind-ratio.py's line
# (RATIO ARGS: its UNIT LAYERED PLAIN); POPS_BENCH_KEEP=DIR keeps the callgrind files there.
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
# How valgrind is started: directly, or (callgrind_in_root ROOT) inside today's Mesa's root file
# system, which has no valgrind of its own: the host's is run there, its tools directory bound
# in (the root's runner binds the workspace and /tmp at the same paths).
run_valgrind=(valgrind)
callgrind_in_root() {
    local root=$1
    cp /usr/bin/valgrind.bin "$work/valgrind.bin"
    run_valgrind=(flock "$root/pops-run.lock" bash ../shared/tools/mesa-current/run.sh "$root"
        --bind /usr/libexec/valgrind -- env "$work/valgrind.bin")
}

callgrind_run() {
    local name=$1 scenario=$2
    shift 2
    local ratio=()
    while [ "$1" != "--" ]; do
        ratio+=("$1")
        shift
    done
    shift
    local out=$work/callgrind.$RANDOM
    # A clean loader environment, as tests/src/lib.rs Scenario does.
    env -u VK_INSTANCE_LAYERS -u VK_LOADER_LAYERS_ENABLE -u AMDGPU_ORACLE_DIR \
        MESA_SHADER_CACHE_DISABLE=true VK_LOADER_LAYERS_DISABLE='~implicit~' \
        VK_ADD_LAYER_PATH="$manifests" "$@" \
        "${run_valgrind[@]}" --tool=callgrind --cache-sim=yes --callgrind-out-file="$out" "$bin" "$scenario" \
        >"$work/stdout" 2>"$work/stderr" || {
        echo "run '$name' failed:" >&2
        tail -20 "$work/stderr" >&2
        exit 1
    }
    callgrind_annotate --inclusive=yes --threshold=100 \
        --show=Ir,I1mr,D1mr,D1mw,ILmr,DLmr,DLmw "$out" >"$out.txt" 2>/dev/null
    # POPS_BENCH_KEEP=DIR keeps each run's callgrind output and its annotation there.
    if [ -n "${POPS_BENCH_KEEP:-}" ]; then
        mkdir -p "$POPS_BENCH_KEEP" && cp "$out" "$out.txt" "$POPS_BENCH_KEEP/"
    fi
    python3 scripts/callgrind-ratio.py "$out.txt" "$work/stdout" "$name" "${ratio[@]}"
}

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
