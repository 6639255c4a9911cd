//! Which AMD family a device is, so that the report can carry that chip's register state.

use pm4::{Family, PciChip, AMD_PCI_VENDOR};

/// How the chip of a device was chosen (reported in the device summary).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChipSource {
    /// The `chip` setting.
    Setting,
    /// The PCI vendor and device id (and revision, where the id needs it) the device reports,
    /// through the chip database.
    PciId,
    /// VK_EXT_pci_bus_info matched to an amdgpu render node (feature `amdgpu-probe`).
    RenderNode,
    /// Not an AMD device, or the family could not be told.
    None,
}

/// What the device says of itself: the PCI identity Vulkan reports (`vendorID`, `deviceID`)
/// and the PCI revision where it could be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PciIdentity {
    pub vendor: u32,
    pub device: u32,
    pub revision: Option<u32>,
}

impl std::fmt::Display for PciIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PCI {:04x}:{:04x}", self.vendor, self.device)?;
        if let Some(r) = self.revision {
            write!(f, " rev {r:02x}")?;
        }
        Ok(())
    }
}

/// The chip chosen for a device, how, and what to tell the user once.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub chip: Option<Family>,
    pub source: ChipSource,
    /// A warning for the log: a setting that names no chip, or a device pops cannot place.
    pub warning: Option<String>,
}

/// Chooses the chip: an explicit setting wins; else the PCI id through the chip database on
/// AMD devices; else `by_pci` (the device's PCI address matched to an amdgpu render node),
/// asked only where the id does not settle it. Never the device-name string, which drivers
/// change with each marketing name ("AMD Radeon 890M Graphics (RADV STRIX1)").
pub fn choose(
    setting: Option<&str>,
    id: PciIdentity,
    by_pci: &dyn Fn() -> Option<Family>,
) -> Choice {
    if let Some(s) = setting {
        match Family::parse_chip_or_level(s) {
            Ok(f) => {
                return Choice {
                    chip: Some(f),
                    source: ChipSource::Setting,
                    warning: None,
                }
            }
            Err(e) => {
                let mut c = from_device(id, by_pci);
                c.warning = Some(format!("chip setting ignored: {e}"));
                return c;
            }
        }
    }
    from_device(id, by_pci)
}

fn from_device(id: PciIdentity, by_pci: &dyn Fn() -> Option<Family>) -> Choice {
    let found = |chip, source| Choice {
        chip: Some(chip),
        source,
        warning: None,
    };
    if id.vendor != AMD_PCI_VENDOR {
        return Choice {
            chip: None,
            source: ChipSource::None,
            warning: None,
        };
    }
    match Family::from_pci(id.vendor, id.device, id.revision) {
        PciChip::Family(f) => found(f, ChipSource::PciId),
        PciChip::NeedsRevision { assumed, or } => match by_pci() {
            Some(f) => found(f, ChipSource::RenderNode),
            None => Choice {
                chip: Some(assumed),
                source: ChipSource::PciId,
                warning: Some(format!(
                    "{id} is {} or {} by its revision, which could not be read: taken as {}; \
                     set the chip setting to choose",
                    assumed.name(),
                    or.name(),
                    assumed.name()
                )),
            },
        },
        PciChip::Unknown => match by_pci() {
            Some(f) => found(f, ChipSource::RenderNode),
            None => Choice {
                chip: None,
                source: ChipSource::None,
                warning: Some(format!(
                    "AMD device {id} is not a chip pops knows: no register state is recorded \
                     for it (the chip setting names one)"
                )),
            },
        },
    }
}

/// The PCI address as the kernel and libdrm spell it (`0000:03:00.0`).
pub fn pci_address(domain: u32, bus: u32, device: u32, function: u32) -> String {
    format!("{domain:04x}:{bus:02x}:{device:02x}.{function:x}")
}

/// The PCI revision of the device at `pci` (`0000:03:00.0`) whose PCI device id is `device`,
/// as sysfs gives it: the PCI device's own `revision`, else that of the DRM render node whose
/// device has that slot (`/sys/dev/char/226:N/device/`, what libdrm reads). A sysfs entry whose
/// device id is not `device` is not this device (Mesa's no-op drm-shim answers every chip with
/// one fixed entry) and gives nothing. `None` where it cannot be read.
pub fn pci_revision(pci: &str, device: u32) -> Option<u32> {
    let hex = |text: String| u32::from_str_radix(text.trim().trim_start_matches("0x"), 16).ok();
    let read = |dir: &str| {
        let id = hex(std::fs::read_to_string(format!("{dir}/device")).ok()?)?;
        if id != device {
            return None;
        }
        hex(std::fs::read_to_string(format!("{dir}/revision")).ok()?)
    };
    let own = format!("/sys/bus/pci/devices/{pci}");
    if std::path::Path::new(&own).exists() {
        return read(&own);
    }
    // Render nodes are minors 128 to 191 of DRM's major 226.
    (128..192).find_map(|minor| {
        let dev = format!("/sys/dev/char/226:{minor}/device");
        let uevent = std::fs::read_to_string(format!("{dev}/uevent")).ok()?;
        let slot = uevent
            .lines()
            .find_map(|l| l.strip_prefix("PCI_SLOT_NAME="))?;
        if !slot.eq_ignore_ascii_case(pci) {
            return None;
        }
        read(&dev)
    })
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

    fn amd(device: u32) -> PciIdentity {
        PciIdentity {
            vendor: AMD_PCI_VENDOR,
            device,
            revision: None,
        }
    }

    #[test]
    fn the_pci_id_names_the_chip_whatever_the_device_is_called() {
        let none = || None;
        // Mesa 26 names gfx1150 "AMD Radeon 890M Graphics (RADV STRIX1)": the id is what counts.
        assert_eq!(choose(None, amd(0x150e), &none).chip, Some(Family::Gfx1150));
        assert_eq!(choose(None, amd(0x744c), &none).source, ChipSource::PciId);
        assert_eq!(choose(None, amd(0x73bf), &none).chip, Some(Family::Navi21));
    }

    #[test]
    fn setting_wins_and_non_amd_gets_none() {
        let none = || None;
        let nvidia = PciIdentity {
            vendor: 0x10de,
            device: 0x2335,
            revision: None,
        };
        assert_eq!(
            choose(Some("navi21"), nvidia, &none).chip,
            Some(Family::Navi21)
        );
        assert_eq!(choose(None, nvidia, &none).chip, None);
        assert_eq!(choose(None, nvidia, &none).warning, None);
        let c = choose(Some("mi300"), amd(0x731f), &none);
        assert_eq!(
            (c.chip, c.source),
            (Some(Family::Navi10), ChipSource::PciId)
        );
        assert!(c
            .warning
            .is_some_and(|w| w.contains("chip setting ignored")));
    }

    #[test]
    fn an_unknown_id_asks_the_render_node_then_says_so_by_its_pci_id() {
        let asked = std::cell::Cell::new(0);
        let probe = || {
            asked.set(asked.get() + 1);
            Some(Family::Navi21)
        };
        let c = choose(None, amd(0x9999), &probe);
        assert_eq!(
            (c.chip, c.source),
            (Some(Family::Navi21), ChipSource::RenderNode)
        );
        assert_eq!(choose(None, amd(0x744c), &probe).chip, Some(Family::Navi31));
        assert_eq!(asked.get(), 1, "a known id never opens a render node");
        let c = choose(None, amd(0x9999), &|| None);
        assert_eq!(c.chip, None);
        assert!(
            c.warning.is_some_and(|w| w.contains("PCI 1002:9999")),
            "named by its PCI id"
        );
    }

    #[test]
    fn raven_and_raven2_share_ids_and_are_told_apart_by_revision() {
        // The shim's (Mesa's dumps of real chips) RAVEN is 15d8 rev c1, its RAVEN2 15d8 rev ea
        // (a Pollock revision in the kernel's list).
        let rev = |r| PciIdentity {
            revision: Some(r),
            ..amd(0x15d8)
        };
        assert_eq!(choose(None, rev(0xea), &|| None).chip, Some(Family::Raven2));
        assert_eq!(choose(None, rev(0xe3), &|| None).chip, Some(Family::Raven2));
        assert_eq!(choose(None, rev(0xc1), &|| None).chip, Some(Family::Raven));
        assert_eq!(
            choose(None, amd(0x15dd), &|| None).chip,
            Some(Family::Raven)
        );
        let c = choose(None, amd(0x15d8), &|| None);
        assert_eq!(c.chip, Some(Family::Raven));
        assert!(c.warning.is_some_and(|w| w.contains("raven2")));
        let c = choose(None, amd(0x15d8), &|| Some(Family::Raven2));
        assert_eq!(
            (c.chip, c.source),
            (Some(Family::Raven2), ChipSource::RenderNode)
        );
    }

    #[test]
    fn pci_addresses_are_spelled_as_the_kernel_does() {
        assert_eq!(pci_address(0, 3, 0, 0), "0000:03:00.0");
        assert_eq!(pci_address(1, 0xc1, 0x1f, 7), "0001:c1:1f.7");
    }
}
