//! Which AMD family a device is, so that the report can carry that chip's register state.

use pm4::Family;

/// AMD's PCI vendor ID.
pub const AMD_VENDOR_ID: u32 = 0x1002;

/// How the chip of a device was chosen (reported in the device summary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChipSource {
    /// The `chip` setting.
    Setting,
    /// RADV's device name (`AMD Radeon RX 7900 XTX (RADV NAVI31)`, `AMD RADV NAVI31`).
    DeviceName,
    /// VK_EXT_pci_bus_info matched to an amdgpu render node (feature `amdgpu-probe`).
    RenderNode,
    /// Not an AMD device, or the family could not be told.
    None,
}

/// The family named in a RADV device name: the word after `RADV `, as Mesa's
/// `ac_get_family_name` spells it (`NAVI31`, `VEGA10`, `RAPHAEL_MENDOCINO`, `GFX1150`).
pub fn family_from_device_name(name: &str) -> Option<Family> {
    let idx = name.find("RADV ")?;
    let rest = &name[idx + 5..];
    let word: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    Family::parse(&word).ok()
}

/// Chooses the chip: an explicit setting wins; else RADV's device name on AMD devices; else
/// `by_pci` (the device's PCI address matched to an amdgpu render node), asked only then.
/// A setting that names no graphics chip is an error for the caller to log once.
pub fn choose(
    setting: Option<&str>,
    vendor_id: u32,
    device_name: &str,
    by_pci: &dyn Fn() -> Option<Family>,
) -> (Option<Family>, ChipSource, Option<String>) {
    if let Some(s) = setting {
        return match Family::parse_chip_or_level(s) {
            Ok(f) => (Some(f), ChipSource::Setting, None),
            Err(e) => {
                let (f, src) = from_device(vendor_id, device_name, by_pci);
                (f, src, Some(e.to_string()))
            }
        };
    }
    let (f, src) = from_device(vendor_id, device_name, by_pci);
    (f, src, None)
}

fn from_device(
    vendor_id: u32,
    device_name: &str,
    by_pci: &dyn Fn() -> Option<Family>,
) -> (Option<Family>, ChipSource) {
    if vendor_id != AMD_VENDOR_ID {
        return (None, ChipSource::None);
    }
    if let Some(f) = family_from_device_name(device_name) {
        return (Some(f), ChipSource::DeviceName);
    }
    match by_pci() {
        Some(f) => (Some(f), ChipSource::RenderNode),
        None => (None, ChipSource::None),
    }
}

/// The PCI address as the kernel and libdrm spell it (`0000:03:00.0`).
pub fn pci_address(domain: u32, bus: u32, device: u32, function: u32) -> String {
    format!("{domain:04x}:{bus:02x}:{device:02x}.{function:x}")
}

/// The family of the amdgpu render node at PCI address `pci`, opened through `winsys`. Built only
/// with the `amdgpu-probe` feature, which links libdrm_amdgpu into the layer (without it the
/// layer loads on machines that lack libdrm-amdgpu1).
#[cfg(feature = "amdgpu-probe")]
pub fn family_from_render_node(pci: &str) -> Option<Family> {
    let dir = std::path::Path::new(winsys::identify::DEFAULT_DRI_DIR);
    let nodes = winsys::amdgpu::AmdgpuWinsys::probe_all(dir).ok()?;
    nodes.into_iter().find_map(|n| match n.outcome {
        Ok(info) if info.pci_bus.as_deref() == Some(pci) => Some(info.family),
        _ => None,
    })
}

/// Without the `amdgpu-probe` feature no render node is opened.
#[cfg(not(feature = "amdgpu-probe"))]
pub fn family_from_render_node(_pci: &str) -> Option<Family> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radv_names() {
        assert_eq!(
            family_from_device_name("AMD Radeon RX 7900 XTX (RADV NAVI31)"),
            Some(Family::Navi31)
        );
        assert_eq!(
            family_from_device_name("AMD RADV VEGA10"),
            Some(Family::Vega10)
        );
        assert_eq!(
            family_from_device_name("AMD Radeon Graphics (RADV RAPHAEL_MENDOCINO)"),
            Some(Family::RaphaelMendocino)
        );
        assert_eq!(
            family_from_device_name("llvmpipe (LLVM 19.1.7, 256 bits)"),
            None
        );
        assert_eq!(family_from_device_name("AMD RADV"), None);
    }

    #[test]
    fn setting_wins_and_non_amd_gets_none() {
        let none = || None;
        assert_eq!(
            choose(Some("navi21"), 0x10de, "NVIDIA GeForce", &none).0,
            Some(Family::Navi21)
        );
        assert_eq!(choose(None, 0x10de, "X (RADV NAVI31)", &none).0, None);
        assert_eq!(
            choose(None, AMD_VENDOR_ID, "AMD RADV RAVEN", &none).0,
            Some(Family::Raven)
        );
        let (f, src, err) = choose(Some("mi300"), AMD_VENDOR_ID, "AMD RADV NAVI10", &none);
        assert_eq!((f, src), (Some(Family::Navi10), ChipSource::DeviceName));
        assert!(err.is_some());
    }

    #[test]
    fn pci_fallback_only_for_amd_devices_without_a_radv_name() {
        let asked = std::cell::Cell::new(0);
        let probe = || {
            asked.set(asked.get() + 1);
            Some(Family::Navi21)
        };
        assert_eq!(
            choose(None, AMD_VENDOR_ID, "AMD Radeon RX 6800 XT", &probe),
            (Some(Family::Navi21), ChipSource::RenderNode, None)
        );
        assert_eq!(
            choose(None, AMD_VENDOR_ID, "AMD RADV NAVI31", &probe).0,
            Some(Family::Navi31)
        );
        assert_eq!(choose(None, 0x10de, "NVIDIA", &probe).0, None);
        assert_eq!(asked.get(), 1);
        assert_eq!(pci_address(0, 3, 0, 0), "0000:03:00.0");
        assert_eq!(pci_address(1, 0xc1, 0x1f, 7), "0001:c1:1f.7");
    }
}
