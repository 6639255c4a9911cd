# Sourced by the H100 device scripts, from the repository root on the device machine: installs
# the GL libraries the NVIDIA Vulkan driver needs (.gl/, bookworm debs, carried) and points the
# loader at that driver. Sets `root` to the repository root.
root=$PWD
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
