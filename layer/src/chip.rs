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

/// Chooses the chip: an explicit setting wins; else RADV's device name on AMD devices.
/// A setting that names no graphics chip is an error for the caller to log once.
pub fn choose(
    setting: Option<&str>,
    vendor_id: u32,
    device_name: &str,
) -> (Option<Family>, ChipSource, Option<String>) {
    if let Some(s) = setting {
        return match Family::parse_chip_or_level(s) {
            Ok(f) => (Some(f), ChipSource::Setting, None),
            Err(e) => {
                let (f, src) = from_device(vendor_id, device_name);
                (f, src, Some(e.to_string()))
            }
        };
    }
    let (f, src) = from_device(vendor_id, device_name);
    (f, src, None)
}

fn from_device(vendor_id: u32, device_name: &str) -> (Option<Family>, ChipSource) {
    if vendor_id != AMD_VENDOR_ID {
        return (None, ChipSource::None);
    }
    match family_from_device_name(device_name) {
        Some(f) => (Some(f), ChipSource::DeviceName),
        None => (None, ChipSource::None),
    }
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
        assert_eq!(
            choose(Some("navi21"), 0x10de, "NVIDIA GeForce").0,
            Some(Family::Navi21)
        );
        assert_eq!(choose(None, 0x10de, "X (RADV NAVI31)").0, None);
        assert_eq!(
            choose(None, AMD_VENDOR_ID, "AMD RADV RAVEN").0,
            Some(Family::Raven)
        );
        let (f, src, err) = choose(Some("mi300"), AMD_VENDOR_ID, "AMD RADV NAVI10");
        assert_eq!((f, src), (Some(Family::Navi10), ChipSource::DeviceName));
        assert!(err.is_some());
    }
}
