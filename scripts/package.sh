#!/usr/bin/env bash
# Builds the Debian package target/debian/pops_<version>_amd64.deb with cargo-deb (installed
# with cargo when missing): pops and pops-oit in /usr/bin, the layer library in
# /usr/lib/x86_64-linux-gnu, its explicit manifest in /usr/share/vulkan/explicit_layer.d and its
# implicit one (enabled only by VK_POPS_INTERLOCK_ENABLE=1) in implicit_layer.d, each pointing at
# the library by a path relative to itself, and the docs in /usr/share/doc/pops.
#
#   bash scripts/package.sh            # then: sudo apt install ./target/debian/pops_*_amd64.deb
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo deb --version >/dev/null 2>&1; then
  cargo install --locked --quiet cargo-deb@3.8.0
fi
cargo build --release --locked -p pops-cli -p pops-oit -p pops-layer

# The manifests as installed: library_path relative to the manifest's folder, so that the loader
# finds the library wherever the package's tree is (installed, or extracted for a test).
assets=target/debian-assets
rm -rf "$assets"
mkdir -p "$assets/explicit_layer.d" "$assets/implicit_layer.d"
rel='"library_path": "../../../lib/x86_64-linux-gnu/libVkLayer_pops_interlock.so"'
sed -E "s#\"library_path\": *\"[^\"]*\"#$rel#" manifests/VkLayer_pops_interlock.json \
  >"$assets/explicit_layer.d/VkLayer_pops_interlock.json"
sed -E "s#\"library_path\": *\"[^\"]*\"#$rel#" manifests/VkLayer_pops_interlock_implicit.json \
  >"$assets/implicit_layer.d/VkLayer_pops_interlock_implicit.json"
target/release/pops --help >"$assets/pops-help.txt"

mkdir -p target/debian
# (cargo-deb warns that assets outside target/release are not built: they are built above.)
if ! cargo deb --no-build --locked --strip -p pops-cli --output target/debian/ \
  >target/debian/cargo-deb.log 2>&1; then
  cat target/debian/cargo-deb.log >&2
  exit 1
fi
ls target/debian/pops_*_amd64.deb
