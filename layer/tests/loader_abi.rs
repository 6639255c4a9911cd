//! The loader–layer interface the layer uses (`ffi`: `ash-layer`'s structures, since `ash` does
//! not carry `vk_layer.h`) against the Vulkan-Headers' own `vk_layer.h` (libvulkan-dev): a C
//! program compiled against the header prints each structure's size and each member's offset
//! and the interface's constants, and they must equal the Rust declarations'.

use std::mem::{offset_of, size_of};
use std::process::Command;
use VkLayer_pops_interlock::ffi;

const PROGRAM: &str = r#"
#include <stddef.h>
#include <stdio.h>
#include <vulkan/vk_layer.h>
#define S(t) printf(#t " %zu\n", sizeof(t));
#define O(t, m) printf(#t "." #m " %zu\n", offsetof(t, m));
int main(void) {
    S(VkNegotiateLayerInterface)
    O(VkNegotiateLayerInterface, loaderLayerInterfaceVersion)
    O(VkNegotiateLayerInterface, pfnGetInstanceProcAddr)
    O(VkNegotiateLayerInterface, pfnGetDeviceProcAddr)
    O(VkNegotiateLayerInterface, pfnGetPhysicalDeviceProcAddr)
    S(VkLayerInstanceLink)
    O(VkLayerInstanceLink, pfnNextGetInstanceProcAddr)
    O(VkLayerInstanceLink, pfnNextGetPhysicalDeviceProcAddr)
    S(VkLayerInstanceCreateInfo)
    O(VkLayerInstanceCreateInfo, function)
    O(VkLayerInstanceCreateInfo, u)
    S(VkLayerDeviceLink)
    O(VkLayerDeviceLink, pfnNextGetInstanceProcAddr)
    O(VkLayerDeviceLink, pfnNextGetDeviceProcAddr)
    S(VkLayerDeviceCreateInfo)
    O(VkLayerDeviceCreateInfo, function)
    O(VkLayerDeviceCreateInfo, u)
    printf("CURRENT_LOADER_LAYER_INTERFACE_VERSION %d\n", CURRENT_LOADER_LAYER_INTERFACE_VERSION);
    printf("LAYER_NEGOTIATE_INTERFACE_STRUCT %d\n", (int)LAYER_NEGOTIATE_INTERFACE_STRUCT);
    printf("VK_LAYER_LINK_INFO %d\n", (int)VK_LAYER_LINK_INFO);
    return 0;
}
"#;

/// What the header says, one `NAME VALUE` line each; `None` (a loud skip, a failure in CI)
/// without the header.
fn header_says() -> Option<String> {
    let header = std::path::Path::new("/usr/include/vulkan/vk_layer.h");
    if !header.is_file() {
        pops_testkit::missing(format!("{} (libvulkan-dev)", header.display()));
        return None;
    }
    let dir = pops_testkit::scratch("loader-abi");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("abi.c");
    let exe = dir.join("abi");
    std::fs::write(&src, PROGRAM).unwrap();
    let cc = Command::new("cc")
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .output()
        .unwrap();
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let out = Command::new(&exe).output().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The same facts of the layer's declarations.
fn ours() -> Vec<(&'static str, usize)> {
    vec![
        (
            "VkNegotiateLayerInterface",
            size_of::<ffi::NegotiateLayerInterface>(),
        ),
        (
            "VkNegotiateLayerInterface.loaderLayerInterfaceVersion",
            offset_of!(ffi::NegotiateLayerInterface, loader_layer_interface_version),
        ),
        (
            "VkNegotiateLayerInterface.pfnGetInstanceProcAddr",
            offset_of!(ffi::NegotiateLayerInterface, pfn_get_instance_proc_addr),
        ),
        (
            "VkNegotiateLayerInterface.pfnGetDeviceProcAddr",
            offset_of!(ffi::NegotiateLayerInterface, pfn_get_device_proc_addr),
        ),
        (
            "VkNegotiateLayerInterface.pfnGetPhysicalDeviceProcAddr",
            offset_of!(
                ffi::NegotiateLayerInterface,
                pfn_get_physical_device_proc_addr
            ),
        ),
        ("VkLayerInstanceLink", size_of::<ffi::LayerInstanceLink>()),
        (
            "VkLayerInstanceLink.pfnNextGetInstanceProcAddr",
            offset_of!(ffi::LayerInstanceLink, pfn_next_get_instance_proc_addr),
        ),
        (
            "VkLayerInstanceLink.pfnNextGetPhysicalDeviceProcAddr",
            offset_of!(
                ffi::LayerInstanceLink,
                pfn_next_get_physical_device_proc_addr
            ),
        ),
        (
            "VkLayerInstanceCreateInfo",
            size_of::<ffi::LayerInstanceCreateInfo>(),
        ),
        (
            "VkLayerInstanceCreateInfo.function",
            offset_of!(ffi::LayerInstanceCreateInfo, function),
        ),
        (
            "VkLayerInstanceCreateInfo.u",
            offset_of!(ffi::LayerInstanceCreateInfo, u),
        ),
        ("VkLayerDeviceLink", size_of::<ffi::LayerDeviceLink>()),
        (
            "VkLayerDeviceLink.pfnNextGetInstanceProcAddr",
            offset_of!(ffi::LayerDeviceLink, pfn_next_get_instance_proc_addr),
        ),
        (
            "VkLayerDeviceLink.pfnNextGetDeviceProcAddr",
            offset_of!(ffi::LayerDeviceLink, pfn_next_get_device_proc_addr),
        ),
        (
            "VkLayerDeviceCreateInfo",
            size_of::<ffi::LayerDeviceCreateInfo>(),
        ),
        (
            "VkLayerDeviceCreateInfo.function",
            offset_of!(ffi::LayerDeviceCreateInfo, function),
        ),
        (
            "VkLayerDeviceCreateInfo.u",
            offset_of!(ffi::LayerDeviceCreateInfo, u),
        ),
        (
            "CURRENT_LOADER_LAYER_INTERFACE_VERSION",
            ffi::CURRENT_LOADER_LAYER_INTERFACE_VERSION as usize,
        ),
        (
            "LAYER_NEGOTIATE_INTERFACE_STRUCT",
            ffi::NegotiateLayerStructType::INTERFACE_STRUCT.as_raw() as usize,
        ),
        (
            "VK_LAYER_LINK_INFO",
            ffi::LayerFunction::LAYER_LINK_INFO.as_raw() as usize,
        ),
    ]
}

#[test]
fn the_declared_loader_interface_is_the_headers() {
    let Some(header_says) = header_says() else {
        return;
    };
    let ours = ours();
    let mut wrong = Vec::new();
    for &(what, n) in &ours {
        let line = format!("{what} {n}");
        if !header_says.lines().any(|l| l == line) {
            wrong.push(format!("ours: {line}"));
        }
    }
    assert_eq!(header_says.lines().count(), ours.len(), "{header_says}");
    assert!(
        wrong.is_empty(),
        "{}\nthe header says:\n{header_says}",
        wrong.join("\n")
    );
}
